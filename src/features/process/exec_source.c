/* SPDX-License-Identifier: Apache-2.0 */
#include "features/process/exec_source.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "platform/promtext.h"
#include "features/process/argv_redact.h"
#include "exec_perf.skel.h"
#include "exec_ringbuf.skel.h"
#include "features/process/process_decode.h"
#include "runtime/bpf_source.h"
#include "platform/tracefs.h"

ENAV_SKEL_OPS(exec_ringbuf);
ENAV_SKEL_OPS(exec_perf);

struct exec_source {
	struct enav_bpf_source bpf;
};

/* Values taken out of command lines (argv_redact.h), for /metrics. */
static _Atomic uint64_t argv_redacted;

static void exit_status(uint32_t status, struct enav_process_signal *p)
{
	p->has_exit = true;
	if (status & 0x7f) {
		p->exit_signal = (int32_t)(status & 0x7f);
		p->core_dumped = (status & 0x80) != 0;
	} else {
		p->exit_code = (int32_t)((status >> 8) & 0xff);
	}
}

static const char *cred_syscall_name(uint32_t nr)
{
	switch (nr) {
	case 105:
		return "setuid";
	case 113:
		return "setreuid";
	case 117:
		return "setresuid";
	case 106:
		return "setgid";
	case 114:
		return "setregid";
	case 119:
		return "setresgid";
	default:
		return "capset";
	}
}

static struct enav_signal *cred_signal(struct enav_bpf_source *bpf,
				       const struct enav_process_event *ev)
{
	struct enav_signal *s = enav_bpf_source_signal(bpf, ENAV_SIGNAL_CRED_CHANGE, 0, &ev->hdr);
	if (!s)
		return NULL;
	struct enav_process_signal *p = &s->process;
	p->uid = ev->cred.uid;
	p->gid = ev->cred.gid;
	p->has_creds = true;
	memcpy(p->comm, ev->cred.comm, sizeof(p->comm));
	p->start_boot_ns = ev->cred.start_boot_ns;
	p->start_time_unix_ns = enav_clock_boot_to_unix_ns(ev->cred.start_boot_ns);
	s->cred = (struct enav_cred_signal){.syscall = cred_syscall_name(ev->cred.syscall),
					    .euid = ev->cred.euid,
					    .suid = ev->cred.suid,
					    .fsuid = ev->cred.fsuid,
					    .egid = ev->cred.egid,
					    .cap_effective = ev->cred.cap_effective};
	return s;
}

static struct enav_signal *build_signal(struct enav_bpf_source *bpf,
					const struct enav_process_event *ev)
{
	if (ev->type == ENAV_EVENT_CRED_CHANGE)
		return cred_signal(bpf, ev);
	bool exec = ev->type == ENAV_EVENT_PROCESS_EXEC;
	/* Secrets out of the command line before any consumer sees it. */
	char argv[ENAV_ARGV_MAX + ENAV_ARGV_REDACT_SLACK];
	uint32_t argv_len = 0, n_redacted = 0;
	bool argv_cut = false;
	if (exec && !(ev->exec.flags & ENAV_EXEC_ARGV_FAULT)) {
		argv_len = (uint32_t)enav_argv_redact(ev->exec.argv, ev->exec.argv_len, argv,
						      sizeof(argv), &n_redacted, &argv_cut);
		if (n_redacted)
			atomic_fetch_add(&argv_redacted, n_redacted);
	}
	/* The exec's tail: argv, then filename and exe, each as long as it is. */
	bool has_exe = exec && ev->exec.exe_len > 0 && ev->exec.exe[0] == '/';
	uint32_t tail_len =
	    exec ? argv_len + ev->exec.filename_len + 1u + (has_exe ? ev->exec.exe_len + 1u : 0)
		 : 0;
	struct enav_signal *s = enav_bpf_source_signal(
	    bpf, exec ? ENAV_SIGNAL_PROCESS_EXEC : ENAV_SIGNAL_PROCESS_EXIT, tail_len, &ev->hdr);
	if (!s)
		return NULL;
	struct enav_process_signal *p = &s->process;
	if (exec) {
		char *tail = enav_signal_tail(s);
		p->ppid = ev->exec.ppid;
		p->uid = ev->exec.uid;
		p->gid = ev->exec.gid;
		p->has_creds = true;
		memcpy(p->comm, ev->exec.comm, sizeof(p->comm));
		p->start_boot_ns = ev->exec.start_boot_ns;
		p->start_time_unix_ns = enav_clock_boot_to_unix_ns(ev->exec.start_boot_ns);
		char *filename = tail + argv_len;
		memcpy(filename, ev->exec.filename, ev->exec.filename_len + 1u);
		p->filename = filename;
		p->filename_truncated = ev->exec.flags & ENAV_EXEC_FILENAME_TRUNCATED;
		if (ev->exec.flags & ENAV_EXEC_FILENAME_FAULT)
			enav_signal_warn(s, "filename", "kernel_read_fault");
		else
			p->has_filename = true;
		if (has_exe) {
			char *exe = filename + ev->exec.filename_len + 1u;
			memcpy(exe, ev->exec.exe, ev->exec.exe_len + 1u);
			p->exe = exe;
			p->has_exe = true;
		} else {
			enav_signal_warn(s, "exe", "path_exceeds_kernel_walk_bounds");
		}
		if (ev->exec.flags & ENAV_EXEC_ARGV_FAULT) {
			enav_signal_warn(s, "argv", "user_memory_unreadable");
		} else {
			p->has_argv = true;
			p->argv_truncated = (ev->exec.flags & ENAV_EXEC_ARGV_TRUNCATED) || argv_cut;
			p->argv_len = argv_len;
			memcpy(tail, argv, argv_len);
			p->argv = tail;
		}
	} else {
		p->ppid = ev->exit.ppid;
		memcpy(p->comm, ev->exit.comm, sizeof(p->comm));
		p->start_boot_ns = ev->exit.start_boot_ns;
		p->start_time_unix_ns = enav_clock_boot_to_unix_ns(ev->exit.start_boot_ns);
		exit_status(ev->exit.exit_code, p);
		if (ev->hdr.boot_time_ns >= ev->exit.start_boot_ns)
			p->lifetime_ns = ev->hdr.boot_time_ns - ev->exit.start_boot_ns;
	}
	return s;
}

static void on_event(void *ctx, const void *data, size_t size)
{
	struct exec_source *src = ctx;
	struct enav_process_event ev;
	if (!enav_bpf_source_decode(&src->bpf, enav_process_decode, data, size, &ev))
		return;
	struct enav_signal *s = build_signal(&src->bpf, &ev);
	if (s)
		enav_host_emit(src->bpf.host, s);
}

static void exec_stop(void *state)
{
	struct exec_source *src = state;
	if (!src)
		return;
	enav_bpf_source_close(&src->bpf);
	free(src);
}

static void configure(void *ctx)
{
	struct exec_source *src = ctx;
	const struct enav_config *cfg = enav_host_config(src->bpf.host);
	enav_bpf_source_rodata_u32(&src->bpf, "enav_argv_max", cfg->exec.argv_max_bytes);
	enav_bpf_source_rodata_u64(&src->bpf, "enav_wakeup_bytes", cfg->kernel.wakeup_bytes);
}

/* No configuration key: credential changes come with exec capture. */
static const struct enav_bpf_feature_spec credential_changes = {.name = "credential_changes"};

/* Credential changes come from syscall tracepoints, which need tracefs: a
 * kernel without them runs without the hook. */
#define CRED_PROGRAM(NAME)                                                                         \
	{                                                                                          \
		.name = NAME, .variant = ENAV_BPF_ANY_KERNEL, .feature = &credential_changes,      \
		.hook_may_be_absent = true,                                                        \
	}

static const struct enav_bpf_program_spec programs[] = {
    {.name = "enav_exec_btf", .variant = ENAV_BPF_TP_BTF},
    {.name = "enav_exec_raw", .variant = ENAV_BPF_RAW_TP},
    {.name = "enav_exit_btf", .variant = ENAV_BPF_TP_BTF},
    {.name = "enav_exit_raw", .variant = ENAV_BPF_RAW_TP},
    CRED_PROGRAM("enav_cred_setuid"),
    CRED_PROGRAM("enav_cred_setreuid"),
    CRED_PROGRAM("enav_cred_setresuid"),
    CRED_PROGRAM("enav_cred_setgid"),
    CRED_PROGRAM("enav_cred_setregid"),
    CRED_PROGRAM("enav_cred_setresgid"),
    CRED_PROGRAM("enav_cred_capset"),
};

static const struct enav_bpf_feature_spec *const features[] = {&credential_changes};

const struct enav_bpf_program_table enav_exec_programs = {
    .source = "exec",
    .programs = programs,
    .n_programs = ENAV_ARRAY_LEN(programs),
    .features = features,
    .n_features = ENAV_ARRAY_LEN(features),
};

static int exec_start(struct enav_host *a, void **state, char *err, size_t errlen)
{
	struct exec_source *src = calloc(1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	*state = src;
	src->bpf.event_types = (1u << ENAV_EVENT_PROCESS_EXEC) | (1u << ENAV_EVENT_PROCESS_EXIT) |
			       (1u << ENAV_EVENT_CRED_CHANGE);
	/* Credential changes' tracepoints need tracefs: mounted when missing. */
	enav_tracefs_ensure();
	src->bpf.programs = &enav_exec_programs;
	int rc = enav_bpf_source_open(&src->bpf, a, "exec", &exec_ringbuf_ops, &exec_perf_ops, err,
				      errlen);
	if (rc)
		return rc;
	src->bpf.configure = configure;
	src->bpf.configure_ctx = src;
	configure(src);
	enav_bpf_source_want(&src->bpf, &credential_changes, true);
	return enav_bpf_source_start(&src->bpf, on_event, src, err, errlen);
}

bool enav_exec_source_enabled(const struct enav_config *cfg)
{
	return cfg->exec.enabled;
}

/* The BPF source's own metrics are rendered with every BPF source
 * (enav_bpf_sources_render); this adds what is the exec source's alone. */
static void exec_metrics(void *state, struct enav_promtext *p)
{
	(void)state;
	enav_promtext_single_u64(p, "enav_exec_argv_redacted_total", "counter",
				 "Secret values replaced by " ENAV_ARGV_REDACTED
				 " in command lines before export.",
				 atomic_load(&argv_redacted));
}

const struct enav_source_ops enav_exec_source_ops = {
    .start = exec_start,
    .stop = exec_stop,
    .metrics = exec_metrics,
};
