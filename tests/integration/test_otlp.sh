#!/usr/bin/env bash
# OTLP/HTTP export to an independent receiver (tests/otlp: Node with the
# decoders of @opentelemetry/otlp-transformer 0.52.1; profiles checked with
# protoc against the schema in tests/otlp/proto), and the fault suite: a
# receiver that hangs, answers 503 for a minute, 429 with Retry-After,
# resets, drains slowly, answers 400.
. "$(dirname "$0")/lib.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
OTLP_DIR=$HERE/../otlp
RECV_PID=
WEB_PID=

start_receiver() {
	"$OTLP_DIR/setup.sh" || { fail "tests/otlp/setup.sh failed"; return 1; }
	rm -rf "$WORK/otlp" && mkdir -p "$WORK/otlp" # each case reads only its own requests
	node "$OTLP_DIR/receiver.js" 0 "$WORK/otlp" >"$WORK/recv.out" 2>"$WORK/recv.err" &
	RECV_PID=$!
	local i
	for ((i = 0; i < 100; i++)); do
		OTLP_PORT=$(awk '/^ready / { print $2; exit }' "$WORK/recv.out")
		[ -n "$OTLP_PORT" ] && return 0
		sleep 0.1
	done
	fail "receiver did not start: $(cat "$WORK/recv.err")"
}

control() { # control JSON
	curl -fs -d "$1" "http://127.0.0.1:$OTLP_PORT/control" >/dev/null ||
		{ fail "receiver control refused $1"; return 1; }
}

start_web() {
	mkdir -p "$WORK/www" && echo hello >"$WORK/www/index.html"
	WEB_PORT=$((TEST_PORT + 11))
	python3 -m http.server "$WEB_PORT" --bind 127.0.0.1 --directory "$WORK/www" \
		>/dev/null 2>&1 &
	WEB_PID=$!
	local i
	for ((i = 0; i < 50; i++)); do
		curl -fs -o /dev/null "http://127.0.0.1:$WEB_PORT/" && return 0
		sleep 0.1
	done
	fail "web server did not start"
}

stop_helpers() {
	[ -n "$WEB_PID" ] && kill "$WEB_PID" 2>/dev/null && wait "$WEB_PID" 2>/dev/null
	[ -n "$RECV_PID" ] && kill "$RECV_PID" 2>/dev/null && wait "$RECV_PID" 2>/dev/null
	WEB_PID= RECV_PID=
}

otlp_agent() { # otlp_agent EXTRA...: EXTRA are exporters.otlp lines, indented from "  "
	local extra=("${@/#/  }")
	# Profiles reach OTLP at the profiler's own cadence, profiling.interval_ms.
	write_config "$WORK/cfg.yaml" "profiling:" "  interval_ms: 1000" ${OTLP_PROFILING:+"$OTLP_PROFILING"} \
		"exporters:" "  otlp:" "    endpoint: http://127.0.0.1:$OTLP_PORT" \
		"    metrics_interval_ms: 1000" "    batch_max_delay_ms: 200" "    timeout_ms: 1000" \
		"    retry_initial_ms: 100" "    retry_max_ms: 1000" "    retry_max_elapsed_ms: 8000" \
		"    breaker_failures: 3" "    breaker_cooldown_ms: 1500" "${extra[@]}"
	start_agent "$WORK/cfg.yaml"
}

# requests N: N HTTP requests, each on its own connection.
requests() {
	local i
	for ((i = 0; i < $1; i++)); do
		curl -fs -o /dev/null "http://127.0.0.1:$WEB_PORT/" || return 1
	done
}

spans_to_web() { # count of spans of KIND (2 server, 3 client) on the web port
	local kind=$1 attr=$2
	jq -r --argjson k "$kind" --arg a "$attr" --argjson p "$WEB_PORT" '
		.request.resourceSpans[]?.scopeSpans[]?.spans[]?
		| select((.kind // 0) == $k and (.name | startswith("tcp ")))
		| select(any(.attributes[]?; .key == $a and ((.value.intValue // "0") | tonumber) == $p))
		| .spanId' "$WORK/otlp/traces.ndjson" 2>/dev/null | sort -u | wc -l
}

# http_spans KIND FIELDS: the HTTP request spans of KIND, one line each:
# traceId and the field named (spanId or parentSpanId).
http_spans() {
	jq -r --argjson k "$1" --arg f "$2" '
		.request.resourceSpans[]?.scopeSpans[]?.spans[]?
		| select((.kind // 0) == $k and .name == "GET /")
		| select(any(.attributes[]?; .key == "http.response.status_code" and ((.value.intValue // "0") | tonumber) == 200))
		| .traceId + " " + .[$f]' "$WORK/otlp/traces.ndjson" 2>/dev/null | sort -u
}

exported_execs_in_containers() { # the largest value exported for enav_process_execs{in_container="true"}
	jq -r '.request.resourceMetrics[]?.scopeMetrics[]?.metrics[]?
		| select(.name == "enav_process_execs") | .sum.dataPoints[]?
		| select(any(.attributes[]?; .key == "in_container" and .value.stringValue == "true"))
		| .asInt // "0"' "$WORK/otlp/metrics.ndjson" 2>/dev/null | sort -n | tail -n1
}

# Metrics, traces, logs and profiles reach the receiver with the content the
# workload made.
case_content() {
	require_root || return
	command -v node >/dev/null || { skip "node is not installed (scripts/deps.sh test)"; return; }
	start_receiver || return 1
	start_web || { stop_helpers; return 1; }
	# Per-signal settings: traces compressed and with a header of their own.
	otlp_agent "  traces:" "    compression: gzip" "    headers:" '      - "x-test-signal: traces"' ||
		{ stop_helpers; return 1; }
	local cg
	cg=$(make_cgroup "kubepods.slice/kubepods-pod5f1c2a3b_4d5e_4f60_8a7b_9c0d1e2f3a4b.slice/cri-containerd-3e7a9c1d5b2f48a6e0c4d8b1f7a3e5c9d2b6f0a4c8e1d7b3f5a9c0e2d4b6f8a1.scope") ||
		{ fail "cannot create cgroup"; stop_helpers; return 1; }
	local v0
	v0=$(metric 'enav_process_execs_total{in_container="true"}')
	v0=${v0%.*}
	local i
	for ((i = 0; i < 7; i++)); do
		(
			echo "$BASHPID" >"$cg/cgroup.procs"
			exec "$HELPERS/exit_with" 0
		)
	done
	requests 5 || { fail "web requests failed"; stop_helpers; return 1; }
	# A process whose executable path is too deep to resolve: a warning.
	local toodeep
	toodeep=$WORK$(printf '/e%02d' $(seq 1 40))
	mkdir -p "$toodeep" && cp "$HELPERS/exit_with" "$toodeep/exit_with" && "$toodeep/exit_with" 0
	# A binary run from under /tmp: a security finding.
	cp "$HELPERS/exit_with" "$WORK/dropper" && "$WORK/dropper" 0
	"$HELPERS/prof_workload" cpu 3 >/dev/null
	local want=$((v0 + 7)) got=0 clients=0 servers=0
	for ((i = 0; i < 100; i++)); do
		got=$(exported_execs_in_containers)
		clients=$(spans_to_web 3 network.peer.port)
		servers=$(spans_to_web 2 network.local.port)
		[ "${got:-0}" -ge "$want" ] && [ "$clients" -ge 5 ] && [ "$servers" -ge 5 ] &&
			[ "$(http_spans 2 parentSpanId | wc -l)" -ge 5 ] &&
			ls "$WORK"/otlp/profiles-*.pb >/dev/null 2>&1 && break
		sleep 0.2
	done
	stop_agent
	stop_helpers
	expect_eq "exported execs in containers" "${got:-0}" "$want" || return 1
	expect_eq "client spans to the web server" "$clients" 5 || return 1
	expect_eq "server spans of the web server" "$servers" 5 || return 1
	# The same requests as application spans: one per request on each end,
	# the server's parent being the client's span (the NDJSON span, unchanged).
	http_spans 3 spanId >"$WORK/http.client"
	http_spans 2 parentSpanId >"$WORK/http.server"
	expect_eq "HTTP client spans" "$(wc -l <"$WORK/http.client")" 5 || return 1
	cmp -s "$WORK/http.client" "$WORK/http.server" ||
		{ fail "HTTP spans do not pair in OTLP: $(head -2 "$WORK/http.client") / $(head -2 "$WORK/http.server")"; return 1; }
	local th mh
	th=$(head -n1 "$WORK/otlp/traces.ndjson" | jq -c '[.headers["content-encoding"], .headers["x-test-signal"]]')
	mh=$(head -n1 "$WORK/otlp/metrics.ndjson" | jq -c '[.headers["content-encoding"], .headers["x-test-signal"]]')
	expect_eq "traces: gzip and their own header" "$th" '["gzip","traces"]' || return 1
	expect_eq "metrics: neither" "$mh" '[null,null]' || return 1
	# Sums are monotonic and cumulative, with a start time; resource names the node.
	local sum
	sum=$(jq -c '.request.resourceMetrics[]?.scopeMetrics[]?.metrics[]? | select(.name == "enav_process_execs") | .sum
		| {m: .isMonotonic, t: .aggregationTemporality, s: (.dataPoints[0].startTimeUnixNano != null)}' \
		"$WORK/otlp/metrics.ndjson" | tail -n1)
	expect_eq "sum shape" "$sum" '{"m":true,"t":2,"s":true}' || return 1
	jq -e -s 'map(.request.resourceMetrics[]?.resource.attributes[]? | select(.key == "host.name")) | length > 0' \
		"$WORK/otlp/metrics.ndjson" >/dev/null || { fail "no host.name resource attribute"; return 1; }
	local hist
	hist=$(jq -r '.request.resourceMetrics[]?.scopeMetrics[]?.metrics[]? | select(.name == "enav_process_lifetime_seconds")
		| .histogram.dataPoints[0] | ((.bucketCounts | length) == ((.explicitBounds | length) + 1))' \
		"$WORK/otlp/metrics.ndjson" | tail -n1)
	expect_eq "histogram buckets = bounds + 1" "$hist" true || return 1
	# The warning of the too-deep executable arrives as a log record.
	jq -e -s 'map(.request.resourceLogs[]?.scopeLogs[]?.logRecords[]?
		| select(any(.attributes[]?; .key == "enav.warning.field" and .value.stringValue == "exe"))) | length > 0' \
		"$WORK/otlp/logs.ndjson" >/dev/null 2>&1 || { fail "no log record for the exe warning"; return 1; }
	# The binary run from /tmp: its security finding is a log record, at ERROR.
	jq -e -s 'map(.request.resourceLogs[]?.scopeLogs[]?.logRecords[]?
		| select(any(.attributes[]?; .key == "enav.finding.rule" and .value.stringValue == "exec_from_writable_location"))
		| select(.severityNumber == 17)) | length > 0' \
		"$WORK/otlp/logs.ndjson" >/dev/null 2>&1 || { fail "no log record for the security finding"; return 1; }
	# Spans carry the workload as resource.
	jq -e -s 'map(.request.resourceSpans[]?.resource.attributes[]? | select(.key == "process.pid")) | length > 0' \
		"$WORK/otlp/traces.ndjson" >/dev/null || { fail "spans lack process.pid"; return 1; }
	# Profiles decode against the schema the project carries and name the hot function.
	local pb found=
	for pb in "$WORK"/otlp/profiles-*.pb; do
		protoc -I"$OTLP_DIR/proto" --decode=opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest \
			opentelemetry/proto/collector/profiles/v1development/profiles_service.proto <"$pb" >"$pb.txt" 2>"$pb.err" ||
			{ fail "protoc rejects $pb: $(cat "$pb.err")"; return 1; }
		grep -q prof_hot_function "$pb.txt" && found=1
	done
	[ -n "$found" ] || { fail "no exported profile names prof_hot_function"; return 1; }
	[ ! -s "$WORK/otlp/errors.ndjson" ] || { fail "the receiver could not decode: $(head -c 300 "$WORK/otlp/errors.ndjson")"; return 1; }
}

m() { # m NAME LABELS: a self metric as an integer (absent is an error: lib.sh metric)
	local v
	v=$(metric "$1{$2}")
	echo "${v%.*}"
}

tcp_closes_to_web() { # tcp.close signals on the web port in the NDJSON (capture goes on)
	jq -c --argjson p "$WEB_PORT" 'select(.kind == "tcp.close" and (.connection.remote_port == $p or .connection.local_port == $p))' \
		"$WORK/signals.ndjson" 2>/dev/null | wc -l
}

rss_kb() {
	awk '/^VmRSS/ { print $2 }' "/proc/$AGENT_PID/status"
}

# The fault suite, against one running agent and a workload that keeps
# making connections: capture never stalls, retries only where allowed,
# drops counted, memory bounded, export resumes on its own.
case_faults() {
	require_root || return
	command -v node >/dev/null || { skip "node is not installed (scripts/deps.sh test)"; return; }
	start_receiver || return 1
	start_web || { stop_helpers; return 1; }
	# The profile store keeps profiling.retention_ms of stacks (120 s by
	# default, longer than the suite), so it grows all through it, bounded
	# by its own caps: the shortest retention lets it level off before the
	# first third, and the RSS bounds below are the exporter's.
	OTLP_PROFILING="  retention_ms: 10000" otlp_agent "  queue_capacity: 256" || { stop_helpers; return 1; }
	local rss0 rss_max c0 c1 t0 i n
	requests 3 && sleep 1.5
	rss0=$(rss_kb)
	rss_max=$rss0

	# 1. metrics endpoint hangs: traces keep arriving on time.
	control '{"signal":"metrics","mode":"hang"}' || return 1
	sleep 1.5
	c0=$(spans_to_web 3 network.peer.port)
	t0=$(date +%s%N)
	requests 4
	for ((i = 0; i < 50; i++)); do
		[ "$(spans_to_web 3 network.peer.port)" -ge $((c0 + 4)) ] && break
		sleep 0.1
	done
	local lag_ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$(spans_to_web 3 network.peer.port)" -ge $((c0 + 4)) ] ||
		{ fail "traces stalled while metrics hang"; stop_helpers; return 1; }
	echo "    metrics hanging: 4 new client spans arrived within ${lag_ms} ms"
	[ $lag_ms -lt 3000 ] || { fail "traces delayed ${lag_ms} ms by a dead metrics endpoint"; stop_helpers; return 1; }
	control '{"signal":"metrics","mode":"ok"}' || return 1

	# 2. 503 for a minute on every signal: capture goes on, retries, drops
	#    counted, memory bounded, then export resumes by itself.
	local r0 d0
	r0=$(m enav_otlp_retries_total 'signal="traces"')
	local minute=${OTLP_503_SECONDS:-60} # the suite's minute; shorter only when debugging
	control "{\"signal\":\"all\",\"mode\":\"status\",\"status\":503,\"for_ms\":$((minute * 1000))}" || return 1
	local cap0 sent=0 rss_third= rss_late=0
	cap0=$(tcp_closes_to_web)
	t0=$(date +%s)
	while [ $(($(date +%s) - t0)) -lt "$minute" ]; do
		requests 5 || { fail "the web server stopped answering"; stop_helpers; return 1; }
		sent=$((sent + 5))
		n=$(rss_kb)
		[ "$n" -gt "$rss_max" ] && rss_max=$n
		# By a third of the minute every retry queue has filled: from then on
		# memory must stay flat, however long the receiver keeps failing.
		if [ $(($(date +%s) - t0)) -ge $((minute / 3)) ]; then
			[ -n "$rss_third" ] || rss_third=$n
			[ "$n" -gt "$rss_late" ] && rss_late=$n
		fi
		sleep 2
	done
	# Every connection made is captured at both ends: capture loses nothing
	# while the exporter fails.  Closes arrive a moment after the last curl.
	local cap1
	for ((i = 0; i < 50; i++)); do
		cap1=$(tcp_closes_to_web)
		[ $((cap1 - cap0)) -ge $((2 * sent)) ] && break
		sleep 0.2
	done
	echo "    503 for ${minute} s: $sent connections, NDJSON got $((cap1 - cap0)) tcp.close signals for the web port; RSS ${rss0} -> ${rss_third} at a third -> max ${rss_max} KiB"
	expect_eq "tcp.close signals for $sent connections while the receiver failed" $((cap1 - cap0)) $((2 * sent)) ||
		{ stop_helpers; return 1; }
	# Bounded: the 256-item queues (a few KiB an item) and the retry state
	# are nearly full by a third of the minute, so the last two thirds add at
	# most 4 MiB (measured: about 1 to 2 MiB); the whole failure adds at most
	# 24 MiB (measured: about 8.5 MiB on the machine of 2026-12-02, 15 to
	# 17.8 MiB on that of 2026-12-07 with the code that had passed at 8.5,
	# 5f34eaa5 included: the growth is the machine's, and it levels off).
	[ $((rss_late - rss_third)) -lt 4096 ] ||
		{ fail "RSS kept growing under failure: ${rss_third} -> ${rss_late} KiB over the last two thirds"; stop_helpers; return 1; }
	[ $((rss_max - rss0)) -lt 24576 ] || { fail "RSS grew by $((rss_max - rss0)) KiB"; stop_helpers; return 1; }
	[ "$(m enav_otlp_retries_total 'signal="traces"')" -gt "$r0" ] || { fail "no retry on 503"; stop_helpers; return 1; }
	d0=$(m enav_otlp_items_dropped_total 'signal="traces",reason="retries_exhausted"')
	[ "$d0" -gt 0 ] || { fail "nothing counted as retries_exhausted after a minute of 503"; stop_helpers; return 1; }
	# Recovery: new spans arrive without any action.
	c0=$(spans_to_web 3 network.peer.port)
	for ((i = 0; i < 100; i++)); do
		requests 1
		[ "$(spans_to_web 3 network.peer.port)" -gt "$c0" ] && break
		sleep 0.3
	done
	[ "$(spans_to_web 3 network.peer.port)" -gt "$c0" ] || { fail "export did not resume after the 503 minute"; stop_helpers; return 1; }

	# 3. 429 with Retry-After: 2: the retry waits at least that long.
	control '{"signal":"traces","mode":"status","status":429,"retry_after":2,"count":1}' || return 1
	local before
	before=$(wc -l <"$WORK/otlp/traces.ndjson")
	requests 1
	for ((i = 0; i < 80; i++)); do
		[ "$(wc -l <"$WORK/otlp/traces.ndjson")" -gt "$before" ] && break
		sleep 0.1
	done
	local refused_ms accepted_ms
	refused_ms=$(jq -r 'select(.status == 429) | .time_ms' "$WORK/otlp/traces.refused.ndjson" | tail -n1)
	accepted_ms=$(tail -n1 "$WORK/otlp/traces.ndjson" | jq -r .time_ms)
	[ -n "$refused_ms" ] && [ $((accepted_ms - refused_ms)) -ge 1900 ] ||
		{ fail "retry after 429 came $((accepted_ms - refused_ms)) ms later (Retry-After: 2)"; stop_helpers; return 1; }
	echo "    429 Retry-After 2: retried $((accepted_ms - refused_ms)) ms later"

	# 4. resets: retried, then delivered.
	r0=$(m enav_otlp_retries_total 'signal="traces"')
	control '{"signal":"traces","mode":"reset","count":2}' || return 1
	c0=$(spans_to_web 3 network.peer.port)
	requests 2
	for ((i = 0; i < 80; i++)); do
		[ "$(spans_to_web 3 network.peer.port)" -ge $((c0 + 2)) ] && break
		sleep 0.1
	done
	[ "$(spans_to_web 3 network.peer.port)" -ge $((c0 + 2)) ] || { fail "spans lost after resets"; stop_helpers; return 1; }
	local r1
	r1=$(m enav_otlp_retries_total 'signal="traces"')
	# libcurl itself reconnects once when a reused connection turns out dead,
	# so two resets can cost the worker one retry: at least one, never none.
	[ "$r1" -ge $((r0 + 1)) ] || { fail "resets were not retried: retries $r0 -> $r1; $(grep -c . "$WORK/otlp/traces.refused.ndjson") refused"; stop_helpers; return 1; }

	# 5. a slow receiver: still delivered.
	control '{"signal":"traces","mode":"slow","delay_ms":1500,"count":1}' || return 1
	c0=$(spans_to_web 3 network.peer.port)
	requests 2
	for ((i = 0; i < 80; i++)); do
		[ "$(spans_to_web 3 network.peer.port)" -ge $((c0 + 2)) ] && break
		sleep 0.1
	done
	[ "$(spans_to_web 3 network.peer.port)" -ge $((c0 + 2)) ] || { fail "spans lost to a slow receiver"; stop_helpers; return 1; }

	# 6. 400: dropped at once, never retried, counted exactly.
	r0=$(m enav_otlp_retries_total 'signal="traces"')
	d0=$(m enav_otlp_items_dropped_total 'signal="traces",reason="rejected_status"')
	control '{"signal":"traces","mode":"status","status":400,"count":1}' || return 1
	before=$(wc -l <"$WORK/otlp/traces.refused.ndjson")
	requests 1
	for ((i = 0; i < 50; i++)); do
		[ "$(wc -l <"$WORK/otlp/traces.refused.ndjson")" -gt "$before" ] && break
		sleep 0.1
	done
	sleep 1
	local batch
	batch=$(tail -n1 "$WORK/otlp/traces.refused.ndjson" | jq '[.request.resourceSpans[]?.scopeSpans[]?.spans[]?] | length')
	expect_eq "retries after a 400" "$(m enav_otlp_retries_total 'signal="traces"')" "$r0" || { stop_helpers; return 1; }
	expect_eq "items dropped as rejected_status" "$(m enav_otlp_items_dropped_total 'signal="traces",reason="rejected_status"')" \
		"$((d0 + ${batch:-0}))" || { stop_helpers; return 1; }
	stop_agent
	stop_helpers
}

# The standard environment alone turns export on, names the service, adds
# resource attributes and headers; header values never reach the log.
case_environment() {
	require_root || return
	command -v node >/dev/null || { skip "node is not installed (scripts/deps.sh test)"; return; }
	start_receiver || return 1
	write_config "$WORK/cfg.yaml"
	sed -i 's/^log_level: info/log_level: debug/' "$WORK/cfg.yaml"
	export OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$OTLP_PORT OTEL_SERVICE_NAME=node-agent-test \
		OTEL_RESOURCE_ATTRIBUTES="deployment.environment=ci,team=obs%20team" \
		OTEL_EXPORTER_OTLP_HEADERS="x-test-token=s3cr3t-v4lue"
	start_agent "$WORK/cfg.yaml"
	local rc=$?
	unset OTEL_EXPORTER_OTLP_ENDPOINT OTEL_SERVICE_NAME OTEL_RESOURCE_ATTRIBUTES OTEL_EXPORTER_OTLP_HEADERS
	[ $rc -eq 0 ] || { stop_helpers; return 1; }
	local i
	for ((i = 0; i < 200; i++)); do
		[ -s "$WORK/otlp/metrics.ndjson" ] && break
		sleep 0.1
	done
	stop_agent
	stop_helpers
	[ -s "$WORK/otlp/metrics.ndjson" ] || { fail "no metrics with only OTEL_EXPORTER_OTLP_ENDPOINT set"; return 1; }
	local res
	res=$(head -n1 "$WORK/otlp/metrics.ndjson" | jq -c '[.request.resourceMetrics[0].resource.attributes[] | {(.key): .value.stringValue}] | add')
	expect_eq "service.name" "$(jq -r '."service.name"' <<<"$res")" node-agent-test || return 1
	expect_eq "deployment.environment" "$(jq -r '."deployment.environment"' <<<"$res")" ci || return 1
	expect_eq "team (percent-decoded)" "$(jq -r '.team' <<<"$res")" "obs team" || return 1
	expect_eq "header" "$(head -n1 "$WORK/otlp/metrics.ndjson" | jq -r '.headers["x-test-token"]')" s3cr3t-v4lue || return 1
	if grep -q 's3cr3t-v4lue' "$WORK/stderr" "$WORK/stdout"; then
		fail "a header value reached the agent's output"
		return 1
	fi
}

# Profiles linked to spans (ADR 0021): a thread-per-connection server's
# samples reach OTLP with Link entries; every linked span id is a span the
# agent exported, and a server span whose request a sample named says so
# (pyroscope.profile.id, its own id).
case_profile_links() {
	require_root || return
	command -v node >/dev/null || { skip "node is not installed (scripts/deps.sh test)"; return; }
	start_receiver || return 1
	local port=$((TEST_PORT + 12)) lpid
	"$HELPERS/link_server" "$port" 20 2 >"$WORK/link_server.out" 2>&1 &
	lpid=$!
	otlp_agent || { kill "$lpid"; stop_helpers; return 1; }
	local end=$(($(date +%s) + $(scaled 5)))
	while [ "$(date +%s)" -lt "$end" ]; do
		curl -s -o /dev/null -o /dev/null "http://127.0.0.1:$port/slow" "http://127.0.0.1:$port/fast" ||
			{ fail "link_server did not answer"; kill "$lpid"; stop_helpers; return 1; }
	done
	kill "$lpid"
	local i pb n=0
	for ((i = 0; i < $(scaled 50); i++)); do
		sleep 0.2
		n=0
		for pb in "$WORK"/otlp/profiles-*.pb; do
			[ -e "$pb" ] || continue
			n=$((n + $(/usr/bin/python3 "$HERE/otlp_links.py" "$pb" | wc -l)))
		done
		[ "$n" -gt 0 ] && break
	done
	sleep "$(scaled 2)" # the spans of the last requests
	stop_agent
	stop_helpers
	[ "$n" -gt 0 ] || { fail "no exported profile carries a link"; return 1; }
	: >"$WORK/links.txt"
	for pb in "$WORK"/otlp/profiles-*.pb; do
		protoc -I"$OTLP_DIR/proto" --decode=opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest \
			opentelemetry/proto/collector/profiles/v1development/profiles_service.proto <"$pb" >"$pb.txt" 2>"$pb.err" ||
			{ fail "protoc rejects $pb: $(cat "$pb.err")"; return 1; }
		/usr/bin/python3 "$HERE/otlp_links.py" "$pb" >>"$WORK/links.txt"
	done
	awk '$3 == 0 { bad = 1 } END { exit bad }' "$WORK/links.txt" ||
		{ fail "a Link no sample points at: $(awk '$3 == 0' "$WORK/links.txt" | head -2)"; return 1; }
	jq -r '.request.resourceSpans[]?.scopeSpans[]?.spans[]? | (.traceId + " " + .spanId) | ascii_downcase' \
		"$WORK/otlp/traces.ndjson" | sort -u >"$WORK/spans.txt"
	local missing
	missing=$(awk '{ print $1 " " $2 }' "$WORK/links.txt" | sort -u | comm -23 - "$WORK/spans.txt")
	[ -z "$missing" ] || { fail "linked (trace, span) not among the exported spans: $(head -2 <<<"$missing")"; return 1; }
	local named
	named=$(jq -r '.request.resourceSpans[]?.scopeSpans[]?.spans[]? | select((.kind // 0) == 2)
		| (.spanId | ascii_downcase) as $id
		| select(any(.attributes[]?; .key == "pyroscope.profile.id" and .value.stringValue == $id)) | $id' \
		"$WORK/otlp/traces.ndjson" 2>/dev/null | wc -l)
	[ "$named" -gt 0 ] || { fail "no server span carries pyroscope.profile.id = its span id"; return 1; }
	echo "  $(awk '{ print $2 }' "$WORK/links.txt" | sort -u | wc -l) linked span ids, all exported; $named server spans name their profile"
}

run_case "otlp: metrics, traces, logs and profiles with the workload's content" case_content
run_case "otlp: profiles linked to exported spans" case_profile_links
run_case "otlp: OTEL_EXPORTER_OTLP_* environment alone" case_environment
run_case "otlp: fault suite (hang, 503 for a minute, 429, resets, slow, 400)" case_faults
stop_helpers
finish
