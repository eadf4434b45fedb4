/* SPDX-License-Identifier: Apache-2.0 */
/* The parser of each protocol, by the ids of src/model/protocols.h. */
#include "features/network/l7/l7.h"

static const struct enav_l7_parser_ops *const parsers[] = {
    [ENAV_L7_UNKNOWN] = NULL,
    [ENAV_L7_HTTP1] = &enav_l7_http1_ops,
    [ENAV_L7_HTTP2] = &enav_l7_http2_ops,
    [ENAV_L7_REDIS] = &enav_l7_redis_ops,
    [ENAV_L7_POSTGRES] = &enav_l7_postgres_ops,
    [ENAV_L7_MYSQL] = &enav_l7_mysql_ops,
    [ENAV_L7_KAFKA] = &enav_l7_kafka_ops,
    [ENAV_L7_MONGO] = &enav_l7_mongo_ops,
    [ENAV_L7_NATS] = &enav_l7_nats_ops,
    [ENAV_L7_WEBSOCKET] = NULL, /* fed by http1 after an upgrade */
};

/* A protocol added to the enum without a row here fails to build; the unit
 * test test_l7_classify checks that exactly the selectable protocols have one. */
_Static_assert(sizeof(parsers) / sizeof(parsers[0]) == ENAV_L7__COUNT,
	       "a parser row for every enum enav_l7_protocol");

const struct enav_l7_parser_ops *enav_l7_parser(enum enav_l7_protocol p)
{
	return (unsigned)p < ENAV_L7__COUNT ? parsers[p] : NULL;
}
