/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The application protocols the agent knows, generated from the one list in
 * include/enav/l7_classify.h (ENAV_L7_CLASSIFIED_PROTOCOLS and
 * ENAV_L7_UPGRADED_PROTOCOLS): the id a span carries, the name on metrics
 * and in the configuration, the id the kernel classifier returns and the
 * span family that decides the exporters' attributes and RED metrics.  The
 * parsers are found by the same id (src/features/network/l7/l7_parsers.c).
 *
 * Adding a protocol: a row in that list, its kernel signature in
 * enav_l7_classify(), its parser file in src/features/network/l7/.
 */
#ifndef ENAV_MODEL_PROTOCOLS_H
#define ENAV_MODEL_PROTOCOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "enav/l7_classify.h"

/* A protocol's bit in a protocol mask (sources.network.l7.protocols, the
 * kernel's rodata) is 1u << id, so ids stay below 32 (protocols.c asserts
 * it).  The rows are in include/enav/l7_classify.h, the one protocol list. */
enum enav_l7_protocol {
	ENAV_L7_UNKNOWN = 0,
#define ENAV_L7_ENUM_ROW(ID, id, parser, name, family) ENAV_L7_##ID = id,
	ENAV_L7_CLASSIFIED_PROTOCOLS(ENAV_L7_ENUM_ROW) ENAV_L7_UPGRADED_PROTOCOLS(ENAV_L7_ENUM_ROW)
#undef ENAV_L7_ENUM_ROW
	/* ids are dense and the last row has the largest: protocols.c checks */
	ENAV_L7__COUNT,
};

/* Which OpenTelemetry conventions a protocol's spans and RED metrics follow. */
enum enav_span_family {
	ENAV_SPAN_FAMILY_NONE = 0,
	ENAV_SPAN_FAMILY_HTTP,	    /* http.*, or rpc.* when the op is gRPC */
	ENAV_SPAN_FAMILY_DB,	    /* db.* */
	ENAV_SPAN_FAMILY_MESSAGING, /* messaging.* */
	ENAV_SPAN_FAMILY_WEBSOCKET, /* frames on an upgraded HTTP/1 connection */
};

struct enav_protocol {
	enum enav_l7_protocol id;
	const char *name; /* "http1", "redis": metric label, span attribute, config value */
	/* What enav_l7_classify() returns for it; ENAV_L7C_NONE when the kernel
	 * never classifies it because it is reached only through another
	 * protocol (WebSocket through an HTTP/1 upgrade).  Only classified
	 * protocols can be listed in sources.network.l7.protocols, have a
	 * parser of their own and per-parser metrics. */
	uint8_t classifier;
	enum enav_span_family family;
};

/* The row of id; the "unknown" row for an id out of range. */
const struct enav_protocol *enav_protocol(unsigned id);
/* The kernel classifies it, so the configuration can select it. */
bool enav_protocol_selectable(const struct enav_protocol *p);
/* The row named name[0..n), or NULL. */
const struct enav_protocol *enav_protocol_by_name(const char *name, size_t n);
/* "http1, http2, ...": the selectable names, as configuration errors list
 * them; cut to cap (always NUL-terminated). */
void enav_protocol_selectable_names(char *out, size_t cap);

const char *enav_l7_protocol_name(enum enav_l7_protocol p);

#endif
