/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The controller: one thread drives the list/watch of all three kinds through
 * one curl multi handle.  Only that thread touches the caches, so there is no
 * lock on them; readers get immutable views swapped in under a mutex.
 */
#include "discovery/k8s_http.h"
#include "discovery/k8s_state.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "platform/log.h"

uint64_t k8s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void enav_k8s_tuning_defaults(struct enav_k8s_tuning *t)
{
	*t = (struct enav_k8s_tuning){
	    .watch_timeout_s = 300,
	    .backoff_base_ms = 250,
	    .backoff_max_ms = 30000,
	    .publish_interval_ms = 50,
	    .list_limit = 100,
	    .max_event_bytes = 1024 * 1024,
	    .max_list_bytes = 8 * 1024 * 1024,
	};
}

/* ---- publishing ----------------------------------------------------------- */

static void publish(struct enav_k8s *k, uint64_t now)
{
	struct k8s_view_stats st;
	struct enav_k8s_view *v, *old;

	v = k8s_view_build(&k->ks[K8S_POD].store, &k->ks[K8S_SERVICE].store,
			   &k->ks[K8S_SLICE].store, &k->keep, k->generation + 1, true, &st);
	if (!v) {
		enav_warn("kubernetes: cannot build a view (out of memory); retrying");
		return; /* stays dirty: retried next round */
	}
	k->generation++;
	k->dirty = false;
	k->last_publish_ms = now;
	atomic_store(&k->services_truncated, st.services_truncated);
	atomic_store(&k->labels_truncated, st.labels_truncated);
	pthread_mutex_lock(&k->view_lock);
	old = k->view;
	k->view = v;
	pthread_mutex_unlock(&k->view_lock);
	enav_k8s_view_release(old);
	if (k->on_change)
		k->on_change(k->ctx);
}

/* Publish when every kind has listed once, at most once per interval.
 * Returns how long until a pending publish is due (ms), or -1. */
static long maybe_publish(struct enav_k8s *k, uint64_t now)
{
	if (!atomic_load(&k->synced)) {
		for (int i = 0; i < K8S_NKINDS; i++)
			if (!k->ks[i].listed)
				return -1;
		atomic_store(&k->synced, 1);
		enav_info("kubernetes: synced, %u pods, %u services, %u EndpointSlices",
			  k->ks[K8S_POD].store.count, k->ks[K8S_SERVICE].store.count,
			  k->ks[K8S_SLICE].store.count);
		k->dirty = true;
	}
	if (!k->dirty)
		return -1;
	if (k->generation > 0 && now - k->last_publish_ms < k->t.publish_interval_ms)
		return (long)(k->last_publish_ms + k->t.publish_interval_ms - now);
	publish(k, now);
	return k->dirty ? (long)k->t.publish_interval_ms : -1;
}

/* ---- thread --------------------------------------------------------------- */

static void *run(void *arg)
{
	struct enav_k8s *k = arg;

	while (!atomic_load(&k->stop)) {
		uint64_t now = k8s_now_ms();
		long wait = 50, due;
		int running = 0, left;
		CURLMsg *msg;

		for (int i = 0; i < K8S_NKINDS; i++)
			k8s_kind_tick(k, &k->ks[i], now);
		curl_multi_perform(k->multi, &running);
		while ((msg = curl_multi_info_read(k->multi, &left)) != NULL) {
			struct k8s_kstate *ks = NULL;

			if (msg->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&ks);
			if (ks)
				k8s_kind_done(k, ks, msg->data.result);
		}
		now = k8s_now_ms();
		due = maybe_publish(k, now);
		if (due >= 0 && due < wait)
			wait = due;
		for (int i = 0; i < K8S_NKINDS; i++) {
			long w = k8s_kind_wait(k, &k->ks[i], now);

			if (w >= 0 && w < wait)
				wait = w;
		}
		if (curl_multi_poll(k->multi, NULL, 0, (int)wait, NULL) != CURLM_OK)
			usleep((useconds_t)wait * 1000); /* never spin on a broken multi */
	}
	for (int i = 0; i < K8S_NKINDS; i++)
		k8s_kind_abort(k, &k->ks[i]);
	return NULL;
}

/* ---- start / stop --------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static int node_name(const struct enav_config *cfg, char *out, size_t cap, char *err, size_t errlen)
{
	const char *env = getenv("NODE_NAME");
	char host[256] = "";
	const char *n = cfg->kubernetes.node_name;

	if (!n[0] && env && env[0])
		n = env;
	if (!n[0] && gethostname(host, sizeof(host) - 1) == 0)
		n = host;
	if (!n[0] || strlen(n) >= cap) {
		snprintf(err, errlen,
			 "kubernetes.node_name: cannot determine this node's name "
			 "(set kubernetes.node_name or $NODE_NAME)");
		return -1;
	}
	memcpy(out, n, strlen(n) + 1);
	return 0;
}

static void free_k(struct enav_k8s *k)
{
	for (int i = 0; i < K8S_NKINDS; i++)
		k8s_kind_free(&k->ks[i]);
	if (k->multi)
		curl_multi_cleanup(k->multi);
	enav_k8s_view_release(k->view);
	pthread_mutex_destroy(&k->view_lock);
	k8s_auth_free(&k->auth);
	free(k);
}

struct enav_k8s *enav_k8s_start_tuned(const struct enav_config *cfg,
				      const struct enav_k8s_tuning *t, enav_k8s_change_fn on_change,
				      void *ctx, char *err, size_t errlen)
{
	const uint32_t caps[K8S_NKINDS] = {cfg->kubernetes.max_pods, cfg->kubernetes.max_services,
					   cfg->kubernetes.max_endpointslices};
	struct enav_k8s *k;
	int rc;

	err[0] = '\0';
	k = calloc(1, sizeof(*k));
	if (!k) {
		snprintf(err, errlen, "kubernetes: out of memory");
		return NULL;
	}
	pthread_mutex_init(&k->view_lock, NULL);
	rc = k8s_auth_resolve(cfg, &k->auth, err, errlen);
	if (rc <= 0) {
		free_k(k);
		return NULL; /* rc == 0: not configured, err stays empty */
	}
	pthread_once(&curl_once, curl_init);
	k->t = *t;
	k->keep = cfg->kubernetes.keep_labels;
	k->on_change = on_change;
	k->ctx = ctx;
	k->timeout_ms =
	    cfg->kubernetes.request_timeout_ms ? cfg->kubernetes.request_timeout_ms : 10000;
	k->rng = k8s_now_ms() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)k;
	k->view = k8s_view_empty();
	k->multi = curl_init_rc == CURLE_OK ? curl_multi_init() : NULL;
	if (node_name(cfg, k->node, sizeof(k->node), err, errlen) != 0) {
		free_k(k);
		return NULL;
	}
	k->opts.node_name = k->node;
	rc = !k->view || !k->multi;
	for (int i = 0; !rc && i < K8S_NKINDS; i++)
		rc = k8s_kind_init(k, &k->ks[i], (enum k8s_kind)i, caps[i] ? caps[i] : 2048);
	if (rc || pthread_create(&k->thread, NULL, run, k) != 0) {
		snprintf(err, errlen, "kubernetes: cannot start the controller (out of memory)");
		free_k(k);
		return NULL;
	}
	enav_info("kubernetes: controller started (%s, server %s, node %s)", k->auth.source,
		  k->auth.server, k->node);
	return k;
}

struct enav_k8s *enav_k8s_start(const struct enav_config *cfg, enav_k8s_change_fn on_change,
				void *ctx, char *err, size_t errlen)
{
	struct enav_k8s_tuning t;

	enav_k8s_tuning_defaults(&t);
	return enav_k8s_start_tuned(cfg, &t, on_change, ctx, err, errlen);
}

void enav_k8s_stop(struct enav_k8s *k)
{
	if (!k)
		return;
	atomic_store(&k->stop, true);
	curl_multi_wakeup(k->multi);
	pthread_join(k->thread, NULL);
	free_k(k);
}

struct enav_k8s_view *enav_k8s_view_acquire(struct enav_k8s *k)
{
	struct enav_k8s_view *v;

	if (!k)
		return NULL;
	pthread_mutex_lock(&k->view_lock);
	v = k->view;
	atomic_fetch_add_explicit(&v->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&k->view_lock);
	return v;
}
