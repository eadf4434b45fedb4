/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the MongoDB parser (src/features/network/l7/mongo.c).
 *
 * The input is a connection: byte 0 picks max_pending (1 + b % 32); then
 * fragments, each
 *   ctl   bit 0 stream (1 = response), bits 1-2 both set: gap,
 *         bit 3: 16-bit size, bit 4: an uncaptured tail follows,
 *         bit 5: the tail counts in units of 97 bytes, bits 6-7: ts step
 *   size  1 byte (+1), or 2 bytes little-endian (+1) with bit 3
 *   tail  1 byte, with bit 4
 *   data  min(size, what is left) captured bytes
 * Each fragment is fed from an exact-size heap copy (ASan flags over-reads),
 * every op is checked, finish always runs, and the stats must agree with
 * what was emitted.  The seeds (tests/fuzz/corpus/fuzz_l7_mongo) are the
 * real pymongo and libmongoc conversations of tests/unit/test_l7_mongo.c in
 * this format, and its synthetic request/reply pairs.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/network/l7/l7.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static uint64_t g_emitted;
static uint64_t g_first_ts, g_last_ts;

static void check_text(const char *s, size_t cap, bool nonempty)
{
	const char *nul = memchr(s, '\0', cap);

	CHECK(nul != NULL);
	CHECK(!nonempty || nul > s);
	for (const char *p = s; p < nul; p++)
		CHECK(*p >= 0x20 && *p < 0x7f);
}

static void on_op(void *ctx, const struct enav_l7_op *op)
{
	(void)ctx;
	g_emitted++;
	CHECK(op->protocol == ENAV_L7_MONGO);
	CHECK(op->kind == ENAV_L7_OP_REQUEST || op->kind == ENAV_L7_OP_MESSAGE);
	check_text(op->operation, sizeof(op->operation), true);
	check_text(op->target, sizeof(op->target), false);
	check_text(op->status, sizeof(op->status), false);
	CHECK(op->path[0] == '\0' && op->statement[0] == '\0');
	CHECK(!op->rpc && !op->has_traceparent && !op->messaging_receive && op->stream_id == 0);
	CHECK(op->start_ns >= g_first_ts && op->end_ns <= g_last_ts);
	CHECK(op->end_ns >= op->start_ns);
	CHECK(op->request_bytes >= 16);
	if (op->kind == ENAV_L7_OP_MESSAGE)
		CHECK(op->start_ns == op->end_ns && !op->response_seen);
	if (!op->response_seen)
		CHECK(op->response_bytes == 0 && op->status[0] == '\0' && op->status_code == -1 &&
		      !op->error);
	else
		CHECK(op->response_bytes >= 16);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 1 << 16)
		return 0;
	struct enav_l7_options opt = {.max_pending = 1u + data[0] % 32u};
	void *state = calloc(1, enav_l7_mongo_ops.state_size);
	struct enav_l7_parser_stats st;
	struct enav_l7_sink sink = {on_op, NULL, &st, NULL};
	uint32_t seq[2] = {0xfffff000u, 77};
	uint64_t ts = 1000;
	size_t off = 1;

	CHECK(state != NULL);
	memset(&st, 0, sizeof(st));
	CHECK(enav_l7_mongo_ops.init(state, &opt) == 0);
	g_emitted = 0;
	g_first_ts = ts;
	g_last_ts = ts;
	while (off < size) {
		uint8_t ctl = data[off++];
		size_t n;
		if (ctl & 0x08) {
			if (size - off < 2)
				break;
			n = ((size_t)data[off] | (size_t)data[off + 1] << 8) + 1;
			off += 2;
		} else {
			if (off >= size)
				break;
			n = (size_t)data[off++] + 1;
		}
		uint32_t tail = 0;
		if (ctl & 0x10) {
			if (off >= size)
				break;
			tail = data[off++] * ((ctl & 0x20) ? 97u : 1u);
		}
		if (n > size - off)
			n = size - off;
		uint8_t *copy = malloc(n ? n : 1);
		CHECK(copy != NULL);
		memcpy(copy, data + off, n);
		off += n;
		int stream = ctl & 1;
		ts += ctl >> 6;
		g_last_ts = ts;
		if (n > 0) {
			(void)enav_l7_mongo_ops.detect(copy, n, ENAV_L7_REQUEST);
			(void)enav_l7_mongo_ops.detect(copy, n, ENAV_L7_RESPONSE);
		}
		struct enav_l7_fragment f = {
		    .stream = stream,
		    .data = copy,
		    .captured = (uint32_t)n,
		    .len = (uint32_t)n + tail,
		    .ts_ns = ts,
		    .gap = (ctl & 0x06) == 0x06,
		    .has_seq = true,
		    .seq = seq[stream],
		};
		seq[stream] += f.len;
		enav_l7_mongo_ops.feed(state, &f, &sink);
		free(copy);
		CHECK(st.ops == g_emitted);
	}
	enav_l7_mongo_ops.finish(state, &sink);
	CHECK(st.ops == g_emitted);
	/* A second finish has nothing left to emit. */
	enav_l7_mongo_ops.finish(state, &sink);
	CHECK(st.ops == g_emitted);
	free(state);
	return 0;
}
