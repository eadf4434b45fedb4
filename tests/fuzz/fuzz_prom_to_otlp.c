/* SPDX-License-Identifier: Apache-2.0 */
/* libFuzzer: the Prometheus text the OTLP sink parses, and its conversion. */
#include <stddef.h>
#include <stdint.h>

#include "exporters/otlp/prom_to_otlp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct enav_prom_snapshot *s = enav_prom_parse((const char *)data, size);
	if (!s)
		return 0;
	struct enav_otlp_kv kv = {.key = "host.name", .type = ENAV_OTLP_STR, .s = "fuzz"};
	struct enav_otlp_resource r = {&kv, 1};
	struct enav_pb_writer w;
	enav_pb_writer_init(&w, 1u << 20);
	enav_prom_encode_otlp(&w, s, &r, (struct enav_otlp_scope){"fuzz", "0"}, 1, 2, NULL);
	enav_pb_writer_free(&w);
	enav_prom_snapshot_free(s);
	return 0;
}
