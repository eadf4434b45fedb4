#!/usr/bin/env bash
# Network source against real servers on loopback: nginx (keep-alive, sendfile)
# fetched by curl over IPv4 and IPv6 with exact byte parity on both ends, a
# connection that predates the agent, and DNS through dnsmasq queried by dig.
. "$(dirname "$0")/lib.sh"

HTTP_PORT=${HTTP_PORT:-18080}
NGINX_PID=

start_nginx() {
	command -v nginx >/dev/null || { fail "nginx missing (scripts/deps.sh test)"; return 1; }
	mkdir -p "$WORK/www"
	head -c 1048576 /dev/urandom >"$WORK/www/blob.bin"
	printf 'hello\n' >"$WORK/www/small.txt"
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
	sendfile on;
	keepalive_timeout 5;
	server {
		listen 127.0.0.1:$HTTP_PORT;
		listen 127.0.0.2:$HTTP_PORT;
		listen [::1]:$HTTP_PORT;
		root $WORK/www;
	}
}
CONF
	nginx -c "$WORK/nginx.conf" -e "$WORK/nginx-error.log" &
	NGINX_PID=$!
	local i
	for ((i = 0; i < 50; i++)); do
		curl -fs -o /dev/null "http://127.0.0.1:$HTTP_PORT/small.txt" && return 0
		sleep 0.1
	done
	fail "nginx did not start: $(tail -3 "$WORK/nginx-error.log")"
}

stop_servers() {
	[ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
	[ -n "$DNSMASQ_PID" ] && kill "$DNSMASQ_PID" 2>/dev/null && wait "$DNSMASQ_PID" 2>/dev/null
	NGINX_PID=
	DNSMASQ_PID=
}

# parity HOST IP_VERSION: three fetches on one keep-alive connection, bytes
# on both ends.  Sets PARITY_CLIENT and PARITY_SERVER ("SENT RECEIVED" of the
# client's and the server's close signal).
PARITY_CLIENT=
PARITY_SERVER=
parity() {
	local host=$1 url
	url="http://$host:$HTTP_PORT/blob.bin"
	: >"$WORK/access.log"
	curl -g -s -o /dev/null -o /dev/null -o /dev/null \
		-w '%{size_request} %{size_header} %{size_download} %{local_port}\n' \
		"$url" "$url" "$url" >"$WORK/curl.out" &
	local cpid=$!
	wait $cpid || { fail "curl failed"; return 1; }
	local sent recv lport
	sent=$(awk '{ s += $1 } END { print s }' "$WORK/curl.out")
	recv=$(awk '{ s += $2 + $3 } END { print s }' "$WORK/curl.out")
	lport=$(awk 'NR == 1 { print $4 }' "$WORK/curl.out")
	[ "$(awk '{ print $4 }' "$WORK/curl.out" | sort -u | wc -l)" = 1 ] ||
		{ fail "curl did not reuse its connection"; return 1; }
	local cl sv
	cl=$(wait_for_line ".kind == \"tcp.close\" and .connection.role == \"client\" and .process.pid == $cpid") ||
		{ fail "no client close for curl pid $cpid"; return 1; }
	sv=$(wait_for_line ".kind == \"tcp.close\" and .connection.role == \"server\" and .connection.remote_port == $lport") ||
		{ fail "no server close for client port $lport"; return 1; }
	expect_eq "client remote port" "$(jq -r .connection.remote_port <<<"$cl")" "$HTTP_PORT" || return 1
	expect_eq "client local port" "$(jq -r .connection.local_port <<<"$cl")" "$lport" || return 1
	expect_eq "client bytes_sent = curl request bytes" "$(jq -r .connection.bytes_sent <<<"$cl")" "$sent" || return 1
	expect_eq "client bytes_received = curl header+body bytes" "$(jq -r .connection.bytes_received <<<"$cl")" "$recv" || return 1
	expect_eq "server pid" "$(jq -r .process.pid <<<"$sv")" "$NGINX_PID" || return 1
	expect_eq "server bytes_received = client bytes_sent" "$(jq -r .connection.bytes_received <<<"$sv")" "$sent" || return 1
	expect_eq "server bytes_sent = client bytes_received" "$(jq -r .connection.bytes_sent <<<"$sv")" "$recv" || return 1
	expect_eq "server bytes_sent = nginx \$bytes_sent" "$(jq -r .connection.bytes_sent <<<"$sv")" \
		"$(awk '{ s += $1 } END { print s }' "$WORK/access.log")" || return 1
	local op
	op=$(wait_for_line ".kind == \"tcp.open\" and .connection.role == \"client\" and .process.pid == $cpid") ||
		{ fail "no client open"; return 1; }
	expect_eq "open ip_version" "$(jq -r .connection.ip_version <<<"$op")" "$2" || return 1
	expect_eq "predates" "$(jq -r .connection.predates_agent <<<"$cl")" false || return 1
	PARITY_CLIENT="$(jq -r .connection.bytes_sent <<<"$cl") $(jq -r .connection.bytes_received <<<"$cl")"
	PARITY_SERVER="$(jq -r .connection.bytes_sent <<<"$sv") $(jq -r .connection.bytes_received <<<"$sv")"
	echo "    $host: 3 x 1 MiB on one connection, $sent bytes up, $recv bytes down, both ends agree" >&2
}

case_ipv4_parity() {
	require_root || return
	start_nginx || return 1
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	parity 127.0.0.1 4
}

case_ipv6_parity() {
	require_root || return
	[ -e /proc/net/if_inet6 ] || { skip "no IPv6 in this kernel"; return; }
	start_nginx || return 1
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	parity '[::1]' 6
}

# Opened before the agent attached, used and closed after: marked as such.
case_predates_attach() {
	require_root || return
	start_nginx || return 1
	mkfifo "$WORK/go"
	local req=$'GET /small.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
	# A client process that connects now and talks only after the agent is up;
	# the agent must not inherit the socket, so only this subshell holds it.
	(
		exec 7<>"/dev/tcp/127.0.0.1/$HTTP_PORT" || exit 1
		read -r _ <"$WORK/go"
		printf '%s' "$req" >&7
		cat <&7 >/dev/null
		exec 7>&-
	) &
	local client=$!
	sleep 0.3
	write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	echo go >"$WORK/go"
	wait $client || { fail "client failed"; return 1; }
	local cl
	cl=$(wait_for_line ".kind == \"tcp.close\" and .process.pid == $client and .connection.remote_port == $HTTP_PORT") ||
		{ fail "no close signal for the pre-existing connection"; return 1; }
	expect_eq "predates_agent" "$(jq -r .connection.predates_agent <<<"$cl")" true || return 1
	expect_eq "bytes sent since attach" "$(jq -r .connection.bytes_sent <<<"$cl")" "${#req}" || return 1
	expect_eq "warning" "$(jq -c '[.warnings[]?.reason]' <<<"$cl")" '["counted_since_attach_only"]'
}

case_dns() {
	require_root || return
	start_dnsmasq enav-test.example 127.0.0.2 || return 1
	write_config "$WORK/cfg.yaml" "sources:" "  network:" "    edge_interval_ms: 1000"
	start_agent "$WORK/cfg.yaml" || return 1
	dig +short +tries=1 @127.0.0.1 enav-test.example A >"$WORK/dig.a" &
	local dpid=$!
	wait $dpid
	dig +short +tries=1 @127.0.0.1 nosuch.enav-test.invalid AAAA >/dev/null
	expect_eq "dig answer" "$(cat "$WORK/dig.a")" 127.0.0.2 || return 1
	local r
	r=$(wait_for_line ".kind == \"dns.response\" and .process.pid == $dpid") ||
		{ fail "no dns.response for dig pid $dpid"; return 1; }
	expect_eq "name" "$(jq -r .dns.name <<<"$r")" enav-test.example || return 1
	expect_eq "type" "$(jq -r .dns.type <<<"$r")" A || return 1
	expect_eq "rcode" "$(jq -r .dns.rcode <<<"$r")" NOERROR || return 1
	expect_eq "answers" "$(jq -c '[.dns.answers[] | .type + " " + .address]' <<<"$r")" '["A 127.0.0.2"]' || return 1
	expect_eq "remote port" "$(jq -r .dns.remote_port <<<"$r")" 53 || return 1
	local lat
	lat=$(jq -r .dns.latency_ns <<<"$r")
	[ "$lat" -gt 0 ] && [ "$lat" -lt 2000000000 ] || { fail "latency $lat"; return 1; }
	r=$(wait_for_line ".kind == \"dns.response\" and .dns.name == \"nosuch.enav-test.invalid\" and .dns.direction == \"received\"") ||
		{ fail "no response for the failing name"; return 1; }
	expect_eq "NXDOMAIN or REFUSED" "$(jq -r '.dns.rcode | test("NXDOMAIN|REFUSED")' <<<"$r")" true || return 1
	# A and AAAA in one sendmmsg, twice, and the answers by recvmmsg (glibc's
	# stub resolver sends that way): every message is its own capture, so
	# each of the four responses is paired with its own query.
	local mpid
	"$BUILD/helpers/dns_mmsg" enav-test.example >"$WORK/mmsg.ids" &
	mpid=$!
	wait $mpid || { fail "dns_mmsg failed"; return 1; }
	expect_eq "mmsg responses" "$(sort "$WORK/mmsg.ids" | tr '\n' ' ')" "1111 2222 3333 4444 " || return 1
	local resp
	for _ in $(seq $(($(scaled 5) * 10))); do
		resp=$(jq -c "select(.kind == \"dns.response\" and .process.pid == $mpid)" "$WORK/signals.ndjson" 2>/dev/null | wc -l)
		[ "$resp" -ge 4 ] && break
		sleep 0.1
	done
	expect_eq "mmsg dns.response signals" "$resp" 4 || return 1
	expect_eq "mmsg types" "$(jq -r "select(.kind == \"dns.response\" and .process.pid == $mpid) | .dns.type" "$WORK/signals.ndjson" | sort | tr '\n' ' ')" "A A AAAA AAAA " || return 1
	expect_eq "mmsg responses with a latency (their query seen)" \
		"$(jq -r "select(.kind == \"dns.response\" and .process.pid == $mpid) | select(.dns.latency_ns > 0) | .dns.name" "$WORK/signals.ndjson" | wc -l)" 4 || return 1
	# DNS over TCP: the length-prefixed stream the resolver reads.
	dig +short +tcp +tries=1 @127.0.0.1 enav-test.example A >"$WORK/dig.tcp" &
	local tpid=$!
	wait $tpid
	expect_eq "dig +tcp answer" "$(cat "$WORK/dig.tcp")" 127.0.0.2 || return 1
	r=$(wait_for_line ".kind == \"dns.response\" and .dns.tcp == true and .dns.direction == \"received\" and .dns.name == \"enav-test.example\"") ||
		{ fail "no DNS-over-TCP response"; return 1; }
	expect_eq "tcp answers" "$(jq -c '[.dns.answers[] | .type + " " + .address]' <<<"$r")" '["A 127.0.0.2"]' || return 1
	# The address the name resolved to names the edge curl then opens to it.
	start_nginx || return 1
	# A fresh answer just before the connection: dnsmasq answers with TTL 0,
	# which the agent keeps for its 5 s floor (ENAV_IPNAME_TTL_MIN_S), and in
	# an emulated guest the steps above outlast that (seen on 6.1: the edge
	# named by its address only).
	dig +short +tries=1 @127.0.0.1 enav-test.example A >/dev/null
	curl -s -o /dev/null "http://127.0.0.2:$HTTP_PORT/small.txt" || { fail "curl to 127.0.0.2"; return 1; }
	curl -s -o /dev/null "http://127.0.0.1:$HTTP_PORT/small.txt" || { fail "curl to 127.0.0.1"; return 1; }
	local e
	e=$(wait_for_line '.kind == "network.edge" and .edge.server == "enav-test.example"' 5) ||
		{ fail "no edge named enav-test.example"; return 1; }
	expect_eq "edge evidence" "$(jq -r .evidence <<<"$e")" inferred || return 1
	expect_eq "edge client" "$(jq -r .edge.client <<<"$e")" process:curl || return 1
	expect_eq "edge port" "$(jq -r .edge.server_port <<<"$e")" "$HTTP_PORT" || return 1
	expect_eq "edge server ip" "$(jq -r .edge.server_ip <<<"$e")" 127.0.0.2 || return 1
	expect_eq "edge connections" "$(jq -r .edge.connections <<<"$e")" 1 || return 1
	expect_eq "edge confidence" "$(jq -r .edge.confidence <<<"$e")" 0.8 || return 1
	e=$(wait_for_line '.kind == "network.edge" and .edge.server == "127.0.0.1" and .edge.server_port == '"$HTTP_PORT"' and .edge.client == "process:curl"' 5) ||
		{ fail "no edge to 127.0.0.1"; return 1; }
	expect_eq "address-named edge confidence" "$(jq -r .edge.confidence <<<"$e")" 1 || return 1
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics"
	grep -q "^enav_network_edge_connections_total{client=\"process:curl\",server=\"enav-test.example\",server_port=\"$HTTP_PORT\"} 1" "$WORK/metrics" ||
		{ fail "edge metric missing"; return 1; }
	grep -q '^dns_lookup_duration_seconds_count{dns_question_type="A",dns_response_code="NOERROR"} [1-9]' "$WORK/metrics" ||
		{ fail "dns histogram missing"; return 1; }
	promtool check metrics <"$WORK/metrics" >/dev/null 2>&1
	local rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 3 ] || { fail "promtool rejects /metrics"; return 1; }
}

# btf_has_tracepoint NAME: this kernel has the tracepoint (every tracepoint
# of a BTF kernel has a btf_trace_NAME typedef; what the agent checks too).
btf_has_tracepoint() {
	grep -q "^\[[0-9]*\] TYPEDEF 'btf_trace_$1' " "$WORK/vmlinux.btf"
}

# Each byte-counting path this kernel offers: `hooks: tracepoint` counts in
# the sock_send_length/sock_recv_length tracepoints (Linux 6.3+), `hooks:
# fexit` in fexit programs on tcp_sendmsg/tcp_recvmsg (and tcp_sendpage
# where the kernel has it).  A path that loads gives the exact bytes of the
# parity workload; where both load, the same bytes.  A path the kernel
# refuses is refused by name: fexit stops `enav run`, a missing tracepoint
# turns the network source off with a warning and no tcp signal appears.
# Which paths exist is read from `enav probe --json` and the kernel's BTF,
# not from its version.
case_hook_paths() {
	require_root || return
	command -v bpftool >/dev/null || { fail "bpftool missing (scripts/deps.sh test)"; return 1; }
	bpftool btf dump file /sys/kernel/btf/vmlinux >"$WORK/vmlinux.btf" 2>"$WORK/bpftool.err" ||
		{ fail "cannot read the kernel's BTF: $(cat "$WORK/bpftool.err")"; return 1; }
	"$ENAV" probe --json --skip-load-check >"$WORK/probe.json" 2>/dev/null
	local fexit_status fexit_detail missing= path loaded=()
	fexit_status=$(jq -r .capabilities.fentry_fexit.status "$WORK/probe.json")
	fexit_detail=$(jq -r .capabilities.fentry_fexit.detail "$WORK/probe.json")
	[ -n "$fexit_status" ] && [ "$fexit_status" != null ] ||
		{ fail "enav probe --json has no fentry_fexit status"; return 1; }
	btf_has_tracepoint sock_send_length || missing=sock_send_length
	[ -n "$missing" ] || btf_has_tracepoint sock_recv_length || missing=sock_recv_length
	echo "    fexit: $fexit_status ($fexit_detail); byte tracepoints: $([ -n "$missing" ] && echo "no $missing" || echo yes)" >&2
	start_nginx || return 1
	declare -A client=() server=()
	for path in tracepoint fexit; do
		write_config "$WORK/cfg.yaml" "hooks: $path" "profiling:" "  enabled: false" "host:" "  enabled: false"
		if [ "$path" = fexit ] && [ "$fexit_status" != yes ]; then
			# Refused: enav run stops, naming fexit and the kernel's reason.
			local rc=0
			timeout "$(scaled 60)" "$ENAV" run --config "$WORK/cfg.yaml" >/dev/null 2>"$WORK/stderr" || rc=$?
			[ $rc -ne 0 ] && [ $rc -ne 124 ] ||
				{ fail "hooks: fexit on a kernel that refuses fexit: exit code $rc"; return 1; }
			grep -qF "hooks fexit was configured but $fexit_detail" "$WORK/stderr" ||
				{ fail "hooks: fexit refused without naming it: $(tail -2 "$WORK/stderr")"; return 1; }
			echo "    fexit: refused (exit $rc): $(grep -F 'hooks fexit' "$WORK/stderr" | head -n1)" >&2
			continue
		fi
		start_agent "$WORK/cfg.yaml" || return 1
		grep -q "; hooks $path (configured)" "$WORK/stderr" ||
			{ fail "agent did not take hooks: $path: $(grep -m1 'hooks' "$WORK/stderr")"; return 1; }
		if [ "$path" = tracepoint ] && [ -n "$missing" ]; then
			# Refused: no network source, said by name, and no tcp signal.
			grep -qF "network: this kernel has no $missing tracepoint (sock_send_length and sock_recv_length need Linux 6.3+, or hooks: fexit); the network source is off" "$WORK/stderr" ||
				{ fail "no warning naming the missing $missing tracepoint: $(grep 'network' "$WORK/stderr" | head -n2)"; return 1; }
			! grep -q 'network source attached' "$WORK/stderr" ||
				{ fail "network source attached without $missing"; return 1; }
			expect_eq "network state on /metrics" \
				"$(metric 'enav_feature_enabled{source="network",feature="all",state="hook_missing"}')" 0 || return 1
			local url="http://127.0.0.1:$HTTP_PORT/blob.bin" cpid
			curl -s -o /dev/null -o /dev/null -o /dev/null "$url" "$url" "$url" &
			cpid=$!
			wait $cpid || { fail "curl failed"; return 1; }
			# The agent captures (curl's exec arrives) but no connection.
			wait_for_line ".kind == \"process.exec\" and .process.pid == $cpid" >/dev/null ||
				{ fail "no exec signal for curl: the agent captured nothing at all"; return 1; }
			sleep "$(scaled 1)"
			expect_eq "tcp signals without the byte tracepoints" "$(count_lines '.kind | startswith("tcp.")')" 0 || return 1
			stop_agent
			echo "    tracepoint: refused: network source off, no tcp signal" >&2
			continue
		fi
		parity 127.0.0.1 4 || return 1
		stop_agent
		client[$path]=$PARITY_CLIENT
		server[$path]=$PARITY_SERVER
		loaded+=("$path")
		echo "    $path: client sent/received ${client[$path]}, server ${server[$path]}" >&2
	done
	# A kernel with neither path has no network source at all: nothing here
	# proves bytes, and that must not pass as a kernel with one path.
	[ ${#loaded[@]} -ge 1 ] || { fail "neither tracepoint nor fexit byte counting loads on this kernel"; return 1; }
	if [ ${#loaded[@]} -eq 2 ]; then
		expect_eq "client bytes, tracepoint vs fexit" "${client[tracepoint]}" "${client[fexit]}" || return 1
		expect_eq "server bytes, tracepoint vs fexit" "${server[tracepoint]}" "${server[fexit]}" || return 1
	fi
	echo "    paths that load: ${loaded[*]}" >&2
}

trap 'stop_servers; cleanup' EXIT
run_case "IPv4: nginx + curl keep-alive, exact bytes both ends" case_ipv4_parity
stop_servers
run_case "IPv6: the same over ::1" case_ipv6_parity
stop_servers
run_case "a connection opened before the agent says so" case_predates_attach
stop_servers
run_case "DNS through dnsmasq: name, type, rcode, answers, latency" case_dns
stop_servers
run_case "hooks: tracepoint and fexit: exact bytes on each path the kernel offers, equal where both load; a refused path named" case_hook_paths
stop_servers
finish
