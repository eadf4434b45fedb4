/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Signals as OTLP spans: an application operation (span signal) with the
 * semantic conventions' attributes of its protocol family, a closed or
 * failed TCP connection as a "tcp accept"/"tcp connect" span.  A batch is
 * one ExportTraceServiceRequest with one ResourceSpans per workload, whose
 * resource is the node's attributes plus the workload's (process, container,
 * pod).  Runs on the traces worker's thread; an encoder is used by one
 * thread at a time.
 */
#ifndef ENAV_EXPORTERS_OTLP_OTLP_SPANS_H
#define ENAV_EXPORTERS_OTLP_OTLP_SPANS_H

#include <stddef.h>

#include "model/signal.h"
#include "exporters/otlp/otlp_encode.h"
#include "exporters/otlp/otlp_env.h"

#define ENAV_OTLP_SCOPE_NAME "e-navigator"

/* The workload a signal belongs to, as OpenTelemetry resource attributes. */
struct enav_otlp_workload_res {
	struct enav_otlp_kv kv[ENAV_OTLP_RES_MAX + 8];
};

/* The node's attributes (node[0..n_node), at most ENAV_OTLP_RES_MAX) then
 * the workload's, into wr; returns how many. */
size_t enav_otlp_workload_resource(const struct enav_otlp_kv *node, size_t n_node,
				   const struct enav_signal *s, struct enav_otlp_workload_res *wr);

/* An encoder for one worker: the node's attributes (node[0..n_node), at
 * most ENAV_OTLP_RES_MAX) and the scope encoded once, and scratch kept
 * from one batch to the next.  NULL when out of memory. */
struct enav_otlp_span_encoder;
struct enav_otlp_span_encoder *enav_otlp_span_encoder_new(const struct enav_otlp_kv *node,
							  size_t n_node);
void enav_otlp_span_encoder_free(struct enav_otlp_span_encoder *e);
/* Append items[0..n) (span, tcp.close and tcp.failed signals) to w as the
 * resource_spans of one request.  0, -E2BIG (w's limit), -ENOMEM, -EINVAL. */
int enav_otlp_span_encoder_run(struct enav_otlp_span_encoder *e, struct enav_pb_writer *w,
			       void *const *items, size_t n);

#endif
