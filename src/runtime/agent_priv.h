/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runner's state behind the opaque struct enav_host of runtime/host.h:
 * private to src/runtime/ (modules use the functions of host.h).
 */
#ifndef ENAV_RUNTIME_AGENT_PRIV_H
#define ENAV_RUNTIME_AGENT_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runtime/host.h"
#include "runtime/profiles.h"
#include "runtime/runner.h"

#define ENAV_MAX_MODULES       32
#define ENAV_MAX_WATCHES       32
#define ENAV_MAX_EXEC_WATCHERS 4

struct enav_module_instance {
	const struct enav_module *module;
	void *state;
	bool active;
};

struct enav_watch {
	int fd;
	enav_consume_fn consume;
	void *arg;
};

struct enav_host {
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
	/* The module being started, to check what it provides against its row
	 * (NULL outside the module table: the CLI, tests). */
	const struct enav_module *starting;
	/* Services (runtime/host.h); NULL until their provider publishes them.
	 * Profiles outlive their provider (HTTP handlers may be using them
	 * while sources stop): released after every module has stopped. */
	struct enav_profile_store *_Atomic profiles;
	const struct enav_profile_service *profile_service;
	struct enav_capture_filter_service capture_filter;
	struct enav_discovery *discovery;
	/* Request links (ADR 0021): on when profiling, its links and the
	 * network's L7 path all are; the kernel map the network and profiling
	 * objects share, and the spans that name samples. */
	bool links_on;
	int req_links_fd;
	struct enav_span_links *span_links;
	uint32_t self_pid;
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
	/* Monotonic time the capture loop last finished a round (liveness). */
	_Atomic uint64_t capture_round_mono_ns;
	/* Called on the capture thread for every process exec signal (the TLS
	 * prober learns of new binaries this way); must not block. */
	struct {
		void (*fn)(void *ctx, uint32_t pid);
		void *ctx;
	} exec_watchers[ENAV_MAX_EXEC_WATCHERS];
	_Atomic size_t n_exec_watchers;
	/* Rows that export profiles (runtime/profiles.h); changed only from
	 * sink init and fini, while no publisher runs. */
	struct enav_profile_consumer profile_consumers[ENAV_MAX_PROFILE_CONSUMERS];
	size_t n_profile_consumers;
	/* Routes rows added for the HTTP listener; changed only from sink init. */
	struct enav_http_route http_routes[ENAV_MAX_HOST_ROUTES];
	size_t n_http_routes;
	/* Held for reading while rendering metrics, for writing while a module stops. */
	pthread_rwlock_t modules_lock;
};

/* The BPF source runner: share the capture filter's maps with obj (between
 * open and load); 0 when no filter is provided. */
int enav_host_capture_filter_reuse(struct enav_host *h, struct bpf_object *obj);
/* The BPF source runner: obj's enav_req_links, when it has one, becomes the
 * shared map (links on) or a one-entry stub (off); between open and load. */
int enav_host_req_links_reuse(struct enav_host *h, struct bpf_object *obj);

#endif
