/* SPDX-License-Identifier: Apache-2.0 */
#include "features/profiling/profile_store.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runtime/host.h"
#include "platform/bcache.h"
#include "platform/clock.h"
#include "model/pprof.h"
#include "platform/promtext.h"
#include "discovery/discovery.h"
#include "enrich/attribution.h"
#include "model/cgroup_path.h"
#include "features/profiling/go_buildinfo.h"
#include "features/profiling/pprof_filter.h"
#include "features/profiling/symbolize.h"
#include "features/profiling/tenant_memory.h"
#include "features/profiling/flamegraph.h"

#define MAX_FRAMES 256 /* kernel + user, both capped at 127 by the stack map */

struct task_info {
	char comm[ENAV_COMM_LEN];
	uint64_t exe_key; /* its executable in the owners cache, 0 = unknown */
};

/* Whose code a Go executable is, from its build info (or only the
 * allow-list, for a binary without build info). */
struct owner_entry {
	bool go;
	struct enav_go_buildinfo bi;
	struct enav_code_owner owner;
	const char **storage;
};

/* The store's counters as one scrape read them. */
struct metrics_snap {
	struct enav_symbolizer_stats st;
	uint64_t bytes, batches, recs, added, evicted, revicted, builds, berr, tasks, other,
	    snapfail, implausible;
};

struct enav_profile_store {
	pthread_mutex_t lock;
	pthread_cond_t closed_cv;
	bool closed;
	struct enav_profile_store_config cfg;
	char cgroup2_mount[256];
	int cgroup2_fd;
	struct enav_symbolizer *sym;
	struct enav_tenant_mem *mem;  /* shared with the unwind tables */
	struct enav_bcache tasks;     /* (exec_gen << 32 | tgid) -> comm */
	struct enav_bcache snap_gens; /* tgid -> 1 + exec_gen of its mapping snapshot */
	struct enav_bcache owners;    /* executable (dev, inode) -> struct owner_entry */
	struct enav_code_owner allow_only;
	char **allow;
	struct enav_profile_batch *head, *tail;
	uint32_t n_batches, n_recs;
	uint64_t n_bytes; /* records + frames held */
	/* The source's drain, serialized by its own lock. */
	/* The counters /metrics showed last, for a scrape during a build. */
	pthread_mutex_t snap_lock;
	struct metrics_snap last_snap;
	uint64_t stale_scrapes;
	pthread_mutex_t drain_lock;
	enav_profile_drain_fn drain;
	void *drain_ctx;
	/* self-accounting */
	uint64_t batches_added, batches_evicted, records_evicted, builds, build_errors;
	uint64_t tasks_announced, snapshot_failures, frames_other_image, frames_implausible;
};

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

static void owner_free(void *v)
{
	struct owner_entry *o = v;
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
	pthread_mutex_init(&s->snap_lock, NULL);
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
			     owner_free) ||
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
	pthread_mutex_destroy(&s->snap_lock);
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
	pthread_mutex_lock(&s->lock);
	while (!s->closed && pthread_cond_timedwait(&s->closed_cv, &s->lock, &ts) != ETIMEDOUT)
		;
	bool ok = !s->closed;
	pthread_mutex_unlock(&s->lock);
	return ok;
}

/* Read the build info of the process's executable once per executable
 * (called with the lock held, while the process lives). */
static uint64_t note_executable(struct enav_profile_store *s, uint32_t tgid)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%u/exe", tgid);
	if (stat(path, &st) != 0)
		return 0;
	uint64_t key = ((uint64_t)st.st_dev << 40) ^ (uint64_t)st.st_ino;
	key = key ? key : 1;
	if (enav_bcache_get(&s->owners, key))
		return key;
	struct owner_entry *o = calloc(1, sizeof(*o));
	if (!o)
		return 0;
	char err[160];
	if (enav_go_buildinfo_read_exe(tgid, &o->bi, err, sizeof(err)) == 0) {
		o->go = true;
		if (enav_code_owner_from_buildinfo(&o->owner, &o->bi, s->allow_only.allow,
						   s->allow_only.n_allow, &o->storage) != 0) {
			owner_free(o);
			return 0;
		}
	} else {
		o->owner = s->allow_only; /* not Go: no modules to admit */
	}
	enav_bcache_put(&s->owners, key, o);
	return key;
}

static uint64_t task_key(uint32_t tgid, uint16_t exec_gen)
{
	return (uint64_t)exec_gen << 32 | tgid;
}

void enav_profile_store_resnapshot(struct enav_profile_store *s, uint32_t tgid, uint16_t exec_gen)
{
	pthread_mutex_lock(&s->lock);
	/* Only the image snapshotted last: another exec since has its own. */
	if ((uintptr_t)enav_bcache_get(&s->snap_gens, tgid) == 1u + exec_gen &&
	    enav_symbolizer_snapshot(s->sym, tgid) != 0)
		s->snapshot_failures++;
	pthread_mutex_unlock(&s->lock);
}

/* User frames are symbolized only against a snapshot of the same image: a
 * stack from before an exec never gets the names of the program after it. */
static bool snapshot_matches(struct enav_profile_store *s, uint32_t tgid, uint16_t exec_gen)
{
	uintptr_t v = (uintptr_t)enav_bcache_get(&s->snap_gens, tgid);
	return v == 1u + exec_gen;
}

void enav_profile_store_task(struct enav_profile_store *s, uint32_t tgid, uint16_t exec_gen,
			     const char *comm)
{
	struct task_info *t = calloc(1, sizeof(*t));
	pthread_mutex_lock(&s->lock);
	s->tasks_announced++;
	if (t && enav_bcache_get(&s->tasks, task_key(tgid, exec_gen))) {
		/* Announced again (see below): what was read while it lived stays. */
		free(t);
		t = NULL;
	}
	if (t) {
		snprintf(t->comm, sizeof(t->comm), "%.*s", ENAV_COMM_LEN - 1, comm);
		t->exe_key = note_executable(s, tgid);
		enav_bcache_put(&s->tasks, task_key(tgid, exec_gen), t);
	}
	/* While it lives: a process that exits before the next build is still
	 * symbolized from this snapshot.  Remember which image it is of. */
	if (enav_symbolizer_snapshot(s->sym, tgid) != 0) {
		s->snapshot_failures++;
		/* A second announcement of the same image (the unwinder found
		 * its mappings stale) can come after the process exited: the
		 * symbolizer keeps the snapshot it had, and it still matches. */
		if (!snapshot_matches(s, tgid, exec_gen))
			enav_bcache_remove(&s->snap_gens, tgid);
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
		enav_profile_batch_free(old);
	}
	pthread_mutex_unlock(&s->lock);
}

/* ---- building ------------------------------------------------------------ */

/* What a cgroup id says about its workload, memoized per build. */
struct workload {
	uint64_t cgroup_id;
	bool has_path;
	char path[512];
	struct enav_cgroup_identity identity;
	char pod[256], namespace_[256], service[256];
};

struct build {
	struct enav_profile_store *s;
	const struct enav_profile_query *q;
	struct workload *workloads;
	size_t n_workloads, cap_workloads;
	/* (tgid, address) -> location id, open addressing */
	struct loc_slot {
		uint64_t addr;
		uint64_t img; /* frame_key(): image, kernel or user, leaf or not */
		bool used, redacted;
		uint64_t id;
	} * locs;
	size_t loc_cap, loc_n;
	struct enav_pprof *pprof;
	uint64_t redacted_loc; /* the "[redacted]" placeholder, once made */
	/* folded/flamegraph */
	struct enav_folded_stack *stacks;
	size_t n_stacks, cap_stacks;
	char **names; /* every string the folded stacks point to */
	size_t n_names, cap_names;
	/* (tgid, addr) -> name index for folded output */
	struct name_slot {
		uint64_t addr;
		uint64_t img;
		bool used;
		uint32_t idx;
	} * name_slots;
	size_t name_cap, name_n;
};

static void describe_cgroup(struct enav_profile_store *s, uint64_t id, struct workload *w)
{
	memset(w, 0, sizeof(*w));
	w->cgroup_id = id;
	struct enav_discovery *d = s->cfg.host ? enav_host_discovery(s->cfg.host) : NULL;
	if (d) {
		struct enav_snapshot *cur, *prev;
		enav_discovery_acquire(d, &cur, &prev);
		const struct enav_snapshot_entry *e = enav_snapshot_find(cur, id);
		if (!e)
			e = enav_snapshot_find(prev, id);
		if (e) {
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
		}
		enav_snapshot_release(cur);
		enav_snapshot_release(prev);
		if (w->has_path)
			return;
	}
	if (s->cgroup2_fd >= 0 && enav_cgroup_path_by_id(s->cgroup2_fd, s->cgroup2_mount, id,
							 w->path, sizeof(w->path)) == 0) {
		w->has_path = true;
		enav_cgroup_identity_parse(w->path, strlen(w->path), &w->identity);
	}
}

static const struct workload *workload_of(struct build *b, uint64_t id)
{
	for (size_t i = 0; i < b->n_workloads; i++)
		if (b->workloads[i].cgroup_id == id)
			return &b->workloads[i];
	if (b->n_workloads == b->cap_workloads) {
		size_t n = b->cap_workloads ? b->cap_workloads * 2 : 16;
		struct workload *w = realloc(b->workloads, n * sizeof(*w));
		if (!w)
			return NULL;
		b->workloads = w;
		b->cap_workloads = n;
	}
	struct workload *w = &b->workloads[b->n_workloads++];
	describe_cgroup(b->s, id, w);
	return w;
}

static bool filter_admits(const struct enav_profile_filter *f, const struct enav_profile_record *r,
			  const struct workload *w)
{
	if (f->pid && r->tgid != f->pid)
		return false;
	if (f->container && f->container[0]) {
		size_t n = strlen(f->container);
		if (!w || !w->identity.container_id[0] ||
		    strncmp(w->identity.container_id, f->container, n) != 0)
			return false;
	}
	if (f->cgroup && f->cgroup[0]) {
		char *end;
		unsigned long long id = strtoull(f->cgroup, &end, 10);
		if (*end == '\0' && end != f->cgroup)
			return r->cgroup_id == id;
		/* A path prefix on a component boundary: /kube is not /kubepods.slice. */
		size_t n = strlen(f->cgroup);
		while (n > 1 && f->cgroup[n - 1] == '/')
			n--;
		if (!w || !w->has_path || strncmp(w->path, f->cgroup, n) != 0 ||
		    (w->path[n] != '\0' && w->path[n] != '/' && !(n == 1 && f->cgroup[0] == '/')))
			return false;
	}
	return true;
}

static size_t slot_hash(uint64_t addr, uint64_t img, size_t cap)
{
	uint64_t h = (addr ^ img ^ (img << 29)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & (cap - 1);
}

/* Open-addressing tables grow at 50% load; both are per build. */
static bool locs_grow(struct build *b)
{
	if (b->loc_n * 2 < b->loc_cap)
		return true;
	size_t ncap = b->loc_cap ? b->loc_cap * 2 : 4096;
	struct loc_slot *n = calloc(ncap, sizeof(*n));
	if (!n)
		return false;
	for (size_t i = 0; i < b->loc_cap; i++) {
		if (!b->locs[i].used)
			continue;
		size_t h = slot_hash(b->locs[i].addr, b->locs[i].img, ncap);
		while (n[h].used)
			h = (h + 1) & (ncap - 1);
		n[h] = b->locs[i];
	}
	free(b->locs);
	b->locs = n;
	b->loc_cap = ncap;
	return true;
}

static bool names_grow(struct build *b)
{
	if (b->name_n * 2 < b->name_cap)
		return true;
	size_t ncap = b->name_cap ? b->name_cap * 2 : 4096;
	struct name_slot *n = calloc(ncap, sizeof(*n));
	if (!n)
		return false;
	for (size_t i = 0; i < b->name_cap; i++) {
		if (!b->name_slots[i].used)
			continue;
		size_t h = slot_hash(b->name_slots[i].addr, b->name_slots[i].img, ncap);
		while (n[h].used)
			h = (h + 1) & (ncap - 1);
		n[h] = b->name_slots[i];
	}
	free(b->name_slots);
	b->name_slots = n;
	b->name_cap = ncap;
	return true;
}

/* Which cache line a frame resolves on: the process image for user frames
 * (pid and exec), one for the kernel; leaf and return addresses apart. */
static uint64_t frame_key(const struct enav_profile_record *r, bool kernel, bool leaf)
{
	uint64_t img = kernel ? 0 : ((uint64_t)r->exec_gen << 32 | r->tgid);
	return img | (leaf ? 1ull << 63 : 0);
}

/* Resolve a frame.  Return addresses (every frame but the leaf) are looked
 * up one byte earlier, inside the call instruction, so a call that ends a
 * function is not credited to the next one. */
static void resolve(struct build *b, const struct enav_profile_record *r, uint64_t ip, bool kernel,
		    bool leaf, struct enav_frame *f)
{
	uint64_t lookup = leaf || ip == 0 ? ip : ip - 1;
	if (kernel) {
		enav_symbolizer_kernel(b->s->sym, lookup, f);
	} else if (snapshot_matches(b->s, r->tgid, r->exec_gen)) {
		enav_symbolizer_user(b->s->sym, r->tgid, lookup, f);
	} else {
		/* No snapshot of this image: the address stays, no name. */
		memset(f, 0, sizeof(*f));
		b->s->frames_other_image++;
	}
	f->address = ip;
}

/* The owner a record's user frames are judged by: its executable's build
 * info, else the allow-list alone (fail closed: more is redacted). */
static const struct enav_code_owner *owner_of(struct build *b, const struct enav_profile_record *r)
{
	struct task_info *t = enav_bcache_get(&b->s->tasks, task_key(r->tgid, r->exec_gen));
	struct owner_entry *o = t && t->exe_key ? enav_bcache_get(&b->s->owners, t->exe_key) : NULL;
	return o ? &o->owner : &b->s->allow_only;
}

/* Under redaction, a user frame outside the owner's code loses its name. */
static bool redacted(struct build *b, const struct enav_profile_record *r, bool kernel,
		     const struct enav_frame *f)
{
	return b->q->redact && !kernel && f->function &&
	       !enav_code_owner_keeps(owner_of(b, r), f->function);
}

static uint64_t location_of(struct build *b, const struct enav_profile_record *r, uint64_t ip,
			    bool kernel, bool leaf, bool *was_redacted)
{
	uint64_t img = frame_key(r, kernel, leaf);
	if (!locs_grow(b))
		return 0;
	size_t h = slot_hash(ip, img, b->loc_cap);
	while (b->locs[h].used) {
		if (b->locs[h].addr == ip && b->locs[h].img == img) {
			*was_redacted = b->locs[h].redacted;
			return b->locs[h].id;
		}
		h = (h + 1) & (b->loc_cap - 1);
	}
	struct enav_frame f;
	resolve(b, r, ip, kernel, leaf, &f);
	bool red = redacted(b, r, kernel, &f);
	uint64_t mapping = 0, id;
	if (red) {
		/* One placeholder location: nothing of the frame remains. */
		if (!b->redacted_loc)
			b->redacted_loc =
			    enav_pprof_location(b->pprof, 0, 0, ENAV_PPROF_REDACTED, NULL, 0);
		id = b->redacted_loc;
	} else {
		if (f.map_path)
			mapping = enav_pprof_mapping(b->pprof, f.map_start, f.map_limit,
						     f.map_offset, b->q->redact ? "" : f.map_path,
						     b->q->redact ? NULL : f.build_id);
		id = enav_pprof_location(b->pprof, mapping, ip, f.function, NULL, 0);
	}
	b->locs[h] =
	    (struct loc_slot){.addr = ip, .img = img, .used = true, .redacted = red, .id = id};
	b->loc_n++;
	*was_redacted = red;
	return id;
}

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static char *intern_name(struct build *b, char *name)
{
	if (!name)
		return NULL;
	if (b->n_names == b->cap_names) {
		size_t n = b->cap_names ? b->cap_names * 2 : 256;
		char **v = realloc(b->names, n * sizeof(*v));
		if (!v) {
			free(name);
			return NULL;
		}
		b->names = v;
		b->cap_names = n;
	}
	b->names[b->n_names++] = name;
	return name;
}

/* Display name of a frame: its function, else its address and mapping (never
 * an invented function name). */
static const char *frame_name(struct build *b, const struct enav_profile_record *r, uint64_t ip,
			      bool kernel, bool leaf)
{
	uint64_t img = frame_key(r, kernel, leaf);
	if (!names_grow(b))
		return "[out of memory]";
	size_t h = slot_hash(ip, img, b->name_cap);
	while (b->name_slots[h].used) {
		if (b->name_slots[h].addr == ip && b->name_slots[h].img == img)
			return b->names[b->name_slots[h].idx];
		h = (h + 1) & (b->name_cap - 1);
	}
	struct enav_frame f;
	resolve(b, r, ip, kernel, leaf, &f);
	char *name = NULL;
	int rc;
	if (redacted(b, r, kernel, &f))
		rc = asprintf(&name, "%s", ENAV_PPROF_REDACTED);
	else if (b->q->redact && !f.function && f.map_path)
		rc = asprintf(&name, "0x%" PRIx64, ip); /* no file names under redaction */
	else if (f.function)
		rc = asprintf(&name, "%s%s", f.function, kernel ? "_[k]" : "");
	else if (f.map_path)
		rc = asprintf(&name, "0x%" PRIx64 " (%s)", ip, basename_of(f.map_path));
	else
		rc = asprintf(&name, "0x%" PRIx64, ip);
	if (rc < 0 || !intern_name(b, name))
		return "[out of memory]";
	b->name_slots[h] = (struct name_slot){
	    .addr = ip, .img = img, .used = true, .idx = (uint32_t)(b->n_names - 1)};
	b->name_n++;
	return name;
}

/* Kernel stacks taken inside a BPF program start with the tracing
 * machinery (the program, the trampoline, the tracepoint runner): frames of
 * ours, not the workload's.  Count how many leading frames to leave out. */
static uint16_t tracing_frames(struct build *b, const uint64_t *ips, uint16_t n)
{
	static const char *const prefixes[] = {"bpf_prog_", "bpf_trace_run", "__bpf_trace_",
					       "__traceiter_", "bpf_dispatcher"};
	uint16_t skip = 0;
	for (; skip < n; skip++) {
		struct enav_frame f;
		enav_symbolizer_kernel(b->s->sym, ips[skip], &f);
		bool ours = false;
		for (size_t i = 0; f.function && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			ours |= strncmp(f.function, prefixes[i], strlen(prefixes[i])) == 0;
		if (!ours)
			break;
	}
	return skip;
}

/*
 * How many user frames (leaf first) are plausible: the first one outside
 * every executable mapping of the process ends the stack, so a frame
 * pointer chain through code built without one never puts stack bytes in a
 * profile.  Without a snapshot of this image only the leaf, read from the
 * registers, is kept.
 */
static uint16_t plausible_user_frames(struct build *b, const struct enav_profile_record *r,
				      const uint64_t *uips)
{
	if (!snapshot_matches(b->s, r->tgid, r->exec_gen))
		return r->n_user ? 1 : 0;
	for (uint16_t i = 0; i < r->n_user; i++) {
		uint64_t at = i == 0 || uips[i] == 0 ? uips[i] : uips[i] - 1;
		if (enav_symbolizer_executable(b->s->sym, r->tgid, at) != 1) {
			b->s->frames_implausible += r->n_user - i;
			return i;
		}
	}
	return r->n_user;
}

static int add_pprof_sample(struct build *b, const struct enav_profile_batch *bt,
			    const struct enav_profile_record *r, const struct workload *w)
{
	uint64_t ids[MAX_FRAMES];
	size_t n = 0;
	const uint64_t *ips = bt->ips + r->ip_off;
	bool red = false, prev_red = false;
	for (uint16_t i = tracing_frames(b, ips, r->n_kernel); i < r->n_kernel && n < MAX_FRAMES;
	     i++) {
		uint64_t id = location_of(b, r, ips[i], true, n == 0, &red);
		if (id)
			ids[n++] = id;
	}
	uint16_t n_user = plausible_user_frames(b, r, ips + r->n_kernel);
	for (uint16_t i = 0; i < n_user && n < MAX_FRAMES; i++) {
		uint64_t id = location_of(b, r, ips[r->n_kernel + i], false, n == 0, &red);
		/* A run of redacted frames is one placeholder: the shape stays. */
		if (id && !(red && prev_red))
			ids[n++] = id;
		prev_red = red;
	}
	int64_t values[2];
	values[0] = (int64_t)r->count;
	if (r->kind == ENAV_PROFILE_CPU)
		values[1] = (int64_t)(r->count * (1000000000ull / b->s->cfg.frequency_hz));
	else
		values[1] = (int64_t)r->total_ns;
	struct enav_pprof_label labels[8];
	size_t nl = 0;
	labels[nl++] = (struct enav_pprof_label){.key = "pid", .num = r->tgid};
	struct task_info *t = enav_bcache_get(&b->s->tasks, task_key(r->tgid, r->exec_gen));
	if (t && t->comm[0])
		labels[nl++] = (struct enav_pprof_label){.key = "comm", .str = t->comm};
	if (w && w->has_path)
		labels[nl++] = (struct enav_pprof_label){.key = "cgroup", .str = w->path};
	if (w && w->identity.container_id[0])
		labels[nl++] = (struct enav_pprof_label){.key = "container_id",
							 .str = w->identity.container_id};
	if (w && w->pod[0]) {
		labels[nl++] = (struct enav_pprof_label){.key = "pod", .str = w->pod};
		labels[nl++] = (struct enav_pprof_label){.key = "namespace", .str = w->namespace_};
	}
	if (w && w->service[0])
		labels[nl++] = (struct enav_pprof_label){.key = "service", .str = w->service};
	return enav_pprof_sample(b->pprof, ids, n, values, 2, labels, nl);
}

static int add_folded_stack(struct build *b, const struct enav_profile_batch *bt,
			    const struct enav_profile_record *r)
{
	const char *frames[MAX_FRAMES + 1];
	size_t n = 0;
	const uint64_t *ips = bt->ips + r->ip_off;
	/* Root first: the process name, then user frames outermost first, then kernel. */
	struct task_info *t = enav_bcache_get(&b->s->tasks, task_key(r->tgid, r->exec_gen));
	frames[n++] = t && t->comm[0] ? t->comm : "[unknown process]";
	for (int i = (int)plausible_user_frames(b, r, ips + r->n_kernel) - 1;
	     i >= 0 && n < MAX_FRAMES; i--) {
		const char *name =
		    frame_name(b, r, ips[r->n_kernel + i], false, i == 0 && r->n_kernel == 0);
		/* A run of redacted frames is one placeholder. */
		if (!(n > 1 && !strcmp(name, ENAV_PPROF_REDACTED) &&
		      !strcmp(frames[n - 1], ENAV_PPROF_REDACTED)))
			frames[n++] = name;
	}
	int skip = tracing_frames(b, ips, r->n_kernel);
	for (int i = (int)r->n_kernel - 1; i >= skip && n < MAX_FRAMES; i--)
		frames[n++] = frame_name(b, r, ips[i], true, i == skip);
	if (b->n_stacks == b->cap_stacks) {
		size_t nc = b->cap_stacks ? b->cap_stacks * 2 : 256;
		struct enav_folded_stack *v = realloc(b->stacks, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->stacks = v;
		b->cap_stacks = nc;
	}
	const char **copy = malloc(n * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, frames, n * sizeof(*copy));
	uint64_t value = r->kind == ENAV_PROFILE_CPU ? r->count : r->total_ns;
	b->stacks[b->n_stacks++] =
	    (struct enav_folded_stack){.frames = copy, .n_frames = n, .value = value};
	return 0;
}

static const struct enav_pprof_value_type value_types[ENAV_PROFILE__COUNT][2] = {
    [ENAV_PROFILE_CPU] = {{"samples", "count"}, {"cpu", "nanoseconds"}},
    [ENAV_PROFILE_OFFCPU] = {{"episodes", "count"}, {"offcpu", "nanoseconds"}},
    [ENAV_PROFILE_FUTEX] = {{"waits", "count"}, {"futex", "nanoseconds"}},
};

static void build_free(struct build *b)
{
	free(b->workloads);
	free(b->locs);
	free(b->name_slots);
	for (size_t i = 0; i < b->n_stacks; i++)
		free((void *)b->stacks[i].frames);
	free(b->stacks);
	for (size_t i = 0; i < b->n_names; i++)
		free(b->names[i]);
	free(b->names);
	if (b->pprof)
		enav_pprof_free(b->pprof);
}

static int render_text(struct build *b, const struct enav_profile_query *q, uint8_t **out,
		       size_t *out_len)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	int rc;
	if (q->format == ENAV_PROFILE_FORMAT_FOLDED) {
		rc = enav_folded_write(f, b->stacks, b->n_stacks);
	} else {
		static const char *const titles[ENAV_PROFILE__COUNT] = {
		    "CPU profile", "Off-CPU time", "Futex wait time"};
		struct enav_flamegraph_opts o = {
		    .title = titles[q->kind],
		    .unit = q->kind == ENAV_PROFILE_CPU ? "samples" : "nanoseconds"};
		rc = enav_flamegraph_svg(f, b->stacks, b->n_stacks, &o);
	}
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	if (rc) {
		free(buf);
		return rc;
	}
	*out = (uint8_t *)buf;
	*out_len = len;
	return 0;
}

int enav_profile_store_build(struct enav_profile_store *s, struct enav_profile_query *q,
			     uint8_t **out, size_t *out_len)
{
	if (q->kind >= ENAV_PROFILE__COUNT)
		return -EINVAL;
	struct build b = {.s = s, .q = q};
	int rc = 0;
	q->matched = 0;
	pthread_mutex_lock(&s->lock);
	s->builds++;
	uint64_t first = 0, last = 0, first_unix = 0;
	for (struct enav_profile_batch *bt = s->head; bt; bt = bt->next) {
		if (bt->start_mono_ns < q->from_mono_ns || bt->end_mono_ns > q->to_mono_ns)
			continue;
		if (!first || bt->start_mono_ns < first) {
			first = bt->start_mono_ns;
			first_unix = bt->start_unix_ns;
		}
		if (bt->end_mono_ns > last)
			last = bt->end_mono_ns;
	}
	if (q->format == ENAV_PROFILE_FORMAT_PPROF) {
		int64_t period =
		    q->kind == ENAV_PROFILE_CPU ? 1000000000ll / s->cfg.frequency_hz : 1;
		b.pprof = enav_pprof_new(value_types[q->kind], 2, value_types[q->kind][1], period,
					 (int64_t)first_unix, (int64_t)(last - first), NULL);
		if (!b.pprof)
			rc = -ENOMEM;
	}
	for (struct enav_profile_batch *bt = s->head; bt && !rc; bt = bt->next) {
		if (bt->start_mono_ns < q->from_mono_ns || bt->end_mono_ns > q->to_mono_ns)
			continue;
		for (uint32_t i = 0; i < bt->n_recs && !rc; i++) {
			const struct enav_profile_record *r = &bt->recs[i];
			if (r->kind != q->kind)
				continue;
			const struct workload *w = workload_of(&b, r->cgroup_id);
			if (!filter_admits(&q->filter, r, w))
				continue;
			q->matched++;
			rc = b.pprof ? add_pprof_sample(&b, bt, r, w) : add_folded_stack(&b, bt, r);
		}
	}
	if (!rc && b.pprof) {
		if (!q->redact) /* under redaction no comment leaves either */
			enav_pprof_comment(b.pprof,
					   "enav: frame-pointer stacks; unsymbolized frames keep "
					   "their address and mapping");
		rc = enav_pprof_encode(b.pprof, true, out, out_len);
	} else if (!rc) {
		rc = render_text(&b, q, out, out_len);
	}
	if (rc)
		s->build_errors++;
	build_free(&b);
	pthread_mutex_unlock(&s->lock);
	return rc;
}

bool enav_profile_store_workload(struct enav_profile_store *s, uint32_t tgid,
				 struct enav_profile_workload *out)
{
	memset(out, 0, sizeof(*out));
	uint64_t cgroup_id = 0;
	bool found = false;
	pthread_mutex_lock(&s->lock);
	for (struct enav_profile_batch *bt = s->head; bt; bt = bt->next)
		for (uint32_t i = 0; i < bt->n_recs; i++)
			if (bt->recs[i].tgid == tgid) {
				cgroup_id = bt->recs[i].cgroup_id;
				found = true;
			}
	pthread_mutex_unlock(&s->lock);
	if (!found)
		return false;
	struct workload w;
	describe_cgroup(s, cgroup_id, &w);
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
			    enav_bcache_get(&s->tasks, task_key(r->tgid, r->exec_gen));
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
	/* A profile build holds the store's lock while it symbolizes, which
	 * may load a tenant's files for seconds: a scrape does not wait for
	 * it, it shows the counters of the last scrape that got the lock. */
	struct metrics_snap m;
	if (pthread_mutex_trylock(&s->lock) == 0) {
		enav_symbolizer_get_stats(s->sym, &m.st);
		m.bytes = s->n_bytes;
		m.batches = s->n_batches;
		m.recs = s->n_recs;
		m.added = s->batches_added;
		m.evicted = s->batches_evicted;
		m.revicted = s->records_evicted;
		m.builds = s->builds;
		m.berr = s->build_errors;
		m.tasks = s->tasks_announced;
		m.other = s->frames_other_image;
		m.snapfail = s->snapshot_failures;
		m.implausible = s->frames_implausible;
		pthread_mutex_unlock(&s->lock);
		pthread_mutex_lock(&s->snap_lock);
		s->last_snap = m;
		pthread_mutex_unlock(&s->snap_lock);
	} else {
		pthread_mutex_lock(&s->snap_lock);
		m = s->last_snap;
		s->stale_scrapes++;
		pthread_mutex_unlock(&s->snap_lock);
	}
	const struct enav_symbolizer_stats st = m.st;
	uint64_t bytes = m.bytes, batches = m.batches, recs = m.recs, added = m.added,
		 evicted = m.evicted, revicted = m.revicted, builds = m.builds, berr = m.berr,
		 tasks = m.tasks, other = m.other, snapfail = m.snapfail,
		 implausible = m.implausible;
	pthread_mutex_lock(&s->snap_lock);
	uint64_t stale = s->stale_scrapes;
	pthread_mutex_unlock(&s->snap_lock);
	enav_promtext_single_u64(p, "enav_profile_metrics_stale_scrapes_total", "counter",
				 "Scrapes that showed the profile store's previous counters "
				 "because a profile build held its lock.",
				 stale);
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
    .build = enav_profile_store_build,
    .workload = enav_profile_store_workload,
    .each_pid = enav_profile_store_each_pid,
    .kind_name = enav_profile_kind_name,
    .release = enav_profile_store_free,
};
