/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The symbol filter: only the operator's own code leaves the node.
 *
 * A frame is classified by the module path of its function.  Kept: a function
 * whose package path has no domain in its first element (the standard
 * library, `main`, unpublished code, C and kernel symbols), the binary's main
 * module, every module a `replace` directive redirected (its original and
 * its target path: a monorepo builds those from source), and the configured
 * allow-list prefixes.  Everything else is third-party and redacted.
 *
 * Redaction removes the function's name, system name and file name; one
 * placeholder function per redacted run of frames keeps the stack's shape.
 * The filter also drops what a profile carries beyond frames: mapping file
 * names and build ids, sample labels (unless keep_labels, for the agent's own
 * labels on eBPF profiles), comments, and the directory part of source paths.
 * The output is rebuilt from the survivors, so no string of a redacted
 * identity remains anywhere, the string table included.
 */
#ifndef ENAV_FEATURES_PROFILING_PPROF_FILTER_H
#define ENAV_FEATURES_PROFILING_PPROF_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct enav_go_buildinfo;

#define ENAV_PPROF_REDACTED "[redacted]"

/* Whose code is the operator's own.  Strings are borrowed. */
struct enav_code_owner {
	const char *main_module;     /* NULL when unknown */
	const char *const *replaced; /* original and target paths of replaced modules */
	size_t n_replaced;
	const char *const *allow; /* configured prefixes (module path prefixes) */
	size_t n_allow;
};

/* Fill o from a binary's build info plus the configured allow-list.  The
 * replaced array is malloc'd into *storage (free it after use, NULL when
 * empty); strings stay borrowed from bi and allow.  bi NULL: no build info,
 * the allow-list alone.  A replace that only pins another version of the
 * same module ("X => X v1.2.3") builds nothing from the operator's source and
 * adds nothing; a directory target ("../shared") is not a module path and is
 * not listed (its original path is).  0, -EINVAL or -ENOMEM. */
int enav_code_owner_from_buildinfo(struct enav_code_owner *o, const struct enav_go_buildinfo *bi,
				   const char *const *allow, size_t n_allow, const char ***storage);

/* The package path of a (Go) function name: "github.com/a/b.(*T).M" ->
 * "github.com/a/b", "runtime.mallocgc" -> "runtime", "clone3" -> "clone3",
 * "github.com/a/b%2ev2.F" -> "github.com/a/b.v2" (escapes decoded), a
 * generated "type..eq.github.com/a/b.T" -> "github.com/a/b" (the type's).
 * Writes into out (NUL-terminated, truncated to cap); returns its length. */
size_t enav_function_package(const char *function, char *out, size_t cap);
/* true when the function is the operator's own code (or has no domain): every
 * package path the name holds outside brackets (its own, a generated
 * symbol's type, a promoted method's package) has no domain or is owned.  o
 * NULL: no owner. */
bool enav_code_owner_keeps(const struct enav_code_owner *o, const char *function);

/* Per-frame decision for profiles whose frames come from several binaries
 * (eBPF): the filter asks for the owner of each mapping. */
typedef const struct enav_code_owner *(*enav_owner_for_mapping_fn)(void *ctx,
								   const char *mapping_file,
								   const char *build_id);

struct enav_pprof_filter_opts {
	/* One owner for the whole profile (a pulled profile of one binary)... */
	const struct enav_code_owner *owner;
	/* ...or one per mapping (NULL result = no build info: only the
	 * allow-list and the no-domain rule apply, through default_owner).
	 * Called once per mapping, with its original file name and build id
	 * ("" when absent); frames without a mapping use default_owner, and a
	 * NULL default_owner keeps only code without a domain. */
	enav_owner_for_mapping_fn owner_for_mapping;
	void *ctx;
	const struct enav_code_owner *default_owner;
	bool keep_labels; /* keep sample labels (the agent's own, eBPF profiles) */
	size_t max_bytes; /* decode/encode cap, 0 = 64 MiB */
};

/* Frames count every Line of every Location of every sample (an inlined
 * call is a frame), before redacted runs collapse; an unsymbolized Location
 * is one kept frame.  functions_redacted: distinct input functions;
 * mappings_scrubbed: input mappings that had a file name or build id. */
struct enav_pprof_filter_stats {
	uint64_t samples, frames_kept, frames_redacted, functions_redacted;
	uint64_t labels_dropped, mappings_scrubbed, comments_dropped;
};

/* Filter a pprof (gzip'd or raw) into a new gzip'd pprof (*out malloc'd).
 * Kept function names have bracketed text holding a '/' or '%' (type
 * arguments naming packages) written as "[...]".  One output sample per
 * input sample.  0, or -errno with a one-line reason in err (-E2BIG past
 * max_bytes in or out). */
int enav_pprof_filter(const uint8_t *in, size_t in_len, const struct enav_pprof_filter_opts *o,
		      uint8_t **out, size_t *out_len, struct enav_pprof_filter_stats *st, char *err,
		      size_t errlen);

#endif
