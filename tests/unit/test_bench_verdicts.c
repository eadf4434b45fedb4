/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proof harness's verdicts (bench/analyze/verdict.c): a gate whose
 * figure misses its bound fails; a figure measured against a noisy baseline
 * gives no verdict, never PASS, while figures of the agent alone (costs,
 * loss) keep theirs; a series the campaign found missing from /metrics
 * rejects its configuration instead of reading as zero; each arm is checked
 * for what it must capture (exec signals, tcp.close counts and bytes, CPU
 * samples) within the stated tolerances; and the exit status --strict
 * passes on: 0 only when every gate passed.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../bench/analyze/analyze.h"

#define HEADER                                                                                     \
	"workload config round position throughput ops agent_cpu_s hard_loss soft_drops "          \
	"signals surplus_max bpf_ns exec_signals execs_run closes closes_expected close_bytes "    \
	"close_bytes_expected samples samples_expected\n"

/* Two rounds of the network arm against steady baselines (CV 0.007). */
static const char steady_tsv[] =
    HEADER "http none 0 0 100000 200000 - - - - - - - - - - - - - -\n"
	   "http network 0 1 90000 180000 0.1 0 0 - - 90000000 100 100 32 32 1000000 1000000 - -\n"
	   "http none 1 1 101000 202000 - - - - - - - - - - - - - -\n"
	   "http network 1 0 90900 181800 0.1 0 0 - - 90900000 101 100 32 32 1010000 1010000 - "
	   "-\n";

/* The same figures with baselines a third apart (CV 0.28). */
static const char noisy_tsv[] =
    HEADER "http none 0 0 100000 200000 - - - - - - - - - - - - - -\n"
	   "http network 0 1 90000 180000 0.1 0 0 - - 90000000 100 100 32 32 1000000 1000000 - -\n"
	   "http none 1 1 150000 300000 - - - - - - - - - - - - - -\n"
	   "http network 1 0 135000 270000 0.1 0 0 - - 135000000 100 100 32 32 1000000 1000000 - "
	   "-\n";

static size_t load(const char *tsv, struct enav_bench_arm *arms, struct enav_bench_result *r)
{
	size_t n;
	char err[256] = "";
	if (enav_bench_parse_arms(tsv, strlen(tsv), arms, 16, &n, err, sizeof(err)) != 0)
		fail_msg("arms rejected: %s", err);
	return enav_bench_analyze(arms, n, r, 4);
}

static enum enav_bench_verdict verdict(const char *subject, const char *metric,
				       enum enav_bench_op op, double value,
				       const struct enav_bench_result *r, size_t nr, char *detail)
{
	struct enav_bench_gate g = {.op = op, .value = value};
	snprintf(g.subject, sizeof(g.subject), "%s", subject);
	snprintf(g.metric, sizeof(g.metric), "%s", metric);
	struct enav_bench_gate_outcome o;
	enav_bench_eval_gate(&g, r, nr, NULL, NULL, &o);
	if (detail)
		snprintf(detail, 512, "%s", o.detail);
	return o.verdict;
}

/* A figure on the wrong side of its bound fails, on the right side passes. */
static void test_failing_gate_fails(void **st)
{
	(void)st;
	struct enav_bench_arm arms[16];
	struct enav_bench_result r[4];
	size_t nr = load(steady_tsv, arms, r);
	assert_int_equal(nr, 1);
	assert_false(r[0].noisy);
	assert_false(r[0].rejected);
	char detail[512];
	/* Ratio 0.9 in both rounds. */
	assert_int_equal(
	    verdict("*/network", "throughput_ratio", ENAV_BENCH_GE, 0.97, r, nr, detail),
	    ENAV_BENCH_FAIL);
	assert_string_equal(detail, "http/network 0.9");
	assert_int_equal(verdict("*/network", "throughput_ratio", ENAV_BENCH_GE, 0.85, r, nr, NULL),
			 ENAV_BENCH_PASS);
	/* 0.5 us of BPF per request against a bound of 0.3. */
	assert_int_equal(
	    verdict("*/network", "bpf_us_per_request", ENAV_BENCH_LE, 0.3, r, nr, detail),
	    ENAV_BENCH_FAIL);
	assert_string_equal(detail, "http/network 0.5");
	assert_int_equal(verdict("redis/*", "throughput_ratio", ENAV_BENCH_GE, 0.9, r, nr, NULL),
			 ENAV_BENCH_NO_DATA);
}

/* A noisy baseline: its ratio neither passes nor fails; the agent's own
 * costs and loss keep their verdicts; a rejection still fails. */
static void test_noisy_gives_no_verdict(void **st)
{
	(void)st;
	struct enav_bench_arm arms[16];
	struct enav_bench_result r[4];
	size_t nr = load(noisy_tsv, arms, r);
	assert_true(r[0].noisy);
	char detail[512];
	assert_int_equal(verdict("*", "throughput_ratio", ENAV_BENCH_GE, 0.85, r, nr, detail),
			 ENAV_BENCH_NO_VERDICT);
	assert_string_equal(detail, "http/network 0.9 (noisy baseline)");
	assert_int_equal(verdict("*", "throughput_ratio", ENAV_BENCH_GE, 0.97, r, nr, NULL),
			 ENAV_BENCH_NO_VERDICT);
	assert_int_equal(verdict("*", "throughput_ratio_min", ENAV_BENCH_GE, 0.5, r, nr, NULL),
			 ENAV_BENCH_NO_VERDICT);
	assert_int_equal(verdict("*", "hard_loss", ENAV_BENCH_EQ, 0, r, nr, NULL), ENAV_BENCH_PASS);
	assert_int_equal(verdict("*", "bpf_us_per_request", ENAV_BENCH_LE, 0.3, r, nr, NULL),
			 ENAV_BENCH_FAIL);
	/* Noisy and rejected: the rejection decides. */
	r[0].rejected = true;
	assert_int_equal(verdict("*", "throughput_ratio", ENAV_BENCH_GE, 0.85, r, nr, detail),
			 ENAV_BENCH_FAIL);
	assert_string_equal(detail, "http/network REJECTED");
	/* The report names the verdict and counts it. */
	r[0].rejected = false;
	struct enav_bench_gate g = {"*/network", "throughput_ratio", ENAV_BENCH_GE, 0.85};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(enav_bench_report(f, NULL, &g, 1, r, nr, NULL, NULL, NULL), 0);
	fclose(f);
	if (!strstr(buf, "| `*/network throughput_ratio >= 0.85` | NO VERDICT | http/network 0.9 "
			 "(noisy baseline) |") ||
	    !strstr(buf, "Verdicts: 0 PASS, 0 FAIL, 1 NO VERDICT (a noisy baseline), 0 NO DATA; "
			 "`--strict` exit status 4."))
		fail_msg("%s", buf);
	free(buf);
}

/* "missing" in the arms file: the series was not in /metrics.  It rejects
 * the configuration, and reads as no figure, never as zero. */
static void test_missing_series_is_an_error(void **st)
{
	(void)st;
	static const char tsv[] =
	    HEADER "http none 0 0 100000 200000 - - - - - - - - - - - - - -\n"
		   "http network 0 1 90000 180000 0.1 missing 0 - - 90000000 100 100 32 32 1000000 "
		   "1000000 - -\n";
	struct enav_bench_arm arms[16];
	struct enav_bench_result r[4];
	size_t nr = load(tsv, arms, r);
	assert_string_equal(arms[1].missing, "hard_loss");
	assert_true(isnan(arms[1].hard_loss));
	assert_true(r[0].rejected);
	assert_string_equal(r[0].reject_reason,
			    "round 0: hard_loss: series missing from the agent's /metrics");
	assert_int_equal(verdict("*", "hard_loss", ENAV_BENCH_EQ, 0, r, nr, NULL), ENAV_BENCH_FAIL);
	/* The token is for figures: the workload's own columns refuse it. */
	static const char bad[] = "workload config round position throughput\n"
				  "http none missing 0 5\n";
	size_t n;
	char err[256];
	assert_int_equal(enav_bench_parse_arms(bad, strlen(bad), arms, 16, &n, err, sizeof(err)),
			 -1);
}

/* Each capture check, one arm at a time: NAME's row replaces the network
 * arm's capture columns. */
static bool captured(const char *capture, char *reason)
{
	char tsv[2048];
	snprintf(tsv, sizeof(tsv),
		 HEADER "http none 0 0 100000 200000 - - - - - - - - - - - - - -\n"
			"http network 0 1 90000 180000 0.1 0 0 - - 90000000 %s\n",
		 capture);
	struct enav_bench_arm arms[16];
	struct enav_bench_result r[4];
	load(tsv, arms, r);
	snprintf(reason, 160, "%s", r[0].reject_reason);
	return !r[0].rejected;
}

static void test_capture_checks(void **st)
{
	(void)st;
	char why[160];
	/* exec signals, tcp.close count, bytes, samples: all as the workload did. */
	assert_true(captured("100 100 32 32 1000000 1000000 400 396", why));
	/* Other processes exec too: more exec signals are fine, fewer are not. */
	assert_true(captured("250 100 - - - - - -", why));
	assert_false(captured("99 100 - - - - - -", why));
	assert_string_equal(why, "round 0: 99 exec signals for 100 execs the campaign ran");
	/* 32 connections: 2% of 32 rounds down to 0, so exactly 32. */
	assert_false(captured("- - 31 32 - - - -", why));
	assert_string_equal(why, "round 0: 31 tcp.close for 32 connections the workload closed");
	assert_false(captured("- - 33 32 - - - -", why));
	/* Bytes within 2%: 1.5% off passes, 2.5% off is rejected. */
	assert_true(captured("- - - - 1015000 1000000 - -", why));
	assert_false(captured("- - - - 975000 1000000 - -", why));
	assert_string_equal(
	    why, "round 0: tcp.close bytes 975000 for 1000000 bytes the workload received");
	/* Samples: at least 80% of the expected. */
	assert_true(captured("- - - - - - 317 396", why));
	assert_false(captured("- - - - - - 316 396", why));
	assert_string_equal(why, "round 0: 316 CPU samples for 396 expected");
	/* An expectation with no figure is a capture that did not happen. */
	assert_false(captured("- 100 - - - - - -", why));
	assert_false(captured("- - - 32 - - - -", why));
	assert_false(captured("- - - - - 1000000 - -", why));
	assert_false(captured("- - - - - - - 396", why));
	/* No expectation: the figure is reported, not checked. */
	assert_true(captured("0 - 0 - 0 - 0 -", why));
}

/* The status --strict exits with: every gate passed, or why not. */
static void test_strict_exit_status(void **st)
{
	(void)st;
	struct enav_bench_tally t = {0};
	t.n[ENAV_BENCH_PASS] = 5;
	assert_int_equal(enav_bench_exit_status(&t), 0);
	t.n[ENAV_BENCH_NO_DATA] = 1;
	assert_int_equal(enav_bench_exit_status(&t), 4);
	t.n[ENAV_BENCH_NO_DATA] = 0;
	t.n[ENAV_BENCH_NO_VERDICT] = 1;
	assert_int_equal(enav_bench_exit_status(&t), 4);
	t.n[ENAV_BENCH_FAIL] = 1;
	assert_int_equal(enav_bench_exit_status(&t), 3);
	/* From gates over the steady and noisy arms. */
	struct enav_bench_arm arms[16];
	struct enav_bench_result r[4];
	size_t nr = load(steady_tsv, arms, r);
	struct enav_bench_gate gates[] = {
	    {"*/network", "throughput_ratio", ENAV_BENCH_GE, 0.85},
	    {"*", "hard_loss", ENAV_BENCH_EQ, 0},
	};
	enav_bench_tally_gates(gates, 2, r, nr, NULL, NULL, &t);
	assert_int_equal(t.n[ENAV_BENCH_PASS], 2);
	assert_int_equal(enav_bench_exit_status(&t), 0);
	gates[0].value = 0.97;
	enav_bench_tally_gates(gates, 2, r, nr, NULL, NULL, &t);
	assert_int_equal(enav_bench_exit_status(&t), 3);
	nr = load(noisy_tsv, arms, r);
	gates[0].value = 0.85;
	enav_bench_tally_gates(gates, 2, r, nr, NULL, NULL, &t);
	assert_int_equal(t.n[ENAV_BENCH_NO_VERDICT], 1);
	assert_int_equal(enav_bench_exit_status(&t), 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_failing_gate_fails),
	    cmocka_unit_test(test_noisy_gives_no_verdict),
	    cmocka_unit_test(test_missing_series_is_an_error),
	    cmocka_unit_test(test_capture_checks),
	    cmocka_unit_test(test_strict_exit_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
