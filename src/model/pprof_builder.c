/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pprof builder: interns strings, deduplicates mappings, functions and
 * locations through open-addressing indexes over entry numbers, encodes
 * each Sample as it comes and keeps an exact running size of the whole
 * encoding, so a cap is enforced before the bytes exist.  Compression is
 * platform/gzip.c's; reading a profile back is pprof_decoder.c.
 */
#include "model/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/pprof_builder_priv.h"
#include "model/pprof_proto_priv.h"
#include "platform/gzip.h"
#include "platform/hash.h"
#include "platform/protobuf.h"

#define DEF_MAX_SAMPLES	  1000000u
#define DEF_MAX_LOCATIONS 1000000u
#define DEF_MAX_STRINGS	  1000000u
#define MAX_SAMPLE_TYPES  1024

/* ---- sizes: the builder keeps an exact running size of the encoding ---- */

static size_t vsz(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* A varint field written only when non-zero (every field here is < 16, so
 * its tag is one byte). */
static size_t fsz(uint64_t v)
{
	return v ? 1 + vsz(v) : 0;
}

/* A length-delimited field with a body of n bytes. */
static size_t msz(size_t n)
{
	return 1 + vsz(n) + n;
}

static void put_nz(struct enav_pb_writer *w, uint32_t field, uint64_t v)
{
	if (v)
		enav_pb_varint(w, field, v);
}

/* ---- index tables: open addressing over entry indexes ---- */

static uint32_t mix(uint64_t h)
{
	return (uint32_t)enav_hash_u64(h);
}

static uint64_t comb(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x9e3779b97f4a7c15ull + (h >> 29);
}

/* Make room for one more entry (load <= 1/2). */
static int itab_reserve(struct itab *t)
{
	uint32_t slots = t->slots ? t->mask + 1 : 0;

	if (slots && (uint64_t)(t->n + 1) * 2 <= slots)
		return 0;
	uint64_t ns = slots ? (uint64_t)slots * 2 : 64;

	if (ns > ((uint64_t)1 << 31))
		return -ENOSPC;
	struct islot *s = calloc(ns, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < slots; i++) {
		if (!t->slots[i].idx1)
			continue;
		uint32_t j = t->slots[i].hash & (uint32_t)(ns - 1);

		while (s[j].idx1)
			j = (j + 1) & (uint32_t)(ns - 1);
		s[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = s;
	t->mask = (uint32_t)(ns - 1);
	return 0;
}

/* Call after itab_reserve succeeded. */
static void itab_add(struct itab *t, uint32_t hash, uint32_t idx)
{
	uint32_t j = hash & t->mask;

	while (t->slots[j].idx1)
		j = (j + 1) & t->mask;
	t->slots[j] = (struct islot){.idx1 = idx + 1, .hash = hash};
	t->n++;
}

/* ---- builder ---- */

static bool fits(const struct enav_pprof *p, size_t add)
{
	return add <= p->lim.max_bytes - p->size;
}

/* Grow *arr (of elem-size entries) so index n fits. */
static int grow(void **arr, uint32_t *cap, uint32_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	uint32_t nc = *cap ? *cap * 2 : 16;

	if (nc <= *cap)
		return -ENOSPC;
	void *a = realloc(*arr, (size_t)nc * elem);

	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = nc;
	return 0;
}

/* Grow *arr so n + add entries fit. */
static int reserve(void **arr, uint32_t *cap, uint32_t n, size_t add, size_t elem)
{
	if (add > UINT32_MAX - n)
		return -ENOSPC;
	while (n + add > *cap) {
		int rc = grow(arr, cap, *cap, elem);

		if (rc)
			return rc;
	}
	return 0;
}

static uint32_t str_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
	return mix(h);
}

/* String index of s (NULL = ""), adding it when new.  0 or -ENOSPC/-ENOMEM. */
static int intern(struct enav_pprof *p, const char *s, int64_t *idx)
{
	size_t n = s ? strlen(s) : 0;
	uint32_t h = str_hash(s ? s : "", n);

	if (p->str_tab.slots) {
		for (uint32_t j = h & p->str_tab.mask; p->str_tab.slots[j].idx1;
		     j = (j + 1) & p->str_tab.mask) {
			uint32_t i = p->str_tab.slots[j].idx1 - 1;

			if (p->str_tab.slots[j].hash == h && p->str_len[i] == n &&
			    memcmp(p->str[i], s ? s : "", n) == 0) {
				*idx = i;
				return 0;
			}
		}
	}
	if (p->n_str >= p->lim.max_strings || !fits(p, msz(n)))
		return -ENOSPC;
	uint32_t cap = p->cap_str;
	int rc = grow((void **)&p->str, &cap, p->n_str, sizeof(*p->str));

	if (!rc)
		rc = grow((void **)&p->str_len, &p->cap_str, p->n_str, sizeof(*p->str_len));
	if (!rc)
		rc = itab_reserve(&p->str_tab);
	if (rc)
		return rc;
	char *c = malloc(n + 1);

	if (!c)
		return -ENOMEM;
	memcpy(c, s ? s : "", n);
	c[n] = '\0';
	p->str[p->n_str] = c;
	p->str_len[p->n_str] = n;
	itab_add(&p->str_tab, h, p->n_str);
	*idx = p->n_str++;
	p->size += msz(n);
	return 0;
}

static size_t vt_size(struct vt v)
{
	return msz(fsz((uint64_t)v.type) + fsz((uint64_t)v.unit));
}

struct enav_pprof *enav_pprof_new(const struct enav_pprof_value_type *sample_types, size_t n_types,
				  struct enav_pprof_value_type period_type, int64_t period,
				  int64_t time_nanos, int64_t duration_nanos,
				  const struct enav_pprof_limits *limits)
{
	if (!sample_types || n_types == 0 || n_types > MAX_SAMPLE_TYPES) {
		errno = EINVAL;
		return NULL;
	}
	struct enav_pprof *p = calloc(1, sizeof(*p));

	if (!p) {
		errno = ENOMEM;
		return NULL;
	}
	if (limits)
		p->lim = *limits;
	if (!p->lim.max_samples)
		p->lim.max_samples = DEF_MAX_SAMPLES;
	if (!p->lim.max_locations)
		p->lim.max_locations = DEF_MAX_LOCATIONS;
	if (!p->lim.max_strings)
		p->lim.max_strings = DEF_MAX_STRINGS;
	if (!p->lim.max_bytes)
		p->lim.max_bytes = DEF_MAX_BYTES;
	p->period = period;
	p->time_nanos = time_nanos;
	p->duration_nanos = duration_nanos;

	int64_t zero;
	int rc = intern(p, "", &zero);

	p->types = calloc(n_types, sizeof(*p->types));
	if (!p->types && !rc)
		rc = -ENOMEM;
	p->n_types = n_types;
	for (size_t i = 0; i < n_types && !rc; i++) {
		rc = intern(p, sample_types[i].type, &p->types[i].type);
		if (!rc)
			rc = intern(p, sample_types[i].unit, &p->types[i].unit);
		if (!rc)
			p->size += vt_size(p->types[i]);
	}
	if (!rc)
		rc = intern(p, period_type.type, &p->period_type.type);
	if (!rc)
		rc = intern(p, period_type.unit, &p->period_type.unit);
	if (!rc) {
		p->size += vt_size(p->period_type) + fsz((uint64_t)period) +
			   fsz((uint64_t)time_nanos) + fsz((uint64_t)duration_nanos);
		if (p->size > p->lim.max_bytes)
			rc = -E2BIG;
	}
	if (rc) {
		enav_pprof_free(p);
		errno = rc == -ENOSPC ? E2BIG : -rc;
		return NULL;
	}
	return p;
}

void enav_pprof_free(struct enav_pprof *p)
{
	if (!p)
		return;
	for (uint32_t i = 0; i < p->n_str; i++)
		free(p->str[i]);
	free(p->str);
	free(p->str_len);
	free(p->str_tab.slots);
	free(p->types);
	free(p->maps);
	free(p->map_tab.slots);
	free(p->funcs);
	free(p->func_tab.slots);
	free(p->locs);
	free(p->loc_tab.slots);
	free(p->comments);
	free(p->samples);
	free(p->sample_locs);
	free(p->sample_values);
	free(p->sample_labels);
	free(p);
}

static size_t mapping_size(uint64_t id, const struct bmapping *m)
{
	/* The three has_* flags are counted as set: an upper bound by 6 bytes
	 * at most, so a mapping's size never changes after it is added. */
	return msz(fsz(id) + fsz(m->start) + fsz(m->limit) + fsz(m->offset) +
		   fsz((uint64_t)m->file) + fsz((uint64_t)m->build_id) + 3 * 2);
}

/* Mappings and functions share the location cap: each exists for a location. */
uint64_t enav_pprof_mapping(struct enav_pprof *p, uint64_t start, uint64_t limit, uint64_t offset,
			    const char *file, const char *build_id)
{
	int64_t fi, bi;

	if (intern(p, file, &fi) || intern(p, build_id, &bi))
		return 0;
	uint32_t h = mix(comb(comb(comb(0, start), limit), (uint64_t)fi));

	if (p->map_tab.slots) {
		for (uint32_t j = h & p->map_tab.mask; p->map_tab.slots[j].idx1;
		     j = (j + 1) & p->map_tab.mask) {
			const struct bmapping *m = &p->maps[p->map_tab.slots[j].idx1 - 1];

			if (m->start == start && m->limit == limit && m->file == fi)
				return p->map_tab.slots[j].idx1;
		}
	}
	struct bmapping m = {
	    .start = start, .limit = limit, .offset = offset, .file = fi, .build_id = bi};
	size_t add = mapping_size(p->n_maps + 1, &m);

	if (p->n_maps >= p->lim.max_locations || !fits(p, add))
		return 0;
	if (grow((void **)&p->maps, &p->cap_maps, p->n_maps, sizeof(m)) ||
	    itab_reserve(&p->map_tab))
		return 0;
	p->maps[p->n_maps] = m;
	itab_add(&p->map_tab, h, p->n_maps);
	p->size += add;
	return ++p->n_maps;
}

/* Function id for (name, filename); 0 or -errno. */
static int function_id(struct enav_pprof *p, int64_t name, int64_t file, uint64_t *id)
{
	uint32_t h = mix(comb(comb(1, (uint64_t)name), (uint64_t)file));

	if (p->func_tab.slots) {
		for (uint32_t j = h & p->func_tab.mask; p->func_tab.slots[j].idx1;
		     j = (j + 1) & p->func_tab.mask) {
			const struct bfunction *f = &p->funcs[p->func_tab.slots[j].idx1 - 1];

			if (f->name == name && f->filename == file) {
				*id = p->func_tab.slots[j].idx1;
				return 0;
			}
		}
	}
	uint64_t nid = (uint64_t)p->n_funcs + 1;
	/* system_name repeats name: the agent knows one name per function. */
	size_t add = msz(fsz(nid) + 2 * fsz((uint64_t)name) + fsz((uint64_t)file));
	int rc;

	if (p->n_funcs >= p->lim.max_locations || !fits(p, add))
		return -ENOSPC;
	rc = grow((void **)&p->funcs, &p->cap_funcs, p->n_funcs, sizeof(*p->funcs));
	if (!rc)
		rc = itab_reserve(&p->func_tab);
	if (rc)
		return rc;
	p->funcs[p->n_funcs] = (struct bfunction){.name = name, .filename = file};
	itab_add(&p->func_tab, h, p->n_funcs);
	p->size += add;
	*id = ++p->n_funcs;
	return 0;
}

static size_t location_size(uint64_t id, const struct blocation *l)
{
	size_t n = fsz(id) + fsz(l->mapping_id) + fsz(l->address);

	if (l->function_id)
		n += msz(fsz(l->function_id) + fsz((uint64_t)l->line));
	return msz(n);
}

uint64_t enav_pprof_location(struct enav_pprof *p, uint64_t mapping_id, uint64_t address,
			     const char *function, const char *filename, int64_t line)
{
	struct blocation l = {.mapping_id = mapping_id, .address = address};
	int64_t name = 0, file = 0;

	if (mapping_id > p->n_maps)
		return 0;
	if (function) {
		if (intern(p, function, &name) || intern(p, filename, &file) ||
		    function_id(p, name, file, &l.function_id))
			return 0;
		l.line = line;
	}
	uint32_t h =
	    mix(comb(comb(comb(comb(2, mapping_id), address), l.function_id), (uint64_t)l.line));

	if (p->loc_tab.slots) {
		for (uint32_t j = h & p->loc_tab.mask; p->loc_tab.slots[j].idx1;
		     j = (j + 1) & p->loc_tab.mask) {
			const struct blocation *o = &p->locs[p->loc_tab.slots[j].idx1 - 1];

			if (o->mapping_id == mapping_id && o->address == address &&
			    o->function_id == l.function_id && o->line == l.line)
				return p->loc_tab.slots[j].idx1;
		}
	}
	size_t add = location_size(p->n_locs + 1, &l);

	if (p->n_locs >= p->lim.max_locations || !fits(p, add))
		return 0;
	if (grow((void **)&p->locs, &p->cap_locs, p->n_locs, sizeof(l)) ||
	    itab_reserve(&p->loc_tab))
		return 0;
	p->locs[p->n_locs] = l;
	itab_add(&p->loc_tab, h, p->n_locs);
	p->size += add;
	if (mapping_id && l.function_id) {
		struct bmapping *m = &p->maps[mapping_id - 1];

		m->has_functions = true;
		m->has_filenames |= file != 0;
		m->has_line_numbers |= line != 0;
	}
	return ++p->n_locs;
}

static size_t label_size(int64_t key, int64_t str, int64_t num, int64_t unit)
{
	return msz(fsz((uint64_t)key) + fsz((uint64_t)str) + fsz((uint64_t)num) +
		   fsz((uint64_t)unit));
}

/* The string indexes of label i; interning is idempotent, so the size pass
 * and the write pass both call this. */
static int label_idx(struct enav_pprof *p, const struct enav_pprof_label *lb, int64_t *key,
		     int64_t *str, int64_t *num, int64_t *unit)
{
	int rc = intern(p, lb->key, key);

	*str = *num = *unit = 0;
	if (!rc && lb->str)
		rc = intern(p, lb->str, str);
	else if (!rc) {
		*num = lb->num;
		if (lb->num_unit)
			rc = intern(p, lb->num_unit, unit);
	}
	return rc;
}

int enav_pprof_sample(struct enav_pprof *p, const uint64_t *location_ids, size_t n_locations,
		      const int64_t *values, size_t n_values, const struct enav_pprof_label *labels,
		      size_t n_labels)
{
	bool refused = false;

	if (n_values != p->n_types || !values || (n_locations && !location_ids) ||
	    (n_labels && !labels))
		return -EINVAL;
	for (size_t i = 0; i < n_locations; i++) {
		if (location_ids[i] > p->n_locs)
			return -EINVAL;
		/* 0: enav_pprof_location refused that frame (a cap). */
		refused |= location_ids[i] == 0;
	}
	for (size_t i = 0; i < n_labels; i++)
		if (!labels[i].key)
			return -EINVAL;
	if (refused || p->n_samples >= p->lim.max_samples || p->broken)
		goto drop;

	size_t body = 0, n = 0;
	int64_t key, str, num, unit;
	int rc;

	for (size_t i = 0; i < n_locations; i++)
		n += vsz(location_ids[i]);
	body += n_locations ? msz(n) : 0;
	n = 0;
	for (size_t i = 0; i < n_values; i++)
		n += vsz((uint64_t)values[i]);
	body += msz(n);
	for (size_t i = 0; i < n_labels; i++) {
		rc = label_idx(p, &labels[i], &key, &str, &num, &unit);
		if (rc == -ENOSPC)
			goto drop;
		if (rc)
			goto nomem;
		body += label_size(key, str, num, unit);
	}
	if (!fits(p, msz(body)))
		goto drop;

	if (reserve((void **)&p->samples, &p->cap_samples, p->n_samples, 1, sizeof(*p->samples)) ||
	    reserve((void **)&p->sample_locs, &p->cap_sample_locs, p->n_sample_locs, n_locations,
		    sizeof(*p->sample_locs)) ||
	    reserve((void **)&p->sample_values, &p->cap_sample_values, p->n_sample_values, n_values,
		    sizeof(*p->sample_values)) ||
	    reserve((void **)&p->sample_labels, &p->cap_sample_labels, p->n_sample_labels, n_labels,
		    sizeof(*p->sample_labels)))
		goto nomem;
	struct bsample *sa = &p->samples[p->n_samples];

	*sa = (struct bsample){.loc_off = p->n_sample_locs,
			       .n_locs = (uint32_t)n_locations,
			       .label_off = p->n_sample_labels,
			       .n_labels = (uint32_t)n_labels};
	if (n_locations)
		memcpy(p->sample_locs + sa->loc_off, location_ids,
		       n_locations * sizeof(*location_ids));
	memcpy(p->sample_values + p->n_sample_values, values, n_values * sizeof(*values));
	for (size_t i = 0; i < n_labels; i++) {
		struct enav_pprof_decoded_label *lb = &p->sample_labels[sa->label_off + i];

		if (label_idx(p, &labels[i], &lb->key, &lb->str, &lb->num, &lb->num_unit))
			goto nomem; /* cannot happen: every string is interned above */
	}
	p->n_sample_locs += (uint32_t)n_locations;
	p->n_sample_values += (uint32_t)n_values;
	p->n_sample_labels += (uint32_t)n_labels;
	p->size += msz(body);
	p->n_samples++;
	return 0;
drop:
	p->dropped++;
	return -ENOSPC;
nomem:
	p->broken = true;
	p->dropped++;
	return -ENOMEM;
}

void enav_pprof_comment(struct enav_pprof *p, const char *comment)
{
	int64_t idx;

	if (intern(p, comment, &idx))
		return;
	size_t add = 1 + vsz((uint64_t)idx);

	if (!fits(p, add))
		return;
	if (p->n_comments == p->cap_comments) {
		size_t nc = p->cap_comments ? p->cap_comments * 2 : 4;
		int64_t *c = realloc(p->comments, nc * sizeof(*c));

		if (!c)
			return;
		p->comments = c;
		p->cap_comments = nc;
	}
	p->comments[p->n_comments++] = idx;
	p->size += add;
}

int enav_pprof_default_sample_type(struct enav_pprof *p, const char *type)
{
	int64_t idx = 0;
	int rc = type ? intern(p, type, &idx) : 0;

	if (rc)
		return rc;
	/* Field 14: a one-byte tag, written only when non-zero. */
	size_t old = fsz((uint64_t)p->default_type), add = fsz((uint64_t)idx);

	if (add > old && !fits(p, add - old))
		return -ENOSPC;
	p->size = p->size - old + add;
	p->default_type = idx;
	return 0;
}

void enav_pprof_get_counts(const struct enav_pprof *p, struct enav_pprof_counts *c)
{
	*c = (struct enav_pprof_counts){
	    .samples = p->n_samples,
	    .locations = p->n_locs,
	    .functions = p->n_funcs,
	    .mappings = p->n_maps,
	    .strings = p->n_str,
	    .dropped_samples = p->dropped,
	};
}

static void put_vt(struct enav_pb_writer *w, uint32_t field, struct vt v)
{
	enav_pb_begin(w, field);
	put_nz(w, VT_TYPE, (uint64_t)v.type);
	put_nz(w, VT_UNIT, (uint64_t)v.unit);
	enav_pb_end(w);
}

/* Everything but the samples, which are already encoded. */
static void encode_rest(const struct enav_pprof *p, struct enav_pb_writer *w)
{
	for (size_t i = 0; i < p->n_types; i++)
		put_vt(w, PF_SAMPLE_TYPE, p->types[i]);
	for (uint32_t i = 0; i < p->n_maps; i++) {
		const struct bmapping *m = &p->maps[i];

		enav_pb_begin(w, PF_MAPPING);
		put_nz(w, MA_ID, i + 1);
		put_nz(w, MA_START, m->start);
		put_nz(w, MA_LIMIT, m->limit);
		put_nz(w, MA_OFFSET, m->offset);
		put_nz(w, MA_FILENAME, (uint64_t)m->file);
		put_nz(w, MA_BUILD_ID, (uint64_t)m->build_id);
		put_nz(w, MA_HAS_FUNCTIONS, m->has_functions);
		put_nz(w, MA_HAS_FILENAMES, m->has_filenames);
		put_nz(w, MA_HAS_LINE_NUMBERS, m->has_line_numbers);
		enav_pb_end(w);
	}
	for (uint32_t i = 0; i < p->n_locs; i++) {
		const struct blocation *l = &p->locs[i];

		enav_pb_begin(w, PF_LOCATION);
		put_nz(w, LO_ID, i + 1);
		put_nz(w, LO_MAPPING_ID, l->mapping_id);
		put_nz(w, LO_ADDRESS, l->address);
		if (l->function_id) {
			enav_pb_begin(w, LO_LINE);
			put_nz(w, LI_FUNCTION_ID, l->function_id);
			put_nz(w, LI_LINE, (uint64_t)l->line);
			enav_pb_end(w);
		}
		enav_pb_end(w);
	}
	for (uint32_t i = 0; i < p->n_funcs; i++) {
		const struct bfunction *f = &p->funcs[i];

		enav_pb_begin(w, PF_FUNCTION);
		put_nz(w, FN_ID, i + 1);
		put_nz(w, FN_NAME, (uint64_t)f->name);
		put_nz(w, FN_SYSTEM_NAME, (uint64_t)f->name);
		put_nz(w, FN_FILENAME, (uint64_t)f->filename);
		enav_pb_end(w);
	}
	for (uint32_t i = 0; i < p->n_str; i++)
		enav_pb_bytes(w, PF_STRING_TABLE, p->str[i], p->str_len[i]);
	put_nz(w, PF_TIME_NANOS, (uint64_t)p->time_nanos);
	put_nz(w, PF_DURATION_NANOS, (uint64_t)p->duration_nanos);
	put_vt(w, PF_PERIOD_TYPE, p->period_type);
	put_nz(w, PF_PERIOD, (uint64_t)p->period);
	for (size_t i = 0; i < p->n_comments; i++)
		enav_pb_varint(w, PF_COMMENT, (uint64_t)p->comments[i]);
	put_nz(w, PF_DEFAULT_SAMPLE_TYPE, (uint64_t)p->default_type);
}

/* The samples, in the order they came. */
static void encode_samples(const struct enav_pprof *p, struct enav_pb_writer *w)
{
	for (uint32_t i = 0; i < p->n_samples; i++) {
		const struct bsample *sa = &p->samples[i];

		enav_pb_begin(w, PF_SAMPLE);
		/* A frameless sample may come before any array exists. */
		if (sa->n_locs)
			enav_pb_packed_varints(w, SA_LOCATION_ID, p->sample_locs + sa->loc_off,
					       sa->n_locs);
		/* int64 values are varints of their two's complement. */
		enav_pb_packed_varints(w, SA_VALUE,
				       (const uint64_t *)p->sample_values + (size_t)i * p->n_types,
				       p->n_types);
		for (uint32_t k = 0; k < sa->n_labels; k++) {
			const struct enav_pprof_decoded_label *lb =
			    &p->sample_labels[sa->label_off + k];

			enav_pb_begin(w, SA_LABEL);
			put_nz(w, LA_KEY, (uint64_t)lb->key);
			put_nz(w, LA_STR, (uint64_t)lb->str);
			put_nz(w, LA_NUM, (uint64_t)lb->num);
			put_nz(w, LA_NUM_UNIT, (uint64_t)lb->num_unit);
			enav_pb_end(w);
		}
		enav_pb_end(w);
	}
}

int enav_pprof_encode(struct enav_pprof *p, bool gzip, uint8_t **out, size_t *out_len)
{
	struct enav_pb_writer w;
	int rc = 0;

	*out = NULL;
	*out_len = 0;
	if (p->broken)
		return -ENOMEM;
	/* The running size is an upper bound of the encoding and within
	 * max_bytes, so the writer can only fail on an allocation. */
	enav_pb_writer_init(&w, p->lim.max_bytes);
	encode_rest(p, &w);
	encode_samples(p, &w);
	if (w.failed) {
		rc = -ENOMEM;
	} else if (gzip) {
		rc = enav_gzip_compress(w.buf, w.len, out, out_len);
	} else if (w.len == 0 || !w.buf) {
		rc = (*out = malloc(1)) ? 0 : -ENOMEM;
	} else {
		*out = w.buf; /* handed over */
		*out_len = w.len;
		w.buf = NULL;
	}
	enav_pb_writer_free(&w);
	return rc;
}
