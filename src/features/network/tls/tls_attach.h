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
 *
 * Every file is the tenant's (src/platform/tenant_file.h): opened once per
 * consideration, through /proc/PID/map_files or under the process's root,
 * as the inode the maps line names; read with pread under a byte and time
 * budget; every uprobe attached through /proc/self/fd/N of that descriptor
 * at an offset this code resolved, so the inode probed is the inode read.
 * No lock is held while a tenant's file is read: the file work is done
 * first and published under the lock.
 */
#ifndef ENAV_FEATURES_NETWORK_TLS_TLS_ATTACH_H
#define ENAV_FEATURES_NETWORK_TLS_TLS_ATTACH_H

#include <stdbool.h>
#include <stdint.h>

#include "platform/promtext.h"
#include "features/network/tls/tls_candidate.h"

struct bpf_object;
struct enav_tls_attach;

struct enav_tls_attach_config {
	bool openssl, gnutls, go;
	uint32_t max_binaries, max_probes, scan_interval_ms;
	/* Per file read (platform/tenant_file.h): a larger file is refused,
	 * and its analysis stops at either bound. */
	uint64_t max_file_bytes;
	uint32_t max_file_ms;
	uint32_t self_pid; /* the agent: its own TLS is never probed */
	/* No bpf_get_attach_cookie (before 5.15): the enav_tls_compat_
	 * programs, one per library and call, attached without cookies. */
	bool compat;
};

struct enav_tls_attach *enav_tls_attach_start(struct bpf_object *obj,
					      const struct enav_tls_attach_config *cfg, char *err,
					      size_t errlen);
/* A process exec'd: look at it soon.  Never blocks (drops when busy). */
void enav_tls_attach_notify_exec(void *attach, uint32_t pid);
void enav_tls_attach_stop(struct enav_tls_attach *t);
void enav_tls_attach_metrics(struct enav_tls_attach *t, struct enav_promtext *p);

#endif
