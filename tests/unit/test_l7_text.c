/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the L7 text helpers: route templates, W3C traceparent and
 * the SQL summary (operation, target, sanitized statement).  Inputs are
 * passed from exact-size heap copies without a terminator, so ASan flags any
 * read past n.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/l7_text.h"

static char *dup_exact(const char *s, size_t n)
{
	char *p = malloc(n ? n : 1);

	assert_non_null(p);
	memcpy(p, s, n);
	return p;
}

/* ---- path templates ------------------------------------------------------- */

static void check_template_cap(const char *path, const char *want, size_t cap)
{
	char out[512];
	char *in = dup_exact(path, strlen(path));

	memset(out, 'X', sizeof(out));
	size_t n = enav_l7_path_template(in, strlen(path), out, cap);
	free(in);
	assert_string_equal(out, want);
	assert_int_equal(n, strlen(want));
	assert_true(n < cap);
}

static void check_template(const char *path, const char *want)
{
	check_template_cap(path, want, 128);
}

static void test_template_basic(void **state)
{
	(void)state;
	check_template("/", "/");
	check_template("", "");
	check_template("/index.html", "/index.html");
	check_template("/api/v1/users", "/api/v1/users");
	check_template("/api/v1/users/", "/api/v1/users/");
	check_template("/users/42", "/users/{id}");
	check_template("/users/42/orders/7", "/users/{id}/orders/{id}");
	check_template("/users/42?token=secret", "/users/{id}");
	check_template("/a?b/c", "/a");
	check_template("/docs#section-2", "/docs");
	check_template("/?x=1", "/");
	check_template("//double//slash", "//double//slash");
	check_template("*", "*");
}

static void test_template_ids(void **state)
{
	(void)state;
	/* UUIDs, either case. */
	check_template("/o/123e4567-e89b-12d3-a456-426614174000/x", "/o/{id}/x");
	check_template("/o/123E4567-E89B-12D3-A456-426614174000", "/o/{id}");
	/* Hex with a digit, 8+ characters. */
	check_template("/commit/9fceb02d0ae598e95dc970b74767f19372d61af8", "/commit/{id}");
	check_template("/obj/507f1f77bcf86cd799439011", "/obj/{id}");
	check_template("/h/deadbee1", "/h/{id}");
	check_template("/h/deadbeef", "/h/deadbeef"); /* a word, no digit */
	check_template("/h/abc123", "/h/abc123");     /* short hex: kept */
	check_template("/h/facade", "/h/facade");
	/* Long mixed tokens. */
	check_template("/t/aB3dE5fG7hJ9kL1m", "/t/{id}");
	check_template("/r/report-2024-01-15", "/r/{id}");
	check_template("/jwt/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "/jwt/{id}");
	check_template("/v2/graphql-endpoint", "/v2/graphql-endpoint");
	check_template("/oauth2/callback", "/oauth2/callback");
	/* Shorter base64 tokens with three digits or more (12+ characters). */
	check_template("/reset/Zm9vYmFy4481253", "/reset/{id}");
	check_template("/reset/Zm9vYmFyx123", "/reset/{id}");
	check_template("/api/oauth2callback", "/api/oauth2callback");
	check_template("/ipv6-addresses", "/ipv6-addresses");
	/* E-mail addresses. */
	check_template("/users/alice@example.com/profile", "/users/{id}/profile");
	/* A very long word. */
	char path[200] = "/p/";
	memset(path + 3, 'a', 70);
	path[73] = '\0';
	check_template(path, "/p/{id}");
}

/*
 * Letters-only segments a tenant makes up: the issue-31 flood used three
 * 60-letter lowercase segments per path, each kept as a route word, so every
 * request made a new label set.
 */
static void test_template_letter_floods(void **state)
{
	(void)state;
	char path[200] = "/";
	char *w = path + 1;
	for (int seg = 0; seg < 3; seg++) {
		for (int i = 0; i < 60; i++)
			*w++ = (char)('a' + (i * 7 + seg * 3) % 26);
		*w++ = seg < 2 ? '/' : '\0';
	}
	check_template(path, "/{id}/{id}/{id}");
	/* Longer than a route word (32): gone; 32 letters of a word: kept. */
	check_template("/x/abcdefghijklmnopqrstuvwxyzabcdefg", "/x/{id}");
	check_template("/x/internationalizationsettingsabcde", "/x/{id}"); /* 33 */
	check_template("/x/internationalizationsettingsabcd",		   /* 32 */
		       "/x/internationalizationsettingsabcd");
	/* Random-looking letters of 12 or more: six consonants in a row, or
	 * fewer than one vowel in five letters. */
	check_template("/r/qzxwvkmplrtb", "/r/{id}");
	check_template("/r/kqhrvbnmeztlwx", "/r/{id}");
	check_template("/r/bqeztkrnwlpzfgha", "/r/{id}");
	check_template("/r/QZXWVKMPLRTBNA", "/r/{id}");
	/* Words, compounds and kebab-case stay. */
	check_template("/api/healthchecks", "/api/healthchecks");
	check_template("/api/notifications/preferences", "/api/notifications/preferences");
	check_template("/api/user-profile-settings", "/api/user-profile-settings");
	check_template("/api/strengths", "/api/strengths");
	check_template("/api/getUserAccountById", "/api/getUserAccountById");
	check_template("/wp-admin/admin-ajax.php", "/wp-admin/admin-ajax.php");
	check_template("/graphql/subscriptions", "/graphql/subscriptions");
}

static void test_template_segments(void **state)
{
	(void)state;
	check_template("/a/b/c/d/e/f/g/h", "/a/b/c/d/e/f/g/h");
	check_template("/a/b/c/d/e/f/g/h/", "/a/b/c/d/e/f/g/h/");
	check_template("/a/b/c/d/e/f/g/h/i", "/a/b/c/d/e/f/g/h/...");
	check_template("/a/b/c/d/e/f/g/h/i/j/k?q", "/a/b/c/d/e/f/g/h/...");
	check_template("/1/2/3/4/5/6/7/8/9", "/{id}/{id}/{id}/{id}/{id}/{id}/{id}/{id}/...");
}

static void test_template_absolute(void **state)
{
	(void)state;
	check_template("http://example.com/users/12", "/users/{id}");
	check_template("HTTPS://example.com:8443/a/b?c", "/a/b");
	check_template("http://example.com", "/");
	check_template("http://example.com?q=1", "/");
	check_template("ws://h/chat", "/chat");
}

static void test_template_cap(void **state)
{
	(void)state;
	check_template_cap("/users/42/orders", "/users/{i", 10);
	check_template_cap("/abc", "", 1);
	check_template_cap("/abc", "/", 2);
	check_template_cap("/abc", "/abc", 5);
	check_template_cap("/abcd", "/abc", 5);

	char out[4] = "zzz";

	assert_int_equal(enav_l7_path_template("/abc", 4, out, 0), 0);
	assert_string_equal(out, "zzz"); /* nothing written with cap 0 */
	assert_int_equal(enav_l7_path_template(NULL, 0, out, sizeof(out)), 0);
	assert_string_equal(out, "");
}

static void test_template_unprintable(void **state)
{
	(void)state;
	const char raw[] = "/a\x01"
			   "b/\xc3\xa9t\xc3\xa9/\x7f";
	char out[64];
	char *in = dup_exact(raw, sizeof(raw) - 1);

	enav_l7_path_template(in, sizeof(raw) - 1, out, sizeof(out));
	free(in);
	assert_string_equal(out, "/a?b/?"
				 "?t?"
				 "?/?");
	/* An embedded NUL is a byte like any other (n counts). */
	in = dup_exact("/a\0b/c", 6);
	enav_l7_path_template(in, 6, out, sizeof(out));
	free(in);
	assert_string_equal(out, "/a?b/c");
}

/* ---- traceparent ---------------------------------------------------------- */

static bool tp(const char *v, uint8_t tid[16], uint8_t pid[8], uint8_t *fl)
{
	char *in = dup_exact(v, strlen(v));
	bool ok = enav_l7_traceparent_parse(in, strlen(v), tid, pid, fl);

	free(in);
	return ok;
}

static const char TP_OK[] = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

static void test_traceparent_valid(void **state)
{
	(void)state;
	uint8_t tid[16], pid[8], fl = 0;
	static const uint8_t want_t[16] = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
					   0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36};
	static const uint8_t want_p[8] = {0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7};

	assert_true(tp(TP_OK, tid, pid, &fl));
	assert_memory_equal(tid, want_t, 16);
	assert_memory_equal(pid, want_p, 8);
	assert_int_equal(fl, 1);

	assert_true(tp("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", tid, pid, &fl));
	assert_int_equal(fl, 0);
	/* Unknown flag bits are carried as they came. */
	assert_true(tp("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-ff", tid, pid, &fl));
	assert_int_equal(fl, 0xff);
	/* Surrounding whitespace (header OWS). */
	assert_true(
	    tp(" \t00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 ", tid, pid, &fl));
	/* A later version, read as 00, with or without extra fields. */
	assert_true(tp("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tid, pid, &fl));
	assert_true(
	    tp("cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-the-future-holds", tid,
	       pid, &fl));
	assert_memory_equal(tid, want_t, 16);
	assert_int_equal(fl, 1);
}

static void test_traceparent_invalid(void **state)
{
	(void)state;
	static const char *const bad[] = {
	    "",
	    "00",
	    /* upper case */
	    "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01",
	    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0A",
	    "0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	    /* version ff */
	    "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	    /* all-zero ids */
	    "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
	    "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
	    /* lengths */
	    "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
	    "00-4bf92f3577b34da6a3ce929d0e0e47366-00f067aa0ba902b7-01",
	    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b-01",
	    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
	    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-011",
	    /* version 00 allows nothing after the flags */
	    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
	    /* a later version needs '-' before any extra field */
	    "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
	    /* separators and characters */
	    "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	    "00-4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7-01",
	    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7_01",
	    "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
	    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",
	    "0g-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
	    "00 4bf92f3577b34da6a3ce929d0e0e4736 00f067aa0ba902b7 01",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t tid[16], pid[8], fl = 0x5a;

		memset(tid, 0x5a, sizeof(tid));
		memset(pid, 0x5a, sizeof(pid));
		if (tp(bad[i], tid, pid, &fl))
			fail_msg("accepted: %s", bad[i]);
		/* All or nothing: outputs untouched. */
		for (int j = 0; j < 16; j++)
			assert_int_equal(tid[j], 0x5a);
		for (int j = 0; j < 8; j++)
			assert_int_equal(pid[j], 0x5a);
		assert_int_equal(fl, 0x5a);
	}
	assert_false(enav_l7_traceparent_parse(NULL, 55, NULL, NULL, NULL));
}

static void test_traceparent_every_prefix(void **state)
{
	(void)state;
	uint8_t tid[16], pid[8], fl;

	for (size_t n = 0; n < sizeof(TP_OK) - 1; n++) {
		char *in = dup_exact(TP_OK, n);

		assert_false(enav_l7_traceparent_parse(in, n, tid, pid, &fl));
		free(in);
	}
}

/* ---- SQL ------------------------------------------------------------------ */

struct sqlcase {
	const char *sql, *op, *target, *sanitized;
};

static void check_sql(const struct sqlcase *c)
{
	char op[32], target[128], san[256];
	size_t n = strlen(c->sql);
	char *in = dup_exact(c->sql, n);

	memset(op, 'X', sizeof(op));
	memset(target, 'X', sizeof(target));
	memset(san, 'X', sizeof(san));
	enav_l7_sql_summarize(in, n, op, sizeof(op), target, sizeof(target), san, sizeof(san));
	free(in);
	if (strcmp(op, c->op) != 0 || strcmp(target, c->target) != 0 ||
	    (c->sanitized && strcmp(san, c->sanitized) != 0))
		fail_msg(
		    "%s\n  op=%s (want %s) target=%s (want %s)\n  sanitized=%s\n  want     =%s",
		    c->sql, op, c->op, target, c->target, san,
		    c->sanitized ? c->sanitized : "(any)");
}

static void test_sql_operations(void **state)
{
	(void)state;
	static const struct sqlcase cases[] = {
	    {"SELECT * FROM users WHERE id = 42", "SELECT", "users",
	     "SELECT * FROM users WHERE id = ?"},
	    {"select name from public.users u where u.id=$1", "SELECT", "public.users",
	     "select name from public.users u where u.id=$1"},
	    {"INSERT INTO orders (a, b) VALUES ('x', 3.5)", "INSERT", "orders",
	     "INSERT INTO orders (a, b) VALUES (?, ?)"},
	    {"insert into t values(1)", "INSERT", "t", "insert into t values(?)"},
	    {"UPDATE accounts SET balance = balance - 100 WHERE id = 7", "UPDATE", "accounts",
	     "UPDATE accounts SET balance = balance - ? WHERE id = ?"},
	    {"DELETE FROM sessions WHERE expires < now()", "DELETE", "sessions", NULL},
	    {"BEGIN", "BEGIN", "", "BEGIN"},
	    {"begin;", "BEGIN", "", "begin;"},
	    {"COMMIT", "COMMIT", "", "COMMIT"},
	    {"ROLLBACK", "ROLLBACK", "", NULL},
	    {"START TRANSACTION", "START", "", NULL},
	    {"SET NAMES utf8mb4", "SET", "", NULL},
	    {"SHOW VARIABLES LIKE 'version'", "SHOW", "", "SHOW VARIABLES LIKE ?"},
	    {"CREATE TABLE IF NOT EXISTS t1 (id int primary key)", "CREATE", "t1", NULL},
	    {"DROP TABLE IF EXISTS a, b", "DROP", "a", NULL},
	    {"ALTER TABLE ONLY public.x ADD COLUMN y int", "ALTER", "public.x", NULL},
	    {"TRUNCATE TABLE logs", "TRUNCATE", "logs", NULL},
	    {"TRUNCATE logs", "TRUNCATE", "logs", NULL},
	    {"TABLE pg_class", "TABLE", "pg_class", NULL},
	    {"COPY items FROM STDIN", "COPY", "items", NULL},
	    {"LOCK TABLES t1 WRITE", "LOCK", "t1", NULL},
	    {"SELECT 1", "SELECT", "", "SELECT ?"},
	    {"SELECT version()", "SELECT", "", "SELECT version()"},
	    {"  \n\t select\n\n1  ", "SELECT", "", "select ?"},
	    {"(SELECT a FROM t1) UNION (SELECT a FROM t2)", "SELECT", "t1", NULL},
	    {"EXPLAIN ANALYZE SELECT * FROM big", "EXPLAIN", "big", NULL},
	    {"hello world", "OTHER", "", "hello world"},
	    {"", "OTHER", "", ""},
	    {"42", "OTHER", "", "?"},
	    {"{call proc(?)}", "OTHER", "", "{call proc(?)}"},
	    {"CALL do_it(1, 'a')", "CALL", "", "CALL do_it(?, ?)"},
	    {"REPLACE INTO kv VALUES (1, 'v')", "REPLACE", "kv", NULL},
	    {"USE mydb", "USE", "", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_sql(&cases[i]);
}

static void test_sql_targets(void **state)
{
	(void)state;
	static const struct sqlcase cases[] = {
	    /* FROM inside a function call is not a table. */
	    {"SELECT EXTRACT(YEAR FROM ts) FROM events", "SELECT", "events", NULL},
	    {"SELECT substring(name FROM 2 FOR 3), trim(both ' ' from x) FROM people", "SELECT",
	     "people", NULL},
	    /* A subquery is. */
	    {"SELECT * FROM (SELECT id FROM inner_t) s", "SELECT", "inner_t", NULL},
	    {"SELECT a FROM t WHERE b IN (SELECT b FROM u)", "SELECT", "t", NULL},
	    /* A set-returning function in FROM is skipped. */
	    {"SELECT * FROM generate_series(1, 10) g JOIN t2 ON true", "SELECT", "t2", NULL},
	    {"SELECT * FROM a JOIN b ON a.id = b.id", "SELECT", "a", NULL},
	    {"SELECT * FROM ONLY parent", "SELECT", "parent", NULL},
	    /* Quoted identifiers lose their quotes. */
	    /* Dialect unknown: a string to MySQL, so never shown (test_sql_dialects). */
	    {"SELECT \"id\" FROM \"Users\" WHERE \"id\" = $1", "SELECT", "Users",
	     "SELECT ? FROM ? WHERE ? = $1"},
	    {"SELECT `id` FROM `db`.`tbl`", "SELECT", "db.tbl", "SELECT `id` FROM `db`.`tbl`"},
	    {"SELECT * FROM \"public\".\"t\"", "SELECT", "public.t", NULL},
	    /* WITH: the main statement's operation. */
	    {"WITH x AS (SELECT id FROM src) SELECT * FROM x", "SELECT", "src", NULL},
	    {"WITH RECURSIVE r(n) AS (VALUES (1) UNION SELECT n+1 FROM r) SELECT n FROM r",
	     "SELECT", "r", NULL},
	    {"with d as (delete from q returning *) insert into arch select * from d", "INSERT",
	     "q", NULL},
	    {"WITH x AS (SELECT 1)", "WITH", "", NULL},
	    {"WITH u AS (SELECT 1) UPDATE t SET a = 1", "UPDATE", "t", NULL},
	    /* The first statement only. */
	    {"SELECT 1; SELECT * FROM t", "SELECT", "", NULL},
	    /* FOR UPDATE, ON DUPLICATE KEY UPDATE: not a target. */
	    {"SELECT 1 FOR UPDATE", "SELECT", "", NULL},
	    {"INSERT INTO t (a) VALUES (1) ON DUPLICATE KEY UPDATE a = 2", "INSERT", "t", NULL},
	    {"INSERT LOW_PRIORITY IGNORE INTO t2 SET a = 1", "INSERT", "t2", NULL},
	    {"SELECT a INTO OUTFILE '/tmp/x' FROM t", "SELECT", "t", NULL},
	    /* Comments hide nothing and show nothing. */
	    {"/* app=web user='bob' */ SELECT * FROM t -- trailing 'secret'\n", "SELECT", "t",
	     "SELECT * FROM t"},
	    {"-- only a comment\nDELETE FROM x", "DELETE", "x", "DELETE FROM x"},
	    {"# mysql comment\nSELECT 1", "SELECT", "", "SELECT ?"},
	    {"/* outer /* inner */ still 'comment' */ SELECT 2", "SELECT", "", "SELECT ?"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_sql(&cases[i]);
}

static void test_sql_literals(void **state)
{
	(void)state;
	static const struct sqlcase cases[] = {
	    {"SELECT * FROM t WHERE s = 'it''s' AND n = -12.5e+3", "SELECT", "t",
	     "SELECT * FROM t WHERE s = ? AND n = -?"},
	    /* \' ends the string to PostgreSQL, escapes a quote to MySQL: what
	     * either reading would show is hidden. */
	    {"SELECT 'a\\'b' , 'c'", "SELECT", "", "SELECT ?"},
	    {"SELECT E'a\\'b', 'c'", "SELECT", "", "SELECT ?, ?"},
	    {"SELECT E'x\\ny', N'nat', X'ff', B'01', _utf8mb4'mb'", "SELECT", "",
	     "SELECT ?, ?, ?, ?, ?"},
	    {"SELECT 0x1F, .5, 1., 3e10, 7", "SELECT", "", "SELECT ?, ?, ?, ?, ?"},
	    {"SELECT $$secret body$$, $tag$more $$ secret$tag$, $1, $22", "SELECT", "",
	     "SELECT ?, ?, $1, $22"},
	    {"SELECT t1.c2 FROM t1", "SELECT", "t1", "SELECT t1.c2 FROM t1"},
	    {"SELECT a::int, b->>'k' FROM j", "SELECT", "j", "SELECT a::int, b->>? FROM j"},
	    /* MySQL double-quoted strings: shown only when shaped like a name. */
	    {"SELECT * FROM t WHERE name = \"Bob Smith\"", "SELECT", "t",
	     "SELECT * FROM t WHERE name = ?"},
	    {"SELECT \"a-b\", \"\"", "SELECT", "", "SELECT ?, ?"},
	    /* Shaped like a name, still a string to MySQL: never shown. */
	    {"SELECT * FROM users WHERE password = \"hunter2\"", "SELECT", "users",
	     "SELECT * FROM users WHERE password = ?"},
	    {"SELECT \"id\" FROM \"Users\"", "SELECT", "Users", "SELECT ? FROM ?"},
	    /* Unterminated literals swallow the rest. */
	    {"SELECT * FROM t WHERE a = 'unterminated secret", "SELECT", "t",
	     "SELECT * FROM t WHERE a = ?"},
	    {"SELECT $q$ never closed", "SELECT", "", "SELECT ?"},
	    {"SELECT ? , ?", "SELECT", "", "SELECT ? , ?"},
	    {"SELECT * FROM t WHERE a IN (1,2,3)", "SELECT", "t",
	     "SELECT * FROM t WHERE a IN (?,?,?)"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_sql(&cases[i]);
}

static void test_sql_caps(void **state)
{
	(void)state;
	char op[4], target[5], san[10];
	const char *q = "SELECT * FROM customers WHERE id = 1";
	char *in = dup_exact(q, strlen(q));

	enav_l7_sql_summarize(in, strlen(q), op, sizeof(op), target, sizeof(target), san,
			      sizeof(san));
	assert_string_equal(op, "SEL");
	assert_string_equal(target, "cust");
	assert_string_equal(san, "SELECT * ");
	/* No sanitized output requested, zero caps: nothing written. */
	char z = 'z';

	enav_l7_sql_summarize(in, strlen(q), &z, 0, &z, 0, NULL, 0);
	assert_int_equal(z, 'z');
	enav_l7_sql_summarize(in, strlen(q), op, sizeof(op), target, sizeof(target), &z, 0);
	assert_int_equal(z, 'z');
	free(in);
	enav_l7_sql_summarize(NULL, 10, op, sizeof(op), target, sizeof(target), san, sizeof(san));
	assert_string_equal(op, "OTH");
	assert_string_equal(target, "");
	assert_string_equal(san, "");
}

/* Every prefix of a statement: bounded, printable, NUL-terminated, and no
 * literal text ever appears in the sanitized output. */
static void test_sql_every_prefix(void **state)
{
	(void)state;
	const char *q = "/* c 'secretA' */ WITH a AS (SELECT x FROM t WHERE y = 'secretB') "
			"UPDATE \"T2\" SET v = $$secretC$$ || E'secret\\'D' WHERE k = 123456789 "
			"-- secretE\n AND z = \"secret F\"";
	size_t n = strlen(q);

	for (size_t i = 0; i <= n; i++) {
		char op[32], target[128], san[256];
		char *in = dup_exact(q, i);

		enav_l7_sql_summarize(in, i, op, sizeof(op), target, sizeof(target), san,
				      sizeof(san));
		free(in);
		assert_non_null(memchr(op, '\0', sizeof(op)));
		assert_null(strstr(san, "secret"));
		assert_null(strstr(san, "12345"));
		assert_null(strstr(target, "secret"));
		for (const char *p = san; *p; p++)
			assert_true(*p >= 0x20 && *p < 0x7f);
	}
	char op[32], target[128], san[256];

	enav_l7_sql_summarize(q, n, op, sizeof(op), target, sizeof(target), san, sizeof(san));
	assert_string_equal(op, "UPDATE");
	assert_string_equal(target, "t");
	assert_string_equal(san, "WITH a AS (SELECT x FROM t WHERE y = ?) UPDATE ? SET v = ? "
				 "|| ? WHERE k = ? AND z = ?");
}

/* The two misreadings of issue 31, as a PostgreSQL and a MySQL server
 * read them: no part of a string literal appears in the sanitized text. */
static void test_sql_dialect_strings(void **state)
{
	(void)state;
	static const struct sqlcase cases[] = {
	    /* PostgreSQL: 'C:\' is a whole string; 'hunter2' is the next one. */
	    {"SELECT * FROM t WHERE path = 'C:\\' AND pw = 'hunter2'", "SELECT", "t",
	     "SELECT * FROM t WHERE path = ?"},
	    {"UPDATE t SET a = 'x\\', b = 'hunter2 secret' WHERE id = 1", "UPDATE", "t",
	     "UPDATE t SET a = ?"},
	    /* MySQL: "it\"s" is one string; "hunter2" the next. */
	    {"INSERT INTO t VALUES (\"it\\\"s\", \"hunter2\")", "INSERT", "t",
	     "INSERT INTO t VALUES (?"},
	    {"INSERT INTO t VALUES (\"a\", \"hunter2\")", "INSERT", "t",
	     "INSERT INTO t VALUES (?, ?)"},
	    /* An escaped backslash before the quote reads the same in both. */
	    {"SELECT 'a\\\\', 'b'", "SELECT", "", "SELECT ?, ?"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		check_sql(&cases[i]);
		char op[32], target[128], san[256];
		enav_l7_sql_summarize(cases[i].sql, strlen(cases[i].sql), op, sizeof(op), target,
				      sizeof(target), san, sizeof(san));
		assert_null(strstr(san, "hunter2"));
	}
}

/* The dialect known (the MySQL and PostgreSQL parsers say which): each
 * reads its own quotes as its server does, and shows what it can. */
static void check_dialect(enum enav_sql_dialect d, const char *sql, const char *target,
			  const char *want)
{
	char op[32], tg[128], san[256];
	enav_l7_sql_summarize_dialect(sql, strlen(sql), d, op, sizeof(op), tg, sizeof(tg), san,
				      sizeof(san));
	if (strcmp(san, want) != 0 || strcmp(tg, target) != 0)
		fail_msg("%s\n  target=%s (want %s)\n  sanitized=%s\n  want     =%s", sql, tg,
			 target, san, want);
}

static void test_sql_dialects(void **state)
{
	(void)state;
	/* PostgreSQL: ".." is a name; '\' ends a string; E'..' escapes. */
	check_dialect(ENAV_SQL_POSTGRES, "SELECT \"id\" FROM \"Users\" WHERE \"id\" = $1", "Users",
		      "SELECT \"id\" FROM \"Users\" WHERE \"id\" = $1");
	check_dialect(ENAV_SQL_POSTGRES, "SELECT * FROM t WHERE p = 'C:\\' AND pw = 'hunter2'", "t",
		      "SELECT * FROM t WHERE p = ? AND pw = ?");
	check_dialect(ENAV_SQL_POSTGRES, "SELECT E'a\\'hunter2', 'b'", "", "SELECT ?, ?");
	/* MySQL: ".." is a string, even shaped like a name; \" and \' escape. */
	check_dialect(ENAV_SQL_MYSQL, "SELECT * FROM users WHERE password = \"hunter2\"", "users",
		      "SELECT * FROM users WHERE password = ?");
	check_dialect(ENAV_SQL_MYSQL, "INSERT INTO t VALUES (\"it\\\"s\", \"hunter2\")", "t",
		      "INSERT INTO t VALUES (?, ?)");
	check_dialect(ENAV_SQL_MYSQL, "INSERT INTO t VALUES ('it\\'s', 'hunter2')", "t",
		      "INSERT INTO t VALUES (?, ?)");
	check_dialect(ENAV_SQL_MYSQL, "SELECT `id` FROM `db`.`tbl`", "db.tbl",
		      "SELECT `id` FROM `db`.`tbl`");
}

/* url.path as spans carry it: identifier-like segments redacted, the
 * structure kept; a kept query stays (keep_query is the operator's). */
static void test_path_redact(void **state)
{
	(void)state;
	static const struct {
		const char *in, *want;
	} cases[] = {
	    {"/static/big.bin", "/static/big.bin"},
	    {"/users/alice@example.com/orders", "/users/{id}/orders"},
	    {"/users/alice%40example.com", "/users/{id}"},
	    {"/reset/eyJhbGciOiJIUzI1NiJ9x7Yq3", "/reset/{id}"},
	    {"/api/v1/items/42/", "/api/v1/items/{id}/"},
	    {"/o/0b7c1f5e-1c2d-4e3f-8a9b-0c1d2e3f4a5b", "/o/{id}"},
	    {"/login;jsessionid=ABC", "/{id}"},
	    {"/a/b/c/d/e/f/g/h/i/j", "/a/b/c/d/e/f/g/h/i/j"}, /* no segment cap */
	    {"/u/42?q=1", "/u/{id}?q=1"},
	    {"/u/42#frag", "/u/{id}"},
	    {"", ""},
	};
	char out[256];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = enav_l7_path_redact(cases[i].in, strlen(cases[i].in), out, sizeof(out));
		assert_int_equal(n, strlen(out));
		if (strcmp(out, cases[i].want) != 0)
			fail_msg("%s: got %s, want %s", cases[i].in, out, cases[i].want);
	}
	char small[8];
	/* Cut at cap - 1 bytes, and still nothing of what was redacted. */
	assert_int_equal(enav_l7_path_redact("/1/2/3/4", 8, small, sizeof(small)), 7);
	assert_int_equal(strcspn(small, "1234"), 7);
	assert_int_equal(enav_l7_path_redact("/x", 2, small, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_template_basic),
	    cmocka_unit_test(test_template_ids),
	    cmocka_unit_test(test_template_letter_floods),
	    cmocka_unit_test(test_template_segments),
	    cmocka_unit_test(test_template_absolute),
	    cmocka_unit_test(test_template_cap),
	    cmocka_unit_test(test_template_unprintable),
	    cmocka_unit_test(test_traceparent_valid),
	    cmocka_unit_test(test_traceparent_invalid),
	    cmocka_unit_test(test_traceparent_every_prefix),
	    cmocka_unit_test(test_sql_operations),
	    cmocka_unit_test(test_sql_targets),
	    cmocka_unit_test(test_sql_literals),
	    cmocka_unit_test(test_sql_caps),
	    cmocka_unit_test(test_sql_every_prefix),
	    cmocka_unit_test(test_sql_dialect_strings),
	    cmocka_unit_test(test_sql_dialects),
	    cmocka_unit_test(test_path_redact),
	};

	return cmocka_run_group_tests_name("l7_text", tests, NULL, NULL);
}
