/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the protobuf wire format (src/platform/protobuf.c) and the pprof
 * builder and decoder (src/model/pprof_builder.c, pprof_decoder.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "model/pprof.h"
#include "platform/protobuf.h"

/* A regression check: print what went wrong, then fail. */
#define FAIL_IF(cond, ...)                                                                         \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_message(__VA_ARGS__);                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static struct enav_pb_reader reader_of(const struct enav_pb_writer *w)
{
	return (struct enav_pb_reader){w->buf, w->buf + w->len};
}

/* ---- protobuf writer / reader ---- */

static void test_pb_varint_edges(void **state)
{
	static const struct {
		uint64_t v;
		size_t len; /* encoded value bytes */
	} cases[] = {
	    {0, 1},	      {1, 1},	       {127, 1},
	    {128, 2},	      {300, 2},	       {16383, 2},
	    {16384, 3},	      {UINT32_MAX, 5}, {(uint64_t)1 << 63, 10},
	    {UINT64_MAX, 10},
	};
	static const uint32_t fields[] = {1, 15, 16, 2047, 2048, (1u << 29) - 1};
	struct enav_pb_writer w;

	for (size_t fi = 0; fi < ARRAY_LEN(fields); fi++) {
		enav_pb_writer_init(&w, 0);
		for (size_t i = 0; i < ARRAY_LEN(cases); i++)
			enav_pb_varint(&w, fields[fi], cases[i].v);
		assert_false(w.failed);

		struct enav_pb_reader r = reader_of(&w);
		struct enav_pb_field f;

		for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
			const uint8_t *before = r.p;

			assert_int_equal(enav_pb_next(&r, &f), 1);
			assert_int_equal(f.number, fields[fi]);
			assert_int_equal(f.wire, ENAV_PB_VARINT);
			FAIL_IF(f.u64 != cases[i].v, "field %u: read %llu, wrote %llu\n",
				fields[fi], (unsigned long long)f.u64,
				(unsigned long long)cases[i].v);
			size_t tag_len = 1;

			for (uint64_t t = (uint64_t)fields[fi] << 3; t >= 0x80; t >>= 7)
				tag_len++;

			assert_int_equal((size_t)(r.p - before), tag_len + cases[i].len);
		}
		assert_int_equal(enav_pb_next(&r, &f), 0);
		enav_pb_writer_free(&w);
	}

	/* Exact bytes of a few encodings. */
	enav_pb_writer_init(&w, 0);
	enav_pb_varint(&w, 1, 128);
	enav_pb_varint(&w, 2, UINT64_MAX);
	enav_pb_varint(&w, 3, (uint64_t)1 << 63);
	static const uint8_t want[] = {0x08, 0x80, 0x01, 0x10, 0xff, 0xff, 0xff, 0xff, 0xff,
				       0xff, 0xff, 0xff, 0xff, 0x01, 0x18, 0x80, 0x80, 0x80,
				       0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
	assert_int_equal(w.len, sizeof(want));
	assert_memory_equal(w.buf, want, sizeof(want));
	enav_pb_writer_free(&w);

	/* Field numbers 0 and > 2^29-1 cannot be written. */
	enav_pb_writer_init(&w, 0);
	enav_pb_varint(&w, 0, 1);
	assert_true(w.failed);
	enav_pb_writer_free(&w);
	enav_pb_writer_init(&w, 0);
	enav_pb_varint(&w, 1u << 29, 1);
	assert_true(w.failed);
	enav_pb_writer_free(&w);
}

static void test_pb_zigzag_and_scalars(void **state)
{
	static const struct {
		int64_t v;
		uint64_t zz;
	} zz[] = {
	    {0, 0},
	    {-1, 1},
	    {1, 2},
	    {-2, 3},
	    {2147483647, 4294967294u},
	    {-2147483648LL, 4294967295u},
	    {INT64_MAX, UINT64_MAX - 1},
	    {INT64_MIN, UINT64_MAX},
	};
	struct enav_pb_writer w;
	struct enav_pb_field f;

	enav_pb_writer_init(&w, 0);
	for (size_t i = 0; i < ARRAY_LEN(zz); i++)
		enav_pb_sint64(&w, 7, zz[i].v);
	enav_pb_fixed64(&w, 8, 0x0123456789abcdefull);
	enav_pb_double(&w, 9, -2.5);
	enav_pb_bytes(&w, 10, "\0\1\2", 3);
	enav_pb_bytes(&w, 10, NULL, 0);
	enav_pb_string(&w, 11, "hello");
	enav_pb_string(&w, 11, NULL);
	static const uint64_t packed[] = {0, 1, 127, 128, UINT64_MAX, 300};
	enav_pb_packed_varints(&w, 12, packed, ARRAY_LEN(packed));
	enav_pb_packed_varints(&w, 13, packed, 0); /* absent */
	assert_false(w.failed);

	struct enav_pb_reader r = reader_of(&w);

	for (size_t i = 0; i < ARRAY_LEN(zz); i++) {
		assert_int_equal(enav_pb_next(&r, &f), 1);
		assert_int_equal(f.number, 7);
		FAIL_IF(f.u64 != zz[i].zz, "zigzag(%lld) = %llu, want %llu\n", (long long)zz[i].v,
			(unsigned long long)f.u64, (unsigned long long)zz[i].zz);
	}
	assert_int_equal(enav_pb_next(&r, &f), 1);
	assert_int_equal(f.wire, ENAV_PB_I64);
	assert_true(f.u64 == 0x0123456789abcdefull);
	assert_int_equal(enav_pb_next(&r, &f), 1);
	double d;
	memcpy(&d, &f.u64, sizeof(d));
	assert_true(f.wire == ENAV_PB_I64 && d == -2.5);
	assert_int_equal(enav_pb_next(&r, &f), 1);
	assert_true(f.wire == ENAV_PB_LEN && f.len == 3 && memcmp(f.ptr, "\0\1\2", 3) == 0);
	assert_int_equal(enav_pb_next(&r, &f), 1);
	assert_true(f.number == 10 && f.len == 0);
	assert_int_equal(enav_pb_next(&r, &f), 1);
	assert_true(f.number == 11 && f.len == 5 && memcmp(f.ptr, "hello", 5) == 0);
	assert_int_equal(enav_pb_next(&r, &f), 1);
	assert_true(f.number == 11 && f.len == 0);
	assert_int_equal(enav_pb_next(&r, &f), 1);
	assert_true(f.number == 12 && f.wire == ENAV_PB_LEN);

	struct enav_pb_reader pr = {f.ptr, f.ptr + f.len};
	uint64_t v;

	for (size_t i = 0; i < ARRAY_LEN(packed); i++) {
		assert_int_equal(enav_pb_read_varint(&pr, &v), 1);
		assert_true(v == packed[i]);
	}
	assert_int_equal(enav_pb_read_varint(&pr, &v), 0);
	assert_int_equal(enav_pb_next(&r, &f), 0);
	enav_pb_writer_free(&w);
}

/* Three levels deep, with payloads that need 1-, 2- and 3-byte lengths. */
static void test_pb_nested(void **state)
{
	static const size_t sizes[] = {0, 5, 127, 128, 300, 16383, 16384, 70000};
	char *blob = malloc(70000);

	assert_non_null(blob);
	for (size_t i = 0; i < 70000; i++)
		blob[i] = (char)('a' + i % 26);
	for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
		struct enav_pb_writer w;
		struct enav_pb_field f;

		enav_pb_writer_init(&w, 0);
		enav_pb_varint(&w, 1, 11);
		enav_pb_begin(&w, 2);
		enav_pb_varint(&w, 1, 22);
		enav_pb_begin(&w, 3);
		enav_pb_varint(&w, 1, 33);
		enav_pb_begin(&w, 4);
		enav_pb_bytes(&w, 5, blob, sizes[si]);
		enav_pb_sint64(&w, 6, -44);
		enav_pb_end(&w);
		enav_pb_varint(&w, 2, 333);
		enav_pb_end(&w);
		enav_pb_end(&w);
		enav_pb_varint(&w, 3, 111);
		assert_false(w.failed);
		assert_int_equal(w.depth, 0);

		struct enav_pb_reader r0 = reader_of(&w), r1, r2, r3;

		assert_int_equal(enav_pb_next(&r0, &f), 1);
		assert_true(f.number == 1 && f.u64 == 11);
		assert_int_equal(enav_pb_next(&r0, &f), 1);
		assert_true(f.number == 2 && f.wire == ENAV_PB_LEN);
		r1 = (struct enav_pb_reader){f.ptr, f.ptr + f.len};
		assert_int_equal(enav_pb_next(&r0, &f), 1);
		assert_true(f.number == 3 && f.u64 == 111);
		assert_int_equal(enav_pb_next(&r0, &f), 0);

		assert_int_equal(enav_pb_next(&r1, &f), 1);
		assert_true(f.number == 1 && f.u64 == 22);
		assert_int_equal(enav_pb_next(&r1, &f), 1);
		assert_true(f.number == 3 && f.wire == ENAV_PB_LEN);
		r2 = (struct enav_pb_reader){f.ptr, f.ptr + f.len};
		assert_int_equal(enav_pb_next(&r1, &f), 0);

		assert_int_equal(enav_pb_next(&r2, &f), 1);
		assert_true(f.number == 1 && f.u64 == 33);
		assert_int_equal(enav_pb_next(&r2, &f), 1);
		assert_true(f.number == 4 && f.wire == ENAV_PB_LEN);
		r3 = (struct enav_pb_reader){f.ptr, f.ptr + f.len};
		assert_int_equal(enav_pb_next(&r2, &f), 1);
		assert_true(f.number == 2 && f.u64 == 333);
		assert_int_equal(enav_pb_next(&r2, &f), 0);

		assert_int_equal(enav_pb_next(&r3, &f), 1);
		FAIL_IF(f.number != 5 || f.len != sizes[si] ||
			    (sizes[si] && memcmp(f.ptr, blob, sizes[si]) != 0),
			"innermost bytes of %zu: got field %u len %zu\n", sizes[si], f.number,
			f.len);
		assert_int_equal(enav_pb_next(&r3, &f), 1);
		assert_true(f.number == 6 && f.u64 == 87); /* zigzag(-44) */
		assert_int_equal(enav_pb_next(&r3, &f), 0);
		enav_pb_writer_free(&w);
	}
	free(blob);
}

static void test_pb_writer_failures(void **state)
{
	struct enav_pb_writer w;
	char big[64] = {0};

	/* The limit is hard and failure sticky. */
	enav_pb_writer_init(&w, 16);
	enav_pb_bytes(&w, 1, big, 10);
	assert_false(w.failed);
	assert_int_equal(w.len, 12);
	enav_pb_bytes(&w, 1, big, 10);
	assert_true(w.failed);
	assert_true(w.len <= 16);
	size_t len = w.len;
	enav_pb_varint(&w, 1, 1);
	assert_true(w.failed);
	assert_int_equal(w.len, len);
	enav_pb_writer_free(&w);

	/* Exactly at the limit is fine; one more byte is not. */
	enav_pb_writer_init(&w, 12);
	enav_pb_bytes(&w, 1, big, 10);
	assert_false(w.failed);
	enav_pb_varint(&w, 1, 0);
	assert_true(w.failed);
	enav_pb_writer_free(&w);

	/* A submessage whose length grows to two bytes past the limit. */
	enav_pb_writer_init(&w, 130);
	enav_pb_begin(&w, 1);
	enav_pb_bytes(&w, 2, big, 60);
	enav_pb_bytes(&w, 2, big, 64); /* payload 128: length needs 2 bytes -> 131 */
	assert_false(w.failed);
	enav_pb_end(&w);
	assert_true(w.failed);
	enav_pb_writer_free(&w);

	/* Depth overflow and unbalanced end. */
	enav_pb_writer_init(&w, 0);
	for (int i = 0; i < ENAV_PB_MAX_DEPTH; i++)
		enav_pb_begin(&w, 1);
	assert_false(w.failed);
	enav_pb_begin(&w, 1);
	assert_true(w.failed);
	enav_pb_writer_free(&w);
	enav_pb_writer_init(&w, 0);
	enav_pb_end(&w);
	assert_true(w.failed);
	enav_pb_writer_free(&w);
}

static void test_pb_reader_rejects(void **state)
{
	static const struct {
		const char *what;
		uint8_t b[16];
		size_t n;
	} bad[] = {
	    {"truncated tag", {0x80}, 1},
	    {"truncated varint value", {0x08, 0x80}, 2},
	    {"varint of 11 bytes",
	     {0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01},
	     12},
	    {"10th varint byte overflows",
	     {0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
	     11},
	    {"LEN beyond end", {0x12, 0x05, 'a', 'b'}, 4},
	    {"LEN length truncated", {0x12, 0x80}, 2},
	    {"LEN of 2^63", {0x12, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, 11},
	    {"group start (3)", {0x0b, 0x00}, 2},
	    {"group end (4)", {0x0c}, 1},
	    {"wire type 6", {0x0e, 0x00}, 2},
	    {"wire type 7", {0x0f, 0x00}, 2},
	    {"field 0", {0x00, 0x01}, 2},
	    {"field 0 LEN", {0x02, 0x00}, 2},
	    {"field above 2^29-1", {0xf8, 0xff, 0xff, 0xff, 0x7f, 0x00}, 6},
	    {"truncated fixed64", {0x09, 1, 2, 3, 4, 5, 6, 7}, 8},
	    {"truncated fixed32", {0x0d, 1, 2, 3}, 4},
	};
	struct enav_pb_field f;

	for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
		struct enav_pb_reader r = {bad[i].b, bad[i].b + bad[i].n};
		int rc = enav_pb_next(&r, &f);

		FAIL_IF(rc != -1, "%s: enav_pb_next returned %d, want -1\n", bad[i].what, rc);
		FAIL_IF(r.p != bad[i].b, "%s: reader advanced on error\n", bad[i].what);
	}

	/* The largest field number and a full 10-byte varint are fine. */
	static const uint8_t ok[] = {0xf8, 0xff, 0xff, 0xff, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xff,
				     0xff, 0xff, 0xff, 0xff, 0x01, 0x0d, 1,    2,    3,	   4,
				     0x09, 1,	 2,    3,    4,	   5,	 6,    7,    8};
	struct enav_pb_reader r = {ok, ok + sizeof(ok)};

	assert_int_equal(enav_pb_next(&r, &f), 1);
	assert_true(f.number == (1u << 29) - 1 && f.u64 == UINT64_MAX);
	assert_int_equal(enav_pb_next(&r, &f), 1);
	assert_true(f.wire == ENAV_PB_I32 && f.u64 == 0x04030201);
	assert_int_equal(enav_pb_next(&r, &f), 1);
	assert_true(f.wire == ENAV_PB_I64 && f.u64 == 0x0807060504030201ull);
	assert_int_equal(enav_pb_next(&r, &f), 0);

	/* Empty and NULL ranges are a clean end. */
	struct enav_pb_reader empty = {ok, ok}, null = {NULL, NULL};

	assert_int_equal(enav_pb_next(&empty, &f), 0);
	assert_int_equal(enav_pb_next(&null, &f), 0);
}

/* ---- pprof ---- */

static const struct enav_pprof_value_type g_types[] = {
    {"samples", "count"},
    {"cpu", "nanoseconds"},
};
static const struct enav_pprof_value_type g_period = {"cpu", "nanoseconds"};

static const char *S(const struct enav_pprof_decoded *d, int64_t idx)
{
	assert_true(idx >= 0 && (uint64_t)idx < d->n_strings);
	return d->strings[idx];
}

static const struct enav_pprof_decoded_location *find_loc(const struct enav_pprof_decoded *d,
							  uint64_t id)
{
	for (size_t i = 0; i < d->n_locations; i++)
		if (d->locations[i].id == id)
			return &d->locations[i];
	fail_msg("location %llu not found", (unsigned long long)id);
	return NULL;
}

static const struct enav_pprof_decoded_function *find_fn(const struct enav_pprof_decoded *d,
							 uint64_t id)
{
	for (size_t i = 0; i < d->n_functions; i++)
		if (d->functions[i].id == id)
			return &d->functions[i];
	fail_msg("function %llu not found", (unsigned long long)id);
	return NULL;
}

static const struct enav_pprof_decoded_mapping *find_map(const struct enav_pprof_decoded *d,
							 uint64_t id)
{
	for (size_t i = 0; i < d->n_mappings; i++)
		if (d->mappings[i].id == id)
			return &d->mappings[i];
	fail_msg("mapping %llu not found", (unsigned long long)id);
	return NULL;
}

struct built {
	uint64_t m_app, m_libc, l_main, l_main43, l_work, l_libc, l_kernel;
};

static struct enav_pprof *build_profile(struct built *b)
{
	struct enav_pprof *p =
	    enav_pprof_new(g_types, 2, g_period, 10000000, 1700000000000000000, 5000000000, NULL);

	assert_non_null(p);
	b->m_app = enav_pprof_mapping(p, 0x400000, 0x500000, 0x1000, "/usr/bin/app", "abcdef01");
	b->m_libc =
	    enav_pprof_mapping(p, 0x7f0000000000, 0x7f0000200000, 0, "/lib/libc.so.6", NULL);
	assert_int_equal(
	    enav_pprof_mapping(p, 0x400000, 0x500000, 0x1000, "/usr/bin/app", "abcdef01"),
	    b->m_app);
	assert_true(b->m_app != 0 && b->m_libc != 0 && b->m_app != b->m_libc);

	b->l_main = enav_pprof_location(p, b->m_app, 0x401000, "main", "app.c", 42);
	b->l_main43 = enav_pprof_location(p, b->m_app, 0x401004, "main", "app.c", 43);
	b->l_work = enav_pprof_location(p, b->m_app, 0x401100, "work", "app.c", 10);
	b->l_libc = enav_pprof_location(p, b->m_libc, 0x7f0000001234, NULL, NULL, 0);
	b->l_kernel = enav_pprof_location(p, 0, 0xffffffff81000000ull, "do_syscall_64", NULL, 0);
	assert_int_equal(enav_pprof_location(p, b->m_app, 0x401000, "main", "app.c", 42),
			 b->l_main);
	assert_int_equal(enav_pprof_location(p, b->m_libc, 0x7f0000001234, NULL, NULL, 0),
			 b->l_libc);
	/* Unknown mapping id. */
	assert_int_equal(enav_pprof_location(p, 99, 1, NULL, NULL, 0), 0);

	uint64_t stack1[] = {b->l_libc, b->l_work, b->l_main};
	int64_t v1[] = {1, 10000000};
	struct enav_pprof_label lb1[] = {
	    {.key = "thread", .str = "worker"},
	    {.key = "bytes", .num = 4096, .num_unit = "bytes"},
	    {.key = "delta", .num = -7},
	};
	uint64_t stack2[] = {b->l_kernel, b->l_main43};
	int64_t v2[] = {2, 20000000};

	assert_int_equal(enav_pprof_sample(p, stack1, 3, v1, 2, lb1, 3), 0);
	assert_int_equal(enav_pprof_sample(p, stack2, 2, v2, 2, NULL, 0), 0);
	assert_int_equal(enav_pprof_sample(p, NULL, 0, v2, 2, NULL, 0), 0);
	enav_pprof_comment(p, "hello");
	enav_pprof_comment(p, "enav test");
	return p;
}

/* Mapping.has_functions of mapping id, read from the raw encoding. */
static bool raw_has_functions(const uint8_t *buf, size_t len, uint64_t id)
{
	struct enav_pb_reader r = {buf, buf + len};
	struct enav_pb_field f;

	while (enav_pb_next(&r, &f) == 1) {
		if (f.number != 3)
			continue;
		struct enav_pb_reader m = {f.ptr, f.ptr + f.len};
		struct enav_pb_field mf;
		uint64_t mid = 0, hf = 0;

		while (enav_pb_next(&m, &mf) == 1) {
			if (mf.number == 1)
				mid = mf.u64;
			else if (mf.number == 7)
				hf = mf.u64;
		}
		if (mid == id)
			return hf != 0;
	}
	fail_msg("mapping %llu not in the encoding", (unsigned long long)id);
	return false;
}

static void check_decoded(const struct enav_pprof_decoded *d, const struct built *b)
{
	assert_true(d->n_strings > 0);
	assert_string_equal(d->strings[0], "");

	assert_int_equal(d->n_sample_types, 2);
	assert_string_equal(S(d, d->sample_types[0].type), "samples");
	assert_string_equal(S(d, d->sample_types[0].unit), "count");
	assert_string_equal(S(d, d->sample_types[1].type), "cpu");
	assert_string_equal(S(d, d->sample_types[1].unit), "nanoseconds");
	assert_string_equal(S(d, d->period_type.type), "cpu");
	assert_string_equal(S(d, d->period_type.unit), "nanoseconds");
	assert_int_equal(d->period, 10000000);
	assert_int_equal(d->time_nanos, 1700000000000000000);
	assert_int_equal(d->duration_nanos, 5000000000);
	assert_int_equal(d->n_comments, 2);
	assert_string_equal(S(d, d->comments[0]), "hello");
	assert_string_equal(S(d, d->comments[1]), "enav test");

	/* Every string once. */
	for (size_t i = 0; i < d->n_strings; i++)
		for (size_t j = i + 1; j < d->n_strings; j++)
			FAIL_IF(strcmp(d->strings[i], d->strings[j]) == 0,
				"string \"%s\" at %zu and %zu\n", d->strings[i], i, j);

	assert_int_equal(d->n_mappings, 2);
	const struct enav_pprof_decoded_mapping *ma = find_map(d, b->m_app);
	const struct enav_pprof_decoded_mapping *ml = find_map(d, b->m_libc);

	assert_true(ma->start == 0x400000 && ma->limit == 0x500000 && ma->offset == 0x1000);
	assert_string_equal(S(d, ma->filename), "/usr/bin/app");
	assert_string_equal(S(d, ma->build_id), "abcdef01");
	assert_true(ml->start == 0x7f0000000000 && ml->limit == 0x7f0000200000 && ml->offset == 0);
	assert_string_equal(S(d, ml->filename), "/lib/libc.so.6");
	assert_int_equal(ml->build_id, 0);

	assert_int_equal(d->n_locations, 5);
	assert_int_equal(d->n_functions, 3);
	for (size_t i = 0; i < d->n_locations; i++)
		assert_true(d->locations[i].id != 0);
	const struct enav_pprof_decoded_location *l;

	l = find_loc(d, b->l_main);
	assert_true(l->mapping_id == b->m_app && l->address == 0x401000 && l->line == 42);
	assert_string_equal(S(d, find_fn(d, l->function_id)->name), "main");
	assert_string_equal(S(d, find_fn(d, l->function_id)->system_name), "main");
	assert_string_equal(S(d, find_fn(d, l->function_id)->filename), "app.c");
	uint64_t main_fn = l->function_id;

	l = find_loc(d, b->l_main43);
	assert_true(l->line == 43 && l->function_id == main_fn && l->address == 0x401004);
	l = find_loc(d, b->l_work);
	assert_true(l->line == 10 && l->function_id != main_fn);
	assert_string_equal(S(d, find_fn(d, l->function_id)->name), "work");
	l = find_loc(d, b->l_libc);
	FAIL_IF(l->function_id != 0 || l->line != 0,
		"unsymbolized location has function %llu line %lld\n",
		(unsigned long long)l->function_id, (long long)l->line);
	assert_true(l->mapping_id == b->m_libc && l->address == 0x7f0000001234);
	l = find_loc(d, b->l_kernel);
	assert_true(l->mapping_id == 0 && l->address == 0xffffffff81000000ull);
	assert_string_equal(S(d, find_fn(d, l->function_id)->name), "do_syscall_64");
	assert_int_equal(find_fn(d, l->function_id)->filename, 0);

	assert_int_equal(d->n_samples, 3);
	const struct enav_pprof_decoded_sample *s = &d->samples[0];

	assert_int_equal(s->n_locations, 3);
	assert_true(s->location_ids[0] == b->l_libc && s->location_ids[1] == b->l_work &&
		    s->location_ids[2] == b->l_main);
	assert_int_equal(s->n_values, 2);
	assert_true(s->values[0] == 1 && s->values[1] == 10000000);
	assert_int_equal(s->n_labels, 3);
	assert_string_equal(S(d, s->labels[0].key), "thread");
	assert_string_equal(S(d, s->labels[0].str), "worker");
	assert_string_equal(S(d, s->labels[1].key), "bytes");
	assert_true(s->labels[1].str == 0 && s->labels[1].num == 4096);
	assert_string_equal(S(d, s->labels[1].num_unit), "bytes");
	assert_true(s->labels[2].num == -7 && s->labels[2].num_unit == 0);
	s = &d->samples[1];
	assert_true(s->n_locations == 2 && s->location_ids[0] == b->l_kernel &&
		    s->location_ids[1] == b->l_main43);
	assert_true(s->n_values == 2 && s->values[0] == 2 && s->values[1] == 20000000);
	assert_int_equal(s->n_labels, 0);
	s = &d->samples[2];
	assert_true(s->n_locations == 0 && s->n_values == 2);
}

static void test_pprof_round_trip(void **state)
{
	struct built b;
	struct enav_pprof *p = build_profile(&b);
	struct enav_pprof_counts c;
	struct enav_pprof_decoded d;
	char err[256];
	uint8_t *raw, *gz;
	size_t raw_len, gz_len;

	enav_pprof_get_counts(p, &c);
	assert_int_equal(c.samples, 3);
	assert_int_equal(c.locations, 5);
	assert_int_equal(c.functions, 3);
	assert_int_equal(c.mappings, 2);
	assert_int_equal(c.dropped_samples, 0);

	assert_int_equal(enav_pprof_encode(p, false, &raw, &raw_len), 0);
	assert_int_equal(enav_pprof_encode(p, true, &gz, &gz_len), 0);
	assert_true(gz_len > 10 && gz[0] == 0x1f && gz[1] == 0x8b);
	assert_true(raw[0] != 0x1f);

	FAIL_IF(!raw_has_functions(raw, raw_len, b.m_app), "app mapping lacks has_functions\n");
	FAIL_IF(raw_has_functions(raw, raw_len, b.m_libc),
		"libc mapping (unsymbolized only) has has_functions\n");

	int rc = enav_pprof_decode(raw, raw_len, 0, &d, err, sizeof(err));

	FAIL_IF(rc != 0, "raw decode: %d %s\n", rc, err);
	check_decoded(&d, &b);
	assert_int_equal(d.n_strings, c.strings);
	enav_pprof_decoded_free(&d);

	rc = enav_pprof_decode(gz, gz_len, 0, &d, err, sizeof(err));
	FAIL_IF(rc != 0, "gzip decode: %d %s\n", rc, err);
	check_decoded(&d, &b);
	enav_pprof_decoded_free(&d);

	/* gunzip gives back the raw encoding byte for byte. */
	uint8_t *plain = malloc(raw_len + 16);
	uLongf plain_len = raw_len + 16;
	z_stream zs = {0};

	assert_non_null(plain);
	assert_int_equal(inflateInit2(&zs, 15 + 16), Z_OK);
	zs.next_in = gz;
	zs.avail_in = (uInt)gz_len;
	zs.next_out = plain;
	zs.avail_out = (uInt)plain_len;
	assert_int_equal(inflate(&zs, Z_FINISH), Z_STREAM_END);
	assert_int_equal(zs.total_out, raw_len);
	assert_memory_equal(plain, raw, raw_len);
	inflateEnd(&zs);
	free(plain);

	/* Encoding twice gives the same bytes. */
	uint8_t *again;
	size_t again_len;

	assert_int_equal(enav_pprof_encode(p, false, &again, &again_len), 0);
	assert_true(again_len == raw_len && memcmp(again, raw, raw_len) == 0);
	free(again);
	free(raw);
	free(gz);
	enav_pprof_free(p);
}

static void test_pprof_bad_args(void **state)
{
	assert_null(enav_pprof_new(g_types, 0, g_period, 0, 0, 0, NULL));
	assert_null(enav_pprof_new(NULL, 1, g_period, 0, 0, 0, NULL));

	struct enav_pprof *p = enav_pprof_new(g_types, 2, g_period, 0, 0, 0, NULL);
	uint64_t loc = enav_pprof_location(p, 0, 0x10, NULL, NULL, 0);
	int64_t v[3] = {1, 2, 3};
	struct enav_pprof_label nokey = {.str = "x"};
	struct enav_pprof_counts c;

	assert_true(loc != 0);
	assert_int_equal(enav_pprof_sample(p, &loc, 1, v, 1, NULL, 0), -EINVAL);
	assert_int_equal(enav_pprof_sample(p, &loc, 1, v, 3, NULL, 0), -EINVAL);
	assert_int_equal(enav_pprof_sample(p, &loc, 1, NULL, 2, NULL, 0), -EINVAL);
	uint64_t dangling = loc + 1;
	assert_int_equal(enav_pprof_sample(p, &dangling, 1, v, 2, NULL, 0), -EINVAL);
	assert_int_equal(enav_pprof_sample(p, &loc, 1, v, 2, &nokey, 1), -EINVAL);
	assert_int_equal(enav_pprof_sample(p, &loc, 1, v, 2, NULL, 0), 0);
	enav_pprof_get_counts(p, &c);
	assert_int_equal(c.samples, 1);
	assert_int_equal(c.dropped_samples, 0);
	enav_pprof_free(p);
}

/* What makes a mapping, function and location the same. */
static void test_pprof_dedup_keys(void **state)
{
	struct enav_pprof *p = enav_pprof_new(g_types, 2, g_period, 0, 0, 0, NULL);
	struct enav_pprof_counts c;

	assert_non_null(p);
	uint64_t m = enav_pprof_mapping(p, 0x1000, 0x2000, 0, "/a", NULL);

	/* (start, limit, file): offset and build id do not split a mapping. */
	assert_int_equal(enav_pprof_mapping(p, 0x1000, 0x2000, 0x10, "/a", "bid"), m);
	assert_true(enav_pprof_mapping(p, 0x1000, 0x2000, 0, "/b", NULL) != m);
	assert_true(enav_pprof_mapping(p, 0x1000, 0x3000, 0, "/a", NULL) != m);
	assert_true(enav_pprof_mapping(p, 0x1800, 0x2000, 0, "/a", NULL) != m);

	uint64_t l = enav_pprof_location(p, m, 0x1100, "f", "f.c", 3);

	assert_int_equal(enav_pprof_location(p, m, 0x1100, "f", "f.c", 3), l);
	assert_true(enav_pprof_location(p, m, 0x1100, "f", "f.c", 4) != l);
	assert_true(enav_pprof_location(p, m, 0x1100, "f", "g.c", 3) != l);
	assert_true(enav_pprof_location(p, m, 0x1100, "g", "f.c", 3) != l);
	assert_true(enav_pprof_location(p, m, 0x1104, "f", "f.c", 3) != l);
	assert_true(enav_pprof_location(p, 0, 0x1100, "f", "f.c", 3) != l);
	assert_true(enav_pprof_location(p, m, 0x1100, NULL, NULL, 0) != l);
	/* Unsymbolized: the line is meaningless and ignored. */
	assert_int_equal(enav_pprof_location(p, m, 0x1100, NULL, NULL, 9),
			 enav_pprof_location(p, m, 0x1100, NULL, "x.c", 0));
	enav_pprof_get_counts(p, &c);
	assert_int_equal(c.mappings, 4);
	assert_int_equal(c.locations, 7);
	assert_int_equal(c.functions, 3); /* f/f.c, f/g.c, g/f.c */
	enav_pprof_free(p);
}

static void test_pprof_caps(void **state)
{
	struct enav_pprof_limits lim = {.max_samples = 2, .max_locations = 2, .max_strings = 20};
	struct enav_pprof *p = enav_pprof_new(g_types, 2, g_period, 0, 0, 0, &lim);
	struct enav_pprof_counts c;
	int64_t v[2] = {1, 1};

	assert_non_null(p);
	uint64_t l1 = enav_pprof_location(p, 0, 1, "f1", NULL, 0);
	uint64_t l2 = enav_pprof_location(p, 0, 2, "f2", NULL, 0);
	uint64_t l3 = enav_pprof_location(p, 0, 3, "f3", NULL, 0);

	assert_true(l1 && l2);
	FAIL_IF(l3 != 0, "third location past max_locations=2 got id %llu\n",
		(unsigned long long)l3);
	/* An existing location is still found at the cap. */
	assert_int_equal(enav_pprof_location(p, 0, 1, "f1", NULL, 0), l1);

	/* A stack holding a refused frame is dropped and counted. */
	uint64_t st[] = {l1, l3};
	assert_int_equal(enav_pprof_sample(p, st, 2, v, 2, NULL, 0), -ENOSPC);
	assert_int_equal(enav_pprof_sample(p, &l1, 1, v, 2, NULL, 0), 0);
	assert_int_equal(enav_pprof_sample(p, &l2, 1, v, 2, NULL, 0), 0);
	int rc = enav_pprof_sample(p, &l1, 1, v, 2, NULL, 0);

	enav_pprof_get_counts(p, &c);
	FAIL_IF(rc != -ENOSPC || c.samples != 2 || c.dropped_samples != 2,
		"max_samples=2: third sample rc=%d samples=%llu dropped=%llu\n", rc,
		(unsigned long long)c.samples, (unsigned long long)c.dropped_samples);

	uint8_t *out;
	size_t len;
	struct enav_pprof_decoded d;
	char err[256];

	assert_int_equal(enav_pprof_encode(p, true, &out, &len), 0);
	rc = enav_pprof_decode(out, len, 0, &d, err, sizeof(err));
	FAIL_IF(rc != 0, "decode: %s\n", err);
	assert_int_equal(d.n_samples, 2);
	assert_int_equal(d.n_locations, 2);
	enav_pprof_decoded_free(&d);
	free(out);
	enav_pprof_free(p);

	/* max_strings: a label string past the cap drops the sample. */
	lim = (struct enav_pprof_limits){.max_strings = 7};
	p = enav_pprof_new(g_types, 2, g_period, 0, 0, 0, &lim); /* 5 strings */
	assert_non_null(p);
	struct enav_pprof_label lb[] = {{.key = "k", .str = "a"}};

	assert_int_equal(enav_pprof_sample(p, NULL, 0, v, 2, lb, 1), 0); /* 7 strings */
	lb[0].str = "b";
	assert_int_equal(enav_pprof_sample(p, NULL, 0, v, 2, lb, 1), -ENOSPC);
	enav_pprof_get_counts(p, &c);
	assert_true(c.strings == 7 && c.samples == 1 && c.dropped_samples == 1);
	enav_pprof_free(p);
}

/* max_bytes: samples stop fitting, the encoding stays within the cap and
 * comes close to it (the running size is exact but for mapping flags). */
static void test_pprof_max_bytes(void **state)
{
	static const size_t caps[] = {200, 1000, 4096, 20000};

	for (size_t ci = 0; ci < ARRAY_LEN(caps); ci++) {
		struct enav_pprof_limits lim = {.max_bytes = caps[ci]};
		struct enav_pprof *p = enav_pprof_new(g_types, 2, g_period, 1, 2, 3, &lim);
		struct enav_pprof_counts c;
		unsigned seed = 12345;
		int drops = 0;

		assert_non_null(p);
		uint64_t m = enav_pprof_mapping(p, 0x1000, 0x2000, 0, "/bin/x", "b1");

		for (int i = 0; i < 2000 && drops < 50; i++) {
			uint64_t st[8];
			size_t n = 0;
			int64_t v[2] = {i, (int64_t)i * 1000 - 500000};
			char fn[32];

			for (size_t k = 0; k < 1 + (size_t)(i % 8); k++) {
				seed = seed * 1103515245u + 12345u;
				snprintf(fn, sizeof(fn), "fn%u", (seed >> 16) % 40);
				uint64_t id = enav_pprof_location(
				    p, (seed & 1) ? m : 0, (seed >> 8) % 64, (seed & 2) ? fn : NULL,
				    "x.c", (seed >> 20) % 5);

				st[n++] = id;
			}
			struct enav_pprof_label lb = {.key = "i", .num = i};
			int rc = enav_pprof_sample(p, st, n, v, 2, &lb, 1);

			assert_true(rc == 0 || rc == -ENOSPC);
			drops += rc == -ENOSPC;
		}
		enav_pprof_get_counts(p, &c);
		assert_true(c.dropped_samples > 0);

		uint8_t *out;
		size_t len;
		struct enav_pprof_decoded d;
		char err[256];
		int rc = enav_pprof_encode(p, false, &out, &len);

		FAIL_IF(rc != 0 || len > caps[ci], "max_bytes %zu: encode rc=%d len=%zu\n",
			caps[ci], rc, len);
		FAIL_IF(len + 120 < caps[ci], "max_bytes %zu: only %zu bytes used\n", caps[ci],
			len);
		rc = enav_pprof_decode(out, len, caps[ci], &d, err, sizeof(err));
		FAIL_IF(rc != 0, "max_bytes %zu: decode: %s\n", caps[ci], err);
		assert_int_equal(d.n_samples, c.samples);
		assert_int_equal(d.n_locations, c.locations);
		assert_int_equal(d.n_strings, c.strings);
		enav_pprof_decoded_free(&d);
		free(out);
		enav_pprof_free(p);
	}
}

/* ---- decoder rejections on hand-made profiles ---- */

/* string_table "", "samples", "count"; one sample type. */
static void hand_base(struct enav_pb_writer *w)
{
	enav_pb_writer_init(w, 0);
	enav_pb_string(w, 6, "");
	enav_pb_string(w, 6, "samples");
	enav_pb_string(w, 6, "count");
	enav_pb_begin(w, 1);
	enav_pb_varint(w, 1, 1);
	enav_pb_varint(w, 2, 2);
	enav_pb_end(w);
}

static void hand_location(struct enav_pb_writer *w, uint64_t id, uint64_t mapping,
			  uint64_t function)
{
	enav_pb_begin(w, 4);
	enav_pb_varint(w, 1, id);
	if (mapping)
		enav_pb_varint(w, 2, mapping);
	enav_pb_varint(w, 3, 0x1234);
	if (function) {
		enav_pb_begin(w, 4);
		enav_pb_varint(w, 1, function);
		enav_pb_end(w);
	}
	enav_pb_end(w);
}

static void hand_sample(struct enav_pb_writer *w, const uint64_t *locs, size_t nl,
			const uint64_t *vals, size_t nv)
{
	enav_pb_begin(w, 2);
	enav_pb_packed_varints(w, 1, locs, nl);
	enav_pb_packed_varints(w, 2, vals, nv);
	enav_pb_end(w);
}

static void expect_reject(struct enav_pb_writer *w, int want, const char *what, const char *needle)
{
	struct enav_pprof_decoded d;
	char err[256] = "";

	assert_false(w->failed);
	int rc = enav_pprof_decode(w->buf, w->len, 0, &d, err, sizeof(err));

	FAIL_IF(rc != want, "%s: decode returned %d (%s), want %d\n", what, rc, err, want);
	FAIL_IF(needle && !strstr(err, needle), "%s: error \"%s\" lacks \"%s\"\n", what, err,
		needle);
	assert_null(d.strings);
	assert_int_equal(d.n_samples, 0);
	enav_pb_writer_free(w);
}

static void test_decode_rejects(void **state)
{
	struct enav_pb_writer w;
	static const uint64_t one = 1, two[] = {1, 2}, loc7 = 7;

	/* The base itself (plus a sample) decodes. */
	hand_base(&w);
	hand_location(&w, 1, 0, 0);
	hand_sample(&w, &one, 1, &one, 1);
	{
		struct enav_pprof_decoded d;
		char err[256];

		assert_int_equal(enav_pprof_decode(w.buf, w.len, 0, &d, err, sizeof(err)), 0);
		assert_int_equal(d.n_samples, 1);
		enav_pprof_decoded_free(&d);
		enav_pb_writer_free(&w);
	}

	hand_base(&w);
	enav_pb_begin(&w, 1);
	enav_pb_varint(&w, 1, 3); /* only 3 strings */
	enav_pb_end(&w);
	expect_reject(&w, -EINVAL, "sample_type string index 3", "string index");

	hand_base(&w);
	enav_pb_varint(&w, 13, (uint64_t)-1); /* comment -1 */
	expect_reject(&w, -EINVAL, "negative comment index", "string index");

	hand_base(&w);
	enav_pb_begin(&w, 2);
	enav_pb_packed_varints(&w, 2, &one, 1);
	enav_pb_begin(&w, 3);
	enav_pb_varint(&w, 1, 1);
	enav_pb_varint(&w, 2, 50);
	enav_pb_end(&w);
	enav_pb_end(&w);
	expect_reject(&w, -EINVAL, "label str index 50", "string index");

	hand_base(&w);
	enav_pb_begin(&w, 5);
	enav_pb_varint(&w, 1, 1);
	enav_pb_varint(&w, 2, 9);
	enav_pb_end(&w);
	expect_reject(&w, -EINVAL, "function name index 9", "string index");

	hand_base(&w);
	hand_location(&w, 1, 0, 0);
	hand_sample(&w, &loc7, 1, &one, 1);
	expect_reject(&w, -EINVAL, "dangling sample location id", "location id 7");

	hand_base(&w);
	hand_location(&w, 1, 0, 0);
	hand_sample(&w, &one, 1, two, 2);
	expect_reject(&w, -EINVAL, "two values for one sample type", "values");

	hand_base(&w);
	hand_location(&w, 1, 0, 0);
	hand_sample(&w, &one, 1, NULL, 0);
	expect_reject(&w, -EINVAL, "no values for one sample type", "values");

	hand_base(&w);
	hand_location(&w, 1, 3, 0);
	expect_reject(&w, -EINVAL, "dangling mapping id", "mapping id 3");

	hand_base(&w);
	hand_location(&w, 1, 0, 4);
	expect_reject(&w, -EINVAL, "dangling function id", "function id 4");

	hand_base(&w);
	hand_location(&w, 1, 0, 0);
	hand_location(&w, 1, 0, 0);
	expect_reject(&w, -EINVAL, "duplicate location id", "not unique");

	hand_base(&w);
	hand_location(&w, 0, 0, 0);
	expect_reject(&w, -EINVAL, "location id 0", "id 0");

	enav_pb_writer_init(&w, 0);
	enav_pb_string(&w, 6, "x");
	expect_reject(&w, -EINVAL, "string_table[0] not empty", "string_table[0]");

	enav_pb_writer_init(&w, 0);
	enav_pb_varint(&w, 9, 5);
	expect_reject(&w, -EINVAL, "no string table", "string_table");

	hand_base(&w);
	enav_pb_bytes(&w, 6, "a\0b", 3);
	expect_reject(&w, -EINVAL, "NUL in a string", "NUL");

	hand_base(&w);
	enav_pb_varint(&w, 2, 1); /* sample as a varint */
	expect_reject(&w, -EINVAL, "wrong wire type", "wire type");

	hand_base(&w);
	enav_pb_fixed64(&w, 9, 1); /* time_nanos as fixed64 */
	expect_reject(&w, -EINVAL, "time_nanos as I64", "wire type");

	/* Unknown fields of every wire type are skipped. */
	hand_base(&w);
	enav_pb_fixed64(&w, 100, 1);
	enav_pb_bytes(&w, 101, "zz", 2);
	enav_pb_varint(&w, 102, 3);
	{
		struct enav_pprof_decoded d;
		char err[256];

		assert_int_equal(enav_pprof_decode(w.buf, w.len, 0, &d, err, sizeof(err)), 0);
		enav_pprof_decoded_free(&d);
		enav_pb_writer_free(&w);
	}
}

/* A function table entry: id, name index. */
static void hand_function(struct enav_pb_writer *w, uint64_t id, uint64_t name)
{
	enav_pb_begin(w, 5);
	enav_pb_varint(w, 1, id);
	enav_pb_varint(w, 2, name);
	enav_pb_end(w);
}

/* A Location with several Lines (inlining): pairs of (function id, line). */
static void hand_inlined(struct enav_pb_writer *w, uint64_t id, const uint64_t *fl, size_t n)
{
	enav_pb_begin(w, 4);
	enav_pb_varint(w, 1, id);
	enav_pb_varint(w, 3, 0x4000 + id);
	for (size_t i = 0; i < n; i++) {
		enav_pb_begin(w, 4);
		enav_pb_varint(w, 1, fl[2 * i]);
		enav_pb_varint(w, 2, fl[2 * i + 1]);
		enav_pb_end(w);
	}
	enav_pb_end(w);
}

/* Every Line of a Location is kept, in order, and every one is validated. */
static void test_decode_lines(void **state)
{
	struct enav_pb_writer w;
	struct enav_pprof_decoded d;
	char err[256];
	static const uint64_t three[] = {1, 10, 2, 20, 1, 30}, two[] = {2, 5, 1, 6};
	static const uint64_t locs[] = {1, 2, 3}, one = 1;

	hand_base(&w); /* strings "", "samples", "count" */
	hand_function(&w, 1, 1);
	hand_function(&w, 2, 2);
	hand_inlined(&w, 1, three, 3);
	hand_location(&w, 2, 0, 0); /* no Line */
	hand_inlined(&w, 3, two, 2);
	hand_sample(&w, locs, 3, &one, 1);
	int rc = enav_pprof_decode(w.buf, w.len, 0, &d, err, sizeof(err));

	FAIL_IF(rc != 0, "decode: %d %s\n", rc, err);
	assert_int_equal(d.n_locations, 3);
	assert_int_equal(d.n_lines, 5);
	const struct enav_pprof_decoded_location *l = find_loc(&d, 1);

	assert_int_equal(l->n_lines, 3);
	for (size_t i = 0; i < 3; i++)
		FAIL_IF(l->lines[i].function_id != three[2 * i] ||
			    l->lines[i].line != (int64_t)three[2 * i + 1],
			"location 1 line %zu: function %llu line %lld\n", i,
			(unsigned long long)l->lines[i].function_id, (long long)l->lines[i].line);
	/* The first Line stays where callers of the one-Line view look. */
	assert_true(l->function_id == 1 && l->line == 10);
	l = find_loc(&d, 2);
	assert_true(l->n_lines == 0 && l->lines == NULL && l->function_id == 0);
	l = find_loc(&d, 3);
	assert_int_equal(l->n_lines, 2);
	assert_true(l->lines[0].function_id == 2 && l->lines[0].line == 5);
	assert_true(l->lines[1].function_id == 1 && l->lines[1].line == 6);
	assert_true(l->function_id == 2 && l->line == 5);
	assert_int_equal(d.default_sample_type, 0);
	enav_pprof_decoded_free(&d);
	enav_pb_writer_free(&w);

	/* A dangling function id in a later Line is rejected like the first. */
	static const uint64_t bad[] = {1, 10, 9, 11};

	hand_base(&w);
	hand_function(&w, 1, 1);
	hand_inlined(&w, 1, bad, 2);
	expect_reject(&w, -EINVAL, "dangling function id in Line 2", "function id 9");

	/* A Line field of the wrong wire type. */
	hand_base(&w);
	hand_function(&w, 1, 1);
	enav_pb_begin(&w, 4);
	enav_pb_varint(&w, 1, 1);
	enav_pb_varint(&w, 4, 1);
	enav_pb_end(&w);
	expect_reject(&w, -EINVAL, "Line as a varint", "wire type");

	/* default_sample_type is exposed and validated. */
	hand_base(&w);
	enav_pb_varint(&w, 14, 2);
	rc = enav_pprof_decode(w.buf, w.len, 0, &d, err, sizeof(err));
	FAIL_IF(rc != 0, "decode with default_sample_type: %s\n", err);
	assert_string_equal(S(&d, d.default_sample_type), "count");
	enav_pprof_decoded_free(&d);
	enav_pb_writer_free(&w);
	hand_base(&w);
	enav_pb_varint(&w, 14, 3);
	expect_reject(&w, -EINVAL, "default_sample_type index 3", "string index");
}

/* The builder writes default_sample_type, counts it in max_bytes, clears it. */
static void test_pprof_default_sample_type(void **state)
{
	struct enav_pprof *p = enav_pprof_new(g_types, 2, g_period, 0, 0, 0, NULL);
	struct enav_pprof_decoded d;
	uint8_t *out;
	size_t len;
	char err[256];

	assert_non_null(p);
	assert_int_equal(enav_pprof_default_sample_type(p, "samples"), 0);
	assert_int_equal(enav_pprof_default_sample_type(p, "cpu"), 0);
	assert_int_equal(enav_pprof_encode(p, false, &out, &len), 0);
	assert_int_equal(enav_pprof_decode(out, len, 0, &d, err, sizeof(err)), 0);
	assert_string_equal(S(&d, d.default_sample_type), "cpu");
	enav_pprof_decoded_free(&d);
	free(out);
	assert_int_equal(enav_pprof_default_sample_type(p, NULL), 0);
	assert_int_equal(enav_pprof_encode(p, false, &out, &len), 0);
	assert_int_equal(enav_pprof_decode(out, len, 0, &d, err, sizeof(err)), 0);
	assert_int_equal(d.default_sample_type, 0);
	enav_pprof_decoded_free(&d);
	free(out);
	enav_pprof_free(p);

	/* A cap exactly at the size of the profile without it refuses it. */
	struct enav_pprof_limits lim = {0};

	p = enav_pprof_new(g_types, 2, g_period, 0, 0, 0, NULL);
	assert_non_null(p);
	assert_int_equal(enav_pprof_encode(p, false, &out, &len), 0);
	free(out);
	enav_pprof_free(p);
	lim.max_bytes = len;
	p = enav_pprof_new(g_types, 2, g_period, 0, 0, 0, &lim);
	assert_non_null(p);
	assert_int_equal(enav_pprof_default_sample_type(p, "cpu"), -ENOSPC);
	assert_int_equal(enav_pprof_encode(p, false, &out, &len), 0);
	assert_true(len <= lim.max_bytes);
	free(out);
	enav_pprof_free(p);
}

static void test_decode_truncated(void **state)
{
	struct built b;
	struct enav_pprof *p = build_profile(&b);
	struct enav_pprof_decoded d;
	char err[256];
	uint8_t *raw, *gz;
	size_t raw_len, gz_len, failures = 0;

	assert_int_equal(enav_pprof_encode(p, false, &raw, &raw_len), 0);
	assert_int_equal(enav_pprof_encode(p, true, &gz, &gz_len), 0);
	enav_pprof_free(p);

	/* Every prefix, in an exactly sized heap block so ASan sees over-reads. */
	for (size_t n = 0; n < raw_len; n++) {
		uint8_t *cut = malloc(n ? n : 1);

		memcpy(cut, raw, n);
		int rc = enav_pprof_decode(cut, n, 0, &d, err, sizeof(err));

		if (rc == 0)
			enav_pprof_decoded_free(&d);
		else
			failures++;
		free(cut);
	}
	FAIL_IF(failures < raw_len / 2, "only %zu of %zu raw prefixes rejected\n", failures,
		raw_len);
	assert_int_equal(enav_pprof_decode(raw, raw_len - 1, 0, &d, err, sizeof(err)), -EINVAL);

	for (size_t n = 2; n < gz_len; n++) {
		uint8_t *cut = malloc(n);

		memcpy(cut, gz, n);
		int rc = enav_pprof_decode(cut, n, 0, &d, err, sizeof(err));

		FAIL_IF(rc != -EINVAL, "gzip cut to %zu of %zu: rc %d\n", n, gz_len, rc);
		free(cut);
	}

	/* Bytes after the gzip stream. */
	uint8_t *tail = malloc(gz_len + 3);

	memcpy(tail, gz, gz_len);
	memcpy(tail + gz_len, "abc", 3);
	assert_int_equal(enav_pprof_decode(tail, gz_len + 3, 0, &d, err, sizeof(err)), -EINVAL);
	free(tail);
	free(raw);
	free(gz);
}

static uint8_t *gzip_of(const uint8_t *in, size_t n, size_t *out_len)
{
	z_stream zs = {0};

	assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&zs, n);
	uint8_t *out = malloc(cap);

	assert_non_null(out);
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*out_len = zs.total_out;
	deflateEnd(&zs);
	return out;
}

static void test_decode_size_caps(void **state)
{
	struct enav_pprof_decoded d;
	char err[256];
	size_t n = 8u << 20, gz_len;
	uint8_t *zeros = calloc(1, n);

	/* A gzip bomb: 8 MiB of zeros in a few KiB. */
	assert_non_null(zeros);
	uint8_t *bomb = gzip_of(zeros, n, &gz_len);

	assert_true(gz_len < 65536);
	int rc = enav_pprof_decode(bomb, gz_len, 1u << 20, &d, err, sizeof(err));

	FAIL_IF(rc != -E2BIG, "gzip bomb: rc %d (%s), want -E2BIG\n", rc, err);
	assert_null(d.strings);
	free(bomb);
	free(zeros);

	/* A real profile: fits at exactly its size, -E2BIG one byte below. */
	struct built b;
	struct enav_pprof *p = build_profile(&b);
	uint8_t *raw, *gz;
	size_t raw_len;

	assert_int_equal(enav_pprof_encode(p, false, &raw, &raw_len), 0);
	assert_int_equal(enav_pprof_encode(p, true, &gz, &gz_len), 0);
	enav_pprof_free(p);
	assert_int_equal(enav_pprof_decode(gz, gz_len, raw_len, &d, err, sizeof(err)), 0);
	enav_pprof_decoded_free(&d);
	assert_int_equal(enav_pprof_decode(gz, gz_len, raw_len - 1, &d, err, sizeof(err)), -E2BIG);
	assert_int_equal(enav_pprof_decode(raw, raw_len, raw_len, &d, err, sizeof(err)), 0);
	enav_pprof_decoded_free(&d);
	assert_int_equal(enav_pprof_decode(raw, raw_len, raw_len - 1, &d, err, sizeof(err)),
			 -E2BIG);
	free(raw);
	free(gz);

	/* Garbage behind a gzip magic. */
	static const uint8_t junk[] = {0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef};
	assert_int_equal(enav_pprof_decode(junk, sizeof(junk), 0, &d, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pb_varint_edges),
	    cmocka_unit_test(test_pb_zigzag_and_scalars),
	    cmocka_unit_test(test_pb_nested),
	    cmocka_unit_test(test_pb_writer_failures),
	    cmocka_unit_test(test_pb_reader_rejects),
	    cmocka_unit_test(test_pprof_round_trip),
	    cmocka_unit_test(test_pprof_bad_args),
	    cmocka_unit_test(test_pprof_dedup_keys),
	    cmocka_unit_test(test_pprof_caps),
	    cmocka_unit_test(test_pprof_max_bytes),
	    cmocka_unit_test(test_decode_rejects),
	    cmocka_unit_test(test_decode_truncated),
	    cmocka_unit_test(test_decode_size_caps),
	    cmocka_unit_test(test_decode_lines),
	    cmocka_unit_test(test_pprof_default_sample_type),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
