/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A unit test that cannot run here says why.  Under CI=true it fails
 * instead: a capability CI lacks (root, a cgroup2 mount, BPF) is a broken
 * CI, the same rule tests/integration/lib.sh applies to integration skips.
 * Include after <cmocka.h>.
 */
#ifndef ENAV_TESTS_CI_SKIP_H
#define ENAV_TESTS_CI_SKIP_H

#include <stdlib.h>
#include <string.h>

#define skip_unless_ci(...)                                                                        \
	do {                                                                                       \
		const char *ci_ = getenv("CI");                                                    \
		print_message(__VA_ARGS__);                                                        \
		if (ci_ && strcmp(ci_, "true") == 0)                                               \
			fail_msg("skip not allowed under CI=true");                                \
		skip();                                                                            \
	} while (0)

#endif
