/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bounded address -> name cache learned from DNS answers, used to name the
 * remote end of a dependency edge by the name the workload asked for.
 *
 * The value is the question name that led to an address (for
 * "www.example.com CNAME edge.cdn.net A 192.0.2.1" the name kept for
 * 192.0.2.1 is "www.example.com"), its insertion time and its expiry: the
 * record TTL clamped to [ENAV_IPNAME_TTL_MIN_S, ENAV_IPNAME_TTL_MAX_S].  An
 * expired entry is never returned.
 *
 * Capacity is fixed at init, when every entry is allocated; inserting into a
 * full cache evicts the least recently used entry (a lookup hit or an
 * insert counts as a use).  Keys hash with SipHash-2-4 under a caller-chosen
 * 128-bit key, so answers chosen by a remote party cannot force long chains
 * unless the key leaks.
 *
 * Time is always passed in (now_ns, any monotonic nanosecond clock, e.g.
 * CLOCK_BOOTTIME): the cache never reads a clock.
 *
 * NOT thread-safe: one thread owns an instance and makes every call,
 * lookups included (a lookup updates recency and counters).
 */
#ifndef ENAV_FEATURES_NETWORK_IPNAME_CACHE_H
#define ENAV_FEATURES_NETWORK_IPNAME_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENAV_IPNAME_NAME_MAX	 253 /* longer names (only escapes make them) are refused */
#define ENAV_IPNAME_TTL_MIN_S	 5
#define ENAV_IPNAME_TTL_MAX_S	 3600
#define ENAV_IPNAME_CAPACITY_MAX (1u << 24)

struct enav_dns_message;

struct enav_ipname_entry {
	uint8_t addr[16]; /* IPv4 in the first 4 bytes, the rest zero */
	uint8_t family;	  /* AF_INET or AF_INET6; 0: free */
	uint8_t name_len;
	char name[ENAV_IPNAME_NAME_MAX + 1];
	uint64_t inserted_ns;
	uint64_t expires_ns;
	uint32_t hnext;		     /* bucket chain, or free list */
	uint32_t lru_prev, lru_next; /* most recent at the head */
};

struct enav_ipname_stats {
	uint64_t entries; /* held now, expired ones not yet reclaimed included */
	uint64_t capacity;
	uint64_t inserts;  /* new entries */
	uint64_t updates;  /* inserts of an address already held (value replaced) */
	uint64_t rejected; /* inserts refused: bad family, empty or too long name */
	uint64_t hits;
	uint64_t misses;    /* every lookup that returned nothing, expired included */
	uint64_t expired;   /* lookups that found only an expired entry */
	uint64_t evictions; /* live entries displaced by an insert into a full cache */
	uint64_t reclaimed; /* expired entries reused by an insert into a full cache */
};

struct enav_ipname_cache {
	struct enav_ipname_entry *entries;
	uint32_t *buckets; /* heads of the chains */
	uint32_t bucket_mask;
	uint32_t capacity;
	uint32_t used;
	uint32_t free_head;
	uint32_t lru_head, lru_tail;
	uint64_t k0, k1; /* SipHash key */
	struct enav_ipname_stats st;
};

/* What a lookup returns (a copy: it stays valid whatever the cache does). */
struct enav_ipname_hit {
	char name[ENAV_IPNAME_NAME_MAX + 1];
	uint64_t inserted_ns;
	uint64_t expires_ns;
};

/*
 * Allocate capacity (1..ENAV_IPNAME_CAPACITY_MAX) entries.  key is 16 bytes
 * for the hash (from getrandom(2) in the agent; NULL means all zero, for
 * tests).  0, -EINVAL or -ENOMEM (then nothing is held).
 */
int enav_ipname_cache_init(struct enav_ipname_cache *c, uint32_t capacity, const uint8_t *key);
void enav_ipname_cache_destroy(struct enav_ipname_cache *c);

/*
 * Remember that addr (4 bytes for AF_INET, 16 for AF_INET6) answered name,
 * for ttl_s seconds (clamped) from now_ns.  An IPv4-mapped IPv6 address
 * (::ffff:a.b.c.d) is stored as the IPv4 address, so a dual-stack socket
 * finds what an A record taught.  An address already held gets the new name
 * and times.  name must be NUL-terminated, non-empty and at most
 * ENAV_IPNAME_NAME_MAX characters.  0, or -EINVAL (counted as rejected).
 */
int enav_ipname_cache_insert(struct enav_ipname_cache *c, int family, const void *addr,
			     const char *name, uint32_t ttl_s, uint64_t now_ns);

/*
 * The live entry for addr at now_ns, copied into *hit (may be NULL).  An entry
 * expired at now_ns (now_ns >= expires_ns) is freed and reported as a miss.
 */
bool enav_ipname_cache_lookup(struct enav_ipname_cache *c, int family, const void *addr,
			      uint64_t now_ns, struct enav_ipname_hit *hit);

/*
 * Learn the addresses a parsed response gave for its question: only a
 * response (QR) to a standard QUERY with rcode NOERROR and a class-IN
 * question; only A/AAAA answers of class IN whose owner is the question name
 * or reached from it through CNAMEs (in_chain).  Each address gets the
 * question name; the TTL is the smallest of the address record's and of the
 * in-chain CNAMEs' (the mapping holds only while every link does).  Returns
 * the number of addresses inserted.
 */
unsigned enav_ipname_cache_learn(struct enav_ipname_cache *c, const struct enav_dns_message *m,
				 uint64_t now_ns);

void enav_ipname_cache_stats(const struct enav_ipname_cache *c, struct enav_ipname_stats *out);

/* The key hash (SipHash-2-4, k0/k1 the little-endian halves of the key);
 * exposed so the unit test can check it against the reference vectors. */
uint64_t enav_ipname_siphash24(uint64_t k0, uint64_t k1, const uint8_t *msg, size_t len);

/* The same hash in two steps, for messages that share a prefix: begin takes
 * the whole 8-byte blocks of msg[0..len) (st.len of them), end the rest of
 * a message (tail_len < 8 bytes) and finishes.  Begin once, end per tail. */
struct enav_siphash_state {
	uint64_t v0, v1, v2, v3;
	size_t len;
};
void enav_siphash24_begin(struct enav_siphash_state *st, uint64_t k0, uint64_t k1,
			  const uint8_t *msg, size_t len);
uint64_t enav_siphash24_end(const struct enav_siphash_state *st, const uint8_t *tail,
			    size_t tail_len);

#endif
