/* SPDX-License-Identifier: Apache-2.0 */
#include "enrich/attribution.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/bcache.h"
#include "platform/clock.h"
#include "platform/log.h"
#include "discovery/discovery.h"

/* kernfs exports cgroup directories with this file-handle type (FILEID_KERNFS). */
#define KERNFS_FILEID_TYPE 0xfe

enum warn_reason {
	W_CGROUP_GONE,
	W_CGROUP_UNRESOLVABLE,
	W_CGROUP_OUTSIDE_MOUNT,
	W_CGROUP_NO_V2,
	W_EXEC_NOT_OBSERVED,
	W_EXE_UNRESOLVED_AT_EXEC,
	W_VERDICT_NOT_HELD,
	W__COUNT
};

/* Shared by the cache and every signal attributed with it (a pin). */
struct cgroup_entry {
	_Atomic uint32_t refs;
	bool known;
	enum warn_reason reason; /* why the path is unknown */
	/* An unknown path that may resolve later (EPERM, ENOMEM): asked again
	 * once the monotonic clock passes this; 0 for an answer that stands. */
	uint64_t retry_after_ns;
	char path[ENAV_SIGNAL_CGROUP_PATH_MAX];
	struct enav_cgroup_identity identity;
};

/* What an exit needs from its exec: identity and the executable path.
 * Shared by the cache and the exit signal that carries the path (a pin). */
struct process_entry {
	_Atomic uint32_t refs;
	uint64_t start_boot_ns;
	char exe[]; /* "" when the exec had none */
};

struct attribution {
	struct enav_host *host;
	int cgroup2_fd;
	char cgroup2_mount[256];
	struct enav_bcache cgroups;
	struct enav_bcache processes;
	/* Published for the metrics thread; the caches themselves are capture-thread only. */
	_Atomic uint64_t warnings[W__COUNT];
	_Atomic uint64_t cgroup_size, cgroup_evictions, process_size, process_evictions;
};

static const char *const warn_names[W__COUNT] = {
    [W_CGROUP_GONE] = "cgroup_removed_before_resolution",
    [W_CGROUP_UNRESOLVABLE] = "cgroup_id_not_resolvable",
    [W_CGROUP_OUTSIDE_MOUNT] = "cgroup_outside_mount_or_too_long",
    [W_CGROUP_NO_V2] = "no_cgroup2_mount",
    [W_EXEC_NOT_OBSERVED] = "exec_not_observed",
    [W_EXE_UNRESOLVED_AT_EXEC] = "exe_unresolved_at_exec",
    [W_VERDICT_NOT_HELD] = "admitting_snapshot_released",
};

static void cgroup_entry_unref(void *ref)
{
	struct cgroup_entry *e = ref;
	if (atomic_fetch_sub(&e->refs, 1) == 1)
		free(e);
}

static void process_entry_unref(void *ref)
{
	struct process_entry *pe = ref;
	if (atomic_fetch_sub(&pe->refs, 1) == 1)
		free(pe);
}

static void warn(struct attribution *at, struct enav_signal *s, const char *field,
		 enum warn_reason r)
{
	atomic_fetch_add(&at->warnings[r], 1);
	enav_signal_warn(s, field, warn_names[r]);
}

int enav_cgroup_relative_path(const char *mount, const char *abs, char *out, size_t outlen)
{
	size_t m = strlen(mount);
	while (m > 0 && mount[m - 1] == '/')
		m--; /* "/" becomes "": every absolute path is under it */
	if (strncmp(abs, mount, m) != 0 || (abs[m] != '/' && abs[m] != '\0'))
		return -1;
	const char *rel = abs[m] ? abs + m : "/";
	if ((size_t)snprintf(out, outlen, "%s", rel) >= outlen)
		return -1;
	return 0;
}

/*
 * cgroup id -> entry.  A miss asks the kernel: the id is a kernfs file handle
 * on the cgroup2 mount, and the opened directory's /proc/self/fd link is its
 * path.  Failures are cached too, or a cgroup that cannot be named would cost
 * a syscall on every signal of it: a gone cgroup (ESTALE, ENOENT) for as long
 * as the cache keeps it, as cgroup ids are never reused; any other failure
 * (EPERM without CAP_DAC_READ_SEARCH, ENOMEM), which says nothing about the
 * cgroup, for CGROUP_RETRY_NS.  *reason says why when NULL is returned.
 */
#define CGROUP_RETRY_NS (1000ull * 1000 * 1000)

static struct cgroup_entry *resolve_cgroup(struct attribution *at, uint64_t id,
					   enum warn_reason *reason)
{
	struct cgroup_entry *e = enav_bcache_get(&at->cgroups, id);
	if (e && !(e->retry_after_ns && enav_clock_mono_ns() >= e->retry_after_ns))
		return e;
	e = calloc(1, sizeof(*e));
	if (!e) {
		*reason = W_CGROUP_UNRESOLVABLE;
		return NULL;
	}
	atomic_init(&e->refs, 1);
	if (at->cgroup2_fd < 0) {
		e->reason = W_CGROUP_NO_V2;
		enav_bcache_put(&at->cgroups, id, e);
		return e;
	}
	int rc =
	    enav_cgroup_path_by_id(at->cgroup2_fd, at->cgroup2_mount, id, e->path, sizeof(e->path));
	if (rc == 0) {
		e->known = true;
		enav_cgroup_identity_parse(e->path, strlen(e->path), &e->identity);
	} else if (rc == -ESTALE || rc == -ENOENT) {
		e->reason = W_CGROUP_GONE;
		e->path[0] = '\0';
	} else if (rc == -EIO) {
		e->reason = W_CGROUP_UNRESOLVABLE;
		e->path[0] = '\0';
		e->retry_after_ns = enav_clock_mono_ns() + CGROUP_RETRY_NS;
	} else {
		e->reason = W_CGROUP_OUTSIDE_MOUNT;
	}
	/* Replaces a stale failure; signals that pinned it keep their reference. */
	enav_bcache_put(&at->cgroups, id, e);
	return e;
}

int enav_cgroup_path_by_id(int cgroup2_fd, const char *mount, uint64_t id, char *out, size_t outlen)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = {.fh = {.handle_bytes = sizeof(uint64_t), .handle_type = KERNFS_FILEID_TYPE},
	       .id = id};
	int fd = open_by_handle_at(cgroup2_fd, &h.fh, O_RDONLY | O_CLOEXEC | O_DIRECTORY);
	if (fd < 0)
		return errno == ESTALE || errno == ENOENT ? -errno : -EIO;
	char link[64], abs[ENAV_SIGNAL_CGROUP_PATH_MAX + 256];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, abs, sizeof(abs) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	abs[n] = '\0';
	return enav_cgroup_relative_path(mount, abs, out, outlen) == 0 ? 0 : -ERANGE;
}

/* The signal takes the reference ref (released with it) and points into it. */
static bool pin_cgroup(struct enav_signal *s, void *ref, void (*release)(void *ref),
		       const char *path, const struct enav_cgroup_identity *identity)
{
	if (enav_signal_pin(s, ref, release) != 0) {
		release(ref);
		return false;
	}
	s->process.has_cgroup_path = true;
	s->process.cgroup_path = path;
	s->process.identity = identity;
	return true;
}

/* A pod lives in the view: the signal pins the view and points into it. */
static bool pin_view(struct enav_signal *s, struct enav_snapshot *view,
		     const struct enav_snapshot_entry *e)
{
	atomic_fetch_add(&view->refs, 1);
	if (!pin_cgroup(s, view, enav_snapshot_unpin, e->path, &e->identity))
		return false;
	s->process.pod = e->pod;
	return true;
}

static bool pin_entry(struct enav_signal *s, struct cgroup_entry *e)
{
	if (!e)
		return false;
	atomic_fetch_add(&e->refs, 1);
	return pin_cgroup(s, e, cgroup_entry_unref, e->path, &e->identity);
}

/*
 * Without a pod, the snapshot entry's path (and the identity parsed from it)
 * is kept in the cgroup cache, so a queued signal holds that entry rather
 * than a whole snapshot (there is one per discovery change).  NULL when out
 * of memory.
 */
static struct cgroup_entry *entry_from_snapshot(struct attribution *at,
						const struct enav_snapshot_entry *se)
{
	struct cgroup_entry *e = enav_bcache_get(&at->cgroups, se->id);
	if (e && e->known && strcmp(e->path, se->path) == 0)
		return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	atomic_init(&e->refs, 1);
	e->known = true;
	snprintf(e->path, sizeof(e->path), "%s", se->path);
	e->identity = se->identity;
	enav_bcache_put(&at->cgroups, se->id, e);
	return e;
}

/*
 * From the discovery snapshot whose decision let the signal through: the
 * same pass wrote that kernel verdict, so attribution agrees with the filter
 * even when the cgroup's labels flipped while the signal was queued.  When
 * that snapshot is no longer held, the pod's metadata is not guessed from a
 * later one: the cgroup path alone is attributed, with a warning.
 */
static bool attribute_from_snapshot(struct attribution *at, struct enav_signal *s)
{
	struct enav_discovery *d = enav_host_discovery(at->host);
	if (!d)
		return false;
	struct enav_snapshot *snap;
	const struct enav_snapshot_entry *e;
	enum enav_governing g =
	    enav_discovery_governing(d, s->time_unix_ns, s->process.cgroup_id, &snap, &e);
	bool attributed = false;
	if (g == ENAV_GOVERNED_BY_ENTRY && e->pod)
		attributed = pin_view(s, snap, e);
	else if (g == ENAV_GOVERNED_BY_ENTRY)
		attributed = pin_entry(s, entry_from_snapshot(at, e));
	else if (g == ENAV_GOVERNED_NOT_HELD)
		warn(at, s, "k8s", W_VERDICT_NOT_HELD);
	enav_snapshot_release(snap);
	return attributed;
}

static void attribute_cgroup(struct attribution *at, struct enav_signal *s)
{
	struct enav_process_signal *p = &s->process;
	if (attribute_from_snapshot(at, s))
		return;
	enum warn_reason reason = W_CGROUP_UNRESOLVABLE;
	struct cgroup_entry *e = resolve_cgroup(at, p->cgroup_id, &reason);
	if (!e || !e->known) {
		warn(at, s, "cgroup_path", e ? e->reason : reason);
		return;
	}
	if (!pin_entry(s, e))
		warn(at, s, "cgroup_path", W_CGROUP_UNRESOLVABLE);
}

static void attribute_exec(struct attribution *at, struct enav_signal *s)
{
	struct enav_process_signal *p = &s->process;
	size_t len = p->has_exe ? strlen(p->exe) : 0;
	struct process_entry *pe = malloc(sizeof(*pe) + len + 1);
	if (!pe)
		return; /* the exit will say exec_not_observed */
	atomic_init(&pe->refs, 1);
	pe->start_boot_ns = p->start_boot_ns;
	memcpy(pe->exe, p->exe, len);
	pe->exe[len] = '\0';
	enav_bcache_put(&at->processes, p->pid, pe);
}

static void attribute_exit(struct attribution *at, struct enav_signal *s)
{
	struct enav_process_signal *p = &s->process;
	struct process_entry *pe = enav_bcache_get(&at->processes, p->pid);
	/* Same pid and same kernel start time: the same process. */
	if (!pe || pe->start_boot_ns != p->start_boot_ns) {
		warn(at, s, "exe", W_EXEC_NOT_OBSERVED);
		return;
	}
	if (pe->exe[0]) {
		atomic_fetch_add(&pe->refs, 1);
		if (enav_signal_pin(s, pe, process_entry_unref) == 0) {
			p->exe = pe->exe;
			p->has_exe = true;
		} else {
			process_entry_unref(pe);
			warn(at, s, "exe", W_EXEC_NOT_OBSERVED);
		}
	} else {
		warn(at, s, "exe", W_EXE_UNRESOLVED_AT_EXEC);
	}
	enav_bcache_remove(&at->processes, p->pid);
}

static void attribution_apply(void *state, struct enav_signal *s)
{
	struct attribution *at = state;
	attribute_cgroup(at, s);
	if (s->kind == ENAV_SIGNAL_PROCESS_EXEC)
		attribute_exec(at, s);
	else if (s->kind == ENAV_SIGNAL_PROCESS_EXIT)
		attribute_exit(at, s);
	atomic_store(&at->cgroup_size, at->cgroups.size);
	atomic_store(&at->cgroup_evictions, at->cgroups.evictions);
	atomic_store(&at->process_size, at->processes.size);
	atomic_store(&at->process_evictions, at->processes.evictions);
}

static int attribution_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	struct attribution *at = calloc(1, sizeof(*at));
	if (!at)
		return -ENOMEM;
	*state = at;
	at->host = a;
	const char *mount = cfg->attribution.cgroup2_mount[0]
				? cfg->attribution.cgroup2_mount
				: enav_host_features(a)->cgroup2_mount;
	snprintf(at->cgroup2_mount, sizeof(at->cgroup2_mount), "%s", mount);
	at->cgroup2_fd = -1;
	if (mount[0]) {
		at->cgroup2_fd = open(mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (at->cgroup2_fd < 0)
			enav_warn("attribution: cannot open cgroup2 mount %s: %s; cgroup paths "
				  "will be absent",
				  mount, strerror(errno));
	} else {
		enav_warn("attribution: no cgroup2 mount; cgroup paths will be absent");
	}
	if (enav_bcache_init(&at->cgroups, cfg->attribution.cgroup_cache_entries,
			     cgroup_entry_unref) ||
	    enav_bcache_init(&at->processes, cfg->attribution.process_table_entries,
			     process_entry_unref)) {
		snprintf(err, errlen, "attribution: cannot allocate caches");
		return -ENOMEM;
	}
	return 0;
}

static void attribution_fini(void *state)
{
	struct attribution *at = state;
	if (!at)
		return;
	enav_bcache_destroy(&at->cgroups);
	enav_bcache_destroy(&at->processes);
	if (at->cgroup2_fd >= 0)
		close(at->cgroup2_fd);
	free(at);
}

static void attribution_metrics(void *state, struct enav_promtext *p)
{
	struct attribution *at = state;
	const char *lc[] = {"cache", "cgroup"};
	const char *lp[] = {"cache", "process"};
	enav_promtext_family(p, "enav_cache_entries", "gauge", "Entries held by a bounded cache.");
	enav_promtext_sample_u64(p, "enav_cache_entries", lc, 1, atomic_load(&at->cgroup_size));
	enav_promtext_sample_u64(p, "enav_cache_entries", lp, 1, atomic_load(&at->process_size));
	enav_promtext_family(p, "enav_cache_capacity", "gauge", "Configured cache capacity.");
	enav_promtext_sample_u64(p, "enav_cache_capacity", lc, 1, at->cgroups.capacity);
	enav_promtext_sample_u64(p, "enav_cache_capacity", lp, 1, at->processes.capacity);
	enav_promtext_family(p, "enav_cache_evictions_total", "counter",
			     "Entries evicted because a bounded cache was full.");
	enav_promtext_sample_u64(p, "enav_cache_evictions_total", lc, 1,
				 atomic_load(&at->cgroup_evictions));
	enav_promtext_sample_u64(p, "enav_cache_evictions_total", lp, 1,
				 atomic_load(&at->process_evictions));
	enav_promtext_family(p, "enav_attribution_warnings_total", "counter",
			     "Fields left absent, by reason (never guessed).");
	for (int r = 0; r < W__COUNT; r++) {
		const char *l[] = {"reason", warn_names[r]};
		enav_promtext_sample_u64(p, "enav_attribution_warnings_total", l, 1,
					 atomic_load(&at->warnings[r]));
	}
}

bool enav_attribution_enabled(const struct enav_config *cfg)
{
	return true;
}

const struct enav_processor_ops enav_attribution_ops = {
    .init = attribution_init,
    .apply = attribution_apply,
    .fini = attribution_fini,
    .metrics = attribution_metrics,
};

/* At most max bytes of s after out[0..n), within cap - 1; returns the new length. */
static size_t append(char *out, size_t cap, size_t n, const char *s, size_t max)
{
	for (size_t i = 0; s[i] && i < max && n + 1 < cap; i++)
		out[n++] = s[i];
	return n;
}

void enav_workload_key(const struct enav_signal *s, char *out, size_t len)
{
	/* Once per span (RED metrics): written by hand, as snprintf would. */
	const struct enav_process_signal *p = &s->process;
	if (len == 0)
		return;
	size_t n = 0;
	if (p->pod) {
		n = append(out, len, n, "pod:", SIZE_MAX);
		n = append(out, len, n, p->pod->namespace_, SIZE_MAX);
		n = append(out, len, n, "/", SIZE_MAX);
		n = append(out, len, n, p->pod->name, SIZE_MAX);
	} else if (p->identity->container_id[0]) {
		n = append(out, len, n, "container:", SIZE_MAX);
		n = append(out, len, n, p->identity->container_id, 12);
	} else {
		n = append(out, len, n, "process:", SIZE_MAX);
		n = append(out, len, n, p->comm[0] ? p->comm : "unknown", SIZE_MAX);
	}
	out[n] = '\0';
}
