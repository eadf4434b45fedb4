/* SPDX-License-Identifier: Apache-2.0 */
/*
 * exec_storm CGROUP_DIR N TARGET: joins the cgroup, then runs TARGET N times,
 * one after another (vfork + execve + wait), and prints how many execs
 * succeeded.  Sequential on purpose: the count is exact and the rate is the
 * machine's fastest fork/exec, which is what stresses the transport.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: exec_storm CGROUP_DIR N TARGET\n");
		return 2;
	}
	char procs[4096];
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", argv[1]);
	int fd = open(procs, O_WRONLY);
	if (fd < 0 || dprintf(fd, "%d\n", getpid()) < 0) {
		fprintf(stderr, "exec_storm: cannot join %s: %s\n", procs, strerror(errno));
		return 1;
	}
	close(fd);
	long n = strtol(argv[2], NULL, 10);
	long ok = 0;
	char *child_argv[] = {argv[3], "0", NULL};
	char *envp[] = {NULL};
	for (long i = 0; i < n; i++) {
		pid_t pid = vfork();
		if (pid == 0) {
			execve(argv[3], child_argv, envp);
			_exit(127);
		}
		if (pid < 0) {
			fprintf(stderr, "exec_storm: fork: %s\n", strerror(errno));
			return 1;
		}
		int status;
		if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0)
			ok++;
	}
	printf("%ld\n", ok);
	return ok == n ? 0 : 1;
}
