/* SPDX-License-Identifier: Apache-2.0 */
/* The programs of profile.bpf.c (and of profile_bounded.bpf.c, which includes
 * it): what loads where, by feature. */
#include "features/profiling/profile_source.h"

/* The unwinder is inlined in every stack-taking program; the CPU sampler
 * loads first, so its refusal is the unwinder's, and the sampler loads again
 * without it. */
const struct enav_bpf_feature_spec enav_profile_unwind_feature = {
    .name = "unwind_eh_frame",
    .config_bool = ENAV_CONFIG_BOOL(profiling.unwind_eh_frame),
    .in_core = true,
};
const struct enav_bpf_feature_spec enav_profile_offcpu_feature = {
    .name = "offcpu",
    .config_bool = ENAV_CONFIG_BOOL(profiling.offcpu),
};
const struct enav_bpf_feature_spec enav_profile_futex_feature = {
    .name = "futex",
    .config_bool = ENAV_CONFIG_BOOL(profiling.futex),
};

/* futex_waitv(2) arrived in Linux 5.16, futex_wait(2) in 6.7: their hooks
 * may be absent. */
#define FUTEX2_PROGRAM(NAME)                                                                       \
	{                                                                                          \
		.name = NAME, .variant = ENAV_BPF_ANY_KERNEL,                                      \
		.feature = &enav_profile_futex_feature, .hook_may_be_absent = true,                \
	}

static const struct enav_bpf_program_spec programs[] = {
    /* perf_event: attached by the source to the perf events it opens. */
    {.name = "enav_cpu_sample",
     .variant = ENAV_BPF_ANY_KERNEL,
     .feature = &enav_profile_unwind_feature},
    {.name = "enav_offcpu_switch_btf",
     .variant = ENAV_BPF_TP_BTF,
     .feature = &enav_profile_offcpu_feature},
    {.name = "enav_offcpu_switch_raw",
     .variant = ENAV_BPF_RAW_TP,
     .feature = &enav_profile_offcpu_feature},
    /* The syscall exit that walks a long wait's user stack (profile.bpf.c). */
    {.name = "enav_offcpu_settle_btf",
     .variant = ENAV_BPF_TP_BTF,
     .feature = &enav_profile_offcpu_feature},
    {.name = "enav_offcpu_settle_raw",
     .variant = ENAV_BPF_RAW_TP,
     .feature = &enav_profile_offcpu_feature},
    {.name = "enav_futex_enter",
     .variant = ENAV_BPF_ANY_KERNEL,
     .feature = &enav_profile_futex_feature},
    {.name = "enav_futex_exit",
     .variant = ENAV_BPF_ANY_KERNEL,
     .feature = &enav_profile_futex_feature},
    FUTEX2_PROGRAM("enav_futex2_waitv_enter"),
    FUTEX2_PROGRAM("enav_futex2_waitv_exit"),
    FUTEX2_PROGRAM("enav_futex2_wait_enter"),
    FUTEX2_PROGRAM("enav_futex2_wait_exit"),
};

static const struct enav_bpf_feature_spec *const features[] = {
    &enav_profile_unwind_feature,
    &enav_profile_offcpu_feature,
    &enav_profile_futex_feature,
};

const struct enav_bpf_program_table enav_profile_programs = {
    .source = "profiling",
    .programs = programs,
    .n_programs = ENAV_ARRAY_LEN(programs),
    .features = features,
    .n_features = ENAV_ARRAY_LEN(features),
};
