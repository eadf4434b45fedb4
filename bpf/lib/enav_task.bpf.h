/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The current task and the user registers it entered the kernel with, on
 * every kernel the agent runs on.  bpf_get_current_task_btf() arrived in
 * Linux 5.11 and bpf_task_pt_regs() in 5.15; before them the task is read
 * through bpf_get_current_task() and CO-RE, and the registers are copied
 * from where x86-64 saves them: the top of the task's kernel stack.  Which
 * path runs is decided at load time (libbpf resolves the enum checks against
 * the kernel's BTF), so the verifier never sees the other one.
 */
#ifndef ENAV_TASK_BPF_H
#define ENAV_TASK_BPF_H

/* x86-64's THREAD_SIZE: four pages, eight with KASAN's larger stacks. */
#define ENAV_THREAD_SIZE (4 * 4096)

static __always_inline bool enav_have_task_btf(void)
{
	return bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf);
}

static __always_inline bool enav_have_task_pt_regs(void)
{
	return bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_task_pt_regs);
}

/* task->mm != NULL: the current task has a user address space. */
static __always_inline bool enav_current_has_mm(void)
{
	if (enav_have_task_btf())
		return bpf_get_current_task_btf()->mm != NULL;
	struct task_struct *t = (void *)bpf_get_current_task();
	return BPF_CORE_READ(t, mm) != NULL;
}

static __always_inline __u32 enav_current_self_exec_id(void)
{
	if (enav_have_task_btf())
		return bpf_get_current_task_btf()->self_exec_id;
	struct task_struct *t = (void *)bpf_get_current_task();
	return BPF_CORE_READ(t, self_exec_id);
}

/* The user registers a profiler and the syscall hooks need. */
struct enav_user_regs {
	__u64 ip, sp, bp;
	__u64 di, si; /* a syscall's first two arguments */
};

/* Copy the saved user registers at the top of a kernel stack of size bytes;
 * false unless they look like a user-mode frame (CPL 3 in cs and ss), which
 * is also what tells a wrong guess of the stack's size. */
static __always_inline bool enav_stack_top_regs(void *stack, __u64 size, struct enav_user_regs *out)
{
	/* x86-64's pt_regs layout is part of its ABI (ptrace): one copy. */
	struct pt_regs regs;

	if (bpf_probe_read_kernel(&regs, sizeof(regs), stack + size - sizeof(regs)) ||
	    (regs.cs & 3) != 3 || (regs.ss & 3) != 3)
		return false;
	out->ip = regs.ip;
	out->sp = regs.sp;
	out->bp = regs.bp;
	out->di = regs.di;
	out->si = regs.si;
	return true;
}

/* The current task's user registers; false for a kernel thread or when they
 * cannot be read. */
static __always_inline bool enav_current_user_regs(struct enav_user_regs *out)
{
	if (enav_have_task_pt_regs()) {
		struct pt_regs *regs =
		    (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
		if (!regs)
			return false;
		out->ip = regs->ip;
		out->sp = regs->sp;
		out->bp = regs->bp;
		out->di = regs->di;
		out->si = regs->si;
		return true;
	}
	struct task_struct *t = (void *)bpf_get_current_task();
	void *stack = BPF_CORE_READ(t, stack);
	if (!stack)
		return false;
	return enav_stack_top_regs(stack, ENAV_THREAD_SIZE, out) ||
	       enav_stack_top_regs(stack, 2 * ENAV_THREAD_SIZE, out);
}

#endif
