/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decoder for raw process, security and profiler task events (include/enav/abi.h).
 * Pure and bounded: it trusts nothing in the bytes, so it is fuzzed directly.
 */
#ifndef ENAV_RUNTIME_EVENT_DECODE_H
#define ENAV_RUNTIME_EVENT_DECODE_H

#include <stdbool.h>
#include <stddef.h>

#include "enav/abi.h"

enum enav_decode_status {
	ENAV_DECODE_OK = 0,
	ENAV_DECODE_SHORT,	 /* fewer bytes than the header or fixed part */
	ENAV_DECODE_BAD_VERSION, /* abi_version mismatch: kernel and user built apart */
	ENAV_DECODE_BAD_SIZE,	 /* header size disagrees with what arrived */
	ENAV_DECODE_BAD_LENGTH,	 /* a length field exceeds its array */
	ENAV_DECODE_UNKNOWN_TYPE,
	ENAV_DECODE__COUNT,
};

/* enav_task_info, checked and with its strings terminated. */
struct enav_decoded_task {
	__u32 uid, gid, ppid;
	__u64 start_boot_ns;
	char comm[ENAV_COMM_LEN + 1];
	__u16 exe_len; /* 0 when the kernel could not resolve it */
	char exe[ENAV_EXE_PATH_MAX + 1];
};

struct enav_decoded_event {
	enum enav_event_type type;
	/* Copies, so the transport buffer can be released right away. */
	struct enav_event_header hdr;
	union {
		struct {
			__u32 ppid, uid, gid, old_tid;
			__u64 start_boot_ns;
			char comm[ENAV_COMM_LEN + 1];
			__u16 flags;
			__u16 filename_len;
			char filename[ENAV_FILENAME_MAX + 1];
			__u16 exe_len; /* 0 when the kernel could not resolve it */
			char exe[ENAV_EXE_PATH_MAX + 1];
			__u16 argv_len;
			const char *argv; /* points into the raw buffer, argv_len bytes */
		} exec;
		struct {
			__u32 ppid, exit_code;
			__u64 start_boot_ns;
			char comm[ENAV_COMM_LEN + 1];
		} exit;
		struct {
			__u32 uid, euid, suid, fsuid, gid, egid, syscall;
			__u64 cap_effective, start_boot_ns;
			char comm[ENAV_COMM_LEN + 1];
		} cred;
		struct {
			__u64 dev, ino;
			__u32 watch_id, open_flags;
			struct enav_decoded_task task; /* the opener */
		} file_open;
		struct {
			__u32 cmd, object_kind, object_id;
			__s32 ret;
			struct enav_decoded_task task; /* the caller */
		} bpf_access;
		struct {
			__u16 exec_gen;
			char comm[ENAV_COMM_LEN + 1];
		} profile_task; /* hdr.pid is the sampled process */
	};
};

enum enav_decode_status enav_decode_event(const void *data, size_t size,
					  struct enav_decoded_event *out);
const char *enav_decode_status_name(enum enav_decode_status s);
/* The x86_64 syscall numbers bpf/process/exec.bpf.c reports credential changes for. */
bool enav_cred_syscall_hooked(__u32 nr);

#endif
