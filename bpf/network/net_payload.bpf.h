/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The socket-level programs: every sendmsg/recvmsg that reaches an inet
 * socket counts its bytes on the TCP connection (net_tcp.bpf.h) and, where
 * a payload is wanted, copies it from the syscall's buffer: DNS payloads
 * (port 53, UDP and TCP), TLS socket binding, TCP payloads for the L7 part.
 *
 * Three hook sets, one per kernel kind, chosen by the probe (payload_hook in
 * `enav probe`, src/probe/features.c) and exactly one loaded:
 *   socket_tracepoints  sock:sock_send_length/sock_recv_length as BTF
 *                       tracepoints (Linux 6.3+): bytes and payloads;
 *   fexit               fexit on tcp_sendmsg/tcp_recvmsg/tcp_sendpage and,
 *                       for DNS, udp(v6)_sendmsg/udp(v6)_recvmsg;
 *   sys_exit            the fallback where neither loads: the byte counts
 *                       from the raw sock_*_length tracepoints and payloads
 *                       from one sys_exit program, which every syscall of
 *                       every process on the node pays for.
 * The first two never touch a syscall that moves no socket bytes: a socket
 * hook runs about five times per HTTP request where sys_exit ran twelve.
 * Separate, and included last, because it is where the TCP, DNS, L7 and
 * TLS parts meet.
 */
#ifndef ENAV_NET_PAYLOAD_BPF_H
#define ENAV_NET_PAYLOAD_BPF_H

#include "net_l7.bpf.h"
#include "net_tls.bpf.h"

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

static __always_inline bool dns_port_of(struct sock *sk, bool btf)
{
	__u16 dport = bpf_ntohs(SK_READ(btf, sk, __sk_common.skc_dport));
	__u16 sport = SK_READ(btf, sk, __sk_common.skc_num);
	return dport == DNS_PORT || sport == DNS_PORT;
}

static __always_inline bool dns_port(struct sock *sk)
{
	return dns_port_of(sk, false);
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
	/* 64 bits, bounded in the register the call takes: a 32-bit value
	 * checked on a truncated copy and passed from a 64-bit spill is
	 * refused by Linux 6.1's verifier ("R2 min value is negative"). */
	__u64 n = ret < cap ? ret : cap;
	enav_bound(n, 1023);
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
	if (!dns_port(sk))
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
/* The sys_exit fallback's L7 path: the connection and MSG_PEEK from the call. */
static __always_inline void l7_capture_syscall(void *ctx, struct sock *sk, struct pending *p,
					       long ret)
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
	l7_capture(ctx, sk, c, p, ret, sent, false, bpf_get_current_cgroup_id(), false);
}

static __always_inline int handle_exit(void *ctx, struct pt_regs *regs, long ret)
{
	if (ret <= 0)
		return 0;
	long nr = BPF_CORE_READ(regs, orig_ax);
	bool dns = enav_dns_capture && is_dns_syscall(nr);
	bool l7 = enav_l7_protocols && is_l7_syscall(nr);
	if (!dns && !l7)
		return 0;
	if (!enav_admitted(bpf_get_current_cgroup_id()))
		return 0;
	struct pending p;
	read_args(regs, nr, &p);
	struct sock *sk = fd_to_sock(p.fd);
	if (!sk)
		return 0;
	if (dns)
		dns_capture(ctx, sk, &p, ret, is_send(p.nr));
	if (l7) {
		tls_bind_socket(sk);
		l7_capture_syscall(ctx, sk, &p, ret);
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

/* ---- socket-level hooks ------------------------------------------------- */

/*
 * Which message of a sendmmsg/recvmmsg call a socket hook sees: the hook
 * fires once per message, and nothing in it says which.  A cursor per thread
 * counts them: the same vector and number continue it, anything else
 * starts at 0, and a failed message (the kernel's loop ends) or any other
 * call on a DNS socket resets it.  docs/boundaries.md says where it cannot
 * be right (a loop the kernel ends without a failing message).
 */
struct mmsg_cursor {
	__u64 vec; /* the call's mmsghdr array */
	__u32 nr;
	__u32 next;
};

/* Per thread (pid_tgid).  A hash, not task storage: every map of the agent
 * can be dumped and checked for what it holds (test_kubernetes.sh), and
 * task storage cannot be iterated.  LRU: a thread that exits mid-call
 * leaves an entry the table reclaims. */
#define MMSG_CURSORS 1024

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, MMSG_CURSORS);
	__type(key, __u64);
	__type(value, struct mmsg_cursor);
} enav_mmsg_cursors SEC(".maps");

static __always_inline bool is_mmsg(__u64 nr)
{
	return nr == NR_sendmmsg || nr == NR_recvmmsg;
}

/* The index of this hook's message in the call p, advancing the cursor. */
static __always_inline __u32 mmsg_advance(struct pending *p, long ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct mmsg_cursor *cur = bpf_map_lookup_elem(&enav_mmsg_cursors, &id);
	if (!cur) {
		struct mmsg_cursor fresh = {};
		bpf_map_update_elem(&enav_mmsg_cursors, &id, &fresh, BPF_NOEXIST);
		cur = bpf_map_lookup_elem(&enav_mmsg_cursors, &id);
		if (!cur)
			return 0;
	}
	__u32 vlen = p->arg3;
	__u32 k = cur->vec == p->buf && cur->nr == p->nr && cur->next < vlen ? cur->next : 0;
	if (ret <= 0 || k + 1 >= vlen) {
		cur->vec = 0;
	} else {
		cur->vec = p->buf;
		cur->nr = p->nr;
		cur->next = k + 1;
	}
	return k;
}

static __always_inline void mmsg_reset(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct mmsg_cursor *cur = bpf_map_lookup_elem(&enav_mmsg_cursors, &id);
	if (cur)
		cur->vec = 0;
}

/*
 * The syscall behind a socket hook, from the task's saved user registers
 * (the kernel writes only the return value into them, at exit), and the
 * proof that it is a call on this very socket: its descriptor resolves to
 * sk.  Without that proof (io_uring, splice, a kernel socket used inside
 * another call) the bytes are not the buffer's, and nothing is captured.
 */
static __always_inline bool call_on_socket(struct sock *sk, struct pending *p)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	if (!regs)
		return false;
	/* BTF pointers all the way: plain loads, no helper calls. */
	long nr = regs->orig_ax;
	if (!is_l7_syscall(nr) && !is_dns_syscall(nr))
		return false;
	p->nr = nr;
	p->fd = PT_REGS_PARM1_SYSCALL(regs);
	p->buf = PT_REGS_PARM2_SYSCALL(regs);
	p->arg3 = PT_REGS_PARM3_SYSCALL(regs);
	p->arg4 = PT_REGS_PARM4_SYSCALL(regs);
	struct fdtable *fdt = task->files->fdt;
	if (!fdt || p->fd >= fdt->max_fds)
		return false;
	struct file **fds = fdt->fd;
	struct file *file = NULL;
	bpf_probe_read_kernel(&file, sizeof(file), &fds[p->fd]);
	struct socket *sock = sk->sk_socket;
	return file && sock && (__u64)file == (__u64)sock->file;
}

/* The x86-64 user code segment: saved registers of a 64-bit syscall. */
#define X86_USER_CS 0x33

/* Read the saved user registers at the top of a kernel stack of size
 * stack_size (x86-64's task_pt_regs); false unless they are a 64-bit
 * user entry's. */
static __always_inline bool stack_user_regs(void *stack, __u32 stack_size, struct pt_regs *regs)
{
	if (bpf_probe_read_kernel(regs, sizeof(*regs), stack + stack_size - sizeof(*regs)))
		return false;
	return regs->cs == X86_USER_CS;
}

/*
 * call_on_socket for kernels before 5.15 (Linux 5.10): no bpf_task_pt_regs
 * and no bpf_get_current_task_btf.  The same saved user registers, read
 * where task_pt_regs finds them: the top of the task's kernel stack, 16 KiB
 * (32 KiB with KASAN, tried when the first is not a user entry's).  The
 * user code segment in them is the proof they are; the descriptor must
 * still resolve to sk.
 */
static __always_inline bool call_on_socket_compat(struct sock *sk, struct pending *p)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	void *stack = BPF_CORE_READ(task, stack);
	struct pt_regs regs;
	if (!stack ||
	    (!stack_user_regs(stack, 16384, &regs) && !stack_user_regs(stack, 32768, &regs)))
		return false;
	long nr = regs.orig_ax;
	if (!is_l7_syscall(nr) && !is_dns_syscall(nr))
		return false;
	p->nr = nr;
	p->fd = PT_REGS_PARM1_SYSCALL(&regs);
	p->buf = PT_REGS_PARM2_SYSCALL(&regs);
	p->arg3 = PT_REGS_PARM3_SYSCALL(&regs);
	p->arg4 = PT_REGS_PARM4_SYSCALL(&regs);
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	if (!fdt || p->fd >= BPF_CORE_READ(fdt, max_fds))
		return false;
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *file = NULL;
	bpf_probe_read_kernel(&file, sizeof(file), &fds[p->fd]);
	struct socket *sock = sk->sk_socket;
	return file && sock && (__u64)file == (__u64)sock->file;
}

/* DNS on the socket hooks: each message of a *mmsg call at its own hook. */
static __always_inline void dns_at_socket(void *ctx, struct sock *sk, struct pending *p, long ret,
					  bool sent, __u8 proto)
{
	if (!is_mmsg(p->nr)) {
		mmsg_reset();
		if (ret > 0)
			emit_dns(ctx, sk, p->buf, ret, sent,
				 p->nr == NR_sendmsg || p->nr == NR_recvmsg, proto == IPPROTO_TCP);
		return;
	}
	__u32 k = mmsg_advance(p, ret);
	if (ret > 0)
		emit_dns(ctx, sk, (__u64) & ((struct mmsghdr *)p->buf)[k].msg_hdr, ret, sent, true,
			 proto == IPPROTO_TCP);
}

/*
 * One sendmsg/recvmsg on an inet socket, as the socket layer returned it:
 * count TCP bytes, then copy what is wanted from the caller's buffer.  The
 * cheap questions come first (is this a DNS socket, a followed connection
 * of an enabled protocol), so a call nobody wants costs a map lookup.
 * udp_hook: the program hooks udp(v6)_sendmsg/recvmsg, where sk is never a
 * TCP socket: said at compile time, its program holds no byte count and no
 * L7 capture, which the verifier would otherwise walk for nothing (four of
 * the seven fexit programs: seconds of an emulated guest's agent start).
 */
static __always_inline int socket_call(void *ctx, struct sock *sk, long ret, int flags, bool sent,
				       bool payload, bool compat, bool udp_hook)
{
	if (!sent && (flags & MSG_PEEK))
		return 0; /* read again for real later */
	/* Payloads only where sk is a BTF pointer: tp_btf and fexit. */
	bool btf = payload;
	__u8 proto = sk_protocol_of(sk, btf);
	if (udp_hook && proto != IPPROTO_UDP)
		return 0; /* UDP-lite: as below */
	struct conn *c = NULL;
	if (!udp_hook && proto == IPPROTO_TCP && ret > 0) {
		c = count_bytes(ctx, sk, ret, sent, btf);
		if (c && enav_tls_enabled)
			tls_bind_socket(sk);
	} else if (proto != IPPROTO_UDP && proto != IPPROTO_TCP) {
		return 0;
	}
	if (!payload)
		return 0;
	bool l7 = ret > 0 && c && enav_l7_protocols && c->l7s.l7 != ENAV_L7_CLASS_NONE;
	/* A failed message still moves a *mmsg cursor on. */
	bool dns = enav_dns_capture && dns_port_of(sk, btf);
	if (!l7 && !dns)
		return 0;
	__u64 cgroup_id = bpf_get_current_cgroup_id();
	if (!enav_admitted(cgroup_id))
		return 0;
	struct pending p;
	if (!(compat ? call_on_socket_compat(sk, &p) : call_on_socket(sk, &p))) {
		if (ret > 0)
			enav_count(ENAV_KC_PAYLOAD_UNPROVEN);
		return 0;
	}
	if (dns && is_dns_syscall(p.nr))
		dns_at_socket(ctx, sk, &p, ret, sent, proto);
	if (!udp_hook && l7 && is_l7_syscall(p.nr))
		l7_capture(ctx, sk, c, &p, ret, sent, true, cgroup_id, compat);
	return 0;
}

/* socket_tracepoints: Linux 6.3+. */
SEC("tp_btf/sock_send_length")
int BPF_PROG(enav_sock_send_btf, struct sock *sk, int ret, int flags)
{
	return socket_call(ctx, sk, ret, flags, true, true, false, false);
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(enav_sock_recv_btf, struct sock *sk, int ret, int flags)
{
	return socket_call(ctx, sk, ret, flags, false, true, false, false);
}

/* sys_exit fallback: bytes only here, payloads at sys_exit. */
SEC("raw_tp/sock_send_length")
int BPF_PROG(enav_sock_send_raw, struct sock *sk, int ret, int flags)
{
	return socket_call(ctx, sk, ret, flags, true, false, false, false);
}

SEC("raw_tp/sock_recv_length")
int BPF_PROG(enav_sock_recv_raw, struct sock *sk, int ret, int flags)
{
	return socket_call(ctx, sk, ret, flags, false, false, false, false);
}

/*
 * fexit: kernels whose probe loads fexit, including those older than 6.3
 * without the sock_*_length tracepoints.  tcp_sendmsg and tcp_recvmsg return
 * what the caller gets back.  Arguments and the return value are read with
 * bpf_get_func_arg/_ret (5.17+), so the programs do not depend on
 * tcp_recvmsg's signature (its nonblock argument went away in 5.19).  Not
 * proven on this machine, which refuses fexit (docs/boundaries.md); the
 * kernel matrix's guests run it.
 */
/* sk is the first argument of every function hooked here, declared as such
 * (BPF_PROG) so the verifier types it; the rest is read with the helpers. */
static __always_inline int fexit_recv(void *ctx, struct sock *sk, bool udp_hook)
{
	__u64 ret = 0, flags = 0;
	/* (sk, msg, len, flags, addr_len) since 5.19; (sk, msg, len, nonblock,
	 * flags, addr_len) before. */
	__u32 flags_at = bpf_get_func_arg_cnt(ctx) == 6 ? 4 : 3;
	if (bpf_get_func_arg(ctx, flags_at, &flags) || bpf_get_func_ret(ctx, &ret))
		return 0;
	return socket_call(ctx, sk, (int)ret, (int)flags, false, true, false, udp_hook);
}

static __always_inline int fexit_send(void *ctx, struct sock *sk, bool udp_hook)
{
	__u64 ret = 0;
	if (bpf_get_func_ret(ctx, &ret))
		return 0;
	return socket_call(ctx, sk, (int)ret, 0, true, true, false, udp_hook);
}

SEC("fexit/tcp_sendmsg")
int BPF_PROG(enav_tcp_send_fexit, struct sock *sk)
{
	return fexit_send(ctx, sk, false);
}

SEC("fexit/tcp_recvmsg")
int BPF_PROG(enav_tcp_recv_fexit, struct sock *sk)
{
	return fexit_recv(ctx, sk, false);
}

/*
 * Before Linux 6.5 a file sent with sendfile(2) or splice(2) (nginx's static
 * files) reaches TCP through tcp_sendpage, never tcp_sendmsg: without this
 * the fexit path misses those bytes (seen on Debian 12's 6.1: 738 of
 * 3,146,466 bytes).  Loaded only where the kernel has the function
 * (net_source.c); 6.5 folded it into tcp_sendmsg (MSG_SPLICE_PAGES).  Its
 * payload is the file's, never a user buffer: L7 sees the bytes as a gap.
 */
SEC("fexit/tcp_sendpage")
int BPF_PROG(enav_tcp_sendpage_fexit, struct sock *sk)
{
	return fexit_send(ctx, sk, false);
}

/* DNS over UDP on the fexit path: loaded only with DNS capture on. */
SEC("fexit/udp_sendmsg")
int BPF_PROG(enav_udp_send_fexit, struct sock *sk)
{
	return fexit_send(ctx, sk, true);
}

SEC("fexit/udp_recvmsg")
int BPF_PROG(enav_udp_recv_fexit, struct sock *sk)
{
	return fexit_recv(ctx, sk, true);
}

SEC("fexit/udpv6_sendmsg")
int BPF_PROG(enav_udp6_send_fexit, struct sock *sk)
{
	return fexit_send(ctx, sk, true);
}

SEC("fexit/udpv6_recvmsg")
int BPF_PROG(enav_udp6_recv_fexit, struct sock *sk)
{
	return fexit_recv(ctx, sk, true);
}

/*
 * fexit before Linux 5.17 (Debian 11's 5.10): no bpf_get_func_arg/_ret, so
 * the arguments and the return value come from the typed context, in the
 * signatures those kernels have (tcp_recvmsg and udp(v6)_recvmsg still take
 * nonblock); no global function with pointer arguments, no
 * bpf_task_pt_regs, no bpf_get_current_task_btf (compat: see
 * call_on_socket_compat and net_l7.bpf.h).  The probe chooses these or the
 * ones above (payload_hook in `enav probe`); each loads alone.
 */
SEC("fexit/tcp_sendmsg")
int BPF_PROG(enav_compat_tcp_send, struct sock *sk, void *msg, size_t size, int ret)
{
	return socket_call(ctx, sk, ret, 0, true, true, true, false);
}

SEC("fexit/tcp_recvmsg")
int BPF_PROG(enav_compat_tcp_recv, struct sock *sk, void *msg, size_t len, int nonblock, int flags,
	     int *addr_len, int ret)
{
	return socket_call(ctx, sk, ret, flags, false, true, true, false);
}

SEC("fexit/tcp_sendpage")
int BPF_PROG(enav_compat_tcp_sendpage, struct sock *sk, void *page, int offset, size_t size,
	     int flags, int ret)
{
	return socket_call(ctx, sk, ret, 0, true, true, true, false);
}

SEC("fexit/udp_sendmsg")
int BPF_PROG(enav_compat_udp_send, struct sock *sk, void *msg, size_t len, int ret)
{
	return socket_call(ctx, sk, ret, 0, true, true, true, true);
}

SEC("fexit/udp_recvmsg")
int BPF_PROG(enav_compat_udp_recv, struct sock *sk, void *msg, size_t len, int nonblock, int flags,
	     int *addr_len, int ret)
{
	return socket_call(ctx, sk, ret, flags, false, true, true, true);
}

SEC("fexit/udpv6_sendmsg")
int BPF_PROG(enav_compat_udp6_send, struct sock *sk, void *msg, size_t len, int ret)
{
	return socket_call(ctx, sk, ret, 0, true, true, true, true);
}

SEC("fexit/udpv6_recvmsg")
int BPF_PROG(enav_compat_udp6_recv, struct sock *sk, void *msg, size_t len, int nonblock, int flags,
	     int *addr_len, int ret)
{
	return socket_call(ctx, sk, ret, flags, false, true, true, true);
}

#endif
