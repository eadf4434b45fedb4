/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The held record of a paired L7 record (ENAV_L7_PAIRED, include/enav/abi.h):
 * the decoder finds it after the payload and the carry, checks it as a
 * record of its own (with its own carry), and refuses a pair whose sizes do
 * not add up, a held record that is itself paired, or one larger than the
 * kernel can hold.
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
#define CARRY sizeof(struct enav_l7_carry)

static const struct enav_l7_carry k_carry = {
    .boot_ns = 4000, .seq = 600, .len = 400, .direction = ENAV_L7_SENT};

/* Write at b a record of `captured` bytes of fill, with the carry if carry,
 * then `tail` bytes of whatever follows (already at b + its own size);
 * returns the record's size including tail. */
static size_t put(uint8_t *b, uint32_t captured, uint8_t fill, bool carry, uint8_t extra_flags,
		  size_t tail, uint64_t ns, uint8_t direction)
{
	size_t size = FIXED + captured + (carry ? CARRY : 0) + tail;
	struct enav_l7_event e;
	memset(&e, 0, FIXED);
	e.hdr.type = ENAV_EVENT_L7_DATA;
	e.hdr.abi_version = ENAV_ABI_VERSION;
	e.hdr.size = (uint32_t)size;
	e.hdr.boot_time_ns = ns;
	e.sock_id = 0xabc;
	e.len = captured + 10;
	e.captured = captured;
	e.direction = direction;
	e.protocol = 1;
	e.role = ENAV_ROLE_SERVER;
	e.flags = ENAV_L7_SEQ_VALID | (carry ? ENAV_L7_CARRIED : 0) | extra_flags;
	e.family = 2;
	memcpy(b, &e, FIXED);
	memset(b + FIXED, fill, captured);
	if (carry)
		memcpy(b + FIXED + captured, &k_carry, CARRY);
	return size;
}

/* A response of 30 bytes 'r' carrying a held request of 50 bytes 'q' with
 * a carried run.  Returns the pair's size. */
static size_t build_pair(uint8_t *b, uint32_t held_captured)
{
	size_t held = FIXED + held_captured + CARRY;
	size_t outer_head = FIXED + 30;
	put(b + outer_head, held_captured, 'q', true, 0, 0, 1000, ENAV_L7_RECEIVED);
	return put(b, 30, 'r', false, ENAV_L7_PAIRED, held, 2000, ENAV_L7_SENT);
}

static uint8_t buf[2 * ENAV_L7_HELD_MAX + 4096];

static void test_held_found(void **state)
{
	size_t n = build_pair(buf, 50);
	struct enav_net_decoded d;
	assert_int_equal(enav_net_decode(buf, n, &d), ENAV_DECODE_OK);
	assert_int_equal(d.l7.head.captured, 30);
	assert_false(d.l7.has_carry);
	assert_ptr_equal(d.l7.held, buf + FIXED + 30);
	assert_int_equal(d.l7.held_size, FIXED + 50 + CARRY);
	/* The held record is a whole one, with its own carry. */
	struct enav_net_decoded h;
	assert_int_equal(enav_net_decode(d.l7.held, d.l7.held_size, &h), ENAV_DECODE_OK);
	assert_int_equal(h.l7.head.hdr.boot_time_ns, 1000);
	assert_int_equal(h.l7.head.direction, ENAV_L7_RECEIVED);
	assert_int_equal(h.l7.head.captured, 50);
	assert_int_equal(h.l7.payload[0], 'q');
	assert_true(h.l7.has_carry);
	assert_int_equal(h.l7.carry.len, 400);
	assert_null(h.l7.held);
}

static void test_unpaired_has_no_held(void **state)
{
	size_t n = put(buf, 12, 'x', false, 0, 0, 1, ENAV_L7_SENT);
	struct enav_net_decoded d;
	assert_int_equal(enav_net_decode(buf, n, &d), ENAV_DECODE_OK);
	assert_null(d.l7.held);
	assert_int_equal(d.l7.held_size, 0);
}

/* The flag without a held record, sizes that do not add up, a held record
 * that is paired itself or larger than the kernel's slot: refused. */
static void test_bad_pairs_refused(void **state)
{
	struct enav_net_decoded d;
	size_t n = put(buf, 12, 'x', false, ENAV_L7_PAIRED, 0, 1, ENAV_L7_SENT);
	assert_int_equal(enav_net_decode(buf, n, &d), ENAV_DECODE_BAD_LENGTH);

	/* One byte short: the held record's own size no longer fits. */
	n = build_pair(buf, 50);
	struct enav_event_header h;
	memcpy(&h, buf, sizeof(h));
	h.size -= 1;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(enav_net_decode(buf, n - 1, &d), ENAV_DECODE_BAD_LENGTH);

	/* A held record that is itself paired. */
	n = build_pair(buf, 50);
	buf[FIXED + 30 + ENAV_OFFSETOF(struct enav_l7_event, flags)] |= ENAV_L7_PAIRED;
	assert_int_equal(enav_net_decode(buf, n, &d), ENAV_DECODE_BAD_LENGTH);

	/* A held record that is not an L7 record. */
	n = build_pair(buf, 50);
	buf[FIXED + 30 + ENAV_OFFSETOF(struct enav_event_header, type)] = ENAV_EVENT_TCP;
	assert_int_equal(enav_net_decode(buf, n, &d), ENAV_DECODE_BAD_LENGTH);

	/* More than the kernel's slot holds. */
	n = build_pair(buf, ENAV_L7_HELD_CAPTURE + 1);
	assert_int_equal(enav_net_decode(buf, n, &d), ENAV_DECODE_BAD_LENGTH);
	n = build_pair(buf, ENAV_L7_HELD_CAPTURE);
	assert_int_equal(enav_net_decode(buf, n, &d), ENAV_DECODE_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_held_found),
	    cmocka_unit_test(test_unpaired_has_no_held),
	    cmocka_unit_test(test_bad_pairs_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
