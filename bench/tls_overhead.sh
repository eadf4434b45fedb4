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
# Then where the time goes: the price of one uprobe hit on this machine
# (bench/uprobe_floor.c: empty programs as entry, return and both probes, on
# an instruction the kernel single-steps and on one it emulates), CPU per
# request of nginx and wrk with no agent and with TLS capture on, and one
# more capturing run with the kernel's BPF statistics on (only there: they
# cost a clock read per program run) giving each program's hits per request
# and nanoseconds per hit.
#
# usage (root, after `make`): bench/tls_overhead.sh [PAIRS] [SECONDS]   (default 3, 10)
# ENAV=BINARY measures another build of the agent (an older commit's) with
# this script.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
PAIRS=${1:-3}
SECS=${2:-10}
BUILD=${BUILD:-build}
ENAV=${ENAV:-$BUILD/enav}
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
STATS=
trap 'kill $NGINX ${AGENT:-} ${STATS:-} 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
sleep 0.5
for arm in on off; do
	cat >"$WORK/cfg-$arm.yaml" <<CFG
http:
  listen: 127.0.0.1:$APORT
  health_listen: ""
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
clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"$BUILD/bpf" -c bench/bpf/empty_uprobe.bpf.c \
	-o "$WORK/empty_uprobe.bpf.o"
cc -O2 -o "$WORK/uprobe_floor" bench/uprobe_floor.c -l:libssl.so.3 -lbpf
floor() { # floor none|probed: microseconds per SSL_free(NULL)
	if [ "$1" = probed ]; then
		"$ENAV" run --config "$WORK/cfg-on.yaml" 2>>"$WORK/agent.log" &
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

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

workload() { # prints requests/s, requests completed, nginx, wrk and agent CPU seconds
	local t0 t1 a0=0 a1=0
	t0=$(cpu_ticks "$NGINX")
	[ -z "$AGENT" ] || a0=$(cpu_ticks "$AGENT")
	# `times` in the subshell: its children's (wrk's) user and system time.
	(
		wrk -t1 -c32 -d"${SECS}s" "https://127.0.0.1:$PORT/4k.bin" >"$WORK/wrk.out"
		times >"$WORK/wrk.times" # (not piped: a pipe runs it in another subshell)
	)
	t1=$(cpu_ticks "$NGINX")
	[ -z "$AGENT" ] || a1=$(cpu_ticks "$AGENT")
	awk -v n=$((t1 - t0)) -v a=$((a1 - a0)) -v hz="$(getconf CLK_TCK)" '
		FILENAME ~ /wrk.out$/ && /^Requests\/sec/ { r = $2 }
		FILENAME ~ /wrk.out$/ && / requests in / { q = $1 }
		FILENAME ~ /wrk.times$/ && FNR == 2 { split($0, t, /[ms]+/); w = t[1] * 60 + t[2] + t[3] * 60 + t[4] }
		END { print r, q, n / hz, w, a / hz }' "$WORK/wrk.out" "$WORK/wrk.times"
}

arm() { # arm none|tls-on|tls-off
	if [ "$1" != none ]; then
		: >"$WORK/signals.ndjson"
		"$ENAV" run --config "$WORK/cfg-${1#tls-}.yaml" 2>>"$WORK/agent.log" &
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
	set -- "$1" $out
	if [ "$1" != none ]; then
		sleep 1
		curl -s "http://127.0.0.1:$APORT/metrics" >"$WORK/metrics.$1" || echo "  (scrape failed)" >&2
		kill -TERM "$AGENT"
		wait "$AGENT" || true
		AGENT=
		local spans
		spans=$(grep -c '"kind":"span".*"role":"client".*"tls_library":"openssl"' "$WORK/signals.ndjson" || true)
		echo "$1 spans $spans $3" >>"$WORK/spans"
	fi
	echo "  $1: $2 requests/s" >&2
}

med() { awk -v a="$1" '$1 == a { print $2 }' "$WORK/runs" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "date: $(date -u +%FT%TZ)  kernel: $(uname -r)  cores: $(nproc)"
echo "uprobe hit, empty programs (microseconds per call above the unprobed call):"
"$WORK/uprobe_floor" 100000 "$WORK/empty_uprobe.bpf.o" | awk '
	$2 == "none" { base[$1] = $3; next }
	{ printf "  %-22s %-13s %7.3f us\n", $1, $2, $3 - base[$1] }'
f0=$(floor none)
f1=$(floor probed)
awk -v a="$f0" -v b="$f1" 'BEGIN { printf "uprobe hit, the agent'"'"'s SSL_free entry program: %.3f us unprobed, %.3f us probed: %.2f us per hit\n", a, b, b - a }'
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
stepped=$(awk '$1 == "enav_tls_uprobes_single_stepped" { print $2 }' "$WORK/metrics.tls-on")
echo "  last capturing arm: uprobes on an instruction the kernel single-steps: ${stepped:-?} of $(awk '$1 == "enav_tls_uprobes" { print $2 }' "$WORK/metrics.tls-on")"

# CPU per request (microseconds): medians over the arm's runs.
cpu() { # cpu ARM FIELD(4 nginx, 5 wrk, 6 agent)
	awk -v a="$1" -v f="$2" '$1 == a && $3 > 0 { print $f / $3 * 1e6 }' "$WORK/runs" | sort -g |
		awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
for a in none tls-off tls-on; do
	printf "CPU per request, %-7s nginx %6.2f us  wrk %6.2f us  agent %6.2f us\n" "$a" "$(cpu $a 4)" \
		"$(cpu $a 5)" "$(cpu $a 6)"
done

# One more capturing run with BPF statistics on: hits and cost per program.
"$WORK/uprobe_floor" stats >"$WORK/stats.out" &
STATS=$!
for _ in $(seq 50); do grep -qs enabled "$WORK/stats.out" && break; sleep 0.1; done
"$ENAV" run --config "$WORK/cfg-on.yaml" 2>>"$WORK/agent.log" &
AGENT=$!
for _ in $(seq 100); do
	curl -fs "http://127.0.0.1:$APORT/metrics" 2>/dev/null | grep -q '^enav_tls_probed_binary{library="openssl"' && break
	sleep 0.1
done
progs() { bpftool prog show --json | jq -r '.[] | select(.name // "" | startswith("enav_")) | "\(.id) \(.name) \(.run_cnt // 0) \(.run_time_ns // 0)"'; }
progs >"$WORK/progs.before"
out=$(workload)
progs >"$WORK/progs.after"
kill -TERM "$AGENT" "$STATS"
wait "$AGENT" "$STATS" || true
AGENT=
STATS=
set -- $out
echo "BPF programs, TLS capture on, statistics on ($1 requests/s):"
awk -v req="$2" 'NR == FNR { c[$1] = $3; t[$1] = $4; next }
	$3 - c[$1] > 0 { n = $3 - c[$1]; ns = $4 - t[$1]
		printf "  %-26s %7.3f hits/request %6.0f ns/hit %7.3f us/request\n", $2, n / req, ns / n, ns / req / 1000
		hits += ($2 ~ /^enav_(go_)?tls_/) ? n : 0 }
	END { printf "  TLS probe hits per request: %.3f\n", hits / req }' "$WORK/progs.before" "$WORK/progs.after"
