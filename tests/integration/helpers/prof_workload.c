/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A workload whose profile is known in advance, for the profiling tests.
 * Built with frame pointers.  Modes:
 *   cpu SECONDS      burn CPU, ~90% in prof_hot_function, ~10% in prof_cold_function
 *   spin SECONDS     burn CPU in small counted units (prints them: a throughput)
 *   sleep SECONDS MS sleep MS at a time inside prof_sleep_function
 *   mutex SECONDS    4 threads contend for one mutex inside prof_contended_function
 * Prints "ready PID" once running, and on exit the total time it slept or
 * waited, so the test can compare the profile against the workload's own
 * account.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;
static pthread_mutex_t contended = PTHREAD_MUTEX_INITIALIZER;
static uint64_t deadline_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void prof_hot_function(long n)
{
	double x = sink;
	for (long i = 0; i < n; i++)
		x += (double)i * 0.5;
	sink = x;
}

__attribute__((noinline)) void prof_cold_function(long n)
{
	double x = sink;
	for (long i = 0; i < n; i++)
		x += (double)i * 0.25;
	sink = x;
}

/* The sleep itself is one call deeper: with frame-pointer stacks the
 * function that calls into a frame-less library routine is the one whose
 * name is lost (docs/boundaries.md), so the known function calls a small
 * wrapper. */
__attribute__((noinline)) static void do_nanosleep(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void prof_sleep_function(long ms)
{
	do_nanosleep(ms);
	__asm__ volatile("" ::: "memory");
}

/* The workload's own account of its lock waits, for the futex profile to be
 * compared against: every wait, and the waits of at least 10 us (the agent's
 * default profiling.futex_min_us; shorter ones are not profiled). */
static uint64_t waited_ns, waited_long_ns;
static pthread_mutex_t account = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void take_lock(void)
{
	uint64_t t0 = now_ns();
	pthread_mutex_lock(&contended);
	uint64_t w = now_ns() - t0;
	pthread_mutex_lock(&account);
	waited_ns += w;
	if (w >= 10000)
		waited_long_ns += w;
	pthread_mutex_unlock(&account);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void prof_contended_function(void)
{
	take_lock();
	/* Hold it long enough that the others must sleep on the futex. */
	prof_cold_function(200000);
	pthread_mutex_unlock(&contended);
	__asm__ volatile("" ::: "memory");
}

static void *contender(void *arg)
{
	while (now_ns() < deadline_ns)
		prof_contended_function();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: prof_workload cpu|sleep|mutex SECONDS [MS]\n");
		return 2;
	}
	double seconds = atof(argv[2]);
	deadline_ns = now_ns() + (uint64_t)(seconds * 1e9);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (!strcmp(argv[1], "cpu")) {
		uint64_t rounds = 0;
		while (now_ns() < deadline_ns) {
			prof_hot_function(9000000);
			prof_cold_function(1000000);
			rounds++;
		}
		printf("rounds %llu\n", (unsigned long long)rounds);
	} else if (!strcmp(argv[1], "spin")) {
		/* Throughput for the overhead benchmark: small units, counted. */
		uint64_t units = 0;
		while (now_ns() < deadline_ns) {
			prof_hot_function(100000);
			units++;
		}
		printf("units %llu\n", (unsigned long long)units);
	} else if (!strcmp(argv[1], "sleep")) {
		long ms = argc > 3 ? atol(argv[3]) : 50;
		uint64_t slept = 0;
		while (now_ns() < deadline_ns) {
			uint64_t t0 = now_ns();
			prof_sleep_function(ms);
			slept += now_ns() - t0;
		}
		printf("slept_ns %llu\n", (unsigned long long)slept);
	} else if (!strcmp(argv[1], "mutex")) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, contender, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		printf("waited_ns %llu\nwaited_long_ns %llu\n", (unsigned long long)waited_ns,
		       (unsigned long long)waited_long_ns);
	} else {
		return 2;
	}
	return 0;
}
