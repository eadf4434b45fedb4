/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the L7 text helpers (route template, traceparent, SQL
 * summary).  Every helper gets the whole input from an exact-size heap copy
 * (so ASan flags a read past n) and its outputs must hold their invariants:
 * NUL-terminated within the cap, printable ASCII, a smaller cap yields a
 * prefix of a larger cap's output, and a template or a traceparent read back
 * gives the same result.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/l7_text.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

/* NUL inside cap, printable before it; returns the length. */
static size_t check_text(const char *s, size_t cap)
{
	const char *nul = memchr(s, '\0', cap);

	CHECK(nul != NULL);
	for (const char *p = s; p < nul; p++)
		CHECK(*p >= 0x20 && *p < 0x7f);
	return (size_t)(nul - s);
}

static void fuzz_template(const char *in, size_t n, size_t small_cap)
{
	char big[1024], small[256], again[1024];

	memset(big, 0x7f, sizeof(big));
	size_t lb = enav_l7_path_template(in, n, big, sizeof(big));

	CHECK(check_text(big, sizeof(big)) == lb);
	CHECK(lb < sizeof(big));
	/* Query and fragment never survive. */
	CHECK(strchr(big, '#') == NULL);
	if (lb == 0)
		CHECK(n == 0 || in[0] == '?' || in[0] == '#');

	/* A smaller cap gives a prefix. */
	memset(small, 0x7f, sizeof(small));
	size_t ls = enav_l7_path_template(in, n, small, small_cap);

	CHECK(ls < small_cap);
	CHECK(check_text(small, small_cap) == ls);
	CHECK(ls <= lb && memcmp(small, big, ls) == 0);

	/* A template is its own template (when nothing was replaced by '?',
	 * which would then read as a query). */
	if (!strchr(big, '?') && lb + 1 < sizeof(big) && (lb == 0 || big[0] == '/')) {
		size_t la = enav_l7_path_template(big, lb, again, sizeof(again));

		CHECK(la == lb && memcmp(again, big, lb + 1) == 0);
	}
}

static void fuzz_traceparent(const char *in, size_t n)
{
	uint8_t tid[16], pid[8], fl = 0xa5;

	memset(tid, 0xa5, sizeof(tid));
	memset(pid, 0xa5, sizeof(pid));
	bool ok = enav_l7_traceparent_parse(in, n, tid, pid, &fl);

	if (!ok) {
		for (size_t i = 0; i < sizeof(tid); i++)
			CHECK(tid[i] == 0xa5);
		for (size_t i = 0; i < sizeof(pid); i++)
			CHECK(pid[i] == 0xa5);
		CHECK(fl == 0xa5);
		return;
	}
	bool zt = true, zp = true;

	for (size_t i = 0; i < sizeof(tid); i++)
		zt = zt && tid[i] == 0;
	for (size_t i = 0; i < sizeof(pid); i++)
		zp = zp && pid[i] == 0;
	CHECK(!zt && !zp);
	CHECK(n >= 55);

	/* The canonical version-00 form reads back identically. */
	char canon[56];
	char *p = canon;

	p += sprintf(p, "00-");
	for (size_t i = 0; i < sizeof(tid); i++)
		p += sprintf(p, "%02x", tid[i]);
	*p++ = '-';
	for (size_t i = 0; i < sizeof(pid); i++)
		p += sprintf(p, "%02x", pid[i]);
	sprintf(p, "-%02x", fl);

	uint8_t t2[16], p2[8], f2;

	CHECK(enav_l7_traceparent_parse(canon, 55, t2, p2, &f2));
	CHECK(memcmp(t2, tid, 16) == 0 && memcmp(p2, pid, 8) == 0 && f2 == fl);
}

static void fuzz_sql(const char *in, size_t n, size_t small_cap)
{
	char op[32], target[128], san[256];
	char op2[32], target2[128], san2[256];

	memset(op, 0x7f, sizeof(op));
	memset(target, 0x7f, sizeof(target));
	memset(san, 0x7f, sizeof(san));
	enav_l7_sql_summarize(in, n, op, sizeof(op), target, sizeof(target), san, sizeof(san));
	size_t lo = check_text(op, sizeof(op));
	size_t lt = check_text(target, sizeof(target));
	size_t ls = check_text(san, sizeof(san));

	/* The operation is a keyword: upper-case letters. */
	CHECK(lo > 0);
	for (size_t i = 0; i < lo; i++)
		CHECK((op[i] >= 'A' && op[i] <= 'Z') || op[i] == '_');
	if (strcmp(op, "OTHER") == 0)
		CHECK(lt == 0);
	/* No leading or doubled spaces in the sanitized text (bar quoted names). */
	CHECK(ls == 0 || san[0] != ' ');
	CHECK(strstr(san, "  ") == NULL || strchr(san, '`') || strchr(san, '"'));

	/* The same without a sanitized buffer, and with smaller caps: the
	 * same operation and target, the sanitized text a prefix. */
	enav_l7_sql_summarize(in, n, op2, sizeof(op2), target2, sizeof(target2), NULL, 0);
	CHECK(strcmp(op, op2) == 0 && strcmp(target, target2) == 0);
	memset(san2, 0x7f, sizeof(san2));
	enav_l7_sql_summarize(in, n, op2, small_cap % sizeof(op2) + 1, target2,
			      small_cap % sizeof(target2) + 1, san2, small_cap);
	size_t lo2 = check_text(op2, small_cap % sizeof(op2) + 1);
	size_t lt2 = check_text(target2, small_cap % sizeof(target2) + 1);
	size_t ls2 = check_text(san2, small_cap);

	CHECK(lo2 <= lo && memcmp(op2, op, lo2) == 0);
	CHECK(lt2 <= lt && memcmp(target2, target, lt2) == 0);
	CHECK(ls2 <= ls && memcmp(san2, san, ls2) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 8192)
		return 0;
	/* First byte: which helper, and a small cap. */
	unsigned sel = data[0] % 3;
	size_t small_cap = (size_t)(data[0] >> 2) % 64 + 1;
	size_t n = size - 1;
	char *in = malloc(n ? n : 1);

	CHECK(in != NULL);
	memcpy(in, data + 1, n);
	switch (sel) {
	case 0:
		fuzz_template(in, n, small_cap);
		break;
	case 1:
		fuzz_traceparent(in, n);
		break;
	default:
		fuzz_sql(in, n, small_cap);
		break;
	}
	free(in);
	return 0;
}
