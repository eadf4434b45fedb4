/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One OTLP/HTTP export worker per signal: its own thread, bounded queue,
 * batching (size and time), request timeout, retry with exponential backoff
 * and jitter on the retryable answers only (429, 502, 503, 504 and a dropped
 * connection; Retry-After honoured), never on other 4xx; a 200 with
 * partial_success is not retried and its rejected items are counted; a
 * circuit breaker that stops sending to a failing endpoint and probes it
 * again later; a shutdown that flushes until a deadline.
 *
 * Submitting never blocks: when the queue is full the NEWEST item is refused
 * and counted (queue_full).  Destination I/O never runs on the caller.
 */
#ifndef ENAV_EXPORTERS_OTLP_OTLP_WORKER_H
#define ENAV_EXPORTERS_OTLP_OTLP_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "platform/protobuf.h"

struct enav_promtext;
struct enav_otlp_worker;

#define ENAV_OTLP_MAX_HEADERS 16

struct enav_otlp_worker_config {
	const char *signal; /* "metrics", "traces", "logs", "profiles": label and log prefix */
	const char *url;    /* full URL, e.g. http://127.0.0.1:4318/v1/metrics */
	const char *headers[ENAV_OTLP_MAX_HEADERS]; /* "Name: value"; never logged */
	size_t n_headers;
	uint32_t timeout_ms;	     /* one request */
	uint32_t queue_capacity;     /* items */
	uint32_t batch_max_items;    /* items per request */
	uint32_t batch_max_delay_ms; /* oldest queued item waits at most this long */
	bool gzip;
	uint32_t backoff_initial_ms;  /* 500 */
	uint32_t backoff_max_ms;      /* 30000 */
	uint32_t max_elapsed_ms;      /* give a batch up after this long retrying (60000) */
	uint32_t breaker_failures;    /* consecutive failed batches that open it (5) */
	uint32_t breaker_cooldown_ms; /* open this long, then one probe (30000) */
	const char *ca_file, *cert_file, *key_file; /* https; NULL = system CAs / none */
	size_t max_request_bytes;		    /* 0 = 4 MiB */
};

/* Encode n items as one request body into w. 0, or -errno (the batch is
 * dropped and counted as encode_failed). */
typedef int (*enav_otlp_encode_fn)(void *ctx, void *const *items, size_t n,
				   struct enav_pb_writer *w);
typedef void (*enav_otlp_free_fn)(void *item);

struct enav_otlp_worker *enav_otlp_worker_start(const struct enav_otlp_worker_config *cfg,
						enav_otlp_encode_fn encode,
						enav_otlp_free_fn free_item, void *ctx, char *err,
						size_t errlen);
/* Never blocks.  Takes ownership of item (freed when sent or dropped). */
bool enav_otlp_worker_submit(struct enav_otlp_worker *w, void *item);
/* Send what is queued until the deadline (CLOCK_MONOTONIC ns), drop and
 * count the rest, stop. */
void enav_otlp_worker_stop(struct enav_otlp_worker *w, uint64_t deadline_mono_ns);
/* enav_otlp_* families with a signal label: queue depth, items sent, items
 * dropped by reason, retries, breaker state, last error, rejected items. */
void enav_otlp_worker_metrics(struct enav_otlp_worker *const *workers, size_t n,
			      struct enav_promtext *p);

/* Exposed for tests and tests/fuzz/fuzz_retry_after.c: one response header
 * line as libcurl hands it (n bytes, CRLF included, not NUL-terminated).
 * True for a Retry-After whose delta-seconds (digits only) or HTTP-date
 * after now gives a wait: *ms, capped at cap_ms (0 = none: keep the computed
 * wait).  False for any other header, a malformed value or a date not after
 * now. */
bool enav_otlp_retry_after(const char *line, size_t n, time_t now, uint64_t cap_ms, uint32_t *ms);

#endif
