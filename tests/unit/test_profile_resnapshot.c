/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A process's first snapshot can fail while it lives (a busy node, an
 * emulated guest: seen once on 6.12 as a futex profile whose every frame
 * came back unnamed).  The re-snapshots the profiler schedules after each
 * announcement (src/features/profiling/profile_store.c) must retake it then,
 * and only for the image that was announced: a retake never names another
 * exec's stacks.  The failure is played by this file's open(), which the
 * executable's own definition puts in front of the C library's: it refuses
 * this process's /proc/PID/maps as often as told.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "features/profiling/profile_store.h"

#define SEC(x)	  ((uint64_t)(x)*1000000000ull)
#define LEAF_NAME "enav_test_resnap_leaf"

static int refuse_maps; /* opens of /proc/<self>/maps still to refuse */

int open(const char *path, int flags, ...)
{
	char maps[64];
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)getpid());
	if (refuse_maps > 0 && strcmp(path, maps) == 0) {
		refuse_maps--;
		errno = EAGAIN;
		return -1;
	}
	return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}

__attribute__((noinline, used)) int enav_test_resnap_leaf(int x)
{
	return x * 7 + 3;
}

static struct enav_profile_store *store_new(void)
{
	struct enav_profile_store_config c = {.frequency_hz = 99,
					      .retention_ms = 3600 * 1000,
					      .max_stored_stacks = 1000,
					      .max_processes = 64,
					      .max_elf_files = 8};
	struct enav_profile_store *s = enav_profile_store_new(&c);
	assert_non_null(s);
	return s;
}

/* One CPU record of (pid, exec_gen) whose only frame is LEAF_NAME's. */
static void add_record(struct enav_profile_store *s, uint16_t exec_gen, uint64_t t)
{
	const uint64_t user[] = {(uint64_t)(uintptr_t)enav_test_resnap_leaf};
	struct enav_profile_batch *b = enav_profile_batch_new(SEC(t), SEC(t));
	assert_non_null(b);
	b->end_mono_ns = SEC(t + 10);
	struct enav_profile_record r = {
	    .tgid = (uint32_t)getpid(), .kind = ENAV_PROFILE_CPU, .exec_gen = exec_gen, .count = 3};
	assert_true(enav_profile_batch_add(b, &r, NULL, 0, user, 1));
	enav_profile_store_add(s, b);
}

/* The folded profile of the window starting at t (caller frees). */
static char *folded(struct enav_profile_store *s, uint64_t t)
{
	struct enav_profile_query q = {.kind = ENAV_PROFILE_CPU,
				       .from_mono_ns = SEC(t),
				       .to_mono_ns = SEC(t + 10),
				       .format = ENAV_PROFILE_FORMAT_FOLDED};
	uint8_t *out = NULL;
	size_t len = 0;
	assert_int_equal(enav_profile_store_build(s, &q, &out, &len), 0);
	char *text = strndup((const char *)out, len);
	free(out);
	assert_non_null(text);
	return text;
}

static void test_failed_first_snapshot_is_retaken(void **state)
{
	(void)state;
	struct enav_profile_store *s = store_new();
	uint32_t pid = (uint32_t)getpid();

	refuse_maps = 1;
	enav_profile_store_task(s, pid, 0, "testcomm");
	assert_int_equal(refuse_maps, 0); /* the announcement's snapshot was refused */
	add_record(s, 0, 1000);
	char *before = folded(s, 1000);
	if (strstr(before, LEAF_NAME)) {
		print_message("named without a snapshot:\n%s\n", before);
		fail();
	}
	free(before);

	enav_profile_store_resnapshot(s, pid, 0);
	char *after = folded(s, 1000);
	if (!strstr(after, "testcomm;" LEAF_NAME " 3")) {
		print_message("the re-snapshot did not retake the failed first one:\n%s\n", after);
		fail();
	}
	free(after);
	enav_profile_store_free(s);
}

static void test_retake_names_only_the_announced_image(void **state)
{
	(void)state;
	struct enav_profile_store *s = store_new();
	uint32_t pid = (uint32_t)getpid();

	/* Image 0's snapshot fails; image 1 (an exec since) is announced and
	 * snapshotted; image 0's late re-snapshot must change nothing. */
	refuse_maps = 1;
	enav_profile_store_task(s, pid, 0, "before-exec");
	enav_profile_store_task(s, pid, 1, "after-exec");
	enav_profile_store_resnapshot(s, pid, 0);
	add_record(s, 0, 2000);
	add_record(s, 1, 3000);
	char *old = folded(s, 2000), *cur = folded(s, 3000);
	if (strstr(old, LEAF_NAME) || !strstr(cur, "after-exec;" LEAF_NAME " 3")) {
		print_message("exec 0 (want no name):\n%s\nexec 1 (want named):\n%s\n", old, cur);
		fail();
	}
	free(old);
	free(cur);
	enav_profile_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_failed_first_snapshot_is_retaken),
	    cmocka_unit_test(test_retake_names_only_the_announced_image),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
