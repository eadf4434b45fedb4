/* SPDX-License-Identifier: Apache-2.0 */
/* Network source: bpf/net.bpf.c on the user side (TCP connections, DNS). */
#ifndef ENAV_SOURCES_NET_SOURCE_H
#define ENAV_SOURCES_NET_SOURCE_H

#include "agent/agent.h"

extern const struct enav_source_ops enav_net_source_ops;
bool enav_net_source_enabled(const struct enav_config *cfg);

#endif
