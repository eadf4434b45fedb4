/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP listener (the "http" row, http.*): /healthz and /readyz, /metrics
 * in the Prometheus text format when exporters.prometheus is on, and the
 * routes earlier rows added (enav_host_http_routes). */
#ifndef ENAV_EXPORTERS_LISTENER_LISTENER_H
#define ENAV_EXPORTERS_LISTENER_LISTENER_H

#include "runtime/host.h"

extern const struct enav_sink_ops enav_listener_sink_ops;
bool enav_listener_enabled(const struct enav_config *cfg);

#endif
