/* SPDX-License-Identifier: Apache-2.0 */
#include "model/signal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#endif
#endif
#ifndef POISON
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#include "model/cgroup_path.h"

static _Atomic uint64_t live_signals;

static const struct enav_cgroup_identity no_identity;

#define TAIL_ALIGN _Alignof(max_align_t)

/* The end of member m of the payload union. */
#define END_OF(m) (offsetof(struct enav_signal, m) + sizeof(((struct enav_signal *)0)->m))

/* Where the kind's payload ends: the header plus its own union member. */
static size_t payload_end(enum enav_signal_kind kind)
{
	switch (kind) {
	case ENAV_SIGNAL_TCP_OPEN:
	case ENAV_SIGNAL_TCP_CLOSE:
	case ENAV_SIGNAL_TCP_FAILED:
	case ENAV_SIGNAL_DNS:
		return END_OF(net);
	case ENAV_SIGNAL_SPAN:
		return END_OF(span);
	case ENAV_SIGNAL_EDGE:
		return END_OF(edge);
	case ENAV_SIGNAL_CRED_CHANGE:
		return END_OF(cred);
	case ENAV_SIGNAL_BPF_ACCESS:
		return END_OF(bpf);
	case ENAV_SIGNAL_FILE_OPEN:
		return END_OF(file);
	case ENAV_SIGNAL_FINDING:
		return END_OF(finding);
	case ENAV_SIGNAL_PROCESS_EXEC:
	case ENAV_SIGNAL_PROCESS_EXIT:
	case ENAV_SIGNAL__COUNT:
		break;
	}
	return ENAV_SIGNAL_HEADER_SIZE;
}

static size_t tail_offset(enum enav_signal_kind kind)
{
	return (payload_end(kind) + TAIL_ALIGN - 1) & ~(TAIL_ALIGN - 1);
}

size_t enav_signal_size(enum enav_signal_kind kind, uint32_t tail_len)
{
	return tail_offset(kind) + tail_len;
}

/*
 * Free blocks kept for reuse, one LIFO list per size class: a signal is
 * allocated on the capture thread and freed on whichever exporter thread
 * drops the last reference, so without them every span is a malloc and a
 * cross-thread free.  Each list holds at most POOL_CAP blocks; past it a
 * block goes back to the C library.  Class 0 is "not pooled" (malloc).
 * Under ASan a pooled block is poisoned while free (but for its link) and
 * unpoisoned only up to the size asked for, so use after free and reads
 * past a kind's payload are still reported.
 */
#define POOL_CLASSES 2
#define POOL_CAP     1024
static const size_t class_bytes[POOL_CLASSES + 1] = {0, 512, 1280};
_Static_assert(END_OF(span) <= 1280, "a span signal no longer fits its pool class");

struct free_block {
	struct free_block *next;
};

static struct pool {
	pthread_mutex_t lock;
	struct free_block *head;
	uint32_t n;
} pools[POOL_CLASSES + 1] = {
    {PTHREAD_MUTEX_INITIALIZER, NULL, 0},
    {PTHREAD_MUTEX_INITIALIZER, NULL, 0},
    {PTHREAD_MUTEX_INITIALIZER, NULL, 0},
};

static _Atomic uint64_t pool_reused, pool_allocated, pool_released;

static uint8_t class_of(size_t bytes)
{
	for (uint8_t c = 1; c <= POOL_CLASSES; c++)
		if (bytes <= class_bytes[c])
			return c;
	return 0;
}

static void *block_get(uint8_t c, size_t bytes)
{
	if (c) {
		struct pool *pl = &pools[c];
		pthread_mutex_lock(&pl->lock);
		struct free_block *b = pl->head;
		if (b) {
			pl->head = b->next;
			pl->n--;
		}
		pthread_mutex_unlock(&pl->lock);
		if (b) {
			UNPOISON(b, bytes);
			atomic_fetch_add_explicit(&pool_reused, 1, memory_order_relaxed);
			return b;
		}
	}
	/* A pooled block is the class's size, so any signal of the class can
	 * reuse it; what lies past this signal's size stays off limits. */
	size_t block = c ? class_bytes[c] : bytes;
	unsigned char *mem = malloc(block);
	if (mem) {
		POISON(mem + bytes, block - bytes);
		atomic_fetch_add_explicit(&pool_allocated, 1, memory_order_relaxed);
	}
	return mem;
}

static void block_put(uint8_t c, void *mem)
{
	if (c) {
		struct pool *pl = &pools[c];
		pthread_mutex_lock(&pl->lock);
		if (pl->n < POOL_CAP) {
			struct free_block *b = mem;
			b->next = pl->head;
			pl->head = b;
			pl->n++;
			/* The link stays readable, so LeakSanitizer follows the list. */
			POISON(b + 1, class_bytes[c] - sizeof(*b));
			pthread_mutex_unlock(&pl->lock);
			return;
		}
		pthread_mutex_unlock(&pl->lock);
	}
	atomic_fetch_add_explicit(&pool_released, 1, memory_order_relaxed);
	free(mem);
}

void enav_signal_pool_stats(struct enav_signal_pool_stats *st)
{
	st->reused = atomic_load(&pool_reused);
	st->allocated = atomic_load(&pool_allocated);
	st->released = atomic_load(&pool_released);
	st->free_blocks = 0;
	st->free_bytes = 0;
	for (uint8_t c = 1; c <= POOL_CLASSES; c++) {
		pthread_mutex_lock(&pools[c].lock);
		st->free_blocks += pools[c].n;
		st->free_bytes += (uint64_t)pools[c].n * class_bytes[c];
		pthread_mutex_unlock(&pools[c].lock);
	}
}

struct enav_signal *enav_signal_new(enum enav_signal_kind kind, uint32_t tail_len)
{
	size_t bytes = enav_signal_size(kind, tail_len);
	uint8_t c = class_of(bytes);
	unsigned char *mem = block_get(c, bytes);
	if (!mem)
		return NULL;
	memset(mem, 0, payload_end(kind));
	struct enav_signal *s = (struct enav_signal *)mem;
	atomic_init(&s->refs, 1);
	s->kind = kind;
	s->pool_class = c;
	s->process.filename = "";
	s->process.exe = "";
	s->process.cgroup_path = "";
	s->process.identity = &no_identity;
	s->process.argv = "";
	atomic_fetch_add(&live_signals, 1);
	return s;
}

void *enav_signal_tail(struct enav_signal *s)
{
	return (unsigned char *)s + tail_offset(s->kind);
}

/* Two pins behind one attr_ref. */
struct pin_pair {
	void *first_ref, *second_ref;
	void (*first_release)(void *ref);
	void (*second_release)(void *ref);
};

static void release_pair(void *ref)
{
	struct pin_pair *pp = ref;
	pp->first_release(pp->first_ref);
	pp->second_release(pp->second_ref);
	free(pp);
}

int enav_signal_pin(struct enav_signal *s, void *ref, void (*release)(void *ref))
{
	if (!s->attr_release) {
		s->attr_ref = ref;
		s->attr_release = release;
		return 0;
	}
	struct pin_pair *pp = malloc(sizeof(*pp));
	if (!pp)
		return -1;
	*pp = (struct pin_pair){s->attr_ref, ref, s->attr_release, release};
	s->attr_ref = pp;
	s->attr_release = release_pair;
	return 0;
}

void *enav_signal_pinned(const struct enav_signal *s, void (*release)(void *ref))
{
	void *ref = s->attr_ref;
	void (*rel)(void *) = s->attr_release;
	while (rel == release_pair) {
		const struct pin_pair *pp = ref;
		if (pp->second_release == release)
			return pp->second_ref;
		ref = pp->first_ref;
		rel = pp->first_release;
	}
	return rel == release ? ref : NULL;
}

void enav_signal_ref(struct enav_signal *s)
{
	atomic_fetch_add(&s->refs, 1);
}

void enav_signal_unref(struct enav_signal *s)
{
	if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
		if (s->attr_release)
			s->attr_release(s->attr_ref);
		atomic_fetch_sub(&live_signals, 1);
		block_put(s->pool_class, s);
	}
}
void enav_signal_warn(struct enav_signal *s, const char *field, const char *reason)
{
	if (s->n_warnings < ENAV_SIGNAL_MAX_WARNINGS)
		s->warnings[s->n_warnings++] = (struct enav_field_warning){field, reason};
}

const char *enav_signal_kind_name(enum enav_signal_kind kind)
{
	switch (kind) {
	case ENAV_SIGNAL_PROCESS_EXEC:
		return "process.exec";
	case ENAV_SIGNAL_PROCESS_EXIT:
		return "process.exit";
	case ENAV_SIGNAL_TCP_OPEN:
		return "tcp.open";
	case ENAV_SIGNAL_TCP_CLOSE:
		return "tcp.close";
	case ENAV_SIGNAL_TCP_FAILED:
		return "tcp.failed";
	case ENAV_SIGNAL_DNS:
		return "dns.response";
	case ENAV_SIGNAL_EDGE:
		return "network.edge";
	case ENAV_SIGNAL_FINDING:
		return "security.finding";
	case ENAV_SIGNAL_SPAN:
		return "span";
	case ENAV_SIGNAL_CRED_CHANGE:
		return "process.cred_change";
	case ENAV_SIGNAL_FILE_OPEN:
		return "file.open";
	case ENAV_SIGNAL_BPF_ACCESS:
		return "agent.bpf_access";
	case ENAV_SIGNAL__COUNT:
		break;
	}
	return "unknown";
}

uint64_t enav_signal_live_count(void)
{
	return atomic_load(&live_signals);
}
