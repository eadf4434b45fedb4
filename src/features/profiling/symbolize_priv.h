/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals of the symbolizer (src/features/profiling/symbolize*.c), exposed for the
 * unit tests and the fuzz targets: the line parsers of /proc/PID/maps,
 * /proc/kallsyms and JIT perf maps (platform/proc_lines.c), a bounded line reader, and
 * the ELF symbol table loader (elf_symtab.c), which also hands out .eh_frame.
 *
 * Parsers take exactly len bytes (not NUL-terminated; a trailing '\n' is
 * accepted and ignored) and return 0, or -1 for a malformed line.  Returned
 * strings point into the line.
 */
#ifndef ENAV_FEATURES_PROFILING_SYMBOLIZE_PRIV_H
#define ENAV_FEATURES_PROFILING_SYMBOLIZE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/proc_lines.h"

/* The file behind an executable mapping of pid, opened through
 * platform/tenant_file.c (/proc/PID/map_files, else the path inside the
 * process's root with RESOLVE_IN_ROOT), checked to be the maps line's inode
 * (and device, when dev is not 0); -1 with *why when none works.  A process
 * that is gone leaves our own view of the path, with the same checks.
 * (symbolize_elf.c) */
enum enav_tenant_refusal;
int enav_open_map_file(const char *proc_root, uint32_t pid, uint64_t start, uint64_t end,
		       const char *path, uint64_t dev, uint64_t inode,
		       enum enav_tenant_refusal *why);

/* A test seam: when set, called with the path of every ELF file the
 * symbolizer is about to load, on the loading thread, with no lock held (a
 * unit test blocks in it to play a slow tenant file).  NULL in the agent. */
extern void (*enav_symbolizer_load_hook)(const char *path);

/* ---- separate debug files (symbolize_debug.c) --------------------------- */

struct enav_elf;
struct enav_elf_symtab;
struct enav_tenant_mem;
struct enav_debug_files {
	const char *proc_root; /* "/proc" */
	const char *debug_dir; /* "" = none */
	int self_root;	       /* O_PATH of our own "/" */
	struct enav_tenant_mem *mem;
	uint32_t max_syms;
};
/*
 * The symbols of the debug file of the binary h (mapped by pid at path bin),
 * looked for as <debug_dir>/.build-id/xx/rest.debug by build id, then
 * through its .gnu_debuglink in the binary's directory and its .debug/
 * subdirectory (inside the process's root) and in <debug_dir>/<binary's
 * directory>/, into t.  True when t now holds them.
 */
bool enav_debug_symbols_load(const struct enav_debug_files *d, uint32_t pid, const char *bin,
			     struct enav_elf *h, const uint8_t *bid, size_t bid_len,
			     struct enav_elf_symtab *t);

/* ---- ELF symbol tables (elf_symtab.c) ------------------------------------ */

#define ENAV_ELF_BUILD_ID_MAX 64 /* bytes of an NT_GNU_BUILD_ID descriptor kept */
#define ENAV_ELF_MAX_SEGS     32 /* PT_LOAD segments kept */

struct enav_elf_seg {
	uint64_t offset, filesz, vaddr;
	bool exec;
};

struct enav_elf_sym {
	uint64_t value;
	uint64_t size;
	uint64_t cover_end; /* max(value + size) over sized symbols [0..this] */
	uint32_t name;	    /* offset into names */
};

struct enav_elf_symtab {
	char build_id[2 * ENAV_ELF_BUILD_ID_MAX + 1]; /* lowercase hex, "" when none */
	struct enav_elf_seg segs[ENAV_ELF_MAX_SEGS];
	uint32_t n_segs;
	struct enav_elf_sym *syms; /* sorted by value, one per value */
	uint32_t n_syms;
	char *names;
	size_t names_len;
	bool truncated;	     /* max_syms or the name budget was reached */
	bool over_cap;	     /* the kept table reached the file's byte cap */
	bool from_dynsym;    /* no .symtab: .dynsym was used */
	bool from_gopclntab; /* no .symtab: a Go binary's .gopclntab named its functions */
	bool from_debug;     /* the symbols come from a separate debug file */
};

/* An ELF opened for identification and loading: read-only, data read on
 * demand with pread (no mmap, so a file truncated under us cannot fault). */
struct enav_elf;
struct enav_elf *enav_elf_open_fd(int fd);
/* Over a caller-owned buffer (fuzzing, tests) that must outlive the handle;
 * pass a private copy: libelf treats it as its own mapping. */
struct enav_elf *enav_elf_open_mem(const void *buf, size_t len);
void enav_elf_close(struct enav_elf *e);
/* The bytes one loaded table may keep (the tenant memory budget's per-file
 * share), and so one section read, ENAV_TENANT_SECTION_MUL times that; a
 * handle starts with the default budget's share. */
void enav_elf_set_file_cap(struct enav_elf *e, uint64_t cap);
/* Whether something of e was left unread or unkept for that cap. */
bool enav_elf_over_cap(const struct enav_elf *e);
/* The GNU build id (raw bytes); 0 when there is none. */
size_t enav_elf_build_id(struct enav_elf *e, uint8_t *out, size_t cap);
/* Segments and function symbols (.symtab, else .gopclntab and .dynsym), at
 * most max_syms. */
int enav_elf_load(struct enav_elf *e, uint32_t max_syms, struct enav_elf_symtab **out);
/*
 * Separate debug files (objcopy --only-keep-debug: every section NOBITS but
 * the symbol and debug tables, PT_LOAD headers without file bytes, so t keeps
 * the binary's segments).  When bid_len > 0, dbg must carry that same build
 * id.  Its .symtab function symbols replace t's when there is at least one
 * and no fewer than t has (same caps as enav_elf_load).  1 when used, 0 when
 * not (t unchanged), -ENOMEM.
 */
int enav_elf_load_debug(struct enav_elf *dbg, const uint8_t *bid, size_t bid_len, uint32_t max_syms,
			struct enav_elf_symtab *t);
/* The values (link-time addresses) of the named data objects that .dynsym
 * defines: values[k] is 0 for a name it does not define.  How many were
 * found, -ENOENT when there is no .dynsym, -EINVAL when it is malformed. */
int enav_elf_dynsym_objects(struct enav_elf *e, const char *const *names, size_t n,
			    uint64_t *values);
/* The .gnu_debuglink of e: a file name (1..NAME_MAX bytes, no '/', not "."
 * or "..") copied NUL-terminated into name (cap bytes) and the CRC32 of that
 * file; false when there is none or it is malformed. */
bool enav_elf_debuglink(struct enav_elf *e, char *name, size_t cap, uint32_t *crc);
/*
 * A malloc'd copy of the .eh_frame section's bytes (caller frees) and its
 * sh_addr: 0, -ENOENT when there is none (or its bytes are not in the file:
 * NOBITS, empty), -E2BIG when it is larger than max_bytes, -EINVAL when the
 * section headers are malformed, -ENOMEM.
 */
int enav_elf_eh_frame(struct enav_elf *e, size_t max_bytes, uint8_t **buf, size_t *len,
		      uint64_t *sec_vaddr);
/* The bytes of the section called name as libelf read them (valid until
 * enav_elf_close; not a copy) and its sh_addr; the errors of
 * enav_elf_eh_frame but -ENOMEM (-E2BIG also past the handle's file cap).  On -E2BIG, *sec_vaddr is
 * still the section's address (a way to learn it without reading the bytes). */
int enav_elf_section(struct enav_elf *e, const char *name, size_t max_bytes, const uint8_t **buf,
		     size_t *len, uint64_t *sec_vaddr);
/* Open the .gopclntab section of e (gopclntab.h), its text start falling
 * back to .text's address; the errors of enav_elf_section, and -EINVAL when
 * the section is not a table gopclntab.c reads. */
struct enav_gopclntab;
int enav_elf_gopclntab(struct enav_elf *e, size_t max_bytes, struct enav_gopclntab *g);
void enav_elf_symtab_free(struct enav_elf_symtab *t);
/* The heap bytes t holds (what the budget charges). */
uint64_t enav_elf_symtab_bytes(const struct enav_elf_symtab *t);
/* Only the PT_LOAD segments of e into t->segs (nothing else of t is touched). */
void enav_elf_segments(struct enav_elf *e, struct enav_elf_symtab *t);
/* File offset -> link-time virtual address through the PT_LOAD segments. */
bool enav_elf_offset_to_vaddr(const struct enav_elf_symtab *t, uint64_t off, uint64_t *vaddr);
/* Function containing vaddr (see elf_symtab.c for the rules); NULL when none. */
const char *enav_elf_lookup(const struct enav_elf_symtab *t, uint64_t vaddr, uint64_t *sym_off);

#endif
