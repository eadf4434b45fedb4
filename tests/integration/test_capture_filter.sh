#!/usr/bin/env bash
# The in-kernel capture filter on this machine's real cgroups: allowlist and
# denylist verdicts, a new cgroup admitted through inotify, what the cgroup
# layout (hybrid or pure v2) proves, and no name string in any map the agent
# created.
. "$(dirname "$0")/lib.sh"

TOP=/enav-it-$$
cgrun_tree "$TOP"
EXE=$(readlink -f "$HELPERS/exit_with")

filtered() { metric 'enav_kernel_events_total{source="exec",transport="ringbuf",category="filtered"}'; }

# count_execs PIDS_CSV: exec signals for those pids.
count_execs() {
	local csv=$1
	jq -c "select(.kind == \"process.exec\" and ([.process.pid] | inside([$csv])))" \
		"$WORK/signals.ndjson" | wc -l
}

pids_of() { sed -n 's/^pids=//p' <<<"$1"; }

filter_config() { # filter_config MODE SELECTOR... (extra yaml via EXTRA)
	local mode=$1
	shift
	local lines=("capture:" "  mode: $mode" "  selectors:")
	local s
	for s in "$@"; do lines+=("    - \"$s\""); done
	write_config "$WORK/cfg.yaml" "${lines[@]}" ${EXTRA:+"${EXTRA[@]}"}
}

case_allowlist() {
	require_root || return
	local out_a out_b
	"$HELPERS/cgrun" -p -m "$TOP/allow/allowed" -- /bin/true >/dev/null &&
		"$HELPERS/cgrun" -p -m "$TOP/allow/other" -- /bin/true >/dev/null ||
		{ fail "cannot lay out cgroups"; return 1; }
	filter_config allowlist "cgroup:$TOP/allow/allowed"
	start_agent "$WORK/cfg.yaml" || return 1
	expect_eq "control word" "$(metric 'enav_capture_filter_mode{mode="unknown_deny"}')" 1 || return 1
	local f0
	f0=$(filtered)
	out_a=$("$HELPERS/cgrun" -p -n 5 "$TOP/allow/allowed" -- "$EXE" 0) || { fail "run allowed"; return 1; }
	out_b=$("$HELPERS/cgrun" -p -n 5 "$TOP/allow/other" -- "$EXE" 0) || { fail "run other"; return 1; }
	sleep 0.5
	local f1
	f1=$(filtered)
	stop_agent
	expect_eq "execs captured in the admitted cgroup" "$(count_execs "$(pids_of "$out_a")")" 5 || return 1
	expect_eq "execs captured in the other cgroup" "$(count_execs "$(pids_of "$out_b")")" 0 || return 1
	# 5 execs + 5 exits in "other" were suppressed in the kernel (plus whatever
	# else ran on the node meanwhile, which is also unproven or unselected).
	[ $((f1 - f0)) -ge 10 ] || { fail "filtered grew by $((f1 - f0)), want >= 10"; return 1; }
	echo "    kernel suppressed $((f1 - f0)) events while 10 came from the denied workload" >&2
}

case_denylist() {
	require_root || return
	local out_k out_d
	"$HELPERS/cgrun" -p -m "$TOP/deny/kept" -- /bin/true >/dev/null &&
		"$HELPERS/cgrun" -p -m "$TOP/deny/denied" -- /bin/true >/dev/null ||
		{ fail "cannot lay out cgroups"; return 1; }
	filter_config denylist "cgroup:$TOP/deny/denied"
	start_agent "$WORK/cfg.yaml" || return 1
	out_k=$("$HELPERS/cgrun" -p -n 5 "$TOP/deny/kept" -- "$EXE" 0) || { fail "run kept"; return 1; }
	out_d=$("$HELPERS/cgrun" -p -n 5 "$TOP/deny/denied" -- "$EXE" 0) || { fail "run denied"; return 1; }
	sleep 0.5
	stop_agent
	expect_eq "execs captured outside the denylist" "$(count_execs "$(pids_of "$out_k")")" 5 || return 1
	expect_eq "execs captured in the denied cgroup" "$(count_execs "$(pids_of "$out_d")")" 0
}

# A cgroup created after start gets its verdict from inotify before its first
# process execs: that very first exec is captured.
case_inotify_first_exec() {
	require_root || return
	filter_config allowlist "cgroup:$TOP/new/*"
	start_agent "$WORK/cfg.yaml" || return 1
	local out
	out=$("$HELPERS/cgrun" -p -m "$TOP/new/c1" -- "$EXE" 0) || { fail "cgrun failed"; return 1; }
	sleep 0.5
	stop_agent
	expect_eq "first exec in a brand-new cgroup" "$(count_execs "$(pids_of "$out")")" 1
}

# Without inotify (rescan every 60 s) the same first exec is not captured:
# the previous case passed because of inotify, not by luck.
case_rescan_only_misses() {
	require_root || return
	EXTRA=("discovery:" "  inotify: false" "  rescan_interval_ms: 60000")
	filter_config allowlist "cgroup:$TOP/slow/*"
	unset EXTRA
	start_agent "$WORK/cfg.yaml" || return 1
	local out
	out=$("$HELPERS/cgrun" -p -m "$TOP/slow/c1" -- "$EXE" 0) || { fail "cgrun failed"; return 1; }
	sleep 0.5
	stop_agent
	expect_eq "first exec without inotify" "$(count_execs "$(pids_of "$out")")" 0
}

# cgroup_layout: hybrid (cgroup v1 hierarchies beside a cgroup2 one), v2
# (/sys/fs/cgroup is cgroup2 and no v1 hierarchy is mounted), or other.
cgroup_layout() {
	local v1
	v1=$(awk '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == "cgroup") n++; break } } END { print n + 0 }' /proc/self/mountinfo)
	if [ "$v1" -gt 0 ] && [ -n "$(cgroup2_mount)" ]; then
		echo hybrid
	elif [ "$v1" -eq 0 ] && [ "$(stat -fc %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
		echo v2
	else
		echo "other ($v1 v1 hierarchies, /sys/fs/cgroup is $(stat -fc %T /sys/fs/cgroup 2>&1))"
	fi
}

# What a cgroup id proves depends on the layout, and so does the verdict on
# the same three workloads: "agree" (laid out in every hierarchy), "v2only"
# (only in cgroup2) and "differs" (laid out everywhere, but a member sits at
# the v1 roots).  Hybrid: admitted only where the cgroup2 path is the one
# every v1 hierarchy uses too; the others are denied with a warning naming
# the reason.  Pure v2: the cgroup2 path is the whole truth, so all three are
# admitted and nothing is denied.
case_layout_proof() {
	require_root || return
	local layout
	layout=$(cgroup_layout)
	case $layout in hybrid | v2) ;; *) skip "neither a hybrid nor a pure v2 cgroup layout: $layout"; return ;; esac
	EXTRA=("discovery:" "  rescan_interval_ms: 200")
	filter_config allowlist "cgroup:$TOP/hy/*"
	unset EXTRA
	start_agent "$WORK/cfg.yaml" || return 1
	local agree disagree
	agree=$("$HELPERS/cgrun" -p -m "$TOP/hy/agree" -- "$EXE" 0) || { fail "agree run"; return 1; }
	disagree=$("$HELPERS/cgrun" -m "$TOP/hy/v2only" -- "$EXE" 0) || { fail "v2only run"; return 1; }
	# Hybrid: laid out everywhere, but a member sits at the v1 roots: caught
	# by the membership check on the next rescan, then denied.
	"$HELPERS/cgrun" -p -m "$TOP/hy/differs" -- /bin/true >/dev/null
	"$HELPERS/cgrun" "$TOP/hy/differs" -- /bin/sleep 3 >/dev/null &
	local sleeper=$!
	sleep 0.8
	local differs
	differs=$("$HELPERS/cgrun" "$TOP/hy/differs" -- "$EXE" 0)
	wait $sleeper
	sleep 0.3
	stop_agent
	echo "    layout $layout: $(grep -o 'discovery: [a-z0-9]* layout[^,]*' "$WORK/stderr" | head -n1)" >&2
	grep -q "discovery: $layout layout," "$WORK/stderr" ||
		{ fail "agent does not report the $layout layout: $(grep 'discovery:' "$WORK/stderr" | head -n1)"; return 1; }
	expect_eq "proven workload captured" "$(count_execs "$(pids_of "$agree")")" 1 || return 1
	if [ "$layout" = hybrid ]; then
		expect_eq "cgroup2-only workload captured" "$(count_execs "$(pids_of "$disagree")")" 0 || return 1
		expect_eq "workload whose v1 paths differ captured" "$(count_execs "$(pids_of "$differs")")" 0 || return 1
		grep -q "denied cgroup $TOP/hy/v2only: hybrid_v1_directory_missing" "$WORK/stderr" ||
			{ fail "no warning for v2only"; return 1; }
		grep -q "denied cgroup $TOP/hy/differs: hybrid_v1_path_differs" "$WORK/stderr" ||
			{ fail "no warning for differs"; return 1; }
	else
		expect_eq "cgroup2-only workload captured (every cgroup is provable on v2)" \
			"$(count_execs "$(pids_of "$disagree")")" 1 || return 1
		expect_eq "third workload captured" "$(count_execs "$(pids_of "$differs")")" 1 || return 1
		! grep -q "denied cgroup" "$WORK/stderr" ||
			{ fail "a cgroup denied on pure v2: $(grep 'denied cgroup' "$WORK/stderr" | head -n2)"; return 1; }
	fi
}

# Every map the agent created holds ids and bytes only: no string it knows.
case_privacy() {
	require_root || return
	# The unwinder's row table is an array dumped whole, 150 bytes of text
	# per 8-byte row: its smallest size keeps the dump to what the strings
	# could be in (a million rows made 158 MB, minutes in an emulated guest).
	local EXTRA=("profiling:" "  unwind:" "    max_rows: 4096")
	filter_config allowlist "cgroup:$TOP/priv/selected-marker*" "namespace:secret-namespace-marker" \
		"label:team=secret-label-marker"
	start_agent "$WORK/cfg.yaml" || return 1
	"$HELPERS/cgrun" -p -m "$TOP/priv/selected-marker-1" -- /bin/true >/dev/null
	"$HELPERS/cgrun" -p -m "$TOP/priv/unselected-marker-2" -- /bin/true >/dev/null
	sleep 0.3
	local ids id dumped=0
	# Every BPF map the agent holds a descriptor for, from its fdinfo.
	ids=$(cat /proc/"$AGENT_PID"/fdinfo/* 2>/dev/null | awk '$1 == "map_id:" { print $2 }' | sort -un)
	[ -n "$ids" ] || { fail "found no maps of the agent's programs"; return 1; }
	: >"$WORK/maps.txt"
	for id in $ids; do
		local type
		type=$(bpftool map show id "$id" -j | jq -r .type)
		case "$type" in ringbuf | perf_event_array) continue ;; esac
		bpftool map dump id "$id" >>"$WORK/maps.txt" 2>/dev/null && dumped=$((dumped + 1))
	done
	stop_agent
	[ "$dumped" -ge 4 ] || { fail "dumped only $dumped maps"; return 1; }
	# bpftool prints maps with BTF as text and the rest as hex bytes: search
	# for every known string both ways.
	tr -s ' \n' ' ' <"$WORK/maps.txt" >"$WORK/maps.flat"
	hexof() { printf '%s' "$1" | od -An -tx1 | tr -s ' \n' ' ' | sed 's/^ //; s/ $//'; }
	# Positive control: the selected cgroup's id (little-endian u64 key) is in
	# the verdict map, so the dump and the search do see map contents.
	local id_hex
	id_hex=$(printf '%016x' "$(stat -c %i "$(cgroup2_mount)$TOP/priv/selected-marker-1")" |
		sed 's/../& /g' | awk '{ for (i = NF; i > 0; i--) printf "%s%s", $i, (i > 1 ? " " : "") }')
	grep -qi "$id_hex" "$WORK/maps.flat" || { fail "control: selected cgroup id $id_hex not in the dump"; return 1; }
	local s
	for s in selected-marker unselected-marker secret-namespace-marker secret-label-marker \
		"enav-it-$$" "team="; do
		if grep -qF -- "$s" "$WORK/maps.flat" || grep -qi -- "$(hexof "$s")" "$WORK/maps.flat"; then
			fail "string '$s' found in a kernel map"
			return 1
		fi
	done
	echo "    dumped $dumped maps ($(wc -c <"$WORK/maps.txt") bytes of text): no known string" >&2
}

run_case "allowlist: only admitted cgroups captured, the rest counted in the kernel" case_allowlist
run_case "denylist: listed cgroup suppressed, others captured" case_denylist
run_case "new cgroup admitted via inotify before its first exec" case_inotify_first_exec
run_case "rescan-only discovery misses that first exec (control)" case_rescan_only_misses
run_case "layout proof: hybrid denies v2-only and differing paths; pure v2 admits all three" case_layout_proof
run_case "privacy: no known string in any map the agent created" case_privacy
finish
