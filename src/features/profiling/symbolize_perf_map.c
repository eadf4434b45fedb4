/* SPDX-License-Identifier: Apache-2.0 */
/*
 * JIT perf maps (/tmp/perf-PID.map) for frames in anonymous executable
 * memory: read once a second at most when changed, up to half a file's
 * share of the tenant memory budget, with the symbolizer's lock released.
 */
#include "features/profiling/symbolize_state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "platform/clock.h"
#include "platform/tenant_file.h"

void enav_sym_perf_map_clear(struct perf_map *pm)
{
	if (pm->mem)
		enav_tenant_mem_uncharge(pm->mem, pm->bytes);
	pm->bytes = 0;
	free(pm->e);
	free(pm->names);
	pm->e = NULL;
	pm->names = NULL;
	pm->n = 0;
	pm->loaded = false;
}

struct pm_loader {
	struct perf_map *pm;
	uint32_t cap, max, seq;
	size_t names_len, names_cap;
};

static int perf_map_line(void *ctx, const char *line, size_t len)
{
	struct pm_loader *l = ctx;
	struct enav_perf_map_line pl;
	struct pm_entry e;

	if (enav_perf_map_parse_line(line, len, &pl) != 0)
		return 0;
	if (l->pm->n >= l->max)
		return 1;
	if (!enav_sym_grow((void **)&l->pm->e, sizeof(*l->pm->e), &l->cap, l->pm->n + 1, l->max) ||
	    !enav_sym_arena_push(&l->pm->names, &l->names_len, &l->names_cap, pl.name, pl.name_len,
				 UINT32_MAX, &e.name))
		return 1;
	e.start = pl.start;
	e.end = pl.start + pl.size;
	e.seq = l->seq++;
	l->pm->e[l->pm->n++] = e;
	return 0;
}

static int pm_cmp(const void *a, const void *b)
{
	const struct pm_entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* What a loaded perf map was read from (to skip rereading it unchanged). */
struct perf_map_ident {
	bool loaded;
	uint64_t ino, size, mtime_ns;
};

/*
 * The perf map is in a world-writable directory: it is only read when it is
 * a regular file (not a symlink, FIFO or device) owned by root or by the
 * process's user (uid), so another user cannot plant one or point it
 * elsewhere.  Reads it into fresh (not charged) unless it is the file old
 * was read from; true when fresh holds a new map.  No lock held.
 */
static bool perf_map_read(struct enav_symbolizer *s, uint32_t pid, uint32_t uid,
			  const struct perf_map_ident *old, struct perf_map *fresh)
{
	char path[PATH_MAX];
	struct stat st;

	int n = snprintf(path, sizeof(path), "%s/perf-%" PRIu32 ".map", s->perf_map_dir, pid);
	if (n <= 0 || (size_t)n >= sizeof(path))
		return false;
	enum enav_tenant_refusal why;
	int fd = enav_tenant_open_in_root(s->self_root, path, NULL, &st, &why);
	if (fd < 0) {
		enav_tenant_mem_open_refused(s->mem, why);
		return false; /* gone: keep what was loaded */
	}
	if ((st.st_uid != 0 && st.st_uid != uid) ||
	    (old->loaded && old->ino == (uint64_t)st.st_ino && old->size == (uint64_t)st.st_size &&
	     old->mtime_ns == enav_sym_mtime_ns(&st))) {
		close(fd);
		return false;
	}
	/* What is kept is at most about what is read: the bytes read are the
	 * budget's per-file share at most. */
	uint64_t max_bytes = (uint64_t)s->max_perf * PERF_MAP_LINE_BYTES;
	if (max_bytes > enav_tenant_mem_file_cap(s->mem) / 2)
		max_bytes = enav_tenant_mem_file_cap(s->mem) / 2;
	struct pm_loader l = {.pm = fresh, .max = s->max_perf};
	enav_read_lines(fd, PERF_MAP_LINE_MAX, max_bytes, perf_map_line, &l);
	close(fd);
	if (fresh->n)
		qsort(fresh->e, fresh->n, sizeof(*fresh->e), pm_cmp);
	fresh->bytes = (uint64_t)l.cap * sizeof(*fresh->e) + l.names_cap;
	fresh->loaded = true;
	fresh->ino = (uint64_t)st.st_ino;
	fresh->size = (uint64_t)st.st_size;
	fresh->mtime_ns = enav_sym_mtime_ns(&st);
	return true;
}

/* Rereads pid's perf map when it is due (once a second) and changed.
 * Called and returns with the lock held; drops it while reading. */
static void perf_map_check(struct enav_symbolizer *s, uint32_t pid, struct proc *p)
{
	struct perf_map *pm = &p->pm;
	uint64_t now = enav_clock_mono_ns();

	if (pm->loading || (pm->checked && now - pm->checked_ns < REFRESH_NS))
		return;
	pm->checked = true;
	pm->checked_ns = now;
	if (!p->uid_known)
		return;
	pm->loading = true;
	uint32_t uid = p->uid;
	const struct perf_map_ident old = {pm->loaded, pm->ino, pm->size, pm->mtime_ns};
	pthread_mutex_unlock(&s->lock);
	struct perf_map fresh = {0};
	bool got = perf_map_read(s, pid, uid, &old, &fresh);
	pthread_mutex_lock(&s->lock);
	/* The snapshot may have been replaced meanwhile (its perf map moves to
	 * the new one, flag included) or evicted (then ours is dropped). */
	p = enav_sym_get_proc(s, pid);
	if (p && p->pm.loading) {
		p->pm.loading = false;
		if (got) {
			bool checked = p->pm.checked;
			uint64_t checked_ns = p->pm.checked_ns;
			enav_sym_perf_map_clear(&p->pm);
			p->pm = fresh;
			p->pm.checked = checked;
			p->pm.checked_ns = checked_ns;
			p->pm.mem = s->mem;
			enav_sym_make_room(s, p->pm.bytes);
			enav_tenant_mem_charge(s->mem, p->pm.bytes);
			s->st.perf_map_loads++;
			return;
		}
	}
	if (got)
		enav_sym_perf_map_clear(&fresh);
}

/* The latest entry (by line) covering addr among the nearest preceding ones
 * (lock held; may drop it to reread the map). */
const char *enav_sym_perf_map_lookup(struct enav_symbolizer *s, uint32_t pid, uint64_t addr,
				     uint64_t *off)
{
	struct proc *p = enav_sym_get_proc(s, pid);
	uint32_t lo = 0, hi;

	if (!p)
		return NULL;
	perf_map_check(s, pid, p);
	if (!(p = enav_sym_get_proc(s, pid)))
		return NULL;
	struct perf_map *pm = &p->pm;
	hi = pm->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pm->e[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct pm_entry *best = NULL;
	for (uint32_t i = lo, steps = 0; i > 0 && steps < PERF_MAP_WALK; i--, steps++) {
		const struct pm_entry *e = &pm->e[i - 1];
		if (addr < e->end && (!best || e->seq > best->seq))
			best = e;
	}
	if (!best)
		return NULL;
	*off = addr - best->start;
	return pm->names + best->name;
}
