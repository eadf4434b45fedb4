/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Symbolizer: kernel addresses through /proc/kallsyms, user addresses through
 * per-process mapping snapshots, ELF symbol tables and JIT perf maps.  See
 * symbolize.h for the contract; the parsers live in platform/proc_lines.c and the ELF
 * loader in elf_symtab.c.  This file: process snapshots, user lookups and
 * the lifecycle; kernel frames are symbolize_kernel.c, the ELF cache
 * symbolize_elf.c, perf maps symbolize_perf_map.c, the state and its
 * locking symbolize_state.h.
 *
 * Choices:
 *  - Kernel frames: function is the symbol name, or "name [module]" for a
 *    module (or BPF program, module "bpf") symbol; map_path is always
 *    "[kernel.kallsyms]".  A text symbol extends to the next symbol of any
 *    kind (data symbols and _etext/_einittext bound it); an address above
 *    the highest symbol, or whose nearest symbol is not text, is unresolved.
 *  - A snapshot keeps the executable mappings of the process and, while the
 *    process still lives, identifies and loads the ELF file of each one, so
 *    it can be symbolized after the process exits as long as the symbol
 *    table stays in the ELF cache.  When it has been evicted, the file is
 *    reopened: /proc/PID/map_files/START-END, then /proc/PID/root/PATH, then
 *    PATH itself, the last only when its inode is the mapping's.
 *  - ELF files are cached by build id, or by dev+inode+mtime+size without
 *    one, in an exact-capacity LRU; processes likewise by pid.
 *  - A file without .symtab (distribution libraries) takes the .symtab of its
 *    separate debug file when one is found (symbolize_debug.c): by build id
 *    under debug_dir, verified to carry the same build id, else through
 *    .gnu_debuglink, verified by CRC32 (and build id when the binary has
 *    one).  Its symbols replace the binary's .dynsym in the same cache entry;
 *    addresses are still translated with the binary's PT_LOAD segments (a
 *    debug file's have no file bytes).  Looked for once per load.
 */
#include "features/profiling/symbolize_state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "platform/clock.h"

void (*enav_symbolizer_load_hook)(const char *path);

_Thread_local struct frame_strings enav_frame_strings;

/* ---- small helpers --------------------------------------------------------------- */

bool enav_sym_grow(void **p, size_t elem, uint32_t *cap, uint32_t need, uint32_t limit)
{
	if (need <= *cap)
		return true;
	if (need > limit)
		return false;
	uint64_t c = *cap ? (uint64_t)*cap * 2 : 64;
	if (c < need)
		c = need;
	if (c > limit)
		c = limit;
	void *q = realloc(*p, (size_t)c * elem);
	if (!q)
		return false;
	*p = q;
	*cap = (uint32_t)c;
	return true;
}

/* Appends len bytes + NUL to a string arena; false past limit. */
bool enav_sym_arena_push(char **a, size_t *len, size_t *cap, const char *s, size_t n, size_t limit,
			 uint32_t *off)
{
	if (n + 1 > limit || *len > limit - n - 1 || *len > UINT32_MAX)
		return false;
	if (*len + n + 1 > *cap) {
		size_t c = *cap ? *cap : 4096;
		while (c < *len + n + 1)
			c *= 2;
		char *q = realloc(*a, c);
		if (!q)
			return false;
		*a = q;
		*cap = c;
	}
	memcpy(*a + *len, s, n);
	(*a)[*len + n] = '\0';
	*off = (uint32_t)*len;
	*len += n + 1;
	return true;
}

uint64_t enav_sym_fnv64(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

uint64_t enav_sym_mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec;
}

int enav_sym_open_ro(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

/* ---- process snapshots ------------------------------------------------------------ */

static void proc_free(struct enav_lru_node *n)
{
	struct proc *p = (struct proc *)n;

	enav_sym_perf_map_clear(&p->pm);
	free(p->maps);
	free(p->paths);
	free(p);
}

struct maps_loader {
	struct proc *p;
	uint32_t cap, max;
	size_t paths_len, paths_cap;
};

static int maps_line(void *ctx, const char *line, size_t len)
{
	struct maps_loader *l = ctx;
	struct enav_maps_line ml;
	struct umap m = {0};

	if (enav_maps_parse_line(line, len, &ml) != 0 || !ml.exec)
		return 0;
	if (l->p->n_maps >= l->max)
		return 1;
	const char *path = ml.path ? ml.path : "[anon]";
	size_t plen = ml.path ? ml.path_len : 6;
	m.kind = !ml.path ? MAP_ANON : path[0] == '/' ? MAP_FILE : MAP_PSEUDO;
	if (m.kind == MAP_FILE && memchr(path, '\0', plen))
		m.kind = MAP_PSEUDO;
	m.start = ml.start;
	m.end = ml.end;
	m.offset = ml.offset;
	m.inode = ml.inode;
	m.dev = makedev(ml.dev_major, ml.dev_minor);
	if (!enav_sym_grow((void **)&l->p->maps, sizeof(*l->p->maps), &l->cap, l->p->n_maps + 1,
			   l->max) ||
	    !enav_sym_arena_push(&l->p->paths, &l->paths_len, &l->paths_cap, path, plen, UINT32_MAX,
				 &m.path))
		return 1;
	l->p->maps[l->p->n_maps++] = m;
	return 0;
}

static int umap_cmp(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

struct umap *enav_sym_find_map(const struct proc *p, uint64_t addr)
{
	uint32_t lo = 0, hi = p->n_maps;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= p->maps[lo - 1].end)
		return NULL;
	return &p->maps[lo - 1];
}

struct proc *enav_sym_get_proc(struct enav_symbolizer *s, uint32_t pid)
{
	struct proc *p = (struct proc *)enav_lru_find(&s->procs, pid);

	if (p)
		enav_lru_touch(&s->procs, &p->node);
	return p;
}

/* A refresh keeps the ELF identity of the mappings that did not change, so
 * their files are not reopened. */
static void carry_identities(struct proc *p, const struct proc *old)
{
	for (uint32_t i = 0; i < p->n_maps; i++) {
		struct umap *m = &p->maps[i];
		const struct umap *o = enav_sym_find_map(old, m->start);

		if (m->kind != MAP_FILE || !o || o->elf_state != ELF_KNOWN ||
		    o->start != m->start || o->end != m->end || o->offset != m->offset ||
		    o->inode != m->inode || strcmp(p->paths + m->path, old->paths + o->path) != 0)
			continue;
		m->elf_state = ELF_KNOWN;
		m->elf_key = o->elf_key;
	}
}

/* Identify and load the files of pid's snapshot gen now, while they can
 * still be opened; stops if the snapshot is replaced meanwhile (lock held,
 * dropped during each load). */
static void load_snapshot_files(struct enav_symbolizer *s, uint32_t pid, uint64_t gen)
{
	struct map_ref r;

	for (uint32_t i = 0;; i++) {
		struct proc *p = (struct proc *)enav_lru_find(&s->procs, pid);
		if (!p || p->gen != gen || i >= p->n_maps)
			return;
		const struct umap *m = &p->maps[i];
		if (m->kind != MAP_FILE || m->elf_state == ELF_FAILED || enav_sym_cached_elf(s, m))
			continue;
		enav_sym_map_ref_of(p, m, &r);
		enav_sym_map_elf(s, pid, &r);
	}
}

/* Reads /proc/PID/maps into a new snapshot (no lock held: the file is as
 * long as the process makes it). */
static int read_maps(struct enav_symbolizer *s, uint32_t pid, struct proc **out)
{
	char path[PATH_MAX];
	int fd;

	int n = snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", s->proc_root, pid);
	if (n <= 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	if ((fd = enav_sym_open_ro(path)) < 0)
		return -errno;
	struct proc *p = calloc(1, sizeof(*p));
	if (!p) {
		close(fd);
		return -ENOMEM;
	}
	struct maps_loader l = {.p = p, .max = s->max_maps};
	int rc = enav_read_lines(fd, MAPS_LINE_MAX, MAPS_MAX_BYTES, maps_line, &l);
	close(fd);
	if (p->n_maps > 1) /* a process with no executable mapping has none at all */
		qsort(p->maps, p->n_maps, sizeof(*p->maps), umap_cmp);
	struct stat pst;
	path[n - (int)strlen("/maps")] = '\0';
	if (rc == 0 && stat(path, &pst) == 0) {
		p->uid = (uint32_t)pst.st_uid;
		p->uid_known = true;
	}
	*out = p;
	return rc;
}

int enav_symbolizer_snapshot(struct enav_symbolizer *s, uint32_t pid)
{
	uint64_t now = enav_clock_mono_ns();
	struct proc *p = NULL;

	pthread_mutex_lock(&s->lock);
	struct proc *old = enav_sym_get_proc(s, pid);
	if (old)
		old->snap_ns = now;
	pthread_mutex_unlock(&s->lock);
	int rc = read_maps(s, pid, &p);

	pthread_mutex_lock(&s->lock);
	old = enav_sym_get_proc(s, pid);
	/* An exited process reads as empty: keep the old snapshot. */
	if (rc == 0 && p->n_maps == 0 && old)
		rc = -ESRCH;
	if (rc != 0) {
		s->st.snapshot_failures++;
		if (p)
			proc_free(&p->node);
		if (!old) {
			/* Remember the failure so lookups retry once a second only. */
			p = calloc(1, sizeof(*p));
			if (p) {
				p->node.key = pid;
				p->snap_ns = now;
				p->gen = ++s->snap_gen;
				enav_lru_insert(&s->procs, &p->node);
			}
		}
		pthread_mutex_unlock(&s->lock);
		return rc;
	}
	if (!p->uid_known && old) {
		p->uid = old->uid;
		p->uid_known = old->uid_known;
	}
	p->node.key = pid;
	p->snap_ns = now;
	p->gen = ++s->snap_gen;
	if (old) { /* the perf map belongs to the pid, not to the snapshot */
		carry_identities(p, old);
		p->pm = old->pm;
		old->pm = (struct perf_map){0};
		enav_lru_drop(&s->procs, &old->node);
	}
	enav_lru_insert(&s->procs, &p->node);
	s->st.snapshots++;
	load_snapshot_files(s, pid, p->gen);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

/* pid's snapshot to look addr up in, taken or refreshed as needed: taken
 * when there is none, refreshed (once a second at most) when addr is in no
 * mapping of it.  Lock held; dropped while a snapshot is taken. */
static struct proc *proc_for(struct enav_symbolizer *s, uint32_t pid, uint64_t addr)
{
	struct proc *p = enav_sym_get_proc(s, pid);

	if (!p) {
		pthread_mutex_unlock(&s->lock);
		enav_symbolizer_snapshot(s, pid);
		pthread_mutex_lock(&s->lock);
		p = enav_sym_get_proc(s, pid);
	}
	if (p && !enav_sym_find_map(p, addr) && enav_clock_mono_ns() - p->snap_ns >= REFRESH_NS) {
		pthread_mutex_unlock(&s->lock);
		enav_symbolizer_snapshot(s, pid);
		pthread_mutex_lock(&s->lock);
		p = enav_sym_get_proc(s, pid);
	}
	return p;
}

int enav_symbolizer_executable(struct enav_symbolizer *s, uint32_t pid, uint64_t addr)
{
	pthread_mutex_lock(&s->lock);
	struct proc *p = proc_for(s, pid, addr);
	int rc = !p || p->n_maps == 0 ? -1 : enav_sym_find_map(p, addr) != NULL;
	pthread_mutex_unlock(&s->lock);
	return rc;
}

bool enav_symbolizer_user(struct enav_symbolizer *s, uint32_t pid, uint64_t addr,
			  struct enav_frame *out)
{
	struct elf_entry *e = NULL;
	struct map_ref r;
	const char *fn = NULL;
	uint64_t off = 0;

	*out = (struct enav_frame){.address = addr};
	pthread_mutex_lock(&s->lock);
	struct proc *p = proc_for(s, pid, addr);
	struct umap *m = p ? enav_sym_find_map(p, addr) : NULL;
	if (m) {
		out->map_path = KEEP(map_path, p->paths + m->path);
		out->map_start = m->start;
		out->map_limit = m->end;
		out->map_offset = m->offset;
		if (m->kind == MAP_FILE && !(e = enav_sym_cached_elf(s, m)) &&
		    m->elf_state != ELF_FAILED) {
			enav_sym_map_ref_of(p, m, &r);
			e = enav_sym_map_elf(s, pid, &r); /* may drop the lock: p and m are stale */
		}
	}
	uint64_t vaddr;
	if (e) {
		if (e->t->build_id[0])
			out->build_id = KEEP(build_id, e->t->build_id);
		if (enav_elf_offset_to_vaddr(e->t, addr - out->map_start + out->map_offset, &vaddr))
			fn = enav_elf_lookup(e->t, vaddr, &off);
	} else if (p) {
		/* JIT code: anonymous (or named anonymous, or memfd) executable
		 * memory, or no mapping at all; never an ELF file's. */
		fn = enav_sym_perf_map_lookup(s, pid, addr, &off);
	}
	if (fn) {
		out->function = KEEP(function, fn);
		out->function_offset = off;
		s->st.resolved++;
	} else {
		s->st.unresolved++;
	}
	pthread_mutex_unlock(&s->lock);
	return fn != NULL;
}

/* ---- lifecycle ------------------------------------------------------------------- */

struct enav_symbolizer *enav_symbolizer_new(const struct enav_symbolizer_config *cfg)
{
	struct enav_symbolizer_config c = cfg ? *cfg : (struct enav_symbolizer_config){0};
	struct enav_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->kallsyms_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->loaded, NULL);
	s->self_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	s->load_tokens_ns = LOAD_BURST_NS;
	s->load_refill_ns = enav_clock_mono_ns();
	s->mem = c.mem;
	if (!s->mem) {
		s->mem = enav_tenant_mem_new(0);
		s->own_mem = true;
	}
	s->proc_root = strdup(c.proc_root ? c.proc_root : "/proc");
	s->kallsyms_path = strdup(c.kallsyms_path ? c.kallsyms_path : "/proc/kallsyms");
	s->perf_map_dir = strdup(c.perf_map_dir ? c.perf_map_dir : "/tmp");
	s->debug_dir = strdup(c.debug_dir ? c.debug_dir : "/usr/lib/debug");
	s->max_maps = c.max_maps_per_proc ? c.max_maps_per_proc : DEF_MAX_MAPS;
	s->max_syms = c.max_symbols_per_file ? c.max_symbols_per_file : DEF_MAX_SYMBOLS;
	s->max_perf = c.max_perf_map_entries ? c.max_perf_map_entries : DEF_MAX_PERF_ENTRIES;
	s->kallsyms_fd = s->kallsyms_path ? enav_sym_open_ro(s->kallsyms_path) : -1;
	s->kallsyms_errno = s->kallsyms_fd < 0 ? errno : 0;
	if (!s->mem || s->self_root < 0 || !s->proc_root || !s->kallsyms_path || !s->perf_map_dir ||
	    !s->debug_dir ||
	    enav_lru_init(&s->procs, c.max_processes ? c.max_processes : DEF_MAX_PROCESSES,
			  proc_free) ||
	    enav_lru_init(&s->elfs, c.max_elf_files ? c.max_elf_files : DEF_MAX_ELF_FILES,
			  enav_sym_elf_entry_free)) {
		enav_symbolizer_free(s);
		return NULL;
	}
	return s;
}

void enav_symbolizer_free(struct enav_symbolizer *s)
{
	if (!s)
		return;
	enav_lru_destroy(&s->procs);
	enav_lru_destroy(&s->elfs);
	if (s->kallsyms_fd >= 0)
		close(s->kallsyms_fd);
	if (s->self_root >= 0)
		close(s->self_root);
	if (s->own_mem)
		enav_tenant_mem_free(s->mem);
	free(s->k.syms);
	free(s->k.names);
	free(s->proc_root);
	free(s->kallsyms_path);
	free(s->perf_map_dir);
	free(s->debug_dir);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->loaded);
	free(s);
}

void enav_symbolizer_get_stats(struct enav_symbolizer *s, struct enav_symbolizer_stats *st)
{
	pthread_mutex_lock(&s->lock);
	*st = s->st;
	st->process_evictions = s->procs.evictions;
	st->elf_evictions = s->elfs.evictions;
	st->processes = s->procs.size;
	st->elf_files = s->elfs.size;
	st->kernel_symbols = s->k.n_text;
	pthread_mutex_unlock(&s->lock);
}
