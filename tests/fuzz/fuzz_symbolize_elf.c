/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the symbolizer's ELF loader (src/features/profiling/
 * elf_symtab.c).  The input is an ELF file (in its own allocation of exactly
 * its size); loading must not crash or over-read whatever the headers claim,
 * and a loaded table must hold its invariants: symbols sorted with distinct
 * values, names NUL-terminated inside the arena, cover_end monotone, every
 * sized symbol found at its own address, the symbol cap respected, the build
 * id lowercase hex.  The same input is also read as a separate debug file of
 * itself (its .symtab replacing the table's symbols, under the same
 * invariants), for its .gnu_debuglink (a bounded file name without '/'),
 * for its .eh_frame (a copy no larger than the file, turned into a table)
 * and for its .gopclntab (names when it has no .symtab, and unwind rows
 * holding the invariants of every unwind table).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "features/profiling/eh_frame.h"
#include "features/profiling/go_unwind.h"
#include "features/profiling/symbolize_priv.h"
#include "unwind_table_check.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define MAX_SYMS 512

static void check_table(const struct enav_elf_symtab *t)
{
	size_t bl = strnlen(t->build_id, sizeof(t->build_id));

	CHECK(bl < sizeof(t->build_id) && bl % 2 == 0);
	CHECK(strspn(t->build_id, "0123456789abcdef") == bl);
	CHECK(t->n_segs <= ENAV_ELF_MAX_SEGS);
	CHECK(t->n_syms <= MAX_SYMS);
	uint64_t cover = 0;
	for (uint32_t i = 0; i < t->n_syms; i++) {
		const struct enav_elf_sym *s = &t->syms[i];

		CHECK(i == 0 || t->syms[i - 1].value < s->value);
		CHECK(s->name < t->names_len);
		CHECK(memchr(t->names + s->name, '\0', t->names_len - s->name) != NULL);
		CHECK(t->names[s->name] != '\0');
		if (s->size > 0 && s->value + s->size > cover)
			cover = s->value + s->size;
		CHECK(s->cover_end == cover);
	}
	for (uint32_t i = 0; i < t->n_syms; i++) {
		const struct enav_elf_sym *s = &t->syms[i];
		uint64_t off = 1;
		const char *name = enav_elf_lookup(t, s->value, &off);

		if (s->size > 0)
			CHECK(name == t->names + s->name && off == 0);
		if (name)
			CHECK(name >= t->names && name < t->names + t->names_len);
		name = enav_elf_lookup(t, s->value + s->size, &off);
		(void)name;
	}
	for (uint32_t i = 0; i < t->n_segs; i++) {
		uint64_t v;

		CHECK(enav_elf_offset_to_vaddr(t, t->segs[i].offset, &v));
		if (enav_elf_offset_to_vaddr(t, t->segs[i].offset + t->segs[i].filesz / 2, &v)) {
			uint64_t off;
			(void)enav_elf_lookup(t, v, &off);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *copy = malloc(size ? size : 1);

	CHECK(copy != NULL);
	memcpy(copy, data, size);
	struct enav_elf *e = enav_elf_open_mem(copy, size);
	if (e) {
		uint8_t bid[ENAV_ELF_BUILD_ID_MAX];
		size_t n = enav_elf_build_id(e, bid, sizeof(bid));
		struct enav_elf_symtab *t = NULL;

		CHECK(n <= sizeof(bid));
		if (enav_elf_load(e, MAX_SYMS, &t) == 0) {
			CHECK(t != NULL);
			CHECK(strlen(t->build_id) == 2 * n);
			CHECK(!(t->from_gopclntab && t->from_dynsym));
			check_table(t);
			uint32_t before = t->n_syms;
			/* Its own build id always matches; without one, none is required. */
			int rc = enav_elf_load_debug(e, bid, n, MAX_SYMS, t);
			CHECK(rc == 0 || rc == 1 || rc == -ENOMEM);
			if (rc == 1)
				CHECK(t->from_debug && !t->from_dynsym && t->n_syms >= before &&
				      t->n_syms > 0);
			else
				CHECK(t->n_syms == before);
			check_table(t);
			if (n > 0) { /* another build: never used */
				bid[0] ^= 1;
				before = t->n_syms;
				CHECK(enav_elf_load_debug(e, bid, n, MAX_SYMS, t) == 0);
				CHECK(t->n_syms == before);
			}
			enav_elf_symtab_free(t);
		} else {
			CHECK(t == NULL);
		}
		/* The interpreter's objects (py_code.c): found at most once each. */
		static const char *const objs[] = {"_PyRuntime", "PyCode_Type", "x"};
		uint64_t vals[3];
		int found = enav_elf_dynsym_objects(e, objs, 3, vals);
		CHECK(found <= 3 && (found >= 0 || found == -ENOENT || found == -EINVAL));
		int nonzero = 0;
		for (int k = 0; k < 3; k++)
			nonzero += vals[k] != 0;
		CHECK(found < 0 || nonzero == found);
		uint8_t *eh = NULL;
		size_t eh_len = 1;
		uint64_t eh_vaddr;
		int erc = enav_elf_eh_frame(e, 1u << 20, &eh, &eh_len, &eh_vaddr);
		CHECK(erc == 0 || erc == -ENOENT || erc == -E2BIG || erc == -EINVAL ||
		      erc == -ENOMEM);
		if (erc == 0) {
			struct enav_eh_table et;
			CHECK(eh != NULL && eh_len > 0 && eh_len <= size);
			if (enav_eh_frame_build(eh, eh_len, eh_vaddr, 64, &et) == 0) {
				CHECK(et.n <= 64);
				enav_eh_table_free(&et);
			}
			free(eh);
		} else {
			CHECK(eh == NULL && eh_len == 0);
		}
		struct enav_eh_table gt;
		int grc = enav_gopclntab_unwind(e, 64, &gt);
		CHECK(grc == 0 || grc == -ENOENT || grc == -E2BIG || grc == -EINVAL ||
		      grc == -ENOMEM);
		if (grc == 0) {
			check_unwind_table(&gt, 64);
			enav_eh_table_free(&gt);
		} else {
			CHECK(gt.n == 0 && gt.rows == NULL);
		}
		char name[NAME_MAX + 1];
		uint32_t crc;
		memset(name, 'x', sizeof(name));
		if (enav_elf_debuglink(e, name, sizeof(name), &crc)) {
			size_t len = strnlen(name, sizeof(name));
			CHECK(len > 0 && len < sizeof(name) && !memchr(name, '/', len));
			CHECK(strcmp(name, ".") != 0 && strcmp(name, "..") != 0);
		}
		enav_elf_close(e);
	}
	free(copy);
	return 0;
}
