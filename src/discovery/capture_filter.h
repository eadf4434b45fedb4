/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel side of the capture filter, owned by user space: one control
 * word and one cgroup id -> verdict map, created once and shared by every
 * program object (bpf_map__reuse_fd before load), so a verdict written once
 * applies to every hook.  The maps hold only ids and bytes: no names.
 */
#ifndef ENAV_DISCOVERY_CAPTURE_FILTER_H
#define ENAV_DISCOVERY_CAPTURE_FILTER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "platform/promtext.h"
#include "platform/u64map.h"
#include "enav/abi.h"
#include "probe/features.h"

struct bpf_object;

struct enav_capture_filter {
	int control_fd;
	int verdicts_fd;
	uint32_t capacity;
	enum enav_capture_mode mode;
	_Atomic uint64_t entries;
	_Atomic uint64_t writes;
	_Atomic uint64_t deletes;
	_Atomic uint64_t map_full; /* verdicts that could not be written: capacity reached */
	_Atomic uint64_t write_errors;
	/* What the agent wrote, to find and undo writes by anyone else
	 * (enav_capture_filter_verify).  Guarded by lock with the kernel writes. */
	pthread_mutex_t lock;
	struct enav_u64map shadow;
	bool shadow_ok;
	_Atomic uint64_t restored; /* entries put back after someone else changed them */
};

/*
 * The control word for a layout and policy.  Only a pure cgroup2 host lets
 * unknown cgroups through (denylist); on v1 and hybrid hosts an unknown id
 * proves nothing, and on v1 nothing can be proven at all, so filtering
 * policies deny by default there.  The "all" policy disables the filter.
 */
enum enav_capture_mode enav_capture_kernel_mode(enum enav_cgroup_layout layout,
						enum enav_capture_policy policy);

int enav_capture_filter_open(struct enav_capture_filter *f, uint32_t capacity, char *err,
			     size_t errlen);
void enav_capture_filter_close(struct enav_capture_filter *f);
int enav_capture_filter_set_mode(struct enav_capture_filter *f, enum enav_capture_mode mode);
/* Write (or overwrite) a verdict; returns 0, -ENOSPC when full (counted). */
int enav_capture_filter_set(struct enav_capture_filter *f, uint64_t cgroup_id, bool capture);
void enav_capture_filter_clear(struct enav_capture_filter *f, uint64_t cgroup_id);
/* Compare the kernel maps with what the agent wrote and put back any
 * difference (an entry changed, added or removed by another process, or the
 * control word).  Returns the number of entries restored. */
uint32_t enav_capture_filter_verify(struct enav_capture_filter *f);
/* Make obj use the shared maps; call between open and load. */
int enav_capture_filter_reuse(const struct enav_capture_filter *f, struct bpf_object *obj);
void enav_capture_filter_metrics(struct enav_capture_filter *f, struct enav_promtext *p);
const char *enav_capture_mode_name(enum enav_capture_mode m);

#endif
