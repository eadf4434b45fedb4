/* SPDX-License-Identifier: Apache-2.0 */
#include "features/security/security_decode.h"

#include <string.h>

enum enav_decode_status enav_security_decode(const void *data, size_t size, void *out_)
{
	struct enav_security_event *out = out_;
	enum enav_decode_status st = enav_decode_header(data, size, &out->hdr);
	if (st != ENAV_DECODE_OK)
		return st;
	switch (out->hdr.type) {
	case ENAV_EVENT_FILE_OPEN: {
		if (out->hdr.size != sizeof(struct enav_file_open_event))
			return ENAV_DECODE_BAD_SIZE;
		struct enav_file_open_event e;
		memcpy(&e, data, sizeof(e));
		if (!enav_decode_task(&e.task, &out->file_open.task))
			return ENAV_DECODE_BAD_LENGTH;
		out->type = ENAV_EVENT_FILE_OPEN;
		out->file_open.dev = e.dev;
		out->file_open.ino = e.ino;
		out->file_open.watch_id = e.watch_id;
		out->file_open.open_flags = e.open_flags;
		return ENAV_DECODE_OK;
	}
	case ENAV_EVENT_BPF_ACCESS: {
		if (out->hdr.size != sizeof(struct enav_bpf_access_event))
			return ENAV_DECODE_BAD_SIZE;
		struct enav_bpf_access_event e;
		memcpy(&e, data, sizeof(e));
		if (e.object_kind < ENAV_BPF_OBJ_MAP || e.object_kind > ENAV_BPF_OBJ_LINK ||
		    !enav_decode_task(&e.task, &out->bpf_access.task))
			return ENAV_DECODE_BAD_LENGTH;
		out->type = ENAV_EVENT_BPF_ACCESS;
		out->bpf_access.cmd = e.cmd;
		out->bpf_access.object_kind = e.object_kind;
		out->bpf_access.object_id = e.object_id;
		out->bpf_access.ret = e.ret;
		return ENAV_DECODE_OK;
	}
	default:
		return ENAV_DECODE_UNKNOWN_TYPE;
	}
}
