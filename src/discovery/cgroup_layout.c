/* SPDX-License-Identifier: Apache-2.0 */
#include "discovery/cgroup_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Mount options that are not controllers. */
static bool is_plain_option(const char *opt, size_t len)
{
	static const char *const plain[] = {
	    "rw",    "ro",     "xattr",	   "noprefix",	     "clone_children", "nosuid",
	    "nodev", "noexec", "relatime", "cpuset_v2_mode", "favordynmods",   "seclabel"};
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (strlen(plain[i]) == len && memcmp(plain[i], opt, len) == 0)
			return true;
	return len >= 14 && memcmp(opt, "release_agent=", 14) == 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sort and join comma-separated tokens, keeping only controller names. */
static int normalize_controllers(const char *in, size_t len, char *out, size_t outlen,
				 bool filter_options)
{
	char buf[ENAV_CGROUP_CTRL_MAX * 2];
	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, in, len);
	buf[len] = '\0';
	const char *tok[32];
	size_t n = 0;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (filter_options && is_plain_option(t, strlen(t)))
			continue;
		if (n == sizeof(tok) / sizeof(tok[0]))
			return -1;
		tok[n++] = t;
	}
	qsort(tok, n, sizeof(tok[0]), cmp_str);
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int w = snprintf(out + used, outlen - used, "%s%s", i ? "," : "", tok[i]);
		if (w < 0 || (size_t)w >= outlen - used)
			return -1;
		used += (size_t)w;
	}
	return 0;
}

/* Next line of text[*pos..len) into line (NUL-terminated); false at the end. */
static bool next_line(const char *text, size_t len, size_t *pos, char *line, size_t cap,
		      bool *too_long)
{
	if (*pos >= len)
		return false;
	const char *start = text + *pos;
	const char *nl = memchr(start, '\n', len - *pos);
	size_t n = nl ? (size_t)(nl - start) : len - *pos;
	*pos += n + (nl ? 1 : 0);
	*too_long = n >= cap;
	if (*too_long)
		n = cap - 1;
	memcpy(line, start, n);
	line[n] = '\0';
	return true;
}

int enav_cgroup_parse_mountinfo(const char *text, size_t len, struct enav_cgroup_mounts *out)
{
	memset(out, 0, sizeof(*out));
	char line[2048];
	size_t pos = 0;
	bool too_long;
	while (next_line(text, len, &pos, line, sizeof(line), &too_long)) {
		if (too_long || line[0] == '\0')
			continue;
		/* id parent maj:min root mountpoint opts [optional...] - fstype source superopts */
		char *sep = strstr(line, " - ");
		if (!sep)
			return -1;
		*sep = '\0';
		char mountpoint[ENAV_CGROUP_MOUNT_PATH_MAX], fstype[32], source[256], super[512];
		if (sscanf(line, "%*s %*s %*s %*s %255s", mountpoint) != 1)
			return -1;
		int nf = sscanf(sep + 3, "%31s %255s %511s", fstype, source, super);
		if (nf < 1)
			return -1;
		if (strcmp(fstype, "cgroup2") == 0) {
			if (out->v2_mount[0] == '\0')
				snprintf(out->v2_mount, sizeof(out->v2_mount), "%s", mountpoint);
		} else if (strcmp(fstype, "cgroup") == 0 && nf == 3) {
			char ctrl[ENAV_CGROUP_CTRL_MAX];
			/* A hierarchy we cannot represent must not vanish: that would
			 * make the host look more provable than it is. */
			int rc =
			    normalize_controllers(super, strlen(super), ctrl, sizeof(ctrl), true);
			if (rc != 0) {
				out->v1_truncated = true;
				continue;
			}
			if (ctrl[0] ==
			    '\0') /* options only: the kernel never shows such a hierarchy */
				continue;
			/* The same hierarchy mounted twice (bind mounts) counts once. */
			bool dup = false;
			for (unsigned i = 0; i < out->n_v1; i++)
				dup |= strcmp(out->v1[i].controllers, ctrl) == 0;
			if (dup)
				continue;
			if (out->n_v1 == ENAV_CGROUP_MAX_V1) {
				out->v1_truncated = true;
				continue;
			}
			snprintf(out->v1[out->n_v1].controllers, ENAV_CGROUP_CTRL_MAX, "%s", ctrl);
			snprintf(out->v1[out->n_v1].mount, ENAV_CGROUP_MOUNT_PATH_MAX, "%s",
				 mountpoint);
			out->n_v1++;
		}
	}
	bool v2 = out->v2_mount[0] != '\0';
	bool v1 = out->n_v1 > 0 || out->v1_truncated;
	out->layout = v2 && v1 ? ENAV_CGROUP_HYBRID
		      : v2     ? ENAV_CGROUP_V2
		      : v1     ? ENAV_CGROUP_V1
			       : ENAV_CGROUP_NONE;
	return 0;
}

int enav_cgroup_parse_proc(const char *text, size_t len, struct enav_proc_cgroups *out)
{
	memset(out, 0, sizeof(*out));
	char line[ENAV_CGROUP_REL_PATH_MAX + ENAV_CGROUP_CTRL_MAX + 32];
	size_t pos = 0;
	bool too_long;
	while (next_line(text, len, &pos, line, sizeof(line), &too_long)) {
		if (line[0] == '\0')
			continue;
		if (too_long)
			return -1;
		/* hierarchy-id:controller-list:path */
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c1 || !c2 || c2[1] != '/')
			return -1;
		const char *path = c2 + 1;
		if (strlen(path) >= ENAV_CGROUP_REL_PATH_MAX)
			return -1;
		if (c2 == c1 + 1) { /* "0::/path": the unified hierarchy */
			out->has_v2 = true;
			snprintf(out->v2, sizeof(out->v2), "%s", path);
			continue;
		}
		if (out->n_v1 == ENAV_CGROUP_MAX_V1) {
			out->truncated = true;
			continue;
		}
		if (normalize_controllers(c1 + 1, (size_t)(c2 - c1 - 1),
					  out->v1[out->n_v1].controllers, ENAV_CGROUP_CTRL_MAX,
					  false) != 0)
			return -1;
		snprintf(out->v1[out->n_v1].path, ENAV_CGROUP_REL_PATH_MAX, "%s", path);
		out->n_v1++;
	}
	return 0;
}

enum enav_hybrid_result enav_hybrid_prove(const struct enav_cgroup_mounts *m, const char *v2_path,
					  enav_dir_exists_fn dir_exists, void *ctx,
					  const struct enav_proc_cgroups *members, size_t n_members,
					  const char **which)
{
	*which = "";
	if (m->v1_truncated)
		return ENAV_HYBRID_TOO_MANY_HIERARCHIES;
	for (unsigned h = 0; h < m->n_v1; h++) {
		char abs[ENAV_CGROUP_MOUNT_PATH_MAX + ENAV_CGROUP_REL_PATH_MAX];
		snprintf(abs, sizeof(abs), "%s%s", m->v1[h].mount,
			 strcmp(v2_path, "/") ? v2_path : "");
		if (!dir_exists(ctx, abs)) {
			*which = m->v1[h].controllers;
			return ENAV_HYBRID_V1_DIR_MISSING;
		}
		for (size_t i = 0; i < n_members; i++) {
			const struct enav_proc_cgroups *pc = &members[i];
			bool found = false;
			for (unsigned k = 0; k < pc->n_v1 && !found; k++) {
				if (strcmp(pc->v1[k].controllers, m->v1[h].controllers) != 0)
					continue;
				found = true;
				if (strcmp(pc->v1[k].path, v2_path) != 0) {
					*which = m->v1[h].controllers;
					return ENAV_HYBRID_V1_PATH_DIFFERS;
				}
			}
			if (!found) {
				*which = m->v1[h].controllers;
				return ENAV_HYBRID_MEMBER_UNREADABLE;
			}
		}
	}
	return ENAV_HYBRID_PROVEN;
}

const char *enav_hybrid_result_name(enum enav_hybrid_result r)
{
	static const char *const names[ENAV_HYBRID__COUNT] = {
	    [ENAV_HYBRID_PROVEN] = "proven",
	    [ENAV_HYBRID_V1_DIR_MISSING] = "hybrid_v1_directory_missing",
	    [ENAV_HYBRID_V1_PATH_DIFFERS] = "hybrid_v1_path_differs",
	    [ENAV_HYBRID_MEMBER_UNREADABLE] = "hybrid_member_unreadable",
	    [ENAV_HYBRID_TOO_MANY_HIERARCHIES] = "hybrid_too_many_hierarchies",
	};
	return (unsigned)r < ENAV_HYBRID__COUNT ? names[r] : "unknown";
}
