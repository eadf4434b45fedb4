/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload discovery: watches the cgroup2 tree (inotify, plus a periodic
 * rescan as the loss-recovery path), decides a capture verdict per cgroup from
 * the layout proof, the selectors and the Kubernetes view, writes the verdicts
 * to the kernel, and publishes an immutable snapshot that attribution reads.
 * Verdicts and snapshot come from the same decision pass, so a captured event
 * is always attributed with the view that admitted it.
 */
#ifndef ENAV_DISCOVERY_DISCOVERY_H
#define ENAV_DISCOVERY_DISCOVERY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "runtime/host.h"
#include "discovery/k8s.h"
#include "model/cgroup_path.h"

struct enav_snapshot_entry {
	uint64_t id; /* cgroup2 inode = bpf_get_current_cgroup_id() */
	const char *path;
	struct enav_cgroup_identity identity;
	bool capture;
	const char *reason;		/* why the verdict is what it is (static string) */
	const struct enav_k8s_pod *pod; /* in snapshot->k8s, or NULL */
};

struct enav_snapshot {
	_Atomic uint32_t refs;
	uint64_t generation;
	bool filtering;		   /* capture.mode is not "all" */
	struct enav_k8s_view *k8s; /* NULL without a controller */
	uint32_t n;
	struct enav_snapshot_entry *entries; /* sorted by id */
	char *arena;
};

struct enav_discovery;

extern const struct enav_discovery_ops enav_discovery_module_ops;
bool enav_discovery_enabled(const struct enav_config *cfg);

/* Current and previous snapshots (either may be NULL); release both. */
void enav_discovery_acquire(struct enav_discovery *d, struct enav_snapshot **cur,
			    struct enav_snapshot **prev);
void enav_snapshot_release(struct enav_snapshot *s);
/* enav_snapshot_release for a signal pin (enav_signal_pin): a snapshot
 * attribution pinned is found again with enav_signal_pinned(s, this). */
void enav_snapshot_unpin(void *snapshot);
struct enav_cgroup_mounts;
/* The cgroup layout discovery read at start (immutable afterwards). */
const struct enav_cgroup_mounts *enav_discovery_mounts(const struct enav_discovery *d);

const struct enav_snapshot_entry *enav_snapshot_find(const struct enav_snapshot *s, uint64_t id);

#endif
