/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Network metrics and dependency edges from tcp.* and dns.* signals:
 *  - counters and histograms on /metrics, every label set capped with an
 *    overflow series and a counter of what overflowed;
 *  - client -> server edges aggregated per interval and emitted as inferred
 *    network.edge signals, the server named by the DNS answers this node saw.
 */
#ifndef ENAV_FEATURES_NETWORK_NET_EDGES_H
#define ENAV_FEATURES_NETWORK_NET_EDGES_H

#include "runtime/host.h"

extern const struct enav_generator_ops enav_net_edges_ops;
bool enav_net_edges_enabled(const struct enav_config *cfg);
/* Bytes of exposition the edge families can take with max_edges totals. */
size_t enav_net_edges_exposition_bound(const struct enav_config *cfg);

#endif
