/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the bounded address -> name cache (clock injected). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "features/network/dns.h"
#include "features/network/ipname_cache.h"

#define S  1000000000ull
#define T0 (1000 * S) /* an arbitrary boot-time origin */

static const uint8_t k_v4a[4] = {93, 184, 216, 34};
static const uint8_t k_v4b[4] = {10, 0, 0, 1};
static const uint8_t k_v6a[16] = {0x26, 0x06, 0x28, 0x00, 0x02, 0x20, 0x00, 0x01,
				  0x02, 0x48, 0x18, 0x93, 0x25, 0xc8, 0x19, 0x46};

static void v4(uint8_t out[4], unsigned i)
{
	out[0] = 10;
	out[1] = (uint8_t)(i >> 16);
	out[2] = (uint8_t)(i >> 8);
	out[3] = (uint8_t)i;
}

static struct enav_ipname_stats stats(const struct enav_ipname_cache *c)
{
	struct enav_ipname_stats st;

	enav_ipname_cache_stats(c, &st);
	return st;
}

static void expect_name(struct enav_ipname_cache *c, int family, const void *addr, uint64_t now,
			const char *want)
{
	struct enav_ipname_hit hit;

	memset(&hit, 0x5a, sizeof(hit));
	assert_true(enav_ipname_cache_lookup(c, family, addr, now, &hit));
	assert_string_equal(hit.name, want);
}

static void expect_miss(struct enav_ipname_cache *c, int family, const void *addr, uint64_t now)
{
	assert_false(enav_ipname_cache_lookup(c, family, addr, now, NULL));
}

/* ---- SipHash reference vectors (key 00..0f, message 00..len-1) ---------- */

static void test_siphash_vectors(void **state)
{
	uint8_t msg[64];

	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	uint64_t k0 = 0x0706050403020100ull, k1 = 0x0f0e0d0c0b0a0908ull;

	assert_int_equal(enav_ipname_siphash24(k0, k1, msg, 0), 0x726fdb47dd0e0e31ull);
	assert_int_equal(enav_ipname_siphash24(k0, k1, msg, 8), 0x93f5f5799a932462ull);
	assert_int_equal(enav_ipname_siphash24(k0, k1, msg, 15), 0xa129ca6149be45e5ull);
}

/* ---- basics ---------------------------------------------------------------- */

static void test_init_bounds(void **state)
{
	struct enav_ipname_cache c;

	assert_int_equal(enav_ipname_cache_init(&c, 0, NULL), -EINVAL);
	assert_int_equal(enav_ipname_cache_init(&c, ENAV_IPNAME_CAPACITY_MAX + 1, NULL), -EINVAL);
	/* A failed init leaves a cache every call tolerates. */
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4a, "x", 60, T0), -EINVAL);
	expect_miss(&c, AF_INET, k_v4a, T0);
	enav_ipname_cache_destroy(&c);

	assert_int_equal(enav_ipname_cache_init(&c, 1, NULL), 0);
	assert_int_equal(stats(&c).capacity, 1);
	assert_int_equal(stats(&c).entries, 0);
	enav_ipname_cache_destroy(&c);
	enav_ipname_cache_destroy(&c); /* idempotent */
}

static void test_insert_lookup(void **state)
{
	static const uint8_t key[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
	struct enav_ipname_cache c;
	struct enav_ipname_hit hit;

	assert_int_equal(enav_ipname_cache_init(&c, 8, key), 0);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4a, "www.example.com", 300, T0),
			 0);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET6, k_v6a, "www.example.com", 300, T0),
			 0);
	assert_true(enav_ipname_cache_lookup(&c, AF_INET, k_v4a, T0 + S, &hit));
	assert_string_equal(hit.name, "www.example.com");
	assert_int_equal(hit.inserted_ns, T0);
	assert_int_equal(hit.expires_ns, T0 + 300 * S);
	expect_name(&c, AF_INET6, k_v6a, T0 + S, "www.example.com");
	expect_miss(&c, AF_INET, k_v4b, T0 + S);
	/* The IPv4 bytes as an IPv6 address are another key. */
	uint8_t v4compat[16] = {0};
	memcpy(v4compat + 12, k_v4a, 4);
	expect_miss(&c, AF_INET6, v4compat, T0 + S);

	struct enav_ipname_stats st = stats(&c);
	assert_int_equal(st.entries, 2);
	assert_int_equal(st.inserts, 2);
	assert_int_equal(st.hits, 2);
	assert_int_equal(st.misses, 2);
	assert_int_equal(st.expired, 0);
	assert_int_equal(st.evictions, 0);
	enav_ipname_cache_destroy(&c);
}

/* A dual-stack socket sees ::ffff:a.b.c.d for what an A record taught. */
static void test_v4_mapped(void **state)
{
	struct enav_ipname_cache c;
	uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	memcpy(mapped + 12, k_v4a, 4);
	assert_int_equal(enav_ipname_cache_init(&c, 4, NULL), 0);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4a, "a.example", 60, T0), 0);
	expect_name(&c, AF_INET6, mapped, T0, "a.example");
	/* and the other way round: one entry */
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET6, mapped, "b.example", 60, T0), 0);
	expect_name(&c, AF_INET, k_v4a, T0, "b.example");
	assert_int_equal(stats(&c).entries, 1);
	assert_int_equal(stats(&c).updates, 1);
	enav_ipname_cache_destroy(&c);
}

static void test_update_in_place(void **state)
{
	struct enav_ipname_cache c;
	struct enav_ipname_hit hit;

	assert_int_equal(enav_ipname_cache_init(&c, 2, NULL), 0);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4a, "old.example", 60, T0), 0);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4b, "b.example", 60, T0), 0);
	assert_int_equal(
	    enav_ipname_cache_insert(&c, AF_INET, k_v4a, "new.example", 600, T0 + 10 * S), 0);
	assert_true(enav_ipname_cache_lookup(&c, AF_INET, k_v4a, T0 + 70 * S, &hit));
	assert_string_equal(hit.name, "new.example");
	assert_int_equal(hit.inserted_ns, T0 + 10 * S);
	assert_int_equal(hit.expires_ns, T0 + 610 * S);
	struct enav_ipname_stats st = stats(&c);
	assert_int_equal(st.entries, 2);
	assert_int_equal(st.updates, 1);
	assert_int_equal(st.evictions, 0);
	enav_ipname_cache_destroy(&c);
}

static void test_rejected(void **state)
{
	struct enav_ipname_cache c;
	char longest[ENAV_IPNAME_NAME_MAX + 2];

	assert_int_equal(enav_ipname_cache_init(&c, 4, NULL), 0);
	memset(longest, 'a', sizeof(longest));
	longest[ENAV_IPNAME_NAME_MAX + 1] = '\0';
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4a, longest, 60, T0), -EINVAL);
	longest[ENAV_IPNAME_NAME_MAX] = '\0';
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4a, longest, 60, T0), 0);
	expect_name(&c, AF_INET, k_v4a, T0, longest);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4b, "", 60, T0), -EINVAL);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4b, NULL, 60, T0), -EINVAL);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_UNIX, k_v4b, "x", 60, T0), -EINVAL);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, NULL, "x", 60, T0), -EINVAL);
	expect_miss(&c, AF_UNIX, k_v4b, T0);
	expect_miss(&c, AF_INET, NULL, T0);
	assert_int_equal(stats(&c).rejected, 5);
	assert_int_equal(stats(&c).entries, 1);
	enav_ipname_cache_destroy(&c);
}

/* ---- capacity and eviction order ------------------------------------------- */

static void test_lru_eviction_order(void **state)
{
	struct enav_ipname_cache c;
	uint8_t a[4], b[4], cc[4], d[4], e[4];

	v4(a, 1);
	v4(b, 2);
	v4(cc, 3);
	v4(d, 4);
	v4(e, 5);
	assert_int_equal(enav_ipname_cache_init(&c, 3, NULL), 0);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, a, "a", 600, T0), 0);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, b, "b", 600, T0), 0);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, cc, "c", 600, T0), 0);
	assert_int_equal(stats(&c).entries, 3);
	/* Use a: b is now the least recent. */
	expect_name(&c, AF_INET, a, T0 + S, "a");
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, d, "d", 600, T0 + 2 * S), 0);
	expect_miss(&c, AF_INET, b, T0 + 3 * S);
	assert_int_equal(stats(&c).evictions, 1);
	/* Order now (old -> new): c, a, d.  Re-inserting c refreshes it. */
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, cc, "c2", 600, T0 + 4 * S), 0);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, e, "e", 600, T0 + 5 * S), 0);
	expect_miss(&c, AF_INET, a, T0 + 6 * S);
	expect_name(&c, AF_INET, cc, T0 + 6 * S, "c2");
	expect_name(&c, AF_INET, d, T0 + 6 * S, "d");
	expect_name(&c, AF_INET, e, T0 + 6 * S, "e");
	struct enav_ipname_stats st = stats(&c);
	assert_int_equal(st.entries, 3);
	assert_int_equal(st.evictions, 2);
	assert_int_equal(st.inserts, 5);
	assert_int_equal(st.updates, 1);
	enav_ipname_cache_destroy(&c);
}

/* Many more addresses than capacity: the newest `capacity` survive, the
 * cache never grows, and every slot is reused. */
static void test_at_capacity_churn(void **state)
{
	enum { CAP = 64, N = 10000 };
	struct enav_ipname_cache c;
	uint8_t ad[4];
	char nm[32];

	assert_int_equal(enav_ipname_cache_init(&c, CAP, NULL), 0);
	for (unsigned i = 0; i < N; i++) {
		v4(ad, i);
		snprintf(nm, sizeof(nm), "h%u.example", i);
		assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, ad, nm, 600, T0), 0);
		assert_true(stats(&c).entries <= CAP);
	}
	for (unsigned i = 0; i < N; i++) {
		v4(ad, i);
		snprintf(nm, sizeof(nm), "h%u.example", i);
		if (i < N - CAP)
			expect_miss(&c, AF_INET, ad, T0 + S);
		else
			expect_name(&c, AF_INET, ad, T0 + S, nm);
	}
	struct enav_ipname_stats st = stats(&c);
	assert_int_equal(st.entries, CAP);
	assert_int_equal(st.evictions, N - CAP);
	assert_int_equal(st.hits, CAP);
	assert_int_equal(st.misses, N - CAP);
	enav_ipname_cache_destroy(&c);
}

/* ---- TTL --------------------------------------------------------------------- */

static void test_ttl_clamp_and_expiry(void **state)
{
	struct enav_ipname_cache c;
	struct enav_ipname_hit hit;

	assert_int_equal(enav_ipname_cache_init(&c, 8, NULL), 0);
	/* TTL 0 -> 5 s */
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4a, "zero.example", 0, T0), 0);
	assert_true(enav_ipname_cache_lookup(&c, AF_INET, k_v4a, T0, &hit));
	assert_int_equal(hit.expires_ns, T0 + ENAV_IPNAME_TTL_MIN_S * S);
	assert_true(enav_ipname_cache_lookup(&c, AF_INET, k_v4a, T0 + 5 * S - 1, NULL));
	expect_miss(&c, AF_INET, k_v4a, T0 + 5 * S);
	assert_int_equal(stats(&c).expired, 1);
	assert_int_equal(stats(&c).entries, 0); /* freed on the expired lookup */
	expect_miss(&c, AF_INET, k_v4a, T0 + 5 * S);
	assert_int_equal(stats(&c).expired, 1); /* now simply absent */

	/* One day -> 1 h */
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4b, "day.example", 86400, T0), 0);
	assert_true(enav_ipname_cache_lookup(&c, AF_INET, k_v4b, T0, &hit));
	assert_int_equal(hit.expires_ns, T0 + ENAV_IPNAME_TTL_MAX_S * S);
	assert_true(enav_ipname_cache_lookup(&c, AF_INET, k_v4b, T0 + 3600 * S - 1, NULL));
	expect_miss(&c, AF_INET, k_v4b, T0 + 3600 * S);

	/* In range: as given.  UINT32_MAX clamps too. */
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET6, k_v6a, "v6.example", 42, T0), 0);
	assert_true(enav_ipname_cache_lookup(&c, AF_INET6, k_v6a, T0, &hit));
	assert_int_equal(hit.expires_ns, T0 + 42 * S);
	assert_int_equal(
	    enav_ipname_cache_insert(&c, AF_INET6, k_v6a, "v6.example", UINT32_MAX, T0), 0);
	assert_true(enav_ipname_cache_lookup(&c, AF_INET6, k_v6a, T0, &hit));
	assert_int_equal(hit.expires_ns, T0 + 3600 * S);

	/* A clock near its end saturates rather than wrapping. */
	assert_int_equal(
	    enav_ipname_cache_insert(&c, AF_INET, k_v4a, "late.example", 60, UINT64_MAX - S), 0);
	assert_true(enav_ipname_cache_lookup(&c, AF_INET, k_v4a, UINT64_MAX - 1, &hit));
	assert_int_equal(hit.expires_ns, UINT64_MAX);

	struct enav_ipname_stats st = stats(&c);
	assert_int_equal(st.expired, 2);
	enav_ipname_cache_destroy(&c);
}

/* A full cache whose least recent entry has expired reuses it as
 * reclaimed, not as an eviction. */
static void test_reclaim_expired(void **state)
{
	struct enav_ipname_cache c;

	assert_int_equal(enav_ipname_cache_init(&c, 2, NULL), 0);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4a, "short.example", 5, T0), 0);
	assert_int_equal(enav_ipname_cache_insert(&c, AF_INET, k_v4b, "long.example", 600, T0), 0);
	assert_int_equal(
	    enav_ipname_cache_insert(&c, AF_INET6, k_v6a, "v6.example", 600, T0 + 10 * S), 0);
	struct enav_ipname_stats st = stats(&c);
	assert_int_equal(st.reclaimed, 1);
	assert_int_equal(st.evictions, 0);
	assert_int_equal(st.entries, 2);
	expect_name(&c, AF_INET, k_v4b, T0 + 10 * S, "long.example");
	expect_miss(&c, AF_INET, k_v4a, T0 + 10 * S);
	enav_ipname_cache_destroy(&c);
}

/* ---- learning from parsed responses ----------------------------------------- */

struct msg {
	uint8_t b[1024];
	size_t n;
};

static void put(struct msg *m, const void *p, size_t n)
{
	assert_true(m->n + n <= sizeof(m->b));
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

static void put16(struct msg *m, unsigned v)
{
	uint8_t b[2] = {(uint8_t)(v >> 8), (uint8_t)v};

	put(m, b, 2);
}

static void put_rr(struct msg *m, unsigned owner_ptr, unsigned type, uint32_t ttl, const void *rd,
		   size_t rdlen)
{
	uint8_t f[8] = {
	    (uint8_t)(type >> 8), (uint8_t)type,       0,	    1, (uint8_t)(ttl >> 24),
	    (uint8_t)(ttl >> 16), (uint8_t)(ttl >> 8), (uint8_t)ttl};

	put16(m, 0xc000u | owner_ptr);
	put(m, f, 8);
	put16(m, (unsigned)rdlen);
	put(m, rd, rdlen);
}

/*
 * app.example.com CNAME app.cdn.example (TTL 30), app.cdn.example A
 * 192.0.2.7 (TTL 300) and AAAA 2001:db8::7 (TTL 20), plus an off-chain A
 * 198.51.100.66.
 */
static size_t build_response(struct msg *m, unsigned flags)
{
	static const uint8_t qname[] = "\x03"
				       "app\x07"
				       "example\x03"
				       "com";
	static const uint8_t target[] = "\x03"
					"app\x03"
					"cdn\x07"
					"example";
	static const uint8_t other[] = "\x05"
				       "other\x07"
				       "example";
	static const uint8_t a[4] = {192, 0, 2, 7}, off[4] = {198, 51, 100, 66};
	static const uint8_t aaaa[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					 0,    0,    0,	   0,	 0, 0, 0, 7};
	uint8_t h[12] = {0x11, 0x22, (uint8_t)(flags >> 8), (uint8_t)flags, 0, 1, 0, 4, 0, 0, 0, 0};

	m->n = 0;
	put(m, h, 12);
	put(m, qname, sizeof(qname)); /* NUL of the literal is the root label */
	put16(m, ENAV_DNS_TYPE_A);
	put16(m, ENAV_DNS_CLASS_IN);
	size_t t_at = m->n + 12; /* the CNAME RDATA follows the owner and fixed part */
	put_rr(m, 12, ENAV_DNS_TYPE_CNAME, 30, target, sizeof(target));
	put_rr(m, (unsigned)t_at, ENAV_DNS_TYPE_A, 300, a, 4);
	put_rr(m, (unsigned)t_at, ENAV_DNS_TYPE_AAAA, 20, aaaa, 16);
	/* The off-chain owner written in full */
	put(m, other, sizeof(other));
	uint8_t f[10] = {0, 1, 0, 1, 0, 0, 0x0e, 0x10, 0, 4};
	put(m, f, 10);
	put(m, off, 4);
	return m->n;
}

static void test_learn_cname_chain(void **state)
{
	static const uint8_t a[4] = {192, 0, 2, 7}, off[4] = {198, 51, 100, 66};
	static const uint8_t aaaa[16] = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					 0,    0,    0,	   0,	 0, 0, 0, 7};
	struct enav_dns_message *dm = malloc(sizeof(*dm));
	struct enav_ipname_cache c;
	struct enav_ipname_hit hit;
	struct msg m;

	assert_non_null(dm);
	build_response(&m, 0x8180);
	assert_int_equal(enav_dns_parse(m.b, m.n, m.n, false, dm), 0);
	assert_int_equal(dm->n_answers, 4);
	assert_string_equal(dm->answers[0].data.cname, "app.cdn.example");
	assert_false(dm->answers[3].in_chain);

	assert_int_equal(enav_ipname_cache_init(&c, 16, NULL), 0);
	assert_int_equal(enav_ipname_cache_learn(&c, dm, T0), 2);
	/* The question name, not the CNAME target; TTL min(30, 300). */
	assert_true(enav_ipname_cache_lookup(&c, AF_INET, a, T0, &hit));
	assert_string_equal(hit.name, "app.example.com");
	assert_int_equal(hit.expires_ns, T0 + 30 * S);
	/* TTL min(30, 20). */
	assert_true(enav_ipname_cache_lookup(&c, AF_INET6, aaaa, T0, &hit));
	assert_string_equal(hit.name, "app.example.com");
	assert_int_equal(hit.expires_ns, T0 + 20 * S);
	/* The injected record taught nothing. */
	expect_miss(&c, AF_INET, off, T0);
	enav_ipname_cache_destroy(&c);

	/* Not learned from: a query, NXDOMAIN, a NOTIFY, a CHAOS question. */
	static const unsigned flags[] = {0x0100, 0x8183, 0xa180};
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		build_response(&m, flags[i]);
		assert_int_equal(enav_dns_parse(m.b, m.n, m.n, false, dm), 0);
		assert_int_equal(enav_ipname_cache_init(&c, 16, NULL), 0);
		assert_int_equal(enav_ipname_cache_learn(&c, dm, T0), 0);
		assert_int_equal(stats(&c).entries, 0);
		enav_ipname_cache_destroy(&c);
	}
	build_response(&m, 0x8180);
	m.b[12 + 17 + 3] = 3; /* qclass CH */
	assert_int_equal(enav_dns_parse(m.b, m.n, m.n, false, dm), 0);
	assert_int_equal(enav_ipname_cache_init(&c, 16, NULL), 0);
	assert_int_equal(enav_ipname_cache_learn(&c, dm, T0), 0);
	enav_ipname_cache_destroy(&c);
	free(dm);
}

/* A name that is only printable when escaped beyond 253 characters is
 * refused by the cache, never cut. */
static void test_learn_long_escaped_name(void **state)
{
	struct enav_dns_message *dm = malloc(sizeof(*dm));
	struct enav_ipname_cache c;
	struct msg m = {.n = 0};
	static const uint8_t h[12] = {0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0};
	static const uint8_t a[4] = {192, 0, 2, 99};

	assert_non_null(dm);
	put(&m, h, 12);
	for (int l = 0; l < 2; l++) {
		uint8_t lab[64];

		lab[0] = 63;
		memset(lab + 1, 0x01, 63);
		put(&m, lab, 64);
	}
	put(&m, "", 1);
	put16(&m, ENAV_DNS_TYPE_A);
	put16(&m, ENAV_DNS_CLASS_IN);
	put_rr(&m, 12, ENAV_DNS_TYPE_A, 60, a, 4);
	assert_int_equal(enav_dns_parse(m.b, m.n, m.n, false, dm), 0);
	assert_int_equal(strlen(dm->qname), 2 * 63 * 4 + 1);

	assert_int_equal(enav_ipname_cache_init(&c, 4, NULL), 0);
	assert_int_equal(enav_ipname_cache_learn(&c, dm, T0), 0);
	assert_int_equal(stats(&c).rejected, 1);
	expect_miss(&c, AF_INET, a, T0);
	enav_ipname_cache_destroy(&c);
	free(dm);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_siphash_vectors),
	    cmocka_unit_test(test_init_bounds),
	    cmocka_unit_test(test_insert_lookup),
	    cmocka_unit_test(test_v4_mapped),
	    cmocka_unit_test(test_update_in_place),
	    cmocka_unit_test(test_rejected),
	    cmocka_unit_test(test_lru_eviction_order),
	    cmocka_unit_test(test_at_capacity_churn),
	    cmocka_unit_test(test_ttl_clamp_and_expiry),
	    cmocka_unit_test(test_reclaim_expired),
	    cmocka_unit_test(test_learn_cname_chain),
	    cmocka_unit_test(test_learn_long_escaped_name),
	};

	return cmocka_run_group_tests_name("ipname_cache", tests, NULL, NULL);
}
