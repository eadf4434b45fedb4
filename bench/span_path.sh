#!/usr/bin/env bash
# The span path's cost per request, for one or two agent builds side by side
# in one run (issue 32's table): wrk -t1 -c32 against nginx serving a 4 KiB
# file with keep-alive on loopback, both ends captured, in rotating arms:
#   none     no agent: the round's baseline for the throughput ratio
#   network  the network source, L7 off, NDJSON off
#   metrics  L7 on, RED metrics only (NDJSON off, no OTLP)
#   traces   L7 on, NDJSON off, OTLP traces, metrics and logs to a receiver
#            that decodes nothing (bench/otlp_sink.c, the campaign's)
# Profiling is off in every arm, unless a build's spec names a mode:
#   NAME=BUILD_DIR:off      profiling off (the default; PROFILING sets another)
#   NAME=BUILD_DIR:nolinks  profiling at its defaults, profiling.links off
#   NAME=BUILD_DIR:links    profiling at its defaults, links on (ADR 0021)
# so one build against itself with links off and on measures what linking
# costs per request.  Per arm and round it prints requests/s, the
# ratio to the round's none arm, BPF microseconds per request (every program
# the agent loaded, kernel.bpf_stats_enabled=1 for the run, restored after),
# the agent's CPU microseconds per request (user + sys of every thread, from
# /proc/PID/stat over the wrk run) and their sum, then the medians.
# Throughput drifts by a fifth between runs on a small machine; the two CPU
# figures are the steady ones.  PROGS=1 adds each program's runs per
# request, nanoseconds per run and share per request, per arm and round.
#
# usage (root, after `make`):
#   bench/span_path.sh [ROUNDS] [SECONDS] NAME=BUILD_DIR [NAME=BUILD_DIR]
#   e.g. bench/span_path.sh 3 6 new=build base=/tmp/base/build
#        bench/span_path.sh 3 6 nol=build:nolinks lnk=build:links
# PORT (27300) and the two after it are used; CONNS (32) sets wrk's connections
# (1: a latency-bound client, each request a round trip that blocks both ends).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
ROUNDS=${1:-3}
SECS=${2:-6}
shift 2 || true
[ $# -ge 1 ] || set -- "new=${BUILD:-build}"
PORT=${PORT:-27300}
CONNS=${CONNS:-32}
APORT=$((PORT + 1)) RPORT=$((PORT + 2))
WORK=$(mktemp -d)
NGINX= RECV= AGENT=
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	kill ${AGENT:-} ${RECV:-} 2>/dev/null || true
	[ -z "$NGINX" ] || kill "$NGINX" 2>/dev/null || true
	wait 2>/dev/null || true
	sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"
	rm -rf "$WORK"
}
trap cleanup EXIT
sysctl -qw kernel.bpf_stats_enabled=1

bench_nginx_site "$WORK" "sendfile on;" "server { listen 127.0.0.1:$PORT; root $WORK/www; }"
nginx -c "$WORK/nginx.conf" &
NGINX=$!
cc -O2 -o "$WORK/otlp_sink" "$HERE/otlp_sink.c"
"$WORK/otlp_sink" "$RPORT" >"$WORK/recv.out" &
RECV=$!
for _ in $(seq 50); do grep -qs ready "$WORK/recv.out" && break; sleep 0.1; done

base_cfg() { # base_cfg MODE
	printf 'http:\n  listen: 127.0.0.1:%s\n  health_listen: ""\n' "$APORT"
	case $1 in
	off) printf 'profiling:\n  enabled: false\n' ;;
	nolinks) printf 'profiling:\n  links:\n    enabled: false\n' ;;
	links) printf 'profiling:\n  links:\n    enabled: true\n' ;;
	*) echo "span_path: profiling mode '$1': off, nolinks or links" >&2 && exit 2 ;;
	esac
}
for mode in off nolinks links; do
	{ base_cfg $mode; printf 'exporters:\n  ndjson:\n    enabled: false\nsources:\n  network:\n    l7:\n      enabled: false\n'; } >"$WORK/network.$mode.yaml"
	{ base_cfg $mode; printf 'exporters:\n  ndjson:\n    enabled: false\n'; } >"$WORK/metrics.$mode.yaml"
	{ base_cfg $mode; printf 'exporters:\n  ndjson:\n    enabled: false\n  otlp:\n    endpoint: http://127.0.0.1:%s\n' "$RPORT"; } >"$WORK/traces.$mode.yaml"
done

run_wrk() { # -> "REQUESTS REQ_PER_S"
	wrk -t1 -c"$CONNS" -d"${SECS}s" "http://127.0.0.1:$PORT/4k.bin" |
		awk '/ requests in / { n = $1 } /^Requests\/sec/ { r = $2 } END { print n, r }'
}
agent_ticks() { cat /proc/"$AGENT"/task/*/stat 2>/dev/null | awk '{ s += $14 + $15 } END { print s + 0 }'; }
TCK=$(getconf CLK_TCK)

run_wrk >/dev/null # warm nginx and the page cache
: >"$WORK/rows"
for ((r = 1; r <= ROUNDS; r++)); do
	read -r n rps < <(run_wrk)
	none_rps=$rps
	printf '%-6s %-8s round %d  %9.0f req/s\n' - none "$r" "$rps"
	for spec in "$@"; do
		name=${spec%%=*} build=${spec#*=} mode=${PROFILING:-off}
		case $build in *:*) mode=${build##*:} build=${build%:*} ;; esac
		[ -f "$WORK/network.$mode.yaml" ] || { echo "span_path: profiling mode '$mode': off, nolinks or links" >&2; exit 2; }
		for arm in network metrics traces; do
			"$build/enav" run --config "$WORK/$arm.$mode.yaml" >/dev/null 2>>"$WORK/agent.$name.log" &
			AGENT=$!
			for _ in $(seq 200); do
				curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break
				sleep 0.1
			done
			curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null || {
				echo "span_path: $name's agent ($arm) not ready; its log:" >&2
				tail -n 5 "$WORK/agent.$name.log" >&2
				exit 1
			}
			curl -fs "http://127.0.0.1:$PORT/4k.bin" >/dev/null
			sleep 1
			bpf_progs "$AGENT" >"$WORK/b0"
			t0=$(agent_ticks)
			read -r n rps < <(run_wrk)
			t1=$(agent_ticks)
			bpf_progs "$AGENT" >"$WORK/b1"
			kill -TERM "$AGENT"
			wait "$AGENT" || true
			AGENT=
			bpf_ns=$(bpf_delta "$WORK/b0" "$WORK/b1" | awk -F'\t' '{ s += $4 } END { print s + 0 }')
			# PROGS=1: each program's share (runs per request, ns per run).
			[ -z "${PROGS:-}" ] || bpf_delta "$WORK/b0" "$WORK/b1" | awk -F'\t' -v n="$n" '$3 > 0 {
				printf "         %-28s %-22s %6.2f runs/req %7.0f ns/run %6.3f us/req\n", $1, $2, $3 / n, $4 / $3, $4 / n / 1000 }'
			awk -v name="$name" -v arm="$arm" -v r="$r" -v n="$n" -v rps="$rps" -v none="$none_rps" \
				-v bpf="$bpf_ns" -v ticks=$((t1 - t0)) -v tck="$TCK" 'BEGIN {
				b = bpf / n / 1000; a = ticks * 1e6 / tck / n
				printf "%-6s %-8s round %d  %9.0f req/s  ratio %.3f  BPF %.2f + agent %.2f = %.2f us/req\n",
					name, arm, r, rps, rps / none, b, a, b + a
				printf "%s %s %.4f %.3f %.3f\n", name, arm, rps / none, b, a >> "'"$WORK/rows"'"
			}'
		done
	done
done
echo "medians over $ROUNDS rounds of ${SECS} s:"
sort -k1,1 -k2,2 "$WORK/rows" | awk '
function med(a, k,   i, j, t) {
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function flush() {
	if (k) printf "%-6s %-8s ratio %.3f  BPF %.2f + agent %.2f = %.2f us/req\n", key1, key2, med(R, k), med(B, k), med(A, k), med(B, k) + med(A, k)
	k = 0; delete R; delete B; delete A
}
$1 " " $2 != key1 " " key2 { flush(); key1 = $1; key2 = $2 }
{ k++; R[k] = $3; B[k] = $4; A[k] = $5 }
END { flush() }'
