/* SPDX-License-Identifier: Apache-2.0 */
#include "model/protocols.h"

#include <stdio.h>
#include <string.h>

#include "enav/l7_classify.h"

/* Row i describes protocol i; generated from the protocol list. */
#define CLASSIFIED_ROW(ID, id, parser, name, family)                                               \
	[ENAV_L7_##ID] = {ENAV_L7_##ID, name, ENAV_L7C_##ID, ENAV_SPAN_FAMILY_##family},
#define UPGRADED_ROW(ID, id, parser, name, family)                                                 \
	[ENAV_L7_##ID] = {ENAV_L7_##ID, name, ENAV_L7C_NONE, ENAV_SPAN_FAMILY_##family},
static const struct enav_protocol protocols[] = {
    [ENAV_L7_UNKNOWN] = {ENAV_L7_UNKNOWN, "unknown", ENAV_L7C_NONE, ENAV_SPAN_FAMILY_NONE},
    ENAV_L7_CLASSIFIED_PROTOCOLS(CLASSIFIED_ROW) ENAV_L7_UPGRADED_PROTOCOLS(UPGRADED_ROW)};

/* Dense ids: as many rows as ids, so no id is skipped or used twice (a
 * designated row written twice would leave a hole). */
#define COUNT_ROW(ID, id, parser, name, family) +1
_Static_assert(1 ENAV_L7_CLASSIFIED_PROTOCOLS(COUNT_ROW)
		       ENAV_L7_UPGRADED_PROTOCOLS(COUNT_ROW) == ENAV_L7__COUNT,
	       "protocol ids are 1..n, each used once");
_Static_assert(sizeof(protocols) / sizeof(protocols[0]) == ENAV_L7__COUNT,
	       "one row per enum enav_l7_protocol");
_Static_assert(ENAV_L7__COUNT <= 32, "a protocol mask has 32 bits");
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
