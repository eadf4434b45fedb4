/* SPDX-License-Identifier: Apache-2.0 */
#include "exporters/prometheus/prometheus.h"
#include "features/profiling/pprof_http.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/http.h"
#include "platform/log.h"

struct prometheus_sink {
	struct enav_host *agent;
	struct enav_http_server *http;
	_Atomic uint64_t render_overflows, families_dropped, last_bytes, last_cap;
};

static void text(struct enav_http_response *r, int status, const char *body)
{
	r->status = status;
	r->content_type = "text/plain; charset=utf-8";
	r->body = strdup(body);
	r->len = r->body ? strlen(body) : 0;
}

/*
 * The text grows with what the modules hold, up to a hard cap sized from
 * their caps; at the cap whole families are left out (counted) and the
 * scrape still answers 200 with everything else.
 */
static void handle_metrics(void *ctx, const struct enav_http_request *req,
			   struct enav_http_response *r)
{
	struct prometheus_sink *ps = ctx;
	struct enav_promtext p;
	/* The host raises the cap to what the running modules' caps need. */
	if (enav_promtext_init_growable(&p, ENAV_METRICS_BASE_BYTES) != 0) {
		text(r, 503, "out of memory\n");
		return;
	}
	if (!enav_host_render_metrics(ps->agent, &p)) {
		enav_promtext_free(&p);
		text(r, 503, "stopping\n");
		return;
	}
	if (p.families_dropped) {
		atomic_fetch_add(&ps->render_overflows, 1);
		atomic_fetch_add(&ps->families_dropped, p.families_dropped);
	}
	atomic_store(&ps->last_bytes, p.len);
	atomic_store(&ps->last_cap, p.hard_cap);
	r->status = 200;
	r->content_type = "text/plain; version=0.0.4; charset=utf-8";
	r->body = p.buf; /* the response owns it now */
	r->len = p.len;
}

static void handle_healthz(void *ctx, const struct enav_http_request *req,
			   struct enav_http_response *r)
{
	struct prometheus_sink *ps = ctx;
	if (enav_host_stopping(ps->agent))
		text(r, 503, "stopping\n");
	else
		text(r, 200, "ok\n");
}

static void handle_readyz(void *ctx, const struct enav_http_request *req,
			  struct enav_http_response *r)
{
	struct prometheus_sink *ps = ctx;
	if (enav_host_ready(ps->agent) && !enav_host_stopping(ps->agent))
		text(r, 200, "ready\n");
	else
		text(r, 503, "not ready\n");
}

static int prom_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	struct prometheus_sink *ps = calloc(1, sizeof(*ps));
	if (!ps)
		return -ENOMEM;
	*state = ps;
	ps->agent = a;
	char host[64];
	uint16_t port;
	if (enav_config_listen_split(cfg->http.listen, host, sizeof(host), &port) != 0) {
		snprintf(err, errlen, "http.listen: %s is not IPv4:port", cfg->http.listen);
		return -EINVAL;
	}
	/* The listener (http.*) is shared; the exporter is its /metrics route. */
	struct enav_http_route routes[ENAV_HTTP_MAX_ROUTES] = {
	    {"/healthz", handle_healthz, ps},
	    {"/readyz", handle_readyz, ps},
	};
	size_t n = 2;
	if (cfg->prometheus.enabled)
		routes[n++] = (struct enav_http_route){"/metrics", handle_metrics, ps};
	/* The profiling endpoints share this server (Go's /debug/pprof/ shape). */
	if (cfg->profiling.enabled)
		n += enav_pprof_http_routes(a, routes + n, ENAV_HTTP_MAX_ROUTES - n);
	ps->http = enav_http_start(host, port, cfg->http.max_connections, routes, n, err, errlen);
	if (!ps->http)
		return -EADDRINUSE;
	enav_info("serving %s/healthz, /readyz on http://%s:%u",
		  cfg->prometheus.enabled ? "/metrics, " : "", host, port);
	return 0;
}

static void prom_submit(void *state, struct enav_signal *s)
{
	/* Pull-based: metrics are read from the modules at scrape time. */
}

static void prom_fini(void *state, uint64_t deadline_mono_ns)
{
	struct prometheus_sink *ps = state;
	if (!ps)
		return;
	enav_http_stop(ps->http);
	free(ps);
}

static void prom_metrics(void *state, struct enav_promtext *p)
{
	struct prometheus_sink *ps = state;
	enav_promtext_single_u64(p, "enav_metrics_render_overflows_total", "counter",
				 "Scrapes whose exposition reached its hard cap (whole families "
				 "were left out; the scrape still answered).",
				 atomic_load(&ps->render_overflows));
	enav_promtext_single_u64(
	    p, "enav_metrics_families_dropped_total", "counter",
	    "Metric families left out of a scrape at the exposition's hard cap.",
	    atomic_load(&ps->families_dropped));
	enav_promtext_single_u64(p, "enav_metrics_exposition_bytes", "gauge",
				 "Bytes of the last /metrics answer.",
				 atomic_load(&ps->last_bytes));
	enav_promtext_single_u64(p, "enav_metrics_exposition_cap_bytes", "gauge",
				 "Hard cap of the last /metrics answer, sized from the configured "
				 "caps.",
				 atomic_load(&ps->last_cap));
}

bool enav_prometheus_enabled(const struct enav_config *cfg)
{
	return cfg->http.enabled;
}

const struct enav_sink_ops enav_prometheus_sink_ops = {
    .init = prom_init,
    .submit = prom_submit,
    .fini = prom_fini,
    .metrics = prom_metrics,
};
