/* SPDX-License-Identifier: Apache-2.0 */
/*
 * unwind_nofp SECONDS: burns one CPU for SECONDS in hot_fn, three calls below
 * main (main -> outer_fn -> middle_fn -> hot_fn), for the native-unwinding
 * tests (tests/integration/test_unwind.sh) and bench/unwind_cost.sh.
 *
 * Built WITHOUT frame pointers (-O2 -fomit-frame-pointer, see the Makefile's
 * HELPER_CFLAGS_unwind_nofp), like the distribution binaries a node runs: a
 * frame-pointer walk cannot find outer_fn and middle_fn here, only the
 * .eh_frame rules can.  Each function does work in its own frame (a value
 * kept in a callee-saved register across the call, so every caller has a
 * prologue and CFI of its own) and uses its callee's result, so the compiler
 * can turn no call into a jump.  The arguments come from the command line,
 * so no call is specialised into a renamed clone.
 *
 * Prints "ready PID" once running and "units N" at the end: how many rounds
 * of hot_fn it completed (a throughput for the benchmark).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The hot loop: a multiply-xorshift chain whose result is stored, which the
 * compiler can neither fold nor drop. */
__attribute__((noinline)) uint64_t hot_fn(uint64_t seed, long n)
{
	uint64_t x = seed;
	for (long i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		x ^= x >> 29;
	}
	sink = x;
	return x;
}

__attribute__((noinline)) uint64_t middle_fn(uint64_t seed, long n)
{
	uint64_t mixed = seed ^ (uint64_t)n;
	uint64_t r = hot_fn(mixed, n);
	return r + mixed; /* uses mixed after the call: no tail call */
}

__attribute__((noinline)) uint64_t outer_fn(uint64_t seed, long n)
{
	uint64_t rotated = (seed << 7) | (seed >> 57);
	uint64_t r = middle_fn(rotated, n);
	return r ^ rotated;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: unwind_nofp SECONDS\n");
		return 2;
	}
	double seconds = strtod(argv[1], NULL);
	/* Per round ~1 ms of CPU: enough that the clock is read rarely. */
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 400000;
	uint64_t end = now_ns() + (uint64_t)(seconds * 1e9);
	uint64_t acc = (uint64_t)getpid(), units = 0;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	do {
		acc = outer_fn(acc, n);
		units++;
	} while (now_ns() < end);
	printf("units %llu\nresult %llu\n", (unsigned long long)units, (unsigned long long)acc);
	return 0;
}
