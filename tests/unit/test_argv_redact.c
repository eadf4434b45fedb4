/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Secrets out of command lines (src/features/process/argv_redact.c): each
 * shape of secret-carrying argument, what must stay, bounds and cut vectors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "features/process/argv_redact.h"

#define R ENAV_ARGV_REDACTED

/* Redact the vector given as one string with '|' between arguments (and a
 * final NUL), and compare with want in the same form. */
static void check(const char *bars, const char *want, uint32_t want_n)
{
	char in[1024], out[1024 + ENAV_ARGV_REDACT_SLACK], shown[2048];
	size_t n = strlen(bars);
	assert_true(n < sizeof(in));
	for (size_t i = 0; i < n; i++)
		in[i] = bars[i] == '|' ? '\0' : bars[i];
	in[n++] = '\0';
	uint32_t red = 0;
	bool cut = true;
	size_t o = enav_argv_redact(in, n, out, sizeof(out), &red, &cut);
	assert_false(cut);
	assert_true(o > 0 && out[o - 1] == '\0');
	for (size_t i = 0; i + 1 < o; i++)
		shown[i] = out[i] ? out[i] : '|';
	shown[o - 1] = '\0';
	if (strcmp(shown, want) != 0 || red != want_n)
		fail_msg("%s\n  got  %s (%u)\n  want %s (%u)", bars, shown, red, want, want_n);
}

static void test_flags(void **state)
{
	(void)state;
	check("app|--password|hunter2|--port|5432", "app|--password|" R "|--port|5432", 1);
	check("app|--password=hunter2", "app|--password=" R, 1);
	check("app|--token|abc|--api-key=k1|--secret|s|-db-password=x",
	      "app|--token|" R "|--api-key=" R "|--secret|" R "|-db-password=" R, 4);
	check("app|--client_secret|s", "app|--client_secret|" R, 1);
	/* A flag's next argument that is itself a long flag is not its value. */
	check("app|--password|--verbose", "app|--password|--verbose", 0);
	/* Nothing secret: unchanged. */
	check("nginx|-g|daemon off;|-c|/etc/nginx.conf", "nginx|-g|daemon off;|-c|/etc/nginx.conf",
	      0);
}

static void test_env_like(void **state)
{
	(void)state;
	check("env|DB_PASSWORD=hunter2|AWS_SECRET_ACCESS_KEY=x|GITHUB_TOKEN=t|PATH=/bin|cmd",
	      "env|DB_PASSWORD=" R "|AWS_SECRET_ACCESS_KEY=" R "|GITHUB_TOKEN=" R "|PATH=/bin|cmd",
	      3);
	/* argv[0] is never changed; a bare word naming a secret is a word. */
	check("PASSWORD=x|token|key", "PASSWORD=x|token|key", 0);
}

static void test_tools(void **state)
{
	(void)state;
	check("/usr/bin/mysql|-uroot|-phunter2|db", "/usr/bin/mysql|-uroot|-p" R "|db", 1);
	/* mysql -p NAME prompts; NAME is the database. */
	check("mysql|-p|shop", "mysql|-p|shop", 0);
	check("sshpass|-p|hunter2|ssh|host", "sshpass|-p|" R "|ssh|host", 1);
	check("redis-cli|-a|hunter2|ping", "redis-cli|-a|" R "|ping", 1);
	check("curl|-u|alice:hunter2|-H|Authorization: Bearer abc|http://x/",
	      "curl|-u|" R "|-H|Authorization:" R "|http://x/", 2);
	check("curl|--user=alice:pw|https://bob:hunter2@example.com/x",
	      "curl|--user=" R "|https://bob:" R "@example.com/x", 2);
	/* A URL's path as a span's is written; its query goes. */
	check(
	    "curl|-s|http://127.0.0.1:8080/users/alice@example.com/reset/Zm9vYmFyMTIzNDU2Nzg5MA42",
	    "curl|-s|http://127.0.0.1:8080/users/{id}/reset/{id}", 1);
	check("wget|https://example.com/dl?token=abc&x=1", "wget|https://example.com/dl?" R, 1);
	check("curl|https://example.com/static/app.js", "curl|https://example.com/static/app.js",
	      0);
	/* -p of another program is not a password. */
	check("ssh|-p|2222|host", "ssh|-p|2222|host", 0);
}

/* A vector cut by the kernel (no final NUL) and an output too small. */
static void test_bounds(void **state)
{
	(void)state;
	char out[64];
	uint32_t red = 0;
	bool cut = false;
	const char in[] = {'a', 0, '-', '-', 't', 'o', 'k', 'e', 'n', '=', 's', 'e', 'c'};
	size_t o = enav_argv_redact(in, sizeof(in), out, sizeof(out), &red, &cut);
	assert_false(cut);
	assert_int_equal(o, 2 + 8 + strlen(R));
	assert_memory_equal(out, "a\0--token=" R, o);
	assert_int_equal(red, 1);
	/* Room for argv[0] only: cut at an argument boundary. */
	red = 0;
	o = enav_argv_redact("app\0--password\0hunter2\0", 23, out, 16, &red, &cut);
	assert_true(cut);
	assert_int_equal(o, 15);
	assert_null(memmem(out, o, "hunter2", 7));
	/* Every argument short and secret: the slack is enough for a maximal
	 * vector of such pairs only up to the cut, never past cap. */
	char big[4096], bout[4096 + ENAV_ARGV_REDACT_SLACK];
	size_t bn = 0;
	big[bn++] = 'x', big[bn++] = 0;
	while (bn + 6 <= sizeof(big)) {
		memcpy(big + bn, "KEY=1", 6);
		bn += 6;
	}
	red = 0;
	o = enav_argv_redact(big, bn, bout, sizeof(bout), &red, &cut);
	assert_true(o <= sizeof(bout));
	assert_true(cut);
	assert_null(memmem(bout, o, "=1", 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flags),
	    cmocka_unit_test(test_env_like),
	    cmocka_unit_test(test_tools),
	    cmocka_unit_test(test_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
