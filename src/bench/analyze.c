/* SPDX-License-Identifier: Apache-2.0 */
#include "bench/analyze.h"

#include <ctype.h>
#include <fnmatch.h>
#include <math.h>
#include <stddef.h>
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

/* The arms file's columns, by name: its header line says which it has and
 * in what order.  The first five are required; a column a file lacks (an
 * older report) reads as not reported. */
enum { COL_WORKLOAD, COL_CONFIG, COL_ROUND, COL_POSITION, COL_THROUGHPUT, COL__REQUIRED };
#define ARM_DOUBLE(f) offsetof(struct enav_bench_arm, f)
static const struct {
	const char *name;
	size_t offset; /* of the double, for the numeric columns after the required */
} arm_columns[] = {
    {"workload", 0},
    {"config", 0},
    {"round", 0},
    {"position", 0},
    {"throughput", ARM_DOUBLE(throughput)},
    {"ops", ARM_DOUBLE(ops)},
    {"p50_us", ARM_DOUBLE(p50_us)},
    {"p99_us", ARM_DOUBLE(p99_us)},
    {"agent_cpu_s", ARM_DOUBLE(agent_cpu_s)},
    {"agent_rss_kib", ARM_DOUBLE(agent_rss_kib)},
    {"hard_loss", ARM_DOUBLE(hard_loss)},
    {"soft_drops", ARM_DOUBLE(soft_drops)},
    {"signals", ARM_DOUBLE(signals)},
    {"surplus_max", ARM_DOUBLE(surplus_max)},
    {"agent_user_s", ARM_DOUBLE(agent_user_s)},
    {"agent_sys_s", ARM_DOUBLE(agent_sys_s)},
    {"bpf_ns", ARM_DOUBLE(bpf_ns)},
    {"bpf_runs", ARM_DOUBLE(bpf_runs)},
    {"emitted", ARM_DOUBLE(emitted)},
    {"spans", ARM_DOUBLE(spans)},
    {"spans_exported", ARM_DOUBLE(spans_exported)},
    {"export_bytes", ARM_DOUBLE(export_bytes)},
    {"sink_cpu_s", ARM_DOUBLE(sink_cpu_s)},
};
#define N_ARM_COLUMNS (sizeof(arm_columns) / sizeof(arm_columns[0]))

/* The header line (line LINENO) into col[] (a column index per field);
 * false with a reason. */
static bool parse_arm_header(char *line, size_t lineno, size_t *col, size_t *ncol, char *err,
			     size_t errlen)
{
	char *f[N_ARM_COLUMNS + 1];
	size_t nf = split(line, f, N_ARM_COLUMNS);
	bool seen[N_ARM_COLUMNS] = {false};
	if (nf > N_ARM_COLUMNS || nf == 0 || strcmp(f[0], "workload") != 0) {
		snprintf(err, errlen, "arms line %zu: expected the header line", lineno);
		return false;
	}
	for (size_t i = 0; i < nf; i++) {
		size_t c = 0;
		while (c < N_ARM_COLUMNS && strcmp(arm_columns[c].name, f[i]))
			c++;
		if (c == N_ARM_COLUMNS || seen[c]) {
			snprintf(err, errlen, "arms line %zu: unknown or repeated column '%.40s'",
				 lineno, f[i]);
			return false;
		}
		seen[c] = true;
		col[i] = c;
	}
	for (size_t c = 0; c < COL__REQUIRED; c++)
		if (!seen[c]) {
			snprintf(err, errlen, "arms line %zu: no column '%s'", lineno,
				 arm_columns[c].name);
			return false;
		}
	*ncol = nf;
	return true;
}

int enav_bench_parse_arms(const char *text, size_t len, struct enav_bench_arm *out, size_t cap,
			  size_t *n, char *err, size_t errlen)
{
	struct lines l = {text, text + len, 0};
	char buf[1024];
	size_t col[N_ARM_COLUMNS], ncol = 0;
	*n = 0;
	bool header = false;
	while (next_line(&l, buf, sizeof(buf))) {
		if (blank_or_comment(buf))
			continue;
		if (!header) {
			if (!parse_arm_header(buf, l.lineno, col, &ncol, err, errlen))
				return -1;
			header = true;
			continue;
		}
		char *f[N_ARM_COLUMNS + 1];
		if (split(buf, f, N_ARM_COLUMNS) != ncol) {
			snprintf(err, errlen, "arms line %zu: expected %zu fields", l.lineno, ncol);
			return -1;
		}
		if (*n == cap) {
			snprintf(err, errlen, "arms line %zu: more than %zu arms", l.lineno, cap);
			return -1;
		}
		struct enav_bench_arm *a = &out[*n];
		memset(a, 0, sizeof(*a));
		for (size_t c = COL_THROUGHPUT; c < N_ARM_COLUMNS; c++)
			*(double *)((char *)a + arm_columns[c].offset) = NAN;
		double round = NAN, pos = NAN;
		for (size_t i = 0; i < ncol; i++) {
			if (col[i] == COL_WORKLOAD || col[i] == COL_CONFIG) {
				if (!name_ok(f[i])) {
					snprintf(err, errlen,
						 "arms line %zu: bad workload or config name",
						 l.lineno);
					return -1;
				}
				strcpy(col[i] == COL_WORKLOAD ? a->workload : a->config, f[i]);
				continue;
			}
			double *slot = col[i] == COL_ROUND ? &round
				       : col[i] == COL_POSITION
					   ? &pos
					   : (double *)((char *)a + arm_columns[col[i]].offset);
			if (!num(f[i], slot)) {
				snprintf(err, errlen, "arms line %zu: field %zu is not a number",
					 l.lineno, i + 1);
				return -1;
			}
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

/* An arm's baseline: the none arm of its workload and round nearest to it
 * in position, the earlier on a tie (the campaign pairs each configuration
 * with a baseline of its own, so the nearest is its pair's). */
static const struct enav_bench_arm *baseline_of(const struct enav_bench_arm *arms, size_t n,
						const struct enav_bench_arm *a)
{
	const struct enav_bench_arm *best = NULL;
	for (size_t i = 0; i < n; i++) {
		const struct enav_bench_arm *b = &arms[i];
		if (b->round != a->round || strcmp(b->workload, a->workload) ||
		    strcmp(b->config, "none"))
			continue;
		int d = abs(b->position - a->position),
		    bd = best ? abs(best->position - a->position) : 0;
		if (!best || d < bd || (d == bd && b->position < best->position))
			best = b;
	}
	return best;
}

/* v into the values of a median when it is a finite number. */
static void push(double *vals, size_t *n, double v)
{
	if (isfinite(v))
		vals[(*n)++] = v;
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
	/* Per-request and per-span costs, one value per round. */
	enum {
		C_USER,
		C_SYS,
		C_CPU,
		C_BPF,
		C_BPF_RUNS,
		C_SPANS,
		C_EMITTED,
		C_PER_SPAN,
		C_BYTES,
		C_SINK,
		C__N
	};
	static double costs[C__N][ENAV_BENCH_MAX_ARMS / 2];
	size_t nc[C__N] = {0};
	r->signals = r->ops = NAN;
	r->rss_kib = NAN;
	for (size_t i = 0; i < n; i++) {
		const struct enav_bench_arm *a = &arms[i];
		if (strcmp(a->workload, w) || strcmp(a->config, c))
			continue;
		const struct enav_bench_arm *b = baseline_of(arms, n, a);
		if (!b || b->throughput <= 0 || k == ENAV_BENCH_MAX_ARMS / 2)
			continue; /* a round without its baseline cannot be compared */
		if (a->ops > 0) {
			push(costs[C_USER], &nc[C_USER], a->agent_user_s * 1e6 / a->ops);
			push(costs[C_SYS], &nc[C_SYS], a->agent_sys_s * 1e6 / a->ops);
			push(costs[C_CPU], &nc[C_CPU], a->agent_cpu_s * 1e6 / a->ops);
			push(costs[C_BPF], &nc[C_BPF], a->bpf_ns / 1e3 / a->ops);
			push(costs[C_BPF_RUNS], &nc[C_BPF_RUNS], a->bpf_runs / a->ops);
			push(costs[C_SPANS], &nc[C_SPANS], a->spans / a->ops);
			push(costs[C_EMITTED], &nc[C_EMITTED], a->emitted / a->ops);
			push(costs[C_SINK], &nc[C_SINK], a->sink_cpu_s * 1e6 / a->ops);
		}
		if (a->spans > 0) {
			push(costs[C_PER_SPAN], &nc[C_PER_SPAN], a->agent_cpu_s * 1e6 / a->spans);
			push(costs[C_BYTES], &nc[C_BYTES], a->export_bytes / a->spans);
		}
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
	r->user_us_per_req = enav_bench_median(costs[C_USER], nc[C_USER]);
	r->sys_us_per_req = enav_bench_median(costs[C_SYS], nc[C_SYS]);
	r->cpu_us_per_req = enav_bench_median(costs[C_CPU], nc[C_CPU]);
	r->bpf_us_per_req = enav_bench_median(costs[C_BPF], nc[C_BPF]);
	r->bpf_runs_per_req = enav_bench_median(costs[C_BPF_RUNS], nc[C_BPF_RUNS]);
	r->spans_per_req = enav_bench_median(costs[C_SPANS], nc[C_SPANS]);
	r->emitted_per_req = enav_bench_median(costs[C_EMITTED], nc[C_EMITTED]);
	r->cpu_us_per_span = enav_bench_median(costs[C_PER_SPAN], nc[C_PER_SPAN]);
	r->bytes_per_span = enav_bench_median(costs[C_BYTES], nc[C_BYTES]);
	r->sink_us_per_req = enav_bench_median(costs[C_SINK], nc[C_SINK]);
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

/* A hook or program name from bpftool: printable, no spaces, bounded. */
static bool hook_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n >= ENAV_BENCH_HOOK_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isgraph((unsigned char)s[i]))
			return false;
	return true;
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
	size_t nf = split(line, f, 6 + skip);
	return nf == 6 + skip && num(f[skip + 1], round) && !isnan(*round) && *round >= 0 &&
	       *round <= 1e6 && name_ok(f[skip + 0]) && hook_ok(f[skip + 2]) &&
	       hook_ok(f[skip + 3]) && strlen(f[skip + 2]) < ENAV_BENCH_NAME_MAX &&
	       num(f[skip + 4], runs) && num(f[skip + 5], ns) && isnan(*runs) == isnan(*ns) &&
	       (isnan(*runs) || (*runs >= 0 && *ns >= 0));
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
	while (next_line(&l, buf, sizeof(buf))) {
		if (blank_or_comment(buf) || !strncmp(buf, "arm ", 4))
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
	while (next_line(&l, buf, sizeof(buf))) {
		if (blank_or_comment(buf) || !strncmp(buf, "workload ", 9))
			continue;
		char *f[8];
		double round, runs, ns;
		if (!prog_line(buf, 1, f, &round, &runs, &ns) || !name_ok(f[0]) || isnan(runs)) {
			snprintf(err, errlen,
				 "bpf line %zu: expected: WORKLOAD CONFIG ROUND PROGRAM HOOK RUNS "
				 "RUN_TIME_NS",
				 l.lineno);
			rc = -1;
			break;
		}
		const struct enav_bench_arm *a = find_arm(arms, na, f[0], f[1], (int)round);
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
			a = find_arm(arms, na, out->p[i].workload, out->p[i].config, v[i].round[k]);
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
	else if (!strcmp(m, "agent_cpu_us_per_request"))
		*v = r->cpu_us_per_req;
	else if (!strcmp(m, "agent_user_us_per_request"))
		*v = r->user_us_per_req;
	else if (!strcmp(m, "agent_sys_us_per_request"))
		*v = r->sys_us_per_req;
	else if (!strcmp(m, "bpf_us_per_request"))
		*v = r->bpf_us_per_req;
	else if (!strcmp(m, "cost_us_per_request")) /* the agent's CPU and its programs' */
		*v = r->cpu_us_per_req + r->bpf_us_per_req;
	else if (!strcmp(m, "agent_cpu_us_per_span"))
		*v = r->cpu_us_per_span;
	else if (!strcmp(m, "bytes_per_span"))
		*v = r->bytes_per_span;
	else if (!strcmp(m, "spans_per_request"))
		*v = r->spans_per_req;
	else if (!strcmp(m, "receiver_cpu_us_per_request"))
		*v = r->sink_us_per_req;
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
	if (!strncmp(g->subject, "floor/", 6) && !strcmp(g->metric, "hook_ns_ratio")) {
		/* Per hook: "ARM:HOOK", where an empty program ran on the hook. */
		for (size_t i = 0; floor && i < floor->n_hooks; i++) {
			const struct enav_bench_hook_cost *h = &floor->hooks[i];
			char name[ENAV_BENCH_NAME_MAX + ENAV_BENCH_HOOK_MAX + 1];
			snprintf(name, sizeof(name), "%s:%s", h->arm, h->hook);
			if (isnan(h->ratio) || fnmatch(g->subject + 6, name, 0) != 0)
				continue;
			out->matched++;
			failed |= !holds(g->op, h->ratio, g->value);
			append(out->detail, sizeof(out->detail), "%s %.2f; ", h->ratio, name);
		}
	} else if (!strncmp(g->subject, "floor/", 6)) {
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

/* "Where the cost goes": per request of each agent configuration, then
 * each BPF program's share, largest first. */
static void report_costs(FILE *f, const struct enav_bench_result *r, size_t nr,
			 const struct enav_bench_prog_costs *progs)
{
	bool any = progs && progs->n;
	for (size_t i = 0; i < nr; i++)
		any |= !isnan(r[i].cpu_us_per_req) || !isnan(r[i].bpf_us_per_req);
	if (!any)
		return;
	fputs("\n## Where the cost goes\n\n"
	      "Per request of the workload (per span where said), medians over rounds.  Agent "
	      "CPU: user and sys time of every agent thread (/proc/PID/stat) over the "
	      "workload's window and the agent's drain after it.  BPF: run time of every "
	      "program the agent loaded (kernel.bpf_stats_enabled) over the workload's window; "
	      "the programs run for every process on the node, so whatever else the machine "
	      "does adds to it.  Spans and signals: what the agent made (enav_signals_total); "
	      "bytes: OTLP request bodies plus NDJSON on stdout, per span made.  Receiver: the "
	      "OTLP receiver's own CPU, not the agent's.\n\n"
	      "| workload | config | agent CPU user / sys (us) | BPF (us) | BPF runs | agent + BPF "
	      "(us) | spans / signals | agent CPU per span (us) | bytes exported per span | "
	      "receiver CPU (us) |\n|---|---|---|---|---|---|---|---|---|---|\n",
	      f);
	for (size_t i = 0; i < nr; i++) {
		const struct enav_bench_result *x = &r[i];
		fprintf(f, "| %s | %s |", x->workload, x->config);
		pair(f, "%.2f", x->user_us_per_req, " / ", x->sys_us_per_req);
		cell(f, "%.2f", x->bpf_us_per_req);
		cell(f, "%.1f", x->bpf_runs_per_req);
		cell(f, "%.2f", x->cpu_us_per_req + x->bpf_us_per_req);
		pair(f, "%.2f", x->spans_per_req, " / ", x->emitted_per_req);
		cell(f, "%.2f", x->cpu_us_per_span);
		cell(f, "%.0f", x->bytes_per_span);
		cell(f, "%.2f", x->sink_us_per_req);
		fputc('\n', f);
	}
	if (!progs || !progs->n)
		return;
	fputs("\nEach BPF program of the agent (its name as loaded; programs of one name "
	      "summed), largest first; programs that did not run are left out.\n\n"
	      "| workload | config | program | hook | runs per request | ns per run | us per "
	      "request |\n|---|---|---|---|---|---|---|\n",
	      f);
	for (size_t i = 0; i < nr; i++) {
		size_t idx[ENAV_BENCH_MAX_PROGS], n = 0;
		for (size_t j = 0; j < progs->n; j++) {
			const struct enav_bench_prog_cost *p = &progs->p[j];
			if (strcmp(p->workload, r[i].workload) || strcmp(p->config, r[i].config) ||
			    !(p->runs_per_req > 0))
				continue;
			size_t k = n++;
			while (k > 0 && progs->p[idx[k - 1]].us_per_req < p->us_per_req) {
				idx[k] = idx[k - 1];
				k--;
			}
			idx[k] = j;
		}
		for (size_t j = 0; j < n; j++) {
			const struct enav_bench_prog_cost *p = &progs->p[idx[j]];
			fprintf(f, "| %s | %s | %s | %s |", p->workload, p->config, p->program,
				p->hook);
			cell(f, "%.2f", p->runs_per_req);
			cell(f, "%.0f", p->ns_per_run);
			cell(f, "%.3f", p->us_per_req);
			fputc('\n', f);
		}
	}
}

static void report_hooks(FILE *f, const struct enav_bench_floor *floor)
{
	if (!floor->n_hooks)
		return;
	fputs("\nPer hook, from the kernel's accounting (kernel.bpf_stats_enabled): the arm's "
	      "programs on the hook, ns per run summed over them (median over rounds), against "
	      "an empty program on the same hook (bench/bpf/empty_hooks.bpf.c).\n\n"
	      "| arm | hook | programs | ns per run | empty program (ns per run) | ratio |\n"
	      "|---|---|---|---|---|---|\n",
	      f);
	/* The hooks measured against an empty program first, then the others. */
	for (size_t i = 0; i < 2 * floor->n_hooks; i++) {
		const struct enav_bench_hook_cost *h = &floor->hooks[i % floor->n_hooks];
		if (isnan(h->ratio) != (i >= floor->n_hooks))
			continue;
		fprintf(f, "| %s | %s | %s |", h->arm, h->hook, h->programs[0] ? h->programs : "-");
		cell(f, "%.1f", h->ns_per_run);
		if (h->empty_refused)
			fputs(" refused by the kernel: not measured |", f);
		else if (isnan(h->empty_ns_per_run))
			fputs(" no empty program on this hook |", f);
		else
			cell(f, "%.1f", h->empty_ns_per_run);
		cell(f, "%.2f", h->ratio);
		fputc('\n', f);
	}
}

int enav_bench_report(FILE *f, const struct enav_bench_meta *meta,
		      const struct enav_bench_gate *gates, size_t ng,
		      const struct enav_bench_result *r, size_t nr,
		      const struct enav_bench_floor *floor, const struct enav_bench_soak *soak,
		      const struct enav_bench_prog_costs *progs)
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
	      "Ratio: median over rounds of agent / no agent, each arm against the baseline "
	      "next to it in the same round; spread: the lowest and highest round.  CV: "
	      "coefficient of variation of the arms.\n\n"
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
	report_costs(f, r, nr, progs);
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
		report_hooks(f, floor);
	}
	if (soak && soak->n) {
		fprintf(f,
			"\n## Soak\n\n- events: %.0f in %.0f s\n- RSS: %.0f KiB at the start, %.0f "
			"KiB peak, %.0f KiB at the end\n- RSS slope over the second half: %.1f "
			"KiB/min\n",
			soak->events_total, soak->duration_s, soak->rss_first, soak->rss_max,
			soak->rss_last, soak->slope_kib_per_min);
	}
	return failed;
}
