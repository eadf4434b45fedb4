/* SPDX-License-Identifier: Apache-2.0 */
#include "exporters/ndjson/ndjson.h"
#include "exporters/ndjson/ndjson_limit.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "platform/numfmt.h"
#include "runtime/export_worker.h"
#include "discovery/k8s.h"
#include "model/dns_message.h"
#include "model/l7_text.h"

static void encode_argv(struct enav_json *j, const struct enav_signal *s)
{
	const struct enav_process_signal *p = &s->process;
	enav_json_key(j, "argv");
	enav_json_array_begin(j);
	size_t start = 0;
	for (size_t i = 0; i < p->argv_len; i++) {
		if (p->argv[i] == '\0') {
			enav_json_string_n(j, p->argv + start, i - start);
			start = i + 1;
		}
	}
	/* A truncated tail has no terminating NUL: keep the partial argument. */
	if (start < p->argv_len)
		enav_json_string_n(j, p->argv + start, p->argv_len - start);
	enav_json_array_end(j);
	enav_json_kv_bool(j, "argv_truncated", p->argv_truncated);
}

/* "namespace/name" into out, cut at cap - 1 bytes as snprintf would;
 * returns the length. */
static size_t join_ref(char *out, size_t cap, const char *ns, const char *name)
{
	size_t n = 0;
	for (; *ns && n + 1 < cap; ns++)
		out[n++] = *ns;
	if (n + 1 < cap)
		out[n++] = '/';
	for (; *name && n + 1 < cap; name++)
		out[n++] = *name;
	out[n] = '\0';
	return n;
}

/* What the Kubernetes controller knows of the pod (docs/signals.md). */
static void encode_pod(struct enav_json *j, const struct enav_k8s_pod *pod)
{
	enav_json_kv_string(j, "pod_name", pod->name);
	enav_json_kv_string(j, "namespace", pod->namespace_);
	if (pod->node[0])
		enav_json_kv_string(j, "node_name", pod->node);
	if (pod->owner_kind[0]) {
		enav_json_kv_string(j, "owner_kind", pod->owner_kind);
		enav_json_kv_string(j, "owner_name", pod->owner_name);
	}
	if (pod->n_labels) {
		enav_json_key(j, "labels");
		enav_json_object_begin(j);
		for (uint32_t i = 0; i < pod->n_labels && i < ENAV_K8S_MAX_LABELS; i++)
			enav_json_kv_string(j, pod->labels[i].key, pod->labels[i].value);
		enav_json_object_end(j);
	}
	if (pod->n_services) {
		enav_json_key(j, "services");
		enav_json_array_begin(j);
		for (uint32_t i = 0; i < pod->n_services && i < ENAV_K8S_MAX_SERVICES; i++) {
			char ref[ENAV_K8S_NAMESPACE_MAX + ENAV_K8S_NAME_MAX + 2];
			enav_json_string_n(j, ref,
					   join_ref(ref, sizeof(ref), pod->services[i].namespace_,
						    pod->services[i].name));
		}
		enav_json_array_end(j);
	}
}

static void encode_addr(struct enav_json *j, const char *key, int family, const uint8_t *addr)
{
	char text[ENAV_ADDR_TEXT_MAX];
	size_t n = enav_fmt_addr(text, family, addr);
	enav_json_kv_string_n(j, key, text, n);
}

static const char *const role_names[] = {"unknown", "client", "server"};

/* tcp.* and dns.*: the owning process, then the exchange (docs/signals.md). */
static void encode_network(struct enav_json *j, const struct enav_signal *s)
{
	const struct enav_process_signal *p = &s->process;
	const struct enav_net_signal *n = &s->net;
	if (p->pid) {
		enav_json_key(j, "process");
		enav_json_object_begin(j);
		enav_json_kv_u64(j, "pid", p->pid);
		enav_json_kv_u64(j, "tid", p->tid);
		enav_json_kv_string(j, "comm", p->comm);
		enav_json_object_end(j);
	}
	enav_json_key(j, s->kind == ENAV_SIGNAL_DNS ? "dns" : "connection");
	enav_json_object_begin(j);
	enav_json_kv_u64(j, "ip_version", n->family);
	encode_addr(j, "local_address", n->family, n->local_addr);
	enav_json_kv_u64(j, "local_port", n->local_port);
	encode_addr(j, "remote_address", n->family, n->remote_addr);
	enav_json_kv_u64(j, "remote_port", n->remote_port);
	if (s->kind == ENAV_SIGNAL_SPAN) {
		enav_json_kv_string(j, "role", role_names[n->role < 3 ? n->role : 0]);
		enav_json_object_end(j);
		return;
	}
	if (s->kind != ENAV_SIGNAL_DNS) {
		enav_json_kv_string(j, "role", role_names[n->role < 3 ? n->role : 0]);
		enav_json_kv_u64(j, "start_time_unix_nano", n->start_time_unix_ns);
		if (s->kind != ENAV_SIGNAL_TCP_OPEN) {
			enav_json_kv_u64(j, "duration_ns", n->duration_ns);
			enav_json_kv_u64(j, "bytes_sent", n->bytes_sent);
			enav_json_kv_u64(j, "bytes_received", n->bytes_received);
			enav_json_kv_u64(j, "retransmits", n->retransmits);
			enav_json_kv_u64(j, "srtt_us", n->srtt_us);
			enav_json_kv_bool(j, "reset", n->flags & ENAV_TCP_RESET);
		}
		enav_json_kv_bool(j, "predates_agent", n->flags & ENAV_TCP_PREDATES_ATTACH);
		enav_json_object_end(j);
		return;
	}
	const struct enav_dns_message *m = n->dns;
	char tbuf[ENAV_DNS_TYPE_NAME_LEN];
	enav_json_kv_bool(j, "tcp", n->dns_tcp);
	enav_json_kv_string(j, "direction",
			    n->dns_direction == ENAV_DNS_SENT ? "sent" : "received");
	enav_json_kv_u64(j, "id", m->id);
	enav_json_kv_string(j, "name", m->qname);
	enav_json_kv_string(j, "type", enav_dns_type_name(m->qtype, tbuf));
	enav_json_kv_string(j, "rcode", enav_dns_rcode_name(m->rcode));
	if (n->dns_has_latency)
		enav_json_kv_u64(j, "latency_ns", n->dns_latency_ns);
	enav_json_kv_bool(j, "truncated", m->truncated_flag);
	enav_json_kv_bool(j, "capture_truncated", m->capture_truncated);
	enav_json_key(j, "answers");
	enav_json_array_begin(j);
	for (uint32_t i = 0; i < m->n_answers && i < ENAV_DNS_MAX_ANSWERS; i++) {
		const struct enav_dns_answer *a = &m->answers[i];
		enav_json_object_begin(j);
		enav_json_kv_string(j, "name", a->name);
		enav_json_kv_string(j, "type", enav_dns_type_name(a->type, tbuf));
		enav_json_kv_u64(j, "ttl", a->ttl);
		if (a->type == ENAV_DNS_TYPE_A)
			encode_addr(j, "address", 4, a->data.a);
		else if (a->type == ENAV_DNS_TYPE_AAAA)
			encode_addr(j, "address", 6, a->data.aaaa);
		else if (a->type == ENAV_DNS_TYPE_CNAME)
			enav_json_kv_string(j, "cname", a->data.cname);
		enav_json_object_end(j);
	}
	enav_json_array_end(j);
	enav_json_object_end(j);
}

/* network.edge: inferred from observed connections (docs/signals.md). */
static void encode_edge(struct enav_json *j, const struct enav_edge_signal *e)
{
	/* Confidence is in [0, 1] (net_edges.c): within enav_fmt_fixed2's range. */
	char conf[ENAV_U64_TEXT_MAX + 4];
	conf[enav_fmt_fixed2(conf, e->confidence)] = '\0';
	enav_json_key(j, "edge");
	enav_json_object_begin(j);
	enav_json_kv_string(j, "client", e->client);
	enav_json_kv_string(j, "server", e->server);
	enav_json_kv_string(j, "server_ip", e->server_ip);
	enav_json_kv_u64(j, "server_port", e->server_port);
	enav_json_kv_bool(j, "server_named_by_dns", e->server_named_by_dns);
	enav_json_kv_raw(j, "confidence", conf);
	enav_json_kv_u64(j, "interval_start_unix_nano", e->interval_start_unix_ns);
	enav_json_kv_u64(j, "connections", e->connections);
	enav_json_kv_u64(j, "failures", e->failures);
	enav_json_kv_u64(j, "resets", e->resets);
	enav_json_kv_u64(j, "bytes_sent", e->bytes_sent);
	enav_json_kv_u64(j, "bytes_received", e->bytes_received);
	enav_json_kv_u64(j, "duration_sum_ns", e->duration_sum_ns);
	enav_json_kv_u64(j, "srtt_max_us", e->srtt_max_us);
	enav_json_object_end(j);
}

static void kv_hex(struct enav_json *j, const char *key, const uint8_t *b, size_t n)
{
	char text[33];
	if (n > 16)
		n = 16;
	enav_hex_bytes(text, b, n);
	text[2 * n] = '\0';
	enav_json_kv_string(j, key, text);
}

/* An application operation (docs/signals.md, "span"). */
static void encode_span(struct enav_json *j, const struct enav_span_signal *sp)
{
	static const uint8_t zero[8];
	const struct enav_l7_op *op = &sp->op;
	enav_json_key(j, "span");
	enav_json_object_begin(j);
	enav_json_kv_string(j, "protocol", enav_l7_protocol_name(op->protocol));
	enav_json_kv_string(j, "kind", op->kind == ENAV_L7_OP_MESSAGE ? "message" : "request");
	enav_json_kv_string(j, "operation", op->operation);
	enav_json_kv_string(j, "target", op->target);
	if (op->path[0]) {
		/* What leaves the node: identifier-like segments redacted (an
		 * e-mail address or a token in a path; docs/signals.md). */
		char path[ENAV_L7_PATH_MAX];
		enav_l7_path_redact(op->path, strlen(op->path), path, sizeof(path));
		enav_json_kv_string(j, "path", path);
	}
	if (op->statement[0])
		enav_json_kv_string(j, "statement", op->statement);
	enav_json_kv_string(j, "status", op->status);
	if (op->status_code >= 0)
		enav_json_kv_u64(j, "status_code", (uint64_t)op->status_code);
	enav_json_kv_bool(j, "error", op->error);
	if (op->rpc)
		enav_json_kv_bool(j, "rpc", true);
	if (op->protocol == ENAV_L7_HTTP2)
		enav_json_kv_u64(j, "stream_id", op->stream_id);
	if (op->kind == ENAV_L7_OP_MESSAGE)
		enav_json_kv_bool(j, "receive", op->messaging_receive);
	else
		enav_json_kv_bool(j, "response_seen", op->response_seen);
	enav_json_kv_u64(j, "start_time_unix_nano", sp->start_time_unix_ns);
	enav_json_kv_u64(j, "end_time_unix_nano", sp->end_time_unix_ns);
	enav_json_kv_u64(j, "duration_ns",
			 op->end_ns >= op->start_ns ? op->end_ns - op->start_ns : 0);
	enav_json_kv_u64(j, "request_bytes", op->request_bytes);
	enav_json_kv_u64(j, "response_bytes", op->response_bytes);
	kv_hex(j, "trace_id", sp->trace_id, 16);
	kv_hex(j, "span_id", sp->span_id, 8);
	if (memcmp(sp->parent_span_id, zero, 8))
		kv_hex(j, "parent_span_id", sp->parent_span_id, 8);
	enav_json_kv_string(j, "id_source", sp->id_source ? sp->id_source : "random");
	if (sp->tls_library)
		enav_json_kv_string(j, "tls_library", sp->tls_library);
	if (op->profile_linked)
		enav_json_kv_bool(j, "profile_linked", true);
	enav_json_object_end(j);
}

static void encode_finding(struct enav_json *j, const struct enav_finding_signal *f)
{
	enav_json_key(j, "finding");
	enav_json_object_begin(j);
	enav_json_kv_string(j, "rule", f->rule);
	enav_json_kv_string(j, "severity", f->severity);
	enav_json_kv_string(j, "summary", f->summary);
	enav_json_kv_string(j, "evidence_kind", enav_signal_kind_name(f->evidence_kind));
	enav_json_kv_u64(j, "evidence_time_unix_nano", f->evidence_time_unix_ns);
	if (f->related_pid) {
		enav_json_kv_u64(j, "related_pid", f->related_pid);
		enav_json_kv_string(j, "related_comm", f->related_comm);
	}
	if (f->related_port)
		enav_json_kv_u64(j, "related_port", f->related_port);
	enav_json_object_end(j);
}

static void encode_file(struct enav_json *j, const struct enav_file_signal *f)
{
	enav_json_key(j, "file");
	enav_json_object_begin(j);
	if (f->has_path)
		enav_json_kv_string(j, "path", f->path);
	enav_json_kv_u64(j, "device", f->dev);
	enav_json_kv_u64(j, "inode", f->ino);
	enav_json_kv_string(j, "access", f->access ? f->access : "read");
	enav_json_kv_u64(j, "open_flags", f->open_flags);
	enav_json_object_end(j);
}

static void encode_bpf_access(struct enav_json *j, const struct enav_bpf_access_signal *b)
{
	enav_json_key(j, "bpf");
	enav_json_object_begin(j);
	enav_json_kv_string(j, "detected_by", b->detected_by);
	enav_json_kv_string(j, "operation", b->operation);
	enav_json_kv_string(j, "object_kind", b->object_kind);
	if (b->object_id)
		enav_json_kv_u64(j, "object_id", b->object_id);
	if (b->object_name[0])
		enav_json_kv_string(j, "object_name", b->object_name);
	enav_json_kv_bool(j, "modifies", b->modifies);
	if (b->entries_restored)
		enav_json_kv_u64(j, "entries_restored", b->entries_restored);
	else
		enav_json_kv_i64(j, "result", b->result);
	enav_json_object_end(j);
}

long enav_ndjson_encode(const struct enav_signal *s, char *buf, size_t cap)
{
	const struct enav_process_signal *p = &s->process;
	struct enav_json j;
	enav_json_init(&j, buf, cap);
	enav_json_object_begin(&j);
	enav_json_kv_u64(&j, "schema_version", ENAV_SIGNAL_SCHEMA_VERSION);
	enav_json_kv_string(&j, "kind", enav_signal_kind_name(s->kind));
	bool inferred = s->kind == ENAV_SIGNAL_EDGE || s->kind == ENAV_SIGNAL_FINDING;
	enav_json_kv_string(&j, "evidence", inferred ? "inferred" : "observed");
	enav_json_kv_u64(&j, "time_unix_nano", s->time_unix_ns);

	if (s->kind == ENAV_SIGNAL_EDGE) {
		encode_edge(&j, &s->edge);
		enav_json_object_end(&j);
		return enav_json_finish(&j);
	}
	if (s->kind == ENAV_SIGNAL_FINDING)
		encode_finding(&j, &s->finding);
	bool process_kind = s->kind == ENAV_SIGNAL_PROCESS_EXEC ||
			    s->kind == ENAV_SIGNAL_PROCESS_EXIT || s->kind == ENAV_SIGNAL_FINDING ||
			    s->kind == ENAV_SIGNAL_CRED_CHANGE ||
			    s->kind == ENAV_SIGNAL_FILE_OPEN || s->kind == ENAV_SIGNAL_BPF_ACCESS;
	if (!process_kind) {
		encode_network(&j, s);
		if (s->kind == ENAV_SIGNAL_SPAN)
			encode_span(&j, &s->span);
		goto attribution;
	}
	/* An integrity check finds a change, not who made it: no process. */
	bool no_process = (s->kind == ENAV_SIGNAL_BPF_ACCESS ||
			   (s->kind == ENAV_SIGNAL_FINDING &&
			    s->finding.evidence_kind == ENAV_SIGNAL_BPF_ACCESS)) &&
			  p->pid == 0;
	if (no_process)
		goto process_done;
	enav_json_key(&j, "process");
	enav_json_object_begin(&j);
	enav_json_kv_u64(&j, "pid", p->pid);
	enav_json_kv_u64(&j, "tid", p->tid);
	enav_json_kv_u64(&j, "ppid", p->ppid);
	if (p->has_creds) {
		enav_json_kv_u64(&j, "uid", p->uid);
		enav_json_kv_u64(&j, "gid", p->gid);
	}
	enav_json_kv_string(&j, "comm", p->comm);
	enav_json_kv_u64(&j, "start_time_unix_nano", p->start_time_unix_ns);
	if (p->has_filename) {
		enav_json_kv_string(&j, "filename", p->filename);
		enav_json_kv_bool(&j, "filename_truncated", p->filename_truncated);
	}
	if (p->has_exe)
		enav_json_kv_string(&j, "exe", p->exe);
	if (p->has_argv)
		encode_argv(&j, s);
	enav_json_object_end(&j);
process_done:;

	enum enav_signal_kind about =
	    s->kind == ENAV_SIGNAL_FINDING ? s->finding.evidence_kind : s->kind;
	if (about == ENAV_SIGNAL_FILE_OPEN)
		encode_file(&j, &s->file);
	if (about == ENAV_SIGNAL_BPF_ACCESS)
		encode_bpf_access(&j, &s->bpf);
	if (s->kind == ENAV_SIGNAL_CRED_CHANGE) {
		const struct enav_cred_signal *c = &s->cred;
		static const char digits[] = "0123456789abcdef";
		char caps[17];
		for (int i = 0; i < 16; i++)
			caps[i] = digits[(c->cap_effective >> (60 - 4 * i)) & 15];
		caps[16] = '\0';
		enav_json_key(&j, "credentials");
		enav_json_object_begin(&j);
		enav_json_kv_string(&j, "syscall", c->syscall);
		enav_json_kv_u64(&j, "euid", c->euid);
		enav_json_kv_u64(&j, "suid", c->suid);
		enav_json_kv_u64(&j, "fsuid", c->fsuid);
		enav_json_kv_u64(&j, "egid", c->egid);
		enav_json_kv_string(&j, "cap_effective", caps);
		enav_json_object_end(&j);
	}
	if (p->has_exit) {
		enav_json_key(&j, "exit");
		enav_json_object_begin(&j);
		if (p->exit_signal) {
			enav_json_kv_u64(&j, "signal", (uint64_t)p->exit_signal);
			enav_json_kv_bool(&j, "core_dumped", p->core_dumped);
		} else {
			enav_json_kv_u64(&j, "code", (uint64_t)p->exit_code);
		}
		enav_json_kv_u64(&j, "lifetime_ns", p->lifetime_ns);
		enav_json_object_end(&j);
	}

attribution:
	enav_json_key(&j, "cgroup");
	enav_json_object_begin(&j);
	enav_json_kv_u64(&j, "id", p->cgroup_id);
	if (p->has_cgroup_path)
		enav_json_kv_string(&j, "path", p->cgroup_path);
	enav_json_object_end(&j);

	const struct enav_cgroup_identity *id = p->identity;
	if (id->container_id[0]) {
		enav_json_key(&j, "container");
		enav_json_object_begin(&j);
		enav_json_kv_string(&j, "id", id->container_id);
		enav_json_kv_string(&j, "runtime", enav_container_runtime_name(id->runtime));
		enav_json_object_end(&j);
	}
	if (id->pod_uid[0]) {
		enav_json_key(&j, "k8s");
		enav_json_object_begin(&j);
		enav_json_kv_string(&j, "pod_uid", id->pod_uid);
		enav_json_kv_string(&j, "qos_class", enav_pod_qos_name(id->qos));
		if (p->pod)
			encode_pod(&j, p->pod);
		enav_json_object_end(&j);
	}
	if (id->systemd_unit[0])
		enav_json_kv_string(&j, "systemd_unit", id->systemd_unit);

	if (s->n_warnings) {
		enav_json_key(&j, "warnings");
		enav_json_array_begin(&j);
		for (uint32_t i = 0; i < s->n_warnings; i++) {
			enav_json_object_begin(&j);
			enav_json_kv_string(&j, "field", s->warnings[i].field);
			enav_json_kv_string(&j, "reason", s->warnings[i].reason);
			enav_json_object_end(&j);
		}
		enav_json_array_end(&j);
	}
	enav_json_object_end(&j);
	return enav_json_finish(&j);
}

/* ---- the output stream ---------------------------------------------------- */

/*
 * A line counts as written only when a flush has handed it to the kernel:
 * fwrite merely copies it into stdio's buffer, and a flush that fails loses
 * what that buffer held.  The lines lost in a failed write or flush are
 * write errors, and stdio's copy of them is discarded so a later flush
 * cannot deliver what was counted lost.
 */
static void out_failed(struct enav_ndjson_out *o, uint64_t lost)
{
	atomic_fetch_add(&o->write_errors, lost);
	o->pending = 0;
	__fpurge(o->f);
	clearerr(o->f);
}

void enav_ndjson_out_line(struct enav_ndjson_out *o, const char *line, size_t n)
{
	if (fwrite(line, 1, n, o->f) != n)
		out_failed(o, o->pending + 1);
	else
		o->pending++;
}

void enav_ndjson_out_flush(struct enav_ndjson_out *o)
{
	if (fflush(o->f) != 0) {
		out_failed(o, o->pending);
		return;
	}
	atomic_fetch_add(&o->written, o->pending);
	o->pending = 0;
}

/* ---- the transport of the export worker ----------------------------------- */

/* Signals taken from the queue at once: few, so the signals held stay about
 * the queue's capacity. */
#define NDJSON_BATCH_MAX 64u
/* The writer's tick: a line waits at most this long for others to share
 * its wake-up and its write(2).  At 1 ms a trickle of a signal per ms (an
 * exec storm) still woke the writer per signal; at 5 ms it wakes about once
 * per four signals there, and once per batch under load. */
#define NDJSON_LINGER_MS 5u
/* Under a steady stream the queue never runs dry: flush at least this often. */
#define NDJSON_FLUSH_LINES 1024u

struct ndjson_sink {
	struct enav_export_worker *ew;
	struct enav_ndjson_out out;
	bool owns_out;
	char *line;
	size_t line_cap;
	/* The batch in hand (worker thread only): written entries are NULL. */
	struct enav_signal **batch;
	size_t batch_len;
	bool in_write; /* a line is inside fwrite */
	_Atomic uint64_t too_long;
	_Atomic uint64_t abandoned; /* lost when the output was abandoned at the deadline */
	/* Admission (capture thread): what each kind may write per second. */
	struct enav_ndjson_limit limit;
};

/*
 * The writer is cancelled at the shutdown deadline when its reader stopped
 * reading (write(2) blocks forever).  It may be cancelled only inside its
 * output calls (the export worker never holds a lock across send).
 */
static void output_cancellable(bool on)
{
	pthread_setcancelstate(on ? PTHREAD_CANCEL_ENABLE : PTHREAD_CANCEL_DISABLE, NULL);
}

static enum enav_export_prepared ndjson_prepare(void *ctx, void **items, size_t n, void **body,
						size_t *n_body)
{
	struct ndjson_sink *ns = ctx;
	ns->batch = (struct enav_signal **)items;
	ns->batch_len = n;
	*body = items;
	*n_body = n;
	return ENAV_EXPORT_READY;
}

/* Cancelled inside an output call: what the batch still held is lost. */
static void ndjson_abandoned(void *arg)
{
	struct ndjson_sink *ns = arg;
	uint64_t lost = ns->out.pending + (ns->in_write ? 1 : 0);
	for (size_t i = 0; i < ns->batch_len; i++) {
		if (ns->batch[i]) {
			enav_signal_unref(ns->batch[i]);
			ns->batch[i] = NULL;
			lost++;
		}
	}
	ns->out.pending = 0;
	atomic_fetch_add(&ns->abandoned, lost);
}

static enum enav_export_result ndjson_send(void *ctx, void *body, size_t n,
					   uint32_t *retry_after_ms)
{
	struct ndjson_sink *ns = ctx;
	pthread_cleanup_push(ndjson_abandoned, ns);
	for (size_t i = 0; i < n; i++) {
		struct enav_signal *s = ns->batch[i];
		ns->batch[i] = NULL;
		long len = enav_ndjson_encode(s, ns->line, ns->line_cap - 1);
		enav_signal_unref(s);
		if (len < 0) {
			atomic_fetch_add(&ns->too_long, 1);
			continue;
		}
		ns->line[len] = '\n';
		ns->in_write = true;
		output_cancellable(true);
		enav_ndjson_out_line(&ns->out, ns->line, (size_t)len + 1);
		output_cancellable(false);
		ns->in_write = false;
	}
	/* Flush when the queue ran dry (batches under load, prompt when idle),
	 * or when enough lines wait to be counted written. */
	struct enav_export_stats st;
	enav_export_worker_stats(ns->ew, &st);
	if (st.depth == 0 || ns->out.pending >= NDJSON_FLUSH_LINES) {
		output_cancellable(true);
		enav_ndjson_out_flush(&ns->out);
		output_cancellable(false);
	}
	pthread_cleanup_pop(0);
	return ENAV_EXPORT_SENT;
}

/* Lines never written (the deadline came first): the worker counted them. */
static void ndjson_release(void *ctx, void *body)
{
	struct ndjson_sink *ns = ctx;
	for (size_t i = 0; i < ns->batch_len; i++) {
		enav_signal_unref(ns->batch[i]);
		ns->batch[i] = NULL;
	}
	ns->batch = NULL;
	ns->batch_len = 0;
}

static void ndjson_free_item(void *ctx, void *item)
{
	enav_signal_unref(item);
}

static const struct enav_export_transport ndjson_transport = {
    .prepare = ndjson_prepare,
    .send = ndjson_send,
    .release = ndjson_release,
    .free_item = ndjson_free_item,
};

static int ndjson_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	struct ndjson_sink *ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	*state = ns;
	const char *path = cfg->ndjson.path;
	if (strcmp(path, "-") == 0) {
		ns->out.f = stdout;
	} else {
		ns->out.f = fopen(path, "ae");
		if (!ns->out.f) {
			snprintf(err, errlen, "ndjson: cannot open %s: %s", path, strerror(errno));
			return -errno;
		}
		ns->owns_out = true;
	}
	ns->line_cap = cfg->ndjson.max_line_bytes;
	ns->line = malloc(ns->line_cap);
	if (!ns->line)
		return -ENOMEM;
	uint32_t cap = cfg->ndjson.queue_capacity;
	struct enav_export_worker_config ec = {
	    .name = "ndjson",
	    .queue_capacity = cap,
	    .batch_max_items = cap < NDJSON_BATCH_MAX ? cap : NDJSON_BATCH_MAX,
	    .batch_max_delay_ms = NDJSON_LINGER_MS,
	    .backoff_initial_ms = 1, /* never retried: a file has no retryable answer */
	    .limit_retries = true,
	    .cancel_at_deadline = true,
	};
	char why[128];
	ns->ew = enav_export_worker_start(&ec, &ndjson_transport, ns, why, sizeof(why));
	if (!ns->ew) {
		snprintf(err, errlen, "ndjson: cannot start writer thread");
		return -EAGAIN;
	}
	enav_ndjson_limit_init(&ns->limit, cfg->ndjson.rate_limit.spans_per_second,
			       cfg->ndjson.rate_limit.other_kinds_per_second, enav_clock_mono_ns());
	char limits[256];
	enav_ndjson_limit_describe(&ns->limit, limits, sizeof(limits));
	enav_info("ndjson: writing to %s: %s", ns->owns_out ? path : "stdout", limits);
	return 0;
}

static void ndjson_submit(void *state, struct enav_signal *s)
{
	struct ndjson_sink *ns = state;
	/* Refused before it costs a reference, a queue slot or an encoding. */
	if (!enav_ndjson_limit_admit(&ns->limit, s->kind, enav_clock_mono_ns()))
		return;
	enav_signal_ref(s);
	enav_export_worker_submit(ns->ew, s); /* refused: counted, and unref'd */
}

static void ndjson_fini(void *state, uint64_t deadline_mono_ns)
{
	struct ndjson_sink *ns = state;
	if (!ns)
		return;
	/* A reader that stopped reading blocks write(2) forever; the deadline
	 * outranks the unwritten lines, which are counted. */
	bool stalled = ns->ew && enav_export_worker_stop(ns->ew, deadline_mono_ns);
	ns->ew = NULL;
	if (ns->out.f && !stalled) {
		fflush(ns->out.f);
		if (ns->owns_out)
			fclose(ns->out.f);
	} else if (ns->out.f) {
		/* Drop what stdio still buffers, or exit() would block flushing it. */
		__fpurge(ns->out.f);
		if (ns->owns_out)
			fclose(ns->out.f);
	}
	free(ns->line);
	free(ns);
}

/* The limit and what it refused, per kind (ADR 0015). */
static void limit_metrics(const struct enav_ndjson_limit *l, struct enav_promtext *p)
{
	enav_promtext_family(p, "enav_ndjson_rate_limit_per_second", "gauge",
			     "Lines of a signal kind the NDJSON exporter writes per second at most "
			     "(0: no limit).");
	for (unsigned k = 1; k < ENAV_SIGNAL__COUNT; k++) {
		const char *lk[] = {"kind", enav_signal_kind_name((enum enav_signal_kind)k)};
		enav_promtext_sample_u64(p, "enav_ndjson_rate_limit_per_second", lk, 1,
					 enav_ndjson_limit_rate(l, (enum enav_signal_kind)k));
	}
	enav_promtext_family(
	    p, "enav_ndjson_rate_limited_total", "counter",
	    "Signals the NDJSON exporter did not write because their kind was over "
	    "its rate limit.");
	for (unsigned k = 1; k < ENAV_SIGNAL__COUNT; k++) {
		const char *lk[] = {"kind", enav_signal_kind_name((enum enav_signal_kind)k)};
		enav_promtext_sample_u64(p, "enav_ndjson_rate_limited_total", lk, 1,
					 enav_ndjson_limit_refused(l, (enum enav_signal_kind)k));
	}
}

static void ndjson_metrics(void *state, struct enav_promtext *p)
{
	struct ndjson_sink *ns = state;
	struct enav_export_stats st;
	enav_export_worker_stats(ns->ew, &st);
	const char *l[] = {"sink", "ndjson"};
	enav_promtext_family(p, "enav_sink_queue_depth", "gauge",
			     "Signals waiting in a sink queue.");
	enav_promtext_sample_u64(p, "enav_sink_queue_depth", l, 1, st.depth);
	enav_promtext_family(p, "enav_sink_queue_capacity", "gauge", "Sink queue capacity.");
	enav_promtext_sample_u64(p, "enav_sink_queue_capacity", l, 1, st.capacity);
	enav_promtext_family(p, "enav_sink_queue_high_water", "gauge",
			     "Highest queue depth seen since start.");
	enav_promtext_sample_u64(p, "enav_sink_queue_high_water", l, 1, st.high_water);
	enav_promtext_family(p, "enav_sink_written_total", "counter", "Signals a sink delivered.");
	enav_promtext_sample_u64(p, "enav_sink_written_total", l, 1, atomic_load(&ns->out.written));
	enav_promtext_family(p, "enav_sink_dropped_total", "counter",
			     "Signals a sink dropped, by reason (queue_full drops the newest).");
	const char *reasons[][2] = {{"queue_full", NULL},
				    {"line_too_long", NULL},
				    {"write_error", NULL},
				    {"shutdown_deadline", NULL},
				    {"rate_limited", NULL}};
	uint64_t vals[] = {st.drops[ENAV_EXPORT_DROP_QUEUE_FULL], atomic_load(&ns->too_long),
			   atomic_load(&ns->out.write_errors),
			   st.drops[ENAV_EXPORT_DROP_SHUTDOWN] + atomic_load(&ns->abandoned),
			   enav_ndjson_limit_refused_total(&ns->limit)};
	for (size_t i = 0; i < 5; i++) {
		const char *lr[] = {"sink", "ndjson", "reason", reasons[i][0]};
		enav_promtext_sample_u64(p, "enav_sink_dropped_total", lr, 2, vals[i]);
	}
	limit_metrics(&ns->limit, p);
}

bool enav_ndjson_enabled(const struct enav_config *cfg)
{
	return cfg->ndjson.enabled;
}

const struct enav_sink_ops enav_ndjson_sink_ops = {
    .init = ndjson_init,
    .submit = ndjson_submit,
    .fini = ndjson_fini,
    .metrics = ndjson_metrics,
};
