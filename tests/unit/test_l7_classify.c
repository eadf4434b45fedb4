/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The kernel's one-time classification (include/enav/l7_classify.h, the same
 * code the BPF program runs) and each parser's detect() must agree: a
 * connection the kernel hands to protocol P is one P's parser accepts, and
 * no other parser claims it.  Samples are the first bytes real clients and
 * servers send (captured from the Debian packages the integration tests use).
 * The protocol table (src/model/protocols.c) and the parser table
 * (src/features/network/l7/l7_parsers.c) must describe the same protocols.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "enav/l7_classify.h"
#include "features/network/l7/l7_conn.h"
#include "model/protocols.h"

struct sample {
	const char *what;
	int protocol;
	bool request;
	const uint8_t *bytes;
	size_t n;
};

#define S(what, proto, req, lit)                                                                   \
	{                                                                                          \
		what, proto, req, (const uint8_t *)(lit), sizeof(lit) - 1                          \
	}

static const struct sample samples[] = {
    S("curl GET", ENAV_L7_HTTP1, true, "GET /static/small.txt HTTP/1.1\r\nHost: x\r\n\r\n"),
    S("POST", ENAV_L7_HTTP1, true, "POST /api HTTP/1.1\r\nContent-Length: 0\r\n\r\n"),
    S("nginx response", ENAV_L7_HTTP1, false, "HTTP/1.1 200 OK\r\nServer: nginx\r\n\r\n"),
    S("HTTP/2 preface", ENAV_L7_HTTP2, true, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x0c\x04"),
    S("HTTP/2 server SETTINGS", ENAV_L7_HTTP2, false,
      "\x00\x00\x12\x04\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x80\x00\x04"),
    S("redis-cli PING", ENAV_L7_REDIS, true, "*1\r\n$4\r\nPING\r\n"),
    S("redis SET", ENAV_L7_REDIS, true, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"),
    S("psql SSLRequest", ENAV_L7_POSTGRES, true, "\x00\x00\x00\x08\x04\xd2\x16\x2f"),
    S("psql startup", ENAV_L7_POSTGRES, true,
      "\x00\x00\x00\x29\x00\x03\x00\x00user\0postgres\0database\0postgres\0\0"),
    S("MariaDB greeting", ENAV_L7_MYSQL, false,
      "\x56\x00\x00\x00\x0a"
      "5.5.5-10.11.19-MariaDB\0"),
    S("librdkafka ApiVersions", ENAV_L7_KAFKA, true,
      "\x00\x00\x00\x12\x00\x12\x00\x03\x00\x00\x00\x01\x00\x07rdkafka\x00"),
    S("pymongo OP_MSG hello", ENAV_L7_MONGO, true,
      "\x25\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\xdd\x07\x00\x00"
      "\x00\x00\x00\x00\x00\x10\x00\x00\x00\x10hello\x00\x01\x00\x00\x00\x00"),
    S("pymongo OP_QUERY isMaster", ENAV_L7_MONGO, true,
      "\x3a\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\xd4\x07\x00\x00"
      "\x00\x00\x00\x00admin.$cmd\x00\x00\x00\x00\x00\xff\xff\xff\xff"
      "\x13\x00\x00\x00\x10isMaster\x00\x01\x00\x00\x00\x00"),
    S("nats-server INFO", ENAV_L7_NATS, false,
      "INFO {\"server_id\":\"x\",\"version\":\"2.9.10\"} \r\n"),
    S("NATS CONNECT", ENAV_L7_NATS, true, "CONNECT {\"verbose\":false}\r\n"),
};

static const struct sample unclassified[] = {
    S("TLS ClientHello", 0, true, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"),
    S("SSH banner", 0, false, "SSH-2.0-OpenSSH_9.2p1\r\n"),
    S("SMTP greeting", 0, false, "220 mail ESMTP\r\n"),
    S("zeros", 0, true, "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"),
};

/* Every protocol the configuration can select. */
static uint32_t selectable_mask(void)
{
	uint32_t mask = 0;
	for (unsigned p = 0; p < ENAV_L7__COUNT; p++)
		if (enav_protocol_selectable(enav_protocol(p)))
			mask |= 1u << p;
	return mask;
}

static void test_kernel_and_parsers_agree(void **st)
{
	(void)st;
	const uint32_t all = selectable_mask();
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const struct sample *s = &samples[i];
		size_t head = s->n < ENAV_L7_HEAD ? s->n : ENAV_L7_HEAD;
		uint8_t got =
		    enav_l7_classify(s->bytes, (uint32_t)head, (uint32_t)s->n, s->request, all);
		if (got != s->protocol)
			fail_msg("%s: kernel classifies as %u, want %d", s->what, got, s->protocol);
		/* Turned off, the protocol is never chosen. */
		uint8_t off = enav_l7_classify(s->bytes, (uint32_t)head, (uint32_t)s->n, s->request,
					       all & ~(1u << s->protocol));
		if (off == s->protocol)
			fail_msg("%s: classified while disabled", s->what);
		enum enav_l7_stream stream = s->request ? ENAV_L7_REQUEST : ENAV_L7_RESPONSE;
		for (int p = 0; p < ENAV_L7__COUNT; p++) {
			const struct enav_l7_parser_ops *ops = enav_l7_parser(p);
			if (!ops)
				continue;
			bool yes = ops->detect(s->bytes, s->n, stream);
			if (p == s->protocol && !yes)
				fail_msg("%s: the %s parser does not detect it", s->what,
					 enav_l7_protocol_name(ops->protocol));
			if (p != s->protocol && yes)
				fail_msg("%s: the %s parser claims it too", s->what,
					 enav_l7_protocol_name(ops->protocol));
		}
	}
}

static void test_unclassified_stays_out(void **st)
{
	(void)st;
	for (size_t i = 0; i < sizeof(unclassified) / sizeof(unclassified[0]); i++) {
		const struct sample *s = &unclassified[i];
		size_t head = s->n < ENAV_L7_HEAD ? s->n : ENAV_L7_HEAD;
		for (int req = 0; req < 2; req++)
			if (enav_l7_classify(s->bytes, (uint32_t)head, (uint32_t)s->n, req,
					     selectable_mask()) != ENAV_L7C_NONE)
				fail_msg("%s classified", s->what);
	}
}

static void test_protocol_table(void **st)
{
	(void)st;
	for (unsigned id = 0; id < ENAV_L7__COUNT; id++) {
		const struct enav_protocol *row = enav_protocol(id);
		assert_int_equal(row->id, id);
		assert_ptr_equal(enav_protocol_by_name(row->name, strlen(row->name)), row);
		const struct enav_l7_parser_ops *ops = enav_l7_parser(id);
		if (!enav_protocol_selectable(row)) {
			assert_null(ops);
			continue;
		}
		/* The kernel's answer is read back as the protocol id. */
		assert_int_equal(row->classifier, id);
		assert_non_null(ops);
		assert_int_equal(ops->protocol, id); /* and so its name is the row's */
		assert_int_not_equal(row->family, ENAV_SPAN_FAMILY_NONE);
	}
	assert_ptr_equal(enav_protocol(ENAV_L7__COUNT), enav_protocol(ENAV_L7_UNKNOWN));
	assert_false(enav_protocol_selectable(enav_protocol(ENAV_L7_WEBSOCKET)));
	assert_null(enav_protocol_by_name("http", 4));

	/* The full list is checked as the configuration error shows it (test_config). */
	char cut[8];
	enav_protocol_selectable_names(cut, sizeof(cut));
	assert_string_equal(cut, "http1, ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kernel_and_parsers_agree),
	    cmocka_unit_test(test_unclassified_stays_out),
	    cmocka_unit_test(test_protocol_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
