/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CPython 3.11 code objects, read out of a live process's memory (issue 35):
 * a code object's qualified name, file name and first line, and the line of
 * one of its instructions from its location table (co_linetable).
 *
 * All of it is memory a tenant owns and can forge.  Every read goes through
 * a reader with a byte budget, every length is capped, every object's type
 * pointer is checked against the interpreter's own type object, and an
 * inconsistency is an error, never a guess.  The layout facts used (x86-64,
 * CPython 3.11) are in docs/profiling.md; where the target can tell its own
 * layout (the code object's members, from PyCode_Type.tp_members) it is read
 * from the target.
 */
#ifndef ENAV_FEATURES_PROFILING_PY_CODE_H
#define ENAV_FEATURES_PROFILING_PY_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Reads n bytes at addr of the target into buf: 0, or -errno (a short read
 * is -EFAULT). */
typedef int (*enav_py_read_fn)(void *ctx, uint64_t addr, void *buf, size_t n);

/* A target's memory: its reader and what one lookup may still read. */
struct enav_py_mem {
	enav_py_read_fn read;
	void *ctx;
	size_t budget; /* bytes; a read past it fails with -E2BIG */
};

/* Every read of the target: n bytes at addr within the budget (-E2BIG past
 * it, which it then leaves as it was), never wrapping (-EFAULT). */
int enav_py_mem_read(struct enav_py_mem *m, uint64_t addr, void *buf, size_t n);

/* The reader of a process by pid (ctx points at its pid_t), with
 * process_vm_readv. */
int enav_py_read_pid(void *ctx, uint64_t addr, void *buf, size_t n);

/* The interpreter's type objects (their addresses in the target), against
 * which every object read is checked. */
struct enav_py_types {
	uint64_t code, str, bytes;
};

/* Where the members a symbolizer needs sit in a PyCodeObject. */
struct enav_py_code_layout {
	struct enav_py_types types;
	uint32_t filename, name, qualname, firstlineno, linetable;
};

/* Caps on what one code object may make the agent read and keep. */
#define ENAV_PY_NAME_MAX      512   /* bytes of UTF-8, NUL included */
#define ENAV_PY_LINETABLE_MAX 65536 /* bytes of co_linetable */

/*
 * The code object layout, from the target's PyCode_Type.tp_members (types
 * filled in by the caller; types.code is PyCode_Type).  0, -EFAULT when the
 * memory is unreadable, -E2BIG over budget, -EPROTO when the type or its
 * member table is not a 3.11 code type's (a member missing, of the wrong
 * kind, or out of range).
 */
int enav_py_code_layout_read(struct enav_py_mem *m, const struct enav_py_types *types,
			     struct enav_py_code_layout *out);

/*
 * The str at addr as UTF-8 into out (cap bytes, NUL included; cap >= 1):
 * cut at a character boundary when it does not fit, control characters and
 * surrogates written as '?'.  The bytes written (without the NUL), or
 * -errno: -EPROTO when it is not a compact, ready str of the expected type.
 */
int enav_py_str_read(struct enav_py_mem *m, const struct enav_py_types *types, uint64_t addr,
		     char *out, size_t cap);

/* The bytes object at addr into out (cap bytes): its length, -E2BIG when
 * longer than cap, or another -errno (-EPROTO: not a bytes object). */
long enav_py_bytes_read(struct enav_py_mem *m, const struct enav_py_types *types, uint64_t addr,
			uint8_t *out, size_t cap);

/* What a symbolizer keeps of a code object. */
struct enav_py_code {
	char qualname[ENAV_PY_NAME_MAX];
	char filename[ENAV_PY_NAME_MAX];
	int firstlineno;
	uint8_t *linetable; /* the caller's buffer of ENAV_PY_LINETABLE_MAX bytes */
	size_t linetable_len;
};

/* The code object at addr (out->linetable set by the caller).  0 or -errno
 * as above. */
int enav_py_code_read(struct enav_py_mem *m, const struct enav_py_code_layout *l, uint64_t addr,
		      struct enav_py_code *out);

/*
 * The source line of code unit `unit` (the instruction's index: its byte
 * offset / 2) by a 3.11 location table.  true with *line set (-1 where the
 * table says the instruction has no location); false when the table is
 * malformed or ends before the unit.
 */
bool enav_py_line_at(const uint8_t *tab, size_t n, int firstlineno, uint32_t unit, int *line);

#endif
