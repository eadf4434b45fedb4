/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/promtext.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/numfmt.h"

void enav_promtext_init(struct enav_promtext *p, char *buf, size_t cap)
{
	memset(p, 0, sizeof(*p));
	p->buf = buf;
	p->cap = cap;
	if (cap)
		buf[0] = '\0';
}

int enav_promtext_init_growable(struct enav_promtext *p, size_t hard_cap)
{
	memset(p, 0, sizeof(*p));
	p->growable = true;
	p->hard_cap = hard_cap < 1 ? 1 : hard_cap;
	size_t first = ENAV_PROMTEXT_CHUNK < p->hard_cap ? ENAV_PROMTEXT_CHUNK : p->hard_cap;
	p->buf = malloc(first);
	if (!p->buf)
		return -ENOMEM;
	p->cap = first;
	p->buf[0] = '\0';
	return 0;
}

void enav_promtext_init_sink(struct enav_promtext *p, const struct enav_promtext_sink *sink,
			     void *ctx)
{
	memset(p, 0, sizeof(*p));
	p->sink = sink;
	p->sink_ctx = ctx;
}

void enav_promtext_free(struct enav_promtext *p)
{
	if (p->growable)
		free(p->buf);
	p->buf = NULL;
	p->cap = p->len = 0;
}

/* Nothing more is written: a cut fixed buffer, or a family being skipped. */
static bool stopped(const struct enav_promtext *p)
{
	return p->overflow || p->skipping;
}

/*
 * The growable writer at its hard cap (or out of memory): the current family
 * goes back to where it began, so a scraper never sees half of one, and its
 * remaining samples are skipped until the next family starts.
 */
static void drop_family(struct enav_promtext *p)
{
	p->len = p->family_start;
	p->buf[p->len] = '\0';
	p->skipping = true;
	p->families_dropped++;
}

/* Room for n more bytes and the NUL, growing a growable buffer in chunks. */
static bool room(struct enav_promtext *p, size_t n)
{
	if (p->len < p->cap && n < p->cap - p->len)
		return true;
	if (!p->growable || n >= p->hard_cap - p->len)
		return false;
	size_t need = p->len + n + 1;
	size_t grow = p->cap < ((size_t)4 << 20) ? p->cap : (size_t)4 << 20;
	size_t want = p->cap + (grow > ENAV_PROMTEXT_CHUNK ? grow : ENAV_PROMTEXT_CHUNK);
	if (want < need)
		want = need;
	if (want > p->hard_cap)
		want = p->hard_cap;
	char *nb = realloc(p->buf, want);
	if (!nb)
		return false;
	p->buf = nb;
	p->cap = want;
	return true;
}

/* No room: a fixed buffer is cut and flagged, a growable one drops the family. */
static void no_room(struct enav_promtext *p)
{
	if (p->growable) {
		drop_family(p);
		return;
	}
	p->overflow = true;
	if (p->len < p->cap)
		p->buf[p->len] = '\0';
}

/*
 * Append n bytes, or set overflow.  As the vsnprintf this replaced: the
 * text must fit with its NUL, which is always written after it.
 */
static void put_n(struct enav_promtext *p, const char *s, size_t n)
{
	if (stopped(p))
		return;
	if (!room(p, n)) {
		no_room(p);
		return;
	}
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	p->buf[p->len] = '\0';
}

static void put_s(struct enav_promtext *p, const char *s)
{
	put_n(p, s, strlen(s));
}

/* parts[0..n), n <= 5, as one write: all of them fit, or none is written. */
static void put_parts(struct enav_promtext *p, const char *const *parts, size_t n)
{
	size_t len[5], total = 0;
	for (size_t i = 0; i < n; i++)
		total += len[i] = strlen(parts[i]);
	if (stopped(p))
		return;
	if (!room(p, total)) {
		no_room(p);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(p->buf + p->len, parts[i], len[i]);
		p->len += len[i];
	}
	p->buf[p->len] = '\0';
}

/* Runs of text with the escapes of escaped[] (a NUL ends s). */
static void put_escaped(struct enav_promtext *p, const char *s, bool quotes)
{
	while (*s && !stopped(p)) {
		size_t run = strcspn(s, quotes ? "\\\"\n" : "\\\n");
		if (run) {
			put_n(p, s, run);
			s += run;
			continue;
		}
		put_n(p, *s == '\\' ? "\\\\" : *s == '"' ? "\\\"" : "\\n", 2);
		s++;
	}
}

/* Label values: backslash, double quote and newline are the escapes 0.0.4 defines. */
static void put_label_value(struct enav_promtext *p, const char *v)
{
	put_escaped(p, v, true);
}

void enav_promtext_single(struct enav_promtext *p, const char *name, const char *type,
			  const char *help, double value)
{
	enav_promtext_family(p, name, type, help);
	enav_promtext_sample(p, name, NULL, 0, value);
}

void enav_promtext_single_u64(struct enav_promtext *p, const char *name, const char *type,
			      const char *help, uint64_t value)
{
	enav_promtext_family(p, name, type, help);
	enav_promtext_sample_u64(p, name, NULL, 0, value);
}

void enav_promtext_raw(struct enav_promtext *p, const char *text, size_t len)
{
	if (p->sink) {
		p->sink->raw(p->sink_ctx, text, len);
		return;
	}
	/* A cached block is whole families: it is one unit, in or out. */
	if (p->growable) {
		p->family_start = p->len;
		p->skipping = false;
	}
	if (p->overflow)
		return;
	if (!room(p, len)) {
		if (p->growable)
			drop_family(p);
		else
			p->overflow = true;
		return;
	}
	memcpy(p->buf + p->len, text, len);
	p->len += len;
	p->buf[p->len] = '\0';
	/* Samples after the block start no family of their own. */
	p->family_start = p->len;
}

void enav_promtext_family(struct enav_promtext *p, const char *name, const char *type,
			  const char *help)
{
	if (p->sink) {
		p->sink->family(p->sink_ctx, name, type, help);
		return;
	}
	if (p->growable) {
		p->family_start = p->len;
		p->skipping = false;
	}
	/* Cut, on overflow, where the printf-based writer cut. */
	const char *head[] = {"# HELP ", name, " "};
	put_parts(p, head, 3);
	/* HELP text escapes backslash and newline (quotes are literal there). */
	put_escaped(p, help, false);
	const char *tail[] = {"\n# TYPE ", name, " ", type, "\n"};
	put_parts(p, tail, 5);
}

static void put_labels(struct enav_promtext *p, const char *const *labels, size_t n_pairs)
{
	if (n_pairs == 0)
		return;
	put_n(p, "{", 1);
	for (size_t i = 0; i < n_pairs; i++) {
		const char *name[] = {i ? "," : "", labels[2 * i], "=\""};
		put_parts(p, name, 3);
		put_label_value(p, labels[2 * i + 1]);
		put_n(p, "\"", 1);
	}
	put_n(p, "}", 1);
}

void enav_promtext_sample(struct enav_promtext *p, const char *name, const char *const *labels,
			  size_t n_pairs, double value)
{
	if (p->sink) {
		p->sink->sample(p->sink_ctx, name, labels, n_pairs, value);
		return;
	}
	put_s(p, name);
	put_labels(p, labels, n_pairs);
	if (isnan(value)) {
		put_s(p, " NaN\n");
	} else if (isinf(value)) {
		put_s(p, value > 0 ? " +Inf\n" : " -Inf\n");
	} else if (fabs(value) < 0x1p53 && value == (double)(int64_t)value &&
		   !(value == 0 && signbit(value))) {
		/* A whole number below 2^53 is what %.17g prints: its digits. */
		char tmp[ENAV_U64_TEXT_MAX + 3];
		tmp[0] = ' ';
		size_t n = 1 + enav_fmt_i64(tmp + 1, (int64_t)value);
		tmp[n++] = '\n';
		put_n(p, tmp, n);
	} else {
		char tmp[40];
		int n = snprintf(tmp, sizeof(tmp), " %.17g\n", value);
		put_n(p, tmp, (size_t)n);
	}
}

void enav_promtext_sample_u64(struct enav_promtext *p, const char *name, const char *const *labels,
			      size_t n_pairs, uint64_t value)
{
	if (p->sink) {
		/* What the text's digits parse back to. */
		p->sink->sample(p->sink_ctx, name, labels, n_pairs, (double)value);
		return;
	}
	put_s(p, name);
	put_labels(p, labels, n_pairs);
	char tmp[ENAV_U64_TEXT_MAX + 2];
	tmp[0] = ' ';
	size_t n = 1 + enav_fmt_u64(tmp + 1, value);
	tmp[n++] = '\n';
	put_n(p, tmp, n);
}
