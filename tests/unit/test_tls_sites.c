/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Cheap uprobe sites in TLS library functions: which instructions the
 * kernel emulates, and the entry and return sites found (or refused) in
 * hand-assembled functions shaped like OpenSSL 3's SSL_read (a wrapper with
 * a stack-protector check) and GnuTLS's gnutls_record_send (a tail call).
 * The real libssl is probed in tests/integration/test_tls.sh; here it is
 * read from a descriptor: whole, cut short at several points (what a
 * tenant truncating its file meanwhile leaves: an error, never a SIGBUS,
 * since nothing is mapped), and under a byte budget it exceeds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "platform/tenant_file.h"
#include "features/network/tls/tls_sites.h"

#define BASE 0x35430

/* A wrapper: argument check, the work, the result, the canary check. */
static const uint8_t wrapper[] = {
    0x48, 0x83, 0xec, 0x18,	  /* 00 sub $0x18,%rsp */
    0x31, 0xc0,			  /* 04 xor %eax,%eax */
    0x85, 0xd2,			  /* 06 test %edx,%edx */
    0x78, 0x14,			  /* 08 js 1e            <- entry site */
    0xe8, 0x00, 0x00, 0x00, 0x00, /* 0a call 0f */
    0x8b, 0x04, 0x24,		  /* 0f mov (%rsp),%eax (joined by 23) */
    0x48, 0x85, 0xd2,		  /* 12 test %rdx,%rdx */
    0x75, 0x0e,			  /* 15 jne 25           <- return site */
    0x48, 0x83, 0xc4, 0x18,	  /* 17 add $0x18,%rsp */
    0x31, 0xff,			  /* 1b xor %edi,%edi */
    0xc3,			  /* 1d ret */
    0xb8, 0xff, 0xff, 0xff, 0xff, /* 1e mov $-1,%eax */
    0xeb, 0xea,			  /* 23 jmp 0f */
    0xe8, 0x00, 0x00, 0x00, 0x00, /* 25 call (the failure: never returns) */
};

#define ARGS (ENAV_TLS_ARG_RDI | ENAV_TLS_ARG_RSI)

static void test_emulated(void **st)
{
	(void)st;
	static const uint8_t push_rbx[] = {0x53}, push_r12[] = {0x41, 0x54}, ret[] = {0xc3},
			     sub[] = {0x48, 0x83, 0xec, 0x18}, jne32[] = {0x0f, 0x85, 0, 0, 0, 0},
			     call[] = {0xe8, 0, 0, 0, 0}, jmp16[] = {0x66, 0xe9, 0, 0},
			     test[] = {0x48, 0x85, 0xff};
	assert_true(enav_tls_insn_emulated(push_rbx, sizeof(push_rbx)));
	assert_true(enav_tls_insn_emulated(push_r12, sizeof(push_r12)));
	assert_true(enav_tls_insn_emulated(jne32, sizeof(jne32)));
	assert_true(enav_tls_insn_emulated(call, sizeof(call)));
	assert_false(enav_tls_insn_emulated(ret, sizeof(ret)));
	assert_false(enav_tls_insn_emulated(sub, sizeof(sub)));
	assert_false(enav_tls_insn_emulated(jmp16, sizeof(jmp16))); /* prefixed: stepped */
	assert_false(enav_tls_insn_emulated(test, sizeof(test)));
	/* At the start of longer code: go1.19's JBE (rel32) and SUBQ. */
	static const uint8_t jbe_then[] = {0x0f, 0x86, 0xc2, 0x03, 0x00, 0x00, 0x48, 0x83},
			     sub_then[] = {0x48, 0x83, 0xec, 0x68, 0x53, 0x53, 0x53, 0x53};
	assert_true(enav_tls_starts_emulated(jbe_then, sizeof(jbe_then)));
	assert_false(enav_tls_starts_emulated(jbe_then, 5)); /* cut */
	assert_false(enav_tls_starts_emulated(sub_then, sizeof(sub_then)));
	assert_true(enav_tls_starts_emulated(push_rbx, sizeof(push_rbx)));
}

static void test_wrapper_sites(void **st)
{
	(void)st;
	uint64_t at = 0;
	assert_int_equal(enav_tls_entry_site(wrapper, sizeof(wrapper), BASE, ARGS, &at), 0);
	assert_int_equal(at, BASE + 0x08);
	assert_int_equal(enav_tls_return_site(wrapper, sizeof(wrapper), BASE, &at), 0);
	assert_int_equal(at, BASE + 0x15);
}

static void test_entry_refusals(void **st)
{
	(void)st;
	uint8_t c[sizeof(wrapper)];
	uint64_t at = 0;
	/* An argument register written before the first emulated instruction
	 * (xor %eax,%eax made xor %esi,%esi). */
	memcpy(c, wrapper, sizeof(c));
	c[5] = 0xf6;
	assert_int_equal(enav_tls_entry_site(c, sizeof(c), BASE, ARGS, &at), -1);
	/* ...unless the entry program does not read it. */
	assert_int_equal(enav_tls_entry_site(c, sizeof(c), BASE, ENAV_TLS_ARG_RDI, &at), 0);
	assert_int_equal(at, BASE + 0x08);
	/* A jump back to before the site: it could run twice in one call. */
	memcpy(c, wrapper, sizeof(c));
	c[0x24] = 0xdf; /* jmp 04 */
	assert_int_equal(enav_tls_entry_site(c, sizeof(c), BASE, ARGS, &at), -1);
	/* A return before any emulated instruction. */
	static const uint8_t early_ret[] = {0x48, 0x85, 0xff, 0xc3, 0x53, 0xc3};
	assert_int_equal(enav_tls_entry_site(early_ret, sizeof(early_ret), BASE, ARGS, &at), -1);
	/* Undecodable bytes (push es does not exist in 64-bit mode). */
	static const uint8_t bad[] = {0x48, 0x85, 0xff, 0x06, 0x53, 0xc3};
	assert_int_equal(enav_tls_entry_site(bad, sizeof(bad), BASE, ARGS, &at), -1);
}

static void test_return_refusals(void **st)
{
	(void)st;
	uint8_t c[sizeof(wrapper)];
	uint64_t at = 0;
	/* RAX written after the site (xor %edi,%edi made xor %eax,%eax). */
	memcpy(c, wrapper, sizeof(c));
	c[0x1c] = 0xc0;
	assert_int_equal(enav_tls_return_site(c, sizeof(c), BASE, &at), -1);
	/* Two returns (the error path returns by itself). */
	memcpy(c, wrapper, sizeof(c));
	c[0x23] = 0xc3;
	c[0x24] = 0x90;
	assert_int_equal(enav_tls_return_site(c, sizeof(c), BASE, &at), -1);
	/* A jump into the line between the site and the ret. */
	memcpy(c, wrapper, sizeof(c));
	c[0x24] = 0xf2; /* jmp 17 */
	assert_int_equal(enav_tls_return_site(c, sizeof(c), BASE, &at), -1);
	/* The site's taken path comes back (jne 1e, which jumps to 0f): the
	 * site could run twice. */
	memcpy(c, wrapper, sizeof(c));
	c[0x16] = 0x07;
	assert_int_equal(enav_tls_return_site(c, sizeof(c), BASE, &at), -1);
	/* An indirect jump anywhere (jmp *%rax for the failure). */
	memcpy(c, wrapper, sizeof(c));
	c[0x25] = 0xff;
	c[0x26] = 0xe0;
	memset(c + 0x27, 0x90, 3);
	assert_int_equal(enav_tls_return_site(c, sizeof(c), BASE, &at), -1);
	assert_int_equal(enav_tls_entry_site(c, sizeof(c), BASE, ARGS, &at), -1);
}

/* gnutls_record_send's shape: set two arguments, tail-call the real one. */
static void test_tail_call(void **st)
{
	(void)st;
	static const uint8_t tail[] = {
	    0x45, 0x31, 0xc0,		  /* xor %r8d,%r8d */
	    0x31, 0xc9,			  /* xor %ecx,%ecx */
	    0xe9, 0x00, 0x10, 0x00, 0x00, /* jmp (outside the function) */
	};
	uint64_t at = 0;
	assert_int_equal(enav_tls_entry_site(tail, sizeof(tail), BASE, ARGS, &at), 0);
	assert_int_equal(at, BASE + 5);
	assert_int_equal(
	    enav_tls_entry_site(tail, sizeof(tail), BASE, ARGS | ENAV_TLS_ARG_RCX, &at), -1);
	/* Its return is the callee's: no site in this function. */
	assert_int_equal(enav_tls_return_site(tail, sizeof(tail), BASE, &at), -1);
}

#define LIBSSL "/usr/lib/x86_64-linux-gnu/libssl.so.3"

static const char *const ssl_names[] = {"SSL_read", "SSL_write", "SSL_free"};

/* A copy of the system's libssl, cut to len bytes (0: whole), in a memfd. */
static int libssl_copy(size_t len)
{
	int src = open(LIBSSL, O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return -1;
	struct stat st;
	int fd = memfd_create("libssl", MFD_CLOEXEC);
	char *buf = fstat(src, &st) == 0 ? malloc((size_t)st.st_size) : NULL;
	size_t n = len && len < (size_t)st.st_size ? len : (size_t)st.st_size;
	bool ok = fd >= 0 && buf && pread(src, buf, (size_t)st.st_size, 0) == st.st_size &&
		  write(fd, buf, n) == (ssize_t)n;
	free(buf);
	close(src);
	if (!ok && fd >= 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void free_codes(struct enav_tls_func_code *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].code);
}

static void test_read_through_fd(void **st)
{
	(void)st;
	if (access(LIBSSL, R_OK) != 0)
		skip();
	struct enav_tls_func_code f[3];
	int fd = libssl_copy(0);
	assert_true(fd >= 0);
	assert_int_equal(enav_tls_read_functions(fd, ssl_names, 3, f, NULL), 0);
	for (int i = 0; i < 3; i++)
		assert_true(f[i].found && f[i].code && f[i].len > 0 && f[i].file_offset > 0);
	free_codes(f, 3);
	/* A budget smaller than the symbol table refuses, and says so. */
	struct enav_tenant_budget b;
	enav_tenant_budget_init(&b, 1024, 0);
	assert_int_equal(enav_tls_read_functions(fd, ssl_names, 3, f, &b), -1);
	assert_true(b.exhausted);
	free_codes(f, 3);
	close(fd);
	/* Cut short: whatever is read is in the file, nothing crashes. */
	static const size_t cuts[] = {1, 64, 4096, 65536, 200000, 400000, 600000};
	for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
		fd = libssl_copy(cuts[c]);
		assert_true(fd >= 0);
		enav_tls_read_functions(fd, ssl_names, 3, f, NULL);
		for (int i = 0; i < 3; i++)
			assert_true(!f[i].code || f[i].file_offset + f[i].len <= cuts[c]);
		free_codes(f, 3);
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_emulated),	   cmocka_unit_test(test_wrapper_sites),
	    cmocka_unit_test(test_entry_refusals), cmocka_unit_test(test_return_refusals),
	    cmocka_unit_test(test_tail_call),	   cmocka_unit_test(test_read_through_fd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
