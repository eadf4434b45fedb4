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
	local execs
	execs=$(metric 'enav_source_events_total{source="exec",event="process_exec",transport="ringbuf"}')
	[ "$execs" -ge 1 ] || { fail "no exec events counted"; return 1; }
	local rss
	rss=$(metric enav_resident_memory_bytes)
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

case_sigterm_fast() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	stop_agent
	expect_eq "exit status after SIGTERM" "$STOP_RC" 0 || return 1
	local limit
	limit=$(stop_limit_ms)
	[ "$STOP_MS" -lt "$limit" ] || { fail "took $STOP_MS ms to exit (limit $limit)"; return 1; }
	# Every program detached: no enav program remains loaded.
	# Program release is deferred in the kernel (RCU); allow it a moment.
	local i
	for ((i = 0; i < 20; i++)); do
		bpftool prog show 2>/dev/null | grep -q 'enav_exec\|enav_exit' || return 0
		sleep 0.1
	done
	fail "programs still loaded 2 s after exit: $(bpftool prog show | grep enav_)"
}

case_sigint() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	kill -INT "$AGENT_PID"
	local rc=0
	wait "$AGENT_PID" || rc=$?
	AGENT_PID=
	expect_eq "exit status after SIGINT" "$rc" 0
}

# No config file at all: NDJSON on stdout and /metrics on 127.0.0.1:9464.
case_default_run() {
	require_root || return
	if curl -fs http://127.0.0.1:9464/healthz >/dev/null 2>&1; then
		fail "something already listens on 127.0.0.1:9464"
		return 1
	fi
	"$ENAV" run >"$WORK/stdout" 2>"$WORK/stderr" &
	AGENT_PID=$!
	local i
	for ((i = 0; i < 100; i++)); do
		curl -fs http://127.0.0.1:9464/readyz >/dev/null 2>&1 && break
		sleep 0.1
	done
	ENAV_TEST_LINGER_MS=100 "$HELPERS/exit_with" 0 default-run-marker
	sleep 0.5
	curl -fs http://127.0.0.1:9464/metrics | grep -q '^enav_build_info' ||
		{ fail "default /metrics not served"; return 1; }
	stop_agent
	expect_eq "exit status" "$STOP_RC" 0 || return 1
	has_line "$WORK/stdout" '.kind == "process.exec" and .process.argv[2] == "default-run-marker"' ||
		{ fail "marker exec not on stdout"; return 1; }
}

# A reader that stops reading must not hold shutdown past 2 s.
case_stalled_output() {
	require_root || return
	mkfifo "$WORK/fifo"
	sleep 60 <"$WORK/fifo" & # holds the read end open, never reads
	local reader=$!
	{
		echo "http:"
		echo "  listen: 127.0.0.1:$TEST_PORT"
	} >"$WORK/cfg.yaml"
	"$ENAV" run --config "$WORK/cfg.yaml" >"$WORK/fifo" 2>"$WORK/stderr" &
	AGENT_PID=$!
	local i
	for ((i = 0; i < 100; i++)); do
		curl -fs "http://127.0.0.1:$TEST_PORT/readyz" >/dev/null 2>&1 && break
		sleep 0.1
	done
	local cg
	cg=$(make_cgroup "enav-test.slice/stall.scope") || { fail "cannot create cgroup"; return 1; }
	# ~2000 lines of several hundred bytes: far past a 64 KiB pipe.
	"$HELPERS/exec_storm" "$cg" 1000 "$(readlink -f "$HELPERS/exit_with")" >/dev/null
	sleep 0.5
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
run_case "SIGTERM: exit 0 within 2 s (plus the kernel's uprobe teardown), programs detached" case_sigterm_fast
run_case "SIGINT: exit 0" case_sigint
run_case "stalled stdout reader: still exits within 2 s" case_stalled_output
run_case "default run: NDJSON on stdout, metrics on :9464" case_default_run
finish
