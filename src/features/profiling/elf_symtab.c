/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ELF symbol tables for the symbolizer, from a binary or from its separate
 * debug file (enav_elf_load_debug).  The files are untrusted: every
 * header, segment and section is checked against the file size before it is
 * read, sh_link and string offsets are bounds-checked, the symbol count and
 * the name bytes kept are capped, and data is read with pread on demand
 * (ELF_C_READ, never mmap, so a file truncated under us cannot fault).
 *
 * Where the names come from: .symtab; without it, a Go binary's .gopclntab
 * (the runtime's function table, kept by `go build -ldflags=-s`: every Go
 * function, its end the next one's entry) and .dynsym; without either,
 * .dynsym alone.  For one value a single symbol is kept: one from
 * .gopclntab first, then sized before unsized, then fewer leading
 * underscores ("getpid" over "__getpid"; glibc's "__GI_"/"__EI_" aliases
 * count as three), then GLOBAL, WEAK, LOCAL, then file order.  How an
 * address finds its symbol: elf_lookup.c.
 */
#include "features/profiling/symbolize_priv.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "golang/gopclntab.h"
#include "features/profiling/tenant_memory.h"

#define MAX_NOTE_BYTES (64u << 10) /* one PT_NOTE / SHT_NOTE read */
/* The symbols and names kept of one file are bounded by the handle's
 * file_cap, a section read into memory by its section_cap
 * (enav_elf_set_file_cap; by default the default budget's, tenant_memory.h).  One name keeps at
 * most ENAV_TENANT_NAME_MAX bytes: every symbol of a hostile file may point at the same long
 * string, so the bytes kept are counted per symbol, not per string. */
#define MAX_NAME_LEN	ENAV_TENANT_NAME_MAX
#define NAME_CUT_MARK	"..."	    /* ends a name cut at MAX_NAME_LEN */
#define MAX_SHNUM	(1u << 20)  /* sections (extended numbering) */
#define MAX_PHNUM	4096u	    /* program headers scanned */
#define MAX_SHSTR_BYTES (16u << 20) /* section name table read for .gnu_debuglink */
#define MAX_DEBUGLINK	4096u	    /* a .gnu_debuglink section */

struct enav_elf {
	Elf *elf;
	uint64_t file_size;
	size_t shnum;
	uint64_t file_cap;    /* bytes one loaded table (symbols + names) may keep */
	uint64_t section_cap; /* bytes of one section read (for as long as e is open) */
	bool over_cap;	      /* something was left unread or unkept for a cap */
};

void enav_elf_set_file_cap(struct enav_elf *e, uint64_t cap)
{
	e->file_cap = cap;
	e->section_cap = cap * ENAV_TENANT_SECTION_MUL;
}

bool enav_elf_over_cap(const struct enav_elf *e)
{
	return e->over_cap;
}

static bool libelf_ready(void)
{
	static int state; /* 0 unknown, 1 ok, -1 failed */

	if (state == 0)
		state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
	return state == 1;
}

/* Reads n bytes at off of the file or buffer; false when short. */
typedef bool (*read_fn)(const void *ctx, uint64_t off, void *buf, size_t n);

static bool read_fd(const void *ctx, uint64_t off, void *buf, size_t n)
{
	return pread(*(const int *)ctx, buf, n, (off_t)off) == (ssize_t)n;
}

struct membuf {
	const unsigned char *p;
	size_t len;
};

static bool read_mem(const void *ctx, uint64_t off, void *buf, size_t n)
{
	const struct membuf *m = ctx;

	if (off > m->len || n > m->len - off)
		return false;
	memcpy(buf, m->p + off, n);
	return true;
}

static uint64_t get_un(const unsigned char *p, size_t n, bool msb)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? n - 1 - i : i] << (8 * i);
	return v;
}

static bool table_fits(uint64_t off, uint64_t num, uint64_t entsize, uint64_t file_size)
{
	if (num == 0)
		return true;
	if (entsize == 0 || off > file_size)
		return false;
	return num <= (file_size - off) / entsize;
}

/*
 * Check the ELF header and the extents of the program and section header
 * tables before libelf sees the file: with ELF_C_READ libelf does not know
 * the file size, and extended numbering (count in section 0) could make it
 * allocate for billions of sections.
 */
static bool header_sane(read_fn rd, const void *ctx, uint64_t file_size)
{
	unsigned char h[sizeof(Elf64_Ehdr)] = {0}, s0[sizeof(Elf64_Shdr)];

	if (file_size < sizeof(Elf32_Ehdr) || !rd(ctx, 0, h, sizeof(Elf32_Ehdr)))
		return false;
	if (memcmp(h, ELFMAG, SELFMAG) != 0 || h[EI_VERSION] != EV_CURRENT)
		return false;
	if (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB)
		return false;
	bool msb = h[EI_DATA] == ELFDATA2MSB, is64 = h[EI_CLASS] == ELFCLASS64;
	if (!is64 && h[EI_CLASS] != ELFCLASS32)
		return false;
	if (is64 && (file_size < sizeof(Elf64_Ehdr) || !rd(ctx, 0, h, sizeof(Elf64_Ehdr))))
		return false;
	uint64_t phoff = is64 ? get_un(h + 0x20, 8, msb) : get_un(h + 0x1c, 4, msb);
	uint64_t shoff = is64 ? get_un(h + 0x28, 8, msb) : get_un(h + 0x20, 4, msb);
	uint64_t phentsize = get_un(h + (is64 ? 0x36 : 0x2a), 2, msb);
	uint64_t phnum = get_un(h + (is64 ? 0x38 : 0x2c), 2, msb);
	uint64_t shentsize = get_un(h + (is64 ? 0x3a : 0x2e), 2, msb);
	uint64_t shnum = get_un(h + (is64 ? 0x3c : 0x30), 2, msb);
	size_t s0len = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);

	if ((shnum == 0 || phnum == PN_XNUM) && shoff != 0) {
		/* Extended numbering: the counts live in section header 0. */
		if (!rd(ctx, shoff, s0, s0len))
			return false;
		if (shnum == 0)
			shnum = is64 ? get_un(s0 + 0x20, 8, msb) : get_un(s0 + 0x14, 4, msb);
		if (phnum == PN_XNUM)
			phnum = get_un(s0 + (is64 ? 0x2c : 0x1c), 4, msb);
	}
	if (shnum > MAX_SHNUM || phnum > MAX_SHNUM)
		return false;
	if (shoff != 0 && !table_fits(shoff, shnum, shentsize, file_size))
		return false;
	return phoff == 0 || table_fits(phoff, phnum, phentsize, file_size);
}

static struct enav_elf *wrap(Elf *elf, uint64_t file_size)
{
	struct enav_elf *e;
	size_t shnum = 0;

	if (!elf)
		return NULL;
	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrnum(elf, &shnum) != 0 || shnum > MAX_SHNUM) {
		elf_end(elf);
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		elf_end(elf);
		return NULL;
	}
	e->elf = elf;
	e->file_size = file_size;
	e->shnum = shnum;
	enav_elf_set_file_cap(e, ENAV_TENANT_MEM_DEFAULT / ENAV_TENANT_MEM_FILE_DIV);
	return e;
}

struct enav_elf *enav_elf_open_fd(int fd)
{
	struct stat st;

	if (!libelf_ready() || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
		return NULL;
	if (!header_sane(read_fd, &fd, (uint64_t)st.st_size))
		return NULL;
	return wrap(elf_begin(fd, ELF_C_READ, NULL), (uint64_t)st.st_size);
}

struct enav_elf *enav_elf_open_mem(const void *buf, size_t len)
{
	struct membuf m = {.p = buf, .len = len};

	if (!buf || !libelf_ready() || !header_sane(read_mem, &m, len))
		return NULL;
	/* libelf takes the buffer as its own mapping: the caller passed a copy. */
	return wrap(elf_memory((char *)(uintptr_t)buf, len), len);
}

void enav_elf_close(struct enav_elf *e)
{
	if (!e)
		return;
	elf_end(e->elf);
	free(e);
}

static bool range_ok(uint64_t off, uint64_t size, uint64_t file_size)
{
	return off <= file_size && size <= file_size - off;
}

/* ---- build id ------------------------------------------------------------------- */

static size_t scan_notes(Elf_Data *d, uint8_t *out, size_t cap)
{
	size_t off = 0;

	if (!d || !d->d_buf)
		return 0;
	while (off < d->d_size) {
		GElf_Nhdr nh;
		size_t name_off, desc_off;
		size_t next = gelf_getnote(d, off, &nh, &name_off, &desc_off);

		if (next == 0 || next <= off)
			break;
		off = next;
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || nh.n_descsz == 0 ||
		    nh.n_descsz > cap)
			continue;
		if (name_off > d->d_size || d->d_size - name_off < 4 || desc_off > d->d_size ||
		    d->d_size - desc_off < nh.n_descsz)
			continue;
		if (memcmp((const char *)d->d_buf + name_off, "GNU", 4) != 0)
			continue;
		memcpy(out, (const char *)d->d_buf + desc_off, nh.n_descsz);
		return nh.n_descsz;
	}
	return 0;
}

size_t enav_elf_build_id(struct enav_elf *e, uint8_t *out, size_t cap)
{
	size_t phnum = 0, n;

	if (cap > ENAV_ELF_BUILD_ID_MAX)
		cap = ENAV_ELF_BUILD_ID_MAX;
	if (elf_getphdrnum(e->elf, &phnum) == 0) {
		if (phnum > MAX_PHNUM)
			phnum = MAX_PHNUM;
		for (size_t i = 0; i < phnum; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_NOTE)
				continue;
			if (ph.p_filesz == 0 || ph.p_filesz > MAX_NOTE_BYTES ||
			    !range_ok(ph.p_offset, ph.p_filesz, e->file_size))
				continue;
			Elf_Data *d =
			    elf_getdata_rawchunk(e->elf, (int64_t)ph.p_offset, (size_t)ph.p_filesz,
						 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			if ((n = scan_notes(d, out, cap)) > 0)
				return n;
		}
	}
	/* Objects without program headers keep their notes in sections. */
	Elf_Scn *scn = NULL;
	for (size_t i = 0; i < e->shnum && (scn = elf_nextscn(e->elf, scn)) != NULL; i++) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		if (sh.sh_size == 0 || sh.sh_size > MAX_NOTE_BYTES ||
		    !range_ok(sh.sh_offset, sh.sh_size, e->file_size))
			continue;
		if ((n = scan_notes(elf_getdata(scn, NULL), out, cap)) > 0)
			return n;
	}
	return 0;
}

/* ---- loading -------------------------------------------------------------------- */

struct loader {
	struct enav_elf *e;
	struct enav_elf_symtab *t;
	size_t names_cap;
	uint32_t syms_cap, max_syms;
	bool debug; /* a separate debug file: its sections are all NOBITS */
};

/* Bytes the table of l keeps with one more symbol of a name of len bytes
 * fit the file's cap; else the file is over it. */
static bool table_fits_cap(struct loader *l, size_t len)
{
	struct enav_elf_symtab *t = l->t;
	uint64_t kept = (uint64_t)t->names_len + (uint64_t)(t->n_syms + 1) * sizeof(*t->syms);

	if (len + 1 > UINT32_MAX - t->names_len || kept + len + 1 > l->e->file_cap) {
		t->over_cap = l->e->over_cap = true;
		return false;
	}
	return true;
}

static bool push_name(struct loader *l, const char *name, size_t len, uint32_t *off)
{
	struct enav_elf_symtab *t = l->t;
	bool cut = len > MAX_NAME_LEN;

	if (cut)
		len = MAX_NAME_LEN;
	if (!table_fits_cap(l, len))
		return false;
	if (t->names_len + len + 1 > l->names_cap) {
		size_t cap = l->names_cap ? l->names_cap : 4096;
		while (cap < t->names_len + len + 1)
			cap *= 2;
		if (cap > l->e->file_cap) /* table_fits_cap: what is kept fits it */
			cap = (size_t)l->e->file_cap;
		char *p = realloc(t->names, cap);
		if (!p)
			return false;
		t->names = p;
		l->names_cap = cap;
	}
	memcpy(t->names + t->names_len, name, len);
	if (cut) /* a reader sees the name was cut, not a shorter real name */
		memcpy(t->names + t->names_len + len - (sizeof(NAME_CUT_MARK) - 1), NAME_CUT_MARK,
		       sizeof(NAME_CUT_MARK) - 1);
	t->names[t->names_len + len] = '\0';
	*off = (uint32_t)t->names_len;
	t->names_len += len + 1;
	return true;
}

static bool push_sym(struct loader *l, const struct enav_elf_sym *s)
{
	struct enav_elf_symtab *t = l->t;

	if (t->n_syms == l->syms_cap) {
		uint32_t cap = l->syms_cap ? l->syms_cap * 2 : 256;
		if (cap > l->max_syms || cap < l->syms_cap)
			cap = l->max_syms;
		struct enav_elf_sym *p = realloc(t->syms, (size_t)cap * sizeof(*p));
		if (!p)
			return false;
		t->syms = p;
		l->syms_cap = cap;
	}
	t->syms[t->n_syms++] = *s;
	return true;
}

/* Before the sort, cover_end holds the preference rank (high 32 bits,
 * larger = preferred) and the file order (low 32 bits). */
static uint64_t pref_key(const GElf_Sym *sym, const char *name, uint32_t seq)
{
	unsigned bind = GELF_ST_BIND(sym->st_info);
	unsigned b = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
	unsigned us = 0;

	while (us < 3 && name[us] == '_')
		us++;
	/* glibc's internal aliases (__GI_x, __EI_x) rank after every other name. */
	if (strncmp(name, "__GI_", 5) == 0 || strncmp(name, "__EI_", 5) == 0)
		us = 3;
	uint64_t rank = (sym->st_size > 0 ? 64u : 0u) + (3u - us) * 16u + b;
	return rank << 32 | seq;
}

static int sym_cmp(const void *a, const void *b)
{
	const struct enav_elf_sym *x = a, *y = b;
	uint64_t rx = x->cover_end >> 32, ry = y->cover_end >> 32;
	uint32_t sx = (uint32_t)x->cover_end, sy = (uint32_t)y->cover_end;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	if (rx != ry)
		return rx > ry ? -1 : 1;
	return sx < sy ? -1 : sx > sy;
}

static void load_segments(struct enav_elf *e, struct enav_elf_symtab *t)
{
	size_t phnum = 0;

	if (elf_getphdrnum(e->elf, &phnum) != 0)
		return;
	if (phnum > MAX_PHNUM)
		phnum = MAX_PHNUM;
	for (size_t i = 0; i < phnum && t->n_segs < ENAV_ELF_MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e->elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_filesz == 0)
			continue;
		if (ph.p_offset + ph.p_filesz < ph.p_offset ||
		    ph.p_vaddr + ph.p_filesz < ph.p_vaddr)
			continue;
		t->segs[t->n_segs++] = (struct enav_elf_seg){
		    .offset = ph.p_offset,
		    .filesz = ph.p_filesz,
		    .vaddr = ph.p_vaddr,
		    .exec = (ph.p_flags & PF_X) != 0,
		};
	}
}

void enav_elf_segments(struct enav_elf *e, struct enav_elf_symtab *t)
{
	t->n_segs = 0;
	load_segments(e, t);
}

static Elf_Scn *find_symtab(struct enav_elf *e, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	for (size_t i = 0; i < e->shnum && (scn = elf_nextscn(e->elf, scn)) != NULL; i++)
		if (gelf_getshdr(scn, sh) && sh->sh_type == type)
			return scn;
	return NULL;
}

/* A section's data after checking its header against the file. */
static Elf_Data *section_data(struct enav_elf *e, Elf_Scn *scn, const GElf_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0 ||
	    !range_ok(sh->sh_offset, sh->sh_size, e->file_size))
		return NULL;
	if (sh->sh_size > e->section_cap) {
		e->over_cap = true;
		return NULL;
	}
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size == 0 || d->d_size > sh->sh_size)
		return NULL;
	return d;
}

/* In a debug file (objcopy --only-keep-debug) the code sections keep their
 * flags but become NOBITS. */
static bool executable_section(struct enav_elf *e, size_t shndx, bool debug)
{
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (shndx == SHN_UNDEF || shndx >= e->shnum || shndx >= SHN_LORESERVE)
		return false;
	scn = elf_getscn(e->elf, shndx);
	return scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) &&
	       (debug || sh.sh_type != SHT_NOBITS);
}

/* Function symbols of the table scn (header sh) into l. */
/* The symbols and names of the symbol table scn (header sh), checked
 * against the file: 0, or -EINVAL. */
static int symbol_table(struct enav_elf *e, Elf_Scn *scn, const GElf_Shdr *sh, Elf_Data **symd,
			Elf_Data **strd, size_t *count)
{
	GElf_Shdr strsh;
	size_t entsize = gelf_fsize(e->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (entsize == 0 || sh->sh_entsize != entsize || sh->sh_link == 0 ||
	    sh->sh_link >= e->shnum)
		return -EINVAL;
	*symd = section_data(e, scn, sh);
	Elf_Scn *strscn = elf_getscn(e->elf, sh->sh_link);
	if (!*symd || !strscn || !gelf_getshdr(strscn, &strsh) || strsh.sh_type != SHT_STRTAB)
		return -EINVAL;
	*strd = section_data(e, strscn, &strsh);
	if (!*strd)
		return -EINVAL;
	*count = (*symd)->d_size / entsize;
	return 0;
}

static int read_symbols(struct enav_elf *e, struct loader *l, Elf_Scn *scn, const GElf_Shdr *shp)
{
	Elf_Data *symd, *strd;
	size_t count;
	if (symbol_table(e, scn, shp, &symd, &strd, &count))
		return -EINVAL;
	const char *strtab = strd->d_buf;
	size_t strsize = strd->d_size;

	for (size_t i = 0; i < count; i++) {
		GElf_Sym sym;

		if (!gelf_getsym(symd, (int)i, &sym))
			break;
		unsigned type = GELF_ST_TYPE(sym.st_info);
		if (sym.st_shndx == SHN_UNDEF || sym.st_value == 0 || sym.st_name == 0 ||
		    sym.st_name >= strsize)
			continue;
		if (type != STT_FUNC && !(type == STT_NOTYPE && sym.st_size > 0 &&
					  executable_section(e, sym.st_shndx, l->debug)))
			continue;
		/* Scan no further than a kept name: every symbol may share one
		 * long string, and scanning it whole for each is a tenant's CPU. */
		const char *name = strtab + sym.st_name;
		size_t room = strsize - sym.st_name,
		       scan = room < MAX_NAME_LEN + 1 ? room : MAX_NAME_LEN + 1;
		const char *nul = memchr(name, '\0', scan);
		if (!nul && scan == MAX_NAME_LEN + 1)
			nul = name + scan; /* longer than kept: push_name cuts it */
		if (!nul || nul == name)
			continue;
		if (sym.st_value + sym.st_size < sym.st_value)
			continue;
		if (l->t->n_syms >= l->max_syms) {
			l->t->truncated = true;
			break;
		}
		struct enav_elf_sym s = {.value = sym.st_value, .size = sym.st_size};
		if (!push_name(l, name, (size_t)(nul - name), &s.name)) {
			l->t->truncated = true;
			break;
		}
		s.cover_end = pref_key(&sym, name, (uint32_t)i);
		if (!push_sym(l, &s))
			return -ENOMEM;
	}
	return 0;
}

/* Rank of a .gopclntab symbol: above every ELF symbol's (pref_key). */
#define RANK_GOPCLNTAB (64u + 3u * 16u + 3u)

/* The functions of a Go binary's .gopclntab into l; 0 or -ENOMEM. */
static int read_gopclntab(struct enav_elf *e, struct loader *l)
{
	struct enav_gopclntab g;
	struct enav_elf_symtab *t = l->t;
	uint32_t before = t->n_syms;

	if (enav_elf_gopclntab(e, e->section_cap, &g) != 0)
		return 0;
	/* Names may be shared or unterminated in a hostile table: the bytes
	 * looked at stay within a few times the section. */
	uint64_t budget = 4 * (uint64_t)g.len + MAX_NAME_LEN;
	for (uint32_t i = 0; i < g.nfunc; i++) {
		struct enav_gopclntab_func f;
		size_t scanned;
		if (!enav_gopclntab_func(&g, i, &f))
			continue;
		const char *name = enav_gopclntab_name(&g, &f, &scanned);
		if (scanned > budget || t->n_syms >= l->max_syms) {
			t->truncated = true;
			break;
		}
		budget -= scanned;
		if (!name)
			continue;
		struct enav_elf_sym s = {.value = f.entry, .size = f.end - f.entry};
		if (!push_name(l, name, scanned, &s.name)) {
			t->truncated = true;
			break;
		}
		s.cover_end = (uint64_t)RANK_GOPCLNTAB << 32 | i;
		if (!push_sym(l, &s))
			return -ENOMEM;
	}
	t->from_gopclntab = t->n_syms > before;
	return 0;
}

static int load_symbols(struct enav_elf *e, struct loader *l)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_symtab(e, SHT_SYMTAB, &sh);

	if (scn && section_data(e, scn, &sh))
		return read_symbols(e, l, scn, &sh);
	int rc = read_gopclntab(e, l);
	if (rc != 0)
		return rc;
	scn = find_symtab(e, SHT_DYNSYM, &sh);
	l->t->from_dynsym = !l->t->from_gopclntab;
	if (!scn)
		return 0; /* no symbols: the segments still translate addresses */
	return read_symbols(e, l, scn, &sh);
}

static void finish_symbols(struct enav_elf_symtab *t)
{
	uint32_t n = 0;
	uint64_t cover = 0;

	if (t->n_syms == 0)
		return;
	qsort(t->syms, t->n_syms, sizeof(*t->syms), sym_cmp);
	for (uint32_t i = 0; i < t->n_syms; i++) {
		if (n > 0 && t->syms[n - 1].value == t->syms[i].value)
			continue; /* the preferred one sorted first */
		t->syms[n++] = t->syms[i];
	}
	t->n_syms = n;
	for (uint32_t i = 0; i < n; i++) {
		struct enav_elf_sym *s = &t->syms[i];
		if (s->size > 0 && s->value + s->size > cover)
			cover = s->value + s->size;
		s->cover_end = cover;
	}
	/* Give back the slack of the growth by doubling: the budget charges
	 * what is kept (enav_elf_symtab_bytes). */
	struct enav_elf_sym *p = realloc(t->syms, (size_t)n * sizeof(*p));
	if (p)
		t->syms = p;
	char *q = t->names_len ? realloc(t->names, t->names_len) : NULL;
	if (q)
		t->names = q;
}

int enav_elf_load(struct enav_elf *e, uint32_t max_syms, struct enav_elf_symtab **out)
{
	struct enav_elf_symtab *t = calloc(1, sizeof(*t));
	struct loader l = {.e = e, .t = t, .max_syms = max_syms};
	uint8_t bid[ENAV_ELF_BUILD_ID_MAX];
	int rc;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	size_t n = enav_elf_build_id(e, bid, sizeof(bid));
	for (size_t i = 0; i < n; i++) {
		static const char hex[] = "0123456789abcdef";
		t->build_id[2 * i] = hex[bid[i] >> 4];
		t->build_id[2 * i + 1] = hex[bid[i] & 15];
	}
	load_segments(e, t);
	rc = max_syms > 0 ? load_symbols(e, &l) : 0;
	if (rc != 0) {
		enav_elf_symtab_free(t);
		return rc;
	}
	finish_symbols(t);
	*out = t;
	return 0;
}

int enav_elf_load_debug(struct enav_elf *dbg, const uint8_t *bid, size_t bid_len, uint32_t max_syms,
			struct enav_elf_symtab *t)
{
	uint8_t dbid[ENAV_ELF_BUILD_ID_MAX];
	GElf_Shdr sh;
	Elf_Scn *scn;

	if (max_syms == 0)
		return 0;
	if (bid_len > 0) {
		size_t n = enav_elf_build_id(dbg, dbid, sizeof(dbid));
		if (n != bid_len || memcmp(dbid, bid, n) != 0)
			return 0; /* the debug file of another build */
	}
	scn = find_symtab(dbg, SHT_SYMTAB, &sh);
	if (!scn || !section_data(dbg, scn, &sh))
		return 0;
	struct enav_elf_symtab *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	struct loader l = {.e = dbg, .t = d, .max_syms = max_syms, .debug = true};
	int rc = read_symbols(dbg, &l, scn, &sh);
	if (rc == 0)
		finish_symbols(d);
	if (rc != 0 || d->n_syms == 0 || d->n_syms < t->n_syms) {
		enav_elf_symtab_free(d);
		return rc == -ENOMEM ? rc : 0;
	}
	free(t->syms);
	free(t->names);
	t->syms = d->syms;
	t->n_syms = d->n_syms;
	t->names = d->names;
	t->names_len = d->names_len;
	t->truncated = d->truncated;
	t->over_cap = d->over_cap;
	t->from_dynsym = false;
	t->from_gopclntab = false;
	t->from_debug = true;
	free(d);
	return 1;
}

/* The section header string table, checked; NULL when there is none or it is malformed. */
static Elf_Data *section_names(struct enav_elf *e)
{
	size_t shstrndx = 0;
	GElf_Shdr strsh;
	Elf_Scn *strscn;

	if (elf_getshdrstrndx(e->elf, &shstrndx) != 0 || shstrndx == SHN_UNDEF ||
	    shstrndx >= e->shnum || !(strscn = elf_getscn(e->elf, shstrndx)) ||
	    !gelf_getshdr(strscn, &strsh) || strsh.sh_type != SHT_STRTAB ||
	    strsh.sh_size > MAX_SHSTR_BYTES)
		return NULL;
	return section_data(e, strscn, &strsh);
}

/* Whether the section of header sh is called want (NUL included in want_size). */
static bool section_named(Elf_Data *names, const GElf_Shdr *sh, const char *want, size_t want_size)
{
	return sh->sh_name < names->d_size && names->d_size - sh->sh_name >= want_size &&
	       memcmp((const char *)names->d_buf + sh->sh_name, want, want_size) == 0;
}

bool enav_elf_debuglink(struct enav_elf *e, char *name, size_t cap, uint32_t *crc)
{
	static const char want[] = ".gnu_debuglink";
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	Elf_Data *strd = section_names(e);

	if (!strd)
		return false;
	for (size_t i = 0; i < e->shnum && (scn = elf_nextscn(e->elf, scn)) != NULL; i++) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !section_named(strd, &sh, want, sizeof(want)))
			continue;
		Elf_Data *d = sh.sh_size <= MAX_DEBUGLINK ? section_data(e, scn, &sh) : NULL;
		if (!d)
			return false;
		/* name, NUL, padding to 4 bytes, CRC32 in the file's byte order */
		const char *p = d->d_buf;
		size_t n = strnlen(p, d->d_size), crc_off = (n + 4) & ~(size_t)3;
		if (n == 0 || n > NAME_MAX || n >= cap || crc_off > d->d_size ||
		    d->d_size - crc_off < 4 || memchr(p, '/', n) || strcmp(p, ".") == 0 ||
		    strcmp(p, "..") == 0)
			return false;
		const char *ident = elf_getident(e->elf, NULL);
		if (!ident)
			return false;
		memcpy(name, p, n);
		name[n] = '\0';
		*crc = (uint32_t)get_un((const unsigned char *)p + crc_off, 4,
					ident[EI_DATA] == ELFDATA2MSB);
		return true;
	}
	return false;
}

int enav_elf_section(struct enav_elf *e, const char *name, size_t max_bytes, const uint8_t **buf,
		     size_t *len, uint64_t *sec_vaddr)
{
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	Elf_Data *strd = section_names(e), *d;
	size_t want_size = strlen(name) + 1;

	*buf = NULL;
	*len = 0;
	*sec_vaddr = 0;
	if (!strd)
		return -EINVAL;
	for (size_t i = 0; i < e->shnum && (scn = elf_nextscn(e->elf, scn)) != NULL; i++) {
		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		if (!section_named(strd, &sh, name, want_size))
			continue;
		/* A debug file keeps the header of a section whose bytes it dropped. */
		if (sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			return -ENOENT;
		*sec_vaddr = sh.sh_addr;
		if (sh.sh_size > max_bytes)
			return -E2BIG;
		if (sh.sh_size > e->section_cap) {
			e->over_cap = true;
			return -E2BIG;
		}
		if (!range_ok(sh.sh_offset, sh.sh_size, e->file_size) ||
		    !(d = section_data(e, scn, &sh)) || d->d_size != sh.sh_size)
			return -EINVAL;
		*buf = d->d_buf;
		*len = d->d_size;
		return 0;
	}
	return -ENOENT;
}

int enav_elf_dynsym_objects(struct enav_elf *e, const char *const *names, size_t n,
			    uint64_t *values)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_symtab(e, SHT_DYNSYM, &sh);
	Elf_Data *symd, *strd;
	size_t count;

	memset(values, 0, n * sizeof(*values));
	if (!scn)
		return -ENOENT;
	if (symbol_table(e, scn, &sh, &symd, &strd, &count))
		return -EINVAL;
	const char *strtab = strd->d_buf;
	size_t strsize = strd->d_size;
	int found = 0;
	for (size_t i = 0; i < count && (size_t)found < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(symd, (int)i, &sym))
			break;
		if (GELF_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_shndx == SHN_UNDEF ||
		    sym.st_value == 0 || sym.st_name == 0 || sym.st_name >= strsize)
			continue;
		/* Compared within the table: a name without its NUL never matches. */
		const char *name = strtab + sym.st_name;
		size_t room = strsize - sym.st_name;
		for (size_t k = 0; k < n; k++) {
			size_t len = strlen(names[k]) + 1;
			if (!values[k] && len <= room && memcmp(name, names[k], len) == 0) {
				values[k] = sym.st_value;
				found++;
				break;
			}
		}
	}
	return found;
}

int enav_elf_gopclntab(struct enav_elf *e, size_t max_bytes, struct enav_gopclntab *g)
{
	const uint8_t *sec, *p;
	size_t len, n;
	uint64_t vaddr, text = 0;
	int rc = enav_elf_section(e, ".gopclntab", max_bytes, &sec, &len, &vaddr);

	/* Position-independent binaries of Go's own linker keep it in relro. */
	if (rc == -ENOENT)
		rc = enav_elf_section(e, ".data.rel.ro.gopclntab", max_bytes, &sec, &len, &vaddr);
	if (rc != 0)
		return rc;
	/* Only .text's address is wanted: refused by size, its bytes stay unread. */
	if (enav_elf_section(e, ".text", 1, &p, &n, &text) != -E2BIG)
		text = 0;
	return enav_gopclntab_open(sec, len, text, g);
}

int enav_elf_eh_frame(struct enav_elf *e, size_t max_bytes, uint8_t **buf, size_t *len,
		      uint64_t *sec_vaddr)
{
	const uint8_t *d;
	int rc = enav_elf_section(e, ".eh_frame", max_bytes, &d, len, sec_vaddr);

	*buf = NULL;
	if (rc != 0) {
		*sec_vaddr = 0;
		return rc;
	}
	*buf = malloc(*len);
	if (!*buf) {
		*len = 0;
		return -ENOMEM;
	}
	memcpy(*buf, d, *len);
	return 0;
}

uint64_t enav_elf_symtab_bytes(const struct enav_elf_symtab *t)
{
	return t ? sizeof(*t) + (uint64_t)t->n_syms * sizeof(*t->syms) + t->names_len : 0;
}

void enav_elf_symtab_free(struct enav_elf_symtab *t)
{
	if (!t)
		return;
	free(t->syms);
	free(t->names);
	free(t);
}
