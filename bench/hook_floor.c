/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Loads and attaches each program of one BPF object on its own (the empty
 * programs of bench/hook_floor.sh), so that a hook the kernel refuses (fexit
 * where trampolines are not allowed) costs only that program.  Prints one
 * line per program, "attached SECTION NAME" or "refused SECTION NAME:
 * REASON", then "ready", and holds what attached until SIGTERM.  Exit 1 when
 * nothing attached.
 * usage: hook_floor OBJECT
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MAX_PROGRAMS 32

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0; /* a refusal is reported in one line below, not the verifier log */
}

/* Opens the object with only program INDEX loaded; NULL with errno set. */
static struct bpf_object *load_one(const char *path, int index, const char **section,
				   const char **name)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	if (!obj)
		return NULL;
	int i = 0, err = 0;
	struct bpf_program *p, *mine = NULL;
	bpf_object__for_each_program(p, obj)
	{
		bpf_program__set_autoload(p, i == index);
		if (i++ == index)
			mine = p;
	}
	if (!mine) {
		bpf_object__close(obj);
		errno = ENOENT;
		return NULL;
	}
	*section = strdup(bpf_program__section_name(mine));
	*name = strdup(bpf_program__name(mine));
	if ((err = bpf_object__load(obj)) == 0 && !bpf_program__attach(mine))
		err = -errno;
	if (err) {
		bpf_object__close(obj);
		errno = -err;
		return NULL;
	}
	return obj;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s OBJECT\n", argv[0]);
		return 2;
	}
	libbpf_set_print(quiet);
	struct bpf_object *held[MAX_PROGRAMS];
	int n = 0;
	for (int i = 0; i < MAX_PROGRAMS; i++) {
		const char *section = NULL, *name = NULL;
		struct bpf_object *obj = load_one(argv[1], i, &section, &name);
		if (!obj && errno == ENOENT && !section)
			break; /* past the last program */
		if (obj) {
			held[n++] = obj;
			printf("attached %s %s\n", section, name);
		} else {
			printf("refused %s %s: %s\n", section ? section : "?", name ? name : "?",
			       strerror(errno));
		}
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("ready\n");
	fflush(stdout);
	if (n == 0)
		return 1;
	while (!stop)
		pause();
	for (int i = 0; i < n; i++)
		bpf_object__close(held[i]);
	return 0;
}
