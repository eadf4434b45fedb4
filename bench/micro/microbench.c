/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Microbenchmarks of the user-side span path, apart from the tests
 * (`make microbench`; built by `make all` so it does not rot).
 *
 * Every case is per span: the stages (decode of the span's ring records,
 * HTTP/1 parse, span build in the tracker, RED update, attribution, the
 * hand-off to the export worker, the encoders) and the whole paths, ring
 * records to an NDJSON line or to an OTLP request body (batched as the
 * traces worker batches).  The paths leave out attribution and the
 * hand-off: add those two cases to a path's figure.
 *
 * Each case warms up, then runs timed batches; a batch is sized to take
 * about BATCH_NS.  It reports ns per operation: the median of the batches,
 * the fastest and the 90th percentile.  Inputs are fixed and shaped like
 * what the agent captures under wrk -> nginx: a keep-alive GET of a 4 KiB
 * file, the response headers written by nginx and the body sent with
 * sendfile (moved, not captured).  The server side of the connection is
 * measured (the client side costs the same path).
 *
 *   build/microbench [FILTER]   cases whose name contains FILTER
 *
 * With MICROBENCH_OPS=N in the environment, each case runs exactly N
 * operations once, untimed: for instruction counts under valgrind, where
 * two runs with different N give the instructions per operation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <zlib.h>

#include "config/config.h"
#include "model/signal.h"
#include "platform/promtext.h"
#include "platform/protobuf.h"
#include "runtime/runner.h"
#include "exporters/ndjson/ndjson.h"
#include "exporters/otlp/otlp_spans.h"
#include "features/network/l7/l7.h"
#include "features/network/l7/l7_conn.h"
#include "features/network/net_decode.h"
#include "features/network/red_metrics.h"
#include "enrich/attribution.h"
#include "runtime/export_worker.h"

#define WARMUP_NS 50000000ull /* 50 ms */
#define BATCH_NS  2000000ull  /* 2 ms */
#define BATCHES	  101

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Keeps the compiler from dropping a result. */
static volatile uint64_t sink;

/* ---- inputs ---------------------------------------------------------------- */

static const char request_text[] = "GET /4k.bin HTTP/1.1\r\n"
				   "Host: 127.0.0.1:27100\r\n"
				   "\r\n";
static const char response_text[] = "HTTP/1.1 200 OK\r\n"
				    "Server: nginx/1.22.1\r\n"
				    "Date: Wed, 02 Dec 2026 08:30:00 GMT\r\n"
				    "Content-Type: application/octet-stream\r\n"
				    "Content-Length: 4096\r\n"
				    "Last-Modified: Wed, 02 Dec 2026 08:29:58 GMT\r\n"
				    "Connection: keep-alive\r\n"
				    "ETag: \"692ea326-1000\"\r\n"
				    "Accept-Ranges: bytes\r\n"
				    "\r\n";
#define BODY_LEN 4096u

/* Raw events as the kernel emits them: header, fixed part, captured bytes. */
struct raw_event {
	union {
		struct enav_l7_event e;
		uint8_t bytes[sizeof(struct enav_l7_event)];
	};
	size_t size;
};

static struct raw_event ev_request, ev_headers, ev_body;
static uint32_t seq_in = 1000, seq_out = 5000000;
static uint64_t clock_boot = 1000000000000ull;

static void make_event(struct raw_event *r, uint8_t direction, const void *payload,
		       uint32_t captured, uint32_t len)
{
	memset(r, 0, sizeof(*r));
	struct enav_l7_event *e = &r->e;
	size_t fixed = ENAV_OFFSETOF(struct enav_l7_event, payload);
	e->hdr.type = ENAV_EVENT_L7_DATA;
	e->hdr.abi_version = ENAV_ABI_VERSION;
	e->hdr.size = (uint32_t)(fixed + captured);
	e->hdr.cgroup_id = 4242;
	e->hdr.pid = e->hdr.tid = 31337;
	e->sock_id = 0xffff8881234567c0ull;
	e->len = len;
	e->captured = captured;
	e->direction = direction;
	e->protocol = ENAV_L7_HTTP1;
	e->role = ENAV_ROLE_SERVER;
	e->flags = ENAV_L7_SEQ_VALID;
	e->family = 2;
	e->sport = 27100;
	e->dport = 51234;
	uint8_t lo[4] = {127, 0, 0, 1};
	memcpy(e->saddr, lo, 4);
	memcpy(e->daddr, lo, 4);
	memcpy(e->comm, "nginx", 5);
	memcpy(e->payload, payload, captured);
	r->size = e->hdr.size;
}

static void make_inputs(void)
{
	make_event(&ev_request, ENAV_L7_RECEIVED, request_text, sizeof(request_text) - 1,
		   sizeof(request_text) - 1);
	make_event(&ev_headers, ENAV_L7_SENT, response_text, sizeof(response_text) - 1,
		   sizeof(response_text) - 1);
	make_event(&ev_body, ENAV_L7_SENT, "", 0, BODY_LEN);
}

/* Advance one request/response exchange: sequence numbers and clock. */
static void next_exchange(void)
{
	clock_boot += 50000;
	ev_request.e.seq = seq_in;
	ev_request.e.hdr.boot_time_ns = clock_boot;
	seq_in += ev_request.e.len;
	ev_headers.e.seq = seq_out;
	ev_headers.e.hdr.boot_time_ns = clock_boot + 20000;
	seq_out += ev_headers.e.len;
	ev_body.e.seq = seq_out;
	ev_body.e.hdr.boot_time_ns = clock_boot + 30000;
	seq_out += ev_body.e.len;
}

/* ---- cases ----------------------------------------------------------------- */

/* The ring records of one exchange (request, response head, body), so
 * that every stage below is per span. */
static void bench_decode(uint64_t iters)
{
	struct enav_net_decoded d;
	const struct raw_event *evs[3] = {&ev_request, &ev_headers, &ev_body};
	for (uint64_t i = 0; i < iters; i++) {
		for (int k = 0; k < 3; k++) {
			sink += enav_net_decode(evs[k]->bytes, evs[k]->size, &d);
			sink += d.l7.head.len;
		}
	}
}

/* The HTTP/1 parser alone: one request and its response per operation. */
static void *h1_state;
static struct enav_l7_parser_stats h1_stats;
static void count_op(void *ctx, const struct enav_l7_op *op)
{
	sink += op->status_code;
}
static const struct enav_l7_sink h1_sink = {count_op, NULL, &h1_stats, NULL};

static void feed_h1(const struct raw_event *r, enum enav_l7_stream stream)
{
	struct enav_l7_fragment f = {
	    .stream = stream,
	    .data = r->e.payload,
	    .captured = r->e.captured,
	    .len = r->e.len,
	    .ts_ns = r->e.hdr.boot_time_ns,
	    .has_seq = true,
	    .seq = r->e.seq,
	};
	enav_l7_http1_ops.feed(h1_state, &f, &h1_sink);
}

static void bench_http1(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++) {
		next_exchange();
		feed_h1(&ev_request, ENAV_L7_REQUEST);
		feed_h1(&ev_headers, ENAV_L7_RESPONSE);
		feed_h1(&ev_body, ENAV_L7_RESPONSE);
	}
}

/* The other parsers alone, each on one connection: one request and its
 * response per operation, shaped like a small keep-alive client (Redis SET
 * and +OK; a NATS PUB and its +OK on a verbose connection; an HTTP/2 GET on
 * a new stream, its HEADERS and a 5-byte DATA).  setup() checks that every
 * operation emits exactly one op, so a parser that stops pairing shows. */
struct parser_bench {
	const struct enav_l7_parser_ops *ops;
	void *state;
	struct enav_l7_parser_stats stats;
	uint64_t ts;
	uint32_t seq[2];
};
static struct parser_bench redis_b = {.ops = &enav_l7_redis_ops};
static struct parser_bench nats_b = {.ops = &enav_l7_nats_ops};
static struct parser_bench h2_b = {.ops = &enav_l7_http2_ops};

static void pb_feed(struct parser_bench *b, enum enav_l7_stream stream, const void *p, size_t n)
{
	struct enav_l7_sink out = {count_op, NULL, &b->stats, NULL};
	struct enav_l7_fragment f = {
	    .stream = stream,
	    .data = p,
	    .captured = (uint32_t)n,
	    .len = (uint32_t)n,
	    .ts_ns = b->ts += 10000,
	    .has_seq = true,
	    .seq = b->seq[stream],
	};
	b->seq[stream] += (uint32_t)n;
	b->ops->feed(b->state, &f, &out);
}
#define PB_FEED(b, stream, lit) pb_feed(b, stream, lit, sizeof(lit) - 1)

static void bench_redis(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++) {
		PB_FEED(&redis_b, ENAV_L7_REQUEST,
			"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n");
		PB_FEED(&redis_b, ENAV_L7_RESPONSE, "+OK\r\n");
	}
}

static void bench_nats(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++) {
		PB_FEED(&nats_b, ENAV_L7_REQUEST, "PUB orders.new 5\r\nhello\r\n");
		PB_FEED(&nats_b, ENAV_L7_RESPONSE, "+OK\r\n");
	}
}

/* HPACK: :method GET, :scheme http, :path /, :authority "localhost" (a
 * literal never indexed, so the dynamic table stays as it is). */
static uint8_t h2_req[] = {0,	 0, 14,	 1,   0x05, 0,	 0,   0,   0,	0x82, 0x86, 0x84,
			   0x01, 9, 'l', 'o', 'c',  'a', 'l', 'h', 'o', 's',  't'};
static uint8_t h2_resp[] = {0, 0, 1, 1, 0x04, 0, 0, 0, 0, 0x88, /* :status 200 */
			    0, 0, 5, 0, 0x01, 0, 0, 0, 0, 'h',	'e', 'l', 'l', 'o'};
static uint32_t h2_sid = 1;

static void bench_http2(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++) {
		uint32_t sid = h2_sid;

		h2_sid += 2;
		for (int k = 0; k < 4; k++) {
			uint8_t v = (uint8_t)(sid >> (24 - 8 * k));

			h2_req[5 + k] = v;
			h2_resp[5 + k] = v;
			h2_resp[10 + 5 + k] = v;
		}
		pb_feed(&h2_b, ENAV_L7_REQUEST, h2_req, sizeof(h2_req));
		pb_feed(&h2_b, ENAV_L7_RESPONSE, h2_resp, sizeof(h2_resp));
	}
}

static void parser_bench_setup(struct parser_bench *b, void (*run)(uint64_t))
{
	struct enav_l7_options opt = {.max_pending = 32};
	b->state = calloc(1, b->ops->state_size);
	if (!b->state || b->ops->init(b->state, &opt)) {
		fprintf(stderr, "microbench: %s init failed\n",
			enav_l7_protocol_name(b->ops->protocol));
		exit(1);
	}
	if (b->ops == &enav_l7_nats_ops) {
		PB_FEED(b, ENAV_L7_RESPONSE, "INFO {\"server_id\":\"bench\"}\r\n");
		PB_FEED(b, ENAV_L7_REQUEST, "CONNECT {\"verbose\":true}\r\n");
		PB_FEED(b, ENAV_L7_RESPONSE, "+OK\r\n");
	} else if (b->ops == &enav_l7_http2_ops) {
		static const uint8_t settings[] = {0, 0, 0, 4, 0, 0, 0, 0, 0};
		PB_FEED(b, ENAV_L7_REQUEST, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
		pb_feed(b, ENAV_L7_REQUEST, settings, sizeof(settings));
		pb_feed(b, ENAV_L7_RESPONSE, settings, sizeof(settings));
	}
	uint64_t ops = b->stats.ops;
	run(3);
	if (b->stats.ops != ops + 3 || b->stats.parse_errors || b->stats.pending_overflow) {
		fprintf(stderr, "microbench: %s made %llu ops of 3 (%llu parse errors)\n",
			enav_l7_protocol_name(b->ops->protocol),
			(unsigned long long)(b->stats.ops - ops),
			(unsigned long long)b->stats.parse_errors);
		exit(1);
	}
}

/* The tracker: three fragments in, one span signal out (then released). */
static struct enav_l7_tracker *tracker;
static struct enav_signal *kept_span;
static void drop_span(void *ctx, struct enav_signal *s)
{
	if (!kept_span) {
		kept_span = s;
		return;
	}
	enav_signal_unref(s);
}

static void exchange_through_tracker(void)
{
	next_exchange();
	enav_l7_tracker_data(tracker, &ev_request.e, ev_request.e.payload);
	enav_l7_tracker_data(tracker, &ev_headers.e, ev_headers.e.payload);
	enav_l7_tracker_data(tracker, &ev_body.e, ev_body.e.payload);
}

static void bench_span_build(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++)
		exchange_through_tracker();
}

/* A new span signal with kept_span's content, holding nothing pinned. */
static struct enav_signal *kept_copy(void)
{
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_SPAN, 0);
	if (!s)
		exit(1);
	memcpy(s, kept_span, enav_signal_size(ENAV_SIGNAL_SPAN, 0));
	atomic_init(&s->refs, 1);
	s->attr_ref = NULL;
	s->attr_release = NULL;
	return s;
}

static char line[16384];
static void bench_ndjson(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++)
		sink += (uint64_t)enav_ndjson_encode(kept_span, line, sizeof(line) - 1);
}

/* OTLP: spans as the traces worker batches them, 64 to a request body. */
#define OTLP_BATCH 64
static struct enav_pb_writer otlp_w;
static struct enav_otlp_span_encoder *otlp_enc;
static const struct enav_otlp_kv node_res[] = {
    {.key = "host.name", .type = ENAV_OTLP_STR, .s = "bench-node"},
    {.key = "service.name", .type = ENAV_OTLP_STR, .s = "e-navigator"},
};
static void bench_otlp(uint64_t iters)
{
	void *items[OTLP_BATCH];
	for (size_t k = 0; k < OTLP_BATCH; k++)
		items[k] = kept_span;
	for (uint64_t i = 0; i < iters; i += OTLP_BATCH) {
		otlp_w.len = 0;
		sink += (uint64_t)enav_otlp_span_encoder_run(otlp_enc, &otlp_w, items, OTLP_BATCH);
	}
}

/* What exporters.otlp.compression: gzip adds: a body of OTLP_BATCH spans
 * through zlib as the worker calls it (gzip wrapper, default level).  The
 * last ratio is printed with the case. */
static double gzip_ratio;
static void bench_otlp_gzip(uint64_t iters)
{
	/* Spans that differ as captured ones do (ids, times, peer port), or
	 * the body would compress far better than a real one. */
	static void *items[OTLP_BATCH];
	if (!items[0]) {
		for (size_t k = 0; k < OTLP_BATCH; k++) {
			struct enav_signal *s = kept_copy();
			for (size_t b = 0; b < 16; b++)
				s->span.trace_id[b] = (uint8_t)rand();
			for (size_t b = 0; b < 8; b++)
				s->span.span_id[b] = (uint8_t)rand();
			s->span.start_time_unix_ns += k * 77777;
			s->span.end_time_unix_ns += k * 77777 + (uint64_t)(rand() % 100000);
			s->net.remote_port = (uint16_t)(40000 + rand() % 20000);
			items[k] = s;
		}
	}
	otlp_w.len = 0;
	if (enav_otlp_span_encoder_run(otlp_enc, &otlp_w, items, OTLP_BATCH) != 0)
		exit(1);
	static uint8_t out[1 << 20];
	for (uint64_t i = 0; i < iters; i += OTLP_BATCH) {
		z_stream z = {0};
		if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK)
			exit(1);
		z.next_in = otlp_w.buf;
		z.avail_in = (uInt)otlp_w.len;
		z.next_out = out;
		z.avail_out = sizeof(out);
		deflate(&z, Z_FINISH);
		gzip_ratio = (double)z.total_out / (double)otlp_w.len;
		sink += z.total_out;
		deflateEnd(&z);
	}
}

/* RED metrics: one span observed into its histogram series. */
static struct enav_host *host;
static void *red_state;
static void bench_red_observe(uint64_t iters)
{
	struct enav_signal *out[ENAV_GENERATOR_MAX_OUTPUT];
	for (uint64_t i = 0; i < iters; i++)
		sink += enav_red_metrics_ops.observe(red_state, kept_span, out, 8);
}

/* Prometheus text of the RED histograms: one render of every series. */
static char *prom_buf;
#define PROM_CAP (1u << 20)
static void bench_red_render(uint64_t iters)
{
	struct enav_promtext p;
	for (uint64_t i = 0; i < iters; i++) {
		enav_promtext_init(&p, prom_buf, PROM_CAP);
		enav_red_metrics_ops.metrics(red_state, &p);
		sink += p.len;
	}
}

/* A span signal's allocation and release as the path makes them: the
 * capture thread allocates one per span, the traces worker releases a
 * batch (exporters.otlp.batch_max_items, 512) at once; here one thread does
 * both, so this is the pool's own cost without the cross-thread traffic. */
#define POOL_BATCH 512
static void bench_signal_pool(uint64_t iters)
{
	static struct enav_signal *held[POOL_BATCH];
	for (uint64_t i = 0; i < iters; i += POOL_BATCH) {
		for (size_t k = 0; k < POOL_BATCH; k++)
			held[k] = enav_signal_new(ENAV_SIGNAL_SPAN, 0);
		for (size_t k = 0; k < POOL_BATCH; k++)
			enav_signal_unref(held[k]);
	}
}

/* What enav_host_emit adds per span that the stages above leave out:
 * attribution (the processor every signal goes through) and the hand-off
 * to the traces worker. */

/* A span signal as the tracker emits it, of this process's own cgroup. */
static uint64_t own_cgroup_id;
static bool cgroup2_here;
static struct enav_signal *span_copy(void)
{
	struct enav_signal *s = kept_copy();
	s->process.has_cgroup_path = false;
	s->process.cgroup_path = "";
	s->process.cgroup_id = own_cgroup_id;
	return s;
}

/* The cgroup id of this process (the inode of its cgroup2 directory), or 0. */
static uint64_t cgroup_id_of_self(const char *mount)
{
	FILE *f = fopen("/proc/self/cgroup", "r");
	char text[512], path[1024];
	uint64_t id = 0;
	while (f && fgets(text, sizeof(text), f)) {
		if (strncmp(text, "0::", 3))
			continue;
		text[strcspn(text, "\n")] = '\0';
		snprintf(path, sizeof(path), "%s%s", mount, text + 3);
		struct stat st;
		if (stat(path, &st) == 0)
			id = st.st_ino;
	}
	if (f)
		fclose(f);
	return id;
}

/* Attribution of one span (its cgroup in the cache after the first), with
 * the signal's copy and release around it: see signal_pool for those. */
static void *attr_state;
static void bench_attribution(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++) {
		struct enav_signal *s = span_copy();
		enav_attribution_ops.apply(attr_state, s);
		sink += s->process.has_cgroup_path;
		enav_signal_unref(s);
	}
}

/* The hand-off: a span submitted to an export worker set up as the traces
 * worker is by default (batches of 512, a tick far enough away that only
 * full batches wake it), whose transport only releases the batch.  The
 * worker thread's instructions count too (callgrind runs every thread). */
#define SUBMIT_BATCH 512
static struct enav_export_worker *submit_w;
static enum enav_export_prepared release_batch(void *ctx, void **items, size_t n, void **body,
					       size_t *n_body)
{
	for (size_t i = 0; i < n; i++)
		enav_signal_unref(items[i]);
	*body = NULL;
	*n_body = n;
	return ENAV_EXPORT_READY;
}
static enum enav_export_result sent(void *ctx, void *body, size_t n, uint32_t *retry_after_ms)
{
	*retry_after_ms = 0;
	return ENAV_EXPORT_SENT;
}
static void release_none(void *ctx, void *body)
{
}
static void free_span(void *ctx, void *item)
{
	enav_signal_unref(item);
}
static void bench_submit(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++) {
		enav_signal_ref(kept_span);
		sink += enav_export_worker_submit(submit_w, kept_span);
	}
}

/* Set up only before their cases: the worker's thread would make every
 * other case's C library calls those of a threaded process. */
static void attribution_setup(void)
{
	struct enav_config cfg;
	enav_config_defaults(&cfg);
	/* Attribution resolves a cgroup id on the cgroup2 mount once, then
	 * from its cache; without cgroup2 (this host's /sys/fs/cgroup is not
	 * one) it caches that instead.  Either way no syscall per span, but
	 * the attribution case measures one path or the other: it says which. */
	struct statfs sfs;
	cgroup2_here = statfs("/sys/fs/cgroup", &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC;
	if (cgroup2_here)
		snprintf(cfg.attribution.cgroup2_mount, sizeof(cfg.attribution.cgroup2_mount), "%s",
			 "/sys/fs/cgroup");
	struct enav_host *h = enav_host_new(&cfg);
	char err[256] = "";
	if (!h) {
		fprintf(stderr, "microbench: host failed\n");
		exit(1);
	}
	own_cgroup_id = cgroup2_here ? cgroup_id_of_self("/sys/fs/cgroup") : 0;
	if (enav_attribution_ops.init(h, &attr_state, err, sizeof(err))) {
		fprintf(stderr, "microbench: attribution init failed: %s\n", err);
		exit(1);
	}
}

static void submit_setup(void)
{
	char err[256] = "";
	static const struct enav_export_transport release_only = {.prepare = release_batch,
								  .send = sent,
								  .release = release_none,
								  .free_item = free_span};
	struct enav_export_worker_config wc = {
	    .name = "bench traces",
	    .queue_capacity = 8 * SUBMIT_BATCH,
	    .batch_max_items = SUBMIT_BATCH,
	    .batch_max_delay_ms = 3600000,
	    .backoff_initial_ms = 1000,
	    .backoff_max_ms = 1000,
	};
	submit_w = enav_export_worker_start(&wc, &release_only, NULL, err, sizeof(err));
	if (!submit_w) {
		fprintf(stderr, "microbench: export worker: %s\n", err);
		exit(1);
	}
}

/* The whole user-side path of one span, decode to encoded bytes: the
 * decoder on its three events, the tracker, the RED metrics, an encoder. */
static struct enav_signal *latest;
static void keep_latest(void *ctx, struct enav_signal *s)
{
	if (latest)
		enav_signal_unref(latest);
	latest = s;
}
static void decode_and_track(const struct raw_event *r)
{
	struct enav_net_decoded d;
	if (enav_net_decode(r->bytes, r->size, &d) == ENAV_DECODE_OK)
		enav_l7_tracker_data(tracker, &d.l7.head, d.l7.payload);
}
static void one_span_path(void)
{
	next_exchange();
	decode_and_track(&ev_request);
	decode_and_track(&ev_headers);
	decode_and_track(&ev_body);
	struct enav_signal *out[ENAV_GENERATOR_MAX_OUTPUT];
	sink += enav_red_metrics_ops.observe(red_state, latest, out, 8);
}
static void bench_path_ndjson(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++) {
		one_span_path();
		sink += (uint64_t)enav_ndjson_encode(latest, line, sizeof(line) - 1);
	}
}
/* As the traces worker gets them: each span referenced (the sink's
 * submit), OTLP_BATCH to a request body, then released. */
static void bench_path_otlp(uint64_t iters)
{
	void *batch[OTLP_BATCH];
	size_t n = 0;
	for (uint64_t i = 0; i < iters; i++) {
		one_span_path();
		enav_signal_ref(latest);
		batch[n++] = latest;
		if (n == OTLP_BATCH) {
			otlp_w.len = 0;
			sink += (uint64_t)enav_otlp_span_encoder_run(otlp_enc, &otlp_w, batch, n);
			for (size_t k = 0; k < n; k++)
				enav_signal_unref(batch[k]);
			n = 0;
		}
	}
}

static void setup(void)
{
	make_inputs();
	struct enav_l7_options opt = {.max_pending = 32};
	h1_state = calloc(1, enav_l7_http1_ops.state_size);
	if (!h1_state || enav_l7_http1_ops.init(h1_state, &opt)) {
		fprintf(stderr, "microbench: http1 init failed\n");
		exit(1);
	}
	parser_bench_setup(&redis_b, bench_redis);
	parser_bench_setup(&nats_b, bench_nats);
	parser_bench_setup(&h2_b, bench_http2);
	struct enav_l7_tracker_config tc = {
	    .max_connections = 1024,
	    .idle_timeout_ms = 60000,
	    .protocols = 1u << ENAV_L7_HTTP1,
	    .options = opt,
	};
	tracker = enav_l7_tracker_new(&tc, drop_span, NULL);
	if (!tracker) {
		fprintf(stderr, "microbench: tracker failed\n");
		exit(1);
	}
	exchange_through_tracker(); /* the span the encoders encode */
	if (!kept_span) {
		fprintf(stderr, "microbench: the tracker made no span\n");
		exit(1);
	}
	/* What attribution adds on a systemd host. */
	kept_span->process.has_cgroup_path = true;
	kept_span->process.cgroup_path = "/system.slice/nginx.service";
	enav_pb_writer_init(&otlp_w, 0);
	otlp_enc = enav_otlp_span_encoder_new(node_res, 2);
	if (!otlp_enc)
		exit(1);

	struct enav_config cfg;
	enav_config_defaults(&cfg);
	host = enav_host_new(&cfg);
	char err[256] = "";
	if (!host || enav_red_metrics_ops.init(host, &red_state, err, sizeof(err))) {
		fprintf(stderr, "microbench: red metrics init failed: %s\n", err);
		exit(1);
	}
	/* A few routes, both roles, as a small service would have. */
	static const char *routes[] = {"/4k.bin", "/", "/api/users", "/api/orders", "/health"};
	for (size_t r = 0; r < 5; r++) {
		for (uint8_t role = ENAV_ROLE_CLIENT; role <= ENAV_ROLE_SERVER; role++) {
			struct enav_signal *s = kept_copy();
			s->net.role = role;
			snprintf(s->span.op.target, sizeof(s->span.op.target), "%s", routes[r]);
			struct enav_signal *out[ENAV_GENERATOR_MAX_OUTPUT];
			enav_red_metrics_ops.observe(red_state, s, out, 8);
			enav_signal_unref(s);
		}
	}
	prom_buf = malloc(PROM_CAP);
	if (!prom_buf)
		exit(1);
}

struct bench_case {
	const char *name;
	const char *per; /* what one operation is */
	void (*run)(uint64_t iters);
	void (*before)(void);
};

static void use_latest(void)
{
	enav_l7_tracker_free(tracker);
	struct enav_l7_tracker_config tc = {
	    .max_connections = 1024,
	    .idle_timeout_ms = 60000,
	    .protocols = 1u << ENAV_L7_HTTP1,
	    .options = {.max_pending = 32},
	};
	tracker = enav_l7_tracker_new(&tc, keep_latest, NULL);
	if (!tracker)
		exit(1);
	one_span_path();
}

static const struct bench_case cases[] = {
    {"decode", "span (3 ring records)", bench_decode, NULL},
    {"http1_parse", "span (request+response)", bench_http1, NULL},
    {"redis_parse", "op (SET, +OK)", bench_redis, NULL},
    {"nats_parse", "op (PUB, +OK)", bench_nats, NULL},
    {"http2_parse", "op (GET stream, HEADERS+DATA)", bench_http2, NULL},
    {"span_build", "span", bench_span_build, NULL},
    {"ndjson_encode", "span", bench_ndjson, NULL},
    {"otlp_encode", "span", bench_otlp, NULL},
    {"otlp_gzip", "span (body of 64, gzip)", bench_otlp_gzip, NULL},
    {"red_observe", "span", bench_red_observe, NULL},
    {"signal_pool", "span (new, then unref in batches of 512)", bench_signal_pool, NULL},
    {"attribution", "span (with a signal copy and release)", bench_attribution, attribution_setup},
    {"red_render", "render (10 series)", bench_red_render, NULL},
    {"path_ndjson", "span", bench_path_ndjson, use_latest},
    {"path_otlp", "span", bench_path_otlp, use_latest},
    /* Last: its worker thread stays, and the cases after it would run threaded. */
    {"export_submit", "span (to a worker taking batches of 512)", bench_submit, submit_setup},
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void run_case(const struct bench_case *c)
{
	if (c->before)
		c->before();
	/* Warm up, and size a batch from the warm-up's rate. */
	uint64_t iters = 1, t0 = now_ns(), done = 0;
	while (now_ns() - t0 < WARMUP_NS) {
		c->run(iters);
		done += iters;
		iters *= 2;
	}
	double ns_per = (double)(now_ns() - t0) / (double)done;
	uint64_t batch = (uint64_t)((double)BATCH_NS / ns_per);
	if (batch < OTLP_BATCH)
		batch = OTLP_BATCH;
	batch -= batch % OTLP_BATCH; /* whole OTLP batches */
	double per_op[BATCHES];
	for (int b = 0; b < BATCHES; b++) {
		uint64_t a = now_ns();
		c->run(batch);
		per_op[b] = (double)(now_ns() - a) / (double)batch;
	}
	qsort(per_op, BATCHES, sizeof(per_op[0]), cmp_double);
	printf("%-14s %10.1f %10.1f %10.1f %9llu  %s\n", c->name, per_op[BATCHES / 2], per_op[0],
	       per_op[BATCHES * 9 / 10], (unsigned long long)batch, c->per);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : "";
	const char *fixed_ops = getenv("MICROBENCH_OPS");
	setup();
	if (fixed_ops) {
		uint64_t n = strtoull(fixed_ops, NULL, 10);
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			if (!strstr(cases[i].name, filter))
				continue;
			if (cases[i].before)
				cases[i].before();
			cases[i].run(n - n % OTLP_BATCH);
		}
		return (int)(sink & 0);
	}
	printf("%-14s %10s %10s %10s %9s  %s\n", "case", "median_ns", "min_ns", "p90_ns", "batch",
	       "per");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (strstr(cases[i].name, filter))
			run_case(&cases[i]);
	if (gzip_ratio > 0)
		printf("otlp_gzip: the body compresses to %.2f of its size\n", gzip_ratio);
	if (strstr("attribution", filter))
		printf("attribution: %s\n", cgroup2_here ? "the span's cgroup resolved on cgroup2"
							 : "no cgroup2 at /sys/fs/cgroup: "
							   "the no-cgroup2 path");
	printf("%d timed batches per case after %llu ms of warm-up; one process, one thread "
	       "(and export_submit's worker)\n",
	       BATCHES, WARMUP_NS / 1000000ull);
	return (int)(sink & 0);
}
