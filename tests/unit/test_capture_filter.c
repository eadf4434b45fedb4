/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The capture filter's integrity check against real kernel maps: what
 * another process writes, changes or removes is found and put back.  Needs
 * CAP_BPF; skipped with a reason otherwise (a failure with CI=true).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <cmocka.h>

#include "discovery/capture_filter.h"

static bool open_or_skip(struct enav_capture_filter *f)
{
	char err[256];
	if (enav_capture_filter_open(f, 256, err, sizeof(err)) == 0)
		return true;
	const char *ci = getenv("CI");
	if (ci && !strcmp(ci, "true"))
		fail_msg("cannot create BPF maps with CI=true: %s", err);
	print_message("cannot create BPF maps (%s): skipped\n", err);
	enav_capture_filter_close(f);
	return false;
}

static int kernel_verdict(const struct enav_capture_filter *f, uint64_t id)
{
	__u8 v;
	return bpf_map_lookup_elem(f->verdicts_fd, &id, &v) == 0 ? v : -1;
}

static void test_verify_restores_foreign_writes(void **state)
{
	(void)state;
	struct enav_capture_filter f;
	if (!open_or_skip(&f))
		skip();
	assert_int_equal(enav_capture_filter_set_mode(&f, ENAV_CAPTURE_UNKNOWN_DENY), 0);
	assert_int_equal(enav_capture_filter_set(&f, 100, true), 0);
	assert_int_equal(enav_capture_filter_set(&f, 101, false), 0);
	assert_int_equal(enav_capture_filter_set(&f, 102, true), 0);
	enav_capture_filter_clear(&f, 102);
	/* Untouched: nothing to restore. */
	assert_int_equal(enav_capture_filter_verify(&f), 0);

	/* Someone else: flips a verdict, adds one, removes one, and opens the
	 * control word up. */
	__u64 k = 100, k_new = 555, k_del = 101;
	__u8 zero = 0, one = 1;
	__u32 ck = 0, open_up = ENAV_CAPTURE_DISABLED;
	assert_int_equal(bpf_map_update_elem(f.verdicts_fd, &k, &zero, BPF_ANY), 0);
	assert_int_equal(bpf_map_update_elem(f.verdicts_fd, &k_new, &one, BPF_ANY), 0);
	assert_int_equal(bpf_map_delete_elem(f.verdicts_fd, &k_del), 0);
	assert_int_equal(bpf_map_update_elem(f.control_fd, &ck, &open_up, BPF_ANY), 0);

	assert_int_equal(enav_capture_filter_verify(&f), 4);
	assert_int_equal(kernel_verdict(&f, 100), 1);
	assert_int_equal(kernel_verdict(&f, 101), 0);
	assert_int_equal(kernel_verdict(&f, 555), -1);
	assert_int_equal(kernel_verdict(&f, 102), -1);
	__u32 mode = 99;
	assert_int_equal(bpf_map_lookup_elem(f.control_fd, &ck, &mode), 0);
	assert_int_equal(mode, ENAV_CAPTURE_UNKNOWN_DENY);
	assert_int_equal(atomic_load(&f.restored), 4);
	/* Restored means clean: the next check finds nothing. */
	assert_int_equal(enav_capture_filter_verify(&f), 0);
	enav_capture_filter_close(&f);
}

/* More foreign entries than one repair pass holds are all removed. */
static void test_verify_many_foreign_entries(void **state)
{
	(void)state;
	struct enav_capture_filter f;
	if (!open_or_skip(&f))
		skip();
	__u8 one = 1;
	for (__u64 k = 1000; k < 1200; k++)
		assert_int_equal(bpf_map_update_elem(f.verdicts_fd, &k, &one, BPF_ANY), 0);
	assert_int_equal(enav_capture_filter_verify(&f), 200);
	__u64 next;
	assert_int_not_equal(bpf_map_get_next_key(f.verdicts_fd, NULL, &next), 0);
	enav_capture_filter_close(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_verify_restores_foreign_writes),
	    cmocka_unit_test(test_verify_many_foreign_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
