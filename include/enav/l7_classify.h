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

/* Values of enum enav_l7_protocol (src/model/protocols.h); protocols.c asserts
 * they match. */
#define ENAV_L7C_HTTP1	  1
#define ENAV_L7C_HTTP2	  2
#define ENAV_L7C_REDIS	  3
#define ENAV_L7C_POSTGRES 4
#define ENAV_L7C_MYSQL	  5
#define ENAV_L7C_KAFKA	  6
#define ENAV_L7C_MONGO	  7
#define ENAV_L7C_NATS	  8
#define ENAV_L7C_NONE	  255 /* as ENAV_L7_CLASS_NONE */

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
