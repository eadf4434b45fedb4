/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/bcache.h"

#include <errno.h>
#include <stdlib.h>

#include "platform/hash.h"

int enav_bcache_init(struct enav_bcache *c, uint32_t capacity, enav_bcache_free_fn free_fn)
{
	*c = (struct enav_bcache){0};
	if (capacity == 0)
		return -EINVAL;
	c->n_sets = (capacity + ENAV_BCACHE_WAYS - 1) / ENAV_BCACHE_WAYS;
	c->capacity = c->n_sets * ENAV_BCACHE_WAYS;
	c->slots = calloc(c->capacity, sizeof(*c->slots));
	if (!c->slots)
		return -ENOMEM;
	c->free_fn = free_fn;
	return 0;
}

void enav_bcache_destroy(struct enav_bcache *c)
{
	if (!c->slots)
		return;
	for (uint32_t i = 0; i < c->capacity; i++)
		if (c->slots[i].value && c->free_fn)
			c->free_fn(c->slots[i].value);
	free(c->slots);
	c->slots = NULL;
}

static struct enav_bcache_slot *set_of(struct enav_bcache *c, uint64_t key)
{
	return &c->slots[(enav_hash_u64(key) % c->n_sets) * ENAV_BCACHE_WAYS];
}

void *enav_bcache_get(struct enav_bcache *c, uint64_t key)
{
	struct enav_bcache_slot *set = set_of(c, key);
	for (int i = 0; i < ENAV_BCACHE_WAYS; i++) {
		if (set[i].value && set[i].key == key) {
			set[i].last_use = ++c->tick;
			c->hits++;
			return set[i].value;
		}
	}
	c->misses++;
	return NULL;
}

void enav_bcache_put(struct enav_bcache *c, uint64_t key, void *value)
{
	if (!value) { /* NULL marks an empty slot, so storing it means removing */
		enav_bcache_remove(c, key);
		return;
	}
	struct enav_bcache_slot *set = set_of(c, key);
	struct enav_bcache_slot *victim = NULL;
	for (int i = 0; i < ENAV_BCACHE_WAYS; i++) {
		if (set[i].value && set[i].key == key) {
			victim = &set[i];
			break;
		}
		if (!set[i].value) {
			if (!victim || victim->value)
				victim = &set[i];
		} else if (!victim || (victim->value && set[i].last_use < victim->last_use)) {
			victim = &set[i];
		}
	}
	if (victim->value) {
		if (victim->key != key)
			c->evictions++;
		c->size--;
		if (c->free_fn)
			c->free_fn(victim->value);
	}
	victim->key = key;
	victim->value = value;
	victim->last_use = ++c->tick;
	c->inserts++;
	c->size++;
}

void enav_bcache_remove(struct enav_bcache *c, uint64_t key)
{
	struct enav_bcache_slot *set = set_of(c, key);
	for (int i = 0; i < ENAV_BCACHE_WAYS; i++) {
		if (set[i].value && set[i].key == key) {
			if (c->free_fn)
				c->free_fn(set[i].value);
			set[i].value = NULL;
			c->size--;
			return;
		}
	}
}
