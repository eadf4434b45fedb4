/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Application-protocol parsers: the contract between the connection tracker
 * (src/features/network/l7/l7_conn.c), which feeds captured payload fragments of one
 * TCP connection, and one parser per protocol (one file each), which turns
 * them into operations: request/response pairs or one-way messages.
 *
 * Rules every parser keeps:
 *  - Bounded: its whole state is the fixed state_size bytes the tracker
 *    allocates per connection (plus, for HTTP/2 only, nghttp2's inflater,
 *    whose table size is capped).  Pending requests sit in a fixed-size FIFO
 *    of at most ENAV_L7_MAX_PENDING entries; an overflow is counted, never
 *    grown.
 *  - Incremental: a message may arrive split at any byte across fragments,
 *    several messages may arrive in one fragment (pipelining), and a fragment
 *    may carry fewer bytes than the syscall moved (captured < len: the rest
 *    was not copied, but it is part of the stream and must be skipped).
 *  - Safe: any byte sequence is valid input.  On bytes that cannot be
 *    framed the parser counts a parse error and resynchronizes (drops its
 *    partial message and looks for a plausible message start in later
 *    fragments) instead of emitting a guessed operation.
 *  - Private by default: literal values never leave the node unless the
 *    options ask for them (query strings, statement literals, payloads).
 *
 * A length-prefixed protocol leaves reassembly, uncaptured bytes, gaps,
 * resync and id pairing to the stream engine (l7_stream.h) and keeps only
 * its framing and field extraction.
 */
#ifndef ENAV_FEATURES_NETWORK_L7_L7_H
#define ENAV_FEATURES_NETWORK_L7_L7_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/l7_op.h"

/* Which direction of the connection a fragment belongs to.  The tracker maps
 * the socket's role onto this: a client's writes and a server's reads are
 * the request stream. */
enum enav_l7_stream {
	ENAV_L7_REQUEST = 0,
	ENAV_L7_RESPONSE = 1,
};

#define ENAV_L7_MAX_PENDING 32 /* requests awaiting their response, per connection */

struct enav_l7_fragment {
	enum enav_l7_stream stream;
	const uint8_t *data; /* captured bytes: the first `captured` of the `len` moved */
	uint32_t captured;
	uint32_t len;	/* bytes the syscall moved (>= captured) */
	uint64_t ts_ns; /* boot-time ns when the syscall returned */
	bool gap;	/* bytes before this fragment on this stream were lost: resync */
	bool has_seq;	/* seq is the TCP sequence number of the first byte */
	uint32_t seq;
};

struct enav_l7_options {
	bool keep_query;	  /* HTTP: keep the query string in op.path */
	bool sanitized_statement; /* SQL: fill op.statement with literals replaced by '?' */
	uint32_t max_pending;	  /* FIFO cap, 1..ENAV_L7_MAX_PENDING */
};

/* Self-accounting a parser bumps; the tracker exports them per protocol. */
struct enav_l7_parser_stats {
	uint64_t ops;		      /* operations emitted */
	uint64_t parse_errors;	      /* bytes that could not be framed (then resync) */
	uint64_t resyncs;	      /* gaps and errors recovered from */
	uint64_t pending_overflow;    /* requests dropped: FIFO full */
	uint64_t unmatched_responses; /* a response with no request seen */
	uint64_t truncated_fields;    /* operation/target/path/status cut to its cap */
};

struct enav_l7_sink {
	void (*op)(void *ctx, const struct enav_l7_op *op);
	void *ctx;
	struct enav_l7_parser_stats *stats; /* never NULL */
	/* Optional (NULL: none): a zeroed op for the parser to build the next
	 * one in, then given to op() as is, so the sink keeps it without a
	 * copy (the tracker hands out the span signal's own; issue 32).  NULL
	 * back when there is none: the parser builds the op where it would
	 * have.  A parser that asks must give it to op() before it asks again
	 * or returns. */
	struct enav_l7_op *(*op_slot)(void *ctx);
};

struct enav_l7_parser_ops {
	enum enav_l7_protocol protocol; /* its name: enav_l7_protocol_name() */
	size_t state_size;
	/* Cheap: does the first fragment of `stream` look like this protocol?
	 * n may be less than a whole message. */
	bool (*detect)(const uint8_t *d, size_t n, enum enav_l7_stream stream);
	/* state is zeroed, state_size bytes.  Returns 0 or -errno. */
	int (*init)(void *state, const struct enav_l7_options *opt);
	void (*feed)(void *state, const struct enav_l7_fragment *f, const struct enav_l7_sink *out);
	/* The connection closed: requests still pending may be emitted with
	 * response_seen = false, then every resource is released. */
	void (*finish)(void *state, const struct enav_l7_sink *out);
};

/* enav_l7_http1_ops, ...: one per classified protocol, from the list. */
#define ENAV_L7_PARSER_EXTERN(ID, id, parser, name, family)                                        \
	extern const struct enav_l7_parser_ops enav_l7_##parser##_ops;
ENAV_L7_CLASSIFIED_PROTOCOLS(ENAV_L7_PARSER_EXTERN)
#undef ENAV_L7_PARSER_EXTERN

/* The protocol of each parser, by the list's parser column
 * (ENAV_L7_PARSER_OF_http1 is ENAV_L7_HTTP1). */
#define ENAV_L7_PARSER_OF_ROW(ID, id, parser, name, family) ENAV_L7_PARSER_OF_##parser = id,
enum { ENAV_L7_CLASSIFIED_PROTOCOLS(ENAV_L7_PARSER_OF_ROW) };
#undef ENAV_L7_PARSER_OF_ROW

/* Defines enav_l7_<parser>_ops, in the parser's file: its protocol, and so
 * its name, come from its row of the list. */
#define ENAV_L7_PARSER(parser, state_type, detect_fn, init_fn, feed_fn, finish_fn)                 \
	const struct enav_l7_parser_ops enav_l7_##parser##_ops = {                                 \
	    .protocol = (enum enav_l7_protocol)ENAV_L7_PARSER_OF_##parser,                         \
	    .state_size = sizeof(state_type),                                                      \
	    .detect = detect_fn,                                                                   \
	    .init = init_fn,                                                                       \
	    .feed = feed_fn,                                                                       \
	    .finish = finish_fn,                                                                   \
	}

/* The parser of protocol p (l7_parsers.c); NULL for none, as for a protocol
 * reached only through another's upgrade (WebSocket, fed by http1). */
const struct enav_l7_parser_ops *enav_l7_parser(enum enav_l7_protocol p);
/* enum enav_tls_library (include/enav/abi.h) -> "openssl", "gnutls", "go";
 * NULL for none or unknown. */
const char *enav_tls_library_name(int library);

/* The pending-FIFO size a parser uses: opt->max_pending clamped to
 * 1..ENAV_L7_MAX_PENDING, ENAV_L7_MAX_PENDING when unset or opt is NULL. */
uint32_t enav_l7_max_pending(const struct enav_l7_options *opt);

/* Copy at most cap-1 bytes of s[0..n) into dst as printable ASCII (others
 * become '?'), NUL-terminated.  Returns true when it had to cut. */
bool enav_l7_copy_text(char *dst, size_t cap, const void *s, size_t n);

#endif
