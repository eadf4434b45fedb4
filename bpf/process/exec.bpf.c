/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Process exec and exit.  Each hook has two program variants sharing one
 * handler: tp_btf (typed, preferred) and raw_tp (fallback for kernels
 * without BTF-typed tracepoints).  User space enables exactly one variant per
 * hook with bpf_program__set_autoload() after probing; neither needs tracefs.
 * Credential changes come from syscall tracepoints, which do (below).
 */
#include "enav_common.bpf.h"
#include "enav_path.bpf.h"

/* sources.exec.argv_max_bytes, set before load; <= ENAV_ARGV_MAX. */
const volatile __u32 enav_argv_max = 256;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct enav_exec_event);
} enav_exec_scratch SEC(".maps");

static __always_inline int handle_exec(void *ctx, struct task_struct *task, pid_t old_pid,
				       struct linux_binprm *bprm)
{
	__u64 cgroup_id = bpf_get_current_cgroup_id();

	if (!enav_admitted(cgroup_id))
		return 0;

	struct enav_exec_event *e = enav_scratch(&enav_exec_scratch);
	if (!e)
		return 0;

	enav_fill_header(&e->hdr, ENAV_EVENT_PROCESS_EXEC, cgroup_id);
	e->old_tid = old_pid;
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->uid = BPF_CORE_READ(task, cred, uid.val);
	e->gid = BPF_CORE_READ(task, cred, gid.val);
	e->start_boot_ns = BPF_CORE_READ(task, start_boottime);
	e->flags = 0;
	e->exe_len = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));

	const char *filename = BPF_CORE_READ(bprm, filename);
	long n = bpf_probe_read_kernel_str(e->filename, sizeof(e->filename), filename);
	if (n <= 0) {
		e->filename_len = 0;
		e->flags |= ENAV_EXEC_FILENAME_FAULT;
	} else {
		e->filename_len = n - 1;
		/* A full buffer cannot tell "exactly fits" from "cut": say cut. */
		if (n == sizeof(e->filename))
			e->flags |= ENAV_EXEC_FILENAME_TRUNCATED;
	}

	/* The executable as the kernel opened it: symlinks already resolved. */
	e->exe_len = enav_copy_file_path(BPF_CORE_READ(bprm, file), e->exe);
	if (!e->exe_len)
		e->flags |= ENAV_EXEC_EXE_UNRESOLVED;

	/* argv lives in the new image's user stack, already copied by exec. */
	unsigned long arg_start = BPF_CORE_READ(task, mm, arg_start);
	unsigned long arg_end = BPF_CORE_READ(task, mm, arg_end);
	__u64 len = arg_end > arg_start ? arg_end - arg_start : 0;
	__u32 cap = enav_argv_max;

	if (cap > ENAV_ARGV_MAX)
		cap = ENAV_ARGV_MAX;
	if (len > cap) {
		len = cap;
		e->flags |= ENAV_EXEC_ARGV_TRUNCATED;
	}
	/* Mask for the verifier: len is already <= ENAV_ARGV_MAX. */
	len &= (ENAV_ARGV_MAX << 1) - 1;
	if (len > ENAV_ARGV_MAX)
		len = ENAV_ARGV_MAX;
	if (len && bpf_probe_read_user(e->argv, len, (const void *)arg_start) != 0) {
		len = 0;
		e->flags |= ENAV_EXEC_ARGV_FAULT;
		enav_count(ENAV_KC_USER_READ_FAULT);
	}
	e->argv_len = len;

	__u64 size = ENAV_EXEC_EVENT_FIXED_SIZE + len;
	e->hdr.size = size;
	if (size > sizeof(*e))
		return 0;
	enav_emit(ctx, e, size);
	return 0;
}

static __always_inline int handle_exit(void *ctx, struct task_struct *task)
{
	/* One signal per process: only when the last thread of the group exits. */
	if (BPF_CORE_READ(task, signal, live.counter) != 0)
		return 0;

	__u64 cgroup_id = bpf_get_current_cgroup_id();
	if (!enav_admitted(cgroup_id))
		return 0;

	struct enav_exit_event e = {};
	enav_fill_header(&e.hdr, ENAV_EVENT_PROCESS_EXIT, cgroup_id);
	e.hdr.size = sizeof(e);
	e.ppid = BPF_CORE_READ(task, real_parent, tgid);
	e.exit_code = BPF_CORE_READ(task, exit_code);
	e.start_boot_ns = BPF_CORE_READ(task, start_boottime);
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	enav_emit(ctx, &e, sizeof(e));
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(enav_exec_btf, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	return handle_exec(ctx, task, old_pid, bprm);
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(enav_exec_raw, struct task_struct *task, pid_t old_pid, struct linux_binprm *bprm)
{
	return handle_exec(ctx, task, old_pid, bprm);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(enav_exit_btf, struct task_struct *task)
{
	return handle_exit(ctx, task);
}

SEC("raw_tp/sched_process_exit")
int BPF_PROG(enav_exit_raw, struct task_struct *task)
{
	return handle_exit(ctx, task);
}

/* ---- credential changes ------------------------------------------------------
 *
 * The syscall tracepoints of the calls that can make a task root after it
 * started (tracefs: attached when it is mounted, otherwise left out with a
 * warning).  Only successful calls; the credentials are read after the call,
 * the user side compares them with what the task had at exec.
 */
static __always_inline int handle_cred(void *ctx, long ret, __u32 nr)
{
	if (ret != 0)
		return 0;
	__u64 cgroup_id = bpf_get_current_cgroup_id();
	if (!enav_admitted(cgroup_id))
		return 0;
	struct task_struct *task = (void *)bpf_get_current_task();
	const struct cred *cred = BPF_CORE_READ(task, cred);
	struct enav_cred_event e = {};
	enav_fill_header(&e.hdr, ENAV_EVENT_CRED_CHANGE, cgroup_id);
	e.hdr.size = sizeof(e);
	e.uid = BPF_CORE_READ(cred, uid.val);
	e.euid = BPF_CORE_READ(cred, euid.val);
	e.suid = BPF_CORE_READ(cred, suid.val);
	e.fsuid = BPF_CORE_READ(cred, fsuid.val);
	e.gid = BPF_CORE_READ(cred, gid.val);
	e.egid = BPF_CORE_READ(cred, egid.val);
	e.syscall = nr;
	e.start_boot_ns = BPF_CORE_READ(task, start_boottime);
	/* kernel_cap_t is a u64 since 6.3 and two u32s before: 8 bytes both. */
	bpf_probe_read_kernel(&e.cap_effective, sizeof(e.cap_effective), &cred->cap_effective);
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	enav_emit(ctx, &e, sizeof(e));
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_setuid")
int enav_cred_setuid(struct trace_event_raw_sys_exit *ctx)
{
	return handle_cred(ctx, ctx->ret, 105);
}

SEC("tracepoint/syscalls/sys_exit_setreuid")
int enav_cred_setreuid(struct trace_event_raw_sys_exit *ctx)
{
	return handle_cred(ctx, ctx->ret, 113);
}

SEC("tracepoint/syscalls/sys_exit_setresuid")
int enav_cred_setresuid(struct trace_event_raw_sys_exit *ctx)
{
	return handle_cred(ctx, ctx->ret, 117);
}

SEC("tracepoint/syscalls/sys_exit_setgid")
int enav_cred_setgid(struct trace_event_raw_sys_exit *ctx)
{
	return handle_cred(ctx, ctx->ret, 106);
}

SEC("tracepoint/syscalls/sys_exit_setregid")
int enav_cred_setregid(struct trace_event_raw_sys_exit *ctx)
{
	return handle_cred(ctx, ctx->ret, 114);
}

SEC("tracepoint/syscalls/sys_exit_setresgid")
int enav_cred_setresgid(struct trace_event_raw_sys_exit *ctx)
{
	return handle_cred(ctx, ctx->ret, 119);
}

SEC("tracepoint/syscalls/sys_exit_capset")
int enav_cred_capset(struct trace_event_raw_sys_exit *ctx)
{
	return handle_cred(ctx, ctx->ret, 126);
}
