#!/usr/bin/env bash
# BPF run time per futex wait: tests/integration/helpers/prof_workload mutex
# (4 threads on one mutex, so waits of every length) under an agent running
# only the profiling source, ROUNDS times.  Sums the futex enter and exit
# programs' run time (kernel.bpf_stats_enabled) over the middle 4 s of each
# run and divides by the enter count, and prints the share of waits the
# agent kept (at least profiling.futex.min_wait_us) from its own counters.
# Since the stack is taken at the exit, a wait under the threshold costs no
# stack walk: run against an older build with BUILD=... to compare.
#
# usage (root, after `make all helpers`): bench/futex_wait_cost.sh [ROUNDS]  (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
BUILD=${BUILD:-build}
APORT=${APORT:-19497}
. bench/lib.sh
WORK=$(mktemp -d /tmp/enav-futex-cost.XXXXXX)
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
AGENT=
trap 'kill ${AGENT:-} 2>/dev/null; wait 2>/dev/null; sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"; rm -rf "$WORK"' EXIT
profiling_only_config "$APORT" 99 >"$WORK/cfg.yaml"

futex_runs() { # SNAPSHOT: "ENTERS NS" of the futex programs (enter + exit)
	awk -F'\t' '$1 ~ /futex/ { ns += $4; if ($1 ~ /enter/) n += $3 } END { printf "%d %d\n", n, ns }' "$1"
}
counter() { # counter NAME: the agent's enav_profile_kernel_events_total for NAME
	curl -fsS -m 5 "http://127.0.0.1:$APORT/metrics" |
		awk -v want="$1" '/^enav_profil[a-z_]*{/ && index($0, "\"" want "\"") { s += $NF } END { print s + 0 }'
}

for ((r = 0; r < ROUNDS; r++)); do
	"$BUILD/enav" run --config "$WORK/cfg.yaml" 2>>"$WORK/agent.log" &
	AGENT=$!
	for _ in $(seq 100); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
	"$BUILD/helpers/prof_workload" mutex 7 >/dev/null &
	w=$!
	sleep 1.5
	bpf_progs "$AGENT" >"$WORK/before"
	sleep 4
	bpf_progs "$AGENT" >"$WORK/after"
	bpf_delta "$WORK/before" "$WORK/after" >"$WORK/delta"
	wait "$w"
	kept=$(counter futex_waits)
	below=$(counter below_threshold)
	kill -TERM "$AGENT"
	wait "$AGENT" || true
	AGENT=
	read -r n ns < <(futex_runs "$WORK/delta")
	awk -v n="$n" -v ns="$ns" -v k="$kept" -v b="$below" -v r="$r" 'BEGIN {
		printf "round %d: %d waits, %.0f ns of BPF per wait (enter + exit); agent kept %d, below threshold %d (off-CPU included)\n",
			r + 1, n, n ? ns / n : 0, k, b }'
done
