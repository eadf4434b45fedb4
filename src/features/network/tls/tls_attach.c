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
#include "runtime/bpf_source.h"
#include "features/network/tls/go_tls.h"
#include "features/network/tls/tls_sites.h"

#define EXEC_QUEUE     256	     /* exec'd pids awaiting a look */
#define EXEC_DELAY_NS  100000000ull  /* let the dynamic loader map the libraries */
#define EXEC_RETRY_NS  1000000000ull /* and look once more a second later */
#define MAPS_MAX_BYTES (8ull << 20)  /* of one /proc/PID/maps */
#define REJECTED_MAX   4096	     /* files known not to need probes */
#define PATH_CAP       512

/* Kernel counters (enum tls_counter in bpf/network/net_tls.bpf.h). */
static const char *const kernel_reasons[] = {"calls",	   "no_socket",	    "not_tcp_conn",
					     "calls_full", "sessions_full", "read_fault"};
#define N_KERNEL_COUNTERS (sizeof(kernel_reasons) / sizeof(kernel_reasons[0]))

struct target {
	bool used;
	bool seen; /* mapped by some process in the current full scan */
	int library;
	dev_t dev;
	ino_t ino;
	char path[PATH_CAP]; /* as the process names it (display, metrics label) */
	const char *offsets; /* Go: where the struct offsets came from */
	struct bpf_link **links;
	uint32_t n_links;
	uint32_t stepped; /* probes on an instruction the kernel single-steps */
};

struct pending_exec {
	uint32_t pid;
	uint8_t tries;
	uint64_t due_ns;
};

struct enav_tls_attach {
	struct enav_tls_attach_config cfg;
	struct bpf_object *obj;
	int go_map_fd, counters_fd;
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;	    /* targets and the counters below */
	pthread_mutex_t queue_lock; /* the exec queue, stopping: held only briefly */
	pthread_cond_t wake;
	bool stopping;
	struct target *targets;
	uint32_t n_probes, n_stepped;
	struct pending_exec queue[EXEC_QUEUE];
	uint32_t queue_len;
	struct enav_u64map rejected; /* hash(dev, ino) of files with nothing to probe */
	struct enav_u64map capped;   /* files refused by a cap: warned once, retried */
	uint64_t attached_total[ENAV_TLS_LIB__COUNT], detached_total[ENAV_TLS_LIB__COUNT];
	uint64_t refused_total[ENAV_TLS_LIB__COUNT], failed_total[ENAV_TLS_LIB__COUNT];
	uint64_t cap_refusals, scans;
	_Atomic uint64_t exec_dropped;
};

int enav_tls_library_of_path(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "libssl.so", 9) == 0)
		return ENAV_TLS_LIB_OPENSSL;
	if (strncmp(base, "libgnutls.so", 12) == 0)
		return ENAV_TLS_LIB_GNUTLS;
	return ENAV_TLS_LIB_NONE;
}

static const char *lib_name(int library)
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

static void reject(struct enav_tls_attach *t, dev_t dev, ino_t ino)
{
	if (enav_u64map_put(&t->rejected, file_key(dev, ino), 1) != 0) {
		/* Full: forget them all; they are looked at again, once. */
		enav_u64map_clear(&t->rejected);
		enav_u64map_put(&t->rejected, file_key(dev, ino), 1);
	}
}

static bool is_rejected(struct enav_tls_attach *t, dev_t dev, ino_t ino)
{
	uint64_t v;
	return enav_u64map_get(&t->rejected, file_key(dev, ino), &v);
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
	enav_info("tls: detached %s probes from %s (no process maps it)", lib_name(tg->library),
		  tg->path);
	memset(tg, 0, sizeof(*tg));
}

/* One uprobe; by symbol (libraries) or file offset (Go). */
static int add_link(struct target *tg, const char *prog_name, struct bpf_object *obj,
		    const char *path, const char *func, uint64_t offset, bool ret, uint64_t cookie)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, prog_name);
	if (!prog) {
		errno = ENOENT;
		return -1;
	}
	LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = ret, .func_name = func, .bpf_cookie = cookie);
	struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, -1, path, func ? 0 : offset, &o);
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
	unsigned args;
	bool returns;
};

#define ARGS_CALL (ENAV_TLS_ARG_RDI | ENAV_TLS_ARG_RSI)
#define ARGS_EX	  (ARGS_CALL | ENAV_TLS_ARG_RCX)

static const struct lib_func openssl_funcs[] = {
    {"SSL_read", "enav_tls_read_enter", ARGS_CALL, true},
    {"SSL_read_ex", "enav_tls_read_ex_enter", ARGS_EX, true},
    {"SSL_write", "enav_tls_write_enter", ARGS_CALL, true},
    {"SSL_write_ex", "enav_tls_write_ex_enter", ARGS_EX, true},
    {"SSL_do_handshake", "enav_tls_handshake_enter", ENAV_TLS_ARG_RDI, true},
    {"SSL_free", "enav_tls_free_enter", ENAV_TLS_ARG_RDI, false},
};

static const struct lib_func gnutls_funcs[] = {
    {"gnutls_record_recv", "enav_tls_read_enter", ARGS_CALL, true},
    {"gnutls_record_send", "enav_tls_write_enter", ARGS_CALL, true},
    {"gnutls_handshake", "enav_tls_handshake_enter", ENAV_TLS_ARG_RDI, true},
    {"gnutls_deinit", "enav_tls_free_enter", ENAV_TLS_ARG_RDI, false},
};

#define MAX_LIB_FUNCS 6

/* Attach one function's probes; *stepped counts those on an instruction
 * the kernel must single-step. */
static int attach_func(struct enav_tls_attach *t, struct target *tg, const char *path,
		       const struct lib_func *lf, const struct enav_tls_func_code *fc,
		       uint64_t cookie, uint32_t *stepped)
{
	uint64_t entry = 0, ret = 0;
	bool first_emulated = fc->code && enav_tls_starts_emulated(fc->code, fc->len);
	bool have_entry = fc->code && !first_emulated &&
			  enav_tls_entry_site(fc->code, fc->len, fc->vaddr, lf->args, &entry) == 0;
	bool have_ret = lf->returns && have_entry &&
			enav_tls_return_site(fc->code, fc->len, fc->vaddr, &ret) == 0;
	if (have_entry && (have_ret || !lf->returns)) {
		uint64_t base = fc->file_offset - fc->vaddr;
		if (add_link(tg, lf->enter, t->obj, path, NULL, entry + base, false, cookie))
			return -1;
		return lf->returns ? add_link(tg, "enav_tls_return", t->obj, path, NULL, ret + base,
					      false, cookie)
				   : 0;
	}
	/* The first byte: an emulated instruction there costs as little. */
	if (add_link(tg, lf->enter, t->obj, path, lf->func, 0, false, cookie))
		return -1;
	*stepped += first_emulated ? 0 : lf->returns ? 2 : 1;
	if (!lf->returns)
		return 0;
	return add_link(tg, "enav_tls_return", t->obj, path, lf->func, 0, true, cookie);
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

static void attach_failed(struct enav_tls_attach *t, struct target *tg, const char *what)
{
	int e = errno;
	t->failed_total[tg->library]++;
	enav_warn("tls: cannot probe %s in %s: %s; it stays unprobed", what, tg->path, strerror(e));
	for (uint32_t i = 0; i < tg->n_links; i++)
		bpf_link__destroy(tg->links[i]);
	free(tg->links);
	dev_t dev = tg->dev;
	ino_t ino = tg->ino;
	memset(tg, 0, sizeof(*tg));
	reject(t, dev, ino);
}

static void attach_library(struct enav_tls_attach *t, int library, const char *open_path,
			   const char *shown, dev_t dev, ino_t ino)
{
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
	struct target *tg = new_target(t, library, shown, dev, ino, links);
	if (!tg)
		return;
	/* Unreadable code only costs the cheap sites: the classic probes
	 * attach by name as before. */
	struct enav_tls_func_code code[MAX_LIB_FUNCS];
	enav_tls_read_functions(open_path, names, n, code);
	uint32_t stepped = 0;
	size_t failed = n;
	for (size_t i = 0; i < n && failed == n; i++)
		if (attach_func(t, tg, open_path, &funcs[i], &code[i], (uint64_t)library, &stepped))
			failed = i;
	for (size_t i = 0; i < n; i++)
		free(code[i].code);
	if (failed < n) {
		attach_failed(t, tg, funcs[failed].func);
		return;
	}
	tg->stepped = stepped;
	t->n_probes += tg->n_links;
	t->n_stepped += stepped;
	t->attached_total[library]++;
	enav_info("tls: probing %s (%s, %u uprobes, %u on an instruction the kernel single-steps)",
		  shown, lib_name(library), tg->n_links, stepped);
}

/* Go's probes sit where Go's code dictates: count the ones the kernel
 * single-steps (every RET; an entry unless it is emulated). */
static bool stepped_at(const char *path, uint64_t offset)
{
	uint8_t b[6] = {0}; /* the longest emulated form */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got = fd >= 0 ? pread(fd, b, sizeof(b), (off_t)offset) : -1;
	if (fd >= 0)
		close(fd);
	return got <= 0 || !enav_tls_starts_emulated(b, (size_t)got);
}

/* enum tls_op in bpf/network/net_tls.bpf.h */
#define GO_OP_READ	1
#define GO_OP_WRITE	2
#define GO_OP_HANDSHAKE 3
/* The probe is on the stack-bound check's JBE (GO_AT_CHECK in net_tls.bpf.h). */
#define GO_AT_CHECK 0x10

/* Where (*Conn).Read's or Write's entry probe goes: the body's first
 * instruction when the kernel emulates it, else the JBE before it, which it
 * always emulates (the program then counts only the fall-through). */
static void go_entry_site(const char *path, const struct enav_go_tls_func *f, uint64_t *vaddr,
			  uint64_t *offset, uint64_t *flags)
{
	bool at_check = stepped_at(path, f->body_offset);
	*vaddr = at_check ? f->check_vaddr : f->body_vaddr;
	*offset = at_check ? f->check_offset : f->body_offset;
	*flags = at_check ? GO_AT_CHECK : 0;
}

static void attach_go(struct enav_tls_attach *t, const char *open_path, const char *shown,
		      dev_t dev, ino_t ino)
{
	struct enav_go_tls_plan plan;
	char err[256];
	enum enav_go_tls_status st = enav_go_tls_analyze(open_path, &plan, err, sizeof(err));
	if (st == ENAV_GO_TLS_NOT_GO || st == ENAV_GO_TLS_NO_TLS) {
		reject(t, dev, ino);
		return;
	}
	if (st != ENAV_GO_TLS_OK) {
		reject(t, dev, ino);
		t->refused_total[ENAV_TLS_LIB_GO]++;
		enav_warn("tls: Go binary %s not probed: %s", shown, err);
		return;
	}
	uint32_t probes = 2 + plan.read.n_returns + (plan.client_handshake ? 1 : 0) +
			  (plan.server_handshake ? 1 : 0);
	struct target *tg = new_target(t, ENAV_TLS_LIB_GO, shown, dev, ino, probes);
	if (!tg)
		return;
	tg->offsets = plan.offsets_source;
	uint32_t idx = (uint32_t)(tg - t->targets);
	uint64_t read_at, read_off, read_flags, write_at, write_off, write_flags;
	go_entry_site(open_path, &plan.read, &read_at, &read_off, &read_flags);
	go_entry_site(open_path, &plan.write, &write_at, &write_off, &write_flags);
	/* Layout of struct go_tls_binary (bpf/network/net_tls.bpf.h). */
	struct {
		uint64_t itab, read_entry, write_entry;
		uint32_t conn_iface, tcpconn_fd, netfd_sysfd, pad;
	} bin = {plan.itab_tcpconn, read_at,	      write_at, plan.conn_iface,
		 plan.tcpconn_fd,   plan.netfd_sysfd, 0};
	if (bpf_map_update_elem(t->go_map_fd, &idx, &bin, BPF_ANY)) {
		attach_failed(t, tg, "the binary table");
		return;
	}
	uint64_t base = (uint64_t)idx << 8;
	/* At or past the stack-bound check: an entry probe sees a call again
	 * each time the runtime restarts it (enav_go_tls_find_body). */
	if (add_link(tg, "enav_go_tls_enter", t->obj, open_path, NULL, read_off, false,
		     base | read_flags | GO_OP_READ) ||
	    add_link(tg, "enav_go_tls_enter", t->obj, open_path, NULL, write_off, false,
		     base | write_flags | GO_OP_WRITE)) {
		attach_failed(t, tg, "(*Conn).Read/Write");
		return;
	}
	/* Writes are emitted at entry (bpf/network/net_tls.bpf.h): only Read returns. */
	for (uint32_t i = 0; i < plan.read.n_returns; i++)
		if (add_link(tg, "enav_go_tls_return", t->obj, open_path, NULL,
			     plan.read.return_offsets[i], false, base)) {
			attach_failed(t, tg, "a return instruction");
			return;
		}
	/* A handshake at its JBE when found (a restarted handshake would only
	 * reset the new session twice, but the first byte is single-stepped). */
	uint64_t hs[] = {plan.client_handshake, plan.server_handshake};
	uint64_t hs_check[] = {plan.client_handshake_check, plan.server_handshake_check};
	for (int i = 0; i < 2; i++) {
		uint64_t flags = hs[i] && hs_check[i] ? GO_AT_CHECK : 0;
		if (flags)
			hs[i] = hs_check[i];
		if (hs[i] && add_link(tg, "enav_go_tls_enter", t->obj, open_path, NULL, hs[i],
				      false, base | flags | GO_OP_HANDSHAKE)) {
			attach_failed(t, tg, "a handshake function");
			return;
		}
	}
	tg->stepped = plan.read.n_returns;
	uint64_t entries[] = {read_off, write_off, hs[0], hs[1]};
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (entries[i] && stepped_at(open_path, entries[i]))
			tg->stepped++;
	t->n_probes += tg->n_links;
	t->n_stepped += tg->stepped;
	t->attached_total[ENAV_TLS_LIB_GO]++;
	enav_info("tls: probing Go binary %s (%s, %u return instructions in (*Conn).Read, offsets "
		  "from %s, %u of %u uprobes on an instruction the kernel single-steps)",
		  shown, plan.go_version, plan.read.n_returns, plan.offsets_source, tg->stepped,
		  tg->n_links);
}

/* A file some process maps or runs: attach if it is new and probeable. */
static void consider(struct enav_tls_attach *t, int library, const char *open_path,
		     const char *shown, dev_t dev, ino_t ino)
{
	struct target *tg = find_target(t, dev, ino);
	if (tg) {
		tg->seen = true;
		return;
	}
	if (is_rejected(t, dev, ino))
		return;
	if (library == ENAV_TLS_LIB_GO)
		attach_go(t, open_path, shown, dev, ino);
	else
		attach_library(t, library, open_path, shown, dev, ino);
}

struct maps_ctx {
	struct enav_tls_attach *t;
	uint32_t pid;
};

static int on_maps_line(void *arg, const char *line, size_t len)
{
	struct maps_ctx *m = arg;
	struct enav_maps_line ml;
	if (enav_maps_parse_line(line, len, &ml) != 0 || !ml.path || ml.deleted || !ml.exec ||
	    ml.path_len >= PATH_CAP - 32 || ml.path[0] != '/')
		return 0;
	char path[PATH_CAP];
	memcpy(path, ml.path, ml.path_len);
	path[ml.path_len] = '\0';
	int library = enav_tls_library_of_path(path);
	if (library == ENAV_TLS_LIB_NONE ||
	    (library == ENAV_TLS_LIB_OPENSSL && !m->t->cfg.openssl) ||
	    (library == ENAV_TLS_LIB_GNUTLS && !m->t->cfg.gnutls))
		return 0;
	char open_path[PATH_CAP + 32];
	snprintf(open_path, sizeof(open_path), "/proc/%u/root%s", m->pid, path);
	consider(m->t, library, open_path, path, makedev(ml.dev_major, ml.dev_minor),
		 (ino_t)ml.inode);
	return 0;
}

static void look_at_process(struct enav_tls_attach *t, uint32_t pid)
{
	char p[64];
	if (t->cfg.openssl || t->cfg.gnutls) {
		snprintf(p, sizeof(p), "/proc/%u/maps", pid);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			struct maps_ctx m = {t, pid};
			enav_read_lines(fd, 4096, MAPS_MAX_BYTES, on_maps_line, &m);
			close(fd);
		}
	}
	if (t->cfg.go) {
		snprintf(p, sizeof(p), "/proc/%u/exe", pid);
		struct stat st;
		char exe[PATH_CAP];
		ssize_t n = readlink(p, exe, sizeof(exe) - 1);
		if (n <= 0 || stat(p, &st) != 0 || !S_ISREG(st.st_mode))
			return;
		exe[n] = '\0';
		consider(t, ENAV_TLS_LIB_GO, p, exe, st.st_dev, st.st_ino);
	}
}

static void full_scan(struct enav_tls_attach *t)
{
	for (uint32_t i = 0; i < t->cfg.max_binaries; i++)
		t->targets[i].seen = false;
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		if (*end || pid == 0 || pid == t->cfg.self_pid)
			continue;
		pthread_mutex_lock(&t->lock);
		look_at_process(t, (uint32_t)pid);
		pthread_mutex_unlock(&t->lock);
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
		pthread_mutex_lock(&t->lock);
		for (uint32_t i = 0; i < n; i++)
			look_at_process(t, due[i]);
		pthread_mutex_unlock(&t->lock);
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
		if (!tg->used)
			continue;
		const char *l[] = {"library", lib_name(tg->library), "binary", tg->path};
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
			const char *l[] = {"library", lib_name(lib)};
			enav_promtext_sample_u64(p, per_lib[f].name, l, 1, per_lib[f].v[lib]);
		}
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
