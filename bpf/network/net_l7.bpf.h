/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Application payloads: the call's buffers, the protocol classification of
 * a stream on its first bytes, the HTTP/2 frame walk, and the
 * ENAV_EVENT_L7_DATA event.  l7_emit is shared by the socket hooks and
 * their sys_exit fallback (l7_capture, net_payload.bpf.h) and the TLS
 * probes (net_tls.bpf.h).
 * Separate because it is the largest and most verifier-sensitive part.
 */
#ifndef ENAV_NET_L7_BPF_H
#define ENAV_NET_L7_BPF_H

#include "net_sock.bpf.h"

/* Record where the call's bytes are: one buffer, or the first L7_MAX_IOV
 * iovecs of a vector call.  Returns false when they cannot be read. */
static __always_inline bool load_segments(struct l7_scratch *sc, struct pending *p)
{
	__u64 iovs = 0, iovcnt = 0;
	sc->n_seg = 0;
#pragma unroll
	for (int k = 0; k < L7_MAX_IOV; k++)
		sc->segstart[k] = 1ull << 62;
	if (p->nr == NR_readv || p->nr == NR_writev) {
		iovs = p->buf;
		iovcnt = p->arg3;
	} else if (p->nr == NR_sendmsg || p->nr == NR_recvmsg) {
		struct user_msghdr mh;
		if (bpf_probe_read_user(&mh, sizeof(mh), (void *)p->buf))
			return false;
		iovs = (__u64)mh.msg_iov;
		iovcnt = mh.msg_iovlen;
	} else {
		sc->base[0] = p->buf;
		sc->seglen[0] = 1ull << 62;
		sc->segstart[0] = 0;
		sc->n_seg = 1;
		return true;
	}
	__u64 at = 0;
	for (int i = 0; i < L7_MAX_IOV; i++) {
		if (i >= iovcnt)
			break;
		struct iovec iov;
		if (bpf_probe_read_user(&iov, sizeof(iov), (struct iovec *)iovs + i))
			return false;
		sc->base[i] = (__u64)iov.iov_base;
		sc->seglen[i] = iov.iov_len;
		sc->segstart[i] = at;
		at += iov.iov_len;
		sc->n_seg = i + 1;
	}
	return sc->n_seg > 0;
}

/*
 * Three helpers below are global functions: the verifier checks each once,
 * on its own, instead of at every call site along every path.  Linux 5.10's
 * verifier refuses a global function with a pointer argument ("Arg#0 type
 * PTR ... is not supported yet"), and a static one is checked in each
 * caller's context, where the frame walk alone passes the million
 * instructions.  So each has a compat twin, global too, that takes only
 * scalars and finds the per-CPU scratch itself (the caller's: a program
 * does not change CPU).  The caller's compat flag picks one at compile
 * time, so a program built for such kernels (the _compat programs of
 * net_payload.bpf.h and net_tls.bpf.h) carries only the twins.
 */
static __always_inline struct l7_scratch *l7_scratch_here(void)
{
	__u32 zero = 0;
	return bpf_map_lookup_elem(&enav_l7_scratch, &zero);
}

/* Copy up to cap bytes from the start of the call's buffers into the scratch
 * payload; returns the bytes copied. */
static __always_inline __u32 copy_payload_body(struct l7_scratch *sc, __u64 ret, __u32 cap)
{
	if (!sc)
		return 0;
	if (cap > ret)
		cap = ret;
	__u32 off = 0;
	for (int i = 0; i < L7_MAX_IOV; i++) {
		if (i >= sc->n_seg || off >= cap)
			break;
		__u64 want = cap - off;
		if (want > sc->seglen[i])
			want = sc->seglen[i];
		__u32 o = off & (ENAV_L7_PAYLOAD_MAX - 1);
		__u32 w = want & (2 * ENAV_L7_PAYLOAD_MAX - 1);
		if (w > ENAV_L7_PAYLOAD_MAX)
			w = ENAV_L7_PAYLOAD_MAX;
		if (w && bpf_probe_read_user(sc->e.payload + o, w, (void *)sc->base[i]))
			break;
		off += w;
	}
	return off < cap ? off : cap;
}

__noinline __u32 enav_copy_payload(struct l7_scratch *sc, __u64 ret, __u32 cap)
{
	return copy_payload_body(sc, ret, cap);
}

__noinline __u32 enav_copy_payload_compat(__u64 ret, __u32 cap)
{
	return copy_payload_body(l7_scratch_here(), ret, cap);
}

static __always_inline __u32 copy_payload(struct l7_scratch *sc, __u64 ret, __u32 cap, bool compat)
{
	return compat ? enav_copy_payload_compat(ret, cap) : enav_copy_payload(sc, ret, cap);
}

/* The segment holding logical offset pos (< 2^62), without a branch per
 * segment: each comparison is a sign bit.  Unused segments start at 2^62. */
static __always_inline __u32 segment_of(struct l7_scratch *sc, __u64 pos)
{
	__u64 idx = 0;
#pragma unroll
	for (int k = 1; k < L7_MAX_IOV; k++)
		idx += 1 - ((pos - sc->segstart[k]) >> 63);
	/* The sum is 0..7, but the verifier must see the mask. */
	barrier_var(idx);
	return idx & (L7_MAX_IOV - 1);
}

/* Read n (<= 9) bytes at logical offset pos of the call's buffers into
 * sc->hdr; they may straddle two segments.  Loop-free (an unrolled select of
 * the segment), so the verifier walks it once.  Returns 0 on success. */
static __always_inline int read_at(struct l7_scratch *sc, __u64 pos, __u32 n)
{
	__u32 idx = segment_of(sc, pos), nseg = sc->n_seg;
	__u64 off = pos - sc->segstart[idx];
	__u64 len = sc->seglen[idx];
	if (off >= len || n > 9 || n == 0)
		return -1;
	__u64 first = len - off < n ? len - off : n;
	if (!first || first > 9)
		return -1;
	/* The check above may be made on a copy of the register the call then
	 * reads; Linux 6.1's verifier does not carry the bound across and
	 * refuses a size that "may be negative".  Masked in the register itself. */
	enav_bound(first, 15);
	if (bpf_probe_read_user(sc->hdr, first, (void *)(sc->base[idx] + off)))
		return -1;
	if (first == n)
		return 0;
	__u32 next = (idx + 1) & (L7_MAX_IOV - 1);
	__u64 rest = n - first;
	if (idx + 1 >= nseg || rest > 9 || rest > sc->seglen[next])
		return -1;
	enav_bound(rest, 15);
	enav_bound(first, 15);
	return bpf_probe_read_user(sc->hdr + first, rest, (void *)sc->base[next]) ? -1 : 0;
}

#define H2_DATA 0

/*
 * The frame walk proper, as a global function (and its compat twin): the
 * verifier checks it once on its own, with generic arguments, instead of
 * once per path of the program that calls it.  Marks land in
 * sc->marks[0..nm).
 */
static __always_inline int h2_walk_body(struct l7_scratch *sc, struct h2_walk *w)
{
	if (!sc || !w)
		return 0;
	for (__u32 i = 0; i < ENAV_L7_MAX_MARKS; i++) {
		__u64 pos = w->pos;
		if (pos >= w->ret)
			return 0;
		__u32 idx = segment_of(sc, pos);
		__u64 off = pos - sc->segstart[idx];
		__u64 seg = sc->seglen[idx];
		void *src = (void *)(sc->base[idx] + off);
		struct enav_l7_mark *m = &sc->marks[i & (ENAV_L7_MAX_MARKS - 1)];
		m->offset = pos;
		if (pos + 9 <= w->ret) {
			if (off + 9 > seg || bpf_probe_read_user(m->hdr, 9, src)) {
				w->lost = 1; /* a header across two buffers: not followed */
				return 0;
			}
			m->avail = 9;
			w->nm = i + 1;
			w->pos =
			    pos + 9 + ((__u32)m->hdr[0] << 16 | (__u32)m->hdr[1] << 8 | m->hdr[2]);
			w->last_type = m->hdr[3];
			/* Header blocks and control frames are needed whole (HPACK is
			 * stateful); DATA frames only by their header. */
			__u64 end = m->hdr[3] == H2_DATA ? pos + 9 : w->pos;
			if (end > w->need)
				w->need = end;
			continue;
		}
		/* The call ends inside this header: keep its first bytes. */
		__u64 avail = w->ret - pos;
		if (off + avail > seg || avail > 8) {
			w->lost = 1;
			return 0;
		}
		if (bpf_probe_read_user(m->hdr, avail & 15, src)) {
			w->lost = 1;
			return 0;
		}
		m->avail = avail;
		w->part_len = avail;
		w->nm = i + 1;
		w->pos = w->ret;
		w->need = w->ret;
		return 0;
	}
	return 0;
}

__noinline int enav_h2_walk(struct l7_scratch *sc, struct h2_walk *w)
{
	return h2_walk_body(sc, w);
}

/* The walk's state in the scratch (sc->walk): no pointer argument. */
__noinline int enav_h2_walk_compat(void)
{
	struct l7_scratch *sc = l7_scratch_here();
	if (!sc)
		return 0;
	return h2_walk_body(sc, &sc->walk);
}

/*
 * HTTP/2: walk the frame headers through the whole call (the captured
 * prefix is often only part of it) and append a mark for every header not
 * wholly inside the captured bytes, so the parser can follow frames across
 * what it did not see.  The walk's position carries over to the next call.
 */
static __always_inline __u16 h2_walk(struct l7_scratch *sc, struct l7_stream *c, __u64 ret, int dir,
				     __u64 *need, __u8 *flags, bool compat)
{
	if (dir < 0 || dir > 1)
		return 0;
	if (c->h2_lost[dir]) {
		*flags |= ENAV_L7_MARKS_LOST;
		return 0;
	}
	__u64 pos = c->h2_next[dir];
	__u32 plen = c->h2_part_len[dir];
	if (plen) { /* finish a header the previous call split */
		__u32 need = (9 - plen) & 15;
		if (need > ret || plen > 8 || read_at(sc, 0, need)) {
			c->h2_lost[dir] = 1;
			*flags |= ENAV_L7_MARKS_LOST;
			return 0;
		}
		/* Only the 24-bit length matters here: its bytes come from the
		 * saved part or from the start of this call. */
		__u8 *part = c->h2_part[dir];
		__u32 b1 = plen >= 2 ? part[1] : sc->hdr[0];
		__u32 b2 = plen >= 3 ? part[2] : plen == 2 ? sc->hdr[0] : sc->hdr[1];
		__u32 flen = (__u32)part[0] << 16 | b1 << 8 | b2;
		__u32 type = plen >= 4 ? part[3] : sc->hdr[(3 - plen) & 15];
		pos = need + flen;
		c->h2_part_len[dir] = 0;
		c->h2_cur_type[dir] = type;
	}
	/* A frame continuing from the previous call: its payload counts too. */
	__u64 first_need = c->h2_cur_type[dir] == H2_DATA ? 0 : pos;
	struct h2_walk w = {.pos = pos, .ret = ret, .need = first_need};
	if (compat) {
		sc->walk = w;
		enav_h2_walk_compat();
		w = sc->walk;
	} else {
		enav_h2_walk(sc, &w);
	}
	pos = w.pos;
	*need = w.need;
	if (w.nm)
		c->h2_cur_type[dir] = w.last_type;
	if (w.lost) {
		c->h2_lost[dir] = 1;
		*flags |= ENAV_L7_MARKS_LOST;
		return w.nm;
	}
	if (w.part_len && w.nm) {
		__builtin_memcpy(c->h2_part[dir],
				 sc->marks[(w.nm - 1) & (ENAV_L7_MAX_MARKS - 1)].hdr, 9);
		c->h2_part_len[dir] = w.part_len;
	}
	__u16 nm = w.nm;
	if (pos < ret) { /* more frames than marks */
		c->h2_lost[dir] = 1;
		*flags |= ENAV_L7_MARKS_LOST;
	} else {
		c->h2_next[dir] = pos - ret;
	}
	return nm;
}

/*
 * The classifier (include/enav/l7_classify.h) as a global function (and its
 * compat twin): the verifier checks it once on its own instead of at each
 * of its three call sites along every path of the program that calls it.
 * n is clamped here: the classifier reads at most ENAV_L7_HEAD bytes.
 */
static __always_inline int classify_head_body(struct l7_scratch *sc, __u32 n, __u32 len,
					      int request)
{
	if (!sc)
		return ENAV_L7_CLASS_NONE;
	if (n > ENAV_L7_HEAD)
		n = ENAV_L7_HEAD;
	return enav_l7_classify(sc->e.payload, n, len, request != 0, enav_l7_protocols);
}

__noinline int enav_l7_classify_head(struct l7_scratch *sc, __u32 n, __u32 len, int request)
{
	return classify_head_body(sc, n, len, request);
}

__noinline int enav_l7_classify_head_compat(__u32 n, __u32 len, int request)
{
	return classify_head_body(l7_scratch_here(), n, len, request);
}

static __always_inline int classify_head(struct l7_scratch *sc, __u32 n, __u32 len, int request,
					 bool compat)
{
	return compat ? enav_l7_classify_head_compat(n, len, request)
		      : enav_l7_classify_head(sc, n, len, request);
}

/* One call's bytes, as l7_emit needs them described. */
struct l7_call {
	__u64 ret;   /* bytes the call moved */
	__u32 seq;   /* TCP sequence or TLS plaintext offset of the first byte */
	__u8 sent;   /* written by this task */
	__u8 nodata; /* sendfile: no user buffer */
	__u8 role;   /* enum enav_tcp_role of the socket */
	__u8 flags;  /* ENAV_L7_* known before the walk */
	__u8 tls_library;
	__u8 take_carry; /* report the connection's carried run on this record */
	__u8 pad[6];
	__u64 cgroup_id; /* the caller's, already looked up for the filter */
};

/*
 * Hand an L7 record to the transport.  The consumer is woken once per
 * 64 KiB this CPU emitted (ENAV_LAZY_WAKEUP_SHIFT), counted in the per-CPU
 * scratch: the ring's own pending count (bpf_ringbuf_query) would cost a
 * read of the line the consumer writes, on every record.  The consumer's
 * timer drains the rest within kernel.poll_interval_ms, as for
 * enav_emit_lazy.
 */
static __always_inline void l7_submit(void *ctx, struct l7_scratch *sc, void *e, __u64 size)
{
#ifdef ENAV_TRANSPORT_RINGBUF
	__u64 before = sc->emitted;
	sc->emitted = before + size;
	bool crosses =
	    (before >> ENAV_LAZY_WAKEUP_SHIFT) != ((before + size) >> ENAV_LAZY_WAKEUP_SHIFT);
	long err = bpf_ringbuf_output(&enav_events, e, size,
				      crosses ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	enav_count(err ? ENAV_KC_TRANSPORT_FULL : ENAV_KC_EMITTED);
#else
	enav_emit(ctx, e, size);
#endif
}

/*
 * Classify the stream on its first bytes (once), walk HTTP/2 frames, copy the
 * call's first bytes and emit them: shared by the syscall path (l7_capture,
 * below) and the TLS uprobes (net_tls.bpf.h).  sc's segments are loaded (unless nodata).  c, when
 * the TCP connection is known, gives the cached tuple; otherwise it is read from sk.
 */
static __always_inline void l7_emit_as(void *ctx, struct l7_scratch *sc, struct sock *sk,
				       struct l7_stream *st, struct conn *c, struct l7_call *call,
				       bool btf, bool compat)
{
	__u32 cap = enav_l7_capture;
	if (cap > ENAV_L7_PAYLOAD_MAX)
		cap = ENAV_L7_PAYLOAD_MAX;
	__u64 ret = call->ret;
	bool sent = call->sent, nodata = call->nodata;
	int dir = sent ? 0 : 1;
	if (st->l7 == ENAV_L7_CLASS_PENDING) {
		if (nodata)
			return;
		__u32 n = copy_payload(sc, ret, cap < ENAV_L7_HEAD ? cap : ENAV_L7_HEAD, compat);
		__u8 verdict;
		bool request = (call->role == ENAV_ROLE_CLIENT) == sent;
		if (call->role == ENAV_ROLE_UNKNOWN) {
			request = true;
			verdict = classify_head(sc, n, ret, 1, compat);
			if (verdict == ENAV_L7_CLASS_NONE) {
				request = false;
				verdict = classify_head(sc, n, ret, 0, compat);
			}
		} else {
			verdict = classify_head(sc, n, ret, request, compat);
		}
		st->l7 = verdict;
		if (verdict == ENAV_L7_CLASS_NONE)
			return;
		/* HTTP/2's client preface (24 bytes) precedes the first frame. */
		if (verdict == ENAV_L7C_HTTP2 && request)
			st->h2_next[dir] = 24;
	}
	struct enav_l7_event *e = &sc->e;
	__u8 flags = call->flags | (nodata ? ENAV_L7_NO_DATA : 0);
	__u16 marks = 0;
	bool h2 = st->l7 == ENAV_L7C_HTTP2 && !nodata;
	if (h2) {
		/* Walk first: the capture extends over every header block and
		 * control frame (up to the HTTP/2 cap), never into DATA. */
		__u64 need = 0;
		marks = h2_walk(sc, st, ret, dir, &need, &flags, compat);
		flags |= ENAV_L7_MARK_BLOCK;
		__u32 h2cap = enav_l7_h2_capture;
		if (h2cap > ENAV_L7_PAYLOAD_MAX)
			h2cap = ENAV_L7_PAYLOAD_MAX;
		if (need > cap)
			cap = need < h2cap ? need : h2cap;
	}
	__u32 n = nodata ? 0 : copy_payload(sc, ret, cap, compat);
	enav_fill_header(&e->hdr, ENAV_EVENT_L7_DATA, call->cgroup_id);
	e->sock_id = (__u64)sk;
	e->len = ret;
	e->captured = n;
	e->seq = call->seq;
	e->direction = sent ? ENAV_L7_SENT : ENAV_L7_RECEIVED;
	e->protocol = st->l7;
	e->role = call->role;
	e->flags = flags;
	e->n_marks = marks;
	if (c) {
		if (!c->have_tuple) {
			fill_tuple(sk, &c->family, &c->sport, &c->dport, c->saddr, c->daddr);
			c->have_tuple = 1;
		}
		e->family = c->family;
		e->sport = c->sport;
		e->dport = c->dport;
		__builtin_memcpy(e->saddr, c->saddr, 16);
		__builtin_memcpy(e->daddr, c->daddr, 16);
	} else {
		fill_tuple(sk, &e->family, &e->sport, &e->dport, e->saddr, e->daddr);
	}
	/* The process's name (its leader's), not the thread's: "kcat", not
	 * "rdk:broker0", so a workload is one label.  15 bytes: the 16th
	 * carries the TLS library. */
	if (btf && !compat) { /* plain loads through the BTF task: no helper calls */
		struct task_struct *task = bpf_get_current_task_btf();
		__builtin_memcpy(e->comm, task->group_leader->comm, sizeof(e->comm));
	} else {
		struct task_struct *task = (void *)bpf_get_current_task();
		BPF_CORE_READ_STR_INTO(&sc->comm, task, group_leader, comm);
		__builtin_memcpy(e->comm, sc->comm, sizeof(e->comm));
	}
	e->tls_library = call->tls_library;
	n &= 2 * ENAV_L7_PAYLOAD_MAX - 1;
	if (n > ENAV_L7_PAYLOAD_MAX)
		return;
	__u64 tail = n;
	if (h2) { /* the whole mark block, n_marks of it valid: a constant size */
		bpf_probe_read_kernel(e->payload + tail, sizeof(sc->marks), sc->marks);
		tail += sizeof(sc->marks);
	}
	if (call->take_carry && c && c->carry_len) {
		sc->carry.boot_ns = c->carry_ns;
		sc->carry.seq = c->carry_seq;
		sc->carry.len = c->carry_len;
		sc->carry.direction = c->carry_dir;
		c->carry_len = 0;
		e->flags = flags | ENAV_L7_CARRIED;
		enav_bound(tail, 8191); /* <= 4096 + the mark block, in the register itself */
		bpf_probe_read_kernel(e->payload + tail, sizeof(sc->carry), &sc->carry);
		tail += sizeof(sc->carry);
	}
	__u64 size = ENAV_OFFSETOF(struct enav_l7_event, payload) + tail;
	e->hdr.size = size;
	if (size <= sizeof(*e) + sizeof(sc->marks) + sizeof(sc->carry))
		l7_submit(ctx, sc, e, size);
}

/* l7_emit_as for callers whose sk is not a BTF pointer (uprobes, sys_exit). */
static __always_inline void l7_emit(void *ctx, struct l7_scratch *sc, struct sock *sk,
				    struct l7_stream *st, struct conn *c, struct l7_call *call,
				    bool compat)
{
	l7_emit_as(ctx, sc, sk, st, c, call, false, compat);
}

/*
 * A call without a user buffer (sendfile, splice) on a classified
 * connection: its record would say only "len bytes, none captured", so the
 * bytes join the connection's carried run instead, reported on its next
 * record (one ring record less per static file served).  Returns false
 * when the call needs a record of its own: the connection is not
 * classified yet (then it has none either), or the call does not continue
 * the run (another direction, a sequence jump), which then rides on it.
 */
static __always_inline bool l7_carry(struct conn *c, __u32 seq, long ret, bool sent)
{
	__u8 l7 = c->l7s.l7;
	if (l7 == ENAV_L7_CLASS_PENDING || l7 == ENAV_L7_CLASS_NONE)
		return false;
	__u8 dir = sent ? ENAV_L7_SENT : ENAV_L7_RECEIVED;
	__u32 len = c->carry_len;
	if (len == 0) {
		c->carry_seq = seq;
		c->carry_dir = dir;
	} else if (c->carry_dir != dir || c->carry_seq + len != seq ||
		   len + (__u64)ret > 1u << 30) {
		return false;
	}
	c->carry_len = len + (__u32)ret;
	c->carry_ns = bpf_ktime_get_boot_ns();
	return true;
}

/*
 * Request links (ADR 0021).  On a classified stream that carries one
 * exchange at a time (not HTTP/2), a change of direction starts or ends a
 * request: a server's receive after a send (or its first) starts the one it
 * serves, its first send after that ends it; a client's send starts the call
 * it awaits, its first receive ends it.  The start is kept per thread as
 * (socket, TCP sequence of the first byte), which the L7 tracker computes
 * the same way from the records.  The end clears it, and says on its record
 * (ENAV_L7_LINK_SAMPLED) when a sample named the request.
 */
static __always_inline bool link_stream(struct conn *c)
{
	__u8 l7 = c->l7s.l7;
	return enav_links_on && c->role != ENAV_ROLE_UNKNOWN && l7 != ENAV_L7_CLASS_PENDING &&
	       l7 != ENAV_L7_CLASS_NONE && l7 != ENAV_L7C_HTTP2;
}

/* Before the call's record: when it ends the thread's request on sk, clear
 * it and flag the record when the request was sampled. */
static __always_inline void link_end(struct conn *c, struct sock *sk, bool sent, __u8 *flags)
{
	__u8 dir = sent ? ENAV_L7_SENT : ENAV_L7_RECEIVED;
	if (!link_stream(c) || c->link_dir == dir || c->link_dir == 0)
		return;
	bool server = c->role == ENAV_ROLE_SERVER;
	if (server != sent) /* a server's receive or a client's send starts, not ends */
		return;
	struct enav_req_link *l = enav_req_link_of((__u32)bpf_get_current_pid_tgid());
	if (!l)
		return;
	struct enav_req_side *side = server ? &l->server : &l->client;
	if (side->sock_id != (__u64)sk)
		return;
	if (side->flags & ENAV_LINK_SAMPLED)
		*flags |= ENAV_L7_LINK_SAMPLED;
	side->sock_id = 0;
	side->flags = 0;
}

/* After the call's record: note its direction, and when it starts a request
 * keep (sk, seq) as the thread's. */
static __always_inline void link_start(struct conn *c, struct sock *sk, __u32 seq, bool sent)
{
	__u8 dir = sent ? ENAV_L7_SENT : ENAV_L7_RECEIVED;
	if (!link_stream(c) || c->link_dir == dir)
		return;
	c->link_dir = dir;
	bool server = c->role == ENAV_ROLE_SERVER;
	if (server == sent)
		return;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct enav_req_link *l = bpf_map_lookup_elem(&enav_req_links, &tid);
	if (!l) {
		struct enav_req_link fresh = {};
		struct enav_req_side *side = server ? &fresh.server : &fresh.client;
		side->sock_id = (__u64)sk;
		side->seq = seq;
		if (bpf_map_update_elem(&enav_req_links, &tid, &fresh, BPF_ANY))
			enav_count(ENAV_KC_MAP_FULL);
		return;
	}
	struct enav_req_side *side = server ? &l->server : &l->client;
	/* Another connection's request still open on this thread: it serves
	 * several at once, so what a sample is attached to is inferred. */
	__u32 shared = side->sock_id && side->sock_id != (__u64)sk ? ENAV_LINK_SHARED : 0;
	side->sock_id = (__u64)sk;
	side->seq = seq;
	side->flags = shared;
}

/*
 * The call's bytes on a followed TCP connection c (classified or pending):
 * called by the socket-level programs and by the sys_exit fallback, with the
 * call's arguments in p and the bytes it moved on this socket in ret.
 */
static __always_inline void l7_capture(void *ctx, struct sock *sk, struct conn *c,
				       struct pending *p, long ret, bool sent, bool btf,
				       __u64 cgroup_id, bool compat)
{
	/* Not enav_scratch(): through it the compiler lays sys_exit out anew,
	 * and this program's code is kept as the kernel matrix proved it. */
	__u32 zero = 0;
	struct l7_scratch *sc = bpf_map_lookup_elem(&enav_l7_scratch, &zero);
	if (!sc) {
		enav_count(ENAV_KC_SCRATCH_MISSING);
		return;
	}
	bool nodata = p->nr == NR_sendfile;
	if (!nodata && !load_segments(sc, p)) {
		enav_count(ENAV_KC_USER_READ_FAULT);
		return;
	}
	/* A read that also consumed the peer's FIN advanced copied_seq one past
	 * the data (tcp_recvmsg counts the FIN): after it, rcv_nxt == copied_seq
	 * on a receive-shut socket.  (A later read returns 0 and is not seen.) */
	__u32 end;
	if (btf) {
		struct tcp_sock *tp = bpf_skc_to_tcp_sock(sk);
		if (!tp)
			return;
		end = sent ? tp->write_seq : tp->copied_seq;
		if (!sent && (BPF_CORE_READ_BITFIELD(sk, sk_shutdown) & RCV_SHUTDOWN) &&
		    tp->rcv_nxt == end)
			end -= 1;
	} else {
		struct tcp_sock *tp = (void *)sk;
		end = sent ? BPF_CORE_READ(tp, write_seq) : BPF_CORE_READ(tp, copied_seq);
		if (!sent && (BPF_CORE_READ_BITFIELD_PROBED(sk, sk_shutdown) & RCV_SHUTDOWN) &&
		    BPF_CORE_READ(tp, rcv_nxt) == end)
			end -= 1;
	}
	__u32 seq = end - (__u32)ret;
	if (nodata && l7_carry(c, seq, ret, sent))
		return;
	__u8 flags = ENAV_L7_SEQ_VALID;
	link_end(c, sk, sent, &flags);
	struct l7_call call = {
	    .ret = ret,
	    .seq = seq,
	    .sent = sent,
	    .nodata = nodata,
	    .role = c->role,
	    .flags = flags,
	    .take_carry = 1,
	    .cgroup_id = cgroup_id,
	};
	l7_emit_as(ctx, sc, sk, &c->l7s, c, &call, btf, compat);
	link_start(c, sk, seq, sent);
}

#endif
