/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Separate debug files for the symbolizer (symbolize.c): a binary without
 * .symtab (distribution libraries) takes the .symtab of its debug file, by
 * build id under debug_dir, else through .gnu_debuglink (CRC and build id
 * checked).  Every file is opened through platform/tenant_file.c, and the
 * CRC is read under the tenant memory budget's per-file cap and remembered
 * per identity (ADR 0020).
 */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "platform/tenant_file.h"
#include "features/profiling/symbolize_priv.h"
#include "features/profiling/tenant_memory.h"

/* ---- separate debug files ----------------------------------------------------- */

/*
 * The CRC32 of the debug file fd (identity st), read under the per-file cap
 * and the read time budget; remembered per identity, so a file named by many
 * binaries or loads is read once.  ENAV_TMEM_NO_CRC when it could not be
 * read whole within the budget.
 */
static uint64_t debug_file_crc(const struct enav_debug_files *s, int fd, const struct stat *st)
{
	const size_t chunk = 64u << 10;
	struct enav_file_key k;
	struct enav_tenant_budget b;
	uint64_t v;

	enav_file_key_of(st, &k);
	if (enav_tenant_mem_recall(s->mem, ENAV_TMEM_KIND_DEBUGLINK, &k, &v))
		return v;
	v = ENAV_TMEM_NO_CRC;
	unsigned char *buf =
	    (uint64_t)st->st_size <= enav_tenant_mem_file_cap(s->mem) ? malloc(chunk) : NULL;
	if ((uint64_t)st->st_size > enav_tenant_mem_file_cap(s->mem))
		enav_tenant_mem_refused(s->mem, ENAV_TMEM_OVER_FILE_CAP);
	if (buf) {
		uLong crc = crc32(0L, Z_NULL, 0);
		uint64_t size = (uint64_t)st->st_size, off = 0;
		enav_tenant_budget_init(&b, size, ENAV_TENANT_READ_NS);
		while (off < size) {
			size_t n = size - off < chunk ? (size_t)(size - off) : chunk;
			if (enav_tenant_pread(fd, buf, n, off, &b) < 0)
				break;
			crc = crc32(crc, buf, (uInt)n);
			off += n;
		}
		if (off == size)
			v = (uint32_t)crc;
		else if (b.exhausted)
			enav_tenant_mem_refused(s->mem, ENAV_TMEM_SLOW);
		free(buf);
	}
	enav_tenant_mem_remember(s->mem, ENAV_TMEM_KIND_DEBUGLINK, &k, v);
	return v;
}

/*
 * Loads the symbols of the debug file at path (resolved inside root, the
 * process's or our own) into t when it is a regular ELF file of the same
 * build (bid), and, for a .gnu_debuglink target (check_crc), has the
 * recorded CRC32.
 */
static bool try_debug_file(const struct enav_debug_files *s, int root, const char *path,
			   const uint8_t *bid, size_t bid_len, bool check_crc, uint32_t crc,
			   struct enav_elf_symtab *t)
{
	struct stat st;
	enum enav_tenant_refusal why;
	int fd = root >= 0 ? enav_tenant_open_in_root(root, path, NULL, &st, &why) : -1;

	if (fd < 0)
		return false;
	bool crc_ok = !check_crc || debug_file_crc(s, fd, &st) == (uint64_t)crc;
	struct enav_elf *d = crc_ok ? enav_elf_open_fd(fd) : NULL;
	if (d)
		enav_elf_set_file_cap(d, enav_tenant_mem_file_cap(s->mem));
	bool used = d && enav_elf_load_debug(d, bid, bid_len, s->max_syms, t) == 1;
	enav_elf_close(d);
	close(fd);
	return used;
}

/* A path with a "." or ".." component (never in a kernel-reported path). */
static bool has_dot_component(const char *p, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t j = i;
		while (j < len && p[j] != '/')
			j++;
		if ((j - i == 1 && p[i] == '.') || (j - i == 2 && p[i] == '.' && p[i + 1] == '.'))
			return true;
		i = j + 1;
	}
	return false;
}

/*
 * A binary without .symtab: the symbols of its separate debug file, looked
 * for as <debug_dir>/.build-id/xx/rest.debug by build id, then through its
 * .gnu_debuglink in the binary's directory and its .debug/ subdirectory
 * (inside the process's root) and in <debug_dir>/<binary's directory>/.
 * True when t now holds them.
 */
bool enav_debug_symbols_load(const struct enav_debug_files *s, uint32_t pid, const char *bin,
			     struct enav_elf *h, const uint8_t *bid, size_t bid_len,
			     struct enav_elf_symtab *t)
{
	char path[PATH_MAX], name[NAME_MAX + 1];
	uint32_t crc;
	int n;

	if (s->debug_dir[0] == '\0')
		return false;
	if (bid_len >= 2) {
		n = snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", s->debug_dir,
			     t->build_id, t->build_id + 2);
		if (n > 0 && (size_t)n < sizeof(path) &&
		    try_debug_file(s, s->self_root, path, bid, bid_len, false, 0, t))
			return true;
	}
	if (!enav_elf_debuglink(h, name, sizeof(name), &crc))
		return false;
	/* The binary's directory, with its trailing '/'. */
	const char *slash = strrchr(bin, '/');
	if (bin[0] != '/' || !slash)
		return false;
	size_t dlen = (size_t)(slash - bin) + 1;
	if (has_dot_component(bin, dlen))
		return false;
	n = snprintf(path, sizeof(path), "%s/%" PRIu32 "/root", s->proc_root, pid);
	int root =
	    n > 0 && (size_t)n < sizeof(path) ? open(path, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	static const char *const subdirs[] = {"", ".debug/"};
	bool used = false;
	for (size_t i = 0; i < 2 && !used; i++) {
		/* Relative to the process's root, or our own view when it is gone. */
		n = snprintf(path, sizeof(path), "%.*s%s%s", (int)dlen, bin, subdirs[i], name);
		if (n > 0 && (size_t)n < sizeof(path))
			used = try_debug_file(s, root >= 0 ? root : s->self_root, path, bid,
					      bid_len, true, crc, t);
	}
	if (root >= 0)
		close(root);
	if (used)
		return true;
	n = snprintf(path, sizeof(path), "%s%.*s%s", s->debug_dir, (int)dlen, bin, name);
	return n > 0 && (size_t)n < sizeof(path) &&
	       try_debug_file(s, s->self_root, path, bid, bid_len, true, crc, t);
}
