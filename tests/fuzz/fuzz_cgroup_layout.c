/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the cgroup layout parsers.  The same bytes (exactly
 * size bytes, not NUL-terminated, so ASan flags any over-read) are parsed as
 * /proc/self/mountinfo and as /proc/PID/cgroup; the results must hold their
 * invariants, be deterministic, and feed the hybrid proof safely.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "discovery/cgroup_layout.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static size_t bounded_len(const char *s, size_t cap)
{
	const char *nul = memchr(s, '\0', cap);

	CHECK(nul != NULL); /* NUL-terminated inside its array */
	return (size_t)(nul - s);
}

/* Comma-separated, no empty token, in non-decreasing strcmp order. */
static void check_controllers(const char *list, size_t cap, bool allow_empty)
{
	size_t n = bounded_len(list, cap);

	CHECK(allow_empty || n > 0);
	if (n == 0)
		return;
	CHECK(list[0] != ',' && list[n - 1] != ',');
	CHECK(strstr(list, ",,") == NULL);
	const char *prev = list;
	size_t prev_len = strcspn(prev, ",");
	for (const char *p = list + prev_len; *p; p += 1 + strcspn(p + 1, ",")) {
		const char *cur = p + 1;
		size_t cur_len = strcspn(cur, ",");
		size_t common = prev_len < cur_len ? prev_len : cur_len;
		int c = memcmp(prev, cur, common);

		CHECK(c < 0 || (c == 0 && prev_len <= cur_len));
		prev = cur;
		prev_len = cur_len;
	}
}

static void check_mounts(const struct enav_cgroup_mounts *m)
{
	bool v2 = bounded_len(m->v2_mount, sizeof(m->v2_mount)) > 0;

	CHECK(m->n_v1 <= ENAV_CGROUP_MAX_V1);
	for (unsigned i = 0; i < m->n_v1; i++) {
		check_controllers(m->v1[i].controllers, sizeof(m->v1[i].controllers), false);
		bounded_len(m->v1[i].mount, sizeof(m->v1[i].mount));
		/* Each hierarchy once. */
		for (unsigned j = 0; j < i; j++)
			CHECK(strcmp(m->v1[i].controllers, m->v1[j].controllers) != 0);
	}
	bool v1 = m->n_v1 > 0 || m->v1_truncated;
	CHECK(m->layout == (v2 && v1 ? ENAV_CGROUP_HYBRID
			    : v2     ? ENAV_CGROUP_V2
			    : v1     ? ENAV_CGROUP_V1
				     : ENAV_CGROUP_NONE));
}

static void check_proc(const struct enav_proc_cgroups *pc)
{
	size_t v2 = bounded_len(pc->v2, sizeof(pc->v2));

	CHECK(pc->has_v2 ? v2 > 0 && pc->v2[0] == '/' : v2 == 0);
	CHECK(pc->n_v1 <= ENAV_CGROUP_MAX_V1);
	for (unsigned i = 0; i < pc->n_v1; i++) {
		check_controllers(pc->v1[i].controllers, sizeof(pc->v1[i].controllers), true);
		CHECK(bounded_len(pc->v1[i].path, sizeof(pc->v1[i].path)) > 0);
		CHECK(pc->v1[i].path[0] == '/');
	}
}

/* A directory "exists" by a hash of its path: both answers get exercised. */
static bool fuzz_dir_exists(void *ctx, const char *abs)
{
	uint32_t h = 2166136261u;

	for (const char *p = abs; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	return (h & 3) != 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct enav_cgroup_mounts m, m2;
	static struct enav_proc_cgroups pc, pc2;
	const char *text = (const char *)data;

	memset(&m, 0x41, sizeof(m));
	int rm = enav_cgroup_parse_mountinfo(text, size, &m);
	CHECK(rm == 0 || rm == -1);
	if (rm == 0)
		check_mounts(&m);
	memset(&m2, 0x5a, sizeof(m2));
	CHECK(enav_cgroup_parse_mountinfo(text, size, &m2) == rm);
	if (rm == 0)
		CHECK(memcmp(&m, &m2, sizeof(m)) == 0);

	memset(&pc, 0x41, sizeof(pc));
	int rp = enav_cgroup_parse_proc(text, size, &pc);
	CHECK(rp == 0 || rp == -1);
	if (rp == 0)
		check_proc(&pc);
	memset(&pc2, 0x5a, sizeof(pc2));
	CHECK(enav_cgroup_parse_proc(text, size, &pc2) == rp);
	if (rp == 0)
		CHECK(memcmp(&pc, &pc2, sizeof(pc)) == 0);

	if (rm != 0)
		return 0;
	/* Prove the member's own cgroup2 path (or the root) against these mounts. */
	const char *which = NULL;
	const char *path = rp == 0 && pc.has_v2 ? pc.v2 : "/";
	enum enav_hybrid_result r =
	    enav_hybrid_prove(&m, path, fuzz_dir_exists, NULL, &pc, rp == 0 ? 1 : 0, &which);
	CHECK((unsigned)r < ENAV_HYBRID__COUNT);
	CHECK(which != NULL);
	CHECK(strcmp(enav_hybrid_result_name(r), "unknown") != 0);
	if (r == ENAV_HYBRID_PROVEN || r == ENAV_HYBRID_TOO_MANY_HIERARCHIES) {
		CHECK(which[0] == '\0');
	} else {
		bool named = false;

		for (unsigned i = 0; i < m.n_v1 && !named; i++)
			named = which == m.v1[i].controllers;
		CHECK(named);
	}
	if (m.v1_truncated)
		CHECK(r == ENAV_HYBRID_TOO_MANY_HIERARCHIES);
	/* A proven path: every member sits at it in every hierarchy. */
	if (r == ENAV_HYBRID_PROVEN && rp == 0)
		for (unsigned h = 0; h < m.n_v1; h++) {
			bool found = false;

			/* The first line naming the hierarchy is the one that counts. */
			for (unsigned k = 0; k < pc.n_v1 && !found; k++)
				if (strcmp(pc.v1[k].controllers, m.v1[h].controllers) == 0) {
					found = true;
					CHECK(strcmp(pc.v1[k].path, path) == 0);
				}
			CHECK(found);
		}
	return 0;
}
