/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the .eh_frame unwind table (src/features/profiling/
 * eh_frame.c, eh_frame_cfa.c) and its ELF accessor (elf_symtab.c): sections
 * built byte by byte here for each rule (the frame-pointer prologue, state
 * stacks, the PLT expression, the outermost frame, overlapping FDEs, the
 * row cap, malformed and truncated records), then the tables of real
 * binaries: the libc this test runs on, checked at the entry of one of its
 * functions, and python3.11 and nginx when installed (row counts and build
 * times printed, not asserted).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "features/profiling/eh_frame.h"
#include "features/profiling/symbolize_priv.h"

#define VADDR 0x40000u /* sh_addr of every built section */

/* ---- building sections ------------------------------------------------------------ */

struct blob {
	uint8_t b[4096];
	size_t n;
};

static void put(struct blob *s, const void *p, size_t n)
{
	if (n == 0)
		return;
	assert_true(s->n + n <= sizeof(s->b));
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void put_le(struct blob *s, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t b = (uint8_t)(v >> (8 * i));
		put(s, &b, 1);
	}
}

static void put_uleb(struct blob *s, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		if (v)
			b |= 0x80;
		put(s, &b, 1);
	} while (v);
}

static void put_sleb(struct blob *s, int64_t v)
{
	for (;;) {
		uint8_t b = v & 0x7f;
		v >>= 7; /* arithmetic on every compiler we build with */
		bool done = (v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40));
		if (!done)
			b |= 0x80;
		put(s, &b, 1);
		if (done)
			return;
	}
}

/* A record's length field, patched by end_record. */
static size_t begin_record(struct blob *s)
{
	size_t at = s->n;

	put_le(s, 0, 4);
	return at;
}

static void end_record(struct blob *s, size_t at)
{
	uint32_t len = (uint32_t)(s->n - at - 4);

	memcpy(s->b + at, &len, 4);
}

/* The CIE gcc emits on x86-64: "zR", pc-relative sdata4 FDE pointers,
 * CFA = rsp + 8, return address at CFA - 8. */
static const uint8_t gcc_cie_insns[] = {0x0c, 0x07, 0x08, 0x90, 0x01};

static size_t add_cie(struct blob *s, uint8_t version, const char *aug, const void *aug_data,
		      size_t aug_len, uint64_t ra, const void *insns, size_t n)
{
	size_t at = begin_record(s);

	put_le(s, 0, 4); /* CIE id */
	put(s, &version, 1);
	put(s, aug, strlen(aug) + 1);
	put_uleb(s, 1);	 /* code alignment */
	put_sleb(s, -8); /* data alignment */
	if (version == 1)
		put_le(s, ra, 1);
	else
		put_uleb(s, ra);
	if (aug[0] == 'z') {
		put_uleb(s, aug_len);
		put(s, aug_data, aug_len);
	}
	put(s, insns, n);
	end_record(s, at);
	return at;
}

static size_t gcc_cie(struct blob *s)
{
	static const uint8_t enc = 0x1b; /* DW_EH_PE_pcrel | DW_EH_PE_sdata4 */

	return add_cie(s, 1, "zR", &enc, 1, 16, gcc_cie_insns, sizeof(gcc_cie_insns));
}

/* An FDE of a "zR" CIE with sdata4 pc-relative pointers, no augmentation data. */
static void add_fde(struct blob *s, size_t cie, uint64_t begin, uint32_t range, const void *insns,
		    size_t n)
{
	size_t at = begin_record(s);

	put_le(s, s->n - cie, 4);
	put_le(s, (uint32_t)(int32_t)(begin - (VADDR + s->n)), 4);
	put_le(s, range, 4);
	put_uleb(s, 0);
	put(s, insns, n);
	end_record(s, at);
}

/* ---- checking tables -------------------------------------------------------------- */

static void build(const struct blob *s, uint32_t max_rows, struct enav_eh_table *t)
{
	assert_int_equal(enav_eh_frame_build(s->b, s->n, VADDR, max_rows, t), 0);
}

/* The table's invariants: pcs strictly increasing, no rule repeated, padding zero. */
static void check_sorted(const struct enav_eh_table *t)
{
	for (uint32_t i = 0; i < t->n; i++) {
		const struct enav_unwind_row *r = &t->rows[i];
		static const uint8_t zero[sizeof(r->pad)];

		assert_true(r->cfa_kind <= ENAV_CFA_END);
		assert_memory_equal(r->pad, zero, sizeof(zero));
		if (i == 0)
			continue;
		const struct enav_unwind_row *p = &t->rows[i - 1];
		assert_true(p->pc < r->pc);
		assert_false(p->cfa_kind == r->cfa_kind && p->cfa_off == r->cfa_off &&
			     p->rbp_saved == r->rbp_saved && p->rbp_off == r->rbp_off);
	}
}

/* The rule at pc: kind, CFA offset, and rbp's offset (0: not saved). */
static void expect(const struct enav_eh_table *t, uint64_t pc, int kind, int32_t cfa_off,
		   int32_t rbp_off)
{
	const struct enav_unwind_row *r = enav_eh_table_lookup(t, pc);

	assert_non_null(r);
	assert_true(r->pc <= pc);
	if (r->cfa_kind != kind || r->cfa_off != cfa_off || r->rbp_saved != (rbp_off != 0) ||
	    r->rbp_off != rbp_off)
		fail_msg("at %#llx: kind %u cfa_off %d rbp %u/%d, want %d %d %d",
			 (unsigned long long)pc, r->cfa_kind, r->cfa_off, r->rbp_saved, r->rbp_off,
			 kind, cfa_off, rbp_off);
}

/* ---- built sections --------------------------------------------------------------- */

static void test_basic(void **state)
{
	struct blob s = {0};
	struct enav_eh_table t;

	size_t cie = gcc_cie(&s);
	add_fde(&s, cie, 0x1000, 0x10, NULL, 0);
	build(&s, 100, &t);
	check_sorted(&t);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.stats.cies, 1);
	assert_int_equal(t.stats.fdes, 1);
	assert_int_equal(t.stats.bad_records, 0);
	assert_int_equal(t.stats.unsupported_rows, 0);
	assert_int_equal(t.stats.truncated, 0);
	assert_null(enav_eh_table_lookup(&t, 0xfff));
	expect(&t, 0x1000, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x100f, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x1010, ENAV_CFA_UNDEFINED, 0, 0);
	expect(&t, UINT64_MAX, ENAV_CFA_UNDEFINED, 0, 0);
	enav_eh_table_free(&t);
	assert_null(t.rows);

	/* Empty sections and a lone terminator: empty tables, not errors. */
	build(&s, 0, &t);
	assert_int_equal(t.n, 0);
	assert_int_equal(t.stats.truncated, 1);
	assert_int_equal(enav_eh_frame_build(s.b, 0, VADDR, 100, &t), 0);
	assert_int_equal(t.n, 0);
	assert_null(enav_eh_table_lookup(&t, 0x1000));
	static const uint8_t term[4] = {0};
	assert_int_equal(enav_eh_frame_build(term, sizeof(term), VADDR, 100, &t), 0);
	assert_int_equal(t.n, 0);
}

/* push %rbp; mov %rsp,%rbp; ... leave; ret */
static void test_frame_pointer_prologue(void **state)
{
	static const uint8_t insns[] = {
	    0x41,	      /* advance_loc 1: after push %rbp */
	    0x0e, 0x10,	      /* def_cfa_offset 16 */
	    0x86, 0x02,	      /* offset r6 (rbp) at cfa-16 */
	    0x43,	      /* advance_loc 3: after mov %rsp,%rbp */
	    0x0d, 0x06,	      /* def_cfa_register r6 */
	    0x60,	      /* advance_loc 0x20: after leave */
	    0x0c, 0x07, 0x08, /* def_cfa rsp 8 */
	    0xc6,	      /* restore r6 */
	};
	struct blob s = {0};
	struct enav_eh_table t;

	size_t cie = gcc_cie(&s);
	add_fde(&s, cie, 0x2000, 0x30, insns, sizeof(insns));
	build(&s, 100, &t);
	check_sorted(&t);
	expect(&t, 0x2000, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x2001, ENAV_CFA_RSP, 16, -16);
	expect(&t, 0x2003, ENAV_CFA_RSP, 16, -16);
	expect(&t, 0x2004, ENAV_CFA_RBP, 16, -16);
	expect(&t, 0x2023, ENAV_CFA_RBP, 16, -16);
	expect(&t, 0x2024, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x2030, ENAV_CFA_UNDEFINED, 0, 0);
	assert_int_equal(t.n, 5);
	enav_eh_table_free(&t);
}

static void test_state_stack(void **state)
{
	static const uint8_t insns[] = {
	    0x41, 0x0e, 0x10, /* +1: cfa rsp+16 */
	    0x41, 0x0a,	      /* +1: remember */
	    0x0e, 0x08,	      /* cfa rsp+8 (a tail-call exit) */
	    0x41, 0x0b,	      /* +1: restore -> rsp+16 */
	    0x41, 0x0e, 0x08, /* +1: rsp+8 */
	};
	struct blob s = {0};
	struct enav_eh_table t;

	size_t cie = gcc_cie(&s);
	add_fde(&s, cie, 0x1000, 0x10, insns, sizeof(insns));
	build(&s, 100, &t);
	check_sorted(&t);
	expect(&t, 0x1000, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x1001, ENAV_CFA_RSP, 16, 0);
	expect(&t, 0x1002, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x1003, ENAV_CFA_RSP, 16, 0);
	expect(&t, 0x1004, ENAV_CFA_RSP, 8, 0);
	assert_int_equal(t.stats.bad_records, 0);
	enav_eh_table_free(&t);

	/* 17 nested remembers: the rows before are kept, the rest is UNDEFINED. */
	uint8_t deep[2 + 17];
	deep[0] = 0x42; /* +2 */
	deep[1] = 0x00; /* nop */
	memset(deep + 2, 0x0a, 17);
	struct blob s2 = {0};
	cie = gcc_cie(&s2);
	add_fde(&s2, cie, 0x1000, 0x10, deep, sizeof(deep));
	build(&s2, 100, &t);
	check_sorted(&t);
	expect(&t, 0x1001, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x1002, ENAV_CFA_UNDEFINED, 0, 0);
	assert_int_equal(t.stats.bad_records, 1);
	enav_eh_table_free(&t);

	/* 16 are fine; restore_state with nothing remembered is not. */
	struct blob s3 = {0};
	cie = gcc_cie(&s3);
	add_fde(&s3, cie, 0x1000, 0x10, deep, sizeof(deep) - 1);
	static const uint8_t underflow[] = {0x43, 0x0b};
	add_fde(&s3, cie, 0x2000, 0x10, underflow, sizeof(underflow));
	build(&s3, 100, &t);
	expect(&t, 0x100f, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x2002, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x2003, ENAV_CFA_UNDEFINED, 0, 0);
	assert_int_equal(t.stats.bad_records, 1);
	enav_eh_table_free(&t);
}

static void plt_fde(struct blob *s, size_t cie, uint64_t at, uint8_t lit)
{
	const uint8_t insns[] = {
	    0x46, 0x0e, 0x18, /* +6: cfa rsp+24 (PLT0's two pushes) */
	    0x4a, 0x0f, 0x0b, /* +10: def_cfa_expression, 11 bytes */
	    0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, lit, 0x2a, 0x33, 0x24, 0x22,
	};

	add_fde(s, cie, at, 0x40, insns, sizeof(insns));
}

static void test_plt_expression(void **state)
{
	struct blob s = {0};
	struct enav_eh_table t;

	size_t cie = gcc_cie(&s);
	plt_fde(&s, cie, 0x1000, 0x3b); /* DW_OP_lit11 */
	plt_fde(&s, cie, 0x2000, 0x3a); /* DW_OP_lit10: IBT */
	plt_fde(&s, cie, 0x3000, 0x3c); /* DW_OP_lit12: not binutils' */
	build(&s, 100, &t);
	check_sorted(&t);
	expect(&t, 0x1000, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x1006, ENAV_CFA_RSP, 24, 0);
	expect(&t, 0x1010, ENAV_CFA_PLT, 11, 0);
	expect(&t, 0x103f, ENAV_CFA_PLT, 11, 0);
	expect(&t, 0x1040, ENAV_CFA_UNDEFINED, 0, 0);
	expect(&t, 0x2010, ENAV_CFA_PLT, 10, 0);
	expect(&t, 0x3010, ENAV_CFA_UNDEFINED, 0, 0);
	expect(&t, 0x3006, ENAV_CFA_RSP, 24, 0);
	assert_int_equal(t.stats.unsupported_rows, 1);
	assert_int_equal(t.stats.bad_records, 0);
	enav_eh_table_free(&t);
}

static void test_outermost_and_return_address(void **state)
{
	static const uint8_t undef_ra[] = {0x07, 0x10};			/* undefined r16 */
	static const uint8_t ra_elsewhere[] = {0x41, 0x09, 0x10, 0x01}; /* +1: r16 in rdx */
	struct blob s = {0};
	struct enav_eh_table t;

	size_t cie = gcc_cie(&s);
	add_fde(&s, cie, 0x1000, 0x10, undef_ra, sizeof(undef_ra));
	add_fde(&s, cie, 0x2000, 0x10, ra_elsewhere, sizeof(ra_elsewhere));
	/* A CIE whose return address column is not r16: never x86-64 code we know. */
	static const uint8_t enc = 0x1b;
	size_t other = add_cie(&s, 1, "zR", &enc, 1, 15, gcc_cie_insns, sizeof(gcc_cie_insns));
	add_fde(&s, other, 0x3000, 0x10, NULL, 0);
	/* One with the return address at CFA-16. */
	static const uint8_t odd_insns[] = {0x0c, 0x07, 0x08, 0x90, 0x02};
	size_t odd = add_cie(&s, 1, "zR", &enc, 1, 16, odd_insns, sizeof(odd_insns));
	add_fde(&s, odd, 0x4000, 0x10, NULL, 0);
	build(&s, 100, &t);
	check_sorted(&t);
	expect(&t, 0x1000, ENAV_CFA_END, 0, 0);
	expect(&t, 0x1010, ENAV_CFA_UNDEFINED, 0, 0);
	expect(&t, 0x2000, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x2001, ENAV_CFA_UNDEFINED, 0, 0);
	expect(&t, 0x3000, ENAV_CFA_UNDEFINED, 0, 0);
	expect(&t, 0x4000, ENAV_CFA_UNDEFINED, 0, 0);
	assert_int_equal(t.stats.unsupported_rows, 3);
	assert_int_equal(t.stats.cies, 3);
	assert_int_equal(t.stats.bad_records, 0);
	enav_eh_table_free(&t);
}

static void test_overlapping_fdes(void **state)
{
	static const uint8_t rsp16[] = {0x0e, 0x10}; /* cfa rsp+16 from the start */
	struct blob s = {0};
	struct enav_eh_table t;

	size_t cie = gcc_cie(&s);
	add_fde(&s, cie, 0x1000, 0x100, NULL, 0);
	add_fde(&s, cie, 0x1100, 0x100, rsp16, sizeof(rsp16)); /* starts where the first ends */
	add_fde(&s, cie, 0x1000, 0x80, rsp16, sizeof(rsp16));  /* same start as the first */
	add_fde(&s, cie, 0x1180, 0x10, NULL, 0);	       /* inside the second */
	build(&s, 100, &t);
	check_sorted(&t);
	expect(&t, 0x1000, ENAV_CFA_RSP, 8, 0);	      /* the earliest FDE wins */
	expect(&t, 0x1080, ENAV_CFA_UNDEFINED, 0, 0); /* where the third ends */
	expect(&t, 0x1100, ENAV_CFA_RSP, 16, 0);      /* defined beats UNDEFINED */
	expect(&t, 0x1180, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x1190, ENAV_CFA_UNDEFINED, 0, 0);
	expect(&t, 0x1200, ENAV_CFA_UNDEFINED, 0, 0);
	enav_eh_table_free(&t);
}

static void test_truncated_and_terminated(void **state)
{
	struct blob s = {0};
	struct enav_eh_table t;

	size_t cie = gcc_cie(&s);
	add_fde(&s, cie, 0x1000, 0x10, NULL, 0);
	size_t whole = s.n;
	add_fde(&s, cie, 0x2000, 0x10, NULL, 0);

	/* Cut inside the second FDE: the first still counts. */
	assert_int_equal(enav_eh_frame_build(s.b, s.n - 3, VADDR, 100, &t), 0);
	expect(&t, 0x1000, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x2000, ENAV_CFA_UNDEFINED, 0, 0);
	assert_int_equal(t.stats.fdes, 1);
	assert_int_equal(t.stats.bad_records, 1);
	enav_eh_table_free(&t);
	/* Cut inside the first record: not .eh_frame at all. */
	assert_int_equal(enav_eh_frame_build(s.b, 10, VADDR, 100, &t), -EINVAL);
	assert_int_equal(enav_eh_frame_build(s.b, 2, VADDR, 100, &t), -EINVAL);
	assert_int_equal(t.n, 0);
	assert_null(t.rows);

	/* A terminator ends the section even with records after it. */
	struct blob z = {0};
	put(&z, s.b, whole);
	put_le(&z, 0, 4);
	put(&z, s.b + whole, s.n - whole);
	build(&z, 100, &t);
	assert_int_equal(t.stats.fdes, 1);
	expect(&t, 0x2000, ENAV_CFA_UNDEFINED, 0, 0);
	enav_eh_table_free(&t);
}

static void test_max_rows(void **state)
{
	static const uint8_t two[] = {0x41, 0x0e, 0x10}; /* 3 rows with the end */
	struct blob s = {0};
	struct enav_eh_table t;

	size_t cie = gcc_cie(&s);
	add_fde(&s, cie, 0x1000, 0x10, two, sizeof(two));
	add_fde(&s, cie, 0x2000, 0x10, two, sizeof(two));
	add_fde(&s, cie, 0x3000, 0x10, two, sizeof(two));
	build(&s, 9, &t);
	assert_int_equal(t.n, 9);
	assert_int_equal(t.stats.truncated, 0);
	enav_eh_table_free(&t);
	/* 7 rows: the third FDE does not fit whole, so none of it goes in. */
	build(&s, 7, &t);
	check_sorted(&t);
	assert_int_equal(t.n, 6);
	assert_int_equal(t.stats.truncated, 1);
	expect(&t, 0x2001, ENAV_CFA_RSP, 16, 0);
	expect(&t, 0x3001, ENAV_CFA_UNDEFINED, 0, 0);
	enav_eh_table_free(&t);
	build(&s, 4, &t);
	assert_int_equal(t.n, 3);
	assert_int_equal(t.stats.truncated, 1);
	expect(&t, 0x2000, ENAV_CFA_UNDEFINED, 0, 0);
	enav_eh_table_free(&t);
}

/* Encodings and instructions beyond gcc's everyday ones. */
static void test_encodings(void **state)
{
	struct blob s = {0};
	struct enav_eh_table t;

	/* "zPLR": indirect pc-relative personality, LSDA in the FDE's augmentation data. */
	uint8_t aug[1 + 1 + 4 + 1 + 1] = {0x9b, 0, 0, 0, 0, 0x1b, 0x1b};
	size_t cie = add_cie(&s, 3, "zPLR", aug, 7, 16, gcc_cie_insns, sizeof(gcc_cie_insns));
	size_t at = begin_record(&s);
	put_le(&s, s.n - cie, 4);
	put_le(&s, (uint32_t)(int32_t)(0x1000 - (int64_t)(VADDR + s.n)), 4);
	put_le(&s, 0x10, 4);
	put_uleb(&s, 4);
	put_le(&s, 0x1234, 4); /* the LSDA */
	static const uint8_t insns[] = {
	    0x02, 0x01,		       /* advance_loc1 1 */
	    0x11, 0x06, 0x7e,	       /* offset_extended_sf r6, -2 -> cfa-16... times -8: +16 */
	    0x03, 0x01, 0x00,	       /* advance_loc2 1 */
	    0x05, 0x06, 0x03,	       /* offset_extended r6, 3 -> cfa-24 */
	    0x04, 0x01, 0,    0,    0, /* advance_loc4 1 */
	    0x12, 0x07, 0x7c,	       /* def_cfa_sf rsp, -4 -> 32 */
	    0x2e, 0x10,		       /* GNU_args_size 16 */
	    0x41, 0x2f, 0x06, 0x05,    /* +1: GNU_negative_offset_extended r6, 5 -> cfa+40 */
	    0x41, 0x13, 0x7e,	       /* +1: def_cfa_offset_sf -2 -> 16 */
	    0x08, 0x06,		       /* same_value r6 */
	    0x41, 0x09, 0x06, 0x03,    /* +1: rbp in rbx: given up */
	    0x41, 0x06, 0x06,	       /* +1: restore_extended r6 */
	    0x10, 0x03, 0x01, 0x30,    /* expression r3 (ignored) */
	    0x16, 0x0c, 0x01, 0x30,    /* val_expression r12 (ignored) */
	    0x14, 0x0d, 0x01,	       /* val_offset r13 (ignored) */
	    0x41, 0x3f,		       /* +1: an opcode we do not know */
	};
	put(&s, insns, sizeof(insns));
	end_record(&s, at);
	build(&s, 100, &t);
	check_sorted(&t);
	expect(&t, 0x1000, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x1001, ENAV_CFA_RSP, 8, 16);
	expect(&t, 0x1002, ENAV_CFA_RSP, 8, -24);
	expect(&t, 0x1003, ENAV_CFA_RSP, 32, -24);
	expect(&t, 0x1004, ENAV_CFA_RSP, 32, 40);
	expect(&t, 0x1005, ENAV_CFA_RSP, 16, 0);
	expect(&t, 0x1006, ENAV_CFA_RSP, 16, 0);
	expect(&t, 0x1007, ENAV_CFA_RSP, 16, 0);
	expect(&t, 0x1008, ENAV_CFA_UNDEFINED, 0, 0); /* the unknown opcode */
	assert_int_equal(t.stats.bad_records, 1);
	assert_int_equal(t.stats.unsupported_rows, 1);
	enav_eh_table_free(&t);

	/* No augmentation (absolute 8-byte pointers), the 64-bit length format. */
	struct blob a = {0};
	cie = add_cie(&a, 1, "", NULL, 0, 16, gcc_cie_insns, sizeof(gcc_cie_insns));
	put_le(&a, 0xffffffff, 4);
	size_t len_at = a.n;
	put_le(&a, 0, 8);
	put_le(&a, a.n - cie, 4);
	put_le(&a, 0x5000, 8);
	put_le(&a, 0x20, 8);
	static const uint8_t big_advance[] = {0x04, 0xff, 0xff, 0xff, 0xff, 0x0e, 0x10};
	put(&a, big_advance, sizeof(big_advance));
	uint64_t len64 = a.n - len_at - 8;
	memcpy(a.b + len_at, &len64, 8);
	build(&a, 100, &t);
	check_sorted(&t);
	assert_int_equal(t.n, 2); /* the advance left the range */
	expect(&t, 0x501f, ENAV_CFA_RSP, 8, 0);
	expect(&t, 0x5020, ENAV_CFA_UNDEFINED, 0, 0);
	assert_int_equal(t.stats.bad_records, 0);
	enav_eh_table_free(&t);
}

static void test_malformed_records(void **state)
{
	struct blob s = {0};
	struct enav_eh_table t;

	size_t cie = gcc_cie(&s);
	/* Data-relative FDE pointers need a base the section lacks. */
	static const uint8_t datarel = 0x3b;
	size_t dcie = add_cie(&s, 1, "zR", &datarel, 1, 16, gcc_cie_insns, sizeof(gcc_cie_insns));
	add_fde(&s, dcie, 0x1000, 0x10, NULL, 0);
	/* Unknown version and augmentation. */
	add_cie(&s, 2, "zR", &datarel, 1, 16, NULL, 0);
	add_cie(&s, 1, "zX", &datarel, 1, 16, NULL, 0);
	/* A CIE pointer before the section and one at an FDE. */
	size_t at = begin_record(&s);
	put_le(&s, 0x7fffffff, 4);
	put_le(&s, 0, 8);
	end_record(&s, at);
	size_t fde = s.n;
	add_fde(&s, cie, 0x2000, 0x10, NULL, 0);
	add_fde(&s, fde, 0x3000, 0x10, NULL, 0);
	/* A range that wraps, and a discarded function (pc_begin 0): skipped. */
	add_fde(&s, cie, 0xfffffffffffffff0ull, 0x20, NULL, 0);
	add_fde(&s, cie, 0, 0x10, NULL, 0);
	/* An advance inside a CIE's initial instructions. */
	static const uint8_t enc = 0x1b, advancing[] = {0x0c, 0x07, 0x08, 0x90, 0x01, 0x41};
	size_t acie = add_cie(&s, 1, "zR", &enc, 1, 16, advancing, sizeof(advancing));
	add_fde(&s, acie, 0x4000, 0x10, NULL, 0);
	build(&s, 100, &t);
	check_sorted(&t);
	assert_int_equal(t.n, 2);
	expect(&t, 0x2000, ENAV_CFA_RSP, 8, 0);
	assert_int_equal(t.stats.cies, 5);
	assert_int_equal(t.stats.fdes, 7);
	/* CIEs: datarel, version 2, "zX", advancing; FDEs: the datarel one, the
	 * two bad pointers, the wrap, the advancing CIE's. */
	assert_int_equal(t.stats.bad_records, 9);
	enav_eh_table_free(&t);
}

/* ---- real binaries ---------------------------------------------------------------- */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The table of the ELF at path; false when it has no .eh_frame. */
static bool file_table(const char *path, struct enav_eh_table *t, uint64_t *sec_vaddr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint8_t *buf = NULL;
	size_t len;

	assert_true(fd >= 0);
	struct enav_elf *e = enav_elf_open_fd(fd);
	assert_non_null(e);
	int rc = enav_elf_eh_frame(e, 64u << 20, &buf, &len, sec_vaddr);
	enav_elf_close(e);
	close(fd);
	if (rc == -ENOENT)
		return false;
	assert_int_equal(rc, 0);
	double t0 = now_ms();
	assert_int_equal(enav_eh_frame_build(buf, len, *sec_vaddr, 4u << 20, t), 0);
	print_message("%s: .eh_frame %zu bytes, %u rows, %u FDEs, %u bad, %u unsupported, "
		      "built in %.1f ms\n",
		      path, len, t->n, t->stats.fdes, t->stats.bad_records,
		      t->stats.unsupported_rows, now_ms() - t0);
	free(buf);
	check_sorted(t);
	return true;
}

static void test_real_libc(void **state)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	Dl_info info;
	struct enav_eh_table t;
	uint64_t sec_vaddr;

	assert_non_null(h);
	void *fn = dlsym(h, "getpid");
	assert_non_null(fn);
	assert_true(dladdr(fn, &info) != 0 && info.dli_fname && info.dli_fbase);
	/* libc's first segment is at 0: its link-time addresses are offsets from its base. */
	uint64_t vaddr = (uint64_t)((uintptr_t)fn - (uintptr_t)info.dli_fbase);
	assert_true(file_table(info.dli_fname, &t, &sec_vaddr));
	assert_true(t.n > 1000);
	assert_int_equal(t.stats.bad_records, 0);
	assert_int_equal(t.stats.truncated, 0);
	/* At a function's entry the CFA is rsp+8: only the return address is pushed. */
	expect(&t, vaddr, ENAV_CFA_RSP, 8, 0);
	uint32_t plt = 0, rbp = 0;
	for (uint32_t i = 0; i < t.n; i++) {
		plt += t.rows[i].cfa_kind == ENAV_CFA_PLT;
		rbp += t.rows[i].cfa_kind == ENAV_CFA_RBP;
	}
	print_message("libc getpid at %#llx; %u PLT rows, %u rbp-based rows\n",
		      (unsigned long long)vaddr, plt, rbp);
	assert_true(plt >= 1);
	enav_eh_table_free(&t);
	dlclose(h);
}

static void test_real_others(void **state)
{
	static const char *const paths[] = {"/usr/bin/python3.11", "/usr/sbin/nginx", "/bin/true"};
	struct enav_eh_table t;
	uint64_t sec_vaddr;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (access(paths[i], R_OK) != 0) {
			print_message("%s: not installed\n", paths[i]);
			continue;
		}
		if (file_table(paths[i], &t, &sec_vaddr))
			enav_eh_table_free(&t);
	}
}

static void run(const char *fmt, ...)
{
	char cmd[PATH_MAX * 3];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
}

/* The accessor's answers: no section, a NOBITS one, one too large. */
static void test_elf_accessor(void **state)
{
	char dir[] = "/tmp/enav_eh_frame_XXXXXX", none[PATH_MAX], dbg[PATH_MAX];
	uint8_t *buf = (uint8_t *)1;
	size_t len = 1;
	uint64_t va = 1;

	if (system("command -v objcopy >/dev/null 2>&1") != 0)
		fail_msg("objcopy (binutils) not found: it builds the fixtures");
	assert_non_null(mkdtemp(dir));
	snprintf(none, sizeof(none), "%s/none", dir);
	snprintf(dbg, sizeof(dbg), "%s/dbg", dir);
	run("objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr /bin/true '%s'",
	    none);
	run("objcopy --only-keep-debug /bin/true '%s'", dbg);
	const char *files[] = {none, dbg, "/bin/true"};
	for (int i = 0; i < 3; i++) {
		int fd = open(files[i], O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		struct enav_elf *e = enav_elf_open_fd(fd);
		assert_non_null(e);
		if (i < 2) {
			assert_int_equal(enav_elf_eh_frame(e, 64u << 20, &buf, &len, &va), -ENOENT);
			assert_null(buf);
			assert_int_equal(len, 0);
		} else {
			assert_int_equal(enav_elf_eh_frame(e, 16, &buf, &len, &va), -E2BIG);
			assert_int_equal(enav_elf_eh_frame(e, 64u << 20, &buf, &len, &va), 0);
			assert_true(len > 16 && va > 0);
			free(buf);
		}
		enav_elf_close(e);
		close(fd);
	}
	run("rm -rf '%s'", dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_basic),
	    cmocka_unit_test(test_frame_pointer_prologue),
	    cmocka_unit_test(test_state_stack),
	    cmocka_unit_test(test_plt_expression),
	    cmocka_unit_test(test_outermost_and_return_address),
	    cmocka_unit_test(test_overlapping_fdes),
	    cmocka_unit_test(test_truncated_and_terminated),
	    cmocka_unit_test(test_max_rows),
	    cmocka_unit_test(test_encodings),
	    cmocka_unit_test(test_malformed_records),
	    cmocka_unit_test(test_real_libc),
	    cmocka_unit_test(test_real_others),
	    cmocka_unit_test(test_elf_accessor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
