/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Opens of watched files.  The watch list (sources.file_open.watch_paths:
 * paths or glob patterns, or the built-in list of well-known secrets) is
 * resolved to (device, inode) pairs here, on the capture thread, at start
 * and every rescan_interval_ms; only those numbers go to the kernel.  A
 * rescan follows files that are replaced (a rotated service-account token is
 * a new inode behind the same path) and forgets files that are gone.  At
 * most max_watched_files are watched; what the cap leaves out is counted.
 * Paths resolve inside sources.file_open.host_root (the node's root
 * filesystem mounted into the agent's container), with openat2
 * RESOLVE_IN_ROOT so that an absolute symlink on the node (/var/run -> /run)
 * stays on the node instead of landing in the container.
 */
#include "features/security/file_open_source.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <glob.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "file_open_perf.skel.h"
#include "file_open_ringbuf.skel.h"
#include "runtime/bpf_source.h"
#include "features/security/security_decode.h"
#include "platform/tracefs.h"

ENAV_SKEL_OPS(file_open_ringbuf);
ENAV_SKEL_OPS(file_open_perf);

/* Files whose opening is worth knowing about on any node. */
static const char *const default_watch_paths[] = {
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/ssh/ssh_host_*_key",
    "/root/.ssh/id_*",
    "/etc/kubernetes/admin.conf",
    "/etc/kubernetes/pki/*.key",
    "/var/run/secrets/kubernetes.io/serviceaccount/token",
    /* Every pod's projected service-account token, as the kubelet mounts it. */
    "/var/lib/kubelet/pods/*/volumes/kubernetes.io~projected/*/token",
};

struct watch {
	bool used, seen;
	uint64_t dev, ino;
	char path[ENAV_FILE_PATH_MAX];
};

struct inode_key {
	uint64_t dev, ino;
};

struct file_open_source {
	struct enav_bpf_source bpf;
	int root_fd; /* sources.file_open.host_root, or "/" */
	int map_fd;
	int timer_fd;
	uint32_t max;
	struct watch *watches; /* max slots; a slot's index is its watch id */
	const char *patterns[ENAV_CONFIG_LIST_MAX];
	size_t n_patterns;
	_Atomic uint64_t watched;      /* gauge */
	_Atomic uint64_t over_cap;     /* files found beyond max_watched_files, last rescan */
	_Atomic uint64_t rescans;      /* counter */
	_Atomic uint64_t map_errors;   /* kernel map writes that failed */
	_Atomic uint64_t stale_events; /* events whose watch was replaced before they were read */
};

uint64_t enav_kernel_dev(uint64_t st_dev)
{
	return ((uint64_t)major(st_dev) << 20) | (uint64_t)minor(st_dev);
}

const char *enav_open_access(uint32_t flags)
{
	switch (flags & O_ACCMODE) {
	case O_WRONLY:
		return "write";
	case O_RDWR:
		return "read_write";
	default:
		return "read";
	}
}

/* glob(3)'s directory callbacks take no context: the root of the rescan in
 * progress (rescans run on the capture thread only). */
static _Thread_local int rescan_root_fd = -1;

static int open_in_root(const char *path, int flags)
{
	struct open_how how = {.flags = (uint64_t)(flags | O_CLOEXEC),
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
	const char *rel = path;
	while (*rel == '/')
		rel++;
	return (int)syscall(SYS_openat2, rescan_root_fd, *rel ? rel : ".", &how, sizeof(how));
}

static void *root_opendir(const char *path)
{
	int fd = open_in_root(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return NULL;
	DIR *d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

static struct dirent *root_readdir(void *d)
{
	return readdir(d);
}

static void root_closedir(void *d)
{
	closedir(d);
}

static int stat_in_root(const char *path, struct stat *st, int extra_flags)
{
	int fd = open_in_root(path, O_PATH | extra_flags);
	if (fd < 0)
		return -1;
	int rc = fstat(fd, st);
	close(fd);
	return rc;
}

static int root_stat(const char *path, struct stat *st)
{
	return stat_in_root(path, st, 0);
}

static int root_lstat(const char *path, struct stat *st)
{
	return stat_in_root(path, st, O_NOFOLLOW);
}

static struct watch *find_watch(struct file_open_source *src, uint64_t dev, uint64_t ino)
{
	for (uint32_t i = 0; i < src->max; i++)
		if (src->watches[i].used && src->watches[i].dev == dev &&
		    src->watches[i].ino == ino)
			return &src->watches[i];
	return NULL;
}

static void add_file(struct file_open_source *src, const char *path, uint64_t *over)
{
	struct stat st;
	/* stat, not lstat: a token is a symlink into the kubelet's ..data. */
	if (root_stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return;
	uint64_t dev = enav_kernel_dev(st.st_dev);
	struct watch *w = find_watch(src, dev, st.st_ino);
	if (w) {
		w->seen = true;
		return;
	}
	for (uint32_t i = 0; i < src->max; i++) {
		w = &src->watches[i];
		if (w->used)
			continue;
		struct inode_key key = {dev, st.st_ino};
		if (bpf_map_update_elem(src->map_fd, &key, &i, BPF_ANY) != 0) {
			atomic_fetch_add(&src->map_errors, 1);
			return;
		}
		w->used = w->seen = true;
		w->dev = dev;
		w->ino = st.st_ino;
		snprintf(w->path, sizeof(w->path), "%s", path);
		enav_debug("file_open: watching %s (device %llu, inode %llu)", path,
			   (unsigned long long)dev, (unsigned long long)st.st_ino);
		return;
	}
	(*over)++;
}

static void rescan(struct file_open_source *src)
{
	for (uint32_t i = 0; i < src->max; i++)
		src->watches[i].seen = false;
	uint64_t over = 0;
	rescan_root_fd = src->root_fd;
	for (size_t p = 0; p < src->n_patterns; p++) {
		glob_t g = {.gl_opendir = root_opendir,
			    .gl_readdir = root_readdir,
			    .gl_closedir = root_closedir,
			    .gl_stat = root_stat,
			    .gl_lstat = root_lstat};
		int rc = glob(src->patterns[p], GLOB_NOSORT | GLOB_ALTDIRFUNC, NULL, &g);
		if (rc == 0)
			for (size_t k = 0; k < g.gl_pathc; k++)
				add_file(src, g.gl_pathv[k], &over);
		if (rc == 0 || rc == GLOB_NOMATCH) /* nothing matches (yet): not an error */
			globfree(&g);
	}
	rescan_root_fd = -1;
	uint64_t n = 0;
	for (uint32_t i = 0; i < src->max; i++) {
		struct watch *w = &src->watches[i];
		if (w->used && !w->seen) {
			struct inode_key key = {w->dev, w->ino};
			bpf_map_delete_elem(src->map_fd, &key);
			w->used = false;
		}
		n += w->used;
	}
	if (over && !atomic_load(&src->over_cap))
		enav_warn("file_open: %llu watched files left out: over "
			  "sources.file_open.max_watched_files (%u)",
			  (unsigned long long)over, src->max);
	atomic_store(&src->over_cap, over);
	atomic_store(&src->watched, n);
	atomic_fetch_add(&src->rescans, 1);
}

static int on_timer(void *arg)
{
	struct file_open_source *src = arg;
	/* Called every capture-loop round: work only when the timer expired. */
	int fired = enav_timerfd_expired(src->timer_fd);
	if (fired <= 0)
		return fired;
	rescan(src);
	return 0;
}

static void on_event(void *ctx, const void *data, size_t size)
{
	struct file_open_source *src = ctx;
	struct enav_security_event ev;
	if (!enav_bpf_source_decode(&src->bpf, enav_security_decode, data, size, &ev))
		return;
	struct enav_signal *s = enav_bpf_source_task_signal(&src->bpf, ENAV_SIGNAL_FILE_OPEN,
							    &ev.hdr, &ev.file_open.task);
	if (!s)
		return;
	struct enav_file_signal *f = &s->file;
	f->dev = ev.file_open.dev;
	f->ino = ev.file_open.ino;
	f->open_flags = ev.file_open.open_flags;
	f->access = enav_open_access(ev.file_open.open_flags);
	uint32_t id = ev.file_open.watch_id;
	if (id < src->max && src->watches[id].used && src->watches[id].dev == f->dev &&
	    src->watches[id].ino == f->ino) {
		snprintf(f->path, sizeof(f->path), "%s", src->watches[id].path);
		f->has_path = true;
	} else {
		/* The slot was given to another file since: no guessed path. */
		atomic_fetch_add(&src->stale_events, 1);
		enav_signal_warn(s, "file.path", "watch_replaced_before_read");
	}
	enav_host_emit(src->bpf.host, s);
}

static void file_open_stop(void *state)
{
	struct file_open_source *src = state;
	if (!src)
		return;
	enav_bpf_source_close(&src->bpf);
	if (src->timer_fd >= 0)
		close(src->timer_fd);
	if (src->root_fd >= 0)
		close(src->root_fd);
	free(src->watches);
	free(src);
}

/* The open(2) family's exit tracepoints; a kernel may lack one (openat2
 * arrived in 5.6), and the source fails only when none attaches. */
static const struct enav_bpf_program_spec programs[] = {
    {.name = "enav_fopen_openat", .variant = ENAV_BPF_ANY_KERNEL, .hook_may_be_absent = true},
    {.name = "enav_fopen_openat2", .variant = ENAV_BPF_ANY_KERNEL, .hook_may_be_absent = true},
    {.name = "enav_fopen_open", .variant = ENAV_BPF_ANY_KERNEL, .hook_may_be_absent = true},
};

const struct enav_bpf_program_table enav_file_open_programs = {
    .source = "file_open",
    .programs = programs,
    .n_programs = ENAV_ARRAY_LEN(programs),
};

static int file_open_start(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	struct file_open_source *src = calloc(1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	*state = src;
	src->timer_fd = -1;
	const char *root = cfg->file_open.host_root[0] ? cfg->file_open.host_root : "/";
	src->root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (src->root_fd < 0) {
		snprintf(err, errlen, "sources.file_open.host_root: cannot open %s: %s", root,
			 strerror(errno));
		return -errno;
	}
	struct open_how how = {.flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT};
	int probe = (int)syscall(SYS_openat2, src->root_fd, ".", &how, sizeof(how));
	if (probe < 0) {
		snprintf(err, errlen,
			 "file_open: this kernel has no openat2 (RESOLVE_IN_ROOT), needed to "
			 "resolve watched paths: %s; set sources.file_open.enabled: false",
			 strerror(errno));
		return -errno;
	}
	close(probe);
	/* The kernel program reads the fd table through BTF-typed pointers
	 * (bpf_get_current_task_btf, 5.11; the bpf_rdonly_cast kfunc, 6.2). */
	struct btf *vmlinux = btf__load_vmlinux_btf();
	bool has_cast =
	    vmlinux && btf__find_by_name_kind(vmlinux, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
	btf__free(vmlinux);
	if (!has_cast) {
		snprintf(err, errlen,
			 "file_open: this kernel lacks the bpf_rdonly_cast kfunc (Linux 6.2) the "
			 "watched-file hook needs; set sources.file_open.enabled: false");
		return -ENOTSUP;
	}
	src->max = cfg->file_open.max_watched_files;
	src->watches = calloc(src->max, sizeof(*src->watches));
	if (!src->watches)
		return -ENOMEM;
	if (cfg->file_open.watch_paths.n) {
		for (uint32_t i = 0; i < cfg->file_open.watch_paths.n; i++)
			src->patterns[src->n_patterns++] = cfg->file_open.watch_paths.item[i];
	} else {
		for (size_t i = 0; i < sizeof(default_watch_paths) / sizeof(*default_watch_paths);
		     i++)
			src->patterns[src->n_patterns++] = default_watch_paths[i];
	}
	src->bpf.event_types = 1u << ENAV_EVENT_FILE_OPEN;
	enav_tracefs_ensure();
	src->bpf.programs = &enav_file_open_programs;
	int rc = enav_bpf_source_open(&src->bpf, a, "file_open", &file_open_ringbuf_ops,
				      &file_open_perf_ops, err, errlen);
	if (rc)
		return rc;
	struct bpf_map *m = bpf_object__find_map_by_name(src->bpf.obj, "enav_watched_files");
	bpf_map__set_max_entries(m, src->max);
	enav_bpf_source_rodata_u64(&src->bpf, "enav_wakeup_bytes", cfg->kernel.wakeup_bytes);
	enav_bpf_source_rodata_u32(&src->bpf, "enav_self_tgid", enav_host_self_pid(a));
	rc = enav_bpf_source_start(&src->bpf, on_event, src, err, errlen);
	if (rc || enav_host_load_only(a))
		return rc;
	if (src->bpf.n_links == 0) {
		/* Asked for explicitly (off by default): say so instead of
		 * running without the hooks that are its whole point. */
		snprintf(
		    err, errlen,
		    "file_open: no open(2) syscall tracepoint could be attached (tracefs "
		    "missing, or the kernel lacks them); set sources.file_open.enabled: false");
		return -ENOTSUP;
	}
	src->map_fd = bpf_map__fd(m);
	rescan(src);
	src->timer_fd = enav_timerfd_every(cfg->file_open.rescan_interval_ms);
	if (src->timer_fd < 0) {
		snprintf(err, errlen, "file_open: timerfd: %s", strerror(-src->timer_fd));
		return src->timer_fd;
	}
	rc = enav_host_watch(a, src->timer_fd, on_timer, src);
	if (rc) {
		snprintf(err, errlen, "file_open: too many watched descriptors");
		return rc;
	}
	enav_info("file_open: watching %llu files from %zu patterns",
		  (unsigned long long)atomic_load(&src->watched), src->n_patterns);
	return 0;
}

static void file_open_metrics(void *state, struct enav_promtext *p)
{
	struct file_open_source *src = state;
	enav_promtext_single_u64(p, "enav_file_open_hooks", "gauge",
				 "open(2)-family tracepoints attached for watched files.",
				 src->bpf.n_links);
	enav_promtext_single_u64(p, "enav_file_open_watched_files", "gauge",
				 "Files (device and inode) watched in the kernel.",
				 atomic_load(&src->watched));
	enav_promtext_single_u64(p, "enav_file_open_over_cap_files", "gauge",
				 "Files the last rescan found but left unwatched: over "
				 "sources.file_open.max_watched_files.",
				 atomic_load(&src->over_cap));
	enav_promtext_single_u64(p, "enav_file_open_rescans_total", "counter",
				 "Resolutions of sources.file_open.watch_paths.",
				 atomic_load(&src->rescans));
	enav_promtext_single_u64(p, "enav_file_open_map_errors_total", "counter",
				 "Watched files the kernel map refused.",
				 atomic_load(&src->map_errors));
	enav_promtext_single_u64(p, "enav_file_open_stale_events_total", "counter",
				 "Opens reported without a path: the watch was replaced before the "
				 "event was read.",
				 atomic_load(&src->stale_events));
}

bool enav_file_open_source_enabled(const struct enav_config *cfg)
{
	return cfg->file_open.enabled;
}

const struct enav_source_ops enav_file_open_source_ops = {
    .start = file_open_start,
    .stop = file_open_stop,
    .metrics = file_open_metrics,
};
