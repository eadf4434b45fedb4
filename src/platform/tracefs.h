/* SPDX-License-Identifier: Apache-2.0 */
#ifndef ENAV_PLATFORM_TRACEFS_H
#define ENAV_PLATFORM_TRACEFS_H

#include <stdbool.h>

/* Syscall tracepoints are attached through tracefs: true when it is
 * mounted, after mounting it at /sys/kernel/tracing if the node has not
 * (needs CAP_SYS_ADMIN).  Logs the mount or why it failed, once. */
bool enav_tracefs_ensure(void);

#endif
