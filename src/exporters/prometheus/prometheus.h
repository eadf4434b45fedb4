/* SPDX-License-Identifier: Apache-2.0 */
/* Prometheus sink: serves /metrics, /healthz and /readyz over HTTP. */
#ifndef ENAV_EXPORTERS_PROMETHEUS_PROMETHEUS_H
#define ENAV_EXPORTERS_PROMETHEUS_PROMETHEUS_H

#include "runtime/host.h"

extern const struct enav_sink_ops enav_prometheus_sink_ops;
bool enav_prometheus_enabled(const struct enav_config *cfg);

#endif
