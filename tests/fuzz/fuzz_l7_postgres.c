/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the PostgreSQL parser: the input is split into
 * fragments of both streams, some with captured < len, some after a gap;
 * every emitted op must hold the contract's invariants and the stats must
 * agree with what was emitted; an input read without gap, cut, error or
 * resync must give the same ops when every fragment is split in two.  Seeds
 * (tests/fuzz/corpus/fuzz_l7_postgres) are real psql and pgbench conversations in this record
 * format.
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

#define KEEP_OPS 64

struct fz {
	const struct enav_l7_parser_ops *p;
	bool sanitized;
	uint64_t now;
	uint64_t emitted;
	struct enav_l7_op ops[KEEP_OPS];
};

static void check_field(const char *s, size_t cap)
{
	const char *z = memchr(s, '\0', cap);

	CHECK(z != NULL);
	for (const char *c = s; c < z; c++)
		CHECK(*c >= 0x20 && *c < 0x7f);
}

static void on_op(void *ctx, const struct enav_l7_op *op)
{
	struct fz *z = ctx;

	CHECK(op->protocol == z->p->protocol);
	CHECK(op->kind == ENAV_L7_OP_REQUEST);
	check_field(op->operation, sizeof(op->operation));
	check_field(op->target, sizeof(op->target));
	check_field(op->path, sizeof(op->path));
	check_field(op->status, sizeof(op->status));
	check_field(op->statement, sizeof(op->statement));
	CHECK(op->operation[0] != '\0');
	CHECK(op->path[0] == '\0');
	CHECK(z->sanitized || op->statement[0] == '\0');
	CHECK(op->end_ns >= op->start_ns);
	CHECK(op->start_ns >= 1 && op->end_ns <= z->now);
	CHECK(op->response_seen || (!op->error && op->status[0] == '\0'));
	CHECK(op->status_code == -1);
	CHECK(op->stream_id == 0 && !op->rpc && !op->has_traceparent && !op->messaging_receive);
	if (z->emitted < KEEP_OPS)
		z->ops[z->emitted] = *op;
	z->emitted++;
}

static bool same_op(const struct enav_l7_op *a, const struct enav_l7_op *b)
{
	return strcmp(a->operation, b->operation) == 0 && strcmp(a->target, b->target) == 0 &&
	       strcmp(a->status, b->status) == 0 && strcmp(a->statement, b->statement) == 0 &&
	       a->error == b->error && a->response_seen == b->response_seen &&
	       a->start_ns == b->start_ns && a->end_ns == b->end_ns &&
	       a->request_bytes == b->request_bytes && a->response_bytes == b->response_bytes &&
	       a->has_request_seq == b->has_request_seq && a->request_seq == b->request_seq;
}

/*
 * Input: one options byte (bit 0 sanitized statements, bits 1-5 max_pending
 * - 1), then records: a control byte (bit 0 response stream, bits 1-2 == 3
 * gap, bit 3 captured < len with bits 4-7 scaling the uncaptured tail), a
 * length byte and that many payload bytes.  Each record is one fragment.
 */
/* One pass; split: every fully captured fragment goes in two pieces (same
 * timestamp), at a point taken from its first byte.  Returns whether the
 * pass was clean: no gap, no cut, no parse error, no resync. */
static bool run_pass(const struct enav_l7_parser_ops *p, const uint8_t *data, size_t size,
		     bool split, struct fz *zout)
{
	struct enav_l7_options opt = {
	    .sanitized_statement = data[0] & 1,
	    .max_pending = (uint32_t)((data[0] >> 1) & 31) + 1,
	};
	struct enav_l7_parser_stats st;
	struct fz *z = zout;
	bool clean = true;

	memset(z, 0, sizeof(*z));
	z->p = p;
	z->sanitized = opt.sanitized_statement;
	struct enav_l7_sink sink = {.op = on_op, .ctx = z, .stats = &st};
	void *state = calloc(1, p->state_size);
	uint32_t seq[2] = {0xfffffff0u, 77};

	CHECK(state != NULL);
	memset(&st, 0, sizeof(st));
	CHECK(p->init(state, &opt) == 0);
	size_t i = 1;

	while (i + 2 <= size) {
		uint8_t ctl = data[i], n = data[i + 1];

		i += 2;
		if (n > size - i)
			n = (uint8_t)(size - i);
		uint8_t *copy = malloc(n ? n : 1);

		CHECK(copy != NULL);
		memcpy(copy, data + i, n);
		i += n;
		struct enav_l7_fragment f = {
		    .stream = (ctl & 1) ? ENAV_L7_RESPONSE : ENAV_L7_REQUEST,
		    .data = copy,
		    .captured = n,
		    .len = n,
		    .ts_ns = ++z->now,
		    .gap = ((ctl >> 1) & 3) == 3,
		    .has_seq = (ctl & 0x80) == 0,
		    .seq = seq[ctl & 1],
		};
		if (ctl & 8)
			f.len = n + 1u + (uint32_t)(ctl >> 4) * 977u;
		if (f.gap || f.len != f.captured)
			clean = false;
		seq[ctl & 1] += f.len;
		if (split && f.len == f.captured && n >= 2) {
			uint32_t k = 1 + copy[0] % (n - 1u);
			struct enav_l7_fragment g = f;

			f.captured = f.len = k;
			g.data = copy + k;
			g.captured = g.len = n - k;
			g.gap = false;
			g.seq = f.seq + k;
			p->feed(state, &f, &sink);
			CHECK(st.ops == z->emitted);
			p->feed(state, &g, &sink);
		} else {
			p->feed(state, &f, &sink);
		}
		free(copy);
		CHECK(st.ops == z->emitted);
	}
	p->finish(state, &sink);
	CHECK(st.ops == z->emitted);
	CHECK(st.resyncs <= st.parse_errors + 2 * z->now + 1);
	free(state);
	return clean && st.parse_errors == 0 && st.resyncs == 0;
}

static struct fz g_whole, g_split;

/* Clean inputs must give the very same ops however their fragments are
 * split. */
static int run_input(const struct enav_l7_parser_ops *p, const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	bool clean = run_pass(p, data, size, false, &g_whole);

	run_pass(p, data, size, true, &g_split);
	if (clean) {
		CHECK(g_whole.emitted == g_split.emitted);
		for (uint64_t i = 0; i < g_whole.emitted && i < KEEP_OPS; i++)
			CHECK(same_op(&g_whole.ops[i], &g_split.ops[i]));
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return run_input(&enav_l7_postgres_ops, data, size);
}
