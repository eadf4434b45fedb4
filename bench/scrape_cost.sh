#!/usr/bin/env bash
# CPU time per scrape: the agent's /metrics versus Debian's
# prometheus-node-exporter with its default collectors, scraped alternately
# in one run on the same node.  CPU is each process's utime+stime from
# /proc/PID/stat (all threads) across the run, divided by the scrapes.
# Target: the agent at most 1/5 of node_exporter per scrape.
#
# usage (root, after `make`): bench/scrape_cost.sh [SCRAPES]   (default 300)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-300}
BUILD=${BUILD:-build}
APORT=${APORT:-19484}
NPORT=${NPORT:-19101}
WORK=$(mktemp -d /tmp/enav-scrape.XXXXXX)
make --no-print-directory -s all >/dev/null
cat >"$WORK/cfg.yaml" <<CFG
http:
  listen: 127.0.0.1:$APORT
  health_listen: ""
exporters:
  ndjson:
    path: /dev/null
sources:
  exec:
    enabled: false
CFG
"$BUILD/enav" run --config "$WORK/cfg.yaml" 2>"$WORK/agent.log" &
APID=$!
prometheus-node-exporter --web.listen-address="127.0.0.1:$NPORT" 2>"$WORK/ne.log" &
NPID=$!
trap 'kill $APID $NPID 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do
	curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 &&
		curl -fs "http://127.0.0.1:$NPORT/metrics" >/dev/null 2>&1 && break
	sleep 0.1
done
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# Warm both up (first scrapes allocate and open files).
for _ in $(seq 5); do
	curl -fs -o /dev/null "http://127.0.0.1:$APORT/metrics"
	curl -fs -o /dev/null "http://127.0.0.1:$NPORT/metrics"
done
a0=$(cpu_ticks $APID)
n0=$(cpu_ticks $NPID)
for _ in $(seq "$N"); do
	curl -fs -o /dev/null "http://127.0.0.1:$APORT/metrics"
	curl -fs -o /dev/null "http://127.0.0.1:$NPORT/metrics"
done
a1=$(cpu_ticks $APID)
n1=$(cpu_ticks $NPID)
hz=$(getconf CLK_TCK)
asz=$(curl -fs "http://127.0.0.1:$APORT/metrics" | wc -c)
nsz=$(curl -fs "http://127.0.0.1:$NPORT/metrics" | wc -c)
awk -v a=$((a1 - a0)) -v n=$((n1 - n0)) -v N="$N" -v hz="$hz" -v asz="$asz" -v nsz="$nsz" 'BEGIN {
	am = a * 1000 / hz / N; nm = n * 1000 / hz / N
	printf "scrapes: %d each, alternating\n", N
	printf "enav           %8.3f ms CPU per scrape  (%d bytes of exposition)\n", am, asz
	printf "node_exporter  %8.3f ms CPU per scrape  (%d bytes of exposition)\n", nm, nsz
	if (nm > 0) printf "ratio enav/node_exporter: %.3f (target <= 0.200)\n", am / nm
}'
