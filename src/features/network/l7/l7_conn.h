/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The connection tracker between the kernel's payload fragments
 * (ENAV_EVENT_L7_DATA) and the protocol parsers: one bounded table of
 * connections keyed by the kernel's socket id, least recently used evicted
 * first, each with its parser state, its role and the next TCP sequence
 * number expected on each stream (a mismatch is a gap the parser resyncs
 * from).  Every operation a parser completes becomes a span signal with
 * trace ids (see enav_l7_span_ids).  Capture thread only, except metrics.
 */
#ifndef ENAV_FEATURES_NETWORK_L7_L7_CONN_H
#define ENAV_FEATURES_NETWORK_L7_L7_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/promtext.h"
#include "model/signal.h"
#include "enav/abi.h"
#include "features/network/l7/l7.h"
#include "runtime/span_links.h"

struct enav_l7_tracker_config {
	uint32_t max_connections;
	uint32_t idle_timeout_ms;
	uint32_t protocols; /* bit p set: enum enav_l7_protocol p enabled */
	struct enav_l7_options options;
	/* Request links (ADR 0021): where spans of sampled requests go; NULL
	 * when profiling.links is off. */
	struct enav_span_links *links;
};

struct enav_l7_tracker;

/* Takes ownership of each span signal it is handed (refs = 1). */
typedef void (*enav_l7_emit_fn)(void *ctx, struct enav_signal *s);

struct enav_l7_tracker *enav_l7_tracker_new(const struct enav_l7_tracker_config *cfg,
					    enav_l7_emit_fn emit, void *ctx);
void enav_l7_tracker_free(struct enav_l7_tracker *t);

/* One fragment: the raw event head and its tail (the captured payload, then
 * e->n_marks struct enav_l7_mark, as the decoder validated them).  A call
 * with marks is fed to the parser as several fragments: captured bytes,
 * uncaptured runs, and the frame headers the kernel found inside them. */
void enav_l7_tracker_data(struct enav_l7_tracker *t, const struct enav_l7_event *e,
			  const uint8_t *payload);
/* The kernel reported the connection closed: finish its parser. */
void enav_l7_tracker_close(struct enav_l7_tracker *t, uint64_t sock_id);
/* Finish connections idle longer than the timeout. */
void enav_l7_tracker_expire(struct enav_l7_tracker *t, uint64_t now_boot_ns);
void enav_l7_tracker_metrics(struct enav_l7_tracker *t, struct enav_promtext *p);

/*
 * Trace ids of a span.  With a valid traceparent: its trace id, the header's
 * parent id as parent.  Otherwise, when the request's TCP sequence number is
 * known, ids are a keyed hash of (client address and port, server address and
 * port, request sequence, HTTP/2 stream): the client and the server of one
 * request compute the same trace id, and the server span's parent is the
 * client span, with no state shared between them.  The server names that
 * parent only when the client is local (client_local), since otherwise no
 * such span exists.  Without a sequence number the ids are random.
 */
void enav_l7_span_ids(struct enav_span_signal *span, const struct enav_net_signal *net,
		      bool client_local);

#endif
