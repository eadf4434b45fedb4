#!/usr/bin/env bash
# What the kernel's verifier costs at agent start: the agent at its defaults
# (or with CONFIG), then, for every program it holds, the instructions the
# verifier processed to load it (bpf_prog_info.verified_insns), largest
# first, their total, and the time each source took to load and attach (from
# the agent's debug log).  Verification is most of an agent's start, and in
# an emulated guest it is tens of seconds.
#
# usage (root, after `make`): bench/verifier_cost.sh [CONFIG]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
APORT=${APORT:-19496}
WORK=$(mktemp -d /tmp/enav-verifier.XXXXXX)
AGENT=
trap 'kill ${AGENT:-} 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
clang -O2 -Wall bench/verified_insns.c -lbpf -o "$WORK/verified_insns"
{
	[ $# -gt 0 ] && cat "$1"
	printf 'http:\n  listen: 127.0.0.1:%s\n  health_listen: ""\nlog_level: debug\n' "$APORT"
} >"$WORK/cfg.yaml"
"$BUILD/enav" run --config "$WORK/cfg.yaml" >/dev/null 2>"$WORK/agent.log" &
AGENT=$!
for _ in $(seq 300); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
ids=$({ cat /proc/"$AGENT"/fdinfo/* 2>/dev/null || :; } | awk '$1 == "prog_id:" { print $2 }' | sort -un)
"$WORK/verified_insns" $ids | sort -rn >"$WORK/insns"
printf 'verified\txlated\tprogram\n'
cat "$WORK/insns"
awk -F'\t' '{ s += $1 } END { printf "total: %d instructions verified for %d programs\n", s, NR }' "$WORK/insns"
# Load time per source: from "loading object" to "... source attached".
awk '/loading object/ { split($1, t, "T"); start = t[2]; obj = $0; sub(/.*loading object ./, "", obj); sub(/. from.*/, "", obj) }
	/source attached/ && start != "" { split($1, t, "T"); a = start; b = t[2]; sub(/Z/, "", a); sub(/Z/, "", b)
		split(a, x, ":"); split(b, y, ":")
		printf "%s: loaded and attached in %.2f s\n", obj, (y[1] * 3600 + y[2] * 60 + y[3]) - (x[1] * 3600 + x[2] * 60 + x[3]); start = "" }' "$WORK/agent.log"
