/* SPDX-License-Identifier: Apache-2.0 */
/* The agent watching its own kernel state: bpf/security/self_guard.bpf.c on the
 * user side, plus a periodic check of the capture filter maps. */
#ifndef ENAV_FEATURES_SECURITY_SELF_GUARD_SOURCE_H
#define ENAV_FEATURES_SECURITY_SELF_GUARD_SOURCE_H

#include "runtime/bpf_program_table.h"
#include "runtime/host.h"

extern const struct enav_source_ops enav_self_guard_source_ops;
bool enav_self_guard_source_enabled(const struct enav_config *cfg);
/* Every program of self_guard.bpf.c (the unit tests check the choice). */
extern const struct enav_bpf_program_table enav_self_guard_programs;

#endif
