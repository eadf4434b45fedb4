/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CPython 3.11 thread states and interpreter frames, walked in a process's
 * memory (issue 35): from _PyRuntime to the thread state of one thread, and
 * from it the chain of _PyInterpreterFrames, innermost first, each a code
 * object and the instruction it is at.  py_code.h names them.
 *
 * The walk reads memory a tenant owns: every chain is capped (a cycle ends
 * at the cap, counted as truncated), every read goes through the budgeted
 * reader, and an instruction outside its code object is not given a line.
 */
#ifndef ENAV_FEATURES_PROFILING_PY_FRAMES_H
#define ENAV_FEATURES_PROFILING_PY_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#include "features/profiling/py_code.h"

/* Where a version keeps what the walk follows (bytes into each struct). */
struct enav_py_offsets {
	uint32_t runtime_interpreters_head; /* _PyRuntimeState.interpreters.head */
	uint32_t interp_next;		    /* PyInterpreterState.next */
	uint32_t interp_threads_head;	    /* PyInterpreterState.threads.head */
	uint32_t tstate_next;		    /* PyThreadState.next */
	uint32_t tstate_thread_id;	    /* PyThreadState.thread_id (pthread_self) */
	uint32_t tstate_cframe;		    /* PyThreadState.cframe */
	uint32_t cframe_current_frame;	    /* _PyCFrame.current_frame */
	uint32_t frame_code;		    /* _PyInterpreterFrame.f_code */
	uint32_t frame_previous;	    /* _PyInterpreterFrame.previous */
	uint32_t frame_prev_instr;	    /* _PyInterpreterFrame.prev_instr */
	uint32_t frame_is_entry;	    /* _PyInterpreterFrame.is_entry (a bool) */
	uint32_t code_units;		    /* PyCodeObject.ob_size: its code units */
	uint32_t code_code;		    /* PyCodeObject.co_code_adaptive */
};

/* CPython 3.11 on x86-64 (docs/profiling.md says where each comes from). */
extern const struct enav_py_offsets enav_py311_offsets;

#define ENAV_PY_INTERPRETERS_MAX 16
#define ENAV_PY_THREADS_MAX	 4096

/* One Python frame: its code object and instruction (the code unit it is
 * at; -1 when outside the code, which then has no line), and whether the
 * evaluation loop was entered from C for it (where the native
 * _PyEval_EvalFrameDefault frame that runs it sits). */
struct enav_py_frame {
	uint64_t code;
	int32_t unit;
	bool entry;
};

/*
 * The thread state of the thread whose pthread_self() is thread_id, in the
 * runtime at runtime (the address of _PyRuntime).  0 with *tstate set,
 * -ENOENT when no interpreter has it, -ELOOP when a list passes its cap
 * before it is found, else -errno of the reads.
 */
int enav_py_thread_state(struct enav_py_mem *m, const struct enav_py_offsets *o, uint64_t runtime,
			 uint64_t thread_id, uint64_t *tstate);

/*
 * The frames of thread state tstate, innermost first, into out (max of
 * them): their count, *truncated when the chain went on past max, or
 * -errno of the reads.
 */
int enav_py_frames(struct enav_py_mem *m, const struct enav_py_offsets *o, uint64_t tstate,
		   struct enav_py_frame *out, unsigned max, bool *truncated);

#endif
