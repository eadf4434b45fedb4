/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Kernel frames (symbolize.h): /proc/kallsyms, opened when the symbolizer
 * is made (the agent drops CAP_SYSLOG after start) and read on first use,
 * under the symbolizer's lock (the kernel's file, not a tenant's).  A text
 * symbol extends to the next symbol of any kind; module symbols are named
 * "name [module]".
 */
#include "features/profiling/symbolize_state.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "platform/log.h"

static int kallsyms_line(void *ctx, const char *line, size_t len)
{
	struct kernel_table *k = ctx;
	struct enav_kallsyms_line kl;

	if (enav_kallsyms_parse_line(line, len, &kl) != 0 || kl.addr == 0)
		return 0;
	bool text = enav_kallsyms_is_text(kl.type);
	bool end_marker = (kl.name_len == 6 && memcmp(kl.name, "_etext", 6) == 0) ||
			  (kl.name_len == 10 && memcmp(kl.name, "_einittext", 10) == 0);
	char t = kl.type;
	bool data = t == 'd' || t == 'D' || t == 'b' || t == 'B' || t == 'r' || t == 'R';
	if (end_marker)
		text = false;
	else if (!text && !data)
		return 0; /* absolute, undefined, ...: no bound on text */
	struct ksym ks = {.addr = kl.addr, .text = text};
	if (text && kl.module) {
		uint32_t m = k->last_mod;
		if (!(m < k->n_mods && strlen(k->names + k->mods[m]) == kl.module_len &&
		      memcmp(k->names + k->mods[m], kl.module, kl.module_len) == 0)) {
			for (m = 0; m < k->n_mods; m++)
				if (strlen(k->names + k->mods[m]) == kl.module_len &&
				    memcmp(k->names + k->mods[m], kl.module, kl.module_len) == 0)
					break;
			if (m == k->n_mods) {
				if (k->n_mods == KALLSYMS_MAX_MODS ||
				    !enav_sym_arena_push(&k->names, &k->names_len, &k->names_cap,
							 kl.module, kl.module_len, UINT32_MAX,
							 &k->mods[m]))
					return 0;
				k->n_mods++;
			}
			k->last_mod = m;
		}
		ks.mod = (uint16_t)(m + 1);
	}
	if (text && !enav_sym_arena_push(&k->names, &k->names_len, &k->names_cap, kl.name,
					 kl.name_len, UINT32_MAX, &ks.name))
		return 1;
	if (!enav_sym_grow((void **)&k->syms, sizeof(*k->syms), &k->cap, k->n + 1,
			   KALLSYMS_MAX_SYMS))
		return 1;
	k->syms[k->n++] = ks;
	return 0;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->text != y->text)
		return x->text ? -1 : 1; /* text wins over a marker at its address */
	return x->name < y->name ? -1 : x->name > y->name;
}

static void load_kallsyms(struct enav_symbolizer *s)
{
	struct kernel_table *k = &s->k;
	int fd;

	k->loaded = true;
	fd = s->kallsyms_fd;
	s->kallsyms_fd = -1;
	if (fd < 0) {
		enav_warn("msg=\"kallsyms unreadable\" path=%s err=%d", s->kallsyms_path,
			  s->kallsyms_errno);
		return;
	}
	k->last_mod = UINT32_MAX;
	enav_read_lines(fd, KALLSYMS_LINE_MAX, KALLSYMS_MAX_BYTES, kallsyms_line, k);
	close(fd);
	if (k->n == 0)
		return;
	qsort(k->syms, k->n, sizeof(*k->syms), ksym_cmp);
	uint32_t n = 0;
	for (uint32_t i = 0; i < k->n; i++) {
		if (n > 0 && k->syms[n - 1].addr == k->syms[i].addr)
			continue;
		k->syms[n++] = k->syms[i];
		k->n_text += k->syms[i].text;
	}
	k->n = n;
	s->st.kernel_symbols = k->n_text;
}

bool enav_symbolizer_kernel(struct enav_symbolizer *s, uint64_t addr, struct enav_frame *out)
{
	struct kernel_table *k = &s->k;
	uint32_t lo = 0, hi;

	*out =
	    (struct enav_frame){.address = addr, .kernel = true, .map_path = "[kernel.kallsyms]"};
	pthread_mutex_lock(&s->lock);
	/* The kernel's file, not a tenant's: read once, under the lock. */
	if (!k->loaded)
		load_kallsyms(s);
	hi = k->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (k->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	const struct ksym *ks = lo > 0 ? &k->syms[lo - 1] : NULL;
	if (!ks || !ks->text || (lo == k->n && addr != ks->addr)) {
		s->st.unresolved++;
		pthread_mutex_unlock(&s->lock);
		return false;
	}
	if (ks->mod)
		snprintf(enav_frame_strings.function, sizeof(enav_frame_strings.function),
			 "%s [%s]", k->names + ks->name, k->names + k->mods[ks->mod - 1]);
	else
		KEEP(function, k->names + ks->name);
	out->function = enav_frame_strings.function;
	out->function_offset = addr - ks->addr;
	s->st.resolved++;
	pthread_mutex_unlock(&s->lock);
	return true;
}
