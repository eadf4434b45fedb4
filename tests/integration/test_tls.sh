#!/usr/bin/env bash
# TLS plaintext: the protocol parsers see encrypted traffic through uprobes
# on the TLS library, with the spans the plaintext tests assert.  Real peers
# on loopback with a certificate made here: nginx (OpenSSL) with curl
# (OpenSSL) over HTTP/1.1 and HTTP/2, gnutls-cli (GnuTLS), redis-server and
# redis-cli with TLS, PostgreSQL with sslmode=require, and a Go HTTPS server
# and client (crypto/tls) built here, plus the same Go binary stripped, which
# must be refused and left unprobed.
. "$(dirname "$0")/lib.sh"

export HOME=${HOME:-/root} GOCACHE=${GOCACHE:-$WORK/gocache} GOFLAGS=-mod=mod GOPROXY=off

LIBSSL=
HTTPS_PORT=${HTTPS_PORT:-18443}
H2S_PORT=${H2S_PORT:-18444}
GO_PORT=${GO_PORT:-18445}
GO_STRIPPED_PORT=${GO_STRIPPED_PORT:-18446}
REDIS_TLS_PORT=${REDIS_TLS_PORT:-16390}
PG_TLS_PORT=${PG_TLS_PORT:-15443}
PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)}
PG_PASS=enav-tls-test
PIDS=()
PG_UP=

# mapped_lib PID NAME_REGEX: the path of a library as the process maps it
# (the name the agent reports).
mapped_lib() {
	local i path
	for ((i = 0; i < 20; i++)); do
		path=$(awk -v re="$2" '$6 ~ re { print $6; exit }' "/proc/$1/maps" 2>/dev/null)
		[ -n "$path" ] && { echo "$path"; return 0; }
		sleep 0.1
	done
	return 1
}

make_cert() {
	[ -f "$WORK/tls/cert.pem" ] && return 0
	mkdir -p "$WORK/tls"
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$WORK/tls/key.pem" -out "$WORK/tls/cert.pem" \
		-days 2 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1,DNS:localhost \
		>"$WORK/tls/openssl.log" 2>&1 || { fail "openssl req: $(tail -2 "$WORK/tls/openssl.log")"; return 1; }
	chmod 644 "$WORK/tls/key.pem"
}

stop_servers() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	PIDS=()
	[ -n "$PG_UP" ] && runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -m fast -w -t 30 stop >/dev/null 2>&1
	PG_UP=
}

NGINX_PID=
start_nginx() {
	make_cert || return 1
	mkdir -p "$WORK/www/static" "$WORK/logs"
	printf 'hello\n' >"$WORK/www/static/small.txt"
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
	keepalive_requests 1000;
	ssl_certificate $WORK/tls/cert.pem;
	ssl_certificate_key $WORK/tls/key.pem;
	server { listen 127.0.0.1:$HTTPS_PORT ssl; root $WORK/www; }
	server { listen 127.0.0.1:$H2S_PORT ssl http2; root $WORK/www; }
}
CONF
	nginx -c "$WORK/nginx.conf" -e "$WORK/logs/error.log" &
	NGINX_PID=$!
	PIDS+=("$NGINX_PID")
	LIBSSL=$(mapped_lib "$NGINX_PID" '/libssl\\.so')
	local i
	for ((i = 0; i < 50; i++)); do
		curl -kfs -o /dev/null "https://127.0.0.1:$HTTPS_PORT/static/small.txt" && return 0
		sleep 0.1
	done
	fail "nginx did not start: $(tail -3 "$WORK/logs/error.log")"
}

# wait_probed LIBRARY BINARY: until the agent reports the file probed.
wait_probed() {
	local line="enav_tls_probed_binary{library=\"$1\",binary=\"$2\"}" i
	for ((i = 0; i < $(scaled 100); i++)); do
		[ "$(metric "$line")" = 1 ] && return 0
		sleep 0.1
	done
	fail "$2 not probed as $1: $(curl -fs "http://127.0.0.1:$TEST_PORT/metrics" | grep '^enav_tls_probed' | head -3)"
	return 1
}

tls_agent() {
	l7_config "$WORK/cfg.yaml" "$@"
	start_agent "$WORK/cfg.yaml"
}

# pairs CLIENT_FILTER SERVER_FILTER N: N distinct traces, each client span
# the parent of exactly one server span.
pairs() {
	jq -r "select($1) | .span.trace_id + \" \" + .span.span_id" "$WORK/signals.ndjson" | sort >"$WORK/client.ids"
	jq -r "select($2) | .span.trace_id + \" \" + .span.parent_span_id" "$WORK/signals.ndjson" | sort >"$WORK/server.ids"
	expect_eq "distinct trace ids" "$(cut -d' ' -f1 "$WORK/client.ids" | sort -u | wc -l)" "$3" || return 1
	cmp -s "$WORK/client.ids" "$WORK/server.ids" || {
		fail "client and server spans do not pair: $(diff "$WORK/client.ids" "$WORK/server.ids" | head -4)"
		# The unpaired spans whole, for the post-mortem: their id source,
		# connection and timing say which end lost track.
		local t
		for t in $(diff "$WORK/client.ids" "$WORK/server.ids" | awk '/^[<>]/ { print $2 }' | sort -u | head -4); do
			jq -c --arg t "$t" 'select(.span.trace_id == $t) | {role: .span.role, id_source: .span.id_source,
				span: .span.span_id, parent: .span.parent_span_id, target: .span.target,
				conn: .connection, start: .span.start_time_unix_nano}' "$WORK/signals.ndjson" >&2
		done
		return 1
	}
}

case_openssl_https() {
	require_root || return
	start_nginx || return 1
	tls_agent || return 1
	wait_probed openssl "$LIBSSL" || return 1
	# Debian 12's libssl3: SSL_read, SSL_write, SSL_do_handshake and
	# SSL_free probed on instructions the kernel emulates; only the _ex
	# pair's 4 uprobes are single-stepped (docs/network.md#tls-plaintext-probes).
	local stepped
	stepped=$(grep -F "tls: probing $LIBSSL (openssl, 11 uprobes, " "$WORK/stderr" |
		sed -E 's/.* 11 uprobes, ([0-9]+) on .*/\1/' | head -n1)
	[ -n "$stepped" ] && [ "$stepped" -le 4 ] ||
		{ fail "libssl uprobes on single-stepped instructions: ${stepped:-none logged}, want at most 4"; return 1; }
	local base="https://127.0.0.1:$HTTPS_PORT" urls=() i
	for i in 1 2 3 4; do
		urls+=("$base/static/small.txt" "$base/static/big.bin" "$base/users/$((1000 + i))/orders")
	done
	curl -k -g -s -w '%{http_code} %{time_total} %{local_port}\n' \
		$(printf -- '-o /dev/null %s ' "${urls[@]}") >"$WORK/curl.out" &
	local cpid=$!
	wait $cpid || { fail "curl failed"; return 1; }
	[ "$(awk '{ print $3 }' "$WORK/curl.out" | sort -u | wc -l)" = 1 ] ||
		{ fail "curl did not keep its connection"; return 1; }
	expect_eq "curl 200s" "$(awk '$1 == 200' "$WORK/curl.out" | wc -l)" 8 || return 1
	local lport
	lport=$(awk 'NR == 1 { print $3 }' "$WORK/curl.out")
	local cl='.kind == "span" and .process.pid == '$cpid
	local sv='.kind == "span" and .process.pid == '$NGINX_PID' and .connection.remote_port == '$lport
	expect_eq "client spans" "$(wait_for_count "$cl" 12)" 12 || return 1
	expect_eq "server spans" "$(wait_for_count "$sv" 12)" 12 || return 1
	expect_eq "client spans from OpenSSL, HTTP/1.1" \
		"$(jq -r "select($cl) | .span.tls_library + \" \" + .span.protocol" "$WORK/signals.ndjson" | sort -u)" "openssl http1" || return 1
	expect_eq "server spans from OpenSSL" \
		"$(jq -r "select($sv) | .span.tls_library" "$WORK/signals.ndjson" | sort -u)" openssl || return 1
	expect_eq "server 404s" "$(count_lines "$sv and .span.status_code == 404 and .span.error == false")" 4 || return 1
	expect_eq "client 404s are errors" "$(count_lines "$cl and .span.status_code == 404 and .span.error == true")" 4 || return 1
	expect_eq "templated route" \
		"$(count_lines "$sv and .span.target == \"/users/{id}/orders\" and .span.operation == \"GET\"")" 4 || return 1
	expect_eq "big.bin response bytes (headers + 200000)" \
		"$(jq -r "select($sv and .span.path == \"/static/big.bin\") | .span.response_bytes >= 200000 and .span.response_bytes < 200400" "$WORK/signals.ndjson" | sort -u)" true || return 1
	local max_ns
	max_ns=$(awk '{ t = $2 * 1e9; if (t > m) m = t } END { printf "%d", m + 1e6 }' "$WORK/curl.out")
	expect_eq "durations within (0, curl time]" \
		"$(jq -r "select(($cl) or ($sv)) | .span.duration_ns > 0 and .span.duration_ns <= $max_ns" "$WORK/signals.ndjson" | sort -u)" true || return 1
	pairs "$cl" "$sv" 12 || return 1
	expect_eq "id source" "$(jq -r "select($cl) | .span.id_source" "$WORK/signals.ndjson" | sort -u)" connection || return 1
	expect_eq "plaintext calls followed" "$(metric 'enav_tls_dropped_total{reason="no_socket"}')" 0 || return 1
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics"
	grep -q '^http_server_request_duration_seconds_count{http_request_method="GET",http_route="/users/{id}/orders",http_response_status_code="404",network_protocol_name="http",workload="process:nginx"} 4$' "$WORK/metrics" ||
		{ fail "server RED histogram: $(grep '^http_server_request_duration_seconds_count' "$WORK/metrics" | head -3)"; return 1; }
	promtool check metrics <"$WORK/metrics" >/dev/null 2>&1
	local rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 3 ] || { fail "promtool rejects /metrics"; return 1; }
}

case_openssl_http2() {
	require_root || return
	start_nginx || return 1
	tls_agent || return 1
	wait_probed openssl "$LIBSSL" || return 1
	local base="https://127.0.0.1:$H2S_PORT"
	curl -k --http2 -s -w '%{http_code} %{http_version} %{local_port}\n' \
		-o /dev/null "$base/static/small.txt" -o /dev/null "$base/static/big.bin" \
		-o /dev/null "$base/static/big2.bin" -o /dev/null "$base/nope/1" \
		-o /dev/null "$base/nope/2" -o /dev/null "$base/static/small.txt" >"$WORK/curl.out" &
	local cpid=$!
	wait $cpid || { fail "curl failed"; return 1; }
	expect_eq "negotiated HTTP/2 on one connection" \
		"$(awk '{ print $2, $3 }' "$WORK/curl.out" | sort -u | wc -l) $(awk '{ print $2 }' "$WORK/curl.out" | sort -u)" "1 2" || return 1
	local cl='.kind == "span" and .span.protocol == "http2" and .process.pid == '$cpid
	local sv='.kind == "span" and .span.protocol == "http2" and .process.pid == '$NGINX_PID
	expect_eq "client stream spans" "$(wait_for_count "$cl" 6)" 6 || return 1
	expect_eq "server stream spans" "$(wait_for_count "$sv" 6)" 6 || return 1
	expect_eq "distinct streams" "$(jq -r "select($cl) | .span.stream_id" "$WORK/signals.ndjson" | sort -u | wc -l)" 6 || return 1
	expect_eq "404 streams" "$(count_lines "$sv and .span.status_code == 404 and .span.target == \"/nope/{id}\"")" 2 || return 1
	expect_eq "big2.bin response bytes" \
		"$(jq -r "select($sv and .span.path == \"/static/big2.bin\") | .span.response_bytes > 300000 and .span.response_bytes < 300600" "$WORK/signals.ndjson")" true || return 1
	expect_eq "all from OpenSSL" "$(jq -r "select(($cl) or ($sv)) | .span.tls_library" "$WORK/signals.ndjson" | sort -u)" openssl || return 1
	pairs "$cl" "$sv" 6 || return 1
}

# gnutls-cli speaks GnuTLS to nginx's OpenSSL: each end names its library.
# no_other_mapper PATTERN: no process outside this test maps a file matching
# PATTERN.  The GnuTLS cases watch when the library becomes probed and
# unprobed; another program holding it (a QEMU guest links GnuTLS) would
# keep it probed, and the case would fail for a reason it did not name.
no_other_mapper() {
	local f pid others=
	for f in /proc/[0-9]*/maps; do
		pid=${f#/proc/}
		pid=${pid%/maps}
		[ "$pid" = "$$" ] && continue
		awk -v re="$1" '$6 ~ re { found = 1; exit } END { exit !found }' "$f" 2>/dev/null &&
			others="$others $pid($(cat "/proc/$pid/comm" 2>/dev/null))"
	done
	[ -z "$others" ] || { fail "other processes map $1, so its probing cannot be watched:$others"; return 1; }
}

case_gnutls() {
	require_root || return
	command -v gnutls-cli >/dev/null || { fail "gnutls-cli missing (scripts/deps.sh test: gnutls-bin)"; return 1; }
	no_other_mapper '/libgnutls\\.so' || return 1
	start_nginx || return 1
	tls_agent "sources:" "  network:" "    tls:" "      scan_interval_ms: 500" || return 1
	# The library is probed when a process maps it: a first client holds a
	# connection open while the agent finds it.
	mkfifo "$WORK/gnutls.in"
	gnutls-cli --insecure -p "$HTTPS_PORT" 127.0.0.1 <"$WORK/gnutls.in" >"$WORK/gnutls-anchor.out" 2>&1 &
	PIDS+=($!)
	exec 7>"$WORK/gnutls.in"
	local lib
	lib=$(mapped_lib "${PIDS[-1]}" '/libgnutls\\.so') || { fail "gnutls-cli maps no libgnutls"; exec 7>&-; return 1; }
	wait_probed gnutls "$lib" || { exec 7>&-; return 1; }
	printf 'GET /static/small.txt HTTP/1.1\r\nHost: x\r\n\r\nGET /nope/7 HTTP/1.1\r\nHost: x\r\n\r\nGET /static/big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n' |
		gnutls-cli --insecure -p "$HTTPS_PORT" 127.0.0.1 >"$WORK/gnutls.out" 2>&1 &
	local cpid=$!
	wait $cpid
	exec 7>&-
	expect_eq "responses" "$(grep -ac '^HTTP/1.1 ' "$WORK/gnutls.out")" 3 || return 1
	local cl='.kind == "span" and .process.pid == '$cpid
	expect_eq "client spans" "$(wait_for_count "$cl" 3)" 3 || return 1
	expect_eq "client library" "$(jq -r "select($cl) | .span.tls_library" "$WORK/signals.ndjson" | sort -u)" gnutls || return 1
	local lport
	lport=$(jq -r "select($cl) | .connection.local_port" "$WORK/signals.ndjson" | sort -u)
	local sv='.kind == "span" and .process.pid == '$NGINX_PID' and .connection.remote_port == '$lport
	expect_eq "server spans" "$(wait_for_count "$sv" 3)" 3 || return 1
	expect_eq "server library" "$(jq -r "select($sv) | .span.tls_library" "$WORK/signals.ndjson" | sort -u)" openssl || return 1
	expect_eq "statuses" "$(jq -r "select($cl) | .span.status_code" "$WORK/signals.ndjson" | sort | tr '\n' ' ')" "200 200 404 " || return 1
	pairs "$cl" "$sv" 3 || return 1
	# The last process mapping the library goes: its probes go at the next
	# full scan.  Exactly once: the /metrics reads of this loop (lib.sh's
	# http_get, static busybox) map no TLS library, so nothing re-probes it
	# (Debian's curl maps libgnutls: each curl would be a probe and a
	# detach more on a kernel slow enough to scan while it runs).
	kill "${PIDS[-1]}" 2>/dev/null
	local i
	for ((i = 0; i < $(scaled 100); i++)); do
		[ "$(metric 'enav_tls_detached_total{library="gnutls"}')" = 1 ] && break
		sleep 0.1
	done
	expect_eq "detached once unmapped" "$(metric 'enav_tls_detached_total{library="gnutls"}') $(metric_or_zero "enav_tls_probed_binary{library=\"gnutls\",binary=\"$lib\"}")" "1 0" || return 1
	grep -q "tls: detached gnutls probes from $lib (no process maps it)" "$WORK/stderr" ||
		{ fail "no detach line: $(grep 'tls:' "$WORK/stderr" | tail -2)"; return 1; }
	expect_eq "OpenSSL still probed (nginx maps it)" "$(metric "enav_tls_probed_binary{library=\"openssl\",binary=\"$LIBSSL\"}")" 1 || return 1
}

# sources.network.tls.max_binaries: a file past the cap is named and counted,
# never probed.
case_binary_cap() {
	require_root || return
	command -v gnutls-cli >/dev/null || { fail "gnutls-cli missing (scripts/deps.sh test: gnutls-bin)"; return 1; }
	no_other_mapper '/libgnutls\\.so' || return 1
	start_nginx || return 1
	tls_agent "sources:" "  network:" "    tls:" "      max_binaries: 1" || return 1
	wait_probed openssl "$LIBSSL" || return 1
	mkfifo "$WORK/gnutls-cap.in"
	gnutls-cli --insecure -p "$HTTPS_PORT" 127.0.0.1 <"$WORK/gnutls-cap.in" >/dev/null 2>&1 &
	PIDS+=($!)
	exec 8>"$WORK/gnutls-cap.in"
	local lib i
	lib=$(mapped_lib "${PIDS[-1]}" '/libgnutls\\.so') || { exec 8>&-; fail "gnutls-cli maps no libgnutls"; return 1; }
	for ((i = 0; i < 50; i++)); do
		grep -q "tls: $lib not probed: sources.network.tls.max_binaries (1) files are probed already" "$WORK/stderr" && break
		sleep 0.1
	done
	exec 8>&-
	grep -q "tls: $lib not probed: sources.network.tls.max_binaries (1) files are probed already" "$WORK/stderr" ||
		{ fail "no cap warning naming $lib: $(grep 'tls:' "$WORK/stderr" | tail -2)"; return 1; }
	[ "$(metric enav_tls_cap_refusals_total)" -ge 1 ] || { fail "cap refusal not counted"; return 1; }
	expect_eq "not probed" "$(metric_or_zero "enav_tls_probed_binary{library=\"gnutls\",binary=\"$lib\"}")" 0 || return 1
}

case_redis_tls() {
	require_root || return
	command -v redis-server >/dev/null || { fail "redis-server missing (scripts/deps.sh test)"; return 1; }
	make_cert || return 1
	redis-server --port 0 --tls-port "$REDIS_TLS_PORT" --bind 127.0.0.1 --tls-cert-file "$WORK/tls/cert.pem" \
		--tls-key-file "$WORK/tls/key.pem" --tls-ca-cert-file "$WORK/tls/cert.pem" --tls-auth-clients no \
		--save '' --appendonly no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
	local spid=$!
	PIDS+=("$spid")
	LIBSSL=$(mapped_lib "$spid" '/libssl\\.so')
	local i
	for ((i = 0; i < 50; i++)); do
		redis-cli --tls --insecure -p "$REDIS_TLS_PORT" ping 2>/dev/null | grep -q PONG && break
		sleep 0.1
	done
	tls_agent || return 1
	wait_probed openssl "$LIBSSL" || return 1
	printf 'SET enav:k v1\nGET enav:k\nINCR enav:n\nINCR enav:n\nENAVNOSUCH x\nDEL enav:k enav:n\n' |
		redis-cli --tls --insecure -p "$REDIS_TLS_PORT" >"$WORK/redis-cli.out" 2>&1 &
	local cpid=$!
	wait $cpid || { fail "redis-cli failed: $(tail -2 "$WORK/redis-cli.out")"; return 1; }
	local cl='.kind == "span" and .span.protocol == "redis" and .process.pid == '$cpid
	local sv='.kind == "span" and .span.protocol == "redis" and .process.pid == '$spid
	# redis-cli asks for COMMAND DOCS first.
	expect_eq "client spans" "$(wait_for_count "$cl" 7)" 7 || return 1
	expect_eq "server spans" "$(wait_for_count "$sv" 7)" 7 || return 1
	expect_eq "commands" "$(jq -r "select($cl) | .span.operation" "$WORK/signals.ndjson" | tr '\n' ' ')" "COMMAND DOCS SET GET INCR INCR ENAVNOSUCH DEL " || return 1
	expect_eq "the unknown command is the one error" "$(jq -r "select($sv and .span.error == true) | .span.operation" "$WORK/signals.ndjson")" ENAVNOSUCH || return 1
	expect_eq "libraries" "$(jq -r "select(($cl) or ($sv)) | .span.tls_library" "$WORK/signals.ndjson" | sort -u)" openssl || return 1
	pairs "$cl" "$sv" 7 || return 1
}

start_pg_tls() {
	[ -x "$PG_BIN/initdb" ] || { fail "PostgreSQL server binaries missing (scripts/deps.sh: postgresql)"; return 1; }
	make_cert || return 1
	if [ ! -d "$WORK/pg/data" ]; then
		chmod 711 "$WORK"
		mkdir -p "$WORK/pg"
		echo "$PG_PASS" >"$WORK/pg/pwfile"
		cp "$WORK/tls/cert.pem" "$WORK/tls/key.pem" "$WORK/pg/"
		chmod 600 "$WORK/pg/key.pem"
		chown -R postgres: "$WORK/pg"
		chmod 700 "$WORK/pg"
		runuser -u postgres -- "$PG_BIN/initdb" -D "$WORK/pg/data" -U postgres \
			--auth-local=trust --auth-host=scram-sha-256 --pwfile="$WORK/pg/pwfile" \
			--no-sync >"$WORK/pg/initdb.log" 2>&1 ||
			{ fail "initdb failed: $(tail -3 "$WORK/pg/initdb.log")"; return 1; }
	fi
	PG_UP=1
	runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$WORK/pg/data" -l "$WORK/pg/server.log" -w -t 30 \
		-o "-p $PG_TLS_PORT -k $WORK/pg -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=$WORK/pg/cert.pem -c ssl_key_file=$WORK/pg/key.pem -c fsync=off" \
		start >"$WORK/pg/pg_ctl.out" 2>&1 ||
		{ fail "postgres did not start: $(tail -3 "$WORK/pg/server.log")"; return 1; }
	LIBSSL=$(mapped_lib "$(head -n1 "$WORK/pg/data/postmaster.pid")" '/libssl\\.so')
}

case_postgres_tls() {
	require_root || return
	start_pg_tls || return 1
	tls_agent || return 1
	wait_probed openssl "$LIBSSL" || return 1
	cat >"$WORK/pg.sql" <<'SQL'
SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid();
CREATE TABLE enav_tls_items (id int PRIMARY KEY, name text);
INSERT INTO enav_tls_items VALUES (1, 'enav-tls-secret');
SELEC 1;
DROP TABLE enav_tls_items;
SQL
	PGPASSWORD=$PG_PASS psql -X -At "host=127.0.0.1 port=$PG_TLS_PORT user=postgres dbname=postgres sslmode=require connect_timeout=5" \
		-f "$WORK/pg.sql" >"$WORK/psql.out" 2>&1 &
	local cpid=$!
	wait $cpid
	expect_eq "psql over TLS" "$(head -n1 "$WORK/psql.out")" t || return 1
	local cl='.kind == "span" and .span.protocol == "postgresql" and .process.pid == '$cpid
	expect_eq "client spans" "$(wait_for_count "$cl" 5)" 5 || return 1
	local lport
	lport=$(jq -r "select($cl) | .connection.local_port" "$WORK/signals.ndjson" | sort -u)
	local sv='.kind == "span" and .span.protocol == "postgresql" and .connection.role == "server" and .connection.remote_port == '$lport
	expect_eq "server spans" "$(wait_for_count "$sv" 5)" 5 || return 1
	expect_eq "operations" "$(jq -r "select($sv) | .span.operation + \":\" + (.span.error | tostring)" "$WORK/signals.ndjson" | tr '\n' ' ')" \
		"SELECT:false CREATE:false INSERT:false OTHER:true DROP:false " || return 1
	expect_eq "libraries" "$(jq -r "select(($cl) or ($sv)) | .span.tls_library" "$WORK/signals.ndjson" | sort -u)" openssl || return 1
	expect_eq "no literal leaves" "$(jq -c "select($cl or $sv)" "$WORK/signals.ndjson" | grep -c enav-tls-secret)" 0 || return 1
	[ "$(metric enav_l7_tls_switches_total)" -ge 2 ] ||
		{ fail "SSLRequest then TLS not seen as a switch on both ends"; return 1; }
	pairs "$cl" "$sv" 5 || return 1
}

build_go() {
	command -v go >/dev/null || { fail "go missing (scripts/deps.sh test: golang-go)"; return 1; }
	[ -x "$WORK/go_tls" ] && return 0
	local src
	src=$(cd "$(dirname "$0")/peers/go_tls" && pwd)
	(cd "$src" && CGO_ENABLED=0 go build -o "$WORK/go_tls" . &&
		CGO_ENABLED=0 go build -ldflags='-s -w' -o "$WORK/go_tls_stripped" .) 2>"$WORK/gobuild.err" ||
		{ fail "go build: $(cat "$WORK/gobuild.err")"; return 1; }
}

start_go_server() { # start_go_server BINARY PORT
	"$1" server "127.0.0.1:$2" "$WORK/tls/cert.pem" "$WORK/tls/key.pem" >"$WORK/go-server-$2.log" 2>&1 &
	PIDS+=($!)
	local i
	for ((i = 0; i < 50; i++)); do
		[ "$(curl -ks -o /dev/null -w '%{http_code}' "https://127.0.0.1:$2/ready")" = 404 ] && return 0
		sleep 0.1
	done
	fail "Go server on $2 did not start: $(cat "$WORK/go-server-$2.log")"
}

case_go() {
	require_root || return
	make_cert || return 1
	build_go || return 1
	tls_agent || return 1
	if "$ENAV" probe --json --skip-load-check 2>/dev/null | jq -e '.auto.payload_hook_reason | test("compat set")' >/dev/null; then
		# No bpf_get_attach_cookie (Debian 11's 5.10): Go TLS off by name.
		expect_eq "go_tls state" "$(metric 'enav_feature_enabled{source="network",feature="go_tls",state="hook_missing"}')" 0 || return 1
		grep -q 'network: feature go_tls is off: Go TLS probes need bpf_get_attach_cookie (Linux 5.15+)' "$WORK/stderr" ||
			{ fail "no go_tls refusal: $(grep go_tls "$WORK/stderr")"; return 1; }
		return
	fi
	start_go_server "$WORK/go_tls" "$GO_PORT" || return 1
	local spid=${PIDS[-1]}
	wait_probed go "$WORK/go_tls" || return 1
	# Only Read's RET probes are single-stepped: the entry probes sit on the
	# stack check's JBE, which the kernel emulates.
	local plan
	plan=$(grep -F "tls: probing Go binary $WORK/go_tls (" "$WORK/stderr" | head -n1)
	expect_eq "Go uprobes single-stepped = Read's return instructions" \
		"$(echo "$plan" | sed -E 's/.*, ([0-9]+) return instructions.*/\1/')" \
		"$(echo "$plan" | sed -E 's/.* ([0-9]+) of [0-9]+ uprobes on an instruction.*/\1/')" || return 1
	"$WORK/go_tls" client "https://127.0.0.1:$GO_PORT" 6 500 >"$WORK/go-client.log" 2>&1 &
	local cpid=$!
	wait $cpid || { fail "Go client: $(cat "$WORK/go-client.log")"; return 1; }
	# Exactly one span per request on each end: a write seen twice would be
	# a span with no response, and shift every later id on its connection.
	local cl_all='.kind == "span" and .process.pid == '$cpid
	local cl="$cl_all"' and .span.response_seen == true'
	local sv='.kind == "span" and .process.pid == '$spid' and .span.path != "/ready"'
	expect_eq "answered client spans (6 workers x 500)" "$(wait_for_count "$cl" 3000 30)" 3000 || return 1
	expect_eq "client spans without a response" "$(count_lines "$cl_all and .span.response_seen == false")" 0 || return 1
	expect_eq "server spans" "$(wait_for_count "$sv" 3000 30)" 3000 || return 1
	expect_eq "Go crypto/tls, HTTP/1.1, all 200 (every response seen)" \
		"$(jq -r "select(($cl) or ($sv)) | .span.tls_library + \" \" + .span.protocol + \" \" + (.span.status_code | tostring)" "$WORK/signals.ndjson" | sort -u)" "go http1 200" || return 1
	expect_eq "server routes" "$(jq -r "select($sv) | .span.target" "$WORK/signals.ndjson" | sort -u)" "/items/{id}" || return 1
	pairs "$cl" "$sv" 3000 || return 1
	grep -q "tls: probing Go binary $WORK/go_tls (go1\.[0-9.]*, [0-9]* return instructions in (\*Conn).Read, offsets from dwarf, [0-9]* of [0-9]* uprobes on an instruction the kernel single-steps)" "$WORK/stderr" ||
		{ fail "no probing line for the Go binary: $(grep 'tls:' "$WORK/stderr" | head -3)"; return 1; }
	expect_eq "nothing dropped" "$(metric 'enav_tls_dropped_total{reason="not_tcp_conn"}') $(metric 'enav_tls_dropped_total{reason="read_fault"}') $(metric 'enav_tls_dropped_total{reason="no_socket"}')" "0 0 0" || return 1

	# Writes from goroutines whose stack runs out at every depth in turn,
	# (*Conn).Write's entry among them: the runtime grows the stack and
	# restarts the function there, which a probe at its first instruction
	# counted as a second write (bytes duplicated, ids shifted).  Every
	# write is one span, and each pairs with its server span.
	"$WORK/go_tls" grow "127.0.0.1:$GO_PORT" 512 >"$WORK/go-grow.log" 2>&1 &
	cpid=$!
	wait $cpid || { fail "Go grow client: $(cat "$WORK/go-grow.log")"; return 1; }
	cl_all='.kind == "span" and .process.pid == '$cpid
	local port
	port=$(wait_for_line "$cl_all" | jq -r .connection.local_port) || { fail "no span of the growing client"; return 1; }
	local sv_grow='.kind == "span" and .process.pid == '$spid' and .connection.remote_port == '$port
	expect_eq "server spans of the growing client" "$(wait_for_count "$sv_grow" 512 30)" 512 || return 1
	expect_eq "client spans of 512 writes at every stack depth" "$(count_lines "$cl_all")" 512 || return 1
	pairs "$cl_all"' and .span.response_seen == true' "$sv_grow" 512 || return 1

	# The stripped build: refused with its name, never probed; its client
	# peer (the probed binary) still sees its own requests.
	start_go_server "$WORK/go_tls_stripped" "$GO_STRIPPED_PORT" || return 1
	local stripped=${PIDS[-1]} i
	for ((i = 0; i < 50; i++)); do
		grep -q "tls: Go binary $WORK/go_tls_stripped not probed: uses crypto/tls but has no symbol table" "$WORK/stderr" && break
		sleep 0.1
	done
	grep -q "tls: Go binary $WORK/go_tls_stripped not probed: uses crypto/tls but has no symbol table" "$WORK/stderr" ||
		{ fail "stripped binary not refused by name: $(grep 'tls:' "$WORK/stderr" | tail -3)"; return 1; }
	expect_eq "refusals" "$(metric 'enav_tls_refused_total{library="go"}')" 1 || return 1
	expect_eq "stripped binary not probed" "$(metric_or_zero "enav_tls_probed_binary{library=\"go\",binary=\"$WORK/go_tls_stripped\"}")" 0 || return 1
	"$WORK/go_tls" client "https://127.0.0.1:$GO_STRIPPED_PORT" 2 50 >"$WORK/go-client2.log" 2>&1 &
	cpid=$!
	wait $cpid || { fail "Go client: $(cat "$WORK/go-client2.log")"; return 1; }
	expect_eq "answered client spans against the stripped server" "$(wait_for_count ".kind == \"span\" and .process.pid == $cpid and .span.response_seen == true" 100)" 100 || return 1
	expect_eq "no span from the stripped server" "$(count_lines ".kind == \"span\" and .process.pid == $stripped")" 0 || return 1
}

# Turned off, nothing is probed and TLS traffic yields no span.
case_disabled() {
	require_root || return
	start_nginx || return 1
	tls_agent "sources:" "  network:" "    tls:" "      enabled: false" || return 1
	curl -k -s -o /dev/null "https://127.0.0.1:$HTTPS_PORT/static/small.txt" &
	local cpid=$!
	wait $cpid
	sleep 1.5
	expect_eq "no TLS spans" "$(count_lines ".kind == \"span\" and (.process.pid == $cpid or .process.pid == $NGINX_PID)")" 0 || return 1
	[ -z "$(curl -fs "http://127.0.0.1:$TEST_PORT/metrics" | grep '^enav_tls_')" ] ||
		{ fail "TLS prober ran while disabled"; return 1; }
}

trap 'stop_servers; cleanup' EXIT
run_case "OpenSSL: curl to nginx over HTTPS/1.1, spans as in plaintext, paired" case_openssl_https
stop_servers
run_case "OpenSSL: HTTP/2 over TLS (ALPN), six streams" case_openssl_http2
stop_servers
run_case "GnuTLS: gnutls-cli to nginx, each end names its library; detached when unmapped" case_gnutls
stop_servers
run_case "sources.network.tls.max_binaries: the file past the cap is refused by name" case_binary_cap
stop_servers
run_case "Redis with TLS: redis-cli --tls" case_redis_tls
stop_servers
run_case "PostgreSQL with sslmode=require: SSLRequest, then TLS plaintext" case_postgres_tls
stop_servers
run_case "Go crypto/tls: 6 x 500 requests; writes at every stack depth; the stripped build refused" case_go
stop_servers
run_case "sources.network.tls.enabled: false" case_disabled
stop_servers
finish
