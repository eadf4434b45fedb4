/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTTP/1.x parser's state, shared by its byte loop, FIFO and message
 * bookkeeping (http1.c) and its start-line and header handling
 * (http1_head.c).  See http1.c for the rules.
 */
#ifndef ENAV_FEATURES_NETWORK_L7_HTTP1_STATE_H
#define ENAV_FEATURES_NETWORK_L7_HTTP1_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "features/network/l7/l7.h"
#include "features/network/l7/l7_stream.h"
#include "features/network/l7/websocket.h"

#define H1_LINE_MAX	    1024	/* bytes kept of a start, header or trailer line */
#define H1_HEAD_MAX	    (64 * 1024) /* start line + headers, or trailers */
#define H1_LEADING_MAX	    8		/* CR/LF bytes tolerated before a start line */
#define H1_CHUNK_EXT_MAX    4096	/* chunk extensions of one chunk-size line */
#define H1_CHUNK_DIGITS_MAX 16
#define H1_BODY_MAX	    (1ull << 62)

/*
 * The header fields the parser reads (framing, upgrade, span): one list, so
 * that field_of() in http1_head.c, which matches a name against it, and
 * enav_h1_field_never_read(), which skips a line by its first byte, cannot
 * disagree.  Names are lower case; the enum in http1_head.c is F_<first>.
 */
#define ENAV_H1_READ_FIELDS(X)                                                                     \
	X(CONTENT_LENGTH, "content-length")                                                        \
	X(TRANSFER_ENCODING, "transfer-encoding")                                                  \
	X(CONNECTION, "connection")                                                                \
	X(UPGRADE, "upgrade")                                                                      \
	X(CONTENT_TYPE, "content-type")                                                            \
	X(TRACEPARENT, "traceparent")

/*
 * Is a header line that starts with this byte surely of no field the parser
 * reads?  A letter no read field starts with: then the line is skipped
 * without being looked at further.  Most of a response's lines are (Server,
 * Date, ETag, Last-Modified, Accept-Ranges).  Anything else, the blank line
 * that ends the head included, is not.  The compiler folds the list's first
 * letters into a few compares.
 */
static inline bool enav_h1_field_never_read(char first)
{
	char c = (char)(first | 0x20);

	if (c < 'a' || c > 'z')
		return false;
#define ENAV_H1_FIRST_IS(field, name)                                                              \
	if (c == (name)[0])                                                                        \
		return false;
	ENAV_H1_READ_FIELDS(ENAV_H1_FIRST_IS)
#undef ENAV_H1_FIRST_IS
	return true;
}

enum h1_phase {
	P_START = 0,	/* at a message boundary */
	P_HEADERS,	/* start line and header lines */
	P_BODY_LEN,	/* Content-Length body */
	P_CHUNK_SIZE,	/* chunk-size hex digits */
	P_CHUNK_EXT,	/* rest of a chunk-size line */
	P_CHUNK_DATA,	/* chunk data */
	P_CHUNK_CRLF,	/* the CRLF after chunk data */
	P_TRAILERS,	/* trailer lines after the last chunk */
	P_BODY_CLOSE,	/* response body until the connection closes */
	P_RESYNC,	/* lost: looking for a start line */
	P_UPGRADE_WAIT, /* request side: an upgrade/CONNECT sent, its response not yet seen */
	P_WEBSOCKET,	/* RFC 6455 frames */
	P_TUNNEL,	/* opaque bytes until close */
};

enum h1_switch {
	SW_NONE = 0,
	SW_WEBSOCKET,
	SW_TUNNEL,
};

/* A request: in the making (h1_state.cur), then in the FIFO. */
struct h1_req {
	uint64_t start_ns, bytes;
	uint32_t id, seq;
	uint16_t skip_after; /* requests dropped (FIFO full) right after this one */
	bool has_seq, head, connect, upgrade_ws, rpc, has_tp;
	uint8_t trace_id[16], parent_id[8], trace_flags;
	char method[ENAV_L7_OPERATION_MAX];
	char target[ENAV_L7_TARGET_MAX];
	char path[ENAV_L7_PATH_MAX];
};

/* What the headers of the message being read said. */
struct h1_msg {
	uint64_t start_ns, bytes;
	uint32_t seq, head_bytes;
	int64_t content_length; /* -1: none */
	int status;		/* response */
	bool has_seq, started, start_done, interim, decided, matched, pushed;
	bool bad_framing, te_present, te_chunked_last;
	bool conn_upgrade, upgrade_any, upgrade_ws, rpc;
	uint8_t tp_count;
	bool tp_ok;
	uint8_t trace_id[16], parent_id[8], trace_flags;
};

struct h1_stream {
	uint8_t phase; /* enum h1_phase */
	bool line_cut, wait_ws;
	uint8_t leading, chunk_digits, crlf;
	uint16_t line_len;
	uint32_t ext_bytes;
	uint64_t remaining;
	uint64_t last_ts;
	struct h1_msg m;
	struct enav_l7_ws ws;
	char line[H1_LINE_MAX];
};

struct h1_state {
	bool keep_query, finished;
	uint8_t switched;   /* enum h1_switch */
	bool uncertain;	    /* requests may have been lost after loss_mark: pair causally */
	uint32_t loss_mark; /* the last request id assigned before the loss */
	bool cur_pushed;    /* the request being read is in the FIFO as cur_id */
	uint32_t cur_id, next_id;
	struct enav_l7_fifo q; /* the requests awaiting a response, in fifo[] */
	uint32_t skip_responses;
	uint64_t last_ts;
	struct h1_stream s[2];
	struct h1_req cur;
	struct h1_req fifo[ENAV_L7_MAX_PENDING];
	char ws_target[ENAV_L7_TARGET_MAX];
	char ws_path[ENAV_L7_PATH_MAX];
};

static inline unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static inline bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline int hexval(unsigned char c)
{
	if (is_digit(c))
		return c - '0';
	c = lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* http1.c: the pending FIFO, message bookkeeping and start-line signatures */
void enav_h1_decide_match(struct h1_state *st, const struct enav_l7_sink *out);
void enav_h1_enter_switched(struct h1_state *st, enum enav_l7_stream stream);
struct h1_req *enav_h1_fifo_at(struct h1_state *st, uint32_t i);
void enav_h1_message_done(struct h1_state *st, enum enav_l7_stream stream,
			  const struct enav_l7_fragment *f, const struct enav_l7_sink *out);
bool enav_h1_method_char(unsigned char c);
void enav_h1_msg_interim(struct h1_stream *s);
void enav_h1_msg_reset(struct h1_stream *s);
void enav_h1_parse_error(struct h1_state *st, enum enav_l7_stream stream, uint64_t end_ns,
			 const struct enav_l7_sink *out);
void enav_h1_push_request(struct h1_state *st, const struct enav_l7_sink *out);
void enav_h1_request_done(struct h1_state *st);
void enav_h1_response_done(struct h1_state *st, uint64_t end_ns, const struct enav_l7_sink *out);
bool enav_h1_response_sig(const uint8_t *d, size_t n);

/* http1_head.c: a start line or header line of stream is complete */
void enav_h1_line_done(struct h1_state *st, enum enav_l7_stream stream, const char *l, size_t n,
		       bool cut, const struct enav_l7_fragment *f, const struct enav_l7_sink *out);

#endif
