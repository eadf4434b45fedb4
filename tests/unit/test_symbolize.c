/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the symbolizer (src/features/profiling/symbolize*.c, platform/proc_lines.c,
 * elf_symtab.c): the line parsers on fixtures, the ELF match rules on a
 * hand-built table, kernel lookups on a fixture kallsyms, user lookups
 * through a fake proc root built here (a copy of this test binary), through
 * the real /proc for this process, and for a child after it has exited,
 * plus the cache caps, and separate debug files (by build id and through
 * .gnu_debuglink) made from this binary with objcopy at test time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "features/profiling/symbolize.h"
#include "features/profiling/symbolize_priv.h"

/* A regression check: print what went wrong, then fail. */
#define FAIL_IF(cond, ...)                                                                         \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_message(__VA_ARGS__);                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define LEN(s) (sizeof(s) - 1)

/* Functions of this binary the tests symbolize.  noinline + used keep them
 * real, separate functions with their own .symtab entries. */
__attribute__((noinline, used)) int enav_test_known_function(int x)
{
	return x * 3 + (int)getpid() % 7;
}

__attribute__((noinline, used)) int enav_test_other_function(int x)
{
	return x ^ 0x55;
}

/* Static: in .symtab only, never in .dynsym (even when the sanitizer runtime
 * links with --export-dynamic), so it resolves in a stripped copy of this
 * binary only through a debug file. */
static __attribute__((noinline, used)) int enav_test_static_function(int x)
{
	return x * 7 + (int)getppid() % 5;
}

static uint64_t addr_of(int (*fn)(int))
{
	return (uint64_t)(uintptr_t)fn;
}

/* ---- helpers ------------------------------------------------------------------ */

static char g_tmp[PATH_MAX];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

/* The line of /proc/self/maps covering addr (without '\n'). */
static void self_maps_line(uint64_t addr, char *out, size_t cap)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[PATH_MAX + 256];

	assert_non_null(f);
	out[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		struct enav_maps_line ml;
		if (enav_maps_parse_line(line, strlen(line), &ml) == 0 && ml.start <= addr &&
		    addr < ml.end) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, cap, "%s", line);
			break;
		}
	}
	fclose(f);
	assert_true(out[0] != '\0');
}

static int make_tmp(void **state)
{
	snprintf(g_tmp, sizeof(g_tmp), "/tmp/enav_symbolize_XXXXXX");
	assert_non_null(mkdtemp(g_tmp));
	return 0;
}

static int rm_tmp(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_tmp);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* ---- parsers -------------------------------------------------------------------- */

static void test_maps_parser(void **state)
{
	struct enav_maps_line m;
	static const char l1[] = "7f1234560000-7f1234580000 r-xp 00026000 fe:01 332835          "
				 "         /usr/lib/x86_64-linux-gnu/libc.so.6\n";
	static const char l2[] =
	    "00400000-00452000 r-xp 00001000 08:02 173521      /opt/my app/bin/"
	    "my prog";
	static const char l3[] = "7f0000000000-7f0000001000 r-xs 00000000 00:05 99   /memfd:jit "
				 "code (deleted)";
	static const char l4[] = "7ffd2b1fe000-7ffd2b200000 r-xp 00000000 00:00 0              "
				 "            [vdso]";
	static const char l5[] = "7f799728e000-7f79972b0000 rw-p 00000000 00:00 0 ";
	static const char l6[] = "7f799728e000-7f79972b0000 ---p 00000000 00:00 0";

	assert_int_equal(enav_maps_parse_line(l1, LEN(l1), &m), 0);
	assert_true(m.start == 0x7f1234560000ull && m.end == 0x7f1234580000ull);
	assert_true(m.read && !m.write && m.exec && !m.shared);
	assert_true(m.offset == 0x26000 && m.dev_major == 0xfe && m.dev_minor == 1);
	assert_true(m.inode == 332835 && !m.deleted);
	assert_int_equal(m.path_len, strlen("/usr/lib/x86_64-linux-gnu/libc.so.6"));
	assert_memory_equal(m.path, "/usr/lib/x86_64-linux-gnu/libc.so.6", m.path_len);

	assert_int_equal(enav_maps_parse_line(l2, LEN(l2), &m), 0);
	assert_int_equal(m.path_len, strlen("/opt/my app/bin/my prog"));
	assert_memory_equal(m.path, "/opt/my app/bin/my prog", m.path_len);
	assert_true(m.start == 0x400000 && m.offset == 0x1000 && m.dev_minor == 2);

	assert_int_equal(enav_maps_parse_line(l3, LEN(l3), &m), 0);
	assert_true(m.deleted && m.shared && m.exec);
	assert_int_equal(m.path_len, strlen("/memfd:jit code"));
	assert_memory_equal(m.path, "/memfd:jit code", m.path_len);

	assert_int_equal(enav_maps_parse_line(l4, LEN(l4), &m), 0);
	assert_int_equal(m.path_len, 6);
	assert_memory_equal(m.path, "[vdso]", 6);

	assert_int_equal(enav_maps_parse_line(l5, LEN(l5), &m), 0);
	assert_null(m.path);
	assert_true(m.write && !m.exec && m.inode == 0);
	assert_int_equal(enav_maps_parse_line(l6, LEN(l6), &m), 0);
	assert_null(m.path);
	assert_true(!m.read && !m.write && !m.exec);

	static const char *bad[] = {
	    "",
	    "\n",
	    "zz-10 r-xp 00000000 00:00 0",
	    "2000-1000 r-xp 00000000 00:00 0",				 /* start >= end */
	    "1000-1000 r-xp 00000000 00:00 0",				 /* empty */
	    "1000-2000 rwxq 00000000 00:00 0",				 /* bad sharing flag */
	    "1000-2000 r-x 00000000 00:00 0",				 /* short perms */
	    "1000-2000 r-xp 00000000 00:00",				 /* no inode */
	    "1000-2000 r-xp 00000000 0000 0",				 /* no ':' in dev */
	    "1000-2000 r-xp 00000000 00:00 12x /bin",			 /* inode not a number */
	    "11112222333344445-11112222333344446 r-xp 00000000 00:00 0", /* 17 digits */
	    "1000-2000 r-xp 00000000 00:00 99999999999999999999999 /x",	 /* inode overflow */
	    "1000 2000 r-xp 00000000 00:00 0",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		FAIL_IF(enav_maps_parse_line(bad[i], strlen(bad[i]), &m) == 0,
			"maps line %zu accepted: \"%s\"\n", i, bad[i]);
}

static void test_kallsyms_parser(void **state)
{
	struct enav_kallsyms_line k;
	static const char l1[] = "ffffffff81000000 T _stext\n";
	static const char l2[] = "ffffffffc0a01000 t foo_init\t[foo_mod]";
	static const char l3[] = "0000000000000000 T startup_64";
	static const char l4[] = "ffffffffc0201000 t bpf_prog_6deef7357e7b4530_sd_fw_egress\t[bpf]";

	assert_int_equal(enav_kallsyms_parse_line(l1, LEN(l1), &k), 0);
	assert_true(k.addr == 0xffffffff81000000ull && k.type == 'T' && k.module == NULL);
	assert_int_equal(k.name_len, 6);
	assert_memory_equal(k.name, "_stext", 6);
	assert_true(enav_kallsyms_is_text(k.type));

	assert_int_equal(enav_kallsyms_parse_line(l2, LEN(l2), &k), 0);
	assert_true(k.type == 't' && k.module_len == 7);
	assert_memory_equal(k.name, "foo_init", k.name_len);
	assert_memory_equal(k.module, "foo_mod", 7);

	assert_int_equal(enav_kallsyms_parse_line(l3, LEN(l3), &k), 0);
	assert_true(k.addr == 0); /* no CAP_SYSLOG: the caller ignores it */

	assert_int_equal(enav_kallsyms_parse_line(l4, LEN(l4), &k), 0);
	assert_memory_equal(k.module, "bpf", 3);

	assert_false(enav_kallsyms_is_text('D'));
	assert_false(enav_kallsyms_is_text('r'));
	assert_true(enav_kallsyms_is_text('w') && enav_kallsyms_is_text('W'));

	static const char *bad[] = {
	    "",
	    "ffff T",
	    "ffff T ",
	    "xyz T a",
	    "ffff TT a",
	    "ffff 1 a",
	    "ffffffff81000000 T name\t[mod",
	    "ffffffff81000000 T name\t[]",
	    "ffffffff81000000 T name [mod]",
	    "ffffffff81000000 T name\tmod",
	    "1ffffffff81000000 T toolong",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		FAIL_IF(enav_kallsyms_parse_line(bad[i], strlen(bad[i]), &k) == 0,
			"kallsyms line %zu accepted: \"%s\"\n", i, bad[i]);
}

static void test_perf_map_parser(void **state)
{
	struct enav_perf_map_line p;
	static const char l1[] = "7f0000001000 40 Interpreted foo.bar\n";
	static const char l2[] = "0x7f0000001000 0x40 LazyCompile:~foo bar.js:1  \r";
	static const char l3[] = "7F0000001000   A java.lang.String::hashCode";

	assert_int_equal(enav_perf_map_parse_line(l1, LEN(l1), &p), 0);
	assert_true(p.start == 0x7f0000001000ull && p.size == 0x40);
	assert_int_equal(p.name_len, strlen("Interpreted foo.bar"));
	assert_memory_equal(p.name, "Interpreted foo.bar", p.name_len);

	assert_int_equal(enav_perf_map_parse_line(l2, LEN(l2), &p), 0);
	assert_true(p.start == 0x7f0000001000ull && p.size == 0x40);
	assert_int_equal(p.name_len, strlen("LazyCompile:~foo bar.js:1"));
	assert_memory_equal(p.name, "LazyCompile:~foo bar.js:1", p.name_len);

	assert_int_equal(enav_perf_map_parse_line(l3, LEN(l3), &p), 0);
	assert_true(p.size == 10);

	static const char *bad[] = {
	    "",
	    "7f0000001000",
	    "7f0000001000 40",
	    "7f0000001000 40 ",
	    "7f0000001000 0 zero_size",
	    "ffffffffffffffff 2 overflow",
	    "g 1 x",
	    "0x 1 x",
	    "1000 0x name_without_size",
	    "1000\t40 tab_separated",
	    "11112222333344445 1 toolong",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		FAIL_IF(enav_perf_map_parse_line(bad[i], strlen(bad[i]), &p) == 0,
			"perf map line %zu accepted: \"%s\"\n", i, bad[i]);
}

struct lines {
	char got[8][32];
	int n;
};

static int collect(void *ctx, const char *line, size_t len)
{
	struct lines *l = ctx;

	if (l->n < 8)
		snprintf(l->got[l->n++], sizeof(l->got[0]), "%.*s", (int)len, line);
	return 0;
}

static void test_read_lines(void **state)
{
	char path[PATH_MAX];
	struct lines l = {0};

	snprintf(path, sizeof(path), "%s/lines", g_tmp);
	write_file(path, "a\nthis line is far too long for the reader\nbb\n\nlast");
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(enav_read_lines(fd, 8, 1 << 20, collect, &l), 0);
	close(fd);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.got[0], "a");
	assert_string_equal(l.got[1], "bb");
	assert_string_equal(l.got[2], "");
	assert_string_equal(l.got[3], "last");

	/* The byte cap stops reading mid-file. */
	memset(&l, 0, sizeof(l));
	fd = open(path, O_RDONLY);
	assert_int_equal(enav_read_lines(fd, 64, 2, collect, &l), 0);
	close(fd);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.got[0], "a");
}

/* ---- ELF match rules on a hand-built table ---------------------------------------- */

static void test_elf_lookup_rules(void **state)
{
	static char names[] = "A\0B\0C\0D\0E\0F\0G";
	struct enav_elf_sym syms[] = {
	    {.value = 0x1000, .size = 0x100, .name = 0},  /* A [1000,1100) */
	    {.value = 0x1200, .size = 0, .name = 2},	  /* B unsized */
	    {.value = 0x1300, .size = 0x10, .name = 4},	  /* C [1300,1310) */
	    {.value = 0x2000, .size = 0x1000, .name = 6}, /* D [2000,3000) */
	    {.value = 0x2100, .size = 0x10, .name = 8},	  /* E nested in D */
	    {.value = 0x2300, .size = 0, .name = 10},	  /* F unsized, inside D */
	    {.value = 0x4000, .size = 0, .name = 12},	  /* G unsized, last */
	};
	struct enav_elf_symtab t = {.syms = syms, .n_syms = 7, .names = names};
	uint64_t cover = 0, off = 0;

	for (unsigned i = 0; i < 7; i++) {
		if (syms[i].size && syms[i].value + syms[i].size > cover)
			cover = syms[i].value + syms[i].size;
		syms[i].cover_end = cover;
	}
	static const struct {
		uint64_t vaddr;
		const char *name;
		uint64_t off;
	} cases[] = {
	    {0x0fff, NULL, 0},	   {0x1000, "A", 0},	 {0x10ff, "A", 0xff}, {0x1100, NULL, 0},
	    {0x11ff, NULL, 0},	   {0x1200, "B", 0},	 {0x1250, "B", 0x50}, {0x1300, "C", 0},
	    {0x1310, NULL, 0},	   {0x1fff, NULL, 0},	 {0x2050, "D", 0x50}, {0x2105, "E", 5},
	    {0x2200, "D", 0x200},  {0x2310, "D", 0x310}, {0x3000, NULL, 0},   {0x4000, "G", 0},
	    {0x9000, "G", 0x5000},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = enav_elf_lookup(&t, cases[i].vaddr, &off);
		FAIL_IF((got == NULL) != (cases[i].name == NULL) ||
			    (got && strcmp(got, cases[i].name) != 0) ||
			    (got && off != cases[i].off),
			"vaddr 0x%" PRIx64 ": got %s+0x%" PRIx64 ", want %s+0x%" PRIx64 "\n",
			cases[i].vaddr, got ? got : "(null)", off,
			cases[i].name ? cases[i].name : "(null)", cases[i].off);
	}

	/* Segments: executable ones are tried first, offsets outside any fail. */
	struct enav_elf_symtab seg = {.n_segs = 2};
	uint64_t v = 0;
	seg.segs[0] = (struct enav_elf_seg){.offset = 0, .filesz = 0x2000, .vaddr = 0x400000};
	seg.segs[1] = (struct enav_elf_seg){
	    .offset = 0x1000, .filesz = 0x3000, .vaddr = 0x501000, .exec = true};
	assert_true(enav_elf_offset_to_vaddr(&seg, 0x1800, &v));
	assert_true(v == 0x501800);
	assert_true(enav_elf_offset_to_vaddr(&seg, 0x800, &v));
	assert_true(v == 0x400800);
	assert_false(enav_elf_offset_to_vaddr(&seg, 0x4000, &v));
}

/* Truncated and corrupted copies of a real ELF load or fail, never crash. */
static void test_elf_garbage(void **state)
{
	int fd = open("/proc/self/exe", O_RDONLY);
	struct stat st;

	assert_true(fd >= 0 && fstat(fd, &st) == 0);
	size_t len = (size_t)st.st_size;
	unsigned char *buf = malloc(len);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, len, 0), (ssize_t)len);
	close(fd);

	/* The intact file: build id + symbols. */
	struct enav_elf *e = enav_elf_open_mem(buf, len);
	struct enav_elf_symtab *t = NULL;
	assert_non_null(e);
	assert_int_equal(enav_elf_load(e, 1000000, &t), 0);
	assert_true(t->n_syms > 100 && !t->from_dynsym && t->build_id[0] != '\0');
	enav_elf_symtab_free(t);
	/* A cap of 10 symbols keeps 10 and says so. */
	assert_int_equal(enav_elf_load(e, 10, &t), 0);
	assert_true(t->n_syms <= 10 && t->truncated);
	enav_elf_symtab_free(t);
	enav_elf_close(e);

	static const size_t cuts[] = {0, 1, 16, 52, 63, 64, 65, 200, 4096, 65536};
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		unsigned char *copy = malloc(cuts[i] + 1);
		memcpy(copy, buf, cuts[i]);
		e = enav_elf_open_mem(copy, cuts[i]);
		if (e) {
			if (enav_elf_load(e, 1000, &t) == 0)
				enav_elf_symtab_free(t);
			enav_elf_close(e);
		}
		free(copy);
	}
	/* Flip bytes across the headers and the section header table. */
	unsigned char *copy = malloc(len);
	Elf64_Off shoff = ((Elf64_Ehdr *)buf)->e_shoff;
	unsigned seed = 12345;
	for (int round = 0; round < 200; round++) {
		memcpy(copy, buf, len);
		for (int k = 0; k < 8; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t pos = round % 2 ? seed % 256 : shoff + seed % (len - shoff);
			copy[pos] ^= (unsigned char)(seed >> 16);
		}
		e = enav_elf_open_mem(copy, len);
		if (e) {
			if (enav_elf_load(e, 1000, &t) == 0)
				enav_elf_symtab_free(t);
			enav_elf_close(e);
		}
	}
	free(copy);
	free(buf);
}

/* ---- kernel -------------------------------------------------------------------- */

static void test_kernel_fixture(void **state)
{
	char path[PATH_MAX];
	struct enav_frame f;
	struct enav_symbolizer_stats st;

	snprintf(path, sizeof(path), "%s/kallsyms", g_tmp);
	write_file(path, "0000000000000000 A fixed_percpu_data\n"
			 "0000000000000000 T zero_text\n"
			 "ffffffff81000000 T _stext\n"
			 "ffffffff81000100 T func_a\n"
			 "ffffffff81000200 t func_b\n"
			 "ffffffff81000200 t func_b_alias\n"
			 "ffffffff81000300 T _etext\n"
			 "ffffffff82000000 D some_data\n"
			 "this is not a kallsyms line\n"
			 "ffffffffc0001000 t mod_fn\t[mymod]\n"
			 "ffffffffc0001100 t mod_fn2\t[mymod]\n"
			 "ffffffffc0002000 d mod_data\t[mymod]\n"
			 "ffffffffc0003000 t bpf_prog_abc_handler\t[bpf]\n");
	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .kallsyms_path = path,
	});
	assert_non_null(s);
	static const struct {
		uint64_t addr;
		const char *name;
		uint64_t off;
	} cases[] = {
	    {0xffffffff80ffffffull, NULL, 0},
	    {0xffffffff81000000ull, "_stext", 0},
	    {0xffffffff81000110ull, "func_a", 0x10},
	    {0xffffffff810002ffull, "func_b", 0xff},
	    {0xffffffff81000300ull, NULL, 0}, /* _etext */
	    {0xffffffff81500000ull, NULL, 0},
	    {0xffffffff82000010ull, NULL, 0},
	    {0xffffffffc0001004ull, "mod_fn [mymod]", 4},
	    {0xffffffffc0001104ull, "mod_fn2 [mymod]", 4},
	    {0xffffffffc0002010ull, NULL, 0}, /* module data */
	    {0xffffffffc0003000ull, "bpf_prog_abc_handler [bpf]", 0},
	    {0xffffffffc0003001ull, NULL, 0}, /* beyond the last symbol */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool ok = enav_symbolizer_kernel(s, cases[i].addr, &f);
		FAIL_IF(ok != (cases[i].name != NULL) || !f.kernel || f.address != cases[i].addr ||
			    strcmp(f.map_path, "[kernel.kallsyms]") != 0 ||
			    (ok && (strcmp(f.function, cases[i].name) != 0 ||
				    f.function_offset != cases[i].off)) ||
			    (!ok && f.function != NULL),
			"kernel 0x%" PRIx64 ": got %s+0x%" PRIx64 ", want %s\n", cases[i].addr,
			f.function ? f.function : "(null)", f.function_offset,
			cases[i].name ? cases[i].name : "(null)");
	}
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.kernel_symbols, 6); /* _stext func_a func_b mod_fn mod_fn2 bpf */
	assert_int_equal(st.resolved, 6);
	assert_int_equal(st.unresolved, 6);
	enav_symbolizer_free(s);

	/* Without CAP_SYSLOG every address is 0: nothing resolves. */
	write_file(path, "0000000000000000 T _stext\n0000000000000000 t func\n");
	s = enav_symbolizer_new(&(struct enav_symbolizer_config){.kallsyms_path = path});
	assert_false(enav_symbolizer_kernel(s, 0xffffffff81000000ull, &f));
	assert_null(f.function);
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.kernel_symbols, 0);
	enav_symbolizer_free(s);

	/* A missing file: unresolved, no crash. */
	snprintf(path, sizeof(path), "%s/no_such_kallsyms", g_tmp);
	s = enav_symbolizer_new(&(struct enav_symbolizer_config){.kallsyms_path = path});
	assert_false(enav_symbolizer_kernel(s, 0xffffffff81000000ull, &f));
	enav_symbolizer_free(s);
}

/* ---- user: fake proc root --------------------------------------------------------- */

#define FAKE_PID 4242

/* <tmp>/proc/PID/{maps,root/opt/enav test/bin/prog} with this binary's
 * executable mapping renamed (prog is a copy of exe, by default this binary),
 * plus anonymous and pseudo mappings. */
static void build_fake_proc_of(char *proc_root, size_t cap, int pid, const char *exe)
{
	char line[PATH_MAX + 256], path[PATH_MAX], maps[4 * PATH_MAX];
	struct enav_maps_line ml;
	uint64_t fn = addr_of(enav_test_known_function);

	snprintf(proc_root, cap, "%s/proc", g_tmp);
	snprintf(path, sizeof(path), "%s/%d/root/opt/enav test/bin", proc_root, pid);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/%d/root/opt/enav test/bin/prog", proc_root, pid);
	copy_file(exe, path);

	self_maps_line(fn, line, sizeof(line));
	assert_int_equal(enav_maps_parse_line(line, strlen(line), &ml), 0);
	/* The maps line names the file in the fake root: the symbolizer opens
	 * only the inode (and device) a maps line names. */
	struct stat cst;
	assert_int_equal(stat(path, &cst), 0);
	ml.inode = (uint64_t)cst.st_ino;
	ml.dev_major = major(cst.st_dev);
	ml.dev_minor = minor(cst.st_dev);
	snprintf(maps, sizeof(maps),
		 "100000-101000 r-xp 00000000 00:00 0 \n"
		 "200000-201000 r-xp 00000000 00:00 0                  [vdso]\n"
		 "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64 " %02x:%02x %" PRIu64
		 "    /opt/enav test/bin/prog (deleted)\n"
		 "%" PRIx64 "-%" PRIx64 " rw-p 00000000 00:00 0  [heap]\n",
		 ml.start, ml.end, ml.offset, ml.dev_major, ml.dev_minor, ml.inode, ml.end,
		 ml.end + 0x1000);
	snprintf(path, sizeof(path), "%s/%d/maps", proc_root, pid);
	write_file(path, maps);
}

static void build_fake_proc(char *proc_root, size_t cap)
{
	build_fake_proc_of(proc_root, cap, FAKE_PID, "/proc/self/exe");
}

static void test_fake_proc_root(void **state)
{
	char proc_root[PATH_MAX], path[PATH_MAX];
	struct enav_frame f;
	struct enav_symbolizer_stats st;
	uint64_t fn = addr_of(enav_test_known_function);

	build_fake_proc(proc_root, sizeof(proc_root));
	snprintf(path, sizeof(path), "%s/perf-%d.map", g_tmp, FAKE_PID);
	write_file(path, "100010 20 jit_fn_one\n"
			 "0x100100 0x10 JIT two words\n"
			 "not a perf map line\n"
			 "300000 10 outside_any_mapping\n");
	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .proc_root = proc_root,
	    .perf_map_dir = g_tmp,
	});
	assert_non_null(s);

	/* This binary's function through the copy in the fake root. */
	assert_true(enav_symbolizer_user(s, FAKE_PID, fn + 2, &f));
	assert_string_equal(f.function, "enav_test_known_function");
	assert_true(f.function_offset == 2 && f.address == fn + 2 && !f.kernel);
	assert_string_equal(f.map_path, "/opt/enav test/bin/prog");
	assert_true(f.map_start <= fn && fn < f.map_limit);
	assert_non_null(f.build_id);
	assert_int_equal(strlen(f.build_id) % 2, 0);
	assert_true(strspn(f.build_id, "0123456789abcdef") == strlen(f.build_id));
	assert_true(enav_symbolizer_user(s, FAKE_PID, addr_of(enav_test_other_function), &f));
	assert_string_equal(f.function, "enav_test_other_function");
	assert_true(f.function_offset == 0);

	/* JIT code in an anonymous mapping, from the perf map. */
	assert_true(enav_symbolizer_user(s, FAKE_PID, 0x100015, &f));
	assert_string_equal(f.function, "jit_fn_one");
	assert_true(f.function_offset == 5);
	assert_string_equal(f.map_path, "[anon]");
	assert_true(f.map_start == 0x100000 && f.map_limit == 0x101000);
	assert_true(enav_symbolizer_user(s, FAKE_PID, 0x10010f, &f));
	assert_string_equal(f.function, "JIT two words");
	assert_false(enav_symbolizer_user(s, FAKE_PID, 0x100050, &f));
	assert_null(f.function);
	assert_string_equal(f.map_path, "[anon]");
	/* Not in any mapping but in the perf map. */
	assert_true(enav_symbolizer_user(s, FAKE_PID, 0x300004, &f));
	assert_string_equal(f.function, "outside_any_mapping");
	assert_null(f.map_path);
	/* A pseudo mapping keeps its name; no function is invented. */
	assert_false(enav_symbolizer_user(s, FAKE_PID, 0x200010, &f));
	assert_null(f.function);
	assert_string_equal(f.map_path, "[vdso]");
	assert_true(f.map_start == 0x200000);
	/* In no mapping at all. */
	assert_false(enav_symbolizer_user(s, FAKE_PID, 0x400000, &f));
	assert_null(f.function);
	assert_null(f.map_path);
	assert_true(f.address == 0x400000);

	/* The perf map is reloaded when it changes (checked once a second). */
	write_file(path, "100010 20 jit_fn_recompiled\n");
	struct timespec ts[2] = {{.tv_sec = 1000000}, {.tv_sec = 1000000}};
	assert_int_equal(utimensat(AT_FDCWD, path, ts, 0), 0);
	usleep(1100 * 1000);
	assert_true(enav_symbolizer_user(s, FAKE_PID, 0x100015, &f));
	assert_string_equal(f.function, "jit_fn_recompiled");

	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.snapshots, 1);
	assert_int_equal(st.perf_map_loads, 2);
	assert_int_equal(st.elf_loads, 1);
	assert_int_equal(st.elf_failures, 0);
	assert_int_equal(st.processes, 1);
	assert_int_equal(st.elf_files, 1);
	assert_true(st.resolved == 6 && st.unresolved == 3);

	/* A refresh keeps the identity of unchanged mappings: the file is not
	 * reopened (here it could not be). */
	snprintf(path, sizeof(path), "%s/%d/root/opt/enav test/bin/prog", proc_root, FAKE_PID);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(enav_symbolizer_snapshot(s, FAKE_PID), 0);
	assert_true(enav_symbolizer_user(s, FAKE_PID, fn, &f));
	assert_string_equal(f.function, "enav_test_known_function");
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.snapshots, 2);
	assert_int_equal(st.elf_failures, 0);
	assert_int_equal(st.elf_loads, 1);

	/* A pid without a maps file: failure counted, nothing resolved. */
	assert_false(enav_symbolizer_user(s, 777, fn, &f));
	assert_null(f.map_path);
	assert_int_equal(enav_symbolizer_snapshot(s, 778), -ENOENT);
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.snapshot_failures, 2);
	enav_symbolizer_free(s);
}

/* A perf map that is a symlink, a FIFO or another user's file is not read. */
static void test_perf_map_untrusted(void **state)
{
	char proc_root[PATH_MAX], path[PATH_MAX], target[PATH_MAX];
	struct enav_frame f;
	struct enav_symbolizer_stats st;

	snprintf(proc_root, sizeof(proc_root), "%s/proc", g_tmp);
	for (int pid = 501; pid <= 504; pid++) {
		snprintf(path, sizeof(path), "%s/%d", proc_root, pid);
		mkdirs(path);
		snprintf(path, sizeof(path), "%s/%d/maps", proc_root, pid);
		write_file(path, "100000-101000 r-xp 00000000 00:00 0\n");
	}
	snprintf(target, sizeof(target), "%s/real.map", g_tmp);
	write_file(target, "100000 100 planted\n");
	snprintf(path, sizeof(path), "%s/perf-501.map", g_tmp);
	assert_int_equal(symlink(target, path), 0);
	snprintf(path, sizeof(path), "%s/perf-502.map", g_tmp);
	assert_int_equal(mkfifo(path, 0600), 0);
	snprintf(path, sizeof(path), "%s/perf-503.map", g_tmp);
	write_file(path, "100000 100 other_users\n");
	assert_int_equal(chown(path, 12345, 12345), 0);
	snprintf(path, sizeof(path), "%s/perf-504.map", g_tmp);
	write_file(path, "100000 100 trusted\n");

	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .proc_root = proc_root,
	    .perf_map_dir = g_tmp,
	});
	for (uint32_t pid = 501; pid <= 503; pid++) {
		assert_false(enav_symbolizer_user(s, pid, 0x100010, &f));
		assert_null(f.function);
		assert_string_equal(f.map_path, "[anon]");
	}
	assert_true(enav_symbolizer_user(s, 504, 0x100010, &f));
	assert_string_equal(f.function, "trusted");
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.perf_map_loads, 1);
	enav_symbolizer_free(s);
}

/* ---- user: the real /proc ------------------------------------------------------ */

static void test_self_real_proc(void **state)
{
	struct enav_frame f;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .perf_map_dir = g_tmp,
	});
	uint32_t pid = (uint32_t)getpid();

	assert_true(n > 0);
	exe[n] = '\0';
	assert_non_null(s);
	uint64_t fn = addr_of(enav_test_known_function);
	assert_true(enav_symbolizer_user(s, pid, fn + 1, &f));
	assert_string_equal(f.function, "enav_test_known_function");
	assert_true(f.function_offset == 1);
	assert_string_equal(f.map_path, exe);
	assert_non_null(f.build_id);

	/* A libc function by name. */
	void *gp = dlsym(RTLD_DEFAULT, "getpid");
	assert_non_null(gp);
	assert_true(enav_symbolizer_user(s, pid, (uint64_t)(uintptr_t)gp, &f));
	FAIL_IF(strcmp(f.function, "getpid") != 0, "getpid resolved as %s in %s\n", f.function,
		f.map_path);
	assert_true(f.function_offset == 0);
	assert_non_null(strstr(f.map_path, "libc"));

	/* The zero page is never mapped. */
	assert_false(enav_symbolizer_user(s, pid, 0x10, &f));
	assert_null(f.function);
	assert_null(f.map_path);
	enav_symbolizer_free(s);
}

/* ---- user: a process that has exited -------------------------------------------- */

static void check_after_exit(uint32_t max_elf_files)
{
	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .perf_map_dir = g_tmp,
	    .max_elf_files = max_elf_files,
	});
	struct enav_frame f;
	char path[64];
	int status;
	pid_t child = fork();

	assert_true(child >= 0);
	if (child == 0) {
		for (;;)
			pause();
		_exit(0);
	}
	assert_non_null(s);
	assert_int_equal(enav_symbolizer_snapshot(s, (uint32_t)child), 0);
	assert_int_equal(kill(child, SIGKILL), 0);
	assert_int_equal(waitpid(child, &status, 0), child);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)child);
	assert_int_equal(access(path, F_OK), -1);

	struct enav_symbolizer_stats st;
	enav_symbolizer_get_stats(s, &st);
	uint64_t loads = st.elf_loads;
	uint64_t fn = addr_of(enav_test_other_function);
	assert_true(enav_symbolizer_user(s, (uint32_t)child, fn + 3, &f));
	assert_string_equal(f.function, "enav_test_other_function");
	assert_true(f.function_offset == 3);
	assert_non_null(f.map_path);
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.snapshots, 1);
	/* With one ELF kept, this binary's table was evicted by the libraries
	 * the snapshot loaded after it: it was reloaded from the path. */
	assert_int_equal(st.elf_loads, max_elf_files == 1 ? loads + 1 : loads);
	enav_symbolizer_free(s);
}

static void test_snapshot_survives_exit(void **state)
{
	check_after_exit(0); /* the symbol table stays cached */
	check_after_exit(1); /* evicted: reopened by path, inode-checked */
}

/* ---- cache caps ----------------------------------------------------------------- */

static void test_cache_caps(void **state)
{
	struct enav_symbolizer_stats st;
	struct enav_frame f;
	char proc_root[PATH_MAX], path[PATH_MAX];
	uint32_t pid = (uint32_t)getpid();

	/* One ELF file kept: this process maps several, so some are evicted. */
	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .perf_map_dir = g_tmp,
	    .max_elf_files = 1,
	});
	assert_int_equal(enav_symbolizer_snapshot(s, pid), 0);
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.elf_files, 1);
	assert_true(st.elf_loads >= 2);
	assert_int_equal(st.elf_evictions, st.elf_loads - 1);
	uint64_t loads = st.elf_loads;
	assert_true(enav_symbolizer_user(s, pid, addr_of(enav_test_known_function), &f));
	assert_string_equal(f.function, "enav_test_known_function");
	assert_true(
	    enav_symbolizer_user(s, pid, (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "getpid"), &f));
	assert_true(enav_symbolizer_user(s, pid, addr_of(enav_test_known_function), &f));
	assert_string_equal(f.function, "enav_test_known_function");
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.elf_files, 1);
	assert_true(st.elf_loads >= loads + 2);
	assert_int_equal(st.elf_evictions, st.elf_loads - 1);
	enav_symbolizer_free(s);

	/* Two processes kept out of three. */
	snprintf(proc_root, sizeof(proc_root), "%s/proc3", g_tmp);
	for (int p = 1001; p <= 1003; p++) {
		snprintf(path, sizeof(path), "%s/%d", proc_root, p);
		mkdirs(path);
		snprintf(path, sizeof(path), "%s/%d/maps", proc_root, p);
		write_file(path, "100000-101000 r-xp 00000000 00:00 0\n");
	}
	s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .proc_root = proc_root,
	    .perf_map_dir = g_tmp,
	    .max_processes = 2,
	});
	for (uint32_t p = 1001; p <= 1003; p++) {
		assert_false(enav_symbolizer_user(s, p, 0x100010, &f));
		assert_string_equal(f.map_path, "[anon]");
	}
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.processes, 2);
	assert_int_equal(st.process_evictions, 1);
	assert_int_equal(st.snapshots, 3);
	/* 1001 was the least recently used: it comes back with a new snapshot. */
	assert_false(enav_symbolizer_user(s, 1001, 0x100010, &f));
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.snapshots, 4);
	assert_int_equal(st.process_evictions, 2);
	assert_int_equal(st.processes, 2);
	enav_symbolizer_free(s);

	/* max_maps_per_proc: only the first executable mappings are kept. */
	snprintf(path, sizeof(path), "%s/1001/maps", proc_root);
	write_file(path, "100000-101000 r-xp 00000000 00:00 0\n"
			 "101000-102000 rw-p 00000000 00:00 0\n"
			 "102000-103000 r-xp 00000000 00:00 0\n"
			 "103000-104000 r-xp 00000000 00:00 0\n");
	s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .proc_root = proc_root,
	    .perf_map_dir = g_tmp,
	    .max_maps_per_proc = 2,
	});
	assert_false(enav_symbolizer_user(s, 1001, 0x102010, &f));
	assert_string_equal(f.map_path, "[anon]");
	assert_false(enav_symbolizer_user(s, 1001, 0x103010, &f));
	assert_null(f.map_path);
	assert_false(enav_symbolizer_user(s, 1001, 0x101010, &f)); /* not executable */
	assert_null(f.map_path);
	enav_symbolizer_free(s);
}

/* ---- separate debug files --------------------------------------------------- */

/* Runs a shell command built from fmt; fails the test when it does not exit 0. */
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

static size_t file_build_id(const char *path, uint8_t *bid)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct enav_elf *e = enav_elf_open_fd(fd);
	assert_non_null(e);
	size_t n = enav_elf_build_id(e, bid, ENAV_ELF_BUILD_ID_MAX);
	enav_elf_close(e);
	close(fd);
	return n;
}

/* Flips a byte of the build id note in the file at path. */
static void tamper_build_id(const char *path, const uint8_t *bid, size_t bid_len)
{
	int fd = open(path, O_RDWR);
	struct stat st;

	assert_true(fd >= 0 && fstat(fd, &st) == 0);
	unsigned char *buf = malloc((size_t)st.st_size);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)st.st_size, 0), st.st_size);
	unsigned char *hit = memmem(buf, (size_t)st.st_size, bid, bid_len);
	assert_non_null(hit);
	hit[bid_len - 1] ^= 0xff;
	assert_int_equal(pwrite(fd, hit + bid_len - 1, 1, hit + bid_len - 1 - buf), 1);
	free(buf);
	close(fd);
}

/* <root>/.build-id/xx/rest.debug for the build id bid; returns its path. */
static void build_id_path(const char *root, const uint8_t *bid, size_t n, char *out, size_t cap)
{
	char hex[2 * ENAV_ELF_BUILD_ID_MAX + 1], dir[PATH_MAX];

	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", bid[i]);
	snprintf(dir, sizeof(dir), "%s/.build-id/%.2s", root, hex);
	mkdirs(dir);
	snprintf(out, cap, "%s/%s.debug", dir, hex + 2);
}

/* Resolves the static function in the fake process pid under proc_root with
 * debug_dir; returns the stats.  want: whether it must resolve. */
static void check_static(const char *proc_root, int pid, const char *debug_dir, bool want,
			 uint64_t want_debug_files)
{
	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .proc_root = proc_root,
	    .perf_map_dir = g_tmp,
	    .debug_dir = debug_dir,
	});
	uint64_t fn = addr_of(enav_test_static_function);
	struct enav_symbolizer_stats st;
	struct enav_frame f;

	assert_non_null(s);
	bool ok = enav_symbolizer_user(s, (uint32_t)pid, fn + 1, &f);
	FAIL_IF(ok != want, "debug_dir \"%s\": static function resolved as %s, want %s\n",
		debug_dir, f.function ? f.function : "(null)", want ? "a name" : "none");
	if (want) {
		assert_string_equal(f.function, "enav_test_static_function");
		assert_true(f.function_offset == 1);
		/* Other functions of the binary come from the same table. */
		assert_true(
		    enav_symbolizer_user(s, (uint32_t)pid, addr_of(enav_test_other_function), &f));
		assert_string_equal(f.function, "enav_test_other_function");
	} else {
		/* Unresolved: the address and mapping are kept, nothing invented. */
		assert_null(f.function);
		assert_true(f.address == fn + 1);
		assert_string_equal(f.map_path, "/opt/enav test/bin/prog");
		assert_true(f.map_start <= fn && fn < f.map_limit);
		assert_non_null(f.build_id);
	}
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.elf_loads, 1);
	assert_int_equal(st.elf_failures, 0);
	assert_int_equal(st.debug_files, want_debug_files);
	enav_symbolizer_free(s);
}

static void test_debug_file_build_id(void **state)
{
	char bin[PATH_MAX], dbg[PATH_MAX], stripped[PATH_MAX], proc_root[PATH_MAX];
	char root[PATH_MAX], path[PATH_MAX];
	uint8_t bid[ENAV_ELF_BUILD_ID_MAX];

	FAIL_IF(system("command -v objcopy >/dev/null 2>&1") != 0,
		"objcopy (binutils) not found: it builds the debug file fixture\n");
	snprintf(bin, sizeof(bin), "%s/bin", g_tmp);
	snprintf(dbg, sizeof(dbg), "%s/bin.debug", g_tmp);
	snprintf(stripped, sizeof(stripped), "%s/stripped", g_tmp);
	copy_file("/proc/self/exe", bin);
	run("objcopy --only-keep-debug '%s' '%s'", bin, dbg);
	run("objcopy --strip-all '%s' '%s'", bin, stripped);
	size_t n = file_build_id(stripped, bid);
	assert_true(n >= 2);
	uint8_t dbid[ENAV_ELF_BUILD_ID_MAX];
	assert_int_equal(file_build_id(dbg, dbid), n);
	assert_memory_equal(bid, dbid, n);
	build_fake_proc_of(proc_root, sizeof(proc_root), FAKE_PID, stripped);

	/* The stripped copy alone: no .symtab, the static function is unknown. */
	snprintf(root, sizeof(root), "%s/empty", g_tmp);
	mkdirs(root);
	check_static(proc_root, FAKE_PID, root, false, 0);
	/* Its debug file where the build id says. */
	snprintf(root, sizeof(root), "%s/dbg", g_tmp);
	build_id_path(root, bid, n, path, sizeof(path));
	copy_file(dbg, path);
	check_static(proc_root, FAKE_PID, root, true, 1);
	/* Disabled. */
	check_static(proc_root, FAKE_PID, "", false, 0);
	/* At the right path but of another build (its build id differs). */
	snprintf(root, sizeof(root), "%s/other", g_tmp);
	build_id_path(root, bid, n, path, sizeof(path));
	copy_file(dbg, path);
	tamper_build_id(path, bid, n);
	check_static(proc_root, FAKE_PID, root, false, 0);
	/* Not a regular file: a FIFO (never opened for reading) or a directory. */
	snprintf(root, sizeof(root), "%s/fifo", g_tmp);
	build_id_path(root, bid, n, path, sizeof(path));
	assert_int_equal(mkfifo(path, 0600), 0);
	check_static(proc_root, FAKE_PID, root, false, 0);
	snprintf(root, sizeof(root), "%s/dir", g_tmp);
	build_id_path(root, bid, n, path, sizeof(path));
	mkdirs(path);
	check_static(proc_root, FAKE_PID, root, false, 0);
	/* Not an ELF file. */
	snprintf(root, sizeof(root), "%s/text", g_tmp);
	build_id_path(root, bid, n, path, sizeof(path));
	write_file(path, "not an ELF file\n");
	check_static(proc_root, FAKE_PID, root, false, 0);

	/* The loader directly: the debug file's table, PT_LOADs of the binary. */
	int fd = open(dbg, O_RDONLY), sfd = open(stripped, O_RDONLY);
	assert_true(fd >= 0 && sfd >= 0);
	struct enav_elf *d = enav_elf_open_fd(fd), *b = enav_elf_open_fd(sfd);
	struct enav_elf_symtab *t = NULL;
	assert_true(d && b);
	assert_int_equal(enav_elf_load(b, 1000000, &t), 0);
	assert_true(t->from_dynsym && !t->from_debug && t->n_segs > 0);
	uint32_t n_segs = t->n_segs, n_dyn = t->n_syms;
	uint8_t other[ENAV_ELF_BUILD_ID_MAX];
	memcpy(other, bid, n);
	other[0] ^= 1;
	assert_int_equal(enav_elf_load_debug(d, other, n, 1000000, t), 0);
	assert_true(t->from_dynsym && t->n_syms == n_dyn);
	assert_int_equal(enav_elf_load_debug(d, bid, n, 1000000, t), 1);
	assert_true(!t->from_dynsym && t->from_debug && t->n_segs == n_segs);
	assert_true(t->n_syms > n_dyn);
	enav_elf_symtab_free(t);
	enav_elf_close(d);
	enav_elf_close(b);
	close(fd);
	close(sfd);
}

static void test_debug_file_debuglink(void **state)
{
	char bin[PATH_MAX], dbg[PATH_MAX], linked[PATH_MAX], proc_root[PATH_MAX];
	char root[PATH_MAX], path[PATH_MAX], name[NAME_MAX + 1];
	uint32_t crc = 0;

	FAIL_IF(system("command -v objcopy >/dev/null 2>&1") != 0,
		"objcopy (binutils) not found: it builds the debug file fixture\n");
	snprintf(bin, sizeof(bin), "%s/bin", g_tmp);
	snprintf(dbg, sizeof(dbg), "%s/prog.dbg", g_tmp);
	snprintf(linked, sizeof(linked), "%s/linked", g_tmp);
	copy_file("/proc/self/exe", bin);
	run("objcopy --only-keep-debug '%s' '%s'", bin, dbg);
	run("cd '%s' && objcopy --strip-all --add-gnu-debuglink=prog.dbg bin linked", g_tmp);

	int fd = open(linked, O_RDONLY);
	struct enav_elf *e = enav_elf_open_fd(fd);
	assert_non_null(e);
	assert_true(enav_elf_debuglink(e, name, sizeof(name), &crc));
	assert_string_equal(name, "prog.dbg");
	assert_false(enav_elf_debuglink(e, name, 4, &crc)); /* does not fit */
	enav_elf_close(e);
	close(fd);

	build_fake_proc_of(proc_root, sizeof(proc_root), FAKE_PID, linked);
	snprintf(root, sizeof(root), "%s/empty", g_tmp);
	mkdirs(root);
	check_static(proc_root, FAKE_PID, root, false, 0);
	/* In the binary's directory inside the process's root, then in .debug/. */
	char bindir[PATH_MAX];
	snprintf(bindir, sizeof(bindir), "%s/%d/root/opt/enav test/bin", proc_root, FAKE_PID);
	snprintf(path, sizeof(path), "%s/prog.dbg", bindir);
	copy_file(dbg, path);
	check_static(proc_root, FAKE_PID, root, true, 1);
	check_static(proc_root, FAKE_PID, "", false, 0); /* disabled */
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/.debug", bindir);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/.debug/prog.dbg", bindir);
	copy_file(dbg, path);
	check_static(proc_root, FAKE_PID, root, true, 1);
	/* Same build id but one more byte: the CRC32 does not match. */
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	assert_int_equal(fputc(0, f), 0);
	assert_int_equal(fclose(f), 0);
	check_static(proc_root, FAKE_PID, root, false, 0);
	assert_int_equal(unlink(path), 0);
	/* Under debug_dir, at the binary's path. */
	snprintf(root, sizeof(root), "%s/dl", g_tmp);
	snprintf(path, sizeof(path), "%s/opt/enav test/bin", root);
	mkdirs(path);
	snprintf(path, sizeof(path), "%s/opt/enav test/bin/prog.dbg", root);
	copy_file(dbg, path);
	check_static(proc_root, FAKE_PID, root, true, 1);
}

/* ---- loading without the lock ------------------------------------------------------ */

/* This binary's load blocks in the hook until released (30 s at most). */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	char path[PATH_MAX];
	bool entered, released;
	unsigned loads; /* of this binary */
} slow = {.lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void slow_hook(const char *path)
{
	pthread_mutex_lock(&slow.lock);
	if (strcmp(path, slow.path) == 0 && slow.loads++ == 0) {
		slow.entered = true;
		pthread_cond_broadcast(&slow.cv);
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 30;
		while (!slow.released && pthread_cond_timedwait(&slow.cv, &slow.lock, &ts) == 0)
			;
	}
	pthread_mutex_unlock(&slow.lock);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *release_later(void *arg)
{
	usleep(300 * 1000);
	pthread_mutex_lock(&slow.lock);
	slow.released = true;
	pthread_cond_broadcast(&slow.cv);
	pthread_mutex_unlock(&slow.lock);
	return NULL;
}

static void *snapshot_self(void *arg)
{
	enav_symbolizer_snapshot(arg, (uint32_t)getpid());
	return NULL;
}

/*
 * While one thread is stuck loading a file, another thread's lookups run:
 * a frame in that same file waits for the load at most its read time budget
 * (2 s), then stays unresolved (counted, the file not loaded twice); kernel
 * frames and the caches' counters answer.
 */
static void test_load_outside_lock(void **state)
{
	struct enav_symbolizer_stats st;
	struct enav_frame f;
	uint32_t pid = (uint32_t)getpid();
	ssize_t n = readlink("/proc/self/exe", slow.path, sizeof(slow.path) - 1);
	assert_true(n > 0);
	slow.path[n] = '\0';
	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .perf_map_dir = g_tmp,
	});
	assert_non_null(s);
	enav_symbolizer_load_hook = slow_hook;
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, snapshot_self, s), 0);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	pthread_mutex_lock(&slow.lock);
	while (!slow.entered && pthread_cond_timedwait(&slow.cv, &slow.lock, &ts) == 0)
		;
	bool entered = slow.entered;
	pthread_mutex_unlock(&slow.lock);
	assert_true(entered);

	/* The snapshot thread holds no lock: these return within the bound. */
	uint64_t t0 = mono_ns();
	assert_false(enav_symbolizer_user(s, pid, addr_of(enav_test_known_function), &f));
	uint64_t waited = mono_ns() - t0;
	FAIL_IF(waited < 9500000000ull || waited > 20000000000ull,
		"waited %" PRIu64 " ns for another thread's load (bound: 10 s)\n", waited);
	assert_non_null(f.map_path);
	assert_string_equal(f.map_path, slow.path);
	enav_symbolizer_kernel(s, 0xffffffff81000000ull, &f);
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.elf_concurrent, 1);

	/* A load that ends within the bound serves the waiting lookup. */
	pthread_t rel;
	assert_int_equal(pthread_create(&rel, NULL, release_later, NULL), 0);
	assert_true(enav_symbolizer_user(s, pid, addr_of(enav_test_known_function), &f));
	assert_string_equal(f.function, "enav_test_known_function");
	pthread_join(rel, NULL);
	pthread_join(t, NULL);
	enav_symbolizer_load_hook = NULL;
	enav_symbolizer_get_stats(s, &st);
	assert_int_equal(st.elf_concurrent, 1);
	assert_int_equal(slow.loads, 1); /* loaded once, by the snapshot */
	enav_symbolizer_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_maps_parser),
	    cmocka_unit_test(test_kallsyms_parser),
	    cmocka_unit_test(test_perf_map_parser),
	    cmocka_unit_test_setup_teardown(test_read_lines, make_tmp, rm_tmp),
	    cmocka_unit_test(test_elf_lookup_rules),
	    cmocka_unit_test(test_elf_garbage),
	    cmocka_unit_test_setup_teardown(test_kernel_fixture, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_fake_proc_root, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_perf_map_untrusted, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_self_real_proc, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_snapshot_survives_exit, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_cache_caps, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_load_outside_lock, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_debug_file_build_id, make_tmp, rm_tmp),
	    cmocka_unit_test_setup_teardown(test_debug_file_debuglink, make_tmp, rm_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
