#!/usr/bin/env bash
# The agent built with ASan + UBSan (+ LeakSanitizer at exit) runs the real
# pipeline under load (an exec storm, profiles of every kind and format) and
# shuts down with no report.
. "$(dirname "$0")/lib.sh"

case_asan_agent() {
	require_root || return
	[ -x "$BUILD/asan/enav" ] || { fail "$BUILD/asan/enav not built (make asan)"; return 1; }
	local cg
	cg=$(make_cgroup "enav-test.slice/asan.scope") || { fail "cannot create cgroup"; return 1; }
	# Nine profile requests at once from one address: past the listener's
	# default caps (2 profiles, 8 connections per client; ADR 0018).
	TEST_HTTP_LINES=$'  max_profile_requests: 9\n  max_connections_per_client: 16' \
		write_config "$WORK/cfg.yaml" "transport: perf"
	ENAV=$BUILD/asan/enav ASAN_OPTIONS=detect_leaks=1:halt_on_error=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 start_agent "$WORK/cfg.yaml" || return 1
	"$HELPERS/exec_storm" "$cg" 2000 "$(readlink -f "$HELPERS/exit_with")" >/dev/null ||
		{ fail "storm failed"; return 1; }
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >/dev/null || { fail "/metrics failed"; return 1; }
	# Profiles of every kind and format, built while a workload runs and
	# exits (symbolized from its snapshot), under the sanitizers.
	"$HELPERS/prof_workload" mutex 2 >/dev/null &
	local load=$! k f pids=()
	for k in profile offcpu futex; do
		for f in pprof folded svg; do
			curl -fs -o /dev/null "http://127.0.0.1:$TEST_PORT/debug/pprof/$k?seconds=1&format=$f" &
			pids+=($!)
		done
	done
	for k in "${pids[@]}"; do
		wait "$k" || { fail "a profile request failed"; return 1; }
	done
	wait "$load"
	sleep 0.5
	stop_agent
	if grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:' "$WORK/stderr"; then
		fail "sanitizer report: $(grep -m3 -E 'ERROR|runtime error' "$WORK/stderr")"
		return 1
	fi
	expect_eq "exit status" "$STOP_RC" 0 || return 1
	local execs
	execs=$(jq -c 'select(.kind == "process.exec" and .process.comm == "exit_with")' \
		"$WORK/signals.ndjson" | wc -l)
	[ "$execs" -ge 2000 ] || { fail "only $execs exec signals"; return 1; }
}

run_case "ASan/UBSan agent: 2000 execs, profiles, scrape, clean shutdown, no leaks" case_asan_agent
finish
