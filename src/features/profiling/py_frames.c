/* SPDX-License-Identifier: Apache-2.0 */
/* CPython 3.11 thread states and interpreter frames: py_frames.h. */
#include "features/profiling/py_frames.h"

#include <errno.h>
#include <string.h>

/* offsetof on Debian's python3.11-dev 3.11.2 headers (Py_BUILD_CORE:
 * internal/pycore_runtime.h, pycore_interp.h, pycore_frame.h,
 * cpython/pystate.h, cpython/code.h), proven against the live interpreter by
 * tests/unit/test_py_frames.c. */
const struct enav_py_offsets enav_py311_offsets = {
    .runtime_interpreters_head = 40,
    .interp_next = 0,
    .interp_threads_head = 16,
    .tstate_next = 8,
    .tstate_thread_id = 152,
    .tstate_cframe = 56,
    .cframe_current_frame = 8,
    .frame_code = 32,
    .frame_previous = 48,
    .frame_prev_instr = 56,
    .frame_is_entry = 68,
    .code_units = 16,
    .code_code = 184,
};

/* A pointer-sized field of the target. */
static int field(struct enav_py_mem *m, uint64_t base, uint32_t off, uint64_t *out)
{
	if (!base)
		return -EFAULT;
	return enav_py_mem_read(m, base + off, out, sizeof(*out));
}

int enav_py_thread_state(struct enav_py_mem *m, const struct enav_py_offsets *o, uint64_t runtime,
			 uint64_t thread_id, uint64_t *tstate)
{
	uint64_t interp;
	int err = field(m, runtime, o->runtime_interpreters_head, &interp);
	bool capped = false;
	for (unsigned i = 0; !err && interp; i++) {
		if (i == ENAV_PY_INTERPRETERS_MAX) {
			capped = true;
			break;
		}
		uint64_t t, id;
		if ((err = field(m, interp, o->interp_threads_head, &t)))
			break;
		for (unsigned k = 0; t; k++) {
			if (k == ENAV_PY_THREADS_MAX) {
				capped = true;
				break;
			}
			if ((err = field(m, t, o->tstate_thread_id, &id)))
				return err;
			if (id == thread_id) {
				*tstate = t;
				return 0;
			}
			if ((err = field(m, t, o->tstate_next, &t)))
				return err;
		}
		err = field(m, interp, o->interp_next, &interp);
	}
	return err ? err : capped ? -ELOOP : -ENOENT;
}

int enav_py_frames(struct enav_py_mem *m, const struct enav_py_offsets *o, uint64_t tstate,
		   struct enav_py_frame *out, unsigned max, bool *truncated)
{
	uint64_t cframe, frame;
	int err;
	*truncated = false;
	if ((err = field(m, tstate, o->tstate_cframe, &cframe)) ||
	    (err = field(m, cframe, o->cframe_current_frame, &frame)))
		return err;
	unsigned n = 0;
	while (frame) {
		if (n == max) {
			*truncated = true;
			break;
		}
		uint64_t code, instr, units, entry;
		if ((err = field(m, frame, o->frame_code, &code)) ||
		    (err = field(m, frame, o->frame_prev_instr, &instr)) ||
		    (err = field(m, frame, o->frame_is_entry, &entry)) ||
		    (err = field(m, code, o->code_units, &units)))
			return err;
		/* prev_instr is the last instruction run: before the first one
		 * (a frame still in its prologue) or past the end, no line. */
		uint64_t start = code + o->code_code;
		int32_t unit = -1;
		if (instr >= start && (instr - start) / 2 < units && units <= INT32_MAX)
			unit = (int32_t)((instr - start) / 2);
		out[n++] = (struct enav_py_frame){.code = code, .unit = unit, .entry = entry & 1};
		if ((err = field(m, frame, o->frame_previous, &frame)))
			return err;
	}
	return (int)n;
}
