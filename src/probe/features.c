/* SPDX-License-Identifier: Apache-2.0 */
#include "probe/features.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* kernel-internal, leaks out of bpf(2) */
#endif

enum enav_probe_status enav_probe_classify(int err, bool control_passed)
{
	switch (err) {
	case 0:
		return ENAV_PROBE_YES;
	case EINVAL:
	case ENOTSUPP:
	case EOPNOTSUPP:
	case ENOENT:
	case ESRCH:
		return ENAV_PROBE_NO;
	case EPERM:
	case EACCES:
		return control_passed ? ENAV_PROBE_REFUSED : ENAV_PROBE_ERROR;
	default:
		return ENAV_PROBE_ERROR;
	}
}

static void set_result(struct enav_probe_result *r, int err, bool control_passed, const char *what)
{
	r->err = err;
	r->status = enav_probe_classify(err, control_passed);
	if (err)
		snprintf(r->detail, sizeof(r->detail), "%s: %s", what, strerror(err));
	else
		snprintf(r->detail, sizeof(r->detail), "%s", what);
}

/* r0 = 0; exit */
static const struct bpf_insn trivial_prog[] = {
    {.code = 0xb7, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = 0},
    {.code = 0x95, .dst_reg = 0, .src_reg = 0, .off = 0, .imm = 0},
};

static int load_trivial(enum bpf_prog_type type, enum bpf_attach_type attach, __u32 btf_id)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = attach,
		    .attach_btf_id = btf_id);
	int fd = bpf_prog_load(type, "enav_probe", "GPL", trivial_prog, 2, &opts);
	return fd < 0 ? -errno : fd;
}

static int map_probe(enum bpf_map_type type, __u32 key, __u32 value, __u32 entries)
{
	int fd = bpf_map_create(type, "enav_probe", key, value, entries, NULL);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* The helpers this kernel has, by their names in vmlinux BTF's enum
 * bpf_func_id: the kernel's own list, no program load per helper. */
static bool btf_has_helper(const struct btf *vmlinux, const char *name)
{
	int id = btf__find_by_name_kind(vmlinux, "bpf_func_id", BTF_KIND_ENUM);
	if (id < 0)
		return false;
	const struct btf_type *t = btf__type_by_id(vmlinux, id);
	const struct btf_enum *e = btf_enum(t);
	for (unsigned i = 0; i < btf_vlen(t); i++)
		if (strcmp(btf__name_by_offset(vmlinux, e[i].name_off), name) == 0)
			return true;
	return false;
}

static void probe_func_arg_helpers(struct enav_features *f, const struct btf *vmlinux, bool control)
{
	static const char *const needed[][2] = {
	    {"BPF_FUNC_get_current_task_btf", "bpf_get_current_task_btf (Linux 5.11+)"},
	    {"BPF_FUNC_task_pt_regs", "bpf_task_pt_regs (Linux 5.15+)"},
	    {"BPF_FUNC_get_func_ret", "bpf_get_func_ret (Linux 5.17+)"},
	    {"BPF_FUNC_get_attach_cookie", "bpf_get_attach_cookie (Linux 5.15+)"},
	};
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (!btf_has_helper(vmlinux, needed[i][0])) {
			char what[128];
			snprintf(what, sizeof(what), "no %s in vmlinux BTF", needed[i][1]);
			set_result(&f->feat[ENAV_FEAT_FUNC_ARG_HELPERS], ENOENT, control, what);
			return;
		}
	}
	set_result(&f->feat[ENAV_FEAT_FUNC_ARG_HELPERS], 0, control,
		   "bpf_get_current_task_btf, bpf_task_pt_regs, bpf_get_func_ret, "
		   "bpf_get_attach_cookie in vmlinux BTF");
}

static void probe_tracing(struct enav_features *f, struct btf *vmlinux)
{
	bool control = f->feat[ENAV_FEAT_BPF_SYSCALL].status == ENAV_PROBE_YES;

	/* raw_tp: load and attach to a tracepoint every kernel has. */
	int fd = load_trivial(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0);
	if (fd < 0) {
		set_result(&f->feat[ENAV_FEAT_RAW_TP], -fd, control, "load raw_tracepoint");
	} else {
		int link = bpf_raw_tracepoint_open("sched_process_exec", fd);
		set_result(&f->feat[ENAV_FEAT_RAW_TP], link < 0 ? errno : 0, control,
			   "attach raw_tp/sched_process_exec");
		if (link >= 0)
			close(link);
		close(fd);
	}

	if (!vmlinux) {
		set_result(&f->feat[ENAV_FEAT_TP_BTF], ENOENT, control, "vmlinux BTF");
		set_result(&f->feat[ENAV_FEAT_FENTRY], ENOENT, control, "vmlinux BTF");
		set_result(&f->feat[ENAV_FEAT_SOCK_TP], ENOENT, control, "vmlinux BTF");
		set_result(&f->feat[ENAV_FEAT_SWITCH_STATE], ENOENT, true, "vmlinux BTF");
		set_result(&f->feat[ENAV_FEAT_FUNC_ARG_HELPERS], ENOENT, control, "vmlinux BTF");
		return;
	}

	/* tp_btf: the control for fentry, since both are BPF_PROG_TYPE_TRACING. */
	int id = btf__find_by_name_kind(vmlinux, "btf_trace_sched_process_exec", BTF_KIND_TYPEDEF);
	bool tracing_control = false;
	if (id < 0) {
		set_result(&f->feat[ENAV_FEAT_TP_BTF], ENOENT, control,
			   "find btf_trace_sched_process_exec");
	} else {
		fd = load_trivial(BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, id);
		if (fd < 0) {
			set_result(&f->feat[ENAV_FEAT_TP_BTF], -fd, control, "load tp_btf");
		} else {
			int link = bpf_raw_tracepoint_open(NULL, fd);
			set_result(&f->feat[ENAV_FEAT_TP_BTF], link < 0 ? errno : 0, control,
				   "attach tp_btf/sched_process_exec");
			tracing_control = link >= 0;
			if (link >= 0)
				close(link);
			close(fd);
		}
	}

	/* The socket-level byte and payload hooks (6.3+): their BTF typedefs
	 * exist exactly when the kernel has the tracepoints. */
	bool sock_tp =
	    btf__find_by_name_kind(vmlinux, "btf_trace_sock_send_length", BTF_KIND_TYPEDEF) >= 0 &&
	    btf__find_by_name_kind(vmlinux, "btf_trace_sock_recv_length", BTF_KIND_TYPEDEF) >= 0;
	set_result(&f->feat[ENAV_FEAT_SOCK_TP], sock_tp ? 0 : ENOENT, tracing_control,
		   sock_tp ? "sock_send_length and sock_recv_length in vmlinux BTF"
			   : "no sock_send_length/sock_recv_length in vmlinux BTF (Linux 6.3+)");

	/* sched_switch's fourth argument, prev_state (Linux 5.18+): its BTF
	 * typedef's prototype has five parameters (the first is the context).
	 * Before it the off-CPU hook reads the state from the task. */
	id = btf__find_by_name_kind(vmlinux, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(vmlinux, id);
	while (t && (btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(vmlinux, t->type);
	bool switch_state = t && btf_is_func_proto(t) && btf_vlen(t) >= 5;
	set_result(&f->feat[ENAV_FEAT_SWITCH_STATE], switch_state ? 0 : ENOENT, true,
		   "prev_state argument of sched_switch in vmlinux BTF (Linux 5.18+)");
	probe_func_arg_helpers(f, vmlinux, tracing_control);

	/* fentry on a function every kernel has; the syscall byte path would use fexit. */
	id = btf__find_by_name_kind(vmlinux, "vfs_read", BTF_KIND_FUNC);
	if (id < 0) {
		set_result(&f->feat[ENAV_FEAT_FENTRY], ENOENT, tracing_control, "find vfs_read");
		return;
	}
	fd = load_trivial(BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT, id);
	if (fd < 0) {
		set_result(&f->feat[ENAV_FEAT_FENTRY], -fd, tracing_control, "load fexit/vfs_read");
		return;
	}
	int link = bpf_link_create(fd, 0, BPF_TRACE_FEXIT, NULL);
	set_result(&f->feat[ENAV_FEAT_FENTRY], link < 0 ? errno : 0, tracing_control,
		   "attach fexit/vfs_read");
	if (link >= 0)
		close(link);
	close(fd);
}

static int read_pmu_type(const char *pmu)
{
	char path[128], buf[32];
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return atoi(buf);
}

static int perf_open(struct perf_event_attr *attr, int pid, int cpu)
{
	int fd = syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* File offset of the first executable PT_LOAD of our own binary: a place a
 * uprobe may legitimately sit, found without any symbol lookup. */
static long self_exec_offset(char *path, size_t pathlen)
{
	ssize_t n = readlink("/proc/self/exe", path, pathlen - 1);
	if (n <= 0)
		return -1;
	path[n] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf64_Ehdr eh;
	long off = -1;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && eh.e_phentsize == sizeof(Elf64_Phdr)) {
		for (int i = 0; i < eh.e_phnum && i < 64; i++) {
			Elf64_Phdr ph;
			if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * sizeof(ph)) !=
			    sizeof(ph))
				break;
			if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
				off = (long)ph.p_offset;
				break;
			}
		}
	}
	close(fd);
	return off;
}

/* A perf_event program that refers to a hash map allocated on use: before
 * Linux 6.1 such programs may only use preallocated hash maps. */
static int probe_perf_dynamic_hash(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_NO_PREALLOC);
	int map = bpf_map_create(BPF_MAP_TYPE_HASH, "enav_probe", 4, 4, 1, &mo);
	if (map < 0)
		return errno;
	/* r1 = the map (ld_imm64 of its fd); r0 = 0; exit */
	const struct bpf_insn prog[] = {
	    {.code = 0x18, .dst_reg = 1, .src_reg = BPF_PSEUDO_MAP_FD, .imm = map},
	    {.code = 0},
	    {.code = 0xb7, .dst_reg = 0, .imm = 0},
	    {.code = 0x95},
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, "enav_probe", "GPL", prog, 4, NULL);
	int err = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	close(map);
	return err;
}

static void probe_perf_events(struct enav_features *f)
{
	bool control = f->feat[ENAV_FEAT_BPF_SYSCALL].status == ENAV_PROBE_YES;

	struct perf_event_attr attr = {
	    .type = PERF_TYPE_SOFTWARE,
	    .size = sizeof(attr),
	    .config = PERF_COUNT_SW_CPU_CLOCK,
	    .sample_freq = 99,
	    .freq = 1,
	    .disabled = 1,
	    .sample_type = PERF_SAMPLE_CALLCHAIN,
	};
	int fd = perf_open(&attr, -1, 0);
	set_result(&f->feat[ENAV_FEAT_PERF_SAMPLING], fd < 0 ? -fd : 0, control,
		   "perf_event_open cpu-clock sampling on cpu 0");
	if (fd >= 0)
		close(fd);

	int kprobe_type = read_pmu_type("kprobe");
	if (kprobe_type < 0) {
		set_result(&f->feat[ENAV_FEAT_KPROBE], ENOENT, control,
			   "kprobe PMU absent (kernel built without kprobe events)");
	} else {
		struct perf_event_attr ka = {
		    .type = kprobe_type, .size = sizeof(ka), .disabled = 1};
		ka.config1 = (__u64)(unsigned long)"vfs_read";
		fd = perf_open(&ka, -1, 0);
		set_result(&f->feat[ENAV_FEAT_KPROBE], fd < 0 ? -fd : 0, control,
			   "perf_event_open kprobe on vfs_read");
		if (fd >= 0)
			close(fd);
	}

	int uprobe_type = read_pmu_type("uprobe");
	char exe[512];
	long off = self_exec_offset(exe, sizeof(exe));
	if (uprobe_type < 0) {
		set_result(&f->feat[ENAV_FEAT_UPROBE], ENOENT, control, "uprobe PMU absent");
	} else if (off < 0) {
		set_result(&f->feat[ENAV_FEAT_UPROBE], EIO, control, "read own ELF headers");
	} else {
		struct perf_event_attr ua = {
		    .type = uprobe_type, .size = sizeof(ua), .disabled = 1};
		ua.config1 = (__u64)(unsigned long)exe;
		ua.config2 = (__u64)off;
		fd = perf_open(&ua, getpid(), -1);
		set_result(&f->feat[ENAV_FEAT_UPROBE], fd < 0 ? -fd : 0, control,
			   "perf_event_open uprobe on own executable");
		if (fd >= 0)
			close(fd);
	}
}

static void probe_cgroups(struct enav_features *f)
{
	FILE *mi = fopen("/proc/self/mountinfo", "re");
	bool v1 = false;
	f->cgroup2_mount[0] = '\0';
	if (!mi) {
		f->cgroup_layout = ENAV_CGROUP_NONE;
		return;
	}
	char line[1024];
	while (fgets(line, sizeof(line), mi)) {
		/* fields: id parent maj:min root mountpoint opts... - fstype source superopts */
		char mountpoint[512], fstype[64];
		const char *sep = strstr(line, " - ");
		if (!sep || sscanf(sep + 3, "%63s", fstype) != 1)
			continue;
		if (sscanf(line, "%*s %*s %*s %*s %511s", mountpoint) != 1)
			continue;
		if (strcmp(fstype, "cgroup2") == 0 && f->cgroup2_mount[0] == '\0')
			snprintf(f->cgroup2_mount, sizeof(f->cgroup2_mount), "%s", mountpoint);
		else if (strcmp(fstype, "cgroup") == 0)
			v1 = true;
	}
	fclose(mi);
	bool v2 = f->cgroup2_mount[0] != '\0';
	f->cgroup_layout = v2 && v1 ? ENAV_CGROUP_HYBRID
			   : v2	    ? ENAV_CGROUP_V2
			   : v1	    ? ENAV_CGROUP_V1
				    : ENAV_CGROUP_NONE;
}

static void probe_caps(struct enav_features *f)
{
	static const int bits[ENAV_CAP__COUNT] = {
	    [ENAV_CAP_BPF] = 39,
	    [ENAV_CAP_PERFMON] = 38,
	    [ENAV_CAP_SYS_ADMIN] = 21,
	    [ENAV_CAP_SYS_PTRACE] = 19,
	};
	unsigned long long eff = 0;
	FILE *st = fopen("/proc/self/status", "re");
	if (st) {
		char line[256];
		while (fgets(line, sizeof(line), st))
			if (sscanf(line, "CapEff: %llx", &eff) == 1)
				break;
		fclose(st);
	}
	for (int i = 0; i < ENAV_CAP__COUNT; i++)
		f->caps[i] = (eff >> bits[i]) & 1;
}

/* What the sources ask vmlinux BTF (net_source.c): kind, then name. */
static const struct {
	bool tracepoint;
	const char *name;
} vmlinux_names[] = {
    {true, "inet_sock_set_state"}, {true, "tcp_retransmit_skb"}, {true, "sock_send_length"},
    {true, "sock_recv_length"},	   {false, "tcp_sendpage"},	 {false, "udpv6_sendmsg"},
    {false, "udpv6_recvmsg"},
};
_Static_assert(sizeof(vmlinux_names) / sizeof(vmlinux_names[0]) <= 32, "one bit each");

static void probe_vmlinux_names(struct enav_features *f, const struct btf *vmlinux)
{
	f->vmlinux_parsed = vmlinux != NULL;
	f->vmlinux_names = 0;
	for (size_t i = 0; vmlinux && i < sizeof(vmlinux_names) / sizeof(vmlinux_names[0]); i++) {
		char type[96];
		snprintf(type, sizeof(type), "%s%s",
			 vmlinux_names[i].tracepoint ? "btf_trace_" : "", vmlinux_names[i].name);
		if (btf__find_by_name_kind(vmlinux, type,
					   vmlinux_names[i].tracepoint ? BTF_KIND_TYPEDEF
								       : BTF_KIND_FUNC) >= 0)
			f->vmlinux_names |= 1u << i;
	}
}

static bool vmlinux_has(const struct enav_features *f, bool tracepoint, const char *name)
{
	for (size_t i = 0; i < sizeof(vmlinux_names) / sizeof(vmlinux_names[0]); i++)
		if (vmlinux_names[i].tracepoint == tracepoint &&
		    !strcmp(vmlinux_names[i].name, name))
			return (f->vmlinux_names >> i) & 1;
	fprintf(stderr, "enav: %s %s is not in the probe's list of vmlinux names\n",
		tracepoint ? "tracepoint" : "function", name);
	return false;
}

bool enav_features_has_func(const struct enav_features *f, const char *func)
{
	return vmlinux_has(f, false, func);
}

bool enav_features_has_tracepoint(const struct enav_features *f, const char *tracepoint)
{
	return vmlinux_has(f, true, tracepoint);
}

static int silent_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

void enav_features_probe(struct enav_features *f)
{
	memset(f, 0, sizeof(*f));
	struct utsname u;
	if (uname(&u) == 0)
		snprintf(f->kernel_release, sizeof(f->kernel_release), "%s", u.release);

	libbpf_print_fn_t old = libbpf_set_print(silent_print);
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int btf_err = vmlinux ? 0 : errno;
	set_result(&f->feat[ENAV_FEAT_BTF], btf_err, true, "/sys/kernel/btf/vmlinux");
	if (btf_err == EACCES || btf_err == EPERM)
		f->feat[ENAV_FEAT_BTF].status = ENAV_PROBE_ERROR;

	int err = map_probe(BPF_MAP_TYPE_ARRAY, 4, 4, 1);
	set_result(&f->feat[ENAV_FEAT_BPF_SYSCALL], err, false, "create array map");
	bool control = err == 0;

	err = map_probe(BPF_MAP_TYPE_RINGBUF, 0, 0, (__u32)sysconf(_SC_PAGESIZE));
	/* A ring buffer EPERM is never "unsupported": the rule stops start-up. */
	set_result(&f->feat[ENAV_FEAT_RINGBUF], err, false, "create ringbuf map");
	int ncpu = libbpf_num_possible_cpus();
	err = map_probe(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, ncpu > 0 ? ncpu : 1);
	set_result(&f->feat[ENAV_FEAT_PERFBUF], err, false, "create perf_event_array map");

	struct stat st;
	bool tracefs = stat("/sys/kernel/tracing/events", &st) == 0 ||
		       stat("/sys/kernel/debug/tracing/events", &st) == 0;
	set_result(&f->feat[ENAV_FEAT_TRACEFS], tracefs ? 0 : ENOENT, control,
		   tracefs ? "tracefs events directory present" : "tracefs not mounted");

	int fd = load_trivial(BPF_PROG_TYPE_TRACEPOINT, 0, 0);
	if (fd >= 0) {
		close(fd);
		set_result(&f->feat[ENAV_FEAT_TRACEPOINT], 0, control,
			   tracefs ? "load tracepoint program; tracefs present for attach"
				   : "load tracepoint program; attach needs tracefs (not mounted)");
	} else {
		set_result(&f->feat[ENAV_FEAT_TRACEPOINT], -fd, control, "load tracepoint program");
	}

	probe_tracing(f, vmlinux);
	probe_perf_events(f);
	/* Without it the profiler loads its bounded-loop unwinder
	 * (bpf/profiling/profile_bounded.bpf.c). */
	err = libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, NULL);
	int loop_err = err > 0 ? 0 : err == 0 ? EINVAL : -err;
	set_result(&f->feat[ENAV_FEAT_BPF_LOOP], loop_err, control,
		   "perf_event program calls bpf_loop (Linux 5.17+)");
	if (loop_err == EINVAL)
		snprintf(f->feat[ENAV_FEAT_BPF_LOOP].detail,
			 sizeof(f->feat[ENAV_FEAT_BPF_LOOP].detail),
			 "no bpf_loop helper (Linux 5.17+): the profiler's unwinder is the bounded "
			 "one, at most 64 frames deep"); /* ENAV_UNWIND_BOUNDED_STEPS */
	/* Without it the unwinder's process map is preallocated. */
	set_result(&f->feat[ENAV_FEAT_PERF_DYN_HASH], probe_perf_dynamic_hash(), control,
		   "perf_event program uses a hash map allocated on use (Linux 6.1+)");
	probe_cgroups(f);
	probe_caps(f);
	probe_vmlinux_names(f, vmlinux);
	btf__free(vmlinux);
	libbpf_set_print(old);
}

/* Payloads from a socket-level hook wherever one loads: sys_exit runs on
 * every syscall of every process, about twelve per HTTP request where a
 * socket hook runs five. */
static void decide_payload_hook(const struct enav_features *f, struct enav_decisions *d)
{
	d->payload_compat = false;
	if (d->hooks == ENAV_HOOKS_FEXIT) {
		d->payload_hook = ENAV_PAYLOAD_FEXIT;
		d->payload_compat = f->feat[ENAV_FEAT_FUNC_ARG_HELPERS].status != ENAV_PROBE_YES;
		snprintf(
		    d->payload_hook_reason, sizeof(d->payload_hook_reason), "%s",
		    d->payload_compat
			? "hooks fexit, compat set (no func_arg_helpers): fexit on tcp_/udp(v6)_ "
			  "sendmsg/recvmsg with arguments from the typed context, syscall "
			  "registers from the task's kernel stack, scalar-only global "
			  "functions, TLS library probes without cookies, no Go TLS"
			: "hooks fexit: fexit on tcp_sendmsg/tcp_recvmsg and "
			  "udp(v6)_sendmsg/recvmsg");
	} else if (d->exec_hook == ENAV_EXEC_HOOK_TP_BTF &&
		   f->feat[ENAV_FEAT_SOCK_TP].status == ENAV_PROBE_YES) {
		d->payload_hook = ENAV_PAYLOAD_SOCKET_TP;
		snprintf(d->payload_hook_reason, sizeof(d->payload_hook_reason),
			 "BTF tracepoints sock_send_length/sock_recv_length");
	} else {
		d->payload_hook = ENAV_PAYLOAD_SYS_EXIT;
		snprintf(d->payload_hook_reason, sizeof(d->payload_hook_reason),
			 "fallback: no fexit and %s: every syscall's exit pays for payload capture",
			 d->exec_hook == ENAV_EXEC_HOOK_TP_BTF ? "no BTF sock_*_length tracepoints"
							       : "raw tracepoints only");
	}
}

const char *enav_payload_hook_name(enum enav_payload_hook h)
{
	static const char *const names[] = {"socket_tracepoints", "fexit", "sys_exit"};
	return (unsigned)h < 3 ? names[h] : "unknown";
}

int enav_features_decide(const struct enav_features *f, const struct enav_config *cfg,
			 struct enav_decisions *d, char *err, size_t errlen)
{
	const struct enav_probe_result *ctl = &f->feat[ENAV_FEAT_BPF_SYSCALL];
	if (ctl->status != ENAV_PROBE_YES) {
		if (ctl->err == EPERM || ctl->err == EACCES)
			snprintf(err, errlen,
				 "cannot use eBPF: this process lacks CAP_BPF (or CAP_SYS_ADMIN); "
				 "run enav as root or grant it CAP_BPF and CAP_PERFMON");
		else
			snprintf(err, errlen, "cannot use eBPF: %s", ctl->detail);
		return -1;
	}

	const struct enav_probe_result *rb = &f->feat[ENAV_FEAT_RINGBUF];
	const struct enav_probe_result *pb = &f->feat[ENAV_FEAT_PERFBUF];
	switch (cfg->transport) {
	case ENAV_TRANSPORT_RINGBUF:
		if (rb->status != ENAV_PROBE_YES) {
			snprintf(err, errlen, "transport ringbuf was configured but %s",
				 rb->detail);
			return -1;
		}
		d->transport = ENAV_TRANSPORT_RINGBUF;
		snprintf(d->transport_reason, sizeof(d->transport_reason), "configured");
		break;
	case ENAV_TRANSPORT_PERF:
		if (pb->status != ENAV_PROBE_YES) {
			snprintf(err, errlen, "transport perf was configured but %s", pb->detail);
			return -1;
		}
		d->transport = ENAV_TRANSPORT_PERF;
		snprintf(d->transport_reason, sizeof(d->transport_reason), "configured");
		break;
	case ENAV_TRANSPORT_AUTO:
		if (rb->status == ENAV_PROBE_YES) {
			d->transport = ENAV_TRANSPORT_RINGBUF;
			snprintf(d->transport_reason, sizeof(d->transport_reason),
				 "auto: ring buffer map type supported");
		} else if (rb->status == ENAV_PROBE_NO && pb->status == ENAV_PROBE_YES) {
			d->transport = ENAV_TRANSPORT_PERF;
			snprintf(d->transport_reason, sizeof(d->transport_reason),
				 "auto: kernel reports ring buffer unsupported (%s)", rb->detail);
		} else {
			snprintf(
			    err, errlen,
			    "transport auto cannot decide: ring buffer probe failed (%s), which "
			    "is not evidence the kernel lacks it; fix the cause or set transport",
			    rb->detail);
			return -1;
		}
		break;
	}

	const struct enav_probe_result *fx = &f->feat[ENAV_FEAT_FENTRY];
	switch (cfg->hooks) {
	case ENAV_HOOKS_FEXIT:
		if (fx->status != ENAV_PROBE_YES) {
			snprintf(err, errlen, "hooks fexit was configured but %s", fx->detail);
			return -1;
		}
		d->hooks = ENAV_HOOKS_FEXIT;
		snprintf(d->hooks_reason, sizeof(d->hooks_reason), "configured");
		break;
	case ENAV_HOOKS_TRACEPOINT:
		d->hooks = ENAV_HOOKS_TRACEPOINT;
		snprintf(d->hooks_reason, sizeof(d->hooks_reason), "configured");
		break;
	case ENAV_HOOKS_AUTO:
		if (fx->status == ENAV_PROBE_YES) {
			d->hooks = ENAV_HOOKS_FEXIT;
			snprintf(d->hooks_reason, sizeof(d->hooks_reason),
				 "auto: fexit loads and attaches");
		} else if (fx->status == ENAV_PROBE_NO || fx->status == ENAV_PROBE_REFUSED) {
			d->hooks = ENAV_HOOKS_TRACEPOINT;
			snprintf(d->hooks_reason, sizeof(d->hooks_reason), "auto: fexit %s (%s)",
				 fx->status == ENAV_PROBE_NO ? "unsupported"
							     : "refused by the kernel",
				 fx->detail);
		} else {
			snprintf(
			    err, errlen,
			    "hooks auto cannot decide: fexit probe failed (%s) without a passing "
			    "control load; fix the cause or set hooks",
			    fx->detail);
			return -1;
		}
		break;
	}

	bool btf_ok = f->feat[ENAV_FEAT_TP_BTF].status == ENAV_PROBE_YES;
	bool raw_ok = f->feat[ENAV_FEAT_RAW_TP].status == ENAV_PROBE_YES;
	switch (cfg->exec.hook) {
	case ENAV_EXEC_HOOK_BTF:
		if (!btf_ok && cfg->exec.enabled) {
			snprintf(err, errlen, "sources.exec.hook tp_btf was configured but %s",
				 f->feat[ENAV_FEAT_TP_BTF].detail);
			return -1;
		}
		d->exec_hook = ENAV_EXEC_HOOK_TP_BTF;
		break;
	case ENAV_EXEC_HOOK_RAW:
		if (!raw_ok && cfg->exec.enabled) {
			snprintf(err, errlen, "sources.exec.hook raw_tp was configured but %s",
				 f->feat[ENAV_FEAT_RAW_TP].detail);
			return -1;
		}
		d->exec_hook = ENAV_EXEC_HOOK_RAW_TP;
		break;
	case ENAV_EXEC_HOOK_AUTO:
		if (btf_ok) {
			d->exec_hook = ENAV_EXEC_HOOK_TP_BTF;
		} else if (raw_ok) {
			d->exec_hook = ENAV_EXEC_HOOK_RAW_TP;
		} else if (cfg->exec.enabled) {
			snprintf(err, errlen, "exec source needs raw or BTF tracepoints: %s",
				 f->feat[ENAV_FEAT_RAW_TP].detail);
			return -1;
		}
		break;
	}
	decide_payload_hook(f, d);
	return 0;
}

const char *enav_feature_name(enum enav_feature feat)
{
	static const char *const names[ENAV_FEAT__COUNT] = {
	    [ENAV_FEAT_BTF] = "btf",
	    [ENAV_FEAT_BPF_SYSCALL] = "bpf_syscall",
	    [ENAV_FEAT_RINGBUF] = "ring_buffer",
	    [ENAV_FEAT_PERFBUF] = "perf_buffer",
	    [ENAV_FEAT_TRACEPOINT] = "tracepoint",
	    [ENAV_FEAT_RAW_TP] = "raw_tracepoint",
	    [ENAV_FEAT_TP_BTF] = "btf_tracepoint",
	    [ENAV_FEAT_FENTRY] = "fentry_fexit",
	    [ENAV_FEAT_KPROBE] = "kprobe",
	    [ENAV_FEAT_UPROBE] = "uprobe",
	    [ENAV_FEAT_PERF_SAMPLING] = "perf_event_sampling",
	    [ENAV_FEAT_TRACEFS] = "tracefs",
	    [ENAV_FEAT_SOCK_TP] = "socket_tracepoints",
	    [ENAV_FEAT_BPF_LOOP] = "bpf_loop",
	    [ENAV_FEAT_PERF_DYN_HASH] = "perf_event_dynamic_hash",
	    [ENAV_FEAT_SWITCH_STATE] = "sched_switch_prev_state",
	    [ENAV_FEAT_FUNC_ARG_HELPERS] = "func_arg_helpers",
	};
	return feat < ENAV_FEAT__COUNT ? names[feat] : "unknown";
}

const char *enav_probe_status_name(enum enav_probe_status s)
{
	static const char *const names[] = {"yes", "no", "refused", "error"};
	return (unsigned)s < 4 ? names[s] : "unknown";
}

const char *enav_cgroup_layout_name(enum enav_cgroup_layout l)
{
	static const char *const names[] = {"none", "v2", "v1", "hybrid"};
	return (unsigned)l < 4 ? names[l] : "unknown";
}

const char *enav_cap_name(enum enav_cap c)
{
	static const char *const names[] = {"CAP_BPF", "CAP_PERFMON", "CAP_SYS_ADMIN",
					    "CAP_SYS_PTRACE"};
	return (unsigned)c < ENAV_CAP__COUNT ? names[c] : "unknown";
}
