#!/usr/bin/env bash
# Profiles linked to traces (ADR 0021), on the real kernel: the agent's own
# network and profiling programs, real servers on loopback.
#  - A thread-per-connection C server (helpers/link_server.c): /slow burns
#    CPU in link_slow_function, /fast in link_fast_function.  Under a load of
#    both, the CPU samples in the slow function carry the span id of a /slow
#    server span of the run, never a /fast one; ?trace_id= keeps one trace.
#  - One PostgreSQL backend serving a slow query and a fast one in turn: the
#    samples under md5 (only the slow query hashes) carry its span.
. "$(dirname "$0")/lib.sh"

BASE="http://127.0.0.1:$TEST_PORT/debug/pprof"
SAMPLES="/usr/bin/python3 $(dirname "$0")/pprof_samples.py"
LINK_PORT=$((TEST_PORT + 7))
# Every /slow request carries this trace (its own parent each time).
TRACE=4bf92f3577b34da6a3ce929d0e0e4736

# links_agent [extra yaml lines...]: L7 on (HTTP/1 and PostgreSQL), the
# profiler at 199 Hz with its links, spans to NDJSON.
links_agent() {
	write_config "$WORK/cfg.yaml" "sources:" "  network:" "    l7:" \
		"      protocols: [http1, postgresql]" "$@" \
		"profiling:" "  frequency_hz: 199" "  interval_ms: 2000" "  links:" "    hold_ms: $(scaled 10000)"
	start_agent "$WORK/cfg.yaml"
}

# get_profile URL: a profile request's body, which takes its window's seconds
# (http_get gives up after 5).
get_profile() {
	timeout "$(scaled 40)" busybox wget -q -O - "$1" 2>/dev/null
}

# span_ids JQ_FILTER: the span ids of the NDJSON spans the filter selects.
span_ids() {
	jq -r "select(.kind == \"span\") | select($1) | .span.span_id" "$WORK/signals.ndjson" | sort -u
}

# load SECONDS: four keep-alive clients, each alternating /slow (with the
# trace) and /fast, until SECONDS pass.
load() {
	local end=$(($(date +%s) + $1)) c
	for c in 1 2 3 4; do
		(
			i=0
			while [ "$(date +%s)" -lt "$end" ]; do
				i=$((i + 1))
				parent=$(printf '%016x' $((c * 1000000 + i)))
				# --next: the header is the first request's alone
				# (one connection still serves both).
				curl -s -o /dev/null -H "traceparent: 00-$TRACE-$parent-01" \
					"http://127.0.0.1:$LINK_PORT/slow" --next -s -o /dev/null \
					"http://127.0.0.1:$LINK_PORT/fast" || exit 1
			done
		) &
	done
	wait
}

# linked_report FILE FN: for the samples whose leaf is FN, "total linked"
# (sample counts) and the span ids they carry, one per line after.
linked_report() {
	$SAMPLES "$1" | jq -rs --arg fn "$2" '
		[.[] | select(.functions[0] == $fn)] as $s
		| ([$s[].values[0]] | add // 0) as $total
		| ([$s[] | select(.labels.span_id) | .values[0]] | add // 0) as $linked
		| "\($total) \($linked)", ($s[] | .labels.span_id // empty)' | awk 'NR == 1 || !seen[$0]++'
}

start_link_server() {
	"$HELPERS/link_server" "$LINK_PORT" 20 2 >"$WORK/link_server.out" 2>&1 &
	LINK_PID=$!
	local i
	for ((i = 0; i < $(scaled 50); i++)); do
		grep -q '^ready' "$WORK/link_server.out" && return 0
		sleep 0.1
	done
	fail "link_server did not start: $(cat "$WORK/link_server.out")"
}

# mostly_linked TOTAL LINKED WHAT: at least 90% of TOTAL (>= 20) linked.
mostly_linked() {
	if [ "$1" -lt 20 ] || [ $(($2 * 10)) -lt $(($1 * 9)) ]; then
		fail "$3: $2 of $1 samples carry a span_id (want >= 90% of >= 20); $(grep -E 'enav_(profile_link|span_links)' "$WORK/metrics.now" | grep -v '^#' | tr '\n' ' ')"
		return 1
	fi
}

case_http_slow_fast() {
	require_root || return
	# Pyroscope gets the same labels: span_id is its span-profile label.
	local pport=$((TEST_PORT + 8))
	/usr/bin/python3 "$(dirname "$0")/pyroscope_receiver.py" "$pport" "$WORK/pyro" &
	local ppid=$!
	links_agent "exporters:" "  pyroscope:" "    url: http://127.0.0.1:$pport" "    app_name: links" ||
		{ kill "$ppid"; return 1; }
	start_link_server || return 1
	# The windows are scaled too: an emulated guest serves a few requests
	# a second, and 5 s of them hold too few samples to judge.
	local secs
	secs=$(scaled 5)
	load $((secs + 3)) &
	local loader=$!
	sleep 1
	# Two windows at once: the whole profile and the trace's.
	get_profile "$BASE/profile?seconds=$secs" >"$WORK/all.pb.gz" &
	local a=$!
	get_profile "$BASE/profile?seconds=$secs&trace_id=$TRACE" >"$WORK/trace.pb.gz" || true
	wait "$a"
	wait "$loader" || { fail "the load's curl failed"; return 1; }
	sleep "$(scaled 3)" # the last spans reach the sink, an interval the receiver
	http_get "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics.now"
	kill "$LINK_PID" "$ppid"
	local slow fast report total linked
	slow=$(span_ids '.connection.role == "server" and .span.path == "/slow"')
	fast=$(span_ids '.connection.role == "server" and .span.path == "/fast"')
	[ -n "$slow" ] && [ -n "$fast" ] || { fail "no /slow or /fast server spans"; return 1; }
	report=$(linked_report "$WORK/all.pb.gz" link_slow_function)
	read -r total linked <<<"$(head -n1 <<<"$report")"
	mostly_linked "$total" "$linked" "link_slow_function" || return 1
	local ids bad
	ids=$(tail -n +2 <<<"$report")
	bad=$(comm -23 <(sort -u <<<"$ids") <(sort -u <<<"$slow"))
	[ -z "$bad" ] || { fail "slow-function samples name spans that are not /slow server spans: $(head -3 <<<"$bad")"; return 1; }
	bad=$(comm -12 <(linked_report "$WORK/all.pb.gz" link_fast_function | tail -n +2 | sort -u) <(sort -u <<<"$slow"))
	[ -z "$bad" ] || { fail "fast-function samples name /slow spans: $(head -3 <<<"$bad")"; return 1; }
	expect_eq "inferred links of a thread-per-connection server" \
		"$($SAMPLES "$WORK/all.pb.gz" | jq -s '[.[] | select(.labels.span_link == "inferred")] | length')" 0 || return 1
	# The span side names its profile.
	[ "$(count_lines '.kind == "span" and .connection.role == "server" and .span.path == "/slow" and .span.profile_linked == true')" -gt 0 ] ||
		{ fail "no /slow server span says profile_linked"; return 1; }
	# ?trace_id=: that trace alone, most of the slow function's samples.
	local tr
	tr=$($SAMPLES "$WORK/trace.pb.gz" | jq -rs --arg t "$TRACE" '
		"\(length) \([.[] | select(.labels.trace_id != $t)] | length) \([.[] | select(.functions[0] == "link_fast_function")] | length) \([.[] | select(.functions[0] == "link_slow_function") | .values[0]] | add // 0)"')
	read -r n other fastn slown <<<"$tr"
	expect_eq "trace filter: samples of other traces, fast-function samples" "$other $fastn" "0 0" || return 1
	[ "$n" -gt 0 ] && [ $((slown * 10)) -ge $((linked * 8)) ] ||
		{ fail "trace filter: $slown slow-function samples, want >= 80% of the $linked linked in the whole profile"; return 1; }
	# The CPU profiles pushed to Pyroscope: their slow-function samples carry
	# /slow span ids, the same as the endpoint's.
	local f pushed=
	# One push per process and interval: the server's, not every curl's.
	for f in $(grep -lE '"links\.cpu\{[^}]*comm=link_server' "$WORK"/pyro/*.json 2>/dev/null); do
		pushed+=$(linked_report "${f%.json}.pprof" link_slow_function | tail -n +2)$'\n'
	done
	pushed=$(grep . <<<"$pushed" | sort -u)
	[ -n "$pushed" ] || { fail "no Pyroscope push carries a span_id on link_slow_function: $(ls "$WORK/pyro" 2>&1 | head -5)"; return 1; }
	bad=$(comm -23 <(echo "$pushed") <(sort -u <<<"$slow"))
	[ -z "$bad" ] || { fail "Pyroscope pushes name spans that are not /slow server spans: $(head -3 <<<"$bad")"; return 1; }
	local code
	code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/profile?seconds=1&trace_id=xyz")
	expect_eq "a malformed trace_id" "$code" 400 || return 1
	echo "  link_slow_function: $linked of $total samples linked; trace filter kept $slown"
}

case_pg_backend() {
	require_root || return
	start_pg || return 1
	links_agent "      sanitized_statement: true" || return 1
	# One connection, one backend: slow and fast statements in turn.
	local i
	for ((i = 0; i < 8; i++)); do
		echo "SELECT count(*) AS slow_q FROM generate_series(1, 300000) AS x WHERE md5(x::text) <> '';"
		echo "SELECT 1 AS fast_q;"
	done >"$WORK/links.sql"
	get_profile "$BASE/profile?seconds=$(scaled 6)" >"$WORK/pg.pb.gz" &
	local a=$!
	sleep 0.5
	PGPASSWORD=$PG_PASS psql -X -q "$(pg_conninfo)" -f "$WORK/links.sql" >"$WORK/psql.out" 2>&1 ||
		{ fail "psql failed: $(tail -3 "$WORK/psql.out")"; return 1; }
	wait "$a"
	sleep "$(scaled 2)"
	http_get "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics.now"
	local slow fast
	slow=$(span_ids '.connection.role == "server" and ((.span.statement // "") | test("slow_q"))')
	fast=$(span_ids '.connection.role == "server" and ((.span.statement // "") | test("fast_q"))')
	[ -n "$slow" ] && [ -n "$fast" ] || { fail "no slow or fast server spans of the backend"; return 1; }
	local report total linked ids bad
	report=$($SAMPLES "$WORK/pg.pb.gz" | jq -rs '
		[.[] | select(any(.functions[]; test("md5")))] as $s
		| "\([$s[].values[0]] | add // 0) \([$s[] | select(.labels.span_id) | .values[0]] | add // 0)",
		  ($s[] | .labels.span_id // empty)' | awk 'NR == 1 || !seen[$0]++')
	read -r total linked <<<"$(head -n1 <<<"$report")"
	mostly_linked "$total" "$linked" "md5" || return 1
	ids=$(tail -n +2 <<<"$report")
	bad=$(comm -23 <(sort -u <<<"$ids") <(sort -u <<<"$slow"))
	[ -z "$bad" ] || { fail "md5 samples name spans that are not the slow query's: $(head -3 <<<"$bad")"; return 1; }
	echo "  md5: $linked of $total samples linked, all to the slow query"
}

# enav profile --trace-id: the CLI runs the L7 path beside the profiler, and
# writes only that trace's samples.
case_cli_trace_id() {
	require_root || return
	start_link_server || return 1
	# The CLI loads the network and profiling objects before its window
	# opens (tens of seconds in an emulated guest): the load outlasts both.
	load "$(scaled 16)" &
	local loader=$!
	"$ENAV" profile --seconds "$(scaled 6)" --trace-id "$TRACE" --pprof "$WORK/cli.pb.gz" \
		>"$WORK/cli.out" 2>&1 || { fail "enav profile failed: $(tail -3 "$WORK/cli.out")"; return 1; }
	wait "$loader"
	kill "$LINK_PID"
	local tr n other fastn slown
	tr=$($SAMPLES "$WORK/cli.pb.gz" | jq -rs --arg t "$TRACE" '
		"\(length) \([.[] | select(.labels.trace_id != $t)] | length) \([.[] | select(.functions[0] == "link_fast_function")] | length) \([.[] | select(.functions[0] == "link_slow_function") | .values[0]] | add // 0)"')
	read -r n other fastn slown <<<"$tr"
	expect_eq "enav profile --trace-id: samples of other traces, fast-function samples" "$other $fastn" "0 0" || return 1
	[ "$slown" -ge 20 ] || { fail "enav profile --trace-id: $slown slow-function samples of $n, want >= 20"; return 1; }
	code=0
	"$ENAV" profile --seconds 1 --trace-id nothex >/dev/null 2>&1 || code=$?
	expect_eq "a malformed --trace-id" "$code" 2 || return 1
	echo "  enav profile --trace-id: $slown slow-function samples, all of the trace"
}

run_case "profile links: thread-per-connection /slow vs /fast, trace filter" case_http_slow_fast
run_case "profile links: a PostgreSQL backend's slow query vs a fast one" case_pg_backend
run_case "profile links: enav profile --trace-id" case_cli_trace_id
stop_pg
finish
