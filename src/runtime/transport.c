/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/transport.h"

#include <bpf/libbpf.h>
#include <errno.h>

static int on_ring_event(void *ctx, void *data, size_t size)
{
	struct enav_transport *t = ctx;
	t->fn(t->ctx, data, size);
	return 0;
}

static void on_perf_event(void *ctx, int cpu, void *data, __u32 size)
{
	struct enav_transport *t = ctx;
	t->fn(t->ctx, data, size);
}

static void on_perf_lost(void *ctx, int cpu, __u64 count)
{
	struct enav_transport *t = ctx;
	atomic_fetch_add(&t->lost, count);
}

int enav_transport_open(struct enav_transport *t, enum enav_transport_choice kind, int map_fd,
			uint32_t perf_pages, enav_event_fn fn, void *ctx)
{
	t->kind = kind;
	t->fn = fn;
	t->ctx = ctx;
	t->rb = NULL;
	t->pb = NULL;
	atomic_init(&t->lost, 0);
	if (kind == ENAV_TRANSPORT_RINGBUF) {
		t->rb = ring_buffer__new(map_fd, on_ring_event, t, NULL);
		return t->rb ? 0 : -errno;
	}
	t->pb = perf_buffer__new(map_fd, perf_pages, on_perf_event, on_perf_lost, t, NULL);
	return t->pb ? 0 : -errno;
}

int enav_transport_epoll_fd(const struct enav_transport *t)
{
	return t->rb ? ring_buffer__epoll_fd(t->rb) : perf_buffer__epoll_fd(t->pb);
}

int enav_transport_consume(struct enav_transport *t)
{
	return t->rb ? ring_buffer__consume(t->rb) : perf_buffer__consume(t->pb);
}

void enav_transport_close(struct enav_transport *t)
{
	ring_buffer__free(t->rb);
	perf_buffer__free(t->pb);
	t->rb = NULL;
	t->pb = NULL;
}

const char *enav_transport_name(enum enav_transport_choice kind)
{
	return kind == ENAV_TRANSPORT_PERF ? "perf" : "ringbuf";
}
