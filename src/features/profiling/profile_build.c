/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Building a profile from the store (profile_store.h): the batches of the
 * window are pinned under the store's lock, then read and symbolized
 * without it, into pprof (locations and mappings deduplicated per build) or
 * folded stacks and flame graphs.  Labels come from the workload of each
 * record's cgroup; under redaction user frames outside the owner's code
 * lose their names.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/profiling/profile_store_priv.h"
#include "features/profiling/flamegraph.h"
#include "features/profiling/symbolize.h"
#include "model/pprof.h"
#include "platform/numfmt.h"

#define MAX_FRAMES 256 /* kernel + user, both capped at 127 by the stack map */

/* What a build knows of one process image, copied from the store's caches
 * under its lock the first time a record of the image is met. */
struct task_view {
	char comm[ENAV_COMM_LEN];
	bool snapshot;		   /* its mappings were snapshotted (snapshot_matches) */
	struct owner_entry *owner; /* a reference, or NULL: the allow-list alone */
	const char *root_name;	   /* comm in the build's names, for folded stacks */
};

struct build {
	struct enav_profile_store *s;
	const struct enav_profile_query *q;
	struct enav_profile_batch **pinned; /* the window's batches, oldest first */
	size_t n_pinned;
	struct enav_bcache views; /* enav_profile_task_key() -> struct task_view */
	uint64_t frames_other_image, frames_implausible; /* added to the store's at the end */
	struct workload *workloads;
	size_t n_workloads, cap_workloads;
	/* (tgid, address) -> location id, open addressing */
	struct loc_slot {
		uint64_t addr;
		uint64_t img; /* frame_key(): image, kernel or user, leaf or not */
		bool used, redacted;
		uint64_t id;
	} * locs;
	size_t loc_cap, loc_n;
	struct enav_pprof *pprof;
	uint64_t redacted_loc; /* the "[redacted]" placeholder, once made */
	/* folded/flamegraph */
	struct enav_folded_stack *stacks;
	size_t n_stacks, cap_stacks;
	char **names; /* every string the folded stacks point to */
	size_t n_names, cap_names;
	/* (tgid, addr) -> name index for folded output */
	struct name_slot {
		uint64_t addr;
		uint64_t img;
		bool used;
		uint32_t idx;
	} * name_slots;
	size_t name_cap, name_n;
};

/* The cgroup's workload, described once per build at the time of the
 * first batch that has it. */
static const struct workload *workload_of(struct build *b, uint64_t id, uint64_t time_unix_ns)
{
	for (size_t i = 0; i < b->n_workloads; i++)
		if (b->workloads[i].cgroup_id == id)
			return &b->workloads[i];
	if (b->n_workloads == b->cap_workloads) {
		size_t n = b->cap_workloads ? b->cap_workloads * 2 : 16;
		struct workload *w = realloc(b->workloads, n * sizeof(*w));
		if (!w)
			return NULL;
		b->workloads = w;
		b->cap_workloads = n;
	}
	struct workload *w = &b->workloads[b->n_workloads++];
	enav_profile_describe_cgroup(b->s, id, time_unix_ns, w);
	return w;
}

static bool filter_admits(const struct enav_profile_filter *f, const struct enav_profile_record *r,
			  const struct workload *w)
{
	if (f->pid && r->tgid != f->pid)
		return false;
	if (f->has_trace_id && (!r->link || memcmp(r->trace_id, f->trace_id, 16) != 0))
		return false;
	if (f->has_span_id && (!r->link || (memcmp(r->span_id, f->span_id, 8) != 0 &&
					    memcmp(r->client_span_id, f->span_id, 8) != 0)))
		return false;
	if (f->container && f->container[0]) {
		size_t n = strlen(f->container);
		if (!w || !w->identity.container_id[0] ||
		    strncmp(w->identity.container_id, f->container, n) != 0)
			return false;
	}
	if (f->cgroup && f->cgroup[0]) {
		char *end;
		unsigned long long id = strtoull(f->cgroup, &end, 10);
		if (*end == '\0' && end != f->cgroup)
			return r->cgroup_id == id;
		/* A path prefix on a component boundary: /kube is not /kubepods.slice. */
		size_t n = strlen(f->cgroup);
		while (n > 1 && f->cgroup[n - 1] == '/')
			n--;
		if (!w || !w->has_path || strncmp(w->path, f->cgroup, n) != 0 ||
		    (w->path[n] != '\0' && w->path[n] != '/' && !(n == 1 && f->cgroup[0] == '/')))
			return false;
	}
	return true;
}

static size_t slot_hash(uint64_t addr, uint64_t img, size_t cap)
{
	uint64_t h = (addr ^ img ^ (img << 29)) * 0x9e3779b97f4a7c15ull;
	return (size_t)(h >> 17) & (cap - 1);
}

/* Open-addressing tables grow at 50% load; both are per build. */
static bool locs_grow(struct build *b)
{
	if (b->loc_n * 2 < b->loc_cap)
		return true;
	size_t ncap = b->loc_cap ? b->loc_cap * 2 : 4096;
	struct loc_slot *n = calloc(ncap, sizeof(*n));
	if (!n)
		return false;
	for (size_t i = 0; i < b->loc_cap; i++) {
		if (!b->locs[i].used)
			continue;
		size_t h = slot_hash(b->locs[i].addr, b->locs[i].img, ncap);
		while (n[h].used)
			h = (h + 1) & (ncap - 1);
		n[h] = b->locs[i];
	}
	free(b->locs);
	b->locs = n;
	b->loc_cap = ncap;
	return true;
}

static bool names_grow(struct build *b)
{
	if (b->name_n * 2 < b->name_cap)
		return true;
	size_t ncap = b->name_cap ? b->name_cap * 2 : 4096;
	struct name_slot *n = calloc(ncap, sizeof(*n));
	if (!n)
		return false;
	for (size_t i = 0; i < b->name_cap; i++) {
		if (!b->name_slots[i].used)
			continue;
		size_t h = slot_hash(b->name_slots[i].addr, b->name_slots[i].img, ncap);
		while (n[h].used)
			h = (h + 1) & (ncap - 1);
		n[h] = b->name_slots[i];
	}
	free(b->name_slots);
	b->name_slots = n;
	b->name_cap = ncap;
	return true;
}

static void task_view_free(void *v)
{
	struct task_view *t = v;
	if (t->owner)
		enav_profile_owner_unref(t->owner);
	free(t);
}

/* The view of r's process image; NULL without memory (then: no name, no
 * snapshot, the allow-list alone: fail closed). */
static struct task_view *view_of(struct build *b, const struct enav_profile_record *r)
{
	uint64_t key = enav_profile_task_key(r->tgid, r->exec_gen);
	struct task_view *v = enav_bcache_get(&b->views, key);
	if (v || !(v = calloc(1, sizeof(*v))))
		return v;
	struct enav_profile_store *s = b->s;
	pthread_mutex_lock(&s->lock);
	struct task_info *t = enav_bcache_get(&s->tasks, key);
	if (t) {
		memcpy(v->comm, t->comm, sizeof(v->comm));
		v->owner = t->exe_key ? enav_bcache_get(&s->owners, t->exe_key) : NULL;
		if (v->owner)
			atomic_fetch_add(&v->owner->refs, 1);
	}
	v->snapshot = enav_profile_snapshot_matches(s, r->tgid, r->exec_gen);
	pthread_mutex_unlock(&s->lock);
	enav_bcache_put(&b->views, key, v);
	return v;
}

static bool has_snapshot(struct build *b, const struct enav_profile_record *r)
{
	const struct task_view *v = view_of(b, r);
	return v && v->snapshot;
}

static const char *comm_of(struct build *b, const struct enav_profile_record *r)
{
	const struct task_view *v = view_of(b, r);
	return v && v->comm[0] ? v->comm : NULL;
}

/* Which cache line a frame resolves on: the process image for user frames
 * (pid and exec), one for the kernel; leaf and return addresses apart. */
static uint64_t frame_key(const struct enav_profile_record *r, bool kernel, bool leaf)
{
	uint64_t img = kernel ? 0 : ((uint64_t)r->exec_gen << 32 | r->tgid);
	return img | (leaf ? 1ull << 63 : 0);
}

/* Resolve a frame.  Return addresses (every frame but the leaf) are looked
 * up one byte earlier, inside the call instruction, so a call that ends a
 * function is not credited to the next one. */
static void resolve(struct build *b, const struct enav_profile_record *r, uint64_t ip, bool kernel,
		    bool leaf, struct enav_frame *f)
{
	uint64_t lookup = leaf || ip == 0 ? ip : ip - 1;
	if (kernel) {
		enav_symbolizer_kernel(b->s->sym, lookup, f);
	} else if (has_snapshot(b, r)) {
		enav_symbolizer_user(b->s->sym, r->tgid, lookup, f);
	} else {
		/* No snapshot of this image: the address stays, no name. */
		memset(f, 0, sizeof(*f));
		b->frames_other_image++;
	}
	f->address = ip;
}

/* The owner a record's user frames are judged by: its executable's build
 * info, else the allow-list alone (fail closed: more is redacted). */
static const struct enav_code_owner *owner_of(struct build *b, const struct enav_profile_record *r)
{
	const struct task_view *v = view_of(b, r);
	return v && v->owner ? &v->owner->owner : &b->s->allow_only;
}

/* Under redaction, a user frame outside the owner's code loses its name. */
static bool redacted(struct build *b, const struct enav_profile_record *r, bool kernel,
		     const struct enav_frame *f)
{
	return b->q->redact && !kernel && f->function &&
	       !enav_code_owner_keeps(owner_of(b, r), f->function);
}

static uint64_t location_of(struct build *b, const struct enav_profile_record *r, uint64_t ip,
			    bool kernel, bool leaf, bool *was_redacted)
{
	uint64_t img = frame_key(r, kernel, leaf);
	if (!locs_grow(b))
		return 0;
	size_t h = slot_hash(ip, img, b->loc_cap);
	while (b->locs[h].used) {
		if (b->locs[h].addr == ip && b->locs[h].img == img) {
			*was_redacted = b->locs[h].redacted;
			return b->locs[h].id;
		}
		h = (h + 1) & (b->loc_cap - 1);
	}
	struct enav_frame f;
	resolve(b, r, ip, kernel, leaf, &f);
	bool red = redacted(b, r, kernel, &f);
	uint64_t mapping = 0, id;
	if (red) {
		/* One placeholder location: nothing of the frame remains. */
		if (!b->redacted_loc)
			b->redacted_loc =
			    enav_pprof_location(b->pprof, 0, 0, ENAV_PPROF_REDACTED, NULL, 0);
		id = b->redacted_loc;
	} else {
		if (f.map_path)
			mapping = enav_pprof_mapping(b->pprof, f.map_start, f.map_limit,
						     f.map_offset, b->q->redact ? "" : f.map_path,
						     b->q->redact ? NULL : f.build_id);
		id = enav_pprof_location(b->pprof, mapping, ip, f.function, NULL, 0);
	}
	b->locs[h] =
	    (struct loc_slot){.addr = ip, .img = img, .used = true, .redacted = red, .id = id};
	b->loc_n++;
	*was_redacted = red;
	return id;
}

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static char *intern_name(struct build *b, char *name)
{
	if (!name)
		return NULL;
	if (b->n_names == b->cap_names) {
		size_t n = b->cap_names ? b->cap_names * 2 : 256;
		char **v = realloc(b->names, n * sizeof(*v));
		if (!v) {
			free(name);
			return NULL;
		}
		b->names = v;
		b->cap_names = n;
	}
	b->names[b->n_names++] = name;
	return name;
}

/* Display name of a frame: its function, else its address and mapping (never
 * an invented function name). */
static const char *frame_name(struct build *b, const struct enav_profile_record *r, uint64_t ip,
			      bool kernel, bool leaf)
{
	uint64_t img = frame_key(r, kernel, leaf);
	if (!names_grow(b))
		return "[out of memory]";
	size_t h = slot_hash(ip, img, b->name_cap);
	while (b->name_slots[h].used) {
		if (b->name_slots[h].addr == ip && b->name_slots[h].img == img)
			return b->names[b->name_slots[h].idx];
		h = (h + 1) & (b->name_cap - 1);
	}
	struct enav_frame f;
	resolve(b, r, ip, kernel, leaf, &f);
	char *name = NULL;
	int rc;
	if (redacted(b, r, kernel, &f))
		rc = asprintf(&name, "%s", ENAV_PPROF_REDACTED);
	else if (b->q->redact && !f.function && f.map_path)
		rc = asprintf(&name, "0x%" PRIx64, ip); /* no file names under redaction */
	else if (f.function)
		rc = asprintf(&name, "%s%s", f.function, kernel ? "_[k]" : "");
	else if (f.map_path)
		rc = asprintf(&name, "0x%" PRIx64 " (%s)", ip, basename_of(f.map_path));
	else
		rc = asprintf(&name, "0x%" PRIx64, ip);
	if (rc < 0 || !intern_name(b, name))
		return "[out of memory]";
	b->name_slots[h] = (struct name_slot){
	    .addr = ip, .img = img, .used = true, .idx = (uint32_t)(b->n_names - 1)};
	b->name_n++;
	return name;
}

/* Kernel stacks taken inside a BPF program start with the tracing
 * machinery (the program, the trampoline, the tracepoint runner): frames of
 * ours, not the workload's.  Count how many leading frames to leave out. */
static uint16_t tracing_frames(struct build *b, const uint64_t *ips, uint16_t n)
{
	static const char *const prefixes[] = {"bpf_prog_", "bpf_trace_run", "__bpf_trace_",
					       "__traceiter_", "bpf_dispatcher"};
	uint16_t skip = 0;
	for (; skip < n; skip++) {
		struct enav_frame f;
		enav_symbolizer_kernel(b->s->sym, ips[skip], &f);
		bool ours = false;
		for (size_t i = 0; f.function && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
			ours |= strncmp(f.function, prefixes[i], strlen(prefixes[i])) == 0;
		if (!ours)
			break;
	}
	return skip;
}

/*
 * How many user frames (leaf first) are plausible: the first one outside
 * every executable mapping of the process ends the stack, so a frame
 * pointer chain through code built without one never puts stack bytes in a
 * profile.  Without a snapshot of this image only the leaf, read from the
 * registers, is kept.
 */
static uint16_t plausible_user_frames(struct build *b, const struct enav_profile_record *r,
				      const uint64_t *uips)
{
	if (!has_snapshot(b, r))
		return r->n_user ? 1 : 0;
	for (uint16_t i = 0; i < r->n_user; i++) {
		uint64_t at = i == 0 || uips[i] == 0 ? uips[i] : uips[i] - 1;
		if (enav_symbolizer_executable(b->s->sym, r->tgid, at) != 1) {
			b->frames_implausible += r->n_user - i;
			return i;
		}
	}
	return r->n_user;
}

static int add_pprof_sample(struct build *b, const struct enav_profile_batch *bt,
			    const struct enav_profile_record *r, const struct workload *w)
{
	uint64_t ids[MAX_FRAMES];
	size_t n = 0;
	const uint64_t *ips = bt->ips + r->ip_off;
	bool red = false, prev_red = false;
	for (uint16_t i = tracing_frames(b, ips, r->n_kernel); i < r->n_kernel && n < MAX_FRAMES;
	     i++) {
		uint64_t id = location_of(b, r, ips[i], true, n == 0, &red);
		if (id)
			ids[n++] = id;
	}
	uint16_t n_user = plausible_user_frames(b, r, ips + r->n_kernel);
	for (uint16_t i = 0; i < n_user && n < MAX_FRAMES; i++) {
		uint64_t id = location_of(b, r, ips[r->n_kernel + i], false, n == 0, &red);
		/* A run of redacted frames is one placeholder: the shape stays. */
		if (id && !(red && prev_red))
			ids[n++] = id;
		prev_red = red;
	}
	int64_t values[2];
	values[0] = (int64_t)r->count;
	if (r->kind == ENAV_PROFILE_CPU)
		values[1] = (int64_t)(r->count * (1000000000ull / b->s->cfg.frequency_hz));
	else
		values[1] = (int64_t)r->total_ns;
	struct enav_pprof_label labels[12];
	size_t nl = 0;
	labels[nl++] = (struct enav_pprof_label){.key = "pid", .num = r->tgid};
	const char *comm = comm_of(b, r);
	if (comm)
		labels[nl++] = (struct enav_pprof_label){.key = "comm", .str = comm};
	if (w && w->has_path)
		labels[nl++] = (struct enav_pprof_label){.key = "cgroup", .str = w->path};
	if (w && w->identity.container_id[0])
		labels[nl++] = (struct enav_pprof_label){.key = "container_id",
							 .str = w->identity.container_id};
	if (w && w->pod[0]) {
		labels[nl++] = (struct enav_pprof_label){.key = "pod", .str = w->pod};
		labels[nl++] = (struct enav_pprof_label){.key = "namespace", .str = w->namespace_};
	}
	if (w && w->service[0])
		labels[nl++] = (struct enav_pprof_label){.key = "service", .str = w->service};
	/* The request the sample ran for (ADR 0021): span_id is also
	 * Pyroscope's span-profile label. */
	static const uint8_t zero[16];
	char trace_id[33], span_id[17], client_span_id[17];
	if (r->link) {
		enav_hex_bytes(trace_id, r->trace_id, 16);
		trace_id[32] = '\0';
		labels[nl++] = (struct enav_pprof_label){.key = "trace_id", .str = trace_id};
		if (memcmp(r->span_id, zero, 8) != 0) {
			enav_hex_bytes(span_id, r->span_id, 8);
			span_id[16] = '\0';
			labels[nl++] = (struct enav_pprof_label){.key = "span_id", .str = span_id};
		}
		if (memcmp(r->client_span_id, zero, 8) != 0) {
			enav_hex_bytes(client_span_id, r->client_span_id, 8);
			client_span_id[16] = '\0';
			labels[nl++] = (struct enav_pprof_label){.key = "client_span_id",
								 .str = client_span_id};
		}
		labels[nl++] = (struct enav_pprof_label){
		    .key = "span_link",
		    .str = r->link == ENAV_PROFILE_LINK_INFERRED ? "inferred" : "observed"};
	}
	return enav_pprof_sample(b->pprof, ids, n, values, 2, labels, nl);
}

static int add_folded_stack(struct build *b, const struct enav_profile_batch *bt,
			    const struct enav_profile_record *r)
{
	const char *frames[MAX_FRAMES + 1];
	size_t n = 0;
	const uint64_t *ips = bt->ips + r->ip_off;
	/* Root first: the process name, then user frames outermost first, then kernel. */
	/* The stacks outlive the views (a view may be evicted): the name is
	 * one of the build's own strings. */
	struct task_view *view = view_of(b, r);
	if (view && view->comm[0] && !view->root_name)
		view->root_name = intern_name(b, strdup(view->comm));
	frames[n++] = view && view->root_name ? view->root_name : "[unknown process]";
	for (int i = (int)plausible_user_frames(b, r, ips + r->n_kernel) - 1;
	     i >= 0 && n < MAX_FRAMES; i--) {
		const char *name =
		    frame_name(b, r, ips[r->n_kernel + i], false, i == 0 && r->n_kernel == 0);
		/* A run of redacted frames is one placeholder. */
		if (!(n > 1 && !strcmp(name, ENAV_PPROF_REDACTED) &&
		      !strcmp(frames[n - 1], ENAV_PPROF_REDACTED)))
			frames[n++] = name;
	}
	int skip = tracing_frames(b, ips, r->n_kernel);
	for (int i = (int)r->n_kernel - 1; i >= skip && n < MAX_FRAMES; i--)
		frames[n++] = frame_name(b, r, ips[i], true, i == skip);
	if (b->n_stacks == b->cap_stacks) {
		size_t nc = b->cap_stacks ? b->cap_stacks * 2 : 256;
		struct enav_folded_stack *v = realloc(b->stacks, nc * sizeof(*v));
		if (!v)
			return -ENOMEM;
		b->stacks = v;
		b->cap_stacks = nc;
	}
	const char **copy = malloc(n * sizeof(*copy));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, frames, n * sizeof(*copy));
	uint64_t value = r->kind == ENAV_PROFILE_CPU ? r->count : r->total_ns;
	b->stacks[b->n_stacks++] =
	    (struct enav_folded_stack){.frames = copy, .n_frames = n, .value = value};
	return 0;
}

static const struct enav_pprof_value_type value_types[ENAV_PROFILE__COUNT][2] = {
    [ENAV_PROFILE_CPU] = {{"samples", "count"}, {"cpu", "nanoseconds"}},
    [ENAV_PROFILE_OFFCPU] = {{"episodes", "count"}, {"offcpu", "nanoseconds"}},
    [ENAV_PROFILE_FUTEX] = {{"waits", "count"}, {"futex", "nanoseconds"}},
};

static void build_free(struct build *b)
{
	enav_bcache_destroy(&b->views);
	free(b->workloads);
	free(b->locs);
	free(b->name_slots);
	for (size_t i = 0; i < b->n_stacks; i++)
		free((void *)b->stacks[i].frames);
	free(b->stacks);
	for (size_t i = 0; i < b->n_names; i++)
		free(b->names[i]);
	free(b->names);
	if (b->pprof)
		enav_pprof_free(b->pprof);
}

static int render_text(struct build *b, const struct enav_profile_query *q, uint8_t **out,
		       size_t *out_len)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -ENOMEM;
	int rc;
	if (q->format == ENAV_PROFILE_FORMAT_FOLDED) {
		rc = enav_folded_write(f, b->stacks, b->n_stacks);
	} else {
		static const char *const titles[ENAV_PROFILE__COUNT] = {
		    "CPU profile", "Off-CPU time", "Futex wait time"};
		struct enav_flamegraph_opts o = {
		    .title = titles[q->kind],
		    .unit = q->kind == ENAV_PROFILE_CPU ? "samples" : "nanoseconds"};
		rc = enav_flamegraph_svg(f, b->stacks, b->n_stacks, &o);
	}
	if (fclose(f) != 0 && rc == 0)
		rc = -EIO;
	if (rc) {
		free(buf);
		return rc;
	}
	*out = (uint8_t *)buf;
	*out_len = len;
	return 0;
}

/* Pins the batches of q's window (lock held); false without memory. */
static bool pin_window(struct build *b, const struct enav_profile_query *q)
{
	struct enav_profile_store *s = b->s;
	b->pinned = s->n_batches ? malloc(s->n_batches * sizeof(*b->pinned)) : NULL;
	if (s->n_batches && !b->pinned)
		return false;
	for (struct enav_profile_batch *bt = s->head; bt; bt = bt->next) {
		if (bt->start_mono_ns < q->from_mono_ns || bt->end_mono_ns > q->to_mono_ns)
			continue;
		bt->pins++;
		b->pinned[b->n_pinned++] = bt;
	}
	return true;
}

/* Unpins them, freeing those evicted meanwhile (lock held). */
static void unpin_window(struct build *b)
{
	for (size_t i = 0; i < b->n_pinned; i++) {
		struct enav_profile_batch *bt = b->pinned[i];
		if (--bt->pins == 0 && bt->evicted)
			enav_profile_batch_free(bt);
	}
	free(b->pinned);
	b->pinned = NULL;
	b->n_pinned = 0;
}

/* The records of the pinned batches into a profile (no lock held: this is
 * where the tenants' files are read). */
static int build_unlocked(struct build *b, struct enav_profile_query *q, uint8_t **out,
			  size_t *out_len, struct enav_pprof_decoded *tables)
{
	struct enav_profile_store *s = b->s;
	uint64_t first = 0, last = 0, first_unix = 0;
	for (size_t k = 0; k < b->n_pinned; k++) {
		const struct enav_profile_batch *bt = b->pinned[k];
		if (!first || bt->start_mono_ns < first) {
			first = bt->start_mono_ns;
			first_unix = bt->start_unix_ns;
		}
		if (bt->end_mono_ns > last)
			last = bt->end_mono_ns;
	}
	if (q->format == ENAV_PROFILE_FORMAT_PPROF) {
		int64_t period =
		    q->kind == ENAV_PROFILE_CPU ? 1000000000ll / s->cfg.frequency_hz : 1;
		b->pprof = enav_pprof_new(value_types[q->kind], 2, value_types[q->kind][1], period,
					  (int64_t)first_unix, (int64_t)(last - first), NULL);
		if (!b->pprof)
			return -ENOMEM;
	}
	int rc = 0;
	for (size_t k = 0; k < b->n_pinned && !rc; k++) {
		const struct enav_profile_batch *bt = b->pinned[k];
		for (uint32_t i = 0; i < bt->n_recs && !rc; i++) {
			const struct enav_profile_record *r = &bt->recs[i];
			if (r->kind != q->kind)
				continue;
			const struct workload *w =
			    workload_of(b, r->cgroup_id, enav_profile_batch_end_unix_ns(bt));
			if (!filter_admits(&q->filter, r, w))
				continue;
			q->matched++;
			rc = b->pprof ? add_pprof_sample(b, bt, r, w) : add_folded_stack(b, bt, r);
		}
	}
	if (rc)
		return rc;
	if (!b->pprof)
		return render_text(b, q, out, out_len);
	if (!q->redact) /* under redaction no comment leaves either */
		enav_pprof_comment(b->pprof, "enav: frame-pointer stacks; unsymbolized frames keep "
					     "their address and mapping");
	if (tables)
		return enav_pprof_tables(b->pprof, tables);
	return enav_pprof_encode(b->pprof, true, out, out_len);
}

/* A profile into *out (bytes of q's format) or, with tables, into tables. */
static int build(struct enav_profile_store *s, struct enav_profile_query *q, uint8_t **out,
		 size_t *out_len, struct enav_pprof_decoded *tables)
{
	if (q->kind >= ENAV_PROFILE__COUNT)
		return -EINVAL;
	struct build b = {.s = s, .q = q};
	q->matched = 0;
	int rc = enav_bcache_init(&b.views, s->cfg.max_processes ? s->cfg.max_processes : 4096,
				  task_view_free);
	pthread_mutex_lock(&s->lock);
	s->builds++;
	if (!rc && !pin_window(&b, q))
		rc = -ENOMEM;
	pthread_mutex_unlock(&s->lock);
	if (!rc)
		rc = build_unlocked(&b, q, out, out_len, tables);
	pthread_mutex_lock(&s->lock);
	unpin_window(&b);
	s->build_errors += rc != 0;
	s->frames_other_image += b.frames_other_image;
	s->frames_implausible += b.frames_implausible;
	pthread_mutex_unlock(&s->lock);
	build_free(&b);
	return rc;
}

int enav_profile_store_build(struct enav_profile_store *s, struct enav_profile_query *q,
			     uint8_t **out, size_t *out_len)
{
	return build(s, q, out, out_len, NULL);
}

int enav_profile_store_build_tables(struct enav_profile_store *s, struct enav_profile_query *q,
				    struct enav_pprof_decoded *out)
{
	*out = (struct enav_pprof_decoded){0};
	q->format = ENAV_PROFILE_FORMAT_PPROF;
	return build(s, q, NULL, NULL, out);
}
