/* SPDX-License-Identifier: Apache-2.0 */
#include "model/pprof.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "platform/protobuf.h"

/* Field numbers of perftools.profiles (profile.proto). */
enum {
	PF_SAMPLE_TYPE = 1,
	PF_SAMPLE = 2,
	PF_MAPPING = 3,
	PF_LOCATION = 4,
	PF_FUNCTION = 5,
	PF_STRING_TABLE = 6,
	PF_DROP_FRAMES = 7,
	PF_KEEP_FRAMES = 8,
	PF_TIME_NANOS = 9,
	PF_DURATION_NANOS = 10,
	PF_PERIOD_TYPE = 11,
	PF_PERIOD = 12,
	PF_COMMENT = 13,
	PF_DEFAULT_SAMPLE_TYPE = 14,
	PF_DOC_URL = 15,
};
enum { VT_TYPE = 1, VT_UNIT = 2 };
enum { SA_LOCATION_ID = 1, SA_VALUE = 2, SA_LABEL = 3 };
enum { LA_KEY = 1, LA_STR = 2, LA_NUM = 3, LA_NUM_UNIT = 4 };
enum {
	MA_ID = 1,
	MA_START = 2,
	MA_LIMIT = 3,
	MA_OFFSET = 4,
	MA_FILENAME = 5,
	MA_BUILD_ID = 6,
	MA_HAS_FUNCTIONS = 7,
	MA_HAS_FILENAMES = 8,
	MA_HAS_LINE_NUMBERS = 9,
};
enum { LO_ID = 1, LO_MAPPING_ID = 2, LO_ADDRESS = 3, LO_LINE = 4 };
enum { LI_FUNCTION_ID = 1, LI_LINE = 2 };
enum { FN_ID = 1, FN_NAME = 2, FN_SYSTEM_NAME = 3, FN_FILENAME = 4 };

#define DEF_MAX_SAMPLES	  1000000u
#define DEF_MAX_LOCATIONS 1000000u
#define DEF_MAX_STRINGS	  1000000u
#define DEF_MAX_BYTES	  ((size_t)64 << 20)
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

struct islot {
	uint32_t idx1; /* entry index + 1; 0 = empty */
	uint32_t hash;
};

struct itab {
	struct islot *slots;
	uint32_t mask, n;
};

static uint32_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return (uint32_t)h;
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

struct vt {
	int64_t type, unit;
};

struct bmapping {
	uint64_t start, limit, offset;
	int64_t file, build_id;
	bool has_functions, has_filenames, has_line_numbers;
};

struct bfunction {
	int64_t name, filename;
};

struct blocation {
	uint64_t mapping_id, address, function_id;
	int64_t line;
};

struct enav_pprof {
	struct enav_pprof_limits lim;
	struct vt *types;
	size_t n_types;
	struct vt period_type;
	int64_t period, time_nanos, duration_nanos;

	char **str;
	size_t *str_len;
	uint32_t n_str, cap_str;
	struct itab str_tab;

	struct bmapping *maps;
	uint32_t n_maps, cap_maps;
	struct itab map_tab;

	struct bfunction *funcs;
	uint32_t n_funcs, cap_funcs;
	struct itab func_tab;

	struct blocation *locs;
	uint32_t n_locs, cap_locs;
	struct itab loc_tab;

	int64_t *comments;
	size_t n_comments, cap_comments;
	int64_t default_type; /* string index, 0 = none */

	struct enav_pb_writer samples; /* Sample messages, encoded as they come */
	uint64_t n_samples, dropped;

	size_t size; /* encoded size so far (mapping flags counted as set) */
	bool broken; /* an allocation failed half way: encode refuses */
};

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
	enav_pb_writer_init(&p->samples, p->lim.max_bytes);
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
	enav_pb_writer_free(&p->samples);
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

	struct enav_pb_writer *w = &p->samples;

	enav_pb_begin(w, PF_SAMPLE);
	enav_pb_packed_varints(w, SA_LOCATION_ID, location_ids, n_locations);
	/* int64 values are varints of their two's complement. */
	enav_pb_packed_varints(w, SA_VALUE, (const uint64_t *)values, n_values);
	for (size_t i = 0; i < n_labels; i++) {
		if (label_idx(p, &labels[i], &key, &str, &num, &unit))
			goto nomem; /* cannot happen: every string is interned above */
		enav_pb_begin(w, SA_LABEL);
		put_nz(w, LA_KEY, (uint64_t)key);
		put_nz(w, LA_STR, (uint64_t)str);
		put_nz(w, LA_NUM, (uint64_t)num);
		put_nz(w, LA_NUM_UNIT, (uint64_t)unit);
		enav_pb_end(w);
	}
	enav_pb_end(w);
	if (w->failed)
		goto nomem;
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

#define ZCHUNK ((size_t)1 << 30) /* zlib counts in uInt */

static int gzip_buf(const uint8_t *in, size_t n, uint8_t **out, size_t *out_len)
{
	z_stream zs = {0};

	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	size_t cap = deflateBound(&zs, n) + 64, ipos = 0, opos = 0;
	uint8_t *buf = malloc(cap);
	int rc = -ENOMEM, flush;

	if (!buf)
		goto out;
	do {
		size_t ichunk = n - ipos < ZCHUNK ? n - ipos : ZCHUNK;

		zs.next_in = (Bytef *)(in + ipos);
		zs.avail_in = (uInt)ichunk;
		ipos += ichunk;
		flush = ipos == n ? Z_FINISH : Z_NO_FLUSH;
		for (;;) {
			size_t ochunk = cap - opos < ZCHUNK ? cap - opos : ZCHUNK;

			zs.next_out = buf + opos;
			zs.avail_out = (uInt)ochunk;
			int zr = deflate(&zs, flush);

			opos += ochunk - zs.avail_out;
			if (zr == Z_STREAM_END)
				break;
			if (zr != Z_OK && zr != Z_BUF_ERROR)
				goto out;
			if (flush != Z_FINISH && zs.avail_in == 0 && zs.avail_out != 0)
				break;
			if (opos == cap || (zr == Z_BUF_ERROR && ochunk == zs.avail_out))
				goto out; /* no room or no progress: deflateBound lied */
		}
	} while (flush != Z_FINISH);
	rc = 0;
	*out = buf;
	*out_len = opos;
	buf = NULL;
out:
	deflateEnd(&zs);
	free(buf);
	return rc;
}

int enav_pprof_encode(struct enav_pprof *p, bool gzip, uint8_t **out, size_t *out_len)
{
	struct enav_pb_writer w;
	int rc = 0;

	*out = NULL;
	*out_len = 0;
	if (p->broken)
		return -ENOMEM;
	enav_pb_writer_init(&w, p->lim.max_bytes);
	encode_rest(p, &w);
	if (w.failed) {
		/* The running size keeps the encoding within max_bytes, so
		 * only an allocation can have failed. */
		rc = -ENOMEM;
		goto out;
	}
	size_t total = w.len + p->samples.len;

	if (total > p->lim.max_bytes) {
		rc = -E2BIG;
		goto out;
	}
	uint8_t *raw = malloc(total ? total : 1);

	if (!raw) {
		rc = -ENOMEM;
		goto out;
	}
	memcpy(raw, w.buf, w.len);
	if (p->samples.len)
		memcpy(raw + w.len, p->samples.buf, p->samples.len);
	if (gzip) {
		rc = gzip_buf(raw, total, out, out_len);
		free(raw);
	} else {
		*out = raw;
		*out_len = total;
	}
out:
	enav_pb_writer_free(&w);
	return rc;
}

/* ---- decoder ---- */

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

static int gunzip(struct dctx *c, const uint8_t *in, size_t n, size_t max, uint8_t **out,
		  size_t *out_len)
{
	z_stream zs = {0};

	if (n > UINT_MAX)
		return fail(c, -E2BIG, "gzip input of %zu bytes is too large", n);
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return fail(c, -ENOMEM, "inflateInit2 failed");
	/* One byte past max tells "exactly max" from "more than max". */
	size_t hard = max + 1, cap = n < hard / 4 ? n * 4 : hard, opos = 0;
	uint8_t *buf = NULL;
	int rc;

	if (cap < 65536)
		cap = hard < 65536 ? hard : 65536;
	buf = malloc(cap);
	if (!buf) {
		rc = fail(c, -ENOMEM, "out of memory inflating");
		goto out;
	}
	zs.next_in = (Bytef *)in;
	zs.avail_in = (uInt)n;
	for (;;) {
		if (opos == cap) {
			size_t nc = cap > hard / 2 ? hard : cap * 2;
			uint8_t *nb = realloc(buf, nc);

			if (!nb) {
				rc = fail(c, -ENOMEM, "out of memory inflating");
				goto out;
			}
			buf = nb;
			cap = nc;
		}
		size_t ochunk = cap - opos < ZCHUNK ? cap - opos : ZCHUNK;

		zs.next_out = buf + opos;
		zs.avail_out = (uInt)ochunk;
		int zr = inflate(&zs, Z_NO_FLUSH);

		opos += ochunk - zs.avail_out;
		if (opos > max) {
			rc = fail(c, -E2BIG, "gzip: decompressed size exceeds %zu bytes", max);
			goto out;
		}
		if (zr == Z_STREAM_END)
			break;
		if (zr == Z_OK)
			continue;
		if (zr == Z_BUF_ERROR && zs.avail_out == 0)
			continue;
		if (zr == Z_BUF_ERROR)
			rc = fail(c, -EINVAL, "gzip: truncated stream");
		else if (zr == Z_MEM_ERROR)
			rc = fail(c, -ENOMEM, "gzip: out of memory");
		else
			rc = fail(c, -EINVAL, "gzip: %s", zs.msg ? zs.msg : "corrupt stream");
		goto out;
	}
	if (zs.avail_in) {
		rc = fail(c, -EINVAL, "gzip: %u bytes after the end of the stream", zs.avail_in);
		goto out;
	}
	*out = buf;
	*out_len = opos;
	buf = NULL;
	rc = 0;
out:
	inflateEnd(&zs);
	free(buf);
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
	if (len >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
		if ((rc = gunzip(&c, data, len, max_bytes, &plain, &plain_len)))
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
	for (size_t i = 0; d->samples && i < d->n_samples; i++) {
		free(d->samples[i].location_ids);
		free(d->samples[i].values);
		free(d->samples[i].labels);
	}
	free(d->samples);
	free(d->mappings);
	free(d->locations);
	free(d->functions);
	free(d->comments);
	free(d->lines);
	*d = (struct enav_pprof_decoded){0};
}
