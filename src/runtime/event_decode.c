/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/event_decode.h"

#include <string.h>

void enav_decode_comm(char dst[ENAV_COMM_LEN + 1], const char src[ENAV_COMM_LEN])
{
	size_t n = strnlen(src, ENAV_COMM_LEN);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

enum enav_decode_status enav_decode_header(const void *data, size_t size,
					   struct enav_event_header *hdr)
{
	if (size < sizeof(*hdr))
		return ENAV_DECODE_SHORT;
	memcpy(hdr, data, sizeof(*hdr));
	if (hdr->abi_version != ENAV_ABI_VERSION)
		return ENAV_DECODE_BAD_VERSION;
	if (hdr->size > size || hdr->size < sizeof(*hdr))
		return ENAV_DECODE_BAD_SIZE;
	return ENAV_DECODE_OK;
}

bool enav_decode_task(const struct enav_task_info *in, struct enav_decoded_task *out)
{
	if (in->exe_len > ENAV_EXE_PATH_MAX - 1)
		return false;
	out->uid = in->uid;
	out->gid = in->gid;
	out->ppid = in->ppid;
	out->start_boot_ns = in->start_boot_ns;
	enav_decode_comm(out->comm, in->comm);
	size_t n = strnlen(in->exe, in->exe_len);
	memcpy(out->exe, in->exe, n);
	out->exe[n] = '\0';
	out->exe_len = (__u16)n;
	return true;
}

const char *enav_decode_status_name(enum enav_decode_status s)
{
	static const char *const names[ENAV_DECODE__COUNT] = {
	    "ok", "short", "bad_version", "bad_size", "bad_length", "unknown_type",
	};
	return s < ENAV_DECODE__COUNT ? names[s] : "unknown";
}
