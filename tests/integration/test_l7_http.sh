#!/usr/bin/env bash
# Application protocols, HTTP family, against nginx on loopback: HTTP/1.1
# (keep-alive, 404s, W3C traceparent valid and malformed) with curl, HTTP/2
# (h2c prior knowledge, concurrent streams) with nghttp, and gRPC-shaped
# calls whose grpc-status nginx sets.  Every request yields exactly one span
# on each end, with its method, route, status and a duration below the
# client's own measurement; client and server spans share a trace id.
. "$(dirname "$0")/lib.sh"

HTTP_PORT=${HTTP_PORT:-18090}
H2_PORT=${H2_PORT:-18091}
NGINX_PID=

start_nginx() {
	command -v nginx >/dev/null || { fail "nginx missing (scripts/deps.sh test)"; return 1; }
	mkdir -p "$WORK/www/static" "$WORK/logs"
	printf 'hello\n' >"$WORK/www/static/small.txt"
	printf 'hello again\n' >"$WORK/www/static/small2.txt"
	head -c 200000 /dev/zero >"$WORK/www/static/big.bin"
	head -c 300000 /dev/zero >"$WORK/www/static/big2.bin"
	cat >"$WORK/nginx.conf" <<CONF
daemon off;
master_process off;
user root;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log;
events { worker_connections 64; }
http {
	access_log off;
	sendfile on;
	keepalive_requests 1000;
	server {
		listen 127.0.0.1:$HTTP_PORT;
		listen [::1]:$HTTP_PORT;
		root $WORK/www;
	}
	server {
		listen 127.0.0.1:$H2_PORT http2;
		root $WORK/www;
		location /enav.test.Echo/ {
			default_type application/grpc;
			add_header grpc-status 0 always;
			return 200 "";
		}
		location /enav.test.Broken/ {
			default_type application/grpc;
			add_header grpc-status 13 always;
			return 200 "";
		}
	}
}
CONF
	nginx -c "$WORK/nginx.conf" -e "$WORK/logs/error.log" &
	NGINX_PID=$!
	local i
	for ((i = 0; i < 50; i++)); do
		curl -fs -o /dev/null "http://127.0.0.1:$HTTP_PORT/static/small.txt" && return 0
		sleep 0.1
	done
	fail "nginx did not start: $(tail -3 "$WORK/logs/error.log")"
}

WS_PID=
stop_servers() {
	[ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
	[ -n "$WS_PID" ] && kill "$WS_PID" 2>/dev/null && wait "$WS_PID" 2>/dev/null
	WS_PID=
	NGINX_PID=
}

# http1 HOST: 12 requests on one keep-alive connection: 8 x 200, 4 x 404.
http1_case() {
	local host=$1 base
	require_root || return
	start_nginx || return 1
	l7_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	base="http://$host:$HTTP_PORT"
	local urls=() i
	for i in 1 2 3 4; do
		urls+=("$base/static/small.txt" "$base/static/big.bin" "$base/users/$((1000 + i))/orders")
	done
	curl -g -s -o /dev/null -w '%{http_code} %{time_total} %{local_port}\n' \
		$(printf -- '-o /dev/null %s ' "${urls[@]}") >"$WORK/curl.out" &
	local cpid=$!
	wait $cpid || { fail "curl failed"; return 1; }
	[ "$(awk '{ print $3 }' "$WORK/curl.out" | sort -u | wc -l)" = 1 ] ||
		{ fail "curl did not keep its connection"; return 1; }
	local n200 n404 lport
	n200=$(awk '$1 == 200' "$WORK/curl.out" | wc -l)
	n404=$(awk '$1 == 404' "$WORK/curl.out" | wc -l)
	lport=$(awk 'NR == 1 { print $3 }' "$WORK/curl.out")
	expect_eq "curl 200s" "$n200" 8 || return 1
	expect_eq "curl 404s" "$n404" 4 || return 1
	local cl='.kind == "span" and .span.protocol == "http1" and .process.pid == '$cpid
	local sv='.kind == "span" and .span.protocol == "http1" and .process.pid == '$NGINX_PID' and .connection.remote_port == '$lport
	expect_eq "client spans" "$(wait_for_count "$cl" 12)" 12 || return 1
	expect_eq "server spans" "$(wait_for_count "$sv" 12)" 12 || return 1
	expect_eq "client 404 spans (errors on the client side)" \
		"$(count_lines "$cl and .span.status_code == 404 and .span.error == true")" 4 || return 1
	expect_eq "server 404 spans (not server errors)" \
		"$(count_lines "$sv and .span.status_code == 404 and .span.error == false")" 4 || return 1
	expect_eq "templated route" \
		"$(count_lines "$sv and .span.target == \"/users/{id}/orders\" and .span.operation == \"GET\"")" 4 || return 1
	expect_eq "server big.bin response bytes (headers + 200000)" \
		"$(jq -r "select($sv and .span.path == \"/static/big.bin\") | .span.response_bytes >= 200000 and .span.response_bytes < 200400" "$WORK/signals.ndjson" | sort -u)" true || return 1
	# Durations: positive, and each below the slowest the client measured.
	local max_ns
	max_ns=$(awk '{ t = $2 * 1e9; if (t > m) m = t } END { printf "%d", m + 1e6 }' "$WORK/curl.out")
	expect_eq "durations within (0, curl time]" \
		"$(jq -r "select(($cl) or ($sv)) | .span.duration_ns > 0 and .span.duration_ns <= $max_ns" "$WORK/signals.ndjson" | sort -u)" true || return 1
	# Pairing: every client span's trace id has exactly one server span,
	# whose parent is the client span.
	jq -r "select($cl) | .span.trace_id + \" \" + .span.span_id" "$WORK/signals.ndjson" | sort >"$WORK/client.ids"
	jq -r "select($sv) | .span.trace_id + \" \" + .span.parent_span_id" "$WORK/signals.ndjson" | sort >"$WORK/server.ids"
	expect_eq "distinct trace ids" "$(cut -d' ' -f1 "$WORK/client.ids" | sort -u | wc -l)" 12 || return 1
	cmp -s "$WORK/client.ids" "$WORK/server.ids" || {
		fail "client and server spans do not pair: $(diff "$WORK/client.ids" "$WORK/server.ids" | head -4)"
		return 1
	}
	expect_eq "id source" "$(jq -r "select($cl) | .span.id_source" "$WORK/signals.ndjson" | sort -u)" connection || return 1
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics"
	grep -q "^http_server_request_duration_seconds_count{http_request_method=\"GET\",http_route=\"/users/{id}/orders\",http_response_status_code=\"404\",network_protocol_name=\"http\",workload=\"process:nginx\"} 4\$" "$WORK/metrics" ||
		{ fail "server RED histogram: $(grep '^http_server_request_duration_seconds_count' "$WORK/metrics" | head -3)"; return 1; }
	grep -q "^http_client_request_duration_seconds_count{http_request_method=\"GET\",http_route=\"/static/small.txt\",http_response_status_code=\"200\",network_protocol_name=\"http\",workload=\"process:curl\"} 4\$" "$WORK/metrics" ||
		{ fail "client RED histogram missing"; return 1; }
	promtool check metrics <"$WORK/metrics" >/dev/null 2>&1
	local rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 3 ] || { fail "promtool rejects /metrics"; return 1; }
}

case_http1_ipv4() { http1_case 127.0.0.1; }
case_http1_ipv6() { http1_case '[::1]'; }

case_traceparent() {
	require_root || return
	start_nginx || return 1
	l7_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	local good=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01
	local bad=00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01 # upper case: invalid
	curl -s -o /dev/null -H "traceparent: $good" "http://127.0.0.1:$HTTP_PORT/static/small.txt" &
	local p1=$!
	wait $p1
	curl -s -o /dev/null -H "traceparent: $bad" "http://127.0.0.1:$HTTP_PORT/static/small.txt" &
	local p2=$!
	wait $p2
	local s
	s=$(wait_for_line ".kind == \"span\" and .process.pid == $p1") || { fail "no span for the valid traceparent"; return 1; }
	expect_eq "trace id from the header" "$(jq -r .span.trace_id <<<"$s")" 4bf92f3577b34da6a3ce929d0e0e4736 || return 1
	expect_eq "parent from the header" "$(jq -r .span.parent_span_id <<<"$s")" 00f067aa0ba902b7 || return 1
	expect_eq "id source" "$(jq -r .span.id_source <<<"$s")" traceparent || return 1
	s=$(wait_for_line ".kind == \"span\" and .process.pid == $p2") || { fail "no span for the malformed traceparent"; return 1; }
	[ "$(jq -r .span.trace_id <<<"$s")" != 4bf92f3577b34da6a3ce929d0e0e4736 ] || { fail "malformed traceparent was used"; return 1; }
	expect_eq "malformed header ignored" "$(jq -r .span.id_source <<<"$s")" connection || return 1
}

case_http2() {
	require_root || return
	command -v nghttp >/dev/null || { fail "nghttp missing (scripts/deps.sh test)"; return 1; }
	start_nginx || return 1
	l7_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	local base="http://127.0.0.1:$H2_PORT"
	# One connection, 6 concurrent streams (nghttp drops repeated URIs, so
	# all differ): 4 found, 2 not found.
	nghttp -n -s "$base/static/small.txt" "$base/static/big.bin" "$base/static/small2.txt" \
		"$base/static/big2.bin" "$base/nope/42" "$base/nope/43" >"$WORK/nghttp.out" 2>&1 &
	local cpid=$!
	wait $cpid || { fail "nghttp failed: $(tail -3 "$WORK/nghttp.out")"; return 1; }
	local cl='.kind == "span" and .span.protocol == "http2" and .process.pid == '$cpid
	local sv='.kind == "span" and .span.protocol == "http2" and .process.pid == '$NGINX_PID
	expect_eq "client stream spans" "$(wait_for_count "$cl" 6)" 6 || return 1
	expect_eq "server stream spans" "$(wait_for_count "$sv" 6)" 6 || return 1
	expect_eq "distinct stream ids" "$(jq -r "select($cl) | .span.stream_id" "$WORK/signals.ndjson" | sort -u | wc -l)" 6 || return 1
	expect_eq "404 streams" "$(count_lines "$sv and .span.status_code == 404 and .span.target == \"/nope/{id}\"")" 2 || return 1
	expect_eq "200 streams" "$(count_lines "$sv and .span.status_code == 200 and .span.operation == \"GET\"")" 4 || return 1
	expect_eq "big2.bin response bytes (frames of 300000 bytes of body)" \
		"$(jq -r "select($sv and .span.path == \"/static/big2.bin\") | .span.response_bytes > 300000 and .span.response_bytes < 300600" "$WORK/signals.ndjson")" true || return 1
	jq -r "select($cl) | .span.trace_id + \" \" + .span.span_id" "$WORK/signals.ndjson" | sort >"$WORK/client.ids"
	jq -r "select($sv) | .span.trace_id + \" \" + .span.parent_span_id" "$WORK/signals.ndjson" | sort >"$WORK/server.ids"
	cmp -s "$WORK/client.ids" "$WORK/server.ids" || { fail "HTTP/2 client and server spans do not pair"; return 1; }
}

case_grpc() {
	require_root || return
	start_nginx || return 1
	l7_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	local base="http://127.0.0.1:$H2_PORT"
	printf '\0\0\0\0\0' >"$WORK/grpc.body"
	nghttp -n -H 'content-type: application/grpc' -H 'te: trailers' -d "$WORK/grpc.body" \
		"$base/enav.test.Echo/Say" "$base/enav.test.Echo/Shout" "$base/enav.test.Broken/Call" \
		>"$WORK/nghttp.out" 2>&1 &
	local cpid=$!
	wait $cpid || { fail "nghttp failed: $(tail -3 "$WORK/nghttp.out")"; return 1; }
	local sv='.kind == "span" and .span.protocol == "http2" and .process.pid == '$NGINX_PID' and .span.rpc == true'
	expect_eq "gRPC server spans" "$(wait_for_count "$sv" 3)" 3 || return 1
	expect_eq "grpc-status 0" "$(count_lines "$sv and (.span.target | startswith(\"/enav.test.Echo/\")) and .span.status_code == 0 and .span.error == false")" 2 || return 1
	expect_eq "grpc-status 13 is an error" "$(count_lines "$sv and .span.target == \"/enav.test.Broken/Call\" and .span.status_code == 13 and .span.error == true")" 1 || return 1
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics"
	grep -q '^rpc_server_duration_seconds_count{rpc_system="grpc",rpc_method="/enav.test.Broken/Call",rpc_grpc_status_code="13",error_type="13",workload="process:nginx"} 1$' "$WORK/metrics" ||
		{ fail "rpc histogram: $(grep '^rpc_server_duration_seconds_count' "$WORK/metrics" | head -3)"; return 1; }
}

# WebSocket after an HTTP/1.1 upgrade: metadata only, one span per frame.
case_websocket() {
	require_root || return
	local port=${WS_PORT:-18093}
	python3 "$(dirname "$0")/peers/ws_peer.py" server "$port" >"$WORK/ws.log" 2>&1 &
	WS_PID=$!
	local i
	for ((i = 0; i < 50; i++)); do grep -qs listening "$WORK/ws.log" && break; sleep 0.1; done
	l7_config "$WORK/cfg.yaml" "sources:" "  network:" "    l7:" "      protocols: [http1]"
	start_agent "$WORK/cfg.yaml" || return 1
	python3 "$(dirname "$0")/peers/ws_peer.py" client "$port" 10 100 >"$WORK/wsc.out" 2>&1 &
	local cpid=$!
	wait $cpid || { fail "websocket client failed: $(cat "$WORK/wsc.out")"; return 1; }
	local cl='.kind == "span" and .process.pid == '$cpid
	local sv='.kind == "span" and .process.pid == '$WS_PID
	local up
	up=$(wait_for_line "$cl and .span.protocol == \"http1\"") || { fail "no upgrade span"; return 1; }
	expect_eq "upgrade" "$(jq -c '[.span.operation, .span.target, .span.status_code]' <<<"$up")" '["GET","/ws/room/{id}",101]' || return 1
	local ws='.span.protocol == "websocket" and .span.kind == "message"'
	# 10 text + 1 binary + ping + close each way, from each end.
	expect_eq "client frames" "$(wait_for_count "$cl and $ws" 26)" 26 || return 1
	expect_eq "server frames" "$(wait_for_count "$sv and $ws" 26)" 26 || return 1
	expect_eq "client text frames sent, 100 bytes each" \
		"$(count_lines "$cl and $ws and .span.operation == \"text\" and .span.receive == false and .span.request_bytes == 100")" 10 || return 1
	expect_eq "client text frames received" \
		"$(count_lines "$cl and $ws and .span.operation == \"text\" and .span.receive == true")" 10 || return 1
	expect_eq "server text frames received" \
		"$(count_lines "$sv and $ws and .span.operation == \"text\" and .span.receive == false and .span.request_bytes == 100")" 10 || return 1
	expect_eq "binary, ping, pong and close from the client" \
		"$(jq -r "select($cl and $ws) | .span.operation" "$WORK/signals.ndjson" | sort | uniq -c | awk '{ printf "%s:%s ", $2, $1 }')" \
		"binary:2 close:2 ping:1 pong:1 text:20 " || return 1
	expect_eq "close code" "$(jq -r "select($cl and $ws and .span.operation == \"close\" and .span.receive == false) | .span.status_code" "$WORK/signals.ndjson")" 1000 || return 1
	expect_eq "payloads never leave" "$(jq -c 'select(.kind == "span")' "$WORK/signals.ndjson" | grep -c mmmmmmmm)" 0 || return 1
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics"
	grep -q '^enav_websocket_frames_total{websocket_opcode="text",network_io_direction="transmit",http_route="/ws/room/{id}",network_role="client",workload="process:python3"} 10$' "$WORK/metrics" ||
		{ fail "websocket metric: $(grep '^enav_websocket_frames_total' "$WORK/metrics" | head -3)"; return 1; }
}

trap 'stop_servers; cleanup' EXIT
run_case "HTTP/1.1 over IPv4: keep-alive, 200/404, routes, pairing, RED metrics" case_http1_ipv4
stop_servers
run_case "HTTP/1.1 over IPv6" case_http1_ipv6
stop_servers
run_case "W3C traceparent: valid one used, malformed one ignored" case_traceparent
stop_servers
run_case "HTTP/2 h2c: six concurrent streams, one span each" case_http2
stop_servers
run_case "gRPC over HTTP/2: grpc-status 0 and 13" case_grpc
stop_servers
run_case "WebSocket: upgrade, then one span per frame, no payload" case_websocket
stop_servers
finish
