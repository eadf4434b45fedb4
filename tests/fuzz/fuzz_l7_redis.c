/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the Redis parser.
 *
 * Input: two control bytes, then records.
 *   byte 0: bits 0-5 split size S for the second run (0: 1 byte); bit 6: a
 *           small FIFO (byte 1 picks 1..32 entries).
 *   record: a header byte (bit 0 response stream, bit 1 gap, bit 2 a 2-byte
 *           LE count of uncaptured bytes follows the length, bit 3 no seq),
 *           a 2-byte LE captured length, then the captured bytes (cut to
 *           what is left of the input).
 * The records are fed once whole and once split into S-byte fragments (the
 * uncaptured tail of a record stays one fragment), each copied to the end of
 * a heap block so ASan sees any read past it.  Every op must keep the
 * contract's invariants, and when the whole run never lost framing the split
 * run must emit the very same ops and stats.  finish always runs.  The seed
 * corpus is the real redis-server / redis-cli / redis-benchmark traffic of
 * the unit test.
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
	struct enav_l7_parser_stats st;
	uint64_t bytes[2]; /* wire bytes fed per stream */
	uint64_t ts_max;
};

static struct run g_a, g_b;

static void check_text(const char *s, size_t cap, bool upper)
{
	const char *nul = memchr(s, '\0', cap);

	CHECK(nul != NULL);
	for (const char *p = nul; p < s + cap; p++)
		CHECK(*p == '\0'); /* nothing stale after the string */
	for (const char *p = s; p < nul; p++) {
		CHECK(*p >= 0x20 && *p < 0x7f);
		if (upper)
			CHECK(*p < 'a' || *p > 'z');
	}
}

static void on_op(void *ctx, const struct enav_l7_op *op)
{
	struct run *r = ctx;

	CHECK(op->protocol == ENAV_L7_REDIS);
	CHECK(op->kind == ENAV_L7_OP_REQUEST);
	check_text(op->operation, sizeof(op->operation), true);
	check_text(op->status, sizeof(op->status), true);
	CHECK(op->target[0] == '\0' && op->path[0] == '\0' && op->statement[0] == '\0');
	CHECK(op->status_code == -1);
	CHECK(op->start_ns >= 1000 && op->start_ns <= r->ts_max);
	CHECK(op->end_ns >= op->start_ns && op->end_ns <= r->ts_max);
	CHECK(op->request_bytes > 0 && op->request_bytes <= r->bytes[ENAV_L7_REQUEST]);
	CHECK(op->response_bytes <= r->bytes[ENAV_L7_RESPONSE]);
	if (!op->response_seen) {
		CHECK(op->response_bytes == 0 && op->end_ns == op->start_ns);
		CHECK(!op->error && op->status[0] == '\0');
	} else {
		CHECK(op->response_bytes > 0);
	}
	if (op->status[0])
		CHECK(op->error);
	CHECK(!op->rpc && !op->messaging_receive && !op->has_traceparent && op->stream_id == 0);
	if (r->n < MAX_OPS)
		r->ops[r->n++] = *op;
	else
		r->dropped++;
}

/* Each piece is copied to the very end of one heap block, so ASan flags any
 * read past its captured bytes without a malloc per piece. */
#define BUF_SIZE (1u << 15)
static uint8_t *g_buf;

static void feed_piece(void *st, const uint8_t *data, uint32_t cap, uint32_t len, int stream,
		       bool gap, bool has_seq, uint32_t seq, uint64_t ts,
		       const struct enav_l7_sink *sink)
{
	CHECK(cap <= BUF_SIZE);
	uint8_t *buf = g_buf + BUF_SIZE - cap;

	if (cap)
		memcpy(buf, data, cap);
	struct enav_l7_fragment f = {
	    .stream = (enum enav_l7_stream)stream,
	    .data = buf,
	    .captured = cap,
	    .len = len,
	    .ts_ns = ts,
	    .gap = gap,
	    .has_seq = has_seq,
	    .seq = seq,
	};
	enav_l7_redis_ops.feed(st, &f, sink);
}

static void run(const uint8_t *data, size_t size, uint32_t split, struct run *r)
{
	struct enav_l7_options opt = {.max_pending = ENAV_L7_MAX_PENDING};
	void *st = calloc(1, enav_l7_redis_ops.state_size);
	uint32_t seq[2] = {100, 0xfffff000u}; /* the response seq wraps */
	uint64_t ts = 0;

	CHECK(st != NULL);
	r->n = r->dropped = 0;
	memset(&r->st, 0, sizeof(r->st));
	memset(r->bytes, 0, sizeof(r->bytes));
	r->ts_max = 0;
	if (data[0] & 0x40)
		opt.max_pending = 1 + data[1] % ENAV_L7_MAX_PENDING;
	CHECK(enav_l7_redis_ops.init(st, &opt) == 0);
	struct enav_l7_sink sink = {on_op, r, &r->st, NULL};
	size_t i = 2;
	while (i + 3 <= size) {
		uint8_t h = data[i];
		uint32_t cap = data[i + 1] | (uint32_t)data[i + 2] << 8;
		uint32_t hidden = 0;
		i += 3;
		if (h & 4) {
			if (i + 2 > size)
				break;
			hidden = data[i] | (uint32_t)data[i + 1] << 8;
			i += 2;
		}
		if (cap > size - i)
			cap = (uint32_t)(size - i);
		int stream = h & 1;
		uint32_t len = cap + hidden;
		ts += 1000;
		r->ts_max = ts;
		r->bytes[stream] += len;
		if (split == 0 || len == 0) {
			feed_piece(st, data + i, cap, len, stream, h & 2, !(h & 8), seq[stream], ts,
				   &sink);
		} else {
			/* S-byte pieces over the captured bytes, the uncaptured
			 * rest in one piece. */
			for (uint32_t a = 0, b; a < len; a = b) {
				b = a < cap && len - a > split ? a + split : len;
				uint32_t pc = 0;
				if (cap > a)
					pc = (cap < b ? cap : b) - a;
				feed_piece(st, data + i + (pc ? a : 0), pc, b - a, stream,
					   (h & 2) && a == 0, !(h & 8), seq[stream] + a, ts, &sink);
			}
		}
		seq[stream] += len;
		i += cap;
	}
	enav_l7_redis_ops.finish(st, &sink);
	free(st);
	CHECK(r->st.ops == r->n + r->dropped);
	CHECK(r->st.resyncs >= r->st.parse_errors);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > BUF_SIZE)
		return 0;
	if (!g_buf) {
		g_buf = malloc(BUF_SIZE);
		CHECK(g_buf != NULL);
	}
	uint32_t split = data[0] & 0x3f;
	if (split == 0)
		split = 1;

	run(data, size, 0, &g_a);
	run(data, size, split, &g_b);
	if (g_a.st.resyncs == 0 && g_a.st.parse_errors == 0 && g_a.dropped == 0) {
		CHECK(memcmp(&g_a.st, &g_b.st, sizeof(g_a.st)) == 0);
		CHECK(g_a.n == g_b.n);
		for (size_t k = 0; k < g_a.n; k++)
			CHECK(memcmp(&g_a.ops[k], &g_b.ops[k], sizeof(g_a.ops[k])) == 0);
	}
	return 0;
}
