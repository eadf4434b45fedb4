/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TCP connections: their lifecycle from sock:inet_sock_set_state, their
 * retransmits, and the bytes each moved (counted here, called from the
 * socket-level programs in net_payload.bpf.h).  Only opens and closes are
 * emitted; bytes accumulate in the connection map.  Separate because it
 * follows the socket layer, not the syscall's buffers the payload, L7 and
 * TLS parts read.
 */
#ifndef ENAV_NET_TCP_BPF_H
#define ENAV_NET_TCP_BPF_H

#include "net_sock.bpf.h"

static __always_inline void emit_tcp(void *ctx, struct sock *sk, struct conn *c, __u8 kind,
				     int oldstate, int newstate)
{
	struct enav_tcp_event e = {};
	e.hdr.type = ENAV_EVENT_TCP;
	e.hdr.abi_version = ENAV_ABI_VERSION;
	e.hdr.size = sizeof(e);
	e.hdr.boot_time_ns = bpf_ktime_get_boot_ns();
	e.hdr.cgroup_id = c->cgroup_id;
	e.hdr.pid = c->pid;
	e.hdr.tid = c->tid;
	e.sock_id = (__u64)sk;
	e.start_boot_ns = c->start_boot_ns;
	e.bytes_sent = c->bytes_sent;
	e.bytes_received = c->bytes_received;
	e.retransmits = c->retransmits;
	struct tcp_sock *tp = (void *)sk;
	e.srtt_us = BPF_CORE_READ(tp, srtt_us) >> 3;
	e.kind = kind;
	e.role = c->role;
	e.oldstate = oldstate;
	e.newstate = newstate;
	e.flags = c->flags;
	if (kind == ENAV_TCP_CLOSE && !c->seen_fin)
		e.flags |= ENAV_TCP_RESET;
	__builtin_memcpy(e.comm, c->comm, sizeof(e.comm));
	if (!c->have_tuple) {
		fill_tuple(sk, &c->family, &c->sport, &c->dport, c->saddr, c->daddr);
		c->have_tuple = 1;
	}
	e.family = c->family;
	e.sport = c->sport;
	e.dport = c->dport;
	__builtin_memcpy(e.saddr, c->saddr, 16);
	__builtin_memcpy(e.daddr, c->daddr, 16);
	enav_emit(ctx, &e, sizeof(e));
}

/*
 * A connection closing with a carried run (net_l7.bpf.h, l7_carry) that no
 * later record reported: the run gets a record of its own, "len bytes, none
 * captured", before the close event, so the parser sees the end of the
 * last message before the connection ends.  Built on the stack, not in the
 * per-CPU scratch: this may run in a softirq that interrupted a socket
 * hook in the middle of a record there.  Attributed to the owner.
 */
static __always_inline void l7_flush_carry(void *ctx, struct sock *sk, struct conn *c)
{
	__u8 l7 = c->l7s.l7;
	/* A connection that went TLS since (tls_bind_socket) drops its run. */
	if (!c->carry_len || l7 == ENAV_L7_CLASS_PENDING || l7 == ENAV_L7_CLASS_NONE)
		return;
	struct enav_l7_event_fixed {
		__u8 b[ENAV_OFFSETOF(struct enav_l7_event, payload)];
	} rec = {};
	struct enav_l7_event *e = (void *)&rec;
	e->hdr.type = ENAV_EVENT_L7_DATA;
	e->hdr.abi_version = ENAV_ABI_VERSION;
	e->hdr.size = sizeof(rec);
	e->hdr.boot_time_ns = c->carry_ns;
	e->hdr.cgroup_id = c->cgroup_id;
	e->hdr.pid = c->pid;
	e->hdr.tid = c->tid;
	e->sock_id = (__u64)sk;
	e->len = c->carry_len;
	e->seq = c->carry_seq;
	e->direction = c->carry_dir;
	e->protocol = l7;
	e->role = c->role;
	e->flags = ENAV_L7_SEQ_VALID | ENAV_L7_NO_DATA;
	e->family = c->family;
	e->sport = c->sport;
	e->dport = c->dport;
	__builtin_memcpy(e->saddr, c->saddr, 16);
	__builtin_memcpy(e->daddr, c->daddr, 16);
	__builtin_memcpy(e->comm, c->comm, sizeof(e->comm));
	c->carry_len = 0;
	enav_emit(ctx, &rec, sizeof(rec));
}

/* Record the current task as the owner, if the filter admits it. */
static __always_inline bool take_owner(struct conn *c)
{
	__u64 cg = bpf_get_current_cgroup_id();
	if (!enav_admitted(cg))
		return false;
	__u64 id = bpf_get_current_pid_tgid();
	c->cgroup_id = cg;
	c->pid = id >> 32;
	c->tid = (__u32)id;
	c->flags &= ~ENAV_TCP_OWNER_UNKNOWN;
	bpf_get_current_comm(c->comm, sizeof(c->comm));
	return true;
}

static __always_inline int handle_state(void *ctx, struct sock *sk, int oldstate, int newstate)
{
	if (sk_protocol(sk) != IPPROTO_TCP)
		return 0;
	__u64 key = (__u64)sk;
	struct conn *c = bpf_map_lookup_elem(&enav_conns, &key);

	if (oldstate == TCP_CLOSE && newstate == TCP_SYN_SENT) {
		/* connect(): process context, the connecting task owns it. */
		struct conn n = {.start_boot_ns = bpf_ktime_get_boot_ns(),
				 .role = ENAV_ROLE_CLIENT};
		if (!take_owner(&n))
			return 0;
		if (bpf_map_update_elem(&enav_conns, &key, &n, BPF_ANY) != 0)
			enav_count(ENAV_KC_MAP_FULL);
		return 0;
	}
	if (oldstate == TCP_LISTEN && newstate == TCP_SYN_RECV) {
		/* Softirq: the owner is whoever accepts it (sys_exit of accept). */
		struct conn n = {.start_boot_ns = bpf_ktime_get_boot_ns(),
				 .role = ENAV_ROLE_SERVER,
				 .flags = ENAV_TCP_OWNER_UNKNOWN};
		if (bpf_map_update_elem(&enav_conns, &key, &n, BPF_ANY) != 0)
			enav_count(ENAV_KC_MAP_FULL);
		return 0;
	}
	if (!c)
		return 0; /* not ours: filtered, or predates attachment (seen at first use) */
	if (newstate == TCP_ESTABLISHED && c->role == ENAV_ROLE_CLIENT && !c->opened) {
		c->opened = 1;
		emit_tcp(ctx, sk, c, ENAV_TCP_OPEN, oldstate, newstate);
		return 0;
	}
	if (newstate >= TCP_FIN_WAIT1 && newstate != TCP_CLOSE && newstate != TCP_LISTEN)
		c->seen_fin = 1;
	if (newstate == TCP_CLOSE) {
		l7_flush_carry(ctx, sk, c);
		bool established = c->opened || (c->flags & ENAV_TCP_PREDATES_ATTACH);
		/* A server connection nobody accepted stays unattributed: drop it. */
		if (established || c->role == ENAV_ROLE_CLIENT)
			emit_tcp(ctx, sk, c, established ? ENAV_TCP_CLOSE : ENAV_TCP_FAILED,
				 oldstate, newstate);
		bpf_map_delete_elem(&enav_conns, &key);
	}
	return 0;
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(enav_tcp_state_btf, const struct sock *sk, const int oldstate, const int newstate)
{
	return handle_state(ctx, (struct sock *)sk, oldstate, newstate);
}

SEC("raw_tp/inet_sock_set_state")
int BPF_PROG(enav_tcp_state_raw, const struct sock *sk, const int oldstate, const int newstate)
{
	return handle_state(ctx, (struct sock *)sk, oldstate, newstate);
}

static __always_inline int handle_retransmit(struct sock *sk)
{
	__u64 key = (__u64)sk;
	struct conn *c = bpf_map_lookup_elem(&enav_conns, &key);
	if (c)
		__sync_fetch_and_add(&c->retransmits, 1);
	return 0;
}

SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(enav_tcp_retrans_btf, const struct sock *sk)
{
	return handle_retransmit((struct sock *)sk);
}

SEC("raw_tp/tcp_retransmit_skb")
int BPF_PROG(enav_tcp_retrans_raw, const struct sock *sk)
{
	return handle_retransmit((struct sock *)sk);
}

/* A connection first seen in use: it predates attachment. */
static __always_inline struct conn *adopt(struct sock *sk)
{
	__u64 key = (__u64)sk;
	struct conn n = {.start_boot_ns = bpf_ktime_get_boot_ns(),
			 .flags = ENAV_TCP_PREDATES_ATTACH};
	if (!take_owner(&n))
		return NULL;
	fill_tuple(sk, &n.family, &n.sport, &n.dport, n.saddr, n.daddr);
	n.have_tuple = 1;
	if (bpf_map_update_elem(&enav_conns, &key, &n, BPF_NOEXIST) != 0 &&
	    !bpf_map_lookup_elem(&enav_conns, &key)) {
		enav_count(ENAV_KC_MAP_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(&enav_conns, &key);
}

/*
 * Bytes the socket layer moved for the current task, counted on the TCP
 * connection's record: called by the socket-level programs
 * (net_payload.bpf.h) once per sendmsg/recvmsg that reached the socket, with
 * the byte count the caller got back.  Returns the record (NULL when the
 * connection is not followed), which the payload part reuses.
 */
static __always_inline struct conn *count_bytes(void *ctx, struct sock *sk, int ret, bool sent,
						bool btf)
{
	__u16 family = SK_READ(btf, sk, __sk_common.skc_family);
	if (family != AF_INET && family != AF_INET6)
		return NULL;
	__u64 key = (__u64)sk;
	struct conn *c = bpf_map_lookup_elem(&enav_conns, &key);
	if (!c)
		c = adopt(sk);
	if (!c)
		return NULL;
	if (c->flags & ENAV_TCP_OWNER_UNKNOWN) {
		/* A server connection's first data: its process is now known. */
		if (!take_owner(c)) { /* the filter denies its owner: forget it */
			bpf_map_delete_elem(&enav_conns, &key);
			return NULL;
		}
		if (!c->opened) {
			c->opened = 1;
			emit_tcp(ctx, sk, c, ENAV_TCP_OPEN, TCP_SYN_RECV, TCP_ESTABLISHED);
		}
	}
	if (sent)
		__sync_fetch_and_add(&c->bytes_sent, ret);
	else
		__sync_fetch_and_add(&c->bytes_received, ret);
	return c;
}

#endif
