/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The L7 stream engine: what every parser of a request/response protocol
 * needs besides its own framing and field extraction.
 *
 *  - enav_l7_framer: one direction of a length-prefixed binary stream
 *    (PostgreSQL, MySQL, Kafka, MongoDB).  It reassembles each message's
 *    length prefix and the head of its body across fragments, skips bytes
 *    the kernel moved but did not copy (captured < len), and after a gap or
 *    a bad header looks for a plausible message start before framing again
 *    (resync).  The parser says how long the prefix is, what the prefix
 *    means, and what to do with a whole message.
 *  - enav_l7_fifo: the index arithmetic of the pending-request ring (at most
 *    ENAV_L7_MAX_PENDING entries, a full ring counts pending_overflow) and
 *    the pairing of a response with the request it answers.
 *
 * The parser keeps the ring's slots and the framer's kept bytes in its own
 * state (the state_size bytes the tracker allocates), so the engine holds
 * no memory of its own.
 */
#ifndef ENAV_FEATURES_NETWORK_L7_L7_STREAM_H
#define ENAV_FEATURES_NETWORK_L7_L7_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "features/network/l7/l7.h"

#define ENAV_L7_PREFIX_MAX 16 /* the longest length prefix (MongoDB's header) */

struct enav_l7_framer {
	uint8_t hdr[ENAV_L7_PREFIX_MAX]; /* the current message's prefix */
	uint8_t hdr_n, hdr_need;
	bool in_msg;	      /* a message has started */
	bool resync;	      /* framing lost: wait for a plausible start */
	bool keep_incomplete; /* some bytes that would have been kept were not captured */
	bool has_seq;
	uint32_t seq;	   /* TCP sequence of the message's first byte */
	uint32_t left;	   /* bytes after the prefix still to come */
	uint32_t keep_n;   /* bytes after the prefix kept so far */
	uint64_t start_ns; /* when its first byte arrived */
	uint64_t last_ns;  /* the latest fragment on this stream (set after gap()) */
};

/* What a between() hook decided about the byte where a message would start. */
enum enav_l7_between {
	ENAV_L7_BETWEEN_MESSAGE, /* a message starts here: frame it */
	ENAV_L7_BETWEEN_SKIP,	 /* a lone byte, consumed by the parser */
	ENAV_L7_BETWEEN_STOP,	 /* nothing more to read in this fragment */
};

/* A protocol's framing, called with the parser's state and the direction. */
struct enav_l7_framing {
	/* Bytes of the prefix that gives the next message's length (<= 16):
	 * prefix when it never changes (no call per message), else
	 * prefix_len(). */
	uint32_t prefix;
	uint32_t (*prefix_len)(void *st, enum enav_l7_stream dir);
	/* The prefix fr->hdr is read: set fr->left, the bytes that follow it,
	 * and return true; or call lose() and return false (bad header). */
	bool (*header)(void *st, enum enav_l7_stream dir, struct enav_l7_framer *fr,
		       const struct enav_l7_sink *out);
	/* Optional: n more bytes after the prefix moved, the first `captured`
	 * of them at data (also kept, up to the keep buffer).  False: the
	 * parser lost the stream, stop reading this fragment. */
	bool (*body)(void *st, enum enav_l7_stream dir, const uint8_t *data, uint32_t captured,
		     uint32_t n, const struct enav_l7_sink *out);
	/* The message's last byte arrived at ts (fr->in_msg is already false). */
	void (*end)(void *st, enum enav_l7_stream dir, struct enav_l7_framer *fr, uint64_t ts,
		    const struct enav_l7_sink *out);
	/* Resync: where a message plausibly starts in d[from..cap) of a fragment
	 * that moved len bytes, or -1.  NULL: only at a fragment's first byte,
	 * when starts_message() says so (one write per message makes a start
	 * there likely; anywhere else it would be a guess). */
	long (*find_start)(void *st, enum enav_l7_stream dir, const uint8_t *d, size_t from,
			   size_t cap, size_t len);
	bool (*starts_message)(void *st, enum enav_l7_stream dir, const uint8_t *d, size_t cap);
	/* Optional: the parser's own clean-up when framing is lost (a gap, a
	 * bad header, a prefix in bytes not captured).  The engine then drops
	 * the partial message and counts the resync (enav_l7_framed_lose). */
	void (*lose)(void *st, enum enav_l7_stream dir, const struct enav_l7_sink *out);
	/* Optional: the fragment follows lost bytes (f->gap), for a parser
	 * that salvages something first; NULL: enav_l7_framed_lose. */
	void (*gap)(void *st, enum enav_l7_stream dir, const struct enav_l7_sink *out);
	/* Optional: a byte that may stand alone between messages (PostgreSQL's
	 * answer to an SSLRequest). */
	enum enav_l7_between (*between)(void *st, enum enav_l7_stream dir, uint8_t byte,
					const struct enav_l7_sink *out);
	/* Optional: the stream cannot be read any more (encrypted, compressed). */
	bool (*opaque)(const void *st);
	/* Where in the parser's state each direction's framer is, and where
	 * the first keep_cap bytes after each message's prefix are kept
	 * (offsetof; keep_cap 0: nothing kept). */
	size_t framer_at[2], keep_at[2];
	uint32_t keep_cap[2];
	/* Count a resync for every loss, also one while already resyncing
	 * (Kafka, MongoDB: a stream that keeps losing shows it); else once per
	 * resync. */
	bool resync_every_loss;
};

/* Feed one fragment to the framer of its direction: a parser's feed. */
void enav_l7_framed_feed(const struct enav_l7_framing *ops, void *st,
			 const struct enav_l7_fragment *f, const struct enav_l7_sink *out);

/* Drop the partial message and wait for a plausible start; a resync is
 * counted once per loss. */
void enav_l7_framer_lose(struct enav_l7_framer *fr, const struct enav_l7_sink *out);

/* Framing of dir is lost: the parser's lose(), then the framer drops the
 * partial message and counts the resync as the framing says.  What the
 * engine calls, and what a parser calls when its own reading finds the
 * stream broken. */
void enav_l7_framed_lose(const struct enav_l7_framing *ops, void *st, enum enav_l7_stream dir,
			 const struct enav_l7_sink *out);
/* The same after a message the parser cannot read: counts a parse error. */
void enav_l7_framed_parse_error(const struct enav_l7_framing *ops, void *st,
				enum enav_l7_stream dir, const struct enav_l7_sink *out);

/* Defines enav_l7_<parser>_ops for a parser whose feed is the engine's
 * framing (an enav_l7_framing object, by name). */
#define ENAV_L7_FRAMED_PARSER(parser, state_type, detect_fn, init_fn, framing, finish_fn)          \
	static void parser##_framed_feed(void *st, const struct enav_l7_fragment *f,               \
					 const struct enav_l7_sink *out)                           \
	{                                                                                          \
		enav_l7_framed_feed(&(framing), st, f, out);                                       \
	}                                                                                          \
	ENAV_L7_PARSER(parser, state_type, detect_fn, init_fn, parser##_framed_feed, finish_fn)

/* ---- pairing ------------------------------------------------------------ */

/* One request and what answered it, as every request/response parser keeps
 * it: when each began and ended, their sizes, the request's TCP position. */
struct enav_l7_exchange {
	uint64_t start_ns, end_ns; /* end_ns 0, or before the start: the start */
	uint64_t request_bytes, response_bytes;
	uint32_t seq;
	bool has_seq;
};

/* The request side of an exchange: the message fr is framing, of
 * request_bytes in all. */
void enav_l7_exchange_begin(struct enav_l7_exchange *x, const struct enav_l7_framer *fr,
			    uint64_t request_bytes);

/* Completes op with x and hands it to the sink, counted in stats->ops.
 * An end before the start is the start (the two directions' events are
 * stamped on different CPUs). */
void enav_l7_emit_exchange(struct enav_l7_op *op, const struct enav_l7_exchange *x,
			   const struct enav_l7_sink *out);

/* ---- text protocols ------------------------------------------------------ */

/*
 * A body of announced length and the CRLF after it (a RESP bulk string, a
 * NATS payload), where the parser's phase is body_at in the body,
 * body_at + 1 before its CR and body_at + 2 before its LF.  Moves *phase and
 * *left past at most n bytes the syscall moved but the capture did not copy;
 * returns how many it took.  *ended: the LF was among them, the body is done
 * (the caller says what comes next).
 */
uint64_t enav_l7_crlf_body_skip(uint8_t *phase, uint64_t *left, uint8_t body_at, uint64_t n,
				bool *ended);

/* ---- pending-request ring ---------------------------------------------- */

/* The index arithmetic of a ring of ENAV_L7_MAX_PENDING entries whose
 * entries the parser holds, and the id each was pushed with: a response
 * names the request it answers by that id (Kafka's correlation id,
 * MongoDB's requestID), or answers the oldest. */
struct enav_l7_fifo {
	uint32_t head, count;
	uint32_t limit; /* entries it may hold: enav_l7_max_pending() */
	int64_t id[ENAV_L7_MAX_PENDING];
};

_Static_assert((ENAV_L7_MAX_PENDING & (ENAV_L7_MAX_PENDING - 1)) == 0,
	       "the ring wraps with a mask");

void enav_l7_fifo_init(struct enav_l7_fifo *q, uint32_t limit);

/* Array index of the i-th oldest entry (i may equal count: the next push). */
static inline uint32_t enav_l7_fifo_at(const struct enav_l7_fifo *q, uint32_t i)
{
	return (q->head + i) & (ENAV_L7_MAX_PENDING - 1);
}

/* Room for one more entry with this id: its array index, or -1 with
 * pending_overflow counted.  Inline, as pop: once per request. */
static inline long enav_l7_fifo_push(struct enav_l7_fifo *q, int64_t id,
				     const struct enav_l7_sink *out)
{
	if (q->count >= q->limit) {
		out->stats->pending_overflow++;
		return -1;
	}
	uint32_t at = enav_l7_fifo_at(q, q->count++);

	q->id[at] = id;
	return (long)at;
}

/* Drop the oldest entry (none: nothing). */
static inline void enav_l7_fifo_pop(struct enav_l7_fifo *q)
{
	if (q->count == 0)
		return;
	q->head = enav_l7_fifo_at(q, 1);
	q->count--;
}

/* Forget every entry without an answer (which request the next response
 * answers is unknown). */
static inline void enav_l7_fifo_clear(struct enav_l7_fifo *q)
{
	q->head = 0;
	q->count = 0;
}

/* Position (0 = oldest) of the oldest entry pushed with id, or -1. */
long enav_l7_fifo_find(const struct enav_l7_fifo *q, int64_t id);

/* The n oldest entries will get no response (an in-order protocol answered
 * a later one, or the connection closed): each is handed to
 * unanswered(st, array index, out), oldest first, then dropped. */
void enav_l7_fifo_expire(struct enav_l7_fifo *q, uint32_t n,
			 void (*unanswered)(void *st, uint32_t index,
					    const struct enav_l7_sink *out),
			 void *st, const struct enav_l7_sink *out);

#endif
