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
#include "features/node/node.h"
#include "features/node/node_source.h"

/*
 * The node's families fit in this; the cgroups' grow with host.max_cgroups
 * (enav_node_cgroups_exposition_bound).  The block grows as it is written:
 * a fixed 768 KiB used to overflow with about 230 cgroups of long names, and
 * the node's metrics went with the cgroups'.
 */
#define HOST_NODE_BYTES ((size_t)4 << 20)

struct host_source {
	struct enav_host *host;
	struct enav_node *node;
	struct enav_node_cgroups *cgroups;
	pthread_mutex_t lock; /* one render at a time; protects the cache */
	char *cache;
	size_t cache_len, cache_cap_bytes;
	uint64_t cache_at_ns;
	bool cache_valid;
	_Atomic uint64_t renders, cache_hits, overflows, families_dropped;
};

static void render(struct host_source *h, struct enav_promtext *p)
{
	enav_node_render(h->node, p);
	struct enav_discovery *d = enav_host_discovery(h->host);
	if (!h->cgroups || !d)
		return;
	struct enav_snapshot *cur, *prev;
	enav_discovery_acquire(d, &cur, &prev);
	if (cur)
		enav_node_cgroups_render(h->cgroups, cur, enav_host_config(h->host)->host.cgroups,
					 p);
	enav_snapshot_release(cur);
	enav_snapshot_release(prev);
}

static void host_metrics(void *state, struct enav_promtext *out)
{
	struct host_source *h = state;
	pthread_mutex_lock(&h->lock);
	uint64_t now = enav_clock_mono_ns();
	uint64_t ttl = (uint64_t)enav_host_config(h->host)->host.cache_ms * 1000000ull;
	if (!h->cache_valid || now - h->cache_at_ns >= ttl) {
		/* A new block each collection; at its cap whole families are left
		 * out (cgroups first: the node's are written before them). */
		struct enav_promtext p;
		if (enav_promtext_init_growable(&p, h->cache_cap_bytes) == 0) {
			render(h, &p);
			free(h->cache);
			h->cache = p.buf;
			h->cache_len = p.len;
			h->cache_valid = true;
			if (p.families_dropped) {
				atomic_fetch_add(&h->overflows, 1);
				atomic_fetch_add(&h->families_dropped, p.families_dropped);
			}
		} else {
			/* Out of memory: the last block stays. */
			atomic_fetch_add(&h->overflows, 1);
		}
		atomic_fetch_add(&h->renders, 1);
		h->cache_at_ns = now;
	} else {
		atomic_fetch_add(&h->cache_hits, 1);
	}
	if (h->cache)
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
	enav_promtext_single_u64(out, "enav_host_families_dropped_total", "counter",
				 "Node or cgroup metric families left out of a collection at the "
				 "block's hard cap.",
				 atomic_load(&h->families_dropped));
}

static void host_stop(void *state)
{
	struct host_source *h = state;
	if (!h)
		return;
	enav_node_close(h->node);
	enav_node_cgroups_close(h->cgroups);
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
	h->host = a;
	pthread_mutex_init(&h->lock, NULL);
	h->cache_cap_bytes = enav_node_source_exposition_bound(cfg);
	h->node = enav_node_open("/proc", "/sys", cfg->host.max_devices, err, errlen);
	if (!h->node)
		return -EINVAL;
	if (cfg->host.cgroups != ENAV_HOST_CGROUPS_NONE && enav_host_discovery(a)) {
		const struct enav_cgroup_mounts *m = enav_discovery_mounts(enav_host_discovery(a));
		h->cgroups =
		    enav_node_cgroups_open(m->v2_mount, m, cfg->host.max_cgroups, err, errlen);
		if (!h->cgroups)
			return -EINVAL;
	}
	enav_info("host resources: node metrics%s", h->cgroups ? " and per-cgroup metrics" : "");
	return 0;
}

size_t enav_node_source_exposition_bound(const struct enav_config *cfg)
{
	size_t cap = HOST_NODE_BYTES;
	if (cfg->host.cgroups != ENAV_HOST_CGROUPS_NONE)
		cap += enav_node_cgroups_exposition_bound(cfg->host.max_cgroups);
	return cap < ENAV_METRICS_CEILING_BYTES ? cap : ENAV_METRICS_CEILING_BYTES;
}

bool enav_node_source_enabled(const struct enav_config *cfg)
{
	return cfg->host.enabled;
}

const struct enav_source_ops enav_node_source_ops = {
    .start = host_start,
    .stop = host_stop,
    .metrics = host_metrics,
};
