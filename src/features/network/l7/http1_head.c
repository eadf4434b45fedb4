/* SPDX-License-Identifier: Apache-2.0 */
/* HTTP/1.x start lines and header fields: method, target, status, framing
 * headers, upgrades and traceparent (see http1.c for the rules). */
#include "features/network/l7/http1_state.h"

#include <stdio.h>
#include <string.h>

#include "features/network/l7/l7_common.h"
#include "model/l7_text.h"

/* ---- small text helpers --------------------------------------------------- */

/*
 * Does a[0, n) equal lit, ASCII case folded?  lit is lower case and holds
 * only letters and bytes below 0x40 ('-', '/', digits): then bit 0x40 of a
 * literal byte marks a letter, and ORing 0x20 into the input's byte at
 * those places folds its case, eight bytes at a time.
 */
static bool eq_ci(const char *a, size_t n, const char *lit)
{
	size_t l = strlen(lit), i = 0;

	if (n != l)
		return false;
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;

		memcpy(&x, a + i, 8);
		memcpy(&y, lit + i, 8);
		if ((x | ((y & 0x4040404040404040ull) >> 1)) != y)
			return false;
	}
	for (; i < n; i++)
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

/* ---- start line and headers ----------------------------------------------- */

static bool parse_request_line(struct h1_state *st, const char *l, size_t n, bool cut,
			       const struct enav_l7_sink *out)
{
	struct h1_req *r = &st->cur;
	size_t i = 0;

	while (i < n && enav_h1_method_char((unsigned char)l[i]))
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
	size_t tmpl_len;

	if (r->connect) {
		enav_l7_copy_text(tmpl, sizeof(tmpl), p, pn);
		tmpl_len = strlen(tmpl);
	} else {
		tmpl_len = enav_l7_path_template(p, pn, tmpl, sizeof(tmpl));
	}
	if (enav_l7_copy_text(r->target, sizeof(r->target), tmpl, tmpl_len))
		out->stats->truncated_fields++;
	return true;
}

static bool parse_status_line(struct h1_msg *m, const char *l, size_t n)
{
	if (n < 12 || !enav_h1_response_sig((const uint8_t *)l, n))
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

/* The header fields a message's framing, upgrade or span uses. */
enum h1_field {
	F_OTHER = 0,
#define ENAV_H1_FIELD_ENUM(field, name) F_##field,
	ENAV_H1_READ_FIELDS(ENAV_H1_FIELD_ENUM)
#undef ENAV_H1_FIELD_ENUM
};

/* Which field a name is: by its length first (a constant per row once
 * eq_ci is inlined), so that most names are compared with one literal at
 * most, or none.  A name with white space in it (not a field, RFC 9112 5.1)
 * equals none of these. */
static enum h1_field field_of(const char *name, size_t n)
{
#define ENAV_H1_FIELD_MATCH(field, lit)                                                            \
	if (n == sizeof(lit) - 1 && eq_ci(name, n, lit))                                           \
		return F_##field;
	ENAV_H1_READ_FIELDS(ENAV_H1_FIELD_MATCH)
#undef ENAV_H1_FIELD_MATCH
	return F_OTHER;
}

static void header_line(struct h1_state *st, enum enav_l7_stream stream, const char *l, size_t n,
			bool cut)
{
	struct h1_msg *m = &st->s[stream].m;
	const char *colon = memchr(l, ':', n);

	if (!colon || colon == l)
		return; /* not a field line: ignored (obs-fold included) */
	size_t nn = (size_t)(colon - l);
	enum h1_field field = field_of(l, nn);

	if (field == F_OTHER)
		return;
	const char *v = colon + 1, *e;
	size_t vn = n - nn - 1, en;

	trim(&v, &vn);
	switch (field) {
	case F_CONTENT_LENGTH: {
		int64_t cl;

		if (cut || !parse_content_length(v, vn, &cl) ||
		    (m->content_length >= 0 && m->content_length != cl))
			m->bad_framing = true;
		else
			m->content_length = cl;
		break;
	}
	case F_TRANSFER_ENCODING:
		if (cut)
			m->bad_framing = true;
		m->te_present = true;
		while (next_elem(&v, &vn, &e, &en)) {
			if (en == 0)
				continue;
			m->te_chunked_last = eq_ci(e, en, "chunked");
		}
		break;
	case F_CONNECTION:
		while (next_elem(&v, &vn, &e, &en))
			if (eq_ci(e, en, "upgrade"))
				m->conn_upgrade = true;
		break;
	case F_UPGRADE:
		while (next_elem(&v, &vn, &e, &en)) {
			if (en == 0)
				continue;
			m->upgrade_any = true;
			if (eq_ci(e, en, "websocket"))
				m->upgrade_ws = true;
		}
		break;
	case F_CONTENT_TYPE:
		if (prefix_ci(v, vn, "application/grpc"))
			m->rpc = true;
		break;
	case F_TRACEPARENT:
		/* All or nothing: a second traceparent voids the first. */
		if (m->tp_count < UINT8_MAX)
			m->tp_count++;
		m->tp_ok =
		    m->tp_count == 1 && !cut &&
		    enav_l7_traceparent_parse(v, vn, m->trace_id, m->parent_id, &m->trace_flags);
		break;
	default:
		break;
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
		enav_h1_msg_reset(rq);
		enav_h1_enter_switched(st, ENAV_L7_REQUEST);
	} else if (rq->phase == P_TUNNEL && sw == SW_WEBSOCKET) {
		/* It guessed a tunnel (the request did not ask for WebSocket)
		 * while the response was on its way.  The bytes it skipped were
		 * sent before the 101: not frames (a WebSocket client waits for
		 * the 101, RFC 6455 4.1).  The client's frames start with its
		 * next byte, as after P_UPGRADE_WAIT: frame from there.  (Waiting
		 * for a fragment holding one whole frame instead would make the
		 * ops depend on how the frames were cut, with no loss counted.) */
		enav_h1_enter_switched(st, ENAV_L7_REQUEST);
	}
	/* Mid-message: enav_h1_request_done() switches it. */
}

static void request_headers_done(struct h1_state *st, const struct enav_l7_fragment *f,
				 const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[ENAV_L7_REQUEST];
	struct h1_msg *m = &s->m;

	enav_h1_push_request(st, out);
	if (m->bad_framing || (m->te_present && !m->te_chunked_last)) {
		enav_h1_parse_error(st, ENAV_L7_REQUEST, f->ts_ns, out);
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
		enav_h1_request_done(st);
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
		enav_h1_msg_interim(s);
		s->phase = P_START;
		return;
	}
	enav_h1_decide_match(st, out);

	const struct h1_req *req = m->matched && st->q.count > 0 ? enav_h1_fifo_at(st, 0) : NULL;

	if (status == 101 || (req && req->connect && status >= 200 && status < 300)) {
		enum h1_switch sw = status == 101 && (m->upgrade_ws || (req && req->upgrade_ws))
					? SW_WEBSOCKET
					: SW_TUNNEL;

		switch_protocols(st, sw, req);
		enav_h1_response_done(st, f->ts_ns, out);
		enav_h1_enter_switched(st, ENAV_L7_RESPONSE);
		return;
	}
	/* The request side waits for this answer to an upgrade/CONNECT: none. */
	if (rq->phase == P_UPGRADE_WAIT) {
		rq->phase = P_START;
	} else if ((rq->phase == P_WEBSOCKET || rq->phase == P_TUNNEL) && st->switched == SW_NONE) {
		enav_h1_msg_reset(rq);
		rq->phase = P_RESYNC;
		out->stats->resyncs++;
	}
	if ((req && req->head) || status == 204 || status == 304) {
		enav_h1_response_done(st, f->ts_ns, out);
	} else if (m->te_present) {
		if (m->te_chunked_last) {
			s->phase = P_CHUNK_SIZE;
			s->remaining = 0;
			s->chunk_digits = 0;
		} else {
			s->phase = P_BODY_CLOSE;
		}
	} else if (m->bad_framing) {
		enav_h1_parse_error(st, ENAV_L7_RESPONSE, f->ts_ns, out);
	} else if (m->content_length == 0) {
		enav_h1_response_done(st, f->ts_ns, out);
	} else if (m->content_length > 0) {
		s->phase = P_BODY_LEN;
		s->remaining = (uint64_t)m->content_length;
	} else {
		s->phase = P_BODY_CLOSE;
	}
}

/* A whole line [l, l + n) is read (its LF stripped by the caller; cut: it
 * was longer, these are its first H1_LINE_MAX bytes). */
void enav_h1_line_done(struct h1_state *st, enum enav_l7_stream stream, const char *l, size_t n,
		       bool cut, const struct enav_l7_fragment *f, const struct enav_l7_sink *out)
{
	struct h1_stream *s = &st->s[stream];

	if (!cut && n > 0 && l[n - 1] == '\r')
		n--;
	s->line_len = 0;
	s->line_cut = false;

	if (s->phase == P_TRAILERS) {
		if (n == 0 && !cut)
			enav_h1_message_done(st, stream, f, out);
		return;
	}
	if (!s->m.start_done) {
		bool ok = stream == ENAV_L7_REQUEST ? parse_request_line(st, l, n, cut, out)
						    : parse_status_line(&s->m, l, n);

		if (!ok) {
			enav_h1_parse_error(st, stream, f->ts_ns, out);
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
