/* SPDX-License-Identifier: Apache-2.0 */
/*
 * first_signal REL MAX_MS TARGET: one measurement of the first-signal window.
 *
 * Lays out REL in every cgroup v1 hierarchy, then creates it in cgroup2
 * (t0), and from then on runs TARGET inside it, back to back, until MAX_MS
 * have passed.  Meanwhile a second thread polls the agent's verdict map for
 * the new cgroup's id.  Prints:
 *   t0_unix_ns=..  verdict_ns=<ns after t0, or -1>  execs=<n>  first_pid=<pid>
 * The driver finds the first exec signal the agent captured in REL and
 * reports its time minus t0: the window a new workload runs unobserved.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char v2[512], v1[32][512];
static int n_v1;
static _Atomic uint64_t cg_id;
static _Atomic long long verdict_ns = -1;
static _Atomic int done;
static uint64_t t0_mono;

static uint64_t now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[2048], mp[512], fs[64];
	while (f && fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %*s %511s", mp) != 1 ||
		    sscanf(sep + 3, "%63s", fs) != 1)
			continue;
		if (!strcmp(fs, "cgroup2") && !v2[0])
			strcpy(v2, mp);
		else if (!strcmp(fs, "cgroup") && n_v1 < 32)
			strcpy(v1[n_v1++], mp);
	}
	if (f)
		fclose(f);
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, text, strlen(text)) < 0) {
			/* the child then fails to join and the run shows it */
		}
		close(fd);
	}
}

static void copy_cpuset(const char *dir)
{
	const char *files[] = {"cpuset.cpus", "cpuset.mems"};
	for (int i = 0; i < 2; i++) {
		char src[1100], dst[1100], buf[128];
		snprintf(src, sizeof(src), "%s/../%s", dir, files[i]);
		snprintf(dst, sizeof(dst), "%s/%s", dir, files[i]);
		int fd = open(src, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = 0;
			put(dst, buf);
		}
	}
}

static int verdict_map(void)
{
	__u32 id = 0;
	while (bpf_map_get_next_id(id, &id) == 0) {
		int fd = bpf_map_get_fd_by_id(id);
		struct bpf_map_info info = {0};
		__u32 len = sizeof(info);
		if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0 &&
		    !strcmp(info.name, "enav_cgroup_ver"))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	return -1;
}

static void *poll_verdict(void *arg)
{
	int fd = *(int *)arg;
	while (!atomic_load(&done)) {
		uint64_t id = atomic_load(&cg_id);
		__u8 v;
		if (id && fd >= 0 && bpf_map_lookup_elem(fd, &id, &v) == 0 && v == 1) {
			atomic_store(&verdict_ns, (long long)(now(CLOCK_MONOTONIC) - t0_mono));
			return NULL;
		}
		/* Poll every 20 us: a spinning poller would take one of the node's
		 * cores from the agent and the workload it is measuring. */
		nanosleep(&(struct timespec){0, 20000}, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	const char *rel = argv[1];
	uint64_t max_ns = strtoull(argv[2], NULL, 10) * 1000000ull;
	mounts();
	char path[1024];
	for (int i = 0; i < n_v1; i++) {
		snprintf(path, sizeof(path), "%s%s", v1[i], rel);
		if (mkdir(path, 0755) == 0)
			copy_cpuset(path);
	}
	int map = verdict_map();
	pthread_t th;
	pthread_create(&th, NULL, poll_verdict, &map);
	snprintf(path, sizeof(path), "%s%s", v2, rel);
	uint64_t t0_unix = now(CLOCK_REALTIME);
	t0_mono = now(CLOCK_MONOTONIC);
	if (mkdir(path, 0755) != 0) {
		perror("mkdir");
		return 1;
	}
	struct stat st;
	stat(path, &st);
	atomic_store(&cg_id, st.st_ino);
	int execs = 0;
	pid_t first_pid = 0;
	char pid[32];
	while (now(CLOCK_MONOTONIC) - t0_mono < max_ns) {
		pid_t c = fork();
		if (c == 0) {
			snprintf(pid, sizeof(pid), "%d\n", getpid());
			char procs[1100];
			for (int i = 0; i < n_v1; i++) {
				snprintf(procs, sizeof(procs), "%s%s/cgroup.procs", v1[i], rel);
				put(procs, pid);
			}
			snprintf(procs, sizeof(procs), "%s%s/cgroup.procs", v2, rel);
			put(procs, pid);
			execl(argv[3], argv[3], "0", (char *)NULL);
			_exit(127);
		}
		if (!first_pid)
			first_pid = c;
		waitpid(c, NULL, 0);
		execs++;
	}
	atomic_store(&done, 1);
	pthread_join(th, NULL);
	printf("t0_unix_ns=%llu verdict_ns=%lld execs=%d first_pid=%d\n",
	       (unsigned long long)t0_unix, (long long)atomic_load(&verdict_ns), execs, first_pid);
	return 0;
}
