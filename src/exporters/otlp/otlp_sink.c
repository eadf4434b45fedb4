/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The OTLP sink: four isolated workers (src/exporters/otlp/otlp_worker.h), one
 * per signal.
 *   metrics   every otlp.metrics_interval_ms, the agent's whole /metrics
 *             exposition as OTLP metrics (src/exporters/otlp/prom_to_otlp.h);
 *   traces    one span per application operation and per TCP connection
 *             that closed or failed (src/exporters/otlp/otlp_spans.h);
 *   logs      one record per field warning a signal carries;
 *   profiles  every interval the profiler closes (profiling.interval_ms,
 *             the spool's and Pyroscope's cadence too), the node's
 *             CPU/off-CPU/futex profiles, through the symbol filter.
 * submit() only takes a reference and queues it: encoding and network I/O
 * happen on each worker's thread.
 */
#include "exporters/otlp/otlp_sink.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "platform/clock.h"
#include "platform/log.h"
#include "platform/promtext.h"
#include "discovery/k8s.h"
#include "exporters/otlp/otlp_encode.h"
#include "exporters/otlp/otlp_env.h"
#include "exporters/otlp/otlp_spans.h"
#include "exporters/otlp/otlp_worker.h"
#include "exporters/otlp/prom_to_otlp.h"
#include "model/pprof.h"
#include "runtime/host.h"
#include "runtime/profiles.h"

enum { W_METRICS, W_TRACES, W_LOGS, W_PROFILES, W__N };
static const char *const signal_names[W__N] = {"metrics", "traces", "logs", "profiles"};
static const char *const signal_paths[W__N] = {"/v1/metrics", "/v1/traces", "/v1/logs",
					       "/v1development/profiles"};

/* One metrics snapshot, built from the modules' own calls (no text).  The
 * queued ones share a byte budget, as profiles do. */
#define METRICS_QUEUED_MAX_BYTES (32u << 20)
struct metrics_item {
	struct enav_prom_snapshot *snap;
	size_t bytes;		  /* its share of *queued */
	_Atomic uint64_t *queued; /* the sink's queued_metric_bytes */
	uint64_t time_unix_ns;
};

/* One profile as pprof's tables, straight from the store (not encoded).
 * Tables take several times the room of the gzip'd pprof they replace, so
 * besides the worker's item cap the queued ones share a byte budget: past
 * it a new profile is refused and counted (a receiver that fails for
 * minutes would otherwise hold queue_capacity of them). */
#define PROFILES_QUEUED_MAX_BYTES (8u << 20)
struct profile_item {
	struct enav_pprof_decoded tables;
	size_t bytes;		  /* its share of *queued */
	_Atomic uint64_t *queued; /* the sink's queued_profile_bytes */
};

struct otlp_sink {
	struct enav_host *host;
	struct enav_otlp_worker *w[W__N];
	struct enav_otlp_span_encoder *spans; /* the traces worker's */
	char url[W__N][512];
	char headers[ENAV_OTLP_MAX_HEADERS][ENAV_CONFIG_ENTRY_MAX];
	size_t n_headers;
	/* The node's resource: host.name, service.name, OTEL_RESOURCE_ATTRIBUTES. */
	struct enav_otlp_res_set res;
	size_t env_skipped; /* pairs of an environment list the callbacks refused */
	uint64_t start_unix_ns;
	pthread_t ticker;
	bool ticker_started;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	bool stop;
	bool consuming_profiles;
	_Atomic uint64_t metric_render_failures, profile_build_failures;
	_Atomic uint64_t metric_families_dropped;
	_Atomic uint64_t queued_profile_bytes, profiles_over_budget;
	_Atomic uint64_t queued_metric_bytes, metric_snapshots_over_budget;
	_Atomic uint64_t metric_points_dropped;
};

/* OTEL_RESOURCE_ATTRIBUTES and OTEL_EXPORTER_OTLP_HEADERS pairs
 * (src/exporters/otlp/otlp_env.h parses them). */
static void res_pair(void *ctx, const char *k, const char *v)
{
	struct otlp_sink *o = ctx;
	/* A key already named is not an error: the first word wins. */
	bool named = false;
	for (size_t i = 0; i < o->res.n && !named; i++)
		named = !strcmp(o->res.kv[i].key, k);
	if (!enav_otlp_res_add(&o->res, k, v) && !named)
		o->env_skipped++;
}

static void header_pair(void *ctx, const char *k, const char *v)
{
	struct otlp_sink *o = ctx;
	if (o->n_headers < ENAV_OTLP_MAX_HEADERS &&
	    enav_otlp_header_line(k, v, o->headers[o->n_headers], ENAV_CONFIG_ENTRY_MAX))
		o->n_headers++;
	else
		o->env_skipped++;
}

/* ---- encoders (worker threads) ---------------------------------------------------- */

static int encode_metrics(void *ctx, void *const *items, size_t n, struct enav_pb_writer *w)
{
	struct otlp_sink *o = ctx;
	struct enav_otlp_resource r = {o->res.kv, o->res.n};
	struct enav_otlp_scope scope = {ENAV_OTLP_SCOPE_NAME, ENAV_VERSION};
	for (size_t i = 0; i < n; i++) {
		const struct metrics_item *m = items[i];
		/* Requests concatenate: repeated resource_metrics append. */
		uint64_t left_out = 0;
		int rc = enav_prom_encode_otlp(w, m->snap, &r, scope, o->start_unix_ns,
					       m->time_unix_ns, &left_out);
		if (left_out)
			atomic_fetch_add(&o->metric_families_dropped, left_out);
		if (rc)
			return rc;
	}
	return 0;
}

static void free_metrics_item(void *p)
{
	struct metrics_item *m = p;
	if (m->queued)
		atomic_fetch_sub(m->queued, m->bytes);
	enav_prom_snapshot_free(m->snap);
	free(m);
}

static int encode_traces(void *ctx, void *const *items, size_t n, struct enav_pb_writer *w)
{
	struct otlp_sink *o = ctx;
	return enav_otlp_span_encoder_run(o->spans, w, items, n);
}

/* parts[0..n) one after the other into out, cut at cap - 1 bytes as
 * snprintf would. */
static void concat(char *out, size_t cap, const char *const *parts, size_t n)
{
	size_t len = 0;
	for (size_t i = 0; i < n; i++)
		for (const char *p = parts[i]; *p && len + 1 < cap; p++)
			out[len++] = *p;
	out[len] = '\0';
}

static int encode_logs(void *ctx, void *const *items, size_t n, struct enav_pb_writer *w)
{
	struct otlp_sink *o = ctx;
	for (size_t i = 0; i < n; i++) {
		const struct enav_signal *s = items[i];
		struct enav_otlp_workload_res wr;
		size_t nr = enav_otlp_workload_resource(o->res.kv, o->res.n, s, &wr);
		struct enav_otlp_log logs[ENAV_SIGNAL_MAX_WARNINGS + 1];
		struct enav_otlp_kv attrs[ENAV_SIGNAL_MAX_WARNINGS][3];
		char bodies[ENAV_SIGNAL_MAX_WARNINGS][160];
		size_t nl = 0;
		struct enav_otlp_kv fattrs[7];
		if (s->kind == ENAV_SIGNAL_FINDING) {
			const struct enav_finding_signal *f = &s->finding;
			fattrs[0] = (struct enav_otlp_kv){
			    .key = "enav.finding.rule", .type = ENAV_OTLP_STR, .s = f->rule};
			fattrs[1] = (struct enav_otlp_kv){.key = "enav.finding.severity",
							  .type = ENAV_OTLP_STR,
							  .s = f->severity};
			fattrs[2] =
			    (struct enav_otlp_kv){.key = "enav.finding.evidence_kind",
						  .type = ENAV_OTLP_STR,
						  .s = enav_signal_kind_name(f->evidence_kind)};
			size_t nfa = 3;
			if (f->related_pid)
				fattrs[nfa++] =
				    (struct enav_otlp_kv){.key = "enav.finding.related_pid",
							  .type = ENAV_OTLP_INT,
							  .i = f->related_pid};
			if (f->related_port)
				fattrs[nfa++] =
				    (struct enav_otlp_kv){.key = "enav.finding.related_port",
							  .type = ENAV_OTLP_INT,
							  .i = f->related_port};
			if (f->evidence_kind == ENAV_SIGNAL_FILE_OPEN && s->file.has_path)
				fattrs[nfa++] = (struct enav_otlp_kv){.key = "enav.file.path",
								      .type = ENAV_OTLP_STR,
								      .s = s->file.path};
			if (f->evidence_kind == ENAV_SIGNAL_BPF_ACCESS && s->bpf.operation)
				fattrs[nfa++] = (struct enav_otlp_kv){.key = "enav.bpf.operation",
								      .type = ENAV_OTLP_STR,
								      .s = s->bpf.operation};
			/* OTLP severity numbers: WARN 13, ERROR 17, FATAL 21. */
			bool critical = !strcmp(f->severity, "critical");
			bool high = !strcmp(f->severity, "high");
			logs[nl++] =
			    (struct enav_otlp_log){.time_unix_ns = s->time_unix_ns,
						   .observed_unix_ns = enav_clock_unix_ns(),
						   .severity_number = critical ? 21
								      : high   ? 17
									       : 13,
						   .severity_text = critical ? "FATAL"
								    : high   ? "ERROR"
									     : "WARN",
						   .body = f->summary,
						   .attrs = fattrs,
						   .n_attrs = nfa,
						   .event_name = "enav.security.finding"};
		}
		for (uint32_t k = 0; k < s->n_warnings && k < ENAV_SIGNAL_MAX_WARNINGS; k++) {
			const struct enav_field_warning *fw = &s->warnings[k];
			const char *parts[] = {enav_signal_kind_name(s->kind), ": ", fw->field,
					       " is absent: ", fw->reason};
			concat(bodies[k], sizeof(bodies[k]), parts, 5);
			attrs[k][0] = (struct enav_otlp_kv){.key = "enav.signal.kind",
							    .type = ENAV_OTLP_STR,
							    .s = enav_signal_kind_name(s->kind)};
			attrs[k][1] = (struct enav_otlp_kv){
			    .key = "enav.warning.field", .type = ENAV_OTLP_STR, .s = fw->field};
			attrs[k][2] = (struct enav_otlp_kv){
			    .key = "enav.warning.reason", .type = ENAV_OTLP_STR, .s = fw->reason};
			logs[nl] = (struct enav_otlp_log){.time_unix_ns = s->time_unix_ns,
							  .observed_unix_ns = enav_clock_unix_ns(),
							  .severity_number = 13, /* WARN */
							  .severity_text = "WARN",
							  .body = bodies[k],
							  .attrs = attrs[k],
							  .n_attrs = 3,
							  .event_name = "enav.warning"};
			nl++;
		}
		struct enav_otlp_resource_logs rl = {.resource = {wr.kv, nr},
						     .scope = {ENAV_OTLP_SCOPE_NAME, ENAV_VERSION},
						     .logs = logs,
						     .n_logs = nl};
		int rc = enav_otlp_encode_logs(w, &rl, 1);
		if (rc)
			return rc;
	}
	return 0;
}

static void free_signal(void *p)
{
	enav_signal_unref(p);
}

static int encode_profiles(void *ctx, void *const *items, size_t n, struct enav_pb_writer *w)
{
	struct otlp_sink *o = ctx;
	struct enav_otlp_profile_in in[n ? n : 1];
	for (size_t i = 0; i < n; i++) {
		const struct profile_item *p = items[i];
		in[i] = (struct enav_otlp_profile_in){.resource = {o->res.kv, o->res.n},
						      .tables = &p->tables};
	}
	char err[160];
	return enav_otlp_encode_profiles(
	    w, (struct enav_otlp_scope){ENAV_OTLP_SCOPE_NAME, ENAV_VERSION}, in, n, err,
	    sizeof(err));
}

static void free_profile_item(void *p)
{
	struct profile_item *pi = p;
	if (pi->queued)
		atomic_fetch_sub(pi->queued, pi->bytes);
	enav_pprof_decoded_free(&pi->tables);
	free(pi);
}

/* ---- interval work (ticker thread) ------------------------------------------------ */

static void push_metrics(struct otlp_sink *o)
{
	/* The modules' calls straight into a snapshot, as /metrics gets them
	 * as text: bounded by the snapshot's family, point and byte caps (the
	 * byte cap is the queue's budget, so one snapshot never passes it;
	 * what passes a cap is counted). */
	struct enav_promtext p;
	struct metrics_item *m = calloc(1, sizeof(*m));
	if (!m || !(m->snap = enav_prom_snapshot_new(METRICS_QUEUED_MAX_BYTES)))
		goto fail;
	enav_promtext_init_sink(&p, &enav_prom_snapshot_sink, m->snap);
	if (!enav_host_render_metrics(o->host, &p))
		goto fail;
	uint64_t malformed = 0, over_cap = 0;
	enav_prom_snapshot_counts(m->snap, &malformed, &over_cap);
	if (malformed + over_cap)
		atomic_fetch_add(&o->metric_points_dropped, malformed + over_cap);
	m->time_unix_ns = enav_clock_unix_ns();
	m->bytes = enav_prom_snapshot_bytes(m->snap);
	uint64_t queued = atomic_load(&o->queued_metric_bytes);
	/* One snapshot is always let in, however large. */
	if (queued && queued + m->bytes > METRICS_QUEUED_MAX_BYTES) {
		atomic_fetch_add(&o->metric_snapshots_over_budget, 1);
		free_metrics_item(m);
		return;
	}
	atomic_fetch_add(&o->queued_metric_bytes, m->bytes);
	m->queued = &o->queued_metric_bytes;
	enav_otlp_worker_submit(o->w[W_METRICS], m); /* counts its own drop */
	return;
fail:
	atomic_fetch_add(&o->metric_render_failures, 1);
	if (m)
		enav_prom_snapshot_free(m->snap);
	free(m);
}

/* The heap a profile's tables hold, near enough for a budget. */
static size_t tables_bytes(const struct enav_pprof_decoded *t)
{
	size_t n = t->n_strings * sizeof(char *) + t->n_sample_types * sizeof(*t->sample_types) +
		   t->n_samples * sizeof(*t->samples) + t->n_locations * sizeof(*t->locations) +
		   t->n_functions * sizeof(*t->functions) + t->n_mappings * sizeof(*t->mappings) +
		   t->n_lines * sizeof(*t->lines);
	for (size_t i = 0; i < t->n_strings; i++)
		n += strlen(t->strings[i]) + 1;
	for (size_t i = 0; i < t->n_samples; i++)
		n += t->samples[i].n_locations * sizeof(uint64_t) +
		     t->samples[i].n_values * sizeof(int64_t) +
		     t->samples[i].n_labels * sizeof(*t->samples[i].labels);
	return n;
}

/*
 * The profiles signal is a profile consumer like the spool and Pyroscope: it
 * gets the intervals the profiler closes (profiling.interval_ms, one cadence
 * for every profile export), on the profile export thread, and builds each
 * kind's tables from the store for exactly that window.  Queued, never sent
 * here.
 */
static void otlp_on_interval(void *ctx, struct enav_profile_store *s,
			     const struct enav_profile_service *svc,
			     const struct enav_profile_interval *iv)
{
	struct otlp_sink *o = ctx;
	for (int k = 0; k < ENAV_PROFILE__COUNT; k++) {
		if (!(iv->kinds & (1u << k)))
			continue;
		struct enav_profile_query q = {.kind = (enum enav_profile_kind)k,
					       .from_mono_ns = iv->from_mono_ns,
					       .to_mono_ns = iv->to_mono_ns,
					       .format = ENAV_PROFILE_FORMAT_PPROF,
					       .redact = true /* leaves the node */};
		struct profile_item *pi = calloc(1, sizeof(*pi));
		if (!pi || svc->build_tables(s, &q, &pi->tables) != 0) {
			atomic_fetch_add(&o->profile_build_failures, 1);
			free(pi);
			continue;
		}
		if (q.matched == 0) {
			free_profile_item(pi);
			continue;
		}
		pi->bytes = tables_bytes(&pi->tables);
		uint64_t queued = atomic_load(&o->queued_profile_bytes);
		/* One profile is always let in, however large, so none is
		 * refused for its size alone. */
		if (queued && queued + pi->bytes > PROFILES_QUEUED_MAX_BYTES) {
			atomic_fetch_add(&o->profiles_over_budget, 1);
			free_profile_item(pi);
			continue;
		}
		atomic_fetch_add(&o->queued_profile_bytes, pi->bytes);
		pi->queued = &o->queued_profile_bytes;
		enav_otlp_worker_submit(o->w[W_PROFILES], pi); /* frees it when refused */
	}
}

static void *ticker(void *arg)
{
	struct otlp_sink *o = arg;
	uint64_t every = (uint64_t)enav_host_config(o->host)->otlp.metrics_interval_ms * 1000000ull;
	uint64_t next = enav_clock_mono_ns() + every;
	pthread_mutex_lock(&o->lock);
	while (!o->stop) {
		uint64_t now = enav_clock_mono_ns();
		if (now >= next) {
			pthread_mutex_unlock(&o->lock);
			push_metrics(o);
			pthread_mutex_lock(&o->lock);
			next = now + every;
			continue;
		}
		struct timespec ts = enav_clock_deadline(CLOCK_REALTIME, 100000000ull);
		pthread_cond_timedwait(&o->cv, &o->lock, &ts);
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

/* ---- module ---------------------------------------------------------------------- */

/* The URL of one signal (src/exporters/otlp/otlp_env.h has the order).  "" = off;
 * false when it does not fit. */
static bool signal_url(const struct enav_config *cfg, int sig, char *out, size_t cap)
{
	static const char *const env_names[W__N] = {
	    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
	    "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "OTEL_EXPORTER_OTLP_PROFILES_ENDPOINT"};
	const char *per[W__N] = {cfg->otlp.metrics.endpoint, cfg->otlp.traces.endpoint,
				 cfg->otlp.logs.endpoint, cfg->otlp.profiles.endpoint};
	return enav_otlp_signal_url(per[sig], cfg->otlp.endpoint, getenv(env_names[sig]),
				    getenv("OTEL_EXPORTER_OTLP_ENDPOINT"), signal_paths[sig], out,
				    cap);
}

bool enav_otlp_sink_enabled(const struct enav_config *cfg)
{
	for (int i = 0; i < W__N; i++) {
		char url[512];
		/* One that does not fit is on too: start says why it cannot run. */
		if (!signal_url(cfg, i, url, sizeof(url)) || url[0])
			return true;
	}
	return false;
}

static int load_headers_file(struct otlp_sink *o, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "exporters.otlp.headers_file: cannot read %s: %s", path,
			 strerror(errno));
		return -errno;
	}
	char line[ENAV_CONFIG_ENTRY_MAX];
	while (fgets(line, sizeof(line), f) && o->n_headers < ENAV_OTLP_MAX_HEADERS) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] && line[0] != '#' && strchr(line, ':'))
			snprintf(o->headers[o->n_headers++], ENAV_CONFIG_ENTRY_MAX, "%s", line);
	}
	fclose(f);
	return 0;
}

static int otlp_init(struct enav_host *a, void **state, char *err, size_t errlen)
{
	struct otlp_sink *o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	*state = o;
	o->host = a;
	o->start_unix_ns =
	    enav_host_start_unix_ns(a) ? enav_host_start_unix_ns(a) : enav_clock_unix_ns();
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->cv, NULL);
	const struct enav_config *cfg = enav_host_config(a);
	/* Resource: OTEL_SERVICE_NAME, then OTEL_RESOURCE_ATTRIBUTES, then ours. */
	const char *service = getenv("OTEL_SERVICE_NAME");
	if (service && service[0] && !enav_otlp_res_add(&o->res, "service.name", service))
		enav_warn("otlp: OTEL_SERVICE_NAME is not UTF-8 or longer than %d bytes: ignored",
			  ENAV_OTLP_RES_TEXT - 1);
	/* Items the parser refuses, plus pairs the set refuses (res_pair). */
	o->env_skipped = 0;
	size_t skipped = enav_otlp_each_pair(getenv("OTEL_RESOURCE_ATTRIBUTES"), res_pair, o);
	if (skipped + o->env_skipped)
		enav_warn("otlp: %zu item(s) of OTEL_RESOURCE_ATTRIBUTES left out (not key=value, "
			  "a bad escape, too long, not UTF-8 or more than %d attributes)",
			  skipped + o->env_skipped, ENAV_OTLP_RES_MAX);
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	enav_otlp_res_add(&o->res, "service.name", "e-navigator");
	enav_otlp_res_add(&o->res, "service.version", ENAV_VERSION);
	enav_otlp_res_add(&o->res, "host.name", host);
	/* Headers: the file's list and headers_file; the environment's only when
	 * the file names none.  Values are never logged. */
	for (uint32_t i = 0; i < cfg->otlp.headers.n && o->n_headers < ENAV_OTLP_MAX_HEADERS; i++)
		snprintf(o->headers[o->n_headers++], ENAV_CONFIG_ENTRY_MAX, "%s",
			 cfg->otlp.headers.item[i]);
	if (cfg->otlp.headers_file[0] &&
	    load_headers_file(o, cfg->otlp.headers_file, err, errlen) != 0)
		return -EINVAL;
	if (o->n_headers == 0) {
		o->env_skipped = 0;
		skipped = enav_otlp_each_pair(getenv("OTEL_EXPORTER_OTLP_HEADERS"), header_pair, o);
		if (skipped + o->env_skipped) /* never the values: they are credentials */
			enav_warn("otlp: %zu item(s) of OTEL_EXPORTER_OTLP_HEADERS left out (not "
				  "Name=value, a bad escape, a control character, too long or "
				  "more than %d)",
				  skipped + o->env_skipped, ENAV_OTLP_MAX_HEADERS);
	}
	uint32_t timeout = cfg->otlp.timeout_ms;
	const char *env_timeout = getenv("OTEL_EXPORTER_OTLP_TIMEOUT");
	if (timeout == 10000 && env_timeout && env_timeout[0] &&
	    !enav_otlp_env_timeout_ms(env_timeout, &timeout))
		enav_warn("otlp: OTEL_EXPORTER_OTLP_TIMEOUT is not milliseconds in %d..%d: ignored",
			  ENAV_OTLP_ENV_TIMEOUT_MIN_MS, ENAV_OTLP_ENV_TIMEOUT_MAX_MS);
	const struct enav_otlp_signal_config *sc[W__N] = {&cfg->otlp.metrics, &cfg->otlp.traces,
							  &cfg->otlp.logs, &cfg->otlp.profiles};
	const bool on[W__N] = {sc[0]->enabled, sc[1]->enabled, sc[2]->enabled,
			       sc[3]->enabled && cfg->profiling.enabled};
	const enav_otlp_encode_fn enc[W__N] = {encode_metrics, encode_traces, encode_logs,
					       encode_profiles};
	const enav_otlp_free_fn fr[W__N] = {free_metrics_item, free_signal, free_signal,
					    free_profile_item};
	for (int i = 0; i < W__N; i++) {
		if (!signal_url(cfg, i, o->url[i], sizeof(o->url[i])) && on[i]) {
			snprintf(err, errlen, "otlp: the %s endpoint is longer than %zu bytes",
				 signal_names[i], sizeof(o->url[i]) - 1);
			return -EINVAL;
		}
		if (!on[i] || !o->url[i][0])
			continue;
		if (i == W_TRACES &&
		    !(o->spans = enav_otlp_span_encoder_new(o->res.kv, o->res.n))) {
			snprintf(err, errlen, "otlp: out of memory");
			return -ENOMEM;
		}
		/* A signal's own setting wins over the shared one. */
		const struct enav_otlp_signal_config *c = sc[i];
		bool snapshot = i == W_METRICS || i == W_PROFILES;
		enum enav_otlp_compression comp = c->compression == ENAV_OTLP_COMPRESSION_INHERIT
						      ? cfg->otlp.compression
						      : c->compression;
		const char *ca = c->ca_file[0] ? c->ca_file : cfg->otlp.ca_file;
		const char *cert = c->cert_file[0] ? c->cert_file : cfg->otlp.cert_file;
		const char *key = c->key_file[0] ? c->key_file : cfg->otlp.key_file;
		struct enav_otlp_worker_config wc = {
		    .signal = signal_names[i],
		    .url = o->url[i],
		    .timeout_ms = c->timeout_ms ? c->timeout_ms : timeout,
		    .queue_capacity = c->queue_capacity ? c->queue_capacity
				      : snapshot	? 16
							: cfg->otlp.queue_capacity,
		    .batch_max_items = c->batch_max_items ? c->batch_max_items
				       : snapshot	  ? 1
							  : cfg->otlp.batch_max_items,
		    .batch_max_delay_ms = cfg->otlp.batch_max_delay_ms,
		    .gzip = comp == ENAV_OTLP_COMPRESSION_GZIP,
		    .backoff_initial_ms = cfg->otlp.backoff_initial_ms,
		    .backoff_max_ms = cfg->otlp.backoff_max_ms,
		    .max_elapsed_ms = cfg->otlp.max_elapsed_ms,
		    .breaker_failures = cfg->otlp.breaker_failures,
		    .breaker_cooldown_ms = cfg->otlp.breaker_cooldown_ms,
		    .ca_file = ca[0] ? ca : NULL,
		    .cert_file = cert[0] ? cert : NULL,
		    .key_file = key[0] ? key : NULL,
		};
		for (size_t h = 0; h < o->n_headers; h++)
			wc.headers[wc.n_headers++] = o->headers[h];
		for (uint32_t h = 0; h < c->headers.n && wc.n_headers < ENAV_OTLP_MAX_HEADERS; h++)
			wc.headers[wc.n_headers++] = c->headers.item[h];
		o->w[i] = enav_otlp_worker_start(&wc, enc[i], fr[i], o, err, errlen);
		if (!o->w[i])
			return -EINVAL;
		enav_info("otlp: %s to %s", signal_names[i], o->url[i]);
	}
	if (o->w[W_PROFILES]) {
		struct enav_profile_consumer c = {.interval = otlp_on_interval, .ctx = o};
		int rc = enav_host_consume_profiles(a, &c, err, errlen);
		if (rc != 0)
			return rc;
		o->consuming_profiles = true;
	}
	if (o->w[W_METRICS]) {
		if (pthread_create(&o->ticker, NULL, ticker, o) != 0) {
			snprintf(err, errlen, "otlp: cannot start the interval thread");
			return -EAGAIN;
		}
		o->ticker_started = true;
	}
	return 0;
}

static void otlp_submit(void *state, struct enav_signal *s)
{
	struct otlp_sink *o = state;
	if (o->w[W_TRACES] && (s->kind == ENAV_SIGNAL_TCP_CLOSE ||
			       s->kind == ENAV_SIGNAL_TCP_FAILED || s->kind == ENAV_SIGNAL_SPAN)) {
		enav_signal_ref(s);
		enav_otlp_worker_submit(o->w[W_TRACES], s);
	}
	if (o->w[W_LOGS] && (s->n_warnings || s->kind == ENAV_SIGNAL_FINDING)) {
		enav_signal_ref(s);
		enav_otlp_worker_submit(o->w[W_LOGS], s);
	}
}

static void otlp_fini(void *state, uint64_t deadline_mono_ns)
{
	struct otlp_sink *o = state;
	if (!o)
		return;
	if (o->consuming_profiles)
		enav_host_unconsume_profiles(o->host, o);
	if (o->ticker_started) {
		pthread_mutex_lock(&o->lock);
		o->stop = true;
		pthread_cond_signal(&o->cv);
		pthread_mutex_unlock(&o->lock);
		pthread_join(o->ticker, NULL);
	}
	/* Each worker flushes until the same deadline; none waits on another. */
	for (int i = 0; i < W__N; i++)
		if (o->w[i])
			enav_otlp_worker_stop(o->w[i], deadline_mono_ns);
	enav_otlp_span_encoder_free(o->spans);
	pthread_mutex_destroy(&o->lock);
	pthread_cond_destroy(&o->cv);
	free(o);
}

static void otlp_metrics(void *state, struct enav_promtext *p)
{
	struct otlp_sink *o = state;
	struct enav_otlp_worker *ws[W__N];
	size_t n = 0;
	for (int i = 0; i < W__N; i++)
		if (o->w[i])
			ws[n++] = o->w[i];
	enav_otlp_worker_metrics(ws, n, p);
	const struct {
		const char *name, *help;
		const _Atomic uint64_t *value;
	} counters[] = {
	    {"enav_otlp_metric_snapshot_failures_total",
	     "Metric snapshots not taken (agent stopping or out of memory).",
	     &o->metric_render_failures},
	    {"enav_otlp_metric_families_dropped_total",
	     "Metric families left out of a request at its size limit.",
	     &o->metric_families_dropped},
	    {"enav_otlp_metric_points_dropped_total",
	     "Metric samples left out of a snapshot: past its caps (2048 families, 65536 "
	     "points, 32 MiB) or a name, label or value past its length cap.",
	     &o->metric_points_dropped},
	    {"enav_otlp_metric_snapshots_over_budget_total",
	     "Metric snapshots not queued for export: the queued ones already held their byte "
	     "budget (32 MiB).",
	     &o->metric_snapshots_over_budget},
	    {"enav_otlp_profile_build_failures_total",
	     "Profiles that could not be built for export.", &o->profile_build_failures},
	    {"enav_otlp_profiles_over_budget_total",
	     "Profiles not queued for export: the queued ones already held their byte budget "
	     "(8 MiB).",
	     &o->profiles_over_budget},
	};
	for (size_t i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		enav_promtext_single_u64(p, counters[i].name, "counter", counters[i].help,
					 atomic_load(counters[i].value));
}

const struct enav_sink_ops enav_otlp_sink_ops = {
    .init = otlp_init,
    .submit = otlp_submit,
    .fini = otlp_fini,
    .metrics = otlp_metrics,
};
