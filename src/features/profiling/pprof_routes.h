/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The profiling feature's service to the agent's HTTP listener (the
 * `prometheus` row): the /debug/pprof/ routes to mount beside /metrics.
 * The listener includes this header and nothing else of the feature (the
 * handlers behind the routes are the feature's own, pprof_http.c).
 *
 * enav-service: one function that lists the profiling routes for the HTTP listener
 */
#ifndef ENAV_FEATURES_PROFILING_PPROF_ROUTES_H
#define ENAV_FEATURES_PROFILING_PPROF_ROUTES_H

#include <stddef.h>

#include "platform/http.h"

struct enav_host;

/* Fill up to cap routes; returns how many. */
size_t enav_pprof_http_routes(struct enav_host *a, struct enav_http_route *out, size_t cap);

#endif
