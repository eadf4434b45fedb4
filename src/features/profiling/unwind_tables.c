/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loads unwind rows (.eh_frame, and .gopclntab for Go code) and process mapping lists into the
 * kernel maps the profile programs unwind with (see unwind_tables.h, ADR 0017).
 *
 * The rows of every binary share one array, handed out first-fit in
 * extents; a binary keeps its extent while a tracked process maps it.  Rows
 * are written before any process entry points at them, so a program never
 * reads a half-written table.
 */
#include "features/profiling/unwind_tables.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "features/profiling/go_unwind.h"
#include "features/profiling/symbolize_priv.h"
#include "features/profiling/tenant_memory.h"
#include "platform/clock.h"
#include "platform/log.h"
#include "platform/proc_lines.h"

/* One binary's .eh_frame is read into memory (and copied) up to the tenant
 * memory budget's per-file share, set on the ELF handle. */
#define EH_FRAME_MAX_BYTES SIZE_MAX
#define MAPS_LINE_MAX	   (PATH_MAX + 256)
#define MAPS_MAX_BYTES	   (64u << 20)
#define PATH_KEPT	   160 /* bytes of a binary's path kept for the log */

enum refusal {
	REFUSED_NO_EH_FRAME,
	REFUSED_TOO_LARGE,
	REFUSED_TABLE_FULL,
	REFUSED_UNREADABLE,
	REFUSED_HIGH_ADDRESS,
	REFUSED_BINARIES_CAP,
	REFUSED__COUNT,
};

static const char *const refusal_names[REFUSED__COUNT] = {
    [REFUSED_NO_EH_FRAME] = "no_eh_frame", [REFUSED_TOO_LARGE] = "over_binary_budget",
    [REFUSED_TABLE_FULL] = "rows_full",	   [REFUSED_UNREADABLE] = "unreadable",
    [REFUSED_HIGH_ADDRESS] = "above_4gib", [REFUSED_BINARIES_CAP] = "binaries_cap",
};

struct binary {
	bool used, vdso, loaded;
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	uint32_t first, count;	     /* rows extent when loaded */
	uint32_t refs;		     /* tracked processes mapping it */
	struct enav_elf_symtab segs; /* only segs/n_segs are used */
	char path[PATH_KEPT];
};

struct proc {
	bool used;
	uint32_t tgid;
	uint16_t gen;
	uint64_t sig; /* hash of the executable mappings last written */
	uint32_t n_bins;
	uint32_t bins[ENAV_UNWIND_MAX_MAPPINGS]; /* indexes into t->bins (refs held) */
};

struct extent {
	uint32_t first, count;
};

struct enav_unwind_tables {
	struct enav_unwind_tables_config cfg;
	char proc_root[PATH_MAX];
	struct enav_unwind_entry *rows;
	int procs_fd;
	struct binary *bins;
	struct proc *procs;
	struct extent *holes; /* free extents sorted by first, never adjacent */
	uint32_t n_holes, max_holes;
	uint32_t rows_used, binaries_loaded, processes;
	struct enav_unwind_entry *enc; /* one binary's encoded rows */
	struct enav_tenant_mem *mem;
	bool own_mem;
	struct enav_unwind_proc entry;
	/* self-accounting */
	uint64_t refused[REFUSED__COUNT];
	uint64_t procs_refused, mappings_over_cap, map_update_failures, loads, load_ns;
};

/* ---- row extents ------------------------------------------------------------------ */

static bool extent_take(struct enav_unwind_tables *t, uint32_t n, uint32_t *first)
{
	for (uint32_t i = 0; i < t->n_holes; i++) {
		struct extent *h = &t->holes[i];
		if (h->count < n)
			continue;
		*first = h->first;
		h->first += n;
		h->count -= n;
		if (h->count == 0) {
			memmove(h, h + 1, (t->n_holes - i - 1) * sizeof(*h));
			t->n_holes--;
		}
		t->rows_used += n;
		return true;
	}
	return false;
}

static void extent_give(struct enav_unwind_tables *t, uint32_t first, uint32_t n)
{
	uint32_t i = 0;

	while (i < t->n_holes && t->holes[i].first < first)
		i++;
	bool joins_prev = i > 0 && t->holes[i - 1].first + t->holes[i - 1].count == first;
	bool joins_next = i < t->n_holes && first + n == t->holes[i].first;
	t->rows_used -= n;
	if (joins_prev && joins_next) {
		t->holes[i - 1].count += n + t->holes[i].count;
		memmove(&t->holes[i], &t->holes[i + 1],
			(t->n_holes - i - 1) * sizeof(struct extent));
		t->n_holes--;
	} else if (joins_prev) {
		t->holes[i - 1].count += n;
	} else if (joins_next) {
		t->holes[i].first = first;
		t->holes[i].count += n;
	} else if (t->n_holes < t->max_holes) {
		/* Holes are at most one more than the extents handed out. */
		memmove(&t->holes[i + 1], &t->holes[i], (t->n_holes - i) * sizeof(struct extent));
		t->holes[i] = (struct extent){first, n};
		t->n_holes++;
	}
}

/* ---- encoding --------------------------------------------------------------------- */

static struct enav_unwind_entry encode_row(const struct enav_unwind_row *r)
{
	struct enav_unwind_entry out = {.pc = (uint32_t)r->pc};
	uint32_t kind = ENAV_UNWIND_UNDEFINED, off8 = 0;

	switch (r->cfa_kind) {
	case ENAV_CFA_RSP:
	case ENAV_CFA_RBP:
		if (r->cfa_off >= 0 && r->cfa_off % 8 == 0 &&
		    (uint32_t)r->cfa_off / 8 <= ENAV_UNWIND_OFF_MASK) {
			kind = r->cfa_kind == ENAV_CFA_RSP ? ENAV_UNWIND_RSP : ENAV_UNWIND_RBP;
			off8 = (uint32_t)r->cfa_off / 8;
		}
		break;
	case ENAV_CFA_PLT:
		/* The offset field holds the entry offset past which the push
		 * happened (11, or 10 for IBT entries). */
		kind = ENAV_UNWIND_PLT;
		off8 = r->cfa_off >= 0 && r->cfa_off < 16 ? (uint32_t)r->cfa_off : 11;
		break;
	case ENAV_CFA_END:
		kind = ENAV_UNWIND_END;
		break;
	default:
		break;
	}
	if (kind == ENAV_UNWIND_RSP || kind == ENAV_UNWIND_RBP) {
		/* A saved rbp the row cannot place makes the row unusable. */
		if (r->rbp_saved && (r->rbp_off % 8 != 0 || r->rbp_off / 8 < INT8_MIN ||
				     r->rbp_off / 8 > INT8_MAX || r->rbp_off == 0)) {
			kind = ENAV_UNWIND_UNDEFINED;
			off8 = 0;
		} else if (r->rbp_saved) {
			out.rbp_off8 = (int8_t)(r->rbp_off / 8);
		}
	}
	out.cfa = (uint16_t)(kind << ENAV_UNWIND_KIND_SHIFT | off8);
	return out;
}

int enav_unwind_encode(const struct enav_eh_table *in, struct enav_unwind_entry *out, uint32_t cap)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < in->n; i++) {
		if (in->rows[i].pc > UINT32_MAX)
			return -ERANGE;
		struct enav_unwind_entry r = encode_row(&in->rows[i]);
		if (n && out[n - 1].cfa == r.cfa && out[n - 1].rbp_off8 == r.rbp_off8)
			continue; /* same rule as the row before: it extends */
		if (n == cap)
			return -E2BIG;
		out[n++] = r;
	}
	return (int)n;
}

/* ---- binaries ------------------------------------------------------------------------ */

static void count_refusal(struct enav_unwind_tables *t, struct binary *b, enum refusal why)
{
	t->refused[why]++;
	enav_info("profiling: %s: no unwind table (%s); its frames are stepped by frame pointer",
		  b->path, refusal_names[why]);
}

/* The .eh_frame rows of e into tab (at most cap); -1, or the refusal. */
static int eh_frame_rows(struct enav_elf *e, uint32_t cap, struct enav_eh_table *tab)
{
	uint8_t *sec = NULL;
	size_t len = 0;
	uint64_t vaddr = 0;
	int why = -1;

	int rc = enav_elf_eh_frame(e, EH_FRAME_MAX_BYTES, &sec, &len, &vaddr);
	if (rc == -E2BIG)
		why = REFUSED_TOO_LARGE;
	else if (rc || enav_eh_frame_build(sec, len, vaddr, cap, tab) != 0)
		why = REFUSED_NO_EH_FRAME;
	else if (tab->stats.truncated)
		why = REFUSED_TOO_LARGE;
	free(sec);
	return why;
}

struct rows_source {
	const char *name; /* for the log */
	uint32_t fdes, functions;
};

/*
 * The rows of e from .eh_frame and, in a Go binary, .gopclntab (the Go
 * toolchain writes no .eh_frame for Go code): a cgo binary has both, for
 * disjoint code (C and Go); where both have a rule, .eh_frame's wins.
 * Either one over the budget refuses the binary.
 */
static int binary_rows(struct enav_unwind_tables *t, struct enav_elf *e, struct enav_eh_table *tab,
		       struct rows_source *src)
{
	struct enav_eh_table eh = {0}, go = {0};
	uint32_t cap = t->cfg.max_binary_rows * 2;
	int why = -1;

	int why_eh = eh_frame_rows(e, cap, &eh);
	int rc = enav_gopclntab_unwind(e, cap, &go), why_go = rc ? REFUSED_NO_EH_FRAME : -1;
	if (rc == -E2BIG || (rc == 0 && go.stats.truncated))
		why_go = REFUSED_TOO_LARGE;
	src->fdes = eh.stats.fdes;
	src->functions = go.stats.fdes;
	if (why_eh == REFUSED_TOO_LARGE || why_go == REFUSED_TOO_LARGE) {
		why = REFUSED_TOO_LARGE;
	} else if (why_eh >= 0 && why_go >= 0) {
		why = REFUSED_NO_EH_FRAME;
	} else if (why_go >= 0) {
		*tab = eh;
		eh = (struct enav_eh_table){0};
		src->name = "eh_frame";
	} else if (why_eh >= 0) {
		*tab = go;
		go = (struct enav_eh_table){0};
		src->name = "gopclntab";
	} else if (enav_unwind_tables_merge(&eh, &go, tab) == 0) {
		src->name = "eh_frame+gopclntab";
	} else {
		why = REFUSED_NO_EH_FRAME; /* out of memory: as if there were none */
	}
	enav_eh_table_free(&eh);
	enav_eh_table_free(&go);
	return why;
}

/* Parse, encode and place the rows of the ELF e; the reason when refused. */
static int load_rows(struct enav_unwind_tables *t, struct binary *b, struct enav_elf *e)
{
	struct enav_eh_table tab = {0};
	struct rows_source src = {.name = ""};

	enav_elf_segments(e, &b->segs);
	int why = binary_rows(t, e, &tab, &src);
	if (why < 0) {
		int n = enav_unwind_encode(&tab, t->enc, t->cfg.max_binary_rows);
		if (n == -ERANGE)
			why = REFUSED_HIGH_ADDRESS;
		else if (n < 0)
			why = REFUSED_TOO_LARGE;
		else if (n == 0)
			why = REFUSED_NO_EH_FRAME;
		else if (!extent_take(t, (uint32_t)n, &b->first))
			why = REFUSED_TABLE_FULL;
		else {
			b->count = (uint32_t)n;
			memcpy(&t->rows[b->first], t->enc, (size_t)n * sizeof(*t->enc));
			b->loaded = true;
			t->binaries_loaded++;
			enav_debug(
			    "profiling: unwind table loaded path=%s source=%s rows=%u bytes=%zu "
			    "fdes=%u go_functions=%u unsupported_rows=%u",
			    b->path, src.name, b->count, (size_t)b->count * sizeof(*t->enc),
			    src.fdes, src.functions, tab.stats.unsupported_rows);
		}
	}
	enav_eh_table_free(&tab);
	return why;
}

static void binary_release(struct enav_unwind_tables *t, struct binary *b)
{
	if (b->loaded) {
		extent_give(t, b->first, b->count);
		t->binaries_loaded--;
	}
	memset(b, 0, sizeof(*b));
}

/* A free slot, evicting a binary no process maps when all are used. */
static struct binary *binary_slot(struct enav_unwind_tables *t)
{
	struct binary *idle = NULL;

	for (uint32_t i = 0; i < t->cfg.max_binaries; i++) {
		if (!t->bins[i].used)
			return &t->bins[i];
		if (!idle && !t->bins[i].refs && !t->bins[i].vdso)
			idle = &t->bins[i];
	}
	if (idle)
		binary_release(t, idle);
	return idle;
}

static struct binary *binary_for(struct enav_unwind_tables *t, uint32_t pid,
				 const struct enav_maps_line *m)
{
	for (uint32_t i = 0; i < t->cfg.max_binaries; i++) {
		struct binary *b = &t->bins[i];
		if (b->used && !b->vdso && b->inode == m->inode && b->dev_major == m->dev_major &&
		    b->dev_minor == m->dev_minor)
			return b;
	}
	struct binary *b = binary_slot(t);
	if (!b) {
		t->refused[REFUSED_BINARIES_CAP]++;
		return NULL;
	}
	b->used = true;
	b->inode = m->inode;
	b->dev_major = m->dev_major;
	b->dev_minor = m->dev_minor;
	snprintf(b->path, sizeof(b->path), "%.*s", (int)m->path_len, m->path);
	uint64_t t0 = enav_clock_mono_ns();
	enum enav_tenant_refusal open_why = ENAV_TENANT_OK;
	int fd = enav_open_map_file(t->proc_root, pid, m->start, m->end, b->path,
				    makedev(m->dev_major, m->dev_minor), m->inode, &open_why);
	struct enav_elf *e = NULL;
	struct enav_file_key k;
	struct stat st;
	int why = REFUSED_UNREADABLE;
	if (fd < 0) {
		enav_tenant_mem_open_refused(t->mem, open_why);
	} else if (fstat(fd, &st) == 0) {
		enav_file_key_of(&st, &k);
		/* Refused for its size before: not parsed again. */
		if (enav_tenant_mem_recall(t->mem, ENAV_TMEM_KIND_UNWIND, &k, NULL)) {
			enav_tenant_mem_refused(t->mem, ENAV_TMEM_REMEMBERED);
			why = REFUSED_TOO_LARGE;
		} else if ((e = enav_elf_open_fd(fd)) != NULL) {
			enav_elf_set_file_cap(e, enav_tenant_mem_file_cap(t->mem));
			why = load_rows(t, b, e);
			if (why == REFUSED_TOO_LARGE) {
				enav_tenant_mem_refused(t->mem, ENAV_TMEM_OVER_FILE_CAP);
				enav_tenant_mem_remember(t->mem, ENAV_TMEM_KIND_UNWIND, &k, 1);
			}
		}
	}
	enav_elf_close(e);
	if (fd >= 0)
		close(fd);
	if (why >= 0)
		count_refusal(t, b, (enum refusal)why);
	t->loads++;
	t->load_ns += enav_clock_mono_ns() - t0;
	return b;
}

/* The kernel's vDSO, from our own mapping: every process maps the same one. */
static void load_vdso(struct enav_unwind_tables *t)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR);
	struct binary *b = binary_slot(t);
	size_t len = 2 * (size_t)sysconf(_SC_PAGESIZE);

	if (!base || !b)
		return;
	/* Its size: the [vdso] line of our maps (a few pages). */
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512];
	while (f && fgets(line, sizeof(line), f)) {
		struct enav_maps_line ml;
		if (enav_maps_parse_line(line, strlen(line), &ml) == 0 && ml.start == base)
			len = ml.end - ml.start;
	}
	if (f)
		fclose(f);
	void *copy = malloc(len);
	if (!copy)
		return;
	memcpy(copy, (const void *)(uintptr_t)base, len);
	*b = (struct binary){.used = true, .vdso = true};
	snprintf(b->path, sizeof(b->path), "[vdso]");
	struct enav_elf *e = enav_elf_open_mem(copy, len);
	int why = e ? load_rows(t, b, e) : REFUSED_UNREADABLE;
	enav_elf_close(e);
	free(copy);
	if (why >= 0)
		count_refusal(t, b, (enum refusal)why);
}

static struct binary *vdso_binary(struct enav_unwind_tables *t)
{
	for (uint32_t i = 0; i < t->cfg.max_binaries; i++)
		if (t->bins[i].used && t->bins[i].vdso)
			return &t->bins[i];
	return NULL;
}

/* runtime - link-time address for a mapping of b at file offset off. */
static bool mapping_bias(const struct binary *b, const struct enav_maps_line *m, uint64_t *bias)
{
	uint64_t len = m->end - m->start;

	for (uint32_t i = 0; i < b->segs.n_segs; i++) {
		const struct enav_elf_seg *g = &b->segs.segs[i];
		/* The executable segment this mapping holds (it may start a
		 * little into the mapping's first page). */
		if (!g->exec || g->offset + g->filesz <= m->offset || g->offset >= m->offset + len)
			continue;
		*bias = m->start - m->offset + g->offset - g->vaddr;
		return true;
	}
	return false;
}

/* ---- processes ---------------------------------------------------------------------- */

struct maps_reader {
	struct enav_unwind_tables *t;
	uint32_t pid;
	struct proc *p;
	uint64_t sig;
	bool over_cap;
};

static int read_maps_line(void *ctx, const char *line, size_t len)
{
	struct maps_reader *r = ctx;
	struct enav_unwind_tables *t = r->t;
	struct enav_unwind_proc *e = &t->entry;
	struct enav_maps_line ml;

	if (enav_maps_parse_line(line, len, &ml) != 0 || !ml.exec)
		return 0;
	r->sig =
	    (r->sig ^ ml.start ^ (ml.end << 1) ^ (ml.offset << 2) ^ ml.inode) * 0x100000001b3ull;
	struct binary *b = NULL;
	if (ml.path && ml.path[0] == '/' && ml.inode)
		b = binary_for(t, r->pid, &ml);
	else if (ml.path && ml.path_len == 6 && memcmp(ml.path, "[vdso]", 6) == 0)
		b = vdso_binary(t);
	uint64_t bias = 0;
	bool table = b && b->loaded && mapping_bias(b, &ml, &bias);
	/* Neighbouring mappings without tables merge: one frame-pointer range. */
	if (!table && e->n && !e->m[e->n - 1].count && e->m[e->n - 1].end == ml.start) {
		e->m[e->n - 1].end = ml.end;
		return 0;
	}
	if (e->n == ENAV_UNWIND_MAX_MAPPINGS) {
		r->over_cap = true;
		return 0;
	}
	e->m[e->n++] = (struct enav_unwind_mapping){.start = ml.start,
						    .end = ml.end,
						    .bias = bias,
						    .first = table ? b->first : 0,
						    .count = table ? b->count : 0};
	if (b && r->p->n_bins < ENAV_UNWIND_MAX_MAPPINGS) {
		b->refs++;
		r->p->bins[r->p->n_bins++] = (uint32_t)(b - t->bins);
	}
	return 0;
}

static uint64_t proc_key(uint32_t tgid, uint16_t gen)
{
	return (uint64_t)gen << 32 | tgid;
}

static void proc_drop_refs(struct enav_unwind_tables *t, struct proc *p)
{
	for (uint32_t i = 0; i < p->n_bins; i++)
		if (t->bins[p->bins[i]].refs)
			t->bins[p->bins[i]].refs--;
	p->n_bins = 0;
}

static void proc_forget(struct enav_unwind_tables *t, struct proc *p)
{
	uint64_t key = proc_key(p->tgid, p->gen);

	bpf_map_delete_elem(t->procs_fd, &key);
	proc_drop_refs(t, p);
	memset(p, 0, sizeof(*p));
	t->processes--;
}

int enav_unwind_tables_add(struct enav_unwind_tables *t, uint32_t tgid, uint16_t exec_gen)
{
	struct proc *p = NULL, *free_slot = NULL;

	for (uint32_t i = 0; i < t->cfg.max_processes; i++) {
		struct proc *q = &t->procs[i];
		if (!q->used) {
			if (!free_slot)
				free_slot = q;
		} else if (q->tgid == tgid && q->gen == exec_gen) {
			p = q;
		} else if (q->tgid == tgid) {
			proc_forget(t, q); /* the image before an exec */
			if (!free_slot)
				free_slot = q;
		}
	}
	if (!p) {
		if (!free_slot) {
			t->procs_refused++;
			return -ENOSPC;
		}
		p = free_slot;
		*p = (struct proc){.used = true, .tgid = tgid, .gen = exec_gen};
		t->processes++;
	}
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%" PRIu32 "/maps", t->proc_root, tgid);
	int fd = n > 0 && (size_t)n < sizeof(path) ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0) {
		int rc = -errno;
		proc_forget(t, p);
		return rc ? rc : -ENAMETOOLONG;
	}
	/* Take the new references before dropping the old: a binary both
	 * images map keeps its rows. */
	struct proc old = *p;
	p->n_bins = 0;
	memset(&t->entry, 0, offsetof(struct enav_unwind_proc, m));
	struct maps_reader r = {.t = t, .pid = tgid, .p = p, .sig = 0xcbf29ce484222325ull};
	int rc = enav_read_lines(fd, MAPS_LINE_MAX, MAPS_MAX_BYTES, read_maps_line, &r);
	close(fd);
	proc_drop_refs(t, &old);
	if (rc == 0 && t->entry.n == 0)
		rc = -ESRCH; /* exited while we read */
	if (rc) {
		proc_forget(t, p);
		return rc;
	}
	if (r.over_cap)
		t->mappings_over_cap++;
	if (old.sig == r.sig && old.sig) {
		p->sig = r.sig;
		return 0; /* unchanged: the kernel's entry stands */
	}
	uint64_t key = proc_key(tgid, exec_gen);
	if (bpf_map_update_elem(t->procs_fd, &key, &t->entry, BPF_ANY) != 0) {
		rc = -errno;
		t->map_update_failures++;
		proc_forget(t, p);
		return rc;
	}
	p->sig = r.sig;
	return 0;
}

bool enav_unwind_tables_has(struct enav_unwind_tables *t, uint32_t tgid)
{
	for (uint32_t i = 0; i < t->cfg.max_processes; i++) {
		const struct proc *p = &t->procs[i];
		if (!p->used || p->tgid != tgid)
			continue;
		/* A list the kernel found stale is being read again. */
		uint64_t key = proc_key(p->tgid, p->gen);
		if (bpf_map_lookup_elem(t->procs_fd, &key, &t->entry) == 0 &&
		    !(t->entry.flags & ENAV_UNWIND_PROC_STALE))
			return true;
	}
	return false;
}

void enav_unwind_tables_refresh(struct enav_unwind_tables *t)
{
	for (uint32_t i = 0; i < t->cfg.max_processes; i++) {
		struct proc *p = &t->procs[i];
		if (p->used)
			enav_unwind_tables_add(t, p->tgid, p->gen); /* forgets the exited */
	}
	for (uint32_t i = 0; i < t->cfg.max_binaries; i++) {
		struct binary *b = &t->bins[i];
		if (b->used && !b->refs && !b->vdso)
			binary_release(t, b);
	}
}

/* ---- lifetime and metrics ------------------------------------------------------------ */

struct enav_unwind_tables *enav_unwind_tables_new(const struct enav_unwind_tables_config *cfg,
						  struct enav_unwind_entry *rows, int procs_fd)
{
	struct enav_unwind_tables *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cfg = *cfg;
	snprintf(t->proc_root, sizeof(t->proc_root), "%s",
		 cfg->proc_root ? cfg->proc_root : "/proc");
	t->rows = rows;
	t->procs_fd = procs_fd;
	t->mem = cfg->mem;
	if (!t->mem) {
		t->mem = enav_tenant_mem_new(0);
		t->own_mem = true;
	}
	t->max_holes = cfg->max_binaries + 1;
	t->bins = calloc(cfg->max_binaries, sizeof(*t->bins));
	t->procs = calloc(cfg->max_processes, sizeof(*t->procs));
	t->holes = calloc(t->max_holes, sizeof(*t->holes));
	t->enc = calloc(cfg->max_binary_rows, sizeof(*t->enc));
	if (!t->mem || !t->bins || !t->procs || !t->holes || !t->enc) {
		enav_unwind_tables_free(t);
		return NULL;
	}
	t->holes[0] = (struct extent){0, cfg->max_rows};
	t->n_holes = 1;
	load_vdso(t);
	return t;
}

void enav_unwind_tables_free(struct enav_unwind_tables *t)
{
	if (!t)
		return;
	free(t->bins);
	free(t->procs);
	free(t->holes);
	free(t->enc);
	if (t->own_mem)
		enav_tenant_mem_free(t->mem);
	free(t);
}

_Static_assert(REFUSED__COUNT == ENAV_UNWIND_REFUSALS, "enav_unwind_stats.refused");

void enav_unwind_tables_stats(const struct enav_unwind_tables *t, struct enav_unwind_stats *st)
{
	*st = (struct enav_unwind_stats){.rows_used = t->rows_used,
					 .binaries_loaded = t->binaries_loaded,
					 .processes = t->processes,
					 .procs_refused = t->procs_refused,
					 .mappings_over_cap = t->mappings_over_cap,
					 .map_update_failures = t->map_update_failures,
					 .load_ns = t->load_ns};
	memcpy(st->refused, t->refused, sizeof(st->refused));
}

void enav_unwind_stats_metrics(const struct enav_unwind_stats *t, struct enav_promtext *p)
{
	enav_promtext_single_u64(p, "enav_profile_unwind_table_rows", "gauge",
				 "Unwind rows loaded in the kernel (profiling.unwind.max_rows).",
				 t->rows_used);
	enav_promtext_single_u64(
	    p, "enav_profile_unwind_table_bytes", "gauge",
	    "Kernel memory of the loaded unwind rows and process mapping lists.",
	    (uint64_t)t->rows_used * sizeof(struct enav_unwind_entry) +
		(uint64_t)t->processes * sizeof(struct enav_unwind_proc));
	enav_promtext_single_u64(p, "enav_profile_unwind_binaries", "gauge",
				 "Binaries whose .eh_frame rows are loaded.", t->binaries_loaded);
	enav_promtext_single_u64(p, "enav_profile_unwind_processes", "gauge",
				 "Processes whose executable mappings the unwinder knows.",
				 t->processes);
	enav_promtext_family(p, "enav_profile_unwind_binaries_refused_total", "counter",
			     "Binaries left to frame-pointer walking, by reason.");
	for (uint32_t i = 0; i < ENAV_UNWIND_REFUSALS; i++) {
		const char *l[] = {"reason", refusal_names[i]};
		enav_promtext_sample_u64(p, "enav_profile_unwind_binaries_refused_total", l, 1,
					 t->refused[i]);
	}
	enav_promtext_single_u64(p, "enav_profile_unwind_processes_refused_total", "counter",
				 "Processes not loaded: profiling.unwind.max_processes reached.",
				 t->procs_refused);
	enav_promtext_single_u64(p, "enav_profile_unwind_mappings_over_cap_total", "counter",
				 "Process loads that had more executable mappings than the "
				 "kernel entry holds (64); frames there end the stack.",
				 t->mappings_over_cap);
	enav_promtext_single_u64(p, "enav_profile_unwind_map_update_failures_total", "counter",
				 "Process entries the kernel map refused.", t->map_update_failures);
	enav_promtext_single(p, "enav_profile_unwind_load_seconds_total", "counter",
			     "Time spent reading and encoding binaries' .eh_frame.",
			     (double)t->load_ns / 1e9);
}

void enav_unwind_tables_metrics(struct enav_unwind_tables *t, struct enav_promtext *p)
{
	struct enav_unwind_stats st;
	if (!t)
		return;
	enav_unwind_tables_stats(t, &st);
	enav_unwind_stats_metrics(&st, p);
}
