/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the NATS parser (src/features/network/l7/nats.c).
 *
 * The conversations below are real traffic: nats-server 2.9.10 (Debian) on
 * private ports, one of them with authorization and permissions, driven by a
 * raw Python socket client (CONNECT verbose true and false, PUB, HPUB, SUB,
 * UNSUB, MSG/HMSG deliveries, PING/PONG, -ERR for an unknown operation, an
 * invalid subject, missing credentials and denied permissions), recorded
 * read by read by a small TCP proxy.  Each is fed whole, split at every byte
 * boundary, in small pieces, with captured < len and with gaps, and compared
 * against the exact operations the parser must emit.  Every fragment is an
 * exact-size heap copy, so ASan flags any read past the captured bytes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/network/l7/l7.h"

struct chunk {
	enum enav_l7_stream stream;
	uint32_t captured; /* bytes given below */
	uint32_t len;	   /* bytes the read moved */
	const char *data;
};

/* A chunk of a string literal (NULs included) read by a call that moved
 * total bytes. */
#define CH(st, total, lit)                                                                         \
	{                                                                                          \
		st, sizeof(lit) - 1, total, lit                                                    \
	}
/* A whole chunk. */
#define C(st, lit) CH(st, sizeof(lit) - 1, lit)

/* CONNECT verbose:true pedantic:true: +OK for each PUB/HPUB/SUB/UNSUB, an
 * invalid subject (-ERR then +OK), an unknown operation (-ERR, then close). */
static const struct chunk verbose_session[] = {
    CH(ENAV_L7_RESPONSE, 305,
       "INFO {\"server_id\":\"NCT7TRINZFNS2YPQ5IB2FAZ23TQ4NLX5VQV33ODORW5PBQA6RTN4UQ"
       "WK\",\"server_name\":\"NCT7TRINZFNS2YPQ5IB2FAZ23TQ4NLX5VQV33ODORW5PBQA6RTN4U"
       "QWK\",\"version\":\"2.9.10\",\"proto\":1,\"go\":\"go1.19.8\",\"host\":\"127."
       "0.0.1\",\"port\":44222,\"headers\":true,\"max_payload\":1048576,\"client_id\""
       ":4,\"client_ip\":\"127.0.0.1\"} \r\n"),
    CH(ENAV_L7_REQUEST, 180,
       "CONNECT {\"verbose\": true, \"pedantic\": true, \"tls_required\": false, \"n"
       "ame\": \"enav-test\", \"lang\": \"python\", \"version\": \"0.1\", \"protocol"
       "\": 1, \"headers\": true, \"no_responders\": true}\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 6, "PING\r\n"),
    CH(ENAV_L7_RESPONSE, 6, "PONG\r\n"),
    CH(ENAV_L7_REQUEST, 22, "SUB orders.created 1\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 24, "SUB orders.* workers 2\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 29, "PUB orders.created 5\r\nhello\r\n"),
    CH(ENAV_L7_RESPONSE, 67,
       "+OK\r\nMSG orders.created 1 5\r\nhello\r\n"
       "MSG orders.created 2 5\r\nhello\r\n"),
    CH(ENAV_L7_REQUEST, 41, "PUB orders.created _INBOX.abc123 3\r\nabc\r\n"),
    CH(ENAV_L7_RESPONSE, 91,
       "+OK\r\nMSG orders.created 1 _INBOX.abc123 3\r\n"
       "abc\r\nMSG orders.created 2 _INBOX.abc123 3\r\n"
       "abc\r\n"),
    CH(ENAV_L7_RESPONSE, 6, "PING\r\n"),
    CH(ENAV_L7_REQUEST, 60,
       "HPUB orders.created 26 31\r\nNATS/1.0\r\n"
       "X-Trace: abc\r\n\r\nworld\r\n"),
    CH(ENAV_L7_RESPONSE, 129,
       "+OK\r\nHMSG orders.created 1 26 31\r\nNATS/1.0\r\n"
       "X-Trace: abc\r\n\r\nworld\r\nHMSG orders.created 2 26 31\r\n"
       "NATS/1.0\r\nX-Trace: abc\r\n\r\nworld\r\n"),
    CH(ENAV_L7_REQUEST, 3027,
       "PUB orders.created 3000\r\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n"),
    CH(ENAV_L7_RESPONSE, 6063,
       "+OK\r\nMSG orders.created 1 3000\r\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n"
       "MSG orders.created 2 3000\r\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n"),
    CH(ENAV_L7_REQUEST, 9, "UNSUB 2\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 50,
       "PUB orders.created 2\r\nhi\r\nPUB orders.updated 0\r\n"
       "\r\n"),
    CH(ENAV_L7_RESPONSE, 38, "+OK\r\nMSG orders.created 1 2\r\nhi\r\n+OK\r\n"),
    CH(ENAV_L7_REQUEST, 23, "PUB orders..bad 2\r\nhi\r\n"),
    CH(ENAV_L7_RESPONSE, 37, "-ERR 'Invalid Publish Subject'\r\n+OK\r\n"),
    CH(ENAV_L7_REQUEST, 5, "FOO\r\n"),
    CH(ENAV_L7_RESPONSE, 35, "-ERR 'Unknown Protocol Operation'\r\n"),
};

/* The same with verbose:false: one-way messages. */
static const struct chunk quiet_session[] = {
    CH(ENAV_L7_RESPONSE, 305,
       "INFO {\"server_id\":\"NCT7TRINZFNS2YPQ5IB2FAZ23TQ4NLX5VQV33ODORW5PBQA6RTN4UQ"
       "WK\",\"server_name\":\"NCT7TRINZFNS2YPQ5IB2FAZ23TQ4NLX5VQV33ODORW5PBQA6RTN4U"
       "QWK\",\"version\":\"2.9.10\",\"proto\":1,\"go\":\"go1.19.8\",\"host\":\"127."
       "0.0.1\",\"port\":44222,\"headers\":true,\"max_payload\":1048576,\"client_id\""
       ":5,\"client_ip\":\"127.0.0.1\"} \r\n"),
    CH(ENAV_L7_REQUEST, 182,
       "CONNECT {\"verbose\": false, \"pedantic\": false, \"tls_required\": false, \""
       "name\": \"enav-test\", \"lang\": \"python\", \"version\": \"0.1\", \"protoco"
       "l\": 1, \"headers\": true, \"no_responders\": true}\r\n"),
    CH(ENAV_L7_REQUEST, 6, "PING\r\n"),
    CH(ENAV_L7_RESPONSE, 6, "PONG\r\n"),
    CH(ENAV_L7_REQUEST, 22, "SUB orders.created 1\r\n"),
    CH(ENAV_L7_REQUEST, 24, "SUB orders.* workers 2\r\n"),
    CH(ENAV_L7_REQUEST, 29, "PUB orders.created 5\r\nhello\r\n"),
    CH(ENAV_L7_RESPONSE, 62,
       "MSG orders.created 1 5\r\nhello\r\nMSG orders.created 2 5\r\n"
       "hello\r\n"),
    CH(ENAV_L7_REQUEST, 41, "PUB orders.created _INBOX.abc123 3\r\nabc\r\n"),
    CH(ENAV_L7_RESPONSE, 86,
       "MSG orders.created 1 _INBOX.abc123 3\r\nabc\r\n"
       "MSG orders.created 2 _INBOX.abc123 3\r\nabc\r\n"),
    CH(ENAV_L7_RESPONSE, 6, "PING\r\n"),
    CH(ENAV_L7_REQUEST, 60,
       "HPUB orders.created 26 31\r\nNATS/1.0\r\n"
       "X-Trace: abc\r\n\r\nworld\r\n"),
    CH(ENAV_L7_RESPONSE, 124,
       "HMSG orders.created 1 26 31\r\nNATS/1.0\r\n"
       "X-Trace: abc\r\n\r\nworld\r\nHMSG orders.created 2 26 31\r\n"
       "NATS/1.0\r\nX-Trace: abc\r\n\r\nworld\r\n"),
    CH(ENAV_L7_REQUEST, 3027,
       "PUB orders.created 3000\r\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n"),
    CH(ENAV_L7_RESPONSE, 6058,
       "MSG orders.created 1 3000\r\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n"
       "MSG orders.created 2 3000\r\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n"),
    CH(ENAV_L7_REQUEST, 9, "UNSUB 2\r\n"),
    CH(ENAV_L7_REQUEST, 50,
       "PUB orders.created 2\r\nhi\r\nPUB orders.updated 0\r\n"
       "\r\n"),
    CH(ENAV_L7_RESPONSE, 28, "MSG orders.created 1 2\r\nhi\r\n"),
    CH(ENAV_L7_REQUEST, 5, "FOO\r\n"),
    CH(ENAV_L7_RESPONSE, 35, "-ERR 'Unknown Protocol Operation'\r\n"),
};

/* 12 PUBs and an HPUB with a reply subject in one write, quiet. */
static const struct chunk quiet_burst[] = {
    CH(ENAV_L7_RESPONSE, 305,
       "INFO {\"server_id\":\"NCT7TRINZFNS2YPQ5IB2FAZ23TQ4NLX5VQV33ODORW5PBQA6RTN4UQ"
       "WK\",\"server_name\":\"NCT7TRINZFNS2YPQ5IB2FAZ23TQ4NLX5VQV33ODORW5PBQA6RTN4U"
       "QWK\",\"version\":\"2.9.10\",\"proto\":1,\"go\":\"go1.19.8\",\"host\":\"127."
       "0.0.1\",\"port\":44222,\"headers\":true,\"max_payload\":1048576,\"client_id\""
       ":6,\"client_ip\":\"127.0.0.1\"} \r\n"),
    CH(ENAV_L7_REQUEST, 78,
       "CONNECT {\"verbose\":false,\"pedantic\":false,\"headers\":true,\"protocol\":"
       "1}\r\nPING\r\n"),
    CH(ENAV_L7_RESPONSE, 6, "PONG\r\n"),
    CH(ENAV_L7_REQUEST, 17, "SUB metrics.> 7\r\n"),
    CH(ENAV_L7_REQUEST, 366,
       "PUB metrics.cpu.0 1\r\n0\r\nPUB metrics.cpu.1 1\r\n"
       "1\r\nPUB metrics.cpu.2 1\r\n2\r\nPUB metrics.cpu.0 1\r\n"
       "3\r\nPUB metrics.cpu.1 1\r\n4\r\nPUB metrics.cpu.2 1\r\n"
       "5\r\nPUB metrics.cpu.0 1\r\n6\r\nPUB metrics.cpu.1 1\r\n"
       "7\r\nPUB metrics.cpu.2 1\r\n8\r\nPUB metrics.cpu.0 1\r\n"
       "9\r\nPUB metrics.cpu.1 2\r\n10\r\nPUB metrics.cpu.2 2\r\n"
       "11\r\nHPUB metrics.mem _INBOX.Zr8qk2 26 30\r\n"
       "NATS/1.0\r\nX-Trace: abc\r\n\r\nbody\r\nPING\r\n"),
    CH(ENAV_L7_RESPONSE, 392,
       "MSG metrics.cpu.0 7 1\r\n0\r\nMSG metrics.cpu.1 7 1\r\n"
       "1\r\nMSG metrics.cpu.2 7 1\r\n2\r\nMSG metrics.cpu.0 7 1\r\n"
       "3\r\nMSG metrics.cpu.1 7 1\r\n4\r\nMSG metrics.cpu.2 7 1\r\n"
       "5\r\nMSG metrics.cpu.0 7 1\r\n6\r\nMSG metrics.cpu.1 7 1\r\n"
       "7\r\nMSG metrics.cpu.2 7 1\r\n8\r\nMSG metrics.cpu.0 7 1\r\n"
       "9\r\nMSG metrics.cpu.1 7 2\r\n10\r\nMSG metrics.cpu.2 7 2\r\n"
       "11\r\nHMSG metrics.mem 7 _INBOX.Zr8qk2 26 30\r\n"
       "NATS/1.0\r\nX-Trace: abc\r\n\r\nbody\r\nPONG\r\n"),
    CH(ENAV_L7_REQUEST, 9, "UNSUB 7\r\n"),
};

/* The same burst, verbose and pedantic, with an invalid subject inside. */
static const struct chunk verbose_burst[] = {
    CH(ENAV_L7_RESPONSE, 305,
       "INFO {\"server_id\":\"NCT7TRINZFNS2YPQ5IB2FAZ23TQ4NLX5VQV33ODORW5PBQA6RTN4UQ"
       "WK\",\"server_name\":\"NCT7TRINZFNS2YPQ5IB2FAZ23TQ4NLX5VQV33ODORW5PBQA6RTN4U"
       "QWK\",\"version\":\"2.9.10\",\"proto\":1,\"go\":\"go1.19.8\",\"host\":\"127."
       "0.0.1\",\"port\":44222,\"headers\":true,\"max_payload\":1048576,\"client_id\""
       ":7,\"client_ip\":\"127.0.0.1\"} \r\n"),
    CH(ENAV_L7_REQUEST, 76,
       "CONNECT {\"verbose\":true,\"pedantic\":true,\"headers\":true,\"protocol\":1}"
       "\r\nPING\r\n"),
    CH(ENAV_L7_RESPONSE, 11, "+OK\r\nPONG\r\n"),
    CH(ENAV_L7_REQUEST, 17, "SUB metrics.> 7\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 389,
       "PUB metrics.cpu.0 1\r\n0\r\nPUB metrics.cpu.1 1\r\n"
       "1\r\nPUB metrics.cpu.2 1\r\n2\r\nPUB metrics.cpu.0 1\r\n"
       "3\r\nPUB metrics.cpu.1 1\r\n4\r\nPUB metrics.cpu.2 1\r\n"
       "5\r\nPUB metrics.cpu.0 1\r\n6\r\nPUB metrics.cpu.1 1\r\n"
       "7\r\nPUB metrics.cpu.2 1\r\n8\r\nPUB metrics.cpu.0 1\r\n"
       "9\r\nPUB metrics.cpu.1 2\r\n10\r\nPUB metrics.cpu.2 2\r\n"
       "11\r\nPUB metrics..bad 1\r\nx\r\nHPUB metrics.mem _INBOX.Zr8qk2 26 30\r\n"
       "NATS/1.0\r\nX-Trace: abc\r\n\r\nbody\r\nPING\r\n"),
    CH(ENAV_L7_RESPONSE, 494,
       "+OK\r\nMSG metrics.cpu.0 7 1\r\n0\r\n+OK\r\n"
       "MSG metrics.cpu.1 7 1\r\n1\r\n+OK\r\nMSG metrics.cpu.2 7 1\r\n"
       "2\r\n+OK\r\nMSG metrics.cpu.0 7 1\r\n3\r\n"
       "+OK\r\nMSG metrics.cpu.1 7 1\r\n4\r\n+OK\r\n"
       "MSG metrics.cpu.2 7 1\r\n5\r\n+OK\r\nMSG metrics.cpu.0 7 1\r\n"
       "6\r\n+OK\r\nMSG metrics.cpu.1 7 1\r\n7\r\n"
       "+OK\r\nMSG metrics.cpu.2 7 1\r\n8\r\n+OK\r\n"
       "MSG metrics.cpu.0 7 1\r\n9\r\n+OK\r\nMSG metrics.cpu.1 7 2\r\n"
       "10\r\n+OK\r\nMSG metrics.cpu.2 7 2\r\n11\r\n"
       "-ERR 'Invalid Publish Subject'\r\n+OK\r\n"
       "+OK\r\nHMSG metrics.mem 7 _INBOX.Zr8qk2 26 30\r\n"
       "NATS/1.0\r\nX-Trace: abc\r\n\r\nbody\r\nPONG\r\n"),
    CH(ENAV_L7_REQUEST, 9, "UNSUB 7\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
};

/* traceparent in HPUB/HMSG headers, a 285-byte subject, _INBOX and $JS.ACK. */
static const struct chunk trace_session[] = {
    CH(ENAV_L7_RESPONSE, 305,
       "INFO {\"server_id\":\"NCT7TRINZFNS2YPQ5IB2FAZ23TQ4NLX5VQV33ODORW5PBQA6RTN4UQ"
       "WK\",\"server_name\":\"NCT7TRINZFNS2YPQ5IB2FAZ23TQ4NLX5VQV33ODORW5PBQA6RTN4U"
       "QWK\",\"version\":\"2.9.10\",\"proto\":1,\"go\":\"go1.19.8\",\"host\":\"127."
       "0.0.1\",\"port\":44222,\"headers\":true,\"max_payload\":1048576,\"client_id\""
       ":8,\"client_ip\":\"127.0.0.1\"} \r\n"),
    CH(ENAV_L7_REQUEST, 92,
       "CONNECT {\"verbose\":false,\"pedantic\":false,\"headers\":true,\"protocol\":"
       "1,\"name\":\"trace-test\"}\r\n"),
    CH(ENAV_L7_REQUEST, 342,
       "SUB traced.> 1\r\nSUB fleet.segment00.segment01.segment02.segment03.segment0"
       "4.segment05.segment06.segment07.segment08.segment09.segment10.segment11.segm"
       "ent12.segment13.segment14.segment15.segment16.segment17.segment18.segment19."
       "segment20.segment21.segment22.segment23.segment24.segment25.segment26.segmen"
       "t27 2\r\nSUB _INBOX.> 3\r\nSUB $JS.ACK.> 4\r\n"),
    CH(ENAV_L7_REQUEST, 160,
       "HPUB traced.order _INBOX.Kx81m2Pq.7 108 113\r\n"
       "NATS/1.0\r\nContent-Type: text/plain\r\ntraceparent: 00-4bf92f3577b34da6a3ce"
       "929d0e0e4736-00f067aa0ba902b7-01\r\n\r\nhello\r\n"),
    CH(ENAV_L7_RESPONSE, 162,
       "HMSG traced.order 1 _INBOX.Kx81m2Pq.7 108 113\r\n"
       "NATS/1.0\r\nContent-Type: text/plain\r\ntraceparent: 00-4bf92f3577b34da6a3ce"
       "929d0e0e4736-00f067aa0ba902b7-01\r\n\r\nhello\r\n"),
    CH(ENAV_L7_REQUEST, 299,
       "PUB fleet.segment00.segment01.segment02.segment03.segment04.segment05.segmen"
       "t06.segment07.segment08.segment09.segment10.segment11.segment12.segment13.se"
       "gment14.segment15.segment16.segment17.segment18.segment19.segment20.segment2"
       "1.segment22.segment23.segment24.segment25.segment26.segment27 4\r\n"
       "long\r\n"),
    CH(ENAV_L7_RESPONSE, 301,
       "MSG fleet.segment00.segment01.segment02.segment03.segment04.segment05.segmen"
       "t06.segment07.segment08.segment09.segment10.segment11.segment12.segment13.se"
       "gment14.segment15.segment16.segment17.segment18.segment19.segment20.segment2"
       "1.segment22.segment23.segment24.segment25.segment26.segment27 2 4\r\n"
       "long\r\n"),
    CH(ENAV_L7_REQUEST, 29, "PUB _INBOX.Kx81m2Pq.7 2\r\nok\r\n"),
    CH(ENAV_L7_RESPONSE, 31, "MSG _INBOX.Kx81m2Pq.7 3 2\r\nok\r\n"),
    CH(ENAV_L7_RESPONSE, 6, "PING\r\n"),
    CH(ENAV_L7_REQUEST, 65,
       "PUB $JS.ACK.ORDERS.worker.1.42.17.1764500000000000000.0 4\r\n"
       "+ACK\r\n"),
    CH(ENAV_L7_RESPONSE, 67,
       "MSG $JS.ACK.ORDERS.worker.1.42.17.1764500000000000000.0 4 4\r\n"
       "+ACK\r\n"),
    CH(ENAV_L7_REQUEST, 6, "PING\r\n"),
    CH(ENAV_L7_RESPONSE, 6, "PONG\r\n"),
};

/* A server with authorization: no credentials, then a user with permissions. */
static const struct chunk auth_violation[] = {
    CH(ENAV_L7_RESPONSE, 326,
       "INFO {\"server_id\":\"NC6OYXFWHWA5OCQKLMNM7EE26X33OPVHL3AW5C534PKETVHJDE6TUG"
       "JM\",\"server_name\":\"NC6OYXFWHWA5OCQKLMNM7EE26X33OPVHL3AW5C534PKETVHJDE6TU"
       "GJM\",\"version\":\"2.9.10\",\"proto\":1,\"go\":\"go1.19.8\",\"host\":\"127."
       "0.0.1\",\"port\":44224,\"headers\":true,\"auth_required\":true,\"max_payload"
       "\":1048576,\"client_id\":4,\"client_ip\":\"127.0.0.1\"} \r\n"),
    CH(ENAV_L7_REQUEST, 69,
       "CONNECT {\"verbose\":false,\"pedantic\":false,\"name\":\"enav-test\"}\r\n"
       "PING\r\n"),
    CH(ENAV_L7_RESPONSE, 32, "-ERR 'Authorization Violation'\r\n"),
};
static const struct chunk permissions[] = {
    CH(ENAV_L7_RESPONSE, 326,
       "INFO {\"server_id\":\"NC6OYXFWHWA5OCQKLMNM7EE26X33OPVHL3AW5C534PKETVHJDE6TUG"
       "JM\",\"server_name\":\"NC6OYXFWHWA5OCQKLMNM7EE26X33OPVHL3AW5C534PKETVHJDE6TU"
       "GJM\",\"version\":\"2.9.10\",\"proto\":1,\"go\":\"go1.19.8\",\"host\":\"127."
       "0.0.1\",\"port\":44224,\"headers\":true,\"auth_required\":true,\"max_payload"
       "\":1048576,\"client_id\":5,\"client_ip\":\"127.0.0.1\"} \r\n"),
    CH(ENAV_L7_REQUEST, 108,
       "CONNECT {\"verbose\":true,\"pedantic\":false,\"user\":\"alice\",\"pass\":\"s"
       "ecret\",\"name\":\"perm-test\",\"headers\":true}\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 22, "SUB allowed.events 1\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 21, "SUB denied.events 2\r\n"),
    CH(ENAV_L7_RESPONSE, 66,
       "-ERR 'Permissions Violation for Subscription to \"denied.events\"'\r\n"),
    CH(ENAV_L7_REQUEST, 28, "PUB allowed.events 4\r\nping\r\n"),
    CH(ENAV_L7_RESPONSE, 35, "+OK\r\nMSG allowed.events 1 4\r\nping\r\n"),
    CH(ENAV_L7_REQUEST, 27, "PUB denied.events 4\r\nping\r\n"),
    CH(ENAV_L7_RESPONSE, 61, "-ERR 'Permissions Violation for Publish to \"denied.events\"'\r\n"),
    CH(ENAV_L7_REQUEST, 9, "UNSUB 1\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_RESPONSE, 6, "PING\r\n"),
    CH(ENAV_L7_REQUEST, 6, "PING\r\n"),
    CH(ENAV_L7_RESPONSE, 6, "PONG\r\n"),
};

/* ---- harness -------------------------------------------------------------- */

#define MAX_OPS	 256
#define TS(i)	 ((uint64_t)((i) + 1) * 1000000ull)
#define SEQ_REQ	 1000u
#define SEQ_RESP 0xffffff00u /* wraps inside the session */

struct rec {
	struct enav_l7_op ops[MAX_OPS];
	size_t n;
	struct enav_l7_parser_stats st;
};

static void on_op(void *ctx, const struct enav_l7_op *op)
{
	struct rec *r = ctx;

	assert_true(r->n < MAX_OPS);
	assert_int_equal(op->protocol, ENAV_L7_NATS);
	assert_non_null(memchr(op->operation, '\0', sizeof(op->operation)));
	assert_non_null(memchr(op->target, '\0', sizeof(op->target)));
	assert_non_null(memchr(op->status, '\0', sizeof(op->status)));
	assert_string_equal(op->path, "");
	assert_string_equal(op->statement, "");
	assert_true(op->end_ns >= op->start_ns);
	/* nothing stale after the strings */
	for (size_t i = strlen(op->operation); i < sizeof(op->operation); i++)
		assert_int_equal(op->operation[i], 0);
	for (size_t i = strlen(op->target); i < sizeof(op->target); i++)
		assert_int_equal(op->target[i], 0);
	for (size_t i = strlen(op->status); i < sizeof(op->status); i++)
		assert_int_equal(op->status[i], 0);
	r->ops[r->n++] = *op;
}

struct feed {
	uint32_t split;	 /* 0: each chunk whole; else sub-fragments of this size */
	uint32_t cap;	 /* 0: as recorded; else at most this many captured per chunk */
	int split_chunk; /* >= 0: only this chunk is split, at split_at */
	uint32_t split_at;
	int skip_chunk; /* >= 0: this chunk is lost (the next one on its stream has gap) */
	uint32_t max_pending;
};

static const struct feed WHOLE = {0, 0, -1, 0, -1, 0};

static void feed_frag(void *st, const struct chunk *c, uint32_t from, uint32_t to,
		      uint32_t captured, uint64_t ts, uint32_t seq, bool gap,
		      const struct enav_l7_sink *sink)
{
	uint32_t cap = 0;

	if (captured > from)
		cap = (captured < to ? captured : to) - from;
	uint8_t *buf = malloc(cap ? cap : 1);
	assert_non_null(buf);
	memcpy(buf, c->data + from, cap);
	struct enav_l7_fragment f = {
	    .stream = c->stream,
	    .data = buf,
	    .captured = cap,
	    .len = to - from,
	    .ts_ns = ts,
	    .gap = gap,
	    .has_seq = true,
	    .seq = seq + from,
	};
	enav_l7_nats_ops.feed(st, &f, sink);
	free(buf);
}

static void run(const struct chunk *c, size_t n, const struct feed *o, struct rec *r)
{
	struct enav_l7_options opt = {.max_pending = o->max_pending ? o->max_pending : 32};
	void *st = calloc(1, enav_l7_nats_ops.state_size);
	uint32_t seq[2] = {SEQ_REQ, SEQ_RESP};
	bool pending_gap[2] = {false, false};

	assert_non_null(st);
	memset(r, 0, sizeof(*r));
	struct enav_l7_sink sink = {on_op, r, &r->st, NULL};
	assert_int_equal(enav_l7_nats_ops.init(st, &opt), 0);
	for (size_t i = 0; i < n; i++) {
		int s = c[i].stream;
		uint32_t captured = c[i].captured;

		bool gap = pending_gap[s];

		if ((int)i == o->skip_chunk) {
			seq[s] += c[i].len;
			pending_gap[s] = true;
			continue;
		}
		pending_gap[s] = false;
		if (o->cap && captured > o->cap)
			captured = o->cap;
		if ((int)i == o->split_chunk) {
			uint32_t k = o->split_at < c[i].len ? o->split_at : c[i].len;
			feed_frag(st, &c[i], 0, k, captured, TS(i), seq[s], gap, &sink);
			feed_frag(st, &c[i], k, c[i].len, captured, TS(i), seq[s], false, &sink);
		} else if (o->split) {
			for (uint32_t a = 0; a < c[i].len; a += o->split) {
				uint32_t b = a + o->split < c[i].len ? a + o->split : c[i].len;
				feed_frag(st, &c[i], a, b, captured, TS(i), seq[s], gap && a == 0,
					  &sink);
			}
		} else {
			feed_frag(st, &c[i], 0, c[i].len, captured, TS(i), seq[s], gap, &sink);
		}
		seq[s] += c[i].len;
	}
	enav_l7_nats_ops.finish(st, &sink);
	free(st);
	assert_int_equal(r->st.ops, r->n);
}

static uint32_t chunk_seq(const struct chunk *c, size_t idx, uint32_t off)
{
	uint32_t seq = c[idx].stream == ENAV_L7_REQUEST ? SEQ_REQ : SEQ_RESP;

	for (size_t i = 0; i < idx; i++)
		if (c[i].stream == c[idx].stream)
			seq += c[i].len;
	return seq + off;
}

enum { REQ = ENAV_L7_OP_REQUEST, MSG = ENAV_L7_OP_MESSAGE };

struct exp {
	const char *op;
	const char *target;
	uint8_t kind;
	bool error;
	const char *status;
	uint64_t req_bytes, resp_bytes;
	int start, end; /* chunk indexes; end used by REQ only */
	uint32_t seq_off;
};

/* Shorthands: a verbose request, a one-way publish/subscribe, a delivery. */
#define RQ(op, t, rq, rs, s, e, off)                                                               \
	{                                                                                          \
		op, t, REQ, false, "", rq, rs, s, e, off                                           \
	}
#define RQE(op, t, st, rq, rs, s, e)                                                               \
	{                                                                                          \
		op, t, REQ, true, st, rq, rs, s, e, 0                                              \
	}
#define OW(op, t, rq, s, off)                                                                      \
	{                                                                                          \
		op, t, MSG, false, "", rq, 0, s, s, off                                            \
	}
#define RCV(t, size, s, off)                                                                       \
	{                                                                                          \
		"receive", t, MSG, false, "", 0, size, s, s, off                                   \
	}

static void dump(const struct rec *r)
{
	for (size_t i = 0; i < r->n; i++)
		fprintf(stderr, "op %zu: %s [%s] kind=%d err=%d status=%s seen=%d %llu/%llu\n", i,
			r->ops[i].operation, r->ops[i].target, r->ops[i].kind, r->ops[i].error,
			r->ops[i].status, r->ops[i].response_seen,
			(unsigned long long)r->ops[i].request_bytes,
			(unsigned long long)r->ops[i].response_bytes);
}

static void check(const struct rec *r, const struct chunk *c, const struct exp *e, size_t n)
{
	if (r->n != n)
		dump(r);
	assert_int_equal(r->n, n);
	for (size_t i = 0; i < n; i++) {
		const struct enav_l7_op *op = &r->ops[i];
		bool rcv = strcmp(e[i].op, "receive") == 0;
		assert_string_equal(op->operation, e[i].op);
		assert_string_equal(op->target, e[i].target);
		assert_int_equal(op->kind, e[i].kind);
		assert_int_equal(op->messaging_receive, rcv);
		assert_int_equal(op->error, e[i].error);
		assert_string_equal(op->status, e[i].status);
		assert_int_equal(op->status_code, -1);
		assert_int_equal(op->response_seen, e[i].kind == REQ);
		assert_int_equal(op->request_bytes, e[i].req_bytes);
		assert_int_equal(op->response_bytes, e[i].resp_bytes);
		assert_int_equal(op->start_ns, TS(e[i].start));
		assert_int_equal(op->end_ns, TS(e[i].kind == REQ ? e[i].end : e[i].start));
		assert_true(op->has_request_seq);
		assert_int_equal(op->request_seq, chunk_seq(c, (size_t)e[i].start, e[i].seq_off));
		assert_false(op->rpc);
	}
}

static bool same_run(const struct rec *a, const struct rec *b)
{
	if (a->n != b->n || memcmp(&a->st, &b->st, sizeof(a->st)) != 0)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (memcmp(&a->ops[i], &b->ops[i], sizeof(a->ops[i])) != 0)
			return false;
	return true;
}

static struct rec g_whole, g_other;

/* Same ops and stats whether fed whole, split at every byte boundary of
 * every chunk, or in small pieces. */
static void check_splits(const struct chunk *c, size_t n)
{
	run(c, n, &WHOLE, &g_whole);
	for (size_t i = 0; i < n; i++) {
		for (uint32_t k = 1; k < c[i].len; k++) {
			struct feed o = WHOLE;
			o.split_chunk = (int)i;
			o.split_at = k;
			run(c, n, &o, &g_other);
			if (!same_run(&g_whole, &g_other))
				fail_msg("chunk %zu split at %u differs", i, k);
		}
	}
	for (uint32_t sz = 1; sz <= 7; sz += 3) {
		struct feed o = WHOLE;
		o.split = sz;
		run(c, n, &o, &g_other);
		if (!same_run(&g_whole, &g_other))
			fail_msg("split into %u-byte fragments differs", sz);
	}
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- detect --------------------------------------------------------------- */

static bool det(const char *s, size_t n, enum enav_l7_stream st)
{
	uint8_t *b = malloc(n ? n : 1);
	memcpy(b, s, n);
	bool r = enav_l7_nats_ops.detect(b, n, st);
	free(b);
	return r;
}
#define DET(lit, st) det(lit, sizeof(lit) - 1, st)

static void test_detect(void **unused)
{
	(void)unused;
	assert_string_equal(enav_l7_protocol_name(enav_l7_nats_ops.protocol), "nats");
	assert_int_equal(enav_l7_nats_ops.protocol, ENAV_L7_NATS);
	for (size_t i = 0; i < N(verbose_session); i++) {
		const struct chunk *c = &verbose_session[i];
		bool first = i <= 1;
		assert_int_equal(
		    enav_l7_nats_ops.detect((const uint8_t *)c->data, c->captured, c->stream),
		    first);
	}
	assert_true(DET("CONNECT {", ENAV_L7_REQUEST));
	assert_true(DET("CONNECT  \t{\"verbose\":false}\r\n", ENAV_L7_REQUEST));
	assert_true(DET("INFO {\"server_id\":\"x\"}\r\n", ENAV_L7_RESPONSE));
	assert_true(DET("INFO  {", ENAV_L7_RESPONSE));
	assert_false(DET("CONNECT {", ENAV_L7_RESPONSE));
	assert_false(DET("INFO {", ENAV_L7_REQUEST));
	assert_false(DET("CONNECT ", ENAV_L7_REQUEST));
	assert_false(DET("CONNECT{", ENAV_L7_REQUEST));
	assert_false(DET("INFO", ENAV_L7_RESPONSE));
	/* Other protocols' signatures, HTTP's CONNECT first. */
	assert_false(DET("CONNECT example.com:443 HTTP/1.1\r\n", ENAV_L7_REQUEST));
	assert_false(DET("GET / HTTP/1.1\r\n", ENAV_L7_REQUEST));
	assert_false(DET("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", ENAV_L7_REQUEST));
	assert_false(DET("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", ENAV_L7_REQUEST));
	assert_false(DET("\0\0\0\x29\0\x03\0\0user\0", ENAV_L7_REQUEST));
	assert_false(DET("\0\0\0\x20\0\x12\0\x03\0\0\0\x01", ENAV_L7_REQUEST));
	assert_false(DET("\x2a\0\0\0\x01\0\0\0\0\0\0\0\xdd\x07\0\0", ENAV_L7_REQUEST));
	assert_false(DET("HTTP/1.1 200 OK\r\n", ENAV_L7_RESPONSE));
	assert_false(DET("+OK\r\n", ENAV_L7_RESPONSE));
	assert_false(DET("\x4a\0\0\0\x0a"
			 "8.0.36\0",
			 ENAV_L7_RESPONSE));
	assert_false(DET("\0\0\x00\x18\x04\0\0\0\0", ENAV_L7_RESPONSE));
}

/* ---- real traffic --------------------------------------------------------- */

static const struct exp verbose_exp[] = {
    RQ("subscribe", "orders.created", 22, 5, 5, 6, 0), RQ("subscribe", "orders.*", 24, 5, 7, 8, 0),
    RQ("publish", "orders.created", 29, 5, 9, 10, 0), RCV("orders.created", 5, 10, 5),
    RCV("orders.created", 5, 10, 36),
    RQ("publish", "orders.created", 41, 5, 11, 12, 0), /* the reply subject never leaves */
    RCV("orders.created", 3, 12, 5), RCV("orders.created", 3, 12, 48),
    RQ("publish", "orders.created", 60, 5, 14, 15, 0), /* HPUB */
    RCV("orders.created", 31, 15, 5),		       /* HMSG: headers + payload */
    RCV("orders.created", 31, 15, 67), RQ("publish", "orders.created", 3027, 5, 16, 17, 0),
    RCV("orders.created", 3000, 17, 5), RCV("orders.created", 3000, 17, 3034),
    RQ("unsubscribe", "orders.*", 9, 5, 18, 19, 0), /* sid 2's subject */
    RQ("publish", "orders.created", 26, 5, 20, 21, 0), RCV("orders.created", 2, 21, 5),
    RQ("publish", "orders.updated", 24, 5, 20, 21, 26),
    /* pedantic: -ERR then +OK for the same PUB */
    RQE("publish", "orders..bad", "Invalid Publish Subject", 23, 32 + 5, 22, 23),
    /* "FOO": a parse error; its -ERR has no request */
};

static void test_verbose(void **unused)
{
	(void)unused;
	run(verbose_session, N(verbose_session), &WHOLE, &g_whole);
	check(&g_whole, verbose_session, verbose_exp, N(verbose_exp));
	assert_int_equal(g_whole.st.parse_errors, 1);
	assert_int_equal(g_whole.st.resyncs, 1);
	assert_int_equal(g_whole.st.unmatched_responses, 1);
	assert_int_equal(g_whole.st.truncated_fields, 0);
	assert_int_equal(g_whole.st.pending_overflow, 0);
	check_splits(verbose_session, N(verbose_session));
}

static const struct exp quiet_exp[] = {
    OW("subscribe", "orders.created", 22, 4, 0),
    OW("subscribe", "orders.*", 24, 5, 0),
    OW("publish", "orders.created", 29, 6, 0),
    RCV("orders.created", 5, 7, 0),
    RCV("orders.created", 5, 7, 31),
    OW("publish", "orders.created", 41, 8, 0),
    RCV("orders.created", 3, 9, 0),
    RCV("orders.created", 3, 9, 43),
    OW("publish", "orders.created", 60, 11, 0),
    RCV("orders.created", 31, 12, 0),
    RCV("orders.created", 31, 12, 62),
    OW("publish", "orders.created", 3027, 13, 0),
    RCV("orders.created", 3000, 14, 0),
    RCV("orders.created", 3000, 14, 3029),
    OW("unsubscribe", "orders.*", 9, 15, 0),
    OW("publish", "orders.created", 26, 16, 0),
    OW("publish", "orders.updated", 24, 16, 26),
    RCV("orders.created", 2, 17, 0),
};

static void test_quiet(void **unused)
{
	(void)unused;
	run(quiet_session, N(quiet_session), &WHOLE, &g_whole);
	check(&g_whole, quiet_session, quiet_exp, N(quiet_exp));
	assert_int_equal(g_whole.st.parse_errors, 1); /* FOO */
	assert_int_equal(g_whole.st.unmatched_responses, 1);
	check_splits(quiet_session, N(quiet_session));

	/* Only 64 bytes of each read captured: the 3000-byte payloads are
	 * skipped by size; a second MSG/HMSG in the uncaptured bytes of a read
	 * (three reads) is lost with a resync, never guessed. */
	struct feed o = WHOLE;
	o.cap = 64;
	run(quiet_session, N(quiet_session), &o, &g_other);
	struct exp e[N(quiet_exp)];
	size_t k = 0;
	for (size_t i = 0; i < N(quiet_exp); i++)
		if (!(quiet_exp[i].kind == MSG && quiet_exp[i].seq_off > 0 &&
		      strcmp(quiet_exp[i].op, "receive") == 0 && quiet_exp[i].start > 7))
			e[k++] = quiet_exp[i];
	check(&g_other, quiet_session, e, k);
	assert_int_equal(k, N(quiet_exp) - 3);
	/* and the 305-byte INFO and 182-byte CONNECT lines, cut too */
	assert_int_equal(g_other.st.resyncs, 3 + 2 + 1);
	assert_int_equal(g_other.st.parse_errors, 1);
}

static void test_bursts(void **unused)
{
	(void)unused;
	struct exp e[40];
	size_t n = 0;
	uint32_t off = 0, roff = 0;

	/* Quiet: 12 PUBs and an HPUB in one read, 13 deliveries in one read. */
	e[n++] = (struct exp)OW("subscribe", "metrics.>", 17, 3, 0);
	static const char *const cpu[] = {"metrics.cpu.0", "metrics.cpu.1", "metrics.cpu.2"};
	for (int i = 0; i < 12; i++) {
		uint32_t sz = i < 10 ? 24 : 25;
		e[n++] = (struct exp)OW("publish", cpu[i % 3], sz, 4, off);
		off += sz;
	}
	e[n++] = (struct exp)OW("publish", "metrics.mem", 70, 4, off);
	for (int i = 0; i < 12; i++) {
		e[n++] = (struct exp)RCV(cpu[i % 3], i < 10 ? 1 : 2, 5, roff);
		roff += i < 10 ? 26 : 27;
	}
	e[n++] = (struct exp)RCV("metrics.mem", 30, 5, roff);
	e[n++] = (struct exp)OW("unsubscribe", "metrics.>", 9, 6, 0);
	run(quiet_burst, N(quiet_burst), &WHOLE, &g_whole);
	check(&g_whole, quiet_burst, e, n);
	assert_int_equal(g_whole.st.parse_errors, 0);
	assert_int_equal(g_whole.st.unmatched_responses, 0);
	check_splits(quiet_burst, N(quiet_burst));

	/* Verbose: each +OK (5 bytes) pairs FIFO, deliveries interleave. */
	n = 0;
	off = 0;
	roff = 5;
	e[n++] = (struct exp)RQ("subscribe", "metrics.>", 17, 5, 3, 4, 0);
	for (int i = 0; i < 12; i++) {
		uint32_t sz = i < 10 ? 24 : 25;
		e[n++] = (struct exp)RQ("publish", cpu[i % 3], sz, 5, 5, 6, off);
		e[n++] = (struct exp)RCV(cpu[i % 3], i < 10 ? 1 : 2, 6, roff);
		off += sz;
		roff += i < 10 ? 31 : 32;
	}
	e[n++] = (struct exp){"publish", "metrics..bad", REQ, true, "Invalid Publish Subject",
			      23,	 32 + 5,	 5,   6,    off};
	off += 23;
	e[n++] = (struct exp)RQ("publish", "metrics.mem", 70, 5, 5, 6, off);
	roff += 32 + 5 + 5 - 5; /* the -ERR, two +OK; no +OK before it */
	e[n++] = (struct exp)RCV("metrics.mem", 30, 6, roff);
	e[n++] = (struct exp)RQ("unsubscribe", "metrics.>", 9, 5, 7, 8, 0);
	run(verbose_burst, N(verbose_burst), &WHOLE, &g_whole);
	check(&g_whole, verbose_burst, e, n);
	assert_int_equal(g_whole.st.unmatched_responses, 0);
	check_splits(verbose_burst, N(verbose_burst));

	/* A FIFO of 4: the burst's other 10 requests are dropped and counted,
	 * their replies (the invalid subject's two included) consumed in order:
	 * UNSUB still gets its own +OK. */
	struct feed o = WHOLE;
	o.max_pending = 4;
	run(verbose_burst, N(verbose_burst), &o, &g_other);
	assert_int_equal(g_other.st.pending_overflow, 10);
	assert_int_equal(g_other.st.unmatched_responses, 0);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		bool dropped = e[i].kind == REQ && e[i].start == 5 && e[i].seq_off >= 4 * 24;
		if (!dropped)
			e[k++] = e[i];
	}
	check(&g_other, verbose_burst, e, k);
	assert_int_equal(k, n - 10);
}

static void test_trace_and_subjects(void **unused)
{
	(void)unused;
	static const char longsubj[] =
	    "fleet.segment00.segment01.segment02.segment03.segment04.segment05.segment06."
	    "segment07.segment08.segment09.segment10.segment11.s";
	static const struct exp x[] = {
	    OW("subscribe", "traced.>", 16, 2, 0),
	    OW("subscribe", longsubj, 293, 2, 16), /* a 285-byte subject, cut */
	    OW("subscribe", "_INBOX.*", 16, 2, 309),
	    OW("subscribe", "$JS.ACK.>", 17, 2, 325),
	    OW("publish", "traced.order", 160, 3, 0),
	    RCV("traced.order", 113, 4, 0),
	    OW("publish", longsubj, 299, 5, 0), /* a 291-byte line, longer than the buffer */
	    RCV(longsubj, 4, 6, 0),
	    OW("publish", "_INBOX.*", 29, 7, 0),
	    RCV("_INBOX.*", 2, 8, 0),
	    OW("publish", "$JS.ACK.ORDERS.worker.*", 65, 10, 0),
	    RCV("$JS.ACK.ORDERS.worker.*", 4, 11, 0),
	};
	static const uint8_t trace_id[16] = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
					     0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36};
	static const uint8_t parent_id[8] = {0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7};

	assert_int_equal(strlen(longsubj), ENAV_L7_TARGET_MAX - 1);
	run(trace_session, N(trace_session), &WHOLE, &g_whole);
	check(&g_whole, trace_session, x, N(x));
	for (size_t i = 0; i < g_whole.n; i++) {
		const struct enav_l7_op *op = &g_whole.ops[i];
		bool traced = strcmp(op->target, "traced.order") == 0;
		assert_int_equal(op->has_traceparent, traced);
		if (traced) {
			assert_memory_equal(op->trace_id, trace_id, 16);
			assert_memory_equal(op->parent_id, parent_id, 8);
			assert_int_equal(op->trace_flags, 1);
		}
	}
	assert_int_equal(g_whole.st.truncated_fields, 3);
	assert_int_equal(g_whole.st.parse_errors, 0);
	check_splits(trace_session, N(trace_session));
}

static void test_auth_errors(void **unused)
{
	(void)unused;
	/* Not verbose: the -ERR is counted, nothing is guessed. */
	run(auth_violation, N(auth_violation), &WHOLE, &g_whole);
	assert_int_equal(g_whole.n, 0);
	assert_int_equal(g_whole.st.unmatched_responses, 1);
	assert_int_equal(g_whole.st.parse_errors, 0);

	static const struct exp x[] = {
	    RQ("subscribe", "allowed.events", 22, 5, 3, 4, 0),
	    RQE("subscribe", "denied.events", "Permissions Violation", 21, 66, 5, 6),
	    RQ("publish", "allowed.events", 28, 5, 7, 8, 0),
	    RCV("allowed.events", 4, 8, 5),
	    RQE("publish", "denied.events", "Permissions Violation", 27, 61, 9, 10),
	    RQ("unsubscribe", "allowed.events", 9, 5, 11, 12, 0),
	};
	run(permissions, N(permissions), &WHOLE, &g_whole);
	check(&g_whole, permissions, x, N(x));
	assert_int_equal(g_whole.st.unmatched_responses, 0);
	check_splits(permissions, N(permissions));
}

/* ---- loss ----------------------------------------------------------------- */

static void test_gaps(void **unused)
{
	(void)unused;
	struct feed o = WHOLE;

	/* A response read lost: the requests waiting then cannot be paired
	 * (response_seen = false); the +OK arriving after the gap is counted. */
	o.skip_chunk = 10;
	run(verbose_session, N(verbose_session), &o, &g_whole);
	assert_string_equal(g_whole.ops[2].operation, "publish");
	assert_false(g_whole.ops[2].response_seen);
	assert_int_equal(g_whole.ops[2].start_ns, TS(9));
	assert_false(g_whole.ops[3].response_seen);
	assert_int_equal(g_whole.ops[3].start_ns, TS(11));
	assert_true(g_whole.ops[4].messaging_receive); /* chunk 12's deliveries */
	assert_int_equal(g_whole.st.resyncs, 2);
	assert_int_equal(g_whole.st.unmatched_responses, 2);
	/* from the HPUB on, all is paired again */
	size_t tail = g_whole.n - 13;
	for (size_t i = 0; i < 13; i++) {
		const struct enav_l7_op *a = &g_whole.ops[tail + i];
		const struct exp *b = &verbose_exp[N(verbose_exp) - 13 + i];
		assert_string_equal(a->operation, b->op);
		assert_int_equal(a->response_bytes, b->resp_bytes);
		assert_int_equal(a->end_ns, TS(b->kind == REQ ? b->end : b->start));
	}

	/* A request read lost (PUB hello): its +OK arrives before the next
	 * request and is counted; the next PUB is paired with its own. */
	o.skip_chunk = 9;
	run(verbose_session, N(verbose_session), &o, &g_whole);
	assert_string_equal(g_whole.ops[2].operation, "receive");
	assert_string_equal(g_whole.ops[4].operation, "publish");
	assert_int_equal(g_whole.ops[4].start_ns, TS(11));
	assert_int_equal(g_whole.ops[4].end_ns, TS(12));
	assert_int_equal(g_whole.st.unmatched_responses, 2);
	assert_int_equal(g_whole.st.parse_errors, 1);

	/* A request gap while in the middle of a payload: resync at the next
	 * read that starts with a keyword. */
	static const struct chunk mid[] = {
	    C(ENAV_L7_REQUEST, "PUB a.b 10"),
	    C(ENAV_L7_REQUEST, "\r\n012345"),
	    C(ENAV_L7_REQUEST, "6789"), /* lost */
	    C(ENAV_L7_REQUEST, "\r\nPUB c.d 1\r\nx\r\n"),
	    C(ENAV_L7_REQUEST, "PUB e.f 1\r\ny\r\n"),
	};
	o.skip_chunk = 2;
	run(mid, N(mid), &o, &g_whole);
	assert_int_equal(g_whole.n, 1);
	assert_string_equal(g_whole.ops[0].target, "e.f");
	assert_int_equal(g_whole.ops[0].request_seq, SEQ_REQ + 10 + 8 + 4 + 16);
	assert_int_equal(g_whole.st.resyncs, 1);
	assert_int_equal(g_whole.st.parse_errors, 0);
}

/* ---- synthetic ------------------------------------------------------------ */

static void req_only(const char *s, size_t n, struct rec *r)
{
	struct chunk c[1] = {{ENAV_L7_REQUEST, (uint32_t)n, (uint32_t)n, s}};
	run(c, 1, &WHOLE, r);
}
#define REQONLY(lit, r) req_only(lit, sizeof(lit) - 1, r)

static void pair(const char *q, size_t qn, const char *s, size_t sn, struct rec *r)
{
	struct chunk c[2] = {{ENAV_L7_REQUEST, (uint32_t)qn, (uint32_t)qn, q},
			     {ENAV_L7_RESPONSE, (uint32_t)sn, (uint32_t)sn, s}};
	run(c, 2, &WHOLE, r);
}
#define PAIR(q, s, r) pair(q, sizeof(q) - 1, s, sizeof(s) - 1, r)

#define VERBOSE "CONNECT {\"verbose\":true}\r\n"

static void test_lines(void **unused)
{
	(void)unused;
	struct rec *r = &g_whole;

	/* Case-insensitive operations, tabs and runs of spaces, LF-only. */
	REQONLY("pub\ta.b  2\nhi\r\nSub  x.y\tq  9\nunsub 9 5\r\n", r);
	assert_int_equal(r->n, 3);
	assert_string_equal(r->ops[0].operation, "publish");
	assert_string_equal(r->ops[0].target, "a.b");
	assert_int_equal(r->ops[0].request_bytes, 15);
	assert_string_equal(r->ops[1].target, "x.y");
	assert_string_equal(r->ops[2].operation, "unsubscribe");
	assert_string_equal(r->ops[2].target, "x.y");
	assert_int_equal(r->st.parse_errors, 0);

	/* UNSUB of a sid never seen: no subject to name. */
	REQONLY("UNSUB 42\r\n", r);
	assert_int_equal(r->n, 1);
	assert_string_equal(r->ops[0].target, "");

	/* "verbose" only counts as a top-level key. */
	REQONLY("CONNECT {\"name\":\"\\\"verbose\\\":true\",\"opts\":{\"verbose\":true}}\r\n"
		"PUB a 0\r\n\r\n",
		r);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->ops[0].kind, ENAV_L7_OP_MESSAGE);
	REQONLY("CONNECT {\"lang\":\"go\" , \"verbose\" : true}\r\nPUB a 0\r\n\r\n", r);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->ops[0].kind, ENAV_L7_OP_REQUEST);
	assert_false(r->ops[0].response_seen); /* finish: no +OK came */

	/* A CONNECT longer than the line buffer still yields its verbose. */
	char big[3000];
	int bn = snprintf(big, sizeof(big),
			  "CONNECT {\"jwt\":\"%02000d\",\"verbose\":true}\r\n"
			  "SUB s 1\r\n",
			  0);
	pair(big, (size_t)bn, "+OK\r\n+OK\r\n", 10, r);
	assert_int_equal(r->n, 1);
	assert_true(r->ops[0].response_seen);
	assert_int_equal(r->st.truncated_fields, 0);

	/* Framing errors: counted, then resync at the next read. */
	static const char *const bad[] = {
	    "PUB a.b x\r\n",
	    "PUB a.b 1 2 3\r\nx\r\n",
	    "HPUB a 5 4\r\nxxxx\r\n",
	    "PUB a 2\r\nhiX\n",
	    "SUB a\r\n",
	    "UNSUB\r\n",
	    "PUB a 99999999999\r\n",
	    "MSG a 1 2\r\n",
	    "PUB a\r1\r\n",
	    "NOPE\r\n",
	    "PUB a 1\r\nx\rX",
	    "UNSUB 1 x\r\n",
	};
	for (size_t i = 0; i < N(bad); i++) {
		req_only(bad[i], strlen(bad[i]), r);
		assert_int_equal(r->n, 0);
		assert_int_equal(r->st.parse_errors, 1);
	}

	/* A line with no newline for 64 KiB cannot be framed. */
	char *line = malloc(70000);
	memcpy(line, "PUB ", 4);
	memset(line + 4, 'a', 70000 - 4);
	req_only(line, 70000, r);
	assert_int_equal(r->st.parse_errors, 1);
	free(line);

	/* Server lines on the request stream are not client operations. */
	REQONLY("MSG a 1 1\r\nx\r\n", r);
	assert_int_equal(r->st.parse_errors, 1);
}

static void test_errors(void **unused)
{
	(void)unused;
	struct rec *r = &g_whole;
	static const struct {
		const char *err, *status;
		bool cut;
	} errs[] = {
	    {"-ERR 'Authorization Violation'\r\n", "Authorization Violation", false},
	    {"-ERR 'Unknown Protocol Operation'\r\n", "Unknown Protocol Operat", true},
	    {"-ERR 'Permissions Violation for Publish to \"x.y\"'\r\n", "Permissions Violation",
	     false},
	    {"-ERR 'Maximum Payload Violation'\r\n", "Maximum Payload Violati", true},
	    {"-ERR 'Secure Connection - TLS Required'\r\n", "Secure Connection", false},
	    {"-ERR 'x.y is bad'\r\n", "-ERR", false},
	    {"-ERR\r\n", "-ERR", false},
	    {"-err 'Stale Connection'\r\n", "Stale Connection", false},
	};
	for (size_t i = 0; i < N(errs); i++) {
		char q[] = VERBOSE "PUB x.y 0\r\n\r\n";
		char s[128];
		int sn = snprintf(s, sizeof(s), "+OK\r\n%s", errs[i].err);
		pair(q, sizeof(q) - 1, s, (size_t)sn, r);
		assert_int_equal(r->n, 1);
		assert_true(r->ops[0].error);
		assert_string_equal(r->ops[0].status, errs[i].status);
		assert_int_equal(r->st.truncated_fields, errs[i].cut);
	}

	/* Replies with nothing pending, +OK when not verbose. */
	PAIR("PUB a 0\r\n\r\n", "+OK\r\n+OK\r\n", r);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->st.unmatched_responses, 2);

	/* A CONNECT rejected in verbose mode: no op carries it, counted. */
	PAIR(VERBOSE, "-ERR 'Authorization Violation'\r\n", r);
	assert_int_equal(r->n, 0);
	assert_int_equal(r->st.unmatched_responses, 1);

	/* Overflow: the dropped request is counted. */
	struct chunk c[2] = {
	    {ENAV_L7_REQUEST, 0, 0, VERBOSE "SUB a 1\r\nSUB b 2\r\nSUB c 3\r\n"},
	    C(ENAV_L7_RESPONSE, "+OK\r\n+OK\r\n+OK\r\n+OK\r\n"),
	};
	c[0].captured = c[0].len = (uint32_t)strlen(c[0].data);
	struct feed o = WHOLE;
	o.max_pending = 2;
	run(c, 2, &o, r);
	assert_int_equal(r->st.pending_overflow, 2);
	assert_int_equal(r->n, 1);
	assert_string_equal(r->ops[0].target, "a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_detect),
	    cmocka_unit_test(test_verbose),
	    cmocka_unit_test(test_quiet),
	    cmocka_unit_test(test_bursts),
	    cmocka_unit_test(test_trace_and_subjects),
	    cmocka_unit_test(test_auth_errors),
	    cmocka_unit_test(test_gaps),
	    cmocka_unit_test(test_lines),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
