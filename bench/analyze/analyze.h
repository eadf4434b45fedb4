/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proof harness's analyzer (build/enav-bench-analyze, bench/campaign.sh):
 * reads the arms a campaign recorded, the handler-floor arms and the soak
 * samples, evaluates the gates declared before the run, and writes the
 * Markdown report for docs/proof/.  A bench tool: nothing of the agent links
 * it.
 *
 * Arms are grouped by workload into rounds: each round runs every agent
 * configuration once, each next to a no-agent baseline ("none"), in an order
 * the campaign counterbalances.  An arm's baseline is the none arm of the
 * same round nearest to it in position (the earlier on a tie).  A
 * configuration's throughput ratio is the median over rounds of agent /
 * baseline; the spread (lowest and highest round) and the baseline's
 * coefficient of variation are always reported.  Where the arms carry them,
 * per-request costs (agent CPU user and sys, BPF run time, receiver CPU),
 * spans per request, agent CPU per span and bytes exported per span are
 * medians over rounds of each round's figure.
 *
 * Each agent arm is checked for what it must capture, and one that falls
 * short rejects its configuration (which then fails every gate it is named
 * in): the workload's operations as signals, the execs the campaign ran as
 * exec signals, the connections and bytes the workload moved as tcp.close
 * counts and bytes, the CPU samples of a busy loop.  A series the campaign
 * found missing from the agent's /metrics ("missing" in the arms file) is
 * an error of the same kind, never a zero.
 *
 * A configuration whose baselines varied by more than ENAV_BENCH_NOISY_CV is
 * noisy: a gate on a figure measured against the baseline (the throughput
 * and p99 ratios) gives it no verdict, neither PASS nor FAIL.
 */
#ifndef ENAV_BENCH_ANALYZE_H
#define ENAV_BENCH_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define ENAV_BENCH_NAME_MAX    32
#define ENAV_BENCH_MAX_ARMS    4096
#define ENAV_BENCH_MAX_GATES   128
#define ENAV_BENCH_MAX_RESULTS 64
#define ENAV_BENCH_MAX_SAMPLES 100000
#define ENAV_BENCH_NOISY_CV    0.05 /* baseline CV above this is flagged noisy */
#define ENAV_BENCH_HOOK_MAX    64   /* a hook's name: tp_btf/sock_send_length */
#define ENAV_BENCH_MAX_PROGS   512  /* per-program cost rows (workload, config, program) */
#define ENAV_BENCH_MAX_HOOKS   64   /* floor rows (arm, hook) */
/* What an arm captured against what the workload did: tcp.close counts and
 * bytes within this fraction of the workload's (rounded down: a count below
 * 50 must be exact) ... */
#define ENAV_BENCH_CLOSE_TOLERANCE 0.02
/* ... CPU samples at least this fraction of frequency x seconds of the busy
 * loop (other processes' samples only add). */
#define ENAV_BENCH_SAMPLES_MIN 0.8

/* A value a tool did not report is NAN ("-" in the TSV). */
struct enav_bench_arm {
	char workload[ENAV_BENCH_NAME_MAX], config[ENAV_BENCH_NAME_MAX];
	int round, position;
	double throughput; /* operations per second */
	double ops;	   /* operations the workload completed */
	double p50_us, p99_us;
	double agent_cpu_s, agent_rss_kib; /* agent arms only */
	double hard_loss;		   /* events lost (transport full, perf lost) */
	double soft_drops;		   /* counted drops at caps (documented, not loss) */
	double signals;			   /* signals of the workload's protocol; NAN: none */
	/* Signals beyond `ops` the workload explains (requests still in flight
	 * when the client stopped counting, its setup commands); more is a
	 * duplicate and rejects the row.  NAN where signals is. */
	double surplus_max;
	/* The cost breakdown (NAN when the arms file has no such column, as in
	 * reports before it existed): agent CPU split, BPF run time and runs of
	 * every program the agent loaded, signals of every kind, spans, spans the
	 * OTLP receiver accepted, bytes exported (OTLP bodies and stdout) and the
	 * receiver's own CPU, all over the workload's window. */
	double agent_user_s, agent_sys_s;
	double bpf_ns, bpf_runs;
	double emitted, spans, spans_exported, export_bytes;
	double sink_cpu_s;
	/* What the arm must capture, against what the campaign knows the
	 * workload did (NAN in either: not checked).  Exec signals of the execs
	 * the campaign ran after the workload (at least as many: other
	 * processes exec too); tcp.close of the workload's connections and the
	 * bytes its client received (within ENAV_BENCH_CLOSE_TOLERANCE); CPU
	 * samples (at least ENAV_BENCH_SAMPLES_MIN of the expected). */
	double exec_signals, execs_run;
	double closes, closes_expected, close_bytes, close_bytes_expected;
	double samples, samples_expected;
	/* The first column the campaign recorded as "missing" (its series was
	 * not in /metrics); "" when none. */
	char missing[ENAV_BENCH_NAME_MAX];
};

enum enav_bench_op { ENAV_BENCH_GE, ENAV_BENCH_LE, ENAV_BENCH_EQ, ENAV_BENCH_GT, ENAV_BENCH_LT };

struct enav_bench_gate {
	char subject[64]; /* fnmatch glob over "workload/config", "floor/" + arm glob, "soak" */
	char metric[48];
	enum enav_bench_op op;
	double value;
};

struct enav_bench_result {
	char workload[ENAV_BENCH_NAME_MAX], config[ENAV_BENCH_NAME_MAX];
	size_t rounds;
	double none_median, agent_median; /* throughput */
	double ratio_median, ratio_min, ratio_max;
	double none_cv, agent_cv;
	double p99_none, p99_agent; /* medians */
	double cpu_s, rss_kib;	    /* median CPU, peak RSS */
	double hard_loss, soft_drops;
	double signals, ops; /* sums over agent arms (NAN when not applicable) */
	/* Medians over rounds of each round's figure; NAN when not recorded. */
	double user_us_per_req, sys_us_per_req, cpu_us_per_req;
	double bpf_us_per_req, bpf_runs_per_req;
	double spans_per_req, emitted_per_req;
	double cpu_us_per_span, bytes_per_span;
	double sink_us_per_req;
	/* Sums over the rounds of what the arms captured and what they had to
	 * (NAN when no arm recorded it). */
	double exec_signals, execs_run, closes, closes_expected, close_bytes, close_bytes_expected,
	    samples, samples_expected;
	bool rejected;
	char reject_reason[160];
	bool noisy;
};

/* One hook of one floor arm: what the arm's programs on it cost per run
 * (summed over its programs there), against the empty program on the same
 * hook, from the kernel's bpf_stats. */
struct enav_bench_hook_cost {
	char arm[ENAV_BENCH_NAME_MAX], hook[ENAV_BENCH_HOOK_MAX];
	char programs[128];	 /* the arm's programs on the hook, space-separated */
	double ns_per_run;	 /* median over rounds */
	double empty_ns_per_run; /* NAN: no empty program measured on the hook */
	bool empty_refused;	 /* the kernel refused the empty program there */
	double ratio;		 /* ns_per_run / empty_ns_per_run */
};

/* Handler floor: arms "none", "empty" and agent configurations, by round. */
struct enav_bench_floor {
	size_t n_arms;
	char name[16][ENAV_BENCH_NAME_MAX];
	double median[16];  /* requests/s */
	double cost_us[16]; /* per request above none, in CPU-us of the cores */
	double ratio_to_empty[16];
	size_t n_hooks; /* enav_bench_hooks_parse: agent arms' hooks, then refused empties */
	struct enav_bench_hook_cost hooks[ENAV_BENCH_MAX_HOOKS];
};

/* What each BPF program of an agent arm cost, medians over rounds. */
struct enav_bench_prog_cost {
	char workload[ENAV_BENCH_NAME_MAX], config[ENAV_BENCH_NAME_MAX];
	char program[ENAV_BENCH_NAME_MAX], hook[ENAV_BENCH_HOOK_MAX];
	size_t rounds;
	double runs_per_req, ns_per_run, us_per_req;
};
struct enav_bench_prog_costs {
	size_t n;
	struct enav_bench_prog_cost p[ENAV_BENCH_MAX_PROGS];
};

struct enav_bench_soak {
	size_t n;
	double *t_s, *rss_kib, *events;
	double slope_kib_per_min; /* least squares over the second half */
	double events_total, duration_s, rss_first, rss_last, rss_max;
};

/* "name\tvalue" lines, printed in the report's header in order. */
struct enav_bench_meta {
	size_t n;
	char key[32][32];
	char value[32][1024];
};

/* Parse TSV (a header line first, then one arm per line).  0, or -1 with a
 * one-line reason naming the line. */
int enav_bench_parse_arms(const char *text, size_t len, struct enav_bench_arm *out, size_t cap,
			  size_t *n, char *err, size_t errlen);
/* "gate SUBJECT METRIC OP VALUE" lines, '#' comments. */
int enav_bench_parse_gates(const char *text, size_t len, struct enav_bench_gate *out, size_t cap,
			   size_t *n, char *err, size_t errlen);

/* Group arms into results (one per workload and agent configuration). */
size_t enav_bench_analyze(const struct enav_bench_arm *arms, size_t n,
			  struct enav_bench_result *out, size_t cap);
/* "arm round requests_per_s" TSV -> medians, costs (cores: CPUs the
 * workload used) and ratios to the empty program's cost. */
int enav_bench_floor_parse(const char *text, size_t len, double cores, struct enav_bench_floor *out,
			   char *err, size_t errlen);
/* "arm round program hook runs run_time_ns" TSV (bench/hook_floor.sh; runs
 * "-" for an empty program the kernel refused) into floor->hooks. */
int enav_bench_hooks_parse(const char *text, size_t len, struct enav_bench_floor *floor, char *err,
			   size_t errlen);
/* "workload config round program hook runs run_time_ns" TSV, each line
 * divided by the operations of its arm (workload, config, round). */
int enav_bench_prog_parse(const char *text, size_t len, const struct enav_bench_arm *arms,
			  size_t na, struct enav_bench_prog_costs *out, char *err, size_t errlen);
/* "t_s rss_kib events" TSV; slope computed.  Caller frees with _soak_free. */
int enav_bench_soak_parse(const char *text, size_t len, struct enav_bench_soak *out, char *err,
			  size_t errlen);
void enav_bench_soak_free(struct enav_bench_soak *s);

/* NO DATA: the gate matched nothing measured.  NO VERDICT: it matched only
 * noisy figures, or noisy figures and passing ones. */
enum enav_bench_verdict {
	ENAV_BENCH_PASS,
	ENAV_BENCH_FAIL,
	ENAV_BENCH_NO_DATA,
	ENAV_BENCH_NO_VERDICT,
	ENAV_BENCH__VERDICTS
};
const char *enav_bench_verdict_name(enum enav_bench_verdict v);
struct enav_bench_gate_outcome {
	enum enav_bench_verdict verdict;
	size_t matched; /* subjects the gate applied to */
	char detail[512];
};
/* Evaluate one gate against everything measured (floor, soak may be NULL). */
void enav_bench_eval_gate(const struct enav_bench_gate *g, const struct enav_bench_result *r,
			  size_t nr, const struct enav_bench_floor *floor,
			  const struct enav_bench_soak *soak, struct enav_bench_gate_outcome *out);

/* How many gates gave each verdict. */
struct enav_bench_tally {
	size_t n[ENAV_BENCH__VERDICTS];
};
void enav_bench_tally_gates(const struct enav_bench_gate *gates, size_t ng,
			    const struct enav_bench_result *r, size_t nr,
			    const struct enav_bench_floor *floor,
			    const struct enav_bench_soak *soak, struct enav_bench_tally *out);
/* The analyzer's exit status for a tally: 0 when every gate passed, 3 when
 * one failed, 4 when none failed but one gave no verdict or had no data (a
 * gate that could not be judged is not a pass).  2 is bad input. */
int enav_bench_exit_status(const struct enav_bench_tally *t);

/* The whole Markdown report (floor, soak, progs may be NULL); returns the
 * number of failed gates. */
int enav_bench_report(FILE *f, const struct enav_bench_meta *meta,
		      const struct enav_bench_gate *gates, size_t ng,
		      const struct enav_bench_result *r, size_t nr,
		      const struct enav_bench_floor *floor, const struct enav_bench_soak *soak,
		      const struct enav_bench_prog_costs *progs);

double enav_bench_median(double *v, size_t n); /* sorts v; NAN when n == 0 */

#endif
