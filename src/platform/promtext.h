/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Prometheus text exposition (format 0.0.4) into a bounded buffer.  Modules
 * describe a family once, then add samples; label values are escaped.
 */
#ifndef ENAV_PLATFORM_PROMTEXT_H
#define ENAV_PLATFORM_PROMTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct enav_promtext {
	char *buf;
	size_t cap;
	size_t len;
	bool overflow;
};

void enav_promtext_init(struct enav_promtext *p, char *buf, size_t cap);
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
