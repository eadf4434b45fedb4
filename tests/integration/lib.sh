# Shared helpers for integration tests.  Sourced, not executed.
# Each test file runs cases with `run_case NAME FUNCTION`; a case fails by
# calling `fail MESSAGE` (which returns non-zero from the case).
set -uo pipefail

BUILD=${BUILD:-build}
ENAV=${ENAV:-$BUILD/enav}
HELPERS=$BUILD/helpers
CGROUP2=${CGROUP2:-}
TEST_PORT=${TEST_PORT:-19464}
WORK=$(mktemp -d /tmp/enav-it.XXXXXX)
[ -n "${KEEP_WORK:-}" ] && echo "work: $WORK" >&2
PASSED=0
FAILED=0
SKIPPED=0
AGENT_PID=
CREATED_CGROUPS=()

CGRUN_TREES=()

# cgrun_tree TOP: remember a tree created by the cgrun helper in every
# hierarchy, so cleanup removes it.
cgrun_tree() {
	CGRUN_TREES+=("$1")
}

remove_tree_everywhere() { # remove_tree_everywhere /top
	local m
	for m in $(awk '$9 == "cgroup" || $9 == "cgroup2" { print $5 }' /proc/self/mountinfo); do
		[ -d "$m$1" ] || continue
		find "$m$1" -depth -type d -exec rmdir {} \; 2>/dev/null
	done
}

cleanup() {
	stop_agent >/dev/null 2>&1 || true
	local t
	for t in "${CGRUN_TREES[@]}"; do
		remove_tree_everywhere "$t"
	done
	for ((i = ${#CREATED_CGROUPS[@]} - 1; i >= 0; i--)); do
		rmdir "${CREATED_CGROUPS[$i]}" 2>/dev/null || true
	done
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
	echo "    $*" >&2
	return 1
}

# A skip is a failure under CI=true: a capability CI lacks is a broken CI.
skip() {
	if [ "${CI:-}" = "true" ]; then
		echo "    SKIP not allowed in CI: $*" >&2
		return 1
	fi
	echo "    skipped: $*" >&2
	return 77
}

run_case() {
	local name=$1 fn=$2
	local rc
	# ONLY_CASE=function_name runs one case (debugging; never set in CI).
	[ -n "${ONLY_CASE:-}" ] && [ "$fn" != "$ONLY_CASE" ] && return 0
	local t0=$SECONDS
	"$fn"
	rc=$?
	# Each verdict carries the case's wall time, its agent's stop included:
	# the kernel matrix's budget is planned from these (docs/kernels.md).
	stop_agent >/dev/null 2>&1 || true
	local took="($((SECONDS - t0)) s)"
	if [ $rc -eq 0 ]; then
		PASSED=$((PASSED + 1))
		echo "PASS $name $took"
	elif [ $rc -eq 77 ]; then
		SKIPPED=$((SKIPPED + 1))
		echo "SKIP $name $took"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL $name $took"
	fi
}

finish() {
	echo "$(basename "$0"): $PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ $FAILED -eq 0 ]
}

require_root() {
	[ "$(id -u)" -eq 0 ] || { skip "needs root to load BPF programs"; return; }
}

cgroup2_mount() {
	if [ -z "$CGROUP2" ]; then
		CGROUP2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	fi
	echo "$CGROUP2"
}

# make_cgroup RELATIVE_PATH: creates every level under the cgroup2 mount.
make_cgroup() {
	local root rel=$1 path
	root=$(cgroup2_mount)
	[ -n "$root" ] || return 1
	path=$root
	IFS=/ read -ra parts <<<"${rel#/}"
	for p in "${parts[@]}"; do
		path=$path/$p
		if [ ! -d "$path" ]; then
			mkdir "$path" || return 1
			CREATED_CGROUPS+=("$path")
		fi
	done
	echo "$path"
}

# write_config FILE [extra yaml lines...]: a test config on the test port
# (TEST_HEALTH_LISTEN: the health listener's address, none by default).
# The NDJSON exporter writes every signal (no rate limit: the tests count
# them) to $WORK/signals.ndjson; extra lines may open "exporters:" for another
# exporter (the ndjson entry joins it, right after that line, so "exporters:"
# "    queue_capacity: N" sets an ndjson key).
write_config() {
	local file=$1 line exporters= profiling=
	shift
	{
		echo "log_level: info"
		echo "http:"
		echo "  listen: 127.0.0.1:$TEST_PORT"
		# No health listener of its own unless a case asks (its default port,
		# 9465, is one for every agent of the machine); TEST_HTTP_LINES adds
		# keys under http: (one per line, indented two spaces).
		echo "  health_listen: \"${TEST_HEALTH_LISTEN:-}\""
		[ -z "${TEST_HTTP_LINES:-}" ] || printf '%s\n' "$TEST_HTTP_LINES"
		for line in "$@"; do
			echo "$line"
			if [ "$line" = "exporters:" ]; then
				ndjson_every_signal "$WORK/signals.ndjson"
				exporters=1
			fi
			[ "$line" != "profiling:" ] || profiling=1
		done
		[ -n "$exporters" ] || { echo "exporters:" && ndjson_every_signal "$WORK/signals.ndjson"; }
		# ENAV_TEST_PROFILING=off (the kernel matrix's emulated guests, where
		# the profiler's work for every process started, and the unwinder's
		# tables at each agent start, cost tens of seconds per test): a
		# configuration that says nothing of profiling runs without it.
		if [ "${ENAV_TEST_PROFILING:-}" = off ] && [ -z "$profiling" ]; then
			printf 'profiling:\n  enabled: false\n'
		fi
	} >"$file"
}

# ndjson_every_signal PATH: the "  ndjson:" entry of an "exporters:" mapping
# that writes every signal to PATH, lifting the default rate limit (ADR 0015).
ndjson_every_signal() {
	printf '  ndjson:\n    path: %s\n' "$1"
	printf '    rate_limit: {spans_per_second: 0, other_kinds_per_second: 0}\n'
}

# ENAV_TIME_SCALE: how many times longer than natively a test waits for
# something the agent does in its own time (readiness, a TLS library scan,
# a signal reaching the sink).  1 natively; scripts/kernel_matrix.sh raises
# it in emulated guests.  It scales waits for an event, never a bound the
# product promises (the shutdown deadline, a profile's duration); the CPU
# work after such a deadline is scaled (stop_limit_ms).
TIME_SCALE=${ENAV_TIME_SCALE:-1}
case $TIME_SCALE in '' | *[!0-9]* | 0*) echo "ENAV_TIME_SCALE must be a positive integer, not '$TIME_SCALE'" >&2; exit 2 ;; esac

# scaled N: N (a number of seconds or of 0.1 s polls) times ENAV_TIME_SCALE.
scaled() {
	echo $(($1 * TIME_SCALE))
}

# http_get URL: the body on stdout; non-zero unless the answer is a 2xx
# within 5 s.  Static busybox's wget rather than curl: Debian's curl maps
# libgnutls (through librtmp), so every curl run while the agent watches TLS
# libraries is one more process it may probe, and later detach from
# (test_tls counts those).  Not wget -T: busybox 1.35's static wget crashes
# with it.
http_get() {
	timeout 5 busybox wget -q -O - "$1" 2>/dev/null
}

# wait_ready PID [PORT] [MIN_S]: waits until /readyz on 127.0.0.1:PORT
# (TEST_PORT) answers 200 while PID (the agent) runs.  Fails, so the case
# stops rather than carries on without a ready agent, when PID exits first
# or after ENAV_READY_WAIT_S (default 10 s times ENAV_TIME_SCALE; an
# emulated 6.1 guest loads the network object in 3-6 s, a loaded one in
# more), or MIN_S when
# that is longer (a configuration that starts more sources).
wait_ready() {
	local pid=$1 port=${2:-$TEST_PORT} min_s=${3:-0} i wait_s
	wait_s=${ENAV_READY_WAIT_S:-$(scaled 10)}
	[ "$wait_s" -ge "$min_s" ] || wait_s=$min_s
	for ((i = 0; i < wait_s * 10; i++)); do
		http_get "http://127.0.0.1:$port/readyz" >/dev/null && return 0
		if ! kill -0 "$pid" 2>/dev/null; then
			fail "agent exited during start: $(tail -5 "$WORK/stderr" 2>/dev/null)"
			return 1
		fi
		sleep 0.1
	done
	fail "agent not ready on port $port after $wait_s s: $(tail -3 "$WORK/stderr" 2>/dev/null)"
}

# start_agent CONFIG: starts enav in the background and waits for /readyz.
start_agent() {
	# A leftover agent on the test port would answer for ours.
	if http_get "http://127.0.0.1:$TEST_PORT/healthz" >/dev/null; then
		fail "something already serves 127.0.0.1:$TEST_PORT"
		return 1
	fi
	: >"$WORK/signals.ndjson"
	"$ENAV" run --config "$1" >"$WORK/stdout" 2>"$WORK/stderr" &
	AGENT_PID=$!
	wait_ready "$AGENT_PID"
}

# stop_agent: SIGTERM, wait; sets STOP_RC (exit code) and STOP_MS (time to exit).
STOP_RC=
STOP_MS=
stop_agent() {
	[ -n "$AGENT_PID" ] || return 0
	local t0 t1
	# The last word of the agent on itself, for a failed case's post-mortem.
	http_get "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics.final"
	t0=$(date +%s%N)
	kill -TERM "$AGENT_PID" 2>/dev/null
	STOP_RC=0
	wait "$AGENT_PID" || STOP_RC=$?
	t1=$(date +%s%N)
	STOP_MS=$(((t1 - t0) / 1000000))
	AGENT_PID=
	return 0
}

# stop_limit_ms: how long stopping may take: the agent's shutdown deadline
# (shutdown_timeout_ms, 1.5 s: a wall-clock promise, never scaled), 0.5 s for
# what follows it (cancelling a blocked writer, joining threads, closing the
# BPF objects), plus the kernel's unregistration of every TLS uprobe the
# agent had attached (about 0.1 s each on this VM, whether the agent detaches
# them or its exit does; docs/boundaries.md), from the metrics stop_agent
# saved.  That is 2 s natively.  What follows the deadline is CPU work, which
# emulation slows like any other: in a guest it is scaled by TIME_SCALE (a
# writer never cancelled still fails: it blocks for good).  Seen: 2,056 and
# 2,415 ms for a stalled reader in 6.12 and 6.1 guests under TCG.
stop_limit_ms() {
	local n
	n=$(awk '$1 == "enav_tls_uprobes" { print $2 }' "$WORK/metrics.final" 2>/dev/null)
	echo $((1500 + (500 + 150 * ${n:-0}) * TIME_SCALE))
}

# metric NAME_WITH_LABELS: the series' value from /metrics.  A series that
# does not exist, or an endpoint that does not answer, is an error: it prints
# a word that no numeric comparison accepts ("absent(NAME)", which is also a
# syntax error in $((...))) and returns 1, so an "== 0" assertion cannot pass
# on a series that was never exported.
metric() {
	local body
	body=$(http_get "http://127.0.0.1:$TEST_PORT/metrics") || {
		echo "unreachable(/metrics)"
		return 1
	}
	awk -v m="$1" '$1 == m { print $2; f = 1 } END { if (!f) { print "absent(" m ")"; exit 1 } }' <<<"$body"
}

# metric_or_zero NAME_WITH_LABELS: for a test that means "absent or zero":
# a labelled counter the agent creates at its first increment.  The endpoint
# itself must still answer.
metric_or_zero() {
	local v
	v=$(metric "$1") && { echo "$v"; return 0; }
	case $v in absent*) echo 0 ;; *) echo "$v"; return 1 ;; esac
}

# wait_for_line JQ_FILTER [TIMEOUT_S]: waits until a signal line matches
# (TIMEOUT_S times ENAV_TIME_SCALE; 10 s by default).
wait_for_line() {
	# Bounded by the clock, not by a count of polls: one jq pass over a
	# large file takes seconds in an emulated guest (seen: a 30 s wait that
	# lasted 480 s on 6.1).
	local filter=$1 end line
	end=$((SECONDS + $(scaled "${2:-10}")))
	while :; do
		line=$(jq -c "select($filter)" "$WORK/signals.ndjson" 2>/dev/null | head -n1)
		if [ -n "$line" ]; then
			echo "$line"
			return 0
		fi
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# has_line FILE JQ_FILTER: true when some line matches (jq 1.6's -e looks only
# at the last input, so it cannot answer this).
has_line() {
	[ -n "$(jq -c "select($2)" "$1" 2>/dev/null | head -n1)" ]
}

# expect_eq WHAT ACTUAL EXPECTED
expect_eq() {
	if [ "$2" != "$3" ]; then
		fail "$1: got '$2', want '$3'"
		return 1
	fi
}

# count_lines JQ_FILTER: signal lines that match, now.
count_lines() {
	jq -c "select($1)" "$WORK/signals.ndjson" 2>/dev/null | wc -l
}

# wait_for_count JQ_FILTER N [TIMEOUT_S]: waits until at least N lines match;
# then waits a little longer so a surplus (which the caller asserts against)
# has had its chance to show.  Prints the final count.  TIMEOUT_S (15) is
# scaled by ENAV_TIME_SCALE.
wait_for_count() {
	local filter=$1 want=$2 timeout i n=0
	timeout=$(scaled "${3:-15}")
	for ((i = 0; i < timeout * 10; i++)); do
		n=$(count_lines "$filter")
		[ "$n" -ge "$want" ] && break
		sleep 0.1
	done
	sleep 0.5
	count_lines "$filter"
}

# l7_config FILE [extra yaml lines...]: the agent with only what application
# protocol tests need (network source, spans in NDJSON).
l7_config() {
	local file=$1
	shift
	write_config "$file" "profiling:" "  enabled: false" "host:" "  enabled: false" \
		"security:" "  enabled: false" "$@"
}

# ---- PostgreSQL: a private cluster on loopback (test_l7_sql, test_unwind) --

PG_PORT=${PG_PORT:-15432}
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)}
PG_PASS=enav-pg-pw
PG_UP=

pg_conninfo() {
	echo "host=127.0.0.1 port=$PG_PORT user=postgres dbname=postgres sslmode=disable connect_timeout=5"
}

# pg_ctl as the cluster's owner.
pg_ctl_() { runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg/data" "$@"; }

# One private cluster for the whole file (initdb once), started per case on
# PG_PORT.  $WORK is root's and 0700: postgres needs to traverse it to its
# own directory, nothing more.
start_pg() {
	[ -x "$PG_BIN/initdb" ] || { fail "PostgreSQL server binaries missing (scripts/deps.sh: postgresql)"; return 1; }
	id postgres >/dev/null 2>&1 || { fail "no postgres user (the postgresql package creates it)"; return 1; }
	if [ ! -d "$WORK/pg/data" ]; then
		chmod 711 "$WORK"
		mkdir -p "$WORK/pg"
		chmod 700 "$WORK/pg"
		echo "$PG_PASS" >"$WORK/pg/pwfile"
		chown -R postgres: "$WORK/pg"
		# Local (socket) connections trusted for pg_ctl's readiness probe;
		# TCP needs the password.
		runuser -u postgres -- "$PG_BIN/initdb" -D "$WORK/pg/data" -U postgres \
			--auth-local=trust --auth-host=scram-sha-256 --pwfile="$WORK/pg/pwfile" \
			--no-sync >"$WORK/pg/initdb.log" 2>&1 ||
			{ fail "initdb failed: $(tail -3 "$WORK/pg/initdb.log")"; return 1; }
	fi
	PG_UP=1 # stop_pg is harmless on a cluster that did not start
	pg_ctl_ -l "$WORK/pg/server.log" -w -t "$(scaled 30)" \
		-o "-p $PG_PORT -k $WORK/pg -c listen_addresses=127.0.0.1 -c ssl=off -c fsync=off" \
		start >"$WORK/pg/pg_ctl.out" 2>&1 ||
		{ fail "postgres did not start: $(tail -3 "$WORK/pg/server.log")"; return 1; }
	PGPASSWORD=$PG_PASS psql -X -q -At "$(pg_conninfo)" -c 'SELECT 1' >/dev/null 2>&1 ||
		{ fail "postgres does not answer on 127.0.0.1:$PG_PORT"; return 1; }
}

pg_postmaster_pid() { head -n1 "$WORK/pg/data/postmaster.pid"; }

stop_pg() {
	[ -n "$PG_UP" ] && pg_ctl_ -m fast -w -t 30 stop >/dev/null 2>&1
	PG_UP=
}

# start_dnsmasq NAME ADDR: dnsmasq on 127.0.0.1:53 answering NAME with the
# A record ADDR (nothing else: no resolv.conf, no hosts file), its pid in
# DNSMASQ_PID for the caller's cleanup; fails when it is missing or does not
# come up within 5 s.
DNSMASQ_PID=
start_dnsmasq() {
	command -v dnsmasq >/dev/null && command -v dig >/dev/null ||
		{ fail "dnsmasq/dig missing (scripts/deps.sh test)"; return 1; }
	rm -f "$WORK/dnsmasq.pid"
	dnsmasq --keep-in-foreground --no-resolv --no-hosts --listen-address=127.0.0.1 \
		--bind-interfaces --port=53 --address="/$1/$2" \
		--pid-file="$WORK/dnsmasq.pid" --user=root 2>"$WORK/dnsmasq.log" &
	DNSMASQ_PID=$!
	local i
	for ((i = 0; i < 50; i++)); do
		[ -s "$WORK/dnsmasq.pid" ] && break
		sleep 0.1
	done
	kill -0 "$DNSMASQ_PID" 2>/dev/null || { fail "dnsmasq: $(cat "$WORK/dnsmasq.log")"; return 1; }
}
