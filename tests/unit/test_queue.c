/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the bounded pointer queue (src/platform/queue.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "platform/queue.h"

/* Items are small integers disguised as pointers; 0 would be NULL, so start at 1. */
#define ITEM(i) ((void *)(uintptr_t)(i))
#define VAL(p)	((uintptr_t)(p))

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t mono_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void test_init_cap_zero_fails(void **state)
{
	struct enav_queue q;

	assert_int_equal(enav_queue_init(&q, 0), -EINVAL);
}

static void test_init_state(void **state)
{
	struct enav_queue q;

	assert_int_equal(enav_queue_init(&q, 7), 0);
	assert_int_equal(q.cap, 7);
	assert_int_equal(enav_queue_depth(&q), 0);
	assert_int_equal(atomic_load(&q.pushed), 0);
	assert_int_equal(atomic_load(&q.dropped), 0);
	assert_int_equal(atomic_load(&q.high_water), 0);
	/* Empty and open: a zero timeout returns at once with nothing. */
	assert_null(enav_queue_pop(&q, 0));
	enav_queue_destroy(&q);
	assert_null(q.slots);
}

static void test_capacity_edge(void **state)
{
	struct enav_queue q;
	const uint32_t cap = 4;

	assert_int_equal(enav_queue_init(&q, cap), 0);
	for (uint32_t i = 1; i <= cap; i++) {
		assert_true(enav_queue_push(&q, ITEM(i)));
		assert_int_equal(enav_queue_depth(&q), i);
		assert_int_equal(atomic_load(&q.high_water), i);
	}
	assert_int_equal(atomic_load(&q.pushed), cap);
	assert_int_equal(atomic_load(&q.dropped), 0);

	/* cap + 1: refused, counted, nothing else changes. */
	assert_false(enav_queue_push(&q, ITEM(99)));
	assert_int_equal(atomic_load(&q.dropped), 1);
	assert_false(enav_queue_push(&q, ITEM(100)));
	assert_int_equal(atomic_load(&q.dropped), 2);
	assert_int_equal(atomic_load(&q.pushed), cap);
	assert_int_equal(enav_queue_depth(&q), cap);
	assert_int_equal(atomic_load(&q.high_water), cap);

	/* The refused items were the newest: the queue still holds 1..cap. */
	for (uint32_t i = 1; i <= cap; i++)
		assert_int_equal(VAL(enav_queue_pop(&q, 0)), i);
	assert_null(enav_queue_pop(&q, 0));

	/* One slot free again: exactly one more push fits; high water stays at cap. */
	assert_true(enav_queue_push(&q, ITEM(5)));
	assert_int_equal(atomic_load(&q.high_water), cap);
	assert_int_equal(atomic_load(&q.pushed), cap + 1);
	enav_queue_destroy(&q);
}

static void test_capacity_one(void **state)
{
	struct enav_queue q;

	assert_int_equal(enav_queue_init(&q, 1), 0);
	for (uintptr_t i = 1; i <= 100; i++) {
		assert_true(enav_queue_push(&q, ITEM(i)));
		assert_false(enav_queue_push(&q, ITEM(i + 1000)));
		assert_int_equal(VAL(enav_queue_pop(&q, 0)), i);
		assert_null(enav_queue_pop(&q, 0));
	}
	assert_int_equal(atomic_load(&q.pushed), 100);
	assert_int_equal(atomic_load(&q.dropped), 100);
	assert_int_equal(atomic_load(&q.high_water), 1);
	enav_queue_destroy(&q);
}

static void test_high_water_tracks_maximum(void **state)
{
	struct enav_queue q;

	assert_int_equal(enav_queue_init(&q, 16), 0);
	for (uintptr_t i = 1; i <= 3; i++)
		assert_true(enav_queue_push(&q, ITEM(i)));
	assert_int_equal(atomic_load(&q.high_water), 3);
	assert_non_null(enav_queue_pop(&q, 0));
	assert_non_null(enav_queue_pop(&q, 0));
	assert_true(enav_queue_push(&q, ITEM(4)));
	assert_int_equal(enav_queue_depth(&q), 2);
	assert_int_equal(atomic_load(&q.high_water), 3);
	for (uintptr_t i = 5; i <= 7; i++)
		assert_true(enav_queue_push(&q, ITEM(i)));
	assert_int_equal(enav_queue_depth(&q), 5);
	assert_int_equal(atomic_load(&q.high_water), 5);
	enav_queue_destroy(&q);
}

/* Varying fill levels so head and tail wrap at every offset, many times over. */
static void test_fifo_wraparound(void **state)
{
	struct enav_queue q;
	const uint32_t cap = 5;
	uintptr_t next_in = 1, next_out = 1;
	uint64_t pushes = 0;

	assert_int_equal(enav_queue_init(&q, cap), 0);
	for (uint32_t cycle = 0; cycle < 2000; cycle++) {
		uint32_t n_in = 1 + cycle % cap;	    /* 1..cap */
		uint32_t n_out = 1 + (cycle * 7 + 3) % cap; /* a different phase */
		uint32_t depth = enav_queue_depth(&q);

		for (uint32_t k = 0; k < n_in; k++) {
			bool fits = depth < cap;

			assert_int_equal(enav_queue_push(&q, ITEM(next_in)), fits);
			if (fits) {
				next_in++;
				depth++;
				pushes++;
			}
		}
		assert_int_equal(enav_queue_depth(&q), depth);
		for (uint32_t k = 0; k < n_out; k++) {
			void *p = enav_queue_pop(&q, 0);

			if (depth == 0) {
				assert_null(p);
				continue;
			}
			assert_int_equal(VAL(p), next_out);
			next_out++;
			depth--;
		}
		assert_int_equal(enav_queue_depth(&q), depth);
	}
	/* Drain: strictly in order, then empty. */
	for (void *p; (p = enav_queue_pop(&q, 0)) != NULL;)
		assert_int_equal(VAL(p), next_out++);
	assert_int_equal(next_out, next_in);
	assert_int_equal(atomic_load(&q.pushed), pushes);
	assert_true(pushes > 2000 * 2); /* the loop really cycled */
	assert_int_equal(atomic_load(&q.high_water), cap);
	enav_queue_destroy(&q);
}

static void test_pop_timeout(void **state)
{
	struct enav_queue q;

	assert_int_equal(enav_queue_init(&q, 4), 0);

	uint64_t t0 = mono_us();
	assert_null(enav_queue_pop(&q, 0));
	assert_true(mono_us() - t0 < 50000); /* zero timeout does not block */

	t0 = mono_ms();
	assert_null(enav_queue_pop(&q, 60));
	uint64_t dt = mono_ms() - t0;
	assert_true(dt >= 59);	/* waited the full timeout (ms rounding) */
	assert_true(dt < 1000); /* and returned roughly on time */

	/* Whole seconds go to tv_sec: the one path a sub-second timeout skips. */
	t0 = mono_ms();
	assert_null(enav_queue_pop(&q, 1000));
	dt = mono_ms() - t0;
	assert_true(dt >= 999);
	assert_true(dt < 2000);

	/* An item already queued is returned without waiting. */
	assert_true(enav_queue_push(&q, ITEM(42)));
	t0 = mono_us();
	assert_int_equal(VAL(enav_queue_pop(&q, 5000)), 42);
	assert_true(mono_us() - t0 < 50000);
	enav_queue_destroy(&q);
}

struct waiter {
	struct enav_queue *q;
	int timeout_ms;
	atomic_bool started;
	void *result;
	uint64_t elapsed_ms;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;

	atomic_store(&w->started, true);
	uint64_t t0 = mono_ms();
	w->result = enav_queue_pop(w->q, w->timeout_ms);
	w->elapsed_ms = mono_ms() - t0;
	return NULL;
}

/* Start a consumer and give it time to block in pop (it cannot be observed directly). */
static void start_waiter(pthread_t *t, struct waiter *w)
{
	assert_int_equal(pthread_create(t, NULL, waiter_main, w), 0);
	while (!atomic_load(&w->started))
		usleep(1000);
	usleep(30000);
}

static void test_close_wakes_blocked_consumer(void **state)
{
	struct enav_queue q;
	struct waiter w = {.q = &q, .timeout_ms = 10000};
	pthread_t t;

	assert_int_equal(enav_queue_init(&q, 4), 0);
	start_waiter(&t, &w);
	uint64_t t0 = mono_ms();
	enav_queue_close(&q);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_null(w.result);
	/* Woken by close, not by the 10 s timeout. */
	assert_true(mono_ms() - t0 < 2000);
	assert_true(w.elapsed_ms < 2000);
	enav_queue_destroy(&q);
}

static void test_push_wakes_blocked_consumer(void **state)
{
	struct enav_queue q;
	struct waiter w = {.q = &q, .timeout_ms = 10000};
	pthread_t t;

	assert_int_equal(enav_queue_init(&q, 4), 0);
	start_waiter(&t, &w);
	assert_true(enav_queue_push(&q, ITEM(7)));
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(VAL(w.result), 7);
	assert_true(w.elapsed_ms < 2000);
	assert_int_equal(enav_queue_depth(&q), 0);
	enav_queue_destroy(&q);
}

static void test_close_refuses_pushes_and_drains(void **state)
{
	struct enav_queue q;

	assert_int_equal(enav_queue_init(&q, 8), 0);
	for (uintptr_t i = 1; i <= 3; i++)
		assert_true(enav_queue_push(&q, ITEM(i)));
	enav_queue_close(&q);

	/* Refused and counted as dropped, though there is room. */
	assert_false(enav_queue_push(&q, ITEM(4)));
	assert_false(enav_queue_push(&q, ITEM(5)));
	assert_int_equal(atomic_load(&q.dropped), 2);
	assert_int_equal(atomic_load(&q.pushed), 3);
	assert_int_equal(enav_queue_depth(&q), 3);

	/* What was queued before close still comes out, in order, without waiting. */
	uint64_t t0 = mono_ms();
	for (uintptr_t i = 1; i <= 3; i++)
		assert_int_equal(VAL(enav_queue_pop(&q, 5000)), i);
	/* Closed and empty: NULL immediately, not after the timeout. */
	assert_null(enav_queue_pop(&q, 5000));
	assert_true(mono_ms() - t0 < 1000);
	/* Closing twice is harmless. */
	enav_queue_close(&q);
	assert_null(enav_queue_pop(&q, 0));
	enav_queue_destroy(&q);
}

#define PC_ITEMS 100000u

struct pc {
	struct enav_queue q;
	atomic_bool producer_done;
	uint64_t attempts, accepted, refused;
	uint64_t popped;
	bool in_order;
	uintptr_t last;
};

static void *producer_main(void *arg)
{
	struct pc *pc = arg;

	for (uintptr_t i = 1; i <= PC_ITEMS; i++) {
		pc->attempts++;
		if (enav_queue_push(&pc->q, ITEM(i)))
			pc->accepted++;
		else
			pc->refused++;
		if (i % 4096 == 0)
			sched_yield(); /* let the consumer catch up sometimes */
	}
	atomic_store(&pc->producer_done, true);
	enav_queue_close(&pc->q);
	return NULL;
}

static void *consumer_main(void *arg)
{
	struct pc *pc = arg;

	for (;;) {
		void *p = enav_queue_pop(&pc->q, 1000);

		if (!p) {
			/* NULL once closed and drained; a mere timeout keeps going. */
			if (atomic_load(&pc->producer_done) && enav_queue_depth(&pc->q) == 0)
				break;
			continue;
		}
		if (VAL(p) <= pc->last || VAL(p) > PC_ITEMS)
			pc->in_order = false;
		pc->last = VAL(p);
		pc->popped++;
	}
	return NULL;
}

static void test_producer_consumer(void **state)
{
	struct pc *pc = calloc(1, sizeof(*pc));
	pthread_t prod, cons;

	assert_non_null(pc);
	pc->in_order = true;
	assert_int_equal(enav_queue_init(&pc->q, 256), 0);
	assert_int_equal(pthread_create(&cons, NULL, consumer_main, pc), 0);
	assert_int_equal(pthread_create(&prod, NULL, producer_main, pc), 0);
	assert_int_equal(pthread_join(prod, NULL), 0);
	assert_int_equal(pthread_join(cons, NULL), 0);

	assert_int_equal(pc->attempts, PC_ITEMS);
	assert_int_equal(atomic_load(&pc->q.pushed) + atomic_load(&pc->q.dropped), PC_ITEMS);
	assert_int_equal(atomic_load(&pc->q.pushed), pc->accepted);
	assert_int_equal(atomic_load(&pc->q.dropped), pc->refused);
	/* Every accepted item came out exactly once, strictly in push order. */
	assert_int_equal(pc->popped, pc->accepted);
	assert_true(pc->in_order);
	assert_true(pc->accepted > 0);
	assert_true(atomic_load(&pc->q.high_water) <= 256);
	assert_true(atomic_load(&pc->q.high_water) >= 1);
	assert_int_equal(enav_queue_depth(&pc->q), 0);
	enav_queue_destroy(&pc->q);
	free(pc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_init_cap_zero_fails),
	    cmocka_unit_test(test_init_state),
	    cmocka_unit_test(test_capacity_edge),
	    cmocka_unit_test(test_capacity_one),
	    cmocka_unit_test(test_high_water_tracks_maximum),
	    cmocka_unit_test(test_fifo_wraparound),
	    cmocka_unit_test(test_pop_timeout),
	    cmocka_unit_test(test_close_wakes_blocked_consumer),
	    cmocka_unit_test(test_push_wakes_blocked_consumer),
	    cmocka_unit_test(test_close_refuses_pushes_and_drains),
	    cmocka_unit_test(test_producer_consumer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
