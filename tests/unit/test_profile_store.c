/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the profile store (src/features/profiling/profile_store.c, profile_build.c):
 * batches built by hand, with user frames that are real functions of this binary (symbolized
 * through /proc/self/maps and its ELF symbol table) and kernel frames that resolve to nothing;
 * pprof, folded and flame graph builds, the window, kind and workload filters, the stack cap and
 * retention, drain, sleep and close, and the per-pid and workload lookups; and that a build or an
 * announcement stuck reading a slow tenant file holds up no other build, ingestion or scrape.  No
 * agent: the store is created with cfg.host = NULL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ci_skip.h"
#include "model/pprof.h"
#include "platform/promtext.h"
#include "features/profiling/profile_store.h"
#include "features/profiling/symbolize_priv.h"

/* A regression check: print what went wrong, then fail. */
#define FAIL_IF(cond, ...)                                                                         \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_message(__VA_ARGS__);                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define SEC(x)	   ((uint64_t)(x)*1000000000ull)
#define MS(x)	   ((uint64_t)(x)*1000000ull)
#define UNIX0	   SEC(1767225600) /* 2026-01-01T00:00:00Z */
#define FREQ_HZ	   99u
#define PERIOD_NS  (1000000000ll / FREQ_HZ)
#define KADDR	   0xffffffff00000001ull /* below the kernel text: resolves to nothing */
#define UNMAPPED   0x10ull		 /* the zero page: no mapping at all */
#define KMAP	   "[kernel.kallsyms]"
#define LEAF_NAME  "enav_test_pst_leaf"
#define MID_NAME   "enav_test_pst_mid"
#define OUTER_NAME "enav_test_pst_outer"

/* Functions of this binary the profiles name.  noinline + used keep them
 * real, separate functions with their own .symtab entries. */
__attribute__((noinline, used)) int enav_test_pst_leaf(int x)
{
	return x * 7 + (int)getpid() % 5;
}

__attribute__((noinline, used)) int enav_test_pst_mid(int x)
{
	return enav_test_pst_leaf(x) + 11;
}

__attribute__((noinline, used)) int enav_test_pst_outer(int x)
{
	return enav_test_pst_mid(x) ^ 0x33;
}

/* A return address inside fn (the store looks non-leaf frames up 1 earlier). */
static uint64_t ip_in(int (*fn)(int))
{
	return (uint64_t)(uintptr_t)fn + 1;
}

static uint32_t self_pid(void)
{
	return (uint32_t)getpid();
}

/* ---- helpers ------------------------------------------------------------------ */

static struct enav_profile_store *store_new(uint32_t max_stacks, uint32_t retention_ms,
					    const char *cgroup2_mount)
{
	struct enav_profile_store_config c = {.host = NULL,
					      .cgroup2_mount = cgroup2_mount,
					      .frequency_hz = FREQ_HZ,
					      .retention_ms = retention_ms,
					      .max_stored_stacks = max_stacks,
					      .max_processes = 64,
					      .max_elf_files = 8};
	struct enav_profile_store *s = enav_profile_store_new(&c);

	assert_non_null(s);
	return s;
}

static struct enav_profile_store *store_default(void)
{
	return store_new(100000, 3600 * 1000, NULL);
}

static struct enav_profile_batch *batch_new(uint64_t start, uint64_t end)
{
	struct enav_profile_batch *b = enav_profile_batch_new(start, UNIX0 + start);

	assert_non_null(b);
	b->end_mono_ns = end;
	return b;
}

static void rec_add(struct enav_profile_batch *b, uint32_t tgid, uint32_t kind, uint64_t cgroup_id,
		    uint64_t count, uint64_t total_ns, const uint64_t *kips, uint16_t nk,
		    const uint64_t *uips, uint16_t nu)
{
	struct enav_profile_record r = {.tgid = tgid,
					.kind = kind,
					.cgroup_id = cgroup_id,
					.count = count,
					.total_ns = total_ns};

	assert_true(enav_profile_batch_add(b, &r, kips, nk, uips, nu));
}

/* n frameless CPU records of tgid. */
static struct enav_profile_batch *batch_of(uint64_t start, uint64_t end, uint32_t tgid, unsigned n)
{
	struct enav_profile_batch *b = batch_new(start, end);

	for (unsigned i = 0; i < n; i++)
		rec_add(b, tgid, ENAV_PROFILE_CPU, 0, 1, 0, NULL, 0, NULL, 0);
	return b;
}

struct built {
	int rc;
	uint64_t matched;
	uint8_t *out;
	size_t len;
};

static struct built build(struct enav_profile_store *s, enum enav_profile_kind kind, uint64_t from,
			  uint64_t to, enum enav_profile_format format,
			  const struct enav_profile_filter *f)
{
	struct enav_profile_query q = {
	    .kind = kind, .from_mono_ns = from, .to_mono_ns = to, .format = format};
	struct built r = {0};

	if (f)
		q.filter = *f;
	q.matched = 12345; /* must be reset by the build */
	r.rc = enav_profile_store_build(s, &q, &r.out, &r.len);
	r.matched = q.matched;
	return r;
}

/* Records a window and filter admit (the built profile is discarded). */
static uint64_t matched(struct enav_profile_store *s, enum enav_profile_kind kind, uint64_t from,
			uint64_t to, const struct enav_profile_filter *f)
{
	struct built r = build(s, kind, from, to, ENAV_PROFILE_FORMAT_PPROF, f);

	FAIL_IF(r.rc != 0, "build [%" PRIu64 ", %" PRIu64 "]: rc %d\n", from, to, r.rc);
	free(r.out);
	return r.matched;
}

static void decode(const struct built *r, struct enav_pprof_decoded *d)
{
	char err[256] = "";

	FAIL_IF(r->rc != 0, "build: rc %d\n", r->rc);
	assert_non_null(r->out);
	int rc = enav_pprof_decode(r->out, r->len, 0, d, err, sizeof(err));
	FAIL_IF(rc != 0, "enav_pprof_decode refused the store's profile: %d %s\n", rc, err);
}

static const char *str_at(const struct enav_pprof_decoded *d, int64_t i)
{
	return i >= 0 && (size_t)i < d->n_strings ? d->strings[i] : NULL;
}

static int64_t str_index(const struct enav_pprof_decoded *d, const char *s)
{
	for (size_t i = 0; i < d->n_strings; i++)
		if (strcmp(d->strings[i], s) == 0)
			return (int64_t)i;
	return -1;
}

static const struct enav_pprof_decoded_location *loc_by_id(const struct enav_pprof_decoded *d,
							   uint64_t id)
{
	for (size_t i = 0; i < d->n_locations; i++)
		if (d->locations[i].id == id)
			return &d->locations[i];
	return NULL;
}

/* The function name of a location, NULL when it has no Line. */
static const char *loc_function(const struct enav_pprof_decoded *d,
				const struct enav_pprof_decoded_location *l)
{
	if (!l->function_id)
		return NULL;
	for (size_t i = 0; i < d->n_functions; i++)
		if (d->functions[i].id == l->function_id)
			return str_at(d, d->functions[i].name);
	return NULL;
}

static const struct enav_pprof_decoded_mapping *map_by_id(const struct enav_pprof_decoded *d,
							  uint64_t id)
{
	for (size_t i = 0; i < d->n_mappings; i++)
		if (d->mappings[i].id == id)
			return &d->mappings[i];
	return NULL;
}

static const struct enav_pprof_decoded_label *label_of(const struct enav_pprof_decoded *d,
						       const struct enav_pprof_decoded_sample *s,
						       const char *key)
{
	for (size_t i = 0; i < s->n_labels; i++)
		if (strcmp(str_at(d, s->labels[i].key) ? str_at(d, s->labels[i].key) : "", key) ==
		    0)
			return &s->labels[i];
	return NULL;
}

static const char *label_str(const struct enav_pprof_decoded *d,
			     const struct enav_pprof_decoded_sample *s, const char *key)
{
	const struct enav_pprof_decoded_label *l = label_of(d, s, key);

	return l && l->str ? str_at(d, l->str) : NULL;
}

/* The sample whose first value is v. */
static const struct enav_pprof_decoded_sample *sample_with(const struct enav_pprof_decoded *d,
							   int64_t v)
{
	for (size_t i = 0; i < d->n_samples; i++)
		if (d->samples[i].n_values >= 1 && d->samples[i].values[0] == v)
			return &d->samples[i];
	return NULL;
}

static void check_value_type(const struct enav_pprof_decoded *d, size_t i, const char *type,
			     const char *unit)
{
	assert_true(i < d->n_sample_types);
	const char *t = str_at(d, d->sample_types[i].type), *u = str_at(d, d->sample_types[i].unit);
	FAIL_IF(!t || !u || strcmp(t, type) || strcmp(u, unit),
		"sample_type[%zu] is %s/%s, expected %s/%s\n", i, t ? t : "?", u ? u : "?", type,
		unit);
}

/* The value of one series ("name" or "name{labels}") in exposition text. */
static uint64_t metric(const char *text, const char *series)
{
	size_t n = strlen(series);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, series, n) == 0 && p[n] == ' ')
			return strtoull(p + n + 1, NULL, 10);
	print_message("series %s not found in:\n%s\n", series, text);
	fail();
	return 0;
}

static char g_prom[65536];

static const char *store_metrics(struct enav_profile_store *s)
{
	struct enav_promtext p;

	enav_promtext_init(&p, g_prom, sizeof(g_prom));
	enav_profile_store_metrics(s, &p);
	assert_false(p.overflow);
	return g_prom;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- batches ------------------------------------------------------------------ */

/* Regression: a record without frames (both stacks missing in the kernel)
 * first in a batch left b->ips NULL, and both batch_add and every build did
 * arithmetic on it: undefined behaviour, fatal under UBSan. */
static void test_frameless_records(void **state)
{
	struct enav_profile_batch *b = batch_new(SEC(1), SEC(2));
	const uint64_t k[] = {KADDR, KADDR + 16}, u[] = {UNMAPPED};
	struct enav_profile_record r = {.tgid = 5, .kind = ENAV_PROFILE_CPU, .count = 1};

	assert_true(enav_profile_batch_add(b, &r, NULL, 0, NULL, 0));
	assert_int_equal(b->n_recs, 1);
	assert_int_equal(b->n_ips, 0);
	assert_int_equal(b->recs[0].ip_off, 0);
	assert_true(enav_profile_batch_add(b, &r, k, 2, u, 1));
	assert_true(enav_profile_batch_add(b, &r, NULL, 0, u, 1));
	assert_int_equal(b->n_recs, 3);
	assert_int_equal(b->n_ips, 4);
	assert_int_equal(b->recs[1].ip_off, 0);
	assert_int_equal(b->recs[1].n_kernel, 2);
	assert_int_equal(b->recs[1].n_user, 1);
	assert_int_equal(b->recs[2].ip_off, 3);
	assert_int_equal(b->ips[0], KADDR);
	assert_int_equal(b->ips[1], KADDR + 16);
	assert_int_equal(b->ips[2], UNMAPPED);
	assert_int_equal(b->ips[3], UNMAPPED);
	enav_profile_batch_free(b);

	/* A batch of frameless records only builds in every format. */
	struct enav_profile_store *s = store_default();
	enav_profile_store_add(s, batch_of(SEC(1), SEC(2), 5, 2));
	struct built p = build(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, ENAV_PROFILE_FORMAT_PPROF, NULL);
	struct enav_pprof_decoded d;
	decode(&p, &d);
	assert_int_equal(d.n_samples, 2);
	assert_int_equal(d.samples[0].n_locations, 0);
	enav_pprof_decoded_free(&d);
	free(p.out);
	p = build(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, ENAV_PROFILE_FORMAT_FOLDED, NULL);
	assert_int_equal(p.rc, 0);
	const char *want = "[unknown process] 1\n[unknown process] 1\n";
	FAIL_IF(p.len != strlen(want) || memcmp(p.out, want, p.len) != 0, "folded:\n%.*s",
		(int)p.len, (const char *)p.out);
	free(p.out);
	enav_profile_store_free(s);
}

/* ---- pprof -------------------------------------------------------------------- */

/* A stack of another exec of the same pid (exec_gen differs from the one the
 * snapshot was taken for) keeps its addresses and gets no names: the snapshot
 * describes a different program. Its comm is its own image's. */
/* The first difference between two profiles' tables, or NULL. */
static const char *tables_differ(const struct enav_pprof_decoded *a,
				 const struct enav_pprof_decoded *b)
{
#define SAME(x)                                                                                    \
	(a->n_##x == b->n_##x && (!a->n_##x || !memcmp(a->x, b->x, a->n_##x * sizeof(*a->x))))
	if (a->n_strings != b->n_strings)
		return "string count";
	for (size_t i = 0; i < a->n_strings; i++)
		if (strcmp(a->strings[i], b->strings[i]))
			return "a string";
	if (!SAME(sample_types) || memcmp(&a->period_type, &b->period_type, sizeof(a->period_type)))
		return "value types";
	if (!SAME(mappings) || !SAME(functions) || !SAME(comments) || !SAME(lines))
		return "mappings, functions, comments or lines";
	if (a->n_locations != b->n_locations)
		return "location count";
	for (size_t i = 0; i < a->n_locations; i++) {
		const struct enav_pprof_decoded_location *x = &a->locations[i],
							 *y = &b->locations[i];
		if (x->id != y->id || x->mapping_id != y->mapping_id || x->address != y->address ||
		    x->function_id != y->function_id || x->line != y->line ||
		    x->n_lines != y->n_lines ||
		    (x->n_lines && memcmp(x->lines, y->lines, x->n_lines * sizeof(*x->lines))))
			return "a location";
	}
	if (a->n_samples != b->n_samples)
		return "sample count";
	for (size_t i = 0; i < a->n_samples; i++) {
		const struct enav_pprof_decoded_sample *x = &a->samples[i], *y = &b->samples[i];
		if (x->n_locations != y->n_locations || x->n_values != y->n_values ||
		    x->n_labels != y->n_labels ||
		    (x->n_locations &&
		     memcmp(x->location_ids, y->location_ids, x->n_locations * sizeof(uint64_t))) ||
		    memcmp(x->values, y->values, x->n_values * sizeof(int64_t)) ||
		    (x->n_labels && memcmp(x->labels, y->labels, x->n_labels * sizeof(*x->labels))))
			return "a sample";
	}
	if (a->time_nanos != b->time_nanos || a->duration_nanos != b->duration_nanos ||
	    a->period != b->period || a->default_sample_type != b->default_sample_type)
		return "time, duration, period or default type";
	return NULL;
#undef SAME
}

/* The OTLP path reads the store's profile as tables (service build_tables),
 * never encoded: they must be what decoding the pprof build gives, frame
 * for frame and sample for sample, redacted or not. */
static void test_tables_match_pprof(void **state)
{
	struct enav_profile_store *s = store_default();
	uint32_t pid = self_pid();
	const uint64_t user[] = {ip_in(enav_test_pst_leaf), ip_in(enav_test_pst_mid),
				 ip_in(enav_test_pst_outer)},
		       kern[] = {KADDR}, unmapped[] = {UNMAPPED};

	enav_profile_store_task(s, pid, 0, "testcomm");
	struct enav_profile_batch *b = batch_new(SEC(1000), SEC(1010));
	rec_add(b, pid, ENAV_PROFILE_CPU, 0, 7, 0, kern, 1, user, 3);
	rec_add(b, pid, ENAV_PROFILE_CPU, 0, 3, 0, NULL, 0, unmapped, 1);
	rec_add(b, pid, ENAV_PROFILE_CPU, 0, 2, 0, NULL, 0, user + 1, 2);
	enav_profile_store_add(s, b);

	for (int redact = 0; redact < 2; redact++) {
		struct enav_profile_query q = {.kind = ENAV_PROFILE_CPU,
					       .from_mono_ns = SEC(1000),
					       .to_mono_ns = SEC(1010),
					       .format =
						   ENAV_PROFILE_FORMAT_FOLDED, /* set to pprof */
					       .redact = redact};
		struct enav_pprof_decoded t, d;
		struct built r = build(s, ENAV_PROFILE_CPU, SEC(1000), SEC(1010),
				       ENAV_PROFILE_FORMAT_PPROF, NULL);

		if (redact) { /* build() does not redact: ask the store again */
			free(r.out);
			struct enav_profile_query pq = q;
			pq.format = ENAV_PROFILE_FORMAT_PPROF;
			r.rc = enav_profile_store_build(s, &pq, &r.out, &r.len);
		}
		decode(&r, &d);
		assert_int_equal(enav_profile_store_service.build_tables(s, &q, &t), 0);
		assert_int_equal(q.format, ENAV_PROFILE_FORMAT_PPROF);
		assert_int_equal(q.matched, 3);
		assert_int_equal(t.n_samples, 3);
		const char *diff = tables_differ(&d, &t);
		FAIL_IF(diff, "redact %d: the tables differ from the decoded pprof in %s\n", redact,
			diff);
		/* The comparison itself sees a lost frame. */
		t.samples[0].n_locations--;
		FAIL_IF(!tables_differ(&d, &t), "a dropped frame went unseen\n");
		t.samples[0].n_locations++;
		enav_pprof_decoded_free(&t);
		enav_pprof_decoded_free(&d);
		free(r.out);
	}
	enav_profile_store_free(s);
}

static void test_other_exec_image_unsymbolized(void **state)
{
	struct enav_profile_store *s = store_default();
	uint32_t pid = self_pid();
	const uint64_t user[] = {ip_in(enav_test_pst_leaf)};

	enav_profile_store_task(s, pid, 3, "after-exec");
	struct enav_profile_batch *b = batch_new(SEC(1000), SEC(1010));
	struct enav_profile_record r = {
	    .tgid = pid, .kind = ENAV_PROFILE_CPU, .exec_gen = 2, .count = 5};
	assert_true(enav_profile_batch_add(b, &r, NULL, 0, user, 1));
	r.exec_gen = 3;
	r.count = 4;
	assert_true(enav_profile_batch_add(b, &r, NULL, 0, user, 1));
	enav_profile_store_add(s, b);
	struct built p =
	    build(s, ENAV_PROFILE_CPU, SEC(1000), SEC(1010), ENAV_PROFILE_FORMAT_FOLDED, NULL);
	assert_int_equal(p.rc, 0);
	/* Order follows the records: the gen-2 line first, with its value. */
	char want2[256];
	snprintf(want2, sizeof(want2), "[unknown process];0x%" PRIx64 " 5\nafter-exec;%s 4\n",
		 user[0], LEAF_NAME);
	FAIL_IF(p.len < 20 || strncmp((const char *)p.out, want2, p.len) != 0,
		"folded:\n%.*s\nwant a line with no name for exec 2 (the address, no mapping) "
		"and a named one for exec 3:\n%s",
		(int)p.len, (const char *)p.out, want2);
	free(p.out);
	enav_profile_store_free(s);
}

static void test_cpu_pprof(void **state)
{
	struct enav_profile_store *s = store_default();
	uint32_t pid = self_pid();
	const uint64_t leaf = ip_in(enav_test_pst_leaf), mid = ip_in(enav_test_pst_mid),
		       outer = ip_in(enav_test_pst_outer);
	const uint64_t user[] = {leaf, mid, outer}, kern[] = {KADDR}, unmapped[] = {UNMAPPED};

	enav_profile_store_task(s, pid, 0, "testcomm");
	struct enav_profile_batch *b = batch_new(SEC(1000), SEC(1010));
	rec_add(b, pid, ENAV_PROFILE_CPU, 0, 7, 0, kern, 1, user, 3);
	rec_add(b, pid, ENAV_PROFILE_CPU, 0, 3, 0, NULL, 0, unmapped, 1);
	enav_profile_store_add(s, b);

	struct built r =
	    build(s, ENAV_PROFILE_CPU, SEC(1000), SEC(1010), ENAV_PROFILE_FORMAT_PPROF, NULL);
	assert_int_equal(r.matched, 2);
	struct enav_pprof_decoded d;
	decode(&r, &d);

	assert_int_equal(d.n_sample_types, 2);
	check_value_type(&d, 0, "samples", "count");
	check_value_type(&d, 1, "cpu", "nanoseconds");
	assert_string_equal(str_at(&d, d.period_type.type), "cpu");
	assert_string_equal(str_at(&d, d.period_type.unit), "nanoseconds");
	FAIL_IF(d.period != PERIOD_NS, "period %" PRId64 ", expected 1e9/%u = %lld\n", d.period,
		FREQ_HZ, PERIOD_NS);
	assert_int_equal(d.time_nanos, UNIX0 + SEC(1000));
	assert_int_equal(d.duration_nanos, SEC(10));
	assert_int_equal(d.n_samples, 2);

	/* The symbolized stack: kernel leaf first, then the user frames. */
	const struct enav_pprof_decoded_sample *s7 = sample_with(&d, 7);
	assert_non_null(s7);
	assert_int_equal(s7->n_values, 2);
	FAIL_IF(s7->values[1] != 7 * PERIOD_NS, "cpu value %" PRId64 ", expected 7 * %lld\n",
		s7->values[1], PERIOD_NS);
	assert_int_equal(s7->n_locations, 4);
	const uint64_t want_addr[] = {KADDR, leaf, mid, outer};
	const char *const want_fn[] = {NULL, LEAF_NAME, MID_NAME, OUTER_NAME};
	for (size_t i = 0; i < 4; i++) {
		const struct enav_pprof_decoded_location *l = loc_by_id(&d, s7->location_ids[i]);
		assert_non_null(l);
		FAIL_IF(l->address != want_addr[i],
			"frame %zu: address 0x%" PRIx64 ", want 0x%" PRIx64 "\n", i, l->address,
			want_addr[i]);
		const char *fn = loc_function(&d, l);
		if (!want_fn[i])
			FAIL_IF(fn != NULL || l->function_id != 0,
				"unresolvable kernel frame got a Line (function %s)\n",
				fn ? fn : "?");
		else
			FAIL_IF(!fn || strcmp(fn, want_fn[i]) != 0,
				"frame %zu at 0x%" PRIx64 " named %s, expected %s\n", i, l->address,
				fn ? fn : "(none)", want_fn[i]);
	}
	/* The function names are in the string table. */
	assert_true(str_index(&d, LEAF_NAME) > 0);
	assert_true(str_index(&d, OUTER_NAME) > 0);
	/* The kernel frame keeps its mapping, the user frames this binary's. */
	const struct enav_pprof_decoded_mapping *km =
	    map_by_id(&d, loc_by_id(&d, s7->location_ids[0])->mapping_id);
	assert_non_null(km);
	assert_string_equal(str_at(&d, km->filename), KMAP);
	const struct enav_pprof_decoded_mapping *um =
	    map_by_id(&d, loc_by_id(&d, s7->location_ids[1])->mapping_id);
	assert_non_null(um);
	assert_true(um->start <= leaf && leaf < um->limit);

	/* Labels: pid (numeric) and comm (string). */
	const struct enav_pprof_decoded_label *lp = label_of(&d, s7, "pid");
	assert_non_null(lp);
	assert_int_equal(lp->str, 0);
	assert_int_equal(lp->num, pid);
	const char *comm = label_str(&d, s7, "comm");
	FAIL_IF(!comm || strcmp(comm, "testcomm") != 0, "comm label %s\n", comm ? comm : "(none)");
	assert_null(label_of(&d, s7, "cgroup")); /* no cgroup2 mount, no agent */

	/* An address outside every executable mapping is not a frame (stack
	 * bytes read as a frame-pointer chain): the stack ends before it, and
	 * the sample keeps its value. */
	const struct enav_pprof_decoded_sample *s3 = sample_with(&d, 3);
	assert_non_null(s3);
	assert_int_equal(s3->values[1], 3 * PERIOD_NS);
	assert_int_equal(s3->n_locations, 0);
	for (size_t i = 0; i < d.n_locations; i++)
		assert_int_not_equal(d.locations[i].address, UNMAPPED);
	/* No location anywhere has a name but the three test functions. */
	for (size_t i = 0; i < d.n_locations; i++) {
		const char *fn = loc_function(&d, &d.locations[i]);
		FAIL_IF(fn && strcmp(fn, LEAF_NAME) && strcmp(fn, MID_NAME) &&
			    strcmp(fn, OUTER_NAME),
			"location 0x%" PRIx64 " got an unexpected name %s\n",
			d.locations[i].address, fn);
	}

	enav_pprof_decoded_free(&d);
	free(r.out);

	/* A kind out of range is refused. */
	struct built bad = build(s, (enum enav_profile_kind)ENAV_PROFILE__COUNT, 0, UINT64_MAX,
				 ENAV_PROFILE_FORMAT_PPROF, NULL);
	assert_int_equal(bad.rc, -EINVAL);
	enav_profile_store_free(s);
}

/* The leaf is looked up at its own address; every other frame is a return
 * address, looked up 1 byte earlier, so a return address at the very start
 * of a function (a call that ended the previous one) is not credited to it. */
static void test_leaf_and_return_addresses(void **state)
{
	struct enav_profile_store *s = store_default();
	uint32_t pid = self_pid();
	const uint64_t leaf = (uint64_t)(uintptr_t)enav_test_pst_leaf,
		       outer = (uint64_t)(uintptr_t)enav_test_pst_outer;
	const uint64_t user[] = {leaf, outer};

	enav_profile_store_task(s, pid, 0, "testcomm");
	struct enav_profile_batch *b = batch_new(SEC(1), SEC(2));
	rec_add(b, pid, ENAV_PROFILE_CPU, 0, 1, 0, NULL, 0, user, 2);
	enav_profile_store_add(s, b);

	struct built r = build(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, ENAV_PROFILE_FORMAT_PPROF, NULL);
	struct enav_pprof_decoded d;
	decode(&r, &d);
	assert_int_equal(d.n_samples, 1);
	assert_int_equal(d.samples[0].n_locations, 2);
	const struct enav_pprof_decoded_location *l0 = loc_by_id(&d, d.samples[0].location_ids[0]),
						 *l1 = loc_by_id(&d, d.samples[0].location_ids[1]);
	assert_non_null(l0);
	assert_non_null(l1);
	assert_int_equal(l0->address, leaf);
	assert_int_equal(l1->address, outer);
	const char *f0 = loc_function(&d, l0), *f1 = loc_function(&d, l1);
	FAIL_IF(!f0 || strcmp(f0, LEAF_NAME) != 0, "leaf at the start of %s named %s\n", LEAF_NAME,
		f0 ? f0 : "(none)");
	FAIL_IF(f1 && strcmp(f1, OUTER_NAME) == 0,
		"return address at the start of %s credited to it\n", OUTER_NAME);
	enav_pprof_decoded_free(&d);
	free(r.out);
	enav_profile_store_free(s);
}

static void test_window_selection(void **state)
{
	struct enav_profile_store *s = store_default();

	/* 1, 2 and 4 records in three consecutive windows. */
	enav_profile_store_add(s, batch_of(SEC(1000), SEC(1010), 11, 1));
	enav_profile_store_add(s, batch_of(SEC(1010), SEC(1020), 11, 2));
	enav_profile_store_add(s, batch_of(SEC(1020), SEC(1030), 11, 4));

	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, NULL), 7);
	/* Bounds are inclusive: a window exactly covering one batch. */
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, SEC(1010), SEC(1020), NULL), 2);
	/* A batch starting before from is out, however much overlaps. */
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, SEC(1000) + 1, SEC(1030), NULL), 6);
	/* A batch ending after to is out. */
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, SEC(1000), SEC(1030) - 1, NULL), 3);
	/* Inside one batch: nothing. */
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, SEC(1011), SEC(1019), NULL), 0);

	/* The profile spans the batches selected. */
	struct built r =
	    build(s, ENAV_PROFILE_CPU, SEC(1010), SEC(1030), ENAV_PROFILE_FORMAT_PPROF, NULL);
	struct enav_pprof_decoded d;
	decode(&r, &d);
	assert_int_equal(r.matched, 6);
	assert_int_equal(d.n_samples, 6);
	assert_int_equal(d.time_nanos, UNIX0 + SEC(1010));
	assert_int_equal(d.duration_nanos, SEC(20));
	enav_pprof_decoded_free(&d);
	free(r.out);

	/* An empty window still builds a valid, empty profile. */
	r = build(s, ENAV_PROFILE_CPU, SEC(2000), SEC(3000), ENAV_PROFILE_FORMAT_PPROF, NULL);
	decode(&r, &d);
	assert_int_equal(r.matched, 0);
	assert_int_equal(d.n_samples, 0);
	enav_pprof_decoded_free(&d);
	free(r.out);
	enav_profile_store_free(s);
}

static void test_offcpu_values(void **state)
{
	struct enav_profile_store *s = store_default();
	uint32_t pid = self_pid();
	const uint64_t user[] = {ip_in(enav_test_pst_leaf), ip_in(enav_test_pst_outer)};

	enav_profile_store_task(s, pid, 0, "testcomm");
	struct enav_profile_batch *b = batch_new(SEC(50), SEC(60));
	rec_add(b, pid, ENAV_PROFILE_OFFCPU, 0, 4, 123456789, NULL, 0, user, 2);
	rec_add(b, pid, ENAV_PROFILE_CPU, 0, 9, 0, NULL, 0, user, 2);
	rec_add(b, pid, ENAV_PROFILE_FUTEX, 0, 2, 5000, NULL, 0, user, 2);
	rec_add(b, pid, ENAV_PROFILE_OFFCPU, 0, 1, 1000, NULL, 0, user, 1);
	enav_profile_store_add(s, b);

	struct built r =
	    build(s, ENAV_PROFILE_OFFCPU, SEC(50), SEC(60), ENAV_PROFILE_FORMAT_PPROF, NULL);
	struct enav_pprof_decoded d;
	decode(&r, &d);
	assert_int_equal(r.matched, 2);
	assert_int_equal(d.n_samples, 2);
	check_value_type(&d, 0, "episodes", "count");
	check_value_type(&d, 1, "offcpu", "nanoseconds");
	assert_int_equal(d.period, 1);
	const struct enav_pprof_decoded_sample *s4 = sample_with(&d, 4);
	assert_non_null(s4);
	FAIL_IF(s4->values[1] != 123456789, "off-CPU value %" PRId64 ", expected total_ns\n",
		s4->values[1]);
	const struct enav_pprof_decoded_sample *s1 = sample_with(&d, 1);
	assert_non_null(s1);
	assert_int_equal(s1->values[1], 1000);
	enav_pprof_decoded_free(&d);
	free(r.out);

	r = build(s, ENAV_PROFILE_FUTEX, SEC(50), SEC(60), ENAV_PROFILE_FORMAT_PPROF, NULL);
	decode(&r, &d);
	assert_int_equal(r.matched, 1);
	check_value_type(&d, 0, "waits", "count");
	check_value_type(&d, 1, "futex", "nanoseconds");
	assert_non_null(sample_with(&d, 2));
	assert_int_equal(sample_with(&d, 2)->values[1], 5000);
	enav_pprof_decoded_free(&d);
	free(r.out);

	/* Folded: an off-CPU stack's value is its nanoseconds. */
	r = build(s, ENAV_PROFILE_OFFCPU, SEC(50), SEC(60), ENAV_PROFILE_FORMAT_FOLDED, NULL);
	assert_int_equal(r.rc, 0);
	const char *want = "testcomm;" OUTER_NAME ";" LEAF_NAME " 123456789\n"
			   "testcomm;" LEAF_NAME " 1000\n";
	FAIL_IF(r.len != strlen(want) || memcmp(r.out, want, r.len) != 0,
		"off-CPU folded:\n%.*s\nexpected:\n%s", (int)r.len, (const char *)r.out, want);
	free(r.out);
	enav_profile_store_free(s);
}

/* ---- filters ------------------------------------------------------------------ */

static void test_filters(void **state)
{
	struct enav_profile_store *s = store_default();
	uint32_t pid = self_pid(), other = pid + 1;

	struct enav_profile_batch *b = batch_new(SEC(10), SEC(20));
	rec_add(b, pid, ENAV_PROFILE_CPU, 1234, 1, 0, NULL, 0, NULL, 0);
	rec_add(b, pid, ENAV_PROFILE_CPU, 5678, 2, 0, NULL, 0, NULL, 0);
	rec_add(b, other, ENAV_PROFILE_CPU, 1234, 4, 0, NULL, 0, NULL, 0);
	rec_add(b, other, ENAV_PROFILE_CPU, 91234, 8, 0, NULL, 0, NULL, 0);
	enav_profile_store_add(s, b);

	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, NULL), 4);
	assert_int_equal(
	    matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, &(struct enav_profile_filter){.pid = pid}),
	    2);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.pid = other}),
			 2);
	assert_int_equal(
	    matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, &(struct enav_profile_filter){.pid = 1}),
	    0);
	/* The pid filter keeps exactly that pid's samples. */
	struct built r = build(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, ENAV_PROFILE_FORMAT_PPROF,
			       &(struct enav_profile_filter){.pid = other});
	struct enav_pprof_decoded d;
	decode(&r, &d);
	assert_int_equal(d.n_samples, 2);
	for (size_t i = 0; i < d.n_samples; i++) {
		const struct enav_pprof_decoded_label *l = label_of(&d, &d.samples[i], "pid");
		assert_non_null(l);
		assert_int_equal(l->num, other);
	}
	assert_non_null(sample_with(&d, 4));
	assert_non_null(sample_with(&d, 8));
	enav_pprof_decoded_free(&d);
	free(r.out);

	/* A cgroup id in decimal matches that id exactly (not 91234). */
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.cgroup = "1234"}),
			 2);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.cgroup = "5678"}),
			 1);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.pid = other, .cgroup = "1234"}),
			 1);
	/* A path, with no cgroup2 mount to resolve ids: nothing. */
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.cgroup = "/"}),
			 0);
	/* Empty strings mean "any". */
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.cgroup = "", .container = ""}),
			 4);
	/* No workload is a container here: a container filter matches nothing. */
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.container = "abcdef012345"}),
			 0);
	enav_profile_store_free(s);
}

/* The cgroup2 mount point from /proc/self/mountinfo, false when none. */
static bool find_cgroup2(char *out, size_t cap)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[4096];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char mnt[PATH_MAX];
		const char *sep = strstr(line, " - ");
		if (sep && strncmp(sep, " - cgroup2 ", 11) == 0 &&
		    sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 && !strchr(mnt, '\\')) {
			snprintf(out, cap, "%s", mnt);
			found = true;
		}
	}
	fclose(f);
	return found;
}

#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static char g_cg_parent[PATH_MAX + 64], g_cg_child[PATH_MAX + 160];

/* Whatever the test created goes, even when an assertion failed. */
static int rm_cgroups(void **state)
{
	if (g_cg_child[0])
		rmdir(g_cg_child);
	if (g_cg_parent[0])
		rmdir(g_cg_parent);
	g_cg_child[0] = g_cg_parent[0] = '\0';
	return 0;
}

/* With a real cgroup2 mount: ids resolve to paths, a docker scope proves a
 * container, and the path and container filters and labels follow. */
static void test_real_cgroup(void **state)
{
	char mount[PATH_MAX], rel[256];
	struct stat st;

	if (!find_cgroup2(mount, sizeof(mount))) {
		skip_unless_ci("no cgroup2 mount: skipped\n");
	}
	snprintf(rel, sizeof(rel), "/enavtest%u.slice/docker-" CID ".scope", self_pid());
	snprintf(g_cg_parent, sizeof(g_cg_parent), "%s/enavtest%u.slice", mount, self_pid());
	if (mkdir(g_cg_parent, 0755) != 0) {
		g_cg_parent[0] = '\0';
		skip_unless_ci("cannot create a cgroup in %s (%s): skipped\n", mount,
			       strerror(errno));
	}
	snprintf(g_cg_child, sizeof(g_cg_child), "%s%s", mount, rel);
	if (mkdir(g_cg_child, 0755) != 0 || stat(g_cg_child, &st) != 0) {
		skip_unless_ci("cannot create %s: skipped\n", g_cg_child);
	}
	uint64_t cg = st.st_ino;
	struct enav_profile_store *s = store_new(1000, 3600 * 1000, mount);
	uint32_t pid = self_pid();

	enav_profile_store_task(s, pid, 0, "testcomm");
	struct enav_profile_batch *b = batch_new(SEC(10), SEC(20));
	rec_add(b, pid, ENAV_PROFILE_CPU, cg, 5, 0, NULL, 0, NULL, 0);
	rec_add(b, pid + 1, ENAV_PROFILE_CPU, 999999999999ull, 6, 0, NULL, 0, NULL, 0);
	enav_profile_store_add(s, b);

	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.container = "0123456789ab"}),
			 1);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.container = CID}),
			 1);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.container = "1123456789ab"}),
			 0);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.cgroup = rel}),
			 1);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX,
				 &(struct enav_profile_filter){.cgroup = "/enavtest-none"}),
			 0);

	struct built r = build(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, ENAV_PROFILE_FORMAT_PPROF, NULL);
	struct enav_pprof_decoded d;
	decode(&r, &d);
	const struct enav_pprof_decoded_sample *s5 = sample_with(&d, 5);
	assert_non_null(s5);
	const char *l = label_str(&d, s5, "cgroup");
	FAIL_IF(!l || strcmp(l, rel) != 0, "cgroup label %s, expected %s\n", l ? l : "(none)", rel);
	l = label_str(&d, s5, "container_id");
	FAIL_IF(!l || strcmp(l, CID) != 0, "container_id label %s\n", l ? l : "(none)");
	/* An id the kernel does not know: no cgroup label, no container. */
	const struct enav_pprof_decoded_sample *s6 = sample_with(&d, 6);
	assert_non_null(s6);
	assert_null(label_of(&d, s6, "cgroup"));
	assert_null(label_of(&d, s6, "container_id"));
	enav_pprof_decoded_free(&d);
	free(r.out);

	struct enav_profile_workload w;
	assert_true(enav_profile_store_workload(s, pid, &w));
	assert_string_equal(w.container_id, CID);
	assert_string_equal(w.pod, "");

	enav_profile_store_free(s);
}

/* ---- folded and flame graph ----------------------------------------------------- */

static void test_folded_exact(void **state)
{
	struct enav_profile_store *s = store_default();
	uint32_t pid = self_pid();
	const uint64_t leaf = ip_in(enav_test_pst_leaf), mid = ip_in(enav_test_pst_mid),
		       outer = ip_in(enav_test_pst_outer);
	const uint64_t three[] = {leaf, mid, outer}, one[] = {leaf}, kern[] = {KADDR};

	enav_profile_store_task(s, pid, 0, "testcomm");
	struct enav_profile_batch *b = batch_new(SEC(1), SEC(2));
	rec_add(b, pid, ENAV_PROFILE_CPU, 0, 7, 0, NULL, 0, three, 3);
	rec_add(b, pid, ENAV_PROFILE_CPU, 0, 2, 0, kern, 1, one, 1);
	rec_add(b, 999999, ENAV_PROFILE_CPU, 0, 1, 0, NULL, 0, NULL, 0);
	rec_add(b, pid, ENAV_PROFILE_OFFCPU, 0, 1, 77, NULL, 0, one, 1); /* other kind */
	enav_profile_store_add(s, b);

	struct built r =
	    build(s, ENAV_PROFILE_CPU, SEC(1), SEC(2), ENAV_PROFILE_FORMAT_FOLDED, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.matched, 3);
	const char *want = "testcomm;" OUTER_NAME ";" MID_NAME ";" LEAF_NAME " 7\n"
			   "testcomm;" LEAF_NAME ";0xffffffff00000001 (" KMAP ") 2\n"
			   "[unknown process] 1\n";
	FAIL_IF(r.len != strlen(want) || memcmp(r.out, want, r.len) != 0,
		"folded:\n%.*s\nexpected:\n%s", (int)r.len, (const char *)r.out, want);
	free(r.out);
	enav_profile_store_free(s);
}

static void test_flamegraph_svg(void **state)
{
	struct enav_profile_store *s = store_default();
	uint32_t pid = self_pid();
	const uint64_t user[] = {ip_in(enav_test_pst_leaf), ip_in(enav_test_pst_outer)};

	enav_profile_store_task(s, pid, 0, "testcomm");
	struct enav_profile_batch *b = batch_new(SEC(1), SEC(2));
	rec_add(b, pid, ENAV_PROFILE_CPU, 0, 5, 0, NULL, 0, user, 2);
	enav_profile_store_add(s, b);

	struct built r =
	    build(s, ENAV_PROFILE_CPU, SEC(1), SEC(2), ENAV_PROFILE_FORMAT_FLAMEGRAPH, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.matched, 1);
	char *svg = calloc(1, r.len + 1);
	assert_non_null(svg);
	memcpy(svg, r.out, r.len);
	FAIL_IF(strncmp(svg, "<?xml", 5) != 0 && strncmp(svg, "<svg", 4) != 0,
		"flame graph does not start as an SVG document: %.40s\n", svg);
	assert_non_null(strstr(svg, "</svg>"));
	assert_non_null(strstr(svg, LEAF_NAME));
	assert_non_null(strstr(svg, "CPU profile"));
	free(svg);
	free(r.out);
	enav_profile_store_free(s);
}

/* ---- caps --------------------------------------------------------------------- */

static void test_stack_cap_evicts_oldest(void **state)
{
	struct enav_profile_store *s = store_new(4, 3600 * 1000, NULL);
	const char *m;

	enav_profile_store_add(s, batch_of(SEC(10), SEC(20), 1, 3));
	m = store_metrics(s);
	assert_int_equal(metric(m, "enav_profile_stored_stacks"), 3);
	assert_int_equal(metric(m, "enav_profile_batches_evicted_total"), 0);

	/* 6 > 4: the oldest goes. */
	enav_profile_store_add(s, batch_of(SEC(20), SEC(30), 2, 3));
	m = store_metrics(s);
	assert_int_equal(metric(m, "enav_profile_stored_stacks"), 3);
	assert_int_equal(metric(m, "enav_profile_stored_batches"), 1);
	assert_int_equal(metric(m, "enav_profile_batches_evicted_total"), 1);
	assert_int_equal(metric(m, "enav_profile_stacks_evicted_total"), 3);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, SEC(10), SEC(20), NULL), 0);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, SEC(20), SEC(30), NULL), 3);

	enav_profile_store_add(s, batch_of(SEC(30), SEC(40), 3, 3));
	m = store_metrics(s);
	assert_int_equal(metric(m, "enav_profile_stored_stacks"), 3);
	assert_int_equal(metric(m, "enav_profile_batches_evicted_total"), 2);
	assert_int_equal(metric(m, "enav_profile_stacks_evicted_total"), 6);
	assert_int_equal(metric(m, "enav_profile_batches_total"), 3);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, NULL), 3);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, SEC(30), SEC(40), NULL), 3);

	/* Small batches that fit together are all kept: 3 + 1 = 4. */
	enav_profile_store_add(s, batch_of(SEC(40), SEC(50), 4, 1));
	m = store_metrics(s);
	assert_int_equal(metric(m, "enav_profile_stored_stacks"), 4);
	assert_int_equal(metric(m, "enav_profile_stored_batches"), 2);
	assert_int_equal(metric(m, "enav_profile_batches_evicted_total"), 2);
	enav_profile_store_free(s);
}

static void test_newest_batch_never_evicted(void **state)
{
	struct enav_profile_store *s = store_new(4, 3600 * 1000, NULL);
	const char *m;

	/* Alone and over the cap from the start. */
	enav_profile_store_add(s, batch_of(SEC(10), SEC(20), 1, 6));
	m = store_metrics(s);
	assert_int_equal(metric(m, "enav_profile_stored_stacks"), 6);
	assert_int_equal(metric(m, "enav_profile_stored_batches"), 1);
	assert_int_equal(metric(m, "enav_profile_batches_evicted_total"), 0);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, NULL), 6);

	/* The next one over the cap replaces it and is itself kept. */
	enav_profile_store_add(s, batch_of(SEC(20), SEC(30), 2, 5));
	m = store_metrics(s);
	assert_int_equal(metric(m, "enav_profile_stored_stacks"), 5);
	assert_int_equal(metric(m, "enav_profile_stored_batches"), 1);
	assert_int_equal(metric(m, "enav_profile_batches_evicted_total"), 1);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, SEC(20), SEC(30), NULL), 5);
	enav_profile_store_free(s);
}

static void test_retention(void **state)
{
	struct enav_profile_store *s = store_new(100000, 1000, NULL);
	const char *m;

	enav_profile_store_add(s, batch_of(MS(500), MS(1000), 1, 1));
	enav_profile_store_add(s, batch_of(MS(1000), MS(1600), 2, 2));
	m = store_metrics(s);
	assert_int_equal(metric(m, "enav_profile_stored_batches"), 2);
	assert_int_equal(metric(m, "enav_profile_batches_evicted_total"), 0);

	/* Newest ends at 2.6 s: the horizon is 1.6 s.  The batch ending at 1.0 s
	 * is older than that; the one ending exactly at 1.6 s is not. */
	enav_profile_store_add(s, batch_of(MS(1600), MS(2600), 3, 4));
	m = store_metrics(s);
	assert_int_equal(metric(m, "enav_profile_stored_batches"), 2);
	assert_int_equal(metric(m, "enav_profile_stored_stacks"), 6);
	assert_int_equal(metric(m, "enav_profile_batches_evicted_total"), 1);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, NULL), 6);

	/* One nanosecond later, the batch ending at 1.6 s is past retention. */
	enav_profile_store_add(s, batch_of(MS(2600), MS(2600) + 1, 4, 8));
	m = store_metrics(s);
	assert_int_equal(metric(m, "enav_profile_stored_batches"), 2);
	assert_int_equal(metric(m, "enav_profile_stored_stacks"), 12);
	assert_int_equal(metric(m, "enav_profile_batches_evicted_total"), 2);
	assert_int_equal(metric(m, "enav_profile_stacks_evicted_total"), 3);
	assert_int_equal(matched(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, NULL), 12);

	/* A batch far in the future leaves only itself. */
	enav_profile_store_add(s, batch_of(SEC(100), SEC(101), 5, 1));
	m = store_metrics(s);
	assert_int_equal(metric(m, "enav_profile_stored_batches"), 1);
	assert_int_equal(metric(m, "enav_profile_stored_stacks"), 1);
	assert_int_equal(metric(m, "enav_profile_batches_evicted_total"), 4);
	enav_profile_store_free(s);
}

/* ---- drain, sleep, close ------------------------------------------------------- */

static int g_drains;

static int fake_drain(void *ctx, uint64_t *mono)
{
	g_drains++;
	*mono = *(uint64_t *)ctx;
	return 0;
}

static void test_drain_and_close(void **state)
{
	struct enav_profile_store *s = store_default();
	uint64_t mono = 7, to = SEC(42);

	assert_int_equal(enav_profile_store_drain(s, &mono), -ENODEV);
	assert_false(enav_profile_store_closed(s));

	g_drains = 0;
	enav_profile_store_set_drain(s, fake_drain, &to);
	assert_int_equal(enav_profile_store_drain(s, &mono), 0);
	assert_int_equal(mono, SEC(42));
	assert_int_equal(g_drains, 1);

	enav_profile_store_set_drain(s, NULL, NULL);
	assert_int_equal(enav_profile_store_drain(s, &mono), -ENODEV);

	enav_profile_store_set_drain(s, fake_drain, &to);
	enav_profile_store_close(s);
	assert_true(enav_profile_store_closed(s));
	/* Closing detaches the source: no further drain reaches it. */
	assert_int_equal(enav_profile_store_drain(s, &mono), -ESHUTDOWN);
	assert_int_equal(g_drains, 1);
	enav_profile_store_free(s);
}

static void *close_later(void *arg)
{
	usleep(50 * 1000);
	enav_profile_store_close(arg);
	return NULL;
}

static void test_sleep_returns_on_close(void **state)
{
	struct enav_profile_store *s = store_default();
	pthread_t t;

	/* Open: sleeps the whole time and says so. */
	double t0 = now_s();
	assert_true(enav_profile_store_sleep(s, 30));
	double took = now_s() - t0;
	FAIL_IF(took < 0.025, "sleep(30 ms) returned after %.3f s\n", took);

	assert_int_equal(pthread_create(&t, NULL, close_later, s), 0);
	t0 = now_s();
	bool ok = enav_profile_store_sleep(s, 10000);
	took = now_s() - t0;
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_false(ok);
	FAIL_IF(took > 1.0, "sleep(10 s) returned %.3f s after a close 50 ms in\n", took);
	FAIL_IF(took < 0.03, "sleep returned after %.3f s, before the close\n", took);

	/* Already closed: at once. */
	t0 = now_s();
	assert_false(enav_profile_store_sleep(s, 10000));
	assert_true(now_s() - t0 < 1.0);
	enav_profile_store_free(s);
}

/* ---- per-pid and workload lookups ---------------------------------------------- */

struct visits {
	uint32_t tgid[16];
	char comm[16][32];
	size_t n;
};

static void visit(void *ctx, uint32_t tgid, const char *comm)
{
	struct visits *v = ctx;

	assert_true(v->n < 16);
	v->tgid[v->n] = tgid;
	snprintf(v->comm[v->n], sizeof(v->comm[v->n]), "%s", comm);
	v->n++;
}

static size_t visits_of(const struct visits *v, uint32_t tgid)
{
	size_t n = 0;

	for (size_t i = 0; i < v->n; i++)
		n += v->tgid[i] == tgid;
	return n;
}

static void test_each_pid(void **state)
{
	struct enav_profile_store *s = store_default();
	struct visits v = {0};

	enav_profile_store_task(s, 100, 0, "hundred");
	struct enav_profile_batch *b = batch_new(SEC(10), SEC(20));
	rec_add(b, 100, ENAV_PROFILE_CPU, 0, 1, 0, NULL, 0, NULL, 0);
	rec_add(b, 200, ENAV_PROFILE_CPU, 0, 1, 0, NULL, 0, NULL, 0);
	rec_add(b, 100, ENAV_PROFILE_CPU, 0, 1, 0, NULL, 0, NULL, 0);
	rec_add(b, 300, ENAV_PROFILE_OFFCPU, 0, 1, 5, NULL, 0, NULL, 0);
	enav_profile_store_add(s, b);
	b = batch_new(SEC(20), SEC(30));
	rec_add(b, 100, ENAV_PROFILE_CPU, 0, 1, 0, NULL, 0, NULL, 0);
	rec_add(b, 400, ENAV_PROFILE_CPU, 0, 1, 0, NULL, 0, NULL, 0);
	enav_profile_store_add(s, b);

	enav_profile_store_each_pid(s, ENAV_PROFILE_CPU, SEC(10), SEC(20), visit, &v);
	FAIL_IF(v.n != 2 || visits_of(&v, 100) != 1 || visits_of(&v, 200) != 1,
		"first window: %zu visits (100 x%zu, 200 x%zu), expected each once\n", v.n,
		visits_of(&v, 100), visits_of(&v, 200));
	for (size_t i = 0; i < v.n; i++)
		assert_string_equal(v.comm[i], v.tgid[i] == 100 ? "hundred" : "");

	v.n = 0;
	enav_profile_store_each_pid(s, ENAV_PROFILE_CPU, 0, UINT64_MAX, visit, &v);
	FAIL_IF(v.n != 3 || visits_of(&v, 100) != 1 || visits_of(&v, 200) != 1 ||
		    visits_of(&v, 400) != 1,
		"all windows: %zu visits, expected 100, 200, 400 once each\n", v.n);

	v.n = 0;
	enav_profile_store_each_pid(s, ENAV_PROFILE_OFFCPU, 0, UINT64_MAX, visit, &v);
	assert_int_equal(v.n, 1);
	assert_int_equal(v.tgid[0], 300);

	v.n = 0;
	enav_profile_store_each_pid(s, ENAV_PROFILE_FUTEX, 0, UINT64_MAX, visit, &v);
	assert_int_equal(v.n, 0);
	enav_profile_store_free(s);
}

static void test_workload(void **state)
{
	struct enav_profile_store *s = store_default();
	struct enav_profile_workload w;

	enav_profile_store_add(s, batch_of(SEC(1), SEC(2), 321, 2));
	memset(&w, 'x', sizeof(w));
	assert_false(enav_profile_store_workload(s, 322, &w));
	assert_string_equal(w.container_id, "");
	memset(&w, 'x', sizeof(w));
	assert_true(enav_profile_store_workload(s, 321, &w));
	/* No agent, no cgroup2 mount: nothing known, and nothing invented. */
	assert_string_equal(w.container_id, "");
	assert_string_equal(w.pod, "");
	assert_string_equal(w.namespace_, "");
	assert_string_equal(w.service, "");
	enav_profile_store_free(s);
}

static void test_kind_names(void **state)
{
	assert_string_equal(enav_profile_kind_name(ENAV_PROFILE_CPU), "cpu");
	assert_string_equal(enav_profile_kind_name(ENAV_PROFILE_OFFCPU), "offcpu");
	assert_string_equal(enav_profile_kind_name(ENAV_PROFILE_FUTEX), "futex");
	assert_string_equal(enav_profile_kind_name(ENAV_PROFILE__COUNT), "unknown");
}

/* ---- no lock across a tenant's file ----------------------------------------------- */

/*
 * A slow tenant file, played through the symbolizer's load hook: the first
 * load of this test binary blocks until released (at most 30 s, so a
 * failing test ends).  What other threads do meanwhile must complete.
 */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	char path[PATH_MAX];
	bool armed, entered, released;
} gate = {.lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void gate_hook(const char *path)
{
	pthread_mutex_lock(&gate.lock);
	if (gate.armed && strcmp(path, gate.path) == 0) {
		gate.armed = false;
		gate.entered = true;
		pthread_cond_broadcast(&gate.cv);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 30;
		while (!gate.released && pthread_cond_timedwait(&gate.cv, &gate.lock, &ts) == 0)
			;
	}
	pthread_mutex_unlock(&gate.lock);
}

static void gate_arm(void)
{
	ssize_t n = readlink("/proc/self/exe", gate.path, sizeof(gate.path) - 1);
	assert_true(n > 0);
	gate.path[n] = '\0';
	gate.armed = true;
	gate.entered = gate.released = false;
	enav_symbolizer_load_hook = gate_hook;
}

/* Waits up to ms for *flag (under the gate's lock). */
static bool gate_wait(bool *flag, unsigned ms)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000l;
	if (ts.tv_nsec >= 1000000000l) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000l;
	}
	pthread_mutex_lock(&gate.lock);
	while (!*flag && pthread_cond_timedwait(&gate.cv, &gate.lock, &ts) == 0)
		;
	bool ok = *flag;
	pthread_mutex_unlock(&gate.lock);
	return ok;
}

static void gate_release(void)
{
	pthread_mutex_lock(&gate.lock);
	gate.released = true;
	pthread_cond_broadcast(&gate.cv);
	pthread_mutex_unlock(&gate.lock);
	enav_symbolizer_load_hook = NULL;
}

struct stuck_job {
	struct enav_profile_store *s;
	bool announce; /* announce this process (else: build its CPU profile) */
	struct built r;
};

static void *stuck_job_run(void *arg)
{
	struct stuck_job *j = arg;
	if (j->announce)
		enav_profile_store_task(j->s, self_pid(), 0, "testcomm");
	else
		j->r = build(j->s, ENAV_PROFILE_CPU, SEC(1000), SEC(1010),
			     ENAV_PROFILE_FORMAT_PPROF, NULL);
	return NULL;
}

static bool others_done;

/* What must not wait for a tenant's file: a drain's batch, an announcement
 * of a process that is gone, a build of another kind, a scrape. */
static void *others_run(void *arg)
{
	struct enav_profile_store *s = arg;
	const uint64_t kern[] = {KADDR};
	struct enav_profile_batch *b = batch_new(SEC(2000), SEC(2010));
	rec_add(b, 4242, ENAV_PROFILE_OFFCPU, 0, 1, 5000, kern, 1, NULL, 0);
	enav_profile_store_add(s, b);
	enav_profile_store_task(s, 0x7ffffff0u, 0, "gone");
	struct built r =
	    build(s, ENAV_PROFILE_OFFCPU, SEC(2000), SEC(2010), ENAV_PROFILE_FORMAT_FOLDED, NULL);
	assert_int_equal(r.rc, 0);
	assert_int_equal(r.matched, 1);
	free(r.out);
	struct enav_promtext p;
	assert_int_equal(enav_promtext_init_growable(&p, 1 << 20), 0);
	enav_profile_store_metrics(s, &p);
	enav_promtext_free(&p);
	pthread_mutex_lock(&gate.lock);
	others_done = true;
	pthread_cond_broadcast(&gate.cv);
	pthread_mutex_unlock(&gate.lock);
	return NULL;
}

/* Runs others_run while job is stuck in the load of this binary, and
 * asserts it finished first. */
static void others_while_stuck(struct stuck_job *job)
{
	pthread_t tj, to;
	others_done = false;
	gate_arm();
	assert_int_equal(pthread_create(&tj, NULL, stuck_job_run, job), 0);
	bool entered = gate_wait(&gate.entered, 10000);
	FAIL_IF(!entered, "setup: the %s never loaded this binary's symbols\n",
		job->announce ? "announcement" : "build");
	assert_int_equal(pthread_create(&to, NULL, others_run, job->s), 0);
	bool done = gate_wait(&others_done, 5000);
	gate_release();
	pthread_join(to, NULL);
	pthread_join(tj, NULL);
	FAIL_IF(!done,
		"a drain, an announcement, a build and a scrape waited for the %s stuck "
		"reading a tenant's file\n",
		job->announce ? "announcement" : "build");
}

static void check_symbolized(struct enav_profile_store *s)
{
	struct built r =
	    build(s, ENAV_PROFILE_CPU, SEC(1000), SEC(1010), ENAV_PROFILE_FORMAT_FOLDED, NULL);
	assert_int_equal(r.rc, 0);
	FAIL_IF(!memmem(r.out, r.len, LEAF_NAME, strlen(LEAF_NAME)), "not symbolized: %.*s\n",
		(int)r.len, (const char *)r.out);
	free(r.out);
}

static void test_build_stuck_in_symbol_load(void **state)
{
	/* One symbol table kept: the announcement loads every file of this
	 * process, so this binary's is evicted and the build loads it again. */
	struct enav_profile_store_config c = {.frequency_hz = FREQ_HZ,
					      .retention_ms = 3600 * 1000,
					      .max_stored_stacks = 100000,
					      .max_processes = 64,
					      .max_elf_files = 1};
	struct enav_profile_store *s = enav_profile_store_new(&c);
	assert_non_null(s);
	const uint64_t user[] = {ip_in(enav_test_pst_leaf), ip_in(enav_test_pst_mid)};
	enav_profile_store_task(s, self_pid(), 0, "testcomm");
	struct enav_profile_batch *b = batch_new(SEC(1000), SEC(1010));
	rec_add(b, self_pid(), ENAV_PROFILE_CPU, 0, 7, 0, NULL, 0, user, 2);
	enav_profile_store_add(s, b);

	struct stuck_job job = {.s = s};
	others_while_stuck(&job);
	assert_int_equal(job.r.rc, 0);
	assert_int_equal(job.r.matched, 1);
	free(job.r.out);
	check_symbolized(s);
	enav_profile_store_free(s);
}

static void test_announcement_stuck_in_symbol_load(void **state)
{
	struct enav_profile_store *s = store_default();
	const uint64_t user[] = {ip_in(enav_test_pst_leaf), ip_in(enav_test_pst_mid)};
	struct enav_profile_batch *b = batch_new(SEC(1000), SEC(1010));
	rec_add(b, self_pid(), ENAV_PROFILE_CPU, 0, 7, 0, NULL, 0, user, 2);
	enav_profile_store_add(s, b);

	struct stuck_job job = {.s = s, .announce = true};
	others_while_stuck(&job);
	check_symbolized(s);
	enav_profile_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_frameless_records),
	    cmocka_unit_test(test_cpu_pprof),
	    cmocka_unit_test(test_tables_match_pprof),
	    cmocka_unit_test(test_other_exec_image_unsymbolized),
	    cmocka_unit_test(test_leaf_and_return_addresses),
	    cmocka_unit_test(test_window_selection),
	    cmocka_unit_test(test_offcpu_values),
	    cmocka_unit_test(test_filters),
	    cmocka_unit_test_teardown(test_real_cgroup, rm_cgroups),
	    cmocka_unit_test(test_folded_exact),
	    cmocka_unit_test(test_flamegraph_svg),
	    cmocka_unit_test(test_stack_cap_evicts_oldest),
	    cmocka_unit_test(test_newest_batch_never_evicted),
	    cmocka_unit_test(test_retention),
	    cmocka_unit_test(test_drain_and_close),
	    cmocka_unit_test(test_sleep_returns_on_close),
	    cmocka_unit_test(test_each_pid),
	    cmocka_unit_test(test_workload),
	    cmocka_unit_test(test_kind_names),
	    cmocka_unit_test(test_build_stuck_in_symbol_load),
	    cmocka_unit_test(test_announcement_stuck_in_symbol_load),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
