/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the reader of libbpf's refusal messages
 * (enav_bpf_refusal_feed in src/runtime/bpf_refusal.c).  The input is split
 * at newlines into lines, each handed over in its own allocation without a
 * terminator, as the agent's print callback hands them over.  Whatever the
 * lines, the blamed program, the failure and the kept lines stay
 * NUL-terminated within their caps, and the detail text fits its buffer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/bpf_refusal.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct enav_bpf_refusal r;
	memset(&r, 0, sizeof(r));
	const uint8_t *p = data, *end = data + size;
	while (p <= end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		char *line = malloc(len ? len : 1);
		if (!line)
			return 0;
		memcpy(line, p, len);
		enav_bpf_refusal_feed(&r, line, len);
		free(line);
		if (!nl)
			break;
		p = nl + 1;
	}
	CHECK(memchr(r.program, '\0', sizeof(r.program)) != NULL);
	CHECK(memchr(r.failure, '\0', sizeof(r.failure)) != NULL);
	for (int i = 0; i < ENAV_REFUSAL_LINES; i++)
		CHECK(memchr(r.lines[i], '\0', sizeof(r.lines[i])) != NULL);
	char detail[ENAV_REFUSAL_DETAIL_MAX];
	enav_bpf_refusal_detail(&r, detail, sizeof(detail));
	CHECK(memchr(detail, '\0', sizeof(detail)) != NULL);
	/* A small buffer is cut, never overrun. */
	char small[8];
	enav_bpf_refusal_detail(&r, small, sizeof(small));
	CHECK(memchr(small, '\0', sizeof(small)) != NULL);
	return 0;
}
