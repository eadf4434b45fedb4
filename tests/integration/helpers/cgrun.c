/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgrun: run a program inside a cgroup the way a container runtime lays one
 * out, for the capture-filter tests and the first-signal benchmark.
 *
 *   cgrun [-p] [-m] [-n N] REL -- TARGET [ARGS...]
 *     -p  also create and join REL in every cgroup v1 hierarchy (what makes
 *         the hybrid-layout proof hold); without it only cgroup2 is used
 *     -m  create REL first (v1 hierarchies before cgroup2, as runtimes do) and
 *         print "mkdir_unix_ns=<ns>" for the cgroup2 mkdir
 *     -n  run TARGET N times, one after another (default 1)
 *   Prints "pids=<pid,...>" of the children and exits 0 when all exited 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_MOUNTS 32

static char v2_mount[512];
static char v1_mounts[MAX_MOUNTS][512];
static int n_v1;

static void read_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[2048];
	while (f && fgets(line, sizeof(line), f)) {
		char mp[512], fstype[64];
		char *sep = strstr(line, " - ");
		if (!sep || sscanf(line, "%*s %*s %*s %*s %511s", mp) != 1 ||
		    sscanf(sep + 3, "%63s", fstype) != 1)
			continue;
		if (!strcmp(fstype, "cgroup2") && !v2_mount[0])
			snprintf(v2_mount, sizeof(v2_mount), "%s", mp);
		else if (!strcmp(fstype, "cgroup") && n_v1 < MAX_MOUNTS)
			snprintf(v1_mounts[n_v1++], 512, "%s", mp);
	}
	if (f)
		fclose(f);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* cpuset children start empty; copy the parent's cpus and mems down. */
static void cpuset_inherit(const char *dir)
{
	char parent[4096], src[4200], dst[4200], buf[256];
	snprintf(parent, sizeof(parent), "%s", dir);
	char *slash = strrchr(parent, '/');
	if (!slash)
		return;
	*slash = '\0';
	const char *files[] = {"cpuset.cpus", "cpuset.mems"};
	for (int i = 0; i < 2; i++) {
		snprintf(src, sizeof(src), "%s/%s", parent, files[i]);
		snprintf(dst, sizeof(dst), "%s/%s", dir, files[i]);
		int fd = open(src, O_RDONLY);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n > 0) {
			buf[n] = '\0';
			write_file(dst, buf);
		}
	}
}

static int mkdir_p(const char *root, const char *rel)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s", root);
	const char *p = rel;
	while (*p) {
		while (*p == '/')
			p++;
		const char *end = strchrnul(p, '/');
		if (end == p)
			break;
		size_t len = strlen(path);
		snprintf(path + len, sizeof(path) - len, "/%.*s", (int)(end - p), p);
		if (mkdir(path, 0755) == 0) {
			if (access(strcat(strcpy((char[4200]){0}, path), "/cpuset.cpus"), F_OK) ==
			    0)
				cpuset_inherit(path);
		} else if (errno != EEXIST) {
			return -1;
		}
		p = end;
	}
	return 0;
}

static int join(const char *root, const char *rel)
{
	char path[4200], pid[32];
	snprintf(path, sizeof(path), "%s%s/cgroup.procs", root, rel);
	snprintf(pid, sizeof(pid), "%d\n", getpid());
	return write_file(path, pid);
}

static unsigned long long unix_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int prove = 0, make = 0, n = 1, opt;
	while ((opt = getopt(argc, argv, "pmn:")) != -1) {
		if (opt == 'p')
			prove = 1;
		else if (opt == 'm')
			make = 1;
		else if (opt == 'n')
			n = atoi(optarg);
		else
			return 2;
	}
	if (optind + 1 >= argc) {
		fprintf(stderr, "usage: cgrun [-p] [-m] [-n N] REL -- TARGET [ARGS...]\n");
		return 2;
	}
	const char *rel = argv[optind];
	char **target = &argv[optind + 1];
	if (!strcmp(target[0], "--"))
		target++;
	read_mounts();
	if (!v2_mount[0]) {
		fprintf(stderr, "cgrun: no cgroup2 mount\n");
		return 1;
	}
	if (make) {
		for (int i = 0; prove && i < n_v1; i++)
			if (mkdir_p(v1_mounts[i], rel) != 0) {
				fprintf(stderr, "cgrun: mkdir %s%s: %s\n", v1_mounts[i], rel,
					strerror(errno));
				return 1;
			}
		unsigned long long t = unix_ns();
		if (mkdir_p(v2_mount, rel) != 0) {
			fprintf(stderr, "cgrun: mkdir %s%s: %s\n", v2_mount, rel, strerror(errno));
			return 1;
		}
		printf("mkdir_unix_ns=%llu\n", t);
	}
	int ok = 1;
	printf("pids=");
	for (int k = 0; k < n; k++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			for (int i = 0; prove && i < n_v1; i++)
				if (join(v1_mounts[i], rel) != 0)
					_exit(126);
			if (join(v2_mount, rel) != 0)
				_exit(126);
			execv(target[0], target);
			_exit(127);
		}
		int status;
		waitpid(pid, &status, 0);
		ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
		printf("%s%d", k ? "," : "", pid);
	}
	printf("\n");
	return ok ? 0 : 1;
}
