/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the OTEL_* environment parsing of the OTLP sink
 * (src/exporters/otlp/otlp_env.c).
 *
 * The input is newline-separated values, each in its own exact-size
 * NUL-terminated allocation as getenv() would return it:
 *   OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_HEADERS,
 *   OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_EXPORTER_OTLP_ENDPOINT,
 *   OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT, otlp.endpoint, otlp.<signal>.endpoint
 * (missing lines are unset).  Both lists are read as the sink reads them,
 * into a resource set and header lines, and every answer is compared with a
 * reference written here from docs/otlp.md and the header comments: escapes
 * are '%' and exactly two hex digits, nothing is ever cut, headers carry no
 * control byte, attributes are valid UTF-8.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "exporters/otlp/otlp_env.h"
#include "exporters/otlp/otlp_worker.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

enum {
	F_SERVICE,
	F_RES,
	F_HEADERS,
	F_TIMEOUT,
	F_ENDPOINT,
	F_SIG_ENDPOINT,
	F_FILE_BASE,
	F_FILE_SIG,
	F__N
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- reference ------------------------------------------------------------- */

static int hexval(char c)
{
	static const char digits[] = "0123456789abcdef0123456789ABCDEF";
	const char *p = c ? strchr(digits, c) : NULL;

	return p ? (int)((p - digits) % 16) : -1;
}

/* Into out (cap >= strlen(s) + 1); false when an escape is %00. */
static bool ref_decode(const char *s, char *out)
{
	size_t w = 0, n = strlen(s);

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			int v = hexval(s[i + 1]) * 16 + hexval(s[i + 2]);
			if (v == 0)
				return false;
			out[w++] = (char)v;
			i += 2;
		} else {
			out[w++] = s[i];
		}
	}
	out[w] = '\0';
	return true;
}

/* UTF-8 by Unicode's table 3-7 of well-formed byte sequences. */
static bool ref_utf8(const unsigned char *s)
{
	while (*s) {
		unsigned a = s[0];
		unsigned lo = 0x80, hi = 0xbf;
		int more;

		if (a <= 0x7f) {
			s++;
			continue;
		}
		if (a >= 0xc2 && a <= 0xdf)
			more = 1;
		else if (a >= 0xe0 && a <= 0xef)
			more = 2;
		else if (a >= 0xf0 && a <= 0xf4)
			more = 3;
		else
			return false;
		if (a == 0xe0)
			lo = 0xa0;
		else if (a == 0xed)
			hi = 0x9f;
		else if (a == 0xf0)
			lo = 0x90;
		else if (a == 0xf4)
			hi = 0x8f;
		if (s[1] < lo || s[1] > hi)
			return false;
		for (int i = 2; i <= more; i++)
			if (s[i] < 0x80 || s[i] > 0xbf)
				return false;
		s += more + 1;
	}
	return true;
}

/* The pairs a list must give, in order: k and decoded v, '\0'-separated. */
struct want {
	size_t n, next, skipped;
	bool overflow; /* more pairs than kept here: counts are not compared */
	char *k[512], *v[512];
};

static void ref_pairs(const char *list, struct want *w)
{
	memset(w, 0, sizeof(*w));
	if (!list)
		return;
	const char *p = list;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (n > 0) {
			char *item = strndup(p, n), *eq = strchr(item, '=');

			CHECK(item != NULL);
			if (n > ENAV_OTLP_ENV_PAIR_MAX - 1 || !eq) {
				w->skipped++;
				free(item);
			} else {
				*eq = '\0';
				char *k = item, *v = malloc(strlen(eq + 1) + 1);

				CHECK(v != NULL);
				k += strspn(k, " \t");
				size_t kl = strlen(k);
				while (kl && (k[kl - 1] == ' ' || k[kl - 1] == '\t'))
					kl--;
				k[kl] = '\0';
				if (kl == 0 || !ref_decode(eq + 1, v)) {
					w->skipped++;
					free(v);
					free(item);
				} else if (w->n == 512) {
					w->overflow = true;
					free(v);
					free(item);
				} else {
					w->k[w->n] = strdup(k);
					w->v[w->n] = v;
					CHECK(w->k[w->n] != NULL);
					w->n++;
					free(item);
				}
			}
		}
		if (!comma)
			break;
		p = comma + 1;
	}
}

static void free_want(struct want *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->k[i]);
		free(w->v[i]);
	}
}

/* ---- the sink's use of the lists --------------------------------------------- */

struct state {
	struct want want;
	struct enav_otlp_res_set res;
	char headers[ENAV_OTLP_MAX_HEADERS][ENAV_CONFIG_ENTRY_MAX];
	size_t n_headers;
};

static struct state st;

static void check_pair(const char *k, const char *v)
{
	CHECK(k[0] != '\0' && !strchr(k, '=') && !strchr(k, ','));
	CHECK(k[0] != ' ' && k[0] != '\t' && k[strlen(k) - 1] != ' ' && k[strlen(k) - 1] != '\t');
	if (st.want.next == st.want.n) {
		CHECK(st.want.overflow);
		return;
	}
	CHECK(strcmp(k, st.want.k[st.want.next]) == 0);
	CHECK(strcmp(v, st.want.v[st.want.next]) == 0);
	st.want.next++;
}

/* enav_otlp_res_add() against the rule in its header comment. */
static void res_add_checked(const char *k, const char *v)
{
	size_t before = st.res.n;
	bool dup = false;

	for (size_t i = 0; i < before; i++)
		dup |= strcmp(st.res.kv[i].key, k) == 0;
	bool fits = strlen(k) < ENAV_OTLP_RES_TEXT && strlen(v) < ENAV_OTLP_RES_TEXT;
	bool want = !dup && before < ENAV_OTLP_RES_MAX && v[0] && fits &&
		    ref_utf8((const unsigned char *)k) && ref_utf8((const unsigned char *)v);

	CHECK(enav_otlp_res_add(&st.res, k, v) == want);
	CHECK(st.res.n == before + want);
	if (want)
		CHECK(strcmp(st.res.kv[before].key, k) == 0 && strcmp(st.res.kv[before].s, v) == 0);
}

static void on_res(void *ctx, const char *k, const char *v)
{
	(void)ctx;
	check_pair(k, v);
	res_add_checked(k, v);
}

static void on_header(void *ctx, const char *k, const char *v)
{
	char line[ENAV_CONFIG_ENTRY_MAX];
	bool name_ok = true, value_ok = true;

	(void)ctx;
	check_pair(k, v);
	for (const char *p = k; *p; p++)
		name_ok &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			   (*p >= '0' && *p <= '9') || *p == '-' || *p == '_';
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		value_ok &= *p >= 0x20 && *p != 0x7f;
	bool want = name_ok && value_ok && strlen(k) + 2 + strlen(v) < sizeof(line);
	bool ok = enav_otlp_header_line(k, v, line, sizeof(line));

	CHECK(ok == want);
	if (!ok)
		return;
	/* Exactly one header: "k: v", nothing cut, no CR or LF. */
	CHECK(strncmp(line, k, strlen(k)) == 0 && line[strlen(k)] == ':' &&
	      line[strlen(k) + 1] == ' ' && strcmp(line + strlen(k) + 2, v) == 0);
	CHECK(!strpbrk(line, "\r\n"));
	if (st.n_headers < ENAV_OTLP_MAX_HEADERS)
		memcpy(st.headers[st.n_headers++], line, sizeof(line));
}

static void run_list(const char *list, enav_otlp_pair_fn fn)
{
	ref_pairs(list, &st.want);
	size_t skipped = enav_otlp_each_pair(list, fn, NULL);

	if (!st.want.overflow) {
		CHECK(st.want.next == st.want.n);
		CHECK(skipped == st.want.skipped);
	}
	free_want(&st.want);
}

/* ---- the other variables ------------------------------------------------------ */

static void check_decode(const char *s)
{
	size_t n = strlen(s);
	char *mine = malloc(n + 1), *ref = malloc(n + 1);

	CHECK(mine && ref);
	memcpy(mine, s, n + 1);
	bool ok = enav_otlp_percent_decode(mine);

	CHECK(ok == ref_decode(s, ref));
	if (ok)
		CHECK(strcmp(mine, ref) == 0);
	free(mine);
	free(ref);
}

static void check_timeout(const char *s)
{
	uint32_t ms = 0xa5a5a5a5u;
	bool digits = s && s[0] && strspn(s, "0123456789") == strlen(s);
	/* Leading zeros make a long string a small number: strip them. */
	const char *d = s ? s + strspn(s, "0") : NULL;
	bool small = digits && strlen(d) <= 6;
	unsigned long v = small ? strtoul(s, NULL, 10) : 0;
	bool want = small && v >= ENAV_OTLP_ENV_TIMEOUT_MIN_MS && v <= ENAV_OTLP_ENV_TIMEOUT_MAX_MS;

	CHECK(enav_otlp_env_timeout_ms(s, &ms) == want);
	CHECK(want ? ms == v : ms == 0xa5a5a5a5u);
}

static void check_url(char *const f[F__N])
{
	static const size_t caps[] = {512, 24, 1};
	const char *path = "/v1/metrics";

	for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
		char out[512], want[2048];
		const char *fs = f[F_FILE_SIG], *fb = f[F_FILE_BASE], *es = f[F_SIG_ENDPOINT],
			   *eb = f[F_ENDPOINT];

		want[0] = '\0';
		if (fs && fs[0])
			snprintf(want, sizeof(want), "%.2000s", fs);
		else if ((fb && fb[0]) || !(es && es[0])) {
			const char *b = fb && fb[0] ? fb : eb;
			if (b && b[0]) {
				size_t bl = strlen(b);
				bl -= b[bl - 1] == '/';
				snprintf(want, sizeof(want), "%.*s%s", (int)(bl > 2000 ? 2000 : bl),
					 b, path);
			}
		} else
			snprintf(want, sizeof(want), "%.2000s", es);
		bool fits = strlen(want) < caps[c];

		memset(out, 'Z', sizeof(out));
		CHECK(enav_otlp_signal_url(fs, fb, es, eb, path, out, caps[c]) == fits);
		CHECK(fits ? strcmp(out, want) == 0 : out[0] == '\0');
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *f[F__N] = {NULL};
	size_t nf = 0;

	if (size > 16384)
		return 0;
	for (size_t start = 0; nf < F__N && start <= size;) {
		const uint8_t *nl = memchr(data + start, '\n', size - start);
		size_t len = nl ? (size_t)(nl - (data + start)) : size - start;

		f[nf] = malloc(len + 1);
		CHECK(f[nf] != NULL);
		memcpy(f[nf], data + start, len);
		f[nf][len] = '\0'; /* a NUL inside ends the value, as in the environment */
		nf++;
		if (!nl)
			break;
		start += len + 1;
	}

	/* As otlp_init: OTEL_SERVICE_NAME, the attributes, then the agent's own. */
	memset(&st, 0, sizeof(st));
	if (f[F_SERVICE] && f[F_SERVICE][0])
		res_add_checked("service.name", f[F_SERVICE]);
	run_list(f[F_RES], on_res);
	bool named = false;
	size_t before = st.res.n;

	for (size_t i = 0; i < before; i++)
		named |= strcmp(st.res.kv[i].key, "service.name") == 0;
	CHECK(enav_otlp_res_add(&st.res, "service.name", "e-navigator") ==
	      (!named && before < ENAV_OTLP_RES_MAX));
	for (size_t i = 0; i < st.res.n; i++) {
		CHECK(st.res.kv[i].type == ENAV_OTLP_STR);
		CHECK(st.res.kv[i].key[0] && st.res.kv[i].s[0]);
		CHECK(ref_utf8((const unsigned char *)st.res.kv[i].key));
		CHECK(ref_utf8((const unsigned char *)st.res.kv[i].s));
		for (size_t j = 0; j < i; j++)
			CHECK(strcmp(st.res.kv[i].key, st.res.kv[j].key) != 0);
	}
	run_list(f[F_HEADERS], on_header);
	for (int i = F_SERVICE; i < F__N; i++)
		if (f[i])
			check_decode(f[i]);
	check_timeout(f[F_TIMEOUT]);
	check_url(f);
	for (int i = 0; i < F__N; i++)
		free(f[i]);
	return 0;
}
