/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A DNS message as a dns.* signal carries it: the header, the first
 * question and the A, AAAA and CNAME answers, names in presentation form
 * (features/network/dns.h says how the parser fills it), and the names of
 * the protocol's numbers that every encoder writes.  Here, beside the
 * signal, so an exporter reads the message without including the network
 * feature.
 */
#ifndef ENAV_MODEL_DNS_MESSAGE_H
#define ENAV_MODEL_DNS_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENAV_DNS_HEADER_LEN    12
#define ENAV_DNS_LABEL_MAX     63  /* octets in one label */
#define ENAV_DNS_NAME_WIRE_MAX 255 /* octets of an uncompressed name, root included */
#define ENAV_DNS_MAX_ANSWERS   16  /* decoded answers kept per message */
/*
 * Longest presentation form of a name that fits ENAV_DNS_NAME_WIRE_MAX:
 * four labels of 63+63+62+62 octets, every octet escaped as \DDD, plus three
 * dots.  A printable hostname is at most 253 characters; only escapes make a
 * name longer.
 */
#define ENAV_DNS_NAME_MAX      1003
#define ENAV_DNS_HOSTNAME_MAX  253 /* presentation length of a name without escapes */
#define ENAV_DNS_TYPE_NAME_LEN 10  /* "TYPE65535" + NUL */

/* RR types and classes the parser and its callers name. */
enum {
	ENAV_DNS_TYPE_A = 1,
	ENAV_DNS_TYPE_NS = 2,
	ENAV_DNS_TYPE_CNAME = 5,
	ENAV_DNS_TYPE_SOA = 6,
	ENAV_DNS_TYPE_PTR = 12,
	ENAV_DNS_TYPE_MX = 15,
	ENAV_DNS_TYPE_TXT = 16,
	ENAV_DNS_TYPE_AAAA = 28,
	ENAV_DNS_TYPE_SRV = 33,
	ENAV_DNS_TYPE_OPT = 41,
	ENAV_DNS_TYPE_SVCB = 64,
	ENAV_DNS_TYPE_HTTPS = 65,
	ENAV_DNS_TYPE_ANY = 255,
};
#define ENAV_DNS_CLASS_IN 1

enum enav_dns_opcode {
	ENAV_DNS_OPCODE_QUERY = 0,
	ENAV_DNS_OPCODE_IQUERY = 1,
	ENAV_DNS_OPCODE_STATUS = 2,
	ENAV_DNS_OPCODE_NOTIFY = 4,
	ENAV_DNS_OPCODE_UPDATE = 5,
	ENAV_DNS_OPCODE_DSO = 6,
};

enum enav_dns_rcode {
	ENAV_DNS_RCODE_NOERROR = 0,
	ENAV_DNS_RCODE_FORMERR = 1,
	ENAV_DNS_RCODE_SERVFAIL = 2,
	ENAV_DNS_RCODE_NXDOMAIN = 3,
	ENAV_DNS_RCODE_NOTIMP = 4,
	ENAV_DNS_RCODE_REFUSED = 5,
};

/* Header flag bits (enav_dns_message.flags holds the raw 16-bit field). */
#define ENAV_DNS_FLAG_QR 0x8000u
#define ENAV_DNS_FLAG_AA 0x0400u
#define ENAV_DNS_FLAG_TC 0x0200u
#define ENAV_DNS_FLAG_RD 0x0100u
#define ENAV_DNS_FLAG_RA 0x0080u
#define ENAV_DNS_FLAG_AD 0x0020u
#define ENAV_DNS_FLAG_CD 0x0010u

struct enav_dns_answer {
	uint16_t type;	 /* ENAV_DNS_TYPE_A, _AAAA or _CNAME */
	uint16_t rclass; /* normally ENAV_DNS_CLASS_IN */
	uint32_t ttl;	 /* seconds; a value with the top bit set reads as 0 (RFC 2181 8) */
	/* The owner is the question name, or the target of a CNAME whose owner
	 * is: the record answers the question.  Anything else in the answer
	 * section (unrelated or injected records) is false. */
	bool in_chain;
	char name[ENAV_DNS_NAME_MAX + 1]; /* owner */
	union {
		uint8_t a[4];			   /* network order */
		uint8_t aaaa[16];		   /* network order */
		char cname[ENAV_DNS_NAME_MAX + 1]; /* target */
	} data;
};

/*
 * About 33 KB: keep one per consumer thread rather than on a small stack.
 * answers[i] for i >= n_answers is unspecified; everything else is set by
 * every call.
 */
struct enav_dns_message {
	uint16_t id;
	uint16_t flags; /* raw header flags: ENAV_DNS_FLAG_* | opcode << 11 | rcode */
	bool is_response;
	uint8_t opcode;	     /* enum enav_dns_opcode */
	uint8_t rcode;	     /* enum enav_dns_rcode; header value only (0..15) */
	bool truncated_flag; /* TC: the server truncated its own reply */
	/* The captured bytes ended before the answer section did: header and
	 * question are complete, answers holds those that were complete. */
	bool capture_truncated;
	uint16_t qdcount, ancount, nscount, arcount;

	bool has_question; /* false when qdcount is 0: qname is "" */
	char qname[ENAV_DNS_NAME_MAX + 1];
	uint16_t qtype, qclass;

	uint32_t n_answers;	  /* answers[0..n_answers) */
	uint32_t answers_skipped; /* complete answers of other types, skipped */
	uint32_t answers_dropped; /* A/AAAA/CNAME beyond ENAV_DNS_MAX_ANSWERS */
	struct enav_dns_answer answers[ENAV_DNS_MAX_ANSWERS];
};

/*
 * Mnemonic of an RR type: a static string for the common ones, otherwise
 * "TYPE<n>" (RFC 3597) written into buf (ENAV_DNS_TYPE_NAME_LEN bytes) and
 * buf returned.  With buf NULL an unknown type yields "UNKNOWN".
 */
const char *enav_dns_type_name(uint16_t type, char *buf);
/* "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", ...; "RCODE<n>" for the
 * unassigned header values 12..15; "INVALID" above 15. */
const char *enav_dns_rcode_name(unsigned rcode);
/* "QUERY", "IQUERY", "STATUS", "NOTIFY", "UPDATE", "DSO"; "OPCODE<n>" for
 * the unassigned 4-bit values; "INVALID" above 15. */
const char *enav_dns_opcode_name(unsigned opcode);
#endif
