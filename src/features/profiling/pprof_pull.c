/* SPDX-License-Identifier: Apache-2.0 */
#include "features/profiling/pprof_pull.h"

#include <ctype.h>
#include <curl/curl.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform/clock.h"
#include "config/config.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "platform/promtext.h"
#include "golang/go_buildinfo.h"
#include "features/profiling/pprof_filter.h"
#include "runtime/profiles.h"

#define MAX_LISTEN	  4096	      /* listening sockets considered per round */
#define MAX_PIDS_SCANNED  65536	      /* processes looked at per round */
#define MAX_FDS_SCANNED	  4096	      /* descriptors looked at per process */
#define MAX_PROFILE_BYTES (64u << 20) /* a pulled profile larger than this is refused */
#define PROBE_TIMEOUT_MS  2000

struct target {
	char url[64]; /* http://127.0.0.1:6060 */
	uint32_t pid;
	char comm[16];
	bool has_bi;
	struct enav_go_buildinfo bi;
	uint64_t last_profiled; /* mono ns, 0 = never */
	uint64_t hold_until;	/* mono ns */
	uint32_t attempts;
	bool seen; /* found in the current round */
};

struct enav_pprof_pull {
	uint32_t seconds, max_per_round, max_targets;
	uint64_t round_ns, hold_ns;
	bool discover;
	const char *allow[ENAV_CONFIG_LIST_MAX];
	size_t n_allow;
	char configured[ENAV_CONFIG_LIST_MAX][ENAV_CONFIG_ENTRY_MAX];
	size_t n_configured;
	struct enav_host *host; /* its profile consumers get what is pulled */
	struct target *targets;
	size_t n_targets;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	_Atomic bool stop;
	/* self-accounting */
	_Atomic uint64_t rounds, ok, held_answers, errors, filter_errors, frames_kept,
	    frames_redacted, too_large;
	_Atomic uint32_t n_live, n_held, in_flight, max_in_flight, max_round_captures;
};

/* ---- discovery ------------------------------------------------------------ */

/* The next whitespace-separated field at *p: false at the end of the line. */
static bool next_field(const char **p, const char **f, size_t *n)
{
	const char *s = *p;
	while (*s && isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	*f = s;
	while (*s && !isspace((unsigned char)*s))
		s++;
	*n = (size_t)(s - *f);
	*p = s;
	return true;
}

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (enav_hex_digit(s[i]) < 0)
			return false;
	return true;
}

bool enav_parse_proc_net_tcp_line(const char *line, bool ipv6, struct enav_listen_socket *out)
{
	/* "  0: 0100007F:1F90 00000000:0000 0A tx:rx tr:when retrnsmt uid timeout inode ..."
	 * Every field is checked to the kernel's own format (%4d: %08X:%04X ...):
	 * a sign, a space or a 0x prefix that strtoul or scanf would take is not
	 * something the kernel prints. */
	const char *p = line, *f[10]; /* f[1..9]: the fields after "sl:" */
	size_t n[10];
	while (isspace((unsigned char)*p))
		p++;
	const char *sl = p;
	while (*p >= '0' && *p <= '9')
		p++;
	if (p == sl || *p++ != ':')
		return false;
	for (int i = 1; i < 10; i++)
		if (!next_field(&p, &f[i], &n[i]))
			return false;
	const char *local = f[1];
	size_t hexlen = ipv6 ? 32u : 8u;
	if (n[1] != hexlen + 5 || local[hexlen] != ':' || !all_hex(local, hexlen) ||
	    !all_hex(local + hexlen + 1, 4))
		return false;
	if (n[3] != 2 || memcmp(f[3], "0A", 2) != 0) /* TCP_LISTEN */
		return false;
	uint64_t uid, timeout, inode;
	if (!enav_parse_u64_dec(f[7], n[7], &uid) || !enav_parse_u64_dec(f[8], n[8], &timeout) ||
	    !enav_parse_u64_dec(f[9], n[9], &inode) || inode == 0)
		return false;
	unsigned port = 0;
	for (size_t i = 0; i < 4; i++)
		port = port << 4 | (unsigned)enav_hex_digit(local[hexlen + 1 + i]);
	if (port == 0)
		return false;
	struct enav_listen_socket r = {.inode = inode, .port = (uint16_t)port};
	/* The address is printed as 32-bit words in host order. */
	if (!ipv6) {
		bool any = !strncmp(local, "00000000", 8);
		bool lo = !strncmp(local, "0100007F", 8);
		r.v4_loopback = any || lo;
	} else {
		bool any = !strncmp(local, "00000000000000000000000000000000", 32);
		bool lo = !strncmp(local, "00000000000000000000000001000000", 32);
		r.v6_loopback = any || lo;
	}
	if (!r.v4_loopback && !r.v6_loopback)
		return false;
	*out = r;
	return true;
}

size_t enav_read_proc_net_tcp(FILE *f, bool ipv6, struct enav_listen_socket *out, size_t cap)
{
	/* The kernel's lines are 150 (tcp) or 178 (tcp6) bytes.  A longer one,
	 * or one holding a NUL, is not one of them: skipped whole, so its tail
	 * is never read as a line of its own. */
	char line[512];
	size_t n = 0, len = 0;
	bool skip = false;
	int c;
	while (n < cap) {
		c = getc_unlocked(f);
		if (c != '\n' && c != EOF) {
			if (c == '\0' || len == sizeof(line) - 1)
				skip = true;
			else
				line[len++] = (char)c;
			continue;
		}
		line[len] = '\0';
		if (!skip && len && enav_parse_proc_net_tcp_line(line, ipv6, &out[n]))
			n++;
		if (c == EOF)
			break;
		len = 0;
		skip = false;
	}
	return n;
}

static size_t read_listeners(struct enav_listen_socket *out, size_t cap)
{
	size_t n = 0;
	const char *files[2] = {"/proc/net/tcp", "/proc/net/tcp6"};
	for (int f = 0; f < 2; f++) {
		FILE *fp = fopen(files[f], "re");
		if (!fp)
			continue;
		n += enav_read_proc_net_tcp(fp, f == 1, out + n, cap - n);
		fclose(fp);
	}
	return n;
}

static bool is_go_binary(uint32_t pid, struct enav_go_buildinfo *bi)
{
	char err[160];
	return enav_go_buildinfo_read_exe(pid, bi, err, sizeof(err)) == 0;
}

static void read_comm(uint32_t pid, char *out, size_t cap)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	FILE *f = fopen(path, "re");
	out[0] = '\0';
	if (f) {
		if (fgets(out, (int)cap, f))
			out[strcspn(out, "\n")] = '\0';
		fclose(f);
	}
}

/* Answers 200 on /debug/pprof/ within the probe timeout? */
static size_t discard(char *p, size_t sz, size_t n, void *ctx)
{
	(void)p;
	(void)ctx;
	return sz * n;
}

static bool serves_pprof(const char *base)
{
	char url[128];
	snprintf(url, sizeof(url), "%s/debug/pprof/", base);
	CURL *e = curl_easy_init();
	if (!e)
		return false;
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)PROBE_TIMEOUT_MS);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, discard);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http");
	long status = 0;
	bool ok = curl_easy_perform(e) == CURLE_OK &&
		  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
		  status == 200;
	curl_easy_cleanup(e);
	return ok;
}

static struct target *find_target(struct enav_pprof_pull *p, const char *url, uint32_t pid)
{
	for (size_t i = 0; i < p->n_targets; i++)
		if (p->targets[i].pid == pid && !strcmp(p->targets[i].url, url))
			return &p->targets[i];
	return NULL;
}

/* Add or refresh a target; takes ownership of bi when has_bi. */
static void note_target(struct enav_pprof_pull *p, const char *url, uint32_t pid, bool has_bi,
			struct enav_go_buildinfo *bi)
{
	struct target *t = find_target(p, url, pid);
	if (t) {
		t->seen = true;
		if (has_bi)
			enav_go_buildinfo_free(bi);
		return;
	}
	if (p->n_targets == p->max_targets) {
		if (has_bi)
			enav_go_buildinfo_free(bi);
		return;
	}
	t = &p->targets[p->n_targets++];
	memset(t, 0, sizeof(*t));
	snprintf(t->url, sizeof(t->url), "%s", url);
	t->pid = pid;
	t->seen = true;
	t->has_bi = has_bi;
	if (has_bi)
		t->bi = *bi;
	if (pid)
		read_comm(pid, t->comm, sizeof(t->comm));
}

static int by_inode(const void *a, const void *b)
{
	const struct enav_listen_socket *x = a, *y = b;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

/* The pid listening on each socket, for the processes worth looking at:
 * Go processes when discovering, any process owning a configured port. */
static void discover(struct enav_pprof_pull *p)
{
	static struct enav_listen_socket socks[MAX_LISTEN];
	size_t ns = read_listeners(socks, MAX_LISTEN);
	qsort(socks, ns, sizeof(*socks), by_inode);
	uint16_t want_ports[ENAV_CONFIG_LIST_MAX];
	char want_host[ENAV_CONFIG_LIST_MAX][48];
	bool resolved[ENAV_CONFIG_LIST_MAX] = {false};
	for (size_t i = 0; i < p->n_configured; i++) {
		unsigned port = 0;
		sscanf(p->configured[i], "http://%47[0-9.]:%u", want_host[i], &port);
		want_ports[i] = (uint16_t)port;
	}
	DIR *d = opendir("/proc");
	size_t scanned = 0;
	struct dirent *de;
	while (d && (de = readdir(d)) && scanned < MAX_PIDS_SCANNED && !atomic_load(&p->stop)) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);
		if (*end || !pid)
			continue;
		scanned++;
		struct enav_go_buildinfo bi;
		bool go = p->discover && is_go_binary((uint32_t)pid, &bi);
		if (!go && p->n_configured == 0)
			continue;
		char fddir[64];
		snprintf(fddir, sizeof(fddir), "/proc/%lu/fd", pid);
		DIR *fd = opendir(fddir);
		struct dirent *fe;
		size_t nfd = 0;
		while (fd && (fe = readdir(fd)) && nfd++ < MAX_FDS_SCANNED) {
			char link[96], target[64];
			snprintf(link, sizeof(link), "%s/%s", fddir, fe->d_name);
			ssize_t n = readlink(link, target, sizeof(target) - 1);
			if (n <= 8)
				continue;
			target[n] = '\0';
			unsigned long long inode;
			if (sscanf(target, "socket:[%llu]", &inode) != 1)
				continue;
			struct enav_listen_socket key = {.inode = inode};
			struct enav_listen_socket *s =
			    bsearch(&key, socks, ns, sizeof(*socks), by_inode);
			if (!s)
				continue;
			char url[64];
			snprintf(url, sizeof(url),
				 s->v4_loopback ? "http://127.0.0.1:%u" : "http://[::1]:%u",
				 s->port);
			for (size_t i = 0; i < p->n_configured; i++)
				if (!resolved[i] && want_ports[i] == s->port) {
					/* The owner of a configured target: its build info
					 * decides what of its code is kept. */
					struct enav_go_buildinfo cbi;
					bool cgo = is_go_binary((uint32_t)pid, &cbi);
					note_target(p, p->configured[i], (uint32_t)pid, cgo, &cbi);
					resolved[i] = true;
				}
			if (go && !find_target(p, url, (uint32_t)pid) && serves_pprof(url)) {
				struct enav_go_buildinfo copy;
				char err[160];
				if (enav_go_buildinfo_read_exe((uint32_t)pid, &copy, err,
							       sizeof(err)) == 0)
					note_target(p, url, (uint32_t)pid, true, &copy);
			} else if (go) {
				struct target *t = find_target(p, url, (uint32_t)pid);
				if (t)
					t->seen = true;
			}
		}
		if (fd)
			closedir(fd);
		if (go)
			enav_go_buildinfo_free(&bi);
	}
	if (d)
		closedir(d);
	/* A configured target whose owner is not found (another network
	 * namespace, another host): no build info, only the allow-list keeps. */
	for (size_t i = 0; i < p->n_configured; i++)
		if (!resolved[i])
			note_target(p, p->configured[i], 0, false, NULL);
}

/* ---- capture ---------------------------------------------------------------- */

struct body {
	uint8_t *data;
	size_t len, cap;
	bool too_large;
};

static size_t collect(char *ptr, size_t sz, size_t n, void *arg)
{
	struct body *b = arg;
	size_t add = sz * n;
	if (b->len + add > MAX_PROFILE_BYTES) {
		b->too_large = true;
		return 0;
	}
	if (b->len + add > b->cap) {
		size_t c = b->cap ? b->cap * 2 : 65536;
		while (c < b->len + add)
			c *= 2;
		uint8_t *d = realloc(b->data, c);
		if (!d)
			return 0;
		b->data = d;
		b->cap = c;
	}
	memcpy(b->data + b->len, ptr, add);
	b->len += add;
	return add;
}

static int abort_on_stop(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	struct enav_pprof_pull *p = arg;
	return atomic_load(&p->stop) ? 1 : 0;
}

static void ship(struct enav_pprof_pull *p, struct target *t, const uint8_t *raw, size_t len,
		 uint64_t from_unix, uint64_t to_unix)
{
	struct enav_code_owner owner = {.allow = p->allow, .n_allow = p->n_allow};
	const char **storage = NULL;
	if (t->has_bi &&
	    enav_code_owner_from_buildinfo(&owner, &t->bi, p->allow, p->n_allow, &storage) != 0) {
		atomic_fetch_add(&p->filter_errors, 1);
		return;
	}
	struct enav_pprof_filter_opts o = {.owner = &owner};
	struct enav_pprof_filter_stats st = {0};
	uint8_t *out = NULL;
	size_t out_len = 0;
	char err[200];
	int rc = enav_pprof_filter(raw, len, &o, &out, &out_len, &st, err, sizeof(err));
	free(storage);
	if (rc) {
		atomic_fetch_add(&p->filter_errors, 1);
		enav_warn("profile pull: %s: the profile did not pass the filter: %s", t->url, err);
		return;
	}
	atomic_fetch_add(&p->frames_kept, st.frames_kept);
	atomic_fetch_add(&p->frames_redacted, st.frames_redacted);
	struct enav_pulled_profile pp = {.kind = "cpu",
					 .units = "samples",
					 .pid = t->pid,
					 .comm = t->comm,
					 .from_unix_ns = from_unix,
					 .to_unix_ns = to_unix,
					 .body = out,
					 .len = out_len};
	enav_host_publish_pulled(p->host, &pp);
	free(out);
}

static void capture(struct enav_pprof_pull *p, struct target *t)
{
	char url[128];
	snprintf(url, sizeof(url), "%s/debug/pprof/profile?seconds=%u", t->url, p->seconds);
	struct body b = {0};
	CURL *e = curl_easy_init();
	if (!e)
		return;
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)(p->seconds + 10) * 1000L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)PROBE_TIMEOUT_MS);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http");
	curl_easy_setopt(e, CURLOPT_USERAGENT, "e-navigator/" ENAV_VERSION);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, abort_on_stop);
	curl_easy_setopt(e, CURLOPT_XFERINFODATA, p);
	uint64_t from_unix = enav_clock_unix_ns();
	uint32_t inflight = atomic_fetch_add(&p->in_flight, 1) + 1;
	if (inflight > atomic_load(&p->max_in_flight))
		atomic_store(&p->max_in_flight, inflight);
	CURLcode rc = curl_easy_perform(e);
	atomic_fetch_sub(&p->in_flight, 1);
	long status = 0;
	if (rc == CURLE_OK)
		curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(e);
	uint64_t now = enav_clock_mono_ns();
	t->last_profiled = now;
	t->attempts++;
	if (rc == CURLE_OK && status == 200) {
		atomic_fetch_add(&p->ok, 1);
		ship(p, t, b.data, b.len, from_unix, enav_clock_unix_ns());
	} else if (rc == CURLE_OK) {
		/* An answer that is not a profile: almost always the owner's own
		 * profiler holding Go's single CPU profile.  Never fight it. */
		t->hold_until = now + p->hold_ns;
		atomic_fetch_add(&p->held_answers, 1);
		enav_info("profile pull: %s (pid %u) answered %ld; on hold", t->url, t->pid,
			  status);
	} else {
		if (b.too_large)
			atomic_fetch_add(&p->too_large, 1);
		atomic_fetch_add(&p->errors, 1);
	}
	free(b.data);
}

/* ---- rounds ---------------------------------------------------------------- */

static int by_last_profiled(const void *a, const void *b)
{
	const struct target *x = *(const struct target *const *)a,
			    *y = *(const struct target *const *)b;
	if (x->last_profiled != y->last_profiled)
		return x->last_profiled < y->last_profiled ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void drop_unseen(struct enav_pprof_pull *p)
{
	size_t w = 0;
	for (size_t i = 0; i < p->n_targets; i++) {
		struct target *t = &p->targets[i];
		if (!t->seen) {
			if (t->has_bi)
				enav_go_buildinfo_free(&t->bi);
			continue;
		}
		t->seen = false;
		p->targets[w++] = *t;
	}
	p->n_targets = w;
}

static void round_once(struct enav_pprof_pull *p)
{
	for (size_t i = 0; i < p->n_targets; i++)
		p->targets[i].seen = false;
	discover(p); /* marks what it finds; drop_unseen() sweeps the rest */
	uint64_t now = enav_clock_mono_ns();
	struct target *order[p->n_targets ? p->n_targets : 1];
	size_t n = 0, held = 0;
	for (size_t i = 0; i < p->n_targets; i++) {
		if (!p->targets[i].seen)
			continue;
		if (p->targets[i].hold_until > now)
			held++;
		else
			order[n++] = &p->targets[i];
	}
	atomic_store(&p->n_live, (uint32_t)(n + held));
	atomic_store(&p->n_held, (uint32_t)held);
	qsort(order, n, sizeof(*order), by_last_profiled);
	uint32_t done = 0;
	for (size_t i = 0; i < n && done < p->max_per_round && !atomic_load(&p->stop); i++) {
		capture(p, order[i]); /* one at a time: this thread is the only caller */
		done++;
	}
	if (done > atomic_load(&p->max_round_captures))
		atomic_store(&p->max_round_captures, done);
	drop_unseen(p);
	atomic_fetch_add(&p->rounds, 1);
}

static void *pull_thread(void *arg)
{
	struct enav_pprof_pull *p = arg;
	while (!atomic_load(&p->stop)) {
		uint64_t start = enav_clock_mono_ns();
		round_once(p);
		uint64_t next = start + p->round_ns;
		pthread_mutex_lock(&p->lock);
		while (!atomic_load(&p->stop) && enav_clock_mono_ns() < next) {
			struct timespec ts = enav_clock_deadline(CLOCK_REALTIME, 200000000ull);
			pthread_cond_timedwait(&p->cv, &p->lock, &ts);
		}
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

struct enav_pprof_pull *enav_pprof_pull_start(const struct enav_config *cfg, struct enav_host *host)
{
	struct enav_pprof_pull *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->seconds = cfg->profiling.pull_seconds;
	p->max_per_round = cfg->profiling.pull_max_per_round;
	p->max_targets = cfg->profiling.pull_max_targets;
	p->round_ns = (uint64_t)cfg->profiling.pull_round_ms * 1000000ull;
	p->hold_ns = (uint64_t)cfg->profiling.pull_hold_ms * 1000000ull;
	p->discover = cfg->profiling.pull_discover;
	for (uint32_t i = 0; i < cfg->profiling.filter_allow.n && i < ENAV_CONFIG_LIST_MAX; i++)
		p->allow[p->n_allow++] = cfg->profiling.filter_allow.item[i];
	for (uint32_t i = 0; i < cfg->profiling.pull_targets.n && i < ENAV_CONFIG_LIST_MAX; i++)
		snprintf(p->configured[p->n_configured++], ENAV_CONFIG_ENTRY_MAX, "%s",
			 cfg->profiling.pull_targets.item[i]);
	p->host = host;
	p->targets = calloc(p->max_targets, sizeof(*p->targets));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (!p->targets || pthread_create(&p->thread, NULL, pull_thread, p) != 0) {
		free(p->targets);
		free(p);
		return NULL;
	}
	return p;
}

void enav_pprof_pull_stop(struct enav_pprof_pull *p)
{
	if (!p)
		return;
	atomic_store(&p->stop, true);
	pthread_mutex_lock(&p->lock);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	for (size_t i = 0; i < p->n_targets; i++)
		if (p->targets[i].has_bi)
			enav_go_buildinfo_free(&p->targets[i].bi);
	free(p->targets);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cv);
	free(p);
}

void enav_pprof_pull_metrics(struct enav_pprof_pull *p, struct enav_promtext *out)
{
	if (!p)
		return;
	enav_promtext_single_u64(out, "enav_pprof_pull_targets", "gauge",
				 "Go pprof servers found in the last round.",
				 atomic_load(&p->n_live));
	enav_promtext_single_u64(out, "enav_pprof_pull_held_targets", "gauge",
				 "Targets on hold after a non-200 answer (their own profiler).",
				 atomic_load(&p->n_held));
	enav_promtext_single_u64(out, "enav_pprof_pull_rounds_total", "counter", "Pull rounds run.",
				 atomic_load(&p->rounds));
	enav_promtext_family(out, "enav_pprof_pull_captures_total", "counter",
			     "Pull attempts by result.");
	const struct {
		const char *r;
		uint64_t v;
	} res[] = {{"ok", atomic_load(&p->ok)},
		   {"held", atomic_load(&p->held_answers)},
		   {"error", atomic_load(&p->errors)},
		   {"filter_error", atomic_load(&p->filter_errors)},
		   {"too_large", atomic_load(&p->too_large)}};
	for (size_t i = 0; i < sizeof(res) / sizeof(res[0]); i++) {
		const char *l[] = {"result", res[i].r};
		enav_promtext_sample_u64(out, "enav_pprof_pull_captures_total", l, 1, res[i].v);
	}
	enav_promtext_single_u64(out, "enav_pprof_pull_max_in_flight", "gauge",
				 "Most captures ever in flight at once (by construction 1).",
				 atomic_load(&p->max_in_flight));
	enav_promtext_single_u64(
	    out, "enav_pprof_pull_max_round_captures", "gauge",
	    "Most captures in one round (at most profiling.pull.max_per_round).",
	    atomic_load(&p->max_round_captures));
	enav_promtext_family(out, "enav_profile_filter_frames_total", "counter",
			     "Frames of pulled profiles kept and redacted by the symbol filter.");
	const char *lk[] = {"result", "kept"};
	enav_promtext_sample_u64(out, "enav_profile_filter_frames_total", lk, 1,
				 atomic_load(&p->frames_kept));
	const char *lr[] = {"result", "redacted"};
	enav_promtext_sample_u64(out, "enav_profile_filter_frames_total", lr, 1,
				 atomic_load(&p->frames_redacted));
}

/* ---- the row ---------------------------------------------------------------- */

bool enav_pprof_pull_enabled(const struct enav_config *cfg)
{
	return cfg->profiling.enabled && cfg->profiling.pull;
}

static int pull_init(struct enav_host *h, void **state, char *err, size_t errlen)
{
	*state = enav_pprof_pull_start(enav_host_config(h), h);
	if (!*state) {
		snprintf(err, errlen, "profiling.pull: cannot start the pull worker");
		return -ENOMEM;
	}
	return 0;
}

/* Before the consumers' fini (a later row): a capture in flight is aborted. */
static void pull_fini(void *state, uint64_t deadline_mono_ns)
{
	(void)deadline_mono_ns;
	enav_pprof_pull_stop(state);
}

static void pull_metrics(void *state, struct enav_promtext *out)
{
	enav_pprof_pull_metrics(state, out);
}

const struct enav_sink_ops enav_pprof_pull_sink_ops = {
    .init = pull_init,
    .fini = pull_fini,
    .metrics = pull_metrics,
};
