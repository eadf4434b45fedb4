/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the JIT perf-map loader of the symbolizer
 * (perf_map_check and perf_map_lookup in src/features/profiling/
 * symbolize_perf_map.c): the whole file a process writes to /tmp/perf-PID.map, read,
 * capped, sorted and searched, through the public API only.
 *
 * The input is the file.  A fake proc root holds one process whose only
 * executable mapping is anonymous (JIT code); a fresh symbolizer reads the
 * input as that process's perf map and resolves addresses chosen from the
 * input: each entry's first, last and one-past-last byte, and addresses
 * taken from the input's first bytes.  The loader must not crash, over-read
 * or leak, must load the file once, and any name it answers must be
 * justified: some line of the file (split by the same bounded line reader,
 * with a larger line limit so it sees a superset, parsed by the same line
 * parser) carries exactly that name and covers the address, at exactly the
 * offset answered.  The entry cap is small so that inputs reach it.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "features/profiling/symbolize.h"
#include "platform/proc_lines.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "fuzz_perf_map: check failed: %s\n", #c);                  \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define PID	    4243
#define MAX_ENTRIES 64u
/* The loader reads at most 1 KiB a line per allowed entry; longer inputs
 * would be cut inside a line, which the model below does not follow. */
#define MAX_FILE_BYTES (MAX_ENTRIES * 1024u)
#define MAX_MODEL      256u
#define MAX_QUERIES    64u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[PATH_MAX], g_proc[PATH_MAX], g_map[PATH_MAX];

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	if (g_dir[0] && snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_dir) < (int)sizeof(cmd))
		CHECK(system(cmd) == 0);
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

/* <tmp>/proc/PID/maps: one anonymous executable mapping and a pseudo one;
 * <tmp>/perf-PID.map is rewritten for every input. */
static void setup(void)
{
	char path[PATH_MAX];

	snprintf(g_dir, sizeof(g_dir), "/tmp/fuzz_perf_map.XXXXXX");
	CHECK(mkdtemp(g_dir) != NULL);
	atexit(cleanup);
	snprintf(g_proc, sizeof(g_proc), "%s/proc", g_dir);
	CHECK(mkdir(g_proc, 0755) == 0);
	snprintf(path, sizeof(path), "%s/%d", g_proc, PID);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/%d/maps", g_proc, PID);
	static const char maps[] = "100000-200000 r-xp 00000000 00:00 0 \n"
				   "7fff0000-7fff2000 r-xp 00000000 00:00 0       [vdso]\n";
	write_all(path, maps, sizeof(maps) - 1);
	snprintf(g_map, sizeof(g_map), "%s/perf-%d.map", g_dir, PID);
}

struct model {
	struct enav_perf_map_line e[MAX_MODEL];
	uint32_t n;
};

static int model_line(void *ctx, const char *line, size_t len)
{
	struct model *m = ctx;
	struct enav_perf_map_line pl;

	/* pl.name points into the reader's buffer: only lines that fit in the
	 * model are kept, as copies. */
	if (enav_perf_map_parse_line(line, len, &pl) != 0 || m->n == MAX_MODEL)
		return 0;
	char *name = malloc(pl.name_len + 1);
	CHECK(name != NULL);
	memcpy(name, pl.name, pl.name_len);
	name[pl.name_len] = '\0';
	pl.name = name;
	m->e[m->n++] = pl;
	return 0;
}

/* Some line names exactly fn and covers addr at offset off. */
static bool justified(const struct model *m, const char *fn, uint64_t addr, uint64_t off)
{
	size_t len = strlen(fn);

	for (uint32_t i = 0; i < m->n; i++) {
		const struct enav_perf_map_line *e = &m->e[i];
		if (e->name_len == len && memcmp(e->name, fn, len) == 0 && addr >= e->start &&
		    addr - e->start < e->size && addr - e->start == off)
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model m;
	uint64_t q[MAX_QUERIES];
	uint32_t nq = 0;

	if (size > MAX_FILE_BYTES)
		return 0;
	if (!g_dir[0])
		setup();
	write_all(g_map, data, size);

	/* The model: every parseable line, read with a far larger line limit
	 * than the loader's, so every line the loader keeps is in it (up to
	 * MAX_MODEL lines: the loader keeps at most MAX_ENTRIES). */
	m.n = 0;
	int fd = open(g_map, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK(enav_read_lines(fd, 1u << 20, 1u << 24, model_line, &m) == 0);
	close(fd);

	for (uint32_t i = 0; i < m.n && nq + 3 <= MAX_QUERIES / 2; i++) {
		q[nq++] = m.e[i].start;
		q[nq++] = m.e[i].start + m.e[i].size - 1;
		q[nq++] = m.e[i].start + m.e[i].size;
	}
	for (size_t i = 0; i + 8 <= size && i < 64 && nq < MAX_QUERIES; i += 8)
		memcpy(&q[nq++], data + i, 8);
	q[nq++] = 0x100000; /* the JIT mapping, whatever the input */

	struct enav_symbolizer *s = enav_symbolizer_new(&(struct enav_symbolizer_config){
	    .proc_root = g_proc,
	    .kallsyms_path = "/dev/null",
	    .perf_map_dir = g_dir,
	    .debug_dir = "",
	    .max_perf_map_entries = MAX_ENTRIES,
	});
	CHECK(s != NULL);
	for (uint32_t i = 0; i < nq; i++) {
		struct enav_frame f;
		bool found = enav_symbolizer_user(s, PID, q[i], &f);
		CHECK(f.address == q[i] && !f.kernel);
		CHECK(found == (f.function != NULL));
		if (found)
			CHECK(justified(&m, f.function, q[i], f.function_offset));
	}
	struct enav_symbolizer_stats st;
	enav_symbolizer_get_stats(s, &st);
	/* Loaded once: if the symbolizer stops reading the fake tree's perf
	 * map, this target no longer tests anything and must say so. */
	CHECK(st.perf_map_loads == 1);
	enav_symbolizer_free(s);
	for (uint32_t i = 0; i < m.n; i++)
		free((void *)m.e[i].name);
	return 0;
}
