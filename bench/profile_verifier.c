/* SPDX-License-Identifier: Apache-2.0 */
/*
 * profile_verifier [0|1]: loads one profiling skeleton (SKEL, chosen at
 * build time by bench/profile_verifier_cost.sh) with the unwinder on (1) or
 * off (0) and prints, per program, the verifier's own statistics line
 * ("processed N insns ...", log level 4, every kernel since 5.2, unlike
 * bpf_prog_info.verified_insns) and the object's load time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include SKEL_H

#define CAT2(a, b) a##b
#define CAT(a, b)  CAT2(a, b)
#define MAX_PROGS  16

static char logs[MAX_PROGS][1 << 16];

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* What the probe's row sched_switch_prev_state finds (Linux 5.18+). */
static bool switch_has_state(void)
{
	struct btf *b = btf__load_vmlinux_btf();
	if (!b)
		return false;
	int id = btf__find_by_name_kind(b, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	const struct btf_type *t = id < 0 ? NULL : btf__type_by_id(b, id);
	while (t && (btf_is_typedef(t) || btf_is_ptr(t)))
		t = btf__type_by_id(b, t->type);
	bool yes = t && btf_is_func_proto(t) && btf_vlen(t) >= 5;
	btf__free(b);
	return yes;
}

int main(int argc, char **argv)
{
	struct SKEL *s = CAT(SKEL, __open)();
	if (!s) {
		perror("open");
		return 1;
	}
	int unwind = argc > 1 ? atoi(argv[1]) : 1;
	s->rodata->enav_unwind_enabled = unwind;
	s->rodata->enav_switch_state_arg = switch_has_state();
	bpf_map__set_max_entries(s->maps.enav_unwind_rows, 1 << 20);
	bpf_map__set_max_entries(s->maps.enav_unwind_procs, 256);
	/* Preallocated: what kernels before 6.1 need; the verifier's work is
	 * the same. */
	bpf_map__set_map_flags(s->maps.enav_unwind_procs, 0);
	struct bpf_program *p;
	int i = 0;
	bpf_object__for_each_program(p, s->obj)
	{
		const char *n = bpf_program__name(p);
		/* The futex2 and futex_waitv hooks are the futex exit's copies,
		 * and missing on older kernels. */
		if (strstr(n, "futex2") || strstr(n, "waitv") || i == MAX_PROGS) {
			bpf_program__set_autoload(p, false);
			continue;
		}
		bpf_program__set_log_buf(p, logs[i], sizeof(logs[i]));
		bpf_program__set_log_level(p, 4);
		i++;
	}
	double t0 = now_s();
	int err = CAT(SKEL, __load)(s);
	double t1 = now_s();
	i = 0;
	bpf_object__for_each_program(p, s->obj)
	{
		if (!bpf_program__autoload(p))
			continue;
		char line[200] = "";
		const char *l = strstr(logs[i], "processed ");
		if (l)
			sscanf(l, "%199[^\n]", line);
		printf("%-24s %s\n", bpf_program__name(p), line);
		i++;
	}
	printf("loaded with the unwinder %s in %.2f s (error %d)\n", unwind ? "on" : "off", t1 - t0,
	       err);
	CAT(SKEL, __destroy)(s);
	return err ? 1 : 0;
}
