/* SPDX-License-Identifier: Apache-2.0 */
#include "probe/privileges.h"
#include "platform/clock.h"

#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

#define BIT(c) (1ull << (c))

/* One reason to hold a capability: the feature that needs it, and why. */
static size_t add(struct enav_cap_reason *out, size_t n, size_t cap, int c, bool runtime,
		  const char *feature, const char *why)
{
	if (n < cap)
		out[n] = (struct enav_cap_reason){c, runtime, feature, why};
	return n + 1;
}

size_t enav_privileges_reasons(const struct enav_config *cfg, struct enav_cap_reason *out,
			       size_t cap)
{
	size_t n = 0;
	/* The bpf() syscall itself (map reads for /metrics, capture filter
	 * updates, profile drains) needs CAP_BPF for as long as the agent runs;
	 * attribution resolves a cgroup id to its path with open_by_handle_at,
	 * which needs CAP_DAC_READ_SEARCH. */
	n = add(out, n, cap, CAP_BPF, true, "agent",
		"bpf() map reads and updates: /metrics, the capture filter, drains");
	n = add(out, n, cap, CAP_DAC_READ_SEARCH, true, "attribution",
		"open_by_handle_at names a cgroup id; root-only kubelet directories");
	/* Loading tracing programs that read kernel memory, opening perf events. */
	n = add(out, n, cap, CAP_PERFMON, false, "agent", "loading tracing programs, perf events");
	bool tls = cfg->network.enabled && cfg->network.l7.enabled && cfg->network.tls.enabled;
	if (tls) {
		/* Uprobes are attached while running: perf_event_open of a uprobe
		 * event answers EACCES with CAP_PERFMON alone and succeeds with
		 * CAP_SYS_ADMIN (measured on 6.18, docs/deployment.md).  The
		 * prober reads other processes' maps and opens their files
		 * through /proc/PID/map_files (CAP_SYS_ADMIN) or their root. */
		n = add(out, n, cap, CAP_PERFMON, true, "network.tls",
			"uprobe perf events for processes that start later");
		n = add(out, n, cap, CAP_SYS_ADMIN, true, "network.tls",
			"uprobe perf events; /proc/PID/map_files of mapped libraries");
		n = add(out, n, cap, CAP_SYS_PTRACE, true, "network.tls",
			"/proc/PID/maps and /proc/PID/root of other users' processes");
	}
	if (cfg->profiling.enabled)
		/* Symbolization reads /proc/PID/maps and the mapped files of every
		 * process, whoever owns them. */
		n = add(out, n, cap, CAP_SYS_PTRACE, true, "profiling",
			"/proc/PID/maps and mapped files of other users' processes");
	if (cfg->host.enabled)
		n = add(out, n, cap, CAP_SYS_PTRACE, true, "host",
			"/proc/PID/io of other users' processes");
	bool self_guard = cfg->security.enabled && cfg->security.agent_tampering;
	if ((cfg->profiling.enabled && cfg->profiling.futex) || cfg->exec.enabled ||
	    cfg->file_open.enabled || self_guard)
		/* Mounting tracefs when it is not mounted: syscall tracepoints for
		 * the futex profile, credential changes, opens of watched files
		 * and other processes' bpf() calls. */
		n = add(out, n, cap, CAP_SYS_ADMIN, false, "tracefs",
			"mounting tracefs for syscall tracepoints when it is not mounted");
	return n;
}

void enav_privileges_needed(const struct enav_config *cfg, struct enav_privileges *out)
{
	struct enav_cap_reason r[ENAV_CAP_REASONS_MAX];
	size_t n = enav_privileges_reasons(cfg, r, ENAV_CAP_REASONS_MAX);
	out->runtime = out->start = 0;
	for (size_t i = 0; i < n && i < ENAV_CAP_REASONS_MAX; i++) {
		if (r[i].runtime)
			out->runtime |= BIT(r[i].cap);
		else
			out->start |= BIT(r[i].cap);
	}
	out->start |= out->runtime;
}

size_t enav_caps_reasons_format(const struct enav_config *cfg, char *buf, size_t cap)
{
	struct enav_cap_reason r[ENAV_CAP_REASONS_MAX];
	size_t n = enav_privileges_reasons(cfg, r, ENAV_CAP_REASONS_MAX), len = 0;
	if (cap)
		buf[0] = '\0';
	for (size_t i = 0; i < n && i < ENAV_CAP_REASONS_MAX; i++) {
		if (!r[i].runtime)
			continue;
		char name[32];
		enav_caps_format(BIT(r[i].cap), name, sizeof(name));
		int w = snprintf(buf + len, len < cap ? cap - len : 0, "%s%s for %s (%s)",
				 len ? "; " : "", name, r[i].feature, r[i].why);
		if (w < 0 || (size_t)w >= (len < cap ? cap - len : 0))
			break;
		len += (size_t)w;
	}
	return len;
}

size_t enav_caps_format(uint64_t set, char *buf, size_t cap)
{
	static const struct {
		int cap;
		const char *name;
	} names[] = {
	    {CAP_CHOWN, "CAP_CHOWN"},
	    {CAP_DAC_OVERRIDE, "CAP_DAC_OVERRIDE"},
	    {CAP_DAC_READ_SEARCH, "CAP_DAC_READ_SEARCH"},
	    {CAP_FOWNER, "CAP_FOWNER"},
	    {CAP_KILL, "CAP_KILL"},
	    {CAP_SETGID, "CAP_SETGID"},
	    {CAP_SETUID, "CAP_SETUID"},
	    {CAP_SETPCAP, "CAP_SETPCAP"},
	    {CAP_NET_BIND_SERVICE, "CAP_NET_BIND_SERVICE"},
	    {CAP_NET_ADMIN, "CAP_NET_ADMIN"},
	    {CAP_NET_RAW, "CAP_NET_RAW"},
	    {CAP_SYS_PTRACE, "CAP_SYS_PTRACE"},
	    {CAP_SYS_ADMIN, "CAP_SYS_ADMIN"},
	    {CAP_SYS_RESOURCE, "CAP_SYS_RESOURCE"},
	    {CAP_SYSLOG, "CAP_SYSLOG"},
	    {CAP_PERFMON, "CAP_PERFMON"},
	    {CAP_BPF, "CAP_BPF"},
	};
	size_t n = 0;
	buf[0] = '\0';
	uint64_t shown = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(set & BIT(names[i].cap)))
			continue;
		shown |= BIT(names[i].cap);
		int w =
		    snprintf(buf + n, n < cap ? cap - n : 0, "%s%s", n ? "," : "", names[i].name);
		if (w > 0)
			n += (size_t)w;
	}
	for (int c = 0; c < 64; c++) /* the rest by number */
		if ((set & BIT(c)) && !(shown & BIT(c))) {
			int w =
			    snprintf(buf + n, n < cap ? cap - n : 0, "%scap_%d", n ? "," : "", c);
			if (w > 0)
				n += (size_t)w;
		}
	if (n == 0)
		n = (size_t)snprintf(buf, cap, "none");
	return n < cap ? n : cap - 1;
}

static int capget_self(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	return (int)syscall(SYS_capget, &h, d);
}

uint64_t enav_caps_effective(void)
{
	struct __user_cap_data_struct d[2];
	if (capget_self(d) != 0)
		return 0;
	return (uint64_t)d[0].effective | (uint64_t)d[1].effective << 32;
}

/* The set every thread installs, written before any thread is signalled. */
static struct __user_cap_data_struct drop_to[2];
static _Atomic int drop_done, drop_failed;
/* Set when the dropping thread holds CAP_SETPCAP: then every thread also
 * cuts its bounding set to the kept set and locks the securebits. */
static bool lock_in;
static uint64_t lock_keep;

/*
 * The drop made permanent, per thread (these are per-thread credentials like
 * the capability sets): no_new_privs and SECBIT_NOROOT mean that uid 0
 * exec'ing anything, a setuid binary included, gains no capability; the
 * bounding set stops file capabilities; SECBIT_NO_SETUID_FIXUP keeps a
 * setuid() from changing the sets.  All of it locked, so a thread taken over
 * through a parser bug cannot undo it.
 */
static void apply_lock(void)
{
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (!lock_in)
		return;
	for (int c = 0; c <= CAP_LAST_CAP; c++)
		if (!(lock_keep & BIT(c)))
			prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	prctl(PR_SET_SECUREBITS,
	      SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
		  SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
	      0, 0, 0);
}

static int apply_drop(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	apply_lock();
	/* Ambient first: a capability leaves the ambient set when it leaves
	 * permitted anyway, but clearing says so explicitly. */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	return (int)syscall(SYS_capset, &h, drop_to);
}

bool enav_privileges_locked(void)
{
	return lock_in && prctl(PR_GET_SECUREBITS, 0, 0, 0, 0) > 0 &&
	       prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1;
}

/* How long the drop waits for every thread to run its handler, and how
 * often it signals a thread that has not yet. */
#define DROP_WAIT_NS	 (10ull * 1000000000ull)
#define DROP_RESIGNAL_NS (100ull * 1000000ull)

static void on_drop_signal(int sig)
{
	(void)sig;
	int saved = errno;
	if (apply_drop() == 0)
		atomic_fetch_add(&drop_done, 1);
	else
		atomic_fetch_add(&drop_failed, 1);
	errno = saved;
}

/* Effective set of thread tid from /proc/self/task/TID/status, or -1. */
static int64_t thread_caps(long tid)
{
	char p[64], line[128];
	snprintf(p, sizeof(p), "/proc/self/task/%ld/status", tid);
	FILE *f = fopen(p, "re");
	if (!f)
		return -1;
	int64_t v = -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7)) {
			v = (int64_t)strtoull(line + 7, NULL, 16);
			break;
		}
	fclose(f);
	return v;
}

int enav_privileges_drop(uint64_t keep, char *err, size_t errlen)
{
	struct __user_cap_data_struct cur[2];
	if (capget_self(cur) != 0) {
		snprintf(err, errlen, "capget: %s", strerror(errno));
		return -1;
	}
	uint64_t permitted = (uint64_t)cur[0].permitted | (uint64_t)cur[1].permitted << 32;
	uint64_t target = keep & permitted;
	uint64_t effective = (uint64_t)cur[0].effective | (uint64_t)cur[1].effective << 32;
	lock_in = (effective & BIT(CAP_SETPCAP)) != 0;
	lock_keep = target;
	memset(drop_to, 0, sizeof(drop_to));
	drop_to[0].effective = drop_to[0].permitted = (uint32_t)target;
	drop_to[1].effective = drop_to[1].permitted = (uint32_t)(target >> 32);
	/* Every thread but this one drops in a signal handler, as glibc does
	 * for setuid(); threads made later inherit from their (dropped) maker. */
	int sig = SIGRTMIN + 4;
	struct sigaction sa = {.sa_handler = on_drop_signal, .sa_flags = SA_RESTART};
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) != 0) {
		snprintf(err, errlen, "sigaction: %s", strerror(errno));
		return -1;
	}
	int rc = 0;
	if (apply_drop() != 0) {
		snprintf(err, errlen, "capset: %s", strerror(errno));
		rc = -1;
	}
	long self = syscall(SYS_gettid);
	pid_t pid = getpid();
	/* Signal each thread whose set is not yet the target, until none is
	 * left (a thread created meanwhile inherited either set), again every
	 * DROP_RESIGNAL_NS.  A thread runs its handler only once scheduled: on
	 * a loaded node (or an emulated one) that took longer than the 100 ms
	 * this used to allow, and the agent refused to start; DROP_WAIT_NS
	 * bounds the wait for a thread that never runs. */
	uint64_t t0 = enav_clock_mono_ns(), last_signal = 0;
	bool signalled = false;
	for (;;) {
		DIR *d = opendir("/proc/self/task");
		if (!d) {
			snprintf(err, errlen, "/proc/self/task: %s", strerror(errno));
			rc = -1;
			break;
		}
		uint64_t now = enav_clock_mono_ns();
		bool resignal = !signalled || now - last_signal >= DROP_RESIGNAL_NS;
		int pending = 0;
		struct dirent *de;
		while (rc == 0 && (de = readdir(d))) {
			long tid = strtol(de->d_name, NULL, 10);
			if (tid <= 0 || tid == self)
				continue;
			int64_t c = thread_caps(tid);
			if (c < 0 || (uint64_t)c == target)
				continue; /* gone, or dropped */
			pending++;
			if (resignal && syscall(SYS_tgkill, pid, tid, sig) != 0 && errno != ESRCH)
				pending--; /* cannot signal: it is checked again next pass */
		}
		closedir(d);
		if (resignal) {
			signalled = true;
			last_signal = now;
		}
		if (rc != 0 || !pending)
			break;
		if (enav_clock_mono_ns() - t0 >= DROP_WAIT_NS) {
			snprintf(err, errlen,
				 "%d thread(s) did not drop their capabilities within %u ms",
				 pending, (unsigned)(DROP_WAIT_NS / 1000000));
			rc = -1;
			break;
		}
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
	}
	if (atomic_load(&drop_failed)) {
		snprintf(err, errlen, "capset failed in %d thread(s)", atomic_load(&drop_failed));
		rc = -1;
	}
	/* Ignored from now on: a signal still queued for a thread that dropped
	 * already is discarded instead of running the default action. */
	sa.sa_handler = SIG_IGN;
	sigaction(sig, &sa, NULL);
	return rc;
}

int enav_refuse_world_writable(const char *path, const char *what, char *err, size_t errlen)
{
	struct stat st;
	if (!path || !path[0] || stat(path, &st) != 0)
		return 0;
	if (st.st_mode & S_IWOTH) {
		snprintf(err, errlen,
			 "%s %s is writable by every user (mode %04o): refusing to run with it; "
			 "chmod o-w it",
			 what, path, (unsigned)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}
