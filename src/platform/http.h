/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Embedded HTTP server (libmicrohttpd).  Routes are exact GET paths; a
 * handler fills a response body it allocates with malloc.  The agent runs
 * two (ADR 0018): the data listener (http.listen: /metrics, /debug/pprof/),
 * a thread per connection, and the health listener (http.health_listen:
 * /healthz, /readyz), one polling thread, so no data client can hold the
 * health probes' connection slots.
 */
#ifndef ENAV_PLATFORM_HTTP_H
#define ENAV_PLATFORM_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/promtext.h"

struct enav_http_response {
	int status;
	const char *content_type;
	char *body; /* malloc'd; freed by the server */
	size_t len;
};

/* The request as a handler sees it: query arguments only (GET). */
struct enav_http_request {
	void *conn; /* libmicrohttpd connection, opaque to handlers */
};
/* A query argument's value ("" for a bare key), or NULL when absent. */
const char *enav_http_query(const struct enav_http_request *req, const char *key);

/* Runs on a connection thread of its own on a thread-per-connection server:
 * may block (e.g. a profile of N seconds) without holding up other
 * requests; on a one_thread server it must not block. */
typedef void (*enav_http_handler)(void *ctx, const struct enav_http_request *req,
				  struct enav_http_response *resp);

struct enav_http_route {
	const char *path;
	enav_http_handler handler;
	void *ctx;
	/* Takes seconds (a profile window): at most max_long of these run at
	 * once; the next is answered 429 at once. */
	bool long_running;
	/* Served without the bearer token (health). */
	bool open;
};

#define ENAV_HTTP_MAX_ROUTES 16

struct enav_http_options {
	const char *name;	  /* the listener label in metrics: "data", "health" */
	unsigned max_connections; /* open connections, all clients together */
	unsigned max_per_client;  /* open connections from one IPv4 address; 0: no limit */
	unsigned idle_timeout_s;  /* a connection silent this long is closed */
	/* A request's header must arrive, and a response be read, within this
	 * (the handler's own time not counted); 0: 30 s. */
	unsigned request_timeout_s;
	unsigned max_long;	  /* concurrent long_running requests */
	const char *bearer_token; /* NULL or "": no authentication */
	bool one_thread;	  /* one polling thread; handlers must not block */
};

struct enav_http_server;

/* host must be a literal IPv4 address.  The token is copied. */
struct enav_http_server *enav_http_start(const char *host, uint16_t port,
					 const struct enav_http_options *opt,
					 const struct enav_http_route *routes, size_t n_routes,
					 char *err, size_t errlen);
void enav_http_stop(struct enav_http_server *srv);

/* The listeners' counters (connections, refusals by cap, 401s, long
 * requests), one family each with a listener label; NULL entries skipped. */
void enav_http_metrics(struct enav_http_server *const *srvs, size_t n, struct enav_promtext *p);

#endif
