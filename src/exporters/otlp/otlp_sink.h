/* SPDX-License-Identifier: Apache-2.0 */
/* The OTLP/HTTP sink (docs/otlp.md). */
#ifndef ENAV_EXPORTERS_OTLP_OTLP_SINK_H
#define ENAV_EXPORTERS_OTLP_OTLP_SINK_H

#include "runtime/host.h"

extern const struct enav_sink_ops enav_otlp_sink_ops;
/* On when any signal has an endpoint: in the file or in OTEL_EXPORTER_OTLP_*. */
bool enav_otlp_sink_enabled(const struct enav_config *cfg);

#endif
