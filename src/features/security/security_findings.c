/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Runtime security findings from signals already captured (no hook of its
 * own).  Rules:
 *   exec_from_writable_location  an executable run from /tmp, /var/tmp,
 *                                /dev/shm or a memfd (the kernel's own path
 *                                of the executable, not argv[0]);
 *   shell_from_network_service   a shell or interpreter whose parent served
 *                                a TCP connection (seen as the server side);
 *   credentials_to_root          a process that was not root at exec makes
 *                                its real uid 0 (setuid, setreuid,
 *                                setresuid: bpf/process/exec.bpf.c);
 *   new_outbound_port            a network service (a program in a cgroup
 *                                that served TCP) connects out to a remote
 *                                port it did not use during its learning
 *                                window (security.outbound_learning_ms from
 *                                when it was first seen serving);
 *   secret_file_read             a watched file (sources.file_open) opened
 *                                by an executable not in
 *                                security.secret_file_readers;
 *   agent_tampering              another process changed, or tried to
 *                                change, one of the agent's BPF objects, or
 *                                the agent found its capture filter changed
 *                                (features/security/self_guard_source.c).
 * Each finding is a security.finding signal (evidence "inferred") carrying
 * the workload of the process it is about.  A workload matching one of the
 * rule's security.exceptions selectors gets none.  Rate-limited per rule,
 * workload (cgroup) and evidence, and per rule and workload; a refusal is
 * itself reported (findings_rate_limited, docs/adr/0019-findings-budget.md);
 * everything bounded, suppressions and evictions counted.
 */
#include "features/security/security_findings.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/bcache.h"
#include "platform/clock.h"
#include "platform/promtext.h"
#include "discovery/discovery.h"
#include "discovery/selectors.h"

#define RATE_WINDOW_NS 60000000000ull

enum rule {
	R_WRITABLE = ENAV_RULE_EXEC_FROM_WRITABLE,
	R_SHELL = ENAV_RULE_SHELL_FROM_SERVICE,
	R_OUTBOUND = ENAV_RULE_NEW_OUTBOUND_PORT,
	R_ROOT = ENAV_RULE_CREDENTIALS_TO_ROOT,
	R_SECRET = ENAV_RULE_SECRET_FILE_READ,
	R_TAMPER = ENAV_RULE_AGENT_TAMPERING,
	R__N = ENAV_RULE__COUNT,
};
static const char *const rule_names[R__N] = {
    "exec_from_writable_location", "shell_from_network_service", "new_outbound_port",
    "credentials_to_root",	   "secret_file_read",		 "agent_tampering"};
static const char *const rule_severity[R__N] = {"high", "high", "medium",
						"high", "high", "critical"};

/* Programs that open secrets as part of their job, when the operator names
 * none (security.secret_file_readers). */
static const char *const default_secret_readers[] = {"/usr/sbin/sshd",
						     "/usr/bin/passwd",
						     "/usr/bin/chage",
						     "/usr/bin/chfn",
						     "/usr/bin/chsh",
						     "/usr/bin/gpasswd",
						     "/usr/sbin/chpasswd",
						     "/usr/sbin/chgpasswd",
						     "/usr/sbin/unix_chkpwd",
						     "/usr/bin/su",
						     "/usr/bin/sudo",
						     "/usr/bin/login",
						     "/usr/sbin/useradd",
						     "/usr/sbin/usermod",
						     "/usr/sbin/userdel",
						     "/usr/sbin/groupadd",
						     "/usr/sbin/groupmod",
						     "/usr/sbin/groupdel",
						     "/usr/sbin/pwck",
						     "/usr/sbin/grpck",
						     "/usr/sbin/vipw",
						     "/usr/sbin/visudo",
						     "/usr/sbin/cron",
						     "/usr/lib/systemd/systemd*",
						     "/lib/systemd/systemd*",
						     "/usr/bin/kubelet",
						     "/usr/local/bin/kubelet",
						     "/usr/bin/newgrp",
						     "/usr/sbin/pam_timestamp_check"};

/* A process's real uid at exec, to judge its later credential changes. */
struct exec_creds {
	uint64_t start_boot_ns;
	uint32_t uid;
};

/* A process seen serving a TCP connection. */
struct service {
	uint64_t start_boot_ns; /* identity: a reused pid is another process */
	char comm[ENAV_COMM_LEN + 1];
	uint16_t port;
};

struct rate {
	uint64_t window_start;
	uint32_t count;
	uint32_t suppressed; /* in this window */
	bool noticed;	     /* this window's first refusal was reported */
};

/* A serving workload (program name in a cgroup) and when it was first seen
 * serving: its outbound ports before learning_ns are its baseline. */
struct learner {
	uint64_t first_served_ns;
};

struct findings {
	bool rule_on[R__N];
	struct enav_selector_set exceptions[R__N];
	const char *readers[ENAV_CONFIG_LIST_MAX];
	size_t n_readers;
	uint32_t per_key, per_workload;
	struct enav_bcache services; /* pid -> struct service */
	struct enav_bcache rates;    /* (rule, cgroup[, evidence]) -> struct rate */
	struct enav_bcache learners; /* workload -> struct learner */
	struct enav_bcache baseline; /* (workload, remote port) -> presence */
	struct enav_bcache execs;    /* pid -> struct exec_creds */
	uint64_t learning_ns;
	_Atomic uint64_t fired[R__N], suppressed[R__N], excepted[R__N];
	_Atomic uint64_t service_evictions, rate_evictions, baseline_evictions, learned;
	_Atomic uint64_t exec_evictions, cred_unknown, notices;
	/* Rate-limit notices of the observe call under way (ADR 0019). */
	struct enav_signal *pending[4];
	size_t n_pending;
};

static const char *const writable_prefixes[] = {"/tmp/", "/var/tmp/", "/dev/shm/", "/memfd:"};

/* Shells and interpreters, by executable base name. */
static bool is_shell(const char *exe)
{
	static const char *const names[] = {"sh",   "bash",    "dash",	 "zsh",	 "ash",
					    "ksh",  "busybox", "python", "perl", "ruby",
					    "node", "php",     "lua",	 "tclsh"};
	const char *b = strrchr(exe, '/');
	b = b ? b + 1 : exe;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);
		/* python3, python3.11, perl5.36: a version may follow. */
		if (!strncmp(b, names[i], n) &&
		    (b[n] == '\0' || (b[n] >= '0' && b[n] <= '9') || b[n] == '.'))
			return true;
	}
	return false;
}

static bool from_writable(const char *exe)
{
	for (size_t i = 0; i < sizeof(writable_prefixes) / sizeof(writable_prefixes[0]); i++)
		if (!strncmp(exe, writable_prefixes[i], strlen(writable_prefixes[i])))
			return true;
	return false;
}

/* The signal's workload matches one of the rule's exception selectors.  A
 * selector that cannot be decided (Kubernetes data missing) does not
 * except: a finding is not silenced on a guess. */
static bool excepted(struct findings *f, enum rule r, const struct enav_signal *s)
{
	const struct enav_selector_set *set = &f->exceptions[r];
	if (!set->n)
		return false;
	const struct enav_process_signal *p = &s->process;
	/* The view is consulted only for a signal attributed to a pod. */
	const struct enav_snapshot *snap =
	    p->pod ? enav_signal_pinned(s, enav_snapshot_unpin) : NULL;
	struct enav_workload w = {
	    .cgroup_path = p->has_cgroup_path ? p->cgroup_path : NULL,
	    .identity = p->identity,
	    .k8s = snap ? snap->k8s : NULL,
	    .pod = p->pod,
	};
	for (unsigned i = 0; i < set->n; i++)
		if (enav_selector_match(&set->s[i], &w) == ENAV_MATCH_YES) {
			atomic_fetch_add(&f->excepted[r], 1);
			return true;
		}
	return false;
}

/* FNV-1a over a string, continuing h (the evidence part of a budget key). */
static uint64_t mix_str(uint64_t h, const char *str)
{
	for (const char *c = str ? str : ""; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull; /* a separator: "ab"+"c" != "a"+"bc" */
}

static uint64_t mix_u64(uint64_t h, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ull;
	return h;
}

/* What tells one finding of a rule from another in the same workload
 * (docs/adr/0019-findings-budget.md): the executable, and the file, object
 * or port the rule is about.  Harmless events spend only their own key. */
static uint64_t evidence_key(enum rule r, const struct enav_signal *s)
{
	const struct enav_process_signal *p = &s->process;
	uint64_t h = mix_u64(0xcbf29ce484222325ull, (uint64_t)r);
	h = mix_u64(h, p->cgroup_id);
	h = mix_str(h, p->has_exe ? p->exe : p->comm);
	if (r == R_SECRET) {
		h = mix_u64(mix_u64(h, s->file.dev), s->file.ino);
		h = mix_str(h, s->file.has_path ? s->file.path : "");
	} else if (r == R_TAMPER) {
		h = mix_str(mix_str(h, s->bpf.operation), s->bpf.object_kind);
		h = mix_u64(h, s->bpf.object_id);
	} else if (r == R_OUTBOUND) {
		h = mix_u64(h, s->net.remote_port);
	}
	return h ? h : 1;
}

/* The rule's aggregate key for one workload. */
static uint64_t workload_budget_key(enum rule r, const struct enav_signal *s)
{
	uint64_t h = mix_u64(mix_u64(0x84222325cbf29ce4ull, (uint64_t)r), s->process.cgroup_id);
	return h ? h : 1;
}

/* The rate entry for key, created empty (NULL when memory runs out). */
static struct rate *rate_entry(struct findings *f, uint64_t key)
{
	struct rate *rt = enav_bcache_get(&f->rates, key);
	if (rt)
		return rt;
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		return NULL;
	uint64_t before = f->rates.evictions;
	enav_bcache_put(&f->rates, key, rt);
	atomic_fetch_add(&f->rate_evictions, f->rates.evictions - before);
	return rt;
}

/* Start a new minute window when the old one has passed; what the old one
 * suppressed is returned (and forgotten), for the caller to report. */
static uint32_t roll(struct rate *rt, uint64_t now)
{
	if (now - rt->window_start < RATE_WINDOW_NS)
		return 0;
	uint32_t was = rt->suppressed;
	rt->window_start = now;
	rt->count = 0;
	rt->suppressed = 0;
	rt->noticed = false;
	return was;
}

/* A notice that findings of rule r were suppressed: itself a finding (rule
 * findings_rate_limited), so a budget spent in advance shows. */
static struct enav_signal *notice(enum rule r, const struct enav_signal *s, const char *scope,
				  uint32_t suppressed, uint32_t budget);

/* Keep a notice for sf_observe to hand out after the call's findings. */
static void hold(struct findings *f, struct enav_signal *o)
{
	if (!o)
		return;
	if (f->n_pending < sizeof(f->pending) / sizeof(f->pending[0])) {
		f->pending[f->n_pending++] = o;
		atomic_fetch_add(&f->notices, 1);
	} else {
		enav_signal_unref(o);
	}
}

/* Budgets (ADR 0019): per_key findings a minute per rule, workload and
 * evidence; per_workload findings a minute per rule and workload across
 * all evidence.  Nothing for an excepted workload.  A refusal is counted;
 * the first refusal of a window, and the count of a window that ended with
 * refusals, is held as a findings_rate_limited finding (hold). */
static bool admit(struct findings *f, enum rule r, const struct enav_signal *s, uint64_t now)
{
	if (excepted(f, r, s))
		return false;
	struct rate *k = rate_entry(f, evidence_key(r, s));
	struct rate *w = k ? rate_entry(f, workload_budget_key(r, s)) : NULL;
	/* The second put may have evicted the first entry: look it up again. */
	if (w)
		k = enav_bcache_get(&f->rates, evidence_key(r, s));
	if (!k || !w) {
		/* No memory for the budget: report rather than hide. */
		return true;
	}
	uint32_t k_was = roll(k, now), w_was = roll(w, now);
	if (w_was)
		hold(f, notice(r, s, "workload", w_was, 0));
	if (k_was)
		hold(f, notice(r, s, "evidence", k_was, 0));
	struct rate *over = k->count >= f->per_key ? k : w->count >= f->per_workload ? w : NULL;
	if (over) {
		atomic_fetch_add(&f->suppressed[r], 1);
		over->suppressed++;
		if (!over->noticed) {
			over->noticed = true;
			hold(f, notice(r, s, over == w ? "workload" : "evidence", 0,
				       over == w ? f->per_workload : f->per_key));
		}
		return false;
	}
	k->count++;
	w->count++;
	return true;
}

static void unpin_evidence(void *evidence)
{
	enav_signal_unref(evidence);
}

static struct enav_signal *finding(struct findings *f, enum rule r, const struct enav_signal *s)
{
	struct enav_signal *o = enav_signal_new(ENAV_SIGNAL_FINDING, 0);
	if (!o)
		return NULL;
	/* The process part points into the evidence (its tail, what attribution
	 * pinned for it): the finding holds the evidence.  Its reference count is
	 * the one field a reader may change. */
	struct enav_signal *evidence = (struct enav_signal *)s;
	enav_signal_ref(evidence);
	enav_signal_pin(o, evidence, unpin_evidence); /* the first pin: cannot fail */
	o->time_unix_ns = s->time_unix_ns;
	o->process = s->process;
	o->process.has_argv = false;
	if (s->kind == ENAV_SIGNAL_FILE_OPEN)
		o->file = s->file;
	if (s->kind == ENAV_SIGNAL_BPF_ACCESS)
		o->bpf = s->bpf;
	o->finding.rule = rule_names[r];
	o->finding.severity = rule_severity[r];
	o->finding.evidence_kind = s->kind;
	o->finding.evidence_time_unix_ns = s->time_unix_ns;
	atomic_fetch_add(&f->fired[r], 1);
	return o;
}

static struct enav_signal *notice(enum rule r, const struct enav_signal *s, const char *scope,
				  uint32_t suppressed, uint32_t budget)
{
	struct enav_signal *o = enav_signal_new(ENAV_SIGNAL_FINDING, 0);
	if (!o)
		return NULL;
	struct enav_signal *evidence = (struct enav_signal *)s;
	enav_signal_ref(evidence);
	enav_signal_pin(o, evidence, unpin_evidence);
	o->time_unix_ns = s->time_unix_ns;
	o->process = s->process;
	o->process.has_argv = false;
	o->finding.rule = "findings_rate_limited";
	/* As severe as what it hides: a budget spent in advance is an attack. */
	o->finding.severity = rule_severity[r];
	o->finding.evidence_kind = s->kind;
	o->finding.evidence_time_unix_ns = s->time_unix_ns;
	const char *what = s->process.has_exe ? s->process.exe : s->process.comm;
	if (budget)
		snprintf(o->finding.summary, sizeof(o->finding.summary),
			 "rate limited: %s findings over %u a minute for this %s (%s, last %s); "
			 "the rest of the minute suppressed and counted",
			 rule_names[r], budget, scope, scope[0] == 'w' ? "every executable" : what,
			 what);
	else
		snprintf(o->finding.summary, sizeof(o->finding.summary),
			 "rate limited: %u %s findings suppressed in this %s's previous minute "
			 "window (now %s)",
			 suppressed, rule_names[r], scope, what);
	return o;
}

/* A program in a cgroup: the unit a baseline belongs to. */
static uint64_t workload_key(const struct enav_process_signal *p)
{
	uint64_t h = 0xcbf29ce484222325ull ^ p->cgroup_id;
	for (const char *c = p->comm; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	return h ? h : 1;
}

/* Put key in a bounded cache, counting what the cap pushed out. */
static void put_counted(struct enav_bcache *c, uint64_t key, void *v, _Atomic uint64_t *evictions)
{
	uint64_t before = c->evictions;
	enav_bcache_put(c, key, v);
	atomic_fetch_add(evictions, c->evictions - before);
}

/* Client connection of a serving workload: learn the port, or report it. */
static struct enav_signal *outbound(struct findings *f, const struct enav_signal *s,
				    const struct service *sv, uint64_t now)
{
	const struct enav_process_signal *p = &s->process;
	uint64_t wk = workload_key(p);
	struct learner *l = enav_bcache_get(&f->learners, wk);
	if (!l) { /* serving, but its learner was evicted: start learning again */
		l = calloc(1, sizeof(*l));
		if (!l)
			return NULL;
		l->first_served_ns = now;
		put_counted(&f->learners, wk, l, &f->baseline_evictions);
	}
	uint64_t key = (wk * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)s->net.remote_port << 1 | 1);
	if (enav_bcache_get(&f->baseline, key))
		return NULL;
	void *mark = malloc(1);
	if (!mark)
		return NULL;
	put_counted(&f->baseline, key, mark, &f->baseline_evictions);
	if (now - l->first_served_ns < f->learning_ns) {
		atomic_fetch_add(&f->learned, 1);
		return NULL;
	}
	/* Reported once, then part of the baseline. */
	if (!admit(f, R_OUTBOUND, s, now))
		return NULL;
	struct enav_signal *o = finding(f, R_OUTBOUND, s);
	if (!o)
		return NULL;
	char peer[64] = "";
	const uint8_t *a = s->net.remote_addr;
	if (s->net.family == 4)
		snprintf(peer, sizeof(peer), "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
	else
		snprintf(peer, sizeof(peer), "[ipv6]");
	o->finding.related_port = s->net.remote_port;
	snprintf(o->finding.related_comm, sizeof(o->finding.related_comm), "%s", sv->comm);
	snprintf(o->finding.summary, sizeof(o->finding.summary),
		 "%s (serving port %u) connected out to %s port %u, which it did not use while "
		 "learning",
		 p->comm, sv->port, peer, s->net.remote_port);
	return o;
}

/* A credential change: root now, and not at exec, is a finding (once). */
static struct enav_signal *cred_change(struct findings *f, const struct enav_signal *s)
{
	const struct enav_process_signal *p = &s->process;
	struct exec_creds *ec = enav_bcache_get(&f->execs, p->pid);
	if (!ec || ec->start_boot_ns != p->start_boot_ns) {
		/* Started before the agent, or forgotten: never judged by guess. */
		atomic_fetch_add(&f->cred_unknown, 1);
		return NULL;
	}
	if (p->uid != 0 || ec->uid == 0)
		return NULL;
	uint32_t was = ec->uid;
	ec->uid = 0;
	if (!admit(f, R_ROOT, s, enav_clock_mono_ns()))
		return NULL;
	struct enav_signal *o = finding(f, R_ROOT, s);
	if (o)
		snprintf(o->finding.summary, sizeof(o->finding.summary),
			 "%s (pid %u), uid %u at exec, became root through %s (uid %u, euid %u)",
			 p->comm, p->pid, was, s->cred.syscall ? s->cred.syscall : "?", p->uid,
			 s->cred.euid);
	return o;
}

/* A watched file opened by a program that is not an allowed reader. */
static struct enav_signal *secret_read(struct findings *f, const struct enav_signal *s)
{
	const struct enav_process_signal *p = &s->process;
	/* (The agent's own opens never arrive: bpf/security/file_open.bpf.c skips them.) */
	if (p->has_exe)
		for (size_t i = 0; i < f->n_readers; i++)
			if (fnmatch(f->readers[i], p->exe, 0) == 0)
				return NULL;
	if (!admit(f, R_SECRET, s, enav_clock_mono_ns()))
		return NULL;
	struct enav_signal *o = finding(f, R_SECRET, s);
	if (o)
		snprintf(o->finding.summary, sizeof(o->finding.summary),
			 "%s (pid %u, %s, uid %u) opened %s for %s; not an allowed reader", p->comm,
			 p->pid, p->has_exe ? p->exe : "executable unknown", p->uid,
			 s->file.has_path ? s->file.path : "a watched file",
			 s->file.access ? s->file.access : "read");
	return o;
}

/* Another process changed one of the agent's BPF objects, or tried to. */
static struct enav_signal *tampering(struct findings *f, const struct enav_signal *s)
{
	const struct enav_bpf_access_signal *b = &s->bpf;
	if (!b->modifies || !admit(f, R_TAMPER, s, enav_clock_mono_ns()))
		return NULL;
	struct enav_signal *o = finding(f, R_TAMPER, s);
	if (!o)
		return NULL;
	const struct enav_process_signal *p = &s->process;
	if (b->entries_restored)
		snprintf(o->finding.summary, sizeof(o->finding.summary),
			 "the agent's capture filter was changed by another process: %u "
			 "entries restored",
			 b->entries_restored);
	else
		snprintf(o->finding.summary, sizeof(o->finding.summary),
			 "%s (pid %u, uid %u) ran %s on the agent's %s %s (id %u): %s", p->comm,
			 p->pid, p->uid, b->operation, b->object_kind,
			 b->object_name[0] ? b->object_name : "?", b->object_id,
			 b->result >= 0 ? "the kernel accepted it" : "the kernel refused it");
	return o;
}

/* Hand one finding to the caller's output array (or drop it when full). */
static size_t put_out(struct enav_signal *o, struct enav_signal **out, size_t out_cap)
{
	if (!o)
		return 0;
	if (!out_cap) {
		enav_signal_unref(o);
		return 0;
	}
	out[0] = o;
	return 1;
}

static size_t observe_rules(struct findings *f, const struct enav_signal *s,
			    struct enav_signal **out, size_t out_cap)
{
	const struct enav_process_signal *p = &s->process;
	size_t n = 0;
	if (s->kind == ENAV_SIGNAL_FILE_OPEN)
		return f->rule_on[R_SECRET] ? put_out(secret_read(f, s), out, out_cap) : 0;
	if (s->kind == ENAV_SIGNAL_BPF_ACCESS)
		return f->rule_on[R_TAMPER] ? put_out(tampering(f, s), out, out_cap) : 0;
	if (f->rule_on[R_ROOT]) {
		if (s->kind == ENAV_SIGNAL_PROCESS_EXEC && p->has_creds && p->pid) {
			struct exec_creds *ec = enav_bcache_get(&f->execs, p->pid);
			if (!ec) {
				ec = calloc(1, sizeof(*ec));
				if (ec)
					put_counted(&f->execs, p->pid, ec, &f->exec_evictions);
			}
			if (ec) {
				ec->start_boot_ns = p->start_boot_ns;
				ec->uid = p->uid;
			}
		} else if (s->kind == ENAV_SIGNAL_PROCESS_EXIT) {
			enav_bcache_remove(&f->execs, p->pid);
		} else if (s->kind == ENAV_SIGNAL_CRED_CHANGE) {
			struct enav_signal *o = cred_change(f, s);
			if (o && out_cap)
				out[n++] = o;
			else if (o)
				enav_signal_unref(o);
			return n;
		}
	}
	if (f->rule_on[R_OUTBOUND] &&
	    (s->kind == ENAV_SIGNAL_TCP_OPEN || s->kind == ENAV_SIGNAL_TCP_FAILED) &&
	    s->net.role == ENAV_ROLE_CLIENT && p->pid) {
		struct service *sv = enav_bcache_get(&f->services, p->pid);
		if (!sv || sv->start_boot_ns != p->start_boot_ns)
			return 0; /* not a network service */
		struct enav_signal *o = outbound(f, s, sv, enav_clock_mono_ns());
		if (o && out_cap)
			out[n++] = o;
		else if (o)
			enav_signal_unref(o);
		return n;
	}
	if ((s->kind == ENAV_SIGNAL_TCP_OPEN || s->kind == ENAV_SIGNAL_TCP_CLOSE) &&
	    s->net.role == ENAV_ROLE_SERVER && p->pid) {
		struct service *sv = enav_bcache_get(&f->services, p->pid);
		if (!sv || sv->start_boot_ns != p->start_boot_ns) {
			sv = calloc(1, sizeof(*sv));
			if (!sv)
				return 0;
			sv->start_boot_ns = p->start_boot_ns;
			snprintf(sv->comm, sizeof(sv->comm), "%s", p->comm);
			sv->port = s->net.local_port;
			put_counted(&f->services, p->pid, sv, &f->service_evictions);
			/* Its workload's learning window starts at its first service. */
			uint64_t wk = workload_key(p);
			if (f->rule_on[R_OUTBOUND] && !enav_bcache_get(&f->learners, wk)) {
				struct learner *l = calloc(1, sizeof(*l));
				if (l) {
					l->first_served_ns = enav_clock_mono_ns();
					put_counted(&f->learners, wk, l, &f->baseline_evictions);
				}
			}
		}
		return 0;
	}
	if (s->kind != ENAV_SIGNAL_PROCESS_EXEC || !p->has_exe)
		return 0;
	uint64_t now = enav_clock_mono_ns();
	if (f->rule_on[R_WRITABLE] && from_writable(p->exe) && n < out_cap &&
	    admit(f, R_WRITABLE, s, now)) {
		struct enav_signal *o = finding(f, R_WRITABLE, s);
		if (o) {
			snprintf(o->finding.summary, sizeof(o->finding.summary),
				 "%s ran %s from a writable location", p->comm, p->exe);
			out[n++] = o;
		}
	}
	struct service *parent = enav_bcache_get(&f->services, p->ppid);
	if (f->rule_on[R_SHELL] && parent && is_shell(p->exe) && n < out_cap &&
	    admit(f, R_SHELL, s, now)) {
		struct enav_signal *o = finding(f, R_SHELL, s);
		if (o) {
			o->finding.related_pid = p->ppid;
			snprintf(o->finding.related_comm, sizeof(o->finding.related_comm), "%s",
				 parent->comm);
			o->finding.related_port = parent->port;
			snprintf(o->finding.summary, sizeof(o->finding.summary),
				 "%s (pid %u, serving port %u) started %s", parent->comm, p->ppid,
				 parent->port, p->exe);
			out[n++] = o;
		}
	}
	return n;
}

static size_t sf_observe(void *state, const struct enav_signal *s, struct enav_signal **out,
			 size_t out_cap)
{
	struct findings *f = state;
	f->n_pending = 0;
	size_t n = observe_rules(f, s, out, out_cap);
	/* The rate-limit notices this signal raised go out after its findings. */
	for (size_t i = 0; i < f->n_pending; i++) {
		if (n < out_cap)
			out[n++] = f->pending[i];
		else
			enav_signal_unref(f->pending[i]);
	}
	f->n_pending = 0;
	return n;
}

static int sf_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	struct findings *f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	*state = f;
	f->rule_on[R_WRITABLE] = cfg->security.exec_from_writable;
	f->rule_on[R_SHELL] = cfg->security.shell_from_service;
	f->rule_on[R_OUTBOUND] = cfg->security.new_outbound_port;
	f->rule_on[R_ROOT] = cfg->security.credentials_to_root;
	f->rule_on[R_SECRET] = cfg->security.secret_file_read;
	f->rule_on[R_TAMPER] = cfg->security.agent_tampering;
	const struct enav_config_list *readers = &cfg->security.secret_file_readers;
	if (readers->n)
		for (uint32_t i = 0; i < readers->n; i++)
			f->readers[f->n_readers++] = readers->item[i];
	else
		for (size_t i = 0;
		     i < sizeof(default_secret_readers) / sizeof(*default_secret_readers); i++)
			f->readers[f->n_readers++] = default_secret_readers[i];
	for (int r = 0; r < R__N; r++)
		if (enav_selectors_compile(&cfg->security.exceptions[r], &f->exceptions[r], err,
					   errlen))
			return -EINVAL;
	f->learning_ns = (uint64_t)cfg->security.outbound_learning_ms * 1000000ull;
	f->per_key = cfg->security.rate_per_minute;
	f->per_workload = cfg->security.workload_rate_per_minute;
	if (enav_bcache_init(&f->services, cfg->security.max_services, free) ||
	    enav_bcache_init(&f->rates, cfg->security.max_rate_entries, free) ||
	    enav_bcache_init(&f->learners, cfg->security.max_services, free) ||
	    enav_bcache_init(&f->baseline, cfg->security.max_baseline_entries, free) ||
	    enav_bcache_init(&f->execs, cfg->security.max_tracked_processes, free)) {
		snprintf(err, errlen, "security: cannot allocate its tables");
		return -ENOMEM;
	}
	return 0;
}

static void sf_fini(void *state)
{
	struct findings *f = state;
	if (!f)
		return;
	enav_bcache_destroy(&f->services);
	enav_bcache_destroy(&f->rates);
	enav_bcache_destroy(&f->learners);
	enav_bcache_destroy(&f->baseline);
	enav_bcache_destroy(&f->execs);
	free(f);
}

/* One counter family with a sample per rule. */
static void per_rule_family(struct enav_promtext *p, const char *name, const char *help,
			    _Atomic uint64_t *by_rule)
{
	enav_promtext_family(p, name, "counter", help);
	for (int r = 0; r < R__N; r++) {
		const char *l[] = {"rule", rule_names[r]};
		enav_promtext_sample_u64(p, name, l, 1, atomic_load(&by_rule[r]));
	}
}

static void sf_metrics(void *state, struct enav_promtext *p)
{
	struct findings *f = state;
	per_rule_family(p, "enav_security_findings_total", "Security findings emitted, by rule.",
			f->fired);
	per_rule_family(
	    p, "enav_security_findings_suppressed_total",
	    "Findings not emitted: over security.rate_limit_per_minute for their rule, "
	    "workload and evidence, or security.workload_rate_limit_per_minute for their "
	    "rule and workload.",
	    f->suppressed);
	enav_promtext_single_u64(p, "enav_security_rate_limit_notices_total", "counter",
				 "findings_rate_limited findings emitted: a budget's first refusal "
				 "in a minute, and the count a minute with refusals ended with.",
				 atomic_load(&f->notices));
	per_rule_family(p, "enav_security_findings_excepted_total",
			"Findings not emitted: the workload matched one of the rule's "
			"security.exceptions selectors.",
			f->excepted);
	enav_promtext_single_u64(p, "enav_security_service_evictions_total", "counter",
				 "Network-serving processes forgotten to stay within "
				 "security.max_tracked_services.",
				 atomic_load(&f->service_evictions));
	enav_promtext_single_u64(p, "enav_security_rate_evictions_total", "counter",
				 "Rate-limit entries evicted to stay within "
				 "security.max_rate_entries.",
				 atomic_load(&f->rate_evictions));
	enav_promtext_single_u64(p, "enav_security_baseline_evictions_total", "counter",
				 "Outbound-port baseline entries evicted to stay within "
				 "security.max_baseline_entries (an evicted port may be reported "
				 "again).",
				 atomic_load(&f->baseline_evictions));
	enav_promtext_single_u64(p, "enav_security_process_evictions_total", "counter",
				 "Processes' exec credentials forgotten to stay within "
				 "security.max_tracked_processes.",
				 atomic_load(&f->exec_evictions));
	enav_promtext_single_u64(p, "enav_security_cred_changes_unjudged_total", "counter",
				 "Credential changes of processes whose exec the agent did not see "
				 "(started before it, or forgotten): not judged.",
				 atomic_load(&f->cred_unknown));
	enav_promtext_single_u64(p, "enav_security_baseline_learned_total", "counter",
				 "Outbound ports learned into services' baselines.",
				 atomic_load(&f->learned));
}

bool enav_security_findings_enabled(const struct enav_config *cfg)
{
	return cfg->security.enabled;
}

const struct enav_generator_ops enav_security_findings_ops = {
    .init = sf_init,
    .observe = sf_observe,
    .fini = sf_fini,
    .metrics = sf_metrics,
};
