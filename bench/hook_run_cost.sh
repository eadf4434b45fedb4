#!/usr/bin/env bash
# BPF run time per event of every program the agent runs under wrk -> nginx
# (HTTP/1.1 keep-alive, 4 KiB file; L7 capture at defaults, or off with
# L7=off) for SECONDS, ROUNDS times, with each BUILD given in turn in
# alternating order (ABBA), so two builds of the agent are compared in one
# run on the same workload.
# Prints, per build and program, the runs and the mean ns per run
# (kernel.bpf_stats_enabled) summed over the rounds.
#
# usage (root, after `make`): bench/hook_run_cost.sh [ROUNDS] [SECONDS] [BUILD...]
#   (default 2, 5, build)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
ROUNDS=${1:-2}
SECS=${2:-5}
shift $(($# > 2 ? 2 : $#))
BUILDS=("$@")
[ ${#BUILDS[@]} -gt 0 ] || BUILDS=(build)
PORT=${PORT:-18093}
APORT=${APORT:-19498}
WORK=$(mktemp -d /tmp/enav-hookcost.XXXXXX)
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
command -v wrk >/dev/null || { echo "bench: wrk missing (scripts/deps.sh test)" >&2; exit 1; }
bench_nginx_site "$WORK" "server { listen 127.0.0.1:$PORT; root $WORK/www; }"
nginx -c "$WORK/nginx.conf" &
NGINX=$!
AGENT=
trap 'kill ${AGENT:-} $NGINX 2>/dev/null; wait 2>/dev/null; sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"; rm -rf "$WORK"' EXIT
sysctl -qw kernel.bpf_stats_enabled=1
printf 'http:\n  listen: 127.0.0.1:%s\n  health_listen: ""\nexporters:\n  ndjson:\n    enabled: false\n' "$APORT" >"$WORK/cfg.yaml"
# L7=off: the network source without application protocols (nothing copied).
[ "${L7:-on}" = on ] || printf 'sources:\n  network:\n    l7:\n      enabled: false\n' >>"$WORK/cfg.yaml"

arm() { # arm INDEX: one round of build BUILDS[INDEX]
	local b=${BUILDS[$1]}
	"$b/enav" run --config "$WORK/cfg.yaml" >/dev/null 2>>"$WORK/agent.log" &
	AGENT=$!
	for _ in $(seq 300); do curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
	bpf_progs "$AGENT" >"$WORK/before"
	wrk -t1 -c8 -d"${SECS}s" "http://127.0.0.1:$PORT/4k.bin" >"$WORK/wrk.out"
	bpf_progs "$AGENT" >"$WORK/after"
	kill -TERM "$AGENT"
	wait "$AGENT" || true
	AGENT=
	bpf_delta "$WORK/before" "$WORK/after" | awk -v i="$1" -F'\t' '{ print i "\t" $0 }' >>"$WORK/deltas"
	echo "  ${BUILDS[$1]}: $(awk '/Requests\/sec/ { print $2 }' "$WORK/wrk.out") requests/s" >&2
}
for ((r = 0; r < ROUNDS; r++)); do
	if ((r % 2 == 0)); then
		for ((i = 0; i < ${#BUILDS[@]}; i++)); do arm "$i"; done
	else
		for ((i = ${#BUILDS[@]} - 1; i >= 0; i--)); do arm "$i"; done
	fi
done
printf 'build\tprogram\thook\truns\tns_per_run\n'
awk -F'\t' '$4 > 0 { k = $1 "\t" $2 "\t" $3; runs[k] += $4; ns[k] += $5 }
	END { for (k in runs) printf "%s\t%d\t%.0f\n", k, runs[k], ns[k] / runs[k] }' "$WORK/deltas" |
	sort -t$'\t' -k2,2 -k1,1n | awk -F'\t' -v OFS='\t' -v list="${BUILDS[*]}" \
		'BEGIN { n = split(list, b, " ") } { $1 = b[$1 + 1]; print }'
