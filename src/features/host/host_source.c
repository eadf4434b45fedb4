/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host source: node and per-cgroup resources, pulled at scrape time.
 * With host.cache_ms > 0 a rendered block is reused until it expires, so a
 * scrape storm costs one collection per interval.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/host.h"
#include "platform/clock.h"
#include "platform/log.h"
#include "discovery/cgroup_layout.h"
#include "discovery/discovery.h"
#include "features/host/host.h"
#include "features/host/host_source.h"

#define HOST_BUFFER_BYTES (768u << 10) /* node + cgroup exposition per render */

struct host_source {
	struct enav_host *agent;
	struct enav_host_node *node;
	struct enav_host_cgroups *cgroups;
	pthread_mutex_t lock; /* one render at a time; protects the cache */
	char *cache;
	size_t cache_len;
	uint64_t cache_at_ns;
	bool cache_valid;
	_Atomic uint64_t renders, cache_hits, overflows;
};

static void render(struct host_source *h, struct enav_promtext *p)
{
	enav_host_node_render(h->node, p);
	struct enav_discovery *d = enav_host_discovery(h->agent);
	if (!h->cgroups || !d)
		return;
	struct enav_snapshot *cur, *prev;
	enav_discovery_acquire(d, &cur, &prev);
	if (cur)
		enav_host_cgroups_render(h->cgroups, cur, enav_host_config(h->agent)->host.cgroups,
					 p);
	enav_snapshot_release(cur);
	enav_snapshot_release(prev);
}

static void host_metrics(void *state, struct enav_promtext *out)
{
	struct host_source *h = state;
	pthread_mutex_lock(&h->lock);
	uint64_t now = enav_clock_mono_ns();
	uint64_t ttl = (uint64_t)enav_host_config(h->agent)->host.cache_ms * 1000000ull;
	if (!h->cache_valid || now - h->cache_at_ns >= ttl) {
		struct enav_promtext p;
		enav_promtext_init(&p, h->cache, HOST_BUFFER_BYTES);
		render(h, &p);
		atomic_fetch_add(&h->renders, 1);
		h->cache_valid = !p.overflow;
		h->cache_len = p.overflow ? 0 : p.len;
		h->cache_at_ns = now;
		if (p.overflow)
			atomic_fetch_add(&h->overflows, 1);
	} else {
		atomic_fetch_add(&h->cache_hits, 1);
	}
	enav_promtext_raw(out, h->cache, h->cache_len);
	pthread_mutex_unlock(&h->lock);

	enav_promtext_family(out, "enav_host_renders_total", "counter",
			     "Host resource collections, and scrapes answered from the cache.");
	const char *lr[] = {"outcome", "collected"};
	const char *lc[] = {"outcome", "cached"};
	const char *lo[] = {"outcome", "overflow"};
	enav_promtext_sample_u64(out, "enav_host_renders_total", lr, 1, atomic_load(&h->renders));
	enav_promtext_sample_u64(out, "enav_host_renders_total", lc, 1,
				 atomic_load(&h->cache_hits));
	enav_promtext_sample_u64(out, "enav_host_renders_total", lo, 1, atomic_load(&h->overflows));
}

static void host_stop(void *state)
{
	struct host_source *h = state;
	if (!h)
		return;
	enav_host_node_close(h->node);
	enav_host_cgroups_close(h->cgroups);
	free(h->cache);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

static int host_start(struct enav_host *a, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(a);
	struct host_source *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	*state = h;
	h->agent = a;
	pthread_mutex_init(&h->lock, NULL);
	h->cache = malloc(HOST_BUFFER_BYTES);
	if (!h->cache)
		return -ENOMEM;
	h->node = enav_host_node_open("/proc", "/sys", cfg->host.max_devices, err, errlen);
	if (!h->node)
		return -EINVAL;
	if (cfg->host.cgroups != ENAV_HOST_CGROUPS_NONE && enav_host_discovery(a)) {
		const struct enav_cgroup_mounts *m = enav_discovery_mounts(enav_host_discovery(a));
		h->cgroups =
		    enav_host_cgroups_open(m->v2_mount, m, cfg->host.max_cgroups, err, errlen);
		if (!h->cgroups)
			return -EINVAL;
	}
	enav_info("host resources: node metrics%s", h->cgroups ? " and per-cgroup metrics" : "");
	return 0;
}

bool enav_host_source_enabled(const struct enav_config *cfg)
{
	return cfg->host.enabled;
}

const struct enav_source_ops enav_host_source_ops = {
    .start = host_start,
    .stop = host_stop,
    .metrics = host_metrics,
};
