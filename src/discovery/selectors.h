/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Workload selectors from capture.selectors ("kind:value").  Matching is
 * three-valued: a selector that needs Kubernetes data the agent does not have
 * (no controller, not synced, pod unknown) answers UNKNOWN, never "no", so the
 * capture decision can fail closed.
 */
#ifndef ENAV_DISCOVERY_SELECTORS_H
#define ENAV_DISCOVERY_SELECTORS_H

#include <stdbool.h>
#include <stddef.h>

#include "config/config.h"
#include "discovery/k8s.h"
#include "model/cgroup_path.h"

enum enav_selector_kind {
	ENAV_SEL_CGROUP,
	ENAV_SEL_RUNTIME,
	ENAV_SEL_NAMESPACE,
	ENAV_SEL_POD,
	ENAV_SEL_LABEL,
	ENAV_SEL_SERVICE,
};

struct enav_selector {
	enum enav_selector_kind kind;
	char value[ENAV_CONFIG_ENTRY_MAX];  /* glob, runtime name, or label key */
	char value2[ENAV_CONFIG_ENTRY_MAX]; /* label value; name part of ns/name */
};

struct enav_selector_set {
	unsigned n;
	struct enav_selector s[ENAV_CONFIG_LIST_MAX];
	bool needs_k8s;
};

enum enav_match { ENAV_MATCH_NO, ENAV_MATCH_YES, ENAV_MATCH_UNKNOWN };

/* What a selector can look at for one cgroup. */
struct enav_workload {
	const char *cgroup_path; /* relative to the cgroup2 root */
	const struct enav_cgroup_identity *identity;
	const struct enav_k8s_view *k8s; /* NULL: no controller */
	const struct enav_k8s_pod *pod;	 /* NULL: not a known pod */
};

int enav_selectors_compile(const struct enav_config_list *list, struct enav_selector_set *out,
			   char *err, size_t errlen);
enum enav_match enav_selector_match(const struct enav_selector *s, const struct enav_workload *w);

enum enav_verdict_reason {
	ENAV_VERDICT_SELECTED,	     /* allowlist: a selector matched */
	ENAV_VERDICT_NOT_SELECTED,   /* allowlist: none matched */
	ENAV_VERDICT_DENYLISTED,     /* denylist: a selector matched */
	ENAV_VERDICT_NOT_DENYLISTED, /* denylist: none matched */
	ENAV_VERDICT_UNDECIDABLE,    /* a selector needed data the agent lacks */
	ENAV_VERDICT__COUNT,
};

/* The capture decision for one workload under policy (never ALL). */
bool enav_selectors_decide(const struct enav_selector_set *set, enum enav_capture_policy policy,
			   const struct enav_workload *w, enum enav_verdict_reason *reason);
const char *enav_verdict_reason_name(enum enav_verdict_reason r);

#endif
