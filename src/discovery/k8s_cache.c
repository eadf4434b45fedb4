/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bounded object stores (hash chains sized once from the cap, so a full
 * store never grows) and the view builder that joins pods, services and
 * EndpointSlices into one immutable snapshot.
 */
#include "discovery/k8s_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The view's private half: per-pod data not in struct enav_k8s_pod. */
struct k8s_view_priv {
	struct k8s_labels **labels; /* full label set per pod index (a reference) */
	uint8_t *svc_source;	    /* enum enav_k8s_service_source per pod */
	char (*phase)[K8S_PHASE_MAX + 1];
};

/* ---- stores --------------------------------------------------------------- */

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

int k8s_store_init(struct k8s_store *s, enum k8s_kind kind, uint32_t cap)
{
	uint32_t nb = 16;

	memset(s, 0, sizeof(*s));
	while (nb < cap && nb < (1u << 20))
		nb <<= 1;
	s->buckets = calloc(nb, sizeof(s->buckets[0]));
	if (!s->buckets)
		return -1;
	s->kind = kind;
	s->nbuckets = nb;
	s->cap = cap;
	return 0;
}

void k8s_store_clear(struct k8s_store *s)
{
	for (uint32_t b = 0; s->buckets && b < s->nbuckets; b++) {
		struct k8s_node *n = s->buckets[b], *next;

		for (; n; n = next) {
			next = n->next;
			k8s_object_free(s->kind, n);
		}
		s->buckets[b] = NULL;
	}
	s->count = 0;
}

void k8s_store_free(struct k8s_store *s)
{
	k8s_store_clear(s);
	free(s->buckets);
	memset(s, 0, sizeof(*s));
}

static struct k8s_node **slot(const struct k8s_store *s, const char *key, uint32_t h)
{
	struct k8s_node **pp = &s->buckets[h & (s->nbuckets - 1)];

	while (*pp && ((*pp)->hash != h || strcmp((*pp)->key, key) != 0))
		pp = &(*pp)->next;
	return pp;
}

struct k8s_node *k8s_store_get(const struct k8s_store *s, const char *key)
{
	return *slot(s, key, hash_str(key));
}

int k8s_store_put(struct k8s_store *s, struct k8s_node *obj)
{
	uint32_t h = hash_str(obj->key);
	struct k8s_node **pp = slot(s, obj->key, h);

	obj->hash = h;
	if (*pp) {
		obj->next = (*pp)->next;
		k8s_object_free(s->kind, *pp);
		*pp = obj;
		return 0;
	}
	if (s->count >= s->cap) {
		k8s_object_free(s->kind, obj);
		return -1;
	}
	obj->next = NULL;
	*pp = obj;
	s->count++;
	return 0;
}

bool k8s_store_del(struct k8s_store *s, const char *key)
{
	struct k8s_node **pp = slot(s, key, hash_str(key)), *n = *pp;

	if (!n)
		return false;
	*pp = n->next;
	k8s_object_free(s->kind, n);
	s->count--;
	return true;
}

void k8s_store_swap(struct k8s_store *a, struct k8s_store *b)
{
	struct k8s_store t = *a;

	*a = *b;
	*b = t;
}

/* ---- views ---------------------------------------------------------------- */

struct enav_k8s_view *k8s_view_empty(void)
{
	struct enav_k8s_view *v = calloc(1, sizeof(*v));

	if (v)
		atomic_init(&v->refs, 1);
	return v;
}

static void view_free(struct enav_k8s_view *v)
{
	struct k8s_view_priv *vp = v->priv;

	if (vp) {
		for (uint32_t i = 0; vp->labels && i < v->n_pods; i++)
			k8s_labels_unref(vp->labels[i]);
		free(vp->labels);
		free(vp->svc_source);
		free(vp->phase);
		free(vp);
	}
	free(v->pods);
	free(v);
}

void enav_k8s_view_release(struct enav_k8s_view *v)
{
	if (v && atomic_fetch_sub_explicit(&v->refs, 1, memory_order_acq_rel) == 1)
		view_free(v);
}

static int pod_uid_cmp(const void *a, const void *b)
{
	return strcmp(((const struct enav_k8s_pod *)a)->uid, ((const struct enav_k8s_pod *)b)->uid);
}

const struct enav_k8s_pod *enav_k8s_view_find_pod(const struct enav_k8s_view *v, const char *uid)
{
	struct enav_k8s_pod probe;

	if (!v || !uid || v->n_pods == 0 || strlen(uid) > ENAV_K8S_UID_LEN)
		return NULL;
	memcpy(probe.uid, uid, strlen(uid) + 1);
	return bsearch(&probe, v->pods, v->n_pods, sizeof(v->pods[0]), pod_uid_cmp);
}

/* Index of pod in v, or -1 when it is not one of v's pods. */
static long pod_index(const struct enav_k8s_view *v, const struct enav_k8s_pod *pod)
{
	if (!v || !pod || !v->priv || pod < v->pods || pod >= v->pods + v->n_pods)
		return -1;
	return pod - v->pods;
}

bool enav_k8s_view_pod_has_label(const struct enav_k8s_view *v, const struct enav_k8s_pod *pod,
				 const char *key, const char *value)
{
	long i = pod_index(v, pod);
	const char *have;

	if (i < 0 || !value)
		return false;
	have = k8s_labels_get(((struct k8s_view_priv *)v->priv)->labels[i], key);
	return have && strcmp(have, value) == 0;
}

enum enav_k8s_service_source enav_k8s_view_pod_services_source(const struct enav_k8s_view *v,
							       const struct enav_k8s_pod *pod)
{
	long i = pod_index(v, pod);

	return i < 0
		   ? ENAV_K8S_SERVICES_NONE
		   : (enum enav_k8s_service_source)((struct k8s_view_priv *)v->priv)->svc_source[i];
}

const char *enav_k8s_view_pod_phase(const struct enav_k8s_view *v, const struct enav_k8s_pod *pod)
{
	long i = pod_index(v, pod);

	return i < 0 ? "" : ((struct k8s_view_priv *)v->priv)->phase[i];
}

/* Add namespace/name to the pod's services once, in sorted order. */
static bool add_service(struct enav_k8s_pod *p, const char *ns, const char *name)
{
	uint32_t at = 0;

	for (; at < p->n_services; at++) {
		int c = strcmp(p->services[at].namespace_, ns);

		if (c == 0)
			c = strcmp(p->services[at].name, name);
		if (c == 0)
			return true;
		if (c > 0)
			break;
	}
	if (p->n_services == ENAV_K8S_MAX_SERVICES)
		return false;
	memmove(&p->services[at + 1], &p->services[at],
		(p->n_services - at) * sizeof(p->services[0]));
	snprintf(p->services[at].namespace_, sizeof(p->services[at].namespace_), "%s", ns);
	snprintf(p->services[at].name, sizeof(p->services[at].name), "%s", name);
	p->n_services++;
	return true;
}

static int pod_obj_cmp(const void *a, const void *b)
{
	return strcmp((*(const struct k8s_pod_obj *const *)a)->uid,
		      (*(const struct k8s_pod_obj *const *)b)->uid);
}

struct pod_ref {
	const char *ns_name; /* "namespace/name" */
	uint32_t index;
};

static int pod_ref_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pod_ref *)a)->ns_name, ((const struct pod_ref *)b)->ns_name);
}

static int svc_ns_cmp(const void *a, const void *b)
{
	return strcmp((*(struct k8s_svc_obj *const *)a)->namespace_,
		      (*(struct k8s_svc_obj *const *)b)->namespace_);
}

#define FOREACH_NODE(s, n)                                                                         \
	for (uint32_t b_ = 0; b_ < (s)->nbuckets; b_++)                                            \
		for (struct k8s_node *n = (s)->buckets[b_]; n; n = n->next)

/* Services from EndpointSlices: observed, as the endpoints controller wrote them. */
static void join_slices(struct enav_k8s_view *v, struct k8s_view_priv *vp,
			const struct k8s_store *slices, char (*keys)[K8S_KEY_MAX + 1],
			bool *overflow)
{
	struct pod_ref *refs = malloc((v->n_pods ? v->n_pods : 1) * sizeof(*refs));

	if (!refs)
		return;
	for (uint32_t i = 0; i < v->n_pods; i++) {
		snprintf(keys[i], K8S_KEY_MAX + 1, "%s/%s", v->pods[i].namespace_, v->pods[i].name);
		refs[i] = (struct pod_ref){keys[i], i};
	}
	qsort(refs, v->n_pods, sizeof(*refs), pod_ref_cmp);
	FOREACH_NODE(slices, n)
	{
		const struct k8s_slice_obj *s = (const struct k8s_slice_obj *)n;

		for (uint32_t t = 0; s->service[0] && t < s->n_targets; t++) {
			const struct enav_k8s_pod *pod = NULL;

			if (s->targets[t].ref) {
				struct pod_ref probe = {s->targets[t].ref, 0}, *hit;

				hit = bsearch(&probe, refs, v->n_pods, sizeof(*refs), pod_ref_cmp);
				pod = hit ? &v->pods[hit->index] : NULL;
			} else {
				pod = enav_k8s_view_find_pod(v, s->targets[t].uid);
			}
			if (!pod)
				continue;
			uint32_t i = (uint32_t)(pod - v->pods);

			vp->svc_source[i] = ENAV_K8S_SERVICES_OBSERVED;
			if (!add_service(&v->pods[i], s->namespace_, s->service))
				overflow[i] = true;
		}
	}
	free(refs);
}

/* Pods no slice mentions: services whose selector matches their labels. */
static void join_selectors(struct enav_k8s_view *v, struct k8s_view_priv *vp,
			   const struct k8s_store *svcs, bool *overflow)
{
	struct k8s_svc_obj **arr = malloc((svcs->count ? svcs->count : 1) * sizeof(*arr));
	uint32_t n = 0;

	if (!arr)
		return;
	FOREACH_NODE(svcs, node)
	{
		struct k8s_svc_obj *s = (struct k8s_svc_obj *)node;

		if (s->selector)
			arr[n++] = s;
	}
	qsort(arr, n, sizeof(*arr), svc_ns_cmp);
	for (uint32_t i = 0; i < v->n_pods; i++) {
		struct enav_k8s_pod *p = &v->pods[i];
		uint32_t lo = 0, hi = n;

		if (vp->svc_source[i] != ENAV_K8S_SERVICES_NONE)
			continue;
		while (lo < hi) { /* first service in the pod's namespace */
			uint32_t mid = lo + (hi - lo) / 2;

			if (strcmp(arr[mid]->namespace_, p->namespace_) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < n && strcmp(arr[lo]->namespace_, p->namespace_) == 0; lo++) {
			if (!k8s_selector_matches(arr[lo]->selector, vp->labels[i]))
				continue;
			vp->svc_source[i] = ENAV_K8S_SERVICES_INFERRED;
			if (!add_service(p, arr[lo]->namespace_, arr[lo]->name))
				overflow[i] = true;
		}
	}
	free(arr);
}

static void keep_labels(struct enav_k8s_pod *p, const struct k8s_labels *l,
			const struct enav_config_list *keep, bool *truncated)
{
	for (uint32_t i = 0; keep && i < keep->n; i++) {
		const char *v = k8s_labels_get(l, keep->item[i]);

		if (!v || strlen(keep->item[i]) > ENAV_K8S_LABEL_KEY_MAX)
			continue;
		if (p->n_labels == ENAV_K8S_MAX_LABELS) {
			*truncated = true;
			return;
		}
		snprintf(p->labels[p->n_labels].key, sizeof(p->labels[0].key), "%s", keep->item[i]);
		snprintf(p->labels[p->n_labels].value, sizeof(p->labels[0].value), "%s", v);
		p->n_labels++;
	}
}

struct enav_k8s_view *k8s_view_build(const struct k8s_store *pods, const struct k8s_store *svcs,
				     const struct k8s_store *slices,
				     const struct enav_config_list *keep, uint64_t generation,
				     bool synced, struct k8s_view_stats *st)
{
	struct enav_k8s_view *v = k8s_view_empty();
	struct k8s_view_priv *vp = calloc(1, sizeof(*vp));
	uint32_t n = 0, cnt = pods->count ? pods->count : 1;
	char(*keys)[K8S_KEY_MAX + 1] = calloc(cnt, sizeof(*keys));
	bool *overflow = calloc(cnt, sizeof(bool));
	const struct k8s_pod_obj **src = calloc(cnt, sizeof(*src));

	memset(st, 0, sizeof(*st));
	if (v && vp) {
		v->priv = vp;
		v->pods = calloc(cnt, sizeof(v->pods[0]));
		vp->labels = calloc(cnt, sizeof(vp->labels[0]));
		vp->svc_source = calloc(cnt, 1);
		vp->phase = calloc(cnt, sizeof(vp->phase[0]));
	}
	if (!v || !vp || !keys || !overflow || !src || !v->pods || !vp->labels || !vp->svc_source ||
	    !vp->phase) {
		if (v && vp)
			view_free(v);
		else {
			free(v);
			free(vp);
		}
		v = NULL;
		goto out;
	}
	v->generation = generation;
	v->synced = synced;
	/* Objects sorted by uid give the slots their order. */
	FOREACH_NODE(pods, node)
	{
		src[n++] = (const struct k8s_pod_obj *)node;
	}
	v->n_pods = n;
	qsort(src, n, sizeof(src[0]), pod_obj_cmp);
	for (uint32_t i = 0; i < n; i++) {
		struct enav_k8s_pod *p = &v->pods[i];
		const struct k8s_pod_obj *o = src[i];
		bool trunc = false;

		memcpy(p->uid, o->uid, sizeof(p->uid));
		memcpy(p->name, o->name, sizeof(p->name));
		memcpy(p->namespace_, o->namespace_, sizeof(p->namespace_));
		memcpy(p->node, o->node_name, sizeof(p->node));
		memcpy(p->owner_kind, o->owner_kind, sizeof(p->owner_kind));
		memcpy(p->owner_name, o->owner_name, sizeof(p->owner_name));
		memcpy(vp->phase[i], o->phase, sizeof(vp->phase[i]));
		vp->labels[i] = k8s_labels_ref(o->labels);
		keep_labels(p, o->labels, keep, &trunc);
		st->labels_truncated += trunc;
	}
	join_slices(v, vp, slices, keys, overflow);
	join_selectors(v, vp, svcs, overflow);
	for (uint32_t i = 0; i < n; i++)
		st->services_truncated += overflow[i];
out:
	free(keys);
	free(overflow);
	free(src);
	return v;
}
