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

/* ---- gRPC-Web body -------------------------------------------------------- */

/* Trailer text scanner states ("grpc-status: <digits>" lines). */
enum { GW_NAME, GW_AFTER_NAME, GW_VALUE_WS, GW_DIGITS, GW_SKIP };

static void gw_accept(const struct enav_h2_grpc_web *s, int32_t *status)
{
	if (s->state == GW_DIGITS && *status < 0)
		*status = (int32_t)s->val;
}

static void gw_trailer_byte(struct enav_h2_grpc_web *s, uint8_t c, int32_t *status)
{
	static const char name[] = "grpc-status";
	if (c == '\n') {
		gw_accept(s, status);
		s->state = GW_NAME;
		s->idx = 0;
		return;
	}
	switch (s->state) {
	case GW_NAME: {
		uint8_t l = c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c;
		if (l == (uint8_t)name[s->idx]) {
			if (++s->idx == sizeof(name) - 1)
				s->state = GW_AFTER_NAME;
		} else {
			s->state = GW_SKIP;
		}
		break;
	}
	case GW_AFTER_NAME:
		if (c == ':')
			s->state = GW_VALUE_WS;
		else if (c != ' ' && c != '\t')
			s->state = GW_SKIP;
		break;
	case GW_VALUE_WS:
		if (c >= '0' && c <= '9') {
			s->state = GW_DIGITS;
			s->val = (uint32_t)(c - '0');
			s->ndig = 1;
		} else if (c != ' ' && c != '\t') {
			s->state = GW_SKIP;
		}
		break;
	case GW_DIGITS:
		if (c >= '0' && c <= '9' && s->ndig < 9) {
			s->val = s->val * 10 + (uint32_t)(c - '0');
			s->ndig++;
		} else {
			if (c == '\r' || c == ' ' || c == '\t')
				gw_accept(s, status);
			s->state = GW_SKIP;
		}
		break;
	default:
		break;
	}
}

void enav_h2_grpc_web_body(struct enav_h2_grpc_web *s, const uint8_t *p, size_t n, int32_t *status)
{
	if (!s->scan || s->lost)
		return;
	if (!p) {
		s->lost = true;
		return;
	}
	while (n > 0) {
		if (s->hdr_got < 5) {
			if (s->hdr_got == 0) {
				s->flag = *p;
				s->left = 0;
			} else {
				s->left = s->left << 8 | *p;
			}
			p++;
			n--;
			if (++s->hdr_got < 5)
				continue;
			s->state = GW_NAME;
			s->idx = 0;
		} else {
			size_t k = n < s->left ? n : s->left;
			if (s->flag & 0x80)
				for (size_t i = 0; i < k; i++)
					gw_trailer_byte(s, p[i], status);
			p += k;
			n -= k;
			s->left -= (uint32_t)k;
		}
		if (s->hdr_got == 5 && s->left == 0) {
			if (s->flag & 0x80)
				gw_accept(s, status);
			s->hdr_got = 0;
		}
	}
}

void enav_h2_grpc_web_end(const struct enav_h2_grpc_web *s, int32_t *status)
{
	if (s->scan && !s->lost && s->hdr_got == 5 && (s->flag & 0x80))
		gw_accept(s, status);
}
