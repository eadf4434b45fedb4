/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Filesystems: node_filesystem_* labelled {device,fstype,mountpoint}.
 *
 * Mount table: <proc_root>/self/mounts, the agent's own mount namespace.
 * That is the host's view when the agent runs in the host mount namespace,
 * and it is always the namespace statvfs(2) resolves the mount points in, so
 * labels and figures agree.  (node_exporter reads /proc/1/mounts; from a
 * container that lists the host's mounts while statvfs would still look them
 * up in the container, and we have no rootfs prefix to bridge the two.)
 * Fields are decoded from their octal escapes ("\040" is a space).
 *
 * Exclusions: Debian's prometheus-node-exporter 1.5 defaults (as it logs at
 * start-up),
 *   --collector.filesystem.mount-points-exclude
 *     ^/(dev|proc|run|sys|mnt|media|var/lib/docker/.+|var/lib/containers/storage/.+)($|/)
 *   --collector.filesystem.fs-types-exclude
 *     ^(autofs|binfmt_misc|bpf|cgroup2?|configfs|debugfs|devpts|devtmpfs|fusectl|
 *       hugetlbfs|iso9660|mqueue|nsfs|overlay|proc|procfs|pstore|rpc_pipefs|
 *       securityfs|selinuxfs|squashfs|sysfs|tracefs)$
 * and the same (device, fstype, mountpoint) is rendered once.
 *
 * statvfs runs inline, so it must not meet a filesystem that can block it
 * for ever: network and cluster types (nfs, cifs, ceph, fuse.sshfs, ... see
 * remote_types) are skipped altogether.  A failed statvfs renders
 * node_filesystem_device_error 1 and no other family for that filesystem, as
 * node_exporter does.  Sizes are in f_frsize units (POSIX; node_exporter uses
 * f_bsize, the same number on Linux local filesystems).  readonly is the "ro"
 * mount option or ST_RDONLY.
 */
#include "features/node/node_priv.h"

#include <stdlib.h>
#include <string.h>

bool enav_node_mount_unescape(const char *s, size_t len, char *out, size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '\\' && len - i > 3 && s[i + 1] >= '0' && s[i + 1] <= '3' &&
		    s[i + 2] >= '0' && s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			c = (char)(((s[i + 1] - '0') << 6) | ((s[i + 2] - '0') << 3) |
				   (s[i + 3] - '0'));
			i += 3;
		}
		if (c == '\0' || o + 1 >= cap)
			return false;
		out[o++] = c;
	}
	if (cap == 0)
		return false;
	out[o] = '\0';
	return true;
}

static bool has_ro_option(const char *opt, size_t len)
{
	size_t i = 0;

	while (i < len) {
		const char *c = memchr(opt + i, ',', len - i);
		size_t l = c ? (size_t)(c - (opt + i)) : len - i;

		if (l == 2 && memcmp(opt + i, "ro", 2) == 0)
			return true;
		i += l + 1;
	}
	return false;
}

void enav_node_parse_mounts(const char *buf, size_t len, struct enav_node_mount *m,
			    enav_node_mount_cb cb, void *ctx)
{
	const char *pos = buf, *end = buf + len, *line;
	size_t ll;

	while (enav_node_next_line(&pos, end, &line, &ll)) {
		const char *lp = line, *le = line + ll, *tok[4];
		size_t tl[4];
		bool ok = true;

		for (int i = 0; i < 4 && ok; i++)
			ok = enav_node_token(&lp, le, &tok[i], &tl[i]);
		if (!ok || !enav_node_mount_unescape(tok[0], tl[0], m->device, sizeof(m->device)) ||
		    !enav_node_mount_unescape(tok[1], tl[1], m->mountpoint,
					      sizeof(m->mountpoint)) ||
		    !enav_node_mount_unescape(tok[2], tl[2], m->fstype, sizeof(m->fstype)))
			continue;
		m->readonly = has_ro_option(tok[3], tl[3]);
		cb(ctx, m);
	}
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return true;
	return false;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

bool enav_node_fs_excluded(const char *fstype, const char *mountpoint)
{
	static const char *const types[] = {
	    "autofs",	  "binfmt_misc", "bpf",	      "cgroup",	  "cgroup2",   "configfs",
	    "debugfs",	  "devpts",	 "devtmpfs",  "fusectl",  "hugetlbfs", "iso9660",
	    "mqueue",	  "nsfs",	 "overlay",   "proc",	  "procfs",    "pstore",
	    "rpc_pipefs", "securityfs",	 "selinuxfs", "squashfs", "sysfs",     "tracefs",
	};
	/* ^/(dev|proc|run|sys|mnt|media)($|/) */
	static const char *const tops[] = {"dev", "proc", "run", "sys", "mnt", "media"};
	/* ^/(var/lib/docker/.+|var/lib/containers/storage/.+) - anything below them */
	static const char *const below[] = {"/var/lib/docker/", "/var/lib/containers/storage/"};

	if (in_list(fstype, types, COUNT(types)))
		return true;
	if (mountpoint[0] != '/')
		return false;
	for (size_t i = 0; i < COUNT(tops); i++) {
		size_t l = strlen(tops[i]);

		if (strncmp(mountpoint + 1, tops[i], l) == 0 &&
		    (mountpoint[1 + l] == '\0' || mountpoint[1 + l] == '/'))
			return true;
	}
	for (size_t i = 0; i < COUNT(below); i++) {
		size_t l = strlen(below[i]);

		if (strncmp(mountpoint, below[i], l) == 0 && mountpoint[l] != '\0')
			return true;
	}
	return false;
}

bool enav_node_fs_remote(const char *fstype)
{
	static const char *const remote_types[] = {
	    "nfs",	    "nfs4",	    "cifs",	      "smb3",
	    "smbfs",	    "ncpfs",	    "ceph",	      "glusterfs",
	    "afs",	    "9p",	    "lustre",	      "gpfs",
	    "beegfs",	    "orangefs",	    "pvfs2",	      "gfs2",
	    "ocfs2",	    "davfs",	    "coda",	      "fuse.sshfs",
	    "fuse.s3fs",    "fuse.rclone",  "fuse.glusterfs", "fuse.ceph-fuse",
	    "fuse.juicefs", "fuse.gcsfuse", "fuse.curlftpfs", "fuse.goofys",
	    "fuse.mfs",	    "fuse.cephfs",
	};

	return in_list(fstype, remote_types, COUNT(remote_types));
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull; /* field separator */
}

static const char *arena_put(struct enav_node *n, const char *s)
{
	size_t l = strlen(s) + 1;

	if (n->arena_cap - n->arena_len < l)
		return NULL;
	char *d = n->arena + n->arena_len;

	memcpy(d, s, l);
	n->arena_len += l;
	return d;
}

static void keep_mount(void *ctx, const struct enav_node_mount *m)
{
	struct enav_node *n = ctx;

	if (enav_node_fs_excluded(m->fstype, m->mountpoint) || enav_node_fs_remote(m->fstype))
		return;
	if (!enav_utf8_valid(m->device) || !enav_utf8_valid(m->mountpoint) ||
	    !enav_utf8_valid(m->fstype))
		return; /* not representable as label values */
	uint64_t h =
	    fnv1a(fnv1a(fnv1a(0xcbf29ce484222325ull, m->device), m->fstype), m->mountpoint);

	for (uint32_t i = 0; i < n->n_fs; i++) {
		const struct enav_node_fs *f = &n->fs[i];

		if (f->hash == h && strcmp(f->device, m->device) == 0 &&
		    strcmp(f->fstype, m->fstype) == 0 && strcmp(f->mountpoint, m->mountpoint) == 0)
			return;
	}
	if (n->n_fs >= n->max_devices) {
		n->dropped[ENAV_NODE_K_FILESYSTEM]++;
		return;
	}
	size_t mark = n->arena_len;
	struct enav_node_fs *f = &n->fs[n->n_fs];

	f->device = arena_put(n, m->device);
	f->fstype = arena_put(n, m->fstype);
	f->mountpoint = arena_put(n, m->mountpoint);
	if (!f->device || !f->fstype || !f->mountpoint) {
		n->arena_len = mark; /* cannot happen: the arena outsizes the file */
		return;
	}
	f->hash = h;
	f->readonly = m->readonly;
	f->error = false;
	n->n_fs++;
}

/* Value of one family for one filesystem. */
enum fs_field { AVAIL, DEVICE_ERROR, FILES, FILES_FREE, FREE, READONLY, SIZE };

static const struct {
	const char *name, *help;
	enum fs_field field;
} fs_families[] = {
    {"node_filesystem_avail_bytes", "Bytes available to unprivileged users.", AVAIL},
    {"node_filesystem_device_error", "1 when statvfs failed for this filesystem.", DEVICE_ERROR},
    {"node_filesystem_files", "File nodes in total.", FILES},
    {"node_filesystem_files_free", "File nodes free.", FILES_FREE},
    {"node_filesystem_free_bytes", "Bytes free.", FREE},
    {"node_filesystem_readonly", "1 when mounted read-only.", READONLY},
    {"node_filesystem_size_bytes", "Size in bytes.", SIZE},
};

void enav_node_render_filesystem(struct enav_node *n, struct enav_promtext *p)
{
	ssize_t len = enav_node_read(n, ENAV_NODE_F_MOUNTS);

	n->n_fs = 0;
	n->arena_len = 0;
	if (len < 0)
		return;
	/* Decoded strings are never longer than the file: size the arena once per growth. */
	if (n->arena_cap < (size_t)len + 4096) {
		char *a = realloc(n->arena, n->buf_cap + 4096);

		if (!a) {
			enav_node_count_error(n, ENAV_NODE_F_MOUNTS);
			return;
		}
		n->arena = a;
		n->arena_cap = n->buf_cap + 4096;
	}
	enav_node_parse_mounts(n->buf, (size_t)len, &n->mnt, keep_mount, n);
	n->available[ENAV_NODE_C_FILESYSTEM] = true;
	if (!n->n_fs)
		return;
	uint32_t n_ok = 0;

	for (uint32_t i = 0; i < n->n_fs; i++) {
		struct enav_node_fs *f = &n->fs[i];

		f->error = n->hooks.statvfs_fn(f->mountpoint, &f->st) != 0;
		if (!f->error && (f->st.f_flag & ST_RDONLY))
			f->readonly = true;
		n_ok += !f->error;
	}
	for (size_t k = 0; k < COUNT(fs_families); k++) {
		const char *name = fs_families[k].name;

		if (fs_families[k].field != DEVICE_ERROR && !n_ok)
			continue; /* no family without samples */
		enav_promtext_family(p, name, "gauge", fs_families[k].help);
		for (uint32_t i = 0; i < n->n_fs; i++) {
			const struct enav_node_fs *f = &n->fs[i];
			const char *l[] = {"device",  f->device,    "fstype",
					   f->fstype, "mountpoint", f->mountpoint};
			const uint64_t bs = f->st.f_frsize ? f->st.f_frsize : f->st.f_bsize;

			if (fs_families[k].field == DEVICE_ERROR) {
				enav_promtext_sample_u64(p, name, l, 3, f->error ? 1 : 0);
				continue;
			}
			if (f->error)
				continue;
			switch (fs_families[k].field) {
			case AVAIL:
				enav_node_sample_product(p, name, l, 3, f->st.f_bavail, bs);
				break;
			case FILES:
				enav_promtext_sample_u64(p, name, l, 3, f->st.f_files);
				break;
			case FILES_FREE:
				enav_promtext_sample_u64(p, name, l, 3, f->st.f_ffree);
				break;
			case FREE:
				enav_node_sample_product(p, name, l, 3, f->st.f_bfree, bs);
				break;
			case READONLY:
				enav_promtext_sample_u64(p, name, l, 3, f->readonly ? 1 : 0);
				break;
			case SIZE:
				enav_node_sample_product(p, name, l, 3, f->st.f_blocks, bs);
				break;
			default:
				break;
			}
		}
	}
}
