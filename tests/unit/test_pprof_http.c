/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the query of the agent's pprof endpoints
 * (enav_pprof_parse_query in src/features/profiling/pprof_http.c): what a request may ask
 * for, and the 400 for what strtoul would have let through (a sign, a
 * blank), for pid=0 (which the filter reads as "every process") and for
 * filters that could never match.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "features/profiling/pprof_http.h"

/* "k=v" pairs, NULL-terminated; a key's first value wins. */
static const char *get(void *ctx, const char *key)
{
	const char *const *kv = ctx;

	for (; kv[0]; kv += 2)
		if (!strcmp(kv[0], key))
			return kv[1];
	return NULL;
}

static struct enav_pprof_request pr;
static char msg[160];

static int parse_ret(uint32_t retention_ms, const char *const *kv)
{
	memset(&pr, 0xa5, sizeof(pr));
	msg[0] = '\0';
	return enav_pprof_parse_query(get, (void *)kv, ENAV_PROFILE_OFFCPU, retention_ms, false,
				      &pr, msg, sizeof(msg));
}

static int parse(const char *const *kv)
{
	return parse_ret(120000, kv);
}

#define Q(...) ((const char *const[]){__VA_ARGS__, NULL})

static void test_defaults(void **state)
{
	(void)state;
	assert_int_equal(parse(Q(NULL)), 0);
	assert_int_equal(pr.seconds, 30);
	assert_int_equal(pr.q.kind, ENAV_PROFILE_OFFCPU);
	assert_int_equal(pr.q.format, ENAV_PROFILE_FORMAT_PPROF);
	assert_true(pr.q.redact);
	assert_int_equal(pr.q.filter.pid, 0);
	assert_null(pr.q.filter.container);
	assert_null(pr.q.filter.cgroup);
	assert_int_equal(pr.q.from_mono_ns, 0);
	assert_int_equal(parse(Q("seconds", "0")), 0);
	assert_int_equal(pr.seconds, 30);
	assert_int_equal(parse(Q("debug", "1", "gc", "")), 0); /* Go's own, ignored */
}

static void test_accepted(void **state)
{
	(void)state;
	assert_int_equal(parse(Q("seconds", "5", "pid", "4242", "format", "folded")), 0);
	assert_int_equal(pr.seconds, 5);
	assert_int_equal(pr.q.filter.pid, 4242);
	assert_int_equal(pr.q.format, ENAV_PROFILE_FORMAT_FOLDED);
	assert_int_equal(parse(Q("seconds", "119", "pid", "4294967295", "format", "svg")), 0);
	assert_int_equal(pr.seconds, 119);
	assert_int_equal(pr.q.filter.pid, UINT32_MAX);
	assert_int_equal(pr.q.format, ENAV_PROFILE_FORMAT_FLAMEGRAPH);
	assert_int_equal(parse(Q("container", "f372f52c", "format", "proto")), 0);
	assert_string_equal(pr.q.filter.container, "f372f52c");
	assert_int_equal(parse(Q("cgroup", "/kubepods.slice/")), 0);
	assert_string_equal(pr.q.filter.cgroup, "/kubepods.slice/");
	assert_int_equal(parse(Q("cgroup", "18446744073709551615")), 0);
	assert_int_equal(parse(Q("seconds", "007")), 0);
	assert_int_equal(pr.seconds, 7);
}

static void test_refused(void **state)
{
	static const char *const bad[][2] = {
	    /* strtoul took these: a sign, a blank, a trailing blank was junk */
	    {"seconds", "+5"},
	    {"seconds", " 5"},
	    {"seconds", "-0"},
	    {"seconds", "601"},
	    {"seconds", ""},
	    {"seconds", "5s"},
	    {"pid", "+42"},
	    {"pid", " 42"},
	    {"pid", "4294967296"},
	    {"pid", ""},
	    /* pid 0 was "any process": the whole node for a request for one */
	    {"pid", "0"},
	    /* a filter that could never match, or match everything */
	    {"container", "abc"},
	    {"container", "F372F52C"},
	    {"container", "f372-52c"},
	    {"container", ""},
	    {"cgroup", ""},
	    {"cgroup", "kubepods.slice"},
	    {"cgroup", "+12"},
	    {"cgroup", "18446744073709551616"},
	    {"format", "json"},
	    {"format", ""},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *kv[] = {bad[i][0], bad[i][1], NULL};

		if (parse(kv) != 400)
			fail_msg("accepted %s=\"%s\"", bad[i][0], bad[i][1]);
		assert_true(strlen(msg) > 1 && msg[strlen(msg) - 1] == '\n');
		assert_ptr_equal(strchr(msg, '\n'), msg + strlen(msg) - 1);
	}
}

static void test_window_fits_retention(void **state)
{
	(void)state;
	assert_int_equal(parse_ret(10000, Q("seconds", "9")), 0);
	assert_int_equal(parse_ret(10000, Q("seconds", "10")), 400);
	assert_string_equal(msg,
			    "seconds: at most 9 (profiling.retention_ms keeps 10 s of stacks)\n");
	/* The default 30 s does not fit in 10 s either. */
	assert_int_equal(parse_ret(10000, Q(NULL)), 400);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_accepted),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_window_fits_retention),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
