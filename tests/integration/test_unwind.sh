#!/usr/bin/env bash
# Native unwinding (issue 23): profiles of the binaries a node really runs,
# Debian's own packages built without frame pointers, taken the way a user
# takes them (`enav profile --seconds 5 --pid PID`), must reach the program's
# entry and hold no frame outside an executable mapping:
#  - redis-server under redis-benchmark (CPU, off-CPU, futex), nginx (light)
#    under wrk, a postgres backend under `pgbench -S`, python3.11 in a CPU
#    loop;
#  - helpers/unwind_nofp.c (-O2 -fomit-frame-pointer): hot_fn three calls
#    below main; helpers/unwind_mixed.c (frame pointers) called back from
#    inside libc's qsort, which has none (CPU, off-CPU, futex);
#  - a Go program with and without its .symtab (names from .gopclntab),
#    reaching main.main.
# Every pprof file passes `go tool pprof -top` and protoc against pprof's own
# profile.proto.  Each case prints its measured ratios.
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
STACKS=$HERE/folded_stacks.py
# pprof's official schema, from Debian's golang-github-google-pprof-dev.
PPROF_PROTO=/usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
SECS=5 # the profile's length: a product bound, not scaled
# How long a workload runs at most (each case stops its own at its end): the
# profile, plus the profiler's start and its wait for the process's unwind
# tables (seconds in an emulated guest).
WL_SECS=$((SECS + $(scaled 10)))
REDIS_PORT=$((TEST_PORT + 1))
NGINX_PORT=$((TEST_PORT + 2))
PG_PORT=$((TEST_PORT + 3))
# The issue's figures.
SERVER_MIN_PCT=95
CHAIN_MIN_PCT=90
export HOME=${HOME:-/root} GOCACHE=${GOCACHE:-$WORK/gocache} GOFLAGS=-mod=mod GO111MODULE=off
PIDS=()

stop_workloads() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	PIDS=()
	stop_pg
}
trap 'stop_workloads; cleanup' EXIT

unwind_prereq() {
	require_root || return
	command -v go >/dev/null || { skip "golang-go is not installed (scripts/deps.sh test)"; return; }
	command -v protoc >/dev/null || { skip "protobuf-compiler is not installed (scripts/deps.sh test)"; return; }
	[ -r "$PPROF_PROTO" ] || { skip "no $PPROF_PROTO (scripts/deps.sh test: golang-github-google-pprof-dev)"; return; }
}

# pprof_valid FILE: go tool pprof reads it and prints a top, and protoc
# decodes it as perftools.profiles.Profile.
pprof_valid() {
	local out
	out=$(go tool pprof -top "$1" 2>&1 >/dev/null) || { fail "go tool pprof -top rejected $1: $out"; return 1; }
	out=$(gzip -dc "$1" | protoc -I"$(dirname "$PPROF_PROTO")" --decode=perftools.profiles.Profile \
		profile.proto 2>&1 >/dev/null) || { fail "protoc rejected $1 against profile.proto: $out"; return 1; }
}

# profile KIND PID NAME [CONFIG]: `enav profile` of PID for SECS seconds into
# $WORK/NAME.{folded,pb.gz}, with PID's mappings ($WORK/NAME.maps, read
# halfway and at the end: the frames are checked against them); then the
# pprof file is validated.
profile() {
	local kind=$1 pid=$2 name=$3 cfg=${4:-}
	local args=(profile --seconds "$SECS" --kind "$kind" --pid "$pid" --folded "$WORK/$name.folded"
		--pprof "$WORK/$name.pb.gz")
	[ -z "$cfg" ] || args+=(--config "$cfg")
	"$ENAV" "${args[@]}" 2>"$WORK/$name.err" &
	local ppid=$!
	sleep $((SECS / 2 + 1))
	cat "/proc/$pid/maps" >"$WORK/$name.maps" 2>/dev/null
	wait $ppid || { fail "enav profile --kind $kind: $(tail -3 "$WORK/$name.err")"; return 1; }
	# How long the window waited for the process's unwind tables, if at all.
	grep -E '^enav: (waiting|process|the unwind tables)' "$WORK/$name.err" | sed 's/^/    /' >&2
	cat "/proc/$pid/maps" >>"$WORK/$name.maps" 2>/dev/null
	[ -s "$WORK/$name.maps" ] || { fail "process $pid ($name) ended before its profile did"; return 1; }
	pprof_valid "$WORK/$name.pb.gz"
}

# top_stacks NAME: the five heaviest stacks of $WORK/NAME.folded (for a
# failure's reader: what the profile holds instead).
top_stacks() {
	awk '{ print $NF "\t" $0 }' "$WORK/$1.folded" | sort -rn -k1,1 | head -n 5 | cut -f2- >&2
}

# val KEY LINE: the value of KEY=V in a folded_stacks.py line.
val() {
	local w
	for w in $2; do
		[ "${w%%=*}" = "$1" ] && { echo "${w#*=}"; return 0; }
	done
	echo 0
}

# at_least WHAT PART WHOLE PCT [MIN_WHOLE]: prints the ratio; fails when PART
# is under PCT% of WHOLE, or WHOLE is under MIN_WHOLE (20: a ratio of a
# handful proves nothing).
at_least() {
	local what=$1 part=$2 whole=$3 pct=$4 min=${5:-20}
	awk -v w="$what" -v p="$part" -v t="$whole" -v m="$pct" \
		'BEGIN { printf "    %s: %d of %d (%.1f%%, want >= %d%%)\n", w, p, t, t ? 100 * p / t : 0, m }'
	[ "$whole" -ge "$min" ] || { fail "$what: only $whole in the profile (want >= $min)"; return 1; }
	[ $((part * 100)) -ge $((whole * pct)) ] || { fail "$what: under $pct%"; return 1; }
}

# reaches_entry NAME [folded_stacks.py entry options]: at least SERVER_MIN_PCT
# of the user stacks of $WORK/NAME.folded reach the entry (main,
# __libc_start_main, _start; a thread's start_thread or clone3) and none
# holds an address outside an executable mapping.  Prints the entry line on
# stdout for further checks.
reaches_entry() {
	local name=$1 line out
	shift
	line=$(python3 "$STACKS" entry "$WORK/$name.folded" "$@") || { fail "folded_stacks.py entry failed"; return 1; }
	echo "    $name: $line" >&2
	at_least "$name: user stacks reaching the entry" "$(val entry "$line")" "$(val user "$line")" \
		"$SERVER_MIN_PCT" >&2 || {
		top_stacks "$name"
		python3 "$STACKS" misses "$WORK/$name.folded" "$@" | sed 's/^/    /' >&2
		return 1
	}
	out=$(python3 "$STACKS" outside "$WORK/$name.folded" "$WORK/$name.maps") ||
		{ fail "folded_stacks.py outside failed"; return 1; }
	echo "    $name: frames as addresses: $out" >&2
	[ "$(val outside "$out")" -eq 0 ] || { fail "$name: stacks with a frame outside every executable mapping"; return 1; }
	echo "$line"
}

# frame_share NAME ENTRY_LINE FRAME PCT: FRAME is in at least PCT% of the user stacks.
frame_share() {
	at_least "$1: user stacks holding $3" "$(val "need_$3" "$2")" "$(val user "$2")" "$4" 1
}

# ---- Debian's servers and interpreter -------------------------------------

start_redis() { # start_redis [extra redis-server options]: sets REDIS_PID
	command -v redis-server >/dev/null || { fail "redis-server missing (scripts/deps.sh test)"; return 1; }
	redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no "$@" \
		>"$WORK/redis.log" 2>&1 &
	REDIS_PID=$!
	PIDS+=("$REDIS_PID")
	local i
	for ((i = 0; i < $(scaled 50); i++)); do
		redis-cli -p "$REDIS_PORT" PING >/dev/null 2>&1 && break
		sleep 0.1
	done
	redis-cli -p "$REDIS_PORT" PING >/dev/null 2>&1 || { fail "redis-server did not start: $(tail -3 "$WORK/redis.log")"; return 1; }
	# The three tests over and over until the case ends it.
	redis-benchmark -p "$REDIS_PORT" -t set,get,lpush -n 100000 -l -q >/dev/null 2>&1 &
	PIDS+=($!)
	sleep 0.5
}

case_redis() {
	unwind_prereq || return
	start_redis || return 1
	# The issue's command, with the default (filtered) output.
	profile cpu "$REDIS_PID" redis || return 1
	local line
	line=$(reaches_entry redis --need aeMain --need processCommand) || return 1
	# perf --call-graph dwarf on this workload: aeMain in every sample,
	# processCommand in about 6% (the rest is the kernel's socket I/O).
	frame_share redis "$line" aeMain 90 && frame_share redis "$line" processCommand 1
}

case_redis_offcpu() {
	unwind_prereq || return
	start_redis || return 1
	profile offcpu "$REDIS_PID" redis_off || return 1
	reaches_entry redis_off >/dev/null
}

# Redis's own threads wait on condition variables only when handed work: the
# I/O threads (io-threads 2) are parked on and released from a mutex as the
# load of pending writes rises and falls.
case_redis_futex() {
	unwind_prereq || return
	start_redis --io-threads 2 || return 1
	profile futex "$REDIS_PID" redis_futex || return 1
	reaches_entry redis_futex >/dev/null
}

case_nginx() {
	unwind_prereq || return
	command -v nginx >/dev/null || { fail "nginx missing (scripts/deps.sh test: nginx-light)"; return 1; }
	local dir=$WORK/nginx
	mkdir -p "$dir/www"
	head -c 4096 /dev/urandom >"$dir/www/4k.bin"
	# A master and one worker as packaged, in the foreground; root, so the
	# worker can read $WORK.
	cat >"$dir/nginx.conf" <<CONF
daemon off;
master_process on;
worker_processes 1;
user root;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 1024; }
http {
	access_log off;
	keepalive_requests 1000000;
	server { listen 127.0.0.1:$NGINX_PORT; root $dir/www; }
}
CONF
	nginx -c "$dir/nginx.conf" &
	PIDS+=($!)
	local master=$! worker= i
	for ((i = 0; i < $(scaled 50); i++)); do
		worker=$(pgrep -P "$master" | head -n1)
		[ -n "$worker" ] && http_get "http://127.0.0.1:$NGINX_PORT/4k.bin" >/dev/null && break
		sleep 0.1
	done
	[ -n "$worker" ] || { fail "nginx worker did not start: $(tail -3 "$dir/error.log")"; return 1; }
	wrk -t1 -c16 -d"${WL_SECS}s" "http://127.0.0.1:$NGINX_PORT/4k.bin" >"$WORK/wrk.out" 2>&1 &
	PIDS+=($!)
	sleep 0.5
	# Unfiltered: the filter drops mapping files and build ids, which is
	# what a backend with nginx's debug info needs.
	printf 'profiling:\n  filter:\n    local_unfiltered: true\n' >"$WORK/unfiltered.yaml"
	profile cpu "$worker" nginx "$WORK/unfiltered.yaml" || return 1
	reaches_entry nginx >/dev/null || return 1
	# Frames nginx's .dynsym does not name (ngx_epoll_process_events and
	# every other static function): nginx's build id, and the file offset
	# its mapping gives.
	local exe id raw
	exe=$(readlink -f /proc/"$worker"/exe)
	id=$(readelf -n "$exe" | awk '/Build ID/ { print $3 }')
	go tool pprof -raw "$WORK/nginx.pb.gz" >"$WORK/nginx.raw" 2>/dev/null
	raw=$(python3 "$STACKS" mappings "$WORK/nginx.raw" "$WORK/nginx.maps" "$exe" "$id") ||
		{ fail "folded_stacks.py mappings failed"; return 1; }
	echo "    nginx: unnamed locations in $exe ($id): $raw"
	[ "$(val unnamed "$raw")" -gt 0 ] || { fail "no unnamed nginx frame to check (all named?)"; return 1; }
	expect_eq "unnamed nginx locations with its build id" "$(val build_id "$raw")" "$(val unnamed "$raw")" || return 1
	expect_eq "unnamed nginx locations at their file offset" "$(val offset_ok "$raw")" "$(val unnamed "$raw")"
}

case_postgres() {
	unwind_prereq || return
	command -v pgbench >/dev/null || { fail "pgbench missing (scripts/deps.sh: postgresql)"; return 1; }
	start_pg || return 1
	PGPASSWORD=$PG_PASS pgbench -i -q "$(pg_conninfo)" >"$WORK/pgbench-init.out" 2>&1 ||
		{ fail "pgbench -i: $(tail -3 "$WORK/pgbench-init.out")"; return 1; }
	PGPASSWORD=$PG_PASS pgbench -S -n -c 1 -T "$WL_SECS" "$(pg_conninfo)" >"$WORK/pgbench.out" 2>&1 &
	PIDS+=($!)
	# pgbench first connects once to check the tables, then as its client:
	# the backend is the one still serving it half a second later.
	local backend= seen= now i
	for ((i = 0; i < $(scaled 50); i++)); do
		now=$(PGPASSWORD=$PG_PASS psql -X -At "$(pg_conninfo)" \
			-c "SELECT pid FROM pg_stat_activity WHERE application_name = 'pgbench'" 2>/dev/null)
		backend=$(comm -12 <(sort <<<"$seen") <(sort <<<"$now") | grep -m1 .) && break
		backend=
		seen=$now
		sleep 0.5
	done
	[ -n "$backend" ] || { fail "no backend serving pgbench"; return 1; }
	profile cpu "$backend" postgres || return 1
	local line
	line=$(reaches_entry postgres --need PostgresMain) || return 1
	frame_share postgres "$line" PostgresMain 90
}

case_python() {
	unwind_prereq || return
	[ -x /usr/bin/python3.11 ] || { fail "/usr/bin/python3.11 missing (scripts/deps.sh test: python3)"; return 1; }
	/usr/bin/python3.11 -c '
import time
def spin(end):
    n = 0
    while time.monotonic() < end:
        n += sum(i * i for i in range(1000))
    return n
spin(time.monotonic() + float(__import__("sys").argv[1]))
' "$WL_SECS" &
	local pid=$!
	PIDS+=("$pid")
	sleep 0.5
	profile cpu "$pid" python || return 1
	# python3.11's main jumps to Py_BytesMain (a tail call: main has no
	# frame of its own, and no .dynsym name): the stack goes from
	# Py_BytesMain to __libc_start_call_main and _start.
	local line
	line=$(reaches_entry python --need _PyEval_EvalFrameDefault --need Py_BytesMain) || return 1
	frame_share python "$line" _PyEval_EvalFrameDefault 90 && frame_share python "$line" Py_BytesMain 90
}

# ---- programs built here --------------------------------------------------

# chain_check NAME MODE AMONG A,B,C PCT: of the stacks holding AMONG ('*':
# every user stack), at least PCT% hold A, B, C in that order below an entry
# frame (MODE chain: adjacent; order: not necessarily, regular expressions).
chain_check() {
	local out
	out=$(python3 "$STACKS" "$2" "$WORK/$1.folded" --among "$3" "$4") || { fail "folded_stacks.py $2 failed"; return 1; }
	at_least "$1: stacks with $3 that hold main..${4//,/;}" "$(val chain "$out")" "$(val among "$out")" "$5" ||
		{ top_stacks "$1"; return 1; }
}

case_nofp() {
	unwind_prereq || return
	"$HELPERS/unwind_nofp" "$WL_SECS" >"$WORK/nofp.out" &
	local pid=$!
	PIDS+=("$pid")
	sleep 0.3
	profile cpu "$pid" nofp || return 1
	reaches_entry nofp >/dev/null || return 1
	chain_check nofp chain '*' outer_fn,middle_fn,hot_fn "$CHAIN_MIN_PCT"
}

case_mixed() {
	unwind_prereq || return
	"$HELPERS/unwind_mixed" sort "$WL_SECS" >"$WORK/mixed.out" &
	local pid=$!
	PIDS+=("$pid")
	sleep 0.3
	profile cpu "$pid" mixed || return 1
	local line
	line=$(reaches_entry mixed --need cmp_fn) || return 1
	# Enough comparator samples for the chain check to mean something.  Not a
	# share of the profile: under emulation the timer lands where the
	# emulator takes interrupts, and a 6.1 guest put a third of the samples
	# in the comparator where this machine puts nine tenths.
	local in_cmp
	in_cmp=$(val need_cmp_fn "$line")
	echo "    mixed: user stacks holding cmp_fn: $in_cmp (want >= 100)" >&2
	[ "$in_cmp" -ge 100 ] || { fail "mixed: only $in_cmp stacks hold cmp_fn"; return 1; }
	chain_check mixed order cmp_fn 'main,.*qsort.*,cmp_fn' "$CHAIN_MIN_PCT"
}

# The comparator blocks (off-CPU) in a futex wait, inside qsort.
mixed_blocking() { # mixed_blocking KIND
	unwind_prereq || return
	"$HELPERS/unwind_mixed" block "$WL_SECS" >"$WORK/block.out" &
	local pid=$!
	PIDS+=("$pid")
	sleep 0.3
	profile "$1" "$pid" "mixed_$1" || return 1
	reaches_entry "mixed_$1" >/dev/null || return 1
	chain_check "mixed_$1" order cmp_block_fn 'main,.*qsort.*,cmp_block_fn' "$CHAIN_MIN_PCT"
}
case_mixed_offcpu() { mixed_blocking offcpu; }
case_mixed_futex() { mixed_blocking futex; }

# Go keeps frame pointers; its names come from .symtab, or from .gopclntab
# when the binary is stripped (-ldflags=-s).  The hot loop calls nothing, so
# the Go compiler gives it no frame (no saved rbp): a frame-pointer walk from
# it skips its caller, main.main; the rows built from .gopclntab's stack
# deltas keep it.  .symtab names assembly functions with their ABI
# (runtime.mstart.abi0, a thread's first frame), .gopclntab without.
go_build() { # go_build NAME [go build flags]
	local name=$1
	shift
	go build "$@" -o "$WORK/$name" "$HERE/go/hotloop.go" 2>"$WORK/gobuild.err" ||
		{ fail "go build: $(cat "$WORK/gobuild.err")"; return 1; }
}
go_profile() { # go_profile NAME
	local name=$1 line
	"$WORK/$name" "$WL_SECS" >/dev/null &
	local pid=$!
	PIDS+=("$pid")
	sleep 0.3
	profile cpu "$pid" "$name" || return 1
	line=$(python3 "$STACKS" entry "$WORK/$name.folded" --need main.enavGoHotLoop) ||
		{ fail "folded_stacks.py entry failed"; return 1; }
	frame_share "$name" "$line" main.enavGoHotLoop 90 || { top_stacks "$name"; return 1; }
	reaches_entry "$name" --entry main.main --thread runtime.mstart,runtime.mstart.abi0 >/dev/null
}

case_go() {
	unwind_prereq || return
	go_build hotloop && go_profile hotloop
}

case_go_stripped() {
	unwind_prereq || return
	go_build hotloop_stripped -ldflags=-s || return 1
	if readelf -S -W "$WORK/hotloop_stripped" | grep -qw '\.symtab'; then
		fail "go build -ldflags=-s left a .symtab: the case proves nothing"
		return 1
	fi
	go_profile hotloop_stripped
}

# The bounded-loop unwinder, what a kernel without bpf_loop (before 5.17)
# loads, forced on this one (ENAV_TEST_UNWIND_BOUNDED): the same chain down
# to main without frame pointers, and the profiler says which variant ran.
case_nofp_bounded() {
	ENAV_TEST_UNWIND_BOUNDED=1 case_nofp || return 1
	grep -q 'user stacks by .eh_frame and frame pointers (bounded loops: no bpf_loop)' "$WORK/nofp.err" ||
		{ fail "the bounded unwinder did not run: $(grep 'profiling:' "$WORK/nofp.err")"; return 1; }
}

# ucase NAME FUNCTION: run_case, then stop what the case started.
ucase() {
	run_case "unwind: $1" "$2"
	stop_workloads
}
ucase "redis-server (Debian) CPU reaches main, aeMain, processCommand" case_redis
ucase "redis-server off-CPU reaches main or its thread entry" case_redis_offcpu
ucase "redis-server futex reaches main or its thread entry" case_redis_futex
ucase "nginx worker reaches main; unnamed frames keep build id and offset" case_nginx
ucase "postgres backend under pgbench -S reaches main" case_postgres
ucase "python3.11 native frames down to main, _PyEval_EvalFrameDefault" case_python
ucase "-fomit-frame-pointer hot_fn <- middle_fn <- outer_fn <- main" case_nofp
ucase "-fomit-frame-pointer chain by the bounded-loop unwinder (no bpf_loop)" case_nofp_bounded
ucase "frame pointers through libc's qsort (CPU)" case_mixed
ucase "frame pointers through libc's qsort (off-CPU)" case_mixed_offcpu
ucase "frame pointers through libc's qsort (futex)" case_mixed_futex
ucase "Go (.symtab) hot loop under main.main" case_go
ucase "Go stripped (.gopclntab names) hot loop under main.main" case_go_stripped
finish
