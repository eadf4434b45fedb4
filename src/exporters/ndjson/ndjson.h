/* SPDX-License-Identifier: Apache-2.0 */
/* NDJSON sink: one JSON object per signal on stdout or a file. */
#ifndef ENAV_EXPORTERS_NDJSON_NDJSON_H
#define ENAV_EXPORTERS_NDJSON_NDJSON_H

#include "runtime/host.h"
#include "platform/json.h"

extern const struct enav_sink_ops enav_ndjson_sink_ops;
bool enav_ndjson_enabled(const struct enav_config *cfg);

/* Serialize one signal as a line (no newline); -1 when it does not fit. */
long enav_ndjson_encode(const struct enav_signal *s, char *buf, size_t cap);

#endif
