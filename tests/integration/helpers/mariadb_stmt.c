/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test workload for tests/integration/test_l7_sql.sh: binary prepared
 * statements (COM_STMT_PREPARE / COM_STMT_EXECUTE) over TCP with libmariadb.
 *
 *   mariadb_stmt HOST PORT USER PASSWORD DATABASE K
 *
 * On one connection, in this order:
 *   1 COM_QUERY   CREATE TABLE enav_stmt (id INT PRIMARY KEY, name VARCHAR(64))
 *   3 PREPARE     INSERT INTO enav_stmt (id, name) VALUES (?, ?)
 *                 SELECT name FROM enav_stmt WHERE id = ?
 *                 UPDATE enav_stmt SET id = ? WHERE id = ?
 *   K x (EXECUTE INSERT with (i, "zebra_stmt_<i>"), EXECUTE SELECT with i,
 *        one row fetched and checked)
 *   1 EXECUTE     UPDATE with (1000000000000, 1): out of range for INT in
 *                 strict mode, so it fails at execute time (ER 1264, 22003)
 *   1 COM_QUERY   DROP TABLE enav_stmt
 * then the statements are closed (COM_STMT_CLOSE, no response) and the
 * connection quits.  The last line on stdout is its own accounting:
 *   prepared=3 insert_ok=K select_ok=K rows=K failed=1 sqlstate=22003 queries=2
 * Exit status 0 only when every step went as planned (the failure included).
 */
#include <mariadb/mysql.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static MYSQL_STMT *prepare(MYSQL *db, const char *sql)
{
	MYSQL_STMT *st = mysql_stmt_init(db);

	if (!st) {
		fprintf(stderr, "mysql_stmt_init: %s\n", mysql_error(db));
		return NULL;
	}
	if (mysql_stmt_prepare(st, sql, (unsigned long)strlen(sql))) {
		fprintf(stderr, "prepare %s: %s\n", sql, mysql_stmt_error(st));
		mysql_stmt_close(st);
		return NULL;
	}
	return st;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: %s HOST PORT USER PASSWORD DATABASE K\n", argv[0]);
		return 2;
	}
	const char *host = argv[1], *user = argv[3], *pass = argv[4], *dbname = argv[5];
	unsigned port = (unsigned)atoi(argv[2]);
	int k = atoi(argv[6]);
	unsigned prot = MYSQL_PROTOCOL_TCP;
	my_bool no = 0;
	int prepared = 0, insert_ok = 0, select_ok = 0, rows = 0, failed = 0, queries = 0;
	char sqlstate[8] = "";
	int rc = 1;

	if (k < 1 || k > 100000) {
		fprintf(stderr, "K out of range\n");
		return 2;
	}
	MYSQL *db = mysql_init(NULL);

	if (!db)
		return 1;
	mysql_options(db, MYSQL_OPT_PROTOCOL, &prot);
	/* Plain TCP: the agent reads the wire, TLS would leave nothing to read. */
	mysql_options(db, MYSQL_OPT_SSL_ENFORCE, &no);
	mysql_options(db, MYSQL_OPT_SSL_VERIFY_SERVER_CERT, &no);
	if (!mysql_real_connect(db, host, user, pass, dbname, port, NULL, 0)) {
		fprintf(stderr, "connect: %s\n", mysql_error(db));
		mysql_close(db);
		return 1;
	}
	if (mysql_get_ssl_cipher(db)) {
		fprintf(stderr, "connection uses TLS (%s): not a plain-text workload\n",
			mysql_get_ssl_cipher(db));
		mysql_close(db);
		return 1;
	}
	if (mysql_query(db, "CREATE TABLE enav_stmt (id INT PRIMARY KEY, name VARCHAR(64))")) {
		fprintf(stderr, "create: %s\n", mysql_error(db));
		mysql_close(db);
		return 1;
	}
	queries++;

	MYSQL_STMT *ins = prepare(db, "INSERT INTO enav_stmt (id, name) VALUES (?, ?)");
	MYSQL_STMT *sel = ins ? prepare(db, "SELECT name FROM enav_stmt WHERE id = ?") : NULL;
	MYSQL_STMT *upd = sel ? prepare(db, "UPDATE enav_stmt SET id = ? WHERE id = ?") : NULL;

	if (!upd)
		goto out;
	prepared = 3;

	int id = 0;
	char name[64];
	unsigned long name_len = 0;
	MYSQL_BIND ib[2], sb[1], rb[1], ub[2];
	char got[64];
	unsigned long got_len = 0;
	my_bool got_null = 0;

	memset(ib, 0, sizeof(ib));
	ib[0].buffer_type = MYSQL_TYPE_LONG;
	ib[0].buffer = &id;
	ib[1].buffer_type = MYSQL_TYPE_STRING;
	ib[1].buffer = name;
	ib[1].buffer_length = sizeof(name);
	ib[1].length = &name_len;
	memset(sb, 0, sizeof(sb));
	sb[0].buffer_type = MYSQL_TYPE_LONG;
	sb[0].buffer = &id;
	memset(rb, 0, sizeof(rb));
	rb[0].buffer_type = MYSQL_TYPE_STRING;
	rb[0].buffer = got;
	rb[0].buffer_length = sizeof(got) - 1;
	rb[0].length = &got_len;
	rb[0].is_null = &got_null;
	if (mysql_stmt_bind_param(ins, ib) || mysql_stmt_bind_param(sel, sb) ||
	    mysql_stmt_bind_result(sel, rb)) {
		fprintf(stderr, "bind: %s\n", mysql_error(db));
		goto out;
	}
	for (int i = 1; i <= k; i++) {
		id = i;
		name_len = (unsigned long)snprintf(name, sizeof(name), "zebra_stmt_%d", i);
		if (mysql_stmt_execute(ins)) {
			fprintf(stderr, "insert %d: %s\n", i, mysql_stmt_error(ins));
			goto out;
		}
		if (mysql_stmt_affected_rows(ins) == 1)
			insert_ok++;
		if (mysql_stmt_execute(sel) || mysql_stmt_store_result(sel)) {
			fprintf(stderr, "select %d: %s\n", i, mysql_stmt_error(sel));
			goto out;
		}
		int n = 0, f;

		while ((f = mysql_stmt_fetch(sel)) == 0 || f == MYSQL_DATA_TRUNCATED) {
			got[got_len < sizeof(got) ? got_len : sizeof(got) - 1] = '\0';
			if (!got_null && strcmp(got, name) == 0)
				n++;
		}
		mysql_stmt_free_result(sel);
		if (f != MYSQL_NO_DATA) {
			fprintf(stderr, "fetch %d: %s\n", i, mysql_stmt_error(sel));
			goto out;
		}
		select_ok++;
		rows += n;
	}

	long long big = 1000000000000LL;
	int one = 1;

	memset(ub, 0, sizeof(ub));
	ub[0].buffer_type = MYSQL_TYPE_LONGLONG;
	ub[0].buffer = &big;
	ub[1].buffer_type = MYSQL_TYPE_LONG;
	ub[1].buffer = &one;
	if (mysql_stmt_bind_param(upd, ub)) {
		fprintf(stderr, "bind update: %s\n", mysql_stmt_error(upd));
		goto out;
	}
	if (mysql_stmt_execute(upd) == 0) {
		fprintf(stderr, "the out-of-range UPDATE succeeded\n");
		goto out;
	}
	failed++;
	snprintf(sqlstate, sizeof(sqlstate), "%s", mysql_stmt_sqlstate(upd));
	fprintf(stderr, "expected failure: %u (%s) %s\n", mysql_stmt_errno(upd), sqlstate,
		mysql_stmt_error(upd));

	if (mysql_query(db, "DROP TABLE enav_stmt")) {
		fprintf(stderr, "drop: %s\n", mysql_error(db));
		goto out;
	}
	queries++;
	rc = insert_ok == k && select_ok == k && rows == k && failed == 1 ? 0 : 1;
out:
	if (upd)
		mysql_stmt_close(upd);
	if (sel)
		mysql_stmt_close(sel);
	if (ins)
		mysql_stmt_close(ins);
	mysql_close(db);
	printf("prepared=%d insert_ok=%d select_ok=%d rows=%d failed=%d sqlstate=%s queries=%d\n",
	       prepared, insert_ok, select_ok, rows, failed, sqlstate[0] ? sqlstate : "-", queries);
	return rc;
}
