/* SPDX-License-Identifier: Apache-2.0 */
/*
 * MySQL packet basics (mysql_wire.c): little-endian and length-encoded
 * integers, OK/EOF status flags, and where a chain of packets plausibly
 * starts, which is where the parser resyncs.
 */
#ifndef ENAV_FEATURES_NETWORK_L7_MYSQL_WIRE_H
#define ENAV_FEATURES_NETWORK_L7_MYSQL_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "features/network/l7/l7.h"

static inline uint32_t le16(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static inline uint32_t le24(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
}

static inline uint32_t le32(const uint8_t *p)
{
	return le24(p) | (uint32_t)p[3] << 24;
}

/* Length-encoded integer at b[*off..n); false when cut or invalid. */
bool enav_mysql_lenenc(const uint8_t *b, size_t n, size_t *off, uint64_t *v);
/* A progress report (0xff 0xffff), not an error. */
bool enav_mysql_is_progress(const uint8_t *b, size_t n);
/* Status flags of an OK (0x00 or 0xfe header) or EOF packet; 0 when cut. */
uint32_t enav_mysql_ok_status(const uint8_t *b, size_t n, uint32_t len);
/* Resync: the first i in d[from..cap) where a chain of packets with
 * consecutive sequence ids starts, or -1 (enav_l7_framing.find_start). */
long enav_mysql_find_start(void *st, enum enav_l7_stream dir, const uint8_t *d, size_t from,
			   size_t cap, size_t len);

#endif
