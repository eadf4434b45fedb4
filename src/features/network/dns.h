/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bounded parser for one DNS message (RFC 1035, AAAA from RFC 3596) captured
 * from a socket payload.  Pure: no I/O, no allocation, nothing read past the
 * bytes given.  The capture may be cut short (the probe copies at most the
 * first bytes of a payload); what was complete is reported and the cut is
 * flagged, never guessed across.
 *
 * Parsed: the header, the first question (later questions are validated and
 * skipped), and the answer section.  A, AAAA and CNAME answers are decoded;
 * other types are skipped by RDLENGTH and counted.  The authority and
 * additional sections are not read (so neither is EDNS: rcode is the 4-bit
 * header value).
 *
 * Names are decompressed into presentation form: labels joined by '.', no
 * trailing dot (the root is "."), ASCII letters lowercased (RFC 4343).  A byte
 * outside 0x21..0x7e is written as \DDD (three decimal digits) and a '.', '\'
 * or '"' inside a label as \. \\ \" so a name is always one token of printable
 * ASCII, whatever the wire held.
 *
 * Compression pointers must point strictly before the start of the run of
 * labels that holds them (a prior occurrence, RFC 1035 4.1.4), never into the
 * 12-byte header, and at most ENAV_DNS_MAX_JUMPS are followed per name, so a
 * pointer loop cannot be expressed.
 */
#ifndef ENAV_FEATURES_NETWORK_DNS_H
#define ENAV_FEATURES_NETWORK_DNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENAV_DNS_HEADER_LEN    12
#define ENAV_DNS_LABEL_MAX     63  /* octets in one label */
#define ENAV_DNS_NAME_WIRE_MAX 255 /* octets of an uncompressed name, root included */
#define ENAV_DNS_MAX_JUMPS     16  /* compression pointers followed per name */
#define ENAV_DNS_MAX_ANSWERS   16  /* decoded answers kept per message */
/*
 * Longest presentation form of a name that fits ENAV_DNS_NAME_WIRE_MAX:
 * four labels of 63+63+62+62 octets, every octet escaped as \DDD, plus three
 * dots.  A printable hostname is at most 253 characters; only escapes make a
 * name longer.
 */
#define ENAV_DNS_NAME_MAX      1003
#define ENAV_DNS_HOSTNAME_MAX  253	/* presentation length of a name without escapes */
#define ENAV_DNS_TYPE_NAME_LEN 10	/* "TYPE65535" + NUL */
#define ENAV_DNS_LEN_UNKNOWN   SIZE_MAX /* enav_dns_parse wire_len: not known */

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

/* Why a message was rejected: enav_dns_parse returns one of these. */
enum enav_dns_error {
	ENAV_DNS_OK = 0,
	ENAV_DNS_EINVAL = -1,	  /* NULL buffer or output */
	ENAV_DNS_ESHORT = -2,	  /* the message is shorter than a header (or a TCP prefix) */
	ENAV_DNS_ETRUNCATED = -3, /* the capture ended before the header and question did */
	ENAV_DNS_EOVERRUN = -4,	  /* a name, question or record runs past the message end */
	ENAV_DNS_ELABEL = -5,	  /* label type 01 or 10 (extended/reserved; length 64..191) */
	ENAV_DNS_ENAMELEN = -6,	  /* a name longer than ENAV_DNS_NAME_WIRE_MAX octets */
	ENAV_DNS_EPTRLOOP = -7,	  /* a pointer to octets this name already read */
	ENAV_DNS_EPTRFWD = -8,	  /* a pointer to a later octet */
	ENAV_DNS_EPTRRANGE = -9,  /* a pointer into the header or past the message end */
	ENAV_DNS_EPTRMANY = -10,  /* more than ENAV_DNS_MAX_JUMPS pointers in one name */
	ENAV_DNS_ERDLEN = -11,	  /* RDATA runs past the message end */
	ENAV_DNS_ERDATA = -12,	  /* A/AAAA RDLENGTH not 4/16, or a CNAME not filling RDATA */
};
#define ENAV_DNS_ERROR_COUNT 13 /* -enav_dns_error spans 0..12 */

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
 * Parse the message in buf[0..len) (the captured bytes; nothing past len is
 * read).
 *
 * wire_len is the payload length before capture (the bytes the syscall
 * moved, >= len; a smaller value counts as len): running out of bytes below
 * it is a cut capture, at it a malformed message.  Pass len when buf is the
 * whole payload, ENAV_DNS_LEN_UNKNOWN when the length is not known, in which
 * case running out of bytes is always taken for a cut capture.
 *
 * tcp: buf starts with the 2-octet length prefix of RFC 1035 4.2.2, which
 * alone decides the message end (bytes after it, e.g. a second pipelined
 * message, are ignored; a prefix beyond the chunk means the rest was not
 * captured).  A chunk that does not start at a message boundary cannot be
 * recognized and parses as garbage or is rejected.
 *
 * Returns 0 when the header and the first question (if any) are complete and
 * well formed; the answer section is then parsed up to the first cut
 * (capture_truncated).  Returns a negative enum enav_dns_error otherwise,
 * including for a malformed answer, except that when the server set TC an
 * answer running past the message end just ends the section (RFC 1035
 * servers may cut a reply mid-record).  out is always left consistent (strings
 * NUL-terminated, n_answers <= ENAV_DNS_MAX_ANSWERS) but after an error only
 * the fields read before it are meaningful.
 */
int enav_dns_parse(const uint8_t *buf, size_t len, size_t wire_len, bool tcp,
		   struct enav_dns_message *out);

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
/* Short stable token for an enav_dns_parse result ("ok", "short", "ptr_loop",
 * ...), suitable as a metric label; "unknown" for anything else. */
const char *enav_dns_strerror(int err);

#endif
