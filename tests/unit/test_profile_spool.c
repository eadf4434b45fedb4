/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the profile spool (src/features/profiling/profile_spool.c): the age and
 * size caps on files named like the spool's, with set sizes and mtimes, next
 * to foreign files, directories and symlinks that must never be touched; the
 * metrics; the open error; and one interval written from a profile store.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/pprof.h"
#include "platform/promtext.h"
#include "features/profiling/profile_store.h"
#include "features/profiling/profile_spool.h"

/* A regression check: print what went wrong, then fail. */
#define FAIL_IF(cond, ...)                                                                         \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_message(__VA_ARGS__);                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define SEC(x) ((uint64_t)(x)*1000000000ull)
#define NOW    2000000000ull /* the "now" enforcement is given, in unix seconds */
#define AGE    3600u

static char g_tmp[PATH_MAX], g_dir[PATH_MAX + 16], g_out[PATH_MAX + 16];

/* ---- helpers ------------------------------------------------------------------ */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int make_tmp(void **state)
{
	snprintf(g_tmp, sizeof(g_tmp), "/tmp/enav-test-spool-XXXXXX");
	if (!mkdtemp(g_tmp))
		return -1;
	snprintf(g_dir, sizeof(g_dir), "%s/spool", g_tmp);
	snprintf(g_out, sizeof(g_out), "%s/outside", g_tmp);
	return mkdir(g_dir, 0750) || mkdir(g_out, 0750) ? -1 : 0;
}

static int rm_tmp(void **state)
{
	return nftw(g_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void set_mtime(const char *dir, const char *name, time_t mtime)
{
	char path[PATH_MAX * 2];
	struct timespec ts[2] = {{.tv_sec = mtime}, {.tv_sec = mtime}};

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW), 0);
}

static void make_file(const char *dir, const char *name, size_t size, time_t mtime)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0640);
	assert_true(fd >= 0);
	char buf[4096];
	memset(buf, 'p', sizeof(buf));
	for (size_t left = size; left;) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);
		assert_int_equal(write(fd, buf, n), (ssize_t)n);
		left -= n;
	}
	assert_int_equal(close(fd), 0);
	set_mtime(dir, name, mtime);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of dir (without . and ..), sorted, as one "a b c" string. */
static void listing(const char *dir, char *out, size_t cap)
{
	DIR *d = opendir(dir);
	char *names[64];
	size_t n = 0, len = 0;
	struct dirent *de;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			assert_true(n < 64);
			names[n++] = strdup(de->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof(names[0]), by_name);
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		len += (size_t)snprintf(out + len, cap - len, "%s%s", i ? " " : "", names[i]);
		assert_true(len < cap);
		free(names[i]);
	}
}

static void expect_listing(const char *dir, const char *want)
{
	char got[8192];

	listing(dir, got, sizeof(got));
	FAIL_IF(strcmp(got, want) != 0, "%s holds\n  %s\nexpected\n  %s\n", dir, got, want);
}

static char g_prom[16384];

/* The value of one series ("name" or "name{labels}") of the spool's metrics. */
static uint64_t metric(struct enav_profile_spool *sp, const char *series)
{
	struct enav_promtext p;
	size_t n = strlen(series);

	enav_promtext_init(&p, g_prom, sizeof(g_prom));
	enav_profile_spool_metrics(sp, &p);
	assert_false(p.overflow);
	for (const char *l = g_prom; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, series, n) == 0 && l[n] == ' ')
			return strtoull(l + n + 1, NULL, 10);
	print_message("series %s not found in:\n%s\n", series, g_prom);
	fail();
	return 0;
}

#define REMOVED_AGE  "enav_profile_spool_removed_total{reason=\"age\"}"
#define REMOVED_SIZE "enav_profile_spool_removed_total{reason=\"size\"}"

static struct enav_profile_spool *spool_open(uint64_t max_bytes, uint32_t max_age_s)
{
	char err[512] = "";
	struct enav_profile_spool *sp =
	    enav_profile_spool_open(g_dir, max_bytes, max_age_s, err, sizeof(err));

	FAIL_IF(!sp, "open %s: %s\n", g_dir, err);
	return sp;
}

/* ---- caps --------------------------------------------------------------------- */

static void test_enforce_age_then_size(void **state)
{
	/* Open on the empty directory first: open enforces with the real clock.
	 * (Regression: an empty spool passed qsort a NULL array, fatal under
	 * UBSan.) */
	struct enav_profile_spool *sp = spool_open(250, AGE);
	const time_t now = (time_t)NOW;

	assert_int_equal(metric(sp, "enav_profile_spool_files"), 0);

	/* Ours, oldest first by mtime (names deliberately in another order). */
	make_file(g_dir, "enav-futex-20260101T000900Z-9.pb.gz", 100, now - 10000); /* age */
	make_file(g_dir, "enav-offcpu-20260101T000800Z-8.pb.gz", 100, now - 3000); /* size */
	make_file(g_dir, "enav-cpu-20260101T000000Z-0.pb.gz", 100, now - 2000);	   /* kept */
	make_file(g_dir, "enav-cpu-20260101T000100Z-1.pb.gz", 100, now - 1000);	   /* kept */
	make_file(g_dir, "enav-cpu-20260101T000200Z-2.pb.gz", 50, now - 10);	   /* kept */
	/* Foreign: old and big, never touched. */
	make_file(g_dir, "notes.txt", 10000, now - 100000);
	make_file(g_dir, "enav-readme.md", 5000, now - 100000);
	make_file(g_dir, "xenav-cpu-20260101T000000Z-5.pb.gz", 5000, now - 100000);
	make_file(g_dir, "enav-cpu-20260101T000000Z-6.pb", 5000, now - 100000);
	/* A temporary file of ours left by a crash: removed. */
	make_file(g_dir, ".tmp-enav-cpu-20260101T000000Z-7.pb.gz", 5000, now - 100000);
	/* Someone else's temporary file: kept. */
	make_file(g_dir, ".tmp-other-7.pb.gz", 5000, now - 100000);
	char sub[PATH_MAX * 2];
	snprintf(sub, sizeof(sub), "%s/enav-x.pb.gz", g_dir);
	assert_int_equal(mkdir(sub, 0750), 0);
	make_file(sub, "enav-cpu-20200101T000000Z-0.pb.gz", 5000, now - 100000);
	set_mtime(g_dir, "enav-x.pb.gz", now - 100000);
	make_file(g_out, "target.pb.gz", 5000, now - 100000);
	char target[PATH_MAX * 2], link[PATH_MAX * 2];
	snprintf(target, sizeof(target), "%s/target.pb.gz", g_out);
	snprintf(link, sizeof(link), "%s/enav-link-1.pb.gz", g_dir);
	assert_int_equal(symlink(target, link), 0);
	set_mtime(g_dir, "enav-link-1.pb.gz", now - 100000);

	enav_profile_spool_enforce(sp, NOW);

	/* 450 bytes of ours: the old file goes for its age (350 left), then the
	 * oldest for size (250 left), and 250 fits max_bytes = 250. */
	expect_listing(g_dir, ".tmp-other-7.pb.gz "
			      "enav-cpu-20260101T000000Z-0.pb.gz "
			      "enav-cpu-20260101T000000Z-6.pb "
			      "enav-cpu-20260101T000100Z-1.pb.gz "
			      "enav-cpu-20260101T000200Z-2.pb.gz "
			      "enav-link-1.pb.gz "
			      "enav-readme.md "
			      "enav-x.pb.gz "
			      "notes.txt "
			      "xenav-cpu-20260101T000000Z-5.pb.gz");
	expect_listing(sub, "enav-cpu-20200101T000000Z-0.pb.gz");
	expect_listing(g_out, "target.pb.gz");
	struct stat st;
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(metric(sp, "enav_profile_spool_files"), 3);
	assert_int_equal(metric(sp, "enav_profile_spool_bytes"), 250);
	assert_int_equal(metric(sp, REMOVED_AGE), 1);
	assert_int_equal(metric(sp, REMOVED_SIZE), 1);
	assert_int_equal(metric(sp, "enav_profile_spool_written_total"), 0);

	/* Enforcing again changes nothing. */
	enav_profile_spool_enforce(sp, NOW);
	assert_int_equal(metric(sp, "enav_profile_spool_files"), 3);
	assert_int_equal(metric(sp, "enav_profile_spool_bytes"), 250);
	assert_int_equal(metric(sp, REMOVED_AGE), 1);
	assert_int_equal(metric(sp, REMOVED_SIZE), 1);

	/* An hour later, all three are past max_age. */
	enav_profile_spool_enforce(sp, NOW + AGE + 1);
	expect_listing(g_dir, ".tmp-other-7.pb.gz "
			      "enav-cpu-20260101T000000Z-6.pb "
			      "enav-link-1.pb.gz "
			      "enav-readme.md "
			      "enav-x.pb.gz "
			      "notes.txt "
			      "xenav-cpu-20260101T000000Z-5.pb.gz");
	expect_listing(g_out, "target.pb.gz");
	assert_int_equal(metric(sp, "enav_profile_spool_files"), 0);
	assert_int_equal(metric(sp, "enav_profile_spool_bytes"), 0);
	assert_int_equal(metric(sp, REMOVED_AGE), 4);
	assert_int_equal(metric(sp, REMOVED_SIZE), 1);
	enav_profile_spool_close(sp);
}

static void test_enforce_age_boundary(void **state)
{
	struct enav_profile_spool *sp = spool_open(1ull << 40, AGE);
	const time_t now = (time_t)NOW;

	make_file(g_dir, "enav-cpu-20260101T000000Z-0.pb.gz", 10, now - AGE - 1);
	make_file(g_dir, "enav-cpu-20260101T000000Z-1.pb.gz", 20, now - AGE);
	make_file(g_dir, "enav-cpu-20260101T000000Z-2.pb.gz", 30, now);
	enav_profile_spool_enforce(sp, NOW);
	/* Older than max_age goes; exactly max_age old stays. */
	expect_listing(g_dir, "enav-cpu-20260101T000000Z-1.pb.gz "
			      "enav-cpu-20260101T000000Z-2.pb.gz");
	assert_int_equal(metric(sp, "enav_profile_spool_files"), 2);
	assert_int_equal(metric(sp, "enav_profile_spool_bytes"), 50);
	assert_int_equal(metric(sp, REMOVED_AGE), 1);
	assert_int_equal(metric(sp, REMOVED_SIZE), 0);
	enav_profile_spool_close(sp);
}

static void test_enforce_size_only(void **state)
{
	struct enav_profile_spool *sp = spool_open(100, 1000000000u);
	const time_t now = (time_t)NOW;

	/* Same mtime: the name decides, so the order is deterministic. */
	make_file(g_dir, "enav-cpu-20260101T000000Z-b.pb.gz", 60, now - 50);
	make_file(g_dir, "enav-cpu-20260101T000000Z-a.pb.gz", 60, now - 50);
	make_file(g_dir, "enav-cpu-20260101T000000Z-c.pb.gz", 40, now - 10);
	enav_profile_spool_enforce(sp, NOW);
	/* 160 > 100: a goes (100 left, fits). */
	expect_listing(g_dir, "enav-cpu-20260101T000000Z-b.pb.gz "
			      "enav-cpu-20260101T000000Z-c.pb.gz");
	assert_int_equal(metric(sp, "enav_profile_spool_files"), 2);
	assert_int_equal(metric(sp, "enav_profile_spool_bytes"), 100);
	assert_int_equal(metric(sp, REMOVED_AGE), 0);
	assert_int_equal(metric(sp, REMOVED_SIZE), 1);

	/* A single file bigger than the cap goes too: the spool never exceeds it. */
	make_file(g_dir, "enav-cpu-20260101T000000Z-d.pb.gz", 500, now);
	enav_profile_spool_enforce(sp, NOW);
	expect_listing(g_dir, "");
	assert_int_equal(metric(sp, "enav_profile_spool_files"), 0);
	assert_int_equal(metric(sp, "enav_profile_spool_bytes"), 0);
	assert_int_equal(metric(sp, REMOVED_SIZE), 4);
	enav_profile_spool_close(sp);
}

/* Opening applies the caps at once, with the real clock. */
static void test_open_enforces(void **state)
{
	time_t now = time(NULL);

	make_file(g_dir, "enav-cpu-20260101T000000Z-0.pb.gz", 10, now - 2 * AGE);
	make_file(g_dir, "enav-cpu-20260101T000000Z-1.pb.gz", 20, now - 60);
	make_file(g_dir, "notes.txt", 20, now - 2 * AGE);
	struct enav_profile_spool *sp = spool_open(1000, AGE);
	expect_listing(g_dir, "enav-cpu-20260101T000000Z-1.pb.gz notes.txt");
	assert_int_equal(metric(sp, "enav_profile_spool_files"), 1);
	assert_int_equal(metric(sp, "enav_profile_spool_bytes"), 20);
	assert_int_equal(metric(sp, REMOVED_AGE), 1);
	enav_profile_spool_close(sp);
}

static void test_open_error(void **state)
{
	char plain[PATH_MAX + 16], dir[PATH_MAX + 32], err[512];

	snprintf(plain, sizeof(plain), "%s/plain", g_tmp);
	make_file(g_tmp, "plain", 3, time(NULL));
	snprintf(dir, sizeof(dir), "%s/spool", plain);
	memset(err, 0, sizeof(err));
	struct enav_profile_spool *sp = enav_profile_spool_open(dir, 1000, AGE, err, sizeof(err));
	FAIL_IF(sp != NULL, "spool opened under a regular file\n");
	FAIL_IF(strstr(err, "profiling.spool.dir") == NULL, "error does not name the key: %s\n",
		err);
	FAIL_IF(strstr(err, dir) == NULL, "error does not name the path: %s\n", err);
	FAIL_IF(strchr(err, '\n') != NULL, "error is not one line: %s\n", err);
	assert_true(strlen(err) > strlen("profiling.spool.dir"));
}

/* ---- writing ------------------------------------------------------------------ */

static struct enav_profile_store *store_with(uint32_t kind, uint64_t count, uint64_t total_ns)
{
	struct enav_profile_store_config c = {.host = NULL,
					      .cgroup2_mount = NULL,
					      .frequency_hz = 100,
					      .retention_ms = 3600 * 1000,
					      .max_stored_stacks = 1000,
					      .max_processes = 16,
					      .max_elf_files = 4};
	struct enav_profile_store *s = enav_profile_store_new(&c);
	const uint64_t kern[] = {0xffffffff00000001ull};
	struct enav_profile_record r = {
	    .tgid = (uint32_t)getpid(), .kind = kind, .count = count, .total_ns = total_ns};

	assert_non_null(s);
	enav_profile_store_task(s, (uint32_t)getpid(), 0, "spooltest");
	struct enav_profile_batch *b = enav_profile_batch_new(SEC(10), SEC(1767225590));
	assert_non_null(b);
	b->end_mono_ns = SEC(20);
	assert_true(enav_profile_batch_add(b, &r, kern, 1, NULL, 0));
	enav_profile_store_add(s, b);
	return s;
}

static void decode_file(const char *dir, const char *name, struct enav_pprof_decoded *d)
{
	char path[PATH_MAX * 2], err[256] = "";
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_true(st.st_size > 0);
	uint8_t *buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, (size_t)st.st_size), st.st_size);
	close(fd);
	assert_true(st.st_size >= 2 && buf[0] == 0x1f && buf[1] == 0x8b); /* gzip */
	int rc = enav_pprof_decode(buf, (size_t)st.st_size, 0, d, err, sizeof(err));
	free(buf);
	FAIL_IF(rc != 0, "%s does not decode: %d %s\n", name, rc, err);
}

static uint64_t file_size(const char *dir, const char *name)
{
	char path[PATH_MAX * 2];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

#define STAMP_UNIX SEC(1767225600) /* 2026-01-01T00:00:00Z */

static void test_interval_writes_one_file(void **state)
{
	struct enav_profile_store *s = store_with(ENAV_PROFILE_CPU, 7, 0);
	struct enav_profile_spool *sp = spool_open(1 << 20, AGE);
	const uint32_t all = (1u << ENAV_PROFILE__COUNT) - 1;

	/* Every kind asked for; only the CPU profile has samples. */
	enav_profile_spool_interval(sp, s, &enav_profile_store_service, all, SEC(0), SEC(100),
				    STAMP_UNIX);
	expect_listing(g_dir, "enav-cpu-20260101T000000Z-0.pb.gz");

	struct enav_pprof_decoded d;
	decode_file(g_dir, "enav-cpu-20260101T000000Z-0.pb.gz", &d);
	assert_int_equal(d.n_samples, 1);
	assert_int_equal(d.samples[0].n_values, 2);
	assert_int_equal(d.samples[0].values[0], 7);
	assert_int_equal(d.samples[0].values[1], 7 * 10000000);
	assert_int_equal(d.period, 10000000);
	enav_pprof_decoded_free(&d);

	uint64_t size = file_size(g_dir, "enav-cpu-20260101T000000Z-0.pb.gz");
	assert_int_equal(metric(sp, "enav_profile_spool_written_total"), 1);
	assert_int_equal(metric(sp, "enav_profile_spool_write_errors_total"), 0);
	assert_int_equal(metric(sp, "enav_profile_spool_files"), 1);
	assert_int_equal(metric(sp, "enav_profile_spool_bytes"), size);

	/* A window with nothing in it writes nothing. */
	enav_profile_spool_interval(sp, s, &enav_profile_store_service, all, SEC(50), SEC(100),
				    STAMP_UNIX + SEC(60));
	expect_listing(g_dir, "enav-cpu-20260101T000000Z-0.pb.gz");
	assert_int_equal(metric(sp, "enav_profile_spool_written_total"), 1);

	/* Kinds not asked for are not written, even with samples. */
	enav_profile_spool_interval(sp, s, &enav_profile_store_service, 1u << ENAV_PROFILE_OFFCPU,
				    SEC(0), SEC(100), STAMP_UNIX + SEC(61));
	expect_listing(g_dir, "enav-cpu-20260101T000000Z-0.pb.gz");

	/* The next file gets the next sequence number and its own stamp. */
	enav_profile_spool_interval(sp, s, &enav_profile_store_service, 1u << ENAV_PROFILE_CPU,
				    SEC(0), SEC(100), STAMP_UNIX + SEC(3661));
	expect_listing(g_dir, "enav-cpu-20260101T000000Z-0.pb.gz "
			      "enav-cpu-20260101T010101Z-1.pb.gz");
	assert_int_equal(metric(sp, "enav_profile_spool_written_total"), 2);
	assert_int_equal(metric(sp, "enav_profile_spool_files"), 2);

	/* NULL spool (spooling off): nothing, no crash. */
	enav_profile_spool_interval(NULL, s, &enav_profile_store_service, all, SEC(0), SEC(100),
				    STAMP_UNIX);
	enav_profile_spool_close(sp);
	enav_profile_store_free(s);
}

static void read_text(const char *path, char *out, size_t cap)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	ssize_t n = read(fd, out, cap - 1);
	assert_true(n >= 0);
	out[n] = '\0';
	close(fd);
}

/* Someone who can guess the next temporary name plants a symlink there, to a
 * file of its choice: the agent neither writes through it nor truncates the
 * target; the entry is removed and counted, and the profile is written.  A
 * symlink at the final name is replaced, never followed. */
static void test_planted_symlink(void **state)
{
	char victim[PATH_MAX + 32], link[PATH_MAX * 2], text[64];
	struct enav_profile_store *s = store_with(ENAV_PROFILE_CPU, 7, 0);
	struct enav_profile_spool *sp = spool_open(1 << 20, AGE);

	snprintf(victim, sizeof(victim), "%s/victim", g_out);
	make_file(g_out, "victim", 0, time(NULL));
	int fd = open(victim, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "keep\n", 5), 5);
	close(fd);
	snprintf(link, sizeof(link), "%s/.tmp-enav-cpu-20260101T000000Z-0.pb.gz", g_dir);
	assert_int_equal(symlink(victim, link), 0);
	snprintf(link, sizeof(link), "%s/enav-cpu-20260101T000000Z-1.pb.gz", g_dir);
	assert_int_equal(symlink(victim, link), 0);

	enav_profile_spool_interval(sp, s, &enav_profile_store_service, 1u << ENAV_PROFILE_CPU,
				    SEC(0), SEC(100), STAMP_UNIX);
	read_text(victim, text, sizeof(text));
	FAIL_IF(strcmp(text, "keep\n") != 0, "the symlink's target was written: \"%s\"\n", text);
	expect_listing(g_dir,
		       "enav-cpu-20260101T000000Z-0.pb.gz enav-cpu-20260101T000000Z-1.pb.gz");
	struct stat st;
	snprintf(link, sizeof(link), "%s/enav-cpu-20260101T000000Z-0.pb.gz", g_dir);
	assert_int_equal(lstat(link, &st), 0);
	FAIL_IF(!S_ISREG(st.st_mode), "the spool file is not a regular file\n");
	assert_int_equal(metric(sp, "enav_profile_spool_planted_total"), 1);
	assert_int_equal(metric(sp, "enav_profile_spool_written_total"), 1);

	/* The next file's final name holds a symlink: renamed over, not followed. */
	enav_profile_spool_interval(sp, s, &enav_profile_store_service, 1u << ENAV_PROFILE_CPU,
				    SEC(0), SEC(100), STAMP_UNIX);
	read_text(victim, text, sizeof(text));
	FAIL_IF(strcmp(text, "keep\n") != 0, "the symlink's target was written: \"%s\"\n", text);
	assert_int_equal(lstat(link, &st), 0);
	snprintf(link, sizeof(link), "%s/enav-cpu-20260101T000000Z-1.pb.gz", g_dir);
	assert_int_equal(lstat(link, &st), 0);
	FAIL_IF(!S_ISREG(st.st_mode), "the symlink at the final name was kept\n");
	enav_profile_spool_close(sp);
	enav_profile_store_free(s);
}

/* A directory others can write is refused: they could plant names in it. */
static void test_open_refuses_world_writable(void **state)
{
	char err[512] = "";
	assert_int_equal(chmod(g_dir, 0777), 0);
	struct enav_profile_spool *sp = enav_profile_spool_open(g_dir, 1000, AGE, err, sizeof(err));
	FAIL_IF(sp != NULL, "a world-writable spool directory was accepted\n");
	FAIL_IF(strstr(err, "writable by others") == NULL, "error: %s\n", err);
}

static void test_interval_offcpu(void **state)
{
	struct enav_profile_store *s = store_with(ENAV_PROFILE_OFFCPU, 3, 4500000);
	struct enav_profile_spool *sp = spool_open(1 << 20, AGE);

	enav_profile_spool_interval(sp, s, &enav_profile_store_service,
				    (1u << ENAV_PROFILE__COUNT) - 1, SEC(0), SEC(100), STAMP_UNIX);
	expect_listing(g_dir, "enav-offcpu-20260101T000000Z-0.pb.gz");
	struct enav_pprof_decoded d;
	decode_file(g_dir, "enav-offcpu-20260101T000000Z-0.pb.gz", &d);
	assert_int_equal(d.n_samples, 1);
	assert_int_equal(d.samples[0].values[0], 3);
	assert_int_equal(d.samples[0].values[1], 4500000);
	enav_pprof_decoded_free(&d);
	enav_profile_spool_close(sp);
	enav_profile_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_enforce_age_then_size, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_enforce_age_boundary, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_enforce_size_only, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_open_enforces, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_open_error, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_interval_writes_one_file, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_interval_offcpu, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_planted_symlink, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_open_refuses_world_writable, make_tmp, rm_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
