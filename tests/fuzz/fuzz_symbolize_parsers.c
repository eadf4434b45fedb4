/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the symbolizer's line parsers (src/platform/
 * proc_lines.c).  The first byte selects what the rest is: 0 a /proc/PID/maps
 * line, 1 a /proc/kallsyms line, 2 a perf-PID.map line, 3 a whole file split
 * by the bounded line reader and fed to all three.  Each line is copied into
 * an allocation of exactly its size (not NUL-terminated, so ASan flags any
 * over-read); results must hold their invariants and parsing must be
 * deterministic.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "features/profiling/symbolize_priv.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

static bool inside(const char *p, size_t n, const char *base, size_t len)
{
	return p >= base && n <= len && (size_t)(p - base) <= len - n;
}

static bool blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\0';
}

static void check_maps(const char *line, size_t len)
{
	struct enav_maps_line a, b;
	int ra = enav_maps_parse_line(line, len, &a);

	CHECK(ra == 0 || ra == -1);
	CHECK(enav_maps_parse_line(line, len, &b) == ra);
	if (ra != 0)
		return;
	CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	CHECK(a.start < a.end);
	CHECK((a.path == NULL) == (a.path_len == 0));
	if (a.path) {
		CHECK(inside(a.path, a.path_len, line, len));
		CHECK(a.path[0] != ' ' && a.path[0] != '\t');
		if (a.deleted)
			CHECK(inside(a.path, a.path_len + 10, line, len) &&
			      memcmp(a.path + a.path_len, " (deleted)", 10) == 0);
	}
}

static void check_kallsyms(const char *line, size_t len)
{
	struct enav_kallsyms_line a, b;
	int ra = enav_kallsyms_parse_line(line, len, &a);

	CHECK(ra == 0 || ra == -1);
	CHECK(enav_kallsyms_parse_line(line, len, &b) == ra);
	if (ra != 0)
		return;
	CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	CHECK(a.name_len >= 1 && a.name_len <= ENAV_KSYM_NAME_MAX);
	CHECK(inside(a.name, a.name_len, line, len));
	for (size_t i = 0; i < a.name_len; i++)
		CHECK(!blank(a.name[i]));
	CHECK((a.module == NULL) == (a.module_len == 0));
	if (a.module) {
		CHECK(a.module_len <= ENAV_KSYM_NAME_MAX);
		CHECK(inside(a.module, a.module_len, line, len));
		CHECK(a.module > a.name + a.name_len);
		for (size_t i = 0; i < a.module_len; i++)
			CHECK(!blank(a.module[i]) && a.module[i] != '[' && a.module[i] != ']');
	}
	CHECK((a.type >= 'a' && a.type <= 'z') || (a.type >= 'A' && a.type <= 'Z'));
}

static void check_perf_map(const char *line, size_t len)
{
	struct enav_perf_map_line a, b;
	int ra = enav_perf_map_parse_line(line, len, &a);

	CHECK(ra == 0 || ra == -1);
	CHECK(enav_perf_map_parse_line(line, len, &b) == ra);
	if (ra != 0)
		return;
	CHECK(memcmp(&a, &b, sizeof(a)) == 0);
	CHECK(a.size > 0 && a.start + a.size > a.start);
	CHECK(a.name_len > 0 && inside(a.name, a.name_len, line, len));
	CHECK(a.name[0] != ' ' && a.name[0] != '\t');
	CHECK(a.name[a.name_len - 1] != ' ' && a.name[a.name_len - 1] != '\t' &&
	      a.name[a.name_len - 1] != '\r');
	CHECK(memchr(a.name, '\0', a.name_len) == NULL);
}

static void check_line(int which, const char *data, size_t len)
{
	char *copy = malloc(len ? len : 1);

	CHECK(copy != NULL);
	memcpy(copy, data, len);
	if (which == 0 || which == 3)
		check_maps(copy, len);
	if (which == 1 || which == 3)
		check_kallsyms(copy, len);
	if (which == 2 || which == 3)
		check_perf_map(copy, len);
	free(copy);
}

struct seen {
	size_t lines, bytes, max_line;
};

static int on_line(void *ctx, const char *line, size_t len)
{
	struct seen *s = ctx;

	CHECK(len <= s->max_line);
	CHECK(memchr(line, '\n', len) == NULL);
	s->lines++;
	s->bytes += len;
	check_line(3, line, len);
	return 0;
}

static int memfd = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	int which = data[0] % 4;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;

	if (which < 3) {
		check_line(which, text, len);
		return 0;
	}
	if (memfd < 0)
		memfd = memfd_create("fuzz_symbolize", MFD_CLOEXEC);
	CHECK(memfd >= 0);
	CHECK(ftruncate(memfd, 0) == 0);
	CHECK(pwrite(memfd, text, len, 0) == (ssize_t)len);
	CHECK(lseek(memfd, 0, SEEK_SET) == 0);
	/* A small line cap so long lines get skipped; a byte cap from the input. */
	struct seen s = {.max_line = 64 + (len % 64)};
	uint64_t max_bytes = len > 8 ? len - (uint64_t)(data[1] % 8) : len;
	CHECK(enav_read_lines(memfd, s.max_line, max_bytes, on_line, &s) == 0);
	CHECK(s.bytes + s.lines <= max_bytes + 1);
	return 0;
}
