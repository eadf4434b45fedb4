/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The carried run of an L7 record (ENAV_L7_CARRIED, include/enav/abi.h):
 * the decoder finds the trailer after the payload and the mark block and
 * refuses a record whose size does not account for it, and the record
 * rebuilt from it is the uncaptured fragment the kernel did not emit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "features/network/net_decode.h"

#define FIXED ENAV_OFFSETOF(struct enav_l7_event, payload)
#define MARKS (ENAV_L7_MAX_MARKS * sizeof(struct enav_l7_mark))

/* A record of `captured` bytes 'x', with the mark block if marks, and the
 * carry if carry; returns its size.  The caller frees *out. */
static size_t build(uint8_t **out, uint32_t captured, bool marks, const struct enav_l7_carry *carry)
{
	size_t size = FIXED + captured + (marks ? MARKS : 0) + (carry ? sizeof(*carry) : 0);
	uint8_t *b = calloc(1, size);
	assert_non_null(b);
	struct enav_l7_event e;
	memset(&e, 0, FIXED);
	e.hdr.type = ENAV_EVENT_L7_DATA;
	e.hdr.abi_version = ENAV_ABI_VERSION;
	e.hdr.size = (uint32_t)size;
	e.hdr.boot_time_ns = 5000;
	e.hdr.pid = 7;
	e.sock_id = 0xabc;
	e.len = captured + 10;
	e.captured = captured;
	e.seq = 1000;
	e.direction = ENAV_L7_RECEIVED;
	e.protocol = 1;
	e.role = ENAV_ROLE_SERVER;
	e.flags =
	    ENAV_L7_SEQ_VALID | (marks ? ENAV_L7_MARK_BLOCK : 0) | (carry ? ENAV_L7_CARRIED : 0);
	e.family = 2;
	memcpy(b, &e, FIXED);
	memset(b + FIXED, 'x', captured);
	if (carry)
		memcpy(b + FIXED + captured + (marks ? MARKS : 0), carry, sizeof(*carry));
	*out = b;
	return size;
}

static const struct enav_l7_carry k_carry = {
    .boot_ns = 4000, .seq = 600, .len = 400, .direction = ENAV_L7_SENT};

static void test_trailer_found(void **state)
{
	for (int marks = 0; marks < 2; marks++) {
		uint8_t *b;
		size_t n = build(&b, 37, marks, &k_carry);
		struct enav_net_decoded d;
		assert_int_equal(enav_net_decode(b, n, &d), ENAV_DECODE_OK);
		assert_true(d.l7.has_carry);
		assert_int_equal(d.l7.carry.boot_ns, 4000);
		assert_int_equal(d.l7.carry.seq, 600);
		assert_int_equal(d.l7.carry.len, 400);
		assert_int_equal(d.l7.carry.direction, ENAV_L7_SENT);
		assert_int_equal(d.l7.head.captured, 37);
		assert_ptr_equal(d.l7.payload, b + FIXED);
		free(b);
	}
}

static void test_no_trailer(void **state)
{
	uint8_t *b;
	size_t n = build(&b, 12, false, NULL);
	struct enav_net_decoded d;
	assert_int_equal(enav_net_decode(b, n, &d), ENAV_DECODE_OK);
	assert_false(d.l7.has_carry);
	free(b);
}

/* The flag without the bytes, the bytes without the flag, a carry of
 * nothing or of no direction: refused, never read past the record. */
static void test_sizes_must_match(void **state)
{
	uint8_t *b;
	struct enav_net_decoded d;
	size_t n = build(&b, 20, false, &k_carry);
	struct enav_event_header h;
	memcpy(&h, b, sizeof(h));
	h.size -= sizeof(struct enav_l7_carry);
	memcpy(b, &h, sizeof(h));
	assert_int_equal(enav_net_decode(b, h.size, &d), ENAV_DECODE_BAD_LENGTH);
	free(b);

	n = build(&b, 20, false, &k_carry);
	b[ENAV_OFFSETOF(struct enav_l7_event, flags)] &= (uint8_t)~ENAV_L7_CARRIED;
	assert_int_equal(enav_net_decode(b, n, &d), ENAV_DECODE_BAD_LENGTH);
	free(b);

	struct enav_l7_carry empty = k_carry;
	empty.len = 0;
	n = build(&b, 20, false, &empty);
	assert_int_equal(enav_net_decode(b, n, &d), ENAV_DECODE_BAD_LENGTH);
	free(b);

	struct enav_l7_carry nodir = k_carry;
	nodir.direction = 0;
	n = build(&b, 20, false, &nodir);
	assert_int_equal(enav_net_decode(b, n, &d), ENAV_DECODE_BAD_LENGTH);
	free(b);
}

/* The rebuilt record: the run's direction, sequence, length and time on
 * the record's connection and task, nothing captured, no marks. */
static void test_carried_event(void **state)
{
	uint8_t *b;
	size_t n = build(&b, 37, true, &k_carry);
	struct enav_net_decoded d;
	assert_int_equal(enav_net_decode(b, n, &d), ENAV_DECODE_OK);
	static struct enav_l7_event c;
	enav_net_l7_carried_event(&d.l7.head, &d.l7.carry, &c);
	assert_int_equal(c.hdr.boot_time_ns, 4000);
	assert_int_equal(c.hdr.pid, 7);
	assert_int_equal(c.sock_id, 0xabc);
	assert_int_equal(c.len, 400);
	assert_int_equal(c.captured, 0);
	assert_int_equal(c.seq, 600);
	assert_int_equal(c.direction, ENAV_L7_SENT);
	assert_int_equal(c.role, ENAV_ROLE_SERVER);
	assert_int_equal(c.n_marks, 0);
	assert_int_equal(c.flags, ENAV_L7_SEQ_VALID | ENAV_L7_NO_DATA);
	/* What the tracker would be handed decodes as a record of its own. */
	struct enav_net_decoded again;
	assert_int_equal(enav_net_decode(&c, c.hdr.size, &again), ENAV_DECODE_OK);
	assert_false(again.l7.has_carry);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_trailer_found),
	    cmocka_unit_test(test_no_trailer),
	    cmocka_unit_test(test_sizes_must_match),
	    cmocka_unit_test(test_carried_event),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
