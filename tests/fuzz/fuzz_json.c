/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the bounded JSON writer.
 *
 * Byte 0 picks a mode: even escapes the remaining bytes as one string and
 * checks the decoded value against an independent reference of the U+FFFD
 * substitution; odd drives the writer API as an op stream into a small
 * buffer and checks that any line finish accepts is valid JSON and that
 * nothing is written past cap.  The checker below is self-contained on
 * purpose (no jansson in fuzz builds).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/json.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

/* Independent strict UTF-8 decoder: length of the valid sequence at s, or 0. */
static size_t ref_utf8(const unsigned char *s, size_t n)
{
	static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
	uint32_t cp;
	size_t k;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		k = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		k = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		k = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < k)
		return 0;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min_cp[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return k;
}

/* Minimal strict JSON reader: validates a whole line and decodes its strings. */
struct rd {
	const unsigned char *p;
	size_t n, i;
	unsigned char *dec; /* decoded bytes of the last string read, when non-NULL */
	size_t dec_len, dec_cap;
};

static void dec_put(struct rd *r, const unsigned char *b, size_t k)
{
	if (!r->dec)
		return;
	CHECK(r->dec_len + k <= r->dec_cap);
	memcpy(r->dec + r->dec_len, b, k);
	r->dec_len += k;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool rd_string(struct rd *r)
{
	r->dec_len = 0;
	if (r->i >= r->n || r->p[r->i] != '"')
		return false;
	r->i++;
	while (r->i < r->n) {
		unsigned char c = r->p[r->i];

		if (c == '"') {
			r->i++;
			return true;
		}
		if (c < 0x20 || c == 0x7f) /* raw control bytes must never appear */
			return false;
		if (c >= 0x80) {
			size_t k = ref_utf8(r->p + r->i, r->n - r->i);

			if (!k)
				return false;
			dec_put(r, r->p + r->i, k);
			r->i += k;
			continue;
		}
		if (c != '\\') {
			dec_put(r, &c, 1);
			r->i++;
			continue;
		}
		if (++r->i >= r->n)
			return false;
		unsigned char e = r->p[r->i++], out;

		switch (e) {
		case '"':
		case '\\':
		case '/':
			out = e;
			break;
		case 'b':
			out = '\b';
			break;
		case 'f':
			out = '\f';
			break;
		case 'n':
			out = '\n';
			break;
		case 'r':
			out = '\r';
			break;
		case 't':
			out = '\t';
			break;
		case 'u': {
			unsigned v = 0;

			if (r->n - r->i < 4)
				return false;
			for (int k = 0; k < 4; k++) {
				int h = hexval(r->p[r->i++]);

				if (h < 0)
					return false;
				v = v << 4 | (unsigned)h;
			}
			/* The writer only ever escapes ASCII control bytes this way. */
			if (v >= 0x80)
				return false;
			out = (unsigned char)v;
			break;
		}
		default:
			return false;
		}
		dec_put(r, &out, 1);
	}
	return false; /* unterminated: unbalanced quotes */
}

static bool rd_lit(struct rd *r, const char *lit)
{
	size_t k = strlen(lit);

	if (r->n - r->i < k || memcmp(r->p + r->i, lit, k) != 0)
		return false;
	r->i += k;
	return true;
}

static bool rd_number(struct rd *r)
{
	if (r->i < r->n && r->p[r->i] == '-')
		r->i++;
	if (r->i >= r->n || r->p[r->i] < '0' || r->p[r->i] > '9')
		return false;
	if (r->p[r->i] == '0') {
		r->i++;
	} else {
		while (r->i < r->n && r->p[r->i] >= '0' && r->p[r->i] <= '9')
			r->i++;
	}
	return true;
}

static bool rd_value(struct rd *r, int depth)
{
	if (depth > 64 || r->i >= r->n)
		return false;
	switch (r->p[r->i]) {
	case '"':
		return rd_string(r);
	case 't':
		return rd_lit(r, "true");
	case 'f':
		return rd_lit(r, "false");
	case 'n':
		return rd_lit(r, "null");
	case '[':
	case '{': {
		bool obj = r->p[r->i] == '{';
		unsigned char close = obj ? '}' : ']';

		r->i++;
		if (r->i < r->n && r->p[r->i] == close) {
			r->i++;
			return true;
		}
		for (;;) {
			if (obj) {
				if (!rd_string(r) || r->i >= r->n || r->p[r->i] != ':')
					return false;
				r->i++;
			}
			if (!rd_value(r, depth + 1) || r->i >= r->n)
				return false;
			if (r->p[r->i] == close) {
				r->i++;
				return true;
			}
			if (r->p[r->i] != ',')
				return false;
			r->i++;
		}
	}
	default:
		return rd_number(r);
	}
}

static bool valid_line(const char *line, size_t n)
{
	struct rd r = {.p = (const unsigned char *)line, .n = n};

	return rd_value(&r, 0) && r.i == n;
}

#define CANARY 0x5a

static void check_canary(const unsigned char *mem, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++)
		CHECK(mem[k] == CANARY);
}

static void fuzz_escape(const uint8_t *data, size_t size)
{
	size_t cap = size * 6 + 3;
	char *line = malloc(cap);
	unsigned char *expect = malloc(size * 3 + 1);
	unsigned char *dec = malloc(size * 3 + 1);
	size_t elen = 0;
	struct enav_json j;

	CHECK(line && expect && dec);

	/* Reference: valid sequences copied, one U+FFFD per other byte. */
	for (size_t i = 0; i < size;) {
		size_t k = ref_utf8(data + i, size - i);

		if (k) {
			memcpy(expect + elen, data + i, k);
			elen += k;
			i += k;
		} else {
			memcpy(expect + elen, "\xef\xbf\xbd", 3);
			elen += 3;
			i++;
		}
	}

	/* Worst case is 6 bytes per input byte plus quotes and NUL: always fits. */
	enav_json_init(&j, line, cap);
	enav_json_string_n(&j, (const char *)data, size);
	long n = enav_json_finish(&j);

	CHECK(n >= 2);
	CHECK(strlen(line) == (size_t)n);

	struct rd r = {
	    .p = (const unsigned char *)line, .n = (size_t)n, .dec = dec, .dec_cap = size * 3 + 1};

	CHECK(rd_string(&r) && r.i == (size_t)n);
	CHECK(r.dec_len == elen && memcmp(dec, expect, elen) == 0);

	/* The bare escaper gives the same body; exact room works, one less fails. */
	size_t body = (size_t)n - 2;
	unsigned char *mem = malloc(body + 16);

	CHECK(mem);
	memset(mem, CANARY, body + 16);
	CHECK(enav_json_escape((char *)mem, body + 1, (const char *)data, size) == (long)body);
	CHECK(memcmp(mem, line + 1, body) == 0 && mem[body] == '\0');
	check_canary(mem, body + 1, body + 16);
	memset(mem, CANARY, body + 16);
	CHECK(enav_json_escape((char *)mem, body, (const char *)data, size) == -1);
	check_canary(mem, body, body + 16);
	CHECK(body == 0 || mem[0] == '\0');

	free(mem);
	free(dec);
	free(expect);
	free(line);
}

/* Pull up to want bytes from the op stream. */
static size_t take(const uint8_t **d, size_t *n, size_t want)
{
	size_t k = want < *n ? want : *n;

	*d += k;
	*n -= k;
	return k;
}

static void fuzz_ops(const uint8_t *data, size_t size)
{
	enum { MEM = 512 };
	unsigned char mem[MEM];
	struct enav_json j;

	if (size < 1)
		return;
	size_t cap = data[0] % (MEM - 16);

	data++;
	size--;
	memset(mem, CANARY, sizeof(mem));
	enav_json_init(&j, (char *)mem, cap);

	while (size > 0) {
		uint8_t op = data[0];
		const uint8_t *arg;
		size_t alen, want;
		char key[8];
		uint64_t v = 0;

		take(&data, &size, 1);
		want = op >> 4; /* argument length rides in the high nibble */
		arg = data;
		alen = take(&data, &size, want);
		memcpy(&v, arg, alen < 8 ? alen : 8);
		memcpy(key, arg, alen < 7 ? alen : 7);
		key[alen < 7 ? alen : 7] = '\0';

		switch ((op & 0x0f) % 13) {
		case 0:
			enav_json_object_begin(&j);
			break;
		case 1:
			enav_json_object_end(&j);
			break;
		case 2:
			enav_json_array_begin(&j);
			break;
		case 3:
			enav_json_array_end(&j);
			break;
		case 4:
			enav_json_key(&j, key);
			break;
		case 5:
			enav_json_string_n(&j, (const char *)arg, alen);
			break;
		case 6:
			enav_json_u64(&j, v);
			break;
		case 7:
			enav_json_i64(&j, (int64_t)v);
			break;
		case 8:
			enav_json_bool(&j, v & 1);
			break;
		case 9:
			enav_json_null(&j);
			break;
		case 10:
			enav_json_kv_string_n(&j, key, (const char *)arg, alen);
			break;
		case 11:
			enav_json_kv_u64(&j, key, v);
			break;
		case 12:
			enav_json_kv_i64(&j, key, (int64_t)v);
			break;
		}
		CHECK(cap == 0 ? j.len == 0 : j.len < cap);
	}

	long n = enav_json_finish(&j);

	check_canary(mem, cap, MEM);
	if (n >= 0) {
		CHECK((size_t)n < cap && strlen((char *)mem) == (size_t)n);
		CHECK(valid_line((char *)mem, (size_t)n));
	} else if (cap > 0) {
		CHECK(memchr(mem, '\0', cap) != NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_ops(data + 1, size - 1);
	else
		fuzz_escape(data + 1, size - 1);
	return 0;
}
