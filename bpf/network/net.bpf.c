/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The network object (net_ringbuf/net_perf): TCP connections with exact
 * byte counts, DNS payloads, application payloads, TLS plaintext.
 *
 *  - sock:inet_sock_set_state gives the lifecycle (connect, SYN received,
 *    established, close) keyed by the socket;
 *  - sock:sock_send_length and sock:sock_recv_length count the bytes the
 *    socket layer returned to the calling process: the figure the
 *    application itself sees, for every syscall that reaches a socket;
 *  - tcp:tcp_retransmit_skb counts retransmitted segments;
 *  - DNS payloads (port 53, UDP and TCP) and application payloads are
 *    copied where the socket layer moved them (net_payload.bpf.h): at
 *    sock_send_length/sock_recv_length (Linux 6.3+), else at fexit of
 *    tcp_sendmsg/tcp_recvmsg and the UDP send and receive functions, and
 *    only where neither loads at sys_exit, filtered by syscall number first
 *    (the probe names the choice, ADR 0016).  Each TCP connection is
 *    classified once, from the first bytes it moves, against the enabled
 *    application protocols, the verdict cached in the connection map; the
 *    first bytes of each read and write of a matching connection are copied
 *    (ENAV_EVENT_L7_DATA).  A connection that matches nothing costs a map
 *    lookup per call after.
 *
 * Bytes accumulate in the connection map and leave with the close: what is
 * emitted is opens, closes and the payload copies above.  Attribution is
 * the process that used the socket (client: the connecting task; server:
 * the first task to move data on it), never the task that happened to run
 * a softirq.
 *
 * This file is the object's one compilation unit; its parts are headers
 * included here in dependency order, each opening with what it holds:
 *   net_maps.bpf.h     constants, the connection record, every shared map
 *                      and the values set before load
 *   net_sock.bpf.h     syscall sets, descriptor -> socket, address tuple
 *   net_tcp.bpf.h      lifecycle, retransmits, byte counts (tracepoints/fexit)
 *   net_l7.bpf.h       the call's buffers, classification, HTTP/2 frame walk
 *   net_tls.bpf.h      TLS library and Go crypto/tls probes
 *   net_payload.bpf.h  the sys_exit program: DNS, then L7 and TLS binding
 * The order is part of the object: maps and settings keep their order in
 * the skeleton, programs theirs in the ELF file (user space finds them by
 * name: enav_sys_exit_*, enav_tls_*, enav_go_tls_*).
 */
#include "net_maps.bpf.h"
#include "net_sock.bpf.h"
#include "net_tcp.bpf.h"
#include "net_l7.bpf.h"
#include "net_tls.bpf.h"
#include "net_payload.bpf.h"
