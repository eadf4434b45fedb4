/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/tracefs.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "platform/log.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool tried, mounted;

bool enav_tracefs_ensure(void)
{
	struct stat st;
	if (stat("/sys/kernel/tracing/events", &st) == 0 ||
	    stat("/sys/kernel/debug/tracing/events", &st) == 0)
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
