/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Per-kind list/watch state machine, run on the controller thread:
 *
 *   list page (limit, continue) ... last page -> swap cache -> watch from RV
 *   watch ends cleanly -> watch again from the last RV (bookmarks move it)
 *   410 Gone / lost event -> list again;  other failure -> backoff, watch again
 *
 * A list fills a staging store that replaces the cache only when the last
 * page arrived, so a view never shows half a list.
 */
#include "discovery/k8s_state.h"

#include <stdlib.h>
#include <string.h>

#include "platform/log.h"

#define WATCH_ERR_BODY_MAX 65536
#define SHORT_WATCH_MS	   1000

static void count(_Atomic uint64_t *c, uint64_t n)
{
	atomic_fetch_add_explicit(c, n, memory_order_relaxed);
}

static void gauge_objects(struct k8s_kstate *ks)
{
	atomic_store_explicit(&ks->m.objects, ks->store.count, memory_order_relaxed);
}

static uint64_t backoff(struct enav_k8s *k, uint32_t failures)
{
	uint64_t d = k->t.backoff_base_ms;

	if (failures == 0)
		return 0;
	for (uint32_t i = 1; i < failures && d < k->t.backoff_max_ms; i++)
		d *= 2;
	if (d > k->t.backoff_max_ms)
		d = k->t.backoff_max_ms;
	/* Equal jitter: half fixed, half random, so agents on many nodes
	 * restarted together do not retry in lockstep. */
	k->rng ^= k->rng << 13;
	k->rng ^= k->rng >> 7;
	k->rng ^= k->rng << 17;
	return d / 2 + k->rng % (d / 2 + 1);
}

static void again(struct k8s_kstate *ks, uint64_t at)
{
	ks->st = K8S_IDLE;
	ks->next_ms = at;
	atomic_store(&ks->m.backoff_ms, 0);
}

static void retry(struct enav_k8s *k, struct k8s_kstate *ks, uint64_t now, enum k8s_err why)
{
	uint64_t d;

	count(&ks->m.errors[why], 1);
	d = backoff(k, ++ks->failures);
	again(ks, now + d);
	atomic_store(&ks->m.backoff_ms, (uint32_t)d);
	enav_log(ks->failures == 1 ? ENAV_LOG_WARN : ENAV_LOG_DEBUG,
		 "kubernetes: %s request failed (%s, status %ld); retrying in %llu ms",
		 k8s_kind_name(ks->kind), k8s_err_names[why], ks->status, (unsigned long long)d);
}

static void restart_list(struct k8s_kstate *ks)
{
	ks->need_list = true;
	ks->cont[0] = '\0';
	k8s_store_clear(&ks->staging);
}

static void relist(struct enav_k8s *k, struct k8s_kstate *ks, uint64_t now, enum k8s_relist why)
{
	count(&ks->m.relists[why], 1);
	restart_list(ks);
	/* Gone at once, with nothing received, must not become a list loop. */
	if (ks->events_rx == 0)
		again(ks, now + backoff(k, ++ks->failures));
	else
		again(ks, now);
}

int k8s_kind_init(struct enav_k8s *k, struct k8s_kstate *ks, enum k8s_kind kind, uint32_t cap)
{
	memset(ks, 0, sizeof(*ks));
	ks->k = k;
	ks->kind = kind;
	ks->need_list = true;
	ks->limit = k->t.list_limit ? k->t.list_limit : 100;
	if (k8s_store_init(&ks->store, kind, cap) || k8s_store_init(&ks->staging, kind, cap) ||
	    k8s_lines_init(&ks->lines, k->t.max_event_bytes))
		return -1;
	return 0;
}

void k8s_kind_free(struct k8s_kstate *ks)
{
	k8s_store_free(&ks->store);
	k8s_store_free(&ks->staging);
	k8s_lines_free(&ks->lines);
	free(ks->body);
	ks->body = NULL;
}

/* ---- receiving ------------------------------------------------------------ */

static void put(struct k8s_kstate *ks, struct k8s_store *s, enum k8s_dec rc, void *obj,
		const struct k8s_drops *d)
{
	count(&ks->m.dropped[K8S_DR_LABELS], d->labels);
	count(&ks->m.dropped[K8S_DR_TARGETS], d->targets);
	if (rc != K8S_DEC_OK) {
		count(&ks->m.dropped[rc == K8S_DEC_OVERSIZE ? K8S_DR_OVERSIZE : K8S_DR_INVALID], 1);
		return;
	}
	if (k8s_store_put(s, obj) != 0)
		count(&ks->m.dropped[K8S_DR_CAP], 1);
}

static void on_item(void *ctx, enum k8s_dec rc, void *obj, const struct k8s_drops *d)
{
	struct k8s_kstate *ks = ctx;

	put(ks, &ks->staging, rc, obj, d);
}

static int on_line(void *ctx, const char *line, size_t len)
{
	struct k8s_kstate *ks = ctx;
	struct enav_k8s *k = ks->k;
	struct k8s_drops d = {0};
	struct k8s_event ev;

	if (!line) {
		count(&ks->m.dropped[K8S_DR_EVENT_TOO_LARGE], 1);
		ks->abort = K8S_AB_RELIST;
		ks->relist_why = K8S_RL_EVENT_TOO_LARGE;
		return 1;
	}
	if (k8s_event_decode(ks->kind, line, len, &k->opts, &ev, &d) != K8S_DEC_OK) {
		count(&ks->m.errors[K8S_ER_DECODE], 1);
		ks->abort = K8S_AB_RELIST;
		ks->relist_why = K8S_RL_DECODE;
		return 1;
	}
	count(&ks->m.events[ev.type], 1);
	switch (ev.type) {
	case K8S_EV_ADDED:
	case K8S_EV_MODIFIED:
		put(ks, &ks->store, ev.obj_rc, ev.obj, &d);
		k->dirty = true;
		break;
	case K8S_EV_DELETED:
		if (ev.obj_rc == K8S_DEC_OK)
			k8s_store_del(&ks->store, ((struct k8s_node *)ev.obj)->key);
		k8s_object_free(ks->kind, ev.obj);
		k->dirty = true;
		break;
	case K8S_EV_ERROR:
		ks->abort = ev.code == 410 ? K8S_AB_RELIST : K8S_AB_RETRY;
		ks->relist_why = K8S_RL_GONE;
		return 1;
	default:
		break;
	}
	if (ev.rv[0])
		memcpy(ks->rv, ev.rv, sizeof(ks->rv));
	ks->events_rx++;
	ks->failures = 0;
	gauge_objects(ks);
	return 0;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *ud)
{
	struct k8s_kstate *ks = ud;
	size_t n = size * nmemb, max;

	ks->last_rx_ms = k8s_now_ms();
	if (ks->status == 0)
		curl_easy_getinfo(ks->easy, CURLINFO_RESPONSE_CODE, &ks->status);
	if (ks->st == K8S_WATCHING && ks->status == 200)
		return k8s_lines_feed(&ks->lines, p, n, on_line, ks) ? 0 : n;
	max = ks->st == K8S_LISTING ? ks->k->t.max_list_bytes : WATCH_ERR_BODY_MAX;
	if (n > max - ks->body_len) {
		ks->body_over = true;
		return ks->st == K8S_LISTING ? 0 : n; /* a list page must be whole */
	}
	if (ks->body_len + n > ks->body_cap) {
		size_t cap = ks->body_cap ? ks->body_cap : 65536;
		char *b;

		while (cap < ks->body_len + n)
			cap *= 2;
		if (cap > max)
			cap = max;
		b = realloc(ks->body, cap);
		if (!b)
			return 0;
		ks->body = b;
		ks->body_cap = cap;
	}
	memcpy(ks->body + ks->body_len, p, n);
	ks->body_len += n;
	return n;
}

/* ---- requests ------------------------------------------------------------- */

static void start(struct enav_k8s *k, struct k8s_kstate *ks, uint64_t now)
{
	bool list = ks->need_list;
	char err[256];
	char *url;
	CURL *e;

	if (list && !ks->cont[0])
		k8s_store_clear(&ks->staging);
	url = k8s_url(k->auth.server, ks->kind, k->node, !list, ks->rv, ks->limit, ks->cont,
		      k->t.watch_timeout_s);
	ks->status = 0;
	if (!url) {
		restart_list(ks); /* only an absurd continue token gets here */
		retry(k, ks, now, K8S_ER_DECODE);
		return;
	}
	e = k8s_http_easy(&k->auth, url, (long)k->timeout_ms, &ks->hdrs, err, sizeof(err));
	free(url);
	if (!e) {
		retry(k, ks, now, K8S_ER_TOKEN);
		return;
	}
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, ks);
	curl_easy_setopt(e, CURLOPT_PRIVATE, (char *)ks);
	if (list)
		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)k->timeout_ms);
	ks->body_len = 0;
	ks->body_over = false;
	ks->abort = K8S_AB_NONE;
	ks->events_rx = 0;
	ks->started_ms = ks->last_rx_ms = now;
	k8s_lines_reset(&ks->lines);
	ks->easy = e;
	ks->st = list ? K8S_LISTING : K8S_WATCHING;
	if (curl_multi_add_handle(k->multi, e) != CURLM_OK) {
		k8s_kind_abort(k, ks);
		retry(k, ks, now, K8S_ER_TRANSPORT);
	}
}

void k8s_kind_abort(struct enav_k8s *k, struct k8s_kstate *ks)
{
	if (ks->easy) {
		curl_multi_remove_handle(k->multi, ks->easy);
		curl_easy_cleanup(ks->easy);
		ks->easy = NULL;
	}
	curl_slist_free_all(ks->hdrs);
	ks->hdrs = NULL;
	ks->st = K8S_IDLE;
}

static enum k8s_err classify(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return K8S_ER_CONNECT;
	case CURLE_OPERATION_TIMEDOUT:
		return K8S_ER_TIMEOUT;
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
		return K8S_ER_TLS;
	default:
		return K8S_ER_TRANSPORT;
	}
}

static int code_slot(long status)
{
	static const long codes[] = {
#define X(c) c,
	    K8S_CODES
#undef X
	};

	if (status == 0)
		return K8S_CODE_ERROR;
	for (int i = 0; i < (int)(sizeof(codes) / sizeof(codes[0])); i++)
		if (codes[i] == status)
			return i;
	return K8S_CODE_OTHER;
}

static void list_done(struct enav_k8s *k, struct k8s_kstate *ks, CURLcode rc, uint64_t now)
{
	char rv[K8S_RV_MAX + 1], cont[K8S_CONTINUE_MAX];

	if (rc == CURLE_WRITE_ERROR && ks->body_over) {
		ks->limit = ks->limit > 1 ? ks->limit / 2 : 1;
		restart_list(ks);
		retry(k, ks, now, K8S_ER_LIST_TOO_LARGE);
	} else if (rc != CURLE_OK) {
		restart_list(ks);
		retry(k, ks, now, classify(rc));
	} else if (ks->status == 410 && ks->cont[0]) {
		count(&ks->m.relists[K8S_RL_CONTINUE], 1); /* continue token expired */
		restart_list(ks);
		again(ks, now);
	} else if (ks->status != 200) {
		restart_list(ks);
		retry(k, ks, now,
		      ks->status == 401 || ks->status == 403 ? K8S_ER_AUTH : K8S_ER_HTTP);
	} else if (k8s_list_decode(ks->kind, ks->body, ks->body_len, &k->opts, rv, sizeof(rv), cont,
				   sizeof(cont), on_item, ks) != K8S_DEC_OK) {
		restart_list(ks);
		retry(k, ks, now, K8S_ER_DECODE);
	} else if (cont[0]) {
		memcpy(ks->cont, cont, sizeof(ks->cont)); /* next page */
		again(ks, now);
	} else {
		k8s_store_swap(&ks->store, &ks->staging);
		k8s_store_clear(&ks->staging);
		memcpy(ks->rv, rv, sizeof(ks->rv));
		ks->cont[0] = '\0';
		ks->need_list = false;
		ks->listed = true;
		ks->failures = 0;
		k->dirty = true;
		gauge_objects(ks);
		again(ks, now);
	}
}

static void watch_done(struct enav_k8s *k, struct k8s_kstate *ks, CURLcode rc, uint64_t now)
{
	if (ks->abort == K8S_AB_RELIST)
		relist(k, ks, now, ks->relist_why);
	else if (ks->abort == K8S_AB_RETRY)
		retry(k, ks, now, K8S_ER_WATCH_ERROR);
	else if (ks->abort == K8S_AB_STALLED)
		retry(k, ks, now, K8S_ER_STALLED);
	else if (rc != CURLE_OK)
		retry(k, ks, now, classify(rc));
	else if (ks->status == 410)
		relist(k, ks, now, K8S_RL_GONE);
	else if (ks->status != 200)
		retry(k, ks, now,
		      ks->status == 401 || ks->status == 403 ? K8S_ER_AUTH : K8S_ER_HTTP);
	else if (ks->events_rx == 0 && now - ks->started_ms < SHORT_WATCH_MS)
		retry(k, ks, now, K8S_ER_SHORT_WATCH);
	else
		again(ks, now); /* the server's timeoutSeconds: watch on from rv */
}

void k8s_kind_done(struct enav_k8s *k, struct k8s_kstate *ks, CURLcode result)
{
	bool listing = ks->st == K8S_LISTING;
	uint64_t now = k8s_now_ms();

	curl_easy_getinfo(ks->easy, CURLINFO_RESPONSE_CODE, &ks->status);
	count(&ks->m.requests[listing ? K8S_VERB_LIST : K8S_VERB_WATCH][code_slot(ks->status)], 1);
	k8s_kind_abort(k, ks);
	if (listing) {
		list_done(k, ks, result, now);
		free(ks->body); /* lists are rare: do not hold a page-sized buffer */
		ks->body = NULL;
		ks->body_cap = ks->body_len = 0;
	} else {
		watch_done(k, ks, result, now);
	}
}

void k8s_kind_tick(struct enav_k8s *k, struct k8s_kstate *ks, uint64_t now)
{
	if (ks->st == K8S_WATCHING && now - ks->last_rx_ms > 2000ull * k->t.watch_timeout_s) {
		ks->abort = K8S_AB_STALLED;
		k8s_kind_done(k, ks, CURLE_OK);
	}
	if (ks->st == K8S_IDLE && now >= ks->next_ms)
		start(k, ks, now);
}

long k8s_kind_wait(const struct enav_k8s *k, const struct k8s_kstate *ks, uint64_t now)
{
	uint64_t at;

	if (ks->st == K8S_IDLE)
		at = ks->next_ms;
	else if (ks->st == K8S_WATCHING)
		at = ks->last_rx_ms + 2000ull * k->t.watch_timeout_s + 1;
	else
		return -1;
	return at <= now ? 0 : (long)(at - now);
}
