/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the cgroup path parser.  The input is the path itself
 * (exactly size bytes, not NUL-terminated, so ASan flags any over-read).
 * Checks the output invariants and that every reported identity is literally
 * present in the input: the parser must never invent one.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/cgroup_path.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static bool lhex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static size_t bounded_len(const char *s, size_t cap)
{
	const char *nul = memchr(s, '\0', cap);

	CHECK(nul != NULL); /* NUL-terminated inside its array */
	return (size_t)(nul - s);
}

static void check_container(const struct enav_cgroup_identity *id, const uint8_t *data, size_t size)
{
	size_t n = bounded_len(id->container_id, sizeof(id->container_id));

	CHECK(n == 0 || n == ENAV_CONTAINER_ID_LEN);
	CHECK((n == 0) == (id->runtime == ENAV_RUNTIME_NONE));
	CHECK(id->runtime >= ENAV_RUNTIME_NONE && id->runtime <= ENAV_RUNTIME_UNKNOWN);
	for (size_t i = 0; i < n; i++)
		CHECK(lhex(id->container_id[i]));
	if (n)
		CHECK(memmem(data, size, id->container_id, n) != NULL);
}

static void check_pod(const struct enav_cgroup_identity *id, const uint8_t *data, size_t size)
{
	size_t n = bounded_len(id->pod_uid, sizeof(id->pod_uid));

	CHECK(n == 0 || n == ENAV_POD_UID_LEN);
	CHECK((n == 0) == (id->qos == ENAV_QOS_NONE));
	CHECK(id->qos >= ENAV_QOS_NONE && id->qos <= ENAV_QOS_BESTEFFORT);
	if (!n)
		return;

	char alt[ENAV_POD_UID_LEN + 1];

	for (size_t i = 0; i < n; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		CHECK(dash ? id->pod_uid[i] == '-' : lhex(id->pod_uid[i]));
		alt[i] = dash ? '_' : id->pod_uid[i];
	}
	alt[n] = '\0';
	/* Present as written (cgroupfs) or in the systemd slice spelling. */
	CHECK(memmem(data, size, id->pod_uid, n) != NULL || memmem(data, size, alt, n) != NULL);
}

static void check_unit(const struct enav_cgroup_identity *id, const uint8_t *data, size_t size)
{
	size_t n = bounded_len(id->systemd_unit, sizeof(id->systemd_unit));

	if (!n)
		return;
	CHECK(id->runtime == ENAV_RUNTIME_NONE);
	CHECK(strchr(id->systemd_unit, '/') == NULL);
	CHECK((n > 8 && strcmp(id->systemd_unit + n - 8, ".service") == 0) ||
	      (n > 6 && strcmp(id->systemd_unit + n - 6, ".scope") == 0));
	/* A whole component of the input. */
	char comp[sizeof(id->systemd_unit) + 1];

	comp[0] = '/';
	memcpy(comp + 1, id->systemd_unit, n);
	CHECK(memmem(data, size, comp, n + 1) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct enav_cgroup_identity a, b;

	memset(&a, 0x41, sizeof(a));
	enav_cgroup_identity_parse((const char *)data, size, &a);
	check_container(&a, data, size);
	check_pod(&a, data, size);
	check_unit(&a, data, size);

	/* Deterministic and fully overwritten, padding included. */
	memset(&b, 0x5a, sizeof(b));
	enav_cgroup_identity_parse((const char *)data, size, &b);
	CHECK(memcmp(&a, &b, sizeof(a)) == 0);

	static const struct enav_cgroup_identity zero;

	if (size == 0 || data[0] != '/' || memchr(data, '\0', size) ||
	    memmem(data, size, "/../", 4) || memmem(data, size, "//", 2))
		CHECK(memcmp(&a, &zero, sizeof(a)) == 0);
	return 0;
}
