/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to the Kubernetes controller (src/discovery/k8s*.c) and its tests:
 * the decoded object model, the watch line splitter, the bounded stores, the
 * view builder and the connection settings.
 */
#ifndef ENAV_DISCOVERY_K8S_PRIV_H
#define ENAV_DISCOVERY_K8S_PRIV_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "discovery/k8s.h"
#include "discovery/k8s_extra.h"

enum k8s_kind { K8S_POD, K8S_SERVICE, K8S_SLICE, K8S_NKINDS };

#define K8S_MAX_FULL_LABELS   64   /* per object, for selector matching */
#define K8S_RV_MAX	      128  /* resourceVersion is opaque; longer is refused */
#define K8S_CONTINUE_MAX      4096 /* list continue token */
#define K8S_PHASE_MAX	      15
#define K8S_SLICE_MAX_TARGETS 1000 /* the API's own per-slice endpoint limit */
#define K8S_KEY_MAX	      (ENAV_K8S_NAMESPACE_MAX + 1 + ENAV_K8S_NAME_MAX)
#define K8S_TOKEN_MAX	      16384

const char *k8s_kind_name(enum k8s_kind kind);

/* ---- labels -------------------------------------------------------------- */

struct k8s_kv {
	const char *key;
	const char *value;
};

/* Immutable once built and shared by reference between the cache and the
 * published views, so a view never copies full label sets. Sorted by key. */
struct k8s_labels {
	_Atomic uint32_t refs;
	uint32_t n;
	struct k8s_kv kv[]; /* strings are stored after the array */
};

struct k8s_labels *k8s_labels_ref(struct k8s_labels *l);
void k8s_labels_unref(struct k8s_labels *l);
const char *k8s_labels_get(const struct k8s_labels *l, const char *key);
/* Every selector pair present in labels; an empty or NULL selector matches
 * nothing (a service without a selector has hand-managed endpoints). */
bool k8s_selector_matches(const struct k8s_labels *sel, const struct k8s_labels *labels);

/* ---- decoded objects ----------------------------------------------------- */

/* Intrusive hash-chain link; every cached object starts with one. */
struct k8s_node {
	struct k8s_node *next;
	uint32_t hash;
	char key[K8S_KEY_MAX + 1]; /* pod: uid; service, slice: namespace/name */
};

struct k8s_pod_obj {
	struct k8s_node node;
	char uid[ENAV_K8S_UID_LEN + 1];
	char name[ENAV_K8S_NAME_MAX + 1];
	char namespace_[ENAV_K8S_NAMESPACE_MAX + 1];
	char node_name[ENAV_K8S_NAME_MAX + 1];
	char phase[K8S_PHASE_MAX + 1];
	char owner_kind[ENAV_K8S_KIND_MAX + 1];
	char owner_name[ENAV_K8S_NAME_MAX + 1];
	struct k8s_labels *labels; /* never NULL */
};

struct k8s_svc_obj {
	struct k8s_node node;
	char namespace_[ENAV_K8S_NAMESPACE_MAX + 1];
	char name[ENAV_K8S_NAME_MAX + 1];
	struct k8s_labels *selector; /* NULL: no or empty selector */
};

struct k8s_target {
	char uid[ENAV_K8S_UID_LEN + 1];
	char *ref; /* "namespace/name" when the targetRef has no uid, else NULL */
};

struct k8s_slice_obj {
	struct k8s_node node;
	char namespace_[ENAV_K8S_NAMESPACE_MAX + 1];
	char name[ENAV_K8S_NAME_MAX + 1];
	char service[ENAV_K8S_NAME_MAX + 1]; /* kubernetes.io/service-name, may be "" */
	uint32_t n_targets;
	struct k8s_target *targets;
};

enum k8s_dec {
	K8S_DEC_OK,
	K8S_DEC_INVALID,  /* required field missing or of the wrong type */
	K8S_DEC_OVERSIZE, /* uid, name or namespace longer than its bound */
	K8S_DEC_SYNTAX,	  /* not JSON, or not the expected envelope */
};

/* Per-object losses found while decoding, for the drop counters. */
struct k8s_drops {
	uint32_t labels;  /* labels beyond K8S_MAX_FULL_LABELS or over length */
	uint32_t targets; /* slice endpoints beyond K8S_SLICE_MAX_TARGETS */
};

struct k8s_decode_opts {
	const char *node_name; /* slice endpoints on another node are skipped */
};

/* Decode one object of kind into a new heap object (*out), or an error. */
enum k8s_dec k8s_decode_object(enum k8s_kind kind, const json_t *obj,
			       const struct k8s_decode_opts *o, void **out, struct k8s_drops *d);
void k8s_object_free(enum k8s_kind kind, void *obj);

/* Workload owner from a pod's controller reference (see k8s.h). */
void k8s_resolve_owner(const char *ref_kind, const char *ref_name, const char *template_hash,
		       char *kind_out, size_t kind_cap, char *name_out, size_t name_cap);

/* ---- watch events and list pages ----------------------------------------- */

enum k8s_evtype {
	K8S_EV_ADDED,
	K8S_EV_MODIFIED,
	K8S_EV_DELETED,
	K8S_EV_BOOKMARK,
	K8S_EV_ERROR,
	K8S_EV_UNKNOWN,
	K8S_EV_NTYPES
};

const char *k8s_evtype_name(enum k8s_evtype t);

struct k8s_event {
	enum k8s_evtype type;
	char rv[K8S_RV_MAX + 1]; /* "" when the object carries none */
	long code;		 /* ERROR: the Status code (410 = Gone) */
	enum k8s_dec obj_rc;	 /* ADDED/MODIFIED/DELETED: object decode result */
	void *obj;		 /* owned by the caller when obj_rc == OK */
};

/* Decode one watch line.  Returns K8S_DEC_SYNTAX when the line is not a
 * watch event at all (the stream can no longer be trusted). */
enum k8s_dec k8s_event_decode(enum k8s_kind kind, const char *line, size_t len,
			      const struct k8s_decode_opts *o, struct k8s_event *ev,
			      struct k8s_drops *d);

/* Called per list item: rc and, when OK, a new object the callee owns. */
typedef void (*k8s_item_fn)(void *ctx, enum k8s_dec rc, void *obj, const struct k8s_drops *d);

/* Decode a list page (PodList, ServiceList, EndpointSliceList). */
enum k8s_dec k8s_list_decode(enum k8s_kind kind, const char *body, size_t len,
			     const struct k8s_decode_opts *o, char *rv, size_t rv_cap, char *cont,
			     size_t cont_cap, k8s_item_fn fn, void *ctx);

/* Splits a byte stream into lines in a fixed buffer.  A line longer than cap
 * is discarded up to its newline and reported as (NULL, 0). */
struct k8s_lines {
	char *buf;
	size_t cap;
	size_t len;
	bool discarding;
};

int k8s_lines_init(struct k8s_lines *l, size_t cap);
void k8s_lines_reset(struct k8s_lines *l);
void k8s_lines_free(struct k8s_lines *l);
/* fn returns non-zero to stop; feed then returns that value. */
typedef int (*k8s_line_fn)(void *ctx, const char *line, size_t len);
int k8s_lines_feed(struct k8s_lines *l, const char *data, size_t n, k8s_line_fn fn, void *ctx);

/* ---- bounded stores ------------------------------------------------------- */

struct k8s_store {
	enum k8s_kind kind;
	struct k8s_node **buckets;
	uint32_t nbuckets; /* power of two >= cap */
	uint32_t count;
	uint32_t cap;
};

int k8s_store_init(struct k8s_store *s, enum k8s_kind kind, uint32_t cap);
void k8s_store_free(struct k8s_store *s);
struct k8s_node *k8s_store_get(const struct k8s_store *s, const char *key);
/* Insert or replace by key, taking ownership of obj.  -1 when the store is
 * full and the key is new: obj is freed and the caller counts the drop. */
int k8s_store_put(struct k8s_store *s, struct k8s_node *obj);
bool k8s_store_del(struct k8s_store *s, const char *key);
/* Free every object, keeping the buckets. */
void k8s_store_clear(struct k8s_store *s);
/* Exchange the contents of two stores of the same kind. */
void k8s_store_swap(struct k8s_store *a, struct k8s_store *b);

/* ---- views ---------------------------------------------------------------- */

struct k8s_view_stats {
	uint32_t services_truncated; /* pods with more than ENAV_K8S_MAX_SERVICES */
	uint32_t labels_truncated;   /* pods with more than ENAV_K8S_MAX_LABELS kept */
};

struct enav_k8s_view *k8s_view_build(const struct k8s_store *pods, const struct k8s_store *svcs,
				     const struct k8s_store *slices,
				     const struct enav_config_list *keep, uint64_t generation,
				     bool synced, struct k8s_view_stats *st);
struct enav_k8s_view *k8s_view_empty(void);

/* ---- connection ----------------------------------------------------------- */

struct k8s_blob {
	unsigned char *data;
	size_t len;
};

struct k8s_auth {
	char source[16];		  /* in-cluster, kubeconfig, api_server */
	char server[ENAV_CONFIG_URL_MAX]; /* no trailing slash */
	char ca_file[ENAV_CONFIG_PATH_MAX];
	struct k8s_blob ca;
	bool insecure;
	char token_file[ENAV_CONFIG_PATH_MAX]; /* re-read on every connect */
	char *token;			       /* static token (kubeconfig user.token) */
	char cert_file[ENAV_CONFIG_PATH_MAX];
	char key_file[ENAV_CONFIG_PATH_MAX];
	struct k8s_blob cert;
	struct k8s_blob key;
};

/* 1: configured; 0: not configured and enabled=auto (or disabled); -1: error. */
int k8s_auth_resolve(const struct enav_config *cfg, struct k8s_auth *a, char *err, size_t errlen);
int k8s_kubeconfig_load(const char *path, struct k8s_auth *a, char *err, size_t errlen);
int k8s_kubeconfig_parse(const char *text, size_t len, const char *dir, struct k8s_auth *a,
			 char *err, size_t errlen);
void k8s_auth_free(struct k8s_auth *a);
/* The bearer token now: the file's current content, or the static one.
 * 0 with buf[0] == '\0' when the auth uses none; -1 when unreadable. */
int k8s_auth_token(const struct k8s_auth *a, char *buf, size_t cap);
/* Strict base64 (RFC 4648, padding optional); -1 on bad input. */
int k8s_base64_decode(const char *in, size_t len, struct k8s_blob *out);

/* ---- tuning (defaults suit production; tests shorten them) ---------------- */

struct enav_k8s_tuning {
	uint32_t watch_timeout_s;     /* timeoutSeconds; no byte for 2x = dead */
	uint32_t backoff_base_ms;     /* first retry delay */
	uint32_t backoff_max_ms;      /* retry delay cap */
	uint32_t publish_interval_ms; /* at most one view per interval */
	uint32_t list_limit;	      /* items per list page */
	uint32_t max_event_bytes;     /* longest watch line */
	uint32_t max_list_bytes;      /* largest list page body */
};

void enav_k8s_tuning_defaults(struct enav_k8s_tuning *t);
struct enav_k8s *enav_k8s_start_tuned(const struct enav_config *cfg,
				      const struct enav_k8s_tuning *t, enav_k8s_change_fn on_change,
				      void *ctx, char *err, size_t errlen);

#endif
