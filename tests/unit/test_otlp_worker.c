/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the OTLP/HTTP export worker (src/exporters/otlp/otlp_worker.c)
 * against an in-process fake receiver (libmicrohttpd on 127.0.0.1, an
 * ephemeral port) that answers each request from a script: 200, 200 with a
 * partial_success, 429 + Retry-After, 502/503/504, 4xx/5xx/3xx, a hang, a
 * dropped connection, a slow answer or slow reads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "platform/promtext.h"
#include "platform/protobuf.h"
#include "exporters/otlp/otlp_worker.h"

/* A regression check: print what went wrong, then fail. */
#define FAIL_IF(cond, ...)                                                                         \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_message(__VA_ARGS__);                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define MS 1000000ull

/* ---- fake receiver -------------------------------------------------------- */

enum act {
	A_OK,
	A_PARTIAL, /* 200 with partial_success {rejected 2, "bad points"} */
	A_429_RA1, /* 429 + Retry-After: 1 */
	A_502,
	A_503,
	A_504,
	A_400,
	A_401,
	A_404,
	A_413,
	A_500,
	A_301,
	A_HANG,	     /* no answer until released or hang_ms, then drop the connection */
	A_RESET,     /* drop the connection without answering */
	A_SLOW_OK,   /* 300 ms, then 200 */
	A_SLOW_READ, /* 20 ms per chunk of the upload, then 200 */
};

#define MAX_RECS 64

struct rec {
	uint64_t t_ns; /* headers received */
	int act;
	bool done;
	uint8_t *body;
	size_t len;
	char ctype[64], cenc[32], apikey[64];
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct MHD_Daemon *d;
	char url[64];
	int script[32];
	size_t n_script;
	int dflt;
	uint32_t hang_ms;
	bool releasing;
	struct rec recs[MAX_RECS];
	size_t n_recs; /* requests seen (also beyond MAX_RECS) */
} srv;

struct conn_req {
	size_t idx;
	int act;
	uint8_t *buf;
	size_t len;
};

static void copy_header(struct MHD_Connection *c, const char *name, char *dst, size_t cap)
{
	const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
	snprintf(dst, cap, "%s", v ? v : "");
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned status, const void *body,
			      size_t len, const char *retry_after)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, "Content-Type", "application/x-protobuf");
	/* No connection reuse: libcurl's silent retry of a request on a reused
	 * connection that died would make the request counts ambiguous. */
	MHD_add_response_header(r, "Connection", "close");
	if (retry_after)
		MHD_add_response_header(r, "Retry-After", retry_after);
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static void srv_sleep(uint32_t ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t t = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + ms * MS;
	ts.tv_sec = (time_t)(t / 1000000000ull);
	ts.tv_nsec = (long)(t % 1000000000ull);
	pthread_mutex_lock(&srv.lock);
	while (!srv.releasing && pthread_cond_timedwait(&srv.cv, &srv.lock, &ts) == 0)
		;
	pthread_mutex_unlock(&srv.lock);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct conn_req *r = *con_cls;
	if (!r) {
		r = calloc(1, sizeof(*r));
		if (!r)
			return MHD_NO;
		*con_cls = r;
		pthread_mutex_lock(&srv.lock);
		r->idx = srv.n_recs++;
		r->act = r->idx < srv.n_script ? srv.script[r->idx] : srv.dflt;
		if (r->idx < MAX_RECS) {
			struct rec *k = &srv.recs[r->idx];
			k->t_ns = enav_clock_mono_ns();
			k->act = r->act;
			copy_header(c, "Content-Type", k->ctype, sizeof(k->ctype));
			copy_header(c, "Content-Encoding", k->cenc, sizeof(k->cenc));
			copy_header(c, "X-Api-Key", k->apikey, sizeof(k->apikey));
		}
		pthread_cond_broadcast(&srv.cv);
		pthread_mutex_unlock(&srv.lock);
		return MHD_YES;
	}
	if (*upload_size) {
		if (r->act == A_SLOW_READ)
			srv_sleep(20);
		uint8_t *nb = realloc(r->buf, r->len + *upload_size);
		if (!nb)
			return MHD_NO;
		memcpy(nb + r->len, upload, *upload_size);
		r->buf = nb;
		r->len += *upload_size;
		*upload_size = 0;
		return MHD_YES;
	}
	if (r->idx < MAX_RECS) {
		pthread_mutex_lock(&srv.lock);
		struct rec *k = &srv.recs[r->idx];
		k->body = r->buf;
		k->len = r->len;
		k->done = true;
		r->buf = NULL;
		pthread_cond_broadcast(&srv.cv);
		pthread_mutex_unlock(&srv.lock);
	}
	switch (r->act) {
	case A_OK:
	case A_SLOW_READ:
		return answer(c, 200, "", 0, NULL);
	case A_PARTIAL: {
		struct enav_pb_writer w;
		enav_pb_writer_init(&w, 0);
		enav_pb_begin(&w, 1);	  /* partial_success */
		enav_pb_varint(&w, 1, 2); /* rejected_data_points */
		enav_pb_string(&w, 2, "bad points");
		enav_pb_end(&w);
		enum MHD_Result ret = answer(c, 200, w.buf, w.len, NULL);
		enav_pb_writer_free(&w);
		return ret;
	}
	case A_429_RA1:
		return answer(c, 429, "", 0, "1");
	case A_502:
		return answer(c, 502, "", 0, NULL);
	case A_503:
		return answer(c, 503, "", 0, NULL);
	case A_504:
		return answer(c, 504, "", 0, NULL);
	case A_400:
		return answer(c, 400, "bad", 3, NULL);
	case A_401:
		return answer(c, 401, "", 0, NULL);
	case A_404:
		return answer(c, 404, "", 0, NULL);
	case A_413:
		return answer(c, 413, "", 0, NULL);
	case A_500:
		return answer(c, 500, "", 0, NULL);
	case A_301:
		return answer(c, 301, "", 0, NULL);
	case A_HANG:
		srv_sleep(srv.hang_ms);
		return MHD_NO;
	case A_SLOW_OK:
		srv_sleep(300);
		return answer(c, 200, "", 0, NULL);
	case A_RESET:
	default:
		return MHD_NO;
	}
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct conn_req *r = *con_cls;
	if (r) {
		free(r->buf);
		free(r);
	}
	*con_cls = NULL;
}

static void srv_script(int dflt, size_t n, const int *acts)
{
	pthread_mutex_lock(&srv.lock);
	srv.dflt = dflt;
	if (n)
		memcpy(srv.script, acts, n * sizeof(*acts));
	srv.n_script = n;
	pthread_mutex_unlock(&srv.lock);
}

static size_t srv_count(void)
{
	pthread_mutex_lock(&srv.lock);
	size_t n = srv.n_recs;
	pthread_mutex_unlock(&srv.lock);
	return n;
}

static int srv_start(void **state)
{
	pthread_mutex_init(&srv.lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&srv.cv, &attr);
	pthread_condattr_destroy(&attr);
	srv.n_script = 0;
	srv.dflt = A_OK;
	srv.hang_ms = 5000;
	srv.releasing = false;
	srv.n_recs = 0;
	memset(srv.recs, 0, sizeof(srv.recs));
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
	inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
	srv.d = MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL, 0, NULL,
	    NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
	    MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
	    (size_t)16384, MHD_OPTION_END);
	if (!srv.d)
		return -1;
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv.d, MHD_DAEMON_INFO_BIND_PORT);
	if (!info || !info->port)
		return -1;
	snprintf(srv.url, sizeof(srv.url), "http://127.0.0.1:%u/v1/metrics", info->port);
	return 0;
}

static int srv_stop(void **state)
{
	pthread_mutex_lock(&srv.lock);
	srv.releasing = true;
	pthread_cond_broadcast(&srv.cv);
	pthread_mutex_unlock(&srv.lock);
	MHD_stop_daemon(srv.d);
	for (size_t i = 0; i < MAX_RECS; i++)
		free(srv.recs[i].body);
	memset(srv.recs, 0, sizeof(srv.recs));
	pthread_cond_destroy(&srv.cv);
	pthread_mutex_destroy(&srv.lock);
	return 0;
}

/* ---- items and encoder ---------------------------------------------------- */

static atomic_uint g_frees;

static void item_free(void *p)
{
	atomic_fetch_add(&g_frees, 1);
	free(p);
}

/* Items are strings; a request is field 1 repeated.  "FAIL" fails the batch. */
static int item_encode(void *ctx, void *const *items, size_t n, struct enav_pb_writer *w)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(items[i], "FAIL") == 0)
			return -EINVAL;
		enav_pb_string(w, 1, items[i]);
	}
	return 0;
}

static size_t body_items(const uint8_t *body, size_t len)
{
	struct enav_pb_reader r = {body, body + len};
	struct enav_pb_field f;
	size_t n = 0;
	int rc;
	while ((rc = enav_pb_next(&r, &f)) == 1)
		n += f.number == 1;
	return rc == 0 ? n : (size_t)-1;
}

static bool submit(struct enav_otlp_worker *w, const char *s)
{
	return enav_otlp_worker_submit(w, strdup(s));
}

static struct enav_otlp_worker_config base_cfg(void)
{
	return (struct enav_otlp_worker_config){
	    .signal = "test",
	    .url = srv.url,
	    .timeout_ms = 1000,
	    .queue_capacity = 64,
	    .batch_max_items = 1,
	    .batch_max_delay_ms = 0,
	    .backoff_initial_ms = 10,
	    .backoff_max_ms = 40,
	    .max_elapsed_ms = 5000,
	    .breaker_failures = 100,
	    .breaker_cooldown_ms = 500,
	};
}

static struct enav_otlp_worker *start(const struct enav_otlp_worker_config *cfg)
{
	char err[256] = "";
	atomic_store(&g_frees, 0);
	struct enav_otlp_worker *w =
	    enav_otlp_worker_start(cfg, item_encode, item_free, NULL, err, sizeof(err));
	FAIL_IF(!w, "start failed: %s\n", err);
	return w;
}

static void stop(struct enav_otlp_worker *w)
{
	enav_otlp_worker_stop(w, enav_clock_mono_ns() + 2000 * MS);
}

/* ---- metrics -------------------------------------------------------------- */

static char g_text[32768];

static const char *render(struct enav_otlp_worker *w)
{
	struct enav_promtext p;
	enav_promtext_init(&p, g_text, sizeof(g_text));
	enav_otlp_worker_metrics(&w, 1, &p);
	return g_text;
}

/* The value of name{signal="test"[,extra]}; -1 when absent. */
static double metric(struct enav_otlp_worker *w, const char *name, const char *extra)
{
	const char *text = render(w);
	char key[256];
	snprintf(key, sizeof(key), "\n%s{signal=\"test\"%s%s} ", name, extra ? "," : "",
		 extra ? extra : "");
	const char *p = strstr(text, key);
	if (!p)
		return -1;
	return strtod(p + strlen(key), NULL);
}

#define M(w, name, extra) ((long long)metric((w), (name), (extra)))
#define SENT(w)		  M(w, "enav_otlp_items_sent_total", NULL)
#define RETRIES(w)	  M(w, "enav_otlp_retries_total", NULL)
#define DROPPED(w, why)	  M(w, "enav_otlp_items_dropped_total", "reason=\"" why "\"")
#define REQS(w, res)	  M(w, "enav_otlp_requests_total", "result=\"" res "\"")
#define BREAKER(w)	  M(w, "enav_otlp_breaker_state", NULL)

/* Poll cond every 2 ms for up to ms; false on timeout. */
#define WAIT_FOR(cond, ms)                                                                         \
	({                                                                                         \
		uint64_t until_ = enav_clock_mono_ns() + (uint64_t)(ms)*MS;                        \
		bool ok_;                                                                          \
		while (!(ok_ = (cond)) && enav_clock_mono_ns() < until_)                           \
			usleep(2000);                                                              \
		ok_;                                                                               \
	})

static void assert_no_drops(struct enav_otlp_worker *w)
{
	static const char *const reasons[] = {"queue_full", "encode_failed", "retries_exhausted",
					      "rejected_status", "shutdown"};
	for (size_t i = 0; i < 5; i++) {
		char extra[64];
		snprintf(extra, sizeof(extra), "reason=\"%s\"", reasons[i]);
		double v = metric(w, "enav_otlp_items_dropped_total", extra);
		FAIL_IF(v != 0, "dropped{%s} = %g, want 0\n", reasons[i], v);
	}
}

/* ---- stderr capture (log lines) ------------------------------------------- */

static int g_saved_fd = -1;
static FILE *g_cap;

static void capture_start(void)
{
	fflush(stderr);
	g_cap = tmpfile();
	assert_non_null(g_cap);
	g_saved_fd = dup(2);
	dup2(fileno(g_cap), 2);
}

/* Restores stderr, echoes what was captured there and returns it (malloc'd). */
static char *capture_end(void)
{
	fflush(stderr);
	dup2(g_saved_fd, 2);
	close(g_saved_fd);
	long n = ftell(g_cap);
	char *s = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
	rewind(g_cap);
	if (n > 0 && fread(s, 1, (size_t)n, g_cap) != (size_t)n)
		s[0] = '\0';
	fclose(g_cap);
	fputs(s, stderr);
	return s;
}

/* ---- tests ---------------------------------------------------------------- */

static void test_start_validation(void **state)
{
	char err[256];
	struct enav_otlp_worker_config c = base_cfg();
	c.url = "ftp://127.0.0.1/x";
	assert_null(enav_otlp_worker_start(&c, item_encode, item_free, NULL, err, sizeof(err)));
	FAIL_IF(!strstr(err, "http"), "err: %s\n", err);
	c = base_cfg();
	c.headers[0] = "no-colon-s3cr3t";
	c.n_headers = 1;
	assert_null(enav_otlp_worker_start(&c, item_encode, item_free, NULL, err, sizeof(err)));
	FAIL_IF(strstr(err, "s3cr3t"), "a header value leaked into the error: %s\n", err);
}

static void test_batching_and_headers(void **state)
{
	struct enav_otlp_worker_config c = base_cfg();
	c.batch_max_items = 4;
	c.batch_max_delay_ms = 150;
	c.headers[0] = "X-Api-Key: s3cr3t-key";
	c.n_headers = 1;
	struct enav_otlp_worker *w = start(&c);
	uint64_t t0 = enav_clock_mono_ns();
	for (int i = 0; i < 10; i++) {
		char s[16];
		snprintf(s, sizeof(s), "item-%d", i);
		assert_true(submit(w, s));
	}
	FAIL_IF(!WAIT_FOR(SENT(w) == 10, 3000), "sent %lld, want 10\n", SENT(w));
	assert_int_equal(srv_count(), 3);
	size_t want[] = {4, 4, 2};
	for (int i = 0; i < 3; i++) {
		struct rec *k = &srv.recs[i];
		FAIL_IF(body_items(k->body, k->len) != want[i], "request %d: %zu items\n", i,
			body_items(k->body, k->len));
		assert_string_equal(k->ctype, "application/x-protobuf");
		assert_string_equal(k->cenc, "");
		assert_string_equal(k->apikey, "s3cr3t-key");
	}
	/* the two full batches go at once, the partial one after its delay */
	FAIL_IF(srv.recs[1].t_ns - t0 > 100 * MS, "full batch waited %llu ms\n",
		(unsigned long long)((srv.recs[1].t_ns - t0) / MS));
	FAIL_IF(srv.recs[2].t_ns - t0 < 145 * MS, "partial batch sent after %llu ms (< 150)\n",
		(unsigned long long)((srv.recs[2].t_ns - t0) / MS));
	assert_int_equal(REQS(w, "ok"), 3);
	assert_int_equal(REQS(w, "retryable"), 0);
	assert_int_equal(RETRIES(w), 0);
	assert_int_equal(BREAKER(w), 0);
	assert_int_equal(M(w, "enav_otlp_queue_depth", NULL), 0);
	assert_no_drops(w);
	stop(w);
	assert_int_equal(atomic_load(&g_frees), 10);
}

static void test_gzip(void **state)
{
	struct enav_otlp_worker_config c = base_cfg();
	c.batch_max_items = 3;
	/* The three items make one full batch even when the worker wakes
	 * between two submits (a loaded machine). */
	c.batch_max_delay_ms = 2000;
	c.gzip = true;
	struct enav_otlp_worker *w = start(&c);
	const char *items[] = {"alpha", "beta beta beta beta", "gamma"};
	for (int i = 0; i < 3; i++)
		assert_true(submit(w, items[i]));
	FAIL_IF(!WAIT_FOR(SENT(w) == 3, 3000), "sent %lld\n", SENT(w));
	assert_int_equal(srv_count(), 1);
	struct rec *k = &srv.recs[0];
	assert_string_equal(k->cenc, "gzip");
	struct enav_pb_writer ref;
	enav_pb_writer_init(&ref, 0);
	assert_int_equal(item_encode(NULL, (void *const *)items, 3, &ref), 0);
	uint8_t out[1024];
	z_stream z = {0};
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = k->body;
	z.avail_in = (uInt)k->len;
	z.next_out = out;
	z.avail_out = sizeof(out);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	size_t n = z.total_out;
	inflateEnd(&z);
	assert_int_equal(n, ref.len);
	assert_memory_equal(out, ref.buf, n);
	enav_pb_writer_free(&ref);
	stop(w);
}

static void test_retry_statuses(void **state)
{
	int script[] = {A_503, A_502, A_504, A_OK};
	srv_script(A_OK, 4, script);
	struct enav_otlp_worker_config c = base_cfg();
	struct enav_otlp_worker *w = start(&c);
	assert_true(submit(w, "x"));
	FAIL_IF(!WAIT_FOR(SENT(w) == 1, 3000), "sent %lld\n", SENT(w));
	assert_int_equal(srv_count(), 4);
	assert_int_equal(RETRIES(w), 3);
	assert_int_equal(REQS(w, "retryable"), 3);
	assert_int_equal(REQS(w, "ok"), 1);
	assert_int_equal(REQS(w, "failed"), 0);
	assert_no_drops(w);
	FAIL_IF(
	    !strstr(render(w), "enav_otlp_last_error_info{signal=\"test\",error=\"http_504\"} 1"),
	    "last error:\n%s\n", g_text);
	stop(w);
}

static void test_no_retry_on_permanent(void **state)
{
	int script[] = {A_400, A_401, A_404, A_413, A_500, A_301};
	srv_script(A_OK, 6, script);
	struct enav_otlp_worker_config c = base_cfg();
	c.breaker_failures = 2; /* permanent answers are not breaker failures */
	struct enav_otlp_worker *w = start(&c);
	for (int i = 0; i < 6; i++)
		assert_true(submit(w, "x"));
	FAIL_IF(!WAIT_FOR(DROPPED(w, "rejected_status") == 6, 3000), "rejected_status %lld\n",
		DROPPED(w, "rejected_status"));
	usleep(100 * 1000); /* a retry would show up here */
	assert_int_equal(srv_count(), 6);
	assert_int_equal(RETRIES(w), 0);
	assert_int_equal(REQS(w, "failed"), 6);
	assert_int_equal(REQS(w, "retryable"), 0);
	assert_int_equal(BREAKER(w), 0);
	assert_true(submit(w, "y"));
	FAIL_IF(!WAIT_FOR(SENT(w) == 1, 3000), "sent %lld\n", SENT(w));
	assert_int_equal(srv_count(), 7);
	stop(w);
	assert_int_equal(atomic_load(&g_frees), 7);
}

static void test_retry_after(void **state)
{
	int script[] = {A_429_RA1, A_OK, A_429_RA1, A_OK};
	srv_script(A_OK, 4, script);
	struct enav_otlp_worker_config c = base_cfg();
	c.backoff_max_ms = 400; /* Retry-After is capped at 4 * backoff_max_ms = 1.6 s */
	struct enav_otlp_worker *w = start(&c);
	assert_true(submit(w, "x"));
	FAIL_IF(!WAIT_FOR(SENT(w) == 1, 4000), "sent %lld\n", SENT(w));
	assert_int_equal(srv_count(), 2);
	uint64_t gap = srv.recs[1].t_ns - srv.recs[0].t_ns;
	FAIL_IF(gap < 1000 * MS, "retried %llu ms after a Retry-After: 1\n",
		(unsigned long long)(gap / MS));
	FAIL_IF(gap > 1500 * MS, "retried only %llu ms after a Retry-After: 1\n",
		(unsigned long long)(gap / MS));
	assert_int_equal(RETRIES(w), 1);
	assert_int_equal(REQS(w, "retryable"), 1);
	assert_no_drops(w);
	stop(w);

	/* the cap: backoff_max_ms 50 -> at most 200 ms */
	c.backoff_max_ms = 50;
	w = start(&c);
	assert_true(submit(w, "y"));
	FAIL_IF(!WAIT_FOR(SENT(w) == 1, 4000), "sent %lld\n", SENT(w));
	assert_int_equal(srv_count(), 4);
	gap = srv.recs[3].t_ns - srv.recs[2].t_ns;
	FAIL_IF(gap < 200 * MS || gap > 800 * MS, "capped Retry-After: retried after %llu ms\n",
		(unsigned long long)(gap / MS));
	stop(w);
}

static void test_partial_success(void **state)
{
	int script[] = {A_PARTIAL};
	srv_script(A_OK, 1, script);
	struct enav_otlp_worker_config c = base_cfg();
	c.batch_max_items = 3;
	struct enav_otlp_worker *w = start(&c);
	for (int i = 0; i < 3; i++)
		assert_true(submit(w, "x"));
	FAIL_IF(!WAIT_FOR(SENT(w) == 3, 3000), "sent %lld\n", SENT(w));
	usleep(100 * 1000);
	assert_int_equal(srv_count(), 1);
	assert_int_equal(M(w, "enav_otlp_items_rejected_total", NULL), 2);
	assert_int_equal(RETRIES(w), 0);
	assert_int_equal(REQS(w, "ok"), 1);
	assert_no_drops(w);
	stop(w);
}

static void test_reset_and_timeout_retried(void **state)
{
	int script[] = {A_RESET, A_HANG, A_OK};
	srv_script(A_OK, 3, script);
	struct enav_otlp_worker_config c = base_cfg();
	c.timeout_ms = 300;
	struct enav_otlp_worker *w = start(&c);
	assert_true(submit(w, "x"));
	FAIL_IF(!WAIT_FOR(srv_count() >= 2, 3000), "requests %zu\n", srv_count());
	FAIL_IF(!WAIT_FOR(SENT(w) == 1, 3000), "sent %lld\n", SENT(w));
	assert_int_equal(srv_count(), 3);
	uint64_t gap = srv.recs[2].t_ns - srv.recs[1].t_ns;
	FAIL_IF(gap < 290 * MS, "the hung request ended after %llu ms (timeout 300)\n",
		(unsigned long long)(gap / MS));
	assert_int_equal(RETRIES(w), 2);
	assert_int_equal(REQS(w, "retryable"), 2);
	assert_no_drops(w);
	stop(w);
}

static void test_retries_exhausted(void **state)
{
	srv_script(A_503, 0, NULL);
	struct enav_otlp_worker_config c = base_cfg();
	c.batch_max_items = 2;
	c.backoff_initial_ms = 40;
	c.backoff_max_ms = 80;
	c.max_elapsed_ms = 300;
	c.batch_max_delay_ms = 300; /* one batch of 2 */
	struct enav_otlp_worker *w = start(&c);
	assert_true(submit(w, "a"));
	assert_true(submit(w, "b"));
	FAIL_IF(!WAIT_FOR(DROPPED(w, "retries_exhausted") == 2, 3000), "retries_exhausted %lld\n",
		DROPPED(w, "retries_exhausted"));
	long long reqs = REQS(w, "retryable");
	FAIL_IF((long long)srv_count() != reqs, "%zu requests received, %lld made\n", srv_count(),
		reqs);
	assert_int_equal(RETRIES(w), reqs - 1);
	/* 20..40, 40..80 ms, then 40..80 ms waits within 300 ms: at least 4 attempts */
	FAIL_IF(reqs < 4 || reqs > 12, "%lld attempts in 300 ms\n", reqs);
	assert_int_equal(SENT(w), 0);
	assert_int_equal(BREAKER(w), 0);
	stop(w);
}

static void test_breaker(void **state)
{
	int script[] = {A_RESET, A_RESET, A_RESET, A_RESET, A_SLOW_OK};
	srv_script(A_OK, 5, script);
	struct enav_otlp_worker_config c = base_cfg();
	c.breaker_failures = 3;
	c.breaker_cooldown_ms = 600;
	struct enav_otlp_worker *w = start(&c);
	assert_true(submit(w, "first"));
	FAIL_IF(!WAIT_FOR(BREAKER(w) == 1, 3000), "breaker %lld after %zu requests\n", BREAKER(w),
		srv_count());
	assert_int_equal(srv_count(), 3);
	/* open: new items are queued, no request is made */
	for (int i = 0; i < 5; i++)
		assert_true(submit(w, "queued"));
	assert_int_equal(M(w, "enav_otlp_queue_depth", NULL), 5);
	usleep(300 * 1000);
	assert_int_equal(srv_count(), 3);
	assert_int_equal(BREAKER(w), 1);
	/* the probe after the cooldown fails: open again for another cooldown */
	FAIL_IF(!WAIT_FOR(srv_count() == 4, 3000), "no probe\n");
	FAIL_IF(!WAIT_FOR(BREAKER(w) == 1, 1000), "breaker %lld after a failed probe\n",
		BREAKER(w));
	/* the second probe is slow: half-open while it is in flight */
	FAIL_IF(!WAIT_FOR(srv_count() == 5, 3000), "no second probe\n");
	assert_int_equal(BREAKER(w), 2);
	FAIL_IF(!WAIT_FOR(SENT(w) == 6, 3000), "sent %lld\n", SENT(w));
	assert_int_equal(BREAKER(w), 0);
	assert_int_equal(srv_count(), 10);
	uint64_t g1 = srv.recs[3].t_ns - srv.recs[2].t_ns, g2 = srv.recs[4].t_ns - srv.recs[3].t_ns;
	FAIL_IF(g1 < 600 * MS || g2 < 600 * MS, "probes after %llu and %llu ms (cooldown 600)\n",
		(unsigned long long)(g1 / MS), (unsigned long long)(g2 / MS));
	assert_int_equal(RETRIES(w), 4);
	assert_no_drops(w);
	stop(w);
}

static void test_queue_full_and_stop_while_hanging(void **state)
{
	srv_script(A_HANG, 0, NULL);
	struct enav_otlp_worker_config c = base_cfg();
	c.queue_capacity = 8;
	c.timeout_ms = 10000;
	struct enav_otlp_worker *w = start(&c);
	assert_true(submit(w, "in flight"));
	FAIL_IF(!WAIT_FOR(srv_count() == 1, 3000), "no request\n");
	for (int i = 0; i < 8; i++)
		assert_true(submit(w, "queued"));
	for (int i = 0; i < 5; i++)
		assert_false(submit(w, "refused"));
	assert_int_equal(DROPPED(w, "queue_full"), 5);
	assert_int_equal(M(w, "enav_otlp_queue_depth", NULL), 8);
	/* submitting never blocks on the hung endpoint */
	static void *items[10000];
	for (int i = 0; i < 10000; i++)
		items[i] = malloc(1);
	uint64_t t0 = enav_clock_mono_ns();
	for (int i = 0; i < 10000; i++)
		enav_otlp_worker_submit(w, items[i]);
	uint64_t took = enav_clock_mono_ns() - t0;
	FAIL_IF(took > 50 * MS, "10k submits took %llu ms\n", (unsigned long long)(took / MS));
	assert_int_equal(DROPPED(w, "queue_full"), 10005);
	assert_int_equal(SENT(w), 0);

	capture_start();
	t0 = enav_clock_mono_ns();
	enav_otlp_worker_stop(w, t0 + 300 * MS);
	took = enav_clock_mono_ns() - t0;
	char *log = capture_end();
	FAIL_IF(took > 500 * MS, "stop took %llu ms (deadline 300)\n",
		(unsigned long long)(took / MS));
	FAIL_IF(took < 290 * MS, "stop returned after %llu ms, before its deadline (300)\n",
		(unsigned long long)(took / MS));
	/* the request in flight and the 8 queued */
	FAIL_IF(!strstr(log, "0 item(s) sent, 9 dropped at shutdown"), "log:\n%s\n", log);
	free(log);
	assert_int_equal(atomic_load(&g_frees), 10014);
}

static void test_stop_flushes(void **state)
{
	struct enav_otlp_worker_config c = base_cfg();
	c.batch_max_items = 100;
	c.batch_max_delay_ms = 10000;
	struct enav_otlp_worker *w = start(&c);
	for (int i = 0; i < 5; i++)
		assert_true(submit(w, "x"));
	usleep(50 * 1000);
	assert_int_equal(srv_count(), 0); /* waiting for its batch delay */
	capture_start();
	uint64_t t0 = enav_clock_mono_ns();
	enav_otlp_worker_stop(w, t0 + 2000 * MS);
	uint64_t took = enav_clock_mono_ns() - t0;
	char *log = capture_end();
	FAIL_IF(took > 500 * MS, "stop took %llu ms\n", (unsigned long long)(took / MS));
	assert_int_equal(srv_count(), 1);
	assert_int_equal(body_items(srv.recs[0].body, srv.recs[0].len), 5);
	FAIL_IF(!strstr(log, "5 item(s) sent, 0 dropped at shutdown"), "log:\n%s\n", log);
	free(log);
	assert_int_equal(atomic_load(&g_frees), 5);
}

static void test_stop_during_backoff(void **state)
{
	srv_script(A_503, 0, NULL);
	struct enav_otlp_worker_config c = base_cfg();
	c.backoff_initial_ms = 5000;
	c.backoff_max_ms = 5000;
	c.max_elapsed_ms = 60000;
	struct enav_otlp_worker *w = start(&c);
	assert_true(submit(w, "x"));
	assert_true(submit(w, "y"));
	FAIL_IF(!WAIT_FOR(REQS(w, "retryable") == 1, 3000), "no request\n");
	capture_start();
	uint64_t t0 = enav_clock_mono_ns();
	enav_otlp_worker_stop(w, t0 + 300 * MS);
	uint64_t took = enav_clock_mono_ns() - t0;
	char *log = capture_end();
	FAIL_IF(took > 500 * MS, "stop took %llu ms\n", (unsigned long long)(took / MS));
	FAIL_IF(!strstr(log, "0 item(s) sent, 2 dropped at shutdown"), "log:\n%s\n", log);
	free(log);
	/* x given up at once (its next attempt is past the deadline), then y tried once */
	assert_int_equal(srv_count(), 2);
	assert_int_equal(atomic_load(&g_frees), 2);
}

static void test_encode_failed(void **state)
{
	struct enav_otlp_worker_config c = base_cfg();
	c.batch_max_items = 2;
	c.batch_max_delay_ms = 300; /* pairs: a full batch goes at once */
	c.max_request_bytes = 64;
	struct enav_otlp_worker *w = start(&c);
	assert_true(submit(w, "ok"));
	assert_true(submit(w, "FAIL"));
	FAIL_IF(!WAIT_FOR(DROPPED(w, "encode_failed") == 2, 3000), "encode_failed %lld\n",
		DROPPED(w, "encode_failed"));
	char big[200];
	memset(big, 'b', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	assert_true(submit(w, big)); /* over max_request_bytes */
	assert_true(submit(w, "z"));
	FAIL_IF(!WAIT_FOR(DROPPED(w, "encode_failed") == 4, 3000), "encode_failed %lld\n",
		DROPPED(w, "encode_failed"));
	assert_true(submit(w, "a"));
	assert_true(submit(w, "b"));
	FAIL_IF(!WAIT_FOR(SENT(w) == 2, 3000), "sent %lld\n", SENT(w));
	assert_int_equal(srv_count(), 1);
	stop(w);
	assert_int_equal(atomic_load(&g_frees), 6);
}

static void test_slow_reads(void **state)
{
	int script[] = {A_SLOW_READ};
	srv_script(A_OK, 1, script);
	struct enav_otlp_worker_config c = base_cfg();
	c.timeout_ms = 5000;
	struct enav_otlp_worker *w = start(&c);
	char *big = malloc(200001);
	memset(big, 'q', 200000);
	big[200000] = '\0';
	assert_true(enav_otlp_worker_submit(w, big));
	FAIL_IF(!WAIT_FOR(SENT(w) == 1, 5000), "sent %lld\n", SENT(w));
	assert_int_equal(srv_count(), 1);
	assert_true(srv.recs[0].len > 200000);
	assert_int_equal(body_items(srv.recs[0].body, srv.recs[0].len), 1);
	assert_int_equal(RETRIES(w), 0);
	stop(w);
}

/* Header values reach the receiver and never the logs or the metrics. */
static void test_headers_never_logged(void **state)
{
	int script[] = {A_400, A_503, A_RESET, A_HANG, A_OK};
	srv_script(A_OK, 5, script);
	struct enav_otlp_worker_config c = base_cfg();
	c.timeout_ms = 200;
	c.headers[0] = "X-Api-Key: s3cr3t-key";
	c.headers[1] = "Authorization: Bearer s3cr3t-token";
	c.n_headers = 2;
	enum enav_log_level lvl = enav_log_get_level();
	enav_log_set_level(ENAV_LOG_DEBUG);
	capture_start();
	struct enav_otlp_worker *w = start(&c);
	assert_true(submit(w, "a"));
	assert_true(submit(w, "b"));
	bool ok = WAIT_FOR(SENT(w) == 1, 3000);
	const char *text = render(w);
	bool leaked_metrics = strstr(text, "s3cr3t") != NULL;
	bool has_error = strstr(text, "enav_otlp_last_error_info{signal=\"test\",error=") != NULL;
	stop(w);
	char *log = capture_end();
	enav_log_set_level(lvl);
	FAIL_IF(!ok, "not sent\n");
	FAIL_IF(leaked_metrics, "a header value in the metrics:\n%s\n", g_text);
	FAIL_IF(!has_error, "no last error\n");
	FAIL_IF(strstr(log, "s3cr3t"), "a header value in the logs:\n%s\n", log);
	FAIL_IF(!strstr(log, "HTTP 400"), "log:\n%s\n", log);
	free(log);
	assert_int_equal(srv_count(), 5);
	for (int i = 0; i < 5; i++)
		assert_string_equal(srv.recs[i].apikey, "s3cr3t-key");
}

/* The header parser alone: delta-seconds are digits only, a value is never cut
 * at a NUL, more seconds than fit are the cap, a date counts from now. */
static void test_retry_after_parse(void **state)
{
	const time_t now = 1445412470; /* 10 s before RFC 9110's example date */
	const uint64_t cap = 4 * 30000;
	uint32_t ms;
#define RA(s, out) enav_otlp_retry_after(s, sizeof(s) - 1, now, cap, out)

	(void)state;
	assert_true(RA("Retry-After: 5\r\n", &ms));
	assert_int_equal(ms, 5000);
	assert_true(RA("retry-after:\t 0 \r\n", &ms));
	assert_int_equal(ms, 0);
	assert_true(RA("Retry-After: 120\r\n", &ms));
	assert_int_equal(ms, cap);
	assert_true(RA("Retry-After: 99999999999999999999999\r\n", &ms));
	assert_int_equal(ms, cap);
	assert_true(RA("Retry-After: Wed, 21 Oct 2015 07:28:00 GMT\r\n", &ms));
	assert_int_equal(ms, 10000);
	ms = 77;
	assert_false(RA("Retry-After: Sun, 06 Nov 1994 08:49:37 GMT\r\n", &ms));
	assert_false(RA("Retry-After: +5\r\n", &ms));
	assert_false(RA("Retry-After: 5s\r\n", &ms));
	assert_false(RA("Retry-After: 5 5\r\n", &ms));
	/* "5\0junk": strtoull stopped at the NUL and took it for 5. */
	assert_false(RA("Retry-After: 5\0junk\r\n", &ms));
	assert_false(RA("Retry-After: \r\n", &ms));
	assert_false(RA("Retry-After-Ms: 5\r\n", &ms));
	assert_false(RA("Content-Length: 5\r\n", &ms));
	assert_int_equal(ms, 77);
#undef RA
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, srv_start, srv_stop)

int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_start_validation),
	    T(test_batching_and_headers),
	    T(test_gzip),
	    T(test_retry_statuses),
	    T(test_no_retry_on_permanent),
	    T(test_retry_after),
	    cmocka_unit_test(test_retry_after_parse),
	    T(test_partial_success),
	    T(test_reset_and_timeout_retried),
	    T(test_retries_exhausted),
	    T(test_breaker),
	    T(test_queue_full_and_stop_while_hanging),
	    T(test_stop_flushes),
	    T(test_stop_during_backoff),
	    T(test_encode_failed),
	    T(test_slow_reads),
	    T(test_headers_never_logged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
