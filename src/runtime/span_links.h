/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The profile-to-trace link: which span the agent emitted for the request a
 * thread was serving when a profile sample was taken.
 *
 * The kernel records, per thread, the request it is serving as (socket,
 * first TCP sequence number of the request).  The L7 tracker knows the same
 * pair for every span it emits and puts each linked span here; the profile
 * drain looks the pair of a sample up and names the sample with the span's
 * trace and span ids.
 *
 * A bounded cache, not a map: the memory is allocated once, sized by the
 * configured cap, and a full set forgets its oldest entry.  A sample whose
 * span was forgotten simply goes unnamed.  Puts come from the capture thread
 * and gets from the profiler thread and HTTP handlers, so every call takes
 * one mutex, held only for a probe of one 4-way set.
 */
#ifndef ENAV_RUNTIME_SPAN_LINKS_H
#define ENAV_RUNTIME_SPAN_LINKS_H

#include <stdbool.h>
#include <stdint.h>

#define ENAV_SPAN_LINKS_MAX (1u << 22)

struct enav_span_link_id {
	uint8_t trace_id[16];
	uint8_t span_id[8];
};

struct enav_span_links; /* opaque */

/* max_spans: the configured cap (1..ENAV_SPAN_LINKS_MAX; a larger one is
 * clamped to it); the table holds at least that many, rounded up to a power
 * of two of 4-way sets.  NULL on allocation failure or a cap of 0. */
struct enav_span_links *enav_span_links_new(uint32_t max_spans);
void enav_span_links_free(struct enav_span_links *l); /* NULL is a no-op */

/* Remember that the request starting at TCP sequence seq on socket sock_id
 * (a kernel pointer value, never 0: a put of 0 is ignored, not counted) was
 * span (trace_id, span_id).  A full set replaces its oldest entry (counted as
 * replaced).  Putting the same (sock_id, seq) again overwrites it and makes
 * it the newest (not counted as replaced). */
void enav_span_links_put(struct enav_span_links *l, uint64_t sock_id, uint32_t seq,
			 const uint8_t trace_id[16], const uint8_t span_id[8]);

/* Look up; true and *out filled on a hit.  Counts hits and misses (a
 * sock_id of 0 is a miss). */
bool enav_span_links_get(struct enav_span_links *l, uint64_t sock_id, uint32_t seq,
			 struct enav_span_link_id *out);

struct enav_span_links_stats {
	uint64_t puts, replaced, hits, misses;
	uint32_t capacity; /* entries the table holds */
	uint32_t used;	   /* entries in use (never decreases: nothing is removed) */
};

/* A consistent snapshot: taken under the lock. */
void enav_span_links_stats(struct enav_span_links *l, struct enav_span_links_stats *out);

#endif
