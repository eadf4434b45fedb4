/* SPDX-License-Identifier: Apache-2.0 */
#include "model/cgroup_path.h"

#include <string.h>

/* A component of the path: never NUL-terminated, only s[0..n) is valid. */
struct span {
	const char *s;
	size_t n;
};

static bool span_eq(struct span a, const char *lit)
{
	size_t k = strlen(lit);

	return a.n == k && memcmp(a.s, lit, k) == 0;
}

static bool has_prefix(struct span a, const char *lit)
{
	size_t k = strlen(lit);

	return a.n >= k && memcmp(a.s, lit, k) == 0;
}

static bool has_suffix(struct span a, const char *lit)
{
	size_t k = strlen(lit);

	return a.n >= k && memcmp(a.s + a.n - k, lit, k) == 0;
}

static struct span drop_prefix(struct span a, size_t k)
{
	return (struct span){a.s + k, a.n - k};
}

static struct span drop_suffix(struct span a, size_t k)
{
	return (struct span){a.s, a.n - k};
}

/* Runtimes print ids in lowercase; uppercase would be some other naming. */
static bool is_lhex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static bool is_container_id(struct span a)
{
	if (a.n != ENAV_CONTAINER_ID_LEN)
		return false;
	for (size_t i = 0; i < a.n; i++)
		if (!is_lhex(a.s[i]))
			return false;
	return true;
}

/* 8-4-4-4-12 lowercase hex with sep at the four group boundaries; out gets dashes. */
static bool parse_uid(struct span a, char sep, char out[ENAV_POD_UID_LEN + 1])
{
	if (a.n != ENAV_POD_UID_LEN)
		return false;
	for (size_t i = 0; i < a.n; i++) {
		bool boundary = i == 8 || i == 13 || i == 18 || i == 23;

		if (boundary ? a.s[i] != sep : !is_lhex(a.s[i]))
			return false;
		out[i] = boundary ? '-' : a.s[i];
	}
	out[ENAV_POD_UID_LEN] = '\0';
	return true;
}

static const struct {
	const char *prefix;
	enum enav_container_runtime rt;
} prefixed[] = {
    {"cri-containerd-", ENAV_RUNTIME_CONTAINERD}, /* systemd driver */
    {"crio-", ENAV_RUNTIME_CRIO},		  /* "crio-conmon-<id>" fails the id check */
    {"docker-", ENAV_RUNTIME_DOCKER},
    {"libpod-", ENAV_RUNTIME_PODMAN}, /* "libpod-conmon-<id>" likewise */
};

/*
 * "<runtime>-<id>" with an optional ".scope" (cri-o and podman drop it under
 * cgroupfs), or a bare id whose parent names the runtime or is a pod.
 */
static enum enav_container_runtime match_container(struct span c, struct span parent,
						   bool parent_is_pod)
{
	struct span body = has_suffix(c, ".scope") ? drop_suffix(c, strlen(".scope")) : c;

	for (size_t i = 0; i < sizeof(prefixed) / sizeof(prefixed[0]); i++) {
		if (has_prefix(body, prefixed[i].prefix) &&
		    is_container_id(drop_prefix(body, strlen(prefixed[i].prefix))))
			return prefixed[i].rt;
	}
	if (!is_container_id(c))
		return ENAV_RUNTIME_NONE;
	if (parent_is_pod)
		return ENAV_RUNTIME_UNKNOWN;
	if (span_eq(parent, "docker")) /* docker's cgroupfs parent */
		return ENAV_RUNTIME_DOCKER;
	return ENAV_RUNTIME_NONE;
}

/* systemd unit name characters (unit_name_is_valid), escapes included. */
static bool unit_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == ':' || c == '-' || c == '_' || c == '.' || c == '@' || c == '\\';
}

#define UNIT_CAP sizeof(((struct enav_cgroup_identity *)0)->systemd_unit)

static bool is_unit(struct span c)
{
	size_t suffix;

	if (has_suffix(c, ".service"))
		suffix = strlen(".service");
	else if (has_suffix(c, ".scope"))
		suffix = strlen(".scope");
	else
		return false;
	/* Too long to store means we would have to truncate: report nothing. */
	if (c.n == suffix || c.n >= UNIT_CAP)
		return false;
	for (size_t i = 0; i < c.n; i++)
		if (!unit_char(c.s[i]))
			return false;
	return true;
}

/* Where we are in a kubepods hierarchy; each level must directly follow the last. */
enum kube_level {
	KUBE_NONE,
	KUBE_ROOT, /* kubepods(.slice): next is a QoS level or a guaranteed pod */
	KUBE_QOS,  /* burstable / besteffort: next is a pod */
};

struct kube {
	enum kube_level level;
	bool systemd;	  /* systemd driver: names repeat the parent stem */
	struct span stem; /* systemd: current slice name without ".slice" */
	enum enav_pod_qos qos;
};

/*
 * systemd slice names encode their parent: "a-b.slice" lives in "a.slice".
 * Checking that keeps "x-kubepods.slice" (kubelet --cgroup-root) honest.
 */
static bool kube_root(struct span c, struct span parent, struct kube *k)
{
	if (span_eq(c, "kubepods")) {
		*k = (struct kube){.level = KUBE_ROOT};
		return true;
	}
	if (!has_suffix(c, ".slice"))
		return false;

	struct span stem = drop_suffix(c, strlen(".slice"));

	if (span_eq(stem, "kubepods")) {
		*k = (struct kube){.level = KUBE_ROOT, .systemd = true, .stem = stem};
		return true;
	}
	if (!has_suffix(stem, "-kubepods"))
		return false;

	struct span up = drop_suffix(stem, strlen("-kubepods"));

	if (up.n == 0 || parent.n != up.n + strlen(".slice") || memcmp(parent.s, up.s, up.n) != 0 ||
	    !has_suffix(parent, ".slice"))
		return false;
	*k = (struct kube){.level = KUBE_ROOT, .systemd = true, .stem = stem};
	return true;
}

/* c == stem + tail + ".slice"; returns the part after tail in *rest (before ".slice"). */
static bool stem_child(struct span c, struct span stem, const char *tail, struct span *rest)
{
	size_t t = strlen(tail);

	if (!has_suffix(c, ".slice"))
		return false;
	c = drop_suffix(c, strlen(".slice"));
	if (c.n < stem.n + t || memcmp(c.s, stem.s, stem.n) != 0 ||
	    memcmp(c.s + stem.n, tail, t) != 0)
		return false;
	*rest = drop_prefix(c, stem.n + t);
	return true;
}

/* Pod level below k: fills uid (dashes) and returns true. */
static bool kube_pod(struct span c, const struct kube *k, char uid[ENAV_POD_UID_LEN + 1])
{
	struct span rest;

	if (k->systemd)
		return stem_child(c, k->stem, "-pod", &rest) && parse_uid(rest, '_', uid);
	return has_prefix(c, "pod") && parse_uid(drop_prefix(c, 3), '-', uid);
}

static bool kube_qos(struct span c, struct kube *k)
{
	static const struct {
		const char *name;
		enum enav_pod_qos qos;
	} q[] = {{"burstable", ENAV_QOS_BURSTABLE}, {"besteffort", ENAV_QOS_BESTEFFORT}};

	for (size_t i = 0; i < 2; i++) {
		struct span rest;

		if (k->systemd) {
			if (!stem_child(c, k->stem, "-", &rest) || !span_eq(rest, q[i].name))
				continue;
			k->stem = drop_suffix(c, strlen(".slice"));
		} else if (!span_eq(c, q[i].name)) {
			continue;
		}
		k->level = KUBE_QOS;
		k->qos = q[i].qos;
		return true;
	}
	return false;
}

static void copy_span(char *dst, struct span s)
{
	memcpy(dst, s.s, s.n);
	dst[s.n] = '\0';
}

void enav_cgroup_identity_parse(const char *path, size_t len, struct enav_cgroup_identity *out)
{
	static const char deleted[] = " (deleted)";
	const size_t deleted_n = sizeof(deleted) - 1;
	struct kube k = {.level = KUBE_NONE};
	struct span parent = {path, 0};
	struct span unit = {NULL, 0};
	bool parent_is_pod = false;

	/* memset, not assignment: padding is zeroed too, so out is byte-stable. */
	memset(out, 0, sizeof(*out));
	if (path == NULL || len == 0 || path[0] != '/')
		return;
	if (len > deleted_n && memcmp(path + len - deleted_n, deleted, deleted_n) == 0)
		len -= deleted_n;
	if (len > ENAV_CGROUP_PATH_MAX || memchr(path, '\0', len) != NULL)
		return;

	for (size_t i = 1; i < len;) {
		const char *slash = memchr(path + i, '/', len - i);
		size_t end = slash ? (size_t)(slash - path) : len;
		struct span c = {path + i, end - i};
		bool is_pod = false;
		char uid[ENAV_POD_UID_LEN + 1];

		/* "//", a trailing '/', "." and ".." are never printed by the kernel
		 * for a reachable cgroup: refuse rather than interpret them. */
		if (c.n == 0 || span_eq(c, ".") || span_eq(c, "..") || (slash && end + 1 == len)) {
			memset(out, 0, sizeof(*out));
			return;
		}

		if (k.level != KUBE_NONE && kube_pod(c, &k, uid)) {
			is_pod = true;
			memcpy(out->pod_uid, uid, sizeof(uid));
			out->qos = k.level == KUBE_ROOT ? ENAV_QOS_GUARANTEED : k.qos;
			/* Anything recorded above the pod is outside it. */
			out->runtime = ENAV_RUNTIME_NONE;
			memset(out->container_id, 0, sizeof(out->container_id));
			unit.n = 0;
			k.level = KUBE_NONE;
		} else if (!(k.level == KUBE_ROOT && kube_qos(c, &k))) {
			k.level = KUBE_NONE;
			kube_root(c, parent, &k);
		}

		enum enav_container_runtime rt = match_container(c, parent, parent_is_pod);

		if (rt != ENAV_RUNTIME_NONE) {
			/* The id is always the last 64 bytes before an optional ".scope". */
			struct span body =
			    has_suffix(c, ".scope") ? drop_suffix(c, strlen(".scope")) : c;

			out->runtime = rt;
			copy_span(out->container_id,
				  drop_prefix(body, body.n - ENAV_CONTAINER_ID_LEN));
		} else if (is_unit(c)) {
			unit = c;
		}

		parent = c;
		parent_is_pod = is_pod;
		i = end + 1;
	}

	if (out->runtime == ENAV_RUNTIME_NONE && unit.n > 0)
		copy_span(out->systemd_unit, unit);
}

const char *enav_container_runtime_name(enum enav_container_runtime r)
{
	switch (r) {
	case ENAV_RUNTIME_NONE:
		return "none";
	case ENAV_RUNTIME_CONTAINERD:
		return "containerd";
	case ENAV_RUNTIME_CRIO:
		return "cri-o";
	case ENAV_RUNTIME_DOCKER:
		return "docker";
	case ENAV_RUNTIME_PODMAN:
		return "podman";
	case ENAV_RUNTIME_UNKNOWN:
		return "unknown";
	}
	return "invalid";
}

const char *enav_pod_qos_name(enum enav_pod_qos q)
{
	switch (q) {
	case ENAV_QOS_NONE:
		return "none";
	case ENAV_QOS_GUARANTEED:
		return "guaranteed";
	case ENAV_QOS_BURSTABLE:
		return "burstable";
	case ENAV_QOS_BESTEFFORT:
		return "besteffort";
	}
	return "invalid";
}
