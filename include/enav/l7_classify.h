/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Classification of a TCP connection from the first bytes it moves, shared
 * by the kernel program (bpf/network/net.bpf.c, once per connection) and the unit
 * tests that keep it in step with each parser's detect()
 * (tests/unit/test_l7_classify.c).  Loop-free apart from bounded literal
 * compares, so the verifier accepts it; only the first ENAV_L7_HEAD bytes
 * are looked at.
 */
#ifndef ENAV_L7_CLASSIFY_H
#define ENAV_L7_CLASSIFY_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#include <stdbool.h>
#endif

#define ENAV_L7_HEAD 16

/*
 * The protocol list, one row per protocol: everything else is generated from
 * it.  A row is X(ID, id, parser, name, family):
 *   ID      ENAV_L7_<ID> in enum enav_l7_protocol (src/model/protocols.h) and,
 *           for a protocol the kernel classifies, ENAV_L7C_<ID> here
 *   id      its number: a span's protocol and its bit in a protocol mask, so
 *           unique and below 32
 *   parser  enav_l7_<parser>_ops, src/features/network/l7/<parser>.c
 *   name    metric label, span attribute, configuration value
 *   family  ENAV_SPAN_FAMILY_<family>: which OpenTelemetry conventions apply
 * CLASSIFIED: the kernel recognizes it from the first bytes (its signature is
 * in enav_l7_classify() below) and it has a parser of its own.  UPGRADED:
 * reached only through another protocol (WebSocket through an HTTP/1
 * upgrade); no classifier id, no parser row, not selectable.
 */
#define ENAV_L7_CLASSIFIED_PROTOCOLS(X)                                                            \
	X(HTTP1, 1, http1, "http1", HTTP)                                                          \
	X(HTTP2, 2, http2, "http2", HTTP) /* gRPC is HTTP/2 with op.rpc set */                     \
	X(REDIS, 3, redis, "redis", DB)                                                            \
	X(POSTGRES, 4, postgres, "postgresql", DB)                                                 \
	X(MYSQL, 5, mysql, "mysql", DB)                                                            \
	X(KAFKA, 6, kafka, "kafka", MESSAGING)                                                     \
	X(MONGO, 7, mongo, "mongodb", DB)                                                          \
	X(NATS, 8, nats, "nats", MESSAGING)
#define ENAV_L7_UPGRADED_PROTOCOLS(X) X(WEBSOCKET, 9, websocket, "websocket", WEBSOCKET)

/* What enav_l7_classify() returns: the protocol's id, so user space reads it
 * as enum enav_l7_protocol with no table between. */
enum enav_l7c_id {
#define ENAV_L7C_ID_ROW(ID, id, parser, name, family) ENAV_L7C_##ID = id,
	ENAV_L7_CLASSIFIED_PROTOCOLS(ENAV_L7C_ID_ROW)
#undef ENAV_L7C_ID_ROW
};
#define ENAV_L7C_NONE 255 /* as ENAV_L7_CLASS_NONE */

static inline __attribute__((always_inline)) __u32 enav_l7c_be32(const __u8 *h)
{
	return (__u32)h[0] << 24 | (__u32)h[1] << 16 | (__u32)h[2] << 8 | h[3];
}

static inline __attribute__((always_inline)) __u32 enav_l7c_le32(const __u8 *h)
{
	return (__u32)h[3] << 24 | (__u32)h[2] << 16 | (__u32)h[1] << 8 | h[0];
}

static inline __attribute__((always_inline)) bool enav_l7c_starts(const __u8 *h, __u32 n,
								  const char *lit, __u32 litlen)
{
	if (n < litlen)
		return false;
	for (__u32 i = 0; i < ENAV_L7_HEAD; i++) {
		if (i >= litlen)
			break;
		if (h[i] != (__u8)lit[i])
			return false;
	}
	return true;
}

#define ENAV_L7C_STARTS(h, n, lit) enav_l7c_starts(h, n, lit, sizeof(lit) - 1)
#define ENAV_L7C_ON(mask, p)	   (((mask) >> (p)) & 1u)

/*
 * h: the first n (<= ENAV_L7_HEAD) captured bytes of a call that moved len
 * bytes; request: they travel client to server.  Returns the protocol, or
 * ENAV_L7C_NONE.  Checks run from the most to the least specific signature.
 */
static inline __attribute__((always_inline)) __u8
enav_l7_classify(const __u8 *h, __u32 n, __u32 len, bool request, __u32 mask)
{
	if (request) {
		/* Before HTTP's CONNECT method: NATS's CONNECT carries a JSON object. */
		if (ENAV_L7C_ON(mask, ENAV_L7C_NATS) && ENAV_L7C_STARTS(h, n, "CONNECT {"))
			return ENAV_L7C_NATS;
		if (ENAV_L7C_ON(mask, ENAV_L7C_HTTP1) &&
		    (ENAV_L7C_STARTS(h, n, "GET ") || ENAV_L7C_STARTS(h, n, "POST ") ||
		     ENAV_L7C_STARTS(h, n, "PUT ") || ENAV_L7C_STARTS(h, n, "HEAD ") ||
		     ENAV_L7C_STARTS(h, n, "DELETE ") || ENAV_L7C_STARTS(h, n, "PATCH ") ||
		     ENAV_L7C_STARTS(h, n, "OPTIONS ") || ENAV_L7C_STARTS(h, n, "CONNECT ") ||
		     ENAV_L7C_STARTS(h, n, "TRACE ")))
			return ENAV_L7C_HTTP1;
		if (ENAV_L7C_ON(mask, ENAV_L7C_HTTP2) && ENAV_L7C_STARTS(h, n, "PRI * HTTP/2.0"))
			return ENAV_L7C_HTTP2;
		if (ENAV_L7C_ON(mask, ENAV_L7C_POSTGRES) && n >= 8) {
			__u32 size = enav_l7c_be32(h), code = enav_l7c_be32(h + 4);
			if (size >= 8 && size <= 10000 &&
			    (code == 0x00030000 || code == 80877103 || code == 80877104))
				return ENAV_L7C_POSTGRES;
		}
		if (ENAV_L7C_ON(mask, ENAV_L7C_REDIS) && n >= 2 && h[0] == '*' && h[1] >= '0' &&
		    h[1] <= '9')
			return ENAV_L7C_REDIS;
		if (ENAV_L7C_ON(mask, ENAV_L7C_MONGO) && n >= 16) {
			__u32 size = enav_l7c_le32(h), op = enav_l7c_le32(h + 12);
			if (size >= 16 && size <= (48u << 20) && enav_l7c_le32(h + 8) == 0 &&
			    (op == 2013 || op == 2004))
				return ENAV_L7C_MONGO;
		}
		if (ENAV_L7C_ON(mask, ENAV_L7C_KAFKA) && n >= 14) {
			__u32 size = enav_l7c_be32(h);
			__u32 key = (__u32)h[4] << 8 | h[5], ver = (__u32)h[6] << 8 | h[7];
			if (size >= 10 && size + 4 <= len && key <= 80 && ver <= 20)
				return ENAV_L7C_KAFKA;
		}
		return ENAV_L7C_NONE;
	}
	if (ENAV_L7C_ON(mask, ENAV_L7C_HTTP1) && ENAV_L7C_STARTS(h, n, "HTTP/1."))
		return ENAV_L7C_HTTP1;
	if (ENAV_L7C_ON(mask, ENAV_L7C_HTTP2) && n >= 9 && h[3] == 4 && h[5] == 0 && h[6] == 0 &&
	    h[7] == 0 && h[8] == 0)
		return ENAV_L7C_HTTP2;
	if (ENAV_L7C_ON(mask, ENAV_L7C_MYSQL) && n >= 5 && h[3] == 0 && h[4] == 0x0a)
		return ENAV_L7C_MYSQL;
	if (ENAV_L7C_ON(mask, ENAV_L7C_NATS) && ENAV_L7C_STARTS(h, n, "INFO "))
		return ENAV_L7C_NATS;
	return ENAV_L7C_NONE;
}

#endif
