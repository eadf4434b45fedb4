/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the raw event decoders of the process, security and
 * profiling features (process_decode.c, security_decode.c,
 * profile_task_decode.c), each fed every input.
 *
 * The input is copied into a heap buffer of exactly its size, so ASan flags
 * any read past what the transport delivered.  When the decoder accepts an
 * event, every invariant a consumer relies on is checked against the raw
 * bytes, and a violation aborts.  The types are disjoint: at most one
 * decoder accepts an input.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "enav/abi.h"
#include "runtime/event_decode.h"
#include "features/process/process_decode.h"
#include "features/profiling/profile_task_decode.h"
#include "features/security/security_decode.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define XOFF(f) ENAV_OFFSETOF(struct enav_exec_event, f)
#define EOFF(f) ENAV_OFFSETOF(struct enav_exit_event, f)

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint16_t rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A decoded comm: terminated within its array, and the raw bytes up to it. */
static void check_comm(const char *comm, const uint8_t *raw)
{
	size_t n = strnlen(comm, ENAV_COMM_LEN + 1);

	CHECK(n <= ENAV_COMM_LEN);
	CHECK(memcmp(comm, raw, n) == 0);
	CHECK(n == ENAV_COMM_LEN || raw[n] == '\0');
}

/* A decoded bounded string: NUL-terminated, strlen == len, a prefix of raw
 * that stops at the first NUL or at the raw length field. */
static void check_str(const char *s, size_t s_cap, uint16_t len, const uint8_t *raw,
		      uint16_t raw_len)
{
	CHECK(len < s_cap);
	CHECK(s[len] == '\0');
	CHECK(strlen(s) == len);
	CHECK(len <= raw_len);
	CHECK(memcmp(s, raw, len) == 0);
	CHECK(len == raw_len || raw[len] == '\0');
}

static void check_exec(const struct enav_process_event *ev, const uint8_t *buf, size_t size)
{
	const size_t fixed = ENAV_EXEC_EVENT_FIXED_SIZE;

	CHECK(ev->hdr.size >= fixed && ev->hdr.size <= size);
	CHECK(ev->exec.argv_len <= ENAV_ARGV_MAX);
	CHECK(ev->hdr.size == fixed + ev->exec.argv_len);
	/* argv points into the input and stays inside it. */
	CHECK((const uint8_t *)ev->exec.argv == buf + fixed);
	CHECK((const uint8_t *)ev->exec.argv + ev->exec.argv_len <= buf + size);
	CHECK(ev->exec.argv_len == rd16(buf + XOFF(argv_len)));

	check_comm(ev->exec.comm, buf + XOFF(comm));
	check_str(ev->exec.filename, sizeof(ev->exec.filename), ev->exec.filename_len,
		  buf + XOFF(filename), rd16(buf + XOFF(filename_len)));
	CHECK(ev->exec.filename_len <= ENAV_FILENAME_MAX - 1);
	check_str(ev->exec.exe, sizeof(ev->exec.exe), ev->exec.exe_len, buf + XOFF(exe),
		  rd16(buf + XOFF(exe_len)));
	CHECK(ev->exec.exe_len <= ENAV_EXE_PATH_MAX - 1);

	CHECK(ev->exec.ppid == rd32(buf + XOFF(ppid)));
	CHECK(ev->exec.uid == rd32(buf + XOFF(uid)));
	CHECK(ev->exec.gid == rd32(buf + XOFF(gid)));
	CHECK(ev->exec.old_tid == rd32(buf + XOFF(old_tid)));
	CHECK(ev->exec.start_boot_ns == rd64(buf + XOFF(start_boot_ns)));
	CHECK(ev->exec.flags == rd16(buf + XOFF(flags)));

	/* Touch every argv byte so ASan sees the whole range. */
	volatile uint8_t sink = 0;
	for (size_t i = 0; i < ev->exec.argv_len; i++)
		sink ^= (uint8_t)ev->exec.argv[i];
	(void)sink;
}

static void check_exit(const struct enav_process_event *ev, const uint8_t *buf, size_t size)
{
	CHECK(ev->hdr.size == sizeof(struct enav_exit_event));
	CHECK(ev->hdr.size <= size);
	check_comm(ev->exit.comm, buf + EOFF(comm));
	CHECK(ev->exit.ppid == rd32(buf + EOFF(ppid)));
	CHECK(ev->exit.exit_code == rd32(buf + EOFF(exit_code)));
	CHECK(ev->exit.start_boot_ns == rd64(buf + EOFF(start_boot_ns)));
}

/* What every accepted event of any feature satisfies. */
static void check_header(enum enav_event_type type, const struct enav_event_header *hdr,
			 const uint8_t *buf, size_t size)
{
	CHECK(size >= sizeof(struct enav_event_header));
	CHECK(memcmp(hdr, buf, sizeof(*hdr)) == 0);
	CHECK(hdr->abi_version == ENAV_ABI_VERSION);
	CHECK(type == hdr->type);
}

static void check_status(enum enav_decode_status st, size_t size)
{
	CHECK(st >= ENAV_DECODE_OK && st < ENAV_DECODE__COUNT);
	CHECK(enav_decode_status_name(st) != NULL);
	CHECK(strcmp(enav_decode_status_name(st), "unknown") != 0);
	if (size < sizeof(struct enav_event_header))
		CHECK(st == ENAV_DECODE_SHORT);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Exact-size copy: one byte past the input is a redzone. */
	uint8_t *buf = malloc(size ? size : 1);
	struct enav_process_event p;
	struct enav_security_event sec;
	struct enav_profile_announce t;

	CHECK(buf);
	if (size)
		memcpy(buf, data, size);
	memset(&p, 0xa5, sizeof(p));
	memset(&sec, 0xa5, sizeof(sec));
	memset(&t, 0xa5, sizeof(t));

	enum enav_decode_status sp = enav_process_decode(buf, size, &p);
	enum enav_decode_status ss = enav_security_decode(buf, size, &sec);
	enum enav_decode_status st = enav_profile_task_decode(buf, size, &t);
	check_status(sp, size);
	check_status(ss, size);
	check_status(st, size);
	CHECK((sp == ENAV_DECODE_OK) + (ss == ENAV_DECODE_OK) + (st == ENAV_DECODE_OK) <= 1);

	if (sp == ENAV_DECODE_OK) {
		check_header(p.type, &p.hdr, buf, size);
		if (p.type == ENAV_EVENT_PROCESS_EXEC) {
			check_exec(&p, buf, size);
		} else if (p.type == ENAV_EVENT_PROCESS_EXIT) {
			check_exit(&p, buf, size);
		} else if (p.type == ENAV_EVENT_CRED_CHANGE) {
			/* Exactly its size, one of the hooked calls, comm terminated. */
			CHECK(p.hdr.size == sizeof(struct enav_cred_event));
			CHECK(enav_cred_syscall_hooked(p.cred.syscall));
			CHECK(memchr(p.cred.comm, '\0', sizeof(p.cred.comm)) != NULL);
		} else {
			abort(); /* OK for a type not the process feature's */
		}
	}
	if (ss == ENAV_DECODE_OK) {
		check_header(sec.type, &sec.hdr, buf, size);
		if (sec.type == ENAV_EVENT_FILE_OPEN) {
			CHECK(sec.hdr.size == sizeof(struct enav_file_open_event));
			CHECK(sec.file_open.task.exe_len < ENAV_EXE_PATH_MAX);
			CHECK(strlen(sec.file_open.task.exe) == sec.file_open.task.exe_len);
			CHECK(memchr(sec.file_open.task.comm, '\0',
				     sizeof(sec.file_open.task.comm)) != NULL);
		} else if (sec.type == ENAV_EVENT_BPF_ACCESS) {
			CHECK(sec.hdr.size == sizeof(struct enav_bpf_access_event));
			CHECK(sec.bpf_access.object_kind >= ENAV_BPF_OBJ_MAP &&
			      sec.bpf_access.object_kind <= ENAV_BPF_OBJ_LINK);
			CHECK(memchr(sec.bpf_access.task.comm, '\0',
				     sizeof(sec.bpf_access.task.comm)) != NULL);
			CHECK(strlen(sec.bpf_access.task.exe) == sec.bpf_access.task.exe_len);
		} else {
			abort(); /* OK for a type not the security feature's */
		}
	}
	if (st == ENAV_DECODE_OK) {
		check_header(t.type, &t.hdr, buf, size);
		/* Exactly its size (tests/fuzz/fuzz_profile_event.c checks more). */
		CHECK(t.hdr.size == sizeof(struct enav_profile_task_event));
		check_comm(t.profile_task.comm,
			   buf + ENAV_OFFSETOF(struct enav_profile_task_event, comm));
	}

	/* Pure: the same bytes decode the same way. */
	struct enav_process_event p2;
	struct enav_security_event s2;
	struct enav_profile_announce t2;
	CHECK(enav_process_decode(buf, size, &p2) == sp);
	CHECK(enav_security_decode(buf, size, &s2) == ss);
	CHECK(enav_profile_task_decode(buf, size, &t2) == st);

	free(buf);
	return 0;
}
