/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The MongoDB parser's body scanner (mongo_scan.c): walks a message body
 * byte by byte as it arrives, keeps the few fields mongo.c reports and skips
 * the rest by the sizes BSON declares.  Wire constants shared by both files.
 */
#ifndef ENAV_FEATURES_NETWORK_L7_MONGO_SCAN_H
#define ENAV_FEATURES_NETWORK_L7_MONGO_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "model/l7_op.h"

#define MONGO_HDR     16
#define MONGO_MAX_MSG (64u << 20) /* servers cap at 48 MB */
#define OP_REPLY      1
#define OP_UPDATE     2001
#define OP_INSERT     2002
#define OP_QUERY      2004
#define OP_GET_MORE   2005
#define OP_DELETE     2006
#define OP_KILL	      2007
#define OP_COMPRESSED 2012
#define OP_MSG	      2013

#define MSG_MORE_TO_COME (1u << 1)
#define REPLY_CURSOR_NF	 (1u << 0)
#define REPLY_QUERY_FAIL (1u << 1)

#define KEY_CAP	     16 /* reply keys of interest are short */
#define CODENAME_CAP ENAV_L7_STATUS_MAX

/* What the scanner is doing with the next bytes. */
enum { M_BYTES, M_SKIP, M_CSTR, M_STR, M_DONE, M_CUT, M_BAD };

/* Where it is in the message. */
enum {
	ST_FLAGS,      /* OP_MSG flagBits */
	ST_SECKIND,    /* OP_MSG section kind */
	ST_SEQLEN,     /* kind 1 size */
	ST_REPLY_HDR,  /* OP_REPLY flags, cursor, from, number */
	ST_Q_FLAGS,    /* OP_QUERY flags */
	ST_Q_NS,       /* OP_QUERY fullCollectionName */
	ST_L_INT,      /* legacy: ZERO or flags */
	ST_L_NS,       /* legacy: fullCollectionName */
	ST_DOCLEN,     /* document length */
	ST_ETYPE,      /* element type */
	ST_EKEY,       /* element key */
	ST_SLEN,       /* request: first element's string length */
	ST_SVAL,       /* request: its value */
	ST_VLEN,       /* reply: a value's length */
	ST_NUMVAL,     /* reply: ok / code value */
	ST_CODENAME,   /* reply: codeName value */
	ST_REGEX,      /* reply: regex pattern, then options */
	ST_REGEX2,     /* reply: regex options */
	ST_NEXT,       /* after a skipped value: next element */
	ST_GO_SECKIND, /* after a skipped section: next section */
	ST_GO_DOCLEN,  /* after OP_QUERY's two counts: the query */
};

enum { K_OTHER, K_OK, K_CODE, K_CODENAME };

struct mongo_scan {
	uint8_t mode, step, after; /* after: step once a skip ends */
	uint8_t etype, key;
	bool reply;	 /* scanning a reply (all top-level elements) */
	bool flags_only; /* a reply whose documents are not of interest */
	bool in_doc;	 /* doc_left bounds what is consumed */
	bool nested;	 /* OP_QUERY: inside "$query" */
	uint8_t bn;
	uint8_t buf[20];
	uint32_t left; /* M_BYTES / M_SKIP / M_STR */
	uint32_t doc_left;
	uint16_t tn, tcap;
	bool tcut;
	char text[ENAV_L7_TARGET_MAX];
	/* Results. */
	uint32_t flags;
	bool have_op, op_cut, have_target, target_cut, have_ns, ns_cut, ns_cmd;
	char op[ENAV_L7_OPERATION_MAX];
	char target[ENAV_L7_TARGET_MAX];
	bool ok_seen, ok_one, code_seen, codename_seen, codename_cut;
	int32_t code;
	char codename[CODENAME_CAP];
};

/* Start scanning a body of opcode (0: skip it all); reply: a reply's body,
 * want_status: read its status fields. */
void enav_mongo_scan_init(struct mongo_scan *c, int32_t opcode, bool reply, bool want_status);
/* n captured body bytes at p. */
void enav_mongo_scan_feed(struct mongo_scan *c, const uint8_t *p, uint32_t n);
/* n body bytes that were not captured. */
void enav_mongo_scan_uncaptured(struct mongo_scan *c, uint32_t n);

#endif
