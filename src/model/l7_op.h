/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One application-protocol operation, as a span signal carries it: the
 * parsers (src/features/network/l7/) fill it, the exporters read it.
 */
#ifndef ENAV_MODEL_L7_OP_H
#define ENAV_MODEL_L7_OP_H

#include <stdbool.h>
#include <stdint.h>

#include "model/protocols.h"

#define ENAV_L7_OPERATION_MAX 32  /* "GET", "SET", "SELECT", "Produce", "PUB" */
#define ENAV_L7_TARGET_MAX    128 /* route template, table, topic, subject, collection */
#define ENAV_L7_PATH_MAX      256 /* HTTP path, query stripped unless configured */
#define ENAV_L7_STATUS_MAX    24  /* "ERR", SQLSTATE "42601", "-ERR", grpc-status text */
#define ENAV_L7_STATEMENT_MAX 256 /* sanitized statement, only when enabled */

enum enav_l7_op_kind {
	ENAV_L7_OP_REQUEST = 0, /* a request and its response */
	ENAV_L7_OP_MESSAGE = 1, /* one-way: a publish with no acknowledgement, a delivery,
				   a WebSocket frame; start == end */
};

struct enav_l7_op {
	uint8_t protocol;   /* enum enav_l7_protocol */
	uint8_t kind;	    /* enum enav_l7_op_kind */
	bool error;	    /* the protocol said so: HTTP >= 500 (server) / >= 400 (client),
			       Redis -ERR, SQL error, grpc-status != 0, Kafka error code, ... */
	bool rpc;	    /* HTTP/2 or HTTP/1 carrying gRPC / gRPC-Web */
	bool response_seen; /* false: a one-way message, or the connection closed first */
	char operation[ENAV_L7_OPERATION_MAX];
	char target[ENAV_L7_TARGET_MAX]; /* bounded-cardinality: route template, table, ... */
	char path[ENAV_L7_PATH_MAX];	 /* HTTP only */
	char status[ENAV_L7_STATUS_MAX]; /* protocol status text, "" when none */
	int32_t status_code;		 /* HTTP status, grpc-status, Kafka error code; -1 none */
	char statement[ENAV_L7_STATEMENT_MAX]; /* sanitized text, only when enabled */
	uint64_t start_ns;		       /* boot ns: first fragment of the request */
	uint64_t end_ns; /* boot ns: last fragment of the response (== start for messages) */
	uint64_t request_bytes, response_bytes; /* wire bytes of the two messages */
	uint32_t stream_id;			/* HTTP/2 stream, 0 otherwise */
	bool has_request_seq; /* TCP seq of the request's first byte: pairs client and server */
	uint32_t request_seq;
	/* W3C traceparent from the request headers, only when fully valid. */
	bool has_traceparent;
	uint8_t trace_id[16];
	uint8_t parent_id[8];
	uint8_t trace_flags;
	/* Messaging: this op was a receive/delivery rather than a publish. */
	bool messaging_receive;
	/* Set by the connection tracker, not a parser: a profile sample named
	 * this request (ADR 0021), and the profiles carry this span's id as
	 * their span_id label.  In the op's tail padding: a span signal keeps
	 * its size. */
	bool profile_linked;
};

#endif
