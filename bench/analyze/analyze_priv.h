/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers the analyzer's files share (text.c): reading TSV lines, splitting
 * fields, numbers and names, the coefficient of variation, and finding an
 * arm.  Not part of the analyzer's interface (analyze.h).
 */
#ifndef ENAV_BENCH_ANALYZE_PRIV_H
#define ENAV_BENCH_ANALYZE_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include "analyze.h"

struct lines {
	const char *p, *end;
	size_t lineno;
};

/* Next line (without its newline) into buf; false at the end. */
bool bench_next_line(struct lines *l, char *buf, size_t cap);
bool bench_blank_or_comment(const char *s);
/* Split on tabs or spaces into at most cap fields; returns the count
 * (cap + 1 when there are more). */
size_t bench_split(char *s, char **f, size_t cap);
/* A number, or "-" for not reported (NAN). */
bool bench_num(const char *s, double *out);
/* A workload, configuration or arm name: [A-Za-z0-9._-], bounded. */
bool bench_name_ok(const char *s);
/* A hook or program name from bpftool: printable, no spaces, bounded. */
bool bench_hook_ok(const char *s);
/* Coefficient of variation (sample standard deviation / mean); NAN for
 * fewer than two values or a mean that is not positive. */
double bench_cv(const double *v, size_t n);
/* The arm of workload w, configuration c and round; NULL when none. */
const struct enav_bench_arm *bench_find_arm(const struct enav_bench_arm *arms, size_t n,
					    const char *w, const char *c, int round);

#endif
