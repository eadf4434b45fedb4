/* SPDX-License-Identifier: Apache-2.0 */
/* Network source: bpf/network/net.bpf.c on the user side (TCP connections, DNS). */
#ifndef ENAV_FEATURES_NETWORK_NET_SOURCE_H
#define ENAV_FEATURES_NETWORK_NET_SOURCE_H

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
/* The program-name prefixes to leave unloaded: the byte-counting variant
 * (tracepoint or fexit) the hooks decision did not choose. */
void enav_net_byte_hook_skips(bool fexit_bytes, const char *skip[2]);

/* Bit per enum enav_l7_protocol enabled by sources.network.l7 (0: none). */
uint32_t enav_net_l7_protocols(const struct enav_config *cfg);

#endif
