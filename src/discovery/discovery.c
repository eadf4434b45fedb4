/* SPDX-License-Identifier: Apache-2.0 */
#include "discovery/discovery.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "platform/u64map.h"
#include "discovery/capture_filter.h"
#include "discovery/cgroup_layout.h"
#include "discovery/selectors.h"
#include "discovery/snapshot_history.h"

#define MAX_DEPTH	  32 /* cgroup nesting walked; deeper directories are counted */
#define MEMBERS_SAMPLED	  8  /* member processes read for the hybrid proof */
#define WATCH_EVENTS	  (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR)
#define INOTIFY_BUF_BYTES 65536

struct cg {
	uint64_t id;
	char *path; /* relative to the cgroup2 root: "/a/b" */
	int wd;	    /* inotify watch, -1 when none */
	struct enav_cgroup_identity identity;
	bool capture;
	const char *reason;
	uint64_t seen;	      /* scan generation that last saw it */
	bool verdict_pending; /* decided, not yet written to the kernel */
	bool used;
};

enum drop_reason { D_TABLE_FULL, D_TOO_DEEP, D_WATCH_LIMIT, D_INOTIFY_OVERFLOW, D__COUNT };
static const char *const drop_names[D__COUNT] = {
    [D_TABLE_FULL] = "cgroup_table_full",
    [D_TOO_DEEP] = "too_deep",
    [D_WATCH_LIMIT] = "watch_limit",
    [D_INOTIFY_OVERFLOW] = "inotify_overflow",
};

struct enav_discovery {
	struct enav_host *host;
	const struct enav_config *cfg;
	struct enav_capture_filter filter;
	bool filter_open;
	struct enav_cgroup_mounts mounts;
	struct enav_selector_set selectors;
	enum enav_capture_mode kernel_mode;
	bool filtering;

	/* Discovery-thread state. */
	struct cg *cgs; /* slots; free ones have used == false */
	uint32_t cap;
	uint32_t free_hint;	  /* lowest slot that may be free */
	struct enav_u64map by_id; /* cgroup id -> slot */
	struct enav_u64map by_wd; /* watch descriptor -> slot */
	uint32_t n_watches;
	uint64_t scan_gen;
	int inotify_fd, timer_fd, wake_fd, epfd;
	pthread_t thread;
	bool thread_started;
	_Atomic bool stop;
	struct enav_k8s *k8s;
	struct enav_k8s_view *view; /* the view decisions are made with */

	/* Published snapshots. */
	pthread_mutex_t snap_lock;
	struct enav_snapshot_history history;
	uint64_t generation;

	/* Self-accounting (read by the metrics thread). */
	_Atomic uint64_t drops[D__COUNT];
	_Atomic uint64_t rescans, inotify_events, publishes, unchanged, verdict_changes;
	_Atomic uint64_t n_cgroups, n_captured;
	_Atomic uint64_t last_publish_ns;
};

/* ---- snapshots ----------------------------------------------------------- */

void enav_snapshot_release(struct enav_snapshot *s)
{
	if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	if (s->k8s)
		enav_k8s_view_release(s->k8s);
	free(s->entries);
	free(s->arena);
	free(s);
}

void enav_snapshot_unpin(void *snapshot)
{
	enav_snapshot_release(snapshot);
}

void enav_discovery_acquire(struct enav_discovery *d, struct enav_snapshot **cur,
			    struct enav_snapshot **prev)
{
	pthread_mutex_lock(&d->snap_lock);
	*cur = d->history.n > 0 ? d->history.held[0] : NULL;
	*prev = d->history.n > 1 ? d->history.held[1] : NULL;
	if (*cur)
		atomic_fetch_add(&(*cur)->refs, 1);
	if (*prev)
		atomic_fetch_add(&(*prev)->refs, 1);
	pthread_mutex_unlock(&d->snap_lock);
}

enum enav_governing enav_discovery_governing(struct enav_discovery *d, uint64_t time_unix_ns,
					     uint64_t id, struct enav_snapshot **snap,
					     const struct enav_snapshot_entry **entry)
{
	pthread_mutex_lock(&d->snap_lock);
	enum enav_governing g =
	    enav_snapshot_history_governing(&d->history, time_unix_ns, id, snap, entry);
	if (*snap)
		atomic_fetch_add(&(*snap)->refs, 1);
	pthread_mutex_unlock(&d->snap_lock);
	return g;
}

const struct enav_cgroup_mounts *enav_discovery_mounts(const struct enav_discovery *d)
{
	return &d->mounts;
}

const struct enav_snapshot_entry *enav_snapshot_find(const struct enav_snapshot *s, uint64_t id)
{
	uint32_t lo = 0, hi = s ? s->n : 0;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (s->entries[mid].id < id)
			lo = mid + 1;
		else if (s->entries[mid].id > id)
			hi = mid;
		else
			return &s->entries[mid];
	}
	return NULL;
}

static int cmp_entry(const void *a, const void *b)
{
	uint64_t x = ((const struct enav_snapshot_entry *)a)->id;
	uint64_t y = ((const struct enav_snapshot_entry *)b)->id;
	return x < y ? -1 : x > y;
}

/* Nothing attribution reads has changed since the newest snapshot (a rescan
 * that found nothing new): publishing again would only push an older
 * snapshot out of the history. */
static bool unchanged_since_newest(struct enav_discovery *d)
{
	const struct enav_snapshot *newest = d->history.n ? d->history.held[0] : NULL;
	if (!newest || newest->k8s != d->view)
		return false;
	uint32_t n = 0;
	for (uint32_t i = 0; i < d->cap; i++) {
		const struct cg *c = &d->cgs[i];
		if (!c->used)
			continue;
		const struct enav_snapshot_entry *e = enav_snapshot_find(newest, c->id);
		if (!e || e->capture != c->capture || e->reason != c->reason ||
		    strcmp(e->path, c->path) != 0)
			return false;
		n++;
	}
	return n == newest->n;
}

static void publish_snapshot(struct enav_discovery *d)
{
	if (unchanged_since_newest(d)) {
		atomic_fetch_add(&d->unchanged, 1);
		return;
	}
	struct enav_snapshot *s = calloc(1, sizeof(*s));
	if (!s)
		return;
	size_t n = 0, bytes = 0;
	for (uint32_t i = 0; i < d->cap; i++)
		if (d->cgs[i].used) {
			n++;
			bytes += strlen(d->cgs[i].path) + 1;
		}
	s->entries = calloc(n ? n : 1, sizeof(*s->entries));
	s->arena = malloc(bytes ? bytes : 1);
	if (!s->entries || !s->arena) {
		free(s->entries);
		free(s->arena);
		free(s);
		return;
	}
	atomic_init(&s->refs, 1);
	s->filtering = d->filtering;
	if (d->view) {
		atomic_fetch_add(&d->view->refs, 1);
		s->k8s = d->view;
	}
	char *w = s->arena;
	for (uint32_t i = 0; i < d->cap; i++) {
		const struct cg *c = &d->cgs[i];
		if (!c->used)
			continue;
		struct enav_snapshot_entry *e = &s->entries[s->n++];
		size_t len = strlen(c->path) + 1;
		memcpy(w, c->path, len);
		e->id = c->id;
		e->path = w;
		w += len;
		e->identity = c->identity;
		e->capture = c->capture;
		e->reason = c->reason;
		e->pod = s->k8s && c->identity.pod_uid[0]
			     ? enav_k8s_view_find_pod(s->k8s, c->identity.pod_uid)
			     : NULL;
	}
	qsort(s->entries, s->n, sizeof(*s->entries), cmp_entry);

	pthread_mutex_lock(&d->snap_lock);
	s->generation = ++d->generation;
	s->published_unix_ns = enav_clock_boot_to_unix_ns(enav_clock_boot_ns());
	enav_snapshot_history_push(&d->history, s);
	pthread_mutex_unlock(&d->snap_lock);
	atomic_fetch_add(&d->publishes, 1);
	atomic_store(&d->last_publish_ns, enav_clock_mono_ns());
}

/* Verdicts decided since the last publish, written once their snapshot is
 * held: an event that passes one is attributed by the snapshot that made it. */
static void write_verdicts(struct enav_discovery *d)
{
	bool unknown_captures = d->kernel_mode == ENAV_CAPTURE_UNKNOWN_CAPTURE;
	for (uint32_t i = 0; i < d->cap; i++) {
		struct cg *c = &d->cgs[i];
		if (!c->used || !c->verdict_pending)
			continue;
		c->verdict_pending = false;
		/* Write only what the control word does not already imply. */
		if (c->capture != unknown_captures)
			enav_capture_filter_set(&d->filter, c->id, c->capture);
		else
			enav_capture_filter_clear(&d->filter, c->id);
	}
}

static void publish(struct enav_discovery *d)
{
	publish_snapshot(d);
	write_verdicts(d);
}

/* ---- decisions ----------------------------------------------------------- */

static bool dir_exists(void *ctx, const char *abs)
{
	struct stat st;
	return stat(abs, &st) == 0 && S_ISDIR(st.st_mode);
}

static int read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

/* Hybrid proof for one cgroup: layout, then a sample of its members. */
static const char *hybrid_reason(struct enav_discovery *d, const struct cg *c)
{
	static struct enav_proc_cgroups members[MEMBERS_SAMPLED]; /* discovery thread only */
	size_t n = 0;
	char path[ENAV_CGROUP_MOUNT_PATH_MAX + ENAV_CGROUP_REL_PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s%s/cgroup.procs", d->mounts.v2_mount,
		 strcmp(c->path, "/") ? c->path : "");
	char procs[4096];
	int plen = read_small(path, procs, sizeof(procs));
	if (plen > 0) {
		/* A full buffer may end mid-pid: drop the partial last line. */
		if ((size_t)plen == sizeof(procs) - 1) {
			char *nl = strrchr(procs, '\n');
			if (nl)
				nl[1] = '\0';
		}
		char *save = NULL;
		for (char *t = strtok_r(procs, "\n", &save); t && n < MEMBERS_SAMPLED;
		     t = strtok_r(NULL, "\n", &save)) {
			char cgfile[64], text[8192];
			snprintf(cgfile, sizeof(cgfile), "/proc/%s/cgroup", t);
			int len = read_small(cgfile, text, sizeof(text));
			/* A member that exited meanwhile proves nothing either way; one
			 * whose file cannot be parsed fails the proof (an empty record
			 * lacks every hierarchy). */
			if (len <= 0)
				continue;
			if ((size_t)len == sizeof(text) - 1 ||
			    enav_cgroup_parse_proc(text, (size_t)len, &members[n]) != 0)
				memset(&members[n], 0, sizeof(members[n]));
			n++;
		}
	}
	const char *which;
	enum enav_hybrid_result r =
	    enav_hybrid_prove(&d->mounts, c->path, dir_exists, NULL, members, n, &which);
	return r == ENAV_HYBRID_PROVEN ? NULL : enav_hybrid_result_name(r);
}

static void decide(struct enav_discovery *d, struct cg *c)
{
	bool was_capture = c->capture;
	const char *was_reason = c->reason;
	if (!d->filtering) {
		c->capture = true;
		c->reason = "filter_disabled";
		return;
	}
	if (d->mounts.layout == ENAV_CGROUP_V1 || d->mounts.layout == ENAV_CGROUP_NONE) {
		c->capture = false;
		c->reason = "cgroup_v1_layout_unprovable";
	} else if (d->mounts.layout == ENAV_CGROUP_HYBRID && (c->reason = hybrid_reason(d, c))) {
		c->capture = false;
	} else {
		struct enav_workload w = {
		    .cgroup_path = c->path,
		    .identity = &c->identity,
		    .k8s = d->view,
		    .pod = d->view && c->identity.pod_uid[0]
			       ? enav_k8s_view_find_pod(d->view, c->identity.pod_uid)
			       : NULL,
		};
		enum enav_verdict_reason why;
		c->capture = enav_selectors_decide(&d->selectors, d->cfg->capture.mode, &w, &why);
		c->reason = enav_verdict_reason_name(why);
	}
	c->verdict_pending = true; /* written after the snapshot holding it: publish */
	if (was_capture != c->capture)
		atomic_fetch_add(&d->verdict_changes, 1);
	/* Report a denial by layout proof once per change of reason. */
	if (!c->capture && c->reason != was_reason && strncmp(c->reason, "hybrid_", 7) == 0)
		enav_warn("capture filter: denied cgroup %s: %s (cgroup2 path not proven against "
			  "its v1 controllers)",
			  c->path, c->reason);
}

/* ---- the cgroup table ---------------------------------------------------- */

static struct cg *find_by_id(struct enav_discovery *d, uint64_t id)
{
	uint64_t slot;
	return enav_u64map_get(&d->by_id, id, &slot) ? &d->cgs[slot] : NULL;
}

static void add_watch(struct enav_discovery *d, struct cg *c)
{
	if (!d->cfg->discovery.inotify || c->wd >= 0)
		return;
	if (d->n_watches >= d->cfg->discovery.max_watches) {
		atomic_fetch_add(&d->drops[D_WATCH_LIMIT], 1);
		return;
	}
	char abs[ENAV_CGROUP_MOUNT_PATH_MAX + ENAV_CGROUP_REL_PATH_MAX];
	snprintf(abs, sizeof(abs), "%s%s", d->mounts.v2_mount, strcmp(c->path, "/") ? c->path : "");
	int wd = inotify_add_watch(d->inotify_fd, abs, WATCH_EVENTS);
	if (wd < 0)
		return; /* gone already, or the kernel's own watch limit: rescan covers it */
	if (enav_u64map_put(&d->by_wd, (uint64_t)wd, (uint64_t)(c - d->cgs)) != 0) {
		inotify_rm_watch(d->inotify_fd, wd);
		atomic_fetch_add(&d->drops[D_WATCH_LIMIT], 1);
		return;
	}
	c->wd = wd;
	d->n_watches++;
}

static void remove_cg(struct enav_discovery *d, struct cg *c)
{
	if (c->wd >= 0) {
		inotify_rm_watch(d->inotify_fd, c->wd); /* fails harmlessly if already gone */
		enav_u64map_del(&d->by_wd, (uint64_t)c->wd);
		d->n_watches--;
	}
	enav_capture_filter_clear(&d->filter, c->id);
	enav_u64map_del(&d->by_id, c->id);
	if (c->capture)
		atomic_fetch_sub(&d->n_captured, 1);
	atomic_fetch_sub(&d->n_cgroups, 1);
	free(c->path);
	uint32_t slot = (uint32_t)(c - d->cgs);
	if (slot < d->free_hint)
		d->free_hint = slot;
	memset(c, 0, sizeof(*c));
}

/* Register (or refresh) the cgroup at rel; returns it, or NULL when dropped. */
static struct cg *visit(struct enav_discovery *d, const char *rel, uint64_t id)
{
	struct cg *c = find_by_id(d, id);
	if (!c) {
		uint32_t slot = d->free_hint;
		while (slot < d->cap && d->cgs[slot].used)
			slot++;
		d->free_hint = slot + 1;
		if (slot == d->cap || enav_u64map_put(&d->by_id, id, slot) != 0) {
			atomic_fetch_add(&d->drops[D_TABLE_FULL], 1);
			return NULL;
		}
		c = &d->cgs[slot];
		*c = (struct cg){.id = id, .wd = -1, .used = true, .capture = false};
		c->path = strdup(rel);
		if (!c->path) {
			enav_u64map_del(&d->by_id, id);
			c->used = false;
			return NULL;
		}
		enav_cgroup_identity_parse(rel, strlen(rel), &c->identity);
		atomic_fetch_add(&d->n_cgroups, 1);
	} else if (strcmp(c->path, rel) != 0) { /* renamed: follow the kernel */
		char *p = strdup(rel);
		if (p) {
			free(c->path);
			c->path = p;
			enav_cgroup_identity_parse(rel, strlen(rel), &c->identity);
		}
	}
	bool was = c->capture;
	decide(d, c);
	if (was != c->capture)
		atomic_fetch_add(&d->n_captured, c->capture ? 1 : (uint64_t)-1);
	c->seen = d->scan_gen;
	add_watch(d, c);
	return c;
}

/* Walk rel and everything below it, bounded by depth and table size. */
static void scan_tree(struct enav_discovery *d, const char *rel, int depth)
{
	char abs[ENAV_CGROUP_MOUNT_PATH_MAX + ENAV_CGROUP_REL_PATH_MAX];
	snprintf(abs, sizeof(abs), "%s%s", d->mounts.v2_mount, strcmp(rel, "/") ? rel : "");
	struct stat st;
	if (stat(abs, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	if (!visit(d, rel, st.st_ino))
		return;
	if (depth >= MAX_DEPTH) {
		atomic_fetch_add(&d->drops[D_TOO_DEEP], 1);
		return;
	}
	DIR *dir = opendir(abs);
	if (!dir)
		return;
	struct dirent *de;
	while ((de = readdir(dir)) != NULL) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		char child[ENAV_CGROUP_REL_PATH_MAX];
		int n = snprintf(child, sizeof(child), "%s/%s", strcmp(rel, "/") ? rel : "",
				 de->d_name);
		if (n < 0 || (size_t)n >= sizeof(child)) {
			atomic_fetch_add(&d->drops[D_TOO_DEEP], 1);
			continue;
		}
		scan_tree(d, child, depth + 1);
	}
	closedir(dir);
}

static void full_rescan(struct enav_discovery *d)
{
	d->scan_gen++;
	scan_tree(d, "/", 0);
	/* Sweep what the walk no longer found. */
	for (uint32_t i = 0; i < d->cap; i++)
		if (d->cgs[i].used && d->cgs[i].seen != d->scan_gen)
			remove_cg(d, &d->cgs[i]);
	atomic_fetch_add(&d->rescans, 1);
}

static int depth_of(const char *rel)
{
	int n = 0;
	for (; *rel; rel++)
		n += *rel == '/';
	return n;
}

/* Drain inotify; returns true when the table changed. */
static bool handle_inotify(struct enav_discovery *d)
{
	char buf[INOTIFY_BUF_BYTES] __attribute__((aligned(__alignof__(struct inotify_event))));
	bool changed = false;
	for (;;) {
		ssize_t len = read(d->inotify_fd, buf, sizeof(buf));
		if (len <= 0)
			break;
		for (char *p = buf; p < buf + len;) {
			const struct inotify_event *ev = (const struct inotify_event *)p;
			p += sizeof(*ev) + ev->len;
			atomic_fetch_add(&d->inotify_events, 1);
			if (ev->mask & IN_Q_OVERFLOW) {
				atomic_fetch_add(&d->drops[D_INOTIFY_OVERFLOW], 1);
				full_rescan(d);
				changed = true;
				continue;
			}
			uint64_t slot;
			if (!enav_u64map_get(&d->by_wd, (uint64_t)ev->wd, &slot))
				continue;
			if (ev->mask & IN_IGNORED) { /* the watched directory itself is gone */
				enav_u64map_del(&d->by_wd, (uint64_t)ev->wd);
				d->n_watches--;
				d->cgs[slot].wd = -1;
				continue;
			}
			if (!(ev->mask & IN_ISDIR) || ev->len == 0)
				continue;
			const struct cg *parent = &d->cgs[slot];
			char rel[ENAV_CGROUP_REL_PATH_MAX];
			int n = snprintf(rel, sizeof(rel), "%s/%s",
					 strcmp(parent->path, "/") ? parent->path : "", ev->name);
			if (n < 0 || (size_t)n >= sizeof(rel))
				continue;
			if (ev->mask & (IN_CREATE | IN_MOVED_TO)) {
				/* The fast path: verdict first, then children made
				 * before our watch existed. */
				d->scan_gen++;
				scan_tree(d, rel, depth_of(rel));
			} else if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
				for (uint32_t i = 0; i < d->cap; i++)
					if (d->cgs[i].used && strcmp(d->cgs[i].path, rel) == 0) {
						remove_cg(d, &d->cgs[i]);
						break;
					}
			}
			changed = true;
		}
	}
	return changed;
}

/* Recompute every verdict against the current Kubernetes view. */
static void refresh_view(struct enav_discovery *d)
{
	struct enav_k8s_view *v = enav_k8s_view_acquire(d->k8s);
	if (d->view)
		enav_k8s_view_release(d->view);
	d->view = v;
	for (uint32_t i = 0; i < d->cap; i++) {
		struct cg *c = &d->cgs[i];
		if (!c->used)
			continue;
		bool was = c->capture;
		decide(d, c);
		if (was != c->capture)
			atomic_fetch_add(&d->n_captured, c->capture ? 1 : (uint64_t)-1);
	}
}

static void on_k8s_change(void *ctx)
{
	struct enav_discovery *d = ctx;
	uint64_t one = 1;
	if (write(d->wake_fd, &one, sizeof(one)) < 0) {
		/* eventfd counter saturation only; the pending wake covers it */
	}
}

static void *discovery_thread(void *arg)
{
	struct enav_discovery *d = arg;
	struct epoll_event evs[4];
	while (!atomic_load(&d->stop)) {
		int n = epoll_wait(d->epfd, evs, 4, 1000);
		bool changed = false;
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			uint64_t cnt;
			if (fd == d->inotify_fd) {
				changed |= handle_inotify(d);
			} else if (fd == d->timer_fd) {
				if (read(d->timer_fd, &cnt, sizeof(cnt)) == sizeof(cnt)) {
					full_rescan(d);
					changed = true;
				}
			} else if (fd == d->wake_fd) {
				if (read(d->wake_fd, &cnt, sizeof(cnt)) == sizeof(cnt) && d->k8s &&
				    !atomic_load(&d->stop)) {
					refresh_view(d);
					changed = true;
				}
			}
		}
		if (changed)
			publish(d);
	}
	return NULL;
}

/* ---- module -------------------------------------------------------------- */

/* The whole of /proc/self/mountinfo (busy nodes exceed 1 MiB), capped at
 * 16 MiB: a cut line could invent a hierarchy, so a bigger file is an error. */
static int read_mountinfo(struct enav_cgroup_mounts *m)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	size_t cap = 1 << 20, len = 0;
	char *text = malloc(cap);
	while (text) {
		len += fread(text + len, 1, cap - len, f);
		if (len < cap || cap >= (16u << 20))
			break;
		char *bigger = realloc(text, cap * 2);
		if (!bigger) {
			free(text);
			text = NULL;
			break;
		}
		text = bigger;
		cap *= 2;
	}
	fclose(f);
	if (!text)
		return -ENOMEM;
	int rc = len == cap ? -EFBIG : enav_cgroup_parse_mountinfo(text, len, m);
	free(text);
	return rc;
}

static int setup_fds(struct enav_discovery *d, char *err, size_t errlen)
{
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	d->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	d->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	d->inotify_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (d->epfd < 0 || d->wake_fd < 0 || d->timer_fd < 0 || d->inotify_fd < 0) {
		snprintf(err, errlen, "discovery: cannot create its descriptors: %s",
			 strerror(errno));
		return -errno;
	}
	uint64_t ms = d->cfg->discovery.rescan_interval_ms;
	struct itimerspec its = {
	    .it_interval = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L},
	    .it_value = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L},
	};
	timerfd_settime(d->timer_fd, 0, &its, NULL);
	int fds[3] = {d->inotify_fd, d->timer_fd, d->wake_fd};
	for (int i = 0; i < 3; i++) {
		struct epoll_event ev = {.events = EPOLLIN, .data.fd = fds[i]};
		if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fds[i], &ev) != 0) {
			snprintf(err, errlen, "discovery: epoll: %s", strerror(errno));
			return -errno;
		}
	}
	return 0;
}

static void discovery_fini(void *state)
{
	struct enav_discovery *d = state;
	if (!d)
		return;
	if (d->thread_started) {
		atomic_store(&d->stop, true);
		uint64_t one = 1;
		if (write(d->wake_fd, &one, sizeof(one)) < 0) {
			/* the 1 s epoll timeout ends the thread anyway */
		}
		pthread_join(d->thread, NULL);
	}
	if (d->k8s)
		enav_k8s_stop(d->k8s);
	if (d->view)
		enav_k8s_view_release(d->view);
	for (uint32_t i = 0; d->cgs && i < d->cap; i++)
		free(d->cgs[i].path);
	free(d->cgs);
	enav_u64map_destroy(&d->by_id);
	enav_u64map_destroy(&d->by_wd);
	int fds[4] = {d->epfd, d->wake_fd, d->timer_fd, d->inotify_fd};
	for (int i = 0; i < 4; i++)
		if (fds[i] > 0)
			close(fds[i]);
	enav_snapshot_history_clear(&d->history);
	if (d->filter_open)
		enav_capture_filter_close(&d->filter);
	if (d->host) {
		enav_host_withdraw_capture_filter(d->host);
		enav_host_withdraw_discovery(d->host);
	}
	pthread_mutex_destroy(&d->snap_lock);
	free(d);
}

static int discovery_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	struct enav_discovery *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	*state = d;
	d->host = a;
	d->cfg = cfg;
	d->epfd = d->wake_fd = d->timer_fd = d->inotify_fd = -1;
	pthread_mutex_init(&d->snap_lock, NULL);
	d->filtering = cfg->capture.mode != ENAV_CAPTURE_POLICY_ALL;

	int rc = read_mountinfo(&d->mounts);
	if (rc) {
		snprintf(err, errlen, "discovery: cannot read /proc/self/mountinfo");
		return rc ? rc : -EINVAL;
	}
	if (cfg->attribution.cgroup2_mount[0])
		snprintf(d->mounts.v2_mount, sizeof(d->mounts.v2_mount), "%s",
			 cfg->attribution.cgroup2_mount);
	if (enav_selectors_compile(&cfg->capture.selectors, &d->selectors, err, errlen) != 0)
		return -EINVAL;

	rc = enav_capture_filter_open(&d->filter, cfg->kernel.cgroup_verdict_entries, err, errlen);
	if (rc)
		return rc;
	d->filter_open = true;
	d->kernel_mode = enav_capture_kernel_mode(d->mounts.layout, cfg->capture.mode);
	/* Before any program attaches: the sources start after discovery. */
	rc = enav_capture_filter_set_mode(&d->filter, d->kernel_mode);
	if (rc) {
		snprintf(err, errlen, "capture filter: cannot set the control word: %s",
			 strerror(-rc));
		return rc;
	}
	if (d->filtering &&
	    (d->mounts.layout == ENAV_CGROUP_V1 || d->mounts.layout == ENAV_CGROUP_NONE))
		enav_warn("capture filter: cgroup v1 layout: a cgroup id proves no workload here, "
			  "so capture mode %s denies everything (docs/boundaries.md)",
			  cfg->capture.mode == ENAV_CAPTURE_POLICY_ALLOWLIST ? "allowlist"
									     : "denylist");

	d->cap = cfg->discovery.max_cgroups;
	d->cgs = calloc(d->cap, sizeof(*d->cgs));
	if (!d->cgs || enav_u64map_init(&d->by_id, d->cap) ||
	    enav_u64map_init(&d->by_wd, cfg->discovery.max_watches)) {
		snprintf(err, errlen, "discovery: cannot allocate its tables");
		return -ENOMEM;
	}
	rc = setup_fds(d, err, errlen);
	if (rc)
		return rc;

	char kerr[256] = "";
	d->k8s = enav_k8s_start(cfg, on_k8s_change, d, kerr, sizeof(kerr));
	if (!d->k8s && kerr[0]) {
		snprintf(err, errlen, "kubernetes: %s", kerr);
		return -EINVAL;
	}
	if (!d->k8s)
		enav_info("kubernetes: no in-cluster environment or kubeconfig; running without "
			  "Kubernetes context");
	else
		d->view = enav_k8s_view_acquire(d->k8s);

	if (d->mounts.v2_mount[0]) {
		full_rescan(d);
	} else if (d->filtering) {
		enav_warn("discovery: no cgroup2 mount; every cgroup stays unknown");
	}
	publish(d);
	const struct enav_capture_filter_service filter = {&d->filter, enav_capture_filter_reuse};
	rc = enav_host_provide_capture_filter(a, &filter);
	if (!rc)
		rc = enav_host_provide_discovery(a, d);
	if (rc) {
		snprintf(err, errlen, "discovery: cannot publish its services");
		return rc;
	}
	if (pthread_create(&d->thread, NULL, discovery_thread, d) != 0) {
		snprintf(err, errlen, "discovery: cannot start its thread");
		return -EAGAIN;
	}
	d->thread_started = true;
	enav_info("discovery: %s layout, capture filter %s, %llu cgroups, %u watches",
		  enav_cgroup_layout_name(d->mounts.layout), enav_capture_mode_name(d->kernel_mode),
		  (unsigned long long)atomic_load(&d->n_cgroups), d->n_watches);
	return 0;
}

static void discovery_metrics(void *state, struct enav_promtext *p)
{
	struct enav_discovery *d = state;
	enav_capture_filter_metrics(&d->filter, p);
	enav_promtext_family(p, "enav_discovery_cgroups", "gauge",
			     "cgroups tracked by discovery, and how many have a capture verdict.");
	const char *lt[] = {"verdict", "any"};
	const char *lc[] = {"verdict", "capture"};
	enav_promtext_sample_u64(p, "enav_discovery_cgroups", lt, 1, atomic_load(&d->n_cgroups));
	enav_promtext_sample_u64(p, "enav_discovery_cgroups", lc, 1, atomic_load(&d->n_captured));
	enav_promtext_family(p, "enav_discovery_dropped_total", "counter",
			     "Discovery work refused by a bound, by reason.");
	for (int r = 0; r < D__COUNT; r++) {
		const char *l[] = {"reason", drop_names[r]};
		enav_promtext_sample_u64(p, "enav_discovery_dropped_total", l, 1,
					 atomic_load(&d->drops[r]));
	}
	enav_promtext_single_u64(p, "enav_discovery_rescans_total", "counter",
				 "Full walks of the cgroup2 tree (periodic and after overflow).",
				 atomic_load(&d->rescans));
	enav_promtext_single_u64(p, "enav_discovery_inotify_events_total", "counter",
				 "inotify events read.", atomic_load(&d->inotify_events));
	enav_promtext_single_u64(p, "enav_discovery_snapshots_total", "counter",
				 "Snapshots published to attribution.", atomic_load(&d->publishes));
	enav_promtext_single_u64(p, "enav_discovery_snapshots_unchanged_total", "counter",
				 "Publishes skipped: nothing changed since the newest snapshot.",
				 atomic_load(&d->unchanged));
	enav_promtext_single_u64(p, "enav_discovery_verdict_changes_total", "counter",
				 "Capture verdicts that flipped after first being decided.",
				 atomic_load(&d->verdict_changes));
	if (d->k8s)
		enav_k8s_metrics(d->k8s, p);
}

bool enav_discovery_enabled(const struct enav_config *cfg)
{
	return true;
}

const struct enav_discovery_ops enav_discovery_module_ops = {
    .init = discovery_init,
    .fini = discovery_fini,
    .metrics = discovery_metrics,
};

#ifndef ENAV_WITH_K8S
/* Until the controller is linked in: no Kubernetes, and it says so. */
struct enav_k8s *enav_k8s_start(const struct enav_config *cfg, enav_k8s_change_fn on_change,
				void *ctx, char *err, size_t errlen)
{
	if (cfg->kubernetes.enabled == ENAV_K8S_ON)
		snprintf(err, errlen, "this build has no Kubernetes controller");
	return NULL;
}
void enav_k8s_stop(struct enav_k8s *k)
{
}
struct enav_k8s_view *enav_k8s_view_acquire(struct enav_k8s *k)
{
	return NULL;
}
void enav_k8s_view_release(struct enav_k8s_view *v)
{
}
const struct enav_k8s_pod *enav_k8s_view_find_pod(const struct enav_k8s_view *v, const char *uid)
{
	return NULL;
}
bool enav_k8s_view_pod_has_label(const struct enav_k8s_view *v, const struct enav_k8s_pod *pod,
				 const char *key, const char *value)
{
	return false;
}
void enav_k8s_metrics(struct enav_k8s *k, struct enav_promtext *p)
{
}
#endif
