/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared kernel-side plumbing every E-Navigator program includes:
 *  - the capture filter (cgroup id -> verdict byte, under a control word),
 *  - per-CPU counters by category that user space reads and exports,
 *  - one emit() that hides ring buffer versus perf buffer.  Each program
 *    source is compiled twice, once per transport (-DENAV_TRANSPORT_RINGBUF
 *    or -DENAV_TRANSPORT_PERF), so an old kernel that rejects the ring-buffer
 *    map type at load still gets an object it can load.
 */
#ifndef ENAV_COMMON_BPF_H
#define ENAV_COMMON_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "enav/abi.h"

char LICENSE[] SEC("license") = "GPL";

/* v &= mask, done in v's own register where the verifier sees it: a bound
 * the compiler checked on a copy of the register is lost on older
 * verifiers (Linux 6.1), which then refuse a helper's size argument. */
#define enav_bound(v, mask) asm volatile("%[r] &= " #mask : [r] "+r"(v))

#if defined(ENAV_TRANSPORT_RINGBUF) == defined(ENAV_TRANSPORT_PERF)
#error "build with exactly one of -DENAV_TRANSPORT_RINGBUF or -DENAV_TRANSPORT_PERF"
#endif

/* Ring buffer: wake the consumer only once this many bytes are pending (0 =
 * every event).  The consumer also drains on a timer, so latency stays bounded. */
const volatile __u64 enav_wakeup_bytes = 0;

#ifdef ENAV_TRANSPORT_RINGBUF
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22); /* resized from config before load */
} enav_events SEC(".maps");
#else
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} enav_events SEC(".maps");
#endif

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ENAV_KC__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} enav_counters SEC(".maps");

/* Capture filter.  Only cgroup ids and verdict bytes: no names ever. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} enav_capture_control SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384); /* resized from config before load */
	__type(key, __u64);
	__type(value, __u8);
} enav_cgroup_verdicts SEC(".maps");

/* One more in slot key of a per-CPU array of __u64 counters: enav_counters
 * here, a feature's own counters (profiling, TLS) through the same code. */
static __always_inline void enav_count_in(void *counters, __u32 key)
{
	__u64 *v = bpf_map_lookup_elem(counters, &key);

	if (v)
		*v += 1; /* per-CPU slot: no atomics needed */
}

/* n more in slot key (frames of one walk counted at once). */
static __always_inline void enav_count_add_in(void *counters, __u32 key, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(counters, &key);

	if (v)
		*v += n;
}

static __always_inline void enav_count(enum enav_kernel_counter c)
{
	enav_count_in(&enav_counters, c);
}

/* Decide before any other work; unknown cgroups follow the control word. */
static __always_inline bool enav_capture_allowed(__u64 cgroup_id)
{
	__u32 zero = 0;
	__u32 *mode = bpf_map_lookup_elem(&enav_capture_control, &zero);

	if (!mode || *mode == ENAV_CAPTURE_DISABLED)
		return true;
	__u8 *verdict = bpf_map_lookup_elem(&enav_cgroup_verdicts, &cgroup_id);
	if (verdict)
		return *verdict != 0;
	return *mode == ENAV_CAPTURE_UNKNOWN_CAPTURE;
}

/* enav_capture_allowed, with a refusal counted (ENAV_KC_FILTERED): what a
 * program that reports into enav_counters checks before any other work. */
static __always_inline bool enav_admitted(__u64 cgroup_id)
{
	if (!enav_capture_allowed(cgroup_id)) {
		enav_count(ENAV_KC_FILTERED);
		return false;
	}
	return true;
}

/* The one slot of a per-CPU scratch array (an event too large for the
 * stack), or NULL, counted as ENAV_KC_SCRATCH_MISSING. */
static __always_inline void *enav_scratch(void *map)
{
	__u32 zero = 0;
	void *slot = bpf_map_lookup_elem(map, &zero);

	if (!slot)
		enav_count(ENAV_KC_SCRATCH_MISSING);
	return slot;
}

/* Hand size bytes of data to the transport; counts the outcome either way.
 * False when the transport had no room (the event is lost). */
static __always_inline bool enav_emit(void *ctx, void *data, __u64 size)
{
	long err;
#ifdef ENAV_TRANSPORT_RINGBUF
	__u64 flags = 0;

	if (enav_wakeup_bytes) {
		__u64 pending = bpf_ringbuf_query(&enav_events, BPF_RB_AVAIL_DATA);
		flags =
		    pending + size >= enav_wakeup_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
	}
	err = bpf_ringbuf_output(&enav_events, data, size, flags);
#else
	err = bpf_perf_event_output(ctx, &enav_events, BPF_F_CURRENT_CPU, data, size);
#endif
	enav_count(err ? ENAV_KC_TRANSPORT_FULL : ENAV_KC_EMITTED);
	return !err;
}

/*
 * Bulk events (application payload fragments) wake the consumer once per
 * this much pending data: when the event takes the pending bytes across a
 * multiple of it.  The consumer drains the ring on each wakeup, and its
 * timer drains the rest within kernel.poll_interval_ms; epoll reports the
 * ring readable while anything is pending, so no wakeup is lost between a
 * drain and the next wait.  Two costs this avoids: a wakeup per event costs
 * each traced call a context switch (measured: wrk -> nginx fell from 42k
 * to 25k requests/s), and a forced wakeup on every event once the
 * threshold is passed costs each one a self-IPI, which in a VM is an exit
 * to the hypervisor (measured on this Firecracker guest: 864 ns per socket
 * hook run with it, see docs/adr/0016-payloads-at-socket-hooks.md).
 */
#define ENAV_LAZY_WAKEUP_SHIFT 16 /* 64 KiB */

static __always_inline void enav_emit_lazy(void *ctx, void *data, __u64 size)
{
#ifdef ENAV_TRANSPORT_RINGBUF
	__u64 pending = bpf_ringbuf_query(&enav_events, BPF_RB_AVAIL_DATA);
	bool crosses =
	    (pending >> ENAV_LAZY_WAKEUP_SHIFT) != ((pending + size) >> ENAV_LAZY_WAKEUP_SHIFT);
	long err = bpf_ringbuf_output(&enav_events, data, size,
				      crosses ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
	enav_count(err ? ENAV_KC_TRANSPORT_FULL : ENAV_KC_EMITTED);
#else
	enav_emit(ctx, data, size);
#endif
}

static __always_inline void enav_fill_header(struct enav_event_header *h, __u16 type,
					     __u64 cgroup_id)
{
	__u64 id = bpf_get_current_pid_tgid();

	h->type = type;
	h->abi_version = ENAV_ABI_VERSION;
	h->boot_time_ns = bpf_ktime_get_boot_ns();
	h->cgroup_id = cgroup_id;
	h->pid = id >> 32;
	h->tid = (__u32)id;
}

#endif
