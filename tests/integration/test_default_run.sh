#!/usr/bin/env bash
# What a new user sees first: `enav run` with no file at all (NDJSON on
# stdout, /metrics on 127.0.0.1:9464) becomes ready, stays up, and reports a
# curl to nginx with exact bytes at both ends, paired HTTP spans, a DNS
# answer (dig against dnsmasq) and a CPU profile of a busy process whose
# stacks reach main.  Under
# load the defaults write a bounded number of span lines and count the rest;
# asking for every span writes every span (ADR 0015).  The kernel matrix
# runs it on every kernel (tests/kernels/tests.list).
. "$(dirname "$0")/lib.sh"

HTTP_PORT=${HTTP_PORT:-18090}
NGINX_PID=

stop_servers() {
	[ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
	[ -n "$DNSMASQ_PID" ] && kill "$DNSMASQ_PID" 2>/dev/null && wait "$DNSMASQ_PID" 2>/dev/null
	NGINX_PID= DNSMASQ_PID=
}

start_nginx() {
	command -v nginx >/dev/null || { fail "nginx missing (scripts/deps.sh test)"; return 1; }
	mkdir -p "$WORK/www"
	head -c 100000 /dev/urandom >"$WORK/www/file.bin"
	head -c 4096 /dev/urandom >"$WORK/www/4k.bin"
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
	rm -f "$WORK/nginx.pid"
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
	# DNS at defaults: a lookup's answer, with the asking process.
	start_dnsmasq enav-default.example 127.0.0.3 || return 1
	dig +short +tries=1 @127.0.0.1 enav-default.example A >"$WORK/dig.a" &
	local dpid=$!
	wait $dpid
	expect_eq "dig answer" "$(cat "$WORK/dig.a")" 127.0.0.3 || return 1
	local dns
	dns=$(wait_for_line ".kind == \"dns.response\" and .process.pid == $dpid" 20) ||
		{ fail "no dns.response for dig $dpid"; return 1; }
	expect_eq "dns answer" "$(jq -c '[.dns.name, .dns.type, .dns.rcode, [.dns.answers[] | .type + " " + .address]]' <<<"$dns")" \
		'["enav-default.example","A","NOERROR",["A 127.0.0.3"]]' || return 1
	# A CPU profile of a busy process at defaults, its stacks reaching main.
	"$HELPERS/prof_workload" cpu "$(scaled 10)" >/dev/null &
	local wpid=$!
	sleep 0.5
	curl -fs -o "$WORK/cpu.folded" \
		"http://127.0.0.1:9464/debug/pprof/profile?seconds=$(scaled 3)&pid=$wpid&format=folded" ||
		{ kill "$wpid"; fail "GET /debug/pprof/profile failed"; return 1; }
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	local prof user entry hot
	prof=$(python3 "$(dirname "$0")/folded_stacks.py" entry "$WORK/cpu.folded" --need prof_hot_function) ||
		{ fail "folded_stacks.py entry failed"; return 1; }
	echo "  CPU profile at defaults: $prof"
	read -r user entry hot < <(tr ' ' '\n' <<<"$prof" |
		awk -F= '{ v[$1] = $2 } END { print v["user"] + 0, v["entry"] + 0, v["need_prof_hot_function"] + 0 }')
	[ "$user" -ge 10 ] || { fail "CPU profile: $user user samples of the workload"; return 1; }
	[ $((entry * 100)) -ge $((user * 90)) ] || { fail "CPU profile: $entry of $user stacks reach main"; return 1; }
	[ $((hot * 100)) -ge $((user * 50)) ] || { fail "CPU profile: $hot of $user stacks in prof_hot_function"; return 1; }
	# Stays up: still ready a while later, then stops cleanly.
	sleep 2
	http_get http://127.0.0.1:9464/readyz >/dev/null || { fail "not ready any more"; return 1; }
	stop_agent
	expect_eq "exit status" "$STOP_RC" 0
}

# metric_at PORT NAME_WITH_LABELS: the series' value from that port's /metrics.
metric_at() {
	http_get "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1 == m { print $2; f = 1 } END { if (!f) { print "absent(" m ")"; exit 1 } }'
}

# The defaults under wrk: at most 100 span lines a second (plus the first
# second's 100 at once), every other span counted as rate_limited, and the
# limit named in one start-up line and in /metrics.
case_default_bounds_spans() {
	require_root || return
	command -v wrk >/dev/null || { fail "wrk missing (scripts/deps.sh test)"; return 1; }
	if curl -fs http://127.0.0.1:9464/healthz >/dev/null 2>&1; then
		fail "something already listens on 127.0.0.1:9464"
		return 1
	fi
	start_nginx || return 1
	local t0 t1
	t0=$(date +%s%N)
	"$ENAV" run >"$WORK/signals.ndjson" 2>"$WORK/stderr" &
	AGENT_PID=$!
	wait_ready "$AGENT_PID" 9464 30 || return 1
	grep -q 'ndjson: writing to stdout: at most 100 span lines per second and at most 1000 lines per second of each other kind; the rest dropped, counted in enav_ndjson_rate_limited_total{kind}' "$WORK/stderr" ||
		{ fail "no start-up line naming the limit: $(grep ndjson "$WORK/stderr")"; return 1; }
	expect_eq "span limit in /metrics" "$(metric_at 9464 'enav_ndjson_rate_limit_per_second{kind="span"}')" 100 || return 1
	expect_eq "exec limit in /metrics" "$(metric_at 9464 'enav_ndjson_rate_limit_per_second{kind="process.exec"}')" 1000 || return 1
	local requests
	requests=$(wrk -t1 -c8 -d"$(scaled 2)s" "http://127.0.0.1:$HTTP_PORT/4k.bin" | awk '/ requests in / { print $1 }')
	[ "${requests:-0}" -gt 1000 ] || { fail "wrk completed ${requests:-no} requests: too few to pass the limit"; return 1; }
	sleep "$(scaled 1)" # the last spans through the pipeline
	local total limited dropped
	total=$(metric_at 9464 'enav_signals_total{kind="span"}') || { fail "$total"; return 1; }
	limited=$(metric_at 9464 'enav_ndjson_rate_limited_total{kind="span"}') || { fail "$limited"; return 1; }
	dropped=$(metric_at 9464 'enav_sink_dropped_total{sink="ndjson",reason="rate_limited"}') || { fail "$dropped"; return 1; }
	stop_agent
	t1=$(date +%s%N)
	expect_eq "exit status" "$STOP_RC" 0 || return 1
	local lines wrk_lines bound
	lines=$(jq -c 'select(.kind == "span")' "$WORK/signals.ndjson" | wc -l)
	wrk_lines=$(jq -c 'select(.kind == "span" and .span.path == "/4k.bin")' "$WORK/signals.ndjson" | wc -l)
	# A bucket of 100 that starts full and earns 100 a second, over at most
	# the agent's whole life.
	bound=$((100 + 100 * (t1 - t0 + 999999999) / 1000000000))
	echo "    $requests requests, $total spans: $lines span lines ($wrk_lines of wrk's), $limited rate_limited; bound $bound" >&2
	[ "$lines" -ge 100 ] || { fail "the first second's 100 span lines were not written: $lines"; return 1; }
	[ "$lines" -le "$bound" ] || { fail "$lines span lines, over the bound $bound"; return 1; }
	[ "$limited" -ge $((2 * requests - lines)) ] || { fail "$limited rate_limited, $lines written: less than both ends of $requests requests"; return 1; }
	[ $((limited + lines)) -le "$total" ] || { fail "$limited rate_limited + $lines written > $total spans made"; return 1; }
	expect_eq "sink drop total" "$dropped" "$limited"
}

# rate_limit.spans_per_second: 0 writes every span: each of 2000 requests
# (curl, keep-alive) at both ends, none rate_limited.
case_every_span_when_asked() {
	require_root || return
	start_nginx || return 1
	cat >"$WORK/cfg.yaml" <<CFG
http:
  listen: 127.0.0.1:$TEST_PORT
  health_listen: ""
exporters:
  ndjson:
    rate_limit:
      spans_per_second: 0
CFG
	start_agent "$WORK/cfg.yaml" || return 1
	# start_agent leaves stdout in $WORK/stdout: NDJSON's default path.
	grep -q 'ndjson: writing to stdout: every span line and at most 1000 lines per second of each other kind' "$WORK/stderr" ||
		{ fail "no start-up line saying every span: $(grep ndjson "$WORK/stderr")"; return 1; }
	local n=2000
	curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$HTTP_PORT/4k.bin?[1-$n]" >"$WORK/curl.out" &
	local cpid=$!
	wait $cpid || { fail "curl failed"; return 1; }
	expect_eq "curl answers" "$(sort "$WORK/curl.out" | uniq -c | awk '{ print $1, $2 }')" "$n 200" || return 1
	local i c s
	for ((i = 0; i < $(scaled 20) * 2; i++)); do
		c=$(jq -c "select(.kind == \"span\" and .process.pid == $cpid and .span.path == \"/4k.bin\")" "$WORK/stdout" | wc -l)
		s=$(jq -c "select(.kind == \"span\" and .process.pid == $NGINX_PID and .span.path == \"/4k.bin\")" "$WORK/stdout" | wc -l)
		[ "$c" -ge $n ] && [ "$s" -ge $n ] && break
		sleep 0.5
	done
	expect_eq "client and server span lines" "$c $s" "$n $n" || return 1
	expect_eq "span rate_limited" "$(metric 'enav_ndjson_rate_limited_total{kind="span"}')" 0 || return 1
	expect_eq "span limit in /metrics" "$(metric 'enav_ndjson_rate_limit_per_second{kind="span"}')" 0 || return 1
	stop_agent
	expect_eq "exit status" "$STOP_RC" 0
}

trap 'stop_servers; cleanup' EXIT
run_case "enav run with no file: ready, stays up, curl to nginx with exact bytes and paired HTTP spans, DNS, a CPU profile reaching main" case_default_run_nginx
stop_servers
run_case "enav run with no file under wrk: span lines bounded by the default limit, the rest counted" case_default_bounds_spans
stop_servers
run_case "spans_per_second: 0 writes every span of 2000 requests" case_every_span_when_asked
finish
