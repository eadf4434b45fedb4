/* SPDX-License-Identifier: Apache-2.0 */
/* Self metrics of the Kubernetes controller; one HELP/TYPE per family. */
#include "discovery/k8s_state.h"

#include <stddef.h>
#include <stdio.h>

static const char *const verb_names[K8S_NVERBS] = {"list", "watch"};
static const char *const relist_names[K8S_NRL] = {"gone", "event_too_large", "decode_error",
						  "continue_expired"};
const char *const k8s_err_names[K8S_NER] = {
    "connect", "timeout",	 "tls",	  "transport",	 "http",       "auth", "stalled",
    "decode",  "list_too_large", "token", "watch_error", "short_watch"};
static const char *const drop_names[K8S_NDR] = {"cap",	  "oversize", "invalid",
						"labels", "targets",  "event_too_large"};

static uint64_t rd(_Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/* One sample per kind and reason, zeros included, so series exist from start. */
static void per_reason(struct enav_k8s *k, struct enav_promtext *p, const char *name,
		       const char *label, const char *const *names, int n, size_t offset)
{
	for (int i = 0; i < K8S_NKINDS; i++) {
		_Atomic uint64_t *base = (_Atomic uint64_t *)((char *)&k->ks[i].m + offset);

		for (int r = 0; r < n; r++) {
			const char *l[] = {"kind", k8s_kind_name((enum k8s_kind)i), label,
					   names[r]};

			enav_promtext_sample_u64(p, name, l, 2, rd(&base[r]));
		}
	}
}

void enav_k8s_metrics(struct enav_k8s *k, struct enav_promtext *p)
{
	static const long codes[] = {
#define X(c) c,
	    K8S_CODES
#undef X
	};
	char code[16];

	if (!k)
		return;
	enav_promtext_family(p, "enav_k8s_requests_total", "counter",
			     "API requests completed, by kind, verb and HTTP code (error: no "
			     "response).");
	for (int i = 0; i < K8S_NKINDS; i++) {
		for (int v = 0; v < K8S_NVERBS; v++) {
			for (int c = 0; c < K8S_NCODES; c++) {
				uint64_t n = rd(&k->ks[i].m.requests[v][c]);

				if (!n)
					continue;
				if (c == K8S_CODE_OTHER)
					snprintf(code, sizeof(code), "other");
				else if (c == K8S_CODE_ERROR)
					snprintf(code, sizeof(code), "error");
				else
					snprintf(code, sizeof(code), "%ld", codes[c]);
				const char *l[] = {"kind", k8s_kind_name((enum k8s_kind)i),
						   "verb", verb_names[v],
						   "code", code};

				enav_promtext_sample_u64(p, "enav_k8s_requests_total", l, 3, n);
			}
		}
	}
	enav_promtext_family(p, "enav_k8s_watch_events_total", "counter",
			     "Watch events received, by kind and type.");
	{
		const char *types[K8S_EV_NTYPES];

		for (int t = 0; t < K8S_EV_NTYPES; t++)
			types[t] = k8s_evtype_name((enum k8s_evtype)t);
		per_reason(k, p, "enav_k8s_watch_events_total", "type", types, K8S_EV_NTYPES,
			   offsetof(struct k8s_counters, events));
	}
	enav_promtext_family(p, "enav_k8s_relists_total", "counter",
			     "Full re-lists after a watch could not continue, by kind and reason.");
	per_reason(k, p, "enav_k8s_relists_total", "reason", relist_names, K8S_NRL,
		   offsetof(struct k8s_counters, relists));
	enav_promtext_family(p, "enav_k8s_errors_total", "counter",
			     "Failed requests and watches, by kind and reason.");
	per_reason(k, p, "enav_k8s_errors_total", "reason", k8s_err_names, K8S_NER,
		   offsetof(struct k8s_counters, errors));
	enav_promtext_family(p, "enav_k8s_dropped_total", "counter",
			     "Objects, labels, endpoints or events not kept, by kind and reason.");
	per_reason(k, p, "enav_k8s_dropped_total", "reason", drop_names, K8S_NDR,
		   offsetof(struct k8s_counters, dropped));
	enav_promtext_family(p, "enav_k8s_objects", "gauge", "Objects cached, by kind.");
	for (int i = 0; i < K8S_NKINDS; i++) {
		const char *l[] = {"kind", k8s_kind_name((enum k8s_kind)i)};

		enav_promtext_sample_u64(p, "enav_k8s_objects", l, 1,
					 atomic_load(&k->ks[i].m.objects));
	}
	enav_promtext_family(p, "enav_k8s_backoff_seconds", "gauge",
			     "Delay before the next retry, by kind (0 when healthy).");
	for (int i = 0; i < K8S_NKINDS; i++) {
		const char *l[] = {"kind", k8s_kind_name((enum k8s_kind)i)};

		enav_promtext_sample(p, "enav_k8s_backoff_seconds", l, 1,
				     atomic_load(&k->ks[i].m.backoff_ms) / 1000.0);
	}
	enav_promtext_family(p, "enav_k8s_view_truncated_pods", "gauge",
			     "Pods in the current view with more services or kept labels than "
			     "fit, by field.");
	{
		const char *ls[] = {"field", "services"}, *ll[] = {"field", "labels"};

		enav_promtext_sample_u64(p, "enav_k8s_view_truncated_pods", ls, 1,
					 atomic_load(&k->services_truncated));
		enav_promtext_sample_u64(p, "enav_k8s_view_truncated_pods", ll, 1,
					 atomic_load(&k->labels_truncated));
	}
	enav_promtext_family(p, "enav_k8s_synced", "gauge",
			     "1 once pods, services and EndpointSlices have each been listed.");
	enav_promtext_sample_u64(p, "enav_k8s_synced", NULL, 0, atomic_load(&k->synced));
}
