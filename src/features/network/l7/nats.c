/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NATS client-protocol parser.
 *
 * Request stream (client to server): CONNECT {json}, PUB, HPUB, SUB, UNSUB,
 * PING, PONG.  Response stream: INFO {json}, MSG, HMSG, +OK, -ERR, PING,
 * PONG.  Operations use messaging semantics: "publish" (PUB, HPUB),
 * "subscribe" (SUB), "unsubscribe" (UNSUB, target from the SUB with that sid
 * when it was seen), "receive" (MSG, HMSG: messaging_receive, response_bytes
 * = the size field).  The target is the subject, except the two families
 * NATS itself makes unbounded: "_INBOX.<anything>" becomes "_INBOX.*" and
 * "$JS.ACK.<stream>.<consumer>.<numbers...>" keeps its tokens up to the first
 * all-digit one, then ".*".
 *
 * CONNECT's "verbose" decides pairing: verbose:true makes PUB/HPUB/SUB/UNSUB
 * requests (ENAV_L7_OP_REQUEST) answered FIFO by +OK or -ERR (CONNECT's own
 * +OK is consumed silently); otherwise (the default) they are one-way
 * messages emitted when framed, start == end, and a -ERR is counted as an
 * unmatched response.  In pedantic mode the server answers a PUB to an
 * invalid subject with -ERR 'Invalid Publish Subject' and then +OK: that
 * error marks the head PUB and the +OK completes it.  op.status of an error
 * is the leading capitalised words of the server's fixed text ("Permissions
 * Violation", "Authorization Violation"), never a subject; "-ERR" when there
 * are none.  MSG/HMSG deliveries are always one-way.
 *
 * Payloads are skipped by size, never copied (only the header block of HPUB
 * and HMSG is scanned, line by line, for a W3C traceparent).  A protocol line
 * keeps its first N_HEAD bytes and last N_TAIL bytes (the sizes are the last
 * tokens), so lines longer than the buffer still frame; lines over N_LINE_MAX
 * without a newline cannot be framed.  On loss (gap, garbage, structure
 * hidden in uncaptured bytes) a stream resyncs at a fragment that starts with
 * one of its protocol keywords; pending requests are then emitted with
 * response_seen = false (a response-stream loss), and the first request after
 * a loss is paired only with a reply that started after it was sent.
 */
#include "features/network/l7/l7.h"
#include "features/network/l7/l7_stream.h"
#include "model/l7_text.h"
#include "features/network/l7/nats_wire.h"

#include <string.h>

#define N_TAIL	      48
#define N_LINE_MAX    (64u * 1024u)
#define N_MAX_PAYLOAD (64ull * 1024 * 1024)
#define N_HDR_LINE    96
#define N_SIDS	      8
#define N_SID_MAX     24

enum n_phase {
	NP_LINE = 0,
	NP_PAYLOAD,
	NP_PAY_CR,
	NP_PAY_LF,
	NP_LOST,
};

struct n_stream {
	uint8_t phase;
	uint8_t op; /* of the line being read, once its first token ended */
	bool tok_done;
	bool cr;
	bool in_msg;
	bool loss_mark;
	uint32_t line_len;
	uint32_t tail_pos;
	char head[N_HEAD];
	char tail[N_TAIL];
	struct n_json js;
	/* the message being framed */
	uint64_t start_ns;
	uint32_t seq;
	bool has_seq;
	uint64_t bytes;
	uint64_t payload_left;
	uint64_t hdr_left;
	uint64_t size; /* the size field */
	bool target_cut;
	char target[ENAV_L7_TARGET_MAX];
	/* header scan (HPUB, HMSG) */
	uint8_t hl_len;
	bool hl_over;
	char hl[N_HDR_LINE];
	bool has_tp;
	uint8_t tp_trace[16], tp_parent[8], tp_flags;
};

struct n_pend {
	uint64_t start_ns;
	uint64_t req_bytes;
	uint32_t phantoms_before; /* requests dropped (FIFO full) just before this one */
	uint32_t seq;
	bool has_seq;
	bool silent; /* CONNECT: its +OK is consumed, never emitted */
	bool after_loss;
	bool err;	    /* an error came, the +OK that completes it is due */
	bool err_cut;	    /* its status was cut */
	uint64_t err_bytes; /* that error line */
	uint8_t op;
	bool has_tp;
	uint8_t tp_trace[16], tp_parent[8], tp_flags;
	char status[ENAV_L7_STATUS_MAX];
	char target[ENAV_L7_TARGET_MAX];
};

struct n_sid {
	uint8_t len;
	char sid[N_SID_MAX];
	char target[ENAV_L7_TARGET_MAX];
};

struct nats_state {
	struct enav_l7_fifo q;	/* the requests awaiting +OK or -ERR, in fifo[] */
	uint32_t tail_phantoms; /* requests dropped after the last queued one */
	bool verbose;
	uint8_t sid_next;
	struct n_stream st[2];
	struct n_sid sids[N_SIDS];
	struct n_pend fifo[ENAV_L7_MAX_PENDING];
};

/* ---- FIFO and emission ---------------------------------------------------- */

static const char *n_opname(uint8_t op)
{
	switch (op) {
	case NO_PUB:
	case NO_HPUB:
		return "publish";
	case NO_SUB:
		return "subscribe";
	case NO_UNSUB:
		return "unsubscribe";
	case NO_MSG:
	case NO_HMSG:
		return "receive";
	default:
		return "";
	}
}

static void n_emit(uint8_t kind, uint8_t op_code, const char *target, uint64_t start_ns,
		   uint64_t end_ns, uint64_t req_bytes, uint64_t resp_bytes, bool seen, bool error,
		   const char *status, bool has_seq, uint32_t seq, bool has_tp,
		   const uint8_t *trace, const uint8_t *parent, uint8_t flags,
		   const struct enav_l7_sink *out)
{
	struct enav_l7_op op;

	memset(&op, 0, sizeof(op));
	op.protocol = ENAV_L7_NATS;
	op.kind = kind;
	op.error = error;
	op.response_seen = seen;
	memcpy(op.operation, n_opname(op_code), strlen(n_opname(op_code)) + 1);
	/* Only up to the NUL: what follows in the state is stale. */
	memcpy(op.target, target, strnlen(target, sizeof(op.target) - 1));
	if (status)
		memcpy(op.status, status, strnlen(status, sizeof(op.status) - 1));
	op.status_code = -1;
	op.start_ns = start_ns;
	op.end_ns = end_ns > start_ns ? end_ns : start_ns;
	op.request_bytes = req_bytes;
	op.response_bytes = resp_bytes;
	op.has_request_seq = has_seq;
	op.request_seq = seq;
	op.messaging_receive = op_code == NO_MSG || op_code == NO_HMSG;
	if (has_tp) {
		op.has_traceparent = true;
		memcpy(op.trace_id, trace, 16);
		memcpy(op.parent_id, parent, 8);
		op.trace_flags = flags;
	}
	out->stats->ops++;
	if (out->op)
		out->op(out->ctx, &op);
}

static void n_emit_pend(const struct n_pend *p, bool seen, uint64_t end_ns, uint64_t resp_bytes,
			bool error, const char *status, const struct enav_l7_sink *out)
{
	if (p->silent)
		return;
	n_emit(ENAV_L7_OP_REQUEST, p->op, p->target, p->start_ns, seen ? end_ns : p->start_ns,
	       p->req_bytes, seen ? resp_bytes : 0, seen, seen && error, seen ? status : NULL,
	       p->has_seq, p->seq, p->has_tp, p->tp_trace, p->tp_parent, p->tp_flags, out);
}

static struct n_pend *n_head(struct nats_state *s)
{
	return s->q.count ? &s->fifo[s->q.head] : NULL;
}

static void n_pop(struct nats_state *s)
{
	enav_l7_fifo_pop(&s->q);
}

static void n_flush(struct nats_state *s, const struct enav_l7_sink *out)
{
	s->tail_phantoms = 0;
	while (s->q.count) {
		n_emit_pend(n_head(s), false, 0, 0, false, NULL, out);
		n_pop(s);
	}
}

/* A request (or, when not verbose, a one-way message) completed. */
static void n_complete_request(struct nats_state *s, struct n_stream *q, uint8_t op, bool silent,
			       const struct enav_l7_sink *out)
{
	if (!s->verbose) {
		if (!silent)
			n_emit(ENAV_L7_OP_MESSAGE, op, q->target, q->start_ns, q->start_ns,
			       q->bytes, 0, false, false, NULL, q->has_seq, q->seq, q->has_tp,
			       q->tp_trace, q->tp_parent, q->tp_flags, out);
		q->loss_mark = false;
		return;
	}
	long at = enav_l7_fifo_push(&s->q, 0, out);
	if (at < 0) {
		/* Dropped (counted): its reply is still consumed in order. */
		s->tail_phantoms++;
		return;
	}
	struct n_pend *p = &s->fifo[at];
	memset(p, 0, sizeof(*p));
	p->start_ns = q->start_ns;
	p->req_bytes = q->bytes;
	p->seq = q->seq;
	p->has_seq = q->has_seq;
	p->silent = silent;
	p->op = op;
	p->after_loss = q->loss_mark;
	q->loss_mark = false;
	p->phantoms_before = s->tail_phantoms;
	s->tail_phantoms = 0;
	memcpy(p->target, q->target, sizeof(p->target));
	p->has_tp = q->has_tp;
	memcpy(p->tp_trace, q->tp_trace, 16);
	memcpy(p->tp_parent, q->tp_parent, 8);
	p->tp_flags = q->tp_flags;
}

/* ---- subscriptions (for UNSUB's target) ----------------------------------- */

static void n_sid_put(struct nats_state *s, const char *sid, size_t n, const char *target)
{
	if (n == 0 || n > N_SID_MAX)
		return;
	struct n_sid *e = NULL;
	for (unsigned i = 0; i < N_SIDS; i++)
		if (s->sids[i].len == n && memcmp(s->sids[i].sid, sid, n) == 0)
			e = &s->sids[i];
	if (!e) {
		e = &s->sids[s->sid_next];
		s->sid_next = (uint8_t)((s->sid_next + 1) % N_SIDS);
	}
	e->len = (uint8_t)n;
	memcpy(e->sid, sid, n);
	memcpy(e->target, target, sizeof(e->target));
}

static const char *n_sid_get(const struct nats_state *s, const char *sid, size_t n)
{
	for (unsigned i = 0; i < N_SIDS; i++)
		if (n && s->sids[i].len == n && memcmp(s->sids[i].sid, sid, n) == 0)
			return s->sids[i].target;
	return "";
}

/* ---- line handling -------------------------------------------------------- */

static void n_lose(struct nats_state *s, int stream, bool parse_error,
		   const struct enav_l7_sink *out)
{
	struct n_stream *q = &s->st[stream];

	if (parse_error)
		out->stats->parse_errors++;
	out->stats->resyncs++;
	q->phase = NP_LOST;
	q->in_msg = false;
	/* The replies of the requests sent so far cannot be told apart now. */
	if (stream == ENAV_L7_RESPONSE)
		n_flush(s, out);
	s->st[ENAV_L7_REQUEST].loss_mark = true;
}

/* Tokens of the line: up to 8 from the head.  When the line was longer than
 * the head, the last token(s) come from the tail instead. */
struct n_tokens {
	uint8_t n;
	bool long_line;
	const char *p[8];
	size_t len[8];
	/* from the tail, newest last */
	uint8_t tn;
	const char *tp[3];
	size_t tlen[3];
	char tbuf[N_TAIL];
};

static void n_tokenize(const struct n_stream *q, size_t content, struct n_tokens *t)
{
	memset(t, 0, sizeof(*t));
	size_t hn = content < N_HEAD ? content : N_HEAD;
	t->long_line = content > N_HEAD;
	for (size_t i = 0; i < hn;) {
		while (i < hn && enav_nats_space((uint8_t)q->head[i]))
			i++;
		if (i == hn)
			break;
		size_t e = i;
		while (e < hn && !enav_nats_space((uint8_t)q->head[e]))
			e++;
		if (t->n == 8)
			break;
		t->p[t->n] = q->head + i;
		t->len[t->n] = e - i;
		t->n++;
		i = e;
	}
	if (!t->long_line)
		return;
	/* The last bytes of the content, in order (the ring's newest byte may
	 * be the line's CR). */
	size_t skip = q->line_len - content;
	size_t tn = N_TAIL - 1;
	for (size_t k = 0; k < tn; k++)
		t->tbuf[k] = q->tail[(q->tail_pos + N_TAIL - skip - tn + k) % N_TAIL];
	size_t e = tn;
	while (t->tn < 3) {
		while (e > 0 && enav_nats_space((uint8_t)t->tbuf[e - 1]))
			e--;
		if (e == 0)
			break;
		size_t b = e;
		while (b > 0 && !enav_nats_space((uint8_t)t->tbuf[b - 1]))
			b--;
		if (b == 0)
			break; /* the token may continue before the tail */
		for (int k = 2; k > 0; k--) {
			t->tp[k] = t->tp[k - 1];
			t->tlen[k] = t->tlen[k - 1];
		}
		t->tp[0] = t->tbuf + b;
		t->tlen[0] = e - b;
		t->tn++;
		e = b;
	}
}

/* The k-th token from the end (k = 1: the last). */
static bool n_last(const struct n_tokens *t, unsigned k, const char **p, size_t *len)
{
	if (!t->long_line) {
		if (k > t->n)
			return false;
		*p = t->p[t->n - k];
		*len = t->len[t->n - k];
		return true;
	}
	if (k > t->tn)
		return false;
	*p = t->tp[t->tn - k];
	*len = t->tlen[t->tn - k];
	return true;
}

static void n_begin_msg(struct n_stream *q, const struct enav_l7_fragment *f, uint32_t off)
{
	q->in_msg = true;
	q->start_ns = f->ts_ns;
	q->has_seq = f->has_seq;
	q->seq = f->seq + off;
	q->bytes = 0;
	q->line_len = 0;
	q->tail_pos = 0;
	q->tok_done = false;
	q->cr = false;
	q->op = NO_NONE;
	q->has_tp = false;
	q->target[0] = '\0';
	q->target_cut = false;
	memset(&q->js, 0, sizeof(q->js));
	q->js.verbose = -1;
}

static void n_set_target(struct n_stream *q, const struct n_tokens *t, unsigned idx,
			 const struct enav_l7_sink *out)
{
	if (idx >= t->n) {
		q->target[0] = '\0';
		return;
	}
	/* A subject that reaches the end of the head may go on past it. */
	bool cut = t->long_line && t->p[idx] + t->len[idx] == q->head + N_HEAD;
	if (enav_nats_target(q->target, t->p[idx], t->len[idx], cut))
		out->stats->truncated_fields++;
}

static void n_reply_line(struct nats_state *s, struct n_stream *q, bool ok, const char *status,
			 bool status_cut, bool invalid_pub, const struct enav_l7_fragment *f,
			 const struct enav_l7_sink *out)
{
	struct n_pend *h = n_head(s);
	uint32_t *ph = h ? &h->phantoms_before : &s->tail_phantoms;

	if (s->verbose && *ph) {
		/* The reply of a request dropped when the FIFO was full (an
		 * invalid-subject -ERR is followed by that PUB's +OK). */
		if (ok || !invalid_pub)
			(*ph)--;
		return;
	}
	if (!s->verbose || !h || (h->after_loss && q->start_ns < h->start_ns)) {
		out->stats->unmatched_responses++;
		return;
	}
	if (!ok && invalid_pub && !h->err && (h->op == NO_PUB || h->op == NO_HPUB)) {
		/* pedantic: +OK follows for the same PUB */
		h->err = true;
		h->err_cut = status_cut;
		h->err_bytes = q->bytes;
		memcpy(h->status, status, sizeof(h->status));
		return;
	}
	if (h->silent) {
		if (!ok)
			out->stats->unmatched_responses++; /* CONNECT's error: no op carries it */
	} else if (h->err) {
		if (h->err_cut)
			out->stats->truncated_fields++;
		n_emit_pend(h, true, f->ts_ns, h->err_bytes + q->bytes, true, h->status, out);
	} else {
		if (!ok && status_cut)
			out->stats->truncated_fields++;
		n_emit_pend(h, true, f->ts_ns, q->bytes, !ok, ok ? NULL : status, out);
	}
	n_pop(s);
}

/* A complete line; false when it cannot be framed. */
static bool n_line_done(struct nats_state *s, int stream, const struct enav_l7_fragment *f,
			const struct enav_l7_sink *out)
{
	struct n_stream *q = &s->st[stream];
	size_t content = q->line_len - (q->cr ? 1 : 0);
	struct n_tokens t;
	const char *p;
	size_t len;
	uint64_t v, hdr = 0;

	n_tokenize(q, content, &t);
	if (t.n == 0) {
		/* an empty line: nothing to frame */
		q->in_msg = false;
		return true;
	}
	uint8_t op = enav_nats_op_of(t.p[0], t.len[0], stream);
	switch (op) {
	case NO_CONNECT:
		s->verbose = q->js.verbose == 1;
		n_complete_request(s, q, NO_CONNECT, true, out);
		q->in_msg = false;
		return true;
	case NO_PING:
	case NO_PONG:
	case NO_INFO:
		q->in_msg = false;
		return true;
	case NO_OK:
		if (t.n != 1 || t.len[0] != 3)
			return false;
		n_reply_line(s, q, true, NULL, false, false, f, out);
		q->in_msg = false;
		return true;
	case NO_ERR: {
		char status[ENAV_L7_STATUS_MAX] = {0};
		size_t hn = content < N_HEAD ? content : N_HEAD;
		size_t at = (size_t)(t.p[0] - q->head) + t.len[0];
		if (t.len[0] != 4)
			return false;
		bool cut = enav_nats_err_status(status, q->head + at, hn - at);
		bool invalid_pub = strcmp(status, "Invalid Publish Subject") == 0;
		n_reply_line(s, q, false, status, cut, invalid_pub, f, out);
		q->in_msg = false;
		return true;
	}
	case NO_SUB:
		/* SUB subject [queue] sid */
		if (!t.long_line && (t.n < 3 || t.n > 4))
			return false;
		n_set_target(q, &t, 1, out);
		if (n_last(&t, 1, &p, &len))
			n_sid_put(s, p, len, q->target);
		n_complete_request(s, q, NO_SUB, false, out);
		q->in_msg = false;
		return true;
	case NO_UNSUB:
		/* UNSUB sid [max] */
		if (t.long_line || t.n < 2 || t.n > 3)
			return false;
		if (t.n == 3 && !enav_nats_parse_u64(t.p[2], t.len[2], &v))
			return false;
		const char *sub = n_sid_get(s, t.p[1], t.len[1]);
		memcpy(q->target, sub, strlen(sub) + 1);
		n_complete_request(s, q, NO_UNSUB, false, out);
		q->in_msg = false;
		return true;
	case NO_PUB:
	case NO_HPUB:
	case NO_MSG:
	case NO_HMSG: {
		/* PUB subject [reply] size; HPUB subject [reply] hdr total;
		 * MSG subject sid [reply] size; HMSG subject sid [reply] hdr total */
		bool h = op == NO_HPUB || op == NO_HMSG;
		unsigned min = (op == NO_PUB ? 3 : op == NO_MSG || op == NO_HPUB ? 4 : 5);
		if (!t.long_line && (t.n < min || t.n > min + 1))
			return false;
		if (!n_last(&t, 1, &p, &len) || !enav_nats_parse_u64(p, len, &v) ||
		    v > N_MAX_PAYLOAD)
			return false;
		if (h &&
		    (!n_last(&t, 2, &p, &len) || !enav_nats_parse_u64(p, len, &hdr) || hdr > v))
			return false;
		n_set_target(q, &t, 1, out);
		q->op = op;
		q->size = v;
		q->payload_left = v;
		q->hdr_left = h ? hdr : 0;
		q->hl_len = 0;
		q->hl_over = false;
		q->phase = v ? NP_PAYLOAD : NP_PAY_CR;
		return true;
	}
	default:
		return false;
	}
}

/* The payload (and its CRLF) of a PUB/HPUB/MSG/HMSG completed. */
static void n_payload_done(struct nats_state *s, int stream, const struct enav_l7_sink *out)
{
	struct n_stream *q = &s->st[stream];

	q->phase = NP_LINE;
	q->in_msg = false;
	if (q->op == NO_MSG || q->op == NO_HMSG) {
		n_emit(ENAV_L7_OP_MESSAGE, q->op, q->target, q->start_ns, q->start_ns, 0, q->size,
		       false, false, NULL, q->has_seq, q->seq, q->has_tp, q->tp_trace, q->tp_parent,
		       q->tp_flags, out);
		return;
	}
	n_complete_request(s, q, q->op, false, out);
}

/* One header byte of HPUB/HMSG: look for "traceparent:" lines. */
static void n_header_byte(struct n_stream *q, uint8_t c)
{
	if (c == '\n') {
		size_t n = q->hl_len;
		if (n && q->hl[n - 1] == '\r')
			n--;
		static const char key[] = "traceparent:";
		if (!q->hl_over && n > sizeof(key) - 1) {
			bool match = true;
			for (size_t i = 0; match && i < sizeof(key) - 1; i++)
				match = (q->hl[i] | 0x20) == key[i] ||
					(key[i] == ':' && q->hl[i] == ':');
			if (match && !q->has_tp &&
			    enav_l7_traceparent_parse(q->hl + sizeof(key) - 1,
						      n - (sizeof(key) - 1), q->tp_trace,
						      q->tp_parent, &q->tp_flags))
				q->has_tp = true;
		}
		q->hl_len = 0;
		q->hl_over = false;
		return;
	}
	if (q->hl_len < N_HDR_LINE)
		q->hl[q->hl_len++] = (char)c;
	else
		q->hl_over = true;
}

static void n_feed_stream(struct nats_state *s, const struct enav_l7_fragment *f,
			  const struct enav_l7_sink *out)
{
	int stream = f->stream == ENAV_L7_REQUEST ? ENAV_L7_REQUEST : ENAV_L7_RESPONSE;
	struct n_stream *q = &s->st[stream];
	const uint8_t *d = f->data;
	uint32_t n = f->captured;
	uint32_t i = 0;

	if (f->gap && q->phase != NP_LOST)
		n_lose(s, stream, false, out);
	if (q->phase == NP_LOST) {
		if (!enav_nats_starts_line(d, n, stream))
			return;
		q->phase = NP_LINE;
	}

	while (i < n) {
		uint8_t c = d[i];

		if (q->phase == NP_PAYLOAD) {
			uint64_t k = n - i;
			if (k > q->payload_left)
				k = q->payload_left;
			uint64_t hk = k < q->hdr_left ? k : q->hdr_left;
			for (uint64_t j = 0; j < hk; j++)
				n_header_byte(q, d[i + j]);
			q->hdr_left -= hk;
			q->payload_left -= k;
			q->bytes += k;
			i += (uint32_t)k;
			if (q->payload_left == 0)
				q->phase = NP_PAY_CR;
			continue;
		}
		if (q->phase == NP_LINE && !q->in_msg)
			n_begin_msg(q, f, i);
		q->bytes++;
		i++;
		switch (q->phase) {
		case NP_LINE:
			if (c == '\n') {
				if (!n_line_done(s, stream, f, out)) {
					n_lose(s, stream, true, out);
					return;
				}
				break;
			}
			if (q->line_len >= N_LINE_MAX || c == 0) {
				n_lose(s, stream, true, out);
				return;
			}
			if (q->line_len < N_HEAD)
				q->head[q->line_len] = (char)c;
			q->tail[q->tail_pos] = (char)c;
			q->tail_pos = (q->tail_pos + 1) % N_TAIL;
			q->line_len++;
			if (q->cr) {
				/* a CR inside a line */
				n_lose(s, stream, true, out);
				return;
			}
			q->cr = c == '\r';
			if (!q->tok_done && (enav_nats_space(c) || c == '\r')) {
				q->tok_done = true;
				q->op = enav_nats_op_of(
				    q->head, q->line_len - 1 < N_HEAD ? q->line_len - 1 : N_HEAD,
				    stream);
			} else if (q->tok_done && q->op == NO_CONNECT) {
				enav_nats_json_byte(&q->js, c);
			}
			break;
		case NP_PAY_CR:
			if (c != '\r') {
				n_lose(s, stream, true, out);
				return;
			}
			q->phase = NP_PAY_LF;
			break;
		case NP_PAY_LF:
			if (c != '\n') {
				n_lose(s, stream, true, out);
				return;
			}
			n_payload_done(s, stream, out);
			break;
		default:
			n_lose(s, stream, true, out);
			return;
		}
	}

	uint64_t hidden = f->len > f->captured ? f->len - f->captured : 0;
	if (hidden == 0)
		return;
	if (q->phase >= NP_PAYLOAD && q->phase <= NP_PAY_LF) {
		uint64_t before = q->payload_left;
		bool ended;
		uint64_t k =
		    enav_l7_crlf_body_skip(&q->phase, &q->payload_left, NP_PAYLOAD, hidden, &ended);
		uint64_t pk = before - q->payload_left; /* of the payload: headers first */

		q->hdr_left = pk < q->hdr_left ? q->hdr_left - pk : 0;
		q->bytes += k;
		hidden -= k;
		if (ended)
			n_payload_done(s, stream, out);
		if (hidden == 0)
			return;
	}
	/* Message boundaries hidden in the uncaptured bytes.  A CONNECT cut
	 * there still says whether the connection is verbose when its captured
	 * start did (clients write "verbose" first). */
	if (q->phase == NP_LINE && q->in_msg && q->op == NO_CONNECT && q->js.verbose >= 0) {
		s->verbose = q->js.verbose == 1;
		q->bytes += hidden;
		n_complete_request(s, q, NO_CONNECT, true, out);
	}
	n_lose(s, stream, false, out);
}

/* ---- parser ops ----------------------------------------------------------- */

static bool n_prefix_brace(const uint8_t *d, size_t n, const char *word)
{
	size_t w = strlen(word), i;

	if (n < w + 2)
		return false;
	for (i = 0; i < w; i++)
		if (enav_nats_upper((char)d[i]) != word[i])
			return false;
	if (!enav_nats_space(d[w]))
		return false;
	for (i = w + 1; i < n && enav_nats_space(d[i]); i++)
		;
	return i < n && d[i] == '{';
}

static bool nats_detect(const uint8_t *d, size_t n, enum enav_l7_stream stream)
{
	return n_prefix_brace(d, n, stream == ENAV_L7_REQUEST ? "CONNECT" : "INFO");
}

static int nats_init(void *state, const struct enav_l7_options *opt)
{
	struct nats_state *s = state;

	enav_l7_fifo_init(&s->q, enav_l7_max_pending(opt));
	return 0;
}

static void nats_feed(void *state, const struct enav_l7_fragment *f, const struct enav_l7_sink *out)
{
	if (f->captured > f->len)
		return; /* malformed fragment: the tracker never sends one */
	n_feed_stream(state, f, out);
}

static void nats_finish(void *state, const struct enav_l7_sink *out)
{
	struct nats_state *s = state;

	n_flush(s, out);
	memset(s, 0, sizeof(*s));
}

ENAV_L7_PARSER(nats, struct nats_state, nats_detect, nats_init, nats_feed, nats_finish);
