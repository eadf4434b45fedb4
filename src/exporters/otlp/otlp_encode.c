/* SPDX-License-Identifier: Apache-2.0 */
/*
 * OTLP/protobuf request bodies for metrics, traces and logs, and the
 * partial_success of the responses.  Field numbers are those of the official
 * opentelemetry-proto schemas at commit ac2c4b5 (a copy is in
 * tests/otlp/proto/, which the unit test decodes every body against).
 * Profiles (a development signal) are in otlp_profiles.c.
 *
 * Every encoder checks its whole input first and writes nothing when it is
 * invalid (-EINVAL); a writer failure (its limit) is -E2BIG and leaves a
 * partial message that the caller discards.
 */
#include "exporters/otlp/otlp_encode.h"
#include "exporters/otlp/otlp_common.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* common/v1/common.proto */
#define ANYVALUE_STRING 1
#define ANYVALUE_BOOL	2
#define ANYVALUE_INT	3
#define ANYVALUE_DOUBLE 4
#define KEYVALUE_KEY	1
#define KEYVALUE_VALUE	2
#define SCOPE_NAME	1
#define SCOPE_VERSION	2
/* resource/v1/resource.proto */
#define RESOURCE_ATTRIBUTES 1
/* Resource{Metrics,Spans,Logs}: resource = 1, scope_* = 2;
 * Scope{Metrics,Spans,Logs}: scope = 1, items = 2.  Same numbers in all three. */
#define RESOURCE_X_RESOURCE 1
#define RESOURCE_X_SCOPE_X  2
#define SCOPE_X_SCOPE	    1
#define SCOPE_X_ITEMS	    2
/* collector/<signal>/v1: Export*ServiceRequest.resource_* = 1 */
#define REQUEST_RESOURCE_X 1
/* metrics/v1/metrics.proto */
#define METRIC_NAME	   1
#define METRIC_DESCRIPTION 2
#define METRIC_UNIT	   3
#define METRIC_GAUGE	   5
#define METRIC_SUM	   7
#define METRIC_HISTOGRAM   9
#define DATA_POINTS	   1 /* Gauge, Sum, Histogram */
#define AGG_TEMPORALITY	   2 /* Sum, Histogram */
#define SUM_IS_MONOTONIC   3
#define NDP_START	   2
#define NDP_TIME	   3
#define NDP_AS_DOUBLE	   4
#define NDP_AS_INT	   6
#define NDP_ATTRIBUTES	   7
#define HDP_START	   2
#define HDP_TIME	   3
#define HDP_COUNT	   4
#define HDP_SUM		   5
#define HDP_BUCKET_COUNTS  6
#define HDP_BOUNDS	   7
#define HDP_ATTRIBUTES	   9
/* trace/v1/trace.proto */
#define SPAN_TRACE_ID	    1
#define SPAN_SPAN_ID	    2
#define SPAN_PARENT_SPAN_ID 4
#define SPAN_NAME	    5
#define SPAN_KIND	    6
#define SPAN_START	    7
#define SPAN_END	    8
#define SPAN_ATTRIBUTES	    9
#define SPAN_STATUS	    15
#define STATUS_MESSAGE	    2
#define STATUS_CODE	    3
/* logs/v1/logs.proto */
#define LOG_TIME	  1
#define LOG_SEVERITY	  2
#define LOG_SEVERITY_TEXT 3
#define LOG_BODY	  5
#define LOG_ATTRIBUTES	  6
#define LOG_OBSERVED_TIME 11
#define LOG_EVENT_NAME	  12
/* collector/<signal>/v1: Export*ServiceResponse.partial_success = 1;
 * Export*PartialSuccess: rejected_<items> = 1 (int64), error_message = 2 */
#define RESPONSE_PARTIAL_SUCCESS 1
#define PARTIAL_REJECTED	 1
#define PARTIAL_ERROR_MESSAGE	 2

#define SEVERITY_MAX 24 /* SEVERITY_NUMBER_FATAL4 */

/* ---- common ---- */

int enav_otlp_check_kvs(const struct enav_otlp_kv *kv, size_t n)
{
	if (n && !kv)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!kv[i].key)
			return -EINVAL;
		switch (kv[i].type) {
		case ENAV_OTLP_STR:
		case ENAV_OTLP_INT:
		case ENAV_OTLP_DOUBLE:
		case ENAV_OTLP_BOOL:
			break;
		default:
			return -EINVAL;
		}
	}
	return 0;
}

void enav_otlp_put_anyvalue(struct enav_pb_writer *w, const struct enav_otlp_kv *kv)
{
	switch (kv->type) {
	case ENAV_OTLP_STR:
		enav_pb_string(w, ANYVALUE_STRING, kv->s ? kv->s : "");
		break;
	case ENAV_OTLP_INT:
		enav_pb_varint(w, ANYVALUE_INT, (uint64_t)kv->i);
		break;
	case ENAV_OTLP_DOUBLE:
		enav_pb_double(w, ANYVALUE_DOUBLE, kv->d);
		break;
	case ENAV_OTLP_BOOL:
		enav_pb_varint(w, ANYVALUE_BOOL, kv->b ? 1 : 0);
		break;
	}
}

/* Bytes of a length-delimited field of payload bytes. */
static size_t len_field_size(uint32_t field, size_t payload)
{
	return enav_pb_varint_size((uint64_t)field << 3) + enav_pb_varint_size(payload) + payload;
}

/* Bytes of kv's AnyValue; *slen is its string's length (STR). */
static size_t anyvalue_size(const struct enav_otlp_kv *kv, size_t *slen)
{
	switch (kv->type) {
	case ENAV_OTLP_STR:
		*slen = kv->s ? strlen(kv->s) : 0;
		return len_field_size(ANYVALUE_STRING, *slen);
	case ENAV_OTLP_INT:
		return 1 + enav_pb_varint_size((uint64_t)kv->i);
	case ENAV_OTLP_DOUBLE:
		return 1 + 8;
	case ENAV_OTLP_BOOL:
		break;
	}
	return 2;
}

void enav_otlp_put_kvs(struct enav_pb_writer *w, uint32_t field, const struct enav_otlp_kv *kv,
		       size_t n)
{
	/* A KeyValue's size is known before it is written: prefixed, not
	 * begun and ended, so no payload is moved once its length is known. */
	for (size_t i = 0; i < n; i++) {
		size_t klen = strlen(kv[i].key), slen = 0;
		size_t value = anyvalue_size(&kv[i], &slen);
		enav_pb_len_prefix(w, field,
				   len_field_size(KEYVALUE_KEY, klen) +
				       len_field_size(KEYVALUE_VALUE, value));
		enav_pb_bytes(w, KEYVALUE_KEY, kv[i].key, klen);
		/* Always present: a oneof member set to its default value
		 * (false, 0, "") is still set and must be on the wire. */
		enav_pb_len_prefix(w, KEYVALUE_VALUE, value);
		if (kv[i].type == ENAV_OTLP_STR)
			enav_pb_bytes(w, ANYVALUE_STRING, kv[i].s ? kv[i].s : "", slen);
		else
			enav_otlp_put_anyvalue(w, &kv[i]);
	}
}

void enav_otlp_put_resource(struct enav_pb_writer *w, const struct enav_otlp_resource *r)
{
	enav_pb_begin(w, RESOURCE_X_RESOURCE);
	enav_otlp_put_kvs(w, RESOURCE_ATTRIBUTES, r->attrs, r->n_attrs);
	enav_pb_end(w);
}

void enav_otlp_put_scope(struct enav_pb_writer *w, const struct enav_otlp_scope *s)
{
	enav_pb_begin(w, SCOPE_X_SCOPE);
	if (s->name && s->name[0])
		enav_pb_string(w, SCOPE_NAME, s->name);
	if (s->version && s->version[0])
		enav_pb_string(w, SCOPE_VERSION, s->version);
	enav_pb_end(w);
}

int enav_otlp_writer_rc(const struct enav_pb_writer *w)
{
	return w->failed ? -E2BIG : 0;
}

/* A writer the encoders accept: not failed, no open submessage. */
static int writer_ok(const struct enav_pb_writer *w)
{
	if (!w || w->depth != 0)
		return -EINVAL;
	return w->failed ? -E2BIG : 0;
}

static bool nonzero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return true;
	return false;
}

/* Packed repeated fixed64 (or double, by its bits) as one LEN field. */
static void put_packed_le64(struct enav_pb_writer *w, uint32_t field, const void *v, size_t n)
{
	uint8_t small[8 * 32], *buf = small;

	if (n == 0)
		return;
	if (n > sizeof(small) / 8) {
		if (n > SIZE_MAX / 8 || !(buf = malloc(8 * n))) {
			w->failed = true;
			return;
		}
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t u;

		memcpy(&u, (const uint8_t *)v + 8 * i, 8);
		for (int b = 0; b < 8; b++)
			buf[8 * i + (size_t)b] = (uint8_t)(u >> (8 * b));
	}
	enav_pb_bytes(w, field, buf, 8 * n);
	if (buf != small)
		free(buf);
}

/* ---- metrics ---- */

static int check_point(const struct enav_otlp_metric *m, const struct enav_otlp_point *p)
{
	int rc = enav_otlp_check_kvs(p->attrs, p->n_attrs);

	if (rc)
		return rc;
	if (m->type != ENAV_OTLP_HISTOGRAM)
		return 0;
	if ((p->n_bounds && !p->bounds) || (p->n_bounds && !p->bucket_counts))
		return -EINVAL;
	for (size_t i = 0; i < p->n_bounds; i++) {
		if (isnan(p->bounds[i]) || (i && !(p->bounds[i] > p->bounds[i - 1])))
			return -EINVAL; /* strictly ascending */
	}
	if (p->bucket_counts) {
		uint64_t total = 0;

		for (size_t i = 0; i <= p->n_bounds; i++) {
			if (p->bucket_counts[i] > UINT64_MAX - total)
				return -EINVAL;
			total += p->bucket_counts[i];
		}
		if (total != p->count)
			return -EINVAL; /* the schema: count = sum of bucket_counts */
	}
	return 0;
}

static int check_metrics(const struct enav_otlp_resource_metrics *rm, size_t n)
{
	if (n && !rm)
		return -EINVAL;
	for (size_t r = 0; r < n; r++) {
		int rc = enav_otlp_check_kvs(rm[r].resource.attrs, rm[r].resource.n_attrs);

		if (rc)
			return rc;
		if (rm[r].n_metrics && !rm[r].metrics)
			return -EINVAL;
		for (size_t i = 0; i < rm[r].n_metrics; i++) {
			const struct enav_otlp_metric *m = &rm[r].metrics[i];

			if (!m->name || !m->name[0] || (m->n_points && !m->points))
				return -EINVAL;
			switch (m->type) {
			case ENAV_OTLP_GAUGE:
				break;
			case ENAV_OTLP_SUM:
			case ENAV_OTLP_HISTOGRAM:
				if (m->temporality != ENAV_OTLP_TEMPORALITY_DELTA &&
				    m->temporality != ENAV_OTLP_TEMPORALITY_CUMULATIVE)
					return -EINVAL;
				break;
			default:
				return -EINVAL;
			}
			for (size_t k = 0; k < m->n_points; k++)
				if ((rc = check_point(m, &m->points[k])))
					return rc;
		}
	}
	return 0;
}

static void put_number_point(struct enav_pb_writer *w, const struct enav_otlp_point *p)
{
	enav_pb_begin(w, DATA_POINTS);
	if (p->start_unix_ns)
		enav_pb_fixed64(w, NDP_START, p->start_unix_ns);
	enav_pb_fixed64(w, NDP_TIME, p->time_unix_ns);
	if (p->is_int)
		enav_pb_fixed64(w, NDP_AS_INT, (uint64_t)p->i); /* sfixed64 */
	else
		enav_pb_double(w, NDP_AS_DOUBLE, p->d);
	enav_otlp_put_kvs(w, NDP_ATTRIBUTES, p->attrs, p->n_attrs);
	enav_pb_end(w);
}

static void put_histogram_point(struct enav_pb_writer *w, const struct enav_otlp_point *p)
{
	enav_pb_begin(w, DATA_POINTS);
	if (p->start_unix_ns)
		enav_pb_fixed64(w, HDP_START, p->start_unix_ns);
	enav_pb_fixed64(w, HDP_TIME, p->time_unix_ns);
	enav_pb_fixed64(w, HDP_COUNT, p->count);
	enav_pb_double(w, HDP_SUM, p->sum); /* optional: present */
	if (p->bucket_counts)
		put_packed_le64(w, HDP_BUCKET_COUNTS, p->bucket_counts, p->n_bounds + 1);
	put_packed_le64(w, HDP_BOUNDS, p->bounds, p->n_bounds);
	enav_otlp_put_kvs(w, HDP_ATTRIBUTES, p->attrs, p->n_attrs);
	enav_pb_end(w);
}

static void put_metric(struct enav_pb_writer *w, const struct enav_otlp_metric *m)
{
	enav_pb_begin(w, SCOPE_X_ITEMS);
	enav_pb_string(w, METRIC_NAME, m->name);
	if (m->description && m->description[0])
		enav_pb_string(w, METRIC_DESCRIPTION, m->description);
	if (m->unit && m->unit[0])
		enav_pb_string(w, METRIC_UNIT, m->unit);
	switch (m->type) {
	case ENAV_OTLP_GAUGE:
		enav_pb_begin(w, METRIC_GAUGE);
		for (size_t k = 0; k < m->n_points; k++)
			put_number_point(w, &m->points[k]);
		enav_pb_end(w);
		break;
	case ENAV_OTLP_SUM:
		enav_pb_begin(w, METRIC_SUM);
		for (size_t k = 0; k < m->n_points; k++)
			put_number_point(w, &m->points[k]);
		enav_pb_varint(w, AGG_TEMPORALITY, (uint64_t)m->temporality);
		if (m->monotonic)
			enav_pb_varint(w, SUM_IS_MONOTONIC, 1);
		enav_pb_end(w);
		break;
	case ENAV_OTLP_HISTOGRAM:
		enav_pb_begin(w, METRIC_HISTOGRAM);
		for (size_t k = 0; k < m->n_points; k++)
			put_histogram_point(w, &m->points[k]);
		enav_pb_varint(w, AGG_TEMPORALITY, (uint64_t)m->temporality);
		enav_pb_end(w);
		break;
	}
	enav_pb_end(w);
}

int enav_otlp_encode_metrics(struct enav_pb_writer *w, const struct enav_otlp_resource_metrics *rm,
			     size_t n)
{
	int rc = writer_ok(w);

	if (rc || (rc = check_metrics(rm, n)))
		return rc;
	for (size_t r = 0; r < n && !w->failed; r++) {
		enav_pb_begin(w, REQUEST_RESOURCE_X);
		enav_otlp_put_resource(w, &rm[r].resource);
		enav_pb_begin(w, RESOURCE_X_SCOPE_X);
		enav_otlp_put_scope(w, &rm[r].scope);
		for (size_t i = 0; i < rm[r].n_metrics; i++)
			put_metric(w, &rm[r].metrics[i]);
		enav_pb_end(w);
		enav_pb_end(w);
	}
	return enav_otlp_writer_rc(w);
}

/* ---- traces ---- */

static int check_traces(const struct enav_otlp_resource_spans *rs, size_t n)
{
	if (n && !rs)
		return -EINVAL;
	for (size_t r = 0; r < n; r++) {
		int rc = enav_otlp_check_kvs(rs[r].resource.attrs, rs[r].resource.n_attrs);

		if (rc)
			return rc;
		if (rs[r].n_spans && !rs[r].spans)
			return -EINVAL;
		for (size_t i = 0; i < rs[r].n_spans; i++) {
			const struct enav_otlp_span *s = &rs[r].spans[i];

			/* All-zero ids are invalid per the schema. */
			if (!s->name || !nonzero(s->trace_id, sizeof(s->trace_id)) ||
			    !nonzero(s->span_id, sizeof(s->span_id)))
				return -EINVAL;
			if ((int)s->kind < 0 || (int)s->kind > ENAV_OTLP_SPAN_CONSUMER)
				return -EINVAL;
			if ((int)s->status < 0 || (int)s->status > ENAV_OTLP_STATUS_ERROR)
				return -EINVAL;
			if ((rc = enav_otlp_check_kvs(s->attrs, s->n_attrs)))
				return rc;
		}
	}
	return 0;
}

static void put_span(struct enav_pb_writer *w, const struct enav_otlp_span *s)
{
	enav_pb_begin(w, SCOPE_X_ITEMS);
	enav_pb_bytes(w, SPAN_TRACE_ID, s->trace_id, sizeof(s->trace_id));
	enav_pb_bytes(w, SPAN_SPAN_ID, s->span_id, sizeof(s->span_id));
	if (nonzero(s->parent_span_id, sizeof(s->parent_span_id)))
		enav_pb_bytes(w, SPAN_PARENT_SPAN_ID, s->parent_span_id, sizeof(s->parent_span_id));
	enav_pb_string(w, SPAN_NAME, s->name);
	if (s->kind)
		enav_pb_varint(w, SPAN_KIND, (uint64_t)s->kind);
	enav_pb_fixed64(w, SPAN_START, s->start_unix_ns);
	enav_pb_fixed64(w, SPAN_END, s->end_unix_ns);
	enav_otlp_put_kvs(w, SPAN_ATTRIBUTES, s->attrs, s->n_attrs);
	if (s->status != ENAV_OTLP_STATUS_UNSET || (s->status_message && s->status_message[0])) {
		enav_pb_begin(w, SPAN_STATUS);
		if (s->status_message && s->status_message[0])
			enav_pb_string(w, STATUS_MESSAGE, s->status_message);
		if (s->status != ENAV_OTLP_STATUS_UNSET)
			enav_pb_varint(w, STATUS_CODE, (uint64_t)s->status);
		enav_pb_end(w);
	}
	enav_pb_end(w);
}

int enav_otlp_encode_traces(struct enav_pb_writer *w, const struct enav_otlp_resource_spans *rs,
			    size_t n)
{
	int rc = writer_ok(w);

	if (rc || (rc = check_traces(rs, n)))
		return rc;
	for (size_t r = 0; r < n && !w->failed; r++) {
		enav_pb_begin(w, REQUEST_RESOURCE_X);
		enav_otlp_put_resource(w, &rs[r].resource);
		enav_pb_begin(w, RESOURCE_X_SCOPE_X);
		enav_otlp_put_scope(w, &rs[r].scope);
		for (size_t i = 0; i < rs[r].n_spans; i++)
			put_span(w, &rs[r].spans[i]);
		enav_pb_end(w);
		enav_pb_end(w);
	}
	return enav_otlp_writer_rc(w);
}

/* ---- logs ---- */

static int check_logs(const struct enav_otlp_resource_logs *rl, size_t n)
{
	if (n && !rl)
		return -EINVAL;
	for (size_t r = 0; r < n; r++) {
		int rc = enav_otlp_check_kvs(rl[r].resource.attrs, rl[r].resource.n_attrs);

		if (rc)
			return rc;
		if (rl[r].n_logs && !rl[r].logs)
			return -EINVAL;
		for (size_t i = 0; i < rl[r].n_logs; i++) {
			const struct enav_otlp_log *l = &rl[r].logs[i];

			if (l->severity_number < 0 || l->severity_number > SEVERITY_MAX)
				return -EINVAL;
			if ((rc = enav_otlp_check_kvs(l->attrs, l->n_attrs)))
				return rc;
		}
	}
	return 0;
}

static void put_log(struct enav_pb_writer *w, const struct enav_otlp_log *l)
{
	enav_pb_begin(w, SCOPE_X_ITEMS);
	if (l->time_unix_ns)
		enav_pb_fixed64(w, LOG_TIME, l->time_unix_ns);
	if (l->severity_number)
		enav_pb_varint(w, LOG_SEVERITY, (uint64_t)l->severity_number);
	if (l->severity_text && l->severity_text[0])
		enav_pb_string(w, LOG_SEVERITY_TEXT, l->severity_text);
	if (l->body) {
		enav_pb_begin(w, LOG_BODY);
		enav_pb_string(w, ANYVALUE_STRING, l->body);
		enav_pb_end(w);
	}
	enav_otlp_put_kvs(w, LOG_ATTRIBUTES, l->attrs, l->n_attrs);
	if (l->observed_unix_ns)
		enav_pb_fixed64(w, LOG_OBSERVED_TIME, l->observed_unix_ns);
	if (l->event_name && l->event_name[0])
		enav_pb_string(w, LOG_EVENT_NAME, l->event_name);
	enav_pb_end(w);
}

int enav_otlp_encode_logs(struct enav_pb_writer *w, const struct enav_otlp_resource_logs *rl,
			  size_t n)
{
	int rc = writer_ok(w);

	if (rc || (rc = check_logs(rl, n)))
		return rc;
	for (size_t r = 0; r < n && !w->failed; r++) {
		enav_pb_begin(w, REQUEST_RESOURCE_X);
		enav_otlp_put_resource(w, &rl[r].resource);
		enav_pb_begin(w, RESOURCE_X_SCOPE_X);
		enav_otlp_put_scope(w, &rl[r].scope);
		for (size_t i = 0; i < rl[r].n_logs; i++)
			put_log(w, &rl[r].logs[i]);
		enav_pb_end(w);
		enav_pb_end(w);
	}
	return enav_otlp_writer_rc(w);
}

/* ---- responses ---- */

/* Copy a string field for logging: truncated to cap - 1, control bytes
 * shown as '?'. */
static void copy_message(char *dst, size_t cap, const uint8_t *p, size_t n)
{
	if (!dst || cap == 0)
		return;
	if (n > cap - 1)
		n = cap - 1;
	for (size_t i = 0; i < n; i++)
		dst[i] = p[i] < 0x20 || p[i] == 0x7f ? '?' : (char)p[i];
	dst[n] = '\0';
}

static int decode_partial(const uint8_t *p, size_t len, int64_t *rejected, char *message,
			  size_t message_cap)
{
	struct enav_pb_reader r = {p, p + len};
	struct enav_pb_field f;
	int rc;

	while ((rc = enav_pb_next(&r, &f)) == 1) {
		switch (f.number) {
		case PARTIAL_REJECTED:
			if (f.wire != ENAV_PB_VARINT || (int64_t)f.u64 < 0)
				return -EINVAL;
			*rejected = (int64_t)f.u64;
			break;
		case PARTIAL_ERROR_MESSAGE:
			if (f.wire != ENAV_PB_LEN)
				return -EINVAL;
			copy_message(message, message_cap, f.ptr, f.len);
			break;
		default: /* unknown fields of a newer schema: skipped */
			break;
		}
	}
	return rc == 0 ? 0 : -EINVAL;
}

int enav_otlp_decode_partial_success(const uint8_t *body, size_t len, int64_t *rejected,
				     char *message, size_t message_cap)
{
	int64_t rej = 0;
	int rc;

	if (message && message_cap)
		message[0] = '\0';
	if (rejected)
		*rejected = 0;
	if (len == 0)
		return 0;
	if (!body)
		return -EINVAL;
	struct enav_pb_reader r = {body, body + len};
	struct enav_pb_field f;

	while ((rc = enav_pb_next(&r, &f)) == 1) {
		if (f.number != RESPONSE_PARTIAL_SUCCESS)
			continue; /* unknown field: skipped */
		/* A repeated occurrence merges into the first (last value wins). */
		if (f.wire != ENAV_PB_LEN ||
		    decode_partial(f.ptr, f.len, &rej, message, message_cap)) {
			rc = -1;
			break;
		}
	}
	if (rc != 0) {
		if (message && message_cap)
			message[0] = '\0'; /* nothing half-read is reported */
		return -EINVAL;
	}
	if (rejected)
		*rejected = rej;
	return 0;
}
