/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cost of open(2) on this machine: opens and closes PATH N times and
 * prints microseconds per open.  With the agent's file_open source on,
 * every open runs its syscall-exit program (one inode lookup); an open of
 * a watched file also emits an event.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : 200000;
	if (n <= 0)
		return 2;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		int fd = open(argv[1], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 1;
		close(fd);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("%.3f\n", ns / 1e3 / (double)n);
	return 0;
}
