/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The unwinder's two searches for kernels without bpf_loop (Linux < 5.17),
 * where every iteration of every walk step is a separate path for the
 * verifier.  Its budget there is less the instructions than the branches it
 * keeps pending along one path (8192): so both searches are binary and
 * choose their next half with arithmetic, not with a branch.  The only
 * branch left in a halving is the row lookup's NULL check.
 */
#ifndef ENAV_PROFILING_UNWIND_BOUNDED_BPF_H
#define ENAV_PROFILING_UNWIND_BOUNDED_BPF_H

/* 1 when a < b, for a and b below 2^63; the shift is hidden from the
 * compiler, which would otherwise turn it back into a comparison (a branch
 * in BPF). */
static __always_inline __u64 unwind_below(__u64 a, __u64 b)
{
	__u64 d = a - b;

	asm volatile("%[d] >>= 63" : [d] "+r"(d));
	return d;
}

/* c ? a : b for c 0 or 1, without a branch. */
static __always_inline __u64 unwind_pick(__u64 c, __u64 a, __u64 b)
{
	__u64 mask = 0 - c;

	return (a & mask) | (b & ~mask);
}

/* Copy out the executable mapping holding pc; false when none does.  The
 * search finds the last mapping starting at or below pc (they are sorted
 * and disjoint), then checks it with real comparisons: a return address read
 * from the stack may be anything. */
static __always_inline bool unwind_mapping(struct enav_unwind_proc *p, __u64 pc,
					   struct enav_unwind_mapping *out)
{
	__u64 n = p->n;
	__u64 lo = 0, hi = unwind_pick(unwind_below(n, ENAV_UNWIND_MAX_MAPPINGS + 1), n,
				       ENAV_UNWIND_MAX_MAPPINGS);

	/* 2^7 > ENAV_UNWIND_MAX_MAPPINGS: seven halvings end every search. */
	for (__u32 i = 0; i < 7; i++) {
		__u64 go = unwind_below(lo, hi);
		__u64 mid = lo + ((hi - lo) >> 1);
		enav_bound(mid, 63);
		__u64 right = go & unwind_below(p->m[mid].start, pc + 1);
		lo = unwind_pick(right, mid + 1, lo);
		hi = unwind_pick(go & (right ^ 1), mid, hi);
	}
	if (lo == 0)
		return false;
	__u64 idx = lo - 1;
	enav_bound(idx, 63);
	const struct enav_unwind_mapping *m = &p->m[idx];
	if (pc < m->start || pc >= m->end)
		return false;
	*out = *m;
	return true;
}

/* The rule of the mapping's table covering rel (its cfa and rbp fields);
 * false when rel precedes the table.  The same 25 halvings whatever the
 * table's size: an early exit would be one more pending branch each. */
static __always_inline bool unwind_row(struct enav_unwind_regs *r,
				       const struct enav_unwind_mapping *m, __u32 rel,
				       struct enav_unwind_entry *out)
{
	__u64 first = m->first;
	__u64 lo = first, hi = first + m->count;

	(void)r;
	/* Tables hold fewer than 2^24 rows (profiling.unwind.max_rows). */
	for (__u32 i = 0; i < 25; i++) {
		__u64 go = unwind_below(lo, hi);
		/* Once the search has ended, look at its first row: in the map. */
		__u32 mid = unwind_pick(go, lo + ((hi - lo) >> 1), first);
		const struct enav_unwind_entry *e = bpf_map_lookup_elem(&enav_unwind_rows, &mid);
		/* Past the map (a table longer than it): no row.  This path
		 * joins the one of a mapping without a table at once. */
		if (!e)
			return false;
		__u64 right = go & unwind_below(e->pc, (__u64)rel + 1);
		lo = unwind_pick(right, (__u64)mid + 1, lo);
		hi = unwind_pick(go & (right ^ 1), mid, hi);
	}
	return unwind_row_before(lo, first, out);
}

#endif
