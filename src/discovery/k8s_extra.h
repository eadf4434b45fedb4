/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Additions to the agreed interface in k8s.h, kept apart so that file stays
 * as agreed; they are meant to move into k8s.h.  Per-pod facts that are not
 * fields of struct enav_k8s_pod, asked of the view that holds the pod.
 */
#ifndef ENAV_DISCOVERY_K8S_EXTRA_H
#define ENAV_DISCOVERY_K8S_EXTRA_H

#include "discovery/k8s.h"

/* How a pod's services were found. */
enum enav_k8s_service_source {
	ENAV_K8S_SERVICES_NONE,	    /* no service found */
	ENAV_K8S_SERVICES_OBSERVED, /* EndpointSlices target the pod */
	ENAV_K8S_SERVICES_INFERRED, /* no slice mentions it; service selectors match its labels */
};

enum enav_k8s_service_source enav_k8s_view_pod_services_source(const struct enav_k8s_view *v,
							       const struct enav_k8s_pod *pod);
/* status.phase as last seen ("Running", "Pending", ...; "" when unknown). */
const char *enav_k8s_view_pod_phase(const struct enav_k8s_view *v, const struct enav_k8s_pod *pod);

#endif
