/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/l7/mysql_wire.h"

#define MY_CHAIN_MAX 16 /* headers a resync candidate is checked against */

/* Length-encoded integer at b[*off..n); false when cut or invalid. */
bool enav_mysql_lenenc(const uint8_t *b, size_t n, size_t *off, uint64_t *v)
{
	if (*off >= n)
		return false;
	uint8_t c = b[*off];
	size_t w = c < 0xfb ? 0 : c == 0xfc ? 2 : c == 0xfd ? 3 : c == 0xfe ? 8 : 99;

	if (w == 99 || *off + 1 + w > n)
		return false;
	if (w == 0) {
		*v = c;
	} else {
		*v = 0;
		for (size_t i = 0; i < w; i++)
			*v |= (uint64_t)b[*off + 1 + i] << (8 * i);
	}
	*off += 1 + w;
	return true;
}

bool enav_mysql_is_progress(const uint8_t *b, size_t n)
{
	return n >= 3 && b[0] == 0xff && le16(b + 1) == 0xffff;
}

/* Status flags of an OK (0x00 or 0xfe header) or EOF packet; 0 when cut. */
uint32_t enav_mysql_ok_status(const uint8_t *b, size_t n, uint32_t len)
{
	size_t off = 1;
	uint64_t v;

	if (b[0] == 0xfe && len == 5) /* EOF: warnings, status */
		return n >= 5 ? le16(b + 3) : 0;
	if (!enav_mysql_lenenc(b, n, &off, &v) || !enav_mysql_lenenc(b, n, &off, &v) || off + 2 > n)
		return 0;
	return le16(b + off);
}

static bool plausible_command(uint8_t c, uint32_t len)
{
	if (len < 1)
		return false;
	if (c == 0x17 || c == 0x19 || c == 0x1c || c == 0x1a || c == 0x18)
		return len >= 5;
	return c <= 0x1f || c == 0xfa;
}

/* A chain of packets with consecutive sequence ids at d[i..cap). */
static bool chain_ok(enum enav_l7_stream dir, const uint8_t *d, size_t i, size_t cap, size_t len)
{
	size_t j = i;
	int n = 0;

	while (j + 4 <= cap && n < MY_CHAIN_MAX) {
		uint32_t l = le24(d + j);
		uint8_t sq = d[j + 3];

		if (n == 0 && dir == ENAV_L7_REQUEST &&
		    (sq != 0 || j + 4 >= cap || !plausible_command(d[j + 4], l)))
			return false;
		if (n > 0 && sq != (uint8_t)(d[i + 3] + n))
			return false;
		n++;
		j += 4 + (size_t)l;
	}
	if (n == 0)
		return false;
	return n >= 2 || j == len || i == 0;
}

long enav_mysql_find_start(void *s, enum enav_l7_stream dir, const uint8_t *d, size_t from,
			   size_t cap, size_t len)
{
	for (size_t i = from; i + 4 <= cap; i++)
		if (chain_ok(dir, d, i, cap, len))
			return (long)i;
	return -1;
}
