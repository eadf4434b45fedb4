/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent's own metrics, as the modules describe them to /metrics
 * (src/platform/promtext.h), turned into OTLP metrics, so every metric
 * /metrics serves is exported with the same values.  The exporter feeds a
 * snapshot through the writer's sink mode (no text in between); text (format
 * 0.0.4) is parsed only for a module's cached block and by the tests: counters become
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

#include "platform/promtext.h"
#include "platform/protobuf.h"
#include "exporters/otlp/otlp_encode.h"

#define ENAV_PROM_MAX_FAMILIES 2048
#define ENAV_PROM_MAX_POINTS   65536
#define ENAV_PROM_MAX_LABELS   16

struct enav_prom_snapshot;

/* An empty snapshot that holds at most about max_bytes of heap: past it
 * samples are left out and counted (over_cap).  NULL on allocation
 * failure. */
struct enav_prom_snapshot *enav_prom_snapshot_new(size_t max_bytes);
/* Feed a snapshot from a sink-mode writer (enav_promtext_init_sink with the
 * snapshot as context): the modules' families and samples as they made
 * them, without text in between; a raw block is parsed.  Samples the text
 * parser would refuse (a name or label past its cap) are counted as
 * malformed. */
extern const struct enav_promtext_sink enav_prom_snapshot_sink;
/* The heap the snapshot holds, near enough for a queue's byte budget. */
size_t enav_prom_snapshot_bytes(const struct enav_prom_snapshot *s);
/* Parse text into s (as enav_prom_parse). */
void enav_prom_parse_into(struct enav_prom_snapshot *s, const char *text, size_t len);
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
