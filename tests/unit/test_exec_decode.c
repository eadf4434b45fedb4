/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the raw event decoders: each feature's (process_decode.c,
 * security_decode.c, profile_task_decode.c) and the header and task checks
 * they share (src/runtime/event_decode.c).  Events
 * are built byte by byte at the offsets include/enav/abi.h pins down, not
 * through the structs, so a layout change is caught here too.  Every decode
 * reads from an exact-size heap copy so ASan catches any over-read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "enav/abi.h"
#include "runtime/bpf_source.h"
#include "runtime/event_decode.h"
#include "features/process/process_decode.h"
#include "features/profiling/profile_task_decode.h"
#include "features/security/security_decode.h"

/* Whichever feature's event the bytes were, decoded by that feature. */
struct decoded_event {
	enum enav_event_type type;
	struct enav_event_header hdr;
	struct enav_process_event p;
	struct enav_security_event s;
	struct enav_profile_announce t;
};

/* As a source would: the decoder of the feature the header's type belongs
 * to (a source only ever calls its own, so another type is unknown). */
static enum enav_decode_status decode_event(const void *data, size_t size,
					    struct decoded_event *out)
{
	struct enav_event_header h;
	enum enav_decode_status st = enav_decode_header(data, size, &h);
	if (st != ENAV_DECODE_OK)
		return st;
	switch (h.type) {
	case ENAV_EVENT_PROCESS_EXEC:
	case ENAV_EVENT_PROCESS_EXIT:
	case ENAV_EVENT_CRED_CHANGE:
		st = enav_process_decode(data, size, &out->p);
		out->type = out->p.type;
		out->hdr = out->p.hdr;
		return st;
	case ENAV_EVENT_FILE_OPEN:
	case ENAV_EVENT_BPF_ACCESS:
		st = enav_security_decode(data, size, &out->s);
		out->type = out->s.type;
		out->hdr = out->s.hdr;
		return st;
	case ENAV_EVENT_PROFILE_TASK:
		st = enav_profile_task_decode(data, size, &out->t);
		out->type = out->t.type;
		out->hdr = out->t.hdr;
		return st;
	default:
		/* Every feature's decoder refuses a type not its own. */
		assert_int_equal(enav_process_decode(data, size, &out->p),
				 ENAV_DECODE_UNKNOWN_TYPE);
		assert_int_equal(enav_security_decode(data, size, &out->s),
				 ENAV_DECODE_UNKNOWN_TYPE);
		assert_int_equal(enav_profile_task_decode(data, size, &out->t),
				 ENAV_DECODE_UNKNOWN_TYPE);
		return ENAV_DECODE_UNKNOWN_TYPE;
	}
}

/*
 * Byte offsets of every field.  They are taken from the ABI header so a
 * deliberate layout change (with its ENAV_ABI_VERSION bump) only needs
 * test_abi_layout below updated; that test pins the literal values.
 */
#define XOFF(f) ENAV_OFFSETOF(struct enav_exec_event, f)
#define EOFF(f) ENAV_OFFSETOF(struct enav_exit_event, f)
enum {
	OFF_TYPE = 0,
	OFF_VERSION = 2,
	OFF_SIZE = 4,
	OFF_BOOT = 8,
	OFF_CGROUP = 16,
	OFF_PID = 24,
	OFF_TID = 28,
	HDR_SIZE = 32,
	/* exec */
	OFF_X_PPID = XOFF(ppid),
	OFF_X_UID = XOFF(uid),
	OFF_X_GID = XOFF(gid),
	OFF_X_OLD_TID = XOFF(old_tid),
	OFF_X_START = XOFF(start_boot_ns),
	OFF_X_COMM = XOFF(comm),
	OFF_X_FILENAME_LEN = XOFF(filename_len),
	OFF_X_ARGV_LEN = XOFF(argv_len),
	OFF_X_FLAGS = XOFF(flags),
	OFF_X_EXE_LEN = XOFF(exe_len),
	OFF_X_FILENAME = XOFF(filename),
	OFF_X_EXE = XOFF(exe),
	OFF_X_ARGV = XOFF(argv),
	/* exit */
	OFF_E_PPID = EOFF(ppid),
	OFF_E_CODE = EOFF(exit_code),
	OFF_E_START = EOFF(start_boot_ns),
	OFF_E_COMM = EOFF(comm),
	EXIT_SIZE = sizeof(struct enav_exit_event),
};

static void put16(uint8_t *b, size_t off, uint16_t v)
{
	memcpy(b + off, &v, sizeof(v));
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, sizeof(v));
}

static void put64(uint8_t *b, size_t off, uint64_t v)
{
	memcpy(b + off, &v, sizeof(v));
}

/* A generous scratch area for building events; decoding uses exact copies. */
#define SCRATCH (OFF_X_ARGV + ENAV_ARGV_MAX + 64)

static void put_header(uint8_t *b, uint16_t type, uint32_t size)
{
	put16(b, OFF_TYPE, type);
	put16(b, OFF_VERSION, ENAV_ABI_VERSION);
	put32(b, OFF_SIZE, size);
	put64(b, OFF_BOOT, 0x1122334455667788ull);
	put64(b, OFF_CGROUP, 0xdeadbeefcafef00dull);
	put32(b, OFF_PID, 4242);
	put32(b, OFF_TID, 4243);
}

static const char k_filename[] = "/usr/bin/some-tool";
static const char k_exe[] = "/usr/lib/some-tool/bin/some-tool.real";

/* Fill b (SCRATCH bytes) with an exec event carrying argv_len argv bytes; returns hdr.size. */
static size_t build_exec(uint8_t *b, uint16_t argv_len)
{
	memset(b, 0, SCRATCH);
	put_header(b, ENAV_EVENT_PROCESS_EXEC, OFF_X_ARGV + argv_len);
	put32(b, OFF_X_PPID, 1);
	put32(b, OFF_X_UID, 1000);
	put32(b, OFF_X_GID, 1001);
	put32(b, OFF_X_OLD_TID, 4244);
	put64(b, OFF_X_START, 987654321012345ull);
	memcpy(b + OFF_X_COMM, "some-tool", 9);
	put16(b, OFF_X_FILENAME_LEN, (uint16_t)strlen(k_filename));
	put16(b, OFF_X_ARGV_LEN, argv_len);
	put16(b, OFF_X_FLAGS, ENAV_EXEC_ARGV_TRUNCATED | ENAV_EXEC_FILENAME_FAULT);
	put16(b, OFF_X_EXE_LEN, (uint16_t)strlen(k_exe));
	memcpy(b + OFF_X_FILENAME, k_filename, strlen(k_filename));
	memcpy(b + OFF_X_EXE, k_exe, strlen(k_exe));
	/* argv: "a0\0a1\0..." pattern, bytes derived from the index */
	for (size_t i = 0; i < argv_len; i++)
		b[OFF_X_ARGV + i] = (i % 7 == 6) ? '\0' : (uint8_t)('a' + i % 26);
	return OFF_X_ARGV + (size_t)argv_len;
}

static size_t build_exit(uint8_t *b, uint32_t code)
{
	memset(b, 0, SCRATCH);
	put_header(b, ENAV_EVENT_PROCESS_EXIT, EXIT_SIZE);
	put32(b, OFF_E_PPID, 77);
	put32(b, OFF_E_CODE, code);
	put64(b, OFF_E_START, 123456789ull);
	memcpy(b + OFF_E_COMM, "worker", 6);
	return EXIT_SIZE;
}

/*
 * Decode the first len bytes of src from an exact-size heap copy.  On OK the
 * copy is kept in *keep (argv points into it); the caller frees it.
 */
static enum enav_decode_status decode_copy(const uint8_t *src, size_t len,
					   struct decoded_event *out, uint8_t **keep)
{
	uint8_t *copy = malloc(len ? len : 1);

	assert_non_null(copy);
	memcpy(copy, src, len);
	memset(out, 0xa5, sizeof(*out)); /* garbage: every field must be written */
	enum enav_decode_status st = decode_event(copy, len, out);
	if (keep)
		*keep = copy;
	else
		free(copy);
	return st;
}

static void check_header(const struct decoded_event *ev, uint16_t type, uint32_t size)
{
	assert_int_equal(ev->hdr.type, type);
	assert_int_equal(ev->hdr.abi_version, ENAV_ABI_VERSION);
	assert_int_equal(ev->hdr.size, size);
	assert_int_equal(ev->hdr.boot_time_ns, 0x1122334455667788ull);
	assert_int_equal(ev->hdr.cgroup_id, 0xdeadbeefcafef00dull);
	assert_int_equal(ev->hdr.pid, 4242);
	assert_int_equal(ev->hdr.tid, 4243);
}

static void check_exec(const uint8_t *b, size_t len, uint16_t argv_len)
{
	struct decoded_event ev;
	uint8_t *copy;

	assert_int_equal(decode_copy(b, len, &ev, &copy), ENAV_DECODE_OK);
	assert_int_equal(ev.type, ENAV_EVENT_PROCESS_EXEC);
	check_header(&ev, ENAV_EVENT_PROCESS_EXEC, OFF_X_ARGV + argv_len);
	assert_int_equal(ev.p.exec.ppid, 1);
	assert_int_equal(ev.p.exec.uid, 1000);
	assert_int_equal(ev.p.exec.gid, 1001);
	assert_int_equal(ev.p.exec.old_tid, 4244);
	assert_int_equal(ev.p.exec.start_boot_ns, 987654321012345ull);
	assert_string_equal(ev.p.exec.comm, "some-tool");
	assert_int_equal(ev.p.exec.flags, ENAV_EXEC_ARGV_TRUNCATED | ENAV_EXEC_FILENAME_FAULT);
	assert_int_equal(ev.p.exec.filename_len, strlen(k_filename));
	assert_string_equal(ev.p.exec.filename, k_filename);
	assert_int_equal(ev.p.exec.exe_len, strlen(k_exe));
	assert_string_equal(ev.p.exec.exe, k_exe);
	assert_int_equal(ev.p.exec.argv_len, argv_len);
	/* argv is not copied: it points at the argv bytes of the input. */
	assert_ptr_equal(ev.p.exec.argv, (const char *)copy + OFF_X_ARGV);
	if (argv_len)
		assert_memory_equal(ev.p.exec.argv, b + OFF_X_ARGV, argv_len);
	free(copy);
}

/* The wire layout, byte for byte (ABI version 2). */
static void test_abi_layout(void **state)
{
	assert_int_equal(ENAV_ABI_VERSION, 9);
	/* v8: an L7 record may carry a trailer (ENAV_L7_CARRIED); offsets unchanged. */
	/* v6: watched-file opens and other processes' bpf() calls. */
	assert_int_equal(sizeof(struct enav_file_open_event), 96 + ENAV_EXE_PATH_MAX);
	assert_int_equal(sizeof(struct enav_bpf_access_event), 88 + ENAV_EXE_PATH_MAX);
	/* v5: payload events carry the TLS library in the last byte of a
	 * 15-byte comm. */
	assert_int_equal(ENAV_OFFSETOF(struct enav_l7_event, comm), 96);
	assert_int_equal(ENAV_OFFSETOF(struct enav_l7_event, tls_library), 111);
	assert_int_equal(ENAV_OFFSETOF(struct enav_l7_event, payload), 112);
	assert_int_equal(sizeof(struct enav_event_header), 32);
	assert_int_equal(ENAV_OFFSETOF(struct enav_event_header, type), OFF_TYPE);
	assert_int_equal(ENAV_OFFSETOF(struct enav_event_header, abi_version), OFF_VERSION);
	assert_int_equal(ENAV_OFFSETOF(struct enav_event_header, size), OFF_SIZE);
	assert_int_equal(ENAV_OFFSETOF(struct enav_event_header, boot_time_ns), OFF_BOOT);
	assert_int_equal(ENAV_OFFSETOF(struct enav_event_header, cgroup_id), OFF_CGROUP);
	assert_int_equal(ENAV_OFFSETOF(struct enav_event_header, pid), OFF_PID);
	assert_int_equal(ENAV_OFFSETOF(struct enav_event_header, tid), OFF_TID);
	assert_int_equal(OFF_X_PPID, 32);
	assert_int_equal(OFF_X_UID, 36);
	assert_int_equal(OFF_X_GID, 40);
	assert_int_equal(OFF_X_OLD_TID, 44);
	assert_int_equal(OFF_X_START, 48);
	assert_int_equal(OFF_X_COMM, 56);
	assert_int_equal(OFF_X_FILENAME_LEN, 72);
	assert_int_equal(OFF_X_ARGV_LEN, 74);
	assert_int_equal(OFF_X_FLAGS, 76);
	assert_int_equal(OFF_X_EXE_LEN, 78);
	assert_int_equal(OFF_X_FILENAME, 80);
	assert_int_equal(OFF_X_EXE, 80 + ENAV_FILENAME_MAX);
	assert_int_equal(OFF_X_ARGV, 80 + ENAV_FILENAME_MAX + ENAV_EXE_PATH_MAX);
	assert_int_equal(OFF_X_ARGV, 1360);
	assert_int_equal(ENAV_EXEC_EVENT_FIXED_SIZE, OFF_X_ARGV);
	assert_int_equal(OFF_E_PPID, 32);
	assert_int_equal(OFF_E_CODE, 36);
	assert_int_equal(OFF_E_START, 40);
	assert_int_equal(OFF_E_COMM, 48);
	assert_int_equal(EXIT_SIZE, 64);
	assert_int_equal(ENAV_COMM_LEN, 16);
	assert_int_equal(ENAV_FILENAME_MAX, 256);
	assert_int_equal(ENAV_EXE_PATH_MAX, 1024);
	assert_int_equal(ENAV_ARGV_MAX, 4096);
}

static void test_exec_valid_argv_lengths(void **state)
{
	static const uint16_t lens[] = {0, 1, 2, 7, 100, 255, 256, 4095, ENAV_ARGV_MAX};
	uint8_t *b = malloc(SCRATCH);

	assert_non_null(b);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t n = build_exec(b, lens[i]);

		assert_int_equal(n, OFF_X_ARGV + lens[i]);
		check_exec(b, n, lens[i]);
	}
	free(b);
}

static void test_exec_matches_struct_layout(void **state)
{
	/* The same event built through the struct decodes identically. */
	struct enav_exec_event *e = calloc(1, sizeof(*e));
	struct decoded_event ev;

	assert_non_null(e);
	e->hdr = (struct enav_event_header){.type = ENAV_EVENT_PROCESS_EXEC,
					    .abi_version = ENAV_ABI_VERSION,
					    .size = ENAV_EXEC_EVENT_FIXED_SIZE + 3,
					    .pid = 9,
					    .tid = 10};
	e->uid = 5;
	e->filename_len = 2;
	memcpy(e->filename, "/x", 2);
	e->argv_len = 3;
	memcpy(e->argv, "a\0b", 3);
	assert_int_equal(decode_copy((const uint8_t *)e, ENAV_EXEC_EVENT_FIXED_SIZE + 3, &ev, NULL),
			 ENAV_DECODE_OK);
	assert_int_equal(ev.hdr.pid, 9);
	assert_int_equal(ev.hdr.tid, 10);
	assert_int_equal(ev.p.exec.uid, 5);
	assert_string_equal(ev.p.exec.filename, "/x");
	assert_int_equal(ev.p.exec.argv_len, 3);
	free(e);
}

static void test_exit_valid(void **state)
{
	static const uint32_t codes[] = {0, 1 << 8, 255 << 8, 9, 11 | 0x80, 0xffffffffu};
	uint8_t b[SCRATCH];

	for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		struct decoded_event ev;
		size_t n = build_exit(b, codes[i]);

		assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_OK);
		assert_int_equal(ev.type, ENAV_EVENT_PROCESS_EXIT);
		check_header(&ev, ENAV_EVENT_PROCESS_EXIT, EXIT_SIZE);
		assert_int_equal(ev.p.exit.ppid, 77);
		assert_int_equal(ev.p.exit.exit_code, codes[i]);
		assert_int_equal(ev.p.exit.start_boot_ns, 123456789ull);
		assert_string_equal(ev.p.exit.comm, "worker");
	}
}

/* perf pads samples to 8 bytes: more bytes than hdr.size arrive, never fewer. */
static void test_perf_padding_accepted(void **state)
{
	uint8_t *b = malloc(SCRATCH);

	assert_non_null(b);
	for (size_t pad = 1; pad <= 12; pad++) {
		struct decoded_event ev;
		size_t n = build_exec(b, 5);

		memset(b + n, 0xee, pad); /* the padding is junk, not zeros */
		check_exec(b, n + pad, 5);

		n = build_exit(b, 3 << 8);
		memset(b + n, 0xee, pad);
		assert_int_equal(decode_copy(b, n + pad, &ev, NULL), ENAV_DECODE_OK);
		assert_int_equal(ev.hdr.size, EXIT_SIZE);
		assert_int_equal(ev.p.exit.exit_code, 3 << 8);
	}
	/* Padding after a maximal argv too. */
	size_t n = build_exec(b, ENAV_ARGV_MAX);
	check_exec(b, n + 4, ENAV_ARGV_MAX);
	free(b);
}

static void test_short_buffer_every_length(void **state)
{
	uint8_t b[SCRATCH];
	struct decoded_event ev;

	build_exec(b, 0);
	for (size_t len = 0; len < HDR_SIZE; len++)
		assert_int_equal(decode_copy(b, len, &ev, NULL), ENAV_DECODE_SHORT);
	build_exit(b, 0);
	for (size_t len = 0; len < HDR_SIZE; len++)
		assert_int_equal(decode_copy(b, len, &ev, NULL), ENAV_DECODE_SHORT);
}

static void test_truncated_delivery(void **state)
{
	/* Fewer bytes arrived than the header claims: every cut of a real event. */
	uint8_t *b = malloc(SCRATCH);
	struct decoded_event ev;

	assert_non_null(b);
	size_t n = build_exec(b, 40);
	for (size_t len = HDR_SIZE; len < n; len++)
		assert_int_equal(decode_copy(b, len, &ev, NULL), ENAV_DECODE_BAD_SIZE);
	n = build_exit(b, 0);
	for (size_t len = HDR_SIZE; len < n; len++)
		assert_int_equal(decode_copy(b, len, &ev, NULL), ENAV_DECODE_BAD_SIZE);
	free(b);
}

static void test_bad_version(void **state)
{
	static const uint16_t versions[] = {0, ENAV_ABI_VERSION + 1, 0xffff};
	uint8_t *b = malloc(SCRATCH);
	struct decoded_event ev;

	assert_non_null(b);
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		size_t n = build_exec(b, 8);

		put16(b, OFF_VERSION, versions[i]);
		assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_BAD_VERSION);
		n = build_exit(b, 0);
		put16(b, OFF_VERSION, versions[i]);
		assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_BAD_VERSION);
		/* Checked before anything else in the header: a header-only buffer. */
		assert_int_equal(decode_copy(b, HDR_SIZE, &ev, NULL), ENAV_DECODE_BAD_VERSION);
	}
	free(b);
}

static void test_header_size_out_of_range(void **state)
{
	uint8_t *b = malloc(SCRATCH);
	struct decoded_event ev;

	assert_non_null(b);
	/* hdr.size larger than what arrived. */
	size_t n = build_exec(b, 8);
	put32(b, OFF_SIZE, (uint32_t)n + 1);
	assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_BAD_SIZE);
	put32(b, OFF_SIZE, 0xffffffffu);
	assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_BAD_SIZE);
	n = build_exit(b, 0);
	put32(b, OFF_SIZE, EXIT_SIZE + 8);
	assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_BAD_SIZE);

	/* hdr.size smaller than the header itself, for every small value. */
	for (uint32_t hs = 0; hs < HDR_SIZE; hs++) {
		n = build_exec(b, 8);
		put32(b, OFF_SIZE, hs);
		assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_BAD_SIZE);
		n = build_exit(b, 0);
		put32(b, OFF_SIZE, hs);
		assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_BAD_SIZE);
	}
	free(b);
}

static void test_exec_shorter_than_fixed_part(void **state)
{
	uint8_t *b = malloc(SCRATCH);
	struct decoded_event ev;

	assert_non_null(b);
	/* A header-valid exec whose hdr.size stops inside the fixed part. */
	for (uint32_t hs = HDR_SIZE; hs < OFF_X_ARGV; hs += 7) {
		build_exec(b, 0);
		put32(b, OFF_SIZE, hs);
		assert_int_equal(decode_copy(b, hs, &ev, NULL), ENAV_DECODE_SHORT);
		assert_int_equal(decode_copy(b, OFF_X_ARGV, &ev, NULL), ENAV_DECODE_SHORT);
	}
	build_exec(b, 0);
	put32(b, OFF_SIZE, OFF_X_ARGV - 1);
	assert_int_equal(decode_copy(b, OFF_X_ARGV - 1, &ev, NULL), ENAV_DECODE_SHORT);
	free(b);
}

static void test_exec_size_disagrees_with_argv_len(void **state)
{
	uint8_t *b = malloc(SCRATCH);
	struct decoded_event ev;

	assert_non_null(b);
	static const uint16_t lens[] = {0, 10, ENAV_ARGV_MAX};
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t n = build_exec(b, lens[i]);

		/* One byte more in hdr.size than fixed + argv_len (the byte is there). */
		put32(b, OFF_SIZE, (uint32_t)n + 1);
		assert_int_equal(decode_copy(b, n + 1, &ev, NULL), ENAV_DECODE_BAD_SIZE);
		/* argv_len claims one byte more than hdr.size carries. */
		build_exec(b, lens[i]);
		if (lens[i] < ENAV_ARGV_MAX) {
			put16(b, OFF_X_ARGV_LEN, lens[i] + 1);
			assert_int_equal(decode_copy(b, n + 8, &ev, NULL), ENAV_DECODE_BAD_SIZE);
		}
		/* argv_len claims one byte fewer than hdr.size. */
		if (lens[i] > 0) {
			build_exec(b, lens[i]);
			put16(b, OFF_X_ARGV_LEN, lens[i] - 1);
			assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_BAD_SIZE);
		}
	}
	free(b);
}

static void test_filename_len_bounds(void **state)
{
	uint8_t *b = malloc(SCRATCH);
	struct decoded_event ev;
	uint8_t *copy;

	assert_non_null(b);
	/* 255 is the most the kernel reports (256-byte buffer incl. NUL): accepted in full. */
	size_t n = build_exec(b, 4);
	memset(b + OFF_X_FILENAME, 'f', ENAV_FILENAME_MAX);
	put16(b, OFF_X_FILENAME_LEN, ENAV_FILENAME_MAX - 1);
	assert_int_equal(decode_copy(b, n, &ev, &copy), ENAV_DECODE_OK);
	assert_int_equal(ev.p.exec.filename_len, ENAV_FILENAME_MAX - 1);
	assert_int_equal(strlen(ev.p.exec.filename), ENAV_FILENAME_MAX - 1);
	assert_int_equal(ev.p.exec.filename[0], 'f');
	free(copy);

	static const uint16_t bad[] = {ENAV_FILENAME_MAX, ENAV_FILENAME_MAX + 1, 0x8000, 0xffff};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put16(b, OFF_X_FILENAME_LEN, bad[i]);
		assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_BAD_LENGTH);
	}
	free(b);
}

static void test_argv_len_too_big(void **state)
{
	/* hdr.size and the delivered bytes agree with argv_len: only the cap is wrong. */
	static const uint16_t bad[] = {ENAV_ARGV_MAX + 1, ENAV_ARGV_MAX + 8, 0xffff};
	size_t big = OFF_X_ARGV + 0xffff + 8;
	uint8_t *b = calloc(1, big);
	struct decoded_event ev;

	assert_non_null(b);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		build_exec(b, 0);
		put32(b, OFF_SIZE, OFF_X_ARGV + bad[i]);
		put16(b, OFF_X_ARGV_LEN, bad[i]);
		assert_int_equal(decode_copy(b, OFF_X_ARGV + bad[i], &ev, NULL),
				 ENAV_DECODE_BAD_LENGTH);
	}
	free(b);
}

static void test_exit_wrong_size(void **state)
{
	uint8_t b[SCRATCH];
	struct decoded_event ev;

	static const uint32_t sizes[] = {HDR_SIZE,	EXIT_SIZE - 8, EXIT_SIZE - 1,
					 EXIT_SIZE + 1, EXIT_SIZE + 8, 200};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		build_exit(b, 0);
		put32(b, OFF_SIZE, sizes[i]);
		/* Enough bytes delivered for the claimed size (and for a full exit event). */
		size_t len = sizes[i] > EXIT_SIZE ? sizes[i] : EXIT_SIZE;
		assert_int_equal(decode_copy(b, len, &ev, NULL), ENAV_DECODE_BAD_SIZE);
	}
}

static void test_unknown_type(void **state)
{
	static const uint16_t types[] = {0, 3, 100, 0xffff};
	uint8_t b[SCRATCH];
	struct decoded_event ev;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		memset(b, 0, sizeof(b));
		put_header(b, types[i], HDR_SIZE);
		assert_int_equal(decode_copy(b, HDR_SIZE, &ev, NULL), ENAV_DECODE_UNKNOWN_TYPE);
		put_header(b, types[i], EXIT_SIZE);
		assert_int_equal(decode_copy(b, EXIT_SIZE, &ev, NULL), ENAV_DECODE_UNKNOWN_TYPE);
	}
}

static void test_comm_without_nul(void **state)
{
	uint8_t *b = malloc(SCRATCH);
	struct decoded_event ev;
	uint8_t *copy;

	assert_non_null(b);
	size_t n = build_exec(b, 0);
	memcpy(b + OFF_X_COMM, "0123456789abcdef", ENAV_COMM_LEN);
	/* The byte after comm (filename_len low byte) is non-zero: must not leak in. */
	assert_int_not_equal(b[OFF_X_COMM + ENAV_COMM_LEN], 0);
	assert_int_equal(decode_copy(b, n, &ev, &copy), ENAV_DECODE_OK);
	assert_int_equal(strlen(ev.p.exec.comm), ENAV_COMM_LEN);
	assert_string_equal(ev.p.exec.comm, "0123456789abcdef");
	free(copy);

	n = build_exit(b, 0);
	memcpy(b + OFF_E_COMM, "ZYXWVUTSRQPONMLK", ENAV_COMM_LEN);
	assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_OK);
	assert_int_equal(strlen(ev.p.exit.comm), ENAV_COMM_LEN);
	assert_string_equal(ev.p.exit.comm, "ZYXWVUTSRQPONMLK");

	/* A NUL inside comm cuts it there; what follows is ignored. */
	memcpy(b + OFF_E_COMM, "ab\0cdefghijklmno", ENAV_COMM_LEN);
	assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_OK);
	assert_string_equal(ev.p.exit.comm, "ab");
	/* Empty comm. */
	memset(b + OFF_E_COMM, 0, ENAV_COMM_LEN);
	assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_OK);
	assert_string_equal(ev.p.exit.comm, "");
	free(b);
}

static void test_filename_embedded_nul(void **state)
{
	uint8_t *b = malloc(SCRATCH);
	struct decoded_event ev;
	uint8_t *copy;

	assert_non_null(b);
	size_t n = build_exec(b, 3);
	memcpy(b + OFF_X_FILENAME, "/bin\0/evil", 10);
	put16(b, OFF_X_FILENAME_LEN, 10);
	assert_int_equal(decode_copy(b, n, &ev, &copy), ENAV_DECODE_OK);
	assert_string_equal(ev.p.exec.filename, "/bin");
	assert_int_equal(ev.p.exec.filename_len, 4);
	free(copy);

	/* filename_len shorter than the string: cut at filename_len, terminated. */
	n = build_exec(b, 3);
	put16(b, OFF_X_FILENAME_LEN, 4);
	assert_int_equal(decode_copy(b, n, &ev, &copy), ENAV_DECODE_OK);
	assert_string_equal(ev.p.exec.filename, "/usr");
	assert_int_equal(ev.p.exec.filename_len, 4);
	free(copy);

	/* filename_len 0 (e.g. FILENAME_FAULT): empty. */
	put16(b, OFF_X_FILENAME_LEN, 0);
	assert_int_equal(decode_copy(b, n, &ev, &copy), ENAV_DECODE_OK);
	assert_string_equal(ev.p.exec.filename, "");
	assert_int_equal(ev.p.exec.filename_len, 0);
	free(copy);

	/* Leading NUL: empty even with a large filename_len. */
	b[OFF_X_FILENAME] = '\0';
	put16(b, OFF_X_FILENAME_LEN, 200);
	assert_int_equal(decode_copy(b, n, &ev, &copy), ENAV_DECODE_OK);
	assert_string_equal(ev.p.exec.filename, "");
	assert_int_equal(ev.p.exec.filename_len, 0);
	free(copy);
	free(b);
}

static void test_exe_len_bounds_and_nul(void **state)
{
	uint8_t *b = malloc(SCRATCH);
	struct decoded_event ev;
	uint8_t *copy;

	assert_non_null(b);
	/* The longest accepted: ENAV_EXE_PATH_MAX - 1 bytes, no NUL inside. */
	size_t n = build_exec(b, 2);
	b[OFF_X_EXE] = '/';
	memset(b + OFF_X_EXE + 1, 'x', ENAV_EXE_PATH_MAX - 1);
	put16(b, OFF_X_EXE_LEN, ENAV_EXE_PATH_MAX - 1);
	assert_int_equal(decode_copy(b, n, &ev, &copy), ENAV_DECODE_OK);
	assert_int_equal(ev.p.exec.exe_len, ENAV_EXE_PATH_MAX - 1);
	assert_int_equal(strlen(ev.p.exec.exe), ENAV_EXE_PATH_MAX - 1);
	free(copy);

	static const uint16_t bad[] = {ENAV_EXE_PATH_MAX, ENAV_EXE_PATH_MAX + 1, 0xffff};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put16(b, OFF_X_EXE_LEN, bad[i]);
		assert_int_equal(decode_copy(b, n, &ev, NULL), ENAV_DECODE_BAD_LENGTH);
	}

	/* Unresolved: exe_len 0 gives "". */
	n = build_exec(b, 2);
	put16(b, OFF_X_EXE_LEN, 0);
	put16(b, OFF_X_FLAGS, ENAV_EXEC_EXE_UNRESOLVED);
	assert_int_equal(decode_copy(b, n, &ev, &copy), ENAV_DECODE_OK);
	assert_int_equal(ev.p.exec.exe_len, 0);
	assert_string_equal(ev.p.exec.exe, "");
	assert_int_equal(ev.p.exec.flags, ENAV_EXEC_EXE_UNRESOLVED);
	free(copy);

	/* Embedded NUL before exe_len: cut there, length follows. */
	n = build_exec(b, 2);
	b[OFF_X_EXE + 4] = '\0';
	assert_int_equal(decode_copy(b, n, &ev, &copy), ENAV_DECODE_OK);
	assert_int_equal(ev.p.exec.exe_len, 4);
	assert_string_equal(ev.p.exec.exe, "/usr");
	/* and the filename next to it is unaffected */
	assert_string_equal(ev.p.exec.filename, k_filename);
	free(copy);
	free(b);
}

static void fill_header(struct enav_event_header *h, uint16_t type, uint32_t size)
{
	h->type = type;
	h->abi_version = ENAV_ABI_VERSION;
	h->size = size;
	h->pid = 4242;
}

/* A watched-file open decodes field by field; an exe length past its array
 * or a wrong size is refused. */
static void test_file_open(void **state)
{
	(void)state;
	struct enav_file_open_event *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	fill_header(&e->hdr, ENAV_EVENT_FILE_OPEN, sizeof(*e));
	e->dev = 0x800001;
	e->ino = 99;
	e->watch_id = 3;
	e->open_flags = 02; /* O_RDWR */
	e->task.uid = 1000;
	e->task.gid = 1001;
	e->task.ppid = 7;
	e->task.start_boot_ns = 5;
	memcpy(e->task.comm, "cat", 3);
	memcpy(e->task.exe, "/usr/bin/cat", 12);
	e->task.exe_len = 12;
	struct decoded_event ev;
	assert_int_equal(decode_event(e, sizeof(*e), &ev), ENAV_DECODE_OK);
	assert_int_equal(ev.type, ENAV_EVENT_FILE_OPEN);
	assert_int_equal(ev.s.file_open.dev, 0x800001);
	assert_int_equal(ev.s.file_open.ino, 99);
	assert_int_equal(ev.s.file_open.watch_id, 3);
	assert_int_equal(ev.s.file_open.task.uid, 1000);
	assert_int_equal(ev.s.file_open.task.gid, 1001);
	assert_int_equal(ev.s.file_open.task.ppid, 7);
	assert_string_equal(ev.s.file_open.task.comm, "cat");
	assert_string_equal(ev.s.file_open.task.exe, "/usr/bin/cat");
	e->task.exe_len = ENAV_EXE_PATH_MAX;
	assert_int_equal(decode_event(e, sizeof(*e), &ev), ENAV_DECODE_BAD_LENGTH);
	e->task.exe_len = 12;
	e->hdr.size = sizeof(*e) - 8;
	assert_int_equal(decode_event(e, sizeof(*e), &ev), ENAV_DECODE_BAD_SIZE);
	free(e);
}

/* A bpf() access decodes; an unknown object kind is refused. */
static void test_bpf_access(void **state)
{
	(void)state;
	struct enav_bpf_access_event *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	fill_header(&e->hdr, ENAV_EVENT_BPF_ACCESS, sizeof(*e));
	e->cmd = 2; /* BPF_MAP_UPDATE_ELEM */
	e->object_kind = ENAV_BPF_OBJ_MAP;
	e->object_id = 77;
	e->ret = -1;
	memcpy(e->task.comm, "bpftool", 7);
	memcpy(e->task.exe, "/usr/sbin/bpftool", 17);
	e->task.exe_len = 17;
	struct decoded_event ev;
	assert_int_equal(decode_event(e, sizeof(*e), &ev), ENAV_DECODE_OK);
	assert_int_equal(ev.s.bpf_access.cmd, 2);
	assert_int_equal(ev.s.bpf_access.object_id, 77);
	assert_int_equal(ev.s.bpf_access.ret, -1);
	assert_string_equal(ev.s.bpf_access.task.exe, "/usr/sbin/bpftool");
	e->object_kind = 4;
	assert_int_equal(decode_event(e, sizeof(*e), &ev), ENAV_DECODE_BAD_LENGTH);
	free(e);
}

/*
 * The profiler's task announcement, through the call the profile source
 * makes (enav_bpf_source_decode): hdr.size must be the event's own size and
 * no more than arrived.  A short or oversized claim is refused as bad_size
 * and counted as a decode error, never as an event.
 */
static void test_profile_task(void **state)
{
	(void)state;
	/* Room for a claim past the struct; decoding reads exact-size copies. */
	uint8_t raw[sizeof(struct enav_profile_task_event) + 64] = {0};
	struct enav_profile_task_event *e = (struct enav_profile_task_event *)raw;
	static struct enav_bpf_source src;
	struct decoded_event ev;
	const size_t full = sizeof(*e);

	memset(&src, 0, sizeof(src));
	src.event_types = 1u << ENAV_EVENT_PROFILE_TASK;
	fill_header(&e->hdr, ENAV_EVENT_PROFILE_TASK, full);
	memcpy(e->comm, "postgres", 8);
	e->exec_gen = 3;
	assert_int_equal(decode_copy(raw, full, &ev, NULL), ENAV_DECODE_OK);
	assert_int_equal(ev.type, ENAV_EVENT_PROFILE_TASK);
	assert_int_equal(ev.hdr.pid, 4242);
	assert_int_equal(ev.t.profile_task.exec_gen, 3);
	assert_string_equal(ev.t.profile_task.comm, "postgres");
	/* perf pads samples: more bytes than claimed is fine. */
	assert_int_equal(decode_copy(raw, full + 8, &ev, NULL), ENAV_DECODE_OK);

	struct {
		uint32_t hdr_size;
		size_t delivered;
	} bad[] = {
	    {0, full},		      /* below the header */
	    {HDR_SIZE, full},	      /* the header alone */
	    {full - 8, full},	      /* short: fields past the claim */
	    {full + 8, full + 8},     /* oversized, though that much arrived */
	    {full + 64, full + 64},   /* oversized */
	    {full, full - 1},	      /* claims more than arrived */
	    {0xffffffffu, full + 64}, /* absurd */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t *copy = malloc(bad[i].delivered);

		assert_non_null(copy);
		e->hdr.size = bad[i].hdr_size;
		memcpy(copy, raw, bad[i].delivered);
		assert_int_equal(decode_event(copy, bad[i].delivered, &ev), ENAV_DECODE_BAD_SIZE);
		assert_false(enav_bpf_source_decode(&src, enav_profile_task_decode, copy,
						    bad[i].delivered, &ev.t));
		assert_int_equal(atomic_load(&src.decode_errors[ENAV_DECODE_BAD_SIZE]), i + 1);
		free(copy);
	}
	assert_int_equal(atomic_load(&src.events[ENAV_EVENT_PROFILE_TASK]), 0);
	/* The valid one is counted as an event. */
	e->hdr.size = full;
	assert_true(enav_bpf_source_decode(&src, enav_profile_task_decode, raw, full, &ev.t));
	assert_int_equal(atomic_load(&src.events[ENAV_EVENT_PROFILE_TASK]), 1);
	assert_int_equal(atomic_load(&src.decode_errors[ENAV_DECODE_BAD_SIZE]),
			 sizeof(bad) / sizeof(bad[0]));
}

static void test_status_names(void **state)
{
	assert_string_equal(enav_decode_status_name(ENAV_DECODE_OK), "ok");
	assert_string_equal(enav_decode_status_name(ENAV_DECODE_SHORT), "short");
	assert_string_equal(enav_decode_status_name(ENAV_DECODE_BAD_VERSION), "bad_version");
	assert_string_equal(enav_decode_status_name(ENAV_DECODE_BAD_SIZE), "bad_size");
	assert_string_equal(enav_decode_status_name(ENAV_DECODE_BAD_LENGTH), "bad_length");
	assert_string_equal(enav_decode_status_name(ENAV_DECODE_UNKNOWN_TYPE), "unknown_type");
	assert_string_equal(enav_decode_status_name(ENAV_DECODE__COUNT), "unknown");
	assert_string_equal(enav_decode_status_name((enum enav_decode_status)1000), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_abi_layout),
	    cmocka_unit_test(test_exec_valid_argv_lengths),
	    cmocka_unit_test(test_exec_matches_struct_layout),
	    cmocka_unit_test(test_exit_valid),
	    cmocka_unit_test(test_perf_padding_accepted),
	    cmocka_unit_test(test_short_buffer_every_length),
	    cmocka_unit_test(test_truncated_delivery),
	    cmocka_unit_test(test_bad_version),
	    cmocka_unit_test(test_header_size_out_of_range),
	    cmocka_unit_test(test_exec_shorter_than_fixed_part),
	    cmocka_unit_test(test_exec_size_disagrees_with_argv_len),
	    cmocka_unit_test(test_filename_len_bounds),
	    cmocka_unit_test(test_argv_len_too_big),
	    cmocka_unit_test(test_exit_wrong_size),
	    cmocka_unit_test(test_unknown_type),
	    cmocka_unit_test(test_comm_without_nul),
	    cmocka_unit_test(test_filename_embedded_nul),
	    cmocka_unit_test(test_exe_len_bounds_and_nul),
	    cmocka_unit_test(test_file_open),
	    cmocka_unit_test(test_bpf_access),
	    cmocka_unit_test(test_profile_task),
	    cmocka_unit_test(test_status_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
