/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for capture selectors (src/discovery/selectors.c): compiling
 * "kind:value" lists, three-valued matching on hand-built workloads, and the
 * allowlist / denylist decision with its fail-closed rule.
 *
 * Label selectors are matched by enav_k8s_view_pod_has_label(), which the
 * Kubernetes controller implements.  The unit-test binaries do not link the
 * controller yet: they get the stub in src/discovery/discovery.c, which always
 * answers false.  So label matching is only tested here on the paths that do
 * not reach it (UNKNOWN without data, NO for a cgroup that is not a pod's).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "discovery/k8s.h"
#include "discovery/selectors.h"
#include "model/cgroup_path.h"

#define N(a) ((unsigned)(sizeof(a) / sizeof((a)[0])))

#define CID "f372f52cd6fab215ce890866d5dbdf5c08adcfa448d9fa0061041da93feb64cf"
#define UID "b2f9cbb0-21bb-47c2-970c-50bc59b1c09f"
#define POD_PATH                                                                                   \
	"/kubepods.slice/kubepods-burstable.slice/"                                                \
	"kubepods-burstable-podb2f9cbb0_21bb_47c2_970c_50bc59b1c09f.slice/"                        \
	"cri-containerd-" CID ".scope"
#define DOCKER_PATH "/system.slice/docker-" CID ".scope"
#define UNIT_PATH   "/system.slice/sshd.service"

/* ---- helpers ------------------------------------------------------------- */

static struct enav_config_list list;
static struct enav_selector_set set;
static char err[512];

/* Compile the NULL-terminated items; err is reset to a marker first. */
static int compile_v(const char *first, va_list ap)
{
	memset(&list, 0, sizeof(list));
	memset(&set, 0x41, sizeof(set));
	for (const char *s = first; s; s = va_arg(ap, const char *)) {
		assert_true(list.n < ENAV_CONFIG_LIST_MAX);
		assert_true(strlen(s) < ENAV_CONFIG_ENTRY_MAX);
		snprintf(list.item[list.n++], ENAV_CONFIG_ENTRY_MAX, "%s", s);
	}
	snprintf(err, sizeof(err), "untouched");
	return enav_selectors_compile(&list, &set, err, sizeof(err));
}

static int compile(const char *first, ...)
{
	va_list ap;

	va_start(ap, first);
	int rc = compile_v(first, ap);
	va_end(ap);
	return rc;
}

static void expect_error(const char *want, const char *first, ...)
{
	va_list ap;

	va_start(ap, first);
	int rc = compile_v(first, ap);
	va_end(ap);
	assert_int_equal(rc, -1);
	assert_string_equal(err, want);
}

/* Build a one-selector set directly from a compiled string. */
static const struct enav_selector *one(const char *s)
{
	assert_int_equal(compile(s, NULL), 0);
	assert_int_equal(set.n, 1);
	return &set.s[0];
}

static void identity_of(const char *path, struct enav_cgroup_identity *id)
{
	enav_cgroup_identity_parse(path, strlen(path), id);
}

/* A synced view holding one pod "default/web-7d4b9c6f5-x2x9q" with two services. */
static struct enav_k8s_pod pod;
static struct enav_k8s_view view;
static struct enav_cgroup_identity pod_id, docker_id, unit_id;

static int setup(void **state)
{
	memset(&pod, 0, sizeof(pod));
	snprintf(pod.uid, sizeof(pod.uid), "%s", UID);
	snprintf(pod.name, sizeof(pod.name), "web-7d4b9c6f5-x2x9q");
	snprintf(pod.namespace_, sizeof(pod.namespace_), "default");
	snprintf(pod.node, sizeof(pod.node), "node-1");
	snprintf(pod.owner_kind, sizeof(pod.owner_kind), "Deployment");
	snprintf(pod.owner_name, sizeof(pod.owner_name), "web");
	pod.n_labels = 1;
	snprintf(pod.labels[0].key, sizeof(pod.labels[0].key), "app");
	snprintf(pod.labels[0].value, sizeof(pod.labels[0].value), "web");
	pod.n_services = 2;
	snprintf(pod.services[0].namespace_, sizeof(pod.services[0].namespace_), "default");
	snprintf(pod.services[0].name, sizeof(pod.services[0].name), "web");
	snprintf(pod.services[1].namespace_, sizeof(pod.services[1].namespace_), "monitoring");
	snprintf(pod.services[1].name, sizeof(pod.services[1].name), "web-metrics");

	memset(&view, 0, sizeof(view));
	view.generation = 7;
	view.synced = true;
	view.n_pods = 1;
	view.pods = &pod;

	identity_of(POD_PATH, &pod_id);
	identity_of(DOCKER_PATH, &docker_id);
	identity_of(UNIT_PATH, &unit_id);
	/* The identities the parser proves, as the selectors rely on them. */
	assert_int_equal(pod_id.runtime, ENAV_RUNTIME_CONTAINERD);
	assert_string_equal(pod_id.pod_uid, UID);
	assert_int_equal(docker_id.runtime, ENAV_RUNTIME_DOCKER);
	assert_string_equal(docker_id.pod_uid, "");
	assert_int_equal(unit_id.runtime, ENAV_RUNTIME_NONE);
	return 0;
}

/* The pod's container, with everything known. */
static struct enav_workload pod_workload(void)
{
	return (struct enav_workload){
	    .cgroup_path = POD_PATH, .identity = &pod_id, .k8s = &view, .pod = &pod};
}

/* ---- compile ------------------------------------------------------------- */

static void test_compile_valid(void **state)
{
	assert_int_equal(compile("cgroup:/kubepods*", "runtime:containerd", "namespace:kube-*",
				 "pod:default/web-*", "label:app.kubernetes.io/name=web",
				 "service:default/web", NULL),
			 0);
	assert_string_equal(err, "untouched");
	assert_int_equal(set.n, 6);
	assert_true(set.needs_k8s);
	static const struct {
		enum enav_selector_kind kind;
		const char *value, *value2;
	} want[] = {
	    {ENAV_SEL_CGROUP, "/kubepods*", ""},
	    {ENAV_SEL_RUNTIME, "containerd", ""},
	    {ENAV_SEL_NAMESPACE, "kube-*", ""},
	    {ENAV_SEL_POD, "default", "web-*"},
	    {ENAV_SEL_LABEL, "app.kubernetes.io/name", "web"},
	    {ENAV_SEL_SERVICE, "default", "web"},
	};
	for (unsigned i = 0; i < N(want); i++) {
		assert_int_equal(set.s[i].kind, want[i].kind);
		assert_string_equal(set.s[i].value, want[i].value);
		assert_string_equal(set.s[i].value2, want[i].value2);
	}
}

static void test_compile_needs_k8s(void **state)
{
	assert_int_equal(compile("cgroup:/system.slice/*", "runtime:docker", NULL), 0);
	assert_int_equal(set.n, 2);
	assert_false(set.needs_k8s);

	static const char *const k8s_kinds[] = {"namespace:default", "pod:default/web",
						"label:app=web", "service:default/web"};
	for (unsigned i = 0; i < N(k8s_kinds); i++) {
		assert_int_equal(compile("cgroup:/a", k8s_kinds[i], NULL), 0);
		assert_int_equal(set.n, 2);
		assert_true(set.needs_k8s);
	}

	/* The empty list compiles to nothing. */
	assert_int_equal(compile(NULL), 0);
	assert_int_equal(set.n, 0);
	assert_false(set.needs_k8s);
}

static void test_compile_splits_once(void **state)
{
	/* Labels split at the first '=', pods and services at the first '/'. */
	const struct enav_selector *s = one("label:app=a=b");
	assert_string_equal(s->value, "app");
	assert_string_equal(s->value2, "a=b");
	s = one("label:tier=");
	assert_int_equal(s->kind, ENAV_SEL_LABEL);
	assert_string_equal(s->value, "tier");
	assert_string_equal(s->value2, "");
	s = one("pod:ns/a/b");
	assert_string_equal(s->value, "ns");
	assert_string_equal(s->value2, "a/b");
	/* A cgroup glob keeps its '/' and '=' as they are. */
	s = one("cgroup:/a=b/c");
	assert_int_equal(s->kind, ENAV_SEL_CGROUP);
	assert_string_equal(s->value, "/a=b/c");
	assert_string_equal(s->value2, "");
	/* The longest entry survives whole. */
	char big[ENAV_CONFIG_ENTRY_MAX];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	memcpy(big, "cgroup:/", 8);
	s = one(big);
	assert_int_equal(strlen(s->value), ENAV_CONFIG_ENTRY_MAX - 1 - 7);
}

static void test_compile_full_list(void **state)
{
	memset(&list, 0, sizeof(list));
	for (unsigned i = 0; i < ENAV_CONFIG_LIST_MAX; i++)
		snprintf(list.item[i], ENAV_CONFIG_ENTRY_MAX, "cgroup:/w%u", i);
	list.n = ENAV_CONFIG_LIST_MAX;
	assert_int_equal(enav_selectors_compile(&list, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, ENAV_CONFIG_LIST_MAX);
	assert_string_equal(set.s[ENAV_CONFIG_LIST_MAX - 1].value, "/w63");
	/* A count past the array is bounded by it. */
	list.n = ENAV_CONFIG_LIST_MAX + 100;
	assert_int_equal(enav_selectors_compile(&list, &set, err, sizeof(err)), 0);
	assert_int_equal(set.n, ENAV_CONFIG_LIST_MAX);
}

static void test_compile_invalid(void **state)
{
	static const char *const bad[] = {
	    "",
	    "cgroup",
	    "cgroup:",
	    "bogus:x",
	    "Cgroup:/x",
	    " cgroup:/x",
	    "runtime:",
	    "namespace:",
	    "label:",
	    "label:app",
	    "label:=web",
	    "pod:",
	    "pod:web",
	    "pod:/web",
	    "service:",
	    "service:web",
	    "service:/web",
	    "kubernetes:x",
	    "cgroup/kubepods",
	    ":/x",
	};

	for (unsigned i = 0; i < N(bad); i++) {
		char want[512];

		snprintf(want, sizeof(want), "capture.selectors[0]: \"%s\" is not a selector",
			 bad[i]);
		expect_error(want, bad[i], NULL);
	}
	/* The first bad entry is the one named, by its index. */
	expect_error("capture.selectors[2]: \"pod:nope\" is not a selector", "cgroup:/a",
		     "runtime:cri-o", "pod:nope", "label:x", NULL);
	/* A short error buffer gets a terminated prefix. */
	memset(&list, 0, sizeof(list));
	snprintf(list.item[0], ENAV_CONFIG_ENTRY_MAX, "nope");
	list.n = 1;
	char small[16];
	memset(small, 'Z', sizeof(small));
	assert_int_equal(enav_selectors_compile(&list, &set, small, sizeof(small)), -1);
	assert_string_equal(small, "capture.selecto");
}

/* ---- matching ------------------------------------------------------------ */

static void test_match_cgroup_glob(void **state)
{
	static const struct {
		const char *glob, *path;
		enum enav_match want;
	} cases[] = {
	    /* '*' spans '/' (no FNM_PATHNAME): a prefix glob covers the tree. */
	    {"/kubepods*", POD_PATH, ENAV_MATCH_YES},
	    {"/kubepods.slice/*", POD_PATH, ENAV_MATCH_YES},
	    {"*cri-containerd-*", POD_PATH, ENAV_MATCH_YES},
	    {"/system.slice/*.service", UNIT_PATH, ENAV_MATCH_YES},
	    {"/system.slice/*.service", "/system.slice/a/b.service", ENAV_MATCH_YES},
	    {"/a?b", "/a/b", ENAV_MATCH_YES},
	    {"/*", "/.hidden", ENAV_MATCH_YES},
	    /* The whole path must match. */
	    {"/kubepods", "/kubepods.slice", ENAV_MATCH_NO},
	    {"/kubepods.slice", POD_PATH, ENAV_MATCH_NO},
	    {"kubepods*", POD_PATH, ENAV_MATCH_NO},
	    {"/system.slice/*.service", DOCKER_PATH, ENAV_MATCH_NO},
	    {"/", "/", ENAV_MATCH_YES},
	    {"/*", "/", ENAV_MATCH_YES},
	    {"/[ab]", "/b", ENAV_MATCH_YES},
	    {"/[ab", "/[ab", ENAV_MATCH_YES}, /* an unclosed bracket is literal */
	};

	for (unsigned i = 0; i < N(cases); i++) {
		char sel[ENAV_CONFIG_ENTRY_MAX];

		snprintf(sel, sizeof(sel), "cgroup:%s", cases[i].glob);
		const struct enav_selector *s = one(sel);
		struct enav_workload w = {.cgroup_path = cases[i].path};
		enum enav_match got = enav_selector_match(s, &w);

		if (got != cases[i].want)
			fail_msg("glob %s on %s: %d, want %d", cases[i].glob, cases[i].path, got,
				 cases[i].want);
	}
	/* No path: no match, never a crash. */
	struct enav_workload none = {0};
	assert_int_equal(enav_selector_match(one("cgroup:*"), &none), ENAV_MATCH_NO);
}

static void test_match_runtime(void **state)
{
	struct enav_cgroup_identity unknown_rt, no_cid;
	struct enav_workload w = {.cgroup_path = POD_PATH, .identity = &pod_id};

	identity_of("/kubepods/burstable/pod" UID "/" CID, &unknown_rt);
	assert_int_equal(unknown_rt.runtime, ENAV_RUNTIME_UNKNOWN);
	no_cid = pod_id;
	no_cid.container_id[0] = '\0';

	assert_int_equal(enav_selector_match(one("runtime:containerd"), &w), ENAV_MATCH_YES);
	assert_int_equal(enav_selector_match(one("runtime:cri-o"), &w), ENAV_MATCH_NO);
	assert_int_equal(enav_selector_match(one("runtime:docker"), &w), ENAV_MATCH_NO);
	assert_int_equal(enav_selector_match(one("runtime:Containerd"), &w), ENAV_MATCH_NO);
	w.identity = &docker_id;
	assert_int_equal(enav_selector_match(one("runtime:docker"), &w), ENAV_MATCH_YES);
	assert_int_equal(enav_selector_match(one("runtime:containerd"), &w), ENAV_MATCH_NO);
	/* A proven container of an unproven runtime is "unknown". */
	w.identity = &unknown_rt;
	assert_int_equal(enav_selector_match(one("runtime:unknown"), &w), ENAV_MATCH_YES);
	assert_int_equal(enav_selector_match(one("runtime:containerd"), &w), ENAV_MATCH_NO);
	/* Not a container: no runtime selector matches, not even "none". */
	w.identity = &unit_id;
	assert_int_equal(enav_selector_match(one("runtime:none"), &w), ENAV_MATCH_NO);
	w.identity = &no_cid;
	assert_int_equal(enav_selector_match(one("runtime:containerd"), &w), ENAV_MATCH_NO);
	w.identity = NULL;
	assert_int_equal(enav_selector_match(one("runtime:containerd"), &w), ENAV_MATCH_NO);
	assert_int_equal(enav_selector_match(one("runtime:none"), &w), ENAV_MATCH_NO);
}

static const char *const k8s_selectors[] = {
    "namespace:default",
    "pod:default/web-*",
    "label:app=web",
    "service:default/web",
};

static void test_match_k8s_without_data(void **state)
{
	struct enav_k8s_view unsynced = view;

	unsynced.synced = false;
	for (unsigned i = 0; i < N(k8s_selectors); i++) {
		const struct enav_selector *s = one(k8s_selectors[i]);
		struct enav_workload w = pod_workload();

		/* A pod cgroup, but no controller / not synced / pod unknown. */
		w.k8s = NULL;
		w.pod = NULL;
		assert_int_equal(enav_selector_match(s, &w), ENAV_MATCH_UNKNOWN);
		w.k8s = NULL;
		w.pod = &pod; /* a pod without a view proves nothing either */
		assert_int_equal(enav_selector_match(s, &w), ENAV_MATCH_UNKNOWN);
		w.k8s = &unsynced;
		w.pod = &pod;
		assert_int_equal(enav_selector_match(s, &w), ENAV_MATCH_UNKNOWN);
		w.k8s = &view;
		w.pod = NULL;
		assert_int_equal(enav_selector_match(s, &w), ENAV_MATCH_UNKNOWN);
	}
}

static void test_match_k8s_not_a_pod(void **state)
{
	for (unsigned i = 0; i < N(k8s_selectors); i++) {
		const struct enav_selector *s = one(k8s_selectors[i]);

		/* Not a pod's cgroup: NO, whatever the controller knows. */
		const struct enav_cgroup_identity *ids[] = {&docker_id, &unit_id, NULL};
		for (unsigned k = 0; k < N(ids); k++) {
			struct enav_workload w = {.cgroup_path = DOCKER_PATH, .identity = ids[k]};

			assert_int_equal(enav_selector_match(s, &w), ENAV_MATCH_NO);
			w.k8s = &view;
			assert_int_equal(enav_selector_match(s, &w), ENAV_MATCH_NO);
			w.pod = &pod;
			assert_int_equal(enav_selector_match(s, &w), ENAV_MATCH_NO);
		}
	}
}

static void test_match_namespace(void **state)
{
	struct enav_workload w = pod_workload();

	assert_int_equal(enav_selector_match(one("namespace:default"), &w), ENAV_MATCH_YES);
	assert_int_equal(enav_selector_match(one("namespace:def*"), &w), ENAV_MATCH_YES);
	assert_int_equal(enav_selector_match(one("namespace:d?fault"), &w), ENAV_MATCH_YES);
	assert_int_equal(enav_selector_match(one("namespace:kube-*"), &w), ENAV_MATCH_NO);
	assert_int_equal(enav_selector_match(one("namespace:defaults"), &w), ENAV_MATCH_NO);
	assert_int_equal(enav_selector_match(one("namespace:Default"), &w), ENAV_MATCH_NO);
}

static void test_match_pod(void **state)
{
	struct enav_workload w = pod_workload();

	assert_int_equal(enav_selector_match(one("pod:default/web-*"), &w), ENAV_MATCH_YES);
	assert_int_equal(enav_selector_match(one("pod:default/web-7d4b9c6f5-x2x9q"), &w),
			 ENAV_MATCH_YES);
	assert_int_equal(enav_selector_match(one("pod:default/*"), &w), ENAV_MATCH_YES);
	assert_int_equal(enav_selector_match(one("pod:default/api-*"), &w), ENAV_MATCH_NO);
	assert_int_equal(enav_selector_match(one("pod:default/web"), &w), ENAV_MATCH_NO);
	assert_int_equal(enav_selector_match(one("pod:other/web-*"), &w), ENAV_MATCH_NO);
	/* The namespace part is exact, not a glob. */
	assert_int_equal(enav_selector_match(one("pod:def*/web-*"), &w), ENAV_MATCH_NO);
}

static void test_match_service(void **state)
{
	struct enav_workload w = pod_workload();

	assert_int_equal(enav_selector_match(one("service:default/web"), &w), ENAV_MATCH_YES);
	assert_int_equal(enav_selector_match(one("service:monitoring/web-metrics"), &w),
			 ENAV_MATCH_YES);
	/* Exact namespace and name, no globbing, no mixing of the two services. */
	assert_int_equal(enav_selector_match(one("service:default/web-metrics"), &w),
			 ENAV_MATCH_NO);
	assert_int_equal(enav_selector_match(one("service:monitoring/web"), &w), ENAV_MATCH_NO);
	assert_int_equal(enav_selector_match(one("service:default/we*"), &w), ENAV_MATCH_NO);
	assert_int_equal(enav_selector_match(one("service:default/we"), &w), ENAV_MATCH_NO);

	/* A pod no service targets. */
	struct enav_k8s_pod lonely = pod;
	lonely.n_services = 0;
	w.pod = &lonely;
	assert_int_equal(enav_selector_match(one("service:default/web"), &w), ENAV_MATCH_NO);
	/* A count past the array is bounded by it (the 9th is never read). */
	lonely.n_services = 1000;
	assert_int_equal(enav_selector_match(one("service:default/web"), &w), ENAV_MATCH_YES);
	assert_int_equal(enav_selector_match(one("service:x/y"), &w), ENAV_MATCH_NO);
}

/* ---- the decision -------------------------------------------------------- */

struct dcase {
	const char *name;
	const char *sel[4]; /* NULL-terminated */
	int workload;	    /* 0 pod, known; 1 pod, no controller; 2 docker; 3 unit */
	bool allow_capture;
	enum enav_verdict_reason allow_reason;
	bool deny_capture;
	enum enav_verdict_reason deny_reason;
};

static struct enav_workload workload(int which)
{
	struct enav_workload w = pod_workload();

	switch (which) {
	case 1:
		w.k8s = NULL;
		w.pod = NULL;
		break;
	case 2:
		w = (struct enav_workload){
		    .cgroup_path = DOCKER_PATH, .identity = &docker_id, .k8s = &view};
		break;
	case 3:
		w = (struct enav_workload){
		    .cgroup_path = UNIT_PATH, .identity = &unit_id, .k8s = &view};
		break;
	}
	return w;
}

#define SEL(...)                                                                                   \
	{                                                                                          \
		__VA_ARGS__, NULL                                                                  \
	}

static const struct dcase dcases[] = {
    /* Nothing listed: an allowlist selects nothing, a denylist denies nothing. */
    {"empty_pod", {NULL}, 0, false, ENAV_VERDICT_NOT_SELECTED, true, ENAV_VERDICT_NOT_DENYLISTED},
    {"empty_no_k8s",
     {NULL},
     1,
     false,
     ENAV_VERDICT_NOT_SELECTED,
     true,
     ENAV_VERDICT_NOT_DENYLISTED},
    /* A plain match. */
    {"cgroup_match", SEL("cgroup:/kubepods*"), 0, true, ENAV_VERDICT_SELECTED, false,
     ENAV_VERDICT_DENYLISTED},
    {"cgroup_miss", SEL("cgroup:/system.slice/*"), 0, false, ENAV_VERDICT_NOT_SELECTED, true,
     ENAV_VERDICT_NOT_DENYLISTED},
    {"namespace_match", SEL("namespace:default"), 0, true, ENAV_VERDICT_SELECTED, false,
     ENAV_VERDICT_DENYLISTED},
    {"namespace_miss", SEL("namespace:kube-system"), 0, false, ENAV_VERDICT_NOT_SELECTED, true,
     ENAV_VERDICT_NOT_DENYLISTED},
    {"runtime_match_docker", SEL("runtime:docker"), 2, true, ENAV_VERDICT_SELECTED, false,
     ENAV_VERDICT_DENYLISTED},
    /* Kubernetes selectors on a pod without data: undecidable, so an
     * allowlist does not select it and a denylist denies it (fail closed). */
    {"namespace_no_k8s", SEL("namespace:default"), 1, false, ENAV_VERDICT_UNDECIDABLE, false,
     ENAV_VERDICT_UNDECIDABLE},
    {"label_no_k8s", SEL("label:app=web"), 1, false, ENAV_VERDICT_UNDECIDABLE, false,
     ENAV_VERDICT_UNDECIDABLE},
    {"service_no_k8s", SEL("service:default/web"), 1, false, ENAV_VERDICT_UNDECIDABLE, false,
     ENAV_VERDICT_UNDECIDABLE},
    /* ... unless another selector says YES: the allowlist selects it, the
     * denylist denies it as listed. */
    {"unknown_and_yes", SEL("namespace:other", "cgroup:/kubepods*"), 1, true, ENAV_VERDICT_SELECTED,
     false, ENAV_VERDICT_DENYLISTED},
    {"yes_and_unknown", SEL("cgroup:/kubepods*", "pod:default/web-*"), 1, true,
     ENAV_VERDICT_SELECTED, false, ENAV_VERDICT_DENYLISTED},
    /* UNKNOWN beats NO. */
    {"unknown_and_no", SEL("cgroup:/system.slice/*", "pod:default/web-*"), 1, false,
     ENAV_VERDICT_UNDECIDABLE, false, ENAV_VERDICT_UNDECIDABLE},
    /* Not a pod: Kubernetes selectors say NO, so the decision is made. */
    {"k8s_selectors_docker", SEL("namespace:default", "label:app=web", "service:default/web"), 2,
     false, ENAV_VERDICT_NOT_SELECTED, true, ENAV_VERDICT_NOT_DENYLISTED},
    {"k8s_selectors_unit", SEL("namespace:*", "pod:default/*"), 3, false, ENAV_VERDICT_NOT_SELECTED,
     true, ENAV_VERDICT_NOT_DENYLISTED},
    {"mixed_unit_match", SEL("namespace:*", "cgroup:/system.slice/*.service"), 3, true,
     ENAV_VERDICT_SELECTED, false, ENAV_VERDICT_DENYLISTED},
    /* A known pod: a match and a miss. */
    {"known_pod_two_selectors", SEL("namespace:kube-system", "service:default/web"), 0, true,
     ENAV_VERDICT_SELECTED, false, ENAV_VERDICT_DENYLISTED},
};

static void run_decide(void **state)
{
	const struct dcase *c = *state;
	struct enav_workload w = workload(c->workload);
	enum enav_verdict_reason reason;

	memset(&list, 0, sizeof(list));
	for (unsigned i = 0; c->sel[i]; i++)
		snprintf(list.item[list.n++], ENAV_CONFIG_ENTRY_MAX, "%s", c->sel[i]);
	assert_int_equal(enav_selectors_compile(&list, &set, err, sizeof(err)), 0);

	reason = ENAV_VERDICT__COUNT;
	assert_int_equal(enav_selectors_decide(&set, ENAV_CAPTURE_POLICY_ALLOWLIST, &w, &reason),
			 c->allow_capture);
	assert_string_equal(enav_verdict_reason_name(reason),
			    enav_verdict_reason_name(c->allow_reason));
	reason = ENAV_VERDICT__COUNT;
	assert_int_equal(enav_selectors_decide(&set, ENAV_CAPTURE_POLICY_DENYLIST, &w, &reason),
			 c->deny_capture);
	assert_string_equal(enav_verdict_reason_name(reason),
			    enav_verdict_reason_name(c->deny_reason));
}

static void test_decide_never_captures_undecidable(void **state)
{
	/* Whatever the selectors, an UNDECIDABLE verdict never captures. */
	for (unsigned i = 0; i < N(dcases); i++)
		for (int p = ENAV_CAPTURE_POLICY_ALLOWLIST; p <= ENAV_CAPTURE_POLICY_DENYLIST;
		     p++) {
			const struct dcase *c = &dcases[i];
			bool cap =
			    p == ENAV_CAPTURE_POLICY_ALLOWLIST ? c->allow_capture : c->deny_capture;
			enum enav_verdict_reason r =
			    p == ENAV_CAPTURE_POLICY_ALLOWLIST ? c->allow_reason : c->deny_reason;
			if (r == ENAV_VERDICT_UNDECIDABLE)
				assert_false(cap);
		}
	/* Every selector UNKNOWN, in a full list: still undecidable. */
	memset(&list, 0, sizeof(list));
	for (unsigned i = 0; i < ENAV_CONFIG_LIST_MAX; i++)
		snprintf(list.item[list.n++], ENAV_CONFIG_ENTRY_MAX, "namespace:ns%u", i);
	assert_int_equal(enav_selectors_compile(&list, &set, err, sizeof(err)), 0);
	struct enav_workload w = workload(1);
	enum enav_verdict_reason reason;
	assert_false(enav_selectors_decide(&set, ENAV_CAPTURE_POLICY_ALLOWLIST, &w, &reason));
	assert_int_equal(reason, ENAV_VERDICT_UNDECIDABLE);
	assert_false(enav_selectors_decide(&set, ENAV_CAPTURE_POLICY_DENYLIST, &w, &reason));
	assert_int_equal(reason, ENAV_VERDICT_UNDECIDABLE);
}

static void test_reason_names(void **state)
{
	assert_string_equal(enav_verdict_reason_name(ENAV_VERDICT_SELECTED), "selected");
	assert_string_equal(enav_verdict_reason_name(ENAV_VERDICT_NOT_SELECTED), "not_selected");
	assert_string_equal(enav_verdict_reason_name(ENAV_VERDICT_DENYLISTED), "denylisted");
	assert_string_equal(enav_verdict_reason_name(ENAV_VERDICT_NOT_DENYLISTED),
			    "not_denylisted");
	assert_string_equal(enav_verdict_reason_name(ENAV_VERDICT_UNDECIDABLE),
			    "undecidable_without_kubernetes_data");
	assert_string_equal(enav_verdict_reason_name(ENAV_VERDICT__COUNT), "unknown");
	assert_string_equal(enav_verdict_reason_name((enum enav_verdict_reason) - 1), "unknown");
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
	    cmocka_unit_test(test_compile_valid),
	    cmocka_unit_test(test_compile_needs_k8s),
	    cmocka_unit_test(test_compile_splits_once),
	    cmocka_unit_test(test_compile_full_list),
	    cmocka_unit_test(test_compile_invalid),
	    cmocka_unit_test(test_match_cgroup_glob),
	    cmocka_unit_test(test_match_runtime),
	    cmocka_unit_test(test_match_k8s_without_data),
	    cmocka_unit_test(test_match_k8s_not_a_pod),
	    cmocka_unit_test(test_match_namespace),
	    cmocka_unit_test(test_match_pod),
	    cmocka_unit_test(test_match_service),
	    cmocka_unit_test(test_decide_never_captures_undecidable),
	    cmocka_unit_test(test_reason_names),
	};
	const size_t nfixed = N(fixed);
	struct CMUnitTest tests[N(dcases) + N(fixed)];

	for (size_t i = 0; i < nfixed; i++)
		tests[i] = fixed[i];
	/* One named cmocka test per decision row. */
	for (size_t i = 0; i < N(dcases); i++)
		tests[nfixed + i] = (struct CMUnitTest){.name = dcases[i].name,
							.test_func = run_decide,
							.initial_state = (void *)&dcases[i]};
	return _cmocka_run_group_tests("selectors", tests, N(dcases) + nfixed, setup, NULL);
}
