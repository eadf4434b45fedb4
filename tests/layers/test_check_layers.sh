#!/usr/bin/env bash
# scripts/check_layers.py against small trees: a clean one passes, and each
# kind of violation fails naming the offending include.
set -uo pipefail
cd "$(dirname "$0")/../.."
check=scripts/check_layers.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

tree() { # tree NAME: a clean tree with every layer
	local t=$work/$1
	mkdir -p "$t"/src/{platform,model,runtime,features/a/sub,features/b,exporters/x} "$t"/bpf/{lib,a} \
		"$t"/include/enav
	echo '' >"$t"/include/enav/abi.h
	echo '#include "enav/abi.h"' >"$t"/src/platform/p.h
	echo '#include "platform/p.h"' >"$t"/src/model/m.h
	echo '#include "model/m.h"' >"$t"/src/runtime/r.h
	printf '#include "runtime/r.h"\n#include "features/a/a_priv.h"\n' >"$t"/src/features/a/sub/s.c
	echo '' >"$t"/src/features/a/a_priv.h
	echo '#include "features/a/sub/s.h"' >"$t"/src/features/b/b.c
	echo '/* enav-service: what features/b may ask of features/a */' >"$t"/src/features/a/sub/s.h
	echo '' >"$t"/src/features/a/a.h
	echo '' >"$t"/src/exporters/x/x.h
	echo '#include "model/m.h"' >"$t"/src/exporters/x/x.c
	printf '#include "runtime/r.h"\n#include "a_skel_ringbuf.skel.h"\n' >"$t"/src/main.c
	echo '' >"$t"/bpf/lib/h.bpf.h
	printf '#include "vmlinux.h"\n#include "h.bpf.h"\n' >"$t"/bpf/a/a.bpf.c
	echo "$t"
}

expect() { # expect NAME RC PATTERN [ARG...]: run the check on tree NAME
	local out rc
	out=$("$check" --root "$work/$1" "${@:4}" 2>&1)
	rc=$?
	if [ "$rc" -ne "$2" ] || ! grep -q -- "$3" <<<"$out"; then
		echo "FAIL $1: rc $rc (want $2), output lacks '$3':"
		echo "$out"
		fails=$((fails + 1))
	else
		echo "PASS $1"
	fi
}

tree clean >/dev/null
expect clean 0 'none up, none private, no cycle'

t=$(tree up)
echo '#include "runtime/r.h"' >>"$t"/src/model/m.h
expect up 1 'src/model/m.h:2: #include "runtime/r.h": points up, from model (layer 1) to runtime (layer 3)'

t=$(tree private)
echo '#include "features/a/a_priv.h"' >>"$t"/src/features/b/b.c
expect private 1 'src/features/b/b.c:2: #include "features/a/a_priv.h": src/features/a/a_priv.h is private to features/a'

t=$(tree cycle)
echo '#include "features/b/b.h"' >>"$t"/src/features/a/sub/s.h
echo '/* enav-service: what features/a may ask of features/b */' >"$t"/src/features/b/b.h
expect cycle 1 'include cycle between features/a, features/b'
expect cycle 1 'src/features/a/sub/s.h:2: #include "features/b/b.h"'

t=$(tree missing)
echo '#include "platform/gone.h"' >>"$t"/src/model/m.h
expect missing 1 'src/model/m.h:2: #include "platform/gone.h": names no file'

t=$(tree kernel_peer)
mkdir -p "$t"/bpf/b && echo '#include "../a/a.bpf.c"' >"$t"/bpf/b/b.bpf.c
expect kernel_peer 1 "one feature's BPF code includes another's"

t=$(tree user_kernel)
echo '#include "../../../bpf/lib/h.bpf.h"' >>"$t"/src/exporters/x/x.c
expect user_kernel 1 'user space includes a kernel-side file'

# Capabilities (feature and exporter folders) meet only through a declared
# service, in every direction.
t=$(tree sideways_features)
echo '#include "features/a/a.h"' >>"$t"/src/features/b/b.c
expect sideways_features 1 'src/features/b/b.c:2: #include "features/a/a.h": sideways, from features/b to features/a'

t=$(tree feature_to_exporter)
echo '#include "exporters/x/x.h"' >>"$t"/src/features/a/sub/s.c
expect feature_to_exporter 1 'src/features/a/sub/s.c:3: #include "exporters/x/x.h": sideways, from features/a to exporters/x'

t=$(tree exporter_to_feature)
echo '#include "features/a/a.h"' >>"$t"/src/exporters/x/x.c
expect exporter_to_feature 1 'src/exporters/x/x.c:2: #include "features/a/a.h": sideways, from exporters/x to features/a'

t=$(tree exporter_to_exporter)
mkdir -p "$t"/src/exporters/y && echo '#include "exporters/x/x.h"' >"$t"/src/exporters/y/y.c
expect exporter_to_exporter 1 'src/exporters/y/y.c:1: #include "exporters/x/x.h": sideways, from exporters/y to exporters/x'

t=$(tree service_without_reason)
echo '/* enav-service: */' >"$t"/src/features/a/sub/s.h
expect service_without_reason 1 'src/features/a/sub/s.h declares a service without saying why'

t=$(tree wide_service)
echo '#include "features/a/a.h"' >>"$t"/src/features/a/sub/s.h
expect wide_service 1 'service header src/features/a/sub/s.h includes src/features/a/a.h, which is not a service of features/a'

# A pending arrow passes while an include uses it, and fails once none does.
t=$(tree pending)
echo '#include "features/a/a.h"' >>"$t"/src/features/b/b.c
expect pending 0 'between capabilities 1 through a service, 1 pending' --pending=features/b=src/features/a/a.h
tree stale_pending >/dev/null
expect stale_pending 1 'PENDING entry (features/b, src/features/a/a.h) matches no include' --pending=features/b=src/features/a/a.h

# And the real tree.
"$check" || fails=$((fails + 1))
[ "$fails" -eq 0 ]
