/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RED metrics (rate, errors, duration) from span signals: histograms named
 * after the OpenTelemetry semantic conventions (http.server.request.duration
 * -> http_server_request_duration_seconds, db.client.operation.duration, ...),
 * every label set capped by sources.network.l7.max_series with one overflow
 * series per metric and a counter of what overflowed.
 */
#ifndef ENAV_FEATURES_NETWORK_RED_METRICS_H
#define ENAV_FEATURES_NETWORK_RED_METRICS_H

#include "runtime/host.h"

extern const struct enav_generator_ops enav_red_metrics_ops;
bool enav_red_metrics_enabled(const struct enav_config *cfg);

#endif
