/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What every eBPF source does the same way: open the skeleton built for the
 * chosen transport, share discovery's capture-filter maps, load exactly one
 * variant of each hook (as the source's program table says, per the probe),
 * attach, drain the transport into a decoder, and account for itself.
 *
 * A source declares its programs in a table (runtime/bpf_program_table.h):
 * nothing here reads a program's name for what it means.
 */
#ifndef ENAV_RUNTIME_BPF_SOURCE_H
#define ENAV_RUNTIME_BPF_SOURCE_H

#include <stdatomic.h>

#include "runtime/host.h"
#include "runtime/bpf_program_table.h"
#include "runtime/bpf_refusal.h"
#include "runtime/event_decode.h"
#include "runtime/transport.h"

struct bpf_object;
struct bpf_link;

/* One skeleton type (one transport) seen through plain function pointers. */
struct enav_bpf_skel_ops {
	void *(*open)(void);
	struct bpf_object *(*obj)(void *skel);
	int (*load)(void *skel);
	void (*destroy)(void *skel);
};

/* Wrap the functions bpftool generates for skeleton NAME. */
#define ENAV_SKEL_OPS(NAME)                                                                        \
	static void *NAME##_open_any(void)                                                         \
	{                                                                                          \
		return NAME##__open();                                                             \
	}                                                                                          \
	static struct bpf_object *NAME##_obj_any(void *s)                                          \
	{                                                                                          \
		return ((struct NAME *)s)->obj;                                                    \
	}                                                                                          \
	static int NAME##_load_any(void *s)                                                        \
	{                                                                                          \
		return NAME##__load(s);                                                            \
	}                                                                                          \
	static void NAME##_destroy_any(void *s)                                                    \
	{                                                                                          \
		NAME##__destroy(s);                                                                \
	}                                                                                          \
	static const struct enav_bpf_skel_ops NAME##_ops = {NAME##_open_any, NAME##_obj_any,       \
							    NAME##_load_any, NAME##_destroy_any}

#define ENAV_BPF_MAX_LINKS	 16
#define ENAV_BPF_MAX_EVENT_TYPES 16
#define ENAV_BPF_MAX_FEATURES	 4

/* A part of a source that goes off alone when this kernel refuses one of its
 * programs; a refused program outside every feature stops the whole source. */
struct enav_bpf_feature {
	const char *name; /* e.g. "tls" */
	/* Its row of the source's table. */
	const struct enav_bpf_feature_spec *spec;
	const char *config_key;	       /* the key that switches it on */
	bool wanted;		       /* false: off by configuration */
	bool required;		       /* the file set config_key: refusal fails start */
	enum enav_feature_state state; /* after start */
	/* Its code sits inside programs the source always loads, behind
	 * read-only globals: after a refusal the source's configure() must
	 * leave the code out (enav_bpf_source_feature_refused says so), and
	 * the same programs load again without it. */
	bool in_core;
};

struct enav_bpf_source {
	const char *name;
	uint32_t event_types; /* bit per enum enav_event_type the source emits */
	/* Every program of the object, set before enav_bpf_source_start. */
	const struct enav_bpf_program_table *programs;
	/* The source's condition bits the table's rows are chosen by (their
	 * when and unless), set before enav_bpf_source_start. */
	uint32_t conditions;
	struct enav_bpf_feature features[ENAV_BPF_MAX_FEATURES];
	size_t n_features;
	/* Sets the skeleton's read-only globals and map sizes: called after every
	 * open, as a refused feature means opening the object again. */
	void (*configure)(void *ctx);
	void *configure_ctx;
	/* The first read-only global configure() named that the object lacks
	 * (a programming error): the start fails with it. */
	char rodata_error[160];
	/* Set when this kernel refused a program outside every feature. */
	bool refused;
	struct enav_host *host;
	const struct enav_bpf_skel_ops *ops;
	void *skel;
	struct bpf_object *obj;
	struct bpf_link *links[ENAV_BPF_MAX_LINKS];
	size_t n_links;
	struct enav_transport transport;
	bool transport_open;
	int counters_fd;
	int ncpus;
	_Atomic uint64_t events[ENAV_BPF_MAX_EVENT_TYPES]; /* by enum enav_event_type */
	_Atomic uint64_t decode_errors[ENAV_DECODE__COUNT];
};

/* Sum slots [0, n) of a per-CPU u64 array map into out[0..n) (0 when a
 * lookup fails). */
void enav_bpf_percpu_sums(int map_fd, uint32_t n, uint64_t *out);

/* Open the skeleton for the agent's transport and share the filter maps.
 * The caller then sets s->configure (read-only globals and map sizes, called
 * at once and again after every re-open) and its features. */
int enav_bpf_source_open(struct enav_bpf_source *s, struct enav_host *a, const char *name,
			 const struct enav_bpf_skel_ops *ringbuf,
			 const struct enav_bpf_skel_ops *perf, char *err, size_t errlen);
/* A feature of the source's table: wanted false records it as off by
 * configuration and does not load its programs; its switch set explicitly in
 * the file makes a refusal fail the start.  Every feature of the table must
 * be declared so before enav_bpf_source_start. */
void enav_bpf_source_want(struct enav_bpf_source *s, const struct enav_bpf_feature_spec *f,
			  bool wanted);
/* True when the feature runs (loaded and attached, or attached by hand). */
bool enav_bpf_source_feature_on(const struct enav_bpf_source *s, const char *name);
/* True when this kernel refused the feature's programs (an in-core feature's
 * configure() then leaves its code out). */
bool enav_bpf_source_feature_refused(const struct enav_bpf_source *s, const char *name);
/* Set a read-only global of the open object by its name, whichever
 * transport's skeleton is open (their .rodata differ in type, not layout).
 * A name the object lacks, or of another size, is a programming error every
 * start trips on: logged, then abort(). */
void enav_bpf_source_rodata_u32(struct enav_bpf_source *s, const char *name, uint32_t value);
void enav_bpf_source_rodata_u64(struct enav_bpf_source *s, const char *name, uint64_t value);
void enav_bpf_source_rodata_bool(struct enav_bpf_source *s, const char *name, bool value);
/* Load, attach every program of the proven variant (perf_event programs are
 * left to the caller, which opens the perf events), start draining into fn.
 * A program the kernel refuses switches its feature off (named, with the
 * verifier's last lines) and the rest loads again; outside a feature, or in
 * one the file asked for, the refusal fails the start (s->refused set). */
int enav_bpf_source_start(struct enav_bpf_source *s, enav_event_fn fn, void *ctx, char *err,
			  size_t errlen);
/* Detach, drain what is in flight, release everything. */
void enav_bpf_source_close(struct enav_bpf_source *s);

/* Decode one event with the feature's decoder into out; it must be of a
 * type in s->event_types.  Counts it, or its decode error, on s.  False
 * when it is not usable. */
bool enav_bpf_source_decode(struct enav_bpf_source *s, enav_event_decode_fn decode,
			    const void *data, size_t size, void *out);

/* A new signal of kind for the task in hdr (time, pid, tid, cgroup set),
 * with tail_len bytes of tail; NULL, counted, when out of memory. */
struct enav_signal *enav_bpf_source_signal(struct enav_bpf_source *s, enum enav_signal_kind kind,
					   uint32_t tail_len, const struct enav_event_header *hdr);

/* The same, with the process fields from a decoded enav_task_info (an
 * unresolved executable is a warning). */
struct enav_signal *enav_bpf_source_task_signal(struct enav_bpf_source *s,
						enum enav_signal_kind kind,
						const struct enav_event_header *hdr,
						const struct enav_decoded_task *t);

/* Metrics of every registered BPF source, each family written once. */
void enav_bpf_sources_render(struct enav_promtext *p);

#endif
