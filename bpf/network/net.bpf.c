/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TCP connections with exact byte counts, and DNS payloads.
 *
 *  - sock:inet_sock_set_state gives the lifecycle (connect, SYN received,
 *    established, close) keyed by the socket;
 *  - sock:sock_send_length and sock:sock_recv_length count the bytes the
 *    socket layer returned to the calling process: the figure the
 *    application itself sees, for every syscall that reaches a socket;
 *  - one sys_exit program, filtered by syscall number first, copies DNS
 *    payloads (port 53, UDP and TCP) out of the caller's buffer;
 *  - tcp:tcp_retransmit_skb counts retransmitted segments;
 *  - the same sys_exit program classifies each TCP connection once, from
 *    the first bytes it moves, against the enabled application protocols,
 *    caches the verdict in the connection map, and copies the first bytes
 *    of every read and write of a matching connection (ENAV_EVENT_L7_DATA).
 *    A connection that matches nothing costs a map lookup per call after.
 *
 * Bytes accumulate in the connection map; only opens, closes and DNS
 * payloads are emitted.  Attribution is the process that used the socket
 * (client: the connecting task; server: the first task to move data on it), never the
 * task that happened to run a softirq.
 */
#include "enav_common.bpf.h"
#include "enav/l7_classify.h"
#include <bpf/bpf_endian.h>

#define AF_INET	     2
#define AF_INET6     10
#define IPPROTO_TCP  6
#define IPPROTO_UDP  17
#define S_IFMT	     00170000
#define S_IFSOCK     0140000
#define DNS_PORT     53
#define MSG_PEEK     2
#define RCV_SHUTDOWN 1

/* x86_64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl). */
#define NR_read	    0
#define NR_write    1
#define NR_readv    19
#define NR_writev   20
#define NR_sendfile 40
#define NR_sendto   44
#define NR_recvfrom 45
#define NR_sendmsg  46
#define NR_recvmsg  47
#define NR_recvmmsg 299
#define NR_sendmmsg 307

/* TCP states (include/net/tcp_states.h) */
#define TCP_ESTABLISHED 1
#define TCP_SYN_SENT	2
#define TCP_SYN_RECV	3
#define TCP_FIN_WAIT1	4
#define TCP_CLOSE	7
#define TCP_LISTEN	10

/* Application-protocol state of one byte stream: the syscall bytes of a TCP
 * connection, or the plaintext of a TLS session (bpf/network/net_tls.bpf.h). */
struct l7_stream {
	__u32 h2_next[2]; /* bytes before the next frame header, from the next call's start */
	__u8 l7;	  /* ENAV_L7_CLASS_PENDING, _NONE, or the protocol */
	/* HTTP/2 frame walk, per direction (0 sent, 1 received). */
	__u8 h2_lost[2];     /* sync lost: no more marks */
	__u8 h2_part_len[2]; /* a frame header split across calls: its bytes so far */
	__u8 h2_cur_type[2]; /* type of the frame those bytes belong to */
	__u8 h2_part[2][9];
	__u8 pad[3];
};

struct conn {
	__u64 start_boot_ns;
	__u64 cgroup_id;
	__u64 bytes_sent;
	__u64 bytes_received;
	__u32 pid;
	__u32 tid;
	__u32 retransmits;
	__u8 role;
	__u8 flags;
	__u8 opened;   /* ENAV_TCP_OPEN already emitted */
	__u8 seen_fin; /* passed through a FIN state: orderly close */
	__u8 have_tuple;
	__u8 pad[3];
	struct l7_stream l7s;
	__u16 family, sport, dport;
	__u8 saddr[16], daddr[16]; /* kept: a closing socket has lost its local port */
	char comm[ENAV_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536); /* kernel.max_connections, set before load */
	__type(key, __u64);	    /* struct sock * */
	__type(value, struct conn);
} enav_conns SEC(".maps");

/* The call's arguments, read back from the saved user registers at exit. */
struct pending {
	__u64 nr;
	__u64 fd;
	__u64 buf; /* user buffer, iovec/msghdr/mmsghdr pointer */
	__u64 arg3;
	__u64 arg4;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct enav_dns_event);
} enav_dns_scratch SEC(".maps");

/* sources.network.dns_capture_bytes, set before load (<= ENAV_DNS_PAYLOAD_MAX). */
const volatile __u32 enav_dns_capture = ENAV_DNS_PAYLOAD_MAX;

/* sources.network.l7: enabled protocols (bit = enum enav_l7_protocol value)
 * and bytes copied per call (<= ENAV_L7_PAYLOAD_MAX); set before load. */
const volatile __u32 enav_l7_protocols = 0;
const volatile __u32 enav_l7_capture = 256;
/* HTTP/2 header blocks are captured whole up to this (HPACK is stateful:
 * one missed byte ends the connection's parsing). */
const volatile __u32 enav_l7_h2_capture = ENAV_L7_PAYLOAD_MAX;

#define L7_MAX_IOV 8

/* Payload copies land at a masked offset below ENAV_L7_PAYLOAD_MAX with a
 * masked length of at most ENAV_L7_PAYLOAD_MAX: the slack keeps every copy
 * provably inside the buffer. */
struct l7_scratch {
	struct enav_l7_event e;
	__u8 slack[ENAV_L7_PAYLOAD_MAX];
	/* The call's buffers: none (one contiguous buffer) or its first iovecs. */
	__u64 base[L7_MAX_IOV];
	__u64 seglen[L7_MAX_IOV];
	__u64 segstart[L7_MAX_IOV]; /* logical offset of each segment's first byte */
	__u32 n_seg;
	__u8 hdr[32]; /* read_at's output: variable offsets are not allowed on the stack */
	char comm[ENAV_COMM_LEN];
	struct enav_l7_mark marks[ENAV_L7_MAX_MARKS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct l7_scratch);
} enav_l7_scratch SEC(".maps");

/* The calls a resolver moves DNS messages with. */
static __always_inline bool is_dns_syscall(long nr)
{
	switch (nr) {
	case NR_read:
	case NR_write:
	case NR_sendto:
	case NR_recvfrom:
	case NR_sendmsg:
	case NR_recvmsg:
	case NR_recvmmsg:
	case NR_sendmmsg:
		return true;
	}
	return false;
}

static __always_inline bool is_send(__u64 nr)
{
	return nr == NR_write || nr == NR_sendto || nr == NR_sendmsg || nr == NR_sendmmsg ||
	       nr == NR_writev || nr == NR_sendfile;
}

/* Calls whose bytes the application-protocol capture follows. */
static __always_inline bool is_l7_syscall(long nr)
{
	switch (nr) {
	case NR_read:
	case NR_write:
	case NR_readv:
	case NR_writev:
	case NR_sendto:
	case NR_recvfrom:
	case NR_sendmsg:
	case NR_recvmsg:
	case NR_sendfile:
		return true;
	}
	return false;
}

/* fd -> struct sock of a TCP or UDP inet socket, or NULL. */
static __always_inline struct sock *fd_to_sock(__u64 fd)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct file **fds = BPF_CORE_READ(task, files, fdt, fd);
	unsigned int max = BPF_CORE_READ(task, files, fdt, max_fds);
	if (fd >= max)
		return NULL;
	struct file *file = NULL;
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	if (!file)
		return NULL;
	umode_t mode = BPF_CORE_READ(file, f_inode, i_mode);
	if ((mode & S_IFMT) != S_IFSOCK)
		return NULL;
	struct socket *sock = BPF_CORE_READ(file, private_data);
	struct sock *sk = BPF_CORE_READ(sock, sk);
	if (!sk)
		return NULL;
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);
	if (family != AF_INET && family != AF_INET6)
		return NULL;
	return sk;
}

static __always_inline __u8 sk_protocol(struct sock *sk)
{
	return BPF_CORE_READ_BITFIELD_PROBED(sk, sk_protocol);
}

static __always_inline void fill_tuple(struct sock *sk, __u16 *family, __u16 *sport, __u16 *dport,
				       __u8 saddr[16], __u8 daddr[16])
{
	*family = BPF_CORE_READ(sk, __sk_common.skc_family);
	*sport = BPF_CORE_READ(sk, __sk_common.skc_num);
	*dport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	if (*family == AF_INET) {
		__u32 s = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
		__u32 d = BPF_CORE_READ(sk, __sk_common.skc_daddr);
		__builtin_memcpy(saddr, &s, 4);
		__builtin_memcpy(daddr, &d, 4);
	} else {
		BPF_CORE_READ_INTO(saddr, sk, __sk_common.skc_v6_rcv_saddr.in6_u.u6_addr8);
		BPF_CORE_READ_INTO(daddr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
	}
}

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

/* Record the current task as the owner, if the filter admits it. */
static __always_inline bool take_owner(struct conn *c)
{
	__u64 cg = bpf_get_current_cgroup_id();
	if (!enav_capture_allowed(cg)) {
		enav_count(ENAV_KC_FILTERED);
		return false;
	}
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

/* ---- the socket API ------------------------------------------------------ */

/*
 * At sys_exit the saved user registers still hold the call's arguments (the
 * kernel only writes the return value into ax), so one program at exit does
 * the work: no sys_enter hook and no per-thread map on every syscall.
 */
static __always_inline void read_args(struct pt_regs *regs, long nr, struct pending *p)
{
	p->nr = nr;
	p->fd = PT_REGS_PARM1_CORE_SYSCALL(regs);
	p->buf = PT_REGS_PARM2_CORE_SYSCALL(regs);
	p->arg3 = PT_REGS_PARM3_CORE_SYSCALL(regs);
	p->arg4 = PT_REGS_PARM4_CORE_SYSCALL(regs);
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

static __always_inline void emit_dns(void *ctx, struct sock *sk, __u64 buf, __u64 ret, bool sent,
				     bool is_msghdr, bool tcp)
{
	__u32 zero = 0;
	struct enav_dns_event *e = bpf_map_lookup_elem(&enav_dns_scratch, &zero);
	if (!e)
		return;
	__u64 src = buf;
	struct user_msghdr mh = {};
	if (is_msghdr) { /* first iovec of a msghdr (or of the first mmsghdr) */
		struct iovec iov;
		if (bpf_probe_read_user(&mh, sizeof(mh), (void *)buf) ||
		    bpf_probe_read_user(&iov, sizeof(iov), mh.msg_iov))
			return;
		src = (__u64)iov.iov_base;
		if (ret > iov.iov_len)
			ret = iov.iov_len;
	}
	enav_fill_header(&e->hdr, ENAV_EVENT_DNS, bpf_get_current_cgroup_id());
	fill_tuple(sk, &e->family, &e->sport, &e->dport, e->saddr, e->daddr);
	/* An unconnected socket (a server's) names its peer in msg_name. */
	if (e->dport == 0 && mh.msg_name) {
		if (e->family == AF_INET) {
			struct sockaddr_in sa;
			if (!bpf_probe_read_user(&sa, sizeof(sa), mh.msg_name)) {
				e->dport = bpf_ntohs(sa.sin_port);
				__builtin_memcpy(e->daddr, &sa.sin_addr.s_addr, 4);
			}
		} else {
			struct sockaddr_in6 sa6;
			if (!bpf_probe_read_user(&sa6, sizeof(sa6), mh.msg_name)) {
				e->dport = bpf_ntohs(sa6.sin6_port);
				__builtin_memcpy(e->daddr, sa6.sin6_addr.in6_u.u6_addr8, 16);
			}
		}
	}
	e->direction = sent ? ENAV_DNS_SENT : ENAV_DNS_RECEIVED;
	e->tcp = tcp;
	e->payload_len = ret;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	__u32 cap = enav_dns_capture;
	if (cap > ENAV_DNS_PAYLOAD_MAX)
		cap = ENAV_DNS_PAYLOAD_MAX;
	__u32 n = ret < cap ? ret : cap;
	n &= (ENAV_DNS_PAYLOAD_MAX << 1) - 1;
	if (n > ENAV_DNS_PAYLOAD_MAX)
		n = ENAV_DNS_PAYLOAD_MAX;
	if (n && bpf_probe_read_user(e->payload, n, (void *)src) != 0) {
		enav_count(ENAV_KC_USER_READ_FAULT);
		return;
	}
	e->captured_len = n;
	__u64 size = ENAV_OFFSETOF(struct enav_dns_event, payload) + n;
	e->hdr.size = size;
	if (size <= sizeof(*e))
		enav_emit(ctx, e, size);
}

/* DNS payloads for UDP and TCP port 53 (the syscall gives the user buffer). */
static __always_inline void dns_capture(void *ctx, struct sock *sk, struct pending *p, long ret,
					bool sent)
{
	__u8 proto = sk_protocol(sk);
	if (proto != IPPROTO_UDP && proto != IPPROTO_TCP)
		return;
	__u16 dport = bpf_ntohs(BPF_CORE_READ(sk, __sk_common.skc_dport));
	__u16 sport = BPF_CORE_READ(sk, __sk_common.skc_num);
	if (dport != DNS_PORT && sport != DNS_PORT)
		return;
	bool mmsg = p->nr == NR_sendmmsg || p->nr == NR_recvmmsg;
	bool msg = p->nr == NR_sendmsg || p->nr == NR_recvmsg || mmsg;
	if (mmsg) { /* the first message's length, not the count of messages */
		__u32 len = 0;
		bpf_probe_read_user(&len, sizeof(len), &((struct mmsghdr *)p->buf)->msg_len);
		ret = len;
	}
	emit_dns(ctx, sk, p->buf, ret, sent, msg, proto == IPPROTO_TCP);
}

/*
 * Bytes the socket layer moved for the current task: sock:sock_send_length
 * and sock:sock_recv_length fire once per sendmsg/recvmsg at the socket, for
 * every syscall that reaches it (read, write, *v, send*, recv*, *mmsg per
 * message, sendfile and splice), with the byte count the caller got back.
 */
static __always_inline int count_bytes(void *ctx, struct sock *sk, int ret, int flags, bool sent)
{
	if (ret <= 0 || (!sent && (flags & MSG_PEEK)))
		return 0; /* a peek is read again for real later */
	if (sk_protocol(sk) != IPPROTO_TCP)
		return 0;
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);
	if (family != AF_INET && family != AF_INET6)
		return 0;
	__u64 key = (__u64)sk;
	struct conn *c = bpf_map_lookup_elem(&enav_conns, &key);
	if (!c)
		c = adopt(sk);
	if (!c)
		return 0;
	if (c->flags & ENAV_TCP_OWNER_UNKNOWN) {
		/* A server connection's first data: its process is now known. */
		if (!take_owner(c)) { /* the filter denies its owner: forget it */
			bpf_map_delete_elem(&enav_conns, &key);
			return 0;
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
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(enav_sock_send_btf, struct sock *sk, int ret, int flags)
{
	return count_bytes(ctx, sk, ret, flags, true);
}

SEC("raw_tp/sock_send_length")
int BPF_PROG(enav_sock_send_raw, struct sock *sk, int ret, int flags)
{
	return count_bytes(ctx, sk, ret, flags, true);
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(enav_sock_recv_btf, struct sock *sk, int ret, int flags)
{
	return count_bytes(ctx, sk, ret, flags, false);
}

SEC("raw_tp/sock_recv_length")
int BPF_PROG(enav_sock_recv_raw, struct sock *sk, int ret, int flags)
{
	return count_bytes(ctx, sk, ret, flags, false);
}

/*
 * The same counters on kernels whose probe loads fexit (hooks: fexit), which
 * includes kernels older than 6.3 without the sock_*_length tracepoints:
 * tcp_sendmsg and tcp_recvmsg return what the caller gets back.  Arguments
 * and the return value are read with bpf_get_func_arg/_ret (5.17+), so the
 * programs do not depend on tcp_recvmsg's signature (its nonblock argument
 * went away in 5.19).  Not proven: this kernel refuses fexit
 * (docs/boundaries.md); only one of the two variants ever loads.
 */
SEC("fexit/tcp_sendmsg")
int enav_tcp_send_fexit(void *ctx)
{
	__u64 sk = 0, ret = 0;
	if (bpf_get_func_arg(ctx, 0, &sk) || bpf_get_func_ret(ctx, &ret))
		return 0;
	return count_bytes(ctx, (struct sock *)sk, (int)ret, 0, true);
}

SEC("fexit/tcp_recvmsg")
int enav_tcp_recv_fexit(void *ctx)
{
	__u64 sk = 0, ret = 0, flags = 0;
	/* (sk, msg, len, flags, addr_len) since 5.19; (sk, msg, len, nonblock,
	 * flags, addr_len) before. */
	__u32 flags_at = bpf_get_func_arg_cnt(ctx) == 6 ? 4 : 3;
	if (bpf_get_func_arg(ctx, 0, &sk) || bpf_get_func_arg(ctx, flags_at, &flags) ||
	    bpf_get_func_ret(ctx, &ret))
		return 0;
	return count_bytes(ctx, (struct sock *)sk, (int)ret, (int)flags, false);
}

/*
 * Before Linux 6.5 a file sent with sendfile(2) or splice(2) (nginx's static
 * files) reaches TCP through tcp_sendpage, never tcp_sendmsg: without this
 * the fexit path misses those bytes (seen on Debian 12's 6.1: 738 of
 * 3,146,466 bytes).  Loaded only where the kernel has the function
 * (net_source.c); 6.5 folded it into tcp_sendmsg (MSG_SPLICE_PAGES).
 */
SEC("fexit/tcp_sendpage")
int enav_tcp_sendpage_fexit(void *ctx)
{
	__u64 sk = 0, ret = 0;
	if (bpf_get_func_arg(ctx, 0, &sk) || bpf_get_func_ret(ctx, &ret))
		return 0;
	return count_bytes(ctx, (struct sock *)sk, (int)ret, 0, true);
}

/* ---- application payloads ---------------------------------------------- */

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

/* Copy up to cap bytes from the start of the call's buffers into the scratch
 * payload; returns the bytes copied. */
static __always_inline __u32 copy_payload(struct l7_scratch *sc, __u64 ret, __u32 cap)
{
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

struct h2_walk {
	__u64 pos, ret;
	__u64 need; /* bytes to capture: through the last non-DATA frame's payload */
	__u32 nm;
	__u8 lost, part_len;
	__u8 last_type; /* the frame the call ends in */
	__u8 pad;
};

#define H2_DATA 0

/*
 * The frame walk proper, as a global function: the verifier checks it once
 * on its own, with generic arguments, instead of once per path of the
 * program that calls it.  Marks land in sc->marks[0..nm).
 */
__noinline int enav_h2_walk(struct l7_scratch *sc, struct h2_walk *w)
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

/*
 * HTTP/2: walk the frame headers through the whole call (the captured
 * prefix is often only part of it) and append a mark for every header not
 * wholly inside the captured bytes, so the parser can follow frames across
 * what it did not see.  The walk's position carries over to the next call.
 */
static __always_inline __u16 h2_walk(struct l7_scratch *sc, struct l7_stream *c, __u64 ret, int dir,
				     __u64 *need, __u8 *flags)
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
	enav_h2_walk(sc, &w);
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

/* One call's bytes, as l7_emit needs them described. */
struct l7_call {
	__u64 ret;   /* bytes the call moved */
	__u32 seq;   /* TCP sequence or TLS plaintext offset of the first byte */
	__u8 sent;   /* written by this task */
	__u8 nodata; /* sendfile: no user buffer */
	__u8 role;   /* enum enav_tcp_role of the socket */
	__u8 flags;  /* ENAV_L7_* known before the walk */
	__u8 tls_library;
	__u8 pad[7];
};

/*
 * Classify the stream on its first bytes (once), walk HTTP/2 frames, copy the
 * call's first bytes and emit them: shared by the syscall path below and the
 * TLS uprobes.  sc's segments are loaded (unless nodata).  c, when the TCP
 * connection is known, gives the cached tuple; otherwise it is read from sk.
 */
static __always_inline void l7_emit(void *ctx, struct l7_scratch *sc, struct sock *sk,
				    struct l7_stream *st, struct conn *c, struct l7_call *call)
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
		__u32 n = copy_payload(sc, ret, cap < ENAV_L7_HEAD ? cap : ENAV_L7_HEAD);
		__u8 verdict;
		bool request = (call->role == ENAV_ROLE_CLIENT) == sent;
		if (call->role == ENAV_ROLE_UNKNOWN) {
			request = true;
			verdict = enav_l7_classify(sc->e.payload, n, ret, true, enav_l7_protocols);
			if (verdict == ENAV_L7_CLASS_NONE) {
				request = false;
				verdict = enav_l7_classify(sc->e.payload, n, ret, false,
							   enav_l7_protocols);
			}
		} else {
			verdict =
			    enav_l7_classify(sc->e.payload, n, ret, request, enav_l7_protocols);
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
		marks = h2_walk(sc, st, ret, dir, &need, &flags);
		flags |= ENAV_L7_MARK_BLOCK;
		__u32 h2cap = enav_l7_h2_capture;
		if (h2cap > ENAV_L7_PAYLOAD_MAX)
			h2cap = ENAV_L7_PAYLOAD_MAX;
		if (need > cap)
			cap = need < h2cap ? need : h2cap;
	}
	__u32 n = nodata ? 0 : copy_payload(sc, ret, cap);
	enav_fill_header(&e->hdr, ENAV_EVENT_L7_DATA, bpf_get_current_cgroup_id());
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
	struct task_struct *task = (void *)bpf_get_current_task();
	BPF_CORE_READ_STR_INTO(&sc->comm, task, group_leader, comm);
	__builtin_memcpy(e->comm, sc->comm, sizeof(e->comm));
	e->tls_library = call->tls_library;
	n &= 2 * ENAV_L7_PAYLOAD_MAX - 1;
	if (n > ENAV_L7_PAYLOAD_MAX)
		return;
	__u64 size = ENAV_OFFSETOF(struct enav_l7_event, payload) + n;
	if (h2) { /* the whole mark block, n_marks of it valid: a constant size */
		bpf_probe_read_kernel(e->payload + n, sizeof(sc->marks), sc->marks);
		size += sizeof(sc->marks);
	}
	e->hdr.size = size;
	if (size <= sizeof(*e) + ENAV_L7_MAX_MARKS * sizeof(struct enav_l7_mark))
		enav_emit_lazy(ctx, e, size);
}

static __always_inline void l7_capture(void *ctx, struct sock *sk, struct pending *p, long ret)
{
	if (sk_protocol(sk) != IPPROTO_TCP)
		return;
	__u64 key = (__u64)sk;
	struct conn *c = bpf_map_lookup_elem(&enav_conns, &key);
	if (!c || c->l7s.l7 == ENAV_L7_CLASS_NONE)
		return;
	bool sent = is_send(p->nr);
	if (!sent && (p->nr == NR_recvfrom || p->nr == NR_recvmsg) && (p->arg4 & MSG_PEEK))
		return; /* read again for real later */
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
	struct tcp_sock *tp = (void *)sk;
	__u32 end = sent ? BPF_CORE_READ(tp, write_seq) : BPF_CORE_READ(tp, copied_seq);
	/* A read that also consumed the peer's FIN advanced copied_seq one past
	 * the data (tcp_recvmsg counts the FIN): after it, rcv_nxt == copied_seq
	 * on a receive-shut socket.  (A later read returns 0 and is not seen.) */
	if (!sent && (BPF_CORE_READ_BITFIELD_PROBED(sk, sk_shutdown) & RCV_SHUTDOWN) &&
	    BPF_CORE_READ(tp, rcv_nxt) == end)
		end -= 1;
	struct l7_call call = {
	    .ret = ret,
	    .seq = end - (__u32)ret,
	    .sent = sent,
	    .nodata = nodata,
	    .role = c->role,
	    .flags = ENAV_L7_SEQ_VALID,
	};
	l7_emit(ctx, sc, sk, &c->l7s, c, &call);
}

#include "net_tls.bpf.h"

static __always_inline int handle_exit(void *ctx, struct pt_regs *regs, long ret)
{
	if (ret <= 0)
		return 0;
	long nr = BPF_CORE_READ(regs, orig_ax);
	bool dns = enav_dns_capture && is_dns_syscall(nr);
	bool l7 = enav_l7_protocols && is_l7_syscall(nr);
	if (!dns && !l7)
		return 0;
	if (!enav_capture_allowed(bpf_get_current_cgroup_id())) {
		enav_count(ENAV_KC_FILTERED);
		return 0;
	}
	struct pending p;
	read_args(regs, nr, &p);
	struct sock *sk = fd_to_sock(p.fd);
	if (!sk)
		return 0;
	if (dns)
		dns_capture(ctx, sk, &p, ret, is_send(p.nr));
	if (l7) {
		tls_bind_socket(sk);
		l7_capture(ctx, sk, &p, ret);
	}
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(enav_sys_exit_btf, struct pt_regs *regs, long ret)
{
	return handle_exit(ctx, regs, ret);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(enav_sys_exit_raw, struct pt_regs *regs, long ret)
{
	return handle_exit(ctx, regs, ret);
}
