/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared replay harness of the L7 parser unit tests (test_l7_*.c).
 *
 * Every tests/unit/test_*.c is its own binary, so this is a header of static
 * functions (marked unused: a test file includes it and uses what it needs).
 * Include it after <cmocka.h> and "features/network/l7/l7.h".
 *
 * What differs between the parsers' tests stays a parameter: the per-op
 * contract checks (a callback), the op capacity, the initial sequence
 * numbers, the timestamps, the fields compared between two runs, the piece
 * sizes and split strides.
 */
#ifndef ENAV_TESTS_L7_HARNESS_H
#define ENAV_TESTS_L7_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define L7H_UNUSED __attribute__((unused))

/* ---- a parser instance collecting its ops -------------------------------- */

struct l7h_run;

/* Per-protocol checks on every op the parser emits, before it is recorded. */
typedef void (*l7h_op_check)(const struct l7h_run *r, const struct enav_l7_op *op);

struct l7h_run {
	const struct enav_l7_parser_ops *p;
	void *state;
	struct enav_l7_options opt;
	struct enav_l7_parser_stats st;
	struct enav_l7_sink sink;
	l7h_op_check check;
	struct enav_l7_op *ops;
	size_t n, max_ops;
	uint32_t seq[2]; /* next TCP sequence number of each stream */
};

/* A NUL-terminated printable string inside a field of cap bytes. */
static L7H_UNUSED void l7h_check_text(const char *s, size_t cap)
{
	const char *z = memchr(s, '\0', cap);

	assert_non_null(z);
	for (const char *c = s; c < z; c++)
		assert_true(*c >= 0x20 && *c < 0x7f);
}

static L7H_UNUSED void l7h_on_op(void *ctx, const struct enav_l7_op *op)
{
	struct l7h_run *r = ctx;

	r->check(r, op);
	assert_true(r->n < r->max_ops);
	r->ops[r->n++] = *op;
}

static L7H_UNUSED struct l7h_run *l7h_run_new(const struct enav_l7_parser_ops *p,
					      const struct enav_l7_options *opt, size_t max_ops,
					      uint32_t seq_req, uint32_t seq_resp,
					      l7h_op_check check)
{
	struct l7h_run *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->p = p;
	r->ops = calloc(max_ops, sizeof(*r->ops));
	assert_non_null(r->ops);
	r->max_ops = max_ops;
	r->check = check;
	r->state = calloc(1, p->state_size);
	assert_non_null(r->state);
	r->opt = *opt;
	assert_int_equal(p->init(r->state, &r->opt), 0);
	r->sink.op = l7h_on_op;
	r->sink.ctx = r;
	r->sink.stats = &r->st;
	r->seq[0] = seq_req;
	r->seq[1] = seq_resp;
	return r;
}

/* One fragment of stream (0 request, 1 response) from an exact-size heap
 * copy of its captured bytes (ASan sees any over-read); the stream's
 * sequence number advances by len. */
static L7H_UNUSED void l7h_frag(struct l7h_run *r, int stream, const uint8_t *d, uint32_t captured,
				uint32_t len, uint64_t ts, bool gap)
{
	uint8_t *copy = malloc(captured ? captured : 1);

	assert_non_null(copy);
	if (captured)
		memcpy(copy, d, captured);
	struct enav_l7_fragment f = {
	    .stream = stream ? ENAV_L7_RESPONSE : ENAV_L7_REQUEST,
	    .data = copy,
	    .captured = captured,
	    .len = len,
	    .ts_ns = ts,
	    .gap = gap,
	    .has_seq = true,
	    .seq = r->seq[stream],
	};
	r->p->feed(r->state, &f, &r->sink);
	r->seq[stream] += len;
	free(copy);
}

static L7H_UNUSED void l7h_finish(struct l7h_run *r)
{
	r->p->finish(r->state, &r->sink);
	assert_int_equal(r->st.ops, r->n);
}

static L7H_UNUSED void l7h_free(struct l7h_run *r)
{
	free(r->state);
	free(r->ops);
	free(r);
}

/* Fields compared by l7h_same_ops beyond the common ones. */
enum {
	L7H_SAME_STATEMENT = 1u << 0, /* op->statement */
	L7H_SAME_KIND_CODE = 1u << 1, /* op->kind and op->status_code */
	L7H_SAME_STATS = 1u << 2,     /* the parser stats (ops, errors, overflow, cuts) */
};

/* Two runs gave the same ops: operation, target, status, error,
 * response_seen, times, byte counts, request seq, plus what `what` adds. */
static L7H_UNUSED void l7h_same_ops(const struct l7h_run *a, const struct l7h_run *b, unsigned what)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		const struct enav_l7_op *x = &a->ops[i], *y = &b->ops[i];

		if (what & L7H_SAME_KIND_CODE)
			assert_int_equal(x->kind, y->kind);
		assert_string_equal(x->operation, y->operation);
		assert_string_equal(x->target, y->target);
		assert_string_equal(x->status, y->status);
		if (what & L7H_SAME_KIND_CODE)
			assert_int_equal(x->status_code, y->status_code);
		if (what & L7H_SAME_STATEMENT)
			assert_string_equal(x->statement, y->statement);
		assert_int_equal(x->error, y->error);
		assert_int_equal(x->response_seen, y->response_seen);
		assert_int_equal(x->start_ns, y->start_ns);
		assert_int_equal(x->end_ns, y->end_ns);
		assert_int_equal(x->request_bytes, y->request_bytes);
		assert_int_equal(x->response_bytes, y->response_bytes);
		assert_int_equal(x->has_request_seq, y->has_request_seq);
		assert_int_equal(x->request_seq, y->request_seq);
	}
	if (what & L7H_SAME_STATS) {
		assert_int_equal(a->st.ops, b->st.ops);
		assert_int_equal(a->st.parse_errors, b->st.parse_errors);
		assert_int_equal(a->st.unmatched_responses, b->st.unmatched_responses);
		assert_int_equal(a->st.pending_overflow, b->st.pending_overflow);
		assert_int_equal(a->st.truncated_fields, b->st.truncated_fields);
	}
}

/* ---- recordings as fragments at offsets of one byte string (SQL) -------- */

struct l7h_rec_frag {
	uint8_t dir; /* 0 request, 1 response */
	uint32_t off, cap, len;
};

#define L7H_TS(i) (1000000ull * ((i) + 1))

/* Replay a recording: piece > 0 feeds every fragment in pieces of that many
 * bytes; split >= 0 splits the fragment holding global byte `split` there;
 * drop >= 0 drops that fragment and marks the next one of its stream gap. */
static L7H_UNUSED void l7h_replay(struct l7h_run *r, const struct l7h_rec_frag *fr, size_t nf,
				  const uint8_t *bytes, uint32_t piece, long split, long drop)
{
	long at = 0;
	bool gap[2] = {false, false};

	for (size_t i = 0; i < nf; i++) {
		const struct l7h_rec_frag *f = &fr[i];
		const uint8_t *b = bytes + f->off;

		if ((long)i == drop) {
			gap[f->dir] = true;
			r->seq[f->dir] += f->len;
			at += f->cap;
			continue;
		}
		if (piece && f->cap == f->len) {
			for (uint32_t o = 0; o < f->len; o += piece) {
				uint32_t k = f->len - o < piece ? f->len - o : piece;

				l7h_frag(r, f->dir, b + o, k, k, L7H_TS(i), gap[f->dir]);
				gap[f->dir] = false;
			}
		} else if (split >= at && split < at + (long)f->cap && split > at &&
			   f->cap == f->len) {
			uint32_t k = (uint32_t)(split - at);

			l7h_frag(r, f->dir, b, k, k, L7H_TS(i), gap[f->dir]);
			l7h_frag(r, f->dir, b + k, f->len - k, f->len - k, L7H_TS(i), false);
			gap[f->dir] = false;
		} else {
			l7h_frag(r, f->dir, b, f->cap, f->len, L7H_TS(i), gap[f->dir]);
			gap[f->dir] = false;
		}
		at += f->cap;
	}
}

static L7H_UNUSED size_t l7h_rec_bytes(const struct l7h_rec_frag *fr, size_t nf)
{
	return nf ? fr[nf - 1].off + fr[nf - 1].cap : 0;
}

/* The per-op contract of the SQL parsers (MySQL, PostgreSQL); L7_DUMP=1
 * prints every op as a `struct l7h_want` line. */
static L7H_UNUSED void l7h_check_sql_op(const struct l7h_run *r, const struct enav_l7_op *op)
{
	assert_int_equal(op->protocol, r->p->protocol);
	assert_int_equal(op->kind, ENAV_L7_OP_REQUEST);
	l7h_check_text(op->operation, sizeof(op->operation));
	l7h_check_text(op->target, sizeof(op->target));
	l7h_check_text(op->path, sizeof(op->path));
	l7h_check_text(op->status, sizeof(op->status));
	l7h_check_text(op->statement, sizeof(op->statement));
	assert_true(op->operation[0] != '\0');
	assert_true(op->end_ns >= op->start_ns);
	assert_true(op->response_seen || !op->error);
	if (!r->opt.sanitized_statement)
		assert_string_equal(op->statement, "");
	if (getenv("L7_DUMP"))
		printf("  {\"%s\", \"%s\", \"%s\", %d, %d, %llu, %llu, %llu, %llu, %u, %d}, /* %s "
		       "*/\n",
		       op->operation, op->target, op->status, op->error, op->response_seen,
		       (unsigned long long)op->request_bytes,
		       (unsigned long long)op->response_bytes, (unsigned long long)op->start_ns,
		       (unsigned long long)op->end_ns, op->request_seq, op->has_request_seq,
		       op->statement);
}

/* A SQL parser run: 1024 ops at most, request seq from 1000, response seq
 * wrapping. */
static L7H_UNUSED struct l7h_run *l7h_sql_run_new(const struct enav_l7_parser_ops *p,
						  bool sanitized, uint32_t max_pending)
{
	struct enav_l7_options opt = {.sanitized_statement = sanitized, .max_pending = max_pending};

	return l7h_run_new(p, &opt, 1024, 1000, 0xfffff000u /* wraps */, l7h_check_sql_op);
}

struct l7h_want {
	const char *operation, *target, *status;
	bool error, response_seen;
	uint64_t req_bytes, resp_bytes;
};

static L7H_UNUSED void l7h_assert_ops(const struct l7h_run *r, const struct l7h_want *w, size_t n)
{
	assert_int_equal(r->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(r->ops[i].operation, w[i].operation);
		assert_string_equal(r->ops[i].target, w[i].target);
		assert_string_equal(r->ops[i].status, w[i].status);
		assert_int_equal(r->ops[i].error, w[i].error);
		assert_int_equal(r->ops[i].response_seen, w[i].response_seen);
		assert_int_equal(r->ops[i].request_bytes, w[i].req_bytes);
		assert_int_equal(r->ops[i].response_bytes, w[i].resp_bytes);
	}
}

/* The recording fed in pieces of 1, 2, 3, 7 and 61 bytes gives the ops of
 * the whole replay, without parse errors (sanitized statements on). */
static L7H_UNUSED void l7h_sql_pieces(const struct enav_l7_parser_ops *p,
				      const struct l7h_rec_frag *fr, size_t nf, const uint8_t *b)
{
	static const uint32_t sizes[] = {1, 2, 3, 7, 61};
	struct l7h_run *whole = l7h_sql_run_new(p, true, 32);

	l7h_replay(whole, fr, nf, b, 0, -1, -1);
	l7h_finish(whole);
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct l7h_run *r = l7h_sql_run_new(p, true, 32);

		l7h_replay(r, fr, nf, b, sizes[k], -1, -1);
		l7h_finish(r);
		l7h_same_ops(whole, r, L7H_SAME_STATEMENT);
		assert_int_equal(r->st.parse_errors, 0);
		l7h_free(r);
	}
	l7h_free(whole);
}

/* The recording split at every byte gives the ops of the whole replay, and
 * each split run passes `clean` (sanitized statements off). */
static L7H_UNUSED void l7h_sql_every_split(const struct enav_l7_parser_ops *p,
					   const struct l7h_rec_frag *fr, size_t nf,
					   const uint8_t *b, void (*clean)(const struct l7h_run *))
{
	struct l7h_run *whole = l7h_sql_run_new(p, false, 32);

	l7h_replay(whole, fr, nf, b, 0, -1, -1);
	l7h_finish(whole);
	for (long s = 1; s < (long)l7h_rec_bytes(fr, nf); s++) {
		struct l7h_run *r = l7h_sql_run_new(p, false, 32);

		l7h_replay(r, fr, nf, b, 0, s, -1);
		l7h_finish(r);
		l7h_same_ops(whole, r, L7H_SAME_STATEMENT);
		clean(r);
		l7h_free(r);
	}
	l7h_free(whole);
}

/* ---- recordings as chunks of per-read byte arrays (Kafka, MongoDB) ------ */

struct l7h_chunk {
	uint8_t stream; /* 0 request, 1 response */
	uint32_t len;
	const uint8_t *data;
};

/* What differs between the protocols fed by chunks. */
struct l7h_chunk_cfg {
	struct l7h_run *(*run_new)(uint32_t max_pending);
	uint64_t (*ts_of)(size_t i); /* timestamp of every piece of chunk i */
	size_t max_piece;	     /* every_split: pieces of 1..max_piece bytes */
};

/* Each chunk in pieces of `piece` bytes (0: whole), each piece capturing at
 * most `capmax` bytes (0: all); every piece of chunk i carries ts_of(i). */
static L7H_UNUSED void l7h_chunks_feed(const struct l7h_chunk_cfg *cfg, struct l7h_run *r,
				       const struct l7h_chunk *c, size_t n, size_t piece,
				       uint32_t capmax)
{
	for (size_t i = 0; i < n; i++) {
		size_t step = piece ? piece : c[i].len;
		for (size_t o = 0; o < c[i].len; o += step) {
			uint32_t k = (uint32_t)(c[i].len - o < step ? c[i].len - o : step);
			uint32_t cap = capmax && capmax < k ? capmax : k;
			l7h_frag(r, c[i].stream, c[i].data + o, cap, k, cfg->ts_of(i), false);
		}
	}
}

/* Chunk `which` split at `at`, the others whole. */
static L7H_UNUSED void l7h_chunks_feed_split(const struct l7h_chunk_cfg *cfg, struct l7h_run *r,
					     const struct l7h_chunk *c, size_t n, size_t which,
					     size_t at)
{
	for (size_t i = 0; i < n; i++) {
		if (i != which) {
			l7h_frag(r, c[i].stream, c[i].data, c[i].len, c[i].len, cfg->ts_of(i),
				 false);
			continue;
		}
		l7h_frag(r, c[i].stream, c[i].data, (uint32_t)at, (uint32_t)at, cfg->ts_of(i),
			 false);
		l7h_frag(r, c[i].stream, c[i].data + at, (uint32_t)(c[i].len - at),
			 (uint32_t)(c[i].len - at), cfg->ts_of(i), false);
	}
}

/* The per-op contract of the chunk-fed parsers, before any private check. */
static L7H_UNUSED void l7h_check_chunk_op(const struct enav_l7_op *op, int protocol)
{
	assert_int_equal(op->protocol, protocol);
	l7h_check_text(op->operation, sizeof(op->operation));
	l7h_check_text(op->target, sizeof(op->target));
	l7h_check_text(op->status, sizeof(op->status));
	assert_true(op->end_ns >= op->start_ns);
	assert_string_equal(op->path, "");
	assert_string_equal(op->statement, "");
}

struct l7h_exp {
	const char *op, *target, *status;
	int32_t code;
	bool error;
	uint8_t kind;
	bool seen;
};

static L7H_UNUSED void l7h_expect(const struct l7h_run *r, const struct l7h_exp *e, size_t n)
{
	assert_int_equal(r->n, n);
	for (size_t i = 0; i < n; i++) {
		const struct enav_l7_op *o = &r->ops[i];
		assert_string_equal(o->operation, e[i].op);
		assert_string_equal(o->target, e[i].target);
		assert_string_equal(o->status, e[i].status);
		assert_int_equal(o->status_code, e[i].code);
		assert_int_equal(o->error, e[i].error);
		assert_int_equal(o->kind, e[i].kind);
		assert_int_equal(o->response_seen, e[i].seen);
		assert_false(o->rpc);
		assert_false(o->has_traceparent);
	}
}

static L7H_UNUSED void l7h_no_errors(const struct l7h_run *r)
{
	assert_int_equal(r->st.parse_errors, 0);
	assert_int_equal(r->st.resyncs, 0);
	assert_int_equal(r->st.unmatched_responses, 0);
	assert_int_equal(r->st.pending_overflow, 0);
	assert_int_equal(r->st.truncated_fields, 0);
}

static L7H_UNUSED struct l7h_run *l7h_chunks_whole(const struct l7h_chunk_cfg *cfg,
						   const struct l7h_chunk *c, size_t n)
{
	struct l7h_run *r = cfg->run_new(ENAV_L7_MAX_PENDING);

	l7h_chunks_feed(cfg, r, c, n, 0, 0);
	l7h_finish(r);
	return r;
}

/* The ops (kind, status code and stats included) of a conversation are the
 * same whatever its fragmentation: each chunk split at every byte, or at
 * about maxlen points of a longer chunk (SIZE_MAX: every byte), and every
 * chunk in pieces of 1..cfg->max_piece bytes. */
static L7H_UNUSED void l7h_chunks_every_split(const struct l7h_chunk_cfg *cfg,
					      const struct l7h_chunk *c, size_t n, size_t maxlen)
{
	struct l7h_run *ref = l7h_chunks_whole(cfg, c, n);

	for (size_t i = 0; i < n; i++) {
		size_t stride = c[i].len > maxlen ? c[i].len / maxlen + 1 : 1;
		for (size_t at = 1; at < c[i].len; at += stride) {
			struct l7h_run *r = cfg->run_new(ENAV_L7_MAX_PENDING);
			l7h_chunks_feed_split(cfg, r, c, n, i, at);
			l7h_finish(r);
			l7h_same_ops(ref, r, L7H_SAME_KIND_CODE | L7H_SAME_STATS);
			l7h_free(r);
		}
	}
	for (size_t piece = 1; piece <= cfg->max_piece; piece++) {
		struct l7h_run *r = cfg->run_new(ENAV_L7_MAX_PENDING);
		l7h_chunks_feed(cfg, r, c, n, piece, 0);
		l7h_finish(r);
		l7h_same_ops(ref, r, L7H_SAME_KIND_CODE | L7H_SAME_STATS);
		l7h_free(r);
	}
	l7h_free(ref);
}

#endif /* ENAV_TESTS_L7_HARNESS_H */
