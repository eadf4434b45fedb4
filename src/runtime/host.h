/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host contract: everything a module (discovery, a source, a processor,
 * a generator, an exporter) may know of the runner.  A module sees an opaque
 * struct enav_host; the runner's state behind it is private to src/runtime/.
 *
 * The pipeline: sources -> processors -> generators -> sinks, one capture
 * thread, modules registered statically in src/modules.c.  Configuration
 * enables or disables compiled-in modules; it never loads code.
 *
 * What one module publishes for others goes through a typed service (the
 * capture filter, the discovery view, the profile store): its row declares
 * what it provides and what it needs, and the runner checks at start that
 * every need is provided by a row that starts before it.
 */
#ifndef ENAV_RUNTIME_HOST_H
#define ENAV_RUNTIME_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "platform/http.h"
#include "platform/promtext.h"
#include "model/signal.h"
#include "probe/features.h"

struct enav_host;
struct bpf_object;

/* Discovery runs first: it owns the capture filter maps the sources reuse. */
struct enav_discovery_ops {
	int (*init)(struct enav_host *h, void **state, char *err, size_t errlen);
	void (*fini)(void *state);
	void (*metrics)(void *state, struct enav_promtext *p);
};

struct enav_source_ops {
	/* Load and attach; register transports with enav_host_watch(). */
	int (*start)(struct enav_host *h, void **state, char *err, size_t errlen);
	void (*stop)(void *state);
	void (*metrics)(void *state, struct enav_promtext *p);
};

struct enav_processor_ops {
	int (*init)(struct enav_host *h, void **state, char *err, size_t errlen);
	/* Enrich s in place; only from caches and cheap kernel-backed lookups. */
	void (*apply)(void *state, struct enav_signal *s);
	void (*fini)(void *state);
	void (*metrics)(void *state, struct enav_promtext *p);
};

struct enav_generator_ops {
	int (*init)(struct enav_host *h, void **state, char *err, size_t errlen);
	/* Synchronous; writes at most out_cap derived signals into out. */
	size_t (*observe)(void *state, const struct enav_signal *s, struct enav_signal **out,
			  size_t out_cap);
	/* Optional: called every capture-loop round, for interval output. */
	size_t (*tick)(void *state, uint64_t now_mono_ns, struct enav_signal **out, size_t out_cap);
	void (*fini)(void *state);
	void (*metrics)(void *state, struct enav_promtext *p);
};

struct enav_sink_ops {
	int (*init)(struct enav_host *h, void **state, char *err, size_t errlen);
	/* Never blocks: queue or drop (and count).  Takes a reference of its own.
	 * The agent's own signals never reach it (enav_host_is_self_pid).  NULL
	 * for a sink of profiles alone (they come through the host's profile
	 * consumers, not as signals). */
	void (*submit)(void *state, struct enav_signal *s);
	/* Flush what is queued until the deadline, then release everything. */
	void (*fini)(void *state, uint64_t deadline_mono_ns);
	void (*metrics)(void *state, struct enav_promtext *p);
};

enum enav_module_kind {
	ENAV_MODULE_DISCOVERY,
	ENAV_MODULE_SOURCE,
	ENAV_MODULE_PROCESSOR,
	ENAV_MODULE_GENERATOR,
	ENAV_MODULE_SINK,
};

/* What modules publish to one another, one bit each in a row's masks. */
enum enav_service {
	ENAV_SERVICE_CAPTURE_FILTER, /* discovery's shared kernel maps */
	ENAV_SERVICE_DISCOVERY,	     /* discovery's cgroup and workload view */
	ENAV_SERVICE_PROFILES,	     /* the profiling source's store */
	ENAV_SERVICE__COUNT,
};
#define ENAV_SERVICE_BIT(s) (1u << (s))

struct enav_module {
	const char *name;
	enum enav_module_kind kind;
	bool (*enabled)(const struct enav_config *cfg);
	union {
		const struct enav_discovery_ops *discovery;
		const struct enav_source_ops *source;
		const struct enav_processor_ops *processor;
		const struct enav_generator_ops *generator;
		const struct enav_sink_ops *sink;
	};
	/* Sources: the key that switches it on.  A source this kernel refuses
	 * goes off alone, unless the file set this key (then the start fails). */
	const char *config_key;
	/* Services (ENAV_SERVICE_BIT masks): what the module publishes from its
	 * start, what it cannot start without (provided by a row that starts
	 * before it), and what it uses when some row provides it and does
	 * without otherwise (looked up when used, so start order is free). */
	unsigned provides;
	unsigned needs;
	unsigned wants;
	/* Optional: the most bytes of exposition the module's metrics take with
	 * this configuration, for those whose size follows a configured cap of
	 * label sets (the rest fit in ENAV_METRICS_BASE_BYTES). */
	size_t (*exposition_bound)(const struct enav_config *cfg);
};

/* The table, in src/modules.c. */
extern const struct enav_module enav_modules[];
extern const size_t enav_modules_count;

/* Bounds the runner enforces on derivation (design: no unbounded cascade). */
#define ENAV_GENERATOR_MAX_OUTPUT 8 /* derived signals per generator per input */
#define ENAV_DERIVATION_MAX_DEPTH 2 /* derived-from-derived levels */

/* The configuration the agent runs with (never changes while it runs). */
const struct enav_config *enav_host_config(const struct enav_host *h);
/* What the probe found, and what it chose from that. */
const struct enav_features *enav_host_features(const struct enav_host *h);
const struct enav_decisions *enav_host_decisions(const struct enav_host *h);
/* `enav probe`: sources load their programs and stop there. */
bool enav_host_load_only(const struct enav_host *h);
/* Ready: every module started.  Stopping: the agent is shutting down. */
bool enav_host_ready(const struct enav_host *h);
bool enav_host_stopping(const struct enav_host *h);
/* How long the capture loop has been in one round (0 before it runs): a
 * round drains the kernel buffers and runs the ticks, so a round that does
 * not end is a stalled agent, whatever else still answers.  /healthz fails
 * past ENAV_HOST_STALL_NS. */
uint64_t enav_host_stalled_ns(const struct enav_host *h);
#define ENAV_HOST_STALL_NS (15ull * 1000000000ull)
/* Agent start time, Unix nanoseconds (0 when not run by `enav run`). */
uint64_t enav_host_start_unix_ns(const struct enav_host *h);

/* The agent's own process: signals of this pid never reach a sink, and
 * kernel programs that skip the agent compare against it. */
uint32_t enav_host_self_pid(const struct enav_host *h);
bool enav_host_is_self_pid(const struct enav_host *h, uint32_t pid);

typedef int (*enav_consume_fn)(void *arg);
/* Register an fd whose readiness means "call consume(arg)". */
int enav_host_watch(struct enav_host *h, int fd, enav_consume_fn consume, void *arg);
/* Register fn(ctx, pid) for every exec; from a module's start only.  Called
 * on the capture thread; must not block. */
int enav_host_watch_exec(struct enav_host *h, void (*fn)(void *ctx, uint32_t pid), void *ctx);
/* Unregister it (a module's stop, before ctx goes away). */
void enav_host_unwatch_exec(struct enav_host *h, void *ctx);
/* Run processors, generators and sinks over s; consumes the caller's reference. */
void enav_host_emit(struct enav_host *h, struct enav_signal *s);
/* Count a signal lost because memory could not be allocated. */
void enav_host_count_alloc_failure(struct enav_host *h);
/*
 * Render every module's self metrics plus the agent's own; false while
 * stopping.  A growable p gets its hard cap here, under the modules' lock:
 * a base for the families of fixed size (node, self-accounting), plus each
 * running module's exposition_bound, at most the ceiling.  Memory is taken
 * as the text grows, not up front.
 */
#define ENAV_METRICS_BASE_BYTES	   ((size_t)16 << 20)
#define ENAV_METRICS_CEILING_BYTES ((size_t)64 << 20)
bool enav_host_render_metrics(struct enav_host *h, struct enav_promtext *p);

/*
 * Services.  A provider calls enav_host_provide_* from its start (its row
 * must declare the service); a user looks the service up when it needs it
 * and gets NULL when no enabled row provides it.
 */

/* Capture filter: the maps a program object shares before load. */
struct enav_capture_filter;
struct enav_capture_filter_service {
	struct enav_capture_filter *filter;
	/* Make obj use the shared maps; between open and load. */
	int (*reuse)(const struct enav_capture_filter *f, struct bpf_object *obj);
};
int enav_host_provide_capture_filter(struct enav_host *h,
				     const struct enav_capture_filter_service *svc);
/* Withdrawn by the provider's stop, before the filter goes away. */
void enav_host_withdraw_capture_filter(struct enav_host *h);
struct enav_capture_filter *enav_host_capture_filter(struct enav_host *h);

/* Request links (ADR 0021): the spans the L7 tracker emitted for requests a
 * profile sample named, by (socket, first TCP sequence), for the profile
 * drain to name those samples with.  NULL when profiling.links is off, or
 * profiling or the network's L7 path is. */
struct enav_span_links;
struct enav_span_links *enav_host_span_links(struct enav_host *h);

/* Discovery view: cgroups, workloads (discovery/discovery.h reads it). */
struct enav_discovery;
int enav_host_provide_discovery(struct enav_host *h, struct enav_discovery *d);
void enav_host_withdraw_discovery(struct enav_host *h);
struct enav_discovery *enav_host_discovery(struct enav_host *h);

/* Profile store (runtime/profiles.h is the reading side).  It outlives its
 * provider: HTTP handlers may be reading it while sources stop, so the
 * runner calls svc->release after every module has stopped. */
struct enav_profile_store;
struct enav_profile_service;
int enav_host_provide_profiles(struct enav_host *h, struct enav_profile_store *store,
			       const struct enav_profile_service *svc);
/* NULL until the provider runs; safe from any thread. */
struct enav_profile_store *enav_host_profiles(struct enav_host *h);
/* The same, with the service table to read it through (*svc is set when
 * the store is non-NULL): what a reader outside the provider's folder uses. */
struct enav_profile_store *enav_host_profile_service(struct enav_host *h,
						     const struct enav_profile_service **svc);

/* HTTP routes a row serves on the agent's listener (the pprof routes): added
 * from the row's init, before the listener's row starts (an earlier row of
 * the same kind); the listener mounts them all, and stops before the rows
 * that added them (sinks stop in reverse table order).  0, or -ENOSPC with
 * err set past ENAV_MAX_HOST_ROUTES. */
#define ENAV_MAX_HOST_ROUTES 8
int enav_host_add_http_routes(struct enav_host *h, const struct enav_http_route *routes, size_t n,
			      char *err, size_t errlen);
/* The listener: copies up to cap of them into out; how many. */
size_t enav_host_http_routes(const struct enav_host *h, struct enav_http_route *out, size_t cap);

/* Profile consumers (runtime/profiles.h).  A row that exports profiles
 * registers from its init and unregisters from its fini: sinks start before
 * and stop after every source, so no publisher runs while the list changes.
 * A publisher whose consumers must stop first (the pull) is a later row:
 * sinks stop in reverse table order.  0, or -ENOSPC (err set) past
 * ENAV_MAX_PROFILE_CONSUMERS. */
struct enav_profile_consumer;
struct enav_profile_interval;
struct enav_pulled_profile;
#define ENAV_MAX_PROFILE_CONSUMERS 4
int enav_host_consume_profiles(struct enav_host *h, const struct enav_profile_consumer *c,
			       char *err, size_t errlen);
void enav_host_unconsume_profiles(struct enav_host *h, void *ctx);
/* Hand an interval (with the store it was drained into) or a pulled
 * profile to every consumer; nothing happens without consumers. */
void enav_host_publish_interval(struct enav_host *h, const struct enav_profile_interval *iv);
void enav_host_publish_pulled(struct enav_host *h, const struct enav_pulled_profile *p);

#endif
