#!/usr/bin/env bash
# The seeds of the raw-event decoders' fuzz targets must carry the current
# ENAV_ABI_VERSION (include/enav/abi.h): a decoder refuses any other version
# at its first check, so stale seeds reach none of the per-type code and the
# fuzzer starts from nothing.  Every seed whose header says an event type
# and an older version fails this check (rewrite bytes 2-3, little-endian),
# except a seed whose name says it is about the version (bad_version).
set -euo pipefail
cd "$(dirname "$0")/../.."
abi=$(awk '$1 == "#define" && $2 == "ENAV_ABI_VERSION" { print $3 }' include/enav/abi.h)
[ -n "$abi" ] || { echo "check_seed_abi: no ENAV_ABI_VERSION in include/enav/abi.h" >&2; exit 1; }
/usr/bin/python3 - "$abi" tests/fuzz/corpus/fuzz_net_decode tests/fuzz/corpus/fuzz_exec_decode \
	tests/fuzz/corpus/fuzz_profile_event <<'PY'
import os, struct, sys
abi = int(sys.argv[1])
stale = current = 0
for d in sys.argv[2:]:
    for f in sorted(os.listdir(d)):
        b = open(os.path.join(d, f), "rb").read()
        if len(b) < 24 or "version" in f:  # bad_version: a refusal on purpose
            continue
        kind, version = struct.unpack_from("<HH", b, 0)
        if kind >= 40:
            continue
        if version == abi:
            current += 1
        elif 0 < version < abi:
            stale += 1
            print(f"check_seed_abi: {d}/{f} says ABI {version}, the decoders take {abi}")
print(f"check_seed_abi: {current} seeds at ABI {abi}, {stale} stale")
sys.exit(1 if stale or current == 0 else 0)
PY
