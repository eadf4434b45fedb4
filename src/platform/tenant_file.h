/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Files a tenant names (docs/security.md, "Files a tenant maps or runs").
 *
 * /proc/PID/maps and /proc/PID/exe name a file, but the tenant owns the
 * mount namespace behind the name: by the time the agent looks, the path may
 * be a FIFO (an open() that never returns), a device, an absolute symlink
 * that resolves in the agent's own root, or simply another file.  So a file
 * is opened once, here, and everything after (ELF reads, unwind tables,
 * uprobes through enav_tenant_fd_path) goes through that descriptor:
 *
 *  - the path is resolved O_PATH first, so nothing but a lookup happens:
 *    a FIFO or device is never opened for real;
 *  - under the process's root it is resolved with openat2(RESOLVE_IN_ROOT |
 *    RESOLVE_NO_MAGICLINKS): an absolute symlink stays inside that root, and
 *    a /proc magic link cannot lead out of it.  A kernel without openat2
 *    (before 5.6) is refused, never resolved the unsafe way;
 *  - it must be a regular file whose inode (and device, except on overlayfs,
 *    whose stat shows its own device where maps shows the layer's) are the
 *    maps line's;
 *  - it is then reopened read-only, non-blocking, from the O_PATH descriptor.
 *
 * Reads go through enav_tenant_pread, which charges a per-file budget of
 * bytes and time: a file larger or slower than that is refused, and the
 * refusal is the caller's to count.
 */
#ifndef ENAV_PLATFORM_TENANT_FILE_H
#define ENAV_PLATFORM_TENANT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Why an open was refused (the caller's counter labels). */
enum enav_tenant_refusal {
	ENAV_TENANT_OK = 0,
	ENAV_TENANT_GONE,	   /* no such file, process or mapping */
	ENAV_TENANT_NOT_REGULAR,   /* FIFO, device, socket, directory */
	ENAV_TENANT_OTHER_INODE,   /* not the inode the maps line names */
	ENAV_TENANT_UNSAFE_LOOKUP, /* no openat2 here, or the lookup left the root */
	ENAV_TENANT_TOO_LARGE,	   /* beyond the caller's byte budget */
	ENAV_TENANT_ERROR,	   /* any other errno */
	ENAV_TENANT__COUNT,
};
const char *enav_tenant_refusal_name(enum enav_tenant_refusal r);

/* What the maps line (or /proc/PID/exe's stat) says the file is.  A zero
 * inode skips the identity check (the caller has nothing to compare). */
struct enav_file_ident {
	uint64_t dev; /* makedev(major, minor) */
	uint64_t ino;
};

/*
 * Opens path (absolute, as the process sees it) under root_fd, an O_PATH
 * descriptor of /proc/PID/root (or of "/" for the agent's own view), as
 * described above.  Returns a read-only O_NONBLOCK descriptor and fills *st,
 * or -1 with *why set.
 */
int enav_tenant_open_in_root(int root_fd, const char *path, const struct enav_file_ident *want,
			     struct stat *st, enum enav_tenant_refusal *why);

/*
 * The file behind one mapping of pid: /proc/PID/map_files/START-END first
 * (the mapped file itself, whatever its name now; needs CAP_SYS_ADMIN or
 * CAP_CHECKPOINT_RESTORE), then path under /proc/PID/root.  proc_root is
 * "/proc" except in tests.  start == end == 0 skips map_files (an exe).
 */
int enav_tenant_open_mapped(const char *proc_root, uint32_t pid, uint64_t start, uint64_t end,
			    const char *path, const struct enav_file_ident *want, struct stat *st,
			    enum enav_tenant_refusal *why);

/* The executable of pid, through /proc/PID/exe (a magic link the kernel
 * resolves to the running inode itself, not a path the tenant can swap). */
int enav_tenant_open_exe(const char *proc_root, uint32_t pid, struct stat *st,
			 enum enav_tenant_refusal *why);

/* "/proc/self/fd/N": a path that names fd's inode, for APIs that take a path
 * (uprobe attach): the inode probed is then the inode read. */
void enav_tenant_fd_path(int fd, char out[32]);

/* A per-file budget: bytes that may still be read, and a deadline on
 * CLOCK_MONOTONIC (0: none). */
struct enav_tenant_budget {
	uint64_t bytes_left;
	uint64_t deadline_mono_ns;
	bool exhausted; /* set once a read was refused for the budget */
};
void enav_tenant_budget_init(struct enav_tenant_budget *b, uint64_t max_bytes, uint64_t max_ns);

/* Charges n bytes that another reader (libelf, libdw) is about to read
 * through the descriptor, and checks the deadline: true when the budget
 * allows, else false with errno EFBIG or ETIME and b->exhausted set.  b may
 * be NULL (no budget). */
bool enav_tenant_budget_charge(struct enav_tenant_budget *b, uint64_t n);

/* Reads exactly n bytes at off (retrying short reads and EINTR) when the
 * budget allows: n, or -1 (errno EFBIG or ETIME when the budget refused,
 * EIO on a short file).  b may be NULL (no budget). */
ssize_t enav_tenant_pread(int fd, void *buf, size_t n, uint64_t off, struct enav_tenant_budget *b);

#endif
