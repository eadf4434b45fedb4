/* SPDX-License-Identifier: Apache-2.0 */
#include "sources/exec_source.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/log.h"
#include "discovery/capture_filter.h"
#include "exec_perf.skel.h"
#include "exec_ringbuf.skel.h"
#include "sources/exec_decode.h"
#include "sources/transport.h"

/* The two skeletons come from one source, so their layouts match; this holds
 * what the rest of the file needs from either. */
struct exec_object {
	void *skel;
	struct bpf_object *obj;
	volatile __u32 *argv_max;
	volatile __u64 *wakeup_bytes;
	int (*load)(void *skel);
	void (*destroy)(void *skel);
};

struct exec_source {
	struct enav_agent *agent;
	struct exec_object o;
	struct bpf_link *links[2];
	struct enav_transport transport;
	int counters_fd;
	int ncpus;
	_Atomic uint64_t events[3];
	_Atomic uint64_t decode_errors[ENAV_DECODE__COUNT];
};

static int load_ringbuf(void *s)
{
	return exec_ringbuf__load(s);
}
static void destroy_ringbuf(void *s)
{
	exec_ringbuf__destroy(s);
}
static int load_perf(void *s)
{
	return exec_perf__load(s);
}
static void destroy_perf(void *s)
{
	exec_perf__destroy(s);
}

static int open_object(struct exec_object *o, enum enav_transport_choice t)
{
	if (t == ENAV_TRANSPORT_RINGBUF) {
		struct exec_ringbuf *s = exec_ringbuf__open();
		if (!s)
			return -errno;
		*o = (struct exec_object){s,
					  s->obj,
					  &s->rodata->enav_argv_max,
					  &s->rodata->enav_wakeup_bytes,
					  load_ringbuf,
					  destroy_ringbuf};
	} else {
		struct exec_perf *s = exec_perf__open();
		if (!s)
			return -errno;
		*o = (struct exec_object){s,
					  s->obj,
					  &s->rodata->enav_argv_max,
					  &s->rodata->enav_wakeup_bytes,
					  load_perf,
					  destroy_perf};
	}
	return 0;
}

static void exit_status(uint32_t status, struct enav_process_signal *p)
{
	p->has_exit = true;
	if (status & 0x7f) {
		p->exit_signal = (int32_t)(status & 0x7f);
		p->core_dumped = (status & 0x80) != 0;
	} else {
		p->exit_code = (int32_t)((status >> 8) & 0xff);
	}
}

static struct enav_signal *build_signal(const struct enav_decoded_event *ev)
{
	bool exec = ev->type == ENAV_EVENT_PROCESS_EXEC;
	struct enav_signal *s =
	    enav_signal_new(exec ? ENAV_SIGNAL_PROCESS_EXEC : ENAV_SIGNAL_PROCESS_EXIT,
			    exec ? ev->exec.argv_len : 0);
	if (!s)
		return NULL;
	struct enav_process_signal *p = &s->process;
	s->time_unix_ns = enav_clock_boot_to_unix_ns(ev->hdr.boot_time_ns);
	p->pid = ev->hdr.pid;
	p->tid = ev->hdr.tid;
	p->cgroup_id = ev->hdr.cgroup_id;
	if (exec) {
		p->ppid = ev->exec.ppid;
		p->uid = ev->exec.uid;
		p->gid = ev->exec.gid;
		p->has_creds = true;
		memcpy(p->comm, ev->exec.comm, sizeof(p->comm));
		p->start_boot_ns = ev->exec.start_boot_ns;
		p->start_time_unix_ns = enav_clock_boot_to_unix_ns(ev->exec.start_boot_ns);
		memcpy(p->filename, ev->exec.filename, ev->exec.filename_len + 1u);
		p->filename_truncated = ev->exec.flags & ENAV_EXEC_FILENAME_TRUNCATED;
		if (ev->exec.flags & ENAV_EXEC_FILENAME_FAULT)
			enav_signal_warn(s, "filename", "kernel_read_fault");
		else
			p->has_filename = true;
		if (ev->exec.exe_len > 0 && ev->exec.exe[0] == '/') {
			memcpy(p->exe, ev->exec.exe, ev->exec.exe_len + 1u);
			p->has_exe = true;
		} else {
			enav_signal_warn(s, "exe", "path_exceeds_kernel_walk_bounds");
		}
		if (ev->exec.flags & ENAV_EXEC_ARGV_FAULT) {
			enav_signal_warn(s, "argv", "user_memory_unreadable");
		} else {
			p->has_argv = true;
			p->argv_truncated = ev->exec.flags & ENAV_EXEC_ARGV_TRUNCATED;
			p->argv_len = ev->exec.argv_len;
			memcpy(s->argv, ev->exec.argv, ev->exec.argv_len);
		}
	} else {
		p->ppid = ev->exit.ppid;
		memcpy(p->comm, ev->exit.comm, sizeof(p->comm));
		p->start_boot_ns = ev->exit.start_boot_ns;
		p->start_time_unix_ns = enav_clock_boot_to_unix_ns(ev->exit.start_boot_ns);
		exit_status(ev->exit.exit_code, p);
		if (ev->hdr.boot_time_ns >= ev->exit.start_boot_ns)
			p->lifetime_ns = ev->hdr.boot_time_ns - ev->exit.start_boot_ns;
	}
	return s;
}

static void on_event(void *ctx, const void *data, size_t size)
{
	struct exec_source *src = ctx;
	struct enav_decoded_event ev;
	enum enav_decode_status st = enav_decode_event(data, size, &ev);
	if (st != ENAV_DECODE_OK) {
		atomic_fetch_add(&src->decode_errors[st], 1);
		return;
	}
	atomic_fetch_add(&src->events[ev.type], 1);
	struct enav_signal *s = build_signal(&ev);
	if (!s) {
		atomic_fetch_add(&src->agent->signals_alloc_failed, 1);
		return;
	}
	enav_agent_emit(src->agent, s);
}

static int consume(void *arg)
{
	struct exec_source *src = arg;
	return enav_transport_consume(&src->transport);
}

static void exec_stop(void *state)
{
	struct exec_source *src = state;
	if (!src)
		return;
	/* Detach first so nothing new arrives, then drain what is in flight. */
	for (size_t i = 0; i < 2; i++)
		bpf_link__destroy(src->links[i]);
	if (src->transport.rb || src->transport.pb)
		enav_transport_consume(&src->transport);
	enav_transport_close(&src->transport);
	if (src->o.skel)
		src->o.destroy(src->o.skel);
	free(src);
}

static int exec_start(struct enav_agent *a, void **state, char *err, size_t errlen)
{
	struct exec_source *src = calloc(1, sizeof(*src));
	if (!src)
		return -ENOMEM;
	src->agent = a;
	src->ncpus = libbpf_num_possible_cpus();
	*state = src;
	const struct enav_decisions *d = &a->decisions;

	int rc = open_object(&src->o, d->transport);
	if (rc) {
		snprintf(err, errlen, "exec: cannot open BPF object: %s", strerror(-rc));
		return rc;
	}
	*src->o.argv_max = a->cfg.exec.argv_max_bytes;
	*src->o.wakeup_bytes = a->cfg.kernel.wakeup_bytes;
	struct bpf_object *obj = src->o.obj;
	if (d->transport == ENAV_TRANSPORT_RINGBUF)
		bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_events"),
					 a->cfg.kernel.ring_buffer_bytes);
	if (a->filter) {
		/* Share discovery's filter maps: one verdict per cgroup for every hook. */
		rc = enav_capture_filter_reuse(a->filter, obj);
		if (rc) {
			snprintf(err, errlen, "exec: cannot share the capture filter maps: %s",
				 strerror(-rc));
			return rc;
		}
	} else {
		bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "enav_cgroup_verdicts"),
					 a->cfg.kernel.cgroup_verdict_entries);
	}

	/* Exactly one variant per hook loads: the one the probe proved. */
	bool btf = d->exec_hook == ENAV_EXEC_HOOK_TP_BTF;
	const char *progs[4] = {"enav_exec_btf", "enav_exit_btf", "enav_exec_raw", "enav_exit_raw"};
	for (int i = 0; i < 4; i++)
		bpf_program__set_autoload(bpf_object__find_program_by_name(obj, progs[i]),
					  (i < 2) == btf);

	rc = src->o.load(src->o.skel);
	if (rc) {
		snprintf(err, errlen, "exec: the kernel refused the %s programs: %s",
			 btf ? "tp_btf" : "raw_tp", strerror(errno ? errno : -rc));
		return rc;
	}
	for (int i = 0; i < 2; i++) {
		const char *name = progs[btf ? i : i + 2];
		src->links[i] = bpf_program__attach(bpf_object__find_program_by_name(obj, name));
		if (!src->links[i]) {
			rc = -errno;
			snprintf(err, errlen, "exec: cannot attach %s: %s", name, strerror(errno));
			return rc;
		}
	}
	src->counters_fd = bpf_map__fd(bpf_object__find_map_by_name(obj, "enav_counters"));
	rc = enav_transport_open(&src->transport, d->transport,
				 bpf_map__fd(bpf_object__find_map_by_name(obj, "enav_events")),
				 a->cfg.kernel.perf_buffer_pages, on_event, src);
	if (rc) {
		snprintf(err, errlen, "exec: cannot open %s consumer: %s",
			 enav_transport_name(d->transport), strerror(-rc));
		return rc;
	}
	rc = enav_agent_watch(a, enav_transport_epoll_fd(&src->transport), consume, src);
	if (rc) {
		snprintf(err, errlen, "exec: too many watched descriptors");
		return rc;
	}
	enav_info("exec source attached (%s, %s)", btf ? "tp_btf" : "raw_tp",
		  enav_transport_name(d->transport));
	return 0;
}

static const char *const kernel_counter_names[ENAV_KC__COUNT] = {
    [ENAV_KC_EMITTED] = "emitted",
    [ENAV_KC_TRANSPORT_FULL] = "transport_full",
    [ENAV_KC_FILTERED] = "filtered",
    [ENAV_KC_SCRATCH_MISSING] = "scratch_missing",
    [ENAV_KC_USER_READ_FAULT] = "user_read_fault",
    [ENAV_KC_MAP_FULL] = "map_full",
};

static void exec_metrics(void *state, struct enav_promtext *p)
{
	struct exec_source *src = state;
	const char *transport = enav_transport_name(src->transport.kind);
	char buf[64];

	enav_promtext_family(p, "enav_source_events_total", "counter",
			     "Raw events decoded by source and event type.");
	const char *types[3] = {NULL, "process_exec", "process_exit"};
	for (int t = 1; t < 3; t++) {
		const char *l[] = {"source", "exec", "event", types[t], "transport", transport};
		enav_promtext_sample_u64(p, "enav_source_events_total", l, 3,
					 atomic_load(&src->events[t]));
	}
	enav_promtext_family(p, "enav_source_decode_errors_total", "counter",
			     "Raw events rejected by the decoder, by reason.");
	for (int r = 1; r < ENAV_DECODE__COUNT; r++) {
		const char *l[] = {"source", "exec", "reason", enav_decode_status_name(r)};
		enav_promtext_sample_u64(p, "enav_source_decode_errors_total", l, 2,
					 atomic_load(&src->decode_errors[r]));
	}

	enav_promtext_family(p, "enav_kernel_events_total", "counter",
			     "Kernel-side per-CPU counters summed, by source, transport and "
			     "category (transport_full = lost because the buffer was full).");
	__u64 *vals = calloc(src->ncpus > 0 ? src->ncpus : 1, sizeof(__u64));
	for (__u32 k = 0; vals && k < ENAV_KC__COUNT; k++) {
		__u64 sum = 0;
		if (bpf_map_lookup_elem(src->counters_fd, &k, vals) == 0)
			for (int c = 0; c < src->ncpus; c++)
				sum += vals[c];
		const char *l[] = {"source",  "exec",	  "transport",
				   transport, "category", kernel_counter_names[k]};
		enav_promtext_sample_u64(p, "enav_kernel_events_total", l, 3, sum);
	}
	free(vals);

	enav_promtext_family(p, "enav_transport_lost_samples_total", "counter",
			     "Samples the perf buffer reported lost (always 0 for ringbuf, "
			     "whose losses are counted in the kernel as transport_full).");
	snprintf(buf, sizeof(buf), "%s", transport);
	const char *l[] = {"source", "exec", "transport", buf};
	enav_promtext_sample_u64(p, "enav_transport_lost_samples_total", l, 2,
				 atomic_load(&src->transport.lost));
}

bool enav_exec_source_enabled(const struct enav_config *cfg)
{
	return cfg->exec.enabled;
}

const struct enav_source_ops enav_exec_source_ops = {
    .start = exec_start,
    .stop = exec_stop,
    .metrics = exec_metrics,
};
