/* SPDX-License-Identifier: Apache-2.0 */
/*
 * x86-64 unwind rules from an ELF's .eh_frame (ADR 0017).
 *
 * The section is untrusted input: every CIE and FDE is bounds-checked, the
 * call-frame programs run with capped state stacks, and the row count is
 * capped by the caller.  The result is a table sorted by address in which
 * each row gives, from its address until the next row's, how to find the
 * caller's frame:
 *
 *   CFA = (cfa_kind == RSP ? rsp : rbp) + cfa_off
 *   return address at CFA - 8 (the x86-64 psABI; a CIE that says otherwise
 *     makes its FDEs' rows UNDEFINED)
 *   caller's rbp: at CFA + rbp_off when rbp_saved, else unchanged
 *
 * PLT entries (DW_CFA_def_cfa_expression of the form gcc/binutils emit for
 * .plt) become ENAV_CFA_PLT: CFA = rsp + 8 + ((rip & 15) >= cfa_off ? 8 : 0),
 * cfa_off being the expression's threshold: 11 for the classic lazy PLT
 * entry, 10 for the IBT one (binutils' two forms; no other is accepted).
 * Any other expression, or a register the unwinder does not track as the
 * CFA base, makes the row UNDEFINED (the unwinder then falls back to frame
 * pointers for that frame, counted).  DW_CFA_undefined of the return address
 * register marks the outermost frame (ENAV_CFA_END: _start, thread entry).
 * Addresses outside every FDE get an UNDEFINED row at the end of each FDE, so
 * a lookup never extends an FDE's rule past its range.
 */
#ifndef ENAV_FEATURES_PROFILING_EH_FRAME_H
#define ENAV_FEATURES_PROFILING_EH_FRAME_H

#include <stddef.h>
#include <stdint.h>

enum enav_cfa_kind {
	ENAV_CFA_UNDEFINED = 0, /* no usable rule here */
	ENAV_CFA_RSP = 1,
	ENAV_CFA_RBP = 2,
	ENAV_CFA_PLT = 3,
	ENAV_CFA_END = 4, /* return address undefined: the outermost frame */
};

struct enav_unwind_row {
	uint64_t pc; /* link-time virtual address where this rule starts */
	int32_t cfa_off;
	int32_t rbp_off;  /* relative to the CFA; meaningful when rbp_saved */
	uint8_t cfa_kind; /* enum enav_cfa_kind */
	uint8_t rbp_saved;
	uint8_t pad[6];
};

struct enav_eh_stats {
	uint32_t cies, fdes;
	uint32_t bad_records; /* malformed CIE/FDE skipped (length, pointer, augmentation) */
	/* rows made UNDEFINED (expressions, other CFA registers, a return address
	 * not at CFA-8) or whose rbp rule was given up (rbp in another register or
	 * an expression: taken as unchanged), counted before rows merge */
	uint32_t unsupported_rows;
	uint32_t truncated; /* 1 when max_rows was reached */
};

struct enav_eh_table {
	struct enav_unwind_row *rows; /* sorted by pc, strictly increasing */
	uint32_t n;
	struct enav_eh_stats stats;
};

/*
 * Build the table of one .eh_frame section: sec/len are its bytes,
 * sec_vaddr its sh_addr (pc-relative pointers are relative to it).  At most
 * max_rows rows are kept: the rows of FDEs in section order, each FDE whole or
 * not at all, until the next would not fit (stats.truncated is set then; the
 * cap counts rows before rows of adjacent FDEs merge).  0 on success
 * (possibly an empty table), -ENOMEM, or -EINVAL when the section is not
 * .eh_frame at all (first record unreadable).
 */
int enav_eh_frame_build(const uint8_t *sec, size_t len, uint64_t sec_vaddr, uint32_t max_rows,
			struct enav_eh_table *out);
void enav_eh_table_free(struct enav_eh_table *t);
/* The row covering pc (the last row with row.pc <= pc), NULL before the first. */
const struct enav_unwind_row *enav_eh_table_lookup(const struct enav_eh_table *t, uint64_t pc);

#endif
