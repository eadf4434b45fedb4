/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The raw event ABI shared by the kernel programs (bpf/) and the user-side
 * decoders (each feature's folder under src/features/, and
 * src/runtime/event_decode.c).  Both transports (ring buffer and perf buffer)
 * carry exactly these bytes, so one decoder serves both.
 *
 * Rules: fixed-width types only, explicit padding, and a static assert on
 * every size and offset a decoder relies on.  Changing any struct here means
 * bumping ENAV_ABI_VERSION, and with it the version in the decoders' fuzz
 * seeds (tests/fuzz/check_seed_abi.sh fails until they carry it).
 */
#ifndef ENAV_ABI_H
#define ENAV_ABI_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#include <stddef.h>
#endif

#define ENAV_ABI_VERSION 9

/* libbpf's offsetof is not a constant expression; the builtin is, on both sides. */
#define ENAV_OFFSETOF(type, member) __builtin_offsetof(type, member)

#define ENAV_COMM_LEN	  16
#define ENAV_FILENAME_MAX 256
/* Executable path resolved in the kernel, NUL included (bpf/lib/enav_path.bpf.h). */
#define ENAV_EXE_PATH_MAX 1024
/* Upper bound of the configurable argv cap (sources.exec.argv_max_bytes). */
#define ENAV_ARGV_MAX 4096

enum enav_event_type {
	ENAV_EVENT_PROCESS_EXEC = 1,
	ENAV_EVENT_PROCESS_EXIT = 2,
	ENAV_EVENT_TCP = 3,
	ENAV_EVENT_DNS = 4,
	ENAV_EVENT_PROFILE_TASK = 5, /* first profile sample of a process: snapshot it now */
	ENAV_EVENT_L7_DATA = 6,	     /* payload fragment of a classified TCP connection */
	ENAV_EVENT_CRED_CHANGE = 7,  /* a successful setuid-family or capset call */
	ENAV_EVENT_FILE_OPEN = 8,    /* a watched file (device and inode) was opened */
	ENAV_EVENT_BPF_ACCESS = 9,   /* another process used one of the agent's BPF objects */
};

/* Flags on enav_exec_event.flags. */
#define ENAV_EXEC_ARGV_TRUNCATED     (1u << 0)
#define ENAV_EXEC_FILENAME_TRUNCATED (1u << 1)
#define ENAV_EXEC_ARGV_FAULT	     (1u << 2) /* user memory unreadable: argv absent */
#define ENAV_EXEC_FILENAME_FAULT     (1u << 3)
#define ENAV_EXEC_EXE_UNRESOLVED     (1u << 4) /* path deeper or longer than the caps: exe absent */

/*
 * Kernel-side counters, one per-CPU slot each, per program object.  User side
 * sums across CPUs and exports them by source, transport and category.
 */
enum enav_kernel_counter {
	ENAV_KC_EMITTED = 0,	 /* events handed to the transport */
	ENAV_KC_TRANSPORT_FULL,	 /* ring full or perf output failed: event lost */
	ENAV_KC_FILTERED,	 /* suppressed by the cgroup capture filter */
	ENAV_KC_SCRATCH_MISSING, /* per-CPU scratch lookup failed (should never happen) */
	ENAV_KC_USER_READ_FAULT, /* argv not readable from user memory */
	ENAV_KC_MAP_FULL,	 /* a bounded kernel map refused an insert */
	/* A socket hook wanted the call's payload, but the task's syscall was
	 * not one on this socket (io_uring, splice, a kernel socket): none copied. */
	ENAV_KC_PAYLOAD_UNPROVEN,
	ENAV_KC__COUNT,
};

/* Capture filter control word (enav_capture_control[0]). */
enum enav_capture_mode {
	ENAV_CAPTURE_DISABLED = 0,	  /* capture everything */
	ENAV_CAPTURE_UNKNOWN_CAPTURE = 1, /* denylist: unknown cgroups are captured */
	ENAV_CAPTURE_UNKNOWN_DENY = 2,	  /* allowlist: unknown cgroups are denied */
};

struct enav_event_header {
	__u16 type;	    /* enum enav_event_type */
	__u16 abi_version;  /* ENAV_ABI_VERSION */
	__u32 size;	    /* bytes of the whole event as emitted */
	__u64 boot_time_ns; /* bpf_ktime_get_boot_ns() at capture */
	__u64 cgroup_id;    /* bpf_get_current_cgroup_id(): cgroup2 inode */
	__u32 pid;	    /* thread group id (userspace "pid") */
	__u32 tid;	    /* thread id */
};

struct enav_exec_event {
	struct enav_event_header hdr;
	__u32 ppid;
	__u32 uid;
	__u32 gid;
	__u32 old_tid; /* thread id that called exec (differs when a non-leader execs) */
	__u64 start_boot_ns;
	char comm[ENAV_COMM_LEN];
	__u16 filename_len; /* bytes in filename, no NUL */
	__u16 argv_len;	    /* bytes in argv: NUL-separated arguments */
	__u16 flags;	    /* ENAV_EXEC_* */
	__u16 exe_len;	    /* bytes in exe, no NUL; 0 when unresolved */
	char filename[ENAV_FILENAME_MAX];
	char exe[ENAV_EXE_PATH_MAX];
	/* Variable tail: only argv_len bytes are emitted. */
	char argv[ENAV_ARGV_MAX];
};

struct enav_exit_event {
	struct enav_event_header hdr;
	__u32 ppid;
	__u32 exit_code; /* wait(2) status: (code << 8) | signal, 0x80 = core dumped */
	__u64 start_boot_ns;
	char comm[ENAV_COMM_LEN];
};

/* The credentials a task has right after a successful setuid, setreuid,
 * setresuid or capset (bpf/process/exec.bpf.c). */
struct enav_cred_event {
	struct enav_event_header hdr;
	__u32 uid, euid, suid, fsuid;
	__u32 gid, egid;
	__u32 syscall; /* x86_64 number: 105 setuid, 106 setgid, 113 setreuid, 114 setregid,
			  117 setresuid, 119 setresgid, 126 capset */
	__u32 pad;
	__u64 cap_effective;
	__u64 start_boot_ns; /* the task's start: tells a reused pid apart */
	char comm[ENAV_COMM_LEN];
};

/* The task an event is about, as the kernel sees it at the event
 * (filled by enav_fill_task() in bpf/lib/enav_path.bpf.h). */
struct enav_task_info {
	__u32 uid, gid; /* real ids */
	__u32 ppid;
	__u16 exe_len; /* 0: the executable's path did not resolve */
	__u16 pad;
	__u64 start_boot_ns; /* the task's start: tells a reused pid apart */
	char comm[ENAV_COMM_LEN];
	char exe[ENAV_EXE_PATH_MAX]; /* the executable, resolved in the kernel */
};

/* A successful open of a file the user side watches.  Watched files are
 * named to the kernel only by (device, inode): no path enters a map. */
struct enav_file_open_event {
	struct enav_event_header hdr;
	__u64 dev; /* kernel dev_t of the file's superblock (MKDEV: major << 20) */
	__u64 ino;
	__u32 watch_id;		    /* the user side's id for the watched file */
	__u32 open_flags;	    /* the open file's f_flags (O_ACCMODE and the rest) */
	struct enav_task_info task; /* the opener */
};

/* What another process did to one of the agent's own BPF objects, seen at
 * the return of its bpf() call. */
enum enav_bpf_object_kind {
	ENAV_BPF_OBJ_MAP = 1,
	ENAV_BPF_OBJ_PROG = 2,
	ENAV_BPF_OBJ_LINK = 3,
};

struct enav_bpf_access_event {
	struct enav_event_header hdr;
	__u32 cmd;		    /* the bpf() command (BPF_MAP_UPDATE_ELEM, ...) */
	__u32 object_kind;	    /* enum enav_bpf_object_kind */
	__u32 object_id;	    /* the map, program or link id */
	__s32 ret;		    /* what bpf() returned: 0 or an fd on success, -errno */
	struct enav_task_info task; /* the caller */
};

/* ---- network (bpf/network/net.bpf.c) ------------------------------------------- */

enum enav_tcp_kind {
	ENAV_TCP_OPEN = 1,   /* established, owner known */
	ENAV_TCP_CLOSE = 2,  /* closed after being established */
	ENAV_TCP_FAILED = 3, /* a connect that never established (refused, timeout) */
};

enum enav_tcp_role { ENAV_ROLE_UNKNOWN = 0, ENAV_ROLE_CLIENT = 1, ENAV_ROLE_SERVER = 2 };

/* enav_tcp_event.flags */
#define ENAV_TCP_PREDATES_ATTACH (1u << 0) /* first seen after it was established */
#define ENAV_TCP_OWNER_UNKNOWN	 (1u << 1) /* no process was seen using it */
#define ENAV_TCP_RESET		 (1u << 2) /* closed by a reset (close without FIN states) */
/* bit 3 is reserved: it was a partial-bytes flag of the syscall-walk design */

struct enav_tcp_event {
	struct enav_event_header hdr; /* pid/tid/cgroup: the owner, not the current task */
	__u64 sock_id;		      /* opaque per-connection key, never exported */
	__u64 start_boot_ns;	      /* first seen (connect, SYN received, or first use) */
	__u64 bytes_sent;
	__u64 bytes_received;
	__u32 retransmits;
	__u32 srtt_us;
	__u16 family; /* AF_INET or AF_INET6 */
	__u16 sport;  /* host order */
	__u16 dport;  /* host order */
	__u8 kind;    /* enum enav_tcp_kind */
	__u8 role;    /* enum enav_tcp_role */
	__u8 oldstate;
	__u8 newstate;
	__u8 flags;
	__u8 _pad0;
	__u8 saddr[16]; /* IPv4 in the first 4 bytes */
	__u8 daddr[16];
	char comm[ENAV_COMM_LEN];
	__u8 _pad1[4]; /* explicit: the struct is 8-byte aligned */
};

#define ENAV_DNS_PAYLOAD_MAX 512

/* enav_dns_event.direction */
#define ENAV_DNS_SENT	  1
#define ENAV_DNS_RECEIVED 2

struct enav_dns_event {
	struct enav_event_header hdr;
	__u16 family;
	__u16 sport;
	__u16 dport;
	__u8 direction;
	__u8 tcp; /* 1: a TCP stream chunk (length-prefixed) */
	__u8 saddr[16];
	__u8 daddr[16];
	__u32 payload_len;  /* bytes the syscall moved */
	__u32 captured_len; /* bytes in payload (<= ENAV_DNS_PAYLOAD_MAX) */
	char comm[ENAV_COMM_LEN];
	__u8 payload[ENAV_DNS_PAYLOAD_MAX];
};

/* ---- application payloads (bpf/network/net.bpf.c) ------------------------------- */

/* Upper bound of sources.network.l7.capture_bytes; a power of two. */
#define ENAV_L7_PAYLOAD_MAX 4096

/* Kernel classification of a connection (enav_tcp conn cache); the values
 * are enum enav_l7_protocol's (src/features/network/l7/l7.h). */
#define ENAV_L7_CLASS_PENDING 0	  /* no payload seen yet */
#define ENAV_L7_CLASS_NONE    255 /* matched no enabled protocol: never captured */

/* enav_l7_event.flags */
#define ENAV_L7_SEQ_VALID  (1u << 0) /* seq is the TCP sequence of the first byte */
#define ENAV_L7_NO_DATA	   (1u << 1) /* sendfile/splice: bytes moved without a user buffer */
#define ENAV_L7_MARKS_LOST (1u << 2) /* HTTP/2: frame boundaries past the marks are unknown */
#define ENAV_L7_MARK_BLOCK (1u << 3) /* ENAV_L7_MAX_MARKS marks follow the payload */
/* Plaintext read or written through a TLS library (bpf/network/net_tls.bpf.h): seq is
 * then the offset of the first byte in the connection's plaintext stream. */
#define ENAV_L7_TLS (1u << 4)
/* With ENAV_L7_TLS: the offset counts from the session's first plaintext
 * byte (its handshake was seen) plus the client's initial TCP sequence
 * number + 1, so both ends compute the same value for the same byte. */
#define ENAV_L7_TLS_FROM_START (1u << 5)
/* A struct enav_l7_carry follows the payload (and the mark block, if any):
 * calls the kernel counted on this connection without a record of their
 * own, which come before this record's call in the stream. */
#define ENAV_L7_CARRIED (1u << 6)
/* This call ended a request (a server's first send after the request, a
 * client's first receive after its call) that a profile sample named while
 * it ran (struct enav_req_link): its span is wanted to name the sample. */
#define ENAV_L7_LINK_SAMPLED (1u << 7)

/*
 * A run of bytes moved without a user buffer (sendfile, splice: the
 * ENAV_L7_NO_DATA calls), counted in the connection's kernel state instead
 * of a record each, and reported on the connection's next record (or a
 * record of its own at close).  One direction, contiguous from seq; the
 * user side feeds it to the parser as an uncaptured fragment before the
 * record it rides on, stamped with the time its last call returned.
 */
struct enav_l7_carry {
	__u64 boot_ns;	/* when the run's last call returned */
	__u32 seq;	/* TCP sequence of the run's first byte */
	__u32 len;	/* bytes in the run */
	__u8 direction; /* ENAV_L7_SENT or ENAV_L7_RECEIVED */
	__u8 _pad[7];
};

/*
 * HTTP/2 frame headers the kernel found by walking the whole call's bytes
 * (not only the captured ones), so a frame header hidden in the uncaptured
 * part of a large write is still seen.  With ENAV_L7_MARK_BLOCK, a block of
 * ENAV_L7_MAX_MARKS marks follows the payload, the first n_marks of them
 * valid (a constant size keeps the kernel program simple for the verifier).
 * avail < 9: the header continues in the next call.
 */
#define ENAV_L7_MAX_MARKS 32
struct enav_l7_mark {
	__u32 offset; /* from the first byte of this call */
	__u8 avail;   /* header bytes in this call, 1..9 */
	__u8 hdr[9];
	__u8 _pad[2];
};

/* enav_l7_event.direction */
#define ENAV_L7_SENT	 1
#define ENAV_L7_RECEIVED 2

/* enav_l7_event.tls_library with ENAV_L7_TLS */
enum enav_tls_library {
	ENAV_TLS_LIB_NONE = 0,
	ENAV_TLS_LIB_OPENSSL = 1,
	ENAV_TLS_LIB_GNUTLS = 2,
	ENAV_TLS_LIB_GO = 3,
	ENAV_TLS_LIB__COUNT,
};

struct enav_l7_event {
	struct enav_event_header hdr; /* the task that moved the bytes */
	__u64 sock_id;		      /* as enav_tcp_event.sock_id */
	__u32 len;		      /* bytes the syscall moved */
	__u32 captured;		      /* bytes in payload (<= ENAV_L7_PAYLOAD_MAX) */
	__u32 seq;
	__u8 direction;
	__u8 protocol; /* the kernel's classification */
	__u8 role;     /* enum enav_tcp_role of the socket */
	__u8 flags;    /* ENAV_L7_* */
	__u16 family;
	__u16 sport;
	__u16 dport;
	__u16 n_marks; /* struct enav_l7_mark entries after the payload */
	__u8 saddr[16];
	__u8 daddr[16];
	char comm[ENAV_COMM_LEN - 1];
	__u8 tls_library; /* enum enav_tls_library */
	/* Variable tail: captured payload bytes, then the mark block, then the
	 * carry (ENAV_L7_CARRIED), both unaligned. */
	__u8 payload[ENAV_L7_PAYLOAD_MAX];
};

/* ---- profiling (bpf/profiling/profile.bpf.c) --------------------------------------- */

enum enav_profile_kind {
	ENAV_PROFILE_CPU = 0,	 /* perf_event samples */
	ENAV_PROFILE_OFFCPU = 1, /* blocked time from sched_switch */
	ENAV_PROFILE_FUTEX = 2,	 /* time waited in futex wait operations */
	ENAV_PROFILE__COUNT,
};

/* Stacks are stored by a 64-bit hash of their frames (0 = no stack), so two
 * different stacks never share an entry: no bucket collisions, and a stack
 * the kernel evicted is found missing at drain, never mistaken for another. */
#define ENAV_PROFILE_MAX_DEPTH 127

/*
 * The request a thread is serving, as the network programs see it on a
 * classified plaintext stream that carries one exchange at a time: the
 * socket and the TCP sequence number of the request's first byte.  The L7
 * tracker keys the request's span the same way, so a sample that carries
 * this names one span (src/runtime/span_links.c).  sock_id 0 = none.
 */
struct enav_req_side {
	__u64 sock_id; /* as enav_l7_event.sock_id */
	__u32 seq;     /* TCP sequence of the request's first byte */
	__u32 flags;   /* ENAV_LINK_* */
};

/* enav_req_side.flags and enav_profile_key.link_flags */
/* The thread began requests on more than one connection while this one was
 * open (an event loop, a pool): the link is inferred, not observed. */
#define ENAV_LINK_SHARED (1u << 0)
/* A sample named this request (enav_req_links only; masked out of keys). */
#define ENAV_LINK_SAMPLED (1u << 1)

/* Value of enav_req_links, by thread id: what the thread serves (a request
 * it received and has not answered) and awaits (a call it sent, not yet
 * answered). */
struct enav_req_link {
	struct enav_req_side server;
	struct enav_req_side client;
};

struct enav_profile_key {
	__u32 tgid;
	__u16 kind;	/* enum enav_profile_kind */
	__u16 exec_gen; /* low bits of the task's self_exec_id: which image the stack is of */
	__u64 cgroup_id;
	__u64 user_stack;   /* hash into enav_prof_stacks, 0 = none */
	__u64 kernel_stack; /* hash into enav_prof_stacks, 0 = none */
	/* The requests the thread served and awaited when the sample was taken
	 * (profiling.links; zero when off or none). */
	__u64 server_sock;
	__u64 client_sock;
	__u32 server_seq;
	__u32 client_seq;
	__u32 link_flags; /* ENAV_LINK_SHARED, server side */
	__u32 _pad;
};

/* Value of enav_prof_stacks: frames leaf first. */
struct enav_profile_stack {
	__u32 n;
	__u32 pad;
	__u64 ips[ENAV_PROFILE_MAX_DEPTH];
};

struct enav_profile_value {
	__u64 count;	/* samples (CPU) or blocking episodes (off-CPU, futex) */
	__u64 total_ns; /* off-CPU/futex: nanoseconds, scaled by the sampling rate */
};

/* Per-CPU counters of the profile programs (enav_prof_counters). */
enum enav_profile_counter {
	ENAV_PC_CPU_SAMPLES = 0,
	ENAV_PC_OFFCPU_EPISODES,
	ENAV_PC_FUTEX_WAITS,
	ENAV_PC_FILTERED,
	ENAV_PC_UNSAMPLED,	    /* skipped by the configured 1-in-N sampling */
	ENAV_PC_BELOW_THRESHOLD,    /* episode shorter than the minimum duration */
	ENAV_PC_STACK_CAPTURES,	    /* stack walks attempted (user and kernel) */
	ENAV_PC_STACK_USER_FAULT,   /* user stack unreadable (EFAULT and other walk errors) */
	ENAV_PC_STACK_KERNEL_FAULT, /* kernel stack walk failed */
	ENAV_PC_STACK_OTHER,	    /* stack not stored (scratch or map update failed) */
	ENAV_PC_COUNTS_FULL,	    /* aggregation map full: sample lost */
	ENAV_PC_PENDING_FULL,	    /* start-of-wait table insert failed */
	/* How each user stack walked by the .eh_frame unwinder ended (ADR 0017). */
	ENAV_PC_UNWIND_COMPLETE,     /* reached the outermost frame */
	ENAV_PC_UNWIND_NO_TABLES,    /* process not loaded yet: a frame-pointer walk */
	ENAV_PC_UNWIND_NOT_EXEC,     /* next frame outside every executable mapping */
	ENAV_PC_UNWIND_NO_INFO,	     /* no rule and no frame pointer to follow */
	ENAV_PC_UNWIND_DEPTH,	     /* profiling.max_stack_depth reached */
	ENAV_PC_UNWIND_READ_FAULT,   /* stack memory unreadable */
	ENAV_PC_UNWIND_BAD_FRAME,    /* the caller's frame is not above this one */
	ENAV_PC_UNWIND_FP_FRAMES,    /* frames stepped by frame pointer (no rule for the address) */
	ENAV_PC_UNWIND_TABLE_FRAMES, /* frames stepped by an .eh_frame rule */
	ENAV_PC_AGENT_WAITS,	     /* the agent's own off-CPU and futex waits, not recorded */
	ENAV_PC_OFFCPU_NO_USER_STACK, /* a long wait counted with its kernel stack only: its
				       * thread left the kernel before a syscall exit */
	ENAV_PC__COUNT,
};

struct enav_profile_task_event {
	struct enav_event_header hdr; /* pid = tgid of the sampled process */
	char comm[ENAV_COMM_LEN];
	__u16 exec_gen; /* as in enav_profile_key: a new exec announces again */
	__u16 pad[3];
};

/*
 * Unwind tables (ADR 0017), written by user space, read by the profile
 * programs.  enav_unwind_rows is one array of rows for every loaded binary;
 * a binary's rows are [first, first + count), sorted by pc (its link-time
 * address).  A row holds from its pc to the next row's:
 *   CFA = (RSP ? rsp : rbp) + cfa_off8 * 8; PLT: rsp + 8, + 8 when the
 *   address's offset in its 16-byte entry is at least cfa_off8 (past the push)
 *   return address at CFA - 8; caller's rbp at CFA + rbp_off8 * 8 when
 *   rbp_off8 != 0 (it cannot be saved at the CFA itself), else unchanged.
 */
#define ENAV_UNWIND_MAX_MAPPINGS 64 /* executable mappings of one process */

enum enav_unwind_kind {
	ENAV_UNWIND_UNDEFINED = 0, /* no rule: step by frame pointer */
	ENAV_UNWIND_RSP = 1,
	ENAV_UNWIND_RBP = 2,
	ENAV_UNWIND_PLT = 3,
	ENAV_UNWIND_END = 4, /* the outermost frame */
};

struct enav_unwind_entry {
	__u32 pc;
	__u16 cfa;     /* kind << 13 | (cfa offset / 8), offset < 65536 */
	__s8 rbp_off8; /* caller's rbp at CFA + rbp_off8 * 8; 0 = unchanged */
	__u8 pad;
};

#define ENAV_UNWIND_KIND_SHIFT 13
#define ENAV_UNWIND_OFF_MASK   ((1u << ENAV_UNWIND_KIND_SHIFT) - 1)

struct enav_unwind_mapping {
	__u64 start, end; /* runtime addresses [start, end) */
	__u64 bias;	  /* runtime address - bias = the binary's link-time address */
	__u32 first;	  /* into enav_unwind_rows */
	__u32 count;	  /* 0: no table (frame pointers only) */
};

/* Set by the kernel in enav_unwind_proc.flags when a walk met an address
 * outside the listed mappings: the list may predate a mapping (the dynamic
 * loader mapping libraries after exec, dlopen), so the process is announced
 * again, once, for user space to read its mappings anew. */
#define ENAV_UNWIND_PROC_STALE 1u

/* Value of enav_unwind_procs, key (exec_gen << 32 | tgid). */
struct enav_unwind_proc {
	__u32 n;     /* mappings, sorted by start, non-overlapping */
	__u32 flags; /* ENAV_UNWIND_PROC_*; user space writes 0 */
	struct enav_unwind_mapping m[ENAV_UNWIND_MAX_MAPPINGS];
};

#define ENAV_EXEC_EVENT_FIXED_SIZE ENAV_OFFSETOF(struct enav_exec_event, argv)

_Static_assert(sizeof(struct enav_event_header) == 32, "event header ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_event_header, boot_time_ns) == 8, "header ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_event_header, cgroup_id) == 16, "header ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_event_header, pid) == 24, "header ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_exec_event, ppid) == 32, "exec ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_exec_event, start_boot_ns) == 48, "exec ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_exec_event, comm) == 56, "exec ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_exec_event, filename_len) == 72, "exec ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_exec_event, filename) == 80, "exec ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_exec_event, exe_len) == 78, "exec ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_exec_event, exe) == 336, "exec ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_exec_event, argv) == 1360, "exec ABI");
_Static_assert(sizeof(struct enav_exec_event) == 1360 + ENAV_ARGV_MAX, "exec ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_exit_event, exit_code) == 36, "exit ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_exit_event, start_boot_ns) == 40, "exit ABI");
_Static_assert(sizeof(struct enav_exit_event) == 64, "exit ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_cred_event, uid) == 32, "cred ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_cred_event, syscall) == 56, "cred ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_cred_event, cap_effective) == 64, "cred ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_cred_event, start_boot_ns) == 72, "cred ABI");
_Static_assert(sizeof(struct enav_cred_event) == 96, "cred ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_file_open_event, dev) == 32, "file open ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_file_open_event, watch_id) == 48, "file open ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_task_info, exe_len) == 12, "task ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_task_info, start_boot_ns) == 16, "task ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_task_info, exe) == 40, "task ABI");
_Static_assert(sizeof(struct enav_task_info) == 40 + ENAV_EXE_PATH_MAX, "task ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_file_open_event, task) == 56, "file open ABI");
_Static_assert(sizeof(struct enav_file_open_event) == 96 + ENAV_EXE_PATH_MAX, "file open ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_bpf_access_event, ret) == 44, "bpf access ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_bpf_access_event, task) == 48, "bpf access ABI");
_Static_assert(sizeof(struct enav_bpf_access_event) == 88 + ENAV_EXE_PATH_MAX, "bpf access ABI");
_Static_assert((ENAV_ARGV_MAX & (ENAV_ARGV_MAX - 1)) == 0, "argv cap is a power of two");
_Static_assert(ENAV_OFFSETOF(struct enav_tcp_event, sock_id) == 32, "tcp ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_tcp_event, family) == 72, "tcp ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_tcp_event, saddr) == 84, "tcp ABI");
_Static_assert(sizeof(struct enav_tcp_event) == 136, "tcp ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_dns_event, saddr) == 40, "dns ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_dns_event, payload_len) == 72, "dns ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_dns_event, payload) == 96, "dns ABI");
_Static_assert(sizeof(struct enav_dns_event) == 96 + ENAV_DNS_PAYLOAD_MAX, "dns ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_l7_event, len) == 40, "l7 ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_l7_event, seq) == 48, "l7 ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_l7_event, family) == 56, "l7 ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_l7_event, saddr) == 64, "l7 ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_l7_event, payload) == 112, "l7 ABI");
_Static_assert(sizeof(struct enav_l7_event) == 112 + ENAV_L7_PAYLOAD_MAX, "l7 ABI");
_Static_assert(sizeof(struct enav_l7_mark) == 16, "l7 ABI");
_Static_assert(sizeof(struct enav_l7_carry) == 24, "l7 ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_l7_carry, seq) == 8, "l7 ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_l7_carry, len) == 12, "l7 ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_l7_carry, direction) == 16, "l7 ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_l7_event, tls_library) == 111, "l7 ABI");
_Static_assert((ENAV_L7_PAYLOAD_MAX & (ENAV_L7_PAYLOAD_MAX - 1)) == 0, "l7 cap is a power of two");
_Static_assert(sizeof(struct enav_profile_key) == 64, "profile ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_profile_key, server_sock) == 32, "profile ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_profile_key, client_sock) == 40, "profile ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_profile_key, server_seq) == 48, "profile ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_profile_key, client_seq) == 52, "profile ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_profile_key, link_flags) == 56, "profile ABI");
_Static_assert(sizeof(struct enav_req_side) == 16, "link ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_req_side, seq) == 8, "link ABI");
_Static_assert(sizeof(struct enav_req_link) == 32, "link ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_req_link, client) == 16, "link ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_profile_key, cgroup_id) == 8, "profile ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_profile_key, user_stack) == 16, "profile ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_profile_key, kernel_stack) == 24, "profile ABI");
_Static_assert(sizeof(struct enav_profile_stack) == 8 + 8 * ENAV_PROFILE_MAX_DEPTH, "profile ABI");
_Static_assert(sizeof(struct enav_profile_value) == 16, "profile ABI");
_Static_assert(sizeof(struct enav_profile_task_event) == 56, "profile ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_profile_key, exec_gen) == 6, "profile ABI");
_Static_assert(sizeof(struct enav_unwind_entry) == 8, "unwind ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_unwind_entry, cfa) == 4, "unwind ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_unwind_entry, rbp_off8) == 6, "unwind ABI");
_Static_assert(sizeof(struct enav_unwind_mapping) == 32, "unwind ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_unwind_mapping, bias) == 16, "unwind ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_unwind_mapping, first) == 24, "unwind ABI");
_Static_assert(ENAV_OFFSETOF(struct enav_unwind_proc, m) == 8, "unwind ABI");
_Static_assert(sizeof(struct enav_unwind_proc) == 8 + 32 * ENAV_UNWIND_MAX_MAPPINGS, "unwind ABI");

#endif
