#!/usr/bin/env bash
# The proof harness: overhead campaigns against a no-agent baseline, the
# handler cost against an empty program, and a bounded-memory soak, judged
# by gates declared before the run (bench/gates.conf) and written up as a
# dated report in docs/proof/.
#
#   bench/campaign.sh --quick    `make bench`: 7 rounds of 2 s, 10M-event soak (< 15 min)
#   bench/campaign.sh --full     7 rounds of 10 s, every configuration, 10M-event soak
#   bench/campaign.sh --test     2 rounds of 1 s, tiny soak, report in a temporary
#                                directory (the test suite runs this; figures not gated)
#   BENCH_ROUNDS=N BENCH_SECS=S  override a mode's rounds and seconds per arm
#   --strict                     exit 3 when a gate fails, 4 when none fails but one
#                                gives no verdict (a noisy baseline) or has no data;
#                                without it the campaign exits 0 once the report is
#                                written, whatever the verdicts (`make bench` is strict)
#
# Workloads (real servers on loopback): wrk -> nginx (HTTP/1.1 keep-alive, 4 KiB
# file), redis-benchmark -> redis-server (SET, no pipelining), pgbench -> postgres
# (select-only, simple protocol), and a CPU busy loop.  Each round runs every
# agent configuration once, each next to a no-agent baseline of its own (the
# pair's order alternates, the configurations' order rotates every round and
# reverses every other), so a ratio compares arms seconds apart.
# Configurations: exec (exec source only), network (L7 off), l7 (L7 with RED
# metrics and OTLP traces to a local receiver, bench/otlp_sink.c, whose own CPU
# is measured apart), profiling, all (the agent's defaults, stdout to a file).
# An agent arm records what it cost over the workload's window: its CPU (user
# and sys), the run time of each BPF program it loaded (kernel.bpf_stats_enabled
# is 1 for the campaign, restored after), the signals and spans it made, the
# bytes it exported, its peak RSS and every loss and drop counter; and the
# signals of the workload's protocol (client spans counted by the RED
# histograms) against the operations the workload itself reports.  After the
# workload's window each agent arm must also show what the campaign knows
# happened: exec signals for EXECS execs it runs, tcp.close counts and bytes
# for the client's connections and what it read (network source on), CPU
# samples of the busy loop (profiling on).  The analyzer
# (build/enav-bench-analyze, bench/analyze/) rejects an arm that falls short
# or whose series is missing from /metrics.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
MODE=quick
OUT=
STRICT=
while [ $# -gt 0 ]; do
	case $1 in
	--quick | --full | --test) MODE=${1#--} ;;
	--strict) STRICT=1 ;;
	--out) OUT=$2; shift ;;
	*) echo "usage: bench/campaign.sh [--quick|--full|--test] [--strict] [--out DIR]" >&2; exit 2 ;;
	esac
	shift
done
case $MODE in
quick) ROUNDS=7 SECS=2 SOAK_EVENTS=10000000 SOAK_MIN_S=30 FLOOR_ROUNDS=3 FLOOR_SECS=3
	CONFIGS_http="exec network l7 all" CONFIGS_redis="l7" CONFIGS_pg="l7" CONFIGS_cpu="profiling" ;;
full) ROUNDS=7 SECS=10 SOAK_EVENTS=10000000 SOAK_MIN_S=120 FLOOR_ROUNDS=5 FLOOR_SECS=8
	CONFIGS_http="exec network l7 profiling all" CONFIGS_redis="network l7 all"
	CONFIGS_pg="network l7 all" CONFIGS_cpu="exec profiling all" ;;
test) ROUNDS=2 SECS=1 SOAK_EVENTS=20000 SOAK_MIN_S=6 FLOOR_ROUNDS=1 FLOOR_SECS=1
	CONFIGS_http="exec l7 all" CONFIGS_redis="l7" CONFIGS_pg="l7" CONFIGS_cpu="profiling" ;;
esac
# A shorter check of the harness itself: BENCH_ROUNDS, BENCH_SECS (the report
# names what ran).
ROUNDS=${BENCH_ROUNDS:-$ROUNDS} SECS=${BENCH_SECS:-$SECS}
BUILD=${BUILD:-build}
ENAV=$BUILD/enav
ANALYZE=$BUILD/enav-bench-analyze
PORT=${PORT:-18097}
RPORT=${RPORT:-16397}
PGPORT=${PGPORT:-15497}
APORT=${APORT:-19498}
WORK=$(mktemp -d /tmp/enav-campaign.XXXXXX)
chmod 711 "$WORK"
DATE=$(date -u +%F)
STAMP=$(date -u +%FT%TZ)
if [ -z "$OUT" ]; then
	[ "$MODE" = test ] && OUT=$(mktemp -d /tmp/enav-proof-test.XXXXXX) || OUT=docs/proof
fi
mkdir -p "$OUT"
REPORT=$OUT/$DATE-$MODE.md
# A second campaign the same day gets its own report, never overwrites one.
for n in 2 3 4 5 6 7 8 9; do
	[ -e "$REPORT" ] || break
	REPORT=$OUT/$DATE-$MODE-$n.md
done
# Declared before the run: the full campaign gates the 10M-event soak.
GATES=bench/gates.conf
[ "$MODE" = full ] && GATES=bench/gates-full.conf
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)
for c in wrk nginx redis-server redis-benchmark curl bpftool jq; do
	command -v $c >/dev/null || { echo "campaign: $c missing (scripts/deps.sh test)" >&2; exit 1; }
done
[ -x "$PG_BIN/pgbench" ] || command -v pgbench >/dev/null ||
	{ echo "campaign: pgbench missing (scripts/deps.sh test)" >&2; exit 1; }
make --no-print-directory -s all >/dev/null

# ---- servers ---------------------------------------------------------------
NGINX= REDIS= AGENT= AGENT_LOG= PG_UP= STORM= SINK=
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	touch "$WORK/stop"
	kill ${NGINX:-} ${REDIS:-} ${AGENT:-} ${STORM:-} ${SINK:-} 2>/dev/null || true
	wait 2>/dev/null || true
	sysctl -qw kernel.bpf_stats_enabled="$STATS_WAS"
	[ -n "$PG_UP" ] && runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg" -m fast -w stop >/dev/null 2>&1
	[ -d /sys/fs/cgroup/unified/enav-soak ] && find /sys/fs/cgroup/unified/enav-soak -depth -type d -exec rmdir {} \; 2>/dev/null
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
# A command that fails stops the campaign (set -e): say which, and how the
# agent of the arm fared (a harness error and an agent crash look alike).
set -E
trap 'echo "campaign: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)$(agent_state)" >&2' ERR
agent_state() {
	[ -n "${AGENT:-}" ] || return 0
	if kill -0 "$AGENT" 2>/dev/null; then printf '; agent %s alive' "$AGENT"; else printf '; agent %s gone' "$AGENT"; fi
	printf '; its log: %s' "$(tail -n 3 "$AGENT_LOG" 2>/dev/null | tr '\n' ' ')"
}
# Every BPF program's run count and run time, for the cost breakdown.  Each
# run then also pays for two clock reads (tens of ns), agent and floor alike.
sysctl -qw kernel.bpf_stats_enabled=1
# The soak's server (second line): a new connection every 100 requests, any path.
bench_nginx_site "$WORK" "sendfile on;" "server { listen 127.0.0.1:$PORT; root $WORK/www; }" \
	"server { listen 127.0.0.1:$((PORT + 1)); keepalive_requests 100; location / { return 200 \"soak\\n\"; } }"
nginx -c "$WORK/nginx.conf" &
NGINX=$!
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" \
	--logfile "$WORK/redis.log" &
REDIS=$!
mkdir -p "$WORK/pg" && chown postgres: "$WORK/pg" && chmod 700 "$WORK/pg"
runuser -u postgres -- "$PG_BIN/initdb" -D "$WORK/pg" -U postgres --auth=trust --no-sync >"$WORK/initdb.log" 2>&1
PG_UP=1
runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg/server.log" -w \
	-o "-p $PGPORT -k $WORK/pg -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null
PGB=$([ -x "$PG_BIN/pgbench" ] && echo "$PG_BIN/pgbench" || command -v pgbench)
"$PGB" -h 127.0.0.1 -p "$PGPORT" -U postgres -i -s 1 -q postgres >"$WORK/pgbench-init.log" 2>&1
cc -O2 -o "$WORK/busy" -x c - <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
/* Iterations of a fixed arithmetic loop in SECONDS: the CPU workload. */
int main(int argc, char **argv) {
	double secs = argc > 1 ? atof(argv[1]) : 1;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	unsigned long n = 0, x = 1;
	for (;;) {
		for (int i = 0; i < 100000; i++) x = x * 6364136223846793005ul + 1442695040888963407ul;
		n++;
		clock_gettime(CLOCK_MONOTONIC, &b);
		double t = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
		if (t >= secs) { printf("%.3f %lu %lu\n", n / t, n, x & 1); return 0; }
	}
}
C
# The OTLP receiver of the l7 arms: accepts and discards.
cc -O2 -o "$WORK/otlp_sink" bench/otlp_sink.c
"$WORK/otlp_sink" 0 >"$WORK/sink.out" &
SINK=$!
for _ in $(seq 50); do grep -qs '^ready' "$WORK/sink.out" && break; sleep 0.1; done
SPORT=$(awk '/^ready/ { print $2 }' "$WORK/sink.out")
[ -n "$SPORT" ] || { echo "campaign: the OTLP receiver did not start" >&2; exit 1; }
sleep 0.5

# ---- agent configurations ----------------------------------------------------
# Health stays on http.listen: the default health listener's fixed port would
# collide with any other agent on the node.
listen() { printf 'http:\n  listen: 127.0.0.1:%s\n  health_listen: ""\n' "$APORT"; }
base() { listen; printf 'exporters:\n  ndjson:\n    enabled: false\n'; }
{ base; printf 'profiling:\n  enabled: false\nhost:\n  enabled: false\nsources:\n  network:\n    enabled: false\n'; } >"$WORK/exec.yaml"
{ base; printf 'profiling:\n  enabled: false\nsources:\n  network:\n    l7:\n      enabled: false\n'; } >"$WORK/network.yaml"
# L7 with RED metrics (the /metrics histograms) and every span over OTLP.
{ base; printf '  otlp:\n    endpoint: http://127.0.0.1:%s\n' "$SPORT"
	printf '    %s:\n      enabled: false\n' metrics logs profiles
	printf 'profiling:\n  enabled: false\n'; } >"$WORK/l7.yaml"
{ base; printf 'host:\n  enabled: false\nsources:\n  network:\n    enabled: false\n'; } >"$WORK/profiling.yaml"
listen >"$WORK/all.yaml" # the defaults: whatever the agent writes to stdout by default
# The soak: every cap small, so the rotation goes far past each.
{ base; cat <<YAML
profiling:
  enabled: false
attribution:
  process_table_entries: 64
  cgroup_cache_entries: 64
discovery:
  max_cgroups: 64
sources:
  network:
    max_connections: 256
    max_edges: 16
    l7:
      max_connections: 16
      max_series: 32
YAML
} >"$WORK/soak.yaml"
for c in exec network l7 profiling all soak; do
	"$ENAV" check-config "$WORK/$c.yaml" >/dev/null || { echo "campaign: $c.yaml rejected" >&2; exit 1; }
done

# An agent that exits before it is ready is started once more, and the
# report counts each such start with its reason: a finding, not a harness
# error.  A second failure in a row stops the campaign.
START_FAILURES=$WORK/start-failures
: >"$START_FAILURES"
start_agent() { # stdout to a file: its size is the NDJSON the arm exported
	local i try
	AGENT_LOG=$WORK/agent-$1.log
	for try in 1 2; do
		"$ENAV" run --config "$WORK/$1.yaml" >"$WORK/stdout" 2>>"$WORK/agent-$1.log" &
		AGENT=$!
		for ((i = 0; i < 150; i++)); do
			curl -fs "http://127.0.0.1:$APORT/readyz" >/dev/null 2>&1 && return 0
			kill -0 "$AGENT" 2>/dev/null || break
			sleep 0.1
		done
		kill "$AGENT" 2>/dev/null || true
		wait "$AGENT" 2>/dev/null || true
		AGENT=
		echo "$1: $(tail -1 "$WORK/agent-$1.log")" >>"$START_FAILURES"
		echo "campaign: agent ($1) not ready (try $try): $(tail -2 "$WORK/agent-$1.log")" >&2
	done
	exit 1
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
user_sys_ticks() { awk '{ print $14, $15 }' "/proc/$1/stat"; }
sink_bytes() { curl -fsS -m 10 --retry 2 "http://127.0.0.1:$SPORT/stats" | awk '{ print $4 }'; }
stop_agent() { kill -TERM "$AGENT"; wait "$AGENT" || true; AGENT=; }
# Sum of /metrics samples whose name and labels match an awk regex (in FILE,
# else the arm's scrape); "missing" when none does: a series the agent should
# export and did not is an error the analyzer reports, never a zero.
msum() {
	awk -v re="$1" '$1 ~ re { s += $2; n++ } END { if (n) printf "%.0f", s; else printf "missing" }' \
		"${2:-$WORK/metrics}"
}

# workload W: prints "THROUGHPUT OPS P50_US P99_US"
workload() {
	case $1 in
	http)
		wrk -t1 -c32 -d"${SECS}s" --latency "http://127.0.0.1:$PORT/4k.bin" >"$WORK/wrk.out"
		awk '/^Requests\/sec/ { r = $2 } / requests in / { n = $1 }
		     function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1e6; return v }
		     $1 == "50.000%" || $1 == "50%" { p50 = us($2) } $1 == "99.000%" || $1 == "99%" { p99 = us($2) }
		     END { printf "%s %s %s %s\n", r, n, (p50 == "" ? "-" : p50), (p99 == "" ? "-" : p99) }' "$WORK/wrk.out"
		;;
	redis)
		local n=$((SECS * ${REDIS_OPS_PER_S:-40000}))
		# CSV: "test","rps","avg_latency_ms","min","p50","p95","p99","max"
		redis-benchmark -p "$RPORT" -c 8 -n "$n" -t set -q --csv |
			awk -F'"' -v n="$n" '/SET/ { printf "%s %s %.0f %.0f\n", $4, n, $10 * 1000, $14 * 1000 }'
		;;
	pg)
		"$PGB" -h 127.0.0.1 -p "$PGPORT" -U postgres -S -M simple -c 4 -j 1 -T "$SECS" postgres 2>>"$WORK/pgbench.log" |
			awk '/number of transactions actually processed/ { split($0, a, ": "); split(a[2], b, "/"); n = b[1] }
			     /latency average/ { lat = $4 * 1000 } /^tps = / { t = $3 }
			     END { printf "%s %s - -\n", t, n }'
		;;
	cpu)
		"$WORK/busy" "$SECS" | awk '{ printf "%s %s - -\n", $1, $2 }'
		;;
	esac
}

# A workload whose client reported no throughput (pgbench once did, on a
# loaded machine) runs once more; the report counts each such run with the
# client's last error.  A second failure in a row stops the campaign.
WORKLOAD_FAILURES=$WORK/workload-failures
: >"$WORKLOAD_FAILURES"
measured_workload() { # measured_workload W: workload's line, checked
	local out try
	for try in 1 2; do
		out=$(workload "$1")
		if [[ $out =~ ^[0-9.]+\ [0-9.]+\ [^\ ]+\ [^\ ]+$ ]]; then
			echo "$out"
			return 0
		fi
		echo "$1: '$out' $(tail -1 "$WORK/pgbench.log" 2>/dev/null)" >>"$WORKLOAD_FAILURES"
		echo "campaign: $1 reported no throughput (try $try): '$out'" >&2
	done
	exit 1
}

# Client spans the agent made of the workload's counted operation (its RED
# histogram counts): the SETs of redis-benchmark, the SELECTs of pgbench -S
# (not its setup queries), every request of wrk.
signals() { # signals WORKLOAD
	case $1 in
	http) msum '^http_client_request_duration_seconds_count[{].*workload="process:wrk"' ;;
	redis) msum '^db_client_operation_duration_seconds_count[{]db_system_name="redis",db_operation_name="SET",.*workload="process:redis-benchmark"' ;;
	pg) msum '^db_client_operation_duration_seconds_count[{]db_system_name="postgresql",db_operation_name="SELECT",db_collection_name="pgbench_accounts",.*workload="process:pgbench"' ;;
	esac
}

# How many spans beyond the counted operations the workload explains: a
# duration-bound client stops counting at its deadline while each of its
# connections may still have a request answered (wrk -c32, pgbench -c 4);
# redis-benchmark -n counts every SET it sends.  More is duplication.
surplus() { # surplus WORKLOAD
	case $1 in
	http) echo 32 ;;
	redis) echo 0 ;;
	pg) echo 4 ;;
	esac
}

# What each arm must capture besides the workload's own operations.
EXECS=${BENCH_EXECS:-100}
# exec_probe: runs EXECS execs once the workload's window is over and prints
# the exec signals the agent counted meanwhile (other processes' execs add,
# the check is "at least"), waiting up to 3 s for them to drain.
exec_probe() {
	local before now i
	curl -fsS -m 20 --retry 2 "http://127.0.0.1:$APORT/metrics" >"$WORK/metrics-exec"
	before=$(msum '^enav_signals_total[{]kind="process.exec"' "$WORK/metrics-exec")
	[ "$before" != missing ] || { echo missing; return; }
	for ((i = 0; i < EXECS; i++)); do /bin/true; done
	for ((i = 0; i < 30; i++)); do
		curl -fsS -m 20 --retry 2 "http://127.0.0.1:$APORT/metrics" >"$WORK/metrics-exec"
		now=$(msum '^enav_signals_total[{]kind="process.exec"' "$WORK/metrics-exec")
		[ "$now" != missing ] || { echo missing; return; }
		[ $((now - before)) -ge "$EXECS" ] && break
		sleep 0.1
	done
	echo $((now - before))
}
# Bytes wrk read ("N requests in Ts, X.YYMB read", binary units, two decimals).
wrk_bytes_read() {
	awk '/ requests in / { v = $(NF - 1); u = v; sub(/^[0-9.]+/, "", u); v += 0
		m = u == "KB" ? 1024 : u == "MB" ? 1048576 : u == "GB" ? 1073741824 : u == "TB" ? 1099511627776 : 1
		printf "%.0f", v * m }' "$WORK/wrk.out"
}
# captures WORKLOAD CONFIG OPS: "CLOSES CLOSES_EXPECTED BYTES BYTES_EXPECTED
# SAMPLES SAMPLES_EXPECTED" from the arm's scrape ("-": not applicable or not
# known).  Connections and bytes received of the client to the workload's
# server port, from the client's side (enav_network_edge_*).  Each client
# opens one connection before its -c ones (wrk to check the address,
# redis-benchmark to read the server's configuration, pgbench to check the
# tables); wrk reports the bytes it read, and redis-benchmark reads "+OK\r\n"
# per SET (its first connection's few bytes are within the tolerance);
# pgbench's replies vary, so its bytes are recorded, not checked.  Samples of
# the busy loop: one thread on a CPU for SECS at the default 99 Hz.
captures() {
	local w=$1 c=$2 ops=$3 port closes=- closes_exp=- bytes=- bytes_exp=- samples=- samples_exp=-
	case $w in http) port=$PORT ;; redis) port=$RPORT ;; pg) port=$PGPORT ;; *) port= ;; esac
	case $c in network | l7 | all)
		if [ -n "$port" ]; then
			closes=$(msum "^enav_network_edge_connections_total[{].*server_port=\"$port\"")
			bytes=$(msum "^enav_network_edge_io_bytes_total[{].*server_port=\"$port\",network_io_direction=\"receive\"")
		fi
		case $w in
		http) closes_exp=33 bytes_exp=$(wrk_bytes_read) ;;
		redis) closes_exp=9 bytes_exp=$(awk -v n="$ops" 'BEGIN { printf "%.0f", 5 * n }') ;;
		pg) closes_exp=5 ;;
		esac
		;;
	esac
	case $c in profiling | all)
		samples=$(msum '^enav_profile_kernel_events_total[{]event="cpu_samples"')
		[ "$w" = cpu ] && samples_exp=$((99 * SECS))
		;;
	esac
	echo "$closes $closes_exp $bytes $bytes_exp $samples $samples_exp"
}

ARMS=$WORK/arms.tsv
BPF=$WORK/bpf.tsv
echo "workload config round position throughput ops p50_us p99_us agent_cpu_s agent_rss_kib hard_loss soft_drops signals surplus_max agent_user_s agent_sys_s bpf_ns bpf_runs emitted spans spans_exported export_bytes sink_cpu_s exec_signals execs_run closes closes_expected close_bytes close_bytes_expected samples samples_expected" >"$ARMS"
echo "workload config round program hook runs run_time_ns" >"$BPF"
arm() { # arm WORKLOAD CONFIG ROUND POSITION
	local w=$1 c=$2 out
	if [ "$c" = none ]; then
		out=$(measured_workload "$w")
		echo "$w none $3 $4 $out - - - - - - - - - - - - - - - - - - - - - - -" >>"$ARMS"
		echo "  $w/none round $3: ${out%% *} ops/s" >&2
		return
	fi
	start_agent "$c"
	sleep 0.3
	local u0 s0 u1 s1 k0 k1 b0 b1 prev now i
	bpf_progs "$AGENT" >"$WORK/bpf0"
	read -r u0 s0 < <(user_sys_ticks "$AGENT")
	k0=$(cpu_ticks "$SINK") b0=$(sink_bytes)
	out=$(measured_workload "$w")
	# BPF programs run on the workload's syscalls: read them at once, before
	# the rest of the node adds to them.
	bpf_progs "$AGENT" >"$WORK/bpf1"
	# The agent drains what the kernel handed it: its CPU is read once it has
	# been idle for a tick (on a busy node it never is: other processes'
	# events), after at least a second (the last fragments drained, the last
	# spans counted), at most two.
	sleep 1
	prev=$(cpu_ticks "$AGENT")
	for ((i = 0; i < 4; i++)); do
		sleep 0.25
		now=$(cpu_ticks "$AGENT")
		[ "$now" = "$prev" ] && break
		prev=$now
	done
	read -r u1 s1 < <(user_sys_ticks "$AGENT")
	k1=$(cpu_ticks "$SINK") b1=$(sink_bytes)
	curl -fsS -m 20 --retry 2 "http://127.0.0.1:$APORT/metrics" >"$WORK/metrics"
	local execs_seen captured
	execs_seen=$(exec_probe)
	captured=$(captures "$w" "$c" "$(echo "$out" | cut -d' ' -f2)")
	local rss hard soft sig=- sur=-
	rss=$(awk '/^VmHWM:/ { print $2 }' "/proc/$AGENT/status")
	stop_agent
	hard=$(msum '^enav_kernel_events_total[{].*category="transport_full"|^enav_transport_lost_samples_total')
	soft=$(msum '^enav_[a-z0-9_]*(dropped|overflow|overflows|evicted|evictions|full|capped|refusals|refused)[a-z_]*_total')
	case "$c:$w" in
	l7:http | all:http | l7:redis | all:redis | l7:pg | all:pg) sig=$(signals "$w") sur=$(surplus "$w") ;;
	esac
	local emitted spans sent bytes
	emitted=$(msum '^enav_signals_total[{]')
	spans=$(msum '^enav_signals_total[{]kind="span"')
	sent=- # only the l7 configuration exports spans over OTLP
	[ "$c" = l7 ] && sent=$(msum '^enav_otlp_items_sent_total[{]signal="traces"')
	bytes=$((b1 - b0 + $(stat -c %s "$WORK/stdout")))
	rm -f "$WORK/stdout"
	# Programs that did not run (hooks the workload never reached) are left out.
	bpf_delta "$WORK/bpf0" "$WORK/bpf1" | awk -F'\t' -v w="$w" -v c="$c" -v r="$3" \
		'$3 > 0 { print w, c, r, $1, $2, $3, $4 }' >>"$BPF"
	local bpf
	bpf=$(bpf_delta "$WORK/bpf0" "$WORK/bpf1" | awk -F'\t' '{ n += $4; r += $3 } END { printf "%.0f %.0f", n, r }')
	echo "$w $c $3 $4 $out" \
		"$(awk -v u0="$u0" -v s0="$s0" -v u1="$u1" -v s1="$s1" -v hz="$(getconf CLK_TCK)" \
			'BEGIN { printf "%.2f", (u1 - u0 + s1 - s0) / hz }')" \
		"$rss $hard $soft $sig $sur" \
		"$(awk -v u0="$u0" -v s0="$s0" -v u1="$u1" -v s1="$s1" -v hz="$(getconf CLK_TCK)" \
			'BEGIN { printf "%.2f %.2f", (u1 - u0) / hz, (s1 - s0) / hz }')" \
		"$bpf $emitted $spans $sent $bytes" \
		"$(awk -v k0="$k0" -v k1="$k1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (k1 - k0) / hz }')" \
		"$execs_seen $EXECS $captured" >>"$ARMS"
	echo "  $w/$c round $3: ${out%% *} ops/s" >&2
}

echo "campaign $MODE: $ROUNDS rounds of $SECS s; work in $WORK" >&2
for w in http redis pg cpu; do
	var=CONFIGS_$w
	read -ra cfgs <<<"${!var}"
	workload "$w" >/dev/null # warm-up
	n=${#cfgs[@]}
	for ((r = 0; r < ROUNDS; r++)); do
		# Each configuration next to a baseline of its own: pairs alternate
		# "none, agent" and "agent, none", so the nearest baseline of every
		# arm is its pair's (the analyzer's rule) and each configuration runs
		# both before and after a baseline across rounds.  The configurations
		# rotate every round, reversed on odd rounds.
		pos=0
		for ((k = 0; k < n; k++)); do
			if ((r % 2 == 0)); then idx=$(((k + r) % n)); else idx=$(((n - 1 - k + r) % n)); fi
			if (((k + r) % 2 == 0)); then
				arm "$w" none "$r" $((pos++))
				arm "$w" "${cfgs[idx]}" "$r" $((pos++))
			else
				arm "$w" "${cfgs[idx]}" "$r" $((pos++))
				arm "$w" none "$r" $((pos++))
			fi
		done
	done
done

# ---- handler cost against the physical floor ------------------------------------
FLOOR=$WORK/floor.tsv
HOOKS=$WORK/hooks.tsv
echo "arm round requests_per_s" >"$FLOOR"
echo "arm round program hook runs run_time_ns" >"$HOOKS"
# Its own ports: the campaign's servers still hold theirs.
PORT=$((PORT + 2)) APORT=$((APORT + 2)) FLOOR_OUT=$FLOOR FLOOR_HOOKS_OUT=$HOOKS bench/hook_floor.sh "$FLOOR_ROUNDS" "$FLOOR_SECS" >"$WORK/floor.log" 2>&1 ||
	{ echo "campaign: hook floor failed: $(tail -3 "$WORK/floor.log")" >&2; exit 1; }

# ---- soak ------------------------------------------------------------------------
# wrk with a random path per request against a server that closes every 100
# requests (paths, connections), plus an exec storm in rotating container
# cgroups (pids, container ids), until SOAK_EVENTS kernel events.
cat >"$WORK/soak.lua" <<'LUA'
math.randomseed(os.time())
request = function()
	return wrk.format("GET", "/soak/" .. string.format("%x", math.random(0, 0x7fffffff)) .. "/item")
end
LUA
SOAK=$WORK/soak.tsv
echo "t_s rss_kib events" >"$SOAK"
start_agent soak
CG=/sys/fs/cgroup/unified/enav-soak
mkdir -p "$CG"
# Each cgroup outlives its process: the last 128 stay, twice the discovery
# and attribution caps, so both tables are pushed past their caps (not only
# rotated through).
storm() {
	local live=()
	while [ ! -e "$WORK/stop" ]; do
		local d
		d=$CG/docker-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n').scope
		mkdir "$d" 2>/dev/null || continue
		(echo $BASHPID >"$d/cgroup.procs" && exec /bin/true) 2>/dev/null
		live+=("$d")
		if [ ${#live[@]} -gt 128 ]; then
			rmdir "${live[0]}" 2>/dev/null
			live=("${live[@]:1}")
		fi
	done
	for d in "${live[@]}"; do rmdir "$d" 2>/dev/null; done
}
storm &
STORM=$!
soak_events() { curl -fs "http://127.0.0.1:$APORT/metrics" >"$WORK/metrics" && msum '^enav_kernel_events_total[{].*category="emitted"'; }
e0=$(soak_events)
[ "$e0" != missing ] || { echo 'campaign: soak: enav_kernel_events_total{category="emitted"} missing from /metrics' >&2; exit 1; }
SOAK_MAX_S=600
[ "$MODE" = full ] && SOAK_MAX_S=1800
wrk -t1 -c32 -d"${SOAK_MAX_S}s" -s "$WORK/soak.lua" "http://127.0.0.1:$((PORT + 1))" >"$WORK/soak-wrk.out" 2>&1 &
SWRK=$!
t_start=$(date +%s.%N)
echo "0.0 $(awk '/^VmRSS:/ { print $2 }' "/proc/$AGENT/status") 0" >>"$SOAK"
while :; do
	sleep 1
	ev=$(soak_events) || break
	t=$(awk -v a="$t_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	echo "$t $(awk '/^VmRSS:/ { print $2 }' "/proc/$AGENT/status") $((ev - e0))" >>"$SOAK"
	# Enough events, and long enough for a slope (RSS sampled each second).
	[ $((ev - e0)) -ge "$SOAK_EVENTS" ] && awk -v t="$t" -v m="$SOAK_MIN_S" 'BEGIN { exit !(t >= m) }' && break
	kill -0 "$SWRK" 2>/dev/null || break
done
kill "$SWRK" 2>/dev/null || true
touch "$WORK/stop"
wait "$STORM" 2>/dev/null || true
STORM=
curl -fs "http://127.0.0.1:$APORT/metrics" >"$WORK/soak-metrics"
stop_agent

# ---- report ----------------------------------------------------------------------
META=$WORK/meta.tsv
{
	printf 'date\t%s\n' "$STAMP"
	printf 'mode\t%s (%s rounds of %s s; floor %s rounds of %s s; soak target %s events)\n' "$MODE" "$ROUNDS" "$SECS" "$FLOOR_ROUNDS" "$FLOOR_SECS" "$SOAK_EVENTS"
	printf 'machine\t%s cores, %s, kernel %s\n' "$(nproc)" "$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)" "$(uname -r)"
	printf 'agent\t%s\n' "$("$ENAV" version)"
	printf 'command\tbench/campaign.sh --%s%s\n' "$MODE" "${STRICT:+ --strict}"
	printf 'gates\t%s (sha256 %s)\n' "$GATES" "$(sha256sum "$GATES" | cut -c1-16)"
	printf 'otlp receiver\tbench/otlp_sink.c (accepts, discards): %s requests, %s body bytes over the campaign\n' \
		$(curl -fs "http://127.0.0.1:$SPORT/stats" | awk '{ print $2, $4 }')
	printf 'bpf stats\tkernel.bpf_stats_enabled=1 during the run (was %s); floor programs refused: %s\n' "$STATS_WAS" \
		"$(awk '$5 == "-" { print $4 }' "$HOOKS" | sort -u | paste -sd' ' - | sed 's/^$/none/')"
	printf 'workload reruns\t%s\n' \
		"$(if [ -s "$WORKLOAD_FAILURES" ]; then wc -l <"$WORKLOAD_FAILURES"; sed 's/^/; /' "$WORKLOAD_FAILURES" | tr -d '\n'; else echo 0; fi)"
	printf 'agent restarts\t%s\n' \
		"$(if [ -s "$START_FAILURES" ]; then wc -l <"$START_FAILURES"; sed 's/^/; /' "$START_FAILURES" | tr -d '\n'; else echo 0; fi)"
	printf 'workloads\twrk -t1 -c32 -> nginx 4 KiB keep-alive; redis-benchmark -c 8 -t set (no pipelining); pgbench -S -M simple -c 4; busy loop\n'
	printf 'soak caps hit\t%s\n' "$(awk '$1 ~ /^enav_[a-z0-9_]*(dropped|overflow|overflows|evicted|evictions|full|capped|refusals)[a-z_]*_total/ && $2 > 0 { printf "%s=%s ", $1, $2 }' "$WORK/soak-metrics")"
} >"$META"
rc=0
"$ANALYZE" --arms "$ARMS" --gates "$GATES" --floor "$FLOOR" --cores "$(nproc)" \
	--bpf "$BPF" --hooks "$HOOKS" --soak "$SOAK" --meta "$META" --out "$REPORT" || rc=$?
# Every record the verdicts came from, so that bench/reanalyze.sh can judge
# them again.
{
	printf '\n## Raw records\n\nArms (`%s`):\n\n```\n' "arms.tsv"
	cat "$ARMS"
	printf '```\n\nBPF programs of the agent arms (`bpf.tsv`):\n\n```\n'
	cat "$BPF"
	printf '```\n\nFloor (`bench/hook_floor.sh`):\n\n```\n'
	cat "$FLOOR"
	printf '```\n\nFloor, per program and hook:\n\n```\n'
	cat "$HOOKS"
	printf '```\n\nSoak samples: %s lines:\n\n```\n' "$(($(wc -l <"$SOAK") - 1))"
	cat "$SOAK"
	printf '```\n'
} >>"$REPORT"
# The analyzer: 0 every gate passed, 3 one failed, 4 none failed but one gave
# no verdict or had no data, anything else a harness error.
case $rc in
0) verdict="every gate passed" ;;
3) verdict="a gate failed" ;;
4) verdict="no gate failed, but one gave no verdict (noisy baseline) or had no data" ;;
*) echo "campaign: the analyzer failed (exit $rc)" >&2; exit 1 ;;
esac
echo "report: $REPORT (gates: $verdict; exit $rc with --strict)"
# Without --strict the verdicts are the report's: the campaign succeeded.
[ -n "$STRICT" ] || rc=0
trap - ERR # a verdict is not a harness error
(exit "$rc")
