/* SPDX-License-Identifier: Apache-2.0 */
#include "features/profiling/pprof_http.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/host.h"
#include "runtime/profiles.h"
#include "platform/numfmt.h"
#include "platform/parse.h"
#include "model/cgroup_path.h"

#define MAX_SECONDS 600

static void text(struct enav_http_response *r, int status, const char *msg)
{
	r->status = status;
	r->content_type = "text/plain; charset=utf-8";
	r->body = strdup(msg);
	r->len = r->body ? strlen(r->body) : 0;
}

/* Decimal digits only (no sign, blank or junk strtoul would skip), no overflow. */
static bool parse_dec(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v;
	if (!enav_parse_u64_dec(s, strlen(s), &v) || v > max)
		return false;
	*out = v;
	return true;
}

/* 4..64 lowercase hex digits: the start of a container id as the runtimes
 * print it (src/model/cgroup_path.c); anything else matches nothing. */
static bool container_prefix(const char *s)
{
	size_t n = strlen(s);
	if (n < 4 || n > ENAV_CONTAINER_ID_LEN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static int bad(char *msg, size_t msglen, const char *why)
{
	snprintf(msg, msglen, "%s", why);
	return 400;
}

int enav_pprof_parse_query(enav_pprof_query_arg_fn arg, void *ctx, enum enav_profile_kind kind,
			   uint32_t retention_ms, bool unfiltered, struct enav_pprof_request *out,
			   char *msg, size_t msglen)
{
	uint64_t v;
	memset(out, 0, sizeof(*out));
	out->seconds = 30;
	const char *s = arg(ctx, "seconds");
	if (s) {
		if (!parse_dec(s, MAX_SECONDS, &v))
			return bad(msg, msglen, "seconds: expected an integer 0..600\n");
		if (v)
			out->seconds = (uint32_t)v;
	}
	/* The window must fit what the store keeps, or its start would be gone. */
	uint32_t keep_s = retention_ms / 1000;
	if (out->seconds >= keep_s) {
		snprintf(msg, msglen,
			 "seconds: at most %u (profiling.retention_ms keeps %u s of stacks)\n",
			 keep_s ? keep_s - 1 : 0, keep_s);
		return 400;
	}
	/* Local, yet filtered unless the operator said otherwise. */
	struct enav_profile_query *q = &out->q;
	q->kind = kind;
	q->format = ENAV_PROFILE_FORMAT_PPROF;
	q->redact = !unfiltered;
	const char *pid = arg(ctx, "pid");
	/* pid 0 is no process: the filter would read it as "any" (as the CLI's
	 * --pid does not). */
	if (pid && (!parse_dec(pid, UINT32_MAX, &v) || v == 0))
		return bad(msg, msglen, "pid: expected a process id\n");
	q->filter.pid = pid ? (uint32_t)v : 0;
	q->filter.container = arg(ctx, "container");
	if (q->filter.container && !container_prefix(q->filter.container))
		return bad(msg, msglen,
			   "container: give 4 to 64 lowercase hex characters of the id\n");
	/* A path from the cgroup2 root, or a cgroup id; an empty one would be no
	 * filter at all. */
	q->filter.cgroup = arg(ctx, "cgroup");
	if (q->filter.cgroup && q->filter.cgroup[0] != '/' &&
	    !parse_dec(q->filter.cgroup, UINT64_MAX, &v))
		return bad(msg, msglen, "cgroup: expected a path starting with / or a cgroup id\n");
	/* One trace's or one span's flame graph (profiling.links). */
	const char *tid = arg(ctx, "trace_id"), *sid = arg(ctx, "span_id");
	q->filter.has_trace_id = tid != NULL;
	if (tid && !enav_parse_hex_bytes(tid, strlen(tid), q->filter.trace_id, 16))
		return bad(msg, msglen, "trace_id: expected 32 hex digits\n");
	q->filter.has_span_id = sid != NULL;
	if (sid && !enav_parse_hex_bytes(sid, strlen(sid), q->filter.span_id, 8))
		return bad(msg, msglen, "span_id: expected 16 hex digits\n");
	const char *fmt = arg(ctx, "format");
	if (fmt && !strcmp(fmt, "folded"))
		q->format = ENAV_PROFILE_FORMAT_FOLDED;
	else if (fmt && !strcmp(fmt, "svg"))
		q->format = ENAV_PROFILE_FORMAT_FLAMEGRAPH;
	else if (fmt && strcmp(fmt, "pprof") && strcmp(fmt, "proto"))
		return bad(msg, msglen, "format: pprof, folded or svg\n");
	return 0;
}

static const char *query_arg(void *ctx, const char *key)
{
	return enav_http_query(ctx, key);
}

/* Open a window with a drain, wait, close it with another drain, build. */
static void serve_profile(struct enav_host *a, enum enav_profile_kind kind,
			  const struct enav_http_request *req, struct enav_http_response *r)
{
	const struct enav_profile_service *svc;
	struct enav_profile_store *s = enav_host_profile_service(a, &svc);
	if (!s) {
		text(r, 503,
		     "profiling is not running (profiling.enabled, or it failed to start: see "
		     "the agent log)\n");
		return;
	}
	struct enav_pprof_request pr;
	char msg[160];
	int status = enav_pprof_parse_query(
	    query_arg, (void *)req, kind, enav_host_config(a)->profiling.retention_ms,
	    enav_host_config(a)->profiling.local_unfiltered, &pr, msg, sizeof(msg));
	if (status) {
		text(r, status, msg);
		return;
	}
	struct enav_profile_query q = pr.q;
	uint32_t seconds = pr.seconds;
	int rc = svc->drain(s, &q.from_mono_ns);
	if (rc == 0 && !svc->sleep(s, seconds * 1000))
		rc = -ESHUTDOWN;
	if (rc == 0)
		rc = svc->drain(s, &q.to_mono_ns);
	if (rc) {
		text(r, 503,
		     rc == -ESHUTDOWN ? "the agent is stopping\n" : "profiling is not running\n");
		return;
	}
	uint8_t *out;
	size_t len;
	rc = svc->build(s, &q, &out, &len);
	if (rc) {
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
	     "         trace_id=32-HEX span_id=16-HEX (samples linked to a trace or span)\n"
	     "format: pprof (default) | folded | svg\n");
}

/* ---- the row ---------------------------------------------------------------- */

bool enav_pprof_http_enabled(const struct enav_config *cfg)
{
	return cfg->profiling.enabled && cfg->http.enabled;
}

/* Nothing of its own to keep: the host holds the routes, the handlers find
 * the store through the host on every request. */
static int pprof_http_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	*state = NULL;
	const struct enav_http_route routes[] = {
	    {"/debug/pprof/", handle_index, a, .long_running = false},
	    {"/debug/pprof/profile", handle_cpu, a, .long_running = true},
	    {"/debug/pprof/offcpu", handle_offcpu, a, .long_running = true},
	    {"/debug/pprof/futex", handle_futex, a, .long_running = true},
	};
	return enav_host_add_http_routes(a, routes, sizeof(routes) / sizeof(routes[0]), err,
					 errlen);
}

/* The listener (a later row) has stopped: no handler runs any more. */
static void pprof_http_fini(void *state, uint64_t deadline_mono_ns)
{
	(void)state;
	(void)deadline_mono_ns;
}

const struct enav_sink_ops enav_pprof_http_sink_ops = {
    .init = pprof_http_init,
    .fini = pprof_http_fini,
};
