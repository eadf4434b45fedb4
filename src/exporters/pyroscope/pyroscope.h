/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pyroscope push: after every profiling interval, one pprof per process and
 * profile kind goes to POST {url}/ingest?format=pprof (multipart field
 * "profile"), named "{app}.{kind}{pid=..,comm=..,container_id=..,...}".
 *
 * The transport of an export worker (runtime/export_worker.h), one push per
 * attempt: its own thread and bounded queue, so a slow or dead Pyroscope
 * never holds up profiling.  Jobs past the queue are dropped (newest
 * refused) and counted; a failed push is retried with exponential backoff
 * and jitter (200 ms doubling to 10 s) on a dropped connection, 429 and 5xx
 * only, at most max_retries times, then dropped and counted.
 *
 * A row of its own (`pyroscope`, a sink of profiles alone): it gets the
 * intervals and the pulled profiles as a profile consumer of the host, and
 * reads the store only through runtime/profiles.h.  Its fini sends what is
 * queued until the runner's deadline; the store is freed after it.
 */
#ifndef ENAV_EXPORTERS_PYROSCOPE_PYROSCOPE_H
#define ENAV_EXPORTERS_PYROSCOPE_PYROSCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/export_worker.h"
#include "runtime/host.h"
#include "runtime/profiles.h"

struct enav_promtext;
struct enav_pyroscope;

/* The row: profiling on and exporters.pyroscope.url set. */
extern const struct enav_sink_ops enav_pyroscope_sink_ops;
bool enav_pyroscope_enabled(const struct enav_config *cfg);

struct enav_pyroscope_config {
	const char *url;      /* base URL, e.g. http://127.0.0.1:4040 */
	const char *app_name; /* "enav" */
	uint32_t timeout_ms;
	uint32_t queue_capacity;
	uint32_t max_retries;
	uint32_t frequency_hz; /* sampleRate of CPU profiles */
};

struct enav_pyroscope *enav_pyroscope_start(const struct enav_pyroscope_config *cfg);
/* Queue the processes of one interval, each kind of iv->kinds (never blocks). */
void enav_pyroscope_interval(struct enav_pyroscope *p, struct enav_profile_store *store,
			     const struct enav_profile_service *svc,
			     const struct enav_profile_interval *iv);
/* Queue a profile built elsewhere (a pulled one, already filtered); takes
 * ownership of body.  Pushed as "{app}.{name}{pid=..,comm=..}", with the
 * workload's labels when store (may be NULL) knows the pid. */
void enav_pyroscope_push_pprof(struct enav_pyroscope *p, struct enav_profile_store *store,
			       const struct enav_profile_service *svc, const char *name,
			       const char *units, uint32_t pid, const char *comm,
			       uint64_t from_unix_ns, uint64_t to_unix_ns, uint8_t *body,
			       size_t len);
/* Send what is queued until the deadline, then stop. */
void enav_pyroscope_stop(struct enav_pyroscope *p, uint64_t deadline_mono_ns);
void enav_pyroscope_metrics(struct enav_pyroscope *p, struct enav_promtext *out);

/*
 * What one push's answer means, kept apart from libcurl so that
 * tests/fuzz/fuzz_pyroscope_response.c can drive it.  The body is read and
 * discarded (libcurl would otherwise write it to our stdout); only its
 * first line is kept, bounded, for the log line of a refused push: bytes
 * outside printable ASCII, quotes and backslashes become '?'.
 */
#define ENAV_PYROSCOPE_EXCERPT 120

struct enav_pyroscope_reply {
	bool answered;	    /* an HTTP answer came (the transfer completed) */
	long status;	    /* its status; 0 when none */
	uint64_t body_len;  /* bytes of body received */
	bool excerpt_done;  /* the first line has ended */
	size_t excerpt_len; /* < sizeof(excerpt) */
	char excerpt[ENAV_PYROSCOPE_EXCERPT + 1];
};

/* One chunk of body as libcurl hands it over (n bytes, not NUL-terminated). */
void enav_pyroscope_reply_body(struct enav_pyroscope_reply *r, const char *chunk, size_t n);
/* Sent on 2xx; retried on 429 and 5xx, and on no answer (unreachable);
 * any other answer refuses the push for good. */
enum enav_export_result enav_pyroscope_verdict(const struct enav_pyroscope_reply *r);

#endif
