#!/usr/bin/env bash
# Application-protocol capture overhead: throughput with no agent versus the
# agent with its network source and L7 capture on (spans to NDJSON, RED
# metrics), in alternating ABBA pairs in one run, for two workloads:
#   wrk -> nginx (HTTP/1.1 keep-alive, 4 KiB static file)
#   redis-benchmark -> redis-server (SET/GET, -P 16)
# Reports each arm's median, the ratio, and the spans the last agent arm wrote
# against the requests the workload completed.  Target: ratio >= 0.97.
#
# usage (root, after `make`): bench/l7_overhead.sh [PAIRS] [SECONDS]   (default 3, 10)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
PAIRS=${1:-3}
SECS=${2:-10}
BUILD=${BUILD:-build}
PORT=${PORT:-18092}
RPORT=${RPORT:-16380}
APORT=${APORT:-19495}
WORK=$(mktemp -d /tmp/enav-l7b.XXXXXX)
for c in wrk nginx redis-server redis-benchmark; do
	command -v $c >/dev/null || { echo "bench: $c missing (scripts/deps.sh test)" >&2; exit 1; }
done
make --no-print-directory -s all >/dev/null
bench_nginx_site "$WORK" "sendfile on;" "server { listen 127.0.0.1:$PORT; root $WORK/www; }"
nginx -c "$WORK/nginx.conf" &
NGINX=$!
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" \
	--logfile "$WORK/redis.log" &
REDIS=$!
AGENT=
trap 'kill $NGINX $REDIS ${AGENT:-} 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
sleep 0.5
cat >"$WORK/cfg.yaml" <<CFG
http:
  listen: 127.0.0.1:$APORT
  health_listen: ""
exporters:
  ndjson:
    path: $WORK/signals.ndjson
    rate_limit: {spans_per_second: 0, other_kinds_per_second: 0} # every line: counted below
profiling:
  enabled: false
CFG

workload() { # workload NAME: prints operations/s and the operations completed
	case $1 in
	http)
		wrk -t1 -c32 -d"${SECS}s" "http://127.0.0.1:$PORT/4k.bin" |
			awk '/^Requests\/sec/ { r = $2 } / requests in / { n = $1 } END { print r, n }'
		;;
	redis)
		# -n sized to take about SECS seconds at this machine's rate.
		local n=$((SECS * ${REDIS_OPS_PER_S:-150000}))
		redis-benchmark -p "$RPORT" -c 8 -P 16 -n "$n" -t set -q --csv |
			awk -F'"' -v n="$n" '/SET/ { print $4, n }'
		;;
	esac
}

arm() { # arm WORKLOAD none|agent
	if [ "$2" = agent ]; then
		: >"$WORK/signals.ndjson"
		"$BUILD/enav" run --config "$WORK/cfg.yaml" 2>>"$WORK/agent.log" &
		AGENT=$!
		for _ in $(seq 100); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
	fi
	local out
	out=$(workload "$1")
	echo "$1 $2 $out" >>"$WORK/runs"
	if [ "$2" = agent ]; then
		sleep 1
		curl -s "http://127.0.0.1:$APORT/metrics" >"$WORK/metrics.$1" || echo "  (scrape failed)" >&2
		kill -TERM "$AGENT"
		wait "$AGENT" || true
		AGENT=
		local spans
		spans=$(grep -c '"kind":"span".*"role":"client"' "$WORK/signals.ndjson" || true)
		echo "$1 spans $spans ${out#* }" >>"$WORK/spans"
	fi
	echo "  $1 $2: ${out% *} ops/s" >&2
}

med() { awk -v w="$1" -v a="$2" '$1 == w && $2 == a { print $3 }' "$WORK/runs" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "date: $(date -u +%FT%TZ)  kernel: $(uname -r)  cores: $(nproc)"
for w in http redis; do
	workload $w >/dev/null # warm-up
	for ((p = 0; p < PAIRS; p++)); do
		if ((p % 2 == 0)); then arm $w none; arm $w agent; else arm $w agent; arm $w none; fi
	done
	none=$(med $w none)
	agent=$(med $w agent)
	echo "$w: no agent median $none ops/s; agent (network + L7) median $agent ops/s"
	awk -v a="$agent" -v n="$none" -v w="$w" 'BEGIN { printf "%s ratio agent/no-agent: %.4f (target >= 0.97)\n", w, a / n }'
	tail -n1 "$WORK/spans" | awk '{ printf "  last agent arm: %s client spans for %s operations completed\n", $3, $4 }'
	full=$(awk '$1 ~ /enav_kernel_events_total\{source="network".*category="transport_full"/ { print $2 }' "$WORK/metrics.$w")
	echo "  last agent arm: network transport_full ${full:-?}"
done
