/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kernel timestamps are CLOCK_BOOTTIME nanoseconds; signals carry Unix time.
 * The offset is sampled once and refreshed periodically so a wall-clock step
 * is picked up without a per-event syscall.
 */
#ifndef ENAV_PLATFORM_CLOCK_H
#define ENAV_PLATFORM_CLOCK_H

#include <stdint.h>
#include <time.h>

uint64_t enav_clock_boot_ns(void);
uint64_t enav_clock_unix_ns(void);
uint64_t enav_clock_mono_ns(void);
/* Re-sample the boot -> Unix offset (cheap; call from the capture loop). */
void enav_clock_refresh(void);
uint64_t enav_clock_boot_to_unix_ns(uint64_t boot_ns);
/* The absolute time after_ns from now on clock, for pthread_cond_timedwait. */
struct timespec enav_clock_deadline(clockid_t clock, uint64_t after_ns);
/* A non-blocking timerfd that expires every ms, first ms from now; -errno. */
int enav_timerfd_every(uint32_t ms);
/* 1 when fd expired since the last call, 0 when not, -errno on error.  For
 * consumers the capture loop calls every round, ready or not. */
int enav_timerfd_expired(int fd);

#endif
