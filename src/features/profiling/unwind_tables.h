/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The user-space half of the .eh_frame unwinder (ADR 0017): for each process
 * the profile programs announce, list its executable mappings in the kernel
 * map enav_unwind_procs, and load the unwind rows of each mapped binary (once
 * per binary, shared by every process mapping it) into enav_unwind_rows.
 *
 * Bounded: rows, binaries and processes each have a cap from
 * profiling.unwind.*.  A binary without .eh_frame, larger than its budget,
 * or that does not fit in the rows left is named once in the log and its
 * frames are stepped by frame pointer; every refusal is counted by reason.
 * Not thread-safe: the profiler thread owns it.
 */
#ifndef ENAV_FEATURES_PROFILING_UNWIND_TABLES_H
#define ENAV_FEATURES_PROFILING_UNWIND_TABLES_H

#include <stdint.h>

#include "enav/abi.h"
#include "features/profiling/eh_frame.h"
#include "platform/promtext.h"

struct enav_unwind_tables_config {
	const char *proc_root;	  /* "/proc" */
	uint32_t max_rows;	  /* entries of enav_unwind_rows */
	uint32_t max_binary_rows; /* rows one binary may take */
	uint32_t max_processes;	  /* entries of enav_unwind_procs */
	uint32_t max_binaries;	  /* binaries tracked (loaded or refused) */
	/* The profiler's tenant memory budget (tenant_memory.h): its per-file
	 * share bounds the sections read, and refusals are remembered and
	 * counted there.  NULL: a default-sized one of the tables' own. */
	struct enav_tenant_mem *mem;
};

struct enav_unwind_tables;

/* rows: the mmap of enav_unwind_rows (max_rows entries); procs_fd: the fd of
 * enav_unwind_procs.  NULL on allocation failure. */
struct enav_unwind_tables *enav_unwind_tables_new(const struct enav_unwind_tables_config *cfg,
						  struct enav_unwind_entry *rows, int procs_fd);
void enav_unwind_tables_free(struct enav_unwind_tables *t);
/* Load (or reload) the tables of process image (tgid, exec_gen).  0 or -errno. */
int enav_unwind_tables_add(struct enav_unwind_tables *t, uint32_t tgid, uint16_t exec_gen);
/* Whether some image of tgid is loaded, with a list the kernel has not
 * found stale. */
bool enav_unwind_tables_has(struct enav_unwind_tables *t, uint32_t tgid);
/* Forget processes that exited or exec'd, pick up mappings that changed
 * (dlopen), release binaries no process maps.  Called every few seconds. */
void enav_unwind_tables_refresh(struct enav_unwind_tables *t);
void enav_unwind_tables_metrics(struct enav_unwind_tables *t, struct enav_promtext *p);
/* The counters enav_unwind_tables_metrics shows, copied out (by the thread
 * that owns the tables) so a scrape renders them without waiting for a
 * load, which reads a tenant's binaries. */
#define ENAV_UNWIND_REFUSALS 6
struct enav_unwind_stats {
	uint32_t rows_used, binaries_loaded, processes;
	uint64_t refused[ENAV_UNWIND_REFUSALS];
	uint64_t procs_refused, mappings_over_cap, map_update_failures, load_ns;
};
void enav_unwind_tables_stats(const struct enav_unwind_tables *t, struct enav_unwind_stats *st);
void enav_unwind_stats_metrics(const struct enav_unwind_stats *st, struct enav_promtext *p);

/*
 * Encode a parsed table into kernel rows: offsets the row format cannot
 * hold (not a multiple of 8, too large) and addresses at or above 4 GiB
 * become frame-pointer rows; runs of equal rows collapse.  Returns the rows
 * written (at most cap), or -E2BIG when more than cap are needed, -ERANGE
 * when the binary's code lies above 4 GiB.
 */
int enav_unwind_encode(const struct enav_eh_table *in, struct enav_unwind_entry *out, uint32_t cap);

#endif
