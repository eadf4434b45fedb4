/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the OTLP metrics encoding of the exposition
 * (src/exporters/otlp/prom_to_otlp.c): a snapshot larger than the request
 * size limit is sent without its families that do not fit, never refused
 * whole; and the snapshot the exporter feeds from the writer's calls
 * encodes exactly as the text of the same calls, parsed.
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
static void write_document(struct enav_promtext *p)
{
	enav_promtext_single_u64(p, "enav_first_total", "counter", "First.", 1);
	enav_promtext_family(p, "http_server_request_duration_seconds", "histogram", "Flood.");
	for (int i = 0; i < 300; i++) {
		char route[64];
		snprintf(route, sizeof(route), "/route/number/%04d/with/a/long/name", i);
		const char *le[] = {"http_route", route, "le", "0.1"};
		const char *inf[] = {"http_route", route, "le", "+Inf"};
		enav_promtext_sample_u64(p, "http_server_request_duration_seconds_bucket", le, 2,
					 1);
		enav_promtext_sample_u64(p, "http_server_request_duration_seconds_bucket", inf, 2,
					 1);
		enav_promtext_sample(p, "http_server_request_duration_seconds_sum", le, 1, 0.05);
		enav_promtext_sample_u64(p, "http_server_request_duration_seconds_count", le, 1, 1);
	}
	enav_promtext_single_u64(p, "enav_last_total", "counter", "Last.", 2);
}

static char *document(size_t *len)
{
	struct enav_promtext p;
	assert_int_equal(enav_promtext_init_growable(&p, (size_t)16 << 20), 0);
	write_document(&p);
	*len = p.len;
	return p.buf;
}

/* What the text writer escapes and the parser reads back, a cached block,
 * values that are not whole, not finite or past 2^53, a sample with no
 * family, and samples the parser refuses. */
static void write_awkward(struct enav_promtext *p)
{
	enav_promtext_family(p, "enav_odd", "gauge", "Help with \\ and a\nnewline.");
	const char *esc[] = {"v", "quote \" back \\ line \n end", "w", ""};
	enav_promtext_sample(p, "enav_odd", esc, 2, 0.1 + 0.2);
	const char *nan[] = {"v", "nan"};
	enav_promtext_sample(p, "enav_odd", nan, 1, 0.0 / 0.0);
	const char *inf[] = {"v", "inf"};
	enav_promtext_sample(p, "enav_odd", inf, 1, -1.0 / 0.0);
	const char *big[] = {"v", "big"};
	enav_promtext_sample_u64(p, "enav_odd", big, 1, UINT64_MAX);
	static const char block[] = "# HELP enav_cached_total Cached.\n"
				    "# TYPE enav_cached_total counter\n"
				    "enav_cached_total{cpu=\"0\"} 7\n";
	enav_promtext_raw(p, block, sizeof(block) - 1);
	enav_promtext_sample_u64(p, "enav_orphan", NULL, 0, 3);
	char long_value[2048];
	memset(long_value, 'x', sizeof(long_value) - 1);
	long_value[sizeof(long_value) - 1] = '\0';
	const char *refused[] = {"v", long_value};
	enav_promtext_sample_u64(p, "enav_odd", refused, 1, 4);
	const char *many[2 * 17];
	for (int i = 0; i < 17; i++) {
		static const char *const keys[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i",
						   "j", "k", "l", "m", "n", "o", "p", "q"};
		many[2 * i] = keys[i];
		many[2 * i + 1] = "1";
	}
	enav_promtext_sample_u64(p, "enav_odd", many, 17, 5);
}

/* The request encoded from snapshot s. */
static void encode_snapshot(struct enav_prom_snapshot *s, struct enav_pb_writer *w)
{
	enav_pb_writer_init(w, (size_t)4 << 20);
	struct enav_otlp_kv kv = {.key = "service.name", .type = ENAV_OTLP_STR, .s = "enav"};
	struct enav_otlp_resource r = {&kv, 1};
	assert_int_equal(
	    enav_prom_encode_otlp(w, s, &r, (struct enav_otlp_scope){"enav", "0"}, 1, 2, NULL), 0);
	assert_false(w->failed);
}

/* A snapshot's byte cap: the samples past it are left out and counted,
 * those before it are kept, and what it holds is counted with its labels. */
static void test_snapshot_byte_cap(void **state)
{
	(void)state;
	struct enav_prom_snapshot *empty = enav_prom_snapshot_new(SIZE_MAX);
	struct enav_prom_snapshot *all = enav_prom_snapshot_new(SIZE_MAX);
	assert_non_null(empty);
	assert_non_null(all);
	struct enav_promtext p;
	enav_promtext_init_sink(&p, &enav_prom_snapshot_sink, all);
	write_document(&p);
	size_t base = enav_prom_snapshot_bytes(empty);
	size_t full = enav_prom_snapshot_bytes(all);
	/* 1,200 points, 900 of them with a label of about 34 bytes. */
	assert_true(full > base + 900 * 34);
	uint64_t malformed, over_cap;
	enav_prom_snapshot_counts(all, &malformed, &over_cap);
	assert_int_equal(over_cap, 0);

	/* Room for the points' array and a little: most samples are refused. */
	struct enav_prom_snapshot *capped = enav_prom_snapshot_new(base + 16384);
	assert_non_null(capped);
	enav_promtext_init_sink(&p, &enav_prom_snapshot_sink, capped);
	write_document(&p);
	enav_prom_snapshot_counts(capped, &malformed, &over_cap);
	assert_int_equal(malformed, 0);
	assert_true(over_cap > 600 && over_cap < 1202);
	/* Held stays near the cap: at most one sample's labels and one array
	 * growth past it. */
	assert_true(enav_prom_snapshot_bytes(capped) < base + 16384 + 64 * 1024);
	struct enav_pb_writer w;
	enav_pb_writer_init(&w, (size_t)4 << 20);
	struct enav_otlp_kv kv = {.key = "service.name", .type = ENAV_OTLP_STR, .s = "enav"};
	struct enav_otlp_resource r = {&kv, 1};
	assert_int_equal(enav_prom_encode_otlp(&w, capped, &r,
					       (struct enav_otlp_scope){"enav", "0"}, 1, 2, NULL),
			 0);
	assert_true(has_bytes(w.buf, w.len, "enav_first")); /* written before the cap */
	enav_pb_writer_free(&w);
	enav_prom_snapshot_free(capped);
	enav_prom_snapshot_free(all);
	enav_prom_snapshot_free(empty);
}

/* The exporter's snapshot, fed by the writer's calls, encodes to the very
 * bytes that rendering the same calls as text and parsing it gave. */
static void test_sink_equals_text_round_trip(void **state)
{
	void (*const docs[])(struct enav_promtext *) = {write_document, write_awkward};
	for (size_t d = 0; d < 2; d++) {
		struct enav_promtext text;
		assert_int_equal(enav_promtext_init_growable(&text, (size_t)16 << 20), 0);
		docs[d](&text);
		struct enav_prom_snapshot *parsed = enav_prom_parse(text.buf, text.len);
		struct enav_prom_snapshot *fed = enav_prom_snapshot_new(SIZE_MAX);
		assert_non_null(parsed);
		assert_non_null(fed);
		struct enav_promtext sink;
		enav_promtext_init_sink(&sink, &enav_prom_snapshot_sink, fed);
		docs[d](&sink);
		uint64_t m1, o1, m2, o2;
		enav_prom_snapshot_counts(parsed, &m1, &o1);
		enav_prom_snapshot_counts(fed, &m2, &o2);
		assert_int_equal(m1, m2);
		assert_int_equal(o1, o2);
		assert_int_equal(m1, d == 1 ? 2 : 0); /* the long value, the 17 labels */
		struct enav_pb_writer a, b;
		encode_snapshot(parsed, &a);
		encode_snapshot(fed, &b);
		assert_int_equal(a.len, b.len);
		assert_memory_equal(a.buf, b.buf, a.len);
		if (d == 1) {
			assert_true(has_bytes(b.buf, b.len, "quote \" back \\ line \n end"));
			assert_true(has_bytes(b.buf, b.len, "enav_cached"));
			assert_true(has_bytes(b.buf, b.len, "enav_orphan"));
		}
		enav_pb_writer_free(&a);
		enav_pb_writer_free(&b);
		enav_prom_snapshot_free(parsed);
		enav_prom_snapshot_free(fed);
		enav_promtext_free(&text);
	}
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
	    cmocka_unit_test(test_sink_equals_text_round_trip),
	    cmocka_unit_test(test_snapshot_byte_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
