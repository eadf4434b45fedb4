#!/usr/bin/env bash
# Security findings on real workloads: each rule fires on the workload that
# should trigger it, stays silent on a benign twin, and its rate limit holds
# under a storm.
. "$(dirname "$0")/lib.sh"

EXIT_WITH=$(readlink -f "$HELPERS/exit_with")

findings_for() { # findings_for RULE PID: count of findings of RULE about PID
	jq -c --arg r "$1" --argjson p "$2" \
		'select(.kind == "security.finding" and .finding.rule == $r and .process.pid == $p)' \
		"$WORK/signals.ndjson" 2>/dev/null | wc -l
}

# A binary run from /tmp or /dev/shm is reported; the same binary run from
# /var/lib is not.
case_exec_from_writable() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	local tmpdir shmdir
	tmpdir=$(mktemp -d /tmp/enav-sec.XXXXXX)
	shmdir=$(mktemp -d /dev/shm/enav-sec.XXXXXX)
	cp "$EXIT_WITH" "$tmpdir/dropper" && cp "$EXIT_WITH" "$shmdir/dropper"
	"$tmpdir/dropper" 0 &
	local p1=$!
	wait $p1
	"$shmdir/dropper" 0 &
	local p2=$!
	wait $p2
	# The twin runs from a directory that is not writable-location (the build
	# tree itself may be under /tmp when the checkout is).
	local safedir
	safedir=$(mktemp -d /var/lib/enav-sec.XXXXXX)
	cp "$EXIT_WITH" "$safedir/dropper"
	"$safedir/dropper" 0 &
	local p3=$!
	wait $p3
	rm -rf "$safedir"
	wait_for_line ".kind == \"process.exec\" and .process.pid == $p3" >/dev/null ||
		{ fail "no exec signal for the benign twin"; rm -rf "$tmpdir" "$shmdir"; return 1; }
	local f
	f=$(wait_for_line ".kind == \"security.finding\" and .process.pid == $p1") ||
		{ fail "no finding for $tmpdir/dropper"; rm -rf "$tmpdir" "$shmdir"; return 1; }
	rm -rf "$tmpdir" "$shmdir"
	expect_eq "rule" "$(jq -r .finding.rule <<<"$f")" exec_from_writable_location || return 1
	expect_eq "evidence" "$(jq -r .evidence <<<"$f")" inferred || return 1
	expect_eq "exe" "$(jq -r .process.exe <<<"$f")" "$tmpdir/dropper" || return 1
	expect_eq "severity" "$(jq -r .finding.severity <<<"$f")" high || return 1
	wait_for_line ".kind == \"security.finding\" and .process.pid == $p2" >/dev/null ||
		{ fail "no finding for /dev/shm"; return 1; }
	expect_eq "findings for the benign twin" "$(findings_for exec_from_writable_location "$p3")" 0 || return 1
	expect_eq "counted" "$(metric 'enav_security_findings_total{rule="exec_from_writable_location"}')" 2
}

# A process that served a TCP connection and then starts a shell is
# reported, with the service named; a process that never served does not.
# A storm of shells is cut at the rate limit and the rest counted.
case_shell_from_service() {
	require_root || return
	write_config "$WORK/cfg.yaml" "security:" "  rate_limit_per_minute: 5"
	start_agent "$WORK/cfg.yaml" || return 1
	local port=$((TEST_PORT + 13))
	# The service: accept one connection, answer it, then run 30 shells.
	python3 - "$port" >"$WORK/svc.out" 2>&1 <<'PY' &
import socket, subprocess, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
print("listening", flush=True)
c, _ = s.accept()
c.recv(64)
c.sendall(b"ok\n")
c.close()
time.sleep(0.5)  # the connection's signal first, then the shells
for _ in range(30):
    subprocess.run(["/bin/sh", "-c", "true"])
print("done", flush=True)
PY
	local svc=$! i
	for ((i = 0; i < 50; i++)); do
		grep -q listening "$WORK/svc.out" && break
		sleep 0.1
	done
	printf 'hello\n' | timeout 5 python3 -c 'import socket,sys; s=socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.sendall(b"hi"); s.recv(8)' "$port"
	wait $svc
	# The benign twin: a process that never served runs a shell.
	python3 -c 'import subprocess; subprocess.run(["/bin/sh", "-c", "true"])' &
	local twin=$!
	wait $twin
	sleep 1
	local f
	f=$(wait_for_line ".kind == \"security.finding\" and .finding.rule == \"shell_from_network_service\"") ||
		{ fail "no finding for the shell the service started: $(cat "$WORK/svc.out")"; return 1; }
	expect_eq "related pid" "$(jq -r .finding.related_pid <<<"$f")" "$svc" || return 1
	expect_eq "related port" "$(jq -r .finding.related_port <<<"$f")" "$port" || return 1
	expect_eq "exe" "$(jq -r .process.exe <<<"$f")" "$(readlink -f /bin/sh)" || return 1
	local n
	n=$(jq -c 'select(.kind == "security.finding" and .finding.rule == "shell_from_network_service")' \
		"$WORK/signals.ndjson" | wc -l)
	expect_eq "findings under the rate limit" "$n" 5 || return 1
	expect_eq "suppressed" "$(metric 'enav_security_findings_suppressed_total{rule="shell_from_network_service"}')" 25 || return 1
	local twin_findings
	twin_findings=$(jq -c --argjson p "$twin" 'select(.kind == "security.finding" and .finding.related_pid == $p)' \
		"$WORK/signals.ndjson" | wc -l)
	expect_eq "findings for the benign twin" "$twin_findings" 0
}

run_case "security: exec from /tmp and /dev/shm, not from /var/lib" case_exec_from_writable
run_case "security: a shell started by a network service; rate limit" case_shell_from_service
finish
