/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the Kubernetes object model: decoding real-shaped Pod,
 * Service and EndpointSlice JSON, owner resolution, bounds, label matching,
 * watch lines and events, list pages, the bounded store and view building.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "discovery/k8s_priv.h"

/* A pod as `kubectl get pod -o json` prints it, trimmed of nothing we parse. */
static const char POD_JSON[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"creationTimestamp\":"
    "\"2024-05-01T10:00:00Z\",\"generateName\":\"web-7d4b9c8f6-\",\"labels\":{\"app\":\"web\","
    "\"pod-template-hash\":\"7d4b9c8f6\",\"tier\":\"frontend\"},\"managedFields\":[{\"apiVersion\":"
    "\"v1\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{\"f:metadata\":{}},\"manager\":\"kube-"
    "controller-manager\",\"operation\":\"Update\"}],\"name\":\"web-7d4b9c8f6-x2x7q\","
    "\"namespace\":\"shop\",\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"blockOwnerDeletion"
    "\":true,\"controller\":true,\"kind\":\"ReplicaSet\",\"name\":\"web-7d4b9c8f6\",\"uid\":"
    "\"0b0c2f4e-1111-4a5b-9c8d-222233334444\"}],\"resourceVersion\":\"812345\",\"uid\":"
    "\"7e1f5a2c-3b4d-4e6f-8a9b-0c1d2e3f4a5b\"},\"spec\":{\"containers\":[{\"image\":\"nginx:1.25\","
    "\"name\":\"nginx\",\"ports\":[{\"containerPort\":80,\"protocol\":\"TCP\"}]}],\"nodeName\":"
    "\"node-a\",\"restartPolicy\":\"Always\",\"serviceAccountName\":\"default\"},\"status\":{"
    "\"conditions\":[{\"status\":\"True\",\"type\":\"Ready\"}],\"hostIP\":\"10.0.0.5\",\"phase\":"
    "\"Running\",\"podIP\":\"10.244.1.7\",\"qosClass\":\"BestEffort\"}}";

static const char SVC_JSON[] =
    "{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"web\",\"namespace\":"
    "\"shop\",\"resourceVersion\":\"500\",\"uid\":\"5a5a5a5a-0000-4000-8000-000000000001\"},"
    "\"spec\":{\"clusterIP\":\"10.96.12.34\",\"ports\":[{\"port\":80,\"protocol\":\"TCP\","
    "\"targetPort\":80}],\"selector\":{\"app\":\"web\"},\"type\":\"ClusterIP\"},\"status\":{"
    "\"loadBalancer\":{}}}";

static const char SLICE_JSON[] =
    "{\"addressType\":\"IPv4\",\"apiVersion\":\"discovery.k8s.io/v1\",\"endpoints\":[{"
    "\"addresses\":[\"10.244.1.7\"],\"conditions\":{\"ready\":true},\"nodeName\":\"node-a\","
    "\"targetRef\":{\"kind\":\"Pod\",\"name\":\"web-7d4b9c8f6-x2x7q\",\"namespace\":\"shop\","
    "\"uid\":\"7e1f5a2c-3b4d-4e6f-8a9b-0c1d2e3f4a5b\"}},{\"addresses\":[\"10.244.2.9\"],"
    "\"nodeName\":\"node-b\",\"targetRef\":{\"kind\":\"Pod\",\"name\":\"web-7d4b9c8f6-zzzzz\","
    "\"namespace\":\"shop\",\"uid\":\"99999999-3b4d-4e6f-8a9b-0c1d2e3f4a5b\"}},{\"addresses\":["
    "\"10.0.0.9\"],\"targetRef\":{\"kind\":\"Node\",\"name\":\"node-a\"}},{\"addresses\":["
    "\"10.244.1.8\"],\"targetRef\":{\"kind\":\"Pod\",\"name\":\"legacy\"}}],\"kind\":"
    "\"EndpointSlice\",\"metadata\":{\"generateName\":\"web-\",\"labels\":{\"endpointslice."
    "kubernetes.io/managed-by\":\"endpointslice-controller.k8s.io\",\"kubernetes.io/service-name\":"
    "\"web\"},\"name\":\"web-abcde\",\"namespace\":\"shop\",\"resourceVersion\":\"600\"},"
    "\"ports\":[{\"name\":\"\",\"port\":80,\"protocol\":\"TCP\"}]}";

static const struct k8s_decode_opts OPTS = {.node_name = "node-a"};

static void *decode(enum k8s_kind kind, const char *text, enum k8s_dec want, struct k8s_drops *d)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);
	struct k8s_drops local = {0};
	void *obj = NULL;

	assert_non_null(j);
	assert_int_equal(k8s_decode_object(kind, j, &OPTS, &obj, d ? d : &local), want);
	json_decref(j);
	if (want != K8S_DEC_OK)
		assert_null(obj);
	return obj;
}

/* POD_JSON with one metadata field replaced (value is raw JSON). */
static char *pod_with(const char *field, const char *value)
{
	json_error_t e;
	json_t *j = json_loads(POD_JSON, 0, &e), *v = json_loads(value, JSON_DECODE_ANY, &e);
	char *s;

	assert_non_null(j);
	assert_non_null(v);
	json_object_set_new(json_object_get(j, "metadata"), field, v);
	s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	return s;
}

static void test_pod_decode(void **state)
{
	struct k8s_pod_obj *p = decode(K8S_POD, POD_JSON, K8S_DEC_OK, NULL);

	assert_string_equal(p->uid, "7e1f5a2c-3b4d-4e6f-8a9b-0c1d2e3f4a5b");
	assert_string_equal(p->node.key, p->uid);
	assert_string_equal(p->name, "web-7d4b9c8f6-x2x7q");
	assert_string_equal(p->namespace_, "shop");
	assert_string_equal(p->node_name, "node-a");
	assert_string_equal(p->phase, "Running");
	assert_string_equal(p->owner_kind, "Deployment");
	assert_string_equal(p->owner_name, "web");
	assert_int_equal(p->labels->n, 3);
	assert_string_equal(p->labels->kv[0].key, "app"); /* sorted */
	assert_string_equal(p->labels->kv[1].key, "pod-template-hash");
	assert_string_equal(k8s_labels_get(p->labels, "tier"), "frontend");
	assert_null(k8s_labels_get(p->labels, "nope"));
	k8s_object_free(K8S_POD, p);
}

static void test_owner_resolution(void **state)
{
	static const struct {
		const char *kind, *name, *hash, *want_kind, *want_name;
	} cases[] = {
	    {"ReplicaSet", "web-7d4b9c8f6", "7d4b9c8f6", "Deployment", "web"},
	    {"ReplicaSet", "my-app-v2-5f6d", "5f6d", "Deployment", "my-app-v2"},
	    {"ReplicaSet", "web-7d4b9c8f6", NULL, "ReplicaSet", "web-7d4b9c8f6"},
	    {"ReplicaSet", "web-7d4b9c8f6", "other", "ReplicaSet", "web-7d4b9c8f6"},
	    {"ReplicaSet", "web7d4b9c8f6", "7d4b9c8f6", "ReplicaSet", "web7d4b9c8f6"},
	    {"ReplicaSet", "-7d4b9c8f6", "7d4b9c8f6", "ReplicaSet", "-7d4b9c8f6"},
	    {"ReplicaSet", "7d4b9c8f6", "7d4b9c8f6", "ReplicaSet", "7d4b9c8f6"},
	    {"Job", "backup-28512345", "28512345", "Job", "backup-28512345"},
	    {"StatefulSet", "db", NULL, "StatefulSet", "db"},
	    {"DaemonSet", "fluentd", "x", "DaemonSet", "fluentd"},
	};
	char kind[ENAV_K8S_KIND_MAX + 1], name[ENAV_K8S_NAME_MAX + 1];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		k8s_resolve_owner(cases[i].kind, cases[i].name, cases[i].hash, kind, sizeof(kind),
				  name, sizeof(name));
		assert_string_equal(kind, cases[i].want_kind);
		assert_string_equal(name, cases[i].want_name);
	}
}

static void test_pod_owner_refs(void **state)
{
	char *s;
	struct k8s_pod_obj *p;

	/* Not a controller reference: no owner. */
	s = pod_with("ownerReferences",
		     "[{\"kind\":\"ReplicaSet\",\"name\":\"web-7d4b9c8f6\",\"controller\":false}]");
	p = decode(K8S_POD, s, K8S_DEC_OK, NULL);
	assert_string_equal(p->owner_kind, "");
	k8s_object_free(K8S_POD, p);
	free(s);
	/* The controller one wins over an earlier plain reference. */
	s = pod_with("ownerReferences",
		     "[{\"kind\":\"ConfigMap\",\"name\":\"x\"},{\"kind\":\"Job\","
		     "\"name\":\"nightly-28512345\",\"controller\":true}]");
	p = decode(K8S_POD, s, K8S_DEC_OK, NULL);
	assert_string_equal(p->owner_kind, "Job");
	assert_string_equal(p->owner_name, "nightly-28512345");
	k8s_object_free(K8S_POD, p);
	free(s);
	/* An owner name that does not fit is reported as none, never cut. */
	char big[400];

	memset(big, 'a', 300);
	big[300] = '\0';
	char refs[512];

	snprintf(refs, sizeof(refs), "[{\"kind\":\"Job\",\"name\":\"%s\",\"controller\":true}]",
		 big);
	s = pod_with("ownerReferences", refs);
	p = decode(K8S_POD, s, K8S_DEC_OK, NULL);
	assert_string_equal(p->owner_kind, "");
	assert_string_equal(p->owner_name, "");
	k8s_object_free(K8S_POD, p);
	free(s);
}

static void test_pod_bounds(void **state)
{
	char v[400], *s;

	/* Missing or wrongly typed identity. */
	s = pod_with("uid", "null");
	decode(K8S_POD, s, K8S_DEC_INVALID, NULL);
	free(s);
	s = pod_with("name", "\"\"");
	decode(K8S_POD, s, K8S_DEC_INVALID, NULL);
	free(s);
	s = pod_with("namespace", "7");
	decode(K8S_POD, s, K8S_DEC_INVALID, NULL);
	free(s);
	decode(K8S_POD, "{\"kind\":\"Pod\"}", K8S_DEC_INVALID, NULL);
	decode(K8S_POD, "[]", K8S_DEC_INVALID, NULL);
	/* Exactly at the bound is fine, one over is refused. */
	snprintf(v, sizeof(v), "\"%0253d\"", 0);
	s = pod_with("name", v);
	k8s_object_free(K8S_POD, decode(K8S_POD, s, K8S_DEC_OK, NULL));
	free(s);
	snprintf(v, sizeof(v), "\"%0254d\"", 0);
	s = pod_with("name", v);
	decode(K8S_POD, s, K8S_DEC_OVERSIZE, NULL);
	free(s);
	snprintf(v, sizeof(v), "\"%064d\"", 0);
	s = pod_with("namespace", v);
	decode(K8S_POD, s, K8S_DEC_OVERSIZE, NULL);
	free(s);
	snprintf(v, sizeof(v), "\"%037d\"", 0);
	s = pod_with("uid", v);
	decode(K8S_POD, s, K8S_DEC_OVERSIZE, NULL);
	free(s);
}

static void test_pod_labels_bounded(void **state)
{
	char buf[8192];
	size_t n = 0;
	struct k8s_drops d = {0};
	struct k8s_pod_obj *p;
	char *s;

	n += (size_t)snprintf(buf + n, sizeof(buf) - n, "{");
	for (int i = 0; i < 70; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\"k%02d\":\"v%d\"", i ? "," : "",
				      i, i);
	/* Bad ones: value too long, not a string. */
	snprintf(buf + n, sizeof(buf) - n, ",\"long\":\"%064d\",\"num\":5}", 0);
	s = pod_with("labels", buf);
	p = decode(K8S_POD, s, K8S_DEC_OK, &d);
	assert_int_equal(p->labels->n, K8S_MAX_FULL_LABELS);
	assert_int_equal(d.labels, 70 - K8S_MAX_FULL_LABELS + 2);
	assert_string_equal(k8s_labels_get(p->labels, "k00"), "v0");
	assert_string_equal(k8s_labels_get(p->labels, "k63"), "v63");
	assert_null(k8s_labels_get(p->labels, "k64"));
	k8s_object_free(K8S_POD, p);
	free(s);
	/* No labels at all still gives a (empty) set. */
	s = pod_with("labels", "null");
	p = decode(K8S_POD, s, K8S_DEC_OK, NULL);
	assert_non_null(p->labels);
	assert_int_equal(p->labels->n, 0);
	assert_string_equal(p->owner_kind, "ReplicaSet"); /* no hash label: no proof */
	k8s_object_free(K8S_POD, p);
	free(s);
}

static void test_service_decode(void **state)
{
	struct k8s_svc_obj *s = decode(K8S_SERVICE, SVC_JSON, K8S_DEC_OK, NULL);

	assert_string_equal(s->node.key, "shop/web");
	assert_non_null(s->selector);
	assert_int_equal(s->selector->n, 1);
	k8s_object_free(K8S_SERVICE, s);
	s = decode(K8S_SERVICE,
		   "{\"metadata\":{\"name\":\"ext\",\"namespace\":\"shop\"},\"spec\":{\"type\":"
		   "\"ExternalName\"}}",
		   K8S_DEC_OK, NULL);
	assert_null(s->selector);
	k8s_object_free(K8S_SERVICE, s);
	s = decode(
	    K8S_SERVICE,
	    "{\"metadata\":{\"name\":\"e\",\"namespace\":\"shop\"},\"spec\":{\"selector\":{}}}",
	    K8S_DEC_OK, NULL);
	assert_null(s->selector);
	k8s_object_free(K8S_SERVICE, s);
	decode(K8S_SERVICE, "{\"metadata\":{\"name\":\"e\"}}", K8S_DEC_INVALID, NULL);
}

static void test_slice_decode(void **state)
{
	struct k8s_slice_obj *s = decode(K8S_SLICE, SLICE_JSON, K8S_DEC_OK, NULL);

	assert_string_equal(s->node.key, "shop/web-abcde");
	assert_string_equal(s->service, "web");
	/* node-b endpoint and the Node target are skipped; legacy has no uid. */
	assert_int_equal(s->n_targets, 2);
	assert_string_equal(s->targets[0].uid, "7e1f5a2c-3b4d-4e6f-8a9b-0c1d2e3f4a5b");
	assert_null(s->targets[0].ref);
	assert_string_equal(s->targets[1].uid, "");
	assert_string_equal(s->targets[1].ref, "shop/legacy");
	k8s_object_free(K8S_SLICE, s);
}

static void test_slice_targets_bounded(void **state)
{
	json_t *j = json_pack("{s:{s:s,s:s,s:{s:s}}}", "metadata", "name", "big", "namespace", "ns",
			      "labels", "kubernetes.io/service-name", "big");
	json_t *eps = json_array();
	struct k8s_drops d = {0};
	struct k8s_slice_obj *s = NULL;

	for (int i = 0; i < K8S_SLICE_MAX_TARGETS + 5; i++)
		json_array_append_new(eps,
				      json_pack("{s:{s:s,s:s}}", "targetRef", "kind", "Pod", "uid",
						"00000000-0000-4000-8000-000000000000"));
	json_object_set_new(j, "endpoints", eps);
	assert_int_equal(k8s_decode_object(K8S_SLICE, j, &OPTS, (void **)&s, &d), K8S_DEC_OK);
	assert_int_equal(s->n_targets, K8S_SLICE_MAX_TARGETS);
	assert_int_equal(d.targets, 5);
	k8s_object_free(K8S_SLICE, s);
	json_decref(j);
}

static struct k8s_labels *labels_of(const char *json)
{
	char *s = pod_with("labels", json);
	struct k8s_pod_obj *p = decode(K8S_POD, s, K8S_DEC_OK, NULL);
	struct k8s_labels *l = k8s_labels_ref(p->labels);

	k8s_object_free(K8S_POD, p);
	free(s);
	return l;
}

static void test_selector_matching(void **state)
{
	struct k8s_labels *pod = labels_of("{\"app\":\"web\",\"tier\":\"fe\",\"x\":\"1\"}");
	struct k8s_labels *s1 = labels_of("{\"app\":\"web\"}");
	struct k8s_labels *s2 = labels_of("{\"app\":\"web\",\"tier\":\"fe\"}");
	struct k8s_labels *s3 = labels_of("{\"app\":\"web\",\"tier\":\"be\"}");
	struct k8s_labels *s4 = labels_of("{\"app\":\"web\",\"zone\":\"a\"}");
	struct k8s_labels *empty = labels_of("{}");

	assert_true(k8s_selector_matches(s1, pod));
	assert_true(k8s_selector_matches(s2, pod));
	assert_false(k8s_selector_matches(s3, pod));
	assert_false(k8s_selector_matches(s4, pod));
	assert_false(k8s_selector_matches(empty, pod)); /* matches nothing, not everything */
	assert_false(k8s_selector_matches(NULL, pod));
	assert_false(k8s_selector_matches(s1, empty));
	k8s_labels_unref(pod);
	k8s_labels_unref(s1);
	k8s_labels_unref(s2);
	k8s_labels_unref(s3);
	k8s_labels_unref(s4);
	k8s_labels_unref(empty);
}

/* ---- events and lists ----------------------------------------------------- */

static void test_event_decode(void **state)
{
	char line[4096];
	struct k8s_event ev;
	struct k8s_drops d = {0};

	snprintf(line, sizeof(line), "{\"type\":\"ADDED\",\"object\":%s}", POD_JSON);
	assert_int_equal(k8s_event_decode(K8S_POD, line, strlen(line), &OPTS, &ev, &d), K8S_DEC_OK);
	assert_int_equal(ev.type, K8S_EV_ADDED);
	assert_string_equal(ev.rv, "812345");
	assert_int_equal(ev.obj_rc, K8S_DEC_OK);
	k8s_object_free(K8S_POD, ev.obj);

	snprintf(line, sizeof(line), "{\"type\":\"DELETED\",\"object\":%s}", SVC_JSON);
	assert_int_equal(k8s_event_decode(K8S_SERVICE, line, strlen(line), &OPTS, &ev, &d),
			 K8S_DEC_OK);
	assert_int_equal(ev.type, K8S_EV_DELETED);
	assert_string_equal(((struct k8s_node *)ev.obj)->key, "shop/web");
	k8s_object_free(K8S_SERVICE, ev.obj);

	static const char bm[] =
	    "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":"
	    "\"v1\",\"metadata\":{\"resourceVersion\":\"9001\"}}}";
	assert_int_equal(k8s_event_decode(K8S_POD, bm, strlen(bm), &OPTS, &ev, &d), K8S_DEC_OK);
	assert_int_equal(ev.type, K8S_EV_BOOKMARK);
	assert_string_equal(ev.rv, "9001");
	assert_null(ev.obj);

	static const char er[] =
	    "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"apiVersion\":"
	    "\"v1\",\"metadata\":{},\"status\":\"Failure\",\"message\":\"too old "
	    "resource version: 1 (5)\",\"reason\":\"Expired\",\"code\":410}}";
	assert_int_equal(k8s_event_decode(K8S_POD, er, strlen(er), &OPTS, &ev, &d), K8S_DEC_OK);
	assert_int_equal(ev.type, K8S_EV_ERROR);
	assert_int_equal(ev.code, 410);

	static const char odd[] = "{\"type\":\"SOMETHING\",\"object\":{}}";
	assert_int_equal(k8s_event_decode(K8S_POD, odd, strlen(odd), &OPTS, &ev, &d), K8S_DEC_OK);
	assert_int_equal(ev.type, K8S_EV_UNKNOWN);

	/* A MODIFIED whose object is unusable still decodes as an event. */
	static const char bad[] =
	    "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"x\"}}}";
	assert_int_equal(k8s_event_decode(K8S_POD, bad, strlen(bad), &OPTS, &ev, &d), K8S_DEC_OK);
	assert_int_equal(ev.obj_rc, K8S_DEC_INVALID);
	assert_null(ev.obj);

	static const char *const syntax[] = {"{\"type\":\"ADDED\"",
					     "[]",
					     "{\"type\":\"ADDED\"}",
					     "{\"type\":1,\"object\":{}}",
					     "{\"type\":\"ADDED\",\"object\":\"x\"}",
					     "\"x\""};
	for (size_t i = 0; i < sizeof(syntax) / sizeof(syntax[0]); i++)
		assert_int_equal(
		    k8s_event_decode(K8S_POD, syntax[i], strlen(syntax[i]), &OPTS, &ev, &d),
		    K8S_DEC_SYNTAX);
	/* An RV we cannot store would make the next watch wrong. */
	char big[512];

	snprintf(
	    big, sizeof(big),
	    "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"%0200d\"}}}",
	    0);
	assert_int_equal(k8s_event_decode(K8S_POD, big, strlen(big), &OPTS, &ev, &d),
			 K8S_DEC_SYNTAX);
}

struct items {
	int ok, bad;
};

static void count_item(void *ctx, enum k8s_dec rc, void *obj, const struct k8s_drops *d)
{
	struct items *it = ctx;

	if (rc == K8S_DEC_OK)
		it->ok++;
	else
		it->bad++;
	k8s_object_free(K8S_SERVICE, obj);
}

static void test_list_decode(void **state)
{
	char body[4096], rv[K8S_RV_MAX + 1], cont[K8S_CONTINUE_MAX];
	struct items it = {0};

	snprintf(
	    body, sizeof(body),
	    "{\"kind\":\"ServiceList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":"
	    "\"777\",\"continue\":\"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ\",\"remainingItemCount\":3},"
	    "\"items\":[%s,{\"metadata\":{}}]}",
	    SVC_JSON);
	assert_int_equal(k8s_list_decode(K8S_SERVICE, body, strlen(body), &OPTS, rv, sizeof(rv),
					 cont, sizeof(cont), count_item, &it),
			 K8S_DEC_OK);
	assert_string_equal(rv, "777");
	assert_string_equal(cont, "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ");
	assert_int_equal(it.ok, 1);
	assert_int_equal(it.bad, 1);

	static const char empty[] = "{\"kind\":\"ServiceList\",\"metadata\":{\"resourceVersion\":"
				    "\"5\"},\"items\":null}";
	assert_int_equal(k8s_list_decode(K8S_SERVICE, empty, strlen(empty), &OPTS, rv, sizeof(rv),
					 cont, sizeof(cont), count_item, &it),
			 K8S_DEC_OK);
	assert_string_equal(cont, "");

	static const char *const bad[] = {"{\"metadata\":{\"resourceVersion\":\"5\"}}",
					  "{\"metadata\":{},\"items\":[]}", "{", "[1]"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(k8s_list_decode(K8S_SERVICE, bad[i], strlen(bad[i]), &OPTS, rv,
						 sizeof(rv), cont, sizeof(cont), count_item, &it),
				 K8S_DEC_SYNTAX);
}

/* ---- line splitter -------------------------------------------------------- */

struct seen {
	int n, oversize;
	char last[64];
	int stop_at;
};

static int on_line(void *ctx, const char *line, size_t len)
{
	struct seen *s = ctx;

	if (!line) {
		s->oversize++;
		return 0;
	}
	snprintf(s->last, sizeof(s->last), "%.*s", (int)len, line);
	s->n++;
	return s->stop_at && s->n == s->stop_at;
}

static void test_lines(void **state)
{
	struct k8s_lines l;
	struct seen s = {0};
	static const char stream[] = "one\r\n\ntwo\nthree\n";

	assert_int_equal(k8s_lines_init(&l, 8), 0);
	/* Byte by byte: the same lines as in one piece. */
	for (size_t i = 0; i < strlen(stream); i++)
		assert_int_equal(k8s_lines_feed(&l, stream + i, 1, on_line, &s), 0);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.last, "three");
	/* Exactly cap bytes fits; one more is dropped whole, then recovery. */
	memset(&s, 0, sizeof(s));
	assert_int_equal(k8s_lines_feed(&l, "12345678\n", 9, on_line, &s), 0);
	assert_string_equal(s.last, "12345678");
	assert_int_equal(k8s_lines_feed(&l, "1234", 4, on_line, &s), 0);
	assert_int_equal(k8s_lines_feed(&l, "56789", 5, on_line, &s), 0);
	assert_int_equal(s.oversize, 1);
	assert_int_equal(k8s_lines_feed(&l, "abcdefghijk", 11, on_line, &s), 0);
	assert_int_equal(s.oversize, 1); /* still the same line */
	assert_int_equal(k8s_lines_feed(&l, "xyz\nok\n", 7, on_line, &s), 0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.last, "ok");
	/* A callback can stop the feed. */
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	assert_int_equal(k8s_lines_feed(&l, "a\nb\n", 4, on_line, &s), 1);
	assert_int_equal(s.n, 1);
	k8s_lines_free(&l);
}

/* ---- store and view ------------------------------------------------------- */

static struct k8s_pod_obj *mkpod(const char *uid, const char *ns, const char *name,
				 const char *labels)
{
	char text[1024];
	struct k8s_pod_obj *p;

	snprintf(
	    text, sizeof(text),
	    "{\"metadata\":{\"uid\":\"%s\",\"namespace\":\"%s\",\"name\":\"%s\",\"labels\":%s},"
	    "\"spec\":{\"nodeName\":\"node-a\"},\"status\":{\"phase\":\"Running\"}}",
	    uid, ns, name, labels);
	p = decode(K8S_POD, text, K8S_DEC_OK, NULL);
	return p;
}

static void *mkobj(enum k8s_kind kind, const char *text)
{
	return decode(kind, text, K8S_DEC_OK, NULL);
}

static void test_store_cap(void **state)
{
	struct k8s_store s;
	char uid[40];

	assert_int_equal(k8s_store_init(&s, K8S_POD, 3), 0);
	for (int i = 0; i < 5; i++) {
		snprintf(uid, sizeof(uid), "u%d", i);
		assert_int_equal(k8s_store_put(&s, &mkpod(uid, "ns", uid, "{}")->node),
				 i < 3 ? 0 : -1);
	}
	assert_int_equal(s.count, 3);
	/* Replacing an existing key is not a new object. */
	assert_int_equal(k8s_store_put(&s, &mkpod("u1", "ns", "renamed", "{}")->node), 0);
	assert_string_equal(((struct k8s_pod_obj *)k8s_store_get(&s, "u1"))->name, "renamed");
	assert_true(k8s_store_del(&s, "u0"));
	assert_false(k8s_store_del(&s, "u0"));
	assert_int_equal(k8s_store_put(&s, &mkpod("u9", "ns", "u9", "{}")->node), 0);
	assert_int_equal(s.count, 3);
	k8s_store_clear(&s);
	assert_int_equal(s.count, 0);
	assert_null(k8s_store_get(&s, "u9"));
	k8s_store_free(&s);
}

static void test_view_build(void **state)
{
	struct k8s_store pods, svcs, slices;
	struct enav_config_list keep = {.n = 2, .item = {"app", "team"}};
	struct k8s_view_stats st;
	struct enav_k8s_view *v;
	const struct enav_k8s_pod *p;

	k8s_store_init(&pods, K8S_POD, 64);
	k8s_store_init(&svcs, K8S_SERVICE, 64);
	k8s_store_init(&slices, K8S_SLICE, 64);
	k8s_store_put(&pods,
		      &mkpod("c-uid", "shop", "web-1", "{\"app\":\"web\",\"x\":\"1\"}")->node);
	k8s_store_put(&pods, &mkpod("a-uid", "shop", "web-2", "{\"app\":\"web\"}")->node);
	k8s_store_put(&pods, &mkpod("b-uid", "shop", "db-1", "{\"app\":\"db\"}")->node);
	k8s_store_put(&pods, &mkpod("d-uid", "other", "web-3", "{\"app\":\"web\"}")->node);
	/* web selects app=web; a slice names web-1 (by uid) and web-2 (by name)
	 * as members of "web-canary" only. */
	k8s_store_put(&svcs,
		      &((struct k8s_svc_obj *)mkobj(
			    K8S_SERVICE, "{\"metadata\":{\"name\":\"web\",\"namespace\":\"shop\"},"
					 "\"spec\":{\"selector\":{\"app\":\"web\"}}}"))
			   ->node);
	k8s_store_put(&svcs,
		      &((struct k8s_svc_obj *)mkobj(
			    K8S_SERVICE, "{\"metadata\":{\"name\":\"db\",\"namespace\":\"shop\"},"
					 "\"spec\":{\"selector\":{\"app\":\"db\"}}}"))
			   ->node);
	k8s_store_put(
	    &slices,
	    &((struct k8s_slice_obj *)mkobj(
		  K8S_SLICE, "{\"metadata\":{\"name\":\"wc-1\",\"namespace\":\"shop\",\"labels\":{"
			     "\"kubernetes.io/service-name\":\"web-canary\"}},\"endpoints\":[{"
			     "\"targetRef\":{\"kind\":\"Pod\",\"uid\":\"c-uid\"}},{\"targetRef\":{"
			     "\"kind\":\"Pod\",\"name\":\"web-2\",\"namespace\":\"shop\"}}]}"))
		 ->node);

	v = k8s_view_build(&pods, &svcs, &slices, &keep, 7, true, &st);
	assert_non_null(v);
	assert_int_equal(v->generation, 7);
	assert_true(v->synced);
	assert_int_equal(v->n_pods, 4);
	for (uint32_t i = 1; i < v->n_pods; i++)
		assert_true(strcmp(v->pods[i - 1].uid, v->pods[i].uid) < 0);
	/* Observed membership wins: web-1 is in web-canary only. */
	p = enav_k8s_view_find_pod(v, "c-uid");
	assert_non_null(p);
	assert_int_equal(p->n_services, 1);
	assert_string_equal(p->services[0].name, "web-canary");
	assert_int_equal(enav_k8s_view_pod_services_source(v, p), ENAV_K8S_SERVICES_OBSERVED);
	assert_int_equal(p->n_labels, 1);
	assert_string_equal(p->labels[0].key, "app");
	assert_true(enav_k8s_view_pod_has_label(v, p, "x", "1")); /* not kept, still matched */
	assert_false(enav_k8s_view_pod_has_label(v, p, "x", "2"));
	assert_string_equal(enav_k8s_view_pod_phase(v, p), "Running");
	p = enav_k8s_view_find_pod(v, "a-uid");
	assert_string_equal(p->services[0].name, "web-canary");
	/* No slice mentions db-1: inferred from the selector. */
	p = enav_k8s_view_find_pod(v, "b-uid");
	assert_int_equal(p->n_services, 1);
	assert_string_equal(p->services[0].namespace_, "shop");
	assert_string_equal(p->services[0].name, "db");
	assert_int_equal(enav_k8s_view_pod_services_source(v, p), ENAV_K8S_SERVICES_INFERRED);
	/* Other namespace: the selector does not reach across. */
	p = enav_k8s_view_find_pod(v, "d-uid");
	assert_int_equal(p->n_services, 0);
	assert_int_equal(enav_k8s_view_pod_services_source(v, p), ENAV_K8S_SERVICES_NONE);
	assert_null(enav_k8s_view_find_pod(v, "zzz"));
	assert_int_equal(st.services_truncated, 0);
	/* The view holds its own label references: the cache can go first. */
	k8s_store_free(&pods);
	p = enav_k8s_view_find_pod(v, "c-uid");
	assert_true(enav_k8s_view_pod_has_label(v, p, "app", "web"));
	enav_k8s_view_release(v);
	k8s_store_free(&svcs);
	k8s_store_free(&slices);
}

static void test_view_services_cap(void **state)
{
	struct k8s_store pods, svcs, slices;
	struct k8s_view_stats st;
	struct enav_k8s_view *v;
	char text[512];

	k8s_store_init(&pods, K8S_POD, 16);
	k8s_store_init(&svcs, K8S_SERVICE, 16);
	k8s_store_init(&slices, K8S_SLICE, 16);
	k8s_store_put(&pods, &mkpod("p", "ns", "p", "{\"app\":\"x\"}")->node);
	for (int i = 0; i < ENAV_K8S_MAX_SERVICES + 2; i++) {
		snprintf(text, sizeof(text),
			 "{\"metadata\":{\"name\":\"s%02d\",\"namespace\":\"ns\"},\"spec\":{"
			 "\"selector\":{\"app\":\"x\"}}}",
			 ENAV_K8S_MAX_SERVICES + 2 - i);
		k8s_store_put(&svcs, &((struct k8s_svc_obj *)mkobj(K8S_SERVICE, text))->node);
	}
	v = k8s_view_build(&pods, &svcs, &slices, NULL, 1, true, &st);
	assert_int_equal(v->pods[0].n_services, ENAV_K8S_MAX_SERVICES);
	assert_int_equal(st.services_truncated, 1);
	for (uint32_t i = 1; i < ENAV_K8S_MAX_SERVICES; i++)
		assert_true(strcmp(v->pods[0].services[i - 1].name, v->pods[0].services[i].name) <
			    0);
	enav_k8s_view_release(v);
	v = k8s_view_empty();
	assert_int_equal(v->n_pods, 0);
	assert_null(enav_k8s_view_find_pod(v, "p"));
	enav_k8s_view_release(v);
	k8s_store_free(&pods);
	k8s_store_free(&svcs);
	k8s_store_free(&slices);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pod_decode),	       cmocka_unit_test(test_owner_resolution),
	    cmocka_unit_test(test_pod_owner_refs),     cmocka_unit_test(test_pod_bounds),
	    cmocka_unit_test(test_pod_labels_bounded), cmocka_unit_test(test_service_decode),
	    cmocka_unit_test(test_slice_decode),       cmocka_unit_test(test_slice_targets_bounded),
	    cmocka_unit_test(test_selector_matching),  cmocka_unit_test(test_event_decode),
	    cmocka_unit_test(test_list_decode),	       cmocka_unit_test(test_lines),
	    cmocka_unit_test(test_store_cap),	       cmocka_unit_test(test_view_build),
	    cmocka_unit_test(test_view_services_cap),
	};

	return cmocka_run_group_tests_name("k8s_objects", tests, NULL, NULL);
}
