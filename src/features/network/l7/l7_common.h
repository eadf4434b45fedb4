/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Small pieces several parsers share: wire integer readers, the index
 * arithmetic of the pending-request ring every parser keeps
 * (ENAV_L7_MAX_PENDING slots), and the options the SQL parsers read.
 */
#ifndef ENAV_FEATURES_NETWORK_L7_L7_COMMON_H
#define ENAV_FEATURES_NETWORK_L7_L7_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "features/network/l7/l7.h"
#include "features/network/l7/l7_stream.h"

static inline uint32_t enav_l7_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline uint32_t enav_l7_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Slot of the i-th oldest entry of a ring whose oldest is at head. */
static inline uint32_t enav_l7_fifo_slot(uint32_t head, uint32_t i)
{
	return (head + i) % ENAV_L7_MAX_PENDING;
}

/* Drop the oldest entry (the caller checked *count > 0). */
static inline void enav_l7_fifo_drop(uint32_t *head, uint32_t *count)
{
	*head = enav_l7_fifo_slot(*head, 1);
	(*count)--;
}

/* prefix then v in decimal into out, cut at cap - 1 bytes: snprintf's
 * "%s%lld" without its cost, once per operation.  Returns the length. */
size_t enav_l7_put_number(char *out, size_t cap, const char *prefix, int64_t v);

/* s into out, cut at cap - 1 bytes (snprintf's "%s"). */
void enav_l7_put_text(char *out, size_t cap, const char *s);

/* What PostgreSQL and MySQL keep of the options. */
struct enav_l7_sql_options {
	uint32_t max_pending; /* enav_l7_max_pending() */
	bool sanitized;	      /* fill op.statement */
};

struct enav_l7_sql_options enav_l7_sql_options(const struct enav_l7_options *opt);

/* The summary of one SQL command, each an array of its enav_l7_op field's
 * size; statement NULL when it is not exported (sanitized off). */
struct enav_l7_sql_texts {
	const char *operation, *target, *statement, *status;
};

/* Emits a PostgreSQL or MySQL command as an op: its status and error only
 * when its answer was seen (response_seen), its exchange as the engine
 * pairs it. */
void enav_l7_sql_emit(enum enav_l7_protocol protocol, const struct enav_l7_sql_texts *t,
		      bool response_seen, bool error, const struct enav_l7_exchange *x,
		      const struct enav_l7_sink *out);

#endif
