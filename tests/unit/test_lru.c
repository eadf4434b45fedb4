/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the exact-capacity LRU (src/platform/lru.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "platform/lru.h"

/* An entry with the node embedded first, as the symbolizer's are. */
struct entry {
	struct enav_lru_node node;
	unsigned *frees;
};

static void entry_free(struct enav_lru_node *n)
{
	struct entry *e = (struct entry *)n;

	(*e->frees)++;
	free(e);
}

static struct entry *entry_new(uint64_t key, unsigned *frees)
{
	struct entry *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->node.key = key;
	e->frees = frees;
	return e;
}

/* The capacity holds exactly (no rounding, no early eviction), and the
 * least recently used goes first, where a touch counts as a use. */
static void test_exact_capacity_and_order(void **state)
{
	struct enav_lru l;
	unsigned frees = 0;

	(void)state;
	assert_int_equal(enav_lru_init(&l, 3, entry_free), 0);
	assert_null(enav_lru_oldest(&l));
	/* Keys that share low bits, as sequential pids do. */
	for (uint64_t k = 1; k <= 3; k++)
		enav_lru_insert(&l, &entry_new(k << 32, &frees)->node);
	assert_int_equal(l.size, 3);
	assert_int_equal(l.evictions, 0);
	enav_lru_touch(&l, enav_lru_find(&l, 1ull << 32)); /* 2 is now the oldest */
	assert_int_equal(enav_lru_oldest(&l)->key, 2ull << 32);
	enav_lru_insert(&l, &entry_new(4ull << 32, &frees)->node);
	assert_int_equal(l.size, 3);
	assert_int_equal(l.evictions, 1);
	assert_int_equal(frees, 1);
	assert_null(enav_lru_find(&l, 2ull << 32));
	assert_non_null(enav_lru_find(&l, 1ull << 32));
	assert_non_null(enav_lru_find(&l, 3ull << 32));
	assert_non_null(enav_lru_find(&l, 4ull << 32));
	/* A drop frees and is not an eviction. */
	enav_lru_drop(&l, enav_lru_find(&l, 3ull << 32));
	assert_int_equal(l.size, 2);
	assert_int_equal(l.evictions, 1);
	assert_int_equal(frees, 2);
	enav_lru_destroy(&l);
	assert_int_equal(frees, 4);
}

/* Many more keys than buckets: every key stays findable until evicted,
 * and exactly cap remain. */
static void test_many_keys(void **state)
{
	struct enav_lru l;
	unsigned frees = 0;
	const uint32_t cap = 100;

	(void)state;
	assert_int_equal(enav_lru_init(&l, cap, entry_free), 0);
	for (uint64_t k = 0; k < 1000; k++)
		enav_lru_insert(&l, &entry_new(k, &frees)->node);
	assert_int_equal(l.size, cap);
	assert_int_equal(l.evictions, 1000 - cap);
	for (uint64_t k = 0; k < 1000; k++)
		if ((k >= 1000 - cap) != (enav_lru_find(&l, k) != NULL))
			fail_msg("key %llu: %s", (unsigned long long)k,
				 k >= 1000 - cap ? "lost" : "kept past its eviction");
	enav_lru_destroy(&l);
	assert_int_equal(frees, 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_exact_capacity_and_order),
	    cmocka_unit_test(test_many_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
