/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The Redis parser's state, shared by its request side and FIFO (redis.c)
 * and its reply side (redis_reply.c).
 */
#ifndef ENAV_FEATURES_NETWORK_L7_REDIS_STATE_H
#define ENAV_FEATURES_NETWORK_L7_REDIS_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "features/network/l7/l7.h"
#include "features/network/l7/l7_stream.h"

#define R_DEPTH	     16
#define R_CMD_KEEP   32		   /* command-name bytes kept */
#define R_SUB_KEEP   24		   /* subcommand bytes kept */
#define R_LINE_KEEP  64		   /* response line bytes kept */
#define R_CAP_KEEP   24		   /* bulk bytes kept: blob error code, first element */
#define R_LINE_MAX   (64u * 1024u) /* longest simple string / inline line */
#define R_NUM_DIGITS 19
#define R_MAX_LEN    (1ull << 62)
#define R_STREAMED   UINT64_MAX

enum r_subkind {
	RK_NONE = 0,
	RK_SUBSCRIBE,
	RK_PSUBSCRIBE,
	RK_SSUBSCRIBE,
	RK_UNSUBSCRIBE,
	RK_PUNSUBSCRIBE,
	RK_SUNSUBSCRIBE,
	RK__COUNT,
};

enum r_special {
	RS_PLAIN = 0,
	RS_MONITOR,
	RS_RESET,
	RS_HELLO,
	RS_SYNC,
};

struct r_pend {
	uint64_t start_ns;
	uint64_t req_bytes;
	uint32_t seq;
	uint32_t phantoms_before; /* dropped (FIFO full) requests queued before this one */
	uint32_t expect;	  /* subscribe confirmations this request will get */
	bool has_seq;
	bool after_loss; /* first request after a request-stream loss */
	uint8_t subkind;
	uint8_t special;
	char op[ENAV_L7_OPERATION_MAX];
};

enum rq_phase {
	RQ_START = 0,
	RQ_ARRLEN,  /* digits of "*N" */
	RQ_LEN_LF,  /* '\n' ending a length line */
	RQ_ELEM,    /* expect '$' */
	RQ_BULKLEN, /* digits of "$L" */
	RQ_BODY,    /* bulk body */
	RQ_BODY_CR, /* '\r' after a body */
	RQ_BODY_LF, /* '\n' after a body */
	RQ_INLINE,  /* inline command line */
	RQ_LOST,    /* wait for a fragment that starts a request */
};

struct r_req {
	uint8_t phase;
	uint8_t len_of; /* '*' or '$': the length line being read */
	bool neg;
	uint8_t ndigits;
	uint64_t num;
	bool in_msg;
	bool known; /* a RESP request was parsed: inline commands are accepted */
	bool loss_mark;
	uint64_t elems_left;
	uint64_t elem_idx;
	uint64_t nargs;
	uint64_t body_left;
	uint64_t bytes;
	uint64_t start_ns;
	uint32_t seq;
	bool has_seq;
	bool cmd_cut, sub_cut;
	bool cmd_hidden; /* part of the command name was not captured */
	uint8_t cmd_len, sub_len;
	char cmd[R_CMD_KEEP];
	char sub[R_SUB_KEEP];
	/* inline */
	uint32_t line_len;
	uint32_t words;
	bool in_word;
};

enum rs_phase {
	RS_TYPE = 0,
	RS_LINE,    /* line content after the type byte */
	RS_LINE_LF, /* '\n' after '\r' */
	RS_BODY,
	RS_BODY_CR,
	RS_BODY_LF,
	RS_LOST,
};

struct r_frame {
	uint64_t left; /* elements still to come, R_STREAMED for "*?" */
	uint8_t type;
};

struct r_resp {
	uint8_t phase;
	uint8_t type; /* type byte of the line / body being read */
	uint8_t depth;
	bool streamed_str; /* inside "$?" chunks */
	bool in_msg;
	bool top_set;
	uint8_t top_type;
	bool first_set, third_set;
	bool capture; /* keep the current body's first bytes */
	bool resp3;
	bool submode;
	bool monitor;
	uint8_t cap_len;
	uint8_t first_len;
	uint32_t line_len;
	uint64_t body_left;
	uint64_t d1_idx;
	int64_t third;
	uint64_t msg_bytes;
	uint64_t msg_start_ns;
	char line[R_LINE_KEEP];
	char cap[R_CAP_KEEP];
	char first[16];
	char status[ENAV_L7_STATUS_MAX];
	bool is_err;
	struct r_frame st[R_DEPTH];
	/* loss bookkeeping */
	uint32_t uncertain;
	bool head_started;
	bool lost_err;
	uint64_t lost_bytes;
	uint64_t lost_end_ns;
	uint64_t req_after_loss;
	char lost_status[ENAV_L7_STATUS_MAX];
};

struct redis_state {
	struct enav_l7_fifo q; /* the requests awaiting a reply, in fifo[] */
	uint32_t tail_phantoms;
	uint32_t swallow[RK__COUNT];
	uint64_t pushes;  /* push frames and pub/sub deliveries seen (not replies) */
	bool replication; /* after PSYNC/SYNC: an RDB and a command stream, not replies */
	struct r_req rq;
	struct r_resp rs;
	struct r_pend fifo[ENAV_L7_MAX_PENDING];
};

/* Emit the operation of pending request p. */
void enav_redis_emit(const struct r_pend *p, bool seen, uint64_t end_ns, uint64_t resp_bytes,
		     bool error, const char *status, const struct enav_l7_sink *out);
/* The error code word of an error message msg[0..n) into dst: its first
 * word when that is an upper-case code ("ERR", "WRONGTYPE"), else "". */
void enav_redis_error_code(char *dst, const char *msg, size_t n, const struct enav_l7_sink *out);
/* The oldest pending request, or NULL. */
struct r_pend *enav_redis_head(struct redis_state *s);
/* A pub/sub push s[0..n) that delivers a message. */
bool enav_redis_is_delivery(const char *s, size_t n);
/* An ASCII digit. */
bool enav_redis_is_digit(uint8_t c);
/* A RESP type byte. */
bool enav_redis_is_type(uint8_t c);
/* Drop the oldest pending request. */
void enav_redis_pop(struct redis_state *s);
/* The subscription kind named s[0..n), or RK_NONE. */
uint8_t enav_redis_subkind_of(const char *s, size_t n);
/* Feed one reply-stream fragment (redis_reply.c). */
void enav_redis_reply_feed(struct redis_state *s, const struct enav_l7_fragment *f,
			   const struct enav_l7_sink *out);
/* Settle the requests a lost reply stream left uncertain (redis_reply.c). */
void enav_redis_reply_resolve(struct redis_state *s, const struct enav_l7_sink *out);

#endif
