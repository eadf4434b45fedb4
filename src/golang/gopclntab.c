/* SPDX-License-Identifier: Apache-2.0 */
/*
 * .gopclntab, the Go runtime's function table (see gopclntab.h).
 *
 * The section starts with a header (magic, two zero bytes, the instruction
 * quantum, the pointer size, then pointer-sized fields): the function count,
 * the file count, the text start (1.18+ only), and the offsets, from the
 * header, of the function name table, the compilation-unit table, the file
 * table, the pc-value tables and the function table.  The function table
 * holds nfunc + 1 pairs (entry, offset of the function's record from the
 * function table); the last entry is the end of the last function.  In the
 * record, the name is an offset into the name table and the pcsp table an
 * offset into the pc-value tables.
 */
#include "golang/gopclntab.h"

#include <errno.h>
#include <string.h>

#define MAGIC_116 0xfffffffau
#define MAGIC_118 0xfffffff0u
#define MAGIC_120 0xfffffff1u

static uint64_t le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* The n-byte little-endian value at off, when it lies inside the section. */
static bool get(const struct enav_gopclntab *t, size_t off, size_t n, uint64_t *v)
{
	if (off > t->len || t->len - off < n)
		return false;
	*v = le(t->sec + off, n);
	return true;
}

/* Header field i (0 = nfunc) of pointer size. */
static bool field(const struct enav_gopclntab *t, unsigned i, uint64_t *v)
{
	return get(t, 8 + (size_t)i * t->ptrsize, t->ptrsize, v);
}

/* A region offset from the header: inside the section. */
static bool region(const struct enav_gopclntab *t, unsigned i, size_t *off)
{
	uint64_t v;

	if (!field(t, i, &v) || v > t->len)
		return false;
	*off = (size_t)v;
	return true;
}

/* Bytes of one function-table entry and of the part of a record read. */
static size_t ftab_entry(const struct enav_gopclntab *t)
{
	return t->version == 116 ? 2u * t->ptrsize : 8u;
}

int enav_gopclntab_open(const uint8_t *sec, size_t len, uint64_t text_fallback,
			struct enav_gopclntab *t)
{
	uint64_t magic, nfunc, text = 0;

	memset(t, 0, sizeof(*t));
	t->sec = sec;
	t->len = len;
	if (!sec || !get(t, 0, 4, &magic) || len < 8 || sec[4] != 0 || sec[5] != 0)
		return -EINVAL;
	t->quantum = sec[6];
	t->ptrsize = sec[7];
	if ((t->quantum != 1 && t->quantum != 2 && t->quantum != 4) ||
	    (t->ptrsize != 4 && t->ptrsize != 8))
		return -EINVAL;
	/* Field indexes after nfunc and nfiles: 1.18 put the text start first. */
	unsigned names = 2;
	if (magic == MAGIC_116) {
		t->version = 116;
	} else if (magic == MAGIC_118 || magic == MAGIC_120) {
		t->version = magic == MAGIC_118 ? 118 : 120;
		if (!field(t, 2, &text))
			return -EINVAL;
		t->text_start = text ? text : text_fallback;
		names = 3;
	} else {
		return -EINVAL;
	}
	if (!field(t, 0, &nfunc) || !region(t, names, &t->names_off) ||
	    !region(t, names + 3, &t->pctab_off) || !region(t, names + 4, &t->func_off))
		return -EINVAL;
	/* nfunc + 1 entries must fit: this also bounds nfunc by the section. */
	size_t room = (t->len - t->func_off) / ftab_entry(t);
	if (nfunc >= room || nfunc > UINT32_MAX - 1)
		return -EINVAL;
	t->nfunc = (uint32_t)nfunc;
	return 0;
}

/* Entry i of the function table: its pc and its record's offset. */
static bool ftab(const struct enav_gopclntab *t, uint32_t i, uint64_t *pc, uint64_t *rec)
{
	size_t at = t->func_off + (size_t)i * ftab_entry(t);

	if (t->version == 116) {
		*rec = 0;
		return get(t, at, t->ptrsize, pc) &&
		       (i == t->nfunc || get(t, at + t->ptrsize, t->ptrsize, rec));
	}
	uint64_t off;
	*rec = 0;
	if (!get(t, at, 4, &off) || (i < t->nfunc && !get(t, at + 4, 4, rec)))
		return false;
	*pc = t->text_start + off;
	return *pc >= t->text_start; /* no wrap past 2^64 */
}

bool enav_gopclntab_func(const struct enav_gopclntab *t, uint32_t i, struct enav_gopclntab_func *f)
{
	uint64_t rec, next_rec, fentry, nameoff, pcsp;

	memset(f, 0, sizeof(*f));
	if (i >= t->nfunc || !ftab(t, i, &f->entry, &rec) || !ftab(t, i + 1, &f->end, &next_rec) ||
	    f->end <= f->entry || rec > t->len - t->func_off)
		return false;
	/* The record: its entry (pointer-sized in 1.16, an offset since), the
	 * name offset, the argument size, the deferreturn offset, pcsp. */
	size_t at = t->func_off + (size_t)rec, ew = t->version == 116 ? t->ptrsize : 4;
	if (!get(t, at, ew, &fentry) || !get(t, at + ew, 4, &nameoff) ||
	    !get(t, at + ew + 12, 4, &pcsp))
		return false;
	if (t->version != 116)
		fentry += t->text_start;
	if (fentry != f->entry)
		return false;
	f->nameoff = (uint32_t)nameoff; /* an int32: negative is out of range */
	f->pcsp = (uint32_t)pcsp;
	return true;
}

bool enav_pcvalue_start(const struct enav_gopclntab *t, uint32_t off,
			const struct enav_gopclntab_func *f, struct enav_pcvalue *it)
{
	memset(it, 0, sizeof(*it));
	if (off == 0 || off >= t->len - t->pctab_off)
		return false;
	it->p = t->sec + t->pctab_off + off;
	it->end = t->sec + t->len;
	it->pc = f->entry;
	it->limit = f->end;
	it->val = -1;
	it->quantum = t->quantum;
	it->first = true;
	return true;
}

/* An unsigned varint of at most 5 bytes (32 bits of payload). */
static bool uvarint(struct enav_pcvalue *it, uint32_t *v)
{
	uint32_t x = 0;

	for (unsigned shift = 0; shift < 35; shift += 7) {
		if (it->p >= it->end)
			return false;
		uint8_t b = *it->p++;
		x |= (uint32_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

bool enav_pcvalue_next(struct enav_pcvalue *it, uint64_t *start, uint64_t *end, int32_t *val)
{
	uint32_t uv, pcd;

	if (!it->p || it->pc >= it->limit)
		return false;
	if (it->p >= it->end) {
		it->bad = true;
		return false;
	}
	if (*it->p == 0 && !it->first)
		return false; /* the terminator */
	if (!uvarint(it, &uv) || !uvarint(it, &pcd)) {
		it->bad = true;
		return false;
	}
	it->first = false;
	/* zig-zag: the low bit is the sign; wraps like the runtime's int32 */
	it->val = (int32_t)((uint32_t)it->val + ((uv >> 1) ^ (uint32_t) - (int32_t)(uv & 1)));
	*start = it->pc;
	uint64_t step = (uint64_t)pcd * it->quantum;
	it->pc = step > it->limit - it->pc ? it->limit : it->pc + step;
	*end = it->pc;
	*val = it->val;
	return true;
}

const char *enav_gopclntab_name(const struct enav_gopclntab *t, const struct enav_gopclntab_func *f,
				size_t *scanned)
{
	size_t room = t->len - t->names_off;

	*scanned = 0;
	if (f->nameoff >= room)
		return NULL;
	const char *p = (const char *)t->sec + t->names_off + f->nameoff;
	room -= f->nameoff;
	if (room > ENAV_GOPCLNTAB_MAX_NAME)
		room = ENAV_GOPCLNTAB_MAX_NAME;
	size_t n = strnlen(p, room);
	*scanned = n;
	return n > 0 && n < room ? p : NULL;
}

bool enav_gopclntab_name_is(const struct enav_gopclntab *t, const struct enav_gopclntab_func *f,
			    const char *want)
{
	size_t n = strlen(want) + 1; /* the NUL must match too */

	return f->nameoff < t->len - t->names_off && n <= t->len - t->names_off - f->nameoff &&
	       memcmp(t->sec + t->names_off + f->nameoff, want, n) == 0;
}

bool enav_gopclntab_has_func(const struct enav_gopclntab *t, const char *name)
{
	for (uint32_t i = 0; i < t->nfunc; i++) {
		struct enav_gopclntab_func f;
		if (enav_gopclntab_func(t, i, &f) && enav_gopclntab_name_is(t, &f, name))
			return true;
	}
	return false;
}
