/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the node half of the host source (src/features/node/node*.c):
 * the pure parsers, the exclusion rules, and whole renders of the recorded
 * trees under tests/fixtures/host/ (this_machine: copied from a Debian 12
 * VM; odd: offline CPUs, odd device names, old and new diskstats formats,
 * no PSI, escaped mount points, a short meminfo; minimal: /proc/stat only).
 * Every render is checked against the rules promtool enforces.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "features/node/node_priv.h"

#define FIX "tests/fixtures/host/"

#define FAIL_IF(cond, ...)                                                                         \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_message(__VA_ARGS__);                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

/* ---- test seams ------------------------------------------------------------- */

static char statvfs_calls[64][256];
static size_t n_statvfs_calls;
static size_t n_preads;
static bool fail_stat_read;

static int fake_statvfs(const char *path, struct statvfs *st)
{
	if (n_statvfs_calls < 64)
		snprintf(statvfs_calls[n_statvfs_calls], sizeof(statvfs_calls[0]), "%s", path);
	n_statvfs_calls++;
	if (strcmp(path, "/broken") == 0) {
		errno = EIO;
		return -1;
	}
	memset(st, 0, sizeof(*st));
	st->f_bsize = 4096;
	st->f_frsize = 4096;
	st->f_blocks = 1000;
	st->f_bfree = 400;
	st->f_bavail = 300;
	st->f_files = 100;
	st->f_ffree = 50;
	if (strcmp(path, "/devices") == 0)
		st->f_flag = ST_RDONLY; /* read-only without the "ro" option */
	return 0;
}

static double fake_now(void)
{
	return 1700000000.5;
}

static int fake_uname(struct utsname *u)
{
	memset(u, 0, sizeof(*u));
	strcpy(u->sysname, "Linux");
	strcpy(u->nodename, "node-1");
	strcpy(u->release, "6.1.0-odd");
	strcpy(u->version, "#1 SMP \"quoted\"");
	strcpy(u->machine, "x86_64");
	strcpy(u->domainname, "(none)");
	return 0;
}

static bool fd_path_contains(int fd, const char *needle)
{
	char link[64], target[4096];
	ssize_t l;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	l = readlink(link, target, sizeof(target) - 1);
	if (l <= 0)
		return false;
	target[l] = '\0';
	return strstr(target, needle) != NULL;
}

static ssize_t counting_pread(int fd, void *buf, size_t count, off_t off)
{
	n_preads++;
	if (fail_stat_read && fd_path_contains(fd, "/proc/stat")) {
		errno = EIO;
		return -1;
	}
	return pread(fd, buf, count, off);
}

/* A kernel with PSI compiled in but disabled: the files exist, reads fail. */
static ssize_t psi_unsupported_pread(int fd, void *buf, size_t count, off_t off)
{
	if (fd_path_contains(fd, "/pressure/")) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return pread(fd, buf, count, off);
}

static const struct enav_node_hooks fake_hooks = {
    .statvfs_fn = fake_statvfs,
    .now_fn = fake_now,
    .uname_fn = fake_uname,
    .pread_fn = counting_pread,
    .clk_tck = 100,
};

static struct enav_node *open_case(const char *proc_root, uint32_t max_devices,
				   const struct enav_node_hooks *hooks)
{
	char err[256] = "";
	struct enav_node *n = enav_node_open_ex(proc_root, "/nonexistent-sys", NULL, max_devices,
						hooks ? hooks : &fake_hooks, err, sizeof(err));

	FAIL_IF(!n, "open %s: %s\n", proc_root, err);
	return n;
}

/* ---- a promtool-like checker ------------------------------------------------ */

static bool metric_name_ok(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool alpha =
		    (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';

		if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
			return false;
	}
	return true;
}

static bool label_name_ok(const char *s, size_t len)
{
	if (len == 0 || (len >= 2 && s[0] == '_' && s[1] == '_'))
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';

		if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
			return false;
	}
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * One HELP then one TYPE per family, each family once and contiguous, samples
 * only under their family, counters named *_total with values >= 0, valid
 * metric and label names, only the three escapes in label values, parseable
 * values, no repeated series, no family without samples, valid UTF-8, a final
 * newline.
 */
static char why[512];

#define BAD(cond, ...)                                                                             \
	do {                                                                                       \
		if (cond) {                                                                        \
			snprintf(why, sizeof(why), __VA_ARGS__);                                   \
			goto out;                                                                  \
		}                                                                                  \
	} while (0)

static const char *exposition_error(const char *text)
{
	enum { MAXF = 512, MAXS = 4096 };
	static char fams[MAXF][128];
	static char *series[MAXS];
	size_t n_fams = 0, n_series = 0, samples_in_family = 0;
	char family[128] = "", type[16] = "";
	bool help_pending = false;
	const char *p = text;
	size_t lineno = 0;

	why[0] = '\0';
	BAD(!enav_utf8_valid(text), "exposition is not UTF-8\n");
	BAD(*text && text[strlen(text) - 1] != '\n', "no final newline\n");
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = (size_t)(nl - p);
		char line[8192];

		lineno++;
		BAD(len >= sizeof(line), "line %zu too long\n", lineno);
		memcpy(line, p, len);
		line[len] = '\0';
		p = nl + 1;

		if (strncmp(line, "# HELP ", 7) == 0) {
			const char *name = line + 7;
			size_t nlen = strcspn(name, " ");

			BAD(help_pending, "line %zu: HELP without TYPE before\n", lineno);
			BAD(family[0] && samples_in_family == 0, "family %s has no samples\n",
			    family);
			BAD(!metric_name_ok(name, nlen) || nlen >= sizeof(family),
			    "line %zu: bad family name\n", lineno);
			memcpy(family, name, nlen);
			family[nlen] = '\0';
			for (size_t i = 0; i < n_fams; i++)
				BAD(strcmp(fams[i], family) == 0, "family %s repeated\n", family);
			BAD(n_fams >= MAXF, "too many families\n");
			strcpy(fams[n_fams++], family);
			help_pending = true;
			samples_in_family = 0;
			continue;
		}
		if (strncmp(line, "# TYPE ", 7) == 0) {
			const char *name = line + 7;
			size_t nlen = strcspn(name, " ");

			BAD(!help_pending, "line %zu: TYPE without HELP\n", lineno);
			BAD(nlen != strlen(family) || memcmp(name, family, nlen) != 0,
			    "line %zu: TYPE for another family\n", lineno);
			snprintf(type, sizeof(type), "%s", name + nlen + (name[nlen] ? 1 : 0));
			BAD(strcmp(type, "counter") && strcmp(type, "gauge") &&
				strcmp(type, "untyped"),
			    "line %zu: type %s\n", lineno, type);
			if (strcmp(type, "counter") == 0)
				BAD(nlen < 6 || strcmp(family + nlen - 6, "_total") != 0,
				    "counter %s does not end in _total\n", family);
			help_pending = false;
			continue;
		}
		BAD(line[0] == '#', "line %zu: stray comment\n", lineno);
		BAD(help_pending || !family[0], "line %zu: sample outside a family\n", lineno);

		/* name{labels} value */
		size_t nlen = strcspn(line, "{ ");

		BAD(!metric_name_ok(line, nlen), "line %zu: bad metric name\n", lineno);
		BAD(nlen != strlen(family) || memcmp(line, family, nlen) != 0,
		    "line %zu: sample of %.*s under family %s\n", lineno, (int)nlen, line, family);
		const char *q = line + nlen;
		char seen_labels[32][64];
		size_t n_labels = 0;

		if (*q == '{') {
			q++;
			while (*q != '}') {
				size_t ll = strcspn(q, "=");

				BAD(!label_name_ok(q, ll) || ll >= 64, "line %zu: bad label name\n",
				    lineno);
				for (size_t i = 0; i < n_labels; i++)
					BAD(strlen(seen_labels[i]) == ll &&
						memcmp(seen_labels[i], q, ll) == 0,
					    "line %zu: label repeated\n", lineno);
				BAD(n_labels >= 32, "line %zu: too many labels\n", lineno);
				memcpy(seen_labels[n_labels], q, ll);
				seen_labels[n_labels++][ll] = '\0';
				q += ll;
				BAD(q[0] != '=' || q[1] != '"', "line %zu: bad label\n", lineno);
				q += 2;
				while (*q != '"') {
					BAD(*q == '\0', "line %zu: unterminated value\n", lineno);
					if (*q == '\\') {
						BAD(q[1] != '\\' && q[1] != '"' && q[1] != 'n',
						    "line %zu: bad escape\n", lineno);
						q++;
					}
					q++;
				}
				q++;
				if (*q == ',')
					q++;
				else
					BAD(*q != '}', "line %zu: bad label list\n", lineno);
			}
			q++;
		}
		BAD(*q != ' ', "line %zu: no value\n", lineno);
		const char *v = q + 1;
		char *endp;
		double val = strtod(v, &endp);

		BAD(strcmp(v, "NaN") && strcmp(v, "+Inf") && strcmp(v, "-Inf") &&
			(endp == v || *endp != '\0'),
		    "line %zu: bad value '%s'\n", lineno, v);
		if (strcmp(type, "counter") == 0)
			BAD(!(val >= 0), "line %zu: negative counter\n", lineno);
		BAD(n_series >= MAXS, "too many series\n");
		series[n_series++] = strndup(line, (size_t)(q - line));
		samples_in_family++;
	}
	BAD(help_pending, "HELP without TYPE at the end\n");
	BAD(family[0] && samples_in_family == 0, "family %s has no samples\n", family);
	qsort(series, n_series, sizeof(series[0]), cmp_str);
	for (size_t i = 1; i < n_series; i++)
		BAD(strcmp(series[i - 1], series[i]) == 0, "series %s repeated\n", series[i]);
out:
	for (size_t i = 0; i < n_series; i++)
		free(series[i]);
	return why[0] ? why : NULL;
}

static void check_exposition(const char *text)
{
	const char *e = exposition_error(text);

	FAIL_IF(e, "%s", e);
}

/* The checker itself rejects what promtool rejects. */
static void test_checker(void **state)
{
	static const struct {
		const char *text;
		bool ok;
	} cases[] = {
	    {"", true},
	    {"# HELP a_total x\n# TYPE a_total counter\na_total{l=\"v\\\"\\\\\\n\"} 1\n", true},
	    {"# HELP a x\n# TYPE a gauge\na 1\n# HELP b x\n# TYPE b gauge\nb NaN\n", true},
	    {"# HELP a x\n# TYPE a gauge\na 1\n# HELP a x\n# TYPE a gauge\na 2\n", false},
	    {"# HELP a x\n# TYPE a gauge\na 1\nb 2\n", false},
	    {"# HELP a x\n# TYPE a counter\na 1\n", false},
	    {"# HELP a_total x\n# TYPE a_total counter\na_total -1\n", false},
	    {"# HELP a x\n# TYPE a gauge\na{l=\"1\"} 1\na{l=\"1\"} 2\n", false},
	    {"# HELP a x\n# TYPE a gauge\na{l=\"1\",l=\"2\"} 1\n", false},
	    {"# HELP a x\n# TYPE a gauge\na{l=\"\\t\"} 1\n", false},
	    {"# HELP a x\n# TYPE a gauge\na{__l=\"1\"} 1\n", false},
	    {"# HELP a x\n# TYPE a gauge\na 1x\n", false},
	    {"# HELP a x\n# TYPE a gauge\na 1", false},
	    {"# HELP a x\n# TYPE a gauge\n# HELP b x\n# TYPE b gauge\nb 1\n", false},
	    {"# TYPE a gauge\na 1\n", false},
	    {"# HELP a x\n# TYPE b gauge\na 1\n", false},
	    {"# HELP 1a x\n# TYPE 1a gauge\n1a 1\n", false},
	    {"# HELP a x\n# TYPE a gauge\na{l=\"\xff\"} 1\n", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *e = exposition_error(cases[i].text);

		FAIL_IF((e == NULL) != cases[i].ok, "case %zu: %s\n", i, e ? e : "accepted");
	}
}

/* ---- render helpers ---------------------------------------------------------- */

static char out[1 << 20];
static char out2[1 << 20];

static const char *render_into(struct enav_node *n, char *buf, size_t cap)
{
	struct enav_promtext p;

	enav_promtext_init(&p, buf, cap);
	enav_node_render(n, &p);
	assert_false(p.overflow);
	check_exposition(buf);
	return buf;
}

static const char *render(struct enav_node *n)
{
	return render_into(n, out, sizeof(out));
}

static bool has_line(const char *text, const char *line)
{
	size_t l = strlen(line);

	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') && p[l] == '\n')
			return true;
	return false;
}

#define EXPECT_LINE(text, line)	   FAIL_IF(!has_line(text, line), "missing line: %s\n", line)
#define EXPECT_NO_LINE(text, line) FAIL_IF(has_line(text, line), "unexpected line: %s\n", line)

static bool has_prefix_line(const char *text, const char *prefix)
{
	for (const char *p = text; (p = strstr(p, prefix)) != NULL; p++)
		if (p == text || p[-1] == '\n')
			return true;
	return false;
}

#define EXPECT_NO_PREFIX(text, prefix)                                                             \
	FAIL_IF(has_prefix_line(text, prefix), "unexpected line starting: %s\n", prefix)

/* The values of label (the first label of each sample) of metric, joined by '|'. */
static void first_labels(const char *text, const char *metric, char *joined, size_t cap)
{
	char head[160];
	size_t o = 0;

	snprintf(head, sizeof(head), "%s{", metric);
	joined[0] = '\0';
	for (const char *p = text; (p = strstr(p, head)) != NULL; p++) {
		if (p != text && p[-1] != '\n')
			continue;
		const char *v = strchr(p, '"') + 1;
		const char *e = v;

		while (*e != '"')
			e += *e == '\\' ? 2 : 1;
		o += (size_t)snprintf(joined + o, cap - o, "%s%.*s", o ? "|" : "", (int)(e - v), v);
		assert_true(o < cap);
	}
}

#define EXPECT_LABELS(text, metric, want)                                                          \
	do {                                                                                       \
		char got_[2048];                                                                   \
		first_labels(text, metric, got_, sizeof(got_));                                    \
		FAIL_IF(strcmp(got_, want) != 0, "%s: got %s want %s\n", metric, got_, want);      \
	} while (0)

/* ---- lexing and parsers -------------------------------------------------------- */

static void test_numbers(void **state)
{
	uint64_t v, m;
	unsigned sc;

	assert_true(enav_node_parse_u64("18446744073709551615", 20, &v));
	assert_true(v == UINT64_MAX);
	assert_false(enav_node_parse_u64("18446744073709551616", 20, &v));
	assert_false(enav_node_parse_u64("", 0, &v));
	assert_false(enav_node_parse_u64("12a", 3, &v));
	assert_false(enav_node_parse_u64("-1", 2, &v));
	assert_true(enav_node_parse_u64("0077", 4, &v) && v == 77);

	assert_true(enav_node_parse_decimal("0.94", 4, &m, &sc));
	assert_true(m == 94 && sc == 2);
	assert_true(enav_node_parse_decimal("12", 2, &m, &sc) && m == 12 && sc == 0);
	assert_true(enav_node_parse_decimal("3.", 2, &m, &sc) && m == 3 && sc == 0);
	assert_true(enav_node_parse_decimal("0.05", 4, &m, &sc) && m == 5 && sc == 2);
	assert_false(enav_node_parse_decimal(".", 1, &m, &sc));
	assert_false(enav_node_parse_decimal("1.2.3", 5, &m, &sc));
	assert_false(enav_node_parse_decimal("1e5", 3, &m, &sc));
	assert_false(enav_node_parse_decimal("", 0, &m, &sc));
	assert_false(enav_node_parse_decimal("12345678901234567890", 20, &m, &sc));
	/* Excess fraction digits are dropped, not an error. */
	assert_true(enav_node_parse_decimal("1.234567890123456789012", 23, &m, &sc));
	assert_true(m == 1234567890123456789ull && sc == 18);
	assert_true(enav_node_decimal_value(94, 4) == 0.0094);
	assert_true(enav_node_decimal_value(52, 2) == 0.52);
}

static void test_utf8(void **state)
{
	assert_true(enav_utf8_valid(""));
	assert_true(enav_utf8_valid("plain /srv/x"));
	assert_true(enav_utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
	assert_false(enav_utf8_valid("\xe9t\xe9"));	   /* Latin-1 */
	assert_false(enav_utf8_valid("\xc3"));		   /* truncated */
	assert_false(enav_utf8_valid("\xc0\xaf"));	   /* overlong */
	assert_false(enav_utf8_valid("\xed\xa0\x80"));	   /* surrogate */
	assert_false(enav_utf8_valid("\xf4\x90\x80\x80")); /* > U+10FFFF */
}

static void test_lines_without_final_newline(void **state)
{
	const char *s = "a\n\nb";
	const char *pos = s, *line;
	size_t len;

	assert_true(enav_node_next_line(&pos, s + 4, &line, &len) && len == 1 && line[0] == 'a');
	assert_true(enav_node_next_line(&pos, s + 4, &line, &len) && len == 0);
	assert_true(enav_node_next_line(&pos, s + 4, &line, &len) && len == 1 && line[0] == 'b');
	assert_false(enav_node_next_line(&pos, s + 4, &line, &len));
}

struct cpus {
	struct enav_node_cpu c[8];
	size_t n;
};

static void collect_cpu(void *ctx, const struct enav_node_cpu *c)
{
	struct cpus *cs = ctx;

	if (cs->n < 8)
		cs->c[cs->n++] = *c;
}

static void test_parse_stat(void **state)
{
	const char *s = "cpu  1 2 3 4 5 6 7 8 9 10\n"
			"cpu0 1 2 3 4 5 6 7 8 9 10 11 12\n" /* future fields ignored */
			"cpu7 1 2 3 4\n"		    /* 2.6.0-era line */
			"cpu8 1 2 3\n"			    /* too short */
			"cpux 1 2 3 4\n"
			"cpu9 1 2 3 4 5 x 7\n" /* stops at the first non-number */
			"intr 99 1 2 3\n"
			"ctxt 5\nbtime 6\nprocesses 7\nprocs_running 8\nprocs_blocked\n";
	struct cpus cs = {.n = 0};
	struct enav_node_stat st;

	enav_node_parse_stat(s, strlen(s), &st, collect_cpu, &cs);
	assert_int_equal(cs.n, 3);
	assert_int_equal(cs.c[0].id, 0);
	assert_int_equal(cs.c[0].n, 10);
	assert_true(cs.c[0].v[9] == 10);
	assert_int_equal(cs.c[1].id, 7);
	assert_int_equal(cs.c[1].n, 4);
	assert_int_equal(cs.c[2].id, 9);
	assert_int_equal(cs.c[2].n, 5);
	assert_int_equal(st.have, ENAV_NODE_STAT_CTXT | ENAV_NODE_STAT_BTIME |
				      ENAV_NODE_STAT_FORKS | ENAV_NODE_STAT_INTR |
				      ENAV_NODE_STAT_RUNNING);
	assert_true(st.intr == 99 && st.ctxt == 5 && st.btime == 6 && st.forks == 7 &&
		    st.running == 8);
}

static void test_parse_loadavg_filenr(void **state)
{
	double l[3];
	struct enav_node_filenr f;

	assert_true(enav_node_parse_loadavg("0.52 0.75 12.00 2/178 1234\n", 26, l));
	assert_true(l[0] == 0.52 && l[1] == 0.75 && l[2] == 12.0);
	assert_false(enav_node_parse_loadavg("0.52 0.75\n1.0", 13, l));
	assert_false(enav_node_parse_loadavg("", 0, l));
	assert_true(enav_node_parse_filenr("423\t0\t2466177", 13, &f));
	assert_true(f.allocated == 423 && f.unused == 0 && f.maximum == 2466177);
	assert_false(enav_node_parse_filenr("423\t0\n", 6, &f));
}

struct mems {
	struct enav_node_mem_field f[8];
	size_t n;
};

static void collect_mem(void *ctx, const struct enav_node_mem_field *f)
{
	struct mems *m = ctx;

	if (m->n < 8)
		m->f[m->n++] = *f;
}

static void test_parse_meminfo(void **state)
{
	const char *s = "Active(anon):   5 kB\n"
			"HugePages_Total:       4\n"
			"Odd-Name.x:  7 kB\n"
			"Big: 5 MB\n"		/* unknown unit */
			"NoColon 5 kB\n"	/* not a key */
			"Trailing: 5 kB more\n" /* garbage */
			"Neg: -1 kB\n"
			"\n"
			"Last:  9 kB";
	struct mems m = {.n = 0};

	enav_node_parse_meminfo(s, strlen(s), collect_mem, &m);
	assert_int_equal(m.n, 4);
	assert_string_equal(m.f[0].name, "Active_anon");
	assert_true(m.f[0].kb && m.f[0].value == 5);
	assert_string_equal(m.f[1].name, "HugePages_Total");
	assert_true(!m.f[1].kb && m.f[1].value == 4);
	assert_string_equal(m.f[2].name, "Odd_Name_x");
	assert_string_equal(m.f[3].name, "Last");
	assert_true(m.f[3].kb && m.f[3].value == 9);
}

static void test_parse_psi(void **state)
{
	struct enav_node_psi psi;
	const char *s = "some avg10=0.94 avg60=1.82 avg300=3.69 total=150368512\n"
			"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";

	assert_true(enav_node_parse_psi(s, strlen(s), &psi));
	assert_true(psi.some.present && psi.full.present);
	assert_true(psi.some.total_us == 150368512);
	assert_true(psi.some.avg_mant[0] == 94 && psi.some.avg_scale[0] == 2);
	assert_true(psi.some.avg_mant[2] == 369 && psi.some.avg_scale[2] == 2);

	/* A line missing a field is not reported. */
	s = "some avg10=0.94 avg60=1.82 total=5\nfull avg10=1 avg60=2 avg300=3 total=4";
	assert_true(enav_node_parse_psi(s, strlen(s), &psi));
	assert_false(psi.some.present);
	assert_true(psi.full.present && psi.full.total_us == 4);
	assert_false(enav_node_parse_psi("", 0, &psi));
	assert_false(enav_node_parse_psi("bogus\n", 6, &psi));
}

struct disks {
	struct enav_node_disk d[8];
	size_t n;
};

static void collect_disk(void *ctx, const struct enav_node_disk *d)
{
	struct disks *ds = ctx;

	if (ds->n < 8)
		ds->d[ds->n++] = *d;
}

static void test_parse_diskstats(void **state)
{
	const char *s = "   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n"
			" 259 0 nvme0n1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n"
			" 202 0 xvda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n"
			" 8 1 sdb 1 2 3 4 5 6 7 8 9 10 11 12\n" /* partial group: classic only */
			" 8 2 sdc 1 2 3 4 5 6 7 8 9 10\n"	/* too short */
			" 8 3 sdd 1 2 3 4 5 6 7 8 9 10 x\n"
			" 8 4 sde 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20\n"
			"x 0 sdf 1 2 3 4 5 6 7 8 9 10 11\n"
			" 8 5\n";
	struct disks ds = {.n = 0};

	enav_node_parse_diskstats(s, strlen(s), collect_disk, &ds);
	assert_int_equal(ds.n, 5);
	assert_string_equal(ds.d[0].name, "sda");
	assert_int_equal(ds.d[0].n, 11);
	assert_string_equal(ds.d[1].name, "nvme0n1");
	assert_int_equal(ds.d[1].n, 17);
	assert_true(ds.d[1].v[16] == 17);
	assert_int_equal(ds.d[1].major, 259);
	assert_string_equal(ds.d[2].name, "xvda");
	assert_int_equal(ds.d[2].n, 15);
	assert_string_equal(ds.d[3].name, "sdb");
	assert_int_equal(ds.d[3].n, 11);
	assert_string_equal(ds.d[4].name, "sde");
	assert_int_equal(ds.d[4].n, 17);
}

static void test_disk_exclusion(void **state)
{
	/* ^(ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\d+n\d+p)\d+$ */
	static const char *const excluded[] = {
	    "ram0", "ram15", "loop0", "loop127", "fd0",	      "sda1",	    "sdz9",
	    "hda1", "vdb12", "xvda1", "xvdf10",	 "nvme0n1p1", "nvme12n3p45"};
	static const char *const kept[] = {
	    "sda",	 "sdaa1", "sdaa",   "vda",   "xvda",	"nvme0n1",   "nvme0n1p",
	    "nvme0c0n1", "zram0", "dm-0",   "md127", "mmcblk0", "mmcblk0p1", "sr0",
	    "ram",	 "loop",  "loopx0", "rbd0",  "nbd0p1",	"sd1",	     "nvmen1p1",
	};

	for (size_t i = 0; i < sizeof(excluded) / sizeof(excluded[0]); i++)
		FAIL_IF(!enav_node_disk_excluded(excluded[i]), "%s kept\n", excluded[i]);
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		FAIL_IF(enav_node_disk_excluded(kept[i]), "%s excluded\n", kept[i]);
}

struct nets {
	struct enav_node_netdev d[8];
	size_t n;
};

static void collect_net(void *ctx, const struct enav_node_netdev *d)
{
	struct nets *ns = ctx;

	if (ns->n < 8)
		ns->d[ns->n++] = *d;
}

static void test_parse_netdev(void **state)
{
	const char *s =
	    "Inter-|   Receive                                                |  Transmit\n"
	    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
	    "errs drop fifo colls carrier compressed\n"
	    "  eth0:123456789012 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n" /* no blank after ':' */
	    "a:b: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n"		/* split on the last ':' */
	    "short: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n"
	    ": 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n" /* no name */
	    "bad: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 x\n"
	    "vlan.7@x-y: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16";
	struct nets ns = {.n = 0};

	enav_node_parse_netdev(s, strlen(s), collect_net, &ns);
	assert_int_equal(ns.n, 3);
	assert_string_equal(ns.d[0].name, "eth0");
	assert_true(ns.d[0].v[0] == 123456789012ull && ns.d[0].v[15] == 15);
	assert_string_equal(ns.d[1].name, "a:b");
	assert_true(ns.d[1].v[15] == 16);
	assert_string_equal(ns.d[2].name, "vlan.7@x-y");
	assert_true(enav_node_netdev_excluded("lo"));
	assert_false(enav_node_netdev_excluded("lo0"));
	assert_false(enav_node_netdev_excluded("eth0"));
}

struct mounts {
	char mp[8][256];
	char dev[8][256];
	bool ro[8];
	size_t n;
};

static void collect_mount(void *ctx, const struct enav_node_mount *m)
{
	struct mounts *ms = ctx;

	if (ms->n < 8) {
		snprintf(ms->mp[ms->n], 256, "%s", m->mountpoint);
		snprintf(ms->dev[ms->n], 256, "%s", m->device);
		ms->ro[ms->n++] = m->readonly;
	}
}

static void test_parse_mounts(void **state)
{
	static struct enav_node_mount scratch;
	const char *s = "/dev/sda1 /my\\040disk ext4 rw,relatime 0 0\n"
			"/dev/x\\011y /a\\134b xfs ro 0 0\n"
			"/dev/z /nul\\000 ext4 rw 0 0\n" /* a decoded NUL: refused */
			"/dev/z /x ext4\n"		 /* no options */
			"tmpfs /t tmpfs rw,noatime,ro_thing 0 0\n"
			"d /bad\\9x ext4 rw,ro";
	struct mounts ms = {.n = 0};
	char buf[8];

	enav_node_parse_mounts(s, strlen(s), &scratch, collect_mount, &ms);
	assert_int_equal(ms.n, 4);
	assert_string_equal(ms.mp[0], "/my disk");
	assert_false(ms.ro[0]);
	assert_string_equal(ms.dev[1], "/dev/x\ty");
	assert_string_equal(ms.mp[1], "/a\\b");
	assert_true(ms.ro[1]);
	assert_string_equal(ms.mp[2], "/t");
	assert_false(ms.ro[2]);
	assert_string_equal(ms.mp[3], "/bad\\9x");
	assert_true(ms.ro[3]);

	assert_true(enav_node_mount_unescape("ab\\", 3, buf, sizeof(buf)));
	assert_string_equal(buf, "ab\\");
	assert_true(enav_node_mount_unescape("\\477", 4, buf, sizeof(buf)));
	assert_string_equal(buf, "\\477"); /* > 0377: not an escape */
	assert_true(enav_node_mount_unescape("1234567", 7, buf, sizeof(buf)));
	assert_false(enav_node_mount_unescape("12345678", 8, buf, sizeof(buf)));
}

static void test_fs_exclusion(void **state)
{
	static const struct {
		const char *fstype, *mountpoint;
		bool excluded;
	} cases[] = {
	    {"ext4", "/", false},
	    {"ext4", "/dev", true},
	    {"tmpfs", "/dev/shm", true},
	    {"ext4", "/devices", false},
	    {"tmpfs", "/run", true},
	    {"tmpfs", "/run/user/1000", true},
	    {"ext4", "/running", false},
	    {"ext4", "/mnt", true},
	    {"ext4", "/mnt/data", true},
	    {"ext4", "/media/usb", true},
	    {"ext4", "/sys/fs/x", true},
	    {"ext4", "/proc/fs/nfsd", true},
	    {"ext4", "/var/lib/docker", false},
	    {"ext4", "/var/lib/docker/", false},
	    {"ext4", "/var/lib/docker/volumes", true},
	    {"ext4", "/var/lib/containers/storage/overlay", true},
	    {"ext4", "/var/lib/containers/storage", false},
	    {"tmpfs", "/var/lib/kubelet/pods/x/volumes/a", false},
	    {"overlay", "/merged", true},
	    {"cgroup", "/cg", true},
	    {"cgroup2", "/cg", true},
	    {"cgroup3", "/cg", false},
	    {"squashfs", "/snap/core/1", true},
	    {"tmpfs", "/tmp", false},
	    {"fuse.lxcfs", "/var/lib/lxcfs", false},
	    {"ext4", "relative", false},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		FAIL_IF(enav_node_fs_excluded(cases[i].fstype, cases[i].mountpoint) !=
			    cases[i].excluded,
			"%s %s: want excluded=%d\n", cases[i].fstype, cases[i].mountpoint,
			cases[i].excluded);
	assert_true(enav_node_fs_remote("nfs"));
	assert_true(enav_node_fs_remote("nfs4"));
	assert_true(enav_node_fs_remote("cifs"));
	assert_true(enav_node_fs_remote("fuse.sshfs"));
	assert_false(enav_node_fs_remote("ext4"));
	assert_false(enav_node_fs_remote("fuseblk"));
}

static void test_parse_os_release(void **state)
{
	static struct enav_node_os os;
	const char *s = "# comment\n"
			"NAME=\"A \\\"B\\\" \\$x \\q\"\n"
			"ID=plain\\ word\n"
			"ID_LIKE='single \"q\"'\n"
			"  VERSION_ID=\"1.2\" # trailing\n"
			"VERSION=\"unterminated\n"
			"BUILD_ID=\n"
			"LOWER=x\n"
			"=nokey\n"
			"VARIANT_ID=a'b'c";

	assert_true(enav_node_parse_os_release(s, strlen(s), &os));
	assert_string_equal(os.v[ENAV_NODE_OS_NAME], "A \"B\" $x \\q");
	assert_string_equal(os.v[ENAV_NODE_OS_ID], "plain word");
	assert_string_equal(os.v[ENAV_NODE_OS_ID_LIKE], "single \"q\"");
	assert_string_equal(os.v[ENAV_NODE_OS_VERSION_ID], "1.2");
	assert_string_equal(os.v[ENAV_NODE_OS_VERSION], "");
	assert_string_equal(os.v[ENAV_NODE_OS_BUILD_ID], "");
	assert_string_equal(os.v[ENAV_NODE_OS_VARIANT_ID], "abc");
	assert_false(enav_node_parse_os_release("# nothing\n", 10, &os));

	assert_true(enav_node_os_version_number("12") == 12);
	assert_true(enav_node_os_version_number("22.04") == 22.04);
	assert_true(enav_node_os_version_number("3.18.4") == 3.18);
	assert_true(enav_node_os_version_number("7.") == 7);
	assert_true(enav_node_os_version_number("") == 0);
	assert_true(enav_node_os_version_number("rolling") == 0);
}

/* ---- whole renders ------------------------------------------------------------ */

static void test_this_machine(void **state)
{
	struct enav_node *n = open_case(FIX "this_machine/proc", 256, NULL);
	const char *t = render(n);

	/* /proc/stat */
	EXPECT_LINE(t, "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 3041.5900000000001");
	EXPECT_LINE(t, "node_cpu_seconds_total{cpu=\"1\",mode=\"user\"} 925.13");
	EXPECT_LINE(t, "node_cpu_guest_seconds_total{cpu=\"1\",mode=\"nice\"} 0");
	EXPECT_LINE(t, "node_boot_time_seconds 1796019140");
	EXPECT_LINE(t, "node_context_switches_total 10446515");
	/* loadavg, meminfo, PSI, file-nr */
	EXPECT_LINE(t, "node_load1 0.33000000000000002");
	EXPECT_LINE(t, "node_memory_MemTotal_bytes 25276510208");
	EXPECT_LINE(t, "node_memory_Active_anon_bytes 1257472");
	EXPECT_LINE(t, "node_memory_HugePages_Total 0");
	EXPECT_LINE(t, "node_memory_Hugepagesize_bytes 2097152");
	EXPECT_LINE(t, "node_pressure_cpu_waiting_seconds_total 159.730985");
	EXPECT_LINE(t, "node_pressure_memory_stalled_seconds_total 8.2000000000000001e-05");
	EXPECT_LINE(t, "enav_host_pressure_ratio{resource=\"cpu\",kind=\"some\",window=\"10s\"} "
		       "0.0071000000000000004");
	EXPECT_NO_PREFIX(t, "node_pressure_cpu_stalled");
	EXPECT_LINE(t, "node_filefd_maximum 2466177");
	/* devices: loop* and lo are excluded */
	EXPECT_LABELS(t, "node_disk_reads_completed_total", "vda|zram0");
	EXPECT_LABELS(t, "node_disk_flush_requests_total", "vda|zram0");
	EXPECT_LINE(t, "node_disk_read_bytes_total{device=\"vda\"} 3629941760");
	EXPECT_LINE(t, "node_disk_discard_time_seconds_total{device=\"vda\"} 1.643");
	EXPECT_LABELS(t, "node_network_receive_bytes_total", "ifb0|ifb1|eth0");
	EXPECT_LINE(t, "node_network_receive_bytes_total{device=\"eth0\"} 63307596");
	/* filesystems: only / (the rest is under /dev, /sys, /mnt or a pseudo type) */
	EXPECT_LABELS(t, "node_filesystem_device_error", "/dev/vda");
	EXPECT_LINE(t, "node_filesystem_size_bytes{device=\"/dev/vda\",fstype=\"ext4\","
		       "mountpoint=\"/\"} 4096000");
	/* misc */
	EXPECT_LINE(t, "node_time_seconds 1700000000.5");
	EXPECT_LINE(t,
		    "node_os_info{build_id=\"\",id=\"debian\",id_like=\"\",image_id=\"\","
		    "image_version=\"\",name=\"Debian GNU/Linux\",pretty_name=\"Debian GNU/Linux "
		    "12 (bookworm)\",variant=\"\",variant_id=\"\",version=\"12 (bookworm)\","
		    "version_codename=\"bookworm\",version_id=\"12\"} 1");
	EXPECT_LINE(t, "node_os_version{id=\"debian\",id_like=\"\",name=\"Debian GNU/Linux\"} 12");
	for (const char *c = "stat\0loadavg\0meminfo\0pressure\0diskstats\0netdev\0filesystem\0"
			     "filefd\0os\0";
	     *c; c += strlen(c) + 1) {
		char line[128];

		snprintf(line, sizeof(line), "enav_host_collector_available{collector=\"%s\"} 1",
			 c);
		EXPECT_LINE(t, line);
	}
	EXPECT_NO_PREFIX(t, "enav_host_read_errors_total{file=\"/proc/stat\"} 1");
	enav_node_close(n);
}

static void test_odd(void **state)
{
	struct enav_node *n;
	const char *t;

	n_statvfs_calls = 0;
	n = open_case(FIX "odd/proc", 256, NULL);
	t = render(n);

	/* CPUs 0, 2, 3: cpu1 is offline */
	EXPECT_LABELS(t, "node_cpu_seconds_total",
		      "0|0|0|0|0|0|0|0|2|2|2|2|2|2|2|2|3|3|3|3|3|3|3|3");
	EXPECT_LINE(t, "node_cpu_seconds_total{cpu=\"2\",mode=\"idle\"} 12345.67");
	EXPECT_LINE(t, "node_cpu_seconds_total{cpu=\"3\",mode=\"steal\"} 0.25");
	EXPECT_LINE(t, "node_cpu_guest_seconds_total{cpu=\"0\",mode=\"user\"} 2.5");
	EXPECT_LINE(t, "node_cpu_guest_seconds_total{cpu=\"0\",mode=\"nice\"} 0.10000000000000001");
	EXPECT_NO_PREFIX(t, "node_cpu_seconds_total{cpu=\"1\"");
	EXPECT_LINE(t, "node_boot_time_seconds 1700000000");
	EXPECT_LINE(t, "node_context_switches_total 123456789");
	EXPECT_LINE(t, "node_intr_total 987654321");
	EXPECT_LINE(t, "node_forks_total 4242");
	EXPECT_LINE(t, "node_procs_running 3");
	EXPECT_LINE(t, "node_procs_blocked 1");
	EXPECT_LINE(t, "node_load1 1.5");
	EXPECT_LINE(t, "node_load5 0.25");
	EXPECT_LINE(t, "node_load15 12");

	/* a short meminfo: what is there, nothing else */
	EXPECT_LINE(t, "node_memory_MemTotal_bytes 2097152000");
	EXPECT_LINE(t, "node_memory_Active_anon_bytes 10240000");
	EXPECT_LINE(t, "node_memory_Inactive_file_bytes 20480000");
	EXPECT_LINE(t, "node_memory_HugePages_Total 4");
	EXPECT_LINE(t, "node_memory_HugePages_Free 2");
	EXPECT_LINE(t, "node_memory_Hugepagesize_bytes 2097152");
	EXPECT_NO_PREFIX(t, "node_memory_MemAvailable");
	EXPECT_NO_PREFIX(t, "# HELP node_memory_MemAvailable");

	/* no PSI: no pressure family, not an error */
	EXPECT_NO_PREFIX(t, "# HELP node_pressure");
	EXPECT_NO_PREFIX(t, "# HELP enav_host_pressure_ratio");
	EXPECT_LINE(t, "enav_host_collector_available{collector=\"pressure\"} 0");
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/pressure/cpu\"} 0");
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/pressure/memory\"} 0");
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/pressure/io\"} 0");

	/* diskstats: exact exclusion; 11-, 15- and 17-statistic lines */
	EXPECT_LABELS(t, "node_disk_reads_completed_total",
		      "sda|sdaa|sdaa1|nvme0n1|xvda|dm-0|mmcblk0|mmcblk0p1");
	EXPECT_LABELS(t, "node_disk_discards_completed_total", "nvme0n1|xvda|dm-0");
	EXPECT_LABELS(t, "node_disk_flush_requests_total", "nvme0n1|dm-0");
	EXPECT_LINE(t, "node_disk_read_bytes_total{device=\"sda\"} 10240000");
	EXPECT_LINE(t, "node_disk_written_bytes_total{device=\"sda\"} 20480000");
	EXPECT_LINE(t, "node_disk_read_time_seconds_total{device=\"sda\"} 0.5");
	EXPECT_LINE(t, "node_disk_write_time_seconds_total{device=\"sda\"} 1.5");
	EXPECT_LINE(t, "node_disk_io_now{device=\"sda\"} 2");
	EXPECT_LINE(t, "node_disk_io_time_seconds_total{device=\"sda\"} 1.8");
	EXPECT_LINE(t, "node_disk_io_time_weighted_seconds_total{device=\"sda\"} 2");
	EXPECT_LINE(t, "node_disk_reads_merged_total{device=\"sda\"} 10");
	EXPECT_LINE(t, "node_disk_writes_merged_total{device=\"sda\"} 20");
	EXPECT_LINE(t, "node_disk_writes_completed_total{device=\"sda\"} 2000");
	EXPECT_LINE(t, "node_disk_discarded_sectors_total{device=\"xvda\"} 4096");
	EXPECT_LINE(t, "node_disk_discard_time_seconds_total{device=\"nvme0n1\"} "
		       "1.5029999999999999");
	EXPECT_LINE(t, "node_disk_discards_merged_total{device=\"nvme0n1\"} 65");
	EXPECT_LINE(t, "node_disk_flush_requests_total{device=\"dm-0\"} 5");
	EXPECT_LINE(t, "node_disk_flush_requests_time_seconds_total{device=\"nvme0n1\"} "
		       "0.050999999999999997");

	/* net/dev: names with '.', '-', '@'; u64 max survives exactly; lo excluded */
	EXPECT_LABELS(t, "node_network_receive_bytes_total", "eth0.100|br-1a2b3c|wg@edge0");
	EXPECT_LINE(t, "node_network_receive_bytes_total{device=\"eth0.100\"} "
		       "18446744073709551615");
	EXPECT_LINE(t, "node_network_receive_multicast_total{device=\"br-1a2b3c\"} 1");
	EXPECT_LINE(t, "node_network_transmit_colls_total{device=\"wg@edge0\"} 6");
	EXPECT_LINE(t, "node_network_transmit_carrier_total{device=\"wg@edge0\"} 7");
	EXPECT_LINE(t, "node_network_transmit_compressed_total{device=\"wg@edge0\"} 8");
	EXPECT_LINE(t, "node_network_receive_frame_total{device=\"wg@edge0\"} 2");

	/* filesystems: exclusions, dedup, escapes, errors, read-only */
	EXPECT_LABELS(
	    t, "node_filesystem_device_error",
	    "/dev/sda1|/dev/sdb1|/dev/sdb2|/dev/sdb3|tmpfs|/dev/sdc1|/dev/sdd1|/dev/sde1");
	EXPECT_LINE(t, "node_filesystem_readonly{device=\"/dev/sdb1\",fstype=\"xfs\","
		       "mountpoint=\"/srv/my data\"} 1");
	EXPECT_LINE(t, "node_filesystem_size_bytes{device=\"/dev/sdb2\",fstype=\"ext4\","
		       "mountpoint=\"/srv/back\\\\slash\"} 4096000");
	EXPECT_LINE(t, "node_filesystem_avail_bytes{device=\"/dev/sdb3\",fstype=\"ext4\","
		       "mountpoint=\"/srv/quo\\\"te\"} 1228800");
	EXPECT_LINE(t, "node_filesystem_free_bytes{device=\"/dev/sda1\",fstype=\"ext4\","
		       "mountpoint=\"/\"} 1638400");
	EXPECT_LINE(t, "node_filesystem_files{device=\"/dev/sda1\",fstype=\"ext4\","
		       "mountpoint=\"/\"} 100");
	EXPECT_LINE(t, "node_filesystem_files_free{device=\"/dev/sda1\",fstype=\"ext4\","
		       "mountpoint=\"/\"} 50");
	EXPECT_LINE(t, "node_filesystem_readonly{device=\"/dev/sda1\",fstype=\"ext4\","
		       "mountpoint=\"/\"} 0");
	EXPECT_LINE(t, "node_filesystem_readonly{device=\"/dev/sdd1\",fstype=\"ext4\","
		       "mountpoint=\"/devices\"} 1");
	EXPECT_LINE(t, "node_filesystem_readonly{device=\"/dev/sde1\",fstype=\"ext4\","
		       "mountpoint=\"/var/lib/docker\"} 1");
	EXPECT_LINE(t, "node_filesystem_device_error{device=\"/dev/sdc1\",fstype=\"ext4\","
		       "mountpoint=\"/broken\"} 1");
	EXPECT_LINE(t, "node_filesystem_device_error{device=\"tmpfs\",fstype=\"tmpfs\","
		       "mountpoint=\"/var/lib/kubelet/pods/0c1d/volumes/kubernetes.io~projected/"
		       "kube-api-access\"} 0");
	EXPECT_NO_PREFIX(t, "node_filesystem_size_bytes{device=\"/dev/sdc1\"");
	/* the NFS mount was never statvfs'd */
	for (size_t i = 0; i < n_statvfs_calls && i < 64; i++)
		FAIL_IF(strcmp(statvfs_calls[i], "/data/nfs") == 0, "statvfs on NFS\n");
	assert_int_equal(n_statvfs_calls, 8);

	EXPECT_LINE(t, "node_filefd_allocated 1024");
	EXPECT_LINE(t, "node_filefd_maximum 9223372036854775807");
	EXPECT_LINE(t, "node_uname_info{domainname=\"(none)\",machine=\"x86_64\","
		       "nodename=\"node-1\",release=\"6.1.0-odd\",sysname=\"Linux\","
		       "version=\"#1 SMP \\\"quoted\\\"\"} 1");
	EXPECT_LINE(t, "node_os_info{build_id=\"\",id=\"odd\",id_like=\"debian ubuntu\","
		       "image_id=\"\",image_version=\"\",name=\"Odd \\\"Linux\\\"\","
		       "pretty_name=\"Odd Linux 22.04.3 LTS\",variant=\"\",variant_id=\"server\","
		       "version=\"22.04.3 LTS (Jammy)\",version_codename=\"jammy\","
		       "version_id=\"22.04\"} 1");
	EXPECT_LINE(t, "node_os_version{id=\"odd\",id_like=\"debian ubuntu\",name=\"Odd "
		       "\\\"Linux\\\"\"} 22.039999999999999");
	for (const char *k = "cpu\0disk\0netdev\0filesystem\0"; *k; k += strlen(k) + 1) {
		char line[128];

		snprintf(line, sizeof(line), "enav_host_devices_dropped_total{kind=\"%s\"} 0", k);
		EXPECT_LINE(t, line);
	}
	enav_node_close(n);
}

/* The whole exposition of a tree holding /proc/stat alone. */
static void test_minimal_exact(void **state)
{
	struct enav_node *n = open_case(FIX "minimal/proc", 16, NULL);
	const char *t = render(n);
	const char *want =
	    "# HELP node_context_switches_total Context switches since boot.\n"
	    "# TYPE node_context_switches_total counter\n"
	    "node_context_switches_total 5\n"
	    "# HELP node_cpu_seconds_total Seconds CPUs spent in each mode.\n"
	    "# TYPE node_cpu_seconds_total counter\n"
	    "node_cpu_seconds_total{cpu=\"0\",mode=\"user\"} 0.01\n"
	    "node_cpu_seconds_total{cpu=\"0\",mode=\"nice\"} 0.02\n"
	    "node_cpu_seconds_total{cpu=\"0\",mode=\"system\"} 0.029999999999999999\n"
	    "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 0.040000000000000001\n"
	    "# HELP node_time_seconds System time in seconds since the epoch.\n"
	    "# TYPE node_time_seconds gauge\n"
	    "node_time_seconds 1700000000.5\n"
	    "# HELP node_uname_info Constant 1, labelled with uname(2)'s fields.\n"
	    "# TYPE node_uname_info gauge\n"
	    "node_uname_info{domainname=\"(none)\",machine=\"x86_64\",nodename=\"node-1\","
	    "release=\"6.1.0-odd\",sysname=\"Linux\",version=\"#1 SMP \\\"quoted\\\"\"} 1\n"
	    "# HELP enav_host_read_errors_total Scrapes where a node source file could not be "
	    "opened, read or parsed (a kernel without PSI is not an error).\n"
	    "# TYPE enav_host_read_errors_total counter\n"
	    "enav_host_read_errors_total{file=\"/proc/stat\"} 0\n"
	    "enav_host_read_errors_total{file=\"/proc/loadavg\"} 1\n"
	    "enav_host_read_errors_total{file=\"/proc/meminfo\"} 1\n"
	    "enav_host_read_errors_total{file=\"/proc/pressure/cpu\"} 0\n"
	    "enav_host_read_errors_total{file=\"/proc/pressure/memory\"} 0\n"
	    "enav_host_read_errors_total{file=\"/proc/pressure/io\"} 0\n"
	    "enav_host_read_errors_total{file=\"/proc/diskstats\"} 1\n"
	    "enav_host_read_errors_total{file=\"/proc/net/dev\"} 1\n"
	    "enav_host_read_errors_total{file=\"/proc/self/mounts\"} 1\n"
	    "enav_host_read_errors_total{file=\"/proc/sys/fs/file-nr\"} 1\n"
	    "enav_host_read_errors_total{file=\"/etc/os-release\"} 1\n"
	    "# HELP enav_host_devices_dropped_total Devices left out of a scrape because their "
	    "kind reached host.max_devices, summed over scrapes.\n"
	    "# TYPE enav_host_devices_dropped_total counter\n"
	    "enav_host_devices_dropped_total{kind=\"cpu\"} 0\n"
	    "enav_host_devices_dropped_total{kind=\"disk\"} 0\n"
	    "enav_host_devices_dropped_total{kind=\"netdev\"} 0\n"
	    "enav_host_devices_dropped_total{kind=\"filesystem\"} 0\n"
	    "# HELP enav_host_collector_available 1 when the node collector's source was read in "
	    "this scrape.\n"
	    "# TYPE enav_host_collector_available gauge\n"
	    "enav_host_collector_available{collector=\"stat\"} 1\n"
	    "enav_host_collector_available{collector=\"loadavg\"} 0\n"
	    "enav_host_collector_available{collector=\"meminfo\"} 0\n"
	    "enav_host_collector_available{collector=\"pressure\"} 0\n"
	    "enav_host_collector_available{collector=\"diskstats\"} 0\n"
	    "enav_host_collector_available{collector=\"netdev\"} 0\n"
	    "enav_host_collector_available{collector=\"filesystem\"} 0\n"
	    "enav_host_collector_available{collector=\"filefd\"} 0\n"
	    "enav_host_collector_available{collector=\"os\"} 0\n";

	assert_string_equal(t, want);
	/* Missing files are retried and counted at every scrape; os-release only at open. */
	t = render(n);
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/loadavg\"} 2");
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/etc/os-release\"} 1");
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/pressure/cpu\"} 0");
	enav_node_close(n);
}

static void test_render_twice_identical(void **state)
{
	static const char *const cases[] = {FIX "this_machine/proc", FIX "odd/proc"};

	for (size_t i = 0; i < 2; i++) {
		struct enav_node *n = open_case(cases[i], 256, NULL);

		render_into(n, out, sizeof(out));
		render_into(n, out2, sizeof(out2));
		FAIL_IF(strcmp(out, out2) != 0, "%s: renders differ\n", cases[i]);
		enav_node_close(n);
	}
}

/* One pread per open file per scrape, and nothing reallocated in steady state. */
static void test_steady_state_cost(void **state)
{
	struct enav_node *n = open_case(FIX "this_machine/proc", 256, NULL);

	render(n);
	char *buf = n->buf, *arena = n->arena;
	size_t cap = n->buf_cap;

	n_preads = 0;
	render(n);
	/* stat loadavg meminfo 3xPSI diskstats net/dev mounts file-nr */
	assert_int_equal(n_preads, 10);
	assert_ptr_equal(n->buf, buf);
	assert_ptr_equal(n->arena, arena);
	assert_int_equal(n->buf_cap, cap);
	enav_node_close(n);
}

static void test_device_caps(void **state)
{
	struct enav_node *n = open_case(FIX "odd/proc", 2, NULL);
	const char *t = render(n);

	EXPECT_LABELS(t, "node_cpu_seconds_total", "0|0|0|0|0|0|0|0|2|2|2|2|2|2|2|2");
	EXPECT_LABELS(t, "node_disk_reads_completed_total", "sda|sdaa");
	EXPECT_LABELS(t, "node_network_receive_bytes_total", "eth0.100|br-1a2b3c");
	EXPECT_LABELS(t, "node_filesystem_device_error", "/dev/sda1|/dev/sdb1");
	EXPECT_LINE(t, "enav_host_devices_dropped_total{kind=\"cpu\"} 1");
	EXPECT_LINE(t, "enav_host_devices_dropped_total{kind=\"disk\"} 6");
	EXPECT_LINE(t, "enav_host_devices_dropped_total{kind=\"netdev\"} 1");
	EXPECT_LINE(t, "enav_host_devices_dropped_total{kind=\"filesystem\"} 6");
	t = render(n);
	EXPECT_LINE(t, "enav_host_devices_dropped_total{kind=\"cpu\"} 2");
	EXPECT_LINE(t, "enav_host_devices_dropped_total{kind=\"disk\"} 12");
	enav_node_close(n);
}

static void test_psi_unsupported(void **state)
{
	struct enav_node_hooks h = fake_hooks;
	struct enav_node *n;
	const char *t;

	h.pread_fn = psi_unsupported_pread;
	n = open_case(FIX "this_machine/proc", 256, &h);
	t = render(n);
	EXPECT_NO_PREFIX(t, "# HELP node_pressure");
	EXPECT_NO_PREFIX(t, "# HELP enav_host_pressure_ratio");
	EXPECT_LINE(t, "enav_host_collector_available{collector=\"pressure\"} 0");
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/pressure/cpu\"} 0");
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/pressure/io\"} 0");
	EXPECT_LINE(t, "enav_host_collector_available{collector=\"meminfo\"} 1");
	enav_node_close(n);
}

static void test_read_error_recovers(void **state)
{
	struct enav_node *n = open_case(FIX "this_machine/proc", 256, NULL);
	const char *t;

	fail_stat_read = true;
	t = render(n);
	fail_stat_read = false;
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/stat\"} 1");
	EXPECT_LINE(t, "enav_host_collector_available{collector=\"stat\"} 0");
	EXPECT_NO_PREFIX(t, "# HELP node_cpu_seconds_total");
	t = render(n); /* reopened */
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/stat\"} 1");
	EXPECT_LINE(t, "enav_host_collector_available{collector=\"stat\"} 1");
	EXPECT_LINE(t, "node_context_switches_total 10446515");
	enav_node_close(n);
}

/* ---- large files ------------------------------------------------------------------ */

static char tmpdir[64];

static void make_tree(void)
{
	char path[128];

	strcpy(tmpdir, "/tmp/enav_node_XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/proc", tmpdir);
	assert_int_equal(mkdir(path, 0755), 0);
}

static FILE *open_proc(const char *name)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	return f;
}

static void write_proc(const char *name, const char *content)
{
	FILE *f = open_proc(name);

	fputs(content, f);
	fclose(f);
}

static void write_stat(size_t intr_fields)
{
	FILE *f = open_proc("stat");

	fputs("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 7", f);
	for (size_t i = 0; i < intr_fields; i++)
		fputs(" 0", f);
	fputs("\nctxt 42\n", f);
	fclose(f);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_tree(void)
{
	nftw(tmpdir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static char tmp_proc[96];

static const char *tree_proc(void)
{
	snprintf(tmp_proc, sizeof(tmp_proc), "%s/proc", tmpdir);
	return tmp_proc;
}

/* Repeated and out-of-order records (which no kernel writes) still give unique series. */
static void test_repeated_records(void **state)
{
	struct enav_node *n;
	const char *t;

	make_tree();
	write_proc("stat",
		   "cpu3 1 2 3 4\ncpu2 1 2 3 4\ncpu3 1 2 3 4\ncpu0 1 2 3 4\ncpu2 5 5 5 5\n");
	write_proc("diskstats", " 8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n"
				" 8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n");
	write_proc("meminfo", "A: 1 kB\nA_bytes: 2\nA(x): 3 kB\nA_x: 4\nA: 5\n");
	n = open_case(tree_proc(), 16, NULL);
	t = render(n);
	EXPECT_LABELS(t, "node_cpu_seconds_total", "3|3|3|3|2|2|2|2|0|0|0|0");
	EXPECT_LABELS(t, "node_disk_reads_completed_total", "sda");
	EXPECT_NO_PREFIX(t, "# HELP node_disk_discards_completed_total");
	EXPECT_LINE(t, "node_memory_A_bytes 1024");
	EXPECT_LINE(t, "node_memory_A_x_bytes 3072");
	EXPECT_LINE(t, "node_memory_A_x 4");
	EXPECT_LINE(t, "node_memory_A 5");
	enav_node_close(n);
	remove_tree();
}

static void test_buffer_growth(void **state)
{
	char root[128];
	struct enav_node *n;
	const char *t;

	make_tree();
	snprintf(root, sizeof(root), "%s", tree_proc());

	/* ~600 KiB: the buffer grows (once) and the line after the long one is read. */
	write_stat(300000);
	n = open_case(root, 16, NULL);
	t = render(n);
	EXPECT_LINE(t, "node_context_switches_total 42");
	EXPECT_LINE(t, "node_intr_total 7");
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/stat\"} 0");
	assert_true(n->buf_cap >= 600000 && n->buf_cap <= ENAV_NODE_BUF_MAX);
	size_t cap = n->buf_cap;

	t = render(n);
	assert_int_equal(n->buf_cap, cap);
	enav_node_close(n);

	/* Over the 4 MiB cap: whole lines up to the cap are kept, the rest is an error. */
	write_stat(2200000);
	n = open_case(root, 16, NULL);
	t = render(n);
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/stat\"} 1");
	EXPECT_LINE(t, "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 0.040000000000000001");
	EXPECT_NO_PREFIX(t, "node_context_switches_total");
	EXPECT_NO_PREFIX(t, "node_intr_total"); /* its line was cut */
	assert_int_equal(n->buf_cap, ENAV_NODE_BUF_MAX);
	enav_node_close(n);
	remove_tree();
}

static void test_open_errors(void **state)
{
	char err[256] = "";

	assert_null(enav_node_open("/nonexistent-proc", "/sys", 16, err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent-proc"));
	assert_null(enav_node_open(FIX "odd/proc", "/sys", 0, err, sizeof(err)));
	enav_node_close(NULL);
	enav_node_render(NULL, NULL);
}

/* The real host renders valid exposition (values vary, so only the rules). */
static void test_real_proc(void **state)
{
	char err[256] = "";
	struct enav_node *n = enav_node_open("/proc", "/sys", 256, err, sizeof(err));

	FAIL_IF(!n, "open /proc: %s\n", err);
	const char *t = render(n);

	assert_non_null(strstr(t, "\nnode_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} "));
	assert_non_null(strstr(t, "# TYPE node_memory_MemTotal_bytes gauge\n"));
	EXPECT_LINE(t, "enav_host_read_errors_total{file=\"/proc/stat\"} 0");
	enav_node_close(n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_checker),
	    cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_utf8),
	    cmocka_unit_test(test_lines_without_final_newline),
	    cmocka_unit_test(test_parse_stat),
	    cmocka_unit_test(test_parse_loadavg_filenr),
	    cmocka_unit_test(test_parse_meminfo),
	    cmocka_unit_test(test_parse_psi),
	    cmocka_unit_test(test_parse_diskstats),
	    cmocka_unit_test(test_disk_exclusion),
	    cmocka_unit_test(test_parse_netdev),
	    cmocka_unit_test(test_parse_mounts),
	    cmocka_unit_test(test_fs_exclusion),
	    cmocka_unit_test(test_parse_os_release),
	    cmocka_unit_test(test_this_machine),
	    cmocka_unit_test(test_odd),
	    cmocka_unit_test(test_minimal_exact),
	    cmocka_unit_test(test_render_twice_identical),
	    cmocka_unit_test(test_steady_state_cost),
	    cmocka_unit_test(test_device_caps),
	    cmocka_unit_test(test_psi_unsupported),
	    cmocka_unit_test(test_read_error_recovers),
	    cmocka_unit_test(test_repeated_records),
	    cmocka_unit_test(test_buffer_growth),
	    cmocka_unit_test(test_open_errors),
	    cmocka_unit_test(test_real_proc),
	};

	return cmocka_run_group_tests_name("host_node", tests, NULL, NULL);
}
