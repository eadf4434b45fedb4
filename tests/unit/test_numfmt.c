/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the hand-written number and address text
 * (src/platform/numfmt.c): every function against the C library it
 * replaces (snprintf, inet_ntop), on edge values and on a million
 * pseudo-random inputs from a fixed seed, byte for byte.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "platform/numfmt.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void check_u64(uint64_t v)
{
	char want[32], got[32];
	snprintf(want, sizeof(want), "%" PRIu64, v);
	size_t n = enav_fmt_u64(got, v);
	got[n] = '\0';
	assert_string_equal(got, want);
	snprintf(want, sizeof(want), "%" PRIx64, v);
	n = enav_fmt_hex(got, v);
	got[n] = '\0';
	assert_string_equal(got, want);
	snprintf(want, sizeof(want), "%" PRId64, (int64_t)v);
	n = enav_fmt_i64(got, (int64_t)v);
	got[n] = '\0';
	assert_string_equal(got, want);
}

static void test_integers(void **state)
{
	static const uint64_t edges[] = {0,
					 1,
					 9,
					 10,
					 99,
					 100,
					 101,
					 999,
					 1000,
					 65535,
					 4294967295ull,
					 4294967296ull,
					 9999999999999999999ull,
					 10000000000000000000ull,
					 UINT64_MAX,
					 (uint64_t)INT64_MAX,
					 (uint64_t)INT64_MIN};
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		check_u64(edges[i]);
	for (int i = 0; i < 1000000; i++)
		check_u64(next() >> (next() & 63));
}

static void check_fixed2(double v)
{
	char want[64], got[64];
	snprintf(want, sizeof(want), "%.2f", v);
	size_t n = enav_fmt_fixed2(got, v);
	got[n] = '\0';
	assert_string_equal(got, want);
}

static void test_fixed2(void **state)
{
	static const double edges[] = {0,     -0.0,  1,	    0.5,   0.005,  0.015, 0.025,  0.125,
				       0.375, 0.995, 1.005, 2.675, -1.005, 1e14,  123.456};
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		check_fixed2(edges[i]);
	/* Confidences are in [0, 1]; ties and near-ties over a wider range too. */
	for (int i = 0; i < 1000000; i++) {
		check_fixed2((double)(next() % 1000001) / 1000000.0);
		check_fixed2((double)(next() % 200000) / 1000.0 + 0.005);
		check_fixed2((double)(int64_t)(next() % 2000000000000ull - 1000000000000ll) /
			     128.0);
	}
}

static void check_addr(int family, const uint8_t *a)
{
	char want[INET6_ADDRSTRLEN], got[ENAV_ADDR_TEXT_MAX];
	assert_non_null(inet_ntop(family == 6 ? AF_INET6 : AF_INET, a, want, sizeof(want)));
	size_t n = enav_fmt_addr(got, family, a);
	assert_string_equal(got, want);
	assert_int_equal(n, strlen(want));
}

static void test_addresses(void **state)
{
	uint8_t a[16];
	/* Every pattern of zero and non-zero groups, with small and large
	 * values, and the IPv4-mapped and -compatible forms. */
	for (unsigned mask = 0; mask < 256; mask++) {
		for (int shape = 0; shape < 4; shape++) {
			for (int g = 0; g < 8; g++) {
				uint16_t v = (mask >> g) & 1 ? (uint16_t)(shape == 0   ? 1
									  : shape == 1 ? 0xffff
									  : shape == 2 ? 0x0a0
										       : next())
							     : 0;
				a[2 * g] = (uint8_t)(v >> 8);
				a[2 * g + 1] = (uint8_t)v;
			}
			check_addr(6, a);
			a[10] = a[11] = 0xff;
			check_addr(6, a);
		}
	}
	for (int i = 0; i < 200000; i++) {
		for (int k = 0; k < 16; k += 8) {
			uint64_t r = next();
			memcpy(a + k, &r, 8);
		}
		check_addr(4, a);
		check_addr(6, a);
	}
	static const uint8_t loop4[4] = {127, 0, 0, 1}, zero4[4] = {0},
			     ones4[4] = {255, 255, 255, 255};
	check_addr(4, loop4);
	check_addr(4, zero4);
	check_addr(4, ones4);
}

/* enav_hex_bytes against snprintf("%02x"), and enav_parse_hex_bytes back. */
static void check_hex_round_trip(const uint8_t *b, size_t n)
{
	char want[2 * 32 + 1] = "", got[2 * 32 + 2];
	uint8_t back[32];

	assert_true(n <= 32);
	for (size_t i = 0; i < n; i++)
		snprintf(want + 2 * i, sizeof(want) - 2 * i, "%02x", b[i]);
	memset(got, '#', sizeof(got));
	enav_hex_bytes(got, b, n);
	assert_int_equal(got[2 * n], '#'); /* no NUL, nothing past 2n */
	got[2 * n] = '\0';
	assert_string_equal(got, want);
	memset(back, 0xa5, sizeof(back));
	assert_true(enav_parse_hex_bytes(got, 2 * n, back, n));
	assert_memory_equal(back, b, n);
}

static void test_hex_bytes_round_trip(void **state)
{
	uint8_t b[32];

	/* Trace ids (16 bytes) and span ids (8): edges, then pseudo-random. */
	for (size_t n = 8; n <= 16; n += 8) {
		memset(b, 0, n);
		check_hex_round_trip(b, n);
		memset(b, 0xff, n);
		check_hex_round_trip(b, n);
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)(i * 17 + 0x0a);
		check_hex_round_trip(b, n);
		for (int k = 0; k < 10000; k++) {
			for (size_t i = 0; i < n; i++)
				b[i] = (uint8_t)next();
			check_hex_round_trip(b, n);
		}
	}
	/* Every byte value, in every position of a span id. */
	for (unsigned v = 0; v < 256; v++)
		for (size_t pos = 0; pos < 8; pos++) {
			memset(b, 0x5a, 8);
			b[pos] = (uint8_t)v;
			check_hex_round_trip(b, 8);
		}
}

static void test_parse_hex_bytes_strict(void **state)
{
	static const char lower[] = "4bf92f3577b34da6a3ce929d0e0e4736",
			  upper[] = "4BF92F3577B34DA6A3CE929D0E0E4736",
			  mixed[] = "4bF92f3577B34dA6a3Ce929D0e0E4736";
	static const uint8_t want[16] = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
					 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36};
	uint8_t out[17];

	/* Either case. */
	memset(out, 0, sizeof(out));
	assert_true(enav_parse_hex_bytes(lower, 32, out, 16));
	assert_memory_equal(out, want, 16);
	memset(out, 0, sizeof(out));
	assert_true(enav_parse_hex_bytes(upper, 32, out, 16));
	assert_memory_equal(out, want, 16);
	memset(out, 0, sizeof(out));
	assert_true(enav_parse_hex_bytes(mixed, 32, out, 16));
	assert_memory_equal(out, want, 16);
	assert_true(enav_parse_hex_bytes("ABCDEF0123456789", 16, out, 8));
	assert_memory_equal(out, "\xab\xcd\xef\x01\x23\x45\x67\x89", 8);

	/* Exactly 2n digits: 2n - 1, 2n + 1 and 0 are refused. */
	char buf[64];

	memcpy(buf, lower, 32);
	buf[32] = '0';
	buf[33] = '\0';
	assert_false(enav_parse_hex_bytes(buf, 31, out, 16));
	assert_false(enav_parse_hex_bytes(buf, 33, out, 16));
	assert_false(enav_parse_hex_bytes(buf, 0, out, 16));
	assert_false(enav_parse_hex_bytes(buf, 15, out, 8));
	assert_false(enav_parse_hex_bytes(buf, 17, out, 8));
	assert_false(enav_parse_hex_bytes(buf, 0, out, 8));
	assert_false(enav_parse_hex_bytes(buf, 32, out, 8));
	assert_false(enav_parse_hex_bytes(buf, 16, out, 16));

	/* A non-hex character at any position, within the length. */
	static const char bad[] = {'g', 'G', ' ', '\0', 'x', '-', ':', '/', '@', '`', 'z', '\n'};

	for (size_t pos = 0; pos < 32; pos++)
		for (size_t k = 0; k < sizeof(bad); k++) {
			memcpy(buf, lower, 33);
			buf[pos] = bad[k];
			if (enav_parse_hex_bytes(buf, 32, out, 16) ||
			    (pos < 16 && enav_parse_hex_bytes(buf, 16, out, 8))) {
				print_message("hex: 0x%02x at %zu accepted\n",
					      (unsigned)(uint8_t)bad[k], pos);
				fail();
			}
		}

	/* n = 0: the empty string is the one valid text; nothing written. */
	out[0] = 0x77;
	assert_true(enav_parse_hex_bytes("", 0, out, 0));
	assert_int_equal(out[0], 0x77);
	assert_false(enav_parse_hex_bytes("00", 2, out, 0));
	memset(buf, '#', 4);
	enav_hex_bytes(buf, out, 0);
	assert_int_equal(buf[0], '#');
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_integers),
	    cmocka_unit_test(test_fixed2),
	    cmocka_unit_test(test_addresses),
	    cmocka_unit_test(test_hex_bytes_round_trip),
	    cmocka_unit_test(test_parse_hex_bytes_strict),
	};
	return cmocka_run_group_tests_name("numfmt", tests, NULL, NULL);
}
