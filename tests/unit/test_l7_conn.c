/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The connection tracker: fragments in, span signals out.  Uses the HTTP/1
 * parser as a real protocol; checks role mapping (including a connection
 * that predates the agent, whose role comes from its first bytes), span ids
 * that pair a client and a server with no shared state, traceparent taking
 * precedence, gap detection from TCP sequence numbers, LRU eviction at the
 * cap, and finishing on close.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "platform/promtext.h"
#include "features/network/l7/l7_conn.h"

#define MAX_SPANS 64

static struct enav_signal *spans[MAX_SPANS];
static size_t n_spans;

static void collect(void *ctx, struct enav_signal *s)
{
	(void)ctx;
	if (n_spans < MAX_SPANS)
		spans[n_spans++] = s;
	else
		enav_signal_unref(s);
}

static void reset_spans(void)
{
	for (size_t i = 0; i < n_spans; i++)
		enav_signal_unref(spans[i]);
	n_spans = 0;
}

static struct enav_l7_tracker *tracker(uint32_t max_conns)
{
	struct enav_l7_tracker_config cfg = {
	    .max_connections = max_conns,
	    .idle_timeout_ms = 1000,
	    .protocols = 1u << ENAV_L7_HTTP1,
	    .options = {.max_pending = 8},
	};
	struct enav_l7_tracker *t = enav_l7_tracker_new(&cfg, collect, NULL);
	assert_non_null(t);
	return t;
}

/* A fragment on the client (port 40000) or server (port 80) socket of
 * 127.0.0.1:40000 <-> 127.0.0.1:80. */
static uint8_t feed_flags = ENAV_L7_SEQ_VALID, feed_library = ENAV_TLS_LIB_NONE;

static void feed(struct enav_l7_tracker *t, uint64_t sock, uint8_t role, bool server_side,
		 bool sent, const char *data, uint32_t seq, uint64_t ts)
{
	struct enav_l7_event e;
	memset(&e, 0, sizeof(e));
	e.hdr.type = ENAV_EVENT_L7_DATA;
	e.hdr.abi_version = ENAV_ABI_VERSION;
	e.hdr.boot_time_ns = ts;
	e.hdr.pid = server_side ? 200 : 100;
	e.hdr.tid = e.hdr.pid;
	e.hdr.cgroup_id = 7;
	e.sock_id = sock;
	e.len = e.captured = (uint32_t)strlen(data);
	e.seq = seq;
	e.direction = sent ? ENAV_L7_SENT : ENAV_L7_RECEIVED;
	e.protocol = ENAV_L7_HTTP1;
	e.role = role;
	e.flags = feed_flags;
	e.tls_library = feed_library;
	e.family = 2;
	e.sport = server_side ? 80 : 40000;
	e.dport = server_side ? 40000 : 80;
	e.saddr[0] = e.daddr[0] = 127;
	e.saddr[3] = e.daddr[3] = 1;
	snprintf(e.comm, sizeof(e.comm), server_side ? "server" : "client");
	enav_l7_tracker_data(t, &e, (const uint8_t *)data);
}

static const char *req = "GET /users/42 HTTP/1.1\r\nHost: x\r\n\r\n";
static const char *resp = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";

static void test_client_server_pairing(void **st)
{
	(void)st;
	struct enav_l7_tracker *t = tracker(16);
	feed(t, 1, ENAV_ROLE_CLIENT, false, true, req, 5000, 1000);
	feed(t, 2, ENAV_ROLE_SERVER, true, false, req, 5000, 1100);
	feed(t, 2, ENAV_ROLE_SERVER, true, true, resp, 9000, 1500);
	feed(t, 1, ENAV_ROLE_CLIENT, false, false, resp, 9000, 1600);
	assert_int_equal(n_spans, 2);
	const struct enav_signal *sv = spans[0], *cl = spans[1];
	assert_int_equal(sv->net.role, ENAV_ROLE_SERVER);
	assert_int_equal(cl->net.role, ENAV_ROLE_CLIENT);
	assert_int_equal(sv->process.pid, 200);
	assert_int_equal(cl->process.pid, 100);
	assert_string_equal(cl->span.op.operation, "GET");
	assert_string_equal(cl->span.op.target, "/users/{id}");
	assert_int_equal(cl->span.op.status_code, 404);
	assert_true(cl->span.op.error);	 /* 4xx: the client's error */
	assert_false(sv->span.op.error); /* but not the server's */
	assert_int_equal(cl->span.op.start_ns, 1000);
	assert_int_equal(cl->span.op.end_ns, 1600);
	assert_int_equal(sv->span.op.start_ns, 1100);
	assert_int_equal(sv->span.op.end_ns, 1500);
	assert_memory_equal(cl->span.trace_id, sv->span.trace_id, 16);
	assert_memory_equal(sv->span.parent_span_id, cl->span.span_id, 8);
	assert_memory_not_equal(sv->span.span_id, cl->span.span_id, 8);
	static const uint8_t zero[8];
	assert_memory_equal(cl->span.parent_span_id, zero, 8);
	assert_string_equal(cl->span.id_source, "connection");
	reset_spans();
	/* The next request on the same connection is another trace. */
	uint8_t first[16];
	uint32_t rq = (uint32_t)strlen(req), rs = (uint32_t)strlen(resp);
	feed(t, 1, ENAV_ROLE_CLIENT, false, true, req, 5000 + rq, 2000);
	feed(t, 1, ENAV_ROLE_CLIENT, false, false, resp, 9000 + rs, 2100);
	assert_int_equal(n_spans, 1);
	memcpy(first, spans[0]->span.trace_id, 16);
	reset_spans();
	feed(t, 1, ENAV_ROLE_CLIENT, false, true, req, 5000 + 2 * rq, 3000);
	feed(t, 1, ENAV_ROLE_CLIENT, false, false, resp, 9000 + 2 * rs, 3100);
	assert_int_equal(n_spans, 1);
	assert_memory_not_equal(first, spans[0]->span.trace_id, 16);
	reset_spans();
	enav_l7_tracker_free(t);
}

static void test_traceparent_wins(void **st)
{
	(void)st;
	struct enav_l7_tracker *t = tracker(16);
	feed(t, 1, ENAV_ROLE_SERVER, true, false,
	     "GET / HTTP/1.1\r\ntraceparent: "
	     "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n\r\n",
	     1, 10);
	feed(t, 1, ENAV_ROLE_SERVER, true, true, resp, 1, 20);
	assert_int_equal(n_spans, 1);
	const struct enav_span_signal *sp = &spans[0]->span;
	static const uint8_t tid[16] = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
					0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36};
	static const uint8_t pid[8] = {0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7};
	assert_memory_equal(sp->trace_id, tid, 16);
	assert_memory_equal(sp->parent_span_id, pid, 8);
	assert_string_equal(sp->id_source, "traceparent");
	reset_spans();
	enav_l7_tracker_free(t);
}

static uint64_t metric(struct enav_l7_tracker *t, const char *line_prefix)
{
	static char buf[1 << 16];
	struct enav_promtext p;
	enav_promtext_init(&p, buf, sizeof(buf));
	enav_l7_tracker_metrics(t, &p);
	buf[p.len < sizeof(buf) ? p.len : sizeof(buf) - 1] = '\0';
	/* A sample line, not the HELP line that names the family too. */
	char want[160];
	snprintf(want, sizeof(want), "\n%s", line_prefix);
	const char *at = strstr(buf, want);
	assert_non_null(at);
	return strtoull(at + strlen(want), NULL, 10);
}

static void test_unknown_role_gap_evict_close(void **st)
{
	(void)st;
	struct enav_l7_tracker *t = tracker(16);
	/* Predates the agent: the server socket reads a request first. */
	feed(t, 1, ENAV_ROLE_UNKNOWN, true, false, req, 100, 10);
	assert_int_equal(n_spans, 0);
	feed(t, 1, ENAV_ROLE_UNKNOWN, true, true, resp, 900, 20);
	assert_int_equal(n_spans, 1);
	assert_int_equal(spans[0]->net.role, ENAV_ROLE_SERVER);
	reset_spans();
	/* Bytes missing before the next request: a gap, then a clean request. */
	feed(t, 1, ENAV_ROLE_UNKNOWN, true, false, req, 100 + (uint32_t)strlen(req) + 7, 30);
	assert_int_equal(metric(t, "enav_l7_stream_gaps_total "), 1);
	/* Twenty more connections into sixteen slots: the oldest go. */
	for (uint64_t s = 10; s < 30; s++)
		feed(t, s, ENAV_ROLE_CLIENT, false, true, req, 1, 40 + s);
	assert_int_equal(metric(t, "enav_l7_connections_dropped_total{reason=\"evicted_lru\"} "),
			 5);
	assert_int_equal(metric(t, "enav_l7_connections "), 16);
	/* Closing finishes a connection: its pending request is emitted
	 * without a response. */
	reset_spans();
	enav_l7_tracker_close(t, 29);
	assert_int_equal(metric(t, "enav_l7_connections "), 15);
	assert_int_equal(n_spans, 1);
	assert_false(spans[0]->span.op.response_seen);
	reset_spans();
	/* Idle ones expire. */
	enav_l7_tracker_expire(t, 10ull * 1000000000ull);
	assert_int_equal(metric(t, "enav_l7_connections "), 0);
	reset_spans();
	enav_l7_tracker_free(t);
}

/* TLS plaintext: the library is named on the span; offsets both ends agree
 * on (FROM_START) pair client and server, offsets from mid-session do not
 * (their ids are random); a connection that goes from plaintext to TLS
 * (PostgreSQL's SSLRequest) restarts its stream instead of showing a gap. */
static void test_tls_plaintext(void **st)
{
	(void)st;
	struct enav_l7_tracker *t = tracker(16);
	feed_flags = ENAV_L7_SEQ_VALID | ENAV_L7_TLS | ENAV_L7_TLS_FROM_START;
	feed_library = ENAV_TLS_LIB_OPENSSL;
	uint32_t rq = (uint32_t)strlen(req);
	feed(t, 1, ENAV_ROLE_CLIENT, false, true, req, 1000, 10);
	feed(t, 2, ENAV_ROLE_SERVER, true, false, req, 1000, 11);
	feed(t, 2, ENAV_ROLE_SERVER, true, true, resp, 1000, 12);
	feed(t, 1, ENAV_ROLE_CLIENT, false, false, resp, 1000, 13);
	assert_int_equal(n_spans, 2);
	assert_string_equal(spans[0]->span.tls_library, "openssl");
	assert_string_equal(spans[1]->span.tls_library, "openssl");
	assert_string_equal(spans[1]->span.id_source, "connection");
	assert_memory_equal(spans[0]->span.trace_id, spans[1]->span.trace_id, 16);
	reset_spans();
	/* Mid-session offsets are each end's own count: no shared id. */
	feed_flags = ENAV_L7_SEQ_VALID | ENAV_L7_TLS;
	feed_library = ENAV_TLS_LIB_GO;
	feed(t, 3, ENAV_ROLE_CLIENT, false, true, req, 0, 20);
	feed(t, 3, ENAV_ROLE_CLIENT, false, false, resp, 0, 21);
	assert_int_equal(n_spans, 1);
	assert_string_equal(spans[0]->span.tls_library, "go");
	assert_string_equal(spans[0]->span.id_source, "random");
	reset_spans();
	/* Plaintext first (sequence 5000), then TLS (offset 77): a new stream. */
	feed_flags = ENAV_L7_SEQ_VALID;
	feed_library = ENAV_TLS_LIB_NONE;
	feed(t, 4, ENAV_ROLE_CLIENT, false, true, req, 5000, 30);
	feed(t, 4, ENAV_ROLE_CLIENT, false, false, resp, 9000, 31);
	assert_int_equal(n_spans, 1);
	assert_null(spans[0]->span.tls_library);
	reset_spans();
	feed_flags = ENAV_L7_SEQ_VALID | ENAV_L7_TLS | ENAV_L7_TLS_FROM_START;
	feed_library = ENAV_TLS_LIB_GNUTLS;
	feed(t, 4, ENAV_ROLE_CLIENT, false, true, req, 77, 40);
	feed(t, 4, ENAV_ROLE_CLIENT, false, false, resp, 77, 41);
	feed(t, 4, ENAV_ROLE_CLIENT, false, true, req, 77 + rq, 42);
	assert_int_equal(n_spans, 1);
	assert_string_equal(spans[0]->span.tls_library, "gnutls");
	assert_int_equal(metric(t, "enav_l7_tls_switches_total "), 1);
	assert_int_equal(metric(t, "enav_l7_stream_gaps_total "), 0);
	reset_spans();
	feed_flags = ENAV_L7_SEQ_VALID;
	feed_library = ENAV_TLS_LIB_NONE;
	enav_l7_tracker_free(t);
	reset_spans();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_client_server_pairing),
	    cmocka_unit_test(test_traceparent_wins),
	    cmocka_unit_test(test_unknown_role_gap_evict_close),
	    cmocka_unit_test(test_tls_plaintext),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
