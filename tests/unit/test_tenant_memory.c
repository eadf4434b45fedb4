/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the profiler's tenant memory budget
 * (src/features/profiling/tenant_memory.c, ADR 0020) and its use by the
 * symbolizer: the accounting and the memory of refusals on their own, then
 * symbolizers over a fake proc root whose processes map crafted shared
 * objects (tests/integration/helpers/craft_symtab.py: many symbols naming
 * one long string), built at test time with gcc and python3.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "features/profiling/symbolize.h"
#include "features/profiling/symbolize_priv.h"
#include "features/profiling/tenant_memory.h"

#define FAIL_IF(cond, ...)                                                                         \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_message(__VA_ARGS__);                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define MAP_BASE 0x10000000ull /* where the fake processes map the first library */
#define MAP_STEP 0x01000000ull

static char g_tmp[PATH_MAX];

static void run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	FAIL_IF(rc != 0, "command failed (status %d): %s\n", rc, cmd);
}

static int make_tmp(void **state)
{
	(void)state;
	snprintf(g_tmp, sizeof(g_tmp), "/tmp/enav_tmem_XXXXXX");
	assert_non_null(mkdtemp(g_tmp));
	return 0;
}

static int rm_tmp(void **state)
{
	(void)state;
	run("rm -rf '%s'", g_tmp);
	return 0;
}

/* ---- the accountant -------------------------------------------------------------- */

static void test_accounting(void **state)
{
	(void)state;
	struct enav_tenant_mem *m = enav_tenant_mem_new(0);
	struct enav_tenant_mem_stats st;

	assert_non_null(m);
	assert_true(enav_tenant_mem_cap(m) == ENAV_TENANT_MEM_DEFAULT);
	assert_true(enav_tenant_mem_file_cap(m) == ENAV_TENANT_MEM_DEFAULT / 8);
	assert_true(enav_tenant_mem_fits(m, ENAV_TENANT_MEM_DEFAULT));
	assert_false(enav_tenant_mem_fits(m, ENAV_TENANT_MEM_DEFAULT + 1));
	enav_tenant_mem_charge(m, 100);
	assert_true(enav_tenant_mem_used(m) == 100);
	assert_false(enav_tenant_mem_fits(m, ENAV_TENANT_MEM_DEFAULT - 99));
	enav_tenant_mem_uncharge(m, 40);
	assert_true(enav_tenant_mem_used(m) == 60);
	enav_tenant_mem_uncharge(m, 1000); /* never below zero */
	assert_true(enav_tenant_mem_used(m) == 0);
	enav_tenant_mem_evicted(m);
	enav_tenant_mem_refused(m, ENAV_TMEM_OVER_FILE_CAP);
	enav_tenant_mem_open_refused(m, ENAV_TENANT_GONE); /* not counted */
	enav_tenant_mem_open_refused(m, ENAV_TENANT_NOT_REGULAR);
	enav_tenant_mem_get_stats(m, &st);
	assert_true(st.evictions == 1 && st.refused[ENAV_TMEM_OVER_FILE_CAP] == 1 &&
		    st.refused[ENAV_TMEM_NOT_REGULAR] == 1 &&
		    st.refused[ENAV_TMEM_OPEN_ERROR] == 0);
	enav_tenant_mem_free(m);

	/* Clamped to the validated range. */
	m = enav_tenant_mem_new(1);
	assert_true(enav_tenant_mem_cap(m) == ENAV_TENANT_MEM_MIN);
	enav_tenant_mem_free(m);
	m = enav_tenant_mem_new(~0ull);
	assert_true(enav_tenant_mem_cap(m) == ENAV_TENANT_MEM_MAX);
	enav_tenant_mem_free(m);
}

static void test_memory_of_refusals(void **state)
{
	(void)state;
	struct enav_tenant_mem *m = enav_tenant_mem_new(0);
	struct enav_file_key k = {.dev = 1, .ino = 2, .mtime_ns = 3, .size = 4}, k2 = k;
	uint64_t v = 0;

	assert_false(enav_tenant_mem_recall(m, ENAV_TMEM_KIND_SYMBOLS, &k, &v));
	enav_tenant_mem_remember(m, ENAV_TMEM_KIND_SYMBOLS, &k, 7);
	assert_true(enav_tenant_mem_recall(m, ENAV_TMEM_KIND_SYMBOLS, &k, &v) && v == 7);
	/* Another user of the same file, and the same file changed, do not match. */
	assert_false(enav_tenant_mem_recall(m, ENAV_TMEM_KIND_UNWIND, &k, &v));
	k2.mtime_ns++;
	assert_false(enav_tenant_mem_recall(m, ENAV_TMEM_KIND_SYMBOLS, &k2, &v));
	k2 = k;
	k2.size++;
	assert_false(enav_tenant_mem_recall(m, ENAV_TMEM_KIND_SYMBOLS, &k2, &v));
	/* Bounded: many identities later, the table still answers for the
	 * newest and never more than its slots. */
	for (uint64_t i = 0; i < 4 * ENAV_TENANT_MEMO_SLOTS; i++) {
		k2 = (struct enav_file_key){.dev = 9, .ino = i, .mtime_ns = 1, .size = 1};
		enav_tenant_mem_remember(m, ENAV_TMEM_KIND_DEBUGLINK, &k2, i);
	}
	assert_true(enav_tenant_mem_recall(m, ENAV_TMEM_KIND_DEBUGLINK, &k2, &v) &&
		    v == 4 * ENAV_TENANT_MEMO_SLOTS - 1);
	enav_tenant_mem_free(m);
}

/* ---- the symbolizer under the budget ------------------------------------------------ */

/* A shared object whose .symtab has nsyms symbols naming one namelen-byte
 * string, at g_tmp/name. */
static void craft(const char *name, int nsyms, int namelen, int tag)
{
	char so[PATH_MAX];
	snprintf(so, sizeof(so), "%s/burn.so", g_tmp);
	if (access(so, R_OK) != 0) {
		FAIL_IF(system("command -v gcc >/dev/null && test -x /usr/bin/python3") != 0,
			"gcc and /usr/bin/python3 build the crafted objects\n");
		run("printf 'void enav_crafted_burn(volatile unsigned long *x)"
		    "{ for (int i = 0; i < 9; i++) *x += i; }\\n' >'%s/burn.c' && "
		    "gcc -shared -fPIC -O1 -Wl,--build-id=none -o '%s/burn.so' '%s/burn.c'",
		    g_tmp, g_tmp, g_tmp);
	}
	run("/usr/bin/python3 tests/integration/helpers/craft_symtab.py '%s/burn.so' '%s/%s' %d %d "
	    "%d",
	    g_tmp, g_tmp, name, nsyms, namelen, tag);
}

/* A fake /proc whose process pid maps the n files g_tmp/names[i] (copied
 * into its root as /lib/<name>) at MAP_BASE + i * MAP_STEP. */
static void fake_proc(const char *proc_root, int pid, const char *const *names, int n)
{
	char path[PATH_MAX], maps[64 * 256] = "", line[PATH_MAX + 128];
	struct stat st;

	run("mkdir -p '%s/%d/root/lib'", proc_root, pid);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%d/root/lib/%s", proc_root, pid, names[i]);
		if (stat(path, &st) != 0)
			run("cp '%s/%s' '%s'", g_tmp, names[i], path);
		assert_int_equal(stat(path, &st), 0);
		uint64_t start = MAP_BASE + (uint64_t)i * MAP_STEP;
		snprintf(line, sizeof(line),
			 "%" PRIx64 "-%" PRIx64 " r-xp 00000000 %02x:%02x %" PRIu64 " /lib/%s\n",
			 start, start + 0x100000, major(st.st_dev), minor(st.st_dev),
			 (uint64_t)st.st_ino, names[i]);
		strncat(maps, line, sizeof(maps) - strlen(maps) - 1);
	}
	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, pid);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(maps, f);
	fclose(f);
}

/* .text's address in the crafted object (its symbols start there). */
static uint64_t crafted_text(const char *name)
{
	char cmd[PATH_MAX + 64];
	unsigned long long a = 0;

	snprintf(cmd, sizeof(cmd),
		 "readelf -SW '%s/%s' | "
		 "awk '{ for (i = 1; i < NF; i++) if ($i == \".text\") print $(i + 2) }'",
		 g_tmp, name);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%llx", &a), 1);
	pclose(p);
	return a;
}

/* Sixteen crafted files of ~0.6 MiB of table each under an 8 MiB budget:
 * all are loaded, what is held stays under the cap, and the least recently
 * used are evicted and counted.  Each name (2,000 bytes in the file) is
 * kept cut at ENAV_TENANT_NAME_MAX bytes, marked. */
static void test_budget_evicts(void **state)
{
	(void)state;
	char proc_root[PATH_MAX], names[16][32];
	const char *np[16];
	struct enav_symbolizer_stats st;
	struct enav_tenant_mem_stats ms;
	struct enav_frame f;

	for (int i = 0; i < 16; i++) {
		snprintf(names[i], sizeof(names[i]), "c%d.so", i);
		craft(names[i], 500, 2000, i);
		np[i] = names[i];
	}
	snprintf(proc_root, sizeof(proc_root), "%s/proc", g_tmp);
	fake_proc(proc_root, 4242, np, 16);
	struct enav_tenant_mem *m = enav_tenant_mem_new(8ull << 20);
	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .proc_root = proc_root, .perf_map_dir = g_tmp, .debug_dir = "", .mem = m});
	assert_non_null(s);
	assert_int_equal(enav_symbolizer_snapshot(s, 4242), 0);
	enav_symbolizer_get_stats(s, &st);
	enav_tenant_mem_get_stats(m, &ms);
	FAIL_IF(st.elf_loads != 16 || st.elf_failures != 0,
		"loads %" PRIu64 " failures %" PRIu64 "\n", st.elf_loads, st.elf_failures);
	FAIL_IF(ms.used > ms.cap || ms.used < ms.cap / 2,
		"held %" PRIu64 " of a %" PRIu64 " budget\n", ms.used, ms.cap);
	FAIL_IF(ms.evictions == 0 || ms.evictions != st.elf_evictions ||
		    st.elf_files + ms.evictions != 16,
		"evictions %" PRIu64 " (symbolizer %" PRIu64 "), %u kept\n", ms.evictions,
		st.elf_evictions, st.elf_files);
	/* The last loaded is still cached: its names are cut and marked. */
	uint64_t text = crafted_text(names[15]);
	assert_true(enav_symbolizer_user(s, 4242, MAP_BASE + 15 * MAP_STEP + text + 3, &f));
	FAIL_IF(strlen(f.function) != ENAV_TENANT_NAME_MAX ||
		    strcmp(f.function + ENAV_TENANT_NAME_MAX - 3, "...") != 0 ||
		    strncmp(f.function, "15_AAAA", 7) != 0,
		"name of %zu bytes: %.20s...%s\n", strlen(f.function), f.function,
		f.function + strlen(f.function) - 5);
	enav_symbolizer_free(s);
	/* Everything charged is given back. */
	assert_true(enav_tenant_mem_used(m) == 0);
	enav_tenant_mem_free(m);
}

/* A file whose kept table would pass the per-file cap (budget / 8) is
 * refused, counted, and remembered: another process mapping it, or another
 * symbolizer sharing the budget, does not parse it again. */
static void test_refusal_remembered(void **state)
{
	(void)state;
	char proc_root[PATH_MAX];
	const char *np[] = {"big.so", "small.so"};
	struct enav_symbolizer_stats st;
	struct enav_tenant_mem_stats ms;

	craft("big.so", 2000, 2000, 1);	 /* ~2.1 MB kept: over the 1 MiB share */
	craft("small.so", 100, 2000, 2); /* ~0.1 MB */
	snprintf(proc_root, sizeof(proc_root), "%s/proc", g_tmp);
	fake_proc(proc_root, 5001, np, 2);
	struct enav_tenant_mem *m = enav_tenant_mem_new(8ull << 20);
	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .proc_root = proc_root, .perf_map_dir = g_tmp, .debug_dir = "", .mem = m});
	assert_int_equal(enav_symbolizer_snapshot(s, 5001), 0);
	enav_symbolizer_get_stats(s, &st);
	enav_tenant_mem_get_stats(m, &ms);
	FAIL_IF(st.elf_loads != 1 || st.elf_failures != 1 ||
		    ms.refused[ENAV_TMEM_OVER_FILE_CAP] != 1 ||
		    ms.refused[ENAV_TMEM_REMEMBERED] != 0,
		"loads %" PRIu64 " failures %" PRIu64 " over_cap %" PRIu64 "\n", st.elf_loads,
		st.elf_failures, ms.refused[ENAV_TMEM_OVER_FILE_CAP]);
	assert_true(ms.used < enav_tenant_mem_file_cap(m));

	/* A second process mapping the same files (hard links: same inodes). */
	run("mkdir -p '%s/5002/root' && cp -al '%s/5001/root/lib' '%s/5002/root/lib' && "
	    "cp '%s/5001/maps' '%s/5002/maps'",
	    proc_root, proc_root, proc_root, proc_root, proc_root);
	assert_int_equal(enav_symbolizer_snapshot(s, 5002), 0);
	enav_symbolizer_get_stats(s, &st);
	enav_tenant_mem_get_stats(m, &ms);
	FAIL_IF(st.elf_loads != 1 || ms.refused[ENAV_TMEM_OVER_FILE_CAP] != 1 ||
		    ms.refused[ENAV_TMEM_REMEMBERED] != 1,
		"second process: loads %" PRIu64 " over_cap %" PRIu64 " remembered %" PRIu64 "\n",
		st.elf_loads, ms.refused[ENAV_TMEM_OVER_FILE_CAP],
		ms.refused[ENAV_TMEM_REMEMBERED]);
	enav_symbolizer_free(s);

	/* A new symbolizer on the same budget remembers it too. */
	s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .proc_root = proc_root, .perf_map_dir = g_tmp, .debug_dir = "", .mem = m});
	assert_int_equal(enav_symbolizer_snapshot(s, 5001), 0);
	enav_tenant_mem_get_stats(m, &ms);
	assert_true(ms.refused[ENAV_TMEM_REMEMBERED] == 2 &&
		    ms.refused[ENAV_TMEM_OVER_FILE_CAP] == 1);
	enav_symbolizer_free(s);

	/* The same file changed (a new mtime) is a new file: parsed again. */
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/5001/root/lib/big.so", proc_root);
	struct timespec ts[2] = {{.tv_sec = 1000}, {.tv_sec = 1000}};
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .proc_root = proc_root, .perf_map_dir = g_tmp, .debug_dir = "", .mem = m});
	assert_int_equal(enav_symbolizer_snapshot(s, 5001), 0);
	enav_tenant_mem_get_stats(m, &ms);
	assert_true(ms.refused[ENAV_TMEM_REMEMBERED] == 2 &&
		    ms.refused[ENAV_TMEM_OVER_FILE_CAP] == 2);
	enav_symbolizer_free(s);
	enav_tenant_mem_free(m);
}

/* The maps line's inode is checked on the root path too: a file swapped in
 * under the mapped name is not read. */
static void test_other_inode_refused(void **state)
{
	(void)state;
	char proc_root[PATH_MAX], path[PATH_MAX];
	const char *np[] = {"small.so"};
	struct enav_symbolizer_stats st;
	struct enav_tenant_mem_stats ms;

	craft("small.so", 100, 20, 3);
	snprintf(proc_root, sizeof(proc_root), "%s/proc", g_tmp);
	fake_proc(proc_root, 6001, np, 1);
	/* Replace the file: same name, another inode. */
	snprintf(path, sizeof(path), "%s/6001/root/lib/small.so", proc_root);
	run("cp '%s' '%s.new' && mv '%s.new' '%s'", path, path, path, path);
	struct enav_tenant_mem *m = enav_tenant_mem_new(0);
	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .proc_root = proc_root, .perf_map_dir = g_tmp, .debug_dir = "", .mem = m});
	assert_int_equal(enav_symbolizer_snapshot(s, 6001), 0);
	enav_symbolizer_get_stats(s, &st);
	enav_tenant_mem_get_stats(m, &ms);
	assert_true(st.elf_loads == 0 && st.elf_failures == 1);
	assert_true(ms.refused[ENAV_TMEM_OTHER_INODE] == 1);
	enav_symbolizer_free(s);
	enav_tenant_mem_free(m);
}

/* The CRC of a .gnu_debuglink target is computed within the per-file cap and
 * remembered per identity: a second load uses the remembered CRC (shown by
 * changing the file's bytes but not its size or mtime), and a target larger
 * than the cap is not read at all. */
static void test_debuglink_crc(void **state)
{
	(void)state;
	char proc_root[PATH_MAX], lib[PATH_MAX], dbg[PATH_MAX];
	const char *np[] = {"linked.so"};
	struct enav_symbolizer_stats st;
	struct enav_tenant_mem_stats ms;
	struct stat dst;
	struct enav_file_key k;
	uint64_t crc = 0;

	craft("small.so", 10, 20, 4); /* builds burn.so */
	run("cd '%s' && objcopy --only-keep-debug burn.so linked.debug && "
	    "strip --strip-all -o linked.so burn.so && "
	    "objcopy --add-gnu-debuglink=linked.debug linked.so",
	    g_tmp);
	snprintf(proc_root, sizeof(proc_root), "%s/proc", g_tmp);
	fake_proc(proc_root, 7001, np, 1);
	snprintf(lib, sizeof(lib), "%s/7001/root/lib", proc_root);
	run("cp '%s/linked.debug' '%s/'", g_tmp, lib);
	snprintf(dbg, sizeof(dbg), "%s/linked.debug", lib);
	struct enav_symbolizer_config c = {
	    .proc_root = proc_root, .perf_map_dir = g_tmp, .debug_dir = g_tmp};
	c.mem = enav_tenant_mem_new(8ull << 20);
	struct enav_symbolizer *s = enav_symbolizer_new(&c);
	assert_int_equal(enav_symbolizer_snapshot(s, 7001), 0);
	enav_symbolizer_get_stats(s, &st);
	assert_true(st.elf_loads == 1 && st.debug_files == 1);
	enav_symbolizer_free(s);
	assert_int_equal(stat(dbg, &dst), 0);
	enav_file_key_of(&dst, &k);
	assert_true(enav_tenant_mem_recall(c.mem, ENAV_TMEM_KIND_DEBUGLINK, &k, &crc));
	assert_true(crc != ENAV_TMEM_NO_CRC);

	/* Same identity, other bytes: the remembered CRC decides, unread. */
	run("f='%s'; t=$(stat -c %%y \"$f\"); printf 'XXXX' | dd of=\"$f\" bs=1 seek=64 "
	    "conv=notrunc 2>/dev/null; touch -d \"$t\" \"$f\"",
	    dbg);
	s = enav_symbolizer_new(&c);
	assert_int_equal(enav_symbolizer_snapshot(s, 7001), 0);
	enav_symbolizer_get_stats(s, &st);
	FAIL_IF(st.debug_files != 1, "the remembered CRC was not used\n");
	enav_symbolizer_free(s);
	enav_tenant_mem_free(c.mem);

	/* A target past the per-file cap (1 MiB of an 8 MiB budget) is not
	 * checksummed: no debug symbols, refused and remembered. */
	run("cd '%s' && head -c 2000000 /dev/zero >pad && "
	    "objcopy --add-section .pad=pad linked.debug big.debug && mv big.debug linked.debug && "
	    "strip --strip-all -o base.so burn.so && "
	    "objcopy --add-gnu-debuglink=linked.debug base.so linked.so && rm -f '%s'/linked.*",
	    g_tmp, lib);
	fake_proc(proc_root, 7001, np, 1);
	run("cp '%s/linked.debug' '%s/'", g_tmp, lib);
	c.mem = enav_tenant_mem_new(8ull << 20);
	s = enav_symbolizer_new(&c);
	assert_int_equal(enav_symbolizer_snapshot(s, 7001), 0);
	enav_symbolizer_get_stats(s, &st);
	enav_tenant_mem_get_stats(c.mem, &ms);
	FAIL_IF(st.debug_files != 0 || ms.refused[ENAV_TMEM_OVER_FILE_CAP] < 1,
		"debug files %" PRIu64 ", over_file_cap %" PRIu64 "\n", st.debug_files,
		ms.refused[ENAV_TMEM_OVER_FILE_CAP]);
	assert_int_equal(stat(dbg, &dst), 0);
	enav_file_key_of(&dst, &k);
	assert_true(enav_tenant_mem_recall(c.mem, ENAV_TMEM_KIND_DEBUGLINK, &k, &crc) &&
		    crc == ENAV_TMEM_NO_CRC);
	enav_symbolizer_free(s);
	enav_tenant_mem_free(c.mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_accounting),
	    cmocka_unit_test(test_memory_of_refusals),
	    cmocka_unit_test_setup_teardown(test_budget_evicts, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_refusal_remembered, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_other_inode_refused, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_debuglink_crc, make_tmp, rm_tmp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
