/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the HTTP/2 / gRPC parser (src/features/network/l7/http2.c).
 *
 * Input: one options byte (bit 0 keep_query, bits 1-5 max_pending - 1), then
 * records, each a fragment:
 *   ctl      bit 0 stream (1 = response); bits 1-3 all set: gap;
 *            bit 4: an uncaptured tail follows (one more byte: its length / 256);
 *            bits 5-7: ts step
 *   n_lo, n_hi   captured length (12 bits)
 *   [extra]  when bit 4
 *   n bytes  (cut to what the input still holds)
 * The records are parsed from exact-size heap copies twice: as given, and
 * with every fragment cut in two at its middle (same ts, seq moved on).  The
 * two runs must emit the same operations and statistics; every operation
 * must hold the output invariants; finish is always called.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/network/l7/l7.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define MAX_OPS 512

struct run {
	struct enav_l7_op ops[MAX_OPS];
	size_t n, dropped;
	struct enav_l7_parser_stats stats;
	uint64_t first_ts, last_ts;
	uint64_t bytes[2]; /* wire bytes fed per stream */
};

static struct run g_a, g_b;

static void check_text(const char *s, size_t cap, bool allow_empty)
{
	const char *nul = memchr(s, '\0', cap);
	CHECK(nul != NULL);
	size_t n = (size_t)(nul - s);
	CHECK(allow_empty || n > 0);
	for (size_t i = 0; i < n; i++)
		CHECK(s[i] >= 0x20 && s[i] < 0x7f);
}

static void on_op(void *ctx, const struct enav_l7_op *op)
{
	struct run *r = ctx;
	CHECK(op->protocol == ENAV_L7_HTTP2);
	CHECK(op->kind == ENAV_L7_OP_REQUEST);
	check_text(op->operation, sizeof(op->operation), false);
	check_text(op->target, sizeof(op->target), true);
	check_text(op->path, sizeof(op->path), true);
	check_text(op->status, sizeof(op->status), true);
	check_text(op->statement, sizeof(op->statement), true);
	CHECK(op->statement[0] == '\0');
	CHECK(op->end_ns >= op->start_ns);
	CHECK(op->start_ns >= r->first_ts && op->end_ns <= r->last_ts);
	CHECK(op->stream_id != 0 && op->stream_id <= 0x7fffffffu);
	CHECK(op->status_code >= -1);
	CHECK((op->status_code >= 0) == (op->status[0] >= '0' && op->status[0] <= '9') ||
	      strncmp(op->status, "RST_STREAM ", 11) == 0 ||
	      strncmp(op->status, "GOAWAY ", 7) == 0);
	if (op->status[0] == 'R' || op->status[0] == 'G')
		CHECK(op->error);
	/* every stream's request starts with a HEADERS frame */
	CHECK(op->request_bytes >= 9 && op->request_bytes <= r->bytes[ENAV_L7_REQUEST]);
	CHECK(op->response_bytes <= r->bytes[ENAV_L7_RESPONSE]);
	if (op->response_seen && op->status[0] != 'R')
		CHECK(op->response_bytes >= 9);
	if (!op->has_traceparent) {
		static const uint8_t zero[16];
		CHECK(memcmp(op->trace_id, zero, 16) == 0 && op->trace_flags == 0);
	}
	if (r->n < MAX_OPS)
		r->ops[r->n++] = *op;
	else
		r->dropped++;
}

static bool same_op(const struct enav_l7_op *x, const struct enav_l7_op *y)
{
	return strcmp(x->operation, y->operation) == 0 && strcmp(x->target, y->target) == 0 &&
	       strcmp(x->path, y->path) == 0 && strcmp(x->status, y->status) == 0 &&
	       x->status_code == y->status_code && x->error == y->error && x->rpc == y->rpc &&
	       x->response_seen == y->response_seen && x->start_ns == y->start_ns &&
	       x->end_ns == y->end_ns && x->request_bytes == y->request_bytes &&
	       x->response_bytes == y->response_bytes && x->stream_id == y->stream_id &&
	       x->has_request_seq == y->has_request_seq && x->request_seq == y->request_seq &&
	       x->has_traceparent == y->has_traceparent &&
	       memcmp(x->trace_id, y->trace_id, 16) == 0 &&
	       memcmp(x->parent_id, y->parent_id, 8) == 0 && x->trace_flags == y->trace_flags;
}

static void feed_one(void *st, struct run *r, int stream, const uint8_t *p, size_t captured,
		     size_t len, uint64_t ts, bool gap, uint32_t seq)
{
	uint8_t *copy = malloc(captured ? captured : 1);
	CHECK(copy != NULL);
	if (captured)
		memcpy(copy, p, captured);
	struct enav_l7_fragment f = {
	    .stream = (enum enav_l7_stream)stream,
	    .data = copy,
	    .captured = (uint32_t)captured,
	    .len = (uint32_t)len,
	    .ts_ns = ts,
	    .gap = gap,
	    .has_seq = true,
	    .seq = seq,
	};
	struct enav_l7_sink sink = {on_op, r, &r->stats, NULL};
	enav_l7_http2_ops.feed(st, &f, &sink);
	free(copy);
}

static void run(struct run *r, const uint8_t *data, size_t size, bool split)
{
	memset(r, 0, sizeof(*r));
	r->first_ts = 1000;
	r->last_ts = 1000;
	struct enav_l7_options opt = {.keep_query = data[0] & 1,
				      .max_pending = 1u + (data[0] >> 1 & 31)};
	void *st = calloc(1, enav_l7_http2_ops.state_size);
	CHECK(st != NULL);
	CHECK(enav_l7_http2_ops.init(st, &opt) == 0);
	uint32_t seq[2] = {0xffff0000u, 0x7fffff00u};
	size_t i = 1;
	while (i + 3 <= size) {
		uint8_t ctl = data[i];
		size_t n = (size_t)(data[i + 1] | (data[i + 2] << 8)) & 0xfff;
		i += 3;
		size_t extra = 0;
		if (ctl & 0x10) {
			if (i >= size)
				break;
			extra = (size_t)data[i++] * 256;
		}
		if (n > size - i)
			n = size - i;
		int stream = ctl & 1;
		bool gap = (ctl & 0x0e) == 0x0e;
		r->last_ts += (ctl >> 5) + 1u;
		r->bytes[stream] += n + extra;
		if (split) {
			size_t h = n / 2;
			feed_one(st, r, stream, data + i, h, h, r->last_ts, gap, seq[stream]);
			feed_one(st, r, stream, data + i + h, n - h, n - h + extra, r->last_ts,
				 false, seq[stream] + (uint32_t)h);
		} else {
			feed_one(st, r, stream, data + i, n, n + extra, r->last_ts, gap,
				 seq[stream]);
		}
		seq[stream] += (uint32_t)(n + extra);
		i += n;
	}
	struct enav_l7_sink sink = {on_op, r, &r->stats, NULL};
	enav_l7_http2_ops.finish(st, &sink);
	free(st);
	CHECK(r->stats.ops == r->n + r->dropped);
	CHECK(r->stats.parse_errors <=
	      1 + r->stats.ops + r->stats.pending_overflow + r->bytes[0] + r->bytes[1]);
	CHECK(r->stats.resyncs == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	run(&g_a, data, size, false);
	run(&g_b, data, size, true);
	CHECK(g_a.n == g_b.n && g_a.dropped == g_b.dropped);
	for (size_t i = 0; i < g_a.n; i++)
		CHECK(same_op(&g_a.ops[i], &g_b.ops[i]));
	CHECK(g_a.stats.ops == g_b.stats.ops);
	CHECK(g_a.stats.parse_errors == g_b.stats.parse_errors);
	CHECK(g_a.stats.pending_overflow == g_b.stats.pending_overflow);
	CHECK(g_a.stats.unmatched_responses == g_b.stats.unmatched_responses);
	CHECK(g_a.stats.truncated_fields == g_b.stats.truncated_fields);
	return 0;
}
