/* SPDX-License-Identifier: Apache-2.0 */
#ifndef ENAV_PLATFORM_TRACEFS_H
#define ENAV_PLATFORM_TRACEFS_H

#include <stdbool.h>

/* Syscall tracepoints are attached through tracefs: true when it is
 * mounted, after mounting it at /sys/kernel/tracing if the node has not
 * (needs CAP_SYS_ADMIN).  Logs the mount or why it failed, once. */
bool enav_tracefs_ensure(void);

/* Whether tracefs lists the event "category/name" (a tracepoint the kernel
 * was built with).  Does not mount tracefs: UNKNOWN when it is not mounted,
 * or the lookup failed for another reason than the event's absence. */
enum enav_tracefs_event {
	ENAV_TRACEFS_EVENT_UNKNOWN = 0,
	ENAV_TRACEFS_EVENT_LISTED,
	ENAV_TRACEFS_EVENT_ABSENT,
};
enum enav_tracefs_event enav_tracefs_event(const char *event);

#endif
