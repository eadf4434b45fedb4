/* SPDX-License-Identifier: Apache-2.0 */
/* Decoder for raw network events (include/enav/abi.h); pure and fuzzed. */
#ifndef ENAV_FEATURES_NETWORK_NET_DECODE_H
#define ENAV_FEATURES_NETWORK_NET_DECODE_H

#include <stdbool.h>
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
			bool has_carry; /* ENAV_L7_CARRIED: carry is valid */
			struct enav_l7_carry carry;
		} l7;
	};
};

enum enav_decode_status enav_net_decode(const void *data, size_t size,
					struct enav_net_decoded *out);

/* The record the kernel did not emit for a decoded L7 record's carry: the
 * same connection and task, the carried run's direction, sequence, length
 * and time, no captured bytes.  Fed to the tracker before the record. */
void enav_net_l7_carried_event(const struct enav_l7_event *head, const struct enav_l7_carry *carry,
			       struct enav_l7_event *out);

#endif
