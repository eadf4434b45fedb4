/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The capability sets each configuration needs (to start, and kept after
 * start), their names, and the world-writable refusal.  The drop itself
 * runs as root in tests/integration/test_privileges.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "probe/privileges.h"

static void names(uint64_t set, const char *want)
{
	char buf[256];
	enav_caps_format(set, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_sets_by_config(void **st)
{
	(void)st;
	struct enav_config cfg;
	enav_config_defaults(&cfg);
	struct enav_privileges p;
	enav_privileges_needed(&cfg, &p);
	names(p.runtime, "CAP_DAC_READ_SEARCH,CAP_SYS_PTRACE,CAP_SYS_ADMIN,CAP_PERFMON,CAP_BPF");
	names(p.start, "CAP_DAC_READ_SEARCH,CAP_SYS_PTRACE,CAP_SYS_ADMIN,CAP_PERFMON,CAP_BPF");
	/* No TLS: uprobes are never attached after start, CAP_SYS_ADMIN and
	 * CAP_PERFMON go. */
	cfg.network.tls.enabled = false;
	enav_privileges_needed(&cfg, &p);
	names(p.runtime, "CAP_DAC_READ_SEARCH,CAP_SYS_PTRACE,CAP_BPF");
	/* No futex profile, no exec source, no watched files and no self
	 * guard: tracefs is never mounted. */
	cfg.profiling.futex = false;
	cfg.exec.enabled = false;
	cfg.file_open.enabled = false;
	cfg.security.agent_tampering = false;
	enav_privileges_needed(&cfg, &p);
	names(p.start, "CAP_DAC_READ_SEARCH,CAP_SYS_PTRACE,CAP_PERFMON,CAP_BPF");
	/* Each of the syscall-tracepoint sources alone brings it back. */
	cfg.file_open.enabled = true;
	enav_privileges_needed(&cfg, &p);
	names(p.start, "CAP_DAC_READ_SEARCH,CAP_SYS_PTRACE,CAP_SYS_ADMIN,CAP_PERFMON,CAP_BPF");
	cfg.file_open.enabled = false;
	cfg.security.agent_tampering = true;
	enav_privileges_needed(&cfg, &p);
	names(p.start, "CAP_DAC_READ_SEARCH,CAP_SYS_PTRACE,CAP_SYS_ADMIN,CAP_PERFMON,CAP_BPF");
	cfg.exec.enabled = true;
	/* Exec and network only. */
	cfg.profiling.enabled = false;
	cfg.host.enabled = false;
	enav_privileges_needed(&cfg, &p);
	names(p.runtime, "CAP_DAC_READ_SEARCH,CAP_BPF");
	names(p.start, "CAP_DAC_READ_SEARCH,CAP_SYS_ADMIN,CAP_PERFMON,CAP_BPF");
	/* TLS needs L7 (and the network source) to be on at all. */
	cfg.network.tls.enabled = true;
	cfg.network.l7.enabled = false;
	enav_privileges_needed(&cfg, &p);
	names(p.runtime, "CAP_DAC_READ_SEARCH,CAP_BPF");
}

static void test_format(void **st)
{
	(void)st;
	names(0, "none");
	names(1ull << 63, "cap_63");
	char small[8];
	size_t n = enav_caps_format((1ull << 39) | (1ull << 38), small, sizeof(small));
	assert_int_equal(n, 7);
	assert_int_equal(strlen(small), 7);
}

static void test_world_writable(void **st)
{
	(void)st;
	char dir[] = "/tmp/enav-priv-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char err[256];
	chmod(dir, 0755);
	assert_int_equal(enav_refuse_world_writable(dir, "spool", err, sizeof(err)), 0);
	chmod(dir, 0777);
	assert_int_equal(enav_refuse_world_writable(dir, "spool", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "writable by every user (mode 0777)"));
	/* Missing or unset paths are not this check's business. */
	assert_int_equal(enav_refuse_world_writable("", "spool", err, sizeof(err)), 0);
	assert_int_equal(enav_refuse_world_writable("/nonexistent/enav", "x", err, sizeof(err)), 0);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sets_by_config),
	    cmocka_unit_test(test_format),
	    cmocka_unit_test(test_world_writable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
