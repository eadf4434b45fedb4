/* SPDX-License-Identifier: Apache-2.0 */
/* The network source's check for the tracepoints it needs (a kernel without
 * them turns the source off instead of failing start-up), and its choice of
 * byte-counting programs by the hooks decision. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "features/network/net_source.h"

struct fake_kernel {
	const char *lacks; /* the one tracepoint this fake kernel lacks, NULL = none */
	unsigned asked;
};

static bool fake_has(void *ctx, const char *name)
{
	struct fake_kernel *k = ctx;
	k->asked++;
	return !k->lacks || strcmp(k->lacks, name) != 0;
}

static void test_all_present(void **state)
{
	struct fake_kernel k = {0};
	assert_null(enav_net_missing_tracepoint(false, fake_has, &k));
	assert_int_equal(k.asked, 4);
}

/* A 6.1 kernel: the lifecycle tracepoints exist, the byte ones do not. */
static void test_pre_6_3_kernel(void **state)
{
	struct fake_kernel k = {.lacks = "sock_send_length"};
	assert_string_equal(enav_net_missing_tracepoint(false, fake_has, &k), "sock_send_length");
	k = (struct fake_kernel){.lacks = "sock_recv_length"};
	assert_string_equal(enav_net_missing_tracepoint(false, fake_has, &k), "sock_recv_length");
}

static void test_lifecycle_missing(void **state)
{
	struct fake_kernel k = {.lacks = "inet_sock_set_state"};
	assert_string_equal(enav_net_missing_tracepoint(false, fake_has, &k),
			    "inet_sock_set_state");
	assert_int_equal(k.asked, 1);
	k = (struct fake_kernel){.lacks = "tcp_retransmit_skb"};
	assert_string_equal(enav_net_missing_tracepoint(false, fake_has, &k), "tcp_retransmit_skb");
}

/* hooks: fexit: the bytes come from fexit programs, so a kernel older than
 * 6.3 keeps its network source; the lifecycle tracepoints are still needed. */
static void test_fexit_bytes(void **state)
{
	struct fake_kernel k = {.lacks = "sock_send_length"};
	assert_null(enav_net_missing_tracepoint(true, fake_has, &k));
	assert_int_equal(k.asked, 2);
	k = (struct fake_kernel){.lacks = "tcp_retransmit_skb"};
	assert_string_equal(enav_net_missing_tracepoint(true, fake_has, &k), "tcp_retransmit_skb");
}

/* Exactly one byte-counting variant loads, by the hooks decision. */
static void test_byte_hook_skips(void **state)
{
	const char *skip[2];
	enav_net_byte_hook_skips(false, skip);
	assert_string_equal(skip[0], "enav_tcp_send_fexit");
	assert_string_equal(skip[1], "enav_tcp_recv_fexit");
	enav_net_byte_hook_skips(true, skip);
	/* Both the tp_btf and raw_tp tracepoint variants. */
	assert_string_equal(skip[0], "enav_sock_send_");
	assert_string_equal(skip[1], "enav_sock_recv_");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_present),	      cmocka_unit_test(test_pre_6_3_kernel),
	    cmocka_unit_test(test_lifecycle_missing), cmocka_unit_test(test_fexit_bytes),
	    cmocka_unit_test(test_byte_hook_skips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
