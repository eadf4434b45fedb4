/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shared by the two halves of the Go build info reader: the ELF side
 * (go_buildinfo.c) finds the modinfo text in a binary, the text side
 * (go_modinfo.c) parses it.
 */
#ifndef ENAV_FEATURES_PROFILING_GO_BUILDINFO_PRIV_H
#define ENAV_FEATURES_PROFILING_GO_BUILDINFO_PRIV_H

#include <stddef.h>

#include "golang/go_buildinfo.h"

#define ENAV_GO_SENTINEL_LEN  16u /* the modinfo's framing, each end */
#define ENAV_GO_NOT_GO_REASON "no Go build information"

/* Writes a one-line reason into err (newlines made spaces); returns rc. */
int enav_go_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Parses modinfo text with its sentinels already stripped into out (every
 * string set, "" when absent); out is freed on failure.  0 or -errno. */
int enav_go_modinfo_parse_unwrapped(const char *text, size_t len, struct enav_go_buildinfo *out,
				    char *err, size_t errlen);

#endif
