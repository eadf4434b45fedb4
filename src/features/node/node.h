/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Host and container resources from procfs, sysfs and cgroup files: a pull
 * source rendered at scrape time (or from a cache of host.cache_ms), with
 * node_exporter's metric names for node figures (docs/host-metrics.md).
 *
 * Cost rules: files that are read every scrape stay open and are re-read with
 * one pread(2) each; parsing works in buffers allocated once; every per-device
 * and per-cgroup series set is capped, with the overflow counted.
 */
#ifndef ENAV_FEATURES_NODE_NODE_H
#define ENAV_FEATURES_NODE_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "platform/promtext.h"

struct enav_snapshot;
struct enav_cgroup_mounts;

/* ---- node ---------------------------------------------------------------- */

struct enav_node;

/*
 * proc_root and sys_root are "/proc" and "/sys" in production; tests point
 * them at recorded fixture trees.  max_devices caps each of: CPUs, block
 * devices, network devices and filesystems (overflow counted, not rendered).
 */
struct enav_node *enav_node_open(const char *proc_root, const char *sys_root, uint32_t max_devices,
				 char *err, size_t errlen);
void enav_node_close(struct enav_node *n);
/* Append every node_* family, plus enav_host_* self metrics (read errors,
 * devices over the cap).  Safe to call from one thread at a time. */
void enav_node_render(struct enav_node *n, struct enav_promtext *p);

/* ---- cgroups ------------------------------------------------------------- */

struct enav_node_cgroups;

/*
 * v2_mount is the cgroup2 mount ("" when none); mounts gives the v1
 * hierarchies (read at the same relative path on hybrid and v1 hosts).
 */
struct enav_node_cgroups *enav_node_cgroups_open(const char *v2_mount,
						 const struct enav_cgroup_mounts *mounts,
						 uint32_t max_cgroups, char *err, size_t errlen);
void enav_node_cgroups_close(struct enav_node_cgroups *h);
/*
 * Render per-cgroup families for the cgroups in snap selected by mode
 * (containers = a proven container id or pod uid; all = every tracked
 * cgroup), at most max_cgroups of them, labelled with the snapshot's
 * attribution (cgroup path, container id and runtime, pod uid, pod name,
 * namespace).
 */
void enav_node_cgroups_render(struct enav_node_cgroups *h, const struct enav_snapshot *snap,
			      enum enav_host_cgroup_scope mode, struct enav_promtext *p);
/* Bytes those families take at most with max_cgroups cgroups. */
size_t enav_node_cgroups_exposition_bound(uint32_t max_cgroups);

#endif
