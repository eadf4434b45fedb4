/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A live Debian python3.11 for the CPython tests (test_py_code.c,
 * test_py_frames.c): a script run with its stdin and stdout on pipes, its
 * memory read while it waits for stdin to close; and a forged target, one
 * buffer of memory.  Include after cmocka.h.
 */
#ifndef ENAV_TESTS_UNIT_PY_TARGET_H
#define ENAV_TESTS_UNIT_PY_TARGET_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PYTHON "/usr/bin/python3.11"

/* The scripts' one output function: a line of space-separated fields. */
#define PY_EMIT                                                                                    \
	"def emit(*parts):\n"                                                                      \
	"    sys.stdout.write(\" \".join(str(p) for p in parts) + \"\\n\")\n"

struct py_target {
	pid_t pid;
	FILE *out; /* its stdout */
	int in;	   /* its stdin: closed to let it exit */
};

/* Skips (with the reason) without python3.11; fails instead with CI=true. */
static inline void py_target_require(void)
{
	if (access(PYTHON, X_OK) == 0)
		return;
	const char *ci = getenv("CI");
	if (ci && strcmp(ci, "true") == 0)
		fail_msg(PYTHON " is missing with CI=true (scripts/deps.sh test)");
	print_message("skip: " PYTHON " is not installed\n");
	skip();
}

/* python3.11 -c script [arg] */
static inline void py_target_start(struct py_target *t, const char *script, const char *arg)
{
	int to[2], from[2];
	assert_int_equal(pipe(to), 0);
	assert_int_equal(pipe(from), 0);
	t->pid = fork();
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		dup2(to[0], 0);
		dup2(from[1], 1);
		close(to[1]);
		close(from[0]);
		execl(PYTHON, PYTHON, "-c", script, arg, (char *)NULL);
		_exit(127);
	}
	close(to[0]);
	close(from[1]);
	t->in = to[1];
	t->out = fdopen(from[0], "r");
	assert_non_null(t->out);
}

/* Closes its stdin; it must exit 0. */
static inline void py_target_stop(struct py_target *t)
{
	close(t->in);
	fclose(t->out);
	int status;
	assert_int_equal(waitpid(t->pid, &status, 0), t->pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A forged target: an address space of one buffer at FAKE_BASE, read
 * through fake_read (an enav_py_read_fn). */
#define FAKE_BASE 0x10000ull
static uint8_t fake[8192];

static inline int fake_read(void *ctx, uint64_t addr, void *buf, size_t n)
{
	(void)ctx;
	if (addr < FAKE_BASE || addr - FAKE_BASE > sizeof(fake) ||
	    n > sizeof(fake) - (addr - FAKE_BASE))
		return -EFAULT;
	memcpy(buf, fake + (addr - FAKE_BASE), n);
	return 0;
}

static inline void put64(uint64_t at, uint64_t v)
{
	memcpy(fake + (at - FAKE_BASE), &v, 8);
}

static inline void put32(uint64_t at, uint32_t v)
{
	memcpy(fake + (at - FAKE_BASE), &v, 4);
}

#endif
