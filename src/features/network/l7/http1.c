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
#include "features/network/l7/l7_text.h"
#include "features/network/l7/websocket.h"

#include <stdio.h>
#include <string.h>

#define H1_LINE_MAX	    1024	/* bytes kept of a start, header or trailer line */
#define H1_HEAD_MAX	    (64 * 1024) /* start line + headers, or trailers */
#define H1_LEADING_MAX	    8		/* CR/LF bytes tolerated before a start line */
#define H1_CHUNK_EXT_MAX    4096	/* chunk extensions of one chunk-size line */
#define H1_CHUNK_DIGITS_MAX 16
#define H1_BODY_MAX	    (1ull << 62)

enum h1_phase {
	P_START = 0,	/* at a message boundary */
	P_HEADERS,	/* start line and header lines */
	P_BODY_LEN,	/* Content-Length body */
	P_CHUNK_SIZE,	/* chunk-size hex digits */
	P_CHUNK_EXT,	/* rest of a chunk-size line */
	P_CHUNK_DATA,	/* chunk data */
	P_CHUNK_CRLF,	/* the CRLF after chunk data */
	P_TRAILERS,	/* trailer lines after the last chunk */
	P_BODY_CLOSE,	/* response body until the connection closes */
	P_RESYNC,	/* lost: looking for a start line */
	P_UPGRADE_WAIT, /* request side: an upgrade/CONNECT sent, its response not yet seen */
	P_WEBSOCKET,	/* RFC 6455 frames */
	P_TUNNEL,	/* opaque bytes until close */
};

enum h1_switch {
	SW_NONE = 0,
	SW_WEBSOCKET,
	SW_TUNNEL,
};

/* A request: in the making (h1_state.cur), then in the FIFO. */
struct h1_req {
	uint64_t start_ns, bytes;
	uint32_t id, seq;
	uint16_t skip_after; /* requests dropped (FIFO full) right after this one */
	bool has_seq, head, connect, upgrade_ws, rpc, has_tp;
	uint8_t trace_id[16], parent_id[8], trace_flags;
	char method[ENAV_L7_OPERATION_MAX];
	char target[ENAV_L7_TARGET_MAX];
	char path[ENAV_L7_PATH_MAX];
};

/* What the headers of the message being read said. */
struct h1_msg {
	uint64_t start_ns, bytes;
	uint32_t seq, head_bytes;
	int64_t content_length; /* -1: none */
	int status;		/* response */
	bool has_seq, started, start_done, interim, decided, matched, pushed;
	bool bad_framing, te_present, te_chunked_last;
	bool conn_upgrade, upgrade_any, upgrade_ws, rpc;
	uint8_t tp_count;
	bool tp_ok;
	uint8_t trace_id[16], parent_id[8], trace_flags;
};

struct h1_stream {
	uint8_t phase; /* enum h1_phase */
	bool line_cut, wait_ws;
	uint8_t leading, chunk_digits, crlf;
	uint16_t line_len;
	uint32_t ext_bytes;
	uint64_t remaining;
	uint64_t last_ts;
	struct h1_msg m;
	struct enav_l7_ws ws;
	char line[H1_LINE_MAX];
};

struct h1_state {
	uint32_t max_pending;
	bool keep_query, finished;
	uint8_t switched;   /* enum h1_switch */
	bool uncertain;	    /* requests may have been lost after loss_mark: pair causally */
	uint32_t loss_mark; /* the last request id assigned before the loss */
	bool cur_pushed;    /* the request being read is in the FIFO as cur_id */
	uint32_t cur_id, next_id;
	uint32_t head, count;
	uint32_t skip_responses;
	uint64_t last_ts;
	struct h1_stream s[2];
	struct h1_req cur;
	struct h1_req fifo[ENAV_L7_MAX_PENDING];
	char ws_target[ENAV_L7_TARGET_MAX];
	char ws_path[ENAV_L7_PATH_MAX];
};

/* ---- small text helpers --------------------------------------------------- */

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static bool eq_ci(const char *a, size_t n, const char *lit)
{
	size_t l = strlen(lit);

	if (n != l)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)a[i]) != (unsigned char)lit[i])
			return false;
	return true;
}

static bool prefix_ci(const char *a, size_t n, const char *lit)
{
	size_t l = strlen(lit);

	return n >= l && eq_ci(a, l, lit);
}

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

static void trim(const char **s, size_t *n)
{
	while (*n && is_ows(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_ows((*s)[*n - 1]))
		(*n)--;
}

/* Next comma-separated element of [*s, *s + *n), trimmed; false at the end. */
static bool next_elem(const char **s, size_t *n, const char **e, size_t *en)
{
	if (*n == 0)
		return false;
	const char *comma = memchr(*s, ',', *n);
	size_t l = comma ? (size_t)(comma - *s) : *n;

	*e = *s;
	*en = l;
	trim(e, en);
	*s += comma ? l + 1 : l;
	*n -= comma ? l + 1 : l;
	return true;
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int hexval(unsigned char c)
{
	if (is_digit(c))
		return c - '0';
	c = lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

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

static bool response_sig(const uint8_t *d, size_t n)
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

static bool method_char(unsigned char c)
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
		if (i >= ENAV_L7_OPERATION_MAX - 1 || !method_char((unsigned char)l[i]))
			return false;
	}
	return true;
}

/* ---- FIFO ----------------------------------------------------------------- */

static struct h1_req *fifo_at(struct h1_state *st, uint32_t i)
{
	return &st->fifo[enav_l7_fifo_slot(st->head, i)];
}

static struct h1_req *req_entry(struct h1_state *st)
{
	if (!st->cur_pushed || st->count == 0)
		return NULL;
	struct h1_req *t = fifo_at(st, st->count - 1);

	return t->id == st->cur_id ? t : NULL;
}

static void fifo_pop(struct h1_state *st)
{
	struct h1_req *h = fifo_at(st, 0);

	if (st->cur_pushed && h->id == st->cur_id)
		st->cur_pushed = false;
	enav_l7_fifo_drop(&st->head, &st->count);
}

static void fifo_clear(struct h1_state *st)
{
	st->head = 0;
	st->count = 0;
	st->cur_pushed = false;
	st->skip_responses = 0;
}

static void push_request(struct h1_state *st, const struct enav_l7_sink *out)
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
	if (st->count >= st->max_pending) {
		out->stats->pending_overflow++;
		struct h1_req *t = fifo_at(st, st->count - 1);

		if (t->skip_after < UINT16_MAX)
			t->skip_after++;
		st->cur_pushed = false;
		return;
	}
	st->cur.id = ++st->next_id;
	st->cur.skip_after = 0;
	*fifo_at(st, st->count) = st->cur;
	st->count++;
	st->cur_pushed = true;
	st->cur_id = st->cur.id;
}

/* ---- emitting ------------------------------------------------------------- */

static void emit_http(const struct h1_req *req, const struct h1_msg *resp, uint64_t end_ns,
		      const struct enav_l7_sink *out)
{
	struct enav_l7_op op;

	memset(&op, 0, sizeof(op));
	op.protocol = ENAV_L7_HTTP1;
	op.kind = ENAV_L7_OP_REQUEST;
	memcpy(op.operation, req->method, sizeof(op.operation));
	memcpy(op.target, req->target, sizeof(op.target));
	memcpy(op.path, req->path, sizeof(op.path));
	op.rpc = req->rpc || (resp && resp->rpc);
	op.status_code = -1;
	if (resp) {
		op.response_seen = true;
		op.status_code = resp->status;
		enav_l7_put_number(op.status, sizeof(op.status), "", resp->status);
		op.error = resp->status >= 500;
		op.response_bytes = resp->bytes;
	}
	op.start_ns = req->start_ns;
	op.end_ns = end_ns > req->start_ns ? end_ns : req->start_ns;
	op.request_bytes = req->bytes;
	op.has_request_seq = req->has_seq;
	op.request_seq = req->seq;
	if (req->has_tp) {
		op.has_traceparent = true;
		memcpy(op.trace_id, req->trace_id, sizeof(op.trace_id));
		memcpy(op.parent_id, req->parent_id, sizeof(op.parent_id));
		op.trace_flags = req->trace_flags;
	}
	out->stats->ops++;
	out->op(out->ctx, &op);
}

/* ---- per-message state ---------------------------------------------------- */

static void msg_reset(struct h1_stream *s)
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
static void msg_interim(struct h1_stream *s)
{
	struct h1_msg keep = s->m;

	msg_reset(s);
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

static void enter_switched(struct h1_state *st, enum enav_l7_stream stream)
{
	struct h1_stream *s = &st->s[stream];

	s->phase = boundary_phase(st);
	if (s->phase == P_WEBSOCKET)
		memset(&s->ws, 0, sizeof(s->ws));
}

/* Pair the response being read with a request, once. */
static void decide_match(struct h1_state *st, const struct enav_l7_sink *out)
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
	if (st->count == 0) {
		out->stats->unmatched_responses++;
		return;
	}
	const struct h1_req *h = fifo_at(st, 0);

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
static void response_done(struct h1_state *st, uint64_t end_ns, const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[ENAV_L7_RESPONSE];

	decide_match(st, out);
	if (s->m.matched && st->count > 0) {
		struct h1_req *req = fifo_at(st, 0);

		emit_http(req, &s->m, end_ns, out);
		st->skip_responses += req->skip_after;
		fifo_pop(st);
	}
	msg_reset(s);
	s->phase = P_START;
}

static void request_done(struct h1_state *st)
{
	struct h1_stream *s = &st->s[ENAV_L7_REQUEST];
	bool wait = (s->m.upgrade_any && s->m.conn_upgrade) || st->cur.connect;
	bool ws = s->m.upgrade_ws;

	msg_reset(s);
	st->cur_pushed = false;
	if (st->switched != SW_NONE) {
		enter_switched(st, ENAV_L7_REQUEST);
	} else if (wait) {
		s->phase = P_UPGRADE_WAIT;
		s->wait_ws = ws;
	} else {
		s->phase = P_START;
	}
}

static void message_done(struct h1_state *st, enum enav_l7_stream stream,
			 const struct enav_l7_fragment *f, const struct enav_l7_sink *out)
{
	if (stream == ENAV_L7_REQUEST) {
		request_done(st);
	} else {
		response_done(st, f->ts_ns, out);
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
			push_request(st, out);
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
			response_done(st, end_ns, out);
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
	msg_reset(s);
	s->phase = P_RESYNC;
}

static void parse_error(struct h1_state *st, enum enav_l7_stream stream, uint64_t end_ns,
			const struct enav_l7_sink *out)
{
	out->stats->parse_errors++;
	msg_lost(st, stream, end_ns, 0, false, out);
}

/* ---- start line and headers ----------------------------------------------- */

static bool parse_request_line(struct h1_state *st, const char *l, size_t n, bool cut,
			       const struct enav_l7_sink *out)
{
	struct h1_req *r = &st->cur;
	size_t i = 0;

	while (i < n && method_char((unsigned char)l[i]))
		i++;
	if (i == 0 || i >= ENAV_L7_OPERATION_MAX || i >= n || l[i] != ' ')
		return false;
	memcpy(r->method, l, i);
	r->method[i] = '\0';
	r->head = strcmp(r->method, "HEAD") == 0;
	r->connect = strcmp(r->method, "CONNECT") == 0;

	const char *t = l + i + 1;
	size_t rest = n - i - 1;
	const char *sp = memchr(t, ' ', rest);
	size_t tn = sp ? (size_t)(sp - t) : rest;
	bool path_cut = false;

	if (tn == 0)
		return false;
	if (sp) {
		const char *v = sp + 1;
		size_t vn = rest - tn - 1;

		if (!(vn == 8 && memcmp(v, "HTTP/1.", 7) == 0 && is_digit((unsigned char)v[7])))
			return false;
	} else if (!cut) {
		return false; /* no version: HTTP/0.9 or not HTTP */
	} else {
		path_cut = true; /* the line went past the buffer inside the target */
	}

	const char *p = t;
	size_t pn = tn;

	if (!r->connect) {
		/* Absolute form (to a proxy): the path part only. */
		const char *scheme = NULL;

		for (size_t k = 0; k + 2 < pn && k < 8; k++)
			if (p[k] == ':' && p[k + 1] == '/' && p[k + 2] == '/') {
				scheme = p + k + 3;
				break;
			}
		if (scheme && p[0] != '/') {
			size_t left = pn - (size_t)(scheme - p);
			const char *slash = memchr(scheme, '/', left);

			if (slash) {
				pn -= (size_t)(slash - p);
				p = slash;
			} else {
				p = "/";
				pn = 1;
			}
		}
	}
	size_t keep = pn;

	for (size_t k = 0; k < pn; k++) {
		if (p[k] == '#' || (p[k] == '?' && !st->keep_query)) {
			keep = k;
			break;
		}
	}
	if (enav_l7_copy_text(r->path, sizeof(r->path), p, keep) || path_cut)
		out->stats->truncated_fields++;

	char tmpl[2 * ENAV_L7_TARGET_MAX];

	if (r->connect)
		enav_l7_copy_text(tmpl, sizeof(tmpl), p, pn);
	else
		enav_l7_path_template(p, pn, tmpl, sizeof(tmpl));
	if (enav_l7_copy_text(r->target, sizeof(r->target), tmpl, strlen(tmpl)))
		out->stats->truncated_fields++;
	return true;
}

static bool parse_status_line(struct h1_msg *m, const char *l, size_t n)
{
	if (n < 12 || !response_sig((const uint8_t *)l, n))
		return false;
	if (n > 12 && l[12] != ' ')
		return false;
	m->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
	return m->status >= 100;
}

static bool parse_content_length(const char *v, size_t n, int64_t *out)
{
	const char *e;
	size_t en;
	int64_t val = -1;

	if (n == 0)
		return false;
	while (next_elem(&v, &n, &e, &en)) {
		uint64_t x = 0;

		if (en == 0 || en > 19)
			return false;
		for (size_t i = 0; i < en; i++) {
			if (!is_digit((unsigned char)e[i]))
				return false;
			x = x * 10 + (uint64_t)(e[i] - '0');
		}
		if (x > H1_BODY_MAX || (val >= 0 && (uint64_t)val != x))
			return false;
		val = (int64_t)x;
	}
	if (val < 0)
		return false;
	*out = val;
	return true;
}

static void header_line(struct h1_state *st, enum enav_l7_stream stream, const char *l, size_t n,
			bool cut)
{
	struct h1_msg *m = &st->s[stream].m;
	const char *colon = memchr(l, ':', n);

	if (!colon || colon == l)
		return; /* not a field line: ignored (obs-fold included) */
	size_t nn = (size_t)(colon - l);

	for (size_t i = 0; i < nn; i++)
		if (is_ows(l[i]))
			return;
	const char *v = colon + 1, *e;
	size_t vn = n - nn - 1, en;

	trim(&v, &vn);
	if (eq_ci(l, nn, "content-length")) {
		int64_t cl;

		if (cut || !parse_content_length(v, vn, &cl) ||
		    (m->content_length >= 0 && m->content_length != cl))
			m->bad_framing = true;
		else
			m->content_length = cl;
	} else if (eq_ci(l, nn, "transfer-encoding")) {
		if (cut)
			m->bad_framing = true;
		m->te_present = true;
		while (next_elem(&v, &vn, &e, &en)) {
			if (en == 0)
				continue;
			m->te_chunked_last = eq_ci(e, en, "chunked");
		}
	} else if (eq_ci(l, nn, "connection")) {
		while (next_elem(&v, &vn, &e, &en))
			if (eq_ci(e, en, "upgrade"))
				m->conn_upgrade = true;
	} else if (eq_ci(l, nn, "upgrade")) {
		while (next_elem(&v, &vn, &e, &en)) {
			if (en == 0)
				continue;
			m->upgrade_any = true;
			if (eq_ci(e, en, "websocket"))
				m->upgrade_ws = true;
		}
	} else if (eq_ci(l, nn, "content-type")) {
		if (prefix_ci(v, vn, "application/grpc"))
			m->rpc = true;
	} else if (eq_ci(l, nn, "traceparent")) {
		/* All or nothing: a second traceparent voids the first. */
		if (m->tp_count < UINT8_MAX)
			m->tp_count++;
		m->tp_ok =
		    m->tp_count == 1 && !cut &&
		    enav_l7_traceparent_parse(v, vn, m->trace_id, m->parent_id, &m->trace_flags);
	}
}

/* Both directions switch protocol after this response. */
static void switch_protocols(struct h1_state *st, enum h1_switch sw, const struct h1_req *req)
{
	struct h1_stream *rq = &st->s[ENAV_L7_REQUEST];

	st->switched = (uint8_t)sw;
	if (req) {
		memcpy(st->ws_target, req->target, sizeof(st->ws_target));
		memcpy(st->ws_path, req->path, sizeof(st->ws_path));
	}
	if (rq->phase == P_UPGRADE_WAIT || (rq->phase == P_START && !rq->m.started) ||
	    rq->phase == P_RESYNC) {
		msg_reset(rq);
		enter_switched(st, ENAV_L7_REQUEST);
	} else if (rq->phase == P_TUNNEL && sw == SW_WEBSOCKET) {
		/* It guessed a tunnel (the request did not ask for WebSocket)
		 * while the response was on its way.  The bytes it skipped were
		 * sent before the 101: not frames (a WebSocket client waits for
		 * the 101, RFC 6455 4.1).  The client's frames start with its
		 * next byte, as after P_UPGRADE_WAIT: frame from there.  (Waiting
		 * for a fragment holding one whole frame instead would make the
		 * ops depend on how the frames were cut, with no loss counted.) */
		enter_switched(st, ENAV_L7_REQUEST);
	}
	/* Mid-message: request_done() switches it. */
}

static void request_headers_done(struct h1_state *st, const struct enav_l7_fragment *f,
				 const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[ENAV_L7_REQUEST];
	struct h1_msg *m = &s->m;

	push_request(st, out);
	if (m->bad_framing || (m->te_present && !m->te_chunked_last)) {
		parse_error(st, ENAV_L7_REQUEST, f->ts_ns, out);
		return;
	}
	if (m->te_present) {
		s->phase = P_CHUNK_SIZE;
		s->remaining = 0;
		s->chunk_digits = 0;
	} else if (m->content_length > 0) {
		s->phase = P_BODY_LEN;
		s->remaining = (uint64_t)m->content_length;
	} else {
		request_done(st);
	}
}

static void response_headers_done(struct h1_state *st, const struct enav_l7_fragment *f,
				  const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[ENAV_L7_RESPONSE];
	struct h1_stream *rq = &st->s[ENAV_L7_REQUEST];
	struct h1_msg *m = &s->m;
	int status = m->status;

	if (status < 200 && status != 101) { /* interim: the final response follows */
		msg_interim(s);
		s->phase = P_START;
		return;
	}
	decide_match(st, out);

	const struct h1_req *req = m->matched && st->count > 0 ? fifo_at(st, 0) : NULL;

	if (status == 101 || (req && req->connect && status >= 200 && status < 300)) {
		enum h1_switch sw = status == 101 && (m->upgrade_ws || (req && req->upgrade_ws))
					? SW_WEBSOCKET
					: SW_TUNNEL;

		switch_protocols(st, sw, req);
		response_done(st, f->ts_ns, out);
		enter_switched(st, ENAV_L7_RESPONSE);
		return;
	}
	/* The request side waits for this answer to an upgrade/CONNECT: none. */
	if (rq->phase == P_UPGRADE_WAIT) {
		rq->phase = P_START;
	} else if ((rq->phase == P_WEBSOCKET || rq->phase == P_TUNNEL) && st->switched == SW_NONE) {
		msg_reset(rq);
		rq->phase = P_RESYNC;
		out->stats->resyncs++;
	}
	if ((req && req->head) || status == 204 || status == 304) {
		response_done(st, f->ts_ns, out);
	} else if (m->te_present) {
		if (m->te_chunked_last) {
			s->phase = P_CHUNK_SIZE;
			s->remaining = 0;
			s->chunk_digits = 0;
		} else {
			s->phase = P_BODY_CLOSE;
		}
	} else if (m->bad_framing) {
		parse_error(st, ENAV_L7_RESPONSE, f->ts_ns, out);
	} else if (m->content_length == 0) {
		response_done(st, f->ts_ns, out);
	} else if (m->content_length > 0) {
		s->phase = P_BODY_LEN;
		s->remaining = (uint64_t)m->content_length;
	} else {
		s->phase = P_BODY_CLOSE;
	}
}

/* A whole line is in s->line (CR LF stripped by the caller). */
static void line_done(struct h1_state *st, enum enav_l7_stream stream,
		      const struct enav_l7_fragment *f, const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];
	const char *l = s->line;
	size_t n = s->line_len;
	bool cut = s->line_cut;

	if (!cut && n > 0 && l[n - 1] == '\r')
		n--;
	s->line_len = 0;
	s->line_cut = false;

	if (s->phase == P_TRAILERS) {
		if (n == 0 && !cut)
			message_done(st, stream, f, out);
		return;
	}
	if (!s->m.start_done) {
		bool ok = stream == ENAV_L7_REQUEST ? parse_request_line(st, l, n, cut, out)
						    : parse_status_line(&s->m, l, n);

		if (!ok) {
			parse_error(st, stream, f->ts_ns, out);
			return;
		}
		s->m.start_done = true;
		return;
	}
	if (n == 0 && !cut) {
		if (stream == ENAV_L7_REQUEST)
			request_headers_done(st, f, out);
		else
			response_headers_done(st, f, out);
		return;
	}
	header_line(st, stream, l, n, cut);
}

/* ---- the byte loop -------------------------------------------------------- */

/* Read line bytes (headers or trailers); returns bytes consumed. */
static size_t step_lines(struct h1_state *st, enum enav_l7_stream stream,
			 const struct enav_l7_fragment *f, uint32_t off, uint32_t cap,
			 const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];
	const uint8_t *p = f->data + off;
	size_t avail = cap - off;
	const uint8_t *lf = memchr(p, '\n', avail);
	size_t take = lf ? (size_t)(lf - p) + 1 : avail;
	size_t room = H1_LINE_MAX - s->line_len;
	size_t copy = take < room ? take : room;

	memcpy(s->line + s->line_len, p, copy);
	s->line_len += (uint16_t)copy;
	if (copy < take)
		s->line_cut = true;
	account(st, stream, take);
	s->m.head_bytes += (uint32_t)(take < H1_HEAD_MAX ? take : H1_HEAD_MAX);
	if (s->m.head_bytes > H1_HEAD_MAX) {
		parse_error(st, stream, f->ts_ns, out);
		return take;
	}
	if (!s->m.start_done && s->phase == P_HEADERS &&
	    !start_prefix_ok(stream, s->line, s->line_len)) {
		parse_error(st, stream, f->ts_ns, out);
		return take;
	}
	if (lf) {
		if (!s->line_cut)
			s->line_len--; /* the LF */
		line_done(st, stream, f, out);
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
				parse_error(st, stream, f->ts_ns, out);
				return i - off;
			}
			s->remaining = s->remaining << 4 | (uint64_t)h;
			s->chunk_digits++;
			continue;
		}
		if (s->chunk_digits == 0 ||
		    !(c == ';' || c == ' ' || c == '\t' || c == '\r' || c == '\n')) {
			account(st, stream, i - off);
			parse_error(st, stream, f->ts_ns, out);
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
		parse_error(st, stream, f->ts_ns, out);
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
		parse_error(st, stream, f->ts_ns, out);
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
							    : response_sig(d + p, cap - p);

			if (ok) {
				msg_reset(&st->s[stream]);
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
		return step_lines(st, stream, f, off, cap, out);
	case P_BODY_LEN:
	case P_CHUNK_DATA:
		take = avail < s->remaining ? avail : (size_t)s->remaining;
		account(st, stream, take);
		s->remaining -= take;
		if (s->remaining == 0) {
			if (s->phase == P_BODY_LEN) {
				message_done(st, stream, f, out);
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
					message_done(st, stream, f, out);
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
		case P_TUNNEL:
		case P_RESYNC:
			return;
		case P_WEBSOCKET:
			/* A frame header in bytes we cannot read. */
			if (s->ws.phase != ENAV_L7_WS_RESYNC)
				enav_l7_ws_lost(&s->ws, out);
			return;
		case P_UPGRADE_WAIT:
			if (s->wait_ws) {
				s->phase = P_WEBSOCKET;
				memset(&s->ws, 0, sizeof(s->ws));
				enav_l7_ws_lost(&s->ws, out);
			} else {
				s->phase = P_TUNNEL;
			}
			return;
		default:
			/* A start line, header or chunk framing we cannot read. */
			msg_lost(st, stream, f->ts_ns, rest, true, out);
			return;
		}
	}
}

static void on_gap(struct h1_state *st, enum enav_l7_stream stream,
		   const struct enav_l7_fragment *f, const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];

	switch (s->phase) {
	case P_WEBSOCKET:
		if (s->ws.phase != ENAV_L7_WS_RESYNC)
			enav_l7_ws_lost(&s->ws, out);
		return;
	case P_TUNNEL:
	case P_BODY_CLOSE: /* still the same body, until close */
		return;
	case P_UPGRADE_WAIT:
		if (s->wait_ws) {
			s->phase = P_WEBSOCKET;
			memset(&s->ws, 0, sizeof(s->ws));
			enav_l7_ws_lost(&s->ws, out);
		} else {
			s->phase = P_TUNNEL;
		}
		return;
	default:
		msg_lost(st, stream, f->ts_ns, 0, true, out);
		return;
	}
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
	st->max_pending = enav_l7_max_pending(opt);
	st->keep_query = opt && opt->keep_query;
	msg_reset(&st->s[ENAV_L7_REQUEST]);
	msg_reset(&st->s[ENAV_L7_RESPONSE]);
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
		response_done(st, s->last_ts, out);
	while (st->count > 0) {
		emit_http(fifo_at(st, 0), NULL, st->last_ts, out);
		fifo_pop(st);
	}
}

const struct enav_l7_parser_ops enav_l7_http1_ops = {
    .protocol = ENAV_L7_HTTP1,
    .name = "http1",
    .state_size = sizeof(struct h1_state),
    .detect = h1_detect,
    .init = h1_init,
    .feed = h1_feed,
    .finish = h1_finish,
};
