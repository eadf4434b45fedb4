/* SPDX-License-Identifier: Apache-2.0 */
/*
 * User stacks unwound from .eh_frame tables in the kernel (ADR 0017).
 *
 * User space turns each binary's .eh_frame into sorted rows (struct
 * enav_unwind_entry) in enav_unwind_rows and lists every executable mapping
 * of a process in enav_unwind_procs.  Here, starting from the registers the
 * task entered the kernel with, each step finds the mapping of the return
 * address, the row covering it, computes the caller's frame and reads the
 * return address (and rbp where saved) from the stack.  A mapping without a
 * table, or an address no row covers, steps by frame pointer instead.
 *
 * Only plausible frames are kept: the first return address outside every
 * executable mapping of the process ends the stack, as does a caller frame
 * not above the current one.  Every stack's end is counted by reason.
 */
#ifndef ENAV_PROFILING_UNWIND_BPF_H
#define ENAV_PROFILING_UNWIND_BPF_H

/* Set from profiling.unwind before load; off when the kernel refuses the
 * unwinder (feature "unwind_eh_frame"): stacks are then frame-pointer walks. */
const volatile bool enav_unwind_enabled = false;

#include "enav_task.bpf.h"

/*
 * Where the kernel has bpf_loop (Linux 5.17+) the verifier checks each
 * callback once, whatever the count.  profile_bounded.bpf.c builds this file
 * for older kernels with plain bounded loops instead, which the verifier
 * walks through every iteration: the walk is then shorter
 * (ENAV_UNWIND_BOUNDED_STEPS) to stay within its budget, and deeper stacks
 * end with the unwind_depth_limit count.
 */
#ifdef ENAV_UNWIND_BOUNDED
#define ENAV_UNWIND_STEPS ENAV_UNWIND_BOUNDED_STEPS
/* A function of its own: inlined, the compiler lays the walk's loop out so
 * that its back-edge is a plain fall-through, which 5.10 refuses. */
#define ENAV_UNWIND_STEP_ATTR static __noinline
#define enav_unwind_loop(n, fn, ctx)                                                               \
	do {                                                                                       \
		__u32 enav_i = 0;                                                                  \
		do {                                                                               \
			if (fn(enav_i, ctx))                                                       \
				break;                                                             \
		} while (++enav_i < (n));                                                          \
	} while (0)
#else
#define ENAV_UNWIND_STEPS	     ENAV_PROFILE_MAX_DEPTH
#define ENAV_UNWIND_STEP_ATTR	     static
#define enav_unwind_loop(n, fn, ctx) bpf_loop(n, fn, ctx, 0)
#endif

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE); /* user space writes rows in place */
	__uint(max_entries, 1);		   /* profiling.unwind.max_rows, set before load */
	__type(key, __u32);
	__type(value, struct enav_unwind_entry);
} enav_unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* 2 KiB each: only what is used */
	__uint(max_entries, 1);		      /* profiling.unwind.max_processes */
	__type(key, __u64);		      /* exec_gen << 32 | tgid */
	__type(value, struct enav_unwind_proc);
} enav_unwind_procs SEC(".maps");

/*
 * The walk's registers and counts live in a per-CPU map value, not on the
 * stack: the verifier explores bpf_loop's callback until its states repeat,
 * and values it reads back from a map are unknown to it, so the second
 * iteration already matches the first.  Counters on the stack would be
 * distinct constants in every iteration and every frame would be verified.
 */
struct enav_unwind_regs {
	__u64 ip, sp, bp;
	__u32 n, max;
	__u32 end; /* enum enav_profile_counter of how it ended; 0 while going */
	__u32 fp_frames, table_frames;
	__u32 reannounce; /* the process's mapping list looked stale: announce it again */
	__u32 lo, hi;	  /* the row search's bounds (unwind_row_step) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct enav_unwind_regs);
} enav_unwind_scratch SEC(".maps");

struct enav_unwind_walk {
	struct enav_unwind_proc *proc;
	struct enav_profile_stack *st;
	struct enav_unwind_regs *r;
};

/* The row a search ended on: the last one whose pc is at or below the
 * address (lo is one past it), when that is inside the mapping's table
 * (rows from first on).  Both searches, bpf_loop's and the bounded one,
 * end here. */
static __always_inline bool unwind_row_before(__u32 lo, __u32 first, struct enav_unwind_entry *out)
{
	if (lo <= first)
		return false;
	__u32 idx = lo - 1;
	const struct enav_unwind_entry *e = bpf_map_lookup_elem(&enav_unwind_rows, &idx);
	if (!e)
		return false;
	*out = *e;
	return true;
}

#ifdef ENAV_UNWIND_BOUNDED
#include "unwind_bounded.bpf.h"
#else
/*
 * The verifier must be able to prune these loops: the mapping search is a
 * linear scan (its index is the only value used as an offset), and the row
 * search's bounds only ever feed a map key, so its branches merge.
 */

/* Copy out the executable mapping holding pc; false when none does.  A copy,
 * not a pointer: paths leaving the scan at different indexes then reach the
 * rest of the step in one state. */
static __always_inline bool unwind_mapping(struct enav_unwind_proc *p, __u64 pc,
					   struct enav_unwind_mapping *out)
{
	__u32 n = p->n;

	for (__u32 i = 0; i < ENAV_UNWIND_MAX_MAPPINGS; i++) {
		if (i >= n)
			break;
		const struct enav_unwind_mapping *m = &p->m[i];
		if (pc < m->start)
			break; /* sorted: no later mapping holds it */
		if (pc < m->end) {
			*out = *m;
			return true;
		}
	}
	return false;
}

/* One halving of the row search: its bounds live in the scratch map, so the
 * verifier checks this callback once instead of every halving of an
 * unrolled loop inside every walk step (25 of them cost 90,000 processed
 * instructions per program). */
struct enav_unwind_search {
	struct enav_unwind_regs *r;
	__u32 rel;
};

static long unwind_row_step(__u32 i, void *arg)
{
	struct enav_unwind_search *s = arg;
	struct enav_unwind_regs *r = s->r;
	__u32 lo = r->lo, hi = r->hi;

	(void)i;
	if (lo >= hi)
		return 1;
	__u32 mid = lo + (hi - lo) / 2;
	const struct enav_unwind_entry *e = bpf_map_lookup_elem(&enav_unwind_rows, &mid);
	if (!e) {
		r->lo = r->hi = 0; /* past the map: no row */
		return 1;
	}
	if (e->pc <= s->rel)
		r->lo = mid + 1;
	else
		r->hi = mid;
	return 0;
}

/* The rule of the mapping's table covering rel (its cfa and rbp fields);
 * false when rel precedes the table. */
static __always_inline bool unwind_row(struct enav_unwind_regs *r,
				       const struct enav_unwind_mapping *m, __u32 rel,
				       struct enav_unwind_entry *out)
{
	struct enav_unwind_search s = {.r = r, .rel = rel};

	r->lo = m->first;
	r->hi = m->first + m->count;
	/* Tables hold fewer than 2^24 rows (profiling.unwind.max_rows). */
	bpf_loop(25, unwind_row_step, &s, 0);
	return unwind_row_before(r->lo, m->first, out);
}
#endif

ENAV_UNWIND_STEP_ATTR long unwind_step(__u32 i, void *arg)
{
	struct enav_unwind_walk *u = arg;
	struct enav_unwind_regs *r = u->r;
	__u64 pc = r->ip;
	/* A return address points after its call: look up the call itself. */
	__u64 at = i ? pc - 1 : pc;
	struct enav_unwind_mapping map;
	const struct enav_unwind_mapping *m = &map;

	if (!unwind_mapping(u->proc, at, &map)) {
		r->end = ENAV_PC_UNWIND_NOT_EXEC;
		return 1;
	}
	__u32 n = r->n;
	if (n >= ENAV_PROFILE_MAX_DEPTH || n >= r->max) {
		r->end = ENAV_PC_UNWIND_DEPTH;
		return 1;
	}
	u->st->ips[n] = pc;
	r->n = n + 1;

	__u32 kind = ENAV_UNWIND_UNDEFINED, off = 0;
	__s32 rbp_off8 = 0;
	struct enav_unwind_entry row;
	if (m->count && at - m->bias <= 0xffffffffull &&
	    unwind_row(r, m, (__u32)(at - m->bias), &row)) {
		kind = row.cfa >> ENAV_UNWIND_KIND_SHIFT;
		off = (__u32)(row.cfa & ENAV_UNWIND_OFF_MASK) * 8;
		rbp_off8 = row.rbp_off8;
	}
	__u64 cfa;
	switch (kind) {
	case ENAV_UNWIND_END:
		r->end = ENAV_PC_UNWIND_COMPLETE;
		return 1;
	case ENAV_UNWIND_RSP:
		cfa = r->sp + off;
		break;
	case ENAV_UNWIND_RBP:
		cfa = r->bp + off;
		break;
	case ENAV_UNWIND_PLT:
		/* In a 16-byte PLT entry: 8 more once past its push, at the
		 * entry offset the row carries (11, or 10 with IBT). */
		cfa = r->sp + 8 + ((pc & 15) >= (off >> 3) ? 8 : 0);
		break;
	default:
		/* No rule: the frame-pointer convention (rbp -> saved rbp, ra). */
		if (!r->bp) {
			/* rbp 0 is where a chain ends (_start clears it); in a binary
			 * with a table it means the address had no rule. */
			r->end = m->count ? ENAV_PC_UNWIND_NO_INFO : ENAV_PC_UNWIND_COMPLETE;
			return 1;
		}
		cfa = r->bp + 16;
		rbp_off8 = -2;
		r->fp_frames++;
		break;
	}
	if (kind != ENAV_UNWIND_UNDEFINED)
		r->table_frames++;
	/* The caller's frame lies above this one, or the walk is lost. */
	if (cfa <= r->sp) {
		r->end = ENAV_PC_UNWIND_BAD_FRAME;
		return 1;
	}
	__u64 ra = 0, bp = r->bp;
	if (bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)) ||
	    (rbp_off8 && bpf_probe_read_user(&bp, sizeof(bp), (void *)(cfa + rbp_off8 * 8)))) {
		r->end = ENAV_PC_UNWIND_READ_FAULT;
		return 1;
	}
	if (!ra) {
		r->end = ENAV_PC_UNWIND_COMPLETE;
		return 1;
	}
	r->ip = ra;
	r->sp = cfa;
	r->bp = bp;
	return 0;
}

/*
 * Unwind the current task's user stack into st (leaf first).  Returns the
 * frame count; -1 when the unwinder does not apply (off, no task regs, the
 * process not loaded yet), so the caller walks frame pointers instead.
 */
static __always_inline int unwind_user(struct enav_profile_stack *st, __u32 max, __u32 tgid,
				       __u16 gen)
{
	if (!enav_unwind_enabled)
		return -1;
	struct enav_user_regs regs;
	if (!enav_current_user_regs(&regs))
		return -1;
	__u64 key = (__u64)gen << 32 | tgid;
	struct enav_unwind_proc *p = bpf_map_lookup_elem(&enav_unwind_procs, &key);
	if (!p) {
		/* Not loaded yet (the first milliseconds of a process): the
		 * frame-pointer walk, cut at build time at its first frame
		 * outside an executable mapping. */
		prof_count(ENAV_PC_UNWIND_NO_TABLES);
		return -1;
	}
	__u32 zero = 0;
	struct enav_unwind_regs *r = bpf_map_lookup_elem(&enav_unwind_scratch, &zero);
	if (!r)
		return -1;
	*r = (struct enav_unwind_regs){.ip = regs.ip, .sp = regs.sp, .bp = regs.bp, .max = max};
	struct enav_unwind_walk u = {.proc = p, .st = st, .r = r};
	enav_unwind_loop(ENAV_UNWIND_STEPS, unwind_step, &u);
	prof_count(r->end ? r->end : ENAV_PC_UNWIND_DEPTH);
	if (r->end == ENAV_PC_UNWIND_NOT_EXEC && !(p->flags & ENAV_UNWIND_PROC_STALE)) {
		/* Once per list: the announcement (announce_task, right after
		 * the stacks are taken) makes user space read the mappings
		 * again, and its new list clears the flag. */
		p->flags |= ENAV_UNWIND_PROC_STALE; /* a race only announces twice */
		r->reannounce = 1;
	}
	if (r->fp_frames)
		enav_count_add_in(&enav_prof_counters, ENAV_PC_UNWIND_FP_FRAMES, r->fp_frames);
	if (r->table_frames)
		enav_count_add_in(&enav_prof_counters, ENAV_PC_UNWIND_TABLE_FRAMES,
				  r->table_frames);
	/* Not even the leaf is in a listed mapping: the list is older than
	 * the code; the frame-pointer walk, cut at build time, does better. */
	return r->n ? (int)r->n : -1;
}

#endif
