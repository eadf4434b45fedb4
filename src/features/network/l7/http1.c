/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP/1.0 and HTTP/1.1 (RFC 9112), with the WebSocket upgrade (websocket.c).
 *
 * Each direction is read as a sequence of messages: a start line and header
 * lines (read line by line through a bounded line buffer: a longer line keeps
 * its first H1_LINE_MAX bytes, the rest is skipped), then a body framed by
 * Content-Length, chunked Transfer-Encoding (chunk sizes walked, trailers
 * skipped) or, for a response only, the connection's close.  Body bytes are
 * skipped by length, never copied, captured or not.
 *
 * Requests enter a FIFO when their headers are complete; responses pair with
 * the FIFO's head in order (pipelining).  1xx interim responses (100
 * Continue) are skipped, 101 switches both directions to WebSocket framing
 * (Upgrade: websocket) or to an opaque tunnel (any other upgrade, CONNECT
 * 2xx).  A response with no pending request is counted, never emitted.
 *
 * Losses (a gap, a parse error, a message boundary hidden in uncaptured
 * bytes) resync the direction: the partial message is dropped (a request
 * whose start line was read still enters the FIFO; a response whose status
 * line was read is still emitted) and later bytes are scanned for a
 * plausible start line.  A loss on the request side may hide requests, so
 * until a response pairs again a response only pairs with a request that
 * started no later than it; a loss on the response side may hide responses,
 * so the pending requests are forgotten.
 */
#include "features/network/l7/l7_common.h"
#include "model/l7_text.h"
#include "features/network/l7/http1_state.h"
#include "features/network/l7/websocket.h"

#include <stdio.h>
#include <string.h>

/* ---- start-line signatures ------------------------------------------------ */

static const char *const h1_methods[] = {"GET",	  "POST",    "PUT",   "HEAD", "DELETE",
					 "PATCH", "OPTIONS", "TRACE", NULL};

/* A request start with the methods the kernel side classifies. */
static bool request_sig(const uint8_t *d, size_t n)
{
	for (const char *const *m = h1_methods; *m; m++) {
		size_t l = strlen(*m);

		if (n > l + 1 && memcmp(d, *m, l) == 0 && d[l] == ' ') {
			uint8_t c = d[l + 1];

			return c == '/' || c == '*' || c == 'h' || c == 'H';
		}
	}
	/* CONNECT host:port, not NATS's "CONNECT {json}". */
	if (n > 8 && memcmp(d, "CONNECT ", 8) == 0) {
		size_t i = 8;

		while (i < n && d[i] == ' ')
			i++;
		if (i >= n)
			return false;
		uint8_t c = d[i];

		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '[';
	}
	return false;
}

bool enav_h1_response_sig(const uint8_t *d, size_t n)
{
	return n >= 12 && memcmp(d, "HTTP/1.", 7) == 0 && is_digit(d[7]) && d[8] == ' ' &&
	       is_digit(d[9]) && is_digit(d[10]) && is_digit(d[11]);
}

static bool h1_detect(const uint8_t *d, size_t n, enum enav_l7_stream stream)
{
	if (!d)
		return false;
	if (stream == ENAV_L7_RESPONSE)
		return n >= 7 && memcmp(d, "HTTP/1.", 7) == 0;
	for (const char *const *m = h1_methods; *m; m++) {
		size_t l = strlen(*m);

		if (n > l && memcmp(d, *m, l) == 0 && d[l] == ' ')
			return true;
	}
	if (n > 8 && memcmp(d, "CONNECT ", 8) == 0) {
		size_t i = 8;

		while (i < n && (d[i] == ' ' || d[i] == '\t'))
			i++;
		return i < n && d[i] != '{';
	}
	return false;
}

bool enav_h1_method_char(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || c == '-' || c == '_';
}

/* Can the bytes buffered so far begin a start line? */
static bool start_prefix_ok(enum enav_l7_stream stream, const char *l, size_t n)
{
	if (stream == ENAV_L7_RESPONSE) {
		static const char pfx[] = "HTTP/1.";
		size_t k = n < 7 ? n : 7;

		return memcmp(l, pfx, k) == 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (l[i] == ' ')
			return i > 0;
		if (i >= ENAV_L7_OPERATION_MAX - 1 || !enav_h1_method_char((unsigned char)l[i]))
			return false;
	}
	return true;
}

/* ---- FIFO ----------------------------------------------------------------- */

struct h1_req *enav_h1_fifo_at(struct h1_state *st, uint32_t i)
{
	return &st->fifo[enav_l7_fifo_at(&st->q, i)];
}

static struct h1_req *req_entry(struct h1_state *st)
{
	if (!st->cur_pushed || st->q.count == 0)
		return NULL;
	struct h1_req *t = enav_h1_fifo_at(st, st->q.count - 1);

	return t->id == st->cur_id ? t : NULL;
}

static void fifo_pop(struct h1_state *st)
{
	struct h1_req *h = enav_h1_fifo_at(st, 0);

	if (st->cur_pushed && h->id == st->cur_id)
		st->cur_pushed = false;
	enav_l7_fifo_pop(&st->q);
}

static void fifo_clear(struct h1_state *st)
{
	enav_l7_fifo_clear(&st->q);
	st->cur_pushed = false;
	st->skip_responses = 0;
}

void enav_h1_push_request(struct h1_state *st, const struct enav_l7_sink *out)
{
	struct h1_msg *m = &st->s[ENAV_L7_REQUEST].m;

	m->pushed = true;
	st->cur.start_ns = m->start_ns;
	st->cur.bytes = m->bytes;
	st->cur.has_seq = m->has_seq;
	st->cur.seq = m->seq;
	st->cur.rpc = m->rpc;
	st->cur.upgrade_ws = m->upgrade_ws;
	st->cur.has_tp = m->tp_count == 1 && m->tp_ok;
	if (st->cur.has_tp) {
		memcpy(st->cur.trace_id, m->trace_id, sizeof(st->cur.trace_id));
		memcpy(st->cur.parent_id, m->parent_id, sizeof(st->cur.parent_id));
		st->cur.trace_flags = m->trace_flags;
	}
	long at = enav_l7_fifo_push(&st->q, (int64_t)st->next_id + 1, out);

	if (at < 0) { /* full: the newest entry's response is followed by one to skip */
		struct h1_req *t = enav_h1_fifo_at(st, st->q.count - 1);

		if (t->skip_after < UINT16_MAX)
			t->skip_after++;
		st->cur_pushed = false;
		return;
	}
	st->cur.id = ++st->next_id;
	st->cur.skip_after = 0;
	st->fifo[at] = st->cur;
	st->cur_pushed = true;
	st->cur_id = st->cur.id;
}

/* ---- emitting ------------------------------------------------------------- */

static void emit_http(const struct h1_req *req, const struct h1_msg *resp, uint64_t end_ns,
		      const struct enav_l7_sink *out)
{
	struct enav_l7_op local, *op = out->op_slot ? out->op_slot(out->ctx) : NULL;

	if (!op) { /* the sink keeps no slot (or has none left): build it here */
		memset(&local, 0, sizeof(local));
		op = &local;
	}
	op->protocol = ENAV_L7_HTTP1;
	op->kind = ENAV_L7_OP_REQUEST;
	memcpy(op->operation, req->method, sizeof(op->operation));
	memcpy(op->target, req->target, sizeof(op->target));
	memcpy(op->path, req->path, sizeof(op->path));
	op->rpc = req->rpc || (resp && resp->rpc);
	op->status_code = -1;
	if (resp) {
		op->response_seen = true;
		op->status_code = resp->status;
		if (resp->status >= 100 && resp->status <= 999) { /* parse_status_line */
			op->status[0] = (char)('0' + resp->status / 100);
			op->status[1] = (char)('0' + resp->status / 10 % 10);
			op->status[2] = (char)('0' + resp->status % 10);
		} else {
			enav_l7_put_number(op->status, sizeof(op->status), "", resp->status);
		}
		op->error = resp->status >= 500;
		op->response_bytes = resp->bytes;
	}
	op->start_ns = req->start_ns;
	op->end_ns = end_ns > req->start_ns ? end_ns : req->start_ns;
	op->request_bytes = req->bytes;
	op->has_request_seq = req->has_seq;
	op->request_seq = req->seq;
	if (req->has_tp) {
		op->has_traceparent = true;
		memcpy(op->trace_id, req->trace_id, sizeof(op->trace_id));
		memcpy(op->parent_id, req->parent_id, sizeof(op->parent_id));
		op->trace_flags = req->trace_flags;
	}
	out->stats->ops++;
	out->op(out->ctx, op);
}

/* ---- per-message state ---------------------------------------------------- */

void enav_h1_msg_reset(struct h1_stream *s)
{
	memset(&s->m, 0, sizeof(s->m));
	s->m.content_length = -1;
	s->line_len = 0;
	s->line_cut = false;
	s->leading = 0;
	s->remaining = 0;
	s->chunk_digits = 0;
	s->crlf = 0;
	s->ext_bytes = 0;
}

/* Forget the header facts of an interim (1xx) response, keep its bytes and
 * start: they belong to the exchange. */
void enav_h1_msg_interim(struct h1_stream *s)
{
	struct h1_msg keep = s->m;

	enav_h1_msg_reset(s);
	s->m.start_ns = keep.start_ns;
	s->m.bytes = keep.bytes;
	s->m.seq = keep.seq;
	s->m.has_seq = keep.has_seq;
	s->m.interim = true;
}

static void account(struct h1_state *st, enum enav_l7_stream stream, uint64_t n)
{
	st->s[stream].m.bytes += n;
	if (stream == ENAV_L7_REQUEST) {
		struct h1_req *e = req_entry(st);

		if (e)
			e->bytes = st->s[stream].m.bytes;
	}
}

static void begin_message(struct h1_state *st, enum enav_l7_stream stream,
			  const struct enav_l7_fragment *f, uint32_t off)
{
	struct h1_msg *m = &st->s[stream].m;

	if (!m->interim) {
		m->start_ns = f->ts_ns;
		m->has_seq = f->has_seq;
		m->seq = f->seq + off;
		m->bytes = 0;
	}
	m->started = true;
	if (stream == ENAV_L7_REQUEST) {
		memset(&st->cur, 0, sizeof(st->cur));
		st->cur_pushed = false;
	}
	st->s[stream].phase = P_HEADERS;
}

/* The phase a direction takes at a message boundary. */
static uint8_t boundary_phase(const struct h1_state *st)
{
	switch (st->switched) {
	case SW_WEBSOCKET:
		return P_WEBSOCKET;
	case SW_TUNNEL:
		return P_TUNNEL;
	default:
		return P_START;
	}
}

void enav_h1_enter_switched(struct h1_state *st, enum enav_l7_stream stream)
{
	struct h1_stream *s = &st->s[stream];

	s->phase = boundary_phase(st);
	if (s->phase == P_WEBSOCKET)
		memset(&s->ws, 0, sizeof(s->ws));
}

/* Pair the response being read with a request, once. */
void enav_h1_decide_match(struct h1_state *st, const struct enav_l7_sink *out)
{
	struct h1_msg *m = &st->s[ENAV_L7_RESPONSE].m;

	if (m->decided)
		return;
	m->decided = true;
	m->matched = false;
	if (st->skip_responses > 0) { /* its request was dropped: FIFO full */
		st->skip_responses--;
		return;
	}
	if (st->q.count == 0) {
		out->stats->unmatched_responses++;
		return;
	}
	const struct h1_req *h = enav_h1_fifo_at(st, 0);

	if (st->uncertain && h->id > st->loss_mark) {
		if (h->start_ns > m->start_ns) {
			/* It began before the request after the loss did: it
			 * answers a request that was lost. */
			out->stats->unmatched_responses++;
			return;
		}
		st->uncertain = false; /* in step again */
	}
	m->matched = true;
}

/* The response being read is complete (or as complete as it will get). */
void enav_h1_response_done(struct h1_state *st, uint64_t end_ns, const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[ENAV_L7_RESPONSE];

	enav_h1_decide_match(st, out);
	if (s->m.matched && st->q.count > 0) {
		struct h1_req *req = enav_h1_fifo_at(st, 0);

		emit_http(req, &s->m, end_ns, out);
		st->skip_responses += req->skip_after;
		fifo_pop(st);
	}
	enav_h1_msg_reset(s);
	s->phase = P_START;
}

void enav_h1_request_done(struct h1_state *st)
{
	struct h1_stream *s = &st->s[ENAV_L7_REQUEST];
	bool wait = (s->m.upgrade_any && s->m.conn_upgrade) || st->cur.connect;
	bool ws = s->m.upgrade_ws;

	enav_h1_msg_reset(s);
	st->cur_pushed = false;
	if (st->switched != SW_NONE) {
		enav_h1_enter_switched(st, ENAV_L7_REQUEST);
	} else if (wait) {
		s->phase = P_UPGRADE_WAIT;
		s->wait_ws = ws;
	} else {
		s->phase = P_START;
	}
}

void enav_h1_message_done(struct h1_state *st, enum enav_l7_stream stream,
			  const struct enav_l7_fragment *f, const struct enav_l7_sink *out)
{
	if (stream == ENAV_L7_REQUEST) {
		enav_h1_request_done(st);
	} else {
		enav_h1_response_done(st, f->ts_ns, out);
		st->s[stream].phase = boundary_phase(st);
	}
}

/*
 * The message being read on this direction cannot be followed (a gap, a
 * parse error, a boundary in uncaptured bytes): keep what is certain, then
 * look for the next start line.  extra: wire bytes of this message that were
 * not seen.
 */
static void msg_lost(struct h1_state *st, enum enav_l7_stream stream, uint64_t end_ns,
		     uint64_t extra, bool hidden, const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];

	out->stats->resyncs++;
	if (stream == ENAV_L7_REQUEST) {
		if (s->phase == P_HEADERS && s->m.start_done && !s->m.pushed) {
			s->m.bytes += extra;
			enav_h1_push_request(st, out);
		} else {
			account(st, stream, extra);
		}
		st->cur_pushed = false;
		/* Requests may hide in what was lost, after the last one known. */
		st->uncertain = true;
		st->loss_mark = st->next_id;
	} else {
		if (s->m.start_done && !(s->m.status >= 100 && s->m.status < 200)) {
			s->m.bytes += extra;
			enav_h1_response_done(st, end_ns, out);
		}
		/* Responses may hide in bytes we could not read (not in bytes we
		 * read and rejected): which request the next one answers is
		 * unknown. */
		if (hidden) {
			fifo_clear(st);
			st->uncertain = true;
			st->loss_mark = st->next_id;
		}
	}
	enav_h1_msg_reset(s);
	s->phase = P_RESYNC;
}

void enav_h1_parse_error(struct h1_state *st, enum enav_l7_stream stream, uint64_t end_ns,
			 const struct enav_l7_sink *out)
{
	out->stats->parse_errors++;
	msg_lost(st, stream, end_ns, 0, false, out);
}

/* ---- the byte loop -------------------------------------------------------- */

/* Read line bytes (headers or trailers); returns bytes consumed.  A line
 * whole in the fragment is read where it lies; only a line split across
 * fragments is gathered in s->line. */
static size_t step_lines(struct h1_state *st, enum enav_l7_stream stream,
			 const struct enav_l7_fragment *f, uint32_t off, uint32_t cap,
			 const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];
	const uint8_t *p = f->data + off;
	size_t avail = cap - off;
	const uint8_t *lf = memchr(p, '\n', avail);
	size_t take = lf ? (size_t)(lf - p) + 1 : avail;
	bool in_place = lf && s->line_len == 0;
	const char *line = (const char *)p;
	size_t line_len;

	if (in_place) {
		line_len = take <= H1_LINE_MAX ? take : H1_LINE_MAX;
		if (take > H1_LINE_MAX)
			s->line_cut = true;
	} else {
		size_t room = H1_LINE_MAX - s->line_len;
		size_t copy = take < room ? take : room;

		memcpy(s->line + s->line_len, p, copy);
		s->line_len += (uint16_t)copy;
		if (copy < take)
			s->line_cut = true;
		line = s->line;
		line_len = s->line_len;
	}
	account(st, stream, take);
	s->m.head_bytes += (uint32_t)(take < H1_HEAD_MAX ? take : H1_HEAD_MAX);
	if (s->m.head_bytes > H1_HEAD_MAX) {
		enav_h1_parse_error(st, stream, f->ts_ns, out);
		return take;
	}
	if (!s->m.start_done && s->phase == P_HEADERS && !start_prefix_ok(stream, line, line_len)) {
		enav_h1_parse_error(st, stream, f->ts_ns, out);
		return take;
	}
	if (lf) {
		if (!s->line_cut)
			line_len--; /* the LF */
		if (s->phase == P_HEADERS && s->m.start_done && !s->line_cut &&
		    enav_h1_field_never_read(line[0])) {
			s->line_len = 0; /* what enav_h1_line_done would do with it */
			return take;
		}
		enav_h1_line_done(st, stream, line, line_len, s->line_cut, f, out);
	}
	return take;
}

static size_t step_chunk_size(struct h1_state *st, enum enav_l7_stream stream,
			      const struct enav_l7_fragment *f, uint32_t off, uint32_t cap,
			      const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];
	size_t i = off;

	while (i < cap) {
		unsigned char c = f->data[i++];
		int h = hexval(c);

		if (h >= 0) {
			if (s->chunk_digits >= H1_CHUNK_DIGITS_MAX ||
			    s->remaining > (H1_BODY_MAX >> 4)) {
				account(st, stream, i - off);
				enav_h1_parse_error(st, stream, f->ts_ns, out);
				return i - off;
			}
			s->remaining = s->remaining << 4 | (uint64_t)h;
			s->chunk_digits++;
			continue;
		}
		if (s->chunk_digits == 0 ||
		    !(c == ';' || c == ' ' || c == '\t' || c == '\r' || c == '\n')) {
			account(st, stream, i - off);
			enav_h1_parse_error(st, stream, f->ts_ns, out);
			return i - off;
		}
		account(st, stream, i - off);
		if (c == '\n') {
			s->phase = s->remaining ? P_CHUNK_DATA : P_TRAILERS;
			s->line_len = 0;
			s->line_cut = false;
		} else {
			s->phase = P_CHUNK_EXT;
			s->ext_bytes = 0;
		}
		return i - off;
	}
	account(st, stream, i - off);
	return i - off;
}

static size_t step_chunk_ext(struct h1_state *st, enum enav_l7_stream stream,
			     const struct enav_l7_fragment *f, uint32_t off, uint32_t cap,
			     const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];
	const uint8_t *p = f->data + off;
	const uint8_t *lf = memchr(p, '\n', cap - off);
	size_t take = lf ? (size_t)(lf - p) + 1 : cap - off;

	account(st, stream, take);
	s->ext_bytes += (uint32_t)(take < H1_CHUNK_EXT_MAX ? take : H1_CHUNK_EXT_MAX);
	if (s->ext_bytes > H1_CHUNK_EXT_MAX) {
		enav_h1_parse_error(st, stream, f->ts_ns, out);
		return take;
	}
	if (lf) {
		s->phase = s->remaining ? P_CHUNK_DATA : P_TRAILERS;
		s->line_len = 0;
		s->line_cut = false;
	}
	return take;
}

static size_t step_chunk_crlf(struct h1_state *st, enum enav_l7_stream stream,
			      const struct enav_l7_fragment *f, uint32_t off,
			      const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];
	unsigned char c = f->data[off];

	account(st, stream, 1);
	if (c == '\r' && s->crlf == 0) {
		s->crlf = 1;
	} else if (c == '\n') {
		s->phase = P_CHUNK_SIZE;
		s->remaining = 0;
		s->chunk_digits = 0;
		s->crlf = 0;
	} else {
		enav_h1_parse_error(st, stream, f->ts_ns, out);
	}
	return 1;
}

/* Skip bytes up to the next plausible start line at a fragment start or
 * right after a LF. */
static size_t step_resync(struct h1_state *st, enum enav_l7_stream stream,
			  const struct enav_l7_fragment *f, uint32_t off, uint32_t cap)
{
	const uint8_t *d = f->data;
	size_t p = off;

	while (p < cap) {
		if (p == 0 || d[p - 1] == '\n') {
			bool ok = stream == ENAV_L7_REQUEST ? request_sig(d + p, cap - p)
							    : enav_h1_response_sig(d + p, cap - p);

			if (ok) {
				enav_h1_msg_reset(&st->s[stream]);
				st->s[stream].phase = P_START;
				return p - off;
			}
		}
		const uint8_t *lf = memchr(d + p, '\n', cap - p);

		if (!lf)
			break;
		p = (size_t)(lf - d) + 1;
	}
	return cap - off;
}

static size_t step(struct h1_state *st, enum enav_l7_stream stream,
		   const struct enav_l7_fragment *f, uint32_t off, uint32_t cap,
		   const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];
	size_t avail = cap - off, take;

	switch (s->phase) {
	case P_START: {
		size_t i = off;

		while (i < cap && (f->data[i] == '\r' || f->data[i] == '\n')) {
			i++;
			if (++s->leading > H1_LEADING_MAX) {
				out->stats->parse_errors++;
				msg_lost(st, stream, f->ts_ns, 0, false, out);
				return i - off;
			}
		}
		if (i < cap)
			begin_message(st, stream, f, (uint32_t)i);
		return i - off;
	}
	case P_HEADERS:
	case P_TRAILERS:
		/* All the head's lines in this fragment, in one go. */
		take = 0;
		do {
			take += step_lines(st, stream, f, off + (uint32_t)take, cap, out);
		} while (off + take < cap && (s->phase == P_HEADERS || s->phase == P_TRAILERS));
		return take;
	case P_BODY_LEN:
	case P_CHUNK_DATA:
		take = avail < s->remaining ? avail : (size_t)s->remaining;
		account(st, stream, take);
		s->remaining -= take;
		if (s->remaining == 0) {
			if (s->phase == P_BODY_LEN) {
				enav_h1_message_done(st, stream, f, out);
			} else {
				s->phase = P_CHUNK_CRLF;
				s->crlf = 0;
			}
		}
		return take;
	case P_CHUNK_SIZE:
		return step_chunk_size(st, stream, f, off, cap, out);
	case P_CHUNK_EXT:
		return step_chunk_ext(st, stream, f, off, cap, out);
	case P_CHUNK_CRLF:
		return step_chunk_crlf(st, stream, f, off, out);
	case P_BODY_CLOSE:
		account(st, stream, avail);
		return avail;
	case P_RESYNC:
		return step_resync(st, stream, f, off, cap);
	case P_UPGRADE_WAIT:
		/* The answer to the upgrade has not been read yet.  Another
		 * request means no upgrade; anything else is the new protocol
		 * (a client waits for 101 before it speaks it). */
		if (request_sig(f->data + off, avail)) {
			s->phase = P_START;
		} else if (s->wait_ws) {
			s->phase = P_WEBSOCKET;
			memset(&s->ws, 0, sizeof(s->ws));
			/* Its frames point at the upgrade request (still cur). */
			memcpy(st->ws_target, st->cur.target, sizeof(st->ws_target));
			memcpy(st->ws_path, st->cur.path, sizeof(st->ws_path));
		} else {
			s->phase = P_TUNNEL;
		}
		return 0;
	case P_TUNNEL:
	default:
		return avail;
	}
}

/* Bytes of a stream that switched protocols (or waits for the answer to
 * its upgrade) were lost: WebSocket looks for its next frame, a tunnel stays
 * a tunnel.  False: the stream is still HTTP. */
static bool switched_lost(struct h1_stream *s, const struct enav_l7_sink *out)
{
	switch (s->phase) {
	case P_WEBSOCKET:
		if (s->ws.phase != ENAV_L7_WS_RESYNC)
			enav_l7_ws_lost(&s->ws, out);
		return true;
	case P_UPGRADE_WAIT:
		if (s->wait_ws) {
			s->phase = P_WEBSOCKET;
			memset(&s->ws, 0, sizeof(s->ws));
			enav_l7_ws_lost(&s->ws, out);
		} else {
			s->phase = P_TUNNEL;
		}
		return true;
	case P_TUNNEL:
		return true;
	default:
		return false;
	}
}

/* Bytes the syscall moved beyond the capture (rest > 0). */
static void skip_uncaptured(struct h1_state *st, enum enav_l7_stream stream,
			    const struct enav_l7_fragment *f, uint64_t rest,
			    const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];

	for (unsigned guard = 0; rest > 0 && guard < 8; guard++) {
		switch (s->phase) {
		case P_BODY_LEN:
		case P_CHUNK_DATA: {
			uint64_t take = rest < s->remaining ? rest : s->remaining;

			account(st, stream, take);
			s->remaining -= take;
			rest -= take;
			if (s->remaining == 0) {
				if (s->phase == P_BODY_LEN) {
					enav_h1_message_done(st, stream, f, out);
				} else {
					s->phase = P_CHUNK_CRLF;
					s->crlf = 0;
				}
			}
			break;
		}
		case P_BODY_CLOSE:
			account(st, stream, rest);
			return;
		case P_RESYNC:
			return;
		default:
			/* A WebSocket frame header, a start line, header or chunk
			 * framing we cannot read. */
			if (!switched_lost(s, out))
				msg_lost(st, stream, f->ts_ns, rest, true, out);
			return;
		}
	}
}

static void on_gap(struct h1_state *st, enum enav_l7_stream stream,
		   const struct enav_l7_fragment *f, const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];

	/* A body read until close is still the same body. */
	if (s->phase != P_BODY_CLOSE && !switched_lost(s, out))
		msg_lost(st, stream, f->ts_ns, 0, true, out);
}

static void h1_feed(void *state, const struct enav_l7_fragment *f, const struct enav_l7_sink *out)
{
	struct h1_state *st = state;

	if (st->finished || !f)
		return;
	enum enav_l7_stream stream =
	    f->stream == ENAV_L7_RESPONSE ? ENAV_L7_RESPONSE : ENAV_L7_REQUEST;
	struct h1_stream *s = &st->s[stream];
	uint32_t cap = f->captured < f->len ? f->captured : f->len;

	if (!f->data)
		cap = 0;
	s->last_ts = f->ts_ns;
	if (f->ts_ns > st->last_ts)
		st->last_ts = f->ts_ns;
	if (f->gap)
		on_gap(st, stream, f, out);

	struct enav_l7_ws_route route = {st->ws_target, st->ws_path};
	uint32_t off = 0;
	unsigned idle = 0;

	for (;;) {
		if (s->phase == P_WEBSOCKET) {
			enav_l7_ws_feed(&s->ws, f, off, &route, out);
			return;
		}
		if (off >= cap)
			break;
		size_t used = step(st, stream, f, off, cap, out);

		off += (uint32_t)used;
		/* A step that only changes phase is followed by one that reads. */
		if (used == 0 && ++idle > 4) {
			msg_lost(st, stream, f->ts_ns, 0, false, out);
			return;
		} else if (used) {
			idle = 0;
		}
	}
	if (f->len > cap)
		skip_uncaptured(st, stream, f, f->len - cap, out);
}

static int h1_init(void *state, const struct enav_l7_options *opt)
{
	struct h1_state *st = state;

	memset(st, 0, sizeof(*st));
	enav_l7_fifo_init(&st->q, enav_l7_max_pending(opt));
	st->keep_query = opt && opt->keep_query;
	enav_h1_msg_reset(&st->s[ENAV_L7_REQUEST]);
	enav_h1_msg_reset(&st->s[ENAV_L7_RESPONSE]);
	return 0;
}

static void h1_finish(void *state, const struct enav_l7_sink *out)
{
	struct h1_state *st = state;

	if (st->finished)
		return;
	st->finished = true;

	struct h1_stream *s = &st->s[ENAV_L7_RESPONSE];

	/* A response read until close ends here; one cut short still answered. */
	if (s->phase != P_WEBSOCKET && s->phase != P_TUNNEL && s->m.start_done &&
	    !(s->m.status >= 100 && s->m.status < 200))
		enav_h1_response_done(st, s->last_ts, out);
	while (st->q.count > 0) {
		emit_http(enav_h1_fifo_at(st, 0), NULL, st->last_ts, out);
		fifo_pop(st);
	}
}

ENAV_L7_PARSER(http1, struct h1_state, h1_detect, h1_init, h1_feed, h1_finish);
