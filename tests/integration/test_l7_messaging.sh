#!/usr/bin/env bash
# Messaging and document-store protocols: NATS against a real nats-server on
# loopback (a raw client, verbose and not, with a pedantic-mode error and an
# unknown operation), Kafka from kcat (librdkafka) and MongoDB from pymongo,
# the last two against the stand-in servers in peers/ (Debian packages
# neither a Kafka broker nor a MongoDB server).  Span counts must equal the
# workload's own operation counts; no payload, record or document value may
# appear in any span.
TEST_PORT=${TEST_PORT:-19612}
. "$(dirname "$0")/lib.sh"

PEERS=$(cd "$(dirname "$0")/peers" && pwd)
# pymongo is Debian's python3-pymongo, installed for the system interpreter
# only; the peers (standard library only) run under it too, whatever python3 is
# first on PATH.
PY=/usr/bin/python3
NATS_PORT=${NATS_PORT:-14222}
KAFKA_PORT=${KAFKA_PORT:-19092}
MONGO_PORT=${MONGO_PORT:-27018}
NATS_PID=
KAFKA_PID=
MONGO_PID=
# W3C traceparent carried in the HPUB headers.
TP_TRACE=4bf92f3577b34da6a3ce929d0e0e4736
TP_PARENT=00f067aa0ba902b7
TP=00-$TP_TRACE-$TP_PARENT-01

port_free() { # port_free PORT: nothing listens on 127.0.0.1:PORT
	! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

start_nats() {
	command -v nats-server >/dev/null || { fail "nats-server missing (scripts/deps.sh test)"; return 1; }
	port_free "$NATS_PORT" || { fail "127.0.0.1:$NATS_PORT already in use"; return 1; }
	# Our own instance (the package's system service, if running, stays on 4222).
	nats-server -a 127.0.0.1 -p "$NATS_PORT" -l "$WORK/nats.log" &
	NATS_PID=$!
	local i
	for ((i = 0; i < 50; i++)); do
		kill -0 "$NATS_PID" 2>/dev/null || break
		port_free "$NATS_PORT" || return 0
		sleep 0.1
	done
	fail "nats-server did not start: $(tail -3 "$WORK/nats.log" 2>/dev/null)"
}

# start_listener NAME PORT ARGS...: a peers/NAME.py stand-in; its log is
# $WORK/NAME.log, whose first line says it listens.
start_listener() {
	local name=$1 port=$2 pid
	shift 2
	port_free "$port" || { fail "127.0.0.1:$port already in use"; return 1; }
	"$PY" "$PEERS/$name.py" "$port" "$@" >"$WORK/$name.log" 2>&1 &
	pid=$!
	case $name in
	kafka_listener) KAFKA_PID=$pid ;;
	mongo_listener) MONGO_PID=$pid ;;
	esac
	local i
	for ((i = 0; i < 50; i++)); do
		grep -q "^listening 127.0.0.1:$port\$" "$WORK/$name.log" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	fail "$name did not start: $(tail -3 "$WORK/$name.log")"
}

stop_servers() {
	local p
	for p in "$NATS_PID" "$KAFKA_PID" "$MONGO_PID"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	NATS_PID= KAFKA_PID= MONGO_PID=
}

# pairs CLIENT_FILTER SERVER_FILTER: every client span (trace id, span id)
# is one server span's (trace id, parent span id).
pairs() {
	jq -r "select($1) | .span.trace_id + \" \" + .span.span_id" "$WORK/signals.ndjson" | sort >"$WORK/client.ids"
	jq -r "select($2) | .span.trace_id + \" \" + .span.parent_span_id" "$WORK/signals.ndjson" | sort >"$WORK/server.ids"
	[ -s "$WORK/client.ids" ] || { fail "no spans to pair"; return 1; }
	cmp -s "$WORK/client.ids" "$WORK/server.ids" ||
		{ fail "client and server spans do not pair: $(diff "$WORK/client.ids" "$WORK/server.ids" | head -4)"; return 1; }
}

metric_line() { # metric_line LINE: /metrics (fetched into $WORK/metrics) has exactly this line
	grep -qxF "$1" "$WORK/metrics" || {
		fail "missing metric line: $1"
		fail "have: $(grep -F "${1%%\{*}" "$WORK/metrics" | grep -v _bucket | head -6)"
		return 1
	}
}

no_literal() { # no_literal TEXT: no span carries TEXT
	expect_eq "spans carrying '$1'" "$(jq -c 'select(.kind == "span")' "$WORK/signals.ndjson" | grep -c -- "$1")" 0
}

nats_config() { # nats_config [extra l7 lines...]
	l7_config "$WORK/cfg.yaml" "sources:" "  network:" "    l7:" "      protocols: [nats]" "$@"
}

# Verbose connection (every PUB/HPUB/SUB/UNSUB acknowledged by +OK, so they
# are request spans) in pedantic mode: SUB x2, PUB x8 to enav.orders (each
# delivered back: MSG), one HPUB to enav.headers with a traceparent header
# (HMSG), one PUB to the wildcard subject enav.bad.* (-ERR 'Invalid Publish
# Subject', then +OK), UNSUB x2.
case_nats_verbose() {
	require_root || return
	start_nats || return 1
	nats_config
	start_agent "$WORK/cfg.yaml" || return 1
	local n=8
	"$PY" "$PEERS/nats_client.py" "$NATS_PORT" --verbose --count $n --subject enav.orders \
		--hpub-subject enav.headers --traceparent "$TP" --bad-subject 'enav.bad.*' \
		--payload enav-secret-payload >"$WORK/nats.out" 2>&1 &
	local cpid=$!
	wait $cpid || { fail "nats client failed: $(tail -3 "$WORK/nats.out")"; return 1; }
	local r
	r=$(tail -1 "$WORK/nats.out")
	# The workload's own view: CONNECT + 2 SUB + 8 PUB + HPUB + bad PUB + 2 UNSUB acknowledged.
	expect_eq "client +OKs" "$(jq -r .oks <<<"$r")" 15 || return 1
	expect_eq "client -ERRs" "$(jq -c .errs <<<"$r")" '["'"'Invalid Publish Subject'"'"]' || return 1
	expect_eq "client MSG deliveries" "$(jq -r .msgs <<<"$r")" $n || return 1
	expect_eq "client HMSG deliveries" "$(jq -r .hmsgs <<<"$r")" 1 || return 1
	local lport wall deliveries
	lport=$(jq -r .local_port <<<"$r")
	wall=$(jq -r .wall_ns <<<"$r")
	deliveries=$(($(jq -r '.msgs + .hmsgs' <<<"$r")))
	local cl='.kind == "span" and .span.protocol == "nats" and .process.pid == '$cpid
	local sv='.kind == "span" and .span.protocol == "nats" and .process.pid == '$NATS_PID' and .connection.remote_port == '$lport
	# 2 subscribe + 8 + 1 + 1 publish + 2 unsubscribe + 9 receive
	local total=$((2 + n + 2 + 2 + deliveries))
	expect_eq "client spans" "$(wait_for_count "$cl" $total)" $total || return 1
	expect_eq "server spans" "$(wait_for_count "$sv" $total)" $total || return 1
	local side f
	for side in client server; do
		[ $side = client ] && f=$cl || f=$sv
		expect_eq "$side publish enav.orders: acknowledged requests" \
			"$(count_lines "$f and .span.operation == \"publish\" and .span.target == \"enav.orders\" and .span.kind == \"request\" and .span.response_seen == true and .span.error == false and .span.status == \"\"")" $n || return 1
		expect_eq "$side publishes in all" "$(count_lines "$f and .span.operation == \"publish\"")" $((n + 2)) || return 1
		expect_eq "$side HPUB enav.headers, its traceparent" \
			"$(count_lines "$f and .span.operation == \"publish\" and .span.target == \"enav.headers\" and .span.trace_id == \"$TP_TRACE\" and .span.parent_span_id == \"$TP_PARENT\" and .span.id_source == \"traceparent\" and .span.error == false")" 1 || return 1
		expect_eq "$side pedantic error on the invalid subject" \
			"$(count_lines "$f and .span.operation == \"publish\" and .span.target == \"enav.bad.*\" and .span.error == true and .span.status == \"Invalid Publish Subject\" and .span.response_seen == true")" 1 || return 1
		expect_eq "$side only that error" "$(count_lines "$f and .span.error == true")" 1 || return 1
		expect_eq "$side receives == deliveries (one-way messages)" \
			"$(count_lines "$f and .span.operation == \"receive\" and .span.kind == \"message\" and .span.receive == true and .span.duration_ns == 0")" $deliveries || return 1
		expect_eq "$side MSG receives of enav.orders" "$(count_lines "$f and .span.operation == \"receive\" and .span.target == \"enav.orders\"")" $n || return 1
		expect_eq "$side HMSG receive keeps the traceparent" \
			"$(count_lines "$f and .span.operation == \"receive\" and .span.target == \"enav.headers\" and .span.trace_id == \"$TP_TRACE\"")" 1 || return 1
		expect_eq "$side delivered bytes (size fields)" \
			"$(jq -s "map(select($f and .span.operation == \"receive\") | .span.response_bytes) | add" "$WORK/signals.ndjson")" \
			"$(jq -r .delivered_bytes <<<"$r")" || return 1
		expect_eq "$side subscribe/unsubscribe targets (UNSUB's from its SUB's sid)" \
			"$(jq -r "select($f and (.span.operation | test(\"subscribe\"))) | .span.operation + \" \" + .span.target" "$WORK/signals.ndjson" | sort | tr '\n' ,)" \
			"subscribe enav.headers,subscribe enav.orders,unsubscribe enav.headers,unsubscribe enav.orders," || return 1
	done
	expect_eq "acknowledged durations (both ends) within (0, client wall time]" \
		"$(jq -r "select((($cl) or ($sv)) and .span.kind == \"request\") | .span.duration_ns > 0 and .span.duration_ns <= $wall" "$WORK/signals.ndjson" | sort -u)" true || return 1
	pairs "$cl and .span.id_source == \"connection\"" "$sv and .span.id_source == \"connection\"" || return 1
	no_literal enav-secret-payload || return 1
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics"
	metric_line "messaging_client_operation_duration_seconds_count{messaging_system=\"nats\",messaging_operation_name=\"publish\",messaging_destination_name=\"enav.orders\",workload=\"process:python3\"} $n" || return 1
	metric_line 'messaging_client_operation_duration_seconds_count{messaging_system="nats",messaging_operation_name="publish",messaging_destination_name="enav.bad.*",error_type="Invalid Publish Subject",workload="process:python3"} 1' || return 1
	metric_line "messaging_client_consumed_messages_total{messaging_system=\"nats\",messaging_operation_name=\"receive\",messaging_destination_name=\"enav.orders\",workload=\"process:python3\"} $n" || return 1
	metric_line "enav_messaging_server_operation_duration_seconds_count{messaging_system=\"nats\",messaging_operation_name=\"publish\",messaging_destination_name=\"enav.orders\",workload=\"process:nats-server\"} $n" || return 1
}

# Non-verbose connection (the NATS default): nothing is acknowledged, so
# SUB, 6 PUBs to enav.quiet and UNSUB are one-way messages (start == end);
# then a line the server does not know: -ERR 'Unknown Protocol Operation'
# and the server closes.  That line is counted as a parse error on each end,
# never emitted as an operation.
# Nothing waits for an answer here, so nats-server reads CONNECT (~190 bytes),
# SUB and several PUBs (40 bytes each) in one read: past the default 256-byte
# window, the PUBs in the uncaptured tail cannot be framed (seen: 2 of 6 on
# the server side).  The whole exchange is under 500 bytes; 4096 covers any
# read of it.  (The verbose case waits for each +OK: one request per read,
# and the default window frames them all.)
case_nats_quiet() {
	require_root || return
	start_nats || return 1
	nats_config "      capture_bytes: 4096"
	start_agent "$WORK/cfg.yaml" || return 1
	local m=6
	"$PY" "$PEERS/nats_client.py" "$NATS_PORT" --count $m --subject enav.quiet \
		--payload enav-secret-quiet --unknown-op ENAVBOGUS >"$WORK/nats.out" 2>&1 &
	local cpid=$!
	wait $cpid || { fail "nats client failed: $(tail -3 "$WORK/nats.out")"; return 1; }
	local r
	r=$(tail -1 "$WORK/nats.out")
	expect_eq "client +OKs (not verbose)" "$(jq -r .oks <<<"$r")" 0 || return 1
	expect_eq "client -ERRs" "$(jq -c .errs <<<"$r")" '["'"'Unknown Protocol Operation'"'"]' || return 1
	expect_eq "server closed the connection" "$(jq -r .closed_by_server <<<"$r")" true || return 1
	expect_eq "client deliveries" "$(jq -r .msgs <<<"$r")" $m || return 1
	local lport
	lport=$(jq -r .local_port <<<"$r")
	local cl='.kind == "span" and .span.protocol == "nats" and .process.pid == '$cpid
	local sv='.kind == "span" and .span.protocol == "nats" and .process.pid == '$NATS_PID' and .connection.remote_port == '$lport
	local total=$((1 + m + m + 1)) # SUB, PUBs, MSGs, UNSUB
	expect_eq "client spans" "$(wait_for_count "$cl" $total)" $total || return 1
	expect_eq "server spans" "$(wait_for_count "$sv" $total)" $total || return 1
	local side f
	for side in client server; do
		[ $side = client ] && f=$cl || f=$sv
		expect_eq "$side publishes: one-way, start == end" \
			"$(count_lines "$f and .span.operation == \"publish\" and .span.target == \"enav.quiet\" and .span.kind == \"message\" and .span.receive == false and .span.duration_ns == 0 and .span.start_time_unix_nano == .span.end_time_unix_nano and .span.request_bytes > 0")" $m || return 1
		expect_eq "$side receives" "$(count_lines "$f and .span.operation == \"receive\" and .span.target == \"enav.quiet\" and .span.kind == \"message\" and .span.receive == true")" $m || return 1
		expect_eq "$side every span one-way, none an error" "$(count_lines "$f and .span.kind == \"message\" and .span.error == false")" $total || return 1
		expect_eq "$side operations (the unknown one is none)" \
			"$(jq -r "select($f) | .span.operation" "$WORK/signals.ndjson" | sort -u | tr '\n' ' ')" "publish receive subscribe unsubscribe " || return 1
	done
	pairs "$cl" "$sv" || return 1
	no_literal enav-secret-quiet || return 1
	no_literal ENAVBOGUS || return 1
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics"
	# ENAVBOGUS on the request stream of both ends; the -ERR answers nothing.
	expect_eq "parse errors (the unknown operation, both ends)" "$(metric 'enav_l7_parse_errors_total{protocol="nats"}')" 2 || return 1
	expect_eq "unmatched -ERR (not verbose: no request awaits it)" "$(metric 'enav_l7_unmatched_responses_total{protocol="nats"}')" 2 || return 1
	metric_line "messaging_client_sent_messages_total{messaging_system=\"nats\",messaging_operation_name=\"publish\",messaging_destination_name=\"enav.quiet\",workload=\"process:python3\"} $m" || return 1
	metric_line "messaging_client_consumed_messages_total{messaging_system=\"nats\",messaging_operation_name=\"receive\",messaging_destination_name=\"enav.quiet\",workload=\"process:python3\"} $m" || return 1
	metric_line "enav_messaging_server_messages_total{messaging_system=\"nats\",messaging_operation_name=\"publish\",messaging_destination_name=\"enav.quiet\",workload=\"process:nats-server\"} $m" || return 1
	# One-way messages are counted, never timed.
	grep -q '^messaging_client_operation_duration_seconds' "$WORK/metrics" &&
		{ fail "one-way messages in the duration histogram"; return 1; }
	return 0
}

# log_since FILE LINE: the listener's answers after its first LINE lines.
log_since() { tail -n +"$(($2 + 1))" "$1"; }

# Kafka, client side only: the listener is a stand-in, not a broker, so only
# kcat's (librdkafka's) spans are asserted, and the parsing of responses is
# proven against the listener's encoding alone.  The listener logs one line
# per answer: those are the workload's own counts.
# librdkafka writes one request per send, so the default 256-byte window
# frames every request; a Produce of 10 records (~390 bytes) reaches past it
# and its uncaptured tail is skipped by its size.
case_kafka_kcat() {
	require_root || return
	command -v kcat >/dev/null || { fail "kcat missing (scripts/deps.sh test)"; return 1; }
	start_listener kafka_listener "$KAFKA_PORT" --error-topic enav-error-topic --error-code 87 || return 1
	l7_config "$WORK/cfg.yaml" "sources:" "  network:" "    l7:" "      protocols: [kafka]"
	start_agent "$WORK/cfg.yaml" || return 1
	local m=100 log=$WORK/kafka_listener.log n0 t0 t1
	n0=$(wc -l <"$log")
	# At most 10 records per Produce request: several requests, whatever
	# kcat's batching decides, counted by the listener.
	t0=$(date +%s%N)
	seq 1 $m | sed 's/^/enav-secret-value-/' |
		kcat -P -b "127.0.0.1:$KAFKA_PORT" -t enav-topic -X batch.num.messages=10 >"$WORK/kcat.out" 2>&1 &
	local kpid=$!
	wait $kpid || { fail "kcat failed: $(tail -3 "$WORK/kcat.out")"; return 1; }
	t1=$(date +%s%N)
	log_since "$log" "$n0" >"$WORK/kafka1.log"
	local produces records apiv meta
	produces=$(grep -c '^Produce .* topic=enav-topic .* error=0$' "$WORK/kafka1.log")
	records=$(sed -n 's/^Produce .* records=\([0-9]*\) .*/\1/p' "$WORK/kafka1.log" | awk '{ s += $1 } END { print s + 0 }')
	apiv=$(grep -c '^ApiVersions ' "$WORK/kafka1.log")
	meta=$(grep -c '^Metadata ' "$WORK/kafka1.log")
	expect_eq "records the listener received" "$records" $m || return 1
	[ "$produces" -ge 2 ] || { fail "expected several Produce requests, the listener logged $produces"; return 1; }
	local cl='.kind == "span" and .span.protocol == "kafka" and .process.pid == '$kpid' and .connection.role == "client"'
	local answers
	answers=$(wc -l <"$WORK/kafka1.log")
	expect_eq "client spans == listener answers" "$(wait_for_count "$cl" "$answers")" "$answers" || return 1
	expect_eq "Produce spans == Produce requests logged ($produces)" \
		"$(count_lines "$cl and .span.operation == \"Produce\" and .span.target == \"enav-topic\" and .span.error == false and .span.status_code == 0 and .span.response_seen == true")" "$produces" || return 1
	expect_eq "ApiVersions spans" "$(count_lines "$cl and .span.operation == \"ApiVersions\" and .span.status_code == 0 and .span.error == false")" "$apiv" || return 1
	expect_eq "Metadata spans" "$(count_lines "$cl and .span.operation == \"Metadata\" and .span.error == false")" "$meta" || return 1
	[ "$apiv" -ge 1 ] && [ "$meta" -ge 1 ] || { fail "no ApiVersions/Metadata exchange logged"; return 1; }
	expect_eq "durations within (0, kcat wall time]" \
		"$(jq -r "select($cl) | .span.duration_ns > 0 and .span.duration_ns <= $((t1 - t0))" "$WORK/signals.ndjson" | sort -u)" true || return 1
	# The deliberate error: the listener answers INVALID_RECORD (87) for this
	# topic; kcat reports the failed delivery and exits non-zero (expected).
	n0=$(wc -l <"$log")
	echo enav-secret-value-err | kcat -P -b "127.0.0.1:$KAFKA_PORT" -t enav-error-topic >"$WORK/kcat2.out" 2>&1 &
	local epid=$!
	wait $epid && { fail "kcat succeeded producing to the error topic"; return 1; }
	log_since "$log" "$n0" >"$WORK/kafka2.log"
	local eprod
	eprod=$(grep -c '^Produce .* topic=enav-error-topic .* error=87$' "$WORK/kafka2.log")
	[ "$eprod" -ge 1 ] || { fail "the listener answered no error: $(cat "$WORK/kafka2.log")"; return 1; }
	local el='.kind == "span" and .span.protocol == "kafka" and .process.pid == '$epid' and .connection.role == "client"'
	answers=$(wc -l <"$WORK/kafka2.log")
	expect_eq "error run: client spans == listener answers" "$(wait_for_count "$el" "$answers")" "$answers" || return 1
	expect_eq "error Produce spans: status the code" \
		"$(count_lines "$el and .span.operation == \"Produce\" and .span.target == \"enav-error-topic\" and .span.error == true and .span.status == \"87\" and .span.status_code == 87")" "$eprod" || return 1
	expect_eq "error run: no other error" "$(count_lines "$el and .span.error == true")" "$eprod" || return 1
	no_literal enav-secret-value || return 1
	# The workload label is the process's name, not its writing thread's
	# (librdkafka writes from "rdk:broker<id>" threads).
	local comm
	comm=$(jq -r "select($cl) | .process.comm" "$WORK/signals.ndjson" | sort -u)
	expect_eq "one process name for every kcat span" "$comm" kcat || return 1
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics"
	metric_line "messaging_client_operation_duration_seconds_count{messaging_system=\"kafka\",messaging_operation_name=\"Produce\",messaging_destination_name=\"enav-topic\",workload=\"process:$comm\"} $produces" || return 1
	comm=$(jq -r "select($el and .span.operation == \"Produce\") | .process.comm" "$WORK/signals.ndjson" | sort -u)
	metric_line "messaging_client_operation_duration_seconds_count{messaging_system=\"kafka\",messaging_operation_name=\"Produce\",messaging_destination_name=\"enav-error-topic\",error_type=\"87\",workload=\"process:$comm\"} $eprod" || return 1
}

# MongoDB, client side (pymongo's spans): insert_one x N, find_one, an unknown
# command (CommandNotFound, code 59), close.  Like Kafka, the reply parsing is
# proven against the listener's encoding only.
case_mongo_pymongo() {
	require_root || return
	"$PY" -c 'import pymongo' 2>/dev/null || { fail "pymongo missing for $PY (python3-pymongo; scripts/deps.sh test)"; return 1; }
	start_listener mongo_listener "$MONGO_PORT" || return 1
	l7_config "$WORK/cfg.yaml" "sources:" "  network:" "    l7:" "      protocols: [mongodb]"
	start_agent "$WORK/cfg.yaml" || return 1
	cat >"$WORK/mongo_workload.py" <<'PY'
import json, sys, time
import pymongo
from pymongo.errors import OperationFailure

port, n = int(sys.argv[1]), int(sys.argv[2])
t0 = time.monotonic_ns()
c = pymongo.MongoClient("127.0.0.1", port, serverSelectionTimeoutMS=5000)
items = c.enav.items
for i in range(n):
    items.insert_one({"name": "enav-secret-doc-%d" % i, "qty": i})
doc = items.find_one({"name": "enav-secret-doc-0"})
code = None
try:
    c.enav.command("enavNoSuchCommand")
except OperationFailure as e:
    code = e.code
c.close()
print(json.dumps({"error_code": code, "wall_ns": time.monotonic_ns() - t0}))
PY
	local n=6 log=$WORK/mongo_listener.log
	"$PY" "$WORK/mongo_workload.py" "$MONGO_PORT" $n >"$WORK/mongo.out" 2>&1 &
	local ppid=$!
	wait $ppid || { fail "pymongo workload failed: $(tail -3 "$WORK/mongo.out")"; return 1; }
	local r wall
	r=$(tail -1 "$WORK/mongo.out")
	expect_eq "pymongo saw CommandNotFound" "$(jq -r .error_code <<<"$r")" 59 || return 1
	wall=$(jq -r .wall_ns <<<"$r")
	expect_eq "inserts the listener answered" "$(grep -c '^OP_MSG insert enav.items n=1 ok=1$' "$log")" $n || return 1
	local answers
	answers=$(($(wc -l <"$log") - 1)) # all but "listening"
	local cl='.kind == "span" and .span.protocol == "mongodb" and .process.pid == '$ppid' and .connection.role == "client"'
	expect_eq "client spans == listener answers" "$(wait_for_count "$cl" "$answers")" "$answers" || return 1
	expect_eq "insert spans" "$(count_lines "$cl and .span.operation == \"insert\" and .span.target == \"items\" and .span.error == false and .span.response_seen == true")" $n || return 1
	expect_eq "find spans" "$(count_lines "$cl and .span.operation == \"find\" and .span.target == \"items\" and .span.error == false")" 1 || return 1
	expect_eq "the unknown command: CommandNotFound (59)" \
		"$(count_lines "$cl and .span.operation == \"enavNoSuchCommand\" and .span.status == \"CommandNotFound\" and .span.status_code == 59 and .span.error == true and .span.response_seen == true")" 1 || return 1
	expect_eq "only that error" "$(count_lines "$cl and .span.error == true")" 1 || return 1
	local hs
	hs=$(count_lines "$cl and (.span.operation | ascii_downcase | . == \"hello\" or . == \"ismaster\") and .span.error == false")
	[ "$hs" -ge 1 ] || { fail "no hello/isMaster handshake span"; return 1; }
	expect_eq "handshakes == the listener's" "$hs" "$(grep -ciE '^OP_(QUERY|MSG) (hello|ismaster) ok=1$' "$log")" || return 1
	expect_eq "durations within (0, workload wall time]" \
		"$(jq -r "select($cl) | .span.duration_ns > 0 and .span.duration_ns <= $wall" "$WORK/signals.ndjson" | sort -u)" true || return 1
	no_literal enav-secret-doc || return 1
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics"
	metric_line "db_client_operation_duration_seconds_count{db_system_name=\"mongodb\",db_operation_name=\"insert\",db_collection_name=\"items\",workload=\"process:python3\"} $n" || return 1
	metric_line 'db_client_operation_duration_seconds_count{db_system_name="mongodb",db_operation_name="enavNoSuchCommand",error_type="CommandNotFound",workload="process:python3"} 1' || return 1
}

trap 'stop_servers; cleanup' EXIT
run_case "NATS verbose: PUB/HPUB/SUB/UNSUB acknowledged, deliveries, pedantic -ERR, pairing, RED" case_nats_verbose
stop_servers
run_case "NATS default: one-way messages (start == end), unknown op is a parse error" case_nats_quiet
stop_servers
run_case "Kafka (kcat -> stand-in listener): Produce spans == Produce requests, error code" case_kafka_kcat
stop_servers
run_case "MongoDB (pymongo -> stand-in listener): insert/find/CommandNotFound, handshake" case_mongo_pymongo
stop_servers
finish
