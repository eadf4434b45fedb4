/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The network object's shared state: the kernel constants it needs, the
 * per-connection record, the connection map and the scratch buffers, and
 * the values user space sets before load (TLS keeps its own maps and
 * setting in net_tls.bpf.h).  Separate so each part's file holds only its
 * own logic, and so the order of these maps and settings, which the
 * skeleton's layout follows, stays in one place.
 */
#ifndef ENAV_NET_MAPS_BPF_H
#define ENAV_NET_MAPS_BPF_H

#include "enav_common.bpf.h"
#include "enav/l7_classify.h"
#include "enav_req_links.bpf.h"

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
	__u8 carry_dir; /* ENAV_L7_SENT or _RECEIVED: the direction of the carried run */
	__u8 link_dir;	/* the direction of the last classified call (request links) */
	__u8 pad;
	struct l7_stream l7s;
	__u16 family, sport, dport;
	__u8 saddr[16], daddr[16]; /* kept: a closing socket has lost its local port */
	char comm[ENAV_COMM_LEN];
	/* Calls without a user buffer (sendfile) on a classified connection are
	 * counted here instead of a record each, and reported on its next L7
	 * record, or at close (struct enav_l7_carry). */
	__u64 carry_ns;
	__u32 carry_seq;
	__u32 carry_len; /* 0: nothing carried */
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

/* The HTTP/2 frame walk's state (net_l7.bpf.h). */
struct h2_walk {
	__u64 pos, ret;
	__u64 need; /* bytes to capture: through the last non-DATA frame's payload */
	__u32 nm;
	__u8 lost, part_len;
	__u8 last_type; /* the frame the call ends in */
	__u8 pad;
};

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
	struct enav_l7_carry carry; /* the record's trailer, built here */
	__u64 emitted;		    /* bytes this CPU handed the ring: when to wake the consumer */
	struct h2_walk walk;	    /* the walk's state for enav_h2_walk_compat */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct l7_scratch);
} enav_l7_scratch SEC(".maps");

#endif
