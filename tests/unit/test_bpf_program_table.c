/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which programs load, chosen from the sources' program tables.  This host
 * runs one kernel; the choice is a pure function of a row and the probe's
 * facts, so every combination of facts is checked here: against rows written
 * for the purpose, and against the naming rules the tables replaced (*_btf
 * and *_raw suffixes, feature and optional prefixes, as each source set them
 * at ee7fa41b), so that a table row that would change what loads on some
 * kernel fails here rather than on the lead's kernel matrix.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "bpf_program_tables.h"
#include "runtime/bpf_program_table.h"

static const struct enav_bpf_feature_spec extra = {.name = "extra"};
static const struct enav_bpf_feature_spec inlined = {.name = "inlined", .in_core = true};

static bool loads(const struct enav_bpf_program_spec *p, bool btf, bool on, bool listed)
{
	struct enav_bpf_load_facts f = {
	    .tp_btf = btf, .feature_on = on, .hook_listed_or_unsure = listed};
	return enav_bpf_program_loads(p, &f);
}

static void test_variants_features_and_absent_hooks(void **state)
{
	(void)state;
	const struct enav_bpf_program_spec btf = {.name = "a", .variant = ENAV_BPF_TP_BTF};
	const struct enav_bpf_program_spec raw = {.name = "b", .variant = ENAV_BPF_RAW_TP};
	const struct enav_bpf_program_spec any = {.name = "c", .variant = ENAV_BPF_ANY_KERNEL};
	assert_true(loads(&btf, true, false, false));
	assert_false(loads(&btf, false, true, true));
	assert_true(loads(&raw, false, false, false));
	assert_false(loads(&raw, true, true, true));
	assert_true(loads(&any, true, false, false));
	assert_true(loads(&any, false, false, false));
	/* A feature switched off, or refused, leaves its programs out... */
	const struct enav_bpf_program_spec of_extra = {
	    .name = "d", .variant = ENAV_BPF_RAW_TP, .feature = &extra};
	assert_true(loads(&of_extra, false, true, true));
	assert_false(loads(&of_extra, false, false, true));
	assert_false(loads(&of_extra, true, true, true));
	/* ...but an in-core feature's code goes by read-only globals. */
	const struct enav_bpf_program_spec of_inlined = {.name = "e", .feature = &inlined};
	assert_true(loads(&of_inlined, false, false, true));
	/* A hook tracefs does not list loads only if it cannot be absent. */
	const struct enav_bpf_program_spec maybe = {.name = "f", .hook_may_be_absent = true};
	assert_false(loads(&maybe, true, true, false));
	assert_true(loads(&maybe, true, true, true));
	assert_true(loads(&any, true, true, false));
}

/* How a source grouped its programs by name before its table. */
struct naming_rules {
	const struct enav_bpf_program_table *table;
	const char *optional_prefix;
	struct {
		const char *name, *prefix;
		bool in_core;
	} features[3];
};

static const struct naming_rules rules[] = {
    {&enav_exec_programs, "enav_cred_", {{"credential_changes", "enav_cred_", false}}},
    {&enav_self_guard_programs, "enav_guard_", {{0}}},
    {&enav_file_open_programs, "enav_fopen_", {{0}}},
    {&enav_profile_programs,
     "enav_futex2",
     {{"unwind_eh_frame", "enav_cpu_sample", true},
      {"offcpu", "enav_offcpu", false},
      {"futex", "enav_futex", false}}},
};

static bool has_prefix(const char *s, const char *p)
{
	return p && strncmp(s, p, strlen(p)) == 0;
}

static bool has_suffix(const char *s, const char *x)
{
	size_t n = strlen(s), m = strlen(x);
	return n >= m && strcmp(s + n - m, x) == 0;
}

/* The feature the old prefixes gave name (its index in r->features), or -1. */
static int old_feature(const struct naming_rules *r, const char *name)
{
	for (int i = 0; i < 3; i++)
		if (has_prefix(name, r->features[i].prefix))
			return i;
	return -1;
}

/* bpf_source.c's select_programs at ee7fa41b, for one program. */
static bool old_loads(const struct naming_rules *r, const char *name, bool btf,
		      unsigned features_on, bool listed)
{
	bool load = true;
	if (has_suffix(name, "_btf") || has_suffix(name, "_raw"))
		load = has_suffix(name, "_btf") == btf;
	int f = old_feature(r, name);
	if (f >= 0 && !r->features[f].in_core && !(features_on >> f & 1u))
		load = false;
	if (load && has_prefix(name, r->optional_prefix) && !listed)
		load = false;
	return load;
}

static void test_tables_choose_as_the_names_did(void **state)
{
	(void)state;
	size_t checked = 0;
	for (size_t k = 0; k < ENAV_ARRAY_LEN(rules); k++) {
		const struct naming_rules *r = &rules[k];
		const struct enav_bpf_program_table *t = r->table;
		for (size_t i = 0; i < t->n_programs; i++) {
			const struct enav_bpf_program_spec *p = &t->programs[i];
			int f = old_feature(r, p->name);
			/* The same feature, found by the row instead of a prefix. */
			if (f < 0) {
				if (p->feature)
					fail_msg("%s: %s is of %s, was of the core", t->source,
						 p->name, p->feature->name);
			} else if (!p->feature || strcmp(p->feature->name, r->features[f].name) ||
				   p->feature->in_core != r->features[f].in_core) {
				fail_msg("%s: %s is not of feature %s as before", t->source,
					 p->name, r->features[f].name);
			}
			assert_int_equal(p->hook_may_be_absent,
					 has_prefix(p->name, r->optional_prefix));
			assert_false(p->attached_by_source); /* no manual prefixes */
			for (unsigned bits = 0; bits < 4; bits++) {
				bool btf = bits & 1u, listed = bits & 2u;
				for (unsigned on = 0; on < 8; on++) {
					bool feature_on = f >= 0 && (on >> f & 1u);
					bool now = loads(p, btf, feature_on, listed);
					if (now != old_loads(r, p->name, btf, on, listed))
						fail_msg("%s: %s %s on a %s kernel (features 0x%x, "
							 "hook %s)",
							 t->source, p->name,
							 now ? "loads" : "does not load",
							 btf ? "tp_btf" : "raw_tp", on,
							 listed ? "listed" : "absent");
					checked++;
				}
			}
		}
	}
	assert_true(checked > 0);
}

/* Every row's feature is in its table's list, each hook written twice has
 * both variants, and no name repeats. */
static void test_tables_are_whole(void **state)
{
	(void)state;
	for (size_t k = 0; k < ENAV_ARRAY_LEN(bpf_program_tables); k++) {
		const struct enav_bpf_program_table *t = bpf_program_tables[k];
		size_t btf = 0, raw = 0;
		for (size_t i = 0; i < t->n_programs; i++) {
			const struct enav_bpf_program_spec *p = &t->programs[i];
			btf += p->variant == ENAV_BPF_TP_BTF;
			raw += p->variant == ENAV_BPF_RAW_TP;
			assert_ptr_equal(enav_bpf_program_find(t, p->name), p);
			bool listed = !p->feature;
			for (size_t j = 0; j < t->n_features; j++)
				listed |= t->features[j] == p->feature;
			if (!listed)
				fail_msg("%s: %s's feature is not in the table", t->source,
					 p->name);
		}
		assert_int_equal(btf, raw);
	}
}

/* What this host's kind of kernel and an older one load of exec and
 * profiling, spelled out. */
static void test_exec_and_profiling_choices(void **state)
{
	(void)state;
	const struct enav_bpf_program_spec *exec_btf =
	    enav_bpf_program_find(&enav_exec_programs, "enav_exec_btf");
	const struct enav_bpf_program_spec *exec_raw =
	    enav_bpf_program_find(&enav_exec_programs, "enav_exec_raw");
	assert_true(loads(exec_btf, true, false, true) && !loads(exec_raw, true, false, true));
	assert_true(loads(exec_raw, false, false, true) && !loads(exec_btf, false, false, true));
	const struct enav_bpf_program_spec *cpu =
	    enav_bpf_program_find(&enav_profile_programs, "enav_cpu_sample");
	assert_true(loads(cpu, false, false, true)); /* unwinder refused: loads without */
	const struct enav_bpf_program_spec *waitv =
	    enav_bpf_program_find(&enav_profile_programs, "enav_futex2_waitv_enter");
	assert_false(loads(waitv, true, true, false)); /* 5.10: no futex_waitv */
	assert_false(loads(waitv, true, false, true)); /* futex off */
	const struct enav_bpf_program_spec *futex =
	    enav_bpf_program_find(&enav_profile_programs, "enav_futex_enter");
	assert_true(loads(futex, false, true, false)); /* futex(2) itself is never absent */
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_variants_features_and_absent_hooks),
	    cmocka_unit_test(test_tables_choose_as_the_names_did),
	    cmocka_unit_test(test_tables_are_whole),
	    cmocka_unit_test(test_exec_and_profiling_choices),
	};
	return cmocka_run_group_tests_name("bpf_program_table", tests, NULL, NULL);
}
