/* SPDX-License-Identifier: Apache-2.0 */
/* The analyzer's shared helpers (analyze_priv.h). */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_priv.h"

/* Next line (without its newline) into buf; false at the end. */
bool bench_next_line(struct lines *l, char *buf, size_t cap)
{
	if (l->p >= l->end)
		return false;
	const char *nl = memchr(l->p, '\n', (size_t)(l->end - l->p));
	size_t n = nl ? (size_t)(nl - l->p) : (size_t)(l->end - l->p);
	if (n >= cap)
		n = cap - 1; /* over-long lines are cut; their fields then fail to parse */
	memcpy(buf, l->p, n);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\r')
		buf[n - 1] = '\0';
	l->p = nl ? nl + 1 : l->end;
	l->lineno++;
	return true;
}

bool bench_blank_or_comment(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '\0' || *s == '#';
}

/* Split on tabs or spaces into at most cap fields; returns the count. */
size_t bench_split(char *s, char **f, size_t cap)
{
	size_t n = 0;
	char *save = NULL;
	for (char *t = strtok_r(s, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		if (n == cap)
			return cap + 1;
		f[n++] = t;
	}
	return n;
}

/* A number, or "-" for not reported (NAN). */
bool bench_num(const char *s, double *out)
{
	if (strcmp(s, "-") == 0) {
		*out = NAN;
		return true;
	}
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool bench_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= ENAV_BENCH_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
			return false;
	return true;
}

double enav_bench_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	/* Insertion sort: at most a few dozen values. */
	for (size_t i = 1; i < n; i++) {
		double x = v[i];
		size_t j = i;
		while (j > 0 && v[j - 1] > x) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_cv(const double *v, size_t n)
{
	if (n < 2)
		return NAN;
	double mean = 0, var = 0;
	for (size_t i = 0; i < n; i++)
		mean += v[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		var += (v[i] - mean) * (v[i] - mean);
	var /= (double)(n - 1);
	return mean > 0 ? sqrt(var) / mean : NAN;
}

bool bench_hook_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= ENAV_BENCH_HOOK_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isgraph((unsigned char)s[i]))
			return false;
	return true;
}

const struct enav_bench_arm *bench_find_arm(const struct enav_bench_arm *arms, size_t n,
					    const char *w, const char *c, int round)
{
	for (size_t i = 0; i < n; i++)
		if (arms[i].round == round && !strcmp(arms[i].workload, w) &&
		    !strcmp(arms[i].config, c))
			return &arms[i];
	return NULL;
}
