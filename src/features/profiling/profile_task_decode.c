/* SPDX-License-Identifier: Apache-2.0 */
#include "features/profiling/profile_task_decode.h"

#include <string.h>

enum enav_decode_status enav_profile_task_decode(const void *data, size_t size, void *out_)
{
	struct enav_profile_announce *out = out_;
	enum enav_decode_status st = enav_decode_header(data, size, &out->hdr);
	if (st != ENAV_DECODE_OK)
		return st;
	if (out->hdr.type != ENAV_EVENT_PROFILE_TASK)
		return ENAV_DECODE_UNKNOWN_TYPE;
	/* Exactly its size, as bpf/profiling/profile.bpf.c emits it: a shorter
	 * claim would have us read fields past the event, a longer one is not
	 * ours. */
	if (out->hdr.size != sizeof(struct enav_profile_task_event))
		return ENAV_DECODE_BAD_SIZE;
	struct enav_profile_task_event e;
	memcpy(&e, data, sizeof(e));
	out->type = ENAV_EVENT_PROFILE_TASK;
	out->profile_task.exec_gen = e.exec_gen;
	enav_decode_comm(out->profile_task.comm, e.comm);
	return ENAV_DECODE_OK;
}
