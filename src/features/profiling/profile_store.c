/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The profile store (profile_store.h): the drained batches kept for a
 * bounded time and size, the processes the kernel announced (their names,
 * mapping snapshots and the owners their Go build info names), the
 * workloads of cgroups, and the store's metrics.  Building a profile from
 * it is profile_build.c.
 */
#include "features/profiling/profile_store_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/host.h"
#include "platform/clock.h"
#include "platform/promtext.h"
#include "discovery/discovery.h"
#include "enrich/attribution.h"
#include "features/profiling/symbolize.h"
#include "features/profiling/tenant_memory.h"

static const char *const kind_names[ENAV_PROFILE__COUNT] = {
    [ENAV_PROFILE_CPU] = "cpu", [ENAV_PROFILE_OFFCPU] = "offcpu", [ENAV_PROFILE_FUTEX] = "futex"};

const char *enav_profile_kind_name(enum enav_profile_kind k)
{
	return k < ENAV_PROFILE__COUNT ? kind_names[k] : "unknown";
}

/* ---- batches ------------------------------------------------------------- */

struct enav_profile_batch *enav_profile_batch_new(uint64_t start_mono_ns, uint64_t start_unix_ns)
{
	struct enav_profile_batch *b = calloc(1, sizeof(*b));
	if (b) {
		b->start_mono_ns = start_mono_ns;
		b->start_unix_ns = start_unix_ns;
	}
	return b;
}

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return true;
	uint32_t n = *cap ? *cap : 64;
	while (n < need)
		n *= 2;
	void *q = realloc(*p, (size_t)n * elem);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

bool enav_profile_batch_add(struct enav_profile_batch *b, const struct enav_profile_record *r,
			    const uint64_t *kernel_ips, uint16_t n_kernel, const uint64_t *user_ips,
			    uint16_t n_user)
{
	uint32_t nips = (uint32_t)n_kernel + n_user;
	/* At least one slot even for a frameless record: once a batch holds a
	 * record, b->ips is never NULL, so b->ips + ip_off stays defined. */
	uint32_t need_ips = b->n_ips + nips ? b->n_ips + nips : 1;
	if (!grow((void **)&b->recs, &b->cap_recs, b->n_recs + 1, sizeof(*b->recs)) ||
	    !grow((void **)&b->ips, &b->cap_ips, need_ips, sizeof(*b->ips)))
		return false;
	struct enav_profile_record *d = &b->recs[b->n_recs++];
	*d = *r;
	d->ip_off = b->n_ips;
	d->n_kernel = n_kernel;
	d->n_user = n_user;
	if (n_kernel)
		memcpy(b->ips + b->n_ips, kernel_ips, n_kernel * sizeof(uint64_t));
	if (n_user)
		memcpy(b->ips + b->n_ips + n_kernel, user_ips, n_user * sizeof(uint64_t));
	b->n_ips += nips;
	return true;
}

static uint64_t batch_bytes(const struct enav_profile_batch *b)
{
	return (uint64_t)b->n_recs * sizeof(*b->recs) + (uint64_t)b->n_ips * sizeof(*b->ips);
}

void enav_profile_batch_free(struct enav_profile_batch *b)
{
	if (!b)
		return;
	free(b->recs);
	free(b->ips);
	free(b);
}

/* ---- store --------------------------------------------------------------- */

/* Drops a reference to an owner (the cache's free function too). */
void enav_profile_owner_unref(void *v)
{
	struct owner_entry *o = v;
	if (atomic_fetch_sub(&o->refs, 1) != 1)
		return;
	if (o->go)
		enav_go_buildinfo_free(&o->bi);
	free(o->storage);
	free(o);
}

static int copy_allow(struct enav_profile_store *s, const struct enav_profile_store_config *cfg)
{
	s->cfg.allow = NULL;
	if (!cfg->n_allow)
		return 0;
	s->allow = calloc(cfg->n_allow, sizeof(*s->allow));
	if (!s->allow)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->n_allow; i++)
		if (!(s->allow[i] = strdup(cfg->allow[i])))
			return -ENOMEM;
	s->allow_only.allow = (const char *const *)s->allow;
	s->allow_only.n_allow = cfg->n_allow;
	return 0;
}

struct enav_profile_store *enav_profile_store_new(const struct enav_profile_store_config *cfg)
{
	struct enav_profile_store *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->cfg = *cfg;
	snprintf(s->cgroup2_mount, sizeof(s->cgroup2_mount), "%s",
		 cfg->cgroup2_mount ? cfg->cgroup2_mount : "");
	s->cfg.cgroup2_mount = s->cgroup2_mount;
	s->cgroup2_fd =
	    s->cgroup2_mount[0] ? open(s->cgroup2_mount, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->drain_lock, NULL);
	pthread_cond_init(&s->closed_cv, NULL);
	struct enav_symbolizer_config sc = {.proc_root = "/proc",
					    .kallsyms_path = "/proc/kallsyms",
					    .perf_map_dir = "/tmp",
					    .max_processes = cfg->max_processes,
					    .max_elf_files = cfg->max_elf_files};
	/* The tenant memory budget counts the bytes tables keep; for the
	 * process's RSS to follow it, an evicted table must go back to the
	 * kernel.  glibc serves large blocks from its heaps once one was freed
	 * (its mmap threshold rises to the size freed, up to 32 MiB), where
	 * freed tables stay resident and fragment; a fixed threshold keeps
	 * every block of 1 MiB or more a mapping of its own (ADR 0020). */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	s->mem = enav_tenant_mem_new(cfg->tenant_memory_bytes);
	sc.mem = s->mem;
	s->sym = s->mem ? enav_symbolizer_new(&sc) : NULL;
	if (!s->sym ||
	    enav_bcache_init(&s->tasks, cfg->max_processes ? cfg->max_processes : 4096, free) ||
	    enav_bcache_init(&s->snap_gens, cfg->max_processes ? cfg->max_processes : 4096, NULL) ||
	    enav_bcache_init(&s->owners, cfg->max_elf_files ? cfg->max_elf_files : 256,
			     enav_profile_owner_unref) ||
	    copy_allow(s, cfg) != 0) {
		enav_profile_store_free(s);
		return NULL;
	}
	return s;
}

void enav_profile_store_free(struct enav_profile_store *s)
{
	if (!s)
		return;
	while (s->head) {
		struct enav_profile_batch *b = s->head;
		s->head = b->next;
		enav_profile_batch_free(b);
	}
	if (s->sym)
		enav_symbolizer_free(s->sym);
	enav_tenant_mem_free(s->mem);
	enav_bcache_destroy(&s->tasks);
	enav_bcache_destroy(&s->snap_gens);
	enav_bcache_destroy(&s->owners);
	for (size_t i = 0; s->allow && i < s->allow_only.n_allow; i++)
		free(s->allow[i]);
	free(s->allow);
	if (s->cgroup2_fd >= 0)
		close(s->cgroup2_fd);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->drain_lock);
	pthread_cond_destroy(&s->closed_cv);
	free(s);
}

void enav_profile_store_set_drain(struct enav_profile_store *s, enav_profile_drain_fn fn, void *ctx)
{
	pthread_mutex_lock(&s->drain_lock);
	s->drain = fn;
	s->drain_ctx = ctx;
	pthread_mutex_unlock(&s->drain_lock);
}

void enav_profile_store_close(struct enav_profile_store *s)
{
	pthread_mutex_lock(&s->lock);
	s->closed = true;
	pthread_cond_broadcast(&s->closed_cv);
	pthread_mutex_unlock(&s->lock);
	enav_profile_store_set_drain(s, NULL, NULL);
}

bool enav_profile_store_closed(struct enav_profile_store *s)
{
	pthread_mutex_lock(&s->lock);
	bool c = s->closed;
	pthread_mutex_unlock(&s->lock);
	return c;
}

int enav_profile_store_drain(struct enav_profile_store *s, uint64_t *mono_ns)
{
	pthread_mutex_lock(&s->drain_lock);
	int rc = s->drain ? s->drain(s->drain_ctx, mono_ns) : -ENODEV;
	pthread_mutex_unlock(&s->drain_lock);
	if (rc == -ENODEV && enav_profile_store_closed(s))
		rc = -ESHUTDOWN;
	return rc;
}

bool enav_profile_store_sleep(struct enav_profile_store *s, uint32_t ms)
{
	struct timespec ts = enav_clock_deadline(CLOCK_REALTIME, (uint64_t)ms * 1000000ull);
	atomic_fetch_add(&s->windows_open, 1);
	pthread_mutex_lock(&s->lock);
	while (!s->closed && pthread_cond_timedwait(&s->closed_cv, &s->lock, &ts) != ETIMEDOUT)
		;
	bool ok = !s->closed;
	pthread_mutex_unlock(&s->lock);
	atomic_fetch_sub(&s->windows_open, 1);
	return ok;
}

/* Read the build info of the process's executable once per executable,
 * while the process lives.  The executable is the tenant's file: it is read
 * without the lock (one thread announces processes, so two reads of one
 * file at once are rare, and the second is dropped). */
static uint64_t note_executable(struct enav_profile_store *s, uint32_t tgid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%u/exe", tgid);
	if (stat(path, &st) != 0)
		return 0;
	uint64_t key = ((uint64_t)st.st_dev << 40) ^ (uint64_t)st.st_ino;
	key = key ? key : 1;
	pthread_mutex_lock(&s->lock);
	bool known = enav_bcache_get(&s->owners, key) != NULL;
	pthread_mutex_unlock(&s->lock);
	if (known)
		return key;
	struct owner_entry *o = calloc(1, sizeof(*o));
	if (!o)
		return 0;
	atomic_init(&o->refs, 1);
	char err[160];
	if (enav_go_buildinfo_read_exe(tgid, &o->bi, err, sizeof(err)) == 0) {
		o->go = true;
		if (enav_code_owner_from_buildinfo(&o->owner, &o->bi, s->allow_only.allow,
						   s->allow_only.n_allow, &o->storage) != 0) {
			enav_profile_owner_unref(o);
			return 0;
		}
	} else {
		o->owner = s->allow_only; /* not Go: no modules to admit */
	}
	pthread_mutex_lock(&s->lock);
	if (enav_bcache_get(&s->owners, key))
		enav_profile_owner_unref(o); /* read meanwhile by another announcement */
	else
		enav_bcache_put(&s->owners, key, o);
	pthread_mutex_unlock(&s->lock);
	return key;
}

void enav_profile_store_resnapshot(struct enav_profile_store *s, uint32_t tgid, uint16_t exec_gen)
{
	pthread_mutex_lock(&s->lock);
	/* Only the image announced last: another exec since has its own.  A
	 * first snapshot that failed (a busy node, a slow read) is retaken
	 * here too, while the process may still live. */
	uintptr_t had = (uintptr_t)enav_bcache_get(&s->snap_gens, tgid);
	bool current = (had & ~(uintptr_t)ENAV_SNAP_FAILED) == 1u + exec_gen;
	pthread_mutex_unlock(&s->lock);
	if (!current)
		return;
	int rc = enav_symbolizer_snapshot(s->sym, tgid);
	pthread_mutex_lock(&s->lock);
	if (rc != 0)
		s->snapshot_failures++;
	else if ((uintptr_t)enav_bcache_get(&s->snap_gens, tgid) == had)
		enav_bcache_put(&s->snap_gens, tgid, (void *)(uintptr_t)(1u + exec_gen));
	pthread_mutex_unlock(&s->lock);
}

void enav_profile_store_task(struct enav_profile_store *s, uint32_t tgid, uint16_t exec_gen,
			     const char *comm)
{
	pthread_mutex_lock(&s->lock);
	s->tasks_announced++;
	/* Announced again (see below): what was read while it lived stays. */
	bool known = enav_bcache_get(&s->tasks, enav_profile_task_key(tgid, exec_gen)) != NULL;
	pthread_mutex_unlock(&s->lock);
	struct task_info *t = known ? NULL : calloc(1, sizeof(*t));
	if (t) {
		snprintf(t->comm, sizeof(t->comm), "%.*s", ENAV_COMM_LEN - 1, comm);
		t->exe_key = note_executable(s, tgid);
	}
	/* While it lives: a process that exits before the next build is still
	 * symbolized from this snapshot.  Taken without the lock (it reads the
	 * process's files); which image it is of is remembered under it. */
	int snap = enav_symbolizer_snapshot(s->sym, tgid);
	pthread_mutex_lock(&s->lock);
	if (t && !enav_bcache_get(&s->tasks, enav_profile_task_key(tgid, exec_gen)))
		enav_bcache_put(&s->tasks, enav_profile_task_key(tgid, exec_gen), t);
	else
		free(t);
	if (snap != 0) {
		s->snapshot_failures++;
		/* A second announcement of the same image (the unwinder found
		 * its mappings stale) can come after the process exited: the
		 * symbolizer keeps the snapshot it had, and it still matches. */
		if (!enav_profile_snapshot_matches(s, tgid, exec_gen))
			enav_bcache_put(&s->snap_gens, tgid,
					(void *)(uintptr_t)((1u + exec_gen) | ENAV_SNAP_FAILED));
	} else {
		enav_bcache_put(&s->snap_gens, tgid, (void *)(uintptr_t)(1u + exec_gen));
	}
	pthread_mutex_unlock(&s->lock);
}

void enav_profile_store_add(struct enav_profile_store *s, struct enav_profile_batch *b)
{
	pthread_mutex_lock(&s->lock);
	b->next = NULL;
	if (s->tail)
		s->tail->next = b;
	else
		s->head = b;
	s->tail = b;
	s->n_batches++;
	s->n_recs += b->n_recs;
	s->n_bytes += batch_bytes(b);
	s->batches_added++;
	uint64_t horizon = b->end_mono_ns > (uint64_t)s->cfg.retention_ms * 1000000ull
			       ? b->end_mono_ns - (uint64_t)s->cfg.retention_ms * 1000000ull
			       : 0;
	/* Oldest first, never the batch just added. */
	while (s->head != b &&
	       (s->head->end_mono_ns < horizon || s->n_recs > s->cfg.max_stored_stacks ||
		(s->cfg.max_stored_bytes && s->n_bytes > s->cfg.max_stored_bytes))) {
		struct enav_profile_batch *old = s->head;
		s->head = old->next;
		s->n_batches--;
		s->n_recs -= old->n_recs;
		s->n_bytes -= batch_bytes(old);
		s->batches_evicted++;
		s->records_evicted += old->n_recs;
		if (old->pins)
			old->evicted = true; /* a build still reads it */
		else
			enav_profile_batch_free(old);
	}
	pthread_mutex_unlock(&s->lock);
}

/* ---- workloads ---------------------------------------------------------- */

void enav_profile_describe_cgroup(struct enav_profile_store *s, uint64_t id, uint64_t time_unix_ns,
				  struct workload *w)
{
	memset(w, 0, sizeof(*w));
	w->cgroup_id = id;
	struct enav_discovery *d = s->cfg.host ? enav_host_discovery(s->cfg.host) : NULL;
	if (d) {
		/* As attribution does for signals: the snapshot whose verdict let
		 * the samples through, never a later one, so a pod's labels that
		 * flipped since are not given to samples taken before. */
		struct enav_snapshot *snap = NULL;
		const struct enav_snapshot_entry *e = NULL;
		enum enav_governing g = enav_discovery_governing(d, time_unix_ns, id, &snap, &e);
		if (g == ENAV_GOVERNED_BY_ENTRY) {
			w->has_path = true;
			snprintf(w->path, sizeof(w->path), "%s", e->path);
			w->identity = e->identity;
			if (e->pod) {
				snprintf(w->pod, sizeof(w->pod), "%s", e->pod->name);
				snprintf(w->namespace_, sizeof(w->namespace_), "%s",
					 e->pod->namespace_);
				if (e->pod->n_services)
					snprintf(w->service, sizeof(w->service), "%s",
						 e->pod->services[0].name);
			}
		} else if (g == ENAV_GOVERNED_NOT_HELD) {
			/* The pod's metadata is not guessed from a later snapshot:
			 * the kernel's path alone, below. */
			atomic_fetch_add(&s->workloads_verdict_not_held, 1);
		}
		enav_snapshot_release(snap);
		if (w->has_path)
			return;
	}
	if (s->cgroup2_fd >= 0 && enav_cgroup_path_by_id(s->cgroup2_fd, s->cgroup2_mount, id,
							 w->path, sizeof(w->path)) == 0) {
		w->has_path = true;
		enav_cgroup_identity_parse(w->path, strlen(w->path), &w->identity);
	}
}

bool enav_profile_store_workload(struct enav_profile_store *s, uint32_t tgid,
				 struct enav_profile_workload *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t cgroup_id = 0, time_unix_ns = 0;
	bool found = false;
	pthread_mutex_lock(&s->lock);
	for (struct enav_profile_batch *bt = s->head; bt; bt = bt->next)
		for (uint32_t i = 0; i < bt->n_recs; i++)
			if (bt->recs[i].tgid == tgid) {
				cgroup_id = bt->recs[i].cgroup_id;
				time_unix_ns = enav_profile_batch_end_unix_ns(bt);
				found = true;
			}
	pthread_mutex_unlock(&s->lock);
	if (!found)
		return false;
	struct workload w;
	enav_profile_describe_cgroup(s, cgroup_id, time_unix_ns, &w);
	snprintf(out->container_id, sizeof(out->container_id), "%s", w.identity.container_id);
	snprintf(out->pod, sizeof(out->pod), "%s", w.pod);
	snprintf(out->namespace_, sizeof(out->namespace_), "%s", w.namespace_);
	snprintf(out->service, sizeof(out->service), "%s", w.service);
	return true;
}

void enav_profile_store_each_pid(struct enav_profile_store *s, enum enav_profile_kind kind,
				 uint64_t from_mono_ns, uint64_t to_mono_ns,
				 void (*fn)(void *ctx, uint32_t tgid, const char *comm), void *ctx)
{
	/* Collect first, call after unlocking: fn may build profiles. */
	uint32_t *pids = NULL;
	size_t n = 0, cap = 0;
	char(*comms)[ENAV_COMM_LEN] = NULL;
	pthread_mutex_lock(&s->lock);
	for (struct enav_profile_batch *bt = s->head; bt; bt = bt->next) {
		if (bt->start_mono_ns < from_mono_ns || bt->end_mono_ns > to_mono_ns)
			continue;
		for (uint32_t i = 0; i < bt->n_recs; i++) {
			const struct enav_profile_record *r = &bt->recs[i];
			if (r->kind != (uint32_t)kind)
				continue;
			bool seen = false;
			for (size_t j = 0; j < n && !seen; j++)
				seen = pids[j] == r->tgid;
			if (seen)
				continue;
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 64;
				uint32_t *np = realloc(pids, nc * sizeof(*np));
				char(*nm)[ENAV_COMM_LEN] =
				    np ? realloc(comms, nc * sizeof(*nm)) : NULL;
				if (np)
					pids = np;
				if (!nm)
					goto out;
				comms = nm;
				cap = nc;
			}
			struct task_info *t =
			    enav_bcache_get(&s->tasks, enav_profile_task_key(r->tgid, r->exec_gen));
			snprintf(comms[n], ENAV_COMM_LEN, "%s", t ? t->comm : "");
			pids[n++] = r->tgid;
		}
	}
out:
	pthread_mutex_unlock(&s->lock);
	for (size_t i = 0; i < n; i++)
		fn(ctx, pids[i], comms[i]);
	free(pids);
	free(comms);
}

struct enav_tenant_mem *enav_profile_store_tenant_mem(struct enav_profile_store *s)
{
	return s->mem;
}

void enav_profile_store_metrics(struct enav_profile_store *s, struct enav_promtext *p)
{
	/* The lock is never held across file I/O (a build symbolizes without
	 * it): a scrape waits for memory work only. */
	struct enav_symbolizer_stats st;
	enav_symbolizer_get_stats(s->sym, &st);
	pthread_mutex_lock(&s->lock);
	uint64_t bytes = s->n_bytes, batches = s->n_batches, recs = s->n_recs,
		 added = s->batches_added, evicted = s->batches_evicted,
		 revicted = s->records_evicted, builds = s->builds, berr = s->build_errors,
		 tasks = s->tasks_announced, other = s->frames_other_image,
		 snapfail = s->snapshot_failures, implausible = s->frames_implausible;
	pthread_mutex_unlock(&s->lock);
	enav_promtext_single_u64(p, "enav_profile_stored_batches", "gauge",
				 "Drained profile batches kept for queries.", batches);
	enav_promtext_single_u64(p, "enav_profile_stored_stacks", "gauge",
				 "Aggregated stacks kept over all batches (capped by "
				 "profiling.max_stored_stacks).",
				 recs);
	enav_promtext_single_u64(
	    p, "enav_profile_stored_bytes", "gauge",
	    "Bytes of stacks and frames kept (capped by profiling.max_store_mb).", bytes);
	enav_promtext_single_u64(p, "enav_profile_batches_total", "counter",
				 "Profile batches drained from the kernel.", added);
	enav_promtext_single_u64(p, "enav_profile_batches_evicted_total", "counter",
				 "Batches dropped by retention or the stack cap.", evicted);
	enav_promtext_single_u64(p, "enav_profile_stacks_evicted_total", "counter",
				 "Stacks dropped with evicted batches.", revicted);
	enav_promtext_single_u64(p, "enav_profile_builds_total", "counter",
				 "Profiles built (pprof, folded or flame graph).", builds);
	enav_promtext_single_u64(p, "enav_profile_windows_open", "gauge",
				 "Profile requests collecting their window (drained at its start, "
				 "not yet at its end).",
				 atomic_load(&s->windows_open));
	enav_promtext_single_u64(p, "enav_profile_build_errors_total", "counter",
				 "Profile builds that failed.", berr);
	enav_promtext_single_u64(p, "enav_profile_processes_announced_total", "counter",
				 "Processes the kernel announced on their first profiled stack.",
				 tasks);
	enav_promtext_single_u64(p, "enav_profile_frames_unmatched_image_total", "counter",
				 "User frames left unsymbolized because no mapping snapshot of "
				 "their process image (pid and exec) was taken.",
				 other);
	enav_promtext_single_u64(p, "enav_profile_frames_implausible_total", "counter",
				 "User frames left out of built profiles because they lie outside "
				 "every executable mapping of their process (counted per build).",
				 implausible);
	enav_promtext_single_u64(p, "enav_profile_snapshot_failures_total", "counter",
				 "Mapping snapshots that failed (process already gone).", snapfail);
	enav_promtext_single_u64(p, "enav_profile_workloads_verdict_not_held_total", "counter",
				 "Profile workloads described by their cgroup path alone: the "
				 "discovery snapshot that admitted their samples was released, and "
				 "a later one's pod is not guessed.",
				 atomic_load(&s->workloads_verdict_not_held));
	enav_promtext_family(p, "enav_symbolizer_events_total", "counter",
			     "Symbolizer activity by event.");
	const struct {
		const char *name;
		uint64_t v;
	} ev[] = {
	    {"snapshot", st.snapshots},
	    {"snapshot_failure", st.snapshot_failures},
	    {"process_eviction", st.process_evictions},
	    {"elf_load", st.elf_loads},
	    {"elf_failure", st.elf_failures},
	    {"elf_hit", st.elf_hits},
	    {"elf_eviction", st.elf_evictions},
	    {"elf_truncated", st.elf_truncated},
	    {"elf_load_deferred", st.elf_deferred},
	    {"elf_load_concurrent", st.elf_concurrent},
	    {"perf_map_load", st.perf_map_loads},
	    {"debug_file", st.debug_files},
	    {"frame_resolved", st.resolved},
	    {"frame_unresolved", st.unresolved},
	};
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
		const char *l[] = {"event", ev[i].name};
		enav_promtext_sample_u64(p, "enav_symbolizer_events_total", l, 1, ev[i].v);
	}
	enav_tenant_mem_metrics(s->mem, p);
	enav_promtext_family(p, "enav_symbolizer_cache_entries", "gauge",
			     "Entries in the symbolizer's bounded caches.");
	const char *lp[] = {"cache", "process_snapshots"};
	enav_promtext_sample_u64(p, "enav_symbolizer_cache_entries", lp, 1, st.processes);
	const char *le[] = {"cache", "elf_symbol_tables"};
	enav_promtext_sample_u64(p, "enav_symbolizer_cache_entries", le, 1, st.elf_files);
}

const struct enav_profile_service enav_profile_store_service = {
    .drain = enav_profile_store_drain,
    .sleep = enav_profile_store_sleep,
    .build = enav_profile_store_build,
    .build_tables = enav_profile_store_build_tables,
    .workload = enav_profile_store_workload,
    .each_pid = enav_profile_store_each_pid,
    .kind_name = enav_profile_kind_name,
    .release = enav_profile_store_free,
};
