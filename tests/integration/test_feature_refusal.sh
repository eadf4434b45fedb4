#!/usr/bin/env bash
# One program a kernel refuses switches off only what it belongs to.  The
# refusal is real: ENAV_TEST_REFUSE_PROGRAMS makes the agent load the named
# program as a socket filter, and this kernel's verifier rejects it.  Checked:
# the one warning line (feature, program, the verifier's last lines), the full
# log at debug level, /metrics and `enav probe`, the rest of the agent still
# capturing, and a start that fails by name when the file asked for the
# feature or the source.
. "$(dirname "$0")/lib.sh"

# The variant of the tracepoint programs this kernel loads (tp_btf or raw).
hook_suffix() {
	case $("$ENAV" probe --json --skip-load-check 2>/dev/null | jq -r .auto.exec_hook) in
	tp_btf) echo btf ;;
	raw_tp) echo raw ;;
	*) return 1 ;;
	esac
}

# Kernels without bpf_get_attach_cookie and the fexit helpers (Debian 11's
# 5.10): the probe's compat set, where Go TLS is refused by name before any
# program loads, and the OpenSSL/GnuTLS return program is enav_tls_compat_return.
compat_set() {
	"$ENAV" probe --json --skip-load-check 2>/dev/null | jq -e '.auto.payload_hook_reason | test("compat set")' >/dev/null
}
GO_NEEDS_COOKIE='Go TLS probes need bpf_get_attach_cookie (Linux 5.15+)'

# expect_start_fails CONFIG: enav run exits non-zero before it is ready.
expect_start_fails() {
	local rc=0
	timeout "$((${ENAV_READY_WAIT_S:-10} + 20))" "$ENAV" run --config "$1" >"$WORK/stdout" 2>"$WORK/stderr" ||
		rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 124 ] || { fail "enav run: exit $rc, want a refusal to start"; return 1; }
}

# curl_healthz_counted: curl the agent's own /healthz; the client's tcp.close
# must count more bytes received than the body.  Sets CURL_PID.
CURL_PID=
curl_healthz_counted() {
	curl -s -o "$WORK/healthz" "http://127.0.0.1:$TEST_PORT/healthz" &
	CURL_PID=$!
	wait $CURL_PID
	local cl
	cl=$(wait_for_line ".kind == \"tcp.close\" and .connection.role == \"client\" and .process.pid == $CURL_PID") ||
		{ fail "no tcp.close for curl $CURL_PID"; return 1; }
	[ "$(jq -r .connection.bytes_received <<<"$cl")" -gt "$(stat -c %s "$WORK/healthz")" ] ||
		{ fail "client bytes_received: $(jq -c .connection <<<"$cl")"; return 1; }
}

# A Go TLS program refused: go_tls off, OpenSSL/GnuTLS probes and TCP on.
case_feature_off() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	if compat_set; then
		go_tls_refused_by_name
		return
	fi
	ENAV_TEST_REFUSE_PROGRAMS=enav_go_tls_enter start_agent "$WORK/cfg.yaml" || return 1
	local lines
	lines=$(grep -c 'network: feature go_tls is off' "$WORK/stderr")
	expect_eq "warning lines" "$lines" 1 || return 1
	# The verifier's own words differ between kernels; its reason names the helper.
	grep -q 'network: feature go_tls is off: the kernel refused program enav_go_tls_enter: BPF program load failed: .* | .*bpf_get_attach_cookie' "$WORK/stderr" ||
		{ fail "warning: $(grep 'go_tls is off' "$WORK/stderr")"; return 1; }
	expect_eq "go_tls state" "$(metric 'enav_feature_enabled{source="network",feature="go_tls",state="verifier_refused"}')" 0 || return 1
	expect_eq "tls state" "$(metric 'enav_feature_enabled{source="network",feature="tls",state="on"}')" 1 || return 1
	expect_eq "payload state" "$(metric 'enav_feature_enabled{source="network",feature="payload_capture",state="on"}')" 1 || return 1
	# The rest of the source captures: a connection with exact bytes.
	curl_healthz_counted || return 1
	stop_agent
	expect_eq "exit status" "$STOP_RC" 0 || return 1
	# The probe loads the same programs and says the same.
	ENAV_TEST_REFUSE_PROGRAMS=enav_go_tls_enter "$ENAV" probe --json --config "$WORK/cfg.yaml" \
		>"$WORK/probe.json" 2>/dev/null
	expect_eq "probe go_tls" "$(jq -r '.features[] | select(.source == "network" and .feature == "go_tls") | .state + " " + .program' "$WORK/probe.json")" \
		"verifier_refused enav_go_tls_enter" || return 1
	expect_eq "probe tls" "$(jq -r '.features[] | select(.source == "network" and .feature == "tls") | .state' "$WORK/probe.json")" on || return 1
	# Without the fault, the probe shows the feature on: the check can tell.
	"$ENAV" probe --json --config "$WORK/cfg.yaml" >"$WORK/probe-clean.json" 2>/dev/null
	expect_eq "probe go_tls without the fault" "$(jq -r '.features[] | select(.feature == "go_tls") | .state' "$WORK/probe-clean.json")" on
}

# The compat set's kernels: go_tls off by name, once, before any load; the
# rest of the source on and capturing.
go_tls_refused_by_name() {
	start_agent "$WORK/cfg.yaml" || return 1
	expect_eq "warning lines" "$(grep -c "network: feature go_tls is off: $GO_NEEDS_COOKIE" "$WORK/stderr")" 1 || return 1
	expect_eq "go_tls state" "$(metric 'enav_feature_enabled{source="network",feature="go_tls",state="hook_missing"}')" 0 || return 1
	expect_eq "tls state" "$(metric 'enav_feature_enabled{source="network",feature="tls",state="on"}')" 1 || return 1
	expect_eq "payload state" "$(metric 'enav_feature_enabled{source="network",feature="payload_capture",state="on"}')" 1 || return 1
	curl_healthz_counted || return 1
	stop_agent
	expect_eq "exit status" "$STOP_RC" 0 || return 1
	"$ENAV" probe --json --config "$WORK/cfg.yaml" >"$WORK/probe.json" 2>/dev/null
	expect_eq "probe go_tls" "$(jq -r '.features[] | select(.source == "network" and .feature == "go_tls") | .state + " " + .detail' "$WORK/probe.json")" \
		"hook_missing $GO_NEEDS_COOKIE"
}

# The full verifier log stays available at debug level.
case_full_log_at_debug() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	sed -i 's/^log_level: info$/log_level: debug/' "$WORK/cfg.yaml"
	local prog=enav_go_tls_enter
	! compat_set || prog=enav_tls_compat_return
	ENAV_TEST_REFUSE_PROGRAMS=$prog start_agent "$WORK/cfg.yaml" || return 1
	stop_agent
	grep -q "debug: libbpf: prog '$prog': -- BEGIN PROG LOAD LOG --" "$WORK/stderr" ||
		{ fail "no verifier log at debug level"; return 1; }
	grep -q 'debug: libbpf: -- END PROG LOAD LOG --' "$WORK/stderr" || { fail "log not complete"; return 1; }
}

# The file asked for TLS: the same refusal stops the start, by name.
case_feature_asked_for() {
	require_root || return
	write_config "$WORK/cfg.yaml" "sources:" "  network:" "    tls:" "      enabled: true"
	if compat_set; then
		expect_start_fails "$WORK/cfg.yaml" || return 1
		grep -q "^enav: network feature go_tls: $GO_NEEDS_COOKIE (sources.network.tls.enabled is set in the configuration" "$WORK/stderr" ||
			{ fail "error: $(grep '^enav:' "$WORK/stderr")"; return 1; }
		return
	fi
	ENAV_TEST_REFUSE_PROGRAMS=enav_go_tls_enter expect_start_fails "$WORK/cfg.yaml" || return 1
	grep -q '^enav: network feature go_tls: the kernel refused program enav_go_tls_enter: .*(sources.network.tls.enabled is set in the configuration' "$WORK/stderr" ||
		{ fail "error: $(grep '^enav:' "$WORK/stderr")"; return 1; }
}

# A program outside every feature: the network source goes, exec stays.
case_source_off() {
	require_root || return
	local sfx
	sfx=$(hook_suffix) || { fail "probe names no exec hook"; return 1; }
	write_config "$WORK/cfg.yaml"
	ENAV_TEST_REFUSE_PROGRAMS=enav_tcp_state_$sfx start_agent "$WORK/cfg.yaml" || return 1
	grep -q "network source is off: network: the kernel refused program enav_tcp_state_$sfx" "$WORK/stderr" ||
		{ fail "warning: $(grep 'source is off' "$WORK/stderr")"; return 1; }
	# Never a wrong label: no feature is blamed for a core program's refusal
	# (a feature this kernel lacks a helper for is off by name before any
	# load: Go TLS on 5.10).
	if grep -q "feature .* is off: .*the kernel refused program" "$WORK/stderr"; then
		fail "a feature was blamed: $(grep 'is off' "$WORK/stderr")"
		return 1
	fi
	expect_eq "network state" "$(metric 'enav_feature_enabled{source="network",feature="all",state="verifier_refused"}')" 0 || return 1
	/bin/true refusal-marker &
	local tpid=$!
	wait $tpid
	wait_for_line ".kind == \"process.exec\" and .process.pid == $tpid" >/dev/null ||
		{ fail "no exec signal with the network source off"; return 1; }
	stop_agent
	expect_eq "exit status" "$STOP_RC" 0 || return 1
	[ "$(count_lines '.kind == "tcp.open" or .kind == "tcp.close"')" = 0 ] || { fail "tcp signals from a source that is off"; return 1; }
}

# The file asked for the network source: its refusal stops the start.
case_source_asked_for() {
	require_root || return
	local sfx
	sfx=$(hook_suffix) || { fail "probe names no exec hook"; return 1; }
	write_config "$WORK/cfg.yaml" "sources:" "  network:" "    enabled: true"
	ENAV_TEST_REFUSE_PROGRAMS=enav_tcp_state_$sfx expect_start_fails "$WORK/cfg.yaml" || return 1
	grep -q "^enav: network: the kernel refused program enav_tcp_state_$sfx" "$WORK/stderr" ||
		{ fail "error: $(grep '^enav:' "$WORK/stderr")"; return 1; }
}

# The payload code refused inside the socket-level programs, which also count
# bytes: payload_capture off by name, the same programs loaded again without
# that code, connections still counted exactly, and no span made.
case_payload_refused() {
	require_root || return
	local prog
	case $("$ENAV" probe --json --skip-load-check 2>/dev/null | jq -r .auto.payload_hook) in
	socket_tracepoints) prog=enav_sock_send_btf ;;
	fexit) prog=enav_tcp_send_fexit; ! compat_set || prog=enav_compat_tcp_send ;;
	sys_exit) prog=enav_sys_exit_$(hook_suffix) ;;
	*) fail "probe names no payload hook"; return 1 ;;
	esac
	write_config "$WORK/cfg.yaml"
	ENAV_TEST_REFUSE_PROGRAMS=$prog start_agent "$WORK/cfg.yaml" || return 1
	expect_eq "warning lines" \
		"$(grep -c "network: feature payload_capture is off: the kernel refused program $prog" "$WORK/stderr")" 1 || return 1
	expect_eq "payload state" "$(metric 'enav_feature_enabled{source="network",feature="payload_capture",state="verifier_refused"}')" 0 || return 1
	curl_healthz_counted || return 1
	local cpid=$CURL_PID
	expect_eq "spans without payloads" "$(count_lines ".kind == \"span\" and .process.pid == $cpid")" 0 || return 1
	stop_agent
	# Control: the same request with the payload code loaded makes a span.
	start_agent "$WORK/cfg.yaml" || return 1
	curl -s -o "$WORK/healthz" "http://127.0.0.1:$TEST_PORT/healthz" &
	cpid=$!
	wait $cpid
	wait_for_line ".kind == \"span\" and .process.pid == $cpid" >/dev/null ||
		{ fail "no span for curl $cpid with payloads on"; return 1; }
}

# A source with a program table (profiling: src/runtime/bpf_program_table.h,
# the features named by their rows): the off-CPU program refused switches
# offcpu off by name; the unwinder refused inside the CPU sampler loads the
# sampler again without it; futex stays on.  Asked for in the file, the same
# off-CPU refusal stops the start, naming the key the table's member is.
case_table_features() {
	require_root || return
	local sfx
	sfx=$(hook_suffix) || { fail "probe names no exec hook"; return 1; }
	write_config "$WORK/cfg.yaml" "profiling:" "  enabled: true"
	ENAV_TEST_REFUSE_PROGRAMS=enav_offcpu_switch_$sfx,enav_cpu_sample start_agent "$WORK/cfg.yaml" || return 1
	expect_eq "offcpu warning lines" \
		"$(grep -c "profiling: feature offcpu is off: the kernel refused program enav_offcpu_switch_$sfx" "$WORK/stderr")" 1 || return 1
	expect_eq "unwinder warning lines" \
		"$(grep -c "profiling: feature unwind_eh_frame is off: the kernel refused program enav_cpu_sample" "$WORK/stderr")" 1 || return 1
	expect_eq "offcpu state" "$(metric 'enav_feature_enabled{source="profiling",feature="offcpu",state="verifier_refused"}')" 0 || return 1
	expect_eq "futex state" "$(metric 'enav_feature_enabled{source="profiling",feature="futex",state="on"}')" 1 || return 1
	stop_agent
	expect_eq "exit status" "$STOP_RC" 0 || return 1
	write_config "$WORK/cfg.yaml" "profiling:" "  enabled: true" "  offcpu:" "    enabled: true"
	ENAV_TEST_REFUSE_PROGRAMS=enav_offcpu_switch_$sfx expect_start_fails "$WORK/cfg.yaml" || return 1
	grep -q "^enav: profiling feature offcpu: the kernel refused program enav_offcpu_switch_$sfx: .*(profiling.offcpu.enabled is set in the configuration" "$WORK/stderr" ||
		{ fail "error: $(grep '^enav:' "$WORK/stderr")"; return 1; }
}

run_case "refused Go TLS program: go_tls off, named once, on /metrics and in probe" case_feature_off
run_case "refused payload code inside the socket programs: bytes still counted, no span" case_payload_refused
run_case "refused program: the whole verifier log at debug level" case_full_log_at_debug
run_case "refused program of a feature the file asked for: start fails by name" case_feature_asked_for
run_case "refused core program: network source off, exec still captured" case_source_off
run_case "refused core program of a source the file asked for: start fails" case_source_asked_for
run_case "refused programs of a table source: offcpu off by name, the sampler without the unwinder" case_table_features
finish
