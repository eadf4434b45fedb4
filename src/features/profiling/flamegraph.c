/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Folded stacks and a self-contained flame graph SVG (see flamegraph.h).
 *
 * The SVG side merges the stacks into a bounded prefix tree, lays it out in
 * integer arithmetic (hundredths of a pixel, so the same input always gives
 * the same bytes and sibling rectangles tile exactly), and writes every
 * rectangle wide enough to see.  Text from the caller goes through one
 * function that escapes XML and replaces what XML cannot carry.
 */
#include "features/profiling/flamegraph.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define FG_DEFAULT_WIDTH     1200u
#define FG_MIN_WIDTH	     100u
#define FG_MAX_WIDTH	     100000u
#define FG_DEFAULT_MAX_NODES 50000u
#define FG_MIN_NODES	     2u	  /* the root and one "[truncated]" */
#define FG_PAD		     10u  /* px left and right of the frames */
#define FG_ROW		     16u  /* px per stack level */
#define FG_RECT_H	     15u  /* px: one px gap between levels */
#define FG_TOP		     40u  /* px above the frames: title, buttons */
#define FG_BOTTOM	     34u  /* px below: hover details, search result */
#define FG_MIN_CENTI	     10u  /* rectangles narrower than 0.1 px are omitted */
#define FG_CHAR_CENTI	     725u /* ~7 px per character of a 12 px monospace font */
#define FG_LABEL_PAD_CENTI   600u /* 3 px each side of a label */

#define UTF8_BAD 0x110000u /* utf8_next: not a valid character */

static const char UNKNOWN[] = "[unknown]";
static const char TRUNCATED[] = "[truncated]";
static const char ROOT_NAME[] = "all";

/* ---- input ---------------------------------------------------------------- */

static int check_input(FILE *out, const struct enav_folded_stack *stacks, size_t n)
{
	if (!out || (n && !stacks))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (stacks[i].n_frames && !stacks[i].frames)
			return -EINVAL;
	return 0;
}

/* A stack without frames is one "[unknown]" frame, and so is a NULL or empty
 * frame name: both outputs agree on this. */
static size_t stack_depth(const struct enav_folded_stack *s)
{
	return s->n_frames ? s->n_frames : 1;
}

static const char *stack_frame(const struct enav_folded_stack *s, size_t i)
{
	if (!s->n_frames)
		return UNKNOWN;
	const char *f = s->frames[i];
	return f && f[0] ? f : UNKNOWN;
}

/* ---- folded --------------------------------------------------------------- */

static bool folded_special(unsigned char c)
{
	return c == ';' || c < 0x20 || c == 0x7f;
}

static void put_folded_name(FILE *out, const char *name)
{
	const unsigned char *s = (const unsigned char *)name;

	while (*s) {
		size_t run = 0;

		while (s[run] && !folded_special(s[run]))
			run++;
		if (run) {
			fwrite(s, 1, run, out);
			s += run;
			continue;
		}
		fputc(*s == ';' ? ':' : '?', out);
		s++;
	}
}

int enav_folded_write(FILE *out, const struct enav_folded_stack *stacks, size_t n)
{
	int err = check_input(out, stacks, n);

	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		const struct enav_folded_stack *s = &stacks[i];
		size_t depth = stack_depth(s);

		for (size_t f = 0; f < depth; f++) {
			if (f)
				fputc(';', out);
			put_folded_name(out, stack_frame(s, f));
		}
		fprintf(out, " %" PRIu64 "\n", s->value);
	}
	return ferror(out) ? -EIO : 0;
}

/* ---- text for XML --------------------------------------------------------- */

/*
 * The character at s (NUL-terminated): its length in bytes and, in *cp, the
 * code point, or UTF8_BAD with length 1 for a byte that does not start a
 * valid, shortest-form UTF-8 sequence.  Never reads past the NUL: a
 * continuation byte is only looked at after a non-NUL one.
 */
static size_t utf8_next(const unsigned char *s, uint32_t *cp)
{
	uint32_t v, min;
	size_t len;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		v = s[0] & 0x1f;
		min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		v = s[0] & 0x0f;
		min = 0x800;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		v = s[0] & 0x07;
		min = 0x10000;
	} else {
		goto bad;
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto bad;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		goto bad;
	*cp = v;
	return len;
bad:
	*cp = UTF8_BAD;
	return 1;
}

/* What is shown for a code point: controls (C0, DEL, C1) become '?'; bytes
 * that are not UTF-8 and the two non-characters XML forbids become U+FFFD. */
static uint32_t display_cp(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
		return '?';
	if (cp == UTF8_BAD || cp == 0xfffe || cp == 0xffff)
		return 0xfffd;
	return cp;
}

struct text_len {
	size_t chars; /* code points shown */
	size_t utf16; /* the same in UTF-16 units (what the script's strings count) */
};

static struct text_len text_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	struct text_len l = {0, 0};
	uint32_t cp;

	while (*s) {
		s += utf8_next(s, &cp);
		l.chars++;
		l.utf16 += display_cp(cp) >= 0x10000 ? 2 : 1;
	}
	return l;
}

/* Writes at most max_chars characters of str as escaped, well-formed XML
 * character data (also valid inside a double-quoted attribute). */
static void put_xml(FILE *out, const char *str, size_t max_chars)
{
	const unsigned char *s = (const unsigned char *)str;

	for (size_t n = 0; *s && n < max_chars; n++) {
		uint32_t cp;
		size_t len = utf8_next(s, &cp);
		uint32_t d = display_cp(cp);

		switch (d) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			if (d == cp)
				fwrite(s, 1, len, out); /* valid and allowed: as it came */
			else if (d == '?')
				fputc('?', out);
			else
				fputs("\xef\xbf\xbd", out); /* U+FFFD */
			break;
		}
		s += len;
	}
}

/* ---- the tree ------------------------------------------------------------- */

struct fg_node {
	const char *name; /* the caller's string (or a static one): valid during the call */
	uint64_t hash;	  /* FNV-1a of name: child lookup and colour */
	uint64_t value;	  /* this frame and everything above it */
	uint64_t x0;	  /* left edge, in value units from the root's left edge */
	size_t parent;
	size_t trunc; /* index of the "[truncated]" child, 0 = none */
	size_t kid0;  /* children: kids[kid0 .. kid0 + nkids), sorted */
	size_t nkids;
	size_t depth;
	bool pseudo; /* a "[truncated]" node */
};

struct fg_tree {
	struct fg_node *nodes; /* [0] is the root */
	size_t n, alloc;
	size_t cap;	/* most nodes, "[truncated]" ones and the root included */
	size_t reserve; /* slots only "[truncated]" nodes may take */
	size_t *table;	/* (parent, name) -> node index, open addressing, 0 = empty */
	size_t table_size, table_used;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

static size_t slot_of(uint64_t name_hash, size_t parent)
{
	uint64_t h = name_hash ^ ((uint64_t)parent * 0x9e3779b97f4a7c15ull);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 29;
	return (size_t)h;
}

static size_t tree_find(const struct fg_tree *t, size_t parent, const char *name, uint64_t hash)
{
	size_t mask = t->table_size - 1;

	for (size_t i = slot_of(hash, parent) & mask; t->table[i]; i = (i + 1) & mask) {
		const struct fg_node *c = &t->nodes[t->table[i]];

		if (c->parent == parent && c->hash == hash && strcmp(c->name, name) == 0)
			return t->table[i];
	}
	return 0;
}

static void table_put(size_t *table, size_t size, const struct fg_node *nodes, size_t idx)
{
	size_t mask = size - 1;
	size_t i = slot_of(nodes[idx].hash, nodes[idx].parent) & mask;

	while (table[i])
		i = (i + 1) & mask;
	table[i] = idx;
}

/* Keeps the table at most half full. */
static int table_make_room(struct fg_tree *t)
{
	if ((t->table_used + 1) * 2 <= t->table_size)
		return 0;

	size_t size = t->table_size * 2;
	size_t *table = calloc(size, sizeof(*table));

	if (!table)
		return -ENOMEM;
	for (size_t i = 0; i < t->table_size; i++)
		if (t->table[i])
			table_put(table, size, t->nodes, t->table[i]);
	free(t->table);
	t->table = table;
	t->table_size = size;
	return 0;
}

/* A new node under parent (not yet counted in any value), or 0 without memory. */
static size_t tree_add(struct fg_tree *t, size_t parent, const char *name, uint64_t hash,
		       bool pseudo)
{
	if (t->n == t->alloc) {
		size_t alloc = t->alloc < t->cap / 2 ? t->alloc * 2 : t->cap;
		struct fg_node *nodes = reallocarray(t->nodes, alloc, sizeof(*nodes));

		if (!nodes)
			return 0;
		t->nodes = nodes;
		t->alloc = alloc;
	}
	if (!pseudo && table_make_room(t))
		return 0;

	size_t idx = t->n++;

	t->nodes[idx] = (struct fg_node){
	    .name = name,
	    .hash = hash,
	    .parent = parent,
	    .depth = t->nodes[parent].depth + 1,
	    .pseudo = pseudo,
	};
	if (pseudo) {
		t->nodes[parent].trunc = idx;
	} else {
		table_put(t->table, t->table_size, t->nodes, idx);
		t->table_used++;
	}
	return idx;
}

/*
 * Slots: ordinary frames stop `reserve` short of the cap; "[truncated]" nodes
 * may use the rest, except that one slot always stays for the root's own, so a
 * stack past the cap always has a "[truncated]" node to go to.
 */
static bool can_add_frame(const struct fg_tree *t)
{
	return t->n + t->reserve < t->cap;
}

static bool can_add_trunc(const struct fg_tree *t, size_t parent)
{
	size_t keep = parent != 0 && t->nodes[0].trunc == 0 ? 1 : 0;

	return t->n + keep < t->cap;
}

/* Where the frames of a stack that found no room below `at` are counted: the
 * "[truncated]" child of `at` or, without a slot for one, of its nearest
 * ancestor that has or can get one (the root always can). */
static size_t trunc_target(struct fg_tree *t, size_t at)
{
	for (;;) {
		if (t->nodes[at].trunc)
			return t->nodes[at].trunc;
		if (can_add_trunc(t, at))
			return tree_add(t, at, TRUNCATED, fnv1a(TRUNCATED), true);
		at = t->nodes[at].parent;
	}
}

static int tree_insert(struct fg_tree *t, const struct enav_folded_stack *s)
{
	size_t depth = stack_depth(s);
	size_t at = 0, f;

	for (f = 0; f < depth; f++) {
		const char *name = stack_frame(s, f);
		uint64_t hash = fnv1a(name);
		size_t child = tree_find(t, at, name, hash);

		if (!child) {
			if (!can_add_frame(t))
				break;
			child = tree_add(t, at, name, hash, false);
			if (!child)
				return -ENOMEM;
		}
		at = child;
	}
	if (f < depth) {
		at = trunc_target(t, at);
		if (!at)
			return -ENOMEM;
	}
	/* No overflow: every node's value is at most the checked grand total. */
	for (;; at = t->nodes[at].parent) {
		t->nodes[at].value += s->value;
		if (at == 0)
			break;
	}
	return 0;
}

static int tree_init(struct fg_tree *t, size_t cap)
{
	*t = (struct fg_tree){.cap = cap, .reserve = 1 + cap / 8};
	t->alloc = cap < 64 ? cap : 64;
	t->nodes = calloc(t->alloc, sizeof(*t->nodes));
	t->table_size = 128;
	t->table = calloc(t->table_size, sizeof(*t->table));
	if (!t->nodes || !t->table)
		return -ENOMEM;
	t->nodes[0] = (struct fg_node){.name = ROOT_NAME, .hash = fnv1a(ROOT_NAME)};
	t->n = 1;
	return 0;
}

static void tree_free(struct fg_tree *t)
{
	free(t->nodes);
	free(t->table);
}

/* Siblings by name; a "[truncated]" node after its ordinary siblings. */
static int kid_cmp(const void *a, const void *b, void *arg)
{
	const struct fg_node *nodes = arg;
	const struct fg_node *x = &nodes[*(const size_t *)a], *y = &nodes[*(const size_t *)b];

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->pseudo != y->pseudo)
		return x->pseudo ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* ---- layout --------------------------------------------------------------- */

struct fg_layout {
	uint64_t total;	  /* the root's value, > 0 */
	uint64_t pad;	  /* centi-px */
	uint64_t usable;  /* centi-px the root spans */
	size_t *kids;	  /* every node but the root, grouped by parent, sorted */
	size_t *order;	  /* shown nodes, parents before children */
	size_t n_shown;	  /* entries of order */
	size_t max_depth; /* of shown nodes */
};

/* Left edge of value offset v, in hundredths of a pixel. */
static uint64_t x_centi(const struct fg_layout *l, uint64_t v)
{
	return l->pad + (uint64_t)((unsigned __int128)v * l->usable / l->total);
}

static int layout(struct fg_tree *t, struct fg_layout *l)
{
	struct fg_node *nodes = t->nodes;
	size_t n_kids = t->n - 1;

	l->kids = malloc((n_kids ? n_kids : 1) * sizeof(*l->kids));
	l->order = malloc(t->n * sizeof(*l->order));
	if (!l->kids || !l->order)
		return -ENOMEM;
	for (size_t i = 0; i < n_kids; i++)
		l->kids[i] = i + 1;
	qsort_r(l->kids, n_kids, sizeof(*l->kids), kid_cmp, nodes);
	for (size_t i = 0; i < n_kids; i++) {
		struct fg_node *p = &nodes[nodes[l->kids[i]].parent];

		if (!p->nkids)
			p->kid0 = i;
		p->nkids++;
	}

	/* Breadth first from the root: children sit side by side from the
	 * parent's left edge; what is left of the parent is its self time. */
	l->order[0] = 0;
	l->n_shown = 1;
	l->max_depth = 0;
	for (size_t head = 0; head < l->n_shown; head++) {
		const struct fg_node *p = &nodes[l->order[head]];
		uint64_t x = p->x0;

		for (size_t k = 0; k < p->nkids; k++) {
			size_t idx = l->kids[p->kid0 + k];
			struct fg_node *c = &nodes[idx];

			c->x0 = x;
			x += c->value;
			/* Narrower than a tenth of a pixel: left out with everything
			 * above it (all narrower still); the parent's rectangle covers
			 * its place. */
			if (x_centi(l, c->x0 + c->value) - x_centi(l, c->x0) < FG_MIN_CENTI)
				continue;
			l->order[l->n_shown++] = idx;
			if (c->depth > l->max_depth)
				l->max_depth = c->depth;
		}
	}
	return 0;
}

/* ---- SVG ------------------------------------------------------------------ */

static void put_centi(FILE *out, uint64_t c)
{
	fprintf(out, "%" PRIu64 ".%02u", c / 100, (unsigned)(c % 100));
}

/* A warm colour (red to yellow) fixed by the name's hash. */
static void put_colour(FILE *out, const struct fg_node *n)
{
	if (n->pseudo) {
		fputs("rgb(190,190,190)", out);
		return;
	}
	uint64_t h = n->hash ^ n->hash >> 29;

	fprintf(out, "rgb(%u,%u,%u)", 205u + (unsigned)(h % 51), 70u + (unsigned)(h >> 8) % 160u,
		(unsigned)(h >> 24) % 56u);
}

static const char SVG_STYLE[] = "<style type=\"text/css\">\n"
				"text{font-family:monospace;font-size:12px;fill:#000}\n"
				"#title{font-size:17px;text-anchor:middle}\n"
				".btn{cursor:pointer;fill:#333}\n"
				"g.f{cursor:pointer}\n"
				"g.f:hover rect{stroke:#000;stroke-width:0.5}\n"
				"</style>\n";

/*
 * Click a frame to zoom to it (its ancestors span the width, faded; frames
 * beside it are hidden), click the root or "Reset zoom" to go back; "Search"
 * highlights the frames whose name matches a regular expression and shows the
 * share of the total they cover.  Frame names come from each <title>, whose
 * first fg:n UTF-16 units are the name (an attribute in a namespace of
 * our own, which SVG 1.1 allows).
 */
static const char SVG_SCRIPT[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "(function () {\n"
    "'use strict';\n"
    "var svg = document.documentElement, PAD = 10, CW = 7.25;\n"
    "var full = parseFloat(svg.getAttribute('width')) - 2 * PAD;\n"
    "var box = document.getElementById('frames');\n"
    "var details = document.getElementById('details');\n"
    "var matched = document.getElementById('matched');\n"
    "var reset = document.getElementById('reset');\n"
    "var frames = [], term = '';\n"
    "var gs = box.getElementsByTagName('g');\n"
    "for (var i = 0; i < gs.length; i++) {\n"
    "  var g = gs[i], r = g.getElementsByTagName('rect')[0];\n"
    "  var l = g.getElementsByTagName('text')[0];\n"
    "  var t = g.getElementsByTagName('title')[0].textContent;\n"
    "  g.fgFrame = {g: g, r: r, l: l, title: t, fill: r.getAttribute('fill'),\n"
    "    name: t.substring(0, parseInt(g.getAttribute('fg:n'), 10)), label: l.textContent,\n"
    "    x: parseFloat(r.getAttribute('x')), w: parseFloat(r.getAttribute('width')),\n"
    "    y: parseFloat(r.getAttribute('y'))};\n"
    "  frames.push(g.fgFrame);\n"
    "}\n"
    "function label(name, w) {\n"
    "  var n = Math.floor((w - 6) / CW), cs = Array.from(name);\n"
    "  if (cs.length <= n) return name;\n"
    "  return n >= 3 ? cs.slice(0, n - 2).join('') + '..' : '';\n"
    "}\n"
    "function place(f, x, w, text, faded) {\n"
    "  f.r.setAttribute('x', x.toFixed(2));\n"
    "  f.r.setAttribute('width', w.toFixed(2));\n"
    "  f.l.setAttribute('x', (x + 3).toFixed(2));\n"
    "  f.l.textContent = text;\n"
    "  if (faded) f.g.setAttribute('opacity', '0.6'); else f.g.removeAttribute('opacity');\n"
    "  f.g.removeAttribute('display');\n"
    "}\n"
    "function unzoom() {\n"
    "  frames.forEach(function (f) { place(f, f.x, f.w, f.label, false); });\n"
    "  reset.setAttribute('visibility', 'hidden');\n"
    "}\n"
    "function zoom(z) {\n"
    "  var eps = 0.005, s = full / z.w, zr = z.x + z.w;\n"
    "  frames.forEach(function (f) {\n"
    "    if (f.y > z.y && f.x <= z.x + eps && f.x + f.w >= zr - eps)\n"
    "      place(f, PAD, full, label(f.name, full), true);\n"
    "    else if (f.y <= z.y && f.x >= z.x - eps && f.x + f.w <= zr + eps)\n"
    "      place(f, PAD + (f.x - z.x) * s, f.w * s, label(f.name, f.w * s), false);\n"
    "    else\n"
    "      f.g.setAttribute('display', 'none');\n"
    "  });\n"
    "  reset.setAttribute('visibility', 'visible');\n"
    "}\n"
    "function search() {\n"
    "  var q = window.prompt('Search frames (regular expression, empty to clear):', term);\n"
    "  if (q === null) return;\n"
    "  var re = null;\n"
    "  if (q !== '') {\n"
    "    try { re = new RegExp(q); } catch (e) { window.alert('Invalid regular expression'); "
    "return; }\n"
    "  }\n"
    "  term = q;\n"
    "  var spans = [];\n"
    "  frames.forEach(function (f) {\n"
    "    var hit = re !== null && re.test(f.name);\n"
    "    f.r.setAttribute('fill', hit ? 'rgb(230,0,230)' : f.fill);\n"
    "    if (hit) spans.push([f.x, f.x + f.w]);\n"
    "  });\n"
    "  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
    "  var sum = 0, end = -1;\n"
    "  spans.forEach(function (s) {\n"
    "    if (s[1] <= end) return;\n"
    "    sum += s[1] - Math.max(s[0], end);\n"
    "    end = s[1];\n"
    "  });\n"
    "  matched.textContent = re === null ? ' ' : 'Matched: ' + (100 * sum / full).toFixed(2) + "
    "'%';\n"
    "}\n"
    "function frameOf(e) {\n"
    "  for (var n = e.target; n && n !== box; n = n.parentNode)\n"
    "    if (n.fgFrame) return n.fgFrame;\n"
    "  return null;\n"
    "}\n"
    "box.addEventListener('click', function (e) {\n"
    "  var f = frameOf(e);\n"
    "  if (f === frames[0]) unzoom(); else if (f) zoom(f);\n"
    "});\n"
    "box.addEventListener('mouseover', function (e) {\n"
    "  var f = frameOf(e);\n"
    "  details.textContent = f ? f.title : ' ';\n"
    "});\n"
    "box.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
    "reset.addEventListener('click', unzoom);\n"
    "document.getElementById('search').addEventListener('click', search);\n"
    "})();\n"
    "]]></script>\n";

static void put_header(FILE *out, unsigned width, uint64_t height, const char *title)
{
	fprintf(out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" "
		"xmlns:fg=\"urn:x-enav:flamegraph\" width=\"%u\" "
		"height=\"%" PRIu64 "\" viewBox=\"0 0 %u %" PRIu64 "\">\n",
		width, height, width, height);
	fputs(SVG_STYLE, out);
	fprintf(out,
		"<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%" PRIu64
		"\" fill=\"rgb(253,248,238)\"/>\n",
		width, height);
	fprintf(out, "<text id=\"title\" x=\"%u\" y=\"24\">", width / 2);
	put_xml(out, title, SIZE_MAX);
	fputs("</text>\n", out);
}

static void put_frame(FILE *out, const struct fg_tree *t, const struct fg_layout *l, size_t idx,
		      const char *unit)
{
	const struct fg_node *n = &t->nodes[idx];
	struct text_len len = text_len(n->name);
	uint64_t x = x_centi(l, n->x0);
	uint64_t w = x_centi(l, n->x0 + n->value) - x;
	uint64_t pct = (uint64_t)(((unsigned __int128)n->value * 10000 + l->total / 2) / l->total);
	uint64_t y = FG_TOP + (uint64_t)(l->max_depth - n->depth) * FG_ROW;
	size_t fit = w > FG_LABEL_PAD_CENTI ? (w - FG_LABEL_PAD_CENTI) / FG_CHAR_CENTI : 0;

	fprintf(out, "<g class=\"f\" fg:n=\"%zu\"><title>", len.utf16);
	put_xml(out, n->name, SIZE_MAX);
	fprintf(out, " (%" PRIu64 " ", n->value);
	put_xml(out, unit, SIZE_MAX);
	fprintf(out, ", %" PRIu64 ".%02u%%)</title><rect x=\"", pct / 100, (unsigned)(pct % 100));
	put_centi(out, x);
	fprintf(out, "\" y=\"%" PRIu64 "\" width=\"", y);
	put_centi(out, w);
	fprintf(out, "\" height=\"%u\" rx=\"2\" fill=\"", FG_RECT_H);
	put_colour(out, n);
	fputs("\"/><text x=\"", out);
	put_centi(out, x + 300);
	fprintf(out, "\" y=\"%" PRIu64 "\">", y + 11);
	if (len.chars <= fit) {
		put_xml(out, n->name, SIZE_MAX);
	} else if (fit >= 3) {
		put_xml(out, n->name, fit - 2);
		fputs("..", out);
	}
	fputs("</text></g>\n", out);
}

static int svg_empty(FILE *out, unsigned width, const char *title)
{
	unsigned height = 120;

	put_header(out, width, height, title);
	fprintf(out, "<text x=\"%u\" y=\"70\" text-anchor=\"middle\">No samples</text>\n",
		width / 2);
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}

int enav_flamegraph_svg(FILE *out, const struct enav_folded_stack *stacks, size_t n,
			const struct enav_flamegraph_opts *opts)
{
	const struct enav_flamegraph_opts none = {0};
	int err = check_input(out, stacks, n);

	if (err)
		return err;
	if (!opts)
		opts = &none;

	const char *title = opts->title ? opts->title : "Flame Graph";
	const char *unit = opts->unit ? opts->unit : "samples";
	unsigned width = opts->width ? opts->width : FG_DEFAULT_WIDTH;
	size_t cap = opts->max_nodes ? opts->max_nodes : FG_DEFAULT_MAX_NODES;
	uint64_t total = 0;

	if (width < FG_MIN_WIDTH)
		width = FG_MIN_WIDTH;
	if (width > FG_MAX_WIDTH)
		width = FG_MAX_WIDTH;
	if (cap < FG_MIN_NODES)
		cap = FG_MIN_NODES;
	for (size_t i = 0; i < n; i++)
		if (__builtin_add_overflow(total, stacks[i].value, &total))
			return -EOVERFLOW;
	if (!total)
		return svg_empty(out, width, title);

	struct fg_tree t;
	struct fg_layout l = {
	    .total = total,
	    .pad = FG_PAD * 100,
	    .usable = (uint64_t)(width - 2 * FG_PAD) * 100,
	};

	err = tree_init(&t, cap);
	for (size_t i = 0; !err && i < n; i++)
		if (stacks[i].value)
			err = tree_insert(&t, &stacks[i]);
	if (!err)
		err = layout(&t, &l);
	if (!err) {
		uint64_t height = FG_TOP + ((uint64_t)l.max_depth + 1) * FG_ROW + FG_BOTTOM;

		put_header(out, width, height, title);
		fputs("<text id=\"reset\" class=\"btn\" x=\"10\" y=\"24\" "
		      "visibility=\"hidden\">Reset zoom</text>\n",
		      out);
		fprintf(out,
			"<text id=\"search\" class=\"btn\" x=\"%u\" y=\"24\" "
			"text-anchor=\"end\">Search</text>\n",
			width - FG_PAD);
		fprintf(out, "<text id=\"details\" x=\"%u\" y=\"%" PRIu64 "\"> </text>\n", FG_PAD,
			height - 12);
		fprintf(out,
			"<text id=\"matched\" x=\"%u\" y=\"%" PRIu64
			"\" text-anchor=\"end\"> </text>\n",
			width - FG_PAD, height - 12);
		fputs("<g id=\"frames\">\n", out);
		for (size_t i = 0; i < l.n_shown; i++)
			put_frame(out, &t, &l, l.order[i], unit);
		fputs("</g>\n", out);
		fputs(SVG_SCRIPT, out);
		fputs("</svg>\n", out);
		if (ferror(out))
			err = -EIO;
	}
	free(l.kids);
	free(l.order);
	tree_free(&t);
	return err;
}
