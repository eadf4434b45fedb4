/* SPDX-License-Identifier: Apache-2.0 */
/*
 * unwind_mixed MODE SECONDS: a program built WITH frame pointers whose hot
 * (or blocking) function is called back from inside libc's qsort, for the
 * mixed-stack tests of tests/integration/test_unwind.sh.  Debian's libc has
 * no frame pointers: its merge sort (msort_with_tmp) keeps a count in rbp,
 * so a frame-pointer walk that starts in the comparator stops at libc, and
 * only unwinding libc through its .eh_frame reaches main.
 *
 *   sort SECONDS   sorts a shuffled array again and again; the comparator
 *                  cmp_fn burns a little CPU per call, so most samples are
 *                  cmp_fn <- msort internals <- qsort <- main
 *   block SECONDS  the comparator cmp_block_fn waits 2 ms on a condition
 *                  variable nobody signals (pthread_cond_timedwait: a futex
 *                  wait that times out, off the CPU), so off-CPU and futex
 *                  profiles see the same libc-in-the-middle stack
 *
 * Prints "ready PID" once running, and at the end "sorts N" (and "waits N"
 * in block mode).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N_ITEMS	      512
#define N_BLOCK_ITEMS 16

static volatile uint64_t sink;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static uint64_t waits;

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A little work per comparison, so the comparator rather than the sort
 * itself holds most of the samples. */
__attribute__((noinline)) int cmp_fn(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b, h = x ^ y;
	for (int i = 0; i < 200; i++)
		h = h * 6364136223846793005ull + 1442695040888963407ull;
	sink = h;
	return x < y ? -1 : x > y;
}

/* Blocks 2 ms: above the default off-CPU (1 ms) and futex (10 us) minimums. */
__attribute__((noinline)) int cmp_block_fn(const void *a, const void *b)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += 2000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lock);
	int rc;
	do
		rc = pthread_cond_timedwait(&never, &lock, &until);
	while (rc == 0); /* spurious wake-up: wait out the 2 ms */
	waits++;
	pthread_mutex_unlock(&lock);
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void shuffle(uint64_t *v, size_t n, uint64_t *state)
{
	for (size_t i = 0; i < n; i++) {
		*state = *state * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = *state >> 11;
	}
}

int main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "sort") && strcmp(argv[1], "block"))) {
		fprintf(stderr, "usage: unwind_mixed sort|block SECONDS\n");
		return 2;
	}
	int block = !strcmp(argv[1], "block");
	uint64_t end = now_ns() + (uint64_t)(strtod(argv[2], NULL) * 1e9);
	size_t n = block ? N_BLOCK_ITEMS : N_ITEMS;
	uint64_t v[N_ITEMS], state = (uint64_t)getpid(), sorts = 0;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	do {
		shuffle(v, n, &state);
		qsort(v, n, sizeof(v[0]), block ? cmp_block_fn : cmp_fn);
		sorts++;
	} while (now_ns() < end);
	printf("sorts %llu\n", (unsigned long long)sorts);
	if (block)
		printf("waits %llu\n", (unsigned long long)waits);
	return 0;
}
