/* SPDX-License-Identifier: Apache-2.0 */
/* Network source: bpf/network/net.bpf.c on the user side (TCP connections, DNS). */
#ifndef ENAV_FEATURES_NETWORK_NET_SOURCE_H
#define ENAV_FEATURES_NETWORK_NET_SOURCE_H

#include "probe/features.h"
#include "runtime/bpf_program_table.h"
#include "runtime/host.h"

extern const struct enav_source_ops enav_net_source_ops;
bool enav_net_source_enabled(const struct enav_config *cfg);

/* The first tracepoint the network source needs that has_tracepoint says
 * this kernel lacks, or NULL when all are there.  The sock_* ones (exact
 * byte counts) arrived in Linux 6.3; with fexit_bytes (hooks: fexit) the
 * bytes come from fexit on tcp_sendmsg/tcp_recvmsg and they are not needed. */
const char *enav_net_missing_tracepoint(bool fexit_bytes,
					bool (*has_tracepoint)(void *ctx, const char *name),
					void *ctx);
/* What decides which of the network object's socket-level programs load
 * (bpf/network/net_payload.bpf.h). */
struct enav_net_hooks {
	enum enav_payload_hook payload_hook; /* the probe's decision */
	bool has_sendpage;		     /* tcp_sendpage in vmlinux BTF (before 6.5) */
	bool has_udpv6;			     /* udpv6_sendmsg/recvmsg in vmlinux BTF */
	bool dns;			     /* DNS capture on */
	bool compat; /* fexit's compat set (enav_compat_*): the probe's payload_compat */
};

/* The condition bits the rows of enav_net_programs are chosen by. */
enum enav_net_condition {
	ENAV_NET_PAYLOAD_FEXIT = 1u << 0,     /* the probe chose fexit */
	ENAV_NET_PAYLOAD_SOCKET_TP = 1u << 1, /* ... the socket tracepoints */
	ENAV_NET_PAYLOAD_SYS_EXIT = 1u << 2,  /* ... the sys_exit fallback */
	ENAV_NET_COMPAT = 1u << 3,	      /* fexit's compat set (only with fexit) */
	ENAV_NET_HAS_SENDPAGE = 1u << 4,
	ENAV_NET_HAS_UDPV6 = 1u << 5,
	ENAV_NET_DNS = 1u << 6, /* DNS capture on */
};

/* The conditions h stands for. */
uint32_t enav_net_conditions(const struct enav_net_hooks *h);

/* Every program of bpf/network/net.bpf.c, and its features (net_programs.c). */
extern const struct enav_bpf_program_table enav_net_programs;
extern const struct enav_bpf_feature_spec enav_net_payload_in_core_feature;
extern const struct enav_bpf_feature_spec enav_net_payload_sys_exit_feature;
extern const struct enav_bpf_feature_spec enav_net_dns_udp_feature;
extern const struct enav_bpf_feature_spec enav_net_tls_feature;
extern const struct enav_bpf_feature_spec enav_net_go_tls_feature;

/* Bit per enum enav_l7_protocol enabled by sources.network.l7 (0: none). */
uint32_t enav_net_l7_protocols(const struct enav_config *cfg);

#endif
