/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for Go crypto/tls probe planning (src/features/network/tls/
 * go_tls.c).  The first input byte chooses:
 *  - even: the rest is machine code for enav_go_tls_find_returns; every
 *    return found lies inside the code, in increasing order, and the call
 *    is deterministic; and for enav_go_tls_find_body, whose answer lies
 *    inside the code;
 *  - odd: the rest is a file, written to a memfd and analysed as a binary
 *    a process runs (hostile ELF, symbol tables, DWARF, build info).  A
 *    plan that comes out OK must be self-consistent: probe offsets inside
 *    the file, at most ENAV_GO_TLS_MAX_RETURNS returns, offsets bounded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "features/network/tls/go_tls.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static void returns(const uint8_t *code, size_t len)
{
	uint64_t a[16], b[16];
	int n = enav_go_tls_find_returns(code, len, 0x400000, a, 16);
	CHECK(n >= -1 && n <= 16);
	CHECK(enav_go_tls_find_returns(code, len, 0x400000, b, 16) == n);
	for (int i = 0; i < n; i++) {
		CHECK(a[i] == b[i]);
		CHECK(a[i] >= 0x400000 && a[i] < 0x400000 + len);
		CHECK(i == 0 || a[i] > a[i - 1]);
	}
	/* The body starts inside the code, past at least a CMP and a JBE. */
	uint64_t body, check;
	if (enav_go_tls_find_body(code, len, 0x400000, &body, &check) == 0) {
		CHECK(body >= 0x400000 + 4 && body <= 0x400000 + len);
		CHECK(check >= 0x400000 + 4 && check < body);
	}
}

static void analyze(const uint8_t *data, size_t len)
{
	int fd = memfd_create("fuzz_go_tls", MFD_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, data, len) == (ssize_t)len) {
		char err[256];
		struct enav_go_tls_plan plan;
		enum enav_go_tls_status st = enav_go_tls_analyze(fd, NULL, &plan, err, sizeof(err));
		CHECK(st >= ENAV_GO_TLS_OK && st <= ENAV_GO_TLS_ERROR);
		if (st == ENAV_GO_TLS_OK) {
			CHECK(plan.read.n_returns >= 1 &&
			      plan.read.n_returns <= ENAV_GO_TLS_MAX_RETURNS);
			CHECK(plan.read.file_offset < len && plan.write.file_offset < len);
			for (uint32_t i = 0; i < plan.read.n_returns; i++)
				CHECK(plan.read.return_offsets[i] < len);
			CHECK(plan.offsets_source != NULL);
			CHECK(plan.conn_iface <= 4096 && plan.netfd_sysfd <= 8192);
		} else if (st == ENAV_GO_TLS_REFUSED || st == ENAV_GO_TLS_ERROR) {
			CHECK(err[0] != '\0' && memchr(err, '\n', strlen(err)) == NULL);
		}
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		analyze(data + 1, size - 1);
	else
		returns(data + 1, size - 1);
	return 0;
}
