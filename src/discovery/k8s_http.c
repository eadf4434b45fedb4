/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Request construction: URLs for list and watch, and a curl easy handle
 * carrying the TLS and bearer-token settings.  The token is read again for
 * every request because projected service-account tokens rotate.
 */
#include "discovery/k8s_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ENAV_VERSION
#define ENAV_VERSION "0.0.0"
#endif

#define URL_MAX 16384

static const char *const paths[K8S_NKINDS] = {
    "/api/v1/pods",
    "/api/v1/services",
    "/apis/discovery.k8s.io/v1/endpointslices",
};

/* Percent-encode s (RFC 3986 unreserved bytes kept) onto b; false if full. */
static bool put_escaped(char *b, size_t cap, size_t *len, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';

		if (*len + 4 > cap)
			return false;
		if (keep) {
			b[(*len)++] = (char)c;
		} else {
			b[(*len)++] = '%';
			b[(*len)++] = hex[c >> 4];
			b[(*len)++] = hex[c & 15];
		}
	}
	b[*len] = '\0';
	return true;
}

static bool put_raw(char *b, size_t cap, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n + 1 > cap)
		return false;
	memcpy(b + *len, s, n + 1);
	*len += n;
	return true;
}

char *k8s_url(const char *server, enum k8s_kind kind, const char *node, bool watch, const char *rv,
	      uint32_t limit, const char *cont, uint32_t timeout_s)
{
	char *b = malloc(URL_MAX), num[32];
	size_t len = 0;
	bool ok;

	if (!b)
		return NULL;
	ok = put_raw(b, URL_MAX, &len, server) && put_raw(b, URL_MAX, &len, paths[kind]) &&
	     put_raw(b, URL_MAX, &len, "?");
	if (ok && kind == K8S_POD)
		ok = put_raw(b, URL_MAX, &len, "fieldSelector=spec.nodeName%3D") &&
		     put_escaped(b, URL_MAX, &len, node) && put_raw(b, URL_MAX, &len, "&");
	if (ok && watch) {
		snprintf(num, sizeof(num), "%u", timeout_s);
		ok = put_raw(b, URL_MAX, &len,
			     "watch=1&allowWatchBookmarks=true&resourceVersion=") &&
		     put_escaped(b, URL_MAX, &len, rv) &&
		     put_raw(b, URL_MAX, &len, "&timeoutSeconds=") &&
		     put_raw(b, URL_MAX, &len, num);
	} else if (ok) {
		snprintf(num, sizeof(num), "%u", limit);
		ok = put_raw(b, URL_MAX, &len, "limit=") && put_raw(b, URL_MAX, &len, num);
		if (ok && cont && cont[0])
			ok = put_raw(b, URL_MAX, &len, "&continue=") &&
			     put_escaped(b, URL_MAX, &len, cont);
	}
	if (!ok) {
		free(b);
		return NULL;
	}
	return b;
}

static void set_blob(CURL *e, CURLoption opt, const struct k8s_blob *blob)
{
	struct curl_blob cb = {.data = blob->data, .len = blob->len, .flags = CURL_BLOB_COPY};

	curl_easy_setopt(e, opt, &cb);
}

CURL *k8s_http_easy(const struct k8s_auth *a, const char *url, long connect_timeout_ms,
		    struct curl_slist **hdrs, char *err, size_t errlen)
{
	char tok[K8S_TOKEN_MAX], *auth = NULL;
	struct curl_slist *h = NULL, *t;
	CURL *e;

	*hdrs = NULL;
	if (k8s_auth_token(a, tok, sizeof(tok)) != 0) {
		snprintf(err, errlen, "cannot read token from %s", a->token_file);
		return NULL;
	}
	e = curl_easy_init();
	if (!e) {
		snprintf(err, errlen, "curl_easy_init failed");
		return NULL;
	}
	h = curl_slist_append(h, "Accept: application/json");
	if (h && tok[0]) {
		if (asprintf(&auth, "Authorization: Bearer %s", tok) < 0)
			auth = NULL;
		t = auth ? curl_slist_append(h, auth) : NULL;
		h = t ? t : (curl_slist_free_all(h), NULL);
		free(auth);
	}
	memset(tok, 0, sizeof(tok));
	if (!h) {
		curl_easy_cleanup(e);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "e-navigator/" ENAV_VERSION);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, connect_timeout_ms);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
#if LIBCURL_VERSION_NUM >= 0x075700
	/* Never wait for a resolver thread when a transfer is dropped: stop
	 * must not hang on DNS. */
	curl_easy_setopt(e, CURLOPT_QUICK_EXIT, 1L);
#endif
	if (a->insecure) {
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	if (a->ca.data)
		set_blob(e, CURLOPT_CAINFO_BLOB, &a->ca);
	else if (a->ca_file[0])
		curl_easy_setopt(e, CURLOPT_CAINFO, a->ca_file);
	if (a->cert.data)
		set_blob(e, CURLOPT_SSLCERT_BLOB, &a->cert);
	else if (a->cert_file[0])
		curl_easy_setopt(e, CURLOPT_SSLCERT, a->cert_file);
	if (a->key.data)
		set_blob(e, CURLOPT_SSLKEY_BLOB, &a->key);
	else if (a->key_file[0])
		curl_easy_setopt(e, CURLOPT_SSLKEY, a->key_file);
	*hdrs = h;
	return e;
}
