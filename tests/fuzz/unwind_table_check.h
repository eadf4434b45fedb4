/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The invariants every unwind table holds (eh_frame.h), whatever its source
 * (.eh_frame, .gopclntab, a merge): at most the row cap, kinds in range,
 * padding zero, UNDEFINED and END rows without offsets, rows strictly
 * increasing with no rule repeated, and every lookup returning the last row
 * at or before its address.  For the fuzz targets: a broken one aborts.
 */
#ifndef ENAV_TESTS_FUZZ_UNWIND_TABLE_CHECK_H
#define ENAV_TESTS_FUZZ_UNWIND_TABLE_CHECK_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/profiling/eh_frame.h"

#define CHECK_ROW(c)                                                                               \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static inline void check_unwind_table(const struct enav_eh_table *t, uint32_t max_rows)
{
	static const uint8_t zero[sizeof(t->rows[0].pad)];

	CHECK_ROW(t->n <= max_rows);
	CHECK_ROW(t->n == 0 || t->rows != NULL);
	for (uint32_t i = 0; i < t->n; i++) {
		const struct enav_unwind_row *r = &t->rows[i];

		CHECK_ROW(r->cfa_kind <= ENAV_CFA_END && r->rbp_saved <= 1);
		CHECK_ROW(memcmp(r->pad, zero, sizeof(zero)) == 0);
		if (r->cfa_kind == ENAV_CFA_UNDEFINED || r->cfa_kind == ENAV_CFA_END)
			CHECK_ROW(r->cfa_off == 0 && !r->rbp_saved && r->rbp_off == 0);
		if (!r->rbp_saved)
			CHECK_ROW(r->rbp_off == 0);
		CHECK_ROW(enav_eh_table_lookup(t, r->pc) == r);
		if (i == 0) {
			if (r->pc > 0)
				CHECK_ROW(enav_eh_table_lookup(t, r->pc - 1) == NULL);
			continue;
		}
		const struct enav_unwind_row *p = &t->rows[i - 1];
		CHECK_ROW(p->pc < r->pc);
		CHECK_ROW(!(p->cfa_kind == r->cfa_kind && p->cfa_off == r->cfa_off &&
			    p->rbp_saved == r->rbp_saved && p->rbp_off == r->rbp_off));
		CHECK_ROW(enav_eh_table_lookup(t, r->pc - 1) == p);
	}
	if (t->n > 0)
		CHECK_ROW(enav_eh_table_lookup(t, UINT64_MAX) == &t->rows[t->n - 1]);
}

static inline void check_unwind_same(const struct enav_eh_table *a, const struct enav_eh_table *b)
{
	CHECK_ROW(a->n == b->n);
	CHECK_ROW(a->n == 0 || memcmp(a->rows, b->rows, (size_t)a->n * sizeof(*a->rows)) == 0);
}

/* small and big: one section built with a cap and with a larger one.  The
 * cap only drops whole records: without truncation the two are the same
 * table.  With it, each is a table of its own (check_unwind_table), and
 * their row counts are not ordered: a record the small cap dropped can, in
 * the big table, win addresses other records' rows held (overlapping FDEs:
 * the earliest wins) and so merge rows that then repeat a rule (the fuzzer
 * found such a section: crash-14d44c68 in the corpus). */
static inline void check_unwind_caps(const struct enav_eh_table *small,
				     const struct enav_eh_table *big)
{
	if (!small->stats.truncated) {
		CHECK_ROW(memcmp(&big->stats, &small->stats, sizeof(big->stats)) == 0);
		check_unwind_same(small, big);
	}
}

/* A table builder: enav_eh_frame_build, enav_gopclntab_rows. */
typedef int (*unwind_build_fn)(const uint8_t *sec, size_t len, uint64_t addr, uint32_t max_rows,
			       struct enav_eh_table *out);

/* Build sec with cap max_rows (small) and 4 * max_rows (big), each holding
 * the invariants, the two agreeing.  true with both kept (the caller frees
 * them), false when the section was refused (nothing to free). */
static inline bool build_unwind_pair(unwind_build_fn build, const uint8_t *sec, size_t len,
				     uint64_t addr, uint32_t max_rows, struct enav_eh_table *small,
				     struct enav_eh_table *big)
{
	int rc = build(sec, len, addr, max_rows, small);

	CHECK_ROW(rc == 0 || rc == -EINVAL || rc == -ENOMEM);
	if (rc != 0) {
		CHECK_ROW(small->n == 0 && small->rows == NULL);
		return false;
	}
	check_unwind_table(small, max_rows);
	CHECK_ROW(build(sec, len, addr, 4 * max_rows, big) == 0);
	check_unwind_table(big, 4 * max_rows);
	check_unwind_caps(small, big);
	return true;
}

/* The inputs of the section fuzzers: the first 8 bytes, when there are that
 * many, are an address (*addr); the rest, copied into an allocation of
 * exactly its size (freed by the caller), is the section (*len bytes). */
static inline uint8_t *split_section_input(const uint8_t *data, size_t size, uint64_t *addr,
					   size_t *len)
{
	*addr = 0;
	if (size >= 8) {
		memcpy(addr, data, 8);
		data += 8;
		size -= 8;
	}
	uint8_t *sec = malloc(size ? size : 1);
	CHECK_ROW(sec != NULL);
	memcpy(sec, data, size);
	*len = size;
	return sec;
}

#endif
