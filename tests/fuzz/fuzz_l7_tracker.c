/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer: raw L7 data events, as the kernel would emit them, through the
 * decoder and into the connection tracker with every parser behind it.
 * Covers what no single parser's target does: event validation, role
 * resolution, gap detection from sequence numbers, the splitting of a call
 * at its HTTP/2 frame marks, LRU eviction, close and idle expiry.
 *
 * Input: a sequence of records, each
 *   u8 sock (0..7), u8 bits (direction, role, protocol, flags), u16 len,
 *   u16 captured, u8 n_marks, u8 seq_step, then `captured` payload bytes and
 *   16 bytes per mark (when bits say the mark block is present, 32 marks).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/network/l7/l7_conn.h"
#include "features/network/net_decode.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static void check_text(const char *s, size_t cap)
{
	const char *nul = memchr(s, '\0', cap);
	CHECK(nul != NULL);
	for (const char *p = s; p < nul; p++)
		CHECK(*p >= 0x20 && *p < 0x7f);
}

static void on_span(void *ctx, struct enav_signal *s)
{
	(void)ctx;
	const struct enav_l7_op *op = &s->span.op;
	CHECK(s->kind == ENAV_SIGNAL_SPAN);
	CHECK(op->protocol > ENAV_L7_UNKNOWN && op->protocol < ENAV_L7__COUNT);
	CHECK(op->end_ns >= op->start_ns);
	check_text(op->operation, sizeof(op->operation));
	check_text(op->target, sizeof(op->target));
	check_text(op->path, sizeof(op->path));
	check_text(op->status, sizeof(op->status));
	check_text(op->statement, sizeof(op->statement));
	CHECK(s->span.id_source != NULL);
	enav_signal_unref(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t selectable = 0;
	for (unsigned p = 0; p < ENAV_L7__COUNT; p++)
		if (enav_protocol_selectable(enav_protocol(p)))
			selectable |= 1u << p;
	struct enav_l7_tracker_config cfg = {
	    .max_connections = 4,
	    .idle_timeout_ms = 1000,
	    .protocols = selectable,
	    .options = {.max_pending = 4, .sanitized_statement = size & 1}};
	struct enav_l7_tracker *t = enav_l7_tracker_new(&cfg, on_span, NULL);
	CHECK(t != NULL);
	static uint8_t
	    raw[sizeof(struct enav_l7_event) + ENAV_L7_MAX_MARKS * sizeof(struct enav_l7_mark)];
	uint32_t seq[8][2] = {{0}};
	uint64_t now = 1000;
	size_t at = 0;
	while (at + 8 <= size) {
		const uint8_t *r = data + at;
		at += 8;
		struct enav_l7_event e;
		memset(&e, 0, sizeof(e));
		uint8_t sock = r[0] & 7, bits = r[1];
		e.hdr.type = ENAV_EVENT_L7_DATA;
		e.hdr.abi_version = ENAV_ABI_VERSION;
		e.hdr.pid = 100 + sock;
		now += 1000 + r[7];
		e.hdr.boot_time_ns = now;
		e.sock_id = sock;
		e.direction = bits & 1 ? ENAV_L7_SENT : ENAV_L7_RECEIVED;
		e.role = (bits >> 1) % 3;
		/* Ids 1..8: a ninth classified protocol needs a wider field. */
		e.protocol = 1 + ((bits >> 3) & 7);
		bool block = bits & 0x40;
		e.flags = ENAV_L7_SEQ_VALID | (block ? ENAV_L7_MARK_BLOCK : 0) |
			  (bits & 0x80 ? ENAV_L7_NO_DATA : 0);
		e.len = (uint32_t)r[2] | (uint32_t)r[3] << 8;
		e.captured = ((uint32_t)r[4] | (uint32_t)r[5] << 8) % (ENAV_L7_PAYLOAD_MAX + 1);
		if (e.captured > size - at)
			e.captured = (uint32_t)(size - at);
		if (e.captured > e.len)
			e.len = e.captured;
		e.n_marks = block ? r[6] % (ENAV_L7_MAX_MARKS + 1) : 0;
		e.family = 2;
		uint32_t *s = &seq[sock][e.direction == ENAV_L7_SENT];
		e.seq = *s + (r[7] & 3 ? 0 : r[7]); /* now and then a gap */
		*s = e.seq + e.len;
		size_t fixed = offsetof(struct enav_l7_event, payload);
		size_t mbytes = block ? ENAV_L7_MAX_MARKS * sizeof(struct enav_l7_mark) : 0;
		size_t avail_marks = size - at - e.captured;
		e.hdr.size = (uint32_t)(fixed + e.captured + mbytes);
		memcpy(raw, &e, fixed);
		memcpy(raw + fixed, data + at, e.captured);
		memset(raw + fixed + e.captured, 0, mbytes);
		memcpy(raw + fixed + e.captured, data + at + e.captured,
		       mbytes < avail_marks ? mbytes : avail_marks);
		at += e.captured + (mbytes < avail_marks ? mbytes : avail_marks);
		/* An exact-size copy: an over-read is an ASan report. */
		uint8_t *copy = malloc(e.hdr.size);
		CHECK(copy != NULL);
		memcpy(copy, raw, e.hdr.size);
		struct enav_net_decoded d;
		if (enav_net_decode(copy, e.hdr.size, &d) == ENAV_DECODE_OK) {
			CHECK(d.type == ENAV_EVENT_L7_DATA);
			enav_l7_tracker_data(t, &d.l7.head, d.l7.payload);
		}
		free(copy);
		if ((r[7] & 0xf0) == 0xf0)
			enav_l7_tracker_close(t, sock);
		if ((r[7] & 0xf0) == 0xe0)
			enav_l7_tracker_expire(t, now + 2000000000ull);
	}
	enav_l7_tracker_free(t);
	return 0;
}
