/* SPDX-License-Identifier: Apache-2.0 */
/* Small strict parsers shared by the procfs, sysfs, cgroup and ELF readers. */
#ifndef ENAV_PLATFORM_PARSE_H
#define ENAV_PLATFORM_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exactly len decimal digits, no sign, no overflow; false otherwise. */
bool enav_parse_u64_dec(const char *s, size_t len, uint64_t *out);

/* The value of one hex digit (either case), -1 for anything else. */
int enav_hex_digit(char c);

/* Well-formed UTF-8 (no overlong forms, surrogates or code points past
 * U+10FFFF): text a receiver accepts. */
bool enav_utf8_valid(const char *str);

/* Code point c (at most U+10FFFF; the caller excludes surrogates) as UTF-8
 * into out, which has room for 4 bytes; the bytes written. */
size_t enav_utf8_put(uint32_t c, char *out);

#endif
