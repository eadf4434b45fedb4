/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the OTLP/protobuf encoders (src/exporters/otlp/otlp_encode.c,
 * otlp_profiles.c).  Every request body is decoded by protoc against the
 * official schemas carried in tests/otlp/proto/ (see its README.md) and the
 * text protoc prints is checked for the content put in; the profiles
 * dictionary is also walked here, index by index.  Runs from the repository
 * root (tests/run.sh does); protoc comes from protobuf-compiler
 * (scripts/deps.sh test).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/pprof.h"
#include "platform/protobuf.h"
#include "exporters/otlp/otlp_encode.h"
#include "exporters/otlp/otlp_spans.h"

extern char **environ;

/* A regression check: print what went wrong, then fail. */
#define FAIL_IF(cond, ...)                                                                         \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_message(__VA_ARGS__);                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define PROTO_DIR "tests/otlp/proto"

/* ---- protoc ---- */

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			assert_non_null(buf);
		}
		size_t k = fread(buf + n, 1, cap - n, f);

		if (k == 0)
			break;
		n += k;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* protoc --decode=TYPE PROTO < body; the text output (malloc'd).  Fails the
 * test when protoc is missing or rejects the body. */
static char *protoc_decode(const char *type, const char *proto, const uint8_t *body, size_t len)
{
	char in[] = "/tmp/enav-otlp-in-XXXXXX", out[] = "/tmp/enav-otlp-out-XXXXXX",
	     err[] = "/tmp/enav-otlp-err-XXXXXX";
	char decode[256], include[] = "-I" PROTO_DIR;
	char *argv[] = {"protoc", include, decode, (char *)proto, NULL};
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, fd;

	FAIL_IF(access(PROTO_DIR "/opentelemetry/proto/common/v1/common.proto", R_OK) != 0,
		"otlp: %s not found: run the test from the repository root\n", PROTO_DIR);
	snprintf(decode, sizeof(decode), "--decode=%s", type);
	fd = mkstemp(in);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, body, len), (ssize_t)len);
	close(fd);
	close(mkstemp(out));
	close(mkstemp(err));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_TRUNC, 0);
	posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_TRUNC, 0);
	int rc = posix_spawnp(&pid, "protoc", &fa, NULL, argv, environ);

	posix_spawn_file_actions_destroy(&fa);
	unlink(in);
	if (rc != 0) {
		unlink(out);
		unlink(err);
	}
	FAIL_IF(rc == ENOENT,
		"otlp: protoc not found: install protobuf-compiler (scripts/deps.sh test)\n");
	FAIL_IF(rc != 0, "otlp: cannot run protoc: %s\n", strerror(rc));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	char *text = slurp(out, NULL), *etext = slurp(err, NULL);

	unlink(out);
	unlink(err);
	assert_non_null(text);
	FAIL_IF(!WIFEXITED(status) || WEXITSTATUS(status) != 0,
		"otlp: protoc --decode=%s rejected the body (%zu bytes): %s\n", type, len,
		etext ? etext : "");
	free(etext);
	return text;
}

static void expect(const char *text, const char *what, const char *needle)
{
	FAIL_IF(!strstr(text, needle), "otlp %s: protoc output lacks «%s»:\n%s\n", what, needle,
		text);
}

/* Debugging aid: ENAV_OTLP_DUMP=DIR keeps each body as DIR/<signal>.pb. */
static void dump(const char *signal, const struct enav_pb_writer *w)
{
	const char *dir = getenv("ENAV_OTLP_DUMP");
	char path[512];

	if (!dir)
		return;
	snprintf(path, sizeof(path), "%s/%s.pb", dir, signal);
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(w->buf, 1, w->len, f);
		fclose(f);
	}
}

/* ---- shared fixtures ---- */

static const struct enav_otlp_kv res_attrs[] = {
    {.key = "service.name", .type = ENAV_OTLP_STR, .s = "e-navigator"},
    {.key = "host.name", .type = ENAV_OTLP_STR, .s = "node-1"},
    {.key = "enav.test.int", .type = ENAV_OTLP_INT, .i = -42},
    {.key = "enav.test.double", .type = ENAV_OTLP_DOUBLE, .d = 2.5},
    {.key = "enav.test.bool", .type = ENAV_OTLP_BOOL, .b = true},
};
static const struct enav_otlp_resource res = {res_attrs, 5};
static const struct enav_otlp_scope scope = {"e-navigator", "1.2.3"};

static void expect_resource_scope(const char *text, const char *what)
{
	expect(text, what, "key: \"service.name\"");
	expect(text, what, "string_value: \"e-navigator\"");
	expect(text, what, "string_value: \"node-1\"");
	expect(text, what, "int_value: -42");
	expect(text, what, "double_value: 2.5");
	expect(text, what, "bool_value: true");
	expect(text, what, "scope {\n      name: \"e-navigator\"\n      version: \"1.2.3\"");
}

/* ---- metrics ---- */

static void test_metrics(void **state)
{
	static const struct enav_otlp_kv pattrs[] = {
	    {.key = "direction", .type = ENAV_OTLP_STR, .s = "outbound"},
	};
	static const double bounds[] = {0.001, 0.01, 0.1};
	static const uint64_t buckets[] = {3, 2, 1, 1};
	const struct enav_otlp_point gauge_int = {.attrs = pattrs,
						  .n_attrs = 1,
						  .time_unix_ns = 1700000000000000000ull,
						  .is_int = true,
						  .i = 3};
	const struct enav_otlp_point gauge_dbl = {.time_unix_ns = 1700000000000000001ull,
						  .d = 0.75};
	const struct enav_otlp_point sum_pt = {.start_unix_ns = 1690000000000000000ull,
					       .time_unix_ns = 1700000000000000000ull,
					       .is_int = true,
					       .i = 123456789012ll};
	const struct enav_otlp_point hist_pt = {.start_unix_ns = 1690000000000000000ull,
						.time_unix_ns = 1700000000000000000ull,
						.count = 7,
						.sum = 0.4375,
						.bounds = bounds,
						.n_bounds = 3,
						.bucket_counts = buckets};
	const struct enav_otlp_metric metrics[] = {
	    {.name = "enav_tcp_connections",
	     .description = "Open TCP connections",
	     .unit = "{connection}",
	     .type = ENAV_OTLP_GAUGE,
	     .points = &gauge_int,
	     .n_points = 1},
	    {.name = "enav_cpu_ratio",
	     .unit = "1",
	     .type = ENAV_OTLP_GAUGE,
	     .points = &gauge_dbl,
	     .n_points = 1},
	    {.name = "enav_bytes_sent_total",
	     .unit = "By",
	     .type = ENAV_OTLP_SUM,
	     .monotonic = true,
	     .temporality = ENAV_OTLP_TEMPORALITY_CUMULATIVE,
	     .points = &sum_pt,
	     .n_points = 1},
	    {.name = "enav_dns_latency_seconds",
	     .unit = "s",
	     .type = ENAV_OTLP_HISTOGRAM,
	     .temporality = ENAV_OTLP_TEMPORALITY_DELTA,
	     .points = &hist_pt,
	     .n_points = 1},
	};
	const struct enav_otlp_resource_metrics rm = {res, scope, metrics, 4};
	struct enav_pb_writer w;

	enav_pb_writer_init(&w, 0);
	assert_int_equal(enav_otlp_encode_metrics(&w, &rm, 1), 0);
	dump("metrics", &w);
	char *t = protoc_decode(
	    "opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest",
	    "opentelemetry/proto/collector/metrics/v1/metrics_service.proto", w.buf, w.len);

	expect_resource_scope(t, "metrics");
	expect(t, "metrics", "name: \"enav_tcp_connections\"");
	expect(t, "metrics", "description: \"Open TCP connections\"");
	expect(t, "metrics", "unit: \"{connection}\"");
	expect(t, "metrics", "gauge {");
	expect(t, "metrics", "as_int: 3\n");
	expect(t, "metrics", "time_unix_nano: 1700000000000000000");
	expect(t, "metrics", "key: \"direction\"");
	expect(t, "metrics", "string_value: \"outbound\"");
	expect(t, "metrics", "as_double: 0.75");
	expect(t, "metrics", "name: \"enav_bytes_sent_total\"");
	expect(t, "metrics", "sum {");
	expect(t, "metrics", "start_time_unix_nano: 1690000000000000000");
	expect(t, "metrics", "as_int: 123456789012");
	expect(t, "metrics", "aggregation_temporality: AGGREGATION_TEMPORALITY_CUMULATIVE");
	expect(t, "metrics", "is_monotonic: true");
	expect(t, "metrics", "histogram {");
	expect(t, "metrics", "count: 7");
	expect(t, "metrics", "sum: 0.4375");
	expect(t, "metrics",
	       "bucket_counts: 3\n          bucket_counts: 2\n          bucket_counts: 1\n"
	       "          bucket_counts: 1\n");
	expect(t, "metrics",
	       "explicit_bounds: 0.001\n          explicit_bounds: 0.01\n"
	       "          explicit_bounds: 0.1\n");
	expect(t, "metrics", "aggregation_temporality: AGGREGATION_TEMPORALITY_DELTA");
	free(t);
	enav_pb_writer_free(&w);
}

static void test_metrics_invalid(void **state)
{
	static const uint64_t buckets[] = {3, 2};
	static const double bound = 1.0;
	const struct enav_otlp_point bad_hist = {
	    .count = 4, .bounds = &bound, .n_bounds = 1, .bucket_counts = buckets}; /* 3 + 2 != 4 */
	const struct enav_otlp_point pt = {.time_unix_ns = 1};
	const struct enav_otlp_kv bad_kv = {.key = NULL};
	const struct enav_otlp_point bad_attr = {.attrs = &bad_kv, .n_attrs = 1};
	const struct {
		const char *why;
		struct enav_otlp_metric m;
	} cases[] = {
	    {"no name", {.type = ENAV_OTLP_GAUGE, .points = &pt, .n_points = 1}},
	    {"sum without temporality",
	     {.name = "x", .type = ENAV_OTLP_SUM, .points = &pt, .n_points = 1}},
	    {"histogram count != buckets",
	     {.name = "x",
	      .type = ENAV_OTLP_HISTOGRAM,
	      .temporality = 2,
	      .points = &bad_hist,
	      .n_points = 1}},
	    {"NULL key",
	     {.name = "x", .type = ENAV_OTLP_GAUGE, .points = &bad_attr, .n_points = 1}},
	    {"unknown type", {.name = "x", .type = (enum enav_otlp_metric_type)9}},
	};
	struct enav_pb_writer w;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct enav_otlp_resource_metrics rm = {res, scope, &cases[i].m, 1};

		enav_pb_writer_init(&w, 0);
		int rc = enav_otlp_encode_metrics(&w, &rm, 1);

		FAIL_IF(rc != -EINVAL || w.len != 0,
			"otlp metrics (%s): rc %d, %zu bytes written; want -EINVAL and nothing\n",
			cases[i].why, rc, w.len);
		enav_pb_writer_free(&w);
	}
	/* The writer's limit: -E2BIG. */
	const struct enav_otlp_metric m = {
	    .name = "enav_tcp_connections", .type = ENAV_OTLP_GAUGE, .points = &pt, .n_points = 1};
	const struct enav_otlp_resource_metrics rm = {res, scope, &m, 1};

	enav_pb_writer_init(&w, 32);
	assert_int_equal(enav_otlp_encode_metrics(&w, &rm, 1), -E2BIG);
	assert_true(w.len <= 32);
	enav_pb_writer_free(&w);
}

/* ---- traces ---- */

static void test_traces(void **state)
{
	static const struct enav_otlp_kv sattrs[] = {
	    {.key = "http.request.method", .type = ENAV_OTLP_STR, .s = "GET"},
	    {.key = "http.response.status_code", .type = ENAV_OTLP_INT, .i = 503},
	};
	const struct enav_otlp_span spans[] = {
	    {.trace_id = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d,
			  0x0e, 0x0e, 0x47, 0x36},
	     .span_id = {0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	     .name = "GET /api/orders",
	     .kind = ENAV_OTLP_SPAN_SERVER,
	     .start_unix_ns = 1700000000000000000ull,
	     .end_unix_ns = 1700000000250000000ull,
	     .attrs = sattrs,
	     .n_attrs = 2,
	     .status = ENAV_OTLP_STATUS_ERROR,
	     .status_message = "upstream unavailable"},
	    {.trace_id = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d,
			  0x0e, 0x0e, 0x47, 0x36},
	     .span_id = {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88},
	     .parent_span_id = {0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7},
	     .name = "dns lookup",
	     .kind = ENAV_OTLP_SPAN_CLIENT,
	     .start_unix_ns = 1700000000001000000ull,
	     .end_unix_ns = 1700000000002000000ull,
	     .status = ENAV_OTLP_STATUS_OK},
	};
	const struct enav_otlp_resource_spans rs = {res, scope, spans, 2};
	struct enav_pb_writer w;

	enav_pb_writer_init(&w, 0);
	assert_int_equal(enav_otlp_encode_traces(&w, &rs, 1), 0);
	dump("traces", &w);
	char *t = protoc_decode("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
				"opentelemetry/proto/collector/trace/v1/trace_service.proto", w.buf,
				w.len);

	expect_resource_scope(t, "traces");
	expect(t, "traces", "trace_id: \"K\\371/5w\\263M\\246\\243\\316\\222\\235\\016\\016G6\"");
	expect(t, "traces", "span_id: \"\\000\\360g\\252\\013\\251\\002\\267\"");
	expect(t, "traces", "parent_span_id: \"\\000\\360g\\252\\013\\251\\002\\267\"");
	expect(t, "traces", "name: \"GET /api/orders\"");
	expect(t, "traces", "kind: SPAN_KIND_SERVER");
	expect(t, "traces", "kind: SPAN_KIND_CLIENT");
	expect(t, "traces", "start_time_unix_nano: 1700000000000000000");
	expect(t, "traces", "end_time_unix_nano: 1700000000250000000");
	expect(t, "traces", "string_value: \"GET\"");
	expect(t, "traces", "int_value: 503");
	expect(t, "traces", "message: \"upstream unavailable\"");
	expect(t, "traces", "code: STATUS_CODE_ERROR");
	expect(t, "traces", "code: STATUS_CODE_OK");
	expect(t, "traces", "name: \"dns lookup\"");
	/* The root span has no parent_span_id: exactly one in the text. */
	const char *p1 = strstr(t, "parent_span_id");

	FAIL_IF(!p1 || strstr(p1 + 1, "parent_span_id"),
		"otlp traces: want exactly one parent_span_id:\n%s\n", t);
	free(t);
	enav_pb_writer_free(&w);

	/* All-zero span id: -EINVAL, nothing written. */
	struct enav_otlp_span bad = spans[0];

	memset(bad.span_id, 0, sizeof(bad.span_id));
	const struct enav_otlp_resource_spans rs_bad = {res, scope, &bad, 1};

	enav_pb_writer_init(&w, 0);
	assert_int_equal(enav_otlp_encode_traces(&w, &rs_bad, 1), -EINVAL);
	assert_int_equal(w.len, 0);
	enav_pb_writer_free(&w);
}

/* ---- logs ---- */

static void test_logs(void **state)
{
	static const struct enav_otlp_kv lattrs[] = {
	    {.key = "k8s.pod.name", .type = ENAV_OTLP_STR, .s = "api-7d9f"},
	    {.key = "enav.restarts", .type = ENAV_OTLP_INT, .i = 4},
	};
	const struct enav_otlp_log logs[] = {
	    {.time_unix_ns = 1700000000000000000ull,
	     .observed_unix_ns = 1700000000000000500ull,
	     .severity_number = 13,
	     .severity_text = "WARN",
	     .body = "container restarted 4 times",
	     .attrs = lattrs,
	     .n_attrs = 2,
	     .event_name = "enav.container.restart"},
	    {.observed_unix_ns = 1700000000000000600ull,
	     .severity_number = 17,
	     .severity_text = "ERROR",
	     .body = "OOM kill"},
	};
	const struct enav_otlp_resource_logs rl = {res, scope, logs, 2};
	struct enav_pb_writer w;

	enav_pb_writer_init(&w, 0);
	assert_int_equal(enav_otlp_encode_logs(&w, &rl, 1), 0);
	dump("logs", &w);
	char *t =
	    protoc_decode("opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest",
			  "opentelemetry/proto/collector/logs/v1/logs_service.proto", w.buf, w.len);

	expect_resource_scope(t, "logs");
	expect(t, "logs", "time_unix_nano: 1700000000000000000");
	expect(t, "logs", "observed_time_unix_nano: 1700000000000000500");
	expect(t, "logs", "severity_number: SEVERITY_NUMBER_WARN\n");
	expect(t, "logs", "severity_text: \"WARN\"");
	expect(t, "logs", "body {\n        string_value: \"container restarted 4 times\"");
	expect(t, "logs", "string_value: \"api-7d9f\"");
	expect(t, "logs", "int_value: 4\n");
	expect(t, "logs", "event_name: \"enav.container.restart\"");
	expect(t, "logs", "severity_number: SEVERITY_NUMBER_ERROR\n");
	expect(t, "logs", "string_value: \"OOM kill\"");
	free(t);
	enav_pb_writer_free(&w);

	struct enav_otlp_log bad = logs[0];

	bad.severity_number = 25;
	const struct enav_otlp_resource_logs rl_bad = {res, scope, &bad, 1};

	enav_pb_writer_init(&w, 0);
	assert_int_equal(enav_otlp_encode_logs(&w, &rl_bad, 1), -EINVAL);
	assert_int_equal(w.len, 0);
	enav_pb_writer_free(&w);
}

/* ---- profiles ---- */

/* A pprof from the builder: two sample types, a mapping with a build id,
 * three functions, an unsymbolized frame, string and numeric labels. */
static struct enav_pprof *make_builder(void)
{
	static const struct enav_pprof_value_type types[] = {{"samples", "count"},
							     {"cpu", "nanoseconds"}};
	struct enav_pprof *p = enav_pprof_new(types, 2, types[1], 10000000, 1700000000000000000ll,
					      10000000000ll, NULL);

	assert_non_null(p);
	uint64_t m = enav_pprof_mapping(p, 0x400000, 0x500000, 0, "/usr/bin/orders", "abcdef0123");
	uint64_t l_work = enav_pprof_location(p, m, 0x401234, "main.work", "/src/work.go", 42);
	uint64_t l_hash = enav_pprof_location(p, m, 0x401500, "crypto.hash", "/src/hash.go", 7);
	uint64_t l_main = enav_pprof_location(p, m, 0x400100, "main.main", "/src/main.go", 10);
	uint64_t l_raw = enav_pprof_location(p, m, 0x4ffff0, NULL, NULL, 0);
	const struct enav_pprof_label labels[] = {
	    {.key = "thread", .str = "worker-1"},
	    {.key = "alloc", .num = 4096, .num_unit = "bytes"},
	};
	const uint64_t s1[] = {l_work, l_main}, s2[] = {l_hash, l_work, l_main},
		       s3[] = {l_raw, l_main};
	const int64_t v1[] = {3, 30000000}, v2[] = {1, 10000000}, v3[] = {2, 20000000};

	assert_int_equal(enav_pprof_sample(p, s1, 2, v1, 2, labels, 2), 0);
	assert_int_equal(enav_pprof_sample(p, s2, 3, v2, 2, labels, 1), 0);
	assert_int_equal(enav_pprof_sample(p, s3, 2, v3, 2, NULL, 0), 0);
	enav_pprof_comment(p, "a comment OTLP does not carry");
	return p;
}

static uint8_t *make_pprof(size_t *len, bool gzip)
{
	struct enav_pprof *p = make_builder();
	uint8_t *out = NULL;

	assert_int_equal(enav_pprof_encode(p, gzip, &out, len), 0);
	enav_pprof_free(p);
	return out;
}

struct span {
	const uint8_t *p;
	size_t n;
};

/* Field occurrences of one message, by number; at most cap. */
static size_t fields(struct span msg, uint32_t number, struct span *out, size_t cap)
{
	struct enav_pb_reader r = {msg.p, msg.p ? msg.p + msg.n : msg.p};
	struct enav_pb_field f;
	size_t n = 0;
	int rc;

	while ((rc = enav_pb_next(&r, &f)) == 1) {
		if (f.number != number)
			continue;
		assert_int_equal(f.wire, ENAV_PB_LEN);
		if (n < cap)
			out[n] = (struct span){f.ptr, f.len};
		n++;
	}
	assert_int_equal(rc, 0);
	return n;
}

static uint64_t varint_field(struct span msg, uint32_t number)
{
	struct enav_pb_reader r = {msg.p, msg.p ? msg.p + msg.n : msg.p};
	struct enav_pb_field f;
	uint64_t v = 0;

	while (enav_pb_next(&r, &f) == 1)
		if (f.number == number && f.wire == ENAV_PB_VARINT)
			v = f.u64;
	return v;
}

static struct span one(struct span msg, uint32_t number)
{
	struct span s = {NULL, 0};

	fields(msg, number, &s, 1);
	return s;
}

/* A reader over a span that may be absent (NULL). */
static struct enav_pb_reader reader(struct span s)
{
	return (struct enav_pb_reader){s.p, s.p ? s.p + s.n : s.p};
}

#define MAXT 64

struct dict_view {
	struct span t[8][MAXT];
	size_t n[8];
};

static const char *str_at(const struct dict_view *d, uint64_t i, char *buf, size_t cap)
{
	assert_true(i < d->n[5] && i < MAXT);
	snprintf(buf, cap, "%.*s", (int)d->t[5][i].n, (const char *)d->t[5][i].p);
	return buf;
}

/* The leaf-first function names of stack index si, '<' separated; an
 * unsymbolized frame is "?". */
static void stack_names(const struct dict_view *d, uint64_t si, char *out, size_t cap)
{
	uint64_t locs[16];
	size_t nl = 0;
	struct span st;
	char name[128];

	assert_true(si < d->n[7]);
	out[0] = '\0';
	st = one(d->t[7][si], 1);
	struct enav_pb_reader r = reader(st);

	while (nl < 16 && enav_pb_read_varint(&r, &locs[nl]) == 1)
		nl++;
	for (size_t i = 0; i < nl; i++) {
		assert_true(locs[i] > 0 && locs[i] < d->n[2]);
		struct span lines[4];
		size_t n_lines = fields(d->t[2][locs[i]], 3, lines, 4);
		const char *fn = "?";

		if (n_lines) {
			uint64_t f = varint_field(lines[0], 1);

			assert_true(f > 0 && f < d->n[3]);
			fn = str_at(d, varint_field(d->t[3][f], 1), name, sizeof(name));
		}
		snprintf(out + strlen(out), cap - strlen(out), "%s%s", i ? "<" : "", fn);
	}
}

static void test_profiles(void **state)
{
	size_t raw_len, gz_len;
	uint8_t *raw = make_pprof(&raw_len, false), *gz = make_pprof(&gz_len, true);
	static const struct enav_otlp_kv r2_attrs[] = {
	    {.key = "container.id", .type = ENAV_OTLP_STR, .s = "c0ffee"},
	};
	const struct enav_otlp_profile_in in[] = {
	    {res, raw, raw_len, NULL},
	    {{r2_attrs, 1}, gz, gz_len, NULL},
	};
	struct enav_pb_writer w;
	char err[256];

	enav_pb_writer_init(&w, 0);
	int rc = enav_otlp_encode_profiles(&w, scope, in, 2, err, sizeof(err));

	FAIL_IF(rc != 0, "otlp profiles: rc %d: %s\n", rc, err);
	dump("profiles", &w);
	char *t = protoc_decode(
	    "opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest",
	    "opentelemetry/proto/collector/profiles/v1development/profiles_service.proto", w.buf,
	    w.len);

	expect_resource_scope(t, "profiles");
	expect(t, "profiles", "string_value: \"c0ffee\"");
	expect(t, "profiles", "dictionary {\n  mapping_table {\n  }\n");
	expect(t, "profiles", "string_table: \"\"\n");
	expect(t, "profiles", "string_table: \"main.work\"");
	expect(t, "profiles", "string_table: \"crypto.hash\"");
	expect(t, "profiles", "string_table: \"main.main\"");
	expect(t, "profiles", "string_table: \"/src/work.go\"");
	expect(t, "profiles", "string_table: \"/usr/bin/orders\"");
	expect(t, "profiles", "string_table: \"nanoseconds\"");
	expect(t, "profiles", "string_value: \"abcdef0123\""); /* the build id attribute */
	expect(t, "profiles", "string_value: \"worker-1\"");
	expect(t, "profiles", "int_value: 4096");
	expect(t, "profiles", "memory_start: 4194304");
	expect(t, "profiles", "memory_limit: 5242880");
	expect(t, "profiles", "address: 4198964"); /* 0x401234 */
	expect(t, "profiles", "line: 42");
	expect(t, "profiles", "location_indices: ");
	expect(t, "profiles", "stack_index: ");
	expect(t, "profiles", "time_unix_nano: 1700000000000000000");
	expect(t, "profiles", "duration_nano: 10000000000");
	expect(t, "profiles", "period: 10000000");
	expect(t, "profiles", "values: 30000000");
	expect(t, "profiles",
	       "trace_id: \"\\000\\000\\000\\000\\000\\000\\000\\000\\000\\000"
	       "\\000\\000\\000\\000\\000\\000\"");
	free(t);

	/* Walk the dictionary: zero entries first, no duplicate strings, and
	 * each sample's stack resolves to the frames the pprof had. */
	struct span req = {w.buf, w.len}, dict = one(req, 2);
	static struct dict_view d;

	assert_non_null(dict.p);
	for (uint32_t f = 1; f <= 7; f++) {
		d.n[f] = fields(dict, f, d.t[f], MAXT);
		FAIL_IF(d.n[f] == 0 || d.n[f] > MAXT, "otlp profiles: table %u has %zu entries\n",
			f, d.n[f]);
		if (f != 4)
			FAIL_IF(d.t[f][0].n != 0,
				"otlp profiles: dictionary table %u: entry 0 is %zu bytes, not the "
				"zero value\n",
				f, d.t[f][0].n);
	}
	FAIL_IF(d.n[4] != 1 || d.t[4][0].n != 2 + 16 + 2 + 8,
		"otlp profiles: link_table: %zu entries, [0] %zu bytes\n", d.n[4], d.t[4][0].n);
	for (size_t i = 0; i < d.n[5]; i++)
		for (size_t k = i + 1; k < d.n[5]; k++)
			FAIL_IF(d.t[5][i].n == d.t[5][k].n &&
				    memcmp(d.t[5][i].p, d.t[5][k].p, d.t[5][i].n) == 0,
				"otlp profiles: string_table[%zu] and [%zu] are equal\n", i, k);
	/* Same pprof twice: one set of entries (3 functions, 4 locations, 3 stacks). */
	FAIL_IF(d.n[3] != 4 || d.n[2] != 5 || d.n[7] != 4 || d.n[1] != 2,
		"otlp profiles: table sizes functions %zu locations %zu stacks %zu mappings %zu, "
		"want 4 5 4 2 (with the zero entries)\n",
		d.n[3], d.n[2], d.n[7], d.n[1]);

	struct span rps[4], sps[2], profs[4], samples[8];
	size_t n_rp = fields(req, 1, rps, 4);

	assert_int_equal(n_rp, 2);
	for (size_t r = 0; r < n_rp; r++) {
		assert_int_equal(fields(rps[r], 2, sps, 2), 1);
		size_t n_prof = fields(sps[0], 2, profs, 4);

		FAIL_IF(n_prof != 2, "otlp profiles: resource %zu: %zu profiles, want 2\n", r,
			n_prof);
		for (size_t pi = 0; pi < n_prof; pi++) {
			char buf[128], buf2[128];
			struct span st = one(profs[pi], 1);

			assert_string_equal(str_at(&d, varint_field(st, 1), buf, sizeof(buf)),
					    pi == 0 ? "samples" : "cpu");
			assert_string_equal(str_at(&d, varint_field(st, 2), buf2, sizeof(buf2)),
					    pi == 0 ? "count" : "nanoseconds");
			assert_int_equal(fields(profs[pi], 2, samples, 8), 3);
			static const char *want[] = {"main.work<main.main",
						     "crypto.hash<main.work<main.main",
						     "?<main.main"};
			static const uint64_t want_v[2][3] = {{3, 1, 2},
							      {30000000, 10000000, 20000000}};
			for (size_t s = 0; s < 3; s++) {
				char names[256];
				struct span vals = one(samples[s], 4), attrs = one(samples[s], 2);
				struct enav_pb_reader vr = reader(vals);
				uint64_t v = 0, a;
				size_t n_attrs = 0;

				stack_names(&d, varint_field(samples[s], 1), names, sizeof(names));
				FAIL_IF(strcmp(names, want[s]) != 0,
					"otlp profiles: sample %zu stack «%s», want «%s»\n", s,
					names, want[s]);
				assert_int_equal(enav_pb_read_varint(&vr, &v), 1);
				assert_int_equal(v, want_v[pi][s]);
				struct enav_pb_reader ar = reader(attrs);

				while (enav_pb_read_varint(&ar, &a) == 1) {
					assert_true(a > 0 && a < d.n[6]);
					n_attrs++;
				}
				assert_int_equal(n_attrs, s == 0 ? 2 : s == 1 ? 1 : 0);
			}
		}
	}
	enav_pb_writer_free(&w);

	/* Not a pprof: -EINVAL and a message naming the profile. */
	const uint8_t junk[] = {0xff, 0xff, 0xff};
	const struct enav_otlp_profile_in bad[] = {{res, raw, raw_len, NULL}, {res, junk, 3, NULL}};

	enav_pb_writer_init(&w, 0);
	rc = enav_otlp_encode_profiles(&w, scope, bad, 2, err, sizeof(err));
	FAIL_IF(rc != -EINVAL || !strstr(err, "profile 1"),
		"otlp profiles: junk pprof: rc %d «%s», want -EINVAL naming profile 1\n", rc, err);
	enav_pb_writer_free(&w);

	/* The writer's limit: -E2BIG. */
	enav_pb_writer_init(&w, 200);
	rc = enav_otlp_encode_profiles(&w, scope, in, 2, err, sizeof(err));
	FAIL_IF(rc != -E2BIG, "otlp profiles: 200-byte limit: rc %d «%s», want -E2BIG\n", rc, err);
	assert_true(w.len <= 200);
	enav_pb_writer_free(&w);
	free(raw);
	free(gz);
}

/* A profile handed over as tables (enav_pprof_tables) encodes to the same
 * bytes as its pprof encoding decoded back; a frame or a sample the tables
 * lost would change them (checked below, so the comparison can fail). */
static void test_profiles_from_tables(void **state)
{
	struct enav_pprof *p = make_builder();
	struct enav_pprof_decoded t;
	uint8_t *gz = NULL;
	size_t gz_len = 0;

	/* More than the fixture: a long stack, many samples, a second mapping. */
	uint64_t m2 = enav_pprof_mapping(p, 0x7f0000, 0x7f1000, 0x1000, "/lib/libc.so.6", NULL);
	uint64_t deep[40];

	for (size_t i = 0; i < 40; i++) {
		char fn[32];

		snprintf(fn, sizeof(fn), "libc_fn_%zu", i % 7);
		deep[i] = enav_pprof_location(p, m2, 0x7f0010 + 16 * i, i % 3 ? fn : NULL, NULL,
					      (int64_t)i);
		assert_true(deep[i] > 0);
	}
	for (int64_t k = 0; k < 200; k++) {
		const int64_t v[] = {k, k * 1000};
		const struct enav_pprof_label lb[] = {{.key = "pid", .num = 1000 + k % 5}};

		assert_int_equal(enav_pprof_sample(p, deep + k % 20, 20, v, 2, lb, 1), 0);
	}
	assert_int_equal(enav_pprof_tables(p, &t), 0);
	assert_int_equal(enav_pprof_encode(p, true, &gz, &gz_len), 0);

	struct enav_otlp_profile_in from_pprof[] = {{res, gz, gz_len, NULL}},
				    from_tables[] = {{res, NULL, 0, &t}};
	struct enav_pb_writer a, b;
	char err[256];

	enav_pb_writer_init(&a, 0);
	enav_pb_writer_init(&b, 0);
	FAIL_IF(enav_otlp_encode_profiles(&a, scope, from_pprof, 1, err, sizeof(err)) != 0,
		"otlp profiles from pprof: %s\n", err);
	FAIL_IF(enav_otlp_encode_profiles(&b, scope, from_tables, 1, err, sizeof(err)) != 0,
		"otlp profiles from tables: %s\n", err);
	FAIL_IF(a.len != b.len || memcmp(a.buf, b.buf, a.len) != 0,
		"otlp profiles: from tables %zu bytes, from the pprof %zu, or different bytes\n",
		b.len, a.len);

	/* The comparison sees a lost leaf frame and a lost sample. */
	t.samples[t.n_samples - 1].n_locations--;
	enav_pb_writer_free(&b);
	enav_pb_writer_init(&b, 0);
	assert_int_equal(enav_otlp_encode_profiles(&b, scope, from_tables, 1, err, sizeof(err)), 0);
	FAIL_IF(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0,
		"otlp profiles: a dropped frame went unseen\n");
	t.samples[t.n_samples - 1].n_locations++;
	t.n_samples--;
	enav_pb_writer_free(&b);
	enav_pb_writer_init(&b, 0);
	assert_int_equal(enav_otlp_encode_profiles(&b, scope, from_tables, 1, err, sizeof(err)), 0);
	FAIL_IF(a.len == b.len && memcmp(a.buf, b.buf, a.len) == 0,
		"otlp profiles: a dropped sample went unseen\n");
	t.n_samples++;

	enav_pb_writer_free(&a);
	enav_pb_writer_free(&b);
	enav_pprof_decoded_free(&t);
	free(gz);
	enav_pprof_free(p);
}

/* ---- responses ---- */

static void test_partial_success(void **state)
{
	struct enav_pb_writer w;
	int64_t rejected = -1;
	char msg[16];

	/* Absent: an empty body. */
	memset(msg, 'x', sizeof(msg));
	assert_int_equal(enav_otlp_decode_partial_success(NULL, 0, &rejected, msg, sizeof(msg)), 0);
	assert_int_equal(rejected, 0);
	assert_string_equal(msg, "");

	/* Present, with an unknown field around it and a message to truncate
	 * and clean. */
	enav_pb_writer_init(&w, 0);
	enav_pb_string(&w, 7, "future field");
	enav_pb_begin(&w, 1);
	enav_pb_varint(&w, 1, 5);
	enav_pb_string(&w, 2, "bad\npoints: too many");
	enav_pb_varint(&w, 9, 1);
	enav_pb_end(&w);
	assert_false(w.failed);
	assert_int_equal(
	    enav_otlp_decode_partial_success(w.buf, w.len, &rejected, msg, sizeof(msg)), 0);
	assert_int_equal(rejected, 5);
	assert_string_equal(msg, "bad?points: too");
	char *t = protoc_decode(
	    "opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceResponse",
	    "opentelemetry/proto/collector/metrics/v1/metrics_service.proto", w.buf, w.len);

	expect(t, "response", "rejected_data_points: 5");
	free(t);
	enav_pb_writer_free(&w);

	/* Present and empty: nothing rejected. */
	const uint8_t empty_ps[] = {0x0a, 0x00};

	rejected = -1;
	assert_int_equal(enav_otlp_decode_partial_success(empty_ps, 2, &rejected, msg, sizeof(msg)),
			 0);
	assert_int_equal(rejected, 0);
	assert_string_equal(msg, "");

	/* NULL outputs are allowed. */
	assert_int_equal(enav_otlp_decode_partial_success(empty_ps, 2, NULL, NULL, 0), 0);

	/* Malformed. */
	static const struct {
		const char *why;
		uint8_t b[16];
		size_t n;
	} bad[] = {
	    {"truncated length", {0x0a, 0x05, 0x08}, 3},
	    {"partial_success as varint", {0x08, 0x01}, 2},
	    {"rejected as LEN", {0x0a, 0x03, 0x0a, 0x01, 0x41}, 5},
	    {"error_message as varint", {0x0a, 0x02, 0x10, 0x01}, 4},
	    {"negative rejected",
	     {0x0a, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
	     13},
	    {"truncated varint inside", {0x0a, 0x02, 0x08, 0x80}, 4},
	    {"field number 0", {0x00, 0x01}, 2},
	    {"group wire type", {0x0b}, 1},
	    {"JSON", {'{', '}'}, 2},
	    {"a message, then partial_success as varint",
	     {0x0a, 0x05, 0x08, 0x01, 0x12, 0x01, 'A', 0x08, 0x01},
	     9},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		rejected = -1;
		strcpy(msg, "old");
		int rc = enav_otlp_decode_partial_success(bad[i].b, bad[i].n, &rejected, msg,
							  sizeof(msg));

		FAIL_IF(rc != -EINVAL, "otlp partial_success (%s): rc %d, want -EINVAL\n",
			bad[i].why, rc);
		FAIL_IF(rejected != 0 || msg[0], "otlp partial_success (%s): outputs not reset\n",
			bad[i].why);
	}
}

/* A span's url.path as it leaves the node: the e-mail address and the
 * token in the request's path are written {id} (enav_l7_path_redact). */
static void test_span_url_path_redacted(void **state)
{
	(void)state;
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_SPAN, 0);
	assert_non_null(s);
	s->net.role = ENAV_ROLE_SERVER;
	s->net.family = 4;
	s->span.op.protocol = ENAV_L7_HTTP1;
	snprintf(s->span.op.operation, sizeof(s->span.op.operation), "GET");
	snprintf(s->span.op.target, sizeof(s->span.op.target), "/users/{id}");
	snprintf(s->span.op.path, sizeof(s->span.op.path),
		 "/users/alice@example.com/reset/Zm9vYmFyMTIzNDU2Nzg5MA42");
	memset(s->span.trace_id, 0x11, sizeof(s->span.trace_id));
	memset(s->span.span_id, 0x22, sizeof(s->span.span_id));
	s->span.start_time_unix_ns = 1000;
	s->span.end_time_unix_ns = 2000;
	struct enav_pb_writer w;
	enav_pb_writer_init(&w, 0);
	void *items[] = {s};
	struct enav_otlp_span_encoder *e = enav_otlp_span_encoder_new(NULL, 0);
	assert_non_null(e);
	assert_int_equal(enav_otlp_span_encoder_run(e, &w, items, 1), 0);
	enav_otlp_span_encoder_free(e);
	assert_false(w.failed);
	assert_non_null(memmem(w.buf, w.len, "url.path", 8));
	assert_non_null(memmem(w.buf, w.len, "/users/{id}/reset/{id}", 22));
	assert_null(memmem(w.buf, w.len, "alice", 5));
	assert_null(memmem(w.buf, w.len, "Zm9v", 4));
	enav_pb_writer_free(&w);
	enav_signal_unref(s);
}

/* A span signal of workload pid/comm, one HTTP request. */
static struct enav_signal *http_span(uint32_t pid, const char *comm, uint8_t id)
{
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_SPAN, 0);
	assert_non_null(s);
	s->process.pid = pid;
	snprintf(s->process.comm, sizeof(s->process.comm), "%s", comm);
	s->net.role = ENAV_ROLE_SERVER;
	s->net.family = 4;
	s->net.remote_port = 40000 + id;
	uint8_t peer[4] = {10, 0, 0, id};
	memcpy(s->net.remote_addr, peer, 4);
	s->span.op.protocol = ENAV_L7_HTTP1;
	s->span.op.status_code = 200;
	snprintf(s->span.op.operation, sizeof(s->span.op.operation), "GET");
	snprintf(s->span.op.target, sizeof(s->span.op.target), "/item/%u", id);
	snprintf(s->span.op.path, sizeof(s->span.op.path), "/item/%u", id);
	memset(s->span.trace_id, 0x10 + id, sizeof(s->span.trace_id));
	memset(s->span.span_id, 0x20 + id, sizeof(s->span.span_id));
	s->span.id_source = "connection";
	s->span.start_time_unix_ns = 1000 + id;
	s->span.end_time_unix_ns = 2000 + id;
	return s;
}

/* Occurrences of needle in text. */
static size_t count_of(const char *text, const char *needle)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* Every string the span encoder copies (keys, values, the name) is written
 * by short fixed-size moves chosen by its length (issue 32): a route of each
 * length from 0 to 40 bytes comes out whole in http.route and in the span's
 * name, and every key of an HTTP span is there, whole. */
static void test_span_strings_every_length(void **state)
{
	(void)state;
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	static const char *const keys[] = {"network.peer.address",
					   "network.peer.port",
					   "enav.l7.protocol",
					   "enav.span.id_source",
					   "http.request.method",
					   "http.route",
					   "url.path",
					   "network.protocol.name",
					   "network.protocol.version",
					   "http.response.status_code"};
	struct enav_otlp_span_encoder *e = enav_otlp_span_encoder_new(NULL, 0);
	assert_non_null(e);
	for (size_t n = 0; n <= 40; n++) {
		struct enav_signal *s = http_span(100, "nginx", 7);
		memset(s->span.op.target, 0, sizeof(s->span.op.target));
		memcpy(s->span.op.target, letters, n);
		struct enav_pb_writer w;
		enav_pb_writer_init(&w, 0);
		void *const items[1] = {s};
		assert_int_equal(enav_otlp_span_encoder_run(e, &w, items, 1), 0);
		char *t = protoc_decode(
		    "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
		    "opentelemetry/proto/collector/trace/v1/trace_service.proto", w.buf, w.len);
		char want[128];
		snprintf(want, sizeof(want), "string_value: \"%.*s\"\n", (int)n, letters);
		expect(t, "spans", want);
		snprintf(want, sizeof(want), "name: \"GET%s%.*s\"\n", n ? " " : "", (int)n,
			 letters);
		expect(t, "spans", want);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			snprintf(want, sizeof(want), "key: \"%s\"\n", keys[k]);
			expect(t, "spans", want);
		}
		expect(t, "spans", "string_value: \"10.0.0.7\"\n");
		expect(t, "spans", "string_value: \"1.1\"\n");
		expect(t, "spans", "string_value: \"connection\"\n");
		free(t);
		enav_pb_writer_free(&w);
		enav_signal_unref(s);
	}
	enav_otlp_span_encoder_free(e);
}

/* One ResourceSpans per workload in a batch (issue 37), not per span:
 * spans of two processes interleaved with a TCP close come out as two
 * resources, each span under its own process, in batch order, and the
 * body decodes against the schema.  (The encoder before this one wrote a
 * ResourceSpans per span: 5 here.) */
static void test_spans_grouped_by_workload(void **state)
{
	(void)state;
	struct enav_signal *items[5] = {
	    http_span(100, "nginx", 1), http_span(200, "wrk", 2), http_span(100, "nginx", 3),
	    enav_signal_new(ENAV_SIGNAL_TCP_CLOSE, 0), http_span(100, "nginx", 4)};
	assert_non_null(items[3]);
	items[3]->process.pid = 200;
	snprintf(items[3]->process.comm, sizeof(items[3]->process.comm), "wrk");
	items[3]->net.family = 4;
	items[3]->net.role = ENAV_ROLE_CLIENT;
	items[3]->net.remote_port = 8080;
	items[3]->time_unix_ns = 5000;
	static const struct enav_otlp_kv node[] = {
	    {.key = "host.name", .type = ENAV_OTLP_STR, .s = "node-1"},
	    {.key = "service.name", .type = ENAV_OTLP_STR, .s = "e-navigator"},
	};
	struct enav_otlp_span_encoder *e = enav_otlp_span_encoder_new(node, 2);
	assert_non_null(e);
	struct enav_pb_writer w;
	enav_pb_writer_init(&w, 0);
	assert_int_equal(enav_otlp_span_encoder_run(e, &w, (void *const *)items, 5), 0);
	dump("spans", &w);
	char *t = protoc_decode("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
				"opentelemetry/proto/collector/trace/v1/trace_service.proto", w.buf,
				w.len);
	FAIL_IF(count_of(t, "resource_spans {") != 2, "otlp spans: want 2 resource_spans:\n%s\n",
		t);
	FAIL_IF(count_of(t, "\n    spans {") != 5, "otlp spans: want 5 spans:\n%s\n", t);
	FAIL_IF(count_of(t, "string_value: \"node-1\"") != 2,
		"otlp spans: the node's attributes in each resource:\n%s\n", t);
	/* nginx first (first seen), its three spans in batch order, then wrk's. */
	const char *nginx = strstr(t, "string_value: \"nginx\"");
	const char *wrk = strstr(t, "string_value: \"wrk\"");
	assert_non_null(nginx);
	assert_non_null(wrk);
	const char *i1 = strstr(t, "name: \"GET /item/1\""),
		   *i3 = strstr(t, "name: \"GET /item/3\""),
		   *i4 = strstr(t, "name: \"GET /item/4\""),
		   *i2 = strstr(t, "name: \"GET /item/2\""),
		   *tcp = strstr(t, "name: \"tcp connect\"");
	FAIL_IF(!i1 || !i2 || !i3 || !i4 || !tcp, "otlp spans: a span is missing:\n%s\n", t);
	FAIL_IF(!(nginx < i1 && i1 < i3 && i3 < i4 && i4 < wrk && wrk < i2 && i2 < tcp),
		"otlp spans: spans not under their workload in batch order:\n%s\n", t);
	expect(t, "spans", "int_value: 100");
	expect(t, "spans", "int_value: 200");
	expect(t, "spans", "key: \"url.path\"");
	expect(t, "spans", "key: \"http.response.status_code\"");
	expect(t, "spans", "string_value: \"10.0.0.3\"");
	expect(t, "spans", "string_value: \"connection\"");
	expect(t, "spans", "kind: SPAN_KIND_SERVER");
	expect(t, "spans", "kind: SPAN_KIND_CLIENT");
	expect(t, "spans", "name: \"e-navigator\"");
	free(t);

	/* A reused encoder writes the same bytes for the same spans (the TCP
	 * span's ids are random: left out). */
	void *const http[4] = {items[0], items[1], items[2], items[4]};
	struct enav_pb_writer once, again;
	enav_pb_writer_init(&once, 0);
	enav_pb_writer_init(&again, 0);
	assert_int_equal(enav_otlp_span_encoder_run(e, &once, http, 4), 0);
	assert_int_equal(enav_otlp_span_encoder_run(e, &again, (void *const *)items, 5), 0);
	size_t before = again.len;
	assert_int_equal(enav_otlp_span_encoder_run(e, &again, http, 4), 0);
	assert_int_equal(again.len - before, once.len);
	FAIL_IF(memcmp(again.buf + before, once.buf, once.len),
		"otlp spans: a reused encoder wrote other bytes\n");
	enav_pb_writer_free(&once);
	enav_pb_writer_free(&again);

	/* A limit the batch does not fit in: -E2BIG. */
	struct enav_pb_writer small;
	enav_pb_writer_init(&small, w.len - 1);
	assert_int_equal(enav_otlp_span_encoder_run(e, &small, (void *const *)items, 5), -E2BIG);
	enav_pb_writer_free(&small);
	enav_pb_writer_free(&w);
	enav_otlp_span_encoder_free(e);
	for (size_t i = 0; i < 5; i++)
		enav_signal_unref(items[i]);
}

/* The encoder remembers the last peer and url.path it wrote as text: each
 * span still carries its own, when they alternate within a batch and across
 * batches (paths and addresses of one length, so only their bytes differ). */
static void test_spans_peer_path_own(void **state)
{
	(void)state;
	static const uint8_t who[] = {1, 2, 1, 1, 2, 2, 1};
	enum { N = sizeof(who) };
	struct enav_signal *items[N];
	for (size_t i = 0; i < N; i++) {
		items[i] = http_span(100, "nginx", who[i]);
		snprintf(items[i]->span.op.path, sizeof(items[i]->span.op.path), "%s",
			 who[i] == 1 ? "/alpha" : "/gamma");
	}
	struct enav_otlp_span_encoder *e = enav_otlp_span_encoder_new(NULL, 0);
	assert_non_null(e);
	for (int round = 0; round < 2; round++) {
		struct enav_pb_writer w;
		enav_pb_writer_init(&w, 0);
		/* The second batch starts where the first ended: with span 2's. */
		void *const *batch = (void *const *)items + round;
		assert_int_equal(enav_otlp_span_encoder_run(e, &w, batch, N - round), 0);
		char *t = protoc_decode(
		    "opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
		    "opentelemetry/proto/collector/trace/v1/trace_service.proto", w.buf, w.len);
		size_t seen = 0;
		for (const char *sp = strstr(t, "\n    spans {"); sp;) {
			const char *next = strstr(sp + 1, "\n    spans {");
			size_t len = next ? (size_t)(next - sp) : strlen(sp);
			char *one = strndup(sp, len);
			assert_non_null(one);
			bool first = strstr(one, "name: \"GET /item/1\"") != NULL;
			FAIL_IF(!strstr(one, first ? "\"/alpha\"" : "\"/gamma\"") ||
				    !strstr(one, first ? "\"10.0.0.1\"" : "\"10.0.0.2\"") ||
				    strstr(one, first ? "\"/gamma\"" : "\"/alpha\"") ||
				    strstr(one, first ? "\"10.0.0.2\"" : "\"10.0.0.1\""),
				"otlp spans: a span with another's peer or path:\n%s\n", one);
			free(one);
			seen++;
			sp = next;
		}
		FAIL_IF(seen != N - (size_t)round, "otlp spans: %zu spans, want %zu:\n%s\n", seen,
			N - (size_t)round, t);
		free(t);
		enav_pb_writer_free(&w);
	}
	enav_otlp_span_encoder_free(e);
	for (size_t i = 0; i < N; i++)
		enav_signal_unref(items[i]);
}

/* Many workloads in one batch (hash collisions, scratch growing past its
 * first size): each gets exactly its own spans. */
static void test_spans_many_workloads(void **state)
{
	(void)state;
	enum { N = 600, WORKLOADS = 150 };
	static struct enav_signal *items[N];
	for (size_t i = 0; i < N; i++)
		items[i] = http_span(1000 + (uint32_t)(i % WORKLOADS), "app", (uint8_t)(i % 200));
	struct enav_otlp_span_encoder *e = enav_otlp_span_encoder_new(NULL, 0);
	assert_non_null(e);
	struct enav_pb_writer w;
	enav_pb_writer_init(&w, 0);
	assert_int_equal(enav_otlp_span_encoder_run(e, &w, (void *const *)items, N), 0);
	char *t = protoc_decode("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest",
				"opentelemetry/proto/collector/trace/v1/trace_service.proto", w.buf,
				w.len);
	FAIL_IF(count_of(t, "resource_spans {") != WORKLOADS,
		"otlp spans: %zu resource_spans, want %d\n", count_of(t, "resource_spans {"),
		WORKLOADS);
	FAIL_IF(count_of(t, "\n    spans {") != N, "otlp spans: %zu spans, want %d\n",
		count_of(t, "\n    spans {"), N);
	/* Every resource holds N / WORKLOADS spans. */
	for (const char *r = strstr(t, "resource_spans {"); r;) {
		const char *next = strstr(r + 1, "resource_spans {");
		size_t spans = 0;
		for (const char *p = r; (p = strstr(p, "\n    spans {")) && (!next || p < next);
		     p++)
			spans++;
		FAIL_IF(spans != N / WORKLOADS, "otlp spans: a resource with %zu spans\n", spans);
		r = next;
	}
	free(t);
	enav_pb_writer_free(&w);
	enav_otlp_span_encoder_free(e);
	for (size_t i = 0; i < N; i++)
		enav_signal_unref(items[i]);
}

/* The backward writer writes what the forward one does, growing as needed. */
static void test_pb_backward_writer(void **state)
{
	(void)state;
	struct enav_pb_writer f;
	struct enav_pb_rev r;
	enav_pb_writer_init(&f, 0);
	enav_pb_rev_init(&r, 0);
	static char big[20000];
	memset(big, 'x', sizeof(big));
	/* Forward: message 1 { 1: "ab", 2: varint 300, 3: big } twice, then 4: fixed64. */
	for (int k = 0; k < 2; k++) {
		enav_pb_begin(&f, 1);
		enav_pb_bytes(&f, 1, "ab", 2);
		enav_pb_varint(&f, 2, 300);
		enav_pb_bytes(&f, 3, big, sizeof(big));
		enav_pb_end(&f);
	}
	enav_pb_fixed64(&f, 4, 0x0102030405060708ull);
	/* Backward: last field first, each piece reserved. */
	assert_true(enav_pb_rev_reserve(&r, 16));
	enav_pb_rev_set(
	    &r, enav_pb_fixed64_at(enav_pb_rev_at(&r), ENAV_PB_TAG1(4, 1), 0x0102030405060708ull));
	for (int k = 0; k < 2; k++) {
		assert_true(enav_pb_rev_reserve(&r, sizeof(big) + 64));
		uint8_t *p = enav_pb_rev_at(&r), *end = p;
		p = enav_pb_bytes_at(p, ENAV_PB_TAG1(3, 2), big, sizeof(big));
		p = enav_pb_varint_at(p, 300);
		*--p = ENAV_PB_TAG1(2, 0);
		p = enav_pb_bytes_at(p, ENAV_PB_TAG1(1, 2), "ab", 2);
		enav_pb_rev_set(&r, enav_pb_close_at(p, end, ENAV_PB_TAG1(1, 2)));
	}
	assert_false(f.failed);
	assert_false(r.failed);
	assert_int_equal(r.len, f.len);
	assert_memory_equal(enav_pb_rev_data(&r), f.buf, f.len);
	/* Past the limit: refused, and sticky. */
	struct enav_pb_rev lim;
	enav_pb_rev_init(&lim, 100);
	assert_true(enav_pb_rev_reserve(&lim, 100));
	assert_false(enav_pb_rev_reserve(&lim, 101));
	assert_true(lim.failed);
	assert_false(enav_pb_rev_reserve(&lim, 1));
	enav_pb_rev_reset(&lim);
	assert_true(enav_pb_rev_reserve(&lim, 1));
	enav_pb_rev_free(&lim);
	enav_pb_rev_free(&r);
	enav_pb_writer_free(&f);
}

/* ---- profiles linked to spans ---- */

/* Occurrences of field number in msg, of any wire type. */
static size_t count_field(struct span msg, uint32_t number)
{
	struct enav_pb_reader r = reader(msg);
	struct enav_pb_field f;
	size_t n = 0;
	int rc;

	while ((rc = enav_pb_next(&r, &f)) == 1)
		n += f.number == number;
	assert_int_equal(rc, 0);
	return n;
}

/* A sample's trace_id and span_id labels become a Link in the dictionary's
 * link_table (ADR 0021), interned, and the sample's link_index; a sample
 * without both, or with a malformed one, has no link_index at all. */
static void test_profile_links(void **state)
{
	(void)state;
	/* Pair A has unprintable bytes, pair B prints as ASCII ("0123456789abcdef",
	 * "spanid01") so protoc's text shows it plainly. */
	static const char trace_a[] = "4bf92f3577b34da6a3ce929d0e0e4736",
			  trace_a_upper[] = "4BF92F3577B34DA6A3CE929D0E0E4736",
			  span_a[] = "00f067aa0ba902b7",
			  trace_b[] = "30313233343536373839616263646566",
			  span_b[] = "7370616e69643031";
	static const uint8_t trace_a_bytes[16] = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
						  0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36},
			     span_a_bytes[8] = {0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7};
	static const struct enav_pprof_value_type types[] = {{"cpu", "nanoseconds"}};
	struct {
		const char *why;
		struct enav_pprof_label lb[3];
		size_t n;
		uint64_t link; /* the link_index wanted: 0 = none */
	} cases[] = {
	    {"pair A",
	     {{.key = "trace_id", .str = trace_a},
	      {.key = "span_id", .str = span_a},
	      {.key = "thread", .str = "worker-1"}},
	     3,
	     1},
	    {"pair A again, span_id first",
	     {{.key = "span_id", .str = span_a}, {.key = "trace_id", .str = trace_a}},
	     2,
	     1},
	    {"pair B",
	     {{.key = "trace_id", .str = trace_b}, {.key = "span_id", .str = span_b}},
	     2,
	     2},
	    {"trace_id only", {{.key = "trace_id", .str = trace_a}}, 1, 0},
	    {"non-hex span_id",
	     {{.key = "trace_id", .str = trace_a}, {.key = "span_id", .str = "00f067aa0ba902bz"}},
	     2,
	     0},
	    {"31-digit trace_id",
	     {{.key = "trace_id", .str = "4bf92f3577b34da6a3ce929d0e0e473"},
	      {.key = "span_id", .str = span_a}},
	     2,
	     0},
	    {"pair A in capitals",
	     {{.key = "trace_id", .str = trace_a_upper}, {.key = "span_id", .str = span_a}},
	     2,
	     1},
	};
	enum { N = sizeof(cases) / sizeof(cases[0]) };
	struct enav_pprof *p = enav_pprof_new(types, 1, types[0], 10000000, 1700000000000000000ll,
					      10000000000ll, NULL);

	assert_non_null(p);
	uint64_t m = enav_pprof_mapping(p, 0x400000, 0x500000, 0, "/usr/bin/orders", NULL);
	uint64_t loc = enav_pprof_location(p, m, 0x401234, "main.work", "/src/work.go", 42);

	for (size_t i = 0; i < N; i++) {
		const int64_t v = (int64_t)i + 1; /* which sample it is */

		assert_int_equal(enav_pprof_sample(p, &loc, 1, &v, 1, cases[i].lb, cases[i].n), 0);
	}
	uint8_t *raw = NULL;
	size_t raw_len = 0;

	assert_int_equal(enav_pprof_encode(p, false, &raw, &raw_len), 0);
	enav_pprof_free(p);

	const struct enav_otlp_profile_in in[] = {{res, raw, raw_len, NULL}};
	struct enav_pb_writer w;
	char err[256];

	enav_pb_writer_init(&w, 0);
	int rc = enav_otlp_encode_profiles(&w, scope, in, 1, err, sizeof(err));

	FAIL_IF(rc != 0, "otlp profile links: rc %d: %s\n", rc, err);
	dump("profile_links", &w);

	/* link_table: the zero Link, then A, then B, each once. */
	struct span req = {w.buf, w.len}, dict = one(req, 2), links[8];
	size_t n_links = fields(dict, 4, links, 8);

	FAIL_IF(n_links != 3, "otlp profile links: link_table has %zu entries, want 3\n", n_links);
	static const uint8_t zero[16];
	const struct {
		const uint8_t *trace, *span;
	} want_links[3] = {{zero, zero},
			   {trace_a_bytes, span_a_bytes},
			   {(const uint8_t *)"0123456789abcdef", (const uint8_t *)"spanid01"}};

	for (size_t i = 0; i < 3; i++) {
		struct span t = one(links[i], 1), sp = one(links[i], 2);

		FAIL_IF(t.n != 16 || sp.n != 8 || count_field(links[i], 1) != 1 ||
			    count_field(links[i], 2) != 1,
			"otlp profile links: link_table[%zu]: trace_id %zu bytes, span_id %zu\n", i,
			t.n, sp.n);
		assert_memory_equal(t.p, want_links[i].trace, 16);
		assert_memory_equal(sp.p, want_links[i].span, 8);
	}

	/* One Profile (one sample type), its samples in order. */
	struct span rps[2], sps[2], profs[2], samples[N + 1];

	assert_int_equal(fields(req, 1, rps, 2), 1);
	assert_int_equal(fields(rps[0], 2, sps, 2), 1);
	assert_int_equal(fields(sps[0], 2, profs, 2), 1);
	assert_int_equal(fields(profs[0], 2, samples, N + 1), N);
	for (size_t i = 0; i < N; i++) {
		struct enav_pb_reader vr = reader(one(samples[i], 4));
		uint64_t v = 0;

		assert_int_equal(enav_pb_read_varint(&vr, &v), 1);
		assert_int_equal(v, i + 1);
		size_t has = count_field(samples[i], 3);
		uint64_t link = varint_field(samples[i], 3);

		FAIL_IF(cases[i].link ? has != 1 || link != cases[i].link : has != 0,
			"otlp profile links: sample %zu (%s): %zu link_index fields, %" PRIu64
			", want %s%" PRIu64 "\n",
			i, cases[i].why, has, link, cases[i].link ? "" : "none, not even ",
			cases[i].link);
	}

	/* The schema agrees. */
	char *t = protoc_decode(
	    "opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest",
	    "opentelemetry/proto/collector/profiles/v1development/profiles_service.proto", w.buf,
	    w.len);

	FAIL_IF(count_of(t, "link_table {") != 3, "otlp profile links: want 3 link_table:\n%s\n",
		t);
	FAIL_IF(count_of(t, "link_index: 1\n") != 3 || count_of(t, "link_index: 2\n") != 1 ||
		    count_of(t, "link_index: ") != 4,
		"otlp profile links: want link_index 1 three times, 2 once, no other:\n%s\n", t);
	expect(t, "profile links",
	       "trace_id: \"K\\371/5w\\263M\\246\\243\\316\\222\\235\\016\\016G6\"");
	expect(t, "profile links", "span_id: \"\\000\\360g\\252\\013\\251\\002\\267\"");
	expect(t, "profile links", "trace_id: \"0123456789abcdef\"\n");
	expect(t, "profile links", "span_id: \"spanid01\"\n");
	free(t);
	enav_pb_writer_free(&w);
	free(raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_metrics),
	    cmocka_unit_test(test_metrics_invalid),
	    cmocka_unit_test(test_traces),
	    cmocka_unit_test(test_logs),
	    cmocka_unit_test(test_span_url_path_redacted),
	    cmocka_unit_test(test_spans_peer_path_own),
	    cmocka_unit_test(test_spans_grouped_by_workload),
	    cmocka_unit_test(test_span_strings_every_length),
	    cmocka_unit_test(test_spans_many_workloads),
	    cmocka_unit_test(test_pb_backward_writer),
	    cmocka_unit_test(test_profiles),
	    cmocka_unit_test(test_profiles_from_tables),
	    cmocka_unit_test(test_profile_links),
	    cmocka_unit_test(test_partial_success),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
