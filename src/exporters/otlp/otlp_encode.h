/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OTLP/protobuf request bodies: ExportMetricsServiceRequest,
 * ExportTraceServiceRequest, ExportLogsServiceRequest and (development
 * signal, kept to its own function so it can follow the spec)
 * ExportProfilesServiceRequest, from plain C descriptions; and the
 * partial_success of the responses.  Field numbers from the official
 * opentelemetry-proto schemas; the wire format is src/platform/protobuf.h.
 */
#ifndef ENAV_EXPORTERS_OTLP_OTLP_ENCODE_H
#define ENAV_EXPORTERS_OTLP_OTLP_ENCODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/protobuf.h"

enum enav_otlp_value_type {
	ENAV_OTLP_STR = 0,
	ENAV_OTLP_INT,
	ENAV_OTLP_DOUBLE,
	ENAV_OTLP_BOOL,
};

struct enav_otlp_kv {
	const char *key;
	enum enav_otlp_value_type type;
	const char *s;
	int64_t i;
	double d;
	bool b;
};

struct enav_otlp_resource {
	const struct enav_otlp_kv *attrs;
	size_t n_attrs;
};

struct enav_otlp_scope {
	const char *name; /* "e-navigator" */
	const char *version;
};

/* ---- metrics ---- */
enum enav_otlp_metric_type { ENAV_OTLP_GAUGE, ENAV_OTLP_SUM, ENAV_OTLP_HISTOGRAM };
/* AggregationTemporality values of the schema. */
#define ENAV_OTLP_TEMPORALITY_DELTA	 1
#define ENAV_OTLP_TEMPORALITY_CUMULATIVE 2

struct enav_otlp_point {
	const struct enav_otlp_kv *attrs;
	size_t n_attrs;
	uint64_t start_unix_ns, time_unix_ns;
	bool is_int; /* gauge/sum value: as_int, else as_double */
	int64_t i;
	double d;
	/* histogram */
	uint64_t count;
	double sum;
	const double *bounds; /* explicit_bounds, ascending */
	size_t n_bounds;
	const uint64_t *bucket_counts; /* n_bounds + 1 */
};

struct enav_otlp_metric {
	const char *name, *description, *unit;
	enum enav_otlp_metric_type type;
	bool monotonic;	 /* sums */
	int temporality; /* sums and histograms */
	const struct enav_otlp_point *points;
	size_t n_points;
};

struct enav_otlp_resource_metrics {
	struct enav_otlp_resource resource;
	struct enav_otlp_scope scope;
	const struct enav_otlp_metric *metrics;
	size_t n_metrics;
};

/* ---- traces ---- */
/* Span.SpanKind and Status.StatusCode values of the schema. */
enum enav_otlp_span_kind {
	ENAV_OTLP_SPAN_INTERNAL = 1,
	ENAV_OTLP_SPAN_SERVER = 2,
	ENAV_OTLP_SPAN_CLIENT = 3,
	ENAV_OTLP_SPAN_PRODUCER = 4,
	ENAV_OTLP_SPAN_CONSUMER = 5,
};
enum enav_otlp_status {
	ENAV_OTLP_STATUS_UNSET = 0,
	ENAV_OTLP_STATUS_OK = 1,
	ENAV_OTLP_STATUS_ERROR = 2
};

struct enav_otlp_span {
	uint8_t trace_id[16];
	uint8_t span_id[8];
	uint8_t parent_span_id[8]; /* all zero = root */
	const char *name;
	enum enav_otlp_span_kind kind;
	uint64_t start_unix_ns, end_unix_ns;
	const struct enav_otlp_kv *attrs;
	size_t n_attrs;
	enum enav_otlp_status status;
	const char *status_message; /* NULL = none */
};

struct enav_otlp_resource_spans {
	struct enav_otlp_resource resource;
	struct enav_otlp_scope scope;
	const struct enav_otlp_span *spans;
	size_t n_spans;
};

/* ---- logs ---- */
struct enav_otlp_log {
	uint64_t time_unix_ns, observed_unix_ns;
	int severity_number; /* SeverityNumber: 9 INFO, 13 WARN, 17 ERROR */
	const char *severity_text;
	const char *body; /* string body */
	const struct enav_otlp_kv *attrs;
	size_t n_attrs;
	const char *event_name; /* NULL = none */
};

struct enav_otlp_resource_logs {
	struct enav_otlp_resource resource;
	struct enav_otlp_scope scope;
	const struct enav_otlp_log *logs;
	size_t n_logs;
};

/* Each writes one complete request message into w (which the caller
 * initialised); 0 or -errno (-E2BIG when w's limit was reached). */
int enav_otlp_encode_metrics(struct enav_pb_writer *w, const struct enav_otlp_resource_metrics *rm,
			     size_t n);
int enav_otlp_encode_traces(struct enav_pb_writer *w, const struct enav_otlp_resource_spans *rs,
			    size_t n);
int enav_otlp_encode_logs(struct enav_pb_writer *w, const struct enav_otlp_resource_logs *rl,
			  size_t n);

/* ---- profiles (v1development) ---- */
/* Each pprof document (its tables, or its encoding gzip'd or raw) becomes one ResourceProfiles with
 * its resource, holding one OTLP Profile per pprof sample type (a v1development Profile has a
 * single sample_type), with an attribute per sample for each pprof label; every table goes into the
 * request's shared dictionary.  The only function that knows the development schema
 * (otlp_profiles.c).  0, -EINVAL (a document that is not a pprof: err names it), -E2BIG, -ENOMEM.
 */
struct enav_pprof_decoded;
struct enav_otlp_profile_in {
	struct enav_otlp_resource resource;
	const uint8_t *pprof;
	size_t pprof_len;
	/* The document as tables (enav_pprof_tables: a profile the agent built
	 * itself); when set, pprof is not read. */
	const struct enav_pprof_decoded *tables;
};
int enav_otlp_encode_profiles(struct enav_pb_writer *w, struct enav_otlp_scope scope,
			      const struct enav_otlp_profile_in *profiles, size_t n, char *err,
			      size_t errlen);

/* ---- responses ---- */
/* partial_success of an Export*ServiceResponse: rejected items (field 1)
 * and error_message (field 2).  0 ok (absent = 0 rejected), -EINVAL malformed. */
int enav_otlp_decode_partial_success(const uint8_t *body, size_t len, int64_t *rejected,
				     char *message, size_t message_cap);

#endif
