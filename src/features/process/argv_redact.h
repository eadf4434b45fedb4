/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Secrets out of a command line before it leaves the node (issue 31;
 * docs/signals.md, "process.exec").  argv is tenant text: bounded, and read
 * only for what it names.
 */
#ifndef ENAV_FEATURES_PROCESS_ARGV_REDACT_H
#define ENAV_FEATURES_PROCESS_ARGV_REDACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What replaces a secret value (documented in docs/signals.md). */
#define ENAV_ARGV_REDACTED "<redacted>"
/* Room a redacted argv may need beyond its own length: a marker is longer
 * than a short value.  Past it the vector is cut (*cut set). */
#define ENAV_ARGV_REDACT_SLACK 256

/*
 * Copies the NUL-separated argument vector in[0..n) to out (cap bytes) with
 * the value of every secret-carrying argument replaced by ENAV_ARGV_REDACTED:
 *   --NAME=value, -NAME=value, NAME=value  when NAME names a secret
 *     (contains PASSWORD, PASSWD, TOKEN, SECRET, KEY, CREDENTIAL, AUTH,
 *     case-insensitive; '-' and '_' ignored);
 *   --NAME value, -NAME value              the same NAMEs, the next argument
 *     (unless it starts with "--");
 *   -pVALUE for the MySQL/MariaDB clients, -p VALUE / -pVALUE for sshpass,
 *     -a VALUE / -aVALUE for redis-cli, -u VALUE / --user VALUE for curl;
 *   "Authorization: ...", "Cookie: ...", "Proxy-Authorization: ..."
 *     (curl -H): what follows the colon;
 *   a URL (scheme://...): the password of its userinfo, its path's
 *     identifier-like segments written {id} (enav_l7_path_redact: an
 *     e-mail address, a token), and its query.
 * argv[0] is never changed.  A last argument without its NUL (a cut vector)
 * is treated the same.  Returns the bytes written; *redacted counts the
 * values replaced; *cut is set when out could not hold the result (the
 * vector is then cut at an argument boundary).
 */
size_t enav_argv_redact(const char *in, size_t n, char *out, size_t cap, uint32_t *redacted,
			bool *cut);

#endif
