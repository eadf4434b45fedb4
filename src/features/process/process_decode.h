/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decoder of the process events bpf/process/exec.bpf.c emits (exec, exit,
 * credential change; include/enav/abi.h).  Pure and bounded: it trusts
 * nothing in the bytes, so it is fuzzed directly (fuzz_exec_decode).
 */
#ifndef ENAV_FEATURES_PROCESS_PROCESS_DECODE_H
#define ENAV_FEATURES_PROCESS_PROCESS_DECODE_H

#include "runtime/event_decode.h"

struct enav_process_event {
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
	};
};

/* An exec, exit or credential-change event; any other type is
 * ENAV_DECODE_UNKNOWN_TYPE.  out is struct enav_process_event. */
enum enav_decode_status enav_process_decode(const void *data, size_t size, void *out);
/* The x86_64 syscall numbers bpf/process/exec.bpf.c reports credential changes for. */
bool enav_cred_syscall_hooked(__u32 nr);

#endif
