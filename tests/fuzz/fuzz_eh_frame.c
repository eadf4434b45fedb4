/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the .eh_frame unwind table (src/features/profiling/
 * eh_frame.c, eh_frame_cfa.c).  The first 8 bytes of the input, when there
 * are that many, are the section's address (so pc-relative pointers and
 * wrapping ranges get exercised); the rest, in its own allocation of exactly
 * its size, is the section.  Building must not crash or over-read, and a
 * table must hold its invariants: rows strictly increasing, no rule
 * repeated, kinds in range, padding zero, at most the row cap (truncated
 * when a build with a larger cap has more rows), and every lookup returning
 * the last row at or before its address; without truncation a larger cap
 * changes nothing.  The kernel encoding of the table (enav_unwind_encode)
 * stays within its cap, strictly increasing, with kinds the walk knows.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "features/profiling/eh_frame.h"
#include "features/profiling/unwind_tables.h"
#include "unwind_table_check.h"

#define MAX_ROWS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t vaddr;
	struct enav_eh_table small, big;
	uint8_t *sec = split_section_input(data, size, &vaddr, &size);

	/* The cap only ever drops whole FDEs from the end of the walk. */
	if (build_unwind_pair(enav_eh_frame_build, sec, size, vaddr, MAX_ROWS, &small, &big)) {
		struct enav_unwind_entry enc[MAX_ROWS];
		int n = enav_unwind_encode(&big, enc, MAX_ROWS);
		if (n > MAX_ROWS || (n < 0 && n != -E2BIG && n != -ERANGE))
			abort();
		for (int i = 0; i < n; i++)
			if ((i && enc[i].pc <= enc[i - 1].pc) ||
			    (enc[i].cfa >> ENAV_UNWIND_KIND_SHIFT) > ENAV_UNWIND_END)
				abort();
		enav_eh_table_free(&small);
		enav_eh_table_free(&big);
	}
	free(sec);
	return 0;
}
