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

/* Per rule and workload: a storm in one cgroup is cut, another cgroup is not. */
static void test_rate_limit(void **state)
{
	(void)state;
	struct gen g = gen_new(limit_three);
	size_t n = 0;
	for (uint32_t i = 0; i < 20; i++)
		n += observe(&g, file_open(100 + i, "/usr/bin/cat", 77), NULL);
	assert_int_equal(n, 3);
	assert_int_equal(observe(&g, file_open(200, "/usr/bin/cat", 78), NULL), 1);
	gen_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_secret_readers),
	    cmocka_unit_test(test_secret_readers_configured),
	    cmocka_unit_test(test_tampering_only_on_change),
	    cmocka_unit_test(test_exceptions),
	    cmocka_unit_test(test_rate_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
