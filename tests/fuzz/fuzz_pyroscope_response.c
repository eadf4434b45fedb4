/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for how the Pyroscope exporter reads the server's answer
 * to a push (enav_pyroscope_reply_body and enav_pyroscope_verdict in
 * src/exporters/pyroscope/pyroscope.c), the code its libcurl write callback
 * and send step run.
 *
 * The input: byte 0 bit 0 says whether an answer came at all; bytes 1-2 are
 * its status (little-endian, modulo 1000); byte 3 seeds the chunk sizes; the
 * rest is the body.  The body is handed over as libcurl does, in chunks of
 * exactly their size in their own allocations, not NUL-terminated, so ASan
 * flags any read past one.  The verdict and the excerpt are worked out here
 * independently and must agree: sent on 2xx, retried on 429 and 5xx and
 * without an answer, refused otherwise; the excerpt is the body's first
 * line without CRs, at most ENAV_PYROSCOPE_EXCERPT characters, every other
 * byte outside printable ASCII, every quote and backslash shown as '?',
 * NUL-terminated at its length;
 * every byte is counted; and the same body in one chunk gives the same
 * reply.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exporters/pyroscope/pyroscope.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "fuzz_pyroscope_response: check failed: %s\n", #c);        \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static enum enav_export_result expected_verdict(bool answered, long status)
{
	if (!answered)
		return ENAV_EXPORT_UNREACHABLE;
	if (status / 100 == 2)
		return ENAV_EXPORT_SENT;
	if (status == 429 || status / 100 >= 5)
		return ENAV_EXPORT_RETRY;
	return ENAV_EXPORT_REJECTED;
}

/* The excerpt of body: its first line, CRs dropped, the rest printable. */
static size_t expected_excerpt(const uint8_t *body, size_t n, char *out)
{
	size_t len = 0;

	for (size_t i = 0; i < n && body[i] != '\n' && len < ENAV_PYROSCOPE_EXCERPT; i++) {
		if (body[i] == '\r')
			continue;
		bool shown = body[i] >= ' ' && body[i] <= '~' && !strchr("\"\\", body[i]);
		out[len++] = shown ? (char)body[i] : '?';
	}
	out[len] = '\0';
	return len;
}

static void feed(struct enav_pyroscope_reply *r, const uint8_t *body, size_t n, uint8_t seed)
{
	size_t off = 0;
	uint32_t x = seed | 1u;

	while (off < n) {
		/* Chunk sizes from 1 to 64, or the whole body when the seed is 0. */
		x = x * 1103515245u + 12345u;
		size_t k = seed ? 1 + (x >> 16) % 64 : n;
		if (k > n - off)
			k = n - off;
		char *chunk = malloc(k);
		CHECK(chunk != NULL);
		memcpy(chunk, body + off, k);
		enav_pyroscope_reply_body(r, chunk, k);
		free(chunk);
		off += k;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct enav_pyroscope_reply r = {0}, whole = {0};
	char want[ENAV_PYROSCOPE_EXCERPT + 1];

	if (size < 4)
		return 0;
	bool answered = data[0] & 1;
	long status = (long)((data[1] | (unsigned)data[2] << 8) % 1000);
	uint8_t seed = data[3];
	const uint8_t *body = data + 4;
	size_t n = size - 4;

	r.answered = whole.answered = answered;
	r.status = whole.status = status;
	feed(&r, body, n, seed);
	feed(&whole, body, n, 0);

	CHECK(enav_pyroscope_verdict(&r) == expected_verdict(answered, status));
	CHECK(r.body_len == n);
	size_t len = expected_excerpt(body, n, want);
	CHECK(r.excerpt_len == len && len <= ENAV_PYROSCOPE_EXCERPT);
	CHECK(r.excerpt[len] == '\0' && strlen(r.excerpt) == len);
	CHECK(memcmp(r.excerpt, want, len) == 0);
	for (size_t i = 0; i < len; i++)
		CHECK(r.excerpt[i] >= ' ' && r.excerpt[i] <= '~' && r.excerpt[i] != '"' &&
		      r.excerpt[i] != '\\');
	CHECK(whole.body_len == r.body_len && whole.excerpt_len == r.excerpt_len);
	CHECK(strcmp(whole.excerpt, r.excerpt) == 0);
	CHECK(enav_pyroscope_verdict(&whole) == enav_pyroscope_verdict(&r));
	return 0;
}
