/* SPDX-License-Identifier: Apache-2.0 */
/* The host resources source module (see host.h). */
#ifndef ENAV_FEATURES_NODE_NODE_SOURCE_H
#define ENAV_FEATURES_NODE_NODE_SOURCE_H

#include "runtime/host.h"

extern const struct enav_source_ops enav_node_source_ops;
bool enav_node_source_enabled(const struct enav_config *cfg);
/* Bytes of the node and cgroup block at most (its hard cap, and the module
 * row's exposition_bound). */
size_t enav_node_source_exposition_bound(const struct enav_config *cfg);

#endif
