/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for CPython code objects read from a process's memory
 * (src/features/profiling/py_code.c).  The input is both a location table
 * (decoded at every unit up to its end: a line is -1 or found, never a
 * crash, and a unit past the table is not found) and, as a forged address
 * space of its own size at a fixed base, the memory the readers walk: the
 * code type and its member table, a code object, its strings and bytes.
 * It is also a runtime whose interpreter, thread and frame lists
 * (py_frames.c) the walk follows, loops included.  Nothing may crash,
 * over-read, read past the budget, loop past a cap, or write a name that is
 * not NUL-terminated within its cap.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/profiling/py_code.h"
#include "features/profiling/py_frames.h"

#define BASE 0x100000ull

struct image {
	const uint8_t *data;
	size_t size;
};

static int image_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	const struct image *im = ctx;
	if (addr < BASE || addr - BASE > im->size || n > im->size - (addr - BASE))
		return -EFAULT;
	memcpy(buf, im->data + (addr - BASE), n);
	return 0;
}

/* An address inside the image, from 4 bytes of it at off (the image's own
 * pointers, as a forged process would plant them). */
static uint64_t pick(const uint8_t *data, size_t size, size_t off)
{
	uint32_t v = 0;
	if (size >= off + 4)
		memcpy(&v, data + off, 4);
	return BASE + (size ? v % size : 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int line, prev_ok = 1;
	for (uint32_t unit = 0; unit < 512; unit++) {
		int ok = enav_py_line_at(data, size, 1, unit, &line);
		if (ok && !prev_ok)
			abort(); /* a unit found after one that was not */
		prev_ok = ok;
		if (!ok && unit > 8 * size)
			break;
	}
	if (enav_py_line_at(data, size, 1, (uint32_t)(8 * size), &line))
		abort(); /* an entry covers at most 8 units */

	struct image im = {data, size};
	struct enav_py_types types = {
	    .code = pick(data, size, 0), .str = pick(data, size, 4), .bytes = pick(data, size, 8)};
	struct enav_py_mem m = {image_read, &im, 1 << 16};
	struct enav_py_code_layout layout;
	int err = enav_py_code_layout_read(&m, &types, &layout);
	if (m.budget > 1 << 16)
		abort();
	if (err) {
		/* Still walk a code object, at offsets picked from the input. */
		memset(&layout, 0, sizeof(layout));
		layout.types = types;
		layout.filename = (uint32_t)(pick(data, size, 12) - BASE) % 504;
		layout.qualname = (uint32_t)(pick(data, size, 16) - BASE) % 504;
		layout.linetable = (uint32_t)(pick(data, size, 20) - BASE) % 504;
		layout.firstlineno = (uint32_t)(pick(data, size, 24) - BASE) % 504;
	}
	static uint8_t table[ENAV_PY_LINETABLE_MAX];
	struct enav_py_code code = {.linetable = table};
	m.budget = 1 << 16;
	if (enav_py_code_read(&m, &layout, pick(data, size, 28), &code) == 0) {
		if (code.linetable_len > ENAV_PY_LINETABLE_MAX)
			abort();
		enav_py_line_at(code.linetable, code.linetable_len, code.firstlineno, 3, &line);
	}
	if (memchr(code.qualname, 0, sizeof(code.qualname)) == NULL ||
	    memchr(code.filename, 0, sizeof(code.filename)) == NULL)
		abort();
	uint64_t tstate = pick(data, size, 36);
	m.budget = 1 << 16;
	int err2 = enav_py_thread_state(&m, &enav_py311_offsets, pick(data, size, 40),
					pick(data, size, 44) - BASE, &tstate);
	if (err2 > 0 || m.budget > 1 << 16)
		abort();
	struct enav_py_frame frames[32];
	bool truncated;
	m.budget = 1 << 16;
	int nf = enav_py_frames(&m, &enav_py311_offsets, tstate, frames, 32, &truncated);
	if (nf > 32 || (truncated && nf != 32))
		abort();
	for (int i = 0; i < nf; i++)
		if (frames[i].unit < -1)
			abort();
	char small[5];
	m.budget = 1 << 12;
	int n = enav_py_str_read(&m, &types, pick(data, size, 32), small, sizeof(small));
	if (n >= (int)sizeof(small) || (n >= 0 && strlen(small) != (size_t)n) || m.budget > 1 << 12)
		abort();
	return 0;
}
