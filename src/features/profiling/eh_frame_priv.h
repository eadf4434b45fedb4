/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Internals of the .eh_frame parser shared by its two files: eh_frame.c
 * walks the records and decodes their fields, eh_frame_cfa.c runs the
 * call-frame programs.  Nothing outside those two files uses this header.
 */
#ifndef ENAV_FEATURES_PROFILING_EH_FRAME_PRIV_H
#define ENAV_FEATURES_PROFILING_EH_FRAME_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "features/profiling/eh_frame.h"

/* DWARF register numbers on x86-64. */
#define EH_REG_RBP 6
#define EH_REG_RSP 7
#define EH_REG_RA  16

/*
 * A read position inside one record: [pos, end) of sec.  Every read checks
 * against end, so a field can never run into the next record.
 */
struct eh_cursor {
	const uint8_t *sec;
	size_t pos, end;
	uint64_t sec_vaddr; /* pc-relative pointers are relative to sec_vaddr + pos */
};

bool enav_eh_u8(struct eh_cursor *c, uint8_t *v);
bool enav_eh_u16(struct eh_cursor *c, uint16_t *v);
bool enav_eh_u32(struct eh_cursor *c, uint32_t *v);
bool enav_eh_uleb(struct eh_cursor *c, uint64_t *v);
bool enav_eh_sleb(struct eh_cursor *c, int64_t *v);
bool enav_eh_skip(struct eh_cursor *c, uint64_t n);
/*
 * A pointer in encoding enc (DW_EH_PE_*).  Only absolute and pc-relative
 * values are accepted: text-, data- and function-relative ones need bases
 * the section alone does not give.  allow_indirect lets the value be the
 * address of the pointer (fine for a personality routine that is skipped,
 * never for an FDE's start).  DW_EH_PE_omit is not a pointer: refused.
 */
bool enav_eh_ptr(struct eh_cursor *c, uint8_t enc, bool allow_indirect, uint64_t *v);

/* How a register is recovered in the caller, for the two tracked besides the CFA. */
enum eh_how {
	EH_SAME = 0, /* unchanged (the default for rbp, and "not set yet" for the return address) */
	EH_OFFSET,   /* saved at CFA + off */
	EH_UNDEF,    /* DW_CFA_undefined */
	EH_UNSUPP,   /* in another register, an expression, a value rule */
};

enum eh_cfa_how {
	EH_CFA_REG = 0, /* CFA = reg + off */
	EH_CFA_PLT,	/* the PLT expression; off holds its threshold */
	EH_CFA_EXPR,	/* any other expression, or an offset on top of one */
};

struct eh_rule {
	uint8_t how; /* enum eh_how */
	int64_t off;
};

/* One row of the call-frame table while a program runs. */
struct eh_state {
	uint8_t cfa_how; /* enum eh_cfa_how */
	uint64_t cfa_reg;
	int64_t cfa_off;
	struct eh_rule rbp, ra;
};

struct eh_cie {
	uint64_t code_align; /* never 0 */
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc;   /* DW_EH_PE_* of the FDEs' pc_begin and pc_range */
	bool aug_data;	   /* 'z': FDEs carry an augmentation data length */
	size_t insns, end; /* initial instructions: [insns, end) of the section */
};

/* Called once per row: the state from pc until the next row; false stops the run. */
typedef bool (*eh_row_fn)(void *ctx, uint64_t pc, const struct eh_state *st);

enum eh_run {
	EH_RUN_OK = 0,
	EH_RUN_BAD,  /* malformed program: the rows from stop_pc on are unknown */
	EH_RUN_FULL, /* emit returned false */
};

struct eh_prog {
	const struct eh_cie *cie;
	const struct eh_state *init; /* after the CIE's program; NULL while running it */
	struct eh_cursor c;	     /* the instructions */
	uint64_t pc, end;	     /* the FDE's range; unused for the CIE */
};

/*
 * Run a call-frame program from *st.  For the CIE (init NULL, emit NULL) any
 * advance is malformed.  For an FDE, emit sees the state at prog->pc and at
 * each later address the state is in effect (rows past end are never
 * emitted: an advance beyond the range ends the run); *stop_pc is where a
 * malformed program stopped.
 */
enum eh_run enav_eh_cfa_run(struct eh_prog *prog, struct eh_state *st, eh_row_fn emit, void *ctx,
			    uint64_t *stop_pc);

/* The table row of a state; *unsupported when a rule had to be given up. */
void enav_eh_state_row(const struct eh_cie *cie, const struct eh_state *st,
		       struct enav_unwind_row *row, bool *unsupported);

#endif
