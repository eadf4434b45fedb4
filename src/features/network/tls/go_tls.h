/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What probing Go crypto/tls in one binary needs, read from the binary
 * itself: where (*Conn).Read, Write and the handshakes start, every return
 * instruction of Read (decoded with Capstone: Go moves stacks, which breaks
 * return probes; Write is emitted at entry), the *net.TCPConn itab, and the offsets that
 * lead from a *tls.Conn to its file descriptor, from DWARF when the binary
 * has it and otherwise from a table keyed by the Go version in its build
 * information.  Nothing is guessed: a binary without its symbol table, or
 * with neither DWARF nor a known version, is refused with the reason.
 */
#ifndef ENAV_FEATURES_NETWORK_TLS_GO_TLS_H
#define ENAV_FEATURES_NETWORK_TLS_GO_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENAV_GO_TLS_MAX_RETURNS 64 /* return instructions probed per function */

struct enav_go_tls_func {
	uint64_t vaddr, file_offset; /* entry */
	/* The first instruction after the stack-bound check (the probe's
	 * place): see enav_go_tls_find_body. */
	uint64_t body_vaddr, body_offset;
	/* The check's JBE: a probe there is emulated by the kernel, where the
	 * body's first instruction (go1.19's SUBQ) is single-stepped. */
	uint64_t check_vaddr, check_offset;
	uint32_t n_returns;				  /* Read only */
	uint64_t return_offsets[ENAV_GO_TLS_MAX_RETURNS]; /* file offsets */
};

struct enav_go_tls_plan {
	char go_version[32];
	struct enav_go_tls_func read, write;
	uint64_t client_handshake, server_handshake; /* file offsets, 0 = absent */
	/* Their stack checks' JBE (file offsets), 0 = not found: see check_vaddr. */
	uint64_t client_handshake_check, server_handshake_check;
	uint64_t itab_tcpconn; /* link-time address */
	uint32_t conn_iface, tcpconn_fd, netfd_sysfd;
	const char *offsets_source; /* "dwarf" or "version table" */
};

enum enav_go_tls_status {
	ENAV_GO_TLS_OK = 0,
	ENAV_GO_TLS_NOT_GO,  /* not a Go binary: nothing to say */
	ENAV_GO_TLS_NO_TLS,  /* a Go binary without crypto/tls */
	ENAV_GO_TLS_REFUSED, /* uses crypto/tls but cannot be probed safely: err says why */
	ENAV_GO_TLS_ERROR,   /* unreadable or malformed */
};

struct enav_tenant_budget;

/* Analyse the binary open on fd (a tenant's file, opened by
 * platform/tenant_file: nothing here opens a path).  Read with pread only
 * (libelf's ELF_C_READ, never a mapping: a file cut short meanwhile is an
 * error, not a SIGBUS); every section libelf or libdw is asked for, at its
 * decompressed size, and every code read are charged to b first (NULL: no
 * budget), and an exhausted budget is ENAV_GO_TLS_ERROR with b->exhausted.
 * err holds a one-line reason for REFUSED and ERROR. */
enum enav_go_tls_status enav_go_tls_analyze(int fd, struct enav_tenant_budget *b,
					    struct enav_go_tls_plan *out, char *err, size_t errlen);

/* The offsets table for Go versions without DWARF: true when known.
 * Exposed for the unit test. */
bool enav_go_tls_table_offsets(const char *go_version, uint32_t *conn_iface, uint32_t *tcpconn_fd,
			       uint32_t *netfd_sysfd);
/* "go1.19.8" -> 1, 19; false when not a release version string. */
bool enav_go_version_parse(const char *v, int *major, int *minor);

/*
 * The address of the first instruction after the function's stack-bound
 * check (x86-64 code loaded at vaddr): `[LEAQ -N(SP), R12;] CMPQ 0x10(R14),
 * SP|R12; JBE morestack`.  A probe at the entry fires again whenever the
 * goroutine's stack must grow or the scheduler asked it to yield: the
 * runtime then restarts the function from its first byte, and a write
 * counted at the entry would be counted twice (its bytes duplicated, every
 * later offset of the connection shifted).  Past the check each call is
 * seen once, with the arguments still in their registers.  *check is the
 * JBE's own address (a probe there sees each call once when it counts only
 * the JBE's fall-through).  -1 when the code does not start with that check.
 */
int enav_go_tls_find_body(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t *out,
			  uint64_t *check);

/* Offsets of RET instructions in code (x86-64, loaded at vaddr), up to cap:
 * returns the count found, or -1 when the code does not decode to its end. */
int enav_go_tls_find_returns(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t *out,
			     size_t cap);

#endif
