/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/u64map.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (uint32_t)x;
}

int enav_u64map_init(struct enav_u64map *m, uint32_t max_entries)
{
	*m = (struct enav_u64map){0};
	if (max_entries == 0 || max_entries > (1u << 29))
		return -EINVAL;
	uint32_t slots = 2;
	while (slots < 2 * max_entries)
		slots <<= 1;
	m->slots = calloc(slots, sizeof(*m->slots));
	if (!m->slots)
		return -ENOMEM;
	m->mask = slots - 1;
	m->max_entries = max_entries;
	return 0;
}

void enav_u64map_destroy(struct enav_u64map *m)
{
	free(m->slots);
	m->slots = NULL;
}

bool enav_u64map_get(const struct enav_u64map *m, uint64_t key, uint64_t *value)
{
	for (uint32_t i = hash(key) & m->mask;; i = (i + 1) & m->mask) {
		if (!m->slots[i].used)
			return false;
		if (m->slots[i].key == key) {
			if (value)
				*value = m->slots[i].value;
			return true;
		}
	}
}

int enav_u64map_put(struct enav_u64map *m, uint64_t key, uint64_t value)
{
	uint32_t i = hash(key) & m->mask;
	for (; m->slots[i].used; i = (i + 1) & m->mask) {
		if (m->slots[i].key == key) {
			m->slots[i].value = value;
			return 0;
		}
	}
	/* Load factor stays <= 1/2, so probing always finds an empty slot. */
	if (m->size == m->max_entries)
		return -ENOSPC;
	m->slots[i] = (struct enav_u64map_slot){key, value, true};
	m->size++;
	return 0;
}

bool enav_u64map_del(struct enav_u64map *m, uint64_t key)
{
	uint32_t i = hash(key) & m->mask;
	for (;; i = (i + 1) & m->mask) {
		if (!m->slots[i].used)
			return false;
		if (m->slots[i].key == key)
			break;
	}
	/* Backward shift: pull later members of the probe run into the hole. */
	uint32_t hole = i;
	for (uint32_t j = (i + 1) & m->mask; m->slots[j].used; j = (j + 1) & m->mask) {
		uint32_t home = hash(m->slots[j].key) & m->mask;
		/* Move j into hole unless its home lies cyclically in (hole, j]. */
		bool stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
		if (!stays) {
			m->slots[hole] = m->slots[j];
			hole = j;
		}
	}
	m->slots[hole].used = false;
	m->size--;
	return true;
}

void enav_u64map_clear(struct enav_u64map *m)
{
	memset(m->slots, 0, ((size_t)m->mask + 1) * sizeof(*m->slots));
	m->size = 0;
}
