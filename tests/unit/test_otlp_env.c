/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the OTEL_* environment parsing of the OTLP sink
 * (src/exporters/otlp/otlp_env.c): percent escapes of exactly two hex digits,
 * k=v lists that skip what they cannot carry instead of cutting it, header
 * lines that cannot smuggle a second header, resource attributes that stay
 * valid UTF-8, a strict timeout, and the endpoint order of docs/otlp.md.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exporters/otlp/otlp_env.h"

/* Decode a copy of in; NULL when it is refused. */
static const char *decode(const char *in)
{
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s", in);
	return enav_otlp_percent_decode(buf) ? buf : NULL;
}

/* The escape is '%' and two hex digits, nothing else.  strtol took a sign
 * or a blank as part of the number: "%+1" and "% 1" were byte 0x01 and
 * "%-1" byte 0xff. */
static void test_percent_decode(void **state)
{
	(void)state;
	assert_string_equal(decode("a%20b"), "a b");
	assert_string_equal(decode("%41%62%2c%2C%3d%25"), "Ab,,=%");
	assert_string_equal(decode("caf%C3%A9"), "caf\xc3\xa9");
	assert_string_equal(decode("%+1"), "%+1");
	assert_string_equal(decode("% 1"), "% 1");
	assert_string_equal(decode("%-1"), "%-1");
	assert_string_equal(decode("%\t1"), "%\t1");
	assert_string_equal(decode("%0x"), "%0x");
	assert_string_equal(decode("%x0"), "%x0");
	assert_string_equal(decode("%g0"), "%g0");
	assert_string_equal(decode("100%"), "100%");
	assert_string_equal(decode("%4"), "%4");
	assert_string_equal(decode("%%41"), "%A");
	assert_string_equal(decode(""), "");
	/* A NUL cannot be carried: the value is refused, not cut. */
	assert_null(decode("a%00b"));
}

struct pairs {
	size_t n;
	char k[8][64], v[8][64];
};

static void collect(void *ctx, const char *k, const char *v)
{
	struct pairs *p = ctx;

	assert_true(p->n < 8);
	snprintf(p->k[p->n], sizeof(p->k[0]), "%s", k);
	snprintf(p->v[p->n], sizeof(p->v[0]), "%s", v);
	p->n++;
}

static void test_each_pair(void **state)
{
	struct pairs p;

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(enav_otlp_each_pair(" a = 1 ,,b=x%2Cy=z,noeq, =v,c=%00,d=", collect, &p),
			 3);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.k[0], "a");
	assert_string_equal(p.v[0], " 1 "); /* values are taken as they are */
	assert_string_equal(p.k[1], "b");
	assert_string_equal(p.v[1], "x,y=z");
	assert_string_equal(p.k[2], "d");
	assert_string_equal(p.v[2], "");
	memset(&p, 0, sizeof(p));
	assert_int_equal(enav_otlp_each_pair(NULL, collect, &p), 0);
	assert_int_equal(p.n, 0);

	/* A pair past the buffer is skipped whole, and the ones after it read:
	 * the old copy of the whole list cut it and dropped the rest. */
	size_t big = ENAV_OTLP_ENV_PAIR_MAX + 10;
	char *list = malloc(big + 32);
	assert_non_null(list);
	memcpy(list, "token=", 6);
	memset(list + 6, 'x', big - 6);
	strcpy(list + big, ",after=1");
	memset(&p, 0, sizeof(p));
	assert_int_equal(enav_otlp_each_pair(list, collect, &p), 1);
	assert_int_equal(p.n, 1);
	assert_string_equal(p.k[0], "after");
	free(list);
}

static void test_header_line(void **state)
{
	char out[64];

	(void)state;
	assert_true(enav_otlp_header_line("X-Api_Key", "s3cr3t key", out, sizeof(out)));
	assert_string_equal(out, "X-Api_Key: s3cr3t key");
	/* "a%0D%0AHost: x" decoded: a second header. */
	assert_false(enav_otlp_header_line("X", "a\r\nHost: x", out, sizeof(out)));
	assert_false(enav_otlp_header_line("X", "a\nb", out, sizeof(out)));
	assert_false(enav_otlp_header_line("X", "a\tb", out, sizeof(out)));
	assert_false(enav_otlp_header_line("X", "a\x7f", out, sizeof(out)));
	assert_false(enav_otlp_header_line("Bad Name", "v", out, sizeof(out)));
	assert_false(enav_otlp_header_line("a:b", "v", out, sizeof(out)));
	assert_false(enav_otlp_header_line("", "v", out, sizeof(out)));
	/* Exactly full: 63 bytes and the NUL fit, one more does not. */
	char v[64];
	memset(v, 'v', sizeof(v));
	v[63 - 3] = '\0';
	assert_true(enav_otlp_header_line("X", v, out, sizeof(out)));
	v[63 - 3] = 'v';
	v[64 - 3] = '\0';
	assert_false(enav_otlp_header_line("X", v, out, sizeof(out)));
}

static void test_resource(void **state)
{
	static struct enav_otlp_res_set r;
	char big[ENAV_OTLP_RES_TEXT + 1];

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_true(enav_otlp_res_add(&r, "service.name", "checkout"));
	assert_false(enav_otlp_res_add(&r, "service.name", "e-navigator")); /* first wins */
	assert_true(enav_otlp_res_add(&r, "team", "caf\xc3\xa9"));
	assert_false(enav_otlp_res_add(&r, "latin1", "caf\xe9"));
	assert_false(enav_otlp_res_add(&r, "surrogate", "\xed\xa0\x80"));
	assert_false(enav_otlp_res_add(&r, "overlong", "\xc0\xaf"));
	assert_false(enav_otlp_res_add(&r, "empty", ""));
	assert_false(enav_otlp_res_add(&r, "unset", NULL));
	memset(big, 'a', sizeof(big));
	big[ENAV_OTLP_RES_TEXT] = '\0';
	assert_false(enav_otlp_res_add(&r, "long", big)); /* refused, not cut */
	big[ENAV_OTLP_RES_TEXT - 1] = '\0';
	assert_true(enav_otlp_res_add(&r, "long", big));
	assert_int_equal(r.n, 3);
	assert_string_equal(r.kv[0].s, "checkout");
	assert_int_equal(r.kv[0].type, ENAV_OTLP_STR);
	for (int i = 0; r.n < ENAV_OTLP_RES_MAX; i++) {
		char k[16];
		snprintf(k, sizeof(k), "k%d", i);
		assert_true(enav_otlp_res_add(&r, k, "v"));
	}
	assert_false(enav_otlp_res_add(&r, "one.more", "v"));
}

static void test_timeout(void **state)
{
	uint32_t ms = 7;

	(void)state;
	assert_true(enav_otlp_env_timeout_ms("5000", &ms));
	assert_int_equal(ms, 5000);
	assert_true(enav_otlp_env_timeout_ms("120000", &ms));
	assert_true(enav_otlp_env_timeout_ms("100", &ms));
	ms = 7;
	/* atoi() took all of these (and overflowed on the last). */
	static const char *const bad[] = {
	    "",	     " 5000", "+5000",	"5000ms", "5000 ",
	    "-5000", "99",    "120001", "0x100",  "99999999999999999999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(enav_otlp_env_timeout_ms(bad[i], &ms));
	assert_false(enav_otlp_env_timeout_ms(NULL, &ms));
	assert_int_equal(ms, 7);
}

static void test_signal_url(void **state)
{
	char out[40];
	const char *p = "/v1/traces";

	(void)state;
	assert_true(enav_otlp_signal_url("http://f-sig", "http://f", "http://e-sig", "http://e", p,
					 out, sizeof(out)));
	assert_string_equal(out, "http://f-sig");
	assert_true(
	    enav_otlp_signal_url("", "http://f/", "http://e-sig", "http://e", p, out, sizeof(out)));
	assert_string_equal(out, "http://f/v1/traces");
	assert_true(
	    enav_otlp_signal_url(NULL, "", "http://e-sig", "http://e", p, out, sizeof(out)));
	assert_string_equal(out, "http://e-sig");
	assert_true(enav_otlp_signal_url(NULL, NULL, "", "http://e:4318/", p, out, sizeof(out)));
	assert_string_equal(out, "http://e:4318/v1/traces");
	assert_true(enav_otlp_signal_url(NULL, NULL, NULL, NULL, p, out, sizeof(out)));
	assert_string_equal(out, "");
	/* Too long for out: refused with "", never cut to another URL. */
	assert_false(enav_otlp_signal_url(NULL, NULL, NULL, "http://collector.example.org:4318", p,
					  out, sizeof(out)));
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_percent_decode), cmocka_unit_test(test_each_pair),
	    cmocka_unit_test(test_header_line),	   cmocka_unit_test(test_resource),
	    cmocka_unit_test(test_timeout),	   cmocka_unit_test(test_signal_url),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
