/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The export worker (see export_worker.h).
 *
 * Behaviour decisions:
 *  - Queue: a ring of item pointers guarded by one mutex; submit never
 *    waits for anything but that mutex, which the worker only holds for
 *    O(batch) pointer moves.
 *  - Wakeups are batched, never one per item: the worker runs on a tick of
 *    batch_max_delay_ms.  An idle worker (empty queue, no deadline) is
 *    woken by the first item and starts the tick then; at each tick it
 *    sends what is queued; a full batch is the only other wakeup.  After a
 *    tick that found nothing it waits one more tick before going idle, so
 *    a steady flow never wakes it per item.  No item waits longer than
 *    batch_max_delay_ms (0: every item goes at once, woken per item).
 *  - Backoff: delay d starts at backoff_initial_ms and doubles up to
 *    backoff_max_ms; the wait is "equal jitter" d/2 + rand[0, d/2], so
 *    retries are never closer than d/2.  A wait the answer asked for
 *    (Retry-After) replaces it.
 *  - A batch is given up (retries_exhausted) after max_retries retries when
 *    limit_retries, and as soon as its next attempt would start later than
 *    max_elapsed_ms after its first when that is set.
 *  - Breaker (breaker_failures > 0): a failure event is an attempt without
 *    an answer, or a batch given up after retryable answers;
 *    breaker_failures consecutive events open it for breaker_cooldown_ms.
 *    An answer that is not retryable (sent or rejected) proves the endpoint
 *    alive, resets the count and closes the breaker.  After the cooldown the
 *    next attempt is the half-open probe; any retryable outcome of the probe
 *    reopens it.  While open the queue keeps accepting up to its capacity.
 *  - Shutdown: after stop() no item is accepted (counted shutdown); queued
 *    items are sent without waiting for the batch delay until the deadline;
 *    a retry whose wait ends past the deadline is not made; a send in flight
 *    at the deadline is the transport's to cut (wake, past_deadline), or the
 *    thread is cancelled there (cancel_at_deadline); what is left is counted
 *    shutdown.
 */
#include "runtime/export_worker.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "platform/clock.h"
#include "platform/log.h"

#define NS_PER_MS 1000000ull

struct enav_export_worker {
	struct enav_export_worker_config cfg;
	char name[64];
	struct enav_export_transport t;
	void *ctx;

	/* queue */
	pthread_mutex_t lock;
	pthread_cond_t cv; /* CLOCK_MONOTONIC */
	void **ring;
	uint32_t head, len;
	bool idle; /* the worker waits for a first item, without a deadline */
	_Atomic bool stopping;
	_Atomic uint64_t deadline;
	pthread_t thread;

	/* worker-thread state */
	void **batch;
	void *inflight; /* the prepared request, for a cancelled thread */
	_Atomic bool finished;
	uint32_t rng;
	uint32_t consec_failures;
	uint64_t open_until;

	/* self-accounting */
	_Atomic uint64_t sent, retries, high_water, drops[ENAV_EXPORT_DROP__N];
	_Atomic uint64_t signals, wakeups; /* submits that woke the worker; its wakeups */
	_Atomic uint32_t depth;
	_Atomic int breaker;
};

static void abs_mono(struct timespec *ts, uint64_t ns)
{
	ts->tv_sec = (time_t)(ns / 1000000000ull);
	ts->tv_nsec = (long)(ns % 1000000000ull);
}

/* Wait on cv (lock held) until woken or the monotonic time until_ns (0 = no limit). */
static void wait_until(struct enav_export_worker *w, uint64_t until_ns)
{
	atomic_fetch_add(&w->wakeups, 1);
	if (!until_ns) {
		pthread_cond_wait(&w->cv, &w->lock);
		return;
	}
	struct timespec ts;
	abs_mono(&ts, until_ns);
	pthread_cond_timedwait(&w->cv, &w->lock, &ts);
}

bool enav_export_worker_past_deadline(struct enav_export_worker *w)
{
	return atomic_load(&w->stopping) && enav_clock_mono_ns() >= atomic_load(&w->deadline);
}

uint64_t enav_export_worker_ms_left(struct enav_export_worker *w)
{
	if (!atomic_load(&w->stopping))
		return UINT64_MAX;
	uint64_t now = enav_clock_mono_ns(), dl = atomic_load(&w->deadline);
	return dl > now ? (dl - now + NS_PER_MS - 1) / NS_PER_MS : 0;
}

static uint32_t next_rand(struct enav_export_worker *w)
{
	/* xorshift32: jitter only */
	uint32_t x = w->rng;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	w->rng = x;
	return x;
}

/* Equal jitter: d/2 + [0, d/2]. */
static uint32_t jittered(struct enav_export_worker *w, uint32_t d)
{
	return d / 2 + next_rand(w) % (d / 2 + 1);
}

static void drop(struct enav_export_worker *w, size_t n, enum enav_export_drop why)
{
	atomic_fetch_add(&w->drops[why], n);
}

/* ---- breaker -------------------------------------------------------------- */

static void breaker_success(struct enav_export_worker *w)
{
	w->consec_failures = 0;
	if (w->cfg.breaker_failures && atomic_load(&w->breaker) != ENAV_BREAKER_CLOSED) {
		atomic_store(&w->breaker, ENAV_BREAKER_CLOSED);
		enav_info("%s: endpoint answering again; circuit breaker closed", w->name);
	}
}

static void breaker_failure(struct enav_export_worker *w)
{
	w->consec_failures++;
	int st = atomic_load(&w->breaker);
	if (!w->cfg.breaker_failures || st == ENAV_BREAKER_OPEN)
		return;
	if (st == ENAV_BREAKER_HALF_OPEN || w->consec_failures >= w->cfg.breaker_failures) {
		w->open_until =
		    enav_clock_mono_ns() + (uint64_t)w->cfg.breaker_cooldown_ms * NS_PER_MS;
		atomic_store(&w->breaker, ENAV_BREAKER_OPEN);
		enav_warn("%s: %u consecutive failures; circuit breaker open for %u ms", w->name,
			  w->consec_failures, w->cfg.breaker_cooldown_ms);
	}
}

/* ---- one batch ------------------------------------------------------------ */

/* Sleep until target (monotonic ns); false when shutdown's deadline comes first. */
static bool sleep_until(struct enav_export_worker *w, uint64_t target)
{
	pthread_mutex_lock(&w->lock);
	bool ok = true;
	for (;;) {
		if (atomic_load(&w->stopping) && target >= atomic_load(&w->deadline)) {
			ok = false;
			break;
		}
		if (enav_clock_mono_ns() >= target)
			break;
		wait_until(w, target);
	}
	pthread_mutex_unlock(&w->lock);
	return ok;
}

static void send_batch(struct enav_export_worker *w, void **items, size_t n)
{
	void *body = NULL;
	size_t nb = n;
	enum enav_export_prepared p = w->t.prepare(w->ctx, items, n, &body, &nb);
	if (p == ENAV_EXPORT_ENCODE_FAILED) {
		drop(w, nb, ENAV_EXPORT_DROP_ENCODE_FAILED);
		return;
	}
	if (p == ENAV_EXPORT_NOTHING)
		return;
	w->inflight = body;

	uint64_t give_up_at = enav_clock_mono_ns() + (uint64_t)w->cfg.max_elapsed_ms * NS_PER_MS;
	uint32_t d = w->cfg.backoff_initial_ms;
	for (unsigned attempt = 0;; attempt++) {
		if (enav_export_worker_past_deadline(w)) {
			drop(w, nb, ENAV_EXPORT_DROP_SHUTDOWN);
			break;
		}
		if (attempt)
			atomic_fetch_add(&w->retries, 1);
		if (atomic_load(&w->breaker) == ENAV_BREAKER_OPEN)
			atomic_store(&w->breaker,
				     ENAV_BREAKER_HALF_OPEN); /* cooldown over: probe */
		uint32_t retry_after_ms = 0;
		enum enav_export_result o = w->t.send(w->ctx, body, nb, &retry_after_ms);
		if (o == ENAV_EXPORT_SENT || o == ENAV_EXPORT_REJECTED) {
			if (o == ENAV_EXPORT_SENT)
				atomic_fetch_add(&w->sent, nb);
			else
				drop(w, nb, ENAV_EXPORT_DROP_REJECTED);
			breaker_success(w);
			break;
		}
		if (o == ENAV_EXPORT_ABORTED) {
			drop(w, nb, ENAV_EXPORT_DROP_SHUTDOWN);
			break;
		}
		if (o == ENAV_EXPORT_UNREACHABLE)
			breaker_failure(w);
		else if (atomic_load(&w->breaker) == ENAV_BREAKER_HALF_OPEN)
			breaker_failure(w); /* the probe failed: reopen */
		if (w->cfg.limit_retries && attempt >= w->cfg.max_retries) {
			drop(w, nb, ENAV_EXPORT_DROP_RETRIES_EXHAUSTED);
			if (w->t.give_up)
				w->t.give_up(w->ctx, nb, attempt + 1);
			break;
		}
		uint32_t wait_ms = retry_after_ms ? retry_after_ms : jittered(w, d);
		d = d > w->cfg.backoff_max_ms / 2 ? w->cfg.backoff_max_ms : d * 2;
		uint64_t target = enav_clock_mono_ns() + (uint64_t)wait_ms * NS_PER_MS;
		if (atomic_load(&w->breaker) == ENAV_BREAKER_OPEN && w->open_until > target)
			target = w->open_until;
		if (w->cfg.max_elapsed_ms && target > give_up_at) {
			drop(w, nb, ENAV_EXPORT_DROP_RETRIES_EXHAUSTED);
			if (o == ENAV_EXPORT_RETRY)
				breaker_failure(w);
			if (w->t.give_up)
				w->t.give_up(w->ctx, nb, attempt + 1);
			break;
		}
		if (!sleep_until(w, target)) {
			drop(w, nb, ENAV_EXPORT_DROP_SHUTDOWN);
			break;
		}
	}
	w->inflight = NULL;
	w->t.release(w->ctx, body);
}

/* ---- the thread ----------------------------------------------------------- */

/* Past the deadline (or nothing left): free and count what is queued (lock held). */
static uint32_t drain_queue(struct enav_export_worker *w)
{
	uint32_t left = w->len;
	for (uint32_t i = 0; i < left; i++) {
		w->t.free_item(w->ctx, w->ring[w->head]);
		w->ring[w->head] = NULL;
		w->head = (w->head + 1) % w->cfg.queue_capacity;
	}
	w->len = 0;
	atomic_store(&w->depth, 0);
	if (left)
		drop(w, left, ENAV_EXPORT_DROP_SHUTDOWN);
	return left;
}

static void *worker_main(void *arg)
{
	struct enav_export_worker *w = arg;
	uint64_t delay_ns = (uint64_t)w->cfg.batch_max_delay_ms * NS_PER_MS;
	/* Items submitted before the thread first waits go at the first tick. */
	uint64_t next_tick = enav_clock_mono_ns() + delay_ns;
	uint32_t due = 0; /* items a tick found queued and not yet sent */
	/* Cancelled (cancel_at_deadline) only inside the transport's output
	 * calls, which enable it: never while holding the queue's lock. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		uint64_t now = enav_clock_mono_ns();
		bool stopping = atomic_load(&w->stopping);
		if (stopping && (w->len == 0 || now >= atomic_load(&w->deadline)))
			break;
		if (atomic_load(&w->breaker) == ENAV_BREAKER_OPEN && now < w->open_until) {
			uint64_t until = w->open_until;
			if (stopping && atomic_load(&w->deadline) < until)
				until = atomic_load(&w->deadline);
			wait_until(w, until);
			continue;
		}
		if (w->len == 0) {
			due = 0;
			if (now < next_tick) { /* one quiet tick before going idle */
				wait_until(w, next_tick);
				continue;
			}
			w->idle = true;
			wait_until(w, 0);
			w->idle = false;
			next_tick = enav_clock_mono_ns() + delay_ns; /* the first item's wait */
			continue;
		}
		if (!stopping && w->len < w->cfg.batch_max_items && !due) {
			if (now < next_tick) {
				wait_until(w, next_tick);
				continue;
			}
			due = w->len; /* the tick: what is queued now goes */
			next_tick = now + delay_ns;
		}
		uint32_t n = w->len < w->cfg.batch_max_items ? w->len : w->cfg.batch_max_items;
		due = due > n ? due - n : 0;
		for (uint32_t i = 0; i < n; i++) {
			w->batch[i] = w->ring[w->head];
			w->ring[w->head] = NULL;
			w->head = (w->head + 1) % w->cfg.queue_capacity;
		}
		w->len -= n;
		atomic_store(&w->depth, w->len);
		pthread_mutex_unlock(&w->lock);
		send_batch(w, w->batch, n);
		pthread_mutex_lock(&w->lock);
	}
	drain_queue(w);
	pthread_mutex_unlock(&w->lock);
	atomic_store(&w->finished, true);
	if (w->cfg.log_stop) {
		uint64_t lost = atomic_load(&w->drops[ENAV_EXPORT_DROP_SHUTDOWN]);
		enav_log(lost ? ENAV_LOG_WARN : ENAV_LOG_INFO,
			 "%s: stopped; %" PRIu64 " item(s) sent, %" PRIu64 " dropped at shutdown",
			 w->name, atomic_load(&w->sent), lost);
	}
	return NULL;
}

/* ---- lifecycle ------------------------------------------------------------ */

static void destroy(struct enav_export_worker *w)
{
	free(w->ring);
	free(w->batch);
	free(w);
}

struct enav_export_worker *enav_export_worker_start(const struct enav_export_worker_config *cfg,
						    const struct enav_export_transport *transport,
						    void *ctx, char *err, size_t errlen)
{
	if (!cfg || !transport || !transport->prepare || !transport->send || !transport->release ||
	    !transport->free_item || !cfg->queue_capacity || !cfg->batch_max_items ||
	    !cfg->backoff_initial_ms) {
		snprintf(err, errlen, "export worker: incomplete configuration");
		return NULL;
	}
	const char *name = cfg->name ? cfg->name : "export";
	struct enav_export_worker *w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "%s: out of memory", name);
		return NULL;
	}
	w->cfg = *cfg;
	if (w->cfg.backoff_max_ms < w->cfg.backoff_initial_ms)
		w->cfg.backoff_max_ms = w->cfg.backoff_initial_ms;
	snprintf(w->name, sizeof(w->name), "%s", name);
	w->cfg.name = w->name;
	w->t = *transport;
	w->ctx = ctx;
	w->rng = (uint32_t)enav_clock_mono_ns() | 1u;
	w->ring = calloc(cfg->queue_capacity, sizeof(*w->ring));
	w->batch = calloc(cfg->batch_max_items, sizeof(*w->batch));
	if (!w->ring || !w->batch) {
		snprintf(err, errlen, "%s: out of memory", name);
		destroy(w);
		return NULL;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &attr);
	pthread_condattr_destroy(&attr);
	int rc = pthread_create(&w->thread, NULL, worker_main, w);
	if (rc != 0) {
		snprintf(err, errlen, "%s: cannot start its thread: %s", name, strerror(rc));
		pthread_cond_destroy(&w->cv);
		pthread_mutex_destroy(&w->lock);
		destroy(w);
		return NULL;
	}
	return w;
}

bool enav_export_worker_submit(struct enav_export_worker *w, void *item)
{
	if (!w)
		return false;
	pthread_mutex_lock(&w->lock);
	enum enav_export_drop why = ENAV_EXPORT_DROP__N;
	if (atomic_load(&w->stopping)) {
		why = ENAV_EXPORT_DROP_SHUTDOWN;
	} else if (w->len == w->cfg.queue_capacity) {
		why = ENAV_EXPORT_DROP_QUEUE_FULL;
	} else {
		uint32_t slot = (w->head + w->len) % w->cfg.queue_capacity;
		w->ring[slot] = item;
		w->len++;
		atomic_store(&w->depth, w->len);
		if (w->len > atomic_load(&w->high_water))
			atomic_store(&w->high_water, w->len);
		/* Only an idle worker's first item and a full batch wake it: the
		 * rest wait for its tick. */
		if ((w->idle && w->len == 1) || w->len == w->cfg.batch_max_items) {
			pthread_cond_signal(&w->cv);
			atomic_fetch_add(&w->signals, 1);
		}
	}
	pthread_mutex_unlock(&w->lock);
	if (why != ENAV_EXPORT_DROP__N) {
		drop(w, 1, why);
		w->t.free_item(w->ctx, item);
		return false;
	}
	return true;
}

/* Join by the deadline; past it, cancel a thread stuck in its output (true). */
static bool join_by_deadline(struct enav_export_worker *w, uint64_t deadline_mono_ns)
{
	if (!w->cfg.cancel_at_deadline) {
		pthread_join(w->thread, NULL);
		return false;
	}
	/* pthread_timedjoin_np takes CLOCK_REALTIME; translate the deadline. */
	uint64_t now = enav_clock_mono_ns();
	uint64_t left = deadline_mono_ns > now ? deadline_mono_ns - now : 0;
	struct timespec ts;
	abs_mono(&ts, enav_clock_unix_ns() + left);
	if (pthread_timedjoin_np(w->thread, NULL, &ts) == 0)
		return false;
	enav_warn("%s: output blocked at the shutdown deadline; abandoning it", w->name);
	pthread_cancel(w->thread);
	pthread_join(w->thread, NULL);
	if (atomic_load(&w->finished))
		return true;
	/* Cancelled inside send: the request in hand and the queue are left. */
	if (w->inflight)
		w->t.release(w->ctx, w->inflight);
	w->inflight = NULL;
	pthread_mutex_lock(&w->lock);
	drain_queue(w);
	pthread_mutex_unlock(&w->lock);
	return true;
}

bool enav_export_worker_stop(struct enav_export_worker *w, uint64_t deadline_mono_ns)
{
	if (!w)
		return false;
	pthread_mutex_lock(&w->lock);
	atomic_store(&w->deadline, deadline_mono_ns);
	atomic_store(&w->stopping, true);
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->lock);
	if (w->t.wake)
		w->t.wake(w->ctx); /* a send in flight re-checks the deadline */
	bool abandoned = join_by_deadline(w, deadline_mono_ns);
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->lock);
	destroy(w);
	return abandoned;
}

void enav_export_worker_count_drop(struct enav_export_worker *w, enum enav_export_drop why,
				   size_t n)
{
	if (w && why < ENAV_EXPORT_DROP__N)
		drop(w, n, why);
}

void enav_export_worker_stats(struct enav_export_worker *w, struct enav_export_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!w)
		return;
	out->depth = atomic_load(&w->depth);
	out->capacity = w->cfg.queue_capacity;
	out->high_water = atomic_load(&w->high_water);
	out->sent = atomic_load(&w->sent);
	out->retries = atomic_load(&w->retries);
	out->signals = atomic_load(&w->signals);
	out->wakeups = atomic_load(&w->wakeups);
	for (int r = 0; r < ENAV_EXPORT_DROP__N; r++)
		out->drops[r] = atomic_load(&w->drops[r]);
	out->breaker = (enum enav_export_breaker)atomic_load(&w->breaker);
}
