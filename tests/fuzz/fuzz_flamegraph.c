/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for folded stacks and the flame graph SVG
 * (src/features/profiling/flamegraph.c).
 *
 * Byte 0 picks the node cap (1..32) and the width (including out-of-range
 * ones); the rest is lines, one stack each: the line's first byte is the
 * value (0xff stands for 2^62, so a few of them overflow the total), the
 * remaining bytes are frames split at ';' (empty ones included, any bytes:
 * controls, invalid UTF-8, XML metacharacters).  Both outputs are rendered
 * into memory and checked: folded has one clean line per stack with the
 * right number of frames and value; the SVG is well-formed (a small checker
 * below), bounded by the cap, its root carries the exact total, and a second
 * rendering gives the same bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/profiling/flamegraph.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define MAX_STACKS 64
#define MAX_FRAMES 32

static const unsigned widths[8] = {0, 100, 7, 333, 1200, 640, 100000, 101};

struct buf {
	char *text;
	size_t len;
};

/* ---- well-formedness ---------------------------------------------------- */

static bool utf8_ok(const unsigned char *s, size_t n, size_t *adv)
{
	static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
	size_t k;
	uint32_t cp;

	if (s[0] < 0x80) {
		*adv = 1;
		return s[0] >= 0x20 || s[0] == '\n';
	}
	if ((s[0] & 0xe0) == 0xc0)
		k = 2, cp = s[0] & 0x1f;
	else if ((s[0] & 0xf0) == 0xe0)
		k = 3, cp = s[0] & 0x0f;
	else if ((s[0] & 0xf8) == 0xf0)
		k = 4, cp = s[0] & 0x07;
	else
		return false;
	if (n < k)
		return false;
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return false;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	*adv = k;
	return cp >= min[k] && cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff) && cp != 0xfffe &&
	       cp != 0xffff && cp != 0x7f && (cp < 0x80 || cp > 0x9f);
}

static bool name_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':')
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '-' || c == '.');
}

/* The writer only ever uses the five predefined entities. */
static bool entity(const char *s, size_t len, size_t *i)
{
	static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};

	for (size_t e = 0; e < 5; e++) {
		size_t el = strlen(ents[e]);
		if (*i + el <= len && memcmp(s + *i, ents[e], el) == 0) {
			*i += el;
			return true;
		}
	}
	return false;
}

static void check_xml(const char *s, size_t len)
{
	const char *stack[16];
	size_t stack_len[16], depth = 0, roots = 0, i;

	for (size_t k = 0, adv = 0; k < len; k += adv)
		CHECK(utf8_ok((const unsigned char *)s + k, len - k, &adv));
	CHECK(len > 6 && memcmp(s, "<?xml ", 6) == 0);
	const char *decl = strstr(s, "?>");
	CHECK(decl);
	i = (size_t)(decl - s) + 2;
	while (i < len) {
		if (s[i] != '<') {
			CHECK(depth || s[i] == '\n');
			if (s[i] == '&')
				CHECK(entity(s, len, &i));
			else
				i++;
			continue;
		}
		if (len - i >= 9 && memcmp(s + i, "<![CDATA[", 9) == 0) {
			const char *end = memmem(s + i + 9, len - i - 9, "]]>", 3);
			CHECK(end && depth);
			i = (size_t)(end - s) + 3;
			continue;
		}
		bool closing = i + 1 < len && s[i + 1] == '/';
		size_t n0 = i + 1 + closing, n1 = n0;

		CHECK(n1 < len && name_char(s[n1], true));
		while (n1 < len && name_char(s[n1], false))
			n1++;
		if (closing) {
			CHECK(n1 < len && s[n1] == '>' && depth);
			depth--;
			CHECK(stack_len[depth] == n1 - n0 &&
			      !memcmp(stack[depth], s + n0, n1 - n0));
			i = n1 + 1;
			continue;
		}
		i = n1;
		for (;;) {
			size_t ws = 0;
			while (i < len && (s[i] == ' ' || s[i] == '\n'))
				i++, ws++;
			CHECK(i < len);
			if (s[i] == '>' || (s[i] == '/' && i + 1 < len && s[i + 1] == '>')) {
				bool empty = s[i] == '/';
				CHECK(depth || !roots++);
				if (!empty) {
					CHECK(depth < 16);
					stack[depth] = s + n0;
					stack_len[depth++] = n1 - n0;
				}
				i += empty ? 2 : 1;
				break;
			}
			CHECK(ws && name_char(s[i], true));
			while (i < len && name_char(s[i], false))
				i++;
			CHECK(i + 1 < len && s[i] == '=' && s[i + 1] == '"');
			i += 2;
			while (i < len && s[i] != '"') {
				CHECK(s[i] != '<');
				if (s[i] == '&')
					CHECK(entity(s, len, &i));
				else
					i++;
			}
			CHECK(i < len);
			i++;
		}
	}
	CHECK(depth == 0 && roots == 1);
}

/* ---- rendering ---------------------------------------------------------- */

static struct buf render(bool svg, const struct enav_folded_stack *st, size_t n,
			 const struct enav_flamegraph_opts *o, int *rc)
{
	struct buf b = {0};
	FILE *f = open_memstream(&b.text, &b.len);

	CHECK(f);
	*rc = svg ? enav_flamegraph_svg(f, st, n, o) : enav_folded_write(f, st, n);
	CHECK(fclose(f) == 0);
	return b;
}

static void check_folded(const struct buf *b, const struct enav_folded_stack *st, size_t n)
{
	const char *p = b->text, *end = b->text + b->len;

	for (size_t i = 0; i < n; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t semis = 0;

		CHECK(nl);
		const char *sp = NULL;
		for (const char *q = p; q < nl; q++) {
			unsigned char c = (unsigned char)*q;
			CHECK(c >= 0x20 && c != 0x7f);
			semis += c == ';';
			if (c == ' ')
				sp = q;
		}
		CHECK(sp && sp > p);
		CHECK(semis == (st[i].n_frames ? st[i].n_frames - 1 : 0));
		char num[24];
		CHECK((size_t)(nl - sp) < sizeof(num));
		snprintf(num, sizeof(num), "%" PRIu64, st[i].value);
		CHECK(strlen(num) == (size_t)(nl - sp - 1) && !memcmp(num, sp + 1, strlen(num)));
		p = nl + 1;
	}
	CHECK(p == end);
}

static size_t count(const struct buf *b, const char *needle)
{
	size_t n = 0, nl = strlen(needle);

	for (const char *p = b->text; (p = memmem(p, b->len - (size_t)(p - b->text), needle, nl));
	     p += nl)
		n++;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char names[MAX_STACKS][MAX_FRAMES][64];
	static const char *frames[MAX_STACKS][MAX_FRAMES];
	static struct enav_folded_stack st[MAX_STACKS];
	size_t n = 0, i = 1;
	uint64_t total = 0;
	bool overflow = false;

	if (size < 1)
		return 0;
	struct enav_flamegraph_opts o = {
	    .title = "fuzz <&>",
	    .unit = "u\"'",
	    .width = widths[data[0] >> 5],
	    .max_nodes = 1 + (data[0] & 31),
	};

	while (i < size && n < MAX_STACKS) {
		struct enav_folded_stack *s = &st[n];
		size_t nf = 0, at = 0;

		s->value = data[i] == 0xff ? 1ull << 62 : data[i];
		i++;
		s->frames = frames[n];
		/* Frames up to the end of the line: a line without ';' is one
		 * frame, an empty line none. */
		if (i < size && data[i] != '\n') {
			frames[n][0] = names[n][0];
			nf = 1;
		}
		for (; i < size && data[i] != '\n'; i++) {
			if (data[i] == ';') {
				names[n][nf - 1][at] = '\0';
				if (nf == MAX_FRAMES)
					break;
				frames[n][nf] = names[n][nf];
				nf++;
				at = 0;
			} else if (at < sizeof(names[n][0]) - 1) {
				names[n][nf - 1][at++] = (char)data[i];
			}
		}
		if (nf)
			names[n][nf - 1][at] = '\0';
		while (i < size && data[i] != '\n')
			i++;
		i++;
		/* Every other stack turns its empty frames into NULLs. */
		if (n & 1)
			for (size_t f = 0; f < nf; f++)
				if (!names[n][f][0])
					frames[n][f] = NULL;
		s->n_frames = nf;
		overflow |= __builtin_add_overflow(total, s->value, &total);
		n++;
	}

	int rc;
	struct buf folded = render(false, st, n, &o, &rc);
	CHECK(rc == 0);
	check_folded(&folded, st, n);
	free(folded.text);

	struct buf svg = render(true, st, n, &o, &rc);
	if (overflow) {
		CHECK(rc == -EOVERFLOW && svg.len == 0);
		free(svg.text);
		return 0;
	}
	CHECK(rc == 0);
	check_xml(svg.text, svg.len);
	CHECK(svg.len >= 7 && memcmp(svg.text + svg.len - 7, "</svg>\n", 7) == 0);
	size_t drawn = count(&svg, "<g class=\"f\"");
	CHECK(drawn <= (o.max_nodes < 2 ? 2 : o.max_nodes));
	if (total == 0) {
		CHECK(drawn == 0 && count(&svg, "No samples") == 1);
	} else {
		/* The first frame drawn is the root, with the exact total (a
		 * frame may also be named "all"). */
		char root[96];
		int rl = snprintf(root, sizeof(root),
				  "<g class=\"f\" fg:n=\"3\"><title>all (%" PRIu64
				  " u&quot;&apos;, 100.00%%)</title>",
				  total);
		const char *first = memmem(svg.text, svg.len, "<g class=\"f\"", 12);
		CHECK(first && (size_t)(svg.text + svg.len - first) > (size_t)rl &&
		      memcmp(first, root, (size_t)rl) == 0);
	}

	struct buf again = render(true, st, n, &o, &rc);
	CHECK(rc == 0 && again.len == svg.len && !memcmp(again.text, svg.text, svg.len));
	free(again.text);
	free(svg.text);
	return 0;
}
