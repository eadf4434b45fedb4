/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the DNS message parser and the address -> name cache.
 *
 * The input is parsed from exact-size heap copies (so ASan flags any read past
 * the captured bytes) as a whole UDP payload, as a UDP payload of unknown
 * length, as a cut capture of a longer payload, as a framed TCP message and
 * as a raw TCP chunk.  Every result must hold the output invariants, the
 * views must agree with each other, and successful parses feed a small cache
 * whose own invariants are checked.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "features/network/dns.h"
#include "features/network/ipname_cache.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static struct enav_dns_message g_whole, g_other;
static struct enav_ipname_cache g_cache;
static bool g_cache_ready;
static uint64_t g_now = 1000000000ull;

/* NUL inside the array, printable ASCII only, no empty label. */
static void check_name(const char *s, size_t cap, bool allow_empty)
{
	const char *nul = memchr(s, '\0', cap);

	CHECK(nul != NULL);
	size_t n = (size_t)(nul - s);

	CHECK(n <= ENAV_DNS_NAME_MAX);
	if (n == 0) {
		CHECK(allow_empty);
		return;
	}
	for (size_t i = 0; i < n; i++)
		CHECK(s[i] >= 0x21 && s[i] <= 0x7e);
	if (n == 1 && s[0] == '.')
		return;
	CHECK(s[0] != '.');
	/* A '.' that separates labels is never preceded by an unescaped '\'
	 * and never doubled or trailing. */
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\') {
			CHECK(i + 1 < n);
			if (s[i + 1] >= '0' && s[i + 1] <= '9') {
				CHECK(i + 3 < n);
				CHECK(s[i + 2] >= '0' && s[i + 2] <= '9');
				CHECK(s[i + 3] >= '0' && s[i + 3] <= '9');
				i += 3;
			} else {
				CHECK(s[i + 1] == '.' || s[i + 1] == '\\' || s[i + 1] == '"');
				i += 1;
			}
			continue;
		}
		CHECK(s[i] < 'A' || s[i] > 'Z'); /* lowercased */
		if (s[i] == '.')
			CHECK(i + 1 < n && s[i + 1] != '.');
	}
}

static void check_msg(const struct enav_dns_message *m, int rc)
{
	CHECK(rc <= 0 && rc > -ENAV_DNS_ERROR_COUNT);
	CHECK(strcmp(enav_dns_strerror(rc), "unknown") != 0);
	CHECK(m->n_answers <= ENAV_DNS_MAX_ANSWERS);
	check_name(m->qname, sizeof(m->qname), true);
	if (rc == ENAV_DNS_ETRUNCATED)
		CHECK(m->capture_truncated);
	if (rc == 0) {
		CHECK(m->has_question == (m->qdcount > 0));
		CHECK(m->has_question == (m->qname[0] != '\0'));
		CHECK(m->n_answers + m->answers_skipped + m->answers_dropped <= m->ancount);
		CHECK(m->answers_dropped == 0 || m->n_answers == ENAV_DNS_MAX_ANSWERS);
		CHECK(m->rcode == (m->flags & 0xf));
		CHECK(m->opcode == (m->flags >> 11 & 0xf));
	}
	for (uint32_t i = 0; i < m->n_answers; i++) {
		const struct enav_dns_answer *a = &m->answers[i];

		CHECK(a->type == ENAV_DNS_TYPE_A || a->type == ENAV_DNS_TYPE_AAAA ||
		      a->type == ENAV_DNS_TYPE_CNAME);
		CHECK(a->ttl <= 0x7fffffffu);
		check_name(a->name, sizeof(a->name), false);
		if (a->type == ENAV_DNS_TYPE_CNAME)
			check_name(a->data.cname, sizeof(a->data.cname), false);
		if (a->in_chain && rc == 0)
			CHECK(m->has_question);
	}
}

static bool same_answer(const struct enav_dns_answer *x, const struct enav_dns_answer *y)
{
	if (x->type != y->type || x->rclass != y->rclass || x->ttl != y->ttl ||
	    strcmp(x->name, y->name) != 0)
		return false;
	if (x->type == ENAV_DNS_TYPE_A)
		return memcmp(x->data.a, y->data.a, 4) == 0;
	if (x->type == ENAV_DNS_TYPE_AAAA)
		return memcmp(x->data.aaaa, y->data.aaaa, 16) == 0;
	return strcmp(x->data.cname, y->data.cname) == 0;
}

static bool same_msg(const struct enav_dns_message *x, const struct enav_dns_message *y)
{
	if (x->id != y->id || x->flags != y->flags || x->qdcount != y->qdcount ||
	    x->ancount != y->ancount || x->has_question != y->has_question ||
	    strcmp(x->qname, y->qname) != 0 || x->qtype != y->qtype || x->qclass != y->qclass ||
	    x->n_answers != y->n_answers || x->answers_skipped != y->answers_skipped ||
	    x->answers_dropped != y->answers_dropped)
		return false;
	for (uint32_t i = 0; i < x->n_answers; i++)
		if (!same_answer(&x->answers[i], &y->answers[i]) ||
		    x->answers[i].in_chain != y->answers[i].in_chain)
			return false;
	return true;
}

static int parse_copy(const uint8_t *data, size_t size, size_t wire_len, bool tcp,
		      struct enav_dns_message *out)
{
	uint8_t *buf = malloc(size ? size : 1);

	CHECK(buf != NULL);
	if (size)
		memcpy(buf, data, size);
	memset(out, 0xa5, sizeof(*out));
	int rc = enav_dns_parse(buf, size, wire_len, tcp, out);
	free(buf);
	check_msg(out, rc);
	return rc;
}

static void feed_cache(const struct enav_dns_message *m)
{
	if (!g_cache_ready) {
		CHECK(enav_ipname_cache_init(&g_cache, 8, (const uint8_t *)"fuzz-key-16bytes") ==
		      0);
		g_cache_ready = true;
	}
	g_now += 997000000ull; /* about a second per input: entries expire as we go */
	enav_ipname_cache_learn(&g_cache, m, g_now);
	for (uint32_t i = 0; i < m->n_answers; i++) {
		const struct enav_dns_answer *a = &m->answers[i];
		struct enav_ipname_hit hit;

		if (a->type == ENAV_DNS_TYPE_CNAME)
			continue;
		int fam = a->type == ENAV_DNS_TYPE_A ? AF_INET : AF_INET6;
		if (enav_ipname_cache_lookup(&g_cache, fam, a->data.aaaa, g_now, &hit)) {
			CHECK(memchr(hit.name, '\0', sizeof(hit.name)) != NULL);
			CHECK(hit.name[0] != '\0');
			CHECK(hit.expires_ns > g_now);
			CHECK(hit.expires_ns - hit.inserted_ns >=
				  ENAV_IPNAME_TTL_MIN_S * 1000000000ull ||
			      hit.expires_ns == UINT64_MAX);
			CHECK(hit.expires_ns - hit.inserted_ns <=
			      ENAV_IPNAME_TTL_MAX_S * 1000000000ull);
		}
	}
	struct enav_ipname_stats st;

	enav_ipname_cache_stats(&g_cache, &st);
	CHECK(st.entries <= st.capacity && st.capacity == 8);
	CHECK(st.expired <= st.misses);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096 + 2)
		return 0;

	/* The whole payload. */
	int whole = parse_copy(data, size, size, false, &g_whole);

	/* Length unknown: what the whole parse accepted is the same, and
	 * running out can only be a cut (where the whole parse stopped
	 * quietly because the server set TC). */
	int unknown = parse_copy(data, size, ENAV_DNS_LEN_UNKNOWN, false, &g_other);

	CHECK(!g_whole.capture_truncated);
	if (whole == 0) {
		CHECK(unknown == 0 && same_msg(&g_whole, &g_other));
		CHECK(!g_other.capture_truncated || g_whole.truncated_flag);
	}

	/* A cut capture of this payload: stops at the cut or at the same first
	 * error, and what it kept is a prefix of the whole parse. */
	if (size > 0) {
		size_t cut = size - 1 - (data[size - 1] % size);
		int rc = parse_copy(data, cut, size, false, &g_other);

		CHECK(rc == 0 || rc == ENAV_DNS_ETRUNCATED || rc == whole);
		if (whole == 0 && rc == 0) {
			CHECK(g_other.n_answers <= g_whole.n_answers);
			CHECK(strcmp(g_other.qname, g_whole.qname) == 0);
			for (uint32_t i = 0; i < g_other.n_answers; i++)
				CHECK(same_answer(&g_other.answers[i], &g_whole.answers[i]));
		}
	}

	/* Framed as TCP: the same message. */
	if (size <= 0xffff) {
		uint8_t *framed = malloc(size + 2);

		CHECK(framed != NULL);
		framed[0] = (uint8_t)(size >> 8);
		framed[1] = (uint8_t)size;
		if (size)
			memcpy(framed + 2, data, size);
		int rc = parse_copy(framed, size + 2, size + 2, true, &g_other);
		free(framed);
		CHECK(rc == whole);
		if (rc == 0)
			CHECK(same_msg(&g_whole, &g_other));
	}

	/* The raw bytes as a TCP chunk (the first two are the prefix). */
	(void)parse_copy(data, size, size, true, &g_other);

	if (whole == 0)
		feed_cache(&g_whole);
	return 0;
}
