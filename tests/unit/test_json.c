/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the bounded JSON writer; every produced line is re-parsed by jansson. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "platform/json.h"

#define FFFD "\xef\xbf\xbd"

/* Parse one produced line; the test fails when jansson rejects it. */
static json_t *load(const char *line, size_t flags)
{
	json_error_t err;
	json_t *v = json_loads(line, JSON_DECODE_ANY | JSON_ALLOW_NUL | flags, &err);

	if (!v)
		fail_msg("jansson rejected %s: %s at %d", line, err.text, err.position);
	return v;
}

/* {"s": in} must parse and decode to exactly expect[0..explen). */
static void check_roundtrip(const char *in, size_t inlen, const char *expect, size_t explen)
{
	char buf[4096];
	struct enav_json j;
	long n;

	enav_json_init(&j, buf, sizeof(buf));
	enav_json_object_begin(&j);
	enav_json_kv_string_n(&j, "s", in, inlen);
	enav_json_object_end(&j);
	n = enav_json_finish(&j);
	assert_true(n > 0);
	assert_int_equal((size_t)n, strlen(buf));

	json_t *root = load(buf, 0);
	json_t *s = json_object_get(root, "s");

	assert_non_null(s);
	assert_true(json_is_string(s));
	assert_int_equal(json_string_length(s), explen);
	assert_memory_equal(json_string_value(s), expect, explen);
	json_decref(root);

	/* The bare escaper must agree with the writer's string body. */
	char body[4096];
	long m = enav_json_escape(body, sizeof(body), in, inlen);

	assert_true(m >= 0);
	assert_int_equal((size_t)m, strlen(body));
	assert_int_equal((size_t)n, (size_t)m + strlen("{\"s\":\"\"}"));
	assert_memory_equal(buf + 6, body, (size_t)m);
}

/* Exact escaped text of a one-string line. */
static void check_escaped(const char *in, size_t inlen, const char *expect_line)
{
	char buf[256];
	struct enav_json j;

	enav_json_init(&j, buf, sizeof(buf));
	enav_json_string_n(&j, in, inlen);
	assert_int_equal(enav_json_finish(&j), (long)strlen(expect_line));
	assert_string_equal(buf, expect_line);
}

static void test_basic_object(void **state)
{
	char buf[256];
	struct enav_json j;

	enav_json_init(&j, buf, sizeof(buf));
	enav_json_object_begin(&j);
	enav_json_kv_string(&j, "a", "x");
	enav_json_kv_u64(&j, "b", 42);
	enav_json_kv_i64(&j, "c", -7);
	enav_json_kv_bool(&j, "d", true);
	enav_json_kv_bool(&j, "e", false);
	enav_json_key(&j, "f");
	enav_json_null(&j);
	enav_json_object_end(&j);
	assert_int_equal(enav_json_finish(&j), (long)strlen(buf));
	assert_string_equal(buf,
			    "{\"a\":\"x\",\"b\":42,\"c\":-7,\"d\":true,\"e\":false,\"f\":null}");

	json_t *root = load(buf, 0);

	assert_int_equal(json_integer_value(json_object_get(root, "b")), 42);
	assert_int_equal(json_integer_value(json_object_get(root, "c")), -7);
	assert_true(json_is_true(json_object_get(root, "d")));
	assert_true(json_is_null(json_object_get(root, "f")));
	json_decref(root);
}

static void test_quotes_backslashes(void **state)
{
	static const char in[] = "say \"hi\" \\ back\\slash \\\" /";

	check_escaped(in, strlen(in), "\"say \\\"hi\\\" \\\\ back\\\\slash \\\\\\\" /\"");
	check_roundtrip(in, strlen(in), in, strlen(in));
}

static void test_every_control_byte(void **state)
{
	static const char *const shortf[32] = {
	    ['\b'] = "\\b", ['\t'] = "\\t", ['\n'] = "\\n", ['\f'] = "\\f", ['\r'] = "\\r",
	};

	for (int c = 0; c < 32; c++) {
		char in[1] = {(char)c};
		char expect[16];

		if (shortf[c])
			snprintf(expect, sizeof(expect), "\"%s\"", shortf[c]);
		else
			snprintf(expect, sizeof(expect), "\"\\u%04x\"", c);
		check_escaped(in, 1, expect);
		check_roundtrip(in, 1, in, 1);
	}
}

static void test_del(void **state)
{
	check_escaped("\x7f", 1, "\"\\u007f\"");
	check_roundtrip("a\x7f"
			"b",
			3,
			"a\x7f"
			"b",
			3);
}

static void test_embedded_nul(void **state)
{
	static const char in[] = {'a', '\0', 'b', '\0'};

	check_escaped(in, sizeof(in), "\"a\\u0000b\\u0000\"");
	check_roundtrip(in, sizeof(in), in, sizeof(in));
}

static void test_valid_utf8_passes(void **state)
{
	static const char *const ok[] = {
	    "h\xc3\xa9llo",		/* é */
	    "\xc2\x80",			/* U+0080, lowest 2-byte */
	    "\xdf\xbf",			/* U+07FF */
	    "\xe0\xa0\x80",		/* U+0800, lowest 3-byte */
	    "\xed\x9f\xbf",		/* U+D7FF, just below surrogates */
	    "\xee\x80\x80",		/* U+E000, just above surrogates */
	    "\xef\xbf\xbf",		/* U+FFFF */
	    "\xe6\x97\xa5\xe6\x9c\xac", /* 日本 */
	    "\xf0\x90\x80\x80",		/* U+10000, lowest 4-byte */
	    "\xf0\x9f\x98\x80",		/* emoji U+1F600 */
	    "\xf4\x8f\xbf\xbf",		/* U+10FFFF, highest */
	    "a\xf0\x9f\x9a\x80z\xe2\x82\xac",
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char expect[64];

		snprintf(expect, sizeof(expect), "\"%s\"", ok[i]);
		check_escaped(ok[i], strlen(ok[i]), expect);
		check_roundtrip(ok[i], strlen(ok[i]), ok[i], strlen(ok[i]));
	}
}

static void test_invalid_utf8_replaced(void **state)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
	    {"\x80", FFFD},						 /* lone continuation */
	    {"\xbf", FFFD},						 /* lone continuation */
	    {"a\x80\x80z", "a" FFFD FFFD "z"},				 /* run of continuations */
	    {"\xc0\x80", FFFD FFFD},					 /* overlong NUL */
	    {"\xc1\xbf", FFFD FFFD},					 /* overlong 2-byte */
	    {"\xe0\x80\x80", FFFD FFFD FFFD},				 /* overlong 3-byte */
	    {"\xe0\x9f\xbf", FFFD FFFD FFFD},				 /* overlong U+07FF */
	    {"\xf0\x80\x80\x80", FFFD FFFD FFFD FFFD},			 /* overlong 4-byte */
	    {"\xf0\x8f\xbf\xbf", FFFD FFFD FFFD FFFD},			 /* overlong U+FFFF */
	    {"\xed\xa0\x80", FFFD FFFD FFFD},				 /* U+D800 surrogate */
	    {"\xed\xbf\xbf", FFFD FFFD FFFD},				 /* U+DFFF surrogate */
	    {"\xed\xa0\xbd\xed\xb8\x80", FFFD FFFD FFFD FFFD FFFD FFFD}, /* CESU pair */
	    {"\xf4\x90\x80\x80", FFFD FFFD FFFD FFFD},			 /* U+110000 */
	    {"\xf5\x80\x80\x80", FFFD FFFD FFFD FFFD},			 /* lead > F4 */
	    {"\xf8\x88\x80\x80\x80", FFFD FFFD FFFD FFFD FFFD},		 /* old 5-byte form */
	    {"\xfe", FFFD},
	    {"\xff", FFFD},
	    {"\xc3", FFFD},					/* truncated at end */
	    {"\xe2\x82", FFFD FFFD},				/* truncated 3-byte at end */
	    {"\xf0\x9f\x98", FFFD FFFD FFFD},			/* truncated emoji at end */
	    {"a\xe2\x82z", "a" FFFD FFFD "z"},			/* truncated, then ASCII */
	    {"\xc3\"", FFFD "\""},				/* truncated, then a quote */
	    {"\xe2\x82\xe2\x82\xac", FFFD FFFD "\xe2\x82\xac"}, /* resync on a valid lead */
	    {"\xc3\xa9\x80", "\xc3\xa9" FFFD},			/* stray after valid */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_roundtrip(cases[i].in, strlen(cases[i].in), cases[i].out,
				strlen(cases[i].out));
}

/* Every single byte value on its own yields a valid line with the expected content. */
static void test_all_single_bytes(void **state)
{
	for (int c = 0; c < 256; c++) {
		char in[1] = {(char)c};

		if (c < 0x80)
			check_roundtrip(in, 1, in, 1);
		else
			check_roundtrip(in, 1, FFFD, 3);
	}
}

static void test_hostile_key(void **state)
{
	char buf[256];
	struct enav_json j;

	enav_json_init(&j, buf, sizeof(buf));
	enav_json_object_begin(&j);
	enav_json_kv_u64(&j, "k\"\n\x01\xff", 1);
	enav_json_object_end(&j);
	assert_true(enav_json_finish(&j) > 0);
	assert_string_equal(buf, "{\"k\\\"\\n\\u0001" FFFD "\":1}");

	json_t *root = load(buf, 0);

	assert_int_equal(json_integer_value(json_object_get(root, "k\"\n\x01" FFFD)), 1);
	json_decref(root);
}

static void test_integers(void **state)
{
	static const struct {
		bool is_signed;
		uint64_t u;
		int64_t i;
		const char *text;
	} cases[] = {
	    {false, 0, 0, "0"},
	    {false, 9, 0, "9"},
	    {false, 10, 0, "10"},
	    {false, UINT64_MAX, 0, "18446744073709551615"},
	    {true, 0, 0, "0"},
	    {true, 0, -1, "-1"},
	    {true, 0, INT64_MAX, "9223372036854775807"},
	    {true, 0, INT64_MIN, "-9223372036854775808"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char buf[64];
		struct enav_json j;

		enav_json_init(&j, buf, sizeof(buf));
		enav_json_array_begin(&j);
		if (cases[i].is_signed)
			enav_json_i64(&j, cases[i].i);
		else
			enav_json_u64(&j, cases[i].u);
		enav_json_array_end(&j);
		assert_true(enav_json_finish(&j) > 0);

		char expect[64];

		snprintf(expect, sizeof(expect), "[%s]", cases[i].text);
		assert_string_equal(buf, expect);

		/* jansson's integers are long long: let it read UINT64_MAX as a real. */
		json_t *root = load(buf, cases[i].u > INT64_MAX ? JSON_DECODE_INT_AS_REAL : 0);

		if (cases[i].is_signed)
			assert_true(json_integer_value(json_array_get(root, 0)) == cases[i].i);
		json_decref(root);
	}
}

static void test_nesting_and_commas(void **state)
{
	char buf[256];
	struct enav_json j;

	enav_json_init(&j, buf, sizeof(buf));
	enav_json_object_begin(&j);
	enav_json_key(&j, "a");
	enav_json_array_begin(&j);
	enav_json_u64(&j, 1);
	enav_json_u64(&j, 2);
	enav_json_object_begin(&j);
	enav_json_key(&j, "b");
	enav_json_array_begin(&j);
	enav_json_array_end(&j);
	enav_json_kv_string(&j, "c", "d");
	enav_json_object_end(&j);
	enav_json_array_begin(&j);
	enav_json_array_end(&j);
	enav_json_null(&j);
	enav_json_array_end(&j);
	enav_json_key(&j, "e");
	enav_json_object_begin(&j);
	enav_json_object_end(&j);
	enav_json_kv_bool(&j, "f", true);
	enav_json_object_end(&j);
	assert_true(enav_json_finish(&j) > 0);
	assert_string_equal(buf,
			    "{\"a\":[1,2,{\"b\":[],\"c\":\"d\"},[],null],\"e\":{},\"f\":true}");
	json_decref(load(buf, 0));
}

static void test_top_level_scalars(void **state)
{
	char buf[32];
	struct enav_json j;

	enav_json_init(&j, buf, sizeof(buf));
	enav_json_u64(&j, 5);
	assert_int_equal(enav_json_finish(&j), 1);
	assert_string_equal(buf, "5");

	enav_json_init(&j, buf, sizeof(buf));
	enav_json_array_begin(&j);
	enav_json_array_end(&j);
	assert_int_equal(enav_json_finish(&j), 2);
	assert_string_equal(buf, "[]");
}

static void test_max_depth(void **state)
{
	char buf[256];
	struct enav_json j;

	enav_json_init(&j, buf, sizeof(buf));
	for (int i = 0; i < ENAV_JSON_MAX_DEPTH; i++)
		enav_json_array_begin(&j);
	for (int i = 0; i < ENAV_JSON_MAX_DEPTH; i++)
		enav_json_array_end(&j);
	assert_int_equal(enav_json_finish(&j), 2 * ENAV_JSON_MAX_DEPTH);
	json_decref(load(buf, 0));

	/* Alternating objects and arrays: kind is tracked at every level. */
	enav_json_init(&j, buf, sizeof(buf));
	for (int i = 0; i < ENAV_JSON_MAX_DEPTH; i++) {
		if (i % 2) {
			enav_json_array_begin(&j);
		} else {
			enav_json_object_begin(&j);
			enav_json_key(&j, "k");
		}
	}
	for (int i = ENAV_JSON_MAX_DEPTH - 1; i >= 0; i--) {
		if (i % 2)
			enav_json_array_end(&j);
		else
			enav_json_object_end(&j);
	}
	assert_true(enav_json_finish(&j) > 0);
	json_decref(load(buf, 0));

	enav_json_init(&j, buf, sizeof(buf));
	for (int i = 0; i < ENAV_JSON_MAX_DEPTH + 1; i++)
		enav_json_array_begin(&j);
	assert_true(j.overflow);
	for (int i = 0; i < ENAV_JSON_MAX_DEPTH + 1; i++)
		enav_json_array_end(&j);
	assert_int_equal(enav_json_finish(&j), -1);
}

typedef void (*misuse_fn)(struct enav_json *j);

static void mis_value_without_key(struct enav_json *j)
{
	enav_json_object_begin(j);
	enav_json_u64(j, 1);
	enav_json_object_end(j);
}

static void mis_key_in_array(struct enav_json *j)
{
	enav_json_array_begin(j);
	enav_json_key(j, "a");
	enav_json_u64(j, 1);
	enav_json_array_end(j);
}

static void mis_key_at_top(struct enav_json *j)
{
	enav_json_key(j, "a");
	enav_json_u64(j, 1);
}

static void mis_two_keys(struct enav_json *j)
{
	enav_json_object_begin(j);
	enav_json_key(j, "a");
	enav_json_key(j, "b");
	enav_json_u64(j, 1);
	enav_json_object_end(j);
}

static void mis_dangling_key(struct enav_json *j)
{
	enav_json_object_begin(j);
	enav_json_key(j, "a");
	enav_json_object_end(j);
}

static void mis_wrong_end(struct enav_json *j)
{
	enav_json_object_begin(j);
	enav_json_array_end(j);
}

static void mis_unclosed(struct enav_json *j)
{
	enav_json_object_begin(j);
	enav_json_kv_u64(j, "a", 1);
}

static void mis_extra_end(struct enav_json *j)
{
	enav_json_array_begin(j);
	enav_json_array_end(j);
	enav_json_array_end(j);
}

static void mis_two_top_level(struct enav_json *j)
{
	enav_json_u64(j, 1);
	enav_json_u64(j, 2);
}

static void mis_nothing(struct enav_json *j)
{
}

static void test_misuse_is_dropped(void **state)
{
	static const misuse_fn fns[] = {
	    mis_value_without_key, mis_key_in_array, mis_key_at_top, mis_two_keys,
	    mis_dangling_key,	   mis_wrong_end,    mis_unclosed,   mis_extra_end,
	    mis_two_top_level,	   mis_nothing,
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		char buf[128];
		struct enav_json j;

		enav_json_init(&j, buf, sizeof(buf));
		fns[i](&j);
		assert_int_equal(enav_json_finish(&j), -1);
		assert_true(j.overflow);
		assert_true(strlen(buf) < sizeof(buf));
	}
}

/* A fixed line mixing every value kind and escapes. */
static void write_sample(struct enav_json *j)
{
	static const char nasty[] = {'q', '"', '\\', '\n', '\0', 0x01, 0x7f, (char)0xff, 'z'};

	enav_json_object_begin(j);
	enav_json_kv_string(j, "type", "exec");
	enav_json_kv_u64(j, "pid", UINT64_MAX);
	enav_json_kv_i64(j, "ret", INT64_MIN);
	enav_json_kv_string_n(j, "comm", nasty, sizeof(nasty));
	enav_json_kv_string(j, "emoji", "\xf0\x9f\x98\x80");
	enav_json_key(j, "argv");
	enav_json_array_begin(j);
	enav_json_string(j, "a");
	enav_json_bool(j, false);
	enav_json_null(j);
	enav_json_array_end(j);
	enav_json_object_end(j);
}

#define CANARY 0xa5

/*
 * For every cap from 0 to exact + 2: exactly-fitting and larger buffers succeed
 * with identical output, smaller ones overflow, and nothing past cap is touched.
 */
static void test_overflow_boundaries(void **state)
{
	char ref[512];
	struct enav_json j;

	enav_json_init(&j, ref, sizeof(ref));
	write_sample(&j);
	long full = enav_json_finish(&j);

	assert_true(full > 0);
	json_decref(load(ref, JSON_DECODE_INT_AS_REAL));

	for (size_t cap = 0; cap <= (size_t)full + 2; cap++) {
		unsigned char mem[600];

		memset(mem, CANARY, sizeof(mem));
		enav_json_init(&j, (char *)mem, cap);
		write_sample(&j);
		long n = enav_json_finish(&j);

		for (size_t k = cap; k < sizeof(mem); k++)
			if (mem[k] != CANARY)
				fail_msg("cap %zu: byte %zu written", cap, k);
		if (cap >= (size_t)full + 1) {
			assert_int_equal(n, full);
			assert_string_equal((char *)mem, ref);
		} else {
			assert_int_equal(n, -1);
			assert_true(j.overflow);
			if (cap > 0)
				assert_non_null(memchr(mem, '\0', cap));
		}
	}
}

/* The same boundary for a string whose last character expands: no partial escape fits. */
static void test_overflow_mid_escape(void **state)
{
	/* "\u0001" is 8 bytes with quotes; "a" FFFD is 6. */
	static const struct {
		const char *in;
		size_t inlen, out;
	} cases[] = {{"\x01", 1, 8}, {"a\xff", 2, 6}, {"\xf0\x9f\x98\x80", 4, 6}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (size_t cap = 0; cap <= cases[i].out + 1; cap++) {
			unsigned char mem[32];
			struct enav_json j;

			memset(mem, CANARY, sizeof(mem));
			enav_json_init(&j, (char *)mem, cap);
			enav_json_string_n(&j, cases[i].in, cases[i].inlen);
			long n = enav_json_finish(&j);

			for (size_t k = cap; k < sizeof(mem); k++)
				assert_int_equal(mem[k], CANARY);
			assert_int_equal(n, cap == cases[i].out + 1 ? (long)cases[i].out : -1);
		}
	}
}

static void test_overflow_is_sticky(void **state)
{
	char buf[8];
	struct enav_json j;

	enav_json_init(&j, buf, sizeof(buf));
	enav_json_array_begin(&j);
	enav_json_string(&j, "much too long");
	assert_true(j.overflow);
	size_t len = j.len;

	enav_json_u64(&j, 1);
	enav_json_array_end(&j);
	assert_int_equal(j.len, len);
	assert_int_equal(enav_json_finish(&j), -1);
}

static void test_escape_function(void **state)
{
	char out[16];
	unsigned char mem[32];

	assert_int_equal(enav_json_escape(out, sizeof(out), "a\"b", 3), 4);
	assert_string_equal(out, "a\\\"b");
	assert_int_equal(enav_json_escape(out, sizeof(out), "", 0), 0);
	assert_string_equal(out, "");
	assert_int_equal(enav_json_escape(NULL, 0, "", 0), -1);

	/* "\u0000x" needs 7 bytes plus the NUL. */
	for (size_t cap = 0; cap <= 9; cap++) {
		memset(mem, CANARY, sizeof(mem));
		long n = enav_json_escape((char *)mem, cap, "\0x", 2);

		for (size_t k = cap; k < sizeof(mem); k++)
			assert_int_equal(mem[k], CANARY);
		if (cap >= 8) {
			assert_int_equal(n, 7);
			assert_string_equal((char *)mem, "\\u0000x");
		} else {
			assert_int_equal(n, -1);
			if (cap > 0)
				assert_int_equal(mem[0], '\0');
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic_object),
	    cmocka_unit_test(test_quotes_backslashes),
	    cmocka_unit_test(test_every_control_byte),
	    cmocka_unit_test(test_del),
	    cmocka_unit_test(test_embedded_nul),
	    cmocka_unit_test(test_valid_utf8_passes),
	    cmocka_unit_test(test_invalid_utf8_replaced),
	    cmocka_unit_test(test_all_single_bytes),
	    cmocka_unit_test(test_hostile_key),
	    cmocka_unit_test(test_integers),
	    cmocka_unit_test(test_nesting_and_commas),
	    cmocka_unit_test(test_top_level_scalars),
	    cmocka_unit_test(test_max_depth),
	    cmocka_unit_test(test_misuse_is_dropped),
	    cmocka_unit_test(test_overflow_boundaries),
	    cmocka_unit_test(test_overflow_mid_escape),
	    cmocka_unit_test(test_overflow_is_sticky),
	    cmocka_unit_test(test_escape_function),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
