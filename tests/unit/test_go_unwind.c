/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for Go's function table (src/features/profiling/gopclntab.c)
 * and what is built from it: unwind rows (go_unwind.c), their merge with
 * .eh_frame rows, and symbols of stripped Go binaries (elf_symtab.c).
 *
 * Hand-built tables in the three layouts read (Go 1.16, 1.18, 1.20) give
 * exact rows, caps and hostile cases.  A real program built here with
 * `go build` (Debian's Go; `go` must be installed: scripts/deps.sh test) is
 * checked against `go tool objdump`: the CFA at a function's entry, after
 * its prologue's SUBQ, and where the caller's rbp was saved; its stripped
 * build (-ldflags=-s) is named from .gopclntab.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ci_skip.h"
#include "features/profiling/go_unwind.h"
#include "golang/gopclntab.h"
#include "features/profiling/symbolize_priv.h"
#include "features/profiling/unwind_tables.h"

#define TEXT 0x401000u

/* ---- hand-built tables ------------------------------------------------------- */

struct step {
	int32_t sp;   /* the stack delta */
	uint32_t len; /* bytes it holds for */
};

struct fn {
	const char *name;
	uint32_t off, size; /* from TEXT; size: up to the next function */
	struct step steps[4];
	size_t n;
};

static size_t uvarint(uint8_t *p, uint32_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

static void put(uint8_t *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A .gopclntab of the layout of Go `version` (116, 118, 120) holding fns,
 * into out; its length.  A function with no steps has no pcsp table. */
static size_t build_table(uint8_t *out, size_t cap, unsigned version, const struct fn *fns,
			  size_t n)
{
	size_t nf = version == 116 ? 7 : 8, hdr = 8 + 8 * nf, at = hdr;
	uint32_t nameoff[16], pcsp[16];

	assert_true(n < 16);
	memset(out, 0, cap);
	for (size_t i = 0; i < n; i++) { /* the name table */
		nameoff[i] = (uint32_t)(at - hdr);
		memcpy(out + at, fns[i].name, strlen(fns[i].name) + 1);
		at += strlen(fns[i].name) + 1;
	}
	size_t pctab = at++; /* offset 0 means "no table" */
	for (size_t i = 0; i < n; i++) {
		int32_t prev = -1;
		pcsp[i] = fns[i].n ? (uint32_t)(at - pctab) : 0;
		for (size_t j = 0; j < fns[i].n; j++) {
			int32_t d = fns[i].steps[j].sp - prev;
			at += uvarint(out + at, ((uint32_t)d << 1) ^ (uint32_t)(d >> 31));
			at += uvarint(out + at, fns[i].steps[j].len);
			prev = fns[i].steps[j].sp;
		}
		if (fns[i].n)
			out[at++] = 0;
	}
	size_t ftab = at, ent = version == 116 ? 16 : 8, rec = ftab + (n + 1) * ent;
	for (size_t i = 0; i <= n; i++) {
		uint32_t off = i < n ? fns[i].off : fns[n - 1].off + fns[n - 1].size;
		size_t r = rec + i * 48 - ftab;
		if (version == 116) {
			put(out + ftab + i * ent, TEXT + off, 8);
			put(out + ftab + i * ent + 8, i < n ? r : 0, 8);
		} else {
			put(out + ftab + i * ent, off, 4);
			put(out + ftab + i * ent + 4, i < n ? r : 0, 4);
		}
		if (i == n)
			break;
		uint8_t *f = out + ftab + r;
		size_t ew = version == 116 ? 8 : 4;
		put(f, version == 116 ? TEXT + off : off, ew);
		put(f + ew, nameoff[i], 4);
		put(f + ew + 12, pcsp[i], 4);
	}
	at = rec + n * 48;
	assert_true(at <= cap);
	put(out, version == 116 ? 0xfffffffa : version == 118 ? 0xfffffff0 : 0xfffffff1, 4);
	out[6] = 1;
	out[7] = 8;
	uint64_t fields[8] = {n, 0, TEXT, hdr, pctab, pctab, pctab, ftab};
	for (size_t i = 0, k = 0; i < 8; i++) {
		if (version == 116 && i == 2)
			continue; /* no text start before 1.18 */
		put(out + 8 + 8 * k++, fields[i], 8);
	}
	return at;
}

static const struct fn k_fns[] = {
    {"main.leaf", 0x00, 0x20, {{0, 0x19}}, 1}, /* frameless; padding after */
    {"main.f", 0x20, 0x40, {{0, 0xa}, {0x70, 0x26}, {0, 0x5}}, 3},
    {"runtime.goexit", 0x60, 0x08, {{0, 0x8}}, 1},
    {"runtime.nanotime1", 0x68, 0x18, {{0, 0x4}, {0x18, 0x14}}, 2},
    {"main.neg", 0x80, 0x10, {{-8, 0x10}}, 1},
};
#define N_FNS (sizeof(k_fns) / sizeof(k_fns[0]))

struct want {
	uint32_t off;
	uint8_t kind;
	int32_t cfa;
	uint8_t saved;
};

static void expect_rows(const struct enav_eh_table *t, const struct want *w, size_t n)
{
	for (size_t i = 0; i < n && i < t->n; i++) {
		const struct enav_unwind_row *r = &t->rows[i];
		if (r->pc != TEXT + w[i].off || r->cfa_kind != w[i].kind ||
		    r->cfa_off != w[i].cfa || r->rbp_saved != w[i].saved ||
		    r->rbp_off != (w[i].saved ? -16 : 0))
			fail_msg("row %zu: pc %#" PRIx64
				 " kind %u cfa %d rbp %u/%d; want +%#x %u %d %u",
				 i, r->pc, r->cfa_kind, r->cfa_off, r->rbp_saved, r->rbp_off,
				 w[i].off, w[i].kind, w[i].cfa, w[i].saved);
	}
	assert_int_equal(t->n, n);
}

static const struct want k_rows[] = {
    /* main.leaf, its rule going on over its padding into main.f's entry */
    {0x00, ENAV_CFA_RSP, 8, 0},	      {0x2a, ENAV_CFA_RSP, 0x78, 1}, /* after SUBQ $0x70, SP */
    {0x50, ENAV_CFA_RSP, 8, 0}, /* the epilogue's ADDQ, then padding */
    {0x60, ENAV_CFA_END, 0, 0},	      {0x68, ENAV_CFA_RSP, 8, 0},
    {0x6c, ENAV_CFA_RBP, 16, 1},      /* nanotime1 moves rsp: rbp-based */
    {0x80, ENAV_CFA_UNDEFINED, 0, 0}, /* a negative delta: no rule */
};

static void test_rows_layouts(void **state)
{
	(void)state;
	static uint8_t sec[4096];
	unsigned versions[] = {116, 118, 120};

	for (size_t v = 0; v < 3; v++) {
		size_t len = build_table(sec, sizeof(sec), versions[v], k_fns, N_FNS);
		struct enav_eh_table t;
		struct enav_gopclntab g;

		assert_int_equal(enav_gopclntab_open(sec, len, 0, &g), 0);
		assert_int_equal(g.version, versions[v]);
		assert_int_equal(g.nfunc, N_FNS);
		assert_true(enav_gopclntab_has_func(&g, "runtime.nanotime1"));
		assert_false(enav_gopclntab_has_func(&g, "runtime.nanotime"));
		assert_false(enav_gopclntab_has_func(&g, "main.leaf.x"));
		assert_int_equal(enav_gopclntab_rows(sec, len, 0, 1000, &t), 0);
		expect_rows(&t, k_rows, sizeof(k_rows) / sizeof(k_rows[0]));
		assert_int_equal(t.stats.fdes, N_FNS);
		assert_int_equal(t.stats.unsupported_rows, 1);
		assert_int_equal(t.stats.bad_records, 0);
		assert_int_equal(t.stats.truncated, 0);
		/* The kernel format holds every one of them. */
		struct enav_unwind_entry enc[16];
		assert_int_equal(enav_unwind_encode(&t, enc, 16), t.n);
		enav_eh_table_free(&t);
	}
}

/* Functions go in whole: a cap in the middle of one stops before it. */
static void test_rows_cap(void **state)
{
	(void)state;
	static uint8_t sec[4096];
	size_t len = build_table(sec, sizeof(sec), 118, k_fns, N_FNS);
	struct enav_eh_table t;

	/* main.leaf decodes 1 row, main.f 3: a cap of 3 keeps main.leaf only,
	 * its rule ending where main.f would have started. */
	static const struct want leaf[] = {{0x00, ENAV_CFA_RSP, 8, 0},
					   {0x20, ENAV_CFA_UNDEFINED, 0, 0}};
	assert_int_equal(enav_gopclntab_rows(sec, len, 0, 3, &t), 0);
	assert_int_equal(t.stats.truncated, 1);
	assert_int_equal(t.stats.fdes, 1);
	expect_rows(&t, leaf, 2);
	enav_eh_table_free(&t);
	/* 4: main.f fits (4 decoded, 4 kept), runtime.goexit does not. */
	static const struct want two[] = {{0x00, ENAV_CFA_RSP, 8, 0},
					  {0x2a, ENAV_CFA_RSP, 0x78, 1},
					  {0x50, ENAV_CFA_RSP, 8, 0},
					  {0x60, ENAV_CFA_UNDEFINED, 0, 0}};
	assert_int_equal(enav_gopclntab_rows(sec, len, 0, 4, &t), 0);
	assert_int_equal(t.stats.fdes, 2);
	expect_rows(&t, two, 4);
	enav_eh_table_free(&t);
	/* The kept rows count too: main.leaf decodes 1 and keeps 2. */
	assert_int_equal(enav_gopclntab_rows(sec, len, 0, 1, &t), 0);
	assert_int_equal(t.stats.fdes, 0);
	assert_int_equal(t.n, 0);
	enav_eh_table_free(&t);
	assert_int_equal(enav_gopclntab_rows(sec, len, 0, 0, &t), 0);
	assert_int_equal(t.n, 0);
	assert_int_equal(t.stats.truncated, 1);
	enav_eh_table_free(&t);
}

static void test_rows_hostile(void **state)
{
	(void)state;
	static uint8_t sec[4096], cut[4096];
	size_t len = build_table(sec, sizeof(sec), 118, k_fns, N_FNS);
	struct enav_eh_table t;
	struct enav_gopclntab g;

	/* Not a table: unknown magic, pad bytes, quantum, pointer size, nfunc
	 * past the section, a region past its end. */
	static const struct {
		size_t at;
		uint8_t v;
	} pokes[] = {{0, 0xfb}, {4, 1}, {6, 3}, {7, 2}, {15, 1}, {8 + 7 * 8 + 3, 0x10}};
	for (size_t i = 0; i < sizeof(pokes) / sizeof(pokes[0]); i++) {
		memcpy(cut, sec, len);
		cut[pokes[i].at] = pokes[i].v;
		assert_int_equal(enav_gopclntab_rows(cut, len, 0, 100, &t), -EINVAL);
		assert_null(t.rows);
	}
	assert_int_equal(enav_gopclntab_open(NULL, 0, 0, &g), -EINVAL);
	/* Every prefix: refused or read within bounds (ASan checks the reads). */
	for (size_t n = 0; n < len; n++) {
		uint8_t *p = malloc(n ? n : 1);
		memcpy(p, sec, n);
		int rc = enav_gopclntab_rows(p, n, 0, 100, &t);
		assert_true(rc == 0 || rc == -EINVAL);
		enav_eh_table_free(&t);
		free(p);
	}
	/* A record disagreeing with the function table is skipped and counted. */
	len = build_table(sec, sizeof(sec), 118, k_fns, N_FNS);
	size_t ftab = (size_t)sec[8 + 7 * 8] | (size_t)sec[8 + 7 * 8 + 1] << 8;
	size_t rec0 = ftab + sec[ftab + 4];
	sec[rec0] ^= 1;
	assert_int_equal(enav_gopclntab_rows(sec, len, 0, 100, &t), 0);
	assert_int_equal(t.stats.bad_records, 1);
	assert_int_equal(t.stats.fdes, N_FNS - 1);
	assert_null(enav_eh_table_lookup(&t, TEXT)); /* main.leaf has no rows */
	enav_eh_table_free(&t);
	/* Functions out of order: main.f ends before it starts, goexit starts
	 * inside main.leaf. */
	struct fn bad[N_FNS];
	memcpy(bad, k_fns, sizeof(bad));
	bad[2].off = 0x10;
	len = build_table(sec, sizeof(sec), 118, bad, N_FNS);
	assert_int_equal(enav_gopclntab_rows(sec, len, 0, 100, &t), 0);
	assert_int_equal(t.stats.bad_records, 2);
	assert_int_equal(t.stats.fdes, N_FNS - 2);
	for (uint32_t i = 1; i < t.n; i++)
		assert_true(t.rows[i - 1].pc < t.rows[i].pc);
	enav_eh_table_free(&t);
	/* No pcsp table: the function has no rule. */
	memcpy(bad, k_fns, sizeof(bad));
	bad[1].n = 0;
	len = build_table(sec, sizeof(sec), 120, bad, N_FNS);
	assert_int_equal(enav_gopclntab_rows(sec, len, 0, 100, &t), 0);
	assert_int_equal(t.stats.unsupported_rows, 2);
	const struct enav_unwind_row *r = enav_eh_table_lookup(&t, TEXT + 0x30);
	assert_non_null(r);
	assert_int_equal(r->cfa_kind, ENAV_CFA_UNDEFINED);
	enav_eh_table_free(&t);
	/* A varint that never ends: the rows before it stay, the rest of the
	 * function has no rule. */
	static const struct fn runaway[] = {
	    {"a", 0, 0x40, {{0, 4}, {0x10, 4}, {0x20, 4}, {0x30, 4}}, 4}};
	len = build_table(sec, sizeof(sec), 118, runaway, 1);
	size_t hdr = 8 + 8 * 8, pcsp = hdr + 2 + 1;
	memset(sec + pcsp + 2, 0xff, 6); /* from the second step on, before the end */
	assert_int_equal(enav_gopclntab_rows(sec, len, 0, 100, &t), 0);
	assert_int_equal(t.stats.bad_records, 1);
	static const struct want runaway_rows[] = {{0, ENAV_CFA_RSP, 8, 0},
						   {4, ENAV_CFA_UNDEFINED, 0, 0}};
	expect_rows(&t, runaway_rows, 2);
	enav_eh_table_free(&t);
}

/* A PIE's header may hold no text start: the caller's (.text) is used. */
static void test_text_fallback(void **state)
{
	(void)state;
	static uint8_t sec[4096];
	size_t len = build_table(sec, sizeof(sec), 118, k_fns, N_FNS);
	struct enav_gopclntab g;
	struct enav_gopclntab_func f;

	put(sec + 8 + 16, 0, 8);
	assert_int_equal(enav_gopclntab_open(sec, len, 0x7000, &g), 0);
	assert_true(enav_gopclntab_func(&g, 1, &f));
	assert_int_equal(f.entry, 0x7020);
	assert_int_equal(f.end, 0x7060);
	size_t scanned;
	assert_string_equal(enav_gopclntab_name(&g, &f, &scanned), "main.f");
	assert_int_equal(scanned, 6);
	assert_false(enav_gopclntab_func(&g, N_FNS, &f));
}

/* ---- merging with .eh_frame rows ---------------------------------------------- */

static struct enav_unwind_row mk(uint64_t pc, uint8_t kind, int32_t cfa)
{
	return (struct enav_unwind_row){.pc = pc, .cfa_kind = kind, .cfa_off = cfa};
}

static void test_merge(void **state)
{
	(void)state;
	/* C code (an FDE at 0x100..0x140 and one at 0x300..0x310) around Go
	 * code at 0x140..0x300; the Go table also ends at 0x300. */
	struct enav_unwind_row eh[] = {mk(0x100, ENAV_CFA_RSP, 8), mk(0x104, ENAV_CFA_RBP, 16),
				       mk(0x140, ENAV_CFA_UNDEFINED, 0), mk(0x300, ENAV_CFA_RSP, 8),
				       mk(0x310, ENAV_CFA_UNDEFINED, 0)};
	struct enav_unwind_row go[] = {mk(0x140, ENAV_CFA_RSP, 8), mk(0x150, ENAV_CFA_RSP, 40),
				       mk(0x200, ENAV_CFA_END, 0),
				       mk(0x300, ENAV_CFA_UNDEFINED, 0)};
	struct enav_eh_table a = {.rows = eh, .n = 5, .stats = {.fdes = 2}};
	struct enav_eh_table b = {.rows = go, .n = 4, .stats = {.fdes = 3, .truncated = 0}};
	struct enav_eh_table m;
	struct enav_unwind_row want[] = {
	    mk(0x100, ENAV_CFA_RSP, 8),	     mk(0x104, ENAV_CFA_RBP, 16),
	    mk(0x140, ENAV_CFA_RSP, 8),	     mk(0x150, ENAV_CFA_RSP, 40),
	    mk(0x200, ENAV_CFA_END, 0),	     mk(0x300, ENAV_CFA_RSP, 8),
	    mk(0x310, ENAV_CFA_UNDEFINED, 0)};

	assert_int_equal(enav_unwind_tables_merge(&a, &b, &m), 0);
	assert_int_equal(m.n, 7);
	assert_memory_equal(m.rows, want, sizeof(want));
	assert_int_equal(m.stats.fdes, 5);
	enav_eh_table_free(&m);
	/* The other way round: the same where they do not overlap. */
	assert_int_equal(enav_unwind_tables_merge(&b, &a, &m), 0);
	assert_memory_equal(m.rows, want, sizeof(want));
	enav_eh_table_free(&m);
	/* Where both define a rule, the first table's wins. */
	eh[2] = mk(0x140, ENAV_CFA_RSP, 24);
	assert_int_equal(enav_unwind_tables_merge(&a, &b, &m), 0);
	assert_int_equal(enav_eh_table_lookup(&m, 0x160)->cfa_off, 24);
	enav_eh_table_free(&m);
	/* Empty tables. */
	struct enav_eh_table none = {0};
	assert_int_equal(enav_unwind_tables_merge(&none, &b, &m), 0);
	assert_int_equal(m.n, 4);
	enav_eh_table_free(&m);
	assert_int_equal(enav_unwind_tables_merge(&none, &none, &m), 0);
	assert_int_equal(m.n, 0);
}

/* ---- names of a stripped binary --------------------------------------------------- */

/* An ELF with sections .gopclntab, .text and .shstrtab only (no .symtab). */
static size_t build_elf(uint8_t *out, size_t cap, const uint8_t *tab, size_t tab_len)
{
	static const char shstr[] = "\0.gopclntab\0.text\0.shstrtab";
	size_t at = 64, tab_at = at, text_at, str_at, sh_at;

	memset(out, 0, cap);
	memcpy(out + at, tab, tab_len);
	at += tab_len;
	text_at = at;
	at += 0x100;
	str_at = at;
	memcpy(out + at, shstr, sizeof(shstr));
	at = (at + sizeof(shstr) + 7) & ~(size_t)7;
	sh_at = at;
	assert_true(sh_at + 4 * 64 <= cap);
	memcpy(out, "\177ELF\2\1\1", 7);
	put(out + 16, 2, 2);	 /* ET_EXEC */
	put(out + 18, 62, 2);	 /* EM_X86_64 */
	put(out + 20, 1, 4);	 /* EV_CURRENT */
	put(out + 40, sh_at, 8); /* e_shoff */
	put(out + 52, 64, 2);	 /* e_ehsize */
	put(out + 58, 64, 2);	 /* e_shentsize */
	put(out + 60, 4, 2);	 /* e_shnum */
	put(out + 62, 3, 2);	 /* e_shstrndx */
	/* name, type, flags, addr, offset, size */
	const uint64_t sh[3][6] = {{1, 1, 2, 0x4c0000, tab_at, tab_len},
				   {12, 1, 6, TEXT, text_at, 0x100},
				   {18, 3, 0, 0, str_at, sizeof(shstr)}};
	for (size_t i = 0; i < 3; i++) {
		uint8_t *s = out + sh_at + 64 * (i + 1);
		put(s, sh[i][0], 4);
		put(s + 4, sh[i][1], 4);
		put(s + 8, sh[i][2], 8);
		put(s + 16, sh[i][3], 8);
		put(s + 24, sh[i][4], 8);
		put(s + 32, sh[i][5], 8);
		put(s + 48, 1, 8);
	}
	return sh_at + 4 * 64;
}

static void test_symbols_from_gopclntab(void **state)
{
	(void)state;
	static uint8_t tab[4096], elf[8192];
	size_t len = build_table(tab, sizeof(tab), 118, k_fns, N_FNS);
	size_t elf_len = build_elf(elf, sizeof(elf), tab, len);
	uint8_t *copy = malloc(elf_len);
	memcpy(copy, elf, elf_len);
	struct enav_elf *e = enav_elf_open_mem(copy, elf_len);
	struct enav_elf_symtab *t;
	struct enav_eh_table rows;
	uint64_t off;

	assert_non_null(e);
	assert_int_equal(enav_elf_load(e, 100, &t), 0);
	assert_true(t->from_gopclntab);
	assert_false(t->from_dynsym);
	assert_int_equal(t->n_syms, N_FNS);
	assert_string_equal(enav_elf_lookup(t, TEXT + 0x2a, &off), "main.f");
	assert_int_equal(off, 0xa);
	/* Its size runs to the next entry (the padding included). */
	assert_string_equal(enav_elf_lookup(t, TEXT + 0x1f, &off), "main.leaf");
	assert_null(enav_elf_lookup(t, TEXT + 0x90, &off));
	enav_elf_symtab_free(t);
	/* The cap. */
	assert_int_equal(enav_elf_load(e, 2, &t), 0);
	assert_int_equal(t->n_syms, 2);
	assert_true(t->truncated);
	enav_elf_symtab_free(t);
	assert_int_equal(enav_gopclntab_unwind(e, 100, &rows), 0);
	expect_rows(&rows, k_rows, sizeof(k_rows) / sizeof(k_rows[0]));
	enav_eh_table_free(&rows);
	enav_elf_close(e);
	free(copy);
}

/* ---- a real Go binary ------------------------------------------------------------- */

static char g_tmp[PATH_MAX];

static const char k_main_go[] =
    "package main\n\nimport \"fmt\"\n\nvar sink int\n\n"
    "//go:noinline\nfunc leaf(n int) int {\n"
    "\tx := 0\n\tfor i := 0; i < n; i++ {\n\t\tx += i\n\t}\n\treturn x\n}\n\n"
    "func main() {\n\tsink = leaf(10)\n\tfmt.Println(sink)\n}\n";

static int rm_entry(const char *p, const struct stat *s, int flag, struct FTW *f)
{
	(void)s, (void)flag, (void)f;
	return remove(p);
}

static int teardown(void **state)
{
	(void)state;
	if (g_tmp[0])
		nftw(g_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

/* Builds prog (and prog.s, stripped) in g_tmp; false when go is missing. */
static bool build_go(void)
{
	char cmd[4 * PATH_MAX];

	if (system("command -v go >/dev/null 2>&1") != 0)
		return false;
	snprintf(g_tmp, sizeof(g_tmp), "/tmp/enav-test-gounwind-XXXXXX");
	assert_non_null(mkdtemp(g_tmp));
	snprintf(cmd, sizeof(cmd), "%s/main.go", g_tmp);
	FILE *f = fopen(cmd, "w");
	assert_non_null(f);
	fputs(k_main_go, f);
	fclose(f);
	/* Offline and away from the user's caches. */
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && export HOME='%s' GOCACHE='%s/cache' GOPATH='%s/gopath' GOPROXY=off "
		 "GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local CGO_ENABLED=0 && go build -o prog "
		 "main.go && go build -ldflags=-s -o prog.s main.go && go tool objdump -s "
		 "'^main\\.(main|leaf)$' prog >objdump.txt",
		 g_tmp, g_tmp, g_tmp, g_tmp);
	assert_int_equal(system(cmd), 0);
	return true;
}

struct func_dump {
	uint64_t entry, after_sub, end; /* end: after its last instruction */
	uint32_t frame, bp_slot;	/* SUBQ's immediate; MOVQ BP, x(SP)'s x */
	bool seen;
};

/* main.main and main.leaf from `go tool objdump` (lines: file:line addr
 * bytes instruction). */
static void read_objdump(struct func_dump *mainf, struct func_dump *leaf)
{
	char path[PATH_MAX + 32], line[512];
	struct func_dump *cur = NULL;

	snprintf(path, sizeof(path), "%s/objdump.txt", g_tmp);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char pos[256], hex[64], insn[256];
		uint64_t addr;
		unsigned x;
		if (strncmp(line, "TEXT ", 5) == 0) {
			cur = strstr(line, "main.main(")   ? mainf
			      : strstr(line, "main.leaf(") ? leaf
							   : NULL;
			continue;
		}
		if (!cur ||
		    sscanf(line, " %255s %" SCNx64 " %63s %255[^\n]", pos, &addr, hex, insn) != 4)
			continue;
		if (!cur->seen)
			cur->entry = addr, cur->seen = true;
		cur->end = addr + strlen(hex) / 2;
		if (sscanf(insn, "SUBQ $0x%x, SP", &x) == 1 && !cur->frame)
			cur->frame = x, cur->after_sub = cur->end;
		if (sscanf(insn, "MOVQ BP, 0x%x(SP)", &x) == 1 && !cur->bp_slot)
			cur->bp_slot = x;
	}
	fclose(f);
}

static void test_real_binary(void **state)
{
	(void)state;
	if (!build_go())
		skip_unless_ci("`go` is not installed (scripts/deps.sh test)\n");
	struct func_dump mainf = {0}, leaf = {0};
	read_objdump(&mainf, &leaf);
	assert_true(mainf.seen && leaf.seen);
	/* Go 1.19's prologue: SUBQ $n, SP; MOVQ BP, n-8(SP): rbp at CFA - 16. */
	assert_true(mainf.frame > 0);
	assert_int_equal(mainf.bp_slot, mainf.frame - 8);
	assert_int_equal(leaf.frame, 0);

	const char *names[] = {"prog", "prog.s"};
	for (int i = 0; i < 2; i++) {
		char path[PATH_MAX + 32];
		snprintf(path, sizeof(path), "%s/%s", g_tmp, names[i]);
		int fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		struct enav_elf *e = enav_elf_open_fd(fd);
		struct enav_eh_table t;
		assert_non_null(e);
		assert_int_equal(enav_gopclntab_unwind(e, 1u << 20, &t), 0);
		assert_true(t.n > 1000 && !t.stats.truncated && t.stats.bad_records == 0);
		print_message("%s: %u rows of %u functions; main.main at %#" PRIx64
			      ", frame %#x, rbp saved at %#x(SP); main.leaf frameless\n",
			      names[i], t.n, t.stats.fdes, mainf.entry, mainf.frame, mainf.bp_slot);
		const struct enav_unwind_row *r = enav_eh_table_lookup(&t, mainf.entry);
		assert_int_equal(r->cfa_kind, ENAV_CFA_RSP);
		assert_int_equal(r->cfa_off, 8);
		assert_false(r->rbp_saved);
		r = enav_eh_table_lookup(&t, mainf.after_sub);
		assert_int_equal(r->cfa_kind, ENAV_CFA_RSP);
		assert_int_equal(r->cfa_off, mainf.frame + 8);
		assert_true(r->rbp_saved);
		/* The slot the prologue wrote, relative to the CFA. */
		assert_int_equal(r->rbp_off, (int32_t)mainf.bp_slot - (int32_t)(mainf.frame + 8));
		/* The leaf: CFA = rsp + 8 throughout, rbp untouched. */
		for (uint64_t pc = leaf.entry; pc < leaf.end; pc++) {
			r = enav_eh_table_lookup(&t, pc);
			assert_true(r->cfa_kind == ENAV_CFA_RSP && r->cfa_off == 8 &&
				    !r->rbp_saved);
		}
		enav_eh_table_free(&t);

		struct enav_elf_symtab *s;
		uint64_t off;
		assert_int_equal(enav_elf_load(e, 1u << 20, &s), 0);
		assert_int_equal(s->from_gopclntab, i == 1); /* .symtab first when present */
		assert_string_equal(enav_elf_lookup(s, mainf.after_sub, &off), "main.main");
		assert_int_equal(off, mainf.after_sub - mainf.entry);
		assert_string_equal(enav_elf_lookup(s, leaf.entry + 1, &off), "main.leaf");
		enav_elf_symtab_free(s);
		enav_elf_close(e);
		close(fd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows_layouts), cmocka_unit_test(test_rows_cap),
	    cmocka_unit_test(test_rows_hostile), cmocka_unit_test(test_text_fallback),
	    cmocka_unit_test(test_merge),	 cmocka_unit_test(test_symbols_from_gopclntab),
	    cmocka_unit_test(test_real_binary),
	};

	return cmocka_run_group_tests_name("go_unwind", tests, NULL, teardown);
}
