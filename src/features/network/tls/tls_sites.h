/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Where in a TLS library function a uprobe costs least.  The kernel steps
 * over the breakpoint's original instruction either by emulating it (direct
 * call and jump, conditional jump, push of a register) or by running it out
 * of line under the trap flag, a second exception.  On this machine
 * (Firecracker guest) the first costs about 0.4 us per hit and the second
 * about 17 us (bench/uprobe_floor.c), and OpenSSL 3's SSL_read and SSL_write
 * begin with `sub $N, %rsp`, which is not emulated; a return probe also
 * needs the breakpoint on the first instruction, where it can find the
 * return address.
 *
 * So, from the function's decoded machine code:
 *  - entry site: the first emulated instruction, reached once per call on a
 *    straight line from the first byte, with the argument registers the
 *    entry program reads still untouched;
 *  - return site: an emulated instruction that every return passes once,
 *    after which nothing writes RAX up to the function's only `ret` (the
 *    stack-protector check's conditional jump is one): a plain uprobe there
 *    reads the return value as a return probe would.
 * Anything the rules cannot prove (indirect jumps, tail calls, several
 * returns, undecodable bytes) gives no site, and the caller keeps the
 * classic first-byte entry and return probes.
 */
#ifndef ENAV_FEATURES_NETWORK_TLS_TLS_SITES_H
#define ENAV_FEATURES_NETWORK_TLS_TLS_SITES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Argument registers an entry program reads (a bit mask). */
#define ENAV_TLS_ARG_RDI (1u << 0)
#define ENAV_TLS_ARG_RSI (1u << 1)
#define ENAV_TLS_ARG_RDX (1u << 2)
#define ENAV_TLS_ARG_RCX (1u << 3)

/* Does the kernel emulate this instruction (no out-of-line single-step)? */
bool enav_tls_insn_emulated(const uint8_t *bytes, size_t len);

/* The same for the instruction that starts at code, whatever its length
 * (each emulated form is told apart by its opcode). */
bool enav_tls_starts_emulated(const uint8_t *code, size_t len);

/* Entry site of the function whose code (x86-64, loaded at vaddr) is given:
 * 0 and *out its address, -1 when none is proven. */
int enav_tls_entry_site(const uint8_t *code, size_t len, uint64_t vaddr, unsigned args,
			uint64_t *out);

/* Return site, as above. */
int enav_tls_return_site(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t *out);

/* A function of a shared library, from its dynamic symbol table. */
struct enav_tls_func_code {
	bool found;		     /* a defined function of that name with code in a segment */
	uint64_t vaddr, file_offset; /* when found */
	uint8_t *code;		     /* st_size bytes, malloc'd (the caller frees it), or NULL */
	size_t len;
};

struct enav_tenant_budget;

/*
 * Read each named function of the ELF file open on fd (a tenant's file,
 * opened by platform/tenant_file: nothing here opens a path).  The file is
 * read with pread only (libelf's ELF_C_READ, never a mapping, so a file cut
 * short while it is read is an error, not a SIGBUS), each section and code
 * read charged to b (NULL: no budget).  A name absent, or whose code cannot
 * be read, has found false or code NULL.  -1 when the file is no ELF or the
 * budget ran out (b->exhausted).
 */
int enav_tls_read_functions(int fd, const char *const *names, size_t n,
			    struct enav_tls_func_code *out, struct enav_tenant_budget *b);

#endif
