#!/usr/bin/env bash
# First-signal window: time from a new cgroup's creation to the first signal
# the agent captures from a process in it, under an allowlist that admits it.
# Three arms, run in alternating order on the same node:
#   floor    capture.mode: all (no filter): the workload's own time to its
#            first exec, the least any filter could achieve
#   inotify  discovery.inotify: true  (the default)
#   rescan   discovery.inotify: false, rescan every 2 s (the loss-recovery path)
# Also reports the verdict latency: mkdir -> the verdict visible in the kernel map.
#
# usage (root, after `make`): bench/first_signal.sh [PAIRS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
PAIRS=${1:-5}
INOTIFY_RUNS=${INOTIFY_RUNS:-10}
RESCAN_RUNS=${RESCAN_RUNS:-2}
PORT=${PORT:-19474}
BUILD=${BUILD:-build}
WORK=$(mktemp -d /tmp/enav-bench.XXXXXX)
TOP=/enav-bench-$$
make --no-print-directory -s all helpers >/dev/null
clang -O2 -D_GNU_SOURCE bench/first_signal.c -lbpf -lpthread -o "$WORK/first_signal"
EXE=$(readlink -f "$BUILD/helpers/exit_with")
AGENT=

cleanup() {
	[ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null && wait "$AGENT" 2>/dev/null
	for m in $(awk '$9 == "cgroup" || $9 == "cgroup2" { print $5 }' /proc/self/mountinfo); do
		[ -d "$m$TOP" ] && find "$m$TOP" -depth -type d -exec rmdir {} \; 2>/dev/null
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

run_arm() { # run_arm NAME RUNS MAX_MS INOTIFY RESCAN_MS [MODE]
	local name=$1 runs=$2 max_ms=$3 mode=${6:-allowlist}
	cat >"$WORK/cfg.yaml" <<CFG
http:
  listen: 127.0.0.1:$PORT
  health_listen: ""
exporters:
  ndjson:
    path: $WORK/$name.ndjson
capture:
  mode: $mode
  selectors: ["cgroup:$TOP/*"]
discovery:
  inotify: $4
  rescan_interval_ms: $5
CFG
	"$BUILD/enav" run --config "$WORK/cfg.yaml" 2>>"$WORK/agent.log" &
	AGENT=$!
	for _ in $(seq 100); do curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
	local i rel out
	for ((i = 0; i < runs; i++)); do
		rel=$TOP/$name-$RANDOM-$i
		out=$("$WORK/first_signal" "$rel" "$max_ms" "$EXE")
		echo "$name $rel $out" >>"$WORK/runs.txt"
	done
	sleep 0.3
	kill -TERM "$AGENT"
	wait "$AGENT" || true
	AGENT=
}

# The parent exists everywhere (as a runtime's slice would) before any run.
"$BUILD/helpers/cgrun" -p -m "$TOP" -- /bin/true >/dev/null

for ((p = 0; p < PAIRS; p++)); do
	# floor: no filter at all, so the window is the workload's own time to
	# its first exec (fork, join every hierarchy, exec): the physical floor.
	if ((p % 2 == 0)); then
		run_arm inotify "$INOTIFY_RUNS" 30 true 2000
		run_arm rescan "$RESCAN_RUNS" 2600 false 2000
		run_arm floor "$INOTIFY_RUNS" 30 true 2000 all
	else
		run_arm floor "$INOTIFY_RUNS" 30 true 2000 all
		run_arm rescan "$RESCAN_RUNS" 2600 false 2000
		run_arm inotify "$INOTIFY_RUNS" 30 true 2000
	fi
done

# window = first captured exec in the cgroup - t0 (both Unix ns).
: >"$WORK/windows.txt"
while read -r arm rel t0 verdict execs first_pid; do
	t0=${t0#t0_unix_ns=}
	verdict=${verdict#verdict_ns=}
	first_pid=${first_pid#first_pid=}
	first=$(cat "$WORK"/*.ndjson | jq -r "select(.kind == \"process.exec\" and .cgroup.path == \"$rel\") | \"\\(.time_unix_nano) \\(.process.pid)\"" | sort -n | sed -n 1p)
	if [ -z "$first" ]; then
		echo "$arm missed -1 $verdict 0" >>"$WORK/windows.txt"
	else
		# Column 5: 1 when the very first process in the cgroup was captured.
		echo "$arm ok $((${first% *} - t0)) $verdict $([ "${first#* }" = "$first_pid" ] && echo 1 || echo 0)" >>"$WORK/windows.txt"
	fi
done <"$WORK/runs.txt"

stats() { # stats ARM COLUMN LABEL   (column 3: window, 4: verdict latency)
	local missed
	missed=$(awk -v arm="$1" '$1 == arm && $2 != "ok"' "$WORK/windows.txt" | wc -l)
	awk -v arm="$1" -v col="$2" '$1 == arm && $2 == "ok" && $col >= 0 { print $col / 1e6 }' \
		"$WORK/windows.txt" | sort -g | awk -v arm="$1" -v label="$3" -v missed="$missed" '
		{ v[++n] = $1 }
		END {
			if (n == 0) { printf "%-8s %-20s no samples (missed %d)\n", arm, label, missed; exit }
			med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
			idx = int(0.99 * n + 0.999999); if (idx < 1) idx = 1; if (idx > n) idx = n
			printf "%-8s %-20s n=%-3d median=%10.3f ms  p99=%10.3f ms  missed=%d\n",
				arm, label, n, med, v[idx], missed
		}'
}
echo "first-signal window ($PAIRS ABBA pairs, $INOTIFY_RUNS inotify + $RESCAN_RUNS rescan runs per pair)"
stats floor 3 "first-signal window"
stats inotify 3 "first-signal window"
stats rescan 3 "first-signal window"
stats inotify 4 "verdict latency"
stats rescan 4 "verdict latency"
awk '$2 == "ok" { n[$1]++; f[$1] += $5 } END { for (a in n) printf "%-8s first process in the new cgroup captured: %d of %d runs\n", a, f[a], n[a] }' "$WORK/windows.txt" | sort
if [ -n "${RATIO:-1}" ]; then
	awk '$2 == "ok" { s[$1] += $3; n[$1]++ } END { if (n["inotify"] && n["rescan"]) printf "mean window ratio rescan/inotify: %.0fx\n", (s["rescan"] / n["rescan"]) / (s["inotify"] / n["inotify"]) }' "$WORK/windows.txt"
fi
