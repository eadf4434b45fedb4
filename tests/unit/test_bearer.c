/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The listener's bearer token (src/platform/bearer.c): which files are
 * refused, what is read from them, and the comparison of what a client sends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "platform/bearer.h"

static char dir[64];

static int setup(void **st)
{
	(void)st;
	snprintf(dir, sizeof(dir), "/tmp/enav-bearer.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **st)
{
	char cmd[128];
	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A file of name in dir with data and mode; its path in path. */
static void put(char *path, size_t len, const char *name, const char *data, mode_t mode)
{
	snprintf(path, len, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(data, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void load_ok(const char *name, const char *data, mode_t mode, const char *want)
{
	char path[128], tok[ENAV_BEARER_MAX + 1], err[256] = "";
	put(path, sizeof(path), name, data, mode);
	if (enav_bearer_load(path, tok, sizeof(tok), err, sizeof(err)) != 0)
		fail_msg("%s: %s", name, err);
	assert_string_equal(tok, want);
}

static void load_err(const char *path, const char *want_sub)
{
	char tok[ENAV_BEARER_MAX + 1] = "", err[256] = "";
	assert_int_equal(enav_bearer_load(path, tok, sizeof(tok), err, sizeof(err)), -1);
	if (!strstr(err, want_sub))
		fail_msg("%s: error \"%s\" lacks \"%s\"", path, err, want_sub);
	assert_string_equal(tok, "");
}

static void test_load(void **st)
{
	char path[128];
	(void)st;
	/* Trailing white space is trimmed, as Prometheus does. */
	load_ok("plain", "s3cr3t-Token_1", 0600, "s3cr3t-Token_1");
	load_ok("newline", "abc.def~+/=\n", 0400, "abc.def~+/=");
	load_ok("crlf", "abc\r\n \t", 0640, "abc");

	put(path, sizeof(path), "world-readable", "abc", 0644);
	load_err(path, "is readable or writable by every user (mode 0644)");
	put(path, sizeof(path), "world-writable", "abc", 0602);
	load_err(path, "(mode 0602)");
	put(path, sizeof(path), "empty", "\n", 0600);
	load_err(path, "must hold one token");
	put(path, sizeof(path), "inner-space", "ab cd", 0600);
	load_err(path, "must hold one token");
	put(path, sizeof(path), "control", "ab\x01", 0600);
	load_err(path, "must hold one token");
	char big[ENAV_BEARER_MAX + 2];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put(path, sizeof(path), "too-long", big, 0600);
	load_err(path, "must hold one token");
	char huge[4096];
	memset(huge, 'a', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	put(path, sizeof(path), "huge", huge, 0600);
	load_err(path, "is larger than");

	/* Not a regular file: a directory, and a FIFO (which must not block). */
	load_err(dir, "is not a regular file");
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	load_err(path, "is not a regular file");
	snprintf(path, sizeof(path), "%s/absent", dir);
	load_err(path, "cannot open");
}

static void test_owner(void **st)
{
	char path[128];
	(void)st;
	if (geteuid() != 0)
		skip();
	/* Owned by another user: that user could change it. */
	put(path, sizeof(path), "other-owner", "abc", 0600);
	assert_int_equal(chown(path, 65534, 65534), 0);
	load_err(path, "is owned by uid 65534");
}

static void test_equal(void **st)
{
	(void)st;
	assert_true(enav_bearer_equal("abc", 3, "abc", 3));
	assert_false(enav_bearer_equal("abd", 3, "abc", 3));
	assert_false(enav_bearer_equal("ab", 2, "abc", 3));
	assert_false(enav_bearer_equal("abcd", 4, "abc", 3));
	assert_false(enav_bearer_equal("", 0, "abc", 3));
	/* A prefix of the right token, padded with NULs, is not it. */
	assert_false(enav_bearer_equal("ab\0", 3, "abc", 3));
}

static void test_check(void **st)
{
	(void)st;
	assert_true(enav_bearer_check("Bearer tok", "tok"));
	assert_true(enav_bearer_check("bearer tok", "tok"));
	assert_true(enav_bearer_check("BEARER   tok  ", "tok"));
	assert_false(enav_bearer_check(NULL, "tok"));
	assert_false(enav_bearer_check("", "tok"));
	assert_false(enav_bearer_check("tok", "tok"));
	assert_false(enav_bearer_check("Basic dG9rOnRvaw==", "tok"));
	assert_false(enav_bearer_check("Bearer", "tok"));
	assert_false(enav_bearer_check("Bearer ", "tok"));
	assert_false(enav_bearer_check("Bearer tokx", "tok"));
	assert_false(enav_bearer_check("Bearer to", "tok"));
	assert_false(enav_bearer_check("Bearertok", "tok"));
	/* No token configured never matches, not even an empty one. */
	assert_false(enav_bearer_check("Bearer ", ""));
	assert_false(enav_bearer_check("Bearer x", NULL));
}

static void test_token_ok(void **st)
{
	(void)st;
	assert_true(enav_bearer_token_ok("a", 1));
	assert_false(enav_bearer_token_ok("", 0));
	assert_false(enav_bearer_token_ok("a b", 3));
	assert_false(enav_bearer_token_ok("a\x7f", 2));
	assert_false(enav_bearer_token_ok("\xc3\xa9", 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_load),     cmocka_unit_test(test_owner),
	    cmocka_unit_test(test_equal),    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_token_ok),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
