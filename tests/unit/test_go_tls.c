/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Go crypto/tls probe planning: return instructions found by decoding (a
 * 0xC3 byte inside an immediate is not one; undecodable code is refused),
 * Go version parsing and the offsets table's bounds, what is not a Go
 * binary, which mapped files are TLS libraries and which maps lines the
 * prober takes (the mapping and the inode it must open, never a path
 * alone).  Analysis of a real Go
 * binary (DWARF offsets, stripped refusal) runs in
 * tests/integration/test_tls.sh, which builds one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <fcntl.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "enav/abi.h"
#include "features/network/tls/go_tls.h"
#include "features/network/tls/tls_attach.h"

static void test_find_returns(void **st)
{
	(void)st;
	static const uint8_t code[] = {
	    0x48, 0xc7, 0xc0, 0xc3, 0x00, 0x00, 0x00, /* mov rax, 0xc3 */
	    0xc3,				      /* ret            @ 7 */
	    0xb8, 0xc3, 0xc3, 0xc3, 0xc3,	      /* mov eax, 0xc3c3c3c3 */
	    0xc2, 0x08, 0x00,			      /* ret 8          @ 13 */
	    0x90,				      /* nop */
	    0xc3,				      /* ret            @ 17 */
	};
	uint64_t out[8];
	int n = enav_go_tls_find_returns(code, sizeof(code), 0x401000, out, 8);
	assert_int_equal(n, 3);
	assert_int_equal(out[0], 0x401007);
	assert_int_equal(out[1], 0x40100d);
	assert_int_equal(out[2], 0x401011);
	/* More returns than room: refused rather than a partial list. */
	assert_int_equal(enav_go_tls_find_returns(code, sizeof(code), 0x401000, out, 2), -1);
	/* An invalid opcode in 64-bit mode (push es): the function does not
	 * decode to its end, so its return list cannot be trusted. */
	static const uint8_t bad[] = {0x90, 0x06, 0xc3};
	assert_int_equal(enav_go_tls_find_returns(bad, sizeof(bad), 0x1000, out, 8), -1);
	/* A truncated instruction at the end is the same. */
	static const uint8_t cut[] = {0xc3, 0x48, 0xc7};
	assert_int_equal(enav_go_tls_find_returns(cut, sizeof(cut), 0x1000, out, 8), -1);
	assert_int_equal(enav_go_tls_find_returns(code, 0, 0x1000, out, 8), 0);
}

/* The probe goes past the stack-bound check, whose failure makes the
 * runtime restart the function from its entry (go1.19's own prologues). */
static void test_find_body(void **st)
{
	(void)st;
	/* (*Conn).Read: CMPQ 0x10(R14), SP; JBE; SUBQ $0x68, SP */
	static const uint8_t small[] = {0x49, 0x3b, 0x66, 0x10, 0x0f, 0x86, 0xc2,	   0x03,
					0x00, 0x00, 0x48, 0x83, 0xec, 0x68, [0x3cc] = 0xc3};
	uint64_t body = 0, check = 0;
	assert_int_equal(enav_go_tls_find_body(small, sizeof(small), 0x5a2d20, &body, &check), 0);
	assert_int_equal(body, 0x5a2d2a);
	assert_int_equal(check, 0x5a2d24);
	/* (*Conn).Write: LEAQ -0x68(SP), R12; CMPQ 0x10(R14), R12; JBE; SUBQ */
	static const uint8_t large[] = {0x4c, 0x8d, 0x64, 0x24, 0x98, 0x4d, 0x3b,	   0x66,
					0x10, 0x0f, 0x86, 0x64, 0x07, 0x00, 0x00,	   0x48,
					0x81, 0xec, 0xe8, 0x00, 0x00, 0x00, [0x780] = 0xc3};
	assert_int_equal(enav_go_tls_find_body(large, sizeof(large), 0x5a1860, &body, &check), 0);
	assert_int_equal(body, 0x5a186f);
	assert_int_equal(check, 0x5a1869);
	/* No check (a NOSPLIT function), a check on another field, or a JBE
	 * leaving the function: refused, never guessed. */
	static const uint8_t nosplit[] = {0x48, 0x83, 0xec, 0x68, 0xc3};
	assert_int_equal(enav_go_tls_find_body(nosplit, sizeof(nosplit), 0x1000, &body, &check),
			 -1);
	static const uint8_t other[] = {0x49, 0x3b, 0x66, 0x18, 0x0f, 0x86,
					0x10, 0x00, 0x00, 0x00, 0x90, [0x20] = 0xc3};
	assert_int_equal(enav_go_tls_find_body(other, sizeof(other), 0x1000, &body, &check), -1);
	static const uint8_t away[] = {0x49, 0x3b, 0x66, 0x10, 0x0f, 0x86,
				       0x00, 0x10, 0x00, 0x00, 0xc3};
	assert_int_equal(enav_go_tls_find_body(away, sizeof(away), 0x1000, &body, &check), -1);
	assert_int_equal(enav_go_tls_find_body(small, 6, 0x5a2d20, &body, &check),
			 -1); /* cut JBE */
}

static void test_versions(void **st)
{
	(void)st;
	int ma, mi;
	assert_true(enav_go_version_parse("go1.19.8", &ma, &mi));
	assert_int_equal(ma, 1);
	assert_int_equal(mi, 19);
	assert_true(enav_go_version_parse("go1.21rc2", &ma, &mi));
	assert_int_equal(mi, 21);
	assert_false(enav_go_version_parse("devel go1.22-abc", &ma, &mi));
	assert_false(enav_go_version_parse("go", &ma, &mi));
	assert_false(enav_go_version_parse("go1", &ma, &mi));
	assert_false(enav_go_version_parse("", &ma, &mi));
	uint32_t a = 9, b = 9, c = 9;
	assert_true(enav_go_tls_table_offsets("go1.17", &a, &b, &c));
	assert_int_equal(a, 0);
	assert_int_equal(b, 0);
	assert_int_equal(c, 16);
	assert_true(enav_go_tls_table_offsets("go1.23.4", &a, &b, &c));
	/* Before the register ABI, and after the last version checked. */
	assert_false(enav_go_tls_table_offsets("go1.16.15", &a, &b, &c));
	assert_false(enav_go_tls_table_offsets("go1.24.0", &a, &b, &c));
	assert_false(enav_go_tls_table_offsets("go2.0", &a, &b, &c));
}

static void test_not_go(void **st)
{
	(void)st;
	struct enav_go_tls_plan plan;
	char err[256];
	/* This test binary is C: nothing to say about it. */
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(enav_go_tls_analyze(fd, NULL, &plan, err, sizeof(err)),
			 ENAV_GO_TLS_NOT_GO);
	close(fd);
}

static void test_library_paths(void **st)
{
	(void)st;
	assert_int_equal(enav_tls_library_of_path("/usr/lib/x86_64-linux-gnu/libssl.so.3"),
			 ENAV_TLS_LIB_OPENSSL);
	assert_int_equal(enav_tls_library_of_path("/opt/lib/libssl.so.1.1"), ENAV_TLS_LIB_OPENSSL);
	assert_int_equal(enav_tls_library_of_path("/lib/libgnutls.so.30.34.3"),
			 ENAV_TLS_LIB_GNUTLS);
	assert_int_equal(enav_tls_library_of_path("/lib/libcrypto.so.3"), ENAV_TLS_LIB_NONE);
	assert_int_equal(enav_tls_library_of_path("/usr/lib/libssl3.so"), ENAV_TLS_LIB_NONE);
	assert_int_equal(enav_tls_library_of_path("/libssl.so.3/libfoo.so"), ENAV_TLS_LIB_NONE);
	assert_int_equal(enav_tls_library_of_path("libgnutls-dane.so.0"), ENAV_TLS_LIB_NONE);
}

static void test_candidates(void **st)
{
	(void)st;
	struct enav_tls_candidate c;
	static const char ok[] = "7f1a8b72e000-7f1a8b78b000 r-xp 0001f000 fe:01 11011673     "
				 "          /usr/lib/x86_64-linux-gnu/libssl.so.3";
	assert_true(enav_tls_candidate_of_maps_line(ok, strlen(ok), true, false, &c));
	assert_int_equal(c.library, ENAV_TLS_LIB_OPENSSL);
	assert_true(c.start == 0x7f1a8b72e000ull && c.end == 0x7f1a8b78b000ull);
	assert_true(c.dev == makedev(0xfe, 1) && c.ino == 11011673);
	assert_string_equal(c.path, "/usr/lib/x86_64-linux-gnu/libssl.so.3");
	/* OpenSSL not wanted; not executable; deleted; no inode; relative. */
	assert_false(enav_tls_candidate_of_maps_line(ok, strlen(ok), false, true, &c));
	static const char *const no[] = {
	    "7f00-7f10 r--p 00000000 fe:01 7 /lib/libssl.so.3",
	    "7f00-7f10 r-xp 00000000 fe:01 7 /lib/libssl.so.3 (deleted)",
	    "7f00-7f10 r-xp 00000000 00:00 0 /lib/libssl.so.3",
	    "7f00-7f10 r-xp 00000000 fe:01 7 libssl.so.3",
	    "7f00-7f10 r-xp 00000000 fe:01 7 /lib/libcrypto.so.3",
	    "7f00-7f10 r-xp 00000000 00:00 0 [vdso]",
	};
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(enav_tls_candidate_of_maps_line(no[i], strlen(no[i]), true, true, &c));
	static const char gnutls[] = "55d0-55e0 r-xp 00000000 00:22 9 /opt/lib/libgnutls.so.30";
	assert_true(enav_tls_candidate_of_maps_line(gnutls, strlen(gnutls), false, true, &c));
	assert_int_equal(c.library, ENAV_TLS_LIB_GNUTLS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_find_returns),  cmocka_unit_test(test_find_body),
	    cmocka_unit_test(test_versions),	  cmocka_unit_test(test_not_go),
	    cmocka_unit_test(test_library_paths), cmocka_unit_test(test_candidates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
