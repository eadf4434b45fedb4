/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Symbolizer: kernel addresses through /proc/kallsyms, user addresses through
 * per-process mapping snapshots, ELF symbol tables and JIT perf maps.  See
 * symbolize.h for the contract; the parsers live in platform/proc_lines.c and the ELF
 * loader in elf_symtab.c.
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
#include "features/profiling/symbolize.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/sysmacros.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "platform/tenant_file.h"
#include "features/profiling/symbolize_priv.h"
#include "features/profiling/tenant_memory.h"

#define DEF_MAX_PROCESSES    4096u
#define DEF_MAX_MAPS	     4096u
#define DEF_MAX_ELF_FILES    256u
#define DEF_MAX_SYMBOLS	     2000000u
#define DEF_MAX_PERF_ENTRIES 200000u

#define MAPS_LINE_MAX	    (PATH_MAX + 256)
#define MAPS_MAX_BYTES	    (64ull << 20)
#define KALLSYMS_LINE_MAX   (2 * ENAV_KSYM_NAME_MAX + 64)
#define KALLSYMS_MAX_BYTES  (256ull << 20)
#define KALLSYMS_MAX_SYMS   (8u << 20)
#define KALLSYMS_MAX_MODS   4096u
#define PERF_MAP_LINE_MAX   4096u
#define PERF_MAP_LINE_BYTES 1024ull /* bytes read per allowed entry */
#define PERF_MAP_WALK	    64u
#define REFRESH_NS	    1000000000ull /* snapshot refresh / perf map check */
/* ELF loading may take a quarter of the time, in bursts of up to 2 s: a
 * tenant whose libraries' tables outgrow the budget makes every lookup a
 * reload, and the caller (a profile build, /metrics) waits on our lock. */
#define LOAD_SHARE_DIV 4
#define LOAD_BURST_NS  2000000000ll

/* ---- exact-capacity LRU: hash chains + recency list ------------------------------ */

struct lru_node {
	uint64_t key;
	struct lru_node *prev, *next; /* recency: head.next is the most recent */
	struct lru_node *hnext;
};

struct lru {
	struct lru_node **buckets;
	uint32_t mask;
	uint32_t size, cap;
	struct lru_node head;
	void (*free_fn)(struct lru_node *n);
	uint64_t evictions;
};

static int lru_init(struct lru *l, uint32_t cap, void (*free_fn)(struct lru_node *))
{
	uint32_t nb = 16;

	while (nb < cap && nb < (1u << 30))
		nb <<= 1;
	*l = (struct lru){.cap = cap, .mask = nb - 1, .free_fn = free_fn};
	l->head.prev = l->head.next = &l->head;
	l->buckets = calloc(nb, sizeof(*l->buckets));
	return l->buckets ? 0 : -ENOMEM;
}

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	return x;
}

static struct lru_node **lru_bucket(struct lru *l, uint64_t key)
{
	return &l->buckets[mix64(key) & l->mask];
}

static struct lru_node *lru_find(struct lru *l, uint64_t key)
{
	for (struct lru_node *n = *lru_bucket(l, key); n; n = n->hnext)
		if (n->key == key)
			return n;
	return NULL;
}

static void list_unlink(struct lru_node *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
}

static void list_front(struct lru *l, struct lru_node *n)
{
	n->next = l->head.next;
	n->prev = &l->head;
	l->head.next->prev = n;
	l->head.next = n;
}

static void lru_touch(struct lru *l, struct lru_node *n)
{
	list_unlink(n);
	list_front(l, n);
}

/* Unlink and free. */
static void lru_drop(struct lru *l, struct lru_node *n)
{
	for (struct lru_node **pp = lru_bucket(l, n->key); *pp; pp = &(*pp)->hnext)
		if (*pp == n) {
			*pp = n->hnext;
			break;
		}
	list_unlink(n);
	l->size--;
	l->free_fn(n);
}

/* Insert n (key not present), evicting the least recently used when full. */
static void lru_insert(struct lru *l, struct lru_node *n)
{
	if (l->size >= l->cap && l->head.prev != &l->head) {
		lru_drop(l, l->head.prev);
		l->evictions++;
	}
	struct lru_node **b = lru_bucket(l, n->key);
	n->hnext = *b;
	*b = n;
	list_front(l, n);
	l->size++;
}

static void lru_destroy(struct lru *l)
{
	if (!l->buckets)
		return;
	while (l->head.next != &l->head)
		lru_drop(l, l->head.next);
	free(l->buckets);
	l->buckets = NULL;
}

/* ---- state -------------------------------------------------------------------- */

enum { MAP_FILE, MAP_ANON, MAP_PSEUDO };
enum { ELF_UNKNOWN, ELF_KNOWN, ELF_FAILED };

struct umap {
	uint64_t start, end, offset, inode;
	uint64_t dev;	  /* makedev of the maps line's major:minor */
	uint64_t elf_key; /* valid when elf_state == ELF_KNOWN */
	uint32_t path;	  /* offset into proc.paths */
	uint8_t kind, elf_state;
};

struct pm_entry {
	uint64_t start, end;
	uint32_t name, seq;
};

struct perf_map {
	struct pm_entry *e;
	uint32_t n;
	char *names;
	struct enav_tenant_mem *mem;
	uint64_t bytes; /* charged to mem */
	bool checked, loaded;
	uint64_t checked_ns;
	uint64_t ino, size, mtime_ns; /* of the loaded file */
};

struct proc {
	struct lru_node node; /* key = pid */
	struct umap *maps;    /* executable mappings, sorted by start */
	uint32_t n_maps;
	char *paths;
	uint64_t snap_ns; /* last snapshot attempt */
	uint32_t uid;	  /* owner of /proc/PID at the snapshot */
	bool uid_known;
	struct perf_map pm;
};

struct elf_entry {
	struct lru_node node; /* key = hash of the identity */
	struct enav_elf_symtab *t;
	struct enav_tenant_mem *mem;
	uint64_t bytes; /* charged to mem */
	uint8_t bid[ENAV_ELF_BUILD_ID_MAX];
	size_t bid_len;
	uint64_t dev, ino, mtime_ns, size; /* identity without a build id */
};

struct ksym {
	uint64_t addr;
	uint32_t name; /* offset into names; file order among text symbols */
	uint16_t mod;  /* 0 = core kernel, else index + 1 into mods */
	uint8_t text;
};

struct kernel_table {
	bool loaded;
	struct ksym *syms;
	uint32_t n, cap;
	char *names;
	size_t names_len, names_cap;
	uint32_t mods[KALLSYMS_MAX_MODS]; /* name offsets */
	uint32_t n_mods, last_mod;
	uint64_t n_text;
};

struct enav_symbolizer {
	char *proc_root, *kallsyms_path, *perf_map_dir;
	/* Opened with the symbolizer, read on first use: /proc/kallsyms shows
	 * addresses to whoever opened it with CAP_SYSLOG, and the agent drops
	 * that capability once started. */
	int kallsyms_fd;
	int kallsyms_errno;
	char *debug_dir; /* "" = no debug files */
	int self_root;	 /* O_PATH of "/": our own view, for perf and debug files */
	struct enav_tenant_mem *mem;
	bool own_mem;
	int64_t load_tokens_ns; /* loading time left (LOAD_SHARE_DIV) */
	uint64_t load_refill_ns;
	uint32_t max_maps, max_syms, max_perf;
	struct lru procs, elfs;
	struct kernel_table k;
	struct enav_symbolizer_stats st;
	char kname[2 * ENAV_KSYM_NAME_MAX + 8];
};

/* ---- small helpers --------------------------------------------------------------- */

static bool grow(void **p, size_t elem, uint32_t *cap, uint32_t need, uint32_t limit)
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
static bool arena_push(char **a, size_t *len, size_t *cap, const char *s, size_t n, size_t limit,
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

static uint64_t fnv64(const void *p, size_t n, uint64_t h)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t mtime_ns(const struct stat *st)
{
	return (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec;
}

static int open_ro(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
}

/* ---- kernel --------------------------------------------------------------------- */

static int kallsyms_line(void *ctx, const char *line, size_t len)
{
	struct kernel_table *k = ctx;
	struct enav_kallsyms_line kl;

	if (enav_kallsyms_parse_line(line, len, &kl) != 0 || kl.addr == 0)
		return 0;
	bool text = enav_kallsyms_is_text(kl.type);
	bool end_marker = (kl.name_len == 6 && memcmp(kl.name, "_etext", 6) == 0) ||
			  (kl.name_len == 10 && memcmp(kl.name, "_einittext", 10) == 0);
	char t = kl.type;
	bool data = t == 'd' || t == 'D' || t == 'b' || t == 'B' || t == 'r' || t == 'R';
	if (end_marker)
		text = false;
	else if (!text && !data)
		return 0; /* absolute, undefined, ...: no bound on text */
	struct ksym ks = {.addr = kl.addr, .text = text};
	if (text && kl.module) {
		uint32_t m = k->last_mod;
		if (!(m < k->n_mods && strlen(k->names + k->mods[m]) == kl.module_len &&
		      memcmp(k->names + k->mods[m], kl.module, kl.module_len) == 0)) {
			for (m = 0; m < k->n_mods; m++)
				if (strlen(k->names + k->mods[m]) == kl.module_len &&
				    memcmp(k->names + k->mods[m], kl.module, kl.module_len) == 0)
					break;
			if (m == k->n_mods) {
				if (k->n_mods == KALLSYMS_MAX_MODS ||
				    !arena_push(&k->names, &k->names_len, &k->names_cap, kl.module,
						kl.module_len, UINT32_MAX, &k->mods[m]))
					return 0;
				k->n_mods++;
			}
			k->last_mod = m;
		}
		ks.mod = (uint16_t)(m + 1);
	}
	if (text && !arena_push(&k->names, &k->names_len, &k->names_cap, kl.name, kl.name_len,
				UINT32_MAX, &ks.name))
		return 1;
	if (!grow((void **)&k->syms, sizeof(*k->syms), &k->cap, k->n + 1, KALLSYMS_MAX_SYMS))
		return 1;
	k->syms[k->n++] = ks;
	return 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->text != y->text)
		return x->text ? -1 : 1; /* text wins over a marker at its address */
	return x->name < y->name ? -1 : x->name > y->name;
}

static void load_kallsyms(struct enav_symbolizer *s)
{
	struct kernel_table *k = &s->k;
	int fd;

	k->loaded = true;
	fd = s->kallsyms_fd;
	s->kallsyms_fd = -1;
	if (fd < 0) {
		enav_warn("msg=\"kallsyms unreadable\" path=%s err=%d", s->kallsyms_path,
			  s->kallsyms_errno);
		return;
	}
	k->last_mod = UINT32_MAX;
	enav_read_lines(fd, KALLSYMS_LINE_MAX, KALLSYMS_MAX_BYTES, kallsyms_line, k);
	close(fd);
	if (k->n == 0)
		return;
	qsort(k->syms, k->n, sizeof(*k->syms), ksym_cmp);
	uint32_t n = 0;
	for (uint32_t i = 0; i < k->n; i++) {
		if (n > 0 && k->syms[n - 1].addr == k->syms[i].addr)
			continue;
		k->syms[n++] = k->syms[i];
		k->n_text += k->syms[i].text;
	}
	k->n = n;
	s->st.kernel_symbols = k->n_text;
}

bool enav_symbolizer_kernel(struct enav_symbolizer *s, uint64_t addr, struct enav_frame *out)
{
	struct kernel_table *k = &s->k;
	uint32_t lo = 0, hi;

	*out =
	    (struct enav_frame){.address = addr, .kernel = true, .map_path = "[kernel.kallsyms]"};
	if (!k->loaded)
		load_kallsyms(s);
	hi = k->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct ksym *ks = lo > 0 ? &k->syms[lo - 1] : NULL;
	if (!ks || !ks->text || (lo == k->n && addr != ks->addr)) {
		s->st.unresolved++;
		return false;
	}
	out->function = k->names + ks->name;
	if (ks->mod) {
		snprintf(s->kname, sizeof(s->kname), "%s [%s]", k->names + ks->name,
			 k->names + k->mods[ks->mod - 1]);
		out->function = s->kname;
	}
	out->function_offset = addr - ks->addr;
	s->st.resolved++;
	return true;
}

/* ---- ELF cache ----------------------------------------------------------------- */

static void elf_entry_free(struct lru_node *n)
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
	       e->mtime_ns == mtime_ns(st) && e->size == (uint64_t)st->st_size;
}

/* Drops least recently used symbol tables until n more bytes fit the
 * budget (or none is left to drop). */
static void make_room(struct enav_symbolizer *s, uint64_t n)
{
	while (!enav_tenant_mem_fits(s->mem, n) && s->elfs.head.prev != &s->elfs.head) {
		lru_drop(&s->elfs, s->elfs.head.prev);
		s->elfs.evictions++;
		enav_tenant_mem_evicted(s->mem);
	}
}

/* Loads the symbol table of h (file identity st) into a new entry, or
 * refuses it when it is past the per-file cap; NULL then, or on failure. */
static struct elf_entry *load_elf(struct enav_symbolizer *s, uint32_t pid, const struct proc *p,
				  const struct umap *m, struct enav_elf *h, const struct stat *st,
				  const uint8_t *bid, size_t bid_len)
{
	struct enav_elf_symtab *t = NULL;
	struct elf_entry *e = calloc(1, sizeof(*e));
	struct enav_file_key k;

	if (!e)
		return NULL;
	enav_file_key_of(st, &k);
	int rc = enav_elf_load(h, s->max_syms, &t);
	if (rc == 0 && (t->from_dynsym || t->n_syms == 0) &&
	    enav_debug_symbols_load(&(struct enav_debug_files){.proc_root = s->proc_root,
							       .debug_dir = s->debug_dir,
							       .self_root = s->self_root,
							       .mem = s->mem,
							       .max_syms = s->max_syms},
				    pid, p->paths + m->path, h, bid, bid_len, t))
		s->st.debug_files++;
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
	e->mem = s->mem;
	e->bytes = sizeof(*e) + enav_elf_symtab_bytes(t);
	/* A section skipped for the cap left a poorer table (.dynsym). */
	if (t->truncated || enav_elf_over_cap(h))
		s->st.elf_truncated++;
	return e;
}

/* Opens the file of m and its ELF handle, under the per-file cap; NULL (fd
 * closed) when it cannot be opened or was refused before. */
static struct enav_elf *open_elf(struct enav_symbolizer *s, uint32_t pid, const struct proc *p,
				 const struct umap *m, int *fdp, struct stat *st)
{
	enum enav_tenant_refusal why = ENAV_TENANT_OK;
	struct enav_file_key k;
	struct enav_elf *h = NULL;
	int fd = enav_open_map_file(s->proc_root, pid, m->start, m->end, p->paths + m->path, m->dev,
				    m->inode, &why);

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

/* Puts the new entry e in the cache under key, charged to the budget. */
static void cache_elf(struct enav_symbolizer *s, struct elf_entry *e, uint64_t key,
		      const uint8_t *bid, size_t bid_len, const struct stat *st)
{
	e->node.key = key;
	memcpy(e->bid, bid, bid_len);
	e->bid_len = bid_len;
	e->dev = (uint64_t)st->st_dev;
	e->ino = (uint64_t)st->st_ino;
	e->mtime_ns = mtime_ns(st);
	e->size = (uint64_t)st->st_size;
	make_room(s, e->bytes);
	enav_tenant_mem_charge(s->mem, e->bytes);
	lru_insert(&s->elfs, &e->node);
	s->st.elf_loads++;
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

static struct elf_entry *map_elf(struct enav_symbolizer *s, uint32_t pid, const struct proc *p,
				 struct umap *m)
{
	struct elf_entry *e;
	struct stat st;
	int fd = -1;

	if (m->kind != MAP_FILE || m->elf_state == ELF_FAILED)
		return NULL;
	if (m->elf_state == ELF_KNOWN && (e = (struct elf_entry *)lru_find(&s->elfs, m->elf_key))) {
		lru_touch(&s->elfs, &e->node);
		s->st.elf_hits++;
		return e;
	}
	/* Over the loading time budget: left unresolved now (the mapping's
	 * state unchanged), loaded by a later lookup. */
	uint64_t t0 = enav_clock_mono_ns();
	if (!load_allowed(s, t0)) {
		s->st.elf_deferred++;
		return NULL;
	}
	struct enav_elf *h = open_elf(s, pid, p, m, &fd, &st);
	if (!h) {
		m->elf_state = ELF_FAILED;
		s->st.elf_failures++;
		return NULL;
	}
	uint8_t bid[ENAV_ELF_BUILD_ID_MAX];
	size_t bid_len = enav_elf_build_id(h, bid, sizeof(bid));
	uint64_t key;
	if (bid_len) {
		key = fnv64(bid, bid_len, 0xcbf29ce484222325ull);
	} else {
		uint64_t id[4] = {(uint64_t)st.st_dev, (uint64_t)st.st_ino, mtime_ns(&st),
				  (uint64_t)st.st_size};
		key = fnv64(id, sizeof(id), 0x84222325cbf29ce4ull);
	}
	e = (struct elf_entry *)lru_find(&s->elfs, key);
	if (e && !elf_same(e, bid, bid_len, &st)) {
		lru_drop(&s->elfs, &e->node); /* hash collision: the newer file wins */
		e = NULL;
	}
	if (e) {
		lru_touch(&s->elfs, &e->node);
		s->st.elf_hits++;
	} else {
		/* The table is in memory before its size is known: room for
		 * the largest one a file may give. */
		make_room(s, enav_tenant_mem_file_cap(s->mem));
		if ((e = load_elf(s, pid, p, m, h, &st, bid, bid_len)) != NULL)
			cache_elf(s, e, key, bid, bid_len, &st);
	}
	enav_elf_close(h);
	close(fd);
	s->load_tokens_ns -= (int64_t)(enav_clock_mono_ns() - t0);
	if (!e) {
		m->elf_state = ELF_FAILED;
		s->st.elf_failures++;
		return NULL;
	}
	m->elf_state = ELF_KNOWN;
	m->elf_key = key;
	return e;
}

/* ---- perf maps ----------------------------------------------------------------- */

static void perf_map_clear(struct perf_map *pm)
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
	if (!grow((void **)&l->pm->e, sizeof(*l->pm->e), &l->cap, l->pm->n + 1, l->max) ||
	    !arena_push(&l->pm->names, &l->names_len, &l->names_cap, pl.name, pl.name_len,
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

/*
 * The perf map is in a world-writable directory: it is only read when it is
 * a regular file (not a symlink, FIFO or device) owned by root or by the
 * process's user, so another user cannot plant one or point it elsewhere.
 */
static void perf_map_check(struct enav_symbolizer *s, uint32_t pid, struct proc *p)
{
	struct perf_map *pm = &p->pm;
	uint64_t now = enav_clock_mono_ns();
	char path[PATH_MAX];
	struct stat st;

	if (pm->checked && now - pm->checked_ns < REFRESH_NS)
		return;
	pm->checked = true;
	pm->checked_ns = now;
	int n = snprintf(path, sizeof(path), "%s/perf-%" PRIu32 ".map", s->perf_map_dir, pid);
	if (n <= 0 || (size_t)n >= sizeof(path))
		return;
	if (!p->uid_known)
		return;
	enum enav_tenant_refusal why;
	int fd = enav_tenant_open_in_root(s->self_root, path, NULL, &st, &why);
	if (fd < 0) {
		enav_tenant_mem_open_refused(s->mem, why);
		return; /* gone: keep what was loaded */
	}
	if ((st.st_uid != 0 && st.st_uid != p->uid) ||
	    (pm->loaded && pm->ino == (uint64_t)st.st_ino && pm->size == (uint64_t)st.st_size &&
	     pm->mtime_ns == mtime_ns(&st))) {
		close(fd);
		return;
	}
	perf_map_clear(pm);
	/* What is kept is at most about what is read: the bytes read are the
	 * budget's per-file share at most. */
	uint64_t max_bytes = (uint64_t)s->max_perf * PERF_MAP_LINE_BYTES;
	if (max_bytes > enav_tenant_mem_file_cap(s->mem) / 2)
		max_bytes = enav_tenant_mem_file_cap(s->mem) / 2;
	struct pm_loader l = {.pm = pm, .max = s->max_perf};
	enav_read_lines(fd, PERF_MAP_LINE_MAX, max_bytes, perf_map_line, &l);
	close(fd);
	if (pm->n)
		qsort(pm->e, pm->n, sizeof(*pm->e), pm_cmp);
	pm->mem = s->mem;
	pm->bytes = (uint64_t)l.cap * sizeof(*pm->e) + l.names_cap;
	make_room(s, pm->bytes);
	enav_tenant_mem_charge(s->mem, pm->bytes);
	pm->loaded = true;
	pm->ino = (uint64_t)st.st_ino;
	pm->size = (uint64_t)st.st_size;
	pm->mtime_ns = mtime_ns(&st);
	s->st.perf_map_loads++;
}

/* The latest entry (by line) covering addr among the nearest preceding ones. */
static const char *perf_map_lookup(struct enav_symbolizer *s, uint32_t pid, struct proc *p,
				   uint64_t addr, uint64_t *off)
{
	struct perf_map *pm = &p->pm;
	uint32_t lo = 0, hi;

	perf_map_check(s, pid, p);
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

/* ---- process snapshots ------------------------------------------------------------ */

static void proc_free(struct lru_node *n)
{
	struct proc *p = (struct proc *)n;

	perf_map_clear(&p->pm);
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
	if (!grow((void **)&l->p->maps, sizeof(*l->p->maps), &l->cap, l->p->n_maps + 1, l->max) ||
	    !arena_push(&l->p->paths, &l->paths_len, &l->paths_cap, path, plen, UINT32_MAX,
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

static struct umap *find_map(const struct proc *p, uint64_t addr)
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

static struct proc *get_proc(struct enav_symbolizer *s, uint32_t pid)
{
	struct proc *p = (struct proc *)lru_find(&s->procs, pid);

	if (p)
		lru_touch(&s->procs, &p->node);
	return p;
}

/* A refresh keeps the ELF identity of the mappings that did not change, so
 * their files are not reopened. */
static void carry_identities(struct proc *p, const struct proc *old)
{
	for (uint32_t i = 0; i < p->n_maps; i++) {
		struct umap *m = &p->maps[i];
		const struct umap *o = find_map(old, m->start);

		if (m->kind != MAP_FILE || !o || o->elf_state != ELF_KNOWN ||
		    o->start != m->start || o->end != m->end || o->offset != m->offset ||
		    o->inode != m->inode || strcmp(p->paths + m->path, old->paths + o->path) != 0)
			continue;
		m->elf_state = ELF_KNOWN;
		m->elf_key = o->elf_key;
	}
}

int enav_symbolizer_snapshot(struct enav_symbolizer *s, uint32_t pid)
{
	struct proc *old = get_proc(s, pid);
	uint64_t now = enav_clock_mono_ns();
	char path[PATH_MAX];
	int rc = 0, fd;

	if (old)
		old->snap_ns = now;
	int n = snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", s->proc_root, pid);
	if (n <= 0 || (size_t)n >= sizeof(path))
		rc = -ENAMETOOLONG;
	else if ((fd = open_ro(path)) < 0)
		rc = -errno;
	struct proc *p = rc == 0 ? calloc(1, sizeof(*p)) : NULL;
	if (rc == 0 && !p) {
		close(fd);
		rc = -ENOMEM;
	}
	if (rc == 0) {
		struct maps_loader l = {.p = p, .max = s->max_maps};
		rc = enav_read_lines(fd, MAPS_LINE_MAX, MAPS_MAX_BYTES, maps_line, &l);
		close(fd);
		/* An exited process reads as empty: keep the old snapshot. */
		if (rc == 0 && p->n_maps == 0 && old)
			rc = -ESRCH;
	}
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
				lru_insert(&s->procs, &p->node);
			}
		}
		return rc;
	}
	if (p->n_maps > 1) /* a process with no executable mapping has none at all */
		qsort(p->maps, p->n_maps, sizeof(*p->maps), umap_cmp);
	struct stat pst;
	path[n - (int)strlen("/maps")] = '\0';
	if (stat(path, &pst) == 0) {
		p->uid = (uint32_t)pst.st_uid;
		p->uid_known = true;
	} else if (old) {
		p->uid = old->uid;
		p->uid_known = old->uid_known;
	}
	p->node.key = pid;
	p->snap_ns = now;
	if (old) { /* the perf map belongs to the pid, not to the snapshot */
		carry_identities(p, old);
		p->pm = old->pm;
		old->pm = (struct perf_map){0};
		lru_drop(&s->procs, &old->node);
	}
	lru_insert(&s->procs, &p->node);
	s->st.snapshots++;
	/* Identify and load the files now, while they can still be opened. */
	for (uint32_t i = 0; i < p->n_maps; i++)
		map_elf(s, pid, p, &p->maps[i]);
	return 0;
}

int enav_symbolizer_executable(struct enav_symbolizer *s, uint32_t pid, uint64_t addr)
{
	struct proc *p = get_proc(s, pid);

	if (!p) {
		enav_symbolizer_snapshot(s, pid);
		p = get_proc(s, pid);
	}
	if (p && !find_map(p, addr) && enav_clock_mono_ns() - p->snap_ns >= REFRESH_NS) {
		enav_symbolizer_snapshot(s, pid);
		p = get_proc(s, pid);
	}
	if (!p || p->n_maps == 0)
		return -1;
	return find_map(p, addr) != NULL;
}

bool enav_symbolizer_user(struct enav_symbolizer *s, uint32_t pid, uint64_t addr,
			  struct enav_frame *out)
{
	struct proc *p = get_proc(s, pid);
	struct umap *m = NULL;
	uint64_t off = 0;

	*out = (struct enav_frame){.address = addr};
	if (!p) {
		enav_symbolizer_snapshot(s, pid);
		p = get_proc(s, pid);
	}
	if (p && !(m = find_map(p, addr)) && enav_clock_mono_ns() - p->snap_ns >= REFRESH_NS) {
		enav_symbolizer_snapshot(s, pid);
		p = get_proc(s, pid);
		m = p ? find_map(p, addr) : NULL;
	}
	if (m) {
		out->map_path = p->paths + m->path;
		out->map_start = m->start;
		out->map_limit = m->end;
		out->map_offset = m->offset;
	}
	struct elf_entry *e = m && m->kind == MAP_FILE ? map_elf(s, pid, p, m) : NULL;
	uint64_t vaddr;
	if (e) {
		if (e->t->build_id[0])
			out->build_id = e->t->build_id;
		if (enav_elf_offset_to_vaddr(e->t, addr - m->start + m->offset, &vaddr))
			out->function = enav_elf_lookup(e->t, vaddr, &off);
	} else if (p) {
		/* JIT code: anonymous (or named anonymous, or memfd) executable
		 * memory, or no mapping at all; never an ELF file's. */
		out->function = perf_map_lookup(s, pid, p, addr, &off);
	}
	if (out->function) {
		out->function_offset = off;
		s->st.resolved++;
		return true;
	}
	s->st.unresolved++;
	return false;
}

/* ---- lifecycle ------------------------------------------------------------------- */

struct enav_symbolizer *enav_symbolizer_new(const struct enav_symbolizer_config *cfg)
{
	struct enav_symbolizer_config c = cfg ? *cfg : (struct enav_symbolizer_config){0};
	struct enav_symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->kallsyms_fd = -1;
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
	s->kallsyms_fd = s->kallsyms_path ? open_ro(s->kallsyms_path) : -1;
	s->kallsyms_errno = s->kallsyms_fd < 0 ? errno : 0;
	if (!s->mem || s->self_root < 0 || !s->proc_root || !s->kallsyms_path || !s->perf_map_dir ||
	    !s->debug_dir ||
	    lru_init(&s->procs, c.max_processes ? c.max_processes : DEF_MAX_PROCESSES, proc_free) ||
	    lru_init(&s->elfs, c.max_elf_files ? c.max_elf_files : DEF_MAX_ELF_FILES,
		     elf_entry_free)) {
		enav_symbolizer_free(s);
		return NULL;
	}
	return s;
}

void enav_symbolizer_free(struct enav_symbolizer *s)
{
	if (!s)
		return;
	lru_destroy(&s->procs);
	lru_destroy(&s->elfs);
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
	free(s);
}

void enav_symbolizer_get_stats(struct enav_symbolizer *s, struct enav_symbolizer_stats *st)
{
	*st = s->st;
	st->process_evictions = s->procs.evictions;
	st->elf_evictions = s->elfs.evictions;
	st->processes = s->procs.size;
	st->elf_files = s->elfs.size;
	st->kernel_symbols = s->k.n_text;
}
