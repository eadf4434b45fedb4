/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which signals the NDJSON exporter writes: one token bucket per signal kind
 * (ADR 0015).  A bucket refills at its kind's rate and holds at most one
 * second of it, and starts full: a quiet kind writes every line at once, a
 * busy one at most its rate.  What a bucket refuses is counted per kind.
 *
 * Admission is called from the capture thread only (sinks' submit); the
 * refusal counters may be read from any thread.
 */
#ifndef ENAV_EXPORTERS_NDJSON_NDJSON_LIMIT_H
#define ENAV_EXPORTERS_NDJSON_NDJSON_LIMIT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/signal.h"

/* The schema's upper bound on a rate: keeps the bucket arithmetic in 64 bits. */
#define ENAV_NDJSON_LIMIT_MAX_PER_SECOND 1000000u

struct enav_ndjson_bucket {
	uint32_t per_second; /* 0: no limit */
	/* In line-nanoseconds: a line costs 1e9, each nanosecond adds per_second. */
	uint64_t credit;
	uint64_t last_ns;
	_Atomic uint64_t refused;
};

/* Index: the signal kind.  Index 0 (no kind) takes any out-of-range kind. */
struct enav_ndjson_limit {
	struct enav_ndjson_bucket kind[ENAV_SIGNAL__COUNT];
};

/* Spans get spans_per_second, every other kind its own other_per_second;
 * 0 is no limit.  now_ns: a monotonic clock, the one admit is given. */
void enav_ndjson_limit_init(struct enav_ndjson_limit *l, uint32_t spans_per_second,
			    uint32_t other_per_second, uint64_t now_ns);
/* true: write it; false: refused and counted. */
bool enav_ndjson_limit_admit(struct enav_ndjson_limit *l, enum enav_signal_kind kind,
			     uint64_t now_ns);
uint32_t enav_ndjson_limit_rate(const struct enav_ndjson_limit *l, enum enav_signal_kind kind);
uint64_t enav_ndjson_limit_refused(const struct enav_ndjson_limit *l, enum enav_signal_kind kind);
uint64_t enav_ndjson_limit_refused_total(const struct enav_ndjson_limit *l);
/* One line for the start-up log: what is written and where refusals are counted. */
void enav_ndjson_limit_describe(const struct enav_ndjson_limit *l, char *out, size_t cap);

#endif
