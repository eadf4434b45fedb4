#!/usr/bin/env bash
# Redis spans against a real redis-server on loopback: redis-cli with a
# deliberate error, and redis-benchmark pipelining 16 deep on 4 connections.
# Span count must equal the workload's own operation count on both ends.
. "$(dirname "$0")/lib.sh"

REDIS_PORT=${REDIS_PORT:-16379}
REDIS_PID=

start_redis() {
	command -v redis-server >/dev/null || { fail "redis-server missing (scripts/deps.sh test)"; return 1; }
	redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
		--dir "$WORK" --logfile "$WORK/redis.log" &
	REDIS_PID=$!
	local i
	for ((i = 0; i < $(scaled 50); i++)); do
		redis-cli -p "$REDIS_PORT" PING >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	fail "redis-server did not start: $(tail -3 "$WORK/redis.log")"
}

stop_servers() {
	[ -n "$REDIS_PID" ] && kill "$REDIS_PID" 2>/dev/null && wait "$REDIS_PID" 2>/dev/null
	REDIS_PID=
}

case_redis_cli() {
	require_root || return
	start_redis || return 1
	l7_config "$WORK/cfg.yaml" "sources:" "  network:" "    l7:" "      protocols: [redis]"
	start_agent "$WORK/cfg.yaml" || return 1
	local t0 t1
	t0=$(date +%s%N)
	printf 'SET enav:k hello\nGET enav:k\nINCR enav:k\nLPUSH enav:l a b c\nLRANGE enav:l 0 -1\nDEL enav:k enav:l\n' |
		redis-cli -p "$REDIS_PORT" >"$WORK/cli.out" 2>&1 &
	local cpid=$!
	wait $cpid
	t1=$(date +%s%N)
	grep -q 'ERR value is not an integer' "$WORK/cli.out" || { fail "redis-cli did not see its error: $(cat "$WORK/cli.out")"; return 1; }
	local cl='.kind == "span" and .span.protocol == "redis" and .process.pid == '$cpid
	local sv='.kind == "span" and .span.protocol == "redis" and .process.pid == '$REDIS_PID
	# redis-cli 7 asks the server for its command docs first.
	expect_eq "client spans" "$(wait_for_count "$cl" 7)" 7 || return 1
	expect_eq "client operations in order" \
		"$(jq -r "select($cl) | .span.operation" "$WORK/signals.ndjson" | tr '\n' ' ')" "COMMAND DOCS SET GET INCR LPUSH LRANGE DEL " || return 1
	local e
	e=$(wait_for_line "$cl and .span.operation == \"INCR\"") || return 1
	expect_eq "INCR is an error" "$(jq -r .span.error <<<"$e")" true || return 1
	expect_eq "error prefix only, never the message" "$(jq -r .span.status <<<"$e")" ERR || return 1
	expect_eq "other commands succeed" "$(count_lines "$cl and .span.error == false")" 6 || return 1
	expect_eq "no key names in any span" "$(jq -c 'select(.kind == "span")' "$WORK/signals.ndjson" | grep -c 'enav:')" 0 || return 1
	expect_eq "server spans" "$(count_lines "$sv")" 7 || return 1
	local wall=$(((t1 - t0)))
	expect_eq "client durations within (0, redis-cli wall time]" \
		"$(jq -r "select($cl) | .span.duration_ns > 0 and .span.duration_ns <= $wall" "$WORK/signals.ndjson" | sort -u)" true || return 1
	jq -r "select($cl) | .span.trace_id + \" \" + .span.span_id" "$WORK/signals.ndjson" | sort >"$WORK/client.ids"
	jq -r "select($sv) | .span.trace_id + \" \" + .span.parent_span_id" "$WORK/signals.ndjson" | sort >"$WORK/server.ids"
	cmp -s "$WORK/client.ids" "$WORK/server.ids" || { fail "client and server spans do not pair"; return 1; }
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics"
	grep -q '^db_client_operation_duration_seconds_count{db_system_name="redis",db_operation_name="INCR",error_type="ERR",workload="process:redis-cli"} 1$' "$WORK/metrics" ||
		{ fail "db client histogram: $(grep '^db_client_operation_duration_seconds_count' "$WORK/metrics" | head -3)"; return 1; }
}

# A pipeline of 16 SETs is one ~750-byte write: the capture window must
# cover it for every request to be framed.
case_redis_benchmark() {
	require_root || return
	start_redis || return 1
	l7_config "$WORK/cfg.yaml" "sources:" "  network:" "    l7:" "      protocols: [redis]" \
		"      capture_bytes: 4096"
	start_agent "$WORK/cfg.yaml" || return 1
	redis-benchmark -p "$REDIS_PORT" -n 2000 -c 4 -P 16 -t set,get -q >"$WORK/bench.out" 2>&1 &
	local bpid=$!
	wait $bpid || { fail "redis-benchmark failed: $(tail -3 "$WORK/bench.out")"; return 1; }
	local cl='.kind == "span" and .span.protocol == "redis" and .process.pid == '$bpid
	local sv='.kind == "span" and .span.protocol == "redis" and .process.pid == '$REDIS_PID
	# The workload's own count: -n 2000 per test, every one answered.
	expect_eq "client SET spans" "$(wait_for_count "$cl and .span.operation == \"SET\"" 2000)" 2000 || return 1
	expect_eq "client GET spans" "$(wait_for_count "$cl and .span.operation == \"GET\"" 2000)" 2000 || return 1
	expect_eq "server SET spans" "$(count_lines "$sv and .span.operation == \"SET\"")" 2000 || return 1
	expect_eq "server GET spans" "$(count_lines "$sv and .span.operation == \"GET\"")" 2000 || return 1
	expect_eq "no errors" "$(count_lines "$cl and .span.error == true")" 0 || return 1
	expect_eq "no pending overflow" "$(metric 'enav_l7_pending_overflow_total{protocol="redis"}')" 0 || return 1
	expect_eq "no transport loss" "$(metric 'enav_kernel_events_total{source="network",transport="ringbuf",category="transport_full"}')" 0 || return 1
}

# With the default 256-byte window the same pipelines do not fit: requests in
# the uncaptured tail cannot be framed.  They must be accounted for (resyncs,
# truncated fields), never emitted as guessed operations.
case_redis_window_too_small() {
	require_root || return
	start_redis || return 1
	l7_config "$WORK/cfg.yaml" "sources:" "  network:" "    l7:" "      protocols: [redis]"
	start_agent "$WORK/cfg.yaml" || return 1
	redis-benchmark -p "$REDIS_PORT" -n 2000 -c 4 -P 16 -t set -q >"$WORK/bench.out" 2>&1 &
	local bpid=$!
	wait $bpid || { fail "redis-benchmark failed"; return 1; }
	local cl='.kind == "span" and .span.protocol == "redis" and .process.pid == '$bpid
	local n
	n=$(wait_for_count "$cl and .span.operation == \"SET\"" 2000 5)
	[ "$n" -lt 2000 ] || { fail "expected the small window to lose requests, got all $n"; return 1; }
	expect_eq "only real operations" "$(jq -r "select($cl) | .span.operation" "$WORK/signals.ndjson" | sort -u | tr '\n' ' ')" "CONFIG GET SET " || return 1
	local lost
	lost=$(($(metric 'enav_l7_resyncs_total{protocol="redis"}') + $(metric 'enav_l7_truncated_fields_total{protocol="redis"}')))
	[ "$lost" -gt 0 ] || { fail "$n of 2000 SETs seen and nothing accounted"; return 1; }
	echo "    default window: $n of 2000 SET spans, loss accounted ($lost resyncs + truncations)"
}

trap 'stop_servers; cleanup' EXIT
run_case "redis-cli: six commands, one error, pairing, RED metrics" case_redis_cli
stop_servers
run_case "redis-benchmark -P 16: span count == operation count" case_redis_benchmark
stop_servers
run_case "pipelines past the default window: accounted, never guessed" case_redis_window_too_small
stop_servers
finish
