/* SPDX-License-Identifier: Apache-2.0 */
#include "exporters/ndjson/ndjson_limit.h"

#include <stdio.h>

#define NS_PER_S 1000000000ull

/* A kind outside the table shares slot 0, which no kind uses. */
static unsigned slot(enum enav_signal_kind kind)
{
	return (unsigned)kind < ENAV_SIGNAL__COUNT ? (unsigned)kind : 0;
}

void enav_ndjson_limit_init(struct enav_ndjson_limit *l, uint32_t spans_per_second,
			    uint32_t other_per_second, uint64_t now_ns)
{
	for (unsigned k = 0; k < ENAV_SIGNAL__COUNT; k++) {
		struct enav_ndjson_bucket *b = &l->kind[k];
		uint32_t rate = k == ENAV_SIGNAL_SPAN ? spans_per_second : other_per_second;
		if (rate > ENAV_NDJSON_LIMIT_MAX_PER_SECOND)
			rate = ENAV_NDJSON_LIMIT_MAX_PER_SECOND;
		b->per_second = rate;
		b->credit = (uint64_t)rate * NS_PER_S; /* full: the first second flows */
		b->last_ns = now_ns;
		atomic_store(&b->refused, 0);
	}
}

bool enav_ndjson_limit_admit(struct enav_ndjson_limit *l, enum enav_signal_kind kind,
			     uint64_t now_ns)
{
	struct enav_ndjson_bucket *b = &l->kind[slot(kind)];
	if (b->per_second == 0)
		return true;
	uint64_t full = (uint64_t)b->per_second * NS_PER_S;
	if (now_ns > b->last_ns) {
		/* At most 1e9 ns times 1e6 lines/s plus a full bucket: fits 64 bits. */
		uint64_t dt = now_ns - b->last_ns;
		uint64_t credit = dt >= NS_PER_S ? full : b->credit + dt * b->per_second;
		b->credit = credit < full ? credit : full;
		b->last_ns = now_ns;
	}
	if (b->credit >= NS_PER_S) {
		b->credit -= NS_PER_S;
		return true;
	}
	atomic_fetch_add_explicit(&b->refused, 1, memory_order_relaxed);
	return false;
}

uint32_t enav_ndjson_limit_rate(const struct enav_ndjson_limit *l, enum enav_signal_kind kind)
{
	return l->kind[slot(kind)].per_second;
}

uint64_t enav_ndjson_limit_refused(const struct enav_ndjson_limit *l, enum enav_signal_kind kind)
{
	return atomic_load_explicit(&l->kind[slot(kind)].refused, memory_order_relaxed);
}

uint64_t enav_ndjson_limit_refused_total(const struct enav_ndjson_limit *l)
{
	uint64_t sum = 0;
	for (unsigned k = 0; k < ENAV_SIGNAL__COUNT; k++)
		sum += atomic_load_explicit(&l->kind[k].refused, memory_order_relaxed);
	return sum;
}

void enav_ndjson_limit_describe(const struct enav_ndjson_limit *l, char *out, size_t cap)
{
	char spans[64], others[80];
	uint32_t span_rate = enav_ndjson_limit_rate(l, ENAV_SIGNAL_SPAN);
	uint32_t other_rate = enav_ndjson_limit_rate(l, ENAV_SIGNAL_PROCESS_EXEC);
	if (span_rate)
		snprintf(spans, sizeof(spans), "at most %u span lines per second", span_rate);
	else
		snprintf(spans, sizeof(spans), "every span line");
	if (other_rate)
		snprintf(others, sizeof(others), "at most %u lines per second of each other kind",
			 other_rate);
	else
		snprintf(others, sizeof(others), "every line of the other kinds");
	snprintf(out, cap, "%s and %s%s (exporters.ndjson.rate_limit, 0 = no limit)", spans, others,
		 span_rate || other_rate ? "; the rest dropped, counted in "
					   "enav_ndjson_rate_limited_total{kind}"
					 : "");
}
