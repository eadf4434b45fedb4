/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for capture selectors (src/discovery/selectors.c): the
 * "kind:value" compiler, three-valued matching and the capture decision.
 *
 * Input lines: a cgroup path, a pod namespace, a pod name, then up to 64
 * selectors (lines past 255 bytes are left out, as the config's entries
 * cannot hold them).  The list is compiled as capture.selectors; the config
 * schema (enav_config_validate) judges the same list, and whatever it
 * accepts the compiler must accept too.  A compiled selector must spell its
 * item back exactly.  Every selector is then matched against the workload
 * the lines describe, seen with a synced view, an unsynced one, no
 * Kubernetes data and no pod, and the decision under both policies must
 * agree with the per-selector answers and the fail-closed rule.
 */
#include <fnmatch.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "discovery/k8s.h"
#include "discovery/selectors.h"
#include "model/cgroup_path.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct {
	const char *prefix;
	enum enav_selector_kind kind;
	char sep; /* where value2 starts; 0 = none */
} kinds[] = {
    {"cgroup:", ENAV_SEL_CGROUP, 0},	   {"runtime:", ENAV_SEL_RUNTIME, 0},
    {"namespace:", ENAV_SEL_NAMESPACE, 0}, {"pod:", ENAV_SEL_POD, '/'},
    {"label:", ENAV_SEL_LABEL, '='},	   {"service:", ENAV_SEL_SERVICE, '/'},
};

static bool is_k8s_kind(enum enav_selector_kind k)
{
	return k == ENAV_SEL_NAMESPACE || k == ENAV_SEL_POD || k == ENAV_SEL_LABEL ||
	       k == ENAV_SEL_SERVICE;
}

/* Statics: the set and the config are tens of KiB each. */
static struct enav_config cfg;
static struct enav_selector_set set;
static struct enav_k8s_pod pod;
static struct enav_cgroup_identity identity;

/* The compiled selector spells item back: prefix, value, separator, value2. */
static void check_compiled(const struct enav_selector *s, const char *item)
{
	size_t k;
	char back[3 * ENAV_CONFIG_ENTRY_MAX];

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strncmp(item, kinds[k].prefix, strlen(kinds[k].prefix)))
			break;
	CHECK(k < sizeof(kinds) / sizeof(kinds[0]));
	CHECK(s->kind == kinds[k].kind);
	CHECK(memchr(s->value, '\0', sizeof(s->value)) &&
	      memchr(s->value2, '\0', sizeof(s->value2)));
	CHECK(s->value[0] != '\0');
	if (kinds[k].sep) {
		CHECK(!strchr(s->value, kinds[k].sep)); /* split at the first one */
		snprintf(back, sizeof(back), "%s%s%c%s", kinds[k].prefix, s->value, kinds[k].sep,
			 s->value2);
	} else {
		CHECK(s->value2[0] == '\0');
		snprintf(back, sizeof(back), "%s%s", kinds[k].prefix, s->value);
	}
	CHECK(strcmp(back, item) == 0);
}

static void check_decide(const struct enav_workload *w)
{
	bool any_yes = false, any_unknown = false;

	for (unsigned i = 0; i < set.n; i++) {
		enum enav_match m = enav_selector_match(&set.s[i], w);
		const struct enav_selector *s = &set.s[i];

		CHECK(m == ENAV_MATCH_NO || m == ENAV_MATCH_YES || m == ENAV_MATCH_UNKNOWN);
		CHECK(enav_selector_match(s, w) == m); /* pure */
		if (!is_k8s_kind(s->kind)) {
			CHECK(m != ENAV_MATCH_UNKNOWN);
		} else if (!w->identity || !w->identity->pod_uid[0]) {
			CHECK(m == ENAV_MATCH_NO); /* not a pod's cgroup */
		} else if (!w->k8s || !w->k8s->synced || !w->pod) {
			CHECK(m == ENAV_MATCH_UNKNOWN); /* never "no" without the data */
		} else {
			CHECK(m != ENAV_MATCH_UNKNOWN);
		}
		if (s->kind == ENAV_SEL_CGROUP)
			CHECK((m == ENAV_MATCH_YES) ==
			      (w->cgroup_path && fnmatch(s->value, w->cgroup_path, 0) == 0));
		any_yes |= m == ENAV_MATCH_YES;
		any_unknown |= m == ENAV_MATCH_UNKNOWN;
	}
	enum enav_verdict_reason r = ENAV_VERDICT__COUNT;
	bool cap = enav_selectors_decide(&set, ENAV_CAPTURE_POLICY_ALLOWLIST, w, &r);

	CHECK(strcmp(enav_verdict_reason_name(r), "unknown") != 0);
	CHECK(cap == any_yes);
	CHECK(r == (any_yes	  ? ENAV_VERDICT_SELECTED
		    : any_unknown ? ENAV_VERDICT_UNDECIDABLE
				  : ENAV_VERDICT_NOT_SELECTED));
	cap = enav_selectors_decide(&set, ENAV_CAPTURE_POLICY_DENYLIST, w, &r);
	CHECK(cap == (!any_yes && !any_unknown)); /* fail closed */
	CHECK(r == (any_yes	  ? ENAV_VERDICT_DENYLISTED
		    : any_unknown ? ENAV_VERDICT_UNDECIDABLE
				  : ENAV_VERDICT_NOT_DENYLISTED));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line[3 + ENAV_CONFIG_LIST_MAX] = {NULL};
	size_t nl = 0;

	if (size > 64 * 1024)
		return 0;
	for (size_t start = 0; start <= size && nl < sizeof(line) / sizeof(line[0]);) {
		const uint8_t *e = memchr(data + start, '\n', size - start);
		size_t len = e ? (size_t)(e - (data + start)) : size - start;

		/* Exact-size copies: ASan sees any read past a value. */
		line[nl] = malloc(len + 1);
		CHECK(line[nl] != NULL);
		memcpy(line[nl], data + start, len);
		line[nl][len] = '\0';
		nl++;
		if (!e)
			break;
		start += len + 1;
	}

	enav_config_defaults(&cfg);
	struct enav_config_list *list = &cfg.capture.selectors;

	memset(list, 0, sizeof(*list));
	for (size_t i = 3; i < nl; i++)
		if (strlen(line[i]) < ENAV_CONFIG_ENTRY_MAX)
			strcpy(list->item[list->n++], line[i]);

	char err[256];

	memset(err, 'Z', sizeof(err));
	memset(&set, 0xa5, sizeof(set));
	int rc = enav_selectors_compile(list, &set, err, sizeof(err));
	bool schema_ok = enav_config_validate(&cfg, NULL, 0) == 0;

	CHECK(rc == 0 || rc == -1);
	if (schema_ok)
		CHECK(rc == 0); /* the compiler takes all the schema takes */
	if (rc != 0) {
		CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		CHECK(strncmp(err, "capture.selectors[", 18) == 0);
		goto out;
	}
	CHECK(set.n == list->n);
	bool needs = false;

	for (unsigned i = 0; i < set.n; i++) {
		check_compiled(&set.s[i], list->item[i]);
		needs |= is_k8s_kind(set.s[i].kind);
	}
	CHECK(set.needs_k8s == needs);

	/* The workload of the first three lines. */
	const char *path = nl > 0 ? line[0] : "";
	const char *ns = nl > 1 ? line[1] : "";
	const char *name = nl > 2 ? line[2] : "";

	enav_cgroup_identity_parse(path, strlen(path), &identity);
	memset(&pod, 0, sizeof(pod));
	snprintf(pod.uid, sizeof(pod.uid), "%s", identity.pod_uid);
	snprintf(pod.namespace_, sizeof(pod.namespace_), "%s", ns);
	snprintf(pod.name, sizeof(pod.name), "%s", name);
	pod.n_labels = 1;
	snprintf(pod.labels[0].key, sizeof(pod.labels[0].key), "app");
	snprintf(pod.labels[0].value, sizeof(pod.labels[0].value), "%s", name);
	pod.n_services = 1;
	snprintf(pod.services[0].namespace_, sizeof(pod.services[0].namespace_), "%s", ns);
	snprintf(pod.services[0].name, sizeof(pod.services[0].name), "%s", name);

	struct enav_k8s_view view = {.synced = true, .n_pods = 1, .pods = &pod};
	struct enav_workload w = {
	    .cgroup_path = path, .identity = &identity, .k8s = &view, .pod = &pod};

	check_decide(&w);
	view.synced = false;
	check_decide(&w);
	view.synced = true;
	w.pod = NULL;
	check_decide(&w);
	w.k8s = NULL;
	check_decide(&w);
	w.identity = NULL;
	w.cgroup_path = NULL;
	check_decide(&w);
out:
	for (size_t i = 0; i < nl; i++)
		free(line[i]);
	return 0;
}
