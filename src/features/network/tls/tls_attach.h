/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Finds the TLS implementations processes use and attaches the uprobes of
 * bpf/network/net_tls.bpf.h to them: OpenSSL (libssl.so.*) and GnuTLS
 * (libgnutls.so.*) where a process maps them, Go crypto/tls in Go
 * executables.  Uprobes belong to the file (inode), so one attachment serves
 * every process that maps it, now or later; a file no process maps any more
 * is detached at the next full scan.
 *
 * Its own thread: a startup scan of /proc/PID/maps, each new exec checked
 * shortly after (the dynamic loader maps libraries after exec), a full
 * rescan every scan interval.  Bounded: at most max_binaries files and
 * max_probes uprobes; a file that does not fit, cannot be analysed or
 * refuses an attach is reported (log line naming it, counter), never fatal.
 */
#ifndef ENAV_FEATURES_NETWORK_TLS_TLS_ATTACH_H
#define ENAV_FEATURES_NETWORK_TLS_TLS_ATTACH_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/promtext.h"

struct bpf_object;
struct enav_tls_attach;

struct enav_tls_attach_config {
	bool openssl, gnutls, go;
	uint32_t max_binaries, max_probes, scan_interval_ms;
	uint32_t self_pid; /* the agent: its own TLS is never probed */
};

struct enav_tls_attach *enav_tls_attach_start(struct bpf_object *obj,
					      const struct enav_tls_attach_config *cfg, char *err,
					      size_t errlen);
/* A process exec'd: look at it soon.  Never blocks (drops when busy). */
void enav_tls_attach_notify_exec(void *attach, uint32_t pid);
void enav_tls_attach_stop(struct enav_tls_attach *t);
void enav_tls_attach_metrics(struct enav_tls_attach *t, struct enav_promtext *p);

/* "libssl.so.3" -> ENAV_TLS_LIB_OPENSSL, "libgnutls.so.30" -> _GNUTLS, else
 * ENAV_TLS_LIB_NONE (enum enav_tls_library).  From a path's last component. */
int enav_tls_library_of_path(const char *path);

#endif
