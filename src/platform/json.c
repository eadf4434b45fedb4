/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/json.h"

#include <string.h>

/* One bit per open container in j->arrays. */
_Static_assert(ENAV_JSON_MAX_DEPTH <= 32, "arrays bitset is 32 bits");

static void fail(struct enav_json *j)
{
	j->overflow = true;
}

/*
 * Append n bytes, or nothing and set overflow.  One byte of cap is always
 * kept free for the NUL written by finish, so len <= cap - 1 holds throughout.
 */
static bool put(struct enav_json *j, const void *p, size_t n)
{
	if (j->overflow)
		return false;
	if (j->cap == 0 || n > j->cap - 1 - j->len) {
		fail(j);
		return false;
	}
	memcpy(j->buf + j->len, p, n);
	j->len += n;
	return true;
}

static bool put_c(struct enav_json *j, char c)
{
	return put(j, &c, 1);
}

/*
 * Length of the well-formed UTF-8 sequence starting at s (lead byte >= 0x80),
 * or 0 when it is not one.  Follows Unicode table 3-7: the second-byte ranges
 * after E0, ED, F0 and F4 exclude overlongs, surrogates and > U+10FFFF.
 */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t need;

	if (c >= 0xc2 && c <= 0xdf) {
		need = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		need = 3;
		if (c == 0xe0)
			lo = 0xa0;
		else if (c == 0xed)
			hi = 0x9f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		need = 4;
		if (c == 0xf0)
			lo = 0x90;
		else if (c == 0xf4)
			hi = 0x8f;
	} else {
		return 0; /* continuation byte, C0/C1 overlong lead, or F5..FF */
	}
	if (n < need)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return need;
}

/* Bytes that can be copied verbatim inside a JSON string. */
static bool plain_ascii(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
}

static void escape_into(struct enav_json *j, const unsigned char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i = 0;

	while (i < len && !j->overflow) {
		size_t run = i;

		while (run < len && plain_ascii(s[run]))
			run++;
		if (run > i) {
			put(j, s + i, run - i);
			i = run;
			continue;
		}

		unsigned char c = s[i];

		if (c >= 0x80) {
			size_t n = utf8_seq_len(s + i, len - i);

			if (n) {
				put(j, s + i, n);
				i += n;
			} else {
				/* One U+FFFD per bad byte; the next byte is re-examined. */
				put(j, "\xef\xbf\xbd", 3);
				i++;
			}
			continue;
		}

		char esc[6] = {'\\', 0, '0', '0', 0, 0};
		size_t n = 2;

		switch (c) {
		case '"':
			esc[1] = '"';
			break;
		case '\\':
			esc[1] = '\\';
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		default: /* other control bytes, NUL and DEL */
			esc[1] = 'u';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 0xf];
			n = 6;
			break;
		}
		put(j, esc, n);
		i++;
	}
}

static void quoted(struct enav_json *j, const char *s, size_t len)
{
	put_c(j, '"');
	escape_into(j, (const unsigned char *)s, len);
	put_c(j, '"');
}

static bool in_array(const struct enav_json *j)
{
	return j->depth > 0 && (j->arrays >> (j->depth - 1)) & 1u;
}

/* Separator and state checks common to every value; false when it must not be written. */
static bool value_begin(struct enav_json *j)
{
	if (j->overflow)
		return false;
	if (j->after_key) {
		j->after_key = false;
	} else if (j->depth == 0) {
		if (j->need_comma) { /* a line holds exactly one top-level value */
			fail(j);
			return false;
		}
	} else if (!in_array(j)) { /* object member without a key */
		fail(j);
		return false;
	} else if (j->need_comma && !put_c(j, ',')) {
		return false;
	}
	j->need_comma = true;
	return true;
}

static void container_begin(struct enav_json *j, bool array)
{
	if (!value_begin(j))
		return;
	if (j->depth >= ENAV_JSON_MAX_DEPTH) {
		fail(j);
		return;
	}
	if (!put_c(j, array ? '[' : '{'))
		return;
	if (array)
		j->arrays |= 1u << j->depth;
	else
		j->arrays &= ~(1u << j->depth);
	j->depth++;
	j->need_comma = false;
}

static void container_end(struct enav_json *j, bool array)
{
	if (j->overflow)
		return;
	if (j->depth == 0 || in_array(j) != array || j->after_key) {
		fail(j);
		return;
	}
	if (!put_c(j, array ? ']' : '}'))
		return;
	j->depth--;
	/* The closed container was a value of its parent, so a comma is due next;
	 * that is why no per-level comma stack is needed. */
	j->need_comma = true;
}

void enav_json_init(struct enav_json *j, char *buf, size_t cap)
{
	*j = (struct enav_json){.buf = buf, .cap = cap};
	if (cap > 0)
		buf[0] = '\0';
}

void enav_json_object_begin(struct enav_json *j)
{
	container_begin(j, false);
}

void enav_json_object_end(struct enav_json *j)
{
	container_end(j, false);
}

void enav_json_array_begin(struct enav_json *j)
{
	container_begin(j, true);
}

void enav_json_array_end(struct enav_json *j)
{
	container_end(j, true);
}

void enav_json_key(struct enav_json *j, const char *key)
{
	if (j->overflow)
		return;
	if (j->depth == 0 || in_array(j) || j->after_key) {
		fail(j);
		return;
	}
	if (j->need_comma && !put_c(j, ','))
		return;
	quoted(j, key, strlen(key));
	put_c(j, ':');
	j->need_comma = true;
	j->after_key = true;
}

void enav_json_string_n(struct enav_json *j, const char *s, size_t len)
{
	if (value_begin(j))
		quoted(j, s, len);
}

void enav_json_string(struct enav_json *j, const char *s)
{
	enav_json_string_n(j, s, strlen(s));
}

/* Digits of v written backwards into the end of tmp; returns the first. */
static char *u64_digits(char tmp[20], uint64_t v)
{
	char *p = tmp + 20;

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return p;
}

/* A value the caller formatted as a JSON number (e.g. "%.2f"). */
void enav_json_raw(struct enav_json *j, const char *number)
{
	if (!value_begin(j))
		return;
	put(j, number, strlen(number));
}

void enav_json_kv_raw(struct enav_json *j, const char *key, const char *number)
{
	enav_json_key(j, key);
	enav_json_raw(j, number);
}

void enav_json_u64(struct enav_json *j, uint64_t v)
{
	char tmp[20];
	char *p;

	if (!value_begin(j))
		return;
	p = u64_digits(tmp, v);
	put(j, p, (size_t)(tmp + 20 - p));
}

void enav_json_i64(struct enav_json *j, int64_t v)
{
	char tmp[21];
	char *p;
	/* Negate in unsigned arithmetic so INT64_MIN does not overflow. */
	uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	if (!value_begin(j))
		return;
	p = u64_digits(tmp + 1, mag);
	if (v < 0)
		*--p = '-';
	put(j, p, (size_t)(tmp + 21 - p));
}

void enav_json_bool(struct enav_json *j, bool v)
{
	if (value_begin(j))
		put(j, v ? "true" : "false", v ? 4 : 5);
}

void enav_json_null(struct enav_json *j)
{
	if (value_begin(j))
		put(j, "null", 4);
}

void enav_json_kv_string(struct enav_json *j, const char *key, const char *s)
{
	enav_json_key(j, key);
	enav_json_string(j, s);
}

void enav_json_kv_string_n(struct enav_json *j, const char *key, const char *s, size_t len)
{
	enav_json_key(j, key);
	enav_json_string_n(j, s, len);
}

void enav_json_kv_u64(struct enav_json *j, const char *key, uint64_t v)
{
	enav_json_key(j, key);
	enav_json_u64(j, v);
}

void enav_json_kv_i64(struct enav_json *j, const char *key, int64_t v)
{
	enav_json_key(j, key);
	enav_json_i64(j, v);
}

void enav_json_kv_bool(struct enav_json *j, const char *key, bool v)
{
	enav_json_key(j, key);
	enav_json_bool(j, v);
}

long enav_json_finish(struct enav_json *j)
{
	/* An open container, a dangling key or no value at all is not a line. */
	if (j->depth != 0 || j->after_key || !j->need_comma)
		fail(j);
	if (j->cap > 0)
		j->buf[j->len] = '\0';
	return j->overflow ? -1 : (long)j->len;
}

long enav_json_escape(char *out, size_t outcap, const char *s, size_t len)
{
	struct enav_json j;

	if (outcap == 0)
		return -1; /* no room even for the NUL */
	enav_json_init(&j, out, outcap);
	escape_into(&j, (const unsigned char *)s, len);
	if (j.overflow) {
		if (outcap > 0)
			out[0] = '\0';
		return -1;
	}
	out[j.len] = '\0';
	return (long)j.len;
}
