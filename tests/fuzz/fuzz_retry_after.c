/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the OTLP worker's Retry-After parser
 * (enav_otlp_retry_after in src/exporters/otlp/otlp_worker.c), the code its
 * libcurl header callback runs on every response header line.
 *
 * The input is one header line, handed over as libcurl does: exactly its
 * bytes in their own allocation, not NUL-terminated, so ASan flags any read
 * past it.  It is parsed at three clocks and three caps; the verdict and the
 * wait are recomputed here independently (delta-seconds digit by digit, an
 * HTTP-date through libcurl's own curl_getdate) and must agree, and the wait
 * never exceeds its cap.
 */
#include <curl/curl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "exporters/otlp/otlp_worker.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The value as RFC 9110 frames it: after the name and optional blanks, less
 * trailing CR, LF and blanks.  False when the line is not a Retry-After. */
static bool value_of(const char *line, size_t n, const char **v, size_t *len)
{
	static const char name[] = "Retry-After:";
	size_t i = sizeof(name) - 1;

	if (n <= i || strncasecmp(line, name, i) != 0)
		return false;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	*v = line + i;
	*len = n - i;
	while (*len && strchr("\r\n \t", (*v)[*len - 1]) && (*v)[*len - 1] != '\0')
		(*len)--;
	return true;
}

/* What the parser must answer, worked out without it. */
static bool expect(const char *line, size_t n, time_t now, uint64_t cap, uint32_t *ms)
{
	const char *v;
	size_t len;
	uint64_t secs = 0;
	bool big = false;

	if (!value_of(line, n, &v, &len) || len == 0 || len >= 64 || memchr(v, '\0', len))
		return false;
	if (v[0] >= '0' && v[0] <= '9') {
		for (size_t i = 0; i < len; i++) {
			if (v[i] < '0' || v[i] > '9')
				return false;
			/* Past 2^64 s the cap wins whatever the cap is. */
			if (!big && __builtin_mul_overflow(secs, 10, &secs))
				big = true;
			if (!big && __builtin_add_overflow(secs, (uint64_t)(v[i] - '0'), &secs))
				big = true;
		}
	} else {
		char date[64];

		memcpy(date, v, len);
		date[len] = '\0';
		time_t t = curl_getdate(date, NULL);
		if (t == (time_t)-1 || t <= now)
			return false;
		secs = (uint64_t)t - (uint64_t)now;
	}
	uint64_t m;

	if (big || __builtin_mul_overflow(secs, 1000, &m) || m > cap)
		m = cap;
	*ms = m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Wed, 21 Oct 2015 07:28:00 GMT is in RFC 9110's example: one clock
	 * before it, one after, and one near the end of time_t's dates. */
	static const time_t clocks[] = {1445412470, 1445412490, (time_t)1 << 40};
	/* 4 * backoff_max_ms at the config floor, the default, and the most a
	 * u32 backoff_max_ms gives. */
	static const uint64_t caps[] = {4 * 500ull, 4 * 30000ull, 4ull * UINT32_MAX};

	if (size > 4096)
		return 0;
	char *line = malloc(size ? size : 1);

	CHECK(line != NULL);
	if (size)
		memcpy(line, data, size);
	for (size_t c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++) {
		for (size_t k = 0; k < sizeof(caps) / sizeof(caps[0]); k++) {
			uint32_t got = 0xa5a5a5a5u, want = 0x5a5a5a5au;
			bool ok = enav_otlp_retry_after(line, size, clocks[c], caps[k], &got);

			CHECK(ok == expect(line, size, clocks[c], caps[k], &want));
			if (ok) {
				CHECK(got == want);
				CHECK(got <= caps[k]);
			} else {
				CHECK(got == 0xa5a5a5a5u); /* untouched */
			}
		}
	}
	free(line);
	return 0;
}
