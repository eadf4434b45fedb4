/* SPDX-License-Identifier: Apache-2.0 */
/* The reply side of the Redis parser: RESP2/RESP3 replies, pushes and their
 * pairing with the pending requests (see redis.c for the rules). */
#include "features/network/l7/redis_state.h"

#include <string.h>

/* ---- response stream ------------------------------------------------------ */

static void rs_reset_msg(struct r_resp *r)
{
	r->in_msg = false;
	r->top_set = false;
	r->first_set = r->third_set = false;
	r->first_len = 0;
	r->d1_idx = 0;
	r->is_err = false;
	r->status[0] = '\0';
	r->msg_bytes = 0;
	r->depth = 0;
	r->streamed_str = false;
}

static void rs_lose(struct redis_state *s, const struct enav_l7_fragment *f, bool parse_error,
		    const struct enav_l7_sink *out)
{
	struct r_resp *r = &s->rs;

	if (parse_error)
		out->stats->parse_errors++;
	out->stats->resyncs++;
	if (r->phase != RS_LOST) {
		struct r_pend *h = enav_redis_head(s);
		r->uncertain = s->q.count;
		/* A reply cut by a capture limit or a gap is credited to its
		 * request; one that turned out to be garbage is not. */
		r->head_started = !parse_error && r->in_msg && h && h->phantoms_before == 0;
		r->lost_bytes = r->msg_bytes;
		r->lost_end_ns = f->ts_ns;
		r->lost_err = r->is_err;
		memcpy(r->lost_status, r->status, sizeof(r->lost_status));
		r->req_after_loss = 0;
		/* Where the dropped requests' replies fall is unknown now. */
		for (uint32_t k = 0; k < s->q.count; k++)
			s->fifo[enav_l7_fifo_at(&s->q, k)].phantoms_before = 0;
		s->tail_phantoms = 0;
		memset(s->swallow, 0, sizeof(s->swallow));
	}
	rs_reset_msg(r);
	r->phase = RS_LOST;
}

void enav_redis_reply_resolve(struct redis_state *s, const struct enav_l7_sink *out)
{
	struct r_resp *r = &s->rs;

	for (uint32_t k = 0; k < r->uncertain && s->q.count; k++) {
		struct r_pend *h = enav_redis_head(s);
		if (k == 0 && r->head_started)
			enav_redis_emit(h, true, r->lost_end_ns, r->lost_bytes, r->lost_err,
					r->lost_status, out);
		else
			enav_redis_emit(h, false, 0, 0, false, NULL, out);
		enav_redis_pop(s);
	}
	r->uncertain = 0;
	r->head_started = false;
}

/* A consumed reply that pairs with a phantom (dropped) request, if any. */
static bool r_take_phantom(struct redis_state *s)
{
	struct r_pend *h = enav_redis_head(s);

	if (h && h->phantoms_before) {
		h->phantoms_before--;
		return true;
	}
	if (!h && s->tail_phantoms) {
		s->tail_phantoms--;
		return true;
	}
	return false;
}

/* A reply: true when it completed (and popped) the head request. */
static bool rs_reply(struct redis_state *s, const struct enav_l7_fragment *f,
		     const struct enav_l7_sink *out)
{
	struct r_resp *r = &s->rs;

	if (r_take_phantom(s))
		return false;
	struct r_pend *h = enav_redis_head(s);
	if (!h || (h->after_loss && r->msg_start_ns < h->start_ns)) {
		out->stats->unmatched_responses++;
		return false;
	}
	enav_redis_emit(h, true, f->ts_ns, r->msg_bytes, r->is_err, r->status, out);
	if (!r->is_err) {
		if (h->special == RS_MONITOR)
			r->monitor = true;
		else if (h->special == RS_RESET)
			r->submode = r->monitor = r->resp3 = false;
		else if (h->special == RS_HELLO)
			r->resp3 = r->top_type == '%'; /* HELLO 2 answers with an array */
		else if (h->special == RS_SYNC)
			s->replication = true;
	}
	enav_redis_pop(s);
	return true;
}

static void rs_confirmation(struct redis_state *s, uint8_t kind, const struct enav_l7_fragment *f,
			    const struct enav_l7_sink *out)
{
	struct r_resp *r = &s->rs;
	struct r_pend *h = enav_redis_head(s);

	if (h && h->phantoms_before == 0 && h->subkind == kind) {
		uint32_t more = h->expect > 1 ? h->expect - 1 : 0;
		if (rs_reply(s, f, out))
			s->swallow[kind] = s->swallow[kind] > UINT32_MAX - more
					       ? UINT32_MAX
					       : s->swallow[kind] + more;
	} else if (s->swallow[kind]) {
		s->swallow[kind]--;
	} else {
		s->pushes++;
	}
	if (r->third_set)
		r->submode = r->third > 0;
}

/* A top-level value (not an attribute) completed. */
static void rs_top_done(struct redis_state *s, const struct enav_l7_fragment *f,
			const struct enav_l7_sink *out)
{
	struct r_resp *r = &s->rs;
	uint8_t t = r->top_type;
	uint8_t kind = RK_NONE;
	bool delivery = false;

	if ((t == '*' || t == '>') && r->first_set) {
		kind = enav_redis_subkind_of(r->first, r->first_len);
		delivery = enav_redis_is_delivery(r->first, r->first_len);
	}
	struct r_pend *h = enav_redis_head(s);
	if (kind && (t == '>' ||
		     (!r->resp3 && ((h && h->subkind == kind) || r->submode || s->swallow[kind]))))
		rs_confirmation(s, kind, f, out);
	else if (t == '>' || (delivery && !r->resp3 && r->submode))
		s->pushes++;
	else if (r->monitor && t == '+' && s->q.count == 0 && s->tail_phantoms == 0)
		s->pushes++;
	else
		(void)rs_reply(s, f, out);
	rs_reset_msg(r);
}

static bool rs_value_done(struct redis_state *s, bool was_attr, const struct enav_l7_fragment *f,
			  const struct enav_l7_sink *out)
{
	struct r_resp *r = &s->rs;

	for (;;) {
		if (r->depth == 0) {
			if (!was_attr)
				rs_top_done(s, f, out);
			return true;
		}
		if (was_attr)
			return false;
		struct r_frame *fr = &r->st[r->depth - 1];
		if (r->depth == 1)
			r->d1_idx++;
		if (fr->left == R_STREAMED || --fr->left > 0)
			return false;
		was_attr = fr->type == '|';
		r->depth--;
	}
}

/* The value now starting sits directly in a top-level array or push. */
static bool rs_in_top_list(const struct r_resp *r)
{
	return r->depth == 1 && (r->st[0].type == '*' || r->st[0].type == '>');
}

static bool rs_parse_num(const struct r_resp *r, bool allow_neg, int64_t *v)
{
	uint32_t k = 0;
	bool neg = false;
	uint64_t x = 0;

	if (r->line_len > R_LINE_KEEP || r->line_len == 0)
		return false;
	if (r->line[0] == '-' || r->line[0] == '+') {
		neg = r->line[0] == '-';
		k = 1;
	}
	if (neg && !allow_neg)
		return false;
	if (k == r->line_len || r->line_len - k > R_NUM_DIGITS)
		return false;
	for (; k < r->line_len; k++) {
		if (!enav_redis_is_digit((uint8_t)r->line[k]))
			return false;
		x = x * 10 + (uint64_t)(r->line[k] - '0');
	}
	*v = neg ? -(int64_t)x : (int64_t)x;
	return true;
}

/* A complete line after the type byte; false: cannot be framed. */
static bool rs_line_done(struct redis_state *s, const struct enav_l7_fragment *f,
			 const struct enav_l7_sink *out)
{
	struct r_resp *r = &s->rs;
	uint8_t t = r->type;
	int64_t v = 0;
	size_t kept = r->line_len < R_LINE_KEEP ? r->line_len : R_LINE_KEEP;

	switch (t) {
	case '+':
	case '-':
		if (r->depth == 0 && t == '-') {
			r->is_err = true;
			enav_redis_error_code(r->status, r->line, kept, out);
		}
		if (t == '+' && rs_in_top_list(r) && r->d1_idx == 0) {
			r->first_len = (uint8_t)(kept < sizeof(r->first) ? kept : sizeof(r->first));
			memcpy(r->first, r->line, r->first_len);
			r->first_set = kept <= sizeof(r->first);
		}
		rs_value_done(s, false, f, out);
		return true;
	case ':':
		if (!rs_parse_num(r, true, &v))
			return false;
		if (rs_in_top_list(r) && r->d1_idx == 2) {
			r->third = v;
			r->third_set = true;
		}
		rs_value_done(s, false, f, out);
		return true;
	case '(':
		for (size_t k = 0; k < kept; k++)
			if (!enav_redis_is_digit((uint8_t)r->line[k]) &&
			    !(k == 0 && (r->line[0] == '-' || r->line[0] == '+')))
				return false;
		if (r->line_len == 0)
			return false;
		rs_value_done(s, false, f, out);
		return true;
	case ',':
		if (r->line_len == 0 || r->line_len > R_LINE_KEEP)
			return false;
		rs_value_done(s, false, f, out);
		return true;
	case '#':
		if (r->line_len != 1 || (r->line[0] != 't' && r->line[0] != 'f'))
			return false;
		rs_value_done(s, false, f, out);
		return true;
	case '_':
		if (r->line_len != 0)
			return false;
		rs_value_done(s, false, f, out);
		return true;
	case '.':
		/* end of a streamed aggregate */
		if (r->line_len != 0 || r->depth == 0 || r->st[r->depth - 1].left != R_STREAMED)
			return false;
		r->depth--;
		rs_value_done(s, r->st[r->depth].type == '|', f, out);
		return true;
	default:
		break;
	}

	/* Length-prefixed: "$", "!", "=", ";" bodies, aggregates. */
	bool streamed = r->line_len == 1 && r->line[0] == '?';
	if (streamed) {
		if (t == '$') {
			if (r->streamed_str)
				return false;
			r->streamed_str = true;
			r->phase = RS_TYPE;
			return true;
		}
		if (t != '*' && t != '%' && t != '~')
			return false;
	} else {
		if (!rs_parse_num(r, true, &v))
			return false;
		if (v < 0) {
			/* RESP2 nulls: "$-1", "*-1" */
			if (v != -1 || (t != '$' && t != '*'))
				return false;
			rs_value_done(s, false, f, out);
			return true;
		}
	}

	switch (t) {
	case '$':
	case '!':
	case '=':
	case ';':
		if ((uint64_t)v > R_MAX_LEN)
			return false;
		if (t == ';' && v == 0) {
			/* last chunk of a streamed string */
			r->streamed_str = false;
			rs_value_done(s, false, f, out);
			return true;
		}
		r->body_left = (uint64_t)v;
		r->cap_len = 0;
		r->capture = (t == '!' && r->depth == 0) ||
			     (t == '$' && rs_in_top_list(r) && r->d1_idx == 0);
		r->phase = v ? RS_BODY : RS_BODY_CR;
		return true;
	default:
		break;
	}

	/* Aggregates. */
	uint64_t cnt = streamed ? R_STREAMED : (uint64_t)v;
	if (!streamed && (t == '%' || t == '|')) {
		if (cnt > R_MAX_LEN / 2)
			return false;
		cnt *= 2;
	}
	if (cnt == 0) {
		rs_value_done(s, t == '|', f, out);
		return true;
	}
	if (r->depth >= R_DEPTH)
		return false;
	r->st[r->depth].left = cnt;
	r->st[r->depth].type = t;
	r->depth++;
	return true;
}

/* A bulk body (with its CRLF) finished. */
static void rs_body_done(struct redis_state *s, const struct enav_l7_fragment *f,
			 const struct enav_l7_sink *out)
{
	struct r_resp *r = &s->rs;

	if (r->type == ';') {
		/* a chunk of a streamed string: more chunks follow */
		r->phase = RS_TYPE;
		return;
	}
	if (r->type == '!' && r->depth == 0) {
		r->is_err = true;
		enav_redis_error_code(r->status, r->cap, r->cap_len, out);
	}
	if (r->type == '$' && r->capture) {
		r->first_len =
		    (uint8_t)(r->cap_len < sizeof(r->first) ? r->cap_len : sizeof(r->first));
		memcpy(r->first, r->cap, r->first_len);
		r->first_set = r->cap_len <= sizeof(r->first);
	}
	r->capture = false;
	r->phase = RS_TYPE;
	rs_value_done(s, false, f, out);
}

static void rs_start_msg(struct r_resp *r, const struct enav_l7_fragment *f)
{
	r->in_msg = true;
	r->msg_bytes = 0;
	r->msg_start_ns = f->ts_ns;
}

void enav_redis_reply_feed(struct redis_state *s, const struct enav_l7_fragment *f,
			   const struct enav_l7_sink *out)
{
	struct r_resp *r = &s->rs;
	const uint8_t *d = f->data;
	uint32_t n = f->captured;
	uint32_t i = 0;

	if (f->gap)
		rs_lose(s, f, false, out);
	if (r->phase == RS_LOST) {
		bool start = n > 0 && enav_redis_is_type(d[0]);
		if (!start || (r->uncertain > 0 && r->req_after_loss == 0)) {
			if (r->head_started) {
				r->lost_bytes += f->len;
				r->lost_end_ns = f->ts_ns;
			}
			return;
		}
		enav_redis_reply_resolve(s, out);
		rs_reset_msg(r);
		r->phase = RS_TYPE;
	}

	while (i < n && !s->replication) {
		uint8_t c = d[i];

		if (r->phase == RS_BODY) {
			uint64_t k = n - i;
			if (k > r->body_left)
				k = r->body_left;
			if (r->capture && r->cap_len < R_CAP_KEEP) {
				size_t room = R_CAP_KEEP - r->cap_len;
				size_t cpy = k < room ? (size_t)k : room;
				memcpy(r->cap + r->cap_len, d + i, cpy);
				r->cap_len = (uint8_t)(r->cap_len + cpy);
			}
			r->body_left -= k;
			r->msg_bytes += k;
			i += (uint32_t)k;
			if (r->body_left == 0)
				r->phase = RS_BODY_CR;
			continue;
		}
		if (!r->in_msg) {
			if (c == '\n') {
				/* a master's keepalive while it prepares an RDB */
				i++;
				continue;
			}
			rs_start_msg(r, f);
		}
		r->msg_bytes++;
		i++;
		switch (r->phase) {
		case RS_TYPE:
			if (r->streamed_str ? c != ';'
					    : !(enav_redis_is_type(c) || (c == '.' && r->depth))) {
				rs_lose(s, f, true, out);
				return;
			}
			r->type = c;
			r->line_len = 0;
			if (r->depth == 0 && c != '|' && !r->top_set) {
				r->top_set = true;
				r->top_type = c;
			}
			if (strchr("%~>|_,#!=(", c))
				r->resp3 = true;
			r->phase = RS_LINE;
			break;
		case RS_LINE:
			if (c == '\r') {
				r->phase = RS_LINE_LF;
				break;
			}
			if (c == '\n' || r->line_len >= R_LINE_MAX) {
				rs_lose(s, f, true, out);
				return;
			}
			if (r->line_len < R_LINE_KEEP)
				r->line[r->line_len] = (char)c;
			r->line_len++;
			break;
		case RS_LINE_LF:
			if (c != '\n') {
				rs_lose(s, f, true, out);
				return;
			}
			r->phase = RS_TYPE;
			if (!rs_line_done(s, f, out)) {
				rs_lose(s, f, true, out);
				return;
			}
			break;
		case RS_BODY_CR:
			if (c != '\r') {
				rs_lose(s, f, true, out);
				return;
			}
			r->phase = RS_BODY_LF;
			break;
		case RS_BODY_LF:
			if (c != '\n') {
				rs_lose(s, f, true, out);
				return;
			}
			rs_body_done(s, f, out);
			break;
		default:
			rs_lose(s, f, true, out);
			return;
		}
	}

	uint64_t hidden = f->len > f->captured ? f->len - f->captured : 0;
	if (hidden == 0 || s->replication)
		return;
	if (r->phase >= RS_BODY && r->phase <= RS_BODY_LF) {
		bool ended;
		uint64_t k =
		    enav_l7_crlf_body_skip(&r->phase, &r->body_left, RS_BODY, hidden, &ended);

		r->msg_bytes += k;
		hidden -= k;
		if (ended)
			rs_body_done(s, f, out);
		if (hidden == 0)
			return;
	}
	rs_lose(s, f, false, out);
	if (r->head_started)
		r->lost_bytes += hidden;
}
