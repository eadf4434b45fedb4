/* SPDX-License-Identifier: Apache-2.0 */
#include "exporters/otlp/otlp_spans.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "platform/numfmt.h"
#include "discovery/k8s.h"
#include "features/network/l7/l7_text.h"

size_t enav_otlp_workload_resource(const struct enav_otlp_kv *node, size_t n_node,
				   const struct enav_signal *s, struct enav_otlp_workload_res *wr)
{
	size_t n = 0;
	for (size_t i = 0; i < n_node && i < ENAV_OTLP_RES_MAX; i++)
		wr->kv[n++] = node[i];
	const struct enav_process_signal *p = &s->process;
	if (p->pid) {
		wr->kv[n++] =
		    (struct enav_otlp_kv){.key = "process.pid", .type = ENAV_OTLP_INT, .i = p->pid};
	}
	if (p->comm[0])
		wr->kv[n++] = (struct enav_otlp_kv){
		    .key = "process.executable.name", .type = ENAV_OTLP_STR, .s = p->comm};
	if (p->identity->container_id[0])
		wr->kv[n++] = (struct enav_otlp_kv){
		    .key = "container.id", .type = ENAV_OTLP_STR, .s = p->identity->container_id};
	if (p->identity->pod_uid[0])
		wr->kv[n++] = (struct enav_otlp_kv){
		    .key = "k8s.pod.uid", .type = ENAV_OTLP_STR, .s = p->identity->pod_uid};
	if (p->pod) {
		wr->kv[n++] = (struct enav_otlp_kv){
		    .key = "k8s.pod.name", .type = ENAV_OTLP_STR, .s = p->pod->name};
		wr->kv[n++] = (struct enav_otlp_kv){
		    .key = "k8s.namespace.name", .type = ENAV_OTLP_STR, .s = p->pod->namespace_};
	}
	return n;
}

static void random_bytes(uint8_t *b, size_t n)
{
	if (getrandom(b, n, 0) != (ssize_t)n)
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)rand();
	bool zero = true;
	for (size_t i = 0; i < n; i++)
		zero &= b[i] == 0;
	if (zero)
		b[0] = 1; /* an all-zero id is invalid */
}

#define KV_STR(k, v) ((struct enav_otlp_kv){.key = (k), .type = ENAV_OTLP_STR, .s = (v)})
#define KV_INT(k, v) ((struct enav_otlp_kv){.key = (k), .type = ENAV_OTLP_INT, .i = (int64_t)(v)})

/* "first second" (or first alone when second is NULL) into out, cut at
 * cap - 1 bytes; what snprintf would write, without its cost. */
static void span_name(char *out, size_t cap, const char *first, const char *second)
{
	size_t n = 0;
	for (const char *p = first; *p && n + 1 < cap; p++)
		out[n++] = *p;
	if (second) {
		if (n + 1 < cap)
			out[n++] = ' ';
		for (const char *p = second; *p && n + 1 < cap; p++)
			out[n++] = *p;
	}
	out[n] = '\0';
}

/* One application operation as an OpenTelemetry span, with the semantic
 * conventions' attributes for its protocol family. */
static int encode_request_span(const struct enav_otlp_kv *node, size_t n_node,
			       const struct enav_signal *s, struct enav_pb_writer *w)
{
	const struct enav_span_signal *sp = &s->span;
	const struct enav_l7_op *op = &sp->op;
	const struct enav_net_signal *net = &s->net;
	struct enav_otlp_workload_res wr;
	size_t nr = enav_otlp_workload_resource(node, n_node, s, &wr);
	char peer[ENAV_ADDR_TEXT_MAX], name[ENAV_L7_OPERATION_MAX + ENAV_L7_TARGET_MAX + 2];
	char path[ENAV_L7_PATH_MAX]; /* url.path, identifier-like segments redacted */
	enav_fmt_addr(peer, net->family, net->remote_addr);
	bool server = net->role == ENAV_ROLE_SERVER;
	const char *proto = enav_l7_protocol_name(op->protocol);
	struct enav_otlp_kv a[20];
	size_t na = 0;
	a[na++] = KV_STR("network.peer.address", peer);
	if (sp->tls_library)
		a[na++] = KV_STR("enav.tls.library", sp->tls_library);
	a[na++] = KV_INT("network.peer.port", net->remote_port);
	a[na++] = KV_STR("enav.l7.protocol", proto);
	a[na++] = KV_STR("enav.span.id_source", sp->id_source ? sp->id_source : "random");
	enum enav_otlp_span_kind kind = server ? ENAV_OTLP_SPAN_SERVER : ENAV_OTLP_SPAN_CLIENT;
	switch (enav_protocol(op->protocol)->family) {
	case ENAV_SPAN_FAMILY_HTTP:
		if (op->rpc) {
			span_name(name, sizeof(name), op->target, NULL);
			a[na++] = KV_STR("rpc.system", "grpc");
			a[na++] = KV_STR("rpc.method", op->target);
			if (op->status_code >= 0)
				a[na++] = KV_INT("rpc.grpc.status_code", op->status_code);
			break;
		}
		span_name(name, sizeof(name), op->operation, op->target);
		a[na++] = KV_STR("http.request.method", op->operation);
		a[na++] = KV_STR("http.route", op->target);
		enav_l7_path_redact(op->path, strlen(op->path), path, sizeof(path));
		a[na++] = KV_STR("url.path", path);
		a[na++] = KV_STR("network.protocol.name", "http");
		a[na++] =
		    KV_STR("network.protocol.version", op->protocol == ENAV_L7_HTTP2 ? "2" : "1.1");
		if (op->status_code >= 0)
			a[na++] = KV_INT("http.response.status_code", op->status_code);
		break;
	case ENAV_SPAN_FAMILY_MESSAGING:
		span_name(name, sizeof(name), op->operation, op->target);
		a[na++] = KV_STR("messaging.system", proto);
		a[na++] = KV_STR("messaging.operation.name", op->operation);
		a[na++] = KV_STR("messaging.destination.name", op->target);
		if (op->kind == ENAV_L7_OP_MESSAGE && !server)
			kind = op->messaging_receive ? ENAV_OTLP_SPAN_CONSUMER
						     : ENAV_OTLP_SPAN_PRODUCER;
		break;
	case ENAV_SPAN_FAMILY_WEBSOCKET:
		span_name(name, sizeof(name), "websocket", op->operation);
		a[na++] = KV_STR("http.route", op->target);
		break;
	case ENAV_SPAN_FAMILY_DB:
	case ENAV_SPAN_FAMILY_NONE:
	default:
		if (op->target[0])
			span_name(name, sizeof(name), op->operation, op->target);
		else
			span_name(name, sizeof(name), op->operation, NULL);
		a[na++] = KV_STR("db.system.name", proto);
		a[na++] = KV_STR("db.operation.name", op->operation);
		if (op->target[0])
			a[na++] = KV_STR("db.collection.name", op->target);
		if (op->status[0])
			a[na++] = KV_STR("db.response.status_code", op->status);
		if (op->statement[0])
			a[na++] = KV_STR("db.query.text", op->statement);
		break;
	}
	struct enav_otlp_span span = {
	    .name = name,
	    .kind = kind,
	    .start_unix_ns = sp->start_time_unix_ns,
	    .end_unix_ns = sp->end_time_unix_ns,
	    .attrs = a,
	    .n_attrs = na,
	    .status = op->error ? ENAV_OTLP_STATUS_ERROR : ENAV_OTLP_STATUS_UNSET,
	    .status_message = op->error && op->status[0] ? op->status : NULL,
	};
	memcpy(span.trace_id, sp->trace_id, 16);
	memcpy(span.span_id, sp->span_id, 8);
	memcpy(span.parent_span_id, sp->parent_span_id, 8);
	struct enav_otlp_resource_spans rs = {.resource = {wr.kv, nr},
					      .scope = {ENAV_OTLP_SCOPE_NAME, ENAV_VERSION},
					      .spans = &span,
					      .n_spans = 1};
	return enav_otlp_encode_traces(w, &rs, 1);
}

int enav_otlp_encode_signal_spans(struct enav_pb_writer *w, const struct enav_otlp_kv *node,
				  size_t n_node, void *const *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct enav_signal *s = items[i];
		if (s->kind == ENAV_SIGNAL_SPAN) {
			int rc = encode_request_span(node, n_node, s, w);
			if (rc)
				return rc;
			continue;
		}
		const struct enav_net_signal *net = &s->net;
		struct enav_otlp_workload_res wr;
		size_t nr = enav_otlp_workload_resource(node, n_node, s, &wr);
		char peer[ENAV_ADDR_TEXT_MAX];
		enav_fmt_addr(peer, net->family, net->remote_addr);
		struct enav_otlp_kv attrs[] = {
		    {.key = "network.transport", .type = ENAV_OTLP_STR, .s = "tcp"},
		    {.key = "network.type",
		     .type = ENAV_OTLP_STR,
		     .s = net->family == 6 ? "ipv6" : "ipv4"},
		    {.key = "network.peer.address", .type = ENAV_OTLP_STR, .s = peer},
		    {.key = "network.peer.port", .type = ENAV_OTLP_INT, .i = net->remote_port},
		    {.key = "network.local.port", .type = ENAV_OTLP_INT, .i = net->local_port},
		    {.key = "enav.tcp.bytes_sent",
		     .type = ENAV_OTLP_INT,
		     .i = (int64_t)net->bytes_sent},
		    {.key = "enav.tcp.bytes_received",
		     .type = ENAV_OTLP_INT,
		     .i = (int64_t)net->bytes_received},
		    {.key = "enav.tcp.retransmits", .type = ENAV_OTLP_INT, .i = net->retransmits},
		};
		bool server = net->role == ENAV_ROLE_SERVER;
		bool failed = s->kind == ENAV_SIGNAL_TCP_FAILED;
		bool reset = net->flags & ENAV_TCP_RESET;
		struct enav_otlp_span span = {
		    .name = server ? "tcp accept" : "tcp connect",
		    .kind = server ? ENAV_OTLP_SPAN_SERVER : ENAV_OTLP_SPAN_CLIENT,
		    .start_unix_ns = s->time_unix_ns > net->duration_ns
					 ? s->time_unix_ns - net->duration_ns
					 : s->time_unix_ns,
		    .end_unix_ns = s->time_unix_ns,
		    .attrs = attrs,
		    .n_attrs = sizeof(attrs) / sizeof(attrs[0]),
		    .status = failed || reset ? ENAV_OTLP_STATUS_ERROR : ENAV_OTLP_STATUS_UNSET,
		    .status_message = failed  ? "connection failed"
				      : reset ? "connection reset"
					      : NULL,
		};
		random_bytes(span.trace_id, sizeof(span.trace_id));
		random_bytes(span.span_id, sizeof(span.span_id));
		struct enav_otlp_resource_spans rs = {.resource = {wr.kv, nr},
						      .scope = {ENAV_OTLP_SCOPE_NAME, ENAV_VERSION},
						      .spans = &span,
						      .n_spans = 1};
		int rc = enav_otlp_encode_traces(w, &rs, 1);
		if (rc)
			return rc;
	}
	return 0;
}
