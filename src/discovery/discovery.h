/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload discovery: watches the cgroup2 tree (inotify, plus a periodic
 * rescan as the loss-recovery path), decides a capture verdict per cgroup from
 * the layout proof, the selectors and the Kubernetes view, writes the verdicts
 * to the kernel, and publishes an immutable snapshot that attribution reads.
 * Verdicts and snapshot come from the same decision pass, and the snapshot is
 * published before its verdicts are written, so a captured event is
 * attributed with the view that admitted it (snapshot_history.h).
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
	uint64_t published_unix_ns; /* its verdicts were written after this */
	bool filtering;		    /* capture.mode is not "all" */
	struct enav_k8s_view *k8s;  /* NULL without a controller */
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

enum enav_governing {
	ENAV_GOVERNED_BY_ENTRY, /* the entry of a held snapshot decided it */
	ENAV_GOVERNED_UNKNOWN,	/* no entry: the cgroup was unknown to discovery */
	ENAV_GOVERNED_NOT_HELD, /* the snapshot that admitted it was released */
};
/* The snapshot (referenced: release it) and entry whose verdict let a signal
 * of cgroup id at time_unix_ns through; see snapshot_history.h. */
enum enav_governing enav_discovery_governing(struct enav_discovery *d, uint64_t time_unix_ns,
					     uint64_t id, struct enav_snapshot **snap,
					     const struct enav_snapshot_entry **entry);
void enav_snapshot_release(struct enav_snapshot *s);
/* enav_snapshot_release for a signal pin (enav_signal_pin): a snapshot
 * attribution pinned is found again with enav_signal_pinned(s, this). */
void enav_snapshot_unpin(void *snapshot);
struct enav_cgroup_mounts;
/* The cgroup layout discovery read at start (immutable afterwards). */
const struct enav_cgroup_mounts *enav_discovery_mounts(const struct enav_discovery *d);

const struct enav_snapshot_entry *enav_snapshot_find(const struct enav_snapshot *s, uint64_t id);

#endif
