/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The L7 stream engine on its own, with a toy protocol (a 2-byte big-endian
 * length, then that many bytes): a prefix split across fragments, the head
 * kept up to its cap, bytes not captured skipped by length, a prefix in
 * uncaptured bytes and a gap losing the framing, resync at the first start
 * the parser accepts; and the pending ring: overflow, pairing by id across
 * a wrap, expiry of the older entries; and a text protocol's body and CRLF
 * skipped across uncaptured bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "features/network/l7/l7_stream.h"

#define KEEP 4

struct toy {
	struct enav_l7_framer fr[2];
	uint8_t keep[2][KEEP];
	int ends, losses, gaps;
	uint32_t last_len, last_kept, body_bytes, body_captured;
	uint8_t last_head[KEEP];
	uint64_t last_start_ns;
};

static uint32_t toy_prefix(void *st, enum enav_l7_stream dir)
{
	return 2;
}

static bool toy_header(void *st, enum enav_l7_stream dir, struct enav_l7_framer *fr,
		       const struct enav_l7_sink *out)
{
	struct toy *t = st;

	t->last_len = (uint32_t)fr->hdr[0] << 8 | fr->hdr[1];
	fr->left = t->last_len;
	t->body_bytes = t->body_captured = 0;
	return true;
}

static bool toy_body(void *st, enum enav_l7_stream dir, const uint8_t *data, uint32_t captured,
		     uint32_t n, const struct enav_l7_sink *out)
{
	struct toy *t = st;

	t->body_bytes += n;
	t->body_captured += captured;
	return true;
}

static void toy_end(void *st, enum enav_l7_stream dir, struct enav_l7_framer *fr, uint64_t ts,
		    const struct enav_l7_sink *out)
{
	struct toy *t = st;

	t->ends++;
	t->last_kept = fr->keep_n;
	t->last_start_ns = fr->start_ns;
	memcpy(t->last_head, t->keep[dir], KEEP);
}

/* A message plausibly starts where the length's high byte is 0. */
static long toy_find(void *st, enum enav_l7_stream dir, const uint8_t *d, size_t from, size_t cap,
		     size_t len)
{
	for (size_t i = from; i < cap; i++)
		if (d[i] == 0)
			return (long)i;
	return -1;
}

static const struct enav_l7_framing toy_framing;

static void toy_lose(void *st, enum enav_l7_stream dir, const struct enav_l7_sink *out)
{
	struct toy *t = st;

	(void)dir;
	(void)out;
	t->losses++;
}

static void toy_gap(void *st, enum enav_l7_stream dir, const struct enav_l7_sink *out)
{
	((struct toy *)st)->gaps++;
	enav_l7_framed_lose(&toy_framing, st, dir, out);
}

static const struct enav_l7_framing toy_framing = {
    .prefix_len = toy_prefix,
    .header = toy_header,
    .body = toy_body,
    .end = toy_end,
    .find_start = toy_find,
    .lose = toy_lose,
    .gap = toy_gap,
    .framer_at = {offsetof(struct toy, fr[0]), offsetof(struct toy, fr[1])},
    .keep_at = {offsetof(struct toy, keep[0]), offsetof(struct toy, keep[1])},
    .keep_cap = {KEEP, KEEP},
};

static struct enav_l7_parser_stats stats;
static const struct enav_l7_sink sink = {.stats = &stats};

static void feed(struct toy *t, const void *d, uint32_t captured, uint32_t len, uint64_t ts,
		 bool gap)
{
	struct enav_l7_fragment f = {
	    .stream = ENAV_L7_REQUEST,
	    .data = d,
	    .captured = captured,
	    .len = len,
	    .ts_ns = ts,
	    .gap = gap,
	};
	enav_l7_framed_feed(&toy_framing, t, &f, &sink);
}

static void test_framer(void **unused)
{
	struct toy t = {0};

	memset(&stats, 0, sizeof(stats));
	/* A prefix split across fragments, a body longer than the head kept. */
	feed(&t, "\x00", 1, 1, 10, false);
	feed(&t,
	     "\x06"
	     "abc",
	     4, 4, 11, false);
	assert_int_equal(t.ends, 0);
	feed(&t, "def", 3, 3, 12, false);
	assert_int_equal(t.ends, 1);
	assert_int_equal(t.last_len, 6);
	assert_int_equal(t.last_kept, KEEP);
	assert_memory_equal(t.last_head, "abcd", KEEP);
	assert_int_equal(t.last_start_ns, 10);

	/* Two messages in one fragment; the second's body not captured past
	 * its first byte: skipped by length, the framing holds. */
	feed(&t,
	     "\x00\x01"
	     "x"
	     "\x00\x05"
	     "y",
	     6, 10, 20, false);
	assert_int_equal(t.ends, 3);
	assert_int_equal(t.body_bytes, 5);
	assert_int_equal(t.body_captured, 1);
	assert_int_equal(t.last_kept, 1);
	assert_int_equal(t.losses, 0);

	/* The next prefix in bytes not captured: lost, one resync. */
	feed(&t,
	     "\x00\x01"
	     "z",
	     3, 6, 30, false);
	assert_int_equal(t.ends, 4);
	assert_int_equal(t.losses, 1);
	assert_int_equal(stats.resyncs, 1);
	/* Resync skips to the first start the parser accepts. */
	feed(&t,
	     "\x07\x07\x00\x02"
	     "ok",
	     6, 6, 40, false);
	assert_int_equal(t.ends, 5);
	assert_int_equal(t.last_len, 2);
	assert_memory_equal(t.last_head, "ok", 2);

	/* A gap inside a message: the parser hears of it, the message is
	 * dropped and framing resumes at the next start. */
	feed(&t,
	     "\x00\x09"
	     "abc",
	     5, 5, 50, false);
	feed(&t,
	     "\x00\x01"
	     "q",
	     3, 3, 51, true);
	assert_int_equal(t.gaps, 1);
	assert_int_equal(t.ends, 6);
	assert_int_equal(t.last_len, 1);
	assert_int_equal(stats.resyncs, 2);
}

/* A framing without find_start or gap: resync only where starts_message()
 * accepts a fragment's first byte; resync_every_loss counts every loss. */
static bool toy_starts(void *st, enum enav_l7_stream dir, const uint8_t *d, size_t cap)
{
	(void)st;
	(void)dir;
	return cap >= 2 && d[0] == 0;
}

static void feed_with(const struct enav_l7_framing *fr, struct toy *t, const void *d, uint32_t n,
		      bool gap)
{
	struct enav_l7_fragment f = {
	    .stream = ENAV_L7_REQUEST, .data = d, .captured = n, .len = n, .ts_ns = 1, .gap = gap};
	enav_l7_framed_feed(fr, t, &f, &sink);
}

static void test_framer_first_byte_resync(void **unused)
{
	(void)unused;
	struct enav_l7_framing every = toy_framing, once = toy_framing;
	every.find_start = once.find_start = NULL;
	every.starts_message = once.starts_message = toy_starts;
	every.gap = once.gap = NULL;
	every.resync_every_loss = true;

	for (int mode = 0; mode < 2; mode++) {
		const struct enav_l7_framing *fr = mode ? &every : &once;
		struct toy t = {0};

		memset(&stats, 0, sizeof(stats));
		/* Two gaps in a row before any start: two losses. */
		feed_with(fr, &t, "\x07\x07\x07", 3, true);
		feed_with(fr, &t, "\x07\x07\x07", 3, true);
		assert_int_equal(t.losses, 2);
		assert_int_equal(stats.resyncs, mode ? 2 : 1);
		/* A start later in the fragment is not taken: only its first byte. */
		feed_with(fr, &t, "\x07\x00\x01q", 4, false);
		assert_int_equal(t.ends, 0);
		feed_with(fr, &t, "\x00\x01q", 3, false);
		assert_int_equal(t.ends, 1);
		assert_int_equal(t.last_len, 1);
		/* A parse error counts and loses. */
		enav_l7_framed_parse_error(fr, &t, ENAV_L7_REQUEST, &sink);
		assert_int_equal(stats.parse_errors, 1);
		assert_int_equal(t.losses, 3);
	}
}

static struct enav_l7_op last_op;
static void keep_op(void *ctx, const struct enav_l7_op *op)
{
	(void)ctx;
	last_op = *op;
}

/* The exchange's request side comes from the framer; an end before the
 * start is the start. */
static void test_exchange(void **unused)
{
	(void)unused;
	struct enav_l7_parser_stats st = {0};
	const struct enav_l7_sink out = {.stats = &st, .op = keep_op};
	struct enav_l7_framer fr = {.start_ns = 100, .seq = 7, .has_seq = true};
	struct enav_l7_exchange x;
	struct enav_l7_op op = {0};

	enav_l7_exchange_begin(&x, &fr, 42);
	x.end_ns = 90;
	x.response_bytes = 5;
	enav_l7_emit_exchange(&op, &x, &out);
	assert_int_equal(st.ops, 1);
	assert_int_equal(last_op.start_ns, 100);
	assert_int_equal(last_op.end_ns, 100);
	assert_int_equal(last_op.request_bytes, 42);
	assert_int_equal(last_op.response_bytes, 5);
	assert_true(last_op.has_request_seq);
	assert_int_equal(last_op.request_seq, 7);
	x.end_ns = 250;
	enav_l7_emit_exchange(&op, &x, &out);
	assert_int_equal(last_op.end_ns, 250);
	assert_int_equal(st.ops, 2);
}

static void test_fifo(void **unused)
{
	struct enav_l7_fifo q;

	memset(&stats, 0, sizeof(stats));
	enav_l7_fifo_init(&q, 3);
	assert_int_equal(enav_l7_fifo_push(&q, 10, &sink), 0);
	assert_int_equal(enav_l7_fifo_push(&q, 11, &sink), 1);
	assert_int_equal(enav_l7_fifo_push(&q, 12, &sink), 2);
	assert_int_equal(enav_l7_fifo_push(&q, 13, &sink), -1);
	assert_int_equal(stats.pending_overflow, 1);
	assert_int_equal(enav_l7_fifo_find(&q, 12), 2);
	assert_int_equal(enav_l7_fifo_find(&q, 99), -1);

	/* Wrap around the array's end. */
	enav_l7_fifo_init(&q, ENAV_L7_MAX_PENDING);
	for (int i = 0; i < ENAV_L7_MAX_PENDING - 1; i++) {
		enav_l7_fifo_push(&q, i, &sink);
		enav_l7_fifo_pop(&q);
	}
	long a = enav_l7_fifo_push(&q, 100, &sink);
	long b = enav_l7_fifo_push(&q, 101, &sink);
	assert_int_equal(a, ENAV_L7_MAX_PENDING - 1);
	assert_int_equal(b, 0);
	assert_int_equal(enav_l7_fifo_find(&q, 101), 1);
	assert_int_equal(enav_l7_fifo_at(&q, 1), 0);
	enav_l7_fifo_pop(&q);
	enav_l7_fifo_pop(&q);
	enav_l7_fifo_pop(&q); /* empty: nothing */
	assert_int_equal(q.count, 0);
}

static uint32_t expired[ENAV_L7_MAX_PENDING];
static unsigned n_expired;

static void note_expired(void *st, uint32_t index, const struct enav_l7_sink *out)
{
	expired[n_expired++] = index;
}

static void test_fifo_expire(void **unused)
{
	struct enav_l7_fifo q;

	n_expired = 0;
	enav_l7_fifo_init(&q, 8);
	for (int i = 0; i < 5; i++)
		enav_l7_fifo_push(&q, 20 + i, &sink);
	/* A response to id 23: the three before it lost theirs, oldest first. */
	long at = enav_l7_fifo_find(&q, 23);
	assert_int_equal(at, 3);
	enav_l7_fifo_expire(&q, (uint32_t)at, note_expired, NULL, &sink);
	assert_int_equal(n_expired, 3);
	assert_int_equal(expired[0], 0);
	assert_int_equal(expired[2], 2);
	assert_int_equal(q.id[enav_l7_fifo_at(&q, 0)], 23);
	/* The close: every one left, no more. */
	enav_l7_fifo_expire(&q, q.count + 5, note_expired, NULL, &sink);
	assert_int_equal(n_expired, 5);
	assert_int_equal(q.count, 0);
}

/* Phases as a text parser numbers them: the body, its CR, its LF. */
enum { P_OTHER, P_BODY, P_CR, P_LF };

static void test_crlf_body_skip(void **unused)
{
	uint8_t phase = P_BODY;
	uint64_t left = 5;
	bool ended;

	/* Inside the body: it shrinks, the CRLF is still to come. */
	assert_int_equal(enav_l7_crlf_body_skip(&phase, &left, P_BODY, 3, &ended), 3);
	assert_false(ended);
	assert_int_equal(phase, P_BODY);
	assert_int_equal(left, 2);
	/* The rest of the body and its CR: only the LF remains. */
	assert_int_equal(enav_l7_crlf_body_skip(&phase, &left, P_BODY, 3, &ended), 3);
	assert_false(ended);
	assert_int_equal(phase, P_LF);
	assert_int_equal(left, 0);
	/* The LF ends it; what follows is not the body's. */
	assert_int_equal(enav_l7_crlf_body_skip(&phase, &left, P_BODY, 10, &ended), 1);
	assert_true(ended);

	/* Body, CR and LF in one go, bytes to spare. */
	phase = P_BODY;
	left = 4;
	assert_int_equal(enav_l7_crlf_body_skip(&phase, &left, P_BODY, 100, &ended), 6);
	assert_true(ended);
	/* The body ends exactly: the CR is next. */
	phase = P_BODY;
	left = 4;
	assert_int_equal(enav_l7_crlf_body_skip(&phase, &left, P_BODY, 4, &ended), 4);
	assert_false(ended);
	assert_int_equal(phase, P_CR);
	/* From the CR, both bytes. */
	assert_int_equal(enav_l7_crlf_body_skip(&phase, &left, P_BODY, 2, &ended), 2);
	assert_true(ended);
	/* Not in a body: nothing taken. */
	phase = P_OTHER;
	assert_int_equal(enav_l7_crlf_body_skip(&phase, &left, P_BODY, 7, &ended), 0);
	assert_false(ended);
	assert_int_equal(phase, P_OTHER);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_framer),	cmocka_unit_test(test_framer_first_byte_resync),
	    cmocka_unit_test(test_exchange),	cmocka_unit_test(test_fifo),
	    cmocka_unit_test(test_fifo_expire), cmocka_unit_test(test_crlf_body_skip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
