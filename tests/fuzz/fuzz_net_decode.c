/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer: the raw network event decoder on arbitrary bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/network/net_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so any over-read is an ASan report. */
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	struct enav_net_decoded d;
	if (enav_net_decode(buf, size, &d) == ENAV_DECODE_OK && d.type == ENAV_EVENT_DNS) {
		const struct enav_dns_event *e = &d.dns.head;
		if (e->captured_len > ENAV_DNS_PAYLOAD_MAX ||
		    d.dns.payload + e->captured_len > buf + size)
			abort();
		volatile uint8_t sink = 0;
		for (uint32_t i = 0; i < e->captured_len; i++)
			sink ^= d.dns.payload[i];
		(void)sink;
	}
	free(buf);
	return 0;
}
