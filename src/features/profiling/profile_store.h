/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Profile store: the batches of stacks the profiling source drains from the
 * kernel, kept for a bounded time and size, and turned on demand into pprof
 * or folded stacks for a window, a kind and a workload filter.
 *
 * Symbolization happens when a profile is built, from mapping snapshots the
 * store took when the kernel first announced each process (so a process that
 * has exited since is still symbolized).  Labels come from the cgroup id:
 * discovery's snapshot first, else the kernel's own cgroup path.
 *
 * Thread-safe: one lock, never held across file I/O; a build takes it to
 * pin the batches of its window and symbolizes without it.
 */
#ifndef ENAV_FEATURES_PROFILING_PROFILE_STORE_H
#define ENAV_FEATURES_PROFILING_PROFILE_STORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "enav/abi.h"
#include "runtime/profiles.h"

struct enav_host;
struct enav_profile_store;

/* One aggregated stack of one drain. */
struct enav_profile_record {
	uint32_t tgid;
	uint16_t kind;	   /* enum enav_profile_kind */
	uint16_t exec_gen; /* which exec of the process (enav_profile_key.exec_gen) */
	uint64_t cgroup_id;
	uint64_t count;	   /* samples or episodes */
	uint64_t total_ns; /* off-CPU / futex nanoseconds */
	uint32_t ip_off;   /* into the batch's ips: kernel frames, then user frames */
	uint16_t n_kernel, n_user;
	/* The request the thread served when sampled (profiling.links, ADR
	 * 0021): its server span's trace and span ids, and the client call it
	 * awaited.  link says how sure that is (ENAV_PROFILE_LINK_*); ids of a
	 * side not found are zero. */
	uint8_t link;
	uint8_t trace_id[16], span_id[8], client_span_id[8];
};

enum enav_profile_link {
	ENAV_PROFILE_LINK_NONE = 0,
	ENAV_PROFILE_LINK_OBSERVED = 1, /* one request at a time on the thread */
	ENAV_PROFILE_LINK_INFERRED = 2, /* the thread had several open (an event loop) */
};

struct enav_profile_batch {
	uint64_t start_mono_ns, end_mono_ns; /* the drain window */
	uint64_t start_unix_ns;
	struct enav_profile_record *recs;
	uint32_t n_recs, cap_recs;
	uint64_t *ips;
	uint32_t n_ips, cap_ips;
	struct enav_profile_batch *next;
	/* Builds reading it (under the store's lock); an evicted batch still
	 * pinned is freed by the last build that unpins it. */
	uint32_t pins;
	bool evicted;
};

struct enav_profile_batch *enav_profile_batch_new(uint64_t start_mono_ns, uint64_t start_unix_ns);
/* Append a record with its frames (leaf first each); false on allocation failure. */
bool enav_profile_batch_add(struct enav_profile_batch *b, const struct enav_profile_record *r,
			    const uint64_t *kernel_ips, uint16_t n_kernel, const uint64_t *user_ips,
			    uint16_t n_user);
void enav_profile_batch_free(struct enav_profile_batch *b);

struct enav_profile_store_config {
	struct enav_host *host; /* for discovery's snapshot; may be NULL (tests, CLI) */
	const char *cgroup2_mount;
	uint32_t frequency_hz;
	uint32_t retention_ms;
	uint32_t max_stored_stacks; /* records over all kept batches */
	uint64_t max_stored_bytes;  /* records + frames over all kept batches, 0 = no cap */
	uint32_t max_processes;
	uint32_t max_elf_files;
	uint64_t tenant_memory_bytes; /* 0 = the default budget (tenant_memory.h) */
	/* Module path prefixes that are the operator's own code, on top of what
	 * each Go binary's build info says (profiling.filter.allow). */
	const char *const *allow;
	size_t n_allow;
};

/* Drains the kernel now; returns the monotonic time the drain covered up to. */
typedef int (*enav_profile_drain_fn)(void *ctx, uint64_t *drained_to_mono_ns);

struct enav_profile_store *enav_profile_store_new(const struct enav_profile_store_config *cfg);
void enav_profile_store_free(struct enav_profile_store *s);
/* Source attaches (and detaches with NULL) its synchronous drain. */
void enav_profile_store_set_drain(struct enav_profile_store *s, enav_profile_drain_fn fn,
				  void *ctx);
/* No more drains: waiting requests return -ESHUTDOWN. */
void enav_profile_store_close(struct enav_profile_store *s);
bool enav_profile_store_closed(struct enav_profile_store *s);

/* A process image the kernel announced: remember its comm, snapshot its
 * mappings (user frames of other images of the same pid stay unsymbolized). */
void enav_profile_store_task(struct enav_profile_store *s, uint32_t tgid, uint16_t exec_gen,
			     const char *comm);
/* Snapshot an announced image's mappings again, if it still lives (a
 * process is announced on its first stack, which can come before the
 * dynamic loader has mapped its libraries); the old snapshot stays when it
 * has exited. */
void enav_profile_store_resnapshot(struct enav_profile_store *s, uint32_t tgid, uint16_t exec_gen);
/* Takes ownership; evicts the oldest batches past retention or caps. */
void enav_profile_store_add(struct enav_profile_store *s, struct enav_profile_batch *b);

/* Drain now (through the source), returning the time covered.  -ENODEV
 * without a source, -ESHUTDOWN once closed. */
int enav_profile_store_drain(struct enav_profile_store *s, uint64_t *mono_ns);
/* A profile request's window: sleep up to ms (counted in
 * enav_profile_windows_open meanwhile), returning early (false) when the
 * store closes. */
bool enav_profile_store_sleep(struct enav_profile_store *s, uint32_t ms);

/* Build one profile; *out is malloc'd.  0 or -errno. */
int enav_profile_store_build(struct enav_profile_store *s, struct enav_profile_query *q,
			     uint8_t **out, size_t *out_len);

/* The same profile as pprof's tables, never encoded (q->format is set to
 * pprof); free with enav_pprof_decoded_free.  0 or -errno. */
int enav_profile_store_build_tables(struct enav_profile_store *s, struct enav_profile_query *q,
				    struct enav_pprof_decoded *out);

/* The workload of a process (runtime/profiles.h has the struct). */
bool enav_profile_store_workload(struct enav_profile_store *s, uint32_t tgid,
				 struct enav_profile_workload *out);

/* Distinct workloads (pid, container) with samples in a window, for per-
 * workload export: calls fn once per tgid that has records of kind. */
void enav_profile_store_each_pid(struct enav_profile_store *s, enum enav_profile_kind kind,
				 uint64_t from_mono_ns, uint64_t to_mono_ns,
				 void (*fn)(void *ctx, uint32_t tgid, const char *comm), void *ctx);

const char *enav_profile_kind_name(enum enav_profile_kind k);

struct enav_promtext;
void enav_profile_store_metrics(struct enav_profile_store *s, struct enav_promtext *p);
/* The tenant memory budget the store's symbolizer charges, for the other
 * users of tenant binaries (the unwind tables); lives as long as the store. */
struct enav_tenant_mem;
struct enav_tenant_mem *enav_profile_store_tenant_mem(struct enav_profile_store *s);

/* The store's reading side, as published to the host. */
extern const struct enav_profile_service enav_profile_store_service;

#endif
