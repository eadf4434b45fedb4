/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The last few snapshots discovery published, newest first, and which of them
 * governed a captured event.  A kernel verdict is written only after the
 * snapshot holding it is published, so the verdict an event passed was
 * decided by a held snapshot published no later than the event, unless more
 * than ENAV_SNAPSHOT_HISTORY snapshots came after it.  Then the oldest held
 * stands in if it admits the cgroup too; otherwise the event is reported as
 * governed by a released snapshot, never by one that would have denied it.
 */
#ifndef ENAV_DISCOVERY_SNAPSHOT_HISTORY_H
#define ENAV_DISCOVERY_SNAPSHOT_HISTORY_H

#include <stdint.h>

#include "discovery/discovery.h"

/* Each held snapshot may be a copy of every tracked cgroup; four cover an
 * event queued across a label flip and the rescans and flips that follow. */
#define ENAV_SNAPSHOT_HISTORY 4

struct enav_snapshot_history {
	struct enav_snapshot *held[ENAV_SNAPSHOT_HISTORY]; /* [0] is the newest */
	uint32_t n;
	uint64_t evicted; /* snapshots released to make room */
};

/* Takes over the caller's reference to s; releases the oldest beyond the cap. */
void enav_snapshot_history_push(struct enav_snapshot_history *h, struct enav_snapshot *s);
void enav_snapshot_history_clear(struct enav_snapshot_history *h);

/*
 * The snapshot whose decision let an event of cgroup id at time_unix_ns
 * through: among those published no later than the event, the newest that
 * admits the cgroup (any entry when the snapshot is not filtering).
 */
enum enav_governing enav_snapshot_history_governing(const struct enav_snapshot_history *h,
						    uint64_t time_unix_ns, uint64_t id,
						    struct enav_snapshot **snap,
						    const struct enav_snapshot_entry **entry);

#endif
