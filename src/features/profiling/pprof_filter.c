/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The symbol filter (see pprof_filter.h for what it keeps and removes): the
 * profile rebuilt from its kept frames.  Which frames are kept is decided in
 * code_owner.c.
 *
 * Output decisions:
 *  - Every Line of a Location is one frame (Go puts the inlined calls of one
 *    address in one Location).  The builder writes one Line per Location, so
 *    each kept Line becomes its own Location at the same address and
 *    mapping; pprof then shows inlined calls as ordinary frames.
 *  - A run of redacted frames, within a Location or across Locations,
 *    becomes one shared Location: function "[redacted]", no file, no line,
 *    no mapping, no address (a run has no single address).  A function
 *    already named "[redacted]" (a filtered profile filtered again) is
 *    treated as redacted, so filtering is idempotent.
 *  - Kept frames keep their address: it identifies nothing once the mapping
 *    has lost its file name and build id.  Unsymbolized Locations (no Line)
 *    are kept as an address.
 *  - A function's system_name is not carried: the builder writes the kept
 *    name in both fields.  Its start_line is not carried either.
 *  - Samples are not merged when their stacks become identical: one output
 *    sample per input sample, values unchanged (viewers aggregate anyway).
 *  - Only what samples reference is rebuilt: unreferenced functions,
 *    locations and mappings, comments, drop/keep_frames and doc_url vanish.
 */
#include "features/profiling/pprof_filter.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/pprof.h"

#define DEF_MAX_BYTES ((size_t)64 << 20)

/* Input id -> index in the decoded arrays, sorted by id. */
struct idpair {
	uint64_t id;
	size_t i;
};
struct idmap {
	struct idpair *v;
	size_t n;
};

struct lseg {
	size_t start, n;       /* output frames in ctx.segs */
	size_t kept, redacted; /* input frames (Lines) */
	bool done;
};

/* Per input function: the verdict for the owner it was computed for, whether
 * it was counted as redacted, whether its kept name was computed. */
enum { V_KEEP = 1, V_REDACT = 2, V_MASK = 3, V_COUNTED = 4, V_NAMED = 8 };

struct ctx {
	const struct enav_pprof_decoded *d;
	const struct enav_pprof_filter_opts *o;
	const struct enav_code_owner *fixed, *dflt;
	struct enav_pprof *p;
	struct idmap fidx, lidx, midx; /* input id -> index */

	/* Per input function: the owner of the cached verdict, V_* bits, the
	 * kept name when elide_type_args rewrote it. */
	const struct enav_code_owner **f_owner;
	uint8_t *f_verdict;
	char **f_name;

	/* Per input mapping. */
	uint64_t *m_out;
	const struct enav_code_owner **m_owner;
	bool *m_asked;

	/* Per input location: its output frames, built on first use. */
	struct lseg *loc;
	uint64_t *segs;
	size_t n_segs, cap_segs;
	uint64_t placeholder;

	uint64_t *frames;
	size_t cap_frames, budget; /* budget: output frames still allowed */
	struct enav_pprof_label *labels;
	size_t cap_labels;

	struct enav_pprof_filter_stats st;
	char *err;
	size_t errlen;
};

__attribute__((format(printf, 3, 4))) static int fail(struct ctx *c, int rc, const char *fmt, ...)
{
	if (c->err && c->errlen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(c->err, c->errlen, fmt, ap);
		va_end(ap);
	}
	return rc;
}

static const char *S(const struct ctx *c, int64_t idx)
{
	return c->d->strings[idx]; /* the decoder validated every index */
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap : 16;

	while (nc < need)
		nc *= 2;
	void *a = realloc(*arr, nc * elem);

	if (!a)
		return -ENOMEM;
	*arr = a;
	*cap = nc;
	return 0;
}

static int cmp_idpair(const void *a, const void *b)
{
	uint64_t x = ((const struct idpair *)a)->id, y = ((const struct idpair *)b)->id;

	return (x > y) - (x < y);
}

static int index_ids(struct idmap *m, size_t n, const void *base, size_t stride)
{
	m->n = n;
	if (!n)
		return 0;
	if (!(m->v = malloc(n * sizeof(*m->v))))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		m->v[i] = (struct idpair){*(const uint64_t *)((const char *)base + i * stride), i};
	qsort(m->v, n, sizeof(*m->v), cmp_idpair);
	return 0;
}

/* The decoder checked that every referenced id exists. */
static size_t lookup(const struct idmap *m, uint64_t id)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].id == id)
			return m->v[mid].i;
		if (m->v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Bracketed text holding a '/' or '%' (a package path, or an escaped one)
 * becomes "[...]".  NULL when nothing changes, or on ENOMEM (*oom set). */
static char *elide_type_args(const char *name, bool *oom)
{
	size_t n = strlen(name), o = 0, copied = 0;
	char *out = NULL;

	for (size_t i = 0; i < n; i++) {
		if (name[i] != '[')
			continue;
		size_t j = i + 1;
		int depth = 1;
		bool slash = false;

		for (; j < n && depth; j++) {
			depth += (name[j] == '[') - (name[j] == ']');
			slash |= name[j] == '/' || name[j] == '%';
		}
		/* j is past the matching ']', or n when there is none. */
		if (slash) {
			/* Each elided run is at least "[/" and becomes 5 bytes. */
			if (!out && !(out = malloc(2 * n + 8))) {
				*oom = true;
				return NULL;
			}
			memcpy(out + o, name + copied, i - copied);
			o += i - copied;
			memcpy(out + o, "[...]", 5);
			o += 5;
			copied = j;
		}
		i = j - 1;
	}
	if (!out)
		return NULL;
	memcpy(out + o, name + copied, n - copied);
	out[o + n - copied] = '\0';
	return out;
}

static const char *base_name(const char *path)
{
	const char *b = path;

	for (const char *p = path; *p; p++)
		if (*p == '/' || *p == '\\')
			b = p + 1;
	return b;
}

/* The owner deciding for frames of this mapping. */
static const struct enav_code_owner *owner_of(struct ctx *c, uint64_t mapping_id)
{
	if (!c->o->owner_for_mapping)
		return c->fixed;
	if (!mapping_id)
		return c->dflt;
	size_t mi = lookup(&c->midx, mapping_id);

	if (!c->m_asked[mi]) {
		const struct enav_pprof_decoded_mapping *m = &c->d->mappings[mi];
		const struct enav_code_owner *ow =
		    c->o->owner_for_mapping(c->o->ctx, S(c, m->filename), S(c, m->build_id));

		c->m_owner[mi] = ow ? ow : c->dflt;
		c->m_asked[mi] = true;
	}
	return c->m_owner[mi];
}

static int refused(struct ctx *c, const char *what)
{
	return fail(c, -E2BIG, "the filtered profile exceeds a cap at %s (or memory ran out)",
		    what);
}

/* The output mapping: its range and offset, without file name or build id. */
static int out_mapping(struct ctx *c, uint64_t mapping_id, uint64_t *out)
{
	*out = 0;
	if (!mapping_id)
		return 0;
	size_t mi = lookup(&c->midx, mapping_id);

	if (!c->m_out[mi]) {
		const struct enav_pprof_decoded_mapping *m = &c->d->mappings[mi];

		c->m_out[mi] = enav_pprof_mapping(c->p, m->start, m->limit, m->offset, "", NULL);
		if (!c->m_out[mi])
			return refused(c, "a mapping");
	}
	*out = c->m_out[mi];
	return 0;
}

static bool fn_keeps(struct ctx *c, size_t fi, const struct enav_code_owner *ow)
{
	uint8_t v = c->f_verdict[fi] & V_MASK;

	if (!v || c->f_owner[fi] != ow) {
		const char *name = S(c, c->d->functions[fi].name);

		v = strcmp(name, ENAV_PPROF_REDACTED) && enav_code_owner_keeps(ow, name) ? V_KEEP
											 : V_REDACT;
		c->f_owner[fi] = ow;
		c->f_verdict[fi] = (uint8_t)((c->f_verdict[fi] & ~V_MASK) | v);
	}
	if (v == V_REDACT && !(c->f_verdict[fi] & V_COUNTED)) {
		c->f_verdict[fi] |= V_COUNTED;
		c->st.functions_redacted++;
	}
	return v == V_KEEP;
}

static int kept_name(struct ctx *c, size_t fi, const char **name)
{
	if (!(c->f_verdict[fi] & V_NAMED)) {
		bool oom = false;

		c->f_name[fi] = elide_type_args(S(c, c->d->functions[fi].name), &oom);
		if (oom)
			return fail(c, -ENOMEM, "out of memory");
		c->f_verdict[fi] |= V_NAMED;
	}
	*name = c->f_name[fi] ? c->f_name[fi] : S(c, c->d->functions[fi].name);
	return 0;
}

static int push_seg(struct ctx *c, uint64_t id)
{
	if (grow((void **)&c->segs, &c->cap_segs, c->n_segs + 1, sizeof(*c->segs)))
		return fail(c, -ENOMEM, "out of memory");
	c->segs[c->n_segs++] = id;
	return 0;
}

static int push_placeholder(struct ctx *c, const struct lseg *g)
{
	if (c->n_segs > g->start && c->segs[c->n_segs - 1] == c->placeholder)
		return 0;
	if (!c->placeholder &&
	    !(c->placeholder = enav_pprof_location(c->p, 0, 0, ENAV_PPROF_REDACTED, NULL, 0)))
		return refused(c, "the placeholder");
	return push_seg(c, c->placeholder);
}

/* The output frames of input location li, leaf first. */
static int build_location(struct ctx *c, size_t li)
{
	const struct enav_pprof_decoded_location *l = &c->d->locations[li];
	struct lseg *g = &c->loc[li];
	uint64_t mid, id;
	int rc;

	g->start = c->n_segs;
	if (!l->n_lines) {
		/* Unsymbolized: an address in a scrubbed mapping names nothing. */
		if ((rc = out_mapping(c, l->mapping_id, &mid)))
			return rc;
		if (!(id = enav_pprof_location(c->p, mid, l->address, NULL, NULL, 0)))
			return refused(c, "a location");
		if ((rc = push_seg(c, id)))
			return rc;
		g->kept = 1;
	}
	const struct enav_code_owner *ow = l->n_lines ? owner_of(c, l->mapping_id) : NULL;

	for (size_t k = 0; k < l->n_lines; k++) {
		size_t fi = lookup(&c->fidx, l->lines[k].function_id);
		const struct enav_pprof_decoded_function *fn = &c->d->functions[fi];
		const char *name;

		if (!fn_keeps(c, fi, ow)) {
			g->redacted++;
			if ((rc = push_placeholder(c, g)))
				return rc;
			continue;
		}
		if ((rc = kept_name(c, fi, &name)) || (rc = out_mapping(c, l->mapping_id, &mid)))
			return rc;
		id = enav_pprof_location(c->p, mid, l->address, name, base_name(S(c, fn->filename)),
					 l->lines[k].line);
		if (!id)
			return refused(c, "a location");
		if ((rc = push_seg(c, id)))
			return rc;
		g->kept++;
	}
	g->n = c->n_segs - g->start;
	g->done = true;
	return 0;
}

static int add_sample(struct ctx *c, const struct enav_pprof_decoded_sample *s, size_t max)
{
	size_t nf = 0, nl = 0;
	int rc;

	for (size_t k = 0; k < s->n_locations; k++) {
		size_t li = lookup(&c->lidx, s->location_ids[k]);
		const struct lseg *g = &c->loc[li];

		if (!g->done && (rc = build_location(c, li)))
			return rc;
		c->st.frames_kept += g->kept;
		c->st.frames_redacted += g->redacted;
		for (size_t j = 0; j < g->n; j++) {
			uint64_t id = c->segs[g->start + j];

			/* A redacted run continues across locations. */
			if (id == c->placeholder && nf && c->frames[nf - 1] == id)
				continue;
			/* Every frame costs at least one encoded byte. */
			if (!c->budget)
				return fail(c, -E2BIG, "the filtered profile exceeds %zu bytes",
					    max);
			c->budget--;
			if (grow((void **)&c->frames, &c->cap_frames, nf + 1, sizeof(*c->frames)))
				return fail(c, -ENOMEM, "out of memory");
			c->frames[nf++] = id;
		}
	}
	if (!c->o->keep_labels) {
		c->st.labels_dropped += s->n_labels;
	} else if (s->n_labels) {
		if (grow((void **)&c->labels, &c->cap_labels, s->n_labels, sizeof(*c->labels)))
			return fail(c, -ENOMEM, "out of memory");
		for (; nl < s->n_labels; nl++) {
			const struct enav_pprof_decoded_label *lb = &s->labels[nl];

			c->labels[nl] = (struct enav_pprof_label){
			    .key = S(c, lb->key),
			    .str = lb->str ? S(c, lb->str) : NULL,
			    .num = lb->num,
			    .num_unit = lb->num_unit ? S(c, lb->num_unit) : NULL,
			};
		}
	}
	rc = enav_pprof_sample(c->p, c->frames, nf, s->values, s->n_values, c->labels, nl);
	if (rc == -ENOSPC)
		return refused(c, "a sample");
	if (rc)
		return fail(c, rc, "cannot add a sample: %s", strerror(-rc));
	return 0;
}

static uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int run(struct ctx *c, size_t max)
{
	const struct enav_pprof_decoded *d = c->d;
	struct enav_pprof_value_type *types;
	int rc;

	if (!d->n_sample_types)
		return fail(c, -EINVAL, "the profile has no sample types");
	if (d->n_sample_types > 1024)
		return fail(c, -EINVAL, "the profile has %zu sample types", d->n_sample_types);
	if (!(types = calloc(d->n_sample_types, sizeof(*types))))
		return fail(c, -ENOMEM, "out of memory");
	for (size_t i = 0; i < d->n_sample_types; i++)
		types[i] = (struct enav_pprof_value_type){S(c, d->sample_types[i].type),
							  S(c, d->sample_types[i].unit)};
	/* Caps from the input: the output never holds more than it (but for a
	 * new file and name per function and the placeholder), so only
	 * max_bytes can refuse something. */
	struct enav_pprof_limits lim = {
	    .max_samples = sat32((uint64_t)d->n_samples + 1),
	    .max_locations =
		sat32((uint64_t)d->n_lines + d->n_locations + d->n_mappings + d->n_functions + 1),
	    .max_strings = sat32((uint64_t)d->n_strings + 2 * (uint64_t)d->n_functions + 8),
	    .max_bytes = max,
	};

	c->p = enav_pprof_new(
	    types, d->n_sample_types,
	    (struct enav_pprof_value_type){S(c, d->period_type.type), S(c, d->period_type.unit)},
	    d->period, d->time_nanos, d->duration_nanos, &lim);
	rc = c->p ? 0 : -errno;
	free(types);
	if (rc)
		return fail(c, rc, "cannot start the filtered profile: %s", strerror(-rc));
	if (d->default_sample_type &&
	    enav_pprof_default_sample_type(c->p, S(c, d->default_sample_type)))
		return refused(c, "default_sample_type");

	if (index_ids(&c->fidx, d->n_functions, d->functions ? &d->functions[0].id : NULL,
		      sizeof(*d->functions)) ||
	    index_ids(&c->lidx, d->n_locations, d->locations ? &d->locations[0].id : NULL,
		      sizeof(*d->locations)) ||
	    index_ids(&c->midx, d->n_mappings, d->mappings ? &d->mappings[0].id : NULL,
		      sizeof(*d->mappings)))
		return fail(c, -ENOMEM, "out of memory");
#define ALLOC(field, n) ((n) && !(c->field = calloc((n), sizeof(*c->field))))
	if (ALLOC(f_owner, d->n_functions) || ALLOC(f_verdict, d->n_functions) ||
	    ALLOC(f_name, d->n_functions) || ALLOC(m_out, d->n_mappings) ||
	    ALLOC(m_owner, d->n_mappings) || ALLOC(m_asked, d->n_mappings) ||
	    ALLOC(loc, d->n_locations))
		return fail(c, -ENOMEM, "out of memory");
#undef ALLOC

	c->st.comments_dropped = d->n_comments;
	for (size_t i = 0; i < d->n_mappings; i++)
		c->st.mappings_scrubbed +=
		    S(c, d->mappings[i].filename)[0] || S(c, d->mappings[i].build_id)[0];
	for (size_t i = 0; i < d->n_samples; i++)
		if ((rc = add_sample(c, &d->samples[i], max)))
			return rc;
	c->st.samples = d->n_samples;
	return 0;
}

int enav_pprof_filter(const uint8_t *in, size_t in_len, const struct enav_pprof_filter_opts *o,
		      uint8_t **out, size_t *out_len, struct enav_pprof_filter_stats *st, char *err,
		      size_t errlen)
{
	static const struct enav_pprof_filter_opts defaults;
	static const struct enav_code_owner nobody;
	struct enav_pprof_decoded d;
	struct ctx c = {.err = err, .errlen = errlen};
	char derr[256];
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (st)
		*st = (struct enav_pprof_filter_stats){0};
	if (!out || !out_len)
		return fail(&c, -EINVAL, "no output buffer");
	*out = NULL;
	*out_len = 0;
	if (!o)
		o = &defaults;
	size_t max = o->max_bytes ? o->max_bytes : DEF_MAX_BYTES;

	rc = enav_pprof_decode(in, in_len, max, &d, derr, sizeof(derr));
	if (rc) {
		/* The reason may quote the input: keep it on one line. */
		for (char *q = derr; *q; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f)
				*q = '?';
		return fail(&c, rc, "not a usable pprof: %s", derr);
	}
	c.d = &d;
	c.o = o;
	c.dflt = o->default_owner ? o->default_owner : &nobody;
	c.fixed = o->owner ? o->owner : c.dflt;
	c.budget = max;

	rc = run(&c, max);
	if (!rc) {
		rc = enav_pprof_encode(c.p, true, out, out_len);
		if (rc == -E2BIG)
			fail(&c, rc, "the filtered profile exceeds %zu bytes", max);
		else if (rc)
			fail(&c, rc, "cannot encode the filtered profile: %s", strerror(-rc));
	}
	if (!rc && st)
		*st = c.st;
	for (size_t i = 0; c.f_name && i < d.n_functions; i++)
		free(c.f_name[i]);
	free(c.f_name);
	free(c.f_owner);
	free(c.f_verdict);
	free(c.m_out);
	free(c.m_owner);
	free(c.m_asked);
	free(c.loc);
	free(c.segs);
	free(c.frames);
	free(c.labels);
	free(c.fidx.v);
	free(c.lidx.v);
	free(c.midx.v);
	enav_pprof_free(c.p);
	enav_pprof_decoded_free(&d);
	return rc;
}
