/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/tls/tls_attach.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "platform/u64map.h"
#include "enav/abi.h"
#include "features/network/l7/l7.h"
#include "platform/proc_lines.h"
#include "platform/tenant_file.h"
#include "runtime/bpf_source.h"
#include "features/network/tls/go_tls.h"
#include "features/network/tls/tls_attach_priv.h"
#include "features/network/tls/tls_sites.h"

#define EXEC_DELAY_NS	100000000ull  /* let the dynamic loader map the libraries */
#define EXEC_RETRY_NS	1000000000ull /* and look once more a second later */
#define MAPS_MAX_BYTES	(8ull << 20)  /* of one /proc/PID/maps */
#define REJECTED_MAX	4096	      /* files known not to need probes */
#define MAPS_CANDIDATES 8	      /* distinct TLS libraries looked at per process */

/* Kernel counters (enum tls_counter in bpf/network/net_tls.bpf.h). */
static const char *const kernel_reasons[] = {"calls",	   "no_socket",	    "not_tcp_conn",
					     "calls_full", "sessions_full", "read_fault"};
#define N_KERNEL_COUNTERS (sizeof(kernel_reasons) / sizeof(kernel_reasons[0]))

const char *enav_tls_lib_name(int library)
{
	const char *n = enav_tls_library_name(library);
	return n ? n : "none";
}

static uint64_t file_key(dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)dev * 0x9e3779b97f4a7c15ull ^ (uint64_t)ino;
	return h ? h : 1;
}

static struct target *find_target(struct enav_tls_attach *t, dev_t dev, ino_t ino)
{
	for (uint32_t i = 0; i < t->cfg.max_binaries; i++)
		if (t->targets[i].used && t->targets[i].dev == dev && t->targets[i].ino == ino)
			return &t->targets[i];
	return NULL;
}

/* One mapping of one process: a refusal that depends on the path the
 * tenant shows (a FIFO or symlink there, another inode) is remembered for
 * that mapping only, never for the inode: otherwise a tenant that maps the
 * node's libssl and swaps its path would get it unprobed for everyone. */
static uint64_t mapping_key(const struct enav_tls_candidate *c, uint32_t pid)
{
	uint64_t h = file_key((dev_t)c->dev, (ino_t)c->ino) ^
		     ((uint64_t)pid + 1) * 0xbf58476d1ce4e5b9ull ^ c->start * 0x94d049bb133111ebull;
	return h ? h : 2;
}

static void reject_key(struct enav_tls_attach *t, uint64_t key)
{
	if (enav_u64map_put(&t->rejected, key, 1) != 0) {
		/* Full: forget them all; they are looked at again, once. */
		enav_u64map_clear(&t->rejected);
		enav_u64map_put(&t->rejected, key, 1);
	}
}

void enav_tls_reject(struct enav_tls_attach *t, dev_t dev, ino_t ino)
{
	reject_key(t, file_key(dev, ino));
}

static bool is_rejected(struct enav_tls_attach *t, uint64_t key)
{
	uint64_t v;
	return enav_u64map_get(&t->rejected, key, &v);
}

static void detach(struct enav_tls_attach *t, struct target *tg)
{
	for (uint32_t i = 0; i < tg->n_links; i++)
		bpf_link__destroy(tg->links[i]);
	t->n_probes -= tg->n_links;
	t->n_stepped -= tg->stepped;
	if (tg->library == ENAV_TLS_LIB_GO) {
		uint32_t idx = (uint32_t)(tg - t->targets);
		struct {
			uint64_t a[3];
			uint32_t b[4];
		} zero = {0};
		bpf_map_update_elem(t->go_map_fd, &idx, &zero, BPF_ANY);
	}
	free(tg->links);
	t->detached_total[tg->library]++;
	enav_info("tls: detached %s probes from %s (no process maps it)",
		  enav_tls_lib_name(tg->library), tg->path);
	memset(tg, 0, sizeof(*tg));
}

/* One uprobe at a file offset this code resolved, through fd_path
 * (/proc/self/fd/N of the descriptor the code was read from): with no
 * func_name libbpf opens nothing, and the kernel's lookup of fd_path ends
 * at that descriptor's inode, whatever the tenant's path names by now. */
int enav_tls_add_link(struct target *tg, const char *prog_name, struct bpf_object *obj,
		      const char *fd_path, uint64_t offset, bool ret, uint64_t cookie)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, prog_name);
	if (!prog) {
		errno = ENOENT;
		return -1;
	}
	LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = ret, .bpf_cookie = cookie);
	struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, -1, fd_path, offset, &o);
	if (!l)
		return -1;
	tg->links[tg->n_links++] = l;
	return 0;
}

/*
 * One probed function of a library: its entry program (which reads the
 * argument registers in args) and whether its return value is needed.
 * Where the function's code allows, both probes sit on instructions the
 * kernel emulates (src/features/network/tls/tls_sites.h): the return then
 * is a plain uprobe running the same return program, which reads RAX.
 * Otherwise the entry probe is on the first byte with a return probe (two
 * links either way), or alone on the first byte when no return is needed.
 *
 * OpenSSL 3's SSL_read and SSL_read_ex (and the _write pair) each call the
 * library's internal function directly, neither through the other
 * (disassembly of Debian 12's libssl3 3.0.19): one call is one hit of one
 * pair, so both are probed.
 */
struct lib_func {
	const char *func, *enter;
	const char *enter_compat; /* without bpf_get_attach_cookie: the library is in the name */
	unsigned args;
	bool returns;
};

#define ARGS_CALL (ENAV_TLS_ARG_RDI | ENAV_TLS_ARG_RSI)
#define ARGS_EX	  (ARGS_CALL | ENAV_TLS_ARG_RCX)

static const struct lib_func openssl_funcs[] = {
    {"SSL_read", "enav_tls_read_enter", "enav_tls_compat_ossl_read", ARGS_CALL, true},
    {"SSL_read_ex", "enav_tls_read_ex_enter", "enav_tls_compat_ossl_read_ex", ARGS_EX, true},
    {"SSL_write", "enav_tls_write_enter", "enav_tls_compat_ossl_write", ARGS_CALL, true},
    {"SSL_write_ex", "enav_tls_write_ex_enter", "enav_tls_compat_ossl_write_ex", ARGS_EX, true},
    {"SSL_do_handshake", "enav_tls_handshake_enter", "enav_tls_compat_ossl_handshake",
     ENAV_TLS_ARG_RDI, true},
    {"SSL_free", "enav_tls_free_enter", "enav_tls_free_enter", ENAV_TLS_ARG_RDI, false},
};

static const struct lib_func gnutls_funcs[] = {
    {"gnutls_record_recv", "enav_tls_read_enter", "enav_tls_compat_gnutls_read", ARGS_CALL, true},
    {"gnutls_record_send", "enav_tls_write_enter", "enav_tls_compat_gnutls_write", ARGS_CALL, true},
    {"gnutls_handshake", "enav_tls_handshake_enter", "enav_tls_compat_gnutls_handshake",
     ENAV_TLS_ARG_RDI, true},
    {"gnutls_deinit", "enav_tls_free_enter", "enav_tls_free_enter", ENAV_TLS_ARG_RDI, false},
};

#define MAX_LIB_FUNCS 6

/* Attach one function's probes; *stepped counts those on an instruction
 * the kernel must single-step. */
static int attach_func(struct enav_tls_attach *t, struct target *tg, const char *path,
		       const struct lib_func *lf, const struct enav_tls_func_code *fc,
		       uint64_t cookie, uint32_t *stepped)
{
	/* A kernel without attach cookies refuses a link that sets one: the
	 * compat programs carry the library in their names instead. */
	const char *enter = t->cfg.compat ? lf->enter_compat : lf->enter;
	const char *ret_prog = t->cfg.compat ? "enav_tls_compat_return" : "enav_tls_return";
	if (t->cfg.compat)
		cookie = 0;
	uint64_t entry = 0, ret = 0;
	bool first_emulated = fc->code && enav_tls_starts_emulated(fc->code, fc->len);
	bool have_entry = fc->code && !first_emulated &&
			  enav_tls_entry_site(fc->code, fc->len, fc->vaddr, lf->args, &entry) == 0;
	bool have_ret = lf->returns && have_entry &&
			enav_tls_return_site(fc->code, fc->len, fc->vaddr, &ret) == 0;
	if (have_entry && (have_ret || !lf->returns)) {
		uint64_t base = fc->file_offset - fc->vaddr;
		if (enav_tls_add_link(tg, enter, t->obj, path, entry + base, false, cookie))
			return -1;
		return lf->returns ? enav_tls_add_link(tg, ret_prog, t->obj, path, ret + base,
						       false, cookie)
				   : 0;
	}
	/* The first byte, from the symbol table read through the same
	 * descriptor: an emulated instruction there costs as little. */
	if (!fc->found) {
		errno = ENOENT; /* "No such file or directory": the symbol */
		return -1;
	}
	if (enav_tls_add_link(tg, enter, t->obj, path, fc->file_offset, false, cookie))
		return -1;
	*stepped += first_emulated ? 0 : lf->returns ? 2 : 1;
	if (!lf->returns)
		return 0;
	return enav_tls_add_link(tg, ret_prog, t->obj, path, fc->file_offset, true, cookie);
}

/* The first refusal of a file by a cap is logged and counted; it is tried
 * again at every scan, so it is probed once room is made. */
static bool first_cap_refusal(struct enav_tls_attach *t, dev_t dev, ino_t ino)
{
	uint64_t v, key = file_key(dev, ino);
	if (enav_u64map_get(&t->capped, key, &v))
		return false;
	if (enav_u64map_put(&t->capped, key, 1) != 0) {
		enav_u64map_clear(&t->capped);
		enav_u64map_put(&t->capped, key, 1);
	}
	t->cap_refusals++;
	return true;
}

static struct target *new_target(struct enav_tls_attach *t, int library, const char *path,
				 dev_t dev, ino_t ino, uint32_t probes)
{
	if (t->n_probes + probes > t->cfg.max_probes) {
		if (first_cap_refusal(t, dev, ino))
			enav_warn("tls: %s not probed: %u uprobes would exceed "
				  "sources.network.tls.max_probes (%u)",
				  path, probes, t->cfg.max_probes);
		return NULL;
	}
	for (uint32_t i = 0; i < t->cfg.max_binaries; i++) {
		struct target *tg = &t->targets[i];
		if (tg->used)
			continue;
		tg->links = calloc(probes, sizeof(*tg->links));
		if (!tg->links)
			return NULL;
		tg->used = true;
		tg->seen = true;
		tg->library = library;
		tg->dev = dev;
		tg->ino = ino;
		snprintf(tg->path, sizeof(tg->path), "%s", path);
		return tg;
	}
	if (first_cap_refusal(t, dev, ino))
		enav_warn("tls: %s not probed: sources.network.tls.max_binaries (%u) files are "
			  "probed already",
			  path, t->cfg.max_binaries);
	return NULL;
}

/* Called with t->lock held. */
static void attach_failed(struct enav_tls_attach *t, struct target *tg, const char *what, int e)
{
	t->failed_total[tg->library]++;
	enav_warn("tls: cannot probe %s in %s: %s; it stays unprobed", what, tg->path, strerror(e));
	for (uint32_t i = 0; i < tg->n_links; i++)
		bpf_link__destroy(tg->links[i]);
	free(tg->links);
	dev_t dev = tg->dev;
	ino_t ino = tg->ino;
	memset(tg, 0, sizeof(*tg));
	enav_tls_reject(t, dev, ino);
}

/* After the probes of tg were attached (rc 0) or one failed (what): the
 * counters and the slot, under the lock. */
void enav_tls_publish(struct enav_tls_attach *t, struct target *tg, int rc, const char *what)
{
	int e = errno;
	pthread_mutex_lock(&t->lock);
	if (rc) {
		attach_failed(t, tg, what, e);
	} else {
		tg->live = true;
		t->n_probes += tg->n_links;
		t->n_stepped += tg->stepped;
		t->attached_total[tg->library]++;
	}
	pthread_mutex_unlock(&t->lock);
}

/* A slot for a new file, under the lock (the caps are checked there). */
struct target *enav_tls_reserve(struct enav_tls_attach *t, int library, const char *shown,
				dev_t dev, ino_t ino, uint32_t probes)
{
	pthread_mutex_lock(&t->lock);
	struct target *tg = new_target(t, library, shown, dev, ino, probes);
	pthread_mutex_unlock(&t->lock);
	return tg;
}

static const char *refusal_name(int r)
{
	return r == REFUSED_BUDGET ? "budget"
				   : enav_tenant_refusal_name((enum enav_tenant_refusal)r);
}

/* A file refused before any probe: counted by reason, and remembered so it
 * is not read again (unless it was only gone: the next process may map
 * it), by inode or by mapping (mapping_key). */
void enav_tls_file_refused(struct enav_tls_attach *t, const struct enav_tls_candidate *c,
			   uint32_t pid, int reason)
{
	pthread_mutex_lock(&t->lock);
	t->files_refused[reason]++;
	/* Too large, over budget: the inode's own; the rest: the path's. */
	if (reason == ENAV_TENANT_TOO_LARGE || reason == REFUSED_BUDGET)
		enav_tls_reject(t, (dev_t)c->dev, (ino_t)c->ino);
	else if (reason != ENAV_TENANT_GONE)
		reject_key(t, mapping_key(c, pid));
	pthread_mutex_unlock(&t->lock);
	if (reason != ENAV_TENANT_GONE)
		enav_warn("tls: %s (pid %u) not probed: %s (%s)", c->path, pid,
			  reason == REFUSED_BUDGET ? "its analysis ran out of the per-file read "
						     "budget (max_file_bytes, max_file_ms)"
						   : "the file is not the one the process maps, "
						     "or not one to read",
			  refusal_name(reason));
}

static void attach_library(struct enav_tls_attach *t, int fd, struct enav_tenant_budget *b,
			   const struct enav_tls_candidate *c, uint32_t pid)
{
	int library = c->library;
	bool openssl = library == ENAV_TLS_LIB_OPENSSL;
	const struct lib_func *funcs = openssl ? openssl_funcs : gnutls_funcs;
	size_t n = openssl ? sizeof(openssl_funcs) / sizeof(openssl_funcs[0])
			   : sizeof(gnutls_funcs) / sizeof(gnutls_funcs[0]);
	uint32_t links = 0;
	const char *names[MAX_LIB_FUNCS];
	for (size_t i = 0; i < n; i++) {
		names[i] = funcs[i].func;
		links += funcs[i].returns ? 2 : 1;
	}
	/* The file's work first, with no lock held. */
	struct enav_tls_func_code code[MAX_LIB_FUNCS];
	enav_tls_read_functions(fd, names, n, code, b);
	if (b->exhausted) {
		for (size_t i = 0; i < n; i++)
			free(code[i].code);
		enav_tls_file_refused(t, c, pid, REFUSED_BUDGET);
		return;
	}
	struct target *tg =
	    enav_tls_reserve(t, library, c->path, (dev_t)c->dev, (ino_t)c->ino, links);
	uint32_t stepped = 0;
	size_t failed = n;
	int e = 0;
	char fd_path[32];
	enav_tenant_fd_path(fd, fd_path);
	for (size_t i = 0; tg && i < n && failed == n; i++)
		if (attach_func(t, tg, fd_path, &funcs[i], &code[i], (uint64_t)library, &stepped)) {
			failed = i;
			e = errno;
		}
	for (size_t i = 0; i < n; i++)
		free(code[i].code);
	if (!tg)
		return;
	tg->stepped = stepped;
	errno = e;
	enav_tls_publish(t, tg, failed < n, failed < n ? funcs[failed].func : NULL);
	if (failed == n)
		enav_info("tls: probing %s (%s, %u uprobes, %u on an instruction the kernel "
			  "single-steps)",
			  c->path, enav_tls_lib_name(library), tg->n_links, stepped);
}

/*
 * A file some process maps or runs: attach if it is new and probeable.
 * Called with no lock held: the lock is taken to look the file up, and
 * again to publish, never while the tenant's file is opened or read.
 */
static void consider(struct enav_tls_attach *t, uint32_t pid, const struct enav_tls_candidate *c)
{
	dev_t dev = (dev_t)c->dev;
	ino_t ino = (ino_t)c->ino;
	pthread_mutex_lock(&t->lock);
	struct target *tg = find_target(t, dev, ino);
	if (tg)
		tg->seen = true;
	bool skip = tg || is_rejected(t, file_key(dev, ino)) || is_rejected(t, mapping_key(c, pid));
	pthread_mutex_unlock(&t->lock);
	if (skip)
		return;
	/* Opened once, as the inode the maps line (or the exe's stat) names;
	 * everything below reads, and attaches, through this descriptor. */
	struct stat st;
	enum enav_tenant_refusal why = ENAV_TENANT_OK;
	int fd;
	if (c->library == ENAV_TLS_LIB_GO) {
		fd = enav_tenant_open_exe("/proc", pid, &st, &why);
		if (fd >= 0 && (st.st_dev != dev || st.st_ino != ino)) {
			close(fd); /* the process exec'd something else meanwhile */
			fd = -1;
			why = ENAV_TENANT_OTHER_INODE;
		}
	} else {
		struct enav_file_ident want = {c->dev, c->ino};
		fd = enav_tenant_open_mapped("/proc", pid, c->start, c->end, c->path, &want, &st,
					     &why);
	}
	if (fd >= 0 && (uint64_t)st.st_size > t->cfg.max_file_bytes) {
		close(fd);
		fd = -1;
		why = ENAV_TENANT_TOO_LARGE;
	}
	if (fd < 0) {
		enav_tls_file_refused(t, c, pid, why);
		return;
	}
	struct enav_tenant_budget b;
	enav_tenant_budget_init(&b, t->cfg.max_file_bytes, (uint64_t)t->cfg.max_file_ms * 1000000);
	if (c->library == ENAV_TLS_LIB_GO)
		enav_tls_attach_go(t, fd, &b, c, pid);
	else
		attach_library(t, fd, &b, c, pid);
	/* The uprobes hold the inode; the descriptor is not needed after. */
	close(fd);
}

struct maps_ctx {
	struct enav_tls_attach *t;
	uint32_t n;
	struct enav_tls_candidate c[MAPS_CANDIDATES];
};

static int on_maps_line(void *arg, const char *line, size_t len)
{
	struct maps_ctx *m = arg;
	struct enav_tls_candidate *c = &m->c[m->n];
	if (m->n == MAPS_CANDIDATES ||
	    !enav_tls_candidate_of_maps_line(line, len, m->t->cfg.openssl, m->t->cfg.gnutls, c))
		return 0;
	for (uint32_t i = 0; i < m->n; i++)
		if (m->c[i].dev == c->dev && m->c[i].ino == c->ino)
			return 0;
	m->n++;
	return 0;
}

/* One process: its TLS libraries and its executable.  No lock held. */
static void look_at_process(struct enav_tls_attach *t, uint32_t pid)
{
	char p[64];
	if (t->cfg.openssl || t->cfg.gnutls) {
		snprintf(p, sizeof(p), "/proc/%u/maps", pid);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			/* On the heap: the prober thread's stack stays small. */
			struct maps_ctx *m = calloc(1, sizeof(*m));
			if (m) {
				m->t = t;
				enav_read_lines(fd, 4096, MAPS_MAX_BYTES, on_maps_line, m);
				for (uint32_t i = 0; i < m->n; i++)
					consider(t, pid, &m->c[i]);
				free(m);
			}
			close(fd);
		}
	}
	if (t->cfg.go) {
		/* /proc/PID/exe is the kernel's link to the running inode: its
		 * stat is the identity, its text only the name shown. */
		snprintf(p, sizeof(p), "/proc/%u/exe", pid);
		struct stat st;
		struct enav_tls_candidate c = {.library = ENAV_TLS_LIB_GO};
		ssize_t n = readlink(p, c.path, sizeof(c.path) - 1);
		if (n <= 0 || stat(p, &st) != 0 || !S_ISREG(st.st_mode))
			return;
		c.path[n] = '\0';
		c.dev = st.st_dev;
		c.ino = st.st_ino;
		consider(t, pid, &c);
	}
}

static void full_scan(struct enav_tls_attach *t)
{
	pthread_mutex_lock(&t->lock);
	for (uint32_t i = 0; i < t->cfg.max_binaries; i++)
		t->targets[i].seen = false;
	pthread_mutex_unlock(&t->lock);
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		if (*end || pid == 0 || pid == t->cfg.self_pid)
			continue;
		look_at_process(t, (uint32_t)pid);
	}
	closedir(d);
	pthread_mutex_lock(&t->lock);
	for (uint32_t i = 0; i < t->cfg.max_binaries; i++)
		if (t->targets[i].used && !t->targets[i].seen)
			detach(t, &t->targets[i]);
	t->scans++;
	pthread_mutex_unlock(&t->lock);
}

/* Exec'd processes whose time has come, taken off the queue. */
static uint32_t due_execs(struct enav_tls_attach *t, uint64_t now, uint32_t *out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->queue_len;) {
		struct pending_exec *pe = &t->queue[i];
		if (pe->due_ns > now) {
			i++;
			continue;
		}
		out[n++] = pe->pid;
		if (++pe->tries < 2) {
			pe->due_ns = now + EXEC_RETRY_NS;
			i++;
		} else {
			*pe = t->queue[--t->queue_len];
		}
	}
	return n;
}

static void *attach_thread(void *arg)
{
	struct enav_tls_attach *t = arg;
	full_scan(t);
	uint64_t last_scan = enav_clock_mono_ns();
	uint32_t due[EXEC_QUEUE];
	pthread_mutex_lock(&t->queue_lock);
	while (!t->stopping) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&t->wake, &t->queue_lock, &ts);
		if (t->stopping)
			break;
		uint64_t now = enav_clock_mono_ns();
		uint32_t n = due_execs(t, now, due);
		pthread_mutex_unlock(&t->queue_lock);
		for (uint32_t i = 0; i < n; i++)
			look_at_process(t, due[i]);
		if (now - last_scan >= (uint64_t)t->cfg.scan_interval_ms * 1000000ull) {
			full_scan(t);
			last_scan = enav_clock_mono_ns();
		}
		pthread_mutex_lock(&t->queue_lock);
	}
	pthread_mutex_unlock(&t->queue_lock);
	return NULL;
}

void enav_tls_attach_notify_exec(void *attach, uint32_t pid)
{
	struct enav_tls_attach *t = attach;
	if (pthread_mutex_trylock(&t->queue_lock) != 0) {
		atomic_fetch_add(&t->exec_dropped, 1); /* the next full scan finds it */
		return;
	}
	if (t->queue_len < EXEC_QUEUE)
		t->queue[t->queue_len++] =
		    (struct pending_exec){pid, 0, enav_clock_mono_ns() + EXEC_DELAY_NS};
	else
		atomic_fetch_add(&t->exec_dropped, 1);
	pthread_mutex_unlock(&t->queue_lock);
}

struct enav_tls_attach *enav_tls_attach_start(struct bpf_object *obj,
					      const struct enav_tls_attach_config *cfg, char *err,
					      size_t errlen)
{
	struct enav_tls_attach *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cfg = *cfg;
	t->obj = obj;
	t->targets = calloc(cfg->max_binaries, sizeof(*t->targets));
	t->go_map_fd = bpf_map__fd(bpf_object__find_map_by_name(obj, "enav_go_tls_binaries"));
	t->counters_fd = bpf_map__fd(bpf_object__find_map_by_name(obj, "enav_tls_counters"));
	pthread_mutex_init(&t->lock, NULL);
	pthread_mutex_init(&t->queue_lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	if (!t->targets || enav_u64map_init(&t->rejected, REJECTED_MAX) != 0 ||
	    enav_u64map_init(&t->capped, REJECTED_MAX) != 0) {
		snprintf(err, errlen, "tls: out of memory");
		enav_tls_attach_stop(t);
		return NULL;
	}
	if (pthread_create(&t->thread, NULL, attach_thread, t) != 0) {
		snprintf(err, errlen, "tls: cannot start the prober thread");
		enav_tls_attach_stop(t);
		return NULL;
	}
	t->thread_started = true;
	return t;
}

void enav_tls_attach_stop(struct enav_tls_attach *t)
{
	if (!t)
		return;
	if (t->thread_started) {
		pthread_mutex_lock(&t->queue_lock);
		t->stopping = true;
		pthread_cond_signal(&t->wake);
		pthread_mutex_unlock(&t->queue_lock);
		pthread_join(t->thread, NULL);
	}
	for (uint32_t i = 0; t->targets && i < t->cfg.max_binaries; i++)
		if (t->targets[i].used) {
			for (uint32_t k = 0; k < t->targets[i].n_links; k++)
				bpf_link__destroy(t->targets[i].links[k]);
			free(t->targets[i].links);
		}
	free(t->targets);
	enav_u64map_destroy(&t->rejected);
	enav_u64map_destroy(&t->capped);
	pthread_mutex_destroy(&t->lock);
	pthread_mutex_destroy(&t->queue_lock);
	pthread_cond_destroy(&t->wake);
	free(t);
}

void enav_tls_attach_metrics(struct enav_tls_attach *t, struct enav_promtext *p)
{
	uint64_t kc[N_KERNEL_COUNTERS];
	enav_bpf_percpu_sums(t->counters_fd, N_KERNEL_COUNTERS, kc);
	enav_promtext_single_u64(p, "enav_tls_calls_total", "counter",
				 "TLS reads and writes whose plaintext was emitted.", kc[0]);
	enav_promtext_family(p, "enav_tls_dropped_total", "counter",
			     "TLS calls not followed, by reason (no_socket: no socket was ever "
			     "seen under the session; not_tcp_conn: a Go connection not over "
			     "*net.TCPConn).");
	for (uint32_t k = 1; k < N_KERNEL_COUNTERS; k++) {
		const char *l[] = {"reason", kernel_reasons[k]};
		enav_promtext_sample_u64(p, "enav_tls_dropped_total", l, 1, kc[k]);
	}
	pthread_mutex_lock(&t->lock);
	enav_promtext_family(p, "enav_tls_probed_binary", "gauge",
			     "Files whose TLS functions are probed now (1 per file).");
	for (uint32_t i = 0; i < t->cfg.max_binaries; i++) {
		const struct target *tg = &t->targets[i];
		if (!tg->live)
			continue;
		const char *l[] = {"library", enav_tls_lib_name(tg->library), "binary", tg->path};
		enav_promtext_sample_u64(p, "enav_tls_probed_binary", l, 2, 1);
	}
	struct {
		const char *name, *help;
		const uint64_t *v;
	} per_lib[] = {
	    {"enav_tls_attached_total", "Files probed, by TLS library.", t->attached_total},
	    {"enav_tls_detached_total", "Files unprobed after no process mapped them.",
	     t->detached_total},
	    {"enav_tls_refused_total",
	     "Binaries using TLS that were refused (stripped, unknown layout), by library.",
	     t->refused_total},
	    {"enav_tls_attach_failures_total", "Files whose uprobes the kernel refused.",
	     t->failed_total},
	};
	for (size_t f = 0; f < sizeof(per_lib) / sizeof(per_lib[0]); f++) {
		enav_promtext_family(p, per_lib[f].name, "counter", per_lib[f].help);
		for (int lib = ENAV_TLS_LIB_OPENSSL; lib < ENAV_TLS_LIB__COUNT; lib++) {
			const char *l[] = {"library", enav_tls_lib_name(lib)};
			enav_promtext_sample_u64(p, per_lib[f].name, l, 1, per_lib[f].v[lib]);
		}
	}
	enav_promtext_family(p, "enav_tls_files_refused_total", "counter",
			     "Files a process maps or runs that were not read or not probed, by "
			     "reason (not_regular: a FIFO, device, socket or FUSE file; "
			     "other_inode: not the inode the maps line names; unsafe_lookup: its "
			     "path leaves the process's root, or no openat2; too_large: over "
			     "max_file_bytes; budget: its analysis ran out of max_file_bytes or "
			     "max_file_ms; gone: the process or file went away).");
	for (int r = 1; r < N_REFUSALS; r++) {
		const char *l[] = {"reason", refusal_name(r)};
		enav_promtext_sample_u64(p, "enav_tls_files_refused_total", l, 1,
					 t->files_refused[r]);
	}
	enav_promtext_single_u64(p, "enav_tls_uprobes", "gauge", "Uprobes attached now.",
				 t->n_probes);
	enav_promtext_single_u64(
	    p, "enav_tls_uprobes_single_stepped", "gauge",
	    "Uprobes attached now on an instruction the kernel must single-step "
	    "(a second trap per hit, the expensive kind; the others sit on "
	    "instructions it emulates).",
	    t->n_stepped);
	enav_promtext_single_u64(p, "enav_tls_cap_refusals_total", "counter",
				 "Files not probed because max_binaries or max_probes was reached.",
				 t->cap_refusals);
	enav_promtext_single_u64(p, "enav_tls_exec_dropped_total", "counter",
				 "Exec notifications dropped (busy or queue full); the next full "
				 "scan covers them.",
				 atomic_load(&t->exec_dropped));
	enav_promtext_single_u64(p, "enav_tls_scans_total", "counter",
				 "Full scans of /proc for TLS libraries and Go binaries.",
				 t->scans);
	pthread_mutex_unlock(&t->lock);
}
