/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one export worker every exporter runs on (NDJSON, OTLP, Pyroscope): its
 * own thread, a bounded queue, batching by size and time, retry with
 * exponential backoff and jitter (or the wait the answer asked for), a
 * circuit breaker, and a shutdown that sends until a deadline.  The exporter
 * is its transport: it turns a batch into a request, sends it, and says what
 * the answer means.
 *
 * Submitting never blocks: when the queue is full the NEWEST item is refused
 * and counted (queue_full).  The transport's I/O never runs on the caller.
 */
#ifndef ENAV_RUNTIME_EXPORT_WORKER_H
#define ENAV_RUNTIME_EXPORT_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct enav_export_worker;

/* What prepare made of a batch. */
enum enav_export_prepared {
	ENAV_EXPORT_READY,	   /* *body holds the request */
	ENAV_EXPORT_NOTHING,	   /* nothing left to send: not a drop */
	ENAV_EXPORT_ENCODE_FAILED, /* dropped, counted encode_failed */
};

/* What one attempt's answer means. */
enum enav_export_result {
	ENAV_EXPORT_SENT,	 /* delivered */
	ENAV_EXPORT_RETRY,	 /* a retryable answer (429, 503...): retried */
	ENAV_EXPORT_UNREACHABLE, /* no answer: retried, and a failure for the breaker */
	ENAV_EXPORT_REJECTED,	 /* a permanent refusal: dropped, the endpoint is alive */
	ENAV_EXPORT_ABORTED,	 /* cut by the shutdown deadline: dropped */
};

enum enav_export_drop {
	ENAV_EXPORT_DROP_QUEUE_FULL,
	ENAV_EXPORT_DROP_ENCODE_FAILED,
	ENAV_EXPORT_DROP_RETRIES_EXHAUSTED,
	ENAV_EXPORT_DROP_REJECTED,
	ENAV_EXPORT_DROP_SHUTDOWN,
	ENAV_EXPORT_DROP__N
};

enum enav_export_breaker {
	ENAV_BREAKER_CLOSED = 0,
	ENAV_BREAKER_OPEN = 1,
	ENAV_BREAKER_HALF_OPEN = 2
};

struct enav_export_transport {
	/* Turn items[0..n) into one request.  The items are the transport's
	 * from here (it frees them, now or in release); *n_body is how many
	 * items the request carries (what sent and drops count). */
	enum enav_export_prepared (*prepare)(void *ctx, void **items, size_t n, void **body,
					     size_t *n_body);
	/* One attempt; *retry_after_ms is a wait the answer asked for (0 = none). */
	enum enav_export_result (*send)(void *ctx, void *body, size_t n, uint32_t *retry_after_ms);
	/* The request is done with (sent, dropped or abandoned). */
	void (*release)(void *ctx, void *body);
	/* A queued item that never reached prepare (shutdown, queue full). */
	void (*free_item)(void *ctx, void *item);
	/* Optional: a batch given up after attempts tries (retries_exhausted). */
	void (*give_up)(void *ctx, size_t n, unsigned attempts);
	/* Optional: interrupt a send in flight (the worker is stopping). */
	void (*wake)(void *ctx);
};

struct enav_export_worker_config {
	const char *name;	     /* log prefix, e.g. "otlp metrics" */
	uint32_t queue_capacity;     /* items (> 0) */
	uint32_t batch_max_items;    /* items per prepare (> 0) */
	uint32_t batch_max_delay_ms; /* the worker's tick: a queued item waits at most this
				      * long; 0 = none (woken per item) */
	uint32_t backoff_initial_ms; /* first retry waits about this long (> 0) */
	uint32_t backoff_max_ms;     /* the wait doubles up to this */
	uint32_t max_elapsed_ms;     /* give a batch up when its next attempt would start
				      * later than this after its first; 0 = no limit */
	bool limit_retries;	     /* give a batch up after max_retries retries */
	uint32_t max_retries;
	uint32_t breaker_failures;    /* consecutive failures that open it; 0 = no breaker */
	uint32_t breaker_cooldown_ms; /* open this long, then one probe */
	/* At the shutdown deadline, cancel the thread if it is still inside
	 * send (an output that blocks forever); send then enables cancellation
	 * only around its blocking calls. */
	bool cancel_at_deadline;
	bool log_stop; /* log "<name>: stopped; N sent, M dropped at shutdown" */
};

struct enav_export_stats {
	uint64_t depth, capacity, high_water, sent, retries;
	/* Submits that signalled the worker, and the worker's waits on its
	 * queue (idle, tick, backoff, breaker): batched, not one per item. */
	uint64_t signals, wakeups;
	uint64_t drops[ENAV_EXPORT_DROP__N];
	enum enav_export_breaker breaker;
};

/* NULL with err set on failure. */
struct enav_export_worker *enav_export_worker_start(const struct enav_export_worker_config *cfg,
						    const struct enav_export_transport *transport,
						    void *ctx, char *err, size_t errlen);
/* Never blocks.  Takes ownership of item (freed by the transport when sent or
 * dropped).  False when refused (queue full, or stopping): counted. */
bool enav_export_worker_submit(struct enav_export_worker *w, void *item);
/* Send what is queued until the deadline (CLOCK_MONOTONIC ns), drop and count
 * the rest, stop, free.  True when the thread was cancelled inside send at
 * the deadline (cancel_at_deadline): its output may be left mid-write. */
bool enav_export_worker_stop(struct enav_export_worker *w, uint64_t deadline_mono_ns);
/* Count items the exporter dropped before they reached the queue. */
void enav_export_worker_count_drop(struct enav_export_worker *w, enum enav_export_drop why,
				   size_t n);
void enav_export_worker_stats(struct enav_export_worker *w, struct enav_export_stats *out);
/* For a transport's own waits: stopping and the deadline has passed. */
bool enav_export_worker_past_deadline(struct enav_export_worker *w);
/* Monotonic ms left before the deadline while stopping; UINT64_MAX otherwise. */
uint64_t enav_export_worker_ms_left(struct enav_export_worker *w);

#endif
