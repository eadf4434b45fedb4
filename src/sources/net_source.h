/* SPDX-License-Identifier: Apache-2.0 */
/* Network source: bpf/net.bpf.c on the user side (TCP connections, DNS). */
#ifndef ENAV_SOURCES_NET_SOURCE_H
#define ENAV_SOURCES_NET_SOURCE_H

#include "agent/agent.h"

extern const struct enav_source_ops enav_net_source_ops;
bool enav_net_source_enabled(const struct enav_config *cfg);

/* The first tracepoint the network source needs that has_tracepoint says
 * this kernel lacks, or NULL when all are there.  The sock_* ones (exact
 * byte counts) arrived in Linux 6.3. */
const char *enav_net_missing_tracepoint(bool (*has_tracepoint)(void *ctx, const char *name),
					void *ctx);

/* Bit per enum enav_l7_protocol enabled by sources.network.l7 (0: none). */
uint32_t enav_net_l7_protocols(const struct enav_config *cfg);

#endif
