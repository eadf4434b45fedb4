/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the profiler's task announcement (bpf/profiling/profile.bpf.c ->
 * src/features/profiling/profile_source.c): the bytes go through enav_bpf_source_decode()
 * on a source that accepts only ENAV_EVENT_PROFILE_TASK, exactly as the
 * profile source's event callback does.
 *
 * The input is an exact-size heap copy, so ASan flags a read past what the
 * transport delivered.  The verdict is compared with an independent reading
 * of the ABI (accepted iff the header says profile_task, our ABI version and
 * hdr.size is the struct's size, and that many bytes arrived), exactly one
 * counter moves per event, and an accepted event's fields are the raw bytes.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "enav/abi.h"
#include "runtime/bpf_source.h"
#include "runtime/event_decode.h"
#include "features/profiling/profile_task_decode.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define POFF(f) ENAV_OFFSETOF(struct enav_profile_task_event, f)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Only the fields enav_bpf_source_decode() touches are used: zeroed, static
 * (the struct is large), reset per input. */
static struct enav_bpf_source src;
static struct enav_profile_announce ev;

static uint64_t counted(void)
{
	uint64_t n = 0;

	for (int i = 0; i < ENAV_BPF_MAX_EVENT_TYPES; i++)
		n += atomic_load(&src.events[i]);
	for (int i = 0; i < ENAV_DECODE__COUNT; i++)
		n += atomic_load(&src.decode_errors[i]);
	return n;
}

/* The ABI read by hand, not through the decoder. */
static bool expect_ok(const uint8_t *b, size_t size)
{
	uint16_t type, version;
	uint32_t hsize;

	if (size < sizeof(struct enav_event_header))
		return false;
	memcpy(&type, b, sizeof(type));
	memcpy(&version, b + 2, sizeof(version));
	memcpy(&hsize, b + 4, sizeof(hsize));
	return type == ENAV_EVENT_PROFILE_TASK && version == ENAV_ABI_VERSION &&
	       hsize == sizeof(struct enav_profile_task_event) && hsize <= size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);

	CHECK(buf != NULL);
	if (size)
		memcpy(buf, data, size);
	memset(&src, 0, sizeof(src));
	src.event_types = 1u << ENAV_EVENT_PROFILE_TASK;
	memset(&ev, 0xa5, sizeof(ev));

	bool ok = enav_bpf_source_decode(&src, enav_profile_task_decode, buf, size, &ev);

	CHECK(ok == expect_ok(buf, size));
	CHECK(counted() == 1);
	if (ok) {
		uint32_t pid;
		uint16_t gen;
		size_t n = strnlen(ev.profile_task.comm, sizeof(ev.profile_task.comm));

		CHECK(atomic_load(&src.events[ENAV_EVENT_PROFILE_TASK]) == 1);
		CHECK(ev.type == ENAV_EVENT_PROFILE_TASK);
		CHECK(memcmp(&ev.hdr, buf, sizeof(ev.hdr)) == 0);
		memcpy(&pid, buf + ENAV_OFFSETOF(struct enav_event_header, pid), sizeof(pid));
		CHECK(ev.hdr.pid == pid);
		memcpy(&gen, buf + POFF(exec_gen), sizeof(gen));
		CHECK(ev.profile_task.exec_gen == gen);
		/* comm: terminated inside its array, a prefix of the raw field that
		 * stops at its first NUL (the kernel's is not always terminated). */
		CHECK(n <= ENAV_COMM_LEN);
		CHECK(memcmp(ev.profile_task.comm, buf + POFF(comm), n) == 0);
		CHECK(n == ENAV_COMM_LEN || buf[POFF(comm) + n] == '\0');
	} else {
		/* Counted as a decode error, under a name the metrics know. */
		CHECK(atomic_load(&src.events[ENAV_EVENT_PROFILE_TASK]) == 0);
		for (int i = 0; i < ENAV_DECODE__COUNT; i++)
			if (atomic_load(&src.decode_errors[i]))
				CHECK(i != ENAV_DECODE_OK);
	}
	free(buf);
	return 0;
}
