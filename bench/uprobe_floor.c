/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The cost of one uprobe hit on this machine (bench/tls_overhead.sh).
 *
 *   uprobe_floor N
 *     calls SSL_free(NULL) (a no-op that OpenSSL returns from at once) N
 *     times and prints microseconds per call.  Run once without the agent and
 *     once with its TLS capture on (SSL_free then carries the agent's entry
 *     probe): the difference is one real probe hit.
 *
 *   uprobe_floor N EMPTY_OBJECT
 *     attaches the empty programs of bench/bpf/empty_uprobe.bpf.c to three
 *     functions, as an entry probe, a return probe and both, and prints
 *     "FUNCTION PROBES MICROSECONDS_PER_CALL" for each, unprobed first.  The
 *     functions: SSL_free, whose first instruction (test) the kernel must
 *     single-step out of line like SSL_read's and SSL_write's (sub); and two
 *     of this file, one starting with such an instruction and one with a
 *     push, which the kernel emulates without the single-step.
 *
 *   uprobe_floor stats
 *     turns the kernel's BPF run-time statistics on (run_cnt, run_time_ns in
 *     `bpftool prog show`) while it runs, prints "enabled", and holds them
 *     until SIGTERM.  Held this way rather than through the sysctl, they go
 *     off when the last holder exits and never under someone else's run.
 *
 * SSL_free is declared here rather than from <openssl/ssl.h> so the
 * benchmark needs only the runtime library.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void SSL_free(void *ssl);

/* Two minimal functions whose first instruction decides how the kernel
 * steps over the breakpoint. */
void floor_single_stepped(void);
void floor_emulated(void);
__asm__(".text\n"
	".globl floor_single_stepped\n"
	".type floor_single_stepped, @function\n"
	"floor_single_stepped:\n"
	"\tsub $8, %rsp\n"
	"\tadd $8, %rsp\n"
	"\tret\n"
	".size floor_single_stepped, .-floor_single_stepped\n"
	".globl floor_emulated\n"
	".type floor_emulated, @function\n"
	"floor_emulated:\n"
	"\tpush %rbx\n"
	"\tpop %rbx\n"
	"\tret\n"
	".size floor_emulated, .-floor_emulated\n");

static void call_ssl_free(void)
{
	SSL_free(NULL);
}

static double us_per_call(void (*fn)(void), long n)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		fn();
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	return ns / 1e3 / (double)n;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int hold_stats(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0) {
		fprintf(stderr, "uprobe_floor: cannot enable BPF statistics\n");
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	printf("enabled\n");
	fflush(stdout);
	while (!stop)
		pause();
	close(fd);
	return 0;
}

struct target {
	const char *name;
	void (*call)(void);
	const char *path;
};

static struct bpf_link *attach(struct bpf_object *obj, const char *prog, const struct target *t,
			       bool ret)
{
	struct bpf_program *p = bpf_object__find_program_by_name(obj, prog);
	LIBBPF_OPTS(bpf_uprobe_opts, o, .retprobe = ret, .func_name = t->name);
	struct bpf_link *l =
	    p ? bpf_program__attach_uprobe_opts(p, getpid(), t->path, 0, &o) : NULL;
	if (!l)
		fprintf(stderr, "uprobe_floor: cannot attach %s to %s\n", prog, t->name);
	return l;
}

static int probe_table(long n, const char *object)
{
	struct bpf_object *obj = bpf_object__open_file(object, NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "uprobe_floor: cannot load %s\n", object);
		return 1;
	}
	Dl_info info;
	if (!dladdr((void *)SSL_free, &info) || !info.dli_fname) {
		fprintf(stderr, "uprobe_floor: cannot find libssl\n");
		return 1;
	}
	struct target targets[] = {
	    {"SSL_free", call_ssl_free, info.dli_fname},
	    {"floor_single_stepped", floor_single_stepped, "/proc/self/exe"},
	    {"floor_emulated", floor_emulated, "/proc/self/exe"},
	};
	for (size_t i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		const struct target *t = &targets[i];
		printf("%s none %.3f\n", t->name, us_per_call(t->call, n));
		struct bpf_link *entry = attach(obj, "enav_bench_empty_uprobe", t, false);
		if (!entry)
			return 1;
		printf("%s entry %.3f\n", t->name, us_per_call(t->call, n));
		struct bpf_link *ret = attach(obj, "enav_bench_empty_uretprobe", t, true);
		if (!ret)
			return 1;
		printf("%s entry+return %.3f\n", t->name, us_per_call(t->call, n));
		bpf_link__destroy(entry);
		printf("%s return %.3f\n", t->name, us_per_call(t->call, n));
		bpf_link__destroy(ret);
		fflush(stdout);
	}
	bpf_object__close(obj);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "stats") == 0)
		return hold_stats();
	long n = argc > 1 ? atol(argv[1]) : 200000;
	if (n <= 0)
		return 2;
	if (argc > 2)
		return probe_table(n, argv[2]);
	printf("%.3f\n", us_per_call(call_ssl_free, n));
	return 0;
}
