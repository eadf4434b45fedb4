/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/l7/http2_fields.h"

#include <string.h>

bool enav_h2_name_is(const nghttp2_nv *nv, const char *lit)
{
	size_t n = strlen(lit);
	return nv->namelen == n && memcmp(nv->name, lit, n) == 0;
}

static bool prefix_ci(const uint8_t *v, size_t n, const char *lit, size_t *at)
{
	size_t k = strlen(lit);
	if (n < k)
		return false;
	for (size_t i = 0; i < k; i++) {
		uint8_t c = v[i];
		if (c >= 'A' && c <= 'Z')
			c = (uint8_t)(c + 32);
		if (c != (uint8_t)lit[i])
			return false;
	}
	*at = k;
	return true;
}

static bool media_end(const uint8_t *v, size_t n, size_t at)
{
	return at == n || v[at] == '+' || v[at] == ';' || v[at] == ' ' || v[at] == '\t';
}

int enav_h2_grpc_kind(const uint8_t *v, size_t n)
{
	size_t at;
	if (!prefix_ci(v, n, "application/grpc", &at))
		return 0;
	if (media_end(v, n, at))
		return 1;
	size_t w;
	if (prefix_ci(v, n, "application/grpc-web", &w)) {
		if (media_end(v, n, w))
			return 2;
		size_t t;
		if (prefix_ci(v, n, "application/grpc-web-text", &t) && media_end(v, n, t))
			return 1;
	}
	return 0;
}

bool enav_h2_parse_uint(const uint8_t *v, size_t n, int32_t *out)
{
	if (n == 0 || n > 9)
		return false;
	int32_t x = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		x = x * 10 + (v[i] - '0');
	}
	*out = x;
	return true;
}
