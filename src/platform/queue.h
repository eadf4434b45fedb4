/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bounded pointer queue between the capture thread and one sink thread.
 * Capacity is fixed at creation; when full the NEWEST item is refused and
 * counted (the producer never blocks, so a slow sink cannot stall capture).
 */
#ifndef ENAV_PLATFORM_QUEUE_H
#define ENAV_PLATFORM_QUEUE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct enav_queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty;
	void **slots;
	uint32_t cap;
	uint32_t head; /* next pop */
	uint32_t len;
	bool closed;
	_Atomic uint64_t pushed;
	_Atomic uint64_t dropped;
	_Atomic uint32_t high_water;
};

int enav_queue_init(struct enav_queue *q, uint32_t cap);
void enav_queue_destroy(struct enav_queue *q);
/* Non-blocking.  Returns false (and counts a drop) when full or closed. */
bool enav_queue_push(struct enav_queue *q, void *item);
/* Blocks up to timeout_ms for an item; NULL on timeout or when closed and empty. */
void *enav_queue_pop(struct enav_queue *q, int timeout_ms);
/* Wake the consumer; later pushes are refused, pops drain what is left. */
void enav_queue_close(struct enav_queue *q);
uint32_t enav_queue_depth(struct enav_queue *q);

#endif
