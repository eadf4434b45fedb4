/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A BPF source's programs as data: one row per program of its object, saying
 * which kernels load it, which feature it belongs to and who attaches it.
 * The choice of what loads is a pure function of a row and what the probe
 * found, so a unit test can check it for kernels this host is not.
 */
#ifndef ENAV_RUNTIME_BPF_PROGRAM_TABLE_H
#define ENAV_RUNTIME_BPF_PROGRAM_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* Which kernels load a program.  A scheduler hook is written twice, as the
 * probe proves tp_btf on some kernels and only raw tracepoints on others. */
enum enav_bpf_variant {
	ENAV_BPF_ANY_KERNEL, /* one program for all (tracepoint, perf_event, uprobe) */
	ENAV_BPF_TP_BTF,     /* loaded where the probe proved tp_btf */
	ENAV_BPF_RAW_TP,     /* the same hook where it did not */
};

/* A part of a source that goes off alone when this kernel refuses one of its
 * programs (named, with the verifier's reason). */
struct enav_bpf_feature_spec {
	const char *name; /* as /probe, the metrics and the refusal messages say */
	/* ENAV_CONFIG_BOOL(member): the switch whose explicit "on" in the file
	 * makes a refusal fail the start; 0 when no boolean switches it alone. */
	size_t config_bool;
	/* Its code sits inside programs of the core, behind read-only globals:
	 * a refusal opens the object again, and the source's configure() must
	 * leave the code out (enav_bpf_source_feature_state says refused). */
	bool in_core;
};

struct enav_bpf_program_spec {
	const char *name; /* exactly as in the object */
	enum enav_bpf_variant variant;
	/* NULL: the source's core, whose refusal switches the whole source off. */
	const struct enav_bpf_feature_spec *feature;
	/* The hook may be missing on this kernel (a syscall tracepoint, a
	 * newer syscall): not loaded when tracefs does not list it, and a
	 * failed attach is logged and left out instead of failing the source. */
	bool hook_may_be_absent;
	/* Loaded here, attached by the source itself (uprobes on files found
	 * at run time). */
	bool attached_by_source;
	/* The row applies only where every bit of when and no bit of unless is
	 * among the source's conditions (bits the source defines from the probe
	 * and its configuration; 0 and 0: everywhere).  A program of no
	 * applying row does not load.  One program may have several rows, e.g.
	 * core in one mode and a feature's in another. */
	uint32_t when;
	uint32_t unless;
};

struct enav_bpf_program_table {
	const char *source; /* the source's name, for the tests' messages */
	const struct enav_bpf_program_spec *programs;
	size_t n_programs;
	const struct enav_bpf_feature_spec *const *features;
	size_t n_features;
};

#define ENAV_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* What decides whether a row loads, besides the row. */
struct enav_bpf_load_facts {
	bool tp_btf;		    /* the probe proved tp_btf (decisions.exec_hook) */
	bool feature_on;	    /* the row's feature is on (ignored for the core) */
	bool hook_listed_or_unsure; /* false: tracefs lists no such tracepoint */
	uint32_t conditions;	    /* the source's condition bits (see when) */
};

/* True when the row's program is to be loaded. */
bool enav_bpf_program_loads(const struct enav_bpf_program_spec *p,
			    const struct enav_bpf_load_facts *facts);

/* True when row p applies under the source's condition bits. */
bool enav_bpf_program_applies(const struct enav_bpf_program_spec *p, uint32_t conditions);

/* The first row named name that applies under conditions; else the first
 * row named name (which then does not load); NULL when no row names it. */
const struct enav_bpf_program_spec *enav_bpf_program_find(const struct enav_bpf_program_table *t,
							  const char *name, uint32_t conditions);

#endif
