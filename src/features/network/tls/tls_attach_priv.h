/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TLS prober's state, shared by tls_attach.c (the scan, libraries, the
 * metrics) and tls_attach_go.c (Go binaries).  Private to features/network.
 */
#ifndef ENAV_FEATURES_NETWORK_TLS_TLS_ATTACH_PRIV_H
#define ENAV_FEATURES_NETWORK_TLS_TLS_ATTACH_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "enav/abi.h"
#include "platform/tenant_file.h"
#include "platform/u64map.h"
#include "features/network/tls/tls_attach.h"

#define PATH_CAP   ENAV_TLS_PATH_CAP
#define EXEC_QUEUE 256 /* exec'd pids awaiting a look */
/* enav_tls_files_refused_total's reasons: platform/tenant_file.h's, and a
 * file whose analysis ran out of its byte or time budget. */
#define REFUSED_BUDGET ENAV_TENANT__COUNT
#define N_REFUSALS     (ENAV_TENANT__COUNT + 1)

struct bpf_link;

struct target {
	bool used; /* the slot is taken (probes may still be being attached) */
	bool live; /* attached and published: what /metrics lists */
	bool seen; /* mapped by some process in the current full scan */
	int library;
	dev_t dev;
	ino_t ino;
	char path[PATH_CAP]; /* as the process names it (display, metrics label) */
	const char *offsets; /* Go: where the struct offsets came from */
	struct bpf_link **links;
	uint32_t n_links;
	uint32_t stepped; /* probes on an instruction the kernel single-steps */
};

struct pending_exec {
	uint32_t pid;
	uint8_t tries;
	uint64_t due_ns;
};

struct enav_tls_attach {
	struct enav_tls_attach_config cfg;
	struct bpf_object *obj;
	int go_map_fd, counters_fd;
	pthread_t thread;
	bool thread_started;
	pthread_mutex_t lock;	    /* targets and the counters below */
	pthread_mutex_t queue_lock; /* the exec queue, stopping: held only briefly */
	pthread_cond_t wake;
	bool stopping;
	struct target *targets;
	uint32_t n_probes, n_stepped;
	struct pending_exec queue[EXEC_QUEUE];
	uint32_t queue_len;
	struct enav_u64map rejected; /* hash(dev, ino) of files with nothing to probe */
	struct enav_u64map capped;   /* files refused by a cap: warned once, retried */
	uint64_t attached_total[ENAV_TLS_LIB__COUNT], detached_total[ENAV_TLS_LIB__COUNT];
	uint64_t refused_total[ENAV_TLS_LIB__COUNT], failed_total[ENAV_TLS_LIB__COUNT];
	uint64_t cap_refusals, scans;
	uint64_t files_refused[N_REFUSALS];
	_Atomic uint64_t exec_dropped;
};

const char *enav_tls_lib_name(int library);
/* Called with t->lock held: the file is not looked at again. */
void enav_tls_reject(struct enav_tls_attach *t, dev_t dev, ino_t ino);
/* One uprobe at a file offset, through fd_path (/proc/self/fd/N). */
int enav_tls_add_link(struct target *tg, const char *prog_name, struct bpf_object *obj,
		      const char *fd_path, uint64_t offset, bool ret, uint64_t cookie);
/* A slot for a new file (caps checked), under the lock; NULL when none. */
struct target *enav_tls_reserve(struct enav_tls_attach *t, int library, const char *shown,
				dev_t dev, ino_t ino, uint32_t probes);
/* After tg's probes were attached (rc 0) or one failed (what, errno). */
void enav_tls_publish(struct enav_tls_attach *t, struct target *tg, int rc, const char *what);
/* A file refused before any probe, by reason (enum enav_tenant_refusal or
 * REFUSED_BUDGET): counted, remembered (by inode or by mapping) unless only
 * gone, logged. */
void enav_tls_file_refused(struct enav_tls_attach *t, const struct enav_tls_candidate *c,
			   uint32_t pid, int reason);

/* A Go executable open on fd (tls_attach_go.c). */
void enav_tls_attach_go(struct enav_tls_attach *t, int fd, struct enav_tenant_budget *b,
			const struct enav_tls_candidate *c, uint32_t pid);

#endif
