/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Decoder of the security sources' events (a watched file opened,
 * bpf/security/file_open.bpf.c; a use of the agent's BPF objects,
 * bpf/security/self_guard.bpf.c; include/enav/abi.h).  Pure and bounded:
 * fuzzed directly (fuzz_exec_decode).
 */
#ifndef ENAV_FEATURES_SECURITY_SECURITY_DECODE_H
#define ENAV_FEATURES_SECURITY_SECURITY_DECODE_H

#include "runtime/event_decode.h"

struct enav_security_event {
	enum enav_event_type type;
	struct enav_event_header hdr;
	union {
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
	};
};

/* A file-open or BPF-access event; any other type is
 * ENAV_DECODE_UNKNOWN_TYPE.  out is struct enav_security_event. */
enum enav_decode_status enav_security_decode(const void *data, size_t size, void *out);

#endif
