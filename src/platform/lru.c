/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/lru.h"

#include <errno.h>
#include <stdlib.h>

#include "platform/hash.h"

int enav_lru_init(struct enav_lru *l, uint32_t cap, void (*free_fn)(struct enav_lru_node *))
{
	uint32_t nb = 16;

	while (nb < cap && nb < (1u << 30))
		nb <<= 1;
	*l = (struct enav_lru){.cap = cap, .mask = nb - 1, .free_fn = free_fn};
	l->head.prev = l->head.next = &l->head;
	l->buckets = calloc(nb, sizeof(*l->buckets));
	return l->buckets ? 0 : -ENOMEM;
}

static struct enav_lru_node **lru_bucket(struct enav_lru *l, uint64_t key)
{
	return &l->buckets[enav_hash_u64(key) & l->mask];
}

struct enav_lru_node *enav_lru_find(struct enav_lru *l, uint64_t key)
{
	for (struct enav_lru_node *n = *lru_bucket(l, key); n; n = n->hnext)
		if (n->key == key)
			return n;
	return NULL;
}

static void list_unlink(struct enav_lru_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
}

static void list_front(struct enav_lru *l, struct enav_lru_node *n)
{
	n->next = l->head.next;
	n->prev = &l->head;
	l->head.next->prev = n;
	l->head.next = n;
}

void enav_lru_touch(struct enav_lru *l, struct enav_lru_node *n)
{
	list_unlink(n);
	list_front(l, n);
}

/* Unlink and free. */
void enav_lru_drop(struct enav_lru *l, struct enav_lru_node *n)
{
	for (struct enav_lru_node **pp = lru_bucket(l, n->key); *pp; pp = &(*pp)->hnext)
		if (*pp == n) {
			*pp = n->hnext;
			break;
		}
	list_unlink(n);
	l->size--;
	l->free_fn(n);
}

/* Insert n (key not present), evicting the least recently used when full. */
void enav_lru_insert(struct enav_lru *l, struct enav_lru_node *n)
{
	if (l->size >= l->cap && l->head.prev != &l->head) {
		enav_lru_drop(l, l->head.prev);
		l->evictions++;
	}
	struct enav_lru_node **b = lru_bucket(l, n->key);
	n->hnext = *b;
	*b = n;
	list_front(l, n);
	l->size++;
}

void enav_lru_destroy(struct enav_lru *l)
{
	if (!l->buckets)
		return;
	while (l->head.next != &l->head)
		enav_lru_drop(l, l->head.next);
	free(l->buckets);
	l->buckets = NULL;
}
