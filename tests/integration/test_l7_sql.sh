#!/usr/bin/env bash
# SQL spans against real servers on loopback, TCP only, no TLS:
#  - PostgreSQL 15 (a private cluster, scram-sha-256 over TCP: start_pg of
#    lib.sh): psql's simple-protocol script with a syntax error, the same
#    script with sanitized statements, and pgbench in extended-protocol mode;
#  - MariaDB 10.11 (a private datadir, a password user over TCP): the mariadb
#    client's batch with a syntax error and a duplicate key, and binary
#    prepared statements from tests/integration/helpers/mariadb_stmt.c.
# Span counts must equal the workload's own operation count on both ends,
# with the right operation, table, status and error flag, and never a
# literal value.
. "$(dirname "$0")/lib.sh"

MY_PORT=${MY_PORT:-13306}
MY_USER=enav
MY_PASS=enav-my-pw
MY_DB=enavdb
MY_PID=
# A literal no span may carry: every value the workloads insert contains it.
SECRET=zebra_secret

# ---- MariaDB -------------------------------------------------------------

my_root() { mariadb --no-defaults --socket="$WORK/my/sock" -uroot "$@"; }

# A private datadir (installed once for the file) served on loopback.  root
# keeps its default unix_socket authentication, used only to create the
# test's own password user; every traced connection is that user over TCP.
start_mariadb() {
	command -v mariadbd >/dev/null || { fail "mariadbd missing (scripts/deps.sh: mariadb-server)"; return 1; }
	command -v mariadb >/dev/null || { fail "mariadb client missing (scripts/deps.sh: mariadb-client)"; return 1; }
	local fresh=
	if [ ! -d "$WORK/my/data" ]; then
		mkdir -p "$WORK/my"
		mariadb-install-db --no-defaults --datadir="$WORK/my/data" --user=root \
			--auth-root-authentication-method=socket --skip-test-db \
			>"$WORK/my/install.log" 2>&1 ||
			{ fail "mariadb-install-db failed: $(tail -3 "$WORK/my/install.log")"; return 1; }
		fresh=1
	fi
	mariadbd --no-defaults --datadir="$WORK/my/data" --user=root \
		--port="$MY_PORT" --bind-address=127.0.0.1 --socket="$WORK/my/sock" \
		--pid-file="$WORK/my/mariadbd.pid" --log-error="$WORK/my/error.log" \
		--skip-name-resolve --innodb-flush-log-at-trx-commit=0 --innodb-buffer-pool-size=32M \
		--open-files-limit=1024 >"$WORK/my/mariadbd.out" 2>&1 &
	MY_PID=$!
	local i
	for ((i = 0; i < 150; i++)); do
		mariadb-admin --no-defaults --socket="$WORK/my/sock" -uroot ping >/dev/null 2>&1 && break
		kill -0 "$MY_PID" 2>/dev/null || { fail "mariadbd exited: $(tail -3 "$WORK/my/error.log")"; return 1; }
		sleep 0.1
	done
	[ $i -lt 150 ] || { fail "mariadbd did not start: $(tail -3 "$WORK/my/error.log")"; return 1; }
	if [ -n "$fresh" ]; then
		my_root -e "CREATE DATABASE $MY_DB;
			CREATE USER '$MY_USER'@'127.0.0.1' IDENTIFIED BY '$MY_PASS';
			GRANT ALL ON $MY_DB.* TO '$MY_USER'@'127.0.0.1';" ||
			{ fail "could not create the test user"; return 1; }
	fi
	mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"$MY_PORT" -u"$MY_USER" -p"$MY_PASS" \
		--skip-ssl "$MY_DB" -e 'SELECT 1' >/dev/null 2>&1 ||
		{ fail "mariadbd does not accept $MY_USER over 127.0.0.1:$MY_PORT"; return 1; }
}

stop_mariadb() {
	[ -n "$MY_PID" ] && kill "$MY_PID" 2>/dev/null && wait "$MY_PID" 2>/dev/null
	MY_PID=
}

stop_servers() {
	stop_pg
	stop_mariadb
}

# ---- shared assertions ---------------------------------------------------

# field_list FILTER JQ_EXPR: one value per matching span, space-separated.
field_list() {
	jq -r "select($1) | $2" "$WORK/signals.ndjson" | tr '\n' ' '
}

# table FILTER: "count operation target status error" per distinct span shape.
table() {
	jq -r "select($1) | [.span.operation, (if .span.target == \"\" then \"-\" else .span.target end), .span.status, .span.error, .span.response_seen] | join(\" \")" \
		"$WORK/signals.ndjson" | sort | uniq -c | awk '{ $1 = $1; print }'
}

# pairs CLIENT_FILTER SERVER_FILTER: every client span has exactly one server
# span with its trace id, whose parent is the client span.
pairs() {
	jq -r "select($1) | .span.trace_id + \" \" + .span.span_id" "$WORK/signals.ndjson" | sort >"$WORK/client.ids"
	jq -r "select($2) | .span.trace_id + \" \" + .span.parent_span_id" "$WORK/signals.ndjson" | sort >"$WORK/server.ids"
	[ -s "$WORK/client.ids" ] || { fail "no client spans to pair"; return 1; }
	cmp -s "$WORK/client.ids" "$WORK/server.ids" ||
		{ fail "client and server spans do not pair: $(diff "$WORK/client.ids" "$WORK/server.ids" | head -4)"; return 1; }
}

# durations FILTER WALL_NS: every span's duration within (0, the client's wall time].
durations() {
	expect_eq "durations within (0, client wall time $2 ns]" \
		"$(jq -r "select($1) | .span.duration_ns > 0 and .span.duration_ns <= $2" "$WORK/signals.ndjson" | sort -u)" true
}

no_literal() { # no_literal TEXT
	expect_eq "spans carrying the literal '$1'" \
		"$(jq -c 'select(.kind == "span")' "$WORK/signals.ndjson" | grep -c "$1")" 0
}

# metric_line EXACT_LINE: /metrics has this line.
metric_line() {
	curl -fs "http://127.0.0.1:$TEST_PORT/metrics" >"$WORK/metrics"
	grep -qxF "$1" "$WORK/metrics" || {
		fail "missing metric line: $1
    have: $(grep -F "${1%%\{*}" "$WORK/metrics" | head -8)"
		return 1
	}
}

# no_parse_trouble PROTOCOL WINDOW_RESYNCS CONNECTIONS: nothing unframeable,
# unmatched, dropped or cut, and every resync explained: either a stream gap
# the tracker reported, or a response longer than the capture window whose
# next message header lay in the uncaptured tail (the caller knows how many).
# Stream gaps: a server's last read (the client's Terminate/COM_QUIT) that
# also consumes the client's FIN is reported one byte past where it is (the
# kernel's copied_seq counts the FIN), so the final read of a connection may
# show a false gap of 1 byte, depending on timing; it costs no operation.
no_parse_trouble() {
	local m
	for m in enav_l7_parse_errors_total enav_l7_unmatched_responses_total \
		enav_l7_pending_overflow_total enav_l7_truncated_fields_total; do
		expect_eq "$m{protocol=\"$1\"}" "$(metric "$m{protocol=\"$1\"}")" 0 || return 1
	done
	local resyncs gaps
	resyncs=$(metric "enav_l7_resyncs_total{protocol=\"$1\"}")
	gaps=$(metric enav_l7_stream_gaps_total)
	expect_eq "$1 resyncs (stream gaps $gaps + $2 past the window)" "$resyncs" $((gaps + $2)) || return 1
	[ "$gaps" -le "$3" ] || { fail "$gaps stream gaps on $3 connections"; return 1; }
	expect_eq "no transport loss" \
		"$(metric 'enav_kernel_events_total{source="network",transport="ringbuf",category="transport_full"}')" 0
}

pg_agent() { # pg_agent [extra l7 yaml lines...]
	l7_config "$WORK/cfg.yaml" "sources:" "  network:" "    l7:" "      protocols: [postgresql]" "$@"
	start_agent "$WORK/cfg.yaml"
}

my_agent() {
	l7_config "$WORK/cfg.yaml" "sources:" "  network:" "    l7:" "      protocols: [mysql]"
	start_agent "$WORK/cfg.yaml"
}

# ---- PostgreSQL cases ----------------------------------------------------

# Seven statements in psql's simple query protocol, one 'Q' each.
write_pg_script() {
	cat >"$WORK/pg.sql" <<SQL
CREATE TABLE enav_items (id int PRIMARY KEY, name text);
INSERT INTO enav_items VALUES (1, '${SECRET}_one');
INSERT INTO enav_items VALUES (2, '${SECRET}_two');
SELECT name FROM enav_items WHERE id = 2;
UPDATE enav_items SET name = '${SECRET}_three' WHERE id = 1;
SELEC 1;
DROP TABLE enav_items;
SQL
}

# run_psql: runs the script; sets CPID, WALL_NS, CL (client filter),
# SV (server filter: the backend serving psql's connection) and BACKEND.
run_psql() {
	write_pg_script
	local t0 t1
	t0=$(date +%s%N)
	PGPASSWORD=$PG_PASS psql -X "$(pg_conninfo)" -f "$WORK/pg.sql" >"$WORK/psql.out" 2>&1 &
	CPID=$!
	wait $CPID || { fail "psql failed: $(tail -3 "$WORK/psql.out")"; return 1; }
	t1=$(date +%s%N)
	WALL_NS=$((t1 - t0))
	grep -q 'ERROR:  syntax error at or near "SELEC"' "$WORK/psql.out" ||
		{ fail "psql did not see its syntax error: $(cat "$WORK/psql.out")"; return 1; }
	[ "$(grep -c "${SECRET}_two" "$WORK/psql.out")" = 1 ] || { fail "SELECT did not return its row"; return 1; }
	CL='.kind == "span" and .span.protocol == "postgresql" and .process.pid == '$CPID
	expect_eq "psql spans" "$(wait_for_count "$CL" 7)" 7 || return 1
	local ports lport
	ports=$(jq -r "select($CL) | .connection.local_port" "$WORK/signals.ndjson" | sort -u)
	expect_eq "psql connections" "$(wc -w <<<"$ports")" 1 || return 1
	lport=$ports
	expect_eq "psql role and peer" "$(jq -r "select($CL) | .connection.role + \" \" + (.connection.remote_port | tostring)" "$WORK/signals.ndjson" | sort -u)" "client $PG_PORT" || return 1
	local sv_all='.kind == "span" and .span.protocol == "postgresql" and .connection.role == "server" and .connection.local_port == '$PG_PORT
	SV="$sv_all and .connection.remote_port == $lport"
	expect_eq "server spans" "$(wait_for_count "$SV" 7)" 7 || return 1
	# Nothing else talked to the cluster over TCP while the agent ran.
	expect_eq "all server spans on $PG_PORT" "$(count_lines "$sv_all")" 7 || return 1
	BACKEND=$(jq -r "select($SV) | .process.pid" "$WORK/signals.ndjson" | sort -u)
	expect_eq "one backend process" "$(wc -w <<<"$BACKEND")" 1 || return 1
	expect_eq "backend comm" "$(jq -r "select($SV) | .process.comm" "$WORK/signals.ndjson" | sort -u)" postgres || return 1
	[ "$BACKEND" != "$(pg_postmaster_pid)" ] && [ "$BACKEND" != "$CPID" ] ||
		{ fail "server spans from $BACKEND: not a backend (postmaster $(pg_postmaster_pid), psql $CPID)"; return 1; }
}

pg_expect_script_spans() { # pg_expect_script_spans FILTER SIDE
	local f=$1 side=$2
	expect_eq "$side operations in order" "$(field_list "$f" .span.operation)" \
		"CREATE INSERT INSERT SELECT UPDATE OTHER DROP " || return 1
	expect_eq "$side targets in order" "$(field_list "$f" '(if .span.target == "" then "-" else .span.target end)')" \
		"enav_items enav_items enav_items enav_items enav_items - enav_items " || return 1
	# status: the CommandComplete tag's first word, or the error's SQLSTATE.
	expect_eq "$side statuses in order" "$(field_list "$f" .span.status)" \
		"CREATE INSERT INSERT SELECT UPDATE 42601 DROP " || return 1
	expect_eq "$side error flags in order" "$(field_list "$f" .span.error)" \
		"false false false false false true false " || return 1
	expect_eq "$side responses seen" "$(field_list "$f" .span.response_seen | tr ' ' '\n' | sort -u | tr '\n' ' ')" "true " || return 1
}

case_pg_psql() {
	require_root || return
	start_pg || return 1
	pg_agent || return 1
	run_psql || return 1
	pg_expect_script_spans "$CL" client || return 1
	pg_expect_script_spans "$SV" server || return 1
	expect_eq "no statement text unless configured" "$(count_lines '.kind == "span" and (.span | has("statement"))')" 0 || return 1
	durations "$CL" "$WALL_NS" || return 1
	durations "$SV" "$WALL_NS" || return 1
	pairs "$CL" "$SV" || return 1
	no_literal "$SECRET" || return 1
	metric_line 'db_client_operation_duration_seconds_count{db_system_name="postgresql",db_operation_name="OTHER",error_type="42601",workload="process:psql"} 1' || return 1
	metric_line 'db_client_operation_duration_seconds_count{db_system_name="postgresql",db_operation_name="INSERT",db_collection_name="enav_items",workload="process:psql"} 2' || return 1
	metric_line 'enav_db_server_operation_duration_seconds_count{db_system_name="postgresql",db_operation_name="OTHER",error_type="42601",workload="process:postgres"} 1' || return 1
	expect_eq "postgresql operations accounted" "$(metric 'enav_l7_operations_total{protocol="postgresql"}')" 14 || return 1
	# The start-up answer (AuthenticationSASLFinal and Ok, a dozen ParameterStatus,
	# BackendKeyData, ReadyForQuery: ~470 bytes) is one write, read whole by
	# psql: past the default 256-byte window on both ends, 2 resyncs.  No
	# operation is in flight then, so none is lost.
	no_parse_trouble postgresql 2 1
}

case_pg_sanitized() {
	require_root || return
	start_pg || return 1
	pg_agent "      sanitized_statement: true" || return 1
	run_psql || return 1
	pg_expect_script_spans "$CL" client || return 1
	# Literals become '?' (numbers and strings alike), nothing else changes.
	local want
	want=$(
		cat <<'EOF'
CREATE TABLE enav_items (id int PRIMARY KEY, name text);
INSERT INTO enav_items VALUES (?, ?);
INSERT INTO enav_items VALUES (?, ?);
SELECT name FROM enav_items WHERE id = ?;
UPDATE enav_items SET name = ? WHERE id = ?;
SELEC ?;
DROP TABLE enav_items;
EOF
	)
	expect_eq "client sanitized statements" "$(jq -r "select($CL) | .span.statement" "$WORK/signals.ndjson")" "$want" || return 1
	expect_eq "server sanitized statements" "$(jq -r "select($SV) | .span.statement" "$WORK/signals.ndjson")" "$want" || return 1
	pairs "$CL" "$SV" || return 1
	no_literal "$SECRET" || return 1
	no_parse_trouble postgresql 2 1
}

# pgbench's TPC-B-like script in the extended protocol: every statement is
# Parse/Bind/Describe/Execute/Sync of the unnamed statement in one write
# (50 to 175 bytes: INSERT INTO pgbench_history is the longest) answered by
# one write of under 80 bytes, one statement at a time, never pipelined: the
# default 256-byte capture window covers every request and response whole.
PGBENCH_TX=${PGBENCH_TX:-50}
case_pgbench() {
	require_root || return
	command -v pgbench >/dev/null || { fail "pgbench missing (scripts/deps.sh: postgresql, whose client package ships it)"; return 1; }
	start_pg || return 1
	# Initialised before the agent starts: its COPY and DDL are not the workload.
	PGPASSWORD=$PG_PASS pgbench -i -q "$(pg_conninfo)" >"$WORK/pgbench-init.out" 2>&1 ||
		{ fail "pgbench -i failed: $(tail -3 "$WORK/pgbench-init.out")"; return 1; }
	pg_agent || return 1
	local n=$PGBENCH_TX t0 t1
	t0=$(date +%s%N)
	PGPASSWORD=$PG_PASS pgbench -M extended -n -t "$n" -c 1 "$(pg_conninfo)" >"$WORK/pgbench.out" 2>&1 &
	local bpid=$!
	wait $bpid || { fail "pgbench failed: $(tail -3 "$WORK/pgbench.out")"; return 1; }
	t1=$(date +%s%N)
	grep -q "^number of transactions actually processed: $n/$n\$" "$WORK/pgbench.out" &&
		grep -q '^number of failed transactions: 0 ' "$WORK/pgbench.out" ||
		{ fail "pgbench did not run $n transactions: $(grep transactions "$WORK/pgbench.out")"; return 1; }
	local cl_all='.kind == "span" and .span.protocol == "postgresql" and .process.pid == '$bpid
	# 7 statements per transaction, plus pgbench's two setup queries (the
	# scale from pgbench_branches, partitioning from pg_catalog) on their
	# own connection.
	expect_eq "pgbench spans" "$(wait_for_count "$cl_all" $((7 * n + 2)) 20)" $((7 * n + 2)) || return 1
	local bport
	bport=$(jq -r "select($cl_all and .span.operation == \"BEGIN\") | .connection.local_port" "$WORK/signals.ndjson" | sort -u)
	expect_eq "one benchmark connection" "$(wc -w <<<"$bport")" 1 || return 1
	local cl="$cl_all and .connection.local_port == $bport"
	local setup="$cl_all and .connection.local_port != $bport"
	expect_eq "setup queries (own connection)" "$(table "$setup")" \
		"1 SELECT pg_catalog.pg_class SELECT false true
1 SELECT pgbench_branches SELECT false true" || return 1
	local want
	want=$(
		cat <<EOF
$n BEGIN - BEGIN false true
$n END - COMMIT false true
$n INSERT pgbench_history INSERT false true
$n SELECT pgbench_accounts SELECT false true
$n UPDATE pgbench_accounts UPDATE false true
$n UPDATE pgbench_branches UPDATE false true
$n UPDATE pgbench_tellers UPDATE false true
EOF
	)
	expect_eq "client spans per operation and table" "$(table "$cl")" "$want" || return 1
	expect_eq "client spans on the benchmark connection" "$(count_lines "$cl")" $((7 * n)) || return 1
	local sv='.kind == "span" and .span.protocol == "postgresql" and .connection.role == "server" and .connection.local_port == '$PG_PORT' and .connection.remote_port == '$bport
	expect_eq "server spans" "$(wait_for_count "$sv" $((7 * n)))" $((7 * n)) || return 1
	expect_eq "server spans per operation and table" "$(table "$sv")" "$want" || return 1
	expect_eq "all server spans on $PG_PORT" \
		"$(count_lines ".kind == \"span\" and .span.protocol == \"postgresql\" and .connection.role == \"server\" and .connection.local_port == $PG_PORT")" \
		$((7 * n + 2)) || return 1
	local backend
	backend=$(jq -r "select($sv) | (.process.pid | tostring) + \" \" + .process.comm" "$WORK/signals.ndjson" | sort -u)
	expect_eq "one backend process" "$(wc -l <<<"$backend")" 1 || return 1
	[ "${backend% postgres}" != "$backend" ] && [ "${backend% postgres}" != "$(pg_postmaster_pid)" ] ||
		{ fail "server spans from '$backend': not a backend (postmaster $(pg_postmaster_pid))"; return 1; }
	# Every transaction, in order, on both ends.
	local tx="BEGIN/ UPDATE/pgbench_accounts SELECT/pgbench_accounts UPDATE/pgbench_tellers UPDATE/pgbench_branches INSERT/pgbench_history END/ "
	local seq_want i
	seq_want=$(for ((i = 0; i < n; i++)); do printf '%s' "$tx"; done)
	expect_eq "client transactions in order" "$(field_list "$cl" '.span.operation + "/" + .span.target')" "$seq_want" || return 1
	expect_eq "server transactions in order" "$(field_list "$sv" '.span.operation + "/" + .span.target')" "$seq_want" || return 1
	durations "$cl_all" $((t1 - t0)) || return 1
	durations "$sv" $((t1 - t0)) || return 1
	pairs "$cl" "$sv" || return 1
	metric_line "db_client_operation_duration_seconds_count{db_system_name=\"postgresql\",db_operation_name=\"UPDATE\",db_collection_name=\"pgbench_tellers\",workload=\"process:pgbench\"} $n" || return 1
	metric_line "enav_db_server_operation_duration_seconds_count{db_system_name=\"postgresql\",db_operation_name=\"INSERT\",db_collection_name=\"pgbench_history\",workload=\"process:postgres\"} $n" || return 1
	# Two start-up answers past the window (setup and benchmark connections).
	no_parse_trouble postgresql 4 2
}

# ---- MariaDB cases -------------------------------------------------------

case_mariadb_cli() {
	require_root || return
	start_mariadb || return 1
	my_agent || return 1
	cat >"$WORK/my.sql" <<SQL
CREATE TABLE enav_items (id INT PRIMARY KEY, name VARCHAR(64));
INSERT INTO enav_items VALUES (1, '${SECRET}_one');
INSERT INTO enav_items VALUES (2, '${SECRET}_two');
INSERT INTO enav_items VALUES (1, '${SECRET}_dup');
SELECT name FROM enav_items WHERE id = 2;
UPDATE enav_items SET name = '${SECRET}_three' WHERE id = 1;
SELEC 1;
DELETE FROM enav_items WHERE id = 2;
DROP TABLE enav_items;
SQL
	local t0 t1
	t0=$(date +%s%N)
	# --force: go on after errors (then the exit status is 1).
	mariadb --no-defaults --protocol=tcp -h127.0.0.1 -P"$MY_PORT" -u"$MY_USER" -p"$MY_PASS" \
		--skip-ssl --force "$MY_DB" <"$WORK/my.sql" >"$WORK/mariadb.out" 2>&1 &
	local cpid=$!
	wait $cpid
	t1=$(date +%s%N)
	grep -q '^ERROR 1062 (23000) at line 4' "$WORK/mariadb.out" && grep -q '^ERROR 1064 (42000) at line 7' "$WORK/mariadb.out" ||
		{ fail "mariadb did not see its two errors: $(cat "$WORK/mariadb.out")"; return 1; }
	[ "$(grep -c "^${SECRET}_two\$" "$WORK/mariadb.out")" = 1 ] || { fail "SELECT did not return its row"; return 1; }
	local cl='.kind == "span" and .span.protocol == "mysql" and .process.pid == '$cpid
	local sv_all='.kind == "span" and .span.protocol == "mysql" and .connection.role == "server" and .connection.local_port == '$MY_PORT
	expect_eq "client spans" "$(wait_for_count "$cl" 9)" 9 || return 1
	local lport
	lport=$(jq -r "select($cl) | .connection.local_port" "$WORK/signals.ndjson" | sort -u)
	expect_eq "one client connection" "$(wc -w <<<"$lport")" 1 || return 1
	local sv="$sv_all and .connection.remote_port == $lport"
	expect_eq "server spans" "$(wait_for_count "$sv" 9)" 9 || return 1
	expect_eq "all server spans on $MY_PORT" "$(count_lines "$sv_all")" 9 || return 1
	expect_eq "server process" "$(jq -r "select($sv) | (.process.pid | tostring) + \" \" + .process.comm" "$WORK/signals.ndjson" | sort -u)" "$MY_PID mariadbd" || return 1
	local f side
	for side in client server; do
		[ $side = client ] && f=$cl || f=$sv
		expect_eq "$side operations in order" "$(field_list "$f" .span.operation)" \
			"CREATE INSERT INSERT INSERT SELECT UPDATE OTHER DELETE DROP " || return 1
		expect_eq "$side targets in order" "$(field_list "$f" '(if .span.target == "" then "-" else .span.target end)')" \
			"enav_items enav_items enav_items enav_items enav_items enav_items - enav_items enav_items " || return 1
		# status: "OK", or the SQLSTATE of the ERR packet.
		expect_eq "$side statuses in order" "$(field_list "$f" .span.status)" \
			"OK OK OK 23000 OK OK 42000 OK OK " || return 1
		expect_eq "$side error flags in order" "$(field_list "$f" .span.error)" \
			"false false false true false false true false false " || return 1
	done
	durations "$cl" $((t1 - t0)) || return 1
	durations "$sv" $((t1 - t0)) || return 1
	pairs "$cl" "$sv" || return 1
	no_literal "$SECRET" || return 1
	metric_line 'db_client_operation_duration_seconds_count{db_system_name="mysql",db_operation_name="INSERT",db_collection_name="enav_items",error_type="23000",workload="process:mariadb"} 1' || return 1
	metric_line 'db_client_operation_duration_seconds_count{db_system_name="mysql",db_operation_name="INSERT",db_collection_name="enav_items",workload="process:mariadb"} 2' || return 1
	metric_line 'enav_db_server_operation_duration_seconds_count{db_system_name="mysql",db_operation_name="OTHER",error_type="42000",workload="process:mariadbd"} 1' || return 1
	no_parse_trouble mysql 0 1
}

STMT_K=${STMT_K:-25}
case_mariadb_prepared() {
	require_root || return
	local helper=$HELPERS/mariadb_stmt
	[ -x "$helper" ] || { fail "$helper missing (make build/helpers/mariadb_stmt; needs libmariadb-dev)"; return 1; }
	start_mariadb || return 1
	my_agent || return 1
	local k=$STMT_K t0 t1
	t0=$(date +%s%N)
	"$helper" 127.0.0.1 "$MY_PORT" "$MY_USER" "$MY_PASS" "$MY_DB" "$k" >"$WORK/stmt.out" 2>"$WORK/stmt.err" &
	local cpid=$!
	wait $cpid || { fail "mariadb_stmt failed: $(cat "$WORK/stmt.out" "$WORK/stmt.err")"; return 1; }
	t1=$(date +%s%N)
	# The helper's own accounting.
	expect_eq "helper accounting" "$(tail -n1 "$WORK/stmt.out")" \
		"prepared=3 insert_ok=$k select_ok=$k rows=$k failed=1 sqlstate=22003 queries=2" || return 1
	local cl='.kind == "span" and .span.protocol == "mysql" and .process.pid == '$cpid
	local total=$((2 + 3 + 2 * k + 1))
	expect_eq "client spans" "$(wait_for_count "$cl" $total)" $total || return 1
	local lport
	lport=$(jq -r "select($cl) | .connection.local_port" "$WORK/signals.ndjson" | sort -u)
	expect_eq "one client connection" "$(wc -w <<<"$lport")" 1 || return 1
	local sv='.kind == "span" and .span.protocol == "mysql" and .connection.role == "server" and .connection.local_port == '$MY_PORT' and .connection.remote_port == '$lport
	expect_eq "server spans" "$(wait_for_count "$sv" $total)" $total || return 1
	expect_eq "server process" "$(jq -r "select($sv) | (.process.pid | tostring) + \" \" + .process.comm" "$WORK/signals.ndjson" | sort -u)" "$MY_PID mariadbd" || return 1
	# COM_STMT_EXECUTE ops are named by their prepared statement; the
	# execute-time failure (1264 out of range) carries its SQLSTATE.
	local want
	want=$(
		cat <<EOF
1 CREATE enav_stmt OK false true
1 DROP enav_stmt OK false true
$k INSERT enav_stmt OK false true
3 PREPARE enav_stmt OK false true
$k SELECT enav_stmt OK false true
1 UPDATE enav_stmt 22003 true true
EOF
	)
	expect_eq "client spans per operation" "$(table "$cl")" "$want" || return 1
	expect_eq "server spans per operation" "$(table "$sv")" "$want" || return 1
	expect_eq "client order (head)" "$(field_list "$cl" .span.operation | cut -d' ' -f1-8)" \
		"CREATE PREPARE PREPARE PREPARE INSERT SELECT INSERT SELECT" || return 1
	expect_eq "client order (tail)" "$(field_list "$cl" .span.operation | awk '{ print $(NF-2), $(NF-1), $NF }')" \
		"SELECT UPDATE DROP" || return 1
	durations "$cl" $((t1 - t0)) || return 1
	durations "$sv" $((t1 - t0)) || return 1
	pairs "$cl" "$sv" || return 1
	no_literal zebra_stmt || return 1
	metric_line "db_client_operation_duration_seconds_count{db_system_name=\"mysql\",db_operation_name=\"SELECT\",db_collection_name=\"enav_stmt\",workload=\"process:mariadb_stmt\"} $k" || return 1
	metric_line 'db_client_operation_duration_seconds_count{db_system_name="mysql",db_operation_name="UPDATE",db_collection_name="enav_stmt",error_type="22003",workload="process:mariadb_stmt"} 1' || return 1
	metric_line 'enav_db_server_operation_duration_seconds_count{db_system_name="mysql",db_operation_name="PREPARE",db_collection_name="enav_stmt",workload="process:mariadbd"} 3' || return 1
	no_parse_trouble mysql 0 1
}

trap 'stop_servers; cleanup' EXIT
run_case "psql simple protocol: seven statements, a syntax error (42601), pairing, RED metrics" case_pg_psql
stop_servers
run_case "psql with sanitized_statement: literals become '?'" case_pg_sanitized
stop_servers
run_case "pgbench -M extended: 7 statements x $PGBENCH_TX transactions on both ends" case_pgbench
stop_servers
run_case "mariadb client: nine statements, 23000 and 42000, pairing, RED metrics" case_mariadb_cli
stop_servers
run_case "binary prepared statements: PREPARE, EXECUTE named by its statement, execute-time error" case_mariadb_prepared
stop_servers
finish
