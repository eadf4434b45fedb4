/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the fixed-capacity u64 -> u64 map (src/platform/u64map.c):
 * init bounds, put / get / overwrite, -ENOSPC exactly at max_entries, and
 * backward-shift deletion under heavy collisions, checked op by op against a
 * reference array over 200k randomized operations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "platform/u64map.h"

/*
 * A replica of the map's hash, used only to pick keys whose home slots
 * collide.  test_hash_replica checks it still agrees with the map; if the
 * map's hash changes, update this copy.
 */
static uint32_t replica_hash(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return (uint32_t)x;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure replays. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static struct enav_u64map map; /* destroyed by the teardown, even after a failure */

static int teardown(void **state)
{
	enav_u64map_destroy(&map);
	return 0;
}

/* Every used slot is reachable from its home without crossing an empty slot. */
static void check_probe_invariant(const struct enav_u64map *m)
{
	uint32_t used = 0;

	for (uint32_t i = 0; i <= m->mask; i++) {
		if (!m->slots[i].used)
			continue;
		used++;
		for (uint32_t j = replica_hash(m->slots[i].key) & m->mask; j != i;
		     j = (j + 1) & m->mask)
			if (!m->slots[j].used)
				fail_msg("slot %u (key %llu) unreachable: hole at %u", i,
					 (unsigned long long)m->slots[i].key, j);
	}
	assert_int_equal(used, m->size);
}

static void test_init_bounds(void **state)
{
	assert_int_equal(enav_u64map_init(&map, 0), -EINVAL);
	assert_null(map.slots);
	assert_int_equal(map.size, 0);
	assert_int_equal(enav_u64map_init(&map, (1u << 29) + 1), -EINVAL);
	assert_null(map.slots);
	assert_int_equal(enav_u64map_init(&map, UINT32_MAX), -EINVAL);
	assert_null(map.slots);
	enav_u64map_destroy(&map); /* harmless after a failed init */

	/* Slots: the smallest power of two >= 2 * max_entries, at least 2. */
	static const struct {
		uint32_t max, slots;
	} sizes[] = {{1, 2}, {2, 4}, {3, 8}, {4, 8}, {5, 16}, {1000, 2048}, {1024, 2048}};
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		assert_int_equal(enav_u64map_init(&map, sizes[i].max), 0);
		assert_non_null(map.slots);
		assert_int_equal(map.mask + 1, sizes[i].slots);
		assert_int_equal(map.max_entries, sizes[i].max);
		assert_int_equal(map.size, 0);
		enav_u64map_destroy(&map);
		assert_null(map.slots);
	}
}

static void test_hash_replica(void **state)
{
	/* A lone key sits in its home slot: the replica predicts it. */
	assert_int_equal(enav_u64map_init(&map, 512), 0);
	for (uint64_t k = 0; k < 200; k++) {
		uint64_t key = k * 0x100000001b3ull + (k << 40);

		assert_int_equal(enav_u64map_put(&map, key, k), 0);
		uint32_t home = replica_hash(key) & map.mask;
		if (!map.slots[home].used || map.slots[home].key != key)
			fail_msg("the test's hash replica no longer matches src/platform/u64map.c");
		assert_true(enav_u64map_del(&map, key));
	}
}

static void test_put_get_overwrite(void **state)
{
	uint64_t v = 0;

	assert_int_equal(enav_u64map_init(&map, 16), 0);
	assert_false(enav_u64map_get(&map, 42, &v));
	assert_int_equal(enav_u64map_put(&map, 42, 4200), 0);
	assert_int_equal(map.size, 1);
	assert_true(enav_u64map_get(&map, 42, &v));
	assert_int_equal(v, 4200);
	/* Overwrite keeps the size. */
	assert_int_equal(enav_u64map_put(&map, 42, 4201), 0);
	assert_int_equal(map.size, 1);
	assert_true(enav_u64map_get(&map, 42, &v));
	assert_int_equal(v, 4201);
	/* A NULL value pointer only asks for presence. */
	assert_true(enav_u64map_get(&map, 42, NULL));
	/* A miss leaves *value alone. */
	v = 777;
	assert_false(enav_u64map_get(&map, 43, &v));
	assert_int_equal(v, 777);
	/* Extreme keys and values. */
	assert_int_equal(enav_u64map_put(&map, 0, UINT64_MAX), 0);
	assert_int_equal(enav_u64map_put(&map, UINT64_MAX, 0), 0);
	assert_int_equal(map.size, 3);
	assert_true(enav_u64map_get(&map, 0, &v));
	assert_int_equal(v, UINT64_MAX);
	assert_true(enav_u64map_get(&map, UINT64_MAX, &v));
	assert_int_equal(v, 0);
	/* Delete. */
	assert_true(enav_u64map_del(&map, 0));
	assert_false(enav_u64map_del(&map, 0));
	assert_false(enav_u64map_get(&map, 0, NULL));
	assert_false(enav_u64map_del(&map, 12345));
	assert_int_equal(map.size, 2);
	assert_true(enav_u64map_get(&map, 42, NULL));
	assert_true(enav_u64map_get(&map, UINT64_MAX, NULL));
	check_probe_invariant(&map);
}

static void test_enospc_at_max(void **state)
{
	const uint32_t max = 100;
	uint64_t v;

	assert_int_equal(enav_u64map_init(&map, max), 0);
	for (uint32_t i = 0; i < max; i++) {
		assert_int_equal(enav_u64map_put(&map, 1000 + i, i), 0);
		assert_int_equal(map.size, i + 1);
	}
	/* Full: a new key is refused and not stored; the size does not move. */
	assert_int_equal(enav_u64map_put(&map, 5000, 1), -ENOSPC);
	assert_int_equal(enav_u64map_put(&map, 5001, 1), -ENOSPC);
	assert_int_equal(map.size, max);
	assert_false(enav_u64map_get(&map, 5000, NULL));
	/* Overwriting an existing key still works when full. */
	assert_int_equal(enav_u64map_put(&map, 1000, 99999), 0);
	assert_true(enav_u64map_get(&map, 1000, &v));
	assert_int_equal(v, 99999);
	assert_int_equal(map.size, max);
	/* One out, one in; then full again. */
	assert_true(enav_u64map_del(&map, 1050));
	assert_int_equal(map.size, max - 1);
	assert_int_equal(enav_u64map_put(&map, 5000, 7), 0);
	assert_int_equal(map.size, max);
	assert_int_equal(enav_u64map_put(&map, 1050, 7), -ENOSPC);
	for (uint32_t i = 0; i < max; i++)
		if (i != 50)
			assert_true(enav_u64map_get(&map, 1000 + i, NULL));
	check_probe_invariant(&map);

	/* max_entries = 1: the smallest map. */
	enav_u64map_destroy(&map);
	assert_int_equal(enav_u64map_init(&map, 1), 0);
	assert_int_equal(enav_u64map_put(&map, 9, 1), 0);
	assert_int_equal(enav_u64map_put(&map, 10, 1), -ENOSPC);
	assert_true(enav_u64map_del(&map, 9));
	assert_int_equal(enav_u64map_put(&map, 10, 2), 0);
	assert_true(enav_u64map_get(&map, 10, &v));
	assert_int_equal(v, 2);
}

/*
 * Randomized put / get / del against a reference over a pool of keys whose
 * home slots all fall in a few adjacent slots (wrapping past the end of the
 * table when wrap is set), so every probe run is long and deletions shift
 * entries across the wrap.
 */
#define POOL_MAX 1024

static void collision_storm(uint32_t max, uint32_t window, bool wrap, unsigned pool_n, unsigned ops,
			    unsigned sweep_every)
{
	static uint64_t keys[POOL_MAX], vals[POOL_MAX];
	static bool present[POOL_MAX];
	uint32_t count = 0;

	assert_true(pool_n <= POOL_MAX);
	memset(present, 0, sizeof(present));
	assert_int_equal(enav_u64map_init(&map, max), 0);
	uint32_t first = wrap ? map.mask + 1 - window / 2 : map.mask / 3;
	unsigned n = 0;
	for (uint64_t k = 0; n < pool_n; k++) {
		uint64_t key = k * 0x9e3779b97f4a7c15ull ^ (k >> 3);
		uint32_t off = ((replica_hash(key) & map.mask) - first) & map.mask;

		bool dup = false;

		for (unsigned j = 0; j < n && !dup; j++)
			dup = keys[j] == key;
		if (off < window && !dup)
			keys[n++] = key;
	}

	for (unsigned op = 0; op < ops; op++) {
		unsigned i = (unsigned)(rnd() % pool_n);
		uint64_t v = rnd();
		uint64_t got = 0;

		switch (rnd() % 8) {
		case 0:
		case 1:
		case 2: { /* put */
			int want = present[i] || count < max ? 0 : -ENOSPC;
			int rc = enav_u64map_put(&map, keys[i], v);
			if (rc != want)
				fail_msg("op %u: put -> %d, want %d", op, rc, want);
			if (rc == 0) {
				count += !present[i];
				present[i] = true;
				vals[i] = v;
			}
			break;
		}
		case 3:
		case 4:
		case 5: /* delete */
			if (enav_u64map_del(&map, keys[i]) != present[i])
				fail_msg("op %u: del of key %u -> %d", op, i, !present[i]);
			count -= present[i];
			present[i] = false;
			break;
		default: /* get */
			if (enav_u64map_get(&map, keys[i], &got) != present[i])
				fail_msg("op %u: get of key %u -> %d", op, i, !present[i]);
			if (present[i] && got != vals[i])
				fail_msg("op %u: get of key %u: wrong value", op, i);
			break;
		}
		if (map.size != count)
			fail_msg("op %u: size %u, want %u", op, map.size, count);
		/* Regularly, every key of the pool and the probe invariant. */
		if (op % sweep_every == 0 || op + 1 == ops) {
			for (unsigned k = 0; k < pool_n; k++) {
				bool hit = enav_u64map_get(&map, keys[k], &got);
				if (hit != present[k] || (hit && got != vals[k]))
					fail_msg("op %u: key %u lost or wrong", op, k);
			}
			check_probe_invariant(&map);
		}
	}
	enav_u64map_destroy(&map);
}

static void test_collisions_wrapping(void **state)
{
	/* 128 slots, 64 entries, 80 keys all homed in slots 126, 127, 0, 1. */
	collision_storm(64, 4, true, 80, 200000, 97);
}

static void test_collisions_single_home(void **state)
{
	/* Every key homed in one slot in the middle of the table. */
	collision_storm(32, 1, false, 40, 200000, 97);
}

static void test_collisions_many_clusters(void **state)
{
	/* 1024 slots, 512 entries, 700 keys over 48 homes spanning the wrap. */
	collision_storm(512, 48, true, 700, 200000, 1999);
}

static void test_fill_drain(void **state)
{
	/* Fill to max, drain in a scrambled order, refill: size and contents hold. */
	const uint32_t max = 1000;
	uint64_t v;

	assert_int_equal(enav_u64map_init(&map, max), 0);
	for (int round = 0; round < 3; round++) {
		for (uint32_t i = 0; i < max; i++)
			assert_int_equal(enav_u64map_put(&map, (uint64_t)i << 20, i + round), 0);
		assert_int_equal(map.size, max);
		assert_int_equal(enav_u64map_put(&map, UINT64_MAX, 0), -ENOSPC);
		check_probe_invariant(&map);
		for (uint32_t j = 0; j < max; j++) {
			uint32_t i = (j * 7919u) % max; /* 7919 is prime: a permutation */

			assert_true(enav_u64map_get(&map, (uint64_t)i << 20, &v));
			assert_int_equal(v, i + round);
			assert_true(enav_u64map_del(&map, (uint64_t)i << 20));
			assert_int_equal(map.size, max - j - 1);
		}
		for (uint32_t i = 0; i <= map.mask; i++)
			assert_false(map.slots[i].used);
	}
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_init_bounds, teardown),
	    cmocka_unit_test_teardown(test_hash_replica, teardown),
	    cmocka_unit_test_teardown(test_put_get_overwrite, teardown),
	    cmocka_unit_test_teardown(test_enospc_at_max, teardown),
	    cmocka_unit_test_teardown(test_collisions_wrapping, teardown),
	    cmocka_unit_test_teardown(test_collisions_single_home, teardown),
	    cmocka_unit_test_teardown(test_collisions_many_clusters, teardown),
	    cmocka_unit_test_teardown(test_fill_drain, teardown),
	};

	return cmocka_run_group_tests_name("u64map", tests, NULL, NULL);
}
