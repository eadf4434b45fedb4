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
#include "runtime/export_worker.h"
#include "runtime/profiles.h"

#define BACKOFF_BASE_MS 200
#define BACKOFF_MAX_MS	10000
#define DEF_QUEUE	256

struct job {
	uint32_t kind;
	uint32_t pid;
	char comm[ENAV_COMM_LEN];
	uint64_t from_mono, to_mono, from_unix, to_unix;
	/* What the job is built from and labelled with (the store outlives
	 * this row: the runner frees it after every module); NULL for a
	 * pulled profile of a pid no store knows. */
	struct enav_profile_store *store;
	const struct enav_profile_service *svc;
	/* A profile built elsewhere (pulled): owned, sent as is under name.
	 * body moves to the push in hand when it is prepared; pulled stays. */
	bool pulled;
	uint8_t *body;
	size_t len;
	char name[24];	/* "pulled_cpu" */
	char units[16]; /* "samples" */
};

/* Pyroscope's names of the export worker's drop reasons, in its metric's order. */
static const struct {
	const char *name;
	enum enav_export_drop reason;
} drop_names[] = {
    {"queue_full", ENAV_EXPORT_DROP_QUEUE_FULL},
    {"retries_exhausted", ENAV_EXPORT_DROP_RETRIES_EXHAUSTED},
    {"rejected_4xx", ENAV_EXPORT_DROP_REJECTED},
    {"build_failed", ENAV_EXPORT_DROP_ENCODE_FAILED},
    {"shutdown", ENAV_EXPORT_DROP_SHUTDOWN},
};

struct enav_pyroscope {
	struct enav_pyroscope_config cfg;
	char url[512], app[256];
	struct enav_host *host;	       /* the row's: its profile consumer is registered there */
	struct enav_export_worker *ew; /* one job per attempt: queue, retries, deadline */
	/* The push in hand (worker thread only). */
	struct job *job;
	uint8_t *body;
	size_t len;
	/* self-accounting (the rest is the export worker's) */
	_Atomic uint64_t empty;
	_Atomic int last_status;
};

struct interval_ctx {
	struct enav_pyroscope *p;
	uint32_t kind;
	struct enav_profile_store *store;
	const struct enav_profile_service *svc;
	const struct enav_profile_interval *iv;
};

static void queue_pid(void *arg, uint32_t tgid, const char *comm)
{
	struct interval_ctx *c = arg;
	struct job *j = malloc(sizeof(*j));
	if (!j) {
		/* No room for the job itself: as good as a full queue. */
		enav_export_worker_count_drop(c->p->ew, ENAV_EXPORT_DROP_QUEUE_FULL, 1);
		return;
	}
	*j = (struct job){.kind = c->kind,
			  .pid = tgid,
			  .from_mono = c->iv->from_mono_ns,
			  .to_mono = c->iv->to_mono_ns,
			  .from_unix = c->iv->from_unix_ns,
			  .to_unix = c->iv->to_unix_ns,
			  .store = c->store,
			  .svc = c->svc};
	snprintf(j->comm, sizeof(j->comm), "%s", comm);
	enav_export_worker_submit(c->p->ew, j);
}

void enav_pyroscope_interval(struct enav_pyroscope *p, struct enav_profile_store *store,
			     const struct enav_profile_service *svc,
			     const struct enav_profile_interval *iv)
{
	if (!p)
		return;
	for (uint32_t k = 0; k < ENAV_PROFILE__COUNT; k++) {
		if (!(iv->kinds & (1u << k)))
			continue;
		struct interval_ctx c = {p, k, store, svc, iv};
		svc->each_pid(store, k, iv->from_mono_ns, iv->to_mono_ns, queue_pid, &c);
	}
}

void enav_pyroscope_push_pprof(struct enav_pyroscope *p, struct enav_profile_store *store,
			       const struct enav_profile_service *svc, const char *name,
			       const char *units, uint32_t pid, const char *comm,
			       uint64_t from_unix_ns, uint64_t to_unix_ns, uint8_t *body,
			       size_t len)
{
	if (!p) {
		free(body);
		return;
	}
	struct job *j = malloc(sizeof(*j));
	if (!j) {
		free(body);
		enav_export_worker_count_drop(p->ew, ENAV_EXPORT_DROP_QUEUE_FULL, 1);
		return;
	}
	*j = (struct job){.pid = pid,
			  .from_unix = from_unix_ns,
			  .to_unix = to_unix_ns,
			  .store = store,
			  .svc = svc,
			  .pulled = true,
			  .body = body,
			  .len = len};
	snprintf(j->comm, sizeof(j->comm), "%s", comm ? comm : "");
	snprintf(j->name, sizeof(j->name), "%s", name);
	snprintf(j->units, sizeof(j->units), "%s", units);
	enav_export_worker_submit(p->ew, j);
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

/* ---- the answer ----------------------------------------------------------- */

void enav_pyroscope_reply_body(struct enav_pyroscope_reply *r, const char *chunk, size_t n)
{
	r->body_len += n;
	for (size_t i = 0; i < n && !r->excerpt_done; i++) {
		unsigned char c = (unsigned char)chunk[i];
		if (c == '\n' || r->excerpt_len == ENAV_PYROSCOPE_EXCERPT) {
			r->excerpt_done = true;
			break;
		}
		if (c == '\r')
			continue;
		/* The server's bytes go into our log, quoted: nothing but
		 * printable ASCII, so they cannot forge lines or drive a
		 * terminal, and no quote or backslash to end the value early. */
		bool plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
		r->excerpt[r->excerpt_len++] = plain ? (char)c : '?';
	}
	r->excerpt[r->excerpt_len] = '\0';
}

enum enav_export_result enav_pyroscope_verdict(const struct enav_pyroscope_reply *r)
{
	if (!r->answered)
		return ENAV_EXPORT_UNREACHABLE; /* connection refused, reset, timeout */
	if (r->status >= 200 && r->status < 300)
		return ENAV_EXPORT_SENT;
	if (r->status == 429 || r->status >= 500)
		return ENAV_EXPORT_RETRY;
	return ENAV_EXPORT_REJECTED;
}

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *arg)
{
	enav_pyroscope_reply_body(arg, ptr, size * nmemb);
	return size * nmemb;
}

/* One attempt; the answer in *reply (nothing answered when the push could
 * not even be named). */
static void post(struct enav_pyroscope *p, const struct job *j, const uint8_t *body, size_t len,
		 struct enav_pyroscope_reply *reply)
{
	char name[1024];
	*reply = (struct enav_pyroscope_reply){0};
	size_t n = (size_t)snprintf(name, sizeof(name), "%s.%s{", p->app,
				    j->pulled ? j->name : j->svc->kind_name(j->kind));
	if (n >= sizeof(name)) {
		reply->answered = true; /* refused as if by the server: never retried */
		return;
	}
	char pid[16];
	snprintf(pid, sizeof(pid), "%u", j->pid);
	put_label(name, sizeof(name), &n, "pid", pid);
	put_label(name, sizeof(name), &n, "comm", j->comm);
	struct enav_profile_workload w;
	if (j->store && j->svc->workload(j->store, j->pid, &w)) {
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
		return;
	char *ename = curl_easy_escape(e, name, 0);
	char url[2048];
	snprintf(url, sizeof(url),
		 "%s/ingest?name=%s&from=%" PRIu64 "&until=%" PRIu64
		 "&format=pprof&sampleRate=%u&spyName=enav&units=%s&aggregationType=sum",
		 p->url, ename ? ename : "", (uint64_t)(j->from_unix / 1000000000ull),
		 (uint64_t)((j->to_unix + 999999999ull) / 1000000000ull), p->cfg.frequency_hz,
		 j->pulled ? j->units : kind_units[j->kind]);
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
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, reply);
	CURLcode rc = curl_easy_perform(e);
	if (rc == CURLE_OK) {
		reply->answered = true;
		curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &reply->status);
	}
	curl_mime_free(mime);
	curl_easy_cleanup(e);
	atomic_store(&p->last_status, (int)reply->status);
}

/* ---- the transport of the export worker ----------------------------------- */

static void free_job(void *ctx, void *item)
{
	struct job *j = item;
	if (j)
		free(j->body);
	free(j);
}

/* The pprof of one job: built from the store now, or the one it carries. */
static enum enav_export_prepared pyro_prepare(void *ctx, void **items, size_t n, void **body,
					      size_t *n_body)
{
	struct enav_pyroscope *p = ctx;
	struct job *j = items[0];
	*n_body = 1;
	struct enav_profile_query q = {.kind = j->kind,
				       .from_mono_ns = j->from_mono,
				       .to_mono_ns = j->to_mono,
				       .filter = {.pid = j->pid},
				       .format = ENAV_PROFILE_FORMAT_PPROF,
				       .redact = true /* leaves the node */};
	p->body = j->body;
	p->len = j->len;
	j->body = NULL;
	if (p->body) {
		q.matched = 1; /* built by the caller */
	} else if (j->svc->build(j->store, &q, &p->body, &p->len) != 0) {
		free_job(p, j);
		return ENAV_EXPORT_ENCODE_FAILED;
	}
	if (q.matched == 0) { /* evicted since it was queued */
		atomic_fetch_add(&p->empty, 1);
		free(p->body);
		p->body = NULL;
		free_job(p, j);
		return ENAV_EXPORT_NOTHING;
	}
	p->job = j;
	*body = p;
	return ENAV_EXPORT_READY;
}

/* Retried: no answer, 429 and 5xx; any other status drops the push. */
static enum enav_export_result pyro_send(void *ctx, void *body, size_t n, uint32_t *retry_after_ms)
{
	struct enav_pyroscope *p = ctx;
	struct enav_pyroscope_reply reply;
	post(p, p->job, p->body, p->len, &reply);
	enum enav_export_result r = enav_pyroscope_verdict(&reply);
	if (r == ENAV_EXPORT_REJECTED)
		enav_warn("pyroscope: push refused with HTTP %ld; dropped (answer: \"%s\")",
			  reply.status, reply.excerpt);
	return r;
}

static void pyro_release(void *ctx, void *body)
{
	struct enav_pyroscope *p = ctx;
	free(p->body);
	p->body = NULL;
	free_job(p, p->job);
	p->job = NULL;
}

static const struct enav_export_transport pyroscope_transport = {
    .prepare = pyro_prepare,
    .send = pyro_send,
    .release = pyro_release,
    .free_item = free_job,
};

struct enav_pyroscope *enav_pyroscope_start(const struct enav_pyroscope_config *cfg)
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
	struct enav_export_worker_config ec = {
	    .name = "pyroscope",
	    .queue_capacity = cfg->queue_capacity ? cfg->queue_capacity : DEF_QUEUE,
	    .batch_max_items = 1,
	    .backoff_initial_ms = BACKOFF_BASE_MS,
	    .backoff_max_ms = BACKOFF_MAX_MS,
	    .limit_retries = true,
	    .max_retries = cfg->max_retries,
	};
	char err[128];
	p->ew = enav_export_worker_start(&ec, &pyroscope_transport, p, err, sizeof(err));
	if (!p->ew) {
		free(p);
		return NULL;
	}
	return p;
}

void enav_pyroscope_stop(struct enav_pyroscope *p, uint64_t deadline_mono_ns)
{
	if (!p)
		return;
	enav_export_worker_stop(p->ew, deadline_mono_ns);
	free(p);
}

void enav_pyroscope_metrics(struct enav_pyroscope *p, struct enav_promtext *out)
{
	if (!p)
		return;
	struct enav_export_stats st;
	enav_export_worker_stats(p->ew, &st);
	enav_promtext_single_u64(out, "enav_pyroscope_pushes_total", "counter",
				 "Profiles Pyroscope accepted.", st.sent);
	enav_promtext_single_u64(out, "enav_pyroscope_retries_total", "counter",
				 "Pushes retried after a dropped connection, 429 or 5xx.",
				 st.retries);
	enav_promtext_single_u64(out, "enav_pyroscope_queue_depth", "gauge",
				 "Pushes waiting in the bounded queue.", st.depth);
	enav_promtext_single_u64(out, "enav_pyroscope_empty_total", "counter",
				 "Queued pushes with nothing left to send (evicted meanwhile).",
				 atomic_load(&p->empty));
	enav_promtext_single_u64(out, "enav_pyroscope_last_status", "gauge",
				 "HTTP status of the last push (0 = no answer).",
				 (uint64_t)atomic_load(&p->last_status));
	enav_promtext_family(out, "enav_pyroscope_dropped_total", "counter",
			     "Profiles not delivered to Pyroscope, by reason.");
	for (size_t r = 0; r < sizeof(drop_names) / sizeof(drop_names[0]); r++) {
		const char *l[] = {"reason", drop_names[r].name};
		enav_promtext_sample_u64(out, "enav_pyroscope_dropped_total", l, 1,
					 st.drops[drop_names[r].reason]);
	}
}

/* ---- the row ---------------------------------------------------------------- */

bool enav_pyroscope_enabled(const struct enav_config *cfg)
{
	return cfg->profiling.enabled && cfg->profiling.pyroscope_url[0];
}

static void pyro_on_interval(void *ctx, struct enav_profile_store *store,
			     const struct enav_profile_service *svc,
			     const struct enav_profile_interval *iv)
{
	enav_pyroscope_interval(ctx, store, svc, iv);
}

/* The pull's profile is its own: the push keeps a copy. */
static void pyro_on_pulled(void *ctx, const struct enav_pulled_profile *pp)
{
	struct enav_pyroscope *p = ctx;
	uint8_t *body = malloc(pp->len ? pp->len : 1);
	if (!body) {
		enav_export_worker_count_drop(p->ew, ENAV_EXPORT_DROP_QUEUE_FULL, 1);
		return;
	}
	memcpy(body, pp->body, pp->len);
	char name[24];
	snprintf(name, sizeof(name), "pulled_%s", pp->kind);
	const struct enav_profile_service *svc;
	struct enav_profile_store *store = enav_host_profile_service(p->host, &svc);
	enav_pyroscope_push_pprof(p, store, svc, name, pp->units, pp->pid, pp->comm,
				  pp->from_unix_ns, pp->to_unix_ns, body, pp->len);
}

static int pyro_init(struct enav_host *h, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(h);
	struct enav_pyroscope_config pc = {
	    .url = cfg->profiling.pyroscope_url,
	    .app_name = cfg->profiling.pyroscope_app,
	    .timeout_ms = cfg->profiling.pyroscope_timeout_ms,
	    .queue_capacity = cfg->profiling.pyroscope_queue,
	    .max_retries = cfg->profiling.pyroscope_retries,
	    .frequency_hz = cfg->profiling.frequency_hz,
	};
	struct enav_pyroscope *p = enav_pyroscope_start(&pc);
	if (!p) {
		snprintf(err, errlen, "exporters.pyroscope: cannot start the push worker");
		return -ENOMEM;
	}
	*state = p;
	p->host = h;
	struct enav_profile_consumer c = {pyro_on_interval, pyro_on_pulled, p};
	return enav_host_consume_profiles(h, &c, err, errlen);
}

static void pyro_fini(void *state, uint64_t deadline_mono_ns)
{
	struct enav_pyroscope *p = state;
	if (!p)
		return;
	enav_host_unconsume_profiles(p->host, p);
	enav_pyroscope_stop(p, deadline_mono_ns);
}

static void pyro_metrics(void *state, struct enav_promtext *p)
{
	enav_pyroscope_metrics(state, p);
}

const struct enav_sink_ops enav_pyroscope_sink_ops = {
    .init = pyro_init,
    .fini = pyro_fini,
    .metrics = pyro_metrics,
};
