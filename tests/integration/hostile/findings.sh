# Security findings cannot be silenced in advance (docs/adr/0019-findings-budget.md).
# Sourced by test_hostile_tenant.sh.

# The tenant spends the exec_from_writable_location budget with harmless runs
# of a copy of /bin/true from /tmp (more than the per-minute budget), then
# runs its real payload from /tmp in the same workload: the payload's finding
# is still reported, and the exhausted budget itself shows as a
# findings_rate_limited finding.  (Keyed by rule and cgroup alone, the
# payload was suppressed: the tenant chose what the node never saw.)
case_findings_budget_spent_in_advance() {
	require_root || return
	write_config "$WORK/cfg.yaml" "profiling:" "  enabled: false"
	start_agent "$WORK/cfg.yaml" || return 1
	local dir
	dir=$(as_tenant mktemp -d /tmp/enav-hostile.XXXXXX) || { fail "tenant mktemp"; return 1; }
	as_tenant cp /bin/true "$dir/true" && as_tenant cp "$(readlink -f "$HELPERS/exit_with")" "$dir/dropper" ||
		{ fail "tenant copies"; rm -rf "$dir"; return 1; }
	# The tenant's workload: a cgroup of its own, as its container has (on a
	# test node everything else shares the root cgroup, and other tests'
	# runs from /tmp would spend the same budget).
	local top=/enav-hostile-findings-$$
	cgrun_tree "$top"
	# shellcheck disable=SC2016
	"$HELPERS/cgrun" -m "$top/tenant" -- "$(command -v setpriv)" --reuid=$TENANT_UID --regid=$TENANT_UID \
		--clear-groups --inh-caps=-all -- sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do "$1/true"; done
		"$1/dropper" 0 & echo $! >"$1/pid"; wait' sh "$dir" >"$WORK/tenant.out" 2>&1
	local payload
	payload=$(cat "$dir/pid" 2>/dev/null)
	case $payload in '' | *[!0-9]*) fail "tenant run: $(cat "$WORK/tenant.out")"; rm -rf "$dir"; return 1 ;; esac
	wait_for_line ".kind == \"process.exec\" and .process.pid == $payload" >/dev/null ||
		{ fail "no exec signal for the payload"; rm -rf "$dir"; return 1; }
	local f
	f=$(wait_for_line ".kind == \"security.finding\" and .finding.rule == \"exec_from_writable_location\" and .process.pid == $payload") ||
		{ fail "the payload's finding was suppressed: $(count_lines '.kind == "security.finding"') findings, suppressed $(metric 'enav_security_findings_suppressed_total{rule="exec_from_writable_location"}')"; rm -rf "$dir"; return 1; }
	expect_eq "payload exe" "$(jq -r .process.exe <<<"$f")" "$dir/dropper" || { rm -rf "$dir"; return 1; }
	rm -rf "$dir"
	wait_for_line '.kind == "security.finding" and .finding.rule == "findings_rate_limited"' >/dev/null ||
		{ fail "the exhausted budget was silent"; return 1; }
	expect_eq "findings for the harmless copy (its own budget)" \
		"$(count_lines ".kind == \"security.finding\" and .finding.rule == \"exec_from_writable_location\" and .process.exe == \"$dir/true\"")" 10
}

# An exception by a label the tenant sets on its own pods is refused at load.
case_findings_label_exception_refused() {
	write_config "$WORK/cfg.yaml" "security:" "  exceptions:" \
		"    exec_from_writable_location: [\"label:app=jenkins\"]"
	local out
	if out=$("$ENAV" check-config "$WORK/cfg.yaml" 2>&1); then
		fail "a label: exception was accepted: $out"
		return 1
	fi
	grep -q 'exception_label_prefixes' <<<"$out" || { fail "error does not say why: $out"; return 1; }
}

run_case "hostile: findings budget spent in advance by harmless runs" case_findings_budget_spent_in_advance
run_case "hostile: findings exception by a tenant-set label refused" case_findings_label_exception_refused
