/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/tls/tls_sites.h"

#include <capstone/capstone.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/tenant_file.h"

#define MAX_FUNC_BYTES 65536 /* larger functions are not analysed */
#define ENTRY_WINDOW   32    /* instructions looked at for an entry site */

/* Registers tracked: argument registers and RAX (the return value). */
#define W_RAX (1u << 4)

struct insn {
	uint64_t addr;
	uint16_t size;
	bool emulated;
	bool branch;	 /* jump, call, return, interrupt: anything leaving the line */
	bool is_ret;	 /* ret */
	bool cond;	 /* conditional jump */
	bool direct;	 /* jump or call to an immediate */
	bool is_call;	 /* call */
	uint64_t target; /* when direct */
	unsigned writes; /* ENAV_TLS_ARG_* and W_RAX */
};

struct func {
	struct insn *v;
	size_t n;
	uint64_t start, end;
};

bool enav_tls_insn_emulated(const uint8_t *b, size_t len)
{
	/* The forms arch/x86/kernel/uprobes.c emulates without prefixes (a
	 * prefixed branch is single-stepped or refused). */
	if (len == 5 && (b[0] == 0xe8 || b[0] == 0xe9))
		return true; /* call rel32, jmp rel32 */
	if (len == 2 && (b[0] == 0xeb || (b[0] >= 0x70 && b[0] <= 0x7f)))
		return true; /* jmp rel8, jcc rel8 */
	if (len == 6 && b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f)
		return true; /* jcc rel32 */
	if (len == 1 && b[0] >= 0x50 && b[0] <= 0x57)
		return true;						 /* push rax..rdi */
	return len == 2 && b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57; /* push r8..r15 */
}

bool enav_tls_starts_emulated(const uint8_t *code, size_t len)
{
	static const size_t forms[] = {1, 2, 5, 6};
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (forms[i] <= len && enav_tls_insn_emulated(code, forms[i]))
			return true;
	return false;
}

static unsigned reg_bit(x86_reg r)
{
	switch (r) {
	case X86_REG_RDI:
	case X86_REG_EDI:
	case X86_REG_DI:
	case X86_REG_DIL:
		return ENAV_TLS_ARG_RDI;
	case X86_REG_RSI:
	case X86_REG_ESI:
	case X86_REG_SI:
	case X86_REG_SIL:
		return ENAV_TLS_ARG_RSI;
	case X86_REG_RDX:
	case X86_REG_EDX:
	case X86_REG_DX:
	case X86_REG_DL:
	case X86_REG_DH:
		return ENAV_TLS_ARG_RDX;
	case X86_REG_RCX:
	case X86_REG_ECX:
	case X86_REG_CX:
	case X86_REG_CL:
	case X86_REG_CH:
		return ENAV_TLS_ARG_RCX;
	case X86_REG_RAX:
	case X86_REG_EAX:
	case X86_REG_AX:
	case X86_REG_AL:
	case X86_REG_AH:
		return W_RAX;
	default:
		return 0;
	}
}

/* Decode the whole function; false when any byte does not decode or a
 * branch's target is unknown (indirect), which could land anywhere. */
static bool decode(const uint8_t *code, size_t len, uint64_t vaddr, struct func *f)
{
	memset(f, 0, sizeof(*f));
	if (len == 0 || len > MAX_FUNC_BYTES)
		return false;
	csh h;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK)
		return false;
	cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
	cs_insn *ci = cs_malloc(h);
	f->v = calloc(len, sizeof(*f->v));
	bool ok = ci && f->v;
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = vaddr;
	while (ok && left > 0 && cs_disasm_iter(h, &p, &left, &addr, ci)) {
		struct insn *in = &f->v[f->n++];
		in->addr = ci->address;
		in->size = ci->size;
		in->emulated = enav_tls_insn_emulated(ci->bytes, ci->size);
		in->is_ret = cs_insn_group(h, ci, CS_GRP_RET);
		in->is_call = cs_insn_group(h, ci, CS_GRP_CALL);
		bool jump = cs_insn_group(h, ci, CS_GRP_JUMP);
		in->branch = jump || in->is_call || in->is_ret ||
			     cs_insn_group(h, ci, CS_GRP_INT) ||
			     cs_insn_group(h, ci, CS_GRP_IRET) || ci->id == X86_INS_SYSCALL ||
			     ci->id == X86_INS_SYSENTER || ci->id == X86_INS_UD2;
		in->cond = jump && ci->id != X86_INS_JMP;
		const cs_x86 *x = &ci->detail->x86;
		if ((jump || in->is_call) && x->op_count == 1 &&
		    x->operands[0].type == X86_OP_IMM) {
			in->direct = true;
			in->target = (uint64_t)x->operands[0].imm;
		} else if (jump) {
			ok = false; /* indirect jump: its targets are unknown */
		}
		cs_regs rr, rw;
		uint8_t nr = 0, nw = 0;
		if (cs_regs_access(h, ci, rr, &nr, rw, &nw) != CS_ERR_OK)
			ok = false;
		for (uint8_t i = 0; i < nw; i++)
			in->writes |= reg_bit((x86_reg)rw[i]);
	}
	if (left != 0)
		ok = false;
	if (ci)
		cs_free(ci, 1);
	cs_close(&h);
	f->start = vaddr;
	f->end = vaddr + len;
	if (!ok) {
		free(f->v);
		f->v = NULL;
	}
	return ok;
}

/* Is some direct jump's target inside [lo, hi]? */
static bool targeted(const struct func *f, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].direct && !f->v[i].is_call && f->v[i].target >= lo &&
		    f->v[i].target <= hi)
			return true;
	return false;
}

int enav_tls_entry_site(const uint8_t *code, size_t len, uint64_t vaddr, unsigned args,
			uint64_t *out)
{
	struct func f;
	if (!decode(code, len, vaddr, &f))
		return -1;
	int rc = -1;
	for (size_t i = 0; i < f.n && i < ENTRY_WINDOW; i++) {
		const struct insn *in = &f.v[i];
		if (in->emulated) {
			/* Once per call: nothing jumps back to it or before it. */
			if (!targeted(&f, f.start, in->addr)) {
				*out = in->addr;
				rc = 0;
			}
			break;
		}
		if (in->branch || (in->writes & args))
			break;
	}
	free(f.v);
	return rc;
}

/* From instruction i, a straight line (calls allowed) to the end of the
 * function: the path never returns (the stack-protector's failure call). */
static bool never_returns(const struct func *f, size_t i)
{
	for (; i < f->n; i++)
		if (f->v[i].branch && !f->v[i].is_call)
			return false;
	return true;
}

static size_t index_of(const struct func *f, uint64_t addr)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].addr == addr)
			return i;
	return f->n;
}

int enav_tls_return_site(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t *out)
{
	struct func f;
	if (!decode(code, len, vaddr, &f))
		return -1;
	int rc = -1;
	size_t ret = f.n, rets = 0;
	for (size_t i = 0; i < f.n; i++) {
		const struct insn *in = &f.v[i];
		if (in->is_ret) {
			ret = i;
			rets++;
		}
		/* A jump out of the function is a tail call: that return
		 * would not pass the site. */
		if (in->direct && !in->is_call && (in->target < f.start || in->target >= f.end))
			rets = 2;
	}
	if (rets != 1)
		goto out;
	/* Walk back from the ret over a straight line that keeps RAX. */
	for (size_t k = ret; k-- > 0;) {
		const struct insn *in = &f.v[k];
		if (targeted(&f, f.v[k + 1].addr, f.v[ret].addr))
			break; /* something enters the line past this point */
		if (in->emulated && !in->is_call && !(in->writes & W_RAX)) {
			/* A push, or a conditional jump whose taken path never
			 * returns: every return falls through here once. */
			bool ok = !in->branch;
			if (in->cond && in->direct) {
				size_t t = index_of(&f, in->target);
				ok = t < f.n && t > ret && never_returns(&f, t);
			}
			if (ok) {
				*out = in->addr;
				rc = 0;
			}
			break;
		}
		if (in->branch || (in->writes & W_RAX))
			break;
	}
out:
	free(f.v);
	return rc;
}

/* Link-time address -> file offset through the executable PT_LOAD. */
static bool code_offset(Elf *elf, uint64_t vaddr, uint64_t len, uint64_t *off)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr + len <= ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

static void read_function(int fd, Elf *elf, const GElf_Sym *sym, struct enav_tls_func_code *f,
			  struct enav_tenant_budget *b)
{
	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || sym->st_shndx == SHN_UNDEF ||
	    sym->st_size == 0 || sym->st_size > MAX_FUNC_BYTES ||
	    !code_offset(elf, sym->st_value, sym->st_size, &f->file_offset))
		return;
	f->found = true;
	f->vaddr = sym->st_value;
	f->code = malloc(sym->st_size);
	if (!f->code)
		return;
	if (enav_tenant_pread(fd, f->code, sym->st_size, f->file_offset, b) < 0) {
		free(f->code);
		f->code = NULL;
		return;
	}
	f->len = sym->st_size;
}

int enav_tls_read_functions(int fd, const char *const *names, size_t n,
			    struct enav_tls_func_code *out, struct enav_tenant_budget *b)
{
	memset(out, 0, n * sizeof(*out));
	elf_version(EV_CURRENT);
	/* ELF_C_READ: libelf reads what is asked for with pread; a mapping
	 * of a file the tenant truncates meanwhile would raise SIGBUS. */
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int rc = elf && elf_kind(elf) == ELF_K_ELF ? 0 : -1;
	Elf_Scn *scn = NULL;
	while (rc == 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || sh.sh_entsize == 0)
			continue;
		/* The symbols and their names, charged before libelf reads them. */
		GElf_Shdr str;
		Elf_Scn *strscn = elf_getscn(elf, sh.sh_link);
		if (!strscn || !gelf_getshdr(strscn, &str) ||
		    !enav_tenant_budget_charge(b, sh.sh_size) ||
		    !enav_tenant_budget_charge(b, str.sh_size)) {
			rc = -1;
			break;
		}
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t count = d ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < count; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym))
				break;
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			for (size_t k = 0; name && k < n; k++)
				if (!out[k].found && strcmp(name, names[k]) == 0)
					read_function(fd, elf, &sym, &out[k], b);
		}
	}
	if (elf)
		elf_end(elf);
	if (b && b->exhausted)
		rc = -1;
	return rc;
}
