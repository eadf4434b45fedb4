/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Object decoding: only the fields the controller needs, copied into bounded
 * fields.  An object whose identity does not fit is refused whole (a cut name
 * would silently point at another object); optional fields that do not fit
 * are left empty.
 */
#include "discovery/k8s_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *k8s_kind_name(enum k8s_kind kind)
{
	static const char *const names[K8S_NKINDS] = {"pod", "service", "endpointslice"};

	return (unsigned)kind < K8S_NKINDS ? names[kind] : "unknown";
}

/* ---- labels -------------------------------------------------------------- */

struct k8s_labels *k8s_labels_ref(struct k8s_labels *l)
{
	if (l)
		atomic_fetch_add_explicit(&l->refs, 1, memory_order_relaxed);
	return l;
}

void k8s_labels_unref(struct k8s_labels *l)
{
	if (l && atomic_fetch_sub_explicit(&l->refs, 1, memory_order_acq_rel) == 1)
		free(l);
}

static int kv_cmp(const void *a, const void *b)
{
	return strcmp(((const struct k8s_kv *)a)->key, ((const struct k8s_kv *)b)->key);
}

const char *k8s_labels_get(const struct k8s_labels *l, const char *key)
{
	struct k8s_kv probe = {.key = key};
	const struct k8s_kv *hit;

	if (!l || !key)
		return NULL;
	hit = bsearch(&probe, l->kv, l->n, sizeof(l->kv[0]), kv_cmp);
	return hit ? hit->value : NULL;
}

bool k8s_selector_matches(const struct k8s_labels *sel, const struct k8s_labels *labels)
{
	if (!sel || sel->n == 0 || !labels)
		return false;
	for (uint32_t i = 0; i < sel->n; i++) {
		const char *v = k8s_labels_get(labels, sel->kv[i].key);

		if (!v || strcmp(v, sel->kv[i].value) != 0)
			return false;
	}
	return true;
}

/* Copy a JSON object of string values into a new, sorted, immutable set. */
static struct k8s_labels *labels_from_json(const json_t *obj, struct k8s_drops *d)
{
	struct k8s_kv tmp[K8S_MAX_FULL_LABELS];
	size_t bytes = 0;
	uint32_t n = 0;
	const char *key;
	json_t *val;

	if (json_is_object(obj)) {
		json_object_foreach((json_t *)obj, key, val)
		{
			size_t kl = strlen(key), vl;

			if (!json_is_string(val)) {
				d->labels++;
				continue;
			}
			vl = json_string_length(val);
			if (kl == 0 || kl > ENAV_K8S_LABEL_KEY_MAX || vl > ENAV_K8S_LABEL_VAL_MAX ||
			    n == K8S_MAX_FULL_LABELS) {
				d->labels++;
				continue;
			}
			tmp[n].key = key;
			tmp[n].value = json_string_value(val);
			bytes += kl + vl + 2;
			n++;
		}
	}
	struct k8s_labels *l = malloc(sizeof(*l) + n * sizeof(l->kv[0]) + bytes);

	if (!l)
		return NULL;
	atomic_init(&l->refs, 1);
	l->n = n;
	char *p = (char *)&l->kv[n];

	for (uint32_t i = 0; i < n; i++) {
		size_t kl = strlen(tmp[i].key) + 1, vl = strlen(tmp[i].value) + 1;

		memcpy(p, tmp[i].key, kl);
		l->kv[i].key = p;
		p += kl;
		memcpy(p, tmp[i].value, vl);
		l->kv[i].value = p;
		p += vl;
	}
	qsort(l->kv, n, sizeof(l->kv[0]), kv_cmp);
	return l;
}

/* ---- field helpers ------------------------------------------------------- */

static const char *jstr(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Required, non-empty, bounded string: OK, INVALID or OVERSIZE. */
static enum k8s_dec need(const json_t *o, const char *key, char *dst, size_t cap)
{
	const char *s = jstr(o, key);

	if (!s || !s[0])
		return K8S_DEC_INVALID;
	if (strlen(s) >= cap)
		return K8S_DEC_OVERSIZE;
	memcpy(dst, s, strlen(s) + 1);
	return K8S_DEC_OK;
}

/* Optional bounded string: copied when it fits, else left empty. */
static bool opt(const json_t *o, const char *key, char *dst, size_t cap)
{
	const char *s = jstr(o, key);

	dst[0] = '\0';
	if (!s)
		return true;
	if (strlen(s) >= cap)
		return false;
	memcpy(dst, s, strlen(s) + 1);
	return true;
}

static enum k8s_dec meta_ns_name(const json_t *meta, char *ns, char *name, char *key)
{
	enum k8s_dec rc;

	if (!json_is_object(meta))
		return K8S_DEC_INVALID;
	rc = need(meta, "namespace", ns, ENAV_K8S_NAMESPACE_MAX + 1);
	if (rc == K8S_DEC_OK)
		rc = need(meta, "name", name, ENAV_K8S_NAME_MAX + 1);
	if (rc == K8S_DEC_OK)
		snprintf(key, K8S_KEY_MAX + 1, "%s/%s", ns, name);
	return rc;
}

/* ---- owner resolution ----------------------------------------------------- */

static void copy_str(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

void k8s_resolve_owner(const char *ref_kind, const char *ref_name, const char *template_hash,
		       char *kind_out, size_t kind_cap, char *name_out, size_t name_cap)
{
	size_t n = strlen(ref_name), h = template_hash ? strlen(template_hash) : 0;

	/* The Deployment controller names its ReplicaSets <deployment>-<hash>
	 * and labels their pods with the same hash: the suffix is proof. */
	if (strcmp(ref_kind, "ReplicaSet") == 0 && h > 0 && n > h + 1 &&
	    ref_name[n - h - 1] == '-' && strcmp(ref_name + n - h, template_hash) == 0) {
		copy_str(kind_out, kind_cap, "Deployment", strlen("Deployment"));
		copy_str(name_out, name_cap, ref_name, n - h - 1);
		return;
	}
	copy_str(kind_out, kind_cap, ref_kind, strlen(ref_kind));
	copy_str(name_out, name_cap, ref_name, n);
}

/* ---- objects -------------------------------------------------------------- */

static void pod_owner(struct k8s_pod_obj *p, const json_t *meta)
{
	const json_t *refs = json_object_get(meta, "ownerReferences");
	size_t i;
	json_t *ref;

	json_array_foreach(refs, i, ref)
	{
		const char *kind = jstr(ref, "kind"), *name = jstr(ref, "name");

		if (!json_is_true(json_object_get(ref, "controller")) || !kind || !name)
			continue;
		/* An owner that does not fit is reported as none, never cut. */
		if (!kind[0] || !name[0] || strlen(kind) > ENAV_K8S_KIND_MAX ||
		    strlen(name) > ENAV_K8S_NAME_MAX)
			return;
		k8s_resolve_owner(kind, name, k8s_labels_get(p->labels, "pod-template-hash"),
				  p->owner_kind, sizeof(p->owner_kind), p->owner_name,
				  sizeof(p->owner_name));
		return;
	}
}

static enum k8s_dec decode_pod(const json_t *obj, void **out, struct k8s_drops *d)
{
	const json_t *meta = json_object_get(obj, "metadata");
	struct k8s_pod_obj *p = calloc(1, sizeof(*p));
	enum k8s_dec rc;

	if (!p)
		return K8S_DEC_INVALID;
	rc = meta_ns_name(meta, p->namespace_, p->name, p->node.key);
	if (rc == K8S_DEC_OK)
		rc = need(meta, "uid", p->uid, sizeof(p->uid));
	if (rc == K8S_DEC_OK &&
	    !opt(json_object_get(obj, "spec"), "nodeName", p->node_name, sizeof(p->node_name)))
		rc = K8S_DEC_OVERSIZE;
	if (rc != K8S_DEC_OK) {
		free(p);
		return rc;
	}
	memcpy(p->node.key, p->uid, sizeof(p->uid));
	opt(json_object_get(obj, "status"), "phase", p->phase, sizeof(p->phase));
	p->labels = labels_from_json(json_object_get(meta, "labels"), d);
	if (!p->labels) {
		free(p);
		return K8S_DEC_INVALID;
	}
	pod_owner(p, meta);
	*out = p;
	return K8S_DEC_OK;
}

static enum k8s_dec decode_service(const json_t *obj, void **out, struct k8s_drops *d)
{
	struct k8s_svc_obj *s = calloc(1, sizeof(*s));
	enum k8s_dec rc;

	if (!s)
		return K8S_DEC_INVALID;
	rc = meta_ns_name(json_object_get(obj, "metadata"), s->namespace_, s->name, s->node.key);
	if (rc != K8S_DEC_OK) {
		free(s);
		return rc;
	}
	const json_t *sel = json_object_get(json_object_get(obj, "spec"), "selector");

	if (json_is_object(sel) && json_object_size(sel) > 0) {
		s->selector = labels_from_json(sel, d);
		if (!s->selector) {
			free(s);
			return K8S_DEC_INVALID;
		}
	}
	*out = s;
	return K8S_DEC_OK;
}

/* One endpoint's targetRef into t; false when it is not a usable local pod. */
static bool slice_target(const json_t *ep, const struct k8s_slice_obj *s,
			 const struct k8s_decode_opts *o, struct k8s_target *t)
{
	const json_t *ref = json_object_get(ep, "targetRef");
	const char *node = jstr(ep, "nodeName"), *kind = jstr(ref, "kind");
	const char *uid = jstr(ref, "uid"), *name = jstr(ref, "name"), *ns = jstr(ref, "namespace");

	if (!kind || strcmp(kind, "Pod") != 0)
		return false;
	/* nodeName is observed data: endpoints elsewhere cannot be our pods. */
	if (node && o && o->node_name && o->node_name[0] && strcmp(node, o->node_name) != 0)
		return false;
	memset(t, 0, sizeof(*t));
	if (uid && uid[0] && strlen(uid) <= ENAV_K8S_UID_LEN) {
		memcpy(t->uid, uid, strlen(uid) + 1);
		return true;
	}
	if (!ns || !ns[0])
		ns = s->namespace_;
	if (!name || !name[0] || strlen(name) > ENAV_K8S_NAME_MAX ||
	    strlen(ns) > ENAV_K8S_NAMESPACE_MAX)
		return false;
	if (asprintf(&t->ref, "%s/%s", ns, name) < 0) {
		t->ref = NULL;
		return false;
	}
	return true;
}

static enum k8s_dec decode_slice(const json_t *obj, const struct k8s_decode_opts *o, void **out,
				 struct k8s_drops *d)
{
	const json_t *meta = json_object_get(obj, "metadata");
	struct k8s_slice_obj *s = calloc(1, sizeof(*s));
	enum k8s_dec rc;

	if (!s)
		return K8S_DEC_INVALID;
	rc = meta_ns_name(meta, s->namespace_, s->name, s->node.key);
	if (rc == K8S_DEC_OK && !opt(json_object_get(meta, "labels"), "kubernetes.io/service-name",
				     s->service, sizeof(s->service)))
		rc = K8S_DEC_OVERSIZE;
	if (rc != K8S_DEC_OK) {
		free(s);
		return rc;
	}
	const json_t *eps = json_object_get(obj, "endpoints");
	size_t n = json_array_size(eps), i;
	json_t *ep;

	if (n > K8S_SLICE_MAX_TARGETS) {
		d->targets += (uint32_t)(n - K8S_SLICE_MAX_TARGETS);
		n = K8S_SLICE_MAX_TARGETS;
	}
	if (n) {
		s->targets = calloc(n, sizeof(s->targets[0]));
		if (!s->targets) {
			free(s);
			return K8S_DEC_INVALID;
		}
	}
	json_array_foreach(eps, i, ep)
	{
		if (i >= n)
			break;
		if (slice_target(ep, s, o, &s->targets[s->n_targets]))
			s->n_targets++;
	}
	*out = s;
	return K8S_DEC_OK;
}

enum k8s_dec k8s_decode_object(enum k8s_kind kind, const json_t *obj,
			       const struct k8s_decode_opts *o, void **out, struct k8s_drops *d)
{
	*out = NULL;
	if (!json_is_object(obj))
		return K8S_DEC_INVALID;
	switch (kind) {
	case K8S_POD:
		return decode_pod(obj, out, d);
	case K8S_SERVICE:
		return decode_service(obj, out, d);
	case K8S_SLICE:
		return decode_slice(obj, o, out, d);
	default:
		return K8S_DEC_INVALID;
	}
}

void k8s_object_free(enum k8s_kind kind, void *obj)
{
	if (!obj)
		return;
	switch (kind) {
	case K8S_POD:
		k8s_labels_unref(((struct k8s_pod_obj *)obj)->labels);
		break;
	case K8S_SERVICE:
		k8s_labels_unref(((struct k8s_svc_obj *)obj)->selector);
		break;
	case K8S_SLICE: {
		struct k8s_slice_obj *s = obj;

		for (uint32_t i = 0; i < s->n_targets; i++)
			free(s->targets[i].ref);
		free(s->targets);
		break;
	}
	default:
		break;
	}
	free(obj);
}
