/* SPDX-License-Identifier: Apache-2.0 */
#include "platform/numfmt.h"
#include "platform/parse.h"

#include <math.h>
#include <string.h>

/* "00".."99": two digits per division. */
static const char pairs[201] = "00010203040506070809"
			       "10111213141516171819"
			       "20212223242526272829"
			       "30313233343536373839"
			       "40414243444546474849"
			       "50515253545556575859"
			       "60616263646566676869"
			       "70717273747576777879"
			       "80818283848586878889"
			       "90919293949596979899";

size_t enav_fmt_u64(char *out, uint64_t v)
{
	char tmp[ENAV_U64_TEXT_MAX];
	char *p = tmp + sizeof(tmp);
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100);
		v /= 100;
		p -= 2;
		memcpy(p, pairs + 2 * d, 2);
	}
	if (v >= 10) {
		p -= 2;
		memcpy(p, pairs + 2 * v, 2);
	} else {
		*--p = (char)('0' + v);
	}
	size_t n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(out, p, n);
	return n;
}

size_t enav_fmt_i64(char *out, int64_t v)
{
	if (v >= 0)
		return enav_fmt_u64(out, (uint64_t)v);
	out[0] = '-';
	/* Negated in unsigned arithmetic: INT64_MIN does not overflow. */
	return 1 + enav_fmt_u64(out + 1, 0 - (uint64_t)v);
}

size_t enav_fmt_hex(char *out, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	char *p = tmp + sizeof(tmp);
	do {
		*--p = digits[v & 15];
		v >>= 4;
	} while (v);
	size_t n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(out, p, n);
	return n;
}

size_t enav_fmt_fixed2(char *out, double v)
{
	size_t n = 0;
	if (signbit(v)) {
		out[n++] = '-';
		v = -v;
	}
	/* v * 100 needs at most 53 + 7 bits: exact in x86's 64-bit long double
	 * mantissa, so rounding it (to nearest, ties to even: the default mode)
	 * is rounding the exact decimal value, which is what printf does. */
	long double scaled = nearbyintl((long double)v * 100.0L);
	uint64_t cents = (uint64_t)scaled;
	n += enav_fmt_u64(out + n, cents / 100);
	out[n++] = '.';
	memcpy(out + n, pairs + 2 * (cents % 100), 2);
	return n + 2;
}

static size_t fmt_v4(char *out, const uint8_t *a)
{
	size_t n = 0;
	for (int i = 0; i < 4; i++) {
		if (i)
			out[n++] = '.';
		n += enav_fmt_u64(out + n, a[i]);
	}
	return n;
}

size_t enav_fmt_addr(char out[ENAV_ADDR_TEXT_MAX], int family, const uint8_t *addr)
{
	size_t n = 0;
	if (family != 6) {
		n = fmt_v4(out, addr);
		out[n] = '\0';
		return n;
	}
	uint16_t w[8];
	for (int i = 0; i < 8; i++)
		w[i] = (uint16_t)(addr[2 * i] << 8 | addr[2 * i + 1]);
	/* The longest run of zero groups, the first of equal ones; one alone
	 * is not shortened. */
	int best = -1, best_len = 0;
	for (int i = 0; i < 8;) {
		if (w[i]) {
			i++;
			continue;
		}
		int j = i;
		while (j < 8 && !w[j])
			j++;
		if (j - i > best_len) {
			best = i;
			best_len = j - i;
		}
		i = j;
	}
	if (best_len < 2)
		best = -1;
	for (int i = 0; i < 8; i++) {
		if (best >= 0 && i >= best && i < best + best_len) {
			if (i == best)
				out[n++] = ':';
			continue;
		}
		if (i)
			out[n++] = ':';
		/* ::a.b.c.d and ::ffff:a.b.c.d end in the IPv4 address. */
		if (i == 6 && best == 0 && (best_len == 6 || (best_len == 5 && w[5] == 0xffff))) {
			n += fmt_v4(out + n, addr + 12);
			out[n] = '\0';
			return n;
		}
		n += enav_fmt_hex(out + n, w[i]);
	}
	if (best >= 0 && best + best_len == 8)
		out[n++] = ':';
	out[n] = '\0';
	return n;
}

void enav_hex_bytes(char *out, const uint8_t *b, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
}

bool enav_parse_hex_bytes(const char *s, size_t len, uint8_t *out, size_t n)
{
	if (len != 2 * n)
		return false;
	for (size_t i = 0; i < n; i++) {
		int hi = enav_hex_digit(s[2 * i]), lo = enav_hex_digit(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}
