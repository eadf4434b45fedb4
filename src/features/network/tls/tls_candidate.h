/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which lines of a process's /proc/PID/maps name a TLS library the prober
 * wants, and what the prober then opens: the mapping itself (its address
 * range, for /proc/PID/map_files) and the inode the line names, never the
 * path alone (platform/tenant_file.h says why).  Pure: no file is opened
 * here, so the decision is fuzzed (tests/fuzz/fuzz_tls_attach_paths.c).
 */
#ifndef ENAV_FEATURES_NETWORK_TLS_TLS_CANDIDATE_H
#define ENAV_FEATURES_NETWORK_TLS_TLS_CANDIDATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENAV_TLS_PATH_CAP 512

/* A file some process maps or runs, to be considered for probes. */
struct enav_tls_candidate {
	int library;		      /* enum enav_tls_library */
	uint64_t start, end;	      /* the mapping (0, 0 for an executable) */
	uint64_t dev, ino;	      /* what the maps line (or the exe's stat) says the file is */
	char path[ENAV_TLS_PATH_CAP]; /* as the process names it: shown, never opened */
};

/* "libssl.so.3" -> ENAV_TLS_LIB_OPENSSL, "libgnutls.so.30" -> _GNUTLS, else
 * ENAV_TLS_LIB_NONE (enum enav_tls_library).  From a path's last component. */
int enav_tls_library_of_path(const char *path);

/*
 * One maps line: true and *out filled when it is an executable mapping of a
 * file (not deleted, an absolute path that fits, a non-zero inode) whose
 * name is a library wanted (openssl, gnutls).  Anything else, including a
 * line that does not parse, is false.
 */
bool enav_tls_candidate_of_maps_line(const char *line, size_t len, bool openssl, bool gnutls,
				     struct enav_tls_candidate *out);

#endif
