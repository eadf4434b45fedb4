/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Tamper evidence for the agent's own kernel state, two ways:
 *  - bpf/security/self_guard.bpf.c reports every bpf(2) call of another process that
 *    takes a descriptor to one of the agent's maps, programs or links, or
 *    changes one through such a descriptor, with the kernel's answer;
 *  - every security.self_check_interval_ms (and at once after a reported
 *    map change) the capture filter maps are compared with what the agent
 *    wrote; a difference is put back (fail closed) and reported.
 * The ids of the agent's objects are found by walking its own descriptors
 * (/proc/self/fd), so objects made after start (TLS uprobe links) are
 * covered from the next check.  Runs on the capture thread: no locks.
 */
#include "features/security/self_guard_source.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "discovery/capture_filter.h"
#include "self_guard_perf.skel.h"
#include "self_guard_ringbuf.skel.h"
#include "runtime/bpf_source.h"
#include "features/security/security_decode.h"
#include "platform/tracefs.h"

ENAV_SKEL_OPS(self_guard_ringbuf);
ENAV_SKEL_OPS(self_guard_perf);

#define MAX_OBJECTS 4096 /* enav_guard_objects' size in the BPF object */

struct own_object {
	uint64_t key; /* kind << 32 | id */
	char name[20];
	bool seen; /* still held at the last scan */
};

struct self_guard {
	struct enav_bpf_source bpf;
	int objects_fd;
	int timer_fd;
	struct own_object objects[MAX_OBJECTS];
	uint32_t n_objects;
	_Atomic uint64_t n_by_kind[4];
	_Atomic uint64_t objects_over_cap;
	_Atomic uint64_t checks;
	_Atomic uint64_t reports;
	/* Read-only accesses are reported at most security.rate_limit_per_minute
	 * times a minute: a tool that lists every BPF object on a timer would
	 * otherwise repeat itself without end.  Changes are always reported. */
	uint64_t reads_window_ns;
	uint32_t reads_in_window, reads_per_minute;
	_Atomic uint64_t reads_suppressed;
};

/* The bpf(2) command's name in signals ("map_update_elem", ...), or NULL
 * for a command the guard does not report; *modifies tells whether it
 * changes the object. */
static const char *bpf_cmd_operation(uint32_t cmd, bool *modifies)
{
	*modifies = true;
	switch (cmd) {
	case BPF_MAP_UPDATE_ELEM:
		return "map_update_elem";
	case BPF_MAP_DELETE_ELEM:
		return "map_delete_elem";
	case BPF_MAP_LOOKUP_AND_DELETE_ELEM:
		return "map_lookup_and_delete_elem";
	case BPF_MAP_FREEZE:
		return "map_freeze";
	case BPF_MAP_UPDATE_BATCH:
		return "map_update_batch";
	case BPF_MAP_DELETE_BATCH:
		return "map_delete_batch";
	case BPF_MAP_LOOKUP_AND_DELETE_BATCH:
		return "map_lookup_and_delete_batch";
	case BPF_LINK_UPDATE:
		return "link_update";
	case BPF_LINK_DETACH:
		return "link_detach";
	default:
		break;
	}
	*modifies = false;
	switch (cmd) {
	case BPF_MAP_GET_FD_BY_ID:
		return "map_get_fd_by_id";
	case BPF_PROG_GET_FD_BY_ID:
		return "prog_get_fd_by_id";
	case BPF_LINK_GET_FD_BY_ID:
		return "link_get_fd_by_id";
	default:
		return NULL;
	}
}

static const char *kind_name(uint32_t kind)
{
	switch (kind) {
	case ENAV_BPF_OBJ_MAP:
		return "map";
	case ENAV_BPF_OBJ_PROG:
		return "prog";
	default:
		return "link";
	}
}

static struct own_object *find_object(struct self_guard *g, uint64_t key)
{
	for (uint32_t i = 0; i < g->n_objects; i++)
		if (g->objects[i].key == key)
			return &g->objects[i];
	return NULL;
}

/* One of the agent's descriptors: its object's kind, id and name. */
static bool describe_fd(int fd, uint32_t *kind, uint32_t *id, char *name, size_t namelen)
{
	char path[64], target[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	name[0] = '\0';
	if (!strcmp(target, "anon_inode:bpf-map")) {
		struct bpf_map_info info = {0};
		__u32 len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return false;
		*kind = ENAV_BPF_OBJ_MAP;
		*id = info.id;
		snprintf(name, namelen, "%s", info.name);
	} else if (!strcmp(target, "anon_inode:bpf-prog")) {
		struct bpf_prog_info info = {0};
		__u32 len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return false;
		*kind = ENAV_BPF_OBJ_PROG;
		*id = info.id;
		snprintf(name, namelen, "%s", info.name);
	} else if (!strcmp(target, "anon_inode:bpf_link")) {
		struct bpf_link_info info = {0};
		__u32 len = sizeof(info);
		if (bpf_obj_get_info_by_fd(fd, &info, &len))
			return false;
		*kind = ENAV_BPF_OBJ_LINK;
		*id = info.id;
	} else {
		return false;
	}
	return *id != 0;
}

/* Register every BPF object the agent holds a descriptor to, and forget
 * the ones it no longer holds (a detached TLS uprobe's link). */
static void scan_own_objects(struct self_guard *g)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return;
	for (uint32_t i = 0; i < g->n_objects; i++)
		g->objects[i].seen = false;
	struct dirent *de;
	uint64_t over = 0;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		if (*end || fd < 0 || fd == dirfd(d))
			continue;
		uint32_t kind, id;
		char name[20];
		if (!describe_fd((int)fd, &kind, &id, name, sizeof(name)))
			continue;
		uint64_t key = (uint64_t)kind << 32 | id;
		struct own_object *known = find_object(g, key);
		if (known) {
			known->seen = true;
			continue;
		}
		if (g->n_objects == MAX_OBJECTS) {
			over++;
			continue;
		}
		__u8 one = 1;
		if (bpf_map_update_elem(g->objects_fd, &key, &one, BPF_ANY) != 0) {
			over++;
			continue;
		}
		struct own_object *o = &g->objects[g->n_objects++];
		o->key = key;
		o->seen = true;
		snprintf(o->name, sizeof(o->name), "%s", name);
		atomic_fetch_add(&g->n_by_kind[kind], 1);
	}
	closedir(d);
	for (uint32_t i = 0; i < g->n_objects;) {
		struct own_object *o = &g->objects[i];
		if (o->seen) {
			i++;
			continue;
		}
		bpf_map_delete_elem(g->objects_fd, &o->key);
		atomic_fetch_sub(&g->n_by_kind[o->key >> 32], 1);
		*o = g->objects[--g->n_objects];
	}
	atomic_store(&g->objects_over_cap, over);
}

static void report(struct self_guard *g, struct enav_signal *s)
{
	atomic_fetch_add(&g->reports, 1);
	enav_host_emit(g->bpf.host, s);
}

/* Compare the capture filter with what the agent wrote; report what had to
 * be put back. */
static void check_filter(struct self_guard *g)
{
	struct enav_capture_filter *filter = enav_host_capture_filter(g->bpf.host);
	atomic_fetch_add(&g->checks, 1);
	if (!filter)
		return;
	uint32_t restored = enav_capture_filter_verify(filter);
	if (!restored)
		return;
	enav_warn("self_guard: %u capture filter entries were changed by another process; "
		  "restored",
		  restored);
	struct enav_signal *s = enav_signal_new(ENAV_SIGNAL_BPF_ACCESS, 0);
	if (!s) {
		enav_host_count_alloc_failure(g->bpf.host);
		return;
	}
	s->time_unix_ns = enav_clock_unix_ns();
	/* Who changed it is not known from the maps: no process is claimed. */
	enav_signal_warn(s, "process", "not_observed_by_integrity_check");
	s->bpf = (struct enav_bpf_access_signal){.detected_by = "integrity_check",
						 .operation = "capture_filter_changed",
						 .object_kind = "map",
						 .modifies = true,
						 .entries_restored = restored};
	snprintf(s->bpf.object_name, sizeof(s->bpf.object_name), "enav_cgroup_ver");
	report(g, s);
}

static int on_timer(void *arg)
{
	struct self_guard *g = arg;
	/* Called every capture-loop round: work only when the timer expired. */
	int fired = enav_timerfd_expired(g->timer_fd);
	if (fired <= 0)
		return fired;
	scan_own_objects(g);
	check_filter(g);
	return 0;
}

static void on_event(void *ctx, const void *data, size_t size)
{
	struct self_guard *g = ctx;
	struct enav_security_event ev;
	if (!enav_bpf_source_decode(&g->bpf, enav_security_decode, data, size, &ev))
		return;
	bool modifies = false;
	const char *op = bpf_cmd_operation(ev.bpf_access.cmd, &modifies);
	if (!op) { /* the kernel side reports only the commands named there */
		atomic_fetch_add(&g->bpf.decode_errors[ENAV_DECODE_BAD_LENGTH], 1);
		return;
	}
	if (!modifies) {
		uint64_t now = enav_clock_mono_ns();
		if (now - g->reads_window_ns >= 60000000000ull) {
			g->reads_window_ns = now;
			g->reads_in_window = 0;
		}
		if (g->reads_in_window >= g->reads_per_minute) {
			atomic_fetch_add(&g->reads_suppressed, 1);
			return;
		}
		g->reads_in_window++;
	}
	struct enav_signal *s = enav_bpf_source_task_signal(&g->bpf, ENAV_SIGNAL_BPF_ACCESS,
							    &ev.hdr, &ev.bpf_access.task);
	if (!s)
		return;
	uint64_t key = (uint64_t)ev.bpf_access.object_kind << 32 | ev.bpf_access.object_id;
	struct own_object *o = find_object(g, key);
	s->bpf =
	    (struct enav_bpf_access_signal){.detected_by = "bpf_syscall",
					    .operation = op,
					    .object_kind = kind_name(ev.bpf_access.object_kind),
					    .object_id = ev.bpf_access.object_id,
					    .result = ev.bpf_access.ret,
					    .modifies = modifies};
	if (o)
		snprintf(s->bpf.object_name, sizeof(s->bpf.object_name), "%s", o->name);
	report(g, s);
	/* A map of ours was changed: put the filter back now, not at the next tick. */
	if (modifies && ev.bpf_access.ret >= 0 && ev.bpf_access.object_kind == ENAV_BPF_OBJ_MAP)
		check_filter(g);
}

/* One hook, outside every feature: a kernel without the bpf(2) exit
 * tracepoint runs the guard on its periodic check alone. */
static const struct enav_bpf_program_spec programs[] = {
    {.name = "enav_guard_bpf_exit", .variant = ENAV_BPF_ANY_KERNEL, .hook_may_be_absent = true},
};

const struct enav_bpf_program_table enav_self_guard_programs = {
    .source = "self_guard",
    .programs = programs,
    .n_programs = ENAV_ARRAY_LEN(programs),
};

static void self_guard_stop(void *state)
{
	struct self_guard *g = state;
	if (!g)
		return;
	enav_bpf_source_close(&g->bpf);
	if (g->timer_fd >= 0)
		close(g->timer_fd);
	free(g);
}

static int self_guard_start(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	struct self_guard *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	*state = g;
	g->timer_fd = -1;
	g->reads_per_minute = cfg->security.rate_per_minute;
	g->bpf.event_types = 1u << ENAV_EVENT_BPF_ACCESS;
	enav_tracefs_ensure();
	g->bpf.programs = &enav_self_guard_programs;
	int rc = enav_bpf_source_open(&g->bpf, a, "self_guard", &self_guard_ringbuf_ops,
				      &self_guard_perf_ops, err, errlen);
	if (rc)
		return rc;
	enav_bpf_source_rodata_u32(&g->bpf, "enav_self_tgid", enav_host_self_pid(a));
	enav_bpf_source_rodata_u64(&g->bpf, "enav_wakeup_bytes", cfg->kernel.wakeup_bytes);
	rc = enav_bpf_source_start(&g->bpf, on_event, g, err, errlen);
	if (rc || enav_host_load_only(a))
		return rc;
	if (g->bpf.n_links < 1)
		enav_warn("self_guard: the bpf(2) tracepoints are not attached (tracefs missing?): "
			  "other processes' use of the agent's BPF objects is not seen; the "
			  "capture filter is still checked");
	g->objects_fd = bpf_map__fd(bpf_object__find_map_by_name(g->bpf.obj, "enav_guard_objects"));
	scan_own_objects(g);
	g->timer_fd = enav_timerfd_every(cfg->security.self_check_interval_ms);
	if (g->timer_fd < 0) {
		snprintf(err, errlen, "self_guard: timerfd: %s", strerror(-g->timer_fd));
		return g->timer_fd;
	}
	rc = enav_host_watch(a, g->timer_fd, on_timer, g);
	if (rc) {
		snprintf(err, errlen, "self_guard: too many watched descriptors");
		return rc;
	}
	enav_info("self_guard: watching %u of the agent's BPF objects", g->n_objects);
	return 0;
}

static void self_guard_metrics(void *state, struct enav_promtext *p)
{
	struct self_guard *g = state;
	enav_promtext_family(p, "enav_self_guard_objects", "gauge",
			     "The agent's own BPF objects watched for use by other processes.");
	for (uint32_t k = ENAV_BPF_OBJ_MAP; k <= ENAV_BPF_OBJ_LINK; k++) {
		const char *l[] = {"kind", kind_name(k)};
		enav_promtext_sample_u64(p, "enav_self_guard_objects", l, 1,
					 atomic_load(&g->n_by_kind[k]));
	}
	enav_promtext_single_u64(p, "enav_self_guard_objects_over_cap", "gauge",
				 "Objects of the agent left unwatched: the guard's table is full.",
				 atomic_load(&g->objects_over_cap));
	enav_promtext_single_u64(p, "enav_self_guard_hooks", "gauge",
				 "bpf(2) exit tracepoints attached (1 when working).",
				 g->bpf.n_links);
	enav_promtext_single_u64(p, "enav_self_guard_checks_total", "counter",
				 "Integrity checks of the capture filter maps.",
				 atomic_load(&g->checks));
	enav_promtext_single_u64(p, "enav_self_guard_reports_total", "counter",
				 "agent.bpf_access signals emitted.", atomic_load(&g->reports));
	enav_promtext_single_u64(p, "enav_self_guard_reads_suppressed_total", "counter",
				 "Read-only accesses to the agent's objects not reported: over "
				 "security.rate_limit_per_minute in a minute.",
				 atomic_load(&g->reads_suppressed));
}

bool enav_self_guard_source_enabled(const struct enav_config *cfg)
{
	return cfg->security.enabled && cfg->security.agent_tampering;
}

const struct enav_source_ops enav_self_guard_source_ops = {
    .start = self_guard_start,
    .stop = self_guard_stop,
    .metrics = self_guard_metrics,
};
