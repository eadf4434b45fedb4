/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the protobuf wire format (src/platform/protobuf.c).
 *
 * Byte 0 picks a mode.  Even: the remaining bytes are read with enav_pb_next,
 * recursing into every LEN field up to a depth, checking that each field
 * lies inside its parent and the reader always advances.  Odd: the bytes
 * drive the writer as an op stream (small hard limit, nesting, every field
 * kind); unless the writer failed, reading its output back must give exactly
 * the ops written, and it never exceeds its limit.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "platform/protobuf.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define MAX_WALK_DEPTH 8

static void walk(const uint8_t *p, size_t n, int depth)
{
	if (n == 0)
		return; /* p may be NULL (an empty writer) */
	struct enav_pb_reader r = {p, p + n};
	struct enav_pb_field f;
	int rc;

	while ((rc = enav_pb_next(&r, &f)) == 1) {
		CHECK(r.p > p && r.p <= p + n);
		CHECK(f.number >= 1 && f.number <= (1u << 29) - 1);
		switch (f.wire) {
		case ENAV_PB_VARINT:
		case ENAV_PB_I64:
			break;
		case ENAV_PB_I32:
			CHECK(f.u64 <= UINT32_MAX);
			break;
		case ENAV_PB_LEN:
			CHECK(f.ptr >= p && f.len <= (size_t)(p + n - f.ptr));
			CHECK(f.ptr + f.len == r.p);
			if (depth < MAX_WALK_DEPTH)
				walk(f.ptr, f.len, depth + 1);
			/* and as packed varints */
			{
				struct enav_pb_reader pr = {f.ptr, f.ptr + f.len};
				uint64_t v;
				const uint8_t *last = pr.p;

				while (enav_pb_read_varint(&pr, &v) == 1) {
					CHECK(pr.p > last && pr.p - last <= 10);
					last = pr.p;
				}
			}
			break;
		default:
			abort();
		}
	}
	CHECK(rc == 0 || rc == -1);
	if (rc == 0)
		CHECK(r.p == p + n);
}

/* ---- writer op stream ---- */

enum op_kind { OP_VARINT, OP_SINT, OP_FIXED, OP_DOUBLE, OP_BYTES, OP_PACKED, OP_BEGIN, OP_END };

struct op {
	enum op_kind kind;
	uint32_t field;
	uint64_t v;
	const uint8_t *data; /* bytes: into the fuzz input; packed: values */
	size_t n;
};

#define MAX_OPS	   512
#define MAX_PACKED 8

struct log {
	struct op ops[MAX_OPS];
	uint64_t packed[MAX_OPS][MAX_PACKED];
	size_t n;
};

static uint64_t take_u64(const uint8_t **d, size_t *n, size_t k)
{
	uint64_t v = 0;

	k = k < *n ? k : *n;
	for (size_t i = 0; i < k && i < 8; i++)
		v |= (uint64_t)(*d)[i] << (8 * i);
	*d += k;
	*n -= k;
	return v;
}

static uint32_t pick_field(uint8_t b)
{
	static const uint32_t big[] = {16, 2047, 2048, 262143, (1u << 29) - 1};

	return b < 0xf0 ? 1 + b % 15 : big[b % 5];
}

/* Check the reader over [p, p+n) against ops from *i up to the matching END
 * (or the end of the log at depth 0). */
static void verify(const struct log *lg, size_t *i, const uint8_t *p, size_t n, int depth)
{
	struct enav_pb_reader r = {p, n ? p + n : p}; /* p may be NULL when n is 0 */
	struct enav_pb_field f;

	for (; *i < lg->n; (*i)++) {
		const struct op *o = &lg->ops[*i];

		if (o->kind == OP_END) {
			CHECK(depth > 0);
			break;
		}
		CHECK(enav_pb_next(&r, &f) == 1);
		CHECK(f.number == o->field);
		switch (o->kind) {
		case OP_VARINT:
		case OP_SINT:
			CHECK(f.wire == ENAV_PB_VARINT && f.u64 == o->v);
			break;
		case OP_FIXED:
		case OP_DOUBLE:
			CHECK(f.wire == ENAV_PB_I64 && f.u64 == o->v);
			break;
		case OP_BYTES:
			CHECK(f.wire == ENAV_PB_LEN && f.len == o->n);
			CHECK(o->n == 0 || memcmp(f.ptr, o->data, o->n) == 0);
			break;
		case OP_PACKED: {
			struct enav_pb_reader pr = {f.ptr, f.ptr + f.len};
			uint64_t v;

			CHECK(f.wire == ENAV_PB_LEN);
			for (size_t k = 0; k < o->n; k++) {
				CHECK(enav_pb_read_varint(&pr, &v) == 1);
				CHECK(v == lg->packed[*i][k]);
			}
			CHECK(enav_pb_read_varint(&pr, &v) == 0);
			break;
		}
		case OP_BEGIN:
			CHECK(f.wire == ENAV_PB_LEN);
			(*i)++;
			verify(lg, i, f.ptr, f.len, depth + 1);
			CHECK(*i < lg->n && lg->ops[*i].kind == OP_END);
			break;
		case OP_END:
			break;
		}
	}
	struct enav_pb_field tail;

	CHECK(enav_pb_next(&r, &tail) == 0);
}

static void fuzz_writer(const uint8_t *d, size_t n)
{
	static struct log lg;
	struct enav_pb_writer w;
	int depth = 0;

	if (n < 2)
		return;
	size_t limit = 1 + ((size_t)d[0] | (size_t)d[1] << 8) % 4096;

	d += 2;
	n -= 2;
	enav_pb_writer_init(&w, limit);
	lg.n = 0;
	while (n > 0 && lg.n < MAX_OPS - ENAV_PB_MAX_DEPTH) {
		uint8_t op = d[0];
		uint32_t field = pick_field(n > 1 ? d[1] : 0);
		struct op *o = &lg.ops[lg.n];

		take_u64(&d, &n, 2);
		*o = (struct op){.field = field};
		switch (op % 8) {
		case 0:
			o->kind = OP_VARINT;
			o->v = take_u64(&d, &n, 1 + op / 8 % 8);
			if (op & 0x80)
				o->v = ~o->v;
			enav_pb_varint(&w, field, o->v);
			break;
		case 1: {
			int64_t s = (int64_t)take_u64(&d, &n, 8);

			o->kind = OP_SINT;
			o->v = ((uint64_t)s << 1) ^ (0 - ((uint64_t)s >> 63));
			enav_pb_sint64(&w, field, s);
			break;
		}
		case 2:
			o->kind = OP_FIXED;
			o->v = take_u64(&d, &n, 8);
			enav_pb_fixed64(&w, field, o->v);
			break;
		case 3: {
			double x;

			o->kind = OP_DOUBLE;
			o->v = take_u64(&d, &n, 8);
			memcpy(&x, &o->v, sizeof(x));
			enav_pb_double(&w, field, x);
			break;
		}
		case 4:
			o->kind = OP_BYTES;
			o->n = op / 8 < n ? op / 8 : n;
			o->data = d;
			enav_pb_bytes(&w, field, d, o->n);
			take_u64(&d, &n, o->n);
			break;
		case 5:
			o->kind = OP_PACKED;
			o->n = op / 8 % MAX_PACKED;
			for (size_t k = 0; k < o->n; k++)
				lg.packed[lg.n][k] = take_u64(&d, &n, 1 + k);
			enav_pb_packed_varints(&w, field, lg.packed[lg.n], o->n);
			if (o->n == 0)
				continue; /* writes nothing */
			break;
		case 6:
			if (depth >= ENAV_PB_MAX_DEPTH)
				continue;
			o->kind = OP_BEGIN;
			enav_pb_begin(&w, field);
			depth++;
			break;
		case 7:
			if (depth == 0)
				continue;
			o->kind = OP_END;
			enav_pb_end(&w);
			depth--;
			break;
		}
		lg.n++;
		CHECK(w.len <= limit && w.len <= w.cap);
	}
	while (depth > 0) {
		lg.ops[lg.n++] = (struct op){.kind = OP_END};
		enav_pb_end(&w);
		depth--;
	}
	CHECK(w.depth == 0);
	CHECK(w.len <= limit);
	if (!w.failed) {
		size_t i = 0;

		verify(&lg, &i, w.buf, w.len, 0);
		CHECK(i == lg.n);
		walk(w.buf, w.len, 0);
	}
	enav_pb_writer_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] & 1)
		fuzz_writer(data + 1, size - 1);
	else
		walk(data + 1, size - 1, 0);
	return 0;
}
