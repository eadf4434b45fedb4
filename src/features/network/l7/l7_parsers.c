/* SPDX-License-Identifier: Apache-2.0 */
/* The parser of each protocol, by the ids of src/model/protocols.h:
 * generated from the protocol list (include/enav/l7_classify.h). */
#include "features/network/l7/l7.h"

#define PARSER_ROW(ID, id, parser, name, family) [ENAV_L7_##ID] = &enav_l7_##parser##_ops,
/* Every classified protocol has a parser; the others (WebSocket, fed by
 * http1 after an upgrade) have none: their rows stay NULL. */
static const struct enav_l7_parser_ops *const parsers[ENAV_L7__COUNT] = {
    ENAV_L7_CLASSIFIED_PROTOCOLS(PARSER_ROW)};

const struct enav_l7_parser_ops *enav_l7_parser(enum enav_l7_protocol p)
{
	return (unsigned)p < ENAV_L7__COUNT ? parsers[p] : NULL;
}
