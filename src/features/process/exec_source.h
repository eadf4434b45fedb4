/* SPDX-License-Identifier: Apache-2.0 */
/* Process exec/exit source: bpf/process/exec.bpf.c on the user side. */
#ifndef ENAV_FEATURES_PROCESS_EXEC_SOURCE_H
#define ENAV_FEATURES_PROCESS_EXEC_SOURCE_H

#include "runtime/bpf_program_table.h"
#include "runtime/host.h"

extern const struct enav_source_ops enav_exec_source_ops;
/* Every program of exec.bpf.c (the unit tests check the choice). */
extern const struct enav_bpf_program_table enav_exec_programs;
bool enav_exec_source_enabled(const struct enav_config *cfg);

#endif
