/* SPDX-License-Identifier: Apache-2.0 */
/*
 * WebSocket framing (RFC 6455) after an HTTP/1.1 upgrade: see websocket.h.
 *
 * Frame header: FIN|RSV1-3|opcode, MASK|len7, then a 16- or 64-bit extended
 * length (len7 126 / 127), then the 4-byte masking key when MASK is set.
 * Client frames (the request stream) are masked, server frames are not.
 * RSV1 is allowed (permessage-deflate), RSV2/RSV3 are not; control frames
 * (close, ping, pong) are final and carry at most 125 bytes.
 */
#include "features/network/l7/l7_common.h"
#include "features/network/l7/websocket.h"

#include <stdio.h>
#include <string.h>

const char *enav_l7_ws_opcode_name(unsigned opcode)
{
	switch (opcode) {
	case 0x0:
		return "continuation";
	case 0x1:
		return "text";
	case 0x2:
		return "binary";
	case 0x8:
		return "close";
	case 0x9:
		return "ping";
	case 0xa:
		return "pong";
	default:
		return NULL;
	}
}

/* Total header length once the first two bytes are known. */
static unsigned header_need(const uint8_t *hdr)
{
	unsigned len7 = hdr[1] & 0x7f;
	unsigned need = 2;

	if (len7 == 126)
		need += 2;
	else if (len7 == 127)
		need += 8;
	if (hdr[1] & 0x80)
		need += 4;
	return need;
}

struct frame {
	uint8_t opcode;
	bool fin, masked;
	uint8_t mask[4];
	uint64_t len;
	unsigned hlen;
};

/* Decode and check a whole header (hdr holds header_need(hdr) bytes). */
static bool decode_header(const uint8_t *hdr, enum enav_l7_stream stream, struct frame *fr)
{
	unsigned len7 = hdr[1] & 0x7f, at = 2;

	fr->fin = hdr[0] & 0x80;
	fr->opcode = hdr[0] & 0x0f;
	fr->masked = hdr[1] & 0x80;
	if (hdr[0] & 0x30) /* RSV2, RSV3: no extension we know sets them */
		return false;
	if (!enav_l7_ws_opcode_name(fr->opcode))
		return false;
	if (len7 < 126) {
		fr->len = len7;
	} else if (len7 == 126) {
		fr->len = (uint64_t)hdr[2] << 8 | hdr[3];
		at = 4;
	} else {
		fr->len = 0;
		for (unsigned i = 0; i < 8; i++)
			fr->len = fr->len << 8 | hdr[2 + i];
		at = 10;
		if (fr->len > ENAV_L7_WS_MAX_FRAME)
			return false;
	}
	if (fr->masked) {
		memcpy(fr->mask, hdr + at, 4);
		at += 4;
	}
	fr->hlen = at;
	/* Clients mask every frame, servers none. */
	if (fr->masked != (stream == ENAV_L7_REQUEST))
		return false;
	if (fr->opcode >= 0x8 && (!fr->fin || fr->len > 125))
		return false;
	return true;
}

void enav_l7_ws_lost(struct enav_l7_ws *ws, const struct enav_l7_sink *out)
{
	ws->phase = ENAV_L7_WS_RESYNC;
	ws->hlen = 0;
	ws->in_message = false;
	ws->msg_bytes = 0;
	ws->remaining = 0;
	out->stats->resyncs++;
}

static void parse_error(struct enav_l7_ws *ws, const struct enav_l7_sink *out)
{
	out->stats->parse_errors++;
	enav_l7_ws_lost(ws, out);
}

static void emit(struct enav_l7_ws *ws, const struct enav_l7_fragment *f, unsigned opcode,
		 uint64_t bytes, const struct enav_l7_ws_route *route,
		 const struct enav_l7_sink *out)
{
	struct enav_l7_op op;

	memset(&op, 0, sizeof(op));
	op.protocol = ENAV_L7_WEBSOCKET;
	op.kind = ENAV_L7_OP_MESSAGE;
	op.status_code = -1;
	enav_l7_copy_text(op.operation, sizeof(op.operation), enav_l7_ws_opcode_name(opcode),
			  strlen(enav_l7_ws_opcode_name(opcode)));
	if (route && route->target)
		enav_l7_copy_text(op.target, sizeof(op.target), route->target,
				  strlen(route->target));
	if (route && route->path)
		enav_l7_copy_text(op.path, sizeof(op.path), route->path, strlen(route->path));
	if (opcode == 0x8 && ws->close_have == 2) {
		op.status_code = ws->close[0] << 8 | ws->close[1];
		enav_l7_put_number(op.status, sizeof(op.status), "", (int)op.status_code);
	}
	op.start_ns = op.end_ns = f->ts_ns;
	if (f->stream == ENAV_L7_REQUEST) {
		op.request_bytes = bytes;
		op.has_request_seq = ws->has_seq;
		op.request_seq = ws->seq;
	} else {
		op.response_bytes = bytes;
		op.messaging_receive = true;
	}
	out->stats->ops++;
	out->op(out->ctx, &op);
}

/* The current frame's payload is all there. */
static void frame_done(struct enav_l7_ws *ws, const struct enav_l7_fragment *f,
		       const struct enav_l7_ws_route *route, const struct enav_l7_sink *out)
{
	if (ws->opcode >= 0x8) {
		emit(ws, f, ws->opcode, ws->len, route, out);
	} else if (!ws->fin) {
		if (ws->in_message) {
			ws->msg_bytes += ws->len;
		} else {
			/* A first fragment, or a continuation met after a resync. */
			ws->in_message = true;
			ws->msg_opcode = ws->opcode;
			ws->msg_bytes = ws->len;
		}
	} else if (ws->in_message) {
		emit(ws, f, ws->msg_opcode, ws->msg_bytes + ws->len, route, out);
		ws->in_message = false;
		ws->msg_bytes = 0;
	} else {
		emit(ws, f, ws->opcode, ws->len, route, out);
	}
	ws->phase = ENAV_L7_WS_HEADER;
	ws->hlen = 0;
}

/* A whole header in hdr: check it against the open message and start the
 * payload.  False on a protocol error. */
static bool start_frame(struct enav_l7_ws *ws, enum enav_l7_stream stream)
{
	struct frame fr;

	if (!decode_header(ws->hdr, stream, &fr))
		return false;
	/* A new data frame inside a fragmented message. */
	if (ws->in_message && (fr.opcode == 0x1 || fr.opcode == 0x2))
		return false;
	ws->opcode = fr.opcode;
	ws->fin = fr.fin;
	ws->masked = fr.masked;
	memcpy(ws->mask, fr.mask, sizeof(ws->mask));
	ws->len = fr.len;
	ws->remaining = fr.len;
	ws->close_have = 0;
	ws->phase = ENAV_L7_WS_PAYLOAD;
	return true;
}

/* After a loss: does this fragment hold exactly one whole frame (header and
 * payload, as one write of one frame)?  Only then are we back in step. */
static bool resync_here(const struct enav_l7_fragment *f, uint32_t cap)
{
	struct frame fr;

	if (cap < 2)
		return false;
	unsigned need = header_need(f->data);

	if (cap < need)
		return false;
	if (!decode_header(f->data, f->stream, &fr))
		return false;
	return fr.hlen + fr.len == f->len;
}

void enav_l7_ws_feed(struct enav_l7_ws *ws, const struct enav_l7_fragment *f, uint32_t off,
		     const struct enav_l7_ws_route *route, const struct enav_l7_sink *out)
{
	uint32_t cap = f->captured < f->len ? f->captured : f->len;
	uint64_t pos = off, total = f->len;

	if (!f->data)
		cap = 0;
	if (ws->phase == ENAV_L7_WS_RESYNC) {
		if (off != 0 || !resync_here(f, cap))
			return;
		ws->phase = ENAV_L7_WS_HEADER;
		ws->hlen = 0;
		ws->in_message = false;
	}
	while (pos < total) {
		if (ws->phase == ENAV_L7_WS_HEADER) {
			if (pos >= cap) { /* a header in the uncaptured tail */
				enav_l7_ws_lost(ws, out);
				return;
			}
			if (ws->hlen == 0) {
				ws->has_seq = f->has_seq;
				ws->seq = f->seq + (uint32_t)pos;
			}
			ws->hdr[ws->hlen++] = f->data[pos++];
			if (ws->hlen < 2 || ws->hlen < header_need(ws->hdr))
				continue;
			if (!start_frame(ws, f->stream)) {
				parse_error(ws, out);
				return;
			}
			if (ws->remaining == 0)
				frame_done(ws, f, route, out);
			continue;
		}
		if (ws->phase != ENAV_L7_WS_PAYLOAD)
			return;
		uint64_t take = total - pos < ws->remaining ? total - pos : ws->remaining;

		if (ws->opcode == 0x8) {
			for (uint64_t k = 0; ws->close_have < 2 && k < take && pos + k < cap; k++) {
				uint64_t at = ws->len - ws->remaining + k;
				uint8_t b = f->data[pos + k];

				if (at != ws->close_have)
					break;
				if (ws->masked)
					b ^= ws->mask[at % 4];
				ws->close[ws->close_have++] = b;
			}
		}
		pos += take;
		ws->remaining -= take;
		if (ws->remaining == 0)
			frame_done(ws, f, route, out);
	}
}
