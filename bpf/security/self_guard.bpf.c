/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The agent's own BPF objects, watched at the bpf(2) syscall of every other
 * process.  User space lists its map, program and link ids in
 * enav_guard_objects (numbers only).  Another process that takes a
 * descriptor to one of them (*_GET_FD_BY_ID) is remembered by (tgid, fd) and
 * by the open file that descriptor names; a later update, delete, freeze or
 * detach through that descriptor is reported with what the kernel answered.
 * The capture filter does not apply: the agent's integrity is not a
 * workload's to opt out of.
 */
#include "enav_common.bpf.h"
#include "enav_fd.bpf.h"
#include "enav_path.bpf.h"
#include "enav_task.bpf.h"

/* The agent's own process: its calls are not reports. */
const volatile __u32 enav_self_tgid = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64); /* kind << 32 | id */
	__type(value, __u8);
} enav_guard_objects SEC(".maps");

/* A descriptor another process holds to one of the objects. */
struct enav_guard_fd {
	__u64 object; /* kind << 32 | id */
	__u64 file;   /* the struct file it named when it was returned */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64); /* tgid << 32 | fd */
	__type(value, struct enav_guard_fd);
} enav_guard_fds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct enav_bpf_access_event);
} enav_guard_scratch SEC(".maps");

static __always_inline __u64 object_key(__u32 kind, __u32 id)
{
	return (__u64)kind << 32 | id;
}

/* The object a descriptor of the caller names, if it is one of ours and
 * still the same open file that was handed out. */
static __always_inline __u64 held_object(__u32 tgid, __u32 fd)
{
	__u64 key = (__u64)tgid << 32 | fd;
	struct enav_guard_fd *g = bpf_map_lookup_elem(&enav_guard_fds, &key);
	if (!g)
		return 0;
	struct file *f = enav_task_fd_file((void *)bpf_get_current_task(), fd);
	if ((__u64)f != g->file)
		return 0; /* closed and reused for something else */
	return g->object;
}

/* Which of the agent's objects a bpf() call was about, from its command and
 * attributes (still in the caller's memory at the call's exit); 0: none. */
static __always_inline __u64 call_object(__u32 tgid, __u32 cmd, const void *uattr)
{
	__u32 word = 0;
	switch (cmd) {
	case BPF_MAP_GET_FD_BY_ID:
	case BPF_PROG_GET_FD_BY_ID:
	case BPF_LINK_GET_FD_BY_ID: {
		/* The id is the first word of the attribute union for all three. */
		if (bpf_probe_read_user(&word, sizeof(word), uattr) != 0)
			return 0;
		__u32 kind = cmd == BPF_MAP_GET_FD_BY_ID    ? ENAV_BPF_OBJ_MAP
			     : cmd == BPF_PROG_GET_FD_BY_ID ? ENAV_BPF_OBJ_PROG
							    : ENAV_BPF_OBJ_LINK;
		__u64 object = object_key(kind, word);
		return bpf_map_lookup_elem(&enav_guard_objects, &object) ? object : 0;
	}
	case BPF_MAP_UPDATE_ELEM:
	case BPF_MAP_DELETE_ELEM:
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
	case BPF_MAP_FREEZE:
	case BPF_LINK_UPDATE:
	case BPF_LINK_DETACH:
		/* map_fd or link_fd: the first word. */
		if (bpf_probe_read_user(&word, sizeof(word), uattr) != 0)
			return 0;
		return held_object(tgid, word);
	case BPF_MAP_UPDATE_BATCH:
	case BPF_MAP_DELETE_BATCH:
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
		/* in_batch, out_batch, keys, values (8 bytes each), count, map_fd. */
		if (bpf_probe_read_user(&word, sizeof(word), uattr + 36) != 0)
			return 0;
		return held_object(tgid, word);
	default:
		return 0;
	}
}

/* Only the exit is hooked: the call's arguments are still in the task's
 * saved registers, and enabling an enter tracepoint would send the entry of
 * every syscall on the node through the syscall-tracing path. */
SEC("tracepoint/syscalls/sys_exit_bpf")
int enav_guard_bpf_exit(struct trace_event_raw_sys_exit *ctx)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tgid = pid_tgid >> 32;
	if (tgid == enav_self_tgid)
		return 0;
	/* Before Linux 5.15 (no bpf_task_pt_regs) they are read from the top
	 * of the task's kernel stack (enav_task.bpf.h). */
	struct enav_user_regs regs;
	if (!enav_current_user_regs(&regs))
		return 0;
	__u32 cmd = regs.di;
	const void *uattr = (const void *)regs.si;
	__u64 object = call_object(tgid, cmd, uattr);
	if (!object)
		return 0;
	long ret = ctx->ret;
	struct task_struct *task = (void *)bpf_get_current_task();

	if (ret >= 0 && (cmd == BPF_MAP_GET_FD_BY_ID || cmd == BPF_PROG_GET_FD_BY_ID ||
			 cmd == BPF_LINK_GET_FD_BY_ID)) {
		__u64 key = (__u64)tgid << 32 | (__u32)ret;
		struct enav_guard_fd g = {.object = object,
					  .file = (__u64)enav_task_fd_file(task, ret)};
		bpf_map_update_elem(&enav_guard_fds, &key, &g, BPF_ANY);
	}

	struct enav_bpf_access_event *e = enav_scratch(&enav_guard_scratch);
	if (!e)
		return 0;
	enav_fill_header(&e->hdr, ENAV_EVENT_BPF_ACCESS, bpf_get_current_cgroup_id());
	e->hdr.size = sizeof(*e);
	e->cmd = cmd;
	e->object_kind = object >> 32;
	e->object_id = (__u32)object;
	e->ret = ret;
	enav_fill_task(&e->task, task);
	enav_emit(ctx, e, sizeof(*e));
	return 0;
}
