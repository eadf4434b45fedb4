/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent's own Prometheus exposition (text format 0.0.4, as
 * src/platform/promtext.c writes it) turned into OTLP metrics, so every metric
 * /metrics serves is exported with the same values: counters become
 * monotonic cumulative sums (named without "_total"), gauges gauges,
 * histograms explicit-bucket histograms (cumulative, bucket counts from the
 * cumulative "le" buckets), all with the agent's start time.
 *
 * Bounded: at most ENAV_PROM_MAX_FAMILIES families and ENAV_PROM_MAX_POINTS
 * points per snapshot; what does not fit is counted, never grown into.
 */
#ifndef ENAV_EXPORTERS_OTLP_PROM_TO_OTLP_H
#define ENAV_EXPORTERS_OTLP_PROM_TO_OTLP_H

#include <stddef.h>
#include <stdint.h>

#include "platform/protobuf.h"
#include "exporters/otlp/otlp_encode.h"

#define ENAV_PROM_MAX_FAMILIES 2048
#define ENAV_PROM_MAX_POINTS   65536
#define ENAV_PROM_MAX_LABELS   16

struct enav_prom_snapshot;

/* Parse text (not NUL-terminated; nothing past len is read). NULL on
 * allocation failure; malformed lines are skipped and counted. */
struct enav_prom_snapshot *enav_prom_parse(const char *text, size_t len);
void enav_prom_snapshot_free(struct enav_prom_snapshot *s);
/* Lines skipped as malformed, and points past the caps. */
void enav_prom_snapshot_counts(const struct enav_prom_snapshot *s, uint64_t *malformed,
			       uint64_t *over_cap);

/* Encode one ExportMetricsServiceRequest of the snapshot.  Families that
 * would take the request past the writer's limit are left out whole and
 * added to *left_out (may be NULL). */
int enav_prom_encode_otlp(struct enav_pb_writer *w, const struct enav_prom_snapshot *s,
			  const struct enav_otlp_resource *resource, struct enav_otlp_scope scope,
			  uint64_t start_unix_ns, uint64_t time_unix_ns, uint64_t *left_out);

#endif
