/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Minimal protocol-buffers wire format: a growable writer with nested
 * length-delimited fields, a backward writer for messages encoded last field
 * first, and a bounds-checked reader.  Shared by the pprof and OTLP encoders,
 * so the wire rules live in one place.
 */
#ifndef ENAV_PLATFORM_PROTOBUF_H
#define ENAV_PLATFORM_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENAV_PB_MAX_DEPTH 16

struct enav_pb_writer {
	uint8_t *buf;
	size_t len, cap;
	/* Non-NULL when buf points into a buffer adopted from a backward
	 * writer (enav_pb_writer_adopt): the allocation to free. */
	uint8_t *alloc;
	size_t limit;			/* hard cap on total bytes; 0 = 64 MiB */
	size_t open[ENAV_PB_MAX_DEPTH]; /* start offsets of open submessages */
	int depth;
	bool failed; /* allocation or limit failure: sticky */
};

void enav_pb_writer_init(struct enav_pb_writer *w, size_t limit);
void enav_pb_writer_free(struct enav_pb_writer *w);
void enav_pb_varint(struct enav_pb_writer *w, uint32_t field, uint64_t v);
void enav_pb_sint64(struct enav_pb_writer *w, uint32_t field, int64_t v); /* zigzag */
void enav_pb_fixed64(struct enav_pb_writer *w, uint32_t field, uint64_t v);
void enav_pb_double(struct enav_pb_writer *w, uint32_t field, double v);
void enav_pb_bytes(struct enav_pb_writer *w, uint32_t field, const void *p, size_t n);
void enav_pb_string(struct enav_pb_writer *w, uint32_t field, const char *s);
/* Packed repeated varints (e.g. Sample.location_id, Sample.value). */
void enav_pb_packed_varints(struct enav_pb_writer *w, uint32_t field, const uint64_t *v, size_t n);
/* A length-delimited field whose len payload bytes the caller writes next:
 * the same bytes as begin ... end, without moving the payload. */
void enav_pb_len_prefix(struct enav_pb_writer *w, uint32_t field, size_t len);
/* Bytes already encoded (whole fields), appended as they are. */
void enav_pb_raw(struct enav_pb_writer *w, const void *p, size_t n);
/* The allocation behind w's bytes, for whoever takes them over (free() it;
 * NULL when there is none). */
static inline void *enav_pb_writer_storage(const struct enav_pb_writer *w)
{
	return w->alloc ? w->alloc : w->buf;
}
/* Bytes of v as a varint (1..10). */
static inline size_t enav_pb_varint_size(uint64_t v)
{
	return v ? (size_t)(63 - __builtin_clzll(v)) / 7 + 1 : 1;
}
/* Submessage: begin ... end; lengths are patched on end. */
void enav_pb_begin(struct enav_pb_writer *w, uint32_t field);
void enav_pb_end(struct enav_pb_writer *w);

/*
 * Backward writer: a message is written last field first, from the end of
 * the buffer towards its start, so every length is known when its prefix is
 * written: no size pass and no payload moved (the forward writer moves a
 * submessage whose length needs more than one byte).  The bytes written are
 * enav_pb_rev_data(r)[0 .. r->len).  Callers reserve the room for a bounded
 * piece first, then use the unchecked puts below inside it.
 */
struct enav_pb_rev {
	uint8_t *buf;
	size_t cap, len;
	size_t limit; /* hard cap on total bytes; 0 = 64 MiB */
	bool failed;  /* allocation or limit failure: sticky */
};

void enav_pb_rev_init(struct enav_pb_rev *r, size_t limit);
void enav_pb_rev_free(struct enav_pb_rev *r);
/* Empty again, keeping the buffer (and clearing failed). */
void enav_pb_rev_reset(struct enav_pb_rev *r);
/* Room for n more bytes (grows, keeping what is written); false, and
 * failed, past the limit or out of memory. */
bool enav_pb_rev_reserve_slow(struct enav_pb_rev *r, size_t n);
static inline bool enav_pb_rev_reserve(struct enav_pb_rev *r, size_t n)
{
	if (!r->failed && n <= r->cap - r->len && r->len + n <= r->limit)
		return true;
	return enav_pb_rev_reserve_slow(r, n);
}
static inline const uint8_t *enav_pb_rev_data(const struct enav_pb_rev *r)
{
	return r->buf + r->cap - r->len;
}
/* An empty, open-free w takes r's bytes over without copying them (w then
 * frees r's buffer, and r gets a fresh one of the same size); false, and
 * nothing changed, when w is not empty.  A write to w afterwards copies
 * them once into a buffer of w's own. */
bool enav_pb_writer_adopt(struct enav_pb_writer *w, struct enav_pb_rev *r);
/*
 * Writing goes through a cursor p, the first byte written so far: each put
 * below writes just before p and returns the new first byte (a local
 * cursor stays in a register, where r->len would be reloaded after every
 * copy).  enav_pb_rev_at gives the cursor, enav_pb_rev_set takes it back.
 * Unchecked: only inside a reservation.
 */
static inline uint8_t *enav_pb_rev_at(const struct enav_pb_rev *r)
{
	return r->buf + r->cap - r->len;
}
static inline void enav_pb_rev_set(struct enav_pb_rev *r, const uint8_t *p)
{
	r->len = (size_t)(r->buf + r->cap - p);
}
static inline uint8_t *enav_pb_put_at(uint8_t *p, const void *src, size_t n)
{
	p -= n;
	__builtin_memcpy(p, src, n);
	return p;
}
static inline uint8_t *enav_pb_varint_at(uint8_t *p, uint64_t v)
{
	if (v < 0x80) {
		*--p = (uint8_t)v;
		return p;
	}
	p -= enav_pb_varint_size(v);
	uint8_t *o = p;
	while (v >= 0x80) {
		*o++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*o = (uint8_t)v;
	return p;
}
/* A tag (field << 3 | wire) in one byte: fields 1..15. */
#define ENAV_PB_TAG1(field, wire) ((uint8_t)((field) << 3 | (wire)))
/* n bytes as a LEN field with a one-byte tag. */
static inline uint8_t *enav_pb_bytes_at(uint8_t *p, uint8_t tag, const void *src, size_t n)
{
	p = enav_pb_put_at(p, src, n);
	p = enav_pb_varint_at(p, n);
	*--p = tag;
	return p;
}
static inline uint8_t *enav_pb_fixed64_at(uint8_t *p, uint8_t tag, uint64_t v)
{
	p -= 8;
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
	*--p = tag;
	return p;
}
/* The length prefix and tag of a message whose payload is [p, end). */
static inline uint8_t *enav_pb_close_at(uint8_t *p, const uint8_t *end, uint8_t tag)
{
	p = enav_pb_varint_at(p, (uint64_t)(end - p));
	*--p = tag;
	return p;
}

/* Reader over a byte range; every read is bounds-checked. */
struct enav_pb_reader {
	const uint8_t *p, *end;
};
enum enav_pb_wire { ENAV_PB_VARINT = 0, ENAV_PB_I64 = 1, ENAV_PB_LEN = 2, ENAV_PB_I32 = 5 };
struct enav_pb_field {
	uint32_t number;
	enum enav_pb_wire wire;
	uint64_t u64;	    /* VARINT, I64, I32 */
	const uint8_t *ptr; /* LEN */
	size_t len;
};
/* 1 = a field was read, 0 = clean end, -1 = malformed.  On -1 the reader
 * is not advanced. */
int enav_pb_next(struct enav_pb_reader *r, struct enav_pb_field *f);
/* One bare varint (the payload of a packed repeated field): same returns. */
int enav_pb_read_varint(struct enav_pb_reader *r, uint64_t *v);

#endif
