/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Turn sampled addresses into frames: kernel addresses from /proc/kallsyms,
 * user addresses from a per-process mapping snapshot (/proc/PID/maps, taken
 * while the process lives and kept after it exits) plus ELF symbol tables
 * (.symtab, else the .symtab of a separate debug file found by build id or
 * .gnu_debuglink, else .dynsym; Go binaries carry theirs in .symtab) cached by
 * build id, plus JIT perf maps (/tmp/perf-PID.map).  An address that cannot be
 * resolved keeps its address and mapping: a name is never invented.
 *
 * Every cache is bounded (processes, ELF files, symbols per file); evictions
 * and failures are counted.  Thread-safe: one lock guards the caches, and no
 * tenant file is read while it is held (symbolize_state.h says how).
 */
#ifndef ENAV_FEATURES_PROFILING_SYMBOLIZE_H
#define ENAV_FEATURES_PROFILING_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>

struct enav_symbolizer;
struct enav_tenant_mem;

struct enav_symbolizer_config {
	const char *proc_root;	       /* "/proc" */
	const char *kallsyms_path;     /* "/proc/kallsyms" */
	const char *perf_map_dir;      /* "/tmp" */
	const char *debug_dir;	       /* "/usr/lib/debug"; "" = no debug files at all */
	uint32_t max_processes;	       /* mapping snapshots kept (LRU), 0 = 4096 */
	uint32_t max_maps_per_proc;    /* 0 = 4096 */
	uint32_t max_elf_files;	       /* symbol tables kept (LRU by build id/path), 0 = 256 */
	uint32_t max_symbols_per_file; /* 0 = 2,000,000; beyond it the file is marked truncated */
	uint32_t max_perf_map_entries; /* 0 = 200,000 */
	/* The tenant memory budget the caches charge (tenant_memory.h); NULL =
	 * one of the default size, the symbolizer's own. */
	struct enav_tenant_mem *mem;
};

/* A resolved frame.  Strings stay valid until the calling thread's next
 * call into the symbolizer (the caller copies what it keeps). */
struct enav_frame {
	uint64_t address;     /* as sampled (runtime virtual address) */
	const char *function; /* NULL when unknown */
	uint64_t function_offset;
	const char *map_path; /* NULL when no mapping covers the address */
	uint64_t map_start, map_limit, map_offset;
	const char *build_id; /* lowercase hex, NULL when the file has none */
	bool kernel;
};

struct enav_symbolizer_stats {
	uint64_t snapshots, snapshot_failures, process_evictions;
	uint64_t elf_loads, elf_failures, elf_hits, elf_evictions, elf_truncated;
	uint64_t elf_deferred;	 /* loads put off: the loading time budget was spent */
	uint64_t elf_concurrent; /* lookups that left a file another thread was loading */
	uint64_t perf_map_loads;
	uint64_t debug_files;	       /* ELF loads whose symbols came from a separate debug file */
	uint64_t resolved, unresolved; /* frames */
	uint32_t processes, elf_files; /* current sizes */
	uint64_t kernel_symbols;
};

struct enav_symbolizer *enav_symbolizer_new(const struct enav_symbolizer_config *cfg);
void enav_symbolizer_free(struct enav_symbolizer *s);
/* Take (or refresh) the mapping snapshot of pid now.  0 or -errno. */
int enav_symbolizer_snapshot(struct enav_symbolizer *s, uint32_t pid);
/* Resolve a user address of pid (snapshotting on first use).  Always fills
 * out (address at least); returns true when a function name was found. */
bool enav_symbolizer_user(struct enav_symbolizer *s, uint32_t pid, uint64_t addr,
			  struct enav_frame *out);
/* Whether addr lies in an executable mapping of pid: 1 yes, 0 no, -1 when
 * there is no snapshot to judge by (same refresh rule as a lookup). */
int enav_symbolizer_executable(struct enav_symbolizer *s, uint32_t pid, uint64_t addr);
bool enav_symbolizer_kernel(struct enav_symbolizer *s, uint64_t addr, struct enav_frame *out);
void enav_symbolizer_get_stats(struct enav_symbolizer *s, struct enav_symbolizer_stats *st);

#endif
