/* SPDX-License-Identifier: Apache-2.0 */
/* burn MB MS: touch MB mebibytes of memory, then keep one CPU busy for MS
 * milliseconds, holding the memory; a workload with known resource use. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	size_t mb = strtoul(argv[1], NULL, 10);
	long ms = strtol(argv[2], NULL, 10);
	volatile char *mem = malloc(mb << 20);
	if (!mem)
		return 1;
	memset((char *)mem, 0x5a, mb << 20); /* every page resident */
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long x = 0;
	do {
		for (int i = 0; i < 100000; i++)
			x += (unsigned long)i * 2654435761u;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	mem[0] = (char)x;
	return 0;
}
