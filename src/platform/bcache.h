/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bounded cache keyed by a 64-bit id: a fixed table, 8-way set associative,
 * least-recently-used within a set.  Capacity never changes after init, so
 * memory is bounded by construction; every eviction is counted.
 */
#ifndef ENAV_PLATFORM_BCACHE_H
#define ENAV_PLATFORM_BCACHE_H

#include <stdbool.h>
#include <stdint.h>

#define ENAV_BCACHE_WAYS 8

typedef void (*enav_bcache_free_fn)(void *value);

struct enav_bcache_slot {
	uint64_t key;
	uint64_t last_use;
	void *value; /* NULL = empty */
};

struct enav_bcache {
	struct enav_bcache_slot *slots;
	uint32_t n_sets;
	uint32_t capacity; /* n_sets * ENAV_BCACHE_WAYS */
	uint64_t tick;
	enav_bcache_free_fn free_fn;
	uint64_t hits, misses, inserts, evictions;
	uint32_t size;
};

/* capacity is rounded up to a multiple of ENAV_BCACHE_WAYS. */
int enav_bcache_init(struct enav_bcache *c, uint32_t capacity, enav_bcache_free_fn free_fn);
void enav_bcache_destroy(struct enav_bcache *c);
void *enav_bcache_get(struct enav_bcache *c, uint64_t key);
/* Takes ownership of value; replaces an existing entry for key. */
void enav_bcache_put(struct enav_bcache *c, uint64_t key, void *value);
void enav_bcache_remove(struct enav_bcache *c, uint64_t key);

#endif
