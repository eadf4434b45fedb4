/* SPDX-License-Identifier: Apache-2.0 */
#include "features/network/l7/postgres_wire.h"

#include <string.h>

#include "features/network/l7/l7_common.h"

static bool is_frontend_type(uint8_t t, uint32_t len)
{
	if (len < 4 || len > PG_MAX_LEN)
		return false;
	switch (t) {
	case 'Q':
	case 'f':
		return len >= 5;
	case 'P':
		return len >= 8;
	case 'B':
		return len >= 12;
	case 'E':
		return len >= 9;
	case 'D':
	case 'C':
		return len >= 6;
	case 'F':
		return len >= 12;
	case 'S':
	case 'H':
	case 'X':
	case 'c':
		return len == 4;
	case 'd':
	case 'p':
		return true;
	default:
		return false;
	}
}

static bool is_backend_type(uint8_t t, uint32_t len)
{
	if (len < 4 || len > PG_MAX_LEN)
		return false;
	switch (t) {
	case 'Z':
		return len == 5;
	case '1':
	case '2':
	case '3':
	case 'n':
	case 'I':
	case 's':
	case 'c':
		return len == 4;
	case 'C':
	case 'E':
	case 'N':
		return len >= 5;
	case 'T':
	case 'D':
	case 't':
	case 'S':
		return len >= 6;
	case 'K':
		return len >= 12 && len <= 264;
	case 'R':
	case 'V':
		return len >= 8;
	case 'A':
		return len >= 10;
	case 'G':
	case 'H':
	case 'W':
		return len >= 7;
	case 'v':
		return len >= 12;
	case 'd':
		return true;
	default:
		return false;
	}
}

static bool type_known(enum enav_l7_stream dir, uint8_t t)
{
	const char *set = dir == ENAV_L7_REQUEST ? "QfPBEDCFSHXcdp" : "Z123nIscCENTDtSKRVAGHWvd";

	return t != 0 && strchr(set, t) != NULL;
}

/* Fixed-size messages distinctive enough to resync on alone. */
static bool strong_type(enum enav_l7_stream dir, uint8_t t, uint32_t len)
{
	if (dir == ENAV_L7_REQUEST)
		return (t == 'S' || t == 'H' || t == 'c') && len == 4;
	return (t == 'Z' && len == 5) ||
	       ((t == '1' || t == '2' || t == '3' || t == 'n' || t == 's') && len == 4);
}

bool enav_pg_valid_header(enum enav_l7_stream dir, uint8_t t, uint32_t len)
{
	return dir == ENAV_L7_REQUEST ? is_frontend_type(t, len) : is_backend_type(t, len);
}

bool enav_pg_valid_startup(uint32_t len, uint32_t code)
{
	if (code == PG_SSL_CODE || code == PG_GSS_CODE)
		return len == 8;
	if (code == PG_CANCEL_CODE)
		return len == 16;
	return (code >> 16) == 3 && len >= 8 && len <= 10000;
}

/* Is d[i..cap) a plausible chain of message headers? */
bool enav_pg_chain_ok(enum enav_l7_stream dir, const uint8_t *d, size_t i, size_t cap,
		      bool frag_start)
{
	size_t j = i;
	int n = 0;
	bool strong = false;

	while (j + 5 <= cap && n < PG_CHAIN_MAX) {
		uint32_t len = enav_l7_be32(d + j + 1);

		if (!enav_pg_valid_header(dir, d[j], len))
			return false;
		if (n == 0)
			strong = strong_type(dir, d[j], len);
		if (d[j] == 'Z' && dir == ENAV_L7_RESPONSE && j + 5 < cap && d[j + 5] != 'I' &&
		    d[j + 5] != 'T' && d[j + 5] != 'E')
			return false;
		n++;
		j += (size_t)len + 1;
	}
	if (n == 0)
		return false;
	if (j < cap && j + 5 > cap && n < PG_CHAIN_MAX && !type_known(dir, d[j]))
		return false;
	return frag_start || n >= 2 || strong;
}

/* A start-up packet at d[i]? */
bool enav_pg_startup_at(const uint8_t *d, size_t i, size_t cap)
{
	return i + 8 <= cap && enav_pg_valid_startup(enav_l7_be32(d + i), enav_l7_be32(d + i + 4));
}
