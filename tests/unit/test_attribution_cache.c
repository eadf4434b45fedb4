/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Attribution asks the kernel for a cgroup's path once per cgroup, failures
 * included: a cgroup that cannot be named must not cost a syscall on every
 * signal of it (src/enrich/attribution.c, resolve_cgroup).  The kernel's
 * answer is played by this file's open_by_handle_at, which the executable's
 * own definition puts in front of the C library's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config/config.h"
#include "enrich/attribution.h"
#include "model/signal.h"
#include "runtime/host.h"
#include "runtime/runner.h"

static unsigned calls;
static int answer_errno;

int open_by_handle_at(int mount_fd, struct file_handle *handle, int flags)
{
	(void)mount_fd;
	(void)handle;
	(void)flags;
	calls++;
	errno = answer_errno;
	return -1;
}

struct fixture {
	struct enav_host *host;
	void *attr;
};

static int setup(void **state)
{
	static struct fixture fx;
	struct enav_config cfg;
	char err[256] = "";

	enav_config_defaults(&cfg);
	/* Any directory opens as the mount: the handles never reach a kernel. */
	snprintf(cfg.attribution.cgroup2_mount, sizeof(cfg.attribution.cgroup2_mount), "/");
	fx.host = enav_host_new(&cfg);
	assert_non_null(fx.host);
	assert_int_equal(enav_attribution_ops.init(fx.host, &fx.attr, err, sizeof(err)), 0);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	enav_attribution_ops.fini(fx->attr);
	enav_host_free(fx->host);
	return 0;
}

/* One signal of cgroup id through attribution; returns its warning's reason. */
static const char *attribute(struct fixture *fx, uint64_t id)
{
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_TCP_CLOSE, 0);

	assert_non_null(s);
	s->process.cgroup_id = id;
	enav_attribution_ops.apply(fx->attr, s);
	assert_false(s->process.has_cgroup_path);
	const char *reason = NULL;
	for (uint32_t i = 0; i < s->n_warnings; i++)
		if (!strcmp(s->warnings[i].field, "cgroup_path"))
			reason = s->warnings[i].reason;
	enav_signal_unref(s);
	assert_non_null(reason);
	return reason;
}

/* A gone cgroup is asked about once: ids are never reused. */
static void test_gone_cgroup_asked_once(void **state)
{
	struct fixture *fx = *state;

	calls = 0;
	answer_errno = ESTALE;
	for (int i = 0; i < 1000; i++)
		assert_string_equal(attribute(fx, 0x1111), "cgroup_removed_before_resolution");
	assert_int_equal(calls, 1);
	answer_errno = ENOENT;
	for (int i = 0; i < 1000; i++)
		assert_string_equal(attribute(fx, 0x2222), "cgroup_removed_before_resolution");
	assert_int_equal(calls, 2);
}

/* A failure that says nothing of the cgroup (no CAP_DAC_READ_SEARCH) is
 * asked again, but at most once a second, however many signals come. */
static void test_unresolvable_asked_again_later(void **state)
{
	struct fixture *fx = *state;

	calls = 0;
	answer_errno = EPERM;
	for (int i = 0; i < 1000; i++)
		assert_string_equal(attribute(fx, 0x3333), "cgroup_id_not_resolvable");
	assert_int_equal(calls, 1);
	struct timespec pause = {.tv_sec = 1, .tv_nsec = 100 * 1000 * 1000};
	nanosleep(&pause, NULL);
	answer_errno = ESTALE; /* since removed: that answer stands */
	for (int i = 0; i < 1000; i++)
		assert_string_equal(attribute(fx, 0x3333), "cgroup_removed_before_resolution");
	assert_int_equal(calls, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_gone_cgroup_asked_once, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unresolvable_asked_again_later, setup, teardown),
	};

	return cmocka_run_group_tests_name("attribution_cache", tests, NULL, NULL);
}
