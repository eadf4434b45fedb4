/* SPDX-License-Identifier: Apache-2.0 */
/* HTTP/2 header values the parser reads (http2_fields.c). */
#ifndef ENAV_FEATURES_NETWORK_L7_HTTP2_FIELDS_H
#define ENAV_FEATURES_NETWORK_L7_HTTP2_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nghttp2/nghttp2.h>

/* The field's name is lit (names arrive lower case). */
bool enav_h2_name_is(const nghttp2_nv *nv, const char *lit);
/* content-type v[0..n): 0 not gRPC, 1 gRPC (or gRPC-Web text), 2 gRPC-Web
 * binary. */
int enav_h2_grpc_kind(const uint8_t *v, size_t n);
/* A gRPC-Web binary response body: 5-byte message prefixes, the trailer
 * frame (flag 0x80) scanned for grpc-status. */
struct enav_h2_grpc_web {
	bool scan; /* the response is gRPC-Web binary */
	bool lost; /* body bytes were not captured: stop scanning */
	uint8_t hdr_got, flag, state, idx, ndig;
	uint32_t left, val;
};
/* n body bytes of a DATA frame (p NULL: not captured); a complete trailer
 * line sets *status when it is still < 0. */
void enav_h2_grpc_web_body(struct enav_h2_grpc_web *s, const uint8_t *p, size_t n, int32_t *status);
/* The response ended: a trailer value cut by its end still counts. */
void enav_h2_grpc_web_end(const struct enav_h2_grpc_web *s, int32_t *status);
/* Decimal digits only, 1..9 of them (:status, grpc-status). */
bool enav_h2_parse_uint(const uint8_t *v, size_t n, int32_t *out);

#endif
