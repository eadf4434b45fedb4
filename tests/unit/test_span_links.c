/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the profile-to-trace link cache (src/runtime/span_links.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "runtime/span_links.h"

/* Kernel socket pointers: aligned, sharing their high bits. */
#define SOCK(i) (0xffff888012345600ull + (uint64_t)(i)*0x800)

/* Ids derived from the key, so a hit can be checked to be the key's own. */
static void ids_for(uint64_t sock, uint32_t seq, uint32_t gen, uint8_t trace[16], uint8_t span[8])
{
	memcpy(trace, &sock, 8);
	memcpy(trace + 8, &seq, 4);
	memcpy(trace + 12, &gen, 4);
	memcpy(span, &seq, 4);
	memcpy(span + 4, &gen, 4);
}

static void put(struct enav_span_links *l, uint64_t sock, uint32_t seq, uint32_t gen)
{
	uint8_t trace[16], span[8];

	ids_for(sock, seq, gen, trace, span);
	enav_span_links_put(l, sock, seq, trace, span);
}

/* A hit whose ids are exactly those put for (sock, seq) in generation gen. */
static void assert_found(struct enav_span_links *l, uint64_t sock, uint32_t seq, uint32_t gen)
{
	struct enav_span_link_id got;
	uint8_t trace[16], span[8];

	ids_for(sock, seq, gen, trace, span);
	assert_true(enav_span_links_get(l, sock, seq, &got));
	assert_memory_equal(got.trace_id, trace, 16);
	assert_memory_equal(got.span_id, span, 8);
}

static void assert_missing(struct enav_span_links *l, uint64_t sock, uint32_t seq)
{
	struct enav_span_link_id got;

	assert_false(enav_span_links_get(l, sock, seq, &got));
}

static void test_put_get_exact_ids(void **state)
{
	struct enav_span_links *l = enav_span_links_new(64);
	const uint8_t trace[16] = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
				   0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36};
	const uint8_t span[8] = {0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7};
	struct enav_span_link_id got;

	(void)state;
	assert_non_null(l);
	enav_span_links_put(l, SOCK(1), 1000, trace, span);
	memset(&got, 0, sizeof(got));
	assert_true(enav_span_links_get(l, SOCK(1), 1000, &got));
	assert_memory_equal(got.trace_id, trace, 16);
	assert_memory_equal(got.span_id, span, 8);
	enav_span_links_free(l);
}

static void test_miss_other_seq_and_sock(void **state)
{
	struct enav_span_links *l = enav_span_links_new(64);

	(void)state;
	assert_non_null(l);
	put(l, SOCK(1), 1000, 0);
	assert_missing(l, SOCK(1), 1001);
	assert_missing(l, SOCK(1), 999);
	assert_missing(l, SOCK(2), 1000);
	assert_missing(l, SOCK(1) + 1, 1000);
	/* 0 is no socket: neither stored nor matched against empty entries. */
	assert_missing(l, 0, 0);
	put(l, 0, 5, 0);
	assert_missing(l, 0, 5);
	assert_found(l, SOCK(1), 1000, 0);
	enav_span_links_free(l);
}

static void test_overwrite_same_key(void **state)
{
	struct enav_span_links *l = enav_span_links_new(64);
	struct enav_span_links_stats st;

	(void)state;
	assert_non_null(l);
	put(l, SOCK(3), 7, 1);
	put(l, SOCK(3), 7, 2);
	assert_found(l, SOCK(3), 7, 2);
	enav_span_links_stats(l, &st);
	assert_int_equal(st.puts, 2);
	assert_int_equal(st.replaced, 0);
	assert_int_equal(st.used, 1);
	enav_span_links_free(l);
}

static void test_capacity_rounding(void **state)
{
	static const struct {
		uint32_t cap, want;
	} cases[] = {
	    {1, 4}, {4, 4}, {5, 8}, {9, 16}, {1000, 1024}, {1024, 1024}, {1025, 2048},
	};
	struct enav_span_links_stats st;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct enav_span_links *l = enav_span_links_new(cases[i].cap);

		assert_non_null(l);
		enav_span_links_stats(l, &st);
		assert_true(st.capacity >= cases[i].cap);
		assert_int_equal(st.capacity % 4, 0);
		/* A power of two of sets, so of entries too. */
		assert_int_equal(st.capacity & (st.capacity - 1), 0);
		assert_int_equal(st.capacity, cases[i].want);
		assert_int_equal(st.used, 0);
		enav_span_links_free(l);
	}
}

/* The top of the range holds it exactly; above it is clamped, not grown. */
static void test_capacity_clamped(void **state)
{
	struct enav_span_links *l = enav_span_links_new(UINT32_MAX);
	struct enav_span_links_stats st;

	(void)state;
	assert_non_null(l);
	enav_span_links_stats(l, &st);
	assert_int_equal(st.capacity, ENAV_SPAN_LINKS_MAX);
	put(l, SOCK(1), 1, 0);
	assert_found(l, SOCK(1), 1, 0);
	enav_span_links_free(l);
}

static void test_zero_cap_is_null(void **state)
{
	(void)state;
	assert_null(enav_span_links_new(0));
	enav_span_links_free(NULL);
}

/* A cap of 4 is one set: every key competes for the same 4 ways. */
static void test_full_set_replaces_oldest(void **state)
{
	struct enav_span_links *l = enav_span_links_new(4);
	struct enav_span_links_stats st;

	(void)state;
	assert_non_null(l);
	for (uint32_t i = 1; i <= 4; i++)
		put(l, SOCK(i), i, 0);
	enav_span_links_stats(l, &st);
	assert_int_equal(st.capacity, 4);
	assert_int_equal(st.used, 4);
	assert_int_equal(st.replaced, 0);
	put(l, SOCK(5), 5, 0);
	enav_span_links_stats(l, &st);
	assert_int_equal(st.replaced, 1);
	assert_int_equal(st.used, 4);
	assert_missing(l, SOCK(1), 1);
	for (uint32_t i = 2; i <= 5; i++)
		assert_found(l, SOCK(i), i, 0);
	/* A re-put makes its key the newest: the next to go is 3, not 2. */
	put(l, SOCK(2), 2, 9);
	put(l, SOCK(6), 6, 0);
	assert_missing(l, SOCK(3), 3);
	assert_found(l, SOCK(2), 2, 9);
	assert_found(l, SOCK(4), 4, 0);
	assert_found(l, SOCK(5), 5, 0);
	assert_found(l, SOCK(6), 6, 0);
	enav_span_links_stats(l, &st);
	assert_int_equal(st.puts, 7);
	assert_int_equal(st.replaced, 2);
	enav_span_links_free(l);
}

/* Many more keys than entries: bounded, and the newest is always there. */
static void test_many_puts_bounded(void **state)
{
	struct enav_span_links *l = enav_span_links_new(1024);
	struct enav_span_links_stats st;
	const uint32_t n = 100000;

	(void)state;
	assert_non_null(l);
	for (uint32_t i = 0; i < n; i++) {
		/* A few sockets, many requests each, as keep-alive traffic. */
		put(l, SOCK(i % 37), 1000u + i * 512u, 0);
	}
	enav_span_links_stats(l, &st);
	assert_int_equal(st.capacity, 1024);
	assert_true(st.used <= st.capacity);
	assert_int_equal(st.puts, n);
	/* Every key distinct: each put filled an empty entry or replaced one. */
	assert_int_equal(st.replaced, n - st.used);
	assert_found(l, SOCK((n - 1) % 37), 1000u + (n - 1) * 512u, 0);
	enav_span_links_free(l);
}

static void test_stats_scripted(void **state)
{
	struct enav_span_links *l = enav_span_links_new(4);
	struct enav_span_links_stats st;

	(void)state;
	assert_non_null(l);
	put(l, SOCK(1), 1, 0);
	put(l, SOCK(2), 2, 0);
	assert_found(l, SOCK(1), 1, 0); /* hit 1 */
	assert_missing(l, SOCK(3), 3);	/* miss 1 */
	put(l, SOCK(1), 1, 1);		/* overwrite: not replaced, now newest */
	put(l, 0, 1, 0);		/* ignored */
	put(l, SOCK(3), 3, 0);		/* fills the set */
	put(l, SOCK(4), 4, 0);		/* (used 4) */
	put(l, SOCK(5), 5, 0);		/* replaces 2, the oldest */
	assert_missing(l, SOCK(2), 2);	/* miss 2 */
	assert_found(l, SOCK(1), 1, 1); /* hit 2 */
	enav_span_links_stats(l, &st);
	assert_int_equal(st.puts, 6);
	assert_int_equal(st.replaced, 1);
	assert_int_equal(st.hits, 2);
	assert_int_equal(st.misses, 2);
	assert_int_equal(st.capacity, 4);
	assert_int_equal(st.used, 4);
	enav_span_links_free(l);
}

#define THREAD_PUTS 200000u
#define THREAD_GETS 200000u

struct race {
	struct enav_span_links *l;
	atomic_uint progress; /* puts done by the putter */
	uint64_t gets, hits, torn;
};

static void *putter(void *arg)
{
	struct race *r = arg;

	for (uint32_t i = 0; i < THREAD_PUTS; i++) {
		put(r->l, SOCK(i % 101), i, 0);
		atomic_store_explicit(&r->progress, i + 1, memory_order_release);
	}
	return NULL;
}

static void *getter(void *arg)
{
	struct race *r = arg;
	struct enav_span_link_id got;
	uint8_t trace[16], span[8];

	for (uint32_t k = 0; k < THREAD_GETS; k++) {
		uint32_t p = atomic_load_explicit(&r->progress, memory_order_acquire);
		/* Recent keys (mostly hits) and some long gone (misses). */
		uint32_t i = p > (k % 2000) ? p - 1 - (k % 2000) : 0;

		r->gets++;
		if (enav_span_links_get(r->l, SOCK(i % 101), i, &got)) {
			r->hits++;
			/* The ids are the key's own, never half of another's. */
			ids_for(SOCK(i % 101), i, 0, trace, span);
			if (memcmp(got.trace_id, trace, 16) || memcmp(got.span_id, span, 8))
				r->torn++;
		}
	}
	return NULL;
}

static void test_two_threads(void **state)
{
	struct race r = {.l = enav_span_links_new(4096)};
	struct enav_span_links_stats st;
	pthread_t tp, tg;

	(void)state;
	assert_non_null(r.l);
	atomic_init(&r.progress, 0);
	assert_int_equal(pthread_create(&tp, NULL, putter, &r), 0);
	assert_int_equal(pthread_create(&tg, NULL, getter, &r), 0);
	assert_int_equal(pthread_join(tp, NULL), 0);
	assert_int_equal(pthread_join(tg, NULL), 0);
	enav_span_links_stats(r.l, &st);
	assert_int_equal(st.puts, THREAD_PUTS);
	assert_int_equal(st.hits + st.misses, r.gets);
	assert_int_equal(r.gets, THREAD_GETS);
	assert_int_equal(st.hits, r.hits);
	assert_int_equal(r.torn, 0);
	assert_true(st.used <= st.capacity);
	assert_int_equal(st.replaced, THREAD_PUTS - st.used);
	assert_found(r.l, SOCK((THREAD_PUTS - 1) % 101), THREAD_PUTS - 1, 0);
	enav_span_links_free(r.l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_put_get_exact_ids),
	    cmocka_unit_test(test_miss_other_seq_and_sock),
	    cmocka_unit_test(test_overwrite_same_key),
	    cmocka_unit_test(test_capacity_rounding),
	    cmocka_unit_test(test_capacity_clamped),
	    cmocka_unit_test(test_zero_cap_is_null),
	    cmocka_unit_test(test_full_set_replaces_oldest),
	    cmocka_unit_test(test_many_puts_bounded),
	    cmocka_unit_test(test_stats_scripted),
	    cmocka_unit_test(test_two_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
