/* SPDX-License-Identifier: Apache-2.0 */
#include "discovery/capture_filter.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/bpf_refusal.h"

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
	pthread_mutex_init(&f->lock, NULL);
	f->shadow_ok = enav_u64map_init(&f->shadow, capacity) == 0;
	f->control_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "enav_capture_ct", sizeof(__u32),
				       sizeof(__u32), 1, NULL);
	if (f->control_fd < 0) {
		int e = errno;
		snprintf(err, errlen, "capture filter: cannot create the control map: %s%s",
			 strerror(e), enav_bpf_memlock_hint(e));
		return -e;
	}
	f->verdicts_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "enav_cgroup_ver", sizeof(__u64),
					sizeof(__u8), capacity, NULL);
	if (f->verdicts_fd < 0) {
		int e = errno;
		snprintf(err, errlen,
			 "capture filter: cannot create the verdict map (%u entries): %s%s",
			 capacity, strerror(e), enav_bpf_memlock_hint(e));
		return -e;
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
	if (f->shadow_ok)
		enav_u64map_destroy(&f->shadow);
	f->shadow_ok = false;
}

int enav_capture_filter_set_mode(struct enav_capture_filter *f, enum enav_capture_mode mode)
{
	__u32 key = 0, val = mode;
	pthread_mutex_lock(&f->lock);
	int rc = bpf_map_update_elem(f->control_fd, &key, &val, BPF_ANY) != 0 ? -errno : 0;
	if (!rc)
		f->mode = mode;
	pthread_mutex_unlock(&f->lock);
	return rc;
}

static void shadow_put(struct enav_capture_filter *f, uint64_t id, uint8_t val)
{
	if (f->shadow_ok)
		enav_u64map_put(&f->shadow, id, val);
}

int enav_capture_filter_set(struct enav_capture_filter *f, uint64_t cgroup_id, bool capture)
{
	__u64 key = cgroup_id;
	__u8 val = capture ? 1 : 0;
	int rc = 0;
	pthread_mutex_lock(&f->lock);
	/* BPF_EXIST first: an overwrite must not count against a full map. */
	if (bpf_map_update_elem(f->verdicts_fd, &key, &val, BPF_EXIST) == 0) {
		atomic_fetch_add(&f->writes, 1);
		shadow_put(f, key, val);
	} else if (bpf_map_update_elem(f->verdicts_fd, &key, &val, BPF_NOEXIST) == 0) {
		atomic_fetch_add(&f->writes, 1);
		atomic_fetch_add(&f->entries, 1);
		shadow_put(f, key, val);
	} else if (errno == E2BIG || errno == ENOSPC) {
		atomic_fetch_add(&f->map_full, 1);
		rc = -ENOSPC;
	} else {
		atomic_fetch_add(&f->write_errors, 1);
		rc = -errno;
	}
	pthread_mutex_unlock(&f->lock);
	return rc;
}

void enav_capture_filter_clear(struct enav_capture_filter *f, uint64_t cgroup_id)
{
	__u64 key = cgroup_id;
	pthread_mutex_lock(&f->lock);
	if (bpf_map_delete_elem(f->verdicts_fd, &key) == 0) {
		atomic_fetch_add(&f->deletes, 1);
		atomic_fetch_sub(&f->entries, 1);
	}
	if (f->shadow_ok)
		enav_u64map_del(&f->shadow, key);
	pthread_mutex_unlock(&f->lock);
}

uint32_t enav_capture_filter_verify(struct enav_capture_filter *f)
{
	if (!f->shadow_ok || f->verdicts_fd < 0)
		return 0;
	uint32_t restored = 0;
	pthread_mutex_lock(&f->lock);
	__u32 zero = 0, mode = 0;
	if (bpf_map_lookup_elem(f->control_fd, &zero, &mode) != 0 || mode != (__u32)f->mode) {
		mode = f->mode;
		if (bpf_map_update_elem(f->control_fd, &zero, &mode, BPF_ANY) == 0)
			restored++;
	}
	/* Entries in the kernel the agent did not write, or wrote differently.
	 * Walk first, repair after (deleting while walking restarts the walk),
	 * in passes of a bounded batch until a pass finds the batch not full. */
	__u64 key, next, wrong[64];
	size_t n_wrong;
	uint32_t passes = 0;
	do {
		n_wrong = 0;
		bool more = bpf_map_get_next_key(f->verdicts_fd, NULL, &next) == 0;
		for (uint32_t guard = 0; more && guard <= f->capacity; guard++) {
			key = next;
			__u8 kval;
			uint64_t want;
			if (bpf_map_lookup_elem(f->verdicts_fd, &key, &kval) == 0 &&
			    (!enav_u64map_get(&f->shadow, key, &want) || want != kval) &&
			    n_wrong < sizeof(wrong) / sizeof(wrong[0]))
				wrong[n_wrong++] = key;
			more = bpf_map_get_next_key(f->verdicts_fd, &key, &next) == 0;
		}
		for (size_t i = 0; i < n_wrong; i++) {
			uint64_t want;
			if (enav_u64map_get(&f->shadow, wrong[i], &want)) {
				__u8 v = (__u8)want;
				bpf_map_update_elem(f->verdicts_fd, &wrong[i], &v, BPF_ANY);
			} else {
				bpf_map_delete_elem(f->verdicts_fd, &wrong[i]);
			}
			restored++;
		}
	} while (n_wrong == sizeof(wrong) / sizeof(wrong[0]) &&
		 ++passes <= f->capacity / (sizeof(wrong) / sizeof(wrong[0])));
	/* Entries the agent wrote that someone removed. */
	for (uint32_t i = 0; i <= f->shadow.mask; i++) {
		const struct enav_u64map_slot *sl = &f->shadow.slots[i];
		__u8 kval;
		if (!sl->used || bpf_map_lookup_elem(f->verdicts_fd, &sl->key, &kval) == 0)
			continue;
		__u64 k = sl->key;
		__u8 v = (__u8)sl->value;
		if (bpf_map_update_elem(f->verdicts_fd, &k, &v, BPF_ANY) == 0)
			restored++;
	}
	pthread_mutex_unlock(&f->lock);
	atomic_fetch_add(&f->restored, restored);
	return restored;
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
	enav_promtext_single_u64(p, "enav_capture_filter_restored_total", "counter",
				 "Filter entries (or the control word) another process changed and "
				 "the agent put back.",
				 atomic_load(&f->restored));
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
