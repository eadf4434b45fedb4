/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the NDJSON exporter's per-kind rate limit
 * (src/exporters/ndjson/ndjson_limit.c, ADR 0015).  Time is given, not read. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "exporters/ndjson/ndjson_limit.h"

#define MS 1000000ull
#define S  1000000000ull
#define T0 (5 * S) /* any monotonic start */

static struct enav_ndjson_limit g_limit;

/* How many of n signals of kind, one every step_ns from *now, are admitted. */
static uint64_t admit_n(enum enav_signal_kind kind, uint64_t n, uint64_t *now, uint64_t step_ns)
{
	uint64_t admitted = 0;
	for (uint64_t i = 0; i < n; i++) {
		admitted += enav_ndjson_limit_admit(&g_limit, kind, *now);
		*now += step_ns;
	}
	return admitted;
}

/* A quiet kind gets its first second's worth at once; the next is refused
 * and counted under its kind only. */
static void test_starts_full_then_refuses(void **state)
{
	uint64_t now = T0;
	enav_ndjson_limit_init(&g_limit, 100, 1000, T0);
	assert_int_equal(admit_n(ENAV_SIGNAL_SPAN, 100, &now, 0), 100);
	assert_false(enav_ndjson_limit_admit(&g_limit, ENAV_SIGNAL_SPAN, now));
	assert_int_equal(enav_ndjson_limit_refused(&g_limit, ENAV_SIGNAL_SPAN), 1);
	assert_int_equal(enav_ndjson_limit_refused_total(&g_limit), 1);
	/* Another kind has its own bucket. */
	assert_int_equal(admit_n(ENAV_SIGNAL_TCP_OPEN, 1000, &now, 0), 1000);
	assert_int_equal(enav_ndjson_limit_refused(&g_limit, ENAV_SIGNAL_TCP_OPEN), 0);
	assert_false(enav_ndjson_limit_admit(&g_limit, ENAV_SIGNAL_TCP_OPEN, now));
	assert_int_equal(enav_ndjson_limit_refused(&g_limit, ENAV_SIGNAL_TCP_OPEN), 1);
	assert_int_equal(enav_ndjson_limit_refused(&g_limit, ENAV_SIGNAL_PROCESS_EXEC), 0);
	assert_int_equal(enav_ndjson_limit_refused_total(&g_limit), 2);
}

/* At 100 lines/s a line is earned every 10 ms; fractions of a line add up. */
static void test_refills_at_the_rate(void **state)
{
	uint64_t now = T0;
	enav_ndjson_limit_init(&g_limit, 100, 1000, T0);
	admit_n(ENAV_SIGNAL_SPAN, 100, &now, 0);
	now += 5 * MS;
	assert_false(enav_ndjson_limit_admit(&g_limit, ENAV_SIGNAL_SPAN, now));
	now += 5 * MS;
	assert_true(enav_ndjson_limit_admit(&g_limit, ENAV_SIGNAL_SPAN, now));
	assert_false(enav_ndjson_limit_admit(&g_limit, ENAV_SIGNAL_SPAN, now));
	now += 30 * MS;
	assert_int_equal(admit_n(ENAV_SIGNAL_SPAN, 10, &now, 0), 3);
}

/* A long quiet spell refills one second's worth, never more. */
static void test_burst_is_one_second(void **state)
{
	uint64_t now = T0;
	enav_ndjson_limit_init(&g_limit, 100, 1000, T0);
	admit_n(ENAV_SIGNAL_SPAN, 100, &now, 0);
	now += 3600 * S;
	assert_int_equal(admit_n(ENAV_SIGNAL_SPAN, 1000, &now, 0), 100);
	now += S - 1;
	assert_int_equal(admit_n(ENAV_SIGNAL_SPAN, 1000, &now, 0), 99);
}

/* The load: 100k spans/s for 10 s write 100 + 10 s x 100 lines. */
static void test_steady_flood_is_bounded(void **state)
{
	uint64_t now = T0;
	enav_ndjson_limit_init(&g_limit, 100, 1000, T0);
	uint64_t admitted = admit_n(ENAV_SIGNAL_SPAN, 1000000, &now, 10000);
	assert_in_range(admitted, 1099, 1100);
	assert_int_equal(enav_ndjson_limit_refused(&g_limit, ENAV_SIGNAL_SPAN), 1000000 - admitted);
}

/* 0 is no limit, for spans and other kinds alike. */
static void test_zero_is_no_limit(void **state)
{
	uint64_t now = T0;
	enav_ndjson_limit_init(&g_limit, 0, 0, T0);
	assert_int_equal(admit_n(ENAV_SIGNAL_SPAN, 200000, &now, 0), 200000);
	assert_int_equal(admit_n(ENAV_SIGNAL_DNS, 200000, &now, 0), 200000);
	assert_int_equal(enav_ndjson_limit_refused_total(&g_limit), 0);
	assert_int_equal(enav_ndjson_limit_rate(&g_limit, ENAV_SIGNAL_SPAN), 0);

	enav_ndjson_limit_init(&g_limit, 0, 10, T0);
	now = T0;
	assert_int_equal(admit_n(ENAV_SIGNAL_SPAN, 5000, &now, 0), 5000);
	assert_int_equal(admit_n(ENAV_SIGNAL_PROCESS_EXIT, 50, &now, 0), 10);
}

/* A clock that does not move forward earns nothing and breaks nothing. */
static void test_clock_backwards(void **state)
{
	uint64_t now = T0;
	enav_ndjson_limit_init(&g_limit, 10, 10, T0);
	admit_n(ENAV_SIGNAL_SPAN, 10, &now, 0);
	assert_false(enav_ndjson_limit_admit(&g_limit, ENAV_SIGNAL_SPAN, T0 - S));
	assert_false(enav_ndjson_limit_admit(&g_limit, ENAV_SIGNAL_SPAN, T0));
	assert_true(enav_ndjson_limit_admit(&g_limit, ENAV_SIGNAL_SPAN, T0 + 100 * MS));
}

/* The largest rate over almost a second stays within 64 bits; a rate past
 * the schema's bound is held to it. */
static void test_largest_rate(void **state)
{
	uint64_t now = T0;
	enav_ndjson_limit_init(&g_limit, ENAV_NDJSON_LIMIT_MAX_PER_SECOND, UINT32_MAX, T0);
	assert_int_equal(enav_ndjson_limit_rate(&g_limit, ENAV_SIGNAL_TCP_CLOSE),
			 ENAV_NDJSON_LIMIT_MAX_PER_SECOND);
	assert_int_equal(admit_n(ENAV_SIGNAL_SPAN, 1000001, &now, 0), 1000000);
	now += S - 1;
	assert_int_equal(admit_n(ENAV_SIGNAL_SPAN, 1000001, &now, 0), 999999);
}

/* A kind outside the table takes the other kinds' rate, in a bucket of its own. */
static void test_unknown_kind(void **state)
{
	uint64_t now = T0;
	enav_ndjson_limit_init(&g_limit, 1, 3, T0);
	assert_int_equal(admit_n((enum enav_signal_kind)999, 10, &now, 0), 3);
	assert_int_equal(enav_ndjson_limit_refused(&g_limit, (enum enav_signal_kind)999), 7);
	assert_int_equal(enav_ndjson_limit_refused(&g_limit, ENAV_SIGNAL_SPAN), 0);
}

/* The start-up log line names the limits, the key and the counter. */
static void test_describe(void **state)
{
	char line[256];
	enav_ndjson_limit_init(&g_limit, 100, 1000, T0);
	enav_ndjson_limit_describe(&g_limit, line, sizeof(line));
	assert_string_equal(line,
			    "at most 100 span lines per second and at most 1000 lines per "
			    "second of each other kind; the rest dropped, counted in "
			    "enav_ndjson_rate_limited_total{kind} (exporters.ndjson.rate_limit, "
			    "0 = no limit)");
	enav_ndjson_limit_init(&g_limit, 0, 0, T0);
	enav_ndjson_limit_describe(&g_limit, line, sizeof(line));
	assert_string_equal(line, "every span line and every line of the other kinds "
				  "(exporters.ndjson.rate_limit, 0 = no limit)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_starts_full_then_refuses),
	    cmocka_unit_test(test_refills_at_the_rate),
	    cmocka_unit_test(test_burst_is_one_second),
	    cmocka_unit_test(test_steady_flood_is_bounded),
	    cmocka_unit_test(test_zero_is_no_limit),
	    cmocka_unit_test(test_clock_backwards),
	    cmocka_unit_test(test_largest_rate),
	    cmocka_unit_test(test_unknown_kind),
	    cmocka_unit_test(test_describe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
