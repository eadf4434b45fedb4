/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Line parsers of the symbolizer: /proc/PID/maps, /proc/kallsyms and JIT
 * perf maps (/tmp/perf-PID.map), plus a bounded line reader.  All input is
 * untrusted text of exactly len bytes; nothing here reads past it.
 */
#include "platform/proc_lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "platform/parse.h"

static size_t chomp(const char *line, size_t len)
{
	if (len > 0 && line[len - 1] == '\n')
		len--;
	return len;
}

/* 1..16 hex digits at *pos, stopping at the first non-digit. */
static bool take_hex(const char *s, size_t len, size_t *pos, uint64_t *out)
{
	size_t i = *pos;
	uint64_t v = 0;
	unsigned n = 0;

	while (i < len && enav_hex_digit(s[i]) >= 0) {
		if (++n > 16)
			return false;
		v = v << 4 | (uint64_t)enav_hex_digit(s[i]);
		i++;
	}
	if (n == 0)
		return false;
	*pos = i;
	*out = v;
	return true;
}

static bool take_char(const char *s, size_t len, size_t *pos, char c)
{
	if (*pos >= len || s[*pos] != c)
		return false;
	(*pos)++;
	return true;
}

static void skip_blanks(const char *s, size_t len, size_t *pos)
{
	while (*pos < len && (s[*pos] == ' ' || s[*pos] == '\t'))
		(*pos)++;
}

/* ---- /proc/PID/maps ---------------------------------------------------------- */

int enav_maps_parse_line(const char *line, size_t len, struct enav_maps_line *out)
{
	static const char deleted[] = " (deleted)";
	const size_t dlen = sizeof(deleted) - 1;
	uint64_t major, minor;
	size_t p = 0;

	len = chomp(line, len);
	*out = (struct enav_maps_line){0};
	if (!take_hex(line, len, &p, &out->start) || !take_char(line, len, &p, '-') ||
	    !take_hex(line, len, &p, &out->end) || !take_char(line, len, &p, ' '))
		return -1;
	if (out->start >= out->end || len - p < 5)
		return -1;
	if ((line[p] != 'r' && line[p] != '-') || (line[p + 1] != 'w' && line[p + 1] != '-') ||
	    (line[p + 2] != 'x' && line[p + 2] != '-') ||
	    (line[p + 3] != 's' && line[p + 3] != 'p') || line[p + 4] != ' ')
		return -1;
	out->read = line[p] == 'r';
	out->write = line[p + 1] == 'w';
	out->exec = line[p + 2] == 'x';
	out->shared = line[p + 3] == 's';
	p += 5;
	if (!take_hex(line, len, &p, &out->offset) || !take_char(line, len, &p, ' ') ||
	    !take_hex(line, len, &p, &major) || !take_char(line, len, &p, ':') ||
	    !take_hex(line, len, &p, &minor) || !take_char(line, len, &p, ' '))
		return -1;
	if (major > UINT32_MAX || minor > UINT32_MAX)
		return -1;
	out->dev_major = (uint32_t)major;
	out->dev_minor = (uint32_t)minor;
	size_t q = p;
	while (q < len && line[q] >= '0' && line[q] <= '9')
		q++;
	if (!enav_parse_u64_dec(line + p, q - p, &out->inode))
		return -1;
	p = q;
	if (p == len)
		return 0;
	if (line[p] != ' ' && line[p] != '\t')
		return -1;
	skip_blanks(line, len, &p);
	if (p == len)
		return 0;
	/* The path is the rest of the line: it may contain spaces. */
	out->path = line + p;
	out->path_len = len - p;
	if (out->path_len > dlen && memcmp(out->path + out->path_len - dlen, deleted, dlen) == 0) {
		out->path_len -= dlen;
		out->deleted = true;
	}
	return 0;
}

/* ---- /proc/kallsyms ---------------------------------------------------------- */

bool enav_kallsyms_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

int enav_kallsyms_parse_line(const char *line, size_t len, struct enav_kallsyms_line *out)
{
	size_t p = 0;

	len = chomp(line, len);
	*out = (struct enav_kallsyms_line){0};
	if (!take_hex(line, len, &p, &out->addr) || !take_char(line, len, &p, ' '))
		return -1;
	if (p >= len || !((line[p] >= 'a' && line[p] <= 'z') || (line[p] >= 'A' && line[p] <= 'Z')))
		return -1;
	out->type = line[p++];
	if (!take_char(line, len, &p, ' '))
		return -1;
	size_t n0 = p;
	while (p < len && line[p] != '\t' && line[p] != ' ' && line[p] != '\0' && line[p] != '\n' &&
	       line[p] != '\r')
		p++;
	out->name = line + n0;
	out->name_len = p - n0;
	if (out->name_len == 0 || out->name_len > ENAV_KSYM_NAME_MAX)
		return -1;
	if (p == len)
		return 0;
	/* Only "\t[module]" may follow. */
	if (line[p] != '\t' || len - p < 3 || line[p + 1] != '[' || line[len - 1] != ']')
		return -1;
	out->module = line + p + 2;
	out->module_len = len - p - 3;
	if (out->module_len == 0 || out->module_len > ENAV_KSYM_NAME_MAX)
		return -1;
	for (size_t i = 0; i < out->module_len; i++) {
		char c = out->module[i];
		if (c == '[' || c == ']' || c == ' ' || c == '\t' || c == '\0' || c == '\n' ||
		    c == '\r')
			return -1;
	}
	return 0;
}

/* ---- perf-PID.map -------------------------------------------------------------- */

static bool take_hex0x(const char *s, size_t len, size_t *pos, uint64_t *out)
{
	if (len - *pos >= 2 && s[*pos] == '0' && (s[*pos + 1] == 'x' || s[*pos + 1] == 'X') &&
	    len - *pos > 2 && enav_hex_digit(s[*pos + 2]) >= 0)
		*pos += 2;
	return take_hex(s, len, pos, out);
}

int enav_perf_map_parse_line(const char *line, size_t len, struct enav_perf_map_line *out)
{
	size_t p = 0;

	len = chomp(line, len);
	*out = (struct enav_perf_map_line){0};
	if (!take_hex0x(line, len, &p, &out->start))
		return -1;
	if (p >= len || line[p] != ' ')
		return -1;
	skip_blanks(line, len, &p);
	if (!take_hex0x(line, len, &p, &out->size))
		return -1;
	if (p >= len || line[p] != ' ')
		return -1;
	skip_blanks(line, len, &p);
	while (len > p && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
		len--;
	if (p >= len || out->size == 0 || out->start + out->size < out->start)
		return -1;
	if (memchr(line + p, '\0', len - p))
		return -1;
	out->name = line + p;
	out->name_len = len - p;
	return 0;
}

/* ---- bounded line reader ------------------------------------------------------- */

int enav_read_lines(int fd, size_t max_line, uint64_t max_bytes, enav_line_fn fn, void *ctx)
{
	size_t cap = max_line + 1;
	char *buf = malloc(cap);
	size_t have = 0;
	bool skipping = false; /* inside a line longer than max_line */
	uint64_t total = 0;
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		size_t want = cap - have;
		if (max_bytes - total < want)
			want = (size_t)(max_bytes - total);
		ssize_t n = want ? read(fd, buf + have, want) : 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		bool eof = n == 0;
		total += (uint64_t)n;
		have += (size_t)n;
		size_t start = 0;
		for (;;) {
			char *nl = memchr(buf + start, '\n', have - start);
			if (!nl)
				break;
			size_t l = (size_t)(nl - (buf + start));
			if (!skipping && fn(ctx, buf + start, l)) {
				free(buf);
				return 0;
			}
			skipping = false;
			start += l + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (eof) {
			if (have > 0 && !skipping)
				fn(ctx, buf, have);
			break;
		}
		if (have == cap) { /* no newline within max_line: drop this line */
			skipping = true;
			have = 0;
		}
	}
	free(buf);
	return rc;
}
