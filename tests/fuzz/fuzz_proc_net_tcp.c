/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libFuzzer target for the /proc/net/tcp and /proc/net/tcp6 reader of the
 * pprof pull discovery (src/features/profiling/pprof_pull.c).
 *
 * The input is read as both files: once through enav_read_proc_net_tcp() on
 * an fmemopen() stream of exactly its bytes (the code path discovery runs,
 * with a full and a small cap), and line by line through
 * enav_parse_proc_net_tcp_line() on exact-size NUL-terminated heap copies, so
 * ASan flags any read past a line.  The stream must yield exactly the
 * accepted lines in order (never the tail of an overlong line), and every
 * accepted line is re-read here independently: the kernel's field shapes,
 * the port from its four hex digits, the inode as printed, a loopback
 * address of the right family.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/profiling/pprof_pull.h"

#define CHECK(c)                                                                                   \
	do {                                                                                       \
		if (!(c))                                                                          \
			abort();                                                                   \
	} while (0)

#define LINE_MAX_BYTES 511 /* the reader's buffer, less its NUL */
#define MAX_RECS       256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_hex_upper_or_lower(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

static bool is_dec(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* An accepted line, re-read without the parser's helpers. */
static void check_accepted(const char *line, bool ipv6, const struct enav_listen_socket *r)
{
	char *copy = strdup(line), *save = NULL, *tok[12];
	int nt = 0;

	CHECK(copy != NULL);
	/* "sl:" may be glued to the local address when no space follows it. */
	char *p = copy;
	while (isspace((unsigned char)*p))
		p++;
	char *colon = strchr(p, ':');
	CHECK(colon != NULL && colon > p);
	for (char *d = p; d < colon; d++)
		CHECK(*d >= '0' && *d <= '9');
	for (char *t = strtok_r(colon + 1, " \t\n\v\f\r", &save); t && nt < 12;
	     t = strtok_r(NULL, " \t\n\v\f\r", &save))
		tok[nt++] = t;
	CHECK(nt >= 9);

	size_t hexlen = ipv6 ? 32 : 8;
	const char *local = tok[0];
	char port_text[8];

	CHECK(strlen(local) == hexlen + 5 && local[hexlen] == ':');
	CHECK(is_hex_upper_or_lower(local, hexlen));
	CHECK(is_hex_upper_or_lower(local + hexlen + 1, 4));
	snprintf(port_text, sizeof(port_text), "%04X", r->port);
	CHECK(strcasecmp(port_text, local + hexlen + 1) == 0);
	CHECK(r->port != 0);
	CHECK(strcmp(tok[2], "0A") == 0);
	CHECK(is_dec(tok[6]) && is_dec(tok[7]) && is_dec(tok[8]));
	CHECK(r->inode != 0);
	CHECK(strtoull(tok[8], NULL, 10) == r->inode);
	/* Loopback of the file's own family only, as the kernel spells it. */
	if (ipv6) {
		CHECK(!r->v4_loopback && r->v6_loopback);
		CHECK(!strncmp(local, "00000000000000000000000000000000", 32) ||
		      !strncmp(local, "00000000000000000000000001000000", 32));
	} else {
		CHECK(r->v4_loopback && !r->v6_loopback);
		CHECK(!strncmp(local, "00000000", 8) || !strncmp(local, "0100007F", 8));
	}
	free(copy);
}

static struct enav_listen_socket expected[MAX_RECS], got[MAX_RECS];

static bool same(const struct enav_listen_socket *a, const struct enav_listen_socket *b)
{
	return a->inode == b->inode && a->port == b->port && a->v4_loopback == b->v4_loopback &&
	       a->v6_loopback == b->v6_loopback;
}

/* Every line through the line parser: the records the stream must give. */
static size_t parse_lines(const uint8_t *data, size_t size, bool ipv6)
{
	size_t n = 0;

	for (size_t start = 0; start < size;) {
		const uint8_t *nl = memchr(data + start, '\n', size - start);
		size_t len = nl ? (size_t)(nl - (data + start)) : size - start;

		if (len > 0 && len <= LINE_MAX_BYTES && !memchr(data + start, '\0', len)) {
			char *line = malloc(len + 1);
			struct enav_listen_socket r, again;

			CHECK(line != NULL);
			memcpy(line, data + start, len);
			line[len] = '\0';
			memset(&r, 0xa5, sizeof(r));
			bool ok = enav_parse_proc_net_tcp_line(line, ipv6, &r);
			memset(&again, 0x5a, sizeof(again));
			CHECK(enav_parse_proc_net_tcp_line(line, ipv6, &again) == ok);
			if (ok) {
				CHECK(same(&r, &again));
				check_accepted(line, ipv6, &r);
				if (n < MAX_RECS)
					expected[n++] = r;
			}
			free(line);
		}
		start += len + 1;
	}
	return n;
}

static size_t read_stream(const uint8_t *data, size_t size, bool ipv6, size_t cap)
{
	/* fmemopen() refuses a zero-size buffer: an empty file has no lines. */
	if (size == 0)
		return 0;
	void *copy = malloc(size);

	CHECK(copy != NULL);
	memcpy(copy, data, size);
	FILE *f = fmemopen(copy, size, "r");

	CHECK(f != NULL);
	size_t n = enav_read_proc_net_tcp(f, ipv6, got, cap);
	fclose(f);
	free(copy);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 64 * 1024)
		return 0;
	for (int v6 = 0; v6 < 2; v6++) {
		size_t want = parse_lines(data, size, v6);
		static const size_t caps[] = {MAX_RECS, 2, 0};

		for (size_t c = 0; c < sizeof(caps) / sizeof(caps[0]); c++) {
			size_t n = read_stream(data, size, v6, caps[c]);
			size_t w = want < caps[c] ? want : caps[c];

			CHECK(n == w);
			for (size_t i = 0; i < n; i++)
				CHECK(same(&got[i], &expected[i]));
		}
	}
	return 0;
}
