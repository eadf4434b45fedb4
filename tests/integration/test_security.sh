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

# A binary run from /tmp, /dev/shm or a memfd is reported; the same binary
# run from /var/lib is not.
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
	# A binary that never touches a filesystem: copied into a memfd and
	# executed through /proc/self/fd; the kernel names it /memfd:NAME.
	local p4
	p4=$(python3 - "$EXIT_WITH" <<'PY'
import os, sys
fd = os.memfd_create("dropper")
os.write(fd, open(sys.argv[1], "rb").read())
pid = os.fork()
if pid == 0:
    os.execve("/proc/self/fd/%d" % fd, ["dropper", "0"], {})
os.waitpid(pid, 0)
print(pid)
PY
	) || { fail "memfd exec"; return 1; }
	f=$(wait_for_line ".kind == \"security.finding\" and .process.pid == $p4") ||
		{ fail "no finding for the memfd exec"; return 1; }
	expect_eq "memfd exe" "$(jq -r .process.exe <<<"$f")" "/memfd:dropper" || return 1
	expect_eq "findings for the benign twin" "$(findings_for exec_from_writable_location "$p3")" 0 || return 1
	expect_eq "counted" "$(metric 'enav_security_findings_total{rule="exec_from_writable_location"}')" 3
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
	# The cut itself is reported, once (ADR 0019).
	expect_eq "rate-limit notices" \
		"$(count_lines '.kind == "security.finding" and .finding.rule == "findings_rate_limited" and (.finding.summary | contains("shell_from_network_service"))')" 1 || return 1
	local twin_findings
	twin_findings=$(jq -c --argjson p "$twin" 'select(.kind == "security.finding" and .finding.related_pid == $p)' \
		"$WORK/signals.ndjson" | wc -l)
	expect_eq "findings for the benign twin" "$twin_findings" 0
}

# A network service learns the ports it connects out to during its learning
# window; afterwards a new port is reported once (and learned), a known one
# never; a process that serves nothing is never judged.
case_new_outbound_port() {
	require_root || return
	write_config "$WORK/cfg.yaml" "security:" "  outbound_learning_ms: 1500"
	start_agent "$WORK/cfg.yaml" || return 1
	local svc_port=$((TEST_PORT + 14)) pa=$((TEST_PORT + 15)) pb=$((TEST_PORT + 16)) pc=$((TEST_PORT + 17))
	# Peers the service connects to.
	python3 - "$pa" "$pb" "$pc" >"$WORK/peers.out" 2>&1 <<'PY' &
import socket, sys, threading
def serve(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(16)
    while True:
        c, _ = s.accept()
        c.close()
for p in sys.argv[1:]:
    threading.Thread(target=serve, args=(int(p),), daemon=True).start()
print("listening", flush=True)
threading.Event().wait()
PY
	local peers=$!
	OUTBOUND_PIDS+=("$peers")
	# The service: named enav-svc, connects out on request.
	python3 - "$svc_port" >"$WORK/svc.out" 2>&1 <<'PY' &
import ctypes, socket, sys
ctypes.CDLL(None).prctl(15, b"enav-svc", 0, 0, 0)  # PR_SET_NAME
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
print("listening", flush=True)
c, _ = s.accept()
f = c.makefile("rwb")
for line in f:
    port = int(line.split()[1])
    socket.create_connection(("127.0.0.1", port)).close()
    f.write(b"ok\n")
    f.flush()
PY
	local svc=$! i
	OUTBOUND_PIDS+=("$svc")
	for ((i = 0; i < 50; i++)); do
		grep -q listening "$WORK/svc.out" && grep -q listening "$WORK/peers.out" && break
		sleep 0.1
	done
	# One client connection drives the service: A while learning, then
	# (after the window) A again, B twice.
	python3 - "$svc_port" "$pa" "$pb" >"$WORK/driver.out" 2>&1 <<'PY'
import socket, sys, time
c = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
f = c.makefile("rwb")
def ask(p):
    f.write(b"connect %d\n" % p); f.flush(); f.readline()
ask(int(sys.argv[2]))
time.sleep(2.5)
ask(int(sys.argv[2])); ask(int(sys.argv[3])); ask(int(sys.argv[3]))
print("done", flush=True)
PY
	grep -q done "$WORK/driver.out" || { fail "driver: $(cat "$WORK/driver.out")"; return 1; }
	# The benign twin: a process that serves nothing connects to a new port.
	python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()' "$pc" &
	local twin=$!
	wait $twin
	sleep 1
	local f
	f=$(wait_for_line ".kind == \"security.finding\" and .finding.rule == \"new_outbound_port\"") ||
		{ fail "no finding for the new outbound port"; return 1; }
	expect_eq "service" "$(jq -r '.process.pid' <<<"$f")" "$svc" || return 1
	expect_eq "port" "$(jq -r '.finding.related_port' <<<"$f")" "$pb" || return 1
	expect_eq "severity" "$(jq -r '.finding.severity' <<<"$f")" medium || return 1
	expect_eq "findings (B once; A learned; the twin never judged)" \
		"$(count_lines '.kind == "security.finding" and .finding.rule == "new_outbound_port"')" 1 || return 1
	[ "$(metric enav_security_baseline_learned_total)" -ge 1 ] || { fail "nothing learned"; return 1; }
}
# The service and its peers hold ports: stopped after the case, failed or not.
OUTBOUND_PIDS=()
stop_outbound() {
	[ ${#OUTBOUND_PIDS[@]} -eq 0 ] && return 0
	kill "${OUTBOUND_PIDS[@]}" 2>/dev/null
	wait "${OUTBOUND_PIDS[@]}" 2>/dev/null
	OUTBOUND_PIDS=()
}

# A setuid-root helper run by an unprivileged user becomes root: one
# process.cred_change signal and one finding.  Its plain twin is refused by
# the kernel (no change to report); root running the helper changes nothing.
case_credentials_to_root() {
	require_root || return
	command -v setpriv >/dev/null || { fail "setpriv missing (util-linux)"; return 1; }
	[ -x "$HELPERS/setuid_root" ] || { fail "helper missing: make helpers"; return 1; }
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	! grep -q 'enav_cred_.*not attached' "$WORK/stderr" ||
		{ fail "credential hooks not attached: $(grep enav_cred_ "$WORK/stderr" | head -2)"; return 1; }
	chmod 711 "$WORK"
	mkdir -p "$WORK/suid"
	chmod 755 "$WORK/suid"
	install -o root -g root -m 4755 "$HELPERS/setuid_root" "$WORK/suid/up"
	install -o root -g root -m 0755 "$HELPERS/setuid_root" "$WORK/suid/plain"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$WORK/suid/up" >"$WORK/up.out" 2>&1 &
	local p1=$!
	wait $p1
	setpriv --reuid=65534 --regid=65534 --clear-groups "$WORK/suid/plain" >"$WORK/plain.out" 2>&1 &
	local p2=$!
	wait $p2
	"$WORK/suid/up" >"$WORK/root.out" 2>&1 &
	local p3=$!
	wait $p3
	expect_eq "setuid helper as nobody" "$(cat "$WORK/up.out")" "root uid=0 euid=0" || return 1
	grep -q '^denied' "$WORK/plain.out" || { fail "plain copy: $(cat "$WORK/plain.out")"; return 1; }
	local c
	# setpriv itself (same pid, before it runs the helper) calls capset and
	# setresuid as root: seen, and not judged.
	c=$(wait_for_line ".kind == \"process.cred_change\" and .process.pid == $p1 and .process.comm == \"up\"") ||
		{ fail "no process.cred_change for the helper"; return 1; }
	expect_eq "credentials" "$(jq -r '[.process.uid, .credentials.euid, .credentials.syscall] | map(tostring) | join(" ")' <<<"$c")" "0 0 setuid" || return 1
	local f
	f=$(wait_for_line ".kind == \"security.finding\" and .finding.rule == \"credentials_to_root\"") ||
		{ fail "no credentials_to_root finding"; return 1; }
	expect_eq "finding about the helper" "$(jq -r .process.pid <<<"$f")" "$p1" || return 1
	expect_eq "evidence" "$(jq -r .finding.evidence_kind <<<"$f")" process.cred_change || return 1
	sleep 0.5
	expect_eq "findings (the helper only)" \
		"$(count_lines '.kind == "security.finding" and .finding.rule == "credentials_to_root"')" 1 || return 1
	expect_eq "no change reported for the refused call" \
		"$(count_lines ".kind == \"process.cred_change\" and .process.pid == $p2 and .process.comm == \"plain\"")" 0 || return 1
	expect_eq "root's own setuid(0) seen, not judged" \
		"$(count_lines ".kind == \"process.cred_change\" and .process.pid == $p3")" 1 || return 1
}

# A watched file opened by a program that is not an allowed reader is
# reported, through a symlink too (the kernel matches the inode, not the
# name) and after the file is replaced (the rescan follows the new inode);
# an allowed reader is seen and not judged; an unwatched twin is not seen.
case_secret_file_read() {
	require_root || return
	mkdir -p "$WORK/secrets"
	echo "s3cret" >"$WORK/secrets/token"
	echo "s3cret" >"$WORK/plain"
	ln -s "$WORK/secrets/token" "$WORK/alias"
	write_config "$WORK/cfg.yaml" \
		"sources:" "  file_open:" "    enabled: true" "    watch_paths: [\"$WORK/secrets/*\"]" \
		"    rescan_interval_ms: 500" \
		"security:" "  secret_file_readers: [\"/usr/bin/head\"]"
	# The source walks the fd table with the bpf_rdonly_cast kfunc (Linux
	# 6.2): a kernel without it (Debian 11's 5.10) refuses the source, which
	# the file asked for, so the start fails and names the kfunc
	# (docs/boundaries.md).
	command -v bpftool >/dev/null || { fail "bpftool missing"; return 1; }
	if ! bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep "FUNC 'bpf_rdonly_cast'" >/dev/null; then
		local rc=0
		timeout "$((${ENAV_READY_WAIT_S:-10} * 2 + 60))" "$ENAV" run --config "$WORK/cfg.yaml" \
			>"$WORK/stdout" 2>"$WORK/stderr" || rc=$?
		[ $rc -ne 0 ] && [ $rc -ne 124 ] || { fail "enav run: exit $rc, want a refusal to start"; return 1; }
		grep -q '^enav: file_open: this kernel lacks the bpf_rdonly_cast kfunc (Linux 6.2) the watched-file hook needs; set sources.file_open.enabled: false$' "$WORK/stderr" ||
			{ fail "refusal: $(grep '^enav:' "$WORK/stderr")"; return 1; }
		echo "    file_open refused by name: $(grep '^enav: file_open:' "$WORK/stderr")"
		return 0
	fi
	start_agent "$WORK/cfg.yaml" || return 1
	expect_eq "open hooks" "$(metric enav_file_open_hooks)" 3 || return 1
	expect_eq "watched files" "$(metric enav_file_open_watched_files)" 1 || return 1
	cat "$WORK/secrets/token" >/dev/null &
	local p1=$!
	wait $p1
	cat "$WORK/alias" >/dev/null &
	local p2=$!
	wait $p2
	head -c1 "$WORK/secrets/token" >/dev/null &
	local p3=$!
	wait $p3
	cat "$WORK/plain" >/dev/null &
	local p4=$!
	wait $p4
	local f
	f=$(wait_for_line ".kind == \"security.finding\" and .process.pid == $p1") ||
		{ fail "no finding for cat"; return 1; }
	expect_eq "rule" "$(jq -r .finding.rule <<<"$f")" secret_file_read || return 1
	expect_eq "path" "$(jq -r .file.path <<<"$f")" "$WORK/secrets/token" || return 1
	expect_eq "inode" "$(jq -r .file.inode <<<"$f")" "$(stat -c %i "$WORK/secrets/token")" || return 1
	expect_eq "access" "$(jq -r .file.access <<<"$f")" read || return 1
	expect_eq "exe" "$(jq -r .process.exe <<<"$f")" "$(readlink -f "$(command -v cat)")" || return 1
	wait_for_line ".kind == \"security.finding\" and .process.pid == $p2" >/dev/null ||
		{ fail "no finding for the open through a symlink"; return 1; }
	wait_for_line ".kind == \"file.open\" and .process.pid == $p3" >/dev/null ||
		{ fail "no file.open for the allowed reader"; return 1; }
	expect_eq "findings for the allowed reader" "$(findings_for secret_file_read "$p3")" 0 || return 1
	expect_eq "file.open for the unwatched twin" \
		"$(count_lines ".kind == \"file.open\" and .process.pid == $p4")" 0 || return 1
	# Replaced the way a rotated token is: a new inode behind the name.
	echo "rotated" >"$WORK/secrets/.new" && mv "$WORK/secrets/.new" "$WORK/secrets/token"
	sleep 1.2
	cat "$WORK/secrets/token" >/dev/null &
	local p5=$!
	wait $p5
	f=$(wait_for_line ".kind == \"security.finding\" and .process.pid == $p5") ||
		{ fail "no finding after the file was replaced"; return 1; }
	expect_eq "new inode" "$(jq -r .file.inode <<<"$f")" "$(stat -c %i "$WORK/secrets/token")" || return 1
	expect_eq "findings" "$(metric 'enav_security_findings_total{rule="secret_file_read"}')" 3
}

# In a container the node's filesystem is mounted somewhere (host_root):
# watched paths resolve inside it, and an absolute symlink on the node
# (var/run -> /run) stays inside it instead of reaching the agent's own /run.
case_secret_host_root() {
	require_root || return
	local name=enav-it-secret-$$ node=$WORK/node
	mkdir -p "$node/run" "$node/var"
	ln -s /run "$node/var/run"
	echo "node secret" >"$node/run/$name"
	echo "agent's own" >"/run/$name"
	write_config "$WORK/cfg.yaml" \
		"sources:" "  file_open:" "    enabled: true" "    watch_paths: [\"/var/run/$name\"]" \
		"    host_root: $node"
	start_agent "$WORK/cfg.yaml" || { rm -f "/run/$name"; return 1; }
	expect_eq "watched files" "$(metric enav_file_open_watched_files)" 1 || { rm -f "/run/$name"; return 1; }
	cat "$node/run/$name" >/dev/null &
	local p1=$!
	wait $p1
	cat "/run/$name" >/dev/null &
	local p2=$!
	wait $p2
	rm -f "/run/$name"
	local f
	f=$(wait_for_line ".kind == \"file.open\" and .process.pid == $p1") ||
		{ fail "no file.open for the file inside host_root"; return 1; }
	expect_eq "path as the node names it" "$(jq -r .file.path <<<"$f")" "/var/run/$name" || return 1
	expect_eq "inode" "$(jq -r .file.inode <<<"$f")" "$(stat -c %i "$node/run/$name")" || return 1
	sleep 0.5
	expect_eq "file.open for the agent's own /run" "$(count_lines ".kind == \"file.open\" and .process.pid == $p2")" 0
}

# A workload matched by a rule's exception selector gets no finding of that
# rule (counted); the same binary outside it does.
case_exceptions() {
	require_root || return
	local top=/enav-sec-exc-$$
	cgrun_tree "$top"
	write_config "$WORK/cfg.yaml" "security:" "  exceptions:" \
		"    exec_from_writable_location: [\"cgroup:$top/*\"]"
	start_agent "$WORK/cfg.yaml" || return 1
	local tmpdir
	tmpdir=$(mktemp -d /tmp/enav-sec.XXXXXX)
	cp "$EXIT_WITH" "$tmpdir/dropper"
	local out pin
	out=$("$HELPERS/cgrun" -m "$top/ci" -- "$tmpdir/dropper" 0) || { fail "cgrun: $out"; rm -rf "$tmpdir"; return 1; }
	pin=$(sed -n 's/^pids=//p' <<<"$out")
	"$tmpdir/dropper" 0 &
	local pout=$!
	wait $pout
	rm -rf "$tmpdir"
	wait_for_line ".kind == \"security.finding\" and .process.pid == $pout" >/dev/null ||
		{ fail "no finding outside the excepted cgroup"; return 1; }
	wait_for_line ".kind == \"process.exec\" and .process.pid == $pin" >/dev/null ||
		{ fail "no exec signal inside the excepted cgroup"; return 1; }
	sleep 0.5
	expect_eq "findings inside the excepted cgroup" "$(findings_for exec_from_writable_location "$pin")" 0 || return 1
	expect_eq "excepted" "$(metric 'enav_security_findings_excepted_total{rule="exec_from_writable_location"}')" 1
}

# Another process reading the agent's maps is seen and not judged; changing
# its capture filter (a verdict, the control word) or detaching one of its
# links is a finding naming that process, and the filter is put back.
case_agent_tampering() {
	require_root || return
	command -v bpftool >/dev/null || { fail "bpftool missing"; return 1; }
	write_config "$WORK/cfg.yaml" "security:" "  self_check_interval_ms: 500" \
		"  rate_limit_per_minute: 1000"
	start_agent "$WORK/cfg.yaml" || return 1
	expect_eq "bpf() hook" "$(metric enav_self_guard_hooks)" 1 || return 1
	local maps ver ct link
	maps=$(bpftool map show -j) || { fail "bpftool map show"; return 1; }
	ver=$(jq -r '[.[] | select(.name == "enav_cgroup_ver")][0].id' <<<"$maps")
	ct=$(jq -r '[.[] | select(.name == "enav_capture_ct")][0].id' <<<"$maps")
	[ "$ver" != null ] && [ "$ct" != null ] || { fail "filter maps not found"; return 1; }
	# Reading is not tampering.
	bpftool map dump id "$ver" >/dev/null &
	local reader=$!
	wait $reader
	wait_for_line ".kind == \"agent.bpf_access\" and .process.pid == $reader and .bpf.operation == \"map_get_fd_by_id\"" >/dev/null ||
		{ fail "no agent.bpf_access for the reader"; return 1; }
	bpftool map update id "$ver" key 7 7 7 7 0 0 0 0 value 1 >/dev/null &
	local writer=$!
	wait $writer
	bpftool map update id "$ct" key 0 0 0 0 value 2 0 0 0 >/dev/null &
	local blinder=$!
	wait $blinder
	local f
	f=$(wait_for_line ".kind == \"security.finding\" and .process.pid == $writer") ||
		{ fail "no finding for the verdict write"; return 1; }
	expect_eq "rule" "$(jq -r .finding.rule <<<"$f")" agent_tampering || return 1
	expect_eq "severity" "$(jq -r .finding.severity <<<"$f")" critical || return 1
	expect_eq "operation" "$(jq -r '[.bpf.operation, .bpf.object_name, (.bpf.object_id|tostring), (.bpf.result|tostring)] | join(" ")' <<<"$f")" \
		"map_update_elem enav_cgroup_ver $ver 0" || return 1
	expect_eq "exe" "$(jq -r .process.exe <<<"$f")" "$(readlink -f "$(command -v bpftool)")" || return 1
	wait_for_line ".kind == \"security.finding\" and .process.pid == $blinder" >/dev/null ||
		{ fail "no finding for the control word write"; return 1; }
	wait_for_line '.kind == "security.finding" and .bpf.detected_by == "integrity_check"' >/dev/null ||
		{ fail "no integrity-check finding"; return 1; }
	sleep 0.6
	expect_eq "foreign verdict removed" "$(bpftool map dump id "$ver" -j | jq '[.[] | select(.key == ["0x07","0x07","0x07","0x07","0x00","0x00","0x00","0x00"])] | length')" 0 || return 1
	expect_eq "control word restored" "$(bpftool map lookup id "$ct" key 0 0 0 0 -j | jq -r '.value | join(" ")')" "0x00 0x00 0x00 0x00" || return 1
	[ "$(metric enav_capture_filter_restored_total)" -ge 2 ] ||
		{ fail "restored: $(metric enav_capture_filter_restored_total)"; return 1; }
	# One of its links: the kernel refuses the detach; the attempt is reported.
	# Through cat: awk stops at the first file it cannot open, and the agent
	# closes descriptors between the glob and the read (135 of 2,000 reads
	# of a busy process's fdinfo came back empty that way).
	link=$(cat /proc/"$AGENT_PID"/fdinfo/* 2>/dev/null |
		awk '/^link_type:/ { t = $2 } /^link_id:/ && t == "raw_tracepoint" { print $2; exit }')
	[ -n "$link" ] || { fail "the agent holds no raw_tracepoint link"; return 1; }
	bpftool link detach id "$link" >/dev/null 2>&1 &
	local detacher=$!
	wait $detacher
	f=$(wait_for_line ".kind == \"security.finding\" and .process.pid == $detacher") ||
		{ fail "no finding for the detach attempt"; return 1; }
	expect_eq "detach" "$(jq -r '[.bpf.operation, .bpf.object_kind] | join(" ")' <<<"$f")" "link_detach link" || return 1
	expect_eq "findings for the reader" "$(findings_for agent_tampering "$reader")" 0
}

# Listing every map on the node reads all of the agent's: read-only reports
# stop at the per-minute limit and the rest are counted; a change after
# that is still reported.
case_agent_read_limit() {
	require_root || return
	command -v bpftool >/dev/null || { fail "bpftool missing"; return 1; }
	write_config "$WORK/cfg.yaml" "security:" "  rate_limit_per_minute: 5"
	start_agent "$WORK/cfg.yaml" || return 1
	local ver
	ver=$(bpftool map show -j | jq -r '[.[] | select(.name == "enav_cgroup_ver")][0].id')
	bpftool map show >/dev/null
	bpftool map update id "$ver" key 9 9 9 9 0 0 0 0 value 1 >/dev/null &
	local writer=$!
	wait $writer
	wait_for_line ".kind == \"security.finding\" and .process.pid == $writer" >/dev/null ||
		{ fail "no finding for the change after the limit"; return 1; }
	expect_eq "read accesses reported" "$(count_lines '.kind == "agent.bpf_access" and .bpf.modifies == false')" 5 || return 1
	[ "$(metric enav_self_guard_reads_suppressed_total)" -gt 20 ] ||
		{ fail "suppressed reads: $(metric enav_self_guard_reads_suppressed_total)"; return 1; }
}

run_case "security: exec from /tmp, /dev/shm and a memfd, not from /var/lib" case_exec_from_writable
run_case "security: a shell started by a network service; rate limit" case_shell_from_service
stop_agent
run_case "security: a network service connecting out to a port it did not learn" case_new_outbound_port
stop_outbound
stop_agent
run_case "security: a setuid-root helper run by nobody becomes root" case_credentials_to_root
run_case "security: a watched secret opened by an unexpected program" case_secret_file_read
run_case "security: watched paths resolve inside host_root" case_secret_host_root
run_case "security: an exception selector silences a rule for its workload" case_exceptions
run_case "security: another process changing the agent's BPF objects" case_agent_tampering
run_case "security: read-only accesses to the agent's objects are rate-limited" case_agent_read_limit
finish
