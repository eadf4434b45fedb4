/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The symbolizer's state, shared by its files: symbolize.c (process
 * snapshots, lookups, lifecycle), symbolize_kernel.c (/proc/kallsyms),
 * symbolize_elf.c (the ELF symbol table cache), symbolize_perf_map.c (JIT
 * perf maps).  Processes and symbol tables are kept in platform/lru.h's
 * exact-capacity LRU (max_processes and max_elf_files hold exactly).
 * Internal: the contract is symbolize.h.
 */
#ifndef ENAV_FEATURES_PROFILING_SYMBOLIZE_STATE_H
#define ENAV_FEATURES_PROFILING_SYMBOLIZE_STATE_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "platform/lru.h"
#include "features/profiling/symbolize.h"
#include "features/profiling/symbolize_priv.h"
#include "features/profiling/tenant_memory.h"

#define DEF_MAX_PROCESSES    4096u
#define DEF_MAX_MAPS	     4096u
#define DEF_MAX_ELF_FILES    256u
#define DEF_MAX_SYMBOLS	     2000000u
#define DEF_MAX_PERF_ENTRIES 200000u

#define MAPS_LINE_MAX	    (PATH_MAX + 256)
#define MAPS_MAX_BYTES	    (64ull << 20)
#define KALLSYMS_LINE_MAX   (2 * ENAV_KSYM_NAME_MAX + 64)
#define KALLSYMS_MAX_BYTES  (256ull << 20)
#define KALLSYMS_MAX_SYMS   (8u << 20)
#define KALLSYMS_MAX_MODS   4096u
#define PERF_MAP_LINE_MAX   4096u
#define PERF_MAP_LINE_BYTES 1024ull /* bytes read per allowed entry */
#define PERF_MAP_WALK	    64u
#define REFRESH_NS	    1000000000ull /* snapshot refresh / perf map check */
/* ELF loading may take a quarter of the time, in bursts of up to 2 s: a
 * tenant whose libraries' tables outgrow the budget makes every lookup a
 * reload, and the profile build that asked waits for it. */
#define LOAD_SHARE_DIV 4
#define LOAD_BURST_NS  2000000000ll
/* ELF files being loaded at once (each by one thread, with the lock
 * released); a load past this is put off, counted.  A thread that needs a
 * file another is loading waits for it, without the lock, at most five
 * times one file's read time budget: the loader's reads are bounded by that
 * budget and its parsing by the file caps, but parsing a large symbol table
 * takes seconds in an emulated guest (Linux 6.1 and 6.12 under QEMU/TCG
 * left a profile's frames as addresses when the wait was one budget). */
#define LOADS_IN_FLIGHT 32
#define LOAD_WAIT_NS	(5 * ENAV_TENANT_READ_NS)

/* ---- state ---------------------------------------------------------------------- */

enum { MAP_FILE, MAP_ANON, MAP_PSEUDO };
enum { ELF_UNKNOWN, ELF_KNOWN, ELF_FAILED };

struct umap {
	uint64_t start, end, offset, inode;
	uint64_t dev;	  /* makedev of the maps line's major:minor */
	uint64_t elf_key; /* valid when elf_state == ELF_KNOWN */
	uint32_t path;	  /* offset into proc.paths */
	uint8_t kind, elf_state;
};

struct pm_entry {
	uint64_t start, end;
	uint32_t name, seq;
};

struct perf_map {
	struct pm_entry *e;
	uint32_t n;
	char *names;
	struct enav_tenant_mem *mem;
	uint64_t bytes; /* charged to mem */
	bool checked, loaded;
	bool loading; /* a thread is reading the file with the lock released */
	uint64_t checked_ns;
	uint64_t ino, size, mtime_ns; /* of the loaded file */
};

struct proc {
	struct enav_lru_node node; /* key = pid */
	struct umap *maps;	   /* executable mappings, sorted by start */
	uint32_t n_maps;
	char *paths;
	uint64_t gen;	  /* which snapshot this is (enav_symbolizer.snap_gen) */
	uint64_t snap_ns; /* last snapshot attempt */
	uint32_t uid;	  /* owner of /proc/PID at the snapshot */
	bool uid_known;
	struct perf_map pm;
};

struct elf_entry {
	struct enav_lru_node node; /* key = hash of the identity */
	struct enav_elf_symtab *t;
	struct enav_tenant_mem *mem; /* NULL until cached and charged */
	uint64_t bytes;		     /* charged to mem */
	bool from_debug, truncated;  /* counted when cached */
	uint8_t bid[ENAV_ELF_BUILD_ID_MAX];
	size_t bid_len;
	uint64_t dev, ino, mtime_ns, size; /* identity without a build id */
};

struct ksym {
	uint64_t addr;
	uint32_t name; /* offset into names; file order among text symbols */
	uint16_t mod;  /* 0 = core kernel, else index + 1 into mods */
	uint8_t text;
};

struct kernel_table {
	bool loaded;
	struct ksym *syms;
	uint32_t n, cap;
	char *names;
	size_t names_len, names_cap;
	uint32_t mods[KALLSYMS_MAX_MODS]; /* name offsets */
	uint32_t n_mods, last_mod;
	uint64_t n_text;
};

/*
 * Locking: one mutex guards the caches, the kernel table, the loading
 * budget and the counters; lookups run under it.  Nothing a tenant controls
 * is read under it: a snapshot reads /proc/PID/maps before taking it, and a
 * load of an ELF file or a perf map marks the file as being loaded, drops the
 * lock to open and parse it, then takes it again to insert the result.  A
 * second thread that needs a file being loaded does not load it again: it
 * waits for the first (LOAD_WAIT_NS at most, with the lock released), else
 * its frame stays unresolved this time, counted.
 */
struct enav_symbolizer {
	pthread_mutex_t lock;
	pthread_cond_t loaded; /* a load finished (a loading[] slot was freed) */
	char *proc_root, *kallsyms_path, *perf_map_dir;
	/* Opened with the symbolizer, read on first use: /proc/kallsyms shows
	 * addresses to whoever opened it with CAP_SYSLOG, and the agent drops
	 * that capability once started. */
	int kallsyms_fd;
	int kallsyms_errno;
	char *debug_dir; /* "" = no debug files */
	int self_root;	 /* O_PATH of "/": our own view, for perf and debug files */
	struct enav_tenant_mem *mem;
	bool own_mem;
	int64_t load_tokens_ns; /* loading time left (LOAD_SHARE_DIV) */
	uint64_t load_refill_ns;
	uint32_t max_maps, max_syms, max_perf;
	struct enav_lru procs, elfs;
	uint64_t snap_gen;
	struct {
		uint64_t dev, ino; /* the maps line's identity of the file */
		bool used;
	} loading[LOADS_IN_FLIGHT];
	struct kernel_table k;
	struct enav_symbolizer_stats st;
};

/* The strings a resolved frame points to: copied out of the caches under
 * the lock, so another thread's eviction cannot free them under the caller.
 * One set per thread, valid until its next call into the symbolizer. */
struct frame_strings {
	char function[PERF_MAP_LINE_MAX + 2 * ENAV_KSYM_NAME_MAX + 8];
	char map_path[MAPS_LINE_MAX];
	char build_id[2 * ENAV_ELF_BUILD_ID_MAX + 1];
};
extern _Thread_local struct frame_strings enav_frame_strings;

static inline const char *keep_string(char *buf, size_t cap, const char *str)
{
	snprintf(buf, cap, "%s", str);
	return buf;
}

#define KEEP(field, str)                                                                           \
	keep_string(enav_frame_strings.field, sizeof(enav_frame_strings.field), (str))

/* A mapping copied out of its snapshot, for a load done with the lock
 * released (the snapshot may be replaced or evicted meanwhile). */
struct map_ref {
	uint64_t start, end, offset, inode, dev;
	char path[MAPS_LINE_MAX];
};

/* ---- shared helpers (symbolize.c) ------------------------------------------------ */

/* Grows *p to hold need elements (doubling, at most limit); false past it. */
bool enav_sym_grow(void **p, size_t elem, uint32_t *cap, uint32_t need, uint32_t limit);
/* Appends n bytes + NUL to a string arena; false past limit. */
bool enav_sym_arena_push(char **a, size_t *len, size_t *cap, const char *s, size_t n, size_t limit,
			 uint32_t *off);
uint64_t enav_sym_fnv64(const void *p, size_t n, uint64_t h);
uint64_t enav_sym_mtime_ns(const struct stat *st);
int enav_sym_open_ro(const char *path);
/* The mapping of p containing addr, or NULL. */
struct umap *enav_sym_find_map(const struct proc *p, uint64_t addr);
/* pid's snapshot, made the most recent; NULL when none (lock held). */
struct proc *enav_sym_get_proc(struct enav_symbolizer *s, uint32_t pid);

/* ---- ELF cache (symbolize_elf.c) ------------------------------------------------- */

void enav_sym_elf_entry_free(struct enav_lru_node *n);
/* Drops least recently used symbol tables until n more bytes fit the
 * budget (lock held). */
void enav_sym_make_room(struct enav_symbolizer *s, uint64_t n);
void enav_sym_map_ref_of(const struct proc *p, const struct umap *m, struct map_ref *r);
/* The cached table of m, when its file is known and still cached (lock held). */
struct elf_entry *enav_sym_cached_elf(struct enav_symbolizer *s, const struct umap *m);
/* The symbol table of the file r maps, loaded when it is not cached; lock
 * held, dropped while the file is read (symbolize_elf.c says how). */
struct elf_entry *enav_sym_map_elf(struct enav_symbolizer *s, uint32_t pid,
				   const struct map_ref *r);

/* ---- perf maps (symbolize_perf_map.c) -------------------------------------------- */

void enav_sym_perf_map_clear(struct perf_map *pm);
/* The name of the perf map entry of pid covering addr (lock held; dropped
 * while the map is reread). */
const char *enav_sym_perf_map_lookup(struct enav_symbolizer *s, uint32_t pid, uint64_t addr,
				     uint64_t *off);

#endif
