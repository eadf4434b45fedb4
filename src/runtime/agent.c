/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/agent_priv.h"
#include "probe/privileges.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "runtime/bpf_source.h"
#include "runtime/span_links.h"
#include "enav/abi.h"
#include "version.h"

const struct enav_config *enav_host_config(const struct enav_host *h)
{
	return &h->cfg;
}

const struct enav_features *enav_host_features(const struct enav_host *h)
{
	return &h->features;
}

const struct enav_decisions *enav_host_decisions(const struct enav_host *h)
{
	return &h->decisions;
}

bool enav_host_load_only(const struct enav_host *h)
{
	return h->load_only;
}

bool enav_host_ready(const struct enav_host *h)
{
	return atomic_load(&h->ready);
}

bool enav_host_stopping(const struct enav_host *h)
{
	return atomic_load(&h->stopping);
}

uint64_t enav_host_stalled_ns(const struct enav_host *h)
{
	uint64_t last = atomic_load(&h->capture_round_mono_ns), now = enav_clock_mono_ns();
	return last && now > last ? now - last : 0;
}

uint64_t enav_host_start_unix_ns(const struct enav_host *h)
{
	return h->start_unix_ns;
}

uint32_t enav_host_self_pid(const struct enav_host *h)
{
	return h->self_pid;
}

bool enav_host_is_self_pid(const struct enav_host *h, uint32_t pid)
{
	return pid == h->self_pid;
}

int enav_host_watch(struct enav_host *a, int fd, enav_consume_fn consume, void *arg)
{
	if (a->n_watches == ENAV_MAX_WATCHES)
		return -ENOSPC;
	struct enav_watch *w = &a->watches[a->n_watches];
	*w = (struct enav_watch){fd, consume, arg};
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = w};
	if (epoll_ctl(a->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
		return -errno;
	a->n_watches++;
	return 0;
}

/* Sink inits only (before the listener's row starts): no reader meanwhile. */
int enav_host_add_http_routes(struct enav_host *a, const struct enav_http_route *routes, size_t n,
			      char *err, size_t errlen)
{
	if (n > ENAV_MAX_HOST_ROUTES - a->n_http_routes) {
		snprintf(err, errlen, "%s: more than %d routes added for the HTTP listener",
			 a->starting ? a->starting->name : "routes", ENAV_MAX_HOST_ROUTES);
		return -ENOSPC;
	}
	memcpy(a->http_routes + a->n_http_routes, routes, n * sizeof(*routes));
	a->n_http_routes += n;
	return 0;
}

size_t enav_host_http_routes(const struct enav_host *a, struct enav_http_route *out, size_t cap)
{
	size_t n = a->n_http_routes < cap ? a->n_http_routes : cap;
	memcpy(out, a->http_routes, n * sizeof(*out));
	return n;
}

static void run_derivation(struct enav_host *a, struct enav_signal *s, unsigned depth);

/*
 * The agent's own activity is dropped here, once, before any exporter sees
 * it: every signal whose process is the agent's own pid (enav_host_self_pid),
 * whatever its kind.  That is the agent's own connections and their spans
 * (OTLP and Pyroscope exports, the Kubernetes API watch, the /metrics and
 * pprof requests it serves), the DNS it resolves, and anything derived from
 * those that still carries its pid; exported, they would feed back into the
 * exporters that caused them.  Processors and generators still see them, so
 * the agent's own requests count in the RED metrics as any other process's.
 * The kernel programs that skip the agent (file_open, self_guard) compare
 * against the same pid.
 */
static void deliver(struct enav_host *a, struct enav_signal *s)
{
	if (enav_host_is_self_pid(a, s->process.pid))
		return;
	for (size_t i = 0; i < a->n_inst; i++) {
		struct enav_module_instance *mi = &a->inst[i];
		if (mi->active && mi->module->kind == ENAV_MODULE_SINK && mi->module->sink->submit)
			mi->module->sink->submit(mi->state, s);
	}
}

static void run_derivation(struct enav_host *a, struct enav_signal *s, unsigned depth)
{
	for (size_t i = 0; i < a->n_inst; i++) {
		struct enav_module_instance *mi = &a->inst[i];
		if (!mi->active || mi->module->kind != ENAV_MODULE_GENERATOR)
			continue;
		struct enav_signal *out[ENAV_GENERATOR_MAX_OUTPUT];
		size_t n =
		    mi->module->generator->observe(mi->state, s, out, ENAV_GENERATOR_MAX_OUTPUT);
		if (n > ENAV_GENERATOR_MAX_OUTPUT) {
			atomic_fetch_add(&a->derived_capped, n - ENAV_GENERATOR_MAX_OUTPUT);
			n = ENAV_GENERATOR_MAX_OUTPUT;
		}
		for (size_t k = 0; k < n; k++) {
			atomic_fetch_add(&a->derived_total, 1);
			if (out[k]->kind >= 1 && out[k]->kind < ENAV_SIGNAL__COUNT)
				atomic_fetch_add(&a->signals_total[out[k]->kind], 1);
			if (depth + 1 < ENAV_DERIVATION_MAX_DEPTH)
				run_derivation(a, out[k], depth + 1);
			deliver(a, out[k]);
			enav_signal_unref(out[k]);
		}
	}
}

/* Interval output of generators (edges), delivered like derived signals. */
static void run_ticks(struct enav_host *a, uint64_t now)
{
	for (size_t i = 0; i < a->n_inst; i++) {
		struct enav_module_instance *mi = &a->inst[i];
		if (!mi->active || mi->module->kind != ENAV_MODULE_GENERATOR ||
		    !mi->module->generator->tick)
			continue;
		struct enav_signal *out[ENAV_GENERATOR_MAX_OUTPUT];
		size_t n;
		/* A generator with more to say is asked again, a batch at a time. */
		do {
			n = mi->module->generator->tick(mi->state, now, out,
							ENAV_GENERATOR_MAX_OUTPUT);
			for (size_t k = 0; k < n && k < ENAV_GENERATOR_MAX_OUTPUT; k++) {
				atomic_fetch_add(&a->derived_total, 1);
				if (out[k]->kind >= 1 && out[k]->kind < ENAV_SIGNAL__COUNT)
					atomic_fetch_add(&a->signals_total[out[k]->kind], 1);
				deliver(a, out[k]);
				enav_signal_unref(out[k]);
			}
		} while (n == ENAV_GENERATOR_MAX_OUTPUT);
	}
}

int enav_host_watch_exec(struct enav_host *a, void (*fn)(void *ctx, uint32_t pid), void *ctx)
{
	size_t n = atomic_load(&a->n_exec_watchers);
	if (n == ENAV_MAX_EXEC_WATCHERS)
		return -1;
	a->exec_watchers[n].fn = fn;
	a->exec_watchers[n].ctx = ctx;
	atomic_store(&a->n_exec_watchers, n + 1);
	return 0;
}

void enav_host_unwatch_exec(struct enav_host *a, void *ctx)
{
	/* Module stops run after the capture loop ended: no concurrent reader. */
	size_t n = atomic_load(&a->n_exec_watchers);
	for (size_t i = 0; i < n; i++)
		if (a->exec_watchers[i].ctx == ctx) {
			a->exec_watchers[i] = a->exec_watchers[n - 1];
			atomic_store(&a->n_exec_watchers, n - 1);
			return;
		}
}

void enav_host_emit(struct enav_host *a, struct enav_signal *s)
{
	if (s->kind >= 1 && s->kind < ENAV_SIGNAL__COUNT)
		atomic_fetch_add(&a->signals_total[s->kind], 1);
	if (s->kind == ENAV_SIGNAL_PROCESS_EXEC)
		for (size_t i = 0; i < atomic_load(&a->n_exec_watchers); i++)
			a->exec_watchers[i].fn(a->exec_watchers[i].ctx, s->process.pid);
	for (size_t i = 0; i < a->n_inst; i++) {
		struct enav_module_instance *mi = &a->inst[i];
		if (mi->active && mi->module->kind == ENAV_MODULE_PROCESSOR)
			mi->module->processor->apply(mi->state, s);
	}
	run_derivation(a, s, 0);
	deliver(a, s);
	enav_signal_unref(s);
}

static const char *const service_names[ENAV_SERVICE__COUNT] = {
    [ENAV_SERVICE_CAPTURE_FILTER] = "capture filter",
    [ENAV_SERVICE_DISCOVERY] = "discovery view",
    [ENAV_SERVICE_PROFILES] = "profile store",
};

/* A provider publishes only what its row declares, so that the start-time
 * check (enav_modules_check_services) tells the truth. */
static int may_provide(struct enav_host *a, enum enav_service svc)
{
	if (a->starting && !(a->starting->provides & ENAV_SERVICE_BIT(svc))) {
		enav_warn("%s: provides the %s, which its row does not declare", a->starting->name,
			  service_names[svc]);
		return -EPERM;
	}
	return 0;
}

int enav_host_provide_capture_filter(struct enav_host *a,
				     const struct enav_capture_filter_service *svc)
{
	int rc = may_provide(a, ENAV_SERVICE_CAPTURE_FILTER);
	if (!rc)
		a->capture_filter = *svc;
	return rc;
}

void enav_host_withdraw_capture_filter(struct enav_host *a)
{
	a->capture_filter = (struct enav_capture_filter_service){0};
}

struct enav_capture_filter *enav_host_capture_filter(struct enav_host *a)
{
	return a->capture_filter.filter;
}

int enav_host_capture_filter_reuse(struct enav_host *a, struct bpf_object *obj)
{
	if (!a->capture_filter.filter)
		return 0;
	return a->capture_filter.reuse(a->capture_filter.filter, obj);
}

int enav_host_provide_discovery(struct enav_host *a, struct enav_discovery *d)
{
	int rc = may_provide(a, ENAV_SERVICE_DISCOVERY);
	if (!rc)
		a->discovery = d;
	return rc;
}

void enav_host_withdraw_discovery(struct enav_host *a)
{
	a->discovery = NULL;
}

struct enav_discovery *enav_host_discovery(struct enav_host *a)
{
	return a->discovery;
}

int enav_host_provide_profiles(struct enav_host *a, struct enav_profile_store *store,
			       const struct enav_profile_service *svc)
{
	int rc = may_provide(a, ENAV_SERVICE_PROFILES);
	if (rc)
		return rc;
	a->profile_service = svc; /* before the store is visible to readers */
	atomic_store(&a->profiles, store);
	return 0;
}

struct enav_profile_store *enav_host_profiles(struct enav_host *a)
{
	return atomic_load(&a->profiles);
}

struct enav_profile_store *enav_host_profile_service(struct enav_host *a,
						     const struct enav_profile_service **svc)
{
	/* The table was stored before the store was published. */
	struct enav_profile_store *s = atomic_load(&a->profiles);
	*svc = s ? a->profile_service : NULL;
	return s;
}

/* After every module has stopped: no HTTP handler can be reading it. */
static void release_profiles(struct enav_host *a)
{
	struct enav_profile_store *s = atomic_exchange(&a->profiles, NULL);
	if (s)
		a->profile_service->release(s);
	enav_span_links_free(a->span_links);
	a->span_links = NULL;
	if (a->links_on && a->req_links_fd >= 0)
		close(a->req_links_fd);
	a->links_on = false;
	a->req_links_fd = -1;
}

struct enav_span_links *enav_host_span_links(struct enav_host *h)
{
	return h->links_on ? h->span_links : NULL;
}

int enav_host_req_links_reuse(struct enav_host *a, struct bpf_object *obj)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "enav_req_links");
	if (!m)
		return 0;
	if (!a->links_on)
		return bpf_map__set_max_entries(m, 1);
	return bpf_map__reuse_fd(m, a->req_links_fd);
}

/* Links need both ends: the profiler that takes samples and the L7 path
 * that sees requests.  Off when either is; a map the kernel refuses turns
 * them off by name, the rest runs. */
static void prepare_links(struct enav_host *a)
{
	const struct enav_config *c = &a->cfg;
	a->links_on = false;
	a->req_links_fd = -1;
	if (!c->profiling.enabled || !c->profiling.links || !c->network.enabled ||
	    !c->network.l7.enabled)
		return;
	a->span_links = enav_span_links_new(c->profiling.links_max_spans);
	int fd = a->span_links ? bpf_map_create(BPF_MAP_TYPE_LRU_HASH, "enav_req_links",
						sizeof(__u32), sizeof(struct enav_req_link),
						c->profiling.links_max_threads, NULL)
			       : -ENOMEM;
	if (fd < 0) {
		enav_warn("profiling.links: off, the request links map cannot be made: %s",
			  strerror(fd == -1 ? errno : -fd));
		enav_span_links_free(a->span_links);
		a->span_links = NULL;
		return;
	}
	a->req_links_fd = fd;
	a->links_on = true;
}

/* The order modules start in: discovery, sinks, processors, generators, sources. */
static const enum enav_module_kind start_order[] = {
    ENAV_MODULE_DISCOVERY, ENAV_MODULE_SINK,   ENAV_MODULE_PROCESSOR,
    ENAV_MODULE_GENERATOR, ENAV_MODULE_SOURCE,
};

static size_t start_rank(const struct enav_module *m)
{
	for (size_t i = 0; i < sizeof(start_order) / sizeof(start_order[0]); i++)
		if (start_order[i] == m->kind)
			return i;
	return 0;
}

int enav_modules_check_services(const struct enav_module *mods, size_t n,
				const struct enav_config *cfg, char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		const struct enav_module *m = &mods[i];
		unsigned all = 0, before = 0;
		for (size_t j = 0; j < n; j++) {
			const struct enav_module *p = &mods[j];
			all |= p->provides;
			if (j == i || !p->enabled(cfg))
				continue;
			size_t rp = start_rank(p), rm = start_rank(m);
			if (rp < rm || (rp == rm && j < i))
				before |= p->provides;
		}
		for (int svc = 0; svc < ENAV_SERVICE__COUNT; svc++) {
			unsigned bit = ENAV_SERVICE_BIT(svc);
			if ((m->wants & bit) && !(all & bit)) {
				snprintf(err, errlen,
					 "module %s wants the %s, which no module provides",
					 m->name, service_names[svc]);
				return -1;
			}
			if ((m->needs & bit) && m->enabled(cfg) && !(before & bit)) {
				snprintf(err, errlen,
					 "module %s needs the %s, which no enabled module started "
					 "before it provides",
					 m->name, service_names[svc]);
				return -1;
			}
		}
	}
	return 0;
}

void enav_host_count_alloc_failure(struct enav_host *a)
{
	atomic_fetch_add(&a->signals_alloc_failed, 1);
}

static uint64_t read_rss_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "re");
	unsigned long long size = 0, resident = 0;
	if (f) {
		if (fscanf(f, "%llu %llu", &size, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static size_t exposition_cap(const struct enav_host *a)
{
	size_t cap = ENAV_METRICS_BASE_BYTES;
	for (size_t i = 0; i < a->n_inst; i++) {
		const struct enav_module_instance *mi = &a->inst[i];
		if (mi->active && mi->module->exposition_bound)
			cap += mi->module->exposition_bound(&a->cfg);
		if (cap >= ENAV_METRICS_CEILING_BYTES)
			return ENAV_METRICS_CEILING_BYTES;
	}
	return cap;
}

bool enav_host_render_metrics(struct enav_host *a, struct enav_promtext *p)
{
	/* try: a stopping module holds the write lock and may be waiting on us. */
	if (atomic_load(&a->stopping) || pthread_rwlock_tryrdlock(&a->modules_lock) != 0)
		return false;
	if (p->growable && p->hard_cap < exposition_cap(a))
		p->hard_cap = exposition_cap(a);
	const char *exec_hook =
	    a->decisions.exec_hook == ENAV_EXEC_HOOK_TP_BTF ? "tp_btf" : "raw_tp";
	const char *bl[] = {"version",	 ENAV_VERSION,
			    "revision",	 ENAV_GIT_REV,
			    "transport", enav_transport_choice_name(a->decisions.transport),
			    "hooks",	 enav_hook_choice_name(a->decisions.hooks),
			    "exec_hook", exec_hook};
	enav_promtext_family(p, "enav_build_info", "gauge",
			     "Build and runtime choices of this agent (value is always 1).");
	enav_promtext_sample_u64(p, "enav_build_info", bl, sizeof(bl) / sizeof(bl[0]) / 2, 1);
	enav_promtext_single(p, "enav_start_time_seconds", "gauge", "Agent start, Unix seconds.",
			     (double)a->start_unix_ns / 1e9);
	enav_promtext_single(p, "enav_uptime_seconds", "gauge", "Seconds since the agent started.",
			     (double)(enav_clock_mono_ns() - a->start_mono_ns) / 1e9);
	enav_promtext_single_u64(p, "enav_resident_memory_bytes", "gauge",
				 "Agent resident set size.", read_rss_bytes());
	enav_promtext_family(p, "enav_signals_total", "counter", "Signals emitted by kind.");
	for (int k = 1; k < ENAV_SIGNAL__COUNT; k++) {
		const char *l[] = {"kind", enav_signal_kind_name(k)};
		enav_promtext_sample_u64(p, "enav_signals_total", l, 1,
					 atomic_load(&a->signals_total[k]));
	}
	enav_promtext_single_u64(p, "enav_signals_in_flight", "gauge",
				 "Signals allocated and not yet released by every sink.",
				 enav_signal_live_count());
	struct enav_signal_pool_stats ps;
	enav_signal_pool_stats(&ps);
	enav_promtext_single_u64(p, "enav_signal_pool_reused_total", "counter",
				 "Signals allocated from a free block of the signal pool.",
				 ps.reused);
	enav_promtext_single_u64(p, "enav_signal_pool_allocated_total", "counter",
				 "Signal blocks the pool took from the C library.", ps.allocated);
	enav_promtext_single_u64(
	    p, "enav_signal_pool_released_total", "counter",
	    "Signal blocks given back to the C library (a free list at its cap, or too large).",
	    ps.released);
	enav_promtext_single_u64(p, "enav_signal_pool_free_bytes", "gauge",
				 "Bytes of free signal blocks the pool holds.", ps.free_bytes);
	enav_promtext_single_u64(p, "enav_signal_alloc_failures_total", "counter",
				 "Signals lost because memory could not be allocated.",
				 atomic_load(&a->signals_alloc_failed));
	enav_promtext_single_u64(p, "enav_derived_signals_total", "counter",
				 "Signals derived by generators.", atomic_load(&a->derived_total));
	enav_promtext_single_u64(p, "enav_derived_signals_capped_total", "counter",
				 "Derived signals discarded by the per-input output cap.",
				 atomic_load(&a->derived_capped));
	enav_promtext_single(p, "enav_capture_loop_round_age_seconds", "gauge",
			     "Time since the capture loop last finished a round (/healthz fails "
			     "past 15 s).",
			     (double)enav_host_stalled_ns(a) / 1e9);
	enav_promtext_single_u64(p, "enav_capture_loop_errors_total", "counter",
				 "epoll_wait failures in the capture loop (other than EINTR).",
				 atomic_load(&a->capture_loop_errors));
	enav_bpf_sources_render(p);
	enav_promtext_family(p, "enav_module_enabled", "gauge",
			     "Compiled-in modules and whether configuration enabled them.");
	for (size_t i = 0; i < a->n_inst; i++) {
		static const char *const kinds[] = {"discovery", "source", "processor", "generator",
						    "sink"};
		const struct enav_module *m = a->inst[i].module;
		const char *l[] = {"module", m->name, "stage", kinds[m->kind]};
		enav_promtext_sample_u64(p, "enav_module_enabled", l, 2, a->inst[i].active);
	}
	for (size_t i = 0; i < a->n_inst; i++) {
		struct enav_module_instance *mi = &a->inst[i];
		if (!mi->active)
			continue;
		const struct enav_module *m = mi->module;
		switch (m->kind) {
		case ENAV_MODULE_DISCOVERY:
			m->discovery->metrics(mi->state, p);
			break;
		case ENAV_MODULE_SOURCE:
			if (m->source->metrics)
				m->source->metrics(mi->state, p);
			break;
		case ENAV_MODULE_PROCESSOR:
			m->processor->metrics(mi->state, p);
			break;
		case ENAV_MODULE_GENERATOR:
			m->generator->metrics(mi->state, p);
			break;
		case ENAV_MODULE_SINK:
			if (m->sink->metrics)
				m->sink->metrics(mi->state, p);
			break;
		}
	}
	pthread_rwlock_unlock(&a->modules_lock);
	return true;
}

/* libbpf speaks through our logger at debug level: no dumps on the console.
 * One libbpf message can span many lines (a refused program's verifier log
 * is one message of up to megabytes), so it is formatted whole and logged a
 * line at a time: cutting it at the first newline lost the verifier's reason. */
static bool any_source_active(const struct enav_host *a)
{
	for (size_t i = 0; i < a->n_inst; i++)
		if (a->inst[i].module->kind == ENAV_MODULE_SOURCE && a->inst[i].active)
			return true;
	return false;
}

static int start_modules(struct enav_host *a, enum enav_module_kind kind, char *err, size_t errlen)
{
	for (size_t i = 0; i < a->n_inst; i++) {
		struct enav_module_instance *mi = &a->inst[i];
		const struct enav_module *m = mi->module;
		if (m->kind != kind || !m->enabled(&a->cfg))
			continue;
		int rc = 0;
		a->starting = m;
		switch (kind) {
		case ENAV_MODULE_DISCOVERY:
			rc = m->discovery->init(a, &mi->state, err, errlen);
			break;
		case ENAV_MODULE_SOURCE:
			rc = m->source->start(a, &mi->state, err, errlen);
			break;
		case ENAV_MODULE_PROCESSOR:
			rc = m->processor->init(a, &mi->state, err, errlen);
			break;
		case ENAV_MODULE_GENERATOR:
			rc = m->generator->init(a, &mi->state, err, errlen);
			break;
		case ENAV_MODULE_SINK:
			rc = m->sink->init(a, &mi->state, err, errlen);
			break;
		}
		a->starting = NULL;
		/* Active even on failure so teardown releases what was half built. */
		mi->active = true;
		if (rc && kind == ENAV_MODULE_SOURCE && enav_feature_refused(m->name, "all") &&
		    !(m->config_key && enav_config_explicitly_on(&a->cfg, m->config_key))) {
			/* Real nodes run many kernels: one that refuses this source
			 * loses this source, not the agent. */
			enav_warn("%s source is off: %s", m->name, err);
			m->source->stop(mi->state);
			mi->state = NULL;
			mi->active = false;
			err[0] = '\0';
			a->sources_refused++;
			continue;
		}
		if (rc) {
			if (!err[0])
				snprintf(err, errlen, "%s: start failed: %s", m->name,
					 strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static void stop_modules(struct enav_host *a, enum enav_module_kind kind, uint64_t deadline)
{
	for (size_t i = a->n_inst; i-- > 0;) {
		struct enav_module_instance *mi = &a->inst[i];
		const struct enav_module *m = mi->module;
		if (m->kind != kind || !mi->active)
			continue;
		pthread_rwlock_wrlock(&a->modules_lock);
		mi->active = false;
		pthread_rwlock_unlock(&a->modules_lock);
		switch (kind) {
		case ENAV_MODULE_DISCOVERY:
			m->discovery->fini(mi->state);
			break;
		case ENAV_MODULE_SOURCE:
			m->source->stop(mi->state);
			break;
		case ENAV_MODULE_PROCESSOR:
			m->processor->fini(mi->state);
			break;
		case ENAV_MODULE_GENERATOR:
			m->generator->fini(mi->state);
			break;
		case ENAV_MODULE_SINK:
			m->sink->fini(mi->state, deadline);
			break;
		}
		mi->state = NULL;
	}
}

static void capture_loop(struct enav_host *a, int sigfd)
{
	struct epoll_event events[ENAV_MAX_WATCHES + 1];
	uint64_t last_refresh = enav_clock_mono_ns();
	atomic_store(&a->capture_round_mono_ns, last_refresh);
	while (!atomic_load(&a->stopping)) {
		int n = epoll_wait(a->epfd, events, ENAV_MAX_WATCHES + 1,
				   (int)a->cfg.kernel.poll_interval_ms);
		if (n < 0 && errno != EINTR) {
			atomic_fetch_add(&a->capture_loop_errors, 1);
			continue;
		}
		for (int i = 0; i < n; i++) {
			if (events[i].data.ptr == NULL) {
				struct signalfd_siginfo si;
				if (read(sigfd, &si, sizeof(si)) == sizeof(si))
					enav_info("received signal %u, shutting down",
						  si.ssi_signo);
				atomic_store(&a->stopping, true);
			}
		}
		/* Drain every transport each round: with wakeup batching the kernel
		 * may not have woken us, and the poll interval bounds the latency. */
		for (size_t w = 0; w < a->n_watches; w++)
			a->watches[w].consume(a->watches[w].arg);
		uint64_t now = enav_clock_mono_ns();
		run_ticks(a, now);
		if (now - last_refresh > 1000000000ull) {
			enav_clock_refresh();
			last_refresh = now;
		}
		atomic_store(&a->capture_round_mono_ns, enav_clock_mono_ns());
	}
}

/* Everything loaded and attached: keep only what running needs (fail closed:
 * an agent that cannot drop does not run with more than it documents). */
static int drop_privileges(const struct enav_config *cfg, char *err, size_t errlen)
{
	struct enav_privileges need;
	enav_privileges_needed(cfg, &need);
	char e[200];
	if (enav_privileges_drop(need.runtime, e, sizeof(e)) != 0) {
		snprintf(err, errlen, "cannot drop capabilities after start: %s", e);
		return -1;
	}
	char kept[256], why[1024];
	enav_caps_format(enav_caps_effective(), kept, sizeof(kept));
	enav_caps_reasons_format(cfg, why, sizeof(why));
	enav_info("capabilities after start: %s (every other one dropped from every thread%s); "
		  "kept: %s",
		  kept,
		  enav_privileges_locked()
		      ? ", the bounding set cut to them, no_new_privs and securebits locked"
		      : "; no CAP_SETPCAP to lock the bounding set, no_new_privs set",
		  why);
	return 0;
}

static void copy_row(void *ctx, const char *source, const char *feature,
		     enum enav_feature_state state, const char *program, const char *detail)
{
	struct enav_probe_loads *out = ctx;
	if (out->n == ENAV_PROBE_LOAD_ROWS)
		return;
	struct enav_probe_load_row *r = &out->rows[out->n++];
	snprintf(r->source, sizeof(r->source), "%s", source);
	snprintf(r->feature, sizeof(r->feature), "%s", feature);
	snprintf(r->state, sizeof(r->state), "%s", enav_feature_state_name(state));
	snprintf(r->program, sizeof(r->program), "%s", program);
	snprintf(r->detail, sizeof(r->detail), "%s", detail);
}

void enav_agent_load_check(const struct enav_config *cfg, const struct enav_features *f,
			   const struct enav_decisions *d, struct enav_probe_loads *out)
{
	static struct enav_host host; /* large */
	struct enav_host *a = &host;
	a->cfg = *cfg;
	a->features = *f;
	a->decisions = *d;
	a->load_only = true;
	a->self_pid = (uint32_t)getpid();
	a->epfd = -1;
	prepare_links(a);
	pthread_rwlock_init(&a->modules_lock, NULL);
	enav_bpf_log_install();
	out->n = 0;
	for (size_t i = 0; i < enav_modules_count; i++) {
		const struct enav_module *m = &enav_modules[i];
		/* The eBPF sources, the ones a kernel can refuse, carry their key. */
		if (m->kind != ENAV_MODULE_SOURCE || !m->config_key || !m->enabled(cfg))
			continue;
		void *state = NULL;
		char err[512] = "";
		a->starting = m;
		int rc = m->source->start(a, &state, err, sizeof(err));
		a->starting = NULL;
		if (rc && !enav_feature_refused(m->name, "all") && out->n < ENAV_PROBE_LOAD_ROWS) {
			/* Not the kernel's verdict (privileges, memory): say so. */
			struct enav_probe_load_row *r = &out->rows[out->n++];
			memset(r, 0, sizeof(*r));
			snprintf(r->source, sizeof(r->source), "%s", m->name);
			snprintf(r->feature, sizeof(r->feature), "all");
			snprintf(r->state, sizeof(r->state), "error");
			snprintf(r->detail, sizeof(r->detail), "%s", err);
		}
		m->source->stop(state);
	}
	release_profiles(a);
	enav_features_each(copy_row, out);
}

int enav_agent_main(const struct enav_config *cfg)
{
	static struct enav_host host; /* large; lives for the process */
	struct enav_host *a = &host;
	char err[512] = "";
	a->cfg = *cfg;
	a->self_pid = (uint32_t)getpid();
	pthread_rwlock_init(&a->modules_lock, NULL);
	enav_log_set_level(cfg->log_level);
	enav_bpf_log_install();
	a->start_unix_ns = enav_clock_unix_ns();
	a->start_mono_ns = enav_clock_mono_ns();
	enav_clock_refresh();
	/* Profiles anyone could replace or read before they are exported. */
	if (cfg->profiling.enabled &&
	    enav_refuse_world_writable(cfg->profiling.spool_dir, "profiling.spool.dir", err,
				       sizeof(err)) != 0) {
		fprintf(stderr, "enav: %s\n", err);
		return 2;
	}

	enav_features_probe(&a->features);
	if (enav_features_decide(&a->features, cfg, &a->decisions, err, sizeof(err)) != 0) {
		fprintf(stderr, "enav: %s\n", err);
		return 1;
	}
	enav_info("transport %s (%s); hooks %s (%s); payload_hook %s (%s)",
		  enav_transport_choice_name(a->decisions.transport), a->decisions.transport_reason,
		  enav_hook_choice_name(a->decisions.hooks), a->decisions.hooks_reason,
		  enav_payload_hook_name(a->decisions.payload_hook),
		  a->decisions.payload_hook_reason);
	prepare_links(a);

	/* Signals go to a signalfd on the capture thread; block them everywhere first. */
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	int sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	a->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (sigfd < 0 || a->epfd < 0) {
		fprintf(stderr, "enav: cannot set up the event loop: %s\n", strerror(errno));
		return 1;
	}
	struct epoll_event sev = {.events = EPOLLIN, .data.ptr = NULL};
	epoll_ctl(a->epfd, EPOLL_CTL_ADD, sigfd, &sev);

	for (size_t i = 0; i < enav_modules_count && i < ENAV_MAX_MODULES; i++)
		a->inst[a->n_inst++] = (struct enav_module_instance){&enav_modules[i], NULL, false};

	/* Discovery first: the capture filter's control word and verdicts must be
	 * in place before any program attaches.  Then consumers, so the first
	 * event finds somewhere to go. */
	int rc = enav_modules_check_services(enav_modules, a->n_inst, cfg, err, sizeof(err));
	if (!rc)
		rc = start_modules(a, ENAV_MODULE_DISCOVERY, err, sizeof(err));
	if (!rc)
		rc = start_modules(a, ENAV_MODULE_SINK, err, sizeof(err));
	if (!rc)
		rc = start_modules(a, ENAV_MODULE_PROCESSOR, err, sizeof(err));
	if (!rc)
		rc = start_modules(a, ENAV_MODULE_GENERATOR, err, sizeof(err));
	if (!rc)
		rc = start_modules(a, ENAV_MODULE_SOURCE, err, sizeof(err));
	if (!rc && a->sources_refused > 0 && !any_source_active(a)) {
		snprintf(err, sizeof(err), "this kernel refused every enabled source (see above)");
		rc = -1;
	}
	if (!rc && cfg->drop_capabilities)
		rc = drop_privileges(cfg, err, sizeof(err));
	if (!rc) {
		atomic_store(&a->ready, true);
		enav_info("ready");
		capture_loop(a, sigfd);
	} else {
		fprintf(stderr, "enav: %s\n", err);
	}

	atomic_store(&a->stopping, true);
	uint64_t deadline = enav_clock_mono_ns() + (uint64_t)cfg->shutdown_timeout_ms * 1000000ull;
	stop_modules(a, ENAV_MODULE_SOURCE, deadline);
	stop_modules(a, ENAV_MODULE_GENERATOR, deadline);
	stop_modules(a, ENAV_MODULE_PROCESSOR, deadline);
	stop_modules(a, ENAV_MODULE_SINK, deadline);
	stop_modules(a, ENAV_MODULE_DISCOVERY, deadline);
	/* After the sinks: no HTTP handler can be using the profiles any more. */
	release_profiles(a);
	close(sigfd);
	close(a->epfd);
	return rc ? 1 : 0;
}

struct enav_host *enav_host_new(const struct enav_config *cfg)
{
	struct enav_host *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->cfg = *cfg;
	h->self_pid = (uint32_t)getpid();
	h->epfd = -1;
	h->req_links_fd = -1;
	pthread_rwlock_init(&h->modules_lock, NULL);
	return h;
}

int enav_host_probe(struct enav_host *h, char *err, size_t errlen)
{
	enav_features_probe(&h->features);
	if (enav_features_decide(&h->features, &h->cfg, &h->decisions, err, errlen) != 0)
		return -1;
	prepare_links(h);
	return 0;
}

int enav_host_open_loop(struct enav_host *h)
{
	h->epfd = epoll_create1(EPOLL_CLOEXEC);
	return h->epfd < 0 ? -errno : 0;
}

void enav_host_poll(struct enav_host *h, int timeout_ms)
{
	struct epoll_event ev[8];
	epoll_wait(h->epfd, ev, 8, timeout_ms);
	for (size_t w = 0; w < h->n_watches; w++)
		h->watches[w].consume(h->watches[w].arg);
}

void enav_host_free(struct enav_host *h)
{
	if (!h)
		return;
	release_profiles(h);
	if (h->epfd >= 0)
		close(h->epfd);
	pthread_rwlock_destroy(&h->modules_lock);
	free(h);
}
