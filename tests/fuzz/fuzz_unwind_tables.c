/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the unwind rows builder (src/features/profiling/
 * unwind_tables.c) driven by a binary a tenant maps, through its public API:
 * a process's executable mappings are read from /proc/PID/maps, the mapped
 * file is opened and parsed (.eh_frame and .gopclntab, merged), encoded
 * into kernel rows, placed in the shared rows array, and each mapping gets
 * its load bias from the file's program headers.
 *
 * The input: the first 8 bytes, when there are that many, place a second
 * mapping of the file (bytes 0-3: its file offset in pages, modulo 256;
 * bytes 4-7: its length in pages, modulo 4096, plus one); the rest is the
 * file.  A fake proc root holds one process mapping that file three times
 * (the first page, the placed mapping, and a copy above 4 GiB), plus a
 * [vdso] line; the file is reachable both as map_files/START-END and as
 * root/bin/prog, with the device and inode the maps lines name.
 *
 * One set of tables serves the whole run.  For each input the process is
 * added, added again as a new exec image (the binary then comes from the
 * cache), asked about, then gone and the tables refreshed: they must be
 * back as before the input (rows, bytes, binaries and processes in use,
 * read from their metrics: only the vDSO's), so an input leaves nothing
 * behind and a finding reproduces alone.  Nothing may crash, over-read or
 * leak; every call answers 0 or a negative errno.  When the kernel map can be created (root,
 * CAP_BPF), the entry written for the process is checked too: at most the
 * mapping cap, sorted and non-overlapping, every table inside the rows
 * array, and the rows of each table strictly increasing in pc with kinds
 * the kernel walk knows and zero padding.  Without it, the map update fails
 * and is counted, which the target also covers.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "features/profiling/unwind_tables.h"
#include "platform/log.h"
#include "platform/promtext.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "fuzz_unwind_tables: check failed: %s\n", #c);             \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define PID	     4244
#define MAX_ROWS     4096u
#define MAX_BIN_ROWS 1024u
#define MAP1_START   UINT64_C(0x400000)
#define MAP2_START   UINT64_C(0x10000000)
#define MAP3_START   UINT64_C(0x7f0000000000)
#define VDSO_START   UINT64_C(0x7ffff7fc0000)
#define MAX_FILE     (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[PATH_MAX], g_proc[PATH_MAX];
static int g_procs_fd = -1;
static struct enav_unwind_entry *g_rows;
static struct enav_unwind_tables *g_t;
static uint64_t g_base[4]; /* the gauges with only the vDSO loaded */

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	enav_unwind_tables_free(g_t);
	if (g_procs_fd >= 0)
		close(g_procs_fd);
	free(g_rows);
	if (g_dir[0] && snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir) < (int)sizeof(cmd))
		CHECK(system(cmd) == 0);
}

static void mkdir_at(const char *fmt, const char *a)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), fmt, a, PID);
	CHECK(mkdir(path, 0755) == 0);
}

/* The gauges of the tables (rows, bytes, binaries, processes), from their
 * metrics, which are written on the way. */
static void gauges(uint64_t out[4])
{
	static const char *const names[4] = {
	    "\nenav_profile_unwind_table_rows ", "\nenav_profile_unwind_table_bytes ",
	    "\nenav_profile_unwind_binaries ", "\nenav_profile_unwind_processes "};
	static char text[16384];
	struct enav_promtext p;

	text[0] = '\n';
	enav_promtext_init(&p, text + 1, sizeof(text) - 1);
	enav_unwind_tables_metrics(g_t, &p);
	CHECK(!p.overflow && p.len < sizeof(text) - 1);
	text[p.len + 1] = '\0';
	for (int i = 0; i < 4; i++) {
		const char *at = strstr(text, names[i]);
		CHECK(at != NULL);
		out[i] = strtoull(at + strlen(names[i]), NULL, 10);
	}
}

static void setup(void)
{
	snprintf(g_dir, sizeof(g_dir), "/tmp/fuzz_unwind_tables.XXXXXX");
	CHECK(mkdtemp(g_dir) != NULL);
	atexit(cleanup);
	enav_log_set_level(ENAV_LOG_ERROR); /* a refusal per input is logged at info */
	snprintf(g_proc, sizeof(g_proc), "%s/proc", g_dir);
	CHECK(mkdir(g_proc, 0755) == 0);
	mkdir_at("%s/%d", g_proc);
	mkdir_at("%s/%d/map_files", g_proc);
	mkdir_at("%s/%d/root", g_proc);
	mkdir_at("%s/%d/root/bin", g_proc);
	g_rows = calloc(MAX_ROWS, sizeof(*g_rows));
	CHECK(g_rows != NULL);
	/* The kernel's map when we may create one; else every update fails. */
	g_procs_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "fuzz_unwind", sizeof(uint64_t),
				    sizeof(struct enav_unwind_proc), 4, NULL);
	/* One set of tables for the whole run (making one reads our own maps
	 * for the vDSO, which is most of the time of an input): each input
	 * must leave it as it found it, which is checked. */
	g_t = enav_unwind_tables_new(
	    &(struct enav_unwind_tables_config){.proc_root = g_proc,
						.max_rows = MAX_ROWS,
						.max_binary_rows = MAX_BIN_ROWS,
						.max_processes = 2,
						.max_binaries = 3},
	    g_rows, g_procs_fd);
	CHECK(g_t != NULL);
	gauges(g_base);
	CHECK(g_base[0] <= MAX_ROWS && g_base[2] <= 1 && g_base[3] == 0);
}

static void write_all(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	for (size_t done = 0; done < len;) {
		ssize_t w = write(fd, (const char *)buf + done, len - done);
		CHECK(w > 0);
		done += (size_t)w;
	}
	CHECK(close(fd) == 0);
}

/* map_files/START-END: a second name of the file (a hard link). */
static void map_file(const char *prog, uint64_t start, uint64_t end)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%d/map_files/%" PRIx64 "-%" PRIx64, g_proc, PID, start,
		 end);
	unlink(path);
	CHECK(link(prog, path) == 0);
}

/* The entry the tables wrote for (PID, gen), checked against the rows. */
static void check_entry(uint16_t gen)
{
	uint64_t key = (uint64_t)gen << 32 | PID;
	struct enav_unwind_proc e;

	if (g_procs_fd < 0 || bpf_map_lookup_elem(g_procs_fd, &key, &e) != 0)
		return;
	CHECK(e.n <= ENAV_UNWIND_MAX_MAPPINGS && e.flags == 0);
	for (uint32_t i = 0; i < e.n; i++) {
		const struct enav_unwind_mapping *m = &e.m[i];
		CHECK(m->start < m->end);
		CHECK(i == 0 || e.m[i - 1].end <= m->start);
		CHECK(m->count <= MAX_BIN_ROWS && m->first <= MAX_ROWS &&
		      m->count <= MAX_ROWS - m->first);
		for (uint32_t k = m->first; k < m->first + m->count; k++) {
			const struct enav_unwind_entry *r = &g_rows[k];
			CHECK(k == m->first || g_rows[k - 1].pc < r->pc);
			CHECK((r->cfa >> ENAV_UNWIND_KIND_SHIFT) <= ENAV_UNWIND_END && r->pad == 0);
		}
	}
	CHECK(bpf_map_delete_elem(g_procs_fd, &key) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t off_pages = 0, len_pages = 1;
	char prog[PATH_MAX], path[PATH_MAX], maps[1024];
	struct stat st;

	if (size >= 8) {
		memcpy(&off_pages, data, 4);
		memcpy(&len_pages, data + 4, 4);
		off_pages %= 256;
		len_pages = len_pages % 4096 + 1;
		data += 8;
		size -= 8;
	}
	if (size > MAX_FILE)
		return 0;
	if (!g_dir[0])
		setup();

	snprintf(prog, sizeof(prog), "%s/%d/root/bin/prog", g_proc, PID);
	unlink(prog); /* a new inode each time: nothing cached across inputs */
	write_all(prog, data, size);
	CHECK(stat(prog, &st) == 0);
	uint64_t map2_end = MAP2_START + ((uint64_t)len_pages << 12);
	map_file(prog, MAP1_START, MAP1_START + 0x1000);
	map_file(prog, MAP2_START, map2_end);
	map_file(prog, MAP3_START, MAP3_START + 0x2000);
	unsigned maj = major(st.st_dev), min = minor(st.st_dev);
	uint64_t ino = (uint64_t)st.st_ino;
	int n =
	    snprintf(maps, sizeof(maps),
		     "%" PRIx64 "-%" PRIx64 " r-xp 00000000 %02x:%02x %" PRIu64 " /bin/prog\n"
		     "%" PRIx64 "-%" PRIx64 " r-xp %08" PRIx64 " %02x:%02x %" PRIu64 " /bin/prog\n"
		     "%" PRIx64 "-%" PRIx64 " r-xp 00000000 %02x:%02x %" PRIu64 " /bin/prog\n"
		     "%" PRIx64 "-%" PRIx64 " r-xp 00000000 00:00 0 [vdso]\n",
		     MAP1_START, MAP1_START + 0x1000, maj, min, ino, MAP2_START, map2_end,
		     (uint64_t)off_pages << 12, maj, min, ino, MAP3_START, MAP3_START + 0x2000, maj,
		     min, ino, VDSO_START, VDSO_START + 0x2000);
	CHECK(n > 0 && (size_t)n < sizeof(maps));
	snprintf(path, sizeof(path), "%s/%d/maps", g_proc, PID);
	write_all(path, maps, (size_t)n);

	struct enav_unwind_tables *t = g_t;
	int rc = enav_unwind_tables_add(t, PID, 1);
	CHECK(rc <= 0);
	if (rc == 0)
		check_entry(1);
	/* A new image of the same process: the binary comes from the cache. */
	rc = enav_unwind_tables_add(t, PID, 2);
	CHECK(rc <= 0);
	if (rc == 0) {
		check_entry(2);
		(void)enav_unwind_tables_has(t, PID);
	}
	/* The process is gone: its binary is released, its rows returned, and
	 * the tables are as before the input (only the vDSO loaded). */
	unlink(path);
	enav_unwind_tables_refresh(t);
	CHECK(!enav_unwind_tables_has(t, PID));
	uint64_t now[4];
	gauges(now);
	CHECK(memcmp(now, g_base, sizeof(now)) == 0);
	return 0;
}
