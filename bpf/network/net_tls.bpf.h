/* SPDX-License-Identifier: Apache-2.0 */
/*
 * TLS plaintext: nine programs (library uprobes, Go crypto/tls uprobes) and
 * their maps.  Separate because it follows user-space libraries, not the
 * kernel; it shares the connection map, the scratch buffer and l7_emit with
 * the syscall path, and sys_exit (net_payload.bpf.h) binds its calls to
 * their sockets.
 *
 * Libraries (OpenSSL SSL_read/_ex, SSL_write/_ex; GnuTLS gnutls_record_recv
 * and _send): an entry uprobe remembers the call's object and buffer per
 * thread, a return probe emits the bytes the call returned.  Both usually sit
 * inside the function, on instructions the kernel emulates rather than
 * single-steps (src/features/network/tls/tls_sites.h): the "return probe" is
 * then a plain uprobe just before the ret, where RAX already holds the
 * result, running the same program.  The library
 * object is tied to its socket by the read or write syscalls the library
 * makes inside the call (or inside its handshake): the sys_exit program
 * sees a TLS call open on the thread and records the socket in it.  A call
 * served from the library's own buffer uses the socket bound earlier.  No
 * socket seen: the bytes are counted and dropped, never guessed.
 *
 * Go crypto/tls ((*Conn).Read and Write): arguments in Go's register ABI
 * (receiver in AX, the slice in BX/CX, the result n in AX).  Writes are
 * emitted at entry (Write returns only when all is written).  Reads are
 * keyed by goroutine (R14 holds the g pointer) because a goroutine may
 * resume on another thread, and finished at each return instruction
 * because Go moves stacks, which breaks return probes.  The socket comes from the
 * *Conn through the net.Conn interface: only when its itab is
 * *net.TCPConn's (checked against the binary's own symbol), then netFD ->
 * poll.FD.Sysfd, with offsets the agent resolved for this binary.
 *
 * The plaintext stream of each session carries its own offsets, so the user
 * side finds gaps as it does with TCP sequence numbers.  When the session's
 * handshake was seen and its TCP connection followed from the start, the
 * offsets are absolute and shifted by the client's initial sequence number
 * (FROM_START): both ends of a connection then compute the same values.
 */
#ifndef ENAV_NET_TLS_BPF_H
#define ENAV_NET_TLS_BPF_H

#include "net_l7.bpf.h"

/* Set before load: TLS capture on (sources.network.tls.enabled). */
const volatile __u32 enav_tls_enabled = 0;

enum tls_op { TLS_OP_READ = 1, TLS_OP_WRITE = 2, TLS_OP_HANDSHAKE = 3 };

/* A library call in flight on a thread. */
struct tls_call {
	__u64 obj; /* SSL *, gnutls_session_t */
	__u64 buf;
	__u64 out_len; /* SSL_*_ex: where the byte count is written; 0 otherwise */
	__u64 sock;    /* struct sock * the call read or wrote, 0 until seen */
	__u8 op;       /* enum tls_op */
	__u8 library;  /* enum enav_tls_library */
	__u8 pad[6];
};

struct tls_key {
	__u32 tgid;
	__u32 pad;
	__u64 obj; /* the session object's address in that process */
};

struct tls_session {
	__u64 sock;	 /* bound by a nested syscall (libraries) or from the fd (Go) */
	__u32 offset[2]; /* plaintext bytes so far: 0 sent, 1 received */
	__u32 base;	 /* the client's initial TCP sequence + 1, when known */
	__u8 from_start; /* created by the handshake: offsets are absolute */
	__u8 base_state; /* 0 not computed yet, 1 known, 2 unknowable */
	__u8 pad[2];
	struct l7_stream l7s;
};

/* Counters of the TLS path (user side sums and exports them). */
enum tls_counter {
	TLS_C_CALLS = 0,    /* calls whose bytes were emitted */
	TLS_C_NO_SOCKET,    /* bytes with no socket bound to the session: dropped */
	TLS_C_NOT_TCP_CONN, /* Go: net.Conn is not a *net.TCPConn: dropped */
	TLS_C_CALLS_FULL,   /* in-flight call table full: call not followed */
	TLS_C_SESSIONS_FULL,
	TLS_C_READ_FAULT, /* user memory unreadable */
	TLS_C__COUNT,
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TLS_C__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} enav_tls_counters SEC(".maps");

static __always_inline void tls_count(enum tls_counter k)
{
	enav_count_in(&enav_tls_counters, k);
}

/* LRU: a thread that exits inside a call (a process ending while blocked in
 * SSL_read) never returns, and its entry must not hold a slot forever. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096); /* tls.max_inflight, set before load */
	__type(key, __u64);	   /* pid_tgid */
	__type(value, struct tls_call);
} enav_tls_calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384); /* tls.max_sessions, set before load */
	__type(key, struct tls_key);
	__type(value, struct tls_session);
} enav_tls_sessions SEC(".maps");

/* Called by sys_exit for a read or write on an inet socket: if a TLS call is
 * open on this thread, these are its bytes on the wire. */
static __always_inline void tls_bind_socket(struct sock *sk)
{
	if (!enav_tls_enabled)
		return;
	__u64 id = bpf_get_current_pid_tgid();
	struct tls_call *call = bpf_map_lookup_elem(&enav_tls_calls, &id);
	if (!call)
		return;
	call->sock = (__u64)sk;
	/* Ciphertext is never captured at the syscall level. */
	__u64 key = (__u64)sk;
	struct conn *c = bpf_map_lookup_elem(&enav_conns, &key);
	if (c)
		c->l7s.l7 = ENAV_L7_CLASS_NONE;
}

static __always_inline struct tls_session *tls_session_get(struct tls_key *k, bool from_start)
{
	struct tls_session *s = bpf_map_lookup_elem(&enav_tls_sessions, k);
	if (s)
		return s;
	struct tls_session n = {.from_start = from_start};
	if (bpf_map_update_elem(&enav_tls_sessions, k, &n, BPF_NOEXIST) != 0)
		tls_count(TLS_C_SESSIONS_FULL);
	return bpf_map_lookup_elem(&enav_tls_sessions, k);
}

/* Emit n plaintext bytes at buf of session s on socket sk. */
static __always_inline void tls_emit(void *ctx, struct tls_session *s, struct sock *sk, bool sent,
				     __u64 buf, __u64 n, __u8 library, bool compat)
{
	int dir = sent ? 0 : 1;
	__u32 seq = s->offset[dir & 1];
	s->offset[dir & 1] = seq + (__u32)n;
	if (s->l7s.l7 == ENAV_L7_CLASS_NONE)
		return; /* plaintext of no enabled protocol */
	struct l7_scratch *sc = enav_scratch(&enav_l7_scratch);
	if (!sc)
		return;
	sc->base[0] = buf;
	sc->seglen[0] = 1ull << 62;
	sc->segstart[0] = 0;
#pragma unroll
	for (int k = 1; k < L7_MAX_IOV; k++)
		sc->segstart[k] = 1ull << 62;
	sc->n_seg = 1;
	__u64 key = (__u64)sk;
	struct conn *c = bpf_map_lookup_elem(&enav_conns, &key);
	if (!s->base_state) {
		/*
		 * Offsets alone repeat on every connection (the first request is at
		 * 0), so ids derived from them would collide when a client port is
		 * reused.  Both ends know the client's initial sequence number:
		 * the TCP sequence now minus every byte the connection moved, when
		 * it was followed from its start.
		 */
		s->base_state = 2;
		if (c && !(c->flags & ENAV_TCP_PREDATES_ATTACH) && c->role != ENAV_ROLE_UNKNOWN) {
			struct tcp_sock *tp = (void *)sk;
			if (c->role == ENAV_ROLE_CLIENT)
				s->base = BPF_CORE_READ(tp, write_seq) - (__u32)c->bytes_sent;
			else
				s->base = BPF_CORE_READ(tp, copied_seq) - (__u32)c->bytes_received;
			s->base_state = 1;
		}
	}
	bool absolute = s->from_start && s->base_state == 1;
	struct l7_call call = {
	    .ret = n,
	    .seq = s->base + seq,
	    .sent = sent,
	    .role = c ? c->role : ENAV_ROLE_UNKNOWN,
	    .flags = ENAV_L7_SEQ_VALID | ENAV_L7_TLS | (absolute ? ENAV_L7_TLS_FROM_START : 0),
	    .tls_library = library,
	    .cgroup_id = bpf_get_current_cgroup_id(),
	};
	tls_count(TLS_C_CALLS);
	l7_emit(ctx, sc, sk, &s->l7s, c, &call, compat);
}

/* ---- libraries (OpenSSL, GnuTLS) ---------------------------------------- */

static __always_inline int tls_enter_lib(struct pt_regs *ctx, __u8 op, bool ex, __u8 library)
{
	if (!enav_admitted(bpf_get_current_cgroup_id()))
		return 0;
	struct tls_call call = {
	    .obj = PT_REGS_PARM1(ctx),
	    .buf = PT_REGS_PARM2(ctx),
	    .out_len = ex ? PT_REGS_PARM4(ctx) : 0,
	    .op = op,
	    .library = library,
	};
	__u64 id = bpf_get_current_pid_tgid();
	if (bpf_map_update_elem(&enav_tls_calls, &id, &call, BPF_ANY) != 0)
		tls_count(TLS_C_CALLS_FULL);
	return 0;
}

/* The library is the probe's cookie (bpf_get_attach_cookie, Linux 5.15+). */
static __always_inline int tls_enter(struct pt_regs *ctx, __u8 op, bool ex)
{
	return tls_enter_lib(ctx, op, ex, bpf_get_attach_cookie(ctx));
}

SEC("uprobe")
int enav_tls_read_enter(struct pt_regs *ctx)
{
	return tls_enter(ctx, TLS_OP_READ, false);
}

SEC("uprobe")
int enav_tls_read_ex_enter(struct pt_regs *ctx)
{
	return tls_enter(ctx, TLS_OP_READ, true);
}

SEC("uprobe")
int enav_tls_write_enter(struct pt_regs *ctx)
{
	return tls_enter(ctx, TLS_OP_WRITE, false);
}

SEC("uprobe")
int enav_tls_write_ex_enter(struct pt_regs *ctx)
{
	return tls_enter(ctx, TLS_OP_WRITE, true);
}

SEC("uprobe")
int enav_tls_handshake_enter(struct pt_regs *ctx)
{
	return tls_enter(ctx, TLS_OP_HANDSHAKE, false);
}

/* Return of any of the calls above. */
static __always_inline int tls_return(struct pt_regs *ctx, bool compat)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct tls_call *p = bpf_map_lookup_elem(&enav_tls_calls, &id);
	if (!p)
		return 0;
	struct tls_call call = *p;
	bpf_map_delete_elem(&enav_tls_calls, &id);
	/* OpenSSL's functions return int (the upper half of RAX is not theirs
	 * to clear); GnuTLS's return ssize_t. */
	long rc = call.library == ENAV_TLS_LIB_OPENSSL ? (long)(int)PT_REGS_RC(ctx)
						       : (long)PT_REGS_RC(ctx);
	struct tls_key k = {.tgid = id >> 32, .obj = call.obj};
	if (call.op == TLS_OP_HANDSHAKE) {
		/* A session first seen in its handshake: offsets are absolute. */
		struct tls_session *s = tls_session_get(&k, true);
		if (s && call.sock)
			s->sock = call.sock;
		return 0;
	}
	__u64 n = 0;
	if (call.out_len) { /* SSL_read_ex/SSL_write_ex: 1 and *len on success */
		if (rc != 1 || bpf_probe_read_user(&n, sizeof(n), (void *)call.out_len))
			return 0;
	} else {
		if (rc <= 0)
			return 0;
		n = rc;
	}
	if (!n)
		return 0;
	struct tls_session *s = tls_session_get(&k, false);
	if (!s)
		return 0;
	if (call.sock)
		s->sock = call.sock;
	if (!s->sock) {
		tls_count(TLS_C_NO_SOCKET);
		return 0;
	}
	tls_emit(ctx, s, (struct sock *)s->sock, call.op == TLS_OP_WRITE, call.buf, n, call.library,
		 compat);
	return 0;
}

SEC("uretprobe")
int enav_tls_return(struct pt_regs *ctx)
{
	return tls_return(ctx, false);
}

/*
 * Kernels without bpf_get_attach_cookie (before 5.15: Debian 11's 5.10):
 * an entry program per library and call, the library a constant, and a
 * return program built without global functions (net_l7.bpf.h).  The agent
 * attaches these or the ones above, as the probe says (tls_attach.c).
 */
SEC("uprobe")
int enav_tls_compat_ossl_read(struct pt_regs *ctx)
{
	return tls_enter_lib(ctx, TLS_OP_READ, false, ENAV_TLS_LIB_OPENSSL);
}

SEC("uprobe")
int enav_tls_compat_ossl_read_ex(struct pt_regs *ctx)
{
	return tls_enter_lib(ctx, TLS_OP_READ, true, ENAV_TLS_LIB_OPENSSL);
}

SEC("uprobe")
int enav_tls_compat_ossl_write(struct pt_regs *ctx)
{
	return tls_enter_lib(ctx, TLS_OP_WRITE, false, ENAV_TLS_LIB_OPENSSL);
}

SEC("uprobe")
int enav_tls_compat_ossl_write_ex(struct pt_regs *ctx)
{
	return tls_enter_lib(ctx, TLS_OP_WRITE, true, ENAV_TLS_LIB_OPENSSL);
}

SEC("uprobe")
int enav_tls_compat_ossl_handshake(struct pt_regs *ctx)
{
	return tls_enter_lib(ctx, TLS_OP_HANDSHAKE, false, ENAV_TLS_LIB_OPENSSL);
}

SEC("uprobe")
int enav_tls_compat_gnutls_read(struct pt_regs *ctx)
{
	return tls_enter_lib(ctx, TLS_OP_READ, false, ENAV_TLS_LIB_GNUTLS);
}

SEC("uprobe")
int enav_tls_compat_gnutls_write(struct pt_regs *ctx)
{
	return tls_enter_lib(ctx, TLS_OP_WRITE, false, ENAV_TLS_LIB_GNUTLS);
}

SEC("uprobe")
int enav_tls_compat_gnutls_handshake(struct pt_regs *ctx)
{
	return tls_enter_lib(ctx, TLS_OP_HANDSHAKE, false, ENAV_TLS_LIB_GNUTLS);
}

SEC("uretprobe")
int enav_tls_compat_return(struct pt_regs *ctx)
{
	return tls_return(ctx, true);
}

/* SSL_free, gnutls_deinit: the address may be reused by the next session. */
SEC("uprobe")
int enav_tls_free_enter(struct pt_regs *ctx)
{
	struct tls_key k = {.tgid = bpf_get_current_pid_tgid() >> 32, .obj = PT_REGS_PARM1(ctx)};
	bpf_map_delete_elem(&enav_tls_sessions, &k);
	return 0;
}

/* ---- Go crypto/tls -------------------------------------------------------- */

/* Per probed Go binary, written by the agent (src/features/network/tls/go_tls.c). */
struct go_tls_binary {
	__u64 itab_tcpconn; /* go:itab.*net.TCPConn,net.Conn, link-time address */
	__u64 read_entry;   /* (*Conn).Read's entry probe (at or past its stack check), link-time
			       address */
	__u64 write_entry;  /* (*Conn).Write's */
	__u32 conn_iface;   /* offset of tls.Conn.conn (a net.Conn interface) */
	__u32 tcpconn_fd;   /* offset of net.TCPConn's conn.fd (*netFD) */
	__u32 netfd_sysfd;  /* offset of netFD.pfd.Sysfd */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 64); /* tls.max_binaries, set before load */
	__type(key, __u32);
	__type(value, struct go_tls_binary);
} enav_go_tls_binaries SEC(".maps");

struct go_call {
	__u64 conn; /* *tls.Conn */
	__u64 buf;
	__u64 bias; /* load bias of the binary (PIE), from the entry address */
	__u8 op;
	__u8 pad[7];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH); /* as enav_tls_calls */
	__uint(max_entries, 4096);	     /* tls.max_inflight */
	__type(key, struct tls_key);	     /* obj = the goroutine (g) */
	__type(value, struct go_call);
} enav_go_tls_calls SEC(".maps");

/* Emit n bytes at buf of the *tls.Conn conn, once its socket is proven. */
static __always_inline void go_emit(void *ctx, struct go_tls_binary *b, __u64 conn, __u64 bias,
				    __u64 buf, __u64 n, bool sent)
{
	/* *tls.Conn -> net.Conn{itab, data}: only a *net.TCPConn is followed. */
	__u64 iface[2];
	if (bpf_probe_read_user(iface, sizeof(iface), (void *)(conn + b->conn_iface))) {
		tls_count(TLS_C_READ_FAULT);
		return;
	}
	if (iface[0] != b->itab_tcpconn + bias) {
		tls_count(TLS_C_NOT_TCP_CONN);
		return;
	}
	__u64 netfd = 0;
	__s64 fd = -1;
	if (bpf_probe_read_user(&netfd, sizeof(netfd), (void *)(iface[1] + b->tcpconn_fd)) ||
	    bpf_probe_read_user(&fd, sizeof(fd), (void *)(netfd + b->netfd_sysfd)) || fd < 0) {
		tls_count(TLS_C_READ_FAULT);
		return;
	}
	struct sock *sk = fd_to_sock(fd);
	if (!sk || sk_protocol(sk) != IPPROTO_TCP) {
		tls_count(TLS_C_NO_SOCKET);
		return;
	}
	struct tls_key k = {.tgid = bpf_get_current_pid_tgid() >> 32, .obj = conn};
	struct tls_session *s = tls_session_get(&k, false);
	if (!s)
		return;
	s->sock = (__u64)sk;
	tls_emit(ctx, s, sk, sent, buf, n, ENAV_TLS_LIB_GO, false);
}

/* On the stack-bound check's JBE rather than past it (the cookie says). */
#define GO_AT_CHECK 0x10
#define X86_CF	    0x01
#define X86_ZF	    0x40

/* Cookie: binary index << 8 | GO_AT_CHECK? | enum tls_op. */
SEC("uprobe")
int enav_go_tls_enter(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);
	__u8 op = cookie & 0x0f;
	__u32 idx = cookie >> 8;
	/*
	 * A probe on the JBE (the kernel emulates a conditional jump; the
	 * body's first instruction, go1.19's SUBQ, it must single-step at about
	 * 35 times the cost): the call begins only when the JBE falls through.
	 * When it jumps (below or equal: CF or ZF), the stack must grow or the
	 * scheduler wants the goroutine, and the runtime restarts the call from
	 * its first byte, which comes back here.
	 */
	if ((cookie & GO_AT_CHECK) && (ctx->flags & (X86_CF | X86_ZF)))
		return 0;
	struct tls_key k = {.tgid = bpf_get_current_pid_tgid() >> 32};
	if (op == TLS_OP_HANDSHAKE) {
		/* clientHandshake/serverHandshake run once per session: a new
		 * *Conn, possibly at a collected one's address. */
		k.obj = ctx->ax;
		struct tls_session n = {.from_start = 1};
		if (bpf_map_update_elem(&enav_tls_sessions, &k, &n, BPF_ANY) != 0)
			tls_count(TLS_C_SESSIONS_FULL);
		return 0;
	}
	if (!enav_admitted(bpf_get_current_cgroup_id()))
		return 0;
	struct go_tls_binary *b = bpf_map_lookup_elem(&enav_go_tls_binaries, &idx);
	if (!b)
		return 0;
	/* The probe's address is the link address plus the load bias, which
	 * is page aligned: the difference masked to pages is the bias. */
	__u64 entry = op == TLS_OP_WRITE ? b->write_entry : b->read_entry;
	__u64 bias = (PT_REGS_IP(ctx) - entry) & ~0xfffull;
	if (op == TLS_OP_WRITE) {
		/*
		 * Write returns only once every byte is written (or the
		 * connection failed), and another goroutine may read the peer's
		 * answer before this one returns: emitted here, the request
		 * always precedes its response.
		 */
		if ((long)ctx->cx > 0)
			go_emit(ctx, b, ctx->ax, bias, ctx->bx, ctx->cx, true);
		return 0;
	}
	k.obj = ctx->r14; /* the goroutine: it may resume on another thread */
	struct go_call call = {.conn = ctx->ax, .buf = ctx->bx, .bias = bias, .op = op};
	if (bpf_map_update_elem(&enav_go_tls_calls, &k, &call, BPF_ANY) != 0)
		tls_count(TLS_C_CALLS_FULL);
	return 0;
}

/* At every return instruction of Read; cookie = binary index << 8. */
SEC("uprobe")
int enav_go_tls_return(struct pt_regs *ctx)
{
	struct tls_key k = {.tgid = bpf_get_current_pid_tgid() >> 32, .obj = ctx->r14};
	struct go_call *p = bpf_map_lookup_elem(&enav_go_tls_calls, &k);
	if (!p)
		return 0;
	struct go_call call = *p;
	bpf_map_delete_elem(&enav_go_tls_calls, &k);
	long n = ctx->ax;
	if (n <= 0)
		return 0;
	__u32 idx = bpf_get_attach_cookie(ctx) >> 8;
	struct go_tls_binary *b = bpf_map_lookup_elem(&enav_go_tls_binaries, &idx);
	if (b)
		go_emit(ctx, b, call.conn, call.bias, call.buf, n, false);
	return 0;
}

#endif
