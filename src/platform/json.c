/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/json.h"

#include <string.h>

#include "platform/numfmt.h"

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
static inline bool put(struct enav_json *j, const void *p, size_t n)
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

static inline bool put_c(struct enav_json *j, char c)
{
	if (j->overflow || j->cap == 0 || j->len + 1 > j->cap - 1) {
		fail(j);
		return false;
	}
	j->buf[j->len++] = c;
	return true;
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

/* Bytes that can be copied verbatim inside a JSON string: printable ASCII
 * but the quote (0x22) and the backslash (0x5c). */
static const bool plain[256] = {
    [0x20 ... 0x21] = true,
    [0x23 ... 0x5b] = true,
    [0x5d ... 0x7e] = true,
};

/* One byte that is not plain at s[0]: its escape, or a whole UTF-8
 * sequence, or U+FFFD for a bad byte, at out (room for 6).  Returns bytes
 * written; *used is how many input bytes it took. */
static size_t escape_one(char *out, const unsigned char *s, size_t avail, size_t *used)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = s[0];
	*used = 1;
	if (c >= 0x80) {
		size_t n = utf8_seq_len(s, avail);
		if (n) {
			memcpy(out, s, n);
			*used = n;
			return n;
		}
		/* One U+FFFD per bad byte; the next byte is re-examined. */
		memcpy(out, "\xef\xbf\xbd", 3);
		return 3;
	}
	out[0] = '\\';
	switch (c) {
	case '"':
		out[1] = '"';
		return 2;
	case '\\':
		out[1] = '\\';
		return 2;
	case '\b':
		out[1] = 'b';
		return 2;
	case '\f':
		out[1] = 'f';
		return 2;
	case '\n':
		out[1] = 'n';
		return 2;
	case '\r':
		out[1] = 'r';
		return 2;
	case '\t':
		out[1] = 't';
		return 2;
	default: /* other control bytes, NUL and DEL */
		memcpy(out + 1, "u00", 3);
		out[4] = hex[c >> 4];
		out[5] = hex[c & 0xf];
		return 6;
	}
}

/* Worst case: every input byte becomes a six-byte escape. */
#define ESCAPE_WORST 6

/* Does any of the 8 bytes in x need an escape or a UTF-8 check: a control
 * byte, '"', '\\', DEL or >= 0x80?  Never a false "no". */
static inline bool word_special(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
	uint64_t below_space = (x - ones * 0x20) & ~x;
	uint64_t is_quote = (q - ones) & ~q;
	uint64_t is_backslash = (b - ones) & ~b;
	uint64_t del_or_high = (x + ones) | x; /* 0x7f carries into its high bit */
	return ((below_space | is_quote | is_backslash | del_or_high) & highs) != 0;
}

static void escape_into(struct enav_json *j, const unsigned char *s, size_t len)
{
	if (j->overflow)
		return;
	size_t room = j->cap ? j->cap - 1 - j->len : 0;
	if (len <= room / ESCAPE_WORST) {
		/* Room for anything: no check per byte, and plain text by words. */
		char *out = j->buf + j->len;
		for (size_t i = 0; i < len;) {
			if (len - i >= 8) {
				uint64_t x;
				memcpy(&x, s + i, 8);
				if (!word_special(x)) {
					memcpy(out, &x, 8);
					out += 8;
					i += 8;
					continue;
				}
			}
			if (plain[s[i]]) {
				*out++ = (char)s[i++];
				continue;
			}
			size_t used;
			out += escape_one(out, s + i, len - i, &used);
			i += used;
		}
		j->len = (size_t)(out - j->buf);
		return;
	}
	for (size_t i = 0; i < len && !j->overflow;) {
		size_t run = i;
		while (run < len && plain[s[run]])
			run++;
		if (run > i) {
			put(j, s + i, run - i);
			i = run;
			continue;
		}
		char esc[ESCAPE_WORST];
		size_t used;
		size_t n = escape_one(esc, s + i, len - i, &used);
		put(j, esc, n);
		i += used;
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

void enav_json_key_n(struct enav_json *j, const char *key, size_t len)
{
	if (j->overflow)
		return;
	if (j->depth == 0 || in_array(j) || j->after_key) {
		fail(j);
		return;
	}
	if (j->need_comma && !put_c(j, ','))
		return;
	quoted(j, key, len);
	put_c(j, ':');
	j->need_comma = true;
	j->after_key = true;
}

void enav_json_string_n(struct enav_json *j, const char *s, size_t len)
{
	if (value_begin(j))
		quoted(j, s, len);
}

/* A value the caller formatted as a JSON number (e.g. "%.2f"). */
void enav_json_raw(struct enav_json *j, const char *number)
{
	if (!value_begin(j))
		return;
	put(j, number, strlen(number));
}

void enav_json_u64(struct enav_json *j, uint64_t v)
{
	char tmp[ENAV_U64_TEXT_MAX];
	if (value_begin(j))
		put(j, tmp, enav_fmt_u64(tmp, v));
}

void enav_json_i64(struct enav_json *j, int64_t v)
{
	char tmp[ENAV_U64_TEXT_MAX + 1];
	if (value_begin(j))
		put(j, tmp, enav_fmt_i64(tmp, v));
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
