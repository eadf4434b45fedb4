/* SPDX-License-Identifier: Apache-2.0 */
/* dlopen_burn MS LIB...: dlopens every LIB (shared objects that export
 * enav_crafted_burn), then keeps one CPU busy for MS milliseconds calling
 * each one's function in turn, so every library's code is sampled.  The
 * tenant of tests/integration/hostile/profile_memory.sh. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef void (*burn_fn)(volatile unsigned long *);

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long ms = strtol(argv[1], NULL, 10);
	int n = argc - 2;
	burn_fn *fns = calloc((size_t)n, sizeof(*fns));
	if (!fns)
		return 1;
	for (int i = 0; i < n; i++) {
		void *h = dlopen(argv[i + 2], RTLD_NOW | RTLD_LOCAL);
		if (!h || !(fns[i] = (burn_fn)(void (*)(void))dlsym(h, "enav_crafted_burn"))) {
			fprintf(stderr, "dlopen_burn: %s: %s\n", argv[i + 2], dlerror());
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	volatile unsigned long x = 0;
	do {
		for (int i = 0; i < n; i++)
			fns[i](&x);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return 0;
}
