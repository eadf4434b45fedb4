#!/usr/bin/env bash
# Pulling profiles from real Go services and shipping only the operator's own
# code.  The service (tests/integration/go/acme/web) is github.com/acme/web,
# with a replaced module (example.com/acme/shared) and a vendored
# third-party one (github.com/thirdparty/lib); it burns CPU in all three.
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
STRINGS=$HERE/pprof_strings.py
export HOME=${HOME:-/root} GOCACHE=$WORK/gocache GOPATH=$WORK/gopath GOFLAGS=-mod=vendor GOPROXY=off
SVC_PIDS=()

build_service() {
	[ -x "$WORK/web" ] && return 0
	command -v go >/dev/null || { fail "golang-go is not installed (scripts/deps.sh test)"; return 1; }
	cp -r "$HERE/go/acme" "$WORK/acme"
	(cd "$WORK/acme/web" && go build -o "$WORK/web" .) 2>"$WORK/gobuild.err" ||
		{ fail "go build: $(cat "$WORK/gobuild.err")"; return 1; }
}

# start_service NAME: runs the service, sets SVC_PID and SVC_PORT.
start_service() {
	"$WORK/web" >"$WORK/$1.out" 2>&1 &
	SVC_PID=$!
	SVC_PIDS+=("$SVC_PID")
	local i
	for ((i = 0; i < 50; i++)); do
		SVC_PORT=$(awk '/^ready/ { print $3 }' "$WORK/$1.out")
		[ -n "$SVC_PORT" ] && return 0
		sleep 0.1
	done
	fail "service $1 did not start: $(cat "$WORK/$1.out")"
}

stop_services() {
	local p
	for p in "${SVC_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${SVC_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	SVC_PIDS=()
}

# strings_of FILE: the profile's string table, one per line, into FILE.strings.
# The extractor's failure fails the caller (an empty table would otherwise
# read as "no third-party string"), and a real profile always names its
# sample type.
strings_of() {
	python3 "$STRINGS" "$1" >"$1.strings" 2>"$1.strings.err" ||
		{ fail "string extractor failed on $1: $(head -3 "$1.strings.err")"; return 1; }
	grep -qx 'nanoseconds' "$1.strings" || grep -qx 'count' "$1.strings" ||
		{ fail "string extractor found no sample unit in $1"; return 1; }
}

# no_thirdparty FILE: not one string of the third-party module anywhere.
no_thirdparty() {
	strings_of "$1" || return 1
	if grep -qi 'thirdparty' "$1.strings"; then
		fail "third-party identity left in $1: $(grep -i 'thirdparty' "$1.strings" | head -3)"
		return 1
	fi
}

wait_for_file() { # wait_for_file GLOB TIMEOUT_S
	local i f
	for ((i = 0; i < $2 * 10; i++)); do
		for f in $1; do
			[ -e "$f" ] && { echo "$f"; return 0; }
		done
		sleep 0.1
	done
	return 1
}

pull_config() { # pull_config EXTRA...
	write_config "$WORK/cfg.yaml" "profiling:" "  spool:" "    dir: $WORK/spool" \
		"  pull:" "    enabled: true" "$@"
}

# The agent finds the service by itself, pulls, filters with the binary's own
# build info and an empty allow-list, and spools it: the service's code and
# the replaced module survive, nothing of the third-party module does.
case_pull_filter() {
	require_root || return
	build_service || return 1
	start_service web || return 1
	pull_config "    seconds: 2" "    round_ms: 60000"
	start_agent "$WORK/cfg.yaml" || return 1
	local f
	f=$(wait_for_file "$WORK/spool/enav-pulled-cpu-*.pb.gz" 20) ||
		{ fail "no pulled profile spooled: $(grep -i pull "$WORK/stderr")"; return 1; }
	stop_services
	go tool pprof -raw "$f" >/dev/null 2>"$WORK/raw.err" || { fail "go tool pprof: $(cat "$WORK/raw.err")"; return 1; }
	python3 "$STRINGS" "$f" >"$WORK/strings" || { fail "string table unreadable"; return 1; }
	no_thirdparty "$f" || return 1
	grep -qx 'github.com/acme/web/internal/work.AcmeWebBurn' "$WORK/strings" ||
		{ fail "the service's own function is gone"; return 1; }
	grep -qx 'example.com/acme/shared.AcmeSharedBurn' "$WORK/strings" ||
		{ fail "the replaced module's function is gone"; return 1; }
	grep -qx '\[redacted\]' "$WORK/strings" || { fail "no redaction placeholder"; return 1; }
	# Beyond frames: no directories, no executable path, no labels or comments.
	if grep -q '^/' "$WORK/strings"; then
		fail "an absolute path survived: $(grep '^/' "$WORK/strings" | head -n3)"
		return 1
	fi
	grep -q "$WORK" "$WORK/strings" && { fail "the binary's path survived"; return 1; }
	local top
	top=$(go tool pprof -top "$f" 2>/dev/null)
	grep -q 'AcmeWebBurn' <<<"$top" || { fail "pprof -top lacks AcmeWebBurn: $top"; return 1; }
	expect_eq "filter errors" "$(metric 'enav_pprof_pull_captures_total{result="filter_error"}')" 0
}

# Without the build's modules nothing of the service survives: this pins why
# the filter needs the binary's build info.  The same filter offline.
case_offline_filter() {
	require_root || return
	build_service || return 1
	start_service web || return 1
	curl -fs -o "$WORK/raw.pb.gz" "http://127.0.0.1:$SVC_PORT/debug/pprof/profile?seconds=2" ||
		{ fail "direct pull failed"; return 1; }
	stop_services
	# enav buildinfo says what go version -m says (less the empty line Go
	# 1.19 prints after each "=>" line, a printer bug later Go fixed).
	diff <("$ENAV" buildinfo "$WORK/web") <(go version -m "$WORK/web" | grep -v $'^\t$') >"$WORK/bi.diff" ||
		{ fail "enav buildinfo differs from go version -m: $(cat "$WORK/bi.diff")"; return 1; }
	"$ENAV" pprof-filter --binary "$WORK/web" "$WORK/raw.pb.gz" "$WORK/with.pb.gz" 2>/dev/null ||
		{ fail "pprof-filter --binary failed"; return 1; }
	"$ENAV" pprof-filter --no-binary "$WORK/raw.pb.gz" "$WORK/without.pb.gz" 2>/dev/null ||
		{ fail "pprof-filter --no-binary failed"; return 1; }
	local f
	for f in with without; do
		go tool pprof -raw "$WORK/$f.pb.gz" >/dev/null 2>&1 || { fail "$f: go tool pprof rejects it"; return 1; }
		no_thirdparty "$WORK/$f.pb.gz" || return 1
	done
	grep -q 'acme' "$WORK/with.pb.gz.strings" ||
		{ fail "with build info the service's frames are gone"; return 1; }
	if grep -q 'acme' "$WORK/without.pb.gz.strings"; then
		fail "without build info acme survived: $(grep 'acme' "$WORK/without.pb.gz.strings" | head -3)"
		return 1
	fi
	# The unfiltered profile did have them: the test can fail.
	strings_of "$WORK/raw.pb.gz" || return 1
	grep -q 'github.com/thirdparty/lib.ThirdpartySecretCompute' "$WORK/raw.pb.gz.strings" ||
		{ fail "the raw profile never had the third-party frame"; return 1; }
}

# A target whose own profiler holds Go's one CPU profile answers 500: it goes
# on hold and is not tried again; one capture at a time; at most
# max_per_round per round; targets visited least recently profiled first.
case_hold_and_bounds() {
	require_root || return
	build_service || return 1
	start_service a || return 1
	local busy_port=$SVC_PORT busy_pid=$SVC_PID
	start_service b || return 1
	local free_pid=$SVC_PID
	# The owner's own profiler, busy for longer than the whole test.
	curl -s -o /dev/null "http://127.0.0.1:$busy_port/debug/pprof/profile?seconds=40" &
	local owner=$!
	sleep 0.5
	pull_config "    seconds: 1" "    round_ms: 1500" "    max_per_round: 1" "    hold_ms: 600000"
	start_agent "$WORK/cfg.yaml" || { kill $owner; return 1; }
	local i held=0 ok=0
	for ((i = 0; i < 150; i++)); do
		held=$(metric 'enav_pprof_pull_captures_total{result="held"}')
		ok=$(metric 'enav_pprof_pull_captures_total{result="ok"}')
		[ "${held%.*}" -ge 1 ] && [ "${ok%.*}" -ge 2 ] && break
		sleep 0.1
	done
	kill $owner 2>/dev/null
	expect_eq "held answers" "${held%.*}" 1 || { cat "$WORK/stderr" >&2; return 1; }
	[ "${ok%.*}" -ge 2 ] || { fail "only $ok successful pulls of the free service"; return 1; }
	expect_eq "held targets" "$(metric enav_pprof_pull_held_targets)" 1 || return 1
	# Two more rounds: the held one is never retried.
	sleep 3.5
	expect_eq "held answers after more rounds" "$(metric 'enav_pprof_pull_captures_total{result="held"}')" 1 || return 1
	expect_eq "captures in flight at once" "$(metric enav_pprof_pull_max_in_flight)" 1 || return 1
	expect_eq "most captures in a round" "$(metric enav_pprof_pull_max_round_captures)" 1 || return 1
	grep -q "pid $busy_pid) answered 500" "$WORK/stderr" ||
		{ fail "no hold logged for pid $busy_pid: $(grep -i pull "$WORK/stderr")"; return 1; }
	ls "$WORK"/spool/enav-pulled-cpu-*.pb.gz >/dev/null 2>&1 || { fail "nothing spooled"; return 1; }
	[ -n "$free_pid" ]
	stop_services
}

# eBPF profiles get the same filter, with each binary's own build info: the
# local endpoint (filtered unless configured otherwise) keeps acme, not the
# third party; local_unfiltered serves everything.
case_ebpf_filter() {
	require_root || return
	build_service || return 1
	start_service web || return 1
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	curl -fs -o "$WORK/ebpf.pb.gz" "http://127.0.0.1:$TEST_PORT/debug/pprof/profile?seconds=3&pid=$SVC_PID" ||
		{ fail "eBPF profile request failed"; return 1; }
	stop_agent
	go tool pprof -raw "$WORK/ebpf.pb.gz" >/dev/null 2>&1 || { fail "go tool pprof rejects it"; return 1; }
	no_thirdparty "$WORK/ebpf.pb.gz" || return 1
	grep -qx 'github.com/acme/web/internal/work.AcmeWebBurn' "$WORK/ebpf.pb.gz.strings" ||
		{ fail "eBPF: the service's function is gone"; return 1; }
	grep -qx 'example.com/acme/shared.AcmeSharedBurn' "$WORK/ebpf.pb.gz.strings" ||
		{ fail "eBPF: the replaced module's function is gone"; return 1; }
	write_config "$WORK/cfg2.yaml" "profiling:" "  filter:" "    local_unfiltered: true"
	start_agent "$WORK/cfg2.yaml" || return 1
	curl -fs -o "$WORK/ebpf2.pb.gz" "http://127.0.0.1:$TEST_PORT/debug/pprof/profile?seconds=3&pid=$SVC_PID" ||
		{ fail "unfiltered eBPF profile request failed"; return 1; }
	stop_services
	strings_of "$WORK/ebpf2.pb.gz" || return 1
	grep -q 'github.com/thirdparty/lib.ThirdpartySecretCompute' "$WORK/ebpf2.pb.gz.strings" ||
		{ fail "local_unfiltered: the third-party frame should be there"; return 1; }
}

run_case "pull: a real Go service, filtered with its build info and an empty allow-list" case_pull_filter
run_case "pull: without build info nothing of the service survives; enav buildinfo, pprof-filter" case_offline_filter
run_case "pull: a busy target is held, one capture at a time, max per round" case_hold_and_bounds
run_case "pull: eBPF profiles filtered with each binary's build info" case_ebpf_filter
stop_services
finish
