/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The analyzer's readers of the records beside the arms (analyze.h): the
 * handler floor and its hooks against empty programs, each BPF program of
 * the agent arms per request, and the soak's RSS samples with their slope.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_priv.h"

int enav_bench_floor_parse(const char *text, size_t len, double cores, struct enav_bench_floor *out,
			   char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	static double vals[16][1024];
	size_t nv[16] = {0};
	struct lines l = {text, text + len, 0};
	char buf[256];
	while (bench_next_line(&l, buf, sizeof(buf))) {
		if (bench_blank_or_comment(buf) || !strncmp(buf, "arm", 3))
			continue;
		char *f[4];
		double round, thr;
		if (bench_split(buf, f, 3) != 3 || !bench_name_ok(f[0]) ||
		    !bench_num(f[1], &round) || !bench_num(f[2], &thr) || isnan(thr) || thr <= 0) {
			snprintf(err, errlen, "floor line %zu: expected: ARM ROUND REQUESTS_PER_S",
				 l.lineno);
			return -1;
		}
		size_t i = 0;
		while (i < out->n_arms && strcmp(out->name[i], f[0]))
			i++;
		if (i == out->n_arms) {
			if (out->n_arms == 16) {
				snprintf(err, errlen, "floor: more than 16 arms");
				return -1;
			}
			strcpy(out->name[out->n_arms++], f[0]);
		}
		if (nv[i] < 1024)
			vals[i][nv[i]++] = thr;
	}
	size_t none = 16, empty = 16;
	for (size_t i = 0; i < out->n_arms; i++) {
		out->median[i] = enav_bench_median(vals[i], nv[i]);
		if (!strcmp(out->name[i], "none"))
			none = i;
		if (!strcmp(out->name[i], "empty"))
			empty = i;
	}
	if (none == 16 || empty == 16) {
		snprintf(err, errlen, "floor: the none and empty arms are required");
		return -1;
	}
	for (size_t i = 0; i < out->n_arms; i++)
		out->cost_us[i] = (1.0 / out->median[i] - 1.0 / out->median[none]) * cores * 1e6;
	for (size_t i = 0; i < out->n_arms; i++)
		out->ratio_to_empty[i] =
		    out->cost_us[empty] > 0 ? out->cost_us[i] / out->cost_us[empty] : NAN;
	return 0;
}

#define ROUNDS_MAX 64 /* rounds kept per row for its median */

/* Values of one row by round: a sum per round, the median taken later. */
struct by_round {
	int round[ROUNDS_MAX];
	double sum[ROUNDS_MAX], runs[ROUNDS_MAX], ns[ROUNDS_MAX];
	size_t n;
};

static size_t round_slot(struct by_round *b, int round)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->round[i] == round)
			return i;
	if (b->n == ROUNDS_MAX)
		return ROUNDS_MAX;
	b->round[b->n] = round;
	b->sum[b->n] = b->runs[b->n] = b->ns[b->n] = 0;
	return b->n++;
}

/* "ARM ROUND PROGRAM HOOK RUNS RUN_TIME_NS" with its numbers parsed (runs
 * and ns NAN for "-"); false when the line is not one. */
static bool prog_line(char *line, size_t skip, char **f, double *round, double *runs, double *ns)
{
	size_t nf = bench_split(line, f, 6 + skip);
	return nf == 6 + skip && bench_num(f[skip + 1], round) && !isnan(*round) && *round >= 0 &&
	       *round <= 1e6 && bench_name_ok(f[skip + 0]) && bench_hook_ok(f[skip + 2]) &&
	       bench_hook_ok(f[skip + 3]) && strlen(f[skip + 2]) < ENAV_BENCH_NAME_MAX &&
	       bench_num(f[skip + 4], runs) && bench_num(f[skip + 5], ns) &&
	       isnan(*runs) == isnan(*ns) && (isnan(*runs) || (*runs >= 0 && *ns >= 0));
}

int enav_bench_hooks_parse(const char *text, size_t len, struct enav_bench_floor *floor, char *err,
			   size_t errlen)
{
	/* Rows by (arm, hook), the empty arm's included; the refused hooks. */
	struct row {
		char arm[ENAV_BENCH_NAME_MAX], hook[ENAV_BENCH_HOOK_MAX], programs[128];
		bool refused;
		struct by_round v;
	};
	struct row *rows = calloc(ENAV_BENCH_MAX_HOOKS, sizeof(*rows));
	if (!rows) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	size_t nrows = 0;
	struct lines l = {text, text + len, 0};
	char buf[512];
	int rc = 0;
	floor->n_hooks = 0;
	while (bench_next_line(&l, buf, sizeof(buf))) {
		if (bench_blank_or_comment(buf) || !strncmp(buf, "arm ", 4))
			continue;
		char *f[8];
		double round, runs, ns;
		if (!prog_line(buf, 0, f, &round, &runs, &ns)) {
			snprintf(
			    err, errlen,
			    "hooks line %zu: expected: ARM ROUND PROGRAM HOOK RUNS RUN_TIME_NS",
			    l.lineno);
			rc = -1;
			break;
		}
		/* A hook named only by its program type (a kprobe, a perf_event
		 * tracepoint: bpftool does not say where) is not one hook: each
		 * program on it is its own row. */
		char hook[ENAV_BENCH_HOOK_MAX];
		if (strchr(f[3], '/'))
			snprintf(hook, sizeof(hook), "%s", f[3]);
		else
			snprintf(hook, sizeof(hook), "%.20s (%.31s)", f[3], f[2]);
		size_t i = 0;
		while (i < nrows && (strcmp(rows[i].arm, f[0]) || strcmp(rows[i].hook, hook)))
			i++;
		if (i == nrows) {
			if (nrows == ENAV_BENCH_MAX_HOOKS) {
				snprintf(err, errlen, "hooks: more than %d arm and hook pairs",
					 ENAV_BENCH_MAX_HOOKS);
				rc = -1;
				break;
			}
			strcpy(rows[i].arm, f[0]);
			strcpy(rows[i].hook, hook);
			nrows++;
		}
		struct row *r = &rows[i];
		if (isnan(runs)) {
			r->refused = true;
			continue;
		}
		if (!strstr(r->programs, f[2]) &&
		    strlen(r->programs) + strlen(f[2]) + 2 < sizeof(r->programs))
			snprintf(r->programs + strlen(r->programs),
				 sizeof(r->programs) - strlen(r->programs), "%s%s",
				 r->programs[0] ? " " : "", f[2]);
		size_t k = round_slot(&r->v, (int)round);
		/* Programs of an arm on one hook each run per event: their ns per
		 * run add up to the hook's cost per event. */
		if (k < ROUNDS_MAX && runs > 0)
			r->v.sum[k] += ns / runs;
	}
	for (size_t i = 0; rc == 0 && i < nrows; i++) {
		double v[ROUNDS_MAX];
		size_t nv = 0;
		for (size_t k = 0; k < rows[i].v.n; k++)
			if (rows[i].v.sum[k] > 0)
				v[nv++] = rows[i].v.sum[k];
		rows[i].v.sum[0] = enav_bench_median(v, nv); /* the row's figure from here on */
		rows[i].v.n = nv;
	}
	/* Each agent arm's hooks against the empty program's, then the empty
	 * programs the kernel refused on a hook no agent arm used. */
	for (size_t pass = 0; rc == 0 && pass < 2; pass++)
		for (size_t i = 0; i < nrows && floor->n_hooks < ENAV_BENCH_MAX_HOOKS; i++) {
			bool empty = !strcmp(rows[i].arm, "empty");
			if (pass == 0 ? (empty || rows[i].v.n == 0) : !(empty && rows[i].refused))
				continue;
			const struct row *e = NULL;
			bool used = false;
			for (size_t j = 0; j < nrows; j++) {
				if (!strcmp(rows[j].hook, rows[i].hook) &&
				    !strcmp(rows[j].arm, "empty"))
					e = &rows[j];
				used |= !strcmp(rows[j].hook, rows[i].hook) &&
					strcmp(rows[j].arm, "empty") && rows[j].v.n;
			}
			if (pass == 1 && used)
				continue;
			struct enav_bench_hook_cost *h = &floor->hooks[floor->n_hooks++];
			memset(h, 0, sizeof(*h));
			strcpy(h->arm, rows[i].arm);
			strcpy(h->hook, rows[i].hook);
			strcpy(h->programs, empty ? "" : rows[i].programs);
			h->ns_per_run = empty ? NAN : rows[i].v.sum[0];
			h->empty_ns_per_run = e && e->v.n ? e->v.sum[0] : NAN;
			h->empty_refused = e && e->refused;
			h->ratio =
			    h->empty_ns_per_run > 0 ? h->ns_per_run / h->empty_ns_per_run : NAN;
		}
	free(rows);
	return rc;
}

int enav_bench_prog_parse(const char *text, size_t len, const struct enav_bench_arm *arms,
			  size_t na, struct enav_bench_prog_costs *out, char *err, size_t errlen)
{
	struct by_round *v = calloc(ENAV_BENCH_MAX_PROGS, sizeof(*v));
	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	out->n = 0;
	struct lines l = {text, text + len, 0};
	char buf[512];
	int rc = 0;
	while (bench_next_line(&l, buf, sizeof(buf))) {
		if (bench_blank_or_comment(buf) || !strncmp(buf, "workload ", 9))
			continue;
		char *f[8];
		double round, runs, ns;
		if (!prog_line(buf, 1, f, &round, &runs, &ns) || !bench_name_ok(f[0]) ||
		    isnan(runs)) {
			snprintf(err, errlen,
				 "bpf line %zu: expected: WORKLOAD CONFIG ROUND PROGRAM HOOK RUNS "
				 "RUN_TIME_NS",
				 l.lineno);
			rc = -1;
			break;
		}
		const struct enav_bench_arm *a = bench_find_arm(arms, na, f[0], f[1], (int)round);
		if (!a || !(a->ops > 0))
			continue; /* an arm without operations has no per-request cost */
		size_t i = 0;
		struct enav_bench_prog_cost *p = out->p;
		while (i < out->n && (strcmp(p[i].workload, f[0]) || strcmp(p[i].config, f[1]) ||
				      strcmp(p[i].program, f[3]) || strcmp(p[i].hook, f[4])))
			i++;
		if (i == out->n) {
			if (out->n == ENAV_BENCH_MAX_PROGS)
				continue; /* reported rows are bounded; the raw records hold all */
			memset(&p[i], 0, sizeof(p[i]));
			strcpy(p[i].workload, f[0]);
			strcpy(p[i].config, f[1]);
			strcpy(p[i].program, f[3]);
			strcpy(p[i].hook, f[4]);
			out->n++;
		}
		size_t k = round_slot(&v[i], (int)round);
		if (k < ROUNDS_MAX) {
			v[i].runs[k] += runs / a->ops;
			v[i].ns[k] += ns;
			v[i].sum[k] += runs;
		}
	}
	for (size_t i = 0; rc == 0 && i < out->n; i++) {
		double rr[ROUNDS_MAX], nr[ROUNDS_MAX], ur[ROUNDS_MAX];
		size_t nnr = 0;
		const struct enav_bench_arm *a;
		for (size_t k = 0; k < v[i].n; k++) {
			rr[k] = v[i].runs[k];
			a = bench_find_arm(arms, na, out->p[i].workload, out->p[i].config,
					   v[i].round[k]);
			ur[k] = v[i].ns[k] / 1e3 / a->ops;
			if (v[i].sum[k] > 0)
				nr[nnr++] = v[i].ns[k] / v[i].sum[k];
		}
		out->p[i].rounds = v[i].n;
		out->p[i].runs_per_req = enav_bench_median(rr, v[i].n);
		out->p[i].us_per_req = enav_bench_median(ur, v[i].n);
		out->p[i].ns_per_run = enav_bench_median(nr, nnr);
	}
	free(v);
	return rc;
}

int enav_bench_soak_parse(const char *text, size_t len, struct enav_bench_soak *out, char *err,
			  size_t errlen)
{
	memset(out, 0, sizeof(*out));
	out->t_s = calloc(ENAV_BENCH_MAX_SAMPLES, sizeof(double));
	out->rss_kib = calloc(ENAV_BENCH_MAX_SAMPLES, sizeof(double));
	out->events = calloc(ENAV_BENCH_MAX_SAMPLES, sizeof(double));
	if (!out->t_s || !out->rss_kib || !out->events) {
		snprintf(err, errlen, "out of memory");
		enav_bench_soak_free(out);
		return -1;
	}
	struct lines l = {text, text + len, 0};
	char buf[256];
	while (bench_next_line(&l, buf, sizeof(buf))) {
		if (bench_blank_or_comment(buf) || !strncmp(buf, "t_s", 3))
			continue;
		char *f[4];
		double t, rss, ev;
		if (bench_split(buf, f, 3) != 3 || !bench_num(f[0], &t) || !bench_num(f[1], &rss) ||
		    !bench_num(f[2], &ev) || isnan(t) || isnan(rss) || isnan(ev) ||
		    out->n == ENAV_BENCH_MAX_SAMPLES || (out->n && t <= out->t_s[out->n - 1])) {
			snprintf(err, errlen,
				 "soak line %zu: expected increasing T_S RSS_KIB EVENTS", l.lineno);
			enav_bench_soak_free(out);
			return -1;
		}
		out->t_s[out->n] = t;
		out->rss_kib[out->n] = rss;
		out->events[out->n] = ev;
		if (rss > out->rss_max)
			out->rss_max = rss;
		out->n++;
	}
	if (out->n < 4) {
		snprintf(err, errlen, "soak: fewer than 4 samples");
		enav_bench_soak_free(out);
		return -1;
	}
	out->rss_first = out->rss_kib[0];
	out->rss_last = out->rss_kib[out->n - 1];
	out->events_total = out->events[out->n - 1] - out->events[0];
	out->duration_s = out->t_s[out->n - 1] - out->t_s[0];
	/* The second half: start-up growth (caches filling) is not a leak. */
	size_t from = out->n / 2, m = out->n - from;
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (size_t i = from; i < out->n; i++) {
		double x = out->t_s[i] / 60.0, y = out->rss_kib[i];
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
	}
	double den = (double)m * sxx - sx * sx;
	out->slope_kib_per_min = den > 0 ? ((double)m * sxy - sx * sy) / den : 0;
	return 0;
}

void enav_bench_soak_free(struct enav_bench_soak *s)
{
	free(s->t_s);
	free(s->rss_kib);
	free(s->events);
	s->t_s = s->rss_kib = s->events = NULL;
}
