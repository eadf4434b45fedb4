/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/promtext.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void enav_promtext_init(struct enav_promtext *p, char *buf, size_t cap)
{
	p->buf = buf;
	p->cap = cap;
	p->len = 0;
	p->overflow = false;
	if (cap)
		buf[0] = '\0';
}

static void put(struct enav_promtext *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void put(struct enav_promtext *p, const char *fmt, ...)
{
	if (p->overflow || p->len >= p->cap) {
		p->overflow = true;
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(p->buf + p->len, p->cap - p->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= p->cap - p->len) {
		p->overflow = true;
		if (p->len < p->cap)
			p->buf[p->len] = '\0';
		return;
	}
	p->len += (size_t)n;
}

/* Label values: backslash, double quote and newline are the escapes 0.0.4 defines. */
static void put_label_value(struct enav_promtext *p, const char *v)
{
	for (; *v && !p->overflow; v++) {
		switch (*v) {
		case '\\':
			put(p, "\\\\");
			break;
		case '"':
			put(p, "\\\"");
			break;
		case '\n':
			put(p, "\\n");
			break;
		default:
			put(p, "%c", *v);
		}
	}
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
	if (p->overflow || len >= p->cap - p->len) {
		p->overflow = true;
		return;
	}
	memcpy(p->buf + p->len, text, len);
	p->len += len;
	p->buf[p->len] = '\0';
}

void enav_promtext_family(struct enav_promtext *p, const char *name, const char *type,
			  const char *help)
{
	/* HELP text escapes backslash and newline (quotes are literal there). */
	put(p, "# HELP %s ", name);
	for (; *help && !p->overflow; help++) {
		if (*help == '\\')
			put(p, "\\\\");
		else if (*help == '\n')
			put(p, "\\n");
		else
			put(p, "%c", *help);
	}
	put(p, "\n# TYPE %s %s\n", name, type);
}

static void put_labels(struct enav_promtext *p, const char *const *labels, size_t n_pairs)
{
	if (n_pairs == 0)
		return;
	put(p, "{");
	for (size_t i = 0; i < n_pairs; i++) {
		put(p, "%s%s=\"", i ? "," : "", labels[2 * i]);
		put_label_value(p, labels[2 * i + 1]);
		put(p, "\"");
	}
	put(p, "}");
}

void enav_promtext_sample(struct enav_promtext *p, const char *name, const char *const *labels,
			  size_t n_pairs, double value)
{
	put(p, "%s", name);
	put_labels(p, labels, n_pairs);
	if (isnan(value))
		put(p, " NaN\n");
	else if (isinf(value))
		put(p, " %s\n", value > 0 ? "+Inf" : "-Inf");
	else
		put(p, " %.17g\n", value);
}

void enav_promtext_sample_u64(struct enav_promtext *p, const char *name, const char *const *labels,
			      size_t n_pairs, uint64_t value)
{
	put(p, "%s", name);
	put_labels(p, labels, n_pairs);
	put(p, " %" PRIu64 "\n", value);
}
