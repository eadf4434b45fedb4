/* SPDX-License-Identifier: Apache-2.0 */
/*
 * PostgreSQL frontend/backend protocol 3.0 parser.
 *
 * Request stream: the untyped start-up packets (StartupMessage, SSLRequest,
 * GSSENCRequest, CancelRequest), then messages framed by a type byte and a
 * big-endian length that counts itself.  Response stream: the single-byte
 * answer to an SSLRequest/GSSENCRequest, then typed messages.
 *
 * Operations:
 *  - simple query 'Q': one op per Query message, completed by ReadyForQuery;
 *    status = the first word of the last CommandComplete tag, or on an
 *    ErrorResponse error = true and status = its SQLSTATE (field 'C');
 *  - extended query: Parse remembers each statement's summary in a small LRU
 *    table (the unnamed statement included), Bind maps a portal to its
 *    statement, and every Execute is one op, completed by its
 *    CommandComplete / EmptyQueryResponse / PortalSuspended / ErrorResponse.
 *    Executes the server skipped after an error (it discards messages up to
 *    Sync) are emitted at the ReadyForQuery with response_seen = false.
 *    An Execute whose statement is unknown gets operation "EXECUTE".
 *  - FunctionCall 'F': operation "FUNCTION_CALL", completed by ReadyForQuery.
 *  - COPY: CopyData/CopyDone/CopyFail of the client count as the COPY
 *    query's request bytes; the server's belong to its response.
 *  - NoticeResponse, ParameterStatus, NotificationResponse never complete
 *    anything (their bytes count towards the op in flight, if any).
 *
 * A pending FIFO of slots (ops and markers: Sync, start-up, SSL answer) pairs
 * the two streams.  Every request message except Sync, Terminate, password
 * and COPY messages accumulates into the next op: its start_ns, request_seq
 * and request_bytes cover the Parse/Bind/Describe/Execute of one Execute.
 * Response bytes are the messages that arrived while the op was at the front
 * (for an Execute: up to its CommandComplete; a simple query includes its
 * ReadyForQuery).
 *
 * Loss: a gap, an unframeable header or a message boundary hidden in the
 * uncaptured tail of a fragment drops the partial message and resynchronizes
 * on a plausible chain of message headers.  Pending ops survive a response
 * resync (the ReadyForQuery at the end of a large result is usually visible
 * again); if the client sends a new request before one is seen, the ops in
 * flight are emitted with response_seen = false first.
 */
#include "features/network/l7/l7_common.h"
#include "features/network/l7/l7_stream.h"
#include "features/network/l7/postgres_wire.h"
#include "model/l7_text.h"

#include <string.h>

#define PG_REQ_CAP  1024 /* bytes of a request message body kept: names, SQL text */
#define PG_RESP_CAP 256	 /* bytes of a response message body kept: tag, error fields */
#define PG_STMTS    16	 /* prepared statements remembered (LRU) */
#define PG_PORTALS  8	 /* portals remembered (LRU) */
#define PG_SLOTS    (2 * ENAV_L7_MAX_PENDING)

enum pg_slot_kind {
	PG_SIMPLE = 1, /* Query: completed by ReadyForQuery */
	PG_FUNC,       /* FunctionCall: completed by ReadyForQuery */
	PG_EXEC,       /* Execute: completed by CommandComplete & co */
	PG_SYNC,       /* Sync marker: consumed by ReadyForQuery */
	PG_STARTUP,    /* StartupMessage: consumed by the first ReadyForQuery */
	PG_SSLANS,     /* SSLRequest/GSSENCRequest: consumed by the 1-byte answer */
};

struct pg_op {
	char operation[ENAV_L7_OPERATION_MAX];
	char target[ENAV_L7_TARGET_MAX];
	char statement[ENAV_L7_STATEMENT_MAX];
	char status[ENAV_L7_STATUS_MAX];
	struct enav_l7_exchange x;
	bool error;
	bool resp_started;
};

struct pg_slot {
	uint8_t kind;
	uint8_t op; /* index into ops[] for SIMPLE/FUNC/EXEC */
};

struct pg_stmt {
	uint64_t name_hash;
	uint32_t lru;
	bool used;
	char operation[ENAV_L7_OPERATION_MAX];
	char target[ENAV_L7_TARGET_MAX];
	char statement[ENAV_L7_STATEMENT_MAX];
};

struct pg_portal {
	uint64_t name_hash, stmt_hash;
	uint32_t lru;
	bool used;
};

struct pg_reader {
	struct enav_l7_framer fr; /* hdr: the type and length, or a start-up's length and code */
	uint8_t type;		  /* 0: untyped start-up packet */
	uint32_t len;		  /* the length field */
};

struct pg_state {
	struct enav_l7_sql_options opt;
	bool typed;	     /* request stream past the start-up packets */
	bool encrypted;	     /* TLS/GSS accepted: nothing more to read */
	bool resp_lost;	     /* response framing lost while ops were in flight */
	bool unmatched_open; /* an unmatched response counted, its ReadyForQuery not yet seen */
	struct pg_reader rd[2];
	uint8_t req_buf[PG_REQ_CAP];
	uint8_t resp_buf[PG_RESP_CAP];
	/* accumulation of request messages into the next op */
	bool acc_active, acc_has_seq;
	uint32_t acc_seq;
	uint64_t acc_start_ns, acc_bytes;
	/* pending FIFO */
	struct pg_slot slots[PG_SLOTS];
	uint32_t head, count;
	uint32_t ops_used; /* bitmap over ops[] */
	uint32_t n_ops;
	struct pg_op ops[ENAV_L7_MAX_PENDING];
	struct pg_stmt stmts[PG_STMTS];
	struct pg_portal portals[PG_PORTALS];
	uint32_t lru_clock;
	uint64_t stmt_misses, skipped;
};

/* ---- small helpers -------------------------------------------------------- */

static uint64_t name_hash(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* A NUL-terminated string at b[*off..n): its length, or -1 when cut. */
static long cstr(const uint8_t *b, size_t n, size_t *off)
{
	if (*off > n)
		return -1;
	const uint8_t *z = memchr(b + *off, 0, n - *off);

	if (!z)
		return -1;
	long l = (long)(z - (b + *off));
	*off += (size_t)l + 1;
	return l;
}

/* ---- pending FIFO --------------------------------------------------------- */

static struct pg_slot *slot_at(struct pg_state *s, uint32_t i)
{
	return &s->slots[(s->head + i) % PG_SLOTS];
}

static struct pg_slot *front(struct pg_state *s)
{
	return s->count ? slot_at(s, 0) : NULL;
}

static bool is_op_kind(uint8_t k)
{
	return k == PG_SIMPLE || k == PG_FUNC || k == PG_EXEC;
}

static void pop_front(struct pg_state *s)
{
	struct pg_slot *sl = front(s);

	if (!sl)
		return;
	if (is_op_kind(sl->kind)) {
		s->ops_used &= ~(1u << sl->op);
		s->n_ops--;
	}
	s->head = (s->head + 1) % PG_SLOTS;
	s->count--;
}

static void emit(struct pg_state *s, struct pg_op *o, bool response_seen,
		 const struct enav_l7_sink *out)
{
	enav_l7_sql_emit(ENAV_L7_POSTGRES,
			 &(struct enav_l7_sql_texts){o->operation, o->target,
						     s->opt.sanitized ? o->statement : NULL,
						     o->status},
			 response_seen, o->error, &o->x, out);
}

/* Emit and drop every pending op without its response; markers go too.  Also
 * the parser's finish (the connection closed). */
static void flush_pending(void *state, const struct enav_l7_sink *out)
{
	struct pg_state *s = state;

	if (!s || !out)
		return;
	while (s->count) {
		struct pg_slot *sl = front(s);

		if (is_op_kind(sl->kind))
			emit(s, &s->ops[sl->op], false, out);
		pop_front(s);
	}
}

static bool push_marker(struct pg_state *s, uint8_t kind, const struct enav_l7_sink *out)
{
	if (s->count >= PG_SLOTS) {
		out->stats->pending_overflow++;
		return false;
	}
	struct pg_slot *sl = slot_at(s, s->count);

	sl->kind = kind;
	sl->op = 0;
	s->count++;
	return true;
}

/* A new op at the tail, taking the accumulated request; NULL when full. */
static struct pg_op *push_op(struct pg_state *s, uint8_t kind, const struct enav_l7_sink *out)
{
	if (s->resp_lost) {
		/* The client moved on while the response framing was lost: the
		 * responses in flight ended unseen. */
		struct pg_reader *rr = &s->rd[ENAV_L7_RESPONSE];

		flush_pending(s, out);
		s->resp_lost = false;
		/* a message still open on the response stream is stale too */
		if (rr->fr.in_msg && !rr->fr.resync) {
			rr->fr.resync = true;
			out->stats->resyncs++;
		}
		rr->fr.in_msg = false;
	}
	if (s->count == 0 && s->rd[ENAV_L7_RESPONSE].fr.in_msg) {
		/* nothing was asked: a message open on the response stream is
		 * bogus (a false resync), and the answer starts afresh */
		enav_l7_framer_lose(&s->rd[ENAV_L7_RESPONSE].fr, out);
	}
	if (s->n_ops >= s->opt.max_pending || s->count >= PG_SLOTS) {
		out->stats->pending_overflow++;
		s->acc_active = false;
		return NULL;
	}
	uint32_t idx = 0;

	while (s->ops_used & (1u << idx))
		idx++;
	struct pg_op *o = &s->ops[idx];

	memset(o, 0, sizeof(*o));
	o->x.start_ns = s->acc_start_ns;
	o->x.has_seq = s->acc_has_seq;
	o->x.seq = s->acc_seq;
	o->x.request_bytes = s->acc_bytes;
	s->acc_active = false;
	s->ops_used |= 1u << idx;
	s->n_ops++;
	struct pg_slot *sl = slot_at(s, s->count);

	sl->kind = kind;
	sl->op = (uint8_t)idx;
	s->count++;
	return o;
}

static struct pg_op *tail_op(struct pg_state *s)
{
	if (!s->count)
		return NULL;
	struct pg_slot *sl = slot_at(s, s->count - 1);

	return is_op_kind(sl->kind) ? &s->ops[sl->op] : NULL;
}

static struct pg_op *front_op(struct pg_state *s)
{
	struct pg_slot *sl = front(s);

	return sl && is_op_kind(sl->kind) ? &s->ops[sl->op] : NULL;
}

/* ---- statements and portals ---------------------------------------------- */

static struct pg_stmt *stmt_find(struct pg_state *s, uint64_t h)
{
	for (int i = 0; i < PG_STMTS; i++)
		if (s->stmts[i].used && s->stmts[i].name_hash == h)
			return &s->stmts[i];
	return NULL;
}

static struct pg_stmt *stmt_slot(struct pg_state *s, uint64_t h)
{
	struct pg_stmt *st = stmt_find(s, h);

	if (st)
		return st;
	st = &s->stmts[0];
	for (int i = 0; i < PG_STMTS; i++) {
		if (!s->stmts[i].used)
			return &s->stmts[i];
		if (s->stmts[i].lru < st->lru)
			st = &s->stmts[i];
	}
	return st;
}

static struct pg_portal *portal_find(struct pg_state *s, uint64_t h)
{
	for (int i = 0; i < PG_PORTALS; i++)
		if (s->portals[i].used && s->portals[i].name_hash == h)
			return &s->portals[i];
	return NULL;
}

static struct pg_portal *portal_slot(struct pg_state *s, uint64_t h)
{
	struct pg_portal *p = portal_find(s, h);

	if (p)
		return p;
	p = &s->portals[0];
	for (int i = 0; i < PG_PORTALS; i++) {
		if (!s->portals[i].used)
			return &s->portals[i];
		if (s->portals[i].lru < p->lru)
			p = &s->portals[i];
	}
	return p;
}

/* ---- request messages ----------------------------------------------------- */

static void summarize(struct pg_state *s, const uint8_t *sql, size_t n, char *op, char *target,
		      char *statement)
{
	enav_l7_sql_summarize_dialect((const char *)sql, n, ENAV_SQL_POSTGRES, op,
				      ENAV_L7_OPERATION_MAX, target, ENAV_L7_TARGET_MAX,
				      s->opt.sanitized ? statement : NULL,
				      s->opt.sanitized ? ENAV_L7_STATEMENT_MAX : 0);
	if (!s->opt.sanitized)
		statement[0] = '\0';
}

static void on_parse(struct pg_state *s, const uint8_t *b, size_t n)
{
	size_t off = 0;
	long nl = cstr(b, n, &off);

	if (nl < 0)
		return; /* the name was not captured: the statement stays unknown */
	uint64_t h = name_hash(b, (size_t)nl);
	size_t qoff = off;
	long ql = cstr(b, n, &off);
	size_t qn = ql < 0 ? n - qoff : (size_t)ql;
	struct pg_stmt *st = stmt_slot(s, h);

	st->used = true;
	st->name_hash = h;
	st->lru = ++s->lru_clock;
	summarize(s, b + qoff, qn, st->operation, st->target, st->statement);
}

static void on_bind(struct pg_state *s, const uint8_t *b, size_t n)
{
	size_t off = 0;
	long pl = cstr(b, n, &off);

	if (pl < 0)
		return;
	uint64_t ph = name_hash(b, (size_t)pl);
	size_t soff = off;
	long sl = cstr(b, n, &off);
	struct pg_portal *p = portal_slot(s, ph);

	if (sl < 0) {
		p->used = false; /* statement unknown: a later Execute is a miss */
		return;
	}
	p->used = true;
	p->name_hash = ph;
	p->stmt_hash = name_hash(b + soff, (size_t)sl);
	p->lru = ++s->lru_clock;
}

static void on_close(struct pg_state *s, const uint8_t *b, size_t n)
{
	size_t off = 1;

	if (n < 1)
		return;
	long l = cstr(b, n, &off);

	if (l < 0)
		return;
	uint64_t h = name_hash(b + 1, (size_t)l);

	if (b[0] == 'S') {
		struct pg_stmt *st = stmt_find(s, h);

		if (st)
			st->used = false;
	} else if (b[0] == 'P') {
		struct pg_portal *p = portal_find(s, h);

		if (p)
			p->used = false;
	}
}

static void on_execute(struct pg_state *s, const uint8_t *b, size_t n,
		       const struct enav_l7_sink *out)
{
	struct pg_stmt *st = NULL;
	size_t off = 0;
	long pl = cstr(b, n, &off);

	if (pl >= 0) {
		struct pg_portal *p = portal_find(s, name_hash(b, (size_t)pl));

		if (p) {
			p->lru = ++s->lru_clock;
			st = stmt_find(s, p->stmt_hash);
		}
	}
	struct pg_op *o = push_op(s, PG_EXEC, out);

	if (!o)
		return;
	if (st) {
		st->lru = ++s->lru_clock;
		memcpy(o->operation, st->operation, sizeof(o->operation));
		memcpy(o->target, st->target, sizeof(o->target));
		memcpy(o->statement, st->statement, sizeof(o->statement));
	} else {
		s->stmt_misses++;
		memcpy(o->operation, "EXECUTE", sizeof("EXECUTE"));
	}
}

static bool accumulates(uint8_t t)
{
	return t != 'S' && t != 'X' && t != 'p' && t != 'd' && t != 'c' && t != 'f';
}

static void request_message(struct pg_state *s, struct pg_reader *r, const struct enav_l7_sink *out)
{
	const uint8_t *b = s->req_buf;
	size_t n = r->fr.keep_n;
	uint64_t wire = (uint64_t)r->len + (r->type ? 1 : 0);

	if (r->type == 0) { /* start-up packet: hdr holds length and code */
		uint32_t code = enav_l7_be32(r->fr.hdr + 4);

		if (code == PG_SSL_CODE || code == PG_GSS_CODE) {
			push_marker(s, PG_SSLANS, out);
		} else if (code != PG_CANCEL_CODE) {
			push_marker(s, PG_STARTUP, out);
			s->typed = true;
		}
		return;
	}
	if (accumulates(r->type))
		s->acc_bytes += wire;
	switch (r->type) {
	case 'Q': {
		struct pg_op *o = push_op(s, PG_SIMPLE, out);

		if (o) {
			const uint8_t *z = memchr(b, 0, n);

			summarize(s, b, z ? (size_t)(z - b) : n, o->operation, o->target,
				  o->statement);
		}
		break;
	}
	case 'F': {
		struct pg_op *o = push_op(s, PG_FUNC, out);

		if (o)
			memcpy(o->operation, "FUNCTION_CALL", sizeof("FUNCTION_CALL"));
		break;
	}
	case 'P':
		on_parse(s, b, n);
		break;
	case 'B':
		on_bind(s, b, n);
		break;
	case 'E':
		on_execute(s, b, n, out);
		break;
	case 'C':
		on_close(s, b, n);
		break;
	case 'S':
		s->acc_active = false;
		push_marker(s, PG_SYNC, out);
		break;
	case 'd':
	case 'c':
	case 'f': {
		struct pg_op *o = tail_op(s);

		if (o)
			o->x.request_bytes += wire;
		break;
	}
	default: /* Describe, Flush: part of the next op; Terminate, password */
		break;
	}
}

/* ---- response messages ---------------------------------------------------- */

static void set_status(char *dst, const uint8_t *s, size_t n, const struct enav_l7_sink *out)
{
	if (enav_l7_copy_text(dst, ENAV_L7_STATUS_MAX, s, n))
		out->stats->truncated_fields++;
}

/* First word of a CommandComplete tag. */
static void tag_word(char *dst, const uint8_t *b, size_t n, const struct enav_l7_sink *out)
{
	size_t w = 0;

	while (w < n && b[w] != 0 && b[w] != ' ')
		w++;
	set_status(dst, b, w, out);
}

/* The SQLSTATE field 'C' of an ErrorResponse; "" when not captured. */
static void sqlstate(char *dst, const uint8_t *b, size_t n, const struct enav_l7_sink *out)
{
	size_t off = 0;

	dst[0] = '\0';
	while (off < n && b[off] != 0) {
		uint8_t code = b[off++];
		size_t v = off;
		long l = cstr(b, n, &off);

		if (l < 0)
			return;
		if (code == 'C') {
			set_status(dst, b + v, (size_t)l, out);
			return;
		}
	}
}

static void response_message(struct pg_state *s, struct pg_reader *r, uint64_t ts,
			     const struct enav_l7_sink *out)
{
	const uint8_t *b = s->resp_buf;
	size_t n = r->fr.keep_n;
	uint64_t wire = (uint64_t)r->len + 1;
	struct pg_slot *fs = front(s);
	struct pg_op *o = front_op(s);

	if (o) {
		o->x.response_bytes += wire;
		o->resp_started = true;
	}
	switch (r->type) {
	case 'Z':
		s->resp_lost = false;
		if (!fs) {
			if (!s->unmatched_open)
				out->stats->unmatched_responses++;
			s->unmatched_open = false;
			break;
		}
		s->unmatched_open = false;
		while (s->count) {
			fs = front(s);
			uint8_t k = fs->kind;

			if (k == PG_SIMPLE || k == PG_FUNC) {
				struct pg_op *fo = &s->ops[fs->op];

				fo->x.end_ns = ts;
				emit(s, fo, true, out);
				pop_front(s);
				break;
			}
			if (k == PG_EXEC) { /* skipped after an error, or never answered */
				struct pg_op *fo = &s->ops[fs->op];

				if (fo == o) /* the ReadyForQuery is not its response */
					fo->x.response_bytes -= wire;
				s->skipped++;
				emit(s, fo, false, out);
				pop_front(s);
				continue;
			}
			pop_front(s); /* Sync, start-up (or a stale SSL marker) */
			if (k == PG_SYNC || k == PG_STARTUP)
				break;
		}
		break;
	case 'C':
	case 'I':
	case 's':
		if (!fs) {
			if (!s->unmatched_open)
				out->stats->unmatched_responses++;
			s->unmatched_open = true;
			break;
		}
		if (!o)
			break;
		if (fs->kind == PG_EXEC) {
			if (r->type == 'C')
				tag_word(o->status, b, n, out);
			else if (r->type == 's')
				memcpy(o->status, "SUSPENDED", sizeof("SUSPENDED"));
			o->x.end_ns = ts;
			emit(s, o, true, out);
			pop_front(s);
		} else if (r->type == 'C' && !o->error) {
			tag_word(o->status, b, n, out);
		}
		break;
	case 'E':
		if (!fs) {
			if (!s->unmatched_open)
				out->stats->unmatched_responses++;
			s->unmatched_open = true;
			break;
		}
		if (!o)
			break; /* start-up failure, or an error at Sync */
		if (!o->error) {
			o->error = true;
			sqlstate(o->status, b, n, out);
		}
		if (fs->kind == PG_EXEC) {
			o->x.end_ns = ts;
			emit(s, o, true, out);
			pop_front(s);
		}
		break;
	default:
		break;
	}
}

/* ---- framing -------------------------------------------------------------- */

static bool is_terminator(uint8_t k)
{
	return k == PG_SIMPLE || k == PG_FUNC || k == PG_SYNC || k == PG_STARTUP;
}

/*
 * Response bytes were lost before this fragment: they may have held whole
 * responses.  A client that does not pipeline has only its last request
 * unit (a Query, or the Execute batch up to its Sync) in flight when the
 * response stream resumes, so every older unit is emitted without its
 * response; otherwise the next response would be paired with an old op.
 */
static void flush_answered(struct pg_state *s, const struct enav_l7_sink *out)
{
	uint32_t keep_from = 0;

	for (uint32_t i = 0; i + 1 < s->count; i++)
		if (is_terminator(slot_at(s, i)->kind))
			keep_from = i + 1;
	while (keep_from--) {
		struct pg_slot *sl = front(s);

		if (is_op_kind(sl->kind))
			emit(s, &s->ops[sl->op], false, out);
		pop_front(s);
	}
}

/* Loss of framing on one stream (the engine drops the partial message and
 * resyncs later). */
static void lose(void *st, enum enav_l7_stream dir, const struct enav_l7_sink *out)
{
	struct pg_state *s = st;

	(void)out;
	if (dir == ENAV_L7_REQUEST) {
		s->acc_active = false;
	} else if (s->count) {
		s->resp_lost = true;
		/* an SSL answer cannot be waited for any more */
		if (front(s)->kind == PG_SSLANS)
			pop_front(s);
	}
}

/* Where framing can restart in d[from..cap), or -1. */
static long find_start(void *st, enum enav_l7_stream dir, const uint8_t *d, size_t from, size_t cap,
		       size_t len)
{
	struct pg_state *s = st;

	if (dir == ENAV_L7_REQUEST && from == 0 && enav_pg_startup_at(d, 0, cap)) {
		s->typed = false;
		return 0;
	}
	for (size_t i = from; i + 5 <= cap; i++) {
		if (!enav_pg_valid_header(dir, d[i], enav_l7_be32(d + i + 1)))
			continue;
		if (enav_pg_chain_ok(dir, d, i, cap, i == 0)) {
			if (dir == ENAV_L7_REQUEST)
				s->typed = true;
			return (long)i;
		}
	}
	return -1;
}

/* ---- the framing the stream engine runs ---------------------------------- */

static const struct enav_l7_framing pg_framing;

static void pg_gap(void *st, enum enav_l7_stream dir, const struct enav_l7_sink *out)
{
	if (dir == ENAV_L7_RESPONSE)
		flush_answered(st, out);
	enav_l7_framed_lose(&pg_framing, st, dir, out);
}

/* The answer to an SSLRequest or GSSENCRequest is one byte, no message. */
static enum enav_l7_between pg_between(void *st, enum enav_l7_stream dir, uint8_t a,
				       const struct enav_l7_sink *out)
{
	struct pg_state *s = st;
	struct pg_slot *fs = front(s);

	if (dir != ENAV_L7_RESPONSE || !fs || fs->kind != PG_SSLANS)
		return ENAV_L7_BETWEEN_MESSAGE;
	pop_front(s);
	if (a == 'S' || a == 'G') {
		s->encrypted = true;
		return ENAV_L7_BETWEEN_STOP;
	}
	if (a == 'N')
		return ENAV_L7_BETWEEN_SKIP;
	return ENAV_L7_BETWEEN_MESSAGE; /* an old server's ErrorResponse */
}

static uint32_t pg_prefix_len(void *st, enum enav_l7_stream dir)
{
	const struct pg_state *s = st;

	return dir == ENAV_L7_REQUEST && !s->typed ? 8 : 5;
}

static bool pg_header(void *st, enum enav_l7_stream dir, struct enav_l7_framer *fr,
		      const struct enav_l7_sink *out)
{
	struct pg_state *s = st;
	struct pg_reader *r = &s->rd[dir];

	if (fr->hdr_need == 8) {
		r->type = 0;
		r->len = enav_l7_be32(fr->hdr);
		if (!enav_pg_valid_startup(r->len, enav_l7_be32(fr->hdr + 4))) {
			/* joined after the start-up: try typed messages */
			s->typed = true;
			enav_l7_framed_parse_error(&pg_framing, s, dir, out);
			return false;
		}
		fr->left = r->len - 8;
		return true;
	}
	r->type = fr->hdr[0];
	r->len = enav_l7_be32(fr->hdr + 1);
	if (!enav_pg_valid_header(dir, r->type, r->len)) {
		enav_l7_framed_parse_error(&pg_framing, s, dir, out);
		return false;
	}
	fr->left = r->len - 4;
	if (dir == ENAV_L7_REQUEST && accumulates(r->type) && !s->acc_active) {
		s->acc_active = true;
		s->acc_start_ns = fr->start_ns;
		s->acc_has_seq = fr->has_seq;
		s->acc_seq = fr->seq;
		s->acc_bytes = 0;
	}
	return true;
}

static void pg_end(void *st, enum enav_l7_stream dir, struct enav_l7_framer *fr, uint64_t ts,
		   const struct enav_l7_sink *out)
{
	struct pg_state *s = st;

	if (dir == ENAV_L7_REQUEST)
		request_message(s, &s->rd[dir], out);
	else
		response_message(s, &s->rd[dir], ts, out);
}

static bool pg_opaque(const void *st)
{
	return ((const struct pg_state *)st)->encrypted;
}

static const struct enav_l7_framing pg_framing = {
    .prefix_len = pg_prefix_len,
    .header = pg_header,
    .end = pg_end,
    .find_start = find_start,
    .lose = lose,
    .gap = pg_gap,
    .between = pg_between,
    .opaque = pg_opaque,
    .framer_at = {offsetof(struct pg_state, rd[0].fr), offsetof(struct pg_state, rd[1].fr)},
    .keep_at = {offsetof(struct pg_state, req_buf), offsetof(struct pg_state, resp_buf)},
    .keep_cap = {PG_REQ_CAP, PG_RESP_CAP},
};

/* ---- ops ------------------------------------------------------------------ */

static bool pg_detect(const uint8_t *d, size_t n, enum enav_l7_stream stream)
{
	if (stream != ENAV_L7_REQUEST || !d || n < 8)
		return false;
	uint32_t len = enav_l7_be32(d), code = enav_l7_be32(d + 4);

	if (len < 8 || len > 10000)
		return false;
	return code == 0x00030000u || code == PG_SSL_CODE || code == PG_GSS_CODE;
}

static int pg_init(void *state, const struct enav_l7_options *opt)
{
	struct pg_state *s = state;

	memset(s, 0, sizeof(*s));
	s->opt = enav_l7_sql_options(opt);
	return 0;
}

/* The engine frames messages of each stream. */
ENAV_L7_FRAMED_PARSER(postgres, struct pg_state, pg_detect, pg_init, pg_framing, flush_pending);
