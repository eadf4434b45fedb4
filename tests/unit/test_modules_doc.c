/* SPDX-License-Identifier: Apache-2.0 */
/*
 * docs/architecture.md's table of modules says what src/modules.c says: the
 * same rows in the same order, each row's stage, the switch it names, and
 * the services it provides, needs and wants.  The prose around the table
 * is the doc's; the facts in it are checked here, so a row added, moved or
 * rewired without its doc fails the test command.  Run from the repository
 * root (tests/run.sh does).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/host.h"

#define DOC	 "docs/architecture.md"
#define MAX_ROWS 64

struct doc_row {
	char name[64];
	char stage[64];
	char enabled_by[512];
	char services[512];
};

/* The cells of a markdown table row "| a | b | ... |", trimmed; how many. */
static int split_cells(char *line, char **cells, int max)
{
	int n = 0;
	char *p = strchr(line, '|');
	while (p && n < max) {
		char *start = p + 1;
		char *end = strchr(start, '|');
		if (!end)
			break;
		*end = '\0';
		while (*start == ' ')
			start++;
		size_t len = strlen(start);
		while (len && start[len - 1] == ' ')
			start[--len] = '\0';
		cells[n++] = start;
		p = end;
	}
	return n;
}

/* The rows of the table under "## Modules" whose first cell is `name`. */
static int read_doc_rows(struct doc_row *rows, int max)
{
	FILE *f = fopen(DOC, "r");
	if (!f)
		fail_msg("cannot open %s: run from the repository root", DOC);
	char line[2048];
	bool in_section = false;
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "## ", 3) == 0) {
			if (in_section)
				break;
			in_section = strncmp(line, "## Modules", 10) == 0;
			continue;
		}
		if (!in_section || strncmp(line, "| `", 3) != 0)
			continue;
		char *cells[6];
		if (split_cells(line, cells, 6) != 5)
			fail_msg("%s: a module row without 5 cells: %s", DOC, line);
		if (n == max)
			fail_msg("%s: more than %d module rows", DOC, max);
		char *name = cells[0] + 1, *tick = strchr(name, '`');
		if (!tick)
			fail_msg("%s: a module name without its closing backtick", DOC);
		*tick = '\0';
		snprintf(rows[n].name, sizeof(rows[n].name), "%s", name);
		snprintf(rows[n].stage, sizeof(rows[n].stage), "%s", cells[1]);
		snprintf(rows[n].enabled_by, sizeof(rows[n].enabled_by), "%s", cells[3]);
		snprintf(rows[n].services, sizeof(rows[n].services), "%s", cells[4]);
		n++;
	}
	fclose(f);
	return n;
}

/* The doc's word for a kind: sink rows are the exporters. */
static const char *stage_word(enum enav_module_kind k)
{
	switch (k) {
	case ENAV_MODULE_DISCOVERY:
		return "discovery";
	case ENAV_MODULE_SOURCE:
		return "source";
	case ENAV_MODULE_PROCESSOR:
		return "processor";
	case ENAV_MODULE_GENERATOR:
		return "generator";
	case ENAV_MODULE_SINK:
		return "exporter";
	}
	return "?";
}

static const char *const service_names[ENAV_SERVICE__COUNT] = {
    [ENAV_SERVICE_CAPTURE_FILTER] = "capture filter",
    [ENAV_SERVICE_DISCOVERY] = "discovery view",
    [ENAV_SERVICE_PROFILES] = "profile store",
};

/* The services a "provides a, b; wants c" cell lists after verb. */
static unsigned services_after(const char *cell, const char *verb)
{
	unsigned mask = 0;
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", cell);
	for (char *save = NULL, *part = strtok_r(buf, ";", &save); part;
	     part = strtok_r(NULL, ";", &save)) {
		while (*part == ' ')
			part++;
		size_t vl = strlen(verb);
		if (strncmp(part, verb, vl) != 0 || part[vl] != ' ')
			continue;
		for (int s = 0; s < ENAV_SERVICE__COUNT; s++)
			if (strstr(part + vl, service_names[s]))
				mask |= ENAV_SERVICE_BIT(s);
	}
	return mask;
}

static void test_doc_table_is_the_module_table(void **state)
{
	(void)state;
	struct doc_row rows[MAX_ROWS];
	int n = read_doc_rows(rows, MAX_ROWS);
	if ((size_t)n != enav_modules_count)
		fail_msg("%s lists %d modules, src/modules.c has %zu", DOC, n, enav_modules_count);
	for (size_t i = 0; i < enav_modules_count; i++) {
		const struct enav_module *m = &enav_modules[i];
		const struct doc_row *r = &rows[i];
		if (strcmp(r->name, m->name) != 0)
			fail_msg("%s: row %zu is `%s`, src/modules.c has `%s` there", DOC, i + 1,
				 r->name, m->name);
		const char *word = stage_word(m->kind);
		if (strncmp(r->stage, word, strlen(word)) != 0)
			fail_msg("%s: `%s` is a %s, the doc says \"%s\"", DOC, m->name, word,
				 r->stage);
		if (m->config_key) {
			char quoted[256];
			snprintf(quoted, sizeof(quoted), "`%s`", m->config_key);
			if (!strstr(r->enabled_by, quoted))
				fail_msg("%s: `%s` is switched by %s, not named in \"%s\"", DOC,
					 m->name, m->config_key, r->enabled_by);
		}
		const struct {
			const char *verb;
			unsigned mask;
		} kinds[] = {{"provides", m->provides}, {"needs", m->needs}, {"wants", m->wants}};
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			unsigned doc = services_after(r->services, kinds[k].verb);
			if (doc != kinds[k].mask)
				fail_msg("%s: `%s` %s services 0x%x, the doc says 0x%x (\"%s\")",
					 DOC, m->name, kinds[k].verb, kinds[k].mask, doc,
					 r->services);
		}
	}
}

/* The checker itself: a cell with two verbs, and names it must not see. */
static void test_services_cell_parsing(void **state)
{
	(void)state;
	const char *cell = "provides profile store; wants capture filter, discovery view";
	assert_int_equal(services_after(cell, "provides"), ENAV_SERVICE_BIT(ENAV_SERVICE_PROFILES));
	assert_int_equal(services_after(cell, "wants"),
			 ENAV_SERVICE_BIT(ENAV_SERVICE_CAPTURE_FILTER) |
			     ENAV_SERVICE_BIT(ENAV_SERVICE_DISCOVERY));
	assert_int_equal(services_after(cell, "needs"), 0);
	assert_int_equal(services_after("adds the routes", "wants"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_services_cell_parsing),
	    cmocka_unit_test(test_doc_table_is_the_module_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
