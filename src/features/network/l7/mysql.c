/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MySQL / MariaDB client/server protocol parser.
 *
 * Packets: 3-byte little-endian payload length and a sequence id; a payload
 * of exactly 0xffffff bytes continues in the next packet.  Connection phase:
 * the server greeting (protocol 10) gives the server's capability flags, the
 * client's handshake response its own (an SSL request, or compression,
 * leaves nothing to read: no ops), then the authentication exchange (auth
 * switch, more data) up to OK or ERR.  Command phase, one entry per command
 * that has a response, matched in FIFO order:
 *  - COM_QUERY: op from the SQL summary; OK, ERR, LOCAL INFILE (the client's
 *    file packets count as request bytes) or text result sets; multiple
 *    results (SERVER_MORE_RESULTS_EXISTS) are one op completed after the
 *    last; status "OK", or error = true and status = the SQLSTATE after '#'
 *    (the error number when there is no marker);
 *  - COM_STMT_PREPARE: op "PREPARE" with the statement's target; the
 *    PREPARE_OK's statement id maps to the SQL summary in a 16-entry LRU
 *    table; the parameter and column definitions (and their EOFs unless
 *    CLIENT_DEPRECATE_EOF) are skipped by count;
 *  - COM_STMT_EXECUTE / COM_STMT_BULK_EXECUTE: op from the remembered
 *    summary (id 0xffffffff: the last prepared statement; unknown id:
 *    operation "EXECUTE", target ""), binary result sets, MariaDB's
 *    metadata-skipped column count;
 *  - COM_STMT_FETCH: op "FETCH" (rows up to EOF); COM_PING: "PING";
 *    COM_INIT_DB: "INIT_DB";
 *  - no op: COM_QUIT, COM_STMT_CLOSE, COM_STMT_SEND_LONG_DATA (no response),
 *    and the other commands, whose responses are consumed silently;
 *    replication commands leave nothing to read.
 * MariaDB progress reports (ERR 0xffff) are not responses.
 *
 * Loss: a gap, an unframeable packet or a packet boundary hidden in the
 * uncaptured tail drops the partial packet and resynchronizes on a chain of
 * headers with consecutive sequence ids (requests: a command, sequence 0).
 * Pending ops survive a response resync; if the client sends a new command
 * before the response is seen to end, the ops in flight are emitted with
 * response_seen = false first.
 */
#include "features/network/l7/l7_common.h"
#include "features/network/l7/l7_stream.h"
#include "features/network/l7/mysql_wire.h"
#include "model/l7_text.h"

#include <stdio.h>
#include <string.h>

#define MY_REQ_CAP  1024 /* payload bytes of a request packet kept: SQL text */
#define MY_RESP_CAP 256	 /* payload bytes of a response packet kept: greeting, OK, ERR */
#define MY_STMTS    16
#define MY_MAX_PKT  0xffffffu

#define CLIENT_PROTOCOL_41   0x00000200u
#define CLIENT_SSL	     0x00000800u
#define CLIENT_COMPRESS	     0x00000020u
#define CLIENT_ZSTD	     0x04000000u
#define CLIENT_DEPRECATE_EOF 0x01000000u
#define SERVER_MORE_RESULTS  0x0008u
#define SERVER_CURSOR_EXISTS 0x0040u

enum my_phase {
	PH_GREETING = 0, /* waiting for the server greeting */
	PH_AUTH,	 /* greeting seen: handshake and authentication */
	PH_CMD,		 /* command phase */
	PH_OPAQUE,	 /* TLS, compression, replication, refused: nothing to read */
};

enum my_kind {
	K_QUERY = 1, /* OK / ERR / LOCAL INFILE / text result sets */
	K_EXECUTE,   /* OK / ERR / binary result sets */
	K_FETCH,     /* rows up to EOF, or ERR */
	K_PREPARE,   /* PREPARE_OK and definitions, or ERR */
	K_SIMPLE,    /* OK, ERR or EOF */
	K_ONE,	     /* any single packet */
	K_FIELDS,    /* COM_FIELD_LIST: definitions up to EOF, or ERR */
	K_CHANGE,    /* COM_CHANGE_USER: authentication up to OK or ERR */
};

enum my_rs {
	RS_FIRST = 0,
	RS_COLDEFS,
	RS_COLDEFS_EOF,
	RS_ROWS,
	RS_PREP_PARAMS,
	RS_PREP_PARAMS_EOF,
	RS_PREP_COLS,
	RS_PREP_COLS_EOF,
};

struct my_op {
	char operation[ENAV_L7_OPERATION_MAX];
	char target[ENAV_L7_TARGET_MAX];
	char statement[ENAV_L7_STATEMENT_MAX];
	char status[ENAV_L7_STATUS_MAX];
	char sql_op[ENAV_L7_OPERATION_MAX]; /* PREPARE: the statement's own operation */
	struct enav_l7_exchange x;
	bool error;
	bool emit;
	bool resp_started;
	uint8_t kind;
};

struct my_stmt {
	uint32_t id, lru;
	bool used;
	char operation[ENAV_L7_OPERATION_MAX];
	char target[ENAV_L7_TARGET_MAX];
	char statement[ENAV_L7_STATEMENT_MAX];
};

struct my_reader {
	struct enav_l7_framer fr; /* hdr: 3-byte length, sequence id */
	uint8_t pseq;		  /* sequence id of the packet being read */
	bool cont;		  /* this packet continues a 0xffffff payload */
	bool next_cont;		  /* the packet read last was 0xffffff long */
	uint32_t len;
};

struct my_state {
	struct enav_l7_sql_options opt;
	uint8_t phase;
	bool handshake_seen; /* the client's handshake response was read */
	bool deprecate_eof;  /* negotiated (valid when handshake_seen) */
	bool compress;	     /* negotiated: opaque after authentication */
	uint32_t server_caps;
	bool resp_lost;
	bool unmatched_open;
	struct my_reader rd[2];
	uint8_t req_buf[MY_REQ_CAP];
	uint8_t resp_buf[MY_RESP_CAP];
	/* response state of the op at the front */
	uint8_t rs;
	uint64_t remaining;
	uint16_t prep_cols;
	/* pending FIFO */
	struct my_op ops[ENAV_L7_MAX_PENDING];
	uint32_t head, count;
	/* prepared statements */
	struct my_stmt stmts[MY_STMTS];
	uint32_t lru_clock;
	bool last_prep_valid;
	char last_prep_op[ENAV_L7_OPERATION_MAX];
	char last_prep_target[ENAV_L7_TARGET_MAX];
	char last_prep_statement[ENAV_L7_STATEMENT_MAX];
	uint64_t stmt_misses, local_infile;
};

/* ---- FIFO ----------------------------------------------------------------- */

static struct my_op *op_at(struct my_state *s, uint32_t i)
{
	return &s->ops[enav_l7_fifo_slot(s->head, i)];
}

static struct my_op *front(struct my_state *s)
{
	return s->count ? op_at(s, 0) : NULL;
}

static struct my_op *tail(struct my_state *s)
{
	return s->count ? op_at(s, s->count - 1) : NULL;
}

static void emit(struct my_state *s, struct my_op *o, bool response_seen,
		 const struct enav_l7_sink *out)
{
	if (o->emit)
		enav_l7_sql_emit(ENAV_L7_MYSQL,
				 &(struct enav_l7_sql_texts){o->operation, o->target,
							     s->opt.sanitized ? o->statement : NULL,
							     o->status},
				 response_seen, o->error, &o->x, out);
}

static void pop_front(struct my_state *s)
{
	if (!s->count)
		return;
	enav_l7_fifo_drop(&s->head, &s->count);
	s->rs = RS_FIRST;
	s->remaining = 0;
}

/* Emit and drop every pending op without its response; also the parser's
 * finish (the connection closed). */
static void flush_pending(void *state, const struct enav_l7_sink *out)
{
	struct my_state *s = state;

	if (!s || !out)
		return;
	while (s->count) {
		emit(s, front(s), false, out);
		pop_front(s);
	}
}

/* The front op's response is complete. */
static void complete(struct my_state *s, uint64_t ts, const struct enav_l7_sink *out)
{
	struct my_op *o = front(s);

	if (!o)
		return;
	o->x.end_ns = ts;
	emit(s, o, true, out);
	pop_front(s);
	s->resp_lost = false;
}

/* ---- statements ----------------------------------------------------------- */

static struct my_stmt *stmt_find(struct my_state *s, uint32_t id)
{
	for (int i = 0; i < MY_STMTS; i++)
		if (s->stmts[i].used && s->stmts[i].id == id)
			return &s->stmts[i];
	return NULL;
}

static void stmt_put(struct my_state *s, uint32_t id, const struct my_op *o)
{
	struct my_stmt *st = stmt_find(s, id);

	if (!st) {
		st = &s->stmts[0];
		for (int i = 0; i < MY_STMTS; i++) {
			if (!s->stmts[i].used) {
				st = &s->stmts[i];
				break;
			}
			if (s->stmts[i].lru < st->lru)
				st = &s->stmts[i];
		}
	}
	st->used = true;
	st->id = id;
	st->lru = ++s->lru_clock;
	memcpy(st->operation, o->sql_op, sizeof(st->operation));
	memcpy(st->target, o->target, sizeof(st->target));
	memcpy(st->statement, o->statement, sizeof(st->statement));
}

/* ---- requests ------------------------------------------------------------- */

static struct my_op *push(struct my_state *s, const struct my_reader *r, uint8_t kind, bool emit_op,
			  const struct enav_l7_sink *out)
{
	if (s->resp_lost) {
		/* the client moved on: the responses in flight ended unseen */
		struct my_reader *rr = &s->rd[ENAV_L7_RESPONSE];

		flush_pending(s, out);
		s->resp_lost = false;
		/* a packet still open on the response stream is stale too */
		if (rr->fr.in_msg && !rr->fr.resync) {
			rr->fr.resync = true;
			out->stats->resyncs++;
		}
		rr->fr.in_msg = false;
		rr->next_cont = false;
	}
	if (s->count == 0 && s->rd[ENAV_L7_RESPONSE].fr.in_msg) {
		/* nothing was asked: a packet open on the response stream is
		 * bogus (a false resync), and the answer starts afresh */
		s->rd[ENAV_L7_RESPONSE].next_cont = false;
		enav_l7_framer_lose(&s->rd[ENAV_L7_RESPONSE].fr, out);
	}
	s->unmatched_open = false;
	if (s->count >= s->opt.max_pending) {
		out->stats->pending_overflow++;
		return NULL;
	}
	struct my_op *o = op_at(s, s->count);

	memset(o, 0, sizeof(*o));
	o->kind = kind;
	o->emit = emit_op;
	o->x.start_ns = r->fr.start_ns;
	o->x.has_seq = r->fr.has_seq;
	o->x.seq = r->fr.seq;
	o->x.request_bytes = (uint64_t)r->len + 4;
	s->count++;
	return o;
}

static void summarize(struct my_state *s, const uint8_t *sql, size_t n, char *op, char *target,
		      char *statement)
{
	enav_l7_sql_summarize_dialect((const char *)sql, n, ENAV_SQL_MYSQL, op,
				      ENAV_L7_OPERATION_MAX, target, ENAV_L7_TARGET_MAX,
				      s->opt.sanitized ? statement : NULL,
				      s->opt.sanitized ? ENAV_L7_STATEMENT_MAX : 0);
	if (!s->opt.sanitized)
		statement[0] = '\0';
}

static void set_op(char *dst, const char *name)
{
	size_t n = strlen(name);

	memcpy(dst, name, n + 1);
}

static void from_stmt(struct my_state *s, struct my_op *o, const uint8_t *b, size_t n,
		      const char *own_op)
{
	struct my_stmt *st = NULL;
	bool last = false;

	if (n >= 5) {
		uint32_t id = le32(b + 1);

		if (id == 0xffffffffu && s->last_prep_valid)
			last = true;
		else
			st = stmt_find(s, id);
	}
	if (last) {
		set_op(o->operation, own_op ? own_op : s->last_prep_op);
		memcpy(o->target, s->last_prep_target, sizeof(o->target));
		memcpy(o->statement, s->last_prep_statement, sizeof(o->statement));
	} else if (st) {
		st->lru = ++s->lru_clock;
		set_op(o->operation, own_op ? own_op : st->operation);
		memcpy(o->target, st->target, sizeof(o->target));
		memcpy(o->statement, st->statement, sizeof(o->statement));
	} else {
		s->stmt_misses++;
		set_op(o->operation, own_op ? own_op : "EXECUTE");
	}
}

static void command(struct my_state *s, struct my_reader *r, const struct enav_l7_sink *out)
{
	const uint8_t *b = s->req_buf;
	size_t n = r->fr.keep_n;
	struct my_op *o;

	if (n == 0) {
		out->stats->parse_errors++;
		return;
	}
	switch (b[0]) {
	case 0x01: /* COM_QUIT */
	case 0x18: /* COM_STMT_SEND_LONG_DATA */
		break;
	case 0x19: /* COM_STMT_CLOSE */
		if (n >= 5) {
			struct my_stmt *st = stmt_find(s, le32(b + 1));

			if (st)
				st->used = false;
		}
		break;
	case 0x03: /* COM_QUERY */
		o = push(s, r, K_QUERY, true, out);
		if (o)
			summarize(s, b + 1, n - 1, o->operation, o->target, o->statement);
		break;
	case 0x16: /* COM_STMT_PREPARE */
		o = push(s, r, K_PREPARE, true, out);
		if (!o)
			break;
		summarize(s, b + 1, n - 1, o->sql_op, o->target, o->statement);
		set_op(o->operation, "PREPARE");
		s->last_prep_valid = true;
		memcpy(s->last_prep_op, o->sql_op, sizeof(s->last_prep_op));
		memcpy(s->last_prep_target, o->target, sizeof(s->last_prep_target));
		memcpy(s->last_prep_statement, o->statement, sizeof(s->last_prep_statement));
		break;
	case 0x17: /* COM_STMT_EXECUTE */
	case 0xfa: /* COM_STMT_BULK_EXECUTE (MariaDB) */
		o = push(s, r, K_EXECUTE, true, out);
		if (o)
			from_stmt(s, o, b, n, NULL);
		break;
	case 0x1c: /* COM_STMT_FETCH */
		o = push(s, r, K_FETCH, true, out);
		if (o)
			from_stmt(s, o, b, n, "FETCH");
		break;
	case 0x0e: /* COM_PING */
		o = push(s, r, K_SIMPLE, true, out);
		if (o)
			set_op(o->operation, "PING");
		break;
	case 0x02: /* COM_INIT_DB */
		o = push(s, r, K_SIMPLE, true, out);
		if (o)
			set_op(o->operation, "INIT_DB");
		break;
	case 0x04: /* COM_FIELD_LIST */
		push(s, r, K_FIELDS, false, out);
		break;
	case 0x0a: /* COM_PROCESS_INFO */
		push(s, r, K_QUERY, false, out);
		break;
	case 0x09: /* COM_STATISTICS */
	case 0x0d: /* COM_DEBUG */
	case 0x1b: /* COM_SET_OPTION */
		push(s, r, K_ONE, false, out);
		break;
	case 0x11: /* COM_CHANGE_USER */
		push(s, r, K_CHANGE, false, out);
		break;
	case 0x12: /* COM_BINLOG_DUMP */
	case 0x14: /* COM_REGISTER_SLAVE */
	case 0x15: /* COM_TABLE_DUMP */
	case 0x1e: /* COM_BINLOG_DUMP_GTID */
		flush_pending(s, out);
		s->phase = PH_OPAQUE;
		break;
	default: /* COM_CREATE_DB, REFRESH, SHUTDOWN, PROCESS_KILL, STMT_RESET, ... */
		if (b[0] <= 0x1f)
			push(s, r, K_SIMPLE, false, out);
		else
			out->stats->parse_errors++;
		break;
	}
}

static void handshake_response(struct my_state *s, const uint8_t *b, size_t n, uint32_t len)
{
	if (n < 4)
		return;
	uint32_t caps = le16(b);

	if (caps & CLIENT_PROTOCOL_41)
		caps = le32(b);
	s->handshake_seen = true;
	s->deprecate_eof = (caps & s->server_caps & CLIENT_DEPRECATE_EOF) != 0;
	s->compress = (caps & s->server_caps & (CLIENT_COMPRESS | CLIENT_ZSTD)) != 0;
	if ((caps & CLIENT_SSL) && len <= 36)
		s->phase = PH_OPAQUE; /* SSLRequest: TLS follows */
}

static void request_packet(struct my_state *s, struct my_reader *r, const struct enav_l7_sink *out)
{
	if (s->phase == PH_OPAQUE)
		return;
	if (r->cont || (s->phase == PH_CMD && r->pseq != 0)) {
		/* a 0xffffff continuation, or LOCAL INFILE data */
		struct my_op *o = tail(s);

		if (o)
			o->x.request_bytes += (uint64_t)r->len + 4;
		return;
	}
	if (s->phase != PH_CMD) {
		if (r->pseq != 0) {
			if (!s->handshake_seen && r->pseq == 1)
				handshake_response(s, s->req_buf, r->fr.keep_n, r->len);
			return;
		}
		s->phase = PH_CMD; /* a command: the authentication OK was missed */
	}
	command(s, r, out);
}

/* ---- responses ------------------------------------------------------------ */

static void set_status(char *dst, const char *src, size_t n, const struct enav_l7_sink *out)
{
	if (enav_l7_copy_text(dst, ENAV_L7_STATUS_MAX, src, n))
		out->stats->truncated_fields++;
}

/* ERR packet: error = true, status = SQLSTATE or the error number. */
static void err_status(struct my_op *o, const uint8_t *b, size_t n, const struct enav_l7_sink *out)
{
	o->error = true;
	if (n >= 9 && b[3] == '#') {
		set_status(o->status, (const char *)b + 4, 5, out);
	} else if (n >= 3) {
		char num[8];
		size_t l = enav_l7_put_number(num, sizeof(num), "", le16(b + 1));

		set_status(o->status, num, l, out);
	} else {
		o->status[0] = '\0';
	}
}

/* A result-set terminator: EOF, or an OK with a 0xfe header. */
static bool is_terminator(struct my_state *s, const uint8_t *b, size_t n, uint32_t len)
{
	if (n < 1 || b[0] != 0xfe)
		return false;
	if (s->handshake_seen && !s->deprecate_eof)
		return len < 9;
	return len < MY_MAX_PKT;
}

/* The EOF after definitions (absent with CLIENT_DEPRECATE_EOF). */
static bool is_defs_eof(struct my_state *s, const uint8_t *b, size_t n, uint32_t len)
{
	if (n < 1 || b[0] != 0xfe)
		return false;
	if (s->handshake_seen)
		return !s->deprecate_eof && len < 9;
	return len == 5;
}

static bool defs_eof_expected(struct my_state *s)
{
	return s->handshake_seen ? !s->deprecate_eof : true;
}

static void result_packet(struct my_state *s, struct my_op *o, const uint8_t *b, size_t n,
			  uint32_t len, uint64_t ts, const struct enav_l7_sink *out)
{
	uint32_t st;

	if (n >= 1 && b[0] == 0xff && s->rs != RS_COLDEFS) {
		err_status(o, b, n, out);
		complete(s, ts, out);
		return;
	}
	switch (s->rs) {
	case RS_FIRST:
		if (n < 1) {
			break;
		} else if (b[0] == 0x00 && o->kind != K_FETCH) {
			st = enav_mysql_ok_status(b, n, len);
			set_op(o->status, "OK");
			if (!(st & SERVER_MORE_RESULTS))
				complete(s, ts, out);
		} else if (b[0] == 0xfb && o->kind == K_QUERY) {
			s->local_infile++; /* the client sends the file, then OK/ERR */
		} else if (b[0] == 0xfe && len < 9) {
			set_op(o->status, "OK");
			complete(s, ts, out);
		} else if (o->kind == K_FETCH) {
			s->rs = RS_ROWS;
			result_packet(s, o, b, n, len, ts, out);
		} else {
			size_t off = 0;
			uint64_t cols;

			if (!enav_mysql_lenenc(b, n, &off, &cols) || cols == 0) {
				out->stats->parse_errors++;
				break;
			}
			s->remaining = cols;
			if (off < n && len == off + 1 && b[off] == 0)
				s->rs = defs_eof_expected(s) ? RS_COLDEFS_EOF : RS_ROWS;
			else
				s->rs = RS_COLDEFS;
		}
		break;
	case RS_COLDEFS:
		if (n >= 1 && b[0] == 0xff) {
			err_status(o, b, n, out);
			complete(s, ts, out);
		} else if (--s->remaining == 0) {
			s->rs = defs_eof_expected(s) ? RS_COLDEFS_EOF : RS_ROWS;
		}
		break;
	case RS_COLDEFS_EOF:
		if (is_defs_eof(s, b, n, len)) {
			st = enav_mysql_ok_status(b, n, len);
			s->rs = RS_ROWS;
			if (st & SERVER_CURSOR_EXISTS) { /* rows come by COM_STMT_FETCH */
				set_op(o->status, "OK");
				complete(s, ts, out);
			}
			break;
		}
		s->rs = RS_ROWS; /* no EOF after all: this is a row or the end */
		result_packet(s, o, b, n, len, ts, out);
		break;
	case RS_ROWS:
		if (is_terminator(s, b, n, len)) {
			st = enav_mysql_ok_status(b, n, len);
			set_op(o->status, "OK");
			if ((st & SERVER_MORE_RESULTS) && o->kind != K_FETCH)
				s->rs = RS_FIRST;
			else
				complete(s, ts, out);
		}
		break;
	default:
		break;
	}
}

static void prepare_packet(struct my_state *s, struct my_op *o, const uint8_t *b, size_t n,
			   uint32_t len, uint64_t ts, const struct enav_l7_sink *out)
{
	(void)len;
	switch (s->rs) {
	case RS_FIRST:
		if (n >= 1 && b[0] == 0xff) {
			err_status(o, b, n, out);
			complete(s, ts, out);
			return;
		}
		if (n < 9 || b[0] != 0x00) {
			out->stats->parse_errors++;
			set_op(o->status, "");
			complete(s, ts, out);
			return;
		}
		stmt_put(s, le32(b + 1), o);
		set_op(o->status, "OK");
		s->prep_cols = (uint16_t)le16(b + 5);
		s->remaining = le16(b + 7);
		if (s->remaining) {
			s->rs = RS_PREP_PARAMS;
			return;
		}
		break;
	case RS_PREP_PARAMS:
		if (--s->remaining)
			return;
		if (defs_eof_expected(s)) {
			s->rs = RS_PREP_PARAMS_EOF;
			return;
		}
		break;
	case RS_PREP_PARAMS_EOF:
		if (!is_defs_eof(s, b, n, len)) { /* unknown mode, no EOF: a column */
			s->remaining = s->prep_cols;
			s->prep_cols = 0;
			s->rs = RS_PREP_COLS;
			prepare_packet(s, o, b, n, len, ts, out);
			return;
		}
		break;
	case RS_PREP_COLS:
		if (--s->remaining)
			return;
		if (defs_eof_expected(s)) {
			s->rs = RS_PREP_COLS_EOF;
			return;
		}
		complete(s, ts, out);
		return;
	case RS_PREP_COLS_EOF:
		complete(s, ts, out);
		return;
	default:
		return;
	}
	/* parameters done: columns next, if any */
	if (s->prep_cols) {
		s->remaining = s->prep_cols;
		s->prep_cols = 0;
		s->rs = RS_PREP_COLS;
	} else {
		complete(s, ts, out);
	}
}

static void greeting(struct my_state *s, const uint8_t *b, size_t n)
{
	size_t off = 1;
	const uint8_t *z = memchr(b + 1, 0, n > 1 ? n - 1 : 0);

	s->phase = PH_AUTH;
	if (!z)
		return;
	off = (size_t)(z - b) + 1 + 4 + 8 + 1; /* version, thread id, scramble, filler */
	if (off + 2 > n)
		return;
	s->server_caps = le16(b + off);
	off += 2 + 1 + 2; /* charset, status */
	if (off + 2 > n)
		return;
	s->server_caps |= le16(b + off) << 16;
}

static void response_packet(struct my_state *s, struct my_reader *r, uint64_t ts,
			    const struct enav_l7_sink *out)
{
	const uint8_t *b = s->resp_buf;
	size_t n = r->fr.keep_n;
	uint32_t len = r->len;

	switch (s->phase) {
	case PH_OPAQUE:
		return;
	case PH_GREETING:
		if (!r->cont && r->pseq == 0 && n >= 1 && b[0] == 0x0a) {
			greeting(s, b, n);
			return;
		}
		if (!r->cont && r->pseq == 0 && n >= 1 && b[0] == 0xff) {
			s->phase = PH_OPAQUE; /* refused before the handshake */
			return;
		}
		s->phase = PH_CMD; /* joined after the handshake */
		break;
	case PH_AUTH:
		if (r->cont || n < 1)
			return;
		if (b[0] == 0x00)
			s->phase = s->compress ? PH_OPAQUE : PH_CMD;
		else if (b[0] == 0xff)
			s->phase = PH_OPAQUE; /* authentication failed */
		return;
	default:
		break;
	}
	struct my_op *o = front(s);

	if (!o) {
		if (!s->unmatched_open && !r->cont) {
			out->stats->unmatched_responses++;
			s->unmatched_open = true;
		}
		return;
	}
	o->x.response_bytes += (uint64_t)len + 4;
	o->resp_started = true;
	if (r->cont || (n >= 1 && enav_mysql_is_progress(b, n)))
		return;
	switch (o->kind) {
	case K_QUERY:
	case K_EXECUTE:
	case K_FETCH:
		result_packet(s, o, b, n, len, ts, out);
		break;
	case K_PREPARE:
		prepare_packet(s, o, b, n, len, ts, out);
		break;
	case K_FIELDS:
		if (n >= 1 && b[0] == 0xff)
			err_status(o, b, n, out);
		if (n >= 1 && (b[0] == 0xff || (b[0] == 0xfe && len < 9)))
			complete(s, ts, out);
		break;
	case K_CHANGE:
		if (n >= 1 && b[0] == 0xff)
			err_status(o, b, n, out);
		if (n >= 1 && (b[0] == 0xff || b[0] == 0x00)) {
			complete(s, ts, out);
			if (s->compress)
				s->phase = PH_OPAQUE;
		}
		break;
	case K_SIMPLE:
	case K_ONE:
	default:
		if (n >= 1 && b[0] == 0xff)
			err_status(o, b, n, out);
		else if (o->kind == K_ONE || (n >= 1 && (b[0] == 0x00 || b[0] == 0xfe)))
			set_op(o->status, "OK");
		complete(s, ts, out);
		break;
	}
}

/* ---- framing -------------------------------------------------------------- */

/* Framing is lost (the engine drops the partial packet): a packet split
 * across the loss cannot continue, and the oldest command's answer may
 * have been in the lost bytes. */
static void lose(void *st, enum enav_l7_stream dir, const struct enav_l7_sink *out)
{
	struct my_state *s = st;

	(void)out;
	s->rd[dir].next_cont = false;
	if (dir == ENAV_L7_RESPONSE && s->count)
		s->resp_lost = true;
}

/* Response bytes were lost: all but the newest command had their answers
 * in the lost bytes, if the client does not pipeline. */
static void flush_answered(struct my_state *s, const struct enav_l7_sink *out)
{
	while (s->count > 1) {
		emit(s, front(s), false, out);
		pop_front(s);
	}
}

/* ---- the framing the stream engine runs ---------------------------------- */

static const struct enav_l7_framing my_framing;

static void my_gap(void *st, enum enav_l7_stream dir, const struct enav_l7_sink *out)
{
	if (dir == ENAV_L7_RESPONSE)
		flush_answered(st, out);
	enav_l7_framed_lose(&my_framing, st, dir, out);
}

static bool my_header(void *st, enum enav_l7_stream dir, struct enav_l7_framer *fr,
		      const struct enav_l7_sink *out)
{
	struct my_reader *r = &((struct my_state *)st)->rd[dir];

	r->len = le24(fr->hdr);
	r->pseq = fr->hdr[3];
	fr->left = r->len;
	r->cont = r->next_cont;
	r->next_cont = r->len == MY_MAX_PKT;
	return true;
}

static void my_end(void *st, enum enav_l7_stream dir, struct enav_l7_framer *fr, uint64_t ts,
		   const struct enav_l7_sink *out)
{
	struct my_state *s = st;

	if (dir == ENAV_L7_REQUEST)
		request_packet(s, &s->rd[dir], out);
	else
		response_packet(s, &s->rd[dir], ts, out);
}

static bool my_opaque(const void *st)
{
	return ((const struct my_state *)st)->phase == PH_OPAQUE;
}

static const struct enav_l7_framing my_framing = {
    .prefix = 4, /* 3-byte length, sequence id */
    .header = my_header,
    .end = my_end,
    .find_start = enav_mysql_find_start,
    .lose = lose,
    .gap = my_gap,
    .opaque = my_opaque,
    .framer_at = {offsetof(struct my_state, rd[0].fr), offsetof(struct my_state, rd[1].fr)},
    .keep_at = {offsetof(struct my_state, req_buf), offsetof(struct my_state, resp_buf)},
    .keep_cap = {MY_REQ_CAP, MY_RESP_CAP},
};

/* ---- ops ------------------------------------------------------------------ */

static bool my_detect(const uint8_t *d, size_t n, enum enav_l7_stream stream)
{
	if (stream != ENAV_L7_RESPONSE || !d || n < 5)
		return false;
	return d[3] == 0 && d[4] == 0x0a;
}

static int my_init(void *state, const struct enav_l7_options *opt)
{
	struct my_state *s = state;

	memset(s, 0, sizeof(*s));
	s->opt = enav_l7_sql_options(opt);
	return 0;
}

/* The engine frames packets of each stream. */
ENAV_L7_FRAMED_PARSER(mysql, struct my_state, my_detect, my_init, my_framing, flush_pending);
