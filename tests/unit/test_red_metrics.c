/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the request metrics table (src/features/network/red_metrics.c):
 * each family has its own label-set budget with an overflow series, a flood
 * of one family leaves the others counted, idle label sets expire, and the
 * last-series shortcut counts a span only where its labels are equal.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/promtext.h"
#include "model/signal.h"
#include "features/network/red_metrics.h"

#define SEC 1000000000ull

static struct enav_signal *span(uint8_t protocol, bool server, const char *op, const char *target)
{
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_SPAN, 0);
	assert_non_null(s);
	s->net.role = server ? ENAV_ROLE_SERVER : ENAV_ROLE_CLIENT;
	s->span.op.protocol = protocol;
	s->span.op.status_code = 200;
	s->span.op.start_ns = 1000;
	s->span.op.end_ns = 1000 + 3000000; /* 3 ms */
	snprintf(s->span.op.operation, sizeof(s->span.op.operation), "%s", op);
	snprintf(s->span.op.target, sizeof(s->span.op.target), "%s", target);
	snprintf(s->process.comm, sizeof(s->process.comm), "nginx");
	return s;
}

static void observe(struct enav_red_table *g, uint8_t protocol, bool server, const char *op,
		    const char *target, uint64_t now)
{
	struct enav_signal *s = span(protocol, server, op, target);
	enav_red_table_observe(g, s, now);
	enav_signal_unref(s);
}

/* The exposition of the table, in a buffer the caller frees. */
static char *render(struct enav_red_table *g)
{
	struct enav_promtext p;
	assert_int_equal(enav_promtext_init_growable(&p, (size_t)64 << 20), 0);
	enav_red_table_render(g, &p);
	assert_int_equal(p.families_dropped, 0);
	return p.buf;
}

static int count(const char *text, const char *needle)
{
	int n = 0;
	for (const char *at = text; (at = strstr(at, needle)) != NULL; at++)
		n++;
	return n;
}

/* One flooded family stops at its own cap; another family still gets label sets. */
static void test_per_family_cap(void **state)
{
	struct enav_red_table *g = enav_red_table_new(16, 600 * SEC);
	assert_non_null(g);
	char route[64];
	for (int i = 0; i < 1500; i++) {
		snprintf(route, sizeof(route), "/flood/r%04d", i);
		observe(g, ENAV_L7_HTTP1, true, "GET", route, 1 * SEC);
	}
	/* 16 label sets and the overflow series. */
	assert_int_equal(enav_red_table_series(g), 17);
	/* The database family of a neighbour is not starved by the flood. */
	for (int i = 0; i < 10; i++) {
		snprintf(route, sizeof(route), "table%d", i);
		observe(g, ENAV_L7_REDIS, false, "GET", route, 1 * SEC);
	}
	assert_int_equal(enav_red_table_series(g), 27);

	char *text = render(g);
	const char *ovf = "http_server_request_duration_seconds_count{http_request_method="
			  "\"_overflow\",http_route=\"_overflow\"";
	assert_non_null(strstr(text, ovf));
	/* 1500 - 16 spans landed in the overflow series, and were counted. */
	assert_non_null(strstr(text, "enav_l7_series_overflow_total{metric=\""
				     "http_server_request_duration_seconds\"} 1484\n"));
	assert_non_null(strstr(text, "enav_l7_series_overflow_total{metric=\""
				     "db_client_operation_duration_seconds\"} 0\n"));
	assert_int_equal(count(text, "db_client_operation_duration_seconds_count{"), 10);
	assert_int_equal(count(text, "http_server_request_duration_seconds_count{"), 17);
	const char *sum = strstr(text, "http_server_request_duration_seconds_count{"
				       "http_request_method=\"_overflow\"");
	assert_non_null(sum);
	assert_non_null(strstr(sum, "} 1484\n"));
	free(text);
	enav_red_table_free(g);
}

/* The table's text stays under the bound the /metrics hard cap is sized from. */
static void test_exposition_bound(void **state)
{
	struct enav_red_table *g = enav_red_table_new(16, 600 * SEC);
	char route[ENAV_L7_TARGET_MAX];
	/* Longest labels, every byte escaped, in every HTTP/DB family. */
	for (int i = 0; i < 40; i++) {
		memset(route, '"', sizeof(route) - 1);
		route[sizeof(route) - 1] = '\0';
		snprintf(route, 8, "%06d", i);
		route[6] = '"';
		observe(g, ENAV_L7_HTTP1, true, "GET", route, SEC);
		observe(g, ENAV_L7_HTTP1, false, "GET", route, SEC);
		observe(g, ENAV_L7_REDIS, false, "GET", route, SEC);
	}
	char *text = render(g);
	assert_true(strlen(text) < enav_red_metrics_exposition_bound(16));
	free(text);
	enav_red_table_free(g);
}

/* Label sets unseen for idle_ns go, overflow series included; they are counted,
 * their budget is free again, and busy ones stay. */
static void test_idle_expiry(void **state)
{
	struct enav_red_table *g = enav_red_table_new(16, 600 * SEC);
	char route[64];
	for (int i = 0; i < 40; i++) {
		snprintf(route, sizeof(route), "/old/r%02d", i);
		observe(g, ENAV_L7_HTTP1, true, "GET", route, 10 * SEC);
	}
	assert_int_equal(enav_red_table_series(g), 17);
	/* One route stays busy. */
	observe(g, ENAV_L7_HTTP1, true, "GET", "/old/r00", 500 * SEC);
	enav_red_table_expire(g, 609 * SEC); /* 599 s idle: nothing goes */
	assert_int_equal(enav_red_table_series(g), 17);
	enav_red_table_expire(g, 610 * SEC);
	assert_int_equal(enav_red_table_series(g), 1); /* /old/r00 */
	char *text = render(g);
	assert_non_null(strstr(text, "http_route=\"/old/r00\""));
	assert_null(strstr(text, "/old/r01"));
	assert_null(strstr(text, "\"_overflow\""));
	assert_non_null(strstr(text, "enav_l7_series_expired_total{metric=\""
				     "http_server_request_duration_seconds\"} 16\n"));
	free(text);
	/* The freed budget takes new label sets again. */
	for (int i = 0; i < 15; i++) {
		snprintf(route, sizeof(route), "/new/r%02d", i);
		observe(g, ENAV_L7_HTTP1, true, "GET", route, 700 * SEC);
	}
	assert_int_equal(enav_red_table_series(g), 16);
	text = render(g);
	assert_null(strstr(text, "_overflow\""));
	assert_non_null(strstr(text, "http_route=\"/new/r14\""));
	/* A series that moved into a freed slot is still found by its labels. */
	observe(g, ENAV_L7_HTTP1, true, "GET", "/old/r00", 700 * SEC);
	assert_int_equal(enav_red_table_series(g), 16);
	free(text);
	enav_red_table_expire(g, 1301 * SEC);
	assert_int_equal(enav_red_table_series(g), 0);
	enav_red_table_free(g);
}

/* The count of the first exposition line that starts with prefix, or -1. */
static long line_value(const char *text, const char *prefix)
{
	for (const char *at = text; at && *at; at = strchr(at, '\n'), at = at ? at + 1 : NULL)
		if (!strncmp(at, prefix, strlen(prefix))) {
			const char *sp = strchr(at, ' ');
			return sp ? strtol(sp + 1, NULL, 10) : -1;
		}
	return -1;
}

/* A span lands in its family's last series only when every label is equal:
 * a label that is a prefix of the last one's (or the other way) is a label
 * set of its own, and the families keep their own last series. */
static void test_last_series(void **state)
{
	struct enav_red_table *g = enav_red_table_new(16, 600 * SEC);
	observe(g, ENAV_L7_HTTP1, true, "GET", "/ab", SEC);
	observe(g, ENAV_L7_HTTP1, true, "GET", "/a", SEC);
	observe(g, ENAV_L7_HTTP1, false, "GET", "/a", SEC);
	observe(g, ENAV_L7_HTTP1, true, "GET", "/a", SEC);
	observe(g, ENAV_L7_HTTP1, true, "GET", "/ab", SEC);
	observe(g, ENAV_L7_HTTP1, true, "GETX", "/ab", SEC);
	assert_int_equal(enav_red_table_series(g), 4);
	char *text = render(g);
	const char *srv = "http_server_request_duration_seconds_count{http_request_method=";
	char prefix[256];
	snprintf(prefix, sizeof(prefix), "%s\"GET\",http_route=\"/a\",", srv);
	assert_int_equal(line_value(text, prefix), 2);
	snprintf(prefix, sizeof(prefix), "%s\"GET\",http_route=\"/ab\",", srv);
	assert_int_equal(line_value(text, prefix), 2);
	snprintf(prefix, sizeof(prefix), "%s\"GETX\",http_route=\"/ab\",", srv);
	assert_int_equal(line_value(text, prefix), 1);
	assert_int_equal(line_value(text, "http_client_request_duration_seconds_count{"
					  "http_request_method=\"GET\",http_route=\"/a\","),
			 1);
	free(text);
	enav_red_table_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_per_family_cap),
	    cmocka_unit_test(test_exposition_bound),
	    cmocka_unit_test(test_idle_expiry),
	    cmocka_unit_test(test_last_series),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
