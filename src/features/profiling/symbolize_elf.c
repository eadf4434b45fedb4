/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The symbolizer's ELF cache: symbol tables of mapped files, by build id
 * (else dev, inode, mtime and size), charged to the tenant memory budget,
 * loaded under a loading time budget.  A file is opened through
 * platform/tenant_file.c and read with the symbolizer's lock released: a
 * load is marked in loading[], so another thread that needs the same file
 * waits for it (at most LOAD_WAIT_NS, no lock held) rather than reading it
 * again.  Separate debug files: symbolize_debug.c.
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

void enav_sym_elf_entry_free(struct enav_lru_node *n)
{
	struct elf_entry *e = (struct elf_entry *)n;

	enav_elf_symtab_free(e->t);
	if (e->mem)
		enav_tenant_mem_uncharge(e->mem, e->bytes);
	free(e);
}

/* Opens the file behind a mapping; -1 when none of the ways works. */
int enav_open_map_file(const char *proc_root, uint32_t pid, uint64_t start, uint64_t end,
		       const char *path, uint64_t dev, uint64_t inode,
		       enum enav_tenant_refusal *why)
{
	const struct enav_file_ident want = {.dev = dev, .ino = inode};
	struct stat st;
	int fd = enav_tenant_open_mapped(proc_root, pid, start, end, path, &want, &st, why);

	if (fd >= 0 || *why != ENAV_TENANT_GONE || !path || path[0] != '/')
		return fd;
	/* The process is gone: our own view of the path, when it is still the
	 * mapped inode (same lookup rules, under our root). */
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -1;
	fd = enav_tenant_open_in_root(root, path, &want, &st, why);
	close(root);
	return fd;
}

static bool elf_same(const struct elf_entry *e, const uint8_t *bid, size_t bid_len,
		     const struct stat *st)
{
	if (e->bid_len != bid_len)
		return false;
	if (bid_len)
		return memcmp(e->bid, bid, bid_len) == 0;
	return e->dev == (uint64_t)st->st_dev && e->ino == (uint64_t)st->st_ino &&
	       e->mtime_ns == enav_sym_mtime_ns(st) && e->size == (uint64_t)st->st_size;
}

/* Drops least recently used symbol tables until n more bytes fit the
 * budget (or none is left to drop). */
void enav_sym_make_room(struct enav_symbolizer *s, uint64_t n)
{
	struct enav_lru_node *oldest;

	while (!enav_tenant_mem_fits(s->mem, n) && (oldest = enav_lru_oldest(&s->elfs))) {
		enav_lru_drop(&s->elfs, oldest);
		s->elfs.evictions++;
		enav_tenant_mem_evicted(s->mem);
	}
}

void enav_sym_map_ref_of(const struct proc *p, const struct umap *m, struct map_ref *r)
{
	r->start = m->start;
	r->end = m->end;
	r->offset = m->offset;
	r->inode = m->inode;
	r->dev = m->dev;
	snprintf(r->path, sizeof(r->path), "%s", p->paths + m->path);
}

/* The mapping of pid's current snapshot that still is r (lock held). */
static struct umap *same_map(struct enav_symbolizer *s, uint32_t pid, const struct map_ref *r)
{
	struct proc *p = (struct proc *)enav_lru_find(&s->procs, pid);
	struct umap *m = p ? enav_sym_find_map(p, r->start) : NULL;

	if (!m || m->start != r->start || m->end != r->end || m->offset != r->offset ||
	    m->inode != r->inode || m->dev != r->dev || strcmp(p->paths + m->path, r->path) != 0)
		return NULL;
	return m;
}

/* Loads the symbol table of h (file identity st) into a new entry, or
 * refuses it when it is past the per-file cap; NULL then, or on failure.
 * Runs without the lock: it reads the tenant's files. */
static struct elf_entry *load_elf(struct enav_symbolizer *s, uint32_t pid, const char *path,
				  struct enav_elf *h, const struct stat *st, const uint8_t *bid,
				  size_t bid_len)
{
	struct enav_elf_symtab *t = NULL;
	struct elf_entry *e = calloc(1, sizeof(*e));
	struct enav_file_key k;

	if (!e)
		return NULL;
	enav_file_key_of(st, &k);
	int rc = enav_elf_load(h, s->max_syms, &t);
	bool from_debug =
	    rc == 0 && (t->from_dynsym || t->n_syms == 0) &&
	    enav_debug_symbols_load(&(struct enav_debug_files){.proc_root = s->proc_root,
							       .debug_dir = s->debug_dir,
							       .self_root = s->self_root,
							       .mem = s->mem,
							       .max_syms = s->max_syms},
				    pid, path, h, bid, bid_len, t);
	/* A table that reached the cap is refused whole (not kept cut at an
	 * arbitrary symbol), and the refusal remembered for the file. */
	if (rc != 0 || t->over_cap) {
		if (enav_elf_over_cap(h) || (t && t->over_cap)) {
			enav_tenant_mem_refused(s->mem, ENAV_TMEM_OVER_FILE_CAP);
			enav_tenant_mem_remember(s->mem, ENAV_TMEM_KIND_SYMBOLS, &k, 1);
		}
		enav_elf_symtab_free(t);
		free(e);
		return NULL;
	}
	e->t = t;
	e->bytes = sizeof(*e) + enav_elf_symtab_bytes(t);
	/* Counted when it is cached; e->mem stays NULL until it is charged. */
	e->from_debug = from_debug;
	/* A section skipped for the cap left a poorer table (.dynsym). */
	e->truncated = t->truncated || enav_elf_over_cap(h);
	return e;
}

/* Opens the file of r and its ELF handle, under the per-file cap; NULL (fd
 * closed) when it cannot be opened or was refused before.  No lock held. */
static struct enav_elf *open_elf(struct enav_symbolizer *s, uint32_t pid, const struct map_ref *r,
				 int *fdp, struct stat *st)
{
	enum enav_tenant_refusal why = ENAV_TENANT_OK;
	struct enav_file_key k;
	struct enav_elf *h = NULL;
	int fd = enav_open_map_file(s->proc_root, pid, r->start, r->end, r->path, r->dev, r->inode,
				    &why);

	if (fd < 0) {
		enav_tenant_mem_open_refused(s->mem, why);
		return NULL;
	}
	if (fstat(fd, st) == 0) {
		enav_file_key_of(st, &k);
		/* Refused before: not parsed again while it is the same file. */
		if (enav_tenant_mem_recall(s->mem, ENAV_TMEM_KIND_SYMBOLS, &k, NULL))
			enav_tenant_mem_refused(s->mem, ENAV_TMEM_REMEMBERED);
		else if ((h = enav_elf_open_fd(fd)) != NULL)
			enav_elf_set_file_cap(h, enav_tenant_mem_file_cap(s->mem));
	}
	if (!h)
		close(fd);
	*fdp = fd;
	return h;
}

/* Puts the new entry e in the cache under key, charged to the budget
 * (lock held). */
static void cache_elf(struct enav_symbolizer *s, struct elf_entry *e, uint64_t key,
		      const uint8_t *bid, size_t bid_len, const struct stat *st)
{
	e->node.key = key;
	memcpy(e->bid, bid, bid_len);
	e->bid_len = bid_len;
	e->dev = (uint64_t)st->st_dev;
	e->ino = (uint64_t)st->st_ino;
	e->mtime_ns = enav_sym_mtime_ns(st);
	e->size = (uint64_t)st->st_size;
	e->mem = s->mem;
	enav_sym_make_room(s, e->bytes);
	enav_tenant_mem_charge(s->mem, e->bytes);
	enav_lru_insert(&s->elfs, &e->node);
	s->st.elf_loads++;
	s->st.debug_files += e->from_debug;
	s->st.elf_truncated += e->truncated;
}

/* Whether the loading time budget allows a load now (refilled with a
 * LOAD_SHARE_DIV-th of the time passed, up to LOAD_BURST_NS). */
static bool load_allowed(struct enav_symbolizer *s, uint64_t now)
{
	uint64_t dt = now - s->load_refill_ns;

	s->load_refill_ns = now;
	if (dt / LOAD_SHARE_DIV >= (uint64_t)LOAD_BURST_NS)
		s->load_tokens_ns = LOAD_BURST_NS;
	else
		s->load_tokens_ns += (int64_t)(dt / LOAD_SHARE_DIV);
	if (s->load_tokens_ns > LOAD_BURST_NS)
		s->load_tokens_ns = LOAD_BURST_NS;
	return s->load_tokens_ns > 0;
}

/* Marks r's file as being loaded: its slot; -1 when every slot is taken,
 * -EBUSY when another thread is loading it (lock held). */
static int claim_load(struct enav_symbolizer *s, const struct map_ref *r)
{
	int free_slot = -1;

	for (int i = 0; i < LOADS_IN_FLIGHT; i++) {
		if (!s->loading[i].used) {
			free_slot = free_slot < 0 ? i : free_slot;
			continue;
		}
		if (s->loading[i].dev == r->dev && s->loading[i].ino == r->inode)
			return -EBUSY;
	}
	if (free_slot >= 0) {
		s->loading[free_slot].dev = r->dev;
		s->loading[free_slot].ino = r->inode;
		s->loading[free_slot].used = true;
	}
	return free_slot;
}

/* The cached table of m, when its file is known and still cached (lock held). */
struct elf_entry *enav_sym_cached_elf(struct enav_symbolizer *s, const struct umap *m)
{
	struct elf_entry *e;

	if (m->kind != MAP_FILE || m->elf_state != ELF_KNOWN ||
	    !(e = (struct elf_entry *)enav_lru_find(&s->elfs, m->elf_key)))
		return NULL;
	enav_lru_touch(&s->elfs, &e->node);
	s->st.elf_hits++;
	return e;
}

/* The key a file is cached under: its build id, else its identity. */
static uint64_t elf_key(const uint8_t *bid, size_t bid_len, const struct stat *st)
{
	if (bid_len)
		return enav_sym_fnv64(bid, bid_len, 0xcbf29ce484222325ull);
	uint64_t id[4] = {(uint64_t)st->st_dev, (uint64_t)st->st_ino, enav_sym_mtime_ns(st),
			  (uint64_t)st->st_size};
	return enav_sym_fnv64(id, sizeof(id), 0x84222325cbf29ce4ull);
}

/*
 * The symbol table of the file r maps, loading it when it is not cached.
 * Called and returns with the lock held, and drops it while the file is
 * opened and read; the entry returned is valid until the lock is dropped.
 */
struct elf_entry *enav_sym_map_elf(struct enav_symbolizer *s, uint32_t pid, const struct map_ref *r)
{
	struct umap *m = same_map(s, pid, r);
	struct elf_entry *e, *fresh = NULL;
	struct stat st;
	int fd = -1;

	if (!m || m->kind != MAP_FILE || m->elf_state == ELF_FAILED)
		return NULL;
	if ((e = enav_sym_cached_elf(s, m)) != NULL)
		return e;
	/* Over the loading time budget: left unresolved now (the mapping's
	 * state unchanged), loaded by a later lookup. */
	uint64_t t0 = enav_clock_mono_ns();
	if (!load_allowed(s, t0)) {
		s->st.elf_deferred++;
		return NULL;
	}
	int slot = claim_load(s, r);
	if (slot == -EBUSY) {
		/* Another thread is loading it: what it caches serves us too. */
		struct timespec until = enav_clock_deadline(CLOCK_REALTIME, LOAD_WAIT_NS);
		while ((slot = claim_load(s, r)) == -EBUSY &&
		       pthread_cond_timedwait(&s->loaded, &s->lock, &until) == 0)
			;
		m = same_map(s, pid, r);
		if (slot >= 0 &&
		    (!m || m->elf_state == ELF_FAILED || (e = enav_sym_cached_elf(s, m)))) {
			s->loading[slot].used = false;
			pthread_cond_broadcast(&s->loaded);
			return e;
		}
		/* Else ours to load (another mapping's loader cached it under
		 * its build id, found below), or still loading: counted. */
	}
	if (slot < 0) {
		s->st.elf_concurrent++;
		return NULL;
	}
	/* The table is in memory before its size is known: room for the
	 * largest one a file may give. */
	enav_sym_make_room(s, enav_tenant_mem_file_cap(s->mem));
	pthread_mutex_unlock(&s->lock);

	if (enav_symbolizer_load_hook)
		enav_symbolizer_load_hook(r->path);
	uint8_t bid[ENAV_ELF_BUILD_ID_MAX];
	size_t bid_len = 0;
	uint64_t key = 0;
	bool opened = false, cached = false;
	struct enav_elf *h = open_elf(s, pid, r, &fd, &st);
	if (h) {
		opened = true;
		bid_len = enav_elf_build_id(h, bid, sizeof(bid));
		key = elf_key(bid, bid_len, &st);
		/* The same build id may be cached from another path. */
		pthread_mutex_lock(&s->lock);
		e = (struct elf_entry *)enav_lru_find(&s->elfs, key);
		cached = e && elf_same(e, bid, bid_len, &st);
		pthread_mutex_unlock(&s->lock);
		if (!cached)
			fresh = load_elf(s, pid, r->path, h, &st, bid, bid_len);
		enav_elf_close(h);
		close(fd);
	}

	pthread_mutex_lock(&s->lock);
	s->loading[slot].used = false;
	pthread_cond_broadcast(&s->loaded);
	s->load_tokens_ns -= (int64_t)(enav_clock_mono_ns() - t0);
	e = opened ? (struct elf_entry *)enav_lru_find(&s->elfs, key) : NULL;
	if (e && !elf_same(e, bid, bid_len, &st)) {
		enav_lru_drop(&s->elfs, &e->node); /* hash collision: the newer file wins */
		e = NULL;
	}
	if (e) {
		/* Cached meanwhile (or before, under another path): ours is
		 * not needed. */
		enav_lru_touch(&s->elfs, &e->node);
		s->st.elf_hits++;
		if (fresh)
			enav_sym_elf_entry_free(&fresh->node);
	} else if (fresh) {
		cache_elf(s, fresh, key, bid, bid_len, &st);
		e = fresh;
	}
	m = same_map(s, pid, r);
	if (!e && cached) /* evicted again while we looked: a later lookup reloads it */
		return NULL;
	if (!e) {
		if (m)
			m->elf_state = ELF_FAILED;
		s->st.elf_failures++;
		return NULL;
	}
	if (m) {
		m->elf_state = ELF_KNOWN;
		m->elf_key = key;
	}
	return e;
}
