/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for CPython 3.11 thread states and frames walked in a
 * process's memory (src/features/profiling/py_frames.c).
 *
 * The real case: Debian's python3.11 blocks its main thread reading stdin
 * in outer -> middle -> waiter, and a second thread in Event.wait under
 * sleeper_a -> sleeper_b; a third prints _PyRuntime's address and both
 * threads' stacks as Python itself sees them (sys._current_frames: the
 * qualified name and line of every frame).  The test finds each thread's
 * state from _PyRuntime by its pthread id, walks its frames, names them with
 * py_code.c, and must get the same stacks, frame for frame.  The same
 * addresses, found from python3.11's .dynsym and its load bias in
 * /proc/PID/maps, must be the interpreter's.  Without
 * python3.11 it skips with the reason (a failure with CI=true).
 *
 * The hostile cases: a frame chain and a thread list that loop forever end
 * at their caps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "features/profiling/py_code.h"
#include "features/profiling/py_frames.h"
#include "features/profiling/symbolize_priv.h"
#include "py_target.h"

#include <fcntl.h>

static const char target_script[] =
    "import ctypes\n"
    "import sys\n"
    "import threading\n"
    "import time\n"
    "\n"
    "\n" PY_EMIT "\n"
    "\n"
    "def stack_of(tid):\n"
    "    f = sys._current_frames()[tid]\n"
    "    out = []\n"
    "    while f:\n"
    "        out.append(f\"{f.f_code.co_qualname}:{f.f_lineno}\")\n"
    "        f = f.f_back\n"
    "    return out\n"
    "\n"
    "\n"
    "def top_is(tid, name):\n"
    "    f = sys._current_frames().get(tid)\n"
    "    return f is not None and f.f_code.co_qualname == name\n"
    "\n"
    "\n"
    "def report(main_id, sleeper_id):\n"
    "    deadline = time.monotonic() + 60\n"
    "    while not (top_is(main_id, \"waiter\") and top_is(sleeper_id, \"Condition.wait\")):\n"
    "        if time.monotonic() > deadline:\n"
    "            emit(\"X\", \"the threads never blocked\")\n"
    "            sys.stdout.flush()\n"
    "            return\n"
    "        time.sleep(0.05)\n"
    "    rt = ctypes.addressof(ctypes.c_char.in_dll(ctypes.pythonapi, \"_PyRuntime\"))\n"
    "    emit(\"T\", id(type(report.__code__)), id(str), id(bytes), rt)\n"
    "    for name, tid in ((\"main\", main_id), (\"sleeper\", sleeper_id)):\n"
    "        emit(\"S\", name, tid, *stack_of(tid))\n"
    "    emit(\"E\")\n"
    "    sys.stdout.flush()\n"
    "\n"
    "\n"
    "def sleeper_b(ev):\n"
    "    ev.wait()\n"
    "\n"
    "\n"
    "def sleeper_a(ev):\n"
    "    sleeper_b(ev)\n"
    "\n"
    "\n"
    "def waiter():\n"
    "    return sys.stdin.read()\n"
    "\n"
    "\n"
    "def middle():\n"
    "    return waiter()\n"
    "\n"
    "\n"
    "def outer():\n"
    "    return middle()\n"
    "\n"
    "\n"
    "ev = threading.Event()\n"
    "s = threading.Thread(target=sleeper_a, args=(ev,), daemon=True)\n"
    "s.start()\n"
    "threading.Thread(target=report, args=(threading.get_ident(), s.ident), daemon=True).start()\n"
    "outer()\n"
    "ev.set()\n";

/* What the interpreter's ELF says: the run-time addresses of _PyRuntime and
 * the three types, from .dynsym and the load bias of python3.11's first
 * mapping in /proc/PID/maps. */
static void from_elf(pid_t pid, struct enav_py_types *types, uint64_t *runtime)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *maps = fopen(path, "r");
	assert_non_null(maps);
	uint64_t start = 0, end, offset;
	bool found = false;
	while (!found && fgets(line, sizeof(line), maps)) {
		char file[256] = "";
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*u %255s", &start, &end, &offset, file) ==
			4 &&
		    strcmp(file, PYTHON) == 0 && offset == 0)
			found = true;
	}
	fclose(maps);
	assert_true(found);
	int fd = open(PYTHON, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	struct enav_elf *e = enav_elf_open_fd(fd);
	assert_non_null(e);
	struct enav_elf_symtab *t = NULL;
	assert_int_equal(enav_elf_load(e, 1 << 20, &t), 0);
	uint64_t vaddr;
	assert_true(enav_elf_offset_to_vaddr(t, 0, &vaddr));
	static const char *const names[] = {"_PyRuntime", "PyCode_Type", "PyUnicode_Type",
					    "PyBytes_Type"};
	uint64_t v[4];
	assert_int_equal(enav_elf_dynsym_objects(e, names, 4, v), 4);
	uint64_t bias = start - vaddr;
	*runtime = bias + v[0];
	*types =
	    (struct enav_py_types){.code = bias + v[1], .str = bias + v[2], .bytes = bias + v[3]};
	enav_elf_symtab_free(t);
	enav_elf_close(e);
	close(fd);
}

static void test_live_stacks(void **state)
{
	(void)state;
	py_target_require();
	struct py_target t;
	py_target_start(&t, target_script, NULL);
	pid_t pid = t.pid;
	FILE *out = t.out;

	struct enav_py_types types = {0};
	struct enav_py_code_layout layout;
	uint64_t runtime = 0;
	static uint8_t table[ENAV_PY_LINETABLE_MAX];
	char line[8192];
	unsigned stacks = 0;
	while (fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == 'X')
			fail_msg("python3.11: %s", line + 2);
		if (line[0] == 'E')
			break;
		if (line[0] == 'T') {
			assert_int_equal(sscanf(line, "T %lu %lu %lu %lu", &types.code, &types.str,
						&types.bytes, &runtime),
					 4);
			/* The ELF agrees with the interpreter's own view. */
			struct enav_py_types elf_types;
			uint64_t elf_runtime;
			from_elf(pid, &elf_types, &elf_runtime);
			assert_int_equal(elf_runtime, runtime);
			assert_memory_equal(&elf_types, &types, sizeof(types));
			struct enav_py_mem m = {enav_py_read_pid, &pid, 1 << 16};
			assert_int_equal(enav_py_code_layout_read(&m, &types, &layout), 0);
			continue;
		}
		if (line[0] != 'S')
			continue;
		char name[32];
		uint64_t tid;
		int off = 0;
		assert_int_equal(sscanf(line, "S %31s %lu %n", name, &tid, &off), 2);
		const char *want = line + off;

		struct enav_py_mem m = {enav_py_read_pid, &pid, 1 << 20};
		uint64_t tstate = 0;
		assert_int_equal(
		    enav_py_thread_state(&m, &enav_py311_offsets, runtime, tid, &tstate), 0);
		struct enav_py_frame frames[64];
		bool truncated;
		int n = enav_py_frames(&m, &enav_py311_offsets, tstate, frames, 64, &truncated);
		assert_true(n > 0);
		assert_false(truncated);
		char got[8192] = "";
		size_t len = 0;
		for (int i = 0; i < n; i++) {
			struct enav_py_code code = {.linetable = table};
			assert_int_equal(enav_py_code_read(&m, &layout, frames[i].code, &code), 0);
			int l = -1;
			if (frames[i].unit >= 0)
				assert_true(enav_py_line_at(code.linetable, code.linetable_len,
							    code.firstlineno,
							    (uint32_t)frames[i].unit, &l));
			len += (size_t)snprintf(got + len, sizeof(got) - len, "%s%s:%d",
						i ? " " : "", code.qualname, l);
		}
		print_message("%s thread: %s\n", name, got);
		assert_string_equal(got, want);
		/* The outermost frame was entered from C (the interpreter's
		 * main or the thread's bootstrap). */
		assert_true(frames[n - 1].entry);
		stacks++;
	}
	py_target_stop(&t);
	assert_int_equal(stacks, 2);
}

/* ---- forged memory -------------------------------------------------------- */

static void test_forged_cycles(void **state)
{
	(void)state;
	const struct enav_py_offsets *o = &enav_py311_offsets;
	memset(fake, 0, sizeof(fake));
	/* A thread list whose only thread points at itself, never the one
	 * asked for; an interpreter list that points at itself. */
	uint64_t runtime = FAKE_BASE, interp = FAKE_BASE + 0x100, t = FAKE_BASE + 0x200;
	put64(runtime + o->runtime_interpreters_head, interp);
	put64(interp + o->interp_threads_head, t);
	put64(interp + o->interp_next, 0);
	put64(t + o->tstate_next, t);
	put64(t + o->tstate_thread_id, 7);
	uint64_t tstate;
	struct enav_py_mem m = {fake_read, NULL, 1 << 20};
	assert_int_equal(enav_py_thread_state(&m, o, runtime, 8, &tstate), -ELOOP);
	m.budget = 1 << 20;
	assert_int_equal(enav_py_thread_state(&m, o, runtime, 7, &tstate), 0);
	assert_int_equal(tstate, t);
	put64(t + o->tstate_next, 0);
	put64(interp + o->interp_next, interp);
	m.budget = 1 << 20;
	assert_int_equal(enav_py_thread_state(&m, o, runtime, 8, &tstate), -ELOOP);
	/* A budget that runs out first. */
	m.budget = 100;
	assert_int_equal(enav_py_thread_state(&m, o, runtime, 8, &tstate), -E2BIG);

	/* A frame that is its own caller: cut at the cap.  Its instruction
	 * lies before its code: no unit. */
	uint64_t cframe = FAKE_BASE + 0x300, frame = FAKE_BASE + 0x400, code = FAKE_BASE + 0x600;
	put64(t + o->tstate_cframe, cframe);
	put64(cframe + o->cframe_current_frame, frame);
	put64(frame + o->frame_code, code);
	put64(frame + o->frame_previous, frame);
	put64(frame + o->frame_prev_instr, code);
	put64(code + o->code_units, 10);
	struct enav_py_frame frames[16];
	bool truncated;
	m.budget = 1 << 20;
	assert_int_equal(enav_py_frames(&m, o, t, frames, 16, &truncated), 16);
	assert_true(truncated);
	assert_int_equal(frames[0].unit, -1);
	/* An instruction inside the code, then past its end. */
	put64(frame + o->frame_previous, 0);
	put64(frame + o->frame_prev_instr, code + o->code_code + 2 * 9);
	m.budget = 1 << 20;
	assert_int_equal(enav_py_frames(&m, o, t, frames, 16, &truncated), 1);
	assert_int_equal(frames[0].unit, 9);
	put64(frame + o->frame_prev_instr, code + o->code_code + 2 * 10);
	m.budget = 1 << 20;
	assert_int_equal(enav_py_frames(&m, o, t, frames, 16, &truncated), 1);
	assert_int_equal(frames[0].unit, -1);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_live_stacks),
	    cmocka_unit_test(test_forged_cycles),
	};
	return cmocka_run_group_tests_name("py_frames", tests, NULL, NULL);
}
