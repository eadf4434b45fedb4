/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/l7/l7_conn.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "platform/clock.h"
#include "platform/hash.h"
#include "platform/u64map.h"

#define NO_INDEX UINT32_MAX

struct conn {
	uint64_t sock_id;
	const struct enav_l7_parser_ops *parser;
	void *state;
	uint8_t role; /* enum enav_tcp_role, resolved */
	bool dead;    /* role unresolvable or parser init failed: ignore its bytes */
	bool inited;  /* init succeeded: finish releases what it holds */
	bool have_seq[2];
	uint32_t next_seq[2];
	uint8_t tls_library; /* enum enav_tls_library; NONE: bytes from the socket */
	bool tls_absolute;   /* TLS offsets both ends agree on (ENAV_L7_TLS_FROM_START) */
	/* A record ended a request a profile sample named: the next span names
	 * the sample (ENAV_L7_LINK_SAMPLED). */
	bool link_sampled;
	uint64_t last_boot_ns;
	uint32_t prev, next; /* LRU list, most recent at head */
	/* The latest task to move bytes, the connection's tuple. */
	uint32_t pid, tid;
	uint64_t cgroup_id;
	char comm[ENAV_COMM_LEN + 1];
	uint16_t family, sport, dport;
	uint8_t saddr[16], daddr[16];
};

struct emit_ctx {
	struct enav_l7_tracker *t;
	struct conn *c;
	struct enav_signal *pending; /* op_slot's signal, until on_op takes it */
};

struct enav_l7_tracker {
	struct enav_l7_tracker_config cfg;
	enav_l7_emit_fn emit;
	void *emit_ctx;
	struct enav_u64map index; /* sock_id -> slot */
	struct conn *conns;
	uint32_t n_used;
	uint32_t free_head; /* free slots chained through next */
	uint32_t lru_head, lru_tail;
	/* Self-accounting, read by the metrics thread. */
	struct enav_l7_parser_stats stats[ENAV_L7__COUNT];
	uint64_t fragments[ENAV_L7__COUNT];
	uint64_t gaps, evicted, expired, role_unknown, disabled, no_parser, alloc_failed, spans;
	uint64_t spans_unallocated;
	uint64_t spans_linked; /* put into the span links for a sample */
	uint64_t tls_switches;
};

/* Ids must come out the same on every node that sees either end, so they
 * are a function of the exchange alone, and nothing in them is secret (the
 * seeds are in this file).  What they need is to be distinct: two 64-bit
 * chains (different seeds, different word order) give the 128 bits a trace
 * id spans, where one chain would give trace ids a 64-bit birthday bound.
 * Each chain step is a bijection of the state xor the next word: about 60
 * instructions for all of a span's ids (SipHash-2-4 cost 900 here). */
#define IDS_SEED_A 0x656e61762d6c3731ull
#define IDS_SEED_B 0x7370616e2d696473ull
#define IDS_GOLDEN 0x9e3779b97f4a7c15ull

struct id_state {
	uint64_t a, b;
};

static uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static struct id_state id_state_of(const uint64_t w[6])
{
	struct id_state s = {IDS_SEED_A, IDS_SEED_B};
	for (int i = 0; i < 6; i++) {
		s.a = enav_hash_u64(s.a ^ w[i]);
		s.b = enav_hash_u64(s.b + (w[5 - i] ^ (uint64_t)(i + 1) * IDS_GOLDEN));
	}
	return s;
}

/* The id of one tag (0, 1: the trace id's halves; 2, 3: span ids). */
static uint64_t id_of(const struct id_state *s, uint8_t tag)
{
	return enav_hash_u64(s->a ^ enav_hash_u64(s->b + (uint64_t)(tag + 1) * IDS_GOLDEN));
}

static bool is_loopback(uint16_t family, const uint8_t *a)
{
	static const uint8_t v6_loop[16] = {[15] = 1};
	if (family == 4)
		return a[0] == 127;
	return memcmp(a, v6_loop, 16) == 0;
}

void enav_l7_span_ids(struct enav_span_signal *span, const struct enav_net_signal *net,
		      bool client_local)
{
	const struct enav_l7_op *op = &span->op;
	bool server = net->role == ENAV_ROLE_SERVER;
	memset(span->parent_span_id, 0, sizeof(span->parent_span_id));
	if (op->has_request_seq) {
		/* (client addr, client port, server addr, server port, seq, stream) */
		const uint8_t *caddr = server ? net->remote_addr : net->local_addr;
		const uint8_t *saddr = server ? net->local_addr : net->remote_addr;
		uint16_t cport = server ? net->remote_port : net->local_port;
		uint16_t sport = server ? net->local_port : net->remote_port;
		const uint64_t w[6] = {
		    load64(caddr),
		    load64(caddr + 8),
		    load64(saddr),
		    load64(saddr + 8),
		    (uint64_t)cport | (uint64_t)sport << 16 | (uint64_t)op->request_seq << 32,
		    op->stream_id,
		};
		struct id_state ids = id_state_of(w);
		uint64_t h;
		bool parent = server && client_local && !op->has_traceparent;

		/* Only the ids this span uses: the client's span id is tag 2; the
		 * server's is tag 3, its parent (a local client) tag 2. */
		for (uint8_t tag = 0; tag < 2; tag++) {
			h = id_of(&ids, tag);
			memcpy(span->trace_id + 8 * tag, &h, 8);
		}
		h = id_of(&ids, server ? 3 : 2);
		memcpy(span->span_id, &h, 8);
		if (parent) {
			h = id_of(&ids, 2);
			memcpy(span->parent_span_id, &h, 8);
		}
		span->id_source = "connection";
	} else {
		if (getrandom(span->trace_id, sizeof(span->trace_id), 0) !=
			(ssize_t)sizeof(span->trace_id) ||
		    getrandom(span->span_id, sizeof(span->span_id), 0) !=
			(ssize_t)sizeof(span->span_id))
			span->trace_id[0] ^= 1; /* never all zero below */
		span->id_source = "random";
	}
	if (op->has_traceparent) {
		memcpy(span->trace_id, op->trace_id, 16);
		memcpy(span->parent_span_id, op->parent_id, 8);
		span->id_source = "traceparent";
	}
	/* All-zero ids are invalid in W3C and OTLP. */
	static const uint8_t zero[16];
	if (!memcmp(span->trace_id, zero, 16))
		span->trace_id[15] = 1;
	if (!memcmp(span->span_id, zero, 8))
		span->span_id[7] = 1;
}

/* ---- LRU ----------------------------------------------------------------- */

static void lru_unlink(struct enav_l7_tracker *t, uint32_t i)
{
	struct conn *c = &t->conns[i];
	if (c->prev != NO_INDEX)
		t->conns[c->prev].next = c->next;
	else
		t->lru_head = c->next;
	if (c->next != NO_INDEX)
		t->conns[c->next].prev = c->prev;
	else
		t->lru_tail = c->prev;
	c->prev = c->next = NO_INDEX;
}

static void lru_push_front(struct enav_l7_tracker *t, uint32_t i)
{
	struct conn *c = &t->conns[i];
	c->prev = NO_INDEX;
	c->next = t->lru_head;
	if (t->lru_head != NO_INDEX)
		t->conns[t->lru_head].prev = i;
	t->lru_head = i;
	if (t->lru_tail == NO_INDEX)
		t->lru_tail = i;
}

/* ---- spans --------------------------------------------------------------- */

static void fill_net(struct enav_net_signal *n, const struct conn *c)
{
	n->family = c->family == 10 ? 6 : 4;
	n->local_port = c->sport;
	n->remote_port = c->dport;
	memcpy(n->local_addr, c->saddr, 16);
	memcpy(n->remote_addr, c->daddr, 16);
	n->role = c->role;
}

/* The span signal allocated ahead, for a parser to write its op into in
 * place (enav_l7_sink.op_slot): the op is most of a span signal's bytes. */
static struct enav_l7_op *op_slot(void *ctx)
{
	struct emit_ctx *ec = ctx;
	if (!ec->pending)
		ec->pending = enav_signal_new(ENAV_SIGNAL_SPAN, 0);
	return ec->pending ? &ec->pending->span.op : NULL;
}

/* A slot handed out and never filled (a parser that asked, then did not
 * emit) goes back. */
static void drop_pending(struct emit_ctx *ec)
{
	if (ec->pending) {
		enav_signal_unref(ec->pending);
		ec->pending = NULL;
	}
}

/* The span of a request a sample named: keyed as the kernel keyed the
 * request, (socket, TCP sequence of its first byte), for the profile drain
 * to name the sample with.  Plaintext from the socket only: TLS offsets are
 * not the kernel's sequence numbers. */
static void link_span(struct enav_l7_tracker *t, struct conn *c, struct enav_span_signal *span)
{
	if (!c->link_sampled)
		return;
	c->link_sampled = false;
	if (!t->cfg.links || !span->op.has_request_seq || c->tls_library != ENAV_TLS_LIB_NONE)
		return;
	enav_span_links_put(t->cfg.links, c->sock_id, span->op.request_seq, span->trace_id,
			    span->span_id);
	span->op.profile_linked = true;
	t->spans_linked++;
}

static void on_op(void *ctx, const struct enav_l7_op *op)
{
	struct emit_ctx *ec = ctx;
	struct enav_l7_tracker *t = ec->t;
	struct conn *c = ec->c;
	struct enav_signal *s;
	if (ec->pending && op == &ec->pending->span.op) {
		s = ec->pending; /* built in place: nothing to copy */
		ec->pending = NULL;
	} else {
		s = enav_signal_new(ENAV_SIGNAL_SPAN, 0);
		if (!s) {
			t->spans_unallocated++;
			return;
		}
		s->span.op = *op;
	}
	struct enav_span_signal *span = &s->span;
	span->tls_library = enav_tls_library_name(c->tls_library);
	/* TLS offsets from mid-session are this end's own count: no id from them. */
	if (c->tls_library != ENAV_TLS_LIB_NONE && !c->tls_absolute)
		span->op.has_request_seq = false;
	span->start_time_unix_ns = enav_clock_boot_to_unix_ns(op->start_ns);
	span->end_time_unix_ns = enav_clock_boot_to_unix_ns(op->end_ns);
	s->time_unix_ns = span->end_time_unix_ns;
	/* HTTP: a 4xx is the client's error, not the server's (OpenTelemetry). */
	if ((op->protocol == ENAV_L7_HTTP1 || op->protocol == ENAV_L7_HTTP2) && !op->rpc &&
	    c->role == ENAV_ROLE_CLIENT && op->status_code >= 400)
		span->op.error = true;
	struct enav_process_signal *p = &s->process;
	p->pid = c->pid;
	p->tid = c->tid;
	p->cgroup_id = c->cgroup_id;
	memcpy(p->comm, c->comm, sizeof(p->comm));
	fill_net(&s->net, c);
	bool client_local = is_loopback(s->net.family, s->net.remote_addr) ||
			    memcmp(s->net.remote_addr, s->net.local_addr, 16) == 0;
	enav_l7_span_ids(span, &s->net, client_local);
	link_span(t, c, span);
	if (!op->response_seen && op->kind == ENAV_L7_OP_REQUEST)
		enav_signal_warn(s, "status", "response_not_observed");
	t->spans++;
	t->emit(t->emit_ctx, s);
}

static void finish_conn(struct enav_l7_tracker *t, uint32_t i)
{
	struct conn *c = &t->conns[i];
	if (c->inited) {
		struct emit_ctx ec = {t, c, NULL};
		struct enav_l7_sink sink = {on_op, &ec, &t->stats[c->parser->protocol], op_slot};
		c->parser->finish(c->state, &sink);
		drop_pending(&ec);
	}
	free(c->state);
	c->state = NULL;
	enav_u64map_del(&t->index, c->sock_id);
	lru_unlink(t, i);
	c->next = t->free_head;
	t->free_head = i;
	t->n_used--;
}

struct enav_l7_tracker *enav_l7_tracker_new(const struct enav_l7_tracker_config *cfg,
					    enav_l7_emit_fn emit, void *ctx)
{
	struct enav_l7_tracker *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cfg = *cfg;
	t->cfg.options.max_pending = enav_l7_max_pending(&cfg->options);
	t->emit = emit;
	t->emit_ctx = ctx;
	t->conns = calloc(cfg->max_connections, sizeof(*t->conns));
	if (!t->conns || enav_u64map_init(&t->index, cfg->max_connections)) {
		free(t->conns);
		free(t);
		return NULL;
	}
	for (uint32_t i = 0; i < cfg->max_connections; i++)
		t->conns[i].next = i + 1 < cfg->max_connections ? i + 1 : NO_INDEX;
	t->free_head = 0;
	t->lru_head = t->lru_tail = NO_INDEX;
	return t;
}

void enav_l7_tracker_free(struct enav_l7_tracker *t)
{
	if (!t)
		return;
	while (t->lru_head != NO_INDEX)
		finish_conn(t, t->lru_head);
	enav_u64map_destroy(&t->index);
	free(t->conns);
	free(t);
}

/* The stream a fragment is on, or -1 while the role cannot be told. */
static int stream_of(const struct conn *c, bool sent)
{
	if (c->role == ENAV_ROLE_UNKNOWN)
		return -1;
	return (c->role == ENAV_ROLE_CLIENT) == sent ? ENAV_L7_REQUEST : ENAV_L7_RESPONSE;
}

/* Feed [from, to) of the call: captured bytes where there are any. */
static void feed_part(struct conn *c, const struct enav_l7_fragment *whole, const uint8_t *data,
		      uint32_t from, uint32_t to, bool captured, bool *first,
		      const struct enav_l7_sink *sink)
{
	if (to <= from)
		return;
	struct enav_l7_fragment f = *whole;
	f.data = data;
	f.len = to - from;
	f.captured = captured ? to - from : 0;
	f.seq = whole->seq + from;
	f.gap = whole->gap && *first;
	*first = false;
	c->parser->feed(c->state, &f, sink);
}

/* A call whose uncaptured part hides frame headers the kernel marked: split
 * it so the parser sees every header and skips only what lies between. */
static void feed_with_marks(struct conn *c, const struct enav_l7_fragment *f,
			    const uint8_t *raw_marks, uint16_t n_marks,
			    const struct enav_l7_sink *sink)
{
	static const uint8_t none[1];
	bool first = true;
	uint32_t pos = f->captured;
	feed_part(c, f, f->data, 0, pos, true, &first, sink);
	for (uint16_t i = 0; i < n_marks; i++) {
		struct enav_l7_mark m;
		memcpy(&m, raw_marks + (size_t)i * sizeof(m), sizeof(m));
		uint32_t avail = m.avail <= 9 ? m.avail : 9;
		if (m.offset > f->len || avail > f->len - m.offset)
			break; /* malformed: leave the rest uncaptured */
		uint32_t end = m.offset + avail;
		if (end <= pos)
			continue;
		if (m.offset > pos)
			feed_part(c, f, none, pos, m.offset, false, &first, sink);
		uint32_t from = m.offset > pos ? m.offset : pos;
		feed_part(c, f, m.hdr + (from - m.offset), from, end, true, &first, sink);
		pos = end;
	}
	feed_part(c, f, none, pos, f->len, false, &first, sink);
}

static struct conn *open_conn(struct enav_l7_tracker *t, const struct enav_l7_event *e,
			      const uint8_t *payload)
{
	enum enav_l7_protocol proto = e->protocol;
	const struct enav_l7_parser_ops *parser = enav_l7_parser(proto);
	if (!parser) {
		t->no_parser++;
		return NULL;
	}
	if (!(t->cfg.protocols & (1u << proto))) {
		t->disabled++;
		return NULL;
	}
	if (t->free_head == NO_INDEX) { /* full: the least recently used goes */
		finish_conn(t, t->lru_tail);
		t->evicted++;
	}
	uint32_t i = t->free_head;
	struct conn *c = &t->conns[i];
	t->free_head = c->next;
	memset(c, 0, sizeof(*c));
	c->sock_id = e->sock_id;
	c->parser = parser;
	c->role = e->role;
	bool sent = e->direction == ENAV_L7_SENT;
	if (c->role == ENAV_ROLE_UNKNOWN) {
		/* Predates attachment: the first bytes tell who asked. */
		if (parser->detect(payload, e->captured, ENAV_L7_REQUEST))
			c->role = sent ? ENAV_ROLE_CLIENT : ENAV_ROLE_SERVER;
		else if (parser->detect(payload, e->captured, ENAV_L7_RESPONSE))
			c->role = sent ? ENAV_ROLE_SERVER : ENAV_ROLE_CLIENT;
		else {
			t->role_unknown++;
			c->dead = true;
		}
	}
	if (!c->dead) {
		c->state = calloc(1, parser->state_size);
		if (c->state && parser->init(c->state, &t->cfg.options) == 0) {
			c->inited = true;
		} else {
			t->alloc_failed++;
			c->dead = true;
		}
	}
	c->prev = c->next = NO_INDEX;
	lru_push_front(t, i);
	t->n_used++;
	/* Cannot fail: a slot was free, and the index holds max_connections. */
	enav_u64map_put(&t->index, e->sock_id, i);
	return c;
}

void enav_l7_tracker_data(struct enav_l7_tracker *t, const struct enav_l7_event *e,
			  const uint8_t *payload)
{
	uint64_t slot;
	struct conn *c;
	bool tls = (e->flags & ENAV_L7_TLS) != 0;
	/* One index lookup per record: it is most of the tracker's own cost. */
	bool known = enav_u64map_get(&t->index, e->sock_id, &slot);
	if (known && (t->conns[slot].tls_library != ENAV_TLS_LIB_NONE) != tls) {
		/* The connection went encrypted (PostgreSQL's SSLRequest, a
		 * STARTTLS): its plaintext is a new stream in another sequence
		 * space, not a gap in the old one. */
		finish_conn(t, (uint32_t)slot);
		t->tls_switches++;
		c = open_conn(t, e, payload);
		if (!c)
			return;
	} else if (known) {
		c = &t->conns[slot];
		/* A keep-alive exchange is several records in a row on one
		 * connection: the most recent one is already at the front. */
		if (t->lru_head != (uint32_t)slot) {
			lru_unlink(t, (uint32_t)slot);
			lru_push_front(t, (uint32_t)slot);
		}
	} else {
		c = open_conn(t, e, payload);
		if (!c)
			return;
	}
	c->last_boot_ns = e->hdr.boot_time_ns;
	c->pid = e->hdr.pid;
	c->tid = e->hdr.tid;
	c->cgroup_id = e->hdr.cgroup_id;
	size_t n = strnlen(e->comm, sizeof(e->comm)); /* 15 bytes: not NUL-terminated */
	memcpy(c->comm, e->comm, n);
	c->comm[n] = '\0';
	c->family = e->family;
	c->sport = e->sport;
	c->dport = e->dport;
	memcpy(c->saddr, e->saddr, 16);
	memcpy(c->daddr, e->daddr, 16);
	c->tls_library = e->flags & ENAV_L7_TLS ? e->tls_library : ENAV_TLS_LIB_NONE;
	c->tls_absolute = (e->flags & ENAV_L7_TLS_FROM_START) != 0;
	if (c->dead)
		return;
	int stream = stream_of(c, e->direction == ENAV_L7_SENT);
	if (stream < 0)
		return;
	struct enav_l7_fragment f = {
	    .stream = (enum enav_l7_stream)stream,
	    .data = payload,
	    .captured = e->captured,
	    .len = e->len,
	    .ts_ns = e->hdr.boot_time_ns,
	    .has_seq = (e->flags & ENAV_L7_SEQ_VALID) != 0,
	    .seq = e->seq,
	};
	if (f.has_seq) {
		if (c->have_seq[stream] && c->next_seq[stream] != e->seq) {
			f.gap = true;
			t->gaps++;
		}
		c->have_seq[stream] = true;
		c->next_seq[stream] = e->seq + e->len;
	}
	t->fragments[c->parser->protocol]++;
	if (e->flags & ENAV_L7_LINK_SAMPLED)
		c->link_sampled = true;
	struct emit_ctx ec = {t, c, NULL};
	struct enav_l7_sink sink = {on_op, &ec, &t->stats[c->parser->protocol], op_slot};
	if (e->n_marks == 0)
		c->parser->feed(c->state, &f, &sink);
	else
		feed_with_marks(c, &f, payload + e->captured, e->n_marks, &sink);
	drop_pending(&ec);
}

void enav_l7_tracker_close(struct enav_l7_tracker *t, uint64_t sock_id)
{
	uint64_t slot;
	if (enav_u64map_get(&t->index, sock_id, &slot))
		finish_conn(t, (uint32_t)slot);
}

void enav_l7_tracker_expire(struct enav_l7_tracker *t, uint64_t now_boot_ns)
{
	uint64_t idle = (uint64_t)t->cfg.idle_timeout_ms * 1000000ull;
	while (t->lru_tail != NO_INDEX) {
		struct conn *c = &t->conns[t->lru_tail];
		if (now_boot_ns < c->last_boot_ns || now_boot_ns - c->last_boot_ns <= idle)
			break;
		finish_conn(t, t->lru_tail);
		t->expired++;
	}
}

static uint64_t rd(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

void enav_l7_tracker_metrics(struct enav_l7_tracker *t, struct enav_promtext *p)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} per_proto[] = {
	    {"enav_l7_operations_total", "Operations the protocol parsers completed.",
	     offsetof(struct enav_l7_parser_stats, ops)},
	    {"enav_l7_parse_errors_total",
	     "Captured bytes a parser could not frame (then resynced).",
	     offsetof(struct enav_l7_parser_stats, parse_errors)},
	    {"enav_l7_resyncs_total", "Gaps and parse errors a parser recovered from.",
	     offsetof(struct enav_l7_parser_stats, resyncs)},
	    {"enav_l7_pending_overflow_total",
	     "Requests dropped because a connection's pending queue was full.",
	     offsetof(struct enav_l7_parser_stats, pending_overflow)},
	    {"enav_l7_unmatched_responses_total", "Responses with no request seen.",
	     offsetof(struct enav_l7_parser_stats, unmatched_responses)},
	    {"enav_l7_truncated_fields_total", "Span fields cut to their cap.",
	     offsetof(struct enav_l7_parser_stats, truncated_fields)},
	};
	for (size_t k = 0; k < sizeof(per_proto) / sizeof(per_proto[0]); k++) {
		enav_promtext_family(p, per_proto[k].name, "counter", per_proto[k].help);
		for (unsigned i = 0; i < ENAV_L7__COUNT; i++) {
			if (!enav_l7_parser(i))
				continue;
			const char *l[] = {"protocol", enav_l7_protocol_name(i)};
			const uint64_t *v =
			    (const uint64_t *)((const char *)&t->stats[i] + per_proto[k].off);
			enav_promtext_sample_u64(p, per_proto[k].name, l, 1, rd(v));
		}
	}
	enav_promtext_family(p, "enav_l7_fragments_total", "counter",
			     "Payload fragments fed to the parsers, by protocol.");
	for (unsigned i = 0; i < ENAV_L7__COUNT; i++) {
		if (!enav_l7_parser(i))
			continue;
		const char *l[] = {"protocol", enav_l7_protocol_name(i)};
		enav_promtext_sample_u64(p, "enav_l7_fragments_total", l, 1, rd(&t->fragments[i]));
	}
	enav_promtext_single_u64(p, "enav_l7_connections", "gauge",
				 "Connections the application-protocol tracker holds.",
				 __atomic_load_n(&t->n_used, __ATOMIC_RELAXED));
	enav_promtext_family(p, "enav_l7_connections_dropped_total", "counter",
			     "Connections the tracker let go of or never took, by reason.");
	const struct {
		const char *reason;
		const uint64_t *v;
	} drops[] = {
	    {"evicted_lru", &t->evicted},	{"idle_timeout", &t->expired},
	    {"role_unknown", &t->role_unknown}, {"protocol_disabled", &t->disabled},
	    {"no_parser", &t->no_parser},	{"allocation_failed", &t->alloc_failed},
	};
	for (size_t k = 0; k < sizeof(drops) / sizeof(drops[0]); k++) {
		const char *l[] = {"reason", drops[k].reason};
		enav_promtext_sample_u64(p, "enav_l7_connections_dropped_total", l, 1,
					 rd(drops[k].v));
	}
	enav_promtext_single_u64(p, "enav_l7_stream_gaps_total", "counter",
				 "Fragments whose TCP sequence showed bytes missing before them.",
				 rd(&t->gaps));
	enav_promtext_single_u64(p, "enav_l7_spans_total", "counter",
				 "Span signals the tracker emitted.", rd(&t->spans));
	enav_promtext_single_u64(p, "enav_l7_tls_switches_total", "counter",
				 "Connections whose bytes went on as TLS plaintext after a "
				 "plaintext start (PostgreSQL SSLRequest, STARTTLS).",
				 rd(&t->tls_switches));
	enav_promtext_single_u64(p, "enav_l7_spans_unallocated_total", "counter",
				 "Spans lost because a signal could not be allocated.",
				 rd(&t->spans_unallocated));
	enav_promtext_single_u64(p, "enav_l7_spans_linked_total", "counter",
				 "Spans of requests a profile sample named, kept for the profile "
				 "drain to name the sample with (profiling.links).",
				 rd(&t->spans_linked));
}
