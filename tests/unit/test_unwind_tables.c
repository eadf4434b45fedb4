/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the kernel row encoding of unwind tables
 * (enav_unwind_encode in src/features/profiling/unwind_tables.c): what the
 * 8-byte rows can hold, what falls back to frame pointers, caps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <string.h>

#include "features/profiling/unwind_tables.h"

static struct enav_unwind_row row(uint64_t pc, uint8_t kind, int32_t cfa_off, int32_t rbp_off,
				  uint8_t saved)
{
	return (struct enav_unwind_row){
	    .pc = pc, .cfa_kind = kind, .cfa_off = cfa_off, .rbp_off = rbp_off, .rbp_saved = saved};
}

static unsigned kind_of(const struct enav_unwind_entry *e)
{
	return e->cfa >> ENAV_UNWIND_KIND_SHIFT;
}

static unsigned off_of(const struct enav_unwind_entry *e)
{
	return e->cfa & ENAV_UNWIND_OFF_MASK;
}

/* The prologue of a frame-pointer function, then a PLT and the end marker. */
static void test_encode_rules(void **state)
{
	(void)state;
	struct enav_unwind_row in[] = {
	    row(0x1000, ENAV_CFA_RSP, 8, 0, 0),	   /* entry */
	    row(0x1001, ENAV_CFA_RSP, 16, -16, 1), /* after push rbp */
	    row(0x1004, ENAV_CFA_RBP, 16, -16, 1), /* after mov rbp, rsp */
	    row(0x1040, ENAV_CFA_UNDEFINED, 0, 0, 0), row(0x2000, ENAV_CFA_PLT, 11, 0, 0),
	    row(0x3000, ENAV_CFA_END, 0, 0, 0),
	};
	struct enav_eh_table t = {.rows = in, .n = 6};
	struct enav_unwind_entry out[8];

	assert_int_equal(enav_unwind_encode(&t, out, 8), 6);
	assert_int_equal(out[0].pc, 0x1000);
	assert_int_equal(kind_of(&out[0]), ENAV_UNWIND_RSP);
	assert_int_equal(off_of(&out[0]), 1);
	assert_int_equal(out[0].rbp_off8, 0);
	assert_int_equal(kind_of(&out[1]), ENAV_UNWIND_RSP);
	assert_int_equal(off_of(&out[1]), 2);
	assert_int_equal(out[1].rbp_off8, -2);
	assert_int_equal(kind_of(&out[2]), ENAV_UNWIND_RBP);
	assert_int_equal(off_of(&out[2]), 2);
	assert_int_equal(kind_of(&out[3]), ENAV_UNWIND_UNDEFINED);
	assert_int_equal(kind_of(&out[4]), ENAV_UNWIND_PLT);
	assert_int_equal(off_of(&out[4]), 11); /* the push threshold, not a /8 offset */
	assert_int_equal(kind_of(&out[5]), ENAV_UNWIND_END);
}

/* What 8 bytes cannot hold becomes a frame-pointer row, never a wrong rule. */
static void test_encode_unrepresentable(void **state)
{
	(void)state;
	struct enav_unwind_row in[] = {
	    row(0x10, ENAV_CFA_RSP, 12, 0, 0),		   /* not a multiple of 8 */
	    row(0x20, ENAV_CFA_RSP, 8 * 8192, 0, 0),	   /* over 13 bits of 8-byte units */
	    row(0x30, ENAV_CFA_RSP, -8, 0, 0),		   /* below the stack pointer */
	    row(0x40, ENAV_CFA_RSP, 64, -8 * 200, 1),	   /* rbp out of an s8 */
	    row(0x50, ENAV_CFA_RSP, 64, 4, 1),		   /* rbp not 8-aligned */
	    row(0x60, ENAV_CFA_RSP, 8 * 8191, 8 * 127, 1), /* the largest that fit */
	};
	struct enav_eh_table t = {.rows = in, .n = 6};
	struct enav_unwind_entry out[8];

	/* The five unusable rows collapse into the first. */
	assert_int_equal(enav_unwind_encode(&t, out, 8), 2);
	assert_int_equal(out[0].pc, 0x10);
	assert_int_equal(kind_of(&out[0]), ENAV_UNWIND_UNDEFINED);
	assert_int_equal(out[1].pc, 0x60);
	assert_int_equal(kind_of(&out[1]), ENAV_UNWIND_RSP);
	assert_int_equal(off_of(&out[1]), 8191);
	assert_int_equal(out[1].rbp_off8, 127);
}

static void test_encode_caps(void **state)
{
	(void)state;
	struct enav_unwind_row in[] = {
	    row(0x10, ENAV_CFA_RSP, 8, 0, 0),
	    row(0x11, ENAV_CFA_RSP, 16, 0, 0),
	    row(0x12, ENAV_CFA_RSP, 8, 0, 0),
	};
	struct enav_eh_table t = {.rows = in, .n = 3};
	struct enav_unwind_entry out[3];

	assert_int_equal(enav_unwind_encode(&t, out, 2), -E2BIG);
	assert_int_equal(enav_unwind_encode(&t, out, 3), 3);
	in[2].pc = 0x100000000ull; /* code above 4 GiB: the row's pc is 32 bits */
	assert_int_equal(enav_unwind_encode(&t, out, 3), -ERANGE);
	t.n = 0;
	assert_int_equal(enav_unwind_encode(&t, out, 3), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_encode_rules),
	    cmocka_unit_test(test_encode_unrepresentable),
	    cmocka_unit_test(test_encode_caps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
