/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Numbers and addresses as text, written by hand into a caller's buffer: the
 * encoders' replacements for printf and inet_ntop, which cost more than the
 * rest of a span's encoding.  Output is byte for byte what the C library
 * writes (tests/unit/test_numfmt.c compares them).
 */
#ifndef ENAV_PLATFORM_NUMFMT_H
#define ENAV_PLATFORM_NUMFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ENAV_U64_TEXT_MAX  20 /* digits of UINT64_MAX */
#define ENAV_ADDR_TEXT_MAX 46 /* INET6_ADDRSTRLEN: the longest address and its NUL */

/* Decimal digits of v at out (no NUL); returns how many (1..20). */
size_t enav_fmt_u64(char *out, uint64_t v);
/* As printf's "%d". At most 11 bytes. */
size_t enav_fmt_i64(char *out, int64_t v);
/* As printf's "%x" of v. At most 16 bytes. */
size_t enav_fmt_hex(char *out, uint64_t v);
/* The n bytes at b as 2n lowercase hex digits at out (no NUL): trace and
 * span ids. */
void enav_hex_bytes(char *out, const uint8_t *b, size_t n);
/* The reverse: s[0..len) must be exactly 2n hex digits (either case); false
 * otherwise, and out is then unspecified. */
bool enav_parse_hex_bytes(const char *s, size_t len, uint8_t *out, size_t n);
/* As printf's "%.2f" for finite |v| < 1e15 (the only values it is given):
 * the exact binary value rounded half to even, as glibc does. */
size_t enav_fmt_fixed2(char *out, double v);
/*
 * As inet_ntop: family 4 reads addr[0..4), 6 reads addr[0..16), the longest
 * run of two or more zero groups is "::" (the first of equal runs), and an
 * IPv4-mapped or -compatible address ends in dotted quad.  NUL-terminated
 * (out holds ENAV_ADDR_TEXT_MAX); returns the length.
 */
size_t enav_fmt_addr(char out[ENAV_ADDR_TEXT_MAX], int family, const uint8_t *addr);

#endif
