/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The request each thread serves and awaits (struct enav_req_link, ADR
 * 0021): written by the network object's socket programs, read by the
 * profiler's, so a sample names the request its thread ran for.  Both
 * objects declare the map; the runner creates it once and hands both the
 * same descriptor (src/runtime/bpf_source.c), as it does the capture
 * filter's.  LRU: a thread that died mid-request leaves an entry the map
 * evicts, never one that fills it for good.
 */
#ifndef ENAV_REQ_LINKS_BPF_H
#define ENAV_REQ_LINKS_BPF_H

#include "enav_common.bpf.h"

/* profiling.links.enabled (and the network's L7 path on): set before load. */
const volatile bool enav_links_on = false;

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384); /* profiling.links.max_threads */
	__type(key, __u32);	    /* thread id */
	__type(value, struct enav_req_link);
} enav_req_links SEC(".maps");

static __always_inline struct enav_req_link *enav_req_link_of(__u32 tid)
{
	if (!enav_links_on)
		return NULL;
	return bpf_map_lookup_elem(&enav_req_links, &tid);
}

/* A sample counted s's request: the span that ends it is wanted. */
static __always_inline void enav_req_mark(struct enav_req_side *s)
{
	if (s->sock_id && !(s->flags & ENAV_LINK_SAMPLED))
		s->flags |= ENAV_LINK_SAMPLED;
}

/* Mark the live side that still is the request a wait began in. */
static __always_inline void enav_req_confirm(struct enav_req_side *live, __u64 sock, __u32 seq)
{
	if (sock && live->sock_id == sock && live->seq == seq)
		enav_req_mark(live);
}

#endif
