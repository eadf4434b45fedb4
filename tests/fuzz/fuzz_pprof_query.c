/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the query of the agent's pprof endpoints
 * (enav_pprof_parse_query in src/features/profiling/pprof_http.c): seconds, pid,
 * container, cgroup, format.
 *
 * The input is a query string ("seconds=5&pid=42&format=folded"), split and
 * unescaped as libmicrohttpd does ('&', the first '=', '+' as a blank, then
 * MHD_http_unescape), each argument in its own exact-size allocation; a key
 * given twice answers its first value.  It is parsed for each profile kind,
 * at two retentions, filtered and not.  An accepted query must hold what
 * the header promises and is then built, folded, against a store holding
 * one record per (pid, cgroup id, kind): the records it admits must be
 * exactly those its filter names.
 */
#include <microhttpd.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/profiling/profile_store.h"
#include "model/cgroup_path.h"
#include "features/profiling/pprof_http.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct args {
	size_t n;
	char *key[MAX_ARGS], *value[MAX_ARGS];
};

static const char *get(void *ctx, const char *key)
{
	const struct args *a = ctx;

	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->key[i], key))
			return a->value[i];
	return NULL;
}

static char *unescaped(const uint8_t *s, size_t n)
{
	char *out = malloc(n + 1);

	CHECK(out != NULL);
	memcpy(out, s, n);
	out[n] = '\0';
	for (size_t i = 0; i < n; i++)
		if (out[i] == '+')
			out[i] = ' ';
	size_t len = MHD_http_unescape(out);
	CHECK(len <= n);
	/* A %00 leaves a NUL inside: handlers see a C string, cut there. */
	char *exact = malloc(strlen(out) + 1);
	CHECK(exact != NULL);
	strcpy(exact, out);
	free(out);
	return exact;
}

static const uint32_t tgids[] = {1, 42, 4242, UINT32_MAX};
static const uint64_t cgroups[] = {0, 1, 12345, UINT64_MAX};
static const enum enav_profile_kind kinds[] = {ENAV_PROFILE_CPU, ENAV_PROFILE_OFFCPU,
					       ENAV_PROFILE_FUTEX};
#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct enav_profile_store *store;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* No cgroup2 mount: no record has a path or a container, so only pid
	 * and cgroup ids can admit one. */
	struct enav_profile_store_config c = {.frequency_hz = 99,
					      .retention_ms = 3600 * 1000,
					      .max_stored_stacks = 1000,
					      .max_processes = 16,
					      .max_elf_files = 4};

	(void)argc;
	(void)argv;
	store = enav_profile_store_new(&c);
	CHECK(store != NULL);
	struct enav_profile_batch *b = enav_profile_batch_new(1000, 1000);

	CHECK(b != NULL);
	b->end_mono_ns = 2000;
	for (size_t t = 0; t < N(tgids); t++)
		for (size_t g = 0; g < N(cgroups); g++)
			for (size_t k = 0; k < N(kinds); k++) {
				struct enav_profile_record r = {.tgid = tgids[t],
								.kind = kinds[k],
								.cgroup_id = cgroups[g],
								.count = 1,
								.total_ns = 1000};
				CHECK(enav_profile_batch_add(b, &r, NULL, 0, NULL, 0));
			}
	enav_profile_store_add(store, b);
	return 0;
}

static bool all_digits(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s);

	if (n < min || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Digits whose value fits in max (leading zeros allowed). */
static bool dec_fits(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;

	if (!all_digits(s, 1, SIZE_MAX))
		return false;
	for (; *s; s++)
		if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, *s - '0', &x))
			return false;
	*v = x;
	return x <= max;
}

static void check_accepted(const struct enav_pprof_request *pr, struct args *a,
			   enum enav_profile_kind kind, uint32_t retention_ms, bool unfiltered)
{
	const struct enav_profile_query *q = &pr->q;
	const char *s = get(a, "seconds"), *pid = get(a, "pid"), *fmt = get(a, "format");
	uint64_t v;

	CHECK(pr->seconds >= 1 && pr->seconds <= 600 && pr->seconds < retention_ms / 1000);
	if (s && dec_fits(s, 600, &v) && v)
		CHECK(pr->seconds == v);
	else
		CHECK(pr->seconds == 30 && (!s || (dec_fits(s, 0, &v))));
	CHECK(q->kind == kind && q->redact == !unfiltered);
	CHECK(q->from_mono_ns == 0 && q->to_mono_ns == 0);
	if (pid)
		CHECK(dec_fits(pid, UINT32_MAX, &v) && v != 0 && q->filter.pid == v);
	else
		CHECK(q->filter.pid == 0);
	CHECK(q->filter.container == get(a, "container"));
	if (q->filter.container) {
		size_t n = strlen(q->filter.container);

		CHECK(n >= 4 && n <= ENAV_CONTAINER_ID_LEN);
		CHECK(strspn(q->filter.container, "0123456789abcdef") == n);
	}
	CHECK(q->filter.cgroup == get(a, "cgroup"));
	if (q->filter.cgroup)
		CHECK(q->filter.cgroup[0] == '/' || dec_fits(q->filter.cgroup, UINT64_MAX, &v));
	if (!fmt || !strcmp(fmt, "pprof") || !strcmp(fmt, "proto"))
		CHECK(q->format == ENAV_PROFILE_FORMAT_PPROF);
	else if (!strcmp(fmt, "folded"))
		CHECK(q->format == ENAV_PROFILE_FORMAT_FOLDED);
	else
		CHECK(!strcmp(fmt, "svg") && q->format == ENAV_PROFILE_FORMAT_FLAMEGRAPH);
}

/* Build the accepted query over the store: exactly the records its filter names. */
static void check_build(const struct enav_pprof_request *pr)
{
	struct enav_profile_query q = pr->q;
	uint64_t want = 0, id = 0;
	bool by_id = q.filter.cgroup && q.filter.cgroup[0] != '/';

	if (by_id)
		CHECK(dec_fits(q.filter.cgroup, UINT64_MAX, &id));
	for (size_t t = 0; t < N(tgids); t++)
		for (size_t g = 0; g < N(cgroups); g++) {
			bool ok = !q.filter.pid || q.filter.pid == tgids[t];

			ok &= !q.filter.container; /* no record has a container */
			if (q.filter.cgroup)
				ok &= by_id && cgroups[g] == id; /* nor a path */
			want += ok;
		}
	q.from_mono_ns = 0;
	q.to_mono_ns = UINT64_MAX;
	q.format = ENAV_PROFILE_FORMAT_FOLDED; /* the cheapest rendering */
	uint8_t *out = NULL;
	size_t len = 0;

	CHECK(enav_profile_store_build(store, &q, &out, &len) == 0);
	CHECK(q.matched == want);
	free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t retentions[] = {10000, 120000};
	struct args a = {0};
	bool built = false;

	if (size > 8192)
		return 0;
	for (size_t start = 0; start <= size && a.n < MAX_ARGS;) {
		const uint8_t *amp = memchr(data + start, '&', size - start);
		size_t len = amp ? (size_t)(amp - (data + start)) : size - start;
		const uint8_t *eq = memchr(data + start, '=', len);

		if (len > 0) {
			size_t kl = eq ? (size_t)(eq - (data + start)) : len;

			a.key[a.n] = unescaped(data + start, kl);
			a.value[a.n] =
			    unescaped(eq ? eq + 1 : (const uint8_t *)"", eq ? len - kl - 1 : 0);
			a.n++;
		}
		if (!amp)
			break;
		start += len + 1;
	}

	for (size_t k = 0; k < N(kinds); k++)
		for (size_t r = 0; r < N(retentions); r++)
			for (int unf = 0; unf < 2; unf++) {
				struct enav_pprof_request pr;
				char msg[160];

				memset(msg, 'Z', sizeof(msg));
				int st = enav_pprof_parse_query(get, &a, kinds[k], retentions[r],
								unf, &pr, msg, sizeof(msg));

				CHECK(st == 0 || st == 400);
				if (st) {
					/* One line, terminated. */
					size_t n = strnlen(msg, sizeof(msg));

					CHECK(n > 1 && n < sizeof(msg) && msg[n - 1] == '\n');
					CHECK(memchr(msg, '\n', n) == msg + n - 1);
					continue;
				}
				check_accepted(&pr, &a, kinds[k], retentions[r], unf);
				if (!built) {
					check_build(&pr);
					built = true;
				}
			}
	for (size_t i = 0; i < a.n; i++) {
		free(a.key[i]);
		free(a.value[i]);
	}
	return 0;
}
