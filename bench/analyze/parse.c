/* SPDX-License-Identifier: Apache-2.0 */
/* The analyzer's readers of the arms file and the gates file (analyze.h). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analyze_priv.h"

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
    {"exec_signals", ARM_DOUBLE(exec_signals)},
    {"execs_run", ARM_DOUBLE(execs_run)},
    {"closes", ARM_DOUBLE(closes)},
    {"closes_expected", ARM_DOUBLE(closes_expected)},
    {"close_bytes", ARM_DOUBLE(close_bytes)},
    {"close_bytes_expected", ARM_DOUBLE(close_bytes_expected)},
    {"samples", ARM_DOUBLE(samples)},
    {"samples_expected", ARM_DOUBLE(samples_expected)},
};
#define N_ARM_COLUMNS (sizeof(arm_columns) / sizeof(arm_columns[0]))

/* The header line (line LINENO) into col[] (a column index per field);
 * false with a reason. */
static bool parse_arm_header(char *line, size_t lineno, size_t *col, size_t *ncol, char *err,
			     size_t errlen)
{
	char *f[N_ARM_COLUMNS + 1];
	size_t nf = bench_split(line, f, N_ARM_COLUMNS);
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
	while (bench_next_line(&l, buf, sizeof(buf))) {
		if (bench_blank_or_comment(buf))
			continue;
		if (!header) {
			if (!parse_arm_header(buf, l.lineno, col, &ncol, err, errlen))
				return -1;
			header = true;
			continue;
		}
		char *f[N_ARM_COLUMNS + 1];
		if (bench_split(buf, f, N_ARM_COLUMNS) != ncol) {
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
				if (!bench_name_ok(f[i])) {
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
			/* A series the campaign did not find in /metrics: not a
			 * figure (NAN), and an error the analysis reports. */
			if (col[i] > COL_THROUGHPUT && !strcmp(f[i], "missing")) {
				if (!a->missing[0])
					snprintf(a->missing, sizeof(a->missing), "%s",
						 arm_columns[col[i]].name);
				continue;
			}
			if (!bench_num(f[i], slot)) {
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
	while (bench_next_line(&l, buf, sizeof(buf))) {
		if (bench_blank_or_comment(buf))
			continue;
		char *f[6];
		size_t nf = bench_split(buf, f, 5);
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
		if (!found || !bench_num(f[4], &g->value) || isnan(g->value)) {
			snprintf(err, errlen, "gates line %zu: bad operator or value", l.lineno);
			return -1;
		}
		(*n)++;
	}
	return 0;
}
