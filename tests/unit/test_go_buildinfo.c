/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the Go build information reader (src/features/profiling/
 * go_buildinfo.c, go_modinfo.c): the modinfo parser (mod, dep, replacements, build
 * settings and their quoting, missing fields, sentinels, CRLF, caps, NUL
 * bytes); hand-built ELF files in the pre-1.18 pointer layout (64-bit
 * little-endian, 32-bit big-endian) and the inline layout; a real binary
 * built here with `go build` from a module with a vendored third-party
 * dependency and a locally replaced module, compared line by line with
 * `go version -m`; a non-Go ELF; and corrupted copies of the real binary.
 *
 * `go` must be installed (scripts/deps.sh test): without it the real-binary
 * tests fail.  The build is offline: GOPROXY=off, -mod=vendor, GOCACHE,
 * GOPATH and HOME in a temporary directory.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "golang/go_buildinfo.h"

/* A regression check: print what went wrong, then fail. */
#define FAIL_IF(cond, ...)                                                                         \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_message(__VA_ARGS__);                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const unsigned char k_start[16] = {0x30, 0x77, 0xaf, 0x0c, 0x92, 0x74, 0x08, 0x02,
					  0x41, 0xe1, 0xc1, 0x07, 0xe6, 0xd6, 0x18, 0xe6};
static const unsigned char k_end[16] = {0xf9, 0x32, 0x43, 0x31, 0x86, 0x18, 0x20, 0x72,
					0x00, 0x82, 0x42, 0x10, 0x41, 0x16, 0xd8, 0xf2};

/* ---- helpers ------------------------------------------------------------------ */

static int parse(const char *text, size_t len, struct enav_go_buildinfo *b, char *err,
		 size_t errlen)
{
	memset(b, 0xa5, sizeof(*b)); /* the parser must not read *out */
	return enav_go_buildinfo_parse_modinfo(text, len, b, err, errlen);
}

static void expect_zeroed(const struct enav_go_buildinfo *b)
{
	static const struct enav_go_buildinfo zero;

	FAIL_IF(memcmp(b, &zero, sizeof(zero)) != 0, "out not zeroed after a failure\n");
}

static void expect_one_line_reason(const char *err)
{
	FAIL_IF(err[0] == '\0', "no reason given\n");
	FAIL_IF(strchr(err, '\n') != NULL, "reason is not one line: %s\n", err);
}

/* The parse must fail with -EINVAL and a reason containing want. */
static void expect_invalid(const char *text, size_t len, const char *want)
{
	struct enav_go_buildinfo b;
	char err[256] = "";
	int rc = parse(text, len, &b, err, sizeof(err));

	FAIL_IF(rc != -EINVAL, "parse of %.60s: rc %d, want -EINVAL\n", text, rc);
	expect_zeroed(&b);
	expect_one_line_reason(err);
	FAIL_IF(want && !strstr(err, want), "reason \"%s\" lacks \"%s\"\n", err, want);
}

static void expect_module(const struct enav_go_module *m, const char *path, const char *version,
			  const char *sum)
{
	assert_non_null(m->path);
	assert_non_null(m->version);
	assert_non_null(m->sum);
	assert_string_equal(m->path, path);
	assert_string_equal(m->version, version);
	assert_string_equal(m->sum, sum);
}

static void expect_replace(const struct enav_go_module *m, const char *path, const char *version,
			   const char *sum)
{
	assert_true(m->replaced);
	assert_non_null(m->replace_path);
	assert_string_equal(m->replace_path, path);
	assert_string_equal(m->replace_version, version);
	assert_string_equal(m->replace_sum, sum);
}

static void expect_not_replaced(const struct enav_go_module *m)
{
	assert_false(m->replaced);
	assert_null(m->replace_path);
	assert_null(m->replace_version);
	assert_null(m->replace_sum);
}

static char *print_to_string(const char *name, const struct enav_go_buildinfo *b)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	assert_non_null(f);
	enav_go_buildinfo_print(f, name, b);
	assert_int_equal(fclose(f), 0);
	return s;
}

/* The text framed by Go's sentinels, in a new buffer of *len bytes. */
static char *wrap(const char *text, size_t n, size_t *len)
{
	char *w = malloc(n + 32);

	assert_non_null(w);
	memcpy(w, k_start, 16);
	memcpy(w + 16, text, n);
	memcpy(w + 16 + n, k_end, 16);
	*len = n + 32;
	return w;
}

static int memfd_with(const void *data, size_t n)
{
	int fd = memfd_create("go-buildinfo-test", MFD_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	return fd;
}

static int read_bytes(const void *data, size_t n, struct enav_go_buildinfo *b, char *err,
		      size_t errlen)
{
	int fd = memfd_with(data, n);

	memset(b, 0x5a, sizeof(*b));
	int rc = enav_go_buildinfo_read_fd(fd, b, err, errlen);
	close(fd);
	if (rc) {
		expect_zeroed(b);
		expect_one_line_reason(err);
	}
	return rc;
}

static const struct enav_go_build_setting *setting(const struct enav_go_buildinfo *b,
						   const char *key)
{
	for (size_t i = 0; i < b->n_settings; i++)
		if (!strcmp(b->settings[i].key, key))
			return &b->settings[i];
	return NULL;
}

/* ---- modinfo parser ----------------------------------------------------------- */

static const char k_modinfo[] = "path\tgithub.com/acme/web/cmd/web\n"
				"mod\tgithub.com/acme/web\t(devel)\t\n"
				"dep\tgithub.com/a/one\tv1.0.0\th1:AAA=\n"
				"dep\texample.com/replaced\tv0.1.0\n"
				"=>\texample.com/fork\tv0.1.1\th1:BBB=\n"
				"dep\texample.com/local\tv0.0.0\n"
				"=>\t../local\t\t\n"
				"build\t-compiler=gc\n"
				"build\t-ldflags=\"-X main.v=1 -X \\\"main.n=a b\\\"\"\n"
				"build\tCGO_ENABLED=0\n"
				"build\tEMPTY=\n"
				"build\tvcs.modified=false\n";

static void test_parse_full(void **state)
{
	struct enav_go_buildinfo b;
	char err[256] = "";

	assert_int_equal(parse(k_modinfo, strlen(k_modinfo), &b, err, sizeof(err)), 0);
	assert_string_equal(b.go_version, "");
	assert_string_equal(b.path, "github.com/acme/web/cmd/web");
	assert_true(b.has_main);
	expect_module(&b.main, "github.com/acme/web", "(devel)", "");
	expect_not_replaced(&b.main);
	assert_int_equal(b.n_deps, 3);
	expect_module(&b.deps[0], "github.com/a/one", "v1.0.0", "h1:AAA=");
	expect_not_replaced(&b.deps[0]);
	expect_module(&b.deps[1], "example.com/replaced", "v0.1.0", "");
	expect_replace(&b.deps[1], "example.com/fork", "v0.1.1", "h1:BBB=");
	expect_module(&b.deps[2], "example.com/local", "v0.0.0", "");
	expect_replace(&b.deps[2], "../local", "", "");
	assert_int_equal(b.n_settings, 5);
	assert_string_equal(b.settings[0].key, "-compiler");
	assert_string_equal(b.settings[0].value, "gc");
	assert_string_equal(b.settings[0].raw, "-compiler=gc");
	assert_string_equal(b.settings[1].key, "-ldflags");
	assert_string_equal(b.settings[1].value, "-X main.v=1 -X \"main.n=a b\"");
	assert_string_equal(b.settings[1].raw, "-ldflags=\"-X main.v=1 -X \\\"main.n=a b\\\"\"");
	assert_string_equal(b.settings[3].key, "EMPTY");
	assert_string_equal(b.settings[3].value, "");
	assert_string_equal(b.settings[4].value, "false");

	/* Printed as `go version -m` does, round-tripping the text. */
	char *out = print_to_string("bin", &b);
	char want[sizeof(k_modinfo) + 64];
	size_t w = (size_t)snprintf(want, sizeof(want), "bin: \n\t");
	for (const char *p = k_modinfo; *p; p++) {
		want[w++] = *p;
		if (*p == '\n' && p[1])
			want[w++] = '\t';
	}
	want[w] = '\0';
	assert_string_equal(out, want);
	free(out);
	enav_go_buildinfo_free(&b);
	enav_go_buildinfo_free(&b); /* idempotent */
}

static void test_parse_replace_after_mod_and_dep(void **state)
{
	static const char text[] = "mod\tm\tv1.0.0\th1:m=\n"
				   "=>\tm2\tv1.0.1\th1:m2=\n"
				   "dep\td\tv2.0.0\th1:d=\n"
				   "path\tm/cmd\n" /* between a module and its => (Go allows) */
				   "=>\td2\tv2.0.1\th1:d2=\n"
				   "dep\te\tv3.0.0\th1:e=\n";
	struct enav_go_buildinfo b;
	char err[256] = "";

	assert_int_equal(parse(text, strlen(text), &b, err, sizeof(err)), 0);
	expect_module(&b.main, "m", "v1.0.0", "h1:m=");
	expect_replace(&b.main, "m2", "v1.0.1", "h1:m2=");
	assert_int_equal(b.n_deps, 2);
	expect_replace(&b.deps[0], "d2", "v2.0.1", "h1:d2=");
	expect_not_replaced(&b.deps[1]);
	assert_string_equal(b.path, "m/cmd");
	char *out = print_to_string("x", &b);
	assert_string_equal(out, "x: \n"
				 "\tpath\tm/cmd\n"
				 "\tmod\tm\tv1.0.0\n"
				 "\t=>\tm2\tv1.0.1\th1:m2=\n"
				 "\tdep\td\tv2.0.0\n"
				 "\t=>\td2\tv2.0.1\th1:d2=\n"
				 "\tdep\te\tv3.0.0\th1:e=\n");
	free(out);
	enav_go_buildinfo_free(&b);

	/* A replacement needs a module line before it, and only one. */
	expect_invalid("=>\tx\tv1\th\n", strlen("=>\tx\tv1\th\n"), "no module line");
	static const char twice[] = "dep\ta\tv1\n=>\tb\tv2\th\n=>\tc\tv3\th\n";
	expect_invalid(twice, strlen(twice), "no module line");
}

static void test_parse_missing_fields(void **state)
{
	static const char text[] = "mod\tonly-path\n"
				   "dep\tp1\n"
				   "dep\tp2\tv2\n"
				   "dep\t\t\t\n"
				   "=>\t/abs/dir\n"
				   "dep\tp4\tv4\n"
				   "=>\t../rel\tv9\n";
	struct enav_go_buildinfo b;
	char err[256] = "";

	assert_int_equal(parse(text, strlen(text), &b, err, sizeof(err)), 0);
	assert_string_equal(b.path, "");
	expect_module(&b.main, "only-path", "", "");
	assert_int_equal(b.n_deps, 4);
	expect_module(&b.deps[0], "p1", "", "");
	expect_module(&b.deps[1], "p2", "v2", "");
	expect_module(&b.deps[2], "", "", "");
	expect_replace(&b.deps[2], "/abs/dir", "", "");
	expect_replace(&b.deps[3], "../rel", "v9", "");
	enav_go_buildinfo_free(&b);

	/* No mod line: the main module is the zero module, not printed. */
	assert_int_equal(parse("dep\ta\tv\ts\n", strlen("dep\ta\tv\ts\n"), &b, err, sizeof(err)),
			 0);
	assert_false(b.has_main);
	expect_module(&b.main, "", "", "");
	char *out = print_to_string("n", &b);
	assert_string_equal(out, "n: \n\tdep\ta\tv\ts\n");
	free(out);
	enav_go_buildinfo_free(&b);

	/* Empty text. */
	assert_int_equal(parse("", 0, &b, err, sizeof(err)), 0);
	assert_int_equal(b.n_deps, 0);
	assert_int_equal(b.n_settings, 0);
	enav_go_buildinfo_free(&b);
	assert_int_equal(parse(NULL, 0, &b, err, sizeof(err)), 0);
	enav_go_buildinfo_free(&b);

	expect_invalid("dep\ta\tb\tc\td\n", strlen("dep\ta\tb\tc\td\n"), "more than 3 fields");
	expect_invalid("dep\ta\tb\tc\n=>\ta\tb\tc\td\n", strlen("dep\ta\tb\tc\n=>\ta\tb\tc\td\n"),
		       "more than 3 fields");
}

static void test_parse_build_settings(void **state)
{
	static const struct {
		const char *line, *key, *value;
	} ok[] = {
	    {"build\tk=v", "k", "v"},
	    {"build\tk=", "k", ""},
	    {"build\tk=a=b", "k", "a=b"},
	    {"build\tk=\"\"", "k", ""},
	    {"build\tk=\"a\\tb\\\\c\\\"d\"", "k", "a\tb\\c\"d"},
	    {"build\tk=\"\\x41\\101\\u00e9\\U0001F600\"", "k", "AA\xc3\xa9\xf0\x9f\x98\x80"},
	    {"build\tk=\"\\a\\b\\f\\n\\r\\v\"", "k", "\a\b\f\n\r\v"},
	    {"build\tk=`raw \\n \"x\"`", "k", "raw \\n \"x\""},
	    {"build\tk=`a\rb`", "k", "ab"}, /* raw strings drop CR */
	    {"build\t\"a key\"=v", "a key", "v"},
	    {"build\t`k`=\"v w\"", "k", "v w"},
	    {"build\tk=\"\xc3\xa9\"", "k", "\xc3\xa9"},
	    {"build\tk=\"\xff\\n\"", "k", "\xef\xbf\xbd\n"}, /* invalid UTF-8 -> U+FFFD */
	    {"build\tk=\xff", "k", "\xff"},		     /* unquoted: kept as is */
	};
	static const struct {
		const char *line, *why;
	} bad[] = {
	    {"build\t", "missing '='"},
	    {"build\t=v", "missing key"},
	    {"build\tk", "missing '='"},
	    {"build\tk v=1", "must be quoted"},
	    {"build\tk=a b", "must be quoted"},
	    {"build\tk=a\"b", "must be quoted"},
	    {"build\tk=\"open", "invalid quoted value"},
	    {"build\tk=\"a\"b", "invalid quoted value"},
	    {"build\tk=\"\\q\"", "invalid quoted value"},
	    {"build\tk=\"\\x4\"", "invalid quoted value"},
	    {"build\tk=\"\\400\"", "invalid quoted value"},
	    {"build\tk=\"\\ud800\"", "invalid quoted value"},
	    {"build\tk=\"\\U00110000\"", "invalid quoted value"},
	    {"build\tk=\"\\'\"", "invalid quoted value"},
	    {"build\tk=\"\\x00\"", "invalid quoted value"}, /* would hold a NUL */
	    {"build\tk=\"\\000\"", "invalid quoted value"},
	    {"build\tk=`open", "invalid quoted value"},
	    {"build\t\"k", "invalid quoted key"},
	    {"build\t\"k\"", "missing '=' after quoted key"},
	    {"build\t\"k\"x=1", "missing '=' after quoted key"},
	    {"build\t\"\\x00\"=1", "invalid quoted key"},
	};

	for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
		struct enav_go_buildinfo b;
		char err[256] = "";
		int rc = parse(ok[i].line, strlen(ok[i].line), &b, err, sizeof(err));

		FAIL_IF(rc != 0, "%s: rc %d (%s)\n", ok[i].line, rc, err);
		assert_int_equal(b.n_settings, 1);
		assert_string_equal(b.settings[0].key, ok[i].key);
		FAIL_IF(strcmp(b.settings[0].value, ok[i].value) != 0, "%s: value \"%s\"\n",
			ok[i].line, b.settings[0].value);
		assert_string_equal(b.settings[0].raw, ok[i].line + 6);
		enav_go_buildinfo_free(&b);
	}
	for (size_t i = 0; i < ARRAY_LEN(bad); i++)
		expect_invalid(bad[i].line, strlen(bad[i].line), bad[i].why);
}

static void test_parse_sentinels_crlf_unknown(void **state)
{
	struct enav_go_buildinfo b;
	char err[256] = "";
	size_t wl;
	char *w = wrap(k_modinfo, strlen(k_modinfo), &wl);

	/* Framed (the end sentinel holds a NUL: it must be stripped first). */
	assert_int_equal(parse(w, wl, &b, err, sizeof(err)), 0);
	assert_int_equal(b.n_deps, 3);
	assert_string_equal(b.path, "github.com/acme/web/cmd/web");
	enav_go_buildinfo_free(&b);
	/* Only the start sentinel: not framed, and the line it begins is not
	 * a known one, so it is ignored. */
	assert_int_equal(parse(w, wl - 16, &b, err, sizeof(err)), 0);
	assert_string_equal(b.path, "");
	assert_int_equal(b.n_deps, 3);
	enav_go_buildinfo_free(&b);
	/* Only the end sentinel: not framed, and it holds a NUL. */
	expect_invalid(w + 16, wl - 16, "NUL");
	/* Framed empty text. */
	assert_int_equal(parse(w, 16, &b, err, sizeof(err)), 0);
	enav_go_buildinfo_free(&b);
	char empty[32];
	memcpy(empty, k_start, 16);
	memcpy(empty + 16, k_end, 16);
	assert_int_equal(parse(empty, 32, &b, err, sizeof(err)), 0);
	assert_int_equal(b.n_deps + b.n_settings, 0);
	enav_go_buildinfo_free(&b);
	free(w);

	/* CRLF line ends; the last line without a newline; unknown lines. */
	static const char crlf[] = "path\tp\r\n"
				   "mod\tm\tv\ts\r\n"
				   "\r\n"
				   "go\tgo1.99\n"
				   "unknown\tline\n"
				   "depx\tnot\ta\tdep\n"
				   "dep\td\tv1\th1:x\r\n"
				   "build\tk=\"v\"\r\n"
				   "build\tlast=1";
	assert_int_equal(parse(crlf, strlen(crlf), &b, err, sizeof(err)), 0);
	assert_string_equal(b.path, "p");
	expect_module(&b.main, "m", "v", "s");
	assert_int_equal(b.n_deps, 1);
	expect_module(&b.deps[0], "d", "v1", "h1:x");
	assert_int_equal(b.n_settings, 2);
	assert_string_equal(b.settings[0].value, "v");
	assert_string_equal(b.settings[1].key, "last");
	enav_go_buildinfo_free(&b);
}

static void test_parse_caps_and_nul(void **state)
{
	struct enav_go_buildinfo b;
	char err[256] = "";

	/* NUL bytes anywhere. */
	expect_invalid("path\tp\0q\n", 9, "NUL");
	expect_invalid("dep\ta\tv\0\n", 9, "NUL");
	expect_invalid("\0", 1, "NUL");

	/* Line length: the cap itself is fine, one more byte is not. */
	size_t cap = ENAV_GO_BUILDINFO_MAX_LINE;
	char *line = malloc(cap + 3);
	assert_non_null(line);
	memcpy(line, "path\t", 5);
	memset(line + 5, 'a', cap - 5);
	line[cap] = '\n';
	assert_int_equal(parse(line, cap + 1, &b, err, sizeof(err)), 0);
	assert_int_equal(strlen(b.path), cap - 5);
	enav_go_buildinfo_free(&b);
	line[cap] = 'a';
	line[cap + 1] = '\n';
	expect_invalid(line, cap + 2, "longer than");
	/* Unknown lines are capped too. */
	line[0] = 'x';
	expect_invalid(line, cap + 2, "longer than");
	free(line);

	/* Dependencies: the cap is accepted, one more is not. */
	size_t per = strlen("dep\texample.com/m00000\tv1.0.0\th1:x\n");
	size_t n = (size_t)ENAV_GO_BUILDINFO_MAX_DEPS + 1;
	char *text = malloc(n * per + 1);
	assert_non_null(text);
	for (size_t i = 0; i < n; i++)
		snprintf(text + i * per, per + 1, "dep\texample.com/m%05zu\tv1.0.0\th1:x\n", i);
	assert_int_equal(parse(text, (n - 1) * per, &b, err, sizeof(err)), 0);
	assert_int_equal(b.n_deps, ENAV_GO_BUILDINFO_MAX_DEPS);
	assert_string_equal(b.deps[ENAV_GO_BUILDINFO_MAX_DEPS - 1].path, "example.com/m04095");
	enav_go_buildinfo_free(&b);
	expect_invalid(text, n * per, "more than 4096 dependencies");
	free(text);

	/* Build settings. */
	per = strlen("build\tk00000=v\n");
	n = (size_t)ENAV_GO_BUILDINFO_MAX_SETTINGS + 1;
	text = malloc(n * per + 1);
	assert_non_null(text);
	for (size_t i = 0; i < n; i++)
		snprintf(text + i * per, per + 1, "build\tk%05zu=v\n", i);
	assert_int_equal(parse(text, (n - 1) * per, &b, err, sizeof(err)), 0);
	assert_int_equal(b.n_settings, ENAV_GO_BUILDINFO_MAX_SETTINGS);
	enav_go_buildinfo_free(&b);
	expect_invalid(text, n * per, "build settings");
	free(text);

	/* The whole text: the cap is accepted (in lines the parser ignores). */
	size_t total = ENAV_GO_BUILDINFO_MAX_MODINFO;
	text = malloc(total + 1);
	assert_non_null(text);
	for (size_t i = 0; i < total; i++)
		text[i] = (i % 1024 == 1023) ? '\n' : 'x';
	assert_int_equal(parse(text, total, &b, err, sizeof(err)), 0);
	enav_go_buildinfo_free(&b);
	text[total] = '\n';
	expect_invalid(text, total + 1, "cap");
	free(text);

	/* A failure after allocations leaves nothing behind (ASan checks). */
	static const char late[] =
	    "path\tp\nmod\tm\tv\ts\ndep\ta\tv\ts\nbuild\tk=v\n=>\ta\tb\tc\td\n";
	expect_invalid(late, strlen(late), NULL);
}

/* ---- hand-built ELF files ----------------------------------------------------- */

struct fake {
	bool is64, msb, inline_strings;
	const char *version;
	const char *modinfo; /* framed by the builder */
	size_t hdr_off;	     /* of the build info header in the file (16-aligned) */
};

#define FAKE_BASE 0x400000u

static void put(unsigned char *p, uint64_t v, size_t n, bool msb)
{
	for (size_t i = 0; i < n; i++)
		p[msb ? n - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static size_t put_uvarint(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

/*
 * One PT_LOAD (RW, covering the whole file at FAKE_BASE), no section
 * headers, so the reader takes the data segment; the build info header at
 * hdr_off.  Pointer layout: the two string headers right after it, the
 * version at +0x100 and the modinfo at +0x140 from the header.  Returns the
 * file size; *buf malloc'd.
 */
static size_t build_fake(const struct fake *fk, unsigned char **buf)
{
	size_t vl = strlen(fk->version), ml0 = strlen(fk->modinfo), ml;
	char *mod = wrap(fk->modinfo, ml0, &ml);
	size_t hdr = fk->hdr_off ? fk->hdr_off : 0x100;
	size_t size = hdr + 0x140 + vl + ml + 32;
	unsigned char *p = calloc(1, size);
	bool msb = fk->msb;
	unsigned ps = fk->is64 ? 8 : 4;

	assert_non_null(p);
	memcpy(p,
	       "\x7f"
	       "ELF",
	       4);
	p[4] = fk->is64 ? 2 : 1;
	p[5] = msb ? 2 : 1;
	p[6] = 1;
	put(p + 16, 2, 2, msb);	 /* ET_EXEC */
	put(p + 18, 62, 2, msb); /* EM_X86_64 (any) */
	put(p + 20, 1, 4, msb);
	if (fk->is64) {
		put(p + 0x18, FAKE_BASE, 8, msb); /* entry */
		put(p + 0x20, 64, 8, msb);	  /* phoff */
		put(p + 0x34, 64, 2, msb);	  /* ehsize */
		put(p + 0x36, 56, 2, msb);	  /* phentsize */
		put(p + 0x38, 1, 2, msb);	  /* phnum */
		put(p + 0x3a, 64, 2, msb);	  /* shentsize */
		unsigned char *ph = p + 64;
		put(ph, 1, 4, msb);		 /* PT_LOAD */
		put(ph + 4, 6, 4, msb);		 /* PF_R|PF_W */
		put(ph + 8, 0, 8, msb);		 /* offset */
		put(ph + 16, FAKE_BASE, 8, msb); /* vaddr */
		put(ph + 24, FAKE_BASE, 8, msb); /* paddr */
		put(ph + 32, size, 8, msb);	 /* filesz */
		put(ph + 40, size, 8, msb);	 /* memsz */
		put(ph + 48, 0x1000, 8, msb);	 /* align */
	} else {
		put(p + 0x18, FAKE_BASE, 4, msb);
		put(p + 0x1c, 52, 4, msb); /* phoff */
		put(p + 0x28, 52, 2, msb); /* ehsize */
		put(p + 0x2a, 32, 2, msb); /* phentsize */
		put(p + 0x2c, 1, 2, msb);  /* phnum */
		put(p + 0x2e, 40, 2, msb); /* shentsize */
		unsigned char *ph = p + 52;
		put(ph, 1, 4, msb);
		put(ph + 4, 0, 4, msb);
		put(ph + 8, FAKE_BASE, 4, msb);
		put(ph + 12, FAKE_BASE, 4, msb);
		put(ph + 16, size, 4, msb);
		put(ph + 20, size, 4, msb);
		put(ph + 24, 6, 4, msb);
		put(ph + 28, 0x1000, 4, msb);
	}
	unsigned char *h = p + hdr;
	memcpy(h, "\xff Go buildinf:", 14);
	h[14] = (unsigned char)ps;
	h[15] = (unsigned char)((msb ? 1 : 0) | (fk->inline_strings ? 2 : 0));
	if (fk->inline_strings) {
		size_t o = hdr + 32;

		o += put_uvarint(p + o, vl);
		memcpy(p + o, fk->version, vl);
		o += vl;
		o += put_uvarint(p + o, ml);
		memcpy(p + o, mod, ml);
	} else {
		uint64_t vhdr = FAKE_BASE + hdr + 32, mhdr = vhdr + 2 * ps;

		put(h + 16, vhdr, ps, msb);
		put(h + 16 + ps, mhdr, ps, msb);
		put(p + hdr + 32, FAKE_BASE + hdr + 0x100, ps, msb);
		put(p + hdr + 32 + ps, vl, ps, msb);
		put(p + hdr + 32 + 2 * ps, FAKE_BASE + hdr + 0x140 + vl, ps, msb);
		put(p + hdr + 32 + 3 * ps, ml, ps, msb);
		memcpy(p + hdr + 0x100, fk->version, vl);
		memcpy(p + hdr + 0x140 + vl, mod, ml);
	}
	free(mod);
	*buf = p;
	return size;
}

static const char k_fake_mod[] = "path\texample.com/old\n"
				 "mod\texample.com/old\tv1.2.3\th1:old=\n"
				 "dep\tgolang.org/x/sys\tv0.0.1\th1:sys=\n"
				 "=>\t./sys\t\t\n";

static void check_fake_result(const struct enav_go_buildinfo *b, const char *version)
{
	assert_string_equal(b->go_version, version);
	assert_string_equal(b->path, "example.com/old");
	expect_module(&b->main, "example.com/old", "v1.2.3", "h1:old=");
	assert_int_equal(b->n_deps, 1);
	expect_module(&b->deps[0], "golang.org/x/sys", "v0.0.1", "h1:sys=");
	expect_replace(&b->deps[0], "./sys", "", "");
}

static void test_fake_layouts(void **state)
{
	static const struct fake cases[] = {
	    {.is64 = true, .version = "go1.15.2"},
	    {.is64 = false, .msb = true, .version = "go1.12"},
	    {.is64 = true, .msb = true, .version = "go1.16"},
	    {.is64 = false, .version = "go1.13.1"},
	    {.is64 = true, .inline_strings = true, .version = "go1.21.0"},
	    {.is64 = false, .msb = true, .inline_strings = true, .version = "go1.20"},
	    {.is64 = true, .version = "go1.15", .hdr_off = 0x8000},
	};

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		struct fake fk = cases[i];
		struct enav_go_buildinfo b;
		char err[256] = "";
		unsigned char *p;

		fk.modinfo = k_fake_mod;
		size_t n = build_fake(&fk, &p);
		int rc = read_bytes(p, n, &b, err, sizeof(err));
		FAIL_IF(rc != 0, "case %zu: rc %d (%s)\n", i, rc, err);
		check_fake_result(&b, fk.version);
		enav_go_buildinfo_free(&b);
		free(p);
	}
}

static void test_fake_hostile(void **state)
{
	struct fake fk = {.is64 = true, .version = "go1.15.2", .modinfo = k_fake_mod};
	struct enav_go_buildinfo b;
	char err[256];
	unsigned char *p;
	size_t n = build_fake(&fk, &p);
	size_t h = 0x100;
	unsigned char *c = malloc(n);
	assert_non_null(c);

	/* Pointers to the string headers out of every segment. */
	static const uint64_t bad_ptr[] = {0, 8, FAKE_BASE - 1, 0xffffffffffffff00ull,
					   FAKE_BASE + 0x100000};
	for (size_t k = 0; k < 2; k++)
		for (size_t i = 0; i < ARRAY_LEN(bad_ptr); i++) {
			memcpy(c, p, n);
			put(c + h + 16 + 8 * k, bad_ptr[i], 8, false);
			err[0] = '\0';
			assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
			FAIL_IF(!strstr(err, "not in a PT_LOAD"), "%s\n", err);
		}
	/* A string header straddling the end of the segment. */
	memcpy(c, p, n);
	put(c + h + 16, FAKE_BASE + n - 8, 8, false);
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	/* String data out of range, or running past the segment. */
	const uint64_t bad_data[] = {0, FAKE_BASE + n, FAKE_BASE + n - 2};
	for (size_t i = 0; i < ARRAY_LEN(bad_data); i++) {
		memcpy(c, p, n);
		put(c + h + 32, bad_data[i], 8, false);
		assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	}
	/* Lengths over the caps, or huge. */
	static const uint64_t bad_len[] = {ENAV_GO_BUILDINFO_MAX_VERSION + 1, 1ull << 40,
					   UINT64_MAX};
	for (size_t i = 0; i < ARRAY_LEN(bad_len); i++) {
		memcpy(c, p, n);
		put(c + h + 40, bad_len[i], 8, false);
		assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
		FAIL_IF(!strstr(err, "cap"), "%s\n", err);
		memcpy(c, p, n);
		put(c + h + 56, bad_len[i] + ENAV_GO_BUILDINFO_MAX_MODINFO + 32, 8, false);
		assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	}
	/* Empty version; a version with a control character. */
	memcpy(c, p, n);
	put(c + h + 40, 0, 8, false);
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	memcpy(c, p, n);
	c[h + 0x102] = '\n';
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	/* Bad pointer size. */
	memcpy(c, p, n);
	c[h + 14] = 16;
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	/* Modinfo too short to be framed: no module information, still Go. */
	memcpy(c, p, n);
	put(c + h + 56, 32, 8, false);
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), 0);
	assert_string_equal(b.go_version, "go1.15.2");
	assert_int_equal(b.n_deps, 0);
	assert_false(b.has_main);
	char *out = print_to_string("old", &b);
	assert_string_equal(out, "old: go1.15.2\n");
	free(out);
	enav_go_buildinfo_free(&b);
	/* The magic off the 16-byte alignment is not found. */
	memcpy(c, p, n);
	memmove(c + h + 8, c + h, 32);
	memset(c + h, 0, 8);
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "no Go build information");
	/* Segment or program headers beyond the end of the file. */
	assert_int_equal(read_bytes(p, n - 1, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(read_bytes(p, 100, &b, err, sizeof(err)), -EINVAL);
	/* No writable segment: not Go. */
	memcpy(c, p, n);
	put(c + 64 + 4, 5, 4, false); /* R|X */
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -ENOENT);
	free(c);
	free(p);

	/* The header past the 64 KiB window is not found. */
	fk.hdr_off = 0x10000;
	n = build_fake(&fk, &p);
	assert_int_equal(read_bytes(p, n, &b, err, sizeof(err)), -ENOENT);
	free(p);

	/* Inline: lengths huge, overflowing, or past the segment. */
	fk = (struct fake){
	    .is64 = true, .inline_strings = true, .version = "go1.21.0", .modinfo = k_fake_mod};
	n = build_fake(&fk, &p);
	c = malloc(n);
	assert_non_null(c);
	static const unsigned char huge[10] = {0xff, 0xff, 0xff, 0xff, 0xff,
					       0xff, 0xff, 0xff, 0xff, 0x01};
	static const unsigned char over[10] = {0xff, 0xff, 0xff, 0xff, 0xff,
					       0xff, 0xff, 0xff, 0xff, 0x7f};
	memcpy(c, p, n);
	memcpy(c + h + 32, huge, 10);
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	memcpy(c, p, n);
	memcpy(c + h + 32, over, 10);
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	memcpy(c, p, n);
	memcpy(c + h + 32 + 1 + 8, huge, 10);
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	memcpy(c, p, n);
	memcpy(c + h + 32 + 1 + 8, "\x80\x80\x01", 3); /* 16 KiB: past the segment */
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	/* Truncated in the header. */
	assert_int_equal(read_bytes(p, h + 32, &b, err, sizeof(err)), -EINVAL);
	free(c);
	free(p);
}

/* ---- real Go binaries ----------------------------------------------------------- */

static char g_tmp[PATH_MAX];
static char g_bin[PATH_MAX + 32];
static bool g_built;
static char g_build_error[512];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (flag == FTW_D || flag == FTW_DP)
		chmod(path, 0700); /* the module cache is read-only */
	return remove(path);
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 256];
	FILE *f;

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (char *s = strchr(path + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(path, 0755);
		*s = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The whole output of a shell command, or NULL when it fails. */
static char *run_capture(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *s = NULL;
	size_t n = 0, got;
	char chunk[4096];
	FILE *m = open_memstream(&s, &n);

	assert_non_null(m);
	if (!p) {
		fclose(m);
		free(s);
		return NULL;
	}
	while ((got = fread(chunk, 1, sizeof(chunk), p)) > 0)
		fwrite(chunk, 1, got, m);
	int st = pclose(p);
	fclose(m);
	if (st != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static const char k_web_go_mod[] = "module github.com/acme/web\n"
				   "\n"
				   "go 1.19\n"
				   "\n"
				   "require (\n"
				   "\texample.com/acme/shared v0.0.0\n"
				   "\tgithub.com/thirdparty/lib v1.2.3\n"
				   ")\n"
				   "\n"
				   "replace example.com/acme/shared => ../shared\n";

/* What `go mod vendor` would write: the replaced module (its versioned line
 * and the wildcard replacement line go.mod's `replace` needs) and the
 * third-party module, each with its package. */
static const char k_web_modules_txt[] = "# example.com/acme/shared v0.0.0 => ../shared\n"
					"## explicit\n"
					"example.com/acme/shared\n"
					"# github.com/thirdparty/lib v1.2.3\n"
					"## explicit\n"
					"github.com/thirdparty/lib\n"
					"# example.com/acme/shared => ../shared\n";

static const char k_web_main_go[] =
    "package main\n"
    "\n"
    "import (\n"
    "\t\"fmt\"\n"
    "\n"
    "\t\"example.com/acme/shared\"\n"
    "\t\"github.com/thirdparty/lib\"\n"
    ")\n"
    "\n"
    "var version, note string\n"
    "\n"
    "func main() { fmt.Println(lib.Hello(), shared.Name(), version, note) }\n";

static const char k_shared_go[] = "package shared\n\nfunc Name() string { return \"shared\" }\n";
static const char k_lib_go[] = "package lib\n\nfunc Hello() string { return \"hello\" }\n";

/* Builds the test binary once (offline); false with g_build_error set when
 * it cannot. */
static bool build_go_binary(void)
{
	static bool tried;
	char dir[PATH_MAX + 64], cmd[4 * PATH_MAX];

	if (tried)
		return g_built;
	tried = true;
	if (system("command -v go >/dev/null 2>&1") != 0) {
		snprintf(g_build_error, sizeof(g_build_error),
			 "`go` is not in PATH: install it (scripts/deps.sh test installs "
			 "golang-go)");
		return false;
	}
	snprintf(g_tmp, sizeof(g_tmp), "/tmp/enav-test-gobuildinfo-XXXXXX");
	if (!mkdtemp(g_tmp)) {
		snprintf(g_build_error, sizeof(g_build_error), "mkdtemp: %s", strerror(errno));
		return false;
	}
	snprintf(dir, sizeof(dir), "%s/shared", g_tmp);
	write_file(dir, "go.mod", "module example.com/acme/shared\n\ngo 1.19\n");
	write_file(dir, "shared.go", k_shared_go);
	snprintf(dir, sizeof(dir), "%s/web", g_tmp);
	write_file(dir, "go.mod", k_web_go_mod);
	write_file(dir, "main.go", k_web_main_go);
	write_file(dir, "vendor/modules.txt", k_web_modules_txt);
	write_file(dir, "vendor/github.com/thirdparty/lib/lib.go", k_lib_go);
	write_file(dir, "vendor/example.com/acme/shared/shared.go", k_shared_go);

	/* Nothing may touch the network or the user's caches. */
	snprintf(cmd, sizeof(cmd), "%s/cache", g_tmp);
	setenv("GOCACHE", cmd, 1);
	snprintf(cmd, sizeof(cmd), "%s/gopath", g_tmp);
	setenv("GOPATH", cmd, 1);
	setenv("HOME", g_tmp, 1);
	setenv("GOPROXY", "off", 1);
	setenv("GOSUMDB", "off", 1);
	setenv("GONOSUMDB", "*", 1);
	setenv("GOFLAGS", "-mod=vendor", 1);
	setenv("GO111MODULE", "on", 1);
	setenv("GOWORK", "off", 1);
	setenv("GOTOOLCHAIN", "local", 1);
	setenv("CGO_ENABLED", "0", 1);
	unsetenv("GOOS");
	unsetenv("GOARCH");
	unsetenv("GOENV");

	snprintf(g_bin, sizeof(g_bin), "%s/web.bin", g_tmp);
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && go build -mod=vendor -buildvcs=false -tags 'netgo osusergo' "
		 "-ldflags='-X main.version=1.0 -X \"main.note=a b\"' -o '%s' . "
		 ">'%s/build.log' 2>&1",
		 dir, g_bin, g_tmp);
	if (system(cmd) != 0) {
		char logpath[PATH_MAX + 16];
		FILE *f;
		size_t n = 0;

		snprintf(logpath, sizeof(logpath), "%s/build.log", g_tmp);
		n = (size_t)snprintf(g_build_error, sizeof(g_build_error), "go build failed: ");
		f = fopen(logpath, "r");
		if (f) {
			n += fread(g_build_error + n, 1, sizeof(g_build_error) - n - 1, f);
			g_build_error[n] = '\0';
			fclose(f);
		}
		return false;
	}
	g_built = true;
	return true;
}

static void require_go_binary(void)
{
	if (!build_go_binary())
		fail_msg("cannot build the test Go binary: %s", g_build_error);
}

static unsigned char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	p = malloc((size_t)n);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

/* Offset of the build info header (the first 16-aligned magic). */
static size_t find_header(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i + 32 <= n; i += 16)
		if (!memcmp(p + i, "\xff Go buildinf:", 14))
			return i;
	fail_msg("no build info header in the Go binary");
	return 0;
}

/* Our print against `go version -m`, line by line.  Go 1.19's printer emits
 * an empty line after every `=>` line (fixed in later Go); that line is
 * skipped. */
static void compare_with_go_version_m(const char *path, const char *ours)
{
	char cmd[PATH_MAX + 64];
	char *theirs;

	snprintf(cmd, sizeof(cmd), "go version -m '%s'", path);
	theirs = run_capture(cmd);
	FAIL_IF(!theirs, "`%s` failed\n", cmd);
	char *save_a = NULL, *save_b = NULL;
	char *a = strdup(ours), *b = strdup(theirs);
	assert_non_null(a);
	assert_non_null(b);
	char *la = strtok_r(a, "\n", &save_a), *lb = strtok_r(b, "\n", &save_b);
	bool after_replace = false;
	size_t lineno = 1;
	while (la || lb) {
		if (lb && after_replace && !strcmp(lb, "\t")) {
			after_replace = false;
			lb = strtok_r(NULL, "\n", &save_b);
			continue;
		}
		FAIL_IF(!la || !lb || strcmp(la, lb) != 0,
			"line %zu differs:\n  enav: %s\n  go:   %s\n", lineno, la ? la : "(none)",
			lb ? lb : "(none)");
		after_replace = !strncmp(lb, "\t=>\t", 4);
		la = strtok_r(NULL, "\n", &save_a);
		lb = strtok_r(NULL, "\n", &save_b);
		lineno++;
	}
	free(a);
	free(b);
	free(theirs);
}

static void test_go_binary(void **state)
{
	struct enav_go_buildinfo b;
	char err[256] = "";

	require_go_binary();
	int rc = enav_go_buildinfo_read_file(g_bin, &b, err, sizeof(err));
	FAIL_IF(rc != 0, "%s: rc %d (%s)\n", g_bin, rc, err);

	char *gover = run_capture("go env GOVERSION");
	assert_non_null(gover);
	gover[strcspn(gover, "\n")] = '\0';
	assert_string_equal(b.go_version, gover);
	free(gover);
	assert_string_equal(b.path, "github.com/acme/web");
	assert_true(b.has_main);
	expect_module(&b.main, "github.com/acme/web", "(devel)", "");
	expect_not_replaced(&b.main);
	assert_int_equal(b.n_deps, 2);
	expect_module(&b.deps[0], "example.com/acme/shared", "v0.0.0", "");
	expect_replace(&b.deps[0], "../shared", "(devel)", "");
	expect_module(&b.deps[1], "github.com/thirdparty/lib", "v1.2.3", "");
	expect_not_replaced(&b.deps[1]);

	const struct enav_go_build_setting *s = setting(&b, "-ldflags");
	assert_non_null(s);
	assert_string_equal(s->value, "-X main.version=1.0 -X \"main.note=a b\"");
	assert_string_equal(s->raw, "-ldflags=\"-X main.version=1.0 -X \\\"main.note=a b\\\"\"");
	static const char *const kv[][2] = {{"-compiler", "gc"},
					    {"-tags", "netgo,osusergo"},
					    {"CGO_ENABLED", "0"},
					    {"GOOS", "linux"}};
	for (size_t i = 0; i < ARRAY_LEN(kv); i++) {
		s = setting(&b, kv[i][0]);
		FAIL_IF(!s, "no build setting %s\n", kv[i][0]);
		assert_string_equal(s->value, kv[i][1]);
	}
	assert_non_null(setting(&b, "GOARCH"));

	char *ours = print_to_string(g_bin, &b);
	compare_with_go_version_m(g_bin, ours);
	free(ours);

	/* The same through read_fd. */
	struct enav_go_buildinfo b2;
	size_t n;
	unsigned char *p = slurp(g_bin, &n);
	assert_int_equal(read_bytes(p, n, &b2, err, sizeof(err)), 0);
	char *x = print_to_string("x", &b), *y = print_to_string("x", &b2);
	assert_string_equal(x, y);
	free(x);
	free(y);
	enav_go_buildinfo_free(&b2);
	free(p);
	enav_go_buildinfo_free(&b);
}

/* Without a .go.buildinfo section (its name changed in the section name
 * table) the data segment is searched, with the same result. */
static void test_go_binary_without_section(void **state)
{
	struct enav_go_buildinfo b, b2;
	char err[256] = "";
	size_t n;

	require_go_binary();
	unsigned char *p = slurp(g_bin, &n);
	assert_int_equal(read_bytes(p, n, &b, err, sizeof(err)), 0);
	unsigned char *name = memmem(p, n, "\0.go.buildinfo\0", 15);
	assert_non_null(name);
	name[13] = 'X';
	assert_null(memmem(p, n, "\0.go.buildinfo\0", 15));
	assert_int_equal(read_bytes(p, n, &b2, err, sizeof(err)), 0);
	char *x = print_to_string("x", &b), *y = print_to_string("x", &b2);
	assert_string_equal(x, y);
	free(x);
	free(y);
	enav_go_buildinfo_free(&b);
	enav_go_buildinfo_free(&b2);

	/* And without section headers at all (e_shoff = 0). */
	memset(p + 0x28, 0, 8);
	assert_int_equal(read_bytes(p, n, &b2, err, sizeof(err)), 0);
	assert_int_equal(b2.n_deps, 2);
	enav_go_buildinfo_free(&b2);
	free(p);
}

static void test_not_go(void **state)
{
	static const char *const bins[] = {"/bin/true", "/bin/ls"};
	struct enav_go_buildinfo b;
	char err[256];

	for (size_t i = 0; i < ARRAY_LEN(bins); i++) {
		if (access(bins[i], R_OK) != 0)
			continue;
		err[0] = '\0';
		int rc = enav_go_buildinfo_read_file(bins[i], &b, err, sizeof(err));
		FAIL_IF(rc != -ENOENT, "%s: rc %d (%s)\n", bins[i], rc, err);
		assert_string_equal(err, "no Go build information");
		expect_zeroed(&b);
	}
	/* Not ELF; not a regular file; missing. */
	assert_int_equal(read_bytes("#!/bin/sh\nexit 0\n", 17, &b, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "not an ELF file");
	assert_int_equal(read_bytes("", 0, &b, err, sizeof(err)), -EINVAL);
	assert_int_equal(enav_go_buildinfo_read_file("/", &b, err, sizeof(err)), -EINVAL);
	expect_one_line_reason(err);
	assert_int_equal(enav_go_buildinfo_read_file("/nonexistent/x", &b, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "No such file or directory");
}

static void expect_bad_or_absent(const unsigned char *p, size_t n, const char *what, size_t at,
				 bool allow_ok)
{
	struct enav_go_buildinfo b;
	char err[256] = "";
	int rc = read_bytes(p, n, &b, err, sizeof(err));

	FAIL_IF(rc != -EINVAL && rc != -ENOENT && !(allow_ok && rc == 0), "%s at %zu: rc %d (%s)\n",
		what, at, rc, err);
	if (rc == 0)
		enav_go_buildinfo_free(&b);
}

static void test_go_binary_corrupt(void **state)
{
	size_t n;

	require_go_binary();
	unsigned char *p = slurp(g_bin, &n);
	size_t h = find_header(p, n);
	unsigned char *c = malloc(n);
	assert_non_null(c);

	/* Truncated copies: every header and segment is checked.  The
	 * symbol tables after the last segment are not read, so a cut there
	 * may still succeed. */
	size_t cuts[] = {0,	 3,	 16,	 52,	 63,	    64,	   100,	     0x200, h - 1,
			 h + 10, h + 31, h + 32, h + 40, h + 0x100, n / 2, n - 4096, n - 1};
	for (size_t i = 0; i < ARRAY_LEN(cuts); i++)
		expect_bad_or_absent(p, cuts[i], "truncated", cuts[i], cuts[i] >= n - 4096);

	/* Bytes of the header and the first inline bytes flipped. */
	static const unsigned char masks[] = {0x01, 0x02, 0x04, 0x40, 0x80, 0xff};
	for (size_t off = h; off < h + 64; off++)
		for (size_t m = 0; m < ARRAY_LEN(masks); m++) {
			memcpy(c, p, n);
			c[off] ^= masks[m];
			expect_bad_or_absent(c, n, "flipped", off, true);
		}

	/* Inline lengths set huge. */
	static const unsigned char huge[10] = {0xff, 0xff, 0xff, 0xff, 0xff,
					       0xff, 0xff, 0xff, 0xff, 0x01};
	struct enav_go_buildinfo b;
	char err[256];
	assert_true(p[h + 15] & 2);
	memcpy(c, p, n);
	memcpy(c + h + 32, huge, 10);
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	size_t vlen = p[h + 32]; /* one-byte varint for "go1.19.8" */
	assert_true(vlen < 0x80);
	memcpy(c, p, n);
	memcpy(c + h + 33 + vlen, huge, 10);
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	memcpy(c, p, n);
	memcpy(c + h + 33 + vlen, "\x80\x80\x80\x08", 4); /* 16 MiB: over the cap */
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	FAIL_IF(!strstr(err, "cap"), "%s\n", err);

	/* The pointer layout with pointers out of range. */
	static const uint64_t ptrs[] = {0, 0x1000, 0xffffffffffffff00ull, 0x7fffffffffff};
	for (size_t i = 0; i < ARRAY_LEN(ptrs); i++) {
		memcpy(c, p, n);
		c[h + 15] = 0;
		put(c + h + 16, ptrs[i], 8, false);
		put(c + h + 24, ptrs[i], 8, false);
		assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);
	}
	/* Pointers to the header itself: its bytes as a string header. */
	memcpy(c, p, n);
	c[h + 15] = 0;
	uint64_t hvaddr;
	{
		/* The header's address: the section's, read from the segment
		 * table via a known mapping (the first RW PT_LOAD). */
		uint64_t phoff = 0, off = 0, vaddr = 0;
		unsigned phnum = (unsigned)(p[0x38] | p[0x39] << 8);
		memcpy(&phoff, p + 0x20, 8);
		for (unsigned i = 0; i < phnum; i++) {
			const unsigned char *ph = p + phoff + 56 * i;
			uint32_t type, flags;
			memcpy(&type, ph, 4);
			memcpy(&flags, ph + 4, 4);
			if (type == 1 && (flags & 3) == 2) {
				memcpy(&off, ph + 8, 8);
				memcpy(&vaddr, ph + 16, 8);
				break;
			}
		}
		assert_true(h >= off);
		hvaddr = vaddr + (h - off);
	}
	put(c + h + 16, hvaddr, 8, false);
	put(c + h + 24, hvaddr + 16, 8, false);
	assert_int_equal(read_bytes(c, n, &b, err, sizeof(err)), -EINVAL);

	free(c);
	free(p);
}

static int group_teardown(void **state)
{
	if (g_tmp[0])
		nftw(g_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_full),
	    cmocka_unit_test(test_parse_replace_after_mod_and_dep),
	    cmocka_unit_test(test_parse_missing_fields),
	    cmocka_unit_test(test_parse_build_settings),
	    cmocka_unit_test(test_parse_sentinels_crlf_unknown),
	    cmocka_unit_test(test_parse_caps_and_nul),
	    cmocka_unit_test(test_fake_layouts),
	    cmocka_unit_test(test_fake_hostile),
	    cmocka_unit_test(test_go_binary),
	    cmocka_unit_test(test_go_binary_without_section),
	    cmocka_unit_test(test_not_go),
	    cmocka_unit_test(test_go_binary_corrupt),
	};

	return cmocka_run_group_tests_name("go_buildinfo", tests, NULL, group_teardown);
}
