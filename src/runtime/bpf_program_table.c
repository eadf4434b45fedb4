/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/bpf_program_table.h"

#include <string.h>

bool enav_bpf_program_loads(const struct enav_bpf_program_spec *p,
			    const struct enav_bpf_load_facts *facts)
{
	if (!enav_bpf_program_applies(p, facts->conditions))
		return false;
	/* Exactly one variant of a twice-written hook: the one the probe proved. */
	if (p->variant == ENAV_BPF_TP_BTF && !facts->tp_btf)
		return false;
	if (p->variant == ENAV_BPF_RAW_TP && facts->tp_btf)
		return false;
	/* An in-core feature's code is left out by read-only globals instead:
	 * its programs are the core's and always load. */
	if (p->feature && !p->feature->in_core && !facts->feature_on)
		return false;
	/* Not verified only to fail at attach: a futex2 program carries the
	 * whole unwinder. */
	if (p->hook_may_be_absent && !facts->hook_listed_or_unsure)
		return false;
	return true;
}

bool enav_bpf_program_applies(const struct enav_bpf_program_spec *p, uint32_t conditions)
{
	return (conditions & p->when) == p->when && !(conditions & p->unless);
}

const struct enav_bpf_program_spec *enav_bpf_program_find(const struct enav_bpf_program_table *t,
							  const char *name, uint32_t conditions)
{
	const struct enav_bpf_program_spec *first = NULL;
	for (size_t i = 0; i < t->n_programs; i++) {
		const struct enav_bpf_program_spec *p = &t->programs[i];
		if (strcmp(p->name, name) != 0)
			continue;
		if (enav_bpf_program_applies(p, conditions))
			return p;
		if (!first)
			first = p;
	}
	return first;
}
