/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for folded stacks and the flame graph SVG (src/features/profiling/flamegraph.c).
 *
 * Folded output is compared byte for byte.  SVG documents are checked with a
 * small well-formedness checker written here (no XML library in the test
 * build) and parsed back into frames: name, value, rectangle, label, so
 * widths, totals, escaping and the node cap are asserted on what a viewer
 * would see.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/profiling/flamegraph.h"

/* A regression check: print what went wrong, then fail. */
#define FAIL_IF(cond, ...)                                                                         \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_message(__VA_ARGS__);                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define PAD	 10.0 /* px each side of the frames */

/* ---- rendering into memory ------------------------------------------------- */

struct doc {
	char *text;
	size_t len;
	int rc;
};

static struct doc render_folded(const struct enav_folded_stack *stacks, size_t n)
{
	struct doc d = {0};
	FILE *f = open_memstream(&d.text, &d.len);

	assert_non_null(f);
	d.rc = enav_folded_write(f, stacks, n);
	assert_int_equal(fclose(f), 0);
	return d;
}

static struct doc render_svg(const struct enav_folded_stack *stacks, size_t n,
			     const struct enav_flamegraph_opts *opts)
{
	struct doc d = {0};
	FILE *f = open_memstream(&d.text, &d.len);

	assert_non_null(f);
	d.rc = enav_flamegraph_svg(f, stacks, n, opts);
	assert_int_equal(fclose(f), 0);
	return d;
}

/* ---- a minimal XML well-formedness checker ---------------------------------- */

/* Length of the valid, shortest-form UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k;
	uint32_t cp;

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
	static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
	if (cp < min[k] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe ||
	    cp == 0xffff)
		return 0;
	return k;
}

static bool is_name_char(char c, bool first)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':')
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '-' || c == '.');
}

/* At s[*i] == '&': a predefined entity or a character reference. */
static bool entity_ok(const char *s, size_t len, size_t *i)
{
	static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};

	for (size_t e = 0; e < NELEM(ents); e++) {
		size_t el = strlen(ents[e]);
		if (*i + el <= len && memcmp(s + *i, ents[e], el) == 0) {
			*i += el;
			return true;
		}
	}
	if (*i + 3 < len && s[*i + 1] == '#') {
		size_t j = *i + 2;
		bool hex = s[j] == 'x';
		size_t digits = 0;

		j += hex;
		while (j < len && (hex ? strchr("0123456789abcdefABCDEF", s[j]) && s[j]
				       : s[j] >= '0' && s[j] <= '9')) {
			j++;
			digits++;
		}
		if (digits && j < len && s[j] == ';') {
			*i = j + 1;
			return true;
		}
	}
	return false;
}

/*
 * Returns NULL when doc is well-formed (for what this writer can produce:
 * an XML declaration, elements, attributes, text, CDATA), else why not.
 */
static const char *xml_check(const char *s, size_t len)
{
	const char *stack[64];
	size_t stack_len[64];
	size_t depth = 0, roots = 0, i = 0;

	for (size_t k = 0; k < len;) {
		unsigned char c = (unsigned char)s[k];
		size_t l = utf8_len((const unsigned char *)s + k, len - k);

		if (!l)
			return "invalid UTF-8";
		if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
			return "control character";
		k += l;
	}
	if (len < 6 || memcmp(s, "<?xml ", 6) != 0)
		return "no XML declaration";
	const char *decl_end = strstr(s, "?>");
	if (!decl_end)
		return "unterminated declaration";
	i = (size_t)(decl_end - s) + 2;

	while (i < len) {
		if (s[i] != '<') {
			if (depth == 0 && s[i] != '\n' && s[i] != ' ')
				return "text outside the root element";
			if (s[i] == '&') {
				if (!entity_ok(s, len, &i))
					return "bad entity in text";
				continue;
			}
			if (s[i] == '>' && i >= 2 && s[i - 1] == ']' && s[i - 2] == ']')
				return "]]> in text";
			i++;
			continue;
		}
		if (len - i >= 9 && memcmp(s + i, "<![CDATA[", 9) == 0) {
			const char *end = memmem(s + i + 9, len - i - 9, "]]>", 3);
			if (!end || depth == 0)
				return "bad CDATA";
			i = (size_t)(end - s) + 3;
			continue;
		}
		bool closing = i + 1 < len && s[i + 1] == '/';
		size_t n0 = i + 1 + closing, n1 = n0;

		if (n1 >= len || !is_name_char(s[n1], true))
			return "bad tag name";
		while (n1 < len && is_name_char(s[n1], false))
			n1++;
		if (closing) {
			if (n1 >= len || s[n1] != '>' || depth == 0)
				return "bad closing tag";
			depth--;
			if (stack_len[depth] != n1 - n0 || memcmp(stack[depth], s + n0, n1 - n0))
				return "mismatched closing tag";
			i = n1 + 1;
			continue;
		}
		i = n1;
		for (;;) {
			size_t ws = 0;
			while (i < len && (s[i] == ' ' || s[i] == '\n'))
				i++, ws++;
			if (i >= len)
				return "unterminated tag";
			if (s[i] == '>' || (s[i] == '/' && i + 1 < len && s[i + 1] == '>')) {
				bool empty = s[i] == '/';
				if (depth == 0 && roots++)
					return "second root element";
				if (!empty) {
					if (depth == NELEM(stack))
						return "too deep";
					stack[depth] = s + n0;
					stack_len[depth++] = n1 - n0;
				}
				i += empty ? 2 : 1;
				break;
			}
			if (!ws || !is_name_char(s[i], true))
				return "bad attribute";
			while (i < len && is_name_char(s[i], false))
				i++;
			if (i + 1 >= len || s[i] != '=' || (s[i + 1] != '"' && s[i + 1] != '\''))
				return "unquoted attribute";
			char q = s[i + 1];
			i += 2;
			while (i < len && s[i] != q) {
				if (s[i] == '<')
					return "'<' in attribute";
				if (s[i] == '&') {
					if (!entity_ok(s, len, &i))
						return "bad entity in attribute";
					continue;
				}
				i++;
			}
			if (i >= len)
				return "unterminated attribute";
			i++;
		}
	}
	if (depth)
		return "unclosed element";
	if (roots != 1)
		return "no root element";
	return NULL;
}

static void assert_well_formed(const struct doc *d)
{
	const char *why = xml_check(d->text, d->len);

	FAIL_IF(why, "SVG not well-formed: %s\n%.*s\n", why, (int)(d->len < 4000 ? d->len : 4000),
		d->text);
}

/* ---- reading frames back ----------------------------------------------------- */

struct frame {
	char title[512]; /* as escaped in the document */
	char label[512];
	uint64_t value;
	unsigned data_n;
	double x, y, w;
	char fill[32];
};

static double attr_num(const char *from, const char *end, const char *attr)
{
	char key[32];
	snprintf(key, sizeof(key), " %s=\"", attr);
	const char *p = strstr(from, key);

	assert_non_null(p);
	assert_true(p < end);
	return strtod(p + strlen(key), NULL);
}

static void copy_between(char *dst, size_t cap, const char *from, const char *open,
			 const char *close)
{
	const char *a = strstr(from, open);
	assert_non_null(a);
	a += strlen(open);
	const char *b = strstr(a, close);
	assert_non_null(b);
	size_t n = (size_t)(b - a);
	assert_true(n < cap);
	memcpy(dst, a, n);
	dst[n] = '\0';
}

/* Every <g class="f"> in document order (the root first). */
static size_t parse_frames(const struct doc *d, struct frame *out, size_t max)
{
	static const char tag[] = "<g class=\"f\" fg:n=\"";
	size_t n = 0;

	for (const char *p = strstr(d->text, tag); p; p = strstr(p + 1, tag)) {
		struct frame *f = &out[n];
		const char *end = strstr(p, "</g>");

		assert_true(n < max);
		assert_non_null(end);
		memset(f, 0, sizeof(*f));
		f->data_n = (unsigned)strtoul(p + strlen(tag), NULL, 10);
		copy_between(f->title, sizeof(f->title), p, "<title>", "</title>");
		const char *paren = strrchr(f->title, '(');
		assert_non_null(paren);
		f->value = strtoull(paren + 1, NULL, 10);
		const char *rect = strstr(p, "<rect");
		f->x = attr_num(rect, end, "x");
		f->y = attr_num(rect, end, "y");
		f->w = attr_num(rect, end, "width");
		copy_between(f->fill, sizeof(f->fill), rect, "fill=\"", "\"");
		const char *text = strstr(rect, "<text");
		copy_between(f->label, sizeof(f->label), text, "\">", "</text>");
		n++;
	}
	return n;
}

/* The escaped name: the title up to the last " (". */
static void frame_name(const struct frame *f, char *dst, size_t cap)
{
	const char *paren = strrchr(f->title, '(');
	size_t n = (size_t)(paren - f->title);

	assert_true(n >= 1 && f->title[n - 1] == ' ');
	n--;
	assert_true(n < cap);
	memcpy(dst, f->title, n);
	dst[n] = '\0';
}

static const struct frame *find_frame(const struct frame *fr, size_t n, const char *name)
{
	char buf[512];

	for (size_t i = 0; i < n; i++) {
		frame_name(&fr[i], buf, sizeof(buf));
		if (strcmp(buf, name) == 0)
			return &fr[i];
	}
	return NULL;
}

/*
 * What every document must hold: the root spans the frame area, widths are
 * proportional to values, every frame sits inside the one below it and the
 * frames directly above a frame add up to at most its value.
 */
static void check_geometry(const struct frame *fr, size_t n, unsigned width, uint64_t total)
{
	double usable = width - 2 * PAD;

	assert_true(n >= 1);
	assert_int_equal(fr[0].value, total);
	assert_true(fabs(fr[0].x - PAD) < 1e-9);
	assert_true(fabs(fr[0].w - usable) < 1e-9);
	for (size_t i = 0; i < n; i++) {
		double want = (double)fr[i].value / (double)total * usable;
		uint64_t above = 0;

		FAIL_IF(fabs(fr[i].w - want) > 0.02, "frame %s: width %.2f, want %.2f\n",
			fr[i].title, fr[i].w, want);
		for (size_t j = 0; j < n; j++) {
			if (fr[j].y != fr[i].y - 16)
				continue;
			if (fr[j].x >= fr[i].x - 1e-6 &&
			    fr[j].x + fr[j].w <= fr[i].x + fr[i].w + 1e-6)
				above += fr[j].value;
		}
		FAIL_IF(above > fr[i].value, "frame %s: %llu above it\n", fr[i].title,
			(unsigned long long)above);
		if (i) {
			bool has_base = false;
			for (size_t j = 0; j < n; j++)
				if (fr[j].y == fr[i].y + 16 && fr[i].x >= fr[j].x - 1e-6 &&
				    fr[i].x + fr[i].w <= fr[j].x + fr[j].w + 1e-6)
					has_base = true;
			FAIL_IF(!has_base, "frame %s floats\n", fr[i].title);
		}
	}
}

#define STACK(v, ...)                                                                              \
	{                                                                                          \
		.frames = (const char *const[]){__VA_ARGS__},                                      \
		.n_frames = sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *),     \
		.value = (v)                                                                       \
	}

/* ---- folded ------------------------------------------------------------------ */

static void test_folded_exact(void **state)
{
	const struct enav_folded_stack stacks[] = {
	    STACK(5, "main", "run", "compute"),
	    STACK(3, "main", "a;b", "x\ny"),
	    {.frames = NULL, .n_frames = 0, .value = 7},
	    STACK(1, "tab\there", NULL, "", "cr\rdel\x7f"),
	    STACK(0, "zero"),
	    STACK(18446744073709551615ull, "std::vector<int>::push_back(int const&)", "\xff\xfe"),
	};
	static const char want[] = "main;run;compute 5\n"
				   "main;a:b;x?y 3\n"
				   "[unknown] 7\n"
				   "tab?here;[unknown];[unknown];cr?del? 1\n"
				   "zero 0\n"
				   "std::vector<int>::push_back(int const&);\xff\xfe "
				   "18446744073709551615\n";
	struct doc d = render_folded(stacks, NELEM(stacks));

	assert_int_equal(d.rc, 0);
	FAIL_IF(d.len != strlen(want) || memcmp(d.text, want, d.len) != 0,
		"folded output:\n%.*s\nwant:\n%s", (int)d.len, d.text, want);
	free(d.text);

	d = render_folded(stacks, 0);
	assert_int_equal(d.rc, 0);
	assert_int_equal(d.len, 0);
	free(d.text);
}

static void test_invalid_arguments(void **state)
{
	const struct enav_folded_stack bad = {.frames = NULL, .n_frames = 2, .value = 1};
	const struct enav_folded_stack good = STACK(1, "a");
	struct doc d;

	assert_int_equal(enav_folded_write(NULL, &good, 1), -EINVAL);
	assert_int_equal(enav_flamegraph_svg(NULL, &good, 1, NULL), -EINVAL);

	d = render_folded(NULL, 1);
	assert_int_equal(d.rc, -EINVAL);
	assert_int_equal(d.len, 0);
	free(d.text);
	d = render_folded(&bad, 1);
	assert_int_equal(d.rc, -EINVAL);
	assert_int_equal(d.len, 0);
	free(d.text);
	d = render_svg(&bad, 1, NULL);
	assert_int_equal(d.rc, -EINVAL);
	assert_int_equal(d.len, 0);
	free(d.text);

	/* A total past 2^64 cannot be drawn exactly. */
	const struct enav_folded_stack big[] = {STACK(UINT64_MAX, "a"), STACK(1, "b")};
	d = render_svg(big, 2, NULL);
	assert_int_equal(d.rc, -EOVERFLOW);
	assert_int_equal(d.len, 0);
	free(d.text);
}

/* ---- SVG ----------------------------------------------------------------------- */

static void test_svg_proportions(void **state)
{
	const struct enav_folded_stack stacks[] = {
	    STACK(600, "main", "hot", "inner"),
	    STACK(150, "main", "hot"),
	    STACK(250, "main", "cold"),
	};
	const struct enav_flamegraph_opts opts = {.title = "CPU profile", .unit = "samples"};
	struct frame fr[16];
	struct doc d = render_svg(stacks, NELEM(stacks), &opts);

	assert_int_equal(d.rc, 0);
	assert_well_formed(&d);
	assert_non_null(strstr(d.text, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
				       "xmlns:fg=\"urn:x-enav:flamegraph\" width=\"1200\""));
	assert_non_null(strstr(d.text, ">CPU profile</text>"));

	size_t n = parse_frames(&d, fr, NELEM(fr));
	assert_int_equal(n, 5);
	check_geometry(fr, n, 1200, 1000);

	/* The root spans the whole frame area: 1200 - 2 * 10 px. */
	assert_string_equal(fr[0].title, "all (1000 samples, 100.00%)");
	assert_true(fabs(fr[0].w - 1180.0) < 1e-9);

	const struct frame *main_f = find_frame(fr, n, "main");
	const struct frame *hot = find_frame(fr, n, "hot");
	const struct frame *cold = find_frame(fr, n, "cold");
	const struct frame *inner = find_frame(fr, n, "inner");
	assert_non_null(main_f);
	assert_non_null(hot);
	assert_non_null(cold);
	assert_non_null(inner);
	assert_string_equal(hot->title, "hot (750 samples, 75.00%)");
	assert_string_equal(cold->title, "cold (250 samples, 25.00%)");
	/* 75% of the samples: 75% of the width, within a pixel. */
	FAIL_IF(fabs(hot->w - 0.75 * 1180.0) > 1.0, "hot: width %.2f\n", hot->w);
	FAIL_IF(fabs(inner->w - 0.60 * 1180.0) > 1.0, "inner: width %.2f\n", inner->w);
	assert_true(fabs(main_f->w - 1180.0) < 1e-9);

	/* Root at the bottom, 16 px per level; children sorted by name. */
	assert_true(main_f->y == fr[0].y - 16);
	assert_true(hot->y == fr[0].y - 32 && cold->y == hot->y);
	assert_true(inner->y == fr[0].y - 48);
	assert_true(cold->x < hot->x);
	assert_true(fabs(cold->x - PAD) < 1e-9);
	assert_true(fabs(hot->x - (cold->x + cold->w)) < 1e-9);
	assert_true(fabs(inner->x - hot->x) < 1e-9);

	/* Labels fit: short names whole. */
	assert_string_equal(hot->label, "hot");
	assert_string_equal(fr[0].label, "all");
	assert_int_equal(hot->data_n, 3);
	free(d.text);
}

static void test_svg_escaping(void **state)
{
	const struct enav_folded_stack stacks[] = {
	    STACK(3, "root", "a<b&\"c\""),
	    STACK(1, "root", "it's > x;y"),
	    STACK(1, "root", "bad\xff\xc0\x80utf8\x01\n", "\xf0\x9f\x94\xa5"),
	    STACK(1, "ctl\x7f\xc2\x85"),
	};
	const struct enav_flamegraph_opts opts = {.title = "<t> & \"q\"", .unit = "s&ms"};
	struct frame fr[16];
	struct doc d = render_svg(stacks, NELEM(stacks), &opts);
	char name[512];

	assert_int_equal(d.rc, 0);
	assert_well_formed(&d);
	assert_non_null(strstr(d.text, ">&lt;t&gt; &amp; &quot;q&quot;</text>"));

	size_t n = parse_frames(&d, fr, NELEM(fr));
	assert_int_equal(n, 7);
	check_geometry(fr, n, 1200, 6);

	const struct frame *f = find_frame(fr, n, "a&lt;b&amp;&quot;c&quot;");
	FAIL_IF(!f, "escaped name missing:\n%s\n", d.text);
	assert_string_equal(f->title, "a&lt;b&amp;&quot;c&quot; (3 s&amp;ms, 50.00%)");
	assert_string_equal(f->label, "a&lt;b&amp;&quot;c&quot;");
	assert_int_equal(f->data_n, 7); /* characters of the unescaped name */
	assert_null(strstr(d.text, "a<b"));

	assert_non_null(find_frame(fr, n, "it&apos;s &gt; x;y"));
	/* Invalid bytes become U+FFFD (one per byte), controls become '?'. */
	assert_non_null(find_frame(fr, n, "bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdutf8??"));
	/* Valid UTF-8 passes through; a character outside the BMP is 2 UTF-16 units. */
	f = find_frame(fr, n, "\xf0\x9f\x94\xa5");
	assert_non_null(f);
	assert_int_equal(f->data_n, 2);
	/* DEL and a C1 control (U+0085) are controls too. */
	f = find_frame(fr, n, "ctl??");
	assert_non_null(f);
	assert_int_equal(f->data_n, 5);

	for (size_t i = 0; i < n; i++) {
		frame_name(&fr[i], name, sizeof(name));
		assert_null(strchr(name, '<'));
		assert_null(strchr(name, '"'));
	}
	free(d.text);
}

static void test_svg_empty(void **state)
{
	const struct enav_folded_stack zeros[] = {STACK(0, "a", "b"), STACK(0, "c")};
	const struct enav_flamegraph_opts opts = {.title = "Off-CPU", .unit = "nanoseconds"};

	for (int round = 0; round < 2; round++) {
		struct doc d =
		    round ? render_svg(zeros, NELEM(zeros), &opts) : render_svg(NULL, 0, &opts);

		assert_int_equal(d.rc, 0);
		assert_well_formed(&d);
		assert_non_null(strstr(d.text, "No samples"));
		assert_non_null(strstr(d.text, ">Off-CPU</text>"));
		assert_null(strstr(d.text, "<g class=\"f\""));
		assert_non_null(strstr(d.text, "</svg>\n"));
		free(d.text);
	}
}

static uint64_t sum_values_at(const struct frame *fr, size_t n, double y)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		if (fr[i].y == y)
			sum += fr[i].value;
	return sum;
}

/* 100 distinct stacks into at most 10 nodes: bounded, totals exact. */
static void test_svg_node_cap(void **state)
{
	char names[100][2][16];
	const char *frames[100][3];
	struct enav_folded_stack stacks[100];
	const struct enav_flamegraph_opts opts = {.max_nodes = 10};
	struct frame fr[64];
	uint64_t total = 0;

	for (int i = 0; i < 100; i++) {
		snprintf(names[i][0], sizeof(names[i][0]), "fn%03d", i);
		snprintf(names[i][1], sizeof(names[i][1]), "leaf%03d", i);
		frames[i][0] = "main";
		frames[i][1] = names[i][0];
		frames[i][2] = names[i][1];
		stacks[i] = (struct enav_folded_stack){frames[i], 3, (uint64_t)i + 1};
		total += (uint64_t)i + 1;
	}
	struct doc d = render_svg(stacks, 100, &opts);

	assert_int_equal(d.rc, 0);
	assert_well_formed(&d);
	size_t n = parse_frames(&d, fr, NELEM(fr));
	FAIL_IF(n > 10, "%zu frames drawn with max_nodes=10\n", n);
	check_geometry(fr, n, 1200, total);
	assert_true(d.len < 32 * 1024);

	/* Every level's frames add up to everything that reached that level:
	 * all stacks have 3 frames, so level 1 (main or "[truncated]") holds all. */
	assert_int_equal(sum_values_at(fr, n, fr[0].y - 16), total);
	const struct frame *t = find_frame(fr, n, "[truncated]");
	assert_non_null(t);
	assert_string_equal(t->fill, "rgb(190,190,190)");
	uint64_t kept = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(fr[i].title, "leaf", 4) == 0)
			kept += fr[i].value;
	uint64_t truncated = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(fr[i].title, "[truncated] ", 12) == 0)
			truncated += fr[i].value;
	assert_int_equal(kept + truncated, total);

	/* The smallest caps still draw a valid, exact document. */
	for (size_t cap = 1; cap <= 4; cap++) {
		const struct enav_flamegraph_opts o = {.max_nodes = cap};
		struct doc e = render_svg(stacks, 100, &o);

		assert_int_equal(e.rc, 0);
		assert_well_formed(&e);
		n = parse_frames(&e, fr, NELEM(fr));
		assert_true(n <= (cap < 2 ? 2 : cap));
		check_geometry(fr, n, 1200, total);
		free(e.text);
	}
	free(d.text);
}

/* Frames narrower than 0.1 px are left out; their parent still counts them. */
static void test_svg_narrow_frames_omitted(void **state)
{
	const struct enav_folded_stack stacks[] = {
	    STACK(1000000, "main", "big"),
	    STACK(1, "main", "tiny", "tinier"),
	};
	const struct enav_flamegraph_opts opts = {.width = 1200};
	struct frame fr[8];
	struct doc d = render_svg(stacks, NELEM(stacks), &opts);

	assert_int_equal(d.rc, 0);
	assert_well_formed(&d);
	size_t n = parse_frames(&d, fr, NELEM(fr));
	assert_int_equal(n, 3);
	assert_null(find_frame(fr, n, "tiny"));
	assert_null(find_frame(fr, n, "tinier"));
	const struct frame *m = find_frame(fr, n, "main");
	assert_non_null(m);
	assert_int_equal(m->value, 1000001);
	check_geometry(fr, n, 1200, 1000001);
	free(d.text);
}

static void test_svg_labels(void **state)
{
	char long_name[200];
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	memcpy(long_name, "<&>", 3);
	const struct enav_folded_stack stacks[] = {
	    STACK(1000, long_name), STACK(6, "abcdefgh"), /* 6.6 px: too narrow for any label */
	    STACK(20, "abcdefghijklmnop"),		  /* 22.1 px: 2 characters fit: no label */
	    STACK(40, "abcdefghijklmnopq"),		  /* 44.3 px: 5 fit: "abc.." */
	};
	struct frame fr[8];
	struct doc d = render_svg(stacks, NELEM(stacks), NULL);

	assert_int_equal(d.rc, 0);
	assert_well_formed(&d);
	size_t n = parse_frames(&d, fr, NELEM(fr));
	assert_int_equal(n, 5);
	check_geometry(fr, n, 1200, 1066);

	for (size_t i = 1; i < n; i++) {
		const struct frame *f = &fr[i];
		size_t fit = (size_t)floor((f->w - 6) / 7.25);

		if (strncmp(f->title, "&lt;&amp;&gt;", 13) == 0) {
			/* 1106.9 px: 151 characters fit, so 149 and "..". */
			assert_int_equal(fit, 151);
			char want[200] = "&lt;&amp;&gt;";
			memset(want + 13, 'x', 146);
			memcpy(want + 13 + 146, "..", 3);
			assert_string_equal(f->label, want);
		} else if (strncmp(f->title, "abcdefgh ", 9) == 0) {
			assert_string_equal(f->label, "");
		} else if (strncmp(f->title, "abcdefghijklmnop ", 17) == 0) {
			assert_int_equal(fit, 2);
			assert_string_equal(f->label, "");
		} else {
			assert_int_equal(fit, 5);
			assert_string_equal(f->label, "abc..");
		}
	}
	free(d.text);
}

/* Same input in any order: the same bytes; the same name: the same colour. */
static void test_svg_deterministic(void **state)
{
	const struct enav_folded_stack a[] = {
	    STACK(5, "main", "parse", "lex"),
	    STACK(7, "main", "eval"),
	    STACK(2, "worker", "parse"),
	    STACK(1, "main", "parse", "lex"),
	};
	const struct enav_folded_stack b[] = {a[3], a[2], a[1], a[0]};
	struct doc x = render_svg(a, NELEM(a), NULL);
	struct doc y = render_svg(b, NELEM(b), NULL);
	struct doc z = render_svg(a, NELEM(a), NULL);
	struct frame fr[16];

	assert_int_equal(x.rc, 0);
	assert_int_equal(y.rc, 0);
	assert_int_equal(x.len, y.len);
	assert_memory_equal(x.text, y.text, x.len);
	assert_int_equal(x.len, z.len);
	assert_memory_equal(x.text, z.text, x.len);

	size_t n = parse_frames(&x, fr, NELEM(fr));
	const char *parse_fill = NULL;
	for (size_t i = 0; i < n; i++) {
		if (strncmp(fr[i].title, "parse ", 6) != 0)
			continue;
		if (parse_fill)
			assert_string_equal(fr[i].fill, parse_fill);
		parse_fill = fr[i].fill;
		unsigned r, g, bl;
		assert_int_equal(sscanf(fr[i].fill, "rgb(%u,%u,%u)", &r, &g, &bl), 3);
		assert_true(r >= 200 && bl <= 60 && g <= 235); /* warm */
	}
	assert_non_null(parse_fill);
	free(x.text);
	free(y.text);
	free(z.text);
}

/* A frame named "[truncated]" by the caller is an ordinary frame; a deep
 * stack and the width option are honoured. */
static void test_svg_width_and_depth(void **state)
{
	const char *deep[300];
	char names[300][8];

	for (int i = 0; i < 300; i++) {
		snprintf(names[i], sizeof(names[i]), "d%d", i);
		deep[i] = names[i];
	}
	const struct enav_folded_stack stacks[] = {
	    {deep, 300, 9},
	    STACK(1, "[truncated]"),
	};
	const struct enav_flamegraph_opts opts = {.width = 640};
	static struct frame fr[320];
	struct doc d = render_svg(stacks, NELEM(stacks), &opts);

	assert_int_equal(d.rc, 0);
	assert_well_formed(&d);
	size_t n = parse_frames(&d, fr, NELEM(fr));
	assert_int_equal(n, 302);
	check_geometry(fr, n, 640, 10);
	/* 40 px above the frames, 16 per level, 34 below. */
	assert_non_null(strstr(d.text, "width=\"640\" height=\"4890\""));
	const struct frame *t = find_frame(fr, n, "[truncated]");
	assert_non_null(t);
	assert_string_not_equal(t->fill, "rgb(190,190,190)");
	free(d.text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_folded_exact),
	    cmocka_unit_test(test_invalid_arguments),
	    cmocka_unit_test(test_svg_proportions),
	    cmocka_unit_test(test_svg_escaping),
	    cmocka_unit_test(test_svg_empty),
	    cmocka_unit_test(test_svg_node_cap),
	    cmocka_unit_test(test_svg_narrow_frames_omitted),
	    cmocka_unit_test(test_svg_labels),
	    cmocka_unit_test(test_svg_deterministic),
	    cmocka_unit_test(test_svg_width_and_depth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
