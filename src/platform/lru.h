/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Exact-capacity LRU keyed by a 64-bit id: hash chains plus a recency list,
 * with the node embedded in the caller's entry (no allocation of its own
 * past the bucket array).  It holds at most cap entries and evicts only
 * when full, the least recently used first; every eviction is counted.
 *
 * Beside platform/bcache.h: the bounded cache is a fixed 8-way
 * set-associative table (no allocation per entry, an entry may be evicted
 * before the whole cache is full, its capacity is rounded up to 8); this
 * one is for caps that must hold exactly (the symbolizer's max_processes
 * and max_elf_files) and for entries that are large and owned by the
 * caller anyway.  Not thread-safe: the caller locks.
 */
#ifndef ENAV_PLATFORM_LRU_H
#define ENAV_PLATFORM_LRU_H

#include <stddef.h>
#include <stdint.h>

struct enav_lru_node {
	uint64_t key;
	struct enav_lru_node *prev, *next; /* recency: head.next is the most recent */
	struct enav_lru_node *hnext;
};

struct enav_lru {
	struct enav_lru_node **buckets;
	uint32_t mask;
	uint32_t size, cap;
	struct enav_lru_node head;
	void (*free_fn)(struct enav_lru_node *n);
	uint64_t evictions;
};

/* 0 or -ENOMEM.  free_fn frees an entry when it is dropped or evicted. */
int enav_lru_init(struct enav_lru *l, uint32_t cap, void (*free_fn)(struct enav_lru_node *));
struct enav_lru_node *enav_lru_find(struct enav_lru *l, uint64_t key);
/* Makes n the most recent. */
void enav_lru_touch(struct enav_lru *l, struct enav_lru_node *n);
/* Unlink and free. */
void enav_lru_drop(struct enav_lru *l, struct enav_lru_node *n);
/* Insert n (key not present), evicting the least recently used when full. */
void enav_lru_insert(struct enav_lru *l, struct enav_lru_node *n);
/* The least recently used entry, NULL when empty. */
static inline struct enav_lru_node *enav_lru_oldest(struct enav_lru *l)
{
	return l->head.prev != &l->head ? l->head.prev : NULL;
}
void enav_lru_destroy(struct enav_lru *l);

#endif
