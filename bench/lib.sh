# Shared by the benchmarks: the nginx site of the request benchmarks, BPF run
# time helpers, the profiling-only agent config.
# Sourced, not executed.

# bench_nginx_site DIR LINE...: writes DIR/www/4k.bin (random bytes) and
# DIR/nginx.conf, a single-process nginx in the foreground with keep-alive
# connections that last, whose http block holds the given lines (server
# blocks, TLS settings).  Start it with: nginx -c DIR/nginx.conf &
bench_nginx_site() {
	local dir=$1 line
	shift
	mkdir -p "$dir/www"
	head -c 4096 /dev/urandom >"$dir/www/4k.bin"
	{
		cat <<CONF
daemon off;
master_process off;
user root;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 1024; }
http {
	access_log off;
	keepalive_requests 100000;
CONF
		for line in "$@"; do printf '\t%s\n' "$line"; done
		echo "}"
	} >"$dir/nginx.conf"
}

# bpf_progs PID...: one line per BPF program the processes hold (through a
# program or a link fd), whatever they loaded:
#   ID NAME HOOK RUN_CNT RUN_TIME_NS
# The counts grow only while kernel.bpf_stats_enabled is 1.  HOOK is the
# attach point in section form where the program's link names it
# (tp_btf/sys_exit, raw_tp/sys_exit, fexit/tcp_sendmsg), else the program
# type (kprobe, tracepoint, perf_event: the kernel's link info for those is
# not printed by bpftool 7.1, so a uprobe reads "kprobe").
bpf_progs() {
	local ids pid
	# An fd the process closes between the glob and the read fails that
	# cat; the fds still open are what count, so the failure is not one.
	ids=$(for pid in "$@"; do cat "/proc/$pid/fdinfo/"* 2>/dev/null || :; done |
		awk '$1 == "prog_id:" { print $2 }' | sort -un | paste -sd, -)
	[ -n "$ids" ] || return 0
	jq -rn --argjson ids "[$ids]" --slurpfile progs <(bpftool prog show --json) \
		--slurpfile links <(bpftool link show --json) '
		($links[0] | map({key: (.prog_id | tostring), value: .}) | from_entries) as $l
		| $progs[0][] | select(.id | IN($ids[]))
		| $l[.id | tostring] as $k
		| [.id, .name,
		   (if $k == null then .type
		    elif $k.type == "raw_tracepoint" then
		      (if .type == "tracing" then "tp_btf/" else "raw_tp/" end) + $k.tp_name
		    elif $k.type == "tracing" then
		      ($k.attach_type // "trace_unknown" | sub("^trace_"; "")) + "/btf#" +
		      ($k.target_obj_id | tostring) + ":" + ($k.target_btf_id | tostring)
		    else .type end),
		   (.run_cnt // 0), (.run_time_ns // 0)] | @tsv' | bpf_name_btf_targets
}

# fentry/fexit hooks name their function by BTF id: look the name up in a
# dump of that BTF object's functions, made once per boot and object.
bpf_name_btf_targets() {
	local id name hook cnt ns target obj names
	while IFS=$'\t' read -r id name hook cnt ns; do
		if [[ $hook == */btf#* ]]; then
			target=${hook#*/btf#} obj=${target%%:*}
			names=/tmp/enav-btf-funcs.$(cat /proc/sys/kernel/random/boot_id).$obj
			[ -s "$names" ] || bpftool btf dump id "$obj" format raw 2>/dev/null |
				awk '$2 == "FUNC" { gsub("\047", "", $3); print $1, $3 }' >"$names"
			hook=${hook%%/*}/$(awk -v want="[${target#*:}]" '$1 == want { print $2; exit }' "$names")
			[[ $hook != */ ]] || hook+=btf#$target
		fi
		printf '%s\t%s\t%s\t%s\t%s\n' "$id" "$name" "$hook" "$cnt" "$ns"
	done
}

# bpf_delta BEFORE AFTER: per program name and hook, what ran between two
# bpf_progs snapshots: "NAME HOOK RUNS RUN_TIME_NS" (programs of one name are
# summed; a program absent from BEFORE counts from zero).
bpf_delta() {
	awk -F'\t' 'NR == FNR { c[$1] = $4; t[$1] = $5; next }
		{ k = $2 "\t" $3; runs[k] += $4 - c[$1]; ns[k] += $5 - t[$1] }
		END { for (k in runs) printf "%s\t%.0f\t%.0f\n", k, runs[k], ns[k] }' "$1" "$2" | sort
}

# profiling_only_config PORT HZ: an agent config with only the profiling
# source (CPU, off-CPU and futex, the defaults) at HZ, its HTTP on PORT, and
# nothing written to stdout (bench/profile_overhead.sh, bench/unwind_cost.sh).
# Health stays on PORT (the default health listener's fixed port would collide
# with any other agent on the node).
profiling_only_config() {
	cat <<CFG
http:
  listen: 127.0.0.1:$1
  health_listen: ""
sources:
  exec:
    enabled: false
  network:
    enabled: false
host:
  enabled: false
exporters:
  ndjson:
    enabled: false
profiling:
  frequency_hz: $2
CFG
}
