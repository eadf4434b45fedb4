/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Embedded HTTP server (libmicrohttpd, a thread per connection, bounded by
 * http.max_connections).  Routes are exact GET paths; a handler fills a
 * response body it allocates with malloc.
 */
#ifndef ENAV_PLATFORM_HTTP_H
#define ENAV_PLATFORM_HTTP_H

#include <stddef.h>
#include <stdint.h>

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

/* Runs on a connection thread of its own: may block (e.g. a profile of N
 * seconds) without holding up other requests. */
typedef void (*enav_http_handler)(void *ctx, const struct enav_http_request *req,
				  struct enav_http_response *resp);

struct enav_http_route {
	const char *path;
	enav_http_handler handler;
	void *ctx;
};

#define ENAV_HTTP_MAX_ROUTES 16

struct enav_http_server;

/* host must be a literal IPv4 address. */
struct enav_http_server *enav_http_start(const char *host, uint16_t port, unsigned max_conns,
					 const struct enav_http_route *routes, size_t n_routes,
					 char *err, size_t errlen);
void enav_http_stop(struct enav_http_server *srv);

#endif
