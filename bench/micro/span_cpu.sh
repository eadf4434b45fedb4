#!/bin/bash
# Agent CPU per request under wrk -t1 -c32 against nginx serving a 4 KiB file
# on loopback (both ends captured, so two spans per request), for one agent
# binary and one arm:
#   ndjson  defaults, spans to NDJSON in a file
#   otlp    defaults, NDJSON off, OTLP (traces, metrics, logs) to a local
#           endpoint that decodes nothing (bench/otlp_sink.c, the campaign's)
# Profiling is off in both, as in issue 22's table.  Prints one line: arm,
# requests, agent user and sys microseconds per request (from
# /proc/PID/stat over the wrk run), spans exported, and the agent threads'
# voluntary context switches and minor page faults per 1000 requests
# (wakeups; buffers not reused).  Needs root.
#   [PERF=perf.data] bench/micro/span_cpu.sh BINARY ARM [PORT] [SECONDS]
set -euo pipefail
BIN=$1 ARM=$2 PORT=${3:-27100} SECS=${4:-10}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../lib.sh"
WORK=$(mktemp -d /tmp/enav-span-cpu.XXXXXX)
NGINX= AGENT= RECV=
cleanup() {
	kill ${AGENT:-} ${NGINX:-} 2>/dev/null || true
	[ -n "$RECV" ] && kill -TERM "$RECV" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT
bench_nginx_site "$WORK" "sendfile on;" "server { listen 127.0.0.1:$PORT; root $WORK/www; }"
nginx -c "$WORK/nginx.conf" &
NGINX=$!
{
	printf 'http:\n  listen: 127.0.0.1:%s\nprofiling:\n  enabled: false\n' $((PORT + 1))
	case $ARM in
	ndjson) printf 'exporters:\n  ndjson:\n    path: %s\n' "$WORK/out.ndjson" ;;
	otlp)
		cc -O2 -o "$WORK/otlp_sink" "$HERE/../otlp_sink.c"
		"$WORK/otlp_sink" $((PORT + 2)) >"$WORK/recv.out" &
		RECV=$!
		for _ in $(seq 50); do grep -qs ready "$WORK/recv.out" && break; sleep 0.1; done
		printf 'exporters:\n  ndjson:\n    enabled: false\n  otlp:\n    endpoint: http://127.0.0.1:%s\n' $((PORT + 2))
		;;
	*) echo "arm: ndjson or otlp" >&2; exit 2 ;;
	esac
} >"$WORK/agent.yaml"
"$BIN" run --config "$WORK/agent.yaml" >"$WORK/agent.out" 2>"$WORK/agent.err" &
AGENT=$!
for _ in $(seq 100); do
	curl -sf "http://127.0.0.1:$((PORT + 1))/readyz" >/dev/null 2>&1 && break
	sleep 0.1
done
curl -sf "http://127.0.0.1:$PORT/4k.bin" >/dev/null
sleep 1
cpu() { awk '{print $14, $15, $10}' "/proc/$AGENT/stat"; }
# Context switches of every agent thread: wakeups show up here.
switches() { cat /proc/"$AGENT"/task/*/status 2>/dev/null | awk '/^voluntary_ctxt_switches/ {s += $2} END {print s + 0}'; }
read -r u0 s0 f0 < <(cpu)
cs0=$(switches)
# PERF=FILE also records the agent's call graphs over the run.
[ -n "${PERF:-}" ] && { perf record -q -g -p "$AGENT" -o "$PERF" -- sleep "$SECS" 2>/dev/null & }
wrk -t1 -c32 -d"$SECS" "http://127.0.0.1:$PORT/4k.bin" >"$WORK/wrk.out"
read -r u1 s1 f1 < <(cpu)
cs1=$(switches)
sleep 1
reqs=$(awk '/requests in/ {print $1}' "$WORK/wrk.out")
rps=$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk.out")
tck=$(getconf CLK_TCK)
m=$(curl -sf "http://127.0.0.1:$((PORT + 1))/metrics")
spans=$(awk '/^enav_l7_spans_total / {print $2}' <<<"$m")
dropped=$(awk '/^enav_sink_dropped_total/ {s += $2} END {print s + 0}' <<<"$m")
awk -v a="$ARM" -v r="$reqs" -v rps="$rps" -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v t="$tck" \
	-v sp="$spans" -v d="$dropped" -v cs=$((cs1 - cs0)) -v mf=$((f1 - f0)) 'BEGIN {
	printf "%s requests=%d req/s=%s user_us/req=%.2f sys_us/req=%.2f total_us/req=%.2f spans=%s sink_dropped=%s voluntary_switches/1k_req=%.1f minor_faults/1k_req=%.1f\n",
		a, r, rps, u * 1e6 / t / r, s * 1e6 / t / r, (u + s) * 1e6 / t / r, sp, d, cs * 1000 / r, mf * 1000 / r }'
