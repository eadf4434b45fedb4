/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build/enav-bench-analyze: the proof harness's analyzer (analyze.h), a
 * bench tool of its own, not part of the agent.  bench/campaign.sh runs it
 * on the records of a campaign; it can be run again on the raw records a
 * report keeps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

#define INPUT_MAX (64u << 20)

/* Whole file into a NUL-terminated buffer; NULL with a reason on error. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		fprintf(stderr, "enav-bench-analyze: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
		if (n + 1 == cap) {
			if (cap >= INPUT_MAX) {
				fprintf(stderr, "enav-bench-analyze: %s: larger than 64 MiB\n",
					path);
				free(buf);
				buf = NULL;
				break;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (buf) {
		buf[n] = '\0';
		*len = n;
	}
	return buf;
}

static int parse_meta(const char *text, size_t len, struct enav_bench_meta *m)
{
	memset(m, 0, sizeof(*m));
	const char *p = text, *end = text + len;
	while (p < end && m->n < 32) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *tab = memchr(p, '\t', n);
		if (tab && tab > p) {
			snprintf(m->key[m->n], sizeof(m->key[0]), "%.*s", (int)(tab - p), p);
			snprintf(m->value[m->n], sizeof(m->value[0]), "%.*s",
				 (int)(n - (size_t)(tab - p) - 1), tab + 1);
			m->n++;
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

static void usage(FILE *f)
{
	fputs("usage: enav-bench-analyze --arms FILE --gates FILE [--floor FILE --cores N]\n"
	      "                          [--hooks FILE] [--bpf FILE] [--soak FILE] [--meta FILE]\n"
	      "                          [--out REPORT.md]\n"
	      "Reads a campaign's records (bench/campaign.sh), evaluates the gates and writes\n"
	      "the Markdown report (stdout without --out).  Exit 0 when every gate passes,\n"
	      "3 when one fails, 4 when none fails but one gives no verdict (a noisy\n"
	      "baseline) or has no data, 2 on bad input.\n",
	      f);
}

int main(int argc, char **argv)
{
	const char *arms_p = NULL, *gates_p = NULL, *floor_p = NULL, *soak_p = NULL, *meta_p = NULL,
		   *out_p = NULL, *hooks_p = NULL, *bpf_p = NULL;
	double cores = 1;
	for (int i = 1; i < argc; i++) {
		const char **slot = NULL;
		if (!strcmp(argv[i], "--arms"))
			slot = &arms_p;
		else if (!strcmp(argv[i], "--gates"))
			slot = &gates_p;
		else if (!strcmp(argv[i], "--floor"))
			slot = &floor_p;
		else if (!strcmp(argv[i], "--hooks"))
			slot = &hooks_p;
		else if (!strcmp(argv[i], "--bpf"))
			slot = &bpf_p;
		else if (!strcmp(argv[i], "--soak"))
			slot = &soak_p;
		else if (!strcmp(argv[i], "--meta"))
			slot = &meta_p;
		else if (!strcmp(argv[i], "--out"))
			slot = &out_p;
		else if (!strcmp(argv[i], "--cores") && i + 1 < argc) {
			cores = strtod(argv[++i], NULL);
			continue;
		} else if (!strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		}
		if (!slot || i + 1 >= argc) {
			usage(stderr);
			return 2;
		}
		*slot = argv[++i];
	}
	if (!arms_p || !gates_p || cores <= 0) {
		usage(stderr);
		return 2;
	}
	int rc = 2;
	char err[256];
	size_t len, na = 0, ng = 0;
	char *arms_t = NULL, *gates_t = NULL, *floor_t = NULL, *soak_t = NULL, *meta_t = NULL,
	     *hooks_t = NULL, *bpf_t = NULL;
	struct enav_bench_prog_costs *progs = calloc(1, sizeof(*progs));
	struct enav_bench_arm *arms = calloc(ENAV_BENCH_MAX_ARMS, sizeof(*arms));
	struct enav_bench_gate gates[ENAV_BENCH_MAX_GATES];
	struct enav_bench_result results[ENAV_BENCH_MAX_RESULTS];
	static struct enav_bench_floor floor;
	struct enav_bench_soak soak = {0};
	struct enav_bench_meta meta = {0};
	bool have_floor = false, have_soak = false;
	if (!arms || !progs || !(arms_t = slurp(arms_p, &len)))
		goto out;
	if (enav_bench_parse_arms(arms_t, len, arms, ENAV_BENCH_MAX_ARMS, &na, err, sizeof(err))) {
		fprintf(stderr, "enav-bench-analyze: %s: %s\n", arms_p, err);
		goto out;
	}
	if (!(gates_t = slurp(gates_p, &len)))
		goto out;
	if (enav_bench_parse_gates(gates_t, len, gates, ENAV_BENCH_MAX_GATES, &ng, err,
				   sizeof(err))) {
		fprintf(stderr, "enav-bench-analyze: %s: %s\n", gates_p, err);
		goto out;
	}
	if (floor_p) {
		if (!(floor_t = slurp(floor_p, &len)))
			goto out;
		if (enav_bench_floor_parse(floor_t, len, cores, &floor, err, sizeof(err))) {
			fprintf(stderr, "enav-bench-analyze: %s: %s\n", floor_p, err);
			goto out;
		}
		have_floor = true;
		if (hooks_p) {
			if (!(hooks_t = slurp(hooks_p, &len)))
				goto out;
			if (enav_bench_hooks_parse(hooks_t, len, &floor, err, sizeof(err))) {
				fprintf(stderr, "enav-bench-analyze: %s: %s\n", hooks_p, err);
				goto out;
			}
		}
	}
	if (bpf_p) {
		if (!(bpf_t = slurp(bpf_p, &len)))
			goto out;
		if (enav_bench_prog_parse(bpf_t, len, arms, na, progs, err, sizeof(err))) {
			fprintf(stderr, "enav-bench-analyze: %s: %s\n", bpf_p, err);
			goto out;
		}
	}
	if (soak_p) {
		if (!(soak_t = slurp(soak_p, &len)))
			goto out;
		if (enav_bench_soak_parse(soak_t, len, &soak, err, sizeof(err))) {
			fprintf(stderr, "enav-bench-analyze: %s: %s\n", soak_p, err);
			goto out;
		}
		have_soak = true;
	}
	if (meta_p) {
		if (!(meta_t = slurp(meta_p, &len)))
			goto out;
		parse_meta(meta_t, len, &meta);
	}
	size_t nr = enav_bench_analyze(arms, na, results, ENAV_BENCH_MAX_RESULTS);
	FILE *f = out_p ? fopen(out_p, "we") : stdout;
	if (!f) {
		fprintf(stderr, "enav-bench-analyze: %s: %s\n", out_p, strerror(errno));
		goto out;
	}
	enav_bench_report(f, &meta, gates, ng, results, nr, have_floor ? &floor : NULL,
			  have_soak ? &soak : NULL, progs);
	if (out_p && fclose(f) != 0) {
		fprintf(stderr, "enav-bench-analyze: %s: %s\n", out_p, strerror(errno));
		goto out;
	}
	/* The verdicts, for the terminal. */
	for (size_t i = 0; i < ng; i++) {
		struct enav_bench_gate_outcome o;
		enav_bench_eval_gate(&gates[i], results, nr, have_floor ? &floor : NULL,
				     have_soak ? &soak : NULL, &o);
		fprintf(stderr, "%-10s %s %s: %s\n", enav_bench_verdict_name(o.verdict),
			gates[i].subject, gates[i].metric, o.detail);
	}
	struct enav_bench_tally tally;
	enav_bench_tally_gates(gates, ng, results, nr, have_floor ? &floor : NULL,
			       have_soak ? &soak : NULL, &tally);
	rc = enav_bench_exit_status(&tally);
out:
	enav_bench_soak_free(&soak);
	free(arms);
	free(arms_t);
	free(gates_t);
	free(floor_t);
	free(soak_t);
	free(meta_t);
	free(hooks_t);
	free(bpf_t);
	free(progs);
	return rc;
}
