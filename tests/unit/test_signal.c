/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The signal's shape (src/model/signal.c): a header of at most 256 bytes,
 * each kind allocated to its own payload, the tail after it, and pins
 * released once each with the signal.  An access past a kind's allocation
 * is a heap overflow here, which ASan reports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/signal.h"

static bool all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

static void test_sizes(void **state)
{
	(void)state;
	assert_true(ENAV_SIGNAL_HEADER_SIZE <= 256);
	/* Process kinds carry the header only; the largest kind is the whole struct. */
	assert_int_equal(enav_signal_size(ENAV_SIGNAL_PROCESS_EXEC, 0), 256);
	assert_int_equal(enav_signal_size(ENAV_SIGNAL_PROCESS_EXIT, 0), 256);
	assert_int_equal(enav_signal_size(ENAV_SIGNAL_SPAN, 0), sizeof(struct enav_signal));
	assert_true(enav_signal_size(ENAV_SIGNAL_TCP_CLOSE, 0) <
		    enav_signal_size(ENAV_SIGNAL_SPAN, 0));
	assert_int_equal(enav_signal_size(ENAV_SIGNAL_DNS, 100),
			 enav_signal_size(ENAV_SIGNAL_DNS, 0) + 100);
	for (int k = 1; k < ENAV_SIGNAL__COUNT; k++)
		assert_true(enav_signal_size(k, 0) <= sizeof(struct enav_signal));
}

static void test_payload_zeroed_tail_aligned(void **state)
{
	(void)state;
	for (int k = 1; k < ENAV_SIGNAL__COUNT; k++) {
		struct enav_signal *s = enav_signal_new(k, 40);
		assert_non_null(s);
		assert_int_equal(s->kind, k);
		assert_int_equal(s->n_warnings, 0);
		assert_null(s->attr_release);
		assert_string_equal(s->process.exe, "");
		assert_string_equal(s->process.filename, "");
		assert_string_equal(s->process.cgroup_path, "");
		assert_true(all_zero(s->process.identity, sizeof(*s->process.identity)));
		uintptr_t tail = (uintptr_t)enav_signal_tail(s);
		assert_int_equal(tail % _Alignof(max_align_t), 0);
		assert_int_equal(tail - (uintptr_t)s, enav_signal_size(k, 0));
		memset(enav_signal_tail(s), 0x5a, 40); /* all of it is there */
		if (k == ENAV_SIGNAL_SPAN)
			assert_true(all_zero(&s->net, sizeof(s->net)) &&
				    all_zero(&s->span, sizeof(s->span)));
		if (k == ENAV_SIGNAL_FINDING)
			assert_true(all_zero(&s->bpf, sizeof(s->bpf)) &&
				    all_zero(&s->file, sizeof(s->file)) &&
				    all_zero(&s->finding, sizeof(s->finding)));
		if (k == ENAV_SIGNAL_EDGE)
			assert_true(all_zero(&s->edge, sizeof(s->edge)));
		enav_signal_unref(s);
	}
}

static int released[4];

static void release_counted(void *ref)
{
	released[(int *)ref - released]++;
}

static int other_releases;

static void release_other(void *ref)
{
	released[(int *)ref - released]++;
	other_releases++;
}

static void test_pins(void **state)
{
	(void)state;
	memset(released, 0, sizeof(released));
	other_releases = 0;
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_PROCESS_EXIT, 0);
	assert_non_null(s);
	assert_null(enav_signal_pinned(s, release_counted));
	assert_int_equal(enav_signal_pin(s, &released[0], release_counted), 0);
	assert_ptr_equal(s->attr_ref, &released[0]); /* the first pin costs nothing */
	assert_ptr_equal(enav_signal_pinned(s, release_counted), &released[0]);
	assert_null(enav_signal_pinned(s, release_other));
	assert_int_equal(enav_signal_pin(s, &released[1], release_other), 0);
	assert_int_equal(enav_signal_pin(s, &released[2], release_other), 0);
	assert_ptr_equal(enav_signal_pinned(s, release_counted), &released[0]);
	assert_ptr_equal(enav_signal_pinned(s, release_other), &released[2]); /* the latest */
	enav_signal_ref(s);
	enav_signal_unref(s);
	assert_int_equal(released[0] + released[1] + released[2], 0);
	enav_signal_unref(s);
	assert_int_equal(released[0], 1);
	assert_int_equal(released[1], 1);
	assert_int_equal(released[2], 1);
	assert_int_equal(released[3], 0);
	assert_int_equal(other_releases, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_payload_zeroed_tail_aligned),
	    cmocka_unit_test(test_pins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
