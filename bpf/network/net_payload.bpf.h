/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one sys_exit program: filtered by syscall number first, it reads the
 * call's arguments back from the saved registers, copies DNS payloads (port
 * 53, UDP and TCP), binds a TLS call in flight to its socket and hands TCP
 * payloads to the L7 part.  Separate, and included last, because it is the
 * one place the DNS, L7 and TLS parts meet.
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

#endif
