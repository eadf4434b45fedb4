/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proof harness's analyzer on recorded arm data: ratios as the median
 * of per-round ratios with their spread; an arm whose signals fall below the
 * workload's operations rejects its configuration (and fails every gate on
 * it); a noisy baseline is flagged with its spread; gates by glob, floor
 * costs against the empty program, the soak slope, and malformed input
 * refused with the line named.  The cost breakdown: columns found by the
 * header's names, each arm against the baseline next to it, per-request and
 * per-span medians, each BPF program's share, and each hook's ns per run
 * against the empty program on the same hook.
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

/* Five rounds of wrk -> nginx and redis-benchmark, recorded from a campaign
 * (round 2 of redis/l7 short of signals, as a window too small would make). */
static const char arms_tsv[] =
    "workload config round position throughput ops p50_us p99_us agent_cpu_s agent_rss_kib "
    "hard_loss soft_drops signals surplus_max\n"
    "http none 0 0 70000 700000 400 1200 - - - - - -\n"
    "http l7 0 1 42000 420000 700 2100 4.1 21000 0 0 420010 32\n"
    "http none 1 1 71000 710000 400 1100 - - - - - -\n"
    "http l7 1 0 41000 410000 720 2300 4.0 21500 0 0 410005 32\n"
    "http none 2 0 69000 690000 410 1150 - - - - - -\n"
    "http l7 2 1 43000 430000 690 2000 4.2 22000 0 0 430002 32\n"
    "http none 3 1 70500 705000 400 1200 - - - - - -\n"
    "http l7 3 0 42500 425000 700 2050 4.1 21800 0 0 425000 32\n"
    "http none 4 0 70200 702000 400 1190 - - - - - -\n"
    "http l7 4 1 41800 418000 710 2080 4.0 21900 0 0 418000 32\n"
    "redis none 0 0 100000 1000000 - - - - - - - -\n"
    "redis l7 0 1 90000 900000 - - 2 20000 0 0 900000 0\n"
    "redis none 1 1 100000 1000000 - - - - - - - -\n"
    "redis l7 1 0 91000 910000 - - 2 20000 0 0 910000 0\n"
    "redis none 2 0 100000 1000000 - - - - - - - -\n"
    "redis l7 2 1 92000 920000 - - 2 20000 0 0 409696 0\n";

/* A baseline that swings by a third between rounds. */
static const char noisy_tsv[] =
    "workload config round position throughput ops p50_us p99_us agent_cpu_s agent_rss_kib "
    "hard_loss soft_drops signals surplus_max\n"
    "cpu none 0 0 100 100 - - - - - - - -\n"
    "cpu profiling 0 1 99 99 - - 0.1 9000 0 0 - -\n"
    "cpu none 1 1 150 150 - - - - - - - -\n"
    "cpu profiling 1 0 140 140 - - 0.1 9000 2 0 - -\n"
    "cpu none 2 0 110 110 - - - - - - - -\n"
    "cpu profiling 2 1 120 120 - - 0.1 9100 0 0 - -\n";

static size_t load(const char *tsv, struct enav_bench_arm *arms, struct enav_bench_result *r)
{
	size_t n;
	char err[256];
	assert_int_equal(enav_bench_parse_arms(tsv, strlen(tsv), arms, 64, &n, err, sizeof(err)),
			 0);
	return enav_bench_analyze(arms, n, r, 8);
}

static const struct enav_bench_result *find(const struct enav_bench_result *r, size_t n,
					    const char *w, const char *c)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].workload, w) && !strcmp(r[i].config, c))
			return &r[i];
	fail_msg("no result %s/%s", w, c);
	return NULL;
}

static void test_ratios_and_rejection(void **st)
{
	(void)st;
	struct enav_bench_arm arms[64];
	struct enav_bench_result r[8];
	size_t nr = load(arms_tsv, arms, r);
	assert_int_equal(nr, 2);
	const struct enav_bench_result *h = find(r, nr, "http", "l7");
	assert_int_equal(h->rounds, 5);
	/* Per-round ratios 0.6, 0.57746, 0.62319, 0.60284, 0.59544: median 0.60. */
	assert_true(fabs(h->ratio_median - 0.6) < 1e-9);
	assert_true(fabs(h->ratio_min - 41000.0 / 71000.0) < 1e-9);
	assert_true(fabs(h->ratio_max - 43000.0 / 69000.0) < 1e-9);
	assert_true(fabs(h->none_median - 70200) < 1e-9);
	assert_true(fabs(h->p99_none - 1190) < 1e-9);
	assert_true(fabs(h->p99_agent - 2080) < 1e-9);
	assert_true(fabs(h->rss_kib - 22000) < 1e-9);
	assert_true(fabs(h->cpu_s - 4.1) < 1e-9);
	assert_false(h->rejected);
	assert_false(h->noisy);
	/* Redis round 2: 409,696 spans for 920,000 SETs: must never pass. */
	const struct enav_bench_result *rd = find(r, nr, "redis", "l7");
	assert_true(rd->rejected);
	assert_non_null(strstr(rd->reject_reason, "round 2: 409696 signals for 920000"));
	struct enav_bench_gate g = {"*", "throughput_ratio", ENAV_BENCH_GE, 0.5};
	struct enav_bench_gate_outcome o;
	enav_bench_eval_gate(&g, r, nr, NULL, NULL, &o);
	assert_int_equal(o.matched, 2);
	assert_int_equal(o.verdict, ENAV_BENCH_FAIL); /* redis/l7 rejected, though 0.91 */
	assert_non_null(strstr(o.detail, "redis/l7 REJECTED"));
	assert_int_not_equal(o.detail[strlen(o.detail) - 1], ' ');
	struct enav_bench_gate g2 = {"http/*", "throughput_ratio", ENAV_BENCH_GE, 0.97};
	enav_bench_eval_gate(&g2, r, nr, NULL, NULL, &o);
	assert_int_equal(o.verdict, ENAV_BENCH_FAIL);
	assert_non_null(strstr(o.detail, "http/l7 0.6"));
	struct enav_bench_gate g3 = {"http/*", "hard_loss", ENAV_BENCH_EQ, 0};
	enav_bench_eval_gate(&g3, r, nr, NULL, NULL, &o);
	assert_int_equal(o.verdict, ENAV_BENCH_PASS);
	struct enav_bench_gate g4 = {"postgres/*", "throughput_ratio", ENAV_BENCH_GE, 0.97};
	enav_bench_eval_gate(&g4, r, nr, NULL, NULL, &o);
	assert_int_equal(o.verdict, ENAV_BENCH_NO_DATA);
}

/* Duplicated spans are no better than lost ones: a round with more signals
 * than operations plus the surplus it explains is rejected too, and a row
 * with signals must say what surplus it allows. */
static void test_surplus_bounded(void **st)
{
	(void)st;
	static const char dup_tsv[] =
	    "workload config round position throughput ops p50_us p99_us agent_cpu_s "
	    "agent_rss_kib hard_loss soft_drops signals surplus_max\n"
	    "pg none 0 0 1000 10000 - - - - - - - -\n"
	    "pg l7 0 1 900 9000 - - 1 9000 0 0 9000 0\n"
	    "pg none 1 1 1000 10000 - - - - - - - -\n"
	    "pg l7 1 0 900 9000 - - 1 9000 0 0 9001 0\n"
	    "http none 0 0 1000 10000 - - - - - - - -\n"
	    "http l7 0 1 900 9000 - - 1 9000 0 0 9032 32\n";
	struct enav_bench_arm arms[64];
	struct enav_bench_result r[8];
	size_t nr = load(dup_tsv, arms, r);
	const struct enav_bench_result *pg = find(r, nr, "pg", "l7");
	assert_true(pg->rejected);
	assert_non_null(strstr(pg->reject_reason, "round 1: 9001 signals for 9000 operations"));
	assert_false(find(r, nr, "http", "l7")->rejected); /* 32 in flight: explained */
	const char *no_surplus =
	    "workload config round position throughput ops p50_us p99_us "
	    "agent_cpu_s agent_rss_kib hard_loss soft_drops signals surplus_max\n"
	    "pg l7 0 1 900 9000 - - 1 9000 0 0 9000 -\n";
	size_t n;
	char err[256];
	assert_int_equal(
	    enav_bench_parse_arms(no_surplus, strlen(no_surplus), arms, 64, &n, err, sizeof(err)),
	    -1);
	assert_non_null(strstr(err, "surplus"));
}

static void test_noisy_spread(void **st)
{
	(void)st;
	struct enav_bench_arm arms[64];
	struct enav_bench_result r[8];
	size_t nr = load(noisy_tsv, arms, r);
	assert_int_equal(nr, 1);
	const struct enav_bench_result *c = &r[0];
	assert_true(c->noisy);
	assert_true(c->none_cv > 0.2);
	assert_true(fabs(c->ratio_min - 140.0 / 150.0) < 1e-9);
	assert_true(fabs(c->ratio_max - 120.0 / 110.0) < 1e-9);
	assert_false(c->rejected); /* no protocol: nothing to count */
	assert_true(isnan(c->signals));
	assert_true(fabs(c->hard_loss - 2) < 1e-9);
	/* The report shows the spread and flags the baseline. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct enav_bench_gate g = {"cpu/profiling", "hard_loss", ENAV_BENCH_EQ, 0};
	assert_int_equal(enav_bench_report(f, NULL, &g, 1, r, nr, NULL, NULL, NULL), 1);
	fclose(f);
	assert_non_null(strstr(buf, "0.9333..1.0909"));
	assert_non_null(strstr(buf, "(noisy baseline)"));
	if (!strstr(buf, "| FAIL | cpu/profiling 2 |") || !strstr(buf, "| - / - |"))
		fail_msg("%s", buf);
	free(buf);
}

static void test_floor_and_soak(void **st)
{
	(void)st;
	static const char floor_tsv[] = "arm round requests_per_s\n"
					"none 0 100000\nempty 0 96000\nnetwork 0 90000\n"
					"none 1 100000\nempty 1 96000\nnetwork 1 90000\n";
	struct enav_bench_floor fl;
	char err[256];
	assert_int_equal(
	    enav_bench_floor_parse(floor_tsv, strlen(floor_tsv), 2, &fl, err, sizeof(err)), 0);
	assert_int_equal(fl.n_arms, 3);
	/* empty: (1/96000 - 1/100000) * 2 cores = 0.8333 us; network 2.222 us: 2.67x. */
	assert_true(fabs(fl.cost_us[1] - 0.83333) < 1e-4);
	assert_true(fabs(fl.ratio_to_empty[2] - 2.6667) < 1e-3);
	struct enav_bench_gate g = {"floor/*", "handler_cost_ratio", ENAV_BENCH_LE, 1.5};
	struct enav_bench_gate_outcome o;
	enav_bench_eval_gate(&g, NULL, 0, &fl, NULL, &o);
	assert_int_equal(o.matched, 1); /* none and empty are the references */
	assert_int_equal(o.verdict, ENAV_BENCH_FAIL);
	/* RSS grows while caches fill, then stays: the slope is of the second half. */
	char soak_tsv[4096] = "t_s rss_kib events\n";
	for (int t = 0; t < 20; t++) {
		char line[64];
		snprintf(line, sizeof(line), "%d %d %d\n", t * 6, t < 10 ? 10000 + 1000 * t : 20000,
			 t * 600000);
		strcat(soak_tsv, line);
	}
	struct enav_bench_soak s;
	assert_int_equal(enav_bench_soak_parse(soak_tsv, strlen(soak_tsv), &s, err, sizeof(err)),
			 0);
	assert_true(fabs(s.slope_kib_per_min) < 1e-6);
	assert_true(fabs(s.events_total - 11400000) < 1e-6);
	struct enav_bench_gate g1 = {"soak", "events", ENAV_BENCH_GE, 1e7};
	enav_bench_eval_gate(&g1, NULL, 0, NULL, &s, &o);
	assert_int_equal(o.verdict, ENAV_BENCH_PASS);
	enav_bench_soak_free(&s);
	/* A steady leak of 1 MiB a minute is seen. */
	strcpy(soak_tsv, "t_s rss_kib events\n");
	for (int t = 0; t < 20; t++) {
		char line[64];
		snprintf(line, sizeof(line), "%d %d %d\n", t * 60, 10000 + 1024 * t, t);
		strcat(soak_tsv, line);
	}
	assert_int_equal(enav_bench_soak_parse(soak_tsv, strlen(soak_tsv), &s, err, sizeof(err)),
			 0);
	assert_true(fabs(s.slope_kib_per_min - 1024) < 1e-6);
	enav_bench_soak_free(&s);
}

static void test_malformed(void **st)
{
	(void)st;
	struct enav_bench_arm arms[4];
	struct enav_bench_gate gates[2];
	size_t n;
	char err[256];
	const char *bad = "workload config round position throughput ops p50_us p99_us "
			  "agent_cpu_s agent_rss_kib hard_loss soft_drops signals surplus_max\n"
			  "http l7 0 1 fast 1 - - - - - - - -\n";
	assert_int_equal(enav_bench_parse_arms(bad, strlen(bad), arms, 4, &n, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "line 2"));
	assert_int_equal(enav_bench_parse_arms("", 0, arms, 4, &n, err, sizeof(err)), -1);
	const char *g = "# declared before the run\ngate http/* throughput_ratio >= 0.97\n"
			"gate soak events => 1\n";
	assert_int_equal(enav_bench_parse_gates(g, strlen(g), gates, 2, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 3"));
	const char *floor_bad = "arm round requests_per_s\nnetwork 0 100\n";
	struct enav_bench_floor fl;
	assert_int_equal(
	    enav_bench_floor_parse(floor_bad, strlen(floor_bad), 2, &fl, err, sizeof(err)), -1);
	struct enav_bench_soak s;
	const char *soak_back = "1 10 1\n2 10 2\n2 10 3\n4 10 4\n";
	assert_int_equal(enav_bench_soak_parse(soak_back, strlen(soak_back), &s, err, sizeof(err)),
			 -1);
}

/* Two rounds of pairs in the campaign's order (round 0: none l7 network
 * none; round 1: network none none l7): each arm's baseline is its pair's. */
static const char cost_tsv[] =
    "workload config round position throughput ops agent_cpu_s agent_user_s agent_sys_s "
    "bpf_ns bpf_runs emitted spans spans_exported export_bytes sink_cpu_s signals surplus_max\n"
    "http none 0 0 60000 120000 - - - - - - - - - - - -\n"
    "http l7 0 1 30000 60000 0.6 0.4 0.2 600000000 900000 121000 120000 119000 60000000 0.03 "
    "60010 32\n"
    "http network 0 2 45000 90000 0.01 0.01 0 90000000 400000 100 0 0 0 0 - -\n"
    "http none 0 3 50000 100000 - - - - - - - - - - - -\n"
    "http network 1 0 48000 96000 0.02 0.01 0.01 96000000 400000 100 0 0 0 0 - -\n"
    "http none 1 1 60000 120000 - - - - - - - - - - - -\n"
    "http none 1 2 40000 80000 - - - - - - - - - - - -\n"
    "http l7 1 3 32000 64000 0.64 0.44 0.2 704000000 960000 129000 128000 127000 64000000 "
    "0.03 64000 32\n";

static void test_cost_breakdown(void **st)
{
	(void)st;
	struct enav_bench_arm arms[64];
	struct enav_bench_result r[8];
	size_t nr = load(cost_tsv, arms, r);
	assert_int_equal(nr, 2);
	const struct enav_bench_result *l7 = find(r, nr, "http", "l7");
	/* Round 0: 30000 / 60000 (position 0, not 3); round 1: 32000 / 40000. */
	assert_true(fabs(l7->ratio_min - 0.5) < 1e-9);
	assert_true(fabs(l7->ratio_max - 0.8) < 1e-9);
	const struct enav_bench_result *net = find(r, nr, "http", "network");
	assert_true(fabs(net->ratio_min - 0.8) < 1e-9); /* 48000 / 60000 (position 1) */
	assert_true(fabs(net->ratio_max - 0.9) < 1e-9); /* 45000 / 50000 (position 3) */
	/* Per request: CPU 10 us (0.6 s / 60000), BPF 10 / 11 us, 2 spans. */
	assert_true(fabs(l7->cpu_us_per_req - 10) < 1e-9);
	assert_true(fabs(l7->user_us_per_req - (400000.0 / 60000 + 440000.0 / 64000) / 2) < 1e-9);
	assert_true(fabs(l7->bpf_us_per_req - 10.5) < 1e-9);
	assert_true(fabs(l7->spans_per_req - 2) < 1e-9);
	assert_true(fabs(l7->cpu_us_per_span - 5) < 1e-9);
	assert_true(fabs(l7->bytes_per_span - 500) < 1e-9);
	assert_true(fabs(l7->sink_us_per_req - (0.5 + 0.46875) / 2) < 1e-9);
	assert_true(isnan(net->cpu_us_per_span)); /* no span made */
	struct enav_bench_gate g = {"*/l7", "agent_cpu_us_per_span", ENAV_BENCH_LE, 1};
	struct enav_bench_gate_outcome o;
	enav_bench_eval_gate(&g, r, nr, NULL, NULL, &o);
	assert_int_equal(o.verdict, ENAV_BENCH_FAIL);
	assert_string_equal(o.detail, "http/l7 5");
	struct enav_bench_gate g2 = {"*", "bpf_us_per_request", ENAV_BENCH_LE, 2};
	enav_bench_eval_gate(&g2, r, nr, NULL, NULL, &o);
	assert_int_equal(o.matched, 2);
	/* Each program's share: runs and time divided by its arm's operations. */
	static const char bpf_tsv[] =
	    "workload config round program hook runs run_time_ns\n"
	    "http l7 0 enav_sys_exit tp_btf/sys_exit 720000 360000000\n"
	    "http l7 0 enav_sock_send tp_btf/sock_send_length 180000 18000000\n"
	    "http l7 1 enav_sys_exit tp_btf/sys_exit 768000 460800000\n"
	    "http l7 1 enav_sock_send tp_btf/sock_send_length 192000 19200000\n"
	    "http l7 1 enav_futex tracepoint 0 0\n";
	static struct enav_bench_prog_costs pc;
	char err[256];
	assert_int_equal(
	    enav_bench_prog_parse(bpf_tsv, strlen(bpf_tsv), arms, 8, &pc, err, sizeof(err)), 0);
	assert_int_equal(pc.n, 3);
	assert_string_equal(pc.p[0].program, "enav_sys_exit");
	assert_true(fabs(pc.p[0].runs_per_req - 12) < 1e-9);
	assert_true(fabs(pc.p[0].ns_per_run - 550) < 1e-9); /* 500 and 600 */
	assert_true(fabs(pc.p[0].us_per_req - 6.6) < 1e-9); /* 6 and 7.2 */
	/* The report: largest first, a program that did not run left out. */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	enav_bench_report(f, NULL, &g, 1, r, nr, NULL, NULL, &pc);
	fclose(f);
	char *sys =
	    strstr(buf, "| http | l7 | enav_sys_exit | tp_btf/sys_exit | 12.00 | 550 | 6.600 |");
	char *send = strstr(buf, "| http | l7 | enav_sock_send | tp_btf/sock_send_length |");
	if (!sys || !send || send < sys || strstr(buf, "enav_futex") ||
	    !strstr(buf, "| http | l7 | 6.77 / 3.23 | 10.50 | 15.0 | 20.50 | 2.00 / 2.02 | 5.00 | "
			 "500 | 0.48 |"))
		fail_msg("%s", buf);
	free(buf);
	assert_int_equal(enav_bench_prog_parse("x y\n", 4, arms, 8, &pc, err, sizeof(err)), -1);
}

static void test_hooks_against_empty(void **st)
{
	(void)st;
	static const char floor_tsv[] = "arm round requests_per_s\nnone 0 100\nempty 0 99\n"
					"l7 0 80\n";
	static const char hooks_tsv[] = "arm round program hook runs run_time_ns\n"
					"empty 0 enav_floor_sys_exit tp_btf/sys_exit 1000 30000\n"
					"empty 0 enav_floor_fx_send fexit/tcp_sendmsg - -\n"
					"empty 1 enav_floor_sys_exit tp_btf/sys_exit 1000 32000\n"
					"l7 0 enav_sys_exit tp_btf/sys_exit 1000 300000\n"
					"l7 0 enav_dns tp_btf/sys_exit 1000 20000\n"
					"l7 1 enav_sys_exit tp_btf/sys_exit 2000 640000\n"
					"l7 1 enav_dns tp_btf/sys_exit 2000 40000\n"
					"l7 0 enav_guard tracepoint 10 10000\n"
					"l7 0 enav_cred tracepoint 10 50000\n"
					"l7 0 enav_idle tp_btf/sched_switch 0 0\n";
	static struct enav_bench_floor fl;
	char err[256];
	assert_int_equal(
	    enav_bench_floor_parse(floor_tsv, strlen(floor_tsv), 2, &fl, err, sizeof(err)), 0);
	assert_int_equal(
	    enav_bench_hooks_parse(hooks_tsv, strlen(hooks_tsv), &fl, err, sizeof(err)), 0);
	/* sys_exit: (300 + 20) and (320 + 20) ns per event, median 330, against
	 * the empty program's 30 and 32 (31): 10.6x.  The two tracepoint
	 * programs are rows of their own; fexit was refused; sched_switch never ran. */
	assert_int_equal(fl.n_hooks, 4);
	assert_string_equal(fl.hooks[0].hook, "tp_btf/sys_exit");
	assert_string_equal(fl.hooks[0].programs, "enav_sys_exit enav_dns");
	assert_true(fabs(fl.hooks[0].ns_per_run - 330) < 1e-9);
	assert_true(fabs(fl.hooks[0].empty_ns_per_run - 31) < 1e-9);
	assert_string_equal(fl.hooks[1].hook, "tracepoint (enav_guard)");
	assert_true(fabs(fl.hooks[2].ns_per_run - 5000) < 1e-9);
	assert_true(isnan(fl.hooks[2].ratio));
	assert_string_equal(fl.hooks[3].hook, "fexit/tcp_sendmsg");
	assert_true(fl.hooks[3].empty_refused);
	struct enav_bench_gate g = {"floor/*", "hook_ns_ratio", ENAV_BENCH_LE, 1.5};
	struct enav_bench_gate_outcome o;
	enav_bench_eval_gate(&g, NULL, 0, &fl, NULL, &o);
	assert_int_equal(o.matched, 1); /* only the hook an empty program measured */
	assert_int_equal(o.verdict, ENAV_BENCH_FAIL);
	assert_string_equal(o.detail, "l7:tp_btf/sys_exit 10.65");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	enav_bench_report(f, NULL, &g, 1, NULL, 0, &fl, NULL, NULL);
	fclose(f);
	if (!strstr(buf,
		    "| l7 | tp_btf/sys_exit | enav_sys_exit enav_dns | 330.0 | 31.0 | 10.65 |") ||
	    !strstr(buf, "| empty | fexit/tcp_sendmsg | - | - | refused by the kernel: not "
			 "measured | - |") ||
	    !strstr(buf, "| l7 | tracepoint (enav_cred) | enav_cred | 5000.0 | no empty program on "
			 "this hook | - |"))
		fail_msg("%s", buf);
	free(buf);
	const char *bad = "arm round program hook runs run_time_ns\nl7 0 p tp_btf/x 5 -\n";
	assert_int_equal(enav_bench_hooks_parse(bad, strlen(bad), &fl, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 2"));
}

/* An arms file names its columns: an older one (fewer) still reads, a
 * column the analyzer does not know is refused. */
static void test_arm_columns(void **st)
{
	(void)st;
	struct enav_bench_arm arms[4];
	size_t n;
	char err[256];
	const char *old = "workload config round position throughput\nhttp none 0 0 5\n";
	assert_int_equal(enav_bench_parse_arms(old, strlen(old), arms, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_true(isnan(arms[0].ops) && isnan(arms[0].bpf_ns));
	const char *unknown =
	    "workload config round position throughput bogus\nhttp none 0 0 5 1\n";
	assert_int_equal(
	    enav_bench_parse_arms(unknown, strlen(unknown), arms, 4, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bogus"));
	const char *no_round = "workload config position throughput\nhttp none 0 5\n";
	assert_int_equal(
	    enav_bench_parse_arms(no_round, strlen(no_round), arms, 4, &n, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "round"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ratios_and_rejection),
	    cmocka_unit_test(test_surplus_bounded),
	    cmocka_unit_test(test_noisy_spread),
	    cmocka_unit_test(test_floor_and_soak),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_cost_breakdown),
	    cmocka_unit_test(test_hooks_against_empty),
	    cmocka_unit_test(test_arm_columns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
