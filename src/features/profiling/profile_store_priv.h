/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The profile store's state, shared by its two halves: profile_store.c
 * keeps batches, processes and their owners; profile_build.c turns the kept
 * batches into a profile.
 */
#ifndef ENAV_FEATURES_PROFILING_PROFILE_STORE_PRIV_H
#define ENAV_FEATURES_PROFILING_PROFILE_STORE_PRIV_H

#include <pthread.h>
#include <stdatomic.h>

#include "features/profiling/profile_store.h"
#include "golang/go_buildinfo.h"
#include "features/profiling/pprof_filter.h"
#include "model/cgroup_path.h"
#include "platform/bcache.h"

struct task_info {
	char comm[ENAV_COMM_LEN];
	uint64_t exe_key; /* its executable in the owners cache, 0 = unknown */
};

/* Whose code a Go executable is, from its build info (or only the
 * allow-list, for a binary without build info).  Shared by the owners cache
 * and the builds reading it without the lock: the last reference frees it. */
struct owner_entry {
	atomic_uint refs;
	bool go;
	struct enav_go_buildinfo bi;
	struct enav_code_owner owner;
	const char **storage;
};

/*
 * Locking: the store's lock guards the batch list, the caches of tasks,
 * snapshots and owners, and the counters, and is never held across file
 * I/O.  A build pins the batches of its window under it, then reads them
 * (immutable once added) and symbolizes without it; an evicted batch that
 * a build still pins is freed by the build.  Reading a process's build
 * info and snapshotting its mappings run without it too, and the
 * symbolizer guards its own caches (symbolize.c).
 */
struct enav_profile_store {
	pthread_mutex_t lock;
	pthread_cond_t closed_cv;
	bool closed;
	struct enav_profile_store_config cfg;
	char cgroup2_mount[256];
	int cgroup2_fd;
	struct enav_symbolizer *sym;
	struct enav_tenant_mem *mem;  /* shared with the unwind tables */
	struct enav_bcache tasks;     /* (exec_gen << 32 | tgid) -> comm */
	struct enav_bcache snap_gens; /* tgid -> 1 + exec_gen of its mapping snapshot */
	struct enav_bcache owners;    /* executable (dev, inode) -> struct owner_entry */
	struct enav_code_owner allow_only;
	char **allow;
	struct enav_profile_batch *head, *tail;
	uint32_t n_batches, n_recs;
	uint64_t n_bytes; /* records + frames held */
	/* The source's drain, serialized by its own lock. */
	pthread_mutex_t drain_lock;
	enav_profile_drain_fn drain;
	void *drain_ctx;
	/* self-accounting */
	uint64_t batches_added, batches_evicted, records_evicted, builds, build_errors;
	uint64_t tasks_announced, snapshot_failures, frames_other_image, frames_implausible;
	/* Profile requests between their first and last drain: their windows. */
	_Atomic uint32_t windows_open;
	/* Workloads described without their pod: the snapshot that governed
	 * their samples was already released. */
	_Atomic uint64_t workloads_verdict_not_held;
};

/* What a cgroup id says about its workload, memoized per build. */
struct workload {
	uint64_t cgroup_id;
	bool has_path;
	char path[512];
	struct enav_cgroup_identity identity;
	char pod[256], namespace_[256], service[256];
};

/* Drops a reference to an owner (the owners cache's free function too). */
void enav_profile_owner_unref(void *owner);

static inline uint64_t enav_profile_task_key(uint32_t tgid, uint16_t exec_gen)
{
	return (uint64_t)exec_gen << 32 | tgid;
}

/* snap_gens holds, per tgid, 1 + the exec_gen of the image its snapshot is
 * of, or that with ENAV_SNAP_FAILED when the image was announced but its
 * snapshot failed: then a retake (the re-snapshots) is still of that image,
 * and no other image's samples are ever given its names. */
#define ENAV_SNAP_FAILED (1u << 20)

/* (Lock held.)  User frames are symbolized only against a snapshot of the same image: a
 * stack from before an exec never gets the names of the program after it. */
static inline bool enav_profile_snapshot_matches(struct enav_profile_store *s, uint32_t tgid,
						 uint16_t exec_gen)
{
	uintptr_t v = (uintptr_t)enav_bcache_get(&s->snap_gens, tgid);
	return v == 1u + exec_gen;
}

/* Cgroup id's workload as the discovery snapshot that governed samples
 * taken at time_unix_ns saw it (as attribution does for signals), else the
 * kernel's path of it alone. */
void enav_profile_describe_cgroup(struct enav_profile_store *s, uint64_t id, uint64_t time_unix_ns,
				  struct workload *w);

/* When a batch's drain window ended, Unix nanoseconds. */
static inline uint64_t enav_profile_batch_end_unix_ns(const struct enav_profile_batch *bt)
{
	return bt->start_unix_ns + (bt->end_mono_ns - bt->start_mono_ns);
}

#endif
