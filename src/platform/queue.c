/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/queue.h"

#include "platform/clock.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

int enav_queue_init(struct enav_queue *q, uint32_t cap)
{
	if (cap == 0)
		return -EINVAL;
	q->slots = calloc(cap, sizeof(void *));
	if (!q->slots)
		return -ENOMEM;
	pthread_mutex_init(&q->lock, NULL);
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&q->nonempty, &attr);
	pthread_condattr_destroy(&attr);
	q->cap = cap;
	q->head = 0;
	q->len = 0;
	q->closed = false;
	atomic_init(&q->pushed, 0);
	atomic_init(&q->dropped, 0);
	atomic_init(&q->high_water, 0);
	return 0;
}

void enav_queue_destroy(struct enav_queue *q)
{
	free(q->slots);
	q->slots = NULL;
	pthread_cond_destroy(&q->nonempty);
	pthread_mutex_destroy(&q->lock);
}

bool enav_queue_push(struct enav_queue *q, void *item)
{
	pthread_mutex_lock(&q->lock);
	if (q->closed || q->len == q->cap) {
		pthread_mutex_unlock(&q->lock);
		atomic_fetch_add(&q->dropped, 1);
		return false;
	}
	q->slots[(q->head + q->len) % q->cap] = item;
	q->len++;
	if (q->len > atomic_load(&q->high_water))
		atomic_store(&q->high_water, q->len);
	pthread_cond_signal(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
	atomic_fetch_add(&q->pushed, 1);
	return true;
}

void *enav_queue_pop(struct enav_queue *q, int timeout_ms)
{
	if (timeout_ms < 0)
		timeout_ms = 0;
	struct timespec deadline =
	    enav_clock_deadline(CLOCK_MONOTONIC, (uint64_t)timeout_ms * 1000000ull);

	pthread_mutex_lock(&q->lock);
	while (q->len == 0 && !q->closed) {
		if (pthread_cond_timedwait(&q->nonempty, &q->lock, &deadline) == ETIMEDOUT)
			break;
	}
	void *item = NULL;
	if (q->len > 0) {
		item = q->slots[q->head];
		q->slots[q->head] = NULL;
		q->head = (q->head + 1) % q->cap;
		q->len--;
	}
	pthread_mutex_unlock(&q->lock);
	return item;
}

void enav_queue_close(struct enav_queue *q)
{
	pthread_mutex_lock(&q->lock);
	q->closed = true;
	pthread_cond_broadcast(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

uint32_t enav_queue_depth(struct enav_queue *q)
{
	pthread_mutex_lock(&q->lock);
	uint32_t len = q->len;
	pthread_mutex_unlock(&q->lock);
	return len;
}
