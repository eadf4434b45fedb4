/* SPDX-License-Identifier: Apache-2.0 */
/* Agent logs: one line per message on stderr, logfmt-style, level-filtered. */
#ifndef ENAV_PLATFORM_LOG_H
#define ENAV_PLATFORM_LOG_H

#include <stddef.h>

enum enav_log_level { ENAV_LOG_ERROR, ENAV_LOG_WARN, ENAV_LOG_INFO, ENAV_LOG_DEBUG };

void enav_log_set_level(enum enav_log_level level);
enum enav_log_level enav_log_get_level(void);
void enav_log(enum enav_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Copies n bytes of in to out (cap bytes, NUL-terminated) with every control
 * byte written as an escape (\n, \r, \t, \xNN), and every byte that is not
 * part of well-formed UTF-8 or encodes a C1 control as \xNN; never cuts an
 * escape or a character.  Returns the length written.  enav_log applies it
 * to every message. */
size_t enav_log_escape(char *out, size_t cap, const char *in, size_t n);

#define enav_err(...)	enav_log(ENAV_LOG_ERROR, __VA_ARGS__)
#define enav_warn(...)	enav_log(ENAV_LOG_WARN, __VA_ARGS__)
#define enav_info(...)	enav_log(ENAV_LOG_INFO, __VA_ARGS__)
#define enav_debug(...) enav_log(ENAV_LOG_DEBUG, __VA_ARGS__)

#endif
