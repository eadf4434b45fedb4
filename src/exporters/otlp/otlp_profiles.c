/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ExportProfilesServiceRequest (opentelemetry-proto profiles/v1development,
 * commit ac2c4b5) from pprof documents: the tables of a profile the agent
 * built (enav_pprof_tables, no encoding in between), or an encoded pprof
 * (a pulled one), decoded first into the same tables.  The only file that
 * knows this development schema.
 *
 * In this version every table (strings, mappings, locations, functions,
 * stacks, attributes, links) lives in one ProfilesDictionary at the request
 * level (field 2), shared by all profiles; samples reference a Stack by
 * index, a Stack lists Location indices (leaf first), and index 0 of every
 * table is the zero value.  A Profile has a single sample_type, so a pprof
 * document with N sample types becomes N Profiles (one per value column),
 * all in the ScopeProfiles of that document's resource.
 *
 * Dictionary items are interned by their encoded bytes: an item's encoding
 * only holds indices of items interned before it, so equal bytes means an
 * equal item and the tables carry no duplicates.  Only referenced items are
 * interned (no orphans).  pprof labels become sample attributes
 * (KeyValueAndUnit, num_unit as unit), and a sample's trace_id and span_id
 * labels (32 and 16 hex digits, ADR 0021) also its Link; a mapping's build id becomes its
 * process.executable.build_id.gnu attribute.  Not carried: pprof comments,
 * default_sample_type, drop/keep_frames, mapping flags, function start line
 * (the decoder does not expose it); samples with the same identity are not
 * merged.
 */
#include "exporters/otlp/otlp_encode.h"
#include "exporters/otlp/otlp_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pprof.h"
#include "platform/numfmt.h"
#include "platform/u64map.h"

/* collector/profiles/v1development/profiles_service.proto */
#define REQ_RESOURCE_PROFILES 1
#define REQ_DICTIONARY	      2
/* ResourceProfiles: resource = 1, scope_profiles = 2; ScopeProfiles:
 * scope = 1, profiles = 2 */
#define RP_SCOPE_PROFILES 2
#define SP_PROFILES	  2
/* ProfilesDictionary */
#define DICT_MAPPING   1
#define DICT_LOCATION  2
#define DICT_FUNCTION  3
#define DICT_LINK      4
#define DICT_STRING    5
#define DICT_ATTRIBUTE 6
#define DICT_STACK     7
/* Profile */
#define PROFILE_SAMPLE_TYPE 1
#define PROFILE_SAMPLES	    2
#define PROFILE_TIME	    3 /* fixed64 */
#define PROFILE_DURATION    4
#define PROFILE_PERIOD_TYPE 5
#define PROFILE_PERIOD	    6
/* ValueType */
#define VT_TYPE 1
#define VT_UNIT 2
/* Sample */
#define SAMPLE_STACK	  1
#define SAMPLE_ATTRIBUTES 2
#define SAMPLE_LINK_INDEX 3
#define SAMPLE_VALUES	  4
/* Link */
#define LINK_TRACE_ID 1
#define LINK_SPAN_ID  2
/* Mapping */
#define MAPPING_START	   1
#define MAPPING_LIMIT	   2
#define MAPPING_OFFSET	   3
#define MAPPING_FILENAME   4
#define MAPPING_ATTRIBUTES 5
/* Stack */
#define STACK_LOCATIONS 1
/* Location */
#define LOCATION_MAPPING 1
#define LOCATION_ADDRESS 2
#define LOCATION_LINES	 3
/* Line */
#define LINE_FUNCTION 1
#define LINE_LINE     2
/* Function */
#define FUNCTION_NAME	     1
#define FUNCTION_SYSTEM_NAME 2
#define FUNCTION_FILENAME    3
/* KeyValueAndUnit */
#define KVU_KEY	  1
#define KVU_VALUE 2
#define KVU_UNIT  3

#define BUILD_ID_ATTR "process.executable.build_id.gnu"

/* ---- interning tables: byte strings -> dense index, in insertion order ---- */

struct item {
	size_t off, len;
	uint64_t hash;
};

struct table {
	uint8_t *arena;
	size_t arena_len, arena_cap;
	struct item *items;
	size_t n, cap;
	uint32_t *slots; /* index + 1; 0 = empty */
	size_t nslots;
};

struct dict {
	struct table t[DICT_STACK + 1]; /* by dictionary field number; [0] unused */
	size_t bytes, limit;		/* arena bytes over every table, and their cap */
	struct enav_pb_writer scratch;	/* one item's encoding */
};

static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static int table_grow_slots(struct table *t)
{
	size_t ns = t->nslots ? t->nslots * 2 : 64;
	uint32_t *s = calloc(ns, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t k = (size_t)t->items[i].hash & (ns - 1);

		while (s[k])
			k = (k + 1) & (ns - 1);
		s[k] = (uint32_t)(i + 1);
	}
	free(t->slots);
	t->slots = s;
	t->nslots = ns;
	return 0;
}

/* The index of bytes [p, p+n) in t, adding it when new: >= 0, or -E2BIG
 * (the dictionary's byte cap, or INT32_MAX items), -ENOMEM. */
static int64_t intern(struct dict *d, struct table *t, const void *p, size_t n)
{
	uint64_t h = hash_bytes(p, n);

	if (t->nslots) {
		for (size_t k = (size_t)h & (t->nslots - 1); t->slots[k];
		     k = (k + 1) & (t->nslots - 1)) {
			const struct item *it = &t->items[t->slots[k] - 1];

			if (it->hash == h && it->len == n &&
			    (n == 0 || memcmp(t->arena + it->off, p, n) == 0))
				return t->slots[k] - 1;
		}
	}
	if (t->n >= INT32_MAX || n > d->limit - d->bytes)
		return -E2BIG;
	if ((t->n + 1) * 2 > t->nslots && table_grow_slots(t))
		return -ENOMEM;
	if (t->n == t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 64;
		struct item *ni = realloc(t->items, nc * sizeof(*ni));

		if (!ni)
			return -ENOMEM;
		t->items = ni;
		t->cap = nc;
	}
	if (n > t->arena_cap - t->arena_len) {
		size_t nc = t->arena_cap ? t->arena_cap : 1024;

		while (nc - t->arena_len < n)
			nc *= 2;
		uint8_t *na = realloc(t->arena, nc);

		if (!na)
			return -ENOMEM;
		t->arena = na;
		t->arena_cap = nc;
	}
	if (n)
		memcpy(t->arena + t->arena_len, p, n);
	t->items[t->n] = (struct item){.off = t->arena_len, .len = n, .hash = h};
	t->arena_len += n;
	d->bytes += n;
	size_t k = (size_t)h & (t->nslots - 1);

	while (t->slots[k])
		k = (k + 1) & (t->nslots - 1);
	t->slots[k] = (uint32_t)(t->n + 1);
	return (int64_t)t->n++;
}

static void dict_free(struct dict *d)
{
	for (size_t i = 0; i <= DICT_STACK; i++) {
		free(d->t[i].arena);
		free(d->t[i].items);
		free(d->t[i].slots);
	}
	enav_pb_writer_free(&d->scratch);
}

static struct enav_pb_writer *scratch(struct dict *d)
{
	d->scratch.len = 0;
	d->scratch.depth = 0;
	d->scratch.failed = false;
	return &d->scratch;
}

static int64_t intern_scratch(struct dict *d, int table)
{
	if (d->scratch.failed)
		return -E2BIG;
	return intern(d, &d->t[table], d->scratch.buf, d->scratch.len);
}

/* Index 0 of every table: the zero value ("" and empty messages). */
static int dict_init(struct dict *d, size_t limit)
{
	static const int tables[] = {DICT_MAPPING,   DICT_LOCATION, DICT_FUNCTION,
				     DICT_ATTRIBUTE, DICT_STACK,    DICT_STRING};

	*d = (struct dict){.limit = limit};
	enav_pb_writer_init(&d->scratch, limit);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		int64_t rc = intern(d, &d->t[tables[i]], "", 0);

		if (rc < 0)
			return (int)rc;
	}
	/* link_table[0]: the schema asks for 16 and 8 zero bytes. */
	static const uint8_t zero[16];
	struct enav_pb_writer *w = scratch(d);

	enav_pb_bytes(w, LINK_TRACE_ID, zero, 16);
	enav_pb_bytes(w, LINK_SPAN_ID, zero, 8);
	int64_t rc = intern_scratch(d, DICT_LINK);
	return rc < 0 ? (int)rc : 0;
}

static int64_t intern_str(struct dict *d, const char *s)
{
	return intern(d, &d->t[DICT_STRING], s, strlen(s));
}

/* ---- one pprof document ---- */

struct doc {
	struct dict *d;
	const struct enav_pprof_decoded *p;
	int64_t *strs; /* pprof string index -> dictionary index, -1 unset */
	struct enav_u64map mappings, locations, functions; /* pprof id -> array position */
	int64_t *map_idx, *loc_idx, *fn_idx; /* array position -> dictionary, -1 unset */
	int64_t *stack_idx;		     /* per sample */
	uint64_t *attr_idx;		     /* per sample: n_labels each */
	int64_t *link_idx;		     /* per sample: 0 = no link */
	size_t *attr_off, *attr_n;
};

static int64_t doc_str(struct doc *c, int64_t i)
{
	if (i <= 0 || (size_t)i >= c->p->n_strings)
		return 0; /* the decoder validated indexes; 0 is "" */
	if (c->strs[i] < 0)
		c->strs[i] = intern_str(c->d, c->p->strings[i]);
	return c->strs[i];
}

static int64_t doc_mapping(struct doc *c, uint64_t id)
{
	uint64_t pos;

	if (id == 0 || !enav_u64map_get(&c->mappings, id, &pos))
		return 0;
	if (c->map_idx[pos] >= 0)
		return c->map_idx[pos];
	const struct enav_pprof_decoded_mapping *m = &c->p->mappings[pos];
	int64_t file = doc_str(c, m->filename), attr = 0;

	if (file < 0)
		return file;
	if (m->build_id > 0 && c->p->strings[m->build_id][0]) {
		int64_t key = intern_str(c->d, BUILD_ID_ATTR);

		if (key < 0)
			return key;
		struct enav_pb_writer *w = scratch(c->d);

		enav_pb_varint(w, KVU_KEY, (uint64_t)key);
		enav_pb_begin(w, KVU_VALUE);
		enav_pb_string(w, 1 /* AnyValue.string_value */, c->p->strings[m->build_id]);
		enav_pb_end(w);
		if ((attr = intern_scratch(c->d, DICT_ATTRIBUTE)) < 0)
			return attr;
	}
	struct enav_pb_writer *w = scratch(c->d);

	if (m->start)
		enav_pb_varint(w, MAPPING_START, m->start);
	if (m->limit)
		enav_pb_varint(w, MAPPING_LIMIT, m->limit);
	if (m->offset)
		enav_pb_varint(w, MAPPING_OFFSET, m->offset);
	if (file)
		enav_pb_varint(w, MAPPING_FILENAME, (uint64_t)file);
	if (attr) {
		uint64_t a = (uint64_t)attr;

		enav_pb_packed_varints(w, MAPPING_ATTRIBUTES, &a, 1);
	}
	return c->map_idx[pos] = intern_scratch(c->d, DICT_MAPPING);
}

static int64_t doc_function(struct doc *c, uint64_t id)
{
	uint64_t pos;

	if (id == 0 || !enav_u64map_get(&c->functions, id, &pos))
		return 0;
	if (c->fn_idx[pos] >= 0)
		return c->fn_idx[pos];
	const struct enav_pprof_decoded_function *f = &c->p->functions[pos];
	int64_t name = doc_str(c, f->name), sys = doc_str(c, f->system_name),
		file = doc_str(c, f->filename);

	if (name < 0 || sys < 0 || file < 0)
		return name < 0 ? name : sys < 0 ? sys : file;
	struct enav_pb_writer *w = scratch(c->d);

	if (name)
		enav_pb_varint(w, FUNCTION_NAME, (uint64_t)name);
	if (sys)
		enav_pb_varint(w, FUNCTION_SYSTEM_NAME, (uint64_t)sys);
	if (file)
		enav_pb_varint(w, FUNCTION_FILENAME, (uint64_t)file);
	return c->fn_idx[pos] = intern_scratch(c->d, DICT_FUNCTION);
}

static int64_t doc_location(struct doc *c, uint64_t id)
{
	uint64_t pos;

	if (id == 0 || !enav_u64map_get(&c->locations, id, &pos))
		return 0;
	if (c->loc_idx[pos] >= 0)
		return c->loc_idx[pos];
	const struct enav_pprof_decoded_location *l = &c->p->locations[pos];
	int64_t map = doc_mapping(c, l->mapping_id);

	if (map < 0)
		return map;
	/* Functions first: interning them reuses the scratch writer. */
	for (size_t i = 0; i < l->n_lines; i++) {
		int64_t f = doc_function(c, l->lines[i].function_id);

		if (f < 0)
			return f;
	}
	struct enav_pb_writer *w = scratch(c->d);

	if (map)
		enav_pb_varint(w, LOCATION_MAPPING, (uint64_t)map);
	if (l->address)
		enav_pb_varint(w, LOCATION_ADDRESS, l->address);
	for (size_t i = 0; i < l->n_lines; i++) {
		int64_t f = doc_function(c, l->lines[i].function_id); /* cached */

		enav_pb_begin(w, LOCATION_LINES);
		if (f)
			enav_pb_varint(w, LINE_FUNCTION, (uint64_t)f);
		if (l->lines[i].line)
			enav_pb_varint(w, LINE_LINE, (uint64_t)l->lines[i].line);
		enav_pb_end(w);
	}
	return c->loc_idx[pos] = intern_scratch(c->d, DICT_LOCATION);
}

static int64_t doc_stack(struct doc *c, const struct enav_pprof_decoded_sample *s)
{
	uint64_t small[64], *idx = small;
	int64_t rc = 0;

	if (s->n_locations > sizeof(small) / sizeof(small[0]) &&
	    !(idx = calloc(s->n_locations, sizeof(*idx))))
		return -ENOMEM;
	for (size_t i = 0; i < s->n_locations && rc >= 0; i++) {
		rc = doc_location(c, s->location_ids[i]);
		idx[i] = (uint64_t)rc;
	}
	if (rc >= 0) {
		struct enav_pb_writer *w = scratch(c->d);

		enav_pb_packed_varints(w, STACK_LOCATIONS, idx, s->n_locations);
		rc = intern_scratch(c->d, DICT_STACK);
	}
	if (idx != small)
		free(idx);
	return rc;
}

/* Sample attributes from pprof labels; a key already used by this sample
 * is skipped (attribute_indices must keep keys unique). */
static int doc_attributes(struct doc *c, size_t si)
{
	const struct enav_pprof_decoded_sample *s = &c->p->samples[si];
	uint64_t *out = c->attr_idx + c->attr_off[si];
	size_t n = 0;

	for (size_t i = 0; i < s->n_labels; i++) {
		const struct enav_pprof_decoded_label *lb = &s->labels[i];
		bool dup = false;

		for (size_t k = 0; k < i && !dup; k++)
			dup = s->labels[k].key == lb->key;
		if (dup)
			continue;
		int64_t key = doc_str(c, lb->key), unit = lb->str ? 0 : doc_str(c, lb->num_unit);

		if (key < 0 || unit < 0)
			return (int)(key < 0 ? key : unit);
		struct enav_pb_writer *w = scratch(c->d);

		if (key)
			enav_pb_varint(w, KVU_KEY, (uint64_t)key);
		enav_pb_begin(w, KVU_VALUE);
		if (lb->str)
			enav_pb_string(w, 1 /* AnyValue.string_value */, c->p->strings[lb->str]);
		else
			enav_pb_varint(w, 3 /* AnyValue.int_value */, (uint64_t)lb->num);
		enav_pb_end(w);
		if (unit)
			enav_pb_varint(w, KVU_UNIT, (uint64_t)unit);
		int64_t a = intern_scratch(c->d, DICT_ATTRIBUTE);

		if (a < 0)
			return (int)a;
		out[n++] = (uint64_t)a;
	}
	c->attr_n[si] = n;
	return 0;
}

/* The sample's Link, from its trace_id and span_id labels (the profile's
 * link to a span, ADR 0021); 0 when it has not both, well formed. */
static int64_t doc_link(struct doc *c, size_t si)
{
	const struct enav_pprof_decoded_sample *s = &c->p->samples[si];
	uint8_t trace[16], span[8];
	bool has_trace = false, has_span = false;

	for (size_t i = 0; i < s->n_labels; i++) {
		const struct enav_pprof_decoded_label *lb = &s->labels[i];

		if (!lb->str)
			continue;
		const char *key = c->p->strings[lb->key], *v = c->p->strings[lb->str];

		if (!strcmp(key, "trace_id"))
			has_trace = enav_parse_hex_bytes(v, strlen(v), trace, 16);
		else if (!strcmp(key, "span_id"))
			has_span = enav_parse_hex_bytes(v, strlen(v), span, 8);
	}
	if (!has_trace || !has_span)
		return 0;
	struct enav_pb_writer *w = scratch(c->d);

	enav_pb_bytes(w, LINK_TRACE_ID, trace, 16);
	enav_pb_bytes(w, LINK_SPAN_ID, span, 8);
	return intern_scratch(c->d, DICT_LINK);
}

static void doc_free(struct doc *c)
{
	enav_u64map_destroy(&c->mappings);
	enav_u64map_destroy(&c->locations);
	enav_u64map_destroy(&c->functions);
	free(c->strs);
	free(c->map_idx);
	free(c->loc_idx);
	free(c->fn_idx);
	free(c->stack_idx);
	free(c->attr_idx);
	free(c->link_idx);
	free(c->attr_off);
	free(c->attr_n);
}

static int64_t *unset_array(size_t n)
{
	int64_t *a = malloc((n ? n : 1) * sizeof(*a));

	if (a)
		for (size_t i = 0; i < n; i++)
			a[i] = -1;
	return a;
}

static int id_map(struct enav_u64map *m, size_t n, const void *base, size_t stride)
{
	if (n > UINT32_MAX / 2 || enav_u64map_init(m, n ? (uint32_t)n : 1))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		uint64_t id;

		memcpy(&id, (const uint8_t *)base + i * stride, sizeof(id)); /* id is first */
		if (enav_u64map_put(m, id, i))
			return -ENOMEM;
	}
	return 0;
}

static int doc_init(struct doc *c, struct dict *d, const struct enav_pprof_decoded *p)
{
	size_t n_attr = 0;

	*c = (struct doc){.d = d, .p = p};
	for (size_t i = 0; i < p->n_samples; i++)
		n_attr += p->samples[i].n_labels;
	c->strs = unset_array(p->n_strings);
	c->map_idx = unset_array(p->n_mappings);
	c->loc_idx = unset_array(p->n_locations);
	c->fn_idx = unset_array(p->n_functions);
	c->stack_idx = unset_array(p->n_samples);
	c->attr_idx = malloc((n_attr ? n_attr : 1) * sizeof(*c->attr_idx));
	c->link_idx = calloc(p->n_samples ? p->n_samples : 1, sizeof(*c->link_idx));
	c->attr_off = calloc(p->n_samples ? p->n_samples : 1, sizeof(*c->attr_off));
	c->attr_n = calloc(p->n_samples ? p->n_samples : 1, sizeof(*c->attr_n));
	if (!c->strs || !c->map_idx || !c->loc_idx || !c->fn_idx || !c->stack_idx || !c->attr_idx ||
	    !c->link_idx || !c->attr_off || !c->attr_n)
		return -ENOMEM;
	n_attr = 0;
	for (size_t i = 0; i < p->n_samples; i++) {
		c->attr_off[i] = n_attr;
		n_attr += p->samples[i].n_labels;
	}
	if (id_map(&c->mappings, p->n_mappings, p->mappings, sizeof(*p->mappings)) ||
	    id_map(&c->locations, p->n_locations, p->locations, sizeof(*p->locations)) ||
	    id_map(&c->functions, p->n_functions, p->functions, sizeof(*p->functions)))
		return -ENOMEM;
	/* Stacks and attributes once per sample, for every sample type. */
	for (size_t i = 0; i < p->n_samples; i++) {
		int64_t st = doc_stack(c, &p->samples[i]);
		int rc;

		if (st < 0)
			return (int)st;
		c->stack_idx[i] = st;
		if ((rc = doc_attributes(c, i)))
			return rc;
		int64_t link = doc_link(c, i);

		if (link < 0)
			return (int)link;
		c->link_idx[i] = link;
	}
	return 0;
}

static int put_value_type(struct enav_pb_writer *w, struct doc *c, uint32_t field,
			  const struct enav_pprof_value_type_idx *vt)
{
	int64_t type = doc_str(c, vt->type), unit = doc_str(c, vt->unit);

	if (type < 0 || unit < 0)
		return (int)(type < 0 ? type : unit);
	enav_pb_begin(w, field);
	if (type)
		enav_pb_varint(w, VT_TYPE, (uint64_t)type);
	if (unit)
		enav_pb_varint(w, VT_UNIT, (uint64_t)unit);
	enav_pb_end(w);
	return 0;
}

/* One Profile per sample type of the document. */
static int put_doc_profiles(struct enav_pb_writer *w, struct doc *c)
{
	const struct enav_pprof_decoded *p = c->p;
	bool has_period = p->period_type.type || p->period_type.unit;

	for (size_t t = 0; t < p->n_sample_types; t++) {
		int rc;

		enav_pb_begin(w, SP_PROFILES);
		if ((rc = put_value_type(w, c, PROFILE_SAMPLE_TYPE, &p->sample_types[t])))
			return rc;
		for (size_t i = 0; i < p->n_samples; i++) {
			const struct enav_pprof_decoded_sample *s = &p->samples[i];
			uint64_t v = t < s->n_values ? (uint64_t)s->values[t] : 0;

			enav_pb_begin(w, PROFILE_SAMPLES);
			if (c->stack_idx[i])
				enav_pb_varint(w, SAMPLE_STACK, (uint64_t)c->stack_idx[i]);
			enav_pb_packed_varints(w, SAMPLE_ATTRIBUTES, c->attr_idx + c->attr_off[i],
					       c->attr_n[i]);
			if (c->link_idx[i])
				enav_pb_varint(w, SAMPLE_LINK_INDEX, (uint64_t)c->link_idx[i]);
			enav_pb_packed_varints(w, SAMPLE_VALUES, &v, 1);
			enav_pb_end(w);
		}
		if (p->time_nanos > 0)
			enav_pb_fixed64(w, PROFILE_TIME, (uint64_t)p->time_nanos);
		if (p->duration_nanos > 0)
			enav_pb_varint(w, PROFILE_DURATION, (uint64_t)p->duration_nanos);
		if (has_period && (rc = put_value_type(w, c, PROFILE_PERIOD_TYPE, &p->period_type)))
			return rc;
		if (p->period)
			enav_pb_varint(w, PROFILE_PERIOD, (uint64_t)p->period);
		enav_pb_end(w);
		if (w->failed)
			return -E2BIG;
	}
	return 0;
}

static void put_table(struct enav_pb_writer *w, const struct table *t, uint32_t field)
{
	for (size_t i = 0; i < t->n; i++)
		enav_pb_bytes(w, field, t->arena + t->items[i].off, t->items[i].len);
}

static void put_dictionary(struct enav_pb_writer *w, const struct dict *d)
{
	enav_pb_begin(w, REQ_DICTIONARY);
	put_table(w, &d->t[DICT_MAPPING], DICT_MAPPING);
	put_table(w, &d->t[DICT_LOCATION], DICT_LOCATION);
	put_table(w, &d->t[DICT_FUNCTION], DICT_FUNCTION);
	put_table(w, &d->t[DICT_LINK], DICT_LINK);
	put_table(w, &d->t[DICT_STRING], DICT_STRING);
	put_table(w, &d->t[DICT_ATTRIBUTE], DICT_ATTRIBUTE);
	put_table(w, &d->t[DICT_STACK], DICT_STACK);
	enav_pb_end(w);
}

static void set_err(char *err, size_t errlen, const char *fmt, size_t i, const char *what)
{
	if (err && errlen)
		snprintf(err, errlen, fmt, i, what);
}

int enav_otlp_encode_profiles(struct enav_pb_writer *w, struct enav_otlp_scope scope,
			      const struct enav_otlp_profile_in *profiles, size_t n, char *err,
			      size_t errlen)
{
	struct dict d;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!w || w->depth != 0 || (n && !profiles)) {
		set_err(err, errlen, "profile %zu: %s", 0, "invalid arguments");
		return -EINVAL;
	}
	if (w->failed)
		return -E2BIG;
	for (size_t i = 0; i < n; i++) {
		if ((!profiles[i].tables && profiles[i].pprof_len && !profiles[i].pprof) ||
		    enav_otlp_check_kvs(profiles[i].resource.attrs, profiles[i].resource.n_attrs)) {
			set_err(err, errlen, "profile %zu: %s", i, "invalid resource or pprof");
			return -EINVAL;
		}
	}
	if ((rc = dict_init(&d, w->limit)) == 0) {
		for (size_t i = 0; i < n && rc == 0; i++) {
			struct enav_pprof_decoded p = {0};
			struct doc c;
			char perr[128] = "";

			if (!profiles[i].tables)
				rc = enav_pprof_decode(profiles[i].pprof, profiles[i].pprof_len,
						       w->limit, &p, perr, sizeof(perr));
			if (rc) {
				set_err(err, errlen, "profile %zu: pprof: %s", i,
					perr[0] ? perr : "undecodable");
				break;
			}
			rc = doc_init(&c, &d, profiles[i].tables ? profiles[i].tables : &p);
			if (rc == 0) {
				enav_pb_begin(w, REQ_RESOURCE_PROFILES);
				enav_otlp_put_resource(w, &profiles[i].resource);
				enav_pb_begin(w, RP_SCOPE_PROFILES);
				enav_otlp_put_scope(w, &scope);
				rc = put_doc_profiles(w, &c);
				enav_pb_end(w);
				enav_pb_end(w);
			}
			if (rc)
				set_err(err, errlen, "profile %zu: %s", i,
					rc == -E2BIG ? "request size limit" : "out of memory");
			doc_free(&c);
			enav_pprof_decoded_free(&p);
		}
	}
	if (rc == 0) {
		put_dictionary(w, &d);
		if ((rc = enav_otlp_writer_rc(w)))
			set_err(err, errlen, "profile %zu: %s", n, "request size limit");
	}
	dict_free(&d);
	return rc;
}
