/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/tracefs.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "platform/log.h"

/* Where tracefs's events are, mounted on its own or under debugfs. */
static const char *const events_dirs[] = {"/sys/kernel/tracing/events",
					  "/sys/kernel/debug/tracing/events"};
#define N_EVENTS_DIRS (sizeof(events_dirs) / sizeof(events_dirs[0]))

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool tried, mounted;

bool enav_tracefs_ensure(void)
{
	struct stat st;
	for (size_t i = 0; i < N_EVENTS_DIRS; i++)
		if (stat(events_dirs[i], &st) == 0)
			return true;
	pthread_mutex_lock(&lock);
	if (!tried) {
		tried = true;
		mounted = mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0;
		if (mounted)
			enav_info("mounted tracefs at /sys/kernel/tracing for syscall tracepoints "
				  "(credential changes, futex profile)");
		else
			enav_warn("tracefs is not mounted and cannot be (%s): credential changes "
				  "and the futex profile are off",
				  strerror(errno));
	}
	bool ok = mounted;
	pthread_mutex_unlock(&lock);
	return ok;
}

enum enav_tracefs_event enav_tracefs_event(const char *event)
{
	struct stat st;
	if (!event || !*event || strstr(event, ".."))
		return ENAV_TRACEFS_EVENT_UNKNOWN;
	for (size_t i = 0; i < N_EVENTS_DIRS; i++) {
		if (stat(events_dirs[i], &st) != 0)
			continue;
		char path[256];
		int n = snprintf(path, sizeof(path), "%s/%s", events_dirs[i], event);
		if (n < 0 || (size_t)n >= sizeof(path))
			return ENAV_TRACEFS_EVENT_UNKNOWN;
		if (stat(path, &st) == 0)
			return ENAV_TRACEFS_EVENT_LISTED;
		return errno == ENOENT ? ENAV_TRACEFS_EVENT_ABSENT : ENAV_TRACEFS_EVENT_UNKNOWN;
	}
	return ENAV_TRACEFS_EVENT_UNKNOWN;
}
