/* SPDX-License-Identifier: Apache-2.0 */
/*
 * HTTP/2 (RFC 9113), gRPC and gRPC-Web over HTTP/2 with prior knowledge
 * (h2c, or the plaintext side of TLS).
 *
 * Each direction is a frame stream: the client's starts with the 24-byte
 * preface and a SETTINGS frame, the server's with a SETTINGS frame.  Frame
 * payloads are consumed incrementally, never buffered: header blocks
 * (HEADERS / PUSH_PROMISE + CONTINUATION) go to nghttp2's HPACK inflater, one
 * per direction, the only heap memory a connection holds (its dynamic table is
 * capped at H2_TABLE_CAP bytes; SETTINGS_HEADER_TABLE_SIZE is honoured up to
 * that cap once the peer acknowledges it).  DATA payloads are counted and
 * skipped, captured or not, except that a gRPC-Web response body is scanned
 * for its trailer frame's grpc-status.
 *
 * One operation per client stream, emitted when the response ends
 * (END_STREAM from the server, RST_STREAM either way, or a server GOAWAY
 * that excludes the stream); at most opt->max_pending streams are tracked at
 * once, further ones are counted as pending_overflow.
 *
 * HTTP/2 reads its frames with a loop of its own, not the stream engine's
 * framer (l7_stream.h): the engine's generic callbacks cost about 12% more
 * instructions per request on HTTP/2 (valgrind --tool=cachegrind, 5,804
 * against 5,179 per GET and its response), and the span path's cost comes
 * first (issue 32).
 *
 * HPACK state cannot be rebuilt once a header block byte is lost, so every
 * loss of sync (a gap, uncaptured bytes that hide a header block or a frame
 * header, a framing or HPACK error, a connection not seen from its preface)
 * makes the connection dead: one parse error is counted, the inflaters are
 * freed, and nothing more is emitted for it.
 */
#include "features/network/l7/l7_common.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <nghttp2/nghttp2.h>

#include "features/network/l7/http2_fields.h"
#include "model/l7_text.h"

#define H2_PREFACE     "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define H2_PREFACE_LEN 24
#define H2_HDR_LEN     9
/* Cap of each HPACK inflater's dynamic table (bytes, RFC 7541 sizing). */
#define H2_TABLE_CAP	     4096
#define H2_DEFAULT_MAX_FRAME 16384
#define H2_MAX_FRAME_CEILING 16777215u

enum {
	T_DATA = 0,
	T_HEADERS = 1,
	T_PRIORITY = 2,
	T_RST_STREAM = 3,
	T_SETTINGS = 4,
	T_PUSH_PROMISE = 5,
	T_PING = 6,
	T_GOAWAY = 7,
	T_WINDOW_UPDATE = 8,
	T_CONTINUATION = 9,
};

enum {
	F_END_STREAM = 0x01, /* ACK on SETTINGS and PING */
	F_END_HEADERS = 0x04,
	F_PADDED = 0x08,
	F_PRIORITY = 0x20,
};

enum phase { PH_PADLEN, PH_PREFIX, PH_BODY, PH_PAD };
enum role { ROLE_IGNORE, ROLE_REQUEST, ROLE_RESPONSE };
enum end_how { END_NORMAL, END_RST, END_GOAWAY, END_CLOSE };

struct h2_stream {
	uint32_t id; /* 0: free */
	bool rpc;
	bool response_headers; /* a final response header block was decoded */
	bool has_seq;
	bool has_tp;
	int32_t http_status; /* -1 until a final :status */
	int32_t grpc_status; /* -1 until grpc-status */
	uint32_t seq;
	uint64_t start_ns, last_ns;
	uint64_t req_bytes, resp_bytes;
	char method[ENAV_L7_OPERATION_MAX];
	char path[ENAV_L7_PATH_MAX];
	char target[ENAV_L7_TARGET_MAX];
	uint8_t trace_id[16], parent_id[8], trace_flags;
	struct enav_h2_grpc_web gw; /* a gRPC-Web binary response body */
};

struct h2_dir {
	nghttp2_hd_inflater *hd;
	uint8_t preface_got; /* request stream: preface bytes matched */
	bool first_frame_seen;
	/* frame header being assembled, and where its first byte was */
	uint8_t hdr[H2_HDR_LEN];
	uint8_t hdr_got;
	bool hdr_has_seq;
	uint32_t hdr_seq;
	uint64_t hdr_ts;
	/* the frame being consumed */
	bool in_frame;
	uint8_t type, flags, phase, prefix_len, pad_len;
	bool padded;
	uint32_t sid, len, phase_left;
	uint8_t small[8]; /* RST_STREAM / GOAWAY fixed fields, one SETTINGS entry */
	uint8_t small_got;
	/* header block in progress (HEADERS / PUSH_PROMISE + CONTINUATION) */
	bool in_block, block_end_stream;
	uint8_t block_role;
	uint32_t block_sid;
	/* SETTINGS_HEADER_TABLE_SIZE announced by the peer for this
	 * direction's encoder: applied when this direction acknowledges it */
	bool table_pending;
	uint32_t table_size;
	uint32_t max_frame; /* SETTINGS_MAX_FRAME_SIZE the peer announced */
};

struct h2_state {
	bool dead;
	bool keep_query;
	uint32_t max_pending;
	uint32_t last_req_sid; /* highest stream a request HEADERS opened */
	struct h2_dir dir[2];
	struct h2_stream streams[ENAV_L7_MAX_PENDING];
};

/* ---- detection -------------------------------------------------------------- */

static bool h2_detect(const uint8_t *d, size_t n, enum enav_l7_stream stream)
{
	if (!d)
		return false;
	if (stream == ENAV_L7_REQUEST) {
		/* The client preface; a shorter first fragment must at least
		 * carry "PRI * HTTP/2.0" (14 bytes). */
		if (n < 14)
			return false;
		size_t k = n < H2_PREFACE_LEN ? n : H2_PREFACE_LEN;
		return memcmp(d, H2_PREFACE, k) == 0;
	}
	/* The server preface: a SETTINGS frame on stream 0. */
	if (n < H2_HDR_LEN)
		return false;
	uint32_t sid = ((uint32_t)d[5] << 24 | (uint32_t)d[6] << 16 | (uint32_t)d[7] << 8 | d[8]) &
		       0x7fffffffu;
	return d[3] == T_SETTINGS && sid == 0;
}

/* ---- lifecycle ---------------------------------------------------------------- */

static void free_inflaters(struct h2_state *st)
{
	for (int i = 0; i < 2; i++) {
		if (st->dir[i].hd) {
			nghttp2_hd_inflate_del(st->dir[i].hd);
			st->dir[i].hd = NULL;
		}
	}
}

static int h2_init(void *state, const struct enav_l7_options *opt)
{
	struct h2_state *st = state;
	memset(st, 0, sizeof(*st));
	st->keep_query = opt && opt->keep_query;
	st->max_pending = enav_l7_max_pending(opt);
	for (int i = 0; i < 2; i++) {
		st->dir[i].max_frame = H2_DEFAULT_MAX_FRAME;
		if (nghttp2_hd_inflate_new2(&st->dir[i].hd, NULL) != 0 ||
		    nghttp2_hd_inflate_change_table_size(st->dir[i].hd, H2_TABLE_CAP) != 0) {
			free_inflaters(st);
			st->dead = true;
			return -ENOMEM;
		}
	}
	return 0;
}

/* Sync is lost for good: HPACK state cannot be rebuilt. */
static void die(struct h2_state *st, const struct enav_l7_sink *out)
{
	if (st->dead)
		return;
	st->dead = true;
	out->stats->parse_errors++;
	free_inflaters(st);
	memset(st->streams, 0, sizeof(st->streams));
}

/* ---- streams ------------------------------------------------------------------ */

static struct h2_stream *find_stream(struct h2_state *st, uint32_t sid)
{
	if (sid == 0)
		return NULL;
	for (uint32_t i = 0; i < st->max_pending; i++)
		if (st->streams[i].id == sid)
			return &st->streams[i];
	return NULL;
}

static struct h2_stream *new_stream(struct h2_state *st, uint32_t sid)
{
	for (uint32_t i = 0; i < st->max_pending; i++) {
		struct h2_stream *s = &st->streams[i];
		if (s->id == 0) {
			memset(s, 0, sizeof(*s));
			s->id = sid;
			s->http_status = -1;
			s->grpc_status = -1;
			return s;
		}
	}
	return NULL;
}

static void emit(struct h2_state *st, struct h2_stream *s, uint64_t ts, enum end_how how,
		 uint32_t code, bool from_server, const struct enav_l7_sink *out)
{
	if (s->method[0] == '\0') {
		/* The request's header block never gave a :method (malformed,
		 * or cut short): nothing to report that would not be a guess. */
		out->stats->parse_errors++;
		s->id = 0;
		return;
	}
	struct enav_l7_op op;
	memset(&op, 0, sizeof(op));
	op.protocol = ENAV_L7_HTTP2;
	op.kind = ENAV_L7_OP_REQUEST;
	op.rpc = s->rpc;
	memcpy(op.operation, s->method, sizeof(op.operation));
	memcpy(op.path, s->path, sizeof(op.path));
	if (s->rpc) {
		/* "/pkg.Service/Method" is already bounded. */
		size_t n = strcspn(s->path, "?#");
		if (enav_l7_copy_text(op.target, sizeof(op.target), s->path, n))
			out->stats->truncated_fields++;
	} else {
		memcpy(op.target, s->target, sizeof(op.target));
	}
	op.start_ns = s->start_ns;
	op.end_ns = ts > s->start_ns ? ts : s->start_ns;
	op.request_bytes = s->req_bytes;
	op.response_bytes = s->resp_bytes;
	op.stream_id = s->id;
	op.has_request_seq = s->has_seq;
	op.request_seq = s->seq;
	if (s->has_tp) {
		op.has_traceparent = true;
		memcpy(op.trace_id, s->trace_id, sizeof(op.trace_id));
		memcpy(op.parent_id, s->parent_id, sizeof(op.parent_id));
		op.trace_flags = s->trace_flags;
	}

	if (s->grpc_status >= 0) {
		op.status_code = s->grpc_status;
		op.error = s->grpc_status != 0;
	} else if (s->http_status >= 0) {
		op.status_code = s->http_status;
		/* gRPC maps every HTTP status but 200 to an error status. */
		op.error = s->rpc ? s->http_status != 200 : s->http_status >= 500;
	} else {
		op.status_code = -1;
	}
	if (op.status_code >= 0)
		enav_l7_put_number(op.status, sizeof(op.status), "", (int)op.status_code);

	switch (how) {
	case END_NORMAL:
		op.response_seen = true;
		break;
	case END_RST:
		op.response_seen = from_server || s->response_headers;
		op.error = true;
		enav_l7_put_number(op.status, sizeof(op.status), "RST_STREAM ", code);
		break;
	case END_GOAWAY:
		op.response_seen = false;
		op.error = true;
		enav_l7_put_number(op.status, sizeof(op.status), "GOAWAY ", code);
		break;
	case END_CLOSE:
		op.response_seen = false;
		break;
	}
	s->id = 0;
	out->stats->ops++;
	out->op(out->ctx, &op);
	(void)st;
}

/* ---- header fields ------------------------------------------------------------- */

static void on_request_header(struct h2_state *st, struct h2_stream *s, const nghttp2_nv *nv,
			      const struct enav_l7_sink *out)
{
	if (enav_h2_name_is(nv, ":method")) {
		if (enav_l7_copy_text(s->method, sizeof(s->method), nv->value, nv->valuelen))
			out->stats->truncated_fields++;
	} else if (enav_h2_name_is(nv, ":path")) {
		size_t n = nv->valuelen;
		if (!st->keep_query) {
			for (size_t i = 0; i < n; i++) {
				if (nv->value[i] == '?' || nv->value[i] == '#') {
					n = i;
					break;
				}
			}
		}
		if (enav_l7_copy_text(s->path, sizeof(s->path), nv->value, n))
			out->stats->truncated_fields++;
		enav_l7_path_template((const char *)nv->value, nv->valuelen, s->target,
				      sizeof(s->target));
	} else if (enav_h2_name_is(nv, "content-type")) {
		if (enav_h2_grpc_kind(nv->value, nv->valuelen))
			s->rpc = true;
	} else if (enav_h2_name_is(nv, "traceparent")) {
		if (!s->has_tp)
			s->has_tp =
			    enav_l7_traceparent_parse((const char *)nv->value, nv->valuelen,
						      s->trace_id, s->parent_id, &s->trace_flags);
	}
}

static void on_response_header(struct h2_stream *s, const nghttp2_nv *nv)
{
	int32_t v;
	if (enav_h2_name_is(nv, ":status")) {
		/* 1xx are informational: the final status comes later. */
		if (nv->valuelen == 3 && enav_h2_parse_uint(nv->value, 3, &v) && v >= 200 &&
		    s->http_status < 0) {
			s->http_status = v;
			s->response_headers = true;
		}
	} else if (enav_h2_name_is(nv, "content-type")) {
		int k = enav_h2_grpc_kind(nv->value, nv->valuelen);
		if (k)
			s->rpc = true;
		if (k == 2)
			s->gw.scan = true;
	} else if (enav_h2_name_is(nv, "grpc-status")) {
		if (enav_h2_parse_uint(nv->value, nv->valuelen, &v))
			s->grpc_status = v;
	}
}

/* Feed header block bytes (final: the block ends here). */
static bool inflate(struct h2_state *st, struct h2_dir *dir, const uint8_t *p, size_t n, bool final,
		    const struct enav_l7_sink *out)
{
	static const uint8_t none[1];
	struct h2_stream *s =
	    dir->block_role == ROLE_IGNORE ? NULL : find_stream(st, dir->block_sid);
	if (!p)
		p = none;
	for (;;) {
		nghttp2_nv nv;
		int fl = 0;
#if NGHTTP2_VERSION_NUM >= 0x013d00 /* 1.61: hd2 deprecated for hd3 */
		nghttp2_ssize rv = nghttp2_hd_inflate_hd3(dir->hd, &nv, &fl, p, n, final);
#else
		ssize_t rv = nghttp2_hd_inflate_hd2(dir->hd, &nv, &fl, p, n, final);
#endif
		if (rv < 0 || (size_t)rv > n)
			return false;
		p += rv;
		n -= (size_t)rv;
		if ((fl & NGHTTP2_HD_INFLATE_EMIT) && s) {
			if (dir->block_role == ROLE_REQUEST)
				on_request_header(st, s, &nv, out);
			else
				on_response_header(s, &nv);
		}
		if (fl & NGHTTP2_HD_INFLATE_FINAL) {
			nghttp2_hd_inflate_end_headers(dir->hd);
			return true;
		}
		if (!(fl & NGHTTP2_HD_INFLATE_EMIT) && n == 0)
			return !final;
	}
}

/* ---- frames -------------------------------------------------------------------- */

static bool is_block_frame(uint8_t type)
{
	return type == T_HEADERS || type == T_CONTINUATION || type == T_PUSH_PROMISE;
}

static void add_bytes(struct h2_stream *s, int d, uint64_t n)
{
	if (d == ENAV_L7_REQUEST)
		s->req_bytes += n;
	else
		s->resp_bytes += n;
}

/* The 9-byte header is complete: validate it and set the frame up. */
static void begin_frame(struct h2_state *st, int d, const struct enav_l7_sink *out)
{
	struct h2_dir *dir = &st->dir[d];
	const uint8_t *h = dir->hdr;
	uint32_t len = (uint32_t)h[0] << 16 | (uint32_t)h[1] << 8 | h[2];
	uint8_t type = h[3], flags = h[4];
	uint32_t sid = enav_l7_be32(h + 5) & 0x7fffffffu;

	if (len > dir->max_frame)
		goto bad;
	if (!dir->first_frame_seen) {
		/* Each side's preface is a SETTINGS frame. */
		if (type != T_SETTINGS || (flags & F_END_STREAM))
			goto bad;
		dir->first_frame_seen = true;
	}
	if (dir->in_block ? type != T_CONTINUATION || sid != dir->block_sid
			  : type == T_CONTINUATION)
		goto bad;

	dir->type = type;
	dir->flags = flags;
	dir->sid = sid;
	dir->len = len;
	dir->padded = false;
	dir->prefix_len = 0;
	dir->pad_len = 0;
	dir->small_got = 0;

	struct h2_stream *s = NULL;
	switch (type) {
	case T_DATA:
		if (sid == 0)
			goto bad;
		dir->padded = flags & F_PADDED;
		s = find_stream(st, sid);
		break;
	case T_HEADERS:
		if (sid == 0)
			goto bad;
		dir->padded = flags & F_PADDED;
		dir->prefix_len = flags & F_PRIORITY ? 5 : 0;
		dir->in_block = true;
		dir->block_sid = sid;
		dir->block_end_stream = flags & F_END_STREAM;
		dir->block_role = ROLE_IGNORE;
		s = find_stream(st, sid);
		if (d == ENAV_L7_REQUEST) {
			if (!s && sid > st->last_req_sid) {
				st->last_req_sid = sid;
				s = new_stream(st, sid);
				if (s) {
					s->start_ns = dir->hdr_ts;
					s->last_ns = dir->hdr_ts;
					s->has_seq = dir->hdr_has_seq;
					s->seq = dir->hdr_seq;
					dir->block_role = ROLE_REQUEST;
				} else {
					out->stats->pending_overflow++;
				}
			}
			/* else: request trailers, or a stream no longer tracked */
		} else if (s) {
			dir->block_role = ROLE_RESPONSE;
		}
		break;
	case T_CONTINUATION:
		s = find_stream(st, sid);
		break;
	case T_PUSH_PROMISE:
		/* Decoded to keep the table in sync; pushed streams are not
		 * tracked. */
		if (sid == 0)
			goto bad;
		dir->padded = flags & F_PADDED;
		dir->prefix_len = 4;
		dir->in_block = true;
		dir->block_sid = sid;
		dir->block_end_stream = false;
		dir->block_role = ROLE_IGNORE;
		break;
	case T_RST_STREAM:
		if (sid == 0 || len != 4)
			goto bad;
		break;
	case T_SETTINGS:
		if (sid != 0 || len % 6 != 0 || ((flags & F_END_STREAM) && len != 0))
			goto bad;
		break;
	case T_PING:
		if (sid != 0 || len != 8)
			goto bad;
		break;
	case T_GOAWAY:
		if (sid != 0 || len < 8)
			goto bad;
		break;
	case T_WINDOW_UPDATE:
		if (len != 4)
			goto bad;
		break;
	default: /* PRIORITY and unknown types: skipped */
		break;
	}
	if (s && (type == T_DATA || is_block_frame(type)))
		add_bytes(s, d, H2_HDR_LEN); /* the payload as it is consumed */
	if (len < (dir->padded ? 1u : 0u) + dir->prefix_len)
		goto bad;

	dir->in_frame = true;
	if (dir->padded) {
		dir->phase = PH_PADLEN;
		dir->phase_left = 1;
	} else {
		dir->phase = PH_PREFIX;
		dir->phase_left = dir->prefix_len;
	}
	return;
bad:
	die(st, out);
}

static void apply_setting(struct h2_state *st, int d, uint16_t id, uint32_t v)
{
	/* A setting constrains what the other side sends. */
	struct h2_dir *o = &st->dir[!d];
	if (id == 0x1) { /* HEADER_TABLE_SIZE */
		o->table_pending = true;
		o->table_size = v;
	} else if (id == 0x5) { /* MAX_FRAME_SIZE: raise only, races stay safe */
		if (v >= H2_DEFAULT_MAX_FRAME && v <= H2_MAX_FRAME_CEILING && v > o->max_frame)
			o->max_frame = v;
	}
}

/* Payload bytes of the current phase; p is NULL for uncaptured bytes. */
static void consume(struct h2_state *st, int d, const uint8_t *p, size_t k,
		    const struct enav_l7_sink *out)
{
	struct h2_dir *dir = &st->dir[d];
	switch (dir->phase) {
	case PH_PADLEN:
		if (!p)
			goto lost;
		dir->pad_len = p[0];
		return;
	case PH_PREFIX: /* priority fields, promised stream id: not needed */
	case PH_PAD:
		return;
	default:
		break;
	}
	switch (dir->type) {
	case T_HEADERS:
	case T_CONTINUATION:
	case T_PUSH_PROMISE:
		if (!p)
			goto lost;
		if (!inflate(st, dir, p, k, false, out))
			goto bad;
		return;
	case T_DATA:
		if (d == ENAV_L7_RESPONSE) {
			struct h2_stream *s = find_stream(st, dir->sid);
			if (s && s->gw.scan) /* only gRPC-Web bodies are read */
				enav_h2_grpc_web_body(&s->gw, p, k, &s->grpc_status);
		}
		return;
	case T_SETTINGS:
		if (!p)
			goto lost;
		for (size_t i = 0; i < k; i++) {
			dir->small[dir->small_got++] = p[i];
			if (dir->small_got == 6) {
				apply_setting(st, d, (uint16_t)(dir->small[0] << 8 | dir->small[1]),
					      enav_l7_be32(dir->small + 2));
				dir->small_got = 0;
			}
		}
		return;
	case T_RST_STREAM:
	case T_GOAWAY:
		if (!p)
			goto lost;
		for (size_t i = 0; i < k && dir->small_got < 8; i++)
			dir->small[dir->small_got++] = p[i];
		return;
	default:
		return;
	}
lost:
bad:
	die(st, out);
}

static void end_frame(struct h2_state *st, int d, uint64_t ts, const struct enav_l7_sink *out)
{
	struct h2_dir *dir = &st->dir[d];
	struct h2_stream *s = find_stream(st, dir->sid);
	bool from_server = d == ENAV_L7_RESPONSE;

	if (s && (dir->type == T_DATA || is_block_frame(dir->type)))
		s->last_ns = ts;
	switch (dir->type) {
	case T_HEADERS:
	case T_CONTINUATION:
	case T_PUSH_PROMISE:
		if (!(dir->flags & F_END_HEADERS))
			return;
		dir->in_block = false;
		if (from_server && dir->block_end_stream) {
			if (s && dir->block_role == ROLE_RESPONSE)
				emit(st, s, ts, END_NORMAL, 0, true, out);
			else if (!s)
				out->stats->unmatched_responses++;
		}
		return;
	case T_DATA:
		if (from_server && (dir->flags & F_END_STREAM)) {
			if (s) {
				if (s->gw.scan)
					enav_h2_grpc_web_end(&s->gw, &s->grpc_status);
				emit(st, s, ts, END_NORMAL, 0, true, out);
			} else {
				out->stats->unmatched_responses++;
			}
		}
		return;
	case T_RST_STREAM:
		if (s)
			emit(st, s, ts, END_RST, enav_l7_be32(dir->small), from_server, out);
		return;
	case T_SETTINGS:
		if ((dir->flags & F_END_STREAM) && dir->table_pending) { /* ACK */
			dir->table_pending = false;
			size_t v = dir->table_size < H2_TABLE_CAP ? dir->table_size : H2_TABLE_CAP;
			if (nghttp2_hd_inflate_change_table_size(dir->hd, v) != 0)
				die(st, out);
		}
		return;
	case T_GOAWAY:
		if (from_server) {
			uint32_t last = enav_l7_be32(dir->small) & 0x7fffffffu,
				 code = enav_l7_be32(dir->small + 4);
			for (uint32_t i = 0; i < st->max_pending; i++)
				if (st->streams[i].id > last)
					emit(st, &st->streams[i], ts, END_GOAWAY, code, true, out);
		}
		return;
	default:
		return;
	}
}

/* Move past phases that are done; the frame ends after its padding. */
static void advance(struct h2_state *st, int d, uint64_t ts, const struct enav_l7_sink *out)
{
	struct h2_dir *dir = &st->dir[d];
	while (!st->dead && dir->in_frame && dir->phase_left == 0) {
		switch (dir->phase) {
		case PH_PADLEN:
			if (dir->pad_len > dir->len - 1u - dir->prefix_len) {
				die(st, out);
				return;
			}
			dir->phase = PH_PREFIX;
			dir->phase_left = dir->prefix_len;
			break;
		case PH_PREFIX:
			dir->phase = PH_BODY;
			dir->phase_left =
			    dir->len - (dir->padded ? 1u : 0u) - dir->prefix_len - dir->pad_len;
			break;
		case PH_BODY:
			if (is_block_frame(dir->type) && (dir->flags & F_END_HEADERS) &&
			    !inflate(st, dir, NULL, 0, true, out)) {
				die(st, out);
				return;
			}
			dir->phase = PH_PAD;
			dir->phase_left = dir->pad_len;
			break;
		default:
			dir->in_frame = false;
			dir->hdr_got = 0;
			end_frame(st, d, ts, out);
			break;
		}
	}
}

/* Bytes of one direction; p is NULL for the uncaptured tail. */
static void run(struct h2_state *st, const struct enav_l7_fragment *f, const uint8_t *p, size_t n,
		size_t off, const struct enav_l7_sink *out)
{
	int d = f->stream == ENAV_L7_RESPONSE ? ENAV_L7_RESPONSE : ENAV_L7_REQUEST;
	struct h2_dir *dir = &st->dir[d];
	while (n > 0 && !st->dead) {
		size_t k;
		if (d == ENAV_L7_REQUEST && dir->preface_got < H2_PREFACE_LEN) {
			k = H2_PREFACE_LEN - dir->preface_got;
			if (k > n)
				k = n;
			if (!p || memcmp(p, &H2_PREFACE[dir->preface_got], k) != 0) {
				die(st, out);
				return;
			}
			dir->preface_got = (uint8_t)(dir->preface_got + k);
		} else if (!dir->in_frame) {
			if (!p) { /* a frame header we cannot see */
				die(st, out);
				return;
			}
			if (dir->hdr_got == 0) {
				dir->hdr_ts = f->ts_ns;
				dir->hdr_has_seq = f->has_seq;
				dir->hdr_seq = f->seq + (uint32_t)off;
			}
			k = H2_HDR_LEN - dir->hdr_got;
			if (k > n)
				k = n;
			memcpy(dir->hdr + dir->hdr_got, p, k);
			dir->hdr_got = (uint8_t)(dir->hdr_got + k);
			if (dir->hdr_got == H2_HDR_LEN) {
				begin_frame(st, d, out);
				advance(st, d, f->ts_ns, out);
			}
		} else {
			k = dir->phase_left;
			if (k > n)
				k = n;
			if (dir->type == T_DATA || is_block_frame(dir->type)) {
				struct h2_stream *s = find_stream(st, dir->sid);
				if (s)
					add_bytes(s, d, k);
			}
			consume(st, d, p, k, out);
			dir->phase_left -= (uint32_t)k;
			advance(st, d, f->ts_ns, out);
		}
		if (p)
			p += k;
		n -= k;
		off += k;
	}
}

static void h2_feed(void *state, const struct enav_l7_fragment *f, const struct enav_l7_sink *out)
{
	struct h2_state *st = state;
	if (st->dead)
		return;
	if (f->gap) { /* the dynamic tables are lost with the bytes */
		die(st, out);
		return;
	}
	size_t cap = f->captured < f->len ? f->captured : f->len;
	if (cap > 0 && !f->data) {
		die(st, out);
		return;
	}
	run(st, f, f->data, cap, 0, out);
	if (f->len > cap)
		run(st, f, NULL, f->len - cap, cap, out);
}

static void h2_finish(void *state, const struct enav_l7_sink *out)
{
	struct h2_state *st = state;
	if (!st->dead) {
		/* Streams still open, in stream order. */
		for (;;) {
			struct h2_stream *low = NULL;
			for (uint32_t i = 0; i < st->max_pending; i++) {
				struct h2_stream *s = &st->streams[i];
				if (s->id && (!low || s->id < low->id))
					low = s;
			}
			if (!low)
				break;
			emit(st, low, low->last_ns, END_CLOSE, 0, false, out);
		}
	}
	free_inflaters(st);
	st->dead = true;
}

ENAV_L7_PARSER(http2, struct h2_state, h2_detect, h2_init, h2_feed, h2_finish);
