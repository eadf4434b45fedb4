/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The HTTP listener's bearer token (http.bearer_token_file): read once at
 * start from a file only root (or the agent's user) can change and nobody
 * else can read, and compared with what a client sends in constant time.
 */
#ifndef ENAV_PLATFORM_BEARER_H
#define ENAV_PLATFORM_BEARER_H

#include <stdbool.h>
#include <stddef.h>

/* A token longer than this is refused (Prometheus sends the file as is). */
#define ENAV_BEARER_MAX 1024

/*
 * Reads the token of path into out (NUL-terminated, trailing white space
 * removed).  Refused, with a one-line reason in err: a file that is not a
 * regular file, is readable or writable by other users (mode o+rw), is owned
 * by someone other than root or the agent's user, is empty or longer than
 * ENAV_BEARER_MAX, or holds a byte outside printable ASCII without space.
 * The checks are made on the descriptor read (fstat), not on the path.
 */
int enav_bearer_load(const char *path, char *out, size_t outlen, char *err, size_t errlen);

/* true when the token, as read by enav_bearer_load, is acceptable. */
bool enav_bearer_token_ok(const char *tok, size_t len);

/*
 * true when header (an Authorization value, or NULL) is "Bearer <token>"
 * with exactly token.  The scheme is case-insensitive (RFC 7235); the time
 * taken does not depend on where the two tokens first differ.
 */
bool enav_bearer_check(const char *header, const char *token);

/* Constant-time equality of two byte strings of possibly different lengths:
 * the time depends only on the length of want. */
bool enav_bearer_equal(const char *got, size_t got_len, const char *want, size_t want_len);

#endif
