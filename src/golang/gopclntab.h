/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A reader of Go's function table, .gopclntab (the runtime's own copy of
 * every function's entry, name and pc-value tables, kept in stripped
 * binaries too because tracebacks and the garbage collector need it).
 *
 * Layouts read: Go 1.16-1.17 (magic 0xfffffffa: absolute entry addresses in
 * the function table), Go 1.18-1.19 (0xfffffff0: entries as 32-bit offsets
 * from the text start) and Go 1.20 and later (0xfffffff1: the same, the
 * function record gaining a start line).  Little-endian only; older layouts
 * are refused.
 *
 * The section is untrusted input: every offset is checked against the
 * section before it is read, names must end inside it within
 * ENAV_GOPCLNTAB_MAX_NAME bytes, and the pc-value decoder is bounded by its
 * table's bytes and the function's extent.
 */
#ifndef ENAV_FEATURES_PROFILING_GOPCLNTAB_H
#define ENAV_FEATURES_PROFILING_GOPCLNTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENAV_GOPCLNTAB_MAX_NAME (16u << 10) /* bytes of one function name */

struct enav_gopclntab {
	const uint8_t *sec;
	size_t len;
	uint32_t version; /* 116, 118 or 120: the first Go release of the layout */
	uint32_t nfunc;
	uint8_t quantum, ptrsize;
	uint64_t text_start;		       /* 1.18+: base of the entry offsets */
	size_t names_off, pctab_off, func_off; /* regions, from the section start */
};

struct enav_gopclntab_func {
	uint64_t entry, end; /* [entry, end): up to the next function's entry */
	uint32_t nameoff;    /* in the name table: enav_gopclntab_name */
	uint32_t pcsp;	     /* offset of the stack-delta table in pctab; 0: none */
};

/*
 * Check the header of the section sec (len bytes).  text_fallback is the
 * text start to use when the 1.18+ header holds 0 (a position-independent
 * binary whose field is filled by a dynamic relocation): the address of
 * .text.  0, or -EINVAL when this is not a table this reader knows.
 */
int enav_gopclntab_open(const uint8_t *sec, size_t len, uint64_t text_fallback,
			struct enav_gopclntab *t);
/* Function i (< t->nfunc); false when its record is out of bounds, its
 * range empty or its record disagrees with the function table. */
bool enav_gopclntab_func(const struct enav_gopclntab *t, uint32_t i, struct enav_gopclntab_func *f);

/*
 * A pc-value table (pcsp, pcfile, pcln, pcdata) of one function, walked
 * range by range: each step yields [start, end) and the value there.  The
 * encoding: pairs of a zig-zag varint value delta (the value starts at -1)
 * and a varint pc delta in units of the quantum; a zero value delta after the
 * first pair ends the table.
 */
struct enav_pcvalue {
	const uint8_t *p, *end;
	uint64_t pc, limit; /* where the next range starts; the function's end */
	int32_t val;
	uint8_t quantum;
	bool first, bad; /* bad: the table ran out of bytes or its varints overflowed */
};

/* false when off is 0 (no table) or outside pctab. */
bool enav_pcvalue_start(const struct enav_gopclntab *t, uint32_t off,
			const struct enav_gopclntab_func *f, struct enav_pcvalue *it);
/* The next range, clipped to the function's end; false at the end of the
 * table (it->bad tells a malformed one from a finished one). */
bool enav_pcvalue_next(struct enav_pcvalue *it, uint64_t *start, uint64_t *end, int32_t *val);

/* f's name, NUL-terminated inside the section, at most
 * ENAV_GOPCLNTAB_MAX_NAME bytes; NULL when empty or unterminated.  *scanned:
 * the bytes looked at (callers bound their total). */
const char *enav_gopclntab_name(const struct enav_gopclntab *t, const struct enav_gopclntab_func *f,
				size_t *scanned);
/* Whether f is called want (reads strlen(want) + 1 bytes at most). */
bool enav_gopclntab_name_is(const struct enav_gopclntab *t, const struct enav_gopclntab_func *f,
			    const char *want);
/* Whether a function of that exact name is in the table (a linear scan). */
bool enav_gopclntab_has_func(const struct enav_gopclntab *t, const char *name);

#endif
