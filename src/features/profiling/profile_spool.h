/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Profile spool: after every profiling interval, one gzip'd pprof per kind
 * for the whole node is written to profiling.spool.dir as
 * enav-<kind>-<UTC time>-<seq>.pb.gz (written to a temporary name, then
 * renamed, so a reader never sees half a file).  Files older than max_age_s
 * are removed, then the oldest until the spool fits max_bytes; only files of
 * that name pattern are ever touched.
 *
 * A row of its own (`profile_spool`, a sink of profiles alone): it reads the
 * store only through runtime/profiles.h, and gets the intervals and the
 * pulled profiles as a profile consumer of the host.
 */
#ifndef ENAV_FEATURES_PROFILING_PROFILE_SPOOL_H
#define ENAV_FEATURES_PROFILING_PROFILE_SPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/host.h"
#include "runtime/profiles.h"

struct enav_profile_spool;
struct enav_promtext;

/* The row: profiling on and profiling.spool.dir set. */
extern const struct enav_sink_ops enav_profile_spool_sink_ops;
bool enav_profile_spool_enabled(const struct enav_config *cfg);

struct enav_profile_spool *enav_profile_spool_open(const char *dir, uint64_t max_bytes,
						   uint32_t max_age_s, char *err, size_t errlen);
/* kinds: bit per enum enav_profile_kind to write. */
void enav_profile_spool_interval(struct enav_profile_spool *sp, struct enav_profile_store *store,
				 const struct enav_profile_service *svc, uint32_t kinds,
				 uint64_t from_mono_ns, uint64_t to_mono_ns, uint64_t to_unix_ns);
/* Write one profile built elsewhere (a pulled one) as enav-<kind>-...pb.gz. */
void enav_profile_spool_write(struct enav_profile_spool *sp, const char *kind, const uint8_t *body,
			      size_t len, uint64_t unix_ns);
void enav_profile_spool_close(struct enav_profile_spool *sp);
void enav_profile_spool_metrics(struct enav_profile_spool *sp, struct enav_promtext *p);

/* Exposed for tests: apply the age and size caps now. */
void enav_profile_spool_enforce(struct enav_profile_spool *sp, uint64_t now_unix_s);

#endif
