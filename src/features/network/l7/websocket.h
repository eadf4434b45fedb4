/* SPDX-License-Identifier: Apache-2.0 */
/*
 * WebSocket framing (RFC 6455) for a connection the HTTP/1 parser saw
 * upgraded: internal to http1.c and websocket.c.
 *
 * One enav_l7_ws per direction.  Frames are followed by their headers alone:
 * payload bytes are skipped by length, never copied (only the two status
 * bytes of a close frame are read).  A complete frame emits one
 * ENAV_L7_WEBSOCKET message op; a fragmented data message emits one op when
 * its final fragment completes.
 */
#ifndef ENAV_FEATURES_NETWORK_L7_WEBSOCKET_H
#define ENAV_FEATURES_NETWORK_L7_WEBSOCKET_H

#include <stdbool.h>
#include <stdint.h>

#include "features/network/l7/l7.h"

/* Frame lengths above this are not believed (RFC 6455 allows 2^63 - 1). */
#define ENAV_L7_WS_MAX_FRAME (1ull << 62)

enum enav_l7_ws_phase {
	ENAV_L7_WS_HEADER = 0, /* collecting a frame header */
	ENAV_L7_WS_PAYLOAD,    /* skipping payload */
	ENAV_L7_WS_RESYNC,     /* lost: waiting for a fragment that starts with a whole frame */
};

struct enav_l7_ws {
	uint8_t phase;	  /* enum enav_l7_ws_phase */
	uint8_t hdr[14];  /* frame header bytes so far */
	uint8_t hlen;	  /* bytes in hdr */
	uint8_t opcode;	  /* of the current frame */
	bool fin;	  /* of the current frame */
	bool masked;	  /* of the current frame */
	uint8_t mask[4];  /* of the current frame: only to read a close status */
	uint8_t close[2]; /* first payload bytes of a close frame */
	uint8_t close_have;
	bool in_message;    /* a fragmented data message is open */
	uint8_t msg_opcode; /* its first frame's opcode */
	uint64_t msg_bytes; /* payload bytes of its earlier fragments */
	uint64_t len;	    /* payload length of the current frame */
	uint64_t remaining; /* payload bytes still to skip */
	bool has_seq;	    /* TCP seq of the current frame's first byte */
	uint32_t seq;
};

/* Where the frames' ops point: the upgrade request's route and path. */
struct enav_l7_ws_route {
	const char *target;
	const char *path;
};

/* Feed the bytes of fragment f from captured offset off on (the uncaptured
 * tail included).  Emits an op per complete frame/message to out. */
void enav_l7_ws_feed(struct enav_l7_ws *ws, const struct enav_l7_fragment *f, uint32_t off,
		     const struct enav_l7_ws_route *route, const struct enav_l7_sink *out);

/* Bytes of this direction were lost: drop the partial frame and resync. */
void enav_l7_ws_lost(struct enav_l7_ws *ws, const struct enav_l7_sink *out);

/* "text", "binary", "close", "ping", "pong", "continuation", or NULL. */
const char *enav_l7_ws_opcode_name(unsigned opcode);

#endif
