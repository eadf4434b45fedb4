/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the cheap uprobe sites of TLS library functions
 * (src/features/network/tls/tls_sites.c).  The first input byte chooses:
 *  - even: the rest is a function's machine code; a site found lies inside
 *    the code on an instruction the kernel emulates, and the answer is
 *    deterministic;
 *  - odd: the rest is a file, written to a memfd and read as a library
 *    (hostile ELF, dynamic symbol tables): every function read lies inside
 *    the file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "features/network/tls/tls_sites.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define VADDR 0x400000

static void site_ok(const uint8_t *code, size_t len, uint64_t at)
{
	CHECK(at >= VADDR && at < VADDR + len);
	size_t off = at - VADDR;
	size_t room = len - off;
	/* The emulated forms are 1, 2, 5 or 6 bytes long. */
	bool emulated = false;
	for (size_t n = 1; n <= 6 && n <= room; n++)
		emulated |= enav_tls_insn_emulated(code + off, n);
	CHECK(emulated);
}

static void sites(const uint8_t *code, size_t len)
{
	uint64_t a = 0, b = 0;
	int e = enav_tls_entry_site(code, len, VADDR, ENAV_TLS_ARG_RDI | ENAV_TLS_ARG_RSI, &a);
	CHECK(e == 0 || e == -1);
	CHECK(enav_tls_entry_site(code, len, VADDR, ENAV_TLS_ARG_RDI | ENAV_TLS_ARG_RSI, &b) == e);
	if (e == 0) {
		CHECK(a == b);
		site_ok(code, len, a);
	}
	int r = enav_tls_return_site(code, len, VADDR, &a);
	CHECK(r == 0 || r == -1);
	CHECK(enav_tls_return_site(code, len, VADDR, &b) == r);
	if (r == 0) {
		CHECK(a == b);
		site_ok(code, len, a);
	}
}

static void library(const uint8_t *data, size_t len)
{
	int fd = memfd_create("fuzz_tls_sites", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, data, len) == (ssize_t)len) {
		static const char *const names[] = {"SSL_read", "SSL_write", "gnutls_record_recv"};
		struct enav_tls_func_code f[3];
		enav_tls_read_functions(fd, names, 3, f, NULL);
		for (int i = 0; i < 3; i++) {
			if (f[i].code) {
				CHECK(f[i].len > 0 && f[i].file_offset + f[i].len <= len);
				sites(f[i].code, f[i].len);
			}
			free(f[i].code);
		}
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		library(data + 1, size - 1);
	else
		sites(data + 1, size - 1);
	return 0;
}
