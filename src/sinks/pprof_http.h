/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Local profile endpoints on the agent's HTTP server, shaped like Go's
 * net/http/pprof so `go tool pprof http://HOST:PORT/debug/pprof/profile`
 * works:
 *   /debug/pprof/            index
 *   /debug/pprof/profile     CPU       ?seconds=N (30)
 *   /debug/pprof/offcpu      off-CPU   ?seconds=N (30)
 *   /debug/pprof/futex       futex     ?seconds=N (30)
 * Filters: pid=, container= (id or prefix), cgroup= (path prefix or id);
 * format=pprof (default, gzip'd profile.proto) | folded | svg.
 */
#ifndef ENAV_SINKS_PPROF_HTTP_H
#define ENAV_SINKS_PPROF_HTTP_H

#include <stddef.h>

#include "core/http.h"

struct enav_agent;

/* Fill up to cap routes; returns how many. */
size_t enav_pprof_http_routes(struct enav_agent *a, struct enav_http_route *out, size_t cap);

#endif
