/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the proof harness's analyzer (bench/analyze/):
 * the first byte chooses which reader gets the rest (arms, gates, floor,
 * soak, floor hooks, BPF programs against a fixed arms file); whatever
 * parses is analysed and reported into a memory stream.
 * Parsers must fail with a reason or produce bounded results; the report
 * must not crash on any parsed input (NAN and empty groups included).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../bench/analyze/analyze.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static struct enav_bench_arm arms[256];
static struct enav_bench_floor floor_hooks;
static struct enav_bench_prog_costs progs;

/* The arms the BPF-program reader divides by (one with no operations). */
static const char fixed_arms[] = "workload config round position throughput ops\n"
				 "http l7 0 1 100 200\nhttp l7 1 0 100 0\nhttp none 0 0 120 240\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	char err[256] = "";
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	if (!f)
		return 0;
	switch (data[0] % 6) {
	case 0: {
		size_t n;
		if (enav_bench_parse_arms(text, len, arms, 256, &n, err, sizeof(err)) == 0) {
			CHECK(n <= 256);
			struct enav_bench_result r[8];
			size_t nr = enav_bench_analyze(arms, n, r, 8);
			CHECK(nr <= 8);
			struct enav_bench_gate g = {"*", "throughput_ratio", ENAV_BENCH_GE, 0.97};
			enav_bench_report(f, NULL, &g, 1, r, nr, NULL, NULL, NULL);
		} else {
			CHECK(err[0]);
		}
		break;
	}
	case 1: {
		struct enav_bench_gate g[8];
		size_t n;
		if (enav_bench_parse_gates(text, len, g, 8, &n, err, sizeof(err)) == 0) {
			CHECK(n <= 8);
			enav_bench_report(f, NULL, g, n, NULL, 0, NULL, NULL, NULL);
		} else {
			CHECK(err[0]);
		}
		break;
	}
	case 2: {
		struct enav_bench_floor fl;
		if (enav_bench_floor_parse(text, len, 2, &fl, err, sizeof(err)) == 0) {
			CHECK(fl.n_arms >= 2 && fl.n_arms <= 16);
			struct enav_bench_gate g = {"floor/*", "handler_cost_ratio", ENAV_BENCH_LE,
						    1.5};
			enav_bench_report(f, NULL, &g, 1, NULL, 0, &fl, NULL, NULL);
		} else {
			CHECK(err[0]);
		}
		break;
	}
	case 3: {
		struct enav_bench_soak s;
		if (enav_bench_soak_parse(text, len, &s, err, sizeof(err)) == 0) {
			CHECK(s.n >= 4);
			struct enav_bench_gate g = {"soak", "rss_slope_kib_per_min", ENAV_BENCH_LE,
						    64};
			enav_bench_report(f, NULL, &g, 1, NULL, 0, NULL, &s, NULL);
			enav_bench_soak_free(&s);
		} else {
			CHECK(err[0]);
		}
		break;
	}
	case 4: {
		static const char fl[] = "none 0 100\nempty 0 90\nl7 0 80\n";
		CHECK(enav_bench_floor_parse(fl, sizeof(fl) - 1, 2, &floor_hooks, err,
					     sizeof(err)) == 0);
		if (enav_bench_hooks_parse(text, len, &floor_hooks, err, sizeof(err)) == 0) {
			CHECK(floor_hooks.n_hooks <= ENAV_BENCH_MAX_HOOKS);
			struct enav_bench_gate g = {"floor/*", "hook_ns_ratio", ENAV_BENCH_LE, 1.5};
			enav_bench_report(f, NULL, &g, 1, NULL, 0, &floor_hooks, NULL, NULL);
		} else {
			CHECK(err[0]);
		}
		break;
	}
	case 5: {
		size_t n;
		CHECK(enav_bench_parse_arms(fixed_arms, sizeof(fixed_arms) - 1, arms, 256, &n, err,
					    sizeof(err)) == 0);
		if (enav_bench_prog_parse(text, len, arms, n, &progs, err, sizeof(err)) == 0) {
			CHECK(progs.n <= ENAV_BENCH_MAX_PROGS);
			struct enav_bench_result r[8];
			size_t nr = enav_bench_analyze(arms, n, r, 8);
			struct enav_bench_gate g = {"*", "bpf_us_per_request", ENAV_BENCH_LE, 2};
			enav_bench_report(f, NULL, &g, 1, r, nr, NULL, NULL, &progs);
		} else {
			CHECK(err[0]);
		}
		break;
	}
	}
	fclose(f);
	free(buf);
	return 0;
}
