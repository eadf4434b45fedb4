/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Local profile endpoints on the agent's HTTP server, shaped like Go's
 * net/http/pprof so `go tool pprof http://HOST:PORT/debug/pprof/profile`
 * works:
 *   /debug/pprof/            index
 *   /debug/pprof/profile     CPU       ?seconds=N (30)
 *   /debug/pprof/offcpu      off-CPU   ?seconds=N (30)
 *   /debug/pprof/futex       futex     ?seconds=N (30)
 * Filters: pid=, container= (id or a prefix of 4+ hex digits), cgroup= (path
 * prefix or id);
 * format=pprof (default, gzip'd profile.proto) | folded | svg.
 *
 * A row of its own (`pprof_http`, a sink of no signal), before the HTTP
 * listener's row (`prometheus`): it adds the routes to the host, which the
 * listener mounts; the handlers read the store only through
 * runtime/profiles.h.
 */
#ifndef ENAV_FEATURES_PROFILING_PPROF_HTTP_H
#define ENAV_FEATURES_PROFILING_PPROF_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/http.h"
#include "runtime/host.h"
#include "runtime/profiles.h"

/* The row: profiling on and the HTTP listener on (http.enabled). */
extern const struct enav_sink_ops enav_pprof_http_sink_ops;
bool enav_pprof_http_enabled(const struct enav_config *cfg);

/* Exposed for tests and tests/fuzz/fuzz_pprof_query.c: the query of a
 * profile request, parsed.  arg answers as enav_http_query() does: a query
 * argument's value ("" for a bare key) or NULL when absent. */
typedef const char *(*enav_pprof_query_arg_fn)(void *ctx, const char *key);
struct enav_pprof_request {
	uint32_t seconds;	     /* the window: 1..600, below retention */
	struct enav_profile_query q; /* kind, filter, format, redact; no window yet */
};
/* 0, or 400 with a one-line reason (newline-terminated) in msg.  Numbers
 * are decimal digits only; seconds=0 means the default 30; pid is not 0;
 * container is 4..64 lowercase hex; cgroup is a path from the cgroup2 root
 * or a decimal cgroup id.  The filter's strings point into arg's answers. */
int enav_pprof_parse_query(enav_pprof_query_arg_fn arg, void *ctx, enum enav_profile_kind kind,
			   uint32_t retention_ms, bool unfiltered, struct enav_pprof_request *out,
			   char *msg, size_t msglen);

#endif
