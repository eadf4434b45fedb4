/* SPDX-License-Identifier: Apache-2.0 */
/*
 * NATS text basics (nats_wire.c): protocol words, tokens, numbers, subjects
 * as span targets, -ERR texts as statuses, and the streaming scan of
 * CONNECT's JSON for "verbose".
 */
#ifndef ENAV_FEATURES_NETWORK_L7_NATS_WIRE_H
#define ENAV_FEATURES_NETWORK_L7_NATS_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define N_HEAD 256 /* bytes of a protocol line kept from its start */

enum n_op {
	NO_NONE = 0,
	NO_CONNECT,
	NO_PUB,
	NO_HPUB,
	NO_SUB,
	NO_UNSUB,
	NO_PING,
	NO_PONG,
	NO_INFO,
	NO_MSG,
	NO_HMSG,
	NO_OK,
	NO_ERR,
};

/* Streaming scan of CONNECT's JSON for a top-level "verbose": true/false. */
struct n_json {
	uint8_t depth;
	bool in_str, esc, key_capture, key_done, expect_key, want_value;
	bool key_over;
	uint8_t key_len;
	char key[8];
	int8_t verbose; /* -1 not seen */
};

/* ASCII upper case of c. */
char enav_nats_upper(char c);
/* a[0..an) equals the NUL-terminated b, ignoring case. */
bool enav_nats_ieq(const char *a, size_t an, const char *b);
/* A space or a tab: the token separators. */
bool enav_nats_space(uint8_t c);
/* The protocol word w[0..n) as stream may send it, or NO_NONE. */
uint8_t enav_nats_op_of(const char *w, size_t n, int stream);
/* Does d[0..n) start with a protocol word stream may send? */
bool enav_nats_starts_line(const uint8_t *d, size_t n, int stream);
/* Decimal s[0..n) into *v; false when not a number or too large. */
bool enav_nats_parse_u64(const char *s, size_t n, uint64_t *v);
/* The span target of subject subj[0..n) into dst (ENAV_L7_TARGET_MAX):
 * "_INBOX.*", and "$JS.ACK." subjects up to their first number, for the two
 * unbounded families (see
 * nats.c); true when it was cut (cut_before: the subject already was). */
bool enav_nats_target(char *dst, const char *subj, size_t n, bool cut_before);
/* The status of a -ERR line's text into dst; true when cut. */
bool enav_nats_err_status(char *dst, const char *line, size_t n);
/* One more byte of CONNECT's JSON. */
void enav_nats_json_byte(struct n_json *j, uint8_t c);

#endif
