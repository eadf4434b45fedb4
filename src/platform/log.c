/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static _Atomic int log_level = ENAV_LOG_INFO;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void enav_log_set_level(enum enav_log_level level)
{
	atomic_store(&log_level, (int)level);
}

enum enav_log_level enav_log_get_level(void)
{
	return (enum enav_log_level)atomic_load(&log_level);
}

/* Length of the well-formed UTF-8 sequence at s (at most n bytes), 0 when
 * it is not one, or encodes a C1 control (U+0080..U+009F, which some
 * terminals obey as they do ESC sequences). */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t cp, min;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2, cp = c & 0x1f, min = 0xa0; /* U+0080..U+009F: C1, escaped */
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3, cp = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4, cp = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t enav_log_escape(char *out, size_t cap, const char *in, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;
	if (!cap)
		return 0;
	for (size_t i = 0; i < n;) {
		char esc[5];
		size_t elen = 0, take = 1;
		unsigned char c = s[i];
		if (c == '\n' || c == '\r' || c == '\t') {
			esc[0] = '\\', esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't', elen = 2;
		} else if (c < 0x20 || c == 0x7f) {
			esc[0] = '\\', esc[1] = 'x', esc[2] = hex[c >> 4], esc[3] = hex[c & 15];
			elen = 4;
		} else if (c >= 0x80) {
			take = utf8_len(s + i, n - i);
			if (!take) {
				take = 1;
				esc[0] = '\\', esc[1] = 'x', esc[2] = hex[c >> 4],
				esc[3] = hex[c & 15];
				elen = 4;
			}
		}
		const char *src = elen ? esc : in + i;
		size_t len = elen ? elen : take;
		if (o + len >= cap)
			break; /* never half an escape or half a character */
		memcpy(out + o, src, len);
		o += len;
		i += take;
	}
	out[o] = '\0';
	return o;
}

void enav_log(enum enav_log_level level, const char *fmt, ...)
{
	if ((int)level > atomic_load(&log_level))
		return;
	char raw[1024], msg[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* Messages carry tenant bytes (paths, versions, names): one message is one
	 * line, whatever they hold, and a terminal reading it obeys none of it. */
	size_t len = n < 0 ? 0 : (size_t)n < sizeof(raw) ? (size_t)n : sizeof(raw) - 1;
	enav_log_escape(msg, sizeof(msg), raw, len);

	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	/* One fprintf so concurrent threads do not interleave within a line. */
	fprintf(stderr, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ enav %s: %s\n", tm.tm_year + 1900,
		tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
		level_names[level], msg);
}
