/* SPDX-License-Identifier: Apache-2.0 */
/* Private: request URLs and curl handles for the Kubernetes controller. */
#ifndef ENAV_DISCOVERY_K8S_HTTP_H
#define ENAV_DISCOVERY_K8S_HTTP_H

#include <curl/curl.h>

#include "discovery/k8s_priv.h"

/* A list (watch false: limit, optional continue) or watch (rv, timeout)
 * URL for kind; pods are restricted to node.  Heap string, NULL if too long. */
char *k8s_url(const char *server, enum k8s_kind kind, const char *node, bool watch, const char *rv,
	      uint32_t limit, const char *cont, uint32_t timeout_s);

/* An easy handle for url with auth and TLS from a; headers in *hdrs (free
 * after the transfer).  NULL with err when the token cannot be read. */
CURL *k8s_http_easy(const struct k8s_auth *a, const char *url, long connect_timeout_ms,
		    struct curl_slist **hdrs, char *err, size_t errlen);

#endif
