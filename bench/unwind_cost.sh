#!/usr/bin/env bash
# What native unwinding costs (issue 23).  A busy loop without frame pointers
# (tests/integration/helpers/unwind_nofp.c: every sample needs the .eh_frame
# rules) pinned to one CPU, with no agent versus the agent running only its
# profiling source at HZ with CPU, off-CPU and futex profiling on, in
# counterbalanced ABBA pairs.  Reports:
#  - each arm's median work units per second and the ratio (target >= 0.99);
#  - per profiling program, from the kernel's own accounting
#    (kernel.bpf_stats_enabled=1 for the run, restored after): runs and
#    nanoseconds per run, i.e. per sample (CPU), per context switch
#    (off-CPU) and per futex wait, over the agent arms;
#  - the agent's own CPU time (/proc/PID/stat) per sample it counted;
#  - the unwind tables it built: enav_profile_unwind_table_bytes and its
#    "unwind table loaded path=... rows=N bytes=M" log lines, after it has
#    seen redis-server, nginx, postgres and python3.11 run (and libc with
#    them); absent from an agent without native unwinding, and said so.
#
# usage (root, after `make`): bench/unwind_cost.sh [PAIRS] [SECONDS] [HZ]  (default 5, 10, 99)
set -Eeuo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
PAIRS=${1:-5}
SECS=${2:-10}
HZ=${3:-99}
BUILD=${BUILD:-build}
APORT=${APORT:-19331}
RPORT=${RPORT:-19332}
NPORT=${NPORT:-19333}
CPU=${CPU:-1}
WORK=$(mktemp -d /tmp/enav-unwind-bench.XXXXXX)
make --no-print-directory -s all helpers >/dev/null
AGENT=
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
trap 'kill ${AGENT:-} 2>/dev/null || true; wait 2>/dev/null || true
	sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"; rm -rf "$WORK"' EXIT
# set -e ends the run silently otherwise.
trap 'echo "bench: line $LINENO failed: $BASH_COMMAND (agent log: $(tail -2 "$WORK/agent.log" 2>/dev/null))" >&2' ERR
# Off-CPU and futex profiling are on by default; the config says nothing else.
{ echo "log_level: info"; profiling_only_config "$APORT" "$HZ"; } >"$WORK/cfg.yaml"

start_agent() {
	"$BUILD/enav" run --config "$WORK/cfg.yaml" 2>>"$WORK/agent.log" &
	AGENT=$!
	for _ in $(seq 100); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && return 0; sleep 0.1; done
	echo "bench: the agent is not ready on $APORT: $(tail -3 "$WORK/agent.log")" >&2
	exit 1
}
stop_agent() {
	kill -TERM "$AGENT"
	wait "$AGENT" || true
	AGENT=
}
scrape() { # scrape FILE: the agent's /metrics (empty, and said, when it does not answer)
	curl -fs "http://127.0.0.1:$APORT/metrics" >"$1" || { echo "  (scrape failed)" >&2; : >"$1"; }
}
# samples METRICS_FILE: CPU samples + off-CPU episodes + futex waits counted.
samples() {
	awk '$1 ~ /^enav_profile_kernel_events_total\{event="(cpu_samples|offcpu_episodes|futex_waits)"\}$/ { s += $2 }
		END { printf "%.0f\n", s }' "$1"
}
ticks() { # ticks PID: utime + stime (the fields after the command name)
	local stat
	stat=$(cat "/proc/$1/stat")
	awk '{ print $12 + $13 }' <<<"${stat##*) }"
}

run_load() { # work units per second on one pinned CPU
	taskset -c "$CPU" "$BUILD/helpers/unwind_nofp" "$SECS" |
		awk -v s="$SECS" '/^units/ { printf "%.1f\n", $2 / s }'
}
: >"$WORK/bpf"
: >"$WORK/agent_cpu"
arm() { # arm NAME ROUND
	local units
	if [ "$1" = profiling ]; then
		start_agent
		sleep 1 # past its start-up work
		scrape "$WORK/m0"
		bpf_progs "$AGENT" >"$WORK/p0"
		local t0
		t0=$(ticks "$AGENT")
		units=$(run_load)
		local t1
		t1=$(ticks "$AGENT")
		bpf_progs "$AGENT" >"$WORK/p1"
		scrape "$WORK/m1"
		bpf_delta "$WORK/p0" "$WORK/p1" | sed "s/^/$2\t/" >>"$WORK/bpf"
		echo "$((t1 - t0)) $(($(samples "$WORK/m1") - $(samples "$WORK/m0")))" >>"$WORK/agent_cpu"
		stop_agent
	else
		units=$(run_load)
	fi
	echo "$1 $units" >>"$WORK/runs"
	echo "  round $2 $1: $units units/s" >&2
}
run_load >/dev/null # warm-up
for ((p = 0; p < PAIRS; p++)); do
	if ((p % 2 == 0)); then arm off "$p"; arm profiling "$p"; else arm profiling "$p"; arm off "$p"; fi
done

# The unwind tables of Debian's binaries: the agent once more, while each of
# them runs for a moment (libc is mapped by all of them).
start_agent
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
bench_nginx_site "$WORK/nginx" "server { listen 127.0.0.1:$NPORT; root $WORK/nginx/www; }"
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" \
	--logfile "$WORK/redis.log" &
others=($!)
nginx -c "$WORK/nginx/nginx.conf" &
others+=($!)
/usr/bin/python3.11 -c 'import time; e = time.monotonic() + 3
while time.monotonic() < e: pass' &
others+=($!)
# postgres has no work to do without a cluster: it prints its settings into a
# pipe nobody reads for 3 s (blocked, but alive and mapped).
if [ -n "$PG_BIN" ]; then
	(runuser -u postgres -- "$PG_BIN/postgres" --describe-config | { sleep 3; cat >/dev/null; }) &
	others+=($!)
fi
sleep 3
redis-cli -p "$RPORT" PING >/dev/null 2>&1 || echo "  (redis-server did not answer)" >&2
sleep 2 # a drain or two
scrape "$WORK/m.tables"
kill "${others[@]}" 2>/dev/null || true
wait "${others[@]}" 2>/dev/null || true
stop_agent

med() { awk -v a="$1" '$1 == a { print $2 }' "$WORK/runs" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
off=$(med off)
on=$(med profiling)
echo "unwind_nofp (-fomit-frame-pointer) pinned to CPU $CPU, ${SECS}s x $PAIRS ABBA pairs, profiling at $HZ Hz (CPU + off-CPU + futex)"
echo "off (median):       $off units/s"
echo "profiling (median): $on units/s"
awk -v a="$on" -v b="$off" 'BEGIN { printf "ratio profiling/off: %.4f (target >= 0.99)\n", a / b }'
echo "BPF programs of the agent, over the agent arms (program, hook, runs, ns/run):"
awk -F'\t' '{ k = $2 "\t" $3; runs[k] += $4; ns[k] += $5 }
	END { for (k in runs) if (runs[k]) printf "  %s\t%.0f\t%.0f\n", k, runs[k], ns[k] / runs[k] }' "$WORK/bpf" | sort
awk -v tck="$(getconf CLK_TCK)" '{ t += $1; s += $2 }
	END { printf "agent CPU: %.0f ms for %d samples (%.1f us per sample)\n", 1000 * t / tck, s, s ? 1e6 * t / tck / s : 0 }' \
	"$WORK/agent_cpu"
echo "unwind tables (redis-server, nginx, postgres, python3.11 and libc running):"
if grep -q '^enav_profile_unwind_table_bytes' "$WORK/m.tables"; then
	grep '^enav_profile_unwind_table' "$WORK/m.tables" | sed 's/^/  /'
else
	echo "  enav_profile_unwind_table_bytes: not exported by this agent"
fi
if grep -q 'unwind table loaded' "$WORK/agent.log"; then
	grep -o 'unwind table loaded.*' "$WORK/agent.log" | sort -u | sed 's/^/  /'
else
	echo "  no \"unwind table loaded\" line in the agent's log"
fi
