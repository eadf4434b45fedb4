/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MongoDB wire protocol parser.
 *
 * Framing: every message starts with a 16-byte header (LE32 messageLength,
 * which counts the header, requestID, responseTo, opCode).  The body is
 * never copied: a streaming scanner walks it byte by byte as it arrives,
 * keeps only the few fields below, and skips everything else by the sizes
 * BSON declares; bytes that were not captured are skipped by the message
 * length (the scanner stops when they hide something it needed).
 *
 * Requests:
 *   OP_MSG (2013): flagBits (moreToCome: no reply will come, the op is a
 *     MESSAGE), then sections: kind 1 (document sequence) skipped by its
 *     size, kind 0 (the command body): operation = the key of its first
 *     element (the command name: "find", "insert", "hello", ...), target =
 *     that element's value when it is a string (the collection).
 *   OP_QUERY (2004): on "<db>.$cmd" the same from the query document (or
 *     from its "$query" sub-document); on a collection, operation "find",
 *     target the collection.
 *   Legacy OP_GET_MORE (2005) "getMore"; OP_INSERT (2002) "insert",
 *     OP_UPDATE (2001) "update", OP_DELETE (2006) "delete", OP_KILL_CURSORS
 *     (2007) "killCursors" have no reply: MESSAGE.
 *   OP_COMPRESSED (2012) cannot be read without decompressing: counted in
 *     the state, no op; its reply (compressed too) is skipped.
 * Replies (OP_MSG or OP_REPLY) are matched by responseTo == requestID; a
 * connection answers in order, so requests queued before the match lost
 * their replies and are emitted with response_seen = false.  From the body
 * (OP_MSG) or the first document of an OP_REPLY to a command, top-level
 * elements only: "ok" (double, int32, int64 or bool) == 1 is success, any
 * other value an error; "codeName" (a string, cut to the status cap) is the
 * status, "code" (int32, int64 or double) the status_code.  An OP_REPLY with
 * QueryFailure or CursorNotFound set is an error.  Replies of an exhaust
 * cursor or streaming hello (moreToCome set on the reply) after the first
 * are skipped.  No other value (no filter, no document, no errmsg) is read.
 */
#include "features/network/l7/l7_common.h"
#include "features/network/l7/l7_stream.h"
#include "features/network/l7/mongo_scan.h"

#include <stdio.h>
#include <string.h>

struct mongo_pending {
	int32_t request_id;
	bool is_cmd;		   /* the reply's first document is a command reply */
	struct enav_l7_exchange x; /* its request side */
	char operation[ENAV_L7_OPERATION_MAX];
	char target[ENAV_L7_TARGET_MAX];
};

struct mongo_dir {
	struct enav_l7_framer fr; /* hdr: the 16-byte message header */
	bool in_msg;		  /* header read: inside a body */
	bool committed;		  /* request: queued or emitted */
	bool silent;		  /* body not of interest */
	uint32_t len;		  /* messageLength */
	int32_t req_id, resp_to, opcode;
	struct mongo_scan sc;
};

struct mongo_state {
	struct enav_l7_fifo q; /* of fifo[] */
	struct mongo_pending fifo[ENAV_L7_MAX_PENDING];
	struct mongo_dir dir[2];
	bool cur_valid; /* the reply being read, matched */
	struct mongo_pending cur;
	bool exhaust_valid; /* replies to this id continue an exhaust stream */
	int32_t exhaust_id;
	uint64_t compressed; /* OP_COMPRESSED messages skipped */
};

static bool request_opcode(int32_t op)
{
	return op == OP_MSG || op == OP_QUERY || op == OP_UPDATE || op == OP_INSERT ||
	       op == OP_GET_MORE || op == OP_DELETE || op == OP_KILL || op == OP_COMPRESSED;
}

static bool reply_opcode(int32_t op)
{
	return op == OP_MSG || op == OP_REPLY || op == OP_COMPRESSED;
}

/* ---- ops -------------------------------------------------------------------------- */

static void emit(const struct enav_l7_sink *out, const struct mongo_pending *p, uint8_t kind,
		 bool response_seen, uint64_t end_ns, uint64_t response_bytes,
		 const struct mongo_scan *reply, bool reply_flags_error)
{
	struct enav_l7_op op;

	memset(&op, 0, sizeof(op));
	op.protocol = ENAV_L7_MONGO;
	op.kind = kind;
	op.response_seen = response_seen;
	memcpy(op.operation, p->operation, sizeof(op.operation));
	memcpy(op.target, p->target, sizeof(op.target));
	op.status_code = -1;
	if (reply) {
		op.error = reply_flags_error || (reply->ok_seen && !reply->ok_one);
		if (reply->code_seen)
			op.status_code = reply->code;
		if (reply->codename_seen)
			memcpy(op.status, reply->codename, sizeof(op.status));
		if (reply->codename_cut)
			out->stats->truncated_fields++;
	}
	struct enav_l7_exchange x = p->x;

	x.end_ns = end_ns;
	x.response_bytes = response_bytes;
	enav_l7_emit_exchange(&op, &x, out);
}

/* A request that will get no response: emitted as such. */
static void unanswered(void *st, uint32_t index, const struct enav_l7_sink *out)
{
	struct mongo_pending *p = &((struct mongo_state *)st)->fifo[index];

	emit(out, p, ENAV_L7_OP_REQUEST, false, p->x.start_ns, 0, NULL, false);
}

static void dir_reset(struct mongo_dir *d)
{
	d->in_msg = false;
	d->committed = false;
	d->silent = false;
	d->len = 0;
}

/* Is the request's operation known (read, or given by its opcode)? */
static bool req_known(const struct mongo_dir *d)
{
	if (d->opcode == OP_MSG)
		return d->sc.have_op;
	if (d->opcode == OP_QUERY)
		return d->sc.have_op || (d->sc.have_ns && !d->sc.ns_cmd);
	return true;
}

/* Queue (or emit, when no reply will come) the request being read, once. */
static void req_commit(struct mongo_state *s, const struct enav_l7_sink *out)
{
	struct mongo_dir *d = &s->dir[ENAV_L7_REQUEST];
	const struct mongo_scan *c = &d->sc;
	struct mongo_pending p;
	bool message = false;
	const char *name = NULL;

	if (d->committed || d->silent)
		return;
	d->committed = true;
	memset(&p, 0, sizeof(p));
	p.request_id = d->req_id;
	enav_l7_exchange_begin(&p.x, &d->fr, d->len);
	switch (d->opcode) {
	case OP_MSG:
		message = (c->flags & MSG_MORE_TO_COME) != 0;
		p.is_cmd = true;
		if (!c->have_op)
			name = "OP_MSG";
		break;
	case OP_QUERY:
		p.is_cmd = c->ns_cmd;
		if (c->have_ns && !c->ns_cmd)
			name = "find";
		else if (!c->have_op)
			name = "OP_QUERY";
		break;
	case OP_GET_MORE:
		name = "getMore";
		break;
	case OP_INSERT:
		name = "insert";
		message = true;
		break;
	case OP_UPDATE:
		name = "update";
		message = true;
		break;
	case OP_DELETE:
		name = "delete";
		message = true;
		break;
	default: /* OP_KILL_CURSORS */
		name = "killCursors";
		message = true;
		break;
	}
	if (name) {
		enav_l7_put_text(p.operation, sizeof(p.operation), name);
		if (!req_known(d)) /* the command name was not captured */
			out->stats->truncated_fields++;
	} else {
		memcpy(p.operation, c->op, sizeof(p.operation));
		if (c->op_cut)
			out->stats->truncated_fields++;
	}
	if (c->have_target) {
		memcpy(p.target, c->target, sizeof(p.target));
		if (c->target_cut)
			out->stats->truncated_fields++;
	}
	if (message) {
		emit(out, &p, ENAV_L7_OP_MESSAGE, false, p.x.start_ns, 0, NULL, false);
		return;
	}
	long at = enav_l7_fifo_push(&s->q, p.request_id, out);

	if (at >= 0)
		s->fifo[at] = p;
}

/* The reply in progress ends early (gap, loss, close): it was seen. */
static void flush_cur(struct mongo_state *s, const struct enav_l7_sink *out)
{
	struct mongo_dir *d = &s->dir[ENAV_L7_RESPONSE];

	if (!s->cur_valid)
		return;
	s->cur_valid = false;
	emit(out, &s->cur, ENAV_L7_OP_REQUEST, true, d->fr.last_ns, d->len, &d->sc,
	     d->opcode == OP_REPLY && (d->sc.flags & (REPLY_QUERY_FAIL | REPLY_CURSOR_NF)));
}

/* Framing is lost: the reply in progress ends as it is (the engine drops
 * the partial message and waits for a plausible start). */
static void lose(void *st, enum enav_l7_stream si, const struct enav_l7_sink *out)
{
	struct mongo_state *s = st;

	if (si == ENAV_L7_RESPONSE)
		flush_cur(s, out);
	dir_reset(&s->dir[si]);
}

static const struct enav_l7_framing mongo_framing;

static void on_reply_header(struct mongo_state *s, const struct enav_l7_sink *out)
{
	struct mongo_dir *d = &s->dir[ENAV_L7_RESPONSE];
	if (d->opcode == OP_COMPRESSED) {
		s->compressed++;
		d->silent = true;
		enav_mongo_scan_init(&d->sc, 0, true, false);
		return;
	}
	long i = enav_l7_fifo_find(&s->q, d->resp_to);
	if (i < 0) {
		d->silent = true;
		/* Read the flags only: a reply continuing an exhaust stream. */
		enav_mongo_scan_init(&d->sc, d->opcode, true, false);
		if (!(s->exhaust_valid && d->resp_to == s->exhaust_id))
			out->stats->unmatched_responses++;
		return;
	}
	/* answered in order: these lost their replies */
	enav_l7_fifo_expire(&s->q, (uint32_t)i, unanswered, s, out);
	s->cur = s->fifo[enav_l7_fifo_at(&s->q, 0)];
	enav_l7_fifo_pop(&s->q);
	s->cur_valid = true;
	/* An OP_REPLY to a query or getMore holds data: its flags only. */
	enav_mongo_scan_init(&d->sc, d->opcode, true, d->opcode == OP_MSG || s->cur.is_cmd);
}

static void on_reply_end(struct mongo_state *s, uint64_t ts, const struct enav_l7_sink *out)
{
	struct mongo_dir *d = &s->dir[ENAV_L7_RESPONSE];
	struct mongo_scan *c = &d->sc;
	bool more = d->opcode == OP_MSG && (c->flags & MSG_MORE_TO_COME);

	if (c->mode == M_BAD)
		out->stats->parse_errors++;
	if (d->silent) {
		if (d->opcode != OP_COMPRESSED && s->exhaust_valid && d->resp_to == s->exhaust_id) {
			s->exhaust_valid = more;
			s->exhaust_id = d->req_id;
		}
		return;
	}
	if (!s->cur_valid)
		return;
	s->cur_valid = false;
	emit(out, &s->cur, ENAV_L7_OP_REQUEST, true, ts, d->len, c,
	     d->opcode == OP_REPLY && (c->flags & (REPLY_QUERY_FAIL | REPLY_CURSOR_NF)));
	if (more) {
		s->exhaust_valid = true;
		s->exhaust_id = d->req_id;
	}
}

/* The 16-byte header is in: false when the stream was lost. */
static bool on_header(struct mongo_state *s, int si, const struct enav_l7_sink *out)
{
	struct mongo_dir *d = &s->dir[si];

	d->len = enav_l7_le32(d->fr.hdr);
	d->req_id = (int32_t)enav_l7_le32(d->fr.hdr + 4);
	d->resp_to = (int32_t)enav_l7_le32(d->fr.hdr + 8);
	d->opcode = (int32_t)enav_l7_le32(d->fr.hdr + 12);
	if (d->len < MONGO_HDR || d->len > MONGO_MAX_MSG ||
	    !(si == ENAV_L7_REQUEST ? request_opcode(d->opcode) : reply_opcode(d->opcode))) {
		enav_l7_framed_parse_error(&mongo_framing, s, si, out);
		return false;
	}
	d->in_msg = true;
	if (si == ENAV_L7_RESPONSE) {
		on_reply_header(s, out);
		return true;
	}
	if (d->opcode == OP_COMPRESSED) {
		s->compressed++;
		d->silent = true;
		enav_mongo_scan_init(&d->sc, 0, false, false);
		return true;
	}
	enav_mongo_scan_init(&d->sc, d->opcode, false, false);
	if (d->opcode == OP_KILL)
		req_commit(s, out);
	return true;
}

/* After scanning some body bytes: act on what the scanner found.  False
 * when the stream was lost. */
static bool after_scan(struct mongo_state *s, int si, const struct enav_l7_sink *out)
{
	struct mongo_dir *d = &s->dir[si];

	if (si != ENAV_L7_REQUEST || d->silent || d->committed)
		return true;
	if (d->sc.mode == M_BAD) {
		enav_l7_framed_parse_error(&mongo_framing, s, si, out);
		return false;
	}
	if (d->sc.mode == M_DONE)
		req_commit(s, out);
	return true;
}

static void on_end(void *st, enum enav_l7_stream si, struct enav_l7_framer *fr, uint64_t ts,
		   const struct enav_l7_sink *out)
{
	struct mongo_state *s = st;

	struct mongo_dir *d = &s->dir[si];

	if (si == ENAV_L7_RESPONSE) {
		on_reply_end(s, ts, out);
	} else if (!d->committed && !d->silent) {
		/* Its command was not captured (the opcode's name then), or the
		 * message ended before its command: malformed, no op. */
		if (req_known(d) || d->sc.mode == M_CUT)
			req_commit(s, out);
		else
			out->stats->parse_errors++;
	}
	dir_reset(d);
}

/* After a loss: does this fragment start with a message we can trust? */
static bool plausible_start(void *st, enum enav_l7_stream si, const uint8_t *b, size_t n)
{
	struct mongo_state *s = st;

	if (n < MONGO_HDR)
		return false;
	uint32_t len = enav_l7_le32(b);
	int32_t resp_to = (int32_t)enav_l7_le32(b + 8);
	int32_t opcode = (int32_t)enav_l7_le32(b + 12);
	if (len < MONGO_HDR || len > MONGO_MAX_MSG)
		return false;
	if (si == ENAV_L7_REQUEST) {
		if (resp_to != 0 || !request_opcode(opcode))
			return false;
		return opcode != OP_MSG || n < 21 || b[20] <= 1;
	}
	if (!reply_opcode(opcode))
		return false;
	return enav_l7_fifo_find(&s->q, resp_to) >= 0;
}

/* ---- the framing the stream engine runs ---------------------------------- */

static void mongo_gap(void *st, enum enav_l7_stream dir, const struct enav_l7_sink *out)
{
	struct mongo_state *s = st;
	struct mongo_dir *d = &s->dir[dir];

	/* A request whose command was read is still queued. */
	if (dir == ENAV_L7_REQUEST && d->in_msg && !d->silent && !d->committed && req_known(d))
		req_commit(s, out);
	enav_l7_framed_lose(&mongo_framing, s, dir, out);
}

static bool mongo_header(void *st, enum enav_l7_stream dir, struct enav_l7_framer *fr,
			 const struct enav_l7_sink *out)
{
	struct mongo_state *s = st;

	if (!on_header(s, (int)dir, out))
		return false;
	fr->left = s->dir[dir].len - MONGO_HDR;
	return true;
}

static bool mongo_body(void *st, enum enav_l7_stream dir, const uint8_t *data, uint32_t captured,
		       uint32_t n, const struct enav_l7_sink *out)
{
	struct mongo_state *s = st;
	struct mongo_dir *d = &s->dir[dir];

	enav_mongo_scan_feed(&d->sc, data, captured);
	enav_mongo_scan_uncaptured(&d->sc, n - captured);
	return after_scan(s, (int)dir, out);
}

static const struct enav_l7_framing mongo_framing = {
    .prefix = MONGO_HDR,
    .header = mongo_header,
    .body = mongo_body,
    .end = on_end,
    .starts_message = plausible_start,
    .lose = lose,
    .gap = mongo_gap,
    .framer_at = {offsetof(struct mongo_state, dir[0].fr), offsetof(struct mongo_state, dir[1].fr)},
    .resync_every_loss = true,
};

static int mongo_init(void *state, const struct enav_l7_options *opt)
{
	struct mongo_state *s = state;

	enav_l7_fifo_init(&s->q, enav_l7_max_pending(opt));
	return 0;
}

static void mongo_finish(void *state, const struct enav_l7_sink *out)
{
	struct mongo_state *s = state;
	struct mongo_dir *rq = &s->dir[ENAV_L7_REQUEST];

	/* A request cut by the close whose command was read. */
	if (rq->in_msg && !rq->silent && !rq->committed && req_known(rq))
		req_commit(s, out);
	flush_cur(s, out);
	enav_l7_fifo_expire(&s->q, s->q.count, unanswered, s, out);
	dir_reset(&s->dir[0]);
	dir_reset(&s->dir[1]);
}

/*
 * REQUEST stream only: LE32 messageLength >= 16, LE32 requestID (any),
 * LE32 responseTo == 0, LE32 opCode 2013 (OP_MSG) or 2004 (OP_QUERY).
 */
static bool mongo_detect(const uint8_t *d, size_t n, enum enav_l7_stream stream)
{
	if (stream != ENAV_L7_REQUEST || !d || n < MONGO_HDR)
		return false;
	uint32_t op = enav_l7_le32(d + 12);
	return enav_l7_le32(d) >= MONGO_HDR && enav_l7_le32(d + 8) == 0 &&
	       (op == OP_MSG || op == OP_QUERY);
}

ENAV_L7_FRAMED_PARSER(mongo, struct mongo_state, mongo_detect, mongo_init, mongo_framing,
		      mongo_finish);
