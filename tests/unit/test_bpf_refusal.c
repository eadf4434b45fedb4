/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for reading a refusal out of libbpf's messages
 * (src/runtime/bpf_refusal.c): the first program named is the one blamed, the
 * verifier's last lines are kept without its statistics, and the feature
 * table records states by source and feature.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "runtime/bpf_refusal.h"

static void feed_all(struct enav_bpf_refusal *r, const char *const *lines)
{
	for (size_t i = 0; lines[i]; i++)
		enav_bpf_refusal_feed(r, lines[i], strlen(lines[i]));
}

/* What libbpf 1.1 prints, line by line, when the verifier refuses. */
static const char *const refused[] = {
    "libbpf: prog 'enav_go_tls_enter': BPF program load failed: Permission denied",
    "libbpf: prog 'enav_go_tls_enter': -- BEGIN PROG LOAD LOG --",
    "0: R1=ctx(off=0,imm=0) R10=fp0",
    "; int enav_go_tls_enter(struct pt_regs *ctx)",
    "42: (79) r2 = *(u64 *)(r10 -16)",
    "R2 min value is negative, either use unsigned or 'var &= const'",
    "processed 120 insns (limit 1000000) max_states_per_insn 1 total_states 9",
    "-- END PROG LOAD LOG --",
    "libbpf: prog 'enav_go_tls_enter': failed to load: -13",
    "libbpf: prog 'enav_go_tls_return': BPF program load failed: Permission denied",
    "libbpf: failed to load object 'net_ringbuf'",
    NULL,
};

static void test_blames_first_program_with_last_lines(void **state)
{
	(void)state;
	struct enav_bpf_refusal r;
	memset(&r, 0, sizeof(r));
	feed_all(&r, refused);
	assert_string_equal(r.program, "enav_go_tls_enter");
	assert_string_equal(r.failure, "BPF program load failed: Permission denied");
	char d[ENAV_REFUSAL_DETAIL_MAX];
	enav_bpf_refusal_detail(&r, d, sizeof(d));
	assert_string_equal(d,
			    "BPF program load failed: Permission denied: ; int "
			    "enav_go_tls_enter(struct pt_regs *ctx) | 42: (79) r2 = *(u64 *)(r10 "
			    "-16) | R2 min value is negative, either use unsigned or 'var &= "
			    "const'");
}

/* A failure without a log (EINVAL before the verifier) still names it. */
static void test_failure_without_log(void **state)
{
	(void)state;
	static const char *const lines[] = {
	    "libbpf: prog 'enav_tcp_state_btf': BPF program load failed: Invalid argument",
	    "libbpf: prog 'enav_tcp_state_btf': failed to load: -22",
	    NULL,
	};
	struct enav_bpf_refusal r;
	memset(&r, 0, sizeof(r));
	feed_all(&r, lines);
	assert_string_equal(r.program, "enav_tcp_state_btf");
	char d[ENAV_REFUSAL_DETAIL_MAX];
	enav_bpf_refusal_detail(&r, d, sizeof(d));
	assert_string_equal(d, "BPF program load failed: Invalid argument");
}

/* Lines that only look like a program name are not one. */
static void test_no_program(void **state)
{
	(void)state;
	static const char *const lines[] = {
	    "libbpf: failed to load object 'net_ringbuf'",
	    "prog '': nothing",
	    "prog 'unterminated",
	    "prog 'x' no colon",
	    NULL,
	};
	struct enav_bpf_refusal r;
	memset(&r, 0, sizeof(r));
	feed_all(&r, lines);
	assert_string_equal(r.program, "");
	char d[ENAV_REFUSAL_DETAIL_MAX];
	enav_bpf_refusal_detail(&r, d, sizeof(d));
	assert_string_equal(d, "refused");
}

/* A long log keeps its end, each line cut to the line cap. */
static void test_long_log_keeps_end(void **state)
{
	(void)state;
	struct enav_bpf_refusal r;
	memset(&r, 0, sizeof(r));
	enav_bpf_refusal_feed(&r, "prog 'p': -- BEGIN PROG LOAD LOG --", 35);
	char line[400];
	memset(line, 'a', sizeof(line));
	for (int i = 0; i < 100; i++)
		enav_bpf_refusal_feed(&r, line, sizeof(line));
	enav_bpf_refusal_feed(&r, "the reason", 10);
	enav_bpf_refusal_feed(&r, "-- END PROG LOAD LOG --", 23);
	assert_int_equal(r.n_lines, 101);
	assert_string_equal(r.lines[(r.n_lines - 1) % ENAV_REFUSAL_LINES], "the reason");
	assert_int_equal(strlen(r.lines[(r.n_lines - 2) % ENAV_REFUSAL_LINES]),
			 ENAV_REFUSAL_LINE_MAX - 1);
	assert_false(r.in_log);
}

/* The memlock hint: only for EPERM, a finite limit and a kernel before 5.11
 * (which charges maps to RLIMIT_MEMLOCK); the shared load path and the
 * capture filter both append it. */
static void test_memlock_hint(void **state)
{
	(void)state;
	const char *h = enav_bpf_memlock_hint_for(EPERM, "5.10.0-46-amd64", true);

	assert_non_null(strstr(h, "LimitMEMLOCK=infinity"));
	assert_non_null(strstr(h, "CAP_SYS_RESOURCE"));
	assert_int_equal(h[0], ' ');
	assert_string_not_equal(enav_bpf_memlock_hint_for(EPERM, "4.19.0", true), "");
	assert_string_equal(enav_bpf_memlock_hint_for(EPERM, "5.11.0", true), "");
	assert_string_equal(enav_bpf_memlock_hint_for(EPERM, "6.1.0-28-amd64", true), "");
	assert_string_equal(enav_bpf_memlock_hint_for(EPERM, "5.10.0", false), "");
	assert_string_equal(enav_bpf_memlock_hint_for(EINVAL, "5.10.0", true), "");
	assert_string_equal(enav_bpf_memlock_hint_for(EPERM, "garbage", true), "");
	assert_string_equal(enav_bpf_memlock_hint_for(EPERM, NULL, true), "");
}

static void test_feature_table(void **state)
{
	(void)state;
	enav_feature_record("network", "tls", ENAV_FEATURE_ON, NULL, NULL);
	enav_feature_record("network", "go_tls", ENAV_FEATURE_VERIFIER_REFUSED, "enav_go_tls_enter",
			    "why");
	assert_false(enav_feature_refused("network", "tls"));
	assert_true(enav_feature_refused("network", "go_tls"));
	assert_false(enav_feature_refused("exec", "go_tls"));
	/* A later record replaces the state, never adds a second row. */
	enav_feature_record("network", "tls", ENAV_FEATURE_ATTACH_REFUSED, "p", "x");
	assert_true(enav_feature_refused("network", "tls"));
	/* Bounded: past the table's size nothing is recorded. */
	static char names[40][8];
	for (int i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		enav_feature_record("many", names[i], ENAV_FEATURE_VERIFIER_REFUSED, NULL, NULL);
	}
	assert_true(enav_feature_refused("many", "f0"));
	assert_false(enav_feature_refused("many", "f39"));
	assert_string_equal(enav_feature_state_name(ENAV_FEATURE_CONFIGURED_OFF), "configured_off");
	assert_string_equal(enav_feature_state_name(ENAV_FEATURE__COUNT), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_blames_first_program_with_last_lines),
	    cmocka_unit_test(test_failure_without_log),
	    cmocka_unit_test(test_no_program),
	    cmocka_unit_test(test_long_log_keeps_end),
	    cmocka_unit_test(test_feature_table),
	    cmocka_unit_test(test_memlock_hint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
