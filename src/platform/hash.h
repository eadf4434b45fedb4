/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The 64-bit key mixer the keyed containers share (the bounded cache, the
 * exact LRU, the pprof builder's indexes; u64map.c keeps its own, which
 * tests/unit/test_u64map.c replicates to craft collisions): pids, cgroup ids and
 * inode numbers are sequential, and a table indexed by their low bits
 * would pile them into neighbouring slots.
 */
#ifndef ENAV_PLATFORM_HASH_H
#define ENAV_PLATFORM_HASH_H

#include <stdint.h>

/* The splitmix64 finalizer: every input bit moves every output bit. */
static inline uint64_t enav_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

#endif
