# The agent's HTTP listener (ADR 0018): a tenant that can reach it cannot
# starve the health probes or the scrape, and with a bearer token it reads
# nothing without the token.  Sourced by test_hostile_tenant.sh.

LISTENER_HEALTH_PORT=$((TEST_PORT + 1))

# listener_flood N_PROFILES N_IDLE HOLD_S: as the tenant, N_PROFILES requests
# for a 119 s CPU profile and N_IDLE connections that never send a byte, all
# from 127.0.0.1, held open HOLD_S seconds.  Prints "ready" once every
# connect was tried.
listener_flood() {
	as_tenant /usr/bin/python3 - "$TEST_PORT" "$1" "$2" "$3" <<'PY'
import socket, sys, time
port, n_prof, n_idle, hold = (int(a) for a in sys.argv[1:5])
held = []
for i in range(n_prof + n_idle):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", port))
        if i < n_prof:
            s.sendall(b"GET /debug/pprof/profile?seconds=119 HTTP/1.1\r\nHost: x\r\n\r\n")
    except OSError:
        pass
    held.append(s)
print("ready", flush=True)
time.sleep(hold)
PY
}

# The health listener answers within 1 s, and a scrape from another address
# (127.0.0.2, as Prometheus is another pod) gets /metrics, while the tenant
# holds 16 profile requests and 16 idle connections on the data port.
case_listener_flood() {
	require_root || return
	TEST_HEALTH_LISTEN=127.0.0.1:$LISTENER_HEALTH_PORT write_config "$WORK/cfg.yaml" \
		"profiling:" "  enabled: true"
	start_agent "$WORK/cfg.yaml" || return 1
	listener_flood 16 16 60 >"$WORK/flood.out" 2>&1 &
	local flood=$! i
	for ((i = 0; i < $(scaled 50); i++)); do
		grep -q ready "$WORK/flood.out" && break
		sleep 0.1
	done
	grep -q ready "$WORK/flood.out" || { kill "$flood"; fail "the flood did not start: $(head -3 "$WORK/flood.out")"; return 1; }
	sleep 1
	local got t rc=0
	for ((i = 0; i < 5; i++)); do
		# 1 s natively; an emulated guest's clock promises nothing.
		got=$(curl -s -o /dev/null -m "$(scaled 1)" -w '%{http_code} %{time_total}' \
			"http://127.0.0.1:$LISTENER_HEALTH_PORT/healthz")
		[ "${got%% *}" = 200 ] || { fail "health port /healthz during the flood: '$got' (want 200 within 1 s)"; rc=1; break; }
		sleep 0.5
	done
	if [ $rc -eq 0 ]; then
		# A scrape's own time (the agent renders under a loaded machine's
		# scheduler) is not what this case measures: Prometheus waits 10 s,
		# and tries again at its next interval; three tries.
		local try
		for try in 1 2 3; do
			got=$(curl -sS -o "$WORK/flood.metrics" -m "$(scaled 10)" --interface 127.0.0.2 \
				-w '%{http_code} %{time_total}' "http://127.0.0.1:$TEST_PORT/metrics" 2>"$WORK/flood.curl")
			[ "${got%% *}" = 200 ] && break
		done
		[ "${got%% *}" = 200 ] && grep -q '^enav_build_info' "$WORK/flood.metrics" ||
			{ fail "/metrics from 127.0.0.2 during the flood: '$got' $(cat "$WORK/flood.curl")"; rc=1; }
	fi
	if [ $rc -eq 0 ]; then
		# The caps that held were counted.
		t=$(awk '$1 == "enav_http_connections_refused_total{listener=\"data\",reason=\"per_client\"}" { print $2 }' "$WORK/flood.metrics")
		[ "${t:-0}" -gt 0 ] || { fail "no per-client refusal counted ($t)"; rc=1; }
		t=$(awk '$1 == "enav_http_profile_requests{listener=\"data\"}" { print $2 }' "$WORK/flood.metrics")
		[ "${t:-99}" -le 2 ] || { fail "$t profile requests running (cap 2)"; rc=1; }
		t=$(awk '$1 == "enav_http_profile_requests_refused_total{listener=\"data\"}" { print $2 }' "$WORK/flood.metrics")
		[ "${t:-0}" -gt 0 ] || { fail "no profile request refused ($t)"; rc=1; }
	fi
	kill "$flood" 2>/dev/null
	wait "$flood" 2>/dev/null
	return $rc
}

# With http.bearer_token_file, /metrics and /debug/pprof/ answer 401
# without the token or with another, 200 with it; health answers without on
# both ports; a token file other users can read is refused at start.
case_listener_token() {
	require_root || return
	local tok=$WORK/listener-token code path
	(umask 077 && head -c 32 /dev/urandom | base64 | tr -d '/+=' >"$tok")
	TEST_HEALTH_LISTEN=127.0.0.1:$LISTENER_HEALTH_PORT TEST_HTTP_LINES="  bearer_token_file: $tok" \
		write_config "$WORK/cfg.yaml" "profiling:" "  enabled: true"
	start_agent "$WORK/cfg.yaml" || return 1
	for path in /metrics /debug/pprof/ "/debug/pprof/profile?seconds=1" /nope; do
		code=$(as_tenant curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$TEST_PORT$path")
		expect_eq "tenant, no token, $path" "$code" 401 || return 1
		code=$(as_tenant curl -s -o /dev/null -m 5 -w '%{http_code}' -H "Authorization: Bearer x$(cat "$tok")" \
			"http://127.0.0.1:$TEST_PORT$path")
		expect_eq "tenant, wrong token, $path" "$code" 401 || return 1
	done
	for path in /metrics /debug/pprof/ "/debug/pprof/profile?seconds=1&format=folded"; do
		code=$(curl -s -o /dev/null -m 10 -w '%{http_code}' -H "Authorization: Bearer $(cat "$tok")" \
			"http://127.0.0.1:$TEST_PORT$path")
		expect_eq "with the token, $path" "$code" 200 || return 1
	done
	for path in "$LISTENER_HEALTH_PORT/healthz" "$LISTENER_HEALTH_PORT/readyz" "$TEST_PORT/healthz" "$TEST_PORT/readyz"; do
		code=$(as_tenant curl -s -o /dev/null -m 5 -w '%{http_code}' "http://127.0.0.1:$path")
		expect_eq "health without a token, :$path" "$code" 200 || return 1
	done
	code=$(curl -s -m 5 -H "Authorization: Bearer $(cat "$tok")" "http://127.0.0.1:$TEST_PORT/metrics" |
		awk '$1 == "enav_http_unauthorized_total{listener=\"data\"}" { print $2 }')
	[ "${code:-0}" -ge 8 ] || { fail "401s counted: '$code' (want >= 8)"; return 1; }
	stop_agent
	chmod 644 "$tok"
	"$ENAV" run --config "$WORK/cfg.yaml" >"$WORK/stdout" 2>"$WORK/stderr" &
	AGENT_PID=$!
	local i
	for ((i = 0; i < 100; i++)); do
		kill -0 "$AGENT_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$AGENT_PID" 2>/dev/null; then
		fail "agent runs with a world-readable token file"
		return 1
	fi
	wait "$AGENT_PID"
	AGENT_PID=
	grep -q "bearer_token_file: $tok is readable or writable by every user (mode 0644)" "$WORK/stderr" ||
		{ fail "no refusal of the 0644 token file: $(tail -2 "$WORK/stderr")"; return 1; }
}

# A client that sends its request header a byte every 2 s (never silent for
# the 10 s idle timeout) is shut down at http.request_timeout_s (3 s here),
# and counted.
case_listener_drip() {
	require_root || return
	TEST_HTTP_LINES="  request_timeout_s: 3" write_config "$WORK/cfg.yaml"
	start_agent "$WORK/cfg.yaml" || return 1
	as_tenant /usr/bin/python3 - "$TEST_PORT" >"$WORK/drip.out" 2>&1 <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
t0 = time.time()
for b in b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100:
    try:
        s.sendall(bytes([b]))
        s.settimeout(2)
        if s.recv(1) == b"":
            break
    except socket.timeout:
        pass
    except OSError:
        break
    if time.time() - t0 > 20:
        break
print("%.1f" % (time.time() - t0))
PY
	local held
	held=$(tail -1 "$WORK/drip.out")
	case $held in [0-9]*) ;; *) fail "drip client: $(head -3 "$WORK/drip.out")"; return 1 ;; esac
	awk -v h="$held" 'BEGIN { exit !(h >= 2.5 && h < 6) }' ||
		{ fail "a byte every 2 s held the connection $held s (deadline 3 s)"; return 1; }
	local n
	n=$(metric 'enav_http_deadline_closed_total{listener="data"}') || { fail "no deadline counter: $n"; return 1; }
	[ "$n" -ge 1 ] || { fail "deadline closes counted: $n"; return 1; }
}

run_case "listener: health and /metrics answer while a tenant floods the data port" case_listener_flood
run_case "listener: bearer token required on /metrics and /debug/pprof/, not on health" case_listener_token
run_case "listener: a request header dripped a byte at a time is cut at its deadline" case_listener_drip
