/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The findings generator's judgement, signal in, findings out: secret-file
 * readers, tampering, exception selectors and the per-workload rate limit.
 * (The rules on real workloads: tests/integration/test_security.sh.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/runner.h"
#include "features/security/security_findings.h"

struct gen {
	struct enav_host *agent;
	void *state;
};

static struct gen gen_new(void (*tune)(struct enav_config *))
{
	struct enav_config cfg;
	enav_config_defaults(&cfg);
	if (tune)
		tune(&cfg);
	struct gen g = {.agent = enav_host_new(&cfg)};
	assert_non_null(g.agent);
	char err[256] = "";
	if (enav_security_findings_ops.init(g.agent, &g.state, err, sizeof(err)) != 0)
		fail_msg("init: %s", err);
	return g;
}

static void gen_free(struct gen *g)
{
	enav_security_findings_ops.fini(g->state);
	enav_host_free(g->agent);
}

/* Findings for one signal; their rules go to rules[] (static strings). */
static size_t observe(struct gen *g, struct enav_signal *s, const char **rules)
{
	struct enav_signal *out[ENAV_GENERATOR_MAX_OUTPUT];
	size_t n = enav_security_findings_ops.observe(g->state, s, out, ENAV_GENERATOR_MAX_OUTPUT);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(out[i]->kind, ENAV_SIGNAL_FINDING);
		if (rules)
			rules[i] = out[i]->finding.rule;
		enav_signal_unref(out[i]);
	}
	enav_signal_unref(s);
	return n;
}

static struct enav_signal *file_open(uint32_t pid, const char *exe, uint64_t cgroup)
{
	size_t exe_len = exe ? strlen(exe) : 0;
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_FILE_OPEN, exe_len + 1);
	assert_non_null(s);
	s->process.pid = pid;
	s->process.cgroup_id = cgroup;
	snprintf(s->process.comm, sizeof(s->process.comm), "reader");
	if (exe) {
		s->process.exe = memcpy(enav_signal_tail(s), exe, exe_len + 1);
		s->process.has_exe = true;
	}
	s->file.has_path = true;
	snprintf(s->file.path, sizeof(s->file.path), "/etc/shadow");
	s->file.access = "read";
	return s;
}

static void test_secret_readers(void **state)
{
	(void)state;
	struct gen g = gen_new(NULL);
	const char *rules[ENAV_GENERATOR_MAX_OUTPUT];
	assert_int_equal(observe(&g, file_open(10, "/usr/bin/cat", 1), rules), 1);
	assert_string_equal(rules[0], "secret_file_read");
	/* The built-in readers, a glob among them. */
	assert_int_equal(observe(&g, file_open(11, "/usr/sbin/sshd", 2), NULL), 0);
	assert_int_equal(observe(&g, file_open(12, "/lib/systemd/systemd-logind", 3), NULL), 0);
	/* An opener whose executable is unknown is not presumed allowed. */
	assert_int_equal(observe(&g, file_open(13, NULL, 4), NULL), 1);
	gen_free(&g);
}

static void only_head(struct enav_config *c)
{
	c->security.secret_file_readers.n = 1;
	snprintf(c->security.secret_file_readers.item[0], ENAV_CONFIG_ENTRY_MAX, "/usr/bin/head");
}

/* A configured list replaces the built-in one. */
static void test_secret_readers_configured(void **state)
{
	(void)state;
	struct gen g = gen_new(only_head);
	assert_int_equal(observe(&g, file_open(10, "/usr/bin/head", 1), NULL), 0);
	assert_int_equal(observe(&g, file_open(11, "/usr/sbin/sshd", 2), NULL), 1);
	gen_free(&g);
}

static struct enav_signal *bpf_access(uint32_t pid, bool modifies)
{
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_BPF_ACCESS, 0);
	assert_non_null(s);
	s->process.pid = pid;
	s->bpf = (struct enav_bpf_access_signal){.detected_by = "bpf_syscall",
						 .operation = modifies ? "map_update_elem"
								       : "map_get_fd_by_id",
						 .object_kind = "map",
						 .object_id = 7,
						 .modifies = modifies};
	return s;
}

static void test_tampering_only_on_change(void **state)
{
	(void)state;
	struct gen g = gen_new(NULL);
	const char *rules[ENAV_GENERATOR_MAX_OUTPUT];
	assert_int_equal(observe(&g, bpf_access(20, false), NULL), 0);
	assert_int_equal(observe(&g, bpf_access(20, true), rules), 1);
	assert_string_equal(rules[0], "agent_tampering");
	gen_free(&g);
}

static void except_ci_cgroup(struct enav_config *c)
{
	struct enav_config_list *l = &c->security.exceptions[ENAV_RULE_EXEC_FROM_WRITABLE];
	l->n = 2;
	snprintf(l->item[0], ENAV_CONFIG_ENTRY_MAX, "cgroup:/ci/*");
	snprintf(l->item[1], ENAV_CONFIG_ENTRY_MAX, "namespace:build");
}

static struct enav_signal *exec_tmp(uint32_t pid, const char *cgroup_path, const char *pod_uid)
{
	/* The tail: the identity, then the cgroup path (attribution's part). */
	size_t path_len = cgroup_path ? strlen(cgroup_path) : 0;
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_PROCESS_EXEC,
						sizeof(struct enav_cgroup_identity) + path_len + 1);
	assert_non_null(s);
	struct enav_cgroup_identity *id = enav_signal_tail(s);
	memset(id, 0, sizeof(*id));
	s->process.identity = id;
	s->process.pid = pid;
	s->process.cgroup_id = pid;
	s->process.exe = "/tmp/dropper";
	s->process.has_exe = true;
	if (cgroup_path) {
		s->process.cgroup_path = memcpy(id + 1, cgroup_path, path_len + 1);
		s->process.has_cgroup_path = true;
	}
	if (pod_uid)
		snprintf(id->pod_uid, sizeof(id->pod_uid), "%s", pod_uid);
	return s;
}

static void test_exceptions(void **state)
{
	(void)state;
	struct gen g = gen_new(except_ci_cgroup);
	assert_int_equal(observe(&g, exec_tmp(30, "/ci/job-1", NULL), NULL), 0);
	assert_int_equal(observe(&g, exec_tmp(31, "/other", NULL), NULL), 1);
	/* No cgroup path resolved: nothing to match, so no exception. */
	assert_int_equal(observe(&g, exec_tmp(32, NULL, NULL), NULL), 1);
	/* A pod the agent has no Kubernetes data for: the namespace selector is
	 * undecidable, and an undecidable selector does not silence. */
	assert_int_equal(
	    observe(&g, exec_tmp(33, "/kubepods/x", "0b7c1f5e-0000-4000-8000-000000000001"), NULL),
	    1);
	/* Another rule is not excepted by this rule's selectors. */
	assert_int_equal(observe(&g, file_open(34, "/usr/bin/cat", 34), NULL), 1);
	gen_free(&g);
}

static void limit_three(struct enav_config *c)
{
	c->security.rate_per_minute = 3;
}

/* Findings of one observe call, by rule name. */
static size_t count_rule(struct gen *g, struct enav_signal *s, const char *rule, size_t *other)
{
	const char *rules[ENAV_GENERATOR_MAX_OUTPUT];
	size_t n = observe(g, s, rules), hit = 0;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(rules[i], rule))
			hit++;
		else if (other)
			(*other)++;
	}
	return hit;
}

/* Per rule, workload and evidence: a storm in one cgroup is cut, and the
 * cut is itself reported once; another cgroup is not cut. */
static void test_rate_limit(void **state)
{
	(void)state;
	struct gen g = gen_new(limit_three);
	size_t n = 0, notices = 0;
	for (uint32_t i = 0; i < 20; i++)
		n += count_rule(&g, file_open(100 + i, "/usr/bin/cat", 77), "secret_file_read",
				&notices);
	assert_int_equal(n, 3);
	assert_int_equal(notices, 1);
	assert_int_equal(observe(&g, file_open(200, "/usr/bin/cat", 78), NULL), 1);
	gen_free(&g);
}

static struct enav_signal *exec_at(uint32_t pid, const char *exe, uint64_t cgroup)
{
	size_t len = strlen(exe);
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_PROCESS_EXEC, len + 1);
	assert_non_null(s);
	s->process.pid = pid;
	s->process.cgroup_id = cgroup;
	snprintf(s->process.comm, sizeof(s->process.comm), "x");
	s->process.exe = memcpy(enav_signal_tail(s), exe, len + 1);
	s->process.has_exe = true;
	return s;
}

/* The attack of issue 31: ten harmless runs of /tmp/true spend their own
 * budget, not the rule's: the dropper run next from the same workload is
 * reported.  (Keyed by rule and cgroup alone, it was suppressed.) */
static void test_budget_spent_in_advance(void **state)
{
	(void)state;
	struct gen g = gen_new(NULL); /* the default budget, 10 */
	const char *rule = "exec_from_writable_location";
	size_t n = 0, notices = 0;
	for (uint32_t i = 0; i < 10; i++)
		n += count_rule(&g, exec_at(300 + i, "/tmp/true", 9), rule, &notices);
	assert_int_equal(n, 10);
	assert_int_equal(notices, 0);
	assert_int_equal(count_rule(&g, exec_at(320, "/tmp/true", 9), rule, &notices), 0);
	assert_int_equal(notices, 1); /* the refusal shows */
	assert_int_equal(count_rule(&g, exec_at(321, "/tmp/dropper", 9), rule, NULL), 1);
	gen_free(&g);
}

static void workload_five(struct enav_config *c)
{
	c->security.rate_per_minute = 2;
	c->security.workload_rate_per_minute = 5;
}

/* Many distinct harmless executables reach the workload's budget; what
 * follows is suppressed, but the first refusal is a findings_rate_limited
 * finding with the severity of the rule it limits. */
static void test_workload_budget_visible(void **state)
{
	(void)state;
	struct gen g = gen_new(workload_five);
	const char *rule = "exec_from_writable_location";
	char exe[32];
	size_t n = 0, notices = 0;
	for (uint32_t i = 0; i < 5; i++) {
		snprintf(exe, sizeof(exe), "/tmp/h%u", i);
		n += count_rule(&g, exec_at(400 + i, exe, 5), rule, &notices);
	}
	assert_int_equal(n, 5);
	struct enav_signal *out[ENAV_GENERATOR_MAX_OUTPUT];
	struct enav_signal *s = exec_at(410, "/tmp/dropper", 5);
	size_t k = enav_security_findings_ops.observe(g.state, s, out, ENAV_GENERATOR_MAX_OUTPUT);
	enav_signal_unref(s);
	assert_int_equal(k, 1);
	assert_string_equal(out[0]->finding.rule, "findings_rate_limited");
	assert_string_equal(out[0]->finding.severity, "high");
	assert_non_null(strstr(out[0]->finding.summary, rule));
	enav_signal_unref(out[0]);
	/* Once a window: the next refusal is counted, not reported again. */
	assert_int_equal(observe(&g, exec_at(411, "/tmp/h9", 5), NULL), 0);
	/* Another workload has its own budget. */
	assert_int_equal(count_rule(&g, exec_at(412, "/tmp/dropper", 6), rule, NULL), 1);
	gen_free(&g);
}

/* A secret file's budget is keyed by the file too: many reads of one file
 * do not hide the read of another. */
static void test_secret_budget_per_file(void **state)
{
	(void)state;
	struct gen g = gen_new(limit_three);
	for (uint32_t i = 0; i < 5; i++)
		observe(&g, file_open(500 + i, "/usr/bin/cat", 7), NULL);
	struct enav_signal *s = file_open(510, "/usr/bin/cat", 7);
	snprintf(s->file.path, sizeof(s->file.path), "/etc/ssh/ssh_host_ed25519_key");
	s->file.ino = 42;
	assert_int_equal(count_rule(&g, s, "secret_file_read", NULL), 1);
	gen_free(&g);
}

/* label: exceptions are refused unless under an operator's prefix; the
 * selectors a tenant cannot set itself are accepted. */
static void test_label_exceptions_refused(void **state)
{
	(void)state;
	struct enav_config c;
	char err[256];
	enav_config_defaults(&c);
	struct enav_config_list *l = &c.security.exceptions[ENAV_RULE_EXEC_FROM_WRITABLE];
	l->n = 1;
	snprintf(l->item[0], ENAV_CONFIG_ENTRY_MAX, "label:app=jenkins");
	assert_int_not_equal(enav_config_validate(&c, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "security.exception_label_prefixes"));
	c.security.exception_label_prefixes.n = 1;
	snprintf(c.security.exception_label_prefixes.item[0], ENAV_CONFIG_ENTRY_MAX,
		 "policy.example.com/");
	assert_int_not_equal(enav_config_validate(&c, err, sizeof(err)), 0);
	snprintf(l->item[0], ENAV_CONFIG_ENTRY_MAX, "label:policy.example.com/ci=true");
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), 0);
	l->n = 3;
	snprintf(l->item[1], ENAV_CONFIG_ENTRY_MAX, "namespace:ci");
	snprintf(l->item[2], ENAV_CONFIG_ENTRY_MAX, "cgroup:/ci/*");
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_secret_readers),
	    cmocka_unit_test(test_secret_readers_configured),
	    cmocka_unit_test(test_tampering_only_on_change),
	    cmocka_unit_test(test_exceptions),
	    cmocka_unit_test(test_rate_limit),
	    cmocka_unit_test(test_budget_spent_in_advance),
	    cmocka_unit_test(test_workload_budget_visible),
	    cmocka_unit_test(test_secret_budget_per_file),
	    cmocka_unit_test(test_label_exceptions_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
