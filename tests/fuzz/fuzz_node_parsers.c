/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the node procfs parsers (src/features/node/node*.c).
 * The same bytes (exactly size bytes in their own allocation, not
 * NUL-terminated, so ASan flags any over-read) are parsed as /proc/stat,
 * loadavg, meminfo, a PSI file, diskstats, net/dev, mounts, file-nr and
 * os-release; every record must hold its invariants and parsing must be
 * deterministic.  Then a whole node render is run with every procfs read
 * answered by the same bytes: families must stay unique and contiguous and
 * no series may repeat, whatever the input.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "features/node/node_priv.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static size_t bounded_len(const char *s, size_t cap)
{
	const char *nul = memchr(s, '\0', cap);

	CHECK(nul != NULL);
	return (size_t)(nul - s);
}

/* ---- per-parser invariants ----------------------------------------------------- */

static uint64_t hash_acc;

static void mix(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		hash_acc = (hash_acc ^ b[i]) * 0x100000001b3ull;
}

static void on_cpu(void *ctx, const struct enav_node_cpu *c)
{
	(void)ctx;
	CHECK(c->n >= 4 && c->n <= ENAV_NODE_CPU_FIELDS);
	mix(&c->id, sizeof(c->id));
	mix(c->v, c->n * sizeof(c->v[0]));
}

static void on_mem(void *ctx, const struct enav_node_mem_field *f)
{
	size_t n = bounded_len(f->name, sizeof(f->name));

	(void)ctx;
	CHECK(n > 0);
	for (size_t i = 0; i < n; i++) {
		char c = f->name[i];

		CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_');
	}
	mix(f->name, n);
	mix(&f->value, sizeof(f->value));
}

static void on_disk(void *ctx, const struct enav_node_disk *d)
{
	size_t n = bounded_len(d->name, sizeof(d->name));

	(void)ctx;
	CHECK(n > 0);
	CHECK(!memchr(d->name, ' ', n) && !memchr(d->name, '\t', n) && !memchr(d->name, '\n', n));
	CHECK(d->n == 11 || d->n == 15 || d->n == 17);
	(void)enav_node_disk_excluded(d->name);
	mix(d->name, n);
	mix(d->v, d->n * sizeof(d->v[0]));
}

static void on_net(void *ctx, const struct enav_node_netdev *d)
{
	size_t n = bounded_len(d->name, sizeof(d->name));

	(void)ctx;
	CHECK(n > 0);
	CHECK(d->name[0] != ' ' && d->name[0] != '\t' && d->name[n - 1] != ' ' &&
	      d->name[n - 1] != '\t' && !memchr(d->name, '\n', n));
	(void)enav_node_netdev_excluded(d->name);
	mix(d->name, n);
	mix(d->v, sizeof(d->v));
}

static void on_mount(void *ctx, const struct enav_node_mount *m)
{
	size_t dl = bounded_len(m->device, sizeof(m->device));
	size_t ml = bounded_len(m->mountpoint, sizeof(m->mountpoint));
	size_t fl = bounded_len(m->fstype, sizeof(m->fstype));

	(void)ctx;
	(void)enav_node_fs_excluded(m->fstype, m->mountpoint);
	(void)enav_node_fs_remote(m->fstype);
	(void)enav_utf8_valid(m->mountpoint);
	mix(m->device, dl);
	mix(m->mountpoint, ml);
	mix(m->fstype, fl);
	mix(&m->readonly, 1);
}

static uint64_t parse_all(const char *d, size_t n)
{
	static struct enav_node_mount scratch;
	static struct enav_node_os os;
	struct enav_node_stat st;
	struct enav_node_psi psi;
	struct enav_node_filenr fnr;
	double load[3];
	uint64_t v, m;
	unsigned sc;

	hash_acc = 0xcbf29ce484222325ull;
	enav_node_parse_stat(d, n, &st, on_cpu, NULL);
	CHECK((st.have & ~0x3fu) == 0);
	mix(&st, sizeof(st));
	if (enav_node_parse_loadavg(d, n, load)) {
		for (int i = 0; i < 3; i++)
			CHECK(load[i] >= 0 && load[i] < 1e20);
		mix(load, sizeof(load));
	}
	enav_node_parse_meminfo(d, n, on_mem, NULL);
	if (enav_node_parse_psi(d, n, &psi)) {
		CHECK(psi.some.present || psi.full.present);
		for (int i = 0; i < 3; i++)
			CHECK(psi.some.avg_scale[i] <= 20 && psi.full.avg_scale[i] <= 20);
		mix(&psi, sizeof(psi));
	}
	enav_node_parse_diskstats(d, n, on_disk, NULL);
	enav_node_parse_netdev(d, n, on_net, NULL);
	enav_node_parse_mounts(d, n, &scratch, on_mount, NULL);
	if (enav_node_parse_filenr(d, n, &fnr))
		mix(&fnr, sizeof(fnr));
	(void)enav_node_parse_os_release(d, n, &os);
	for (int i = 0; i < ENAV_NODE_OS_NKEYS; i++) {
		size_t l = bounded_len(os.v[i], sizeof(os.v[i]));

		mix(os.v[i], l);
	}
	double ver = enav_node_os_version_number(os.v[ENAV_NODE_OS_VERSION_ID]);

	CHECK(ver >= 0 && ver < 1e20);
	if (enav_node_parse_u64(d, n, &v))
		mix(&v, sizeof(v));
	if (enav_node_parse_decimal(d, n, &m, &sc)) {
		CHECK(sc <= 22);
		CHECK(enav_node_decimal_value(m, sc) >= 0);
	}
	char small[16];

	if (enav_node_mount_unescape(d, n, small, sizeof(small)))
		CHECK(bounded_len(small, sizeof(small)) <= n);
	return hash_acc;
}

/* ---- a whole render over the same bytes ---------------------------------------- */

static const uint8_t *cur_data;
static size_t cur_size;

static ssize_t fuzz_pread(int fd, void *buf, size_t count, off_t off)
{
	size_t n = cur_size < count ? cur_size : count;

	(void)fd;
	(void)off;
	memcpy(buf, cur_data, n);
	return (ssize_t)n;
}

static int fuzz_statvfs(const char *path, struct statvfs *st)
{
	memset(st, 0, sizeof(*st));
	if (path[0] && path[1] == 'x')
		return -1; /* some filesystems fail */
	st->f_frsize = 4096;
	st->f_blocks = UINT64_MAX / 1024; /* products overflow 64 bits */
	st->f_bfree = 7;
	return 0;
}

static double fuzz_now(void)
{
	return 1.5;
}

static int fuzz_uname(struct utsname *u)
{
	memset(u, 0, sizeof(*u));
	strcpy(u->sysname, "Linux");
	return 0;
}

static struct enav_node *node;
static char tree[64];

static void put_file(const char *rel)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	f = fopen(path, "w");
	CHECK(f != NULL);
	fclose(f);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char *const dirs[] = {"proc",	"proc/pressure", "proc/net",
					   "proc/self", "proc/sys",	 "proc/sys/fs"};
	static const char *const files[] = {
	    "proc/stat",	  "proc/loadavg",	  "proc/meminfo",
	    "proc/pressure/cpu",  "proc/pressure/memory", "proc/pressure/io",
	    "proc/diskstats",	  "proc/net/dev",	  "proc/self/mounts",
	    "proc/sys/fs/file-nr"};
	static const struct enav_node_hooks hooks = {
	    .statvfs_fn = fuzz_statvfs,
	    .now_fn = fuzz_now,
	    .uname_fn = fuzz_uname,
	    .pread_fn = fuzz_pread,
	    .clk_tck = 100,
	};
	char path[128], err[256];

	(void)argc;
	(void)argv;
	strcpy(tree, "/tmp/enav_fuzz_host_XXXXXX");
	CHECK(mkdtemp(tree) != NULL);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tree, dirs[i]);
		CHECK(mkdir(path, 0755) == 0);
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		put_file(files[i]);
	snprintf(path, sizeof(path), "%s/proc", tree);
	node = enav_node_open_ex(path, "/sys", tree, 8, &hooks, err, sizeof(err));
	CHECK(node != NULL);
	/* The fds stay open: the tree can go now. */
	for (size_t i = sizeof(files) / sizeof(files[0]); i-- > 0;) {
		snprintf(path, sizeof(path), "%s/%s", tree, files[i]);
		unlink(path);
	}
	for (size_t i = sizeof(dirs) / sizeof(dirs[0]); i-- > 0;) {
		snprintf(path, sizeof(path), "%s/%s", tree, dirs[i]);
		rmdir(path);
	}
	rmdir(tree);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void check_render(const char *text, size_t len)
{
	enum { MAXL = 1 << 14 };
	static char copy[1 << 21];
	static char *fams[MAXL], *series[MAXL];
	size_t nf = 0, ns = 0;
	const char *family = NULL;

	CHECK(len < sizeof(copy));
	memcpy(copy, text, len + 1);
	for (char *p = copy, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		CHECK(nl != NULL);
		*nl = '\0';
		if (strncmp(p, "# HELP ", 7) == 0) {
			char *name = p + 7;

			name[strcspn(name, " ")] = '\0';
			CHECK(nf < MAXL);
			fams[nf++] = name;
			family = name;
			continue;
		}
		if (p[0] == '#')
			continue;
		size_t nl_name = strcspn(p, "{ ");

		CHECK(family && strlen(family) == nl_name && memcmp(p, family, nl_name) == 0);
		char *val = strrchr(p, ' ');

		CHECK(val != NULL);
		*val = '\0';
		CHECK(ns < MAXL);
		series[ns++] = p;
	}
	qsort(fams, nf, sizeof(fams[0]), cmp_str);
	for (size_t i = 1; i < nf; i++)
		CHECK(strcmp(fams[i - 1], fams[i]) != 0);
	qsort(series, ns, sizeof(series[0]), cmp_str);
	for (size_t i = 1; i < ns; i++)
		CHECK(strcmp(series[i - 1], series[i]) != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[1 << 21];
	char *d = malloc(size ? size : 1);

	CHECK(d != NULL);
	memcpy(d, data, size);
	uint64_t a = parse_all(d, size);
	uint64_t b = parse_all(d, size);

	CHECK(a == b);

	struct enav_promtext p;

	cur_data = (const uint8_t *)d;
	cur_size = size;
	enav_promtext_init(&p, out, sizeof(out));
	enav_node_render(node, &p);
	CHECK(!p.overflow);
	CHECK(enav_utf8_valid(out));
	check_render(out, p.len);
	free(d);
	return 0;
}
