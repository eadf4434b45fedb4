/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Continuous profiling: three kinds of stacks counted in the kernel.
 *
 *  - CPU: a perf_event program (cpu-clock or cycles, opened per CPU by user
 *    space) counts samples per (tgid, cgroup, user stack, kernel stack).
 *  - Off-CPU: sched_switch records when a task blocks and, when it is
 *    switched back in, whether it waited long enough to count; the stacks of
 *    such a wait are walked then and at its syscall's exit.
 *  - Futex: the futex wait syscalls (futex, futex_wait, futex_waitv) add the
 *    nanoseconds waited to the stack that waited, taken when the wait ends.
 *
 * User stacks are unwound from .eh_frame tables (unwind.bpf.h, ADR 0017),
 * else walked by frame pointer (bpf_get_stack); kernel stacks are the
 * kernel's own walks.  Stacks are stored by content hash.  The
 * aggregation map is drained by user space; every failure to capture a stack
 * or to count a sample is counted in enav_prof_counters.  Nothing here holds
 * a name: comm travels only in the new-process notification event.
 */
#include "enav_common.bpf.h"
#include "enav_task.bpf.h"
#include "enav_req_links.bpf.h"

/* errno values map updates return (vmlinux.h has no errno.h). */
#define EEXIST 17

/* Set from the profiling config before load. */
const volatile __u64 enav_offcpu_min_ns = 1000000;
const volatile __u32 enav_offcpu_sample_every = 1;
const volatile __u64 enav_futex_min_ns = 10000;
const volatile __u32 enav_futex_sample_every = 1;
/* profiling.max_stack_depth * 8 */
const volatile __u32 enav_stack_bytes = ENAV_PROFILE_MAX_DEPTH * 8;
/* The agent's own process: its waits are not recorded (wait_admitted). */
const volatile __u32 enav_self_tgid = 0;
/* sched_switch passes prev_state (Linux 5.18+, probe row
 * sched_switch_prev_state); before, it has three arguments and the state is
 * read from the task.  The other branch is dead code the verifier skips. */
const volatile bool enav_switch_state_arg = true;

#define TASK_RUNNING_STATE 0
/* futex(2) operations that wait (FUTEX_CMD_MASK strips PRIVATE and CLOCK_REALTIME). */
#define FUTEX_CMD_MASK_BITS	 (~(128 | 256))
#define FUTEX_OP_WAIT		 0
#define FUTEX_OP_LOCK_PI	 6
#define FUTEX_OP_WAIT_BITSET	 9
#define FUTEX_OP_WAIT_REQUEUE_PI 11
#define FUTEX_OP_LOCK_PI2	 13

/* Stacks by content hash.  LRU: a full map evicts the stalest stack instead
 * of refusing new ones; a count whose stack was evicted is reported missing. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384); /* resized from config before load */
	__type(key, __u64);
	__type(value, struct enav_profile_stack);
} enav_prof_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct enav_profile_stack);
} enav_prof_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* resized from config before load */
	__type(key, struct enav_profile_key);
	__type(value, struct enav_profile_value);
} enav_prof_counts SEC(".maps");

/* A wait in progress: the time is added when it ends.  Stacks are walked
 * only for waits over their threshold: off-CPU ones at the switch back in
 * (kernel) and the next syscall exit (user), futex ones at the syscall's exit. */
struct wait_start {
	__u64 start_ns;
	__u64 cgroup_id;
	__u64 user_stack;
	__u64 kernel_stack;
	__u32 tgid;
	__u16 exec_gen;
	__u16 pad;
	/* the requests the thread served and awaited when the wait began */
	__u64 server_sock, client_sock;
	__u32 server_seq, client_seq, link_flags, pad2;
	/* off-CPU only: the blocked nanoseconds not yet counted (the wait is
	 * due), and the user registers it blocked with */
	__u64 due_ns;
	__u64 user_ip, user_sp;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384); /* resized from config before load */
	__type(key, __u32);	    /* tid */
	__type(value, struct wait_start);
} enav_prof_offcpu_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384); /* resized from config before load */
	__type(key, __u32);	    /* tid */
	__type(value, struct wait_start);
} enav_prof_futex_start SEC(".maps");

/* Process images already announced to user space ((exec_gen << 32 | tgid)
 * -> 1), so each is snapshotted once while it lives and again after every
 * exec; an eviction only re-announces. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192); /* resized from config before load */
	__type(key, __u64);
	__type(value, __u8);
} enav_prof_tasks SEC(".maps");

/* Which exec of the process the current stack belongs to. */
static __always_inline __u16 exec_gen(void)
{
	return (__u16)enav_current_self_exec_id();
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ENAV_PC__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} enav_prof_counters SEC(".maps");

static __always_inline void prof_count(enum enav_profile_counter c)
{
	enav_count_in(&enav_prof_counters, c);
}

#include "unwind.bpf.h"

/* Store the n frames in st under their hash; returns the hash (0 = none). */
static __always_inline __u64 store_frames(struct enav_profile_stack *st, __u32 n)
{
	if (n == 0)
		return 0;
	/* FNV-1a over the frames, with a final avalanche; 0 is reserved. */
	__u64 h = 0xcbf29ce484222325ull;
	for (__u32 i = 0; i < ENAV_PROFILE_MAX_DEPTH; i++) {
		if (i >= n)
			break;
		h = (h ^ st->ips[i]) * 0x100000001b3ull;
	}
	h ^= n;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	if (h == 0)
		h = 1;
	if (bpf_map_lookup_elem(&enav_prof_stacks, &h))
		return h; /* already stored (and now recently used) */
	st->n = n;
	if (bpf_map_update_elem(&enav_prof_stacks, &h, st, BPF_ANY)) {
		prof_count(ENAV_PC_STACK_OTHER);
		return 0;
	}
	return h;
}

/* Walk one stack of the current task into the scratch slot and store it
 * under its hash; returns the hash, 0 when there is no stack.  User stacks
 * go through the .eh_frame unwinder when it is on. */
/* The per-CPU slot a stack is walked into; NULL (counted) when there is
 * none.  Counts the walk. */
static __always_inline struct enav_profile_stack *walk_slot(void)
{
	__u32 zero = 0;
	struct enav_profile_stack *st = bpf_map_lookup_elem(&enav_prof_scratch, &zero);
	if (!st) {
		prof_count(ENAV_PC_STACK_OTHER);
		return NULL;
	}
	prof_count(ENAV_PC_STACK_CAPTURES);
	return st;
}

/* How many bytes of the slot a walk fills: profiling.max_stack_depth's. */
static __always_inline __u32 walk_bytes(struct enav_profile_stack *st)
{
	return enav_stack_bytes < sizeof(st->ips) ? enav_stack_bytes : sizeof(st->ips);
}

static __always_inline __u64 store_stack(void *ctx, bool user, __u32 tgid, __u16 gen)
{
	struct enav_profile_stack *st = walk_slot();
	if (!st)
		return 0;
	__u32 size = walk_bytes(st);
	if (user) {
		int n = unwind_user(st, size / 8, tgid, gen);
		if (n >= 0)
			return store_frames(st, (__u32)n);
	}
	long got = bpf_get_stack(ctx, st->ips, size, user ? BPF_F_USER_STACK : 0);
	if (got < 0) {
		prof_count(user ? ENAV_PC_STACK_USER_FAULT : ENAV_PC_STACK_KERNEL_FAULT);
		return 0;
	}
	return store_frames(st, (__u32)got / sizeof(__u64));
}

/* Both stacks of the current task.  A user stack only exists when the task
 * has a user address space; a kernel stack only when asked for. */
static __always_inline void capture_stacks(void *ctx, bool want_kernel, __u32 tgid, __u16 gen,
					   __u64 *ustack, __u64 *kstack)
{
	*kstack = want_kernel ? store_stack(ctx, false, tgid, gen) : 0;
	*ustack = enav_current_has_mm() ? store_stack(ctx, true, tgid, gen) : 0;
}

/* Announce a process image the first time one of its stacks is counted. */
static __always_inline void announce_task(void *ctx, __u32 tgid, __u16 gen, __u64 cgroup_id)
{
	__u8 one = 1;
	__u64 key = (__u64)gen << 32 | tgid;
	__u32 zero = 0;
	struct enav_unwind_regs *r = bpf_map_lookup_elem(&enav_unwind_scratch, &zero);
	bool again = r && r->reannounce; /* the unwinder found its mappings stale */

	if (r)
		r->reannounce = 0;
	if (!again && bpf_map_lookup_elem(&enav_prof_tasks, &key))
		return;
	if (!again && bpf_map_update_elem(&enav_prof_tasks, &key, &one, BPF_NOEXIST))
		return; /* another CPU announced it */
	struct enav_profile_task_event e = {};
	enav_fill_header(&e.hdr, ENAV_EVENT_PROFILE_TASK, cgroup_id);
	e.hdr.size = sizeof(e);
	e.hdr.pid = tgid;
	e.exec_gen = gen;
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	/* A lost announcement would leave the image never snapshotted (every
	 * frame of it unsymbolized): the next stack of it announces again. */
	if (!enav_emit(ctx, &e, sizeof(e)))
		bpf_map_delete_elem(&enav_prof_tasks, &key);
}

static __always_inline void add_count(struct enav_profile_key *key, __u64 ns)
{
	struct enav_profile_value *v = bpf_map_lookup_elem(&enav_prof_counts, key);

	if (!v) {
		struct enav_profile_value zero = {};
		/* EEXIST means another CPU inserted it first: use theirs. */
		long err = bpf_map_update_elem(&enav_prof_counts, key, &zero, BPF_NOEXIST);
		if (err && err != -EEXIST) {
			prof_count(ENAV_PC_COUNTS_FULL);
			return;
		}
		v = bpf_map_lookup_elem(&enav_prof_counts, key);
		if (!v) {
			prof_count(ENAV_PC_COUNTS_FULL);
			return;
		}
	}
	__sync_fetch_and_add(&v->count, 1);
	if (ns)
		__sync_fetch_and_add(&v->total_ns, ns);
}

/* ---- request links (ADR 0021) -------------------------------------------- */

/* Copy a thread's requests (its entry l) into a key or a wait's start; the
 * caller marks them wanted when the sample is kept (enav_req_mark,
 * link_confirm). */
#define LINK_COPY(dst, l)                                                                          \
	do {                                                                                       \
		(dst)->server_sock = (l)->server.sock_id;                                          \
		(dst)->server_seq = (l)->server.seq;                                               \
		(dst)->client_sock = (l)->client.sock_id;                                          \
		(dst)->client_seq = (l)->client.seq;                                               \
		(dst)->link_flags = (l)->server.flags & ENAV_LINK_SHARED;                          \
	} while (0)

/* A wait that ended over its threshold marks the requests it began in, if
 * the thread still serves them (a wait that outlived its request names a
 * span that has already gone out unmarked: the sample then resolves only if
 * the span is still in the agent's cache, and waits out its hold if not). */
static __always_inline void link_confirm(__u32 tid, struct wait_start *w)
{
	struct enav_req_link *l = enav_req_link_of(tid);
	if (!l)
		return;
	enav_req_confirm(&l->server, w->server_sock, w->server_seq);
	enav_req_confirm(&l->client, w->client_sock, w->client_seq);
}

/* ---- CPU -------------------------------------------------------------- */

SEC("perf_event")
int enav_cpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;

	if (tgid == 0)
		return 0; /* the idle task: not a workload */
	__u64 cgroup_id = bpf_get_current_cgroup_id();
	if (!enav_capture_allowed(cgroup_id)) {
		prof_count(ENAV_PC_FILTERED);
		return 0;
	}
	prof_count(ENAV_PC_CPU_SAMPLES);
	struct enav_profile_key key = {
	    .tgid = tgid, .kind = ENAV_PROFILE_CPU, .exec_gen = exec_gen(), .cgroup_id = cgroup_id};
	/* In user mode there is no kernel stack to walk (x86: CPL in cs). */
	/* The context only allows whole 8-byte loads of the saved registers. */
	__u64 cs = ((__u64 *)&ctx->regs)[__builtin_offsetof(struct pt_regs, cs) / 8];
	bool in_kernel = (cs & 3) == 0;
	capture_stacks(ctx, in_kernel, tgid, key.exec_gen, &key.user_stack, &key.kernel_stack);
	announce_task(ctx, tgid, key.exec_gen, cgroup_id);
	struct enav_req_link *l = enav_req_link_of((__u32)id);
	if (l) {
		LINK_COPY(&key, l);
		enav_req_mark(&l->server);
		enav_req_mark(&l->client);
	}
	add_count(&key, 0);
	return 0;
}

/* ---- off-CPU ------------------------------------------------------------ */

/*
 * An off-CPU wait is counted in three steps.  Walking both stacks at every
 * block was the profiler's largest cost on a busy server (issue 32), almost
 * all of it for waits shorter than enav_offcpu_min_ns, so no stack is walked
 * until a wait is known to be long:
 *
 *  - switch-out (offcpu_begin): the blocking task is current; its identity,
 *    requests and user registers are noted (the raw_tp variant, which cannot
 *    name the sleeping task later, walks the kernel stack here);
 *  - switch-in (offcpu_resume): a wait over the threshold becomes due; its
 *    kernel stack is walked from the still-sleeping task (tp_btf);
 *  - the task's next syscall exit (offcpu_settle): it is current again, and
 *    when its user registers are those it blocked with it has not been back
 *    in user space, so its user stack is the one it blocked in: it is walked
 *    there and the due time counted.
 *
 * A due wait whose thread reaches user space another way (a page fault), or
 * blocks again elsewhere first, is counted with its kernel stack only
 * (offcpu_no_user_stack): time is never lost, and never given a stack it did
 * not wait in.  Several long waits inside one syscall add up under the first
 * one's kernel stack.
 */

/* Due waits not yet settled, node-wide: every syscall exit reads it, and only
 * a non-zero value costs a lookup.  A due wait lost to an LRU eviction leaves
 * it high, which costs that lookup, never a wrong count. */
__u64 enav_offcpu_due = 0;

static __always_inline bool sampled(__u32 every)
{
	if (every <= 1)
		return true;
	if (bpf_get_prandom_u32() % every == 0)
		return true;
	prof_count(ENAV_PC_UNSAMPLED);
	return false;
}

/* A wait of the current task to be recorded: a user task other than the
 * agent, admitted by the capture filter, and sampled.  Fills w's identity;
 * false to skip it.  The agent's threads block on their own queues by design,
 * several times per event they carry: recording those waits would make every
 * signal pay for profiling its own delivery (CPU samples of the agent stay). */
static __always_inline bool wait_admitted(struct wait_start *w, __u32 every)
{
	if (!enav_current_has_mm())
		return false; /* kernel threads have no workload stack */
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	if (tgid == enav_self_tgid) {
		prof_count(ENAV_PC_AGENT_WAITS);
		return false;
	}
	__u64 cgroup_id = bpf_get_current_cgroup_id();
	if (!enav_capture_allowed(cgroup_id)) {
		prof_count(ENAV_PC_FILTERED);
		return false;
	}
	if (!sampled(every))
		return false;
	w->cgroup_id = cgroup_id;
	w->tgid = tgid;
	w->exec_gen = exec_gen();
	struct enav_req_link *l = enav_req_link_of((__u32)bpf_get_current_pid_tgid());
	if (l)
		LINK_COPY(w, l);
	return true;
}

static __always_inline void wait_store(void *start_map, struct wait_start *w)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	w->start_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(start_map, &tid, w, BPF_ANY))
		prof_count(ENAV_PC_PENDING_FULL);
}

/* Take tid's pending wait out of start_map into *w; its length, or 0 when
 * there is none or it is shorter than min_ns (counted). */
static __always_inline __u64 wait_take(void *start_map, __u32 tid, __u64 min_ns,
				       struct wait_start *w)
{
	struct wait_start *p = bpf_map_lookup_elem(start_map, &tid);
	if (!p)
		return 0;
	__u64 now = bpf_ktime_get_ns();
	*w = *p;
	bpf_map_delete_elem(start_map, &tid);
	__u64 delta = now > w->start_ns ? now - w->start_ns : 0;
	if (delta < min_ns || delta == 0) {
		prof_count(ENAV_PC_BELOW_THRESHOLD);
		return 0;
	}
	return delta;
}

static __always_inline void wait_count(struct wait_start *w, __u32 kind, __u64 delta, __u32 every)
{
	struct enav_profile_key key = {.tgid = w->tgid,
				       .kind = kind,
				       .exec_gen = w->exec_gen,
				       .cgroup_id = w->cgroup_id,
				       .user_stack = w->user_stack,
				       .kernel_stack = w->kernel_stack,
				       .server_sock = w->server_sock,
				       .client_sock = w->client_sock,
				       .server_seq = w->server_seq,
				       .client_seq = w->client_seq,
				       .link_flags = w->link_flags};
	add_count(&key, delta * (every ? every : 1));
}

/* The current task's user registers, or zeros when they cannot be read (a
 * zero sp never matches, so such a wait keeps no user stack). */
static __always_inline void note_user_regs(struct wait_start *w)
{
	struct enav_user_regs regs;
	if (enav_current_user_regs(&regs)) {
		w->user_ip = regs.ip;
		w->user_sp = regs.sp;
	}
}

/* Count the due wait w of tid; with_user walks the current task's user
 * stack for it (the caller has checked that it is the one w blocked in). */
static __always_inline void offcpu_count(void *ctx, __u32 tid, struct wait_start *w, bool with_user)
{
	__sync_fetch_and_add(&enav_offcpu_due, -1);
	if (with_user)
		w->user_stack = store_stack(ctx, true, w->tgid, w->exec_gen);
	else
		prof_count(ENAV_PC_OFFCPU_NO_USER_STACK);
	link_confirm(tid, w);
	wait_count(w, ENAV_PROFILE_OFFCPU, w->due_ns, enav_offcpu_sample_every);
}

/* The current task blocks.  A due wait of it still unsettled either goes on
 * (the same user registers: it blocks again inside the same syscall) or is
 * counted without its user stack, before the new wait is noted. */
static __always_inline void offcpu_begin(void *ctx, bool kernel_stack_now)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wait_start w = {};
	struct wait_start *due = bpf_map_lookup_elem(&enav_prof_offcpu_start, &tid);

	if (due && due->due_ns) {
		note_user_regs(&w);
		if (w.user_sp && due->user_sp == w.user_sp && due->user_ip == w.user_ip) {
			due->start_ns = bpf_ktime_get_ns();
			return;
		}
		struct wait_start old = *due;
		bpf_map_delete_elem(&enav_prof_offcpu_start, &tid);
		offcpu_count(ctx, tid, &old, false);
		w.user_ip = w.user_sp = 0;
	}
	if (!wait_admitted(&w, enav_offcpu_sample_every))
		return;
	note_user_regs(&w);
	if (kernel_stack_now)
		w.kernel_stack = store_stack(ctx, false, w.tgid, w.exec_gen);
	/* Announced now, where the task is current (its comm is ours), a new
	 * process's unwind tables load while it waits. */
	announce_task(ctx, w.tgid, w.exec_gen, w.cgroup_id);
	wait_store(&enav_prof_offcpu_start, &w);
}

/* The sleeping task t's kernel stack, stored; 0 when there is none. */
static __always_inline __u64 store_task_kernel_stack(struct task_struct *t)
{
	struct enav_profile_stack *st = walk_slot();
	if (!st)
		return 0;
	__u32 size = walk_bytes(st);
	long got = bpf_get_task_stack(t, st->ips, size, 0);
	if (got < 0) {
		prof_count(ENAV_PC_STACK_KERNEL_FAULT);
		return 0;
	}
	return store_frames(st, (__u32)got / sizeof(__u64));
}

/* Task tid (t when the hook names it) is switched back in. */
static __always_inline void offcpu_resume(__u32 tid, struct task_struct *t)
{
	struct wait_start *p = bpf_map_lookup_elem(&enav_prof_offcpu_start, &tid);
	if (!p || !p->start_ns)
		return; /* not waiting: preempted, or due and running */
	__u64 now = bpf_ktime_get_ns();
	__u64 delta = now > p->start_ns ? now - p->start_ns : 0;
	p->start_ns = 0;
	if (delta < enav_offcpu_min_ns || delta == 0) {
		prof_count(ENAV_PC_BELOW_THRESHOLD);
		if (!p->due_ns)
			bpf_map_delete_elem(&enav_prof_offcpu_start, &tid);
		return;
	}
	prof_count(ENAV_PC_OFFCPU_EPISODES);
	if (!p->due_ns) {
		if (t)
			p->kernel_stack = store_task_kernel_stack(t);
		__sync_fetch_and_add(&enav_offcpu_due, 1);
	}
	p->due_ns += delta;
}

/* A syscall of the current task returns: settle its due wait, if any. */
static __always_inline int offcpu_settle(void *ctx)
{
	if (!enav_offcpu_due)
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wait_start *p = bpf_map_lookup_elem(&enav_prof_offcpu_start, &tid);
	if (!p || !p->due_ns || p->start_ns)
		return 0;
	struct wait_start w = *p;
	bpf_map_delete_elem(&enav_prof_offcpu_start, &tid);
	struct wait_start now = {};
	note_user_regs(&now);
	offcpu_count(ctx, tid, &w,
		     now.user_sp && now.user_sp == w.user_sp && now.user_ip == w.user_ip);
	return 0;
}

static __always_inline int handle_switch(void *ctx, bool preempt, __u32 prev_tid, __u32 next_tid,
					 unsigned int prev_state, struct task_struct *next)
{
	/* prev is current here: a task that blocks (not preempted) starts a wait. */
	if (!preempt && prev_state != TASK_RUNNING_STATE && prev_tid != 0)
		offcpu_begin(ctx, next == NULL);
	if (next_tid)
		offcpu_resume(next_tid, next);
	return 0;
}

/* The blocking task's state when sched_switch has no prev_state argument:
 * task_struct's state field, named __state since 5.14. */
static __always_inline unsigned int task_state(struct task_struct *t)
{
	struct task_struct___pre514 {
		long state;
	} __attribute__((preserve_access_index)) *old = (void *)t;

	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return (unsigned int)BPF_CORE_READ(old, state);
}

SEC("tp_btf/sched_switch")
int enav_offcpu_switch_btf(u64 *ctx)
{
	struct task_struct *prev = (void *)ctx[1], *next = (void *)ctx[2];
	unsigned int state = enav_switch_state_arg ? (unsigned int)ctx[3] : task_state(prev);

	return handle_switch(ctx, (bool)ctx[0], prev->pid, next->pid, state, next);
}

SEC("raw_tp/sched_switch")
int enav_offcpu_switch_raw(u64 *ctx)
{
	struct task_struct *prev = (void *)ctx[1], *next = (void *)ctx[2];
	unsigned int state = enav_switch_state_arg ? (unsigned int)ctx[3] : task_state(prev);

	/* Untyped pointers: read through CO-RE instead of direct loads; the
	 * kernel stack is walked at the block (no task to name at the wake). */
	return handle_switch(ctx, (bool)ctx[0], BPF_CORE_READ(prev, pid), BPF_CORE_READ(next, pid),
			     state, NULL);
}

SEC("tp_btf/sys_exit")
int enav_offcpu_settle_btf(u64 *ctx)
{
	return offcpu_settle(ctx);
}

SEC("raw_tp/sys_exit")
int enav_offcpu_settle_raw(u64 *ctx)
{
	return offcpu_settle(ctx);
}

/* ---- futex ---------------------------------------------------------------- */

/* Layout of syscalls:sys_enter_* / sys_exit_* tracepoint records. */
struct syscall_enter_ctx {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__u64 args[6];
};

struct syscall_exit_ctx {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

static __always_inline bool futex_op_waits(__u64 op)
{
	__u32 cmd = (__u32)op & FUTEX_CMD_MASK_BITS;
	return cmd == FUTEX_OP_WAIT || cmd == FUTEX_OP_WAIT_BITSET || cmd == FUTEX_OP_LOCK_PI ||
	       cmd == FUTEX_OP_LOCK_PI2 || cmd == FUTEX_OP_WAIT_REQUEUE_PI;
}

/*
 * A futex wait is timed from entry to exit, and its stack taken at the exit:
 * the waiter is current at both, and its user registers at the syscall's
 * return are those it entered with, so it is the same stack.  Taken at the
 * end, a wait under enav_futex_min_ns costs no walk, and a wait that began
 * before its process's unwind tables were loaded is walked with them.
 */
static __always_inline void futex_begin(void *ctx)
{
	struct wait_start w = {};
	if (!wait_admitted(&w, enav_futex_sample_every))
		return;
	/* Announced now, a new process's tables load while it waits. */
	announce_task(ctx, w.tgid, w.exec_gen, w.cgroup_id);
	wait_store(&enav_prof_futex_start, &w);
}

static __always_inline int futex_exit(void *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wait_start w;
	__u64 delta = wait_take(&enav_prof_futex_start, tid, enav_futex_min_ns, &w);
	if (!delta)
		return 0;
	prof_count(ENAV_PC_FUTEX_WAITS);
	link_confirm(tid, &w);
	capture_stacks(ctx, false, w.tgid, w.exec_gen, &w.user_stack, &w.kernel_stack);
	announce_task(ctx, w.tgid, w.exec_gen, w.cgroup_id);
	wait_count(&w, ENAV_PROFILE_FUTEX, delta, enav_futex_sample_every);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_futex")
int enav_futex_enter(struct syscall_enter_ctx *ctx)
{
	if (futex_op_waits(ctx->args[1]))
		futex_begin(ctx);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex")
int enav_futex_exit(struct syscall_exit_ctx *ctx)
{
	return futex_exit(ctx);
}

/* futex_waitv(2), the first futex2 call (Linux 5.16+), and futex_wait(2)
 * (6.7+): optional (the source's optional_prefix enav_futex2), attached only
 * where they exist. */
SEC("tracepoint/syscalls/sys_enter_futex_waitv")
int enav_futex2_waitv_enter(struct syscall_enter_ctx *ctx)
{
	futex_begin(ctx);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex_waitv")
int enav_futex2_waitv_exit(struct syscall_exit_ctx *ctx)
{
	return futex_exit(ctx);
}

SEC("tracepoint/syscalls/sys_enter_futex_wait")
int enav_futex2_wait_enter(struct syscall_enter_ctx *ctx)
{
	futex_begin(ctx);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_futex_wait")
int enav_futex2_wait_exit(struct syscall_exit_ctx *ctx)
{
	return futex_exit(ctx);
}
