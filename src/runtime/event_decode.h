/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every decoder of raw events (include/enav/abi.h) shares: the status it
 * answers, the header's checks and the task block two features carry.  Each
 * feature decodes its own events in its own folder (process_decode.h,
 * security_decode.h, profile_task_decode.h, net_decode.h), pure and bounded:
 * they trust nothing in the bytes, so they are fuzzed directly.
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

/* A feature's decoder: data of size bytes into its own struct at out. */
typedef enum enav_decode_status (*enav_event_decode_fn)(const void *data, size_t size, void *out);

/* The header of size bytes at data, copied to hdr: its version, and a size
 * no larger than what arrived (perf pads samples to 8 bytes, so size may
 * exceed hdr->size, never the reverse). */
enum enav_decode_status enav_decode_header(const void *data, size_t size,
					   struct enav_event_header *hdr);

/* enav_task_info, checked and with its strings terminated. */
struct enav_decoded_task {
	__u32 uid, gid, ppid;
	__u64 start_boot_ns;
	char comm[ENAV_COMM_LEN + 1];
	__u16 exe_len; /* 0 when the kernel could not resolve it */
	char exe[ENAV_EXE_PATH_MAX + 1];
};

/* False when a length exceeds its array. */
bool enav_decode_task(const struct enav_task_info *in, struct enav_decoded_task *out);
/* comm from the kernel is NUL-padded but not guaranteed terminated. */
void enav_decode_comm(char dst[ENAV_COMM_LEN + 1], const char src[ENAV_COMM_LEN]);

const char *enav_decode_status_name(enum enav_decode_status s);

#endif
