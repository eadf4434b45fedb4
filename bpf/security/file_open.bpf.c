/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Opens of watched files.  User space resolves the configured paths to
 * (device, inode) pairs and writes only those numbers into
 * enav_watched_files; every successful open(2), openat(2) and openat2(2) is
 * checked against it at syscall exit, by the inode the descriptor now refers
 * to, so links, bind mounts and relative paths cannot slip past a path
 * comparison.  Only a match costs more than one hash lookup.  The hooks are
 * syscall tracepoints (tracefs); one a kernel lacks is left out.
 */
#include "enav_common.bpf.h"
#include "enav_fd.bpf.h"
#include "enav_path.bpf.h"

/* The agent's own process: its rescans open the watched files (O_PATH). */
const volatile __u32 enav_self_tgid = 0;

struct enav_inode_key {
	__u64 dev;
	__u64 ino;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024); /* sources.file_open.max_watched_files, set before load */
	__type(key, struct enav_inode_key);
	__type(value, __u32);
} enav_watched_files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct enav_file_open_event);
} enav_file_scratch SEC(".maps");

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym;

static __always_inline int handle_open(void *ctx, long ret)
{
	if (ret < 0 || bpf_get_current_pid_tgid() >> 32 == enav_self_tgid)
		return 0;
	/* BTF-typed pointers: the walk compiles to inline fault-safe loads
	 * instead of a helper call per field (measured: most of this hook's
	 * cost was those calls). */
	struct task_struct *btask = bpf_get_current_task_btf();
	struct file **fds = btask->files->fdt->fd;
	struct file *raw = NULL;
	if (bpf_probe_read_kernel(&raw, sizeof(raw), &fds[ret]) != 0 || !raw)
		return 0;
	struct file *file = bpf_rdonly_cast(raw, bpf_core_type_id_kernel(struct file));
	struct inode *inode = file->f_inode;
	struct enav_inode_key key = {
	    .dev = inode->i_sb->s_dev,
	    .ino = inode->i_ino,
	};
	struct task_struct *task = (void *)btask;
	__u32 *watch = bpf_map_lookup_elem(&enav_watched_files, &key);
	if (!watch)
		return 0;

	__u64 cgroup_id = bpf_get_current_cgroup_id();
	if (!enav_admitted(cgroup_id))
		return 0;
	struct enav_file_open_event *e = enav_scratch(&enav_file_scratch);
	if (!e)
		return 0;
	enav_fill_header(&e->hdr, ENAV_EVENT_FILE_OPEN, cgroup_id);
	e->hdr.size = sizeof(*e);
	e->dev = key.dev;
	e->ino = key.ino;
	e->watch_id = *watch;
	e->open_flags = BPF_CORE_READ(file, f_flags);
	enav_fill_task(&e->task, task);
	enav_emit(ctx, e, sizeof(*e));
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_openat")
int enav_fopen_openat(struct trace_event_raw_sys_exit *ctx)
{
	return handle_open(ctx, ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_openat2")
int enav_fopen_openat2(struct trace_event_raw_sys_exit *ctx)
{
	return handle_open(ctx, ctx->ret);
}

SEC("tracepoint/syscalls/sys_exit_open")
int enav_fopen_open(struct trace_event_raw_sys_exit *ctx)
{
	return handle_open(ctx, ctx->ret);
}
