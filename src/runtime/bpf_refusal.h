/* SPDX-License-Identifier: Apache-2.0 */
/*
 * When a kernel refuses a program: which one, and the last lines of the
 * verifier's reason, read from what libbpf prints while an object loads; and
 * the state of every feature of every eBPF source (on, off by configuration,
 * or refused by this kernel), shown on /metrics and by `enav probe`.
 *
 * Real nodes run many kernels, and one verifier's refusal of one program must
 * switch off only the feature the program belongs to, by name and with the
 * reason (docs/kernels.md).
 */
#ifndef ENAV_RUNTIME_BPF_REFUSAL_H
#define ENAV_RUNTIME_BPF_REFUSAL_H

#include <stdbool.h>
#include <stddef.h>

struct enav_promtext;

#define ENAV_REFUSAL_PROG_MAX	64
#define ENAV_REFUSAL_LINES	3
#define ENAV_REFUSAL_LINE_MAX	160
#define ENAV_REFUSAL_DETAIL_MAX (ENAV_REFUSAL_LINES * (ENAV_REFUSAL_LINE_MAX + 3))

/* What libbpf said about the first program it failed to load. */
struct enav_bpf_refusal {
	char program[ENAV_REFUSAL_PROG_MAX]; /* "" when no line named one */
	char failure[ENAV_REFUSAL_LINE_MAX]; /* "BPF program load failed: ..." */
	/* The last lines of the verifier's log (the reason is at its end). */
	char lines[ENAV_REFUSAL_LINES][ENAV_REFUSAL_LINE_MAX];
	unsigned n_lines; /* lines seen in the log; the last ENAV_REFUSAL_LINES kept */
	bool in_log;
};

/* Feed one line libbpf printed (without "libbpf: " and without the newline).
 * Only the first program named is kept, with its log. */
void enav_bpf_refusal_feed(struct enav_bpf_refusal *r, const char *line, size_t len);

/* "failure; last verifier lines joined by ' | '" into out. */
void enav_bpf_refusal_detail(const struct enav_bpf_refusal *r, char *out, size_t outlen);

/* Route libbpf's messages: every line at debug level, and, between begin
 * and end, into r as well.  Loads happen one at a time, on the main thread. */
void enav_bpf_log_install(void);
void enav_bpf_refusal_begin(struct enav_bpf_refusal *r);
void enav_bpf_refusal_end(void);

/*
 * Why creating a map or loading an object failed, when the likely reason is
 * the memlock limit: kernels before 5.11 charge BPF maps to RLIMIT_MEMLOCK,
 * and raising it takes CAP_SYS_RESOURCE (libbpf tries and fails quietly).
 * A sentence starting with a space, to append after strerror(err); "" when
 * err is not EPERM, the kernel is 5.11 or newer, or the limit is infinite.
 * The _for form takes the kernel release and the limit, for tests.
 */
const char *enav_bpf_memlock_hint(int err);
const char *enav_bpf_memlock_hint_for(int err, const char *kernel_release, bool memlock_finite);

/* Why a feature is in the state it is in. */
enum enav_feature_state {
	ENAV_FEATURE_ON,
	ENAV_FEATURE_CONFIGURED_OFF,
	ENAV_FEATURE_VERIFIER_REFUSED, /* a program of it did not load */
	ENAV_FEATURE_ATTACH_REFUSED,   /* a program of it loaded but did not attach */
	ENAV_FEATURE_HOOK_MISSING,     /* the kernel lacks a hook it needs (checked first) */
	ENAV_FEATURE__COUNT
};

const char *enav_feature_state_name(enum enav_feature_state s);

/* Record (or update) source/feature's state; program and detail may be NULL.
 * Names must outlive the process (string literals).  Bounded: past the
 * table's size a state is not recorded, with a warning. */
void enav_feature_record(const char *source, const char *feature, enum enav_feature_state state,
			 const char *program, const char *detail);

/* Calls fn for every recorded feature, in record order. */
void enav_features_each(void (*fn)(void *ctx, const char *source, const char *feature,
				   enum enav_feature_state state, const char *program,
				   const char *detail),
			void *ctx);

/* True when source's feature was recorded as refused by this kernel. */
bool enav_feature_refused(const char *source, const char *feature);

/* enav_feature_enabled{source,feature,state} 1 or 0. */
void enav_features_render(struct enav_promtext *p);

#endif
