/* SPDX-License-Identifier: Apache-2.0 */
/*
 * verified_insns ID...: for each BPF program id, the instructions the
 * verifier processed to load it (bpf_prog_info.verified_insns, Linux 5.16+),
 * its translated length in instructions and its name, tab-separated.
 * bpftool 7.1 does not print the first.  For bench/verifier_cost.sh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>

int main(int argc, char **argv)
{
	int failed = 0;
	for (int i = 1; i < argc; i++) {
		int fd = bpf_prog_get_fd_by_id((__u32)strtoul(argv[i], NULL, 10));
		if (fd < 0) {
			failed = 1; /* unloaded since the id was read */
			continue;
		}
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
			printf("%u\t%u\t%s\n", info.verified_insns, info.xlated_prog_len / 8,
			       info.name);
		else
			failed = 1;
		close(fd);
	}
	return failed;
}
