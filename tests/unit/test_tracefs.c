/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for tracefs's event lookup (src/platform/tracefs.c), which
 * decides whether an optional tracepoint program is loaded at all: a listed
 * event, an absent one, and names that must never be looked up.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "ci_skip.h"

#include <unistd.h>

#include "platform/tracefs.h"

static void test_names_never_looked_up(void **state)
{
	(void)state;
	assert_int_equal(enav_tracefs_event(NULL), ENAV_TRACEFS_EVENT_UNKNOWN);
	assert_int_equal(enav_tracefs_event(""), ENAV_TRACEFS_EVENT_UNKNOWN);
	/* Out of the events folder: not an answer about an event. */
	assert_int_equal(enav_tracefs_event("../trace"), ENAV_TRACEFS_EVENT_UNKNOWN);
	assert_int_equal(enav_tracefs_event("sched/../../available_events"),
			 ENAV_TRACEFS_EVENT_UNKNOWN);
	char long_name[400];
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_int_equal(enav_tracefs_event(long_name), ENAV_TRACEFS_EVENT_UNKNOWN);
}

static void test_listed_and_absent(void **state)
{
	(void)state;
	/* Mounts tracefs when the node has not (the agent does the same). */
	if (geteuid() != 0 || !enav_tracefs_ensure()) {
		skip_unless_ci("tracefs is not mounted and cannot be here (needs root)\n");
		return;
	}
	/* Every kernel the agent supports has sched_switch and the syscall
	 * tracepoints of read(2). */
	assert_int_equal(enav_tracefs_event("sched/sched_switch"), ENAV_TRACEFS_EVENT_LISTED);
	assert_int_equal(enav_tracefs_event("syscalls/sys_enter_read"), ENAV_TRACEFS_EVENT_LISTED);
	assert_int_equal(enav_tracefs_event("sched/enav_no_such_event"), ENAV_TRACEFS_EVENT_ABSENT);
	assert_int_equal(enav_tracefs_event("enav_no_such_category/x"), ENAV_TRACEFS_EVENT_ABSENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_never_looked_up),
	    cmocka_unit_test(test_listed_and_absent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
