/* SPDX-License-Identifier: Apache-2.0 */
/* The physical floor of the agent's hooks: a program that does nothing on
 * each hook the agent uses on the request path (bench/hook_floor.sh loads
 * each one on its own, so a kernel that refuses fexit still measures the
 * tracepoints).  Names start enav_floor_ so they are never taken for the
 * agent's. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_exit")
int BPF_PROG(enav_floor_sys_exit)
{
	return 0;
}

SEC("tp_btf/sock_send_length")
int BPF_PROG(enav_floor_send_len)
{
	return 0;
}

SEC("tp_btf/sock_recv_length")
int BPF_PROG(enav_floor_recv_len)
{
	return 0;
}

SEC("fentry/tcp_sendmsg")
int BPF_PROG(enav_floor_fe_send)
{
	return 0;
}

SEC("fexit/tcp_sendmsg")
int BPF_PROG(enav_floor_fx_send)
{
	return 0;
}

SEC("fentry/tcp_recvmsg")
int BPF_PROG(enav_floor_fe_recv)
{
	return 0;
}

SEC("fexit/tcp_recvmsg")
int BPF_PROG(enav_floor_fx_recv)
{
	return 0;
}
