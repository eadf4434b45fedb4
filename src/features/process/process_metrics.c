/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Process lifecycle metrics.  Label sets are fixed by construction (outcome,
 * container or not), so cardinality cannot grow with traffic.
 */
#include "features/process/process_metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static const double lifetime_bounds[] = {0.001, 0.01, 0.1, 1, 10, 60, 600, 3600};
#define N_BOUNDS (sizeof(lifetime_bounds) / sizeof(lifetime_bounds[0]))

enum outcome { OUT_SUCCESS, OUT_FAILURE, OUT_SIGNALED, OUT__COUNT };
static const char *const outcome_names[OUT__COUNT] = {"success", "failure", "signaled"};

struct process_metrics {
	_Atomic uint64_t execs[2]; /* [in container] */
	_Atomic uint64_t exits[OUT__COUNT];
	_Atomic uint64_t lifetime_buckets[N_BOUNDS + 1];
	_Atomic uint64_t lifetime_count;
	_Atomic uint64_t lifetime_sum_us;
};

static int pm_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	*state = calloc(1, sizeof(struct process_metrics));
	return *state ? 0 : -ENOMEM;
}

static size_t pm_observe(void *state, const struct enav_signal *s, struct enav_signal **out,
			 size_t out_cap)
{
	struct process_metrics *pm = state;
	const struct enav_process_signal *p = &s->process;
	if (s->kind == ENAV_SIGNAL_PROCESS_EXEC) {
		atomic_fetch_add(&pm->execs[p->identity->container_id[0] != '\0'], 1);
		return 0;
	}
	if (s->kind != ENAV_SIGNAL_PROCESS_EXIT)
		return 0;
	enum outcome o = p->exit_signal ? OUT_SIGNALED : p->exit_code ? OUT_FAILURE : OUT_SUCCESS;
	atomic_fetch_add(&pm->exits[o], 1);
	double secs = (double)p->lifetime_ns / 1e9;
	size_t b = 0;
	while (b < N_BOUNDS && secs > lifetime_bounds[b])
		b++;
	atomic_fetch_add(&pm->lifetime_buckets[b], 1);
	atomic_fetch_add(&pm->lifetime_count, 1);
	atomic_fetch_add(&pm->lifetime_sum_us, p->lifetime_ns / 1000);
	return 0;
}

static void pm_fini(void *state)
{
	free(state);
}

static void pm_metrics(void *state, struct enav_promtext *p)
{
	struct process_metrics *pm = state;
	enav_promtext_family(p, "enav_process_execs_total", "counter",
			     "Processes executed, split by whether the cgroup proves a container.");
	const char *l0[] = {"in_container", "false"};
	const char *l1[] = {"in_container", "true"};
	enav_promtext_sample_u64(p, "enav_process_execs_total", l0, 1, atomic_load(&pm->execs[0]));
	enav_promtext_sample_u64(p, "enav_process_execs_total", l1, 1, atomic_load(&pm->execs[1]));
	enav_promtext_family(p, "enav_process_exits_total", "counter",
			     "Process exits by outcome (exit code 0, non-zero, or a signal).");
	for (int o = 0; o < OUT__COUNT; o++) {
		const char *l[] = {"outcome", outcome_names[o]};
		enav_promtext_sample_u64(p, "enav_process_exits_total", l, 1,
					 atomic_load(&pm->exits[o]));
	}
	enav_promtext_family(p, "enav_process_lifetime_seconds", "histogram",
			     "Lifetime of exited processes.");
	uint64_t cum = 0;
	char le[32];
	for (size_t b = 0; b <= N_BOUNDS; b++) {
		cum += atomic_load(&pm->lifetime_buckets[b]);
		if (b < N_BOUNDS)
			snprintf(le, sizeof(le), "%g", lifetime_bounds[b]);
		else
			snprintf(le, sizeof(le), "+Inf");
		const char *l[] = {"le", le};
		enav_promtext_sample_u64(p, "enav_process_lifetime_seconds_bucket", l, 1, cum);
	}
	enav_promtext_sample(p, "enav_process_lifetime_seconds_sum", NULL, 0,
			     (double)atomic_load(&pm->lifetime_sum_us) / 1e6);
	enav_promtext_sample_u64(p, "enav_process_lifetime_seconds_count", NULL, 0,
				 atomic_load(&pm->lifetime_count));
}

bool enav_process_metrics_enabled(const struct enav_config *cfg)
{
	return cfg->generators.process_metrics;
}

const struct enav_generator_ops enav_process_metrics_ops = {
    .init = pm_init,
    .observe = pm_observe,
    .fini = pm_fini,
    .metrics = pm_metrics,
};
