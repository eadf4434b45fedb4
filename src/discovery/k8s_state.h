/* SPDX-License-Identifier: Apache-2.0 */
/* Private: controller state shared by k8s.c, k8s_kind.c and k8s_metrics.c. */
#ifndef ENAV_DISCOVERY_K8S_STATE_H
#define ENAV_DISCOVERY_K8S_STATE_H

#include <pthread.h>

#include "discovery/k8s_http.h"

enum k8s_verb { K8S_VERB_LIST, K8S_VERB_WATCH, K8S_NVERBS };

/* HTTP codes counted by value; anything else is "other", no response "error". */
#define K8S_CODES      X(200) X(400) X(401) X(403) X(404) X(410) X(429) X(500) X(502) X(503) X(504)
#define K8S_NCODES     (11 + 2)
#define K8S_CODE_OTHER (K8S_NCODES - 2)
#define K8S_CODE_ERROR (K8S_NCODES - 1)

enum k8s_relist { K8S_RL_GONE, K8S_RL_EVENT_TOO_LARGE, K8S_RL_DECODE, K8S_RL_CONTINUE, K8S_NRL };

enum k8s_err {
	K8S_ER_CONNECT,	       /* could not reach the server */
	K8S_ER_TIMEOUT,	       /* request timeout */
	K8S_ER_TLS,	       /* certificate or handshake */
	K8S_ER_TRANSPORT,      /* connection broke mid-transfer */
	K8S_ER_HTTP,	       /* non-2xx other than auth and 410 */
	K8S_ER_AUTH,	       /* 401 or 403 */
	K8S_ER_STALLED,	       /* watch silent for 2x timeoutSeconds */
	K8S_ER_DECODE,	       /* body or line that is not the expected JSON */
	K8S_ER_LIST_TOO_LARGE, /* list page over max_list_bytes */
	K8S_ER_TOKEN,	       /* token file unreadable */
	K8S_ER_WATCH_ERROR,    /* ERROR event other than 410 */
	K8S_ER_SHORT_WATCH,    /* watch closed at once with nothing in it */
	K8S_NER
};

enum k8s_drop {
	K8S_DR_CAP,		/* cache full: a new object was not stored */
	K8S_DR_OVERSIZE,	/* uid/name/namespace over its bound */
	K8S_DR_INVALID,		/* required fields missing */
	K8S_DR_LABELS,		/* labels over 64 per object or over length */
	K8S_DR_TARGETS,		/* slice endpoints over the per-slice cap */
	K8S_DR_EVENT_TOO_LARGE, /* watch line over max_event_bytes */
	K8S_NDR
};

enum k8s_abort { K8S_AB_NONE, K8S_AB_RELIST, K8S_AB_RETRY, K8S_AB_STALLED };

struct k8s_counters {
	_Atomic uint64_t requests[K8S_NVERBS][K8S_NCODES];
	_Atomic uint64_t events[K8S_EV_NTYPES];
	_Atomic uint64_t relists[K8S_NRL];
	_Atomic uint64_t errors[K8S_NER];
	_Atomic uint64_t dropped[K8S_NDR];
	_Atomic uint32_t objects;
	_Atomic uint32_t backoff_ms;
};

struct enav_k8s;

struct k8s_kstate {
	struct enav_k8s *k;
	enum k8s_kind kind;
	enum { K8S_IDLE, K8S_LISTING, K8S_WATCHING } st;
	bool need_list;	   /* next request is a list page, not a watch */
	bool listed;	   /* a full list completed at least once */
	uint32_t limit;	   /* page size; halved when a page is too large */
	uint32_t failures; /* consecutive, for the backoff */
	uint64_t next_ms;  /* when idle: start the next request at */
	char rv[K8S_RV_MAX + 1];
	char cont[K8S_CONTINUE_MAX];
	struct k8s_store store, staging; /* staging: pages of a list in progress */

	/* The request in flight. */
	CURL *easy;
	struct curl_slist *hdrs;
	long status;
	uint64_t started_ms, last_rx_ms, events_rx;
	enum k8s_abort abort;
	enum k8s_relist relist_why;
	char *body; /* list page, or the first bytes of a failed watch */
	size_t body_len, body_cap;
	bool body_over;
	struct k8s_lines lines;

	struct k8s_counters m;
};

struct enav_k8s {
	struct enav_k8s_tuning t;
	struct k8s_auth auth;
	struct enav_config_list keep;
	char node[ENAV_K8S_NAME_MAX + 1];
	struct k8s_decode_opts opts;
	uint32_t timeout_ms;
	enav_k8s_change_fn on_change;
	void *ctx;
	uint64_t rng;

	CURLM *multi;
	pthread_t thread;
	_Atomic bool stop;

	pthread_mutex_t view_lock;
	struct enav_k8s_view *view;
	uint64_t generation;
	bool dirty;
	uint64_t last_publish_ms;
	_Atomic uint32_t synced;
	_Atomic uint32_t services_truncated, labels_truncated;

	struct k8s_kstate ks[K8S_NKINDS];
};

uint64_t k8s_now_ms(void);
extern const char *const k8s_err_names[K8S_NER];

int k8s_kind_init(struct enav_k8s *k, struct k8s_kstate *ks, enum k8s_kind kind, uint32_t cap);
void k8s_kind_free(struct k8s_kstate *ks);
/* Start a due request, or declare a silent watch dead. */
void k8s_kind_tick(struct enav_k8s *k, struct k8s_kstate *ks, uint64_t now);
/* A transfer of ks finished with result. */
void k8s_kind_done(struct enav_k8s *k, struct k8s_kstate *ks, CURLcode result);
/* Ms until ks needs attention (0 = now), or -1 when only I/O can wake it. */
long k8s_kind_wait(const struct enav_k8s *k, const struct k8s_kstate *ks, uint64_t now);
/* Drop any transfer in flight (shutdown). */
void k8s_kind_abort(struct enav_k8s *k, struct k8s_kstate *ks);

#endif
