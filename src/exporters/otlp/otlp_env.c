/* SPDX-License-Identifier: Apache-2.0 */
#include "exporters/otlp/otlp_env.h"

#include <stdio.h>
#include <string.h>

#include "platform/parse.h"

bool enav_otlp_percent_decode(char *s)
{
	char *w = s;
	for (const char *r = s; *r; r++) {
		int hi, lo;
		/* enav_hex_digit('\0') is -1: r[2] is read only when r[1] is a digit. */
		if (*r == '%' && (hi = enav_hex_digit(r[1])) >= 0 &&
		    (lo = enav_hex_digit(r[2])) >= 0) {
			if (hi == 0 && lo == 0)
				return false;
			*w++ = (char)(hi << 4 | lo);
			r += 2;
			continue;
		}
		*w++ = *r;
	}
	*w = '\0';
	return true;
}

size_t enav_otlp_each_pair(const char *list, enav_otlp_pair_fn fn, void *ctx)
{
	char buf[ENAV_OTLP_ENV_PAIR_MAX];
	size_t skipped = 0;
	if (!list)
		return 0;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		const char *item = p;
		p += n + (p[n] == ',');
		if (n == 0)
			continue;
		if (n >= sizeof(buf)) {
			skipped++;
			continue;
		}
		memcpy(buf, item, n);
		buf[n] = '\0';
		char *eq = strchr(buf, '=');
		if (!eq) {
			skipped++;
			continue;
		}
		*eq = '\0';
		char *k = buf, *v = eq + 1;
		while (*k == ' ' || *k == '\t')
			k++;
		char *ke = k + strlen(k);
		while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
			*--ke = '\0';
		if (!*k || !enav_otlp_percent_decode(v)) {
			skipped++;
			continue;
		}
		fn(ctx, k, v);
	}
	return skipped;
}

static bool header_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

bool enav_otlp_header_line(const char *k, const char *v, char *out, size_t cap)
{
	if (!k[0])
		return false;
	for (const char *p = k; *p; p++)
		if (!header_name_char(*p))
			return false;
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return false;
	int n = snprintf(out, cap, "%s: %s", k, v);
	return n >= 0 && (size_t)n < cap;
}

bool enav_otlp_res_add(struct enav_otlp_res_set *r, const char *k, const char *v)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->kv[i].key, k))
			return false;
	if (r->n == ENAV_OTLP_RES_MAX || !k[0] || !v || !v[0] || strlen(k) >= ENAV_OTLP_RES_TEXT ||
	    strlen(v) >= ENAV_OTLP_RES_TEXT || !enav_utf8_valid(k) || !enav_utf8_valid(v))
		return false;
	char(*t)[ENAV_OTLP_RES_TEXT] = r->text[r->n];
	strcpy(t[0], k);
	strcpy(t[1], v);
	r->kv[r->n] = (struct enav_otlp_kv){.key = t[0], .type = ENAV_OTLP_STR, .s = t[1]};
	r->n++;
	return true;
}

bool enav_otlp_env_timeout_ms(const char *s, uint32_t *ms)
{
	uint64_t v;
	if (!s || !enav_parse_u64_dec(s, strlen(s), &v) || v < ENAV_OTLP_ENV_TIMEOUT_MIN_MS ||
	    v > ENAV_OTLP_ENV_TIMEOUT_MAX_MS)
		return false;
	*ms = (uint32_t)v;
	return true;
}

bool enav_otlp_signal_url(const char *file_signal, const char *file_base, const char *env_signal,
			  const char *env_base, const char *path, char *out, size_t cap)
{
	const char *whole = NULL, *base = NULL;
	if (cap == 0)
		return false;
	if (file_signal && file_signal[0])
		whole = file_signal;
	else if (file_base && file_base[0])
		base = file_base;
	else if (env_signal && env_signal[0])
		whole = env_signal;
	else if (env_base && env_base[0])
		base = env_base;
	out[0] = '\0';
	size_t n = whole ? strlen(whole) : base ? strlen(base) : 0;
	if (base && base[n - 1] == '/')
		n--;
	size_t need = n + (base ? strlen(path) : 0);
	if (need >= cap)
		return false;
	if (whole)
		memcpy(out, whole, n);
	if (base) {
		memcpy(out, base, n);
		memcpy(out + n, path, strlen(path));
	}
	out[need] = '\0';
	return true;
}
