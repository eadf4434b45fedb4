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

#include "model/dns_message.h"

#define ENAV_DNS_MAX_JUMPS   16	      /* compression pointers followed per name */
#define ENAV_DNS_LEN_UNKNOWN SIZE_MAX /* enav_dns_parse wire_len: not known */

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

/* Short stable token for an enav_dns_parse result ("ok", "short", "ptr_loop",
 * ...), suitable as a metric label; "unknown" for anything else. */
const char *enav_dns_strerror(int err);

#endif
