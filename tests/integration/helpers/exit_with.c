/* SPDX-License-Identifier: Apache-2.0 */
/* Test workload: exits with the code in argv[1], or kills itself with the
 * signal named by "signal:N".  Extra arguments are ignored (argv tests).
 * ENAV_TEST_LINGER_MS keeps it alive that long first, so /proc can be read. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *linger = getenv("ENAV_TEST_LINGER_MS");
	if (linger)
		usleep((useconds_t)atoi(linger) * 1000);
	if (argc < 2)
		return 0;
	if (strncmp(argv[1], "signal:", 7) == 0) {
		signal(atoi(argv[1] + 7), SIG_DFL);
		raise(atoi(argv[1] + 7));
		pause();
	}
	if (strncmp(argv[1], "sleep:", 6) == 0) {
		usleep((useconds_t)atoi(argv[1] + 6) * 1000);
		return 0;
	}
	return atoi(argv[1]);
}
