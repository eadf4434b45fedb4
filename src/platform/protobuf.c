/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/protobuf.h"

#include <stdlib.h>
#include <string.h>

#define PB_DEFAULT_LIMIT ((size_t)64 << 20)
#define PB_MAX_FIELD	 ((1u << 29) - 1)
#define PB_VARINT_MAX	 10

void enav_pb_writer_init(struct enav_pb_writer *w, size_t limit)
{
	*w = (struct enav_pb_writer){.limit = limit ? limit : PB_DEFAULT_LIMIT};
}

void enav_pb_writer_free(struct enav_pb_writer *w)
{
	free(enav_pb_writer_storage(w));
	w->buf = w->alloc = NULL;
	w->len = w->cap = 0;
	w->depth = 0;
}

/* Room for n more bytes, within the limit; false (and failed) otherwise. */
static bool grow(struct enav_pb_writer *w, size_t n);

static inline bool reserve(struct enav_pb_writer *w, size_t n)
{
	if (!w->failed && n <= w->cap - w->len && w->len + n <= w->limit)
		return true; /* the common case: room already there */
	return grow(w, n);
}

static bool grow(struct enav_pb_writer *w, size_t n)
{
	if (w->failed)
		return false;
	if (w->len > w->limit || n > w->limit - w->len) {
		w->failed = true;
		return false;
	}
	if (n <= w->cap - w->len)
		return true;
	size_t need = w->len + n;
	size_t cap = w->cap ? w->cap : 256;

	while (cap < need)
		cap = cap > w->limit / 2 ? w->limit : cap * 2;
	if (cap > w->limit)
		cap = w->limit;
	uint8_t *nb;

	if (w->alloc) { /* adopted bytes: into a buffer of its own, once */
		nb = malloc(cap);
		if (nb) {
			memcpy(nb, w->buf, w->len);
			free(w->alloc);
			w->alloc = NULL;
		}
	} else {
		nb = realloc(w->buf, cap);
	}
	if (!nb) {
		w->failed = true;
		return false;
	}
	w->buf = nb;
	w->cap = cap;
	return true;
}

static inline size_t varint_encode(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

static inline void put(struct enav_pb_writer *w, const void *p, size_t n)
{
	if (!reserve(w, n))
		return;
	if (n)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

__attribute__((always_inline)) static inline void put_varint(struct enav_pb_writer *w, uint64_t v)
{
	/* Tags and most lengths: one byte. */
	if (v < 0x80 && !w->failed && w->len < w->cap && w->len < w->limit) {
		w->buf[w->len++] = (uint8_t)v;
		return;
	}
	if (!w->failed && PB_VARINT_MAX <= w->cap - w->len && w->len + PB_VARINT_MAX <= w->limit) {
		w->len += varint_encode(w->buf + w->len, v);
		return;
	}
	/* Growing, or near the limit where only the bytes it needs must fit. */
	uint8_t tmp[PB_VARINT_MAX];
	put(w, tmp, varint_encode(tmp, v));
}

__attribute__((always_inline)) static inline void put_tag(struct enav_pb_writer *w, uint32_t field,
							  enum enav_pb_wire wire)
{
	if (field == 0 || field > PB_MAX_FIELD) {
		w->failed = true;
		return;
	}
	put_varint(w, (uint64_t)field << 3 | (uint64_t)wire);
}

static void put_le64(struct enav_pb_writer *w, uint64_t v)
{
	uint8_t b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	put(w, b, sizeof(b));
}

void enav_pb_varint(struct enav_pb_writer *w, uint32_t field, uint64_t v)
{
	put_tag(w, field, ENAV_PB_VARINT);
	put_varint(w, v);
}

void enav_pb_sint64(struct enav_pb_writer *w, uint32_t field, int64_t v)
{
	uint64_t u = (uint64_t)v;

	enav_pb_varint(w, field, (u << 1) ^ (0 - (u >> 63)));
}

void enav_pb_fixed64(struct enav_pb_writer *w, uint32_t field, uint64_t v)
{
	put_tag(w, field, ENAV_PB_I64);
	put_le64(w, v);
}

void enav_pb_double(struct enav_pb_writer *w, uint32_t field, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	enav_pb_fixed64(w, field, u);
}

void enav_pb_bytes(struct enav_pb_writer *w, uint32_t field, const void *p, size_t n)
{
	put_tag(w, field, ENAV_PB_LEN);
	put_varint(w, n);
	put(w, p, n);
}

void enav_pb_string(struct enav_pb_writer *w, uint32_t field, const char *s)
{
	enav_pb_bytes(w, field, s ? s : "", s ? strlen(s) : 0);
}

void enav_pb_raw(struct enav_pb_writer *w, const void *p, size_t n)
{
	put(w, p, n);
}

void enav_pb_packed_varints(struct enav_pb_writer *w, uint32_t field, const uint64_t *v, size_t n)
{
	size_t total = 0;

	if (n == 0)
		return; /* an empty packed field is simply absent */
	for (size_t i = 0; i < n; i++)
		total += enav_pb_varint_size(v[i]);
	put_tag(w, field, ENAV_PB_LEN);
	put_varint(w, total);
	if (!reserve(w, total))
		return;
	for (size_t i = 0; i < n; i++)
		w->len += varint_encode(w->buf + w->len, v[i]);
}

void enav_pb_len_prefix(struct enav_pb_writer *w, uint32_t field, size_t len)
{
	put_tag(w, field, ENAV_PB_LEN);
	put_varint(w, len);
}

/*
 * A submessage's length is unknown until it ends: begin leaves one byte for
 * it, end writes the real varint there and, when it needs more than one
 * byte, moves the payload up.  Depth overflow and unbalanced ends fail the
 * writer.
 */
void enav_pb_begin(struct enav_pb_writer *w, uint32_t field)
{
	if (w->depth >= ENAV_PB_MAX_DEPTH) {
		w->failed = true;
		return;
	}
	put_tag(w, field, ENAV_PB_LEN);
	w->open[w->depth++] = w->len;
	put(w, "", 1);
}

void enav_pb_end(struct enav_pb_writer *w)
{
	if (w->depth <= 0) {
		w->failed = true;
		return;
	}
	size_t start = w->open[--w->depth];

	if (w->failed)
		return;
	size_t n = w->len - start - 1;
	size_t k = enav_pb_varint_size(n);

	if (k > 1) {
		if (!reserve(w, k - 1))
			return;
		memmove(w->buf + start + k, w->buf + start + 1, n);
		w->len += k - 1;
	}
	varint_encode(w->buf + start, n);
}

/* ---- backward writer ---- */

void enav_pb_rev_init(struct enav_pb_rev *r, size_t limit)
{
	*r = (struct enav_pb_rev){.limit = limit ? limit : PB_DEFAULT_LIMIT};
}

void enav_pb_rev_free(struct enav_pb_rev *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = r->len = 0;
}

void enav_pb_rev_reset(struct enav_pb_rev *r)
{
	r->len = 0;
	r->failed = false;
}

bool enav_pb_rev_reserve_slow(struct enav_pb_rev *r, size_t n)
{
	if (r->failed)
		return false;
	if (r->len > r->limit || n > r->limit - r->len) {
		r->failed = true;
		return false;
	}
	if (n <= r->cap - r->len)
		return true;
	size_t need = r->len + n;
	size_t cap = r->cap ? r->cap : 4096;

	while (cap < need)
		cap = cap > r->limit / 2 ? r->limit : cap * 2;
	if (cap > r->limit)
		cap = r->limit;
	uint8_t *nb = malloc(cap);

	if (!nb) {
		r->failed = true;
		return false;
	}
	/* What is written sits at the end of the buffer: it moves to the new end. */
	if (r->len)
		memcpy(nb + cap - r->len, r->buf + r->cap - r->len, r->len);
	free(r->buf);
	r->buf = nb;
	r->cap = cap;
	return true;
}

int enav_pb_read_varint(struct enav_pb_reader *r, uint64_t *v)
{
	if (!r->p || r->p >= r->end)
		return 0;
	size_t avail = (size_t)(r->end - r->p);
	uint64_t x = 0;

	for (size_t i = 0; i < PB_VARINT_MAX; i++) {
		if (i >= avail)
			return -1; /* truncated */
		uint8_t b = r->p[i];

		/* The tenth byte carries bit 63 only; anything else overflows. */
		if (i == PB_VARINT_MAX - 1 && b > 1)
			return -1;
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			r->p += i + 1;
			*v = x;
			return 1;
		}
	}
	return -1;
}

int enav_pb_next(struct enav_pb_reader *r, struct enav_pb_field *f)
{
	if (!r->p || r->p >= r->end)
		return 0;
	struct enav_pb_reader t = *r;
	uint64_t tag, v;

	if (enav_pb_read_varint(&t, &tag) != 1)
		return -1;
	if ((tag >> 3) == 0 || (tag >> 3) > PB_MAX_FIELD)
		return -1;
	*f = (struct enav_pb_field){.number = (uint32_t)(tag >> 3)};
	size_t avail;

	switch (tag & 7) {
	case ENAV_PB_VARINT:
		if (enav_pb_read_varint(&t, &v) != 1)
			return -1;
		f->wire = ENAV_PB_VARINT;
		f->u64 = v;
		break;
	case ENAV_PB_I64:
	case ENAV_PB_I32: {
		size_t n = (tag & 7) == ENAV_PB_I64 ? 8 : 4;

		avail = (size_t)(t.end - t.p);
		if (avail < n)
			return -1;
		v = 0;
		for (size_t i = 0; i < n; i++)
			v |= (uint64_t)t.p[i] << (8 * i);
		t.p += n;
		f->wire = (enum enav_pb_wire)(tag & 7);
		f->u64 = v;
		break;
	}
	case ENAV_PB_LEN:
		if (enav_pb_read_varint(&t, &v) != 1)
			return -1;
		avail = (size_t)(t.end - t.p);
		if (v > avail)
			return -1;
		f->wire = ENAV_PB_LEN;
		f->ptr = t.p;
		f->len = (size_t)v;
		t.p += v;
		break;
	default: /* 3, 4: groups (deprecated, unsupported); 6, 7: not defined */
		return -1;
	}
	*r = t;
	return 1;
}

bool enav_pb_writer_adopt(struct enav_pb_writer *w, struct enav_pb_rev *r)
{
	if (w->len || w->depth || w->failed || r->failed || !r->len)
		return false;
	free(enav_pb_writer_storage(w));
	w->alloc = r->buf;
	w->buf = r->buf + r->cap - r->len;
	w->len = w->cap = r->len;
	/* Uninitialized and untouched: the next batch writes it from its end. */
	r->buf = malloc(r->cap);
	if (!r->buf)
		r->cap = 0;
	r->len = 0;
	return true;
}
