/* SPDX-License-Identifier: Apache-2.0 */
/* The network source's check for the tracepoints it needs (a kernel without
 * them turns the source off instead of failing start-up), and its program
 * table's choice of byte-counting programs by the hooks decision. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
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

/* Every program of the network object, as bpf/network/net_payload.bpf.h names them. */
static const char *const socket_programs[] = {
    "enav_sock_send_btf",      "enav_sock_recv_btf",   "enav_sock_send_raw",
    "enav_sock_recv_raw",      "enav_tcp_send_fexit",  "enav_tcp_recv_fexit",
    "enav_tcp_sendpage_fexit", "enav_udp_send_fexit",  "enav_udp_recv_fexit",
    "enav_udp6_send_fexit",    "enav_udp6_recv_fexit", "enav_sys_exit_btf",
    "enav_sys_exit_raw",       "enav_tcp_state_btf",   "enav_tcp_retrans_raw",
    "enav_compat_tcp_send",    "enav_compat_tcp_recv", "enav_compat_tcp_sendpage",
    "enav_compat_udp_send",    "enav_compat_udp_recv", "enav_compat_udp6_send",
    "enav_compat_udp6_recv",
};

/* Whether the table loads prog under h on a tp_btf or a raw_tp kernel, with
 * every feature on. */
static bool table_loads(const struct enav_net_hooks *h, const char *prog)
{
	uint32_t c = enav_net_conditions(h);
	const struct enav_bpf_program_spec *row =
	    enav_bpf_program_find(&enav_net_programs, prog, c);
	assert_non_null(row);
	bool any = false;
	for (int btf = 0; btf < 2; btf++) {
		struct enav_bpf_load_facts f = {.tp_btf = btf,
						.feature_on = true,
						.hook_listed_or_unsure = true,
						.conditions = c};
		any |= enav_bpf_program_loads(row, &f);
	}
	return any;
}

/* The programs of socket_programs the table loads under h, space-separated. */
static void loaded(const struct enav_net_hooks *h, char *out, size_t cap)
{
	out[0] = '\0';
	for (size_t i = 0; i < sizeof(socket_programs) / sizeof(socket_programs[0]); i++)
		if (table_loads(h, socket_programs[i]))
			snprintf(out + strlen(out), cap - strlen(out), "%s%s", out[0] ? " " : "",
				 socket_programs[i]);
}

/* Exactly one hook set loads, by the probe's payload_hook decision (the
 * _btf/_raw variant is chosen separately, by the exec hook). */
static void test_hook_skips(void **state)
{
	char got[512];
	struct enav_net_hooks h = {.payload_hook = ENAV_PAYLOAD_SOCKET_TP, .dns = true};
	loaded(&h, got, sizeof(got));
	assert_string_equal(got, "enav_sock_send_btf enav_sock_recv_btf enav_sock_send_raw "
				 "enav_sock_recv_raw enav_tcp_state_btf enav_tcp_retrans_raw");

	h = (struct enav_net_hooks){.payload_hook = ENAV_PAYLOAD_SYS_EXIT, .dns = true};
	loaded(&h, got, sizeof(got));
	assert_string_equal(got, "enav_sock_send_btf enav_sock_recv_btf enav_sock_send_raw "
				 "enav_sock_recv_raw enav_sys_exit_btf enav_sys_exit_raw "
				 "enav_tcp_state_btf enav_tcp_retrans_raw");

	/* Debian 12's 6.1: sendpage, IPv6 built in, DNS on. */
	h = (struct enav_net_hooks){.payload_hook = ENAV_PAYLOAD_FEXIT,
				    .has_sendpage = true,
				    .has_udpv6 = true,
				    .dns = true};
	loaded(&h, got, sizeof(got));
	assert_string_equal(got, "enav_tcp_send_fexit enav_tcp_recv_fexit enav_tcp_sendpage_fexit "
				 "enav_udp_send_fexit enav_udp_recv_fexit enav_udp6_send_fexit "
				 "enav_udp6_recv_fexit enav_tcp_state_btf enav_tcp_retrans_raw");

	/* 6.5+ (no tcp_sendpage), no IPv6, DNS capture off. */
	h = (struct enav_net_hooks){.payload_hook = ENAV_PAYLOAD_FEXIT};
	loaded(&h, got, sizeof(got));
	assert_string_equal(got, "enav_tcp_send_fexit enav_tcp_recv_fexit enav_tcp_state_btf "
				 "enav_tcp_retrans_raw");
	h.dns = true;
	loaded(&h, got, sizeof(got));
	assert_string_equal(got, "enav_tcp_send_fexit enav_tcp_recv_fexit enav_udp_send_fexit "
				 "enav_udp_recv_fexit enav_tcp_state_btf enav_tcp_retrans_raw");
}

/* Debian 11's 5.10 (no bpf_get_func_ret, bpf_task_pt_regs): the compat
 * fexit set alone, trimmed the same way. */
static void test_compat_skips(void **state)
{
	char got[512];
	struct enav_net_hooks h = {.payload_hook = ENAV_PAYLOAD_FEXIT,
				   .has_sendpage = true,
				   .has_udpv6 = true,
				   .dns = true,
				   .compat = true};
	loaded(&h, got, sizeof(got));
	assert_string_equal(got, "enav_tcp_state_btf enav_tcp_retrans_raw enav_compat_tcp_send "
				 "enav_compat_tcp_recv enav_compat_tcp_sendpage "
				 "enav_compat_udp_send enav_compat_udp_recv "
				 "enav_compat_udp6_send enav_compat_udp6_recv");
	h.has_udpv6 = false;
	h.has_sendpage = false;
	loaded(&h, got, sizeof(got));
	assert_string_equal(got, "enav_tcp_state_btf enav_tcp_retrans_raw enav_compat_tcp_send "
				 "enav_compat_tcp_recv enav_compat_udp_send enav_compat_udp_recv");
	h.dns = false;
	loaded(&h, got, sizeof(got));
	assert_string_equal(got, "enav_tcp_state_btf enav_tcp_retrans_raw enav_compat_tcp_send "
				 "enav_compat_tcp_recv");
	/* compat means nothing off the fexit path. */
	h = (struct enav_net_hooks){.payload_hook = ENAV_PAYLOAD_SYS_EXIT, .compat = true};
	loaded(&h, got, sizeof(got));
	assert_null(strstr(got, "compat"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_present),	      cmocka_unit_test(test_pre_6_3_kernel),
	    cmocka_unit_test(test_lifecycle_missing), cmocka_unit_test(test_fexit_bytes),
	    cmocka_unit_test(test_hook_skips),	      cmocka_unit_test(test_compat_skips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
