/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The analyzer's verdicts (analyze.h): each configuration against its
 * baselines, what each of its arms captured, and each gate's PASS, FAIL, NO
 * VERDICT or NO DATA with the exit status they add up to.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_priv.h"

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

/* The configuration fails every gate; the first reason is kept. */
__attribute__((format(printf, 2, 3))) static void reject(struct enav_bench_result *r,
							 const char *fmt, ...)
{
	if (!r->rejected) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->reject_reason, sizeof(r->reject_reason), fmt, ap);
		va_end(ap);
	}
	r->rejected = true;
}

/* v into the sum *total, which is NAN until a first figure arrives. */
static void add(double *total, double v)
{
	if (!isnan(v))
		*total = (isnan(*total) ? 0 : *total) + v;
}

/* |got - want| within the tolerance, rounded down: small counts exact. */
static bool within(double got, double want)
{
	return fabs(got - want) <= floor(want * ENAV_BENCH_CLOSE_TOLERANCE);
}

/* What agent arm a must have captured, against what its workload did. */
static void check_capture(const struct enav_bench_arm *a, struct enav_bench_result *r)
{
	if (a->missing[0])
		reject(r, "round %d: %s: series missing from the agent's /metrics", a->round,
		       a->missing);
	if (!isnan(a->signals)) {
		r->signals = (isnan(r->signals) ? 0 : r->signals) + a->signals;
		r->ops = (isnan(r->ops) ? 0 : r->ops) + (isnan(a->ops) ? 0 : a->ops);
		/* Exactly one signal per operation, short of the surplus the
		 * workload explains: fewer is loss, more is duplication. */
		if (isnan(a->ops) || a->signals < a->ops || a->signals > a->ops + a->surplus_max)
			reject(r,
			       "round %d: %.0f signals for %.0f operations the workload completed "
			       "(at most %.0f more explained)",
			       a->round, a->signals, a->ops, a->surplus_max);
	}
	/* Figures are summed for the report whether or not they are checked.
	 * An expectation without its figure is a capture that did not happen. */
	add(&r->exec_signals, a->exec_signals);
	add(&r->closes, a->closes);
	add(&r->close_bytes, a->close_bytes);
	add(&r->samples, a->samples);
	if (!isnan(a->execs_run)) {
		add(&r->execs_run, a->execs_run);
		if (!(a->exec_signals >= a->execs_run))
			reject(r, "round %d: %.0f exec signals for %.0f execs the campaign ran",
			       a->round, a->exec_signals, a->execs_run);
	}
	if (!isnan(a->closes_expected)) {
		add(&r->closes_expected, a->closes_expected);
		if (isnan(a->closes) || !within(a->closes, a->closes_expected))
			reject(r,
			       "round %d: %.0f tcp.close for %.0f connections the workload closed",
			       a->round, a->closes, a->closes_expected);
	}
	if (!isnan(a->close_bytes_expected)) {
		add(&r->close_bytes_expected, a->close_bytes_expected);
		if (isnan(a->close_bytes) || !within(a->close_bytes, a->close_bytes_expected))
			reject(
			    r,
			    "round %d: tcp.close bytes %.0f for %.0f bytes the workload received",
			    a->round, a->close_bytes, a->close_bytes_expected);
	}
	if (!isnan(a->samples_expected)) {
		add(&r->samples_expected, a->samples_expected);
		if (!(a->samples >= a->samples_expected * ENAV_BENCH_SAMPLES_MIN))
			reject(r, "round %d: %.0f CPU samples for %.0f expected", a->round,
			       a->samples, a->samples_expected);
	}
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
	r->exec_signals = r->execs_run = r->closes = r->closes_expected = NAN;
	r->close_bytes = r->close_bytes_expected = r->samples = r->samples_expected = NAN;
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
		check_capture(a, r);
	}
	r->rounds = k;
	r->none_cv = bench_cv(none, k);
	r->agent_cv = bench_cv(agent, k);
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

/* Figures measured against the no-agent baseline, which its noise moves. */
static bool against_baseline(const char *metric)
{
	return !strcmp(metric, "throughput_ratio") || !strcmp(metric, "throughput_ratio_min") ||
	       !strcmp(metric, "p99_ratio");
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
	bool failed = false, noisy = false;
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
			/* A rejected configuration passes no gate; a figure
			 * against a noisy baseline is within its noise, so it
			 * neither passes nor fails. */
			if (r[i].rejected) {
				failed = true;
				append(out->detail, sizeof(out->detail), "%s REJECTED; ", 0, subj);
			} else if (r[i].noisy && against_baseline(g->metric)) {
				noisy = true;
				append(out->detail, sizeof(out->detail),
				       "%s %.4g (noisy baseline); ", v, subj);
			} else {
				failed |= !holds(g->op, v, g->value);
				append(out->detail, sizeof(out->detail), "%s %.4g; ", v, subj);
			}
		}
	}
	size_t n = strlen(out->detail);
	while (n && (out->detail[n - 1] == ' ' || out->detail[n - 1] == ';'))
		out->detail[--n] = '\0';
	out->verdict = out->matched == 0 ? ENAV_BENCH_NO_DATA
		       : failed		 ? ENAV_BENCH_FAIL
		       : noisy		 ? ENAV_BENCH_NO_VERDICT
					 : ENAV_BENCH_PASS;
}

const char *enav_bench_verdict_name(enum enav_bench_verdict v)
{
	static const char *const names[ENAV_BENCH__VERDICTS] = {"PASS", "FAIL", "NO DATA",
								"NO VERDICT"};
	return v < ENAV_BENCH__VERDICTS ? names[v] : "?";
}

void enav_bench_tally_gates(const struct enav_bench_gate *gates, size_t ng,
			    const struct enav_bench_result *r, size_t nr,
			    const struct enav_bench_floor *floor,
			    const struct enav_bench_soak *soak, struct enav_bench_tally *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < ng; i++) {
		struct enav_bench_gate_outcome o;
		enav_bench_eval_gate(&gates[i], r, nr, floor, soak, &o);
		out->n[o.verdict]++;
	}
}

int enav_bench_exit_status(const struct enav_bench_tally *t)
{
	if (t->n[ENAV_BENCH_FAIL])
		return 3;
	if (t->n[ENAV_BENCH_NO_VERDICT] || t->n[ENAV_BENCH_NO_DATA])
		return 4;
	return 0;
}
