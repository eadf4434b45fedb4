/* SPDX-License-Identifier: Apache-2.0 */
#include "discovery/capture_filter.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum enav_capture_mode enav_capture_kernel_mode(enum enav_cgroup_layout layout,
						enum enav_capture_policy policy)
{
	if (policy == ENAV_CAPTURE_POLICY_ALL)
		return ENAV_CAPTURE_DISABLED;
	if (layout == ENAV_CGROUP_V2 && policy == ENAV_CAPTURE_POLICY_DENYLIST)
		return ENAV_CAPTURE_UNKNOWN_CAPTURE;
	return ENAV_CAPTURE_UNKNOWN_DENY;
}

int enav_capture_filter_open(struct enav_capture_filter *f, uint32_t capacity, char *err,
			     size_t errlen)
{
	memset(f, 0, sizeof(*f));
	f->control_fd = f->verdicts_fd = -1;
	f->capacity = capacity;
	f->control_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "enav_capture_ct", sizeof(__u32),
				       sizeof(__u32), 1, NULL);
	if (f->control_fd < 0) {
		snprintf(err, errlen, "capture filter: cannot create the control map: %s",
			 strerror(errno));
		return -errno;
	}
	f->verdicts_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "enav_cgroup_ver", sizeof(__u64),
					sizeof(__u8), capacity, NULL);
	if (f->verdicts_fd < 0) {
		snprintf(err, errlen,
			 "capture filter: cannot create the verdict map (%u entries): %s", capacity,
			 strerror(errno));
		return -errno;
	}
	return enav_capture_filter_set_mode(f, ENAV_CAPTURE_DISABLED);
}

void enav_capture_filter_close(struct enav_capture_filter *f)
{
	if (f->control_fd >= 0)
		close(f->control_fd);
	if (f->verdicts_fd >= 0)
		close(f->verdicts_fd);
	f->control_fd = f->verdicts_fd = -1;
}

int enav_capture_filter_set_mode(struct enav_capture_filter *f, enum enav_capture_mode mode)
{
	__u32 key = 0, val = mode;
	if (bpf_map_update_elem(f->control_fd, &key, &val, BPF_ANY) != 0)
		return -errno;
	f->mode = mode;
	return 0;
}

int enav_capture_filter_set(struct enav_capture_filter *f, uint64_t cgroup_id, bool capture)
{
	__u64 key = cgroup_id;
	__u8 val = capture ? 1 : 0;
	/* BPF_EXIST first: an overwrite must not count against a full map. */
	if (bpf_map_update_elem(f->verdicts_fd, &key, &val, BPF_EXIST) == 0) {
		atomic_fetch_add(&f->writes, 1);
		return 0;
	}
	if (bpf_map_update_elem(f->verdicts_fd, &key, &val, BPF_NOEXIST) == 0) {
		atomic_fetch_add(&f->writes, 1);
		atomic_fetch_add(&f->entries, 1);
		return 0;
	}
	if (errno == E2BIG || errno == ENOSPC) {
		atomic_fetch_add(&f->map_full, 1);
		return -ENOSPC;
	}
	atomic_fetch_add(&f->write_errors, 1);
	return -errno;
}

void enav_capture_filter_clear(struct enav_capture_filter *f, uint64_t cgroup_id)
{
	__u64 key = cgroup_id;
	if (bpf_map_delete_elem(f->verdicts_fd, &key) == 0) {
		atomic_fetch_add(&f->deletes, 1);
		atomic_fetch_sub(&f->entries, 1);
	}
}

int enav_capture_filter_reuse(const struct enav_capture_filter *f, struct bpf_object *obj)
{
	struct bpf_map *ct = bpf_object__find_map_by_name(obj, "enav_capture_control");
	struct bpf_map *vd = bpf_object__find_map_by_name(obj, "enav_cgroup_verdicts");
	if (!ct || !vd)
		return -ENOENT;
	/* The object's own definition must agree, or the programs would index
	 * a map shaped differently from what they were verified against. */
	bpf_map__set_max_entries(vd, f->capacity);
	int rc = bpf_map__reuse_fd(ct, f->control_fd);
	if (!rc)
		rc = bpf_map__reuse_fd(vd, f->verdicts_fd);
	return rc;
}

const char *enav_capture_mode_name(enum enav_capture_mode m)
{
	switch (m) {
	case ENAV_CAPTURE_DISABLED:
		return "disabled";
	case ENAV_CAPTURE_UNKNOWN_CAPTURE:
		return "unknown_capture";
	case ENAV_CAPTURE_UNKNOWN_DENY:
		return "unknown_deny";
	}
	return "unknown";
}

void enav_capture_filter_metrics(struct enav_capture_filter *f, struct enav_promtext *p)
{
	enav_promtext_family(p, "enav_capture_filter_mode", "gauge",
			     "Kernel control word of the capture filter (1 for the active mode).");
	for (int m = ENAV_CAPTURE_DISABLED; m <= ENAV_CAPTURE_UNKNOWN_DENY; m++) {
		const char *l[] = {"mode", enav_capture_mode_name(m)};
		enav_promtext_sample_u64(p, "enav_capture_filter_mode", l, 1, (int)f->mode == m);
	}
	enav_promtext_single_u64(p, "enav_capture_filter_verdicts", "gauge",
				 "Verdicts held in the kernel map.", atomic_load(&f->entries));
	enav_promtext_single_u64(
	    p, "enav_capture_filter_capacity", "gauge",
	    "Capacity of the kernel verdict map (kernel.cgroup_verdict_entries).", f->capacity);
	enav_promtext_family(p, "enav_capture_filter_writes_total", "counter",
			     "Verdict map writes, deletes and refusals by outcome.");
	const char *lw[] = {"outcome", "written"};
	const char *ld[] = {"outcome", "deleted"};
	const char *lf[] = {"outcome", "map_full"};
	const char *le[] = {"outcome", "error"};
	enav_promtext_sample_u64(p, "enav_capture_filter_writes_total", lw, 1,
				 atomic_load(&f->writes));
	enav_promtext_sample_u64(p, "enav_capture_filter_writes_total", ld, 1,
				 atomic_load(&f->deletes));
	enav_promtext_sample_u64(p, "enav_capture_filter_writes_total", lf, 1,
				 atomic_load(&f->map_full));
	enav_promtext_sample_u64(p, "enav_capture_filter_writes_total", le, 1,
				 atomic_load(&f->write_errors));
}
