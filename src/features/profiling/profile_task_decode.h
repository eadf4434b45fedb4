/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decoder of the profiler's task announcement (a process's first profiled
 * stack, bpf/profiling/profile.bpf.c; include/enav/abi.h).  Pure and
 * bounded: fuzzed directly (fuzz_profile_event).
 */
#ifndef ENAV_FEATURES_PROFILING_PROFILE_TASK_DECODE_H
#define ENAV_FEATURES_PROFILING_PROFILE_TASK_DECODE_H

#include "runtime/event_decode.h"

struct enav_profile_announce {
	enum enav_event_type type;
	struct enav_event_header hdr; /* hdr.pid is the sampled process */
	struct {
		__u16 exec_gen;
		char comm[ENAV_COMM_LEN + 1];
	} profile_task;
};

/* A profile-task event, exactly its size; any other type is
 * ENAV_DECODE_UNKNOWN_TYPE.  out is struct enav_profile_announce. */
enum enav_decode_status enav_profile_task_decode(const void *data, size_t size, void *out);

#endif
