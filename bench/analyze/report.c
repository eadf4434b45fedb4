/* SPDX-License-Identifier: Apache-2.0 */
/* The analyzer's Markdown report (analyze.h): the format docs/proof/ reports
 * have, which bench/readme_table.sh and the harness test read. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze_priv.h"

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

/* "got / want"; "got" alone when it was recorded but not checked; "-"
 * when neither was recorded. */
static void versus(FILE *f, double got, double want)
{
	if (isnan(want) && isnan(got))
		fputs(" - |", f);
	else if (isnan(want))
		fprintf(f, " %.0f |", got);
	else if (isnan(got))
		fprintf(f, " missing / %.0f |", want);
	else
		fprintf(f, " %.0f / %.0f |", got, want);
}

/* What each configuration's arms captured against what their workload did,
 * summed over rounds; the verdict column of the throughput table says which
 * fell short. */
static void report_captures(FILE *f, const struct enav_bench_result *r, size_t nr)
{
	bool any = false;
	for (size_t i = 0; i < nr; i++)
		any |= !isnan(r[i].execs_run) || !isnan(r[i].closes_expected) ||
		       !isnan(r[i].close_bytes_expected) || !isnan(r[i].samples_expected) ||
		       !isnan(r[i].closes) || !isnan(r[i].samples);
	if (!any)
		return;
	fprintf(f,
		"\n## What each arm captured\n\n"
		"Sums over rounds, against what the workload did: exec signals for the execs the "
		"campaign ran after the workload (at least as many), tcp.close counts and bytes "
		"for the connections the workload closed and the bytes its client received "
		"(within %.0f%%, rounded down), CPU samples of the busy loop (at least %.0f%% of "
		"frequency x seconds).  An arm that falls short, or whose series is missing from "
		"/metrics, rejects its configuration.  A figure alone was recorded, not checked "
		"(the workload does not say what it did).\n\n"
		"| workload | config | exec signals / execs run | tcp.close / connections closed | "
		"tcp.close bytes received / bytes the client read | CPU samples / expected |\n"
		"|---|---|---|---|---|---|\n",
		ENAV_BENCH_CLOSE_TOLERANCE * 100, ENAV_BENCH_SAMPLES_MIN * 100);
	for (size_t i = 0; i < nr; i++) {
		const struct enav_bench_result *x = &r[i];
		fprintf(f, "| %s | %s |", x->workload, x->config);
		versus(f, x->exec_signals, x->execs_run);
		versus(f, x->closes, x->closes_expected);
		versus(f, x->close_bytes, x->close_bytes_expected);
		versus(f, x->samples, x->samples_expected);
		fputc('\n', f);
	}
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
	struct enav_bench_tally t = {0};
	for (size_t i = 0; i < ng; i++) {
		struct enav_bench_gate_outcome o;
		enav_bench_eval_gate(&gates[i], r, nr, floor, soak, &o);
		if (o.verdict == ENAV_BENCH_FAIL)
			failed++;
		t.n[o.verdict]++;
		fprintf(f, "| `%s %s %s %g` | %s | %s |\n", gates[i].subject, gates[i].metric,
			op_name(gates[i].op), gates[i].value, enav_bench_verdict_name(o.verdict),
			o.detail);
	}
	fprintf(f,
		"\nVerdicts: %zu PASS, %zu FAIL, %zu NO VERDICT (a noisy baseline), %zu NO DATA; "
		"`--strict` exit status %d.\n",
		t.n[ENAV_BENCH_PASS], t.n[ENAV_BENCH_FAIL], t.n[ENAV_BENCH_NO_VERDICT],
		t.n[ENAV_BENCH_NO_DATA], enav_bench_exit_status(&t));
	fputs("\n## Throughput against the no-agent baseline\n\n"
	      "Ratio: median over rounds of agent / no agent, each arm against the baseline "
	      "next to it in the same round; spread: the lowest and highest round.  CV: "
	      "coefficient of variation of the arms.  A baseline whose CV exceeds 5% is "
	      "noisy: the gates on its throughput and p99 ratios give no verdict.\n\n"
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
	report_captures(f, r, nr);
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
