/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Minimal protocol-buffers wire format: a growable writer with nested
 * length-delimited fields, and a bounds-checked reader.  Shared by the pprof
 * encoder and (later) the OTLP encoders, so the wire rules live in one place.
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
/* Bytes of v as a varint (1..10). */
size_t enav_pb_varint_size(uint64_t v);
/* Submessage: begin ... end; lengths are patched on end. */
void enav_pb_begin(struct enav_pb_writer *w, uint32_t field);
void enav_pb_end(struct enav_pb_writer *w);

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
