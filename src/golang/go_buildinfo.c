/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Go build information (`go version -m`) from an untrusted ELF file.
 *
 * Layout (written by the Go linker; see go_buildinfo.h):
 *  - a 32-byte header at a 16-byte aligned offset of the .go.buildinfo
 *    section, or when there is no such section within the first 64 KiB of
 *    the first writable, non-executable PT_LOAD segment: the 14-byte magic
 *    "\xff Go buildinf:", the pointer size, a flags byte (bit 0 big-endian,
 *    bit 1 inline strings);
 *  - inline (Go 1.18+): the version and the modinfo follow the header, each
 *    a uvarint length and the bytes;
 *  - older: two pointers at offset 16 to Go string headers {data, len} for
 *    the version and the modinfo, resolved through the PT_LOAD segments.
 * The modinfo is framed by 16-byte sentinels, stripped as Go does (length
 * at least 33 and a '\n' just before the last 16 bytes; otherwise there is
 * no module information); go_modinfo.c parses the text.
 *
 * The ELF headers are parsed here with bounds checks against the file size;
 * every read is a pread of a bounded size (no mmap: a file truncated under
 * us cannot fault).
 */
#include "golang/go_buildinfo_priv.h"
#include "platform/tenant_file.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WINDOW_BYTES (64u << 10) /* searched for the magic */
#define HEADER_BYTES 32u
#define MAGIC	     "\xff Go buildinf:"
#define MAGIC_LEN    14u
#define MAX_PHNUM    4096u
#define MAX_SHNUM    16384u

/* ---- ELF ------------------------------------------------------------------- */

struct seg {
	uint64_t offset, vaddr, filesz;
	uint32_t flags;
};

struct elf_file {
	int fd;
	uint64_t size;
	bool is64, msb;
	struct seg *loads; /* PT_LOAD with file bytes, in header order */
	size_t n_loads;
	uint64_t data_start; /* first writable, non-executable PT_LOAD */
	bool has_data_start;
};

static uint64_t get_un(const unsigned char *p, size_t n, bool msb)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[msb ? n - 1 - i : i] << (8 * i);
	return v;
}

/* Exactly n bytes at off, inside the file size; 0 or a negative errno. */
static int read_at(const struct elf_file *f, uint64_t off, void *buf, size_t n)
{
	if (off > f->size || n > f->size - off)
		return -EINVAL;
	for (size_t done = 0; done < n;) {
		ssize_t r = pread(f->fd, (char *)buf + done, n - done, (off_t)(off + done));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EINVAL; /* shrank under us */
		done += (size_t)r;
	}
	return 0;
}

static int read_fail(char *err, size_t errlen, int rc, const char *what)
{
	if (rc == -EINVAL)
		return enav_go_fail(err, errlen, rc, "%s beyond the end of the file", what);
	return enav_go_fail(err, errlen, rc, "reading %s: %s", what, strerror(-rc));
}

/* The ELF header and the program headers; the .go.buildinfo section's
 * file extent when there is one (*sec_size 0 when not). */
static int load_elf(struct elf_file *f, uint64_t *sec_off, uint64_t *sec_size, char *err,
		    size_t errlen)
{
	unsigned char h[sizeof(Elf64_Ehdr)];
	int rc;

	*sec_size = 0;
	*sec_off = 0;
	if (f->size < EI_NIDENT || read_at(f, 0, h, EI_NIDENT) != 0 ||
	    memcmp(h, ELFMAG, SELFMAG) != 0)
		return enav_go_fail(err, errlen, -EINVAL, "not an ELF file");
	if (h[EI_CLASS] != ELFCLASS32 && h[EI_CLASS] != ELFCLASS64)
		return enav_go_fail(err, errlen, -EINVAL, "bad ELF class %u", h[EI_CLASS]);
	if (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB)
		return enav_go_fail(err, errlen, -EINVAL, "bad ELF data encoding %u", h[EI_DATA]);
	f->is64 = h[EI_CLASS] == ELFCLASS64;
	f->msb = h[EI_DATA] == ELFDATA2MSB;
	size_t ehsize = f->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	if (read_at(f, 0, h, ehsize) != 0)
		return enav_go_fail(err, errlen, -EINVAL, "truncated ELF header");
	bool msb = f->msb;
	uint64_t phoff, shoff;
	unsigned phentsize, phnum, shentsize, shnum, shstrndx;
	if (f->is64) {
		phoff = get_un(h + 0x20, 8, msb);
		shoff = get_un(h + 0x28, 8, msb);
		phentsize = (unsigned)get_un(h + 0x36, 2, msb);
		phnum = (unsigned)get_un(h + 0x38, 2, msb);
		shentsize = (unsigned)get_un(h + 0x3a, 2, msb);
		shnum = (unsigned)get_un(h + 0x3c, 2, msb);
		shstrndx = (unsigned)get_un(h + 0x3e, 2, msb);
	} else {
		phoff = get_un(h + 0x1c, 4, msb);
		shoff = get_un(h + 0x20, 4, msb);
		phentsize = (unsigned)get_un(h + 0x2a, 2, msb);
		phnum = (unsigned)get_un(h + 0x2c, 2, msb);
		shentsize = (unsigned)get_un(h + 0x2e, 2, msb);
		shnum = (unsigned)get_un(h + 0x30, 2, msb);
		shstrndx = (unsigned)get_un(h + 0x32, 2, msb);
	}
	size_t phsz = f->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	size_t shsz = f->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);

	/* Program headers. */
	if (phnum > MAX_PHNUM)
		return enav_go_fail(err, errlen, -EINVAL, "%u program headers (cap %u)", phnum,
				    MAX_PHNUM);
	if (phnum && phentsize != phsz)
		return enav_go_fail(err, errlen, -EINVAL, "bad program header size %u", phentsize);
	if (phnum) {
		if (phoff > f->size || (uint64_t)phnum * phsz > f->size - phoff)
			return enav_go_fail(err, errlen, -EINVAL,
					    "program headers beyond the end of the file");
		unsigned char *ph = malloc((size_t)phnum * phsz);
		f->loads = calloc(phnum, sizeof(*f->loads));
		if (!ph || !f->loads) {
			free(ph);
			return enav_go_fail(err, errlen, -ENOMEM, "out of memory");
		}
		rc = read_at(f, phoff, ph, (size_t)phnum * phsz);
		if (rc) {
			free(ph);
			return read_fail(err, errlen, rc, "program headers");
		}
		for (unsigned i = 0; i < phnum; i++) {
			const unsigned char *p = ph + (size_t)i * phsz;
			uint32_t type = (uint32_t)get_un(p, 4, msb);
			struct seg s;

			if (type != PT_LOAD)
				continue;
			if (f->is64) {
				s.flags = (uint32_t)get_un(p + 4, 4, msb);
				s.offset = get_un(p + 8, 8, msb);
				s.vaddr = get_un(p + 16, 8, msb);
				s.filesz = get_un(p + 32, 8, msb);
			} else {
				s.offset = get_un(p + 4, 4, msb);
				s.vaddr = get_un(p + 8, 4, msb);
				s.filesz = get_un(p + 16, 4, msb);
				s.flags = (uint32_t)get_un(p + 24, 4, msb);
			}
			if (s.offset > f->size || s.filesz > f->size - s.offset) {
				free(ph);
				return enav_go_fail(err, errlen, -EINVAL,
						    "PT_LOAD segment %u beyond the end of the file",
						    i);
			}
			if (s.filesz > UINT64_MAX - s.vaddr) {
				free(ph);
				return enav_go_fail(err, errlen, -EINVAL,
						    "PT_LOAD segment %u wraps the address space",
						    i);
			}
			if (!f->has_data_start && (s.flags & (PF_X | PF_W)) == PF_W) {
				f->has_data_start = true;
				f->data_start = s.vaddr;
			}
			if (s.filesz > 0)
				f->loads[f->n_loads++] = s;
		}
		free(ph);
	}

	/* Section headers: only to find .go.buildinfo. */
	if (shoff == 0 || shnum == 0)
		return 0; /* none (or extended numbering): use the data segment */
	if (shnum > MAX_SHNUM)
		return enav_go_fail(err, errlen, -EINVAL, "%u sections (cap %u)", shnum, MAX_SHNUM);
	if (shentsize != shsz)
		return enav_go_fail(err, errlen, -EINVAL, "bad section header size %u", shentsize);
	if (shoff > f->size || (uint64_t)shnum * shsz > f->size - shoff)
		return enav_go_fail(err, errlen, -EINVAL,
				    "section headers beyond the end of the file");
	if (shstrndx == SHN_UNDEF || shstrndx >= shnum)
		return 0; /* no names (SHN_XINDEX included): use the data segment */
	unsigned char *sh = malloc((size_t)shnum * shsz);
	if (!sh)
		return enav_go_fail(err, errlen, -ENOMEM, "out of memory");
	rc = read_at(f, shoff, sh, (size_t)shnum * shsz);
	if (rc) {
		free(sh);
		return read_fail(err, errlen, rc, "section headers");
	}
	const unsigned char *ss = sh + (size_t)shstrndx * shsz;
	uint64_t str_off = f->is64 ? get_un(ss + 0x18, 8, msb) : get_un(ss + 0x10, 4, msb);
	uint64_t str_size = f->is64 ? get_un(ss + 0x20, 8, msb) : get_un(ss + 0x14, 4, msb);
	if (str_off > f->size || str_size > f->size - str_off) {
		free(sh);
		return enav_go_fail(err, errlen, -EINVAL,
				    "section name table beyond the end of the file");
	}
	static const char want[] = ".go.buildinfo"; /* with its NUL */
	for (unsigned i = 1; i < shnum; i++) {
		const unsigned char *s = sh + (size_t)i * shsz;
		uint64_t name = get_un(s, 4, msb);
		char got[sizeof(want)];

		if (name > str_size || sizeof(want) > str_size - name)
			continue;
		rc = read_at(f, str_off + name, got, sizeof(want));
		if (rc) {
			free(sh);
			return read_fail(err, errlen, rc, "section names");
		}
		if (memcmp(got, want, sizeof(want)) != 0)
			continue;
		uint32_t type = (uint32_t)get_un(s + 4, 4, msb);
		uint64_t off = f->is64 ? get_un(s + 0x18, 8, msb) : get_un(s + 0x10, 4, msb);
		uint64_t size = f->is64 ? get_un(s + 0x20, 8, msb) : get_un(s + 0x14, 4, msb);
		free(sh);
		if (type == SHT_NOBITS || off > f->size || size > f->size - off)
			return enav_go_fail(err, errlen, -EINVAL,
					    ".go.buildinfo section has no bytes in the file");
		if (size == 0)
			return enav_go_fail(err, errlen, -EINVAL, ".go.buildinfo section is empty");
		*sec_off = off;
		*sec_size = size;
		return 0;
	}
	free(sh);
	return 0;
}

/* The first PT_LOAD whose file bytes hold [vaddr, vaddr + n). */
static const struct seg *find_seg(const struct elf_file *f, uint64_t vaddr, uint64_t n)
{
	for (size_t i = 0; i < f->n_loads; i++) {
		const struct seg *s = &f->loads[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz &&
		    n <= s->filesz - (vaddr - s->vaddr))
			return s;
	}
	return NULL;
}

static bool vaddr_to_off(const struct elf_file *f, uint64_t vaddr, uint64_t n, uint64_t *off)
{
	const struct seg *s = find_seg(f, vaddr, n);

	if (s)
		*off = s->offset + (vaddr - s->vaddr);
	return s != NULL;
}

/* Reads a length-prefixed or pointed-to string into a new NUL-terminated
 * buffer. */
static int read_string(const struct elf_file *f, uint64_t off, uint64_t len, char **out,
		       const char *what, char *err, size_t errlen)
{
	char *s = malloc((size_t)len + 1);
	int rc;

	if (!s)
		return enav_go_fail(err, errlen, -ENOMEM, "out of memory");
	rc = read_at(f, off, s, (size_t)len);
	if (rc) {
		free(s);
		return read_fail(err, errlen, rc, what);
	}
	s[len] = '\0';
	*out = s;
	return 0;
}

/* Pointer layout: the string header at vaddr, its bytes. */
static int read_ptr_string(const struct elf_file *f, uint64_t vaddr, unsigned ptrsize, bool msb,
			   uint64_t cap, char **out, size_t *outlen, const char *what, char *err,
			   size_t errlen)
{
	unsigned char hdr[16];
	uint64_t off, data, len;
	int rc;

	if (!vaddr_to_off(f, vaddr, 2 * ptrsize, &off))
		return enav_go_fail(err, errlen, -EINVAL,
				    "%s string header at 0x%llx is not in a PT_LOAD segment", what,
				    (unsigned long long)vaddr);
	rc = read_at(f, off, hdr, 2 * ptrsize);
	if (rc)
		return read_fail(err, errlen, rc, what);
	data = get_un(hdr, ptrsize, msb);
	len = get_un(hdr + ptrsize, ptrsize, msb);
	if (len > cap)
		return enav_go_fail(err, errlen, -EINVAL,
				    "%s of %llu bytes exceeds the %llu-byte cap", what,
				    (unsigned long long)len, (unsigned long long)cap);
	if (len == 0) {
		*out = strdup("");
		*outlen = 0;
		return *out ? 0 : enav_go_fail(err, errlen, -ENOMEM, "out of memory");
	}
	if (!vaddr_to_off(f, data, len, &off))
		return enav_go_fail(err, errlen, -EINVAL,
				    "%s bytes at 0x%llx (+%llu) are not in a PT_LOAD segment", what,
				    (unsigned long long)data, (unsigned long long)len);
	*outlen = (size_t)len;
	return read_string(f, off, len, out, what, err, errlen);
}

/* Inline layout: a uvarint length at region offset *pos, then the bytes. */
static int read_inline_string(const struct elf_file *f, uint64_t region_off, uint64_t region_len,
			      uint64_t *pos, uint64_t cap, char **out, size_t *outlen,
			      const char *what, char *err, size_t errlen)
{
	unsigned char v[10];
	size_t avail = region_len - *pos < sizeof(v) ? (size_t)(region_len - *pos) : sizeof(v);
	uint64_t len = 0;
	size_t i;
	int rc;

	rc = read_at(f, region_off + *pos, v, avail);
	if (rc)
		return read_fail(err, errlen, rc, what);
	for (i = 0; i < avail; i++) {
		if (i == 9 && v[i] > 1)
			return enav_go_fail(err, errlen, -EINVAL, "%s length overflows", what);
		len |= (uint64_t)(v[i] & 0x7f) << (7 * i);
		if (!(v[i] & 0x80))
			break;
	}
	if (i == avail)
		return enav_go_fail(err, errlen, -EINVAL, "%s length truncated", what);
	*pos += i + 1;
	if (len > cap)
		return enav_go_fail(err, errlen, -EINVAL,
				    "%s of %llu bytes exceeds the %llu-byte cap", what,
				    (unsigned long long)len, (unsigned long long)cap);
	if (len > region_len - *pos)
		return enav_go_fail(err, errlen, -EINVAL, "%s of %llu bytes runs past its segment",
				    what, (unsigned long long)len);
	*outlen = (size_t)len;
	rc = read_string(f, region_off + *pos, len, out, what, err, errlen);
	if (!rc)
		*pos += len;
	return rc;
}

static int read_elf(struct elf_file *f, struct enav_go_buildinfo *out, char *err, size_t errlen)
{
	uint64_t region_off, region_len;
	int rc = load_elf(f, &region_off, &region_len, err, errlen);

	if (rc)
		return rc;
	if (region_len == 0) {
		/* No .go.buildinfo section: the first writable data segment. */
		const struct seg *s = f->has_data_start ? find_seg(f, f->data_start, 1) : NULL;

		if (!s)
			return enav_go_fail(err, errlen, -ENOENT, ENAV_GO_NOT_GO_REASON);
		region_off = s->offset + (f->data_start - s->vaddr);
		region_len = s->filesz - (f->data_start - s->vaddr);
	}

	/* The magic at a 16-byte aligned offset of the first 64 KiB. */
	size_t wlen = region_len < WINDOW_BYTES ? (size_t)region_len : WINDOW_BYTES;
	unsigned char *w = malloc(wlen ? wlen : 1);
	if (!w)
		return enav_go_fail(err, errlen, -ENOMEM, "out of memory");
	rc = read_at(f, region_off, w, wlen);
	if (rc) {
		free(w);
		return read_fail(err, errlen, rc, "build info window");
	}
	size_t at = 0;
	bool found = false;
	for (; wlen >= HEADER_BYTES && at <= wlen - HEADER_BYTES; at += 16)
		if (!memcmp(w + at, MAGIC, MAGIC_LEN)) {
			found = true;
			break;
		}
	if (!found) {
		free(w);
		return enav_go_fail(err, errlen, -ENOENT, ENAV_GO_NOT_GO_REASON);
	}
	unsigned ptrsize = w[at + 14], flags = w[at + 15];
	unsigned char hdr[HEADER_BYTES];
	memcpy(hdr, w + at, HEADER_BYTES);
	free(w);
	if (ptrsize != 4 && ptrsize != 8)
		return enav_go_fail(err, errlen, -EINVAL, "build info pointer size %u", ptrsize);

	char *vers = NULL, *mod = NULL;
	size_t vers_len = 0, mod_len = 0;
	uint64_t mod_cap = ENAV_GO_BUILDINFO_MAX_MODINFO + 2 * ENAV_GO_SENTINEL_LEN;
	if (flags & 2) {
		uint64_t pos = at + HEADER_BYTES;

		rc = read_inline_string(f, region_off, region_len, &pos,
					ENAV_GO_BUILDINFO_MAX_VERSION, &vers, &vers_len,
					"Go version", err, errlen);
		if (!rc)
			rc = read_inline_string(f, region_off, region_len, &pos, mod_cap, &mod,
						&mod_len, "modinfo", err, errlen);
	} else {
		bool msb = flags & 1;

		rc = read_ptr_string(f, get_un(hdr + 16, ptrsize, msb), ptrsize, msb,
				     ENAV_GO_BUILDINFO_MAX_VERSION, &vers, &vers_len, "Go version",
				     err, errlen);
		if (!rc)
			rc = read_ptr_string(f, get_un(hdr + 16 + ptrsize, ptrsize, msb), ptrsize,
					     msb, mod_cap, &mod, &mod_len, "modinfo", err, errlen);
	}
	if (rc)
		goto out;
	if (vers_len == 0) {
		rc = enav_go_fail(err, errlen, -EINVAL, "empty Go version");
		goto out;
	}
	for (size_t i = 0; i < vers_len; i++)
		if ((unsigned char)vers[i] < 0x20 || vers[i] == 0x7f) {
			rc = enav_go_fail(err, errlen, -EINVAL,
					  "control character in the Go version");
			goto out;
		}
	/* Go's rule: framed only when long enough with '\n' before the end
	 * sentinel; anything else means no module information. */
	const char *text = "";
	size_t text_len = 0;
	if (mod_len >= 2 * ENAV_GO_SENTINEL_LEN + 1 &&
	    mod[mod_len - ENAV_GO_SENTINEL_LEN - 1] == '\n') {
		text = mod + ENAV_GO_SENTINEL_LEN;
		text_len = mod_len - 2 * ENAV_GO_SENTINEL_LEN;
	}
	rc = enav_go_modinfo_parse_unwrapped(text, text_len, out, err, errlen);
	if (!rc) {
		free(out->go_version);
		out->go_version = vers;
		vers = NULL;
	}
out:
	free(vers);
	free(mod);
	return rc;
}

int enav_go_buildinfo_read_fd(int fd, struct enav_go_buildinfo *out, char *err, size_t errlen)
{
	struct elf_file f = {.fd = fd};
	struct stat st;
	int rc;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (fstat(fd, &st) != 0)
		return enav_go_fail(err, errlen, -errno, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return enav_go_fail(err, errlen, -EINVAL, "not a regular file");
	f.size = (uint64_t)st.st_size;
	rc = read_elf(&f, out, err, errlen);
	free(f.loads);
	if (rc)
		enav_go_buildinfo_free(out);
	return rc;
}

int enav_go_buildinfo_read_file(const char *path, struct enav_go_buildinfo *out, char *err,
				size_t errlen)
{
	/* O_NONBLOCK: a FIFO must not hang the open; read_fd rejects it. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	int rc;

	memset(out, 0, sizeof(*out));
	if (fd < 0) {
		rc = -errno;
		return enav_go_fail(err, errlen, rc, "%s", strerror(-rc));
	}
	rc = enav_go_buildinfo_read_fd(fd, out, err, errlen);
	close(fd);
	return rc;
}

int enav_go_buildinfo_read_exe(uint32_t pid, struct enav_go_buildinfo *out, char *err,
			       size_t errlen)
{
	enum enav_tenant_refusal why;
	struct stat st;
	int fd = enav_tenant_open_exe("/proc", pid, &st, &why);
	int rc;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return enav_go_fail(err, errlen, -ENOENT, "executable refused (%s)",
				    enav_tenant_refusal_name(why));
	rc = enav_go_buildinfo_read_fd(fd, out, err, errlen);
	close(fd);
	return rc;
}

/* ---- output ---------------------------------------------------------------- */

static const char *nz(const char *s)
{
	return s ? s : "";
}

static void print_module(FILE *out, const char *word, const struct enav_go_module *m)
{
	fprintf(out, "\t%s\t%s\t%s", word, nz(m->path), nz(m->version));
	if (!m->replaced) {
		fprintf(out, "\t%s\n", nz(m->sum));
		return;
	}
	fprintf(out, "\n\t=>\t%s\t%s\t%s\n", nz(m->replace_path), nz(m->replace_version),
		nz(m->replace_sum));
}

void enav_go_buildinfo_print(FILE *out, const char *name, const struct enav_go_buildinfo *b)
{
	const struct enav_go_module *m = &b->main;

	fprintf(out, "%s: %s\n", name, nz(b->go_version));
	if (b->path && b->path[0])
		fprintf(out, "\tpath\t%s\n", b->path);
	/* Go prints the main module unless it is the zero Module. */
	if (b->has_main && (*nz(m->path) || *nz(m->version) || *nz(m->sum) || m->replaced))
		print_module(out, "mod", m);
	for (size_t i = 0; i < b->n_deps; i++)
		print_module(out, "dep", &b->deps[i]);
	for (size_t i = 0; i < b->n_settings; i++)
		fprintf(out, "\tbuild\t%s\n", nz(b->settings[i].raw));
}
