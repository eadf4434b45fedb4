/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The profile store as a service: what its readers (the pprof HTTP routes,
 * the OTLP profiles signal, the spool and the Pyroscope exporter) may ask of
 * it, through the table its provider publishes with
 * enav_host_provide_profiles.  The store itself is
 * src/features/profiling/profile_store.h.
 *
 * And what flows between the profile rows without naming one another: the
 * profiling source publishes each interval it closes, the pprof pull each
 * profile it fetched, and the rows that export profiles (spool, Pyroscope,
 * OTLP) consume them (runtime/host.h: enav_host_consume_profiles).
 */
#ifndef ENAV_RUNTIME_PROFILES_H
#define ENAV_RUNTIME_PROFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "enav/abi.h"

struct enav_profile_store;
struct enav_pprof_decoded; /* model/pprof.h */

struct enav_profile_filter {
	uint32_t pid;	       /* 0 = any */
	const char *container; /* container id or a prefix of it (>= 4 chars), NULL = any */
	const char *cgroup;    /* cgroup path prefix, or a cgroup id in decimal, NULL = any */
	/* Samples linked to one trace, or to one span (server or client side):
	 * profiling.links, ADR 0021. */
	bool has_trace_id, has_span_id;
	uint8_t trace_id[16], span_id[8];
};

enum enav_profile_format {
	ENAV_PROFILE_FORMAT_PPROF,	/* gzip'd profile.proto */
	ENAV_PROFILE_FORMAT_FOLDED,	/* "comm;root;...;leaf value" lines */
	ENAV_PROFILE_FORMAT_FLAMEGRAPH, /* SVG */
};

struct enav_profile_query {
	enum enav_profile_kind kind;
	uint64_t from_mono_ns, to_mono_ns; /* batches whose drain window lies inside */
	struct enav_profile_filter filter;
	enum enav_profile_format format;
	/* Only the operator's own code: third-party frames become one
	 * "[redacted]" per run, mapping file names and build ids are dropped
	 * (src/features/profiling/pprof_filter.h has the rules).  Every export sets it. */
	bool redact;
	uint64_t matched; /* out: records the window and filter admitted */
};

/* The workload of a process (from its latest record's cgroup): fills what is
 * known, "" otherwise.  false when the store has no record of tgid. */
struct enav_profile_workload {
	char container_id[65];
	char pod[256], namespace_[256], service[256];
};
struct enav_profile_service {
	/* Drain now (through the source), returning the time covered. */
	int (*drain)(struct enav_profile_store *s, uint64_t *mono_ns);
	/* A profile request's window: wait up to ms; false when the store
	 * closed meanwhile (the agent is stopping). */
	bool (*sleep)(struct enav_profile_store *s, uint32_t ms);
	/* Build one profile; *out is malloc'd.  0 or -errno. */
	int (*build)(struct enav_profile_store *s, struct enav_profile_query *q, uint8_t **out,
		     size_t *out_len);
	/* The same pprof profile as its tables, never encoded (the OTLP
	 * profiles signal re-encodes them); free with enav_pprof_decoded_free. */
	int (*build_tables)(struct enav_profile_store *s, struct enav_profile_query *q,
			    struct enav_pprof_decoded *out);
	bool (*workload)(struct enav_profile_store *s, uint32_t tgid,
			 struct enav_profile_workload *out);
	/* Calls fn once per tgid with records of kind in the window. */
	void (*each_pid)(struct enav_profile_store *s, enum enav_profile_kind kind,
			 uint64_t from_mono_ns, uint64_t to_mono_ns,
			 void (*fn)(void *ctx, uint32_t tgid, const char *comm), void *ctx);
	const char *(*kind_name)(enum enav_profile_kind k);
	/* Frees the store: the runner, after every module has stopped. */
	void (*release)(struct enav_profile_store *s);
};

/* One interval the profiler closed (its drain is done): every consumer gets
 * the same one, so every profile export shares one cadence. */
struct enav_profile_interval {
	uint64_t from_mono_ns, to_mono_ns;
	uint64_t from_unix_ns, to_unix_ns;
	uint32_t kinds; /* bit per enum enav_profile_kind this kernel profiles */
};

/* A profile fetched from an application, already filtered to the operator's
 * own code.  body is the publisher's: a consumer that keeps it copies it. */
struct enav_pulled_profile {
	const char *kind;  /* "cpu" */
	const char *units; /* of its samples: "samples" */
	uint32_t pid;	   /* 0 when the owner is not known */
	const char *comm;
	uint64_t from_unix_ns, to_unix_ns;
	const uint8_t *body; /* gzip'd profile.proto */
	size_t len;
};

/* A row that exports profiles.  Called on the publisher's thread (the
 * profiler's, the pull's): queue or write, never wait on a network. */
struct enav_profile_consumer {
	void (*interval)(void *ctx, struct enav_profile_store *s,
			 const struct enav_profile_service *svc,
			 const struct enav_profile_interval *iv);
	void (*pulled)(void *ctx, const struct enav_pulled_profile *p);
	void *ctx;
};

#endif
