/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One consumer API over the two kernel transports.  A source hands over the
 * events map of whichever object it loaded; the callback receives the same
 * raw bytes either way, so one decoder serves both.
 */
#ifndef ENAV_RUNTIME_TRANSPORT_H
#define ENAV_RUNTIME_TRANSPORT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

typedef void (*enav_event_fn)(void *ctx, const void *data, size_t size);

struct ring_buffer;
struct perf_buffer;

struct enav_transport {
	enum enav_transport_choice kind; /* RINGBUF or PERF */
	struct ring_buffer *rb;
	struct perf_buffer *pb;
	enav_event_fn fn;
	void *ctx;
	_Atomic uint64_t lost; /* perf: samples the kernel overwrote/dropped */
};

int enav_transport_open(struct enav_transport *t, enum enav_transport_choice kind, int map_fd,
			uint32_t perf_pages, enav_event_fn fn, void *ctx);
/* The fd to put in the capture thread's epoll set. */
int enav_transport_epoll_fd(const struct enav_transport *t);
/* Drain everything pending without blocking; returns events consumed or <0. */
int enav_transport_consume(struct enav_transport *t);
void enav_transport_close(struct enav_transport *t);
const char *enav_transport_name(enum enav_transport_choice kind);

#endif
