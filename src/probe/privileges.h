/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Least privilege: which capabilities the configuration needs to start
 * (load and attach programs, open perf events, mount tracefs) and which it
 * keeps afterwards, and the drop itself.  Capabilities are per thread on
 * Linux, so the drop reaches every thread of the process, not only the
 * caller (docs/deployment.md#capabilities).
 */
#ifndef ENAV_PROBE_PRIVILEGES_H
#define ENAV_PROBE_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

struct enav_privileges {
	uint64_t start;	  /* bit per capability number (linux/capability.h) */
	uint64_t runtime; /* kept after start */
};

/* One capability the configuration needs, the feature that needs it and
 * why: runtime ones are kept after start, the others only for starting. */
struct enav_cap_reason {
	int cap;
	bool runtime;
	const char *feature;
	const char *why;
};
#define ENAV_CAP_REASONS_MAX 16
/* Every reason cfg gives (a capability may have several); the count, which
 * may exceed cap (only cap are written). */
size_t enav_privileges_reasons(const struct enav_config *cfg, struct enav_cap_reason *out,
			       size_t cap);
/* "CAP_BPF for agent (why); CAP_SYS_PTRACE for profiling (why); ...": the
 * runtime reasons, for the start log line and `enav probe`. */
size_t enav_caps_reasons_format(const struct enav_config *cfg, char *buf, size_t cap);
/* What cfg needs.  start always includes runtime. */
void enav_privileges_needed(const struct enav_config *cfg, struct enav_privileges *out);
/* "CAP_BPF,CAP_PERFMON" (empty set: "none"); returns the length. */
size_t enav_caps_format(uint64_t set, char *buf, size_t cap);
/* The calling thread's effective set. */
uint64_t enav_caps_effective(void);
/* Drop everything outside keep from every thread: effective, permitted and
 * inheritable sets, and the ambient set; set no_new_privs, and when the
 * caller holds CAP_SETPCAP also cut the bounding set to keep and lock the
 * securebits (SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP): nothing the process
 * execs or does later regains a capability.  0, or -1 with a reason. */
int enav_privileges_drop(uint64_t keep, char *err, size_t errlen);
/* The calling thread's securebits are locked and no_new_privs is set. */
bool enav_privileges_locked(void);
/* Refuse a file or directory anyone may write (what: its role, for the
 * message).  0, or -1 with a reason; a missing path is not refused here. */
int enav_refuse_world_writable(const char *path, const char *what, char *err, size_t errlen);

#endif
