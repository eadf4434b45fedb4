/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OTEL_* environment variables the OTLP sink reads (docs/otlp.md),
 * parsed from explicit strings: the sink passes getenv() values, the unit
 * tests and tests/fuzz/fuzz_otlp_env.c pass their own.  Pure and bounded:
 * nothing here allocates, and nothing is ever cut to fit (a value that does
 * not fit is refused whole, never sent truncated).
 */
#ifndef ENAV_EXPORTERS_OTLP_OTLP_ENV_H
#define ENAV_EXPORTERS_OTLP_OTLP_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exporters/otlp/otlp_encode.h"

#define ENAV_OTLP_ENV_PAIR_MAX	     4096 /* one k=v of a list, NUL included */
#define ENAV_OTLP_RES_MAX	     40	  /* resource attributes */
#define ENAV_OTLP_RES_TEXT	     256  /* one key or value, NUL included */
#define ENAV_OTLP_ENV_TIMEOUT_MIN_MS 100  /* otlp.timeout_ms's range */
#define ENAV_OTLP_ENV_TIMEOUT_MAX_MS 120000

/* Decode %XX escapes in place.  An escape is '%' and exactly two hex digits
 * (no sign, blank or 0x that strtol would take); any other '%' stays as it
 * is.  False when an escape decodes to NUL, which a C string cannot carry
 * (s is then unspecified: the caller drops the value). */
bool enav_otlp_percent_decode(char *s);

/* OTEL_RESOURCE_ATTRIBUTES and OTEL_EXPORTER_OTLP_HEADERS: "k=v,k=v", values
 * percent-encoded (%2C is a comma inside a value).  fn gets every pair in
 * order, its key with surrounding blanks trimmed and non-empty, its value
 * decoded.  Empty items ("a=1,,b=2") are nothing; an item without '=' or
 * key, longer than ENAV_OTLP_ENV_PAIR_MAX - 1 bytes, or whose value does not
 * decode is skipped whole.  Returns how many were skipped.  list may be NULL. */
typedef void (*enav_otlp_pair_fn)(void *ctx, const char *k, const char *v);
size_t enav_otlp_each_pair(const char *list, enav_otlp_pair_fn fn, void *ctx);

/* "Name: value" into out (cap bytes).  False (out unspecified) when the name
 * is not 1+ of A-Z a-z 0-9 - _, the value holds a control byte (a CR or LF
 * would end the header and start another), or the line does not fit: the
 * rule config.c applies to otlp.headers. */
bool enav_otlp_header_line(const char *k, const char *v, char *out, size_t cap);

/* The node's resource attributes; kv points into text, so the set is not
 * copied once filled. */
struct enav_otlp_res_set {
	size_t n;
	struct enav_otlp_kv kv[ENAV_OTLP_RES_MAX];
	char text[ENAV_OTLP_RES_MAX][2][ENAV_OTLP_RES_TEXT];
};
/* Add k = v as a string.  False when k is already there (the first word
 * wins: the environment names it first), the set is full, k or v is empty,
 * does not fit or is not UTF-8. */
bool enav_otlp_res_add(struct enav_otlp_res_set *r, const char *k, const char *v);

/* OTEL_EXPORTER_OTLP_TIMEOUT: milliseconds, digits only, within
 * [ENAV_OTLP_ENV_TIMEOUT_MIN_MS, ENAV_OTLP_ENV_TIMEOUT_MAX_MS].  False for
 * NULL or anything else. */
bool enav_otlp_env_timeout_ms(const char *s, uint32_t *ms);

/* The URL of one signal: the file's endpoint for the signal, else the file's
 * base endpoint plus path, else OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT (as is),
 * else OTEL_EXPORTER_OTLP_ENDPOINT plus path (one trailing '/' of a base is
 * dropped).  Any may be NULL or "".  out is "" when none is set (the signal
 * is off).  False, with out "", when the URL does not fit in cap. */
bool enav_otlp_signal_url(const char *file_signal, const char *file_base, const char *env_signal,
			  const char *env_base, const char *path, char *out, size_t cap);

#endif
