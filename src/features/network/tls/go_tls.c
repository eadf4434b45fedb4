/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/tls/go_tls.h"

#include <capstone/capstone.h>
#include <elf.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/tenant_file.h"
#include "golang/go_buildinfo.h"
#include "golang/gopclntab.h"

#define FUNC_MAX_BYTES	 (256u << 10) /* a crypto/tls method is a few KiB */
#define PCLNTAB_MAX_SCAN (64u << 20)

static const char SYM_READ[] = "crypto/tls.(*Conn).Read";
static const char SYM_WRITE[] = "crypto/tls.(*Conn).Write";
static const char SYM_CLIENT_HS[] = "crypto/tls.(*Conn).clientHandshake";
static const char SYM_SERVER_HS[] = "crypto/tls.(*Conn).serverHandshake";
/* go.itab. before Go 1.20, go:itab. since. */
static const char SYM_ITAB_OLD[] = "go.itab.*net.TCPConn,net.Conn";
static const char SYM_ITAB_NEW[] = "go:itab.*net.TCPConn,net.Conn";

bool enav_go_version_parse(const char *v, int *major, int *minor)
{
	if (!v || strncmp(v, "go", 2) != 0)
		return false;
	char *end;
	long ma = strtol(v + 2, &end, 10);
	if (end == v + 2 || *end != '.')
		return false;
	const char *m = end + 1;
	long mi = strtol(m, &end, 10);
	if (end == m || ma < 1 || ma > 9 || mi < 0 || mi > 999)
		return false;
	*major = (int)ma;
	*minor = (int)mi;
	return true;
}

/*
 * Offsets for binaries without DWARF.  From 1.17 (the first amd64 release
 * with the register ABI the probes read) through 1.23 the path is
 * tls.Conn.conn at 0 (an interface: itab, data), net.TCPConn{conn{fd}} at 0,
 * netFD.pfd at 0 and poll.FD.Sysfd after fdMutex (16 bytes).  Newer
 * versions are refused until they are checked against their DWARF.
 */
bool enav_go_tls_table_offsets(const char *go_version, uint32_t *conn_iface, uint32_t *tcpconn_fd,
			       uint32_t *netfd_sysfd)
{
	int ma, mi;
	if (!enav_go_version_parse(go_version, &ma, &mi) || ma != 1 || mi < 17 || mi > 23)
		return false;
	*conn_iface = 0;
	*tcpconn_fd = 0;
	*netfd_sysfd = 16;
	return true;
}

/* A Capstone x86-64 decoder and one instruction buffer (operand details on
 * request); the caller frees both with cs_free and cs_close. */
static bool x86_open(csh *h, cs_insn **insn, bool detail)
{
	if (cs_open(CS_ARCH_X86, CS_MODE_64, h) != CS_ERR_OK)
		return false;
	if (detail)
		cs_option(*h, CS_OPT_DETAIL, CS_OPT_ON);
	*insn = cs_malloc(*h);
	if (!*insn) {
		cs_close(h);
		return false;
	}
	return true;
}

int enav_go_tls_find_returns(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t *out,
			     size_t cap)
{
	csh h;
	cs_insn *insn;
	if (!x86_open(&h, &insn, false))
		return -1;
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = vaddr;
	int n = 0;
	while (left > 0 && cs_disasm_iter(h, &p, &left, &addr, insn)) {
		if (insn->id == X86_INS_RET) {
			if ((size_t)n == cap) {
				n = -1;
				break;
			}
			out[n++] = insn->address;
		}
	}
	if (left != 0)
		n = -1; /* undecodable bytes: the return list would be incomplete */
	cs_free(insn, 1);
	cs_close(&h);
	return n;
}

/* Is op the memory operand 0x10(R14), g.stackguard0 in Go's register ABI? */
static bool is_stackguard(const cs_x86_op *op)
{
	return op->type == X86_OP_MEM && op->mem.base == X86_REG_R14 &&
	       op->mem.index == X86_REG_INVALID && op->mem.disp == 0x10;
}

int enav_go_tls_find_body(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t *out,
			  uint64_t *check)
{
	csh h;
	cs_insn *insn;
	if (!x86_open(&h, &insn, true))
		return -1;
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = vaddr;
	int rc = -1;
	bool compared = false;
	/* A large frame first computes its lowest address into R12. */
	for (int i = 0; i < 3 && left > 0 && cs_disasm_iter(h, &p, &left, &addr, insn); i++) {
		const cs_x86 *x = &insn->detail->x86;
		if (i == 0 && insn->id == X86_INS_LEA && x->op_count == 2 &&
		    x->operands[0].type == X86_OP_REG && x->operands[0].reg == X86_REG_R12)
			continue;
		if (!compared) {
			if (insn->id != X86_INS_CMP || x->op_count != 2 ||
			    !(is_stackguard(&x->operands[0]) || is_stackguard(&x->operands[1])))
				break;
			compared = true;
			continue;
		}
		/* JBE to the morestack call inside this function. */
		if (insn->id == X86_INS_JBE && x->op_count == 1 &&
		    x->operands[0].type == X86_OP_IMM && (uint64_t)x->operands[0].imm > vaddr &&
		    (uint64_t)x->operands[0].imm < vaddr + len) {
			*out = insn->address + insn->size;
			*check = insn->address;
			rc = 0;
		}
		break;
	}
	cs_free(insn, 1);
	cs_close(&h);
	return rc;
}

struct dwarf_want {
	const char *type, *member;
	bool found;
	uint64_t offset;
};

static void dwarf_members(Dwarf_Die *st, struct dwarf_want *w, size_t n)
{
	const char *tname = dwarf_diename(st);
	if (!tname)
		return;
	for (size_t i = 0; i < n; i++) {
		if (w[i].found || strcmp(tname, w[i].type) != 0)
			continue;
		Dwarf_Die m;
		if (dwarf_child(st, &m) != 0)
			continue;
		do {
			const char *mn = dwarf_diename(&m);
			Dwarf_Attribute a;
			Dwarf_Word off;
			if (dwarf_tag(&m) == DW_TAG_member && mn && strcmp(mn, w[i].member) == 0 &&
			    dwarf_attr(&m, DW_AT_data_member_location, &a) &&
			    dwarf_formudata(&a, &off) == 0) {
				w[i].found = true;
				w[i].offset = off;
				break;
			}
		} while (dwarf_siblingof(&m, &m) == 0);
	}
}

/* What libdw may read of the DWARF sections, at their decompressed size
 * (a compressed section is a tenant's ratio, up to about 1000:1), charged
 * before it reads any: false when the budget does not allow it. */
static bool charge_dwarf(int fd, Elf *elf, struct enav_tenant_budget *b)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n =
		    gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!n || (strncmp(n, ".debug_", 7) != 0 && strncmp(n, ".zdebug_", 8) != 0) ||
		    sh.sh_type == SHT_NOBITS)
			continue;
		uint64_t size = sh.sh_size;
		if (sh.sh_flags & SHF_COMPRESSED) {
			GElf_Chdr ch;
			if (!enav_tenant_budget_charge(b, sh.sh_size) || !gelf_getchdr(scn, &ch))
				return false;
			size = ch.ch_size;
		} else if (n[1] == 'z') {
			/* GNU's old form: "ZLIB" and the size, big-endian. */
			uint8_t h[12];
			if (enav_tenant_pread(fd, h, sizeof(h), sh.sh_offset, b) < 0 ||
			    memcmp(h, "ZLIB", 4) != 0)
				return false;
			size = sh.sh_size;
			uint64_t raw = 0;
			for (int i = 4; i < 12; i++)
				raw = raw << 8 | h[i];
			size += raw;
		}
		if (!enav_tenant_budget_charge(b, size))
			return false;
	}
	return true;
}

/* Member offsets from the binary's DWARF; false when any is missing. */
static bool dwarf_offsets(Elf *elf, struct enav_go_tls_plan *p)
{
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw)
		return false;
	struct dwarf_want w[] = {
	    {"crypto/tls.Conn", "conn", false, 0},
	    {"net.TCPConn", "conn", false, 0},
	    {"net.conn", "fd", false, 0},
	    {"net.netFD", "pfd", false, 0},
	    {"internal/poll.FD", "Sysfd", false, 0},
	};
	size_t nw = sizeof(w) / sizeof(w[0]);
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, d;
		if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_child(&cu, &d) == 0) {
			do {
				if (dwarf_tag(&d) == DW_TAG_structure_type)
					dwarf_members(&d, w, nw);
			} while (dwarf_siblingof(&d, &d) == 0);
		}
		off = next;
	}
	dwarf_end(dw);
	for (size_t i = 0; i < nw; i++)
		if (!w[i].found || w[i].offset > 4096)
			return false;
	p->conn_iface = (uint32_t)w[0].offset;
	p->tcpconn_fd = (uint32_t)(w[1].offset + w[2].offset);
	p->netfd_sysfd = (uint32_t)(w[3].offset + w[4].offset);
	return true;
}

/* Link-time address -> file offset through the executable PT_LOAD. */
static bool vaddr_to_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

static Elf_Scn *find_section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
		if (n && strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

/* A stripped binary still names its functions in .gopclntab (the runtime
 * needs them): enough to know it uses crypto/tls, not to probe it. */
static bool pclntab_mentions_tls(Elf *elf, struct enav_tenant_budget *b)
{
	GElf_Shdr sh;
	struct enav_gopclntab t;
	Elf_Scn *scn = find_section(elf, ".gopclntab", &sh);
	if (!scn || sh.sh_type == SHT_NOBITS || sh.sh_size > PCLNTAB_MAX_SCAN ||
	    !enav_tenant_budget_charge(b, sh.sh_size))
		return false;
	Elf_Data *d = elf_getdata(scn, NULL);
	/* Only names are compared: the text start does not matter. */
	return d && d->d_buf && enav_gopclntab_open(d->d_buf, d->d_size, 0, &t) == 0 &&
	       enav_gopclntab_has_func(&t, SYM_READ);
}

struct syms {
	GElf_Sym read, write, client_hs, server_hs, itab;
	bool has_read, has_write, has_client_hs, has_server_hs, has_itab;
};

static bool read_symtab(Elf *elf, struct syms *s, struct enav_tenant_budget *b)
{
	GElf_Shdr sh, str;
	Elf_Scn *scn = find_section(elf, ".symtab", &sh);
	if (!scn || sh.sh_entsize == 0)
		return false;
	/* The symbols and their names, charged before libelf reads them. */
	Elf_Scn *strscn = elf_getscn(elf, sh.sh_link);
	if (!strscn || !gelf_getshdr(strscn, &str) || !enav_tenant_budget_charge(b, sh.sh_size) ||
	    !enav_tenant_budget_charge(b, str.sh_size))
		return false;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d)
		return false;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym))
			break;
		const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
		if (!name || (name[0] != 'c' && name[0] != 'g'))
			continue;
		if (!strcmp(name, SYM_READ))
			s->read = sym, s->has_read = true;
		else if (!strcmp(name, SYM_WRITE))
			s->write = sym, s->has_write = true;
		else if (!strcmp(name, SYM_CLIENT_HS))
			s->client_hs = sym, s->has_client_hs = true;
		else if (!strcmp(name, SYM_SERVER_HS))
			s->server_hs = sym, s->has_server_hs = true;
		else if (!strcmp(name, SYM_ITAB_OLD) || !strcmp(name, SYM_ITAB_NEW))
			s->itab = sym, s->has_itab = true;
	}
	return true;
}

static int plan_func(int fd, struct enav_tenant_budget *b, Elf *elf, const GElf_Sym *sym,
		     struct enav_go_tls_func *f, const char *name, bool returns, char *err,
		     size_t errlen)
{
	f->vaddr = sym->st_value;
	if (!vaddr_to_offset(elf, sym->st_value, &f->file_offset) || sym->st_size == 0 ||
	    sym->st_size > FUNC_MAX_BYTES) {
		snprintf(err, errlen, "%s: no code in an executable segment", name);
		return -1;
	}
	uint8_t *code = malloc(sym->st_size);
	if (!code) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ssize_t got = enav_tenant_pread(fd, code, sym->st_size, f->file_offset, b);
	if (got != (ssize_t)sym->st_size ||
	    enav_go_tls_find_body(code, sym->st_size, sym->st_value, &f->body_vaddr,
				  &f->check_vaddr) != 0) {
		free(code);
		snprintf(err, errlen,
			 "%s: no stack-bound check at its entry (a probe there could see a call "
			 "twice)",
			 name);
		return -1;
	}
	f->body_offset = f->body_vaddr - f->vaddr + f->file_offset;
	f->check_offset = f->check_vaddr - f->vaddr + f->file_offset;
	if (!returns) {
		free(code);
		return 0;
	}
	uint64_t rets[ENAV_GO_TLS_MAX_RETURNS];
	int n = enav_go_tls_find_returns(code, sym->st_size, sym->st_value, rets,
					 ENAV_GO_TLS_MAX_RETURNS);
	free(code);
	if (n <= 0) {
		snprintf(err, errlen, "%s: %s", name,
			 n == 0 ? "no return instruction found"
				: "machine code does not decode (or over 64 returns)");
		return -1;
	}
	f->n_returns = (uint32_t)n;
	for (int i = 0; i < n; i++)
		f->return_offsets[i] = rets[i] - f->vaddr + f->file_offset;
	return 0;
}

enum enav_go_tls_status enav_go_tls_analyze(int fd, struct enav_tenant_budget *b,
					    struct enav_go_tls_plan *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	snprintf(err, errlen, "unreadable");
	struct enav_go_buildinfo bi;
	char berr[160];
	int rc = enav_go_buildinfo_read_fd(fd, &bi, berr, sizeof(berr));
	if (rc == -ENOENT || rc == -EINVAL)
		return ENAV_GO_TLS_NOT_GO;
	if (rc != 0) {
		snprintf(err, errlen, "build information unreadable: %s", berr);
		return ENAV_GO_TLS_ERROR;
	}
	snprintf(out->go_version, sizeof(out->go_version), "%s",
		 bi.go_version ? bi.go_version : "");
	enav_go_buildinfo_free(&bi);

	enum enav_go_tls_status st = ENAV_GO_TLS_ERROR;
	elf_version(EV_CURRENT);
	/* ELF_C_READ: pread, never a mapping a truncation turns into SIGBUS. */
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	struct syms s = {0};
	int ma = 0, mi = 0;
	if (!elf || !gelf_getehdr(elf, &eh)) {
		snprintf(err, errlen, "not a readable ELF file");
		goto out;
	}
	if (!read_symtab(elf, &s, b)) {
		if (b && b->exhausted)
			goto out;
		if (pclntab_mentions_tls(elf, b)) {
			snprintf(err, errlen,
				 "uses crypto/tls but has no symbol table (stripped with -s): "
				 "function addresses are not guessed");
			st = ENAV_GO_TLS_REFUSED;
		} else {
			st = ENAV_GO_TLS_NO_TLS;
		}
		goto out;
	}
	if (!s.has_read || !s.has_write) {
		st = ENAV_GO_TLS_NO_TLS;
		goto out;
	}
	st = ENAV_GO_TLS_REFUSED;
	if (eh.e_machine != EM_X86_64) {
		snprintf(err, errlen, "not an x86-64 binary");
		goto out;
	}
	if (!enav_go_version_parse(out->go_version, &ma, &mi) || ma != 1 || mi < 17) {
		snprintf(err, errlen,
			 "Go version \"%s\" predates the register ABI (go1.17) the probes read",
			 out->go_version);
		goto out;
	}
	if (!s.has_itab) {
		snprintf(err, errlen, "no *net.TCPConn itab: its connections cannot be checked");
		goto out;
	}
	out->itab_tcpconn = s.itab.st_value;
	/* Read is finished at its returns; Write is emitted at entry. */
	if (plan_func(fd, b, elf, &s.read, &out->read, SYM_READ, true, err, errlen) ||
	    plan_func(fd, b, elf, &s.write, &out->write, SYM_WRITE, false, err, errlen))
		goto out;
	struct enav_go_tls_func hs;
	char hs_err[128];
	if (s.has_client_hs) {
		vaddr_to_offset(elf, s.client_hs.st_value, &out->client_handshake);
		if (plan_func(fd, b, elf, &s.client_hs, &hs, SYM_CLIENT_HS, false, hs_err,
			      sizeof(hs_err)) == 0)
			out->client_handshake_check = hs.check_offset;
	}
	if (s.has_server_hs) {
		vaddr_to_offset(elf, s.server_hs.st_value, &out->server_handshake);
		if (plan_func(fd, b, elf, &s.server_hs, &hs, SYM_SERVER_HS, false, hs_err,
			      sizeof(hs_err)) == 0)
			out->server_handshake_check = hs.check_offset;
	}
	if (charge_dwarf(fd, elf, b) && dwarf_offsets(elf, out)) {
		out->offsets_source = "dwarf";
	} else if (enav_go_tls_table_offsets(out->go_version, &out->conn_iface, &out->tcpconn_fd,
					     &out->netfd_sysfd)) {
		out->offsets_source = "version table";
	} else {
		snprintf(err, errlen,
			 "no DWARF and Go version %s is not in the offsets table (go1.17-go1.23)",
			 out->go_version);
		goto out;
	}
	st = ENAV_GO_TLS_OK;
	err[0] = '\0';
out:
	if (elf)
		elf_end(elf);
	if (b && b->exhausted) {
		snprintf(err, errlen, "over its read budget (bytes or time)");
		st = ENAV_GO_TLS_ERROR;
	}
	return st;
}
