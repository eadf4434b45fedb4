/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the snapshot history (src/discovery/snapshot_history.c):
 * which held snapshot governed a captured event.  The churn sequence that
 * failed CI under the two-snapshot rule is replayed: a label flip to a
 * denying view, then a rescan's second denying snapshot, while an event
 * captured before the flip is still queued.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>

#include "discovery/snapshot_history.h"

#define CG 4242

/* One snapshot holding cgroup CG (unless absent) with the given verdict. */
static struct enav_snapshot *snap(uint64_t published, bool filtering, bool has_cg, bool capture)
{
	struct enav_snapshot *s = calloc(1, sizeof(*s));
	assert_non_null(s);
	atomic_init(&s->refs, 1);
	s->published_unix_ns = published;
	s->filtering = filtering;
	s->entries = calloc(2, sizeof(*s->entries));
	assert_non_null(s->entries);
	s->entries[s->n++] =
	    (struct enav_snapshot_entry){.id = 7, .path = "/other", .capture = true};
	if (has_cg)
		s->entries[s->n++] =
		    (struct enav_snapshot_entry){.id = CG, .path = "/pod", .capture = capture};
	return s;
}

static enum enav_governing gov(struct enav_snapshot_history *h, uint64_t t,
			       struct enav_snapshot **s, const struct enav_snapshot_entry **e)
{
	return enav_snapshot_history_governing(h, t, CG, s, e);
}

static void test_churn_rescan_after_flip(void **state)
{
	(void)state;
	struct enav_snapshot_history h = {0};
	struct enav_snapshot *admit = snap(100, true, true, true);
	enav_snapshot_history_push(&h, admit);
	struct enav_snapshot *flip = snap(200, true, true, false);
	enav_snapshot_history_push(&h, flip);
	enav_snapshot_history_push(&h, snap(300, true, true, false)); /* the rescan */
	struct enav_snapshot *s;
	const struct enav_snapshot_entry *e;
	/* Captured before the flip: the admitting snapshot. */
	assert_int_equal(gov(&h, 150, &s, &e), ENAV_GOVERNED_BY_ENTRY);
	assert_ptr_equal(s, admit);
	assert_true(e->capture);
	/* Stamped after both denials yet captured (checked before the write):
	 * still the admitting one, never a denying one. */
	assert_int_equal(gov(&h, 350, &s, &e), ENAV_GOVERNED_BY_ENTRY);
	assert_ptr_equal(s, admit);
	enav_snapshot_history_clear(&h);
}

static void test_newest_admitting_at_event_time(void **state)
{
	(void)state;
	struct enav_snapshot_history h = {0};
	struct enav_snapshot *a = snap(100, true, true, true);
	struct enav_snapshot *b = snap(200, true, true, true);
	enav_snapshot_history_push(&h, a);
	enav_snapshot_history_push(&h, b);
	enav_snapshot_history_push(&h, snap(300, true, true, true));
	struct enav_snapshot *s;
	const struct enav_snapshot_entry *e;
	/* Each admits: the one in force at the event's time, not the newest. */
	assert_int_equal(gov(&h, 150, &s, &e), ENAV_GOVERNED_BY_ENTRY);
	assert_ptr_equal(s, a);
	assert_int_equal(gov(&h, 200, &s, &e), ENAV_GOVERNED_BY_ENTRY);
	assert_ptr_equal(s, b);
	enav_snapshot_history_clear(&h);
}

static void test_not_filtering_takes_time_only(void **state)
{
	(void)state;
	struct enav_snapshot_history h = {0};
	struct enav_snapshot *a = snap(100, false, true, true);
	enav_snapshot_history_push(&h, a);
	enav_snapshot_history_push(&h, snap(200, false, false, false));
	struct enav_snapshot *s;
	const struct enav_snapshot_entry *e;
	assert_int_equal(gov(&h, 150, &s, &e), ENAV_GOVERNED_BY_ENTRY);
	assert_ptr_equal(s, a);
	/* Gone from the snapshot in force: unknown, resolved by path. */
	assert_int_equal(gov(&h, 250, &s, &e), ENAV_GOVERNED_UNKNOWN);
	assert_null(e);
	enav_snapshot_history_clear(&h);
}

static void test_known_only_later(void **state)
{
	(void)state;
	struct enav_snapshot_history h = {0};
	/* A new cgroup's first event, before discovery published it: the
	 * newer snapshot that knows it names it. */
	enav_snapshot_history_push(&h, snap(100, false, false, false));
	struct enav_snapshot *later = snap(200, false, true, true);
	enav_snapshot_history_push(&h, later);
	struct enav_snapshot *s;
	const struct enav_snapshot_entry *e;
	assert_int_equal(gov(&h, 150, &s, &e), ENAV_GOVERNED_BY_ENTRY);
	assert_ptr_equal(s, later);
	enav_snapshot_history_clear(&h);
	/* Filtering: a later decision that denies it does not name it. */
	h = (struct enav_snapshot_history){0};
	enav_snapshot_history_push(&h, snap(100, true, false, false));
	enav_snapshot_history_push(&h, snap(200, true, true, false));
	assert_int_equal(gov(&h, 150, &s, &e), ENAV_GOVERNED_UNKNOWN);
	enav_snapshot_history_clear(&h);
	/* ... one that admits it does. */
	h = (struct enav_snapshot_history){0};
	enav_snapshot_history_push(&h, snap(100, true, false, false));
	later = snap(200, true, true, true);
	enav_snapshot_history_push(&h, later);
	assert_int_equal(gov(&h, 150, &s, &e), ENAV_GOVERNED_BY_ENTRY);
	assert_ptr_equal(s, later);
	enav_snapshot_history_clear(&h);
}

static void test_released_admitting_snapshot(void **state)
{
	(void)state;
	struct enav_snapshot_history h = {0};
	enav_snapshot_history_push(&h, snap(100, true, true, true));
	for (int i = 0; i < ENAV_SNAPSHOT_HISTORY; i++)
		enav_snapshot_history_push(&h, snap(200 + (uint64_t)i, true, true, false));
	assert_int_equal(h.n, ENAV_SNAPSHOT_HISTORY);
	assert_int_equal(h.evicted, 1);
	struct enav_snapshot *s;
	const struct enav_snapshot_entry *e;
	/* Captured under the released admitting snapshot: not replaced by a
	 * denying one, and said so. */
	assert_int_equal(gov(&h, 150, &s, &e), ENAV_GOVERNED_NOT_HELD);
	assert_null(s);
	assert_int_equal(gov(&h, 400, &s, &e), ENAV_GOVERNED_NOT_HELD);
	assert_null(e);
	enav_snapshot_history_clear(&h);
}

static void test_older_than_every_held(void **state)
{
	(void)state;
	struct enav_snapshot_history h = {0};
	for (int i = 0; i <= ENAV_SNAPSHOT_HISTORY; i++)
		enav_snapshot_history_push(&h, snap(100 + (uint64_t)i, true, true, true));
	struct enav_snapshot *s;
	const struct enav_snapshot_entry *e;
	/* Its own snapshot was released; the oldest held admits it too and
	 * stands in (it agrees with the filter). */
	assert_int_equal(gov(&h, 50, &s, &e), ENAV_GOVERNED_BY_ENTRY);
	assert_ptr_equal(s, h.held[ENAV_SNAPSHOT_HISTORY - 1]);
	/* The oldest held denies it: nothing held agrees, said so. */
	enav_snapshot_history_clear(&h);
	h = (struct enav_snapshot_history){0};
	for (int i = 0; i <= ENAV_SNAPSHOT_HISTORY; i++)
		enav_snapshot_history_push(&h, snap(100 + (uint64_t)i, true, true, false));
	assert_int_equal(gov(&h, 50, &s, &e), ENAV_GOVERNED_NOT_HELD);
	enav_snapshot_history_clear(&h);
}

static void test_unknown_cgroup_through_control_word(void **state)
{
	(void)state;
	struct enav_snapshot_history h = {0};
	enav_snapshot_history_push(&h, snap(100, true, false, false));
	enav_snapshot_history_push(&h, snap(200, true, true, false));
	struct enav_snapshot *s;
	const struct enav_snapshot_entry *e;
	/* Denied now, unknown before: the control word let it through. */
	assert_int_equal(gov(&h, 250, &s, &e), ENAV_GOVERNED_UNKNOWN);
	/* Before the first snapshot ever: that one is the only candidate. */
	assert_int_equal(gov(&h, 50, &s, &e), ENAV_GOVERNED_UNKNOWN);
	enav_snapshot_history_clear(&h);
	struct enav_snapshot_history empty = {0};
	assert_int_equal(gov(&empty, 50, &s, &e), ENAV_GOVERNED_UNKNOWN);
	assert_null(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_churn_rescan_after_flip),
	    cmocka_unit_test(test_newest_admitting_at_event_time),
	    cmocka_unit_test(test_not_filtering_takes_time_only),
	    cmocka_unit_test(test_known_only_later),
	    cmocka_unit_test(test_released_admitting_snapshot),
	    cmocka_unit_test(test_older_than_every_held),
	    cmocka_unit_test(test_unknown_cgroup_through_control_word),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
