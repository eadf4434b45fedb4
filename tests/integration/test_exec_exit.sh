#!/usr/bin/env bash
# Exec and exit signals, field by field, for a process in a cgroup shaped like
# a containerd container of a burstable Kubernetes pod, over both transports.
. "$(dirname "$0")/lib.sh"

POD_UID=5f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b
CID=3e7a9c1d5b2f48a6e0c4d8b1f7a3e5c9d2b6f0a4c8e1d7b3f5a9c0e2d4b6f8a1
CG_REL=kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${POD_UID//-/_}.slice/cri-containerd-$CID.scope

exec_exit_case() {
	local transport=$1 hook=${2:-tp_btf}
	require_root || return
	local cg
	cg=$(make_cgroup "$CG_REL") || { fail "cannot create cgroup $CG_REL"; return 1; }
	local cgid
	cgid=$(stat -c %i "$cg")
	write_config "$WORK/cfg.yaml" "transport: $transport" "sources:" "  exec:" "    hook: $hook"
	start_agent "$WORK/cfg.yaml" || return 1

	local exe
	exe=$(readlink -f "$HELPERS/exit_with")
	# The subshell joins the cgroup, then becomes the workload via exec.
	(
		echo "$BASHPID" >"$cg/cgroup.procs"
		exec "$exe" 7 "two words" 'quote"back\slash'
	) &
	local pid=$!
	wait $pid
	local code=$?
	expect_eq "workload exit code" "$code" 7 || return 1

	local ex
	ex=$(wait_for_line ".kind == \"process.exec\" and .process.pid == $pid") ||
		{ fail "no exec signal for pid $pid"; return 1; }
	expect_eq "exec pid" "$(jq -r .process.pid <<<"$ex")" "$pid" || return 1
	expect_eq "exec tid" "$(jq -r .process.tid <<<"$ex")" "$pid" || return 1
	expect_eq "exec ppid" "$(jq -r .process.ppid <<<"$ex")" "$$" || return 1
	expect_eq "exec uid" "$(jq -r .process.uid <<<"$ex")" "$(id -u)" || return 1
	expect_eq "exec gid" "$(jq -r .process.gid <<<"$ex")" "$(id -g)" || return 1
	expect_eq "exec comm" "$(jq -r .process.comm <<<"$ex")" exit_with || return 1
	expect_eq "exec filename" "$(jq -r .process.filename <<<"$ex")" "$exe" || return 1
	expect_eq "exec exe" "$(jq -r .process.exe <<<"$ex")" "$exe" || return 1
	expect_eq "exec argv" "$(jq -c .process.argv <<<"$ex")" \
		"[\"$exe\",\"7\",\"two words\",\"quote\\\"back\\\\slash\"]" || return 1
	expect_eq "exec argv_truncated" "$(jq -r .process.argv_truncated <<<"$ex")" false || return 1
	expect_eq "exec schema" "$(jq -r .schema_version <<<"$ex")" 1 || return 1
	expect_eq "exec cgroup id" "$(jq -r .cgroup.id <<<"$ex")" "$cgid" || return 1
	expect_eq "exec cgroup path" "$(jq -r .cgroup.path <<<"$ex")" "/$CG_REL" || return 1
	expect_eq "exec container id" "$(jq -r .container.id <<<"$ex")" "$CID" || return 1
	expect_eq "exec runtime" "$(jq -r .container.runtime <<<"$ex")" containerd || return 1
	expect_eq "exec pod uid" "$(jq -r .k8s.pod_uid <<<"$ex")" "$POD_UID" || return 1
	expect_eq "exec qos" "$(jq -r .k8s.qos_class <<<"$ex")" burstable || return 1
	expect_eq "exec warnings" "$(jq -c '.warnings // []' <<<"$ex")" "[]" || return 1

	local et
	et=$(wait_for_line ".kind == \"process.exit\" and .process.pid == $pid") ||
		{ fail "no exit signal for pid $pid"; return 1; }
	expect_eq "exit code" "$(jq -r .exit.code <<<"$et")" 7 || return 1
	expect_eq "exit signal absent" "$(jq -r '.exit.signal // "none"' <<<"$et")" none || return 1
	expect_eq "exit ppid" "$(jq -r .process.ppid <<<"$et")" "$$" || return 1
	expect_eq "exit comm" "$(jq -r .process.comm <<<"$et")" exit_with || return 1
	expect_eq "exit exe (from the exec record)" "$(jq -r .process.exe <<<"$et")" "$exe" || return 1
	expect_eq "exit cgroup id" "$(jq -r .cgroup.id <<<"$et")" "$cgid" || return 1
	expect_eq "exit container id" "$(jq -r .container.id <<<"$et")" "$CID" || return 1
	expect_eq "exit pod uid" "$(jq -r .k8s.pod_uid <<<"$et")" "$POD_UID" || return 1
	expect_eq "exit start time = exec start time" "$(jq -r .process.start_time_unix_nano <<<"$et")" \
		"$(jq -r .process.start_time_unix_nano <<<"$ex")" || return 1
	local life
	life=$(jq -r .exit.lifetime_ns <<<"$et")
	[ "$life" -gt 0 ] && [ "$life" -lt 10000000000 ] || { fail "lifetime_ns $life out of (0, 10s)"; return 1; }

	# A process killed by a signal reports the signal, not a code.
	(
		echo "$BASHPID" >"$cg/cgroup.procs"
		exec "$exe" signal:9
	) &
	local kpid=$!
	wait $kpid 2>/dev/null
	et=$(wait_for_line ".kind == \"process.exit\" and .process.pid == $kpid") ||
		{ fail "no exit signal for killed pid $kpid"; return 1; }
	expect_eq "killed exit signal" "$(jq -r .exit.signal <<<"$et")" 9 || return 1
	expect_eq "killed exit code absent" "$(jq -r '.exit.code // "none"' <<<"$et")" none || return 1

	expect_eq "decode errors" "$(metric 'enav_source_decode_errors_total{source="exec",reason="bad_size"}')" 0 || return 1
	stop_agent
	expect_eq "agent exit status" "$STOP_RC" 0 || return 1
	expect_eq "hook and transport in log" "$(grep -c "exec source attached ($hook, $transport)" "$WORK/stderr")" 1
}

case_ringbuf() { exec_exit_case ringbuf; }
case_perf() { exec_exit_case perf; }
case_raw_tp() { exec_exit_case ringbuf raw_tp; }

# argv longer than the cap: exactly the cap is kept and the cut is flagged.
case_argv_cap() {
	require_root || return
	write_config "$WORK/cfg.yaml" "sources:" "  exec:" "    argv_max_bytes: 64"
	start_agent "$WORK/cfg.yaml" || return 1
	local exe long
	exe=$(readlink -f "$HELPERS/exit_with")
	long=$(printf 'a%.0s' $(seq 1 200))
	"$exe" 0 "$long" &
	local pid=$!
	wait $pid
	local ex
	ex=$(wait_for_line ".kind == \"process.exec\" and .process.pid == $pid") ||
		{ fail "no exec signal"; return 1; }
	expect_eq "argv_truncated" "$(jq -r .process.argv_truncated <<<"$ex")" true || return 1
	# 64 bytes = "exe\0" + "0\0" + the rest of the cap from the long argument.
	local bytes
	bytes=$(jq -r '.process.argv | map(length + 1) | add - 1' <<<"$ex")
	expect_eq "argv bytes kept" "$bytes" 64
}

# Hostile argv (control bytes, invalid UTF-8) still yields valid JSON lines.
case_hostile_argv() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	local exe
	exe=$(readlink -f "$HELPERS/exit_with")
	"$exe" 0 $'tab\there' $'nl\nx' $'\xff\xfe' $'esc\x1b[31m' &
	local pid=$!
	wait $pid
	local ex
	ex=$(wait_for_line ".kind == \"process.exec\" and .process.pid == $pid") ||
		{ fail "no exec signal"; return 1; }
	expect_eq "argv[2]" "$(jq -c '.process.argv[2]' <<<"$ex")" '"tab\there"' || return 1
	expect_eq "argv[3]" "$(jq -c '.process.argv[3]' <<<"$ex")" '"nl\nx"' || return 1
	expect_eq "argv[4]" "$(jq -c '.process.argv[4]' <<<"$ex")" '"��"' || return 1
	expect_eq "argv[5]" "$(jq -c '.process.argv[5]' <<<"$ex")" '"esc\u001b[31m"' || return 1
	# Every line in the file parses.
	jq -c . "$WORK/signals.ndjson" >/dev/null || { fail "a line is not JSON"; return 1; }
}

# The executable path is resolved in the kernel: through symlinks, for a
# process that exits at once, and refused (absent + warning) past the bounds.
case_exe_paths() {
	require_root || return
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	local real link deep toodeep
	real=$(readlink -f "$HELPERS/exit_with")
	link=$WORK/link-to-exit_with
	ln -s "$real" "$link"
	deep=$WORK$(printf '/d%02d' $(seq 1 20))
	mkdir -p "$deep" && cp "$real" "$deep/exit_with"
	toodeep=$WORK$(printf '/e%02d' $(seq 1 40))
	mkdir -p "$toodeep" && cp "$real" "$toodeep/exit_with"

	"$link" 0 & local p1=$!
	wait $p1
	"$deep/exit_with" 0 & local p2=$!
	wait $p2
	"$toodeep/exit_with" 0 & local p3=$!
	wait $p3
	local ex
	ex=$(wait_for_line ".kind == \"process.exec\" and .process.pid == $p1") || { fail "no exec for symlink"; return 1; }
	expect_eq "exe through symlink" "$(jq -r .process.exe <<<"$ex")" "$real" || return 1
	expect_eq "filename as executed" "$(jq -r .process.filename <<<"$ex")" "$link" || return 1
	ex=$(wait_for_line ".kind == \"process.exec\" and .process.pid == $p2") || { fail "no exec for deep"; return 1; }
	expect_eq "exe 20+ levels deep" "$(jq -r .process.exe <<<"$ex")" "$deep/exit_with" || return 1
	ex=$(wait_for_line ".kind == \"process.exec\" and .process.pid == $p3") || { fail "no exec for too deep"; return 1; }
	expect_eq "exe past the walk bound is absent" "$(jq -r '.process.exe // "absent"' <<<"$ex")" absent || return 1
	expect_eq "warning names why" "$(jq -c '.warnings' <<<"$ex")" \
		'[{"field":"exe","reason":"path_exceeds_kernel_walk_bounds"}]' || return 1
	local et
	et=$(wait_for_line ".kind == \"process.exit\" and .process.pid == $p3") || { fail "no exit for too deep"; return 1; }
	expect_eq "its exit has no exe either" "$(jq -r '.process.exe // "absent"' <<<"$et")" absent || return 1
	expect_eq "exit warning" "$(jq -c '.warnings' <<<"$et")" '[{"field":"exe","reason":"exe_unresolved_at_exec"}]'
}

run_case "exec/exit fields over ringbuf" case_ringbuf
run_case "exec/exit fields over perf buffer" case_perf
run_case "exec/exit fields with the raw_tp fallback programs" case_raw_tp
run_case "exe resolved in the kernel: symlink, depth, bound" case_exe_paths
run_case "argv cap and truncation flag" case_argv_cap
run_case "hostile argv stays valid JSON" case_hostile_argv
finish
