/* SPDX-License-Identifier: Apache-2.0 */
/* Decoder for raw network events (include/enav/abi.h); pure and fuzzed. */
#ifndef ENAV_FEATURES_NETWORK_NET_DECODE_H
#define ENAV_FEATURES_NETWORK_NET_DECODE_H

#include <stddef.h>

#include "enav/abi.h"
#include "runtime/event_decode.h"

struct enav_net_decoded {
	enum enav_event_type type;
	union {
		struct enav_tcp_event tcp; /* copied whole */
		struct {
			struct enav_dns_event head; /* payload not copied */
			const __u8 *payload;	    /* into the raw buffer, captured_len bytes */
		} dns;
		struct {
			struct enav_l7_event head; /* payload not copied */
			/* into the raw buffer: captured bytes, then n_marks marks */
			const __u8 *payload;
		} l7;
	};
};

enum enav_decode_status enav_net_decode(const void *data, size_t size,
					struct enav_net_decoded *out);

#endif
