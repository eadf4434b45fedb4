/* SPDX-License-Identifier: Apache-2.0 */
/*
 * .eh_frame records into the unwind table of eh_frame.h: the walk over the
 * CIEs and FDEs, their fields and pointer encodings, and the table built
 * from the rows the call-frame programs yield (eh_frame_cfa.c runs those).
 *
 * Bounds: every read goes through a cursor limited to its record; a CIE is
 * at most MAX_CIE_BYTES (real ones are a few dozen), so FDEs pointing at the
 * same CIE over and over cannot make the walk quadratic; the raw rows are
 * capped at max_rows, an FDE's rows going in whole or not at all, so a
 * truncated table never stretches an FDE's last rule past its range.
 *
 * Choices where the format leaves room:
 *  - a zero length ends the section (the terminator the linker appends);
 *  - an FDE starting at 0 is skipped: it described code the linker
 *    discarded (the same rule as libgcc's unwinder);
 *  - a malformed program keeps the rows before the bad instruction and
 *    makes the rest of its FDE UNDEFINED;
 *  - where rows of several FDEs share an address, a defined rule beats
 *    UNDEFINED (an FDE starting where the previous one ends), then the
 *    earliest FDE wins: overlapping FDEs are hostile or broken, and the
 *    result only has to be deterministic.
 */
#include "features/profiling/eh_frame_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CIE_BYTES 512u

/* DW_EH_PE_*: the value format in the low nibble, its application above. */
#define PE_ABSPTR   0x00
#define PE_ULEB128  0x01
#define PE_UDATA2   0x02
#define PE_UDATA4   0x03
#define PE_UDATA8   0x04
#define PE_SLEB128  0x09
#define PE_SDATA2   0x0a
#define PE_SDATA4   0x0b
#define PE_SDATA8   0x0c
#define PE_PCREL    0x10
#define PE_ALIGNED  0x50
#define PE_APPL	    0x70
#define PE_INDIRECT 0x80
#define PE_OMIT	    0xff

/* ---- cursor ------------------------------------------------------------------ */

static bool read_le(struct eh_cursor *c, size_t n, uint64_t *v)
{
	if (c->pos > c->end || c->end - c->pos < n)
		return false;
	*v = 0;
	for (size_t i = 0; i < n; i++)
		*v |= (uint64_t)c->sec[c->pos + i] << (8 * i);
	c->pos += n;
	return true;
}

bool enav_eh_u8(struct eh_cursor *c, uint8_t *v)
{
	uint64_t x;

	if (!read_le(c, 1, &x))
		return false;
	*v = (uint8_t)x;
	return true;
}

bool enav_eh_u16(struct eh_cursor *c, uint16_t *v)
{
	uint64_t x;

	if (!read_le(c, 2, &x))
		return false;
	*v = (uint16_t)x;
	return true;
}

bool enav_eh_u32(struct eh_cursor *c, uint32_t *v)
{
	uint64_t x;

	if (!read_le(c, 4, &x))
		return false;
	*v = (uint32_t)x;
	return true;
}

/* LEB128 of at most 10 bytes (64 bits); longer or wider ones are malformed. */
static bool leb(struct eh_cursor *c, uint64_t *v, unsigned *shift)
{
	uint8_t b;

	*v = 0;
	*shift = 0;
	do {
		if (*shift >= 70 || !enav_eh_u8(c, &b))
			return false;
		if (*shift == 63 && (b & 0x7e) != 0 && (b & 0x7f) != 0x7f)
			return false; /* bits beyond 64 that are not a sign extension */
		if (*shift < 64)
			*v |= (uint64_t)(b & 0x7f) << *shift;
		*shift += 7;
	} while (b & 0x80);
	return true;
}

bool enav_eh_uleb(struct eh_cursor *c, uint64_t *v)
{
	unsigned shift;

	return leb(c, v, &shift);
}

bool enav_eh_sleb(struct eh_cursor *c, int64_t *v)
{
	uint64_t u;
	unsigned shift;
	uint8_t last;

	if (!leb(c, &u, &shift))
		return false;
	last = c->sec[c->pos - 1];
	if (shift < 64 && (last & 0x40))
		u |= ~(uint64_t)0 << shift;
	*v = (int64_t)u;
	return true;
}

bool enav_eh_skip(struct eh_cursor *c, uint64_t n)
{
	if (c->pos > c->end || n > c->end - c->pos)
		return false;
	c->pos += (size_t)n;
	return true;
}

bool enav_eh_ptr(struct eh_cursor *c, uint8_t enc, bool allow_indirect, uint64_t *v)
{
	uint64_t field = c->sec_vaddr + c->pos, x;
	int64_t s;
	bool ok;

	if (enc == PE_OMIT || ((enc & PE_INDIRECT) && !allow_indirect))
		return false;
	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		ok = read_le(c, 8, &x);
		break;
	case PE_UDATA2:
		ok = read_le(c, 2, &x);
		break;
	case PE_SDATA2:
		ok = read_le(c, 2, &x);
		x = (uint64_t)(int64_t)(int16_t)x;
		break;
	case PE_UDATA4:
		ok = read_le(c, 4, &x);
		break;
	case PE_SDATA4:
		ok = read_le(c, 4, &x);
		x = (uint64_t)(int64_t)(int32_t)x;
		break;
	case PE_ULEB128:
		ok = enav_eh_uleb(c, &x);
		break;
	case PE_SLEB128:
		ok = enav_eh_sleb(c, &s);
		x = (uint64_t)s;
		break;
	default:
		return false;
	}
	if (!ok)
		return false;
	/* Text-, data-, function-relative and aligned need what the section lacks. */
	if ((enc & PE_APPL) == PE_PCREL)
		x += field;
	else if ((enc & PE_APPL) != 0)
		return false;
	*v = x;
	return true;
}

/* ---- records ----------------------------------------------------------------- */

/*
 * The record at off: 1 with its body (the CIE id / CIE pointer field) and
 * end, 0 for the terminator, -1 when it does not fit the section.
 */
static int record_at(const uint8_t *sec, size_t len, size_t off, size_t *body, size_t *end)
{
	struct eh_cursor c = {.sec = sec, .pos = off, .end = len};
	uint32_t l32;
	uint64_t l;

	if (!enav_eh_u32(&c, &l32))
		return -1;
	if (l32 == 0)
		return 0;
	l = l32;
	if (l32 == 0xffffffff && !read_le(&c, 8, &l)) /* the 64-bit format */
		return -1;
	if (l < 4 || l > c.end - c.pos)
		return -1;
	*body = c.pos;
	*end = c.pos + (size_t)l;
	return 1;
}

/* The encodings an FDE's pc_begin may use (pc_range uses the format alone). */
static bool fde_enc_ok(uint8_t enc)
{
	uint8_t fmt = enc & 0x0f, appl = enc & PE_APPL;

	if (enc == PE_OMIT || (enc & PE_INDIRECT) || (appl != 0 && appl != PE_PCREL))
		return false;
	return fmt <= PE_UDATA8 || (fmt >= PE_SLEB128 && fmt <= PE_SDATA8);
}

/* The augmentation data the CIE's string announces; false when unknown or malformed. */
static bool cie_augmentation(struct eh_cursor *c, const char *aug, struct eh_cie *cie)
{
	uint64_t alen, skipped;
	uint8_t enc;

	if (aug[0] == '\0')
		return true;
	if (aug[0] != 'z') /* "eh" and other pre-'z' forms: no length to skip by */
		return false;
	cie->aug_data = true;
	if (!enav_eh_uleb(c, &alen) || alen > c->end - c->pos)
		return false;
	struct eh_cursor d = *c;
	d.end = c->pos + (size_t)alen;
	for (const char *a = aug + 1; *a; a++) {
		switch (*a) {
		case 'R':
			if (!enav_eh_u8(&d, &cie->fde_enc))
				return false;
			break;
		case 'P':
			/* The personality routine is not ours to call: only its size matters. */
			if (!enav_eh_u8(&d, &enc) || (enc & PE_APPL) == PE_ALIGNED ||
			    !enav_eh_ptr(&d, enc & 0x0f, false, &skipped))
				return false;
			break;
		case 'L':
			if (!enav_eh_u8(&d, &enc))
				return false;
			break;
		case 'S': /* a signal frame: its rules are still plain rules */
			break;
		default:
			return false;
		}
	}
	c->pos = d.end;
	return fde_enc_ok(cie->fde_enc);
}

/* The CIE at off, its fields and initial instructions; false when malformed. */
static bool parse_cie(const uint8_t *sec, size_t len, uint64_t vaddr, size_t off,
		      struct eh_cie *cie)
{
	size_t body, end;
	uint32_t id;
	uint8_t version, ra8;

	memset(cie, 0, sizeof(*cie));
	if (record_at(sec, len, off, &body, &end) != 1 || end - off > MAX_CIE_BYTES)
		return false;
	struct eh_cursor c = {.sec = sec, .pos = body, .end = end, .sec_vaddr = vaddr};
	if (!enav_eh_u32(&c, &id) || id != 0 || !enav_eh_u8(&c, &version) ||
	    (version != 1 && version != 3))
		return false;
	const char *aug = (const char *)sec + c.pos;
	const char *nul = memchr(aug, '\0', c.end - c.pos);
	if (!nul)
		return false;
	c.pos += (size_t)(nul - aug) + 1;
	if (!enav_eh_uleb(&c, &cie->code_align) || cie->code_align == 0 ||
	    !enav_eh_sleb(&c, &cie->data_align))
		return false;
	if (version == 1) {
		if (!enav_eh_u8(&c, &ra8))
			return false;
		cie->ra_reg = ra8;
	} else if (!enav_eh_uleb(&c, &cie->ra_reg)) {
		return false;
	}
	if (!cie_augmentation(&c, aug, cie))
		return false;
	cie->insns = c.pos;
	cie->end = c.end;
	return true;
}

/* ---- building ---------------------------------------------------------------- */

struct raw_row {
	struct enav_unwind_row r;
	uint32_t seq; /* order of emission: FDE order, then address */
	bool unsupported;
};

struct builder {
	const uint8_t *sec;
	size_t len;
	uint64_t vaddr;
	struct raw_row *raw;
	uint32_t n, cap, max, fde_start;
	bool nomem;
	/* The last CIE used: FDEs usually follow theirs, so one entry does. */
	bool cie_cached, cie_ok;
	size_t cie_off;
	struct eh_cie cie;
	struct eh_state cie_state;
	struct enav_eh_stats *stats;
};

static bool same_rule(const struct enav_unwind_row *a, const struct enav_unwind_row *b)
{
	return a->cfa_kind == b->cfa_kind && a->cfa_off == b->cfa_off &&
	       a->rbp_saved == b->rbp_saved && a->rbp_off == b->rbp_off;
}

/* One row of the current FDE; false when the cap is reached or memory ran out. */
static bool push_row(struct builder *b, const struct enav_unwind_row *row, bool unsupported)
{
	if (b->n > b->fde_start) {
		struct raw_row *last = &b->raw[b->n - 1];
		if (last->r.pc == row->pc) {
			/* Later instructions at the same address win. */
			last->r = *row;
			last->unsupported = unsupported;
			if (b->n - 1 > b->fde_start && same_rule(&b->raw[b->n - 2].r, row))
				b->n--;
			return true;
		}
		if (same_rule(&last->r, row)) {
			last->unsupported |= unsupported;
			return true;
		}
	}
	if (b->n == b->max)
		return false;
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 1024;
		if (cap > b->max || cap < b->cap)
			cap = b->max;
		struct raw_row *p = realloc(b->raw, (size_t)cap * sizeof(*p));
		if (!p) {
			b->nomem = true;
			return false;
		}
		b->raw = p;
		b->cap = cap;
	}
	b->raw[b->n] = (struct raw_row){.r = *row, .seq = b->n, .unsupported = unsupported};
	b->n++;
	return true;
}

struct fde_ctx {
	struct builder *b;
	const struct eh_cie *cie;
};

static bool emit_state(void *ctx, uint64_t pc, const struct eh_state *st)
{
	struct fde_ctx *f = ctx;
	struct enav_unwind_row row = {.pc = pc};
	bool unsupported;

	enav_eh_state_row(f->cie, st, &row, &unsupported);
	return push_row(f->b, &row, unsupported);
}

static bool push_undefined(struct builder *b, uint64_t pc)
{
	struct enav_unwind_row row = {.pc = pc, .cfa_kind = ENAV_CFA_UNDEFINED};

	return push_row(b, &row, false);
}

/* The CIE at off with the state its program sets up; false when malformed. */
static bool get_cie(struct builder *b, size_t off)
{
	if (b->cie_cached && b->cie_off == off)
		return b->cie_ok;
	b->cie_cached = true;
	b->cie_off = off;
	b->cie_ok = false;
	if (!parse_cie(b->sec, b->len, b->vaddr, off, &b->cie))
		return false;
	struct eh_prog prog = {
	    .cie = &b->cie,
	    .c = {.sec = b->sec, .pos = b->cie.insns, .end = b->cie.end, .sec_vaddr = b->vaddr},
	};
	uint64_t stop;
	memset(&b->cie_state, 0, sizeof(b->cie_state));
	b->cie_ok = enav_eh_cfa_run(&prog, &b->cie_state, NULL, NULL, &stop) == EH_RUN_OK;
	return b->cie_ok;
}

/* One FDE (its id field at body) into rows; false to stop the walk (cap, memory). */
static bool add_fde(struct builder *b, size_t body, size_t end)
{
	struct eh_cursor c = {.sec = b->sec, .pos = body, .end = end, .sec_vaddr = b->vaddr};
	uint32_t cie_ptr;
	uint64_t begin, range, alen, stop;

	/* The CIE pointer counts back from its own field. */
	if (!enav_eh_u32(&c, &cie_ptr) || cie_ptr > body || !get_cie(b, body - cie_ptr))
		goto bad;
	const struct eh_cie *cie = &b->cie;
	if (!enav_eh_ptr(&c, cie->fde_enc, false, &begin) ||
	    !enav_eh_ptr(&c, cie->fde_enc & 0x0f, false, &range))
		goto bad;
	if (cie->aug_data && (!enav_eh_uleb(&c, &alen) || !enav_eh_skip(&c, alen)))
		goto bad;
	if (begin == 0 || range == 0)
		return true; /* discarded code, or nothing covered */
	if (range > UINT64_MAX - begin)
		goto bad;

	struct eh_state st = b->cie_state;
	struct eh_prog prog = {
	    .cie = cie, .init = &b->cie_state, .c = c, .pc = begin, .end = begin + range};
	struct fde_ctx ctx = {.b = b, .cie = cie};
	b->fde_start = b->n;
	enum eh_run run = enav_eh_cfa_run(&prog, &st, emit_state, &ctx, &stop);
	bool fits = run != EH_RUN_FULL;
	if (run == EH_RUN_BAD) {
		b->stats->bad_records++;
		fits = push_undefined(b, stop);
	}
	if (fits && push_undefined(b, prog.end))
		return true;
	/* All of the FDE or none of it. */
	b->n = b->fde_start;
	if (!b->nomem)
		b->stats->truncated = 1;
	return false;
bad:
	b->stats->bad_records++;
	return true;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct raw_row *a = pa, *b = pb;
	bool ua = a->r.cfa_kind == ENAV_CFA_UNDEFINED, ub = b->r.cfa_kind == ENAV_CFA_UNDEFINED;

	if (a->r.pc != b->r.pc)
		return a->r.pc < b->r.pc ? -1 : 1;
	if (ua != ub)
		return ua ? 1 : -1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Sort, keep one row per address, drop rows that repeat the rule before them. */
static int finish(struct builder *b, struct enav_eh_table *out)
{
	if (b->n == 0)
		return 0;
	qsort(b->raw, b->n, sizeof(*b->raw), row_cmp);
	out->rows = malloc((size_t)b->n * sizeof(*out->rows));
	if (!out->rows)
		return -ENOMEM;
	uint32_t k = 0;
	for (uint32_t i = 0; i < b->n; i++) {
		const struct enav_unwind_row *r = &b->raw[i].r;
		if (b->raw[i].unsupported)
			out->stats.unsupported_rows++;
		/* The first row at an address is the preferred one, even when it is
		 * dropped below for repeating the rule before it. */
		if (i > 0 && b->raw[i - 1].r.pc == r->pc)
			continue;
		if (k > 0 && same_rule(&out->rows[k - 1], r))
			continue;
		out->rows[k++] = *r;
	}
	out->n = k;
	struct enav_unwind_row *p = realloc(out->rows, (size_t)k * sizeof(*p));
	if (p)
		out->rows = p;
	return 0;
}

int enav_eh_frame_build(const uint8_t *sec, size_t len, uint64_t sec_vaddr, uint32_t max_rows,
			struct enav_eh_table *out)
{
	struct builder b = {.sec = sec, .len = len, .vaddr = sec_vaddr, .max = max_rows};
	size_t off = 0, body, end;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	b.stats = &out->stats;
	while (off < len) {
		int r = record_at(sec, len, off, &body, &end);
		if (r == 0)
			break;
		if (r < 0) {
			if (off == 0)
				return -EINVAL;
			out->stats.bad_records++; /* cut short: nothing after it is framed */
			break;
		}
		struct eh_cursor c = {.sec = sec, .pos = body, .end = end};
		uint32_t id;
		(void)enav_eh_u32(&c, &id); /* record_at saw at least 4 bytes of body */
		if (id == 0) {
			out->stats.cies++;
			if (!get_cie(&b, off))
				out->stats.bad_records++;
		} else {
			out->stats.fdes++;
			if (!add_fde(&b, body, end))
				break;
		}
		off = end;
	}
	rc = b.nomem ? -ENOMEM : finish(&b, out);
	free(b.raw);
	if (rc != 0) {
		free(out->rows);
		memset(out, 0, sizeof(*out));
	}
	return rc;
}

void enav_eh_table_free(struct enav_eh_table *t)
{
	if (!t)
		return;
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

const struct enav_unwind_row *enav_eh_table_lookup(const struct enav_eh_table *t, uint64_t pc)
{
	uint32_t lo = 0, hi = t->n;

	/* First row with row.pc > pc; the one before it covers pc. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? NULL : &t->rows[lo - 1];
}
