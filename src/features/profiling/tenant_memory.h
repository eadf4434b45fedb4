/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One byte budget for what the profiler derives from tenant binaries
 * (ADR 0020): symbol tables and their names, perf maps, and the sections
 * (.symtab/.strtab, .eh_frame, .gopclntab) read to build them.  A tenant
 * chooses those files, so their size and shape are hostile input: without a
 * budget, 16 crafted 1.1 MB libraries cost the agent 270 MB.
 *
 *  - cap_bytes: what the symbolizer's caches may hold in all; the caches
 *    charge the bytes they keep and evict least recently used entries to
 *    stay under it;
 *  - file_cap: one file's share (cap / 8): a table that would grow past it
 *    is refused; a section read while parsing (freed after) may take
 *    ENAV_TENANT_SECTION_MUL shares (cap / 2), no more;
 *  - refusals are remembered by the file's identity (dev, ino, mtime, size),
 *    so a file refused once is not parsed again each time a process maps it.
 *    The same memory keeps the CRC of .gnu_debuglink targets.
 *
 * Thread-safe: the symbolizer and the unwind tables run on other threads.
 */
#ifndef ENAV_FEATURES_PROFILING_TENANT_MEMORY_H
#define ENAV_FEATURES_PROFILING_TENANT_MEMORY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "platform/tenant_file.h"

#define ENAV_TENANT_MEM_DEFAULT	 (128ull << 20)
#define ENAV_TENANT_MEM_MIN	 (8ull << 20)
#define ENAV_TENANT_MEM_MAX	 (4096ull << 20)
#define ENAV_TENANT_MEM_FILE_DIV 8u
/* One section read while a file is parsed (freed with it) may take this many
 * file shares: a large Go binary's .gopclntab (tens of MB) is read whole to
 * name and unwind its functions, while the table kept stays within a share. */
#define ENAV_TENANT_SECTION_MUL 4u
#define ENAV_TENANT_NAME_MAX	1024u		       /* bytes of one symbol name kept */
#define ENAV_TENANT_MEMO_SLOTS	4096u		       /* identities remembered */
#define ENAV_TENANT_READ_NS	(2ull * 1000000000ull) /* one file's read time budget */

/* Why a file was refused (enav_profile_files_refused_total{reason}). */
enum enav_tmem_reason {
	ENAV_TMEM_OVER_FILE_CAP, /* a section or table past the per-file cap */
	ENAV_TMEM_REMEMBERED,	 /* refused before: not parsed again */
	ENAV_TMEM_NOT_REGULAR,	 /* tenant_file refusals, by their name */
	ENAV_TMEM_OTHER_INODE,
	ENAV_TMEM_UNSAFE_LOOKUP,
	ENAV_TMEM_SLOW, /* the read time budget ran out */
	ENAV_TMEM_OPEN_ERROR,
	ENAV_TMEM__COUNT,
};
const char *enav_tmem_reason_name(enum enav_tmem_reason r);

/* A file's identity for the refusal memory. */
struct enav_file_key {
	uint64_t dev, ino, mtime_ns, size;
};
void enav_file_key_of(const struct stat *st, struct enav_file_key *k);

/* What a memory slot remembers (a kind per user, so one file may be
 * refused by one and loaded by another). */
enum enav_tmem_kind {
	ENAV_TMEM_KIND_SYMBOLS = 1,
	ENAV_TMEM_KIND_UNWIND,
	ENAV_TMEM_KIND_DEBUGLINK, /* value: the CRC32, or ENAV_TMEM_NO_CRC */
};
#define ENAV_TMEM_NO_CRC 0xffffffffffffffffull

struct enav_tenant_mem;

/* cap_bytes 0 = the default; clamped to [MIN, MAX].  NULL on ENOMEM. */
struct enav_tenant_mem *enav_tenant_mem_new(uint64_t cap_bytes);
void enav_tenant_mem_free(struct enav_tenant_mem *m);
uint64_t enav_tenant_mem_cap(const struct enav_tenant_mem *m);
uint64_t enav_tenant_mem_file_cap(const struct enav_tenant_mem *m);

/* Bytes now held (the gauge). */
uint64_t enav_tenant_mem_used(const struct enav_tenant_mem *m);
void enav_tenant_mem_charge(struct enav_tenant_mem *m, uint64_t n);
void enav_tenant_mem_uncharge(struct enav_tenant_mem *m, uint64_t n);
/* Whether n more bytes fit under the cap now. */
bool enav_tenant_mem_fits(const struct enav_tenant_mem *m, uint64_t n);
void enav_tenant_mem_evicted(struct enav_tenant_mem *m);

void enav_tenant_mem_refused(struct enav_tenant_mem *m, enum enav_tmem_reason r);
/* A tenant_file refusal, counted under its reason (GONE is not counted:
 * processes exit all the time). */
void enav_tenant_mem_open_refused(struct enav_tenant_mem *m, enum enav_tenant_refusal why);

/* Remember value for (kind, k); look it up (false when not remembered). */
void enav_tenant_mem_remember(struct enav_tenant_mem *m, enum enav_tmem_kind kind,
			      const struct enav_file_key *k, uint64_t value);
bool enav_tenant_mem_recall(struct enav_tenant_mem *m, enum enav_tmem_kind kind,
			    const struct enav_file_key *k, uint64_t *value);

struct enav_tenant_mem_stats {
	uint64_t used, cap, file_cap, evictions;
	uint64_t refused[ENAV_TMEM__COUNT];
};
void enav_tenant_mem_get_stats(struct enav_tenant_mem *m, struct enav_tenant_mem_stats *st);

struct enav_promtext;
/* enav_profile_tenant_bytes, _budget_bytes, _budget_evictions_total and
 * enav_profile_files_refused_total{reason}. */
void enav_tenant_mem_metrics(struct enav_tenant_mem *m, struct enav_promtext *p);

#endif
