#!/usr/bin/env bash
# What the NDJSON exporter writes at the defaults under load (ADR 0015): the
# agent with no configuration but its HTTP port, stdout to a file, while
# wrk -t1 -c32 runs against nginx serving a 4 KiB file over keep-alive.
# Prints requests/s, the bytes and lines per second stdout grew by during the
# run, the lines of each kind, and the agent's CPU (every thread's user and
# sys from /proc/PID/stat) per request; then the NDJSON drop counters.
#
# usage (root, after `make`):
#   bench/ndjson_volume.sh LABEL [ENAV_BINARY] [YAML_LINE...]
#   e.g. bench/ndjson_volume.sh every-span build/enav exporters: '  ndjson:' \
#            '    rate_limit: {spans_per_second: 0}'
# SECS (10), PORT (18093) and APORT (19496) override the run length and ports.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
LABEL=$1
ENAV=${2:-build/enav}
shift $(($# >= 2 ? 2 : 1))
SECS=${SECS:-10}
PORT=${PORT:-18093}
APORT=${APORT:-19496}
for c in wrk nginx jq curl; do
	command -v $c >/dev/null || { echo "bench: $c missing (scripts/deps.sh test)" >&2; exit 1; }
done
WORK=$(mktemp -d /tmp/enav-ndjson-volume.XXXXXX)
bench_nginx_site "$WORK" "sendfile on;" "server { listen 127.0.0.1:$PORT; root $WORK/www; }"
nginx -c "$WORK/nginx.conf" &
NGINX=$!
AGENT=
trap 'kill $NGINX ${AGENT:-} 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
{
	printf 'http:\n  listen: 127.0.0.1:%s\n  health_listen: ""\n' "$APORT"
	for line in "$@"; do echo "$line"; done
} >"$WORK/cfg.yaml"
"$ENAV" run --config "$WORK/cfg.yaml" >"$WORK/stdout" 2>"$WORK/stderr" &
AGENT=$!
for _ in $(seq 300); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
sleep 1

ticks() { awk '{ print $14, $15 }' "/proc/$AGENT/stat"; }
read -r u0 s0 < <(ticks)
b0=$(stat -c %s "$WORK/stdout")
l0=$(wc -l <"$WORK/stdout")
t0=$(date +%s.%N)
out=$(wrk -t1 -c32 -d"${SECS}s" "http://127.0.0.1:$PORT/4k.bin")
t1=$(date +%s.%N)
read -r u1 s1 < <(ticks)
b1=$(stat -c %s "$WORK/stdout")
l1=$(wc -l <"$WORK/stdout")
sleep 1
curl -s "http://127.0.0.1:$APORT/metrics" >"$WORK/metrics" || echo "  (scrape failed)" >&2
kill -TERM "$AGENT"
wait "$AGENT" || true
AGENT=

rps=$(awk '/^Requests\/sec/ { print $2 }' <<<"$out")
n=$(awk '/ requests in / { print $1 }' <<<"$out")
awk -v label="$LABEL" -v rps="$rps" -v n="$n" -v db=$((b1 - b0)) -v dl=$((l1 - l0)) \
	-v t0="$t0" -v t1="$t1" -v du=$((u1 - u0)) -v ds=$((s1 - s0)) -v hz="$(getconf CLK_TCK)" 'BEGIN {
	el = t1 - t0
	printf "%s: %s req/s (%s requests in %.2f s); stdout %.0f bytes/s, %.0f lines/s (%.0f bytes/line); agent CPU %.2f us/request (user %.2f, sys %.2f)\n",
		label, rps, n, el, db / el, dl / el, dl ? db / dl : 0,
		(du + ds) * 1e6 / hz / n, du * 1e6 / hz / n, ds * 1e6 / hz / n
}'
# The lines written during the run, by kind.
tail -n +$((l0 + 1)) "$WORK/stdout" | head -n $((l1 - l0)) | jq -r .kind | sort | uniq -c |
	awk '{ printf "  %s lines of %s\n", $1, $2 }'
grep -E '^enav_sink_(written|dropped)_total|^enav_ndjson_rate_limited_total' "$WORK/metrics" |
	awk '$2 != 0 { print "  " $0 }'
grep -o 'ndjson: writing to .*' "$WORK/stderr" | sed 's/^/  log: /' || true
