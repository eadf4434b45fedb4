#!/usr/bin/env bash
# Self-test of the OTLP test receiver, independent of our C code: requests made
# by OpenTelemetry JS's protobuf code (encode.js) and, where protoc and the
# OTLP .proto files are at hand, by `protoc --encode`; every fault mode checked
# with curl, with timings.  About 6 s.  Usage: tests/otlp/selftest.sh
# NODE=/path/to/node picks the Node.js binary (the receiver targets Node 18).
# OTLP_PROTO_DIR points at an opentelemetry-proto checkout for the protoc cases.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
NODE=${NODE:-node}
PROTO_DIR=${OTLP_PROTO_DIR:-$HERE/../../../shared/validate/schemas/opentelemetry-proto}
T=$(mktemp -d /tmp/enav-otlp-selftest.XXXXXX)
OUT=$T/out
RPID=
PASSED=0
FAILED=0
SKIPPED=0

cleanup() {
	[ -n "$RPID" ] && kill "$RPID" 2>/dev/null
	[ -n "${KEEP_WORK:-}" ] || rm -rf "$T"
}
trap cleanup EXIT

fail() {
	echo "    $*" >&2
	return 1
}

run_case() {
	local rc
	"$2"
	rc=$?
	if [ $rc -eq 0 ]; then
		PASSED=$((PASSED + 1))
		echo "PASS $1"
	elif [ $rc -eq 77 ]; then
		SKIPPED=$((SKIPPED + 1))
		echo "SKIP $1"
	else
		FAILED=$((FAILED + 1))
		echo "FAIL $1"
	fi
}

now_ms() { date +%s%3N; }

"$HERE/setup.sh" || exit 1
for t in curl jq gzip; do
	command -v $t >/dev/null || { echo "selftest: $t is needed (scripts/deps.sh test)" >&2; exit 1; }
done

# Start the receiver on a free port and wait for "ready PORT".
"$NODE" "$HERE/receiver.js" 0 "$OUT" >"$T/receiver.out" 2>"$T/receiver.err" &
RPID=$!
for _ in $(seq 50); do
	grep -q '^ready ' "$T/receiver.out" 2>/dev/null && break
	sleep 0.1
done
PORT=$(awk '/^ready / { print $2; exit }' "$T/receiver.out")
[ -n "$PORT" ] || { echo "selftest: receiver did not start: $(cat "$T/receiver.err")" >&2; exit 1; }
URL=http://127.0.0.1:$PORT

for s in metrics traces logs; do
	(cd "$HERE" && "$NODE" encode.js request $s) >"$T/$s.pb" || { echo "selftest: encode.js $s failed" >&2; exit 1; }
	gzip -c "$T/$s.pb" >"$T/$s.pb.gz"
done

# post PATH FILE [curl args...]: prints the HTTP status; the body goes to $T/resp.
post() {
	local p=$1 f=$2
	shift 2
	curl -s -o "$T/resp" -w '%{http_code}' -H 'Content-Type: application/x-protobuf' \
		--data-binary "@$f" "$@" "$URL$p"
}

control() {
	local st
	st=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' -d "$1" "$URL/control")
	[ "$st" = 200 ] || fail "POST /control $1 answered $st"
}

lines() { [ -f "$1" ] && wc -l <"$1" || echo 0; }

expect() { # expect WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
}

case_decode_plain_and_gzip() {
	local s st
	for s in metrics traces logs; do
		st=$(post /v1/$s "$T/$s.pb" -H 'X-Test-Case: plain' -H 'User-Agent: selftest') || return 1
		expect "$s plain status" "$st" 200 || return 1
		st=$(post /v1/$s "$T/$s.pb.gz" -H 'Content-Encoding: gzip' -H 'X-Test-Case: gzip') || return 1
		expect "$s gzip status" "$st" 200 || return 1
		expect "$s lines" "$(lines "$OUT/$s.ndjson")" 2 || return 1
	done
	local m=$OUT/metrics.ndjson
	expect "gauge value" "$(jq -r 'select(.headers["x-test-case"] == "plain") | .request.resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].asInt' "$m")" 42 || return 1
	expect "64-bit time as string" "$(jq -r '.request.resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].timeUnixNano | type + ":" + .' "$m" | sort -u)" string:1700000000123456789 || return 1
	expect "service.name" "$(jq -r '.request.resourceMetrics[0].resource.attributes[0].value.stringValue' "$m" | sort -u)" otlp-selftest || return 1
	expect "gzip header" "$(jq -r 'select(.headers["x-test-case"] == "gzip") | .headers["content-encoding"]' "$m")" gzip || return 1
	expect "no other headers" "$(jq -c '.headers | keys' "$m" | sort -u | tr '\n' ' ')" '["content-encoding","content-type","x-test-case"] ["content-type","x-test-case"] ' || return 1
	expect "trace id as hex" "$(jq -r '.request.resourceSpans[0].scopeSpans[0].spans[0].traceId' "$OUT/traces.ndjson" | sort -u)" 0102030405060708090a0b0c0d0e0f10 || return 1
	expect "log body" "$(jq -r '.request.resourceLogs[0].scopeLogs[0].logRecords[0].body.stringValue' "$OUT/logs.ndjson" | sort -u)" "hello otlp" || return 1
	expect "time_ms" "$(jq -r '(.time_ms | type) + ":" + .signal' "$m" | sort -u)" number:metrics || return 1
}

case_protoc_encoded() {
	command -v protoc >/dev/null && [ -d "$PROTO_DIR/opentelemetry/proto" ] ||
		{ echo "    skipped: protoc or $PROTO_DIR missing" >&2; return 77; }
	protoc -I "$PROTO_DIR" --encode=opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest \
		opentelemetry/proto/collector/metrics/v1/metrics_service.proto >"$T/protoc.pb" <<'EOF' || return 1
resource_metrics {
  resource { attributes { key: "service.name" value { string_value: "protoc-made" } } }
  scope_metrics {
    metrics {
      name: "protoc.sum"
      sum {
        aggregation_temporality: AGGREGATION_TEMPORALITY_CUMULATIVE
        is_monotonic: true
        data_points { time_unix_nano: 18446744073709551615 as_int: -5 }
      }
    }
  }
}
EOF
	local st
	st=$(post /v1/metrics "$T/protoc.pb" -H 'X-Test-Case: protoc') || return 1
	expect "protoc status" "$st" 200 || return 1
	expect "protoc metric" "$(jq -c 'select(.headers["x-test-case"] == "protoc") | .request.resourceMetrics[0].scopeMetrics[0].metrics[0] | [.name, .sum.dataPoints[0].timeUnixNano, .sum.dataPoints[0].asInt, .sum.aggregationTemporality]' "$OUT/metrics.ndjson")" \
		'["protoc.sum","18446744073709551615","-5",2]'
}

case_bad_bodies() {
	local st
	printf '\xff\xff\xff\xff' >"$T/garbage"
	st=$(post /v1/traces "$T/garbage" -H 'X-Test-Case: garbage') || return 1
	expect "garbage status" "$st" 400 || return 1
	st=$(post /v1/logs "$T/logs.pb" -H 'Content-Encoding: gzip') || return 1
	expect "not gzip status" "$st" 400 || return 1
	expect "error lines" "$(lines "$OUT/errors.ndjson")" 2 || return 1
	expect "error signals" "$(jq -r .signal "$OUT/errors.ndjson" | tr '\n' ' ')" "traces logs " || return 1
	expect "decode error" "$(jq -r 'select(.headers["x-test-case"] == "garbage") | .error | startswith("decode:")' "$OUT/errors.ndjson")" true || return 1
	expect "traces still 2" "$(lines "$OUT/traces.ndjson")" 2
}

case_profiles_raw() {
	head -c 3000 /dev/urandom >"$T/prof.bin"
	gzip -c "$T/prof.bin" >"$T/prof.bin.gz"
	local st f
	st=$(post /v1development/profiles "$T/prof.bin.gz" -H 'Content-Encoding: gzip') || return 1
	expect "profiles status" "$st" 200 || return 1
	f=$(jq -r .file "$OUT/profiles.ndjson" | tail -n1)
	cmp -s "$T/prof.bin" "$OUT/$f" || fail "saved profile $f differs from what was sent"
}

case_mode_status() {
	control '{"signal":"metrics","mode":"status","status":503,"retry_after":1,"for_ms":700}' || return 1
	local t0 st
	t0=$(now_ms)
	st=$(curl -s -D "$T/hdr" -o /dev/null -w '%{http_code}' -H 'Content-Type: application/x-protobuf' \
		--data-binary "@$T/metrics.pb" "$URL/v1/metrics")
	expect "status mode" "$st" 503 || return 1
	grep -qi '^retry-after: 1' "$T/hdr" || { fail "no Retry-After: $(cat "$T/hdr")"; return 1; }
	expect "refused line" "$(jq -r '.mode + ":" + (.status | tostring)' "$OUT/metrics.refused.ndjson" | tail -n1)" status:503 || return 1
	# Still 503 until for_ms has passed, then 200.
	st=$(post /v1/metrics "$T/metrics.pb")
	local waited=$(($(now_ms) - t0))
	[ $waited -lt 700 ] && { expect "status mode before for_ms" "$st" 503 || return 1; }
	sleep "$(awk -v w=$waited 'BEGIN { s = (750 - w) / 1000; print (s > 0 ? s : 0) }')"
	st=$(post /v1/metrics "$T/metrics.pb")
	expect "after for_ms" "$st" 200 || return 1
	# count: only the next N requests.
	control '{"signal":"traces","mode":"status","status":429,"count":1}' || return 1
	expect "count 1: first" "$(post /v1/traces "$T/traces.pb")" 429 || return 1
	expect "count 1: second" "$(post /v1/traces "$T/traces.pb")" 200
}

case_mode_hang() {
	control '{"signal":"logs","mode":"hang"}' || return 1
	local t0 rc el
	t0=$(now_ms)
	post /v1/logs "$T/logs.pb" --max-time 0.6 >/dev/null
	rc=$?
	el=$(($(now_ms) - t0))
	expect "hang: curl timed out" "$rc" 28 || return 1
	[ $el -ge 550 ] || { fail "hang answered after ${el} ms"; return 1; }
	control '{"signal":"logs","mode":"ok"}' || return 1
	expect "after hang" "$(post /v1/logs "$T/logs.pb")" 200
}

case_mode_reset() {
	control '{"signal":"traces","mode":"reset"}' || return 1
	local rc
	post /v1/traces "$T/traces.pb" --max-time 3 >/dev/null
	rc=$?
	# 56: connection reset; 52: empty reply.
	[ $rc -eq 56 ] || [ $rc -eq 52 ] || { fail "reset: curl exit $rc, want 56 or 52"; return 1; }
	control '{"signal":"traces","mode":"ok"}'
}

case_mode_slow() {
	control '{"signal":"metrics","mode":"slow","delay_ms":800}' || return 1
	local t0 st el
	t0=$(now_ms)
	st=$(post /v1/metrics "$T/metrics.pb")
	el=$(($(now_ms) - t0))
	expect "slow status" "$st" 200 || return 1
	[ $el -ge 750 ] || { fail "slow answered after ${el} ms, want >= 800"; return 1; }
	# A 48 KiB body read 4 KiB every 100 ms: at least 1.1 s, and intact.
	control '{"signal":"profiles","mode":"slow","delay_ms":0,"chunk_bytes":4096,"interval_ms":100}' || return 1
	head -c 49152 /dev/urandom >"$T/big.bin"
	t0=$(now_ms)
	st=$(post /v1development/profiles "$T/big.bin")
	el=$(($(now_ms) - t0))
	expect "slow big status" "$st" 200 || return 1
	[ $el -ge 1100 ] || { fail "slow 48 KiB body read in ${el} ms, want >= 1100"; return 1; }
	cmp -s "$T/big.bin" "$OUT/$(jq -r .file "$OUT/profiles.ndjson" | tail -n1)" || { fail "slow body corrupted"; return 1; }
	control '{"signal":"all","mode":"ok"}'
}

case_mode_partial() {
	control '{"signal":"metrics","mode":"partial","rejected":2}' || return 1
	expect "partial status" "$(post /v1/metrics "$T/metrics.pb")" 200 || return 1
	expect "partial body" "$(cd "$HERE" && "$NODE" encode.js response metrics <"$T/resp")" \
		'{"partialSuccess":{"rejectedDataPoints":"2","errorMessage":"test receiver rejected 2 item(s)"}}' || return 1
	control '{"signal":"logs","mode":"partial","rejected":3,"error_message":"nope"}' || return 1
	expect "partial logs" "$(post /v1/logs "$T/logs.pb")" 200 || return 1
	expect "partial logs body" "$(cd "$HERE" && "$NODE" encode.js response logs <"$T/resp")" \
		'{"partialSuccess":{"rejectedLogRecords":"3","errorMessage":"nope"}}' || return 1
	# profiles: hand-encoded, read back by protoc where it is at hand.
	control '{"signal":"profiles","mode":"partial","rejected":300}' || return 1
	expect "partial profiles" "$(post /v1development/profiles "$T/prof.bin")" 200 || return 1
	if command -v protoc >/dev/null && [ -d "$PROTO_DIR/opentelemetry/proto" ]; then
		expect "partial profiles body" "$(protoc -I "$PROTO_DIR" \
			--decode=opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceResponse \
			opentelemetry/proto/collector/profiles/v1development/profiles_service.proto <"$T/resp" | tr -s ' \n' ' ')" \
			'partial_success { rejected_profiles: 300 error_message: "test receiver rejected 300 item(s)" } ' || return 1
	fi
	control '{"signal":"all","mode":"ok"}' || return 1
	expect "ok body is empty" "$(post /v1/metrics "$T/metrics.pb"; stat -c %s "$T/resp")" 2000
}

case_stats_and_control_errors() {
	local s
	s=$(curl -s "$URL/stats")
	expect "metrics stats" "$(jq -c '.metrics | [.status >= 1, .slow, .partial]' <<<"$s")" '[true,1,1]' || return 1
	expect "hang/reset stats" "$(jq -c '[.logs.hang, .traces.reset, .traces.errors, .logs.errors]' <<<"$s")" '[1,1,1,1]' || return 1
	expect "bad mode" "$(curl -s -o /dev/null -w '%{http_code}' -d '{"signal":"metrics","mode":"nap"}' "$URL/control")" 400 || return 1
	expect "bad signal" "$(curl -s -o /dev/null -w '%{http_code}' -d '{"signal":"x","mode":"ok"}' "$URL/control")" 400 || return 1
	expect "unknown path" "$(curl -s -o /dev/null -w '%{http_code}' -d x "$URL/v1/nothing")" 404
}

case_sigterm_with_hung_request() {
	control '{"signal":"metrics","mode":"hang"}' || return 1
	post /v1/metrics "$T/metrics.pb" --max-time 5 >/dev/null &
	local cpid=$! t0 rc el
	sleep 0.3
	t0=$(now_ms)
	kill -TERM "$RPID"
	wait "$RPID"
	rc=$?
	el=$(($(now_ms) - t0))
	RPID=
	wait $cpid
	expect "exit status on SIGTERM" "$rc" 0 || return 1
	[ $el -lt 1500 ] || fail "exit took ${el} ms"
}

run_case decode_plain_and_gzip case_decode_plain_and_gzip
run_case protoc_encoded case_protoc_encoded
run_case bad_bodies case_bad_bodies
run_case profiles_raw case_profiles_raw
run_case mode_status case_mode_status
run_case mode_hang case_mode_hang
run_case mode_reset case_mode_reset
run_case mode_slow case_mode_slow
run_case mode_partial case_mode_partial
run_case stats_and_control_errors case_stats_and_control_errors
run_case sigterm_with_hung_request case_sigterm_with_hung_request
echo "otlp selftest: $PASSED passed, $FAILED failed, $SKIPPED skipped"
[ $FAILED -eq 0 ]
