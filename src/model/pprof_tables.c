/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A built pprof profile as the tables enav_pprof_decode would read back
 * from its encoding, made straight from the builder's state: the OTLP
 * profiles encoder consumes these, so a profile the agent built itself is
 * never gzip'd, gunzipped and parsed on its way to another schema.
 */
#include "model/pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/pprof_builder_priv.h"

/* ---- the profile as tables, without an encoding ---- */

static void *dup_array(const void *src, size_t n, size_t elem)
{
	void *a = malloc(n ? n * elem : 1);

	if (a && n)
		memcpy(a, src, n * elem);
	return a;
}

static int tables_strings(const struct enav_pprof *p, struct enav_pprof_decoded *d)
{
	size_t total = 0;

	for (uint32_t i = 0; i < p->n_str; i++)
		total += p->str_len[i] + 1;
	char *arena = malloc(total ? total : 1);

	d->strings = calloc(p->n_str ? p->n_str : 1, sizeof(*d->strings));
	if (!arena || !d->strings) {
		free(arena);
		return -ENOMEM;
	}
	/* strings[0] is "" and starts the arena enav_pprof_decoded_free frees. */
	for (uint32_t i = 0; i < p->n_str; i++) {
		memcpy(arena, p->str[i], p->str_len[i] + 1);
		d->strings[i] = arena;
		arena += p->str_len[i] + 1;
	}
	d->n_strings = p->n_str;
	return 0;
}

/* The samples' arrays in one block, not three allocations a sample: a
 * queued profile then holds a few large blocks, which go back whole when
 * it is freed, instead of scattering small ones through the heap. */
static int tables_samples(const struct enav_pprof *p, struct enav_pprof_decoded *d)
{
	size_t locs = (size_t)p->n_sample_locs * sizeof(uint64_t),
	       values = (size_t)p->n_samples * p->n_types * sizeof(int64_t),
	       labels = (size_t)p->n_sample_labels * sizeof(struct enav_pprof_decoded_label);
	uint8_t *arena = malloc(locs + values + labels + 1);

	d->samples = calloc(p->n_samples ? p->n_samples : 1, sizeof(*d->samples));
	if (!arena || !d->samples) {
		free(arena);
		return -ENOMEM;
	}
	d->sample_arena = arena;
	uint64_t *loc_ids = (uint64_t *)arena;
	int64_t *vals = (int64_t *)(arena + locs);
	struct enav_pprof_decoded_label *lbs =
	    (struct enav_pprof_decoded_label *)(arena + locs + values);

	if (locs)
		memcpy(loc_ids, p->sample_locs, locs);
	if (values)
		memcpy(vals, p->sample_values, values);
	if (labels)
		memcpy(lbs, p->sample_labels, labels);
	d->n_samples = p->n_samples;
	for (uint32_t i = 0; i < p->n_samples; i++) {
		const struct bsample *sa = &p->samples[i];

		d->samples[i] = (struct enav_pprof_decoded_sample){
		    .location_ids = loc_ids + sa->loc_off,
		    .n_locations = sa->n_locs,
		    .values = vals + (size_t)i * p->n_types,
		    .n_values = p->n_types,
		    .labels = lbs + sa->label_off,
		    .n_labels = sa->n_labels,
		};
	}
	return 0;
}

static int tables_locations(const struct enav_pprof *p, struct enav_pprof_decoded *d)
{
	size_t n_lines = 0;

	for (uint32_t i = 0; i < p->n_locs; i++)
		n_lines += p->locs[i].function_id != 0;
	d->locations = calloc(p->n_locs ? p->n_locs : 1, sizeof(*d->locations));
	d->lines = calloc(n_lines ? n_lines : 1, sizeof(*d->lines));
	if (!d->locations || !d->lines)
		return -ENOMEM;
	d->n_locations = p->n_locs;
	for (uint32_t i = 0; i < p->n_locs; i++) {
		const struct blocation *l = &p->locs[i];
		struct enav_pprof_decoded_location *o = &d->locations[i];

		*o = (struct enav_pprof_decoded_location){.id = i + 1,
							  .mapping_id = l->mapping_id,
							  .address = l->address,
							  .function_id = l->function_id,
							  .line = l->line};
		if (l->function_id) {
			d->lines[d->n_lines] =
			    (struct enav_pprof_decoded_line){l->function_id, l->line};
			o->lines = &d->lines[d->n_lines++];
			o->n_lines = 1;
		}
	}
	return 0;
}

static int tables_rest(const struct enav_pprof *p, struct enav_pprof_decoded *d)
{
	d->sample_types = calloc(p->n_types, sizeof(*d->sample_types));
	d->mappings = calloc(p->n_maps ? p->n_maps : 1, sizeof(*d->mappings));
	d->functions = calloc(p->n_funcs ? p->n_funcs : 1, sizeof(*d->functions));
	d->comments = dup_array(p->comments, p->n_comments, sizeof(*d->comments));
	if (!d->sample_types || !d->mappings || !d->functions || !d->comments)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_types; i++)
		d->sample_types[i] =
		    (struct enav_pprof_value_type_idx){p->types[i].type, p->types[i].unit};
	d->n_sample_types = p->n_types;
	d->period_type =
	    (struct enav_pprof_value_type_idx){p->period_type.type, p->period_type.unit};
	for (uint32_t i = 0; i < p->n_maps; i++) {
		const struct bmapping *m = &p->maps[i];

		d->mappings[i] = (struct enav_pprof_decoded_mapping){.id = i + 1,
								     .start = m->start,
								     .limit = m->limit,
								     .offset = m->offset,
								     .filename = m->file,
								     .build_id = m->build_id};
	}
	d->n_mappings = p->n_maps;
	for (uint32_t i = 0; i < p->n_funcs; i++)
		d->functions[i] = (struct enav_pprof_decoded_function){
		    .id = i + 1,
		    .name = p->funcs[i].name,
		    .system_name = p->funcs[i].name, /* as encoded */
		    .filename = p->funcs[i].filename};
	d->n_functions = p->n_funcs;
	d->n_comments = p->n_comments;
	d->time_nanos = p->time_nanos, d->duration_nanos = p->duration_nanos;
	d->period = p->period, d->default_sample_type = p->default_type;
	return 0;
}

int enav_pprof_tables(const struct enav_pprof *p, struct enav_pprof_decoded *out)
{
	int rc;

	*out = (struct enav_pprof_decoded){0};
	if (p->broken)
		return -ENOMEM;
	if ((rc = tables_strings(p, out)) || (rc = tables_rest(p, out)) ||
	    (rc = tables_locations(p, out)) || (rc = tables_samples(p, out)))
		enav_pprof_decoded_free(out);
	return rc;
}
