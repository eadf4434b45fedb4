#!/usr/bin/env bash
# Where a BPF program's run time goes: perf samples every CPU while wrk
# drives nginx (HTTP/1.1 keep-alive, 4 KiB file) with the agent capturing at
# defaults (L7=off: without application protocols), and for each of the
# agent's programs on a sample's stack prints the share of its samples per
# leaf function (the program's own code is "bpf_prog_*"; helpers and what
# they call are kernel functions: copy_from_user_nofault, bpf_ringbuf_output
# and so on).  bench/hook_run_cost.sh gives the ns per run; this says which
# part of it to work on.  Samples, not a verdict: a benchmark, no test.
# Programs on sched_switch run with interrupts off, where cpu-clock samples
# cannot land: they never show here (span_path.sh's PROGS=1 times them).
#
# usage (root, after `make`): bench/hook_profile.sh [SECONDS] [BUILD]
#   CONNS sets wrk's connections (8; 1 makes every request block both ends)
#   (default 8, build)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
SECS=${1:-8}
BUILD=${2:-build}
PORT=${PORT:-18094}
APORT=${APORT:-19499}
WORK=$(mktemp -d /tmp/enav-hookprof.XXXXXX)
for cmd in wrk perf; do
	command -v "$cmd" >/dev/null || { echo "bench: $cmd missing (scripts/deps.sh test)" >&2; exit 1; }
done
bench_nginx_site "$WORK" "server { listen 127.0.0.1:$PORT; root $WORK/www; }"
nginx -c "$WORK/nginx.conf" &
NGINX=$!
AGENT=
trap 'kill ${AGENT:-} $NGINX 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
printf 'http:\n  listen: 127.0.0.1:%s\n  health_listen: ""\nexporters:\n  ndjson:\n    enabled: false\n' "$APORT" >"$WORK/cfg.yaml"
[ "${L7:-on}" = on ] || printf 'sources:\n  network:\n    l7:\n      enabled: false\n' >>"$WORK/cfg.yaml"
"$BUILD/enav" run --config "$WORK/cfg.yaml" >/dev/null 2>"$WORK/agent.log" &
AGENT=$!
for _ in $(seq 300); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
wrk -t1 -c"${CONNS:-8}" -d"$((SECS + 2))s" "http://127.0.0.1:$PORT/4k.bin" >"$WORK/wrk.out" &
WRK=$!
sleep 1
perf record -q -a -g -F 4999 -o "$WORK/perf.data" -- sleep "$SECS" 2>/dev/null
wait "$WRK" || true
echo "wrk: $(awk '/Requests\/sec/ { print $2 }' "$WORK/wrk.out") requests/s"
# One line per sample: its frames leaf first, ';'-joined.
perf script -i "$WORK/perf.data" -F ip,sym 2>/dev/null | awk '
	NF == 0 { if (s != "") print s; s = ""; next }
	{ sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym); s = (s == "" ? sym : s ";" sym) }
	END { if (s != "") print s }' >"$WORK/stacks"
# Per program (the first bpf_prog_* frame from the leaf whose name has
# "enav"), the leaf function of each of its samples.
awk -F';' '{
	prog = ""
	for (i = 1; i <= NF; i++) if ($i ~ /^bpf_prog_.*enav/) { prog = $i; break }
	if (prog == "") next
	sub(/^bpf_prog_[0-9a-f]+_/, "", prog)
	leaf = $1
	if (leaf ~ /^bpf_prog_/) leaf = "(the program itself)"
	n[prog]++; c[prog "\t" leaf]++
}
END {
	for (k in c) { split(k, a, "\t"); printf "%s\t%d\t%.1f%%\t%s\n", a[1], n[a[1]], 100 * c[k] / n[a[1]], a[2] }
}' "$WORK/stacks" | sort -t$'\t' -k2,2nr -k3,3nr | awk -F'\t' -v OFS='\t' '
	BEGIN { print "program", "samples", "share", "leaf" }
	{ if (++seen[$1] <= 12) print }'
