/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The programs of net.bpf.c: what loads where, by the probe's payload hook
 * (socket tracepoints, fexit, the compat fexit set of kernels without
 * bpf_get_func_ret, or the sys_exit fallback) and what this kernel and
 * configuration have a use for.  A program that is the core in one mode and
 * a feature's in another has a row per mode.
 */
#include "features/network/net_source.h"

/* Payload capture inside the byte-counting programs (socket tracepoints or
 * fexit), behind read-only globals: a refusal loads them again without it. */
const struct enav_bpf_feature_spec enav_net_payload_in_core_feature = {
    .name = "payload_capture",
    .config_bool = ENAV_CONFIG_BOOL(network.l7.enabled),
    .in_core = true,
};
/* The sys_exit fallback: programs of their own, which every syscall on the
 * node pays for, so they load only when a payload is wanted. */
const struct enav_bpf_feature_spec enav_net_payload_sys_exit_feature = {
    .name = "payload_capture",
    .config_bool = ENAV_CONFIG_BOOL(network.l7.enabled),
};
/* DNS over UDP on fexit kernels.  No boolean switches it
 * (dns_capture_bytes is a size), so no explicit "on" makes its refusal
 * fatal. */
const struct enav_bpf_feature_spec enav_net_dns_udp_feature = {.name = "dns_udp"};
const struct enav_bpf_feature_spec enav_net_tls_feature = {
    .name = "tls",
    .config_bool = ENAV_CONFIG_BOOL(network.tls.enabled),
};
const struct enav_bpf_feature_spec enav_net_go_tls_feature = {
    .name = "go_tls",
    .config_bool = ENAV_CONFIG_BOOL(network.tls.enabled),
};

#define FEXIT	 ENAV_NET_PAYLOAD_FEXIT
#define SOCK_TP	 ENAV_NET_PAYLOAD_SOCKET_TP
#define SYS_EXIT ENAV_NET_PAYLOAD_SYS_EXIT
#define COMPAT	 ENAV_NET_COMPAT
#define SENDPAGE ENAV_NET_HAS_SENDPAGE
#define UDP6	 ENAV_NET_HAS_UDPV6
#define DNS	 ENAV_NET_DNS

/* The exact byte counts of the socket tracepoints (Linux 6.3+): the
 * payload's programs where the probe chose them, the core's on the sys_exit
 * fallback (which takes the payload elsewhere). */
#define SOCKET_TP_PROGRAM(NAME, VARIANT)                                                           \
	{.name = NAME,                                                                             \
	 .variant = VARIANT,                                                                       \
	 .feature = &enav_net_payload_in_core_feature,                                             \
	 .when = SOCK_TP},                                                                         \
	{                                                                                          \
		.name = NAME, .variant = VARIANT, .when = SYS_EXIT                                 \
	}

/* A TLS uprobe, attached by the TLS prober to the files it finds. */
#define TLS_PROGRAM(NAME, FEATURE, WHEN, UNLESS)                                                   \
	{                                                                                          \
		.name = NAME, .feature = &(FEATURE), .attached_by_source = true, .when = (WHEN),   \
		.unless = (UNLESS)                                                                 \
	}

static const struct enav_bpf_program_spec programs[] = {
    /* The TCP lifecycle: every kernel and mode. */
    {.name = "enav_tcp_state_btf", .variant = ENAV_BPF_TP_BTF},
    {.name = "enav_tcp_state_raw", .variant = ENAV_BPF_RAW_TP},
    {.name = "enav_tcp_retrans_btf", .variant = ENAV_BPF_TP_BTF},
    {.name = "enav_tcp_retrans_raw", .variant = ENAV_BPF_RAW_TP},

    SOCKET_TP_PROGRAM("enav_sock_send_btf", ENAV_BPF_TP_BTF),
    SOCKET_TP_PROGRAM("enav_sock_recv_btf", ENAV_BPF_TP_BTF),
    SOCKET_TP_PROGRAM("enav_sock_send_raw", ENAV_BPF_RAW_TP),
    SOCKET_TP_PROGRAM("enav_sock_recv_raw", ENAV_BPF_RAW_TP),

    {.name = "enav_sys_exit_btf",
     .variant = ENAV_BPF_TP_BTF,
     .feature = &enav_net_payload_sys_exit_feature,
     .when = SYS_EXIT},
    {.name = "enav_sys_exit_raw",
     .variant = ENAV_BPF_RAW_TP,
     .feature = &enav_net_payload_sys_exit_feature,
     .when = SYS_EXIT},

    /* fexit with bpf_get_func_ret and bpf_task_pt_regs (5.15+). */
    {.name = "enav_tcp_send_fexit",
     .feature = &enav_net_payload_in_core_feature,
     .when = FEXIT,
     .unless = COMPAT},
    {.name = "enav_tcp_recv_fexit",
     .feature = &enav_net_payload_in_core_feature,
     .when = FEXIT,
     .unless = COMPAT},
    /* tcp_sendpage was folded into tcp_sendmsg in 6.5. */
    {.name = "enav_tcp_sendpage_fexit",
     .feature = &enav_net_payload_in_core_feature,
     .when = FEXIT | SENDPAGE,
     .unless = COMPAT},
    {.name = "enav_udp_send_fexit",
     .feature = &enav_net_dns_udp_feature,
     .when = FEXIT | DNS,
     .unless = COMPAT},
    {.name = "enav_udp_recv_fexit",
     .feature = &enav_net_dns_udp_feature,
     .when = FEXIT | DNS,
     .unless = COMPAT},
    {.name = "enav_udp6_send_fexit",
     .feature = &enav_net_dns_udp_feature,
     .when = FEXIT | DNS | UDP6,
     .unless = COMPAT},
    {.name = "enav_udp6_recv_fexit",
     .feature = &enav_net_dns_udp_feature,
     .when = FEXIT | DNS | UDP6,
     .unless = COMPAT},

    /* The same hooks for kernels without those helpers (5.10). */
    {.name = "enav_compat_tcp_send",
     .feature = &enav_net_payload_in_core_feature,
     .when = FEXIT | COMPAT},
    {.name = "enav_compat_tcp_recv",
     .feature = &enav_net_payload_in_core_feature,
     .when = FEXIT | COMPAT},
    {.name = "enav_compat_tcp_sendpage",
     .feature = &enav_net_payload_in_core_feature,
     .when = FEXIT | COMPAT | SENDPAGE},
    {.name = "enav_compat_udp_send",
     .feature = &enav_net_dns_udp_feature,
     .when = FEXIT | COMPAT | DNS},
    {.name = "enav_compat_udp_recv",
     .feature = &enav_net_dns_udp_feature,
     .when = FEXIT | COMPAT | DNS},
    {.name = "enav_compat_udp6_send",
     .feature = &enav_net_dns_udp_feature,
     .when = FEXIT | COMPAT | DNS | UDP6},
    {.name = "enav_compat_udp6_recv",
     .feature = &enav_net_dns_udp_feature,
     .when = FEXIT | COMPAT | DNS | UDP6},

    /* OpenSSL and GnuTLS: the socket found by the call's cookie where the
     * kernel has bpf_get_attach_cookie, one program per function without. */
    TLS_PROGRAM("enav_tls_read_enter", enav_net_tls_feature, 0, COMPAT),
    TLS_PROGRAM("enav_tls_read_ex_enter", enav_net_tls_feature, 0, COMPAT),
    TLS_PROGRAM("enav_tls_write_enter", enav_net_tls_feature, 0, COMPAT),
    TLS_PROGRAM("enav_tls_write_ex_enter", enav_net_tls_feature, 0, COMPAT),
    TLS_PROGRAM("enav_tls_handshake_enter", enav_net_tls_feature, 0, COMPAT),
    TLS_PROGRAM("enav_tls_return", enav_net_tls_feature, 0, COMPAT),
    TLS_PROGRAM("enav_tls_compat_ossl_read", enav_net_tls_feature, COMPAT, 0),
    TLS_PROGRAM("enav_tls_compat_ossl_read_ex", enav_net_tls_feature, COMPAT, 0),
    TLS_PROGRAM("enav_tls_compat_ossl_write", enav_net_tls_feature, COMPAT, 0),
    TLS_PROGRAM("enav_tls_compat_ossl_write_ex", enav_net_tls_feature, COMPAT, 0),
    TLS_PROGRAM("enav_tls_compat_ossl_handshake", enav_net_tls_feature, COMPAT, 0),
    TLS_PROGRAM("enav_tls_compat_gnutls_read", enav_net_tls_feature, COMPAT, 0),
    TLS_PROGRAM("enav_tls_compat_gnutls_write", enav_net_tls_feature, COMPAT, 0),
    TLS_PROGRAM("enav_tls_compat_gnutls_handshake", enav_net_tls_feature, COMPAT, 0),
    TLS_PROGRAM("enav_tls_compat_return", enav_net_tls_feature, COMPAT, 0),
    TLS_PROGRAM("enav_tls_free_enter", enav_net_tls_feature, 0, 0),
    /* Go's probes carry the binary and the call in their cookie, and
     * nothing else in a uprobe's context says which binary it is. */
    TLS_PROGRAM("enav_go_tls_enter", enav_net_go_tls_feature, 0, COMPAT),
    TLS_PROGRAM("enav_go_tls_return", enav_net_go_tls_feature, 0, COMPAT),
};

static const struct enav_bpf_feature_spec *const features[] = {
    &enav_net_payload_in_core_feature, &enav_net_payload_sys_exit_feature,
    &enav_net_dns_udp_feature,	       &enav_net_tls_feature,
    &enav_net_go_tls_feature,
};

const struct enav_bpf_program_table enav_net_programs = {
    .source = "network",
    .programs = programs,
    .n_programs = ENAV_ARRAY_LEN(programs),
    .features = features,
    .n_features = ENAV_ARRAY_LEN(features),
};

uint32_t enav_net_conditions(const struct enav_net_hooks *h)
{
	uint32_t c = 0;
	switch (h->payload_hook) {
	case ENAV_PAYLOAD_FEXIT:
		c |= FEXIT | (h->compat ? COMPAT : 0);
		break;
	case ENAV_PAYLOAD_SOCKET_TP:
		c |= SOCK_TP;
		break;
	case ENAV_PAYLOAD_SYS_EXIT:
		c |= SYS_EXIT;
		break;
	}
	c |= (h->has_sendpage ? SENDPAGE : 0) | (h->has_udpv6 ? UDP6 : 0) | (h->dns ? DNS : 0);
	return c;
}
