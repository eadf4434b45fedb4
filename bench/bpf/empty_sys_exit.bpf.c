/* SPDX-License-Identifier: Apache-2.0 */
/* The physical floor of the agent's syscall hook: a program on the same
 * tracepoint (tp_btf/sys_exit) that does nothing (bench/hook_floor.sh). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_exit")
int BPF_PROG(enav_bench_empty_exit, struct pt_regs *regs, long ret)
{
	return 0;
}
