/* SPDX-License-Identifier: Apache-2.0 */
/*
 * PostgreSQL message headers (postgres_wire.c): which type and length pairs
 * each side may send, and whether a run of bytes looks like a chain of
 * headers, which is where the parser resyncs.
 */
#ifndef ENAV_FEATURES_NETWORK_L7_POSTGRES_WIRE_H
#define ENAV_FEATURES_NETWORK_L7_POSTGRES_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "features/network/l7/l7.h"

#define PG_MAX_LEN     0x40000000u /* the server refuses longer messages */
#define PG_CHAIN_MAX   16	   /* headers a resync candidate is checked against */
#define PG_SSL_CODE    80877103u
#define PG_GSS_CODE    80877104u
#define PG_CANCEL_CODE 80877102u

/* A typed message header (type byte, length field) dir may send. */
bool enav_pg_valid_header(enum enav_l7_stream dir, uint8_t t, uint32_t len);
/* A start-up packet's length and code (StartupMessage, SSLRequest,
 * GSSENCRequest, CancelRequest). */
bool enav_pg_valid_startup(uint32_t len, uint32_t code);
/* Is d[i..cap) a plausible chain of message headers?  frag_start: i is the
 * fragment's first byte. */
bool enav_pg_chain_ok(enum enav_l7_stream dir, const uint8_t *d, size_t i, size_t cap,
		      bool frag_start);
/* A start-up packet at d[i]? */
bool enav_pg_startup_at(const uint8_t *d, size_t i, size_t cap);

#endif
