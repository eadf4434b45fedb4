/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Redis (RESP2 and RESP3) parser.
 *
 * Request stream: arrays of bulk strings ("*N\r\n$L\r\n...\r\n"), and inline
 * commands ("PING\r\n") once a RESP request proved the connection is Redis.
 * Only the command name is kept (plus, for a fixed allow-list of container
 * commands, a subcommand from that command's own allow-list: "CONFIG GET");
 * keys and values are skipped by length and never copied out.
 *
 * Response stream: every RESP2/RESP3 type, aggregates streamed element by
 * element with only a bounded depth stack (a "*2147483648" header costs
 * nothing until its elements arrive), bulk bodies skipped by length.  A
 * top-level reply completes the oldest pending request (FIFO, so pipelining
 * and MULTI/QUEUED/EXEC pair naturally); RESP3 push frames ('>') and, in
 * RESP2 subscribe mode, "message"/"pmessage"/"smessage" arrays are not
 * replies: they are counted (rs_pushes) and never paired.  A SUBSCRIBE-family
 * request is emitted on its first confirmation; the confirmations for its
 * further channels are swallowed.
 *
 * A replica's link stops being parsed once PSYNC/SYNC is answered: what
 * follows is an RDB payload and the master's command stream, and the
 * replica's REPLCONF ACKs get no reply.
 *
 * Errors ('-' simple error, '!' blob error) set op.error and op.status to
 * the error code word ("ERR", "WRONGTYPE", ...), only when that word is an
 * upper-case code; the message text never leaves.
 *
 * Loss (gap, bytes that cannot be framed, structure hidden in uncaptured
 * bytes): the request stream resyncs at a fragment that starts with '*' and
 * a digit; the first request after that is checked for causality (a reply
 * that started before it was sent is not its reply).  The response stream
 * keeps the requests pending at the loss as "uncertain": a reply that had
 * started is credited with every response fragment until a request sent
 * after the loss exists and a response fragment starts with a RESP type
 * byte; then the uncertain requests are emitted (the one whose reply had
 * started with response_seen = true, the others with response_seen = false)
 * and parsing restarts at that fragment.
 */
#include "features/network/l7/redis_state.h"

#include <string.h>

static const char *const r_subkind_names[RK__COUNT] = {
    [RK_SUBSCRIBE] = "subscribe",	[RK_PSUBSCRIBE] = "psubscribe",
    [RK_SSUBSCRIBE] = "ssubscribe",	[RK_UNSUBSCRIBE] = "unsubscribe",
    [RK_PUNSUBSCRIBE] = "punsubscribe", [RK_SUNSUBSCRIBE] = "sunsubscribe",
};

/* ---- small helpers -------------------------------------------------------- */

static char r_upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

static bool r_ieq(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b);

	if (an != bn)
		return false;
	for (size_t i = 0; i < an; i++)
		if (r_upper(a[i]) != r_upper(b[i]))
			return false;
	return true;
}

bool enav_redis_is_digit(uint8_t c)
{
	return c >= '0' && c <= '9';
}

bool enav_redis_is_type(uint8_t c)
{
	return c != 0 && strchr("+-:$*_,#!=(%~>|", c) != NULL;
}

/* Container commands whose second word is kept, with that word's own
 * allow-list (so a key or value in that position never becomes the name). */
static const struct {
	const char *cmd;
	const char *subs; /* space-separated, upper case */
} r_containers[] = {
    {"ACL", "CAT DELUSER DRYRUN GENPASS GETUSER LIST LOAD LOG SAVE SETUSER USERS WHOAMI HELP"},
    {"CLIENT", "CACHING GETNAME GETREDIR ID INFO KILL LIST NO-EVICT NO-TOUCH PAUSE REPLY "
	       "SETINFO SETNAME TRACKING TRACKINGINFO UNBLOCK UNPAUSE HELP"},
    {"CLUSTER", "ADDSLOTS ADDSLOTSRANGE BUMPEPOCH COUNT-FAILURE-REPORTS COUNTKEYSINSLOT "
		"DELSLOTS DELSLOTSRANGE FAILOVER FLUSHSLOTS FORGET GETKEYSINSLOT INFO KEYSLOT "
		"LINKS MEET MYID MYSHARDID NODES REPLICAS REPLICATE RESET SAVECONFIG "
		"SET-CONFIG-EPOCH SETSLOT SHARDS SLAVES SLOTS HELP"},
    {"COMMAND", "COUNT DOCS GETKEYS GETKEYSANDFLAGS INFO LIST HELP"},
    {"CONFIG", "GET SET RESETSTAT REWRITE HELP"},
    {"FUNCTION", "DELETE DUMP FLUSH KILL LIST LOAD RESTORE STATS HELP"},
    {"LATENCY", "DOCTOR GRAPH HISTOGRAM HISTORY LATEST RESET HELP"},
    {"MEMORY", "DOCTOR MALLOC-STATS PURGE STATS USAGE HELP"},
    {"MODULE", "LIST LOAD LOADEX UNLOAD HELP"},
    {"OBJECT", "ENCODING FREQ IDLETIME REFCOUNT HELP"},
    {"PUBSUB", "CHANNELS NUMPAT NUMSUB SHARDCHANNELS SHARDNUMSUB HELP"},
    {"SCRIPT", "DEBUG EXISTS FLUSH KILL LOAD HELP"},
    {"SLOWLOG", "GET LEN RESET HELP"},
    {"XGROUP", "CREATE CREATECONSUMER DELCONSUMER DESTROY SETID HELP"},
    {"XINFO", "CONSUMERS GROUPS STREAM HELP"},
};

/* The allowed subcommand matching sub[0..n), or NULL. */
static const char *r_subcommand(const char *cmd, size_t cn, const char *sub, size_t sn)
{
	for (size_t i = 0; i < sizeof(r_containers) / sizeof(r_containers[0]); i++) {
		if (!r_ieq(cmd, cn, r_containers[i].cmd))
			continue;
		const char *p = r_containers[i].subs;
		while (*p) {
			size_t w = strcspn(p, " ");
			bool same = w == sn;
			for (size_t k = 0; same && k < w; k++)
				same = r_upper(sub[k]) == p[k];
			if (same)
				return p;
			p += w;
			while (*p == ' ')
				p++;
		}
		return NULL;
	}
	return NULL;
}

uint8_t enav_redis_subkind_of(const char *s, size_t n)
{
	for (unsigned k = 1; k < RK__COUNT; k++)
		if (r_ieq(s, n, r_subkind_names[k]))
			return (uint8_t)k;
	return RK_NONE;
}

bool enav_redis_is_delivery(const char *s, size_t n)
{
	return r_ieq(s, n, "message") || r_ieq(s, n, "pmessage") || r_ieq(s, n, "smessage");
}

/* The error code word of an error message: the first word when it is an
 * upper-case code ("ERR", "WRONGTYPE", "NOAUTH"), otherwise "". */
void enav_redis_error_code(char *dst, const char *msg, size_t n, const struct enav_l7_sink *out)
{
	size_t w = 0;

	while (w < n && msg[w] != ' ')
		w++;
	bool code = w > 0;
	for (size_t i = 0; code && i < w; i++) {
		char c = msg[i];
		code = (c >= 'A' && c <= 'Z') || enav_redis_is_digit((uint8_t)c) || c == '_' ||
		       c == '-';
	}
	if (!code) {
		dst[0] = '\0';
		return;
	}
	if (enav_l7_copy_text(dst, ENAV_L7_STATUS_MAX, msg, w))
		out->stats->truncated_fields++;
}

/* ---- FIFO and emission ---------------------------------------------------- */

struct r_pend *enav_redis_head(struct redis_state *s)
{
	return s->q.count ? &s->fifo[s->q.head] : NULL;
}

void enav_redis_pop(struct redis_state *s)
{
	enav_l7_fifo_pop(&s->q);
}

void enav_redis_emit(const struct r_pend *p, bool seen, uint64_t end_ns, uint64_t resp_bytes,
		     bool error, const char *status, const struct enav_l7_sink *out)
{
	struct enav_l7_op op;

	memset(&op, 0, sizeof(op));
	op.protocol = ENAV_L7_REDIS;
	op.kind = ENAV_L7_OP_REQUEST;
	op.error = error;
	op.response_seen = seen;
	/* Only up to the NUL: what follows in the state is stale. */
	memcpy(op.operation, p->op, strnlen(p->op, sizeof(op.operation) - 1));
	if (status)
		memcpy(op.status, status, strnlen(status, sizeof(op.status) - 1));
	op.status_code = -1;
	enav_l7_emit_exchange(&op,
			      &(struct enav_l7_exchange){.start_ns = p->start_ns,
							 .end_ns = seen ? end_ns : 0,
							 .request_bytes = p->req_bytes,
							 .response_bytes = seen ? resp_bytes : 0,
							 .seq = p->seq,
							 .has_seq = p->has_seq},
			      out);
}

static void r_enqueue(struct redis_state *s, const struct enav_l7_sink *out)
{
	struct r_req *q = &s->rq;

	if (s->rs.phase == RS_LOST)
		s->rs.req_after_loss++;
	if (q->cmd_hidden) {
		/* Its name was not captured: keep its place, never emit it. */
		out->stats->truncated_fields++;
		s->tail_phantoms++;
		q->loss_mark = false;
		return;
	}
	long at = enav_l7_fifo_push(&s->q, 0, out);
	if (at < 0) {
		s->tail_phantoms++;
		q->loss_mark = false;
		return;
	}
	struct r_pend *p = &s->fifo[at];
	memset(p, 0, sizeof(*p));
	p->start_ns = q->start_ns;
	p->req_bytes = q->bytes;
	p->seq = q->seq;
	p->has_seq = q->has_seq;
	p->after_loss = q->loss_mark;
	q->loss_mark = false;
	p->phantoms_before = s->tail_phantoms;
	s->tail_phantoms = 0;

	/* Operation name: the command, upper-cased, plus an allowed subcommand. */
	char name[R_CMD_KEEP + 1 + R_SUB_KEEP];
	size_t nl = 0;
	for (size_t i = 0; i < q->cmd_len; i++)
		name[nl++] = r_upper(q->cmd[i]);
	const char *sub = NULL;
	if (!q->cmd_cut && !q->sub_cut && q->nargs >= 1)
		sub = r_subcommand(q->cmd, q->cmd_len, q->sub, q->sub_len);
	if (sub) {
		size_t w = strcspn(sub, " ");
		name[nl++] = ' ';
		memcpy(name + nl, sub, w);
		nl += w;
	}
	if (enav_l7_copy_text(p->op, sizeof(p->op), name, nl) || q->cmd_cut)
		out->stats->truncated_fields++;

	if (!q->cmd_cut) {
		if (r_ieq(q->cmd, q->cmd_len, "MONITOR"))
			p->special = RS_MONITOR;
		else if (r_ieq(q->cmd, q->cmd_len, "RESET"))
			p->special = RS_RESET;
		else if (r_ieq(q->cmd, q->cmd_len, "HELLO"))
			p->special = RS_HELLO;
		else if (r_ieq(q->cmd, q->cmd_len, "PSYNC") || r_ieq(q->cmd, q->cmd_len, "SYNC"))
			p->special = RS_SYNC;
		p->subkind = enav_redis_subkind_of(q->cmd, q->cmd_len);
	}
	p->expect = q->nargs > UINT32_MAX ? UINT32_MAX : (uint32_t)q->nargs;
}

/* ---- request stream ------------------------------------------------------- */

static void rq_begin(struct r_req *q, const struct enav_l7_fragment *f, uint32_t off)
{
	q->in_msg = true;
	q->bytes = 0;
	q->start_ns = f->ts_ns;
	q->has_seq = f->has_seq;
	q->seq = f->seq + off;
	q->elem_idx = 0;
	q->elems_left = 0;
	q->nargs = 0;
	q->cmd_len = q->sub_len = 0;
	q->cmd_cut = q->sub_cut = false;
	q->cmd_hidden = false;
	q->line_len = 0;
	q->words = 0;
	q->in_word = false;
}

static void rq_lose(struct redis_state *s, bool parse_error, const struct enav_l7_sink *out)
{
	struct r_req *q = &s->rq;

	if (parse_error)
		out->stats->parse_errors++;
	out->stats->resyncs++;
	q->phase = RQ_LOST;
	q->in_msg = false;
	q->loss_mark = true;
}

/* A fragment that starts a RESP request: '*' then a digit (or '-'). */
static bool rq_starts_request(const uint8_t *d, uint32_t n)
{
	return n >= 1 && d[0] == '*' && (n == 1 || enav_redis_is_digit(d[1]) || d[1] == '-');
}

static void rq_finish(struct redis_state *s, const struct enav_l7_sink *out)
{
	struct r_req *q = &s->rq;

	q->known = true;
	q->in_msg = false;
	q->phase = RQ_START;
	r_enqueue(s, out);
}

static void rq_elem_done(struct redis_state *s, const struct enav_l7_sink *out)
{
	struct r_req *q = &s->rq;

	q->elem_idx++;
	if (--q->elems_left == 0)
		rq_finish(s, out);
	else
		q->phase = RQ_ELEM;
}

static void rq_keep(struct r_req *q, const uint8_t *p, size_t k)
{
	if (q->elem_idx == 0) {
		size_t room = R_CMD_KEEP - q->cmd_len;
		size_t c = k < room ? k : room;
		memcpy(q->cmd + q->cmd_len, p, c);
		q->cmd_len = (uint8_t)(q->cmd_len + c);
		if (c < k)
			q->cmd_cut = true;
	} else if (q->elem_idx == 1) {
		size_t room = R_SUB_KEEP - q->sub_len;
		size_t c = k < room ? k : room;
		memcpy(q->sub + q->sub_len, p, c);
		q->sub_len = (uint8_t)(q->sub_len + c);
		if (c < k)
			q->sub_cut = true;
	}
}

/* One inline byte (not the terminating '\n'). */
static void rq_inline_byte(struct r_req *q, uint8_t c)
{
	if (c == ' ' || c == '\t' || c == '\r') {
		q->in_word = false;
		return;
	}
	if (!q->in_word) {
		q->in_word = true;
		q->words++;
		q->elem_idx = q->words - 1;
	}
	rq_keep(q, &c, 1);
}

static void rq_feed(struct redis_state *s, const struct enav_l7_fragment *f,
		    const struct enav_l7_sink *out)
{
	struct r_req *q = &s->rq;
	const uint8_t *d = f->data;
	uint32_t n = f->captured;
	uint32_t i = 0;

	if (f->gap && q->phase != RQ_LOST)
		rq_lose(s, false, out);
	if (q->phase == RQ_LOST) {
		if (!rq_starts_request(d, n))
			return;
		q->phase = RQ_START;
	}

	while (i < n) {
		uint8_t c = d[i];

		if (q->phase == RQ_BODY) {
			uint64_t k = n - i;
			if (k > q->body_left)
				k = q->body_left;
			rq_keep(q, d + i, (size_t)k);
			q->body_left -= k;
			q->bytes += k;
			i += (uint32_t)k;
			if (q->body_left == 0)
				q->phase = RQ_BODY_CR;
			continue;
		}
		if (q->phase == RQ_START) {
			if (c == '*') {
				rq_begin(q, f, i);
				q->phase = RQ_ARRLEN;
				q->len_of = '*';
				q->neg = false;
				q->ndigits = 0;
				q->num = 0;
			} else if (q->known && (c == '\r' || c == '\n')) {
				/* an empty inline line: Redis ignores it */
			} else if (q->known && c >= 0x20 && c < 0x7f) {
				rq_begin(q, f, i);
				q->phase = RQ_INLINE;
				rq_inline_byte(q, c);
				q->line_len = 1;
			} else {
				rq_lose(s, true, out);
				return;
			}
			if (q->in_msg)
				q->bytes++;
			i++;
			continue;
		}
		q->bytes++;
		i++;
		switch (q->phase) {
		case RQ_ARRLEN:
		case RQ_BULKLEN:
			if (enav_redis_is_digit(c) && q->ndigits < R_NUM_DIGITS) {
				q->num = q->num * 10 + (c - '0');
				q->ndigits++;
			} else if (c == '-' && q->ndigits == 0 && !q->neg) {
				q->neg = true;
			} else if (c == '\r' && q->ndigits > 0) {
				q->phase = RQ_LEN_LF;
			} else {
				rq_lose(s, true, out);
				return;
			}
			break;
		case RQ_LEN_LF:
			if (c != '\n') {
				rq_lose(s, true, out);
				return;
			}
			if (q->len_of == '*') {
				if (q->neg || q->num == 0) {
					/* "*0" / "*-1": Redis runs nothing, replies nothing */
					q->in_msg = false;
					q->phase = RQ_START;
					break;
				}
				if (q->num > INT32_MAX) {
					rq_lose(s, true, out);
					return;
				}
				q->elems_left = q->num;
				q->nargs = q->num - 1;
				q->phase = RQ_ELEM;
			} else {
				if (q->neg || q->num > R_MAX_LEN) {
					rq_lose(s, true, out);
					return;
				}
				q->body_left = q->num;
				q->phase = q->num ? RQ_BODY : RQ_BODY_CR;
			}
			break;
		case RQ_ELEM:
			if (c != '$') {
				rq_lose(s, true, out);
				return;
			}
			q->phase = RQ_BULKLEN;
			q->len_of = '$';
			q->neg = false;
			q->ndigits = 0;
			q->num = 0;
			break;
		case RQ_BODY_CR:
			if (c != '\r') {
				rq_lose(s, true, out);
				return;
			}
			q->phase = RQ_BODY_LF;
			break;
		case RQ_BODY_LF:
			if (c != '\n') {
				rq_lose(s, true, out);
				return;
			}
			rq_elem_done(s, out);
			break;
		case RQ_INLINE:
			if (c == '\n') {
				q->nargs = q->words ? q->words - 1 : 0;
				q->elem_idx = 0;
				if (q->words)
					rq_finish(s, out);
				else {
					q->in_msg = false;
					q->phase = RQ_START;
				}
				break;
			}
			if (++q->line_len > R_LINE_MAX || c == 0) {
				rq_lose(s, true, out);
				return;
			}
			rq_inline_byte(q, c);
			break;
		default:
			rq_lose(s, true, out);
			return;
		}
	}

	/* Bytes the syscall moved but the capture did not copy. */
	uint64_t hidden = f->len > f->captured ? f->len - f->captured : 0;
	if (hidden == 0)
		return;
	if (q->phase >= RQ_BODY && q->phase <= RQ_BODY_LF) {
		if (q->phase == RQ_BODY && q->body_left) {
			if (q->elem_idx == 0)
				q->cmd_hidden = true;
			else if (q->elem_idx == 1)
				q->sub_cut = true;
		}
		bool ended;
		uint64_t k =
		    enav_l7_crlf_body_skip(&q->phase, &q->body_left, RQ_BODY, hidden, &ended);

		q->bytes += k;
		hidden -= k;
		if (ended)
			rq_elem_done(s, out);
		if (hidden == 0)
			return;
	}
	/* Message boundaries hidden in the uncaptured bytes.  The request in
	 * progress most likely ends there (a client writes whole commands): it
	 * is queued (its name known, or else as a nameless placeholder that only
	 * keeps the pairing), then later fragments are skipped until one starts
	 * a request. */
	if (q->in_msg) {
		bool named = q->phase == RQ_INLINE ? q->words >= 2 || (q->words == 1 && !q->in_word)
						   : q->elem_idx >= 1;
		if (!named)
			q->cmd_hidden = true;
		if (q->elem_idx <= 1)
			q->sub_cut = true;
		if (q->phase == RQ_INLINE)
			q->nargs = q->words ? q->words - 1 : 0;
		q->bytes += hidden;
		rq_finish(s, out);
	}
	rq_lose(s, false, out);
}

/* ---- parser ops ----------------------------------------------------------- */

static bool redis_detect(const uint8_t *d, size_t n, enum enav_l7_stream stream)
{
	if (stream == ENAV_L7_REQUEST)
		return n >= 2 && d[0] == '*' && enav_redis_is_digit(d[1]);

	/* Response: one complete, well-formed first line. */
	if (n < 3 || !enav_redis_is_type(d[0]))
		return false;
	size_t e = 1;
	while (e < n && d[e] != '\r' && d[e] != '\n')
		e++;
	if (e + 1 >= n || d[e] != '\r' || d[e + 1] != '\n')
		return false;
	const uint8_t *l = d + 1;
	size_t ln = e - 1;
	switch (d[0]) {
	case '+':
	case '-':
		for (size_t k = 0; k < ln; k++)
			if (l[k] < 0x20 || l[k] >= 0x7f)
				return false;
		return ln > 0;
	case '_':
		return ln == 0;
	case '#':
		return ln == 1 && (l[0] == 't' || l[0] == 'f');
	case ',':
		for (size_t k = 0; k < ln; k++)
			if (l[k] <= 0x20 || l[k] >= 0x7f)
				return false;
		return ln > 0;
	default: {
		size_t k = 0;
		if (ln > 0 && l[0] == '-' &&
		    (d[0] == ':' || d[0] == '(' || d[0] == '$' || d[0] == '*'))
			k = 1;
		if (ln == 1 && l[0] == '?')
			return d[0] == '$' || d[0] == '*' || d[0] == '%' || d[0] == '~';
		if (k == ln || ln - k > 20)
			return false;
		for (; k < ln; k++)
			if (!enav_redis_is_digit(l[k]))
				return false;
		return true;
	}
	}
}

static int redis_init(void *state, const struct enav_l7_options *opt)
{
	struct redis_state *s = state;

	enav_l7_fifo_init(&s->q, enav_l7_max_pending(opt));
	s->rq.phase = RQ_START;
	s->rs.phase = RS_TYPE;
	return 0;
}

static void redis_feed(void *state, const struct enav_l7_fragment *f,
		       const struct enav_l7_sink *out)
{
	struct redis_state *s = state;

	if (f->captured > f->len || s->replication)
		return; /* a malformed fragment, or a replication link */
	if (f->stream == ENAV_L7_REQUEST)
		rq_feed(s, f, out);
	else
		enav_redis_reply_feed(s, f, out);
}

static void redis_finish(void *state, const struct enav_l7_sink *out)
{
	struct redis_state *s = state;

	if (s->rs.phase == RS_LOST)
		enav_redis_reply_resolve(s, out);
	while (s->q.count) {
		enav_redis_emit(enav_redis_head(s), false, 0, 0, false, NULL, out);
		enav_redis_pop(s);
	}
	memset(s, 0, sizeof(*s));
}

ENAV_L7_PARSER(redis, struct redis_state, redis_detect, redis_init, redis_feed, redis_finish);
