/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Private to the node half of the host source (node*.c), its unit test and
 * its fuzzer.  The parsers are pure: they read exactly len bytes of buf (no
 * NUL terminator needed, nothing past len is touched), never allocate, and
 * report records through a callback or an output struct whose strings are
 * always NUL-terminated inside their arrays.
 */
#ifndef ENAV_FEATURES_NODE_NODE_PRIV_H
#define ENAV_FEATURES_NODE_NODE_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/utsname.h>

#include "platform/parse.h" /* enav_utf8_valid */
#include "platform/promtext.h"
#include "features/node/node.h"

/* ---- lexing helpers (node.c) --------------------------------------------- */

/* Next line of [*pos, end): the last line may lack its '\n'.  Returns false at end. */
bool enav_node_next_line(const char **pos, const char *end, const char **line, size_t *len);
/* Next blank-separated (space or tab) token of [*pos, end). */
bool enav_node_token(const char **pos, const char *end, const char **tok, size_t *len);
/* Decimal digits only, no sign, no overflow. */
bool enav_node_parse_u64(const char *s, size_t len, uint64_t *out);
/*
 * A non-negative decimal "12", "0.94", "3." as mant / 10^scale, exactly: at
 * most 19 significant digits are kept (later fraction digits are dropped).
 */
bool enav_node_parse_decimal(const char *s, size_t len, uint64_t *mant, unsigned *scale);
/* mant / 10^scale with a single rounding (scale <= 22). */
double enav_node_decimal_value(uint64_t mant, unsigned scale);

/* ---- /proc/stat (node_cpu.c) ---------------------------------------------- */

/* user nice system idle iowait irq softirq steal guest guest_nice */
#define ENAV_NODE_CPU_FIELDS 10

struct enav_node_cpu {
	uint32_t id; /* N of the cpuN line */
	uint32_t n;  /* fields present, 4..ENAV_NODE_CPU_FIELDS */
	uint64_t v[ENAV_NODE_CPU_FIELDS];
};

enum {
	ENAV_NODE_STAT_CTXT = 1u << 0,
	ENAV_NODE_STAT_BTIME = 1u << 1,
	ENAV_NODE_STAT_FORKS = 1u << 2,
	ENAV_NODE_STAT_INTR = 1u << 3,
	ENAV_NODE_STAT_RUNNING = 1u << 4,
	ENAV_NODE_STAT_BLOCKED = 1u << 5,
};

struct enav_node_stat {
	uint32_t have; /* ENAV_NODE_STAT_* bits */
	uint64_t ctxt, btime, forks, intr, running, blocked;
};

typedef void (*enav_node_cpu_cb)(void *ctx, const struct enav_node_cpu *cpu);
/* Per-CPU lines go to cb (the aggregate "cpu" line is skipped); st is reset first. */
void enav_node_parse_stat(const char *buf, size_t len, struct enav_node_stat *st,
			  enav_node_cpu_cb cb, void *ctx);

/* ---- /proc/loadavg (node_cpu.c) ------------------------------------------- */

bool enav_node_parse_loadavg(const char *buf, size_t len, double load[3]);

/* ---- /proc/meminfo, /proc/pressure/{cpu,memory,io}, file-nr (node_mem.c) ----------------- */

#define ENAV_NODE_MEM_NAME 64
#define ENAV_NODE_MEM_MAX  256 /* fields kept per scrape (kernels have ~60) */

struct enav_node_mem_field {
	char name[ENAV_NODE_MEM_NAME]; /* transformed: "Active(anon)" -> "Active_anon" */
	bool kb;		       /* had a "kB" unit: value is in KiB */
	uint64_t value;
};

typedef void (*enav_node_mem_cb)(void *ctx, const struct enav_node_mem_field *f);
void enav_node_parse_meminfo(const char *buf, size_t len, enav_node_mem_cb cb, void *ctx);

struct enav_node_psi_line {
	bool present;
	uint64_t avg_mant[3]; /* avg10, avg60, avg300 in percent: mant / 10^scale */
	unsigned avg_scale[3];
	uint64_t total_us;
};

struct enav_node_psi {
	struct enav_node_psi_line some, full;
};

/* true when at least one complete "some" or "full" line was found. */
bool enav_node_parse_psi(const char *buf, size_t len, struct enav_node_psi *out);

struct enav_node_filenr {
	uint64_t allocated, unused, maximum;
};
bool enav_node_parse_filenr(const char *buf, size_t len, struct enav_node_filenr *out);

/* ---- /proc/diskstats (node_disk.c) ---------------------------------------- */

#define ENAV_NODE_DEV_NAME    64
#define ENAV_NODE_DISK_FIELDS 17 /* 11 classic, +4 discard (4.18), +2 flush (5.5) */

struct enav_node_disk {
	char name[ENAV_NODE_DEV_NAME];
	uint32_t major, minor;
	uint32_t n; /* statistics present: 11..ENAV_NODE_DISK_FIELDS */
	uint64_t v[ENAV_NODE_DISK_FIELDS];
};

typedef void (*enav_node_disk_cb)(void *ctx, const struct enav_node_disk *d);
void enav_node_parse_diskstats(const char *buf, size_t len, enav_node_disk_cb cb, void *ctx);
bool enav_node_disk_excluded(const char *name);

/* ---- /proc/net/dev (node_net.c) ------------------------------------------- */

#define ENAV_NODE_NET_FIELDS 16

struct enav_node_netdev {
	char name[ENAV_NODE_DEV_NAME];
	uint64_t v[ENAV_NODE_NET_FIELDS];
};

typedef void (*enav_node_netdev_cb)(void *ctx, const struct enav_node_netdev *d);
void enav_node_parse_netdev(const char *buf, size_t len, enav_node_netdev_cb cb, void *ctx);
bool enav_node_netdev_excluded(const char *name);

/* ---- mounts (node_fs.c) --------------------------------------------------- */

#define ENAV_NODE_MNT_PATH   4096
#define ENAV_NODE_MNT_FSTYPE 128

struct enav_node_mount {
	char device[ENAV_NODE_MNT_PATH]; /* octal escapes decoded */
	char mountpoint[ENAV_NODE_MNT_PATH];
	char fstype[ENAV_NODE_MNT_FSTYPE];
	bool readonly; /* "ro" among the mount options */
};

/* scratch is filled and passed to cb once per well-formed line. */
typedef void (*enav_node_mount_cb)(void *ctx, const struct enav_node_mount *m);
void enav_node_parse_mounts(const char *buf, size_t len, struct enav_node_mount *scratch,
			    enav_node_mount_cb cb, void *ctx);
/* Decode \ooo escapes of a mounts field into out (cap bytes); false if it does not fit. */
bool enav_node_mount_unescape(const char *s, size_t len, char *out, size_t cap);
bool enav_node_fs_excluded(const char *fstype, const char *mountpoint);
bool enav_node_fs_remote(const char *fstype);

/* ---- os-release (node_misc.c) --------------------------------------------- */

enum enav_node_os_key {
	ENAV_NODE_OS_BUILD_ID,
	ENAV_NODE_OS_ID,
	ENAV_NODE_OS_ID_LIKE,
	ENAV_NODE_OS_IMAGE_ID,
	ENAV_NODE_OS_IMAGE_VERSION,
	ENAV_NODE_OS_NAME,
	ENAV_NODE_OS_PRETTY_NAME,
	ENAV_NODE_OS_VARIANT,
	ENAV_NODE_OS_VARIANT_ID,
	ENAV_NODE_OS_VERSION,
	ENAV_NODE_OS_VERSION_CODENAME,
	ENAV_NODE_OS_VERSION_ID,
	ENAV_NODE_OS_NKEYS
};

#define ENAV_NODE_OS_VALUE 256

struct enav_node_os {
	char v[ENAV_NODE_OS_NKEYS][ENAV_NODE_OS_VALUE];
};

/* Fills out (keys absent stay ""); true when at least one known key was set. */
bool enav_node_parse_os_release(const char *buf, size_t len, struct enav_node_os *out);
/* node_os_version's value: the leading "major[.minor]" of VERSION_ID, 0 without one. */
double enav_node_os_version_number(const char *version_id);

/* ---- the collector --------------------------------------------------------- */

/* Test seams: NULL members use the real system call. */
struct enav_node_hooks {
	int (*statvfs_fn)(const char *path, struct statvfs *st);
	double (*now_fn)(void);
	int (*uname_fn)(struct utsname *u);
	ssize_t (*pread_fn)(int fd, void *buf, size_t count, off_t off);
	long clk_tck; /* 0: sysconf(_SC_CLK_TCK) */
};

/*
 * enav_node_open with an explicit root for /etc and /usr/lib (NULL:
 * "/" when proc_root is "/proc", else proc_root's parent directory) and test
 * seams (NULL: none).
 */
struct enav_node *enav_node_open_ex(const char *proc_root, const char *sys_root, const char *root,
				    uint32_t max_devices, const struct enav_node_hooks *hooks,
				    char *err, size_t errlen);

/* ---- collector state (node.c), shared by the node_*.c renderers ------------ */

enum enav_node_file {
	ENAV_NODE_F_STAT,
	ENAV_NODE_F_LOADAVG,
	ENAV_NODE_F_MEMINFO,
	ENAV_NODE_F_PSI_CPU,
	ENAV_NODE_F_PSI_MEMORY,
	ENAV_NODE_F_PSI_IO,
	ENAV_NODE_F_DISKSTATS,
	ENAV_NODE_F_NETDEV,
	ENAV_NODE_F_MOUNTS,
	ENAV_NODE_F_FILENR,
	ENAV_NODE_F_OS_RELEASE, /* read once at open, never held */
	ENAV_NODE_NFILES
};

enum enav_node_kind {
	ENAV_NODE_K_CPU,
	ENAV_NODE_K_DISK,
	ENAV_NODE_K_NETDEV,
	ENAV_NODE_K_FILESYSTEM,
	ENAV_NODE_NKINDS
};

enum enav_node_collector {
	ENAV_NODE_C_STAT,
	ENAV_NODE_C_LOADAVG,
	ENAV_NODE_C_MEMINFO,
	ENAV_NODE_C_PRESSURE,
	ENAV_NODE_C_DISKSTATS,
	ENAV_NODE_C_NETDEV,
	ENAV_NODE_C_FILESYSTEM,
	ENAV_NODE_C_FILEFD,
	ENAV_NODE_C_OS,
	ENAV_NODE_NCOLLECTORS
};

struct enav_node_mem_metric {
	char name[ENAV_NODE_MEM_NAME + 24]; /* node_memory_<Field>[_bytes] */
	bool kb;
	uint64_t value;
};

struct enav_node_fs {
	const char *device, *fstype, *mountpoint; /* in the arena */
	uint64_t hash;
	bool readonly, error;
	struct statvfs st;
};

struct enav_node {
	char proc_root[4096];
	char root[4096];
	uint32_t max_devices;
	struct enav_node_hooks hooks;
	long clk_tck;

	int fd[ENAV_NODE_NFILES];
	bool absent[ENAV_NODE_NFILES]; /* PSI file missing: a kernel without PSI */
	uint64_t read_errors[ENAV_NODE_NFILES];
	uint64_t dropped[ENAV_NODE_NKINDS];
	bool available[ENAV_NODE_NCOLLECTORS]; /* this scrape */

	char *buf; /* the one read buffer, grown up to ENAV_NODE_BUF_MAX and kept */
	size_t buf_cap;
	char *arena; /* filesystem label strings of this scrape */
	size_t arena_cap, arena_len;

	struct enav_node_stat stat;
	struct enav_node_cpu *cpus; /* max_devices each */
	uint32_t n_cpus;
	uint32_t max_cpu_id; /* of cpus[0..n_cpus) */
	struct enav_node_mem_metric mem[ENAV_NODE_MEM_MAX];
	uint32_t n_mem;
	struct enav_node_disk *disks;
	uint32_t n_disks;
	struct enav_node_netdev *nets;
	uint32_t n_nets;
	struct enav_node_fs *fs;
	uint32_t n_fs;
	struct enav_node_mount mnt; /* parser scratch */

	bool os_ok;
	struct enav_node_os os;
};

#define ENAV_NODE_BUF_INIT (64u * 1024)
#define ENAV_NODE_BUF_MAX  (4u * 1024 * 1024)

/*
 * Read file f whole into n->buf with one pread at offset 0 (more only while
 * the buffer grows).  Returns the length, or -1: counted in read_errors
 * unless the file is a PSI file that is absent or EOPNOTSUPP.
 */
ssize_t enav_node_read(struct enav_node *n, enum enav_node_file f);
void enav_node_count_error(struct enav_node *n, enum enav_node_file f);

/*
 * One sample whose value is a * b: exact as an integer when the product fits
 * in 64 bits, else as a double.
 */
void enav_node_sample_product(struct enav_promtext *p, const char *name, const char *const *labels,
			      size_t n_pairs, uint64_t a, uint64_t b);

void enav_node_render_stat(struct enav_node *n, struct enav_promtext *p);
void enav_node_render_loadavg(struct enav_node *n, struct enav_promtext *p);
void enav_node_render_meminfo(struct enav_node *n, struct enav_promtext *p);
void enav_node_render_pressure(struct enav_node *n, struct enav_promtext *p);
void enav_node_render_filefd(struct enav_node *n, struct enav_promtext *p);
void enav_node_render_diskstats(struct enav_node *n, struct enav_promtext *p);
void enav_node_render_netdev(struct enav_node *n, struct enav_promtext *p);
void enav_node_render_filesystem(struct enav_node *n, struct enav_promtext *p);
void enav_node_read_os_release(struct enav_node *n);
void enav_node_render_misc(struct enav_node *n, struct enav_promtext *p);

#endif
