/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Profiling source: loads bpf/profiling/profile.bpf.c, opens one sampling perf event
 * per CPU for the CPU profile, and drains the kernel's aggregation map into
 * the profile store every profiling.drain_ms (and on demand, when an HTTP
 * profile request opens and closes its window); every profiling.interval_ms
 * it closes an interval and publishes it to the host's profile consumers
 * (the spool and Pyroscope rows).  Its own thread does the draining and the
 * mapping snapshots, so the capture loop never waits on it.
 */
#include "features/profiling/profile_source.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "platform/clock.h"
#include "platform/hash.h"
#include "platform/log.h"
#include "platform/u64map.h"
#include "runtime/span_links.h"
#include "features/profiling/profile_store.h"
#include "profile_bounded_perf.skel.h"
#include "profile_bounded_ringbuf.skel.h"
#include "profile_perf.skel.h"
#include "profile_ringbuf.skel.h"
#include "runtime/bpf_source.h"
#include "features/profiling/profile_task_decode.h"
#include "platform/tracefs.h"
#include "features/profiling/unwind_tables.h"

ENAV_SKEL_OPS(profile_ringbuf);
ENAV_SKEL_OPS(profile_perf);
/* The same programs for kernels without bpf_loop (bpf/profiling/profile_bounded.bpf.c). */
ENAV_SKEL_OPS(profile_bounded_ringbuf);
ENAV_SKEL_OPS(profile_bounded_perf);

#define TASK_RING 1024
/* How often the unwinder re-reads the mappings of the processes it knows:
 * exits are forgotten, dlopen'd libraries picked up. */
#define UNWIND_REFRESH_NS (10ull * 1000000000ull)
/* A new image's mappings are snapshotted again this long after its
 * announcement, and once more five times later: the first stack can
 * predate the libraries ld.so maps (slower still in an emulated guest). */
#define RESNAP_DELAY_NS (300ull * 1000000ull)
#define RESNAPS		2

struct pending_task {
	uint32_t tgid;
	uint16_t exec_gen;
	uint8_t resnaps; /* snapshots retaken so far (RESNAP_DELAY_NS) */
	char comm[ENAV_COMM_LEN];
};

struct profile_source {
	struct enav_bpf_source bpf;
	struct enav_host *host;
	struct enav_profile_store *store;
	const char *event_name;
	int n_perf;
	int *perf_fds;
	struct bpf_link **perf_links;
	int counts_fd, stacks_fd, counters_fd;
	uint32_t depth;
	uint32_t count_cap;
	bool offcpu, futex;
	/* .eh_frame unwinding (ADR 0017): tables under unwind_lock, held
	 * while a binary is read; metrics show unwind_stats, copied under lock
	 * after each load, so a scrape never waits for a tenant's file. */
	bool bounded; /* the bounded-loop unwinder: no bpf_loop here */
	struct enav_unwind_tables *unwind;
	struct enav_unwind_stats unwind_stats; /* under lock */
	void *unwind_rows;
	size_t unwind_rows_len;
	pthread_mutex_t unwind_lock;
	/* profiler thread */
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	/* export thread: closes the intervals (export_cv under lock) */
	pthread_t export_thread;
	bool export_thread_started;
	pthread_cond_t export_cv;
	bool stop;
	struct pending_task ring[TASK_RING];
	uint32_t ring_head, ring_len;
	/* Processes snapshotted whose unwind tables are still to load, under
	 * lock: the unwinder thread (at a low priority: parsing a large
	 * .eh_frame takes milliseconds of CPU the node's workloads come
	 * before) loads them one at a time. */
	struct pending_task resnap[TASK_RING]; /* profiler thread only */
	uint64_t resnap_due[TASK_RING];
	uint32_t resnap_head, resnap_len;
	struct pending_task unwind_queue[TASK_RING];
	uint32_t unwind_head, unwind_len;
	/* Under lock: the process whose tables go first, and whether it has
	 * been queued (enav_profile_source_unwind_prefer). */
	uint32_t prefer_tgid;
	bool prefer_queued;
	uint32_t unwind_current; /* under lock: the process being loaded */
	pthread_t unwind_thread;
	bool unwind_thread_started;
	pthread_cond_t unwind_cv;
	/* the interval being cut (export thread only) */
	uint64_t interval_from_mono, interval_from_unix;
	/* drain state (under the store's drain lock) */
	uint64_t last_drain_mono, last_drain_unix;
	struct enav_profile_stack *stack;	 /* one stack read back */
	const char *allow[ENAV_CONFIG_LIST_MAX]; /* profiling.filter.allow, borrowed */
	struct enav_profile_key *keys;
	struct enav_profile_value *vals;
	uint64_t *kips, *uips;
	/* Request links (ADR 0021): the spans that name samples, and the keys
	 * left in the kernel to wait for theirs (key hash -> when first held). */
	struct enav_span_links *links;
	uint64_t hold_ns;
	struct enav_u64map held;
	_Atomic uint64_t link_resolved, link_held, link_unresolved, link_hold_full;
	/* self-accounting */
	_Atomic uint64_t drains, drain_ns, stacks_missing, tasks_dropped, batch_failures, records;
	_Atomic uint64_t unwind_queue_dropped, resnaps_dropped;
};

static int map_fd(struct profile_source *src, const char *name)
{
	return bpf_map__fd(bpf_object__find_map_by_name(src->bpf.obj, name));
}

static void on_event(void *ctx, const void *data, size_t size)
{
	struct profile_source *src = ctx;
	struct enav_profile_announce ev;
	/* The shared decoder checks hdr.size against what arrived and against
	 * the event's own size, and counts the event or its decode error. */
	if (!enav_bpf_source_decode(&src->bpf, enav_profile_task_decode, data, size, &ev))
		return;
	/* Hand over to the profiler thread: snapshots read /proc, not for this loop. */
	pthread_mutex_lock(&src->lock);
	if (src->ring_len == TASK_RING) {
		atomic_fetch_add(&src->tasks_dropped, 1);
		/* Forgotten in the kernel too, so the image's next stack
		 * announces it again instead of leaving it never snapshotted. */
		uint64_t key = (uint64_t)ev.profile_task.exec_gen << 32 | ev.hdr.pid;
		bpf_map_delete_elem(map_fd(src, "enav_prof_tasks"), &key);
	} else {
		struct pending_task *t = &src->ring[(src->ring_head + src->ring_len) % TASK_RING];
		t->tgid = ev.hdr.pid;
		t->exec_gen = ev.profile_task.exec_gen;
		snprintf(t->comm, sizeof(t->comm), "%s", ev.profile_task.comm);
		src->ring_len++;
		pthread_cond_signal(&src->cv);
	}
	pthread_mutex_unlock(&src->lock);
}

/* Read one stack by hash (leaf first); 0 frames when there is none or it is
 * gone (the kernel's LRU evicted it). */
static uint16_t read_stack(struct profile_source *src, uint64_t hash, uint64_t *ips, bool *missing)
{
	if (!hash)
		return 0;
	if (bpf_map_lookup_elem(src->stacks_fd, &hash, src->stack) != 0) {
		*missing = true;
		return 0;
	}
	uint32_t n = src->stack->n;
	if (n > src->depth)
		n = src->depth;
	memcpy(ips, src->stack->ips, n * sizeof(uint64_t));
	return (uint16_t)n;
}

static uint64_t key_hash(const struct enav_profile_key *k)
{
	const uint64_t *w = (const uint64_t *)k;
	uint64_t h = 0;
	for (size_t i = 0; i < sizeof(*k) / 8; i++)
		h = enav_hash_u64(h ^ w[i]);
	return h;
}

/*
 * Name the key's requests from the spans the L7 tracker kept.  A span is put
 * when its request ends, usually before the drain, but a sample of a request
 * still running has none yet: such a key stays in the kernel (where later
 * samples of it add up) until its span comes or profiling.links.hold_ms
 * passes; false to leave it there.
 */
static bool resolve_links(struct profile_source *src, const struct enav_profile_key *k,
			  struct enav_profile_record *r, uint64_t now)
{
	if (!src->links || (!k->server_sock && !k->client_sock))
		return true;
	struct enav_span_link_id server = {0}, client = {0};
	bool got_server = false, got_client = false;
	if (k->server_sock)
		got_server =
		    enav_span_links_get(src->links, k->server_sock, k->server_seq, &server);
	if (k->client_sock)
		got_client =
		    enav_span_links_get(src->links, k->client_sock, k->client_seq, &client);
	bool complete = (!k->server_sock || got_server) && (!k->client_sock || got_client);
	uint64_t h = key_hash(k), since;
	if (!complete && src->hold_ns) {
		if (!enav_u64map_get(&src->held, h, &since)) {
			if (enav_u64map_put(&src->held, h, now) == 0) {
				atomic_fetch_add(&src->link_held, 1);
				return false;
			}
			atomic_fetch_add(&src->link_hold_full, 1);
		} else if (now - since < src->hold_ns) {
			return false;
		}
	}
	enav_u64map_del(&src->held, h);
	if (!got_server && !got_client) {
		atomic_fetch_add(&src->link_unresolved, 1);
		return true;
	}
	atomic_fetch_add(&src->link_resolved, 1);
	r->link = k->link_flags & ENAV_LINK_SHARED ? ENAV_PROFILE_LINK_INFERRED
						   : ENAV_PROFILE_LINK_OBSERVED;
	if (got_server) {
		memcpy(r->trace_id, server.trace_id, 16);
		memcpy(r->span_id, server.span_id, 8);
	} else {
		memcpy(r->trace_id, client.trace_id, 16);
	}
	if (got_client)
		memcpy(r->client_span_id, client.span_id, 8);
	return true;
}

/* Called with the store's drain lock held (one drain at a time). */
static int drain(void *ctx, uint64_t *drained_to)
{
	struct profile_source *src = ctx;
	uint64_t t0 = enav_clock_mono_ns();
	uint64_t now_unix = enav_clock_unix_ns();
	struct enav_profile_batch *b =
	    enav_profile_batch_new(src->last_drain_mono, src->last_drain_unix);
	if (!b) {
		atomic_fetch_add(&src->batch_failures, 1);
		return -ENOMEM;
	}
	/* Keys first, then take each one out: new samples land in fresh entries. */
	uint32_t n = 0;
	struct enav_profile_key *prev = NULL;
	while (n < src->count_cap &&
	       bpf_map_get_next_key(src->counts_fd, prev, &src->keys[n]) == 0) {
		prev = &src->keys[n];
		n++;
	}
	for (uint32_t i = 0; i < n; i++) {
		struct enav_profile_key *k = &src->keys[i];
		struct enav_profile_value v;
		struct enav_profile_record r = {.tgid = k->tgid,
						.kind = k->kind,
						.exec_gen = k->exec_gen,
						.cgroup_id = k->cgroup_id};
		if (!resolve_links(src, k, &r, t0))
			continue;
		if (bpf_map_lookup_and_delete_elem(src->counts_fd, k, &v) != 0) {
			if (bpf_map_lookup_elem(src->counts_fd, k, &v) != 0)
				continue;
			bpf_map_delete_elem(src->counts_fd, k);
		}
		bool missing = false;
		uint16_t nk = read_stack(src, k->kernel_stack, src->kips, &missing);
		uint16_t nu = read_stack(src, k->user_stack, src->uips, &missing);
		if (missing)
			atomic_fetch_add(&src->stacks_missing, 1);
		r.count = v.count;
		r.total_ns = v.total_ns;
		if (!enav_profile_batch_add(b, &r, src->kips, nk, src->uips, nu))
			atomic_fetch_add(&src->batch_failures, 1);
	}
	b->end_mono_ns = enav_clock_mono_ns();
	atomic_fetch_add(&src->records, b->n_recs);
	src->last_drain_mono = b->end_mono_ns;
	src->last_drain_unix = now_unix;
	*drained_to = b->end_mono_ns;
	enav_profile_store_add(src->store, b);
	atomic_fetch_add(&src->drains, 1);
	atomic_fetch_add(&src->drain_ns, enav_clock_mono_ns() - t0);
	return 0;
}

/* The periodic drain closes an interval: every profile consumer gets it. */
static void export_interval(struct profile_source *src)
{
	uint64_t to;
	if (enav_profile_store_drain(src->store, &to) != 0)
		return;
	struct enav_profile_interval iv = {
	    .from_mono_ns = src->interval_from_mono,
	    .to_mono_ns = to,
	    .from_unix_ns = src->interval_from_unix,
	    .to_unix_ns = enav_clock_unix_ns(),
	    .kinds = (1u << ENAV_PROFILE_CPU) | (src->offcpu ? 1u << ENAV_PROFILE_OFFCPU : 0) |
		     (src->futex ? 1u << ENAV_PROFILE_FUTEX : 0),
	};
	enav_host_publish_interval(src->host, &iv);
	src->interval_from_mono = to;
	src->interval_from_unix = iv.to_unix_ns;
}

/*
 * Closes an interval every profiling.interval_ms.  The consumers (spool,
 * Pyroscope, OTLP) build, symbolize and encode it on this thread, never on
 * the profiler thread: a build that reads a node's worth of files must not
 * hold back the snapshot of a process announced meanwhile, which may be
 * gone by the time a late snapshot is taken (every frame of it unnamed).
 */
static void *export_thread(void *arg)
{
	struct profile_source *src = arg;
	uint64_t interval =
	    (uint64_t)enav_host_config(src->host)->profiling.interval_ms * 1000000ull;
	uint64_t next = enav_clock_mono_ns() + interval;

	pthread_mutex_lock(&src->lock);
	while (!src->stop) {
		uint64_t now = enav_clock_mono_ns();
		if (now >= next) {
			pthread_mutex_unlock(&src->lock);
			export_interval(src);
			pthread_mutex_lock(&src->lock);
			next = now + interval;
			continue;
		}
		struct timespec ts = enav_clock_deadline(CLOCK_REALTIME, next - now);
		pthread_cond_timedwait(&src->export_cv, &src->lock, &ts);
	}
	pthread_mutex_unlock(&src->lock);
	return NULL;
}

/* Snapshots announced processes (and retakes them), and drains the kernel's
 * maps between intervals. */
static void *profiler_thread(void *arg)
{
	struct profile_source *src = arg;
	uint64_t drain_every =
	    (uint64_t)enav_host_config(src->host)->profiling.drain_ms * 1000000ull;
	uint64_t next_drain = enav_clock_mono_ns() + drain_every;
	pthread_mutex_lock(&src->lock);
	while (!src->stop) {
		while (src->ring_len) {
			struct pending_task t = src->ring[src->ring_head];
			src->ring_head = (src->ring_head + 1) % TASK_RING;
			src->ring_len--;
			pthread_mutex_unlock(&src->lock);
			enav_profile_store_task(src->store, t.tgid, t.exec_gen, t.comm);
			if (src->resnap_len < TASK_RING) {
				uint32_t i = (src->resnap_head + src->resnap_len++) % TASK_RING;
				src->resnap[i] = t;
				src->resnap[i].resnaps = 0;
				src->resnap_due[i] = enav_clock_mono_ns() + RESNAP_DELAY_NS;
			} else {
				atomic_fetch_add(&src->resnaps_dropped, 1);
			}
			pthread_mutex_lock(&src->lock);
			if (src->unwind && src->unwind_len < TASK_RING) {
				if (t.tgid == src->prefer_tgid) {
					/* Ahead of every other process. */
					src->unwind_head =
					    (src->unwind_head + TASK_RING - 1) % TASK_RING;
					src->unwind_queue[src->unwind_head] = t;
					src->unwind_len++;
					src->prefer_queued = true;
				} else {
					src->unwind_queue[(src->unwind_head + src->unwind_len++) %
							  TASK_RING] = t;
				}
				pthread_cond_signal(&src->unwind_cv);
			} else if (src->unwind) {
				atomic_fetch_add(&src->unwind_queue_dropped, 1);
			}
		}
		uint64_t now = enav_clock_mono_ns();
		while (src->resnap_len && now >= src->resnap_due[src->resnap_head]) {
			struct pending_task t = src->resnap[src->resnap_head];
			src->resnap_head = (src->resnap_head + 1) % TASK_RING;
			src->resnap_len--;
			pthread_mutex_unlock(&src->lock);
			enav_profile_store_resnapshot(src->store, t.tgid, t.exec_gen);
			if (++t.resnaps < RESNAPS && src->resnap_len < TASK_RING) {
				uint32_t i = (src->resnap_head + src->resnap_len++) % TASK_RING;
				src->resnap[i] = t;
				src->resnap_due[i] = now + 5 * RESNAP_DELAY_NS;
			}
			pthread_mutex_lock(&src->lock);
		}
		if (now >= next_drain) {
			/* Keep the kernel maps small between intervals: the store
			 * aggregates, the count map only holds one drain's keys. */
			pthread_mutex_unlock(&src->lock);
			uint64_t to;
			enav_profile_store_drain(src->store, &to);
			pthread_mutex_lock(&src->lock);
			next_drain = now + drain_every;
			continue;
		}
		uint64_t wait = next_drain - now;
		if (src->resnap_len && src->resnap_due[src->resnap_head] > now &&
		    src->resnap_due[src->resnap_head] - now < wait)
			wait = src->resnap_due[src->resnap_head] - now;
		if (wait > 200000000ull)
			wait = 200000000ull;
		struct timespec ts = enav_clock_deadline(CLOCK_REALTIME, wait);
		if (!src->ring_len && !src->stop)
			pthread_cond_timedwait(&src->cv, &src->lock, &ts);
	}
	pthread_mutex_unlock(&src->lock);
	return NULL;
}

/* Loads the unwind tables of announced processes, one at a time, and
 * re-reads the mappings of the known ones every UNWIND_REFRESH_NS. */
static void *unwinder_thread(void *arg)
{
	struct profile_source *src = arg;
	uint64_t next_refresh = enav_clock_mono_ns() + UNWIND_REFRESH_NS;

	/* Background work: the node's workloads and the agent's other threads
	 * come first (a nice value is per thread on Linux), but not so far
	 * behind that a saturated node never gets its tables (nice 10 weighs
	 * about a tenth of a normal thread). */
	setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	pthread_mutex_lock(&src->lock);
	while (!src->stop) {
		if (src->unwind_len) {
			struct pending_task t = src->unwind_queue[src->unwind_head];
			src->unwind_head = (src->unwind_head + 1) % TASK_RING;
			src->unwind_len--;
			src->unwind_current = t.tgid;
			pthread_mutex_unlock(&src->lock);
			struct enav_unwind_stats st;
			pthread_mutex_lock(&src->unwind_lock);
			enav_unwind_tables_add(src->unwind, t.tgid, t.exec_gen);
			enav_unwind_tables_stats(src->unwind, &st);
			pthread_mutex_unlock(&src->unwind_lock);
			pthread_mutex_lock(&src->lock);
			src->unwind_stats = st;
			src->unwind_current = 0;
			continue;
		}
		uint64_t now = enav_clock_mono_ns();
		if (now >= next_refresh) {
			pthread_mutex_unlock(&src->lock);
			struct enav_unwind_stats st;
			pthread_mutex_lock(&src->unwind_lock);
			enav_unwind_tables_refresh(src->unwind);
			enav_unwind_tables_stats(src->unwind, &st);
			pthread_mutex_unlock(&src->unwind_lock);
			pthread_mutex_lock(&src->lock);
			src->unwind_stats = st;
			next_refresh = now + UNWIND_REFRESH_NS;
			continue;
		}
		struct timespec ts = enav_clock_deadline(CLOCK_REALTIME, next_refresh - now);
		pthread_cond_timedwait(&src->unwind_cv, &src->lock, &ts);
	}
	pthread_mutex_unlock(&src->lock);
	return NULL;
}

/* One sampling event per CPU; cycles when asked (or auto and available). */
static int open_perf_events(struct profile_source *src, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(src->host);
	int ncpus = libbpf_num_possible_cpus();
	src->perf_fds = calloc(ncpus, sizeof(int));
	src->perf_links = calloc(ncpus, sizeof(*src->perf_links));
	if (!src->perf_fds || !src->perf_links)
		return -ENOMEM;
	struct bpf_program *prog =
	    bpf_object__find_program_by_name(src->bpf.obj, "enav_cpu_sample");
	bool cycles = cfg->profiling.event != ENAV_PROFILE_EVENT_CPU_CLOCK;
	int opened = 0;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct perf_event_attr attr = {
		    .size = sizeof(attr),
		    .type = cycles ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
		    .config = cycles ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_SW_CPU_CLOCK,
		    .freq = 1,
		    .sample_freq = cfg->profiling.frequency_hz,
		};
		int fd =
		    (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0 && cycles && opened == 0 &&
		    cfg->profiling.event == ENAV_PROFILE_EVENT_AUTO &&
		    (errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV)) {
			/* No hardware PMU here (a VM): the software clock works everywhere. */
			cycles = false;
			cpu--;
			continue;
		}
		if (fd < 0) {
			if (errno == ENODEV)
				continue; /* offline CPU */
			snprintf(err, errlen, "profiling: perf_event_open(%s, cpu %d): %s",
				 cycles ? "cycles" : "cpu-clock", cpu, strerror(errno));
			return -errno;
		}
		src->perf_fds[src->n_perf] = fd;
		src->perf_links[src->n_perf] = bpf_program__attach_perf_event(prog, fd);
		if (!src->perf_links[src->n_perf]) {
			int rc = -errno;
			close(fd);
			snprintf(err, errlen, "profiling: cannot attach the sampler on cpu %d: %s",
				 cpu, strerror(-rc));
			return rc;
		}
		src->n_perf++;
		opened++;
	}
	src->event_name = cycles ? "cycles" : "cpu-clock";
	return 0;
}

static void configure(void *ctx)
{
	struct profile_source *src = ctx;
	const struct enav_config *cfg = enav_host_config(src->host);
	struct bpf_object *obj = src->bpf.obj;
	struct bpf_map *stacks = bpf_object__find_map_by_name(obj, "enav_prof_stacks");
	bpf_map__set_max_entries(stacks, cfg->profiling.stack_map_entries);
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_prof_counts"),
				 cfg->profiling.count_map_entries);
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_prof_offcpu_start"),
				 cfg->profiling.max_pending_waits);
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_prof_futex_start"),
				 cfg->profiling.max_pending_waits);
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_prof_tasks"),
				 cfg->profiling.max_processes);
	/* Without the unwinder its maps keep one entry: no memory for nothing. */
	bool unwind = cfg->profiling.unwind_eh_frame &&
		      !enav_bpf_source_feature_refused(&src->bpf, "unwind_eh_frame");
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_unwind_rows"),
				 unwind ? cfg->profiling.unwind_max_rows : 1);
	bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_unwind_procs"),
				 unwind ? cfg->profiling.unwind_max_processes : 1);
	/* Before Linux 6.1 a perf_event program may only use preallocated
	 * hash maps: there the processes' entries are allocated up front. */
	if (enav_host_features(src->host)->feat[ENAV_FEAT_PERF_DYN_HASH].status != ENAV_PROBE_YES)
		bpf_map__set_map_flags(bpf_object__find_map_by_name(obj, "enav_unwind_procs"), 0);
	bool switch_state =
	    enav_host_features(src->host)->feat[ENAV_FEAT_SWITCH_STATE].status == ENAV_PROBE_YES;
	struct enav_bpf_source *b = &src->bpf;
	enav_bpf_source_rodata_u64(b, "enav_wakeup_bytes", cfg->kernel.wakeup_bytes);
	enav_bpf_source_rodata_u64(b, "enav_offcpu_min_ns",
				   (uint64_t)cfg->profiling.offcpu_min_us * 1000);
	enav_bpf_source_rodata_u32(b, "enav_offcpu_sample_every",
				   cfg->profiling.offcpu_sample_every);
	enav_bpf_source_rodata_u64(b, "enav_futex_min_ns",
				   (uint64_t)cfg->profiling.futex_min_us * 1000);
	enav_bpf_source_rodata_u32(b, "enav_futex_sample_every", cfg->profiling.futex_sample_every);
	enav_bpf_source_rodata_u32(b, "enav_stack_bytes", cfg->profiling.max_stack_depth * 8);
	enav_bpf_source_rodata_bool(b, "enav_unwind_enabled", unwind);
	enav_bpf_source_rodata_u32(b, "enav_self_tgid", enav_host_self_pid(src->host));
	enav_bpf_source_rodata_bool(b, "enav_switch_state_arg", switch_state);
}

/* The rows map is written in place through its mapping. */
static int start_unwinder(struct profile_source *src, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(src->host);
	src->unwind_rows_len =
	    (size_t)cfg->profiling.unwind_max_rows * sizeof(struct enav_unwind_entry);
	void *rows = mmap(NULL, src->unwind_rows_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			  map_fd(src, "enav_unwind_rows"), 0);
	if (rows == MAP_FAILED) {
		snprintf(err, errlen, "profiling: cannot map the unwind rows: %s", strerror(errno));
		return -errno;
	}
	src->unwind_rows = rows;
	struct enav_unwind_tables_config uc = {
	    .proc_root = "/proc",
	    .max_rows = cfg->profiling.unwind_max_rows,
	    .max_binary_rows = cfg->profiling.unwind_max_binary_rows,
	    .max_processes = cfg->profiling.unwind_max_processes,
	    .max_binaries = cfg->profiling.unwind_max_binaries,
	    .mem = enav_profile_store_tenant_mem(src->store),
	};
	src->unwind = enav_unwind_tables_new(&uc, rows, map_fd(src, "enav_unwind_procs"));
	if (!src->unwind) {
		snprintf(err, errlen, "profiling: cannot allocate the unwind tables");
		return -ENOMEM;
	}
	enav_unwind_tables_stats(src->unwind, &src->unwind_stats); /* no thread yet */
	return 0;
}

static int profile_start(struct enav_host *a, void **state, char *err, size_t errlen)
{
	struct profile_source *src = calloc(1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	*state = src;
	src->host = a;
	pthread_mutex_init(&src->lock, NULL);
	pthread_cond_init(&src->cv, NULL);
	pthread_cond_init(&src->export_cv, NULL);
	pthread_mutex_init(&src->unwind_lock, NULL);
	pthread_cond_init(&src->unwind_cv, NULL);
	const struct enav_config *cfg = enav_host_config(a);
	src->depth = cfg->profiling.max_stack_depth;
	src->count_cap = cfg->profiling.count_map_entries;
	src->keys = calloc(src->count_cap, sizeof(*src->keys));
	src->links = enav_host_span_links(a);
	src->hold_ns = (uint64_t)cfg->profiling.links_hold_ms * 1000000ull;
	if (src->links && enav_u64map_init(&src->held, src->count_cap))
		return -ENOMEM;
	src->kips = calloc(src->depth, sizeof(uint64_t));
	src->uips = calloc(src->depth, sizeof(uint64_t));
	src->stack = calloc(1, sizeof(*src->stack));
	if (!src->keys || !src->kips || !src->uips || !src->stack)
		return -ENOMEM;
	for (uint32_t i = 0; i < cfg->profiling.filter_allow.n && i < ENAV_CONFIG_LIST_MAX; i++)
		src->allow[i] = cfg->profiling.filter_allow.item[i];
	struct enav_profile_store_config sc = {
	    .host = a,
	    .cgroup2_mount = cfg->attribution.cgroup2_mount[0]
				 ? cfg->attribution.cgroup2_mount
				 : enav_host_features(a)->cgroup2_mount,
	    .frequency_hz = cfg->profiling.frequency_hz,
	    .retention_ms = cfg->profiling.retention_ms,
	    .max_stored_stacks = cfg->profiling.max_stored_stacks,
	    .max_stored_bytes = (uint64_t)cfg->profiling.max_store_mb << 20,
	    .allow = (const char *const *)src->allow,
	    .n_allow = cfg->profiling.filter_allow.n,
	    .max_processes = cfg->profiling.max_processes,
	    .max_elf_files = cfg->profiling.max_elf_files,
	    .tenant_memory_bytes = (uint64_t)cfg->profiling.tenant_memory_mb << 20,
	};
	src->store = enav_profile_store_new(&sc);
	if (!src->store) {
		snprintf(err, errlen, "profiling: cannot allocate the profile store");
		return -ENOMEM;
	}
	/* The agent frees the store after every module, HTTP handlers included. */
	int rc = enav_host_provide_profiles(a, src->store, &enav_profile_store_service);
	if (rc) {
		enav_profile_store_free(src->store);
		src->store = NULL;
		snprintf(err, errlen, "profiling: cannot publish the profile store");
		return rc;
	}
	src->bpf.event_types = 1u << ENAV_EVENT_PROFILE_TASK;
	/* bpf_loop (Linux 5.17+) verifies the unwinder's steps once; without
	 * it the bounded variant walks fewer frames (probe row bpf_loop). */
	src->bounded = enav_host_features(a)->feat[ENAV_FEAT_BPF_LOOP].status != ENAV_PROBE_YES;
	/* Tests run the bounded unwinder on a kernel that has bpf_loop too
	 * (test_unwind.sh's case_bounded). */
	const char *force = getenv("ENAV_TEST_UNWIND_BOUNDED");
	if (force && strcmp(force, "1") == 0)
		src->bounded = true;
	src->bpf.programs = &enav_profile_programs;
	rc = enav_bpf_source_open(
	    &src->bpf, a, "profiling",
	    src->bounded ? &profile_bounded_ringbuf_ops : &profile_ringbuf_ops,
	    src->bounded ? &profile_bounded_perf_ops : &profile_perf_ops, err, errlen);
	if (rc)
		return rc;
	src->bpf.configure = configure;
	src->bpf.configure_ctx = src;
	configure(src);
	/* A refused unwinder leaves its code out of the same programs
	 * (configure asks enav_bpf_source_feature_refused). */
	enav_bpf_source_want(&src->bpf, &enav_profile_unwind_feature,
			     cfg->profiling.unwind_eh_frame);
	enav_bpf_source_want(&src->bpf, &enav_profile_offcpu_feature, cfg->profiling.offcpu);
	enav_bpf_source_want(&src->bpf, &enav_profile_futex_feature,
			     cfg->profiling.futex && enav_tracefs_ensure());
	rc = enav_bpf_source_start(&src->bpf, on_event, src, err, errlen);
	if (rc || enav_host_load_only(a))
		return rc;
	src->offcpu = enav_bpf_source_feature_on(&src->bpf, "offcpu");
	src->futex = enav_bpf_source_feature_on(&src->bpf, "futex");
	src->counts_fd = map_fd(src, "enav_prof_counts");
	src->stacks_fd = map_fd(src, "enav_prof_stacks");
	src->counters_fd = map_fd(src, "enav_prof_counters");
	if (enav_bpf_source_feature_on(&src->bpf, "unwind_eh_frame")) {
		rc = start_unwinder(src, err, errlen);
		if (rc)
			return rc;
	}
	rc = open_perf_events(src, err, errlen);
	if (rc)
		return rc;
	src->last_drain_mono = src->interval_from_mono = enav_clock_mono_ns();
	src->last_drain_unix = src->interval_from_unix = enav_clock_unix_ns();
	enav_profile_store_set_drain(src->store, drain, src);
	if (pthread_create(&src->thread, NULL, profiler_thread, src) != 0) {
		snprintf(err, errlen, "profiling: cannot start the profiler thread");
		return -EAGAIN;
	}
	src->thread_started = true;
	if (pthread_create(&src->export_thread, NULL, export_thread, src) != 0) {
		snprintf(err, errlen, "profiling: cannot start the profile export thread");
		return -EAGAIN;
	}
	src->export_thread_started = true;
	if (src->unwind) {
		if (pthread_create(&src->unwind_thread, NULL, unwinder_thread, src) != 0) {
			snprintf(err, errlen, "profiling: cannot start the unwinder thread");
			return -EAGAIN;
		}
		src->unwind_thread_started = true;
	}
	enav_info("profiling: %s at %u Hz on %d CPUs, off-CPU %s, futex %s, user stacks by %s%s",
		  src->event_name, cfg->profiling.frequency_hz, src->n_perf,
		  src->offcpu ? "on" : "off", src->futex ? "on" : "off",
		  src->unwind ? ".eh_frame and frame pointers" : "frame pointers only",
		  src->unwind && src->bounded ? " (bounded loops: no bpf_loop)" : "");
	return 0;
}

static void profile_stop(void *state)
{
	struct profile_source *src = state;
	if (!src)
		return;
	if (src->store)
		enav_profile_store_close(src->store); /* waiting HTTP requests return */
	if (src->thread_started) {
		pthread_mutex_lock(&src->lock);
		src->stop = true;
		pthread_cond_signal(&src->cv);
		pthread_mutex_unlock(&src->lock);
		pthread_join(src->thread, NULL);
	}
	if (src->export_thread_started) {
		pthread_mutex_lock(&src->lock);
		src->stop = true;
		pthread_cond_signal(&src->export_cv);
		pthread_mutex_unlock(&src->lock);
		pthread_join(src->export_thread, NULL);
	}
	if (src->unwind_thread_started) {
		pthread_mutex_lock(&src->lock);
		src->stop = true;
		pthread_cond_signal(&src->unwind_cv);
		pthread_mutex_unlock(&src->lock);
		pthread_join(src->unwind_thread, NULL);
	}
	for (int i = 0; i < src->n_perf; i++) {
		bpf_link__destroy(src->perf_links[i]);
		close(src->perf_fds[i]);
	}
	enav_unwind_tables_free(src->unwind);
	if (src->unwind_rows)
		munmap(src->unwind_rows, src->unwind_rows_len);
	enav_bpf_source_close(&src->bpf);
	free(src->perf_fds);
	free(src->perf_links);
	free(src->keys);
	enav_u64map_destroy(&src->held);
	free(src->kips);
	free(src->uips);
	free(src->stack);
	pthread_mutex_destroy(&src->lock);
	pthread_cond_destroy(&src->cv);
	pthread_cond_destroy(&src->export_cv);
	pthread_mutex_destroy(&src->unwind_lock);
	pthread_cond_destroy(&src->unwind_cv);
	/* src->store stays: the agent owns it from here. */
	free(src);
}

static const char *const counter_names[ENAV_PC__COUNT] = {
    [ENAV_PC_CPU_SAMPLES] = "cpu_samples",
    [ENAV_PC_OFFCPU_EPISODES] = "offcpu_episodes",
    [ENAV_PC_FUTEX_WAITS] = "futex_waits",
    [ENAV_PC_FILTERED] = "filtered",
    [ENAV_PC_UNSAMPLED] = "unsampled",
    [ENAV_PC_BELOW_THRESHOLD] = "below_threshold",
    [ENAV_PC_STACK_CAPTURES] = "stack_captures",
    [ENAV_PC_STACK_USER_FAULT] = "stack_user_fault",
    [ENAV_PC_STACK_KERNEL_FAULT] = "stack_kernel_fault",
    [ENAV_PC_STACK_OTHER] = "stack_not_stored",
    [ENAV_PC_COUNTS_FULL] = "count_map_full",
    [ENAV_PC_PENDING_FULL] = "pending_waits_full",
    [ENAV_PC_UNWIND_COMPLETE] = "unwind_complete",
    [ENAV_PC_UNWIND_NO_TABLES] = "unwind_no_tables_yet",
    [ENAV_PC_UNWIND_NOT_EXEC] = "unwind_not_executable",
    [ENAV_PC_UNWIND_NO_INFO] = "unwind_no_info",
    [ENAV_PC_UNWIND_DEPTH] = "unwind_depth_limit",
    [ENAV_PC_UNWIND_READ_FAULT] = "unwind_unreadable_stack",
    [ENAV_PC_UNWIND_BAD_FRAME] = "unwind_bad_frame",
    [ENAV_PC_UNWIND_FP_FRAMES] = "unwind_frame_pointer_frames",
    [ENAV_PC_UNWIND_TABLE_FRAMES] = "unwind_table_frames",
    [ENAV_PC_AGENT_WAITS] = "agent_waits_skipped",
    [ENAV_PC_OFFCPU_NO_USER_STACK] = "offcpu_no_user_stack",
};

/* profiling.links: how many sample keys named a request, and what came of
 * them; and the span cache they were named from. */
static void link_metrics(struct profile_source *src, struct enav_promtext *p)
{
	enav_promtext_family(p, "enav_profile_link_keys_total", "counter",
			     "Drained sample keys that named a request, by outcome: resolved "
			     "(a span named them), unresolved (no span came within "
			     "profiling.links.hold_ms: they went out without ids).");
	const char *res[] = {"outcome", "resolved"}, *unres[] = {"outcome", "unresolved"};
	enav_promtext_sample_u64(p, "enav_profile_link_keys_total", res, 1,
				 atomic_load(&src->link_resolved));
	enav_promtext_sample_u64(p, "enav_profile_link_keys_total", unres, 1,
				 atomic_load(&src->link_unresolved));
	enav_promtext_single_u64(
	    p, "enav_profile_link_held_total", "counter",
	    "Sample keys left in the kernel at a drain to wait for their span.",
	    atomic_load(&src->link_held));
	enav_promtext_single_u64(p, "enav_profile_link_hold_full_total", "counter",
				 "Sample keys that could not wait for their span: the hold table "
				 "(profiling.count_map_entries) was full.",
				 atomic_load(&src->link_hold_full));
	struct enav_span_links_stats st;
	enav_span_links_stats(src->links, &st);
	enav_promtext_single_u64(p, "enav_span_links_puts_total", "counter",
				 "Spans of sampled requests kept to name samples with.", st.puts);
	enav_promtext_single_u64(p, "enav_span_links_replaced_total", "counter",
				 "Kept spans replaced by newer ones in a full set before a sample "
				 "was named from them (profiling.links.max_spans).",
				 st.replaced);
	enav_promtext_single_u64(p, "enav_span_links_lookups_total", "counter",
				 "Lookups of a sample's request among the kept spans.",
				 st.hits + st.misses);
	enav_promtext_single_u64(p, "enav_span_links_hits_total", "counter",
				 "Lookups that found the request's span.", st.hits);
	enav_promtext_single_u64(p, "enav_span_links_entries", "gauge",
				 "Spans kept now (at most the capacity).", st.used);
	enav_promtext_single_u64(
	    p, "enav_span_links_capacity", "gauge",
	    "Spans the cache can keep (profiling.links.max_spans, rounded up).", st.capacity);
}

static void profile_metrics(void *state, struct enav_promtext *p)
{
	struct profile_source *src = state;
	uint64_t sums[ENAV_PC__COUNT];
	enav_bpf_percpu_sums(src->counters_fd, ENAV_PC__COUNT, sums);
	enav_promtext_family(p, "enav_profile_kernel_events_total", "counter",
			     "Profiling programs' per-CPU counters summed, by event.");
	for (uint32_t k = 0; k < ENAV_PC__COUNT; k++) {
		const char *l[] = {"event", counter_names[k]};
		enav_promtext_sample_u64(p, "enav_profile_kernel_events_total", l, 1, sums[k]);
	}
	uint64_t captures = sums[ENAV_PC_STACK_CAPTURES];
	uint64_t failures = sums[ENAV_PC_STACK_USER_FAULT] + sums[ENAV_PC_STACK_KERNEL_FAULT] +
			    sums[ENAV_PC_STACK_OTHER] + atomic_load(&src->stacks_missing);
	enav_promtext_single(p, "enav_profile_stack_failure_ratio", "gauge",
			     "Stack walks that failed, or whose stack was gone at drain, per "
			     "stack walk since start.",
			     captures ? (double)failures / (double)captures : 0.0);
	enav_promtext_single_u64(
	    p, "enav_profile_stacks_missing_total", "counter",
	    "Counted stacks whose frames the kernel LRU had evicted by the drain.",
	    atomic_load(&src->stacks_missing));
	enav_promtext_single_u64(p, "enav_profile_drains_total", "counter",
				 "Drains of the kernel aggregation map.",
				 atomic_load(&src->drains));
	enav_promtext_single(p, "enav_profile_drain_seconds_total", "counter",
			     "Time spent draining the kernel maps.",
			     (double)atomic_load(&src->drain_ns) / 1e9);
	enav_promtext_single_u64(p, "enav_profile_task_notifications_dropped_total", "counter",
				 "Process announcements dropped because the hand-over ring was "
				 "full (their frames may stay unsymbolized).",
				 atomic_load(&src->tasks_dropped));
	enav_promtext_single_u64(p, "enav_profile_unwind_queue_dropped_total", "counter",
				 "Announced processes whose unwind tables were not queued because "
				 "the queue was full (their stacks stay frame-pointer walks).",
				 atomic_load(&src->unwind_queue_dropped));
	enav_promtext_single_u64(p, "enav_profile_resnapshots_dropped_total", "counter",
				 "Second snapshots of new images not scheduled because the queue "
				 "was full.",
				 atomic_load(&src->resnaps_dropped));
	enav_promtext_single_u64(p, "enav_profile_batch_failures_total", "counter",
				 "Stacks lost to allocation failures while draining.",
				 atomic_load(&src->batch_failures));
	const char *l[] = {"event", src->event_name ? src->event_name : "none"};
	enav_promtext_family(p, "enav_profile_sampling_info", "gauge",
			     "The perf event the CPU profile samples.");
	enav_promtext_sample(p, "enav_profile_sampling_info", l, 1, 1);
	if (src->unwind) {
		/* Not the tables themselves: their lock is held while a
		 * tenant's binary is read. */
		pthread_mutex_lock(&src->lock);
		struct enav_unwind_stats st = src->unwind_stats;
		pthread_mutex_unlock(&src->lock);
		enav_unwind_stats_metrics(&st, p);
	}
	if (src->links)
		link_metrics(src, p);
	enav_profile_store_metrics(src->store, p);
}

enum enav_unwind_wait enav_profile_source_unwind_state(void *state, uint32_t tgid)
{
	struct profile_source *src = state;
	if (!src || !src->unwind)
		return ENAV_UNWIND_WAIT_READY;
	/* The unwinder holds unwind_lock while it reads a tenant's binary: a
	 * busy lock means a load is under way, said without waiting for it
	 * (the caller polls). */
	if (pthread_mutex_trylock(&src->unwind_lock) != 0)
		return ENAV_UNWIND_WAIT_LOADING;
	bool ready = enav_unwind_tables_has(src->unwind, tgid);
	pthread_mutex_unlock(&src->unwind_lock);
	if (ready)
		return ENAV_UNWIND_WAIT_READY;
	pthread_mutex_lock(&src->lock);
	bool queued = src->prefer_tgid == tgid && src->prefer_queued;
	pthread_mutex_unlock(&src->lock);
	return queued ? ENAV_UNWIND_WAIT_LOADING : ENAV_UNWIND_WAIT_UNSEEN;
}

void enav_profile_source_unwind_prefer(void *state, uint32_t tgid)
{
	struct profile_source *src = state;
	if (!src)
		return;
	pthread_mutex_lock(&src->lock);
	src->prefer_tgid = tgid;
	src->prefer_queued = src->unwind_current == tgid;
	/* Announced already: moved to the front of the queue. */
	for (uint32_t k = 0; k < src->unwind_len && !src->prefer_queued; k++) {
		uint32_t i = (src->unwind_head + k) % TASK_RING;
		if (src->unwind_queue[i].tgid != tgid)
			continue;
		struct pending_task t = src->unwind_queue[i];
		for (; k > 0; k--) {
			uint32_t to = (src->unwind_head + k) % TASK_RING;
			src->unwind_queue[to] = src->unwind_queue[(to + TASK_RING - 1) % TASK_RING];
		}
		src->unwind_queue[src->unwind_head] = t;
		src->prefer_queued = true;
	}
	pthread_mutex_unlock(&src->lock);
}

/* Delete every entry of a wait-start map (keyed by tid); how many. */
static size_t clear_waits(struct profile_source *src, const char *name)
{
	struct bpf_map *m = src->bpf.obj ? bpf_object__find_map_by_name(src->bpf.obj, name) : NULL;
	int fd = m ? bpf_map__fd(m) : -1;
	if (fd < 0)
		return 0;
	size_t n = 0;
	/* Bounded: a tid that blocks again while we delete is a new entry. */
	size_t budget = 2 * (size_t)bpf_map__max_entries(m) + 1;
	__u32 key, next;
	bool have = bpf_map_get_next_key(fd, NULL, &key) == 0;
	while (have && budget--) {
		have = bpf_map_get_next_key(fd, &key, &next) == 0;
		if (bpf_map_delete_elem(fd, &key) == 0)
			n++;
		key = next;
	}
	return n;
}

size_t enav_profile_source_forget_waits(void *state)
{
	struct profile_source *src = state;
	if (!src)
		return 0;
	return clear_waits(src, "enav_prof_offcpu_start") +
	       clear_waits(src, "enav_prof_futex_start");
}

bool enav_profile_source_enabled(const struct enav_config *cfg)
{
	return cfg->profiling.enabled;
}

const struct enav_source_ops enav_profile_source_ops = {
    .start = profile_start,
    .stop = profile_stop,
    .metrics = profile_metrics,
};
