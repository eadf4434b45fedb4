/* SPDX-License-Identifier: Apache-2.0 */
#include "features/profiling/profile_spool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "platform/log.h"
#include "platform/promtext.h"
#include "config/config.h"

#define PREFIX	  "enav-"
#define SUFFIX	  ".pb.gz"
#define MAX_FILES 65536 /* files considered per enforcement pass */

struct enav_profile_spool {
	char dir[512]; /* for messages; files are reached through dfd */
	int dfd;       /* the directory, opened once: a rename of it changes nothing */
	uint64_t max_bytes;
	uint32_t max_age_s;
	uint64_t seq;
	pthread_mutex_t lock;
	struct enav_host *host; /* the row's: its profile consumer is registered there */
	_Atomic uint64_t written, bytes_written, write_errors, removed_age, removed_size, files,
	    bytes, planted;
};

struct spool_file {
	char name[256];
	time_t mtime;
	uint64_t size;
};

static bool ours(const char *name)
{
	size_t n = strlen(name), s = strlen(SUFFIX);
	return strncmp(name, PREFIX, strlen(PREFIX)) == 0 && n > s &&
	       strcmp(name + n - s, SUFFIX) == 0;
}

static int by_age(const void *a, const void *b)
{
	const struct spool_file *x = a, *y = b;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->name, y->name);
}

void enav_profile_spool_enforce(struct enav_profile_spool *sp, uint64_t now_unix_s)
{
	/* A description of its own: readdir's offset is not shared with dfd. */
	int fd = openat(sp->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct spool_file *files = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < MAX_FILES) {
		/* A write cut short by a crash leaves its temporary file: ours too. */
		if (!strncmp(de->d_name, ".tmp-" PREFIX, strlen(".tmp-" PREFIX))) {
			unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (!ours(de->d_name) || strlen(de->d_name) >= sizeof(files->name))
			continue;
		struct stat st;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 64;
			struct spool_file *f = realloc(files, nc * sizeof(*f));
			if (!f)
				break;
			files = f;
			cap = nc;
		}
		snprintf(files[n].name, sizeof(files[n].name), "%s", de->d_name);
		files[n].mtime = st.st_mtime;
		files[n].size = (uint64_t)st.st_size;
		n++;
	}
	if (n > 1) /* files is NULL when none matched: qsort must not see it */
		qsort(files, n, sizeof(*files), by_age);
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++)
		total += files[i].size;
	size_t kept = n;
	for (size_t i = 0; i < n; i++) {
		bool old = (uint64_t)files[i].mtime + sp->max_age_s < now_unix_s;
		bool over = total > sp->max_bytes;
		if (!old && !over)
			break; /* sorted oldest first: the rest are younger and fit */
		if (unlinkat(dirfd(d), files[i].name, 0) == 0) {
			atomic_fetch_add(old ? &sp->removed_age : &sp->removed_size, 1);
			total -= files[i].size;
			kept--;
		}
	}
	atomic_store(&sp->files, kept);
	atomic_store(&sp->bytes, total);
	closedir(d);
	free(files);
}

struct enav_profile_spool *enav_profile_spool_open(const char *dir, uint64_t max_bytes,
						   uint32_t max_age_s, char *err, size_t errlen)
{
	if (mkdir(dir, 0750) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "profiling.spool.dir: cannot create %s: %s", dir,
			 strerror(errno));
		return NULL;
	}
	if (access(dir, W_OK) != 0) {
		snprintf(err, errlen, "profiling.spool.dir: %s is not writable: %s", dir,
			 strerror(errno));
		return NULL;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	if (dfd < 0 || fstat(dfd, &st) != 0) {
		snprintf(err, errlen, "profiling.spool.dir: cannot open %s: %s", dir,
			 strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return NULL;
	}
	/* Another user who can write the directory could plant names in it. */
	if (st.st_uid != geteuid() || (st.st_mode & S_IWOTH)) {
		snprintf(err, errlen,
			 "profiling.spool.dir: %s must be owned by the agent's user and not "
			 "writable by others (owner uid %u, mode %03o)",
			 dir, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777));
		close(dfd);
		return NULL;
	}
	struct enav_profile_spool *sp = calloc(1, sizeof(*sp));
	if (!sp) {
		snprintf(err, errlen, "profiling.spool: out of memory");
		close(dfd);
		return NULL;
	}
	sp->dfd = dfd;
	snprintf(sp->dir, sizeof(sp->dir), "%s", dir);
	pthread_mutex_init(&sp->lock, NULL);
	sp->max_bytes = max_bytes;
	sp->max_age_s = max_age_s;
	enav_profile_spool_enforce(sp, (uint64_t)time(NULL));
	return sp;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* A new temporary file in the spool: created, never opened through a name
 * someone else made (O_EXCL; O_NOFOLLOW for a symlink planted there).  A
 * leftover entry at that name is removed (the entry, never what it points
 * at) and counted, once. */
static int create_tmp(struct enav_profile_spool *sp, const char *tmp)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(sp->dfd, tmp, flags, 0640);
	if (fd < 0 && errno == EEXIST && unlinkat(sp->dfd, tmp, 0) == 0) {
		atomic_fetch_add(&sp->planted, 1);
		fd = openat(sp->dfd, tmp, flags, 0640);
	}
	return fd;
}

/* One file, written under a temporary name and renamed; the lock keeps the
 * sequence numbers of the profiler and pull threads apart. */
static void write_one(struct enav_profile_spool *sp, const char *kind, const char *stamp,
		      const uint8_t *body, size_t len)
{
	char name[256], tmp[300], path[800];
	pthread_mutex_lock(&sp->lock);
	snprintf(name, sizeof(name), PREFIX "%s-%s-%llu" SUFFIX, kind, stamp,
		 (unsigned long long)sp->seq++);
	snprintf(tmp, sizeof(tmp), ".tmp-%s", name);
	snprintf(path, sizeof(path), "%s/%s", sp->dir, name);
	int fd = create_tmp(sp, tmp);
	bool ok = fd >= 0 && write_all(fd, body, len) == 0;
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	/* rename replaces an entry at the final name; it never follows one. */
	if (ok && renameat(sp->dfd, tmp, sp->dfd, name) != 0)
		ok = false;
	if (!ok) {
		if (fd >= 0)
			unlinkat(sp->dfd, tmp, 0);
		atomic_fetch_add(&sp->write_errors, 1);
		enav_warn("profiling spool: cannot write %s: %s", path, strerror(errno));
	} else {
		atomic_fetch_add(&sp->written, 1);
		atomic_fetch_add(&sp->bytes_written, len);
	}
	pthread_mutex_unlock(&sp->lock);
}

static void utc_stamp(uint64_t unix_ns, char *out, size_t cap)
{
	time_t t = (time_t)(unix_ns / 1000000000ull);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, cap, "%Y%m%dT%H%M%SZ", &tm);
}

void enav_profile_spool_interval(struct enav_profile_spool *sp, struct enav_profile_store *store,
				 const struct enav_profile_service *svc, uint32_t kinds,
				 uint64_t from_mono_ns, uint64_t to_mono_ns, uint64_t to_unix_ns)
{
	if (!sp)
		return;
	char stamp[32];
	utc_stamp(to_unix_ns, stamp, sizeof(stamp));
	for (uint32_t k = 0; k < ENAV_PROFILE__COUNT; k++) {
		if (!(kinds & (1u << k)))
			continue;
		struct enav_profile_query q = {.kind = k,
					       .from_mono_ns = from_mono_ns,
					       .to_mono_ns = to_mono_ns,
					       .format = ENAV_PROFILE_FORMAT_PPROF,
					       .redact = true /* files are shipped on */};
		uint8_t *body;
		size_t len;
		if (svc->build(store, &q, &body, &len) != 0) {
			atomic_fetch_add(&sp->write_errors, 1);
			continue;
		}
		if (q.matched)
			write_one(sp, svc->kind_name(k), stamp, body, len);
		free(body);
	}
	enav_profile_spool_enforce(sp, (uint64_t)time(NULL));
}

void enav_profile_spool_write(struct enav_profile_spool *sp, const char *kind, const uint8_t *body,
			      size_t len, uint64_t unix_ns)
{
	if (!sp)
		return;
	char stamp[32];
	utc_stamp(unix_ns, stamp, sizeof(stamp));
	write_one(sp, kind, stamp, body, len);
	enav_profile_spool_enforce(sp, (uint64_t)time(NULL));
}

void enav_profile_spool_close(struct enav_profile_spool *sp)
{
	if (!sp)
		return;
	pthread_mutex_destroy(&sp->lock);
	close(sp->dfd);
	free(sp);
}

void enav_profile_spool_metrics(struct enav_profile_spool *sp, struct enav_promtext *p)
{
	if (!sp)
		return;
	enav_promtext_single_u64(p, "enav_profile_spool_files", "gauge",
				 "Profile files in the spool directory.", atomic_load(&sp->files));
	enav_promtext_single_u64(p, "enav_profile_spool_bytes", "gauge",
				 "Bytes of profile files in the spool (capped by spool.max_mb).",
				 atomic_load(&sp->bytes));
	enav_promtext_single_u64(p, "enav_profile_spool_written_total", "counter",
				 "Profile files written to the spool.", atomic_load(&sp->written));
	enav_promtext_single_u64(p, "enav_profile_spool_write_errors_total", "counter",
				 "Profile files that could not be built or written.",
				 atomic_load(&sp->write_errors));
	enav_promtext_single_u64(p, "enav_profile_spool_planted_total", "counter",
				 "Entries found at a temporary file's name before the agent "
				 "created it (removed, never followed).",
				 atomic_load(&sp->planted));
	enav_promtext_family(p, "enav_profile_spool_removed_total", "counter",
			     "Spool files removed by the caps, by reason.");
	const char *la[] = {"reason", "age"};
	enav_promtext_sample_u64(p, "enav_profile_spool_removed_total", la, 1,
				 atomic_load(&sp->removed_age));
	const char *ls[] = {"reason", "size"};
	enav_promtext_sample_u64(p, "enav_profile_spool_removed_total", ls, 1,
				 atomic_load(&sp->removed_size));
}

/* ---- the row ---------------------------------------------------------------- */

bool enav_profile_spool_enabled(const struct enav_config *cfg)
{
	return cfg->profiling.enabled && cfg->profiling.spool_dir[0];
}

static void spool_on_interval(void *ctx, struct enav_profile_store *store,
			      const struct enav_profile_service *svc,
			      const struct enav_profile_interval *iv)
{
	enav_profile_spool_interval(ctx, store, svc, iv->kinds, iv->from_mono_ns, iv->to_mono_ns,
				    iv->to_unix_ns);
}

static void spool_on_pulled(void *ctx, const struct enav_pulled_profile *p)
{
	char kind[32];
	snprintf(kind, sizeof(kind), "pulled-%s", p->kind);
	enav_profile_spool_write(ctx, kind, p->body, p->len, p->to_unix_ns);
}

static int spool_init(struct enav_host *h, void **state, char *err, size_t errlen)
{
	const struct enav_config *cfg = enav_host_config(h);
	struct enav_profile_spool *sp = enav_profile_spool_open(
	    cfg->profiling.spool_dir, (uint64_t)cfg->profiling.spool_max_mb << 20,
	    cfg->profiling.spool_max_age_s, err, errlen);
	if (!sp)
		return -EINVAL;
	*state = sp;
	sp->host = h;
	struct enav_profile_consumer c = {spool_on_interval, spool_on_pulled, sp};
	return enav_host_consume_profiles(h, &c, err, errlen);
}

static void spool_fini(void *state, uint64_t deadline_mono_ns)
{
	(void)deadline_mono_ns; /* writes are synchronous: none is left in flight */
	struct enav_profile_spool *sp = state;
	if (!sp)
		return;
	enav_host_unconsume_profiles(sp->host, sp);
	enav_profile_spool_close(sp);
}

static void spool_metrics(void *state, struct enav_promtext *p)
{
	enav_profile_spool_metrics(state, p);
}

const struct enav_sink_ops enav_profile_spool_sink_ops = {
    .init = spool_init,
    .fini = spool_fini,
    .metrics = spool_metrics,
};
