#!/usr/bin/env bash
# wrk -> nginx on loopback: requests per second with no agent versus the agent
# with its network source (and everything else at defaults), in alternating
# ABBA pairs in one run.  Reports each arm's median and the ratio.
# Target: agent >= 97% of no-agent.  DNS_CAPTURE_BYTES=0 runs the agent
# without the sys_exit hook DNS capture needs, to show what that hook costs.
# L7=true adds application-protocol capture (bench/l7_overhead.sh measures
# that configuration against wrk and redis-benchmark).
#
# usage (root, after `make`): bench/net_overhead.sh [PAIRS] [SECONDS]   (default 3, 10)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
PAIRS=${1:-3}
SECS=${2:-10}
BUILD=${BUILD:-build}
PORT=${PORT:-18090}
APORT=${APORT:-19494}
WORK=$(mktemp -d /tmp/enav-wrk.XXXXXX)
command -v wrk >/dev/null || { echo "bench: install wrk (apt-get install wrk)" >&2; exit 1; }
make --no-print-directory -s all >/dev/null
bench_nginx_site "$WORK" "sendfile on;" "server { listen 127.0.0.1:$PORT; root $WORK/www; }"
nginx -c "$WORK/nginx.conf" &
NGINX=$!
AGENT=
trap 'kill $NGINX ${AGENT:-} 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
sleep 0.5
cat >"$WORK/cfg.yaml" <<CFG
http:
  listen: 127.0.0.1:$APORT
  health_listen: ""
exporters:
  ndjson:
    path: $WORK/signals.ndjson
    rate_limit: {spans_per_second: 0, other_kinds_per_second: 0} # every line: counted below
sources:
  network:
    dns_capture_bytes: ${DNS_CAPTURE_BYTES:-512}
    l7:
      enabled: ${L7:-false}
CFG

run_wrk() { # prints requests/s
	wrk -t1 -c32 -d"${SECS}s" "http://127.0.0.1:$PORT/4k.bin" | awk '/^Requests\/sec/ { print $2 }'
}
arm() { # arm NAME
	if [ "$1" = agent ]; then
		"$BUILD/enav" run --config "$WORK/cfg.yaml" 2>>"$WORK/agent.log" &
		AGENT=$!
		for _ in $(seq 100); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
	fi
	local rps
	rps=$(run_wrk)
	echo "$1 $rps" >>"$WORK/runs"
	if [ "$1" = agent ]; then
		curl -s "http://127.0.0.1:$APORT/metrics" >"$WORK/metrics.last" || echo "  (scrape failed)" >&2
		kill -TERM "$AGENT"
		wait "$AGENT" || true
		AGENT=
	fi
	echo "  $1: $rps req/s" >&2
}
run_wrk >/dev/null # warm-up
for ((p = 0; p < PAIRS; p++)); do
	if ((p % 2 == 0)); then arm none; arm agent; else arm agent; arm none; fi
done
med() { awk -v a="$1" '$1 == a { print $2 }' "$WORK/runs" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
none=$(med none)
agent=$(med agent)
closes=$(grep -c '"kind":"tcp.close"' "$WORK/signals.ndjson" || true)
full=$(awk '$1 ~ /enav_kernel_events_total\{source="network".*category="transport_full"/ { print $2 }' "$WORK/metrics.last")
echo "wrk -t1 -c32 ${SECS}s x $PAIRS ABBA pairs, 4 KiB static file over keep-alive"
echo "no agent: median $none req/s; agent: median $agent req/s"
awk -v a="$agent" -v n="$none" 'BEGIN { printf "ratio agent/no-agent: %.4f (target >= 0.97)\n", a / n }'
echo "last agent arm: tcp.close signals written $closes, network transport_full ${full:-?}"
