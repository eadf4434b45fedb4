/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/net_source.h"

#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "platform/u64map.h"
#include "net_perf.skel.h"
#include "net_ringbuf.skel.h"
#include "features/network/dns.h"
#include "features/network/l7/l7_conn.h"
#include "runtime/bpf_source.h"
#include "features/network/net_decode.h"
#include "features/network/tls/tls_attach.h"

ENAV_SKEL_OPS(net_ringbuf);
ENAV_SKEL_OPS(net_perf);

/* Outstanding DNS queries awaiting their response, for the latency. */
#define DNS_PENDING_MAX	   4096
#define DNS_PENDING_TTL_NS (10ull * 1000000000ull)

struct net_source {
	struct enav_bpf_source bpf;
	struct enav_u64map dns_pending; /* (pid, port, id) -> query boot ns */
	_Atomic uint64_t dns_parse_errors[ENAV_DNS_ERROR_COUNT];
	_Atomic uint64_t dns_pending_full;
	_Atomic uint64_t dns_pending_expired;
	struct enav_dns_message dns_scratch; /* capture thread only */
	struct enav_l7_tracker *l7;	     /* NULL: application protocols off */
	uint64_t l7_last_expire_ns;
	struct enav_tls_attach *tls; /* NULL: TLS plaintext off */
	struct enav_host *host;
	bool tls_wanted; /* configured: read-only global of the kernel side */
};

static void set_process(struct enav_signal *s, const struct enav_event_header *h,
			const char comm[ENAV_COMM_LEN])
{
	struct enav_process_signal *p = &s->process;
	p->pid = h->pid;
	p->tid = h->tid;
	p->cgroup_id = h->cgroup_id;
	size_t n = strnlen(comm, ENAV_COMM_LEN);
	memcpy(p->comm, comm, n);
	p->comm[n] = '\0';
}

static void set_tuple(struct enav_net_signal *n, __u16 family, __u16 sport, __u16 dport,
		      const __u8 *saddr, const __u8 *daddr)
{
	n->family = family == 10 ? 6 : 4;
	n->local_port = sport;
	n->remote_port = dport;
	memcpy(n->local_addr, saddr, 16);
	memcpy(n->remote_addr, daddr, 16);
}

static struct enav_signal *tcp_signal(const struct enav_tcp_event *e)
{
	static const enum enav_signal_kind kinds[] = {
	    [ENAV_TCP_OPEN] = ENAV_SIGNAL_TCP_OPEN,
	    [ENAV_TCP_CLOSE] = ENAV_SIGNAL_TCP_CLOSE,
	    [ENAV_TCP_FAILED] = ENAV_SIGNAL_TCP_FAILED,
	};
	struct enav_signal *s = enav_signal_new(kinds[e->kind], 0);
	if (!s)
		return NULL;
	s->time_unix_ns = enav_clock_boot_to_unix_ns(e->hdr.boot_time_ns);
	set_process(s, &e->hdr, e->comm);
	struct enav_net_signal *n = &s->net;
	set_tuple(n, e->family, e->sport, e->dport, e->saddr, e->daddr);
	n->role = e->role;
	n->flags = e->flags;
	n->oldstate = e->oldstate;
	n->newstate = e->newstate;
	n->bytes_sent = e->bytes_sent;
	n->bytes_received = e->bytes_received;
	n->retransmits = e->retransmits;
	n->srtt_us = e->srtt_us;
	n->start_time_unix_ns = enav_clock_boot_to_unix_ns(e->start_boot_ns);
	if (e->hdr.boot_time_ns > e->start_boot_ns)
		n->duration_ns = e->hdr.boot_time_ns - e->start_boot_ns;
	if (e->flags & ENAV_TCP_PREDATES_ATTACH)
		enav_signal_warn(s, "bytes", "counted_since_attach_only");
	return s;
}

/* Drop queries older than the longest a resolver waits (O(n), only when full). */
static void expire_pending(struct net_source *src, uint64_t now_boot_ns)
{
	struct enav_u64map *m = &src->dns_pending;
	for (uint32_t i = 0; i <= m->mask; i++) {
		/* Deleting shifts later entries back into i: look at i again. */
		while (m->slots[i].used && now_boot_ns - m->slots[i].value > DNS_PENDING_TTL_NS) {
			if (!enav_u64map_del(m, m->slots[i].key))
				break;
			atomic_fetch_add(&src->dns_pending_expired, 1);
		}
	}
}

static uint64_t dns_key(uint32_t pid, uint16_t port, uint16_t id)
{
	return ((uint64_t)pid << 32) | ((uint64_t)port << 16) | id;
}

/* A query is remembered; a response becomes a signal. */
static struct enav_signal *dns_signal(struct net_source *src, const struct enav_net_decoded *d)
{
	const struct enav_dns_event *e = &d->dns.head;
	/* Parse into the source's scratch message (33 KiB at its worst) and give
	 * the signal only the answers the message has. */
	struct enav_dns_message *m = &src->dns_scratch;
	int rc = enav_dns_parse(d->dns.payload, e->captured_len, e->payload_len, e->tcp, m);
	if (rc != ENAV_DNS_OK) {
		atomic_fetch_add(&src->dns_parse_errors[-rc < ENAV_DNS_ERROR_COUNT ? -rc : 0], 1);
		return NULL;
	}
	uint64_t key = dns_key(e->hdr.pid, e->sport, m->id);
	if (!m->is_response) {
		/* Client: the query it sent; server: the query it received. */
		if (enav_u64map_put(&src->dns_pending, key, e->hdr.boot_time_ns) != 0) {
			/* Full: queries unanswered for DNS_PENDING_TTL_NS never will be. */
			expire_pending(src, e->hdr.boot_time_ns);
			if (enav_u64map_put(&src->dns_pending, key, e->hdr.boot_time_ns) != 0)
				atomic_fetch_add(&src->dns_pending_full, 1);
		}
		return NULL;
	}
	uint32_t n = m->n_answers < ENAV_DNS_MAX_ANSWERS ? m->n_answers : ENAV_DNS_MAX_ANSWERS;
	size_t used = offsetof(struct enav_dns_message, answers) + n * sizeof(m->answers[0]);
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_DNS, (uint32_t)used);
	if (!s)
		return NULL;
	m = memcpy(enav_signal_tail(s), m, used);
	s->time_unix_ns = enav_clock_boot_to_unix_ns(e->hdr.boot_time_ns);
	set_process(s, &e->hdr, e->comm);
	set_tuple(&s->net, e->family, e->sport, e->dport, e->saddr, e->daddr);
	s->net.dns = m;
	s->net.dns_payload_len = e->payload_len;
	s->net.dns_direction = e->direction;
	s->net.dns_tcp = e->tcp;
	uint64_t sent;
	if (enav_u64map_get(&src->dns_pending, key, &sent)) {
		enav_u64map_del(&src->dns_pending, key);
		if (e->hdr.boot_time_ns >= sent) {
			s->net.dns_has_latency = true;
			s->net.dns_latency_ns = e->hdr.boot_time_ns - sent;
		}
	} else {
		enav_signal_warn(s, "latency", "query_not_observed");
	}
	return s;
}

static void emit_span(void *ctx, struct enav_signal *s)
{
	enav_host_emit(ctx, s);
}

static void on_event(void *ctx, const void *data, size_t size)
{
	struct net_source *src = ctx;
	struct enav_net_decoded d;
	enum enav_decode_status st = enav_net_decode(data, size, &d);
	if (st != ENAV_DECODE_OK) {
		atomic_fetch_add(&src->bpf.decode_errors[st], 1);
		return;
	}
	atomic_fetch_add(&src->bpf.events[d.type], 1);
	if (d.type == ENAV_EVENT_L7_DATA) {
		if (!src->l7)
			return;
		if (d.l7.has_carry) { /* bytes moved before this record's */
			struct enav_l7_event carried;
			enav_net_l7_carried_event(&d.l7.head, &d.l7.carry, &carried);
			enav_l7_tracker_data(src->l7, &carried, d.l7.payload);
		}
		enav_l7_tracker_data(src->l7, &d.l7.head, d.l7.payload);
		/* Idle connections are finished about once a second. */
		uint64_t now = d.l7.head.hdr.boot_time_ns;
		if (now - src->l7_last_expire_ns > 1000000000ull) {
			src->l7_last_expire_ns = now;
			enav_l7_tracker_expire(src->l7, now);
		}
		return;
	}
	struct enav_signal *s = d.type == ENAV_EVENT_TCP ? tcp_signal(&d.tcp) : dns_signal(src, &d);
	/* A closed connection's last operations are complete now. */
	if (src->l7 && d.type == ENAV_EVENT_TCP && d.tcp.kind != ENAV_TCP_OPEN)
		enav_l7_tracker_close(src->l7, d.tcp.sock_id);
	if (s)
		enav_host_emit(src->bpf.host, s);
}

static void net_stop(void *state)
{
	struct net_source *src = state;
	if (!src)
		return;
	if (src->tls) {
		enav_host_unwatch_exec(src->host, src->tls);
		enav_tls_attach_stop(src->tls);
	}
	enav_bpf_source_close(&src->bpf);
	enav_l7_tracker_free(src->l7);
	enav_u64map_destroy(&src->dns_pending);
	free(src);
}

/* Protocol bit mask from sources.network.l7 (an empty list is every one). */
uint32_t enav_net_l7_protocols(const struct enav_config *cfg)
{
	if (!cfg->network.l7.enabled)
		return 0;
	uint32_t mask = 0;
	for (unsigned p = 0; p < ENAV_L7__COUNT; p++) {
		if (!enav_protocol_selectable(enav_protocol(p)))
			continue;
		bool want = cfg->network.l7.protocols.n == 0;
		for (uint32_t i = 0; i < cfg->network.l7.protocols.n; i++)
			want |= strcmp(cfg->network.l7.protocols.item[i],
				       enav_l7_protocol_name(p)) == 0;
		if (want)
			mask |= 1u << p;
	}
	return mask;
}

/* TLS libraries from sources.network.tls.libraries (empty: all). */
static bool tls_library_wanted(const struct enav_config *cfg, const char *name)
{
	if (cfg->network.tls.libraries.n == 0)
		return true;
	for (uint32_t i = 0; i < cfg->network.tls.libraries.n; i++)
		if (strcmp(cfg->network.tls.libraries.item[i], name) == 0)
			return true;
	return false;
}

static void configure(void *ctx)
{
	struct net_source *src = ctx;
	const struct enav_config *cfg = enav_host_config(src->bpf.host);
	bool tls = src->tls_wanted;
	/* Payload code refused inside the socket programs: they load without it. */
	bool payload = !enav_bpf_source_feature_refused(&src->bpf, "payload_capture");
	struct bpf_object *obj = src->bpf.obj;
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_conns"),
				 cfg->network.max_connections);
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_tls_calls"),
				 cfg->network.tls.max_inflight);
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_go_tls_calls"),
				 cfg->network.tls.max_inflight);
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_tls_sessions"),
				 cfg->network.tls.max_sessions);
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_go_tls_binaries"),
				 cfg->network.tls.max_binaries);
	struct enav_bpf_source *b = &src->bpf;
	enav_bpf_source_rodata_u32(b, "enav_tls_enabled", tls);
	enav_bpf_source_rodata_u64(b, "enav_wakeup_bytes", cfg->kernel.wakeup_bytes);
	enav_bpf_source_rodata_u32(b, "enav_dns_capture",
				   payload ? cfg->network.dns_capture_bytes : 0);
	enav_bpf_source_rodata_u32(b, "enav_l7_protocols",
				   payload ? enav_net_l7_protocols(cfg) : 0);
	enav_bpf_source_rodata_u32(b, "enav_l7_capture", cfg->network.l7.capture_bytes);
	enav_bpf_source_rodata_u32(b, "enav_l7_h2_capture", cfg->network.l7.http2_capture_bytes);
}

const char *enav_net_missing_tracepoint(bool fexit_bytes,
					bool (*has_tracepoint)(void *ctx, const char *name),
					void *ctx)
{
	static const char *const needed[] = {"inet_sock_set_state", "tcp_retransmit_skb",
					     "sock_send_length", "sock_recv_length"};
	/* With fexit the bytes come from tcp_sendmsg/tcp_recvmsg instead. */
	size_t n = fexit_bytes ? 2 : 4;
	for (size_t i = 0; i < n; i++)
		if (!has_tracepoint(ctx, needed[i]))
			return needed[i];
	return NULL;
}

/* Every tracepoint of a BTF kernel has a btf_trace_<name> typedef: the
 * probe looked them up (enav_features_has_tracepoint). */
static bool btf_has_tracepoint(void *ctx, const char *name)
{
	return enav_features_has_tracepoint(ctx, name);
}

static int net_start(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	struct net_source *src = calloc(1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	*state = src;
	/* A kernel without the hooks exact byte counts need: no network signals
	 * at all rather than connections with bytes we cannot prove. */
	enum enav_payload_hook payload_hook = enav_host_decisions(a)->payload_hook;
	bool fexit_bytes = payload_hook == ENAV_PAYLOAD_FEXIT;
	uint32_t protocols = enav_net_l7_protocols(cfg);
	bool compat = fexit_bytes && enav_host_decisions(a)->payload_compat;
	struct enav_net_hooks hooks = {
	    .payload_hook = payload_hook,
	    .dns = cfg->network.dns_capture_bytes > 0,
	    .compat = compat,
	};
	const struct enav_features *features = enav_host_features(a);
	if (features->vmlinux_parsed) {
		const char *missing =
		    enav_net_missing_tracepoint(fexit_bytes, btf_has_tracepoint, (void *)features);
		hooks.has_sendpage = enav_features_has_func(features, "tcp_sendpage");
		hooks.has_udpv6 = enav_features_has_func(features, "udpv6_sendmsg") &&
				  enav_features_has_func(features, "udpv6_recvmsg");
		if (missing) {
			char why[192];
			snprintf(why, sizeof(why),
				 "this kernel has no %s tracepoint (sock_send_length and "
				 "sock_recv_length need Linux 6.3+, or hooks: fexit)",
				 missing);
			enav_feature_record("network", "all", ENAV_FEATURE_HOOK_MISSING, NULL, why);
			if (enav_config_explicitly_on(cfg, "sources.network.enabled")) {
				snprintf(err, errlen,
					 "network: %s (sources.network.enabled is set "
					 "in the configuration)",
					 why);
				return -ENOTSUP;
			}
			enav_warn("network: %s; the network source is off", why);
			return 0;
		}
	}
	if (enav_u64map_init(&src->dns_pending, DNS_PENDING_MAX))
		return -ENOMEM;
	src->bpf.event_types =
	    (1u << ENAV_EVENT_TCP) | (1u << ENAV_EVENT_DNS) | (1u << ENAV_EVENT_L7_DATA);
	if (protocols) {
		struct enav_l7_tracker_config tc = {
		    .max_connections = cfg->network.l7.max_connections,
		    .idle_timeout_ms = cfg->network.l7.idle_timeout_ms,
		    .protocols = protocols,
		    .options = {.keep_query = cfg->network.l7.keep_query,
				.sanitized_statement = cfg->network.l7.sanitized_statement,
				.max_pending = cfg->network.l7.max_pending},
		    .links = enav_host_span_links(a),
		};
		src->l7 = enav_l7_tracker_new(&tc, emit_span, a);
		if (!src->l7)
			return -ENOMEM;
	}
	int rc = enav_bpf_source_open(&src->bpf, a, "network", &net_ringbuf_ops, &net_perf_ops, err,
				      errlen);
	if (rc)
		return rc;
	/* TLS plaintext feeds the application-protocol parsers: nothing to do
	 * without them. */
	src->tls_wanted = protocols && cfg->network.tls.enabled;
	src->bpf.configure = configure;
	src->bpf.configure_ctx = src;
	configure(src);
	/*
	 * Payload capture (DNS, application protocols): in the socket-level
	 * programs where the probe chose them, which then also count bytes, so a
	 * refusal of the payload code loads them again without it; in the
	 * sys_exit program on the fallback, which every syscall on the node pays
	 * for, so it is not loaded when no payload is wanted.  TLS plaintext
	 * comes from uprobes instead.  The table (net_programs.c) says which
	 * program loads under which of these conditions.
	 */
	src->bpf.programs = &enav_net_programs;
	src->bpf.conditions = enav_net_conditions(&hooks);
	bool payload = cfg->network.dns_capture_bytes > 0 || protocols;
	enav_bpf_source_want(&src->bpf,
			     payload_hook == ENAV_PAYLOAD_SYS_EXIT
				 ? &enav_net_payload_sys_exit_feature
				 : &enav_net_payload_in_core_feature,
			     payload);
	if (fexit_bytes && hooks.dns)
		enav_bpf_source_want(&src->bpf, &enav_net_dns_udp_feature, true);
	enav_bpf_source_want(&src->bpf, &enav_net_tls_feature, src->tls_wanted);
	if (!compat) {
		enav_bpf_source_want(&src->bpf, &enav_net_go_tls_feature, src->tls_wanted);
	} else if (src->tls_wanted && tls_library_wanted(cfg, "go")) {
		/* Go's probes need the cookie this kernel's helper set lacks. */
		static const char why[] = "Go TLS probes need bpf_get_attach_cookie (Linux 5.15+)";
		enav_feature_record("network", "go_tls", ENAV_FEATURE_HOOK_MISSING, NULL, why);
		/* Asked for in the file: never off quietly (as a refusal). */
		/* The same switch the feature's row names, not a second spelling. */
		const char *key = enav_config_bool_key(enav_net_go_tls_feature.config_bool);
		if (enav_config_explicitly_on(cfg, key)) {
			snprintf(err, errlen,
				 "network feature go_tls: %s (%s is set in the configuration; "
				 "sources.network.tls.libraries without go leaves Go out)",
				 why, key);
			return -ENOTSUP;
		}
		enav_warn("network: feature go_tls is off: %s", why);
	}
	rc = enav_bpf_source_start(&src->bpf, on_event, src, err, errlen);
	bool openssl_gnutls = enav_bpf_source_feature_on(&src->bpf, "tls");
	bool go = !compat && enav_bpf_source_feature_on(&src->bpf, "go_tls");
	if (rc || !(openssl_gnutls || go) || enav_host_load_only(a))
		return rc;
	struct enav_tls_attach_config tc = {
	    .openssl = openssl_gnutls && tls_library_wanted(cfg, "openssl"),
	    .gnutls = openssl_gnutls && tls_library_wanted(cfg, "gnutls"),
	    .go = go && tls_library_wanted(cfg, "go"),
	    .max_binaries = cfg->network.tls.max_binaries,
	    .max_probes = cfg->network.tls.max_probes,
	    .scan_interval_ms = cfg->network.tls.scan_interval_ms,
	    .max_file_bytes = cfg->network.tls.max_file_bytes,
	    .max_file_ms = cfg->network.tls.max_file_ms,
	    .self_pid = enav_host_self_pid(a),
	    .compat = compat,
	};
	src->tls = enav_tls_attach_start(src->bpf.obj, &tc, err, errlen);
	if (!src->tls)
		return -ENOMEM;
	src->host = a;
	if (enav_host_watch_exec(a, enav_tls_attach_notify_exec, src->tls) != 0)
		enav_warn("tls: no exec watcher slot left: new binaries are found by the "
			  "periodic scan only");
	return 0;
}

static void net_metrics(void *state, struct enav_promtext *p)
{
	struct net_source *src = state;
	enav_promtext_family(p, "enav_dns_parse_errors_total", "counter",
			     "Captured DNS payloads the parser rejected, by reason.");
	for (int r = 1; r < ENAV_DNS_ERROR_COUNT; r++) {
		const char *l[] = {"reason", enav_dns_strerror(-r)};
		enav_promtext_sample_u64(p, "enav_dns_parse_errors_total", l, 1,
					 atomic_load(&src->dns_parse_errors[r]));
	}
	enav_promtext_single_u64(p, "enav_dns_pending_dropped_total", "counter",
				 "DNS queries not remembered because the pending table was full.",
				 atomic_load(&src->dns_pending_full));
	enav_promtext_single_u64(p, "enav_dns_pending_expired_total", "counter",
				 "DNS queries forgotten unanswered after 10 s to make room.",
				 atomic_load(&src->dns_pending_expired));
	if (src->l7)
		enav_l7_tracker_metrics(src->l7, p);
	if (src->tls)
		enav_tls_attach_metrics(src->tls, p);
}

bool enav_net_source_enabled(const struct enav_config *cfg)
{
	return cfg->network.enabled;
}

const struct enav_source_ops enav_net_source_ops = {
    .start = net_start,
    .stop = net_stop,
    .metrics = net_metrics,
};
