/* SPDX-License-Identifier: Apache-2.0 */
/*
 * RED metrics (rate, errors, duration) from span signals: histograms named
 * after the OpenTelemetry semantic conventions (http.server.request.duration
 * -> http_server_request_duration_seconds, db.client.operation.duration, ...),
 * each family's label sets capped by sources.network.l7.max_series with one
 * overflow series per family and a counter of what overflowed; a label set
 * idle for sources.network.l7.series_idle_s is dropped (and counted).
 */
#ifndef ENAV_FEATURES_NETWORK_RED_METRICS_H
#define ENAV_FEATURES_NETWORK_RED_METRICS_H

#include "runtime/host.h"

extern const struct enav_generator_ops enav_red_metrics_ops;
bool enav_red_metrics_enabled(const struct enav_config *cfg);

/* The table behind the generator, with the clock given (tests drive it). */
struct enav_red_table;
struct enav_red_table *enav_red_table_new(uint32_t max_per_family, uint64_t idle_ns);
void enav_red_table_free(struct enav_red_table *g);
void enav_red_table_observe(struct enav_red_table *g, const struct enav_signal *s, uint64_t now_ns);
/* Drop every label set (overflow series included) idle for idle_ns. */
void enav_red_table_expire(struct enav_red_table *g, uint64_t now_ns);
uint32_t enav_red_table_series(struct enav_red_table *g);
void enav_red_table_render(struct enav_red_table *g, struct enav_promtext *p);

/* Bytes of exposition this module can write at most, with max_per_family
 * label sets in every family: what sizes the /metrics buffer's hard cap. */
size_t enav_red_metrics_exposition_bound(uint32_t max_per_family);
/* The same for the configured cap (the module row's exposition_bound). */
size_t enav_red_metrics_config_bound(const struct enav_config *cfg);

#endif
