/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/clock.h"

#include <stdatomic.h>
#include <errno.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

static _Atomic int64_t boot_to_unix_offset;
static _Atomic int offset_ready;

static uint64_t read_clock(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t enav_clock_boot_ns(void)
{
	return read_clock(CLOCK_BOOTTIME);
}

uint64_t enav_clock_unix_ns(void)
{
	return read_clock(CLOCK_REALTIME);
}

uint64_t enav_clock_mono_ns(void)
{
	return read_clock(CLOCK_MONOTONIC);
}

void enav_clock_refresh(void)
{
	/* Bracket the realtime read to keep the offset error to one clock read. */
	uint64_t b1 = enav_clock_boot_ns();
	uint64_t u = enav_clock_unix_ns();
	uint64_t b2 = enav_clock_boot_ns();
	atomic_store(&boot_to_unix_offset, (int64_t)(u - (b1 + (b2 - b1) / 2)));
	atomic_store(&offset_ready, 1);
}

uint64_t enav_clock_boot_to_unix_ns(uint64_t boot_ns)
{
	if (!atomic_load(&offset_ready))
		enav_clock_refresh();
	return boot_ns + (uint64_t)atomic_load(&boot_to_unix_offset);
}

struct timespec enav_clock_deadline(clockid_t clock, uint64_t after_ns)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	uint64_t nsec = (uint64_t)ts.tv_nsec + after_ns % 1000000000ull;
	ts.tv_sec += (time_t)(after_ns / 1000000000ull + nsec / 1000000000ull);
	ts.tv_nsec = (long)(nsec % 1000000000ull);
	return ts;
}

int enav_timerfd_every(uint32_t ms)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (fd < 0)
		return -errno;
	struct timespec every = {ms / 1000, (long)(ms % 1000) * 1000000L};
	struct itimerspec its = {.it_interval = every, .it_value = every};
	if (timerfd_settime(fd, 0, &its, NULL) != 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int enav_timerfd_expired(int fd)
{
	uint64_t expirations;
	if (read(fd, &expirations, sizeof(expirations)) == sizeof(expirations))
		return 1;
	return errno == EAGAIN ? 0 : -errno;
}
