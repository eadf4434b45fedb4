#!/usr/bin/env bash
# What a new user sees first: `enav run` with no file at all (NDJSON on
# stdout, /metrics on 127.0.0.1:9464) becomes ready, stays up, and reports a
# curl to nginx with exact bytes at both ends and paired HTTP spans.  The
# kernel matrix runs it on every kernel (tests/kernels/tests.list).
. "$(dirname "$0")/lib.sh"

HTTP_PORT=${HTTP_PORT:-18090}
NGINX_PID=

stop_servers() {
	[ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
	NGINX_PID=
}

start_nginx() {
	command -v nginx >/dev/null || { fail "nginx missing (scripts/deps.sh test)"; return 1; }
	mkdir -p "$WORK/www"
	head -c 100000 /dev/urandom >"$WORK/www/file.bin"
	cat >"$WORK/nginx.conf" <<CONF
daemon off;
master_process off;
user root;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 64; }
http {
	log_format counts '\$bytes_sent \$request_length';
	access_log $WORK/access.log counts;
	server { listen 127.0.0.1:$HTTP_PORT; root $WORK/www; }
}
CONF
	nginx -c "$WORK/nginx.conf" -e "$WORK/nginx-error.log" &
	NGINX_PID=$!
	local i
	for ((i = 0; i < 50; i++)); do
		[ -e "$WORK/nginx.pid" ] && return 0
		sleep 0.1
	done
	fail "nginx did not start: $(tail -3 "$WORK/nginx-error.log")"
}

case_default_run_nginx() {
	require_root || return
	if curl -fs http://127.0.0.1:9464/healthz >/dev/null 2>&1; then
		fail "something already listens on 127.0.0.1:9464"
		return 1
	fi
	start_nginx || return 1
	"$ENAV" run >"$WORK/signals.ndjson" 2>"$WORK/stderr" &
	AGENT_PID=$!
	# The defaults start every source, profiling and the host source too.
	wait_ready "$AGENT_PID" 9464 30 || return 1
	: >"$WORK/access.log"
	curl -s -o /dev/null -w '%{size_request} %{size_header} %{size_download} %{local_port}\n' \
		"http://127.0.0.1:$HTTP_PORT/file.bin" >"$WORK/curl.out" &
	local cpid=$!
	wait $cpid || { fail "curl failed"; return 1; }
	local sent recv lport
	read -r sent hdr body lport <"$WORK/curl.out"
	recv=$((hdr + body))
	local cl sv
	cl=$(wait_for_line ".kind == \"tcp.close\" and .connection.role == \"client\" and .process.pid == $cpid" 20) ||
		{ fail "no client tcp.close for curl $cpid"; return 1; }
	sv=$(wait_for_line ".kind == \"tcp.close\" and .connection.role == \"server\" and .connection.remote_port == $lport" 20) ||
		{ fail "no server tcp.close for port $lport"; return 1; }
	expect_eq "client bytes sent/received" "$(jq -r '.connection | "\(.bytes_sent) \(.bytes_received)"' <<<"$cl")" "$sent $recv" || return 1
	expect_eq "server bytes received/sent" "$(jq -r '.connection | "\(.bytes_received) \(.bytes_sent)"' <<<"$sv")" "$sent $recv" || return 1
	expect_eq "nginx \$bytes_sent" "$(awk '{ print $1 }' "$WORK/access.log")" "$recv" || return 1
	local cspan sspan
	cspan=$(wait_for_line ".kind == \"span\" and .process.pid == $cpid" 20) || { fail "no client span"; return 1; }
	sspan=$(wait_for_line ".kind == \"span\" and .process.pid == $NGINX_PID and .connection.remote_port == $lport" 20) ||
		{ fail "no server span"; return 1; }
	expect_eq "client span" "$(jq -r '.span | "\(.protocol) \(.operation) \(.path) \(.status_code)"' <<<"$cspan")" "http1 GET /file.bin 200" || return 1
	expect_eq "server span" "$(jq -r '.span | "\(.protocol) \(.operation) \(.path) \(.status_code)"' <<<"$sspan")" "http1 GET /file.bin 200" || return 1
	expect_eq "paired" "$(jq -r .span.trace_id <<<"$sspan") $(jq -r .span.parent_span_id <<<"$sspan")" \
		"$(jq -r .span.trace_id <<<"$cspan") $(jq -r .span.span_id <<<"$cspan")" || return 1
	# Stays up: still ready a while later, then stops cleanly.
	sleep 2
	http_get http://127.0.0.1:9464/readyz >/dev/null || { fail "not ready any more"; return 1; }
	stop_agent
	expect_eq "exit status" "$STOP_RC" 0
}

trap 'stop_servers; cleanup' EXIT
run_case "enav run with no file: ready, stays up, curl to nginx with exact bytes and paired HTTP spans" case_default_run_nginx
finish
