/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Prometheus text exposition (format 0.0.4) into a bounded buffer.  Modules
 * describe a family once, then add samples; label values are escaped.
 *
 * Two modes.  A fixed buffer (enav_promtext_init) is cut at its end and
 * flags overflow.  A growable one (enav_promtext_init_growable) reallocates
 * up to a hard cap and never fails: a family that would pass the cap is
 * taken back whole (no torn family), the writer skips it and goes on with
 * the next, and families_dropped counts it.
 *
 * A third mode writes no text: enav_promtext_init_sink hands every family,
 * sample and raw block to a sink's functions as the module made them (the
 * OTLP exporter builds its metrics so, without rendering and re-parsing).
 */
#ifndef ENAV_PLATFORM_PROMTEXT_H
#define ENAV_PLATFORM_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where a sink-mode writer's calls go, with the sink's context first. */
struct enav_promtext_sink {
	void (*family)(void *ctx, const char *name, const char *type, const char *help);
	void (*sample)(void *ctx, const char *name, const char *const *labels, size_t n_pairs,
		       double value);
	/* A cached block of exposition text (whole families). */
	void (*raw)(void *ctx, const char *text, size_t len);
};

struct enav_promtext {
	/* Sink mode: every call goes here and nothing below is used. */
	const struct enav_promtext_sink *sink;
	void *sink_ctx;
	char *buf;
	size_t cap; /* bytes of buf (growable: allocated so far) */
	size_t len;
	bool overflow; /* fixed mode: the text was cut (a growable one never sets it) */
	/* Growable mode only. */
	bool growable;
	bool skipping;		   /* the current family did not fit: its samples are skipped */
	size_t hard_cap;	   /* buf never grows past this many bytes */
	size_t family_start;	   /* where the current family began */
	uint64_t families_dropped; /* families (or raw blocks) left out at the hard cap */
};

/* The chunk a growable buffer grows by (at least; it doubles while small). */
#define ENAV_PROMTEXT_CHUNK ((size_t)64 << 10)

void enav_promtext_init(struct enav_promtext *p, char *buf, size_t cap);
/* Growable from one chunk up to hard_cap bytes (text and its NUL).  -ENOMEM
 * when the first chunk cannot be had.  The caller owns p->buf after, and
 * frees it (enav_promtext_free), or hands it on. */
int enav_promtext_init_growable(struct enav_promtext *p, size_t hard_cap);
void enav_promtext_free(struct enav_promtext *p);
/* Sink mode: no text, no cap of its own (the sink bounds what it keeps). */
void enav_promtext_init_sink(struct enav_promtext *p, const struct enav_promtext_sink *sink,
			     void *ctx);
/* type: "counter", "gauge", "histogram", "untyped" */
void enav_promtext_family(struct enav_promtext *p, const char *name, const char *type,
			  const char *help);
/* labels: alternating name, value pairs, n_pairs of them (values escaped). */
void enav_promtext_sample(struct enav_promtext *p, const char *name, const char *const *labels,
			  size_t n_pairs, double value);
void enav_promtext_sample_u64(struct enav_promtext *p, const char *name, const char *const *labels,
			      size_t n_pairs, uint64_t value);

/* A family with one unlabelled sample: HELP/TYPE and the value in one call. */
void enav_promtext_single(struct enav_promtext *p, const char *name, const char *type,
			  const char *help, double value);
void enav_promtext_single_u64(struct enav_promtext *p, const char *name, const char *type,
			      const char *help, uint64_t value);

/* Append already-rendered exposition text (a cached block). */
void enav_promtext_raw(struct enav_promtext *p, const char *text, size_t len);

#endif
