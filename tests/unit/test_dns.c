/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the DNS message parser.  Messages are built octet by octet
 * in the RFC 1035 wire format and parsed from exact-size heap copies, so
 * ASan flags any read past the captured bytes.
 *
 * With ENAV_DNS_SEED_DIR set, every message a test parses (bar the bulk
 * prefix and corruption sweep) is also written there, one file each: that is
 * how the fuzzer's seed corpus (tests/fuzz/corpus/fuzz_dns) was made.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/network/dns.h"

/* ---- message builder ------------------------------------------------------ */

struct msg {
	uint8_t b[4096];
	size_t n;
};

static void u8(struct msg *m, unsigned v)
{
	assert_true(m->n < sizeof(m->b));
	m->b[m->n++] = (uint8_t)v;
}

static void u16(struct msg *m, unsigned v)
{
	u8(m, v >> 8 & 0xff);
	u8(m, v & 0xff);
}

static void u32(struct msg *m, uint32_t v)
{
	u16(m, v >> 16);
	u16(m, v & 0xffff);
}

static void raw(struct msg *m, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		u8(m, ((const uint8_t *)p)[i]);
}

/* Uncompressed name from dotted text ("" is the root); returns its offset. */
static size_t name(struct msg *m, const char *dotted)
{
	size_t at = m->n;

	while (*dotted) {
		size_t l = strcspn(dotted, ".");

		u8(m, (unsigned)l);
		raw(m, dotted, l);
		dotted += l;
		if (*dotted == '.')
			dotted++;
	}
	u8(m, 0);
	return at;
}

/* Labels from dotted text ending in a pointer to off; returns its offset. */
static size_t name_ptr(struct msg *m, const char *dotted, size_t off)
{
	size_t at = m->n;

	while (*dotted) {
		size_t l = strcspn(dotted, ".");

		u8(m, (unsigned)l);
		raw(m, dotted, l);
		dotted += l;
		if (*dotted == '.')
			dotted++;
	}
	u16(m, 0xc000u | (unsigned)off);
	return at;
}

static void hdr(struct msg *m, unsigned id, unsigned flags, unsigned qd, unsigned an, unsigned ns,
		unsigned ar)
{
	m->n = 0;
	u16(m, id);
	u16(m, flags);
	u16(m, qd);
	u16(m, an);
	u16(m, ns);
	u16(m, ar);
}

/* RR fixed part after its owner; returns where RDLENGTH goes (rr_end fills it). */
static size_t rr(struct msg *m, unsigned type, unsigned cls, uint32_t ttl)
{
	u16(m, type);
	u16(m, cls);
	u32(m, ttl);
	u16(m, 0);
	return m->n - 2;
}

static void rr_end(struct msg *m, size_t at)
{
	size_t len = m->n - at - 2;

	m->b[at] = (uint8_t)(len >> 8);
	m->b[at + 1] = (uint8_t)len;
}

static void rr_a(struct msg *m, uint32_t ttl, unsigned a, unsigned b, unsigned c, unsigned d)
{
	size_t at = rr(m, ENAV_DNS_TYPE_A, ENAV_DNS_CLASS_IN, ttl);

	u8(m, a);
	u8(m, b);
	u8(m, c);
	u8(m, d);
	rr_end(m, at);
}

#define QR_RD_RA (ENAV_DNS_FLAG_QR | ENAV_DNS_FLAG_RD | ENAV_DNS_FLAG_RA)

/* ---- parsing -------------------------------------------------------------- */

static struct enav_dns_message g_out;
static const char *g_seed_tag = "dns"; /* the running test's name */
static unsigned g_seed_no;

static void save_seed(const uint8_t *b, size_t len, bool tcp)
{
	const char *dir = getenv("ENAV_DNS_SEED_DIR");
	char path[512];
	FILE *f;

	if (!dir)
		return;
	if (strncmp(g_seed_tag, "test_", 5) == 0)
		snprintf(path, sizeof(path), "%s/%s_%s_%u", dir, g_seed_tag + 5,
			 tcp ? "tcp" : "udp", g_seed_no++);
	else
		snprintf(path, sizeof(path), "%s/%s_%u", dir, g_seed_tag, g_seed_no++);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

/* Parse b[0..len) from an exact-size heap copy; the result is in g_out. */
static int parse_ex(const uint8_t *b, size_t len, size_t wire_len, bool tcp)
{
	uint8_t *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, b, len);
	save_seed(b, len, tcp);
	memset(&g_out, 0x5a, sizeof(g_out)); /* garbage: parse must set what it reports */
	int rc = enav_dns_parse(copy, len, wire_len, tcp, &g_out);
	free(copy);
	/* Invariants on every outcome. */
	assert_true(g_out.n_answers <= ENAV_DNS_MAX_ANSWERS);
	assert_non_null(memchr(g_out.qname, '\0', sizeof(g_out.qname)));
	for (uint32_t i = 0; i < g_out.n_answers; i++) {
		assert_non_null(memchr(g_out.answers[i].name, '\0', sizeof(g_out.answers[i].name)));
		if (g_out.answers[i].type == ENAV_DNS_TYPE_CNAME)
			assert_non_null(memchr(g_out.answers[i].data.cname, '\0',
					       sizeof(g_out.answers[i].data.cname)));
	}
	return rc;
}

/* A whole UDP payload. */
static int parse(const struct msg *m)
{
	return parse_ex(m->b, m->n, m->n, false);
}

static void expect_a(uint32_t i, const char *owner, uint32_t ttl, unsigned a, unsigned b,
		     unsigned c, unsigned d)
{
	const struct enav_dns_answer *an = &g_out.answers[i];
	const uint8_t want[4] = {(uint8_t)a, (uint8_t)b, (uint8_t)c, (uint8_t)d};

	assert_true(i < g_out.n_answers);
	assert_int_equal(an->type, ENAV_DNS_TYPE_A);
	assert_int_equal(an->rclass, ENAV_DNS_CLASS_IN);
	assert_int_equal(an->ttl, ttl);
	assert_string_equal(an->name, owner);
	assert_memory_equal(an->data.a, want, 4);
}

/* ---- well-formed messages --------------------------------------------------- */

/* dig www.example.com A: the query as a stub resolver sends it. */
static void test_a_query(void **state)
{
	static const uint8_t q[] = {
	    0xab, 0xcd, 0x01, 0x20, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* header */
	    0x03, 'w',	'w',  'w',  0x07, 'e',	'x',  'a',  'm',  'p',	'l',  'e',
	    0x03, 'c',	'o',  'm',  0x00, 0x00, 0x01, 0x00, 0x01,
	};

	assert_int_equal(parse_ex(q, sizeof(q), sizeof(q), false), 0);
	assert_int_equal(g_out.id, 0xabcd);
	assert_false(g_out.is_response);
	assert_int_equal(g_out.opcode, ENAV_DNS_OPCODE_QUERY);
	assert_int_equal(g_out.rcode, 0);
	assert_int_equal(g_out.flags & ENAV_DNS_FLAG_RD, ENAV_DNS_FLAG_RD);
	assert_true(g_out.has_question);
	assert_string_equal(g_out.qname, "www.example.com");
	assert_int_equal(g_out.qtype, ENAV_DNS_TYPE_A);
	assert_int_equal(g_out.qclass, ENAV_DNS_CLASS_IN);
	assert_int_equal(g_out.qdcount, 1);
	assert_int_equal(g_out.ancount, 0);
	assert_int_equal(g_out.n_answers, 0);
	assert_false(g_out.capture_truncated);
	assert_false(g_out.truncated_flag);
}

/* The answer, owner compressed to the question name (C0 0C). */
static const uint8_t k_a_response[] = {
    0xab, 0xcd, 0x81, 0x80, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, /* header */
    0x03, 'w',	'w',  'w',  0x07, 'e',	'x',  'a',  'm',  'p',	'l',  'e',
    0x03, 'c',	'o',  'm',  0x00, 0x00, 0x01, 0x00, 0x01,		    /* question */
    0xc0, 0x0c, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x0e, 0x10, 0x00, 0x04, /* A, TTL 3600 */
    93,	  184,	216,  34,
};

static void test_a_response(void **state)
{
	assert_int_equal(parse_ex(k_a_response, sizeof(k_a_response), sizeof(k_a_response), false),
			 0);
	assert_true(g_out.is_response);
	assert_int_equal(g_out.rcode, ENAV_DNS_RCODE_NOERROR);
	assert_string_equal(g_out.qname, "www.example.com");
	assert_int_equal(g_out.n_answers, 1);
	expect_a(0, "www.example.com", 3600, 93, 184, 216, 34);
	assert_true(g_out.answers[0].in_chain);
	assert_int_equal(g_out.answers_skipped, 0);
	assert_int_equal(g_out.answers_dropped, 0);
	assert_false(g_out.capture_truncated);
	/* A payload length below the capture is taken as the capture. */
	assert_int_equal(parse_ex(k_a_response, sizeof(k_a_response), 5, false), 0);
	assert_int_equal(g_out.n_answers, 1);
	assert_false(g_out.capture_truncated);
}

static void test_aaaa_response(void **state)
{
	static const uint8_t v6[16] = {0x26, 0x06, 0x28, 0x00, 0x02, 0x20, 0x00, 0x01,
				       0x02, 0x48, 0x18, 0x93, 0x25, 0xc8, 0x19, 0x46};
	struct msg m;

	hdr(&m, 0x0102, QR_RD_RA, 1, 1, 0, 0);
	name(&m, "WWW.Example.COM");
	u16(&m, ENAV_DNS_TYPE_AAAA);
	u16(&m, ENAV_DNS_CLASS_IN);
	u16(&m, 0xc00c);
	size_t at = rr(&m, ENAV_DNS_TYPE_AAAA, ENAV_DNS_CLASS_IN, 86400);
	raw(&m, v6, 16);
	rr_end(&m, at);

	assert_int_equal(parse(&m), 0);
	assert_string_equal(g_out.qname, "www.example.com"); /* lowercased */
	assert_int_equal(g_out.qtype, ENAV_DNS_TYPE_AAAA);
	assert_int_equal(g_out.n_answers, 1);
	assert_int_equal(g_out.answers[0].type, ENAV_DNS_TYPE_AAAA);
	assert_int_equal(g_out.answers[0].ttl, 86400);
	assert_string_equal(g_out.answers[0].name, "www.example.com");
	assert_memory_equal(g_out.answers[0].data.aaaa, v6, 16);
	assert_true(g_out.answers[0].in_chain);
}

/*
 * api.example.com CNAME edge.example.net, edge.example.net CNAME
 * lb.example.net (target compressed into the first CNAME's RDATA), two A
 * records for lb.example.net - one before the CNAMEs - and an unrelated A
 * record that does not answer the question.
 */
static void build_cname_chain(struct msg *m)
{
	hdr(m, 0x4242, QR_RD_RA, 1, 5, 0, 0);
	size_t q = name(m, "api.example.com");
	u16(m, ENAV_DNS_TYPE_A);
	u16(m, ENAV_DNS_CLASS_IN);

	/* lb.example.net A 10.0.0.2 (owner written later, so in full here) */
	size_t lb = name(m, "lb.example.net");
	rr_a(m, 60, 10, 0, 0, 2);
	/* api.example.com CNAME edge.example.net */
	u16(m, 0xc000u | (unsigned)q);
	size_t at = rr(m, ENAV_DNS_TYPE_CNAME, ENAV_DNS_CLASS_IN, 300);
	size_t edge = name_ptr(m, "edge", lb + 3); /* edge + "example.net" */
	rr_end(m, at);
	/* edge.example.net CNAME lb.example.net */
	u16(m, 0xc000u | (unsigned)edge);
	at = rr(m, ENAV_DNS_TYPE_CNAME, ENAV_DNS_CLASS_IN, 120);
	u16(m, 0xc000u | (unsigned)lb);
	rr_end(m, at);
	/* lb.example.net A 10.0.0.1 */
	u16(m, 0xc000u | (unsigned)lb);
	rr_a(m, 30, 10, 0, 0, 1);
	/* evil.example.org A 6.6.6.6: not on the chain */
	name(m, "evil.example.org");
	rr_a(m, 3600, 6, 6, 6, 6);
}

static void test_cname_chain(void **state)
{
	struct msg m;

	build_cname_chain(&m);
	assert_int_equal(parse(&m), 0);
	assert_string_equal(g_out.qname, "api.example.com");
	assert_int_equal(g_out.n_answers, 5);
	expect_a(0, "lb.example.net", 60, 10, 0, 0, 2);
	assert_int_equal(g_out.answers[1].type, ENAV_DNS_TYPE_CNAME);
	assert_string_equal(g_out.answers[1].name, "api.example.com");
	assert_string_equal(g_out.answers[1].data.cname, "edge.example.net");
	assert_int_equal(g_out.answers[1].ttl, 300);
	assert_string_equal(g_out.answers[2].name, "edge.example.net");
	assert_string_equal(g_out.answers[2].data.cname, "lb.example.net");
	expect_a(3, "lb.example.net", 30, 10, 0, 0, 1);
	expect_a(4, "evil.example.org", 3600, 6, 6, 6, 6);
	for (int i = 0; i < 4; i++)
		assert_true(g_out.answers[i].in_chain);
	assert_false(g_out.answers[4].in_chain);
}

/* NXDOMAIN with the SOA in the authority section, as resolvers send it. */
static void test_nxdomain(void **state)
{
	struct msg m;

	hdr(&m, 7, QR_RD_RA | ENAV_DNS_RCODE_NXDOMAIN, 1, 0, 1, 0);
	size_t q = name(&m, "nope.example.com");
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	u16(&m, 0xc000u | (unsigned)(q + 5)); /* example.com */
	size_t at = rr(&m, ENAV_DNS_TYPE_SOA, ENAV_DNS_CLASS_IN, 900);
	name_ptr(&m, "ns", q + 5);
	name_ptr(&m, "hostmaster", q + 5);
	u32(&m, 2024010101);
	u32(&m, 7200);
	u32(&m, 3600);
	u32(&m, 1209600);
	u32(&m, 300);
	rr_end(&m, at);

	assert_int_equal(parse(&m), 0);
	assert_int_equal(g_out.rcode, ENAV_DNS_RCODE_NXDOMAIN);
	assert_string_equal(enav_dns_rcode_name(g_out.rcode), "NXDOMAIN");
	assert_string_equal(g_out.qname, "nope.example.com");
	assert_int_equal(g_out.nscount, 1);
	assert_int_equal(g_out.n_answers, 0);
	assert_false(g_out.capture_truncated);
}

static void test_servfail(void **state)
{
	struct msg m;

	hdr(&m, 8, QR_RD_RA | ENAV_DNS_RCODE_SERVFAIL, 1, 0, 0, 0);
	name(&m, "broken.example");
	u16(&m, ENAV_DNS_TYPE_HTTPS);
	u16(&m, ENAV_DNS_CLASS_IN);

	assert_int_equal(parse(&m), 0);
	assert_int_equal(g_out.rcode, ENAV_DNS_RCODE_SERVFAIL);
	assert_string_equal(enav_dns_rcode_name(g_out.rcode), "SERVFAIL");
	assert_int_equal(g_out.qtype, ENAV_DNS_TYPE_HTTPS);
	assert_string_equal(g_out.qname, "broken.example");
}

/* TCP: the 2-octet length prefix; trailing bytes (a pipelined second
 * message) ignored; a prefix longer than the chunk is a cut capture. */
static void test_tcp_framing(void **state)
{
	uint8_t b[2 + sizeof(k_a_response) + 5];
	const size_t n = sizeof(k_a_response);

	b[0] = (uint8_t)(n >> 8);
	b[1] = (uint8_t)n;
	memcpy(b + 2, k_a_response, n);
	memset(b + 2 + n, 0xc0, 5); /* would be a bad pointer if parsed */

	assert_int_equal(parse_ex(b, 2 + n, 2 + n, true), 0);
	expect_a(0, "www.example.com", 3600, 93, 184, 216, 34);
	assert_false(g_out.capture_truncated);

	assert_int_equal(parse_ex(b, sizeof(b), sizeof(b), true), 0);
	assert_int_equal(g_out.n_answers, 1);
	assert_false(g_out.capture_truncated);

	/* Chunk ends inside the answer: the rest was not captured. */
	assert_int_equal(parse_ex(b, 2 + n - 2, 2 + n - 2, true), 0);
	assert_true(g_out.capture_truncated);
	assert_int_equal(g_out.n_answers, 0);
	assert_string_equal(g_out.qname, "www.example.com");

	/* The same bytes as UDP claiming to be whole: the answer overruns. */
	assert_int_equal(parse_ex(b + 2, n - 2, n - 2, false), ENAV_DNS_ERDLEN);

	/* Prefix below a header. */
	b[0] = 0;
	b[1] = 11;
	assert_int_equal(parse_ex(b, sizeof(b), sizeof(b), true), ENAV_DNS_ESHORT);
	/* Only the prefix. */
	assert_int_equal(parse_ex(b, 1, 1, true), ENAV_DNS_ESHORT);
	assert_int_equal(parse_ex(b, 1, ENAV_DNS_LEN_UNKNOWN, true), ENAV_DNS_ETRUNCATED);
}

/* Valid compression: a pointer to a pointer, a pointer to mid-name, and
 * labels followed by a pointer. */
static void test_compression(void **state)
{
	struct msg m;

	hdr(&m, 9, QR_RD_RA, 1, 3, 0, 0);
	size_t q = name(&m, "a.b.example.com"); /* 12 */
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	/* owner: pointer to the question */
	size_t own = m.n;
	u16(&m, 0xc000u | (unsigned)q);
	size_t at = rr(&m, ENAV_DNS_TYPE_CNAME, ENAV_DNS_CLASS_IN, 10);
	size_t tgt = name_ptr(&m, "cdn", q + 4); /* cdn.example.com */
	rr_end(&m, at);
	/* owner: pointer to the owner pointer above (two jumps) */
	u16(&m, 0xc000u | (unsigned)own);
	rr_a(&m, 10, 192, 0, 2, 1);
	/* owner: pointer into the CNAME target (cdn. + pointer): two jumps */
	u16(&m, 0xc000u | (unsigned)tgt);
	rr_a(&m, 10, 192, 0, 2, 2);

	assert_int_equal(parse(&m), 0);
	assert_int_equal(g_out.n_answers, 3);
	assert_string_equal(g_out.answers[0].name, "a.b.example.com");
	assert_string_equal(g_out.answers[0].data.cname, "cdn.example.com");
	expect_a(1, "a.b.example.com", 10, 192, 0, 2, 1);
	expect_a(2, "cdn.example.com", 10, 192, 0, 2, 2);
	assert_true(g_out.answers[2].in_chain);
}

/* A pointer chain of exactly ENAV_DNS_MAX_JUMPS is followed; one more is not. */
static void build_jumps(struct msg *m, unsigned jumps)
{
	hdr(m, 10, QR_RD_RA, 1, 2, 0, 0);
	size_t q = name(m, "x.example");
	u16(m, ENAV_DNS_TYPE_A);
	u16(m, ENAV_DNS_CLASS_IN);
	/* A TXT record whose RDATA holds a ladder of pointers, each to the one
	 * before it, the first to the question. */
	u16(m, 0xc000u | (unsigned)q);
	size_t at = rr(m, ENAV_DNS_TYPE_TXT, ENAV_DNS_CLASS_IN, 10);
	size_t prev = q;
	for (unsigned i = 0; i + 1 < jumps; i++) {
		size_t here = m->n;
		u16(m, 0xc000u | (unsigned)prev);
		prev = here;
	}
	rr_end(m, at);
	u16(m, 0xc000u | (unsigned)prev); /* the owner: jump number one */
	rr_a(m, 10, 198, 51, 100, 7);
}

static void test_pointer_jump_cap(void **state)
{
	struct msg m;

	build_jumps(&m, ENAV_DNS_MAX_JUMPS);
	assert_int_equal(parse(&m), 0);
	assert_int_equal(g_out.answers_skipped, 1);
	expect_a(0, "x.example", 10, 198, 51, 100, 7);

	build_jumps(&m, ENAV_DNS_MAX_JUMPS + 1);
	assert_int_equal(parse(&m), ENAV_DNS_EPTRMANY);
}

static void test_other_types_skipped(void **state)
{
	struct msg m;

	hdr(&m, 11, QR_RD_RA, 1, 3, 0, 0);
	size_t q = name(&m, "example.com");
	u16(&m, ENAV_DNS_TYPE_MX);
	u16(&m, ENAV_DNS_CLASS_IN);
	u16(&m, 0xc000u | (unsigned)q);
	size_t at = rr(&m, ENAV_DNS_TYPE_MX, ENAV_DNS_CLASS_IN, 300);
	u16(&m, 10);
	name_ptr(&m, "mail", q);
	rr_end(&m, at);
	u16(&m, 0xc000u | (unsigned)q);
	at = rr(&m, ENAV_DNS_TYPE_TXT, ENAV_DNS_CLASS_IN, 300);
	u8(&m, 11);
	raw(&m, "v=spf1 -all", 11);
	rr_end(&m, at);
	u16(&m, 0xc000u | (unsigned)q);
	rr_a(&m, 300, 192, 0, 2, 80);

	assert_int_equal(parse(&m), 0);
	assert_int_equal(g_out.answers_skipped, 2);
	assert_int_equal(g_out.n_answers, 1);
	expect_a(0, "example.com", 300, 192, 0, 2, 80);
}

/* Only the first question is reported; later ones are stepped over. */
static void test_two_questions(void **state)
{
	struct msg m;

	hdr(&m, 12, QR_RD_RA, 2, 1, 0, 0);
	size_t q = name(&m, "one.example");
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	name_ptr(&m, "two", q + 4);
	u16(&m, ENAV_DNS_TYPE_AAAA);
	u16(&m, ENAV_DNS_CLASS_IN);
	u16(&m, 0xc000u | (unsigned)q);
	rr_a(&m, 5, 203, 0, 113, 9);

	assert_int_equal(parse(&m), 0);
	assert_string_equal(g_out.qname, "one.example");
	expect_a(0, "one.example", 5, 203, 0, 113, 9);
}

/* The root (". NS", a resolver's priming query) and qdcount 0. */
static void test_root_and_no_question(void **state)
{
	struct msg m;

	hdr(&m, 13, ENAV_DNS_FLAG_RD, 1, 0, 0, 0);
	name(&m, "");
	u16(&m, ENAV_DNS_TYPE_NS);
	u16(&m, ENAV_DNS_CLASS_IN);
	assert_int_equal(parse(&m), 0);
	assert_string_equal(g_out.qname, ".");

	hdr(&m, 14, ENAV_DNS_FLAG_QR | ENAV_DNS_RCODE_FORMERR, 0, 0, 0, 0);
	assert_int_equal(parse(&m), 0);
	assert_false(g_out.has_question);
	assert_string_equal(g_out.qname, "");
	assert_int_equal(g_out.rcode, ENAV_DNS_RCODE_FORMERR);
}

/* TTL with the top bit set reads as 0 (RFC 2181 8); class kept as sent. */
static void test_ttl_top_bit(void **state)
{
	struct msg m;

	hdr(&m, 15, QR_RD_RA, 1, 1, 0, 0);
	name(&m, "t.example");
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	u16(&m, 0xc00c);
	size_t at = rr(&m, ENAV_DNS_TYPE_A, 3 /* CH */, 0x80000010u);
	raw(&m, "\x01\x02\x03\x04", 4);
	rr_end(&m, at);

	assert_int_equal(parse(&m), 0);
	assert_int_equal(g_out.answers[0].ttl, 0);
	assert_int_equal(g_out.answers[0].rclass, 3);
}

/* Bytes outside 0x21..0x7e become \DDD; '.', '\' and '"' are escaped. */
static void test_escaping(void **state)
{
	static const uint8_t label[] = {'A', 0x00, ' ', '.', '\\', '"', 0x7f, 0xff, 'z', '-', '_'};
	struct msg m;

	hdr(&m, 16, ENAV_DNS_FLAG_RD, 1, 0, 0, 0);
	u8(&m, sizeof(label));
	raw(&m, label, sizeof(label));
	u8(&m, 3);
	raw(&m, "\tX\n", 3);
	u8(&m, 0);
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);

	assert_int_equal(parse(&m), 0);
	assert_string_equal(g_out.qname, "a\\000\\032\\.\\\\\\\"\\127\\255z-_.\\009x\\010");
	for (const char *p = g_out.qname; *p; p++)
		assert_true(*p >= 0x21 && *p <= 0x7e);
}

/* The longest name (255 wire octets), all escaped, fits the buffer. */
static void test_longest_name(void **state)
{
	static const unsigned lens[] = {63, 63, 62, 62};
	struct msg m;

	hdr(&m, 17, ENAV_DNS_FLAG_RD, 1, 0, 0, 0);
	for (int i = 0; i < 4; i++) {
		u8(&m, lens[i]);
		for (unsigned j = 0; j < lens[i]; j++)
			u8(&m, 0xfe);
	}
	u8(&m, 0);
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	assert_int_equal(m.n - 12 - 4, ENAV_DNS_NAME_WIRE_MAX);

	assert_int_equal(parse(&m), 0);
	assert_int_equal(strlen(g_out.qname), ENAV_DNS_NAME_MAX);
	assert_memory_equal(g_out.qname, "\\254\\254", 8);
}

/* ---- rejections ------------------------------------------------------------- */

/* Header plus a question whose name is the given octets. */
static void build_qname_raw(struct msg *m, const uint8_t *nm, size_t n)
{
	hdr(m, 20, ENAV_DNS_FLAG_RD, 1, 0, 0, 0);
	raw(m, nm, n);
	u16(m, ENAV_DNS_TYPE_A);
	u16(m, ENAV_DNS_CLASS_IN);
}

static void test_pointer_self_loop(void **state)
{
	static const uint8_t self[] = {0xc0, 0x0c};			      /* at 12, to 12 */
	static const uint8_t back_into[] = {0x03, 'w', 'w', 'w', 0xc0, 0x0c}; /* to its own start */
	struct msg m;

	build_qname_raw(&m, self, sizeof(self));
	assert_int_equal(parse(&m), ENAV_DNS_EPTRLOOP);
	assert_string_equal(g_out.qname, "");
	build_qname_raw(&m, back_into, sizeof(back_into));
	assert_int_equal(parse(&m), ENAV_DNS_EPTRLOOP);
}

/* Two pointers pointing at each other: the first (in a skipped record's
 * RDATA) to the second, the second (an answer owner) to the first. */
static void test_pointer_two_cycle(void **state)
{
	struct msg m;

	hdr(&m, 21, QR_RD_RA, 1, 2, 0, 0);
	size_t q = name(&m, "c.example");
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	u16(&m, 0xc000u | (unsigned)q);
	size_t at = rr(&m, ENAV_DNS_TYPE_TXT, ENAV_DNS_CLASS_IN, 1);
	size_t p1 = m.n;
	u16(&m, 0); /* patched below */
	rr_end(&m, at);
	size_t p2 = m.n;
	u16(&m, 0xc000u | (unsigned)p1);
	rr_a(&m, 1, 1, 1, 1, 1);
	m.b[p1] = (uint8_t)(0xc0 | p2 >> 8);
	m.b[p1 + 1] = (uint8_t)p2;

	assert_int_equal(parse(&m), ENAV_DNS_EPTRLOOP);
}

static void test_pointer_forward(void **state)
{
	/* www + pointer to offset 22 (just past itself, inside the question). */
	static const uint8_t fwd[] = {0x03, 'w', 'w', 'w', 0xc0, 0x12, 0x03, 'c', 'o', 'm', 0x00};
	struct msg m;

	build_qname_raw(&m, fwd, sizeof(fwd));
	assert_int_equal(parse(&m), ENAV_DNS_EPTRFWD);
}

static void test_pointer_out_of_range(void **state)
{
	static const uint8_t past[] = {0x03, 'w', 'w', 'w', 0xc0, 0xff};
	static const uint8_t far[] = {0x03, 'w', 'w', 'w', 0xff, 0xff};
	static const uint8_t header[] = {0x03, 'w', 'w', 'w', 0xc0, 0x04};
	struct msg m;

	build_qname_raw(&m, past, sizeof(past));
	assert_int_equal(parse(&m), ENAV_DNS_EPTRRANGE);
	build_qname_raw(&m, far, sizeof(far));
	assert_int_equal(parse(&m), ENAV_DNS_EPTRRANGE);
	build_qname_raw(&m, header, sizeof(header));
	assert_int_equal(parse(&m), ENAV_DNS_EPTRRANGE);
	/* Length unknown: past the capture is still forward of the pointer. */
	build_qname_raw(&m, past, sizeof(past));
	assert_int_equal(parse_ex(m.b, m.n, ENAV_DNS_LEN_UNKNOWN, false), ENAV_DNS_EPTRFWD);
}

static void test_label_64(void **state)
{
	struct msg m;

	hdr(&m, 22, ENAV_DNS_FLAG_RD, 1, 0, 0, 0);
	u8(&m, 64); /* 0x40: label type 01 */
	for (int i = 0; i < 64; i++)
		u8(&m, 'a');
	u8(&m, 0);
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	assert_int_equal(parse(&m), ENAV_DNS_ELABEL);

	/* 63 is the largest label. */
	m.b[12] = 63;
	m.b[12 + 64] = 0;
	m.n = 12 + 65;
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	assert_int_equal(parse(&m), 0);
	assert_int_equal(strlen(g_out.qname), 63);

	static const uint8_t ext[] = {0x80, 0x00};
	build_qname_raw(&m, ext, sizeof(ext));
	assert_int_equal(parse(&m), ENAV_DNS_ELABEL);
	static const uint8_t edns0_bitlabel[] = {0x41, 0x00, 0x00};
	build_qname_raw(&m, edns0_bitlabel, sizeof(edns0_bitlabel));
	assert_int_equal(parse(&m), ENAV_DNS_ELABEL);
}

/* Labels 63+63+63+62 plus root: 256 wire octets, one too many. */
static void test_name_256(void **state)
{
	static const unsigned lens[] = {63, 63, 63, 62};
	struct msg m;

	hdr(&m, 23, ENAV_DNS_FLAG_RD, 1, 0, 0, 0);
	for (int i = 0; i < 4; i++) {
		u8(&m, lens[i]);
		for (unsigned j = 0; j < lens[i]; j++)
			u8(&m, 'a' + (unsigned)i);
	}
	u8(&m, 0);
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	assert_int_equal(m.n - 12 - 4, 256);
	assert_int_equal(parse(&m), ENAV_DNS_ENAMELEN);

	/* 255 with the last label one shorter. */
	m.b[12 + 3 * 64] = 61;
	memmove(m.b + 12 + 3 * 64 + 1 + 61, m.b + 12 + 3 * 64 + 1 + 62, 5);
	m.n--;
	assert_int_equal(parse(&m), 0);
	assert_int_equal(strlen(g_out.qname), 253);

	/* Over the limit only through compression: a 190-octet question and
	 * an owner of two 62-octet labels plus a pointer to it (316 octets). */
	hdr(&m, 24, QR_RD_RA, 1, 1, 0, 0);
	for (int i = 0; i < 3; i++) {
		u8(&m, 62);
		for (int j = 0; j < 62; j++)
			u8(&m, 'q');
	}
	u8(&m, 0);
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	for (int i = 0; i < 2; i++) {
		u8(&m, 62);
		for (int j = 0; j < 62; j++)
			u8(&m, 'r');
	}
	u16(&m, 0xc00c);
	rr_a(&m, 1, 1, 2, 3, 4);
	assert_int_equal(parse(&m), ENAV_DNS_ENAMELEN);
}

static void test_rdlength_past_end(void **state)
{
	struct msg m;

	hdr(&m, 25, QR_RD_RA, 1, 2, 0, 0);
	name(&m, "r.example");
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	u16(&m, 0xc00c);
	rr_a(&m, 60, 192, 0, 2, 10);
	u16(&m, 0xc00c);
	size_t at = rr(&m, ENAV_DNS_TYPE_TXT, ENAV_DNS_CLASS_IN, 60);
	raw(&m, "\x05hello", 6);
	rr_end(&m, at);
	m.b[at + 1] = 200; /* RDLENGTH 200, 6 present */

	/* The whole payload: malformed. */
	assert_int_equal(parse(&m), ENAV_DNS_ERDLEN);
	/* The payload was longer than the capture: a cut, the first answer stands. */
	assert_int_equal(parse_ex(m.b, m.n, m.n + 194, false), 0);
	assert_true(g_out.capture_truncated);
	assert_int_equal(g_out.n_answers, 1);
	expect_a(0, "r.example", 60, 192, 0, 2, 10);
	/* Length unknown: also a cut. */
	assert_int_equal(parse_ex(m.b, m.n, ENAV_DNS_LEN_UNKNOWN, false), 0);
	assert_true(g_out.capture_truncated);
	/* TC set: the server cut its own reply; what came stands. */
	m.b[2] |= ENAV_DNS_FLAG_TC >> 8;
	assert_int_equal(parse(&m), 0);
	assert_true(g_out.truncated_flag);
	assert_false(g_out.capture_truncated);
	assert_int_equal(g_out.n_answers, 1);
}

static void test_rdata_shape(void **state)
{
	struct msg m;

	/* A with RDLENGTH 5 */
	hdr(&m, 26, QR_RD_RA, 1, 1, 0, 0);
	name(&m, "s.example");
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	u16(&m, 0xc00c);
	size_t at = rr(&m, ENAV_DNS_TYPE_A, ENAV_DNS_CLASS_IN, 60);
	raw(&m, "\x01\x02\x03\x04\x05", 5);
	rr_end(&m, at);
	assert_int_equal(parse(&m), ENAV_DNS_ERDATA);

	/* CNAME whose target stops short of RDLENGTH */
	hdr(&m, 27, QR_RD_RA, 1, 1, 0, 0);
	name(&m, "s.example");
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	u16(&m, 0xc00c);
	at = rr(&m, ENAV_DNS_TYPE_CNAME, ENAV_DNS_CLASS_IN, 60);
	name(&m, "t.example");
	u8(&m, 0);
	rr_end(&m, at);
	assert_int_equal(parse(&m), ENAV_DNS_ERDATA);

	/* CNAME whose target runs past RDLENGTH into the next bytes */
	hdr(&m, 28, QR_RD_RA, 1, 1, 0, 0);
	name(&m, "s.example");
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	u16(&m, 0xc00c);
	at = rr(&m, ENAV_DNS_TYPE_CNAME, ENAV_DNS_CLASS_IN, 60);
	name(&m, "t.example");
	rr_end(&m, at);
	m.b[at + 1] -= 3;
	assert_int_equal(parse(&m), ENAV_DNS_ERDATA);
}

static void test_truncated_header(void **state)
{
	/* 11 octets of a header, payload really 11: not a DNS message. */
	assert_int_equal(parse_ex(k_a_response, 11, 11, false), ENAV_DNS_ESHORT);
	/* 11 captured of a longer payload: cut before the header ended. */
	assert_int_equal(parse_ex(k_a_response, 11, sizeof(k_a_response), false),
			 ENAV_DNS_ETRUNCATED);
	assert_true(g_out.capture_truncated);
	assert_int_equal(parse_ex(k_a_response, 0, ENAV_DNS_LEN_UNKNOWN, false),
			 ENAV_DNS_ETRUNCATED);
	assert_int_equal(parse_ex(k_a_response, 0, 0, false), ENAV_DNS_ESHORT);
	assert_int_equal(enav_dns_parse(NULL, 0, ENAV_DNS_LEN_UNKNOWN, false, &g_out),
			 ENAV_DNS_ETRUNCATED);
	/* Cut inside the question: rejected, never a partial qname. */
	assert_int_equal(parse_ex(k_a_response, 20, sizeof(k_a_response), false),
			 ENAV_DNS_ETRUNCATED);
	assert_string_equal(g_out.qname, "");
	assert_int_equal(parse_ex(k_a_response, 31, sizeof(k_a_response), false),
			 ENAV_DNS_ETRUNCATED);
	/* ... and a question cut short in a whole payload is malformed. */
	assert_int_equal(parse_ex(k_a_response, 31, 31, false), ENAV_DNS_EOVERRUN);
}

/* Cut in the second answer: the first is kept. */
static void test_truncated_answer(void **state)
{
	struct msg m;

	hdr(&m, 29, QR_RD_RA, 1, 3, 0, 0);
	name(&m, "multi.example");
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	for (unsigned i = 1; i <= 3; i++) {
		u16(&m, 0xc00c);
		rr_a(&m, 60, 10, 1, 1, i);
	}
	const size_t full = m.n, one = 12 + 15 + 4 + 16;

	for (size_t cut = one; cut < one + 16; cut++) {
		assert_int_equal(parse_ex(m.b, cut, full, false), 0);
		assert_true(g_out.capture_truncated);
		assert_int_equal(g_out.n_answers, 1);
		expect_a(0, "multi.example", 60, 10, 1, 1, 1);
	}
	assert_int_equal(parse_ex(m.b, full, full, false), 0);
	assert_false(g_out.capture_truncated);
	assert_int_equal(g_out.n_answers, 3);
}

static void test_too_many_answers(void **state)
{
	struct msg m;

	hdr(&m, 30, QR_RD_RA, 1, ENAV_DNS_MAX_ANSWERS + 4, 0, 0);
	name(&m, "pool.example");
	u16(&m, ENAV_DNS_TYPE_A);
	u16(&m, ENAV_DNS_CLASS_IN);
	for (unsigned i = 0; i < ENAV_DNS_MAX_ANSWERS + 4; i++) {
		u16(&m, 0xc00c);
		rr_a(&m, 20, 10, 2, 0, i);
	}
	assert_int_equal(parse(&m), 0);
	assert_int_equal(g_out.n_answers, ENAV_DNS_MAX_ANSWERS);
	assert_int_equal(g_out.answers_dropped, 4);
	expect_a(ENAV_DNS_MAX_ANSWERS - 1, "pool.example", 20, 10, 2, 0, ENAV_DNS_MAX_ANSWERS - 1);
	/* Dropped answers are still validated: the last one turned into a
	 * CNAME whose RDATA (0a 02 00 13) is no name. */
	m.b[m.n - 13] = ENAV_DNS_TYPE_CNAME;
	assert_int_equal(parse(&m), ENAV_DNS_ERDATA);
}

/* Every prefix of a good message, as a cut capture: only ETRUNCATED or
 * success with answers that only grow; the same prefix claimed whole: no
 * crash.  Every single-octet corruption: no crash, invariants hold. */
static void test_every_prefix(void **state)
{
	struct msg m;

	build_cname_chain(&m);
	uint32_t prev = 0;
	const char *dir = getenv("ENAV_DNS_SEED_DIR");

	unsetenv("ENAV_DNS_SEED_DIR");
	for (size_t cut = 0; cut <= m.n; cut++) {
		int rc = parse_ex(m.b, cut, m.n, false);

		if (cut < 12 + 21)
			assert_int_equal(rc, ENAV_DNS_ETRUNCATED);
		else
			assert_int_equal(rc, 0);
		assert_true(g_out.n_answers >= prev);
		prev = g_out.n_answers;
		assert_int_equal(g_out.capture_truncated, cut < m.n);
		(void)parse_ex(m.b, cut, cut, false);
		(void)parse_ex(m.b, cut, cut, true);
	}
	for (size_t i = 0; i < m.n; i++) {
		struct msg c = m;

		for (unsigned v = 0; v < 256; v += 37) {
			c.b[i] = (uint8_t)v;
			(void)parse_ex(c.b, c.n, c.n, false);
		}
	}
	if (dir)
		setenv("ENAV_DNS_SEED_DIR", dir, 1);
}

/* ---- names ------------------------------------------------------------------ */

static void test_names(void **state)
{
	char buf[ENAV_DNS_TYPE_NAME_LEN];

	assert_string_equal(enav_dns_type_name(ENAV_DNS_TYPE_A, buf), "A");
	assert_string_equal(enav_dns_type_name(ENAV_DNS_TYPE_AAAA, buf), "AAAA");
	assert_string_equal(enav_dns_type_name(ENAV_DNS_TYPE_CNAME, NULL), "CNAME");
	assert_string_equal(enav_dns_type_name(ENAV_DNS_TYPE_PTR, buf), "PTR");
	assert_string_equal(enav_dns_type_name(ENAV_DNS_TYPE_MX, buf), "MX");
	assert_string_equal(enav_dns_type_name(ENAV_DNS_TYPE_TXT, buf), "TXT");
	assert_string_equal(enav_dns_type_name(ENAV_DNS_TYPE_SRV, buf), "SRV");
	assert_string_equal(enav_dns_type_name(ENAV_DNS_TYPE_SOA, buf), "SOA");
	assert_string_equal(enav_dns_type_name(ENAV_DNS_TYPE_NS, buf), "NS");
	assert_string_equal(enav_dns_type_name(ENAV_DNS_TYPE_HTTPS, buf), "HTTPS");
	assert_string_equal(enav_dns_type_name(ENAV_DNS_TYPE_SVCB, buf), "SVCB");
	assert_string_equal(enav_dns_type_name(65535, buf), "TYPE65535");
	assert_ptr_equal(enav_dns_type_name(4242, buf), buf);
	assert_string_equal(buf, "TYPE4242");
	assert_string_equal(enav_dns_type_name(4242, NULL), "UNKNOWN");

	assert_string_equal(enav_dns_rcode_name(0), "NOERROR");
	assert_string_equal(enav_dns_rcode_name(1), "FORMERR");
	assert_string_equal(enav_dns_rcode_name(2), "SERVFAIL");
	assert_string_equal(enav_dns_rcode_name(3), "NXDOMAIN");
	assert_string_equal(enav_dns_rcode_name(4), "NOTIMP");
	assert_string_equal(enav_dns_rcode_name(5), "REFUSED");
	assert_string_equal(enav_dns_rcode_name(15), "RCODE15");
	assert_string_equal(enav_dns_rcode_name(16), "INVALID");

	assert_string_equal(enav_dns_opcode_name(0), "QUERY");
	assert_string_equal(enav_dns_opcode_name(5), "UPDATE");
	assert_string_equal(enav_dns_opcode_name(3), "OPCODE3");
	assert_string_equal(enav_dns_opcode_name(99), "INVALID");

	assert_string_equal(enav_dns_strerror(0), "ok");
	assert_string_equal(enav_dns_strerror(ENAV_DNS_EPTRLOOP), "ptr_loop");
	assert_string_equal(enav_dns_strerror(ENAV_DNS_ERDATA), "rdata");
	assert_string_equal(enav_dns_strerror(-ENAV_DNS_ERROR_COUNT), "unknown");
	assert_string_equal(enav_dns_strerror(1), "unknown");
}

static void test_null_args(void **state)
{
	assert_int_equal(enav_dns_parse(k_a_response, sizeof(k_a_response), 0, false, NULL),
			 ENAV_DNS_EINVAL);
	assert_int_equal(enav_dns_parse(NULL, 12, 12, false, &g_out), ENAV_DNS_EINVAL);
}

static int tag_setup(void **state)
{
	g_seed_tag = *state;
	g_seed_no = 0;
	return 0;
}

#define DNS_TEST(f)                                                                                \
	{                                                                                          \
		.name = #f, .test_func = f, .setup_func = tag_setup, .initial_state = (void *)#f   \
	}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    DNS_TEST(test_a_query),
	    DNS_TEST(test_a_response),
	    DNS_TEST(test_aaaa_response),
	    DNS_TEST(test_cname_chain),
	    DNS_TEST(test_nxdomain),
	    DNS_TEST(test_servfail),
	    DNS_TEST(test_tcp_framing),
	    DNS_TEST(test_compression),
	    DNS_TEST(test_pointer_jump_cap),
	    DNS_TEST(test_other_types_skipped),
	    DNS_TEST(test_two_questions),
	    DNS_TEST(test_root_and_no_question),
	    DNS_TEST(test_ttl_top_bit),
	    DNS_TEST(test_escaping),
	    DNS_TEST(test_longest_name),
	    DNS_TEST(test_pointer_self_loop),
	    DNS_TEST(test_pointer_two_cycle),
	    DNS_TEST(test_pointer_forward),
	    DNS_TEST(test_pointer_out_of_range),
	    DNS_TEST(test_label_64),
	    DNS_TEST(test_name_256),
	    DNS_TEST(test_rdlength_past_end),
	    DNS_TEST(test_rdata_shape),
	    DNS_TEST(test_truncated_header),
	    DNS_TEST(test_truncated_answer),
	    DNS_TEST(test_too_many_answers),
	    DNS_TEST(test_every_prefix),
	    DNS_TEST(test_names),
	    DNS_TEST(test_null_args),
	};

	return cmocka_run_group_tests_name("dns", tests, NULL, NULL);
}
