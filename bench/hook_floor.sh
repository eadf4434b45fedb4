#!/usr/bin/env bash
# How far the agent's syscall hook is from the cheapest possible one.
# wrk -> nginx on loopback (HTTP/1.1 keep-alive, 4 KiB file) in rotating
# arms, PAIRS rounds of each:
#   none      no program
#   empty     an empty program on tp_btf/sys_exit (bench/bpf/): the floor
#   network   the agent, network source with DNS capture, L7 off
#   l7        the agent at defaults (network + application protocols)
# Reports each arm's median requests/s, its ratio to none, and the cost per
# request above none in microseconds of the workload's two cores.
#
# usage (root, after `make`): bench/hook_floor.sh [PAIRS] [SECONDS]   (default 3, 8)
# FLOOR_OUT=FILE also appends every arm as "ARM ROUND REQUESTS_PER_S".
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
clang -g -O2 -target bpf -D__TARGET_ARCH_x86 -I"$BUILD/bpf" -c bench/bpf/empty_sys_exit.bpf.c \
	-o "$WORK/empty.bpf.o"
clang -O2 bench/hook_floor.c -lbpf -o "$WORK/hook_floor"
bench_nginx_site "$WORK" "sendfile on;" "server { listen 127.0.0.1:$PORT; root $WORK/www; }"
nginx -c "$WORK/nginx.conf" &
NGINX=$!
HOLD=
trap 'kill $NGINX ${HOLD:-} 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"' EXIT
sleep 0.5
base_cfg() {
	printf 'http:\n  listen: 127.0.0.1:%s\nexporters:\n  ndjson:\n    path: %s/signals.ndjson\nprofiling:\n  enabled: false\n' \
		"$APORT" "$WORK"
}
base_cfg >"$WORK/l7.yaml"
{ base_cfg; printf 'sources:\n  network:\n    l7:\n      enabled: false\n'; } >"$WORK/network.yaml"

run_wrk() {
	wrk -t1 -c32 -d"${SECS}s" "http://127.0.0.1:$PORT/4k.bin" | awk '/^Requests\/sec/ { print $2 }'
}
arm() {
	case $1 in
	empty)
		"$WORK/hook_floor" "$WORK/empty.bpf.o" >"$WORK/hold.out" &
		HOLD=$!
		for _ in $(seq 50); do grep -qs attached "$WORK/hold.out" && break; sleep 0.1; done
		;;
	network | l7)
		"$BUILD/enav" run --config "$WORK/$1.yaml" 2>>"$WORK/agent.log" &
		HOLD=$!
		for _ in $(seq 100); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
		;;
	esac
	local rps
	rps=$(run_wrk)
	echo "$1 $rps" >>"$WORK/runs"
	# The proof harness (bench/campaign.sh) reads every arm: ARM ROUND REQUESTS_PER_S.
	[ -z "${FLOOR_OUT:-}" ] || echo "$1 $2 $rps" >>"$FLOOR_OUT"
	if [ -n "$HOLD" ]; then
		kill -TERM "$HOLD"
		wait "$HOLD" || true
		HOLD=
	fi
	echo "  $1: $rps req/s" >&2
}
echo "date: $(date -u +%FT%TZ)  kernel: $(uname -r)  cores: $(nproc)"
run_wrk >/dev/null
arms=(none empty network l7)
for ((p = 0; p < PAIRS; p++)); do
	for ((k = 0; k < 4; k++)); do arm "${arms[(k + p) % 4]}" "$p"; done
done
med() { awk -v a="$1" '$1 == a { print $2 }' "$WORK/runs" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
none=$(med none)
for a in none empty network l7; do
	m=$(med $a)
	awk -v a="$a" -v m="$m" -v n="$none" 'BEGIN {
		printf "%-8s median %10.0f req/s  ratio %.3f  cost above none %6.2f us/request (2 cores)\n",
			a, m, m / n, (2e6 / m) - (2e6 / n) }'
done
