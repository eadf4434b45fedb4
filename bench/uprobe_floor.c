/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cost of one uprobe hit on this machine: calls SSL_free(NULL) (a no-op
 * that OpenSSL returns from at once) N times and prints the time per call.
 * With the agent's TLS capture on, SSL_free carries an entry uprobe whose
 * program deletes one map entry, so the difference from a run without the
 * agent is the kernel's uprobe mechanism (trap, out-of-line step) plus a
 * trivial program.  Declared here rather than from <openssl/ssl.h> so the
 * benchmark needs only the runtime library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void SSL_free(void *ssl);

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000;
	if (n <= 0)
		return 2;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		SSL_free(NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("%.3f\n", ns / 1e3 / (double)n);
	return 0;
}
