/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The hand-over between the profile rows (runtime/profiles.h): the profiling
 * source and the pprof pull publish, the spool and Pyroscope consume, and
 * none of them names another.  The list is fixed while publishers run (see
 * runtime/host.h), so publishing takes no lock.
 */
#include <errno.h>
#include <stdio.h>

#include "runtime/agent_priv.h"

int enav_host_consume_profiles(struct enav_host *a, const struct enav_profile_consumer *c,
			       char *err, size_t errlen)
{
	if (a->n_profile_consumers == ENAV_MAX_PROFILE_CONSUMERS) {
		snprintf(err, errlen, "%s: more than %d rows consume profiles",
			 a->starting ? a->starting->name : "profiles", ENAV_MAX_PROFILE_CONSUMERS);
		return -ENOSPC;
	}
	a->profile_consumers[a->n_profile_consumers++] = *c;
	return 0;
}

void enav_host_unconsume_profiles(struct enav_host *a, void *ctx)
{
	for (size_t i = 0; i < a->n_profile_consumers; i++)
		if (a->profile_consumers[i].ctx == ctx) {
			a->profile_consumers[i] = a->profile_consumers[--a->n_profile_consumers];
			return;
		}
}

void enav_host_publish_interval(struct enav_host *a, const struct enav_profile_interval *iv)
{
	const struct enav_profile_service *svc;
	struct enav_profile_store *store = enav_host_profile_service(a, &svc);
	if (!store)
		return;
	for (size_t i = 0; i < a->n_profile_consumers; i++) {
		const struct enav_profile_consumer *c = &a->profile_consumers[i];
		if (c->interval)
			c->interval(c->ctx, store, svc, iv);
	}
}

void enav_host_publish_pulled(struct enav_host *a, const struct enav_pulled_profile *p)
{
	for (size_t i = 0; i < a->n_profile_consumers; i++) {
		const struct enav_profile_consumer *c = &a->profile_consumers[i];
		if (c->pulled)
			c->pulled(c->ctx, p);
	}
}
