/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The runner as the top layer (src/main.c, src/cli/, tests) drives it:
 * `enav run`, `enav probe`, and a host of its own for a command or a test
 * that runs one module outside the module table.
 */
#ifndef ENAV_RUNTIME_RUNNER_H
#define ENAV_RUNTIME_RUNNER_H

#include "runtime/host.h"

/* `enav run`: the whole lifecycle; returns the process exit code. */
int enav_agent_main(const struct enav_config *cfg);

/* `enav probe`: each enabled eBPF source loads its programs as `enav run`
 * would with cfg (nothing attached, then unloaded); a row per feature. */
void enav_agent_load_check(const struct enav_config *cfg, const struct enav_features *f,
			   const struct enav_decisions *d, struct enav_probe_loads *out);

/* Before anything starts (`enav run` calls it on the module table): every
 * need of a row enabled by cfg is provided by an enabled row that starts
 * before it (rows start by kind: discovery, sinks, processors, generators,
 * sources; in table order within a kind), and every service a row wants is
 * provided by some row (else the table has a typo).  0, or -1 with err set. */
int enav_modules_check_services(const struct enav_module *mods, size_t n,
				const struct enav_config *cfg, char *err, size_t errlen);

/* A host with cfg and nothing else: no probe, no event loop, no services.
 * NULL when out of memory. */
struct enav_host *enav_host_new(const struct enav_config *cfg);
/* Probe this kernel and decide as `enav run` does; 0, or -1 with err set. */
int enav_host_probe(struct enav_host *h, char *err, size_t errlen);
/* An event loop for enav_host_watch; 0 or -errno. */
int enav_host_open_loop(struct enav_host *h);
/* Wait up to timeout_ms for a watch to be ready, then call consume on every
 * watch, ready or not: a transport that batches its wakeups (the ring
 * buffer's) may hold records without waking anyone, and the capture loop
 * drains every transport each round for the same reason. */
void enav_host_poll(struct enav_host *h, int timeout_ms);
/* Release the profile store (if provided), the loop and h. */
void enav_host_free(struct enav_host *h);

#endif
