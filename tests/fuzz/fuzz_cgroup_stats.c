/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the cgroup resource file parsers
 * (src/features/node/cgroups_priv.h).  The input is one file's text (exactly
 * size bytes, not NUL-terminated, so ASan flags any over-read), given to
 * every parser.  Checks that the parsers are deterministic and never invent
 * a figure: every reported key, total and number is literally in the input,
 * and nothing is reported from an input without lines of the right shape.
 * The controller-list matcher is checked against a naive reference on the
 * input split at its first NUL.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/node/cgroups_priv.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static const char *const keys[] = {
    "usage_usec",
    "user_usec",
    "system_usec",
    "nr_periods",
    "nr_throttled",
    "throttled_usec",
    "user",
    "system",
    "throttled_time",
    "total_rss",
    "total_cache",
    "rss",
    "total_inactive_file",
    "cache",
    "inactive_file",
    "anon",
    "file",
    "oom_kill",
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

/* The decimal form of v occurs in the input (leading zeros allowed there). */
static bool number_in(const uint8_t *data, size_t size, uint64_t v)
{
	char s[24];
	int n = snprintf(s, sizeof(s), "%llu", (unsigned long long)v);

	return memmem(data, size, s, (size_t)n) != NULL;
}

static size_t count_lines(const uint8_t *data, size_t size)
{
	size_t n = size && data[size - 1] != '\n';

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\n';
	return n;
}

static void check_numbers(const char *t, size_t size, const uint8_t *data)
{
	uint64_t a = 0, b = 0;
	bool unl = false;
	int ra = enav_cg_parse_u64(t, size, &a);
	int rb = enav_cg_parse_limit(t, size, &b, &unl);

	CHECK(ra == 0 || ra == -1);
	if (ra == 0) {
		CHECK(number_in(data, size, a));
		/* Digits and blanks only (and one newline). */
		for (size_t i = 0; i < size; i++)
			CHECK((data[i] >= '0' && data[i] <= '9') || data[i] == ' ' ||
			      data[i] == '\t' || (data[i] == '\n' && i == size - 1));
		CHECK(rb == 0 && !unl && a == b);
	}
	if (rb == 0 && unl)
		CHECK(memmem(data, size, "max", 3) != NULL && b == UINT64_MAX);
	if (rb == 0 && !unl)
		CHECK(ra == 0);
}

static void check_keyed(const char *t, size_t size, const uint8_t *data)
{
	uint64_t v[N_KEYS], w[N_KEYS];
	uint32_t f = enav_cg_parse_keyed(t, size, keys, N_KEYS, v);
	uint32_t g = enav_cg_parse_keyed(t, size, keys, N_KEYS, w);

	CHECK(f == g);
	CHECK((f >> N_KEYS) == 0);
	for (size_t i = 0; i < N_KEYS; i++) {
		if (!(f & (1u << i)))
			continue;
		CHECK(v[i] == w[i]);
		CHECK(memmem(data, size, keys[i], strlen(keys[i])) != NULL);
		CHECK(number_in(data, size, v[i]));
	}
	/* More keys than the mask holds: clamped, never past bit 31. */
	static const char *many[40];
	uint64_t mv[40];
	for (size_t i = 0; i < 40; i++)
		many[i] = keys[i % N_KEYS];
	(void)enav_cg_parse_keyed(t, size, many, 40, mv);
}

static void check_io(const char *t, size_t size, const uint8_t *data)
{
	struct enav_cg_io io, io2;
	unsigned n = enav_cg_parse_io_stat(t, size, &io);

	CHECK(n == enav_cg_parse_io_stat(t, size, &io2));
	CHECK(memcmp(&io, &io2, sizeof(io)) == 0);
	CHECK(n <= count_lines(data, size));
	if (n == 0)
		CHECK(io.rbytes == 0 && io.wbytes == 0 && io.rios == 0 && io.wios == 0);
	if (n)
		CHECK(memchr(data, ':', size) != NULL);
	if (io.rbytes)
		CHECK(memmem(data, size, "rbytes=", 7) != NULL);
	if (io.wbytes)
		CHECK(memmem(data, size, "wbytes=", 7) != NULL);
	if (io.rios)
		CHECK(memmem(data, size, "rios=", 5) != NULL);
	if (io.wios)
		CHECK(memmem(data, size, "wios=", 5) != NULL);
}

static void check_blkio(const char *t, size_t size, const uint8_t *data)
{
	uint64_t r = 1, w = 1, r2, w2;
	unsigned n = enav_cg_parse_blkio(t, size, &r, &w);

	CHECK(n == enav_cg_parse_blkio(t, size, &r2, &w2) && r == r2 && w == w2);
	CHECK(n <= count_lines(data, size));
	if (n == 0)
		CHECK(r == 0 && w == 0);
	if (r)
		CHECK(memmem(data, size, "Read", 4) != NULL);
	if (w)
		CHECK(memmem(data, size, "Write", 5) != NULL);
	if (n == 1)
		CHECK(number_in(data, size, r ? r : w));
}

static void check_pressure(const char *t, size_t size, const uint8_t *data)
{
	uint64_t some = 0, full = 0;
	unsigned f = enav_cg_parse_pressure(t, size, &some, &full);

	CHECK((f & ~(ENAV_CG_PSI_SOME | ENAV_CG_PSI_FULL)) == 0);
	if (f)
		CHECK(memmem(data, size, "total=", 6) != NULL);
	if (f & ENAV_CG_PSI_SOME)
		CHECK(memmem(data, size, "some", 4) != NULL && number_in(data, size, some));
	if (f & ENAV_CG_PSI_FULL)
		CHECK(memmem(data, size, "full", 4) != NULL && number_in(data, size, full));
}

static bool naive_has(const char *list, const char *ctrl)
{
	if (!*ctrl || strchr(ctrl, ','))
		return false;
	size_t ll = strlen(list), cl = strlen(ctrl);
	char *a = malloc(ll + 3), *b = malloc(cl + 3);
	CHECK(a && b);
	snprintf(a, ll + 3, ",%s,", list);
	snprintf(b, cl + 3, ",%s,", ctrl);
	bool r = strstr(a, b) != NULL;
	free(a);
	free(b);
	return r;
}

static void check_controllers(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t ll = nul ? (size_t)(nul - data) : size;
	size_t cl = nul ? size - ll - 1 : 0;
	char *list = malloc(ll + 1), *ctrl = malloc(cl + 1);

	CHECK(list && ctrl);
	memcpy(list, data, ll);
	list[ll] = '\0';
	if (cl)
		memcpy(ctrl, nul + 1, cl);
	ctrl[cl] = '\0';
	/* ctrl may hold further NULs: compare what both see. */
	bool got = enav_cg_has_controller(list, ctrl);
	CHECK(got == naive_has(list, ctrl));
	free(list);
	free(ctrl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *t = (const char *)data;

	check_numbers(t, size, data);
	check_keyed(t, size, data);
	check_io(t, size, data);
	check_blkio(t, size, data);
	check_pressure(t, size, data);
	check_controllers(data, size);
	return 0;
}
