#!/usr/bin/env bash
# TLS plaintext capture overhead: HTTPS throughput (wrk -> nginx, HTTP/1.1
# keep-alive over TLS 1.3, 4 KiB static file; both ends OpenSSL, so both are
# probed) with no agent, versus the agent with TLS capture on (uprobes on
# libssl, spans to NDJSON, RED metrics), in alternating ABBA pairs in one
# run.  A third arm, the agent with TLS capture off, separates the cost of
# the uprobes from the rest of the agent (which then sees only ciphertext).
# Reports each arm's median, the ratios, and the spans the last capturing arm
# wrote against the requests wrk completed.
#
# usage (root, after `make`): bench/tls_overhead.sh [PAIRS] [SECONDS]   (default 3, 10)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
PAIRS=${1:-3}
SECS=${2:-10}
BUILD=${BUILD:-build}
PORT=${PORT:-18493}
APORT=${APORT:-19496}
WORK=$(mktemp -d /tmp/enav-tlsb.XXXXXX)
for c in wrk nginx openssl; do
	command -v $c >/dev/null || { echo "bench: $c missing (scripts/deps.sh test)" >&2; exit 1; }
done
make --no-print-directory -s all >/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" \
	-days 2 -subj /CN=localhost >/dev/null 2>&1
bench_nginx_site "$WORK" "ssl_certificate $WORK/cert.pem;" "ssl_certificate_key $WORK/key.pem;" \
	"server { listen 127.0.0.1:$PORT ssl; root $WORK/www; }"
nginx -c "$WORK/nginx.conf" &
NGINX=$!
AGENT=
trap 'kill $NGINX ${AGENT:-} 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
sleep 0.5
for arm in on off; do
	cat >"$WORK/cfg-$arm.yaml" <<CFG
http:
  listen: 127.0.0.1:$APORT
exporters:
  ndjson:
    path: $WORK/signals.ndjson
    rate_limit: {spans_per_second: 0, other_kinds_per_second: 0} # every line: counted below
profiling:
  enabled: false
sources:
  network:
    tls:
      enabled: $([ $arm = on ] && echo true || echo false)
CFG
done

# The price of one uprobe hit, to read the ratios against.
cc -O2 -o "$WORK/uprobe_floor" bench/uprobe_floor.c -l:libssl.so.3
floor() { # floor none|probed: microseconds per SSL_free(NULL)
	if [ "$1" = probed ]; then
		"$BUILD/enav" run --config "$WORK/cfg-on.yaml" 2>>"$WORK/agent.log" &
		AGENT=$!
		for _ in $(seq 100); do
			curl -fs "http://127.0.0.1:$APORT/metrics" 2>/dev/null | grep -q '^enav_tls_probed_binary{library="openssl"' && break
			sleep 0.1
		done
	fi
	"$WORK/uprobe_floor" 200000
	if [ "$1" = probed ]; then
		kill -TERM "$AGENT"
		wait "$AGENT" || true
		AGENT=
	fi
}

workload() { # prints requests/s and requests completed
	wrk -t1 -c32 -d"${SECS}s" "https://127.0.0.1:$PORT/4k.bin" |
		awk '/^Requests\/sec/ { r = $2 } / requests in / { n = $1 } END { print r, n }'
}

arm() { # arm none|tls-on|tls-off
	if [ "$1" != none ]; then
		: >"$WORK/signals.ndjson"
		"$BUILD/enav" run --config "$WORK/cfg-${1#tls-}.yaml" 2>>"$WORK/agent.log" &
		AGENT=$!
		for _ in $(seq 100); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
		# Until the library is probed (the startup scan finds nginx).
		if [ "$1" = tls-on ]; then
			for _ in $(seq 100); do
				curl -fs "http://127.0.0.1:$APORT/metrics" | grep -q '^enav_tls_probed_binary{library="openssl"' && break
				sleep 0.1
			done
		fi
	fi
	local out
	out=$(workload)
	echo "$1 $out" >>"$WORK/runs"
	if [ "$1" != none ]; then
		sleep 1
		curl -s "http://127.0.0.1:$APORT/metrics" >"$WORK/metrics.$1" || echo "  (scrape failed)" >&2
		kill -TERM "$AGENT"
		wait "$AGENT" || true
		AGENT=
		local spans
		spans=$(grep -c '"kind":"span".*"role":"client".*"tls_library":"openssl"' "$WORK/signals.ndjson" || true)
		echo "$1 spans $spans ${out#* }" >>"$WORK/spans"
	fi
	echo "  $1: ${out% *} requests/s" >&2
}

med() { awk -v a="$1" '$1 == a { print $2 }' "$WORK/runs" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "date: $(date -u +%FT%TZ)  kernel: $(uname -r)  cores: $(nproc)"
f0=$(floor none)
f1=$(floor probed)
awk -v a="$f0" -v b="$f1" 'BEGIN { printf "uprobe hit: SSL_free(NULL) %.3f us unprobed, %.3f us probed: %.2f us per hit\n", a, b, b - a }'
workload >/dev/null # warm-up
for ((p = 0; p < PAIRS; p++)); do
	if ((p % 2 == 0)); then arm none; arm tls-on; arm tls-off; else arm tls-off; arm tls-on; arm none; fi
done
none=$(med none)
on=$(med tls-on)
off=$(med tls-off)
echo "https: no agent median $none req/s; agent, TLS capture on $on req/s; agent, TLS capture off $off req/s"
awk -v a="$on" -v n="$none" -v o="$off" 'BEGIN {
	printf "ratio TLS capture on / no agent: %.4f\n", a / n
	printf "ratio TLS capture off / no agent: %.4f\n", o / n
	printf "ratio TLS capture on / off: %.4f\n", a / o }'
grep '^tls-on' "$WORK/spans" | tail -n1 | awk '{ printf "  last capturing arm: %s client spans for %s requests wrk completed\n", $3, $4 }'
full=$(awk '$1 ~ /enav_kernel_events_total\{source="network".*category="transport_full"/ { print $2 }' "$WORK/metrics.tls-on")
echo "  last capturing arm: network transport_full ${full:-?}"
