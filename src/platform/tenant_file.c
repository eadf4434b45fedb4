/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/tenant_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "platform/clock.h"

#ifndef FUSE_SUPER_MAGIC
#define FUSE_SUPER_MAGIC 0x65735546
#endif

const char *enav_tenant_refusal_name(enum enav_tenant_refusal r)
{
	static const char *const names[ENAV_TENANT__COUNT] = {
	    [ENAV_TENANT_OK] = "ok",
	    [ENAV_TENANT_GONE] = "gone",
	    [ENAV_TENANT_NOT_REGULAR] = "not_regular",
	    [ENAV_TENANT_OTHER_INODE] = "other_inode",
	    [ENAV_TENANT_UNSAFE_LOOKUP] = "unsafe_lookup",
	    [ENAV_TENANT_TOO_LARGE] = "too_large",
	    [ENAV_TENANT_ERROR] = "error",
	};
	return (unsigned)r < ENAV_TENANT__COUNT ? names[r] : "error";
}

static enum enav_tenant_refusal from_errno(int e)
{
	switch (e) {
	case ENOENT:
	case ESRCH:
	case ENOTDIR:
		return ENAV_TENANT_GONE;
	case EXDEV:
	case ELOOP:
	case ENOSYS:
		return ENAV_TENANT_UNSAFE_LOOKUP;
	default:
		return ENAV_TENANT_ERROR;
	}
}

/* fd (O_PATH) is a regular file, on a filesystem whose reads cannot be held
 * by a tenant's daemon, and the inode want names. */
static enum enav_tenant_refusal check(int fd, const struct enav_file_ident *want, struct stat *st)
{
	struct statfs sf;
	if (fstat(fd, st) != 0)
		return from_errno(errno);
	if (!S_ISREG(st->st_mode))
		return ENAV_TENANT_NOT_REGULAR;
	/* A FUSE file's reads are answered by whoever mounted it: a tenant can
	 * mount FUSE in its own user namespace and never answer. */
	if (fstatfs(fd, &sf) != 0)
		return from_errno(errno);
	if ((unsigned long)sf.f_type == FUSE_SUPER_MAGIC)
		return ENAV_TENANT_NOT_REGULAR;
	if (!want || !want->ino)
		return ENAV_TENANT_OK;
	if ((uint64_t)st->st_ino != want->ino)
		return ENAV_TENANT_OTHER_INODE;
	/* maps shows the layer's device for a file mapped through overlayfs,
	 * stat shows the overlay's: the inode number is what both agree on. */
	if ((uint64_t)st->st_dev != want->dev && (unsigned long)sf.f_type != OVERLAYFS_SUPER_MAGIC)
		return ENAV_TENANT_OTHER_INODE;
	return ENAV_TENANT_OK;
}

/* From a checked O_PATH descriptor to one that reads: through /proc/self/fd,
 * which reopens the same inode without another lookup of the tenant's path. */
static int reopen_read(int pfd, enum enav_tenant_refusal *why)
{
	char path[32];
	enav_tenant_fd_path(pfd, path);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		*why = from_errno(errno);
	return fd;
}

static int finish(int pfd, const struct enav_file_ident *want, struct stat *st,
		  enum enav_tenant_refusal *why)
{
	*why = check(pfd, want, st);
	int fd = *why == ENAV_TENANT_OK ? reopen_read(pfd, why) : -1;
	close(pfd);
	return fd;
}

int enav_tenant_open_in_root(int root_fd, const char *path, const struct enav_file_ident *want,
			     struct stat *st, enum enav_tenant_refusal *why)
{
	struct open_how how = {
	    .flags = O_PATH | O_CLOEXEC | O_NOFOLLOW,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	/* O_NOFOLLOW refuses a symlink as the last component; the ones before
	 * it are followed, inside the root. */
	while (*path == '/')
		path++;
	if (!*path) {
		*why = ENAV_TENANT_NOT_REGULAR;
		return -1;
	}
	int pfd = (int)syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
	if (pfd < 0) {
		*why = errno == ELOOP ? ENAV_TENANT_NOT_REGULAR : from_errno(errno);
		return -1;
	}
	return finish(pfd, want, st, why);
}

int enav_tenant_open_mapped(const char *proc_root, uint32_t pid, uint64_t start, uint64_t end,
			    const char *path, const struct enav_file_ident *want, struct stat *st,
			    enum enav_tenant_refusal *why)
{
	char buf[128];
	int n;
	*why = ENAV_TENANT_GONE;
	if (start || end) {
		n = snprintf(buf, sizeof(buf), "%s/%" PRIu32 "/map_files/%" PRIx64 "-%" PRIx64,
			     proc_root, pid, start, end);
		/* map_files entries are magic links to the mapped file itself:
		 * following them is the point, and the kernel does it. */
		int pfd = n > 0 && (size_t)n < sizeof(buf) ? open(buf, O_PATH | O_CLOEXEC) : -1;
		if (pfd >= 0) {
			int fd = finish(pfd, want, st, why);
			if (fd >= 0 || *why != ENAV_TENANT_GONE)
				return fd;
		}
	}
	if (!path || path[0] != '/')
		return -1;
	n = snprintf(buf, sizeof(buf), "%s/%" PRIu32 "/root", proc_root, pid);
	int root =
	    n > 0 && (size_t)n < sizeof(buf) ? open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	if (root < 0) {
		*why = from_errno(errno);
		return -1;
	}
	int fd = enav_tenant_open_in_root(root, path, want, st, why);
	close(root);
	return fd;
}

int enav_tenant_open_exe(const char *proc_root, uint32_t pid, struct stat *st,
			 enum enav_tenant_refusal *why)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%s/%" PRIu32 "/exe", proc_root, pid);
	int pfd = n > 0 && (size_t)n < sizeof(buf) ? open(buf, O_PATH | O_CLOEXEC) : -1;
	if (pfd < 0) {
		*why = from_errno(errno);
		return -1;
	}
	return finish(pfd, NULL, st, why);
}

void enav_tenant_fd_path(int fd, char out[32])
{
	snprintf(out, 32, "/proc/self/fd/%d", fd);
}

void enav_tenant_budget_init(struct enav_tenant_budget *b, uint64_t max_bytes, uint64_t max_ns)
{
	b->bytes_left = max_bytes;
	b->deadline_mono_ns = max_ns ? enav_clock_mono_ns() + max_ns : 0;
	b->exhausted = false;
}

bool enav_tenant_budget_charge(struct enav_tenant_budget *b, uint64_t n)
{
	if (!b)
		return true;
	if (b->exhausted || n > b->bytes_left) {
		b->exhausted = true;
		errno = EFBIG;
		return false;
	}
	if (b->deadline_mono_ns && enav_clock_mono_ns() > b->deadline_mono_ns) {
		b->exhausted = true;
		errno = ETIME;
		return false;
	}
	b->bytes_left -= n;
	return true;
}

ssize_t enav_tenant_pread(int fd, void *buf, size_t n, uint64_t off, struct enav_tenant_budget *b)
{
	if (!enav_tenant_budget_charge(b, n))
		return -1;
	size_t done = 0;
	while (done < n) {
		ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0) {
			errno = EIO;
			return -1;
		}
		done += (size_t)r;
	}
	return (ssize_t)n;
}
