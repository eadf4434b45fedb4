/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the symbol filter (src/features/profiling/pprof_filter.c): package
 * paths of function names, who owns a frame, and whole profiles filtered and
 * decoded again, with the string table searched for anything of a redacted
 * identity.
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

#include "model/pprof.h"
#include "platform/protobuf.h"
#include "golang/go_buildinfo.h"
#include "features/profiling/pprof_filter.h"

/* A regression check: print what went wrong, then fail. */
#define FAIL_IF(cond, ...)                                                                         \
	do {                                                                                       \
		if (cond) {                                                                        \
			print_message(__VA_ARGS__);                                                \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ---- names ---- */

static void test_function_package(void **state)
{
	static const struct {
		const char *fn, *pkg;
	} cases[] = {
	    {"github.com/acme/web/internal/db.(*Pool).Get", "github.com/acme/web/internal/db"},
	    {"github.com/acme/web.handler.func1", "github.com/acme/web"},
	    {"main.main", "main"},
	    {"main.(*T).M-fm", "main"},
	    {"runtime.mallocgc", "runtime"},
	    {"net/http.(*conn).serve", "net/http"},
	    {"net/http.HandlerFunc.ServeHTTP", "net/http"},
	    /* Generated: the path the symbol embeds, "" when none. */
	    {"type..eq.github.com/x/y.T", "github.com/x/y"},
	    {"type:.hash.main.T", "main"},
	    {"type:.eq.[2]interface {}", ""},
	    {"type..eq.struct { A int; B github.com/x/y.U }", "github.com/x/y"},
	    {"go.shape.int", "go"},
	    {"go.uber.org/zap.(*Logger).Info", "go.uber.org/zap"},
	    /* Brackets hide dots and slashes; '(' ends the search. */
	    {"github.com/x/y.Map[go.shape.*uint8,github.com/z/w.T]", "github.com/x/y"},
	    {"github.com/x/y.(*List[github.com/z/w.T]).Push", "github.com/x/y"},
	    {"github.com/x/y.Map[...].func1", "github.com/x/y"},
	    /* Escaped dots of the last element end nothing. */
	    {"github.com/x/y%2ev2.F", "github.com/x/y.v2"},
	    {"gopkg.in/yaml%2ev3.(*decoder).unmarshal", "gopkg.in/yaml.v3"},
	    {"tailscale%2ecom.F", "tailscale.com"},
	    /* Unescaped, the last element's dot is ambiguous: the prefix match on
	     * module paths (enav_code_owner_keeps) settles it. */
	    {"gopkg.in/yaml.v3.(*decoder).unmarshal", "gopkg.in/yaml"},
	    {"clone3", "clone3"},
	    {"entry_SYSCALL_64_after_hwframe", "entry_SYSCALL_64_after_hwframe"},
	    {"__libc_start_main.isra.0", "__libc_start_main"},
	    {"github.com/x/y", "github.com/x/y"},
	    {"", ""},
	};
	char out[128];

	for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
		size_t n = enav_function_package(cases[i].fn, out, sizeof(out));

		FAIL_IF(strcmp(out, cases[i].pkg) != 0 || n != strlen(cases[i].pkg),
			"package of \"%s\": \"%s\" (%zu), want \"%s\"\n", cases[i].fn, out, n,
			cases[i].pkg);
	}
	/* Truncation keeps a terminated prefix. */
	assert_int_equal(enav_function_package("runtime.mallocgc", out, 5), 4);
	assert_string_equal(out, "runt");
	assert_int_equal(enav_function_package("runtime.mallocgc", out, 1), 0);
	assert_string_equal(out, "");
	assert_int_equal(enav_function_package(NULL, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(enav_function_package("main.main", NULL, 0), 0);
}

static const char *const g_replaced[] = {"example.com/acme/shared", "github.com/acme/fork"};
static const char *const g_allow[] = {"github.com/acme/tools", "corp.internal/"};
static const struct enav_code_owner g_owner = {
    .main_module = "github.com/acme/web",
    .replaced = g_replaced,
    .n_replaced = 2,
    .allow = g_allow,
    .n_allow = 2,
};

static void test_keeps(void **state)
{
	static const char *const kept[] = {
	    /* No domain: standard library, main, C, kernel. */
	    "runtime.mallocgc",
	    "main.main",
	    "net/http.(*conn).serve",
	    "clone3",
	    "__x64_sys_write",
	    "[kernel.kallsyms]",
	    "go.shape.int",
	    "type:.eq.[2]interface {}",
	    "type..eq.main.T",
	    "go.itab.*main.T,io.Reader",
	    "",
	    /* The main module, at every boundary. */
	    "github.com/acme/web",
	    "github.com/acme/web.handler.func1",
	    "github.com/acme/web/internal/db.(*Pool).Get",
	    "github.com/acme/web.Map[github.com/thirdparty/lib.T]",
	    "type..eq.github.com/acme/web.T",
	    "type:.eq.struct { A github.com/acme/web.T; B int }",
	    /* Replaced modules (original and target). */
	    "example.com/acme/shared/auth.Check",
	    "example.com/acme/shared.F",
	    "github.com/acme/fork.(*X).Y",
	    /* Allow-list: on a boundary, or a prefix ending in '/'. */
	    "github.com/acme/tools/cli.Run",
	    "github.com/acme/tools.Run",
	    "corp.internal/a/b.F",
	};
	static const char *const redacted[] = {
	    "github.com/thirdparty/lib.Parse",
	    "gopkg.in/yaml.v3.(*decoder).unmarshal",
	    "gopkg.in/yaml%2ev3.(*decoder).unmarshal",
	    "go.uber.org/zap.(*Logger).Info",
	    "tailscale%2ecom.F",
	    "github.com/thirdparty/lib",
	    /* Not on a boundary. */
	    "github.com/acme/webx.F",
	    "github.com/acme/web2/x.F",
	    "github.com/acme/toolsx/y.F",
	    "example.com/acme/sharedlib.F",
	    "corp.internalx/a.F",
	    /* Generated code follows every path it embeds. */
	    "type..eq.github.com/thirdparty/lib.T",
	    "type:.hash.github.com/thirdparty/lib.T",
	    "type:.eq.struct { A github.com/acme/web.T; B github.com/thirdparty/lib.U }",
	    "go.shape.struct { github.com/thirdparty/lib.x int }",
	    "go:struct { github.com/thirdparty/lib.x int }",
	    /* A third-party generic instantiated with our type is theirs. */
	    "github.com/thirdparty/lib.Map[github.com/acme/web.T]",
	    /* "type." without a second dot is a domain, not generated code. */
	    "type.io/x.F",
	    "go.itab.*github.com/thirdparty/lib.T,io.Reader",
	};

	for (size_t i = 0; i < ARRAY_LEN(kept); i++)
		FAIL_IF(!enav_code_owner_keeps(&g_owner, kept[i]), "\"%s\" redacted, want kept\n",
			kept[i]);
	for (size_t i = 0; i < ARRAY_LEN(redacted); i++)
		FAIL_IF(enav_code_owner_keeps(&g_owner, redacted[i]),
			"\"%s\" kept, want redacted\n", redacted[i]);

	/* An allow prefix is a path prefix, not a string prefix. */
	static const char *const acme[] = {"github.com/acme"};
	struct enav_code_owner o = {.allow = acme, .n_allow = 1};

	assert_true(enav_code_owner_keeps(&o, "github.com/acme/web.F"));
	assert_true(enav_code_owner_keeps(&o, "github.com/acme/x/y/z.(*T).M"));
	assert_true(enav_code_owner_keeps(&o, "github.com/acme"));
	assert_false(enav_code_owner_keeps(&o, "github.com/acmecorp/x.F"));
	assert_false(enav_code_owner_keeps(&o, "github.com/acme-corp/x.F"));
	assert_false(enav_code_owner_keeps(&o, "github.com/acm.F"));

	/* Escaped and unescaped spellings of a module with a dotted last
	 * element; an escaped dot is never a boundary. */
	static const char *const yaml[] = {"gopkg.in/yaml.v3"};

	o = (struct enav_code_owner){.replaced = yaml, .n_replaced = 1};
	assert_true(enav_code_owner_keeps(&o, "gopkg.in/yaml.v3.(*decoder).unmarshal"));
	assert_true(enav_code_owner_keeps(&o, "gopkg.in/yaml%2ev3.(*decoder).unmarshal"));
	assert_true(enav_code_owner_keeps(&o, "gopkg.in/yaml%2Ev3.F"));
	assert_true(enav_code_owner_keeps(&o, "gopkg.in/yaml.v3/internal.F"));
	assert_false(enav_code_owner_keeps(&o, "gopkg.in/yaml.v2.F"));
	assert_false(enav_code_owner_keeps(&o, "gopkg.in/yaml%2ev2.F"));
	o = (struct enav_code_owner){.main_module = "gopkg.in/yaml"};
	assert_false(enav_code_owner_keeps(&o, "gopkg.in/yaml%2ev3.F"));
	assert_true(enav_code_owner_keeps(&o, "gopkg.in/yaml.F"));
	/* The accepted ambiguity: unescaped, "yaml.v3" could be a function
	 * "v3" of gopkg.in/yaml. */
	assert_true(enav_code_owner_keeps(&o, "gopkg.in/yaml.v3.F"));

	/* Paths beyond the first count; bracket contents do not. */
	assert_false(enav_code_owner_keeps(&g_owner,
					   "github.com/acme/web.(*S).github.com/thirdparty/lib.f"));
	assert_true(
	    enav_code_owner_keeps(&g_owner, "github.com/acme/web.(*S).github.com/acme/web.f"));
	assert_true(enav_code_owner_keeps(&g_owner, "main.F[tailscale%2ecom.T]"));
	assert_true(enav_code_owner_keeps(&g_owner, "type..eq.[2]github.com/acme/web.T"));
	assert_false(enav_code_owner_keeps(&g_owner, "type..eq.[2]github.com/thirdparty/lib.T"));
	assert_false(enav_code_owner_keeps(&g_owner, "foo(example.com/x)"));

	/* No owner: only the no-domain rule. */
	static const struct enav_code_owner none;

	assert_true(enav_code_owner_keeps(&none, "runtime.mallocgc"));
	assert_true(enav_code_owner_keeps(NULL, "main.main"));
	assert_true(enav_code_owner_keeps(NULL, NULL));
	assert_false(enav_code_owner_keeps(&none, "github.com/acme/web.F"));
	assert_false(enav_code_owner_keeps(NULL, "example.com/acme/shared.F"));
	/* Empty strings in an owner admit nothing. */
	static const char *const empty[] = {""};

	o = (struct enav_code_owner){
	    .main_module = "", .replaced = empty, .n_replaced = 1, .allow = empty, .n_allow = 1};
	assert_false(enav_code_owner_keeps(&o, "github.com/acme/web.F"));
}

/* main github.com/acme/web; example.com/acme/shared => ../shared; a fork;
 * a version pin; a plain third-party dependency. */
static struct enav_go_module g_deps[] = {
    {.path = "example.com/acme/shared",
     .version = "v0.0.0",
     .sum = "",
     .replaced = true,
     .replace_path = "../shared",
     .replace_version = "",
     .replace_sum = ""},
    {.path = "github.com/thirdparty/lib", .version = "v1.2.3", .sum = "h1:x"},
    {.path = "gopkg.in/yaml.v3", .version = "v3.0.1", .sum = "h1:y"},
    {.path = "github.com/acme/lib",
     .version = "v1.0.0",
     .sum = "",
     .replaced = true,
     .replace_path = "github.com/acme/lib-fork",
     .replace_version = "v1.0.1",
     .replace_sum = "h1:z"},
    {.path = "golang.org/x/net",
     .version = "v0.1.0",
     .sum = "",
     .replaced = true,
     .replace_path = "golang.org/x/net",
     .replace_version = "v0.2.0",
     .replace_sum = "h1:w"},
};
static const struct enav_go_buildinfo g_bi = {
    .go_version = "go1.19.8",
    .path = "github.com/acme/web/cmd/web",
    .has_main = true,
    .main = {.path = "github.com/acme/web", .version = "(devel)", .sum = ""},
    .deps = g_deps,
    .n_deps = ARRAY_LEN(g_deps),
};

static void test_owner_from_buildinfo(void **state)
{
	struct enav_code_owner o;
	const char **storage;
	static const char *const allow[] = {"github.com/acme/tools"};

	assert_int_equal(enav_code_owner_from_buildinfo(&o, &g_bi, allow, 1, &storage), 0);
	assert_string_equal(o.main_module, "github.com/acme/web");
	assert_true(o.allow == allow && o.n_allow == 1);
	/* The directory target and the version pin are not module paths of
	 * the operator's. */
	assert_int_equal(o.n_replaced, 3);
	assert_true(o.replaced == storage);
	assert_string_equal(o.replaced[0], "example.com/acme/shared");
	assert_string_equal(o.replaced[1], "github.com/acme/lib");
	assert_string_equal(o.replaced[2], "github.com/acme/lib-fork");
	assert_true(enav_code_owner_keeps(&o, "example.com/acme/shared/auth.Check"));
	assert_true(enav_code_owner_keeps(&o, "github.com/acme/lib-fork/x.F"));
	assert_false(enav_code_owner_keeps(&o, "golang.org/x/net/http2.(*Framer).ReadFrame"));
	assert_false(enav_code_owner_keeps(&o, "github.com/thirdparty/lib.Parse"));
	free(storage);

	/* No build info: the allow-list alone. */
	assert_int_equal(enav_code_owner_from_buildinfo(&o, NULL, allow, 1, &storage), 0);
	assert_true(o.main_module == NULL && o.n_replaced == 0 && storage == NULL);
	assert_true(o.n_allow == 1);

	/* No replace directive: nothing allocated. */
	struct enav_go_buildinfo bi = g_bi;

	bi.n_deps = 0;
	assert_int_equal(enav_code_owner_from_buildinfo(&o, &bi, NULL, 0, &storage), 0);
	assert_true(storage == NULL && o.n_replaced == 0 && o.n_allow == 0);
	assert_int_equal(enav_code_owner_from_buildinfo(NULL, &bi, NULL, 0, &storage), -EINVAL);
}

/* ---- whole profiles ---- */

static const struct enav_pprof_value_type g_types[] = {
    {"samples", "count"},
    {"cpu", "nanoseconds"},
};
static const struct enav_pprof_value_type g_period = {"cpu", "nanoseconds"};

#define N_SAMPLES 5

static const int64_t g_values[N_SAMPLES][2] = {
    {1, 10000000}, {2, 20000000}, {3, 30000000}, {4, 40000000}, {5, 50000000},
};

/* Everything a pulled Go profile carries beyond frames, and frames of every
 * kind: stdlib, main, the main module, a replaced module, third-party code,
 * C, kernel, an unsymbolized address, a generic instantiated with a
 * third-party type. */
static uint8_t *build_pulled(size_t *len, bool gzip)
{
	struct enav_pprof *p =
	    enav_pprof_new(g_types, 2, g_period, 10000000, 1700000000000000000, 10000000000, NULL);

	assert_non_null(p);
	uint64_t m_app =
	    enav_pprof_mapping(p, 0x400000, 0x900000, 0x1000, "/srv/web/bin/web", "deadbeefcafe");
	uint64_t m_libc = enav_pprof_mapping(p, 0x7f0000000000, 0x7f0000200000, 0,
					     "/lib/x86_64-linux-gnu/libc.so.6", "libcbuildid");
	uint64_t malloc_ = enav_pprof_location(p, m_app, 0x401000, "runtime.mallocgc",
					       "/usr/local/go/src/runtime/malloc.go", 900);
	uint64_t main_ = enav_pprof_location(p, m_app, 0x402000, "main.main",
					     "/home/alice/src/web/cmd/web/main.go", 20);
	uint64_t handler =
	    enav_pprof_location(p, m_app, 0x403000, "github.com/acme/web.handler.func1",
				"/home/alice/src/web/handler.go", 55);
	uint64_t db =
	    enav_pprof_location(p, m_app, 0x404000, "github.com/acme/web/internal/db.(*Pool).Get",
				"/home/alice/src/web/internal/db/pool.go", 10);
	uint64_t shared =
	    enav_pprof_location(p, m_app, 0x405000, "example.com/acme/shared/auth.Check",
				"/home/alice/src/shared/auth/check.go", 7);
	uint64_t parse =
	    enav_pprof_location(p, m_app, 0x406000, "github.com/thirdparty/lib.Parse",
				"/root/go/pkg/mod/github.com/thirdparty/lib@v1.2.3/parse.go", 100);
	uint64_t step =
	    enav_pprof_location(p, m_app, 0x407000, "github.com/thirdparty/lib.(*Decoder).step",
				"/root/go/pkg/mod/github.com/thirdparty/lib@v1.2.3/decode.go", 200);
	uint64_t yaml =
	    enav_pprof_location(p, m_app, 0x408000, "gopkg.in/yaml.v3.(*decoder).unmarshal",
				"/root/go/pkg/mod/gopkg.in/yaml.v3@v3.0.1/decode.go", 300);
	uint64_t generic = enav_pprof_location(
	    p, m_app, 0x409000, "github.com/acme/web.Map[github.com/thirdparty/lib.Token]",
	    "/home/alice/src/web/map.go", 12);
	uint64_t clone3 = enav_pprof_location(p, m_libc, 0x7f0000001000, "clone3", NULL, 0);
	uint64_t unsym = enav_pprof_location(p, m_libc, 0x7f0000002000, NULL, NULL, 0);
	uint64_t kernel =
	    enav_pprof_location(p, 0, 0xffffffff81000000ull, "do_syscall_64", NULL, 0);

	const uint64_t s1[] = {malloc_, step, parse, handler, main_};
	const uint64_t s2[] = {yaml, parse, db, shared, main_};
	const uint64_t s3[] = {kernel, clone3, unsym, yaml, step, generic, main_};
	const uint64_t s4[] = {parse};
	const struct enav_pprof_label l1[] = {
	    {.key = "user_id", .str = "alice@example.com"},
	    {.key = "bytes", .num = 4096, .num_unit = "bytes"},
	};
	const struct enav_pprof_label l3[] = {
	    {.key = "goroutine", .str = "github.com/thirdparty/lib.worker"},
	};

	assert_int_equal(enav_pprof_sample(p, s1, ARRAY_LEN(s1), g_values[0], 2, l1, 2), 0);
	assert_int_equal(enav_pprof_sample(p, s2, ARRAY_LEN(s2), g_values[1], 2, NULL, 0), 0);
	assert_int_equal(enav_pprof_sample(p, s3, ARRAY_LEN(s3), g_values[2], 2, l3, 1), 0);
	assert_int_equal(enav_pprof_sample(p, s4, ARRAY_LEN(s4), g_values[3], 2, NULL, 0), 0);
	assert_int_equal(enav_pprof_sample(p, NULL, 0, g_values[4], 2, NULL, 0), 0);
	enav_pprof_comment(p, "built with github.com/thirdparty/lib");
	enav_pprof_comment(p, "secret comment");
	assert_int_equal(enav_pprof_default_sample_type(p, "cpu"), 0);

	uint8_t *out;

	assert_int_equal(enav_pprof_encode(p, gzip, &out, len), 0);
	enav_pprof_free(p);
	return out;
}

/* What must not survive a filter with the web service's owner. */
static const char *const g_forbidden[] = {
    "thirdparty", "yaml",      "Decoder",  "Parse",	    "/root",	"pkg/mod", "/home",
    "alice",	  "/srv",      "deadbeef", "libcbuildid",   "libc.so",	"user_id", "secret",
    "built with", "goroutine", "Token",	   "/usr/local/go", "/lib/x86", "@v1.2.3",
};

static void assert_no_forbidden(const struct enav_pprof_decoded *d, const char *const *words,
				size_t n, const char *what)
{
	for (size_t i = 0; i < d->n_strings; i++)
		for (size_t k = 0; k < n; k++)
			FAIL_IF(strstr(d->strings[i], words[k]) != NULL,
				"%s: string_table[%zu] \"%s\" holds \"%s\"\n", what, i,
				d->strings[i], words[k]);
}

static const struct enav_pprof_decoded_function *fn_of(const struct enav_pprof_decoded *d,
						       uint64_t id)
{
	for (size_t i = 0; i < d->n_functions; i++)
		if (d->functions[i].id == id)
			return &d->functions[i];
	fail_msg("function %llu not found", (unsigned long long)id);
	return NULL;
}

static const struct enav_pprof_decoded_location *loc_of(const struct enav_pprof_decoded *d,
							uint64_t id)
{
	for (size_t i = 0; i < d->n_locations; i++)
		if (d->locations[i].id == id)
			return &d->locations[i];
	fail_msg("location %llu not found", (unsigned long long)id);
	return NULL;
}

/* A sample's frames as "name;name;..." ("?" for an address only). */
static void stack_of(const struct enav_pprof_decoded *d, const struct enav_pprof_decoded_sample *s,
		     char *out, size_t cap)
{
	size_t n = 0;

	out[0] = '\0';
	for (size_t k = 0; k < s->n_locations; k++) {
		const struct enav_pprof_decoded_location *l = loc_of(d, s->location_ids[k]);

		for (size_t j = 0; j < (l->n_lines ? l->n_lines : 1); j++) {
			const char *name =
			    l->n_lines ? d->strings[fn_of(d, l->lines[j].function_id)->name] : "?";

			n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? ";" : "", name);
			assert_true(n < cap);
		}
	}
}

static void filter_ok(const uint8_t *in, size_t len, const struct enav_pprof_filter_opts *o,
		      struct enav_pprof_filter_stats *st, struct enav_pprof_decoded *d,
		      uint8_t **out, size_t *out_len)
{
	char err[256] = "";
	int rc = enav_pprof_filter(in, len, o, out, out_len, st, err, sizeof(err));

	FAIL_IF(rc != 0, "filter: %d %s\n", rc, err);
	assert_true(*out_len > 2 && (*out)[0] == 0x1f && (*out)[1] == 0x8b);
	rc = enav_pprof_decode(*out, *out_len, 0, d, err, sizeof(err));
	FAIL_IF(rc != 0, "the filtered profile does not decode: %s\n", err);
}

static const char *str_of(const struct enav_pprof_decoded *d, int64_t i)
{
	assert_true(i >= 0 && (uint64_t)i < d->n_strings);
	return d->strings[i];
}

/* What every filtered profile of build_pulled keeps: types, period, times,
 * values in sample order, and no comment, label, mapping file or build id. */
static void check_shape(const struct enav_pprof_decoded *d, bool labels)
{
	assert_int_equal(d->n_sample_types, 2);
	assert_string_equal(str_of(d, d->sample_types[0].type), "samples");
	assert_string_equal(str_of(d, d->sample_types[0].unit), "count");
	assert_string_equal(str_of(d, d->sample_types[1].type), "cpu");
	assert_string_equal(str_of(d, d->sample_types[1].unit), "nanoseconds");
	assert_string_equal(str_of(d, d->period_type.type), "cpu");
	assert_string_equal(str_of(d, d->period_type.unit), "nanoseconds");
	assert_string_equal(str_of(d, d->default_sample_type), "cpu");
	assert_int_equal(d->period, 10000000);
	assert_int_equal(d->time_nanos, 1700000000000000000);
	assert_int_equal(d->duration_nanos, 10000000000);
	assert_int_equal(d->n_comments, 0);
	assert_int_equal(d->n_samples, N_SAMPLES);
	int64_t total[2] = {0, 0};

	for (size_t i = 0; i < d->n_samples; i++) {
		assert_int_equal(d->samples[i].n_values, 2);
		assert_memory_equal(d->samples[i].values, g_values[i], sizeof(g_values[i]));
		total[0] += d->samples[i].values[0];
		total[1] += d->samples[i].values[1];
		if (!labels)
			FAIL_IF(d->samples[i].n_labels != 0, "sample %zu kept %zu labels\n", i,
				d->samples[i].n_labels);
	}
	assert_true(total[0] == 15 && total[1] == 150000000);
	for (size_t i = 0; i < d->n_mappings; i++)
		FAIL_IF(d->mappings[i].filename != 0 || d->mappings[i].build_id != 0,
			"mapping %zu keeps file \"%s\" build id \"%s\"\n", i,
			str_of(d, d->mappings[i].filename), str_of(d, d->mappings[i].build_id));
	for (size_t i = 0; i < d->n_functions; i++) {
		const char *file = str_of(d, d->functions[i].filename);

		FAIL_IF(strchr(file, '/') != NULL, "function %s keeps the directory of %s\n",
			str_of(d, d->functions[i].name), file);
	}
}

/* The function named name, or NULL. */
static const struct enav_pprof_decoded_function *fn_named(const struct enav_pprof_decoded *d,
							  const char *name)
{
	for (size_t i = 0; i < d->n_functions; i++)
		if (!strcmp(str_of(d, d->functions[i].name), name))
			return &d->functions[i];
	return NULL;
}

static void check_stacks(const struct enav_pprof_decoded *d, const char *const *want)
{
	char got[1024];

	for (size_t i = 0; i < d->n_samples; i++) {
		stack_of(d, &d->samples[i], got, sizeof(got));
		FAIL_IF(strcmp(got, want[i]) != 0, "sample %zu: stack\n  %s\nwant\n  %s\n", i, got,
			want[i]);
	}
}

static void test_filter_pulled(void **state)
{
	struct enav_code_owner owner;
	const char **storage;
	struct enav_pprof_filter_stats st;
	struct enav_pprof_decoded d;
	uint8_t *out;
	size_t out_len;

	assert_int_equal(enav_code_owner_from_buildinfo(&owner, &g_bi, NULL, 0, &storage), 0);
	struct enav_pprof_filter_opts opts = {.owner = &owner};

	for (int gz = 0; gz < 2; gz++) {
		size_t len;
		uint8_t *in = build_pulled(&len, gz);

		filter_ok(in, len, &opts, &st, &d, &out, &out_len);
		free(in);
		check_shape(&d, false);
		assert_no_forbidden(&d, g_forbidden, ARRAY_LEN(g_forbidden), "web owner");

		static const char *const want[N_SAMPLES] = {
		    "runtime.mallocgc;[redacted];github.com/acme/web.handler.func1;main.main",
		    ("[redacted];github.com/acme/web/internal/db.(*Pool).Get;"
		     "example.com/acme/shared/auth.Check;main.main"),
		    "do_syscall_64;clone3;?;[redacted];github.com/acme/web.Map[...];main.main",
		    "[redacted]",
		    "",
		};
		check_stacks(&d, want);

		/* Exactly the kept functions and one placeholder, with base
		 * names and lines. */
		static const struct {
			const char *name, *file;
			int64_t line;
			uint64_t address;
			bool mapped;
		} fns[] = {
		    {"runtime.mallocgc", "malloc.go", 900, 0x401000, true},
		    {"main.main", "main.go", 20, 0x402000, true},
		    {"github.com/acme/web.handler.func1", "handler.go", 55, 0x403000, true},
		    {"github.com/acme/web/internal/db.(*Pool).Get", "pool.go", 10, 0x404000, true},
		    {"example.com/acme/shared/auth.Check", "check.go", 7, 0x405000, true},
		    {"github.com/acme/web.Map[...]", "map.go", 12, 0x409000, true},
		    {"clone3", "", 0, 0x7f0000001000, true},
		    {"do_syscall_64", "", 0, 0xffffffff81000000ull, false},
		    /* A run has no address and no mapping. */
		    {ENAV_PPROF_REDACTED, "", 0, 0, false},
		};
		assert_int_equal(d.n_functions, ARRAY_LEN(fns));
		for (size_t i = 0; i < ARRAY_LEN(fns); i++) {
			const struct enav_pprof_decoded_function *f = fn_named(&d, fns[i].name);

			FAIL_IF(!f, "function %s missing\n", fns[i].name);
			assert_string_equal(str_of(&d, f->filename), fns[i].file);
			/* Its one location: address, line, mapping. */
			size_t found = 0;

			for (size_t k = 0; k < d.n_locations; k++) {
				const struct enav_pprof_decoded_location *l = &d.locations[k];

				if (l->function_id != f->id)
					continue;
				found++;
				FAIL_IF(l->address != fns[i].address || l->line != fns[i].line,
					"%s at 0x%llx line %lld\n", fns[i].name,
					(unsigned long long)l->address, (long long)l->line);
				FAIL_IF((l->mapping_id != 0) != fns[i].mapped, "%s: mapping %llu\n",
					fns[i].name, (unsigned long long)l->mapping_id);
			}
			assert_int_equal(found, 1);
		}
		/* Both mappings keep their ranges and offsets. */
		assert_int_equal(d.n_mappings, 2);
		assert_true(d.mappings[0].start == 0x400000 && d.mappings[0].limit == 0x900000 &&
			    d.mappings[0].offset == 0x1000);
		assert_true(d.mappings[1].start == 0x7f0000000000);

		assert_int_equal(st.samples, N_SAMPLES);
		assert_int_equal(st.frames_kept, 3 + 3 + 5);
		assert_int_equal(st.frames_redacted, 2 + 2 + 2 + 1);
		assert_int_equal(st.functions_redacted, 3);
		assert_int_equal(st.labels_dropped, 3);
		assert_int_equal(st.comments_dropped, 2);
		assert_int_equal(st.mappings_scrubbed, 2);

		/* Filtering the output again changes nothing. */
		uint8_t *again;
		size_t again_len;
		struct enav_pprof_decoded d2;

		filter_ok(out, out_len, &opts, &st, &d2, &again, &again_len);
		FAIL_IF(again_len != out_len || memcmp(again, out, out_len) != 0,
			"re-filtering changed the profile (%zu -> %zu bytes)\n", out_len,
			again_len);
		assert_int_equal(st.frames_redacted, 4); /* the placeholders */
		assert_int_equal(st.frames_kept, 3 + 3 + 5);
		enav_pprof_decoded_free(&d2);
		free(again);
		enav_pprof_decoded_free(&d);
		free(out);
	}
	free(storage);
}

/* Without build info the service's own code is third-party: nothing of acme
 * survives.  This is why the filter needs the binary's modules. */
static void test_filter_without_buildinfo(void **state)
{
	static const char *const acme[] = {"acme", "handler", "Pool", "Check", "Map"};
	struct enav_pprof_filter_stats st;
	struct enav_pprof_decoded d;
	uint8_t *out;
	size_t out_len, len;
	uint8_t *in = build_pulled(&len, true);

	filter_ok(in, len, NULL, &st, &d, &out, &out_len);
	check_shape(&d, false);
	assert_no_forbidden(&d, g_forbidden, ARRAY_LEN(g_forbidden), "no owner");
	assert_no_forbidden(&d, acme, ARRAY_LEN(acme), "no owner");
	static const char *const want[N_SAMPLES] = {
	    "runtime.mallocgc;[redacted];main.main",
	    "[redacted];main.main",
	    "do_syscall_64;clone3;?;[redacted];main.main",
	    "[redacted]",
	    "",
	};
	check_stacks(&d, want);
	assert_int_equal(st.frames_kept, 2 + 1 + 4);
	assert_int_equal(st.functions_redacted, 7);
	enav_pprof_decoded_free(&d);
	free(out);

	/* An allow-list without build info keeps what it names, and still
	 * loses the replaced module. */
	static const char *const allow[] = {"github.com/acme"};
	struct enav_code_owner o = {.allow = allow, .n_allow = 1};
	struct enav_pprof_filter_opts opts = {.owner = &o};

	filter_ok(in, len, &opts, &st, &d, &out, &out_len);
	assert_null(fn_named(&d, "example.com/acme/shared/auth.Check"));
	assert_non_null(fn_named(&d, "github.com/acme/web.handler.func1"));
	assert_no_forbidden(&d, g_forbidden, ARRAY_LEN(g_forbidden), "allow-list");
	enav_pprof_decoded_free(&d);
	free(out);
	free(in);
}

static void test_filter_keep_labels(void **state)
{
	struct enav_pprof_filter_opts opts = {.owner = &g_owner, .keep_labels = true};
	struct enav_pprof_filter_stats st;
	struct enav_pprof_decoded d;
	uint8_t *out;
	size_t out_len, len;
	uint8_t *in = build_pulled(&len, false);

	filter_ok(in, len, &opts, &st, &d, &out, &out_len);
	free(in);
	check_shape(&d, true);
	assert_int_equal(st.labels_dropped, 0);
	const struct enav_pprof_decoded_sample *s = &d.samples[0];

	assert_int_equal(s->n_labels, 2);
	assert_string_equal(str_of(&d, s->labels[0].key), "user_id");
	assert_string_equal(str_of(&d, s->labels[0].str), "alice@example.com");
	assert_string_equal(str_of(&d, s->labels[1].key), "bytes");
	assert_true(s->labels[1].str == 0 && s->labels[1].num == 4096);
	assert_string_equal(str_of(&d, s->labels[1].num_unit), "bytes");
	assert_int_equal(d.samples[1].n_labels, 0);
	assert_int_equal(d.samples[2].n_labels, 1);
	enav_pprof_decoded_free(&d);
	free(out);
}

/* ---- per-mapping owners (eBPF profiles of several binaries) ---- */

static const char *const g_web_main[] = {"github.com/acme/web"};
static const struct enav_code_owner g_web = {.allow = g_web_main, .n_allow = 1};
static const struct enav_code_owner g_other = {.main_module = "github.com/other/svc"};

struct calls {
	unsigned n;
	char seen[8][96];
	bool with_default;
};

static const struct enav_code_owner *owner_for(void *ctx, const char *file, const char *build_id)
{
	struct calls *c = ctx;

	if (c->n < 8)
		snprintf(c->seen[c->n], sizeof(c->seen[0]), "%s|%s", file, build_id);
	c->n++;
	if (!strcmp(file, "/srv/web/bin/web") && !strcmp(build_id, "webbid"))
		return &g_web;
	if (!strcmp(file, "/srv/other/bin/other") && !strcmp(build_id, "otherbid"))
		return &g_other;
	return NULL;
}

static uint8_t *build_two_binaries(size_t *len)
{
	struct enav_pprof *p = enav_pprof_new(g_types, 2, g_period, 1, 2, 3, NULL);

	assert_non_null(p);
	uint64_t mw = enav_pprof_mapping(p, 0x400000, 0x500000, 0, "/srv/web/bin/web", "webbid");
	uint64_t mo =
	    enav_pprof_mapping(p, 0x600000, 0x700000, 0, "/srv/other/bin/other", "otherbid");
	uint64_t mz = enav_pprof_mapping(p, 0x800000, 0x900000, 0, "/usr/lib/libz.so", "zbid");
	const uint64_t s1[] = {
	    enav_pprof_location(p, mw, 0x400100, "github.com/other/svc.G", "g.go", 1),
	    enav_pprof_location(p, mw, 0x400200, "github.com/acme/web.F", "f.go", 2),
	    enav_pprof_location(p, mw, 0x400300, "main.main", "main.go", 3),
	};
	const uint64_t s2[] = {
	    enav_pprof_location(p, mz, 0x800100, "github.com/other/svc.Z", "z.go", 9),
	    enav_pprof_location(p, 0, 0xffffffff81000000ull, "github.com/other/svc.K", NULL, 0),
	    enav_pprof_location(p, mo, 0x600100, "github.com/acme/web.F", "f.go", 4),
	    enav_pprof_location(p, mo, 0x600200, "github.com/other/svc.G", "g.go", 5),
	    enav_pprof_location(p, mo, 0x600300, "main.main", "main.go", 6),
	};

	assert_int_equal(enav_pprof_sample(p, s1, 3, g_values[0], 2, NULL, 0), 0);
	assert_int_equal(enav_pprof_sample(p, s2, 5, g_values[1], 2, NULL, 0), 0);
	assert_int_equal(enav_pprof_sample(p, s1, 3, g_values[2], 2, NULL, 0), 0);

	uint8_t *out;

	assert_int_equal(enav_pprof_encode(p, true, &out, len), 0);
	enav_pprof_free(p);
	return out;
}

static void test_filter_per_mapping(void **state)
{
	struct calls calls = {0};
	struct enav_pprof_filter_opts opts = {
	    .owner = &g_web, /* ignored: owner_for_mapping decides */
	    .owner_for_mapping = owner_for,
	    .ctx = &calls,
	};
	struct enav_pprof_filter_stats st;
	struct enav_pprof_decoded d;
	uint8_t *out;
	size_t out_len, len;
	uint8_t *in = build_two_binaries(&len);
	char got[512];

	/* No default owner: frames without an owner keep only no-domain code. */
	filter_ok(in, len, &opts, &st, &d, &out, &out_len);
	stack_of(&d, &d.samples[0], got, sizeof(got));
	assert_string_equal(got, "[redacted];github.com/acme/web.F;main.main");
	stack_of(&d, &d.samples[1], got, sizeof(got));
	assert_string_equal(got, "[redacted];github.com/other/svc.G;main.main");
	/* Asked once per mapping, with the original file and build id. */
	assert_int_equal(calls.n, 3);
	assert_string_equal(calls.seen[0], "/srv/web/bin/web|webbid");
	assert_string_equal(calls.seen[1], "/usr/lib/libz.so|zbid");
	assert_string_equal(calls.seen[2], "/srv/other/bin/other|otherbid");
	for (size_t i = 0; i < d.n_strings; i++)
		FAIL_IF(strstr(d.strings[i], "/srv") || strstr(d.strings[i], "bid") ||
			    strstr(d.strings[i], "libz"),
			"string \"%s\" survived\n", d.strings[i]);
	enav_pprof_decoded_free(&d);
	free(out);

	/* A default owner decides for unknown mappings and for frames without
	 * a mapping (kernel). */
	static const char *const other_allow[] = {"github.com/other"};
	struct enav_code_owner dflt = {.allow = other_allow, .n_allow = 1};

	calls = (struct calls){0};
	opts.default_owner = &dflt;
	filter_ok(in, len, &opts, &st, &d, &out, &out_len);
	stack_of(&d, &d.samples[1], got, sizeof(got));
	assert_string_equal(got, "github.com/other/svc.Z;github.com/other/svc.K;[redacted];"
				 "github.com/other/svc.G;main.main");
	assert_int_equal(calls.n, 3);
	enav_pprof_decoded_free(&d);
	free(out);
	free(in);
}

/* ---- inlining: several Lines per Location ---- */

static void hand_fn(struct enav_pb_writer *w, uint64_t id, uint64_t name, uint64_t file)
{
	enav_pb_begin(w, 5);
	enav_pb_varint(w, 1, id);
	enav_pb_varint(w, 2, name);
	enav_pb_varint(w, 3, name);
	enav_pb_varint(w, 4, file);
	enav_pb_end(w);
}

static void hand_loc(struct enav_pb_writer *w, uint64_t id, uint64_t addr, const uint64_t *fl,
		     size_t n)
{
	enav_pb_begin(w, 4);
	enav_pb_varint(w, 1, id);
	enav_pb_varint(w, 2, 1);
	enav_pb_varint(w, 3, addr);
	for (size_t i = 0; i < n; i++) {
		enav_pb_begin(w, 4);
		enav_pb_varint(w, 1, fl[2 * i]);
		enav_pb_varint(w, 2, fl[2 * i + 1]);
		enav_pb_end(w);
	}
	enav_pb_end(w);
}

static void test_filter_inlined(void **state)
{
	static const char *const strs[] = {
	    "",
	    "samples",
	    "count",
	    "main.main",
	    "/home/a/main.go",
	    "github.com/acme/web.inner",
	    "/home/a/web/inner.go",
	    "github.com/thirdparty/lib.a",
	    "/root/go/pkg/mod/github.com/thirdparty/lib@v1/a.go",
	    "github.com/thirdparty/lib.b",
	    "runtime.memmove",
	    "/bin/app",
	    "drop.me",
	};
	/* (function, line) pairs, the innermost first. */
	static const uint64_t l1[] = {3, 10, 4, 20};	  /* all third-party */
	static const uint64_t l2[] = {2, 5, 3, 11, 1, 7}; /* ours, theirs, main */
	static const uint64_t l3[] = {4, 21, 3, 12, 2, 6};
	static const uint64_t l4[] = {5, 1};
	static const uint64_t s1[] = {4, 1, 2}, s2[] = {1, 3}, s3[] = {3, 2}, v[] = {7};
	struct enav_pb_writer w;

	enav_pb_writer_init(&w, 0);
	for (size_t i = 0; i < ARRAY_LEN(strs); i++)
		enav_pb_string(&w, 6, strs[i]);
	enav_pb_begin(&w, 1);
	enav_pb_varint(&w, 1, 1);
	enav_pb_varint(&w, 2, 2);
	enav_pb_end(&w);
	enav_pb_begin(&w, 3); /* mapping 1 */
	enav_pb_varint(&w, 1, 1);
	enav_pb_varint(&w, 2, 0x1000);
	enav_pb_varint(&w, 3, 0x9000);
	enav_pb_varint(&w, 5, 11);
	enav_pb_end(&w);
	hand_fn(&w, 1, 3, 4);
	hand_fn(&w, 2, 5, 6);
	hand_fn(&w, 3, 7, 8);
	hand_fn(&w, 4, 9, 8);
	hand_fn(&w, 5, 10, 0);
	hand_loc(&w, 1, 0x1100, l1, 2);
	hand_loc(&w, 2, 0x2200, l2, 3);
	hand_loc(&w, 3, 0x3300, l3, 3);
	hand_loc(&w, 4, 0x4400, l4, 1);
	enav_pb_begin(&w, 2);
	enav_pb_packed_varints(&w, 1, s1, 3);
	enav_pb_packed_varints(&w, 2, v, 1);
	enav_pb_end(&w);
	enav_pb_begin(&w, 2);
	enav_pb_packed_varints(&w, 1, s2, 2);
	enav_pb_packed_varints(&w, 2, v, 1);
	enav_pb_end(&w);
	enav_pb_begin(&w, 2);
	enav_pb_packed_varints(&w, 1, s3, 2);
	enav_pb_packed_varints(&w, 2, v, 1);
	enav_pb_end(&w);
	enav_pb_varint(&w, 7, 12); /* drop_frames */
	assert_false(w.failed);

	struct enav_code_owner o = {.main_module = "github.com/acme/web"};
	struct enav_pprof_filter_opts opts = {.owner = &o};
	struct enav_pprof_filter_stats st;
	struct enav_pprof_decoded d;
	uint8_t *out;
	size_t out_len;

	filter_ok(w.buf, w.len, &opts, &st, &d, &out, &out_len);
	enav_pb_writer_free(&w);
	static const char *const want[] = {
	    /* memmove | all redacted | inner, redacted, main */
	    "runtime.memmove;[redacted];github.com/acme/web.inner;[redacted];main.main",
	    /* the run continues from one Location into the next */
	    "[redacted];github.com/acme/web.inner",
	    "[redacted];github.com/acme/web.inner;github.com/acme/web.inner;[redacted];main.main",
	};

	check_stacks(&d, want);
	static const char *const gone[] = {"thirdparty", "/root", "/home", "/bin/app", "drop.me"};

	assert_no_forbidden(&d, gone, ARRAY_LEN(gone), "inlined");
	/* A kept Line keeps its Location's address and its own line. */
	const struct enav_pprof_decoded_function *inner = fn_named(&d, "github.com/acme/web.inner");

	assert_non_null(inner);
	assert_string_equal(str_of(&d, inner->filename), "inner.go");
	size_t seen = 0;

	for (size_t i = 0; i < d.n_locations; i++) {
		const struct enav_pprof_decoded_location *l = &d.locations[i];

		if (l->function_id != inner->id)
			continue;
		seen++;
		FAIL_IF(!((l->address == 0x2200 && l->line == 5) ||
			  (l->address == 0x3300 && l->line == 6)),
			"inner at 0x%llx line %lld\n", (unsigned long long)l->address,
			(long long)l->line);
		assert_true(l->mapping_id != 0);
	}
	assert_int_equal(seen, 2);
	assert_int_equal(st.frames_kept, (1 + 0 + 2) + (0 + 1) + (1 + 2));
	assert_int_equal(st.frames_redacted, (0 + 2 + 1) + (2 + 2) + (2 + 1));
	assert_int_equal(st.functions_redacted, 2);
	assert_int_equal(st.mappings_scrubbed, 1);
	enav_pprof_decoded_free(&d);

	/* Idempotent here too. */
	uint8_t *again;
	size_t again_len;

	filter_ok(out, out_len, &opts, &st, &d, &again, &again_len);
	assert_true(again_len == out_len && memcmp(again, out, out_len) == 0);
	enav_pprof_decoded_free(&d);
	free(again);
	free(out);
}

/* Kept names lose what brackets could name; the rest stays as spelled. */
static void test_filter_names(void **state)
{
	static const char *const names[] = {
	    "main.F[tailscale%2ecom.T]",
	    "main.G[go.shape.struct { github.com/thirdparty/lib.x int }]",
	    "main.H[int]",
	    "main.(*L[main.T]).Push",
	    "[kernel.kallsyms]",
	    "[/usr/lib/libfoo.so]",
	    "github.com/acme/web.(*S).github.com/thirdparty/lib.f",
	    "type..eq.[2]github.com/thirdparty/lib.T",
	    "gopkg.in/yaml%2ev3.(*decoder).unmarshal",
	};
	static const char *const want[] = {
	    "main.F[...]",	 "main.G[...]", "main.H[int]", "main.(*L[main.T]).Push",
	    "[kernel.kallsyms]", "[...]",	"[redacted]",
	};
	struct enav_pprof *p = enav_pprof_new(g_types, 2, g_period, 0, 0, 0, NULL);
	uint64_t ids[ARRAY_LEN(names)];
	int64_t v[2] = {1, 1};

	assert_non_null(p);
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		ids[i] = enav_pprof_location(p, 0, 0x100 + i, names[i], "x.go", 1);
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		assert_int_equal(enav_pprof_sample(p, &ids[i], 1, v, 2, NULL, 0), 0);
	uint8_t *in, *out;
	size_t len, out_len;
	struct enav_pprof_filter_opts opts = {.owner = &g_owner};
	struct enav_pprof_filter_stats st;
	struct enav_pprof_decoded d;

	assert_int_equal(enav_pprof_encode(p, false, &in, &len), 0);
	enav_pprof_free(p);
	filter_ok(in, len, &opts, &st, &d, &out, &out_len);
	free(in);
	assert_int_equal(d.n_functions, ARRAY_LEN(want));
	for (size_t i = 0; i < ARRAY_LEN(want); i++)
		FAIL_IF(!fn_named(&d, want[i]), "no function \"%s\"\n", want[i]);
	static const char *const gone[] = {"thirdparty", "tailscale", "libfoo", "yaml"};

	assert_no_forbidden(&d, gone, ARRAY_LEN(gone), "names");
	assert_int_equal(st.functions_redacted, 3);
	enav_pprof_decoded_free(&d);
	free(out);
}

/* ---- errors ---- */

static void test_filter_errors(void **state)
{
	static const uint8_t junk[] = {0x0a, 0xff, 0xff, 0xff};
	uint8_t *out = (uint8_t *)1;
	size_t out_len = 1, len;
	char err[256];
	struct enav_pprof_filter_stats st;

	assert_int_equal(
	    enav_pprof_filter(junk, sizeof(junk), NULL, &out, &out_len, &st, err, sizeof(err)),
	    -EINVAL);
	assert_true(out == NULL && out_len == 0);
	assert_true(err[0] != '\0' && strchr(err, '\n') == NULL);
	assert_int_equal(enav_pprof_filter(junk, sizeof(junk), NULL, NULL, &out_len, NULL, NULL, 0),
			 -EINVAL);

	/* No sample types: nothing to rebuild. */
	static const uint8_t empty[] = {0x32, 0x00}; /* string_table: "" */

	assert_int_equal(
	    enav_pprof_filter(empty, sizeof(empty), NULL, &out, &out_len, NULL, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "sample types"));

	/* An input past the cap. */
	uint8_t *in = build_pulled(&len, false);
	struct enav_pprof_filter_opts opts = {.owner = &g_owner, .max_bytes = len / 2};
	int rc = enav_pprof_filter(in, len, &opts, &out, &out_len, NULL, err, sizeof(err));

	FAIL_IF(rc != -E2BIG || out != NULL, "max_bytes %zu: rc %d (%s)\n", len / 2, rc, err);
	free(in);

	/* An output past the cap: one Location of 64 inlined Lines, each a
	 * frame of its own in the output, in 200 samples. */
	struct enav_pb_writer w;
	uint64_t fl[128], one = 1;

	enav_pb_writer_init(&w, 0);
	enav_pb_string(&w, 6, "");
	enav_pb_string(&w, 6, "main.f");
	enav_pb_begin(&w, 1);
	enav_pb_varint(&w, 1, 1);
	enav_pb_end(&w);
	enav_pb_begin(&w, 3);
	enav_pb_varint(&w, 1, 1);
	enav_pb_end(&w);
	hand_fn(&w, 1, 1, 0);
	for (size_t i = 0; i < 64; i++) {
		fl[2 * i] = 1;
		fl[2 * i + 1] = i + 1;
	}
	hand_loc(&w, 1, 0x10, fl, 64);
	for (int i = 0; i < 200; i++) {
		enav_pb_begin(&w, 2);
		enav_pb_packed_varints(&w, 1, &one, 1);
		enav_pb_packed_varints(&w, 2, &one, 1);
		enav_pb_end(&w);
	}
	assert_false(w.failed);
	opts.max_bytes = w.len * 2;
	rc = enav_pprof_filter(w.buf, w.len, &opts, &out, &out_len, NULL, err, sizeof(err));
	FAIL_IF(rc != -E2BIG || out != NULL, "amplified output: rc %d (%s)\n", rc, err);
	assert_non_null(strstr(err, "exceeds"));
	/* With room, the same input filters. */
	opts.max_bytes = 0;
	rc = enav_pprof_filter(w.buf, w.len, &opts, &out, &out_len, NULL, err, sizeof(err));
	FAIL_IF(rc != 0, "amplified output, default cap: rc %d (%s)\n", rc, err);
	free(out);
	enav_pb_writer_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_function_package),
	    cmocka_unit_test(test_keeps),
	    cmocka_unit_test(test_owner_from_buildinfo),
	    cmocka_unit_test(test_filter_pulled),
	    cmocka_unit_test(test_filter_without_buildinfo),
	    cmocka_unit_test(test_filter_keep_labels),
	    cmocka_unit_test(test_filter_per_mapping),
	    cmocka_unit_test(test_filter_inlined),
	    cmocka_unit_test(test_filter_names),
	    cmocka_unit_test(test_filter_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
