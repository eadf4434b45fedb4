/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/ipname_cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "features/network/dns.h"

#define NIL	 UINT32_MAX
#define NS_PER_S 1000000000ull

/* ---- SipHash-2-4 (Aumasson, Bernstein 2012) over a short message --------- */

static uint64_t rotl(uint64_t x, unsigned b)
{
	return x << b | x >> (64 - b);
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

struct sip {
	uint64_t v0, v1, v2, v3;
};

static void sip_round(struct sip *s)
{
	s->v0 += s->v1;
	s->v1 = rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = rotl(s->v2, 32);
}

static void sip_block(struct sip *s, uint64_t m)
{
	s->v3 ^= m;
	sip_round(s);
	sip_round(s);
	s->v0 ^= m;
}

void enav_siphash24_begin(struct enav_siphash_state *st, uint64_t k0, uint64_t k1,
			  const uint8_t *msg, size_t len)
{
	struct sip s = {
	    .v0 = k0 ^ 0x736f6d6570736575ull,
	    .v1 = k1 ^ 0x646f72616e646f6dull,
	    .v2 = k0 ^ 0x6c7967656e657261ull,
	    .v3 = k1 ^ 0x7465646279746573ull,
	};
	for (size_t i = 0; i + 8 <= len; i += 8)
		sip_block(&s, le64(msg + i));
	*st = (struct enav_siphash_state){s.v0, s.v1, s.v2, s.v3, len & ~(size_t)7};
}

uint64_t enav_siphash24_end(const struct enav_siphash_state *st, const uint8_t *tail,
			    size_t tail_len)
{
	struct sip s = {st->v0, st->v1, st->v2, st->v3};
	size_t len = st->len + tail_len;
	uint64_t last = (uint64_t)(len & 0xff) << 56;
	for (size_t j = 0; j < tail_len; j++)
		last |= (uint64_t)tail[j] << (8 * j);
	sip_block(&s, last);
	s.v2 ^= 0xff;
	for (int r = 0; r < 4; r++)
		sip_round(&s);
	return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
}

uint64_t enav_ipname_siphash24(uint64_t k0, uint64_t k1, const uint8_t *msg, size_t len)
{
	struct enav_siphash_state st;
	enav_siphash24_begin(&st, k0, k1, msg, len);
	return enav_siphash24_end(&st, msg + st.len, len - st.len);
}

/* ---- keys ----------------------------------------------------------------- */

struct key {
	uint8_t family;
	uint8_t addr[16];
};

/* Normalize (family, addr) into k; false for an unsupported family. */
static bool make_key(int family, const void *addr, struct key *k)
{
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	memset(k, 0, sizeof(*k));
	if (!addr)
		return false;
	if (family == AF_INET) {
		k->family = AF_INET;
		memcpy(k->addr, addr, 4);
		return true;
	}
	if (family != AF_INET6)
		return false;
	if (memcmp(addr, v4mapped, sizeof(v4mapped)) == 0) {
		k->family = AF_INET;
		memcpy(k->addr, (const uint8_t *)addr + 12, 4);
		return true;
	}
	k->family = AF_INET6;
	memcpy(k->addr, addr, 16);
	return true;
}

static uint32_t bucket_of(const struct enav_ipname_cache *c, const struct key *k)
{
	uint8_t msg[17];

	msg[0] = k->family;
	memcpy(msg + 1, k->addr, 16);
	return (uint32_t)enav_ipname_siphash24(c->k0, c->k1, msg, sizeof(msg)) & c->bucket_mask;
}

static bool same(const struct enav_ipname_entry *e, const struct key *k)
{
	return e->family == k->family && memcmp(e->addr, k->addr, 16) == 0;
}

/* ---- lists ---------------------------------------------------------------- */

static void lru_unlink(struct enav_ipname_cache *c, uint32_t i)
{
	struct enav_ipname_entry *e = &c->entries[i];

	if (e->lru_prev != NIL)
		c->entries[e->lru_prev].lru_next = e->lru_next;
	else
		c->lru_head = e->lru_next;
	if (e->lru_next != NIL)
		c->entries[e->lru_next].lru_prev = e->lru_prev;
	else
		c->lru_tail = e->lru_prev;
	e->lru_prev = e->lru_next = NIL;
}

static void lru_push_head(struct enav_ipname_cache *c, uint32_t i)
{
	struct enav_ipname_entry *e = &c->entries[i];

	e->lru_prev = NIL;
	e->lru_next = c->lru_head;
	if (c->lru_head != NIL)
		c->entries[c->lru_head].lru_prev = i;
	else
		c->lru_tail = i;
	c->lru_head = i;
}

/* Index of the entry for k, or NIL; *link is the slot that points at it. */
static uint32_t find(struct enav_ipname_cache *c, const struct key *k, uint32_t **link)
{
	uint32_t *l = &c->buckets[bucket_of(c, k)];

	for (; *l != NIL; l = &c->entries[*l].hnext) {
		if (same(&c->entries[*l], k)) {
			if (link)
				*link = l;
			return *l;
		}
	}
	return NIL;
}

/* Remove entry i (held) from its chain and the LRU list onto the free list. */
static void release(struct enav_ipname_cache *c, uint32_t i)
{
	struct enav_ipname_entry *e = &c->entries[i];
	struct key k = {.family = e->family};
	uint32_t *link = NULL;

	memcpy(k.addr, e->addr, 16);
	find(c, &k, &link);
	*link = e->hnext;
	lru_unlink(c, i);
	e->family = 0;
	e->hnext = c->free_head;
	c->free_head = i;
	c->used--;
}

/* ---- API ------------------------------------------------------------------ */

int enav_ipname_cache_init(struct enav_ipname_cache *c, uint32_t capacity, const uint8_t *key)
{
	*c = (struct enav_ipname_cache){0};
	if (capacity == 0 || capacity > ENAV_IPNAME_CAPACITY_MAX)
		return -EINVAL;
	uint32_t nb = 1;

	while (nb < capacity)
		nb <<= 1;
	c->entries = calloc(capacity, sizeof(*c->entries));
	c->buckets = malloc(nb * sizeof(*c->buckets));
	if (!c->entries || !c->buckets) {
		enav_ipname_cache_destroy(c);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nb; i++)
		c->buckets[i] = NIL;
	for (uint32_t i = 0; i < capacity; i++) {
		c->entries[i].hnext = i + 1 < capacity ? i + 1 : NIL;
		c->entries[i].lru_prev = c->entries[i].lru_next = NIL;
	}
	c->bucket_mask = nb - 1;
	c->capacity = capacity;
	c->free_head = 0;
	c->lru_head = c->lru_tail = NIL;
	if (key) {
		c->k0 = le64(key);
		c->k1 = le64(key + 8);
	}
	c->st.capacity = capacity;
	return 0;
}

void enav_ipname_cache_destroy(struct enav_ipname_cache *c)
{
	free(c->entries);
	free(c->buckets);
	*c = (struct enav_ipname_cache){0};
}

int enav_ipname_cache_insert(struct enav_ipname_cache *c, int family, const void *addr,
			     const char *name, uint32_t ttl_s, uint64_t now_ns)
{
	struct key k;
	size_t nlen = name ? strnlen(name, ENAV_IPNAME_NAME_MAX + 1) : 0;

	if (!c->entries || !make_key(family, addr, &k) || nlen == 0 ||
	    nlen > ENAV_IPNAME_NAME_MAX) {
		c->st.rejected++;
		return -EINVAL;
	}
	if (ttl_s < ENAV_IPNAME_TTL_MIN_S)
		ttl_s = ENAV_IPNAME_TTL_MIN_S;
	if (ttl_s > ENAV_IPNAME_TTL_MAX_S)
		ttl_s = ENAV_IPNAME_TTL_MAX_S;
	uint64_t span = (uint64_t)ttl_s * NS_PER_S;
	uint64_t expires = now_ns > UINT64_MAX - span ? UINT64_MAX : now_ns + span;

	uint32_t i = find(c, &k, NULL);

	if (i != NIL) {
		c->st.updates++;
		lru_unlink(c, i);
	} else {
		if (c->free_head == NIL) {
			uint32_t victim = c->lru_tail;

			if (now_ns >= c->entries[victim].expires_ns)
				c->st.reclaimed++;
			else
				c->st.evictions++;
			release(c, victim);
		}
		i = c->free_head;
		c->free_head = c->entries[i].hnext;
		struct enav_ipname_entry *e = &c->entries[i];
		uint32_t b = bucket_of(c, &k);

		e->family = k.family;
		memcpy(e->addr, k.addr, 16);
		e->hnext = c->buckets[b];
		c->buckets[b] = i;
		c->used++;
		c->st.inserts++;
	}
	struct enav_ipname_entry *e = &c->entries[i];

	memcpy(e->name, name, nlen);
	e->name[nlen] = '\0';
	e->name_len = (uint8_t)nlen;
	e->inserted_ns = now_ns;
	e->expires_ns = expires;
	lru_push_head(c, i);
	return 0;
}

bool enav_ipname_cache_lookup(struct enav_ipname_cache *c, int family, const void *addr,
			      uint64_t now_ns, struct enav_ipname_hit *hit)
{
	struct key k;
	uint32_t i = c->entries && make_key(family, addr, &k) ? find(c, &k, NULL) : NIL;

	if (i != NIL && now_ns >= c->entries[i].expires_ns) {
		c->st.expired++;
		release(c, i);
		i = NIL;
	}
	if (i == NIL) {
		c->st.misses++;
		return false;
	}
	const struct enav_ipname_entry *e = &c->entries[i];

	c->st.hits++;
	lru_unlink(c, i);
	lru_push_head(c, i);
	if (hit) {
		memcpy(hit->name, e->name, (size_t)e->name_len + 1);
		hit->inserted_ns = e->inserted_ns;
		hit->expires_ns = e->expires_ns;
	}
	return true;
}

unsigned enav_ipname_cache_learn(struct enav_ipname_cache *c, const struct enav_dns_message *m,
				 uint64_t now_ns)
{
	unsigned n = 0;
	uint32_t chain_ttl = UINT32_MAX;

	if (!m->is_response || m->opcode != ENAV_DNS_OPCODE_QUERY ||
	    m->rcode != ENAV_DNS_RCODE_NOERROR || !m->has_question ||
	    m->qclass != ENAV_DNS_CLASS_IN || m->n_answers > ENAV_DNS_MAX_ANSWERS)
		return 0;
	for (uint32_t i = 0; i < m->n_answers; i++) {
		const struct enav_dns_answer *a = &m->answers[i];

		if (a->in_chain && a->type == ENAV_DNS_TYPE_CNAME && a->ttl < chain_ttl)
			chain_ttl = a->ttl;
	}
	for (uint32_t i = 0; i < m->n_answers; i++) {
		const struct enav_dns_answer *a = &m->answers[i];
		uint32_t ttl = a->ttl < chain_ttl ? a->ttl : chain_ttl;
		int rc;

		if (!a->in_chain || a->rclass != ENAV_DNS_CLASS_IN)
			continue;
		if (a->type == ENAV_DNS_TYPE_A)
			rc = enav_ipname_cache_insert(c, AF_INET, a->data.a, m->qname, ttl, now_ns);
		else if (a->type == ENAV_DNS_TYPE_AAAA)
			rc = enav_ipname_cache_insert(c, AF_INET6, a->data.aaaa, m->qname, ttl,
						      now_ns);
		else
			continue;
		if (rc == 0)
			n++;
	}
	return n;
}

void enav_ipname_cache_stats(const struct enav_ipname_cache *c, struct enav_ipname_stats *out)
{
	*out = c->st;
	out->entries = c->used;
	out->capacity = c->capacity;
}
