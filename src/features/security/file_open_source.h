/* SPDX-License-Identifier: Apache-2.0 */
/* Opens of watched files: bpf/security/file_open.bpf.c on the user side. */
#ifndef ENAV_FEATURES_SECURITY_FILE_OPEN_SOURCE_H
#define ENAV_FEATURES_SECURITY_FILE_OPEN_SOURCE_H

#include "runtime/bpf_program_table.h"
#include "runtime/host.h"

extern const struct enav_source_ops enav_file_open_source_ops;
bool enav_file_open_source_enabled(const struct enav_config *cfg);
/* Every program of file_open.bpf.c (the unit tests check the choice). */
extern const struct enav_bpf_program_table enav_file_open_programs;

/* The kernel's dev_t (MKDEV: major << 20 | minor) for a stat(2) st_dev. */
uint64_t enav_kernel_dev(uint64_t st_dev);
/* "read", "write" or "read_write" for open flags. */
const char *enav_open_access(uint32_t flags);

#endif
