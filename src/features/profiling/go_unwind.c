/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unwind rows from .gopclntab's pcsp tables (see go_unwind.h).
 *
 * The rule of a Go function on amd64, at a pc where its pcsp value (the
 * bytes the function has taken below the stack pointer at its entry) is d:
 *
 *   CFA = rsp + d + 8; the return address at CFA - 8 (the CALL pushed it);
 *   the caller's rbp at CFA - 16 when d > 0, else rbp is the caller's.
 *
 * Why rbp is at CFA - 16: Go keeps frame pointers and gives every function
 * with a frame (frame size > 0) a slot for the caller's rbp at the top of
 * that frame, right below the return address.  Go 1.19 (Debian 12's),
 * checked with `go tool objdump`, compiles main.main's prologue as
 *
 *   CMPQ 0x10(R14), SP; JBE morestack	   d = 0
 *   SUBQ $0x70, SP			   d = 0x70 from here
 *   MOVQ BP, 0x68(SP)			   saved at SP + framesize - 8 = CFA - 16
 *   LEAQ 0x68(SP), BP
 *
 * and the epilogue as MOVQ 0x68(SP), BP; ADDQ $0x70, SP; RET.  Later
 * releases push instead (Go 1.24, checked with binutils' objdump on
 * kubectl: PUSHQ BP; MOVQ SP, BP; SUBQ $0x18, SP ... ADDQ $0x18, SP; POPQ
 * BP; RET), which puts it at the same place and makes d = 8 right after the
 * push.  The assembler gives
 * hand-written functions with a frame the same prologue.  A function with
 * frame size 0 (a leaf such as a hot loop) saves nothing and leaves rbp
 * alone: d stays 0 and rbp is the caller's.  Two windows are not exact and
 * are left so: in the old prologue the instruction after the SUBQ (d > 0,
 * rbp not saved yet), and hand-written code that pushes other registers in
 * a frameless function (d > 0, the slot holds that register).  Either gives
 * a wrong rbp only; the return address, the CFA and the frames above stay
 * right as long as they are stepped by rule, which Go code is.
 *
 * Special functions, by name (the linker's, without the ".abi0" of
 * assembly functions in .symtab):
 *  - the outermost frames are END rows: runtime.goexit (the return address
 *    every goroutine's first function sees), runtime.rt0_go and
 *    runtime.mstart (a thread's first frames), and the functions that run on
 *    another stack than their caller's, where the pcsp rule would read the
 *    wrong stack: runtime.morestack, runtime.mcall, runtime.systemstack
 *    (where Go's own traceback stops too), and runtime.sigreturn (the
 *    restorer a signal frame returns to; the interrupted frame is in the
 *    signal context, not at the CFA);
 *  - the vDSO clock calls move rsp to the g0 stack (the vDSO may need more
 *    stack than a goroutine has) after saving rbp and pointing it at the
 *    slot, so inside their frame the CFA is rbp + 16: runtime.nanotime1 and
 *    time.now in Go 1.19 (time.Now is a hot path), runtime.walltime (1.17,
 *    1.18) and runtime.walltime1 (1.16).  The kernel walk still ends there
 *    for now: it takes only callers whose frame lies above the current one,
 *    and a goroutine's stack lies below the thread's g0 stack.
 */
#include "features/profiling/go_unwind.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "golang/gopclntab.h"
#include "features/profiling/symbolize_priv.h"

#define GOPCLNTAB_MAX_BYTES SIZE_MAX /* the ELF handle's file cap bounds it */
#define MAX_SP_DELTA	    (1 << 24) /* a frame of 16 MiB: Go's stacks grow to 1 GiB, frames do not */
#define MAX_EMPTY_STEPS	    64	      /* zero-length ranges one function may hold */

static const char *const end_funcs[] = {
    "runtime.goexit", "runtime.rt0_go",	     "runtime.mstart",	  "runtime.morestack",
    "runtime.mcall",  "runtime.systemstack", "runtime.sigreturn", "runtime.sigreturn__sigaction",
};
static const char *const rbp_funcs[] = {"runtime.nanotime1", "runtime.walltime",
					"runtime.walltime1", "time.now"};

enum func_kind { FUNC_PLAIN, FUNC_END, FUNC_RBP };

static bool named(const struct enav_gopclntab *t, const struct enav_gopclntab_func *f,
		  const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (enav_gopclntab_name_is(t, f, names[i]))
			return true;
	return false;
}

static enum func_kind kind_of(const struct enav_gopclntab *t, const struct enav_gopclntab_func *f)
{
	/* Most names are neither the runtime's nor time's: one byte settles them. */
	if (f->nameoff >= t->len - t->names_off)
		return FUNC_PLAIN;
	uint8_t c = t->sec[t->names_off + f->nameoff];
	if (c != 'r' && c != 't')
		return FUNC_PLAIN;
	if (named(t, f, end_funcs, sizeof(end_funcs) / sizeof(end_funcs[0])))
		return FUNC_END;
	if (named(t, f, rbp_funcs, sizeof(rbp_funcs) / sizeof(rbp_funcs[0])))
		return FUNC_RBP;
	return FUNC_PLAIN;
}

struct builder {
	struct enav_eh_table *out;
	uint32_t cap;
};

static bool same_rule(const struct enav_unwind_row *a, const struct enav_unwind_row *b)
{
	return a->cfa_kind == b->cfa_kind && a->cfa_off == b->cfa_off &&
	       a->rbp_saved == b->rbp_saved && a->rbp_off == b->rbp_off;
}

/*
 * Append r, keeping the rows strictly increasing with no rule repeated: a
 * row at the address of the last one replaces it (a function starting where
 * the previous one's end row is).  The caller guarantees r.pc >= the last pc.
 */
static int push(struct builder *b, struct enav_unwind_row r)
{
	struct enav_eh_table *t = b->out;

	if (t->n && t->rows[t->n - 1].pc == r.pc)
		t->n--;
	/* The rule goes on; and nothing precedes the first row. */
	if (t->n ? same_rule(&t->rows[t->n - 1], &r) : r.cfa_kind == ENAV_CFA_UNDEFINED)
		return 0;
	if (t->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 1024;
		struct enav_unwind_row *p = realloc(t->rows, (size_t)cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		t->rows = p;
		b->cap = cap;
	}
	t->rows[t->n++] = r;
	return 0;
}

static struct enav_unwind_row rule(uint64_t pc, enum func_kind k, int32_t d, uint32_t *unsupported)
{
	struct enav_unwind_row r = {.pc = pc, .cfa_kind = ENAV_CFA_UNDEFINED};

	if (d < 0 || d > MAX_SP_DELTA) {
		(*unsupported)++;
		return r;
	}
	r.cfa_kind = ENAV_CFA_RSP;
	r.cfa_off = d + 8;
	if (d > 0) {
		r.rbp_saved = 1;
		r.rbp_off = -16;
		if (k == FUNC_RBP) {
			r.cfa_kind = ENAV_CFA_RBP;
			r.cfa_off = 16;
		}
	}
	return r;
}

/* The rows of one function, and an UNDEFINED one where its rules end (the
 * next function's first row replaces it); *raw counts the rows decoded.  0,
 * -ENOMEM, or 1 when its table is malformed (the rest of it is UNDEFINED). */
static int func_rows(struct builder *b, const struct enav_gopclntab *t,
		     const struct enav_gopclntab_func *f, uint32_t *raw)
{
	struct enav_eh_stats *st = &b->out->stats;
	enum func_kind k = kind_of(t, f);
	struct enav_pcvalue it;
	uint64_t start, end, tail = f->entry;
	int32_t d;
	int rc = 0, bad = 0;
	unsigned empty = 0;

	if (k == FUNC_END) {
		(*raw)++;
		rc = push(b, (struct enav_unwind_row){.pc = f->entry, .cfa_kind = ENAV_CFA_END});
		tail = f->end;
	} else if (!enav_pcvalue_start(t, f->pcsp, f, &it)) {
		st->unsupported_rows++; /* no table: the function stays UNDEFINED */
	} else {
		while (rc == 0 && enav_pcvalue_next(&it, &start, &end, &d)) {
			(*raw)++;
			if (start == end) {
				if (++empty > MAX_EMPTY_STEPS) {
					bad = 1;
					break;
				}
				continue;
			}
			rc = push(b, rule(start, k, d, &st->unsupported_rows));
			tail = end;
		}
		if (it.bad)
			bad = 1;
		/* A whole table's last rule (the stack-growth call after the
		 * body: d = 0) goes on over the alignment padding, which is never
		 * run, and merges with the next function's entry row: two rows
		 * fewer per function.  The rest of a malformed one has no rule. */
		if (!bad)
			tail = f->end;
	}
	if (rc == 0)
		rc = push(b, (struct enav_unwind_row){.pc = tail, .cfa_kind = ENAV_CFA_UNDEFINED});
	return rc ? rc : bad;
}

static int table_rows(const struct enav_gopclntab *t, uint32_t max_rows, struct enav_eh_table *out)
{
	struct builder b = {.out = out};
	uint64_t last_end = 0;
	uint32_t raw = 0;

	for (uint32_t i = 0; i < t->nfunc; i++) {
		struct enav_gopclntab_func f;
		if (!enav_gopclntab_func(t, i, &f) || f.entry < last_end) {
			out->stats.bad_records++; /* broken, or out of order */
			continue;
		}
		/* A function goes in whole or not at all: on overflow, put back
		 * the rows as they were before it. */
		uint32_t n0 = out->n, raw0 = raw, bad0 = out->stats.unsupported_rows;
		struct enav_unwind_row last = n0 ? out->rows[n0 - 1] : (struct enav_unwind_row){0};
		int rc = func_rows(&b, t, &f, &raw);
		if (rc < 0) {
			enav_eh_table_free(out);
			return rc;
		}
		if (raw > max_rows || out->n > max_rows) {
			out->n = n0;
			if (n0)
				out->rows[n0 - 1] = last;
			raw = raw0;
			out->stats.unsupported_rows = bad0;
			out->stats.truncated = 1;
			break;
		}
		out->stats.fdes++;
		out->stats.bad_records += (uint32_t)rc;
		last_end = f.end;
	}
	return 0;
}

int enav_gopclntab_rows(const uint8_t *sec, size_t len, uint64_t text_fallback, uint32_t max_rows,
			struct enav_eh_table *out)
{
	struct enav_gopclntab t;

	memset(out, 0, sizeof(*out));
	int rc = enav_gopclntab_open(sec, len, text_fallback, &t);
	return rc ? rc : table_rows(&t, max_rows, out);
}

int enav_gopclntab_unwind(struct enav_elf *e, uint32_t max_rows, struct enav_eh_table *out)
{
	struct enav_gopclntab t;

	memset(out, 0, sizeof(*out));
	int rc = enav_elf_gopclntab(e, GOPCLNTAB_MAX_BYTES, &t);
	return rc ? rc : table_rows(&t, max_rows, out);
}

/* ---- merging ------------------------------------------------------------------------ */

/* The row of t covering pc, advancing *i (t's rows are sorted); NULL before the first. */
static const struct enav_unwind_row *cover(const struct enav_eh_table *t, uint32_t *i, uint64_t pc)
{
	while (*i + 1 < t->n && t->rows[*i + 1].pc <= pc)
		(*i)++;
	return t->n && t->rows[*i].pc <= pc ? &t->rows[*i] : NULL;
}

int enav_unwind_tables_merge(const struct enav_eh_table *a, const struct enav_eh_table *b,
			     struct enav_eh_table *out)
{
	struct builder bld = {.out = out};
	uint32_t ia = 0, ib = 0, na = 0, nb = 0;

	memset(out, 0, sizeof(*out));
	/* Every address where either table's rule changes, in order. */
	while (na < a->n || nb < b->n) {
		uint64_t pc;
		if (nb == b->n || (na < a->n && a->rows[na].pc <= b->rows[nb].pc))
			pc = a->rows[na].pc;
		else
			pc = b->rows[nb].pc;
		while (na < a->n && a->rows[na].pc <= pc)
			na++;
		while (nb < b->n && b->rows[nb].pc <= pc)
			nb++;
		const struct enav_unwind_row *ra = cover(a, &ia, pc), *rb = cover(b, &ib, pc);
		struct enav_unwind_row r = {.cfa_kind = ENAV_CFA_UNDEFINED};
		if (ra && ra->cfa_kind != ENAV_CFA_UNDEFINED)
			r = *ra;
		else if (rb)
			r = *rb;
		r.pc = pc;
		if (push(&bld, r) != 0) {
			enav_eh_table_free(out);
			return -ENOMEM;
		}
	}
	out->stats.cies = a->stats.cies + b->stats.cies;
	out->stats.fdes = a->stats.fdes + b->stats.fdes;
	out->stats.bad_records = a->stats.bad_records + b->stats.bad_records;
	out->stats.unsupported_rows = a->stats.unsupported_rows + b->stats.unsupported_rows;
	out->stats.truncated = a->stats.truncated | b->stats.truncated;
	return 0;
}
