/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Pull CPU profiles from Go services that serve net/http/pprof, filter them
 * to the operator's own code (src/features/profiling/pprof_filter.h, with each
 * binary's own build info), and hand them to the host's profile consumers
 * (the spool and Pyroscope rows, runtime/profiles.h), naming neither.
 *
 * Targets: Go processes of this node (their executable carries Go build
 * info) listening on a TCP port of the host network namespace that answers
 * 200 on /debug/pprof/, plus profiling.pull.targets.  Bounded by
 * construction: one capture at a time, profiling.pull.seconds each, at most
 * max_per_round per round_ms, targets visited least recently profiled first
 * (round robin, never ranked by consumption).  A non-200 answer (Go runs one
 * CPU profile at a time: the owner runs their own profiler) puts the target
 * on hold for hold_ms; it is never retried sooner.
 *
 * A row of its own (`pprof_pull`, a sink of no signal), after the spool and
 * Pyroscope in the table: sinks stop in reverse table order, so the pull
 * stops before the consumers it feeds.
 */
#ifndef ENAV_FEATURES_PROFILING_PPROF_PULL_H
#define ENAV_FEATURES_PROFILING_PPROF_PULL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "runtime/host.h"

struct enav_promtext;
struct enav_pprof_pull;

/* The row: profiling on and profiling.pull.enabled. */
extern const struct enav_sink_ops enav_pprof_pull_sink_ops;
bool enav_pprof_pull_enabled(const struct enav_config *cfg);

/* Starts the pull thread; what it fetches goes to host's profile consumers. */
struct enav_pprof_pull *enav_pprof_pull_start(const struct enav_config *cfg,
					      struct enav_host *host);
/* Abort a capture in flight and stop. */
void enav_pprof_pull_stop(struct enav_pprof_pull *p);
void enav_pprof_pull_metrics(struct enav_pprof_pull *p, struct enav_promtext *out);

/* Exposed for tests and tests/fuzz/fuzz_proc_net_tcp.c: parse one line of
 * /proc/net/tcp{,6} (NUL-terminated, without its newline or with it); true
 * for a listening socket, with its port, inode and whether it accepts
 * loopback connections on IPv4 (0.0.0.0 or 127.0.0.1) or IPv6 (:: or ::1).
 * Fields must be in the kernel's exact format; out is written only on true. */
struct enav_listen_socket {
	uint64_t inode;
	uint16_t port;
	bool v4_loopback, v6_loopback;
};
bool enav_parse_proc_net_tcp_line(const char *line, bool ipv6, struct enav_listen_socket *out);
/* Every loopback listener of one /proc/net/tcp{,6} stream, up to cap; a line
 * longer than 511 bytes or holding a NUL is skipped whole. */
size_t enav_read_proc_net_tcp(FILE *f, bool ipv6, struct enav_listen_socket *out, size_t cap);

#endif
