/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which cgroup hierarchies a node has, and whether a workload's cgroup2 path
 * can be trusted as its identity.  Pure parsing and decision code: the I/O
 * (reading mountinfo, /proc/PID/cgroup, stat) is done by the caller, so the
 * rules are unit-tested on recorded fixtures of v1, hybrid and v2 hosts.
 *
 * The proof rule (docs/adr/0006-capture-filter.md): bpf_get_current_cgroup_id()
 * names the task's cgroup2 directory.  On a hybrid host that id identifies a
 * workload only when the runtime placed the workload at the same path in every
 * v1 hierarchy too, because that is how a runtime that manages the cgroup2
 * path lays it out.  So a cgroup2 path P is proven when, for every mounted v1
 * hierarchy H, H/P exists, and every sampled member process sits at P in H.
 */
#ifndef ENAV_DISCOVERY_CGROUP_LAYOUT_H
#define ENAV_DISCOVERY_CGROUP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#include "probe/features.h"

#define ENAV_CGROUP_MAX_V1	   24
#define ENAV_CGROUP_CTRL_MAX	   128
#define ENAV_CGROUP_MOUNT_PATH_MAX 256
#define ENAV_CGROUP_REL_PATH_MAX   1024

struct enav_cgroup_mounts {
	enum enav_cgroup_layout layout;
	char v2_mount[ENAV_CGROUP_MOUNT_PATH_MAX]; /* "" when none */
	unsigned n_v1;
	struct {
		/* Controllers of the hierarchy, sorted and comma-joined
		 * ("cpu,cpuacct", "memory", "name=systemd"). */
		char controllers[ENAV_CGROUP_CTRL_MAX];
		char mount[ENAV_CGROUP_MOUNT_PATH_MAX];
	} v1[ENAV_CGROUP_MAX_V1];
	bool v1_truncated; /* more hierarchies than ENAV_CGROUP_MAX_V1: cannot prove */
};

struct enav_proc_cgroups {
	bool has_v2;
	char v2[ENAV_CGROUP_REL_PATH_MAX];
	unsigned n_v1;
	struct {
		char controllers[ENAV_CGROUP_CTRL_MAX]; /* sorted, comma-joined */
		char path[ENAV_CGROUP_REL_PATH_MAX];
	} v1[ENAV_CGROUP_MAX_V1];
	bool truncated;
};

/* Parse /proc/self/mountinfo text.  Returns 0, or -1 on malformed input. */
int enav_cgroup_parse_mountinfo(const char *text, size_t len, struct enav_cgroup_mounts *out);

/* Parse /proc/PID/cgroup text.  Returns 0, or -1 on malformed input. */
int enav_cgroup_parse_proc(const char *text, size_t len, struct enav_proc_cgroups *out);

enum enav_hybrid_result {
	ENAV_HYBRID_PROVEN = 0,
	ENAV_HYBRID_V1_DIR_MISSING,    /* the runtime did not lay out H/P */
	ENAV_HYBRID_V1_PATH_DIFFERS,   /* a member process sits elsewhere in H */
	ENAV_HYBRID_MEMBER_UNREADABLE, /* a member's /proc/PID/cgroup lacks H */
	ENAV_HYBRID_TOO_MANY_HIERARCHIES,
	ENAV_HYBRID__COUNT,
};

typedef bool (*enav_dir_exists_fn)(void *ctx, const char *abs_path);

/*
 * Decide the proof for cgroup2-relative path v2_path ("/a/b").  members are
 * parsed /proc/PID/cgroup of processes currently in it (may be none).  On
 * failure, *which names the v1 hierarchy (controllers) that failed.
 */
enum enav_hybrid_result enav_hybrid_prove(const struct enav_cgroup_mounts *m, const char *v2_path,
					  enav_dir_exists_fn dir_exists, void *ctx,
					  const struct enav_proc_cgroups *members, size_t n_members,
					  const char **which);

const char *enav_hybrid_result_name(enum enav_hybrid_result r);

#endif
