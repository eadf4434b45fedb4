/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The profiler's byte budget for tenant-derived data (tenant_memory.h).
 * The memory of refusals is a fixed table indexed by a hash of the identity,
 * a newer identity overwriting an older one in its slot: bounded, and the
 * worst a tenant gains by filling it is that a refused file is parsed once
 * more (still under the per-file cap).
 */
#include "features/profiling/tenant_memory.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "platform/promtext.h"

struct memo {
	struct enav_file_key k;
	uint64_t value;
	uint8_t kind; /* 0: empty */
};

struct enav_tenant_mem {
	uint64_t cap, file_cap;
	_Atomic uint64_t used, evictions;
	_Atomic uint64_t refused[ENAV_TMEM__COUNT];
	pthread_mutex_t lock; /* memo */
	struct memo memo[ENAV_TENANT_MEMO_SLOTS];
};

const char *enav_tmem_reason_name(enum enav_tmem_reason r)
{
	static const char *const names[ENAV_TMEM__COUNT] = {
	    [ENAV_TMEM_OVER_FILE_CAP] = "over_file_cap", [ENAV_TMEM_REMEMBERED] = "remembered",
	    [ENAV_TMEM_NOT_REGULAR] = "not_regular",	 [ENAV_TMEM_OTHER_INODE] = "other_inode",
	    [ENAV_TMEM_UNSAFE_LOOKUP] = "unsafe_lookup", [ENAV_TMEM_SLOW] = "slow",
	    [ENAV_TMEM_OPEN_ERROR] = "open_error",
	};
	return (unsigned)r < ENAV_TMEM__COUNT ? names[r] : "open_error";
}

void enav_file_key_of(const struct stat *st, struct enav_file_key *k)
{
	k->dev = (uint64_t)st->st_dev;
	k->ino = (uint64_t)st->st_ino;
	k->mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec;
	k->size = (uint64_t)st->st_size;
}

struct enav_tenant_mem *enav_tenant_mem_new(uint64_t cap_bytes)
{
	struct enav_tenant_mem *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	if (cap_bytes == 0)
		cap_bytes = ENAV_TENANT_MEM_DEFAULT;
	if (cap_bytes < ENAV_TENANT_MEM_MIN)
		cap_bytes = ENAV_TENANT_MEM_MIN;
	if (cap_bytes > ENAV_TENANT_MEM_MAX)
		cap_bytes = ENAV_TENANT_MEM_MAX;
	m->cap = cap_bytes;
	m->file_cap = cap_bytes / ENAV_TENANT_MEM_FILE_DIV;
	pthread_mutex_init(&m->lock, NULL);
	return m;
}

void enav_tenant_mem_free(struct enav_tenant_mem *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m);
}

uint64_t enav_tenant_mem_cap(const struct enav_tenant_mem *m)
{
	return m->cap;
}

uint64_t enav_tenant_mem_file_cap(const struct enav_tenant_mem *m)
{
	return m->file_cap;
}

uint64_t enav_tenant_mem_used(const struct enav_tenant_mem *m)
{
	return atomic_load(&m->used);
}

void enav_tenant_mem_charge(struct enav_tenant_mem *m, uint64_t n)
{
	atomic_fetch_add(&m->used, n);
}

void enav_tenant_mem_uncharge(struct enav_tenant_mem *m, uint64_t n)
{
	uint64_t cur = atomic_load(&m->used);
	/* Never below zero, even if a caller's arithmetic is off. */
	while (!atomic_compare_exchange_weak(&m->used, &cur, cur > n ? cur - n : 0))
		;
}

bool enav_tenant_mem_fits(const struct enav_tenant_mem *m, uint64_t n)
{
	uint64_t used = atomic_load(&m->used);
	return used <= m->cap && n <= m->cap - used;
}

void enav_tenant_mem_evicted(struct enav_tenant_mem *m)
{
	atomic_fetch_add(&m->evictions, 1);
}

void enav_tenant_mem_refused(struct enav_tenant_mem *m, enum enav_tmem_reason r)
{
	if ((unsigned)r < ENAV_TMEM__COUNT)
		atomic_fetch_add(&m->refused[r], 1);
}

void enav_tenant_mem_open_refused(struct enav_tenant_mem *m, enum enav_tenant_refusal why)
{
	switch (why) {
	case ENAV_TENANT_OK:
	case ENAV_TENANT_GONE:
		return;
	case ENAV_TENANT_NOT_REGULAR:
		enav_tenant_mem_refused(m, ENAV_TMEM_NOT_REGULAR);
		return;
	case ENAV_TENANT_OTHER_INODE:
		enav_tenant_mem_refused(m, ENAV_TMEM_OTHER_INODE);
		return;
	case ENAV_TENANT_UNSAFE_LOOKUP:
		enav_tenant_mem_refused(m, ENAV_TMEM_UNSAFE_LOOKUP);
		return;
	case ENAV_TENANT_TOO_LARGE:
		enav_tenant_mem_refused(m, ENAV_TMEM_OVER_FILE_CAP);
		return;
	default:
		enav_tenant_mem_refused(m, ENAV_TMEM_OPEN_ERROR);
		return;
	}
}

static uint32_t slot_of(enum enav_tmem_kind kind, const struct enav_file_key *k)
{
	uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)kind;
	const uint64_t v[4] = {k->dev, k->ino, k->mtime_ns, k->size};

	for (int i = 0; i < 4; i++) {
		h ^= v[i];
		h *= 0x9e3779b97f4a7c15ull;
		h ^= h >> 29;
	}
	return (uint32_t)(h % ENAV_TENANT_MEMO_SLOTS);
}

static bool same_key(const struct enav_file_key *a, const struct enav_file_key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->mtime_ns == b->mtime_ns &&
	       a->size == b->size;
}

void enav_tenant_mem_remember(struct enav_tenant_mem *m, enum enav_tmem_kind kind,
			      const struct enav_file_key *k, uint64_t value)
{
	struct memo *s = &m->memo[slot_of(kind, k)];

	pthread_mutex_lock(&m->lock);
	*s = (struct memo){.k = *k, .value = value, .kind = (uint8_t)kind};
	pthread_mutex_unlock(&m->lock);
}

bool enav_tenant_mem_recall(struct enav_tenant_mem *m, enum enav_tmem_kind kind,
			    const struct enav_file_key *k, uint64_t *value)
{
	const struct memo *s = &m->memo[slot_of(kind, k)];
	bool hit;

	pthread_mutex_lock(&m->lock);
	hit = s->kind == (uint8_t)kind && same_key(&s->k, k);
	if (hit && value)
		*value = s->value;
	pthread_mutex_unlock(&m->lock);
	return hit;
}

void enav_tenant_mem_get_stats(struct enav_tenant_mem *m, struct enav_tenant_mem_stats *st)
{
	st->used = atomic_load(&m->used);
	st->cap = m->cap;
	st->file_cap = m->file_cap;
	st->evictions = atomic_load(&m->evictions);
	for (int i = 0; i < ENAV_TMEM__COUNT; i++)
		st->refused[i] = atomic_load(&m->refused[i]);
}

void enav_tenant_mem_metrics(struct enav_tenant_mem *m, struct enav_promtext *p)
{
	struct enav_tenant_mem_stats st;

	enav_tenant_mem_get_stats(m, &st);
	enav_promtext_single_u64(p, "enav_profile_tenant_bytes", "gauge",
				 "Bytes the profiler holds that were derived from tenant binaries "
				 "(symbol tables, names, perf maps).",
				 st.used);
	enav_promtext_single_u64(p, "enav_profile_tenant_budget_bytes", "gauge",
				 "profiling.tenant_memory_bytes: the cap on "
				 "enav_profile_tenant_bytes.",
				 st.cap);
	enav_promtext_single_u64(p, "enav_profile_tenant_budget_evictions_total", "counter",
				 "Cached symbol tables or perf maps dropped to stay under the "
				 "tenant memory budget.",
				 st.evictions);
	enav_promtext_family(p, "enav_profile_files_refused_total", "counter",
			     "Tenant files the profiler refused to read or keep, by reason.");
	for (int i = 0; i < ENAV_TMEM__COUNT; i++) {
		const char *l[] = {"reason", enav_tmem_reason_name((enum enav_tmem_reason)i)};
		enav_promtext_sample_u64(p, "enav_profile_files_refused_total", l, 1,
					 st.refused[i]);
	}
}
