/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the kubeconfig reader: any bytes either give settings
 * whose strings are bounded and whose server is http(s), or one error line;
 * nothing leaks either way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "discovery/k8s_priv.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct k8s_auth a;
	char err[256] = "";
	char tok[K8S_TOKEN_MAX];

	memset(&a, 0, sizeof(a));
	if (k8s_kubeconfig_parse((const char *)data, size, "/kube", &a, err, sizeof(err)) != 0) {
		CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
		CHECK(a.ca.data == NULL && a.token == NULL);
		return 0;
	}
	CHECK(strncmp(a.server, "http://", 7) == 0 || strncmp(a.server, "https://", 8) == 0);
	CHECK(strlen(a.server) < sizeof(a.server) && strlen(a.ca_file) < sizeof(a.ca_file));
	CHECK((a.cert_file[0] || a.cert.data) == (a.key_file[0] || a.key.data));
	if (a.token)
		CHECK(k8s_auth_token(&a, tok, sizeof(tok)) == 0 && strcmp(tok, a.token) == 0);
	k8s_auth_free(&a);
	return 0;
}
