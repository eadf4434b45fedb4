/* SPDX-License-Identifier: Apache-2.0 */
/* The agent watching its own kernel state: bpf/self_guard.bpf.c on the
 * user side, plus a periodic check of the capture filter maps. */
#ifndef ENAV_SOURCES_SELF_GUARD_SOURCE_H
#define ENAV_SOURCES_SELF_GUARD_SOURCE_H

#include "agent/agent.h"

extern const struct enav_source_ops enav_self_guard_source_ops;
bool enav_self_guard_source_enabled(const struct enav_config *cfg);

#endif
