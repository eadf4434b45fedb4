#!/usr/bin/env bash
# How far the agent's hooks are from the cheapest possible ones.
# wrk -> nginx on loopback (HTTP/1.1 keep-alive, 4 KiB file) in rotating
# arms, PAIRS rounds of each:
#   none      no program
#   empty     an empty program on each hook of bench/bpf/empty_hooks.bpf.c
#             (tp_btf/sys_exit, tp_btf/sock_send_length, tp_btf/sock_recv_length,
#             fentry and fexit on tcp_sendmsg and tcp_recvmsg), each loaded on
#             its own: a hook the kernel refuses is reported, not measured
#   network   the agent, network source with DNS capture, L7 off
#   l7        the agent at defaults (network + application protocols)
#   network-cmp, l7-cmp  the same two with $COMPARE_BUILD/enav, when set
#             (another tree's build, e.g. main's: a change measured against
#             its base in the same run, under the same load)
# Three measures.  Per request, from throughput: each arm's median requests/s
# and its cost above none in microseconds of the workload's two cores.  Per
# hook, from the kernel's own accounting (kernel.bpf_stats_enabled=1 for the
# run, restored after): nanoseconds per run of every program each arm loaded,
# whatever the agent attached, against the empty program on the same hook.
# BPF per request: every program of the arm, run time over the requests wrk
# completed (median of the rounds), with runs per request per hook.
#
# usage (root, after `make`): bench/hook_floor.sh [PAIRS] [SECONDS]   (default 3, 8)
# FLOOR_OUT=FILE also appends every arm as "ARM ROUND REQUESTS_PER_S";
# FLOOR_HOOKS_OUT=FILE appends "ARM ROUND PROGRAM HOOK RUNS RUN_TIME_NS" per
# program and arm (RUNS and RUN_TIME_NS "-" for an empty program the kernel
# refused).
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
PAIRS=${1:-3}
SECS=${2:-8}
BUILD=${BUILD:-build}
PORT=${PORT:-18096}
APORT=${APORT:-19497}
WORK=$(mktemp -d /tmp/enav-floor.XXXXXX)
make --no-print-directory -s all >/dev/null
clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"$BUILD/bpf" -c bench/bpf/empty_hooks.bpf.c \
	-o "$WORK/empty.bpf.o"
clang -O2 bench/hook_floor.c -lbpf -o "$WORK/hook_floor"
bench_nginx_site "$WORK" "sendfile on;" "server { listen 127.0.0.1:$PORT; root $WORK/www; }"
nginx -c "$WORK/nginx.conf" &
NGINX=$!
HOLD=
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
trap 'kill $NGINX ${HOLD:-} 2>/dev/null || true; wait 2>/dev/null || true
	sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"; rm -rf "$WORK"' EXIT
sleep 0.5
base_cfg() {
	printf 'http:\n  listen: 127.0.0.1:%s\n  health_listen: ""\nexporters:\n  ndjson:\n    path: %s/signals.ndjson\nprofiling:\n  enabled: false\n' \
		"$APORT" "$WORK"
}
base_cfg >"$WORK/l7.yaml"
{ base_cfg; printf 'sources:\n  network:\n    l7:\n      enabled: false\n'; } >"$WORK/network.yaml"

run_wrk() { # prints requests/s and requests completed
	wrk -t1 -c32 -d"${SECS}s" "http://127.0.0.1:$PORT/4k.bin" |
		awk '/ requests in / { n = $1 } /^Requests\/sec/ { r = $2 } END { print r, n }'
}
: >"$WORK/hooks"
arm() {
	case $1 in
	empty)
		"$WORK/hook_floor" "$WORK/empty.bpf.o" >"$WORK/hold.out" &
		HOLD=$!
		for _ in $(seq 50); do grep -qs '^ready' "$WORK/hold.out" && break; sleep 0.1; done
		grep -q '^attached' "$WORK/hold.out" || { echo "hook_floor: no empty program attached" >&2; exit 1; }
		;;
	network | l7 | network-cmp | l7-cmp)
		local bin=$BUILD/enav
		[[ $1 != *-cmp ]] || bin=$COMPARE_BUILD/enav
		"$bin" run --config "$WORK/${1%-cmp}.yaml" 2>>"$WORK/agent.log" &
		HOLD=$!
		for _ in $(seq 100); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
		;;
	esac
	[ -z "$HOLD" ] || bpf_progs "$HOLD" >"$WORK/bpf0"
	local rps n
	read -r rps n < <(run_wrk)
	echo "$1 $rps" >>"$WORK/runs"
	echo "$1 $2 $n" >>"$WORK/requests"
	# The proof harness (bench/campaign.sh) reads every arm: ARM ROUND REQUESTS_PER_S.
	[ -z "${FLOOR_OUT:-}" ] || echo "$1 $2 $rps" >>"$FLOOR_OUT"
	if [ -n "$HOLD" ]; then
		bpf_progs "$HOLD" >"$WORK/bpf1"
		bpf_delta "$WORK/bpf0" "$WORK/bpf1" | awk -F'\t' -v a="$1" -v r="$2" '$3 > 0 { print a, r, $1, $2, $3, $4 }' >>"$WORK/hooks"
		[ "$1" != empty ] || awk -v r="$2" '$1 == "refused" { print "empty", r, $3, $2, "-", "-" }' \
			"$WORK/hold.out" | tr -d : >>"$WORK/hooks"
		if ! kill -TERM "$HOLD" 2>/dev/null; then
			echo "hook_floor: the $1 arm's process exited during the run:" >&2
			tail -5 "$WORK/agent.log" "$WORK/hold.out" >&2 2>/dev/null || true
			exit 1
		fi
		wait "$HOLD" || true
		HOLD=
	fi
	echo "  $1: $rps req/s" >&2
}
echo "date: $(date -u +%FT%TZ)  kernel: $(uname -r)  cores: $(nproc)"
run_wrk >/dev/null
arms=(none empty network l7)
[ -z "${COMPARE_BUILD:-}" ] || arms+=(network-cmp l7-cmp)
for ((p = 0; p < PAIRS; p++)); do
	for ((k = 0; k < ${#arms[@]}; k++)); do arm "${arms[(k + p) % ${#arms[@]}]}" "$p"; done
done
[ -z "${FLOOR_HOOKS_OUT:-}" ] || cat "$WORK/hooks" >>"$FLOOR_HOOKS_OUT"
med() { awk -v a="$1" '$1 == a { print $2 }' "$WORK/runs" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
none=$(med none)
for a in "${arms[@]}"; do
	m=$(med $a)
	awk -v a="$a" -v m="$m" -v n="$none" 'BEGIN {
		printf "%-8s median %10.0f req/s  ratio %.3f  cost above none %6.2f us/request (2 cores)\n",
			a, m, m / n, (2e6 / m) - (2e6 / n) }'
done
# Per hook: the agent's ns per run (its programs on the hook summed) against
# the empty program's, all rounds pooled.
echo "per hook (kernel.bpf_stats_enabled), ns per run:"
awk '$5 != "-" && $5 > 0 { k = $1 SUBSEP $4; runs[k, $3] += $5; ns[k, $3] += $6; hooks[$4] = 1; arms[$1] = 1
		if (!((k, $3) in named)) { named[k, $3] = 1; progs[k] = progs[k] " " $3 } }
	$5 == "-" { refused[$4] = 1 }
	END {
		for (h in refused) printf "  %-28s empty program refused by the kernel: not measured\n", h
		for (h in hooks) {
			en = 0
			for (x in runs) if (index(x, "empty" SUBSEP h SUBSEP) == 1) en = ns[x] / runs[x]
			for (a in arms) {
				if (a == "empty") continue
				k = a SUBSEP h; tot = 0; seen = 0
				for (x in runs) if (index(x, k SUBSEP) == 1) { tot += ns[x] / runs[x]; seen = 1 }
				if (!seen) continue
				if (en > 0) printf "  %-8s %-28s %8.1f ns  empty %6.1f ns  ratio %.2f (%s )\n", a, h, tot, en, tot / en, progs[k]
				else printf "  %-8s %-28s %8.1f ns  (no empty program on this hook;%s )\n", a, h, tot, progs[k]
			}
		}
	}' "$WORK/hooks"
# BPF per request: each round's run time of the arm's programs on the
# workload's own hooks (socket, TCP state, retransmit, sys_exit: not the exec
# and credential programs, which other processes of the machine also run)
# over its requests; the median round, and every round.
echo "BPF per request on the socket and TCP hooks (kernel.bpf_stats_enabled, median round):"
awk 'NR == FNR { req[$1, $2] = $3; next }
	$5 != "-" && $4 ~ /sock_(send|recv)_length|tcp_(send|recv)msg|tcp_sendpage|sys_exit|inet_sock_set_state|tcp_retransmit_skb/ { ns[$1, $2] += $6 }
	END {
		for (k in ns) { split(k, p, SUBSEP); if (req[k] > 0) print p[1], p[2], ns[k] / req[k] / 1000 }
	}' "$WORK/requests" "$WORK/hooks" | sort -k1,1 -k3,3g |
	awk '{ v[$1] = v[$1] " " $3; n[$1]++ }
		END { for (a in v) { c = split(substr(v[a], 2), x, " ")
			printf "  %-12s %6.3f us/request (rounds:%s)\n", a, x[int((c + 1) / 2)], v[a] } }' | sort
