/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loads and attaches one BPF object's programs (the empty sys_exit program of
 * bench/hook_floor.sh), prints "attached", and holds them until SIGTERM.
 * usage: hook_floor OBJECT
 */
#include <bpf/libbpf.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s OBJECT\n", argv[0]);
		return 2;
	}
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "hook_floor: cannot load %s\n", argv[1]);
		return 1;
	}
	struct bpf_program *p;
	bpf_object__for_each_program(p, obj)
	{
		if (!bpf_program__attach(p)) {
			fprintf(stderr, "hook_floor: cannot attach %s\n", bpf_program__name(p));
			return 1;
		}
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("attached\n");
	fflush(stdout);
	while (!stop)
		pause();
	bpf_object__close(obj);
	return 0;
}
