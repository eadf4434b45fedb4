/* SPDX-License-Identifier: Apache-2.0 */
#include "discovery/snapshot_history.h"

#include <stddef.h>

void enav_snapshot_history_push(struct enav_snapshot_history *h, struct enav_snapshot *s)
{
	if (h->n == ENAV_SNAPSHOT_HISTORY) {
		enav_snapshot_release(h->held[--h->n]);
		h->evicted++;
	}
	for (uint32_t i = h->n; i > 0; i--)
		h->held[i] = h->held[i - 1];
	h->held[0] = s;
	h->n++;
}

void enav_snapshot_history_clear(struct enav_snapshot_history *h)
{
	for (uint32_t i = 0; i < h->n; i++)
		enav_snapshot_release(h->held[i]);
	h->n = 0;
}

static enum enav_governing found(struct enav_snapshot *s, const struct enav_snapshot_entry *e,
				 struct enav_snapshot **snap,
				 const struct enav_snapshot_entry **entry)
{
	*snap = s;
	*entry = e;
	return e ? ENAV_GOVERNED_BY_ENTRY : ENAV_GOVERNED_UNKNOWN;
}

/*
 * The cgroup had no entry in the snapshot in force (held[first]) when the
 * event happened: discovery had not seen it yet.  A newer snapshot that has
 * it names it (its identity comes from the path the event's cgroup has), if
 * that snapshot agrees with the filter: not filtering, or admitting it.
 */
static enum enav_governing known_later(const struct enav_snapshot_history *h, uint32_t first,
				       uint64_t id, struct enav_snapshot **snap,
				       const struct enav_snapshot_entry **entry)
{
	for (uint32_t i = 0; i < first; i++) {
		const struct enav_snapshot_entry *e = enav_snapshot_find(h->held[i], id);
		if (e && (!h->held[i]->filtering || e->capture))
			return found(h->held[i], e, snap, entry);
	}
	return ENAV_GOVERNED_UNKNOWN;
}

enum enav_governing enav_snapshot_history_governing(const struct enav_snapshot_history *h,
						    uint64_t time_unix_ns, uint64_t id,
						    struct enav_snapshot **snap,
						    const struct enav_snapshot_entry **entry)
{
	*snap = NULL;
	*entry = NULL;
	uint32_t first = 0;
	while (first < h->n && h->held[first]->published_unix_ns > time_unix_ns)
		first++;
	if (first == h->n) {
		if (h->n == 0)
			return ENAV_GOVERNED_UNKNOWN;
		/* Older than every held snapshot.  With none released, the
		 * first one ever governed it (nothing was decided before).
		 * Otherwise the oldest held stands in only where it agrees
		 * with the filter (it admits the cgroup too): identity stays,
		 * labels may be that later decision's. */
		struct enav_snapshot *oldest = h->held[h->n - 1];
		const struct enav_snapshot_entry *e = enav_snapshot_find(oldest, id);
		if (h->evicted && oldest->filtering && !(e && e->capture))
			return ENAV_GOVERNED_NOT_HELD;
		if (h->evicted && !e)
			return known_later(h, h->n - 1, id, snap, entry);
		first = h->n - 1;
	}
	struct enav_snapshot *s = h->held[first];
	const struct enav_snapshot_entry *e = enav_snapshot_find(s, id);
	if (!e)
		return known_later(h, first, id, snap, entry);
	if (!s->filtering || e->capture)
		return found(s, e, snap, entry);
	/* The snapshot in force at the event's time denies the cgroup, yet the
	 * event was captured: its check ran under an older verdict not yet
	 * overwritten.  The newest older snapshot that admits it decided that. */
	bool unknown_since = false;
	for (uint32_t i = first + 1; i < h->n; i++) {
		const struct enav_snapshot_entry *pe = enav_snapshot_find(h->held[i], id);
		if (pe && pe->capture)
			return found(h->held[i], pe, snap, entry);
		unknown_since |= pe == NULL;
	}
	/* No held snapshot admits it: the control word let an unknown cgroup
	 * through, or the admitting snapshot was released. */
	if (unknown_since || !h->evicted)
		return known_later(h, first, id, snap, entry);
	return ENAV_GOVERNED_NOT_HELD;
}
