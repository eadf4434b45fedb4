/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-cgroup resource metrics (host.cgroups), named as cAdvisor names them so
 * Kubernetes dashboards recognise them.
 *
 * Selection: the snapshot's entries, in snapshot order (by cgroup id); mode
 * "containers" keeps those with a container id, a pod uid or a pod, "all"
 * keeps every entry.  The first max_cgroups selected are reported, the rest
 * are counted in enav_host_cgroups_dropped_total.
 *
 * Labels: every sample carries all six labels, cgroup (the path below the
 * cgroup2 root), container_id, container_runtime, pod_uid, pod and
 * namespace, with "" when unknown (Prometheus treats an empty label as
 * absent, and one label set per family keeps joins simple).
 *
 * Which hierarchy a figure comes from: a controller is attached to exactly
 * one hierarchy, so a controller mounted as a v1 hierarchy is read there (at
 * the cgroup's cgroup2-relative path) and never from cgroup2, where it cannot
 * be enabled; a controller with no v1 hierarchy is read from cgroup2.
 *   - CPU usage, user, system: v1 cpuacct (cpuacct.usage in ns, cpuacct.stat
 *     in USER_HZ ticks) when a cpuacct hierarchy exists and the cgroup has a
 *     readable cpuacct.usage there; otherwise cgroup2 cpu.stat, whose
 *     usage_usec, user_usec and system_usec exist even without the cpu
 *     controller (so a cgroup missing from the v1 tree on a hybrid host
 *     still reports its CPU time).
 *   - CFS periods and throttling: v1 cpu.stat when a cpu hierarchy exists,
 *     else cgroup2 cpu.stat (those keys exist only with the cpu controller).
 *   - Memory: v1 memory.* when a memory hierarchy exists, else cgroup2.  On
 *     v1 the hierarchical memory.stat keys (total_rss, total_cache,
 *     total_inactive_file) are used, as cAdvisor does, so a pod cgroup
 *     counts its containers just as memory.usage_in_bytes does; the local
 *     keys are the fallback.  failcnt exists on v1 only.
 *   - Block I/O: v1 blkio.throttle.io_service{d,_bytes}_recursive (falling
 *     back to the non-recursive files on kernels without them), else cgroup2
 *     io.stat; both summed over devices.
 *   - pids.current: v1 pids hierarchy, else cgroup2.
 *   - Pressure: cgroup2 only (also on hybrid hosts, where the cgroup2 tree
 *     has PSI files even without controllers).
 *
 * Errors: a file that does not exist (ENOENT), whose cgroup went away while
 * it was read (ENODEV) or whose feature is off (EOPNOTSUPP: PSI disabled at
 * boot) is skipped silently; any other failure, and a file larger than the
 * read buffer, is counted in enav_host_cgroups_read_errors_total and its
 * figures are left out for that scrape.
 *
 * Cost: one open, read and close per file per cgroup per scrape into a
 * buffer held in the handle; the per-cgroup records are allocated once at
 * open (max_cgroups of them), then printed family by family.  Not
 * thread-safe: render from one thread at a time.
 */
#include "features/node/node.h"
#include "features/node/cgroups_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "discovery/cgroup_layout.h"
#include "discovery/discovery.h"
#include "discovery/k8s.h"
#include "model/cgroup_path.h"

#define CG_READ_BUF (64 * 1024)
#define CG_PATH_MAX (ENAV_CGROUP_MOUNT_PATH_MAX + ENAV_CGROUP_PATH_MAX + 64)

/* ---- hierarchies, files and figures -------------------------------------- */

enum cg_hier { H_V2, H_CPUACCT, H_CPU, H_MEMORY, H_BLKIO, H_PIDS, H__COUNT };

static const char *const v1_controller[H__COUNT] = {
    [H_CPUACCT] = "cpuacct", [H_CPU] = "cpu",	[H_MEMORY] = "memory",
    [H_BLKIO] = "blkio",     [H_PIDS] = "pids",
};

enum cg_file {
	F_V2_CPU_STAT,
	F_V2_MEM_CURRENT,
	F_V2_MEM_MAX,
	F_V2_MEM_STAT,
	F_V2_MEM_EVENTS,
	F_V2_IO_STAT,
	F_V2_CPU_PRESSURE,
	F_V2_MEM_PRESSURE,
	F_V2_IO_PRESSURE,
	F_V2_PIDS_CURRENT,
	F_V1_CPUACCT_USAGE,
	F_V1_CPUACCT_STAT,
	F_V1_CPU_STAT,
	F_V1_MEM_USAGE,
	F_V1_MEM_LIMIT,
	F_V1_MEM_STAT,
	F_V1_MEM_FAILCNT,
	F_V1_MEM_OOM,
	F_V1_BLKIO_BYTES_REC,
	F_V1_BLKIO_BYTES,
	F_V1_BLKIO_IOS_REC,
	F_V1_BLKIO_IOS,
	F_V1_PIDS_CURRENT,
	F__COUNT
};

static const struct {
	enum cg_hier hier;
	const char *name;
} cg_files[F__COUNT] = {
    [F_V2_CPU_STAT] = {H_V2, "cpu.stat"},
    [F_V2_MEM_CURRENT] = {H_V2, "memory.current"},
    [F_V2_MEM_MAX] = {H_V2, "memory.max"},
    [F_V2_MEM_STAT] = {H_V2, "memory.stat"},
    [F_V2_MEM_EVENTS] = {H_V2, "memory.events"},
    [F_V2_IO_STAT] = {H_V2, "io.stat"},
    [F_V2_CPU_PRESSURE] = {H_V2, "cpu.pressure"},
    [F_V2_MEM_PRESSURE] = {H_V2, "memory.pressure"},
    [F_V2_IO_PRESSURE] = {H_V2, "io.pressure"},
    [F_V2_PIDS_CURRENT] = {H_V2, "pids.current"},
    [F_V1_CPUACCT_USAGE] = {H_CPUACCT, "cpuacct.usage"},
    [F_V1_CPUACCT_STAT] = {H_CPUACCT, "cpuacct.stat"},
    [F_V1_CPU_STAT] = {H_CPU, "cpu.stat"},
    [F_V1_MEM_USAGE] = {H_MEMORY, "memory.usage_in_bytes"},
    [F_V1_MEM_LIMIT] = {H_MEMORY, "memory.limit_in_bytes"},
    [F_V1_MEM_STAT] = {H_MEMORY, "memory.stat"},
    [F_V1_MEM_FAILCNT] = {H_MEMORY, "memory.failcnt"},
    [F_V1_MEM_OOM] = {H_MEMORY, "memory.oom_control"},
    [F_V1_BLKIO_BYTES_REC] = {H_BLKIO, "blkio.throttle.io_service_bytes_recursive"},
    [F_V1_BLKIO_BYTES] = {H_BLKIO, "blkio.throttle.io_service_bytes"},
    [F_V1_BLKIO_IOS_REC] = {H_BLKIO, "blkio.throttle.io_serviced_recursive"},
    [F_V1_BLKIO_IOS] = {H_BLKIO, "blkio.throttle.io_serviced"},
    [F_V1_PIDS_CURRENT] = {H_PIDS, "pids.current"},
};

enum cg_field {
	C_CPU_USAGE, /* ns */
	C_CPU_USER,  /* ns */
	C_CPU_SYSTEM,
	C_CFS_PERIODS,
	C_CFS_THROTTLED,
	C_CFS_THROTTLED_NS,
	C_MEM_USAGE,
	C_MEM_WSS,
	C_MEM_RSS,
	C_MEM_CACHE,
	C_MEM_LIMIT,
	C_MEM_FAILCNT,
	C_OOM,
	C_FS_RBYTES,
	C_FS_WBYTES,
	C_FS_RIOS,
	C_FS_WIOS,
	C_PSI_CPU_SOME, /* us */
	C_PSI_CPU_FULL,
	C_PSI_MEM_SOME,
	C_PSI_MEM_FULL,
	C_PSI_IO_SOME,
	C_PSI_IO_FULL,
	C_PIDS,
	C__COUNT
};

_Static_assert(C__COUNT <= 32, "figure mask is 32 bits");

enum cg_unit { U_NUM, U_NS, U_US };

static const struct {
	const char *name;
	const char *type;
	const char *help;
	enum cg_field field;
	enum cg_unit unit;
} cg_families[] = {
    {"container_cpu_usage_seconds_total", "counter", "Cumulative CPU time consumed, in seconds.",
     C_CPU_USAGE, U_NS},
    {"container_cpu_user_seconds_total", "counter",
     "Cumulative CPU time consumed in user mode, in seconds.", C_CPU_USER, U_NS},
    {"container_cpu_system_seconds_total", "counter",
     "Cumulative CPU time consumed in kernel mode, in seconds.", C_CPU_SYSTEM, U_NS},
    {"container_cpu_cfs_periods_total", "counter", "CFS enforcement periods elapsed.",
     C_CFS_PERIODS, U_NUM},
    {"container_cpu_cfs_throttled_periods_total", "counter",
     "CFS enforcement periods in which the cgroup was throttled.", C_CFS_THROTTLED, U_NUM},
    {"container_cpu_cfs_throttled_seconds_total", "counter",
     "Total time the cgroup was throttled by its CFS quota, in seconds.", C_CFS_THROTTLED_NS, U_NS},
    {"container_memory_usage_bytes", "gauge",
     "Memory charged to the cgroup, page cache included, in bytes.", C_MEM_USAGE, U_NUM},
    {"container_memory_working_set_bytes", "gauge",
     "Memory usage minus inactive file cache (floored at 0), in bytes.", C_MEM_WSS, U_NUM},
    {"container_memory_rss", "gauge", "Anonymous memory (v1 total_rss, cgroup2 anon), in bytes.",
     C_MEM_RSS, U_NUM},
    {"container_memory_cache", "gauge",
     "Page cache memory (v1 total_cache, cgroup2 file), in bytes.", C_MEM_CACHE, U_NUM},
    {"container_spec_memory_limit_bytes", "gauge", "Memory limit in bytes; 0 when unlimited.",
     C_MEM_LIMIT, U_NUM},
    {"container_memory_failcnt", "counter",
     "Times memory usage hit the limit (cgroup v1 memory.failcnt).", C_MEM_FAILCNT, U_NUM},
    {"container_oom_events_total", "counter",
     "Processes killed by the OOM killer in the cgroup (oom_kill).", C_OOM, U_NUM},
    {"container_fs_reads_bytes_total", "counter", "Bytes read, summed over block devices.",
     C_FS_RBYTES, U_NUM},
    {"container_fs_writes_bytes_total", "counter", "Bytes written, summed over block devices.",
     C_FS_WBYTES, U_NUM},
    {"container_fs_reads_total", "counter", "Read requests, summed over block devices.", C_FS_RIOS,
     U_NUM},
    {"container_fs_writes_total", "counter", "Write requests, summed over block devices.",
     C_FS_WIOS, U_NUM},
    {"container_pressure_cpu_waiting_seconds_total", "counter",
     "Time some tasks waited for CPU (PSI some total), in seconds.", C_PSI_CPU_SOME, U_US},
    {"container_pressure_cpu_stalled_seconds_total", "counter",
     "Time all non-idle tasks were stalled on CPU (PSI full total), in seconds.", C_PSI_CPU_FULL,
     U_US},
    {"container_pressure_memory_waiting_seconds_total", "counter",
     "Time some tasks waited for memory (PSI some total), in seconds.", C_PSI_MEM_SOME, U_US},
    {"container_pressure_memory_stalled_seconds_total", "counter",
     "Time all non-idle tasks were stalled on memory (PSI full total), in seconds.", C_PSI_MEM_FULL,
     U_US},
    {"container_pressure_io_waiting_seconds_total", "counter",
     "Time some tasks waited for I/O (PSI some total), in seconds.", C_PSI_IO_SOME, U_US},
    {"container_pressure_io_stalled_seconds_total", "counter",
     "Time all non-idle tasks were stalled on I/O (PSI full total), in seconds.", C_PSI_IO_FULL,
     U_US},
    {"container_processes", "gauge", "Tasks in the cgroup, threads included (pids.current).",
     C_PIDS, U_NUM},
};

struct cg_rec {
	const struct enav_snapshot_entry *e;
	uint32_t have; /* bit per enum cg_field */
	uint64_t v[C__COUNT];
};

struct enav_node_cgroups {
	char base[H__COUNT][ENAV_CGROUP_MOUNT_PATH_MAX]; /* "" = no such hierarchy */
	uint32_t max_cgroups;
	uint64_t user_hz;
	struct cg_rec *recs;
	uint64_t dropped_total;
	uint64_t read_errors[F__COUNT];
	uint32_t reported;
	char path[CG_PATH_MAX];
	char buf[CG_READ_BUF];
};

static void put(struct cg_rec *r, enum cg_field f, uint64_t v)
{
	r->v[f] = v;
	r->have |= 1u << f;
}

static bool has(const struct cg_rec *r, enum cg_field f)
{
	return r->have & (1u << f);
}

/* ---- reading ------------------------------------------------------------- */

static bool silent_errno(int e)
{
	return e == ENOENT || e == ENODEV || e == EOPNOTSUPP;
}

/*
 * Read file f of the cgroup at rel into h->buf.  Returns the length, or a
 * negative errno (counted unless silent).  -E2BIG: larger than the buffer.
 */
static ssize_t read_file(struct enav_node_cgroups *h, const char *rel, enum cg_file f)
{
	const char *base = h->base[cg_files[f].hier];
	int n = snprintf(h->path, sizeof(h->path), "%s%s/%s", base, strcmp(rel, "/") ? rel : "",
			 cg_files[f].name);
	int err = 0;
	size_t len = 0;

	if (n < 0 || (size_t)n >= sizeof(h->path))
		return -ENAMETOOLONG; /* cannot happen with a kernel path: not counted */

	int fd = open(h->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = errno;
		goto out;
	}
	for (;;) {
		char extra;
		bool full = len == sizeof(h->buf);
		ssize_t r =
		    full ? read(fd, &extra, 1) : read(fd, h->buf + len, sizeof(h->buf) - len);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			break;
		}
		if (r == 0)
			break;
		if (full) {
			err = E2BIG;
			break;
		}
		len += (size_t)r;
	}
	close(fd);
out:
	if (err) {
		if (!silent_errno(err) && h->read_errors[f] != UINT64_MAX)
			h->read_errors[f]++;
		return -err;
	}
	return (ssize_t)len;
}

/* Read and parse a one-number file.  Counts an unparseable one as an error. */
static bool read_u64(struct enav_node_cgroups *h, const char *rel, enum cg_file f, uint64_t *out)
{
	ssize_t n = read_file(h, rel, f);

	if (n < 0)
		return false;
	if (enav_cg_parse_u64(h->buf, (size_t)n, out) != 0) {
		if (h->read_errors[f] != UINT64_MAX)
			h->read_errors[f]++;
		return false;
	}
	return true;
}

static uint32_t read_keyed(struct enav_node_cgroups *h, const char *rel, enum cg_file f,
			   const char *const *keys, size_t n_keys, uint64_t *vals)
{
	ssize_t n = read_file(h, rel, f);

	return n < 0 ? 0 : enav_cg_parse_keyed(h->buf, (size_t)n, keys, n_keys, vals);
}

static bool have_hier(const struct enav_node_cgroups *h, enum cg_hier x)
{
	return h->base[x][0] != '\0';
}

static uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz)
{
	return enav_cg_sat_add(enav_cg_sat_mul(ticks / hz, 1000000000u),
			       (ticks % hz) * 1000000000u / hz);
}

static void collect_cpu(struct enav_node_cgroups *h, const char *rel, struct cg_rec *r)
{
	static const char *const v2_keys[] = {"usage_usec", "user_usec",    "system_usec",
					      "nr_periods", "nr_throttled", "throttled_usec"};
	static const char *const acct_keys[] = {"user", "system"};
	static const char *const v1_keys[] = {"nr_periods", "nr_throttled", "throttled_time"};
	uint64_t v2[6], acct[2], v1[3], ns;
	uint32_t v2f = 0, f;
	bool usage = false;

	if (have_hier(h, H_CPUACCT) && read_u64(h, rel, F_V1_CPUACCT_USAGE, &ns)) {
		put(r, C_CPU_USAGE, ns);
		usage = true;
		f = read_keyed(h, rel, F_V1_CPUACCT_STAT, acct_keys, 2, acct);
		if (f & 1)
			put(r, C_CPU_USER, ticks_to_ns(acct[0], h->user_hz));
		if (f & 2)
			put(r, C_CPU_SYSTEM, ticks_to_ns(acct[1], h->user_hz));
	}
	if (have_hier(h, H_V2) && (!usage || !have_hier(h, H_CPU)))
		v2f = read_keyed(h, rel, F_V2_CPU_STAT, v2_keys, 6, v2);
	if (!usage) {
		for (unsigned i = 0; i < 3; i++)
			if (v2f & (1u << i))
				put(r, (enum cg_field)(C_CPU_USAGE + i),
				    enav_cg_sat_mul(v2[i], 1000));
	}
	if (have_hier(h, H_CPU)) {
		f = read_keyed(h, rel, F_V1_CPU_STAT, v1_keys, 3, v1);
		if (f & 1)
			put(r, C_CFS_PERIODS, v1[0]);
		if (f & 2)
			put(r, C_CFS_THROTTLED, v1[1]);
		if (f & 4)
			put(r, C_CFS_THROTTLED_NS, v1[2]);
	} else {
		if (v2f & 8)
			put(r, C_CFS_PERIODS, v2[3]);
		if (v2f & 16)
			put(r, C_CFS_THROTTLED, v2[4]);
		if (v2f & 32)
			put(r, C_CFS_THROTTLED_NS, enav_cg_sat_mul(v2[5], 1000));
	}
}

/* v1's "no limit" is PAGE_COUNTER_MAX pages: LONG_MAX rounded down to a page. */
static bool v1_unlimited(uint64_t v)
{
	return v >= (uint64_t)INT64_MAX - (1u << 20);
}

static void collect_memory(struct enav_node_cgroups *h, const char *rel, struct cg_rec *r)
{
	uint64_t v, st[6], inactive = 0;
	uint32_t f;

	if (have_hier(h, H_MEMORY)) {
		static const char *const keys[] = {
		    "total_rss", "total_cache", "total_inactive_file",
		    "rss",	 "cache",	"inactive_file"};
		static const char *const oom_keys[] = {"oom_kill"};

		if (read_u64(h, rel, F_V1_MEM_USAGE, &v))
			put(r, C_MEM_USAGE, v);
		if (read_u64(h, rel, F_V1_MEM_LIMIT, &v))
			put(r, C_MEM_LIMIT, v1_unlimited(v) ? 0 : v);
		f = read_keyed(h, rel, F_V1_MEM_STAT, keys, 6, st);
		for (unsigned i = 0; i < 3; i++) {
			bool hier = f & (1u << i), local = f & (1u << (i + 3));
			if (!hier && !local)
				continue;
			uint64_t x = hier ? st[i] : st[i + 3];
			if (i == 2)
				inactive = x;
			else
				put(r, i == 0 ? C_MEM_RSS : C_MEM_CACHE, x);
		}
		if (read_u64(h, rel, F_V1_MEM_FAILCNT, &v))
			put(r, C_MEM_FAILCNT, v);
		if (read_keyed(h, rel, F_V1_MEM_OOM, oom_keys, 1, &v) & 1)
			put(r, C_OOM, v);
	} else if (have_hier(h, H_V2)) {
		static const char *const keys[] = {"anon", "file", "inactive_file"};
		static const char *const ev_keys[] = {"oom_kill"};
		ssize_t n;
		bool unlimited;

		if (read_u64(h, rel, F_V2_MEM_CURRENT, &v))
			put(r, C_MEM_USAGE, v);
		n = read_file(h, rel, F_V2_MEM_MAX);
		if (n >= 0) {
			if (enav_cg_parse_limit(h->buf, (size_t)n, &v, &unlimited) == 0)
				put(r, C_MEM_LIMIT, unlimited ? 0 : v);
			else if (h->read_errors[F_V2_MEM_MAX] != UINT64_MAX)
				h->read_errors[F_V2_MEM_MAX]++;
		}
		f = read_keyed(h, rel, F_V2_MEM_STAT, keys, 3, st);
		if (f & 1)
			put(r, C_MEM_RSS, st[0]);
		if (f & 2)
			put(r, C_MEM_CACHE, st[1]);
		if (f & 4)
			inactive = st[2];
		if (read_keyed(h, rel, F_V2_MEM_EVENTS, ev_keys, 1, &v) & 1)
			put(r, C_OOM, v);
	}
	if (has(r, C_MEM_USAGE))
		put(r, C_MEM_WSS, r->v[C_MEM_USAGE] > inactive ? r->v[C_MEM_USAGE] - inactive : 0);
}

/* A blkio pair: the _recursive file, or the plain one on kernels without it. */
static ssize_t read_blkio(struct enav_node_cgroups *h, const char *rel, enum cg_file rec,
			  enum cg_file plain)
{
	ssize_t n = read_file(h, rel, rec);

	return n == -ENOENT ? read_file(h, rel, plain) : n;
}

static void collect_io(struct enav_node_cgroups *h, const char *rel, struct cg_rec *r)
{
	ssize_t n;

	if (have_hier(h, H_BLKIO)) {
		uint64_t rd, wr;

		n = read_blkio(h, rel, F_V1_BLKIO_BYTES_REC, F_V1_BLKIO_BYTES);
		if (n >= 0) {
			enav_cg_parse_blkio(h->buf, (size_t)n, &rd, &wr);
			put(r, C_FS_RBYTES, rd);
			put(r, C_FS_WBYTES, wr);
		}
		n = read_blkio(h, rel, F_V1_BLKIO_IOS_REC, F_V1_BLKIO_IOS);
		if (n >= 0) {
			enav_cg_parse_blkio(h->buf, (size_t)n, &rd, &wr);
			put(r, C_FS_RIOS, rd);
			put(r, C_FS_WIOS, wr);
		}
	} else if (have_hier(h, H_V2)) {
		struct enav_cg_io io;

		n = read_file(h, rel, F_V2_IO_STAT);
		if (n >= 0) {
			enav_cg_parse_io_stat(h->buf, (size_t)n, &io);
			put(r, C_FS_RBYTES, io.rbytes);
			put(r, C_FS_WBYTES, io.wbytes);
			put(r, C_FS_RIOS, io.rios);
			put(r, C_FS_WIOS, io.wios);
		}
	}
}

static void collect_pressure(struct enav_node_cgroups *h, const char *rel, struct cg_rec *r)
{
	static const struct {
		enum cg_file f;
		enum cg_field some, full;
	} psi[] = {
	    {F_V2_CPU_PRESSURE, C_PSI_CPU_SOME, C_PSI_CPU_FULL},
	    {F_V2_MEM_PRESSURE, C_PSI_MEM_SOME, C_PSI_MEM_FULL},
	    {F_V2_IO_PRESSURE, C_PSI_IO_SOME, C_PSI_IO_FULL},
	};

	if (!have_hier(h, H_V2))
		return;
	for (size_t i = 0; i < sizeof(psi) / sizeof(psi[0]); i++) {
		ssize_t n = read_file(h, rel, psi[i].f);
		uint64_t some, full;
		unsigned f;

		if (n < 0)
			continue;
		f = enav_cg_parse_pressure(h->buf, (size_t)n, &some, &full);
		if (f & ENAV_CG_PSI_SOME)
			put(r, psi[i].some, some);
		if (f & ENAV_CG_PSI_FULL)
			put(r, psi[i].full, full);
	}
}

static void collect_pids(struct enav_node_cgroups *h, const char *rel, struct cg_rec *r)
{
	uint64_t v;
	enum cg_file f = have_hier(h, H_PIDS) ? F_V1_PIDS_CURRENT : F_V2_PIDS_CURRENT;

	if (have_hier(h, cg_files[f].hier) && read_u64(h, rel, f, &v))
		put(r, C_PIDS, v);
}

/* A path below a root: absolute, and no ".." component to climb out of it. */
static bool rel_ok(const char *rel)
{
	if (!rel || rel[0] != '/')
		return false;
	for (const char *p = rel; (p = strstr(p, "/..")) != NULL; p += 3)
		if (p[3] == '/' || p[3] == '\0')
			return false;
	return true;
}

static void collect(struct enav_node_cgroups *h, const char *rel, struct cg_rec *r)
{
	r->have = 0;
	if (!rel_ok(rel))
		return;
	collect_cpu(h, rel, r);
	collect_memory(h, rel, r);
	collect_io(h, rel, r);
	collect_pressure(h, rel, r);
	collect_pids(h, rel, r);
}

/* ---- interface ----------------------------------------------------------- */

struct enav_node_cgroups *enav_node_cgroups_open(const char *v2_mount,
						 const struct enav_cgroup_mounts *mounts,
						 uint32_t max_cgroups, char *err, size_t errlen)
{
	if (max_cgroups == 0) {
		snprintf(err, errlen, "host cgroups: max_cgroups must be at least 1");
		return NULL;
	}
	if (v2_mount && strlen(v2_mount) >= ENAV_CGROUP_MOUNT_PATH_MAX) {
		snprintf(err, errlen, "host cgroups: cgroup2 mount path too long");
		return NULL;
	}
	struct enav_node_cgroups *h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, errlen, "host cgroups: out of memory");
		return NULL;
	}
	h->recs = calloc(max_cgroups, sizeof(*h->recs));
	if (!h->recs) {
		free(h);
		snprintf(err, errlen, "host cgroups: cannot allocate %u records", max_cgroups);
		return NULL;
	}
	h->max_cgroups = max_cgroups;
	long hz = sysconf(_SC_CLK_TCK);
	h->user_hz = hz > 0 ? (uint64_t)hz : 100;
	if (v2_mount)
		snprintf(h->base[H_V2], sizeof(h->base[H_V2]), "%s", v2_mount);
	for (unsigned x = H_V2 + 1; mounts && x < H__COUNT; x++) {
		for (unsigned i = 0; i < mounts->n_v1 && i < ENAV_CGROUP_MAX_V1; i++) {
			if (mounts->v1[i].mount[0] &&
			    enav_cg_has_controller(mounts->v1[i].controllers, v1_controller[x])) {
				snprintf(h->base[x], sizeof(h->base[x]), "%s", mounts->v1[i].mount);
				break;
			}
		}
	}
	return h;
}

void enav_node_cgroups_close(struct enav_node_cgroups *h)
{
	if (!h)
		return;
	free(h->recs);
	free(h);
}

static bool selected(const struct enav_snapshot_entry *e, enum enav_host_cgroup_scope mode)
{
	if (mode == ENAV_HOST_CGROUPS_ALL)
		return true;
	return e->identity.container_id[0] || e->identity.pod_uid[0] || e->pod;
}

/* Can this handle ever read file f?  (Lists only those in the error counter.) */
static bool file_used(const struct enav_node_cgroups *h, enum cg_file f)
{
	if (!have_hier(h, cg_files[f].hier))
		return false;
	switch (f) {
	case F_V2_MEM_CURRENT:
	case F_V2_MEM_MAX:
	case F_V2_MEM_STAT:
	case F_V2_MEM_EVENTS:
		return !have_hier(h, H_MEMORY);
	case F_V2_IO_STAT:
		return !have_hier(h, H_BLKIO);
	case F_V2_PIDS_CURRENT:
		return !have_hier(h, H_PIDS);
	default:
		return true;
	}
}

size_t enav_node_cgroups_exposition_bound(uint32_t max_cgroups)
{
	/* A line at its longest: the six labels at their longest (cgroup path,
	 * container id, runtime, pod uid, pod and namespace names), every byte
	 * escaped, with the family name and a value. */
	size_t labels = ENAV_CGROUP_MOUNT_PATH_MAX + ENAV_CGROUP_REL_PATH_MAX + 64 + 16 + 36 +
			2 * ENAV_K8S_NAME_MAX;
	size_t line = 192 + 2 * labels;
	size_t n_families = sizeof(cg_families) / sizeof(cg_families[0]);
	/* Families' HELP/TYPE and this module's own, in the 4 KiB. */
	return n_families * ((size_t)max_cgroups * line + 512) + 4096;
}

static void render_self(struct enav_node_cgroups *h, struct enav_promtext *p)
{
	enav_promtext_family(p, "enav_host_cgroups_reported", "gauge",
			     "cgroups whose resource figures the last scrape reported.");
	enav_promtext_sample_u64(p, "enav_host_cgroups_reported", NULL, 0, h->reported);
	enav_promtext_family(p, "enav_host_cgroups_dropped_total", "counter",
			     "Selected cgroups left out of a scrape by host.max_cgroups, summed "
			     "over scrapes.");
	enav_promtext_sample_u64(p, "enav_host_cgroups_dropped_total", NULL, 0, h->dropped_total);
	enav_promtext_family(p, "enav_host_cgroups_read_errors_total", "counter",
			     "cgroup file reads that failed other than by absence, by file.");
	for (unsigned f = 0; f < F__COUNT; f++) {
		if (!file_used(h, (enum cg_file)f))
			continue;
		const char *labels[] = {"hierarchy",
					cg_files[f].hier == H_V2 ? "cgroup2" : "cgroup1", "file",
					cg_files[f].name};
		enav_promtext_sample_u64(p, "enav_host_cgroups_read_errors_total", labels, 2,
					 h->read_errors[f]);
	}
}

void enav_node_cgroups_render(struct enav_node_cgroups *h, const struct enav_snapshot *snap,
			      enum enav_host_cgroup_scope mode, struct enav_promtext *p)
{
	uint32_t n = 0;
	uint64_t dropped = 0;

	if (!h || mode == ENAV_HOST_CGROUPS_NONE)
		return;
	for (uint32_t i = 0; snap && snap->entries && i < snap->n; i++) {
		const struct enav_snapshot_entry *e = &snap->entries[i];

		if (!e->path || !selected(e, mode))
			continue;
		if (n == h->max_cgroups) {
			dropped++;
			continue;
		}
		h->recs[n].e = e;
		collect(h, e->path, &h->recs[n]);
		n++;
	}
	h->reported = n;
	h->dropped_total = enav_cg_sat_add(h->dropped_total, dropped);

	for (size_t fi = 0; fi < sizeof(cg_families) / sizeof(cg_families[0]); fi++) {
		enum cg_field fld = cg_families[fi].field;
		bool any = false;

		for (uint32_t i = 0; i < n && !any; i++)
			any = has(&h->recs[i], fld);
		if (!any)
			continue;
		enav_promtext_family(p, cg_families[fi].name, cg_families[fi].type,
				     cg_families[fi].help);
		for (uint32_t i = 0; i < n; i++) {
			const struct cg_rec *r = &h->recs[i];
			const struct enav_snapshot_entry *e = r->e;

			if (!has(r, fld))
				continue;
			const char *labels[] = {
			    "cgroup",
			    e->path,
			    "container_id",
			    e->identity.container_id,
			    "container_runtime",
			    e->identity.runtime == ENAV_RUNTIME_NONE
				? ""
				: enav_container_runtime_name(e->identity.runtime),
			    "pod_uid",
			    e->identity.pod_uid[0] ? e->identity.pod_uid
			    : e->pod		   ? e->pod->uid
						   : "",
			    "pod",
			    e->pod ? e->pod->name : "",
			    "namespace",
			    e->pod ? e->pod->namespace_ : "",
			};
			uint64_t v = r->v[fld];

			switch (cg_families[fi].unit) {
			case U_NUM:
				enav_promtext_sample_u64(p, cg_families[fi].name, labels, 6, v);
				break;
			case U_NS:
				enav_promtext_sample(p, cg_families[fi].name, labels, 6,
						     (double)v / 1e9);
				break;
			case U_US:
				enav_promtext_sample(p, cg_families[fi].name, labels, 6,
						     (double)v / 1e6);
				break;
			}
		}
	}
	render_self(h, p);
}
