/* SPDX-License-Identifier: Apache-2.0 */
#include "features/process/process_decode.h"

#include <string.h>

bool enav_cred_syscall_hooked(__u32 nr)
{
	/* setuid, setgid, setreuid, setregid, setresuid, setresgid, capset */
	return nr == 105 || nr == 106 || nr == 113 || nr == 114 || nr == 117 || nr == 119 ||
	       nr == 126;
}

enum enav_decode_status enav_process_decode(const void *data, size_t size, void *out_)
{
	struct enav_process_event *out = out_;
	enum enav_decode_status st = enav_decode_header(data, size, &out->hdr);
	if (st != ENAV_DECODE_OK)
		return st;
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
		enav_decode_comm(out->exec.comm, e.comm);
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
		enav_decode_comm(out->exit.comm, e.comm);
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
		enav_decode_comm(out->cred.comm, e.comm);
		return ENAV_DECODE_OK;
	}
	default:
		return ENAV_DECODE_UNKNOWN_TYPE;
	}
}
