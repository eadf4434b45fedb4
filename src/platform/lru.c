/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The symbolizer's exact-capacity LRU (processes by pid, symbol tables by
 * file key): hash chains plus a recency list, nodes embedded in the
 * entries.  Why not platform/'s helpers: bcache.c is 8-way set-associative
 * (an entry may be evicted before the cache is full, and its capacity is
 * rounded up to 8), which would change the caps max_processes and
 * max_elf_files promise and the tests count on; u64map.c keeps no recency.
 * Issue 37 wants one LRU in platform/: this one is the candidate.
 */
#include "features/profiling/symbolize_state.h"

#include <errno.h>
#include <stdlib.h>

int enav_sym_lru_init(struct lru *l, uint32_t cap, void (*free_fn)(struct lru_node *))
{
	uint32_t nb = 16;

	while (nb < cap && nb < (1u << 30))
		nb <<= 1;
	*l = (struct lru){.cap = cap, .mask = nb - 1, .free_fn = free_fn};
	l->head.prev = l->head.next = &l->head;
	l->buckets = calloc(nb, sizeof(*l->buckets));
	return l->buckets ? 0 : -ENOMEM;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static struct lru_node **lru_bucket(struct lru *l, uint64_t key)
{
	return &l->buckets[mix64(key) & l->mask];
}

struct lru_node *enav_sym_lru_find(struct lru *l, uint64_t key)
{
	for (struct lru_node *n = *lru_bucket(l, key); n; n = n->hnext)
		if (n->key == key)
			return n;
	return NULL;
}

static void list_unlink(struct lru_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
}

static void list_front(struct lru *l, struct lru_node *n)
{
	n->next = l->head.next;
	n->prev = &l->head;
	l->head.next->prev = n;
	l->head.next = n;
}

void enav_sym_lru_touch(struct lru *l, struct lru_node *n)
{
	list_unlink(n);
	list_front(l, n);
}

/* Unlink and free. */
void enav_sym_lru_drop(struct lru *l, struct lru_node *n)
{
	for (struct lru_node **pp = lru_bucket(l, n->key); *pp; pp = &(*pp)->hnext)
		if (*pp == n) {
			*pp = n->hnext;
			break;
		}
	list_unlink(n);
	l->size--;
	l->free_fn(n);
}

/* Insert n (key not present), evicting the least recently used when full. */
void enav_sym_lru_insert(struct lru *l, struct lru_node *n)
{
	if (l->size >= l->cap && l->head.prev != &l->head) {
		enav_sym_lru_drop(l, l->head.prev);
		l->evictions++;
	}
	struct lru_node **b = lru_bucket(l, n->key);
	n->hnext = *b;
	*b = n;
	list_front(l, n);
	l->size++;
}

void enav_sym_lru_destroy(struct lru *l)
{
	if (!l->buckets)
		return;
	while (l->head.next != &l->head)
		enav_sym_lru_drop(l, l->head.next);
	free(l->buckets);
	l->buckets = NULL;
}
