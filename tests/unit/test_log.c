/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The log sink's escaping (src/platform/log.c): tenant bytes in a message
 * (an executable's path, a Go version string) cannot end the line, forge
 * another, or send a terminal a control sequence.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "platform/log.h"

static const char *esc(const char *in, size_t n, size_t cap)
{
	static char out[256];
	assert_true(cap <= sizeof(out));
	size_t len = enav_log_escape(out, cap, in, n);
	assert_int_equal(len, strlen(out));
	return out;
}

#define ESC(lit) esc(lit, sizeof(lit) - 1, 256)

static void test_plain_kept(void **state)
{
	(void)state;
	assert_string_equal(ESC("tls: probing /usr/lib/libssl.so.3 (go1.22.1)"),
			    "tls: probing /usr/lib/libssl.so.3 (go1.22.1)");
	/* Well-formed UTF-8 stays as it is. */
	assert_string_equal(ESC("/srv/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x90\x9b"),
			    "/srv/caf\xc3\xa9/\xe2\x82\xac/\xf0\x9f\x90\x9b");
}

/* A path that would end the line and forge a second one, and a terminal
 * escape sequence that would clear the screen. */
static void test_controls_escaped(void **state)
{
	(void)state;
	assert_string_equal(ESC("/tmp/x\n2026-12-06T00:00:00.000Z enav error: forged"),
			    "/tmp/x\\n2026-12-06T00:00:00.000Z enav error: forged");
	assert_string_equal(ESC("a\rb\tc\x1b[2Jd\x7f"), "a\\rb\\tc\\x1b[2Jd\\x7f");
	assert_string_equal(esc("a\0b", 3, 256), "a\\x00b");
}

/* Bytes that are not UTF-8, overlong and surrogate encodings, and C1
 * controls (U+009B is CSI to some terminals) become \xNN. */
static void test_non_utf8_escaped(void **state)
{
	(void)state;
	assert_string_equal(ESC("go\xff\xfe"), "go\\xff\\xfe");
	assert_string_equal(ESC("\xc0\xaf"), "\\xc0\\xaf");	     /* overlong '/' */
	assert_string_equal(ESC("\xed\xa0\x80"), "\\xed\\xa0\\x80"); /* a surrogate */
	assert_string_equal(ESC("\xc2\x9b"
				"2J"),
			    "\\xc2\\x9b2J");		    /* C1 CSI */
	assert_string_equal(ESC("\xe2\x82"), "\\xe2\\x82"); /* cut short */
}

/* Bounded: never a half escape or half a character, always terminated. */
static void test_bounded(void **state)
{
	(void)state;
	assert_string_equal(esc("ab\ncd", 5, 4), "ab");
	assert_string_equal(esc("ab\ncd", 5, 5), "ab\\n");
	assert_string_equal(esc("a\xc3\xa9", 3, 3), "a");
	char big[200];
	memset(big, '\x01', sizeof(big));
	const char *o = esc(big, sizeof(big), 256);
	assert_int_equal(strlen(o), 252); /* 63 escapes of 4 bytes */
	char one[1] = {'x'};
	assert_int_equal(enav_log_escape(one, 1, "abc", 3), 0);
	assert_int_equal(one[0], '\0');
}

/* The sink itself: a message naming a hostile executable path is one line,
 * with no terminal control byte in it. */
static void test_sink_one_line(void **state)
{
	(void)state;
	char path[] = "/tmp/enav-test-log-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0);
	assert_int_equal(dup2(fd, 2), 2);
	enav_log(ENAV_LOG_ERROR, "tls: probing %s (%s)",
		 "/tmp/x\n2026-12-06T00:00:00.000Z enav error: forged\x1b[2J", "go1.22\r\x9b");
	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	char buf[1024];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(strstr(buf, "tls: probing /tmp/x\\n2026"));
	assert_ptr_equal(strchr(buf, '\n'), buf + n - 1); /* one line */
	for (ssize_t i = 0; i < n - 1; i++)
		assert_true((unsigned char)buf[i] >= 0x20 && buf[i] != 0x7f &&
			    (unsigned char)buf[i] != 0x9b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain_kept),	     cmocka_unit_test(test_controls_escaped),
	    cmocka_unit_test(test_non_utf8_escaped), cmocka_unit_test(test_bounded),
	    cmocka_unit_test(test_sink_one_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
