/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Every switch a module row names (src/modules.c) is a boolean row of the
 * configuration schema: an explicit "on" in the file can only make a
 * refusal fatal through a key the schema knows as a boolean.  Regression:
 * the self_guard row named "security.agent_tampering" (the schema's key is
 * "security.rules.agent_tampering"), so an explicit "on" never made its
 * refusal fatal.  The same holds for every feature of the BPF sources'
 * program tables, whose switches are struct members (ENAV_CONFIG_BOOL):
 * each must be a member some boolean schema row sets.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "config/config.h"
#include "bpf_program_tables.h"
#include "runtime/bpf_program_table.h"
#include "runtime/host.h"

static void test_module_switches_are_boolean_rows(void **state)
{
	(void)state;
	size_t checked = 0;
	for (size_t i = 0; i < enav_modules_count; i++) {
		const char *key = enav_modules[i].config_key;
		if (!key)
			continue;
		if (!enav_config_key_is_bool(key))
			fail_msg("module %s names %s, which is no boolean schema row",
				 enav_modules[i].name, key);
		checked++;
	}
	assert_true(checked >= 5);
}

static void test_self_guard_switch_can_be_explicit(void **state)
{
	(void)state;
	const char *key = NULL;
	for (size_t i = 0; i < enav_modules_count; i++)
		if (strcmp(enav_modules[i].name, "self_guard") == 0)
			key = enav_modules[i].config_key;
	assert_non_null(key);
	struct enav_config cfg;
	char err[256];
	const char *yaml = "security:\n  rules:\n    agent_tampering: true\n";
	assert_int_equal(enav_config_parse(&cfg, yaml, strlen(yaml), err, sizeof(err)), 0);
	assert_true(enav_config_explicitly_on(&cfg, key));
}

static void test_unknown_and_non_boolean_keys(void **state)
{
	(void)state;
	assert_false(enav_config_key_is_bool("security.agent_tampering"));
	assert_false(enav_config_key_is_bool("sources.network.dns_capture_bytes"));
	assert_false(enav_config_key_is_bool(NULL));
	assert_true(enav_config_key_is_bool("sources.network.tls.enabled"));
}

static void test_program_table_switches_are_boolean_rows(void **state)
{
	(void)state;
	size_t checked = 0;
	for (size_t k = 0; k < ENAV_ARRAY_LEN(bpf_program_tables); k++)
		for (size_t i = 0; i < bpf_program_tables[k]->n_features; i++) {
			const struct enav_bpf_feature_spec *f = bpf_program_tables[k]->features[i];
			if (!f->config_bool)
				continue;
			if (!enav_config_bool_key(f->config_bool))
				fail_msg("%s feature %s names a bool no schema row sets",
					 bpf_program_tables[k]->source, f->name);
			checked++;
		}
	assert_true(checked >= 3);
	/* The member resolves to the row's key, which the messages quote. */
	assert_string_equal(enav_config_bool_key(ENAV_CONFIG_BOOL(profiling.offcpu)),
			    "profiling.offcpu.enabled");
	assert_string_equal(enav_config_bool_key(ENAV_CONFIG_BOOL(network.tls.enabled)),
			    "sources.network.tls.enabled");
	assert_null(enav_config_bool_key(0));
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_module_switches_are_boolean_rows),
	    cmocka_unit_test(test_self_guard_switch_can_be_explicit),
	    cmocka_unit_test(test_unknown_and_non_boolean_keys),
	    cmocka_unit_test(test_program_table_switches_are_boolean_rows),
	};
	return cmocka_run_group_tests_name("config_keys", tests, NULL, NULL);
}
