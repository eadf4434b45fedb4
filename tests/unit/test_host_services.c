/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runner's start-time check of the services module rows declare: a need
 * must come from an enabled row that starts earlier, a want from some row.
 * (The real table passes it in every `enav run`.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/runner.h"

#define FILTER	 ENAV_SERVICE_BIT(ENAV_SERVICE_CAPTURE_FILTER)
#define PROFILES ENAV_SERVICE_BIT(ENAV_SERVICE_PROFILES)

static bool on(const struct enav_config *cfg)
{
	(void)cfg;
	return true;
}

static bool off(const struct enav_config *cfg)
{
	(void)cfg;
	return false;
}

static int check(const struct enav_module *mods, size_t n, char *err, size_t errlen)
{
	static struct enav_config cfg; /* large; the rows above ignore it */
	err[0] = '\0';
	return enav_modules_check_services(mods, n, &cfg, err, errlen);
}

static void test_real_table_passes(void **unused)
{
	(void)unused;
	static struct enav_config cfg;
	enav_config_defaults(&cfg);
	char err[256] = "";
	assert_int_equal(
	    enav_modules_check_services(enav_modules, enav_modules_count, &cfg, err, sizeof(err)),
	    0);
}

static void test_need_from_an_earlier_kind(void **unused)
{
	(void)unused;
	/* Discovery starts before sources, wherever its row is. */
	const struct enav_module mods[] = {
	    {"src", ENAV_MODULE_SOURCE, on, {0}, NULL, .needs = FILTER},
	    {"disc", ENAV_MODULE_DISCOVERY, on, {0}, NULL, .provides = FILTER},
	};
	char err[256];
	assert_int_equal(check(mods, 2, err, sizeof(err)), 0);
}

static void test_need_from_a_later_row_fails(void **unused)
{
	(void)unused;
	/* Sinks start before sources: a sink cannot need a source's service. */
	const struct enav_module mods[] = {
	    {"prof", ENAV_MODULE_SOURCE, on, {0}, NULL, .provides = PROFILES},
	    {"http", ENAV_MODULE_SINK, on, {0}, NULL, .needs = PROFILES},
	};
	char err[256];
	assert_int_equal(check(mods, 2, err, sizeof(err)), -1);
	assert_string_equal(err, "module http needs the profile store, which no enabled module "
				 "started before it provides");
	/* Within a kind, table order decides. */
	const struct enav_module same[] = {
	    {"b", ENAV_MODULE_SOURCE, on, {0}, NULL, .needs = PROFILES},
	    {"a", ENAV_MODULE_SOURCE, on, {0}, NULL, .provides = PROFILES},
	};
	assert_int_equal(check(same, 2, err, sizeof(err)), -1);
}

static void test_need_of_a_disabled_provider_fails(void **unused)
{
	(void)unused;
	const struct enav_module mods[] = {
	    {"disc", ENAV_MODULE_DISCOVERY, off, {0}, NULL, .provides = FILTER},
	    {"src", ENAV_MODULE_SOURCE, on, {0}, NULL, .needs = FILTER},
	    {"quiet", ENAV_MODULE_SOURCE, off, {0}, NULL, .needs = PROFILES},
	};
	char err[256];
	assert_int_equal(check(mods, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "module src needs the capture filter"));
	/* A row that is off needs nothing. */
	const struct enav_module quiet[] = {
	    {"quiet", ENAV_MODULE_SOURCE, off, {0}, NULL, .needs = PROFILES},
	};
	assert_int_equal(check(quiet, 1, err, sizeof(err)), 0);
}

static void test_want(void **unused)
{
	(void)unused;
	/* Wanted and provided by a row that is off or starts later: fine. */
	const struct enav_module mods[] = {
	    {"http", ENAV_MODULE_SINK, on, {0}, NULL, .wants = PROFILES},
	    {"prof", ENAV_MODULE_SOURCE, off, {0}, NULL, .provides = PROFILES},
	};
	char err[256];
	assert_int_equal(check(mods, 2, err, sizeof(err)), 0);
	/* Wanted and provided by no row at all: a typo in the table. */
	assert_int_equal(check(mods, 1, err, sizeof(err)), -1);
	assert_string_equal(err, "module http wants the profile store, which no module provides");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_real_table_passes),
	    cmocka_unit_test(test_need_from_an_earlier_kind),
	    cmocka_unit_test(test_need_from_a_later_row_fails),
	    cmocka_unit_test(test_need_of_a_disabled_provider_fails),
	    cmocka_unit_test(test_want),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
