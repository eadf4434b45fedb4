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
 * changes nothing.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/profiling/eh_frame.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define MAX_ROWS 64

static void check_table(const struct enav_eh_table *t, uint32_t max_rows)
{
	static const uint8_t zero[sizeof(t->rows[0].pad)];

	CHECK(t->n <= max_rows);
	CHECK(t->n == 0 || t->rows != NULL);
	for (uint32_t i = 0; i < t->n; i++) {
		const struct enav_unwind_row *r = &t->rows[i];

		CHECK(r->cfa_kind <= ENAV_CFA_END && r->rbp_saved <= 1);
		CHECK(memcmp(r->pad, zero, sizeof(zero)) == 0);
		if (r->cfa_kind == ENAV_CFA_UNDEFINED || r->cfa_kind == ENAV_CFA_END)
			CHECK(r->cfa_off == 0 && !r->rbp_saved && r->rbp_off == 0);
		if (!r->rbp_saved)
			CHECK(r->rbp_off == 0);
		CHECK(enav_eh_table_lookup(t, r->pc) == r);
		if (i == 0) {
			if (r->pc > 0)
				CHECK(enav_eh_table_lookup(t, r->pc - 1) == NULL);
			continue;
		}
		const struct enav_unwind_row *p = &t->rows[i - 1];
		CHECK(p->pc < r->pc);
		CHECK(!(p->cfa_kind == r->cfa_kind && p->cfa_off == r->cfa_off &&
			p->rbp_saved == r->rbp_saved && p->rbp_off == r->rbp_off));
		CHECK(enav_eh_table_lookup(t, r->pc - 1) == p);
	}
	if (t->n > 0)
		CHECK(enav_eh_table_lookup(t, UINT64_MAX) == &t->rows[t->n - 1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t vaddr = 0;
	struct enav_eh_table small, big;

	if (size >= 8) {
		memcpy(&vaddr, data, 8);
		data += 8;
		size -= 8;
	}
	uint8_t *sec = malloc(size ? size : 1);
	CHECK(sec != NULL);
	memcpy(sec, data, size);

	int rc = enav_eh_frame_build(sec, size, vaddr, MAX_ROWS, &small);
	CHECK(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc != 0) {
		CHECK(small.n == 0 && small.rows == NULL);
		free(sec);
		return 0;
	}
	check_table(&small, MAX_ROWS);
	/* The cap only ever drops whole FDEs from the end of the walk. */
	CHECK(enav_eh_frame_build(sec, size, vaddr, 4 * MAX_ROWS, &big) == 0);
	check_table(&big, 4 * MAX_ROWS);
	if (!small.stats.truncated) {
		CHECK(memcmp(&big.stats, &small.stats, sizeof(big.stats)) == 0);
		CHECK(big.n == small.n);
		CHECK(small.n == 0 ||
		      memcmp(big.rows, small.rows, (size_t)small.n * sizeof(*small.rows)) == 0);
	} else {
		CHECK(big.n >= small.n);
	}
	enav_eh_table_free(&small);
	enav_eh_table_free(&big);
	free(sec);
	return 0;
}
