/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Continuous profiling source: CPU samples, off-CPU and futex-wait time,
 * counted per stack in the kernel and drained into the agent's profile store
 * (src/features/profiling/profile_store.h).
 */
#ifndef ENAV_FEATURES_PROFILING_PROFILE_SOURCE_H
#define ENAV_FEATURES_PROFILING_PROFILE_SOURCE_H

#include <stddef.h>

#include "runtime/bpf_program_table.h"
#include "runtime/host.h"

extern const struct enav_source_ops enav_profile_source_ops;
bool enav_profile_source_enabled(const struct enav_config *cfg);
/* Every program of profile.bpf.c and profile_bounded.bpf.c (the unit tests check the choice). */
extern const struct enav_bpf_program_table enav_profile_programs;
/* Its features, for enav_bpf_source_want (profile_programs.c). */
extern const struct enav_bpf_feature_spec enav_profile_unwind_feature;
extern const struct enav_bpf_feature_spec enav_profile_offcpu_feature;
extern const struct enav_bpf_feature_spec enav_profile_futex_feature;
/* Where tgid's unwind tables are (state: what start returned). */
enum enav_unwind_wait {
	ENAV_UNWIND_WAIT_UNSEEN,  /* not announced yet: it has not run */
	ENAV_UNWIND_WAIT_LOADING, /* announced, its tables queued or loading */
	ENAV_UNWIND_WAIT_READY,	  /* loaded, or the unwinder is off */
};
enum enav_unwind_wait enav_profile_source_unwind_state(void *state, uint32_t tgid);
/* tgid's tables load before any other process's once it is announced
 * (`enav profile --pid`: the one process the profile is of). */
void enav_profile_source_unwind_prefer(void *state, uint32_t tgid);
/* Forget the off-CPU and futex waits under way (how many): each then counts
 * nothing when it ends.  `enav profile` opens its window with this, so that
 * a window holds only waits that began in it: a wait begun before holds time
 * outside the window, and its stack may be from before the process's unwind
 * tables loaded (a frame-pointer walk cut short in code built without). */
size_t enav_profile_source_forget_waits(void *state);

#endif
