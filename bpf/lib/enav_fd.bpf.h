/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The open file behind a descriptor of the current task, read from its fd
 * table.  Used at syscall exit, where the descriptor was just returned and
 * the table cannot shrink under the calling thread.
 */
#ifndef ENAV_FD_BPF_H
#define ENAV_FD_BPF_H

#include "enav_common.bpf.h"

static __always_inline struct file *enav_task_fd_file(struct task_struct *task, long fd)
{
	if (fd < 0)
		return NULL;
	/* fd was just handed out by this task's own syscall: inside the table
	 * (and a bad read would fail, not fault), so max_fds is not read. */
	struct file **fds = BPF_CORE_READ(task, files, fdt, fd);
	if (!fds)
		return NULL;
	struct file *f = NULL;
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]) != 0)
		return NULL;
	return f;
}

#endif
