# The TLS prober's tenant files (src/features/network/tls/tls_attach.c,
# src/platform/tenant_file.h).  A tenant maps a copy of libssl.so.3 from a
# folder of its own, then, in its own mount namespace (`unshare -Urm`),
# mounts a tmpfs over that folder and puts something else at the library's
# name.  /proc/PID/maps still names the old path and inode:
#  - a FIFO: a prober that opens the path blocks in open() for ever (with
#    its lock held, so /metrics hangs too, and SIGTERM joins that thread);
#  - an absolute symlink to a file that exists only in the agent's mount
#    namespace: a lookup under /proc/PID/root resolves it against the
#    agent's root, and a prober attaching by path puts its breakpoints into
#    that other file, in every process that maps it.
# The prober must open the inode the maps line names (through
# /proc/PID/map_files, or under the process's root with RESOLVE_IN_ROOT and
# the inode checked) and attach through that descriptor.
#
# Shown to fail on the code before the fix with
#   ENAV=/path/to/old/enav TEST_PORT=... tests/integration/test_hostile_tenant.sh
# (FIFO: /metrics never answers and SIGTERM does not stop the agent; symlink:
# int3 bytes appear in the victim's libssl code).

TLS_SYS_LIBSSL=/usr/lib/x86_64-linux-gnu/libssl.so.3
TLS_PY=/usr/bin/python3
TLS_KILL=()

# Maps the library at $1 (ctypes), touches $2 when it is mapped, then sleeps.
TLS_MAPPER='import ctypes, sys, time
ctypes.CDLL(sys.argv[1])
open(sys.argv[2], "w").close()
time.sleep(3600)'

# The tenant, inside `unshare -Urm`: maps $dir/libssl.so.3, then hides the
# folder under a tmpfs and puts a FIFO or a symlink (to $target) at the name.
# Writes the mapper's pid to $state/pid when done.
# shellcheck disable=SC2016 # expanded by the tenant's shell
TLS_TENANT='dir=$1 state=$2 mode=$3 target=$4 py=$5 mapper=$6
echo $$ >"$state/sh"
"$py" -c "$mapper" "$dir/libssl.so.3" "$state/mapped" &
pid=$!
echo $pid >"$state/mapper"
i=0
while [ ! -e "$state/mapped" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -e "$state/mapped" ] || exit 1
mount -t tmpfs tenant "$dir" || exit 1
case $mode in
fifo) mkfifo "$dir/libssl.so.3" ;;
symlink) ln -s "$target" "$dir/libssl.so.3" ;;
esac
echo $pid >"$state/pid"
wait $pid'

tls_files_cleanup() {
	local p
	# An opener blocked on the FIFO (this case's old-code agent, or any
	# other agent on the node) is released by a writer; opening read-write
	# never blocks.  Once the tenant is gone nobody could reach the FIFO.
	if [ -n "${TLS_TENANT_PID:-}" ] && [ -p "/proc/$TLS_TENANT_PID/root$TLS_DIR/libssl.so.3" ]; then
		# shellcheck disable=SC2016 # $1 is the inner shell's
		timeout 2 sh -c 'exec 9<>"$1"; sleep 0.5' release "/proc/$TLS_TENANT_PID/root$TLS_DIR/libssl.so.3"
	fi
	for p in "${TLS_KILL[@]}"; do
		kill -KILL "$p" 2>/dev/null
	done
	TLS_KILL=()
	TLS_TENANT_PID=
}

# tls_tenant MODE [TARGET]: sets TLS_DIR (the library's folder as the tenant
# names it) and TLS_TENANT_PID (the process that maps the copy).
tls_tenant() {
	local base i p
	base=$(mktemp -d "$WORK/tls-tenant-$1.XXXXXX")
	mkdir -p "$base/lib" "$base/state"
	cp "$TLS_SYS_LIBSSL" "$base/lib/libssl.so.3"
	chown -R "$TENANT_UID:$TENANT_UID" "$base"
	TLS_DIR=$base/lib
	as_tenant unshare -Urm sh -c "$TLS_TENANT" tenant "$TLS_DIR" "$base/state" "$1" "${2:-}" \
		"$TLS_PY" "$TLS_MAPPER" >"$base/tenant.log" 2>&1 &
	TLS_KILL+=($!)
	for ((i = 0; i < 100; i++)); do
		[ -s "$base/state/pid" ] && break
		sleep 0.1
	done
	# $! is the subshell of as_tenant: the tenant's shell and its mapper
	# are killed by their own pids, whatever happened to the setup.
	while read -r p; do
		TLS_KILL+=("$p")
	done < <(cat "$base/state/sh" "$base/state/mapper" 2>/dev/null)
	TLS_TENANT_PID=$(cat "$base/state/pid" 2>/dev/null)
	[ -n "$TLS_TENANT_PID" ] || { fail "tenant setup failed: $(cat "$base/tenant.log")"; return 1; }
	TLS_KILL+=("$TLS_TENANT_PID")
	# The attack's premise: maps names the old path, the tenant's namespace
	# shows something else there, the agent's shows the copy.
	grep -q " $TLS_DIR/libssl.so.3\$" "/proc/$TLS_TENANT_PID/maps" ||
		{ fail "the tenant does not map $TLS_DIR/libssl.so.3"; return 1; }
	[ -f "$TLS_DIR/libssl.so.3" ] || { fail "the copy is not visible to the agent"; return 1; }
	case $1 in
	fifo) [ -p "/proc/$TLS_TENANT_PID/root$TLS_DIR/libssl.so.3" ] ;;
	symlink) [ -L "/proc/$TLS_TENANT_PID/root$TLS_DIR/libssl.so.3" ] ;;
	esac || { fail "the tenant's namespace shows no $1 at the library's path"; return 1; }
}

tls_files_agent() {
	l7_config "$WORK/cfg.yaml" "sources:" "  network:" "    tls:" "      libraries: [openssl]" \
		"      scan_interval_ms: 1000"
	start_agent "$WORK/cfg.yaml"
}

# tls_metrics_answer: /metrics answers 200 within 5 s (http_get's bound).
tls_metrics_answer() {
	http_get "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics.now" ||
		{ fail "/metrics did not answer within 5 s"; return 1; }
}

# tls_wait_probed PATH: the maps line's file is probed, under its name.
tls_wait_probed() {
	local line="enav_tls_probed_binary{library=\"openssl\",binary=\"$1\"}" i
	for ((i = 0; i < $(scaled 100); i++)); do
		[ "$(metric "$line" 2>/dev/null)" = 1 ] && return 0
		sleep 0.1
	done
	fail "$1 not probed: $(grep -a 'tls:' "$WORK/stderr" | tail -3)"
}

# tls_stop_bounded: SIGTERM, and the agent gone within stop_limit_ms (the
# old code ignored it: SIGKILL then, so the suite goes on).
tls_stop_bounded() {
	local limit t0 i
	http_get "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics.final"
	# The README's bound natively; in an emulated guest (ENAV_TIME_SCALE)
	# the kernel's uprobe teardown alone is slower, and what the case
	# proves there is that SIGTERM stops an agent a FIFO would have frozen.
	limit=$(($(stop_limit_ms) * TIME_SCALE))
	t0=$(date +%s%N)
	kill -TERM "$AGENT_PID" 2>/dev/null
	for ((i = 0; i < limit / 50 + 20; i++)); do
		kill -0 "$AGENT_PID" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$AGENT_PID" 2>/dev/null; then
		kill -KILL "$AGENT_PID"
		wait "$AGENT_PID" 2>/dev/null
		AGENT_PID=
		fail "SIGTERM did not stop the agent within $limit ms (killed)"
		return 1
	fi
	wait "$AGENT_PID" 2>/dev/null
	STOP_MS=$((($(date +%s%N) - t0) / 1000000))
	AGENT_PID=
	echo "    stopped in $STOP_MS ms (limit $limit ms)" >&2
	[ "$STOP_MS" -le "$limit" ] || { fail "stopping took $STOP_MS ms, over $limit ms"; return 1; }
}

# A FIFO at the library's path: nothing blocks, /metrics answers, the file
# probed is the inode the maps line names, SIGTERM stops the agent.
case_tls_fifo_at_library_path() {
	tls_tenant fifo || { tls_files_cleanup; return 1; }
	local rc=0
	tls_files_agent || rc=1
	[ $rc = 0 ] && { tls_metrics_answer || rc=1; }
	[ $rc = 0 ] && { tls_wait_probed "$TLS_DIR/libssl.so.3" || rc=1; }
	[ $rc = 0 ] && { tls_metrics_answer || rc=1; }
	if [ -n "$AGENT_PID" ]; then
		tls_stop_bounded || rc=1
	fi
	[ $rc = 0 ] || grep -a "tls: " "$WORK/stderr" | tail -3 >&2
	tls_files_cleanup
	return $rc
}

# tls_text_changed PID FILE: bytes of FILE's executable mapping in PID's
# memory that differ from the file (a uprobe's int3 is one).
tls_text_changed() {
	"$TLS_PY" - "$1" "$2" <<'EOF'
import sys
pid, path = sys.argv[1], sys.argv[2]
changed = 0
found = False
with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb") as mem, open(path, "rb") as f:
    for line in maps:
        parts = line.split()
        if len(parts) < 6 or parts[5] != path or "x" not in parts[1]:
            continue
        found = True
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        mem.seek(lo)
        live = mem.read(hi - lo)
        f.seek(int(parts[2], 16))
        disk = f.read(hi - lo)
        n = min(len(live), len(disk))
        changed += sum(1 for a, b in zip(live[:n], disk[:n]) if a != b)
print(changed if found else "unmapped")
EOF
}

# An absolute symlink at the library's path, to a file only the agent's
# namespace has (a victim's copy of libssl, mapped under a name the agent
# never probes on its own): no breakpoint lands in the victim's code.
case_tls_symlink_out_of_root() {
	local victim vpid before during after others rc=0
	victim=$(mktemp -d /tmp/enav-victim-XXXXXX)
	cp "$TLS_SYS_LIBSSL" "$victim/libvictim.so"
	"$TLS_PY" -c "$TLS_MAPPER" "$victim/libvictim.so" "$victim/mapped" &
	vpid=$!
	TLS_KILL+=("$vpid")
	for ((i = 0; i < 100; i++)); do
		[ -e "$victim/mapped" ] && break
		sleep 0.1
	done
	before=$(tls_text_changed "$vpid" "$victim/libvictim.so")
	[ "$before" = 0 ] || { fail "victim's code before the agent: $before"; rc=1; }
	[ $rc = 0 ] && { tls_tenant symlink "$victim/libvictim.so" || rc=1; }
	[ $rc = 0 ] && { tls_files_agent || rc=1; }
	[ $rc = 0 ] && { tls_metrics_answer || rc=1; }
	# The tenant's own copy (the inode its maps line names) is probed; the
	# old code probed through the symlink instead.
	[ $rc = 0 ] && { tls_wait_probed "$TLS_DIR/libssl.so.3" || rc=1; }
	[ $rc = 0 ] && { sleep 1; during=$(tls_text_changed "$vpid" "$victim/libvictim.so"); }
	if [ -n "$AGENT_PID" ]; then
		tls_stop_bounded || rc=1
	fi
	if [ $rc = 0 ] && [ "$during" != 0 ]; then
		# Every agent on the node probes every process: another agent
		# running old code (a shared test machine) probes the tenant's
		# path too, through the symlink, into the victim.  Its int3s stay
		# when this agent stops; this agent's go with it.
		others=$(pgrep -x enav | tr '\n' ' ')
		after=$(tls_text_changed "$vpid" "$victim/libvictim.so")
		if [ -z "$others" ] || [ "$during" != "$after" ]; then
			fail "the victim's code changed while this agent ran: $during bytes, $after after it stopped (other agents: ${others:-none})"
			rc=1
		else
			echo "    note: $during victim bytes changed by other agents ($others), none by this one" >&2
		fi
	fi
	tls_files_cleanup
	rm -rf "$victim"
	return $rc
}

# tls_wait_refused REASON: enav_tls_files_refused_total{reason=REASON} > 0.
tls_wait_refused() {
	local v i
	for ((i = 0; i < $(scaled 100); i++)); do
		v=$(metric "enav_tls_files_refused_total{reason=\"$1\"}" 2>/dev/null)
		[ "${v:-0}" -gt 0 ] 2>/dev/null && return 0
		sleep 0.1
	done
	fail "no refusal counted as $1: $(grep -a 'tls:' "$WORK/stderr" | tail -3)"
}

# Without /proc/PID/map_files (an agent with neither CAP_SYS_ADMIN nor
# CAP_CHECKPOINT_RESTORE: the kernel refuses those links), the prober falls
# back to the path under the process's root (openat2 RESOLVE_IN_ROOT,
# O_NOFOLLOW): the FIFO and the symlink are refused, counted, and nothing
# blocks.  (Its uprobes then fail too, with EPERM, on this kernel: the
# refusal is what is asserted.)
tls_fallback_case() {
	local mode=$1 rc=0 saved=$ENAV target=
	printf '#!/bin/sh\nexec setpriv --bounding-set=-sys_admin,-checkpoint_restore -- %s "$@"\n' \
		"$(realpath "$ENAV")" >"$WORK/enav-no-map-files"
	chmod 755 "$WORK/enav-no-map-files"
	[ "$mode" = symlink ] && target=$TLS_SYS_LIBSSL
	tls_tenant "$mode" "$target" || { tls_files_cleanup; return 1; }
	ENAV=$WORK/enav-no-map-files
	tls_files_agent || rc=1
	ENAV=$saved
	[ $rc = 0 ] && { tls_metrics_answer || rc=1; }
	[ $rc = 0 ] && { tls_wait_refused not_regular || rc=1; }
	if [ $rc = 0 ] && grep -aq "tls: probing $TLS_DIR/" "$WORK/stderr"; then
		fail "probed through the tenant's path: $(grep -a "tls: probing $TLS_DIR/" "$WORK/stderr")"
		rc=1
	fi
	if [ -n "$AGENT_PID" ]; then
		tls_stop_bounded || rc=1
	fi
	tls_files_cleanup
	return $rc
}

case_tls_fifo_path_fallback() { tls_fallback_case fifo; }
case_tls_symlink_path_fallback() { tls_fallback_case symlink; }

run_case "TLS prober: a FIFO at a mapped library's path freezes nothing" case_tls_fifo_at_library_path
run_case "TLS prober: a symlink at a mapped library's path probes no other file" case_tls_symlink_out_of_root
run_case "TLS prober without map_files: a FIFO at the path is refused, nothing blocks" case_tls_fifo_path_fallback
run_case "TLS prober without map_files: a symlink at the path is refused" case_tls_symlink_path_fallback
