/* SPDX-License-Identifier: Apache-2.0 */
#include "exporters/pyroscope/pyroscope.h"

#include <curl/curl.h>
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
#include "platform/promtext.h"
#include "runtime/profiles.h"

#define BACKOFF_BASE_MS 200
#define BACKOFF_MAX_MS	10000

struct job {
	uint32_t kind;
	uint32_t pid;
	char comm[ENAV_COMM_LEN];
	uint64_t from_mono, to_mono, from_unix, to_unix;
	/* A profile built elsewhere (pulled): owned, sent as is under name. */
	uint8_t *body;
	size_t len;
	char name[24];	/* "pulled_cpu" */
	char units[16]; /* "samples" */
};

enum drop_reason {
	D_QUEUE_FULL,
	D_RETRIES_EXHAUSTED,
	D_REJECTED,
	D_BUILD_FAILED,
	D_SHUTDOWN,
	D__N
};
static const char *const drop_names[D__N] = {"queue_full", "retries_exhausted", "rejected_4xx",
					     "build_failed", "shutdown"};

struct enav_pyroscope {
	struct enav_pyroscope_config cfg;
	char url[512], app[256];
	struct enav_profile_store *store;
	const struct enav_profile_service *profiles;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct job *ring;
	uint32_t head, len, cap;
	bool stopping;
	uint64_t deadline;
	uint32_t rng;
	/* self-accounting */
	_Atomic uint64_t sent, retries, empty, drops[D__N];
	_Atomic uint32_t depth;
	_Atomic int last_status;
};

struct interval_ctx {
	struct enav_pyroscope *p;
	uint32_t kind;
	uint64_t from_mono, to_mono, from_unix, to_unix;
};

static void queue_pid(void *arg, uint32_t tgid, const char *comm)
{
	struct interval_ctx *c = arg;
	struct enav_pyroscope *p = c->p;
	pthread_mutex_lock(&p->lock);
	if (p->len == p->cap || p->stopping) {
		atomic_fetch_add(&p->drops[D_QUEUE_FULL], 1);
	} else {
		struct job *j = &p->ring[(p->head + p->len) % p->cap];
		*j = (struct job){.kind = c->kind,
				  .pid = tgid,
				  .from_mono = c->from_mono,
				  .to_mono = c->to_mono,
				  .from_unix = c->from_unix,
				  .to_unix = c->to_unix};
		snprintf(j->comm, sizeof(j->comm), "%s", comm);
		p->len++;
		atomic_store(&p->depth, p->len);
		pthread_cond_signal(&p->cv);
	}
	pthread_mutex_unlock(&p->lock);
}

void enav_pyroscope_interval(struct enav_pyroscope *p, uint64_t from_mono_ns, uint64_t to_mono_ns,
			     uint64_t from_unix_ns, uint64_t to_unix_ns)
{
	if (!p)
		return;
	for (uint32_t k = 0; k < ENAV_PROFILE__COUNT; k++) {
		if ((k == ENAV_PROFILE_OFFCPU && !p->cfg.offcpu) ||
		    (k == ENAV_PROFILE_FUTEX && !p->cfg.futex))
			continue;
		struct interval_ctx c = {p, k, from_mono_ns, to_mono_ns, from_unix_ns, to_unix_ns};
		p->profiles->each_pid(p->store, k, from_mono_ns, to_mono_ns, queue_pid, &c);
	}
}

void enav_pyroscope_push_pprof(struct enav_pyroscope *p, const char *name, const char *units,
			       uint32_t pid, const char *comm, uint64_t from_unix_ns,
			       uint64_t to_unix_ns, uint8_t *body, size_t len)
{
	if (!p) {
		free(body);
		return;
	}
	pthread_mutex_lock(&p->lock);
	if (p->len == p->cap || p->stopping) {
		atomic_fetch_add(&p->drops[D_QUEUE_FULL], 1);
		free(body);
	} else {
		struct job *j = &p->ring[(p->head + p->len) % p->cap];
		*j = (struct job){.pid = pid,
				  .from_unix = from_unix_ns,
				  .to_unix = to_unix_ns,
				  .body = body,
				  .len = len};
		snprintf(j->comm, sizeof(j->comm), "%s", comm ? comm : "");
		snprintf(j->name, sizeof(j->name), "%s", name);
		snprintf(j->units, sizeof(j->units), "%s", units);
		p->len++;
		atomic_store(&p->depth, p->len);
		pthread_cond_signal(&p->cv);
	}
	pthread_mutex_unlock(&p->lock);
}

/* Label values Pyroscope accepts: anything that is not a delimiter of its
 * "{k=v,...}" name syntax or a control character. */
static void put_label(char *dst, size_t cap, size_t *n, const char *key, const char *val)
{
	if (!val || !val[0] || *n + 4 >= cap)
		return;
	int w = snprintf(dst + *n, cap - *n, "%s%s=", dst[*n - 1] == '{' ? "" : ",", key);
	if (w < 0 || (size_t)w >= cap - *n)
		return;
	*n += (size_t)w;
	for (const char *s = val; *s && *n + 2 < cap; s++) {
		char ch = *s;
		if (ch == '{' || ch == '}' || ch == ',' || ch == '=' || ch == '"' ||
		    (unsigned char)ch < 0x20 || ch == 0x7f)
			ch = '_';
		dst[(*n)++] = ch;
	}
	dst[*n] = '\0';
}

static const char *const kind_units[ENAV_PROFILE__COUNT] = {"samples", "nanoseconds",
							    "nanoseconds"};

/* One attempt: 0 ok, 1 retryable, -1 not retryable (counted by the caller). */
static int post(struct enav_pyroscope *p, const struct job *j, const uint8_t *body, size_t len,
		long *status)
{
	char name[1024];
	size_t n = (size_t)snprintf(name, sizeof(name), "%s.%s{", p->app,
				    j->body ? j->name : p->profiles->kind_name(j->kind));
	if (n >= sizeof(name))
		return -1;
	char pid[16];
	snprintf(pid, sizeof(pid), "%u", j->pid);
	put_label(name, sizeof(name), &n, "pid", pid);
	put_label(name, sizeof(name), &n, "comm", j->comm);
	struct enav_profile_workload w;
	if (p->profiles->workload(p->store, j->pid, &w)) {
		put_label(name, sizeof(name), &n, "container_id", w.container_id);
		put_label(name, sizeof(name), &n, "pod", w.pod);
		put_label(name, sizeof(name), &n, "namespace", w.namespace_);
		put_label(name, sizeof(name), &n, "service_name", w.service);
	}
	if (n + 2 < sizeof(name)) {
		name[n++] = '}';
		name[n] = '\0';
	}
	CURL *e = curl_easy_init();
	if (!e)
		return 1;
	char *ename = curl_easy_escape(e, name, 0);
	char url[2048];
	snprintf(url, sizeof(url),
		 "%s/ingest?name=%s&from=%" PRIu64 "&until=%" PRIu64
		 "&format=pprof&sampleRate=%u&spyName=enav&units=%s&aggregationType=sum",
		 p->url, ename ? ename : "", (uint64_t)(j->from_unix / 1000000000ull),
		 (uint64_t)((j->to_unix + 999999999ull) / 1000000000ull), p->cfg.frequency_hz,
		 j->body ? j->units : kind_units[j->kind]);
	curl_free(ename);
	curl_mime *mime = curl_mime_init(e);
	curl_mimepart *part = curl_mime_addpart(mime);
	curl_mime_name(part, "profile");
	curl_mime_filename(part, "profile.pprof");
	curl_mime_type(part, "application/octet-stream");
	curl_mime_data(part, (const char *)body, len);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_MIMEPOST, mime);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)p->cfg.timeout_ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)p->cfg.timeout_ms);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_USERAGENT, "e-navigator/" ENAV_VERSION);
	CURLcode rc = curl_easy_perform(e);
	*status = 0;
	if (rc == CURLE_OK)
		curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
	curl_mime_free(mime);
	curl_easy_cleanup(e);
	atomic_store(&p->last_status, (int)*status);
	if (rc != CURLE_OK)
		return 1; /* no answer: connection refused, reset, timeout */
	if (*status >= 200 && *status < 300)
		return 0;
	if (*status == 429 || *status >= 500)
		return 1;
	return -1;
}

static uint32_t jitter(struct enav_pyroscope *p, uint32_t ms)
{
	p->rng = p->rng * 1103515245u + 12345u;
	return ms / 2 + (p->rng >> 8) % (ms / 2 + 1);
}

/* Sleep ms unless stopping past the deadline; false when it is time to stop. */
static bool backoff(struct enav_pyroscope *p, uint32_t ms)
{
	struct timespec ts = enav_clock_deadline(CLOCK_REALTIME, (uint64_t)ms * 1000000ull);
	pthread_mutex_lock(&p->lock);
	while (!p->stopping && pthread_cond_timedwait(&p->cv, &p->lock, &ts) == 0)
		;
	bool go_on = !p->stopping || enav_clock_mono_ns() < p->deadline;
	pthread_mutex_unlock(&p->lock);
	return go_on;
}

static void send_job(struct enav_pyroscope *p, const struct job *j)
{
	struct enav_profile_query q = {.kind = j->kind,
				       .from_mono_ns = j->from_mono,
				       .to_mono_ns = j->to_mono,
				       .filter = {.pid = j->pid},
				       .format = ENAV_PROFILE_FORMAT_PPROF,
				       .redact = true /* leaves the node */};
	uint8_t *body = j->body;
	size_t len = j->len;
	if (body) {
		q.matched = 1; /* built by the caller */
	} else if (p->profiles->build(p->store, &q, &body, &len) != 0) {
		atomic_fetch_add(&p->drops[D_BUILD_FAILED], 1);
		return;
	}
	if (q.matched == 0) { /* evicted since it was queued */
		atomic_fetch_add(&p->empty, 1);
		free(body);
		return;
	}
	uint32_t delay = BACKOFF_BASE_MS;
	for (uint32_t attempt = 0;; attempt++) {
		long status;
		int r = post(p, j, body, len, &status);
		if (r == 0) {
			atomic_fetch_add(&p->sent, 1);
			break;
		}
		if (r < 0) {
			atomic_fetch_add(&p->drops[D_REJECTED], 1);
			enav_warn("pyroscope: push refused with HTTP %ld; dropped", status);
			break;
		}
		if (attempt >= p->cfg.max_retries) {
			atomic_fetch_add(&p->drops[D_RETRIES_EXHAUSTED], 1);
			break;
		}
		atomic_fetch_add(&p->retries, 1);
		if (!backoff(p, jitter(p, delay))) {
			atomic_fetch_add(&p->drops[D_SHUTDOWN], 1);
			break;
		}
		delay = delay * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : delay * 2;
	}
	free(body);
}

static void *worker(void *arg)
{
	struct enav_pyroscope *p = arg;
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->len && !p->stopping)
			pthread_cond_wait(&p->cv, &p->lock);
		if (!p->len)
			break;
		if (p->stopping && enav_clock_mono_ns() >= p->deadline) {
			atomic_fetch_add(&p->drops[D_SHUTDOWN], p->len);
			for (uint32_t i = 0; i < p->len; i++)
				free(p->ring[(p->head + i) % p->cap].body);
			p->len = 0;
			break;
		}
		struct job j = p->ring[p->head];
		p->head = (p->head + 1) % p->cap;
		p->len--;
		atomic_store(&p->depth, p->len);
		pthread_mutex_unlock(&p->lock);
		send_job(p, &j);
		pthread_mutex_lock(&p->lock);
	}
	atomic_store(&p->depth, 0);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct enav_pyroscope *enav_pyroscope_start(const struct enav_pyroscope_config *cfg,
					    struct enav_profile_store *store,
					    const struct enav_profile_service *profiles)
{
	struct enav_pyroscope *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->cfg = *cfg;
	snprintf(p->url, sizeof(p->url), "%s", cfg->url);
	size_t n = strlen(p->url);
	while (n && p->url[n - 1] == '/')
		p->url[--n] = '\0';
	snprintf(p->app, sizeof(p->app), "%s", cfg->app_name);
	p->store = store;
	p->profiles = profiles;
	p->cap = cfg->queue_capacity ? cfg->queue_capacity : 256;
	p->ring = calloc(p->cap, sizeof(*p->ring));
	p->rng = (uint32_t)enav_clock_mono_ns();
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (!p->ring || pthread_create(&p->thread, NULL, worker, p) != 0) {
		free(p->ring);
		free(p);
		return NULL;
	}
	return p;
}

void enav_pyroscope_stop(struct enav_pyroscope *p, uint64_t deadline_mono_ns)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stopping = true;
	p->deadline = deadline_mono_ns;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cv);
	free(p->ring);
	free(p);
}

void enav_pyroscope_metrics(struct enav_pyroscope *p, struct enav_promtext *out)
{
	if (!p)
		return;
	enav_promtext_single_u64(out, "enav_pyroscope_pushes_total", "counter",
				 "Profiles Pyroscope accepted.", atomic_load(&p->sent));
	enav_promtext_single_u64(out, "enav_pyroscope_retries_total", "counter",
				 "Pushes retried after a dropped connection, 429 or 5xx.",
				 atomic_load(&p->retries));
	enav_promtext_single_u64(out, "enav_pyroscope_queue_depth", "gauge",
				 "Pushes waiting in the bounded queue.", atomic_load(&p->depth));
	enav_promtext_single_u64(out, "enav_pyroscope_empty_total", "counter",
				 "Queued pushes with nothing left to send (evicted meanwhile).",
				 atomic_load(&p->empty));
	enav_promtext_single_u64(out, "enav_pyroscope_last_status", "gauge",
				 "HTTP status of the last push (0 = no answer).",
				 (uint64_t)atomic_load(&p->last_status));
	enav_promtext_family(out, "enav_pyroscope_dropped_total", "counter",
			     "Profiles not delivered to Pyroscope, by reason.");
	for (int r = 0; r < D__N; r++) {
		const char *l[] = {"reason", drop_names[r]};
		enav_promtext_sample_u64(out, "enav_pyroscope_dropped_total", l, 1,
					 atomic_load(&p->drops[r]));
	}
}
