/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the per-cgroup resource metrics (src/features/node/cgroups.c,
 * its parsers in cgroup_parsers.c) on the fixture trees in
 * tests/fixtures/cgroupfs/ (read relative to the repository root):
 *   hybrid/  real files recorded on a hybrid host (kernel 6.18: separate cpu
 *            and cpuacct hierarchies, a cgroup2 tree without controllers);
 *            the container paths are renamed, the contents are as read.
 *   v2/      a unified host, files in the kernel's cgroup2 formats.
 *   v1/      a CentOS 7 era v1 host ("cpu,cpuacct" together, no oom_kill in
 *            memory.oom_control, no _recursive blkio files for one cgroup).
 * Error paths (unreadable, oversized, unparseable files) use a tree built in
 * a temporary directory.  Every rendered exposition also goes through a
 * promtool-style checker.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "platform/promtext.h"
#include "discovery/cgroup_layout.h"
#include "discovery/discovery.h"
#include "discovery/k8s.h"
#include "model/cgroup_path.h"
#include "features/node/cgroups_priv.h"
#include "features/node/node.h"

#define FX "tests/fixtures/cgroupfs/"

/* hybrid */
#define H_POD                                                                                      \
	"/kubepods.slice/kubepods-burstable.slice/"                                                \
	"kubepods-burstable-pod0f3b5c1a_2d4e_4f6a_8b9c_0123456789ab.slice"
#define H_UID  "0f3b5c1a-2d4e-4f6a-8b9c-0123456789ab"
#define H_IDA  "1111111111111111111111111111111111111111111111111111111111111111"
#define H_IDB  "2222222222222222222222222222222222222222222222222222222222222222"
#define H_IDC  "3333333333333333333333333333333333333333333333333333333333333333"
#define H_A    H_POD "/cri-containerd-" H_IDA ".scope"
#define H_B    H_POD "/cri-containerd-" H_IDB ".scope"
#define H_C    H_POD "/cri-containerd-" H_IDC ".scope"
#define H_CRON "/system.slice/cron.service"

/* v2 */
#define V2_POD                                                                                     \
	"/kubepods.slice/kubepods-besteffort.slice/"                                               \
	"kubepods-besteffort-pod9a8b7c6d_5e4f_4a3b_9c2d_1e0f9a8b7c6d.slice"
#define V2_UID "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"
#define V2_IDA "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define V2_IDB "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define V2_A   V2_POD "/cri-containerd-" V2_IDA ".scope"
#define V2_B   V2_POD "/cri-containerd-" V2_IDB ".scope"
#define V2_Q   "/system.slice/we\"ird.service"

/* v1 */
#define V1_UID "5c6d7e8f-9a0b-4c1d-8e2f-3a4b5c6d7e8f"
#define V1_IDK "4444444444444444444444444444444444444444444444444444444444444444"
#define V1_IDD "5555555555555555555555555555555555555555555555555555555555555555"
#define V1_K   "/kubepods/burstable/pod" V1_UID "/" V1_IDK
#define V1_D   "/docker/" V1_IDD

static char out[512 * 1024];

/* ---- helpers ------------------------------------------------------------- */

static void add_v1(struct enav_cgroup_mounts *m, const char *ctrl, const char *mount)
{
	snprintf(m->v1[m->n_v1].controllers, sizeof(m->v1[0].controllers), "%s", ctrl);
	snprintf(m->v1[m->n_v1].mount, sizeof(m->v1[0].mount), "%s", mount);
	m->n_v1++;
}

static void hybrid_mounts(struct enav_cgroup_mounts *m)
{
	memset(m, 0, sizeof(*m));
	m->layout = ENAV_CGROUP_HYBRID;
	snprintf(m->v2_mount, sizeof(m->v2_mount), FX "hybrid/unified");
	add_v1(m, "blkio", FX "hybrid/blkio");
	add_v1(m, "cpu", FX "hybrid/cpu");
	add_v1(m, "cpuacct", FX "hybrid/cpuacct");
	add_v1(m, "cpuset", FX "hybrid/cpuset"); /* not in the fixture: never read */
	add_v1(m, "memory", FX "hybrid/memory");
	add_v1(m, "name=systemd", FX "hybrid/systemd");
	add_v1(m, "pids", FX "hybrid/pids");
}

static void v1_mounts(struct enav_cgroup_mounts *m)
{
	memset(m, 0, sizeof(*m));
	m->layout = ENAV_CGROUP_V1;
	add_v1(m, "blkio", FX "v1/blkio");
	add_v1(m, "cpu,cpuacct", FX "v1/cpu,cpuacct");
	add_v1(m, "memory", FX "v1/memory");
	add_v1(m, "pids", FX "v1/pids");
}

static void entry(struct enav_snapshot_entry *e, uint64_t id, const char *path,
		  const struct enav_k8s_pod *pod)
{
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->path = path;
	enav_cgroup_identity_parse(path, strlen(path), &e->identity);
	e->capture = true;
	e->reason = "test";
	e->pod = pod;
}

static void snap_init(struct enav_snapshot *s, struct enav_snapshot_entry *es, uint32_t n)
{
	memset(s, 0, sizeof(*s));
	s->entries = es;
	s->n = n;
}

static struct enav_k8s_pod pod_web, pod_v1;

static void pods_init(void)
{
	memset(&pod_web, 0, sizeof(pod_web));
	snprintf(pod_web.uid, sizeof(pod_web.uid), H_UID);
	snprintf(pod_web.name, sizeof(pod_web.name), "web-0");
	snprintf(pod_web.namespace_, sizeof(pod_web.namespace_), "shop");
	memset(&pod_v1, 0, sizeof(pod_v1));
	snprintf(pod_v1.uid, sizeof(pod_v1.uid), V1_UID);
	snprintf(pod_v1.name, sizeof(pod_v1.name), "api-7d9f");
	snprintf(pod_v1.namespace_, sizeof(pod_v1.namespace_), "prod");
}

/* The label block every per-cgroup sample carries. */
static const char *lbl(char *buf, size_t cap, const char *cg, const char *cid, const char *rt,
		       const char *uid, const char *pod, const char *ns)
{
	snprintf(buf, cap,
		 "cgroup=\"%s\",container_id=\"%s\",container_runtime=\"%s\",pod_uid=\"%s\","
		 "pod=\"%s\",namespace=\"%s\"",
		 cg, cid, rt, uid, pod, ns);
	return buf;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	if (strncmp(text, line, n) == 0 && text[n] == '\n')
		return true;
	for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
		if (p > text && p[-1] == '\n' && p[n] == '\n')
			return true;
	return false;
}

static void expect_line(const char *text, const char *line)
{
	if (!has_line(text, line))
		fail_msg("missing line: %s", line);
}

/* name{labels} value, value an integer. */
static void expect_u(const char *text, const char *name, const char *labels, uint64_t v)
{
	char line[2048];

	snprintf(line, sizeof(line), "%s{%s} %llu", name, labels, (unsigned long long)v);
	expect_line(text, line);
}

/* name{labels} value, value in seconds written as the writer writes doubles. */
static void expect_s(const char *text, const char *name, const char *labels, double v)
{
	char line[2048];

	snprintf(line, sizeof(line), "%s{%s} %.17g", name, labels, v);
	expect_line(text, line);
}

/* No sample of name with exactly these labels. */
static void expect_no(const char *text, const char *name, const char *labels)
{
	char pfx[2048];

	snprintf(pfx, sizeof(pfx), "\n%s{%s} ", name, labels);
	if (strstr(text, pfx))
		fail_msg("unexpected series: %s{%s}", name, labels);
}

static void expect_no_family(const char *text, const char *name)
{
	char pfx[256];

	snprintf(pfx, sizeof(pfx), "# TYPE %s ", name);
	if (strstr(text, pfx))
		fail_msg("unexpected family %s", name);
}

/* Every enav_host_cgroups_read_errors_total sample is 0. */
static void expect_no_read_errors(const char *text)
{
	const char *p = text;
	unsigned n = 0;

	while ((p = strstr(p, "\nenav_host_cgroups_read_errors_total{")) != NULL) {
		const char *eol = strchr(p + 1, '\n');
		assert_non_null(eol);
		if (!(eol[-1] == '0' && eol[-2] == ' '))
			fail_msg("read error: %.*s", (int)(eol - p - 1), p + 1);
		n++;
		p = eol;
	}
	assert_true(n > 0);
}

/* ---- a promtool-style checker -------------------------------------------- */

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && c >= '0' && c <= '9');
}

/*
 * One HELP then one TYPE per family, each family at most once and with its
 * samples right after it, sample names equal to the family, well-formed
 * labels (escapes \\ \" \n only), numeric values, counters non-negative, no
 * duplicate series.
 */
static void check_exposition(const char *text)
{
	enum { MAXF = 128, MAXS = 4096 };
	static char fams[MAXF][128];
	static char series[MAXS][1024];
	unsigned nf = 0, ns = 0;
	char fam[128] = "", type[16] = "";
	bool want_type = false;
	const char *p = text;

	while (*p) {
		const char *eol = strchr(p, '\n');
		if (!eol)
			fail_msg("last line has no newline");
		size_t len = (size_t)(eol - p);
		if (len == 0)
			fail_msg("empty line");
		char line[4096];
		assert_true(len < sizeof(line));
		memcpy(line, p, len);
		line[len] = '\0';
		p = eol + 1;

		if (strncmp(line, "# HELP ", 7) == 0) {
			if (want_type)
				fail_msg("HELP without TYPE before: %s", line);
			const char *n = line + 7, *sp = strchr(n, ' ');
			assert_non_null(sp);
			size_t nl = (size_t)(sp - n);
			assert_true(nl > 0 && nl < sizeof(fam));
			memcpy(fam, n, nl);
			fam[nl] = '\0';
			for (unsigned i = 0; i < nf; i++)
				if (strcmp(fams[i], fam) == 0)
					fail_msg("family %s twice", fam);
			assert_true(nf < MAXF);
			snprintf(fams[nf++], sizeof(fams[0]), "%s", fam);
			want_type = true;
			continue;
		}
		if (strncmp(line, "# TYPE ", 7) == 0) {
			size_t fl = strlen(fam);
			if (!want_type || strncmp(line + 7, fam, fl) != 0 || line[7 + fl] != ' ')
				fail_msg("TYPE does not follow its HELP: %s", line);
			snprintf(type, sizeof(type), "%s", line + 8 + fl);
			if (strcmp(type, "counter") && strcmp(type, "gauge") &&
			    strcmp(type, "untyped") && strcmp(type, "histogram") &&
			    strcmp(type, "summary"))
				fail_msg("bad type: %s", line);
			want_type = false;
			continue;
		}
		if (line[0] == '#')
			fail_msg("stray comment: %s", line);
		if (want_type || !fam[0])
			fail_msg("sample outside a family: %s", line);
		/* name */
		size_t i = 0;
		while (name_char(line[i], i == 0))
			i++;
		if (i != strlen(fam) || strncmp(line, fam, i) != 0)
			fail_msg("sample not of family %s (not contiguous?): %s", fam, line);
		/* labels */
		if (line[i] == '{') {
			i++;
			for (;;) {
				size_t s = i;
				while (name_char(line[i], i == s))
					i++;
				if (i == s || line[i] != '=' || line[i + 1] != '"')
					fail_msg("bad label: %s", line);
				i += 2;
				while (line[i] != '"') {
					if (line[i] == '\0')
						fail_msg("unterminated label value: %s", line);
					if (line[i] == '\\') {
						char c = line[i + 1];
						if (c != '\\' && c != '"' && c != 'n')
							fail_msg("bad escape: %s", line);
						i++;
					}
					i++;
				}
				i++;
				if (line[i] == ',') {
					i++;
					continue;
				}
				if (line[i] == '}') {
					i++;
					break;
				}
				fail_msg("bad label list: %s", line);
			}
		}
		if (line[i] != ' ')
			fail_msg("no value: %s", line);
		char *end;
		errno = 0;
		double v = strtod(line + i + 1, &end);
		if (end == line + i + 1 || *end != '\0' || errno)
			fail_msg("bad value: %s", line);
		if (strcmp(type, "counter") == 0 && !(v >= 0))
			fail_msg("negative counter: %s", line);
		for (unsigned k = 0; k < ns; k++)
			if (strncmp(series[k], line, i) == 0 && series[k][i] == '\0')
				fail_msg("duplicate series: %s", line);
		assert_true(ns < MAXS && i < sizeof(series[0]));
		memcpy(series[ns], line, i);
		series[ns++][i] = '\0';
	}
	if (want_type)
		fail_msg("HELP without TYPE at the end");
}

static const char *render(struct enav_node_cgroups *h, const struct enav_snapshot *s,
			  enum enav_host_cgroup_scope mode)
{
	struct enav_promtext p;

	enav_promtext_init(&p, out, sizeof(out));
	enav_node_cgroups_render(h, s, mode, &p);
	assert_false(p.overflow);
	check_exposition(out);
	return out;
}

static struct enav_node_cgroups *open_ok(const char *v2, const struct enav_cgroup_mounts *m,
					 uint32_t max)
{
	char err[256] = "";
	struct enav_node_cgroups *h = enav_node_cgroups_open(v2, m, max, err, sizeof(err));

	if (!h)
		fail_msg("open: %s", err);
	return h;
}

/* ---- hybrid -------------------------------------------------------------- */

/* pod, A, B, C, cron: pod and A have the pod object, B and C only the uid. */
static void hybrid_snapshot(struct enav_snapshot *s, struct enav_snapshot_entry *es)
{
	pods_init();
	entry(&es[0], 10, H_POD, &pod_web);
	entry(&es[1], 11, H_A, &pod_web);
	entry(&es[2], 12, H_B, NULL);
	entry(&es[3], 13, H_C, NULL);
	entry(&es[4], 14, H_CRON, NULL);
	snap_init(s, es, 5);
}

static void test_hybrid_containers(void **state)
{
	struct enav_cgroup_mounts m;
	struct enav_snapshot s;
	struct enav_snapshot_entry es[5];
	char la[512], lb[512], lc[512], lp[512], lcron[512];

	hybrid_mounts(&m);
	hybrid_snapshot(&s, es);
	struct enav_node_cgroups *h = open_ok(m.v2_mount, &m, 16);
	const char *t = render(h, &s, ENAV_HOST_CGROUPS_CONTAINERS);

	lbl(la, sizeof(la), H_A, H_IDA, "containerd", H_UID, "web-0", "shop");
	lbl(lb, sizeof(lb), H_B, H_IDB, "containerd", H_UID, "", "");
	lbl(lc, sizeof(lc), H_C, H_IDC, "containerd", H_UID, "", "");
	lbl(lp, sizeof(lp), H_POD, "", "", H_UID, "web-0", "shop");
	lbl(lcron, sizeof(lcron), H_CRON, "", "", "", "", "");

	/* CPU from v1 cpuacct (ns and USER_HZ ticks), not cgroup2's cpu.stat. */
	expect_s(t, "container_cpu_usage_seconds_total", la, 0.347440165);
	expect_s(t, "container_cpu_user_seconds_total", la, 0.3);
	expect_s(t, "container_cpu_system_seconds_total", la, 0.04);
	/* Throttling from the v1 cpu hierarchy. */
	expect_u(t, "container_cpu_cfs_periods_total", la, 23);
	expect_u(t, "container_cpu_cfs_throttled_periods_total", la, 16);
	expect_s(t, "container_cpu_cfs_throttled_seconds_total", la, 1.269257728);
	/* Memory from v1, with a limit. */
	expect_u(t, "container_memory_usage_bytes", la, 217088);
	expect_u(t, "container_memory_working_set_bytes", la, 217088 - 4096);
	expect_u(t, "container_memory_rss", la, 110592);
	expect_u(t, "container_memory_cache", la, 4096);
	expect_u(t, "container_spec_memory_limit_bytes", la, 104857600);
	expect_u(t, "container_memory_failcnt", la, 0);
	expect_u(t, "container_oom_events_total", la, 0);
	/* Pressure from the cgroup2 tree. */
	expect_s(t, "container_pressure_cpu_waiting_seconds_total", la, 1.265001);
	expect_s(t, "container_pressure_cpu_stalled_seconds_total", la, 1.264953);
	expect_u(t, "container_pressure_memory_waiting_seconds_total", la, 0);
	expect_u(t, "container_pressure_memory_stalled_seconds_total", la, 0);
	expect_s(t, "container_pressure_io_waiting_seconds_total", la, 0.014788);
	expect_s(t, "container_pressure_io_stalled_seconds_total", la, 0.014788);
	expect_u(t, "container_processes", la, 1);
	expect_u(t, "container_fs_reads_bytes_total", la, 0);

	/* B: hit its 16 MiB limit and lost a process to the OOM killer. */
	expect_u(t, "container_spec_memory_limit_bytes", lb, 16777216);
	expect_u(t, "container_memory_failcnt", lb, 44);
	expect_u(t, "container_oom_events_total", lb, 1);
	expect_s(t, "container_cpu_usage_seconds_total", lb, 0.015296865);
	expect_u(t, "container_cpu_user_seconds_total", lb, 0);
	expect_s(t, "container_cpu_system_seconds_total", lb, 0.01);
	expect_u(t, "container_processes", lb, 0);

	/* C: direct I/O on one device; unlimited memory is 0. */
	expect_u(t, "container_fs_reads_bytes_total", lc, 9887744);
	expect_u(t, "container_fs_writes_bytes_total", lc, 4194304);
	expect_u(t, "container_fs_reads_total", lc, 1384);
	expect_u(t, "container_fs_writes_total", lc, 64);
	expect_u(t, "container_spec_memory_limit_bytes", lc, 0);
	expect_u(t, "container_memory_working_set_bytes", lc, 1957888 - 176128);

	/* The pod: hierarchical figures (total_rss, _recursive blkio). */
	expect_u(t, "container_memory_rss", lp, 110592);
	expect_u(t, "container_memory_cache", lp, 1425408);
	expect_u(t, "container_memory_usage_bytes", lp, 2465792);
	expect_u(t, "container_fs_reads_bytes_total", lp, 9887744);
	expect_u(t, "container_fs_writes_total", lp, 64);
	expect_u(t, "container_spec_memory_limit_bytes", lp, 0);
	expect_s(t, "container_cpu_usage_seconds_total", lp, 0.658152253);
	expect_s(t, "container_cpu_user_seconds_total", lp, 0.32);
	expect_u(t, "container_processes", lp, 1);

	/* Not a container: not selected. */
	expect_no(t, "container_cpu_usage_seconds_total", lcron);
	expect_line(t, "enav_host_cgroups_reported 4");
	expect_line(t, "enav_host_cgroups_dropped_total 0");
	expect_line(
	    t, "enav_host_cgroups_read_errors_total{hierarchy=\"cgroup1\",file=\"memory.stat\"} 0");
	expect_line(
	    t, "enav_host_cgroups_read_errors_total{hierarchy=\"cgroup2\",file=\"cpu.stat\"} 0");
	expect_line(t, "enav_host_cgroups_read_errors_total{hierarchy=\"cgroup2\","
		       "file=\"cpu.pressure\"} 0");
	/* Only files this host's layout can read are listed. */
	assert_null(strstr(t, "hierarchy=\"cgroup2\",file=\"memory.current\""));
	assert_null(strstr(t, "hierarchy=\"cgroup2\",file=\"pids.current\""));
	expect_line(t, "enav_host_cgroups_read_errors_total{hierarchy=\"cgroup1\","
		       "file=\"blkio.throttle.io_service_bytes\"} 0");
	expect_no_read_errors(t);
	enav_node_cgroups_close(h);
}

static void test_hybrid_all(void **state)
{
	struct enav_cgroup_mounts m;
	struct enav_snapshot s;
	struct enav_snapshot_entry es[5];
	char lcron[512];

	hybrid_mounts(&m);
	hybrid_snapshot(&s, es);
	struct enav_node_cgroups *h = open_ok(m.v2_mount, &m, 16);
	const char *t = render(h, &s, ENAV_HOST_CGROUPS_ALL);

	lbl(lcron, sizeof(lcron), H_CRON, "", "", "", "", "");
	/* No cpuacct directory for it: cgroup2 cpu.stat's core keys. */
	expect_s(t, "container_cpu_usage_seconds_total", lcron, 0.01542);
	expect_u(t, "container_cpu_user_seconds_total", lcron, 0);
	expect_s(t, "container_cpu_system_seconds_total", lcron, 0.01542);
	/* cpu, memory, blkio and pids live in v1, where it has no directory. */
	expect_no(t, "container_cpu_cfs_periods_total", lcron);
	expect_no(t, "container_memory_usage_bytes", lcron);
	expect_no(t, "container_fs_reads_bytes_total", lcron);
	expect_no(t, "container_processes", lcron);
	expect_s(t, "container_pressure_memory_waiting_seconds_total", lcron, 0.00262);
	expect_s(t, "container_pressure_cpu_waiting_seconds_total", lcron, 0.000643);
	expect_line(t, "enav_host_cgroups_reported 5");
	expect_no_read_errors(t);
	enav_node_cgroups_close(h);
}

/* ---- cgroup2 ------------------------------------------------------------- */

static void test_v2(void **state)
{
	struct enav_snapshot s;
	struct enav_snapshot_entry es[5];
	char la[512], lb[512], lp[512], lroot[512];

	pods_init();
	entry(&es[0], 1, "/", NULL);
	entry(&es[1], 20, V2_POD, NULL);
	entry(&es[2], 21, V2_A, NULL);
	entry(&es[3], 22, V2_B, NULL);
	entry(&es[4], 23, V2_Q, NULL);
	snap_init(&s, es, 5);
	struct enav_node_cgroups *h = open_ok(FX "v2", NULL, 16);
	const char *t = render(h, &s, ENAV_HOST_CGROUPS_ALL);

	lbl(la, sizeof(la), V2_A, V2_IDA, "containerd", V2_UID, "", "");
	lbl(lb, sizeof(lb), V2_B, V2_IDB, "containerd", V2_UID, "", "");
	lbl(lp, sizeof(lp), V2_POD, "", "", V2_UID, "", "");
	lbl(lroot, sizeof(lroot), "/", "", "", "", "", "");

	expect_s(t, "container_cpu_usage_seconds_total", la, 8.561823);
	expect_s(t, "container_cpu_user_seconds_total", la, 6.044128);
	expect_s(t, "container_cpu_system_seconds_total", la, 2.517695);
	expect_u(t, "container_cpu_cfs_periods_total", la, 1200);
	expect_u(t, "container_cpu_cfs_throttled_periods_total", la, 85);
	expect_s(t, "container_cpu_cfs_throttled_seconds_total", la, 4.212345);
	expect_u(t, "container_memory_usage_bytes", la, 312475648);
	expect_u(t, "container_memory_working_set_bytes", la, 312475648 - 62914560);
	expect_u(t, "container_memory_rss", la, 201326592);
	expect_u(t, "container_memory_cache", la, 104857600);
	expect_u(t, "container_spec_memory_limit_bytes", la, 0); /* "max" */
	expect_u(t, "container_oom_events_total", la, 2);
	/* io.stat summed over three devices, iocost keys ignored. */
	expect_u(t, "container_fs_reads_bytes_total", la, 90430464 + 1459200 + 4096);
	expect_u(t, "container_fs_writes_bytes_total", la, 299008000 + 314773504);
	expect_u(t, "container_fs_reads_total", la, 8950 + 192 + 1);
	expect_u(t, "container_fs_writes_total", la, 1252 + 353);
	expect_s(t, "container_pressure_cpu_waiting_seconds_total", la, 5.123456);
	expect_s(t, "container_pressure_cpu_stalled_seconds_total", la, 3.012345);
	expect_s(t, "container_pressure_memory_waiting_seconds_total", la, 0.048213);
	expect_s(t, "container_pressure_memory_stalled_seconds_total", la, 0.0401);
	expect_s(t, "container_pressure_io_waiting_seconds_total", la, 0.912004);
	expect_s(t, "container_pressure_io_stalled_seconds_total", la, 0.850311);
	expect_u(t, "container_processes", la, 7);

	/* B: a limit, usage below inactive_file (floored), no I/O, no PSI, no
	 * cpu controller (no throttling keys). */
	expect_s(t, "container_cpu_usage_seconds_total", lb, 0.0025);
	expect_no(t, "container_cpu_cfs_periods_total", lb);
	expect_u(t, "container_spec_memory_limit_bytes", lb, 268435456);
	expect_u(t, "container_memory_working_set_bytes", lb, 0);
	expect_u(t, "container_memory_rss", lb, 0);
	expect_u(t, "container_memory_cache", lb, 2097152);
	expect_u(t, "container_oom_events_total", lb, 0);
	expect_u(t, "container_fs_reads_bytes_total", lb, 0);
	expect_u(t, "container_fs_writes_total", lb, 0);
	expect_no(t, "container_pressure_cpu_waiting_seconds_total", lb);
	expect_no(t, "container_pressure_io_stalled_seconds_total", lb);
	expect_u(t, "container_processes", lb, 0);

	/* The pod: no memory.stat, so working set is the usage. */
	expect_u(t, "container_memory_usage_bytes", lp, 313524224);
	expect_u(t, "container_memory_working_set_bytes", lp, 313524224);
	expect_no(t, "container_memory_rss", lp);
	expect_u(t, "container_cpu_cfs_throttled_periods_total", lp, 0);
	expect_u(t, "container_processes", lp, 9);

	/* The root: CPU and CPU pressure only. */
	expect_s(t, "container_cpu_usage_seconds_total", lroot, 96351.842017);
	expect_s(t, "container_pressure_cpu_waiting_seconds_total", lroot, 731.24419);
	expect_u(t, "container_pressure_cpu_stalled_seconds_total", lroot, 0);
	expect_no(t, "container_memory_usage_bytes", lroot);
	expect_no(t, "container_spec_memory_limit_bytes", lroot);

	/* v1 only families are absent; no v1 file is listed. */
	expect_no_family(t, "container_memory_failcnt");
	assert_null(strstr(t, "hierarchy=\"cgroup1\""));
	expect_line(t, "enav_host_cgroups_reported 5");
	expect_no_read_errors(t);

	/* containers: root and the quoted service go. */
	t = render(h, &s, ENAV_HOST_CGROUPS_CONTAINERS);
	expect_no(t, "container_cpu_usage_seconds_total", lroot);
	expect_s(t, "container_cpu_usage_seconds_total", la, 8.561823);
	expect_line(t, "enav_host_cgroups_reported 3");
	enav_node_cgroups_close(h);
}

static void test_label_escaping(void **state)
{
	struct enav_snapshot s;
	struct enav_snapshot_entry es[1];

	entry(&es[0], 23, V2_Q, NULL);
	snap_init(&s, es, 1);
	struct enav_node_cgroups *h = open_ok(FX "v2", NULL, 4);
	const char *t = render(h, &s, ENAV_HOST_CGROUPS_ALL);

	expect_line(t,
		    "container_cpu_usage_seconds_total{cgroup=\"/system.slice/we\\\"ird.service\","
		    "container_id=\"\",container_runtime=\"\",pod_uid=\"\",pod=\"\","
		    "namespace=\"\"} 1");
	expect_line(t,
		    "container_cpu_user_seconds_total{cgroup=\"/system.slice/we\\\"ird.service\","
		    "container_id=\"\",container_runtime=\"\",pod_uid=\"\",pod=\"\","
		    "namespace=\"\"} 0.59999999999999998");
	enav_node_cgroups_close(h);

	/* A pod name with a backslash and a newline, escaped too. */
	static struct enav_k8s_pod odd;
	memset(&odd, 0, sizeof(odd));
	snprintf(odd.name, sizeof(odd.name), "a\\b\nc");
	snprintf(odd.namespace_, sizeof(odd.namespace_), "n\"s");
	entry(&es[0], 23, V2_Q, &odd);
	h = open_ok(FX "v2", NULL, 4);
	t = render(h, &s, ENAV_HOST_CGROUPS_CONTAINERS);
	expect_line(t,
		    "container_cpu_usage_seconds_total{cgroup=\"/system.slice/we\\\"ird.service\","
		    "container_id=\"\",container_runtime=\"\",pod_uid=\"\",pod=\"a\\\\b\\nc\","
		    "namespace=\"n\\\"s\"} 1");
	enav_node_cgroups_close(h);
}

/* ---- cgroup v1 ----------------------------------------------------------- */

static void test_v1(void **state)
{
	struct enav_cgroup_mounts m;
	struct enav_snapshot s;
	struct enav_snapshot_entry es[2];
	char lk[512], ld[512];

	pods_init();
	v1_mounts(&m);
	entry(&es[0], 30, V1_K, &pod_v1);
	entry(&es[1], 31, V1_D, NULL);
	snap_init(&s, es, 2);
	struct enav_node_cgroups *h = open_ok("", &m, 16);
	const char *t = render(h, &s, ENAV_HOST_CGROUPS_CONTAINERS);

	lbl(lk, sizeof(lk), V1_K, V1_IDK, "unknown", V1_UID, "api-7d9f", "prod");
	lbl(ld, sizeof(ld), V1_D, V1_IDD, "docker", "", "", "");

	expect_s(t, "container_cpu_usage_seconds_total", lk, 52.345678901);
	expect_u(t, "container_cpu_user_seconds_total", lk, 41);
	expect_s(t, "container_cpu_system_seconds_total", lk, 10.34);
	expect_u(t, "container_cpu_cfs_periods_total", lk, 5400);
	expect_u(t, "container_cpu_cfs_throttled_periods_total", lk, 312);
	expect_s(t, "container_cpu_cfs_throttled_seconds_total", lk, 27.345678901);
	expect_u(t, "container_memory_usage_bytes", lk, 402653184);
	expect_u(t, "container_memory_working_set_bytes", lk, 402653184 - 100663296);
	expect_u(t, "container_memory_rss", lk, 251658240);
	expect_u(t, "container_memory_cache", lk, 134217728);
	expect_u(t, "container_spec_memory_limit_bytes", lk, 536870912);
	expect_u(t, "container_memory_failcnt", lk, 17);
	expect_no(t, "container_oom_events_total", lk); /* 3.10: no oom_kill line */
	/* Plain blkio files (no _recursive), two devices, Sync/Total not counted. */
	expect_u(t, "container_fs_reads_bytes_total", lk, 2097152);
	expect_u(t, "container_fs_writes_bytes_total", lk, 16777216);
	expect_u(t, "container_fs_reads_total", lk, 512);
	expect_u(t, "container_fs_writes_total", lk, 4096);
	expect_u(t, "container_processes", lk, 12);

	expect_u(t, "container_cpu_usage_seconds_total", ld, 1);
	expect_s(t, "container_cpu_user_seconds_total", ld, 0.6);
	expect_s(t, "container_cpu_system_seconds_total", ld, 0.4);
	expect_u(t, "container_spec_memory_limit_bytes", ld, 0); /* LLONG_MAX */
	expect_u(t, "container_oom_events_total", ld, 4);
	/* _recursive preferred over the plain files. */
	expect_u(t, "container_fs_reads_bytes_total", ld, 512);
	expect_u(t, "container_fs_writes_bytes_total", ld, 1024);
	expect_u(t, "container_fs_reads_total", ld, 1);
	expect_u(t, "container_fs_writes_total", ld, 2);

	expect_no_family(t, "container_pressure_cpu_waiting_seconds_total");
	expect_no_family(t, "container_pressure_io_stalled_seconds_total");
	assert_null(strstr(t, "hierarchy=\"cgroup2\""));
	expect_no_read_errors(t);
	enav_node_cgroups_close(h);
}

/* ---- selection, cap, modes ----------------------------------------------- */

static void test_cap_and_dropped(void **state)
{
	struct enav_cgroup_mounts m;
	struct enav_snapshot s;
	struct enav_snapshot_entry es[5];
	char lp[512], la[512], lb[512];

	hybrid_mounts(&m);
	hybrid_snapshot(&s, es);
	lbl(lp, sizeof(lp), H_POD, "", "", H_UID, "web-0", "shop");
	lbl(la, sizeof(la), H_A, H_IDA, "containerd", H_UID, "web-0", "shop");
	lbl(lb, sizeof(lb), H_B, H_IDB, "containerd", H_UID, "", "");

	struct enav_node_cgroups *h = open_ok(m.v2_mount, &m, 2);
	const char *t = render(h, &s, ENAV_HOST_CGROUPS_ALL);
	/* The first two in snapshot order. */
	expect_s(t, "container_cpu_usage_seconds_total", lp, 0.658152253);
	expect_s(t, "container_cpu_usage_seconds_total", la, 0.347440165);
	expect_no(t, "container_cpu_usage_seconds_total", lb);
	expect_line(t, "enav_host_cgroups_reported 2");
	expect_line(t, "enav_host_cgroups_dropped_total 3");
	/* A counter: summed over scrapes. */
	t = render(h, &s, ENAV_HOST_CGROUPS_ALL);
	expect_line(t, "enav_host_cgroups_dropped_total 6");
	/* containers: cron is not selected, so not dropped either. */
	t = render(h, &s, ENAV_HOST_CGROUPS_CONTAINERS);
	expect_line(t, "enav_host_cgroups_dropped_total 8");
	enav_node_cgroups_close(h);

	h = open_ok(m.v2_mount, &m, 4);
	t = render(h, &s, ENAV_HOST_CGROUPS_CONTAINERS);
	expect_line(t, "enav_host_cgroups_reported 4");
	expect_line(t, "enav_host_cgroups_dropped_total 0");
	enav_node_cgroups_close(h);
}

static void test_none_null_and_bad_paths(void **state)
{
	struct enav_cgroup_mounts m;
	struct enav_snapshot s;
	struct enav_snapshot_entry es[3];
	struct enav_promtext p;

	hybrid_mounts(&m);
	struct enav_node_cgroups *h = open_ok(m.v2_mount, &m, 8);

	/* none: nothing at all. */
	enav_promtext_init(&p, out, sizeof(out));
	enav_node_cgroups_render(h, NULL, ENAV_HOST_CGROUPS_NONE, &p);
	assert_int_equal(p.len, 0);

	/* No snapshot (no discovery): the self metrics only. */
	const char *t = render(h, NULL, ENAV_HOST_CGROUPS_ALL);
	expect_line(t, "enav_host_cgroups_reported 0");
	assert_null(strstr(t, "container_"));

	/* Paths that are not below the root, or none: no figures, no reads. */
	entry(&es[0], 1, "/..", NULL);
	entry(&es[1], 2, "/a/../../../etc", NULL);
	entry(&es[2], 3, "x", NULL);
	snap_init(&s, es, 3);
	t = render(h, &s, ENAV_HOST_CGROUPS_ALL);
	expect_line(t, "enav_host_cgroups_reported 3");
	assert_null(strstr(t, "container_"));
	expect_no_read_errors(t);
	es[0].path = NULL;
	snap_init(&s, es, 1);
	t = render(h, &s, ENAV_HOST_CGROUPS_ALL);
	expect_line(t, "enav_host_cgroups_reported 0");
	enav_node_cgroups_close(h);
	enav_node_cgroups_close(NULL);
}

static void test_open_errors(void **state)
{
	char err[256] = "";
	char longp[ENAV_CGROUP_MOUNT_PATH_MAX + 8];

	assert_null(enav_node_cgroups_open("/sys/fs/cgroup", NULL, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "max_cgroups"));
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	err[0] = '\0';
	assert_null(enav_node_cgroups_open(longp, NULL, 8, err, sizeof(err)));
	assert_true(err[0] != '\0');
	/* No hierarchy at all: valid, reports nothing but itself. */
	struct enav_node_cgroups *h = enav_node_cgroups_open(NULL, NULL, 1, err, sizeof(err));
	assert_non_null(h);
	enav_node_cgroups_close(h);
}

/* ---- read errors (a tree built in /tmp) ----------------------------------- */

static char tmpdir[64];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int tmp_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/enav-cgtest.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int tmp_teardown(void **state)
{
	return nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void put_file(const char *rel, const char *text, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void put_str(const char *rel, const char *text)
{
	put_file(rel, text, strlen(text));
}

static void make_dir(const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void test_read_errors(void **state)
{
	struct enav_snapshot s;
	struct enav_snapshot_entry es[1];
	char v2[128], l[512];

	make_dir("v2");
	make_dir("v2/x");
	put_str("v2/x/cpu.stat", "usage_usec 5\nuser_usec 3\nsystem_usec 2\n");
	put_str("v2/x/memory.current", "12a\n"); /* unparseable */
	make_dir("v2/x/memory.events");		 /* EISDIR */
	put_str("v2/x/memory.max", "4096\n");
	put_str("v2/x/memory.stat", "anon 1\nfile 2\ninactive_file 3\n");
	/* Larger than the read buffer: counted, not half-summed. */
	size_t big = 70000;
	char *text = malloc(big);
	assert_non_null(text);
	for (size_t i = 0; i < big; i++)
		text[i] = (i % 70 == 69) ? '\n' : (i % 70 < 4 ? "8:0 "[i % 70] : 'x');
	put_file("v2/x/io.stat", text, big);
	free(text);
	/* pids.current and the pressure files are absent: silent. */

	snprintf(v2, sizeof(v2), "%s/v2", tmpdir);
	entry(&es[0], 1, "/x", NULL);
	snap_init(&s, es, 1);
	struct enav_node_cgroups *h = open_ok(v2, NULL, 4);
	const char *t = render(h, &s, ENAV_HOST_CGROUPS_ALL);

	lbl(l, sizeof(l), "/x", "", "", "", "", "");
	expect_s(t, "container_cpu_usage_seconds_total", l, 5e-6);
	expect_u(t, "container_spec_memory_limit_bytes", l, 4096);
	expect_u(t, "container_memory_rss", l, 1);
	expect_no(t, "container_memory_usage_bytes", l);
	expect_no(t, "container_memory_working_set_bytes", l);
	expect_no(t, "container_oom_events_total", l);
	expect_no(t, "container_fs_reads_bytes_total", l);
	expect_no(t, "container_processes", l);
	expect_line(t, "enav_host_cgroups_read_errors_total{hierarchy=\"cgroup2\","
		       "file=\"memory.current\"} 1");
	expect_line(t, "enav_host_cgroups_read_errors_total{hierarchy=\"cgroup2\","
		       "file=\"memory.events\"} 1");
	expect_line(
	    t, "enav_host_cgroups_read_errors_total{hierarchy=\"cgroup2\",file=\"io.stat\"} 1");
	expect_line(t, "enav_host_cgroups_read_errors_total{hierarchy=\"cgroup2\","
		       "file=\"pids.current\"} 0");
	expect_line(t, "enav_host_cgroups_read_errors_total{hierarchy=\"cgroup2\","
		       "file=\"cpu.pressure\"} 0");
	t = render(h, &s, ENAV_HOST_CGROUPS_ALL);
	expect_line(t, "enav_host_cgroups_read_errors_total{hierarchy=\"cgroup2\","
		       "file=\"memory.events\"} 2");
	enav_node_cgroups_close(h);

	/* v1 memory with only the local memory.stat keys, CPU from cgroup2 (no
	 * cpuacct hierarchy), a blkio hierarchy without the cgroup (silent). */
	struct enav_cgroup_mounts m;
	char mem[128], blk[128];

	make_dir("mem");
	make_dir("mem/x");
	make_dir("blk");
	put_str("mem/x/memory.usage_in_bytes", "300\n");
	put_str("mem/x/memory.stat", "cache 200\nrss 100\ninactive_file 50\n");
	snprintf(mem, sizeof(mem), "%s/mem", tmpdir);
	snprintf(blk, sizeof(blk), "%s/blk", tmpdir);
	memset(&m, 0, sizeof(m));
	add_v1(&m, "memory", mem);
	add_v1(&m, "blkio", blk);
	h = open_ok(v2, &m, 4);
	t = render(h, &s, ENAV_HOST_CGROUPS_ALL);
	expect_u(t, "container_memory_rss", l, 100);
	expect_u(t, "container_memory_cache", l, 200);
	expect_u(t, "container_memory_working_set_bytes", l, 250);
	expect_s(t, "container_cpu_usage_seconds_total", l, 5e-6);
	expect_no(t, "container_fs_reads_bytes_total", l);
	expect_no(t, "container_spec_memory_limit_bytes", l);
	/* cgroup2 memory files are not read (nor listed) with a v1 memory
	 * hierarchy, nor io.stat with a blkio one. */
	assert_null(strstr(t, "file=\"memory.events\""));
	assert_null(strstr(t, "file=\"io.stat\""));
	expect_line(t, "enav_host_cgroups_read_errors_total{hierarchy=\"cgroup2\","
		       "file=\"pids.current\"} 0");
	expect_no_read_errors(t);
	enav_node_cgroups_close(h);
}

/* ---- parsers ------------------------------------------------------------- */

/* An exactly-sized heap copy without a NUL, so ASan sees any over-read. */
static char *dup_exact(const char *s)
{
	size_t n = strlen(s);
	char *p = malloc(n ? n : 1);

	assert_non_null(p);
	memcpy(p, s, n);
	return p;
}

static int u64_of(const char *s, uint64_t *v)
{
	char *p = dup_exact(s);
	int rc = enav_cg_parse_u64(p, strlen(s), v);

	free(p);
	return rc;
}

static void test_parse_u64_and_limit(void **state)
{
	uint64_t v = 0;
	bool unl = true;

	assert_int_equal(u64_of("123\n", &v), 0);
	assert_int_equal(v, 123);
	assert_int_equal(u64_of("  7 \n", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(u64_of("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(u64_of("18446744073709551616\n", &v), -1);
	assert_int_equal(u64_of("", &v), -1);
	assert_int_equal(u64_of("\n", &v), -1);
	assert_int_equal(u64_of("-1\n", &v), -1);
	assert_int_equal(u64_of("12 13\n", &v), -1);
	assert_int_equal(u64_of("12\n\n", &v), -1);
	assert_int_equal(u64_of("max\n", &v), -1);

	assert_int_equal(enav_cg_parse_limit("max\n", 4, &v, &unl), 0);
	assert_true(unl);
	assert_int_equal(enav_cg_parse_limit("268435456\n", 10, &v, &unl), 0);
	assert_false(unl);
	assert_int_equal(v, 268435456);
	assert_int_equal(enav_cg_parse_limit("maxi\n", 5, &v, &unl), -1);
	assert_int_equal(enav_cg_parse_limit("ma", 2, &v, &unl), -1);
}

static void test_parse_keyed(void **state)
{
	static const char *const keys[] = {"usage_usec", "nr_periods", "throttled_usec", "nope"};
	const char *text = "usage_usec 10\nnr_periods 4\nnr_periods 9\nthrottled_usec x\n"
			   "usage_usecs 99\n weird line with fields\nthrottled_usec 1 2\n"
			   "nope 18446744073709551616\n";
	uint64_t v[4] = {0};
	char *p = dup_exact(text);
	uint32_t f = enav_cg_parse_keyed(p, strlen(text), keys, 4, v);

	free(p);
	assert_int_equal(f, 3); /* throttled_usec invalid twice, nope overflows */
	assert_int_equal(v[0], 10);
	assert_int_equal(v[1], 4); /* the first occurrence wins */

	/* No trailing newline; tabs as blanks. */
	p = dup_exact("nope\t5");
	f = enav_cg_parse_keyed(p, 6, keys, 4, v);
	free(p);
	assert_int_equal(f, 8);
	assert_int_equal(v[3], 5);
	assert_int_equal(enav_cg_parse_keyed("", 0, keys, 4, v), 0);
}

static void test_parse_io_stat(void **state)
{
	struct enav_cg_io io;
	const char *text = "8:0 rbytes=10 wbytes=20 rios=1 wios=2 dbytes=0 dios=0\n"
			   "253:1 rbytes=5 wbytes=x rios= wios=3 cost.vrate=100.00\n"
			   "garbage rbytes=1000\n"
			   "8:16 rbytes=18446744073709551615 =7 rbytes\n";
	char *p = dup_exact(text);

	assert_int_equal(enav_cg_parse_io_stat(p, strlen(text), &io), 3);
	free(p);
	assert_true(io.rbytes == UINT64_MAX); /* saturated */
	assert_int_equal(io.wbytes, 20);
	assert_int_equal(io.rios, 1);
	assert_int_equal(io.wios, 5);
	assert_int_equal(enav_cg_parse_io_stat("", 0, &io), 0);
	assert_int_equal(io.rbytes, 0);
}

static void test_parse_blkio(void **state)
{
	uint64_t r, w;
	const char *text = "8:0 Read 4096\n8:0 Write 8192\n8:0 Sync 12288\n8:0 Async 0\n"
			   "8:0 Discard 0\n8:0 Total 12288\n253:0 Read 1\n253:0 Write 2 3\n"
			   "x:0 Read 5\nRead 7 8\nTotal 12291";
	char *p = dup_exact(text);

	assert_int_equal(enav_cg_parse_blkio(p, strlen(text), &r, &w), 3);
	free(p);
	assert_int_equal(r, 4097);
	assert_int_equal(w, 8192);
	assert_int_equal(enav_cg_parse_blkio("Total 0\n", 8, &r, &w), 0);
	assert_int_equal(r, 0);
	assert_int_equal(w, 0);
}

static void test_parse_pressure(void **state)
{
	uint64_t some = 0, full = 0;
	const char *text = "some avg10=0.00 avg60=0.00 avg300=0.00 total=1265001\n"
			   "full avg10=0.00 avg60=0.00 avg300=0.00 total=1264953";
	char *p = dup_exact(text);

	assert_int_equal(enav_cg_parse_pressure(p, strlen(text), &some, &full),
			 ENAV_CG_PSI_SOME | ENAV_CG_PSI_FULL);
	free(p);
	assert_int_equal(some, 1265001);
	assert_int_equal(full, 1264953);
	/* "some" only (a kernel before 5.13 for cpu), bad totals rejected. */
	some = full = 0;
	text = "some avg10=1 total=42\nfull total=\nfull total=-3\n";
	assert_int_equal(enav_cg_parse_pressure(text, strlen(text), &some, &full),
			 ENAV_CG_PSI_SOME);
	assert_int_equal(some, 42);
	assert_int_equal(full, 0);
	assert_int_equal(enav_cg_parse_pressure("total=5\n", 8, &some, &full), 0);
}

static void test_has_controller(void **state)
{
	assert_true(enav_cg_has_controller("cpu,cpuacct", "cpu"));
	assert_true(enav_cg_has_controller("cpu,cpuacct", "cpuacct"));
	assert_false(enav_cg_has_controller("cpuacct", "cpu"));
	assert_false(enav_cg_has_controller("cpuset", "cpu"));
	assert_true(enav_cg_has_controller("blkio,memory", "memory"));
	assert_false(enav_cg_has_controller("name=systemd", "systemd"));
	assert_false(enav_cg_has_controller("", "cpu"));
	assert_false(enav_cg_has_controller("cpu", ""));
	assert_false(enav_cg_has_controller("cpu,", "memory"));
}

/* The checker itself rejects what it must. */
static void test_checker_self(void **state)
{
	(void)state;
	check_exposition("# HELP a x\n# TYPE a gauge\na{l=\"\\\"\"} 1\na 2\n"
			 "# HELP b y\n# TYPE b counter\nb 0\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hybrid_containers),
	    cmocka_unit_test(test_hybrid_all),
	    cmocka_unit_test(test_v2),
	    cmocka_unit_test(test_label_escaping),
	    cmocka_unit_test(test_v1),
	    cmocka_unit_test(test_cap_and_dropped),
	    cmocka_unit_test(test_none_null_and_bad_paths),
	    cmocka_unit_test(test_open_errors),
	    cmocka_unit_test_setup_teardown(test_read_errors, tmp_setup, tmp_teardown),
	    cmocka_unit_test(test_parse_u64_and_limit),
	    cmocka_unit_test(test_parse_keyed),
	    cmocka_unit_test(test_parse_io_stat),
	    cmocka_unit_test(test_parse_blkio),
	    cmocka_unit_test(test_parse_pressure),
	    cmocka_unit_test(test_has_controller),
	    cmocka_unit_test(test_checker_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
