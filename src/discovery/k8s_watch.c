/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The watch stream is newline-delimited JSON of unknown chunking: bytes are
 * gathered in one fixed buffer per stream and each complete line is decoded
 * on its own.  List pages are decoded whole (their size is capped by the
 * caller before they get here).
 */
#include "discovery/k8s_priv.h"

#include <stdlib.h>
#include <string.h>

const char *k8s_evtype_name(enum k8s_evtype t)
{
	static const char *const names[K8S_EV_NTYPES] = {"ADDED",    "MODIFIED", "DELETED",
							 "BOOKMARK", "ERROR",	 "UNKNOWN"};

	return (unsigned)t < K8S_EV_NTYPES ? names[t] : "UNKNOWN";
}

/* ---- line splitter -------------------------------------------------------- */

int k8s_lines_init(struct k8s_lines *l, size_t cap)
{
	memset(l, 0, sizeof(*l));
	l->buf = malloc(cap ? cap : 1);
	if (!l->buf)
		return -1;
	l->cap = cap;
	return 0;
}

void k8s_lines_reset(struct k8s_lines *l)
{
	l->len = 0;
	l->discarding = false;
}

void k8s_lines_free(struct k8s_lines *l)
{
	free(l->buf);
	memset(l, 0, sizeof(*l));
}

static int emit(const char *line, size_t len, k8s_line_fn fn, void *ctx)
{
	if (len && line[len - 1] == '\r')
		len--;
	if (len == 0)
		return 0; /* keep-alive blank lines */
	return fn(ctx, line, len);
}

int k8s_lines_feed(struct k8s_lines *l, const char *data, size_t n, k8s_line_fn fn, void *ctx)
{
	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		size_t take = nl ? (size_t)(nl - data) : n;
		int rc = 0;

		if (l->discarding) {
			/* Rest of an oversize line: skip to its end. */
		} else if (take > l->cap - l->len) {
			l->discarding = true;
			l->len = 0;
			rc = fn(ctx, NULL, 0);
		} else if (nl && l->len == 0) {
			rc = emit(data, take, fn, ctx); /* whole line in this chunk: no copy */
		} else {
			memcpy(l->buf + l->len, data, take);
			l->len += take;
			if (nl) {
				rc = emit(l->buf, l->len, fn, ctx);
				l->len = 0;
			}
		}
		if (nl)
			l->discarding = false;
		if (rc)
			return rc;
		if (!nl)
			return 0;
		data = nl + 1;
		n -= take + 1;
	}
	return 0;
}

/* ---- events --------------------------------------------------------------- */

static enum k8s_evtype evtype(const char *s)
{
	for (int t = 0; t < K8S_EV_UNKNOWN; t++)
		if (strcmp(s, k8s_evtype_name((enum k8s_evtype)t)) == 0)
			return (enum k8s_evtype)t;
	return K8S_EV_UNKNOWN;
}

/* metadata.resourceVersion into rv; false when present but oversize. */
static bool object_rv(const json_t *obj, char *rv, size_t cap)
{
	const json_t *v = json_object_get(json_object_get(obj, "metadata"), "resourceVersion");
	size_t n;

	rv[0] = '\0';
	if (!json_is_string(v))
		return true;
	n = json_string_length(v);
	if (n >= cap)
		return false;
	memcpy(rv, json_string_value(v), n + 1);
	return true;
}

enum k8s_dec k8s_event_decode(enum k8s_kind kind, const char *line, size_t len,
			      const struct k8s_decode_opts *o, struct k8s_event *ev,
			      struct k8s_drops *d)
{
	json_error_t jerr;
	json_t *root = json_loadb(line, len, 0, &jerr);
	const json_t *type, *obj;
	enum k8s_dec rc = K8S_DEC_OK;

	memset(ev, 0, sizeof(*ev));
	ev->obj_rc = K8S_DEC_INVALID;
	if (!root)
		return K8S_DEC_SYNTAX;
	type = json_object_get(root, "type");
	obj = json_object_get(root, "object");
	if (!json_is_string(type) || !json_is_object(obj) ||
	    !object_rv(obj, ev->rv, sizeof(ev->rv))) {
		rc = K8S_DEC_SYNTAX;
		goto out;
	}
	ev->type = evtype(json_string_value(type));
	switch (ev->type) {
	case K8S_EV_ADDED:
	case K8S_EV_MODIFIED:
	case K8S_EV_DELETED:
		ev->obj_rc = k8s_decode_object(kind, obj, o, &ev->obj, d);
		break;
	case K8S_EV_ERROR: {
		const json_t *code = json_object_get(obj, "code");

		ev->code = json_is_integer(code) ? (long)json_integer_value(code) : 0;
		ev->rv[0] = '\0'; /* a Status carries no usable version */
		break;
	}
	default:
		break;
	}
out:
	json_decref(root);
	return rc;
}

enum k8s_dec k8s_list_decode(enum k8s_kind kind, const char *body, size_t len,
			     const struct k8s_decode_opts *o, char *rv, size_t rv_cap, char *cont,
			     size_t cont_cap, k8s_item_fn fn, void *ctx)
{
	json_error_t jerr;
	json_t *root = json_loadb(body, len, 0, &jerr);
	const json_t *items, *c;
	enum k8s_dec rc = K8S_DEC_OK;
	size_t i;
	json_t *item;

	rv[0] = '\0';
	cont[0] = '\0';
	if (!root)
		return K8S_DEC_SYNTAX;
	items = json_object_get(root, "items");
	c = json_object_get(json_object_get(root, "metadata"), "continue");
	/* "items": null is how the API spells an empty list. */
	if ((!json_is_array(items) && !json_is_null(items)) || !object_rv(root, rv, rv_cap) ||
	    !rv[0] || (json_is_string(c) && json_string_length(c) >= cont_cap)) {
		rc = K8S_DEC_SYNTAX;
		goto out;
	}
	if (json_is_string(c))
		memcpy(cont, json_string_value(c), json_string_length(c) + 1);
	json_array_foreach(items, i, item)
	{
		struct k8s_drops d = {0};
		void *obj = NULL;
		enum k8s_dec orc = k8s_decode_object(kind, item, o, &obj, &d);

		fn(ctx, orc, obj, &d);
	}
out:
	json_decref(root);
	return rc;
}
