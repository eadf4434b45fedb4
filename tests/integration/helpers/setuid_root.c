/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The credential-change workload of tests/integration/test_security.sh:
 * calls setuid(0) and says what happened.  The test installs one copy
 * setuid-root (run by an unprivileged user, it becomes root: a finding) and
 * one plain copy (the call is refused: nothing to report).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	if (setuid(0) != 0) {
		printf("denied %s\n", strerror(errno));
		return 1;
	}
	printf("root uid=%d euid=%d\n", (int)getuid(), (int)geteuid());
	return 0;
}
