/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/event_decode.h"

#include <string.h>

/* comm from the kernel is NUL-padded but not guaranteed terminated. */
static void copy_comm(char dst[ENAV_COMM_LEN + 1], const char src[ENAV_COMM_LEN])
{
	size_t n = strnlen(src, ENAV_COMM_LEN);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

bool enav_cred_syscall_hooked(__u32 nr)
{
	/* setuid, setgid, setreuid, setregid, setresuid, setresgid, capset */
	return nr == 105 || nr == 106 || nr == 113 || nr == 114 || nr == 117 || nr == 119 ||
	       nr == 126;
}

/* False when a length exceeds its array. */
static bool decode_task(const struct enav_task_info *in, struct enav_decoded_task *out)
{
	if (in->exe_len > ENAV_EXE_PATH_MAX - 1)
		return false;
	out->uid = in->uid;
	out->gid = in->gid;
	out->ppid = in->ppid;
	out->start_boot_ns = in->start_boot_ns;
	copy_comm(out->comm, in->comm);
	size_t n = strnlen(in->exe, in->exe_len);
	memcpy(out->exe, in->exe, n);
	out->exe[n] = '\0';
	out->exe_len = (__u16)n;
	return true;
}

enum enav_decode_status enav_decode_event(const void *data, size_t size,
					  struct enav_decoded_event *out)
{
	if (size < sizeof(struct enav_event_header))
		return ENAV_DECODE_SHORT;
	memcpy(&out->hdr, data, sizeof(out->hdr));
	if (out->hdr.abi_version != ENAV_ABI_VERSION)
		return ENAV_DECODE_BAD_VERSION;
	/* perf pads samples to 8 bytes, so size may exceed hdr.size, never the reverse. */
	if (out->hdr.size > size || out->hdr.size < sizeof(struct enav_event_header))
		return ENAV_DECODE_BAD_SIZE;

	switch (out->hdr.type) {
	case ENAV_EVENT_PROCESS_EXEC: {
		if (out->hdr.size < ENAV_EXEC_EVENT_FIXED_SIZE)
			return ENAV_DECODE_SHORT;
		struct enav_exec_event e;
		memcpy(&e, data, ENAV_EXEC_EVENT_FIXED_SIZE);
		if (e.filename_len > ENAV_FILENAME_MAX - 1 || e.exe_len > ENAV_EXE_PATH_MAX - 1 ||
		    e.argv_len > ENAV_ARGV_MAX)
			return ENAV_DECODE_BAD_LENGTH;
		if (ENAV_EXEC_EVENT_FIXED_SIZE + (size_t)e.argv_len != out->hdr.size)
			return ENAV_DECODE_BAD_SIZE;
		out->type = ENAV_EVENT_PROCESS_EXEC;
		out->exec.ppid = e.ppid;
		out->exec.uid = e.uid;
		out->exec.gid = e.gid;
		out->exec.old_tid = e.old_tid;
		out->exec.start_boot_ns = e.start_boot_ns;
		copy_comm(out->exec.comm, e.comm);
		out->exec.flags = e.flags;
		/* The kernel's length stops at the first NUL; trust the smaller. */
		size_t fl = strnlen(e.filename, e.filename_len);
		memcpy(out->exec.filename, e.filename, fl);
		out->exec.filename[fl] = '\0';
		out->exec.filename_len = (__u16)fl;
		size_t xl = strnlen(e.exe, e.exe_len);
		memcpy(out->exec.exe, e.exe, xl);
		out->exec.exe[xl] = '\0';
		out->exec.exe_len = (__u16)xl;
		out->exec.argv_len = e.argv_len;
		out->exec.argv = (const char *)data + ENAV_EXEC_EVENT_FIXED_SIZE;
		return ENAV_DECODE_OK;
	}
	case ENAV_EVENT_PROCESS_EXIT: {
		if (out->hdr.size != sizeof(struct enav_exit_event))
			return ENAV_DECODE_BAD_SIZE;
		struct enav_exit_event e;
		memcpy(&e, data, sizeof(e));
		out->type = ENAV_EVENT_PROCESS_EXIT;
		out->exit.ppid = e.ppid;
		out->exit.exit_code = e.exit_code;
		out->exit.start_boot_ns = e.start_boot_ns;
		copy_comm(out->exit.comm, e.comm);
		return ENAV_DECODE_OK;
	}
	case ENAV_EVENT_CRED_CHANGE: {
		if (out->hdr.size != sizeof(struct enav_cred_event))
			return ENAV_DECODE_BAD_SIZE;
		struct enav_cred_event e;
		memcpy(&e, data, sizeof(e));
		/* Only the calls the kernel programs hook. */
		if (!enav_cred_syscall_hooked(e.syscall))
			return ENAV_DECODE_BAD_LENGTH;
		out->type = ENAV_EVENT_CRED_CHANGE;
		out->cred.uid = e.uid;
		out->cred.euid = e.euid;
		out->cred.suid = e.suid;
		out->cred.fsuid = e.fsuid;
		out->cred.gid = e.gid;
		out->cred.egid = e.egid;
		out->cred.syscall = e.syscall;
		out->cred.cap_effective = e.cap_effective;
		out->cred.start_boot_ns = e.start_boot_ns;
		copy_comm(out->cred.comm, e.comm);
		return ENAV_DECODE_OK;
	}
	case ENAV_EVENT_FILE_OPEN: {
		if (out->hdr.size != sizeof(struct enav_file_open_event))
			return ENAV_DECODE_BAD_SIZE;
		struct enav_file_open_event e;
		memcpy(&e, data, sizeof(e));
		if (!decode_task(&e.task, &out->file_open.task))
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
		    !decode_task(&e.task, &out->bpf_access.task))
			return ENAV_DECODE_BAD_LENGTH;
		out->type = ENAV_EVENT_BPF_ACCESS;
		out->bpf_access.cmd = e.cmd;
		out->bpf_access.object_kind = e.object_kind;
		out->bpf_access.object_id = e.object_id;
		out->bpf_access.ret = e.ret;
		return ENAV_DECODE_OK;
	}
	case ENAV_EVENT_PROFILE_TASK: {
		/* Exactly its size, as bpf/profiling/profile.bpf.c emits it: a shorter claim
		 * would have us read fields past the event, a longer one is not ours. */
		if (out->hdr.size != sizeof(struct enav_profile_task_event))
			return ENAV_DECODE_BAD_SIZE;
		struct enav_profile_task_event e;
		memcpy(&e, data, sizeof(e));
		out->type = ENAV_EVENT_PROFILE_TASK;
		out->profile_task.exec_gen = e.exec_gen;
		copy_comm(out->profile_task.comm, e.comm);
		return ENAV_DECODE_OK;
	}
	default:
		return ENAV_DECODE_UNKNOWN_TYPE;
	}
}

const char *enav_decode_status_name(enum enav_decode_status s)
{
	static const char *const names[ENAV_DECODE__COUNT] = {
	    "ok", "short", "bad_version", "bad_size", "bad_length", "unknown_type",
	};
	return s < ENAV_DECODE__COUNT ? names[s] : "unknown";
}
