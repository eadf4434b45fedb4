/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Lookups in a loaded ELF symbol table (elf_symtab.c loads it).
 *
 * Symbol match rules (enav_elf_lookup):
 *  - symbols are sorted by value, one per value (elf_symtab.c says which
 *    one is kept);
 *  - a sized symbol matches value <= vaddr < value + size;
 *  - an unsized symbol matches only when it is the nearest preceding one, no
 *    sized symbol covers vaddr, and it does not itself lie inside a sized
 *    symbol (a label inside a function does not extend past its end);
 *  - past the end of a sized symbol (a gap) nothing matches.
 */
#include "features/profiling/symbolize_priv.h"

#define MAX_COVER_WALK 4096u /* lookup walk-back over nested symbols */

bool enav_elf_offset_to_vaddr(const struct enav_elf_symtab *t, uint64_t off, uint64_t *vaddr)
{
	/* Executable segments first: page-rounded segments may overlap. */
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < t->n_segs; i++) {
			const struct enav_elf_seg *g = &t->segs[i];
			if (g->exec != (pass == 0))
				continue;
			if (off >= g->offset && off - g->offset < g->filesz) {
				*vaddr = off - g->offset + g->vaddr;
				return true;
			}
		}
	return false;
}

static bool covers(const struct enav_elf_sym *s, uint64_t vaddr)
{
	return s->size > 0 && vaddr >= s->value && vaddr - s->value < s->size;
}

const char *enav_elf_lookup(const struct enav_elf_symtab *t, uint64_t vaddr, uint64_t *sym_off)
{
	uint32_t lo = 0, hi = t->n_syms;

	/* First symbol with value > vaddr. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct enav_elf_sym *near = &t->syms[lo - 1], *hit = NULL;
	if (covers(near, vaddr)) {
		hit = near;
	} else {
		/* A sized symbol further back may still cover vaddr (nesting). */
		uint32_t j = lo - 1, steps = 0;
		bool proven = false;
		while (j > 0 && steps++ < MAX_COVER_WALK) {
			j--;
			if (t->syms[j].cover_end <= vaddr) {
				proven = true;
				break;
			}
			if (covers(&t->syms[j], vaddr)) {
				hit = &t->syms[j];
				break;
			}
		}
		if (j == 0 && !hit)
			proven = true;
		if (!hit && proven && near->size == 0 &&
		    (lo == 1 || t->syms[lo - 2].cover_end <= near->value))
			hit = near;
	}
	if (!hit)
		return NULL;
	*sym_off = vaddr - hit->value;
	return t->names + hit->name;
}
