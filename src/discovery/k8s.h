/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kubernetes controller: the one owner of Pod, Service and EndpointSlice
 * discovery.  It lists then watches each kind through the API server on its
 * own thread and publishes an immutable, reference-counted view.  The
 * discovery thread turns a view into capture verdicts and attribution
 * entries in one snapshot, so filter and attribution never disagree.
 *
 * Nothing here ever reaches a kernel map: the view stays in user memory.
 */
#ifndef ENAV_DISCOVERY_K8S_H
#define ENAV_DISCOVERY_K8S_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "platform/promtext.h"

#define ENAV_K8S_UID_LEN       36  /* canonical UUID */
#define ENAV_K8S_NAME_MAX      253 /* DNS subdomain */
#define ENAV_K8S_NAMESPACE_MAX 63  /* DNS label */
#define ENAV_K8S_KIND_MAX      63
#define ENAV_K8S_LABEL_KEY_MAX 317 /* prefix (253) + "/" + name (63) */
#define ENAV_K8S_LABEL_VAL_MAX 63
#define ENAV_K8S_MAX_LABELS    32 /* kept per pod; only keys in kubernetes.keep_labels */
#define ENAV_K8S_MAX_SERVICES  8  /* services recorded per pod */

struct enav_k8s_label {
	char key[ENAV_K8S_LABEL_KEY_MAX + 1];
	char value[ENAV_K8S_LABEL_VAL_MAX + 1];
};

struct enav_k8s_ref {
	char namespace_[ENAV_K8S_NAMESPACE_MAX + 1];
	char name[ENAV_K8S_NAME_MAX + 1];
};

struct enav_k8s_pod {
	char uid[ENAV_K8S_UID_LEN + 1];
	char name[ENAV_K8S_NAME_MAX + 1];
	char namespace_[ENAV_K8S_NAMESPACE_MAX + 1];
	char node[ENAV_K8S_NAME_MAX + 1];
	/* Controlling owner, resolved to the workload: a ReplicaSet owned by a
	 * Deployment is reported as the Deployment when the ReplicaSet name has
	 * the pod-template-hash suffix the pod's labels prove; else the
	 * ReplicaSet itself.  Empty when the pod has no controller. */
	char owner_kind[ENAV_K8S_KIND_MAX + 1];
	char owner_name[ENAV_K8S_NAME_MAX + 1];
	uint32_t n_labels; /* only labels whose key is in keep_labels */
	struct enav_k8s_label labels[ENAV_K8S_MAX_LABELS];
	/* All pod labels are needed to match service and label selectors, but
	 * only kept ones are stored; selector matching happens in the controller
	 * (enav_k8s_view_pod_matches_label) against the full set it keeps
	 * privately.  Services: those whose EndpointSlices target this pod. */
	uint32_t n_services;
	struct enav_k8s_ref services[ENAV_K8S_MAX_SERVICES];
};

/* Immutable once published; sorted by uid for binary search. */
struct enav_k8s_view {
	_Atomic uint32_t refs;
	uint64_t generation;
	bool synced; /* every kind listed at least once */
	uint32_t n_pods;
	struct enav_k8s_pod *pods;
	void *priv; /* the controller's full label sets for selector matching */
};

struct enav_k8s;

/* Called on the controller thread after each new view is published. */
typedef void (*enav_k8s_change_fn)(void *ctx);

/*
 * Start the controller per cfg->kubernetes.  Returns NULL and fills err with
 * one line when it cannot start (bad kubeconfig, unreadable token).  With
 * kubernetes.enabled = auto and no in-cluster environment, returns NULL with
 * err[0] == '\0': the caller logs once that it runs without Kubernetes.
 */
struct enav_k8s *enav_k8s_start(const struct enav_config *cfg, enav_k8s_change_fn on_change,
				void *ctx, char *err, size_t errlen);
void enav_k8s_stop(struct enav_k8s *k);

/* The current view (never NULL once started; empty until synced). */
struct enav_k8s_view *enav_k8s_view_acquire(struct enav_k8s *k);
void enav_k8s_view_release(struct enav_k8s_view *v);
const struct enav_k8s_pod *enav_k8s_view_find_pod(const struct enav_k8s_view *v, const char *uid);
/* Does the pod carry label key=value (any label, kept or not)? */
bool enav_k8s_view_pod_has_label(const struct enav_k8s_view *v, const struct enav_k8s_pod *pod,
				 const char *key, const char *value);

/* Self metrics: list/watch requests, events by kind and type, relists on
 * 410 Gone, errors, backoff state, cache sizes and cap drops. */
void enav_k8s_metrics(struct enav_k8s *k, struct enav_promtext *p);

#endif
