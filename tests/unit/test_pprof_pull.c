/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the /proc/net/tcp{,6} reader of the pprof pull discovery
 * (src/features/profiling/pprof_pull.c): the kernel's lines are read, loopback
 * listeners kept, and anything not in the kernel's exact format refused (a
 * sign, a 0x prefix or a blank that strtoul or scanf would take), as is the
 * tail of a line longer than the reader's buffer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/profiling/pprof_pull.h"

#define HDR4                                                                                       \
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "      \
	"timeout inode\n"
/* One /proc/net/tcp line as the kernel prints it (tcp4_seq_show). */
#define LINE4(sl, local, rem, st, uid, inode)                                                      \
	"  " sl ": " local " " rem " " st " 00000000:00000000 00:00000000 00000000  " uid          \
	"        0 " inode " 1 0000000000000000 100 0 0 10 0\n"
#define Z6  "00000000000000000000000000000000"
#define LO6 "00000000000000000000000001000000"

static bool parse(const char *line, bool ipv6, struct enav_listen_socket *out)
{
	/* Exact-size copy: ASan sees a read past the line. */
	char *copy = strdup(line);

	assert_non_null(copy);
	bool ok = enav_parse_proc_net_tcp_line(copy, ipv6, out);
	free(copy);
	return ok;
}

static size_t read_text(const char *text, bool ipv6, struct enav_listen_socket *out, size_t cap)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(f);
	size_t n = enav_read_proc_net_tcp(f, ipv6, out, cap);
	fclose(f);
	return n;
}

static void test_listeners(void **state)
{
	struct enav_listen_socket s;

	(void)state;
	assert_true(
	    parse(LINE4("0", "0100007F:17AC", "00000000:0000", "0A", "1000", "23457"), false, &s));
	assert_int_equal(s.port, 6060);
	assert_int_equal(s.inode, 23457);
	assert_true(s.v4_loopback);
	assert_false(s.v6_loopback);
	assert_true(parse(LINE4("1", "00000000:1F90", "00000000:0000", "0A", "0", "9"), false, &s));
	assert_int_equal(s.port, 8080);
	assert_true(parse(LINE4("0", LO6 ":17AC", Z6 ":0000", "0A", "0", "33457"), true, &s));
	assert_true(s.v6_loopback);
	assert_false(s.v4_loopback);
	assert_int_equal(s.inode, 33457);
	/* The kernel glues nothing, but a missing blank after "sl:" is read. */
	assert_true(parse("0:0100007F:17AC 00000000:0000 0A 0:0 0:0 0 0 0 99", false, &s));
	assert_int_equal(s.inode, 99);
	/* Not listening, not loopback, the other family, inode 0. */
	assert_false(
	    parse(LINE4("0", "0100007F:17AC", "0100007F:C822", "01", "0", "5"), false, &s));
	assert_false(
	    parse(LINE4("0", "0A00020F:0016", "00000000:0000", "0A", "0", "5"), false, &s));
	assert_false(parse(LINE4("0", "0100007F:17AC", "00000000:0000", "0A", "0", "5"), true, &s));
	assert_false(
	    parse(LINE4("0", "0100007F:17AC", "00000000:0000", "0A", "0", "0"), false, &s));
	assert_false(parse(HDR4, false, &s));
	assert_false(parse("", false, &s));
}

/* What strtoul and scanf accept but the kernel never prints. */
static void test_strict_fields(void **state)
{
	static const char *const bad[] = {
	    LINE4("0", "0100007F:+17A", "00000000:0000", "0A", "0", "5"), /* sign */
	    LINE4("0", "0100007F:-001", "00000000:0000", "0A", "0", "5"), /* sign */
	    LINE4("0", "0100007F:0x1A", "00000000:0000", "0A", "0", "5"), /* 0x prefix */
	    LINE4("0", "0100007F:17A", "00000000:0000", "0A", "0", "5"),  /* 3 digits */
	    LINE4("0", "0100007F:0000", "00000000:0000", "0A", "0", "5"), /* port 0 */
	    LINE4("0", "100007F:17AC", "00000000:0000", "0A", "0", "5"),  /* 7 digits */
	    LINE4("0", "0100007F:17AC", "00000000:0000", "0A", "0", "-5"),
	    LINE4("0", "0100007F:17AC", "00000000:0000", "0A", "0", "+5"),
	    LINE4("0", "0100007F:17AC", "00000000:0000", "0A", "0", "99999999999999999999"),
	    LINE4("0", "0100007F:17AC", "00000000:0000", "0A", "-1", "5"),
	    LINE4("0", "0100007F:17AC", "00000000:0000", "0A0", "0", "5"),
	    LINE4("-1", "0100007F:17AC", "00000000:0000", "0A", "0", "5"),
	    /* A local address past 63 bytes: scanf's %63s split it in two fields. */
	    ("0: 000000000000000000000000000000000000000000000000000000000000000000000000:17AC "
	     "00000000:0000 0A 0:0 0:0 0 0 0 5\n"),
	    /* Too few fields. */
	    "   0: 0100007F:17AC 00000000:0000 0A 0:0 0:0 0 0 0\n",
	};
	struct enav_listen_socket s;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&s, 0x5a, sizeof(s));
		if (parse(bad[i], false, &s))
			fail_msg("accepted: %s", bad[i]);
		/* Nothing written on a refusal. */
		assert_int_equal(s.inode, 0x5a5a5a5a5a5a5a5aull);
	}
}

/* The stream reader: every listener in order, up to cap; an overlong line is
 * skipped whole, never read again from where the buffer cut it. */
static void test_stream(void **state)
{
	static const char text[] =
	    HDR4 LINE4("0", "0100007F:17AC", "00000000:0000", "0A", "0", "11")
		LINE4("1", "0A00020F:0016", "00000000:0000", "0A", "0", "12")
		    LINE4("2", "00000000:1F90", "00000000:0000", "0A", "0",
			  "13") "   3: 0100007F:17AD 00000000:0000 0A 0:0 0:0 0 0 0 14";
	struct enav_listen_socket s[8];

	(void)state;
	assert_int_equal(read_text(text, false, s, 8), 3);
	assert_int_equal(s[0].inode, 11);
	assert_int_equal(s[1].inode, 13);
	assert_int_equal(s[2].inode, 14); /* no newline at the end */
	assert_int_equal(read_text(text, false, s, 1), 1);
	assert_int_equal(s[0].inode, 11);
	assert_int_equal(read_text(text, false, s, 0), 0);

	/* 511 bytes fill the reader's buffer; the old one then read the rest
	 * of the line, a valid-looking listener, as a line of its own. */
	char *over = malloc(4096);
	assert_non_null(over);
	int n = snprintf(over, 4096, "   0: %0505d", 0);
	assert_int_equal(n, 511);
	snprintf(over + n, 4096 - (size_t)n, "%s",
		 LINE4("1", "0100007F:17AC", "00000000:0000", "0A", "0", "21")
		     LINE4("2", "0100007F:17AD", "00000000:0000", "0A", "0", "22"));
	assert_int_equal(read_text(over, false, s, 8), 1);
	assert_int_equal(s[0].inode, 22);
	free(over);

	/* A line holding a NUL is skipped whole; the next one is read. */
	static const char nul[] = LINE4("0", "0100007F:17AC", "00000000:0000", "0A", "0", "31")
	    LINE4("1", "0100007F:17AD", "00000000:0000", "0A", "0", "32");
	char buf[sizeof(nul)];
	memcpy(buf, nul, sizeof(nul));
	buf[10] = '\0';
	FILE *f = fmemopen(buf, sizeof(nul) - 1, "r");
	assert_non_null(f);
	assert_int_equal(enav_read_proc_net_tcp(f, false, s, 8), 1);
	fclose(f);
	assert_int_equal(s[0].inode, 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_listeners),
	    cmocka_unit_test(test_strict_fields),
	    cmocka_unit_test(test_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
