/* SPDX-License-Identifier: Apache-2.0 */
#include "exporters/listener/listener.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/bearer.h"
#include "platform/http.h"
#include "platform/log.h"

struct listener {
	struct enav_host *host;
	struct enav_http_server *http;
	struct enav_http_server *health; /* http.health_listen; NULL when "" */
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
	struct listener *l = ctx;
	struct enav_promtext p;
	/* The host raises the cap to what the running modules' caps need. */
	if (enav_promtext_init_growable(&p, ENAV_METRICS_BASE_BYTES) != 0) {
		text(r, 503, "out of memory\n");
		return;
	}
	if (!enav_host_render_metrics(l->host, &p)) {
		enav_promtext_free(&p);
		text(r, 503, "stopping\n");
		return;
	}
	if (p.families_dropped) {
		atomic_fetch_add(&l->render_overflows, 1);
		atomic_fetch_add(&l->families_dropped, p.families_dropped);
	}
	atomic_store(&l->last_bytes, p.len);
	atomic_store(&l->last_cap, p.hard_cap);
	r->status = 200;
	r->content_type = "text/plain; version=0.0.4; charset=utf-8";
	r->body = p.buf; /* the response owns it now */
	r->len = p.len;
}

static void handle_healthz(void *ctx, const struct enav_http_request *req,
			   struct enav_http_response *r)
{
	struct listener *l = ctx;
	uint64_t stalled = enav_host_stalled_ns(l->host);
	char msg[96];
	if (enav_host_stopping(l->host)) {
		text(r, 503, "stopping\n");
	} else if (stalled > ENAV_HOST_STALL_NS) {
		/* Alive is more than answering: a capture loop stuck in one
		 * round (a blocked call, a lock held by a stuck thread) loses
		 * every signal, and a restart is what the kubelet can offer. */
		snprintf(msg, sizeof(msg), "capture loop stalled for %.0f s\n",
			 (double)stalled / 1e9);
		text(r, 503, msg);
	} else {
		text(r, 200, "ok\n");
	}
}

static void handle_readyz(void *ctx, const struct enav_http_request *req,
			  struct enav_http_response *r)
{
	struct listener *l = ctx;
	if (enav_host_ready(l->host) && !enav_host_stopping(l->host))
		text(r, 200, "ready\n");
	else
		text(r, 503, "not ready\n");
}

/* The health listener's own caps: its handlers answer at once, so one
 * polling thread serves it, an idle client is dropped after 2 s and any
 * client after 5 s. */
#define HEALTH_MAX_CONNECTIONS	 64
#define HEALTH_MAX_PER_CLIENT	 16
#define HEALTH_IDLE_TIMEOUT_S	 2
#define HEALTH_REQUEST_TIMEOUT_S 5

static int listen_addr(const char *key, const char *value, char *host, size_t hostlen,
		       uint16_t *port, char *err, size_t errlen)
{
	if (enav_config_listen_split(value, host, hostlen, port) == 0)
		return 0;
	snprintf(err, errlen, "%s: %s is not IPv4:port", key, value);
	return -EINVAL;
}

static int listener_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	struct listener *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	*state = l;
	l->host = a;
	char host[64], hhost[64] = "";
	uint16_t port, hport = 0;
	if (listen_addr("http.listen", cfg->http.listen, host, sizeof(host), &port, err, errlen))
		return -EINVAL;
	if (cfg->http.health_listen[0] && listen_addr("http.health_listen", cfg->http.health_listen,
						      hhost, sizeof(hhost), &hport, err, errlen))
		return -EINVAL;
	if (hhost[0] && hport == port &&
	    (!strcmp(hhost, host) || !strcmp(hhost, "0.0.0.0") || !strcmp(host, "0.0.0.0"))) {
		snprintf(err, errlen, "http.health_listen: %s overlaps http.listen %s",
			 cfg->http.health_listen, cfg->http.listen);
		return -EINVAL;
	}
	/* Read once, here: a token changed later takes a restart (ADR 0018). */
	char token[ENAV_BEARER_MAX + 1] = "";
	if (cfg->http.bearer_token_file[0] &&
	    enav_bearer_load(cfg->http.bearer_token_file, token, sizeof(token), err, errlen) != 0)
		return -EACCES;
	/* Health answers without the token on both listeners: it says nothing
	 * but ok, and the kubelet has no token to send. */
	struct enav_http_route routes[ENAV_HTTP_MAX_ROUTES] = {
	    {"/healthz", handle_healthz, l, .open = true},
	    {"/readyz", handle_readyz, l, .open = true},
	};
	size_t n = 2;
	if (cfg->prometheus.enabled)
		routes[n++] =
		    (struct enav_http_route){"/metrics", handle_metrics, l, .open = false};
	/* Routes earlier rows added (the pprof_http row's /debug/pprof/). */
	n += enav_host_http_routes(a, routes + n, ENAV_HTTP_MAX_ROUTES - n);
	const struct enav_http_options data = {
	    .name = "data",
	    .max_connections = cfg->http.max_connections,
	    .max_per_client = cfg->http.max_connections_per_client,
	    .idle_timeout_s = cfg->http.idle_timeout_s,
	    .request_timeout_s = cfg->http.request_timeout_s,
	    .max_long = cfg->http.max_profile_requests,
	    .bearer_token = token,
	};
	l->http = enav_http_start(host, port, &data, routes, n, err, errlen);
	if (l->http && hhost[0]) {
		const struct enav_http_options health = {
		    .name = "health",
		    .max_connections = HEALTH_MAX_CONNECTIONS,
		    .max_per_client = HEALTH_MAX_PER_CLIENT,
		    .idle_timeout_s = HEALTH_IDLE_TIMEOUT_S,
		    .request_timeout_s = HEALTH_REQUEST_TIMEOUT_S,
		    .one_thread = true,
		};
		l->health = enav_http_start(hhost, hport, &health, routes, 2, err, errlen);
	}
	bool token_required = token[0] != '\0';
	explicit_bzero(token, sizeof(token));
	if (!l->http || (hhost[0] && !l->health))
		return -EADDRINUSE;
	/* Say what is mounted, from the table itself: the pprof routes are
	 * there only when their row added them. */
	char paths[256] = "";
	for (size_t i = 0, used = 0; i < n; i++) {
		int w = snprintf(paths + used, sizeof(paths) - used, "%s%s", i ? ", " : "",
				 routes[i].path);
		if (w < 0 || (size_t)w >= sizeof(paths) - used)
			break; /* a log line: cut, never overrun */
		used += (size_t)w;
	}
	enav_info("serving %s on http://%s:%u (%s)%s%s", paths, host, port,
		  token_required ? "bearer token required" : "no authentication",
		  hhost[0] ? "; /healthz, /readyz on http://" : "",
		  hhost[0] ? cfg->http.health_listen : "");
	return 0;
}

static void listener_submit(void *state, struct enav_signal *s)
{
	/* Pull-based: metrics are read from the modules at scrape time. */
}

static void listener_fini(void *state, uint64_t deadline_mono_ns)
{
	struct listener *l = state;
	if (!l)
		return;
	enav_http_stop(l->health);
	enav_http_stop(l->http);
	free(l);
}

static void listener_metrics(void *state, struct enav_promtext *p)
{
	struct listener *l = state;
	enav_promtext_single_u64(p, "enav_metrics_render_overflows_total", "counter",
				 "Scrapes whose exposition reached its hard cap (whole families "
				 "were left out; the scrape still answered).",
				 atomic_load(&l->render_overflows));
	struct enav_http_server *const listeners[] = {l->http, l->health};
	enav_http_metrics(listeners, 2, p);
	enav_promtext_single_u64(
	    p, "enav_metrics_families_dropped_total", "counter",
	    "Metric families left out of a scrape at the exposition's hard cap.",
	    atomic_load(&l->families_dropped));
	enav_promtext_single_u64(p, "enav_metrics_exposition_bytes", "gauge",
				 "Bytes of the last /metrics answer.", atomic_load(&l->last_bytes));
	enav_promtext_single_u64(p, "enav_metrics_exposition_cap_bytes", "gauge",
				 "Hard cap of the last /metrics answer, sized from the configured "
				 "caps.",
				 atomic_load(&l->last_cap));
}

bool enav_listener_enabled(const struct enav_config *cfg)
{
	return cfg->http.enabled;
}

const struct enav_sink_ops enav_listener_sink_ops = {
    .init = listener_init,
    .submit = listener_submit,
    .fini = listener_fini,
    .metrics = listener_metrics,
};
