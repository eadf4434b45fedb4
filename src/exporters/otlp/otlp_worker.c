/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OTLP/HTTP export worker (see otlp_worker.h): the transport of one
 * runtime/export_worker.h worker per signal, which owns the queue, the
 * batching, the backoff, the breaker and the shutdown deadline.
 *
 * Behaviour decisions (those of the export worker, with OTLP's answers):
 *  - Backoff: delay d starts at backoff_initial_ms and doubles up to
 *    backoff_max_ms; the wait is "equal jitter" d/2 + rand[0, d/2], so
 *    retries are never closer than d/2.
 *  - Retry-After (delta-seconds or HTTP-date) of at least 1 s replaces the
 *    computed wait, capped at 4 * backoff_max_ms; 0 or a past date is
 *    ignored (the computed wait is used: no hot loop).
 *  - A batch is given up (retries_exhausted) as soon as its next attempt
 *    would start later than max_elapsed_ms after its first attempt.
 *  - Retryable: HTTP 429, 502, 503, 504 and every transport failure (no
 *    HTTP answer: refused, reset, timeout, empty reply, TLS, DNS).  Any other
 *    non-2xx status (3xx are not followed, 400, 401, 404, 413, 500...)
 *    drops the batch at once (rejected_status).
 *  - Breaker: a failure event is a transport failure of one attempt or a
 *    batch given up after retryable statuses; breaker_failures consecutive
 *    events open it for breaker_cooldown_ms.  Any HTTP answer that is not
 *    retryable (2xx or a permanent 4xx/5xx) proves the endpoint alive and
 *    resets the count and closes the breaker.  After the cooldown the next
 *    request (a queued batch, or the retry of the batch in hand) is the
 *    half-open probe; any retryable outcome of the probe reopens it.  While
 *    open the queue keeps accepting up to its capacity.
 *  - items_rejected_total counts the rejected_* of partial_success as the
 *    receiver reports it (data points, spans, log records, profiles), not
 *    our items; a 2xx batch counts all its items as sent.
 *  - Shutdown: after stop() no item is accepted (counted shutdown); queued
 *    items are sent without waiting for the batch delay until the deadline;
 *    a request in flight at the deadline is aborted (multi interface polled
 *    up to the deadline, woken by curl_multi_wakeup, plus an xferinfo
 *    callback), and its batch and the rest of the queue are counted
 *    shutdown.
 *  - Zero config values take the defaults of the header comments
 *    (timeout 10 s, queue 2048, batch 512, backoff 500/30000 ms, elapsed
 *    60 s, breaker 5 failures / 30 s, 4 MiB); batch_max_delay_ms 0 means
 *    "send as soon as something is queued".
 *  - Header values are never logged and never part of last_error, which is
 *    a code from a fixed set ("http_503", "timeout", ...).
 */
#include "exporters/otlp/otlp_worker.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "platform/clock.h"
#include "platform/gzip.h"
#include "platform/log.h"
#include "platform/promtext.h"
#include "runtime/export_worker.h"
#include "exporters/otlp/otlp_encode.h"

#define DEF_TIMEOUT_MS	     10000u
#define DEF_QUEUE	     2048u
#define DEF_BATCH	     512u
#define DEF_BACKOFF_INIT_MS  500u
#define DEF_BACKOFF_MAX_MS   30000u
#define DEF_MAX_ELAPSED_MS   60000u
#define DEF_BREAKER_FAILURES 5u
#define DEF_BREAKER_COOL_MS  30000u
#define DEF_MAX_REQUEST	     ((size_t)4 << 20)
#define RESPONSE_CAP	     (64u << 10) /* response bytes kept for partial_success */

/* The export worker's drop reasons, as OTLP has always named them. */
static const char *const drop_names[ENAV_EXPORT_DROP__N] = {
    "queue_full", "encode_failed", "retries_exhausted", "rejected_status", "shutdown"};

enum req_result { RQ_OK, RQ_RETRYABLE, RQ_FAILED, RQ__N };
static const char *const req_names[RQ__N] = {"ok", "retryable", "failed"};

/* last_error: > 0 an HTTP status, < 0 one of these. */
enum err_code {
	E_NONE = 0,
	E_TIMEOUT = -1,
	E_CONNECT = -2,
	E_DNS = -3,
	E_RESET = -4,
	E_EMPTY = -5,
	E_TLS = -6,
	E_TRANSPORT = -7,
	E_ABORTED = -8,
	E_ENCODE = -9,
	E_PARTIAL = -10,
	E_BAD_RESPONSE = -11,
};

struct enav_otlp_worker {
	/* configuration (strings owned) */
	char *signal, *url, *ca_file, *cert_file, *key_file;
	uint32_t timeout_ms, cap, batch_max, batch_delay_ms, backoff_init_ms, backoff_max_ms,
	    max_elapsed_ms, breaker_failures, breaker_cool_ms;
	size_t max_request;
	bool gzip;
	enav_otlp_encode_fn encode;
	enav_otlp_free_fn free_item;
	void *ctx;

	struct enav_export_worker *ew; /* queue, batching, retries, breaker, deadline */

	/* worker-thread state */
	uint8_t *body;	  /* the request in hand */
	void *body_alloc; /* what to free: body, or the buffer body lies in */
	size_t body_len;
	CURL *easy;
	CURLM *multi;
	struct curl_slist *hdrs;
	uint8_t *resp;
	size_t resp_len;
	bool resp_truncated;
	uint32_t retry_after_ms;

	/* self-accounting (the rest is the export worker's) */
	_Atomic uint64_t rejected, requests[RQ__N];
	_Atomic int last_error;
	_Atomic uint64_t last_error_unix_ns;
};

/* ---- small helpers -------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static char *dup_opt(const char *s)
{
	return s && s[0] ? strdup(s) : NULL;
}

static uint32_t or_default(uint32_t v, uint32_t def)
{
	return v ? v : def;
}

static bool past_deadline(struct enav_otlp_worker *w)
{
	return enav_export_worker_past_deadline(w->ew);
}

static void set_error(struct enav_otlp_worker *w, int code)
{
	atomic_store(&w->last_error, code);
	atomic_store(&w->last_error_unix_ns, enav_clock_unix_ns());
}

static void error_text(int code, char *buf, size_t cap)
{
	static const char *const names[] = {"",
					    "timeout",
					    "connect_failed",
					    "dns",
					    "connection_reset",
					    "empty_reply",
					    "tls",
					    "transport",
					    "aborted_at_shutdown",
					    "encode_failed",
					    "partial_success",
					    "bad_response"};
	if (code > 0)
		snprintf(buf, cap, "http_%d", code);
	else if (-code < (int)(sizeof(names) / sizeof(names[0])))
		snprintf(buf, cap, "%s", names[-code]);
	else
		snprintf(buf, cap, "unknown");
}

static int curl_error_code(CURLcode rc)
{
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return E_TIMEOUT;
	case CURLE_COULDNT_CONNECT:
		return E_CONNECT;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return E_DNS;
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_PARTIAL_FILE:
		return E_RESET;
	case CURLE_GOT_NOTHING:
		return E_EMPTY;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ENGINE_NOTFOUND:
	case CURLE_SSL_ENGINE_SETFAILED:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_SSL_CRL_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
	case CURLE_SSL_CLIENTCERT:
		return E_TLS;
	case CURLE_ABORTED_BY_CALLBACK:
		return E_ABORTED;
	default:
		return E_TRANSPORT;
	}
}

/* ---- libcurl callbacks ---------------------------------------------------- */

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct enav_otlp_worker *w = arg;
	size_t n = size * nmemb;
	size_t room = RESPONSE_CAP - w->resp_len;
	if (n > room)
		w->resp_truncated = true;
	size_t keep = n < room ? n : room;
	memcpy(w->resp + w->resp_len, ptr, keep);
	w->resp_len += keep;
	return n; /* read and discard the rest */
}

bool enav_otlp_retry_after(const char *line, size_t n, time_t now, uint64_t cap_ms, uint32_t *ms)
{
	static const char name[] = "retry-after:";
	if (n <= sizeof(name) - 1 || strncasecmp(line, name, sizeof(name) - 1) != 0)
		return false;
	size_t i = sizeof(name) - 1;
	while (i < n && (line[i] == ' ' || line[i] == '\t'))
		i++;
	size_t len = n - i;
	while (len && (line[i + len - 1] == '\r' || line[i + len - 1] == '\n' ||
		       line[i + len - 1] == ' ' || line[i + len - 1] == '\t'))
		len--;
	const char *v = line + i;
	/* A NUL would end the value early for strtoull and curl_getdate: "5\0junk"
	 * is not the delay 5. */
	if (len == 0 || len >= 64 || memchr(v, '\0', len))
		return false;
	uint64_t secs = 0;
	if (v[0] >= '0' && v[0] <= '9') {
		/* delta-seconds = 1*DIGIT (RFC 9110 10.2.3).  Digits alone: no sign,
		 * blank or junk; more than we can count is as good as the cap. */
		for (size_t k = 0; k < len; k++) {
			if (v[k] < '0' || v[k] > '9')
				return false;
			secs = secs < UINT64_MAX / 10 ? secs * 10 + (uint64_t)(v[k] - '0')
						      : UINT64_MAX;
		}
	} else {
		char date[64];
		memcpy(date, v, len);
		date[len] = '\0';
		time_t t = curl_getdate(date, NULL);
		if (t == (time_t)-1 || t <= now)
			return false;
		secs = (uint64_t)t - (uint64_t)now;
	}
	uint64_t m = secs > cap_ms / 1000 ? cap_ms : secs * 1000;
	*ms = (uint32_t)(m > UINT32_MAX ? UINT32_MAX : m);
	return true;
}

static size_t on_header(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct enav_otlp_worker *w = arg;
	size_t n = size * nmemb;
	uint32_t ms;
	if (enav_otlp_retry_after(ptr, n, time(NULL), (uint64_t)w->backoff_max_ms * 4, &ms))
		w->retry_after_ms = ms;
	return n;
}

static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	return past_deadline(arg) ? 1 : 0;
}

/* ---- one request ---------------------------------------------------------- */

static bool retryable_status(long s)
{
	return s == 429 || s == 502 || s == 503 || s == 504;
}

static enum enav_export_result post(struct enav_otlp_worker *w, const uint8_t *body, size_t len,
				    size_t n_items)
{
	w->resp_len = 0;
	w->resp_truncated = false;
	w->retry_after_ms = 0;
	curl_easy_setopt(w->easy, CURLOPT_POSTFIELDS, (const char *)body);
	curl_easy_setopt(w->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	if (curl_multi_add_handle(w->multi, w->easy) != CURLM_OK) {
		atomic_fetch_add(&w->requests[RQ_RETRYABLE], 1);
		set_error(w, E_TRANSPORT);
		return ENAV_EXPORT_UNREACHABLE;
	}
	bool aborted = false, broken = false;
	for (;;) {
		int running = 0;
		if (curl_multi_perform(w->multi, &running) != CURLM_OK) {
			broken = true;
			break;
		}
		if (!running)
			break;
		if (past_deadline(w)) {
			aborted = true;
			break;
		}
		int tmo = 1000;
		uint64_t left = enav_export_worker_ms_left(w->ew);
		if (left < (uint64_t)tmo)
			tmo = (int)left;
		if (curl_multi_poll(w->multi, NULL, 0, tmo, NULL) != CURLM_OK) {
			broken = true;
			break;
		}
	}
	CURLcode rc = aborted ? CURLE_ABORTED_BY_CALLBACK : CURLE_RECV_ERROR;
	if (!aborted && !broken) {
		CURLMsg *m;
		int left;
		while ((m = curl_multi_info_read(w->multi, &left)))
			if (m->msg == CURLMSG_DONE && m->easy_handle == w->easy)
				rc = m->data.result;
	}
	curl_multi_remove_handle(w->multi, w->easy);

	if (rc != CURLE_OK) {
		int code = curl_error_code(rc);
		set_error(w, code);
		if (code == E_ABORTED || past_deadline(w)) {
			atomic_fetch_add(&w->requests[RQ_RETRYABLE], 1);
			return ENAV_EXPORT_ABORTED;
		}
		char text[32];
		error_text(code, text, sizeof(text));
		enav_debug("otlp %s: request failed: %s", w->signal, text);
		atomic_fetch_add(&w->requests[RQ_RETRYABLE], 1);
		return ENAV_EXPORT_UNREACHABLE;
	}
	long status = 0;
	curl_easy_getinfo(w->easy, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 200 && status < 300) {
		atomic_fetch_add(&w->requests[RQ_OK], 1);
		if (w->resp_len && !w->resp_truncated) {
			int64_t rejected = 0;
			char msg[256] = "";
			if (enav_otlp_decode_partial_success(w->resp, w->resp_len, &rejected, msg,
							     sizeof(msg)) != 0) {
				set_error(w, E_BAD_RESPONSE);
				enav_debug("otlp %s: unparseable response body (%zu bytes)",
					   w->signal, w->resp_len);
			} else if (rejected > 0) {
				atomic_fetch_add(&w->rejected, (uint64_t)rejected);
				set_error(w, E_PARTIAL);
				for (char *c = msg; *c; c++)
					if ((unsigned char)*c < 0x20 || *c == 0x7f)
						*c = ' ';
				enav_warn("otlp %s: receiver rejected %" PRId64
					  " of a batch of %zu "
					  "item(s): %.200s",
					  w->signal, rejected, n_items, msg);
			}
		}
		return ENAV_EXPORT_SENT;
	}
	set_error(w, status > 0 && status < 1000 ? (int)status : E_BAD_RESPONSE);
	if (retryable_status(status)) {
		atomic_fetch_add(&w->requests[RQ_RETRYABLE], 1);
		return ENAV_EXPORT_RETRY;
	}
	atomic_fetch_add(&w->requests[RQ_FAILED], 1);
	enav_warn("otlp %s: receiver answered HTTP %ld; %zu item(s) dropped (not retryable)",
		  w->signal, status, n_items);
	return ENAV_EXPORT_REJECTED;
}

/* ---- the transport of the export worker ----------------------------------- */

static enum enav_export_prepared otlp_prepare(void *ctx, void **items, size_t n, void **body,
					      size_t *n_body)
{
	struct enav_otlp_worker *w = ctx;
	struct enav_pb_writer pw;
	enav_pb_writer_init(&pw, w->max_request);
	int rc = w->encode(w->ctx, (void *const *)items, n, &pw);
	for (size_t i = 0; i < n; i++)
		w->free_item(items[i]);
	*n_body = n;
	if (rc != 0 || pw.failed || pw.depth != 0) {
		enav_pb_writer_free(&pw);
		set_error(w, E_ENCODE);
		enav_warn("otlp %s: encoding a batch of %zu item(s) failed (%s); dropped",
			  w->signal, n, rc ? strerror(-rc) : "size limit");
		return ENAV_EXPORT_ENCODE_FAILED;
	}
	w->body = pw.buf;
	w->body_len = pw.len;
	w->body_alloc = enav_pb_writer_storage(&pw);
	if (w->gzip) {
		uint8_t *z;
		size_t zlen;
		if (enav_gzip_compress(pw.buf, pw.len, &z, &zlen) != 0) {
			enav_pb_writer_free(&pw);
			set_error(w, E_ENCODE);
			enav_warn("otlp %s: compressing a batch failed; dropped", w->signal);
			return ENAV_EXPORT_ENCODE_FAILED;
		}
		enav_pb_writer_free(&pw); /* one body in memory */
		w->body = w->body_alloc = z;
		w->body_len = zlen;
	}
	*body = w;
	return ENAV_EXPORT_READY;
}

static enum enav_export_result otlp_send(void *ctx, void *body, size_t n, uint32_t *retry_after_ms)
{
	struct enav_otlp_worker *w = ctx;
	enum enav_export_result o = post(w, w->body, w->body_len, n);
	*retry_after_ms = w->retry_after_ms;
	return o;
}

static void otlp_release(void *ctx, void *body)
{
	struct enav_otlp_worker *w = ctx;
	free(w->body_alloc);
	w->body = w->body_alloc = NULL;
}

static void otlp_free_item(void *ctx, void *item)
{
	struct enav_otlp_worker *w = ctx;
	w->free_item(item);
}

static void otlp_give_up(void *ctx, size_t n, unsigned attempts)
{
	struct enav_otlp_worker *w = ctx;
	char text[32];
	error_text(atomic_load(&w->last_error), text, sizeof(text));
	enav_warn("otlp %s: giving up a batch of %zu item(s) after %u attempt(s) "
		  "(last error %s)",
		  w->signal, n, attempts, text);
}

static void otlp_wake(void *ctx)
{
	struct enav_otlp_worker *w = ctx;
	curl_multi_wakeup(w->multi); /* a request in flight re-checks the deadline */
}

static const struct enav_export_transport otlp_transport = {
    .prepare = otlp_prepare,
    .send = otlp_send,
    .release = otlp_release,
    .free_item = otlp_free_item,
    .give_up = otlp_give_up,
    .wake = otlp_wake,
};

/* ---- lifecycle ------------------------------------------------------------ */

static void destroy(struct enav_otlp_worker *w)
{
	if (w->easy)
		curl_easy_cleanup(w->easy);
	if (w->multi)
		curl_multi_cleanup(w->multi);
	curl_slist_free_all(w->hdrs);
	free(w->signal);
	free(w->url);
	free(w->ca_file);
	free(w->cert_file);
	free(w->key_file);
	free(w->resp);
	free(w);
}

static bool add_header(struct enav_otlp_worker *w, const char *h)
{
	struct curl_slist *n = curl_slist_append(w->hdrs, h);
	if (!n)
		return false;
	w->hdrs = n;
	return true;
}

static bool setup_curl(struct enav_otlp_worker *w, const struct enav_otlp_worker_config *cfg)
{
	w->easy = curl_easy_init();
	w->multi = curl_multi_init();
	if (!w->easy || !w->multi)
		return false;
	if (!add_header(w, "Content-Type: application/x-protobuf") || !add_header(w, "Expect:") ||
	    (w->gzip && !add_header(w, "Content-Encoding: gzip")))
		return false;
	for (size_t i = 0; i < cfg->n_headers; i++)
		if (!add_header(w, cfg->headers[i]))
			return false;
	CURL *e = w->easy;
	curl_easy_setopt(e, CURLOPT_URL, w->url);
	curl_easy_setopt(e, CURLOPT_POST, 1L);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, w->hdrs);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)w->timeout_ms);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)w->timeout_ms);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_USERAGENT, "e-navigator/" ENAV_VERSION);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, w);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, w);
	curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(e, CURLOPT_XFERINFODATA, w);
	curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	if (strncasecmp(w->url, "https://", 8) == 0) {
		if (w->ca_file)
			curl_easy_setopt(e, CURLOPT_CAINFO, w->ca_file);
		if (w->cert_file)
			curl_easy_setopt(e, CURLOPT_SSLCERT, w->cert_file);
		if (w->key_file)
			curl_easy_setopt(e, CURLOPT_SSLKEY, w->key_file);
	}
	return true;
}

struct enav_otlp_worker *enav_otlp_worker_start(const struct enav_otlp_worker_config *cfg,
						enav_otlp_encode_fn encode,
						enav_otlp_free_fn free_item, void *ctx, char *err,
						size_t errlen)
{
	if (!cfg || !encode || !free_item || !cfg->signal || !cfg->signal[0] || !cfg->url) {
		snprintf(err, errlen, "otlp worker: signal, url, encode and free are required");
		return NULL;
	}
	if (strncasecmp(cfg->url, "http://", 7) != 0 && strncasecmp(cfg->url, "https://", 8) != 0) {
		snprintf(err, errlen, "otlp %s: endpoint must be an http:// or https:// URL",
			 cfg->signal);
		return NULL;
	}
	if (cfg->n_headers > ENAV_OTLP_MAX_HEADERS) {
		snprintf(err, errlen, "otlp %s: at most %d headers", cfg->signal,
			 ENAV_OTLP_MAX_HEADERS);
		return NULL;
	}
	for (size_t i = 0; i < cfg->n_headers; i++) {
		const char *h = cfg->headers[i];
		const char *colon = h ? strchr(h, ':') : NULL;
		if (!colon || colon == h || strpbrk(h, "\r\n")) {
			/* the index only: the value may be a secret */
			snprintf(err, errlen, "otlp %s: header %zu is not \"Name: value\"",
				 cfg->signal, i + 1);
			return NULL;
		}
	}
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK) {
		snprintf(err, errlen, "otlp %s: curl_global_init failed", cfg->signal);
		return NULL;
	}
	struct enav_otlp_worker *w = calloc(1, sizeof(*w));
	if (!w) {
		snprintf(err, errlen, "otlp %s: out of memory", cfg->signal);
		return NULL;
	}
	w->timeout_ms = or_default(cfg->timeout_ms, DEF_TIMEOUT_MS);
	w->cap = or_default(cfg->queue_capacity, DEF_QUEUE);
	w->batch_max = or_default(cfg->batch_max_items, DEF_BATCH);
	w->batch_delay_ms = cfg->batch_max_delay_ms;
	w->backoff_init_ms = or_default(cfg->backoff_initial_ms, DEF_BACKOFF_INIT_MS);
	w->backoff_max_ms = or_default(cfg->backoff_max_ms, DEF_BACKOFF_MAX_MS);
	if (w->backoff_max_ms < w->backoff_init_ms)
		w->backoff_max_ms = w->backoff_init_ms;
	w->max_elapsed_ms = or_default(cfg->max_elapsed_ms, DEF_MAX_ELAPSED_MS);
	w->breaker_failures = or_default(cfg->breaker_failures, DEF_BREAKER_FAILURES);
	w->breaker_cool_ms = or_default(cfg->breaker_cooldown_ms, DEF_BREAKER_COOL_MS);
	w->max_request = cfg->max_request_bytes ? cfg->max_request_bytes : DEF_MAX_REQUEST;
	w->gzip = cfg->gzip;
	w->encode = encode;
	w->free_item = free_item;
	w->ctx = ctx;
	w->signal = strdup(cfg->signal);
	w->url = strdup(cfg->url);
	w->ca_file = dup_opt(cfg->ca_file);
	w->cert_file = dup_opt(cfg->cert_file);
	w->key_file = dup_opt(cfg->key_file);
	w->resp = malloc(RESPONSE_CAP);
	if (!w->signal || !w->url || (cfg->ca_file && cfg->ca_file[0] && !w->ca_file) ||
	    (cfg->cert_file && cfg->cert_file[0] && !w->cert_file) ||
	    (cfg->key_file && cfg->key_file[0] && !w->key_file) || !w->resp ||
	    !setup_curl(w, cfg)) {
		snprintf(err, errlen, "otlp %s: out of memory", cfg->signal);
		destroy(w);
		return NULL;
	}
	char name[64];
	snprintf(name, sizeof(name), "otlp %s", w->signal);
	struct enav_export_worker_config ec = {
	    .name = name,
	    .queue_capacity = w->cap,
	    .batch_max_items = w->batch_max,
	    .batch_max_delay_ms = w->batch_delay_ms,
	    .backoff_initial_ms = w->backoff_init_ms,
	    .backoff_max_ms = w->backoff_max_ms,
	    .max_elapsed_ms = w->max_elapsed_ms,
	    .breaker_failures = w->breaker_failures,
	    .breaker_cooldown_ms = w->breaker_cool_ms,
	    .log_stop = true,
	};
	w->ew = enav_export_worker_start(&ec, &otlp_transport, w, err, errlen);
	if (!w->ew) {
		destroy(w);
		return NULL;
	}
	return w;
}

bool enav_otlp_worker_submit(struct enav_otlp_worker *w, void *item)
{
	if (!w) {
		return false;
	}
	return enav_export_worker_submit(w->ew, item);
}

void enav_otlp_worker_stop(struct enav_otlp_worker *w, uint64_t deadline_mono_ns)
{
	if (!w)
		return;
	enav_export_worker_stop(w->ew, deadline_mono_ns);
	destroy(w);
}

/* ---- metrics -------------------------------------------------------------- */

enum field { F_DEPTH, F_SENT, F_REJECTED, F_RETRIES, F_BREAKER };

static uint64_t field_value(struct enav_otlp_worker *w, enum field f)
{
	struct enav_export_stats st;
	enav_export_worker_stats(w->ew, &st);
	switch (f) {
	case F_DEPTH:
		return st.depth;
	case F_SENT:
		return st.sent;
	case F_REJECTED:
		return atomic_load(&w->rejected);
	case F_RETRIES:
		return st.retries;
	case F_BREAKER:
	default:
		return (uint64_t)st.breaker;
	}
}

/* One family with a sample per worker (NULL entries skipped). */
static void family(struct enav_otlp_worker *const *workers, size_t n, struct enav_promtext *p,
		   const char *name, const char *type, const char *help, enum field f)
{
	enav_promtext_family(p, name, type, help);
	for (size_t i = 0; i < n; i++) {
		if (!workers[i])
			continue;
		const char *l[] = {"signal", workers[i]->signal};
		enav_promtext_sample_u64(p, name, l, 1, field_value(workers[i], f));
	}
}

void enav_otlp_worker_metrics(struct enav_otlp_worker *const *workers, size_t n,
			      struct enav_promtext *p)
{
	if (!n)
		return;
	family(workers, n, p, "enav_otlp_queue_depth", "gauge",
	       "Items waiting in the OTLP export queue.", F_DEPTH);
	family(workers, n, p, "enav_otlp_items_sent_total", "counter",
	       "Items in OTLP requests the receiver accepted (2xx).", F_SENT);
	enav_promtext_family(p, "enav_otlp_items_dropped_total", "counter",
			     "Items not delivered to the OTLP receiver, by reason.");
	for (size_t i = 0; i < n; i++) {
		if (!workers[i])
			continue;
		struct enav_export_stats st;
		enav_export_worker_stats(workers[i]->ew, &st);
		for (int r = 0; r < ENAV_EXPORT_DROP__N; r++) {
			const char *l[] = {"signal", workers[i]->signal, "reason", drop_names[r]};
			enav_promtext_sample_u64(p, "enav_otlp_items_dropped_total", l, 2,
						 st.drops[r]);
		}
	}
	family(workers, n, p, "enav_otlp_items_rejected_total", "counter",
	       "Data points, spans, log records or profiles the receiver rejected in a "
	       "partial_success (its units, not retried).",
	       F_REJECTED);
	enav_promtext_family(p, "enav_otlp_requests_total", "counter",
			     "OTLP export requests by result (ok = 2xx, retryable = 429, 502, "
			     "503, 504 or no answer, failed = any other status).");
	for (size_t i = 0; i < n; i++)
		for (int r = 0; workers[i] && r < RQ__N; r++) {
			const char *l[] = {"signal", workers[i]->signal, "result", req_names[r]};
			enav_promtext_sample_u64(p, "enav_otlp_requests_total", l, 2,
						 atomic_load(&workers[i]->requests[r]));
		}
	family(workers, n, p, "enav_otlp_retries_total", "counter",
	       "OTLP requests that repeated a batch after a retryable failure.", F_RETRIES);
	family(workers, n, p, "enav_otlp_breaker_state", "gauge",
	       "OTLP circuit breaker: 0 closed, 1 open, 2 half-open (probing).", F_BREAKER);
	enav_promtext_family(p, "enav_otlp_last_error_info", "gauge",
			     "The last OTLP export error of each signal (http_<status>, timeout, "
			     "connect_failed, connection_reset, ...).");
	for (size_t i = 0; i < n; i++) {
		int code = workers[i] ? atomic_load(&workers[i]->last_error) : E_NONE;
		if (code == E_NONE)
			continue;
		char text[32];
		error_text(code, text, sizeof(text));
		const char *l[] = {"signal", workers[i]->signal, "error", text};
		enav_promtext_sample_u64(p, "enav_otlp_last_error_info", l, 2, 1);
	}
	enav_promtext_family(p, "enav_otlp_last_error_timestamp_seconds", "gauge",
			     "Unix time of the last OTLP export error (0 = none yet).");
	for (size_t i = 0; i < n; i++) {
		if (!workers[i])
			continue;
		const char *l[] = {"signal", workers[i]->signal};
		enav_promtext_sample(p, "enav_otlp_last_error_timestamp_seconds", l, 1,
				     (double)atomic_load(&workers[i]->last_error_unix_ns) / 1e9);
	}
}
