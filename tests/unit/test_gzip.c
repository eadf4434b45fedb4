/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the gzip helper (src/platform/gzip.c): a round trip of
 * sizes around zlib's buffers, the output cap at exactly its value and one
 * byte past it, and the ways a stream can be broken (cut, trailing bytes,
 * corrupt, not gzip at all), each with its errno and a reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "platform/gzip.h"

/* Compressible but not trivial: a short period plus a slow counter. */
static uint8_t *sample(size_t n)
{
	uint8_t *b = malloc(n ? n : 1);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)("profile"[i % 7] + (i >> 12));
	return b;
}

static void round_trip(size_t n)
{
	uint8_t *in = sample(n), *z = NULL, *back = NULL;
	size_t zlen = 0, blen = 0;
	char err[128] = "";

	assert_int_equal(enav_gzip_compress(in, n, &z, &zlen), 0);
	assert_true(enav_gzip_magic(z, zlen));
	assert_int_equal(enav_gzip_decompress(z, zlen, n, &back, &blen, err, sizeof(err)), 0);
	assert_int_equal(blen, n);
	if (n)
		assert_memory_equal(back, in, n);
	free(in);
	free(z);
	free(back);
}

static void test_round_trip(void **state)
{
	(void)state;
	static const size_t sizes[] = {0, 1, 100, 65535, 65536, 65537, 1u << 20, (3u << 20) + 7};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		round_trip(sizes[i]);
}

/* The cap admits exactly max_out bytes and refuses one more. */
static void test_cap(void **state)
{
	(void)state;
	size_t n = 200000;
	uint8_t *in = sample(n), *z, *out = NULL;
	size_t zlen, olen;
	char err[128] = "";

	assert_int_equal(enav_gzip_compress(in, n, &z, &zlen), 0);
	assert_int_equal(enav_gzip_decompress(z, zlen, n, &out, &olen, err, sizeof(err)), 0);
	assert_int_equal(olen, n);
	free(out);
	out = NULL;
	assert_int_equal(enav_gzip_decompress(z, zlen, n - 1, &out, &olen, err, sizeof(err)),
			 -E2BIG);
	assert_null(out);
	assert_non_null(strstr(err, "exceeds"));
	free(in);
	free(z);
}

static void test_broken(void **state)
{
	(void)state;
	size_t n = 50000;
	uint8_t *in = sample(n), *z, *out = NULL;
	size_t zlen, olen;
	char err[128];

	assert_int_equal(enav_gzip_compress(in, n, &z, &zlen), 0);
	/* Cut anywhere before the trailer ends. */
	for (size_t cut = 0; cut < zlen; cut += 1 + cut / 3) {
		err[0] = '\0';
		assert_int_equal(enav_gzip_decompress(z, cut, n, &out, &olen, err, sizeof(err)),
				 -EINVAL);
		assert_null(out);
		assert_true(err[0] != '\0');
	}
	/* Bytes after the stream. */
	uint8_t *longer = malloc(zlen + 3);
	assert_non_null(longer);
	memcpy(longer, z, zlen);
	memcpy(longer + zlen, "xyz", 3);
	assert_int_equal(enav_gzip_decompress(longer, zlen + 3, n, &out, &olen, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "after the end"));
	/* A corrupt CRC. */
	memcpy(longer, z, zlen);
	longer[zlen - 8] ^= 0xff;
	assert_int_equal(enav_gzip_decompress(longer, zlen, n, &out, &olen, err, sizeof(err)),
			 -EINVAL);
	/* Not gzip: the magic is what callers test first. */
	assert_false(enav_gzip_magic(in, n));
	assert_false(enav_gzip_magic(z, 1));
	assert_int_equal(enav_gzip_decompress(in, n, n, &out, &olen, NULL, 0), -EINVAL);
	assert_null(out);
	free(longer);
	free(in);
	free(z);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_cap),
	    cmocka_unit_test(test_broken),
	};
	return cmocka_run_group_tests_name("gzip", tests, NULL, NULL);
}
