/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The profile-to-trace link cache (span_links.h): a set-associative table of
 * (socket, first TCP sequence) -> (trace id, span id), 4 ways per set,
 * allocated once.  A set-associative table rather than an LRU list: no
 * pointers to chase, no allocation on a put, and a probe touches one set
 * (a few cache lines) under the lock.
 */
#include "runtime/span_links.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "platform/hash.h"

#define WAYS 4

struct entry {
	uint64_t sock_id; /* 0: empty (a kernel socket pointer is never 0) */
	uint64_t stamp;	  /* insertion order: the lowest in a full set goes */
	uint32_t seq;
	uint8_t trace_id[16];
	uint8_t span_id[8];
};

struct enav_span_links {
	pthread_mutex_t lock;
	uint32_t set_mask; /* sets - 1, sets a power of two */
	uint32_t used;
	uint64_t next_stamp;
	/* Counters under the lock: it is taken on every call anyway, and
	 * stats then see one consistent moment. */
	uint64_t puts, replaced, hits, misses;
	struct entry entries[]; /* (set_mask + 1) * WAYS */
};

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

struct enav_span_links *enav_span_links_new(uint32_t max_spans)
{
	struct enav_span_links *l;
	uint32_t sets;

	if (max_spans == 0)
		return NULL;
	/* The cap bounds the memory (48 bytes an entry): a larger
	 * configuration gets the largest table, not an unbounded one. */
	if (max_spans > ENAV_SPAN_LINKS_MAX)
		max_spans = ENAV_SPAN_LINKS_MAX;
	sets = pow2_at_least((max_spans + WAYS - 1) / WAYS);
	l = calloc(1, sizeof(*l) + (size_t)sets * WAYS * sizeof(struct entry));
	if (!l)
		return NULL;
	if (pthread_mutex_init(&l->lock, NULL) != 0) {
		free(l);
		return NULL;
	}
	l->set_mask = sets - 1;
	l->next_stamp = 1;
	return l;
}

void enav_span_links_free(struct enav_span_links *l)
{
	if (!l)
		return;
	pthread_mutex_destroy(&l->lock);
	free(l);
}

/* Socket pointers share their alignment bits and their high bits, and one
 * connection's sequences differ only by request sizes: mix both fully
 * before taking the low bits. */
static struct entry *set_of(struct enav_span_links *l, uint64_t sock_id, uint32_t seq)
{
	uint64_t h = enav_hash_u64(enav_hash_u64(sock_id) ^ seq);

	return &l->entries[(size_t)(h & l->set_mask) * WAYS];
}

void enav_span_links_put(struct enav_span_links *l, uint64_t sock_id, uint32_t seq,
			 const uint8_t trace_id[16], const uint8_t span_id[8])
{
	struct entry *set, *e = NULL;

	/* 0 marks an empty entry: storing it would make a hole look full. */
	if (sock_id == 0)
		return;
	pthread_mutex_lock(&l->lock);
	set = set_of(l, sock_id, seq);
	l->puts++;
	/* The same key first, so a re-put never leaves a stale twin. */
	for (int i = 0; i < WAYS; i++) {
		if (set[i].sock_id == sock_id && set[i].seq == seq) {
			e = &set[i];
			break;
		}
	}
	if (!e) {
		for (int i = 0; i < WAYS; i++) {
			if (set[i].sock_id == 0) {
				e = &set[i];
				l->used++;
				break;
			}
		}
	}
	if (!e) {
		e = &set[0];
		for (int i = 1; i < WAYS; i++)
			if (set[i].stamp < e->stamp)
				e = &set[i];
		l->replaced++;
	}
	e->sock_id = sock_id;
	e->seq = seq;
	e->stamp = l->next_stamp++;
	memcpy(e->trace_id, trace_id, sizeof(e->trace_id));
	memcpy(e->span_id, span_id, sizeof(e->span_id));
	pthread_mutex_unlock(&l->lock);
}

bool enav_span_links_get(struct enav_span_links *l, uint64_t sock_id, uint32_t seq,
			 struct enav_span_link_id *out)
{
	bool hit = false;
	struct entry *set;

	pthread_mutex_lock(&l->lock);
	/* sock_id 0 would match an empty entry of seq 0. */
	if (sock_id != 0) {
		set = set_of(l, sock_id, seq);
		for (int i = 0; i < WAYS; i++) {
			if (set[i].sock_id == sock_id && set[i].seq == seq) {
				/* Copied under the lock: a concurrent put may
				 * reuse the entry the moment it is released. */
				memcpy(out->trace_id, set[i].trace_id, sizeof(out->trace_id));
				memcpy(out->span_id, set[i].span_id, sizeof(out->span_id));
				hit = true;
				break;
			}
		}
	}
	if (hit)
		l->hits++;
	else
		l->misses++;
	pthread_mutex_unlock(&l->lock);
	return hit;
}

void enav_span_links_stats(struct enav_span_links *l, struct enav_span_links_stats *out)
{
	pthread_mutex_lock(&l->lock);
	out->puts = l->puts;
	out->replaced = l->replaced;
	out->hits = l->hits;
	out->misses = l->misses;
	out->capacity = (l->set_mask + 1) * WAYS;
	out->used = l->used;
	pthread_mutex_unlock(&l->lock);
}
