/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/dns.h"

#include <stdio.h>
#include <string.h>

_Static_assert(4 * (63 + 63 + 62 + 62) + 3 == ENAV_DNS_NAME_MAX, "worst-case escaped name");
_Static_assert(4 + 63 + 63 + 62 + 62 + 1 == ENAV_DNS_NAME_WIRE_MAX, "worst case is a full name");

/* Internal: the capture ended here (the message goes on past it). */
#define CUT 1

/*
 * The message as captured: m[0..cap) are the bytes we hold, end is where the
 * message really stops (SIZE_MAX when unknown).  cap <= end.
 */
struct wire {
	const uint8_t *m;
	size_t cap;
	size_t end;
};

/* Are m[0..want) available?  0, CUT (beyond the capture only) or overrun. */
static int need(const struct wire *w, size_t want, int overrun)
{
	if (want <= w->cap)
		return 0;
	return want <= w->end ? CUT : overrun;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)((unsigned)p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Presentation form of one label appended at out[*at]; out has room for the
 * whole worst-case name, so only a broken invariant could overflow it. */
static void put_label(char *out, size_t *at, const uint8_t *lab, size_t n)
{
	size_t o = *at;

	for (size_t i = 0; i < n; i++) {
		uint8_t c = lab[i];

		if (c >= 'A' && c <= 'Z') {
			out[o++] = (char)(c - 'A' + 'a');
		} else if (c == '.' || c == '\\' || c == '"') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c >= 0x21 && c <= 0x7e) {
			out[o++] = (char)c;
		} else {
			out[o++] = '\\';
			out[o++] = (char)('0' + c / 100);
			out[o++] = (char)('0' + c / 10 % 10);
			out[o++] = (char)('0' + c % 10);
		}
	}
	*at = o;
}

/*
 * Read the name at *pos.  On success *pos is past its in-place part (up to and
 * including the first pointer or the root label) and, when out is not NULL,
 * out holds the presentation form.  On failure out is "" and *pos unchanged.
 * The in-place part must end by limit (ENAV_DNS_ERDATA otherwise): RDATA
 * bounds a name inside it.
 *
 * Every pointer must land strictly before the start of the run of labels it
 * ends, so each jump moves to a lower offset and the walk always terminates;
 * the jump cap only bounds the work.  A target inside the runs already read
 * is reported as a loop, any other target not below the run as forward.
 */
static int read_name(const struct wire *w, size_t *pos, size_t limit, char *out)
{
	size_t run_start[ENAV_DNS_MAX_JUMPS + 1], run_end[ENAV_DNS_MAX_JUMPS + 1];
	size_t p = *pos, next = 0, wire_len = 0, o = 0;
	unsigned jumps = 0;
	int err;

	if (out)
		out[0] = '\0';
	run_start[0] = p;
	for (;;) {
		if (jumps == 0 && p + 1 > limit) {
			err = ENAV_DNS_ERDATA;
			goto fail;
		}
		if ((err = need(w, p + 1, ENAV_DNS_EOVERRUN)))
			goto fail;
		uint8_t c = w->m[p];

		if ((c & 0xc0) == 0xc0) {
			err = jumps == 0 && p + 2 > limit ? ENAV_DNS_ERDATA
							  : need(w, p + 2, ENAV_DNS_EOVERRUN);
			if (err)
				goto fail;
			size_t t = (size_t)(c & 0x3f) << 8 | w->m[p + 1];

			run_end[jumps] = p + 2;
			if (jumps == 0)
				next = p + 2;
			err = 0;
			if (t < ENAV_DNS_HEADER_LEN || t >= w->end) {
				err = ENAV_DNS_EPTRRANGE;
			} else if (t >= run_start[jumps]) {
				err = ENAV_DNS_EPTRFWD;
				for (unsigned i = 0; i <= jumps; i++)
					if (t >= run_start[i] && t < run_end[i])
						err = ENAV_DNS_EPTRLOOP;
			} else if (jumps == ENAV_DNS_MAX_JUMPS) {
				err = ENAV_DNS_EPTRMANY;
			}
			if (err)
				goto fail;
			/* t < run_start <= cap: the target is held. */
			run_start[++jumps] = t;
			p = t;
			continue;
		}
		if (c & 0xc0) {
			err = ENAV_DNS_ELABEL;
			goto fail;
		}
		/* A length octet; the root label ends the name. */
		wire_len += 1u + c;
		if (wire_len > ENAV_DNS_NAME_WIRE_MAX ||
		    (c && wire_len == ENAV_DNS_NAME_WIRE_MAX)) {
			err = ENAV_DNS_ENAMELEN;
			goto fail;
		}
		if (c == 0) {
			if (jumps == 0)
				next = p + 1;
			break;
		}
		err = jumps == 0 && p + 1 + c > limit ? ENAV_DNS_ERDATA
						      : need(w, p + 1 + c, ENAV_DNS_EOVERRUN);
		if (err)
			goto fail;
		if (out) {
			if (o)
				out[o++] = '.';
			put_label(out, &o, w->m + p + 1, c);
		}
		p += 1u + c;
	}
	if (out) {
		if (o == 0)
			out[o++] = '.';
		out[o] = '\0';
	}
	*pos = next;
	return 0;
fail:
	if (out)
		out[0] = '\0';
	return err;
}

/* Mark the answers that answer the question: owned by qname, or by the
 * target of a CNAME already in the chain.  At most n passes of n answers. */
static void mark_chain(struct enav_dns_message *m)
{
	bool grew = true;

	for (uint32_t i = 0; i < m->n_answers; i++)
		m->answers[i].in_chain =
		    m->has_question && strcmp(m->answers[i].name, m->qname) == 0;
	while (grew) {
		grew = false;
		for (uint32_t i = 0; i < m->n_answers; i++) {
			const struct enav_dns_answer *c = &m->answers[i];

			if (!c->in_chain || c->type != ENAV_DNS_TYPE_CNAME)
				continue;
			for (uint32_t j = 0; j < m->n_answers; j++) {
				struct enav_dns_answer *a = &m->answers[j];

				if (!a->in_chain && strcmp(a->name, c->data.cname) == 0) {
					a->in_chain = true;
					grew = true;
				}
			}
		}
	}
}

/* One answer RR at *pos.  0 (kept, skipped or dropped), CUT, or an error. */
static int read_answer(const struct wire *w, size_t *pos, struct enav_dns_message *m)
{
	struct enav_dns_answer *a =
	    m->n_answers < ENAV_DNS_MAX_ANSWERS ? &m->answers[m->n_answers] : NULL;
	size_t p = *pos;
	int err;

	if ((err = read_name(w, &p, SIZE_MAX, a ? a->name : NULL)))
		return err;
	if ((err = need(w, p + 10, ENAV_DNS_EOVERRUN)))
		return err;
	uint16_t type = get16(w->m + p), rclass = get16(w->m + p + 2);
	uint32_t ttl = get32(w->m + p + 4);
	size_t rdlen = get16(w->m + p + 8), rd = p + 10;

	if ((err = need(w, rd + rdlen, ENAV_DNS_ERDLEN)))
		return err;
	*pos = rd + rdlen;
	if (type != ENAV_DNS_TYPE_A && type != ENAV_DNS_TYPE_AAAA && type != ENAV_DNS_TYPE_CNAME) {
		m->answers_skipped++;
		return 0;
	}
	if ((type == ENAV_DNS_TYPE_A && rdlen != 4) || (type == ENAV_DNS_TYPE_AAAA && rdlen != 16))
		return ENAV_DNS_ERDATA;
	if (type == ENAV_DNS_TYPE_CNAME) {
		/* The target fills RDATA exactly; RDATA is held and pointers
		 * go backward, so running out here is not a cut. */
		size_t q = rd;

		if ((err = read_name(w, &q, rd + rdlen, a ? a->data.cname : NULL)))
			return err;
		if (q != rd + rdlen)
			return ENAV_DNS_ERDATA;
	}
	if (!a) {
		m->answers_dropped++;
		return 0;
	}
	a->type = type;
	a->rclass = rclass;
	a->ttl = ttl & 0x80000000u ? 0 : ttl;
	a->in_chain = false;
	if (type == ENAV_DNS_TYPE_A)
		memcpy(a->data.a, w->m + rd, 4);
	else if (type == ENAV_DNS_TYPE_AAAA)
		memcpy(a->data.aaaa, w->m + rd, 16);
	m->n_answers++;
	return 0;
}

int enav_dns_parse(const uint8_t *buf, size_t len, size_t wire_len, bool tcp,
		   struct enav_dns_message *out)
{
	struct wire w;
	int err = 0;

	if (!out)
		return ENAV_DNS_EINVAL;
	memset(out, 0, offsetof(struct enav_dns_message, answers));
	if (!buf && len)
		return ENAV_DNS_EINVAL;
	if (wire_len < len)
		wire_len = len; /* the capture cannot exceed the payload */

	if (tcp) {
		if (len < 2) {
			if (wire_len < 2)
				return ENAV_DNS_ESHORT;
			out->capture_truncated = true;
			return ENAV_DNS_ETRUNCATED;
		}
		size_t mlen = get16(buf);

		w.m = buf + 2;
		w.end = mlen;
		w.cap = len - 2 < mlen ? len - 2 : mlen;
	} else {
		w.m = buf;
		w.cap = len;
		w.end = wire_len;
	}

	if ((err = need(&w, ENAV_DNS_HEADER_LEN, ENAV_DNS_ESHORT))) {
		if (err != CUT)
			return err;
		out->capture_truncated = true;
		return ENAV_DNS_ETRUNCATED;
	}
	const uint8_t *h = w.m;

	out->id = get16(h);
	out->flags = get16(h + 2);
	out->is_response = out->flags & ENAV_DNS_FLAG_QR;
	out->opcode = (uint8_t)(out->flags >> 11 & 0xf);
	out->rcode = (uint8_t)(out->flags & 0xf);
	out->truncated_flag = out->flags & ENAV_DNS_FLAG_TC;
	out->qdcount = get16(h + 4);
	out->ancount = get16(h + 6);
	out->nscount = get16(h + 8);
	out->arcount = get16(h + 10);

	size_t pos = ENAV_DNS_HEADER_LEN;

	/* The first question must be whole. */
	if (out->qdcount) {
		err = read_name(&w, &pos, SIZE_MAX, out->qname);
		if (!err)
			err = need(&w, pos + 4, ENAV_DNS_EOVERRUN);
		if (err == CUT) {
			out->qname[0] = '\0';
			out->capture_truncated = true;
			return ENAV_DNS_ETRUNCATED;
		}
		if (err) {
			out->qname[0] = '\0';
			return err;
		}
		out->has_question = true;
		out->qtype = get16(w.m + pos);
		out->qclass = get16(w.m + pos + 2);
		pos += 4;
	}
	/* Later questions only stand between us and the answers.  Each takes
	 * at least 5 octets, so the loop is bounded by the capture. */
	for (unsigned i = 1; i < out->qdcount; i++) {
		err = read_name(&w, &pos, SIZE_MAX, NULL);
		if (!err)
			err = need(&w, pos + 4, ENAV_DNS_EOVERRUN);
		if (err)
			goto answers_done;
		pos += 4;
	}
	for (unsigned i = 0; i < out->ancount; i++) {
		err = read_answer(&w, &pos, out);
		if (err)
			break;
	}
	/* A server that sets TC may have cut its reply mid-record (RFC 1035
	 * allowed it): the records it did send stand. */
	if (out->truncated_flag && (err == ENAV_DNS_EOVERRUN || err == ENAV_DNS_ERDLEN))
		err = 0;
answers_done:
	if (err == CUT) {
		out->capture_truncated = true;
		err = 0;
	}
	mark_chain(out);
	return err;
}

const char *enav_dns_strerror(int err)
{
	static const char *const names[ENAV_DNS_ERROR_COUNT] = {
	    "ok",	    "invalid",	     "short",	 "truncated",	"overrun",
	    "bad_label",    "name_too_long", "ptr_loop", "ptr_forward", "ptr_range",
	    "ptr_too_many", "rdlength",	     "rdata",
	};

	return err <= 0 && err > -ENAV_DNS_ERROR_COUNT ? names[-err] : "unknown";
}
