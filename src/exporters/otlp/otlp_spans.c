/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Span and TCP signals straight into an ExportTraceServiceRequest (see
 * otlp_spans.h).  Field numbers are those of trace.proto, common.proto and
 * resource.proto (tests/otlp/proto/); the unit test decodes every body with
 * protoc.
 *
 * Why it looks the way it does (issue 32: at most 0.5 us per span from the
 * ring to the request body):
 *  - Written backward (enav_pb_rev): each message's length is known when
 *    its prefix is written, so there is neither a size pass nor a payload
 *    moved, at any depth.
 *  - Attribute keys are literals whose length the compiler knows; values
 *    are written from the signal's own arrays; no printf anywhere.
 *  - One ResourceSpans per workload per batch: the batch is grouped first
 *    (a small hash on pid and comm, equality on the whole resource), and
 *    the node's attributes and the scope are encoded once, at creation.
 *  - No heap allocation per span and no syscall per span: the scratch
 *    arrays and the backward buffer are kept from one batch to the next,
 *    and ids are drawn from a generator seeded by getrandom.
 */
#include "exporters/otlp/otlp_spans.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "platform/numfmt.h"
#include "discovery/k8s.h"
#include "model/l7_text.h"
#include "exporters/otlp/otlp_common.h"

/* Tags: (field << 3) | wire; wire 0 varint, 1 fixed64, 2 length-delimited. */
#define TAG_REQUEST_RESOURCE_SPANS ENAV_PB_TAG1(1, 2) /* ExportTraceServiceRequest */
#define TAG_RS_RESOURCE		   ENAV_PB_TAG1(1, 2) /* ResourceSpans */
#define TAG_RS_SCOPE_SPANS	   ENAV_PB_TAG1(2, 2)
#define TAG_RESOURCE_ATTRIBUTES	   ENAV_PB_TAG1(1, 2) /* Resource */
#define TAG_SS_SCOPE		   ENAV_PB_TAG1(1, 2) /* ScopeSpans */
#define TAG_SS_SPANS		   ENAV_PB_TAG1(2, 2)
#define TAG_SCOPE_NAME		   ENAV_PB_TAG1(1, 2) /* InstrumentationScope */
#define TAG_SCOPE_VERSION	   ENAV_PB_TAG1(2, 2)
#define TAG_SPAN_TRACE_ID	   ENAV_PB_TAG1(1, 2) /* Span */
#define TAG_SPAN_SPAN_ID	   ENAV_PB_TAG1(2, 2)
#define TAG_SPAN_PARENT_SPAN_ID	   ENAV_PB_TAG1(4, 2)
#define TAG_SPAN_NAME		   ENAV_PB_TAG1(5, 2)
#define TAG_SPAN_KIND		   ENAV_PB_TAG1(6, 0)
#define TAG_SPAN_START		   ENAV_PB_TAG1(7, 1)
#define TAG_SPAN_END		   ENAV_PB_TAG1(8, 1)
#define TAG_SPAN_ATTRIBUTES	   ENAV_PB_TAG1(9, 2)
#define TAG_SPAN_STATUS		   ENAV_PB_TAG1(15, 2)
#define TAG_STATUS_MESSAGE	   ENAV_PB_TAG1(2, 2) /* Status */
#define TAG_STATUS_CODE		   ENAV_PB_TAG1(3, 0)
#define TAG_KV_KEY		   ENAV_PB_TAG1(1, 2) /* KeyValue */
#define TAG_KV_VALUE		   ENAV_PB_TAG1(2, 2)
#define TAG_ANY_STRING		   ENAV_PB_TAG1(1, 2) /* AnyValue */
#define TAG_ANY_INT		   ENAV_PB_TAG1(3, 0)

/* Bytes one attribute can take beyond its key and value: tags and lengths. */
#define ATTR_OVERHEAD 24
/* Beyond the attributes, name and status text: ids, times, kind, prefixes. */
#define SPAN_OVERHEAD 96
#define SPAN_ATTRS    20
#define RES_ATTRS     (ENAV_OTLP_RES_MAX + 8)

size_t enav_otlp_workload_resource(const struct enav_otlp_kv *node, size_t n_node,
				   const struct enav_signal *s, struct enav_otlp_workload_res *wr)
{
	size_t n = 0;
	for (size_t i = 0; i < n_node && i < ENAV_OTLP_RES_MAX; i++)
		wr->kv[n++] = node[i];
	const struct enav_process_signal *p = &s->process;
	if (p->pid) {
		wr->kv[n++] =
		    (struct enav_otlp_kv){.key = "process.pid", .type = ENAV_OTLP_INT, .i = p->pid};
	}
	if (p->comm[0])
		wr->kv[n++] = (struct enav_otlp_kv){
		    .key = "process.executable.name", .type = ENAV_OTLP_STR, .s = p->comm};
	if (p->identity->container_id[0])
		wr->kv[n++] = (struct enav_otlp_kv){
		    .key = "container.id", .type = ENAV_OTLP_STR, .s = p->identity->container_id};
	if (p->identity->pod_uid[0])
		wr->kv[n++] = (struct enav_otlp_kv){
		    .key = "k8s.pod.uid", .type = ENAV_OTLP_STR, .s = p->identity->pod_uid};
	if (p->pod) {
		wr->kv[n++] = (struct enav_otlp_kv){
		    .key = "k8s.pod.name", .type = ENAV_OTLP_STR, .s = p->pod->name};
		wr->kv[n++] = (struct enav_otlp_kv){
		    .key = "k8s.namespace.name", .type = ENAV_OTLP_STR, .s = p->pod->namespace_};
	}
	return n;
}

/* ---- ids -------------------------------------------------------------------- */

/* xorshift128+ per thread, reseeded from getrandom every ID_RESEED draws:
 * span ids need to be unique, not secret, and a syscall per span is what
 * this file avoids. */
#define ID_RESEED 65536u
static _Thread_local uint64_t id_state[2];
static _Thread_local uint32_t id_left;

static uint64_t id_next(void)
{
	if (!id_left) {
		if (getrandom(id_state, sizeof(id_state), 0) != (ssize_t)sizeof(id_state)) {
			id_state[0] ^= (uint64_t)rand() << 32 | (uint64_t)rand();
			id_state[1] ^= (uint64_t)(uintptr_t)&id_left + 0x9e3779b97f4a7c15ull;
		}
		if (!(id_state[0] | id_state[1]))
			id_state[1] = 1; /* the generator's one fixed point */
		id_left = ID_RESEED;
	}
	id_left--;
	uint64_t x = id_state[0], y = id_state[1];
	id_state[0] = y;
	x ^= x << 23;
	id_state[1] = x ^ y ^ (x >> 17) ^ (y >> 26);
	return id_state[1] + y;
}

static void random_id(uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i += 8) {
		uint64_t v = id_next();
		memcpy(b + i, &v, n - i < 8 ? n - i : 8);
	}
	if (b[0] == 0)
		b[0] = 1; /* an all-zero id is invalid */
}

static bool nonzero(const uint8_t *p, size_t n)
{
	uint8_t any = 0;
	for (size_t i = 0; i < n; i++)
		any |= p[i];
	return any != 0;
}

/* ---- attributes --------------------------------------------------------------- */

/* One attribute: key and value by pointer and length, nothing copied. */
struct attr {
	const char *key;
	uint8_t key_len;
	bool is_int;
	const char *s;
	size_t s_len;
	int64_t i;
};

/* A literal key: its length from the compiler (every key is under 128
 * bytes, so its prefix is one byte). */
#define KEY(k) k, (uint8_t)(sizeof(k) - 1 + 0 * sizeof(char[sizeof(k) <= 128 ? 1 : -1]))
/* A literal value. */
#define LIT(v) v, sizeof(v) - 1

struct attrs {
	struct attr a[SPAN_ATTRS > RES_ATTRS ? SPAN_ATTRS : RES_ATTRS];
	size_t n;
	size_t bytes; /* upper bound of their encoding */
};

/* Only n and bytes: the array is written as attributes are added (zeroing
 * it all would cost more than the attributes). */
static inline void attrs_init(struct attrs *as)
{
	as->n = 0;
	as->bytes = 0;
}

static inline void add_str(struct attrs *as, const char *key, uint8_t key_len, const char *s,
			   size_t n)
{
	as->a[as->n++] = (struct attr){.key = key, .key_len = key_len, .s = s, .s_len = n};
	as->bytes += key_len + n + ATTR_OVERHEAD;
}

static inline void add_int(struct attrs *as, const char *key, uint8_t key_len, int64_t v)
{
	as->a[as->n++] = (struct attr){.key = key, .key_len = key_len, .is_int = true, .i = v};
	as->bytes += key_len + ATTR_OVERHEAD;
}

/* A NUL-terminated array member's length, never past the array. */
#define FIELD_LEN(arr) strnlen((arr), sizeof(arr))

/* The first and the last k bytes of s[0..n) to p (k <= n <= 2k): with k a
 * constant, four fixed-size moves. */
static inline __attribute__((always_inline)) void copy_ends(uint8_t *p, const uint8_t *s, size_t n,
							    size_t k)
{
	uint8_t head[16], tail[16];
	memcpy(head, s, k);
	memcpy(tail, s + n - k, k);
	memcpy(p, head, k);
	memcpy(p + n - k, tail, k);
}

/*
 * n bytes of src just before p (inside a reservation), as enav_pb_put_at.
 * Keys and most values are 3 to 32 bytes: a call into the C library's
 * memcpy for each (about 230 of the 1,300 instructions a span took in this
 * file, path_otlp) is more than two overlapping fixed-size moves of the
 * first and the last bytes, inline.  Nothing outside src[0..n) is read,
 * nothing outside the n bytes before p is written.
 */
static inline uint8_t *put_small(uint8_t *p, const void *src, size_t n)
{
	const uint8_t *s = src;
	p -= n;
	if (n > 32)
		memcpy(p, s, n);
	else if (n >= 16)
		copy_ends(p, s, n, 16);
	else if (n >= 8)
		copy_ends(p, s, n, 8);
	else if (n >= 4)
		copy_ends(p, s, n, 4);
	else
		for (size_t i = 0; i < n; i++)
			p[i] = s[i];
	return p;
}

/* A length-delimited field of src[0..n) before p, as enav_pb_bytes_at. */
static inline uint8_t *put_small_bytes(uint8_t *p, uint8_t tag, const void *src, size_t n)
{
	p = put_small(p, src, n);
	p = enav_pb_varint_at(p, n);
	*--p = tag;
	return p;
}

/* One KeyValue as the field tag (inside a reservation). */
static inline __attribute__((always_inline)) uint8_t *put_attr(uint8_t *p, uint8_t tag,
							       const struct attr *a)
{
	const uint8_t *end = p;
	if (a->is_int) {
		p = enav_pb_varint_at(p, (uint64_t)a->i);
		*--p = TAG_ANY_INT;
	} else {
		p = put_small_bytes(p, TAG_ANY_STRING, a->s, a->s_len);
	}
	p = enav_pb_close_at(p, end, TAG_KV_VALUE);
	p = put_small(p, a->key, a->key_len);
	*--p = a->key_len; /* under 128: KEY() */
	*--p = TAG_KV_KEY;
	return enav_pb_close_at(p, end, tag);
}

/* ---- the encoder -------------------------------------------------------------- */

/*
 * The last peer address and URL path the encoder turned into text, with
 * that text: a batch is mostly a few connections and a few routes, so the
 * formatting and the path redaction (a third of a span's encoding) usually
 * come down to one comparison.  Both are pure functions of their input.
 */
struct text_memo {
	uint8_t family;
	uint8_t addr[16];
	size_t peer_len; /* 0: nothing remembered */
	char peer[ENAV_ADDR_TEXT_MAX];
	size_t path_len, redacted_len;
	bool has_path;
	char path[ENAV_L7_PATH_MAX];
	char redacted[ENAV_L7_PATH_MAX];
};

/* The text of the remote address (in m, valid until the next call). */
static size_t memo_peer(struct text_memo *m, const struct enav_net_signal *net, const char **out)
{
	if (!m->peer_len || m->family != net->family || memcmp(m->addr, net->remote_addr, 16)) {
		m->family = net->family;
		memcpy(m->addr, net->remote_addr, 16);
		m->peer_len = enav_fmt_addr(m->peer, net->family, net->remote_addr);
	}
	*out = m->peer;
	return m->peer_len;
}

/* url.path of path[0..n): enav_l7_path_redact's text (in m, valid until the next call). */
static size_t memo_path(struct text_memo *m, const char *path, size_t n, const char **out)
{
	if (!m->has_path || m->path_len != n || memcmp(m->path, path, n)) {
		memcpy(m->path, path, n); /* n <= ENAV_L7_PATH_MAX: FIELD_LEN */
		m->path_len = n;
		m->redacted_len = enav_l7_path_redact(path, n, m->redacted, sizeof(m->redacted));
		m->has_path = true;
	}
	*out = m->redacted;
	return m->redacted_len;
}

struct enav_otlp_span_encoder {
	struct enav_pb_rev rev; /* one ResourceSpans at a time, written backward */
	uint8_t *node;		/* the node's attributes as Resource.attributes fields */
	size_t node_len;
	uint8_t *scope; /* ScopeSpans.scope, whole field */
	size_t scope_len;
	/* Scratch kept from one batch to the next (capacity: items). */
	size_t cap;
	uint32_t *group_of; /* item -> workload */
	uint32_t *first;    /* workload -> its first item (the resource's source) */
	uint32_t *count;    /* workload -> items, then where its run in order starts */
	uint32_t *order;    /* items grouped by workload, batch order inside each */
	uint32_t *table;    /* hash -> workload + 1; 0 empty; 2 * cap slots */
	size_t table_mask;
	struct text_memo memo;
};

struct enav_otlp_span_encoder *enav_otlp_span_encoder_new(const struct enav_otlp_kv *node,
							  size_t n_node)
{
	struct enav_otlp_span_encoder *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	enav_pb_rev_init(&e->rev, 0);
	struct enav_pb_writer w;
	enav_pb_writer_init(&w, 0);
	if (n_node > ENAV_OTLP_RES_MAX)
		n_node = ENAV_OTLP_RES_MAX;
	enav_otlp_put_kvs(&w, 1 /* Resource.attributes */, node, n_node);
	size_t node_end = w.len;
	struct enav_otlp_scope scope = {ENAV_OTLP_SCOPE_NAME, ENAV_VERSION};
	enav_otlp_put_scope(&w, &scope);
	if (w.failed || !(e->node = malloc(w.len ? w.len : 1))) {
		enav_pb_writer_free(&w);
		free(e);
		return NULL;
	}
	memcpy(e->node, w.buf, w.len);
	e->node_len = node_end;
	e->scope = e->node + node_end;
	e->scope_len = w.len - node_end;
	enav_pb_writer_free(&w);
	return e;
}

void enav_otlp_span_encoder_free(struct enav_otlp_span_encoder *e)
{
	if (!e)
		return;
	enav_pb_rev_free(&e->rev);
	free(e->node);
	free(e->group_of);
	free(e->first);
	free(e->count);
	free(e->order);
	free(e->table);
	free(e);
}

/* Scratch for n items: grown per batch when needed, never per span. */
static bool scratch_for(struct enav_otlp_span_encoder *e, size_t n)
{
	if (n <= e->cap)
		return true;
	size_t cap = e->cap ? e->cap : 64;
	while (cap < n)
		cap *= 2;
	size_t slots = 2 * cap;
	uint32_t *g = malloc(cap * sizeof(*g)), *f = malloc(cap * sizeof(*f)),
		 *c = malloc(cap * sizeof(*c)), *o = malloc(cap * sizeof(*o)),
		 *t = malloc(slots * sizeof(*t));
	if (!g || !f || !c || !o || !t) {
		free(g);
		free(f);
		free(c);
		free(o);
		free(t);
		return false;
	}
	free(e->group_of);
	free(e->first);
	free(e->count);
	free(e->order);
	free(e->table);
	e->group_of = g;
	e->first = f;
	e->count = c;
	e->order = o;
	e->table = t;
	e->cap = cap;
	e->table_mask = slots - 1;
	return true;
}

/* ---- workloads ---------------------------------------------------------------- */

/* pid and the first bytes of comm: enough to tell workloads apart, cheap
 * enough per span; same_workload settles collisions. */
static uint32_t workload_hash(const struct enav_process_signal *p)
{
	uint64_t h = p->pid;
	for (size_t i = 0; i < 8 && p->comm[i]; i++)
		h = h * 31 + (unsigned char)p->comm[i];
	return (uint32_t)((h * 0x9e3779b97f4a7c15ull) >> 32);
}

/* Same resource attributes (enav_otlp_workload_resource's inputs). */
static bool same_workload(const struct enav_process_signal *a, const struct enav_process_signal *b)
{
	if (a->pid != b->pid || strcmp(a->comm, b->comm))
		return false;
	if (a->identity != b->identity &&
	    (strcmp(a->identity->container_id, b->identity->container_id) ||
	     strcmp(a->identity->pod_uid, b->identity->pod_uid)))
		return false;
	if (a->pod == b->pod)
		return true;
	return a->pod && b->pod && !strcmp(a->pod->name, b->pod->name) &&
	       !strcmp(a->pod->namespace_, b->pod->namespace_);
}

/* Group items[0..n) by workload: order[] lists each workload's items in
 * batch order, workloads by first appearance.  Returns how many. */
static uint32_t group(struct enav_otlp_span_encoder *e, void *const *items, size_t n)
{
	uint32_t ng = 0, last = UINT32_MAX;
	memset(e->table, 0, (e->table_mask + 1) * sizeof(*e->table));
	for (size_t i = 0; i < n; i++) {
		const struct enav_process_signal *p =
		    &((const struct enav_signal *)items[i])->process;
		/* Runs of one workload are the common case: try the last one first. */
		if (last != UINT32_MAX &&
		    same_workload(&((const struct enav_signal *)items[e->first[last]])->process,
				  p)) {
			e->group_of[i] = last;
			e->count[last]++;
			continue;
		}
		size_t slot = workload_hash(p) & e->table_mask;
		for (;;) {
			uint32_t g = e->table[slot];
			if (!g) {
				e->table[slot] = ++ng;
				e->first[ng - 1] = (uint32_t)i;
				e->count[ng - 1] = 0;
				last = ng - 1;
				break;
			}
			const struct enav_signal *o = items[e->first[g - 1]];
			if (same_workload(&o->process, p)) {
				last = g - 1;
				break;
			}
			slot = (slot + 1) & e->table_mask;
		}
		e->group_of[i] = last;
		e->count[last]++;
	}
	/* Counting sort: count[] becomes each workload's start in order[]. */
	uint32_t at = 0;
	for (uint32_t g = 0; g < ng; g++) {
		uint32_t c = e->count[g];
		e->count[g] = at;
		at += c;
	}
	for (size_t i = 0; i < n; i++)
		e->order[e->count[e->group_of[i]]++] = (uint32_t)i;
	/* count[g] is now the end of g's run; the start is the previous end. */
	return ng;
}

/* Resource.attributes of s's workload, after the node's (backward). */
static int put_resource(struct enav_otlp_span_encoder *e, const struct enav_signal *s)
{
	const struct enav_process_signal *p = &s->process;
	struct attrs as;
	attrs_init(&as);
	if (p->pid)
		add_int(&as, KEY("process.pid"), p->pid);
	if (p->comm[0])
		add_str(&as, KEY("process.executable.name"), p->comm, FIELD_LEN(p->comm));
	if (p->identity->container_id[0])
		add_str(&as, KEY("container.id"), p->identity->container_id,
			FIELD_LEN(p->identity->container_id));
	if (p->identity->pod_uid[0])
		add_str(&as, KEY("k8s.pod.uid"), p->identity->pod_uid,
			FIELD_LEN(p->identity->pod_uid));
	if (p->pod) {
		add_str(&as, KEY("k8s.pod.name"), p->pod->name, FIELD_LEN(p->pod->name));
		add_str(&as, KEY("k8s.namespace.name"), p->pod->namespace_,
			FIELD_LEN(p->pod->namespace_));
	}
	struct enav_pb_rev *r = &e->rev;
	/* 32: the Resource's prefix and the ResourceSpans' after it. */
	if (!enav_pb_rev_reserve(r, as.bytes + e->node_len + 32))
		return -E2BIG;
	uint8_t *at = enav_pb_rev_at(r), *end = at;
	for (size_t i = as.n; i-- > 0;)
		at = put_attr(at, TAG_RESOURCE_ATTRIBUTES, &as.a[i]);
	at = enav_pb_put_at(at, e->node, e->node_len);
	enav_pb_rev_set(r, enav_pb_close_at(at, end, TAG_RS_RESOURCE));
	return 0;
}

/* ---- spans -------------------------------------------------------------------- */

/* What every span has besides its attributes. */
struct span_head {
	const uint8_t *trace_id, *span_id, *parent_span_id;
	const char *name;
	size_t name_len;
	enum enav_otlp_span_kind kind;
	uint64_t start_unix_ns, end_unix_ns;
	enum enav_otlp_status status;
	const char *status_message;
	size_t status_len;
};

static int put_span(struct enav_pb_rev *r, const struct span_head *h, const struct attrs *as)
{
	if (!enav_pb_rev_reserve(r, SPAN_OVERHEAD + h->name_len + h->status_len + as->bytes))
		return -E2BIG;
	uint8_t *p = enav_pb_rev_at(r), *end = p;
	if (h->status != ENAV_OTLP_STATUS_UNSET || h->status_len) {
		if (h->status != ENAV_OTLP_STATUS_UNSET) {
			p = enav_pb_varint_at(p, (uint64_t)h->status);
			*--p = TAG_STATUS_CODE;
		}
		if (h->status_len)
			p = enav_pb_bytes_at(p, TAG_STATUS_MESSAGE, h->status_message,
					     h->status_len);
		p = enav_pb_close_at(p, end, TAG_SPAN_STATUS);
	}
	for (size_t i = as->n; i-- > 0;)
		p = put_attr(p, TAG_SPAN_ATTRIBUTES, &as->a[i]);
	p = enav_pb_fixed64_at(p, TAG_SPAN_END, h->end_unix_ns);
	p = enav_pb_fixed64_at(p, TAG_SPAN_START, h->start_unix_ns);
	p = enav_pb_varint_at(p, (uint64_t)h->kind);
	*--p = TAG_SPAN_KIND;
	p = put_small_bytes(p, TAG_SPAN_NAME, h->name, h->name_len);
	if (nonzero(h->parent_span_id, 8))
		p = enav_pb_bytes_at(p, TAG_SPAN_PARENT_SPAN_ID, h->parent_span_id, 8);
	p = enav_pb_bytes_at(p, TAG_SPAN_SPAN_ID, h->span_id, 8);
	p = enav_pb_bytes_at(p, TAG_SPAN_TRACE_ID, h->trace_id, 16);
	enav_pb_rev_set(r, enav_pb_close_at(p, end, TAG_SS_SPANS));
	return 0;
}

/* "first second" (or first alone when n2 is 0) into out[cap]: lengths known. */
static size_t span_name(char *out, size_t cap, const char *a, size_t na, const char *b, size_t nb)
{
	size_t n = na < cap ? na : cap;
	memcpy(out, a, n);
	if (nb && n < cap) {
		out[n++] = ' ';
		size_t m = nb < cap - n ? nb : cap - n;
		memcpy(out + n, b, m);
		n += m;
	}
	return n;
}

/* One application operation, with the semantic conventions' attributes of
 * its protocol family. */
static int put_request_span(struct enav_pb_rev *r, struct text_memo *m, const struct enav_signal *s)
{
	const struct enav_span_signal *sp = &s->span;
	const struct enav_l7_op *op = &sp->op;
	const struct enav_net_signal *net = &s->net;
	char name[ENAV_L7_OPERATION_MAX + ENAV_L7_TARGET_MAX + 2];
	const char *peer, *path; /* path: url.path, identifier-like segments redacted */
	size_t peer_len = memo_peer(m, net, &peer);
	size_t op_len = FIELD_LEN(op->operation), target_len = FIELD_LEN(op->target);
	size_t status_len = FIELD_LEN(op->status);
	bool server = net->role == ENAV_ROLE_SERVER;
	const char *proto = enav_l7_protocol_name(op->protocol);
	size_t proto_len = strlen(proto);
	struct attrs as;
	attrs_init(&as);
	add_str(&as, KEY("network.peer.address"), peer, peer_len);
	if (sp->tls_library)
		add_str(&as, KEY("enav.tls.library"), sp->tls_library, strlen(sp->tls_library));
	add_int(&as, KEY("network.peer.port"), net->remote_port);
	add_str(&as, KEY("enav.l7.protocol"), proto, proto_len);
	if (sp->id_source)
		add_str(&as, KEY("enav.span.id_source"), sp->id_source, strlen(sp->id_source));
	else
		add_str(&as, KEY("enav.span.id_source"), LIT("random"));
	/* Pyroscope's span-profile convention: the profile of this span is the
	 * samples labelled with its span id (ADR 0021). */
	char profile_id[16];
	if (op->profile_linked) {
		enav_hex_bytes(profile_id, sp->span_id, 8);
		add_str(&as, KEY("pyroscope.profile.id"), profile_id, sizeof(profile_id));
	}
	struct span_head h = {
	    .kind = server ? ENAV_OTLP_SPAN_SERVER : ENAV_OTLP_SPAN_CLIENT,
	    .start_unix_ns = sp->start_time_unix_ns,
	    .end_unix_ns = sp->end_time_unix_ns,
	    .status = op->error ? ENAV_OTLP_STATUS_ERROR : ENAV_OTLP_STATUS_UNSET,
	    .status_message = op->status,
	    .status_len = op->error ? status_len : 0,
	    .name = name,
	};
	switch (enav_protocol(op->protocol)->family) {
	case ENAV_SPAN_FAMILY_HTTP:
		if (op->rpc) {
			h.name_len = span_name(name, sizeof(name), op->target, target_len, "", 0);
			add_str(&as, KEY("rpc.system"), LIT("grpc"));
			add_str(&as, KEY("rpc.method"), op->target, target_len);
			if (op->status_code >= 0)
				add_int(&as, KEY("rpc.grpc.status_code"), op->status_code);
			break;
		}
		h.name_len =
		    span_name(name, sizeof(name), op->operation, op_len, op->target, target_len);
		add_str(&as, KEY("http.request.method"), op->operation, op_len);
		add_str(&as, KEY("http.route"), op->target, target_len);
		size_t path_len = memo_path(m, op->path, FIELD_LEN(op->path), &path);
		add_str(&as, KEY("url.path"), path, path_len);
		add_str(&as, KEY("network.protocol.name"), LIT("http"));
		if (op->protocol == ENAV_L7_HTTP2)
			add_str(&as, KEY("network.protocol.version"), LIT("2"));
		else
			add_str(&as, KEY("network.protocol.version"), LIT("1.1"));
		if (op->status_code >= 0)
			add_int(&as, KEY("http.response.status_code"), op->status_code);
		break;
	case ENAV_SPAN_FAMILY_MESSAGING:
		h.name_len =
		    span_name(name, sizeof(name), op->operation, op_len, op->target, target_len);
		add_str(&as, KEY("messaging.system"), proto, proto_len);
		add_str(&as, KEY("messaging.operation.name"), op->operation, op_len);
		add_str(&as, KEY("messaging.destination.name"), op->target, target_len);
		if (op->kind == ENAV_L7_OP_MESSAGE && !server)
			h.kind = op->messaging_receive ? ENAV_OTLP_SPAN_CONSUMER
						       : ENAV_OTLP_SPAN_PRODUCER;
		break;
	case ENAV_SPAN_FAMILY_WEBSOCKET:
		h.name_len = span_name(name, sizeof(name), LIT("websocket"), op->operation, op_len);
		add_str(&as, KEY("http.route"), op->target, target_len);
		break;
	case ENAV_SPAN_FAMILY_DB:
	case ENAV_SPAN_FAMILY_NONE:
	default:
		h.name_len =
		    span_name(name, sizeof(name), op->operation, op_len, op->target, target_len);
		add_str(&as, KEY("db.system.name"), proto, proto_len);
		add_str(&as, KEY("db.operation.name"), op->operation, op_len);
		if (target_len)
			add_str(&as, KEY("db.collection.name"), op->target, target_len);
		if (status_len)
			add_str(&as, KEY("db.response.status_code"), op->status, status_len);
		if (op->statement[0])
			add_str(&as, KEY("db.query.text"), op->statement, FIELD_LEN(op->statement));
		break;
	}
	/* The tracker always sets both ids; a zero one would make the whole
	 * request invalid, so it is replaced rather than sent. */
	uint8_t trace_id[16], span_id[8];
	h.trace_id = sp->trace_id;
	h.span_id = sp->span_id;
	h.parent_span_id = sp->parent_span_id;
	if (!nonzero(sp->trace_id, 16)) {
		random_id(trace_id, 16);
		h.trace_id = trace_id;
	}
	if (!nonzero(sp->span_id, 8)) {
		random_id(span_id, 8);
		h.span_id = span_id;
	}
	return put_span(r, &h, &as);
}

/* A closed or failed TCP connection as "tcp accept" / "tcp connect". */
static int put_tcp_span(struct enav_pb_rev *r, struct text_memo *m, const struct enav_signal *s)
{
	const struct enav_net_signal *net = &s->net;
	const char *peer;
	size_t peer_len = memo_peer(m, net, &peer);
	struct attrs as;
	attrs_init(&as);
	add_str(&as, KEY("network.transport"), LIT("tcp"));
	if (net->family == 6)
		add_str(&as, KEY("network.type"), LIT("ipv6"));
	else
		add_str(&as, KEY("network.type"), LIT("ipv4"));
	add_str(&as, KEY("network.peer.address"), peer, peer_len);
	add_int(&as, KEY("network.peer.port"), net->remote_port);
	add_int(&as, KEY("network.local.port"), net->local_port);
	add_int(&as, KEY("enav.tcp.bytes_sent"), (int64_t)net->bytes_sent);
	add_int(&as, KEY("enav.tcp.bytes_received"), (int64_t)net->bytes_received);
	add_int(&as, KEY("enav.tcp.retransmits"), net->retransmits);
	bool server = net->role == ENAV_ROLE_SERVER;
	bool failed = s->kind == ENAV_SIGNAL_TCP_FAILED;
	bool reset = net->flags & ENAV_TCP_RESET;
	uint8_t trace_id[16], span_id[8], parent[8] = {0};
	random_id(trace_id, sizeof(trace_id));
	random_id(span_id, sizeof(span_id));
	struct span_head h = {
	    .trace_id = trace_id,
	    .span_id = span_id,
	    .parent_span_id = parent,
	    .kind = server ? ENAV_OTLP_SPAN_SERVER : ENAV_OTLP_SPAN_CLIENT,
	    .start_unix_ns = s->time_unix_ns > net->duration_ns ? s->time_unix_ns - net->duration_ns
								: s->time_unix_ns,
	    .end_unix_ns = s->time_unix_ns,
	    .status = failed || reset ? ENAV_OTLP_STATUS_ERROR : ENAV_OTLP_STATUS_UNSET,
	};
	if (server) {
		h.name = "tcp accept";
		h.name_len = sizeof("tcp accept") - 1;
	} else {
		h.name = "tcp connect";
		h.name_len = sizeof("tcp connect") - 1;
	}
	if (failed) {
		h.status_message = "connection failed";
		h.status_len = sizeof("connection failed") - 1;
	} else if (reset) {
		h.status_message = "connection reset";
		h.status_len = sizeof("connection reset") - 1;
	}
	return put_span(r, &h, &as);
}

/* One ResourceSpans: the workload's items order[from..to), backward, in
 * front of the workloads already written (their r->len bytes end the
 * buffer: this one ends where they begin, wherever growth moves them). */
static int put_workload(struct enav_otlp_span_encoder *e, void *const *items, uint32_t from,
			uint32_t to)
{
	struct enav_pb_rev *r = &e->rev;
	size_t after = r->len;
	for (uint32_t k = to; k-- > from;) {
		const struct enav_signal *s = items[e->order[k]];
		int rc = s->kind == ENAV_SIGNAL_SPAN ? put_request_span(r, &e->memo, s)
						     : put_tcp_span(r, &e->memo, s);
		if (rc)
			return rc;
	}
	if (!enav_pb_rev_reserve(r, e->scope_len + 16))
		return -E2BIG;
	const uint8_t *end = r->buf + r->cap - after;
	uint8_t *p = enav_pb_put_at(enav_pb_rev_at(r), e->scope, e->scope_len);
	enav_pb_rev_set(r, enav_pb_close_at(p, end, TAG_RS_SCOPE_SPANS));
	int rc = put_resource(e, items[e->order[from]]);
	if (rc)
		return rc;
	/* put_resource reserved room for this prefix too. */
	enav_pb_rev_set(r, enav_pb_close_at(enav_pb_rev_at(r), r->buf + r->cap - after,
					    TAG_REQUEST_RESOURCE_SPANS));
	return 0;
}

int enav_otlp_span_encoder_run(struct enav_otlp_span_encoder *e, struct enav_pb_writer *w,
			       void *const *items, size_t n)
{
	if (!e || !w || (n && !items) || w->depth != 0)
		return -EINVAL;
	if (w->failed)
		return -E2BIG;
	if (n > UINT32_MAX / 2 || !scratch_for(e, n))
		return -ENOMEM;
	uint32_t ng = group(e, items, n);
	/* The request can be no larger than the writer's limit. */
	e->rev.limit = w->limit;
	enav_pb_rev_reset(&e->rev);
	/* The workloads last first, so the request lists them in order. */
	for (uint32_t g = ng; g-- > 0;) {
		int rc = put_workload(e, items, g ? e->count[g - 1] : 0, e->count[g]);
		if (rc)
			return rc;
	}
	/* The request is those bytes: handed over whole when the writer is
	 * empty (the export worker's case), appended otherwise. */
	if (!enav_pb_writer_adopt(w, &e->rev))
		enav_pb_raw(w, enav_pb_rev_data(&e->rev), e->rev.len);
	return w->failed ? -E2BIG : 0;
}
