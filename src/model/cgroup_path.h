/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Parse a cgroup path (as in /proc/PID/cgroup, relative to the cgroup2 root)
 * into the container and Kubernetes identity it proves.  Pure function: no
 * I/O.  When the path carries no recognizable form, nothing is filled: never a
 * guessed identity.
 */
#ifndef ENAV_MODEL_CGROUP_PATH_H
#define ENAV_MODEL_CGROUP_PATH_H

#include <stdbool.h>
#include <stddef.h>

#define ENAV_CONTAINER_ID_LEN 64   /* hex sha256 */
#define ENAV_POD_UID_LEN      36   /* canonical UUID */
#define ENAV_CGROUP_PATH_MAX  4096 /* longer paths are rejected: the kernel never prints one */

enum enav_container_runtime {
	ENAV_RUNTIME_NONE = 0, /* not a container cgroup we can prove */
	ENAV_RUNTIME_CONTAINERD,
	ENAV_RUNTIME_CRIO,
	ENAV_RUNTIME_DOCKER,
	ENAV_RUNTIME_PODMAN,
	/* A container id is proven (a bare 64-hex leaf directly under a pod
	 * cgroup, cgroupfs driver) but the runtime is not: containerd, cri-o
	 * and cri-dockerd all name it that way.  Name "unknown". */
	ENAV_RUNTIME_UNKNOWN,
};

enum enav_pod_qos {
	ENAV_QOS_NONE = 0, /* not under a kubepods hierarchy; only ever set with pod_uid */
	ENAV_QOS_GUARANTEED,
	ENAV_QOS_BURSTABLE,
	ENAV_QOS_BESTEFFORT,
};

struct enav_cgroup_identity {
	enum enav_container_runtime runtime;
	char container_id[ENAV_CONTAINER_ID_LEN + 1]; /* "" when none */
	enum enav_pod_qos qos;
	char pod_uid[ENAV_POD_UID_LEN + 1]; /* "" when none; dashes restored */
	/* Deepest ".service" or ".scope" component when not a container, ""
	 * otherwise.  Never truncated: a longer name yields "". */
	char systemd_unit[128];
};

/*
 * Parse path[0..len) (need not be NUL-terminated; nothing past len is read).
 * Always fills out (zeroed when nothing is recognized).
 *
 * The whole path is rejected (out zeroed) when it is empty, does not start
 * with '/', is longer than ENAV_CGROUP_PATH_MAX, contains a NUL, an empty,
 * "." or ".." component (e.g. the "/../" form shown for cgroups outside the
 * reader's cgroup namespace).  A trailing " (deleted)", which the kernel
 * appends for a removed cgroup, is ignored.
 *
 * When components nest, the deepest wins: a container inside a pod keeps the
 * pod; a pod found below a container (e.g. a kind node) replaces that outer
 * container, which is not one of the pod's.  Only lowercase hex ids and
 * 8-4-4-4-12 lowercase pod UIDs are accepted (static pods, whose UID is a
 * 32-hex hash, are therefore not identified).
 */
void enav_cgroup_identity_parse(const char *path, size_t len, struct enav_cgroup_identity *out);

const char *enav_container_runtime_name(enum enav_container_runtime r);
const char *enav_pod_qos_name(enum enav_pod_qos q);

#endif
