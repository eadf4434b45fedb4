/* SPDX-License-Identifier: Apache-2.0 */
#include "discovery/selectors.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

static const struct {
	const char *prefix;
	enum enav_selector_kind kind;
} kinds[] = {
    {"cgroup:", ENAV_SEL_CGROUP},	{"runtime:", ENAV_SEL_RUNTIME},
    {"namespace:", ENAV_SEL_NAMESPACE}, {"pod:", ENAV_SEL_POD},
    {"label:", ENAV_SEL_LABEL},		{"service:", ENAV_SEL_SERVICE},
};

int enav_selectors_compile(const struct enav_config_list *list, struct enav_selector_set *out,
			   char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < list->n && i < ENAV_CONFIG_LIST_MAX; i++) {
		const char *item = list->item[i];
		struct enav_selector *s = &out->s[out->n];
		bool ok = false;
		for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]) && !ok; k++) {
			size_t pl = strlen(kinds[k].prefix);
			if (strncmp(item, kinds[k].prefix, pl) != 0)
				continue;
			s->kind = kinds[k].kind;
			snprintf(s->value, sizeof(s->value), "%s", item + pl);
			ok = s->value[0] != '\0';
		}
		/* label:key=value and service/pod namespace/name split once here. */
		char sep = s->kind == ENAV_SEL_LABEL ? '=' : '/';
		if (ok && (s->kind == ENAV_SEL_LABEL || s->kind == ENAV_SEL_SERVICE ||
			   s->kind == ENAV_SEL_POD)) {
			char *cut = strchr(s->value, sep);
			ok = cut != NULL && cut != s->value;
			if (ok) {
				*cut = '\0';
				snprintf(s->value2, sizeof(s->value2), "%s", cut + 1);
			}
		}
		if (!ok) {
			snprintf(err, errlen, "capture.selectors[%u]: \"%s\" is not a selector", i,
				 item);
			return -1;
		}
		out->needs_k8s |= s->kind == ENAV_SEL_NAMESPACE || s->kind == ENAV_SEL_POD ||
				  s->kind == ENAV_SEL_LABEL || s->kind == ENAV_SEL_SERVICE;
		out->n++;
	}
	return 0;
}

/* Config spells runtimes as the selector syntax does ("crio"), not as the
 * signal names them ("cri-o"). */
static bool runtime_matches(enum enav_container_runtime r, const char *name)
{
	if (strcmp(name, "crio") == 0)
		return r == ENAV_RUNTIME_CRIO;
	return strcmp(enav_container_runtime_name(r), name) == 0;
}

static enum enav_match yes(bool b)
{
	return b ? ENAV_MATCH_YES : ENAV_MATCH_NO;
}

enum enav_match enav_selector_match(const struct enav_selector *s, const struct enav_workload *w)
{
	switch (s->kind) {
	case ENAV_SEL_CGROUP:
		/* No FNM_PATHNAME: '*' may span levels ("/kubepods*" covers the tree). */
		return yes(w->cgroup_path && fnmatch(s->value, w->cgroup_path, 0) == 0);
	case ENAV_SEL_RUNTIME:
		return yes(w->identity && w->identity->container_id[0] &&
			   runtime_matches(w->identity->runtime, s->value));
	default:
		break;
	}
	/* Kubernetes selectors.  A cgroup that is not a pod's cannot match one;
	 * a pod cgroup the controller does not know (yet) is undecidable. */
	if (!w->identity || !w->identity->pod_uid[0])
		return ENAV_MATCH_NO;
	if (!w->k8s || !w->k8s->synced || !w->pod)
		return ENAV_MATCH_UNKNOWN;
	const struct enav_k8s_pod *pod = w->pod;
	switch (s->kind) {
	case ENAV_SEL_NAMESPACE:
		return yes(fnmatch(s->value, pod->namespace_, 0) == 0);
	case ENAV_SEL_POD:
		return yes(strcmp(s->value, pod->namespace_) == 0 &&
			   fnmatch(s->value2, pod->name, 0) == 0);
	case ENAV_SEL_LABEL:
		return yes(enav_k8s_view_pod_has_label(w->k8s, pod, s->value, s->value2));
	case ENAV_SEL_SERVICE:
		for (uint32_t i = 0; i < pod->n_services && i < ENAV_K8S_MAX_SERVICES; i++)
			if (strcmp(pod->services[i].namespace_, s->value) == 0 &&
			    strcmp(pod->services[i].name, s->value2) == 0)
				return ENAV_MATCH_YES;
		return ENAV_MATCH_NO;
	default:
		return ENAV_MATCH_NO;
	}
}

bool enav_selectors_decide(const struct enav_selector_set *set, enum enav_capture_policy policy,
			   const struct enav_workload *w, enum enav_verdict_reason *reason)
{
	bool any_yes = false, any_unknown = false;
	for (unsigned i = 0; i < set->n; i++) {
		enum enav_match m = enav_selector_match(&set->s[i], w);
		any_yes |= m == ENAV_MATCH_YES;
		any_unknown |= m == ENAV_MATCH_UNKNOWN;
	}
	if (policy == ENAV_CAPTURE_POLICY_ALLOWLIST) {
		*reason = any_yes	? ENAV_VERDICT_SELECTED
			  : any_unknown ? ENAV_VERDICT_UNDECIDABLE
					: ENAV_VERDICT_NOT_SELECTED;
		return any_yes;
	}
	/* Denylist: any match denies; an undecidable selector denies too (fail closed). */
	*reason = any_yes	? ENAV_VERDICT_DENYLISTED
		  : any_unknown ? ENAV_VERDICT_UNDECIDABLE
				: ENAV_VERDICT_NOT_DENYLISTED;
	return !any_yes && !any_unknown;
}

const char *enav_verdict_reason_name(enum enav_verdict_reason r)
{
	static const char *const names[ENAV_VERDICT__COUNT] = {
	    [ENAV_VERDICT_SELECTED] = "selected",
	    [ENAV_VERDICT_NOT_SELECTED] = "not_selected",
	    [ENAV_VERDICT_DENYLISTED] = "denylisted",
	    [ENAV_VERDICT_NOT_DENYLISTED] = "not_denylisted",
	    [ENAV_VERDICT_UNDECIDABLE] = "undecidable_without_kubernetes_data",
	};
	return (unsigned)r < ENAV_VERDICT__COUNT ? names[r] : "unknown";
}
