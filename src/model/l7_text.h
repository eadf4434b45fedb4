/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the parsers: route templates, W3C traceparent, and the
 * reduction of SQL text to its operation and target.
 */
#ifndef ENAV_FEATURES_NETWORK_L7_L7_TEXT_H
#define ENAV_FEATURES_NETWORK_L7_L7_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The bounded-cardinality route of an HTTP path (query and fragment already
 * removed or not: both are dropped here): every segment that looks like an
 * identifier (all digits, a UUID, 8+ hex characters with a digit, a long
 * mixed token) becomes "{id}", and at most 8 segments are kept (then "/...").
 * Writes a NUL-terminated string of at most cap-1 bytes; returns its length.
 */
size_t enav_l7_path_template(const char *path, size_t n, char *out, size_t cap);

/*
 * The path a span carries (url.path): every segment the route template
 * would make "{id}" (an e-mail address, digits, a UUID, a hex or long mixed
 * token), and every segment with '%', ';', '=', ':' or ',' (an escaped
 * address, parameters, a user:token pair), is "{id}"; no segment cap.  A
 * query (present only with keep_query) is kept as it is; a fragment goes.
 * Writes a NUL-terminated string of at most cap-1 bytes; returns its length.
 */
size_t enav_l7_path_redact(const char *path, size_t n, char *out, size_t cap);

/*
 * W3C Trace Context `traceparent` header value (version 00, or a later
 * version read as 00 per the spec's forward-compatibility rules).  All or
 * nothing: returns false, and leaves the outputs untouched, for any
 * malformed value (wrong lengths, upper-case hex, all-zero ids, version ff).
 */
bool enav_l7_traceparent_parse(const char *v, size_t n, uint8_t trace_id[16], uint8_t parent_id[8],
			       uint8_t *flags);

/*
 * Reduce SQL text to its operation ("SELECT", "INSERT", "BEGIN", ...) and
 * main target (the first table after FROM/INTO/UPDATE/TABLE/JOIN), never
 * a literal.  When sanitized is non-NULL it receives the statement with every
 * string and numeric literal replaced by '?', whitespace collapsed, cut to
 * sanitized_cap - 1 bytes.  Unknown text yields operation "OTHER" and an
 * empty target.  Outputs are NUL-terminated within their caps.
 */
void enav_l7_sql_summarize(const char *sql, size_t n, char *op, size_t op_cap, char *target,
			   size_t target_cap, char *sanitized, size_t sanitized_cap);

/* Whose SQL it is, where the dialects read quotes differently.  MySQL:
 * backslashes escape in '..' and "..", and "..", a string, is never shown.
 * PostgreSQL: a backslash is a character in '..' (not in E'..'), and ".." is
 * an identifier.  Unknown (enav_l7_sql_summarize): "\'" hides the rest of
 * the statement, and ".." is never shown. */
enum enav_sql_dialect { ENAV_SQL_UNKNOWN, ENAV_SQL_MYSQL, ENAV_SQL_POSTGRES };
void enav_l7_sql_summarize_dialect(const char *sql, size_t n, enum enav_sql_dialect dialect,
				   char *op, size_t op_cap, char *target, size_t target_cap,
				   char *sanitized, size_t sanitized_cap);

#endif
