/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Kubernetes controller against tests/k8s/fake_apiserver.py: pagination,
 * watch events, bookmarks, 410 Gone, broken and stalled streams, backoff,
 * caps, services from EndpointSlices, token rotation, metrics and stop time.
 * Each test gets a fresh server and controller.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "platform/log.h"
#include "discovery/k8s_priv.h"
#include "fake.h"

#define NODE "node-a"

static struct fake F;
static _Atomic int changes;

static int setup(void **state)
{
	changes = 0;
	return fake_start(&F);
}

static int teardown(void **state)
{
	fake_stop(&F);
	return 0;
}

static void on_change(void *ctx)
{
	changes++;
}

static void cfg_init(struct enav_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->kubernetes.enabled = ENAV_K8S_ON;
	snprintf(cfg->kubernetes.api_server, sizeof(cfg->kubernetes.api_server), "%s", F.url);
	snprintf(cfg->kubernetes.node_name, sizeof(cfg->kubernetes.node_name), NODE);
	cfg->kubernetes.keep_labels.n = 1;
	snprintf(cfg->kubernetes.keep_labels.item[0], ENAV_CONFIG_ENTRY_MAX, "app");
	cfg->kubernetes.max_pods = 2048;
	cfg->kubernetes.max_services = 4096;
	cfg->kubernetes.max_endpointslices = 8192;
	cfg->kubernetes.request_timeout_ms = 2000;
}

static void tuning_init(struct enav_k8s_tuning *t)
{
	enav_k8s_tuning_defaults(t);
	t->watch_timeout_s = 30;
	t->backoff_base_ms = 100;
	t->backoff_max_ms = 1000;
	t->publish_interval_ms = 20;
	t->list_limit = 10;
}

static struct enav_k8s *start_with(const struct enav_config *cfg, const struct enav_k8s_tuning *t)
{
	char err[512] = "";
	struct enav_k8s *k = enav_k8s_start_tuned(cfg, t, on_change, NULL, err, sizeof(err));

	if (!k)
		fail_msg("start failed: %s", err);
	return k;
}

static struct enav_k8s *start(void)
{
	struct enav_config cfg;
	struct enav_k8s_tuning t;

	cfg_init(&cfg);
	tuning_init(&t);
	return start_with(&cfg, &t);
}

/* ---- waiting on the view -------------------------------------------------- */

typedef bool (*view_pred)(const struct enav_k8s_view *v, const void *arg);

static bool wait_view(struct enav_k8s *k, view_pred pred, const void *arg, int timeout_ms)
{
	uint64_t end = mono_ms() + (uint64_t)timeout_ms;

	do {
		struct enav_k8s_view *v = enav_k8s_view_acquire(k);
		bool ok = pred(v, arg);

		enav_k8s_view_release(v);
		if (ok)
			return true;
		usleep(2000);
	} while (mono_ms() < end);
	return false;
}

static bool is_synced(const struct enav_k8s_view *v, const void *arg)
{
	return v->synced;
}

static bool n_pods_is(const struct enav_k8s_view *v, const void *arg)
{
	return v->synced && v->n_pods == *(const uint32_t *)arg;
}

static bool has_pod(const struct enav_k8s_view *v, const void *uid)
{
	return enav_k8s_view_find_pod(v, uid) != NULL;
}

static bool lacks_pod(const struct enav_k8s_view *v, const void *uid)
{
	return v->synced && enav_k8s_view_find_pod(v, uid) == NULL;
}

struct label_want {
	const char *uid, *key, *value;
};

static bool pod_label(const struct enav_k8s_view *v, const void *arg)
{
	const struct label_want *w = arg;
	const struct enav_k8s_pod *p = enav_k8s_view_find_pod(v, w->uid);

	return p && enav_k8s_view_pod_has_label(v, p, w->key, w->value);
}

struct svc_want {
	const char *uid;
	const char *service; /* "ns/name", or "" for none */
	enum enav_k8s_service_source source;
};

static bool pod_service(const struct enav_k8s_view *v, const void *arg)
{
	const struct svc_want *w = arg;
	const struct enav_k8s_pod *p = enav_k8s_view_find_pod(v, w->uid);
	char ref[400];

	if (!p || enav_k8s_view_pod_services_source(v, p) != w->source)
		return false;
	if (!w->service[0])
		return p->n_services == 0;
	if (p->n_services != 1)
		return false;
	snprintf(ref, sizeof(ref), "%s/%s", p->services[0].namespace_, p->services[0].name);
	return strcmp(ref, w->service) == 0;
}

static void sync_and_watch(struct enav_k8s *k)
{
	assert_true(wait_view(k, is_synced, NULL, 5000));
	assert_true(fake_wait_watchers(&F, "pods", 1, 5000));
	assert_true(fake_wait_watchers(&F, "services", 1, 5000));
	assert_true(fake_wait_watchers(&F, "endpointslices", 1, 5000));
}

/* ---- metrics -------------------------------------------------------------- */

static double metric(struct enav_k8s *k, const char *series)
{
	static char buf[65536];
	struct enav_promtext p;
	size_t n = strlen(series);

	enav_promtext_init(&p, buf, sizeof(buf));
	enav_k8s_metrics(k, &p);
	assert_false(p.overflow);
	for (const char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, series, n) == 0 && l[n] == ' ')
			return atof(l + n + 1);
	return 0;
}

static bool wait_metric(struct enav_k8s *k, const char *series, double min, int timeout_ms)
{
	uint64_t end = mono_ms() + (uint64_t)timeout_ms;

	do {
		if (metric(k, series) >= min)
			return true;
		usleep(5000);
	} while (mono_ms() < end);
	return false;
}

static char uidbuf[64][40];

static const char *uid_n(int i)
{
	snprintf(uidbuf[i % 64], sizeof(uidbuf[0]), "00000000-0000-4000-8000-%012d", i);
	return uidbuf[i % 64];
}

static void add_pods(int from, int to, const char *node)
{
	char name[32];

	for (int i = from; i < to; i++) {
		snprintf(name, sizeof(name), "p%03d", i);
		assert_true(fake_obj(&F, "add", "pods",
				     mk_pod("shop", name, uid_n(i), node,
					    json_pack("{s:s}", "app", "web"))) > 0);
	}
}

/* ---- tests ---------------------------------------------------------------- */

static void test_disabled_without_cluster(void **state)
{
	struct enav_config cfg;
	char err[256] = "x";

	cfg_init(&cfg);
	cfg.kubernetes.enabled = ENAV_K8S_AUTO;
	cfg.kubernetes.api_server[0] = '\0';
	unsetenv("KUBERNETES_SERVICE_HOST");
	assert_null(enav_k8s_start(&cfg, NULL, NULL, err, sizeof(err)));
	assert_string_equal(err, "");
}

static void test_list_pagination(void **state)
{
	uint32_t want = 25;
	char sel[128];
	struct enav_k8s *k;

	add_pods(0, 25, NODE);
	add_pods(25, 28, "node-b");
	k = start();
	assert_true(wait_view(k, n_pods_is, &want, 5000));
	/* 25 pods at limit=10: three pages, the field selector on each. */
	assert_int_equal(fake_count(&F, "pods", "list", 0), 3);
	assert_true(fake_last_param(&F, "pods", "list", "fieldSelector", sel, sizeof(sel)));
	assert_string_equal(sel, "spec.nodeName=" NODE);
	assert_true(fake_last_param(&F, "pods", "list", "continue", sel, sizeof(sel)));
	assert_true(sel[0] != '\0');
	assert_true(fake_last_param(&F, "pods", "list", "limit", sel, sizeof(sel)));
	assert_string_equal(sel, "10");
	assert_true(changes > 0);
	assert_int_equal(metric(k, "enav_k8s_synced"), 1);
	assert_int_equal(metric(k, "enav_k8s_objects{kind=\"pod\"}"), 25);
	enav_k8s_stop(k);
}

static void test_watch_events(void **state)
{
	struct enav_k8s *k = start();
	const char *uid = uid_n(1);
	struct label_want lw = {uid, "app", "db"};
	uint64_t t0;
	json_t *p;

	sync_and_watch(k);
	t0 = mono_ms();
	add_pods(1, 2, NODE);
	assert_true(wait_view(k, has_pod, uid, 1000));
	print_message("added pod visible after %llu ms\n", (unsigned long long)(mono_ms() - t0));

	/* MODIFIED: new labels, and a Deployment owner proven by the hash. */
	p = mk_pod("shop", "p001", uid, NODE,
		   json_pack("{s:s,s:s}", "app", "db", "pod-template-hash", "5f6d"));
	json_object_set_new(json_object_get(p, "metadata"), "ownerReferences",
			    json_pack("[{s:s,s:s,s:s,s:b}]", "apiVersion", "apps/v1", "kind",
				      "ReplicaSet", "name", "db-5f6d", "controller", 1));
	assert_true(fake_obj(&F, "modify", "pods", p) > 0);
	assert_true(wait_view(k, pod_label, &lw, 1000));
	{
		struct enav_k8s_view *v = enav_k8s_view_acquire(k);
		const struct enav_k8s_pod *pod = enav_k8s_view_find_pod(v, uid);

		assert_string_equal(pod->owner_kind, "Deployment");
		assert_string_equal(pod->owner_name, "db");
		assert_string_equal(pod->node, NODE);
		assert_int_equal(pod->n_labels, 1); /* keep_labels: app only */
		assert_string_equal(pod->labels[0].value, "db");
		assert_string_equal(enav_k8s_view_pod_phase(v, pod), "Running");
		assert_true(v->generation > 1);
		enav_k8s_view_release(v);
	}
	assert_true(fake_obj(&F, "delete", "pods", mk_pod("shop", "p001", uid, NODE, NULL)) > 0);
	assert_true(wait_view(k, lacks_pod, uid, 1000));
	assert_true(metric(k, "enav_k8s_watch_events_total{kind=\"pod\",type=\"ADDED\"}") >= 1);
	assert_true(metric(k, "enav_k8s_watch_events_total{kind=\"pod\",type=\"MODIFIED\"}") >= 1);
	assert_true(metric(k, "enav_k8s_watch_events_total{kind=\"pod\",type=\"DELETED\"}") >= 1);
	enav_k8s_stop(k);
}

static void test_services(void **state)
{
	static const char *const targets[] = {"uid:00000000-0000-4000-8000-000000000001",
					      "name:shop/p002", NULL};
	struct enav_k8s *k;
	struct svc_want w1 = {uid_n(1), "shop/web", ENAV_K8S_SERVICES_OBSERVED};
	struct svc_want w2 = {uid_n(2), "shop/web", ENAV_K8S_SERVICES_OBSERVED};
	struct svc_want w3 = {uid_n(3), "shop/web", ENAV_K8S_SERVICES_INFERRED};

	add_pods(1, 4, NODE);
	fake_obj(&F, "add", "services",
		 mk_service("shop", "web", json_pack("{s:s}", "app", "web")));
	fake_obj(&F, "add", "services",
		 mk_service("shop", "other", json_pack("{s:s}", "app", "other")));
	k = start();
	sync_and_watch(k);
	/* No slices yet: everything is inferred from the selector. */
	assert_true(wait_view(k, pod_service, &w3, 1000));
	fake_obj(&F, "add", "endpointslices", mk_slice("shop", "web-x1", "web", NODE, targets));
	assert_true(wait_view(k, pod_service, &w1, 1000));
	assert_true(wait_view(k, pod_service, &w2, 1000));
	assert_true(wait_view(k, pod_service, &w3, 1000)); /* no slice mentions p003 */
	/* Observed membership is not overridden by labels: p001 relabelled. */
	fake_obj(&F, "modify", "pods",
		 mk_pod("shop", "p001", uid_n(1), NODE, json_pack("{s:s}", "app", "other")));
	assert_true(wait_view(k, pod_service, &w1, 1000));
	/* Slice gone: back to inference, now from p001's new labels. */
	fake_obj(&F, "delete", "endpointslices", mk_slice("shop", "web-x1", "web", NODE, NULL));
	w1.service = "shop/other";
	w1.source = ENAV_K8S_SERVICES_INFERRED;
	assert_true(wait_view(k, pod_service, &w1, 1000));
	w2.source = ENAV_K8S_SERVICES_INFERRED;
	assert_true(wait_view(k, pod_service, &w2, 1000));
	/* Service deleted: nothing left for p003. */
	fake_obj(&F, "delete", "services", mk_service("shop", "web", NULL));
	w3.service = "";
	w3.source = ENAV_K8S_SERVICES_NONE;
	assert_true(wait_view(k, pod_service, &w3, 1000));
	enav_k8s_stop(k);
}

static void test_bookmark_moves_rv(void **state)
{
	struct enav_k8s *k = start();
	char rv[64], want[32];
	json_t *r;

	sync_and_watch(k);
	r = fake_ctl(&F, "{\"cmd\":\"bookmark\",\"kind\":\"pods\"}");
	snprintf(want, sizeof(want), "%s", json_string_value(json_object_get(r, "rv")));
	json_decref(r);
	assert_true(
	    wait_metric(k, "enav_k8s_watch_events_total{kind=\"pod\",type=\"BOOKMARK\"}", 1, 1000));
	json_decref(fake_ctl(&F, "{\"cmd\":\"close\",\"kind\":\"pods\"}"));
	assert_true(fake_wait_requests(&F, "pods", "watch", 0, 2, 2000));
	assert_int_equal(fake_count(&F, "pods", "watch", 0), 2);
	fake_last_param(&F, "pods", "watch", "resourceVersion", rv, sizeof(rv));
	assert_string_equal(rv, want);
	fake_last_param(&F, "pods", "watch", "allowWatchBookmarks", rv, sizeof(rv));
	assert_string_equal(rv, "true");
	assert_int_equal(fake_count(&F, "pods", "list", 0), 1); /* no relist */
	enav_k8s_stop(k);
}

static void test_gone_event_relists(void **state)
{
	struct enav_k8s *k;
	uint32_t want = 3;

	add_pods(0, 3, NODE);
	k = start();
	sync_and_watch(k);
	json_decref(fake_ctl(&F, "{\"cmd\":\"gone_event\",\"kind\":\"pods\"}"));
	assert_true(
	    wait_metric(k, "enav_k8s_relists_total{kind=\"pod\",reason=\"gone\"}", 1, 2000));
	assert_true(fake_wait_requests(&F, "pods", "watch", 0, 2, 2000));
	assert_int_equal(fake_count(&F, "pods", "list", 0), 2);
	assert_true(metric(k, "enav_k8s_watch_events_total{kind=\"pod\",type=\"ERROR\"}") >= 1);
	assert_true(wait_view(k, n_pods_is, &want, 1000));
	/* The too-old RV refused at watch start with an ERROR event, too. */
	json_decref(fake_ctl(&F, "{\"cmd\":\"gone_mode\",\"mode\":\"event\"}"));
	json_decref(fake_ctl(&F, "{\"cmd\":\"expire\"}"));
	json_decref(fake_ctl(&F, "{\"cmd\":\"close\",\"kind\":\"services\"}"));
	assert_true(
	    wait_metric(k, "enav_k8s_relists_total{kind=\"service\",reason=\"gone\"}", 1, 2000));
	assert_true(fake_wait_requests(&F, "services", "watch", 0, 3, 3000));
	assert_int_equal(fake_count(&F, "services", "list", 0), 2);
	enav_k8s_stop(k);
}

static void test_gone_status_relists(void **state)
{
	struct enav_k8s *k = start();
	char rv[64];
	long expired;
	json_t *r;

	sync_and_watch(k);
	r = fake_ctl(&F, "{\"cmd\":\"expire\"}");
	expired = atol(json_string_value(json_object_get(r, "rv")));
	json_decref(r);
	json_decref(fake_ctl(&F, "{\"cmd\":\"break\",\"kind\":\"pods\"}"));
	assert_true(
	    wait_metric(k, "enav_k8s_relists_total{kind=\"pod\",reason=\"gone\"}", 1, 3000));
	assert_true(wait_metric(
	    k, "enav_k8s_requests_total{kind=\"pod\",verb=\"watch\",code=\"410\"}", 1, 100));
	assert_true(fake_wait_requests(&F, "pods", "watch", 0, 3, 3000));
	assert_int_equal(fake_count(&F, "pods", "list", 0), 2);
	fake_last_param(&F, "pods", "watch", "resourceVersion", rv, sizeof(rv));
	assert_true(atol(rv) >= expired); /* watching from the new list's RV */
	enav_k8s_stop(k);
}

static void test_broken_stream_backoff(void **state)
{
	struct enav_k8s *k = start();
	double t0, ts[4];
	json_t *all, *r;
	size_t i;
	int n = 0;

	sync_and_watch(k);
	/* Three failing re-watches after the cut: delays must grow. */
	json_decref(fake_ctl(&F, "{\"cmd\":\"fail\",\"kind\":\"pods\",\"verb\":\"watch\","
				 "\"code\":500,\"count\":3}"));
	t0 = wall_now();
	json_decref(fake_ctl(&F, "{\"cmd\":\"break\",\"kind\":\"pods\"}"));
	assert_true(fake_wait_requests(&F, "pods", "watch", t0, 4, 5000));
	assert_true(metric(k, "enav_k8s_errors_total{kind=\"pod\",reason=\"transport\"}") >= 1);
	assert_int_equal(metric(k, "enav_k8s_errors_total{kind=\"pod\",reason=\"http\"}"), 3);
	assert_int_equal(fake_count(&F, "pods", "list", 0), 1); /* re-watch, not relist */
	all = fake_get(&F, "/_control/requests");
	json_array_foreach(all, i, r)
	{
		double t = json_real_value(json_object_get(r, "t"));

		if (t >= t0 && n < 4 &&
		    strcmp(json_string_value(json_object_get(r, "kind")), "pods") == 0)
			ts[n++] = t;
	}
	json_decref(all);
	assert_int_equal(n, 4);
	/* base 100 ms, equal jitter: [50,100], then [100,200], [200,400]. */
	print_message("reconnect gaps: %.0f %.0f %.0f ms\n", (ts[1] - ts[0]) * 1e3,
		      (ts[2] - ts[1]) * 1e3, (ts[3] - ts[2]) * 1e3);
	assert_true(ts[0] - t0 >= 0.045);
	assert_true(ts[1] - ts[0] >= 0.095);
	assert_true(ts[2] - ts[1] >= 0.195);
	assert_true(ts[3] - ts[2] >= 0.395);
	assert_true(ts[3] - ts[2] <= 1.2); /* capped */
	enav_k8s_stop(k);
}

static void test_stalled_stream(void **state)
{
	struct enav_config cfg;
	struct enav_k8s_tuning t;
	struct enav_k8s *k;
	uint64_t t0;

	cfg_init(&cfg);
	tuning_init(&t);
	t.watch_timeout_s = 1; /* dead after 2 s of silence */
	k = start_with(&cfg, &t);
	sync_and_watch(k);
	t0 = mono_ms();
	json_decref(fake_ctl(&F, "{\"cmd\":\"stall\",\"kind\":\"pods\"}"));
	assert_true(
	    wait_metric(k, "enav_k8s_errors_total{kind=\"pod\",reason=\"stalled\"}", 1, 4000));
	print_message("stall detected after %llu ms\n", (unsigned long long)(mono_ms() - t0));
	assert_true(mono_ms() - t0 >= 900); /* the watch began at most 1 s before */
	assert_true(fake_wait_watchers(&F, "pods", 1, 2000));
	/* Other kinds, ending every second, were never called stalled. */
	assert_int_equal(metric(k, "enav_k8s_errors_total{kind=\"service\",reason=\"stalled\"}"),
			 0);
	t0 = mono_ms();
	json_decref(fake_ctl(&F, "{\"cmd\":\"stall\",\"kind\":\"services\"}"));
	usleep(100000);
	enav_k8s_stop(k);
	assert_true(mono_ms() - t0 < 1100);
}

static void test_caps_drop_and_count(void **state)
{
	struct enav_config cfg;
	struct enav_k8s_tuning t;
	struct enav_k8s *k;
	uint32_t want = 16;

	add_pods(0, 20, NODE);
	cfg_init(&cfg);
	cfg.kubernetes.max_pods = 16;
	tuning_init(&t);
	k = start_with(&cfg, &t);
	assert_true(wait_view(k, n_pods_is, &want, 5000));
	assert_int_equal(metric(k, "enav_k8s_dropped_total{kind=\"pod\",reason=\"cap\"}"), 4);
	assert_int_equal(metric(k, "enav_k8s_objects{kind=\"pod\"}"), 16);
	assert_true(fake_wait_watchers(&F, "pods", 1, 2000));
	add_pods(20, 21, NODE);
	assert_true(wait_metric(k, "enav_k8s_dropped_total{kind=\"pod\",reason=\"cap\"}", 5, 1000));
	usleep(100000);
	assert_true(wait_view(k, n_pods_is, &want, 100)); /* never evicts */
	enav_k8s_stop(k);
}

static void test_event_too_large(void **state)
{
	struct enav_config cfg;
	struct enav_k8s_tuning t;
	struct enav_k8s *k;
	char *big = malloc(8192);
	json_t *p;

	cfg_init(&cfg);
	tuning_init(&t);
	t.max_event_bytes = 4096;
	k = start_with(&cfg, &t);
	sync_and_watch(k);
	memset(big, 'x', 8191);
	big[8191] = '\0';
	p = mk_pod("shop", "fat", uid_n(7), NODE, NULL);
	json_object_set_new(json_object_get(p, "metadata"), "annotations",
			    json_pack("{s:s}", "blob", big));
	free(big);
	fake_obj(&F, "add", "pods", p);
	/* Dropped from the stream, then picked up by the relist. */
	assert_true(wait_view(k, has_pod, uid_n(7), 2000));
	assert_int_equal(
	    metric(k, "enav_k8s_dropped_total{kind=\"pod\",reason=\"event_too_large\"}"), 1);
	assert_int_equal(
	    metric(k, "enav_k8s_relists_total{kind=\"pod\",reason=\"event_too_large\"}"), 1);
	enav_k8s_stop(k);
}

static void test_token_rotation(void **state)
{
	char dir[] = "/tmp/enav-k8s-tok.XXXXXX", tok[256], kc[256];
	struct enav_config cfg;
	struct enav_k8s_tuning t;
	struct enav_k8s *k;
	FILE *f;

	assert_non_null(mkdtemp(dir));
	snprintf(tok, sizeof(tok), "%s/token", dir);
	snprintf(kc, sizeof(kc), "%s/kubeconfig", dir);
	f = fopen(tok, "w");
	fputs("token-one\n", f);
	fclose(f);
	f = fopen(kc, "w");
	fprintf(f,
		"apiVersion: v1\nkind: Config\ncurrent-context: t\ncontexts:\n- name: t\n  "
		"context: {cluster: c, user: u}\nclusters:\n- name: c\n  cluster: {server: '%s'}\n"
		"users:\n- name: u\n  user: {tokenFile: token}\n",
		F.url);
	fclose(f);
	cfg_init(&cfg);
	cfg.kubernetes.api_server[0] = '\0';
	snprintf(cfg.kubernetes.kubeconfig, sizeof(cfg.kubernetes.kubeconfig), "%s", kc);
	tuning_init(&t);
	k = start_with(&cfg, &t);
	sync_and_watch(k);
	{
		json_t *all = fake_get(&F, "/_control/requests");
		json_t *last = json_array_get(all, json_array_size(all) - 1);

		assert_string_equal(json_string_value(json_object_get(last, "authorization")),
				    "Bearer token-one");
		json_decref(all);
	}
	f = fopen(tok, "w");
	fputs("token-two\n", f);
	fclose(f);
	json_decref(fake_ctl(&F, "{\"cmd\":\"clear_requests\"}"));
	json_decref(fake_ctl(&F, "{\"cmd\":\"close\",\"kind\":\"pods\"}"));
	assert_true(fake_wait_requests(&F, "pods", "watch", 0, 1, 2000));
	{
		json_t *all = fake_get(&F, "/_control/requests");

		assert_true(json_array_size(all) >= 1);
		assert_string_equal(
		    json_string_value(json_object_get(json_array_get(all, 0), "authorization")),
		    "Bearer token-two");
		json_decref(all);
	}
	enav_k8s_stop(k);
	unlink(tok);
	unlink(kc);
	rmdir(dir);
}

static void test_stop_during_backoff(void **state)
{
	struct enav_config cfg;
	struct enav_k8s_tuning t;
	struct enav_k8s *k;
	uint64_t t0;

	cfg_init(&cfg);
	tuning_init(&t);
	t.backoff_base_ms = 8000;
	t.backoff_max_ms = 30000;
	k = start_with(&cfg, &t);
	sync_and_watch(k);
	fake_stop(&F); /* everything breaks; reconnects are refused */
	assert_true(
	    wait_metric(k, "enav_k8s_errors_total{kind=\"pod\",reason=\"transport\"}", 1, 2000));
	assert_true(metric(k, "enav_k8s_backoff_seconds{kind=\"pod\"}") >= 4);
	t0 = mono_ms();
	enav_k8s_stop(k);
	print_message("stop took %llu ms\n", (unsigned long long)(mono_ms() - t0));
	assert_true(mono_ms() - t0 < 1000);
}

static void test_metrics_text(void **state)
{
	static char buf[65536];
	static const char *const families[] = {"enav_k8s_requests_total",
					       "enav_k8s_watch_events_total",
					       "enav_k8s_relists_total",
					       "enav_k8s_errors_total",
					       "enav_k8s_objects",
					       "enav_k8s_dropped_total",
					       "enav_k8s_synced",
					       "enav_k8s_backoff_seconds",
					       "enav_k8s_view_truncated_pods"};
	struct enav_k8s *k = start();
	struct enav_promtext p;
	char needle[128], path[] = "/tmp/enav-k8s-metrics.XXXXXX";
	int fd;

	sync_and_watch(k);
	enav_promtext_init(&p, buf, sizeof(buf));
	enav_k8s_metrics(k, &p);
	assert_false(p.overflow);
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const char *hit;

		snprintf(needle, sizeof(needle), "# TYPE %s ", families[i]);
		hit = strstr(buf, needle);
		assert_non_null(hit);
		assert_null(strstr(hit + 1, needle)); /* exactly once */
	}
	assert_non_null(strstr(buf, "enav_k8s_requests_total{kind=\"pod\",verb=\"list\",code="
				    "\"200\"} 1\n"));
	/* promtool, when installed, has the last word on the format. */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, strlen(buf)), (ssize_t)strlen(buf));
	close(fd);
	if (system("command -v promtool >/dev/null 2>&1") == 0) {
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
		assert_int_equal(system(cmd), 0);
	}
	unlink(path);
	enav_k8s_stop(k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_disabled_without_cluster, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_list_pagination, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_watch_events, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_services, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bookmark_moves_rv, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gone_event_relists, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_gone_status_relists, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_broken_stream_backoff, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stalled_stream, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_caps_drop_and_count, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_event_too_large, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_token_rotation, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stop_during_backoff, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_metrics_text, setup, teardown),
	};

	enav_log_set_level(ENAV_LOG_WARN);
	return cmocka_run_group_tests_name("k8s_controller", tests, NULL, NULL);
}
