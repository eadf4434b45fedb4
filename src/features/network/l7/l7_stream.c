/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/l7/l7_stream.h"

#include <string.h>

void enav_l7_framer_lose(struct enav_l7_framer *fr, const struct enav_l7_sink *out)
{
	fr->in_msg = false;
	if (!fr->resync) {
		fr->resync = true;
		out->stats->resyncs++;
	}
}

void enav_l7_framed_lose(const struct enav_l7_framing *ops, void *st, enum enav_l7_stream dir,
			 const struct enav_l7_sink *out)
{
	struct enav_l7_framer *fr = (struct enav_l7_framer *)((char *)st + ops->framer_at[dir]);

	if (ops->lose)
		ops->lose(st, dir, out);
	if (ops->resync_every_loss && fr->resync)
		out->stats->resyncs++;
	enav_l7_framer_lose(fr, out);
}

void enav_l7_framed_parse_error(const struct enav_l7_framing *ops, void *st,
				enum enav_l7_stream dir, const struct enav_l7_sink *out)
{
	out->stats->parse_errors++;
	enav_l7_framed_lose(ops, st, dir, out);
}

void enav_l7_exchange_begin(struct enav_l7_exchange *x, const struct enav_l7_framer *fr,
			    uint64_t request_bytes)
{
	*x = (struct enav_l7_exchange){.start_ns = fr->start_ns,
				       .request_bytes = request_bytes,
				       .seq = fr->seq,
				       .has_seq = fr->has_seq};
}

void enav_l7_emit_exchange(struct enav_l7_op *op, const struct enav_l7_exchange *x,
			   const struct enav_l7_sink *out)
{
	op->start_ns = x->start_ns;
	op->end_ns = x->end_ns > x->start_ns ? x->end_ns : x->start_ns;
	op->request_bytes = x->request_bytes;
	op->response_bytes = x->response_bytes;
	op->has_request_seq = x->has_seq;
	op->request_seq = x->seq;
	out->stats->ops++;
	if (out->op)
		out->op(out->ctx, op);
}

/* A message starts at byte pos of f. */
static void start_message(struct enav_l7_framer *fr, const struct enav_l7_framing *ops, void *st,
			  enum enav_l7_stream dir, const struct enav_l7_fragment *f, size_t pos)
{
	uint32_t need = ops->prefix ? ops->prefix : ops->prefix_len(st, dir);

	fr->in_msg = true;
	fr->hdr_n = 0;
	fr->hdr_need = (uint8_t)(need < ENAV_L7_PREFIX_MAX ? need : ENAV_L7_PREFIX_MAX);
	fr->keep_n = 0;
	fr->keep_incomplete = false;
	fr->left = 0;
	fr->start_ns = f->ts_ns;
	fr->has_seq = f->has_seq;
	fr->seq = f->seq + (uint32_t)pos;
}

void enav_l7_framed_feed(const struct enav_l7_framing *ops, void *st,
			 const struct enav_l7_fragment *f, const struct enav_l7_sink *out)
{
	if (!st || !f || !out || (unsigned)f->stream > ENAV_L7_RESPONSE)
		return;
	enum enav_l7_stream dir = f->stream;
	struct enav_l7_framer *fr = (struct enav_l7_framer *)((char *)st + ops->framer_at[dir]);
	uint8_t *keep = (uint8_t *)st + ops->keep_at[dir];
	uint32_t keep_cap = ops->keep_cap[dir];
	const uint8_t *d = f->data;
	size_t cap = f->data ? f->captured : 0;
	size_t len = f->len > cap ? f->len : cap;
	size_t pos = 0;

	if (f->gap) {
		if (ops->gap)
			ops->gap(st, dir, out);
		else
			enav_l7_framed_lose(ops, st, dir, out);
	}
	fr->last_ns = f->ts_ns;
	while (pos < len && !(ops->opaque && ops->opaque(st))) {
		if (fr->resync) {
			if (pos >= cap)
				return;
			long i = ops->find_start ? ops->find_start(st, dir, d, pos, cap, len)
				 : pos == 0 && ops->starts_message(st, dir, d, cap) ? 0
										    : -1;

			if (i < 0)
				return;
			pos = (size_t)i;
			fr->resync = false;
		}
		if (!fr->in_msg) {
			if (pos >= cap) { /* the next prefix is in the uncaptured tail */
				enav_l7_framed_lose(ops, st, dir, out);
				return;
			}
			if (ops->between) {
				enum enav_l7_between b = ops->between(st, dir, d[pos], out);

				if (b == ENAV_L7_BETWEEN_STOP)
					return;
				if (b == ENAV_L7_BETWEEN_SKIP) {
					pos++;
					continue;
				}
			}
			start_message(fr, ops, st, dir, f, pos);
		}
		if (fr->hdr_n < fr->hdr_need) {
			if (pos >= cap) {
				enav_l7_framed_lose(ops, st, dir, out);
				return;
			}
			size_t k = fr->hdr_need - fr->hdr_n;

			if (k > cap - pos)
				k = cap - pos;
			memcpy(fr->hdr + fr->hdr_n, d + pos, k);
			fr->hdr_n = (uint8_t)(fr->hdr_n + k);
			pos += k;
			if (fr->hdr_n < fr->hdr_need)
				continue;
			if (!ops->header(st, dir, fr, out))
				continue; /* lost: resync from here */
		}
		size_t take = fr->left < len - pos ? fr->left : len - pos;

		if (take) {
			size_t vis = pos < cap ? (take < cap - pos ? take : cap - pos) : 0;
			size_t room = keep_cap - fr->keep_n;
			size_t kept = vis < room ? vis : room;

			if (kept)
				memcpy(keep + fr->keep_n, d + pos, kept);
			fr->keep_n += (uint32_t)kept;
			if (vis < take && fr->keep_n < keep_cap)
				fr->keep_incomplete = true;
			if (ops->body && !ops->body(st, dir, d ? d + pos : NULL, (uint32_t)vis,
						    (uint32_t)take, out))
				return;
			pos += take;
			fr->left -= (uint32_t)take;
		}
		if (fr->left == 0) {
			fr->in_msg = false;
			ops->end(st, dir, fr, f->ts_ns, out);
		}
	}
}

uint64_t enav_l7_crlf_body_skip(uint8_t *phase, uint64_t *left, uint8_t body_at, uint64_t n,
				bool *ended)
{
	uint64_t took = 0;

	*ended = false;
	if (*phase == body_at) {
		took = n < *left ? n : *left;
		*left -= took;
		if (*left == 0)
			*phase = (uint8_t)(body_at + 1);
	}
	if (*phase == body_at + 1 && took < n) {
		*phase = (uint8_t)(body_at + 2);
		took++;
	}
	if (*phase == body_at + 2 && took < n) {
		took++;
		*ended = true;
	}
	return took;
}

void enav_l7_fifo_init(struct enav_l7_fifo *q, uint32_t limit)
{
	q->head = 0;
	q->count = 0;
	q->limit = limit < ENAV_L7_MAX_PENDING ? limit : ENAV_L7_MAX_PENDING;
}

long enav_l7_fifo_find(const struct enav_l7_fifo *q, int64_t id)
{
	for (uint32_t i = 0; i < q->count; i++)
		if (q->id[enav_l7_fifo_at(q, i)] == id)
			return (long)i;
	return -1;
}

void enav_l7_fifo_expire(struct enav_l7_fifo *q, uint32_t n,
			 void (*unanswered)(void *st, uint32_t index,
					    const struct enav_l7_sink *out),
			 void *st, const struct enav_l7_sink *out)
{
	while (n-- > 0 && q->count > 0) {
		unanswered(st, enav_l7_fifo_at(q, 0), out);
		enav_l7_fifo_pop(q);
	}
}
