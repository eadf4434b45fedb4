/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the pprof decoder (src/model/pprof_decoder.c).
 *
 * Arbitrary bytes (gzip or raw) go to enav_pprof_decode with a 1 MiB cap.
 * Whatever it accepts must hold the invariants it promises (string indexes
 * in range, ids that resolve, one value per sample type); it is then rebuilt
 * through the builder, encoded, decoded again and compared sample by sample.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/pprof.h"
#include "platform/u64map.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define MAX_BYTES ((size_t)1 << 20)

static const char *str(const struct enav_pprof_decoded *d, int64_t idx)
{
	CHECK(idx >= 0 && (uint64_t)idx < d->n_strings);
	return d->strings[idx];
}

static void check_invariants(const struct enav_pprof_decoded *d)
{
	CHECK(d->n_strings > 0 && d->strings[0][0] == '\0');
	for (size_t i = 0; i < d->n_sample_types; i++) {
		str(d, d->sample_types[i].type);
		str(d, d->sample_types[i].unit);
	}
	str(d, d->period_type.type);
	str(d, d->period_type.unit);
	for (size_t i = 0; i < d->n_comments; i++)
		str(d, d->comments[i]);
	for (size_t i = 0; i < d->n_mappings; i++) {
		CHECK(d->mappings[i].id != 0);
		str(d, d->mappings[i].filename);
		str(d, d->mappings[i].build_id);
	}
	for (size_t i = 0; i < d->n_functions; i++) {
		CHECK(d->functions[i].id != 0);
		str(d, d->functions[i].name);
		str(d, d->functions[i].system_name);
		str(d, d->functions[i].filename);
	}
	size_t lines = 0;

	for (size_t i = 0; i < d->n_locations; i++) {
		const struct enav_pprof_decoded_location *l = &d->locations[i];

		CHECK(l->id != 0);
		/* Every Line, in the shared array, the first one mirrored. */
		if (l->n_lines)
			CHECK(l->lines >= d->lines &&
			      l->lines + l->n_lines <= d->lines + d->n_lines &&
			      l->function_id == l->lines[0].function_id &&
			      l->line == l->lines[0].line);
		else
			CHECK(!l->lines && !l->function_id);
		lines += l->n_lines;
	}
	CHECK(lines == d->n_lines);
	str(d, d->default_sample_type);
	for (size_t i = 0; i < d->n_samples; i++) {
		const struct enav_pprof_decoded_sample *s = &d->samples[i];

		CHECK(s->n_values == d->n_sample_types);
		for (size_t k = 0; k < s->n_labels; k++) {
			str(d, s->labels[k].key);
			str(d, s->labels[k].str);
			str(d, s->labels[k].num_unit);
		}
	}
}

/* old id -> index in the decoded arrays. */
static void index_ids(struct enav_u64map *m, size_t n, const void *base, size_t stride)
{
	CHECK(enav_u64map_init(m, n ? (uint32_t)n : 1) == 0);
	for (size_t i = 0; i < n; i++) {
		uint64_t id = *(const uint64_t *)((const char *)base + i * stride);

		CHECK(!enav_u64map_get(m, id, NULL)); /* unique */
		CHECK(enav_u64map_put(m, id, i) == 0);
	}
}

static void rebuild(const struct enav_pprof_decoded *d)
{
	struct enav_pprof_value_type *types;
	struct enav_pprof_value_type pt = {str(d, d->period_type.type),
					   str(d, d->period_type.unit)};
	struct enav_u64map fmap, lmap;
	uint64_t *new_map = NULL, *new_loc = NULL, *ids = NULL;
	struct enav_pprof_label *labels = NULL;

	if (d->n_sample_types == 0 || d->n_sample_types > 1024)
		return;
	types = calloc(d->n_sample_types, sizeof(*types));
	CHECK(types);
	for (size_t i = 0; i < d->n_sample_types; i++)
		types[i] = (struct enav_pprof_value_type){str(d, d->sample_types[i].type),
							  str(d, d->sample_types[i].unit)};
	struct enav_pprof *p = enav_pprof_new(types, d->n_sample_types, pt, d->period,
					      d->time_nanos, d->duration_nanos, NULL);

	CHECK(p);
	index_ids(&fmap, d->n_functions, d->functions ? &d->functions[0].id : NULL,
		  sizeof(*d->functions));
	index_ids(&lmap, d->n_locations, d->locations ? &d->locations[0].id : NULL,
		  sizeof(*d->locations));

	/* Mappings, by old id. */
	struct enav_u64map mmap;

	index_ids(&mmap, d->n_mappings, d->mappings ? &d->mappings[0].id : NULL,
		  sizeof(*d->mappings));
	new_map = calloc(d->n_mappings + 1, sizeof(*new_map));
	CHECK(new_map);
	for (size_t i = 0; i < d->n_mappings; i++) {
		const struct enav_pprof_decoded_mapping *m = &d->mappings[i];

		new_map[i] =
		    enav_pprof_mapping(p, m->start, m->limit, m->offset, str(d, m->filename),
				       m->build_id ? str(d, m->build_id) : NULL);
		CHECK(new_map[i] != 0);
	}
	new_loc = calloc(d->n_locations + 1, sizeof(*new_loc));
	CHECK(new_loc);
	for (size_t i = 0; i < d->n_locations; i++) {
		const struct enav_pprof_decoded_location *l = &d->locations[i];
		uint64_t mi = 0, fi = 0, mid = 0;
		const char *fn = NULL, *file = NULL;

		if (l->mapping_id) {
			CHECK(enav_u64map_get(&mmap, l->mapping_id, &mi));
			mid = new_map[mi];
		}
		if (l->function_id) {
			CHECK(enav_u64map_get(&fmap, l->function_id, &fi));
			fn = str(d, d->functions[fi].name);
			file = str(d, d->functions[fi].filename);
		}
		new_loc[i] = enav_pprof_location(p, mid, l->address, fn, file, l->line);
		CHECK(new_loc[i] != 0);
	}
	for (size_t i = 0; i < d->n_comments; i++)
		enav_pprof_comment(p, str(d, d->comments[i]));

	for (size_t i = 0; i < d->n_samples; i++) {
		const struct enav_pprof_decoded_sample *s = &d->samples[i];

		ids = realloc(ids, (s->n_locations + 1) * sizeof(*ids));
		labels = realloc(labels, (s->n_labels + 1) * sizeof(*labels));
		CHECK(ids && labels);
		for (size_t k = 0; k < s->n_locations; k++) {
			uint64_t li;

			CHECK(enav_u64map_get(&lmap, s->location_ids[k], &li));
			ids[k] = new_loc[li];
		}
		for (size_t k = 0; k < s->n_labels; k++) {
			const struct enav_pprof_decoded_label *lb = &s->labels[k];

			labels[k] = (struct enav_pprof_label){
			    .key = str(d, lb->key),
			    .str = lb->str ? str(d, lb->str) : NULL,
			    .num = lb->num,
			    .num_unit = lb->num_unit ? str(d, lb->num_unit) : NULL,
			};
		}
		int rc = enav_pprof_sample(p, ids, s->n_locations, s->values, s->n_values, labels,
					   s->n_labels);

		CHECK(rc == 0);
	}

	/* Encode, decode, compare. */
	uint8_t *out;
	size_t len;
	struct enav_pprof_decoded d2;
	char err[256];

	CHECK(enav_pprof_encode(p, (d->n_samples & 1) != 0, &out, &len) == 0);
	CHECK(enav_pprof_decode(out, len, 0, &d2, err, sizeof(err)) == 0);
	check_invariants(&d2);
	CHECK(d2.n_samples == d->n_samples && d2.n_sample_types == d->n_sample_types);
	CHECK(d2.n_comments == d->n_comments && d2.period == d->period);
	CHECK(d2.time_nanos == d->time_nanos && d2.duration_nanos == d->duration_nanos);
	CHECK(strcmp(str(&d2, d2.period_type.type), pt.type) == 0);
	for (size_t i = 0; i < d->n_samples; i++) {
		const struct enav_pprof_decoded_sample *a = &d->samples[i], *b = &d2.samples[i];

		CHECK(a->n_values == b->n_values && a->n_locations == b->n_locations &&
		      a->n_labels == b->n_labels);
		CHECK(a->n_values == 0 ||
		      memcmp(a->values, b->values, a->n_values * sizeof(*a->values)) == 0);
		for (size_t k = 0; k < a->n_labels; k++)
			CHECK(strcmp(str(d, a->labels[k].key), str(&d2, b->labels[k].key)) == 0);
	}
	enav_pprof_decoded_free(&d2);
	free(out);

	free(labels);
	free(ids);
	free(new_loc);
	free(new_map);
	enav_u64map_destroy(&mmap);
	enav_u64map_destroy(&lmap);
	enav_u64map_destroy(&fmap);
	enav_pprof_free(p);
	free(types);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct enav_pprof_decoded d;
	char err[128];
	int rc = enav_pprof_decode(data, size, MAX_BYTES, &d, err, sizeof(err));

	if (rc != 0) {
		CHECK(rc == -EINVAL || rc == -E2BIG || rc == -ENOMEM);
		CHECK(d.strings == NULL && d.samples == NULL);
		CHECK(memchr(err, '\0', sizeof(err)) != NULL && err[0] != '\0');
		return 0;
	}
	check_invariants(&d);
	rebuild(&d);
	enav_pprof_decoded_free(&d);
	return 0;
}
