/* SPDX-License-Identifier: Apache-2.0 */
#include "model/protocols.h"

#include <stdio.h>
#include <string.h>

#include "enav/l7_classify.h"

/* Ordered by id: row i describes protocol i. */
static const struct enav_protocol protocols[] = {
    {ENAV_L7_UNKNOWN, "unknown", ENAV_L7C_NONE, ENAV_SPAN_FAMILY_NONE},
    {ENAV_L7_HTTP1, "http1", ENAV_L7C_HTTP1, ENAV_SPAN_FAMILY_HTTP},
    {ENAV_L7_HTTP2, "http2", ENAV_L7C_HTTP2, ENAV_SPAN_FAMILY_HTTP},
    {ENAV_L7_REDIS, "redis", ENAV_L7C_REDIS, ENAV_SPAN_FAMILY_DB},
    {ENAV_L7_POSTGRES, "postgresql", ENAV_L7C_POSTGRES, ENAV_SPAN_FAMILY_DB},
    {ENAV_L7_MYSQL, "mysql", ENAV_L7C_MYSQL, ENAV_SPAN_FAMILY_DB},
    {ENAV_L7_KAFKA, "kafka", ENAV_L7C_KAFKA, ENAV_SPAN_FAMILY_MESSAGING},
    {ENAV_L7_MONGO, "mongodb", ENAV_L7C_MONGO, ENAV_SPAN_FAMILY_DB},
    {ENAV_L7_NATS, "nats", ENAV_L7C_NATS, ENAV_SPAN_FAMILY_MESSAGING},
    {ENAV_L7_WEBSOCKET, "websocket", ENAV_L7C_NONE, ENAV_SPAN_FAMILY_WEBSOCKET},
};

_Static_assert(sizeof(protocols) / sizeof(protocols[0]) == ENAV_L7__COUNT,
	       "one row per enum enav_l7_protocol");
_Static_assert(ENAV_L7__COUNT <= 32, "a protocol mask has 32 bits");

/* The kernel returns a protocol's classifier id and user space reads it as
 * the protocol id (struct enav_l7_event.protocol), and the mask the kernel
 * tests is built from protocol ids: the two must be one number.  The unit
 * test test_l7_classify checks each row's classifier against its id. */
_Static_assert(ENAV_L7C_HTTP1 == ENAV_L7_HTTP1, "kernel classifier id");
_Static_assert(ENAV_L7C_HTTP2 == ENAV_L7_HTTP2, "kernel classifier id");
_Static_assert(ENAV_L7C_REDIS == ENAV_L7_REDIS, "kernel classifier id");
_Static_assert(ENAV_L7C_POSTGRES == ENAV_L7_POSTGRES, "kernel classifier id");
_Static_assert(ENAV_L7C_MYSQL == ENAV_L7_MYSQL, "kernel classifier id");
_Static_assert(ENAV_L7C_KAFKA == ENAV_L7_KAFKA, "kernel classifier id");
_Static_assert(ENAV_L7C_MONGO == ENAV_L7_MONGO, "kernel classifier id");
_Static_assert(ENAV_L7C_NATS == ENAV_L7_NATS, "kernel classifier id");
_Static_assert(ENAV_L7C_NONE >= ENAV_L7__COUNT, "no protocol id means none");

const struct enav_protocol *enav_protocol(unsigned id)
{
	return &protocols[id < ENAV_L7__COUNT ? id : ENAV_L7_UNKNOWN];
}

bool enav_protocol_selectable(const struct enav_protocol *p)
{
	return p->classifier != ENAV_L7C_NONE;
}

const struct enav_protocol *enav_protocol_by_name(const char *name, size_t n)
{
	for (unsigned i = 0; i < ENAV_L7__COUNT; i++)
		if (strlen(protocols[i].name) == n && memcmp(protocols[i].name, name, n) == 0)
			return &protocols[i];
	return NULL;
}

void enav_protocol_selectable_names(char *out, size_t cap)
{
	size_t used = 0;
	if (cap == 0)
		return;
	out[0] = '\0';
	for (unsigned i = 0; i < ENAV_L7__COUNT && used < cap; i++) {
		if (!enav_protocol_selectable(&protocols[i]))
			continue;
		int w =
		    snprintf(out + used, cap - used, "%s%s", used ? ", " : "", protocols[i].name);
		if (w < 0)
			break;
		used += (size_t)w;
	}
}

const char *enav_l7_protocol_name(enum enav_l7_protocol p)
{
	return enav_protocol(p)->name;
}
