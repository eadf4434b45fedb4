/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TLS prober's Go executables: the plan of go_tls.c, read through the
 * descriptor tls_attach.c opened, attached through that same descriptor.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <string.h>

#include "platform/log.h"
#include "features/network/tls/go_tls.h"
#include "features/network/tls/tls_attach_priv.h"
#include "features/network/tls/tls_sites.h"

/* Go's probes sit where Go's code dictates: count the ones the kernel
 * single-steps (every RET; an entry unless it is emulated).  Read through
 * the descriptor the plan came from. */
static bool stepped_at(int fd, struct enav_tenant_budget *b, uint64_t offset)
{
	uint8_t c[6] = {0}; /* the longest emulated form */
	/* Near the end of the file fewer bytes exist: the one-byte forms. */
	for (size_t n = sizeof(c); n > 0; n--)
		if (enav_tenant_pread(fd, c, n, offset, b) == (ssize_t)n)
			return !enav_tls_starts_emulated(c, n);
	return true;
}

/* enum tls_op in bpf/network/net_tls.bpf.h */
#define GO_OP_READ	1
#define GO_OP_WRITE	2
#define GO_OP_HANDSHAKE 3
/* The probe is on the stack-bound check's JBE (GO_AT_CHECK in net_tls.bpf.h). */
#define GO_AT_CHECK 0x10

/* Where (*Conn).Read's or Write's entry probe goes: the body's first
 * instruction when the kernel emulates it, else the JBE before it, which it
 * always emulates (the program then counts only the fall-through). */
static void go_entry_site(int fd, struct enav_tenant_budget *b, const struct enav_go_tls_func *f,
			  uint64_t *vaddr, uint64_t *offset, uint64_t *flags)
{
	bool at_check = stepped_at(fd, b, f->body_offset);
	*vaddr = at_check ? f->check_vaddr : f->body_vaddr;
	*offset = at_check ? f->check_offset : f->body_offset;
	*flags = at_check ? GO_AT_CHECK : 0;
}

/* Go's probes of one binary, where attach_go placed them. */
struct go_sites {
	uint64_t read_at, read_off, read_flags, write_at, write_off, write_flags;
	uint64_t hs[2], hs_flags[2];
	uint32_t stepped;
};

static int attach_go_links(struct enav_tls_attach *t, struct target *tg, const char *fd_path,
			   const struct enav_go_tls_plan *plan, const struct go_sites *gs,
			   const char **what)
{
	uint32_t idx = (uint32_t)(tg - t->targets);
	/* Layout of struct go_tls_binary (bpf/network/net_tls.bpf.h). */
	struct {
		uint64_t itab, read_entry, write_entry;
		uint32_t conn_iface, tcpconn_fd, netfd_sysfd, pad;
	} bin = {plan->itab_tcpconn,
		 gs->read_at,
		 gs->write_at,
		 plan->conn_iface,
		 plan->tcpconn_fd,
		 plan->netfd_sysfd,
		 0};
	*what = "the binary table";
	if (bpf_map_update_elem(t->go_map_fd, &idx, &bin, BPF_ANY))
		return -1;
	uint64_t base = (uint64_t)idx << 8;
	/* At or past the stack-bound check: an entry probe sees a call again
	 * each time the runtime restarts it (enav_go_tls_find_body). */
	*what = "(*Conn).Read/Write";
	if (enav_tls_add_link(tg, "enav_go_tls_enter", t->obj, fd_path, gs->read_off, false,
			      base | gs->read_flags | GO_OP_READ) ||
	    enav_tls_add_link(tg, "enav_go_tls_enter", t->obj, fd_path, gs->write_off, false,
			      base | gs->write_flags | GO_OP_WRITE))
		return -1;
	/* Writes are emitted at entry (bpf/network/net_tls.bpf.h): only Read returns. */
	*what = "a return instruction";
	for (uint32_t i = 0; i < plan->read.n_returns; i++)
		if (enav_tls_add_link(tg, "enav_go_tls_return", t->obj, fd_path,
				      plan->read.return_offsets[i], false, base))
			return -1;
	*what = "a handshake function";
	for (int i = 0; i < 2; i++)
		if (gs->hs[i] &&
		    enav_tls_add_link(tg, "enav_go_tls_enter", t->obj, fd_path, gs->hs[i], false,
				      base | gs->hs_flags[i] | GO_OP_HANDSHAKE))
			return -1;
	return 0;
}

void enav_tls_attach_go(struct enav_tls_attach *t, int fd, struct enav_tenant_budget *b,
			const struct enav_tls_candidate *c, uint32_t pid)
{
	struct enav_go_tls_plan plan;
	char err[256];
	enum enav_go_tls_status st = enav_go_tls_analyze(fd, b, &plan, err, sizeof(err));
	if (b->exhausted) {
		enav_tls_file_refused(t, c, pid, REFUSED_BUDGET);
		return;
	}
	if (st != ENAV_GO_TLS_OK) {
		pthread_mutex_lock(&t->lock);
		enav_tls_reject(t, (dev_t)c->dev, (ino_t)c->ino);
		if (st != ENAV_GO_TLS_NOT_GO && st != ENAV_GO_TLS_NO_TLS)
			t->refused_total[ENAV_TLS_LIB_GO]++;
		pthread_mutex_unlock(&t->lock);
		if (st != ENAV_GO_TLS_NOT_GO && st != ENAV_GO_TLS_NO_TLS)
			enav_warn("tls: Go binary %s not probed: %s", c->path, err);
		return;
	}
	/* Every read of the file before the lock and the attach. */
	struct go_sites gs = {0};
	go_entry_site(fd, b, &plan.read, &gs.read_at, &gs.read_off, &gs.read_flags);
	go_entry_site(fd, b, &plan.write, &gs.write_at, &gs.write_off, &gs.write_flags);
	/* A handshake at its JBE when found (a restarted handshake would only
	 * reset the new session twice, but the first byte is single-stepped). */
	uint64_t hs[] = {plan.client_handshake, plan.server_handshake};
	uint64_t hs_check[] = {plan.client_handshake_check, plan.server_handshake_check};
	for (int i = 0; i < 2; i++) {
		gs.hs_flags[i] = hs[i] && hs_check[i] ? GO_AT_CHECK : 0;
		gs.hs[i] = gs.hs_flags[i] ? hs_check[i] : hs[i];
	}
	gs.stepped = plan.read.n_returns;
	uint64_t entries[] = {gs.read_off, gs.write_off, gs.hs[0], gs.hs[1]};
	for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++)
		if (entries[i] && stepped_at(fd, b, entries[i]))
			gs.stepped++;
	uint32_t probes = 2 + plan.read.n_returns + (gs.hs[0] ? 1 : 0) + (gs.hs[1] ? 1 : 0);
	struct target *tg =
	    enav_tls_reserve(t, ENAV_TLS_LIB_GO, c->path, (dev_t)c->dev, (ino_t)c->ino, probes);
	if (!tg)
		return;
	tg->offsets = plan.offsets_source;
	char fd_path[32];
	enav_tenant_fd_path(fd, fd_path);
	const char *what = NULL;
	int rc = attach_go_links(t, tg, fd_path, &plan, &gs, &what);
	tg->stepped = gs.stepped;
	enav_tls_publish(t, tg, rc, what);
	if (rc == 0)
		enav_info("tls: probing Go binary %s (%s, %u return instructions in (*Conn).Read, "
			  "offsets from %s, %u of %u uprobes on an instruction the kernel "
			  "single-steps)",
			  c->path, plan.go_version, plan.read.n_returns, plan.offsets_source,
			  tg->stepped, tg->n_links);
}
