/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pprof (perftools.profiles.Profile): the profile every consumer shares.
 * Built by pprof_builder.c, read back by pprof_decoder.c (both share the
 * field numbers in pprof_proto_priv.h); gzip is platform/gzip.h's.
 *
 * The builder interns every string it is given (callers' pointers need only
 * live for the call), deduplicates mappings, functions and locations, and
 * encodes per profile.proto: string_table[0] is "", every id is non-zero and
 * unique, gzip on request.  Every table is capped; what a cap refuses is
 * counted, never silently lost.
 */
#ifndef ENAV_MODEL_PPROF_H
#define ENAV_MODEL_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct enav_pprof;

struct enav_pprof_value_type {
	const char *type; /* "samples", "cpu", "offcpu", ... */
	const char *unit; /* "count", "nanoseconds", ... */
};

struct enav_pprof_limits {
	uint32_t max_samples;	/* 0 = 1,000,000 */
	uint32_t max_locations; /* 0 = 1,000,000; also caps mappings and functions */
	uint32_t max_strings;	/* 0 = 1,000,000 */
	size_t max_bytes;	/* encoded size cap, 0 = 64 MiB */
};

struct enav_pprof_label {
	const char *key;
	const char *str;      /* string label when non-NULL */
	int64_t num;	      /* numeric label otherwise */
	const char *num_unit; /* optional */
};

struct enav_pprof_counts {
	uint64_t samples, locations, functions, mappings, strings;
	uint64_t dropped_samples; /* refused by a cap */
};

struct enav_pprof *enav_pprof_new(const struct enav_pprof_value_type *sample_types, size_t n_types,
				  struct enav_pprof_value_type period_type, int64_t period,
				  int64_t time_nanos, int64_t duration_nanos,
				  const struct enav_pprof_limits *limits);
void enav_pprof_free(struct enav_pprof *p);

/* Returns the mapping id (>0), the same id for the same (start, limit, file);
 * 0 when a cap refused it.  build_id may be NULL. */
uint64_t enav_pprof_mapping(struct enav_pprof *p, uint64_t start, uint64_t limit, uint64_t offset,
			    const char *file, const char *build_id);
/* Returns the location id (>0), the same id for the same (mapping, address,
 * function, filename, line); 0 when a cap refused it or mapping_id is
 * unknown.  function NULL = unsymbolized: the Location has its address and
 * mapping and no Line (filename and line are ignored).  mapping_id 0 = no
 * mapping known.  filename may be NULL; line 0 = unknown. */
uint64_t enav_pprof_location(struct enav_pprof *p, uint64_t mapping_id, uint64_t address,
			     const char *function, const char *filename, int64_t line);
/* locations leaf first, as pprof wants.  n_values must equal n_types.
 * 0; -EINVAL (value count, unknown location id, NULL label key);
 * -ENOSPC when a cap refuses it (max_samples, max_bytes, max_strings, or a
 * location id 0 that enav_pprof_location refused), counted in
 * dropped_samples; -ENOMEM (the profile is then unusable). */
int enav_pprof_sample(struct enav_pprof *p, const uint64_t *location_ids, size_t n_locations,
		      const int64_t *values, size_t n_values, const struct enav_pprof_label *labels,
		      size_t n_labels);
void enav_pprof_comment(struct enav_pprof *p, const char *comment);
/* The sample type a viewer shows by default (profile.proto's
 * default_sample_type); NULL clears it.  0, -ENOSPC (a cap) or -ENOMEM. */
int enav_pprof_default_sample_type(struct enav_pprof *p, const char *type);
/* Encode; *out is malloc'd.  0 or -errno (-E2BIG past max_bytes). */
int enav_pprof_encode(struct enav_pprof *p, bool gzip, uint8_t **out, size_t *out_len);
void enav_pprof_get_counts(const struct enav_pprof *p, struct enav_pprof_counts *c);

/* ---- decoder: a bounded, validating reader (tests, pulled profiles) ---- */
struct enav_pprof_decoded_line {
	uint64_t function_id;
	int64_t line;
};
struct enav_pprof_decoded_location {
	uint64_t id, mapping_id, address;
	uint64_t function_id; /* first Line's function, 0 when no Line */
	int64_t line;
	/* Every Line, as encoded: the innermost inlined function first, the
	 * function the code was inlined into last.  Points into the decoded
	 * profile's line array; NULL when n_lines is 0. */
	const struct enav_pprof_decoded_line *lines;
	size_t n_lines;
};
struct enav_pprof_decoded_function {
	uint64_t id;
	int64_t name, system_name, filename; /* string indexes */
};
struct enav_pprof_decoded_mapping {
	uint64_t id, start, limit, offset;
	int64_t filename, build_id; /* string indexes */
};
struct enav_pprof_decoded_label {
	int64_t key, str, num, num_unit;
};
struct enav_pprof_decoded_sample {
	uint64_t *location_ids;
	size_t n_locations;
	int64_t *values;
	size_t n_values;
	struct enav_pprof_decoded_label *labels;
	size_t n_labels;
};
struct enav_pprof_decoded {
	char **strings;
	size_t n_strings;
	struct enav_pprof_value_type_idx {
		int64_t type, unit;
	} * sample_types, period_type;
	size_t n_sample_types;
	struct enav_pprof_decoded_sample *samples;
	size_t n_samples;
	struct enav_pprof_decoded_location *locations;
	size_t n_locations;
	struct enav_pprof_decoded_function *functions;
	size_t n_functions;
	struct enav_pprof_decoded_mapping *mappings;
	size_t n_mappings;
	int64_t *comments;
	size_t n_comments;
	int64_t time_nanos, duration_nanos, period;
	int64_t default_sample_type;	       /* string index, 0 when absent */
	struct enav_pprof_decoded_line *lines; /* every Location's Lines, in order */
	size_t n_lines;
	/* When set, every sample's location ids, values and labels point into
	 * this one block (enav_pprof_tables), freed once instead of per sample. */
	void *sample_arena;
};
/* Accepts gzip or raw.  Validates string indexes and id references.
 * 0, or -EINVAL (malformed), -E2BIG (past max_bytes decompressed, 0 = 64 MiB). */
int enav_pprof_decode(const uint8_t *data, size_t len, size_t max_bytes,
		      struct enav_pprof_decoded *out, char *err, size_t errlen);
void enav_pprof_decoded_free(struct enav_pprof_decoded *d);

/* The builder's profile as the same tables enav_pprof_decode would read
 * back from its encoding (every id, index and order alike), without
 * encoding it: for consumers that re-encode a profile in another schema
 * (OTLP profiles).  Free with enav_pprof_decoded_free.  0 or -ENOMEM. */
int enav_pprof_tables(const struct enav_pprof *p, struct enav_pprof_decoded *out);

#endif
