/* SPDX-License-Identifier: Apache-2.0 */
#include "bench/analyze.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- text helpers ------------------------------------------------------ */

struct lines {
	const char *p, *end;
	size_t lineno;
};

/* Next line (without its newline) into buf; false at the end. */
static bool next_line(struct lines *l, char *buf, size_t cap)
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

static bool blank_or_comment(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return *s == '\0' || *s == '#';
}

/* Split on tabs or spaces into at most cap fields; returns the count. */
static size_t split(char *s, char **f, size_t cap)
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
static bool num(const char *s, double *out)
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

static bool name_ok(const char *s)
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

static double cv(const double *v, size_t n)
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

/* ---- parsing ------------------------------------------------------------ */

#define ARM_FIELDS 14

int enav_bench_parse_arms(const char *text, size_t len, struct enav_bench_arm *out, size_t cap,
			  size_t *n, char *err, size_t errlen)
{
	struct lines l = {text, text + len, 0};
	char buf[1024];
	*n = 0;
	bool header = false;
	while (next_line(&l, buf, sizeof(buf))) {
		if (blank_or_comment(buf))
			continue;
		if (!header) { /* the column names */
			header = true;
			if (strncmp(buf, "workload", 8) != 0) {
				snprintf(err, errlen, "arms line %zu: expected the header line",
					 l.lineno);
				return -1;
			}
			continue;
		}
		char *f[ARM_FIELDS + 1];
		if (split(buf, f, ARM_FIELDS) != ARM_FIELDS) {
			snprintf(err, errlen, "arms line %zu: expected %d fields", l.lineno,
				 ARM_FIELDS);
			return -1;
		}
		if (*n == cap) {
			snprintf(err, errlen, "arms line %zu: more than %zu arms", l.lineno, cap);
			return -1;
		}
		struct enav_bench_arm *a = &out[*n];
		memset(a, 0, sizeof(*a));
		double round, pos;
		if (!name_ok(f[0]) || !name_ok(f[1])) {
			snprintf(err, errlen, "arms line %zu: bad workload or config name",
				 l.lineno);
			return -1;
		}
		strcpy(a->workload, f[0]);
		strcpy(a->config, f[1]);
		double *vals[] = {&round,	 &pos,		 &a->throughput,  &a->ops,
				  &a->p50_us,	 &a->p99_us,	 &a->agent_cpu_s, &a->agent_rss_kib,
				  &a->hard_loss, &a->soft_drops, &a->signals,	  &a->surplus_max};
		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			if (!num(f[2 + i], vals[i])) {
				snprintf(err, errlen, "arms line %zu: field %zu is not a number",
					 l.lineno, i + 3);
				return -1;
			}
		if (isnan(round) || isnan(pos) || round < 0 || round > 1e6 || pos < 0 ||
		    pos > 1e6 || isnan(a->throughput) || a->throughput < 0) {
			snprintf(err, errlen,
				 "arms line %zu: round, position and throughput are required",
				 l.lineno);
			return -1;
		}
		if (!isnan(a->signals) && (isnan(a->surplus_max) || a->surplus_max < 0)) {
			snprintf(err, errlen,
				 "arms line %zu: a row with signals needs the surplus it allows",
				 l.lineno);
			return -1;
		}
		a->round = (int)round;
		a->position = (int)pos;
		(*n)++;
	}
	if (!header) {
		snprintf(err, errlen, "arms: empty");
		return -1;
	}
	return 0;
}

int enav_bench_parse_gates(const char *text, size_t len, struct enav_bench_gate *out, size_t cap,
			   size_t *n, char *err, size_t errlen)
{
	static const struct {
		const char *s;
		enum enav_bench_op op;
	} ops[] = {{">=", ENAV_BENCH_GE},
		   {"<=", ENAV_BENCH_LE},
		   {"==", ENAV_BENCH_EQ},
		   {">", ENAV_BENCH_GT},
		   {"<", ENAV_BENCH_LT}};
	struct lines l = {text, text + len, 0};
	char buf[512];
	*n = 0;
	while (next_line(&l, buf, sizeof(buf))) {
		if (blank_or_comment(buf))
			continue;
		char *f[6];
		size_t nf = split(buf, f, 5);
		if (nf != 5 || strcmp(f[0], "gate") != 0) {
			snprintf(err, errlen,
				 "gates line %zu: expected: gate SUBJECT METRIC OP VALUE",
				 l.lineno);
			return -1;
		}
		if (*n == cap) {
			snprintf(err, errlen, "gates line %zu: more than %zu gates", l.lineno, cap);
			return -1;
		}
		struct enav_bench_gate *g = &out[*n];
		memset(g, 0, sizeof(*g));
		if (strlen(f[1]) >= sizeof(g->subject) || strlen(f[2]) >= sizeof(g->metric)) {
			snprintf(err, errlen, "gates line %zu: subject or metric too long",
				 l.lineno);
			return -1;
		}
		strcpy(g->subject, f[1]);
		strcpy(g->metric, f[2]);
		bool found = false;
		for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
			if (strcmp(f[3], ops[i].s) == 0) {
				g->op = ops[i].op;
				found = true;
			}
		if (!found || !num(f[4], &g->value) || isnan(g->value)) {
			snprintf(err, errlen, "gates line %zu: bad operator or value", l.lineno);
			return -1;
		}
		(*n)++;
	}
	return 0;
}

/* ---- analysis ------------------------------------------------------------ */

static const struct enav_bench_arm *find_arm(const struct enav_bench_arm *arms, size_t n,
					     const char *w, const char *c, int round)
{
	for (size_t i = 0; i < n; i++)
		if (arms[i].round == round && !strcmp(arms[i].workload, w) &&
		    !strcmp(arms[i].config, c))
			return &arms[i];
	return NULL;
}

static void analyze_one(const struct enav_bench_arm *arms, size_t n, const char *w, const char *c,
			struct enav_bench_result *r)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->workload, sizeof(r->workload), "%s", w);
	snprintf(r->config, sizeof(r->config), "%s", c);
	double ratios[ENAV_BENCH_MAX_ARMS / 2], none[ENAV_BENCH_MAX_ARMS / 2],
	    agent[ENAV_BENCH_MAX_ARMS / 2], p99n[ENAV_BENCH_MAX_ARMS / 2],
	    p99a[ENAV_BENCH_MAX_ARMS / 2], cpu[ENAV_BENCH_MAX_ARMS / 2];
	size_t k = 0, np99n = 0, np99a = 0, ncpu = 0;
	r->signals = r->ops = NAN;
	r->rss_kib = NAN;
	for (size_t i = 0; i < n; i++) {
		const struct enav_bench_arm *a = &arms[i];
		if (strcmp(a->workload, w) || strcmp(a->config, c))
			continue;
		const struct enav_bench_arm *b = find_arm(arms, n, w, "none", a->round);
		if (!b || b->throughput <= 0 || k == ENAV_BENCH_MAX_ARMS / 2)
			continue; /* a round without its baseline cannot be compared */
		ratios[k] = a->throughput / b->throughput;
		none[k] = b->throughput;
		agent[k] = a->throughput;
		k++;
		if (!isnan(b->p99_us))
			p99n[np99n++] = b->p99_us;
		if (!isnan(a->p99_us))
			p99a[np99a++] = a->p99_us;
		if (!isnan(a->agent_cpu_s))
			cpu[ncpu++] = a->agent_cpu_s;
		if (!isnan(a->agent_rss_kib) &&
		    (isnan(r->rss_kib) || a->agent_rss_kib > r->rss_kib))
			r->rss_kib = a->agent_rss_kib;
		if (!isnan(a->hard_loss))
			r->hard_loss += a->hard_loss;
		if (!isnan(a->soft_drops))
			r->soft_drops += a->soft_drops;
		if (!isnan(a->signals)) {
			r->signals = (isnan(r->signals) ? 0 : r->signals) + a->signals;
			r->ops = (isnan(r->ops) ? 0 : r->ops) + (isnan(a->ops) ? 0 : a->ops);
			/* Exactly one signal per operation, short of the surplus the
			 * workload explains: fewer is loss, more is duplication. */
			if (isnan(a->ops) || a->signals < a->ops ||
			    a->signals > a->ops + a->surplus_max) {
				if (!r->rejected)
					snprintf(r->reject_reason, sizeof(r->reject_reason),
						 "round %d: %.0f signals for %.0f operations the "
						 "workload completed (at most %.0f more explained)",
						 a->round, a->signals, a->ops, a->surplus_max);
				r->rejected = true;
			}
		}
	}
	r->rounds = k;
	r->none_cv = cv(none, k);
	r->agent_cv = cv(agent, k);
	r->none_median = enav_bench_median(none, k);
	r->agent_median = enav_bench_median(agent, k);
	r->ratio_min = r->ratio_max = NAN;
	for (size_t i = 0; i < k; i++) {
		if (isnan(r->ratio_min) || ratios[i] < r->ratio_min)
			r->ratio_min = ratios[i];
		if (isnan(r->ratio_max) || ratios[i] > r->ratio_max)
			r->ratio_max = ratios[i];
	}
	r->ratio_median = enav_bench_median(ratios, k);
	r->p99_none = enav_bench_median(p99n, np99n);
	r->p99_agent = enav_bench_median(p99a, np99a);
	r->cpu_s = enav_bench_median(cpu, ncpu);
	r->noisy = !isnan(r->none_cv) && r->none_cv > ENAV_BENCH_NOISY_CV;
	if (k == 0) {
		r->rejected = true;
		snprintf(r->reject_reason, sizeof(r->reject_reason), "no round with a baseline");
	}
}

size_t enav_bench_analyze(const struct enav_bench_arm *arms, size_t n,
			  struct enav_bench_result *out, size_t cap)
{
	size_t nr = 0;
	for (size_t i = 0; i < n; i++) {
		const struct enav_bench_arm *a = &arms[i];
		if (!strcmp(a->config, "none"))
			continue;
		bool seen = false;
		for (size_t j = 0; j < nr; j++)
			seen |= !strcmp(out[j].workload, a->workload) &&
				!strcmp(out[j].config, a->config);
		if (seen || nr == cap)
			continue;
		analyze_one(arms, n, a->workload, a->config, &out[nr++]);
	}
	return nr;
}

int enav_bench_floor_parse(const char *text, size_t len, double cores, struct enav_bench_floor *out,
			   char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	static double vals[16][1024];
	size_t nv[16] = {0};
	struct lines l = {text, text + len, 0};
	char buf[256];
	while (next_line(&l, buf, sizeof(buf))) {
		if (blank_or_comment(buf) || !strncmp(buf, "arm", 3))
			continue;
		char *f[4];
		double round, thr;
		if (split(buf, f, 3) != 3 || !name_ok(f[0]) || !num(f[1], &round) ||
		    !num(f[2], &thr) || isnan(thr) || thr <= 0) {
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
	while (next_line(&l, buf, sizeof(buf))) {
		if (blank_or_comment(buf) || !strncmp(buf, "t_s", 3))
			continue;
		char *f[4];
		double t, rss, ev;
		if (split(buf, f, 3) != 3 || !num(f[0], &t) || !num(f[1], &rss) ||
		    !num(f[2], &ev) || isnan(t) || isnan(rss) || isnan(ev) ||
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

/* ---- gates ---------------------------------------------------------------- */

static bool holds(enum enav_bench_op op, double v, double want)
{
	if (isnan(v))
		return false;
	switch (op) {
	case ENAV_BENCH_GE:
		return v >= want;
	case ENAV_BENCH_LE:
		return v <= want;
	case ENAV_BENCH_EQ:
		return v == want;
	case ENAV_BENCH_GT:
		return v > want;
	case ENAV_BENCH_LT:
		return v < want;
	}
	return false;
}

static bool result_metric(const struct enav_bench_result *r, const char *m, double *v)
{
	if (!strcmp(m, "throughput_ratio"))
		*v = r->ratio_median;
	else if (!strcmp(m, "throughput_ratio_min"))
		*v = r->ratio_min;
	else if (!strcmp(m, "p99_ratio"))
		*v = r->p99_none > 0 ? r->p99_agent / r->p99_none : NAN;
	else if (!strcmp(m, "hard_loss"))
		*v = r->hard_loss;
	else if (!strcmp(m, "agent_cpu_s"))
		*v = r->cpu_s;
	else if (!strcmp(m, "agent_rss_kib"))
		*v = r->rss_kib;
	else
		return false;
	return true;
}

static void append(char *d, size_t cap, const char *fmt, double v, const char *name)
{
	size_t n = strlen(d);
	if (n + 1 < cap)
		snprintf(d + n, cap - n, fmt, name, v);
}

void enav_bench_eval_gate(const struct enav_bench_gate *g, const struct enav_bench_result *r,
			  size_t nr, const struct enav_bench_floor *floor,
			  const struct enav_bench_soak *soak, struct enav_bench_gate_outcome *out)
{
	memset(out, 0, sizeof(*out));
	bool failed = false;
	if (!strncmp(g->subject, "floor/", 6)) {
		for (size_t i = 0; floor && i < floor->n_arms; i++) {
			if (fnmatch(g->subject + 6, floor->name[i], 0) != 0 ||
			    !strcmp(floor->name[i], "none") || !strcmp(floor->name[i], "empty"))
				continue;
			double v;
			if (!strcmp(g->metric, "handler_cost_ratio"))
				v = floor->ratio_to_empty[i];
			else if (!strcmp(g->metric, "handler_cost_us"))
				v = floor->cost_us[i];
			else
				continue;
			out->matched++;
			failed |= !holds(g->op, v, g->value);
			append(out->detail, sizeof(out->detail), "%s %.3g; ", v, floor->name[i]);
		}
	} else if (!strcmp(g->subject, "soak")) {
		if (soak) {
			double v = NAN;
			if (!strcmp(g->metric, "rss_slope_kib_per_min"))
				v = soak->slope_kib_per_min;
			else if (!strcmp(g->metric, "events"))
				v = soak->events_total;
			else if (!strcmp(g->metric, "rss_max_kib"))
				v = soak->rss_max;
			if (!isnan(v)) {
				out->matched = 1;
				failed = !holds(g->op, v, g->value);
				append(out->detail, sizeof(out->detail), "%s %.6g", v, g->metric);
			}
		}
	} else {
		for (size_t i = 0; i < nr; i++) {
			char subj[2 * ENAV_BENCH_NAME_MAX + 2];
			snprintf(subj, sizeof(subj), "%s/%s", r[i].workload, r[i].config);
			double v;
			if (fnmatch(g->subject, subj, 0) != 0 ||
			    !result_metric(&r[i], g->metric, &v))
				continue;
			out->matched++;
			/* A rejected configuration passes no gate. */
			bool ok = !r[i].rejected && holds(g->op, v, g->value);
			failed |= !ok;
			if (r[i].rejected)
				append(out->detail, sizeof(out->detail), "%s REJECTED; ", 0, subj);
			else
				append(out->detail, sizeof(out->detail), "%s %.4g; ", v, subj);
		}
	}
	size_t n = strlen(out->detail);
	while (n && (out->detail[n - 1] == ' ' || out->detail[n - 1] == ';'))
		out->detail[--n] = '\0';
	out->verdict = out->matched == 0 ? ENAV_BENCH_NO_DATA
		       : failed		 ? ENAV_BENCH_FAIL
					 : ENAV_BENCH_PASS;
}

/* ---- report ---------------------------------------------------------------- */

static const char *op_name(enum enav_bench_op op)
{
	static const char *const n[] = {">=", "<=", "==", ">", "<"};
	return n[op];
}

static void cell(FILE *f, const char *fmt, double v)
{
	if (isnan(v))
		fputs(" - |", f);
	else {
		fputc(' ', f);
		fprintf(f, fmt, v);
		fputs(" |", f);
	}
}

static void pair(FILE *f, const char *fmt, double a, const char *sep, double b)
{
	fputc(' ', f);
	if (isnan(a))
		fputc('-', f);
	else
		fprintf(f, fmt, a);
	fputs(sep, f);
	if (isnan(b))
		fputc('-', f);
	else
		fprintf(f, fmt, b);
	fputs(" |", f);
}

int enav_bench_report(FILE *f, const struct enav_bench_meta *meta,
		      const struct enav_bench_gate *gates, size_t ng,
		      const struct enav_bench_result *r, size_t nr,
		      const struct enav_bench_floor *floor, const struct enav_bench_soak *soak)
{
	int failed = 0;
	fputs("# Proof report\n\n", f);
	for (size_t i = 0; meta && i < meta->n; i++)
		fprintf(f, "- %s: %s\n", meta->key[i], meta->value[i]);
	fputs(
	    "\n## Gates (declared before the run)\n\n| gate | verdict | figures |\n|---|---|---|\n",
	    f);
	for (size_t i = 0; i < ng; i++) {
		struct enav_bench_gate_outcome o;
		enav_bench_eval_gate(&gates[i], r, nr, floor, soak, &o);
		static const char *const v[] = {"PASS", "FAIL", "NO DATA"};
		if (o.verdict == ENAV_BENCH_FAIL)
			failed++;
		fprintf(f, "| `%s %s %s %g` | %s | %s |\n", gates[i].subject, gates[i].metric,
			op_name(gates[i].op), gates[i].value, v[o.verdict], o.detail);
	}
	fputs("\n## Throughput against the no-agent baseline\n\n"
	      "Ratio: median over rounds of agent / no agent in the same round; spread: the "
	      "lowest and highest round.  CV: coefficient of variation of the arms.\n\n"
	      "| workload | config | rounds | no agent (ops/s) | agent (ops/s) | ratio | spread | "
	      "CV none / agent | p99 none / agent (us) | agent CPU (s) | agent peak RSS (KiB) | "
	      "hard loss | counted drops | signals / operations | verdict |\n"
	      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
	      f);
	for (size_t i = 0; i < nr; i++) {
		const struct enav_bench_result *x = &r[i];
		fprintf(f, "| %s | %s | %zu |", x->workload, x->config, x->rounds);
		cell(f, "%.1f", x->none_median);
		cell(f, "%.1f", x->agent_median);
		cell(f, "%.4f", x->ratio_median);
		pair(f, "%.4f", x->ratio_min, "..", x->ratio_max);
		pair(f, "%.3f", x->none_cv, " / ", x->agent_cv);
		pair(f, "%.0f", x->p99_none, " / ", x->p99_agent);
		cell(f, "%.2f", x->cpu_s);
		cell(f, "%.0f", x->rss_kib);
		cell(f, "%.0f", x->hard_loss);
		cell(f, "%.0f", x->soft_drops);
		if (isnan(x->signals))
			fputs(" n/a |", f);
		else
			fprintf(f, " %.0f / %.0f |", x->signals, x->ops);
		fprintf(f, " %s%s |\n", x->rejected ? "REJECTED: " : "ok",
			x->rejected ? x->reject_reason : (x->noisy ? " (noisy baseline)" : ""));
	}
	if (floor && floor->n_arms) {
		fputs("\n## Handler cost against the physical floor\n\n"
		      "Cost: CPU-microseconds per request above no program (both cores).  Ratio: "
		      "to an empty program on the same hook.\n\n"
		      "| arm | median req/s | cost (us/request) | ratio to empty "
		      "|\n|---|---|---|---|\n",
		      f);
		for (size_t i = 0; i < floor->n_arms; i++) {
			fprintf(f, "| %s |", floor->name[i]);
			cell(f, "%.1f", floor->median[i]);
			cell(f, "%.2f", floor->cost_us[i]);
			cell(f, "%.2f", floor->ratio_to_empty[i]);
			fputc('\n', f);
		}
	}
	if (soak && soak->n) {
		fprintf(f,
			"\n## Soak\n\n- events: %.0f in %.0f s\n- RSS: %.0f KiB first, %.0f KiB "
			"last, %.0f KiB peak\n- RSS slope over the second half: %.1f KiB/min\n",
			soak->events_total, soak->duration_s, soak->rss_first, soak->rss_last,
			soak->rss_max, soak->slope_kib_per_min);
	}
	return failed;
}
