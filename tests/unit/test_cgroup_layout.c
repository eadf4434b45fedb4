/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the cgroup layout parser, the hybrid proof rule
 * (src/discovery/cgroup_layout.c) and the kernel filter mode chosen per layout
 * (enav_capture_kernel_mode).  Inputs are the recorded fixtures in
 * tests/fixtures/cgroup/ (read relative to the repository root) and hand-made
 * malformed texts.  Every input is parsed from an exactly-sized heap copy
 * without a NUL terminator, so ASan reports any read past its end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "discovery/capture_filter.h"
#include "discovery/cgroup_layout.h"
#include "probe/features.h"

#define FIXTURE_DIR "tests/fixtures/cgroup/"

/* The pod container every hybrid proc fixture describes. */
#define POD_P                                                                                      \
	"/kubepods.slice/kubepods-burstable.slice/"                                                \
	"kubepods-burstable-pod0b4c5a3e_7d21_4f6b_9a8c_3e5d7f9a1b2c.slice/"                        \
	"cri-containerd-9f2d4b6a8c0e1f3a5b7c9d1e3f5a7b9c0d2e4f6a8b0c1d3e5f7a9b1c3d5e7f9a.scope"
#define DOCKER_P "/docker/3c9e1a7b5d2f4e6a8c0b1d3f5e7a9c2b4d6f8a0e1c3b5d7f9a2c4e6b8d0f1a3c"
#define PODMAN_P                                                                                   \
	"/machine.slice/"                                                                          \
	"libpod-5e8a1c3f7b9d2e4a6c8b0f1d3e5a7c9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c.scope"

/* ---- helpers ------------------------------------------------------------- */

/*
 * Test allocations live until the test's teardown, so a failing assertion
 * (which longjmps out of the test) leaks nothing and LeakSanitizer stays
 * quiet about the tests that pass.
 */
#define ARENA_MAX 64
static void *arena[ARENA_MAX];
static unsigned arena_n;

static void *tcalloc(size_t n, size_t size)
{
	if (arena_n == ARENA_MAX)
		fail_msg("test arena full");
	void *p = calloc(n ? n : 1, size ? size : 1);
	assert_non_null(p);
	arena[arena_n++] = p;
	return p;
}

static int arena_free(void **state)
{
	while (arena_n)
		free(arena[--arena_n]);
	return 0;
}

/* The whole fixture in an exactly-sized heap buffer, no NUL terminator. */
static char *load_fixture(const char *name, size_t *len)
{
	char path[256];

	snprintf(path, sizeof(path), FIXTURE_DIR "%s", name);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("fixture %s cannot be opened (%s): run the unit tests from the "
			 "repository root",
			 path, strerror(errno));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long size = ftell(f);
	assert_true(size > 0);
	rewind(f);
	char *buf = tcalloc(1, (size_t)size);
	size_t got = fread(buf, 1, (size_t)size, f);
	fclose(f);
	if (got != (size_t)size)
		fail_msg("fixture %s: short read (%zu of %ld bytes)", path, got, size);
	*len = got;
	return buf;
}

static void assert_terminated(const char *s, size_t cap)
{
	assert_non_null(memchr(s, '\0', cap));
}

static void assert_sorted_list(const char *list)
{
	char prev[ENAV_CGROUP_CTRL_MAX] = "";
	const char *p = list;

	while (*p) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		char cur[ENAV_CGROUP_CTRL_MAX];

		assert_true(n > 0 && n < sizeof(cur));
		memcpy(cur, p, n);
		cur[n] = '\0';
		if (prev[0])
			assert_true(strcmp(prev, cur) <= 0);
		memcpy(prev, cur, n + 1);
		p += n + (comma ? 1 : 0);
	}
}

/* Every string of a parse result is terminated inside its array. */
static void check_mounts_wellformed(const struct enav_cgroup_mounts *m)
{
	assert_terminated(m->v2_mount, sizeof(m->v2_mount));
	assert_true(m->n_v1 <= ENAV_CGROUP_MAX_V1);
	for (unsigned i = 0; i < m->n_v1; i++) {
		assert_terminated(m->v1[i].controllers, sizeof(m->v1[i].controllers));
		assert_terminated(m->v1[i].mount, sizeof(m->v1[i].mount));
		assert_sorted_list(m->v1[i].controllers);
	}
}

static void check_proc_wellformed(const struct enav_proc_cgroups *pc)
{
	assert_terminated(pc->v2, sizeof(pc->v2));
	assert_true(pc->n_v1 <= ENAV_CGROUP_MAX_V1);
	for (unsigned i = 0; i < pc->n_v1; i++) {
		assert_terminated(pc->v1[i].controllers, sizeof(pc->v1[i].controllers));
		assert_terminated(pc->v1[i].path, sizeof(pc->v1[i].path));
		assert_sorted_list(pc->v1[i].controllers);
	}
}

/* Parse text[0..len) from an exact heap copy; garbage-fill out first. */
static int mountinfo_exact(const char *text, size_t len, struct enav_cgroup_mounts *m)
{
	char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, text, len);
	memset(m, 0x41, sizeof(*m));
	int rc = enav_cgroup_parse_mountinfo(copy, len, m);
	free(copy);
	if (rc == 0)
		check_mounts_wellformed(m);
	return rc;
}

static int proc_exact(const char *text, size_t len, struct enav_proc_cgroups *pc)
{
	char *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, text, len);
	memset(pc, 0x41, sizeof(*pc));
	int rc = enav_cgroup_parse_proc(copy, len, pc);
	free(copy);
	if (rc == 0)
		check_proc_wellformed(pc);
	return rc;
}

static int mountinfo_str(const char *text, struct enav_cgroup_mounts *m)
{
	return mountinfo_exact(text, strlen(text), m);
}

static int proc_str(const char *text, struct enav_proc_cgroups *pc)
{
	return proc_exact(text, strlen(text), pc);
}

static void mountinfo_fixture(const char *name, struct enav_cgroup_mounts *m)
{
	size_t len;
	char *text = load_fixture(name, &len);

	memset(m, 0x41, sizeof(*m));
	int rc = enav_cgroup_parse_mountinfo(text, len, m);
	if (rc != 0)
		fail_msg("fixture %s: parse returned %d", name, rc);
	check_mounts_wellformed(m);
}

static void proc_fixture(const char *name, struct enav_proc_cgroups *pc)
{
	size_t len;
	char *text = load_fixture(name, &len);

	memset(pc, 0x41, sizeof(*pc));
	int rc = enav_cgroup_parse_proc(text, len, pc);
	if (rc != 0)
		fail_msg("fixture %s: parse returned %d", name, rc);
	check_proc_wellformed(pc);
}

struct hier {
	const char *controllers;
	const char *where; /* mount for mountinfo, path for /proc/PID/cgroup */
};

static void expect_mounts(const struct enav_cgroup_mounts *m, enum enav_cgroup_layout layout,
			  const char *v2, const struct hier *h, unsigned n)
{
	assert_int_equal(m->layout, layout);
	assert_string_equal(m->v2_mount, v2);
	assert_false(m->v1_truncated);
	assert_int_equal(m->n_v1, n);
	for (unsigned i = 0; i < n; i++) {
		assert_string_equal(m->v1[i].controllers, h[i].controllers);
		assert_string_equal(m->v1[i].mount, h[i].where);
	}
}

static void expect_proc(const struct enav_proc_cgroups *pc, const char *v2, const struct hier *h,
			unsigned n)
{
	assert_int_equal(pc->has_v2, v2 != NULL);
	assert_string_equal(pc->v2, v2 ? v2 : "");
	assert_false(pc->truncated);
	assert_int_equal(pc->n_v1, n);
	for (unsigned i = 0; i < n; i++) {
		assert_string_equal(pc->v1[i].controllers, h[i].controllers);
		assert_string_equal(pc->v1[i].path, h[i].where);
	}
}

#define N(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

/* A dir_exists backed by a table; records what it was asked. */
#define DIRS_MAX     48
#define DIR_PATH_MAX (ENAV_CGROUP_MOUNT_PATH_MAX + ENAV_CGROUP_REL_PATH_MAX)

struct dirs {
	size_t n;
	char path[DIRS_MAX][DIR_PATH_MAX];
	unsigned calls;
	char asked[DIRS_MAX][DIR_PATH_MAX];
};

static bool dir_exists(void *ctx, const char *abs)
{
	struct dirs *d = ctx;

	if (d->calls < DIRS_MAX)
		snprintf(d->asked[d->calls], DIR_PATH_MAX, "%s", abs);
	d->calls++;
	for (size_t i = 0; i < d->n; i++)
		if (strcmp(d->path[i], abs) == 0)
			return true;
	return false;
}

static void dirs_add(struct dirs *d, const char *a, const char *b)
{
	assert_true(d->n < DIRS_MAX);
	snprintf(d->path[d->n++], DIR_PATH_MAX, "%s%s", a, b);
}

/* H/P for every v1 hierarchy of m except the one named skip (NULL: none). */
static struct dirs *dirs_for(const struct enav_cgroup_mounts *m, const char *p, const char *skip)
{
	struct dirs *d = tcalloc(1, sizeof(*d));

	for (unsigned i = 0; i < m->n_v1; i++)
		if (!skip || strcmp(m->v1[i].controllers, skip) != 0)
			dirs_add(d, m->v1[i].mount, strcmp(p, "/") ? p : "");
	return d;
}

static struct enav_cgroup_mounts *new_mounts(void)
{
	return tcalloc(1, sizeof(struct enav_cgroup_mounts));
}

static struct enav_proc_cgroups *new_procs(size_t n)
{
	return tcalloc(n, sizeof(struct enav_proc_cgroups));
}

static enum enav_hybrid_result prove(const struct enav_cgroup_mounts *m, const char *p,
				     struct dirs *d, const struct enav_proc_cgroups *members,
				     size_t n, const char **which)
{
	*which = NULL;
	enum enav_hybrid_result r = enav_hybrid_prove(m, p, dir_exists, d, members, n, which);
	assert_non_null(*which);
	return r;
}

/* ---- recorded mountinfo fixtures ----------------------------------------- */

static void test_mountinfo_v1_centos7(void **state)
{
	static const struct hier h[] = {
	    {"name=systemd", "/sys/fs/cgroup/systemd"},
	    {"net_cls,net_prio", "/sys/fs/cgroup/net_cls,net_prio"}, /* "rw,net_prio,net_cls" */
	    {"cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct"},	     /* "rw,cpuacct,cpu" */
	    {"memory", "/sys/fs/cgroup/memory"},
	    {"pids", "/sys/fs/cgroup/pids"},
	    {"devices", "/sys/fs/cgroup/devices"},
	    {"freezer", "/sys/fs/cgroup/freezer"},
	    {"blkio", "/sys/fs/cgroup/blkio"},
	    {"perf_event", "/sys/fs/cgroup/perf_event"},
	    {"hugetlb", "/sys/fs/cgroup/hugetlb"},
	    {"cpuset", "/sys/fs/cgroup/cpuset"},
	};
	struct enav_cgroup_mounts *m = new_mounts();

	mountinfo_fixture("mountinfo_v1_centos7", m);
	expect_mounts(m, ENAV_CGROUP_V1, "", h, N(h));
}

static void test_mountinfo_hybrid_this_host(void **state)
{
	/* The machine these tests were written on: cpu and cpuacct mounted apart. */
	static const struct hier h[] = {
	    {"cpu", "/sys/fs/cgroup/cpu"},
	    {"cpuacct", "/sys/fs/cgroup/cpuacct"},
	    {"cpuset", "/sys/fs/cgroup/cpuset"},
	    {"memory", "/sys/fs/cgroup/memory"},
	    {"devices", "/sys/fs/cgroup/devices"},
	    {"freezer", "/sys/fs/cgroup/freezer"},
	    {"blkio", "/sys/fs/cgroup/blkio"},
	    {"pids", "/sys/fs/cgroup/pids"},
	    {"name=systemd", "/sys/fs/cgroup/systemd"},
	};
	struct enav_cgroup_mounts *m = new_mounts();

	mountinfo_fixture("mountinfo_hybrid_this_host", m);
	expect_mounts(m, ENAV_CGROUP_HYBRID, "/sys/fs/cgroup/unified", h, N(h));
}

static const struct hier hybrid_systemd_h[] = {
    {"name=systemd", "/sys/fs/cgroup/systemd"},
    {"net_cls,net_prio", "/sys/fs/cgroup/net_cls,net_prio"},
    {"cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct"},
    {"rdma", "/sys/fs/cgroup/rdma"},
    {"memory", "/sys/fs/cgroup/memory"},
    {"blkio", "/sys/fs/cgroup/blkio"},
    {"devices", "/sys/fs/cgroup/devices"},
    {"hugetlb", "/sys/fs/cgroup/hugetlb"},
    {"freezer", "/sys/fs/cgroup/freezer"},
    {"perf_event", "/sys/fs/cgroup/perf_event"},
    {"pids", "/sys/fs/cgroup/pids"},
    {"cpuset", "/sys/fs/cgroup/cpuset"}, /* "rw,cpuset,clone_children" */
};

static void test_mountinfo_hybrid_systemd(void **state)
{
	struct enav_cgroup_mounts *m = new_mounts();

	mountinfo_fixture("mountinfo_hybrid_systemd", m);
	expect_mounts(m, ENAV_CGROUP_HYBRID, "/sys/fs/cgroup/unified", hybrid_systemd_h,
		      N(hybrid_systemd_h));
}

static void test_mountinfo_v2(void **state)
{
	struct enav_cgroup_mounts *m = new_mounts();

	mountinfo_fixture("mountinfo_v2", m);
	expect_mounts(m, ENAV_CGROUP_V2, "/sys/fs/cgroup", NULL, 0);
}

static void test_mountinfo_none(void **state)
{
	struct enav_cgroup_mounts *m = new_mounts();

	mountinfo_fixture("mountinfo_none", m);
	expect_mounts(m, ENAV_CGROUP_NONE, "", NULL, 0);
}

static void test_mountinfo_v1_bind_twice(void **state)
{
	/* memory appears three times (host, /rootfs bind, kubelet bind), the
	 * others twice: each hierarchy counts once, at its first mount. */
	static const struct hier h[] = {
	    {"name=systemd", "/sys/fs/cgroup/systemd"},
	    {"cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct"},
	    {"memory", "/sys/fs/cgroup/memory"},
	    {"pids", "/sys/fs/cgroup/pids"},
	};
	struct enav_cgroup_mounts *m = new_mounts();

	mountinfo_fixture("mountinfo_v1_bind_twice", m);
	expect_mounts(m, ENAV_CGROUP_V1, "", h, N(h));
}

/*
 * BUG: on SELinux hosts (Fedora, RHEL/CentOS) the kernel prints "seclabel"
 * in the super options of every cgroup mount ("rw,seclabel,memory").  The
 * parser takes it for a controller, so every hierarchy is recorded as
 * "memory,seclabel", "name=systemd,seclabel", ... and never matches the
 * /proc/PID/cgroup lines ("4:memory:/..."): on a hybrid SELinux host every
 * populated cgroup fails the proof as hybrid_member_unreadable.
 */
static void test_mountinfo_hybrid_selinux_seclabel(void **state)
{
	static const struct hier h[] = {
	    {"name=systemd", "/sys/fs/cgroup/systemd"},
	    {"pids", "/sys/fs/cgroup/pids"},
	    {"perf_event", "/sys/fs/cgroup/perf_event"},
	    {"memory", "/sys/fs/cgroup/memory"},
	    {"net_cls,net_prio", "/sys/fs/cgroup/net_cls,net_prio"},
	    {"hugetlb", "/sys/fs/cgroup/hugetlb"},
	    {"cpu,cpuacct", "/sys/fs/cgroup/cpu,cpuacct"},
	    {"devices", "/sys/fs/cgroup/devices"},
	    {"cpuset", "/sys/fs/cgroup/cpuset"},
	    {"blkio", "/sys/fs/cgroup/blkio"},
	    {"freezer", "/sys/fs/cgroup/freezer"},
	};
	struct enav_cgroup_mounts *m = new_mounts();
	struct enav_proc_cgroups *member = new_procs(1);
	const char *which;

	mountinfo_fixture("mountinfo_hybrid_selinux", m);
	proc_fixture("proc_podman_hybrid_selinux", member);
	struct dirs *d = dirs_for(m, PODMAN_P, NULL);
	enum enav_hybrid_result r = prove(m, PODMAN_P, d, member, 1, &which);
	assert_int_equal(m->layout, ENAV_CGROUP_HYBRID);
	assert_string_equal(m->v2_mount, "/sys/fs/cgroup/unified");
	assert_int_equal(m->n_v1, N(h));
	for (unsigned i = 0; i < N(h); i++) {
		assert_string_equal(m->v1[i].controllers, h[i].controllers);
		assert_string_equal(m->v1[i].mount, h[i].where);
	}
	/* A podman container laid out at the same path everywhere is proven. */
	assert_string_equal(enav_hybrid_result_name(r), "proven");
	assert_string_equal(which, "");
}

static void test_mountinfo_plain_options_filtered(void **state)
{
	static const char text[] =
	    "30 25 0:26 / /cg/a rw - cgroup cgroup rw,noprefix,cpuset,cpuset_v2_mode\n"
	    "31 25 0:27 / /cg/b rw - cgroup cgroup rw,xattr,release_agent=/sbin/agent,name=x\n"
	    "32 25 0:28 / /cg/c rw - cgroup cgroup ro,clone_children,favordynmods,freezer\n"
	    "33 25 0:29 / /cg/d rw - cgroup cgroup rw,nosuid,nodev,noexec,relatime,pids\n"
	    "34 25 0:30 / /cg/e rw - cgroup cgroup rw,perf_event,net_prio,net_cls,cpuacct,cpu\n"
	    /* Options only, no controller: not a hierarchy. */
	    "35 25 0:31 / /cg/f rw - cgroup cgroup rw,xattr\n";
	static const struct hier h[] = {
	    {"cpuset", "/cg/a"},
	    {"name=x", "/cg/b"},
	    {"freezer", "/cg/c"},
	    {"pids", "/cg/d"},
	    {"cpu,cpuacct,net_cls,net_prio,perf_event", "/cg/e"},
	};
	struct enav_cgroup_mounts *m = new_mounts();

	assert_int_equal(mountinfo_str(text, m), 0);
	expect_mounts(m, ENAV_CGROUP_V1, "", h, N(h));
}

static void test_mountinfo_first_cgroup2_wins(void **state)
{
	static const char text[] =
	    "34 24 0:28 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n"
	    "90 30 0:28 /kubepods.slice /host/sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
	struct enav_cgroup_mounts *m = new_mounts();

	assert_int_equal(mountinfo_str(text, m), 0);
	expect_mounts(m, ENAV_CGROUP_V2, "/sys/fs/cgroup", NULL, 0);
}

/* "name=hNN" hierarchies h[first..first+n), plus a cgroup2 mount. */
static size_t many_hierarchies(char *buf, size_t cap, unsigned first, unsigned n)
{
	size_t used = (size_t)snprintf(buf, cap,
				       "29 28 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 "
				       "rw,nsdelegate\n");
	for (unsigned i = first; i < first + n; i++)
		used += (size_t)snprintf(buf + used, cap - used,
					 "%u 28 0:%u / /sys/fs/cgroup/h%02u rw,nosuid - cgroup "
					 "cgroup rw,xattr,name=h%02u\n",
					 100 + i, 100 + i, i, i);
	assert_true(used < cap);
	return used;
}

static void test_mountinfo_too_many_hierarchies(void **state)
{
	char text[8192];
	size_t len = many_hierarchies(text, sizeof(text), 0, ENAV_CGROUP_MAX_V1 + 1);
	struct enav_cgroup_mounts *m = new_mounts();
	const char *which;

	assert_int_equal(mountinfo_exact(text, len, m), 0);
	assert_int_equal(m->layout, ENAV_CGROUP_HYBRID);
	assert_int_equal(m->n_v1, ENAV_CGROUP_MAX_V1);
	assert_true(m->v1_truncated);
	assert_string_equal(m->v1[0].controllers, "name=h00");
	assert_string_equal(m->v1[ENAV_CGROUP_MAX_V1 - 1].controllers, "name=h23");
	assert_string_equal(m->v1[ENAV_CGROUP_MAX_V1 - 1].mount, "/sys/fs/cgroup/h23");

	/* Cannot prove anything, whatever exists, and asks nothing. */
	struct dirs *d = dirs_for(m, "/a", NULL);
	assert_int_equal(prove(m, "/a", d, NULL, 0, &which), ENAV_HYBRID_TOO_MANY_HIERARCHIES);
	assert_string_equal(which, "");
	assert_int_equal(d->calls, 0);

	/* Only cgroup mounts count: exactly the maximum is not truncated. */
	len = many_hierarchies(text, sizeof(text), 0, ENAV_CGROUP_MAX_V1);
	assert_int_equal(mountinfo_exact(text, len, m), 0);
	assert_int_equal(m->n_v1, ENAV_CGROUP_MAX_V1);
	assert_false(m->v1_truncated);
}

/*
 * BUG: the capacity check runs before the duplicate check, so a host with
 * exactly ENAV_CGROUP_MAX_V1 hierarchies and one bind mount of any of them
 * is flagged v1_truncated and nothing on it can ever be proven, although it
 * has no more hierarchies than the maximum (the header: "more hierarchies
 * than ENAV_CGROUP_MAX_V1").
 */
static void test_mountinfo_duplicate_at_capacity_not_truncated(void **state)
{
	char text[8192];
	size_t len = many_hierarchies(text, sizeof(text), 0, ENAV_CGROUP_MAX_V1);
	struct enav_cgroup_mounts *m = new_mounts();

	len += (size_t)snprintf(text + len, sizeof(text) - len,
				"300 90 0:100 / /rootfs/sys/fs/cgroup/h00 rw - cgroup cgroup "
				"rw,xattr,name=h00\n");
	assert_int_equal(mountinfo_exact(text, len, m), 0);
	assert_int_equal(m->n_v1, ENAV_CGROUP_MAX_V1);
	assert_string_equal(m->v1[0].mount, "/sys/fs/cgroup/h00");
	assert_false(m->v1_truncated);
}

/*
 * BUG (fails open): a v1 hierarchy whose sorted controller list does not fit
 * in ENAV_CGROUP_CTRL_MAX is silently dropped.  A single hierarchy holding
 * every controller ("mount -t cgroup cgroup /sys/fs/cgroup/all" with no
 * options, on a kernel with rdma and misc) sorts to 98 bytes: with it
 * dropped, a hybrid host is classified as pure cgroup2, so a denylist lets
 * unknown cgroups through (unknown_capture) and no proof checks that
 * hierarchy.  The same line in /proc/PID/cgroup makes the parser return -1,
 * which the discovery treats as a member that exited.
 */
static void test_mountinfo_unrepresentable_hierarchy_not_dropped(void **state)
{
	static const char all[] = "cpuset,cpu,cpuacct,blkio,memory,devices,freezer,net_cls,"
				  "perf_event,net_prio,hugetlb,pids,rdma,misc";
	char text[1024];
	struct enav_cgroup_mounts *m = new_mounts();
	const char *which;

	snprintf(text, sizeof(text),
		 "33 24 0:28 / /sys/fs/cgroup ro,nosuid shared:9 - tmpfs tmpfs ro,mode=755\n"
		 "34 33 0:29 / /sys/fs/cgroup/unified rw,nosuid shared:10 - cgroup2 cgroup2 "
		 "rw,nsdelegate\n"
		 "35 33 0:30 / /sys/fs/cgroup/all rw,nosuid shared:11 - cgroup cgroup rw,%s\n",
		 all);
	assert_int_equal(mountinfo_str(text, m), 0);
	assert_int_equal(m->layout, ENAV_CGROUP_HYBRID);
	assert_int_equal(enav_capture_kernel_mode(m->layout, ENAV_CAPTURE_POLICY_DENYLIST),
			 ENAV_CAPTURE_UNKNOWN_DENY);
	/* /all/a does not exist: the path cannot be proven. */
	struct dirs *d = tcalloc(1, sizeof(*d));
	dirs_add(d, "/sys/fs/cgroup/unified", "/a");
	assert_int_not_equal(prove(m, "/a", d, NULL, 0, &which), ENAV_HYBRID_PROVEN);

	/* A member in that hierarchy is readable: recorded, or at least flagged. */
	struct enav_proc_cgroups *pc = new_procs(1);
	snprintf(text, sizeof(text), "1:%s:/a\n0::/a\n", all);
	assert_int_equal(proc_str(text, pc), 0);
	assert_true(pc->has_v2);
	assert_true(pc->n_v1 == 1 || pc->truncated);
}

/* ---- malformed mountinfo ------------------------------------------------- */

static void test_mountinfo_malformed(void **state)
{
	struct enav_cgroup_mounts *m = new_mounts();
	static const char *const bad[] = {
	    /* no " - " separator */
	    "36 25 0:31 / /sys/fs/cgroup/memory rw,nosuid shared:1 cgroup cgroup rw,memory\n",
	    /* fewer than five fields before the separator */
	    "36 25 0:31 / - cgroup cgroup rw,memory\n",
	    "36 - cgroup cgroup rw,memory\n",
	    /* nothing after the separator */
	    "36 25 0:31 / /sys/fs/cgroup/memory rw - \n",
	    "36 25 0:31 / /sys/fs/cgroup/memory rw - ",
	    /* a good line, then a bad one: the whole input is rejected */
	    "34 24 0:28 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\nnonsense\n",
	};

	for (unsigned i = 0; i < N(bad); i++)
		if (mountinfo_str(bad[i], m) != -1)
			fail_msg("bad[%u] accepted: %s", i, bad[i]);

	/* Empty and blank inputs: no cgroups. */
	assert_int_equal(mountinfo_exact("", 0, m), 0);
	expect_mounts(m, ENAV_CGROUP_NONE, "", NULL, 0);
	assert_int_equal(mountinfo_str("\n\n\n", m), 0);
	expect_mounts(m, ENAV_CGROUP_NONE, "", NULL, 0);

	/* A cgroup line without super options is not a hierarchy. */
	assert_int_equal(mountinfo_str("36 25 0:31 / /cg/memory rw - cgroup cgroup\n", m), 0);
	expect_mounts(m, ENAV_CGROUP_NONE, "", NULL, 0);
}

static void test_mountinfo_no_trailing_newline(void **state)
{
	static const char text[] =
	    "34 24 0:28 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
	    "35 24 0:29 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory";
	static const struct hier h[] = {{"memory", "/sys/fs/cgroup/memory"}};
	struct enav_cgroup_mounts *m = new_mounts();

	assert_int_equal(mountinfo_str(text, m), 0);
	expect_mounts(m, ENAV_CGROUP_HYBRID, "/sys/fs/cgroup/unified", h, 1);
}

/* Every prefix of a real fixture parses without reading past its end. */
static void test_mountinfo_every_truncation(void **state)
{
	size_t len;
	char *text = load_fixture("mountinfo_hybrid_systemd", &len);
	struct enav_cgroup_mounts *m = new_mounts();

	for (size_t cut = 0; cut <= len; cut++) {
		int rc = mountinfo_exact(text, cut, m);

		assert_true(rc == 0 || rc == -1);
		if (rc == 0)
			assert_true(m->n_v1 <= N(hybrid_systemd_h));
	}
	/* Cut inside the cgroup2 line's super options: still the cgroup2 mount. */
	const char *v2 = memmem(text, len, "cgroup2 cgroup2 rw", 18);
	assert_non_null(v2);
	size_t cut = (size_t)(v2 - text) + strlen("cgroup2 cgroup2 rw");
	assert_int_equal(mountinfo_exact(text, cut, m), 0);
	expect_mounts(m, ENAV_CGROUP_V2, "/sys/fs/cgroup/unified", NULL, 0);
	/* Cut before the separator of a line: rejected. */
	const char *mem = memmem(text, len, "/sys/fs/cgroup/memory rw", 24);
	assert_non_null(mem);
	cut = (size_t)(mem - text) + 10;
	assert_int_equal(mountinfo_exact(text, cut, m), -1);
}

static void test_mountinfo_huge_lines(void **state)
{
	size_t huge = 5000;
	char *text = tcalloc(1, huge + 512);
	struct enav_cgroup_mounts *m = new_mounts();

	/* A line longer than the parser's line buffer is skipped, whatever it holds. */
	size_t n = (size_t)snprintf(text, 256, "482 28 0:52 / /run/rootfs rw - overlay overlay ");
	memset(text + n, 'l', huge - n);
	n = huge;
	text[n++] = '\n';
	n += (size_t)snprintf(text + n, 256,
			      "34 24 0:28 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
	assert_int_equal(mountinfo_exact(text, n, m), 0);
	expect_mounts(m, ENAV_CGROUP_V2, "/sys/fs/cgroup", NULL, 0);

	/* A huge line with no separator at all is skipped too (no over-read). */
	memset(text, 'x', huge);
	assert_int_equal(mountinfo_exact(text, huge, m), 0);
	expect_mounts(m, ENAV_CGROUP_NONE, "", NULL, 0);

	/* Over-long fields are cut to their arrays and stay terminated. */
	n = (size_t)snprintf(text, 256, "35 24 0:29 / /");
	memset(text + n, 'm', 600);
	n += 600;
	n += (size_t)snprintf(text + n, 256, " rw - cgroup cgroup rw,memory\n");
	assert_int_equal(mountinfo_exact(text, n, m), 0);
	assert_int_equal(m->n_v1, 1);
	assert_string_equal(m->v1[0].controllers, "memory");
	assert_int_equal(strlen(m->v1[0].mount), ENAV_CGROUP_MOUNT_PATH_MAX - 1);
}

/* ---- /proc/PID/cgroup ---------------------------------------------------- */

static const struct hier hybrid_same_h[] = {
    {"hugetlb", POD_P}, {"freezer", POD_P},    {"cpuset", POD_P},      {"memory", POD_P},
    {"rdma", POD_P},	{"perf_event", POD_P}, {"devices", POD_P},     {"net_cls,net_prio", POD_P},
    {"blkio", POD_P},	{"pids", POD_P},       {"cpu,cpuacct", POD_P}, {"name=systemd", POD_P},
};

static void test_proc_hybrid_same(void **state)
{
	struct enav_proc_cgroups *pc = new_procs(1);

	proc_fixture("proc_containerd_hybrid_same", pc);
	expect_proc(pc, POD_P, hybrid_same_h, N(hybrid_same_h));
}

static void test_proc_hybrid_memory_differs(void **state)
{
	struct hier h[N(hybrid_same_h)];
	struct enav_proc_cgroups *pc = new_procs(1);

	memcpy(h, hybrid_same_h, sizeof(h));
	h[3].where = "/system.slice/containerd.service";
	proc_fixture("proc_containerd_hybrid_memory_differs", pc);
	expect_proc(pc, POD_P, h, N(h));
}

static void test_proc_hybrid_missing_pids(void **state)
{
	struct hier h[N(hybrid_same_h) - 1];
	struct enav_proc_cgroups *pc = new_procs(1);

	memcpy(h, hybrid_same_h, 9 * sizeof(h[0]));
	memcpy(h + 9, hybrid_same_h + 10, 2 * sizeof(h[0]));
	proc_fixture("proc_containerd_hybrid_missing_pids", pc);
	expect_proc(pc, POD_P, h, N(h));
}

static void test_proc_v2_only(void **state)
{
	struct enav_proc_cgroups *pc = new_procs(1);

	proc_fixture("proc_v2_only", pc);
	expect_proc(pc, POD_P, NULL, 0);
}

static void test_proc_v1_only(void **state)
{
	static const struct hier h[] = {
	    {"cpuset", DOCKER_P},	{"hugetlb", DOCKER_P},
	    {"perf_event", DOCKER_P},	{"blkio", DOCKER_P},
	    {"freezer", DOCKER_P},	{"devices", DOCKER_P},
	    {"pids", DOCKER_P},		{"memory", DOCKER_P},
	    {"cpu,cpuacct", DOCKER_P},	{"net_cls,net_prio", DOCKER_P},
	    {"name=systemd", DOCKER_P},
	};
	struct enav_proc_cgroups *pc = new_procs(1);

	proc_fixture("proc_v1_only_centos7", pc);
	expect_proc(pc, NULL, h, N(h));
}

static void test_proc_this_host(void **state)
{
	static const struct hier h[] = {
	    {"name=systemd", "/"}, {"pids", "/"},
	    {"blkio", "/"},	   {"freezer", "/"},
	    {"devices", "/"},	   {"memory", "/process_api/56643bdf71e04363d47c076b0d906554"},
	    {"cpuset", "/"},	   {"cpuacct", "/"},
	    {"cpu", "/"},
	};
	struct enav_proc_cgroups *pc = new_procs(1);

	proc_fixture("proc_this_host_memory_differs", pc);
	expect_proc(pc, "/", h, N(h));
}

static void test_proc_combined_order_insensitive(void **state)
{
	static const struct hier h[] = {{"cpu,cpuacct", "/x"}};
	struct enav_proc_cgroups *pc = new_procs(2);

	proc_fixture("proc_combined_cpu_cpuacct", &pc[0]);
	proc_fixture("proc_combined_cpuacct_cpu", &pc[1]);
	expect_proc(&pc[0], "/x", h, 1);
	expect_proc(&pc[1], "/x", h, 1);
	assert_memory_equal(&pc[0], &pc[1], sizeof(pc[0]));
}

static void test_proc_malformed(void **state)
{
	static const char *const bad[] = {
	    "garbage\n", "1:cpu\n",	  "1:cpu:relative/path\n",
	    "0::\n",	 "0::relative\n", "4:memory:\n",
	    ":\n",	 "::\n",	  "4:memory:/a\nxx\n", /* one bad line rejects the input */
	};
	struct enav_proc_cgroups *pc = new_procs(1);

	for (unsigned i = 0; i < N(bad); i++)
		if (proc_str(bad[i], pc) != -1)
			fail_msg("bad[%u] accepted: %s", i, bad[i]);

	/* Empty input and blank lines: nothing, no error. */
	assert_int_equal(proc_exact("", 0, pc), 0);
	expect_proc(pc, NULL, NULL, 0);
	assert_int_equal(proc_str("\n\n", pc), 0);
	expect_proc(pc, NULL, NULL, 0);
	/* No trailing newline. */
	assert_int_equal(proc_str("0::/a/b", pc), 0);
	expect_proc(pc, "/a/b", NULL, 0);
	/* A path with ':' in it keeps everything after the second colon. */
	assert_int_equal(proc_str("3:memory:/a:b\n", pc), 0);
	static const struct hier colon[] = {{"memory", "/a:b"}};
	expect_proc(pc, NULL, colon, 1);
}

static void test_proc_limits(void **state)
{
	size_t cap = 8192;
	char *text = tcalloc(1, cap);
	struct enav_proc_cgroups *pc = new_procs(1);

	/* Path of ENAV_CGROUP_REL_PATH_MAX - 1 bytes: accepted whole. */
	size_t n = (size_t)snprintf(text, cap, "0::/");
	memset(text + n, 'p', ENAV_CGROUP_REL_PATH_MAX - 2);
	n += ENAV_CGROUP_REL_PATH_MAX - 2;
	assert_int_equal(proc_exact(text, n, pc), 0);
	assert_true(pc->has_v2);
	assert_int_equal(strlen(pc->v2), ENAV_CGROUP_REL_PATH_MAX - 1);
	/* One more byte: rejected, never truncated. */
	text[n++] = 'p';
	assert_int_equal(proc_exact(text, n, pc), -1);
	/* A huge line: rejected without reading past the input. */
	memset(text + 4, 'p', cap - 4);
	assert_int_equal(proc_exact(text, cap, pc), -1);

	/* More than ENAV_CGROUP_MAX_V1 v1 lines: the first ones, flagged. */
	n = 0;
	for (unsigned i = 0; i < ENAV_CGROUP_MAX_V1 + 2; i++)
		n += (size_t)snprintf(text + n, cap - n, "%u:name=h%02u:/a\n", i + 1, i);
	n += (size_t)snprintf(text + n, cap - n, "0::/a\n");
	assert_int_equal(proc_exact(text, n, pc), 0);
	assert_int_equal(pc->n_v1, ENAV_CGROUP_MAX_V1);
	assert_true(pc->truncated);
	assert_true(pc->has_v2);
	assert_string_equal(pc->v1[ENAV_CGROUP_MAX_V1 - 1].controllers, "name=h23");

	/* Too many controllers in one line, or too long a list: rejected. */
	n = (size_t)snprintf(text, cap, "1:");
	for (unsigned i = 0; i < 40; i++)
		n += (size_t)snprintf(text + n, cap - n, "%sc%u", i ? "," : "", i);
	n += (size_t)snprintf(text + n, cap - n, ":/a\n");
	assert_int_equal(proc_exact(text, n, pc), -1);
	n = (size_t)snprintf(text, cap, "1:name=");
	memset(text + n, 'n', 200);
	n += 200;
	n += (size_t)snprintf(text + n, cap - n, ":/a\n");
	assert_int_equal(proc_exact(text, n, pc), -1);
}

static void test_proc_every_truncation(void **state)
{
	size_t len;
	char *text = load_fixture("proc_containerd_hybrid_same", &len);
	struct enav_proc_cgroups *pc = new_procs(1);

	for (size_t cut = 0; cut <= len; cut++) {
		int rc = proc_exact(text, cut, pc);

		assert_true(rc == 0 || rc == -1);
		if (rc == 0)
			assert_true(pc->n_v1 <= N(hybrid_same_h));
	}
}

/* ---- the hybrid proof ---------------------------------------------------- */

struct hybrid_env {
	struct enav_cgroup_mounts *m;
	struct enav_proc_cgroups *same, *memdiff, *nopids;
};

static int hybrid_setup(void **state)
{
	struct hybrid_env *e = tcalloc(1, sizeof(*e));

	e->m = new_mounts();
	e->same = new_procs(3);
	e->memdiff = new_procs(1);
	e->nopids = new_procs(1);
	mountinfo_fixture("mountinfo_hybrid_systemd", e->m);
	proc_fixture("proc_containerd_hybrid_same", &e->same[0]);
	proc_fixture("proc_containerd_hybrid_same", &e->same[1]);
	proc_fixture("proc_containerd_hybrid_same", &e->same[2]);
	proc_fixture("proc_containerd_hybrid_memory_differs", e->memdiff);
	proc_fixture("proc_containerd_hybrid_missing_pids", e->nopids);
	*state = e;
	return 0;
}

static void test_prove_all_agree(void **state)
{
	struct hybrid_env *e = *state;
	struct dirs *d = dirs_for(e->m, POD_P, NULL);
	const char *which;

	assert_int_equal(prove(e->m, POD_P, d, e->same, 3, &which), ENAV_HYBRID_PROVEN);
	assert_string_equal(which, "");
	/* Each hierarchy's directory was asked about exactly once, as H/P. */
	assert_int_equal(d->calls, N(hybrid_systemd_h));
	for (unsigned i = 0; i < d->calls; i++) {
		char want[DIR_PATH_MAX];

		snprintf(want, sizeof(want), "%s%s", hybrid_systemd_h[i].where, POD_P);
		assert_string_equal(d->asked[i], want);
	}
}

static void test_prove_dir_missing(void **state)
{
	struct hybrid_env *e = *state;
	const char *which;

	/* Each hierarchy in turn lacks H/P: named in *which, members or not. */
	for (unsigned h = 0; h < N(hybrid_systemd_h); h++) {
		const char *ctrl = hybrid_systemd_h[h].controllers;
		struct dirs *d = dirs_for(e->m, POD_P, ctrl);

		assert_int_equal(prove(e->m, POD_P, d, e->same, 3, &which),
				 ENAV_HYBRID_V1_DIR_MISSING);
		assert_string_equal(which, ctrl);
		assert_int_equal(prove(e->m, POD_P, d, NULL, 0, &which),
				 ENAV_HYBRID_V1_DIR_MISSING);
		assert_string_equal(which, ctrl);
	}
	/* The v2-side path alone existing proves nothing. */
	struct dirs *d = tcalloc(1, sizeof(*d));
	dirs_add(d, "/sys/fs/cgroup/unified", POD_P);
	assert_int_equal(prove(e->m, POD_P, d, NULL, 0, &which), ENAV_HYBRID_V1_DIR_MISSING);
	assert_string_equal(which, "name=systemd");
}

static void test_prove_path_differs(void **state)
{
	struct hybrid_env *e = *state;
	struct dirs *d = dirs_for(e->m, POD_P, NULL);
	struct enav_proc_cgroups *members = new_procs(3);
	const char *which;

	/* One disagreeing member among agreeing ones is enough. */
	members[0] = e->same[0];
	members[1] = *e->memdiff;
	members[2] = e->same[1];
	assert_int_equal(prove(e->m, POD_P, d, members, 3, &which), ENAV_HYBRID_V1_PATH_DIFFERS);
	assert_string_equal(which, "memory");
	assert_int_equal(prove(e->m, POD_P, d, e->memdiff, 1, &which), ENAV_HYBRID_V1_PATH_DIFFERS);
	assert_string_equal(which, "memory");
}

static void test_prove_member_unreadable(void **state)
{
	struct hybrid_env *e = *state;
	struct dirs *d = dirs_for(e->m, POD_P, NULL);
	struct enav_proc_cgroups *members = new_procs(2);
	const char *which;

	members[0] = e->same[0];
	members[1] = *e->nopids;
	assert_int_equal(prove(e->m, POD_P, d, members, 2, &which), ENAV_HYBRID_MEMBER_UNREADABLE);
	assert_string_equal(which, "pids");

	/* A v2-only member knows no v1 hierarchy at all. */
	proc_fixture("proc_v2_only", &members[1]);
	assert_int_equal(prove(e->m, POD_P, d, &members[1], 1, &which),
			 ENAV_HYBRID_MEMBER_UNREADABLE);
	assert_string_equal(which, "name=systemd");
}

static void test_prove_no_members(void **state)
{
	struct hybrid_env *e = *state;
	struct dirs *d = dirs_for(e->m, POD_P, NULL);
	const char *which;

	/* Decided by the directories alone. */
	assert_int_equal(prove(e->m, POD_P, d, NULL, 0, &which), ENAV_HYBRID_PROVEN);
	assert_string_equal(which, "");
	d = dirs_for(e->m, POD_P, "rdma");
	assert_int_equal(prove(e->m, POD_P, d, NULL, 0, &which), ENAV_HYBRID_V1_DIR_MISSING);
	assert_string_equal(which, "rdma");
}

static void test_prove_root(void **state)
{
	struct enav_cgroup_mounts *m = new_mounts();
	struct enav_proc_cgroups *pc = new_procs(2);
	const char *which;

	mountinfo_fixture("mountinfo_hybrid_this_host", m);
	/* For "/" the directories are the mounts themselves, no trailing '/'. */
	struct dirs *d = tcalloc(1, sizeof(*d));
	for (unsigned i = 0; i < m->n_v1; i++)
		dirs_add(d, m->v1[i].mount, "");
	assert_int_equal(prove(m, "/", d, NULL, 0, &which), ENAV_HYBRID_PROVEN);
	assert_int_equal(d->calls, m->n_v1);
	for (unsigned i = 0; i < m->n_v1; i++)
		assert_string_equal(d->asked[i], m->v1[i].mount);

	/* A process at "/" everywhere agrees. */
	assert_int_equal(proc_str("9:name=systemd:/\n8:pids:/\n7:blkio:/\n6:freezer:/\n"
				  "5:devices:/\n4:memory:/\n3:cpuset:/\n2:cpuacct:/\n1:cpu:/\n"
				  "0::/\n",
				  &pc[0]),
			 0);
	assert_int_equal(prove(m, "/", d, &pc[0], 1, &which), ENAV_HYBRID_PROVEN);
	/* This machine's own process sits elsewhere in memory. */
	proc_fixture("proc_this_host_memory_differs", &pc[1]);
	assert_int_equal(prove(m, "/", d, pc, 2, &which), ENAV_HYBRID_V1_PATH_DIFFERS);
	assert_string_equal(which, "memory");

	/* Mount paths with a trailing '/' are not what is asked for. */
	d->n = 0;
	for (unsigned i = 0; i < m->n_v1; i++)
		dirs_add(d, m->v1[i].mount, "/");
	assert_int_equal(prove(m, "/", d, NULL, 0, &which), ENAV_HYBRID_V1_DIR_MISSING);
	assert_string_equal(which, "cpu");
}

static void test_prove_v1_host_order_insensitive(void **state)
{
	struct enav_cgroup_mounts *m = new_mounts();
	struct enav_proc_cgroups *pc = new_procs(2);
	const char *which;

	/* CentOS 7 prints "cpuacct,cpu" in both files; both sort the same. */
	mountinfo_fixture("mountinfo_v1_centos7", m);
	proc_fixture("proc_v1_only_centos7", &pc[0]);
	struct dirs *d = dirs_for(m, DOCKER_P, NULL);
	assert_int_equal(prove(m, DOCKER_P, d, pc, 1, &which), ENAV_HYBRID_PROVEN);
	d = dirs_for(m, DOCKER_P, "net_cls,net_prio");
	assert_int_equal(prove(m, DOCKER_P, d, pc, 1, &which), ENAV_HYBRID_V1_DIR_MISSING);
	assert_string_equal(which, "net_cls,net_prio");

	/* "4:cpu,cpuacct:/x" and "4:cpuacct,cpu:/x" both match either mount spelling. */
	static const char *const mi[] = {
	    "34 24 0:28 / /cg/unified rw - cgroup2 cgroup2 rw\n"
	    "35 24 0:29 / /cg/cpu,cpuacct rw - cgroup cgroup rw,cpuacct,cpu\n",
	    "34 24 0:28 / /cg/unified rw - cgroup2 cgroup2 rw\n"
	    "35 24 0:29 / /cg/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n",
	};
	proc_fixture("proc_combined_cpu_cpuacct", &pc[0]);
	proc_fixture("proc_combined_cpuacct_cpu", &pc[1]);
	for (unsigned i = 0; i < N(mi); i++) {
		assert_int_equal(mountinfo_str(mi[i], m), 0);
		assert_int_equal(m->layout, ENAV_CGROUP_HYBRID);
		d = dirs_for(m, "/x", NULL);
		assert_int_equal(prove(m, "/x", d, pc, 2, &which), ENAV_HYBRID_PROVEN);
		assert_string_equal(d->asked[0], "/cg/cpu,cpuacct/x");
	}
}

static void test_prove_v2_host(void **state)
{
	struct enav_cgroup_mounts *m = new_mounts();
	struct dirs *d = tcalloc(1, sizeof(*d));
	const char *which;

	/* No v1 hierarchy: nothing to disagree with, nothing asked. */
	mountinfo_fixture("mountinfo_v2", m);
	assert_int_equal(prove(m, POD_P, d, NULL, 0, &which), ENAV_HYBRID_PROVEN);
	assert_int_equal(d->calls, 0);
}

static void test_hybrid_result_names(void **state)
{
	assert_string_equal(enav_hybrid_result_name(ENAV_HYBRID_PROVEN), "proven");
	assert_string_equal(enav_hybrid_result_name(ENAV_HYBRID_V1_DIR_MISSING),
			    "hybrid_v1_directory_missing");
	assert_string_equal(enav_hybrid_result_name(ENAV_HYBRID_V1_PATH_DIFFERS),
			    "hybrid_v1_path_differs");
	assert_string_equal(enav_hybrid_result_name(ENAV_HYBRID_MEMBER_UNREADABLE),
			    "hybrid_member_unreadable");
	assert_string_equal(enav_hybrid_result_name(ENAV_HYBRID_TOO_MANY_HIERARCHIES),
			    "hybrid_too_many_hierarchies");
	assert_string_equal(enav_hybrid_result_name(ENAV_HYBRID__COUNT), "unknown");
	assert_string_equal(enav_hybrid_result_name((enum enav_hybrid_result) - 1), "unknown");
}

/* ---- the v1 override: kernel filter mode per layout and policy ----------- */

static void test_kernel_mode_matrix(void **state)
{
	static const struct {
		enum enav_cgroup_layout layout;
		enum enav_capture_policy policy;
		enum enav_capture_mode mode;
	} cases[] = {
	    {ENAV_CGROUP_NONE, ENAV_CAPTURE_POLICY_ALL, ENAV_CAPTURE_DISABLED},
	    {ENAV_CGROUP_NONE, ENAV_CAPTURE_POLICY_ALLOWLIST, ENAV_CAPTURE_UNKNOWN_DENY},
	    {ENAV_CGROUP_NONE, ENAV_CAPTURE_POLICY_DENYLIST, ENAV_CAPTURE_UNKNOWN_DENY},
	    {ENAV_CGROUP_V1, ENAV_CAPTURE_POLICY_ALL, ENAV_CAPTURE_DISABLED},
	    {ENAV_CGROUP_V1, ENAV_CAPTURE_POLICY_ALLOWLIST, ENAV_CAPTURE_UNKNOWN_DENY},
	    {ENAV_CGROUP_V1, ENAV_CAPTURE_POLICY_DENYLIST, ENAV_CAPTURE_UNKNOWN_DENY},
	    {ENAV_CGROUP_V2, ENAV_CAPTURE_POLICY_ALL, ENAV_CAPTURE_DISABLED},
	    {ENAV_CGROUP_V2, ENAV_CAPTURE_POLICY_ALLOWLIST, ENAV_CAPTURE_UNKNOWN_DENY},
	    {ENAV_CGROUP_V2, ENAV_CAPTURE_POLICY_DENYLIST, ENAV_CAPTURE_UNKNOWN_CAPTURE},
	    {ENAV_CGROUP_HYBRID, ENAV_CAPTURE_POLICY_ALL, ENAV_CAPTURE_DISABLED},
	    {ENAV_CGROUP_HYBRID, ENAV_CAPTURE_POLICY_ALLOWLIST, ENAV_CAPTURE_UNKNOWN_DENY},
	    {ENAV_CGROUP_HYBRID, ENAV_CAPTURE_POLICY_DENYLIST, ENAV_CAPTURE_UNKNOWN_DENY},
	};

	for (unsigned i = 0; i < N(cases); i++) {
		enum enav_capture_mode got =
		    enav_capture_kernel_mode(cases[i].layout, cases[i].policy);
		if (got != cases[i].mode)
			fail_msg("layout %s policy %d: %s, want %s",
				 enav_cgroup_layout_name(cases[i].layout), (int)cases[i].policy,
				 enav_capture_mode_name(got),
				 enav_capture_mode_name(cases[i].mode));
	}
}

static void test_kernel_mode_from_fixtures(void **state)
{
	static const struct {
		const char *fixture;
		enum enav_cgroup_layout layout;
		enum enav_capture_mode allow, deny;
	} cases[] = {
	    {"mountinfo_v1_centos7", ENAV_CGROUP_V1, ENAV_CAPTURE_UNKNOWN_DENY,
	     ENAV_CAPTURE_UNKNOWN_DENY},
	    {"mountinfo_v1_bind_twice", ENAV_CGROUP_V1, ENAV_CAPTURE_UNKNOWN_DENY,
	     ENAV_CAPTURE_UNKNOWN_DENY},
	    {"mountinfo_hybrid_systemd", ENAV_CGROUP_HYBRID, ENAV_CAPTURE_UNKNOWN_DENY,
	     ENAV_CAPTURE_UNKNOWN_DENY},
	    {"mountinfo_hybrid_this_host", ENAV_CGROUP_HYBRID, ENAV_CAPTURE_UNKNOWN_DENY,
	     ENAV_CAPTURE_UNKNOWN_DENY},
	    {"mountinfo_v2", ENAV_CGROUP_V2, ENAV_CAPTURE_UNKNOWN_DENY,
	     ENAV_CAPTURE_UNKNOWN_CAPTURE},
	    {"mountinfo_none", ENAV_CGROUP_NONE, ENAV_CAPTURE_UNKNOWN_DENY,
	     ENAV_CAPTURE_UNKNOWN_DENY},
	};
	struct enav_cgroup_mounts *m = new_mounts();

	for (unsigned i = 0; i < N(cases); i++) {
		mountinfo_fixture(cases[i].fixture, m);
		assert_int_equal(m->layout, cases[i].layout);
		assert_int_equal(enav_capture_kernel_mode(m->layout, ENAV_CAPTURE_POLICY_ALL),
				 ENAV_CAPTURE_DISABLED);
		assert_int_equal(enav_capture_kernel_mode(m->layout, ENAV_CAPTURE_POLICY_ALLOWLIST),
				 cases[i].allow);
		assert_int_equal(enav_capture_kernel_mode(m->layout, ENAV_CAPTURE_POLICY_DENYLIST),
				 cases[i].deny);
	}
	assert_string_equal(enav_capture_mode_name(ENAV_CAPTURE_UNKNOWN_DENY), "unknown_deny");
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_mountinfo_v1_centos7, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_hybrid_this_host, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_hybrid_systemd, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_v2, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_none, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_v1_bind_twice, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_hybrid_selinux_seclabel, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_plain_options_filtered, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_first_cgroup2_wins, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_too_many_hierarchies, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_duplicate_at_capacity_not_truncated,
				      arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_unrepresentable_hierarchy_not_dropped,
				      arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_malformed, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_no_trailing_newline, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_every_truncation, arena_free),
	    cmocka_unit_test_teardown(test_mountinfo_huge_lines, arena_free),
	    cmocka_unit_test_teardown(test_proc_hybrid_same, arena_free),
	    cmocka_unit_test_teardown(test_proc_hybrid_memory_differs, arena_free),
	    cmocka_unit_test_teardown(test_proc_hybrid_missing_pids, arena_free),
	    cmocka_unit_test_teardown(test_proc_v2_only, arena_free),
	    cmocka_unit_test_teardown(test_proc_v1_only, arena_free),
	    cmocka_unit_test_teardown(test_proc_this_host, arena_free),
	    cmocka_unit_test_teardown(test_proc_combined_order_insensitive, arena_free),
	    cmocka_unit_test_teardown(test_proc_malformed, arena_free),
	    cmocka_unit_test_teardown(test_proc_limits, arena_free),
	    cmocka_unit_test_teardown(test_proc_every_truncation, arena_free),
	    cmocka_unit_test_setup_teardown(test_prove_all_agree, hybrid_setup, arena_free),
	    cmocka_unit_test_setup_teardown(test_prove_dir_missing, hybrid_setup, arena_free),
	    cmocka_unit_test_setup_teardown(test_prove_path_differs, hybrid_setup, arena_free),
	    cmocka_unit_test_setup_teardown(test_prove_member_unreadable, hybrid_setup, arena_free),
	    cmocka_unit_test_setup_teardown(test_prove_no_members, hybrid_setup, arena_free),
	    cmocka_unit_test_teardown(test_prove_root, arena_free),
	    cmocka_unit_test_teardown(test_prove_v1_host_order_insensitive, arena_free),
	    cmocka_unit_test_teardown(test_prove_v2_host, arena_free),
	    cmocka_unit_test_teardown(test_hybrid_result_names, arena_free),
	    cmocka_unit_test_teardown(test_kernel_mode_matrix, arena_free),
	    cmocka_unit_test_teardown(test_kernel_mode_from_fixtures, arena_free),
	};

	return cmocka_run_group_tests_name("cgroup_layout", tests, NULL, NULL);
}
