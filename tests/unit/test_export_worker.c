/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the export worker (src/runtime/export_worker.c) with a
 * scripted transport: batching, counted drops, retry limits, the breaker,
 * the shutdown deadline and the cancel of a blocked output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/clock.h"
#include "runtime/export_worker.h"

struct fake {
	/* what send answers, attempt by attempt; past the end: the last one */
	enum enav_export_result script[16];
	size_t n_script;
	_Atomic size_t attempts;
	_Atomic size_t items_freed;
	_Atomic size_t largest_batch;
	_Atomic bool block; /* send sleeps in a cancellable call until cleared */
	size_t batch_n;
	void **batch;
};

static enum enav_export_prepared f_prepare(void *ctx, void **items, size_t n, void **body,
					   size_t *n_body)
{
	struct fake *f = ctx;
	f->batch = items;
	f->batch_n = n;
	if (n > atomic_load(&f->largest_batch))
		atomic_store(&f->largest_batch, n);
	*body = f;
	*n_body = n;
	return ENAV_EXPORT_READY;
}

static enum enav_export_result f_send(void *ctx, void *body, size_t n, uint32_t *retry_after_ms)
{
	struct fake *f = ctx;
	size_t a = atomic_fetch_add(&f->attempts, 1);
	while (atomic_load(&f->block)) {
		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		usleep(1000); /* a cancellation point, as write(2) is */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	}
	if (!f->n_script)
		return ENAV_EXPORT_SENT;
	return f->script[a < f->n_script ? a : f->n_script - 1];
}

static void f_release(void *ctx, void *body)
{
	struct fake *f = ctx;
	for (size_t i = 0; i < f->batch_n; i++)
		free(f->batch[i]);
	atomic_fetch_add(&f->items_freed, f->batch_n);
	f->batch_n = 0;
}

static void f_free_item(void *ctx, void *item)
{
	struct fake *f = ctx;
	free(item);
	atomic_fetch_add(&f->items_freed, 1);
}

static const struct enav_export_transport fake_transport = {
    .prepare = f_prepare,
    .send = f_send,
    .release = f_release,
    .free_item = f_free_item,
};

static struct enav_export_worker_config base(void)
{
	return (struct enav_export_worker_config){
	    .name = "test",
	    .queue_capacity = 8,
	    .batch_max_items = 4,
	    .backoff_initial_ms = 1,
	    .backoff_max_ms = 2,
	};
}

static struct enav_export_worker *start(const struct enav_export_worker_config *c, struct fake *f)
{
	char err[128] = "";
	struct enav_export_worker *w =
	    enav_export_worker_start(c, &fake_transport, f, err, sizeof(err));
	if (!w)
		fail_msg("start: %s", err);
	return w;
}

static void submit_n(struct enav_export_worker *w, int n)
{
	for (int i = 0; i < n; i++)
		enav_export_worker_submit(w, malloc(1));
}

static void wait_for(struct enav_export_worker *w, uint64_t (*pick)(struct enav_export_stats *),
		     uint64_t want)
{
	struct enav_export_stats st;
	for (int i = 0; i < 2000; i++) {
		enav_export_worker_stats(w, &st);
		if (pick(&st) >= want)
			return;
		usleep(1000);
	}
	fail_msg("timed out waiting for %llu", (unsigned long long)want);
}

static uint64_t sent(struct enav_export_stats *s)
{
	return s->sent;
}

static uint64_t exhausted(struct enav_export_stats *s)
{
	return s->drops[ENAV_EXPORT_DROP_RETRIES_EXHAUSTED];
}

static uint64_t rejected(struct enav_export_stats *s)
{
	return s->drops[ENAV_EXPORT_DROP_REJECTED];
}

/* Batches of at most batch_max_items; the NEWEST past the capacity refused. */
static void test_batches_and_queue_full(void **state)
{
	struct fake f = {.block = true};
	struct enav_export_worker_config c = base();
	struct enav_export_worker *w = start(&c, &f);
	submit_n(w, 1); /* taken by the worker, which blocks in send */
	while (atomic_load(&f.attempts) == 0)
		usleep(1000);
	submit_n(w, 10); /* 8 queued, 2 refused */
	struct enav_export_stats st;
	enav_export_worker_stats(w, &st);
	assert_int_equal(st.depth, 8);
	assert_int_equal(st.capacity, 8);
	assert_int_equal(st.high_water, 8);
	assert_int_equal(st.drops[ENAV_EXPORT_DROP_QUEUE_FULL], 2);
	atomic_store(&f.block, false);
	wait_for(w, sent, 9);
	assert_int_equal(atomic_load(&f.largest_batch), 4);
	enav_export_worker_stop(w, enav_clock_mono_ns() + 1000000000ull);
	assert_int_equal(atomic_load(&f.items_freed), 11);
}

/* limit_retries: given up after max_retries retries, each counted. */
static void test_retry_limit(void **state)
{
	struct fake f = {.script = {ENAV_EXPORT_RETRY}, .n_script = 1};
	struct enav_export_worker_config c = base();
	c.limit_retries = true;
	c.max_retries = 3;
	struct enav_export_worker *w = start(&c, &f);
	submit_n(w, 1);
	wait_for(w, exhausted, 1);
	struct enav_export_stats st;
	enav_export_worker_stats(w, &st);
	assert_int_equal(atomic_load(&f.attempts), 4);
	assert_int_equal(st.retries, 3);
	assert_int_equal(st.sent, 0);
	enav_export_worker_stop(w, enav_clock_mono_ns() + 1000000000ull);
	assert_int_equal(atomic_load(&f.items_freed), 1);
}

/* A retryable answer, then success: sent once, one retry. */
static void test_retry_then_sent(void **state)
{
	struct fake f = {.script = {ENAV_EXPORT_UNREACHABLE, ENAV_EXPORT_SENT}, .n_script = 2};
	struct enav_export_worker_config c = base();
	c.max_elapsed_ms = 10000;
	struct enav_export_worker *w = start(&c, &f);
	submit_n(w, 2);
	wait_for(w, sent, 2);
	struct enav_export_stats st;
	enav_export_worker_stats(w, &st);
	assert_int_equal(st.retries, 1);
	enav_export_worker_stop(w, enav_clock_mono_ns() + 1000000000ull);
}

/* A permanent refusal is not retried; the breaker opens on failures without
 * an answer and closes on the next answer. */
static void test_rejected_and_breaker(void **state)
{
	struct fake f = {.script = {ENAV_EXPORT_REJECTED}, .n_script = 1};
	struct enav_export_worker_config c = base();
	c.batch_max_items = 1;
	struct enav_export_worker *w = start(&c, &f);
	submit_n(w, 1);
	wait_for(w, rejected, 1);
	assert_int_equal(atomic_load(&f.attempts), 1);
	enav_export_worker_stop(w, enav_clock_mono_ns() + 1000000000ull);

	struct fake g = {
	    .script = {ENAV_EXPORT_UNREACHABLE, ENAV_EXPORT_UNREACHABLE, ENAV_EXPORT_SENT},
	    .n_script = 3};
	c = base();
	c.breaker_failures = 2;
	c.breaker_cooldown_ms = 50;
	c.max_elapsed_ms = 10000;
	w = start(&c, &g);
	submit_n(w, 1);
	struct enav_export_stats st;
	for (int i = 0; i < 2000; i++) {
		enav_export_worker_stats(w, &st);
		if (st.breaker == ENAV_BREAKER_OPEN)
			break;
		usleep(500);
	}
	assert_int_equal(st.breaker, ENAV_BREAKER_OPEN);
	wait_for(w, sent, 1);
	enav_export_worker_stats(w, &st);
	assert_int_equal(st.breaker, ENAV_BREAKER_CLOSED);
	enav_export_worker_stop(w, enav_clock_mono_ns() + 1000000000ull);
}

/* After stop nothing is accepted; what the deadline leaves is counted. */
static void test_shutdown_deadline(void **state)
{
	struct fake f = {.script = {ENAV_EXPORT_RETRY}, .n_script = 1};
	struct enav_export_worker_config c = base();
	c.batch_max_items = 1;
	c.backoff_initial_ms = 10000; /* the first retry would wait past the deadline */
	c.backoff_max_ms = 10000;
	struct enav_export_worker *w = start(&c, &f);
	submit_n(w, 3);
	while (atomic_load(&f.attempts) == 0)
		usleep(1000);
	uint64_t t0 = enav_clock_mono_ns();
	enav_export_worker_stop(w, t0 + 100000000ull);
	assert_true(enav_clock_mono_ns() - t0 < 2000000000ull);
	assert_int_equal(atomic_load(&f.items_freed), 3);
}

/* cancel_at_deadline: a send that never returns is abandoned at the deadline. */
static void test_cancel_blocked_output(void **state)
{
	struct fake f = {.block = true};
	struct enav_export_worker_config c = base();
	c.cancel_at_deadline = true;
	struct enav_export_worker *w = start(&c, &f);
	submit_n(w, 3);
	while (atomic_load(&f.attempts) == 0)
		usleep(1000);
	submit_n(w, 2);
	assert_true(enav_export_worker_stop(w, enav_clock_mono_ns() + 50000000ull));
	assert_int_equal(atomic_load(&f.items_freed), 5);
}

/* A steady trickle (an item every ms, a 10 ms tick) wakes the worker per
 * tick, not per item: one signal (the idle worker's first item) and about
 * one wakeup per tick.  The worker before this one was signalled by the
 * first item of every batch and woke twice per batch. */
static void test_wakeups_batched(void **state)
{
	struct fake f = {0};
	struct enav_export_worker_config c = base();
	c.queue_capacity = 1024;
	c.batch_max_items = 1000;
	c.batch_max_delay_ms = 10;
	struct enav_export_worker *w = start(&c, &f);
	uint64_t t0 = enav_clock_mono_ns();
	for (int i = 0; i < 200; i++) {
		submit_n(w, 1);
		usleep(1000);
	}
	uint64_t ms = (enav_clock_mono_ns() - t0) / 1000000ull;
	wait_for(w, sent, 200);
	struct enav_export_stats st;
	enav_export_worker_stats(w, &st);
	/* A loaded machine may stall the loop past a quiet tick: a few. */
	if (st.signals > 3 || st.wakeups > ms / 10 + 10)
		fail_msg("%llu signals and %llu wakeups for 200 items over %llu ms",
			 (unsigned long long)st.signals, (unsigned long long)st.wakeups,
			 (unsigned long long)ms);
	assert_true(atomic_load(&f.largest_batch) > 1);
	enav_export_worker_stop(w, enav_clock_mono_ns() + 1000000000ull);
	assert_int_equal(atomic_load(&f.items_freed), 200);
}

/* No item waits much past the tick, and stop flushes at once. */
static void test_tick_bounds_wait(void **state)
{
	struct fake f = {0};
	struct enav_export_worker_config c = base();
	c.batch_max_items = 8;
	c.batch_max_delay_ms = 100;
	struct enav_export_worker *w = start(&c, &f);
	uint64_t t0 = enav_clock_mono_ns();
	submit_n(w, 1);
	wait_for(w, sent, 1);
	uint64_t waited = (enav_clock_mono_ns() - t0) / 1000000ull;
	if (waited < 95 || waited > 1000)
		fail_msg("the first item went after %llu ms (tick 100)",
			 (unsigned long long)waited);
	submit_n(w, 2);
	t0 = enav_clock_mono_ns();
	enav_export_worker_stop(w, enav_clock_mono_ns() + 1000000000ull);
	uint64_t stop_ms = (enav_clock_mono_ns() - t0) / 1000000ull;
	if (stop_ms > 50)
		fail_msg("stop took %llu ms with 2 items queued", (unsigned long long)stop_ms);
	assert_int_equal(atomic_load(&f.items_freed), 3);
	assert_int_equal(atomic_load(&f.attempts), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_batches_and_queue_full),
	    cmocka_unit_test(test_retry_limit),
	    cmocka_unit_test(test_retry_then_sent),
	    cmocka_unit_test(test_rejected_and_breaker),
	    cmocka_unit_test(test_shutdown_deadline),
	    cmocka_unit_test(test_cancel_blocked_output),
	    cmocka_unit_test(test_wakeups_batched),
	    cmocka_unit_test(test_tick_bounds_wait),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
