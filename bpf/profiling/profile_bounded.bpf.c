/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The profiler for kernels without bpf_loop (before Linux 5.17): the same
 * programs, the unwinder's loops bounded (unwind.bpf.h).  The profiling
 * source loads this object when the probe finds no bpf_loop.
 */
#define ENAV_UNWIND_BOUNDED 1
/* Frames the bounded walk unwinds; deeper stacks are cut there (counted as
 * unwind_depth_limit).  Each one costs the verifier a full step. */
#ifndef ENAV_UNWIND_BOUNDED_STEPS
#define ENAV_UNWIND_BOUNDED_STEPS 64
#endif

#include "profile.bpf.c"
