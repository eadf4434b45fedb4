/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Absolute path of an open file, built in the kernel by walking dentries and
 * crossing mounts up to the root of the file's mount tree.  bpf_d_path() would
 * do this but is not allowed in tracepoint programs, and reading /proc later
 * loses every process that exits first.
 *
 * The walk is bounded (ENAV_PATH_MAX_DEPTH components, ENAV_PATH_BUF bytes).
 * A path that does not fit is reported as truncated, never returned cut: a
 * tail without its head would name the wrong file.
 */
#ifndef ENAV_PATH_BPF_H
#define ENAV_PATH_BPF_H

#include "enav_common.bpf.h"

#define ENAV_PATH_BUF	    1024 /* power of two: offsets are masked with it */
#define ENAV_PATH_MAX_DEPTH 32
#define ENAV_NAME_MAX	    255

_Static_assert(ENAV_PATH_BUF == ENAV_EXE_PATH_MAX, "exe field holds a whole path buffer");

struct enav_path_scratch {
	/* The write offset lives in map memory, not a register: the verifier
	 * does not track map contents, so every iteration starts from the same
	 * abstract state and the loop verifies in linear time instead of
	 * exploring every combination of branch outcomes. */
	__u32 pos;
	__u32 _pad;
	/* Slack past ENAV_PATH_BUF so a masked offset plus a masked name length
	 * always stays inside the buffer, which is what the verifier checks. */
	char buf[ENAV_PATH_BUF + ENAV_NAME_MAX + 1];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct enav_path_scratch);
} enav_path_scratch SEC(".maps");

/*
 * Writes the path of f so that it ends at buf[ENAV_PATH_BUF - 1] (a NUL) and
 * returns its start offset; returns -1 when it does not fit or the walk did
 * not reach a root within the depth bound.
 */
static __always_inline int enav_file_path(struct file *f, struct enav_path_scratch *ps)
{
	volatile __u32 *posp = &ps->pos;
	char *buf = ps->buf;
	unsigned long mnt_off = bpf_core_field_offset(struct mount, mnt);
	struct dentry *dentry = BPF_CORE_READ(f, f_path.dentry);
	struct vfsmount *vfsmnt = BPF_CORE_READ(f, f_path.mnt);
	struct mount *mnt = (void *)vfsmnt - mnt_off;
	bool reached_root = false;

	*posp = ENAV_PATH_BUF - 1;
	buf[ENAV_PATH_BUF - 1] = '\0';
	for (int i = 0; i < ENAV_PATH_MAX_DEPTH; i++) {
		struct dentry *mnt_root = BPF_CORE_READ(vfsmnt, mnt_root);
		struct dentry *parent = BPF_CORE_READ(dentry, d_parent);

		if (dentry == mnt_root) {
			struct mount *mnt_parent = BPF_CORE_READ(mnt, mnt_parent);
			/* Top of this mount: done at the tree's root, else continue
			 * from the mountpoint in the parent mount. */
			if (mnt_parent == mnt) {
				reached_root = true;
				break;
			}
			dentry = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = mnt_parent;
			vfsmnt = (void *)mnt + mnt_off;
			continue;
		}
		/* A dentry that is its own parent without being a mount's root is
		 * outside any tree (a memfd, an unlinked-and-disconnected file):
		 * its own name is the whole path, as "/memfd:NAME". */
		bool detached = dentry == parent;
		__u32 len = BPF_CORE_READ(dentry, d_name.len);
		const unsigned char *name = BPF_CORE_READ(dentry, d_name.name);
		__u32 pos = *posp;
		if (len > ENAV_NAME_MAX || len + 1 > pos)
			return -1;
		pos -= len;
		bpf_probe_read_kernel(&buf[pos & (ENAV_PATH_BUF - 1)], len & ENAV_NAME_MAX, name);
		pos -= 1;
		buf[pos & (ENAV_PATH_BUF - 1)] = '/';
		*posp = pos;
		if (detached) {
			reached_root = true;
			break;
		}
		dentry = parent;
	}
	if (!reached_root)
		return -1;
	__u32 pos = *posp;
	if (pos == ENAV_PATH_BUF - 1) { /* the root directory itself */
		pos -= 1;
		buf[pos & (ENAV_PATH_BUF - 1)] = '/';
	}
	return pos & (ENAV_PATH_BUF - 1);
}

/* Copy the path of f into dst (ENAV_PATH_BUF bytes, NUL-terminated) and
 * return its length; 0 when it did not resolve within the walk's bounds. */
static __always_inline __u16 enav_copy_file_path(struct file *f, char *dst)
{
	__u32 zero = 0;
	struct enav_path_scratch *ps = bpf_map_lookup_elem(&enav_path_scratch, &zero);
	if (!ps)
		return 0;
	int start = enav_file_path(f, ps);
	if (start < 0 || start >= ENAV_PATH_BUF - 1)
		return 0;
	__u32 plen = (ENAV_PATH_BUF - 1) - start;
	bpf_probe_read_kernel(dst, plen & (ENAV_PATH_BUF - 1),
			      &ps->buf[start & (ENAV_PATH_BUF - 1)]);
	return plen;
}

/* The task's ids, start, name and executable into t (task is current). */
static __always_inline void enav_fill_task(struct enav_task_info *t, struct task_struct *task)
{
	t->uid = BPF_CORE_READ(task, cred, uid.val);
	t->gid = BPF_CORE_READ(task, cred, gid.val);
	t->ppid = BPF_CORE_READ(task, real_parent, tgid);
	t->start_boot_ns = BPF_CORE_READ(task, start_boottime);
	t->pad = 0;
	bpf_get_current_comm(t->comm, sizeof(t->comm));
	/* As the kernel knows the executable: a copy of cat renamed "sshd" is
	 * still reported by its own path, and it is read before the task can
	 * exit. */
	t->exe_len = enav_copy_file_path(BPF_CORE_READ(task, mm, exe_file), t->exe);
}

#endif
