/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pprof decoder: a bounded, validating reader of profile.proto (gzip'd
 * or raw) for the tests and the pulled profiles.  Two passes: the first
 * counts every repeated element, so the second fills arrays sized exactly
 * and what it allocates is bounded by the input; every string index and id
 * reference is checked before the caller sees it.
 */
#include "model/pprof.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pprof_proto_priv.h"
#include "platform/gzip.h"
#include "platform/protobuf.h"

struct dctx {
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4))) static int fail(struct dctx *c, int rc, const char *fmt, ...)
{
	if (c->err && c->errlen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static int need(struct dctx *c, const struct enav_pb_field *f, enum enav_pb_wire wire,
		const char *what)
{
	if (f->wire == wire)
		return 0;
	return fail(c, -EINVAL, "%s: field %u has wire type %d, expected %d", what, f->number,
		    (int)f->wire, (int)wire);
}

/* A repeated varint field, packed (LEN) or not (VARINT): appends to out
 * (NULL = count only) at *n. */
static int repeated(struct dctx *c, const struct enav_pb_field *f, uint64_t *out, size_t *n,
		    const char *what)
{
	if (f->wire == ENAV_PB_VARINT) {
		if (out)
			out[*n] = f->u64;
		(*n)++;
		return 0;
	}
	if (f->wire != ENAV_PB_LEN)
		return need(c, f, ENAV_PB_LEN, what);
	struct enav_pb_reader r = {f->ptr, f->ptr + f->len};
	uint64_t v;
	int rc;

	while ((rc = enav_pb_read_varint(&r, &v)) == 1) {
		if (out)
			out[*n] = v;
		(*n)++;
	}
	return rc ? fail(c, -EINVAL, "%s: malformed packed varints", what) : 0;
}

static int parse_vt(struct dctx *c, const struct enav_pb_field *pf,
		    struct enav_pprof_value_type_idx *vt)
{
	struct enav_pb_reader r = {pf->ptr, pf->ptr + pf->len};
	struct enav_pb_field f;
	int rc;

	while ((rc = enav_pb_next(&r, &f)) == 1) {
		if (f.number != VT_TYPE && f.number != VT_UNIT)
			continue;
		if ((rc = need(c, &f, ENAV_PB_VARINT, "ValueType")))
			return rc;
		if (f.number == VT_TYPE)
			vt->type = (int64_t)f.u64;
		else
			vt->unit = (int64_t)f.u64;
	}
	return rc ? fail(c, -EINVAL, "ValueType: malformed") : 0;
}

static int parse_mapping(struct dctx *c, const struct enav_pb_field *pf,
			 struct enav_pprof_decoded_mapping *m)
{
	struct enav_pb_reader r = {pf->ptr, pf->ptr + pf->len};
	struct enav_pb_field f;
	int rc;

	while ((rc = enav_pb_next(&r, &f)) == 1) {
		if (f.number < MA_ID || f.number > MA_BUILD_ID)
			continue;
		if ((rc = need(c, &f, ENAV_PB_VARINT, "Mapping")))
			return rc;
		switch (f.number) {
		case MA_ID:
			m->id = f.u64;
			break;
		case MA_START:
			m->start = f.u64;
			break;
		case MA_LIMIT:
			m->limit = f.u64;
			break;
		case MA_OFFSET:
			m->offset = f.u64;
			break;
		case MA_FILENAME:
			m->filename = (int64_t)f.u64;
			break;
		case MA_BUILD_ID:
			m->build_id = (int64_t)f.u64;
			break;
		}
	}
	return rc ? fail(c, -EINVAL, "Mapping: malformed") : 0;
}

static int parse_function(struct dctx *c, const struct enav_pb_field *pf,
			  struct enav_pprof_decoded_function *fn)
{
	struct enav_pb_reader r = {pf->ptr, pf->ptr + pf->len};
	struct enav_pb_field f;
	int rc;

	while ((rc = enav_pb_next(&r, &f)) == 1) {
		if (f.number < FN_ID || f.number > FN_FILENAME)
			continue;
		if ((rc = need(c, &f, ENAV_PB_VARINT, "Function")))
			return rc;
		switch (f.number) {
		case FN_ID:
			fn->id = f.u64;
			break;
		case FN_NAME:
			fn->name = (int64_t)f.u64;
			break;
		case FN_SYSTEM_NAME:
			fn->system_name = (int64_t)f.u64;
			break;
		case FN_FILENAME:
			fn->filename = (int64_t)f.u64;
			break;
		}
	}
	return rc ? fail(c, -EINVAL, "Function: malformed") : 0;
}

/* The ids of one table, sorted: 8 bytes per entry, for membership. */
struct idset {
	uint64_t *ids;
	size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Ids must be non-zero and unique. */
static int index_ids(struct dctx *c, struct idset *s, size_t n, const void *base, size_t stride,
		     const char *what)
{
	s->n = n;
	if (!n)
		return 0;
	if (!(s->ids = malloc(n * sizeof(*s->ids))))
		return fail(c, -ENOMEM, "no memory to index %zu %s ids", n, what);
	for (size_t i = 0; i < n; i++) {
		s->ids[i] = *(const uint64_t *)((const char *)base + i * stride);
		if (s->ids[i] == 0)
			return fail(c, -EINVAL, "%s %zu has id 0", what, i);
	}
	qsort(s->ids, n, sizeof(*s->ids), cmp_u64);
	for (size_t i = 1; i < n; i++)
		if (s->ids[i] == s->ids[i - 1])
			return fail(c, -EINVAL, "%s id %llu is not unique", what,
				    (unsigned long long)s->ids[i]);
	return 0;
}

static bool idset_has(const struct idset *s, uint64_t id)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ids[mid] == id)
			return true;
		if (s->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* A Location; every Line's function must be in funcs (the mapping is checked
 * by the caller).  Its Lines go to d->lines, which has room for max_lines. */
static int parse_location(struct dctx *c, const struct enav_pb_field *pf,
			  struct enav_pprof_decoded_location *l, const struct idset *funcs,
			  struct enav_pprof_decoded *d, size_t max_lines)
{
	struct enav_pb_reader r = {pf->ptr, pf->ptr + pf->len};
	struct enav_pb_field f;
	size_t first = d->n_lines;
	int rc;

	while ((rc = enav_pb_next(&r, &f)) == 1) {
		if (f.number < LO_ID || f.number > LO_LINE)
			continue;
		if (f.number == LO_LINE) {
			if ((rc = need(c, &f, ENAV_PB_LEN, "Location")))
				return rc;
			struct enav_pb_reader lr = {f.ptr, f.ptr + f.len};
			struct enav_pb_field lf;
			uint64_t fid = 0;
			int64_t line = 0;

			while ((rc = enav_pb_next(&lr, &lf)) == 1) {
				if (lf.number != LI_FUNCTION_ID && lf.number != LI_LINE)
					continue;
				if ((rc = need(c, &lf, ENAV_PB_VARINT, "Line")))
					return rc;
				if (lf.number == LI_FUNCTION_ID)
					fid = lf.u64;
				else
					line = (int64_t)lf.u64;
			}
			if (rc)
				return fail(c, -EINVAL, "Line: malformed");
			if (!idset_has(funcs, fid))
				return fail(c, -EINVAL, "Line: function id %llu does not exist",
					    (unsigned long long)fid);
			/* count_top counted every Line field: cannot overflow. */
			if (d->n_lines >= max_lines)
				return fail(c, -EINVAL, "Location: more Lines than counted");
			d->lines[d->n_lines++] = (struct enav_pprof_decoded_line){fid, line};
			continue;
		}
		if ((rc = need(c, &f, ENAV_PB_VARINT, "Location")))
			return rc;
		if (f.number == LO_ID)
			l->id = f.u64;
		else if (f.number == LO_MAPPING_ID)
			l->mapping_id = f.u64;
		else
			l->address = f.u64;
	}
	if (rc)
		return fail(c, -EINVAL, "Location: malformed");
	if (d->n_lines > first) {
		l->lines = &d->lines[first];
		l->n_lines = d->n_lines - first;
		l->function_id = l->lines[0].function_id;
		l->line = l->lines[0].line;
	}
	return 0;
}

static int parse_label(struct dctx *c, const struct enav_pb_field *pf,
		       struct enav_pprof_decoded_label *lb)
{
	struct enav_pb_reader r = {pf->ptr, pf->ptr + pf->len};
	struct enav_pb_field f;
	int rc;

	while ((rc = enav_pb_next(&r, &f)) == 1) {
		if (f.number < LA_KEY || f.number > LA_NUM_UNIT)
			continue;
		if ((rc = need(c, &f, ENAV_PB_VARINT, "Label")))
			return rc;
		switch (f.number) {
		case LA_KEY:
			lb->key = (int64_t)f.u64;
			break;
		case LA_STR:
			lb->str = (int64_t)f.u64;
			break;
		case LA_NUM:
			lb->num = (int64_t)f.u64;
			break;
		case LA_NUM_UNIT:
			lb->num_unit = (int64_t)f.u64;
			break;
		}
	}
	return rc ? fail(c, -EINVAL, "Label: malformed") : 0;
}

/* Two passes over the Sample: count, then fill arrays sized exactly. */
static int parse_sample(struct dctx *c, const struct enav_pb_field *pf,
			struct enav_pprof_decoded_sample *s)
{
	struct enav_pb_field f;
	struct enav_pb_reader r;
	size_t nl = 0, nv = 0, nb = 0;
	int rc;

	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if ((nl && !(s->location_ids = calloc(nl, sizeof(uint64_t)))) ||
			    (nv && !(s->values = calloc(nv, sizeof(int64_t)))) ||
			    (nb && !(s->labels = calloc(nb, sizeof(*s->labels)))))
				return fail(c, -ENOMEM, "out of memory");
		}
		r = (struct enav_pb_reader){pf->ptr, pf->ptr + pf->len};
		while ((rc = enav_pb_next(&r, &f)) == 1) {
			switch (f.number) {
			case SA_LOCATION_ID:
				rc = repeated(c, &f, pass ? s->location_ids : NULL,
					      pass ? &s->n_locations : &nl, "Sample.location_id");
				break;
			case SA_VALUE:
				rc = repeated(c, &f, pass ? (uint64_t *)s->values : NULL,
					      pass ? &s->n_values : &nv, "Sample.value");
				break;
			case SA_LABEL:
				rc = need(c, &f, ENAV_PB_LEN, "Sample.label");
				if (!rc && pass)
					rc = parse_label(c, &f, &s->labels[s->n_labels++]);
				else if (!rc)
					nb++;
				break;
			default:
				rc = 0;
			}
			if (rc)
				return rc;
		}
		if (rc)
			return fail(c, -EINVAL, "Sample: malformed");
	}
	return 0;
}

struct tally {
	size_t sample_types, samples, mappings, locations, lines, functions, strings, string_bytes,
	    comments;
};

/* The Line fields of one Location (an upper bound: parse_location rejects a
 * malformed one). */
static size_t count_lines(const struct enav_pb_field *pf)
{
	struct enav_pb_reader r = {pf->ptr, pf->ptr + pf->len};
	struct enav_pb_field f;
	size_t n = 0;

	while (enav_pb_next(&r, &f) == 1)
		n += f.number == LO_LINE;
	return n;
}

static int count_top(struct dctx *c, const uint8_t *buf, size_t len, struct tally *t)
{
	struct enav_pb_reader r = {buf, buf + len};
	struct enav_pb_field f;
	int rc;

	while ((rc = enav_pb_next(&r, &f)) == 1) {
		rc = 0;
		switch (f.number) {
		case PF_SAMPLE_TYPE:
		case PF_SAMPLE:
		case PF_MAPPING:
		case PF_LOCATION:
		case PF_FUNCTION:
		case PF_STRING_TABLE:
		case PF_PERIOD_TYPE:
			rc = need(c, &f, ENAV_PB_LEN, "Profile");
			t->sample_types += f.number == PF_SAMPLE_TYPE;
			t->samples += f.number == PF_SAMPLE;
			t->mappings += f.number == PF_MAPPING;
			t->locations += f.number == PF_LOCATION;
			if (!rc && f.number == PF_LOCATION)
				t->lines += count_lines(&f);
			t->functions += f.number == PF_FUNCTION;
			if (f.number == PF_STRING_TABLE) {
				t->strings++;
				t->string_bytes += f.len + 1;
			}
			break;
		case PF_DROP_FRAMES:
		case PF_KEEP_FRAMES:
		case PF_TIME_NANOS:
		case PF_DURATION_NANOS:
		case PF_PERIOD:
		case PF_DEFAULT_SAMPLE_TYPE:
		case PF_DOC_URL:
			rc = need(c, &f, ENAV_PB_VARINT, "Profile");
			break;
		case PF_COMMENT:
			rc = repeated(c, &f, NULL, &t->comments, "Profile.comment");
			break;
		}
		if (rc)
			return rc;
	}
	if (rc)
		return fail(c, -EINVAL, "Profile: malformed protobuf at offset %zu",
			    (size_t)(r.p - buf));
	return 0;
}

static bool sidx(const struct enav_pprof_decoded *d, int64_t v)
{
	return v >= 0 && (uint64_t)v < d->n_strings;
}

static int decode_raw(struct dctx *c, const uint8_t *buf, size_t len, struct enav_pprof_decoded *d)
{
	struct tally t = {0};
	struct idset mmap = {0}, fmap = {0}, lmap = {0};
	struct enav_pb_reader r;
	struct enav_pb_field f;
	int64_t extra[4] = {0}; /* drop_frames, keep_frames, default_sample_type, doc_url */
	size_t off = 0, ni = 0;
	int rc;

	/* Every counted element took at least two input bytes, so what this
	 * allocates is bounded by the input: at most 28 bytes per input byte
	 * (an empty Location is 2 bytes, its struct 56; a Sample 2 bytes, its
	 * struct 48; a Line 2 bytes, its struct 16), plus 4 per input byte of
	 * id indexes while validating. */
	if ((rc = count_top(c, buf, len, &t)))
		return rc;
	if (t.strings == 0)
		return fail(c, -EINVAL, "string_table is empty (entry 0 must be \"\")");
	char *arena = malloc(t.string_bytes);

	if (!arena)
		return fail(c, -ENOMEM, "out of memory");
	d->strings = calloc(t.strings, sizeof(*d->strings));
	if (!d->strings) {
		free(arena);
		return fail(c, -ENOMEM, "out of memory");
	}
	d->strings[0] = arena;
	d->n_strings = t.strings;
#define ALLOC(field, count)                                                                        \
	do {                                                                                       \
		if ((count) && !(d->field = calloc((count), sizeof(*d->field))))                   \
			return fail(c, -ENOMEM, "out of memory");                                  \
	} while (0)
	ALLOC(sample_types, t.sample_types);
	ALLOC(samples, t.samples);
	ALLOC(mappings, t.mappings);
	ALLOC(locations, t.locations);
	ALLOC(functions, t.functions);
	ALLOC(comments, t.comments);
	ALLOC(lines, t.lines);
#undef ALLOC
	d->n_samples = t.samples; /* so a partial result frees cleanly */

	/* Walk 1: everything that references nothing but strings. */
	r = (struct enav_pb_reader){buf, buf + len};
	while (enav_pb_next(&r, &f) == 1) {
		rc = 0;
		switch (f.number) {
		case PF_SAMPLE_TYPE:
			rc = parse_vt(c, &f, &d->sample_types[d->n_sample_types++]);
			break;
		case PF_MAPPING:
			rc = parse_mapping(c, &f, &d->mappings[d->n_mappings++]);
			break;
		case PF_FUNCTION:
			rc = parse_function(c, &f, &d->functions[d->n_functions++]);
			break;
		case PF_STRING_TABLE:
			if (memchr(f.ptr, '\0', f.len))
				return fail(c, -EINVAL, "string_table[%zu] contains a NUL byte",
					    ni);
			d->strings[ni++] = arena + off;
			if (f.len)
				memcpy(arena + off, f.ptr, f.len);
			arena[off + f.len] = '\0';
			off += f.len + 1;
			break;
		case PF_PERIOD_TYPE:
			rc = parse_vt(c, &f, &d->period_type);
			break;
		case PF_TIME_NANOS:
			d->time_nanos = (int64_t)f.u64;
			break;
		case PF_DURATION_NANOS:
			d->duration_nanos = (int64_t)f.u64;
			break;
		case PF_PERIOD:
			d->period = (int64_t)f.u64;
			break;
		case PF_COMMENT:
			rc = repeated(c, &f, (uint64_t *)d->comments, &d->n_comments,
				      "Profile.comment");
			break;
		case PF_DROP_FRAMES:
		case PF_KEEP_FRAMES:
			extra[f.number - PF_DROP_FRAMES] = (int64_t)f.u64;
			break;
		case PF_DEFAULT_SAMPLE_TYPE:
		case PF_DOC_URL:
			extra[2 + f.number - PF_DEFAULT_SAMPLE_TYPE] = (int64_t)f.u64;
			break;
		}
		if (rc)
			return rc;
	}
	if (d->strings[0][0] != '\0')
		return fail(c, -EINVAL, "string_table[0] is \"%.32s\", must be \"\"",
			    d->strings[0]);

		/* String indexes. */
#define SIDX(v, ...)                                                                               \
	do {                                                                                       \
		if (!sidx(d, (v)))                                                                 \
			return fail(c, -EINVAL, __VA_ARGS__);                                      \
	} while (0)
	for (size_t i = 0; i < d->n_sample_types; i++) {
		SIDX(d->sample_types[i].type, "sample_type[%zu].type: bad string index", i);
		SIDX(d->sample_types[i].unit, "sample_type[%zu].unit: bad string index", i);
	}
	SIDX(d->period_type.type, "period_type.type: bad string index");
	SIDX(d->period_type.unit, "period_type.unit: bad string index");
	for (size_t i = 0; i < d->n_comments; i++)
		SIDX(d->comments[i], "comment[%zu]: bad string index", i);
	for (size_t i = 0; i < 4; i++)
		SIDX(extra[i],
		     "drop/keep_frames, default_sample_type or doc_url: bad string index");
	d->default_sample_type = extra[2];
	for (size_t i = 0; i < d->n_mappings; i++) {
		SIDX(d->mappings[i].filename, "mapping[%zu].filename: bad string index", i);
		SIDX(d->mappings[i].build_id, "mapping[%zu].build_id: bad string index", i);
	}
	for (size_t i = 0; i < d->n_functions; i++) {
		SIDX(d->functions[i].name, "function[%zu].name: bad string index", i);
		SIDX(d->functions[i].system_name, "function[%zu].system_name: bad string index", i);
		SIDX(d->functions[i].filename, "function[%zu].filename: bad string index", i);
	}

	/* Walk 2: locations, against the mapping and function ids. */
	if ((rc = index_ids(c, &mmap, d->n_mappings, d->mappings ? &d->mappings[0].id : NULL,
			    sizeof(*d->mappings), "mapping")) ||
	    (rc = index_ids(c, &fmap, d->n_functions, d->functions ? &d->functions[0].id : NULL,
			    sizeof(*d->functions), "function")))
		goto out;
	r = (struct enav_pb_reader){buf, buf + len};
	while (enav_pb_next(&r, &f) == 1) {
		if (f.number != PF_LOCATION)
			continue;
		struct enav_pprof_decoded_location *l = &d->locations[d->n_locations++];

		if ((rc = parse_location(c, &f, l, &fmap, d, t.lines)))
			goto out;
		if (l->mapping_id && !idset_has(&mmap, l->mapping_id)) {
			rc = fail(c, -EINVAL, "location %llu: mapping id %llu does not exist",
				  (unsigned long long)l->id, (unsigned long long)l->mapping_id);
			goto out;
		}
	}
	if ((rc = index_ids(c, &lmap, d->n_locations, d->locations ? &d->locations[0].id : NULL,
			    sizeof(*d->locations), "location")))
		goto out;

	/* Walk 3: samples, against the location ids and the sample types. */
	r = (struct enav_pb_reader){buf, buf + len};
	for (size_t i = 0; enav_pb_next(&r, &f) == 1;) {
		if (f.number != PF_SAMPLE)
			continue;
		struct enav_pprof_decoded_sample *s = &d->samples[i];

		if ((rc = parse_sample(c, &f, s)))
			goto out;
		if (s->n_values != d->n_sample_types) {
			rc = fail(c, -EINVAL, "sample %zu has %zu values for %zu sample types", i,
				  s->n_values, d->n_sample_types);
			goto out;
		}
		for (size_t k = 0; k < s->n_locations; k++) {
			if (!idset_has(&lmap, s->location_ids[k])) {
				rc = fail(c, -EINVAL, "sample %zu: location id %llu does not exist",
					  i, (unsigned long long)s->location_ids[k]);
				goto out;
			}
		}
		for (size_t k = 0; k < s->n_labels; k++) {
			const struct enav_pprof_decoded_label *lb = &s->labels[k];

			if (!sidx(d, lb->key) || !sidx(d, lb->str) || !sidx(d, lb->num_unit)) {
				rc = fail(c, -EINVAL, "sample %zu label %zu: bad string index", i,
					  k);
				goto out;
			}
		}
		i++;
	}
#undef SIDX
out:
	free(mmap.ids);
	free(fmap.ids);
	free(lmap.ids);
	return rc;
}

int enav_pprof_decode(const uint8_t *data, size_t len, size_t max_bytes,
		      struct enav_pprof_decoded *out, char *err, size_t errlen)
{
	struct dctx c = {err, errlen};
	uint8_t *plain = NULL;
	size_t plain_len = len;
	int rc;

	*out = (struct enav_pprof_decoded){0};
	if (err && errlen)
		err[0] = '\0';
	if (!data) {
		static const uint8_t nothing;

		if (len)
			return fail(&c, -EINVAL, "NULL data");
		data = &nothing;
	}
	if (!max_bytes)
		max_bytes = DEF_MAX_BYTES;
	if (max_bytes > SIZE_MAX / 4)
		max_bytes = SIZE_MAX / 4;
	if (enav_gzip_magic(data, len)) {
		if ((rc = enav_gzip_decompress(data, len, max_bytes, &plain, &plain_len, err,
					       errlen)))
			return rc;
		data = plain;
	} else if (len > max_bytes) {
		return fail(&c, -E2BIG, "profile of %zu bytes exceeds %zu", len, max_bytes);
	}
	rc = decode_raw(&c, data, plain_len, out);
	free(plain);
	if (rc)
		enav_pprof_decoded_free(out);
	return rc;
}

void enav_pprof_decoded_free(struct enav_pprof_decoded *d)
{
	if (d->strings)
		free(d->strings[0]); /* the arena every string points into */
	free(d->strings);
	free(d->sample_types);
	for (size_t i = 0; d->samples && !d->sample_arena && i < d->n_samples; i++) {
		free(d->samples[i].location_ids);
		free(d->samples[i].values);
		free(d->samples[i].labels);
	}
	free(d->sample_arena);
	free(d->samples);
	free(d->mappings);
	free(d->locations);
	free(d->functions);
	free(d->comments);
	free(d->lines);
	*d = (struct enav_pprof_decoded){0};
}
