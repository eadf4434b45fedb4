/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Bounded parsers for the line formats of /proc/PID/maps, /proc/kallsyms and
 * perf maps (/tmp/perf-PID.map), and a bounded line reader.  The profiler's
 * symbolizer and the TLS prober both read them.
 */
#ifndef ENAV_PLATFORM_PROC_LINES_H
#define ENAV_PLATFORM_PROC_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "start-end perms offset major:minor inode [path]" */
struct enav_maps_line {
	uint64_t start, end, offset, inode;
	uint32_t dev_major, dev_minor;
	bool read, write, exec, shared;
	const char *path; /* into the line; NULL when the mapping has no path */
	size_t path_len;  /* without the " (deleted)" suffix */
	bool deleted;	  /* the path ended in " (deleted)" */
};
int enav_maps_parse_line(const char *line, size_t len, struct enav_maps_line *out);

/* "address type name[\t[module]]" */
#define ENAV_KSYM_NAME_MAX 1024
struct enav_kallsyms_line {
	uint64_t addr;
	char type;
	const char *name; /* 1..ENAV_KSYM_NAME_MAX bytes, no whitespace */
	size_t name_len;
	const char *module; /* NULL for the core kernel */
	size_t module_len;
};
int enav_kallsyms_parse_line(const char *line, size_t len, struct enav_kallsyms_line *out);
/* t/T/w/W */
bool enav_kallsyms_is_text(char type);

/* "START SIZE name": hex with or without 0x, name is the rest of the line
 * (spaces allowed, trailing whitespace dropped, never empty).  size > 0 and
 * start + size does not overflow. */
struct enav_perf_map_line {
	uint64_t start, size;
	const char *name;
	size_t name_len;
};
int enav_perf_map_parse_line(const char *line, size_t len, struct enav_perf_map_line *out);

/* Calls fn(ctx, line, len) for every line of fd (without its '\n'), reading
 * at most max_bytes; lines longer than max_line are skipped whole.  fn
 * returns nonzero to stop.  0, or -errno on a read error. */
typedef int (*enav_line_fn)(void *ctx, const char *line, size_t len);
int enav_read_lines(int fd, size_t max_line, uint64_t max_bytes, enav_line_fn fn, void *ctx);

#endif
