/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/net_edges.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "platform/clock.h"
#include "discovery/k8s.h"
#include "features/network/dns.h"
#include "enrich/attribution.h"
#include "features/network/ipname_cache.h"

#define OVERFLOW_KEY "__overflow__"

static const double dns_bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
				    0.05,   0.1,   0.25,   0.5,	  1,	2.5};
#define N_DNS_BOUNDS   (sizeof(dns_bounds) / sizeof(dns_bounds[0]))
#define MAX_DNS_SERIES 64 /* (question type, rcode) pairs */

struct edge {
	bool used;
	uint64_t last_ns; /* totals: the last connection counted in it, for expiry */
	struct enav_edge_signal e;
};

struct dns_series {
	uint16_t qtype;
	uint8_t rcode;
	bool used;
	uint64_t buckets[N_DNS_BOUNDS + 1];
	uint64_t count;
	double sum;
};

struct net_edges {
	struct enav_ipname_cache names;
	uint64_t interval_ns;
	uint64_t interval_start_mono, interval_start_unix;
	/* Current interval (capture thread only). */
	struct edge *edges;
	uint32_t max_edges, n_edges;
	uint64_t edges_overflowed;
	uint32_t flush_pos; /* next edge to emit while flushing */
	bool flushing;
	/* Cumulative metrics (capture thread writes under lock; scrape reads). */
	pthread_mutex_t lock;
	uint64_t conns[3][4]; /* [role][outcome: closed, failed, reset, predates] */
	uint64_t bytes[3][2]; /* [role][sent, received] */
	uint64_t retransmits;
	struct dns_series dns[MAX_DNS_SERIES];
	uint64_t dns_overflowed;
	struct edge *totals; /* cumulative per-edge counters for /metrics */
	uint32_t n_totals;
	uint64_t totals_overflowed;
	/* Totals unseen for idle_ns are dropped, so the names a tenant makes up
	 * (its own DNS answers, its workloads) do not hold max_edges for ever. */
	uint64_t idle_ns, totals_expired;
};

static struct edge *find_or_add(struct edge *set, uint32_t *n, uint32_t cap, const char *client,
				const char *server, uint16_t port, uint64_t *overflowed)
{
	for (uint32_t i = 0; i < *n; i++)
		if (set[i].e.server_port == port && !strcmp(set[i].e.client, client) &&
		    !strcmp(set[i].e.server, server))
			return &set[i];
	/* The last slot is reserved for the overflow edge. */
	if (*n + 1 >= cap) {
		(*overflowed)++;
		for (uint32_t i = 0; i < *n; i++)
			if (!strcmp(set[i].e.client, OVERFLOW_KEY))
				return &set[i];
		struct edge *o = &set[(*n)++];
		memset(o, 0, sizeof(*o));
		o->used = true;
		snprintf(o->e.client, sizeof(o->e.client), OVERFLOW_KEY);
		snprintf(o->e.server, sizeof(o->e.server), OVERFLOW_KEY);
		return o;
	}
	struct edge *x = &set[(*n)++];
	memset(x, 0, sizeof(*x));
	x->used = true;
	snprintf(x->e.client, sizeof(x->e.client), "%s", client);
	snprintf(x->e.server, sizeof(x->e.server), "%s", server);
	x->e.server_port = port;
	return x;
}

static void add_conn(struct enav_edge_signal *e, const struct enav_signal *s, bool failed)
{
	const struct enav_net_signal *n = &s->net;
	e->connections++;
	e->failures += failed;
	e->resets += (n->flags & ENAV_TCP_RESET) != 0;
	e->bytes_sent += n->bytes_sent;
	e->bytes_received += n->bytes_received;
	e->duration_sum_ns += n->duration_ns;
	if (n->srtt_us > e->srtt_max_us)
		e->srtt_max_us = n->srtt_us;
}

static void observe_conn(struct net_edges *g, const struct enav_signal *s)
{
	const struct enav_net_signal *n = &s->net;
	bool failed = s->kind == ENAV_SIGNAL_TCP_FAILED;
	int role = n->role < 3 ? n->role : 0;
	pthread_mutex_lock(&g->lock);
	int outcome = failed ? 1 : (n->flags & ENAV_TCP_RESET) ? 2 : 0;
	g->conns[role][outcome]++;
	if (n->flags & ENAV_TCP_PREDATES_ATTACH)
		g->conns[role][3]++;
	g->bytes[role][0] += n->bytes_sent;
	g->bytes[role][1] += n->bytes_received;
	g->retransmits += n->retransmits;
	pthread_mutex_unlock(&g->lock);

	/* Edges are drawn from the client's side: it names both ends. */
	if (n->role != ENAV_ROLE_CLIENT)
		return;
	char client[ENAV_EDGE_KEY_MAX], ip[48];
	enav_workload_key(s, client, sizeof(client));
	inet_ntop(n->family == 6 ? AF_INET6 : AF_INET, n->remote_addr, ip, sizeof(ip));
	struct enav_ipname_hit hit;
	/* The cache is shared with the scrape thread's stats read: under the lock. */
	pthread_mutex_lock(&g->lock);
	bool named = enav_ipname_cache_lookup(&g->names, n->family == 6 ? AF_INET6 : AF_INET,
					      n->remote_addr, enav_clock_mono_ns(), &hit);
	pthread_mutex_unlock(&g->lock);
	const char *server = named ? hit.name : ip;
	struct edge *x = find_or_add(g->edges, &g->n_edges, g->max_edges, client, server,
				     n->remote_port, &g->edges_overflowed);
	if (!x->e.server_ip[0]) {
		snprintf(x->e.server_ip, sizeof(x->e.server_ip), "%s", ip);
		x->e.server_named_by_dns = named;
	}
	add_conn(&x->e, s, failed);
	pthread_mutex_lock(&g->lock);
	struct edge *t = find_or_add(g->totals, &g->n_totals, g->max_edges, client, server,
				     n->remote_port, &g->totals_overflowed);
	add_conn(&t->e, s, failed);
	t->last_ns = enav_clock_mono_ns();
	pthread_mutex_unlock(&g->lock);
}

static void observe_dns(struct net_edges *g, const struct enav_signal *s)
{
	const struct enav_dns_message *m = s->net.dns;
	if (!m || s->net.dns_direction != ENAV_DNS_RECEIVED)
		return; /* the client's view: what this node asked and was told */
	/* Only NOERROR answers to the question, with the chain's shortest TTL. */
	pthread_mutex_lock(&g->lock);
	enav_ipname_cache_learn(&g->names, m, enav_clock_mono_ns());
	pthread_mutex_unlock(&g->lock);
	if (!s->net.dns_has_latency)
		return;
	pthread_mutex_lock(&g->lock);
	struct dns_series *d = NULL;
	for (int i = 0; i < MAX_DNS_SERIES && !d; i++) {
		if (g->dns[i].used && g->dns[i].qtype == m->qtype && g->dns[i].rcode == m->rcode)
			d = &g->dns[i];
		else if (!g->dns[i].used) {
			d = &g->dns[i];
			d->used = true;
			d->qtype = m->qtype;
			d->rcode = m->rcode;
		}
	}
	if (d) {
		double secs = (double)s->net.dns_latency_ns / 1e9;
		size_t b = 0;
		while (b < N_DNS_BOUNDS && secs > dns_bounds[b])
			b++;
		d->buckets[b]++;
		d->count++;
		d->sum += secs;
	} else {
		g->dns_overflowed++;
	}
	pthread_mutex_unlock(&g->lock);
}

static size_t ne_observe(void *state, const struct enav_signal *s, struct enav_signal **out,
			 size_t out_cap)
{
	struct net_edges *g = state;
	if (s->kind == ENAV_SIGNAL_TCP_CLOSE || s->kind == ENAV_SIGNAL_TCP_FAILED)
		observe_conn(g, s);
	else if (s->kind == ENAV_SIGNAL_DNS)
		observe_dns(g, s);
	return 0;
}

/* Totals idle for idle_ns go (the overflow edge too); the last takes the slot. */
static void expire_totals(struct net_edges *g, uint64_t now)
{
	pthread_mutex_lock(&g->lock);
	for (uint32_t i = 0; i < g->n_totals;) {
		if (now > g->totals[i].last_ns && now - g->totals[i].last_ns >= g->idle_ns) {
			g->totals[i] = g->totals[--g->n_totals];
			g->totals_expired++;
		} else {
			i++;
		}
	}
	pthread_mutex_unlock(&g->lock);
}

/* At the end of an interval, emit its edges a batch at a time. */
static size_t ne_tick(void *state, uint64_t now, struct enav_signal **out, size_t out_cap)
{
	struct net_edges *g = state;
	if (!g->flushing) {
		if (now - g->interval_start_mono < g->interval_ns)
			return 0;
		g->flushing = true;
		g->flush_pos = 0;
		expire_totals(g, now);
	}
	size_t n = 0;
	while (n < out_cap && g->flush_pos < g->n_edges) {
		struct edge *x = &g->edges[g->flush_pos++];
		struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_EDGE, 0);
		if (!s)
			continue;
		s->time_unix_ns = enav_clock_unix_ns();
		s->edge = x->e;
		s->edge.interval_start_unix_ns = g->interval_start_unix;
		/* A DNS-derived name may be stale or shared by many services. */
		s->edge.confidence = x->e.server_named_by_dns ? 0.8 : 1.0;
		out[n++] = s;
	}
	if (g->flush_pos >= g->n_edges) {
		g->flushing = false;
		g->n_edges = 0;
		g->interval_start_mono = now;
		g->interval_start_unix = enav_clock_unix_ns();
	}
	return n;
}

static int ne_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	struct net_edges *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	*state = g;
	pthread_mutex_init(&g->lock, NULL);
	uint8_t key[16];
	if (getrandom(key, sizeof(key), 0) != sizeof(key))
		memset(key, 0x5a, sizeof(key)); /* hash flooding then needs local DNS control */
	g->max_edges = cfg->network.max_edges;
	g->interval_ns = (uint64_t)cfg->network.edge_interval_ms * 1000000ull;
	g->idle_ns = (uint64_t)cfg->network.edge_idle_s * 1000000000ull;
	g->edges = calloc(g->max_edges, sizeof(*g->edges));
	g->totals = calloc(g->max_edges, sizeof(*g->totals));
	if (!g->edges || !g->totals ||
	    enav_ipname_cache_init(&g->names, cfg->network.dns_cache_entries, key) != 0) {
		snprintf(err, errlen, "network edges: cannot allocate");
		return -ENOMEM;
	}
	g->interval_start_mono = enav_clock_mono_ns();
	g->interval_start_unix = enav_clock_unix_ns();
	return 0;
}

static void ne_fini(void *state)
{
	struct net_edges *g = state;
	if (!g)
		return;
	enav_ipname_cache_destroy(&g->names);
	free(g->edges);
	free(g->totals);
	pthread_mutex_destroy(&g->lock);
	free(g);
}

static const char *const roles[] = {"unknown", "client", "server"};

static void ne_metrics(void *state, struct enav_promtext *p)
{
	struct net_edges *g = state;
	static const char *const outcomes[] = {"closed", "failed", "reset", "predates_agent"};
	pthread_mutex_lock(&g->lock);
	enav_promtext_family(p, "enav_tcp_connections_total", "counter",
			     "TCP connections that ended, by role and outcome (predates_agent "
			     "counts those also counted as closed or reset).");
	for (int r = 0; r < 3; r++)
		for (int o = 0; o < 4; o++) {
			const char *l[] = {"network_role", roles[r], "outcome", outcomes[o]};
			enav_promtext_sample_u64(p, "enav_tcp_connections_total", l, 2,
						 g->conns[r][o]);
		}
	enav_promtext_family(
	    p, "enav_tcp_io_bytes_total", "counter",
	    "Bytes of ended TCP connections at the socket API, by role and direction "
	    "(OpenTelemetry network.io.direction).");
	for (int r = 0; r < 3; r++)
		for (int d = 0; d < 2; d++) {
			const char *l[] = {"network_role", roles[r], "network_io_direction",
					   d ? "receive" : "transmit"};
			enav_promtext_sample_u64(p, "enav_tcp_io_bytes_total", l, 2,
						 g->bytes[r][d]);
		}
	enav_promtext_single_u64(p, "enav_tcp_retransmits_total", "counter",
				 "Retransmitted segments of ended TCP connections.",
				 g->retransmits);

	enav_promtext_family(p, "dns_lookup_duration_seconds", "histogram",
			     "DNS query to response time seen by this node's clients "
			     "(OpenTelemetry dns.lookup.duration).");
	char le[32], type[ENAV_DNS_TYPE_NAME_LEN];
	for (int i = 0; i < MAX_DNS_SERIES; i++) {
		const struct dns_series *d = &g->dns[i];
		if (!d->used)
			continue;
		const char *t = enav_dns_type_name(d->qtype, type);
		const char *rc = enav_dns_rcode_name(d->rcode);
		uint64_t cum = 0;
		for (size_t b = 0; b <= N_DNS_BOUNDS; b++) {
			cum += d->buckets[b];
			snprintf(le, sizeof(le), b < N_DNS_BOUNDS ? "%g" : "+Inf",
				 b < N_DNS_BOUNDS ? dns_bounds[b] : 0.0);
			const char *l[] = {
			    "dns_question_type", t, "dns_response_code", rc, "le", le};
			enav_promtext_sample_u64(p, "dns_lookup_duration_seconds_bucket", l, 3,
						 cum);
		}
		const char *l[] = {"dns_question_type", t, "dns_response_code", rc};
		enav_promtext_sample(p, "dns_lookup_duration_seconds_sum", l, 2, d->sum);
		enav_promtext_sample_u64(p, "dns_lookup_duration_seconds_count", l, 2, d->count);
	}

	enav_promtext_family(p, "enav_network_edge_connections_total", "counter",
			     "Client -> server connections by edge (inferred; capped, overflow in "
			     "client=\"__overflow__\").");
	char port[8];
	for (uint32_t i = 0; i < g->n_totals; i++) {
		const struct enav_edge_signal *e = &g->totals[i].e;
		snprintf(port, sizeof(port), "%u", e->server_port);
		const char *l[] = {"client", e->client, "server", e->server, "server_port", port};
		enav_promtext_sample_u64(p, "enav_network_edge_connections_total", l, 3,
					 e->connections);
	}
	enav_promtext_family(p, "enav_network_edge_io_bytes_total", "counter",
			     "Bytes by edge and direction, from the client's side.");
	for (uint32_t i = 0; i < g->n_totals; i++) {
		const struct enav_edge_signal *e = &g->totals[i].e;
		snprintf(port, sizeof(port), "%u", e->server_port);
		const char *lt[] = {"client",
				    e->client,
				    "server",
				    e->server,
				    "server_port",
				    port,
				    "network_io_direction",
				    "transmit"};
		const char *lr[] = {"client",
				    e->client,
				    "server",
				    e->server,
				    "server_port",
				    port,
				    "network_io_direction",
				    "receive"};
		enav_promtext_sample_u64(p, "enav_network_edge_io_bytes_total", lt, 4,
					 e->bytes_sent);
		enav_promtext_sample_u64(p, "enav_network_edge_io_bytes_total", lr, 4,
					 e->bytes_received);
	}
	enav_promtext_family(p, "enav_network_edge_failures_total", "counter",
			     "Connections that failed to establish, by edge.");
	for (uint32_t i = 0; i < g->n_totals; i++) {
		const struct enav_edge_signal *e = &g->totals[i].e;
		snprintf(port, sizeof(port), "%u", e->server_port);
		const char *l[] = {"client", e->client, "server", e->server, "server_port", port};
		enav_promtext_sample_u64(p, "enav_network_edge_failures_total", l, 3, e->failures);
	}
	enav_promtext_family(p, "enav_cardinality_overflow_total", "counter",
			     "Observations folded into an overflow series because a label set was "
			     "at its cap, by metric.");
	const char *le1[] = {"metric", "enav_network_edge"};
	const char *le2[] = {"metric", "dns_lookup_duration_seconds"};
	enav_promtext_sample_u64(p, "enav_cardinality_overflow_total", le1, 1,
				 g->totals_overflowed);
	enav_promtext_sample_u64(p, "enav_cardinality_overflow_total", le2, 1, g->dns_overflowed);
	enav_promtext_single_u64(p, "enav_network_edges_expired_total", "counter",
				 "Edge totals dropped after sources.network.edge_idle_s without a "
				 "connection.",
				 g->totals_expired);
	enav_promtext_single_u64(p, "enav_network_edges", "gauge",
				 "Edge totals held for /metrics (overflow edge included).",
				 g->n_totals);
	struct enav_ipname_stats st;
	enav_ipname_cache_stats(&g->names, &st);
	pthread_mutex_unlock(&g->lock);
	enav_promtext_single_u64(p, "enav_dns_name_cache_entries", "gauge",
				 "Addresses named by DNS answers, held for naming edges.",
				 st.entries);
	enav_promtext_single_u64(p, "enav_dns_name_cache_evictions_total", "counter",
				 "Live names displaced because the cache was full.", st.evictions);
}

size_t enav_net_edges_exposition_bound(const struct enav_config *cfg)
{
	/* Four lines an edge (connections, two directions of bytes, failures),
	 * each with client and server at their longest, every byte escaped. */
	size_t line = 64 + 2 * 2 * ENAV_EDGE_KEY_MAX + 96;
	return (size_t)cfg->network.max_edges * 4 * line;
}

bool enav_net_edges_enabled(const struct enav_config *cfg)
{
	return cfg->network.enabled;
}

const struct enav_generator_ops enav_net_edges_ops = {
    .init = ne_init,
    .observe = ne_observe,
    .tick = ne_tick,
    .fini = ne_fini,
    .metrics = ne_metrics,
};
