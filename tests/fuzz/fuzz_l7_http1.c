/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the HTTP/1.x parser (and WebSocket after an upgrade).
 *
 * Input: one options byte (bit 0 keep_query, bits 1-5 max_pending - 1), then
 * records [hdr][n][n bytes], each one fragment:
 *   hdr bit 0   stream (0 request, 1 response)
 *   hdr bit 1   gap before this fragment
 *   hdr bit 2   has_seq
 *   hdr bits 3+ uncaptured tail: 0 none, 1..15 -> 7*e bytes, 16..31 -> 2^(e-8)
 * Every fragment is handed over as an exact-size heap copy (ASan flags any
 * read past the capture), every op is checked as it comes, finish() is always
 * called, and the stats must add up.  When the run needed no resync, the
 * same bytes fed with each run of same-direction records merged into one
 * fragment must give the same ops (timestamps and seq aside) and stats.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/network/l7/l7.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

struct rec {
	uint8_t stream;
	bool gap, has_seq;
	uint32_t uncaptured;
	const uint8_t *data;
	uint32_t n;
};

#define MAX_RECS 4096

static struct rec g_recs[MAX_RECS];

struct tally {
	uint64_t ops, hash;
	uint64_t bytes[2]; /* wire bytes fed per direction */
	uint64_t max_ts;
};

static void check_text(const char *s, size_t cap, bool nonempty)
{
	const char *nul = memchr(s, '\0', cap);

	CHECK(nul != NULL);
	CHECK(!nonempty || nul > s);
	for (const char *p = s; p < nul; p++)
		CHECK(*p >= 0x20 && *p < 0x7f);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static void on_op(void *ctx, const struct enav_l7_op *op)
{
	struct tally *t = ctx;

	check_text(op->operation, sizeof(op->operation), true);
	check_text(op->target, sizeof(op->target), false);
	check_text(op->path, sizeof(op->path), false);
	check_text(op->status, sizeof(op->status), false);
	check_text(op->statement, sizeof(op->statement), false);
	CHECK(op->statement[0] == '\0');
	CHECK(op->end_ns >= op->start_ns);
	CHECK(op->end_ns <= t->max_ts);
	CHECK(op->stream_id == 0);
	CHECK(op->request_bytes <= t->bytes[ENAV_L7_REQUEST]);
	CHECK(op->response_bytes <= t->bytes[ENAV_L7_RESPONSE]);
	if (op->protocol == ENAV_L7_HTTP1) {
		CHECK(op->kind == ENAV_L7_OP_REQUEST);
		CHECK(!op->messaging_receive);
		if (op->response_seen) {
			char st[ENAV_L7_STATUS_MAX];

			CHECK(op->status_code >= 100 && op->status_code <= 999);
			snprintf(st, sizeof(st), "%d", (int)op->status_code);
			CHECK(strcmp(st, op->status) == 0);
			CHECK(op->error == (op->status_code >= 500));
		} else {
			CHECK(op->status_code == -1 && op->status[0] == '\0');
			CHECK(!op->error && op->response_bytes == 0);
		}
		/* A method is a token of capitals, '-' and '_'. */
		for (const char *p = op->operation; *p; p++)
			CHECK((*p >= 'A' && *p <= 'Z') || *p == '-' || *p == '_');
	} else {
		CHECK(op->protocol == ENAV_L7_WEBSOCKET);
		CHECK(op->kind == ENAV_L7_OP_MESSAGE);
		CHECK(op->start_ns == op->end_ns);
		CHECK(!op->response_seen && !op->error && !op->rpc && !op->has_traceparent);
		CHECK(op->messaging_receive ? op->request_bytes == 0 : op->response_bytes == 0);
		CHECK(!op->messaging_receive || !op->has_request_seq);
		static const char *const names[] = {"text", "binary", "close",
						    "ping", "pong",   "continuation"};
		bool known = false;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			known = known || strcmp(op->operation, names[i]) == 0;
		CHECK(known);
		if (op->status_code != -1) {
			CHECK(strcmp(op->operation, "close") == 0);
			CHECK(op->status_code >= 0 && op->status_code <= 0xffff);
		} else {
			CHECK(op->status[0] == '\0');
		}
	}
	if (op->has_traceparent) {
		bool zt = true, zp = true;

		for (int i = 0; i < 16; i++)
			zt = zt && op->trace_id[i] == 0;
		for (int i = 0; i < 8; i++)
			zp = zp && op->parent_id[i] == 0;
		CHECK(!zt && !zp);
	}
	/* What must not depend on how the bytes were cut into fragments. */
	struct enav_l7_op o = *op;

	o.start_ns = o.end_ns = 0;
	o.has_request_seq = false;
	o.request_seq = 0;
	t->hash = fnv(t->hash, &o, sizeof(o));
	t->ops++;
}

static void feed_one(void *state, const struct enav_l7_sink *sink, struct tally *t, uint8_t stream,
		     const uint8_t *data, uint32_t n, uint32_t len, bool gap, bool has_seq,
		     uint32_t seq, uint64_t ts)
{
	uint8_t *copy = malloc(n ? n : 1);

	CHECK(copy != NULL);
	if (n)
		memcpy(copy, data, n);
	struct enav_l7_fragment f = {
	    .stream = stream,
	    .data = copy,
	    .captured = n,
	    .len = len,
	    .ts_ns = ts,
	    .gap = gap,
	    .has_seq = has_seq,
	    .seq = seq,
	};

	t->bytes[stream] += len;
	if (ts > t->max_ts)
		t->max_ts = ts;
	enav_l7_http1_ops.feed(state, &f, sink);
	free(copy);
}

static void check_stats(const struct enav_l7_parser_stats *st, const struct tally *t, size_t nrecs,
			uint64_t bytes)
{
	CHECK(st->ops == t->ops);
	/* Every parse error resyncs. */
	CHECK(st->parse_errors <= st->resyncs);
	/* Nothing is counted more often than there were bytes to count it
	 * on (plus a loss per record for gaps and uncaptured tails). */
	CHECK(st->pending_overflow + st->unmatched_responses <= bytes);
	CHECK(st->resyncs <= bytes + 2 * (uint64_t)nrecs + 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	struct enav_l7_options opt = {
	    .keep_query = data[0] & 1,
	    .max_pending = (uint32_t)(data[0] >> 1 & 31) + 1,
	};
	size_t nrecs = 0, pos = 1;
	bool lossless = true;

	while (pos + 2 <= size && nrecs < MAX_RECS) {
		uint8_t hdr = data[pos];
		uint32_t n = data[pos + 1];
		unsigned e = hdr >> 3;
		struct rec *r = &g_recs[nrecs++];

		pos += 2;
		if (n > size - pos)
			n = (uint32_t)(size - pos);
		r->stream = hdr & 1 ? ENAV_L7_RESPONSE : ENAV_L7_REQUEST;
		r->gap = hdr & 2;
		r->has_seq = hdr & 4;
		r->uncaptured = e == 0 ? 0 : e < 16 ? 7 * e : 1u << (e - 8);
		r->data = data + pos;
		r->n = n;
		pos += n;
		if (r->gap || r->uncaptured)
			lossless = false;
	}

	void *state = calloc(1, enav_l7_http1_ops.state_size);
	struct enav_l7_parser_stats stats;
	struct tally t;
	struct enav_l7_sink sink = {.op = on_op, .ctx = &t, .stats = &stats};
	uint32_t seq[2] = {1000, 0xfffffff0u}; /* the response side wraps */

	CHECK(state != NULL);
	memset(&stats, 0, sizeof(stats));
	memset(&t, 0, sizeof(t));
	CHECK(enav_l7_http1_ops.init(state, &opt) == 0);
	for (size_t i = 0; i < nrecs; i++) {
		const struct rec *r = &g_recs[i];
		uint32_t len = r->n + r->uncaptured;

		feed_one(state, &sink, &t, r->stream, r->data, r->n, len, r->gap, r->has_seq,
			 seq[r->stream], (i + 1) * 10);
		seq[r->stream] += len;
	}
	enav_l7_http1_ops.finish(state, &sink);
	check_stats(&stats, &t, nrecs, size);

	/* Re-cut: consecutive records of one direction as one fragment. */
	if (lossless && stats.resyncs == 0) {
		struct tally t2;
		struct enav_l7_parser_stats stats2;
		struct enav_l7_sink sink2 = {.op = on_op, .ctx = &t2, .stats = &stats2};
		uint8_t *buf = malloc(size);

		CHECK(buf != NULL);
		memset(&t2, 0, sizeof(t2));
		memset(&stats2, 0, sizeof(stats2));
		memset(state, 0, enav_l7_http1_ops.state_size);
		CHECK(enav_l7_http1_ops.init(state, &opt) == 0);
		for (size_t i = 0; i < nrecs;) {
			size_t j = i;
			uint32_t n = 0;

			while (j < nrecs && g_recs[j].stream == g_recs[i].stream) {
				memcpy(buf + n, g_recs[j].data, g_recs[j].n);
				n += g_recs[j].n;
				j++;
			}
			feed_one(state, &sink2, &t2, g_recs[i].stream, buf, n, n, false, false, 0,
				 (j + 1) * 10);
			i = j;
		}
		enav_l7_http1_ops.finish(state, &sink2);
		check_stats(&stats2, &t2, nrecs, size);
		free(buf);
		CHECK(stats2.resyncs == 0 && stats2.parse_errors == 0);
		CHECK(t2.ops == t.ops && t2.hash == t.hash);
		CHECK(stats2.unmatched_responses == stats.unmatched_responses);
		CHECK(stats2.pending_overflow == stats.pending_overflow);
	}
	free(state);
	return 0;
}
