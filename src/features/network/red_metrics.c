/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/red_metrics.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/numfmt.h"
#include "platform/u64map.h"
#include "enrich/attribution.h"
#include "features/network/ipname_cache.h"
#include "features/network/l7/l7.h"

#define OVERFLOW  "_overflow"
#define N_LABELS  5
#define LABEL_MAX ENAV_L7_TARGET_MAX
#define N_BOUNDS  14
#define HASH_K0	  0x7265642d6d657472ull
#define HASH_K1	  0x6963732d6b657973ull

/* OpenTelemetry's advice for HTTP and RPC duration histograms (seconds). */
static const double bounds[N_BOUNDS] = {0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25,
					0.5,   0.75, 1,	    2.5,  5,	 7.5, 10};
/* The same bounds as the "le" label: printf's "%g" of each, then "+Inf". */
static const char *const bound_text[N_BOUNDS + 1] = {"0.005", "0.01", "0.025", "0.05", "0.075",
						     "0.1",   "0.25", "0.5",   "0.75", "1",
						     "2.5",   "5",    "7.5",   "10",   "+Inf"};

enum family {
	F_HTTP_SERVER,
	F_HTTP_CLIENT,
	F_RPC_SERVER,
	F_RPC_CLIENT,
	F_DB_CLIENT,
	F_DB_SERVER,
	F_MSG_CLIENT_OP,
	F_MSG_SERVER_OP,
	F_MSG_SENT,
	F_MSG_CONSUMED,
	F_MSG_SERVER,
	F_WS_FRAMES,
	F__COUNT,
};

static const struct {
	const char *name;
	bool histogram;
	const char *help;
	const char *labels[N_LABELS]; /* the last is always the workload */
} families[F__COUNT] = {
    [F_HTTP_SERVER] = {"http_server_request_duration_seconds",
		       true,
		       "Duration of HTTP server requests (http.server.request.duration).",
		       {"http_request_method", "http_route", "http_response_status_code",
			"network_protocol_name", "workload"}},
    [F_HTTP_CLIENT] = {"http_client_request_duration_seconds",
		       true,
		       "Duration of HTTP client requests (http.client.request.duration).",
		       {"http_request_method", "http_route", "http_response_status_code",
			"network_protocol_name", "workload"}},
    [F_RPC_SERVER] = {"rpc_server_duration_seconds",
		      true,
		      "Duration of inbound gRPC calls (rpc.server.duration).",
		      {"rpc_system", "rpc_method", "rpc_grpc_status_code", "error_type",
		       "workload"}},
    [F_RPC_CLIENT] = {"rpc_client_duration_seconds",
		      true,
		      "Duration of outbound gRPC calls (rpc.client.duration).",
		      {"rpc_system", "rpc_method", "rpc_grpc_status_code", "error_type",
		       "workload"}},
    [F_DB_CLIENT] = {"db_client_operation_duration_seconds",
		     true,
		     "Duration of database client operations (db.client.operation.duration).",
		     {"db_system_name", "db_operation_name", "db_collection_name", "error_type",
		      "workload"}},
    [F_DB_SERVER] = {"enav_db_server_operation_duration_seconds",
		     true,
		     "Duration of database operations seen at the server's socket (no "
		     "OpenTelemetry convention exists for the server side).",
		     {"db_system_name", "db_operation_name", "db_collection_name", "error_type",
		      "workload"}},
    [F_MSG_CLIENT_OP] = {"messaging_client_operation_duration_seconds",
			 true,
			 "Duration of acknowledged messaging operations "
			 "(messaging.client.operation.duration).",
			 {"messaging_system", "messaging_operation_name",
			  "messaging_destination_name", "error_type", "workload"}},
    [F_MSG_SERVER_OP] = {"enav_messaging_server_operation_duration_seconds",
			 true,
			 "Duration of acknowledged messaging operations seen at the broker's "
			 "socket.",
			 {"messaging_system", "messaging_operation_name",
			  "messaging_destination_name", "error_type", "workload"}},
    [F_MSG_SENT] = {"messaging_client_sent_messages_total",
		    false,
		    "Messages a client published without an acknowledgement "
		    "(messaging.client.sent.messages).",
		    {"messaging_system", "messaging_operation_name", "messaging_destination_name",
		     "error_type", "workload"}},
    [F_MSG_CONSUMED] = {"messaging_client_consumed_messages_total",
			false,
			"Messages delivered to a client (messaging.client.consumed.messages).",
			{"messaging_system", "messaging_operation_name",
			 "messaging_destination_name", "error_type", "workload"}},
    [F_MSG_SERVER] = {"enav_messaging_server_messages_total",
		      false,
		      "Unacknowledged messages seen at the broker's socket.",
		      {"messaging_system", "messaging_operation_name", "messaging_destination_name",
		       "error_type", "workload"}},
    [F_WS_FRAMES] = {"enav_websocket_frames_total",
		     false,
		     "WebSocket frames by opcode and direction (metadata only).",
		     {"websocket_opcode", "network_io_direction", "http_route", "network_role",
		      "workload"}},
};

struct series {
	uint8_t family;
	uint64_t hash;
	char labels[N_LABELS][LABEL_MAX];
	uint64_t buckets[N_BOUNDS + 1];
	uint64_t count;
	double sum;
};

struct red_metrics {
	pthread_mutex_t lock;
	struct series *series;
	uint32_t n_series, max_series;
	struct enav_u64map index; /* label hash -> first series with that hash */
	uint32_t overflow_index[F__COUNT];
	uint64_t overflowed[F__COUNT];
	uint64_t spans;
};

/* s into a label, cut at LABEL_MAX - 1 bytes as snprintf would. */
static void label(char out[LABEL_MAX], const char *s)
{
	size_t n = strnlen(s, LABEL_MAX - 1);
	memcpy(out, s, n);
	out[n] = '\0';
}

static enum family family_of(const struct enav_signal *s, char labels[N_LABELS][LABEL_MAX])
{
	const struct enav_l7_op *op = &s->span.op;
	bool server = s->net.role == ENAV_ROLE_SERVER;
	const char *proto = enav_l7_protocol_name(op->protocol);
	const char *error = op->error ? (op->status[0] ? op->status : "error") : "";
	enav_workload_key(s, labels[4], LABEL_MAX);
	switch (enav_protocol(op->protocol)->family) {
	case ENAV_SPAN_FAMILY_HTTP:
		if (op->rpc) {
			label(labels[0], "grpc");
			label(labels[1], op->target);
			if (op->status_code >= 0)
				labels[2][enav_fmt_i64(labels[2], op->status_code)] = '\0';
			label(labels[3], error);
			return server ? F_RPC_SERVER : F_RPC_CLIENT;
		}
		label(labels[0], op->operation);
		label(labels[1], op->target);
		if (op->status_code >= 0)
			labels[2][enav_fmt_i64(labels[2], op->status_code)] = '\0';
		label(labels[3], op->protocol == ENAV_L7_HTTP2 ? "http2" : "http");
		return server ? F_HTTP_SERVER : F_HTTP_CLIENT;
	case ENAV_SPAN_FAMILY_WEBSOCKET:
		label(labels[0], op->operation);
		label(labels[1], op->messaging_receive ? "receive" : "transmit");
		label(labels[2], op->target);
		label(labels[3], server ? "server" : "client");
		return F_WS_FRAMES;
	case ENAV_SPAN_FAMILY_MESSAGING:
		label(labels[0], proto);
		label(labels[1], op->operation);
		label(labels[2], op->target);
		label(labels[3], error);
		if (op->kind == ENAV_L7_OP_REQUEST)
			return server ? F_MSG_SERVER_OP : F_MSG_CLIENT_OP;
		if (server)
			return F_MSG_SERVER;
		return op->messaging_receive ? F_MSG_CONSUMED : F_MSG_SENT;
	case ENAV_SPAN_FAMILY_DB:
	case ENAV_SPAN_FAMILY_NONE:
	default:
		label(labels[0], proto);
		label(labels[1], op->operation);
		label(labels[2], op->target);
		label(labels[3], error);
		return server ? F_DB_SERVER : F_DB_CLIENT;
	}
}

static uint64_t hash_labels(enum family f, char labels[N_LABELS][LABEL_MAX])
{
	uint8_t buf[1 + N_LABELS * LABEL_MAX];
	size_t n = 0;
	buf[n++] = (uint8_t)f;
	for (int i = 0; i < N_LABELS; i++) {
		size_t l = strnlen(labels[i], LABEL_MAX - 1);
		memcpy(buf + n, labels[i], l + 1);
		n += l + 1;
	}
	return enav_ipname_siphash24(HASH_K0, HASH_K1, buf, n);
}

static struct series *new_series(struct red_metrics *g, enum family f, uint64_t h,
				 char labels[N_LABELS][LABEL_MAX])
{
	struct series *x = &g->series[g->n_series++];
	memset(x, 0, sizeof(*x));
	x->family = (uint8_t)f;
	x->hash = h;
	memcpy(x->labels, labels, sizeof(x->labels));
	return x;
}

/* The series of these labels; past the cap, the metric's overflow series.
 * The last F__COUNT slots are kept for the overflow series. */
static struct series *find_series(struct red_metrics *g, enum family f,
				  char labels[N_LABELS][LABEL_MAX])
{
	uint64_t h = hash_labels(f, labels), idx;
	if (enav_u64map_get(&g->index, h, &idx)) {
		struct series *x = &g->series[idx];
		if (x->family == f && !memcmp(x->labels, labels, sizeof(x->labels)))
			return x;
		/* A 64-bit collision: counted as overflow rather than merged. */
	} else if (g->n_series + F__COUNT < g->max_series &&
		   enav_u64map_put(&g->index, h, g->n_series) == 0) {
		return new_series(g, f, h, labels);
	}
	g->overflowed[f]++;
	if (g->overflow_index[f] == UINT32_MAX) {
		char ol[N_LABELS][LABEL_MAX];
		for (int i = 0; i < N_LABELS; i++)
			label(ol[i], OVERFLOW);
		g->overflow_index[f] = g->n_series;
		new_series(g, f, 0, ol);
	}
	return &g->series[g->overflow_index[f]];
}

static int red_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	struct red_metrics *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	*state = g;
	g->max_series = enav_host_config(a)->network.l7.max_series + F__COUNT;
	g->series = calloc(g->max_series, sizeof(*g->series));
	if (!g->series || enav_u64map_init(&g->index, g->max_series)) {
		snprintf(err, errlen, "request metrics: cannot allocate %u series", g->max_series);
		return -ENOMEM;
	}
	for (int f = 0; f < F__COUNT; f++)
		g->overflow_index[f] = UINT32_MAX;
	pthread_mutex_init(&g->lock, NULL);
	return 0;
}

static size_t red_observe(void *state, const struct enav_signal *s, struct enav_signal **out,
			  size_t out_cap)
{
	struct red_metrics *g = state;
	if (s->kind != ENAV_SIGNAL_SPAN)
		return 0;
	char labels[N_LABELS][LABEL_MAX];
	memset(labels, 0, sizeof(labels));
	enum family f = family_of(s, labels);
	const struct enav_l7_op *op = &s->span.op;
	double secs = op->end_ns > op->start_ns ? (double)(op->end_ns - op->start_ns) / 1e9 : 0;
	pthread_mutex_lock(&g->lock);
	g->spans++;
	struct series *x = find_series(g, f, labels);
	int b = 0;
	while (b < N_BOUNDS && secs > bounds[b])
		b++;
	x->buckets[b]++;
	x->count++;
	x->sum += secs;
	pthread_mutex_unlock(&g->lock);
	return 0;
}

/* name then suffix into out, cut at cap - 1 bytes as snprintf would. */
static void suffixed(char *out, size_t cap, const char *name, const char *suffix)
{
	size_t n = 0;
	for (; *name && n + 1 < cap; name++)
		out[n++] = *name;
	for (; *suffix && n + 1 < cap; suffix++)
		out[n++] = *suffix;
	out[n] = '\0';
}

static void red_metrics_out(void *state, struct enav_promtext *p)
{
	struct red_metrics *g = state;
	pthread_mutex_lock(&g->lock);
	for (int f = 0; f < F__COUNT; f++) {
		bool any = false;
		for (uint32_t i = 0; i < g->n_series; i++) {
			const struct series *x = &g->series[i];
			if (x->family != f)
				continue;
			const char *l[2 * (N_LABELS + 1)];
			size_t np = 0;
			for (int k = 0; k < N_LABELS; k++) {
				if (!x->labels[k][0])
					continue; /* an absent attribute is left out, not "" */
				l[2 * np] = families[f].labels[k];
				l[2 * np + 1] = x->labels[k];
				np++;
			}
			if (!any) {
				enav_promtext_family(p, families[f].name,
						     families[f].histogram ? "histogram"
									   : "counter",
						     families[f].help);
				any = true;
			}
			if (!families[f].histogram) {
				enav_promtext_sample_u64(p, families[f].name, l, np, x->count);
				continue;
			}
			char name[128];
			suffixed(name, sizeof(name), families[f].name, "_bucket");
			uint64_t cum = 0;
			l[2 * np] = "le";
			for (int b = 0; b <= N_BOUNDS; b++) {
				cum += x->buckets[b];
				l[2 * np + 1] = bound_text[b];
				enav_promtext_sample_u64(p, name, l, np + 1, cum);
			}
			suffixed(name, sizeof(name), families[f].name, "_sum");
			enav_promtext_sample(p, name, l, np, x->sum);
			suffixed(name, sizeof(name), families[f].name, "_count");
			enav_promtext_sample_u64(p, name, l, np, x->count);
		}
	}
	enav_promtext_family(p, "enav_l7_series_overflow_total", "counter",
			     "Spans counted in a metric's overflow series because "
			     "sources.network.l7.max_series label sets were in use.");
	for (int f = 0; f < F__COUNT; f++) {
		const char *l[] = {"metric", families[f].name};
		enav_promtext_sample_u64(p, "enav_l7_series_overflow_total", l, 1,
					 g->overflowed[f]);
	}
	enav_promtext_single_u64(p, "enav_l7_series", "gauge",
				 "Label sets the request metrics hold (overflow series included).",
				 g->n_series);
	pthread_mutex_unlock(&g->lock);
}

static void red_fini(void *state)
{
	struct red_metrics *g = state;
	if (!g)
		return;
	if (g->series) {
		enav_u64map_destroy(&g->index);
		pthread_mutex_destroy(&g->lock);
	}
	free(g->series);
	free(g);
}

bool enav_red_metrics_enabled(const struct enav_config *cfg)
{
	return cfg->network.enabled && cfg->network.l7.enabled;
}

const struct enav_generator_ops enav_red_metrics_ops = {
    .init = red_init,
    .observe = red_observe,
    .fini = red_fini,
    .metrics = red_metrics_out,
};
