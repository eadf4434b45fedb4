#!/usr/bin/env bash
# Least privilege: after start the agent keeps exactly the capabilities the
# enabled sources need at run time (docs/deployment.md#capabilities), in
# every thread; what it does after the drop still works (exec signals, map
# reads for /metrics, a TLS library probed after the drop); it starts as an
# unprivileged user holding only the documented start set; and it refuses a
# world-writable configuration file or spool directory.
. "$(dirname "$0")/lib.sh"

# Capability numbers (linux/capability.h).
CAP_DAC_READ_SEARCH=2 CAP_SYS_PTRACE=19 CAP_SYS_ADMIN=21 CAP_PERFMON=38 CAP_BPF=39
mask() { local m=0 c; for c in "$@"; do m=$((m | (1 << c))); done; printf '%016x' "$m"; }
FULL_RUNTIME=$(mask $CAP_BPF $CAP_PERFMON $CAP_SYS_ADMIN $CAP_SYS_PTRACE $CAP_DAC_READ_SEARCH)

# thread_caps PID: "TID CAPEFF" for every thread.
thread_caps() {
	local t
	for t in /proc/"$1"/task/*; do
		echo "${t##*/} $(awk '/^CapEff:/ { print $2 }' "$t/status")"
	done
}

# expect_all_threads PID MASK: the main thread and every other one.
expect_all_threads() {
	local bad
	expect_eq "main thread CapEff" "$(awk '/^CapEff:/ { print $2 }' "/proc/$1/status")" "$2" || return 1
	bad=$(thread_caps "$1" | awk -v m="$2" '$2 != m')
	[ -z "$bad" ] || { fail "threads with other capabilities: $bad"; return 1; }
	[ "$(thread_caps "$1" | wc -l)" -gt 3 ] || { fail "expected a multi-threaded agent"; return 1; }
}

# Defaults (exec, network with L7 and TLS, profiling, host): the runtime set
# is CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN (uprobe perf events, for TLS),
# CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH.
case_root_drops() {
	require_root || return
	command -v openssl >/dev/null || { fail "openssl missing (scripts/deps.sh test)"; return 1; }
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	expect_all_threads "$AGENT_PID" "$FULL_RUNTIME" || return 1
	grep -q 'capabilities after start: CAP_DAC_READ_SEARCH,CAP_SYS_PTRACE,CAP_SYS_ADMIN,CAP_PERFMON,CAP_BPF (every other one dropped from every thread, the bounding set cut to them, no_new_privs and securebits locked); kept: CAP_BPF for agent (.*); CAP_SYS_ADMIN for network.tls (.*); CAP_SYS_PTRACE for ' "$WORK/stderr" ||
		{ fail "no capability line: $(grep capabilities "$WORK/stderr")"; return 1; }
	# The drop is locked in every thread: uid 0 exec'ing anything (a parser
	# bug's shell) gains nothing back (no_new_privs, the bounding set; the
	# securebits are not in status, enav_privileges_locked checks them).
	local t bad=
	for t in /proc/$AGENT_PID/task/*; do
		awk -v want="$FULL_RUNTIME" '/^NoNewPrivs:/ { n = $2 } /^CapBnd:/ { b = $2 }
			END { exit !(n == 1 && b == want) }' "$t/status" || bad="$bad ${t##*/}"
	done
	[ -z "$bad" ] || { fail "threads without no_new_privs or with a wider bounding set:$bad"; return 1; }
	# After the drop: exec signals, map reads (kernel counters on /metrics).
	/bin/true &
	local tpid=$!
	wait $tpid
	wait_for_line ".kind == \"process.exec\" and .process.pid == $tpid" >/dev/null ||
		{ fail "no exec signal after the drop"; return 1; }
	[ "$(metric 'enav_kernel_events_total{source="exec",transport="ringbuf",category="emitted"}')" -gt 0 ] ||
		{ fail "kernel counters unreadable after the drop"; return 1; }
	# A TLS library first mapped after the drop is still probed: the runtime
	# set is enough to attach uprobes and read other processes' maps.
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/key.pem" -out "$WORK/cert.pem" \
		-days 1 -subj /CN=localhost >/dev/null 2>&1
	openssl s_server -quiet -accept 127.0.0.1:18447 -cert "$WORK/cert.pem" -key "$WORK/key.pem" -www \
		>/dev/null 2>&1 &
	local spid=$!
	local lib i probed=
	for ((i = 0; i < $(scaled 30); i++)); do
		lib=$(awk '$6 ~ /\/libssl\.so/ { print $6; exit }' "/proc/$spid/maps" 2>/dev/null)
		[ -n "$lib" ] && break
		sleep 0.1
	done
	# Asserted on what was read while the server (the only process known
	# to map the library) was alive: once it exits, the agent may detach.
	if [ -n "$lib" ]; then
		for ((i = 0; i < $(scaled 100); i++)); do
			probed=$(metric "enav_tls_probed_binary{library=\"openssl\",binary=\"$lib\"}")
			[ "$probed" = 1 ] && break
			kill -0 $spid 2>/dev/null || break
			sleep 0.1
		done
		kill -0 $spid 2>/dev/null || probed="$probed (openssl s_server exited)"
	fi
	kill $spid 2>/dev/null
	wait $spid 2>/dev/null
	[ -n "$lib" ] || { fail "openssl s_server maps no libssl.so"; return 1; }
	expect_eq "libssl probed after the drop, server alive" "$probed" 1 || return 1
	expect_eq "no attach failure" "$(metric 'enav_tls_attach_failures_total{library="openssl"}')" 0 || return 1
	# The probe names both sets for this configuration.
	"$ENAV" probe --skip-load-check --config "$WORK/cfg.yaml" >"$WORK/probe.out" 2>&1
	grep -q '^caps_after_start .*CAP_DAC_READ_SEARCH,CAP_SYS_PTRACE,CAP_SYS_ADMIN,CAP_PERFMON,CAP_BPF$' "$WORK/probe.out" ||
		{ fail "probe: $(grep caps_ "$WORK/probe.out")"; return 1; }
	grep -q '^caps_to_start .*CAP_DAC_READ_SEARCH,CAP_SYS_PTRACE,CAP_SYS_ADMIN,CAP_PERFMON,CAP_BPF$' "$WORK/probe.out" ||
		{ fail "probe: $(grep caps_ "$WORK/probe.out")"; return 1; }
}

# TLS off: nothing is attached after start, so CAP_SYS_ADMIN and CAP_PERFMON go.
case_tls_off() {
	require_root || return
	write_config "$WORK/cfg.yaml" "sources:" "  network:" "    tls:" "      enabled: false"
	start_agent "$WORK/cfg.yaml" || return 1
	expect_all_threads "$AGENT_PID" "$(mask $CAP_BPF $CAP_SYS_PTRACE $CAP_DAC_READ_SEARCH)" || return 1
}

# Only the exec source: CAP_BPF (map reads) and CAP_DAC_READ_SEARCH (cgroup
# id -> path by open_by_handle_at) remain.
case_exec_only() {
	require_root || return
	write_config "$WORK/cfg.yaml" "profiling:" "  enabled: false" "host:" "  enabled: false" \
		"sources:" "  network:" "    enabled: false"
	start_agent "$WORK/cfg.yaml" || return 1
	expect_all_threads "$AGENT_PID" "$(mask $CAP_BPF $CAP_DAC_READ_SEARCH)" || return 1
	/bin/true &
	local tpid=$!
	wait $tpid
	wait_for_line ".kind == \"process.exec\" and .process.pid == $tpid" >/dev/null ||
		{ fail "no exec signal after the drop"; return 1; }
}

# An unprivileged user holding only the documented start set (ambient
# capabilities, as the systemd unit grants them), with the unit's
# LimitMEMLOCK=infinity: kernels before 5.11 charge BPF maps to
# RLIMIT_MEMLOCK, and without it the first map fails with EPERM (Debian
# 11's 5.10; packaging/systemd/enav.service, docs/deployment.md).
case_non_root() {
	require_root || return
	command -v setpriv >/dev/null || { fail "setpriv missing (util-linux)"; return 1; }
	local home=$WORK/nobody
	mkdir -p "$home" && chmod 711 "$WORK" && chown 65534:65534 "$home"
	{
		echo "log_level: info"
		echo "http:"
		echo "  listen: 127.0.0.1:$TEST_PORT"
		echo '  health_listen: ""'
		echo "exporters:"
		ndjson_every_signal "$home/signals.ndjson"
	} >"$home/cfg.yaml"
	chmod 644 "$home/cfg.yaml"
	local caps=+bpf,+perfmon,+sys_ptrace,+dac_read_search,+sys_admin
	local kver
	kver=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
	if [ "$kver" -lt 5011 ]; then
		# Without the unit's limit this kernel refuses the first map, and
		# the start says what to set.
		timeout "$(scaled 60)" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps="$caps" \
			--ambient-caps="$caps" --bounding-set=-all,"$caps" "$ENAV" run --config "$home/cfg.yaml" \
			>/dev/null 2>"$WORK/memlock.err" &&
			{ fail "started as nobody with a finite memlock limit on $(uname -r)"; return 1; }
		grep -q 'RLIMIT_MEMLOCK is finite: kernels before 5.11 charge BPF maps to it; start with LimitMEMLOCK=infinity' "$WORK/memlock.err" ||
			{ fail "the refused start does not name the memlock limit: $(tail -n 2 "$WORK/memlock.err")"; return 1; }
	fi
	# The unit's limit, where this root may raise it (a container's root may
	# lack CAP_SYS_RESOURCE; kernels from 5.11 on do not need it).
	local limit=()
	! prlimit --memlock=unlimited:unlimited true 2>/dev/null || limit=(prlimit --memlock=unlimited:unlimited)
	"${limit[@]}" setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps="$caps" --ambient-caps="$caps" \
		--bounding-set=-all,"$caps" "$ENAV" run --config "$home/cfg.yaml" >"$WORK/stdout" 2>"$WORK/stderr" &
	AGENT_PID=$!
	wait_ready "$AGENT_PID" "$TEST_PORT" 15 || { fail "not ready as nobody"; return 1; }
	local i
	expect_eq "agent uid" "$(awk '/^Uid:/ { print $2 }' "/proc/$AGENT_PID/status")" 65534 || return 1
	expect_all_threads "$AGENT_PID" "$FULL_RUNTIME" || return 1
	/bin/true &
	local tpid=$!
	wait $tpid
	for ((i = 0; i < $(scaled 100); i++)); do
		has_line "$home/signals.ndjson" ".kind == \"process.exec\" and .process.pid == $tpid" && break
		sleep 0.1
	done
	has_line "$home/signals.ndjson" ".kind == \"process.exec\" and .process.pid == $tpid" ||
		{ fail "no exec signal from the unprivileged agent"; return 1; }
	grep -q 'network source attached' "$WORK/stderr" || { fail "network source not attached as nobody"; return 1; }
}

case_world_writable() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	chmod 666 "$WORK/cfg.yaml"
	"$ENAV" run --config "$WORK/cfg.yaml" >/dev/null 2>"$WORK/err"
	local rc=$?
	expect_eq "exit code" "$rc" 2 || return 1
	grep -q "configuration file $WORK/cfg.yaml is writable by every user (mode 0666): refusing to run with it" "$WORK/err" ||
		{ fail "message: $(cat "$WORK/err")"; return 1; }
	chmod 600 "$WORK/cfg.yaml"
	mkdir -p "$WORK/spool"
	chmod 777 "$WORK/spool"
	write_config "$WORK/cfg2.yaml" "profiling:" "  spool:" "    dir: $WORK/spool"
	"$ENAV" run --config "$WORK/cfg2.yaml" >/dev/null 2>"$WORK/err"
	rc=$?
	expect_eq "exit code (spool)" "$rc" 2 || return 1
	grep -q "profiling.spool.dir $WORK/spool is writable by every user (mode 0777)" "$WORK/err" ||
		{ fail "message: $(cat "$WORK/err")"; return 1; }
}

trap cleanup EXIT
run_case "root: drops to the runtime set in every thread; exec, maps and TLS attach still work" case_root_drops
stop_agent
run_case "TLS off: CAP_SYS_ADMIN and CAP_PERFMON dropped too" case_tls_off
stop_agent
run_case "exec source only: CAP_BPF and CAP_DAC_READ_SEARCH after start" case_exec_only
stop_agent
run_case "unprivileged user with the documented start capabilities" case_non_root
stop_agent
run_case "world-writable configuration file or spool directory refused" case_world_writable
finish
