/* SPDX-License-Identifier: Apache-2.0 */
/* Network source: bpf/network/net.bpf.c on the user side (TCP connections, DNS). */
#ifndef ENAV_FEATURES_NETWORK_NET_SOURCE_H
#define ENAV_FEATURES_NETWORK_NET_SOURCE_H

#include "probe/features.h"
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

#define ENAV_NET_MAX_SKIPS 8

/* The program-name prefixes to leave unloaded: every hook set but the one
 * the probe chose (socket tracepoints, fexit, or the sys_exit fallback),
 * and its parts this kernel or configuration has no use for.  Returns how
 * many were written. */
size_t enav_net_hook_skips(const struct enav_net_hooks *h, const char *skip[ENAV_NET_MAX_SKIPS]);

/* Bit per enum enav_l7_protocol enabled by sources.network.l7 (0: none). */
uint32_t enav_net_l7_protocols(const struct enav_config *cfg);

#endif
