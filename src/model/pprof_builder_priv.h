/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pprof builder's state, shared by pprof_builder.c (which fills and
 * encodes it) and pprof_tables.c (which hands it on as tables).
 */
#ifndef ENAV_MODEL_PPROF_BUILDER_PRIV_H
#define ENAV_MODEL_PPROF_BUILDER_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/pprof.h"

/* ---- index tables: open addressing over entry indexes ---- */

struct islot {
	uint32_t idx1; /* entry index + 1; 0 = empty */
	uint32_t hash;
};

struct itab {
	struct islot *slots;
	uint32_t mask, n;
};

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

/* One sample: its slices of the flat sample arrays. */
struct bsample {
	uint32_t loc_off, n_locs;
	uint32_t label_off, n_labels;
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

	/* Samples as tables, encoded last: location ids, values (n_types per
	 * sample) and labels (string indexes) in flat arrays, so a profile can
	 * be handed on as tables (enav_pprof_tables) as well as encoded. */
	struct bsample *samples;
	uint32_t n_samples, cap_samples;
	uint64_t *sample_locs;
	uint32_t n_sample_locs, cap_sample_locs;
	int64_t *sample_values;
	uint32_t n_sample_values, cap_sample_values;
	struct enav_pprof_decoded_label *sample_labels;
	uint32_t n_sample_labels, cap_sample_labels;
	uint64_t dropped;

	size_t size; /* encoded size so far (mapping flags counted as set) */
	bool broken; /* an allocation failed half way: encode refuses */
};

#endif
