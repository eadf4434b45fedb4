/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unwind rows for Go code, from .gopclntab (ADR 0017).  The Go toolchain
 * writes no .eh_frame for Go functions, but the runtime keeps, for each
 * function, the stack pointer's distance from its value at entry at every pc
 * (the pcsp table): that is the CFA rule.  A frame-pointer walk loses the
 * caller of every frameless leaf (Go saves rbp only in functions with a
 * frame); these rows do not.
 *
 * The rows have the shape of eh_frame.h's, so they encode, place and walk
 * the same way, and merge with a cgo binary's .eh_frame rows (its C code).
 */
#ifndef ENAV_FEATURES_PROFILING_GO_UNWIND_H
#define ENAV_FEATURES_PROFILING_GO_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "features/profiling/eh_frame.h"

struct enav_elf;

/*
 * The rows of a .gopclntab section's bytes (sec, len; text_fallback as for
 * enav_gopclntab_open): functions in table order, each whole or not at all,
 * until the raw rows (before equal neighbours merge) would pass max_rows
 * (stats.truncated then).  stats.fdes counts the functions turned into rows,
 * bad_records the malformed ones skipped, unsupported_rows the stack deltas
 * no rule expresses (negative).  0, -EINVAL when this is not a function
 * table, -ENOMEM.
 */
int enav_gopclntab_rows(const uint8_t *sec, size_t len, uint64_t text_fallback, uint32_t max_rows,
			struct enav_eh_table *out);
/* The same from the ELF's .gopclntab section: -ENOENT when it has none,
 * -E2BIG when it is over 256 MiB. */
int enav_gopclntab_unwind(struct enav_elf *e, uint32_t max_rows, struct enav_eh_table *out);

/*
 * One table of the rules of a and b (either may be empty): at every address
 * the rule of a where a has a defined one (not UNDEFINED), else b's.  Rows
 * strictly increasing, equal neighbours merged, stats summed.  a and b are
 * left as they are.  0 or -ENOMEM.
 */
int enav_unwind_tables_merge(const struct enav_eh_table *a, const struct enav_eh_table *b,
			     struct enav_eh_table *out);

#endif
