/* SPDX-License-Identifier: Apache-2.0 */
/* The floor of a TLS probe hit: programs that do nothing, attached by
 * bench/uprobe_floor.c as an entry probe, a return probe or both, so that
 * what is timed is the kernel's uprobe mechanism alone. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("uprobe")
int enav_bench_empty_uprobe(void *ctx)
{
	return 0;
}

SEC("uretprobe")
int enav_bench_empty_uretprobe(void *ctx)
{
	return 0;
}
