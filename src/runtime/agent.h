/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The pipeline: sources -> processors -> generators -> sinks, one capture
 * thread, modules registered statically in src/modules.c.
 * Configuration enables or disables compiled-in modules; it never loads code.
 */
#ifndef ENAV_RUNTIME_AGENT_H
#define ENAV_RUNTIME_AGENT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "platform/promtext.h"
#include "model/signal.h"
#include "probe/features.h"

struct enav_agent;
struct enav_capture_filter;
struct enav_profile_store;
struct enav_discovery;

/* Discovery runs first: it owns the capture filter maps the sources reuse. */
struct enav_discovery_ops {
	int (*init)(struct enav_agent *a, void **state, char *err, size_t errlen);
	void (*fini)(void *state);
	void (*metrics)(void *state, struct enav_promtext *p);
};

struct enav_source_ops {
	/* Load and attach; register transports with enav_agent_watch(). */
	int (*start)(struct enav_agent *a, void **state, char *err, size_t errlen);
	void (*stop)(void *state);
	void (*metrics)(void *state, struct enav_promtext *p);
};

struct enav_processor_ops {
	int (*init)(struct enav_agent *a, void **state, char *err, size_t errlen);
	/* Enrich s in place; only from caches and cheap kernel-backed lookups. */
	void (*apply)(void *state, struct enav_signal *s);
	void (*fini)(void *state);
	void (*metrics)(void *state, struct enav_promtext *p);
};

struct enav_generator_ops {
	int (*init)(struct enav_agent *a, void **state, char *err, size_t errlen);
	/* Synchronous; writes at most out_cap derived signals into out. */
	size_t (*observe)(void *state, const struct enav_signal *s, struct enav_signal **out,
			  size_t out_cap);
	/* Optional: called every capture-loop round, for interval output. */
	size_t (*tick)(void *state, uint64_t now_mono_ns, struct enav_signal **out, size_t out_cap);
	void (*fini)(void *state);
	void (*metrics)(void *state, struct enav_promtext *p);
};

struct enav_sink_ops {
	int (*init)(struct enav_agent *a, void **state, char *err, size_t errlen);
	/* Never blocks: queue or drop (and count).  Takes a reference of its own. */
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
};

extern const struct enav_module enav_modules[];
extern const size_t enav_modules_count;

/* Bounds the runner enforces on derivation (design: no unbounded cascade). */
#define ENAV_GENERATOR_MAX_OUTPUT 8 /* derived signals per generator per input */
#define ENAV_DERIVATION_MAX_DEPTH 2 /* derived-from-derived levels */
#define ENAV_MAX_MODULES	  32
#define ENAV_MAX_WATCHES	  32
#define ENAV_MAX_EXEC_WATCHERS	  4

struct enav_module_instance {
	const struct enav_module *module;
	void *state;
	bool active;
};

typedef int (*enav_consume_fn)(void *arg);

struct enav_watch {
	int fd;
	enav_consume_fn consume;
	void *arg;
};

struct enav_agent {
	struct enav_config cfg;
	struct enav_features features;
	struct enav_decisions decisions;
	struct enav_module_instance inst[ENAV_MAX_MODULES];
	size_t n_inst;
	unsigned sources_refused; /* sources this kernel refused, off */
	/* `enav probe`: sources load their programs and stop there. */
	bool load_only;
	struct enav_watch watches[ENAV_MAX_WATCHES];
	size_t n_watches;
	int epfd;
	/* Set by the profiling source once it runs.  Profiles outlive the
	 * source (HTTP handlers may be using them while sources stop); the agent
	 * frees them after every module has stopped. */
	struct enav_profile_store *_Atomic profiles;
	/* Set by discovery when it runs; NULL otherwise. */
	struct enav_capture_filter *filter;
	struct enav_discovery *discovery;
	_Atomic bool stopping;
	_Atomic bool ready;
	uint64_t start_unix_ns;
	uint64_t start_mono_ns;
	/* self-accounting */
	_Atomic uint64_t signals_total[ENAV_SIGNAL__COUNT]; /* by enav_signal_kind */
	_Atomic uint64_t signals_alloc_failed;
	_Atomic uint64_t derived_total;
	_Atomic uint64_t derived_capped; /* generator output beyond the per-input cap */
	_Atomic uint64_t capture_loop_errors;
	/* Called on the capture thread for every process exec signal (the TLS
	 * prober learns of new binaries this way); must not block. */
	struct {
		void (*fn)(void *ctx, uint32_t pid);
		void *ctx;
	} exec_watchers[ENAV_MAX_EXEC_WATCHERS];
	_Atomic size_t n_exec_watchers;
	/* Held for reading while rendering metrics, for writing while a module stops. */
	pthread_rwlock_t modules_lock;
};

/* Register an fd whose readiness means "call consume(arg)". */
int enav_agent_watch(struct enav_agent *a, int fd, enav_consume_fn consume, void *arg);
/* Register fn(ctx, pid) for every exec; from a module's start only. */
int enav_agent_watch_exec(struct enav_agent *a, void (*fn)(void *ctx, uint32_t pid), void *ctx);
/* Unregister it (a module's stop, before ctx goes away). */
void enav_agent_unwatch_exec(struct enav_agent *a, void *ctx);
/* Run processors, generators and sinks over s; consumes the caller's reference. */
void enav_agent_emit(struct enav_agent *a, struct enav_signal *s);
/* Render every module's self metrics plus the agent's own; false while stopping. */
bool enav_agent_render_metrics(struct enav_agent *a, struct enav_promtext *p);

/* `enav run`: the whole lifecycle; returns the process exit code. */
int enav_agent_main(const struct enav_config *cfg);

/* `enav probe`: each enabled eBPF source loads its programs as `enav run`
 * would with cfg (nothing attached, then unloaded); a row per feature. */
void enav_agent_load_check(const struct enav_config *cfg, const struct enav_features *f,
			   const struct enav_decisions *d, struct enav_probe_loads *out);

#endif
