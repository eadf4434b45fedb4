/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/red_metrics.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
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
	bool overflow;	  /* the family's _overflow series (not in the index) */
	uint64_t hash;	  /* of family and labels: the index key */
	uint64_t last_ns; /* last span counted in it, for idle expiry */
	char labels[N_LABELS][LABEL_MAX];
	uint64_t buckets[N_BOUNDS + 1];
	uint64_t count;
	double sum;
};

/*
 * Every family has its own budget of max_per_family label sets plus its
 * overflow series, so a tenant that floods one (routes of its own server)
 * leaves the others (its neighbours' databases) counted as before.
 */
struct enav_red_table {
	pthread_mutex_t lock;
	struct series *series; /* n_series in use, unordered, of max_total */
	uint32_t n_series, max_total, max_per_family;
	uint32_t in_family[F__COUNT]; /* label sets held, overflow series excluded */
	struct enav_u64map index;     /* label hash -> series with that hash */
	uint32_t overflow_index[F__COUNT];
	uint32_t last_of[F__COUNT]; /* the series each family counted last, or UINT32_MAX */
	uint64_t overflowed[F__COUNT];
	uint64_t expired[F__COUNT];
	uint64_t idle_ns, last_sweep_ns;
	uint64_t spans;
};

/*
 * A span's labels by reference first (text and length, nothing copied):
 * most spans fall in the series their family counted last (a server's
 * route, its client's), which is found by comparing these with its stored
 * labels, without the zeroed copies, the hash and the index lookup a new
 * label set needs.
 */
struct label_ref {
	const char *s;
	size_t n;
};

struct label_set {
	struct label_ref l[N_LABELS];
	char code[24];		  /* a status code as text */
	char workload[LABEL_MAX]; /* enav_workload_key's */
};

/* s as a label, cut at LABEL_MAX - 1 bytes as snprintf would. */
static void label(struct label_set *ls, int i, const char *s)
{
	ls->l[i] = (struct label_ref){s, strnlen(s, LABEL_MAX - 1)};
}

static void code_label(struct label_set *ls, int i, int32_t code)
{
	size_t n = code >= 0 ? enav_fmt_i64(ls->code, code) : 0;
	ls->code[n] = '\0';
	ls->l[i] = (struct label_ref){ls->code, n};
}

static enum family family_of(const struct enav_signal *s, struct label_set *ls)
{
	const struct enav_l7_op *op = &s->span.op;
	bool server = s->net.role == ENAV_ROLE_SERVER;
	const char *proto = enav_l7_protocol_name(op->protocol);
	const char *error = op->error ? (op->status[0] ? op->status : "error") : "";
	enav_workload_key(s, ls->workload, LABEL_MAX);
	label(ls, 4, ls->workload);
	switch (enav_protocol(op->protocol)->family) {
	case ENAV_SPAN_FAMILY_HTTP:
		if (op->rpc) {
			label(ls, 0, "grpc");
			label(ls, 1, op->target);
			code_label(ls, 2, op->status_code);
			label(ls, 3, error);
			return server ? F_RPC_SERVER : F_RPC_CLIENT;
		}
		label(ls, 0, op->operation);
		label(ls, 1, op->target);
		code_label(ls, 2, op->status_code);
		label(ls, 3, op->protocol == ENAV_L7_HTTP2 ? "http2" : "http");
		return server ? F_HTTP_SERVER : F_HTTP_CLIENT;
	case ENAV_SPAN_FAMILY_WEBSOCKET:
		label(ls, 0, op->operation);
		label(ls, 1, op->messaging_receive ? "receive" : "transmit");
		label(ls, 2, op->target);
		label(ls, 3, server ? "server" : "client");
		return F_WS_FRAMES;
	case ENAV_SPAN_FAMILY_MESSAGING:
		label(ls, 0, proto);
		label(ls, 1, op->operation);
		label(ls, 2, op->target);
		label(ls, 3, error);
		if (op->kind == ENAV_L7_OP_REQUEST)
			return server ? F_MSG_SERVER_OP : F_MSG_CLIENT_OP;
		if (server)
			return F_MSG_SERVER;
		return op->messaging_receive ? F_MSG_CONSUMED : F_MSG_SENT;
	case ENAV_SPAN_FAMILY_DB:
	case ENAV_SPAN_FAMILY_NONE:
	default:
		label(ls, 0, proto);
		label(ls, 1, op->operation);
		label(ls, 2, op->target);
		label(ls, 3, error);
		return server ? F_DB_SERVER : F_DB_CLIENT;
	}
}

/* Series x holds exactly these labels (its stored ones are NUL-padded). */
static bool same_labels(const struct series *x, enum family f, const struct label_set *ls)
{
	if (x->family != f || x->overflow)
		return false;
	for (int i = 0; i < N_LABELS; i++)
		if (x->labels[i][ls->l[i].n] != '\0' ||
		    memcmp(x->labels[i], ls->l[i].s, ls->l[i].n) != 0)
			return false;
	return true;
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

static struct series *new_series(struct enav_red_table *g, enum family f, uint64_t h,
				 char labels[N_LABELS][LABEL_MAX])
{
	struct series *x = &g->series[g->n_series++];
	memset(x, 0, sizeof(*x));
	x->family = (uint8_t)f;
	x->hash = h;
	memcpy(x->labels, labels, sizeof(x->labels));
	return x;
}

/* The series of these labels; past the family's cap, its overflow series. */
static struct series *find_series(struct enav_red_table *g, enum family f,
				  char labels[N_LABELS][LABEL_MAX])
{
	uint64_t h = hash_labels(f, labels), idx;
	if (enav_u64map_get(&g->index, h, &idx)) {
		struct series *x = &g->series[idx];
		if (x->family == f && !memcmp(x->labels, labels, sizeof(x->labels)))
			return x;
		/* A 64-bit collision: counted as overflow rather than merged. */
	} else if (g->in_family[f] < g->max_per_family && g->n_series < g->max_total &&
		   enav_u64map_put(&g->index, h, g->n_series) == 0) {
		g->in_family[f]++;
		return new_series(g, f, h, labels);
	}
	g->overflowed[f]++;
	if (g->overflow_index[f] == UINT32_MAX) {
		char ol[N_LABELS][LABEL_MAX] = {{0}};
		for (int i = 0; i < N_LABELS; i++)
			memcpy(ol[i], OVERFLOW, sizeof(OVERFLOW));
		g->overflow_index[f] = g->n_series;
		new_series(g, f, 0, ol)->overflow = true;
	}
	return &g->series[g->overflow_index[f]];
}

/* Series i leaves; the last one takes its slot (and its index entry). */
static void remove_series(struct enav_red_table *g, uint32_t i)
{
	struct series *x = &g->series[i];
	enum family f = (enum family)x->family;
	if (x->overflow) {
		g->overflow_index[f] = UINT32_MAX;
	} else {
		enav_u64map_del(&g->index, x->hash);
		g->in_family[f]--;
	}
	g->expired[f]++;
	/* Series move: no family's last series is known any more. */
	memset(g->last_of, 0xff, sizeof(g->last_of));
	uint32_t last = --g->n_series;
	if (i == last)
		return;
	*x = g->series[last];
	if (x->overflow)
		g->overflow_index[x->family] = i;
	else
		enav_u64map_put(&g->index, x->hash, i); /* overwrites: never fails */
}

struct enav_red_table *enav_red_table_new(uint32_t max_per_family, uint64_t idle_ns)
{
	struct enav_red_table *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->max_per_family = max_per_family;
	g->max_total = F__COUNT * (max_per_family + 1);
	g->idle_ns = idle_ns;
	for (int f = 0; f < F__COUNT; f++)
		g->overflow_index[f] = g->last_of[f] = UINT32_MAX;
	/* calloc: the pages of label sets never used are never touched. */
	g->series = calloc(g->max_total, sizeof(*g->series));
	if (!g->series || enav_u64map_init(&g->index, g->max_total)) {
		free(g->series);
		free(g);
		return NULL;
	}
	pthread_mutex_init(&g->lock, NULL);
	return g;
}

void enav_red_table_free(struct enav_red_table *g)
{
	if (!g)
		return;
	enav_u64map_destroy(&g->index);
	pthread_mutex_destroy(&g->lock);
	free(g->series);
	free(g);
}

void enav_red_table_observe(struct enav_red_table *g, const struct enav_signal *s, uint64_t now_ns)
{
	if (s->kind != ENAV_SIGNAL_SPAN)
		return;
	struct label_set ls;
	enum family f = family_of(s, &ls);
	const struct enav_l7_op *op = &s->span.op;
	double secs = op->end_ns > op->start_ns ? (double)(op->end_ns - op->start_ns) / 1e9 : 0;
	pthread_mutex_lock(&g->lock);
	g->spans++;
	struct series *x = NULL;
	uint32_t last = g->last_of[f];
	if (last < g->n_series && same_labels(&g->series[last], f, &ls)) {
		x = &g->series[last];
	} else {
		char labels[N_LABELS][LABEL_MAX];
		memset(labels, 0, sizeof(labels));
		for (int i = 0; i < N_LABELS; i++)
			memcpy(labels[i], ls.l[i].s, ls.l[i].n);
		x = find_series(g, f, labels);
		if (!x->overflow)
			g->last_of[f] = (uint32_t)(x - g->series);
	}
	int b = 0;
	while (b < N_BOUNDS && secs > bounds[b])
		b++;
	x->buckets[b]++;
	x->count++;
	x->sum += secs;
	x->last_ns = now_ns;
	pthread_mutex_unlock(&g->lock);
}

void enav_red_table_expire(struct enav_red_table *g, uint64_t now_ns)
{
	pthread_mutex_lock(&g->lock);
	g->last_sweep_ns = now_ns;
	for (uint32_t i = 0; i < g->n_series;) {
		const struct series *x = &g->series[i];
		if (now_ns > x->last_ns && now_ns - x->last_ns >= g->idle_ns)
			remove_series(g, i); /* the last one moved to i: look again */
		else
			i++;
	}
	pthread_mutex_unlock(&g->lock);
}

uint32_t enav_red_table_series(struct enav_red_table *g)
{
	pthread_mutex_lock(&g->lock);
	uint32_t n = g->n_series;
	pthread_mutex_unlock(&g->lock);
	return n;
}

size_t enav_red_metrics_exposition_bound(uint32_t max_per_family)
{
	/* A line at its longest: every label value at LABEL_MAX - 1 bytes, each
	 * byte escaped to two, the longest names, "le" and a 17-digit value. */
	size_t line = 64 + sizeof("_bucket{}") +
		      N_LABELS * (32 + sizeof("=\"\",") + 2 * (LABEL_MAX - 1)) +
		      sizeof(",le=\"+Inf\"") + sizeof(" -1.2345678901234567e+308\n");
	size_t per_series = (N_BOUNDS + 3) * line; /* buckets, +Inf, _sum, _count */
	/* Families and the self-accounting of this module (two lines a family). */
	size_t fixed = F__COUNT * (2 * 256 + 2 * 160) + 1024;
	return fixed + (size_t)F__COUNT * ((size_t)max_per_family + 1) * per_series;
}

size_t enav_red_metrics_config_bound(const struct enav_config *cfg)
{
	return enav_red_metrics_exposition_bound(cfg->network.l7.max_series);
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

void enav_red_table_render(struct enav_red_table *g, struct enav_promtext *p)
{
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
	enav_promtext_family(
	    p, "enav_l7_series_overflow_total", "counter",
	    "Spans counted in a metric family's _overflow series because "
	    "sources.network.l7.max_series label sets of that family were in use.");
	for (int f = 0; f < F__COUNT; f++) {
		const char *l[] = {"metric", families[f].name};
		enav_promtext_sample_u64(p, "enav_l7_series_overflow_total", l, 1,
					 g->overflowed[f]);
	}
	enav_promtext_family(p, "enav_l7_series_expired_total", "counter",
			     "Label sets dropped after sources.network.l7.series_idle_s without a "
			     "span.");
	for (int f = 0; f < F__COUNT; f++) {
		const char *l[] = {"metric", families[f].name};
		enav_promtext_sample_u64(p, "enav_l7_series_expired_total", l, 1, g->expired[f]);
	}
	enav_promtext_single_u64(p, "enav_l7_series", "gauge",
				 "Label sets the request metrics hold (overflow series included).",
				 g->n_series);
	pthread_mutex_unlock(&g->lock);
}

/* ---- the generator ---------------------------------------------------------------- */

static int red_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	uint32_t per_family = cfg->network.l7.max_series;
	*state =
	    enav_red_table_new(per_family, (uint64_t)cfg->network.l7.series_idle_s * 1000000000ull);
	if (!*state) {
		snprintf(err, errlen, "request metrics: cannot allocate %u series",
			 F__COUNT * (per_family + 1));
		return -ENOMEM;
	}
	return 0;
}

static size_t red_observe(void *state, const struct enav_signal *s, struct enav_signal **out,
			  size_t out_cap)
{
	enav_red_table_observe(state, s, enav_clock_mono_ns());
	return 0;
}

/* Expiry runs about once a second: a sweep is linear in the series held. */
static size_t red_tick(void *state, uint64_t now_mono_ns, struct enav_signal **out, size_t out_cap)
{
	struct enav_red_table *g = state;
	pthread_mutex_lock(&g->lock);
	bool due = now_mono_ns - g->last_sweep_ns >= 1000000000ull;
	pthread_mutex_unlock(&g->lock);
	if (due)
		enav_red_table_expire(g, now_mono_ns);
	return 0;
}

static void red_metrics_out(void *state, struct enav_promtext *p)
{
	enav_red_table_render(state, p);
}

static void red_fini(void *state)
{
	enav_red_table_free(state);
}

bool enav_red_metrics_enabled(const struct enav_config *cfg)
{
	return cfg->network.enabled && cfg->network.l7.enabled;
}

const struct enav_generator_ops enav_red_metrics_ops = {
    .init = red_init,
    .observe = red_observe,
    .tick = red_tick,
    .fini = red_fini,
    .metrics = red_metrics_out,
};
