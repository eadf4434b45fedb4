/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the probe classification and the transport / hook decision
 * (src/probe/features.c), with hand-built probe results: no kernel involved.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "probe/features.h"

#define ENOTSUPP_KERNEL 524 /* kernel-internal, leaks out of bpf(2) */

static void test_classify(void **state)
{
	for (int control = 0; control <= 1; control++) {
		assert_int_equal(enav_probe_classify(0, control), ENAV_PROBE_YES);
		assert_int_equal(enav_probe_classify(EINVAL, control), ENAV_PROBE_NO);
		assert_int_equal(enav_probe_classify(ENOTSUPP_KERNEL, control), ENAV_PROBE_NO);
		assert_int_equal(enav_probe_classify(EOPNOTSUPP, control), ENAV_PROBE_NO);
		assert_int_equal(enav_probe_classify(ENOENT, control), ENAV_PROBE_NO);
		/* Resource and unknown errors are never evidence, control or not. */
		assert_int_equal(enav_probe_classify(ENOMEM, control), ENAV_PROBE_ERROR);
		assert_int_equal(enav_probe_classify(E2BIG, control), ENAV_PROBE_ERROR);
		assert_int_equal(enav_probe_classify(EBUSY, control), ENAV_PROBE_ERROR);
		assert_int_equal(enav_probe_classify(EFAULT, control), ENAV_PROBE_ERROR);
	}
	/* EPERM / EACCES: refused only when a control load with the same creds passed. */
	assert_int_equal(enav_probe_classify(EPERM, false), ENAV_PROBE_ERROR);
	assert_int_equal(enav_probe_classify(EPERM, true), ENAV_PROBE_REFUSED);
	assert_int_equal(enav_probe_classify(EACCES, false), ENAV_PROBE_ERROR);
	assert_int_equal(enav_probe_classify(EACCES, true), ENAV_PROBE_REFUSED);
}

static void test_names(void **state)
{
	assert_string_equal(enav_probe_status_name(ENAV_PROBE_YES), "yes");
	assert_string_equal(enav_probe_status_name(ENAV_PROBE_NO), "no");
	assert_string_equal(enav_probe_status_name(ENAV_PROBE_REFUSED), "refused");
	assert_string_equal(enav_probe_status_name(ENAV_PROBE_ERROR), "error");
	assert_string_equal(enav_feature_name(ENAV_FEAT_RINGBUF), "ring_buffer");
	assert_string_equal(enav_feature_name(ENAV_FEAT_FENTRY), "fentry_fexit");
	assert_string_equal(enav_feature_name(ENAV_FEAT__COUNT), "unknown");
	for (int f = 0; f < ENAV_FEAT__COUNT; f++)
		assert_non_null(enav_feature_name((enum enav_feature)f));
	assert_string_equal(enav_cap_name(ENAV_CAP_BPF), "CAP_BPF");
	assert_string_equal(enav_cgroup_layout_name(ENAV_CGROUP_HYBRID), "hybrid");
}

/* A node where everything works; tests then break one thing at a time. */
static void all_yes(struct enav_features *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->kernel_release, sizeof(f->kernel_release), "6.8.0-test");
	for (int i = 0; i < ENAV_FEAT__COUNT; i++) {
		f->feat[i].status = ENAV_PROBE_YES;
		f->feat[i].err = 0;
		snprintf(f->feat[i].detail, sizeof(f->feat[i].detail), "%s ok",
			 enav_feature_name((enum enav_feature)i));
	}
	f->cgroup_layout = ENAV_CGROUP_V2;
	snprintf(f->cgroup2_mount, sizeof(f->cgroup2_mount), "/sys/fs/cgroup");
	for (int i = 0; i < ENAV_CAP__COUNT; i++)
		f->caps[i] = true;
}

static void set_feat(struct enav_features *f, enum enav_feature which, int err, bool control,
		     const char *detail)
{
	f->feat[which].err = err;
	f->feat[which].status = enav_probe_classify(err, control);
	snprintf(f->feat[which].detail, sizeof(f->feat[which].detail), "%s", detail);
}

struct outcome {
	int rc;
	struct enav_decisions d;
	char err[512];
};

static void decide(const struct enav_features *f, const struct enav_config *cfg, struct outcome *o)
{
	memset(&o->d, 0xa5, sizeof(o->d));
	memset(o->err, 0, sizeof(o->err));
	o->rc = enav_features_decide(f, cfg, &o->d, o->err, sizeof(o->err));
	if (o->rc == 0)
		assert_string_equal(o->err, ""); /* success writes no error */
	else
		assert_int_equal(o->rc, -1);
}

static void expect_error(const struct outcome *o, const char *needle1, const char *needle2)
{
	assert_int_equal(o->rc, -1);
	assert_true(strlen(o->err) > 0);
	assert_null(strchr(o->err, '\n')); /* one sentence, one line */
	if (needle1 && !strstr(o->err, needle1))
		fail_msg("error \"%s\" lacks \"%s\"", o->err, needle1);
	if (needle2 && !strstr(o->err, needle2))
		fail_msg("error \"%s\" lacks \"%s\"", o->err, needle2);
}

static void test_defaults_on_a_capable_node(void **state)
{
	struct enav_features f;
	struct enav_config cfg;
	struct outcome o;

	all_yes(&f);
	enav_config_defaults(&cfg);
	assert_int_equal(cfg.transport, ENAV_TRANSPORT_AUTO);
	assert_int_equal(cfg.hooks, ENAV_HOOKS_AUTO);
	assert_true(cfg.exec.enabled);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.transport, ENAV_TRANSPORT_RINGBUF);
	assert_int_equal(o.d.hooks, ENAV_HOOKS_FEXIT);
	assert_int_equal(o.d.exec_hook, ENAV_EXEC_HOOK_TP_BTF);
	assert_non_null(strstr(o.d.transport_reason, "auto"));
	assert_non_null(strstr(o.d.hooks_reason, "auto"));
}

static void test_control_map_failures(void **state)
{
	struct enav_features f;
	struct enav_config cfg;
	struct outcome o;

	enav_config_defaults(&cfg);
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_BPF_SYSCALL, EPERM, false,
		 "create array map: Operation not permitted");
	decide(&f, &cfg, &o);
	expect_error(&o, "CAP_BPF", NULL);

	all_yes(&f);
	set_feat(&f, ENAV_FEAT_BPF_SYSCALL, EACCES, false, "create array map: Permission denied");
	decide(&f, &cfg, &o);
	expect_error(&o, "CAP_BPF", NULL);

	/* Any other failure names the probe's detail, not capabilities. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_BPF_SYSCALL, ENOMEM, false,
		 "create array map: Cannot allocate memory");
	decide(&f, &cfg, &o);
	expect_error(&o, "Cannot allocate memory", "eBPF");
	assert_null(strstr(o.err, "CAP_BPF"));

	/* The control gates everything, whatever transport and hooks are configured. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_BPF_SYSCALL, EPERM, false, "create array map");
	cfg.transport = ENAV_TRANSPORT_PERF;
	cfg.hooks = ENAV_HOOKS_TRACEPOINT;
	decide(&f, &cfg, &o);
	expect_error(&o, "CAP_BPF", NULL);
}

static void test_transport_auto(void **state)
{
	struct enav_features f;
	struct enav_config cfg;
	struct outcome o;

	enav_config_defaults(&cfg);

	/* ring buffer works: ring buffer, even though perf works too. */
	all_yes(&f);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.transport, ENAV_TRANSPORT_RINGBUF);

	/* kernel says no ring buffer (EINVAL on old kernels) and perf works: perf. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_RINGBUF, EINVAL, false, "create ringbuf map: Invalid argument");
	assert_int_equal(f.feat[ENAV_FEAT_RINGBUF].status, ENAV_PROBE_NO);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.transport, ENAV_TRANSPORT_PERF);
	assert_non_null(strstr(o.d.transport_reason, "Invalid argument"));

	/* ring buffer probe hit EPERM: not evidence, must NOT fall back to perf. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_RINGBUF, EPERM, false,
		 "create ringbuf map: Operation not permitted");
	assert_int_equal(f.feat[ENAV_FEAT_RINGBUF].status, ENAV_PROBE_ERROR);
	decide(&f, &cfg, &o);
	expect_error(&o, "Operation not permitted", "transport");

	/* ENOMEM likewise. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_RINGBUF, ENOMEM, false,
		 "create ringbuf map: Cannot allocate memory");
	decide(&f, &cfg, &o);
	expect_error(&o, "Cannot allocate memory", NULL);

	/* Neither transport: error. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_RINGBUF, EINVAL, false, "create ringbuf map: Invalid argument");
	set_feat(&f, ENAV_FEAT_PERFBUF, EINVAL, false, "create perf_event_array map: Invalid");
	decide(&f, &cfg, &o);
	expect_error(&o, "transport", NULL);

	/* Ring buffer unsupported and perf failed with an error: error. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_RINGBUF, EINVAL, false, "create ringbuf map: Invalid argument");
	set_feat(&f, ENAV_FEAT_PERFBUF, EPERM, false, "create perf_event_array map: denied");
	decide(&f, &cfg, &o);
	expect_error(&o, NULL, NULL);
}

static void test_transport_explicit(void **state)
{
	struct enav_features f;
	struct enav_config cfg;
	struct outcome o;

	enav_config_defaults(&cfg);
	cfg.transport = ENAV_TRANSPORT_RINGBUF;
	all_yes(&f);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.transport, ENAV_TRANSPORT_RINGBUF);
	assert_string_equal(o.d.transport_reason, "configured");

	all_yes(&f);
	set_feat(&f, ENAV_FEAT_RINGBUF, EINVAL, false, "create ringbuf map: Invalid argument");
	decide(&f, &cfg, &o);
	expect_error(&o, "ringbuf", "Invalid argument");

	/* Explicit perf uses perf even where the ring buffer works. */
	cfg.transport = ENAV_TRANSPORT_PERF;
	all_yes(&f);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.transport, ENAV_TRANSPORT_PERF);
	assert_string_equal(o.d.transport_reason, "configured");

	all_yes(&f);
	set_feat(&f, ENAV_FEAT_RINGBUF, EINVAL, false, "create ringbuf map: Invalid argument");
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.transport, ENAV_TRANSPORT_PERF);

	all_yes(&f);
	set_feat(&f, ENAV_FEAT_PERFBUF, ENOENT, false, "create perf_event_array map: No such");
	decide(&f, &cfg, &o);
	expect_error(&o, "perf", "No such");
}

static void test_hooks_auto(void **state)
{
	struct enav_features f;
	struct enav_config cfg;
	struct outcome o;

	enav_config_defaults(&cfg);

	all_yes(&f);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.hooks, ENAV_HOOKS_FEXIT);

	/* Refused with a passing control (lockdown, no trampoline): tracepoints. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_FENTRY, EPERM, true,
		 "attach fexit/vfs_read: Operation not permitted");
	assert_int_equal(f.feat[ENAV_FEAT_FENTRY].status, ENAV_PROBE_REFUSED);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.hooks, ENAV_HOOKS_TRACEPOINT);
	assert_non_null(strstr(o.d.hooks_reason, "refused"));
	assert_int_equal(o.d.transport, ENAV_TRANSPORT_RINGBUF);

	/* Unsupported: tracepoints. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_FENTRY, ENOTSUPP_KERNEL, true, "load fexit/vfs_read: 524");
	assert_int_equal(f.feat[ENAV_FEAT_FENTRY].status, ENAV_PROBE_NO);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.hooks, ENAV_HOOKS_TRACEPOINT);
	assert_non_null(strstr(o.d.hooks_reason, "unsupported"));

	/* EPERM without a passing control: an error, no fallback. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_FENTRY, EPERM, false,
		 "load fexit/vfs_read: Operation not permitted");
	assert_int_equal(f.feat[ENAV_FEAT_FENTRY].status, ENAV_PROBE_ERROR);
	decide(&f, &cfg, &o);
	expect_error(&o, "hooks", "Operation not permitted");

	all_yes(&f);
	set_feat(&f, ENAV_FEAT_FENTRY, ENOMEM, true, "load fexit/vfs_read: Cannot allocate memory");
	decide(&f, &cfg, &o);
	expect_error(&o, "hooks", "Cannot allocate memory");
}

static void test_hooks_explicit(void **state)
{
	struct enav_features f;
	struct enav_config cfg;
	struct outcome o;

	enav_config_defaults(&cfg);
	cfg.hooks = ENAV_HOOKS_FEXIT;
	all_yes(&f);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.hooks, ENAV_HOOKS_FEXIT);
	assert_string_equal(o.d.hooks_reason, "configured");

	/* Explicit fexit never falls back, not even when refused. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_FENTRY, EPERM, true,
		 "attach fexit/vfs_read: Operation not permitted");
	decide(&f, &cfg, &o);
	expect_error(&o, "fexit", "Operation not permitted");

	all_yes(&f);
	set_feat(&f, ENAV_FEAT_FENTRY, EINVAL, true, "load fexit/vfs_read: Invalid argument");
	decide(&f, &cfg, &o);
	expect_error(&o, "fexit", "Invalid argument");

	/* Explicit tracepoint is taken even where fexit works. */
	cfg.hooks = ENAV_HOOKS_TRACEPOINT;
	all_yes(&f);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.hooks, ENAV_HOOKS_TRACEPOINT);
	assert_string_equal(o.d.hooks_reason, "configured");
}

/* Payloads come from a socket-level hook wherever one loads: sys_exit only
 * where neither fexit nor the BTF socket tracepoints do. */
static void test_payload_hook(void **state)
{
	struct enav_features f;
	struct enav_config cfg;
	struct outcome o;

	enav_config_defaults(&cfg);
	all_yes(&f);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.payload_hook, ENAV_PAYLOAD_FEXIT);
	assert_string_equal(enav_payload_hook_name(o.d.payload_hook), "fexit");
	assert_false(o.d.payload_compat);
	assert_null(strstr(o.d.payload_hook_reason, "compat"));

	/* Debian 11's 5.10: fexit, without the helpers: the compat set, named. */
	set_feat(&f, ENAV_FEAT_FUNC_ARG_HELPERS, ENOENT, true,
		 "no bpf_get_current_task_btf (Linux 5.11+) in vmlinux BTF");
	decide(&f, &cfg, &o);
	assert_int_equal(o.d.payload_hook, ENAV_PAYLOAD_FEXIT);
	assert_true(o.d.payload_compat);
	assert_non_null(strstr(o.d.payload_hook_reason, "compat set"));
	/* ... which means nothing off the fexit path. */
	set_feat(&f, ENAV_FEAT_FENTRY, EPERM, true,
		 "attach fexit/vfs_read: Operation not permitted");
	decide(&f, &cfg, &o);
	assert_false(o.d.payload_compat);

	/* This machine's kind: fexit refused, 6.3+ tracepoints. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_FENTRY, EPERM, true,
		 "attach fexit/vfs_read: Operation not permitted");
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.payload_hook, ENAV_PAYLOAD_SOCKET_TP);
	assert_non_null(strstr(o.d.payload_hook_reason, "sock_send_length"));

	/* Neither: the fallback, named as such. */
	set_feat(&f, ENAV_FEAT_SOCK_TP, ENOENT, true, "no sock_send_length");
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.payload_hook, ENAV_PAYLOAD_SYS_EXIT);
	assert_string_equal(enav_payload_hook_name(o.d.payload_hook), "sys_exit");
	assert_non_null(strstr(o.d.payload_hook_reason, "fallback"));

	/* Raw tracepoints only (no BTF variant): the fallback too. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_FENTRY, EPERM, true,
		 "attach fexit/vfs_read: Operation not permitted");
	set_feat(&f, ENAV_FEAT_TP_BTF, ENOENT, true, "vmlinux BTF");
	decide(&f, &cfg, &o);
	assert_int_equal(o.d.payload_hook, ENAV_PAYLOAD_SYS_EXIT);

	/* hooks: tracepoint on a kernel with fexit: the socket tracepoints. */
	all_yes(&f);
	cfg.hooks = ENAV_HOOKS_TRACEPOINT;
	decide(&f, &cfg, &o);
	assert_int_equal(o.d.payload_hook, ENAV_PAYLOAD_SOCKET_TP);
}

static void test_exec_hook(void **state)
{
	struct enav_features f;
	struct enav_config cfg;
	struct outcome o;

	enav_config_defaults(&cfg);

	all_yes(&f);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.exec_hook, ENAV_EXEC_HOOK_TP_BTF);

	/* No BTF tracepoints: the raw tracepoint. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_TP_BTF, ENOENT, true, "vmlinux BTF: No such file or directory");
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.exec_hook, ENAV_EXEC_HOOK_RAW_TP);

	/* tp_btf refused: raw_tp too. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_TP_BTF, EPERM, true, "attach tp_btf: Operation not permitted");
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.exec_hook, ENAV_EXEC_HOOK_RAW_TP);

	/* Both fail and exec is enabled: error naming the raw_tp failure. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_TP_BTF, ENOENT, true, "vmlinux BTF: No such file or directory");
	set_feat(&f, ENAV_FEAT_RAW_TP, EINVAL, true, "attach raw_tp/sched_process_exec: Invalid");
	decide(&f, &cfg, &o);
	expect_error(&o, "exec", "raw_tp/sched_process_exec");

	/* Same node with the exec source disabled: nothing needs the hook. */
	cfg.exec.enabled = false;
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.transport, ENAV_TRANSPORT_RINGBUF);
	assert_int_equal(o.d.hooks, ENAV_HOOKS_FEXIT);
}

/* sources.exec.hook set explicitly: taken as configured, never substituted. */
static void test_exec_hook_explicit(void **state)
{
	struct enav_features f;
	struct enav_config cfg;
	struct outcome o;

	enav_config_defaults(&cfg);
	assert_int_equal(cfg.exec.hook, ENAV_EXEC_HOOK_AUTO);

	/* raw_tp is taken even where tp_btf works. */
	cfg.exec.hook = ENAV_EXEC_HOOK_RAW;
	all_yes(&f);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.exec_hook, ENAV_EXEC_HOOK_RAW_TP);

	all_yes(&f);
	set_feat(&f, ENAV_FEAT_RAW_TP, EINVAL, true, "attach raw_tp/sched_process_exec: Invalid");
	decide(&f, &cfg, &o);
	expect_error(&o, "raw_tp", "Invalid");

	cfg.exec.hook = ENAV_EXEC_HOOK_BTF;
	all_yes(&f);
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	assert_int_equal(o.d.exec_hook, ENAV_EXEC_HOOK_TP_BTF);

	/* tp_btf configured but unavailable: error, no fallback to raw_tp. */
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_TP_BTF, ENOENT, true, "vmlinux BTF: No such file or directory");
	decide(&f, &cfg, &o);
	expect_error(&o, "tp_btf", "No such file");

	/* With the exec source disabled the configured hook does not matter. */
	cfg.exec.enabled = false;
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
	cfg.exec.hook = ENAV_EXEC_HOOK_RAW;
	set_feat(&f, ENAV_FEAT_RAW_TP, EINVAL, true, "attach raw_tp/sched_process_exec: Invalid");
	decide(&f, &cfg, &o);
	assert_int_equal(o.rc, 0);
}

/* The error fits whatever buffer it is given and stays terminated. */
static void test_error_buffer_bounded(void **state)
{
	struct enav_features f;
	struct enav_config cfg;
	struct enav_decisions d;
	char err[24];

	enav_config_defaults(&cfg);
	all_yes(&f);
	set_feat(&f, ENAV_FEAT_BPF_SYSCALL, EPERM, false, "create array map");
	memset(err, 'Z', sizeof(err));
	assert_int_equal(enav_features_decide(&f, &cfg, &d, err, 16), -1);
	assert_int_equal(strlen(err), 15);
	for (size_t k = 16; k < sizeof(err); k++)
		assert_int_equal(err[k], 'Z');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_classify),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_defaults_on_a_capable_node),
	    cmocka_unit_test(test_control_map_failures),
	    cmocka_unit_test(test_transport_auto),
	    cmocka_unit_test(test_transport_explicit),
	    cmocka_unit_test(test_hooks_auto),
	    cmocka_unit_test(test_hooks_explicit),
	    cmocka_unit_test(test_exec_hook),
	    cmocka_unit_test(test_payload_hook),
	    cmocka_unit_test(test_exec_hook_explicit),
	    cmocka_unit_test(test_error_buffer_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
