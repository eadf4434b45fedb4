/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for Go's function table (src/features/profiling/
 * gopclntab.c) and the unwind rows built from it (go_unwind.c).  The first 8
 * bytes of the input, when there are that many, are the text start used when
 * the header holds none; the rest, in its own allocation of exactly its size,
 * is the .gopclntab section.
 *
 * Building must not crash or over-read, and the table must hold the
 * invariants of every unwind table (unwind_table_check.h); without
 * truncation a larger cap changes nothing; merged with itself or with an
 * empty table it is unchanged; the kernel encoding takes it.  Every function
 * the reader accepts has a non-empty range, a name that ends inside the
 * section, and is found again by that name.
 *
 * Seeds: small tables cut from the .gopclntab of tests/integration/go/
 * hotloop.go built with Debian's Go 1.19 (a handful of its functions:
 * main.main, the frameless hot loop, runtime.goexit, runtime.nanotime1), in
 * the 1.18 layout and rewritten to the 1.16 and 1.20 ones.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/profiling/go_unwind.h"
#include "golang/gopclntab.h"
#include "features/profiling/unwind_tables.h"
#include "unwind_table_check.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define MAX_ROWS  64
#define MAX_FUNCS 256 /* functions whose names are looked up again */

static void check_funcs(const uint8_t *sec, size_t size, uint64_t text)
{
	struct enav_gopclntab g;

	if (enav_gopclntab_open(sec, size, text, &g) != 0)
		return;
	CHECK(g.version == 116 || g.version == 118 || g.version == 120);
	for (uint32_t i = 0; i < g.nfunc && i < MAX_FUNCS; i++) {
		struct enav_gopclntab_func f;
		size_t scanned;
		if (!enav_gopclntab_func(&g, i, &f))
			continue;
		CHECK(f.entry < f.end);
		const char *name = enav_gopclntab_name(&g, &f, &scanned);
		CHECK(scanned <= ENAV_GOPCLNTAB_MAX_NAME);
		if (!name)
			continue;
		CHECK(name >= (const char *)sec && name + scanned < (const char *)sec + size);
		CHECK(name[scanned] == '\0' && strlen(name) == scanned);
		CHECK(enav_gopclntab_name_is(&g, &f, name));
		CHECK(enav_gopclntab_has_func(&g, name));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t text;
	struct enav_eh_table small, big, m;
	uint8_t *sec = split_section_input(data, size, &text, &size);

	check_funcs(sec, size, text);
	/* The cap only ever drops whole functions from the end. */
	if (!build_unwind_pair(enav_gopclntab_rows, sec, size, text, MAX_ROWS, &small, &big)) {
		free(sec);
		return 0;
	}
	/* Merging adds nothing that is already there. */
	struct enav_eh_table none = {0};
	if (enav_unwind_tables_merge(&big, &big, &m) == 0) {
		check_unwind_same(&m, &big);
		enav_eh_table_free(&m);
	}
	if (enav_unwind_tables_merge(&none, &big, &m) == 0) {
		check_unwind_same(&m, &big);
		enav_eh_table_free(&m);
	}
	if (enav_unwind_tables_merge(&small, &big, &m) == 0) {
		check_unwind_table(&m, small.n + big.n);
		enav_eh_table_free(&m);
	}
	struct enav_unwind_entry enc[4 * MAX_ROWS];
	int n = enav_unwind_encode(&big, enc, 4 * MAX_ROWS);
	CHECK(n == -ERANGE || (n >= 0 && (uint32_t)n <= big.n));
	enav_eh_table_free(&small);
	enav_eh_table_free(&big);
	free(sec);
	return 0;
}
