#!/usr/bin/env bash
# Busy-loop throughput with CPU + off-CPU + futex profiling on versus off, in
# alternating ABBA pairs in one run (the workload pinned to one CPU).  The
# agent arm runs only the profiling source (exec, network, host and NDJSON
# off), so the ratio is what profiling costs.  Reports each arm's median,
# the ratio and the stack-capture failure rate the agent exported.
# Target: profiling on >= 99% of off at 99 Hz.
# LINKS=on: the network source runs too, with its L7 path (NDJSON still off),
# so samples look up the thread's request (profiling.links, ADR 0021): the
# busy loop serves none, so this is the lookup's cost on every sample.
# LINKS=off: the same agent with profiling.links off, to tell the lookup
# from the network source's own cost.
#
# usage (root, after `make`): bench/profile_overhead.sh [PAIRS] [SECONDS] [HZ]  (default 3, 10, 99)
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${1:-3}
SECS=${2:-10}
HZ=${3:-99}
. bench/lib.sh
BUILD=${BUILD:-build}
APORT=${APORT:-19495}
CPU=${CPU:-1}
WORK=$(mktemp -d /tmp/enav-prof-bench.XXXXXX)
make --no-print-directory -s all helpers >/dev/null
AGENT=
trap 'kill ${AGENT:-} 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
profiling_only_config "$APORT" "$HZ" >"$WORK/cfg.yaml"
case ${LINKS:-} in
'') ;;
on | off)
	sed -i '/^  network:$/{n;s/enabled: false/enabled: true/}' "$WORK/cfg.yaml"
	printf '  links:\n    enabled: %s\n' "$([ "$LINKS" = on ] && echo true || echo false)" >>"$WORK/cfg.yaml"
	;;
*) echo "LINKS: on or off" >&2 && exit 2 ;;
esac

run_load() { # prints work units done in SECS on one pinned CPU
	taskset -c "$CPU" "$BUILD/helpers/prof_workload" spin "$SECS" | awk '/^units/ { print $2 }'
}
arm() { # arm NAME
	if [ "$1" = profiling ]; then
		"$BUILD/enav" run --config "$WORK/cfg.yaml" 2>>"$WORK/agent.log" &
		AGENT=$!
		for _ in $(seq 100); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
	fi
	local units
	units=$(run_load)
	echo "$1 $units" >>"$WORK/runs"
	if [ "$1" = profiling ]; then
		curl -s "http://127.0.0.1:$APORT/metrics" >>"$WORK/metrics.all" || echo "  (scrape failed)" >&2
		kill -TERM "$AGENT"
		wait "$AGENT" || true
		AGENT=
	fi
	echo "  $1: $units units" >&2
}
run_load >/dev/null # warm-up
for ((p = 0; p < PAIRS; p++)); do
	if ((p % 2 == 0)); then arm off; arm profiling; else arm profiling; arm off; fi
done
med() { awk -v a="$1" '$1 == a { print $2 }' "$WORK/runs" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
off=$(med off)
on=$(med profiling)
sum() { awk -v m="$1" 'index($1, m) == 1 { s += $2 } END { printf "%.0f\n", s }' "$WORK/metrics.all"; }
samples=$(($(sum 'enav_profile_kernel_events_total{event="cpu_samples"}') + $(sum 'enav_profile_kernel_events_total{event="offcpu_episodes"}') + $(sum 'enav_profile_kernel_events_total{event="futex_waits"}')))
failures=0
for e in stack_user_fault stack_kernel_fault stack_collision stack_other_error count_map_full; do
	failures=$((failures + $(sum "enav_profile_kernel_events_total{event=\"$e\"}")))
done
echo "busy loop pinned to CPU $CPU, ${SECS}s x $PAIRS ABBA pairs, profiling at $HZ Hz (CPU + off-CPU + futex)"
echo "off (median):       $off units"
echo "profiling (median): $on units"
awk -v a="$on" -v b="$off" 'BEGIN { printf "ratio profiling/off: %.4f (target >= 0.99)\n", a / b }'
awk -v f="$failures" -v s="$samples" 'BEGIN { printf "stack failures: %d of %d captures (%.4f%%)\n", f, s, s ? 100 * f / s : 0 }'
