/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

static _Atomic int log_level = ENAV_LOG_INFO;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

void enav_log_set_level(enum enav_log_level level)
{
	atomic_store(&log_level, (int)level);
}

enum enav_log_level enav_log_get_level(void)
{
	return (enum enav_log_level)atomic_load(&log_level);
}

void enav_log(enum enav_log_level level, const char *fmt, ...)
{
	if ((int)level > atomic_load(&log_level))
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	/* One fprintf so concurrent threads do not interleave within a line. */
	fprintf(stderr, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ enav %s: %s\n", tm.tm_year + 1900,
		tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
		level_names[level], msg);
}
