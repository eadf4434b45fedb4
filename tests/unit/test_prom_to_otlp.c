/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the OTLP metrics encoding of the exposition
 * (src/exporters/otlp/prom_to_otlp.c): a snapshot larger than the request
 * size limit is sent without its families that do not fit, never refused
 * whole.
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
#include "platform/protobuf.h"
#include "exporters/otlp/prom_to_otlp.h"

static bool has_bytes(const uint8_t *buf, size_t len, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(buf + i, s, n))
			return true;
	return false;
}

/* A small family, a flooded histogram family of 300 label sets, a small one. */
static char *document(size_t *len)
{
	struct enav_promtext p;
	assert_int_equal(enav_promtext_init_growable(&p, (size_t)16 << 20), 0);
	enav_promtext_single_u64(&p, "enav_first_total", "counter", "First.", 1);
	enav_promtext_family(&p, "http_server_request_duration_seconds", "histogram", "Flood.");
	for (int i = 0; i < 300; i++) {
		char route[64];
		snprintf(route, sizeof(route), "/route/number/%04d/with/a/long/name", i);
		const char *le[] = {"http_route", route, "le", "0.1"};
		const char *inf[] = {"http_route", route, "le", "+Inf"};
		enav_promtext_sample_u64(&p, "http_server_request_duration_seconds_bucket", le, 2,
					 1);
		enav_promtext_sample_u64(&p, "http_server_request_duration_seconds_bucket", inf, 2,
					 1);
		enav_promtext_sample(&p, "http_server_request_duration_seconds_sum", le, 1, 0.05);
		enav_promtext_sample_u64(&p, "http_server_request_duration_seconds_count", le, 1,
					 1);
	}
	enav_promtext_single_u64(&p, "enav_last_total", "counter", "Last.", 2);
	*len = p.len;
	return p.buf;
}

static int encode(const char *text, size_t len, size_t limit, struct enav_pb_writer *w,
		  uint64_t *left_out)
{
	struct enav_prom_snapshot *s = enav_prom_parse(text, len);
	assert_non_null(s);
	enav_pb_writer_init(w, limit);
	struct enav_otlp_kv kv = {.key = "service.name", .type = ENAV_OTLP_STR, .s = "enav"};
	struct enav_otlp_resource r = {&kv, 1};
	int rc =
	    enav_prom_encode_otlp(w, s, &r, (struct enav_otlp_scope){"enav", "0"}, 1, 2, left_out);
	enav_prom_snapshot_free(s);
	return rc;
}

static void test_everything_fits(void **state)
{
	size_t len;
	char *text = document(&len);
	struct enav_pb_writer w;
	uint64_t left_out = 0;
	assert_int_equal(encode(text, len, (size_t)4 << 20, &w, &left_out), 0);
	assert_false(w.failed);
	assert_int_equal(left_out, 0);
	assert_true(has_bytes(w.buf, w.len, "http_server_request_duration_seconds"));
	assert_true(has_bytes(w.buf, w.len, "enav_first"));
	assert_true(has_bytes(w.buf, w.len, "enav_last"));
	enav_pb_writer_free(&w);
	free(text);
}

/* Past the limit the flooded family is left out and counted; the request is
 * well formed and carries the families before and after it. */
static void test_family_left_out_at_limit(void **state)
{
	size_t len;
	char *text = document(&len);
	struct enav_pb_writer w;
	uint64_t left_out = 0;
	assert_int_equal(encode(text, len, 16 << 10, &w, &left_out), 0);
	assert_false(w.failed);
	assert_int_equal(w.depth, 0);
	assert_true(w.len <= 16 << 10);
	assert_int_equal(left_out, 1);
	assert_false(has_bytes(w.buf, w.len, "http_server_request_duration_seconds"));
	assert_true(has_bytes(w.buf, w.len, "enav_first"));
	assert_true(has_bytes(w.buf, w.len, "enav_last"));
	enav_pb_writer_free(&w);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_everything_fits),
	    cmocka_unit_test(test_family_left_out_at_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
