#!/usr/bin/env bash
# Command line: help, version, probe, configuration errors, missing privileges.
. "$(dirname "$0")/lib.sh"

case_help_version() {
	"$ENAV" --help | grep -q '^usage: enav' || { fail "--help has no usage line"; return 1; }
	"$ENAV" version | grep -Eq '^enav [0-9]+\.[0-9]+\.[0-9]+ ' || { fail "version line"; return 1; }
	"$ENAV" frobnicate 2>/dev/null
	expect_eq "unknown command exit" $? 2
}

case_probe() {
	require_root || return
	"$ENAV" probe >"$WORK/probe.txt" || { fail "probe exit $?: $(tail -1 "$WORK/probe.txt")"; return 1; }
	"$ENAV" probe --json >"$WORK/probe.json" || { fail "probe --json failed"; return 1; }
	jq -e . "$WORK/probe.json" >/dev/null || { fail "probe --json is not JSON"; return 1; }
	expect_eq "can_run" "$(jq -r .can_run "$WORK/probe.json")" true || return 1
	# Every capability row the foundation promises is present.
	local k
	for k in btf ring_buffer perf_buffer tracepoint raw_tracepoint btf_tracepoint fentry_fexit \
		kprobe uprobe perf_event_sampling tracefs; do
		jq -e ".capabilities.$k.status" "$WORK/probe.json" >/dev/null ||
			{ fail "probe lacks $k"; return 1; }
	done
	jq -e '.privileges.CAP_BPF != null and .privileges.CAP_PERFMON != null and
		.privileges.CAP_SYS_ADMIN != null and .privileges.CAP_SYS_PTRACE != null' \
		"$WORK/probe.json" >/dev/null || { fail "capability rows"; return 1; }
	# This machine: what auto picks must follow the probe rows.
	local rb fx
	rb=$(jq -r .capabilities.ring_buffer.status "$WORK/probe.json")
	fx=$(jq -r .capabilities.fentry_fexit.status "$WORK/probe.json")
	if [ "$rb" = yes ]; then
		expect_eq "auto transport" "$(jq -r .auto.transport "$WORK/probe.json")" ringbuf || return 1
	fi
	if [ "$fx" != yes ]; then
		expect_eq "auto hooks" "$(jq -r .auto.hooks "$WORK/probe.json")" tracepoint || return 1
	fi
	expect_eq "cgroup layout" "$(jq -r .cgroup.layout "$WORK/probe.json")" \
		"$(if grep -q ' - cgroup ' /proc/self/mountinfo; then echo hybrid; else echo v2; fi)"
}

# --skip-load-check: the same capabilities and auto choices as the full probe,
# the check named as skipped and no feature listed (the full probe lists them
# and names its check done), so a caller that reads only .auto or
# .capabilities gets the same answer without loading every source.
case_probe_skip_load_check() {
	require_root || return
	"$ENAV" probe --json >"$WORK/full.json" || { fail "probe --json failed"; return 1; }
	"$ENAV" probe --json --skip-load-check >"$WORK/quick.json" ||
		{ fail "probe --json --skip-load-check failed"; return 1; }
	expect_eq "full check" "$(jq -r '.load_check, (.features | length > 0)' "$WORK/full.json" | xargs)" \
		"done true" || return 1
	expect_eq "skipped check" "$(jq -r '.load_check, has("features")' "$WORK/quick.json" | xargs)" \
		"skipped false" || return 1
	expect_eq "same auto and capabilities" \
		"$(jq -cS '[.auto, (.capabilities | map_values(.status)), .can_run]' "$WORK/quick.json")" \
		"$(jq -cS '[.auto, (.capabilities | map_values(.status)), .can_run]' "$WORK/full.json")" || return 1
	"$ENAV" probe --skip-load-check >"$WORK/quick.txt" || { fail "text probe failed"; return 1; }
	grep -q '^load_check  *skipped ' "$WORK/quick.txt" || { fail "text: no skipped row"; return 1; }
	! grep -q '^network/' "$WORK/quick.txt" || { fail "text lists a feature it did not load"; return 1; }
	timeout 20 "$ENAV" run --skip-load-check >/dev/null 2>&1
	expect_eq "option is probe's alone" $? 2
}

# bad_config YAML EXPECTED_SUBSTRING: exit 2, exactly one line on stderr.
bad_config() {
	printf '%s\n' "$1" >"$WORK/bad.yaml"
	"$ENAV" run --config "$WORK/bad.yaml" >"$WORK/out" 2>"$WORK/err"
	local rc=$?
	expect_eq "exit code for [$1]" "$rc" 2 || return 1
	expect_eq "stderr lines for [$1]" "$(wc -l <"$WORK/err")" 1 || return 1
	grep -qF -- "$2" "$WORK/err" || { fail "stderr '$(cat "$WORK/err")' lacks '$2'"; return 1; }
}

case_bad_configs() {
	bad_config 'transport: udp' 'transport: "udp" is not allowed (allowed: auto, ringbuf, perf)' || return 1
	bad_config $'sources:\n  exec:\n    argv_max_bytes: 99999' 'sources.exec.argv_max_bytes' || return 1
	bad_config $'sources:\n  exec:\n    argv_max_bytes: 99999' '16..4096' || return 1
	bad_config 'no_such_key: 1' 'no_such_key: unknown key' || return 1
	bad_config $'http:\n  enabled: yes please' 'http.enabled: expected a boolean' || return 1
	bad_config $'kernel:\n  ring_buffer_bytes: 100000' 'kernel.ring_buffer_bytes' || return 1
	bad_config $'http:\n  listen: nowhere' 'http.listen' || return 1
	bad_config 'transport: "unterminated' 'YAML syntax error' || return 1
	bad_config $'otlp:\n  timeout_ms: 500\nexporters:\n  otlp:\n    endpoint: http://127.0.0.1:1' \
		'otlp and exporters.otlp are both set' || return 1
	"$ENAV" run --config "$WORK/does-not-exist.yaml" 2>"$WORK/err"
	expect_eq "missing file exit" $? 2 || return 1
	expect_eq "missing file lines" "$(wc -l <"$WORK/err")" 1
}

# Without CAP_BPF (and the CAP_SYS_ADMIN that implies it): one clear sentence.
case_no_cap_bpf() {
	require_root || return
	command -v capsh >/dev/null || { fail "capsh missing (libcap2-bin)"; return 1; }
	write_config "$WORK/cfg.yaml"
	capsh --drop=cap_bpf,cap_sys_admin,cap_perfmon -- -c \
		"exec $ENAV run --config $WORK/cfg.yaml" >"$WORK/out" 2>"$WORK/err"
	local rc=$?
	[ $rc -ne 0 ] || { fail "enav ran without CAP_BPF"; return 1; }
	expect_eq "stderr lines" "$(wc -l <"$WORK/err")" 1 || { cat "$WORK/err" >&2; return 1; }
	grep -q 'lacks CAP_BPF' "$WORK/err" || { fail "message: $(cat "$WORK/err")"; return 1; }
	! grep -qi libbpf "$WORK/err" || { fail "libbpf output leaked: $(cat "$WORK/err")"; return 1; }
}

run_case "help, version, unknown command" case_help_version
run_case "probe table and --json" case_probe
run_case "probe --skip-load-check: same auto, no feature claimed" case_probe_skip_load_check
run_case "bad configs exit 2 with one line" case_bad_configs
run_case "no CAP_BPF: one clear sentence" case_no_cap_bpf
finish
