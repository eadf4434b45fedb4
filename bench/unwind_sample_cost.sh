#!/usr/bin/env bash
# BPF run time per CPU sample with user stacks unwound from .eh_frame versus
# walked by frame pointer (ADR 0017): tests/integration/helpers/unwind_nofp
# (no frame pointers) pinned to CPU 1, `enav profile --frequency HZ` on it
# with profiling.unwind.eh_frame true, then false, ROUNDS times; the
# enav_cpu_sample program's run time and count (kernel.bpf_stats_enabled)
# over the middle 3 s of each run, and the mean user frames per stack.
#
# usage (root, after `make all helpers`): bench/unwind_sample_cost.sh [ROUNDS] [HZ]  (2, 999)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-2}
HZ=${2:-999}
BUILD=${BUILD:-build}
WORK=$(mktemp -d /tmp/enav-unwind-sample.XXXXXX)
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
trap 'sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"; rm -rf "$WORK"' EXIT
printf 'profiling:\n  unwind:\n    eh_frame: true\n' >"$WORK/eh.yaml"
printf 'profiling:\n  unwind:\n    eh_frame: false\n' >"$WORK/fp.yaml"

prog_stats() { # run_time_ns run_cnt of enav_cpu_sample
	bpftool -j prog show name enav_cpu_sample | python3 -c '
import json, sys
d = json.load(sys.stdin)
d = d if isinstance(d, dict) else d[0]
print(d.get("run_time_ns", 0), d.get("run_cnt", 0))'
}

for ((r = 0; r < ROUNDS; r++)); do
	for arm in eh fp; do
		taskset -c 1 "$BUILD/helpers/unwind_nofp" 9 >/dev/null &
		w=$!
		sleep 0.3
		"$BUILD/enav" profile --config "$WORK/$arm.yaml" --frequency "$HZ" --seconds 6 \
			--pid "$w" --folded "$WORK/$arm.folded" >/dev/null 2>&1 &
		e=$!
		sleep 2.5
		read -r t0 c0 < <(prog_stats)
		sleep 3
		read -r t1 c1 < <(prog_stats)
		wait "$e"
		kill "$w" 2>/dev/null || true
		wait "$w" 2>/dev/null || true
		frames=$(awk '{ n = split($1, f, ";"); u = 0
			for (i = 2; i <= n; i++) if (f[i] !~ /_\[k\]$/) u++
			s += u * $NF; c += $NF } END { printf "%.1f", c ? s / c : 0 }' "$WORK/$arm.folded")
		echo "$arm: $((c1 - c0)) samples, $(((t1 - t0) / (c1 - c0 > 0 ? c1 - c0 : 1))) ns per sample, $frames user frames per stack"
	done
done
