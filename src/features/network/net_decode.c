/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/net_decode.h"

#include <string.h>

enum enav_decode_status enav_net_decode(const void *data, size_t size, struct enav_net_decoded *out)
{
	struct enav_event_header h;
	if (size < sizeof(h))
		return ENAV_DECODE_SHORT;
	memcpy(&h, data, sizeof(h));
	if (h.abi_version != ENAV_ABI_VERSION)
		return ENAV_DECODE_BAD_VERSION;
	if (h.size > size || h.size < sizeof(h))
		return ENAV_DECODE_BAD_SIZE;
	switch (h.type) {
	case ENAV_EVENT_TCP:
		if (h.size != sizeof(struct enav_tcp_event))
			return ENAV_DECODE_BAD_SIZE;
		memcpy(&out->tcp, data, sizeof(out->tcp));
		if (out->tcp.kind < ENAV_TCP_OPEN || out->tcp.kind > ENAV_TCP_FAILED ||
		    (out->tcp.family != 2 && out->tcp.family != 10))
			return ENAV_DECODE_BAD_LENGTH;
		out->type = ENAV_EVENT_TCP;
		return ENAV_DECODE_OK;
	case ENAV_EVENT_DNS: {
		size_t fixed = ENAV_OFFSETOF(struct enav_dns_event, payload);
		if (h.size < fixed)
			return ENAV_DECODE_SHORT;
		memcpy(&out->dns.head, data, fixed);
		const struct enav_dns_event *e = &out->dns.head;
		if (e->captured_len > ENAV_DNS_PAYLOAD_MAX || e->captured_len > e->payload_len ||
		    fixed + e->captured_len != h.size)
			return ENAV_DECODE_BAD_LENGTH;
		if (e->family != 2 && e->family != 10)
			return ENAV_DECODE_BAD_LENGTH;
		out->dns.payload = (const __u8 *)data + fixed;
		out->type = ENAV_EVENT_DNS;
		return ENAV_DECODE_OK;
	}
	case ENAV_EVENT_L7_DATA: {
		size_t fixed = ENAV_OFFSETOF(struct enav_l7_event, payload);
		if (h.size < fixed)
			return ENAV_DECODE_SHORT;
		memcpy(&out->l7.head, data, fixed);
		const struct enav_l7_event *e = &out->l7.head;
		size_t marks = e->flags & ENAV_L7_MARK_BLOCK
				   ? ENAV_L7_MAX_MARKS * sizeof(struct enav_l7_mark)
				   : 0;
		size_t carry = e->flags & ENAV_L7_CARRIED ? sizeof(struct enav_l7_carry) : 0;
		if (e->captured > ENAV_L7_PAYLOAD_MAX || e->captured > e->len ||
		    e->n_marks > ENAV_L7_MAX_MARKS ||
		    (e->n_marks && !(e->flags & ENAV_L7_MARK_BLOCK)) ||
		    fixed + e->captured + marks + carry != h.size ||
		    (e->family != 2 && e->family != 10) ||
		    (e->direction != ENAV_L7_SENT && e->direction != ENAV_L7_RECEIVED) ||
		    e->role > ENAV_ROLE_SERVER)
			return ENAV_DECODE_BAD_LENGTH;
		out->l7.payload = (const __u8 *)data + fixed;
		out->l7.has_carry = carry != 0;
		if (carry) {
			memcpy(&out->l7.carry, out->l7.payload + e->captured + marks, carry);
			const struct enav_l7_carry *k = &out->l7.carry;
			if (k->len == 0 ||
			    (k->direction != ENAV_L7_SENT && k->direction != ENAV_L7_RECEIVED))
				return ENAV_DECODE_BAD_LENGTH;
		}
		out->type = ENAV_EVENT_L7_DATA;
		return ENAV_DECODE_OK;
	}
	default:
		return ENAV_DECODE_UNKNOWN_TYPE;
	}
}

void enav_net_l7_carried_event(const struct enav_l7_event *head, const struct enav_l7_carry *carry,
			       struct enav_l7_event *out)
{
	memcpy(out, head, ENAV_OFFSETOF(struct enav_l7_event, payload));
	out->hdr.boot_time_ns = carry->boot_ns;
	out->hdr.size = ENAV_OFFSETOF(struct enav_l7_event, payload);
	out->len = carry->len;
	out->captured = 0;
	out->seq = carry->seq;
	out->direction = carry->direction;
	out->n_marks = 0;
	/* The sequence is the socket's; the bytes had no user buffer. */
	out->flags = (__u8)((head->flags & ~(ENAV_L7_MARK_BLOCK | ENAV_L7_MARKS_LOST |
					     ENAV_L7_CARRIED | ENAV_L7_LINK_SAMPLED)) |
			    ENAV_L7_SEQ_VALID | ENAV_L7_NO_DATA);
}
