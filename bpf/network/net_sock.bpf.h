/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which syscalls each part follows, and the socket behind a descriptor with
 * its address tuple.  Separate because the TCP, payload, L7 and TLS parts
 * all use them and none of them owns them.
 */
#ifndef ENAV_NET_SOCK_BPF_H
#define ENAV_NET_SOCK_BPF_H

#include "net_maps.bpf.h"
#include <bpf/bpf_endian.h>

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

/*
 * A field of sk: a plain load where sk is a BTF pointer the verifier knows
 * (a tp_btf or fexit argument), a probe-read helper call otherwise (raw_tp,
 * kprobe-style arguments).  btf is a constant at every call, so only one
 * branch is compiled into each program.  On the socket hooks, which run on
 * every send and receive of the node, the loads cost a few instructions
 * where a helper call costs tens of nanoseconds.
 */
#define SK_READ(btf, sk, field) ((btf) ? (sk)->field : BPF_CORE_READ(sk, field))

static __always_inline __u8 sk_protocol_of(struct sock *sk, bool btf)
{
	if (btf)
		return BPF_CORE_READ_BITFIELD(sk, sk_protocol);
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

#endif
