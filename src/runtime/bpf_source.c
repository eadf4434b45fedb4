/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/bpf_source.h"
#include "runtime/agent_priv.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "platform/tracefs.h"
#include "runtime/bpf_refusal.h"

/* Registered sources, so the shared families render once for all of them. */
#define MAX_SOURCES 8
static struct enav_bpf_source *registry[MAX_SOURCES];
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;

static void registry_set(struct enav_bpf_source *s, bool add)
{
	pthread_mutex_lock(&registry_lock);
	for (int i = 0; i < MAX_SOURCES; i++) {
		if (add && !registry[i]) {
			registry[i] = s;
			break;
		}
		if (!add && registry[i] == s)
			registry[i] = NULL;
	}
	pthread_mutex_unlock(&registry_lock);
}

/* Open the skeleton and apply what every source shares; again after a
 * refused load, as libbpf loads an object once. */
static int open_skel(struct enav_bpf_source *s, char *err, size_t errlen)
{
	struct enav_host *a = s->host;
	s->skel = s->ops->open();
	if (!s->skel) {
		snprintf(err, errlen, "%s: cannot open BPF object: %s", s->name, strerror(errno));
		return -errno;
	}
	s->obj = s->ops->obj(s->skel);
	if (a->decisions.transport == ENAV_TRANSPORT_RINGBUF)
		bpf_map__set_max_entries(bpf_object__find_map_by_name(s->obj, "enav_events"),
					 a->cfg.kernel.ring_buffer_bytes);
	if (enav_host_capture_filter(a)) {
		/* Share discovery's filter maps: one verdict per cgroup for every hook. */
		int rc = enav_host_capture_filter_reuse(a, s->obj);
		if (rc) {
			snprintf(err, errlen, "%s: cannot share the capture filter maps: %s",
				 s->name, strerror(-rc));
			return rc;
		}
	} else {
		bpf_map__set_max_entries(
		    bpf_object__find_map_by_name(s->obj, "enav_cgroup_verdicts"),
		    a->cfg.kernel.cgroup_verdict_entries);
	}
	int rc = enav_host_req_links_reuse(a, s->obj);
	if (rc) {
		snprintf(err, errlen, "%s: cannot share the request links map: %s", s->name,
			 strerror(-rc));
		return rc;
	}
	if (bpf_object__find_map_by_name(s->obj, "enav_req_links"))
		enav_bpf_source_rodata_bool(s, "enav_links_on", a->links_on);
	return 0;
}

int enav_bpf_source_open(struct enav_bpf_source *s, struct enav_host *a, const char *name,
			 const struct enav_bpf_skel_ops *ringbuf,
			 const struct enav_bpf_skel_ops *perf, char *err, size_t errlen)
{
	s->name = name;
	s->host = a;
	s->counters_fd = -1;
	s->ncpus = libbpf_num_possible_cpus();
	s->ops = a->decisions.transport == ENAV_TRANSPORT_RINGBUF ? ringbuf : perf;
	return open_skel(s, err, errlen);
}

/* Record a feature of the source's table. */
static void add_feature(struct enav_bpf_source *s, const struct enav_bpf_feature_spec *spec,
			const char *config_key, bool wanted)
{
	if (s->n_features == ENAV_BPF_MAX_FEATURES) {
		/* A source with more parts than the table: they stay in its core. */
		enav_warn("%s: no room for feature %s (ENAV_BPF_MAX_FEATURES): a refusal of "
			  "its programs stops the source",
			  s->name, spec->name);
		return;
	}
	struct enav_bpf_feature *f = &s->features[s->n_features++];
	*f = (struct enav_bpf_feature){
	    .name = spec->name,
	    .spec = spec,
	    .config_key = config_key,
	    .wanted = wanted,
	    .required =
		wanted && config_key && enav_config_explicitly_on(&s->host->cfg, config_key),
	    .state = wanted ? ENAV_FEATURE_ON : ENAV_FEATURE_CONFIGURED_OFF,
	    .in_core = spec->in_core,
	};
}

void enav_bpf_source_want(struct enav_bpf_source *s, const struct enav_bpf_feature_spec *f,
			  bool wanted)
{
	const char *key = enav_config_bool_key(f->config_bool);
	if (f->config_bool && !key) {
		/* A bool the file cannot set (tests/unit/test_config_keys.c
		 * checks every table): an explicit "on" could never make this
		 * feature required. */
		enav_err("%s: feature %s names a configuration bool no schema row sets", s->name,
			 f->name);
		abort();
	}
	add_feature(s, f, key, wanted);
}

bool enav_bpf_source_feature_on(const struct enav_bpf_source *s, const char *name)
{
	for (size_t i = 0; i < s->n_features; i++)
		if (strcmp(s->features[i].name, name) == 0)
			return s->features[i].state == ENAV_FEATURE_ON;
	return false;
}

bool enav_bpf_source_feature_refused(const struct enav_bpf_source *s, const char *name)
{
	for (size_t i = 0; i < s->n_features; i++)
		if (strcmp(s->features[i].name, name) == 0)
			return s->features[i].state == ENAV_FEATURE_VERIFIER_REFUSED ||
			       s->features[i].state == ENAV_FEATURE_ATTACH_REFUSED;
	return false;
}

/* Where the read-only global name sits in the object's .rodata, as the
 * object's BTF places it; NULL when it has none of exactly size bytes. */
static void *rodata_slot(struct enav_bpf_source *s, const char *name, size_t size)
{
	struct bpf_map *map;
	const struct btf *btf = bpf_object__btf(s->obj);
	int id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
	if (id < 0)
		return NULL;
	const struct btf_type *sec = btf__type_by_id(btf, (__u32)id);
	const struct btf_var_secinfo *vars = btf_var_secinfos(sec);
	bpf_object__for_each_map(map, s->obj)
	{
		size_t n = strlen(bpf_map__name(map));
		/* libbpf names the section's map after the object, ".rodata" last. */
		if (!bpf_map__is_internal(map) || n < 7 ||
		    strcmp(bpf_map__name(map) + n - 7, ".rodata") != 0)
			continue;
		size_t map_size = 0;
		/* The memory the skeleton's rodata pointer writes (this libbpf
		 * declares it const, newer ones do not): writable until load. */
		char *data = (char *)bpf_map__initial_value(map, &map_size);
		for (__u16 i = 0; data && i < btf_vlen(sec); i++) {
			const struct btf_type *var = btf__type_by_id(btf, vars[i].type);
			if (strcmp(btf__name_by_offset(btf, var->name_off), name) != 0)
				continue;
			if (vars[i].size != size || vars[i].offset + size > map_size)
				return NULL;
			return data + vars[i].offset;
		}
	}
	return NULL;
}

static void set_rodata(struct enav_bpf_source *s, const char *name, const void *value, size_t size)
{
	void *slot = rodata_slot(s, name, size);
	if (!slot) {
		/* Every start trips on it, so the tests do: the start fails. */
		if (!s->rodata_error[0])
			snprintf(s->rodata_error, sizeof(s->rodata_error),
				 "%s: the object has no read-only global %s of %zu bytes", s->name,
				 name, size);
		return;
	}
	memcpy(slot, value, size);
}

/* -EINVAL with the message when configure() named a global the object lacks. */
static int rodata_checked(const struct enav_bpf_source *s, char *err, size_t errlen)
{
	if (!s->rodata_error[0])
		return 0;
	snprintf(err, errlen, "%s", s->rodata_error);
	return -EINVAL;
}

void enav_bpf_source_rodata_u32(struct enav_bpf_source *s, const char *name, uint32_t value)
{
	set_rodata(s, name, &value, sizeof(value));
}

void enav_bpf_source_rodata_u64(struct enav_bpf_source *s, const char *name, uint64_t value)
{
	set_rodata(s, name, &value, sizeof(value));
}

void enav_bpf_source_rodata_bool(struct enav_bpf_source *s, const char *name, bool value)
{
	set_rodata(s, name, &value, sizeof(value));
}

static int consume(void *arg)
{
	struct enav_bpf_source *s = arg;
	return enav_transport_consume(&s->transport);
}

void enav_bpf_percpu_sums(int map_fd, uint32_t n, uint64_t *out)
{
	int ncpus = libbpf_num_possible_cpus();
	if (ncpus < 1)
		ncpus = 1;
	uint64_t vals[ncpus];
	for (uint32_t k = 0; k < n; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(map_fd, &k, vals) == 0)
			for (int c = 0; c < ncpus; c++)
				out[k] += vals[c];
	}
}

/* prog's row under the source's conditions (check_table proved there is one). */
static const struct enav_bpf_program_spec *row_of(const struct enav_bpf_source *s, const char *prog)
{
	return enav_bpf_program_find(s->programs, prog, s->conditions);
}

/* The feature prog belongs to, or NULL (the source's core). */
static struct enav_bpf_feature *feature_of(struct enav_bpf_source *s, const char *prog)
{
	const struct enav_bpf_program_spec *row = row_of(s, prog);
	for (size_t i = 0; row && row->feature && i < s->n_features; i++)
		if (s->features[i].spec == row->feature)
			return &s->features[i];
	return NULL;
}

/* ENAV_TEST_REFUSE_PROGRAMS=name,...: the tests' way to make this kernel's
 * verifier refuse a named program (it is loaded as a socket filter, whose
 * helpers and context it does not fit), to prove what a refusal switches off. */
static bool test_refuses(const char *prog)
{
	const char *list = getenv("ENAV_TEST_REFUSE_PROGRAMS");
	size_t n = strlen(prog);
	for (const char *p = list; p && *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && strncmp(p, prog, n) == 0)
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* True when sec is a classic tracepoint ("tracepoint/CATEGORY/NAME") that
 * tracefs, mounted, does not list: the kernel lacks it.  False when it is
 * listed or tracefs cannot tell (not mounted). */
static bool tracepoint_absent(const char *sec)
{
	const char *tp = "tracepoint/";
	if (!sec || strncmp(sec, tp, strlen(tp)) != 0)
		return false;
	return enav_tracefs_event(sec + strlen(tp)) == ENAV_TRACEFS_EVENT_ABSENT;
}

/* The hook of prog may be missing on this kernel: logged and left out. */
static bool hook_may_be_absent(const struct enav_bpf_source *s, const char *prog)
{
	return row_of(s, prog)->hook_may_be_absent;
}

static bool attached_by_source(const struct enav_bpf_source *s, const char *prog)
{
	return row_of(s, prog)->attached_by_source;
}

/* Every program of the object has a row, every row a program, and every
 * feature of a row that applies under the source's conditions was declared:
 * checked before the first load, as a row missing would leave a program's
 * choice to libbpf's default. */
static int check_table(struct enav_bpf_source *s, char *err, size_t errlen)
{
	const struct enav_bpf_program_table *t = s->programs;
	if (!t) {
		snprintf(err, errlen, "%s: no program table", s->name);
		return -EINVAL;
	}
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, s->obj)
	{
		if (!row_of(s, bpf_program__name(prog))) {
			snprintf(err, errlen, "%s: program %s has no row in the program table",
				 s->name, bpf_program__name(prog));
			return -EINVAL;
		}
	}
	for (size_t i = 0; i < t->n_programs; i++) {
		const struct enav_bpf_program_spec *row = &t->programs[i];
		if (!bpf_object__find_program_by_name(s->obj, row->name)) {
			snprintf(err, errlen, "%s: the program table names %s, not in the object",
				 s->name, row->name);
			return -EINVAL;
		}
		if (!row->feature || !enav_bpf_program_applies(row, s->conditions))
			continue;
		bool declared = false;
		for (size_t k = 0; k < s->n_features; k++)
			declared |= s->features[k].spec == row->feature;
		if (!declared) {
			snprintf(err, errlen, "%s: feature %s of program %s is not declared",
				 s->name, row->feature->name, row->name);
			return -EINVAL;
		}
	}
	return 0;
}

/* first: the first attempt of a load, which logs what it leaves out. */
static void select_programs(struct enav_bpf_source *s, bool btf, bool first)
{
	struct bpf_program *prog;
	bpf_object__for_each_program(prog, s->obj)
	{
		const char *pn = bpf_program__name(prog);
		struct enav_bpf_feature *f = feature_of(s, pn);
		const struct enav_bpf_program_spec *row = row_of(s, pn);
		struct enav_bpf_load_facts facts = {
		    .tp_btf = btf,
		    .feature_on = f && f->state == ENAV_FEATURE_ON,
		    .hook_listed_or_unsure = true,
		    .conditions = s->conditions,
		};
		bool loads = enav_bpf_program_loads(row, &facts);
		/* tracefs is asked only about a program that would load, so the
		 * warning names only what the kernel's lack leaves out. */
		if (loads && hook_may_be_absent(s, pn) &&
		    tracepoint_absent(bpf_program__section_name(prog))) {
			facts.hook_listed_or_unsure = false;
			loads = enav_bpf_program_loads(row, &facts);
			if (first && !s->host->load_only)
				enav_warn("%s: %s not loaded: this kernel lacks the hook %s",
					  s->name, pn, bpf_program__section_name(prog));
		}
		bpf_program__set_autoload(prog, loads);
		/* A refused in-core feature's programs load again, without it. */
		bool refused_before = f && f->in_core && f->state != ENAV_FEATURE_ON;
		if (loads && !refused_before && test_refuses(pn)) {
			enav_warn("%s: ENAV_TEST_REFUSE_PROGRAMS: %s is loaded as a socket filter, "
				  "for the verifier to refuse",
				  s->name, pn);
			bpf_program__set_type(prog, BPF_PROG_TYPE_SOCKET_FILTER);
		}
	}
}

/* Load the object; a program the kernel refuses switches its feature off and
 * the object is opened and loaded again without it. */
static int load_degrading(struct enav_bpf_source *s, bool btf, char *err, size_t errlen)
{
	for (size_t attempt = 0;; attempt++) {
		select_programs(s, btf, attempt == 0);
		struct enav_bpf_refusal r;
		enav_bpf_refusal_begin(&r);
		int rc = s->ops->load(s->skel);
		int load_errno = rc < 0 ? -rc : errno;
		enav_bpf_refusal_end();
		if (rc == 0)
			return 0;
		char detail[ENAV_REFUSAL_DETAIL_MAX];
		enav_bpf_refusal_detail(&r, detail, sizeof(detail));
		struct enav_bpf_feature *f = r.program[0] ? feature_of(s, r.program) : NULL;
		/* Refused again without an in-core feature's code: the core's fault. */
		if (f && f->in_core && f->state != ENAV_FEATURE_ON)
			f = NULL;
		if (load_errno == EPERM || !r.program[0] ||
		    !bpf_object__find_program_by_name(s->obj, r.program)) {
			/* EPERM is a missing privilege, not this kernel's verdict on a
			 * program; and a failure that names no program of ours is not
			 * one we can place. */
			snprintf(err, errlen, "%s: cannot load the BPF object: %s%s", s->name,
				 strerror(load_errno), enav_bpf_memlock_hint(load_errno));
			return rc;
		}
		if (!f || f->required || attempt >= s->n_features) {
			/* A feature the file asked for fails the agent, not the source. */
			s->refused = !f || !f->required;
			bool asked = f && f->required;
			if (asked)
				enav_feature_record(s->name, f->name, ENAV_FEATURE_VERIFIER_REFUSED,
						    r.program, detail);
			snprintf(err, errlen, "%s%s%s: the kernel refused program %s: %s", s->name,
				 asked ? " feature " : "", asked ? f->name : "", r.program, detail);
			if (asked)
				snprintf(err + strlen(err), errlen - strlen(err),
					 " (%s is set in the configuration: set it to false to run "
					 "without it)",
					 f->config_key);
			return rc;
		}
		f->state = ENAV_FEATURE_VERIFIER_REFUSED;
		enav_feature_record(s->name, f->name, f->state, r.program, detail);
		enav_warn("%s: feature %s is off: the kernel refused program %s: %s", s->name,
			  f->name, r.program, detail);
		s->ops->destroy(s->skel);
		s->skel = NULL;
		rc = open_skel(s, err, errlen);
		if (rc)
			return rc;
		if (s->configure)
			s->configure(s->configure_ctx);
		if ((rc = rodata_checked(s, err, errlen)) != 0)
			return rc;
	}
}

int enav_bpf_source_start(struct enav_bpf_source *s, enav_event_fn fn, void *ctx, char *err,
			  size_t errlen)
{
	struct enav_host *a = s->host;
	bool btf = a->decisions.exec_hook == ENAV_EXEC_HOOK_TP_BTF;
	const char *variant = btf ? "tp_btf" : "raw_tp";
	int rc = check_table(s, err, errlen);
	if (rc == 0)
		rc = rodata_checked(s, err, errlen);
	if (rc)
		return rc;
	rc = load_degrading(s, btf, err, errlen);
	if (rc) {
		if (s->refused)
			enav_feature_record(s->name, "all", ENAV_FEATURE_VERIFIER_REFUSED, NULL,
					    err);
		return rc;
	}
	for (size_t i = 0; i < s->n_features; i++)
		if (s->features[i].state == ENAV_FEATURE_ON ||
		    s->features[i].state == ENAV_FEATURE_CONFIGURED_OFF)
			enav_feature_record(s->name, s->features[i].name, s->features[i].state,
					    NULL, NULL);
	if (a->load_only)
		return 0;
	struct bpf_program *prog;
	struct bpf_program *linked[ENAV_BPF_MAX_LINKS];
	bpf_object__for_each_program(prog, s->obj)
	{
		const char *pn = bpf_program__name(prog);
		if (!bpf_program__autoload(prog) ||
		    bpf_program__type(prog) == BPF_PROG_TYPE_PERF_EVENT)
			continue;
		bool manual = attached_by_source(s, pn);
		struct enav_bpf_feature *f = feature_of(s, pn);
		if (f && f->in_core) /* attached as the core: its failure is the core's */
			f = NULL;
		if (manual || (f && f->state != ENAV_FEATURE_ON))
			continue;
		if (s->n_links == ENAV_BPF_MAX_LINKS) {
			snprintf(err, errlen, "%s: more programs than links", s->name);
			return -E2BIG;
		}
		struct bpf_link *l = bpf_program__attach(prog);
		if (!l && hook_may_be_absent(s, pn)) {
			enav_warn("%s: %s not attached (%s): this kernel lacks the hook", s->name,
				  pn, strerror(errno));
			continue;
		}
		/* EPERM is a missing privilege, not this kernel's verdict: as at load,
		 * it never switches a feature off quietly. */
		if (!l && f && !f->required && errno != EPERM) {
			char why[128];
			snprintf(why, sizeof(why), "cannot attach: %s", strerror(errno));
			f->state = ENAV_FEATURE_ATTACH_REFUSED;
			enav_feature_record(s->name, f->name, f->state, pn, why);
			enav_warn(
			    "%s: feature %s is off: the kernel refused to attach program %s: %s",
			    s->name, f->name, pn, why);
			/* What of the feature already attached goes too. */
			for (size_t i = s->n_links; i-- > 0;)
				if (feature_of(s, bpf_program__name(linked[i])) == f) {
					bpf_link__destroy(s->links[i]);
					s->links[i] = s->links[--s->n_links];
					linked[i] = linked[s->n_links];
				}
			continue;
		}
		if (!l) {
			int e = errno;
			rc = -e;
			snprintf(err, errlen, "%s: the kernel refused to attach program %s: %s",
				 s->name, pn, strerror(e));
			s->refused = !f && e != EPERM;
			if (f && f->required)
				snprintf(err + strlen(err), errlen - strlen(err),
					 " (feature %s: %s is set in the configuration)", f->name,
					 f->config_key);
			if (s->refused)
				enav_feature_record(s->name, "all", ENAV_FEATURE_ATTACH_REFUSED, pn,
						    err);
			return rc;
		}
		linked[s->n_links] = prog;
		s->links[s->n_links++] = l;
	}
	s->counters_fd = bpf_map__fd(bpf_object__find_map_by_name(s->obj, "enav_counters"));
	rc = enav_transport_open(&s->transport, a->decisions.transport,
				 bpf_map__fd(bpf_object__find_map_by_name(s->obj, "enav_events")),
				 a->cfg.kernel.perf_buffer_pages, fn, ctx);
	if (rc) {
		snprintf(err, errlen, "%s: cannot open %s consumer: %s", s->name,
			 enav_transport_name(a->decisions.transport), strerror(-rc));
		return rc;
	}
	s->transport_open = true;
	rc = enav_host_watch(a, enav_transport_epoll_fd(&s->transport), consume, s);
	if (rc) {
		snprintf(err, errlen, "%s: too many watched descriptors", s->name);
		return rc;
	}
	registry_set(s, true);
	enav_info("%s source attached (%s, %s)", s->name, variant,
		  enav_transport_name(a->decisions.transport));
	return 0;
}

void enav_bpf_source_close(struct enav_bpf_source *s)
{
	registry_set(s, false);
	/* Detach first so nothing new arrives, then drain what is in flight. */
	for (size_t i = 0; i < s->n_links; i++)
		bpf_link__destroy(s->links[i]);
	s->n_links = 0;
	if (s->transport_open) {
		enav_transport_consume(&s->transport);
		enav_transport_close(&s->transport);
		s->transport_open = false;
	}
	if (s->skel)
		s->ops->destroy(s->skel);
	s->skel = NULL;
}

bool enav_bpf_source_decode(struct enav_bpf_source *s, enav_event_decode_fn decode,
			    const void *data, size_t size, void *out)
{
	enum enav_decode_status st = decode(data, size, out);
	struct enav_event_header hdr = {0};
	if (st == ENAV_DECODE_OK) {
		memcpy(&hdr, data, sizeof(hdr)); /* the decoder checked it */
		if (hdr.type >= ENAV_BPF_MAX_EVENT_TYPES || !((s->event_types >> hdr.type) & 1u))
			st = ENAV_DECODE_UNKNOWN_TYPE;
	}
	if (st != ENAV_DECODE_OK) {
		atomic_fetch_add(&s->decode_errors[st], 1);
		return false;
	}
	atomic_fetch_add(&s->events[hdr.type], 1);
	return true;
}

struct enav_signal *enav_bpf_source_signal(struct enav_bpf_source *s, enum enav_signal_kind kind,
					   uint32_t tail_len, const struct enav_event_header *hdr)
{
	struct enav_signal *sig = enav_signal_new(kind, tail_len);
	if (!sig) {
		atomic_fetch_add(&s->host->signals_alloc_failed, 1);
		return NULL;
	}
	sig->time_unix_ns = enav_clock_boot_to_unix_ns(hdr->boot_time_ns);
	sig->process.pid = hdr->pid;
	sig->process.tid = hdr->tid;
	sig->process.cgroup_id = hdr->cgroup_id;
	return sig;
}

struct enav_signal *enav_bpf_source_task_signal(struct enav_bpf_source *s,
						enum enav_signal_kind kind,
						const struct enav_event_header *hdr,
						const struct enav_decoded_task *t)
{
	bool has_exe = t->exe_len > 0 && t->exe[0] == '/';
	struct enav_signal *sig =
	    enav_bpf_source_signal(s, kind, has_exe ? t->exe_len + 1u : 0, hdr);
	if (!sig)
		return NULL;
	struct enav_process_signal *p = &sig->process;
	p->ppid = t->ppid;
	p->uid = t->uid;
	p->gid = t->gid;
	p->has_creds = true;
	memcpy(p->comm, t->comm, sizeof(p->comm));
	p->start_boot_ns = t->start_boot_ns;
	p->start_time_unix_ns = enav_clock_boot_to_unix_ns(t->start_boot_ns);
	if (has_exe) {
		char *exe = enav_signal_tail(sig);
		memcpy(exe, t->exe, t->exe_len + 1u);
		p->exe = exe;
		p->has_exe = true;
	} else {
		enav_signal_warn(sig, "exe", "path_exceeds_kernel_walk_bounds");
	}
	return sig;
}

static const char *const kernel_counter_names[ENAV_KC__COUNT] = {
    [ENAV_KC_EMITTED] = "emitted",
    [ENAV_KC_TRANSPORT_FULL] = "transport_full",
    [ENAV_KC_FILTERED] = "filtered",
    [ENAV_KC_SCRATCH_MISSING] = "scratch_missing",
    [ENAV_KC_USER_READ_FAULT] = "user_read_fault",
    [ENAV_KC_MAP_FULL] = "map_full",
    [ENAV_KC_PAYLOAD_UNPROVEN] = "payload_unproven",
};

static const char *const event_names[ENAV_BPF_MAX_EVENT_TYPES] = {
    [ENAV_EVENT_PROCESS_EXEC] = "process_exec",
    [ENAV_EVENT_PROCESS_EXIT] = "process_exit",
    [ENAV_EVENT_TCP] = "tcp",
    [ENAV_EVENT_DNS] = "dns",
    [ENAV_EVENT_PROFILE_TASK] = "profile_task",
    [ENAV_EVENT_L7_DATA] = "l7_data",
    [ENAV_EVENT_CRED_CHANGE] = "cred_change",
    [ENAV_EVENT_FILE_OPEN] = "file_open",
    [ENAV_EVENT_BPF_ACCESS] = "bpf_access",
};
_Static_assert(ENAV_EVENT_BPF_ACCESS < ENAV_BPF_MAX_EVENT_TYPES, "event counters by type");

void enav_bpf_sources_render(struct enav_promtext *p)
{
	pthread_mutex_lock(&registry_lock);
	enav_promtext_family(p, "enav_source_events_total", "counter",
			     "Raw events decoded by source and event type.");
	for (int i = 0; i < MAX_SOURCES; i++) {
		struct enav_bpf_source *s = registry[i];
		for (int t = 1; s && t < ENAV_BPF_MAX_EVENT_TYPES; t++) {
			if (!(s->event_types & (1u << t)) || !event_names[t])
				continue;
			const char *l[] = {"source",	s->name,
					   "event",	event_names[t],
					   "transport", enav_transport_name(s->transport.kind)};
			enav_promtext_sample_u64(p, "enav_source_events_total", l, 3,
						 atomic_load(&s->events[t]));
		}
	}
	enav_promtext_family(p, "enav_source_decode_errors_total", "counter",
			     "Raw events rejected by the decoder, by reason.");
	for (int i = 0; i < MAX_SOURCES; i++) {
		struct enav_bpf_source *s = registry[i];
		for (int r = 1; s && r < ENAV_DECODE__COUNT; r++) {
			const char *l[] = {"source", s->name, "reason", enav_decode_status_name(r)};
			enav_promtext_sample_u64(p, "enav_source_decode_errors_total", l, 2,
						 atomic_load(&s->decode_errors[r]));
		}
	}
	enav_promtext_family(p, "enav_kernel_events_total", "counter",
			     "Kernel-side per-CPU counters summed, by source, transport and "
			     "category (transport_full = lost because the buffer was full).");
	for (int i = 0; i < MAX_SOURCES; i++) {
		struct enav_bpf_source *s = registry[i];
		if (!s)
			continue;
		uint64_t sums[ENAV_KC__COUNT];
		enav_bpf_percpu_sums(s->counters_fd, ENAV_KC__COUNT, sums);
		for (__u32 k = 0; k < ENAV_KC__COUNT; k++) {
			const char *l[] = {"source",	s->name,
					   "transport", enav_transport_name(s->transport.kind),
					   "category",	kernel_counter_names[k]};
			enav_promtext_sample_u64(p, "enav_kernel_events_total", l, 3, sums[k]);
		}
	}
	enav_promtext_family(p, "enav_transport_lost_samples_total", "counter",
			     "Samples the perf buffer reported lost (always 0 for ringbuf, whose "
			     "losses are counted in the kernel as transport_full).");
	for (int i = 0; i < MAX_SOURCES; i++) {
		struct enav_bpf_source *s = registry[i];
		if (!s)
			continue;
		const char *l[] = {"source", s->name, "transport",
				   enav_transport_name(s->transport.kind)};
		enav_promtext_sample_u64(p, "enav_transport_lost_samples_total", l, 2,
					 atomic_load(&s->transport.lost));
	}
	pthread_mutex_unlock(&registry_lock);
	enav_features_render(p);
}
