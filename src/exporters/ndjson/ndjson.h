/* SPDX-License-Identifier: Apache-2.0 */
/* NDJSON sink: one JSON object per signal on stdout or a file. */
#ifndef ENAV_EXPORTERS_NDJSON_NDJSON_H
#define ENAV_EXPORTERS_NDJSON_NDJSON_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/host.h"
#include "platform/json.h"

extern const struct enav_sink_ops enav_ndjson_sink_ops;
bool enav_ndjson_enabled(const struct enav_config *cfg);

/* The output stream (exposed for tests): a line counts as written only once a
 * flush has handed it to the kernel; the lines a failed write or flush loses
 * count as write errors.  pending: lines in stdio's buffer, not yet flushed. */
struct enav_ndjson_out {
	FILE *f;
	uint64_t pending;
	_Atomic uint64_t written, write_errors;
};
void enav_ndjson_out_line(struct enav_ndjson_out *o, const char *line, size_t n);
void enav_ndjson_out_flush(struct enav_ndjson_out *o);

/* Serialize one signal as a line (no newline); -1 when it does not fit. */
long enav_ndjson_encode(const struct enav_signal *s, char *buf, size_t cap);

#endif
