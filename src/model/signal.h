/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The signal contract in memory (docs/signals.md is the versioned contract on
 * the wire).  A signal is built once on the capture thread, then shared
 * read-only by every sink through a reference count.  Every string in it is
 * bounded by a cap; the variable parts (argv, filename, exe, the DNS message)
 * are in the signal's tail, sized to what the kernel delivered (argv itself
 * capped by sources.exec.argv_max_bytes).  docs/adr/0013-lean-signal.md.
 */
#ifndef ENAV_MODEL_SIGNAL_H
#define ENAV_MODEL_SIGNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "enav/abi.h"
#include "model/cgroup_path.h"
#include "model/l7_op.h"

struct enav_k8s_pod;

#define ENAV_SIGNAL_SCHEMA_VERSION  1
#define ENAV_EXE_MAX		    1024
#define ENAV_SIGNAL_CGROUP_PATH_MAX 1024
#define ENAV_SIGNAL_MAX_WARNINGS    4

enum enav_signal_kind {
	ENAV_SIGNAL_PROCESS_EXEC = 1,
	ENAV_SIGNAL_PROCESS_EXIT = 2,
	ENAV_SIGNAL_TCP_OPEN = 3,
	ENAV_SIGNAL_TCP_CLOSE = 4,
	ENAV_SIGNAL_TCP_FAILED = 5,
	ENAV_SIGNAL_DNS = 6,
	ENAV_SIGNAL_EDGE = 7,	      /* inferred: an aggregate of observed connections */
	ENAV_SIGNAL_FINDING = 8,      /* inferred: a security rule matched observed signals */
	ENAV_SIGNAL_SPAN = 9,	      /* one application request/response or message */
	ENAV_SIGNAL_CRED_CHANGE = 10, /* a successful setuid-family or capset call */
	ENAV_SIGNAL_FILE_OPEN = 11,   /* a watched file was opened */
	ENAV_SIGNAL_BPF_ACCESS = 12, /* another process used, or changed, the agent's BPF objects */
	ENAV_SIGNAL__COUNT,
};

#define ENAV_EDGE_KEY_MAX 160

/* Client -> server dependency over one interval (features/network/net_edges.c). */
struct enav_edge_signal {
	char client[ENAV_EDGE_KEY_MAX]; /* workload: "pod:ns/name", "container:<id>",
					   "process:<comm>" */
	char server[ENAV_EDGE_KEY_MAX]; /* DNS name, or the address */
	char server_ip[48];
	uint16_t server_port;
	bool server_named_by_dns;
	double confidence; /* 1.0 address observed; lower when a name was inferred */
	uint64_t interval_start_unix_ns;
	uint64_t connections, failures, resets;
	uint64_t bytes_sent, bytes_received; /* from the client's side */
	uint64_t duration_sum_ns;
	uint32_t srtt_max_us;
};

/* A security finding (features/security/security_findings.c): which rule matched
 * what.  The process fields of the signal are the finding's workload. */
struct enav_finding_signal {
	const char *rule;     /* static: "exec_from_writable_location", ... */
	const char *severity; /* static: "medium", "high" */
	char summary[256];
	enum enav_signal_kind evidence_kind; /* the signal that triggered it */
	uint64_t evidence_time_unix_ns;
	uint32_t related_pid; /* e.g. the network service that spawned a shell; 0 = none */
	char related_comm[ENAV_COMM_LEN + 1];
	uint16_t related_port;
};

/* An application-protocol operation (src/features/network/l7/) on one side of a
 * connection; the tuple and role are in the signal's net part. */
struct enav_span_signal {
	struct enav_l7_op op;
	uint64_t start_time_unix_ns, end_time_unix_ns;
	uint8_t trace_id[16];
	uint8_t span_id[8];
	uint8_t parent_span_id[8]; /* all zero: a root span */
	/* How the ids were made: "traceparent" (from the request headers),
	 * "connection" (derived from the connection and the request's TCP
	 * sequence number, identical on both ends), or "random". */
	const char *id_source;
	/* The TLS library whose plaintext this is ("openssl", "gnutls", "go");
	 * NULL: read from the socket, plaintext on the wire. */
	const char *tls_library;
};

/* A TCP connection or a DNS exchange, as the socket API saw it. */
struct enav_net_signal {
	uint16_t family; /* 4 or 6 */
	uint16_t local_port, remote_port;
	uint8_t local_addr[16], remote_addr[16];
	uint8_t role;  /* enum enav_tcp_role */
	uint8_t flags; /* ENAV_TCP_* */
	uint8_t oldstate, newstate;
	uint64_t bytes_sent, bytes_received;
	uint32_t retransmits, srtt_us;
	uint64_t duration_ns;
	uint64_t start_time_unix_ns;
	/* DNS: the parsed message (allocated with the signal's tail, model/dns_message.h). */
	const struct enav_dns_message *dns;
	bool dns_has_latency;
	uint64_t dns_latency_ns;
	uint32_t dns_payload_len;
	uint8_t dns_direction;
	bool dns_tcp;
};

/* Why a field is absent.  Static strings only: warnings never allocate. */
struct enav_field_warning {
	const char *field;
	const char *reason;
};

/*
 * The owning process, in every signal's header.  Its strings are not held
 * here: filename, exe and argv live in the signal's tail, sized to what the
 * kernel delivered; cgroup_path and identity belong to what attribution
 * pinned for the signal (attr_ref).  Each pointer is valid as long as the
 * signal is, and never NULL: "" (or a zeroed identity) when absent.
 */
struct enav_process_signal {
	uint32_t pid;
	uint32_t tid;
	uint32_t ppid;
	uint32_t uid;
	uint32_t gid;
	bool has_creds; /* exit events do not carry credentials */
	char comm[ENAV_COMM_LEN + 1];
	bool has_filename, filename_truncated;
	bool has_exe;
	bool has_exit, core_dumped;
	bool has_cgroup_path;
	bool has_argv, argv_truncated;
	uint64_t start_time_unix_ns;
	uint64_t start_boot_ns; /* kernel start_boottime: identity check, not serialized */
	uint64_t cgroup_id;
	/* exec: the path as passed to exec(), from the kernel (at most ENAV_FILENAME_MAX) */
	const char *filename;
	/* executable path resolved in the kernel at exec (at most ENAV_EXE_MAX - 1);
	 * on exits, from the exec record */
	const char *exe;
	const char *cgroup_path; /* at most ENAV_SIGNAL_CGROUP_PATH_MAX - 1 */
	const struct enav_cgroup_identity *identity;
	/* Kubernetes pod, in the snapshot attribution pinned for the signal. */
	const struct enav_k8s_pod *pod;
	/* argv: NUL-separated arguments, argv_len bytes */
	const char *argv;
	uint32_t argv_len;
	/* exit */
	int32_t exit_code;   /* valid when exit_signal == 0 */
	int32_t exit_signal; /* terminating signal, 0 if exited normally */
	uint64_t lifetime_ns;
};

/* A task's credentials right after a setuid-family or capset call (the
 * process part carries uid and gid). */
struct enav_cred_signal {
	const char *syscall; /* static: "setuid", "setgid", "setresuid", "capset", ... */
	uint32_t euid, suid, fsuid, egid;
	uint64_t cap_effective;
};

#define ENAV_FILE_PATH_MAX 512

/* An open of a watched file (features/security/file_open_source.c). */
struct enav_file_signal {
	bool has_path;		       /* false: the watch was replaced before the event was read */
	char path[ENAV_FILE_PATH_MAX]; /* the watched path the inode was found at */
	uint64_t dev, ino;	       /* the kernel's device number and inode */
	uint32_t open_flags;
	const char *access; /* static: "read", "write", "read_write" */
};

/* Another process's use of the agent's BPF objects, or a change to its
 * kernel state found by the agent's own check (features/security/self_guard_source.c). */
struct enav_bpf_access_signal {
	const char *detected_by; /* static: "bpf_syscall" or "integrity_check" */
	const char *operation;	 /* static: "map_get_fd_by_id", "map_update_elem", ... */
	const char *object_kind; /* static: "map", "prog", "link" */
	uint32_t object_id;
	char object_name[20];	   /* the kernel object's name, as the agent created it */
	int32_t result;		   /* bpf(): 0 or a descriptor on success, -errno */
	bool modifies;		   /* the operation changes the object */
	uint32_t entries_restored; /* integrity_check: entries put back */
};

/*
 * A signal is its header (up to the payload union) and the payload of its own
 * kind: enav_signal_new allocates exactly that, so a member of another kind
 * lies past the allocation and must not be touched (ASan reports it).  After
 * the payload comes the tail, sized by the creator to the variable data it
 * carries (enav_signal_tail).
 */
struct enav_signal {
	_Atomic uint32_t refs;
	enum enav_signal_kind kind;
	uint64_t time_unix_ns;
	uint32_t n_warnings;
	uint8_t pool_class; /* which free list the block returns to (signal.c) */
	struct enav_field_warning warnings[ENAV_SIGNAL_MAX_WARNINGS];
	struct enav_process_signal process; /* for network kinds: the owning process */
	/* What attribution pinned for this signal (released with the signal):
	 * see enav_signal_pin. */
	void *attr_ref;
	void (*attr_release)(void *ref);
	union {
		struct { /* tcp.*, dns.response: net; span: net and span */
			struct enav_net_signal net;
			struct enav_span_signal span;
		};
		struct enav_edge_signal edge;
		struct enav_cred_signal cred;
		struct { /* agent.bpf_access: bpf; file.open: up to file; finding: all */
			struct enav_bpf_access_signal bpf;
			struct enav_file_signal file;
			struct enav_finding_signal finding;
		};
	};
};

/* The common header: everything before the kind's payload. */
#define ENAV_SIGNAL_HEADER_SIZE offsetof(struct enav_signal, net)
_Static_assert(ENAV_SIGNAL_HEADER_SIZE <= 256, "the signal header grew past 256 bytes");

/*
 * Allocate a signal of its kind's size plus tail_len bytes of tail (refs = 1).
 * The header and the kind's payload are zeroed, the tail is not; the process
 * strings point at "" until set.
 */
struct enav_signal *enav_signal_new(enum enav_signal_kind kind, uint32_t tail_len);
/* Bytes enav_signal_new allocates for kind with tail_len bytes of tail. */
size_t enav_signal_size(enum enav_signal_kind kind, uint32_t tail_len);
/* The tail reserved at creation, aligned for any type. */
void *enav_signal_tail(struct enav_signal *s);
/*
 * Keep ref alive as long as the signal: release(ref) runs when it is freed.
 * The first pin is stored in attr_ref; a second one costs a small allocation.
 * -1 (nothing pinned, ref not released) when that allocation fails.
 */
int enav_signal_pin(struct enav_signal *s, void *ref, void (*release)(void *ref));
/* The ref pinned with release, or NULL. */
void *enav_signal_pinned(const struct enav_signal *s, void (*release)(void *ref));
void enav_signal_ref(struct enav_signal *s);
void enav_signal_unref(struct enav_signal *s);
/* Record why a field is missing; silently bounded by ENAV_SIGNAL_MAX_WARNINGS. */
void enav_signal_warn(struct enav_signal *s, const char *field, const char *reason);
const char *enav_signal_kind_name(enum enav_signal_kind kind);

/* Live count of allocated signals (self-accounting for /metrics). */
uint64_t enav_signal_live_count(void);

/* The free lists signals are allocated from (self-accounting for /metrics). */
struct enav_signal_pool_stats {
	uint64_t reused;      /* signals that took a free block */
	uint64_t allocated;   /* blocks taken from the C library */
	uint64_t released;    /* blocks given back: a list at its cap, or too large to keep */
	uint64_t free_blocks; /* blocks on the lists now */
	uint64_t free_bytes;
};
void enav_signal_pool_stats(struct enav_signal_pool_stats *st);

#endif
