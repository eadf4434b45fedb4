/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kafka wire protocol parser.
 *
 * Framing: every message on either stream is a BE32 size followed by that
 * many bytes.  Of each message at most KAFKA_HDR_CAP bytes after the size
 * are copied (enough for the request header, the transactional id, acks and
 * the first topic name, or for a response's correlation id and first
 * partition's error code); the rest (record batches) is skipped by size,
 * captured or not.
 *
 * Requests: header v1 (api_key, api_version, correlation_id, client_id as a
 * nullable INT16 string) or, for an API's flexible versions, header v2 (the
 * same plus tagged fields); ControlledShutdown v0 alone uses header v0.
 * operation = the API's name ("api_<n>" for a key outside the table);
 * target = the first topic name of a Produce (v0-v12) or Fetch (v0-v12)
 * request, in both the classic (INT16 strings, INT32 array counts) and the
 * flexible (compact strings, uvarint counts, tagged fields) encodings.
 * Produce v13+ and Fetch v13+ name topics by UUID: their target is "".
 * A Produce with acks = 0 gets no response: it becomes a MESSAGE at once.
 *
 * Responses carry only the correlation id (and, for flexible versions except
 * ApiVersions, tagged fields) in their header.  Kafka answers in order on a
 * connection, so a response is matched against the pending FIFO by its
 * correlation id: requests queued before the match lost their responses
 * (a gap) and are emitted with response_seen = false.  Error code: Produce
 * and Fetch, the first partition's (Fetch v7+: the top-level one when it is
 * not 0, or when no partition is listed); APIs whose response starts with
 * error_code, or with throttle_time_ms then error_code, that one; others
 * have none (status "", status_code -1).  status = the code as text,
 * error = code != 0.
 *
 * Not handled: SASL tokens sent unframed by SaslHandshake v0 (they fail the
 * header checks: parse error and resync), compressed or record-level data
 * (never read), topic ids (never resolved to names).
 */
#include "features/network/l7/l7_common.h"
#include "features/network/l7/l7_stream.h"

#include <stdio.h>
#include <string.h>

#define KAFKA_HDR_CAP	 512
#define KAFKA_MAX_MSG	 (512u << 20) /* larger sizes are not Kafka framing */
#define KAFKA_MIN_REQ	 8	      /* api_key, api_version, correlation_id */
#define KAFKA_MIN_RESP	 4	      /* correlation_id */
#define KAFKA_MAX_KEY	 255	      /* beyond: not a request header (resync) */
#define KAFKA_MAX_VER	 127
#define KAFKA_NO_FLEX	 0x7fff
#define KAFKA_PRODUCE	 0
#define KAFKA_FETCH	 1
#define KAFKA_APIVERSION 18

/* Names and first flexible version of API keys 0..87. */
static const struct {
	const char *name;
	int16_t flex;
} kafka_apis[] = {
    {"Produce", 9},
    {"Fetch", 12},
    {"ListOffsets", 6},
    {"Metadata", 9},
    {"LeaderAndIsr", 4},
    {"StopReplica", 2},
    {"UpdateMetadata", 6},
    {"ControlledShutdown", 3},
    {"OffsetCommit", 8},
    {"OffsetFetch", 6},
    {"FindCoordinator", 3},
    {"JoinGroup", 6},
    {"Heartbeat", 4},
    {"LeaveGroup", 4},
    {"SyncGroup", 4},
    {"DescribeGroups", 5},
    {"ListGroups", 3},
    {"SaslHandshake", KAFKA_NO_FLEX},
    {"ApiVersions", 3},
    {"CreateTopics", 5},
    {"DeleteTopics", 4},
    {"DeleteRecords", 2},
    {"InitProducerId", 2},
    {"OffsetForLeaderEpoch", 4},
    {"AddPartitionsToTxn", 3},
    {"AddOffsetsToTxn", 3},
    {"EndTxn", 3},
    {"WriteTxnMarkers", 1},
    {"TxnOffsetCommit", 3},
    {"DescribeAcls", 2},
    {"CreateAcls", 2},
    {"DeleteAcls", 2},
    {"DescribeConfigs", 4},
    {"AlterConfigs", 2},
    {"AlterReplicaLogDirs", 2},
    {"DescribeLogDirs", 2},
    {"SaslAuthenticate", 2},
    {"CreatePartitions", 2},
    {"CreateDelegationToken", 2},
    {"RenewDelegationToken", 2},
    {"ExpireDelegationToken", 2},
    {"DescribeDelegationToken", 2},
    {"DeleteGroups", 2},
    {"ElectLeaders", 2},
    {"IncrementalAlterConfigs", 1},
    {"AlterPartitionReassignments", 0},
    {"ListPartitionReassignments", 0},
    {"OffsetDelete", KAFKA_NO_FLEX},
    {"DescribeClientQuotas", 1},
    {"AlterClientQuotas", 1},
    {"DescribeUserScramCredentials", 0},
    {"AlterUserScramCredentials", 0},
    {"Vote", 0},
    {"BeginQuorumEpoch", 1},
    {"EndQuorumEpoch", 1},
    {"DescribeQuorum", 0},
    {"AlterPartition", 0},
    {"UpdateFeatures", 0},
    {"Envelope", 0},
    {"FetchSnapshot", 0},
    {"DescribeCluster", 0},
    {"DescribeProducers", 0},
    {"BrokerRegistration", 0},
    {"BrokerHeartbeat", 0},
    {"UnregisterBroker", 0},
    {"DescribeTransactions", 0},
    {"ListTransactions", 0},
    {"AllocateProducerIds", 0},
    {"ConsumerGroupHeartbeat", 0},
    {"ConsumerGroupDescribe", 0},
    {"ControllerRegistration", 0},
    {"GetTelemetrySubscriptions", 0},
    {"PushTelemetry", 0},
    {"AssignReplicasToDirs", 0},
    {"ListClientMetricsResources", 0},
    {"DescribeTopicPartitions", 0},
    {"ShareGroupHeartbeat", 0},
    {"ShareGroupDescribe", 0},
    {"ShareFetch", 0},
    {"ShareAcknowledge", 0},
    {"AddRaftVoter", 0},
    {"RemoveRaftVoter", 0},
    {"UpdateRaftVoter", 0},
    {"InitializeShareGroupState", 0},
    {"ReadShareGroupState", 0},
    {"WriteShareGroupState", 0},
    {"DeleteShareGroupState", 0},
    {"ReadShareGroupStateSummary", 0},
};
#define KAFKA_N_APIS (int)(sizeof(kafka_apis) / sizeof(kafka_apis[0]))

struct kafka_pending {
	int32_t corr;
	int16_t api_key, api_version;
	struct enav_l7_exchange x; /* its request side */
	char target[ENAV_L7_TARGET_MAX];
};

struct kafka_dir {
	struct enav_l7_framer fr;   /* keep_n: body bytes copied into hdr */
	bool hdr_done;		    /* the header copy was interpreted */
	uint32_t size;		    /* body bytes (after the size) */
	uint8_t hdr[KAFKA_HDR_CAP]; /* the head of the body */
};

struct kafka_state {
	struct enav_l7_fifo q; /* of fifo[] */
	struct kafka_pending fifo[ENAV_L7_MAX_PENDING];
	struct kafka_dir dir[2];
	/* The response being read, once matched to its request. */
	bool cur_valid;
	bool cur_has_code;
	int32_t cur_code;
	struct kafka_pending cur;
};

/* ---- bounded reader ------------------------------------------------------ */

struct rd {
	const uint8_t *p;
	size_t n, off;
	bool ok;
};

static bool rd_need(struct rd *r, size_t k)
{
	if (!r->ok || r->n - r->off < k) {
		r->ok = false;
		return false;
	}
	return true;
}

static int32_t rd_i32(struct rd *r)
{
	if (!rd_need(r, 4))
		return 0;
	const uint8_t *p = r->p + r->off;
	r->off += 4;
	return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

static int16_t rd_i16(struct rd *r)
{
	if (!rd_need(r, 2))
		return 0;
	const uint8_t *p = r->p + r->off;
	r->off += 2;
	return (int16_t)((uint16_t)p[0] << 8 | p[1]);
}

static void rd_skip(struct rd *r, size_t k)
{
	if (rd_need(r, k))
		r->off += k;
}

static uint32_t rd_uvarint(struct rd *r)
{
	uint32_t v = 0;

	for (unsigned shift = 0; shift <= 28; shift += 7) {
		if (!rd_need(r, 1))
			return 0;
		uint8_t c = r->p[r->off++];
		v |= (uint32_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	r->ok = false; /* more than 5 bytes */
	return 0;
}

static void rd_tags(struct rd *r)
{
	uint32_t n = rd_uvarint(r);

	for (uint32_t i = 0; i < n && r->ok; i++) {
		(void)rd_uvarint(r);
		rd_skip(r, rd_uvarint(r));
	}
}

/* Array length: INT32, or uvarint N+1 when flexible; -1 for null. */
static int64_t rd_array(struct rd *r, bool flex)
{
	if (flex)
		return (int64_t)rd_uvarint(r) - 1;
	return rd_i32(r);
}

/* A (nullable) string: INT16 length, or uvarint N+1 when flexible.  Sets
 * s and len to its bytes (NULL for null); false when it is not all there. */
static bool rd_string(struct rd *r, bool flex, const uint8_t **s, size_t *len)
{
	int64_t n = flex ? (int64_t)rd_uvarint(r) - 1 : rd_i16(r);

	*s = NULL;
	*len = 0;
	if (!r->ok)
		return false;
	if (n < 0)
		return n == -1 || flex;
	if (!rd_need(r, (size_t)n))
		return false;
	*s = r->p + r->off;
	*len = (size_t)n;
	r->off += (size_t)n;
	return true;
}

/* ---- API knowledge ------------------------------------------------------- */

static bool api_flexible(int key, int ver)
{
	return key >= 0 && key < KAFKA_N_APIS && ver >= kafka_apis[key].flex;
}

static void api_name(int key, char *out, size_t cap)
{
	if (key >= 0 && key < KAFKA_N_APIS)
		enav_l7_put_text(out, cap, kafka_apis[key].name);
	else
		enav_l7_put_number(out, cap, "api_", key);
}

enum { ERR_NONE, ERR_FIRST, ERR_AFTER_THROTTLE };

/* Where a response (other than Produce/Fetch) holds its top-level error code. */
static int api_error_at(int key, int ver)
{
	switch (key) {
	case 4:	 /* LeaderAndIsr */
	case 5:	 /* StopReplica */
	case 6:	 /* UpdateMetadata */
	case 7:	 /* ControlledShutdown */
	case 17: /* SaslHandshake */
	case 18: /* ApiVersions */
	case 36: /* SaslAuthenticate */
	case 47: /* OffsetDelete */
		return ERR_FIRST;
	case 10: /* FindCoordinator: v4+ lists coordinators instead */
		return ver == 0 ? ERR_FIRST : ver <= 3 ? ERR_AFTER_THROTTLE : ERR_NONE;
	case 11: /* JoinGroup */
		return ver <= 1 ? ERR_FIRST : ERR_AFTER_THROTTLE;
	case 12: /* Heartbeat */
	case 13: /* LeaveGroup */
	case 14: /* SyncGroup */
	case 16: /* ListGroups */
		return ver == 0 ? ERR_FIRST : ERR_AFTER_THROTTLE;
	case 22: /* InitProducerId */
	case 25: /* AddOffsetsToTxn */
	case 26: /* EndTxn */
	case 29: /* DescribeAcls */
	case 60: /* DescribeCluster */
	case 66: /* ListTransactions */
	case 68: /* ConsumerGroupHeartbeat */
	case 71: /* GetTelemetrySubscriptions */
	case 72: /* PushTelemetry */
		return ERR_AFTER_THROTTLE;
	default:
		return ERR_NONE;
	}
}

/* ---- request header ------------------------------------------------------ */

struct kafka_req {
	int16_t key, ver;
	int32_t corr;
	int acks; /* Produce: -1 all, 0 none, 1 leader; KAFKA_ACKS_UNKNOWN */
	const uint8_t *topic;
	size_t topic_len;
};
#define KAFKA_ACKS_UNKNOWN 1000

/* 1: parsed (topic and acks when they were within the bytes), 0: fewer than
 * the fixed 8 header bytes, -1: not a request header. */
static int parse_request(const uint8_t *b, size_t n, struct kafka_req *q)
{
	struct rd r = {b, n, 0, true};

	memset(q, 0, sizeof(*q));
	q->acks = KAFKA_ACKS_UNKNOWN;
	if (n < KAFKA_MIN_REQ)
		return 0;
	q->key = rd_i16(&r);
	q->ver = rd_i16(&r);
	q->corr = rd_i32(&r);
	if (q->key < 0 || q->key > KAFKA_MAX_KEY || q->ver < 0 || q->ver > KAFKA_MAX_VER)
		return -1;
	bool flex = api_flexible(q->key, q->ver);
	if (!(q->key == 7 && q->ver == 0)) { /* header v0: no client_id */
		int16_t cl = rd_i16(&r);
		if (r.ok && cl < -1)
			return -1;
		if (cl > 0)
			rd_skip(&r, (size_t)cl);
	}
	if (flex)
		rd_tags(&r);
	if (!r.ok)
		return 1;

	const uint8_t *s;
	size_t sl;
	if (q->key == KAFKA_PRODUCE) {
		if (q->ver >= 3 && !rd_string(&r, flex, &s, &sl)) /* transactional_id */
			return 1;
		int16_t acks = rd_i16(&r);
		if (!r.ok)
			return 1;
		q->acks = acks;
		rd_skip(&r, 4); /* timeout_ms */
	} else if (q->key == KAFKA_FETCH) {
		if (q->ver <= 14)
			rd_skip(&r, 4); /* replica_id (v15+: a tagged field) */
		rd_skip(&r, 8);		/* max_wait_ms, min_bytes */
		if (q->ver >= 3)
			rd_skip(&r, 4); /* max_bytes */
		if (q->ver >= 4)
			rd_skip(&r, 1); /* isolation_level */
		if (q->ver >= 7)
			rd_skip(&r, 8); /* session_id, session_epoch */
	} else {
		return 1;
	}
	if (q->ver >= 13) /* topics named by UUID */
		return 1;
	int64_t topics = rd_array(&r, flex);
	if (!r.ok || topics < 1)
		return 1;
	if (rd_string(&r, flex, &s, &sl) && s) {
		q->topic = s;
		q->topic_len = sl;
	}
	return 1;
}

/* The error code of a response to (key, ver): false when it has none or it
 * is not within the bytes. */
static bool parse_response_code(const uint8_t *b, size_t n, int key, int ver, int32_t *code)
{
	struct rd r = {b, n, 4, true}; /* after correlation_id */
	bool flex = api_flexible(key, ver);

	if (n < 4)
		return false;
	if (flex && key != KAFKA_APIVERSION) /* response header v1 */
		rd_tags(&r);
	if (key == KAFKA_PRODUCE || key == KAFKA_FETCH) {
		int16_t top = 0;
		bool has_top = false;
		if (key == KAFKA_FETCH) {
			if (ver >= 1)
				rd_skip(&r, 4); /* throttle_time_ms */
			if (ver >= 7) {
				top = rd_i16(&r);
				rd_skip(&r, 4); /* session_id */
				has_top = r.ok;
				if (has_top && top != 0) {
					*code = top;
					return true;
				}
			}
		}
		int64_t topics = rd_array(&r, flex);
		if (r.ok && topics < 1) {
			*code = top;
			return has_top;
		}
		const uint8_t *s;
		size_t sl;
		if (ver >= 13)
			rd_skip(&r, 16); /* topic_id */
		else if (!rd_string(&r, flex, &s, &sl))
			return false;
		int64_t parts = rd_array(&r, flex);
		if (r.ok && parts < 1) {
			*code = top;
			return has_top;
		}
		rd_skip(&r, 4); /* partition index */
		int16_t c = rd_i16(&r);
		if (!r.ok)
			return false;
		*code = c;
		return true;
	}
	switch (api_error_at(key, ver)) {
	case ERR_FIRST:
		break;
	case ERR_AFTER_THROTTLE:
		rd_skip(&r, 4);
		break;
	default:
		return false;
	}
	int16_t c = rd_i16(&r);
	if (!r.ok)
		return false;
	*code = c;
	return true;
}

/* ---- ops ------------------------------------------------------------------ */

static void emit(const struct enav_l7_sink *out, const struct kafka_pending *p, uint8_t kind,
		 bool response_seen, uint64_t end_ns, uint64_t response_bytes, bool has_code,
		 int32_t code)
{
	struct enav_l7_op op;

	memset(&op, 0, sizeof(op));
	op.protocol = ENAV_L7_KAFKA;
	op.kind = kind;
	op.response_seen = response_seen;
	api_name(p->api_key, op.operation, sizeof(op.operation));
	memcpy(op.target, p->target, sizeof(op.target));
	op.target[sizeof(op.target) - 1] = '\0';
	op.status_code = -1;
	if (has_code) {
		op.status_code = code;
		op.error = code != 0;
		enav_l7_put_number(op.status, sizeof(op.status), "", (int)code);
	}
	struct enav_l7_exchange x = p->x;

	x.end_ns = end_ns;
	x.response_bytes = response_bytes;
	enav_l7_emit_exchange(&op, &x, out);
}

/* A request that will get no response: emitted as such. */
static void unanswered(void *st, uint32_t index, const struct enav_l7_sink *out)
{
	struct kafka_pending *p = &((struct kafka_state *)st)->fifo[index];

	emit(out, p, ENAV_L7_OP_REQUEST, false, p->x.start_ns, 0, false, 0);
}

/* ---- framing ----------------------------------------------------------------- */

static void dir_reset(struct kafka_dir *d)
{
	d->hdr_done = false;
	d->size = 0;
}

/* The response in progress ends without its last bytes (gap, lost framing,
 * close): its header was seen, so it is emitted as answered. */
static void flush_cur(struct kafka_state *s, const struct enav_l7_sink *out)
{
	if (!s->cur_valid)
		return;
	s->cur_valid = false;
	emit(out, &s->cur, ENAV_L7_OP_REQUEST, true, s->dir[ENAV_L7_RESPONSE].fr.last_ns,
	     (uint64_t)s->dir[ENAV_L7_RESPONSE].size + 4, s->cur_has_code, s->cur_code);
}

static bool on_header(struct kafka_state *s, int si, const struct enav_l7_sink *out);

/* Framing is lost: the response in progress ends as it is (the engine
 * drops the partial message and waits for a plausible start). */
static void lose(void *st, enum enav_l7_stream si, const struct enav_l7_sink *out)
{
	struct kafka_state *s = st;

	if (si == ENAV_L7_RESPONSE)
		flush_cur(s, out);
	dir_reset(&s->dir[si]);
}

static const struct enav_l7_framing kafka_framing;

static void on_request(struct kafka_state *s, const struct kafka_req *q,
		       const struct enav_l7_sink *out)
{
	struct kafka_dir *d = &s->dir[ENAV_L7_REQUEST];
	struct kafka_pending p;

	memset(&p, 0, sizeof(p));
	p.corr = q->corr;
	p.api_key = q->key;
	p.api_version = q->ver;
	enav_l7_exchange_begin(&p.x, &d->fr, (uint64_t)d->size + 4);
	if (q->topic && enav_l7_copy_text(p.target, sizeof(p.target), q->topic, q->topic_len))
		out->stats->truncated_fields++;
	if (q->key == KAFKA_PRODUCE && q->acks == 0) {
		emit(out, &p, ENAV_L7_OP_MESSAGE, false, p.x.start_ns, 0, false, 0);
		return;
	}
	long at = enav_l7_fifo_push(&s->q, p.corr, out);

	if (at >= 0)
		s->fifo[at] = p;
}

static void on_response(struct kafka_state *s, const struct enav_l7_sink *out)
{
	struct kafka_dir *d = &s->dir[ENAV_L7_RESPONSE];

	if (d->fr.keep_n < 4) {
		out->stats->unmatched_responses++;
		return;
	}
	int32_t corr = (int32_t)enav_l7_be32(d->hdr);
	long i = enav_l7_fifo_find(&s->q, corr);
	if (i < 0) {
		out->stats->unmatched_responses++;
		return;
	}
	/* In-order protocol: the ones before lost their responses. */
	enav_l7_fifo_expire(&s->q, (uint32_t)i, unanswered, s, out);
	s->cur = s->fifo[enav_l7_fifo_at(&s->q, 0)];
	enav_l7_fifo_pop(&s->q);
	s->cur_valid = true;
	s->cur_code = 0;
	s->cur_has_code = parse_response_code(d->hdr, d->fr.keep_n, s->cur.api_key,
					      s->cur.api_version, &s->cur_code);
}

/* The header copy is complete (or no more of it was captured).  False when
 * the stream was lost. */
static bool on_header(struct kafka_state *s, int si, const struct enav_l7_sink *out)
{
	struct kafka_dir *d = &s->dir[si];

	d->hdr_done = true;
	if (si == ENAV_L7_RESPONSE) {
		on_response(s, out);
		return true;
	}
	struct kafka_req q;
	int rc = parse_request(d->hdr, d->fr.keep_n, &q);
	if (rc < 0) {
		enav_l7_framed_parse_error(&kafka_framing, s, si, out);
		return false;
	}
	if (rc == 0) { /* the header itself was not captured */
		out->stats->parse_errors++;
		return true;
	}
	on_request(s, &q, out);
	return true;
}

static void on_end(void *st, enum enav_l7_stream si, struct enav_l7_framer *fr, uint64_t ts,
		   const struct enav_l7_sink *out)
{
	struct kafka_state *s = st;

	struct kafka_dir *d = &s->dir[si];

	if (si == ENAV_L7_RESPONSE && s->cur_valid) {
		s->cur_valid = false;
		emit(out, &s->cur, ENAV_L7_OP_REQUEST, true, ts, (uint64_t)d->size + 4,
		     s->cur_has_code, s->cur_code);
	}
	dir_reset(d);
}

/* After a loss: does this fragment start with a message we can trust? */
static bool plausible_start(void *st, enum enav_l7_stream si, const uint8_t *b, size_t n)
{
	struct kafka_state *s = st;

	if (n < 8)
		return false;
	uint32_t size = enav_l7_be32(b);
	if (si == ENAV_L7_REQUEST) {
		if (n < 12 || size < KAFKA_MIN_REQ || size > KAFKA_MAX_MSG)
			return false;
		struct kafka_req q;
		int rc = parse_request(b + 4, n - 4 < size ? n - 4 : size, &q);
		return rc > 0 && q.key < KAFKA_N_APIS;
	}
	if (size < KAFKA_MIN_RESP || size > KAFKA_MAX_MSG)
		return false;
	int32_t corr = (int32_t)enav_l7_be32(b + 4);
	return enav_l7_fifo_find(&s->q, corr) >= 0;
}

/* ---- the framing the stream engine runs ---------------------------------- */

static void kafka_gap(void *st, enum enav_l7_stream dir, const struct enav_l7_sink *out)
{
	struct kafka_state *s = st;
	struct kafka_dir *d = &s->dir[dir];
	bool lost = false;

	if (d->fr.in_msg && !d->hdr_done && d->fr.keep_n > 0)
		lost = !on_header(s, (int)dir, out); /* what we have of a cut header */
	if (!lost)
		enav_l7_framed_lose(&kafka_framing, s, dir, out);
}

static bool kafka_header(void *st, enum enav_l7_stream dir, struct enav_l7_framer *fr,
			 const struct enav_l7_sink *out)
{
	struct kafka_state *s = st;
	struct kafka_dir *d = &s->dir[dir];
	uint32_t size = enav_l7_be32(fr->hdr);
	uint32_t min = dir == ENAV_L7_REQUEST ? KAFKA_MIN_REQ : KAFKA_MIN_RESP;

	if (size < min || size > KAFKA_MAX_MSG) {
		enav_l7_framed_parse_error(&kafka_framing, s, dir, out);
		return false;
	}
	d->size = size;
	d->hdr_done = false;
	fr->left = size;
	return true;
}

/* The header is interpreted once its copy is complete, or no more of it was
 * captured. */
static bool kafka_body(void *st, enum enav_l7_stream dir, const uint8_t *data, uint32_t captured,
		       uint32_t n, const struct enav_l7_sink *out)
{
	struct kafka_state *s = st;
	struct kafka_dir *d = &s->dir[dir];
	uint32_t want = d->size < KAFKA_HDR_CAP ? d->size : KAFKA_HDR_CAP;

	if (d->hdr_done || (d->fr.keep_n != want && captured == n))
		return true;
	return on_header(s, (int)dir, out);
}

static const struct enav_l7_framing kafka_framing = {
    .prefix = 4, /* BE32 size */
    .header = kafka_header,
    .body = kafka_body,
    .end = on_end,
    .starts_message = plausible_start,
    .lose = lose,
    .gap = kafka_gap,
    .framer_at = {offsetof(struct kafka_state, dir[0].fr), offsetof(struct kafka_state, dir[1].fr)},
    .keep_at = {offsetof(struct kafka_state, dir[0].hdr), offsetof(struct kafka_state, dir[1].hdr)},
    .keep_cap = {KAFKA_HDR_CAP, KAFKA_HDR_CAP},
    .resync_every_loss = true,
};

static int kafka_init(void *state, const struct enav_l7_options *opt)
{
	struct kafka_state *s = state;

	enav_l7_fifo_init(&s->q, enav_l7_max_pending(opt));
	return 0;
}

static void kafka_finish(void *state, const struct enav_l7_sink *out)
{
	struct kafka_state *s = state;

	flush_cur(s, out);
	enav_l7_fifo_expire(&s->q, s->q.count, unanswered, s, out);
	dir_reset(&s->dir[0]);
	dir_reset(&s->dir[1]);
}

/*
 * REQUEST stream only: BE32 size >= 8, BE16 api_key 0..80, BE16 api_version
 * 0..20, BE32 correlation id (any); when the fragment holds at least the
 * whole message, size == n - 4; and, when the client_id length is captured
 * (n >= 14), it is -1 or 0..size-10 (this rejects MongoDB requests, whose
 * opcode sits there).
 */
static bool kafka_detect(const uint8_t *d, size_t n, enum enav_l7_stream stream)
{
	if (stream != ENAV_L7_REQUEST || !d || n < 12)
		return false;
	uint32_t size = enav_l7_be32(d);
	uint16_t key = (uint16_t)(d[4] << 8 | d[5]);
	uint16_t ver = (uint16_t)(d[6] << 8 | d[7]);
	if (size < 8 || key > 80 || ver > 20)
		return false;
	if (n - 4 >= size && size != n - 4)
		return false;
	if (n >= 14 && !(key == 7 && ver == 0)) {
		int16_t cl = (int16_t)(d[12] << 8 | d[13]);
		if (cl < -1 || (cl >= 0 && (uint64_t)cl + 10 > size))
			return false;
	}
	return true;
}

ENAV_L7_FRAMED_PARSER(kafka, struct kafka_state, kafka_detect, kafka_init, kafka_framing,
		      kafka_finish);
