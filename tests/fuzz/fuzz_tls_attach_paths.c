/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the TLS prober's path logic (src/features/network/
 * tls/tls_candidate.c and platform/tenant_file.c): from a tenant's
 * /proc/PID/maps text to the decision of what to open.  The first byte says
 * which libraries are wanted (bit 0 openssl, bit 1 gnutls); the rest is maps
 * text, one line at a time.  For every line taken:
 *  - the path is absolute, NUL-free, within the cap, with a non-zero inode
 *    and a non-empty address range, and names a wanted library (the same
 *    answer enav_tls_library_of_path gives);
 *  - the decision is deterministic;
 *  - resolved under an empty directory as the process's root (openat2
 *    RESOLVE_IN_ROOT), whatever "..", "//" or symlink-free trick the path
 *    holds, it never opens anything: an escape from the root would.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "enav/abi.h"
#include "platform/tenant_file.h"
#include "features/network/tls/tls_candidate.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static int empty_root = -1;

static void line(const char *l, size_t len, bool openssl, bool gnutls)
{
	struct enav_tls_candidate a, b;
	bool took = enav_tls_candidate_of_maps_line(l, len, openssl, gnutls, &a);
	CHECK(took == enav_tls_candidate_of_maps_line(l, len, openssl, gnutls, &b));
	if (!took)
		return;
	size_t n = strnlen(a.path, sizeof(a.path));
	CHECK(n > 0 && n < sizeof(a.path) && a.path[0] == '/');
	CHECK(a.library == b.library && a.start == b.start && a.end == b.end && a.dev == b.dev &&
	      a.ino == b.ino && strcmp(a.path, b.path) == 0);
	CHECK(a.ino != 0 && a.end > a.start);
	CHECK(a.library == enav_tls_library_of_path(a.path));
	CHECK((a.library == ENAV_TLS_LIB_OPENSSL && openssl) ||
	      (a.library == ENAV_TLS_LIB_GNUTLS && gnutls));
	if (empty_root >= 0) {
		struct stat st;
		enum enav_tenant_refusal why = ENAV_TENANT_OK;
		struct enav_file_ident want = {a.dev, a.ino};
		int fd = enav_tenant_open_in_root(empty_root, a.path, &want, &st, &why);
		CHECK(fd < 0 && why != ENAV_TENANT_OK);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (empty_root < 0) {
		char dir[] = "/tmp/fuzz_tls_attach_paths.XXXXXX";
		if (mkdtemp(dir)) {
			empty_root = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
			rmdir(dir); /* still a root to resolve under, and nothing in it */
		}
	}
	if (size < 1)
		return 0;
	bool openssl = data[0] & 1, gnutls = data[0] & 2;
	const char *p = (const char *)data + 1, *end = (const char *)data + size;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		line(p, len, openssl, gnutls);
		p += len + 1;
	}
	return 0;
}
