#!/usr/bin/env bash
# Host resources: the agent against Debian's prometheus-node-exporter on the
# same machine at the same moment, and a real cgroup whose CPU and memory
# use is known.
. "$(dirname "$0")/lib.sh"

NE_PORT=${NE_PORT:-19100}
NE_PID=

start_node_exporter() {
	local ne
	ne=$(command -v prometheus-node-exporter || true)
	[ -n "$ne" ] || { fail "prometheus-node-exporter missing (scripts/deps.sh test)"; return 1; }
	"$ne" --web.listen-address="127.0.0.1:$NE_PORT" >"$WORK/ne.log" 2>&1 &
	NE_PID=$!
	local i
	for ((i = 0; i < 100; i++)); do
		curl -fs "http://127.0.0.1:$NE_PORT/metrics" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	fail "node_exporter did not start: $(tail -3 "$WORK/ne.log")"
}

stop_node_exporter() {
	[ -n "$NE_PID" ] && kill "$NE_PID" 2>/dev/null && wait "$NE_PID" 2>/dev/null
	NE_PID=
}

# value FILE SERIES: the sample value of an exact series line.
value() { awk -v s="$2" '$1 == s { print $2; exit }' "$1"; }

# close_enough WHAT A B ABS REL: |A-B| <= max(ABS, REL*|B|)
close_enough() {
	awk -v a="$2" -v b="$3" -v abs="$4" -v rel="$5" -v what="$1" 'BEGIN {
		if (a == "" || b == "") { printf "    %s: missing (agent %s, node_exporter %s)\n", what, a, b > "/dev/stderr"; exit 1 }
		d = a - b; if (d < 0) d = -d; t = rel * (b < 0 ? -b : b); if (t < abs) t = abs
		if (d > t) { printf "    %s: agent %s vs node_exporter %s (tolerance %s)\n", what, a, b, t > "/dev/stderr"; exit 1 }
	}'
}

case_matches_node_exporter() {
	require_root || return
	start_node_exporter || return 1
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	# Same moment: agent, node_exporter, agent; the agent's pair brackets it.
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/a1"
	curl -fs "http://127.0.0.1:$NE_PORT/metrics" >"$WORK/ne"
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/a2"
	stop_node_exporter
	promtool check metrics <"$WORK/a1" >"$WORK/promtool" 2>&1
	local rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 3 ] || { fail "promtool: $(head -3 "$WORK/promtool")"; return 1; }
	local bad=0 s
	# Families a node_exporter dashboard draws from: all present in the agent.
	for s in node_cpu_seconds_total node_load1 node_load5 node_load15 node_memory_MemTotal_bytes \
		node_memory_MemAvailable_bytes node_memory_MemFree_bytes node_memory_Buffers_bytes \
		node_memory_Cached_bytes node_memory_SwapTotal_bytes node_memory_SwapFree_bytes \
		node_disk_read_bytes_total node_disk_written_bytes_total node_disk_io_time_seconds_total \
		node_disk_reads_completed_total node_disk_writes_completed_total \
		node_filesystem_size_bytes node_filesystem_avail_bytes node_filesystem_free_bytes \
		node_filesystem_files node_filesystem_files_free node_network_receive_bytes_total \
		node_network_transmit_bytes_total node_network_receive_packets_total \
		node_network_receive_errs_total node_network_receive_drop_total \
		node_context_switches_total node_forks_total node_intr_total node_boot_time_seconds \
		node_procs_running node_procs_blocked node_filefd_allocated node_filefd_maximum \
		node_time_seconds node_uname_info node_os_info; do
		grep -q "^$s[{ ]" "$WORK/a1" || { echo "    agent lacks $s" >&2; bad=1; }
	done
	# Per-CPU, per-mode seconds within 2 s (the scrapes are ms apart; USER_HZ ticks).
	local series
	for series in $(grep -o '^node_cpu_seconds_total{[^}]*}' "$WORK/ne"); do
		close_enough "$series" "$(value "$WORK/a1" "$series")" "$(value "$WORK/ne" "$series")" 2 0 || bad=1
	done
	close_enough MemTotal "$(value "$WORK/a1" node_memory_MemTotal_bytes)" "$(value "$WORK/ne" node_memory_MemTotal_bytes)" 0 0 || bad=1
	close_enough MemAvailable "$(value "$WORK/a1" node_memory_MemAvailable_bytes)" "$(value "$WORK/ne" node_memory_MemAvailable_bytes)" 0 0.03 || bad=1
	close_enough load1 "$(value "$WORK/a1" node_load1)" "$(value "$WORK/ne" node_load1)" 0.5 0 || bad=1
	close_enough boot_time "$(value "$WORK/a1" node_boot_time_seconds)" "$(value "$WORK/ne" node_boot_time_seconds)" 1 0 || bad=1
	# Every disk and network series node_exporter reports, the agent reports too.
	for series in $(grep -oE '^node_(disk_(read|written)_bytes_total|disk_reads_completed_total|network_(receive|transmit)_(bytes|packets)_total)\{[^}]*\}' "$WORK/ne"); do
		close_enough "$series" "$(value "$WORK/a1" "$series")" "$(value "$WORK/ne" "$series")" 1048576 0.01 || bad=1
	done
	for series in $(grep -oE '^node_filesystem_(size|files)(_bytes)?\{[^}]*\}' "$WORK/ne"); do
		close_enough "$series" "$(value "$WORK/a1" "$series")" "$(value "$WORK/ne" "$series")" 0 0 || bad=1
	done
	[ $bad -eq 0 ] || { fail "disagreement with node_exporter (see above)"; return 1; }
	echo "    compared $(grep -c '^node_' "$WORK/ne") node_exporter series; all shared families agree" >&2
}

# A real container-shaped cgroup: 96 MiB resident and ~1.5 s of CPU must show.
case_cgroup_resources() {
	require_root || return
	local uid=7e8f9a0b-1c2d-4e3f-8a4b-5c6d7e8f9a0b
	local cid=cc11dd22ee33ff4400aa11bb22cc33dd44ee55ff6677889900aa11bb22cc33dd
	local pod=/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${uid//-/_}.slice
	cgrun_tree "$pod"
	"$HELPERS/cgrun" -p -m "$pod/cri-containerd-$cid.scope" -- /bin/true >/dev/null || { fail "cgroup"; return 1; }
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	"$HELPERS/cgrun" -p "$pod/cri-containerd-$cid.scope" -- "$HELPERS/burn" 96 1500 >/dev/null &
	local burner=$!
	sleep 1
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/during"
	wait $burner
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/after"
	local mem cpu
	mem=$(grep "^container_memory_usage_bytes{.*container_id=\"$cid\"" "$WORK/during" | awk '{ print $2 }')
	cpu=$(grep "^container_cpu_usage_seconds_total{.*container_id=\"$cid\"" "$WORK/after" | awk '{ print $2 }')
	echo "    container memory during the run: $mem bytes; CPU after: $cpu s" >&2
	[ -n "$mem" ] && awk -v m="$mem" 'BEGIN { exit !(m >= 96 * 1048576) }' ||
		{ fail "memory $mem < 96 MiB"; return 1; }
	[ -n "$cpu" ] && awk -v c="$cpu" 'BEGIN { exit !(c >= 1.2 && c < 10) }' ||
		{ fail "cpu $cpu not in [1.2, 10) s"; return 1; }
	grep -q "^container_cpu_usage_seconds_total{.*pod_uid=\"$uid\"" "$WORK/after" ||
		{ fail "no pod attribution on the container series"; return 1; }
}

trap 'stop_node_exporter; cleanup' EXIT
run_case "node metrics agree with prometheus-node-exporter at the same moment" case_matches_node_exporter
run_case "a real cgroup's CPU and memory appear with attribution" case_cgroup_resources
finish
