/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "platform/bearer.h"

/* Open connections of one client address. */
struct client {
	uint32_t addr; /* network order; 0 = free slot */
	unsigned n;
};

/* An open connection, for its client's count and its deadline. */
struct conn_slot {
	bool used;
	uint32_t addr;
	int fd;
	uint64_t deadline_ns; /* CLOCK_MONOTONIC; 0 while a handler runs */
};

struct enav_http_server {
	struct MHD_Daemon *daemon;
	struct enav_http_route routes[ENAV_HTTP_MAX_ROUTES];
	size_t n_routes;
	char name[16];
	char token[ENAV_BEARER_MAX + 1];
	unsigned max_connections, max_per_client, max_long;
	/* Accounting of open connections, by client: the accept policy refuses
	 * past the caps (and counts it); libmicrohttpd's own limits stay set,
	 * one above, as a backstop (libmicrohttpd checks them before the accept
	 * policy, uncounted). */
	pthread_mutex_t lock;
	struct client *clients;	 /* max_connections slots */
	struct conn_slot *conns; /* max_connections + 1 (libmicrohttpd's backstop) */
	unsigned open;
	/* The deadline of a request: from a connection's start, or the end of
	 * its last response, to the end of its next request's header, and then
	 * from the handler's end to the end of the response.  A connection
	 * past it is shut down by the reaper thread (the idle timeout alone
	 * never ends a client that sends a byte every few seconds). */
	uint64_t deadline_ns;
	pthread_t reaper;
	bool reaper_started, stopping;
	pthread_cond_t wake;
	_Atomic unsigned long_in_flight;
	_Atomic uint64_t refused_total, refused_per_client, unauthorized, long_refused;
	_Atomic uint64_t deadline_closed;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static enum MHD_Result send_response(struct MHD_Connection *conn, int status, const char *type,
				     char *body, size_t len, const char *hname, const char *hval)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	if (hname)
		MHD_add_response_header(r, hname, hval);
	enum MHD_Result ret = MHD_queue_response(conn, (unsigned)status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result send_text(struct MHD_Connection *conn, int status, const char *s,
				 const char *hname, const char *hval)
{
	char *body = strdup(s);
	return send_response(conn, status, "text/plain", body, body ? strlen(s) : 0, hname, hval);
}

const char *enav_http_query(const struct enav_http_request *req, const char *key)
{
	return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, key);
}

static struct client *client_slot(struct enav_http_server *srv, uint32_t addr, bool add)
{
	struct client *free_slot = NULL;
	for (unsigned i = 0; i < srv->max_connections; i++) {
		if (srv->clients[i].addr == addr && srv->clients[i].n)
			return &srv->clients[i];
		if (!free_slot && srv->clients[i].n == 0)
			free_slot = &srv->clients[i];
	}
	if (add && free_slot)
		free_slot->addr = addr;
	return add ? free_slot : NULL;
}

static uint32_t ipv4_of(const struct sockaddr *sa)
{
	if (!sa || sa->sa_family != AF_INET)
		return 0;
	return ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr;
}

/* Runs on the listening thread before a connection is taken on. */
static enum MHD_Result accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct enav_http_server *srv = cls;
	uint32_t a = ipv4_of(addr);
	enum MHD_Result ok = MHD_YES;
	pthread_mutex_lock(&srv->lock);
	if (srv->open >= srv->max_connections) {
		atomic_fetch_add(&srv->refused_total, 1);
		ok = MHD_NO;
	} else if (srv->max_per_client) {
		struct client *c = client_slot(srv, a, false);
		if (c && c->n >= srv->max_per_client) {
			atomic_fetch_add(&srv->refused_per_client, 1);
			ok = MHD_NO;
		}
	}
	pthread_mutex_unlock(&srv->lock);
	return ok;
}

/* Counts a connection from its start to its close and gives it a slot for
 * its deadline; socket_context points at the slot. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct enav_http_server *srv = cls;
	pthread_mutex_lock(&srv->lock);
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		const union MHD_ConnectionInfo *fi =
		    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		struct conn_slot *slot = NULL;
		for (unsigned i = 0; i <= srv->max_connections && !slot; i++)
			if (!srv->conns[i].used)
				slot = &srv->conns[i];
		if (slot) {
			uint32_t a = ci ? ipv4_of(ci->client_addr) : 0;
			struct client *c = client_slot(srv, a, true);
			srv->open++;
			if (c)
				c->n++;
			*slot = (struct conn_slot){.used = true,
						   .addr = a,
						   .fd = fi ? fi->connect_fd : -1,
						   .deadline_ns = mono_ns() + srv->deadline_ns};
		}
		*socket_context = slot;
	} else if (*socket_context) {
		/* Before libmicrohttpd closes the descriptor: once the slot is
		 * free the reaper cannot shut down a number reused since. */
		struct conn_slot *slot = *socket_context;
		struct client *c = client_slot(srv, slot->addr, false);
		if (srv->open)
			srv->open--;
		if (c && c->n)
			c->n--;
		*slot = (struct conn_slot){.fd = -1};
		*socket_context = NULL;
	}
	pthread_mutex_unlock(&srv->lock);
}

/* deadline: 0 while a handler runs, else now + the request deadline. */
static void conn_deadline(struct enav_http_server *srv, struct MHD_Connection *conn, bool running)
{
	const union MHD_ConnectionInfo *si =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	if (!si || !si->socket_context)
		return;
	struct conn_slot *slot = si->socket_context;
	pthread_mutex_lock(&srv->lock);
	if (slot->used)
		slot->deadline_ns = running ? 0 : mono_ns() + srv->deadline_ns;
	pthread_mutex_unlock(&srv->lock);
}

static void *reaper_main(void *arg)
{
	struct enav_http_server *srv = arg;
	pthread_mutex_lock(&srv->lock);
	while (!srv->stopping) {
		uint64_t now = mono_ns();
		for (unsigned i = 0; i <= srv->max_connections; i++) {
			struct conn_slot *c = &srv->conns[i];
			if (c->used && c->deadline_ns && now > c->deadline_ns && c->fd >= 0) {
				/* Wakes the connection's poll; libmicrohttpd reads
				 * the end and closes it as its own. */
				shutdown(c->fd, SHUT_RDWR);
				c->deadline_ns = 0;
				atomic_fetch_add(&srv->deadline_closed, 1);
			}
		}
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += 250000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&srv->wake, &srv->lock, &until);
	}
	pthread_mutex_unlock(&srv->lock);
	return NULL;
}

static enum MHD_Result run_route(struct enav_http_server *srv, const struct enav_http_route *rt,
				 struct MHD_Connection *conn)
{
	if (rt->long_running) {
		unsigned cur = atomic_fetch_add(&srv->long_in_flight, 1);
		if (cur >= srv->max_long) {
			atomic_fetch_sub(&srv->long_in_flight, 1);
			atomic_fetch_add(&srv->long_refused, 1);
			return send_text(
			    conn, 429,
			    "too many profile requests at once (http.max_profile_requests)\n",
			    "Retry-After", "10");
		}
	}
	struct enav_http_response resp = {.status = 500, .content_type = "text/plain"};
	struct enav_http_request req = {.conn = conn};
	rt->handler(rt->ctx, &req, &resp);
	if (rt->long_running)
		atomic_fetch_sub(&srv->long_in_flight, 1);
	if (!resp.body)
		return send_text(conn, 500, "out of memory\n", NULL, NULL);
	return send_response(conn, resp.status, resp.content_type, resp.body, resp.len, NULL, NULL);
}

static enum MHD_Result handle_request(struct enav_http_server *srv, struct MHD_Connection *conn,
				      const char *url, const char *method)
{
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return send_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed\n", NULL,
				 NULL);
	const struct enav_http_route *rt = NULL;
	for (size_t i = 0; i < srv->n_routes && !rt; i++)
		if (strcmp(url, srv->routes[i].path) == 0)
			rt = &srv->routes[i];
	/* Unknown paths need the token too: without it nothing, not even
	 * which paths exist, is told. */
	if (srv->token[0] && !(rt && rt->open) &&
	    !enav_bearer_check(
		MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION),
		srv->token)) {
		atomic_fetch_add(&srv->unauthorized, 1);
		return send_text(conn, MHD_HTTP_UNAUTHORIZED, "unauthorized\n", "WWW-Authenticate",
				 "Bearer realm=\"enav\"");
	}
	if (!rt)
		return send_text(conn, MHD_HTTP_NOT_FOUND, "not found\n", NULL, NULL);
	return run_route(srv, rt, conn);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_len, void **con_cls)
{
	struct enav_http_server *srv = cls;
	conn_deadline(srv, conn, true);
	enum MHD_Result r = handle_request(srv, conn, url, method);
	conn_deadline(srv, conn, false);
	return r;
}

static void server_free(struct enav_http_server *srv)
{
	explicit_bzero(srv->token, sizeof(srv->token));
	pthread_cond_destroy(&srv->wake);
	pthread_mutex_destroy(&srv->lock);
	free(srv->conns);
	free(srv->clients);
	free(srv);
}

struct enav_http_server *enav_http_start(const char *host, uint16_t port,
					 const struct enav_http_options *opt,
					 const struct enav_http_route *routes, size_t n_routes,
					 char *err, size_t errlen)
{
	if (n_routes > ENAV_HTTP_MAX_ROUTES) {
		snprintf(err, errlen, "http: too many routes");
		return NULL;
	}
	if (opt->bearer_token && strlen(opt->bearer_token) > ENAV_BEARER_MAX) {
		snprintf(err, errlen, "http: bearer token too long");
		return NULL;
	}
	struct enav_http_server *srv = calloc(1, sizeof(*srv));
	unsigned maxc = opt->max_connections ? opt->max_connections : 1;
	struct client *clients = calloc(maxc, sizeof(*clients));
	struct conn_slot *conns = calloc(maxc + 1, sizeof(*conns));
	if (!srv || !clients || !conns) {
		free(srv);
		free(clients);
		free(conns);
		snprintf(err, errlen, "http: out of memory");
		return NULL;
	}
	pthread_mutex_init(&srv->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&srv->wake, &ca);
	pthread_condattr_destroy(&ca);
	srv->clients = clients;
	srv->conns = conns;
	srv->deadline_ns =
	    (uint64_t)(opt->request_timeout_s ? opt->request_timeout_s : 30) * 1000000000u;
	srv->max_connections = maxc;
	srv->max_per_client = opt->max_per_client;
	srv->max_long = opt->max_long;
	snprintf(srv->name, sizeof(srv->name), "%s", opt->name ? opt->name : "data");
	if (opt->bearer_token)
		snprintf(srv->token, sizeof(srv->token), "%s", opt->bearer_token);
	memcpy(srv->routes, routes, n_routes * sizeof(*routes));
	srv->n_routes = n_routes;
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(port)};
	if (inet_pton(AF_INET, host, &addr.sin_addr) != 1) {
		snprintf(err, errlen, "http: %s is not an IPv4 address", host);
		server_free(srv);
		return NULL;
	}
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
	if (!opt->one_thread)
		flags |= MHD_USE_THREAD_PER_CONNECTION;
	errno = 0;
	srv->daemon = MHD_start_daemon(
	    flags, port, accept_policy, srv, on_request, srv, MHD_OPTION_SOCK_ADDR,
	    (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_LIMIT, maxc + 1,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, opt->max_per_client ? opt->max_per_client + 1 : 0,
	    MHD_OPTION_CONNECTION_TIMEOUT, opt->idle_timeout_s ? opt->idle_timeout_s : 10u,
	    MHD_OPTION_NOTIFY_CONNECTION, on_connection, srv, MHD_OPTION_END);
	if (!srv->daemon) {
		snprintf(err, errlen, "http: cannot listen on %s:%u (%s)", host, port,
			 errno ? strerror(errno) : "libmicrohttpd refused");
		server_free(srv);
		return NULL;
	}
	if (pthread_create(&srv->reaper, NULL, reaper_main, srv) != 0) {
		snprintf(err, errlen, "http: cannot start the deadline thread");
		MHD_stop_daemon(srv->daemon);
		server_free(srv);
		return NULL;
	}
	srv->reaper_started = true;
	return srv;
}

void enav_http_stop(struct enav_http_server *srv)
{
	if (!srv)
		return;
	pthread_mutex_lock(&srv->lock);
	srv->stopping = true;
	pthread_cond_signal(&srv->wake);
	pthread_mutex_unlock(&srv->lock);
	if (srv->reaper_started)
		pthread_join(srv->reaper, NULL);
	MHD_stop_daemon(srv->daemon);
	server_free(srv);
}

void enav_http_metrics(struct enav_http_server *const *srvs, size_t n, struct enav_promtext *p)
{
	enav_promtext_family(p, "enav_http_connections", "gauge",
			     "Open connections of the agent's HTTP listener.");
	for (size_t i = 0; i < n; i++) {
		if (!srvs[i])
			continue;
		pthread_mutex_lock(&srvs[i]->lock);
		unsigned open = srvs[i]->open;
		pthread_mutex_unlock(&srvs[i]->lock);
		const char *l[] = {"listener", srvs[i]->name};
		enav_promtext_sample_u64(p, "enav_http_connections", l, 1, open);
	}
	enav_promtext_family(p, "enav_http_connections_refused_total", "counter",
			     "Connections closed at accept: the listener's cap "
			     "(max_connections) or the client's (max_connections_per_client).");
	for (size_t i = 0; i < n; i++) {
		if (!srvs[i])
			continue;
		const char *t[] = {"listener", srvs[i]->name, "reason", "max_connections"};
		enav_promtext_sample_u64(p, "enav_http_connections_refused_total", t, 2,
					 atomic_load(&srvs[i]->refused_total));
		const char *c[] = {"listener", srvs[i]->name, "reason", "per_client"};
		enav_promtext_sample_u64(p, "enav_http_connections_refused_total", c, 2,
					 atomic_load(&srvs[i]->refused_per_client));
	}
	enav_promtext_family(p, "enav_http_deadline_closed_total", "counter",
			     "Connections shut down past their request deadline "
			     "(http.request_timeout_s).");
	for (size_t i = 0; i < n; i++) {
		if (!srvs[i])
			continue;
		const char *l[] = {"listener", srvs[i]->name};
		enav_promtext_sample_u64(p, "enav_http_deadline_closed_total", l, 1,
					 atomic_load(&srvs[i]->deadline_closed));
	}
	enav_promtext_family(p, "enav_http_unauthorized_total", "counter",
			     "Requests answered 401: no or a wrong bearer token.");
	for (size_t i = 0; i < n; i++) {
		if (!srvs[i])
			continue;
		const char *l[] = {"listener", srvs[i]->name};
		enav_promtext_sample_u64(p, "enav_http_unauthorized_total", l, 1,
					 atomic_load(&srvs[i]->unauthorized));
	}
	enav_promtext_family(p, "enav_http_profile_requests", "gauge",
			     "Profile requests (/debug/pprof/profile, offcpu, futex) running.");
	for (size_t i = 0; i < n; i++) {
		if (!srvs[i] || !srvs[i]->max_long)
			continue;
		const char *l[] = {"listener", srvs[i]->name};
		enav_promtext_sample_u64(p, "enav_http_profile_requests", l, 1,
					 atomic_load(&srvs[i]->long_in_flight));
	}
	enav_promtext_family(p, "enav_http_profile_requests_refused_total", "counter",
			     "Profile requests answered 429: http.max_profile_requests ran.");
	for (size_t i = 0; i < n; i++) {
		if (!srvs[i] || !srvs[i]->max_long)
			continue;
		const char *l[] = {"listener", srvs[i]->name};
		enav_promtext_sample_u64(p, "enav_http_profile_requests_refused_total", l, 1,
					 atomic_load(&srvs[i]->long_refused));
	}
}
