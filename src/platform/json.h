/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A bounded JSON writer for NDJSON lines.  Never allocates: it writes into a
 * caller-provided buffer and records overflow instead of growing.
 *
 * Strings from the kernel or /proc are hostile: quotes, backslashes and control
 * bytes are escaped, and invalid UTF-8 is replaced by U+FFFD per bad byte,
 * so every line is valid JSON whatever the input.
 */
#ifndef ENAV_PLATFORM_JSON_H
#define ENAV_PLATFORM_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct enav_json {
	char *buf;
	size_t cap;
	size_t len;
	bool overflow;	 /* set once anything did not fit; the line must be dropped */
	bool need_comma; /* internal: a value was written at the current level */
	unsigned depth;	 /* internal: nesting depth, bounded by ENAV_JSON_MAX_DEPTH */
	bool after_key;	 /* internal: a key was written, its value is pending */
	uint32_t arrays; /* internal: bit d set when open container d is an array */
};

#define ENAV_JSON_MAX_DEPTH 16

void enav_json_init(struct enav_json *j, char *buf, size_t cap);
void enav_json_object_begin(struct enav_json *j);
void enav_json_object_end(struct enav_json *j);
void enav_json_array_begin(struct enav_json *j);
void enav_json_array_end(struct enav_json *j);
/* Key of len bytes inside an object; must be followed by exactly one value. */
void enav_json_key_n(struct enav_json *j, const char *key, size_t len);
/* String value of exactly len bytes (may contain NULs and invalid UTF-8). */
void enav_json_string_n(struct enav_json *j, const char *s, size_t len);
void enav_json_u64(struct enav_json *j, uint64_t v);
/* A number the caller formatted (e.g. "%.2f"); not validated. */
void enav_json_raw(struct enav_json *j, const char *number);
void enav_json_i64(struct enav_json *j, int64_t v);
void enav_json_bool(struct enav_json *j, bool v);
void enav_json_null(struct enav_json *j);

/* Inline so that the length of a literal key is known when compiling. */
static inline void enav_json_key(struct enav_json *j, const char *key)
{
	enav_json_key_n(j, key, strlen(key));
}

static inline void enav_json_string(struct enav_json *j, const char *s)
{
	enav_json_string_n(j, s, strlen(s));
}

/* Convenience: key + value. */
static inline void enav_json_kv_string(struct enav_json *j, const char *key, const char *s)
{
	enav_json_key(j, key);
	enav_json_string(j, s);
}

static inline void enav_json_kv_string_n(struct enav_json *j, const char *key, const char *s,
					 size_t len)
{
	enav_json_key(j, key);
	enav_json_string_n(j, s, len);
}

static inline void enav_json_kv_u64(struct enav_json *j, const char *key, uint64_t v)
{
	enav_json_key(j, key);
	enav_json_u64(j, v);
}

static inline void enav_json_kv_i64(struct enav_json *j, const char *key, int64_t v)
{
	enav_json_key(j, key);
	enav_json_i64(j, v);
}

static inline void enav_json_kv_bool(struct enav_json *j, const char *key, bool v)
{
	enav_json_key(j, key);
	enav_json_bool(j, v);
}

static inline void enav_json_kv_raw(struct enav_json *j, const char *key, const char *number)
{
	enav_json_key(j, key);
	enav_json_raw(j, number);
}
/*
 * NUL-terminate; returns the length, or -1 when the line overflowed.  Misuse
 * (unbalanced containers, a value without a key inside an object, a key
 * outside one, a second top-level value, nesting deeper than
 * ENAV_JSON_MAX_DEPTH) also sets overflow, so a returned line is always one
 * complete, valid JSON value.  cap must be >= 1 for anything to succeed: one
 * byte is always kept for the NUL.
 */
long enav_json_finish(struct enav_json *j);

/* Escape s[0..len) as a JSON string body (no quotes) into out; returns bytes
 * written or -1 if out is too small.  Exposed for the Prometheus label writer.
 * out is always NUL-terminated when outcap > 0 (the NUL is not counted and
 * needs room); on -1 it holds "". */
long enav_json_escape(char *out, size_t outcap, const char *s, size_t len);

#endif
