/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the symbol filter (src/features/profiling/pprof_filter.c).
 *
 * Arbitrary bytes (gzip or raw) go to enav_pprof_filter with a fixed small
 * owner, and for inputs with the low bit of their size set, per mapping
 * (mapping files holding "web" belong to the web service, others fall to a
 * default owner).  Whatever the filter accepts must decode and keep its
 * promises: one sample per input sample with the same values, every
 * function name kept by some owner or the placeholder, never two
 * placeholders in a row, file names without directories, mappings without
 * file or build id, no comments, labels only when asked; with one owner,
 * filtering the output again gives the same bytes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/pprof.h"
#include "features/profiling/pprof_filter.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define MAX_BYTES ((size_t)1 << 20)

static const char *const replaced[] = {"example.com/acme/shared", "../shared"};
static const char *const allow[] = {"github.com/acme/tools", "corp.internal/"};
static const char *const other_allow[] = {"github.com/other"};
static const struct enav_code_owner web = {
    .main_module = "github.com/acme/web",
    .replaced = replaced,
    .n_replaced = 2,
    .allow = allow,
    .n_allow = 2,
};
static const struct enav_code_owner dflt = {.allow = other_allow, .n_allow = 1};
/* Every prefix of both: what any kept name must be kept by. */
static const char *const all_allow[] = {"github.com/acme/tools", "corp.internal/",
					"github.com/other"};
static const struct enav_code_owner any = {
    .main_module = "github.com/acme/web",
    .replaced = replaced,
    .n_replaced = 2,
    .allow = all_allow,
    .n_allow = 3,
};

static const struct enav_code_owner *owner_for(void *ctx, const char *file, const char *build_id)
{
	CHECK(file && build_id);
	(*(unsigned *)ctx)++;
	return strstr(file, "web") ? &web : NULL;
}

static const char *str(const struct enav_pprof_decoded *d, int64_t idx)
{
	CHECK(idx >= 0 && (uint64_t)idx < d->n_strings);
	return d->strings[idx];
}

static const struct enav_pprof_decoded_function *function(const struct enav_pprof_decoded *d,
							  uint64_t id)
{
	for (size_t i = 0; i < d->n_functions; i++)
		if (d->functions[i].id == id)
			return &d->functions[i];
	abort();
}

/* The one placeholder location (0 when none); every location has one Line
 * at most (the builder writes one). */
static uint64_t placeholder(const struct enav_pprof_decoded *d)
{
	uint64_t id = 0;

	for (size_t i = 0; i < d->n_locations; i++) {
		const struct enav_pprof_decoded_location *l = &d->locations[i];

		CHECK(l->n_lines <= 1);
		if (l->n_lines &&
		    !strcmp(str(d, function(d, l->function_id)->name), ENAV_PPROF_REDACTED)) {
			CHECK(id == 0);
			CHECK(l->mapping_id == 0 && l->address == 0 && l->line == 0);
			id = l->id;
		}
	}
	return id;
}

static void check_output(const struct enav_pprof_decoded *in, const struct enav_pprof_decoded *d,
			 bool keep_labels)
{
	CHECK(d->n_samples == in->n_samples && d->n_sample_types == in->n_sample_types);
	CHECK(d->period == in->period && d->time_nanos == in->time_nanos &&
	      d->duration_nanos == in->duration_nanos);
	CHECK(d->n_comments == 0);
	uint64_t ph_id = placeholder(d);

	for (size_t i = 0; i < d->n_sample_types; i++)
		CHECK(!strcmp(str(d, d->sample_types[i].type), str(in, in->sample_types[i].type)));
	for (size_t i = 0; i < d->n_mappings; i++)
		CHECK(d->mappings[i].filename == 0 && d->mappings[i].build_id == 0);
	for (size_t i = 0; i < d->n_functions; i++) {
		const char *name = str(d, d->functions[i].name);
		const char *file = str(d, d->functions[i].filename);

		CHECK(!strcmp(name, ENAV_PPROF_REDACTED) || enav_code_owner_keeps(&any, name));
		CHECK(!strchr(file, '/') && !strchr(file, '\\'));
	}
	for (size_t i = 0; i < d->n_samples; i++) {
		const struct enav_pprof_decoded_sample *a = &in->samples[i], *b = &d->samples[i];
		bool prev = false;

		CHECK(a->n_values == b->n_values);
		CHECK(!a->n_values || !memcmp(a->values, b->values, a->n_values * sizeof(int64_t)));
		CHECK(keep_labels ? b->n_labels == a->n_labels : b->n_labels == 0);
		for (size_t k = 0; k < b->n_locations; k++) {
			bool ph = ph_id && b->location_ids[k] == ph_id;

			CHECK(!(ph && prev));
			prev = ph;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned calls = 0;
	bool per_mapping = size & 1, keep_labels = size & 2;
	struct enav_pprof_filter_opts opts = {
	    .owner = &web,
	    .keep_labels = keep_labels,
	    .max_bytes = MAX_BYTES,
	};
	struct enav_pprof_filter_stats st;
	struct enav_pprof_decoded in, d;
	uint8_t *out;
	size_t out_len;
	char err[256];

	if (per_mapping) {
		opts.owner_for_mapping = owner_for;
		opts.ctx = &calls;
		opts.default_owner = &dflt;
	}
	int rc = enav_pprof_filter(data, size, &opts, &out, &out_len, &st, err, sizeof(err));

	CHECK(strlen(err) < sizeof(err) && !strchr(err, '\n'));
	if (rc) {
		CHECK(out == NULL && out_len == 0 && err[0]);
		/* What decodes with sample types filters, or exceeds the cap. */
		if (enav_pprof_decode(data, size, MAX_BYTES, &in, NULL, 0) == 0) {
			CHECK(rc == -E2BIG || in.n_sample_types == 0 || in.n_sample_types > 1024);
			enav_pprof_decoded_free(&in);
		}
		return 0;
	}
	CHECK(enav_pprof_decode(data, size, MAX_BYTES, &in, NULL, 0) == 0);
	CHECK(calls <= in.n_mappings);
	CHECK(st.samples == in.n_samples);
	CHECK(enav_pprof_decode(out, out_len, MAX_BYTES, &d, err, sizeof(err)) == 0);
	check_output(&in, &d, keep_labels);
	enav_pprof_decoded_free(&d);
	enav_pprof_decoded_free(&in);

	if (!per_mapping) {
		uint8_t *again;
		size_t again_len;

		rc = enav_pprof_filter(out, out_len, &opts, &again, &again_len, &st, err,
				       sizeof(err));
		CHECK(rc == 0);
		CHECK(again_len == out_len && !memcmp(again, out, out_len));
		free(again);
	}
	free(out);
	return 0;
}
