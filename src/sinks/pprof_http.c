/* SPDX-License-Identifier: Apache-2.0 */
#include "sinks/pprof_http.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "core/parse.h"
#include "generators/profile_store.h"

#define MAX_SECONDS 600

static void text(struct enav_http_response *r, int status, const char *msg)
{
	r->status = status;
	r->content_type = "text/plain; charset=utf-8";
	r->body = strdup(msg);
	r->len = r->body ? strlen(r->body) : 0;
}

static bool parse_u32(const char *s, uint32_t *out)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || s[0] == '-' || v > UINT32_MAX)
		return false;
	*out = (uint32_t)v;
	return true;
}

/* Open a window with a drain, wait, close it with another drain, build. */
static void serve_profile(struct enav_agent *a, enum enav_profile_kind kind,
			  const struct enav_http_request *req, struct enav_http_response *r)
{
	struct enav_profile_store *s = atomic_load(&a->profiles);
	if (!s) {
		text(r, 503,
		     "profiling is not running (profiling.enabled, or it failed to start: see "
		     "the agent log)\n");
		return;
	}
	uint32_t seconds = 30;
	const char *v = enav_http_query(req, "seconds");
	if (v && (!parse_u32(v, &seconds) || seconds > MAX_SECONDS)) {
		text(r, 400, "seconds: expected an integer 0..600\n");
		return;
	}
	if (seconds == 0)
		seconds = 30;
	/* The window must fit what the store keeps, or its start would be gone. */
	uint32_t keep_s = a->cfg.profiling.retention_ms / 1000;
	if (seconds >= keep_s) {
		char msg[160];
		snprintf(msg, sizeof(msg),
			 "seconds: at most %u (profiling.retention_ms keeps %u s of stacks)\n",
			 keep_s - 1, keep_s);
		text(r, 400, msg);
		return;
	}
	/* Local, yet filtered unless the operator said otherwise. */
	struct enav_profile_query q = {.kind = kind,
				       .format = ENAV_PROFILE_FORMAT_PPROF,
				       .redact = !a->cfg.profiling.local_unfiltered};
	const char *pid = enav_http_query(req, "pid");
	if (pid && !parse_u32(pid, &q.filter.pid)) {
		text(r, 400, "pid: expected a process id\n");
		return;
	}
	q.filter.container = enav_http_query(req, "container");
	if (q.filter.container && strlen(q.filter.container) < 4) {
		text(r, 400, "container: give at least 4 characters of the id\n");
		return;
	}
	q.filter.cgroup = enav_http_query(req, "cgroup");
	const char *fmt = enav_http_query(req, "format");
	if (fmt && !strcmp(fmt, "folded"))
		q.format = ENAV_PROFILE_FORMAT_FOLDED;
	else if (fmt && !strcmp(fmt, "svg"))
		q.format = ENAV_PROFILE_FORMAT_FLAMEGRAPH;
	else if (fmt && strcmp(fmt, "pprof") && strcmp(fmt, "proto")) {
		text(r, 400, "format: pprof, folded or svg\n");
		return;
	}
	int rc = enav_profile_store_drain(s, &q.from_mono_ns);
	if (rc == 0 && !enav_profile_store_sleep(s, seconds * 1000))
		rc = -ESHUTDOWN;
	if (rc == 0)
		rc = enav_profile_store_drain(s, &q.to_mono_ns);
	if (rc) {
		text(r, 503,
		     rc == -ESHUTDOWN ? "the agent is stopping\n" : "profiling is not running\n");
		return;
	}
	uint8_t *out;
	size_t len;
	rc = enav_profile_store_build(s, &q, &out, &len);
	if (rc) {
		char msg[128];
		snprintf(msg, sizeof(msg), "cannot build the profile: %s\n", strerror(-rc));
		text(r, 500, msg);
		return;
	}
	r->status = 200;
	r->content_type = q.format == ENAV_PROFILE_FORMAT_PPROF	   ? "application/octet-stream"
			  : q.format == ENAV_PROFILE_FORMAT_FOLDED ? "text/plain; charset=utf-8"
								   : "image/svg+xml";
	r->body = (char *)out;
	r->len = len;
}

static void handle_cpu(void *ctx, const struct enav_http_request *req, struct enav_http_response *r)
{
	serve_profile(ctx, ENAV_PROFILE_CPU, req, r);
}

static void handle_offcpu(void *ctx, const struct enav_http_request *req,
			  struct enav_http_response *r)
{
	serve_profile(ctx, ENAV_PROFILE_OFFCPU, req, r);
}

static void handle_futex(void *ctx, const struct enav_http_request *req,
			 struct enav_http_response *r)
{
	serve_profile(ctx, ENAV_PROFILE_FUTEX, req, r);
}

static void handle_index(void *ctx, const struct enav_http_request *req,
			 struct enav_http_response *r)
{
	text(r, 200,
	     "enav profiles (pprof, gzip'd profile.proto unless format= says otherwise)\n"
	     "  /debug/pprof/profile?seconds=30   CPU samples\n"
	     "  /debug/pprof/offcpu?seconds=30    time blocked off-CPU\n"
	     "  /debug/pprof/futex?seconds=30     time waited on futexes\n"
	     "filters: pid=PID container=ID-or-prefix cgroup=PATH-prefix-or-ID\n"
	     "format: pprof (default) | folded | svg\n");
}

size_t enav_pprof_http_routes(struct enav_agent *a, struct enav_http_route *out, size_t cap)
{
	const struct enav_http_route routes[] = {
	    {"/debug/pprof/", handle_index, a},
	    {"/debug/pprof/profile", handle_cpu, a},
	    {"/debug/pprof/offcpu", handle_offcpu, a},
	    {"/debug/pprof/futex", handle_futex, a},
	};
	size_t n = sizeof(routes) / sizeof(routes[0]);
	if (n > cap)
		n = cap;
	memcpy(out, routes, n * sizeof(*out));
	return n;
}
