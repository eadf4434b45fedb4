/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Node resources from procfs with node_exporter's metric names (the node half
 * of host.h): lifecycle, the one read path, shared lexing and the enav_host_*
 * self metrics.  Families are rendered by node_cpu.c, node_mem.c,
 * node_disk.c, node_net.c, node_fs.c and node_misc.c.
 *
 * Cost: every fixed file is opened once here and re-read each scrape with one
 * pread(fd, buf, cap, 0) (procfs regenerates seq files on a read at offset
 * 0).  All files share one read buffer that starts at 64 KiB and doubles, when
 * a file fills it, up to 4 MiB; it is kept, so a steady state allocates
 * nothing.  Per-device arrays hold max_devices entries each, allocated here.
 *
 * Read errors: enav_host_read_errors_total{file} counts scrapes where a file
 * could not be opened or read, or held nothing recognisable.  A kernel
 * without PSI (pressure files absent, or EOPNOTSUPP on read) is not an error:
 * the pressure families are left out and
 * enav_host_collector_available{collector="pressure"} is 0.
 */
#include "platform/parse.h"
#include "features/node/node_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- lexing ----------------------------------------------------------------- */

bool enav_node_next_line(const char **pos, const char *end, const char **line, size_t *len)
{
	const char *p = *pos;

	if (p >= end)
		return false;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *stop = nl ? nl : end;

	*line = p;
	*len = (size_t)(stop - p);
	*pos = nl ? nl + 1 : end;
	return true;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

bool enav_node_token(const char **pos, const char *end, const char **tok, size_t *len)
{
	const char *p = *pos;

	while (p < end && is_blank(*p))
		p++;
	if (p >= end) {
		*pos = p;
		return false;
	}
	const char *s = p;

	while (p < end && !is_blank(*p))
		p++;
	*tok = s;
	*len = (size_t)(p - s);
	*pos = p;
	return true;
}

bool enav_node_parse_u64(const char *s, size_t len, uint64_t *out)
{
	return enav_parse_u64_dec(s, len, out);
}

bool enav_node_parse_decimal(const char *s, size_t len, uint64_t *mant, unsigned *scale)
{
	uint64_t m = 0;
	unsigned sc = 0, sig = 0;
	bool digits = false, dot = false;

	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '.' && !dot) {
			dot = true;
			continue;
		}
		if (c < '0' || c > '9')
			return false;
		digits = true;
		if (sig == 0 && c == '0') {
			if (dot)
				sc++; /* leading zeros of the fraction still scale */
			continue;
		}
		if (sig >= 19) {
			if (!dot)
				return false; /* integer part too long to be exact */
			continue;	      /* drop excess fraction digits */
		}
		m = m * 10 + (uint64_t)(c - '0');
		sig++;
		if (dot)
			sc++;
	}
	if (!digits || sc > 22)
		return false;
	*mant = m;
	*scale = sc;
	return true;
}

double enav_node_decimal_value(uint64_t mant, unsigned scale)
{
	/* Powers of ten up to 1e22 are exact doubles: one rounding, in the division. */
	static const double pow10[] = {1e0,  1e1,  1e2,	 1e3,  1e4,  1e5,  1e6,	 1e7,
				       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
				       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

	if (scale > 22)
		scale = 22;
	return (double)mant / pow10[scale];
}

/* ---- files ------------------------------------------------------------------ */

/* Path under proc_root, and the root-independent name used as the label. */
static const struct {
	const char *rel;
	const char *label;
} node_files[ENAV_NODE_NFILES] = {
    [ENAV_NODE_F_STAT] = {"stat", "/proc/stat"},
    [ENAV_NODE_F_LOADAVG] = {"loadavg", "/proc/loadavg"},
    [ENAV_NODE_F_MEMINFO] = {"meminfo", "/proc/meminfo"},
    [ENAV_NODE_F_PSI_CPU] = {"pressure/cpu", "/proc/pressure/cpu"},
    [ENAV_NODE_F_PSI_MEMORY] = {"pressure/memory", "/proc/pressure/memory"},
    [ENAV_NODE_F_PSI_IO] = {"pressure/io", "/proc/pressure/io"},
    [ENAV_NODE_F_DISKSTATS] = {"diskstats", "/proc/diskstats"},
    [ENAV_NODE_F_NETDEV] = {"net/dev", "/proc/net/dev"},
    [ENAV_NODE_F_MOUNTS] = {"self/mounts", "/proc/self/mounts"},
    [ENAV_NODE_F_FILENR] = {"sys/fs/file-nr", "/proc/sys/fs/file-nr"},
    [ENAV_NODE_F_OS_RELEASE] = {NULL, "/etc/os-release"},
};

static bool is_psi(enum enav_node_file f)
{
	return f == ENAV_NODE_F_PSI_CPU || f == ENAV_NODE_F_PSI_MEMORY || f == ENAV_NODE_F_PSI_IO;
}

void enav_node_count_error(struct enav_node *n, enum enav_node_file f)
{
	n->read_errors[f]++;
}

/* Open f (not os-release); -1 with errno on failure. */
static int node_open_file(struct enav_node *n, enum enav_node_file f)
{
	char path[sizeof(n->proc_root) + 32];
	int len = snprintf(path, sizeof(path), "%s/%s", n->proc_root, node_files[f].rel);

	if (len < 0 || (size_t)len >= sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* A PSI file that does not exist, or a kernel that refuses to report PSI. */
static bool psi_missing(enum enav_node_file f, int e)
{
	return is_psi(f) && (e == ENOENT || e == EOPNOTSUPP);
}

/* Keep whole lines when a file outgrows the hard cap (a counted error). */
static ssize_t truncated(struct enav_node *n, enum enav_node_file f, size_t len)
{
	const char *nl = len ? memrchr(n->buf, '\n', len) : NULL;

	enav_node_count_error(n, f);
	return nl ? (ssize_t)(nl - n->buf + 1) : 0;
}

ssize_t enav_node_read(struct enav_node *n, enum enav_node_file f)
{
	if (n->fd[f] < 0) {
		if (n->absent[f]) {
			errno = ENOENT;
			return -1;
		}
		n->fd[f] = node_open_file(n, f);
		if (n->fd[f] < 0) {
			if (psi_missing(f, errno))
				n->absent[f] = true; /* PSI does not appear at runtime */
			else
				enav_node_count_error(n, f);
			return -1;
		}
	}
	for (;;) {
		ssize_t r = n->hooks.pread_fn(n->fd[f], n->buf, n->buf_cap, 0);

		if (r < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			if (!psi_missing(f, e)) {
				enav_node_count_error(n, f);
				/* Reopen next scrape: the error may belong to this open file. */
				close(n->fd[f]);
				n->fd[f] = -1;
			}
			errno = e;
			return -1;
		}
		if ((size_t)r < n->buf_cap)
			return r;
		if (n->buf_cap >= ENAV_NODE_BUF_MAX)
			return truncated(n, f, (size_t)r);
		size_t cap = n->buf_cap * 2;

		if (cap > ENAV_NODE_BUF_MAX)
			cap = ENAV_NODE_BUF_MAX;
		char *nb = realloc(n->buf, cap);

		if (!nb)
			return truncated(n, f, (size_t)r);
		n->buf = nb;
		n->buf_cap = cap;
	}
}

/* ---- shared rendering ------------------------------------------------------- */

void enav_node_sample_product(struct enav_promtext *p, const char *name, const char *const *labels,
			      size_t n_pairs, uint64_t a, uint64_t b)
{
	uint64_t v;

	if (!__builtin_mul_overflow(a, b, &v))
		enav_promtext_sample_u64(p, name, labels, n_pairs, v);
	else
		enav_promtext_sample(p, name, labels, n_pairs, (double)a * (double)b);
}

static const char *const kind_names[ENAV_NODE_NKINDS] = {
    [ENAV_NODE_K_CPU] = "cpu",
    [ENAV_NODE_K_DISK] = "disk",
    [ENAV_NODE_K_NETDEV] = "netdev",
    [ENAV_NODE_K_FILESYSTEM] = "filesystem",
};

static const char *const collector_names[ENAV_NODE_NCOLLECTORS] = {
    [ENAV_NODE_C_STAT] = "stat",
    [ENAV_NODE_C_LOADAVG] = "loadavg",
    [ENAV_NODE_C_MEMINFO] = "meminfo",
    [ENAV_NODE_C_PRESSURE] = "pressure",
    [ENAV_NODE_C_DISKSTATS] = "diskstats",
    [ENAV_NODE_C_NETDEV] = "netdev",
    [ENAV_NODE_C_FILESYSTEM] = "filesystem",
    [ENAV_NODE_C_FILEFD] = "filefd",
    [ENAV_NODE_C_OS] = "os",
};

static void render_self(struct enav_node *n, struct enav_promtext *p)
{
	enav_promtext_family(p, "enav_host_read_errors_total", "counter",
			     "Scrapes where a node source file could not be opened, read or "
			     "parsed (a kernel without PSI is not an error).");
	for (int f = 0; f < ENAV_NODE_NFILES; f++) {
		const char *l[] = {"file", node_files[f].label};

		enav_promtext_sample_u64(p, "enav_host_read_errors_total", l, 1, n->read_errors[f]);
	}
	enav_promtext_family(p, "enav_host_devices_dropped_total", "counter",
			     "Devices left out of a scrape because their kind reached "
			     "host.max_devices, summed over scrapes.");
	for (int k = 0; k < ENAV_NODE_NKINDS; k++) {
		const char *l[] = {"kind", kind_names[k]};

		enav_promtext_sample_u64(p, "enav_host_devices_dropped_total", l, 1, n->dropped[k]);
	}
	enav_promtext_family(p, "enav_host_collector_available", "gauge",
			     "1 when the node collector's source was read in this scrape.");
	for (int c = 0; c < ENAV_NODE_NCOLLECTORS; c++) {
		const char *l[] = {"collector", collector_names[c]};

		enav_promtext_sample_u64(p, "enav_host_collector_available", l, 1,
					 n->available[c] ? 1 : 0);
	}
}

void enav_node_render(struct enav_node *n, struct enav_promtext *p)
{
	if (!n || !p)
		return;
	memset(n->available, 0, sizeof(n->available));
	enav_node_render_stat(n, p);
	enav_node_render_loadavg(n, p);
	enav_node_render_meminfo(n, p);
	enav_node_render_pressure(n, p);
	enav_node_render_diskstats(n, p);
	enav_node_render_netdev(n, p);
	enav_node_render_filesystem(n, p);
	enav_node_render_filefd(n, p);
	enav_node_render_misc(n, p);
	render_self(n, p);
}

/* ---- lifecycle -------------------------------------------------------------- */

static double real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool copy_str(char *dst, size_t cap, const char *src)
{
	size_t len = strlen(src);

	if (len >= cap)
		return false;
	memcpy(dst, src, len + 1);
	return true;
}

/*
 * The root /etc and /usr/lib live under: "/" for the real "/proc", else the
 * parent of proc_root ("/host/proc" -> "/host", a fixture's "<case>/proc" ->
 * "<case>").
 */
static void derive_root(char *root, size_t cap, const char *proc_root)
{
	size_t len = strlen(proc_root);

	while (len > 1 && proc_root[len - 1] == '/')
		len--;
	if (len == 5 && memcmp(proc_root, "/proc", 5) == 0) {
		snprintf(root, cap, "/");
		return;
	}
	while (len > 0 && proc_root[len - 1] != '/')
		len--; /* drop the last component */
	while (len > 1 && proc_root[len - 1] == '/')
		len--;
	if (len == 0)
		snprintf(root, cap, ".");
	else
		snprintf(root, cap, "%.*s", (int)len, proc_root);
}

struct enav_node *enav_node_open_ex(const char *proc_root, const char *sys_root, const char *root,
				    uint32_t max_devices, const struct enav_node_hooks *hooks,
				    char *err, size_t errlen)
{
	(void)sys_root; /* no node family needs sysfs yet */
	if (!proc_root || !*proc_root || max_devices == 0) {
		snprintf(err, errlen, "host node: proc_root and max_devices are required");
		return NULL;
	}
	struct enav_node *n = calloc(1, sizeof(*n));

	if (!n) {
		snprintf(err, errlen, "host node: out of memory");
		return NULL;
	}
	for (int f = 0; f < ENAV_NODE_NFILES; f++)
		n->fd[f] = -1;
	if (!copy_str(n->proc_root, sizeof(n->proc_root), proc_root)) {
		snprintf(err, errlen, "host node: proc_root too long");
		goto fail;
	}
	if (root) {
		if (!copy_str(n->root, sizeof(n->root), root)) {
			snprintf(err, errlen, "host node: root too long");
			goto fail;
		}
	} else {
		derive_root(n->root, sizeof(n->root), proc_root);
	}
	n->max_devices = max_devices;
	if (hooks)
		n->hooks = *hooks;
	if (!n->hooks.statvfs_fn)
		n->hooks.statvfs_fn = statvfs;
	if (!n->hooks.now_fn)
		n->hooks.now_fn = real_now;
	if (!n->hooks.uname_fn)
		n->hooks.uname_fn = uname;
	if (!n->hooks.pread_fn)
		n->hooks.pread_fn = pread;
	n->clk_tck = n->hooks.clk_tck > 0 ? n->hooks.clk_tck : sysconf(_SC_CLK_TCK);
	if (n->clk_tck <= 0)
		n->clk_tck = 100;

	n->buf_cap = ENAV_NODE_BUF_INIT;
	n->buf = malloc(n->buf_cap);
	n->arena_cap = n->buf_cap + 4096;
	n->arena = malloc(n->arena_cap);
	n->cpus = calloc(max_devices, sizeof(*n->cpus));
	n->disks = calloc(max_devices, sizeof(*n->disks));
	n->nets = calloc(max_devices, sizeof(*n->nets));
	n->fs = calloc(max_devices, sizeof(*n->fs));
	if (!n->buf || !n->arena || !n->cpus || !n->disks || !n->nets || !n->fs) {
		snprintf(err, errlen, "host node: out of memory");
		goto fail;
	}

	/* /proc/stat must be there: without it proc_root is not a procfs. */
	n->fd[ENAV_NODE_F_STAT] = node_open_file(n, ENAV_NODE_F_STAT);
	if (n->fd[ENAV_NODE_F_STAT] < 0) {
		snprintf(err, errlen, "host node: %s/stat: %s", proc_root, strerror(errno));
		goto fail;
	}
	/* The others may come and go: a failure here is retried at each scrape. */
	for (int f = ENAV_NODE_F_STAT + 1; f < ENAV_NODE_NFILES; f++) {
		if (f == ENAV_NODE_F_OS_RELEASE)
			continue;
		n->fd[f] = node_open_file(n, (enum enav_node_file)f);
		if (n->fd[f] < 0 && psi_missing((enum enav_node_file)f, errno))
			n->absent[f] = true;
	}
	enav_node_read_os_release(n);
	return n;
fail:
	enav_node_close(n);
	return NULL;
}

struct enav_node *enav_node_open(const char *proc_root, const char *sys_root, uint32_t max_devices,
				 char *err, size_t errlen)
{
	return enav_node_open_ex(proc_root, sys_root, NULL, max_devices, NULL, err, errlen);
}

void enav_node_close(struct enav_node *n)
{
	if (!n)
		return;
	for (int f = 0; f < ENAV_NODE_NFILES; f++)
		if (n->fd[f] >= 0)
			close(n->fd[f]);
	free(n->buf);
	free(n->arena);
	free(n->cpus);
	free(n->disks);
	free(n->nets);
	free(n->fs);
	free(n);
}
