/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Attribution: cgroup id -> cgroup path -> container / pod identity, and
 * pid -> the exec record, so an exit carries what its exec saw.
 *
 * Evidence rules: the cgroup path comes from the kernel itself (the cgroup id
 * opened as a kernfs file handle on the cgroup2 mount), never from matching
 * names, and the executable path comes from the kernel at exec.  Whatever
 * cannot be proven stays absent with a warning naming the reason.
 */
#ifndef ENAV_ENRICH_ATTRIBUTION_H
#define ENAV_ENRICH_ATTRIBUTION_H

#include "runtime/host.h"

extern const struct enav_processor_ops enav_attribution_ops;
bool enav_attribution_enabled(const struct enav_config *cfg);

/* The kernel's own path of cgroup id (a kernfs file handle on the cgroup2
 * mount), relative to the mount.  0, -ENOENT/-ESTALE (gone), -ERANGE
 * (outside the mount or too long), -EIO (not resolvable). */
int enav_cgroup_path_by_id(int cgroup2_fd, const char *mount, uint64_t id, char *out,
			   size_t outlen);

/* Strip the cgroup2 mount prefix from an absolute path; exposed for tests. */
int enav_cgroup_relative_path(const char *mount, const char *abs, char *out, size_t outlen);

/* The workload a signal belongs to, as one bounded label value:
 * "pod:<ns>/<name>", "container:<12 hex>", or "process:<comm>". */
struct enav_signal;
void enav_workload_key(const struct enav_signal *s, char *out, size_t len);

#endif
