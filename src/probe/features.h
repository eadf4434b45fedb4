/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What this node can prove.  Every capability is probed by doing the real
 * thing once (create the map, load and attach the program), and the result is
 * classified by the rule in docs/adr/0003-transports-and-fallback.md:
 *   YES      it worked;
 *   NO       the kernel positively reported it unsupported (EINVAL, ENOTSUPP,
 *            EOPNOTSUPP, ENOENT for a missing type or PMU);
 *   REFUSED  the kernel refused this program type while a control load of the
 *            same program type with the same credentials succeeded: evidence
 *            about the kernel (lockdown, missing trampoline), not about us;
 *   ERROR    anything else (EPERM without a passing control, ENOMEM, seccomp):
 *            not evidence about the kernel, so no fallback may be chosen on it.
 */
#ifndef ENAV_PROBE_FEATURES_H
#define ENAV_PROBE_FEATURES_H

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"

enum enav_probe_status { ENAV_PROBE_YES, ENAV_PROBE_NO, ENAV_PROBE_REFUSED, ENAV_PROBE_ERROR };

struct enav_probe_result {
	enum enav_probe_status status;
	int err; /* errno of the failing step, 0 on YES */
	char detail[160];
};

enum enav_cgroup_layout { ENAV_CGROUP_NONE, ENAV_CGROUP_V2, ENAV_CGROUP_V1, ENAV_CGROUP_HYBRID };

enum enav_cap {
	ENAV_CAP_BPF,
	ENAV_CAP_PERFMON,
	ENAV_CAP_SYS_ADMIN,
	ENAV_CAP_SYS_PTRACE,
	ENAV_CAP__COUNT
};

enum enav_feature {
	ENAV_FEAT_BTF,
	ENAV_FEAT_BPF_SYSCALL, /* control: can we create a plain array map at all */
	ENAV_FEAT_RINGBUF,
	ENAV_FEAT_PERFBUF,
	ENAV_FEAT_TRACEPOINT, /* classic tracepoints: program type + tracefs for attach */
	ENAV_FEAT_RAW_TP,
	ENAV_FEAT_TP_BTF,
	ENAV_FEAT_FENTRY,
	ENAV_FEAT_KPROBE,
	ENAV_FEAT_UPROBE,
	ENAV_FEAT_PERF_SAMPLING,
	ENAV_FEAT_TRACEFS,
	ENAV_FEAT_SOCK_TP,  /* sock:sock_send_length/sock_recv_length as BTF tracepoints (6.3+) */
	ENAV_FEAT_BPF_LOOP, /* the bpf_loop helper (5.17+): the profiler's unwinder variant */
	ENAV_FEAT_PERF_DYN_HASH, /* perf_event programs may use hash maps not preallocated (6.1+) */
	/* sched_switch passes prev_state (5.18+): the off-CPU hook reads it */
	ENAV_FEAT_SWITCH_STATE,
	/* bpf_get_func_ret (5.17), bpf_task_pt_regs (5.15) and
	 * bpf_get_current_task_btf (5.11): without them the fexit payload
	 * programs are the compat set (bpf/network/net_payload.bpf.h) */
	ENAV_FEAT_FUNC_ARG_HELPERS,
	ENAV_FEAT__COUNT,
};

enum enav_exec_hook { ENAV_EXEC_HOOK_TP_BTF, ENAV_EXEC_HOOK_RAW_TP };

/* Where the network source copies payloads (DNS, application protocols)
 * from: a socket-level hook where one loads, sys_exit only as the fallback
 * (bpf/network/net_payload.bpf.h). */
enum enav_payload_hook {
	ENAV_PAYLOAD_SOCKET_TP, /* the BTF sock_*_length tracepoints */
	ENAV_PAYLOAD_FEXIT,	/* fexit on tcp_/udp_ sendmsg and recvmsg */
	ENAV_PAYLOAD_SYS_EXIT,	/* every syscall's exit: neither of the above */
};

struct enav_features {
	char kernel_release[65];
	struct enav_probe_result feat[ENAV_FEAT__COUNT];
	enum enav_cgroup_layout cgroup_layout;
	char cgroup2_mount[256]; /* "" when no cgroup2 mount */
	bool caps[ENAV_CAP__COUNT];
	/* The vmlinux BTF names sources ask about (features.c's list), looked
	 * up while the probe holds the parsed BTF: a second parse cost a
	 * source about 0.3 s of each start in an emulated guest. */
	bool vmlinux_parsed;
	uint32_t vmlinux_names; /* bit i: the list's name i is there */
};

/* What the agent will run with, and why. */
struct enav_decisions {
	enum enav_transport_choice transport; /* RINGBUF or PERF, never AUTO */
	char transport_reason[192];
	enum enav_hook_choice hooks; /* FEXIT or TRACEPOINT, never AUTO */
	char hooks_reason[192];
	enum enav_exec_hook exec_hook;
	enum enav_payload_hook payload_hook;
	/* fexit without the helpers of ENAV_FEAT_FUNC_ARG_HELPERS: the
	 * network source loads its enav_compat_ programs instead */
	bool payload_compat;
	char payload_hook_reason[256];
};

void enav_features_probe(struct enav_features *f);

/* Whether vmlinux BTF has the kernel function, or the tracepoint (its
 * btf_trace_ typedef), by the probe's lookup; false for a name not in
 * features.c's list (a programming error, logged) and without vmlinux BTF
 * (vmlinux_parsed false). */
bool enav_features_has_func(const struct enav_features *f, const char *func);
bool enav_features_has_tracepoint(const struct enav_features *f, const char *tracepoint);

/*
 * Apply the configured choices to the probe results.  Returns 0, or -1 with
 * one sentence in err explaining why the agent cannot run here.
 */
int enav_features_decide(const struct enav_features *f, const struct enav_config *cfg,
			 struct enav_decisions *d, char *err, size_t errlen);

/* Pure classification of a probe errno (exposed for unit tests). */
enum enav_probe_status enav_probe_classify(int err, bool control_passed);

const char *enav_feature_name(enum enav_feature feat);
const char *enav_payload_hook_name(enum enav_payload_hook h);
const char *enav_probe_status_name(enum enav_probe_status s);
const char *enav_cgroup_layout_name(enum enav_cgroup_layout l);
const char *enav_cap_name(enum enav_cap c);

/* `enav probe [--json]`: prints the table; returns the process exit code. */
/* One feature of one eBPF source as the agent's own programs loaded here
 * (load only, nothing attached): on, configured_off, verifier_refused, or
 * error (the check itself failed, e.g. without privileges). */
struct enav_probe_load_row {
	char source[24];
	char feature[24];
	char state[24];
	char program[64];
	char detail[400];
};

#define ENAV_PROBE_LOAD_ROWS 32

struct enav_probe_loads {
	struct enav_probe_load_row rows[ENAV_PROBE_LOAD_ROWS];
	unsigned n;
};

/* Loads the sources' programs as `enav run` would with cfg and d; provided by
 * the agent (the probe knows no source). */
typedef void (*enav_probe_load_fn)(const struct enav_config *cfg, const struct enav_features *f,
				   const struct enav_decisions *d, struct enav_probe_loads *out);

int enav_probe_command(const struct enav_config *cfg, bool json, enav_probe_load_fn load_check);

#endif
