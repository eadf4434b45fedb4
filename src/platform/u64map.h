/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Fixed-capacity map from a 64-bit key to a 64-bit value (open addressing,
 * linear probing, backward-shift deletion).  It never grows: put fails when
 * the configured number of entries is reached, and the caller counts that.
 */
#ifndef ENAV_PLATFORM_U64MAP_H
#define ENAV_PLATFORM_U64MAP_H

#include <stdbool.h>
#include <stdint.h>

struct enav_u64map_slot {
	uint64_t key;
	uint64_t value;
	bool used;
};

struct enav_u64map {
	struct enav_u64map_slot *slots;
	uint32_t mask; /* slots - 1; slots is a power of two >= 2 * max_entries */
	uint32_t max_entries;
	uint32_t size;
};

int enav_u64map_init(struct enav_u64map *m, uint32_t max_entries);
void enav_u64map_destroy(struct enav_u64map *m);
bool enav_u64map_get(const struct enav_u64map *m, uint64_t key, uint64_t *value);
/* Insert or overwrite; -ENOSPC when a new key would exceed max_entries. */
int enav_u64map_put(struct enav_u64map *m, uint64_t key, uint64_t value);
bool enav_u64map_del(struct enav_u64map *m, uint64_t key);
/* Remove every entry. */
void enav_u64map_clear(struct enav_u64map *m);

#endif
