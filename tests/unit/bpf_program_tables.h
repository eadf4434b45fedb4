/* SPDX-License-Identifier: Apache-2.0 */
/* Every BPF source's program table, for the tests that check them all. */
#ifndef ENAV_TESTS_UNIT_BPF_PROGRAM_TABLES_H
#define ENAV_TESTS_UNIT_BPF_PROGRAM_TABLES_H

#include "features/network/net_source.h"
#include "features/process/exec_source.h"
#include "features/profiling/profile_source.h"
#include "features/security/file_open_source.h"
#include "features/security/self_guard_source.h"
#include "runtime/bpf_program_table.h"

static const struct enav_bpf_program_table *const bpf_program_tables[] = {
    &enav_exec_programs,    &enav_self_guard_programs, &enav_file_open_programs,
    &enav_profile_programs, &enav_net_programs,
};

#endif
