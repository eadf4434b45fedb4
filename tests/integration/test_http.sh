#!/usr/bin/env bash
# HTTP endpoints, the default configuration, and shutdown.
. "$(dirname "$0")/lib.sh"

case_metrics_promtool() {
	require_root || return
	command -v promtool >/dev/null || { fail "promtool missing (Debian package prometheus)"; return 1; }
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	/bin/true
	sleep 0.3
	curl -fsS -D "$WORK/headers" "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics" ||
		{ fail "GET /metrics failed"; return 1; }
	grep -qi '^content-type: text/plain; version=0.0.4' "$WORK/headers" ||
		{ fail "content type: $(grep -i content-type "$WORK/headers")"; return 1; }
	promtool check metrics <"$WORK/metrics" >"$WORK/promtool" 2>&1
	local rc=$?
	# 0 = clean; 3 = lint findings only.  The one lint we accept is node_exporter's
	# own: node_memory_<Field>_bytes keeps /proc/meminfo's camelCase so that
	# dashboards work unchanged.  Anything else fails.
	if [ $rc -eq 3 ]; then
		grep -v "^node_memory_.* metric names should be written in 'snake_case' not 'camelCase'$" \
			"$WORK/promtool" >"$WORK/promtool.other"
		[ ! -s "$WORK/promtool.other" ] ||
			{ fail "promtool lint: $(head -3 "$WORK/promtool.other")"; return 1; }
	elif [ $rc -ne 0 ]; then
		fail "promtool rc=$rc: $(head -5 "$WORK/promtool")"
		return 1
	fi
	local name
	for name in enav_build_info enav_uptime_seconds enav_resident_memory_bytes \
		enav_source_events_total enav_source_decode_errors_total enav_kernel_events_total \
		enav_transport_lost_samples_total enav_sink_queue_depth enav_sink_dropped_total \
		enav_cache_evictions_total enav_process_execs_total; do
		grep -q "^$name" "$WORK/metrics" || { fail "metric $name missing"; return 1; }
	done
	# The exec counter moves by at least the execs we make, and the NDJSON
	# holds exactly those: a counter stuck at one, or a signal per counted
	# event lost, fails.
	local series='enav_source_events_total{source="exec",event="process_exec",transport="ringbuf"}'
	local before after i
	before=$(metric "$series") || { fail "no series $series"; return 1; }
	for ((i = 0; i < 5; i++)); do ENAV_TEST_LINGER_MS=20 "$HELPERS/exit_with" 0 promtool-marker; done
	expect_eq "marker execs in NDJSON" \
		"$(wait_for_count '.kind == "process.exec" and .process.argv[2] == "promtool-marker"' 5)" 5 || return 1
	after=$(metric "$series") || { fail "no series $series"; return 1; }
	[ $((after - before)) -ge 5 ] || { fail "exec counter moved $before -> $after for 5 execs"; return 1; }
	local rss
	rss=$(metric enav_resident_memory_bytes) || { fail "no RSS series"; return 1; }
	[ "$rss" -gt 1000000 ] || { fail "RSS $rss implausible"; return 1; }
}

case_health_ready() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	expect_eq "/healthz" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$TEST_PORT/healthz")" 200 || return 1
	expect_eq "/readyz" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$TEST_PORT/readyz")" 200 || return 1
	expect_eq "unknown path" "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$TEST_PORT/nope")" 404 || return 1
	expect_eq "POST refused" "$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$TEST_PORT/metrics")" 405
}

# A capture loop stuck in one round (here: its thread stopped with ptrace,
# the listener's threads still running) turns /healthz to 503 after 15 s,
# and back to 200 once the loop runs again.  The capture loop is the main
# thread (tid = pid).
case_health_stalled_loop() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	local code i
	/usr/bin/python3 tests/integration/stop_thread.py "$AGENT_PID" 24 >"$WORK/stop.out" 2>&1 &
	local stopper=$!
	for ((i = 0; i < 50; i++)); do
		grep -q stopped "$WORK/stop.out" && break
		sleep 0.1
	done
	grep -q stopped "$WORK/stop.out" || { fail "could not stop the thread: $(cat "$WORK/stop.out")"; return 1; }
	code=$(curl -s -o /dev/null -w '%{http_code}' -m 5 "http://127.0.0.1:$TEST_PORT/healthz")
	expect_eq "/healthz with the loop stopped for a moment" "$code" 200 || return 1
	sleep 16
	code=$(curl -s -m 5 "http://127.0.0.1:$TEST_PORT/healthz")
	case $code in "capture loop stalled for"*) ;; *) fail "/healthz after 16 s stalled: $code"; return 1 ;; esac
	code=$(curl -s -o /dev/null -w '%{http_code}' -m 5 "http://127.0.0.1:$TEST_PORT/healthz")
	expect_eq "/healthz status while stalled" "$code" 503 || return 1
	wait $stopper
	for ((i = 0; i < 30; i++)); do
		code=$(curl -s -o /dev/null -w '%{http_code}' -m 5 "http://127.0.0.1:$TEST_PORT/healthz")
		[ "$code" = 200 ] && return 0
		sleep 0.1
	done
	fail "/healthz still $code after the loop ran again"
}

# enav_programs FILE: the names of the loaded BPF programs the agent owns
# (every one is called enav_*), one per line.  bpftool's own failure fails,
# so it can never read as "nothing loaded".
enav_programs() {
	bpftool prog show >"$1.raw" 2>&1 || { fail "bpftool prog show: $(head -3 "$1.raw")"; return 1; }
	awk '$3 == "name" && $4 ~ /^enav_/ { print $4 }' "$1.raw" >"$1"
}

# expect_programs_gone: the positive control was taken while the agent ran
# ($WORK/progs.running lists its programs); after exit none of them may stay.
# Program release is deferred in the kernel (RCU); allow it 2 s.
expect_programs_gone() {
	local i
	for ((i = 0; i < 20; i++)); do
		enav_programs "$WORK/progs.after" || return 1
		[ -s "$WORK/progs.after" ] || return 0
		sleep 0.1
	done
	fail "programs still loaded 2 s after exit: $(sort -u "$WORK/progs.after" | tr '\n' ' ')"
}

# running_programs: lists the agent's programs while it runs; the exec and
# network programs must be among them, or the later absence proves nothing
# (the kernel keeps 15 characters of a name, so match by prefix).
running_programs() {
	enav_programs "$WORK/progs.running" || return 1
	local p
	for p in enav_exec enav_exit enav_tcp_state; do
		grep -q "^$p" "$WORK/progs.running" ||
			{ fail "positive control: $p not loaded while the agent runs ($(sort -u "$WORK/progs.running" | tr '\n' ' '))"; return 1; }
	done
}

case_sigterm_fast() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	running_programs || return 1
	stop_agent
	expect_eq "exit status after SIGTERM" "$STOP_RC" 0 || return 1
	local limit
	limit=$(stop_limit_ms)
	[ "$STOP_MS" -lt "$limit" ] || { fail "took $STOP_MS ms to exit (limit $limit)"; return 1; }
	expect_programs_gone
}

case_sigint() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	running_programs || return 1
	curl -fs -m 2 "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics.final" 2>/dev/null
	local t0 t1 rc=0 limit
	limit=$(stop_limit_ms)
	t0=$(date +%s%N)
	kill -INT "$AGENT_PID"
	wait "$AGENT_PID" || rc=$?
	t1=$(date +%s%N)
	AGENT_PID=
	expect_eq "exit status after SIGINT" "$rc" 0 || return 1
	[ $(((t1 - t0) / 1000000)) -lt "$limit" ] ||
		{ fail "took $(((t1 - t0) / 1000000)) ms to exit after SIGINT (limit $limit)"; return 1; }
	expect_programs_gone
}

# No config file at all: NDJSON on stdout and /metrics on 127.0.0.1:9464.
case_default_run() {
	require_root || return
	if curl -fs http://127.0.0.1:9464/healthz >/dev/null 2>&1 ||
		curl -fs http://127.0.0.1:9465/healthz >/dev/null 2>&1; then
		fail "something already listens on 127.0.0.1:9464 or 9465"
		return 1
	fi
	"$ENAV" run >"$WORK/stdout" 2>"$WORK/stderr" &
	AGENT_PID=$!
	# The default configuration also starts profiling and the host source;
	# on a busy machine readiness can take longer than a test config's:
	# at least 30 s.
	wait_ready "$AGENT_PID" 9464 30 || return 1
	# The health listener of its own, on by default (ADR 0018).
	expect_eq "default /healthz on 127.0.0.1:9465" \
		"$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:9465/healthz)" 200 || return 1
	ENAV_TEST_LINGER_MS=100 "$HELPERS/exit_with" 0 default-run-marker
	sleep 0.5
	# Into a file first: grep -q closing the pipe early would kill curl with
	# SIGPIPE and fail the pipeline under pipefail.
	curl -fsS http://127.0.0.1:9464/metrics >"$WORK/default.metrics" 2>"$WORK/default.curl" ||
		{ fail "default /metrics not served: $(cat "$WORK/default.curl")"; return 1; }
	grep -q '^enav_build_info' "$WORK/default.metrics" || { fail "default /metrics lacks enav_build_info"; return 1; }
	stop_agent
	expect_eq "exit status" "$STOP_RC" 0 || return 1
	has_line "$WORK/stdout" '.kind == "process.exec" and .process.argv[2] == "default-run-marker"' ||
		{ fail "marker exec not on stdout"; return 1; }
}

# A reader that stops reading must not hold shutdown past 2 s.
case_stalled_output() {
	require_root || return
	mkfifo "$WORK/fifo"
	# Holds the read end open and never reads, for the whole case: under
	# emulation the agent's start and the storm outlast a minute, and a
	# reader gone early makes writes fail (EPIPE) instead of block.
	sleep "$(scaled 120)" <"$WORK/fifo" &
	local reader=$!
	{
		echo "http:"
		echo "  listen: 127.0.0.1:$TEST_PORT"
		echo '  health_listen: ""'
	} >"$WORK/cfg.yaml"
	"$ENAV" run --config "$WORK/cfg.yaml" >"$WORK/fifo" 2>"$WORK/stderr" &
	AGENT_PID=$!
	# The storm must run while the agent captures: its output is what
	# blocks.  Without a ready agent the case fails here.
	wait_ready "$AGENT_PID" || { kill "$reader"; return 1; }
	local cg
	cg=$(make_cgroup "enav-test.slice/stall.scope") || { kill "$reader"; fail "cannot create cgroup"; return 1; }
	# ~2000 lines of several hundred bytes: far past a 64 KiB pipe.
	"$HELPERS/exec_storm" "$cg" 1000 "$(readlink -f "$HELPERS/exit_with")" >/dev/null
	# Stop only once the output is blocked: lines queued, none written for
	# 0.5 s.  A slow kernel may not have delivered the storm 0.5 s after it
	# ended, and an agent stopped before its writer blocks has nothing to
	# abandon (6.12 under TCG: no warning).
	local i depth w0 w1 blocked=
	for ((i = 0; i < $(scaled 20); i++)); do
		w0=$(metric 'enav_sink_written_total{sink="ndjson"}')
		sleep 0.5
		depth=$(metric 'enav_sink_queue_depth{sink="ndjson"}')
		w1=$(metric 'enav_sink_written_total{sink="ndjson"}')
		if [ "$w0" = "$w1" ] && [ "$depth" -gt 0 ] 2>/dev/null; then
			blocked=1
			break
		fi
	done
	[ -n "$blocked" ] || {
		fail "output never blocked: written $w0 then $w1, queue depth $depth, reader $(kill -0 "$reader" 2>/dev/null && echo alive || echo gone)"
		kill "$reader" 2>/dev/null
		return 1
	}
	echo "    output blocked: $w1 lines written, $depth queued" >&2
	stop_agent
	kill "$reader" 2>/dev/null
	wait "$reader" 2>/dev/null
	expect_eq "exit status" "$STOP_RC" 0 || return 1
	local limit
	limit=$(stop_limit_ms)
	[ "$STOP_MS" -lt "$limit" ] || { fail "took $STOP_MS ms with a stalled reader (limit $limit)"; return 1; }
	grep -q 'output blocked at the shutdown deadline' "$WORK/stderr" ||
		{ fail "no warning about the abandoned output"; return 1; }
}

run_case "/metrics passes promtool and has self metrics" case_metrics_promtool
run_case "/healthz, /readyz, 404, 405" case_health_ready
run_case "/healthz answers 503 while the capture loop is stuck in one round" case_health_stalled_loop
run_case "SIGTERM: exit 0 within 2 s (plus the kernel's uprobe teardown), programs detached" case_sigterm_fast
run_case "SIGINT: exit 0 within the same bound, programs detached" case_sigint
run_case "stalled stdout reader: still exits within 2 s" case_stalled_output
run_case "default run: NDJSON on stdout, metrics on :9464" case_default_run
finish
