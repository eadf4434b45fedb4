/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for opening files a tenant names (src/platform/tenant_file.c),
 * in a scratch directory standing for a process's root: a FIFO is refused
 * without blocking, an absolute symlink resolves inside that root (never in
 * ours), a symlink as the last component is refused, a file whose inode is
 * not the maps line's is refused, and the read budget refuses by bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform/tenant_file.h"

static char dir[64];
static int root_fd = -1;

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/enav-tenant-file.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	root_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return root_fd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	close(root_fd);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *rel, const char *text)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void ident_of(const char *rel, struct enav_file_ident *id)
{
	char p[256];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	assert_int_equal(stat(p, &st), 0);
	id->dev = st.st_dev;
	id->ino = st.st_ino;
}

static void test_regular_file_matching_inode(void **state)
{
	(void)state;
	put("lib.so", "ELF");
	struct enav_file_ident id;
	ident_of("lib.so", &id);
	struct stat st;
	enum enav_tenant_refusal why;
	int fd = enav_tenant_open_in_root(root_fd, "/lib.so", &id, &st, &why);
	assert_true(fd >= 0);
	assert_int_equal(why, ENAV_TENANT_OK);
	char buf[3];
	assert_int_equal(enav_tenant_pread(fd, buf, 3, 0, NULL), 3);
	assert_memory_equal(buf, "ELF", 3);
	int fl = fcntl(fd, F_GETFL);
	assert_true(fl & O_NONBLOCK);
	assert_int_equal(fl & O_ACCMODE, O_RDONLY);
	close(fd);
}

/* The attack of issue 31: open() of a FIFO blocks until a writer comes. */
static void test_fifo_refused_without_blocking(void **state)
{
	(void)state;
	char p[256];
	snprintf(p, sizeof(p), "%s/fifo.so", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	struct stat st;
	enum enav_tenant_refusal why;
	assert_int_equal(enav_tenant_open_in_root(root_fd, "/fifo.so", NULL, &st, &why), -1);
	assert_int_equal(why, ENAV_TENANT_NOT_REGULAR);
}

/* An absolute symlink inside the tenant's root must resolve in that root:
 * /etc/hostname exists in ours but not in the scratch root. */
static void test_absolute_symlink_stays_in_root(void **state)
{
	(void)state;
	char p[256];
	snprintf(p, sizeof(p), "%s/dir", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/escape", dir);
	assert_int_equal(symlink("/etc", p), 0);
	struct stat st;
	enum enav_tenant_refusal why;
	assert_int_equal(enav_tenant_open_in_root(root_fd, "/escape/hostname", NULL, &st, &why),
			 -1);
	assert_int_equal(why, ENAV_TENANT_GONE);
	/* The same name the tenant's root does hold is found there. */
	snprintf(p, sizeof(p), "%s/etc", dir);
	assert_int_equal(mkdir(p, 0700), 0);
	put("etc/hostname", "tenant");
	int fd = enav_tenant_open_in_root(root_fd, "/escape/hostname", NULL, &st, &why);
	assert_true(fd >= 0);
	char buf[6];
	assert_int_equal(enav_tenant_pread(fd, buf, 6, 0, NULL), 6);
	assert_memory_equal(buf, "tenant", 6);
	close(fd);
}

static void test_last_component_symlink_refused(void **state)
{
	(void)state;
	put("real.so", "x");
	char p[256];
	snprintf(p, sizeof(p), "%s/link.so", dir);
	assert_int_equal(symlink("real.so", p), 0);
	struct stat st;
	enum enav_tenant_refusal why;
	assert_int_equal(enav_tenant_open_in_root(root_fd, "/link.so", NULL, &st, &why), -1);
	assert_int_equal(why, ENAV_TENANT_NOT_REGULAR);
}

/* The file was swapped after it was mapped: same name, other inode. */
static void test_other_inode_refused(void **state)
{
	(void)state;
	put("swapped.so", "old");
	struct enav_file_ident id;
	ident_of("swapped.so", &id);
	char p[256], q[256];
	snprintf(p, sizeof(p), "%s/swapped.so", dir);
	snprintf(q, sizeof(q), "%s/keep.so", dir);
	assert_int_equal(rename(p, q), 0); /* keeps the old inode alive */
	put("swapped.so", "new");
	struct stat st;
	enum enav_tenant_refusal why;
	assert_int_equal(enav_tenant_open_in_root(root_fd, "/swapped.so", &id, &st, &why), -1);
	assert_int_equal(why, ENAV_TENANT_OTHER_INODE);
}

static void test_budget_refuses_bytes(void **state)
{
	(void)state;
	put("big.so", "0123456789");
	struct stat st;
	enum enav_tenant_refusal why;
	int fd = enav_tenant_open_in_root(root_fd, "big.so", NULL, &st, &why);
	assert_true(fd >= 0);
	struct enav_tenant_budget b;
	enav_tenant_budget_init(&b, 8, 0);
	char buf[10];
	assert_int_equal(enav_tenant_pread(fd, buf, 5, 0, &b), 5);
	errno = 0;
	assert_int_equal(enav_tenant_pread(fd, buf, 5, 5, &b), -1);
	assert_int_equal(errno, EFBIG);
	assert_true(b.exhausted);
	/* A short file is an error, not a short read the caller trusts. */
	assert_int_equal(enav_tenant_pread(fd, buf, 10, 5, NULL), -1);
	close(fd);
}

static void test_budget_charge_and_deadline(void **state)
{
	(void)state;
	struct enav_tenant_budget b;
	enav_tenant_budget_init(&b, 100, 0);
	assert_true(enav_tenant_budget_charge(&b, 60));
	assert_true(enav_tenant_budget_charge(&b, 40));
	errno = 0;
	assert_false(enav_tenant_budget_charge(&b, 1));
	assert_int_equal(errno, EFBIG);
	/* Once refused, always refused: a caller cannot carry on past it. */
	assert_false(enav_tenant_budget_charge(&b, 0));
	/* A deadline already past refuses by time. */
	enav_tenant_budget_init(&b, 100, 1);
	struct timespec ts = {0, 2000000};
	nanosleep(&ts, NULL);
	errno = 0;
	assert_false(enav_tenant_budget_charge(&b, 1));
	assert_int_equal(errno, ETIME);
	assert_true(b.exhausted);
	assert_true(enav_tenant_budget_charge(NULL, 1u << 30));
}

static void test_exe_of_self(void **state)
{
	(void)state;
	struct stat st, want;
	enum enav_tenant_refusal why;
	int fd = enav_tenant_open_exe("/proc", (uint32_t)getpid(), &st, &why);
	assert_true(fd >= 0);
	assert_int_equal(stat("/proc/self/exe", &want), 0);
	assert_int_equal(st.st_ino, want.st_ino);
	char path[32];
	enav_tenant_fd_path(fd, path);
	struct stat via;
	assert_int_equal(stat(path, &via), 0);
	assert_int_equal(via.st_ino, want.st_ino);
	close(fd);
	assert_string_equal(enav_tenant_refusal_name(ENAV_TENANT_OTHER_INODE), "other_inode");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_regular_file_matching_inode, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fifo_refused_without_blocking, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_absolute_symlink_stays_in_root, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_last_component_symlink_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_other_inode_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_budget_refuses_bytes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_budget_charge_and_deadline, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exe_of_self, setup, teardown),
	};
	return cmocka_run_group_tests_name("tenant_file", tests, NULL, NULL);
}
