/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct enav_http_server {
	struct MHD_Daemon *daemon;
	struct enav_http_route routes[ENAV_HTTP_MAX_ROUTES];
	size_t n_routes;
};

static enum MHD_Result send_response(struct MHD_Connection *conn, int status, const char *type,
				     char *body, size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	enum MHD_Result ret = MHD_queue_response(conn, (unsigned)status, r);
	MHD_destroy_response(r);
	return ret;
}

static char *dup_text(const char *s, size_t *len)
{
	*len = strlen(s);
	return strdup(s);
}

const char *enav_http_query(const struct enav_http_request *req, const char *key)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, key);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_len, void **con_cls)
{
	struct enav_http_server *srv = cls;
	size_t len;
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return send_response(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain",
				     dup_text("method not allowed\n", &len), len);
	for (size_t i = 0; i < srv->n_routes; i++) {
		if (strcmp(url, srv->routes[i].path) != 0)
			continue;
		struct enav_http_response resp = {.status = 500, .content_type = "text/plain"};
		struct enav_http_request req = {.conn = conn};
		srv->routes[i].handler(srv->routes[i].ctx, &req, &resp);
		if (!resp.body)
			return send_response(conn, 500, "text/plain",
					     dup_text("out of memory\n", &len), len);
		return send_response(conn, resp.status, resp.content_type, resp.body, resp.len);
	}
	return send_response(conn, MHD_HTTP_NOT_FOUND, "text/plain", dup_text("not found\n", &len),
			     len);
}

struct enav_http_server *enav_http_start(const char *host, uint16_t port, unsigned max_conns,
					 const struct enav_http_route *routes, size_t n_routes,
					 char *err, size_t errlen)
{
	if (n_routes > ENAV_HTTP_MAX_ROUTES) {
		snprintf(err, errlen, "http: too many routes");
		return NULL;
	}
	struct enav_http_server *srv = calloc(1, sizeof(*srv));
	if (!srv) {
		snprintf(err, errlen, "http: out of memory");
		return NULL;
	}
	memcpy(srv->routes, routes, n_routes * sizeof(*routes));
	srv->n_routes = n_routes;
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
	if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
		snprintf(err, errlen, "http: %s is not an IPv4 address", host);
		free(srv);
		return NULL;
	}
	srv->daemon = MHD_start_daemon(
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL, port,
	    NULL, NULL, on_request, srv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
	    MHD_OPTION_CONNECTION_LIMIT, max_conns, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
	    MHD_OPTION_END);
	if (!srv->daemon) {
		snprintf(err, errlen, "http: cannot listen on %s:%u (%s)", host, port,
			 errno ? strerror(errno) : "libmicrohttpd refused");
		free(srv);
		return NULL;
	}
	return srv;
}

void enav_http_stop(struct enav_http_server *srv)
{
	if (!srv)
		return;
	MHD_stop_daemon(srv->daemon);
	free(srv);
}
