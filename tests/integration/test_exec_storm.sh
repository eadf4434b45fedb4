#!/usr/bin/env bash
# Exec storm: N short execs from one cgroup.  Either nothing is lost, or every
# loss is accounted: signals received + losses counted == execs performed.
. "$(dirname "$0")/lib.sh"

# This machine forks and execs about 570 times a second with no agent (and the
# test budget is 20 minutes), so 8000 sequential execs take ~15 s per
# transport; STORM_N raises it for a longer storm.
STORM_N=${STORM_N:-8000}

kernel_counter() { # kernel_counter TRANSPORT CATEGORY
	metric "enav_kernel_events_total{source=\"exec\",transport=\"$1\",category=\"$2\"}"
}

storm_case() {
	local transport=$1
	require_root || return
	local cg cgid
	cg=$(make_cgroup "enav-test.slice/storm-$transport.scope") || { fail "cannot create cgroup"; return 1; }
	cgid=$(stat -c %i "$cg")
	write_config "$WORK/cfg.yaml" "exporters:" "    queue_capacity: 262144" "transport: $transport" \
		"kernel:" "  ring_buffer_bytes: 16777216" "  perf_buffer_pages: 256"
	start_agent "$WORK/cfg.yaml" || return 1

	local target t0 t1 done_n
	target=$(readlink -f "$HELPERS/exit_with")
	t0=$(date +%s%N)
	done_n=$("$HELPERS/exec_storm" "$cg" "$STORM_N" "$target") || { fail "storm failed: $done_n"; return 1; }
	t1=$(date +%s%N)
	expect_eq "execs performed" "$done_n" "$STORM_N" || return 1

	# Wait until the sink has written everything the kernel emitted.
	local i emitted written full lost qdrop
	for ((i = 0; i < 100; i++)); do
		emitted=$(kernel_counter "$transport" emitted)
		written=$(metric 'enav_sink_written_total{sink="ndjson"}')
		qdrop=$(metric 'enav_sink_dropped_total{sink="ndjson",reason="queue_full"}')
		lost=$(metric "enav_transport_lost_samples_total{source=\"exec\",transport=\"$transport\"}")
		[ "$((written + qdrop + lost))" -ge "$emitted" ] && break
		sleep 0.2
	done
	full=$(kernel_counter "$transport" transport_full)
	stop_agent
	expect_eq "agent exit status" "$STOP_RC" 0 || return 1

	local execs exits
	execs=$(jq -c "select(.kind == \"process.exec\" and .cgroup.id == $cgid and .process.filename == \"$target\")" \
		"$WORK/signals.ndjson" | wc -l)
	exits=$(jq -c "select(.kind == \"process.exit\" and .cgroup.id == $cgid and .process.comm == \"exit_with\")" \
		"$WORK/signals.ndjson" | wc -l)
	# On perf a full buffer is seen twice (the helper's error and the kernel's
	# lost record), so the larger of the two is the loss, not their sum.
	local transport_loss=$((full > lost ? full : lost))
	local losses=$((transport_loss + qdrop))
	local rate=$((STORM_N * 1000000000 / (t1 - t0)))
	echo "    $transport: $STORM_N execs at ${rate}/s; exec signals $execs, exit signals $exits;" \
		"kernel transport_full $full, perf lost $lost, sink queue_full $qdrop" >&2
	if [ "$losses" -eq 0 ]; then
		expect_eq "exec signals (no loss counted)" "$execs" "$STORM_N" || return 1
		expect_eq "exit signals (no loss counted)" "$exits" "$STORM_N" || return 1
	else
		# Losses are counted globally (any cgroup), so they bound from above.
		[ "$execs" -le "$STORM_N" ] && [ $((execs + exits + losses)) -ge $((2 * STORM_N)) ] ||
			{ fail "unaccounted: $execs + $exits + $losses < $((2 * STORM_N))"; return 1; }
	fi
}

case_ringbuf() { storm_case ringbuf; }

# Force loss (smallest ring, consumer woken only by its 1 s timer) to prove the
# counters: every missing signal must show up as a counted loss.  The counters
# are node-wide, so events of other processes may add a little on top.
case_forced_loss() {
	require_root || return
	local n=5000 cg cgid
	cg=$(make_cgroup "enav-test.slice/storm-loss.scope") || { fail "cannot create cgroup"; return 1; }
	cgid=$(stat -c %i "$cg")
	write_config "$WORK/cfg.yaml" "transport: ringbuf" "kernel:" "  ring_buffer_bytes: 65536" \
		"  wakeup_bytes: 1048576" "  poll_interval_ms: 1000"
	start_agent "$WORK/cfg.yaml" || return 1
	local target
	target=$(readlink -f "$HELPERS/exit_with")
	"$HELPERS/exec_storm" "$cg" "$n" "$target" >/dev/null || { fail "storm failed"; return 1; }
	sleep 2.5
	local full emitted written
	full=$(kernel_counter ringbuf transport_full)
	emitted=$(kernel_counter ringbuf emitted)
	written=$(metric 'enav_sink_written_total{sink="ndjson"}')
	stop_agent
	local got missing others
	got=$(jq -c "select(.cgroup.id == $cgid and .process.comm == \"exit_with\")" "$WORK/signals.ndjson" | wc -l)
	others=$(jq -c "select(.cgroup.id != $cgid)" "$WORK/signals.ndjson" | wc -l)
	missing=$((2 * n - got))
	echo "    forced loss: $got of $((2 * n)) signals received, transport_full $full," \
		"emitted $emitted, written $written, other-cgroup signals $others" >&2
	[ "$full" -gt 0 ] || { fail "no loss provoked: the test proves nothing"; return 1; }
	[ "$full" -ge "$missing" ] || { fail "$missing missing but only $full counted"; return 1; }
	# Slack: losses of other cgroups' events, bounded by their share of traffic.
	[ "$full" -le $((missing + others + 100)) ] ||
		{ fail "counted $full losses for $missing missing signals"; return 1; }
	# Everything the kernel handed over before the sample reached the file.
	local lines
	lines=$(wc -l <"$WORK/signals.ndjson")
	[ "$lines" -ge "$emitted" ] || { fail "kernel emitted $emitted, file has $lines"; return 1; }
}
case_perf() { storm_case perf; }

run_case "exec storm ($STORM_N) over ringbuf: received + drops == execs" case_ringbuf
run_case "exec storm ($STORM_N) over perf buffer: received + drops == execs" case_perf
run_case "forced ring-buffer loss is counted" case_forced_loss
finish
