/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Continuous profiling source: CPU samples, off-CPU and futex-wait time,
 * counted per stack in the kernel and drained into the agent's profile store
 * (src/features/profiling/profile_store.h).
 */
#ifndef ENAV_FEATURES_PROFILING_PROFILE_SOURCE_H
#define ENAV_FEATURES_PROFILING_PROFILE_SOURCE_H

#include "runtime/host.h"

extern const struct enav_source_ops enav_profile_source_ops;
bool enav_profile_source_enabled(const struct enav_config *cfg);
/* Whether the unwinder has loaded tgid's mappings (true when the unwinder
 * is off: there is nothing to wait for).  state: what start returned. */
bool enav_profile_source_unwind_ready(void *state, uint32_t tgid);

#endif
