/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The call-frame program interpreter of the .eh_frame parser (eh_frame.c
 * walks the records).  Only the rules an x86-64 frame-pointer-less unwinder
 * needs are tracked: the CFA, rbp and the return address; every other
 * register's rule is parsed and dropped.  A rule the table cannot express
 * (a register held in another register, an expression, a value rule) is
 * remembered as unsupported, never guessed.
 *
 * A program is untrusted: operands are read through the record-bounded
 * cursor, remember_state nests at most MAX_STATE_STACK deep, offsets that
 * overflow when scaled become unsupported rules, and an advance past the
 * FDE's range ends the run.
 */
#include "features/profiling/eh_frame_priv.h"

#include <string.h>

#define MAX_STATE_STACK 16

/* DW_CFA_* opcodes; the three with operands in the low six bits first. */
#define CFA_ADVANCE_LOC		    0x40
#define CFA_OFFSET		    0x80
#define CFA_RESTORE		    0xc0
#define CFA_NOP			    0x00
#define CFA_SET_LOC		    0x01
#define CFA_ADVANCE_LOC1	    0x02
#define CFA_ADVANCE_LOC2	    0x03
#define CFA_ADVANCE_LOC4	    0x04
#define CFA_OFFSET_EXTENDED	    0x05
#define CFA_RESTORE_EXTENDED	    0x06
#define CFA_UNDEFINED		    0x07
#define CFA_SAME_VALUE		    0x08
#define CFA_REGISTER		    0x09
#define CFA_REMEMBER_STATE	    0x0a
#define CFA_RESTORE_STATE	    0x0b
#define CFA_DEF_CFA		    0x0c
#define CFA_DEF_CFA_REGISTER	    0x0d
#define CFA_DEF_CFA_OFFSET	    0x0e
#define CFA_DEF_CFA_EXPRESSION	    0x0f
#define CFA_EXPRESSION		    0x10
#define CFA_OFFSET_EXTENDED_SF	    0x11
#define CFA_DEF_CFA_SF		    0x12
#define CFA_DEF_CFA_OFFSET_SF	    0x13
#define CFA_VAL_OFFSET		    0x14
#define CFA_VAL_OFFSET_SF	    0x15
#define CFA_VAL_EXPRESSION	    0x16
#define CFA_GNU_ARGS_SIZE	    0x2e
#define CFA_GNU_NEGATIVE_OFFSET_EXT 0x2f

/*
 * The CFA of a lazy PLT entry as binutils describes it: rsp + 8, plus 8
 * more once the entry has pushed its relocation index, which happens at a
 * fixed offset in every 16-byte entry:
 *   DW_OP_breg7 8; DW_OP_breg16 0; DW_OP_lit15; DW_OP_and; DW_OP_litN;
 *   DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
 * N is 11 for the classic entry and 10 for the IBT one (endbr64 first).
 */
static const uint8_t plt_expr[] = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a,
				   0x00, 0x2a, 0x33, 0x24, 0x22};
#define PLT_EXPR_LIT_AT 6 /* the DW_OP_litN byte, 0x30 + N */

static int64_t plt_threshold(const uint8_t *e, uint64_t len)
{
	if (len != sizeof(plt_expr))
		return -1;
	for (size_t i = 0; i < sizeof(plt_expr); i++)
		if (i != PLT_EXPR_LIT_AT && e[i] != plt_expr[i])
			return -1;
	if (e[PLT_EXPR_LIT_AT] != 0x30 + 10 && e[PLT_EXPR_LIT_AT] != 0x30 + 11)
		return -1;
	return e[PLT_EXPR_LIT_AT] - 0x30;
}

/* A factored offset times the CIE's data alignment; false on overflow. */
static bool scale_s(int64_t v, int64_t factor, int64_t *out)
{
	return !__builtin_mul_overflow(v, factor, out);
}

static bool scale_u(uint64_t v, int64_t factor, int64_t *out)
{
	return v <= INT64_MAX && scale_s((int64_t)v, factor, out);
}

/* The rule of reg when it is one we track, else NULL (its rule is dropped). */
static struct eh_rule *tracked(struct eh_state *st, const struct eh_cie *cie, uint64_t reg)
{
	if (reg == EH_REG_RBP)
		return &st->rbp;
	if (reg == cie->ra_reg)
		return &st->ra;
	return NULL;
}

static void set_rule(struct eh_state *st, const struct eh_cie *cie, uint64_t reg, uint8_t how,
		     int64_t off)
{
	struct eh_rule *r = tracked(st, cie, reg);

	if (r)
		*r = (struct eh_rule){.how = how, .off = off};
}

/* DW_CFA_offset and friends: saved at CFA + off, unsupported when off overflowed. */
static void set_saved(struct eh_state *st, const struct eh_cie *cie, uint64_t reg, bool ok,
		      int64_t off)
{
	set_rule(st, cie, reg, ok ? EH_OFFSET : EH_UNSUPP, ok ? off : 0);
}

/* DW_CFA_restore: back to the rule after the CIE's program (within the CIE: unset). */
static void restore(struct eh_prog *p, struct eh_state *st, uint64_t reg)
{
	struct eh_rule *r = tracked(st, p->cie, reg);

	if (!r)
		return;
	if (!p->init)
		*r = (struct eh_rule){.how = EH_SAME};
	else
		*r = r == &st->rbp ? p->init->rbp : p->init->ra;
}

static void def_cfa(struct eh_state *st, uint64_t reg, bool ok, int64_t off)
{
	st->cfa_how = ok ? EH_CFA_REG : EH_CFA_EXPR;
	st->cfa_reg = reg;
	st->cfa_off = ok ? off : 0;
}

/* Register or offset alone only make sense on top of a register rule. */
static void def_cfa_offset(struct eh_state *st, bool ok, int64_t off)
{
	if (st->cfa_how == EH_CFA_REG && ok)
		st->cfa_off = off;
	else
		st->cfa_how = EH_CFA_EXPR;
}

/* A block operand (expressions): its length, then its bytes, left at *at. */
static bool block(struct eh_cursor *c, uint64_t *len, const uint8_t **at)
{
	if (!enav_eh_uleb(c, len))
		return false;
	*at = c->sec + c->pos;
	return enav_eh_skip(c, *len);
}

/*
 * One instruction other than an advance.  false when it is malformed or
 * unknown.  The caller handles the advances and the state stack.
 */
static bool step(struct eh_prog *p, struct eh_state *st, uint8_t op)
{
	const struct eh_cie *cie = p->cie;
	struct eh_cursor *c = &p->c;
	uint64_t reg, u, reg2;
	int64_t s, off;
	const uint8_t *expr;

	switch (op & 0xc0) {
	case CFA_OFFSET:
		if (!enav_eh_uleb(c, &u))
			return false;
		set_saved(st, cie, op & 0x3f, scale_u(u, cie->data_align, &off), off);
		return true;
	case CFA_RESTORE:
		restore(p, st, op & 0x3f);
		return true;
	}
	switch (op) {
	case CFA_NOP:
		return true;
	case CFA_OFFSET_EXTENDED:
	case CFA_GNU_NEGATIVE_OFFSET_EXT: {
		if (!enav_eh_uleb(c, &reg) || !enav_eh_uleb(c, &u))
			return false;
		bool ok = scale_u(u, cie->data_align, &off);
		if (op == CFA_GNU_NEGATIVE_OFFSET_EXT)
			ok = ok && !__builtin_sub_overflow(0, off, &off);
		set_saved(st, cie, reg, ok, off);
		return true;
	}
	case CFA_OFFSET_EXTENDED_SF:
		if (!enav_eh_uleb(c, &reg) || !enav_eh_sleb(c, &s))
			return false;
		set_saved(st, cie, reg, scale_s(s, cie->data_align, &off), off);
		return true;
	case CFA_RESTORE_EXTENDED:
		if (!enav_eh_uleb(c, &reg))
			return false;
		restore(p, st, reg);
		return true;
	case CFA_UNDEFINED:
	case CFA_SAME_VALUE:
		if (!enav_eh_uleb(c, &reg))
			return false;
		set_rule(st, cie, reg, op == CFA_UNDEFINED ? EH_UNDEF : EH_SAME, 0);
		return true;
	case CFA_REGISTER:
		if (!enav_eh_uleb(c, &reg) || !enav_eh_uleb(c, &reg2))
			return false;
		set_rule(st, cie, reg, EH_UNSUPP, 0);
		return true;
	case CFA_VAL_OFFSET:
	case CFA_VAL_OFFSET_SF:
		if (!enav_eh_uleb(c, &reg) ||
		    !(op == CFA_VAL_OFFSET ? enav_eh_uleb(c, &u) : enav_eh_sleb(c, &s)))
			return false;
		set_rule(st, cie, reg, EH_UNSUPP, 0);
		return true;
	case CFA_EXPRESSION:
	case CFA_VAL_EXPRESSION:
		if (!enav_eh_uleb(c, &reg) || !block(c, &u, &expr))
			return false;
		set_rule(st, cie, reg, EH_UNSUPP, 0);
		return true;
	case CFA_DEF_CFA:
		if (!enav_eh_uleb(c, &reg) || !enav_eh_uleb(c, &u))
			return false;
		def_cfa(st, reg, u <= INT64_MAX, (int64_t)u);
		return true;
	case CFA_DEF_CFA_SF:
		if (!enav_eh_uleb(c, &reg) || !enav_eh_sleb(c, &s))
			return false;
		def_cfa(st, reg, scale_s(s, cie->data_align, &off), off);
		return true;
	case CFA_DEF_CFA_REGISTER:
		if (!enav_eh_uleb(c, &reg))
			return false;
		if (st->cfa_how == EH_CFA_REG)
			st->cfa_reg = reg;
		else
			st->cfa_how = EH_CFA_EXPR;
		return true;
	case CFA_DEF_CFA_OFFSET:
		if (!enav_eh_uleb(c, &u))
			return false;
		def_cfa_offset(st, u <= INT64_MAX, (int64_t)u);
		return true;
	case CFA_DEF_CFA_OFFSET_SF:
		if (!enav_eh_sleb(c, &s))
			return false;
		def_cfa_offset(st, scale_s(s, cie->data_align, &off), off);
		return true;
	case CFA_DEF_CFA_EXPRESSION: {
		if (!block(c, &u, &expr))
			return false;
		int64_t n = plt_threshold(expr, u);
		st->cfa_how = n < 0 ? EH_CFA_EXPR : EH_CFA_PLT;
		st->cfa_reg = 0;
		st->cfa_off = n < 0 ? 0 : n;
		return true;
	}
	case CFA_GNU_ARGS_SIZE:
		return enav_eh_uleb(c, &u);
	}
	return false;
}

/*
 * Whether op is an advance.  If so, *bytes is how far it moves (UINT64_MAX:
 * past any range) and *bad says its operand was malformed.
 */
static bool advance_of(struct eh_prog *p, uint8_t op, uint64_t pc, uint64_t *bytes, bool *bad)
{
	struct eh_cursor *c = &p->c;
	uint64_t units = 0, to;
	uint8_t u8 = 0;
	uint16_t u16 = 0;
	uint32_t u32 = 0;

	*bad = false;
	switch (op) {
	case CFA_ADVANCE_LOC1:
		*bad = !enav_eh_u8(c, &u8);
		units = u8;
		break;
	case CFA_ADVANCE_LOC2:
		*bad = !enav_eh_u16(c, &u16);
		units = u16;
		break;
	case CFA_ADVANCE_LOC4:
		*bad = !enav_eh_u32(c, &u32);
		units = u32;
		break;
	case CFA_SET_LOC:
		/* Backwards would reorder the rows already emitted: malformed. */
		*bad = !enav_eh_ptr(c, p->cie->fde_enc, false, &to) || to < pc;
		*bytes = *bad ? 0 : to - pc;
		return true;
	default:
		if ((op & 0xc0) != CFA_ADVANCE_LOC)
			return false;
		units = op & 0x3f;
	}
	if (*bad || __builtin_mul_overflow(units, p->cie->code_align, bytes))
		*bytes = UINT64_MAX;
	return true;
}

enum eh_run enav_eh_cfa_run(struct eh_prog *p, struct eh_state *st, eh_row_fn emit, void *ctx,
			    uint64_t *stop_pc)
{
	struct eh_state stack[MAX_STATE_STACK];
	unsigned depth = 0;
	uint64_t pc = p->pc, bytes;
	bool bad;

	while (p->c.pos < p->c.end) {
		uint8_t op;

		if (!enav_eh_u8(&p->c, &op))
			goto malformed;
		if (advance_of(p, op, pc, &bytes, &bad)) {
			/* The CIE's program sets the initial rules: no addresses there. */
			if (bad || !p->init)
				goto malformed;
			if (!emit(ctx, pc, st))
				return EH_RUN_FULL;
			if (bytes >= p->end - pc)
				return EH_RUN_OK; /* the rest applies past the range */
			pc += bytes;
		} else if (op == CFA_REMEMBER_STATE) {
			if (depth == MAX_STATE_STACK)
				goto malformed;
			stack[depth++] = *st;
		} else if (op == CFA_RESTORE_STATE) {
			if (depth == 0)
				goto malformed;
			*st = stack[--depth];
		} else if (!step(p, st, op)) {
			goto malformed;
		}
	}
	if (p->init && !emit(ctx, pc, st))
		return EH_RUN_FULL;
	return EH_RUN_OK;
malformed:
	*stop_pc = pc;
	return EH_RUN_BAD;
}

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

void enav_eh_state_row(const struct eh_cie *cie, const struct eh_state *st,
		       struct enav_unwind_row *row, bool *unsupported)
{
	uint64_t pc = row->pc;

	memset(row, 0, sizeof(*row));
	row->pc = pc;
	row->cfa_kind = ENAV_CFA_UNDEFINED;
	*unsupported = true;
	/* The psABI's return address column; anything else is not x86-64 code we know. */
	if (cie->ra_reg != EH_REG_RA)
		return;
	if (st->ra.how == EH_UNDEF) {
		row->cfa_kind = ENAV_CFA_END;
		*unsupported = false;
		return;
	}
	if (st->ra.how != EH_OFFSET || st->ra.off != -8)
		return;
	switch (st->cfa_how) {
	case EH_CFA_REG:
		if (!fits32(st->cfa_off) ||
		    (st->cfa_reg != EH_REG_RSP && st->cfa_reg != EH_REG_RBP))
			return;
		row->cfa_kind = st->cfa_reg == EH_REG_RSP ? ENAV_CFA_RSP : ENAV_CFA_RBP;
		break;
	case EH_CFA_PLT:
		row->cfa_kind = ENAV_CFA_PLT;
		break;
	default:
		return;
	}
	row->cfa_off = (int32_t)st->cfa_off;
	*unsupported = false;
	if (st->rbp.how == EH_OFFSET && fits32(st->rbp.off)) {
		row->rbp_saved = 1;
		row->rbp_off = (int32_t)st->rbp.off;
	} else if (st->rbp.how == EH_OFFSET || st->rbp.how == EH_UNSUPP) {
		/* The row stays usable; the caller's rbp is taken as unchanged. */
		*unsupported = true;
	}
}
