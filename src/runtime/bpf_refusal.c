/* SPDX-License-Identifier: Apache-2.0 */
#include "runtime/bpf_refusal.h"

#include <bpf/libbpf.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "platform/log.h"
#include "platform/promtext.h"

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t m = strlen(prefix);
	return n >= m && memcmp(s, prefix, m) == 0;
}

/* Copy n bytes of s into a dst of size cap, cut to fit, NUL-terminated. */
static void copy_cut(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* libbpf names a program as "prog 'NAME': ..." in every message about it. */
static size_t program_of(const char *line, size_t len, const char **name)
{
	if (!starts_with(line, len, "prog '"))
		return 0;
	const char *start = line + 6;
	const char *end = memchr(start, '\'', len - 6);
	if (!end || end == start || end + 2 > line + len || end[1] != ':')
		return 0;
	*name = start;
	return (size_t)(end - start);
}

void enav_bpf_refusal_feed(struct enav_bpf_refusal *r, const char *line, size_t len)
{
	if (starts_with(line, len, "libbpf: ")) {
		line += 8;
		len -= 8;
	}
	if (r->in_log) {
		/* libbpf prints the log as "...\n-- END PROG LOAD LOG --". */
		if (starts_with(line, len, "-- END PROG LOAD LOG --")) {
			r->in_log = false;
			return;
		}
		/* The verifier's statistics come after its reason. */
		if (len == 0 || starts_with(line, len, "processed ") ||
		    starts_with(line, len, "verification time"))
			return;
		copy_cut(r->lines[r->n_lines % ENAV_REFUSAL_LINES], ENAV_REFUSAL_LINE_MAX, line,
			 len);
		r->n_lines++;
		return;
	}
	const char *name;
	size_t n = program_of(line, len, &name);
	if (n == 0)
		return;
	const char *rest = name + n + 2;
	size_t rest_len = len - (size_t)(rest - line);
	while (rest_len > 0 && *rest == ' ') {
		rest++;
		rest_len--;
	}
	if (r->program[0] && (strlen(r->program) != n || memcmp(r->program, name, n) != 0))
		return; /* only the first program that failed */
	if (!r->program[0])
		copy_cut(r->program, sizeof(r->program), name, n);
	if (starts_with(rest, rest_len, "-- BEGIN PROG LOAD LOG --")) {
		r->in_log = true;
		r->n_lines = 0;
		return;
	}
	if (!r->failure[0])
		copy_cut(r->failure, sizeof(r->failure), rest, rest_len);
}

void enav_bpf_refusal_detail(const struct enav_bpf_refusal *r, char *out, size_t outlen)
{
	size_t used = 0;
	int w = snprintf(out, outlen, "%s", r->failure[0] ? r->failure : "refused");
	used = w > 0 ? (size_t)w : 0;
	unsigned kept = r->n_lines < ENAV_REFUSAL_LINES ? r->n_lines : ENAV_REFUSAL_LINES;
	for (unsigned i = 0; i < kept && used < outlen; i++) {
		const char *l = r->lines[(r->n_lines - kept + i) % ENAV_REFUSAL_LINES];
		w = snprintf(out + used, outlen - used, "%s%s", i == 0 ? ": " : " | ", l);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

/* The one capture in progress, if any. */
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;
static struct enav_bpf_refusal *capture;

static int libbpf_to_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&capture_lock);
	/* Failures are warnings; debug lines name every program as it loads. */
	bool capturing = capture != NULL && level == LIBBPF_WARN;
	pthread_mutex_unlock(&capture_lock);
	if (!capturing && enav_log_get_level() < ENAV_LOG_DEBUG)
		return 0;
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0 || !msg)
		return 0;
	/* One log line per line: the verifier's log is many. */
	for (const char *line = msg; *line;) {
		size_t len = strcspn(line, "\n");
		const char *shown = strncmp(line, "libbpf: ", 8) == 0 ? line + 8 : line;
		if (len > (size_t)(shown - line))
			enav_debug("libbpf: %.*s", (int)(len - (size_t)(shown - line)), shown);
		pthread_mutex_lock(&capture_lock);
		if (capture && capturing)
			enav_bpf_refusal_feed(capture, line, len);
		pthread_mutex_unlock(&capture_lock);
		line += len;
		if (*line == '\n')
			line++;
	}
	free(msg);
	return 0;
}

void enav_bpf_log_install(void)
{
	libbpf_set_print(libbpf_to_log);
}

void enav_bpf_refusal_begin(struct enav_bpf_refusal *r)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_lock(&capture_lock);
	capture = r;
	pthread_mutex_unlock(&capture_lock);
}

void enav_bpf_refusal_end(void)
{
	pthread_mutex_lock(&capture_lock);
	capture = NULL;
	pthread_mutex_unlock(&capture_lock);
}

/* ---- feature states ---------------------------------------------------- */

#define MAX_FEATURES 32

struct feature_entry {
	const char *source;
	const char *feature;
	enum enav_feature_state state;
	char program[ENAV_REFUSAL_PROG_MAX];
	char detail[ENAV_REFUSAL_DETAIL_MAX];
};

static pthread_mutex_t features_lock = PTHREAD_MUTEX_INITIALIZER;
static struct feature_entry features[MAX_FEATURES];
static size_t n_features;

static const char *const state_names[ENAV_FEATURE__COUNT] = {
    [ENAV_FEATURE_ON] = "on",
    [ENAV_FEATURE_CONFIGURED_OFF] = "configured_off",
    [ENAV_FEATURE_VERIFIER_REFUSED] = "verifier_refused",
    [ENAV_FEATURE_ATTACH_REFUSED] = "attach_refused",
    [ENAV_FEATURE_HOOK_MISSING] = "hook_missing",
};

const char *enav_feature_state_name(enum enav_feature_state s)
{
	return s < ENAV_FEATURE__COUNT ? state_names[s] : "unknown";
}

void enav_feature_record(const char *source, const char *feature, enum enav_feature_state state,
			 const char *program, const char *detail)
{
	pthread_mutex_lock(&features_lock);
	struct feature_entry *e = NULL;
	for (size_t i = 0; i < n_features && !e; i++)
		if (strcmp(features[i].source, source) == 0 &&
		    strcmp(features[i].feature, feature) == 0)
			e = &features[i];
	if (!e && n_features < MAX_FEATURES)
		e = &features[n_features++];
	if (!e) {
		pthread_mutex_unlock(&features_lock);
		enav_warn("%s: feature %s is %s, but the feature table is full", source, feature,
			  enav_feature_state_name(state));
		return;
	}
	e->source = source;
	e->feature = feature;
	e->state = state;
	snprintf(e->program, sizeof(e->program), "%s", program ? program : "");
	snprintf(e->detail, sizeof(e->detail), "%s", detail ? detail : "");
	pthread_mutex_unlock(&features_lock);
}

void enav_features_each(void (*fn)(void *ctx, const char *source, const char *feature,
				   enum enav_feature_state state, const char *program,
				   const char *detail),
			void *ctx)
{
	pthread_mutex_lock(&features_lock);
	for (size_t i = 0; i < n_features; i++)
		fn(ctx, features[i].source, features[i].feature, features[i].state,
		   features[i].program, features[i].detail);
	pthread_mutex_unlock(&features_lock);
}

bool enav_feature_refused(const char *source, const char *feature)
{
	bool refused = false;
	pthread_mutex_lock(&features_lock);
	for (size_t i = 0; i < n_features; i++)
		if (strcmp(features[i].source, source) == 0 &&
		    strcmp(features[i].feature, feature) == 0)
			refused = features[i].state == ENAV_FEATURE_VERIFIER_REFUSED ||
				  features[i].state == ENAV_FEATURE_ATTACH_REFUSED ||
				  features[i].state == ENAV_FEATURE_HOOK_MISSING;
	pthread_mutex_unlock(&features_lock);
	return refused;
}

static void render_one(void *ctx, const char *source, const char *feature,
		       enum enav_feature_state state, const char *program, const char *detail)
{
	(void)program;
	(void)detail;
	const char *l[] = {"source", source,  "feature",
			   feature,  "state", enav_feature_state_name(state)};
	enav_promtext_sample_u64(ctx, "enav_feature_enabled", l, 3, state == ENAV_FEATURE_ON);
}

void enav_features_render(struct enav_promtext *p)
{
	enav_promtext_family(p, "enav_feature_enabled", "gauge",
			     "1 when the feature of an eBPF source runs; 0 with the reason as "
			     "state: configured_off, verifier_refused or attach_refused (this "
			     "kernel refused one of its programs; the log names it), "
			     "hook_missing (this kernel lacks a hook it needs).");
	enav_features_each(render_one, p);
}

const char *enav_bpf_memlock_hint_for(int err, const char *kernel_release, bool memlock_finite)
{
	unsigned major = 0, minor = 0;

	if (err != EPERM || !memlock_finite || !kernel_release ||
	    sscanf(kernel_release, "%u.%u", &major, &minor) != 2 || major * 1000 + minor >= 5011)
		return "";
	return " (RLIMIT_MEMLOCK is finite: kernels before 5.11 charge BPF maps to it; "
	       "start with LimitMEMLOCK=infinity, as packaging/systemd/enav.service does, "
	       "or with CAP_SYS_RESOURCE)";
}

const char *enav_bpf_memlock_hint(int err)
{
	struct rlimit rl;
	struct utsname u;

	if (err != EPERM || getrlimit(RLIMIT_MEMLOCK, &rl) != 0 || uname(&u) != 0)
		return "";
	return enav_bpf_memlock_hint_for(err, u.release, rl.rlim_cur != RLIM_INFINITY);
}
