/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the Redis parser (src/features/network/l7/redis.c).
 *
 * The conversations below are real traffic: redis-server 7.0.15 on a private
 * port, driven by redis-cli, redis-benchmark -P 16 and a raw Python socket
 * client, recorded read by read by a small TCP proxy (one chunk per recv()).
 * Each is fed whole, split at every byte boundary, one byte at a time, with
 * captured < len, with gaps, and compared against the exact operations the
 * parser must emit.  Every fragment is an exact-size heap copy, so ASan flags
 * any read past the captured bytes.
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

/* redis-cli 7.0.15, RESP2 (conn 1); the COMMAND DOCS reply is 172298 bytes in three
 * reads of which only the first 1024 bytes each are kept: captured < len. */
static const struct chunk cli_resp2[] = {
    CH(ENAV_L7_REQUEST, 27, "*2\r\n$7\r\nCOMMAND\r\n$4\r\nDOCS\r\n"),
    CH(ENAV_L7_RESPONSE, 65536,
       "*480\r\n$11\r\nzrangebylex\r\n*16\r\n$7\r\n"
       "summary\r\n$67\r\nReturn a range of members in a sorted set, by lexicographi"
       "cal range\r\n$5\r\nsince\r\n$5\r\n2.8.9\r\n"
       "$5\r\ngroup\r\n$10\r\nsorted-set\r\n$10\r\n"
       "complexity\r\n$217\r\nO(log(N)+M) with N being the number of elements in the"
       " sorted set and M the number of elements being returned. If M is constant (e"
       ".g. always asking for the first 10 elements with LIMIT), you can consider it"
       " O(log(N)).\r\n$9\r\ndoc_flags\r\n*1\r\n+deprecated\r\n"
       "$16\r\ndeprecated_since\r\n$5\r\n6.2.0\r\n"
       "$11\r\nreplaced_by\r\n$34\r\n`ZRANGE` with the `BYLEX` argument\r\n"
       "$9\r\narguments\r\n*4\r\n*6\r\n$4\r\nname\r\n"
       "$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\n"
       "key_spec_index\r\n:0\r\n*4\r\n$4\r\nname\r\n"
       "$3\r\nmin\r\n$4\r\ntype\r\n$6\r\nstring\r\n"
       "*4\r\n$4\r\nname\r\n$3\r\nmax\r\n$4\r\ntype\r\n"
       "$6\r\nstring\r\n*10\r\n$4\r\nname\r\n$12\r\n"
       "offset_count\r\n$4\r\ntype\r\n$5\r\nblock\r\n"
       "$5\r\ntoken\r\n$5\r\nLIMIT\r\n$5\r\nflags\r\n"
       "*1\r\n+optional\r\n$9\r\narguments\r\n*2\r\n"
       "*4\r\n$4\r\nname\r\n$6\r\noffset\r\n$4\r\n"
       "type\r\n$7\r\ninteger\r\n*4\r\n$4\r\nname\r\n"
       "$5\r\ncount\r\n$4\r\ntype\r\n$7\r\ninteger\r\n"
       "$4\r\nsadd\r\n*12\r\n$7\r\nsummary\r\n$32\r\n"
       "Add one or more members to a set\r\n$5\r\n"
       "since\r\n$5\r\n1.0.0\r\n$5\r\ngro"),
    CH(ENAV_L7_RESPONSE, 59856,
       "$8\r\nexpireat\r\n*12\r\n$7\r\nsummary\r\n"
       "$48\r\nSet the expiration for a key as a UNIX timestamp\r\n"
       "$5\r\nsince\r\n$5\r\n1.2.0\r\n$5\r\ngroup\r\n"
       "$7\r\ngeneric\r\n$10\r\ncomplexity\r\n$4\r\n"
       "O(1)\r\n$7\r\nhistory\r\n*1\r\n*2\r\n$5\r\n"
       "7.0.0\r\n$41\r\nAdded options: `NX`, `XX`, `GT` and `LT`.\r\n"
       "$9\r\narguments\r\n*3\r\n*6\r\n$4\r\nname\r\n"
       "$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\n"
       "key_spec_index\r\n:0\r\n*4\r\n$4\r\nname\r\n"
       "$17\r\nunix-time-seconds\r\n$4\r\ntype\r\n"
       "$9\r\nunix-time\r\n*10\r\n$4\r\nname\r\n$9\r\n"
       "condition\r\n$4\r\ntype\r\n$5\r\noneof\r\n"
       "$5\r\nsince\r\n$5\r\n7.0.0\r\n$5\r\nflags\r\n"
       "*1\r\n+optional\r\n$9\r\narguments\r\n*4\r\n"
       "*6\r\n$4\r\nname\r\n$2\r\nnx\r\n$4\r\ntype\r\n"
       "$10\r\npure-token\r\n$5\r\ntoken\r\n$2\r\n"
       "NX\r\n*6\r\n$4\r\nname\r\n$2\r\nxx\r\n$4\r\n"
       "type\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n"
       "$2\r\nXX\r\n*6\r\n$4\r\nname\r\n$2\r\ngt\r\n"
       "$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\n"
       "token\r\n$2\r\nGT\r\n*6\r\n$4\r\nname\r\n"
       "$2\r\nlt\r\n$4\r\ntype\r\n$10\r\npure-token\r\n"
       "$5\r\ntoken\r\n$2\r\nLT\r\n$9\r\nrandomkey\r\n"
       "*8\r\n$7\r\nsummary\r\n$37\r\nReturn a random key from the keyspace\r\n"
       "$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n"
       "$7\r\ngeneric\r\n$10\r\ncomplexity\r\n$4\r\n"
       "O(1)\r\n$4\r\nincr\r\n*10\r\n$7\r\nsummary\r\n"
       "$43\r\nIncrement the integer value of a key by one\r\n"
       "$5\r\nsince\r\n$5\r\n1.0"),
    CH(ENAV_L7_RESPONSE, 46906,
       "$9\r\narguments\r\n*2\r\n*6\r\n$4\r\nname\r\n"
       "$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\n"
       "key_spec_index\r\n:0\r\n*4\r\n$4\r\nname\r\n"
       "$6\r\nmember\r\n$4\r\ntype\r\n$6\r\nstring\r\n"
       "$8\r\nxpending\r\n*12\r\n$7\r\nsummary\r\n"
       "$131\r\nReturn information and entries from a stream consumer group pending "
       "entries list, that are messages fetched but never acknowledged.\r\n"
       "$5\r\nsince\r\n$5\r\n5.0.0\r\n$5\r\ngroup\r\n"
       "$6\r\nstream\r\n$10\r\ncomplexity\r\n$364\r\n"
       "O(N) with N being the number of elements returned, so asking for a small fix"
       "ed number of entries per call is O(1). O(M), where M is the total number of "
       "entries scanned when used with the IDLE filter. When the command returns jus"
       "t the summary and the list of consumers is small, it runs in O(1) time; othe"
       "rwise, an additional O(N) time for iterating every consumer.\r\n"
       "$7\r\nhistory\r\n*1\r\n*2\r\n$5\r\n6.2.0\r\n"
       "$54\r\nAdded the `IDLE` option and exclusive range intervals.\r\n"
       "$9\r\narguments\r\n*3\r\n*6\r\n$4\r\nname\r\n"
       "$3\r\nkey\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\n"
       "key_spec_index\r\n:0\r\n*4\r\n$4\r\nname\r\n"
       "$5\r\ngroup\r\n$4\r\ntype\r\n$6\r\nstring\r\n"
       "*8\r\n$4\r\nname\r\n$7\r\nfilters\r\n$4\r\n"
       "type\r\n$5\r\nblock\r\n$5\r\nflags\r\n"),
    CH(ENAV_L7_REQUEST, 38,
       "*3\r\n$3\r\nSET\r\n$8\r\ngreeting\r\n$5\r\n"
       "hello\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 27, "*2\r\n$3\r\nGET\r\n$8\r\ngreeting\r\n"),
    CH(ENAV_L7_RESPONSE, 11, "$5\r\nhello\r\n"),
    CH(ENAV_L7_REQUEST, 28, "*2\r\n$4\r\nINCR\r\n$8\r\ngreeting\r\n"),
    CH(ENAV_L7_RESPONSE, 46, "-ERR value is not an integer or out of range\r\n"),
    CH(ENAV_L7_REQUEST, 36,
       "*3\r\n$5\r\nLPUSH\r\n$8\r\ngreeting\r\n$1\r\n"
       "x\r\n"),
    CH(ENAV_L7_RESPONSE, 68,
       "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"),
    CH(ENAV_L7_REQUEST, 33,
       "*3\r\n$9\r\nNOSUCHCMD\r\n$1\r\na\r\n$1\r\n"
       "b\r\n"),
    CH(ENAV_L7_RESPONSE, 70,
       "-ERR unknown command 'NOSUCHCMD', with args beginning with: 'a' 'b' \r\n"),
    CH(ENAV_L7_REQUEST, 43,
       "*3\r\n$6\r\nCLIENT\r\n$7\r\nSETNAME\r\n$8\r\n"
       "enavtest\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 40,
       "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$9\r\n"
       "maxmemory\r\n"),
    CH(ENAV_L7_RESPONSE, 26, "*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n"),
    CH(ENAV_L7_REQUEST, 53,
       "*6\r\n$4\r\nHSET\r\n$1\r\nh\r\n$2\r\nf1\r\n"
       "$2\r\nv1\r\n$2\r\nf2\r\n$2\r\nv2\r\n"),
    CH(ENAV_L7_RESPONSE, 4, ":2\r\n"),
    CH(ENAV_L7_REQUEST, 24, "*2\r\n$7\r\nHGETALL\r\n$1\r\nh\r\n"),
    CH(ENAV_L7_RESPONSE, 36,
       "*4\r\n$2\r\nf1\r\n$2\r\nv1\r\n$2\r\nf2\r\n"
       "$2\r\nv2\r\n"),
    CH(ENAV_L7_REQUEST, 43,
       "*5\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n$1\r\na\r\n"
       "$1\r\nb\r\n$1\r\nc\r\n"),
    CH(ENAV_L7_RESPONSE, 4, ":3\r\n"),
    CH(ENAV_L7_REQUEST, 38,
       "*4\r\n$6\r\nLRANGE\r\n$1\r\nl\r\n$1\r\n0\r\n"
       "$2\r\n-1\r\n"),
    CH(ENAV_L7_RESPONSE, 25, "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"),
    CH(ENAV_L7_REQUEST, 15, "*1\r\n$5\r\nMULTI\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 28, "*3\r\n$3\r\nSET\r\n$2\r\nk1\r\n$1\r\n1\r\n"),
    CH(ENAV_L7_RESPONSE, 9, "+QUEUED\r\n"),
    CH(ENAV_L7_REQUEST, 22, "*2\r\n$4\r\nINCR\r\n$2\r\nk1\r\n"),
    CH(ENAV_L7_RESPONSE, 9, "+QUEUED\r\n"),
    CH(ENAV_L7_REQUEST, 30, "*3\r\n$5\r\nLPUSH\r\n$2\r\nk1\r\n$1\r\nz\r\n"),
    CH(ENAV_L7_RESPONSE, 9, "+QUEUED\r\n"),
    CH(ENAV_L7_REQUEST, 14, "*1\r\n$4\r\nEXEC\r\n"),
    CH(ENAV_L7_RESPONSE, 81,
       "*3\r\n+OK\r\n:2\r\n-WRONGTYPE Operation against a key holding the wrong kind"
       " of value\r\n"),
    CH(ENAV_L7_REQUEST, 14, "*1\r\n$4\r\nPING\r\n"),
    CH(ENAV_L7_RESPONSE, 7, "+PONG\r\n"),
    CH(ENAV_L7_REQUEST, 49,
       "*5\r\n$3\r\nDEL\r\n$8\r\ngreeting\r\n$1\r\n"
       "h\r\n$1\r\nl\r\n$2\r\nk1\r\n"),
    CH(ENAV_L7_RESPONSE, 4, ":4\r\n"),
    CH(ENAV_L7_REQUEST, 30, "*2\r\n$6\r\nEXISTS\r\n$8\r\ngreeting\r\n"),
    CH(ENAV_L7_RESPONSE, 4, ":0\r\n"),
    CH(ENAV_L7_REQUEST, 215,
       "*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$185\r\nXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
       "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
       "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 22, "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n"),
    CH(ENAV_L7_RESPONSE, 193,
       "$185\r\nXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
       "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX"
       "XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX\r\n"),
    CH(ENAV_L7_REQUEST, 26, "*2\r\n$3\r\nGET\r\n$7\r\nmissing\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "$-1\r\n"),
};

/* RESP3: HELLO 3, DEBUG PROTOCOL types, client tracking, pub/sub pushes. */
static const struct chunk raw_resp3[] = {
    CH(ENAV_L7_REQUEST, 22, "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n"),
    CH(ENAV_L7_RESPONSE, 145,
       "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\n"
       "version\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n"
       ":3\r\n$2\r\nid\r\n:6\r\n$4\r\nmode\r\n$10\r\n"
       "standalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n"
       "$7\r\nmodules\r\n*0\r\n"),
    CH(ENAV_L7_REQUEST, 41,
       "*3\r\n$5\r\nDEBUG\r\n$8\r\nPROTOCOL\r\n$6\r\n"
       "attrib\r\n"),
    CH(ENAV_L7_RESPONSE, 93,
       "|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\n"
       "key:123\r\n:90\r\n$39\r\nSome real reply following the attribute\r\n"),
    CH(ENAV_L7_REQUEST, 41,
       "*3\r\n$5\r\nDEBUG\r\n$8\r\nPROTOCOL\r\n$6\r\n"
       "bignum\r\n"),
    CH(ENAV_L7_RESPONSE, 40, "(1234567999999999999999999999999999999\r\n"),
    CH(ENAV_L7_REQUEST, 39,
       "*3\r\n$5\r\nDEBUG\r\n$8\r\nPROTOCOL\r\n$4\r\n"
       "true\r\n"),
    CH(ENAV_L7_RESPONSE, 4, "#t\r\n"),
    CH(ENAV_L7_REQUEST, 40,
       "*3\r\n$5\r\nDEBUG\r\n$8\r\nPROTOCOL\r\n$5\r\n"
       "false\r\n"),
    CH(ENAV_L7_RESPONSE, 4, "#f\r\n"),
    CH(ENAV_L7_REQUEST, 39,
       "*3\r\n$5\r\nDEBUG\r\n$8\r\nPROTOCOL\r\n$4\r\n"
       "null\r\n"),
    CH(ENAV_L7_RESPONSE, 3, "_\r\n"),
    CH(ENAV_L7_REQUEST, 43,
       "*3\r\n$5\r\nDEBUG\r\n$8\r\nPROTOCOL\r\n$8\r\n"
       "verbatim\r\n"),
    CH(ENAV_L7_RESPONSE, 36, "=29\r\ntxt:This is a verbatim\nstring\r\n"),
    CH(ENAV_L7_REQUEST, 39,
       "*3\r\n$5\r\nDEBUG\r\n$8\r\nPROTOCOL\r\n$4\r\n"
       "push\r\n"),
    CH(ENAV_L7_RESPONSE, 79,
       ">2\r\n$16\r\nserver-cpu-usage\r\n:42\r\n$40\r\n"
       "Some real reply following the push reply\r\n"),
    CH(ENAV_L7_REQUEST, 41,
       "*3\r\n$5\r\nDEBUG\r\n$8\r\nPROTOCOL\r\n$6\r\n"
       "double\r\n"),
    CH(ENAV_L7_RESPONSE, 8, ",3.141\r\n"),
    CH(ENAV_L7_REQUEST, 38,
       "*3\r\n$5\r\nDEBUG\r\n$8\r\nPROTOCOL\r\n$3\r\n"
       "map\r\n"),
    CH(ENAV_L7_RESPONSE, 28, "%3\r\n:0\r\n#f\r\n:1\r\n#t\r\n:2\r\n#f\r\n"),
    CH(ENAV_L7_REQUEST, 38,
       "*3\r\n$5\r\nDEBUG\r\n$8\r\nPROTOCOL\r\n$3\r\n"
       "set\r\n"),
    CH(ENAV_L7_RESPONSE, 16, "~3\r\n:0\r\n:1\r\n:2\r\n"),
    CH(ENAV_L7_REQUEST, 38,
       "*3\r\n$6\r\nCLIENT\r\n$8\r\nTRACKING\r\n$2\r\n"
       "ON\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 26, "*2\r\n$3\r\nGET\r\n$7\r\ntracked\r\n"),
    CH(ENAV_L7_RESPONSE, 3, "_\r\n"),
    CH(ENAV_L7_RESPONSE, 38, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$7\r\ntracked\r\n"),
    CH(ENAV_L7_REQUEST, 40,
       "*3\r\n$9\r\nSUBSCRIBE\r\n$4\r\nnews\r\n$5\r\n"
       "sport\r\n"),
    CH(ENAV_L7_RESPONSE, 67,
       ">3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n"
       ">3\r\n$9\r\nsubscribe\r\n$5\r\nsport\r\n:2\r\n"),
    CH(ENAV_L7_RESPONSE, 38,
       ">3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\n"
       "hello\r\n"),
    CH(ENAV_L7_RESPONSE, 38,
       ">3\r\n$7\r\nmessage\r\n$5\r\nsport\r\n$4\r\n"
       "goal\r\n"),
    CH(ENAV_L7_REQUEST, 26, "*2\r\n$3\r\nGET\r\n$7\r\ntracked\r\n"),
    CH(ENAV_L7_RESPONSE, 7, "$1\r\nv\r\n"),
    CH(ENAV_L7_REQUEST, 22, "*1\r\n$11\r\nUNSUBSCRIBE\r\n"),
    CH(ENAV_L7_RESPONSE, 73,
       ">3\r\n$11\r\nunsubscribe\r\n$4\r\nnews\r\n"
       ":1\r\n>3\r\n$11\r\nunsubscribe\r\n$5\r\nsport\r\n"
       ":0\r\n"),
    CH(ENAV_L7_REQUEST, 27, "*2\r\n$4\r\nINCR\r\n$7\r\ntracked\r\n"),
    CH(ENAV_L7_RESPONSE, 46, "-ERR value is not an integer or out of range\r\n"),
};

/* RESP2 subscribe mode. */
static const struct chunk raw_sub2[] = {
    CH(ENAV_L7_REQUEST, 40,
       "*3\r\n$9\r\nSUBSCRIBE\r\n$4\r\nnews\r\n$5\r\n"
       "sport\r\n"),
    CH(ENAV_L7_RESPONSE, 67,
       "*3\r\n$9\r\nsubscribe\r\n$4\r\nnews\r\n:1\r\n"
       "*3\r\n$9\r\nsubscribe\r\n$5\r\nsport\r\n:2\r\n"),
    CH(ENAV_L7_REQUEST, 29, "*2\r\n$10\r\nPSUBSCRIBE\r\n$2\r\nn*\r\n"),
    CH(ENAV_L7_RESPONSE, 33, "*3\r\n$10\r\npsubscribe\r\n$2\r\nn*\r\n:3\r\n"),
    CH(ENAV_L7_RESPONSE, 85,
       "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\n"
       "hello\r\n*4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n"
       "$4\r\nnews\r\n$5\r\nhello\r\n"),
    CH(ENAV_L7_RESPONSE, 38,
       "*3\r\n$7\r\nmessage\r\n$5\r\nsport\r\n$4\r\n"
       "goal\r\n"),
    CH(ENAV_L7_REQUEST, 14, "*1\r\n$4\r\nPING\r\n"),
    CH(ENAV_L7_RESPONSE, 20, "*2\r\n$4\r\npong\r\n$0\r\n\r\n"),
    CH(ENAV_L7_REQUEST, 20, "*2\r\n$3\r\nGET\r\n$1\r\nx\r\n"),
    CH(ENAV_L7_RESPONSE, 116,
       "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QU"
       "IT / RESET are allowed in this context\r\n"),
    CH(ENAV_L7_REQUEST, 32, "*2\r\n$11\r\nUNSUBSCRIBE\r\n$4\r\nnews\r\n"),
    CH(ENAV_L7_RESPONSE, 36,
       "*3\r\n$11\r\nunsubscribe\r\n$4\r\nnews\r\n"
       ":2\r\n"),
    CH(ENAV_L7_REQUEST, 23, "*1\r\n$12\r\nPUNSUBSCRIBE\r\n"),
    CH(ENAV_L7_RESPONSE, 35,
       "*3\r\n$12\r\npunsubscribe\r\n$2\r\nn*\r\n"
       ":1\r\n"),
    CH(ENAV_L7_REQUEST, 22, "*1\r\n$11\r\nUNSUBSCRIBE\r\n"),
    CH(ENAV_L7_RESPONSE, 37,
       "*3\r\n$11\r\nunsubscribe\r\n$5\r\nsport\r\n"
       ":0\r\n"),
    CH(ENAV_L7_REQUEST, 14, "*1\r\n$4\r\nPING\r\n"),
    CH(ENAV_L7_RESPONSE, 7, "+PONG\r\n"),
};

/* Inline commands. */
static const struct chunk raw_inline[] = {
    CH(ENAV_L7_REQUEST, 27, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 6, "PING\r\n"),
    CH(ENAV_L7_RESPONSE, 7, "+PONG\r\n"),
    CH(ENAV_L7_REQUEST, 17, "GET k\r\nEXISTS k\r\n"),
    CH(ENAV_L7_RESPONSE, 11, "$1\r\nv\r\n:1\r\n"),
    CH(ENAV_L7_REQUEST, 12, "*0\r\n\r\nPING\r\n"),
    CH(ENAV_L7_RESPONSE, 7, "+PONG\r\n"),
};

/* redis-benchmark -P 16: its CONFIG GET pair, one SET batch x3, one GET batch. */
static const struct chunk bench_config[] = {
    CH(ENAV_L7_REQUEST, 77,
       "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$4\r\n"
       "save\r\n*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n"
       "$10\r\nappendonly\r\n"),
    CH(ENAV_L7_RESPONSE, 49,
       "*2\r\n$4\r\nsave\r\n$0\r\n\r\n*2\r\n$10\r\n"
       "appendonly\r\n$2\r\nno\r\n"),
};
static const struct chunk bench_set[] = {
    CH(ENAV_L7_REQUEST, 720,
       "*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n"),
    CH(ENAV_L7_RESPONSE, 80,
       "+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n"
       "+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n"
       "+OK\r\n+OK\r\n+OK\r\n+OK\r\n"),
    CH(ENAV_L7_REQUEST, 720,
       "*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n"),
    CH(ENAV_L7_RESPONSE, 80,
       "+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n"
       "+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n"
       "+OK\r\n+OK\r\n+OK\r\n+OK\r\n"),
    CH(ENAV_L7_REQUEST, 720,
       "*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n*3\r\n$3\r\nSET\r\n$16\r\nkey:__rand_int__\r\n"
       "$3\r\nVXK\r\n"),
    CH(ENAV_L7_RESPONSE, 80,
       "+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n"
       "+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n"
       "+OK\r\n+OK\r\n+OK\r\n+OK\r\n"),
};
static const struct chunk bench_get[] = {
    CH(ENAV_L7_REQUEST, 576,
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"
       "*2\r\n$3\r\nGET\r\n$16\r\nkey:__rand_int__\r\n"),
    CH(ENAV_L7_RESPONSE, 144,
       "$3\r\nVXK\r\n$3\r\nVXK\r\n$3\r\nVXK\r\n$3\r\n"
       "VXK\r\n$3\r\nVXK\r\n$3\r\nVXK\r\n$3\r\nVXK\r\n"
       "$3\r\nVXK\r\n$3\r\nVXK\r\n$3\r\nVXK\r\n$3\r\n"
       "VXK\r\n$3\r\nVXK\r\n$3\r\nVXK\r\n$3\r\nVXK\r\n"
       "$3\r\nVXK\r\n$3\r\nVXK\r\n"),
};

/* COMMAND DOCS, a 5000-byte value, RESP3 maps, MONITOR, RESET. */
static const struct chunk raw_docs[] = {
    CH(ENAV_L7_REQUEST, 36,
       "*3\r\n$7\r\nCOMMAND\r\n$4\r\nDOCS\r\n$3\r\n"
       "get\r\n"),
    CH(ENAV_L7_RESPONSE, 218,
       "*2\r\n$3\r\nget\r\n*10\r\n$7\r\nsummary\r\n"
       "$22\r\nGet the value of a key\r\n$5\r\nsince\r\n"
       "$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n"
       "$10\r\ncomplexity\r\n$4\r\nO(1)\r\n$9\r\n"
       "arguments\r\n*1\r\n*6\r\n$4\r\nname\r\n$3\r\n"
       "key\r\n$4\r\ntype\r\n$3\r\nkey\r\n$14\r\n"
       "key_spec_index\r\n:0\r\n"),
    CH(ENAV_L7_REQUEST, 5034,
       "*3\r\n$3\r\nSET\r\n$6\r\nbigval\r\n$5000\r\n"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 25, "*2\r\n$3\r\nGET\r\n$6\r\nbigval\r\n"),
    CH(ENAV_L7_RESPONSE, 5009,
       "$5000\r\nvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv"
       "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\r\n"),
    CH(ENAV_L7_REQUEST, 43,
       "*4\r\n$6\r\nLRANGE\r\n$6\r\nnolist\r\n$1\r\n"
       "0\r\n$2\r\n-1\r\n"),
    CH(ENAV_L7_RESPONSE, 4, "*0\r\n"),
    CH(ENAV_L7_REQUEST, 22, "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n"),
    CH(ENAV_L7_RESPONSE, 146,
       "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\n"
       "version\r\n$6\r\n7.0.15\r\n$5\r\nproto\r\n"
       ":3\r\n$2\r\nid\r\n:51\r\n$4\r\nmode\r\n$10\r\n"
       "standalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n"
       "$7\r\nmodules\r\n*0\r\n"),
    CH(ENAV_L7_REQUEST, 36,
       "*3\r\n$7\r\nCOMMAND\r\n$4\r\nDOCS\r\n$3\r\n"
       "set\r\n"),
    CH(ENAV_L7_RESPONSE, 1521,
       "%1\r\n$3\r\nset\r\n%6\r\n$7\r\nsummary\r\n"
       "$29\r\nSet the string value of a key\r\n$5\r\n"
       "since\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\n"
       "string\r\n$10\r\ncomplexity\r\n$4\r\nO(1)\r\n"
       "$7\r\nhistory\r\n~4\r\n*2\r\n$6\r\n2.6.12\r\n"
       "$44\r\nAdded the `EX`, `PX`, `NX` and `XX` options.\r\n"
       "*2\r\n$5\r\n6.0.0\r\n$27\r\nAdded the `KEEPTTL` option.\r\n"
       "*2\r\n$5\r\n6.2.0\r\n$42\r\nAdded the `GET`, `EXAT` and `PXAT` option.\r\n"
       "*2\r\n$5\r\n7.0.0\r\n$55\r\nAllowed the `NX` and `GET` options to be used to"
       "gether.\r\n$9\r\narguments\r\n*5\r\n%3\r\n"
       "$4\r\nname\r\n$3\r\nkey\r\n$4\r\ntype\r\n"
       "$3\r\nkey\r\n$14\r\nkey_spec_index\r\n:0\r\n"
       "%2\r\n$4\r\nname\r\n$5\r\nvalue\r\n$4\r\n"
       "type\r\n$6\r\nstring\r\n%5\r\n$4\r\nname\r\n"
       "$9\r\ncondition\r\n$4\r\ntype\r\n$5\r\noneof\r\n"
       "$5\r\nsince\r\n$6\r\n2.6.12\r\n$5\r\nflags\r\n"
       "~1\r\n+optional\r\n$9\r\narguments\r\n*2\r\n"
       "%3\r\n$4\r\nname\r\n$2\r\nnx\r\n$4\r\ntype\r\n"
       "$10\r\npure-token\r\n$5\r\ntoken\r\n$2\r\n"
       "NX\r\n%3\r\n$4\r\nname\r\n$2\r\nxx\r\n$4\r\n"
       "type\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n"
       "$2\r\nXX\r\n%5\r\n$4\r\nname\r\n$3\r\nget\r\n"
       "$4\r\ntype\r\n$10\r\npure-token\r\n$5\r\n"
       "token\r\n$3\r\nGET\r\n$5\r\nsince\r\n$5\r\n"
       "6.2.0\r\n$5\r\nflags\r\n~1\r\n+optional\r\n"
       "%4\r\n$4\r\nname\r\n$10\r\nexpiration\r\n"
       "$4\r\ntype\r\n$5\r\noneof\r\n$5\r\nflags\r\n"
       "~1\r\n+optional\r\n$9\r\narguments\r\n*5\r\n"
       "%4\r\n$4\r\nname\r\n$7\r\nseconds\r\n$4\r\n"
       "type\r\n$7\r\ninteger\r\n$5\r\ntoken\r\n$2\r\n"
       "EX\r\n$5\r\nsince\r\n$6\r\n2.6.12\r\n%4\r\n"
       "$4\r\nname\r\n$12\r\nmilliseconds\r\n$4\r\n"
       "type\r\n$7\r\ninteger\r\n$5\r\ntoken\r\n$2\r\n"
       "PX\r\n$5\r\nsince\r\n$6\r\n2.6.12\r\n%4\r\n"
       "$4\r\nname\r\n$17\r\nunix-time-seconds\r\n"
       "$4\r\ntype\r\n$9\r\nunix-time\r\n$5\r\ntoken\r\n"
       "$4\r\nEXAT\r\n$5\r\nsince\r\n$5\r\n6.2.0\r\n"
       "%4\r\n$4\r\nname\r\n$22\r\nunix-time-milliseconds\r\n"
       "$4\r\ntype\r\n$9\r\nunix-time\r\n$5\r\ntoken\r\n"
       "$4\r\nPXAT\r\n$5\r\nsince\r\n$5\r\n6.2.0\r\n"
       "%4\r\n$4\r\nname\r\n$7\r\nkeepttl\r\n$4\r\n"
       "type\r\n$10\r\npure-token\r\n$5\r\ntoken\r\n"
       "$7\r\nKEEPTTL\r\n$5\r\nsince\r\n$5\r\n6.0.0\r\n"),
    CH(ENAV_L7_REQUEST, 42,
       "*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$10\r\n"
       "maxmemory*\r\n"),
    CH(ENAV_L7_RESPONSE, 170,
       "%5\r\n$27\r\nmaxmemory-eviction-tenacity\r\n"
       "$2\r\n10\r\n$16\r\nmaxmemory-policy\r\n$10\r\n"
       "noeviction\r\n$17\r\nmaxmemory-clients\r\n"
       "$1\r\n0\r\n$17\r\nmaxmemory-samples\r\n$1\r\n"
       "5\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n"),
    CH(ENAV_L7_REQUEST, 42,
       "*3\r\n$6\r\nOBJECT\r\n$8\r\nENCODING\r\n$6\r\n"
       "bigval\r\n"),
    CH(ENAV_L7_RESPONSE, 9, "$3\r\nraw\r\n"),
    CH(ENAV_L7_REQUEST, 17, "*1\r\n$7\r\nMONITOR\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_RESPONSE, 55, "+1796037654.449547 [0 127.0.0.1:33650] \"GET\" \"bigval\"\r\n"),
    CH(ENAV_L7_RESPONSE, 47, "+1796037655.050344 [0 127.0.0.1:33650] \"PING\"\r\n"),
    CH(ENAV_L7_REQUEST, 15, "*1\r\n$5\r\nRESET\r\n"),
    CH(ENAV_L7_RESPONSE, 8, "+RESET\r\n"),
    CH(ENAV_L7_REQUEST, 14, "*1\r\n$4\r\nPING\r\n"),
    CH(ENAV_L7_RESPONSE, 7, "+PONG\r\n"),
};

/* A replica (redis-server --replicaof) syncing: "\n" keepalives, +FULLRESYNC,
 * a diskless RDB ($EOF:<mark>), then REPLCONF ACK. */
static const struct chunk raw_replica[] = {
    CH(ENAV_L7_REQUEST, 14, "*1\r\n$4\r\nPING\r\n"),
    CH(ENAV_L7_RESPONSE, 7, "+PONG\r\n"),
    CH(ENAV_L7_REQUEST, 50,
       "*3\r\n$8\r\nREPLCONF\r\n$14\r\nlistening-port\r\n"
       "$5\r\n46381\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 59,
       "*5\r\n$8\r\nREPLCONF\r\n$4\r\ncapa\r\n$3\r\n"
       "eof\r\n$4\r\ncapa\r\n$6\r\npsync2\r\n"),
    CH(ENAV_L7_RESPONSE, 5, "+OK\r\n"),
    CH(ENAV_L7_REQUEST, 30, "*3\r\n$5\r\nPSYNC\r\n$1\r\n\?\r\n$2\r\n-1\r\n"),
    CH(ENAV_L7_RESPONSE, 1, "\n"),
    CH(ENAV_L7_RESPONSE, 1, "\n"),
    CH(ENAV_L7_RESPONSE, 1, "\n"),
    CH(ENAV_L7_RESPONSE, 1, "\n"),
    CH(ENAV_L7_RESPONSE, 1, "\n"),
    CH(ENAV_L7_RESPONSE, 57, "+FULLRESYNC 854f643c4e656489716df6bc68872448767ce988 71\r\n"),
    CH(ENAV_L7_RESPONSE, 458,
       "$EOF:15681302ffd3ba855622daf4e3f5075978f1f356\r\n"
       "REDIS0010\372\tredis-ver\0067.0.15\372\nredis-bits\300@\372\005ctime\302\222"
       "a\rk\372\010used-mem\302\320A\032\000\372\016repl-stream-db\300\000\372\007r"
       "epl-id(854f643c4e656489716df6bc68872448767ce988\372\013repl-offset\300G\372\010"
       "aof-base\300\000\376\000\373\t\000\020\002h3\021\021\000\000\000\004\000\201"
       "a\002\001\001\201b\002\002\001\377\000\006bigval\303\?S\210\001vv\340\377\000"
       "\340\377\000\340\377\000\340\377\000\340\377\000\340\377\000\340\377\000\340"
       "\377\000\340\377\000\340\377\000\340\377\000\340\377\000\340\377\000\340\377"
       "\000\340\377\000\340\377\000\340\377\000\340\377\000\340\353\000\001vv\000\007"
       "tracked\001v\021\002z3\017\017\000\000\000\002\000\201m\002\2031.5\004\377\002"
       "\002s3\002\001y\001x\000\003big\303\t@\271\001XX\340\254\000\001XX\000\001k\001"
       "v\000\020key:__rand_int__\003VXK\000\010repltest\300\001\377\230\035\030\224"
       "\355\347j_15681302ffd3ba855622daf4e3f5075978f1f356"),
    CH(ENAV_L7_REQUEST, 35,
       "*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$2\r\n"
       "71\r\n"),
};

/* ---- harness -------------------------------------------------------------- */

#define MAX_OPS	 1024
#define TS(i)	 ((uint64_t)((i) + 1) * 1000000ull)
#define SEQ_REQ	 1000u
#define SEQ_RESP 7000000u

struct rec {
	struct enav_l7_op ops[MAX_OPS];
	size_t n;
	struct enav_l7_parser_stats st;
};

static void on_op(void *ctx, const struct enav_l7_op *op)
{
	struct rec *r = ctx;

	assert_true(r->n < MAX_OPS);
	/* Contract invariants on every op. */
	assert_int_equal(op->protocol, ENAV_L7_REDIS);
	assert_non_null(memchr(op->operation, '\0', sizeof(op->operation)));
	assert_non_null(memchr(op->status, '\0', sizeof(op->status)));
	assert_string_equal(op->target, "");
	assert_string_equal(op->path, "");
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
	int gap_chunk;	/* >= 0: this chunk is flagged gap */
	uint32_t max_pending;
	bool no_finish;
};

static const struct feed WHOLE = {0, 0, -1, 0, -1, -1, 0, false};

static void feed_frag(const struct enav_l7_parser_ops *ops, void *st, const struct chunk *c,
		      uint32_t from, uint32_t to, uint32_t captured, uint64_t ts, uint32_t seq,
		      bool gap, const struct enav_l7_sink *sink)
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
	ops->feed(st, &f, sink);
	free(buf);
}

static void run(const struct chunk *c, size_t n, const struct feed *o, struct rec *r)
{
	const struct enav_l7_parser_ops *ops = &enav_l7_redis_ops;
	struct enav_l7_options opt = {.max_pending = o->max_pending ? o->max_pending : 32};
	void *st = calloc(1, ops->state_size);
	uint32_t seq[2] = {SEQ_REQ, SEQ_RESP};
	bool pending_gap[2] = {false, false};

	assert_non_null(st);
	memset(r, 0, sizeof(*r));
	struct enav_l7_sink sink = {on_op, r, &r->st, NULL};
	assert_int_equal(ops->init(st, &opt), 0);
	for (size_t i = 0; i < n; i++) {
		int s = c[i].stream;
		uint32_t captured = c[i].captured;

		bool gap = pending_gap[s] || (int)i == o->gap_chunk;

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
			feed_frag(ops, st, &c[i], 0, k, captured, TS(i), seq[s], gap, &sink);
			feed_frag(ops, st, &c[i], k, c[i].len, captured, TS(i), seq[s], false,
				  &sink);
		} else if (o->split) {
			for (uint32_t a = 0; a < c[i].len; a += o->split) {
				uint32_t b = a + o->split < c[i].len ? a + o->split : c[i].len;
				feed_frag(ops, st, &c[i], a, b, captured, TS(i), seq[s],
					  gap && a == 0, &sink);
			}
		} else {
			feed_frag(ops, st, &c[i], 0, c[i].len, captured, TS(i), seq[s], gap, &sink);
		}
		seq[s] += c[i].len;
	}
	if (!o->no_finish)
		ops->finish(st, &sink);
	free(st);
	assert_int_equal(r->st.ops, r->n);
}

/* TCP sequence number of byte off of chunk idx. */
static uint32_t chunk_seq(const struct chunk *c, size_t idx, uint32_t off)
{
	uint32_t seq = c[idx].stream == ENAV_L7_REQUEST ? SEQ_REQ : SEQ_RESP;

	for (size_t i = 0; i < idx; i++)
		if (c[i].stream == c[idx].stream)
			seq += c[i].len;
	return seq + off;
}

struct exp {
	const char *op;
	bool error;
	const char *status;
	bool seen;
	uint64_t req_bytes, resp_bytes;
	int start, end; /* chunk indexes; end ignored when !seen */
	uint32_t seq_off;
};

static void check(const struct rec *r, const struct chunk *c, const struct exp *e, size_t n)
{
	if (r->n != n) {
		for (size_t i = 0; i < r->n; i++)
			fprintf(stderr, "op %zu: %s err=%d status=%s seen=%d %llu/%llu\n", i,
				r->ops[i].operation, r->ops[i].error, r->ops[i].status,
				r->ops[i].response_seen,
				(unsigned long long)r->ops[i].request_bytes,
				(unsigned long long)r->ops[i].response_bytes);
	}
	assert_int_equal(r->n, n);
	for (size_t i = 0; i < n; i++) {
		const struct enav_l7_op *op = &r->ops[i];
		assert_string_equal(op->operation, e[i].op);
		assert_int_equal(op->kind, ENAV_L7_OP_REQUEST);
		assert_int_equal(op->error, e[i].error);
		assert_string_equal(op->status, e[i].status ? e[i].status : "");
		assert_int_equal(op->status_code, -1);
		assert_int_equal(op->response_seen, e[i].seen);
		assert_int_equal(op->request_bytes, e[i].req_bytes);
		assert_int_equal(op->response_bytes, e[i].seen ? e[i].resp_bytes : 0);
		assert_int_equal(op->start_ns, TS(e[i].start));
		assert_int_equal(op->end_ns, e[i].seen ? TS(e[i].end) : TS(e[i].start));
		assert_true(op->has_request_seq);
		assert_int_equal(op->request_seq, chunk_seq(c, (size_t)e[i].start, e[i].seq_off));
		assert_false(op->rpc || op->messaging_receive || op->has_traceparent);
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

/* The conversation gives the same ops and stats whether fed whole, split at
 * every byte boundary of every chunk, or one byte at a time. */
static void check_splits(const struct chunk *c, size_t n)
{
	run(c, n, &WHOLE, &g_whole);
	for (size_t i = 0; i < n; i++) {
		for (uint32_t k = 1; k < c[i].captured + 2 && k < c[i].len; k++) {
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
	bool r = enav_l7_redis_ops.detect(b, n, st);
	free(b);
	return r;
}
#define DET(lit, st) det(lit, sizeof(lit) - 1, st)

static void test_detect(void **unused)
{
	(void)unused;
	assert_string_equal(enav_l7_protocol_name(enav_l7_redis_ops.protocol), "redis");
	assert_int_equal(enav_l7_redis_ops.protocol, ENAV_L7_REDIS);
	/* The kernel's signature: '*' then a digit. */
	assert_true(DET("*1", ENAV_L7_REQUEST));
	assert_true(DET("*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", ENAV_L7_REQUEST));
	assert_true(DET("*9", ENAV_L7_REQUEST));
	assert_false(DET("*", ENAV_L7_REQUEST));
	assert_false(DET("*x", ENAV_L7_REQUEST));
	assert_false(DET("PING\r\n", ENAV_L7_REQUEST)); /* inline: not detected */
	assert_false(DET("", ENAV_L7_REQUEST));
	/* Other protocols' request signatures. */
	assert_false(DET("GET / HTTP/1.1\r\n", ENAV_L7_REQUEST));
	assert_false(DET("CONNECT example:443 HTTP/1.1\r\n", ENAV_L7_REQUEST));
	assert_false(DET("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", ENAV_L7_REQUEST));
	assert_false(DET("\0\0\0\x08\x04\xd2\x16\x2f", ENAV_L7_REQUEST));	/* SSLRequest */
	assert_false(DET("\0\0\0\x29\0\x03\0\0user\0", ENAV_L7_REQUEST));	/* pg startup */
	assert_false(DET("\0\0\0\x20\0\x12\0\x03\0\0\0\x01", ENAV_L7_REQUEST)); /* kafka */
	assert_false(DET("\x2a\0\0\0\x01\0\0\0\0\0\0\0\xdd\x07\0\0", ENAV_L7_REQUEST)); /* mongo */
	assert_false(DET("CONNECT {\"verbose\":false}\r\n", ENAV_L7_REQUEST));
	/* Responses: one complete RESP line. */
	assert_true(DET("+OK\r\n", ENAV_L7_RESPONSE));
	assert_true(DET("-ERR unknown command\r\n", ENAV_L7_RESPONSE));
	assert_true(DET(":42\r\n", ENAV_L7_RESPONSE));
	assert_true(DET("$-1\r\n", ENAV_L7_RESPONSE));
	assert_true(DET("*3\r\n$9\r\nsubscribe", ENAV_L7_RESPONSE));
	assert_true(DET("%7\r\n$6\r\nserver\r\n", ENAV_L7_RESPONSE));
	assert_true(DET("_\r\n", ENAV_L7_RESPONSE));
	assert_false(DET("+OK", ENAV_L7_RESPONSE));
	assert_false(DET("HTTP/1.1 200 OK\r\n", ENAV_L7_RESPONSE));
	assert_false(DET("INFO {\"server_id\":\"x\"}\r\n", ENAV_L7_RESPONSE));
	/* mysql greeting: length 0x2a ('*'), 0x5f ('_'), 0x2b ('+') */
	assert_false(DET("\x2a\0\0\0\x0a"
			 "8.0.36\0",
			 ENAV_L7_RESPONSE));
	assert_false(DET("\x5f\0\0\0\x0a"
			 "10.11.6-MariaDB\0",
			 ENAV_L7_RESPONSE));
	assert_false(DET("\x2b\0\0\0\x0a"
			 "5.7\0",
			 ENAV_L7_RESPONSE));
	assert_false(DET("\0\0\x00\x18\x04\0\0\0\0", ENAV_L7_RESPONSE)); /* h2 SETTINGS */
	assert_false(DET("R\0\0\0\x08\0\0\0\0", ENAV_L7_RESPONSE));	 /* pg AuthOk */
}

/* ---- real traffic --------------------------------------------------------- */

static const struct exp cli_resp2_exp[] = {
    {"COMMAND DOCS", false, "", true, 27, 65536 + 59856 + 46906, 0, 3, 0},
    {"SET", false, "", true, 38, 5, 4, 5, 0},
    {"GET", false, "", true, 27, 11, 6, 7, 0},
    {"INCR", true, "ERR", true, 28, 46, 8, 9, 0},
    {"LPUSH", true, "WRONGTYPE", true, 36, 68, 10, 11, 0},
    {"NOSUCHCMD", true, "ERR", true, 33, 70, 12, 13, 0},
    {"CLIENT SETNAME", false, "", true, 43, 5, 14, 15, 0},
    {"CONFIG GET", false, "", true, 40, 26, 16, 17, 0},
    {"HSET", false, "", true, 53, 4, 18, 19, 0},
    {"HGETALL", false, "", true, 24, 36, 20, 21, 0},
    {"RPUSH", false, "", true, 43, 4, 22, 23, 0},
    {"LRANGE", false, "", true, 38, 25, 24, 25, 0},
    {"MULTI", false, "", true, 15, 5, 26, 27, 0},
    {"SET", false, "", true, 28, 9, 28, 29, 0},
    {"INCR", false, "", true, 22, 9, 30, 31, 0},
    {"LPUSH", false, "", true, 30, 9, 32, 33, 0},
    {"EXEC", false, "", true, 14, 81, 34, 35, 0}, /* one array, an error inside */
    {"PING", false, "", true, 14, 7, 36, 37, 0},
    {"DEL", false, "", true, 49, 4, 38, 39, 0},
    {"EXISTS", false, "", true, 30, 4, 40, 41, 0},
    {"SET", false, "", true, 215, 5, 42, 43, 0},
    {"GET", false, "", true, 22, 193, 44, 45, 0},
    {"GET", false, "", true, 26, 5, 46, 47, 0},
};

static void test_cli_resp2(void **unused)
{
	(void)unused;
	run(cli_resp2, N(cli_resp2), &WHOLE, &g_whole);
	check(&g_whole, cli_resp2, cli_resp2_exp, N(cli_resp2_exp));
	/* The hidden tail of the COMMAND DOCS reply is the one resync. */
	assert_int_equal(g_whole.st.resyncs, 1);
	assert_int_equal(g_whole.st.parse_errors, 0);
	assert_int_equal(g_whole.st.unmatched_responses, 0);
	assert_int_equal(g_whole.st.pending_overflow, 0);
	assert_int_equal(g_whole.st.truncated_fields, 0);
	check_splits(cli_resp2, N(cli_resp2));
}

static const struct exp resp3_exp[] = {
    {"HELLO", false, "", true, 22, 145, 0, 1, 0},
    {"DEBUG", false, "", true, 41, 93, 2, 3, 0}, /* attribute, then the reply */
    {"DEBUG", false, "", true, 41, 40, 4, 5, 0},
    {"DEBUG", false, "", true, 39, 4, 6, 7, 0},
    {"DEBUG", false, "", true, 40, 4, 8, 9, 0},
    {"DEBUG", false, "", true, 39, 3, 10, 11, 0},
    {"DEBUG", false, "", true, 43, 36, 12, 13, 0},
    {"DEBUG", false, "", true, 39, 79 - 32, 14, 15, 0}, /* a push frame first: not the reply */
    {"DEBUG", false, "", true, 41, 8, 16, 17, 0},
    {"DEBUG", false, "", true, 38, 28, 18, 19, 0},
    {"DEBUG", false, "", true, 38, 16, 20, 21, 0},
    {"CLIENT TRACKING", false, "", true, 38, 5, 22, 23, 0},
    {"GET", false, "", true, 26, 3, 24, 25, 0},
    /* chunk 26: an invalidation push */
    {"SUBSCRIBE", false, "", true, 40, 33, 27, 28, 0}, /* first confirmation */
    /* chunks 29, 30: deliveries */
    {"GET", false, "", true, 26, 7, 31, 32, 0},
    {"UNSUBSCRIBE", false, "", true, 22, 36, 33, 34, 0},
    {"INCR", true, "ERR", true, 27, 46, 35, 36, 0},
};

static void test_resp3(void **unused)
{
	(void)unused;
	run(raw_resp3, N(raw_resp3), &WHOLE, &g_whole);
	check(&g_whole, raw_resp3, resp3_exp, N(resp3_exp));
	assert_int_equal(g_whole.st.resyncs, 0);
	assert_int_equal(g_whole.st.parse_errors, 0);
	assert_int_equal(g_whole.st.unmatched_responses, 0);
	check_splits(raw_resp3, N(raw_resp3));
}

static const struct exp sub2_exp[] = {
    {"SUBSCRIBE", false, "", true, 40, 33, 0, 1, 0},
    {"PSUBSCRIBE", false, "", true, 29, 33, 2, 3, 0},
    /* chunks 4, 5: "message" / "pmessage" arrays, not replies */
    {"PING", false, "", true, 14, 20, 6, 7, 0}, /* ["pong", ""] in subscribe mode */
    {"GET", true, "ERR", true, 20, 116, 8, 9, 0},
    {"UNSUBSCRIBE", false, "", true, 32, 36, 10, 11, 0},
    {"PUNSUBSCRIBE", false, "", true, 23, 35, 12, 13, 0},
    {"UNSUBSCRIBE", false, "", true, 22, 37, 14, 15, 0},
    {"PING", false, "", true, 14, 7, 16, 17, 0},
};

static void test_sub2(void **unused)
{
	(void)unused;
	run(raw_sub2, N(raw_sub2), &WHOLE, &g_whole);
	check(&g_whole, raw_sub2, sub2_exp, N(sub2_exp));
	assert_int_equal(g_whole.st.resyncs, 0);
	assert_int_equal(g_whole.st.parse_errors, 0);
	assert_int_equal(g_whole.st.unmatched_responses, 0);
	check_splits(raw_sub2, N(raw_sub2));
}

static const struct exp inline_exp[] = {
    {"SET", false, "", true, 27, 5, 0, 1, 0}, {"PING", false, "", true, 6, 7, 2, 3, 0},
    {"GET", false, "", true, 7, 7, 4, 5, 0},  {"EXISTS", false, "", true, 10, 4, 4, 5, 7},
    {"PING", false, "", true, 6, 7, 6, 7, 6}, /* after "*0\r\n" and an empty line */
};

static void test_inline(void **unused)
{
	(void)unused;
	run(raw_inline, N(raw_inline), &WHOLE, &g_whole);
	check(&g_whole, raw_inline, inline_exp, N(inline_exp));
	assert_int_equal(g_whole.st.parse_errors, 0);
	check_splits(raw_inline, N(raw_inline));

	/* Before any RESP request, an inline line is not known to be Redis. */
	static const struct chunk first_inline[] = {
	    C(ENAV_L7_REQUEST, "PING\r\n"),
	    C(ENAV_L7_RESPONSE, "+PONG\r\n"),
	    C(ENAV_L7_REQUEST, "*1\r\n$4\r\nPING\r\n"),
	    C(ENAV_L7_RESPONSE, "+PONG\r\n"),
	};
	run(first_inline, N(first_inline), &WHOLE, &g_whole);
	static const struct exp fi_exp[] = {{"PING", false, "", true, 14, 7, 2, 3, 0}};
	check(&g_whole, first_inline, fi_exp, 1);
	assert_int_equal(g_whole.st.parse_errors, 1);
	assert_int_equal(g_whole.st.unmatched_responses, 1);
}

static void test_benchmark_pipeline(void **unused)
{
	(void)unused;
	struct exp e[16 * 3];

	run(bench_config, N(bench_config), &WHOLE, &g_whole);
	struct exp ce[2] = {{"CONFIG GET", false, "", true, 35, 20, 0, 1, 0},
			    {"CONFIG GET", false, "", true, 42, 29, 0, 1, 35}};
	check(&g_whole, bench_config, ce, 2);
	check_splits(bench_config, N(bench_config));

	/* Three batches of 16 SETs (45 bytes each), 16 "+OK\r\n" per read. */
	for (int b = 0; b < 3; b++)
		for (int k = 0; k < 16; k++)
			e[b * 16 + k] = (struct exp){
			    "SET", false, "", true, 45, 5, b * 2, b * 2 + 1, (uint32_t)k * 45};
	run(bench_set, N(bench_set), &WHOLE, &g_whole);
	check(&g_whole, bench_set, e, 48);
	assert_int_equal(g_whole.st.pending_overflow, 0);
	check_splits(bench_set, N(bench_set));

	for (int k = 0; k < 16; k++)
		e[k] = (struct exp){"GET", false, "", true, 36, 9, 0, 1, (uint32_t)k * 36};
	run(bench_get, N(bench_get), &WHOLE, &g_whole);
	check(&g_whole, bench_get, e, 16);
	check_splits(bench_get, N(bench_get));

	/* A FIFO of 4: 12 of each 16 are dropped, counted, and their replies
	 * consumed without shifting the pairing of the next batch. */
	struct feed o = WHOLE;
	o.max_pending = 4;
	run(bench_set, N(bench_set), &o, &g_whole);
	for (int b = 0; b < 3; b++)
		for (int k = 0; k < 4; k++)
			e[b * 4 + k] = (struct exp){
			    "SET", false, "", true, 45, 5, b * 2, b * 2 + 1, (uint32_t)k * 45};
	check(&g_whole, bench_set, e, 12);
	assert_int_equal(g_whole.st.pending_overflow, 36);
	assert_int_equal(g_whole.st.unmatched_responses, 0);
}

static const struct exp docs_exp[] = {
    {"COMMAND DOCS", false, "", true, 36, 218, 0, 1, 0},
    {"SET", false, "", true, 5034, 5, 2, 3, 0},
    {"GET", false, "", true, 25, 5009, 4, 5, 0},
    {"LRANGE", false, "", true, 43, 4, 6, 7, 0},
    {"HELLO", false, "", true, 22, 146, 8, 9, 0},
    {"COMMAND DOCS", false, "", true, 36, 1521, 10, 11, 0},
    {"CONFIG GET", false, "", true, 42, 170, 12, 13, 0},
    {"OBJECT ENCODING", false, "", true, 42, 9, 14, 15, 0},
    {"MONITOR", false, "", true, 17, 5, 16, 17, 0},
    /* chunks 18, 19: MONITOR's feed, not replies */
    {"RESET", false, "", true, 15, 8, 20, 21, 0},
    {"PING", false, "", true, 14, 7, 22, 23, 0},
};

static void test_docs_monitor(void **unused)
{
	(void)unused;
	run(raw_docs, N(raw_docs), &WHOLE, &g_whole);
	check(&g_whole, raw_docs, docs_exp, N(docs_exp));
	assert_int_equal(g_whole.st.resyncs, 0);
	assert_int_equal(g_whole.st.unmatched_responses, 0);
	check_splits(raw_docs, N(raw_docs));

	/* Only the first bytes of each read captured: bodies are skipped by
	 * length, and a reply whose structure hides in the uncaptured bytes is
	 * still credited with its whole read once the next request is answered:
	 * the same operations, sizes and times. */
	static const uint32_t caps[] = {64, 48, 40};
	for (size_t k = 0; k < N(caps); k++) {
		struct feed o = WHOLE;
		o.cap = caps[k];
		run(raw_docs, N(raw_docs), &o, &g_other);
		check(&g_other, raw_docs, docs_exp, N(docs_exp));
		assert_int_equal(g_other.st.parse_errors, 0);
		assert_true(g_other.st.resyncs > 0);
	}
	/* Captures so short that request framing hides: requests are lost
	 * (resync), never guessed; what is emitted is still exact. */
	static const uint32_t tiny[] = {24, 16, 3, 1};
	for (size_t k = 0; k < N(tiny); k++) {
		struct feed o = WHOLE;
		o.cap = tiny[k];
		run(raw_docs, N(raw_docs), &o, &g_other);
		size_t j = 0;
		for (size_t i = 0; i < g_other.n; i++) {
			const struct enav_l7_op *op = &g_other.ops[i];
			while (j < N(docs_exp) && TS(docs_exp[j].start) != op->start_ns)
				j++;
			assert_true(j < N(docs_exp));
			/* a subcommand may be cut off: then only the command */
			size_t on = strlen(op->operation);
			assert_memory_equal(op->operation, docs_exp[j].op, on);
			assert_true(docs_exp[j].op[on] == '\0' || docs_exp[j].op[on] == ' ');
			assert_true(op->response_seen);
			assert_int_equal(op->request_bytes, docs_exp[j].req_bytes);
			assert_int_equal(op->response_bytes, docs_exp[j].resp_bytes);
			assert_int_equal(op->end_ns, TS(docs_exp[j].end));
		}
		assert_int_equal(g_other.st.parse_errors, 0);
		if (tiny[k] >= 16)
			assert_true(g_other.n >= 3); /* MONITOR, RESET, PING are short */
		else
			assert_true(g_other.st.truncated_fields > 0);
	}
}

/* ---- loss ----------------------------------------------------------------- */

static void test_gaps(void **unused)
{
	(void)unused;

	/* A request read lost (GET): its reply has no request, and the request
	 * after the gap is not paired with it. */
	struct feed o = WHOLE;
	o.skip_chunk = 6;
	run(cli_resp2, N(cli_resp2), &o, &g_whole);
	assert_int_equal(g_whole.n, N(cli_resp2_exp) - 1);
	assert_string_equal(g_whole.ops[1].operation, "SET");
	assert_string_equal(g_whole.ops[2].operation, "INCR");
	assert_true(g_whole.ops[2].error);
	assert_int_equal(g_whole.ops[2].start_ns, TS(8));
	assert_int_equal(g_whole.ops[2].end_ns, TS(9));
	assert_int_equal(g_whole.st.unmatched_responses, 1);
	assert_int_equal(g_whole.st.resyncs, 2);

	/* A reply lost (GET's): GET and INCR are uncertain until a request sent
	 * after the gap is answered; they leave with response_seen = false. */
	o.skip_chunk = 7;
	run(cli_resp2, N(cli_resp2), &o, &g_whole);
	assert_int_equal(g_whole.n, N(cli_resp2_exp));
	assert_string_equal(g_whole.ops[2].operation, "GET");
	assert_false(g_whole.ops[2].response_seen);
	assert_string_equal(g_whole.ops[3].operation, "INCR");
	assert_false(g_whole.ops[3].response_seen);
	assert_false(g_whole.ops[3].error);
	assert_string_equal(g_whole.ops[4].operation, "LPUSH");
	assert_true(g_whole.ops[4].response_seen);
	assert_string_equal(g_whole.ops[4].status, "WRONGTYPE");
	assert_int_equal(g_whole.ops[4].end_ns, TS(11));
	for (size_t i = 5; i < g_whole.n; i++)
		assert_string_equal(g_whole.ops[i].operation, cli_resp2_exp[i].op);

	/* A gap flag on a read that is otherwise whole still resyncs. */
	o = WHOLE;
	o.gap_chunk = 20;
	run(cli_resp2, N(cli_resp2), &o, &g_whole);
	check(&g_whole, cli_resp2, cli_resp2_exp, N(cli_resp2_exp));
	assert_int_equal(g_whole.st.resyncs, 2);

	/* No finish: nothing pending is lost silently when finish comes. */
	static const struct chunk pend[] = {
	    C(ENAV_L7_REQUEST, "*1\r\n$4\r\nPING\r\n"),
	    C(ENAV_L7_REQUEST, "*1\r\n$4\r\nPING\r\n"),
	    CH(ENAV_L7_RESPONSE, 7, "+PO"),
	};
	run(pend, N(pend), &WHOLE, &g_whole);
	/* The first reply's end was not captured: it is the head's, uncertain. */
	assert_int_equal(g_whole.n, 2);
	assert_true(g_whole.ops[0].response_seen);
	assert_int_equal(g_whole.ops[0].response_bytes, 7);
	assert_false(g_whole.ops[1].response_seen);
}

/* ---- synthetic ------------------------------------------------------------ */

static void one(const char *req, size_t rn, const char *resp, size_t sn, struct rec *r)
{
	struct chunk c[2] = {{ENAV_L7_REQUEST, (uint32_t)rn, (uint32_t)rn, req},
			     {ENAV_L7_RESPONSE, (uint32_t)sn, (uint32_t)sn, resp}};
	run(c, 2, &WHOLE, r);
}
#define ONE(req, resp, r) one(req, sizeof(req) - 1, resp, sizeof(resp) - 1, r)

static void test_errors_and_types(void **unused)
{
	(void)unused;
	struct rec *r = &g_whole;

	ONE("*1\r\n$4\r\nEVAL\r\n", "!21\r\nSYNTAX invalid syntax\r\n", r);
	assert_int_equal(r->n, 1);
	assert_true(r->ops[0].error);
	assert_string_equal(r->ops[0].status, "SYNTAX");

	/* Not an upper-case code: error, but no text leaves. */
	ONE("*1\r\n$4\r\nEVAL\r\n", "-user script said something secret\r\n", r);
	assert_true(r->ops[0].error);
	assert_string_equal(r->ops[0].status, "");

	ONE("*1\r\n$4\r\nEVAL\r\n", "-MOVED 3999 127.0.0.1:6381\r\n", r);
	assert_string_equal(r->ops[0].status, "MOVED");

	ONE("*1\r\n$4\r\nEVAL\r\n", "-ERRORCODETHATISFARTOOLONGFORSTATUS x\r\n", r);
	assert_string_equal(r->ops[0].status, "ERRORCODETHATISFARTOOLO");
	assert_int_equal(r->st.truncated_fields, 1);

	/* An attribute inside an array does not count as an element; nested
	 * errors do not make the reply an error. */
	ONE("*1\r\n$4\r\nEXEC\r\n", "*2\r\n|1\r\n+a\r\n+b\r\n-ERR x\r\n:2\r\n", r);
	assert_int_equal(r->n, 1);
	assert_false(r->ops[0].error);
	assert_int_equal(r->ops[0].response_bytes, 28);
	assert_int_equal(r->st.parse_errors, 0);

	/* RESP3 streamed string and aggregate. */
	ONE("*1\r\n$1\r\nX\r\n", "$?\r\n;4\r\nHell\r\n;5\r\no wor\r\n;0\r\n", r);
	assert_int_equal(r->n, 1);
	assert_true(r->ops[0].response_seen);
	assert_int_equal(r->st.parse_errors, 0);
	ONE("*1\r\n$1\r\nX\r\n", "*?\r\n:1\r\n%?\r\n+a\r\n:1\r\n.\r\n.\r\n", r);
	assert_int_equal(r->n, 1);
	assert_true(r->ops[0].response_seen);
	assert_int_equal(r->st.parse_errors, 0);

	/* Big numbers of any length, doubles, nulls. */
	ONE("*1\r\n$1\r\nX\r\n",
	    "*5\r\n(-12345678901234567890123456789\r\n,-inf\r\n_\r\n$-1\r\n*-1\r\n", r);
	assert_int_equal(r->n, 1);
	assert_true(r->ops[0].response_seen);
	assert_int_equal(r->st.parse_errors, 0);

	/* Garbage: counted, resync at the next request. */
	ONE("*1\r\n$4\r\nPING\r\n", "?what\r\n", r);
	assert_int_equal(r->st.parse_errors, 1);
	assert_int_equal(r->n, 1);
	assert_false(r->ops[0].response_seen);
	ONE("*1\r\nPING\r\n", "+PONG\r\n", r);
	assert_int_equal(r->st.parse_errors, 1);
	assert_int_equal(r->n, 0);
	assert_int_equal(r->st.unmatched_responses, 1);
	ONE("*1\r\n$4\r\nPING\r\n", ":12a\r\n", r);
	assert_int_equal(r->st.parse_errors, 1);
	ONE("*1\r\n$4\r\nPING\r\n", "#x\r\n", r);
	assert_int_equal(r->st.parse_errors, 1);
	ONE("*1\r\n$4\r\nPING\r\n", "$3\r\nabcX\n", r);
	assert_int_equal(r->st.parse_errors, 1);
}

static void test_bounds(void **unused)
{
	(void)unused;
	struct rec *r = &g_whole;
	char buf[512];
	size_t n = 0;

	/* Nesting deeper than 16: a parse error, never a stack overflow. */
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "*1\r\n");
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, ":1\r\n");
	one("*1\r\n$1\r\nX\r\n", 11, buf, n, r);
	assert_int_equal(r->st.parse_errors, 1);
	assert_int_equal(r->n, 1);
	assert_false(r->ops[0].response_seen);

	/* Exactly 16 levels is fine. */
	n = 0;
	for (int i = 0; i < 16; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "*1\r\n");
	n += (size_t)snprintf(buf + n, sizeof(buf) - n, ":1\r\n");
	one("*1\r\n$1\r\nX\r\n", 11, buf, n, r);
	assert_int_equal(r->st.parse_errors, 0);
	assert_true(r->ops[0].response_seen);

	/* A 2^31-element array costs nothing until its elements come. */
	ONE("*1\r\n$1\r\nX\r\n", "*2147483648\r\n:1\r\n:2\r\n", r);
	assert_int_equal(r->n, 1);
	assert_false(r->ops[0].response_seen);
	assert_int_equal(r->st.parse_errors, 0);
	ONE("*1\r\n$1\r\nX\r\n", "%4611686018427387904\r\n", r);
	assert_int_equal(r->st.parse_errors, 1);
	ONE("*1\r\n$1\r\nX\r\n", "$99999999999999999999\r\n", r);
	assert_int_equal(r->st.parse_errors, 1);

	/* A request array above INT32_MAX elements is not Redis. */
	ONE("*2147483648\r\n$1\r\nX\r\n", "+OK\r\n", r);
	assert_int_equal(r->st.parse_errors, 1);
	assert_int_equal(r->n, 0);

	/* "*0" and "*-1" run nothing and get no reply. */
	ONE("*0\r\n*-1\r\n*1\r\n$4\r\nPING\r\n", "+PONG\r\n", r);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->ops[0].request_bytes, 14);
	assert_int_equal(r->ops[0].request_seq, SEQ_REQ + 9);

	/* An over-long command name is cut and counted. */
	ONE("*1\r\n$40\r\nabcdefghijklmnopqrstuvwxyzabcdefghijklmn\r\n", "-ERR unknown\r\n", r);
	assert_string_equal(r->ops[0].operation, "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDE");
	assert_int_equal(r->st.truncated_fields, 1);

	/* Subcommands only from the allow-list, never a key. */
	ONE("*3\r\n$6\r\nconfig\r\n$3\r\nset\r\n$1\r\nx\r\n", "+OK\r\n", r);
	assert_string_equal(r->ops[0].operation, "CONFIG SET");
	ONE("*2\r\n$6\r\nOBJECT\r\n$9\r\nsecretkey\r\n", "-ERR x\r\n", r);
	assert_string_equal(r->ops[0].operation, "OBJECT");
	ONE("*3\r\n$3\r\nGET\r\n$4\r\nINFO\r\n$1\r\nx\r\n", "$-1\r\n", r);
	assert_string_equal(r->ops[0].operation, "GET");
	ONE("*2\r\n$7\r\nCLUSTER\r\n$23\r\nCOUNT-FAILURE-REPORTSXX\r\n", "-ERR x\r\n", r);
	assert_string_equal(r->ops[0].operation, "CLUSTER");
	ONE("*3\r\n$7\r\nCLUSTER\r\n$21\r\ncount-failure-reports\r\n$1\r\nx\r\n", ":0\r\n", r);
	assert_string_equal(r->ops[0].operation, "CLUSTER COUNT-FAILURE-REPORTS");
	ONE("*1\r\n$7\r\nCOMMAND\r\n", "*0\r\n", r);
	assert_string_equal(r->ops[0].operation, "COMMAND");

	/* A command name outside the captured bytes: never named, but its reply
	 * is consumed in order. */
	static const struct chunk hidden[] = {
	    CH(ENAV_L7_REQUEST, 22, "*2\r\n$3\r\nGE"),
	    C(ENAV_L7_REQUEST, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1\r\nv\r\n"),
	    C(ENAV_L7_RESPONSE, "$1\r\nv\r\n+OK\r\n"),
	};
	run(hidden, N(hidden), &WHOLE, r);
	assert_int_equal(r->n, 1);
	assert_string_equal(r->ops[0].operation, "SET");
	assert_int_equal(r->ops[0].response_bytes, 5);
	assert_int_equal(r->st.unmatched_responses, 0);
	assert_int_equal(r->st.truncated_fields, 1);

	/* A big value whose body is mostly uncaptured is skipped by length. */
	static const struct chunk bigreq[] = {
	    CH(ENAV_L7_REQUEST, 100031, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100000\r\nvv"),
	    C(ENAV_L7_REQUEST, "*1\r\n$4\r\nPING\r\n"),
	    C(ENAV_L7_RESPONSE, "+OK\r\n+PONG\r\n"),
	};
	run(bigreq, N(bigreq), &WHOLE, r);
	assert_int_equal(r->n, 2);
	assert_int_equal(r->ops[0].request_bytes, 100031);
	assert_string_equal(r->ops[1].operation, "PING");
	assert_int_equal(r->ops[1].request_seq, SEQ_REQ + 100031);
	assert_int_equal(r->st.resyncs, 0);
}

static void test_subscribe_edges(void **unused)
{
	(void)unused;
	struct rec *r = &g_whole;

	/* Not in subscribe mode: an array whose first element is "message" or
	 * "subscribe" is an ordinary reply. */
	ONE("*4\r\n$6\r\nLRANGE\r\n$1\r\nl\r\n$1\r\n0\r\n$2\r\n-1\r\n",
	    "*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nb\r\n", r);
	assert_int_equal(r->n, 1);
	assert_true(r->ops[0].response_seen);
	ONE("*4\r\n$6\r\nLRANGE\r\n$1\r\nl\r\n$1\r\n0\r\n$2\r\n-1\r\n",
	    "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n", r);
	assert_true(r->ops[0].response_seen);

	/* Pipelined SUBSCRIBEs: each emitted on its own first confirmation. */
	ONE("*3\r\n$9\r\nSUBSCRIBE\r\n$1\r\na\r\n$1\r\nb\r\n*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nc\r\n",
	    "*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n"
	    "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:3\r\n*3\r\n$7\r\nmessage\r\n$1\r\na\r\n$"
	    "1\r\nx\r\n",
	    r);
	assert_int_equal(r->n, 2);
	assert_true(r->ops[0].response_seen && r->ops[1].response_seen);
	assert_int_equal(r->ops[0].response_bytes, 30);
	assert_int_equal(r->ops[1].request_seq, SEQ_REQ + 33);
	assert_int_equal(r->st.unmatched_responses, 0);
}

static void test_hello_switch(void **unused)
{
	(void)unused;
	/* HELLO 3 then HELLO 2: back in RESP2, subscribe-mode deliveries are
	 * arrays again, not replies. */
	static const struct chunk c[] = {
	    C(ENAV_L7_REQUEST, "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n"),
	    C(ENAV_L7_RESPONSE, "%1\r\n+a\r\n:1\r\n"),
	    C(ENAV_L7_REQUEST, "*2\r\n$5\r\nHELLO\r\n$1\r\n2\r\n"),
	    C(ENAV_L7_RESPONSE, "*2\r\n+a\r\n:1\r\n"),
	    C(ENAV_L7_REQUEST, "*2\r\n$9\r\nSUBSCRIBE\r\n$1\r\nc\r\n"),
	    C(ENAV_L7_RESPONSE, "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n"),
	    C(ENAV_L7_RESPONSE, "*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$1\r\nx\r\n"),
	    C(ENAV_L7_REQUEST, "*1\r\n$4\r\nPING\r\n"),
	    C(ENAV_L7_RESPONSE, "*2\r\n$4\r\npong\r\n$0\r\n\r\n"),
	};
	static const struct exp e[] = {
	    {"HELLO", false, "", true, 22, 12, 0, 1, 0},
	    {"HELLO", false, "", true, 22, 12, 2, 3, 0},
	    {"SUBSCRIBE", false, "", true, 26, 30, 4, 5, 0},
	    {"PING", false, "", true, 14, 20, 7, 8, 0},
	};
	run(c, N(c), &WHOLE, &g_whole);
	check(&g_whole, c, e, N(e));
	assert_int_equal(g_whole.st.unmatched_responses, 0);
	check_splits(c, N(c));
}

static void test_replication_link(void **unused)
{
	(void)unused;
	/* A real replica's handshake, then PSYNC: the "\n" keepalives are
	 * skipped, and past +FULLRESYNC the RDB (no trailing CRLF) and the
	 * command stream are not replies, the ACKs not requests. */
	static const struct exp e[] = {
	    {"PING", false, "", true, 14, 7, 0, 1, 0},
	    {"REPLCONF", false, "", true, 50, 5, 2, 3, 0},
	    {"REPLCONF", false, "", true, 59, 5, 4, 5, 0},
	    {"PSYNC", false, "", true, 30, 57, 6, 12, 0},
	};
	run(raw_replica, N(raw_replica), &WHOLE, &g_whole);
	check(&g_whole, raw_replica, e, N(e));
	assert_int_equal(g_whole.st.parse_errors, 0);
	assert_int_equal(g_whole.st.resyncs, 0);
	assert_int_equal(g_whole.st.unmatched_responses, 0);
	check_splits(raw_replica, N(raw_replica));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_detect),
	    cmocka_unit_test(test_cli_resp2),
	    cmocka_unit_test(test_resp3),
	    cmocka_unit_test(test_sub2),
	    cmocka_unit_test(test_inline),
	    cmocka_unit_test(test_benchmark_pipeline),
	    cmocka_unit_test(test_docs_monitor),
	    cmocka_unit_test(test_gaps),
	    cmocka_unit_test(test_errors_and_types),
	    cmocka_unit_test(test_bounds),
	    cmocka_unit_test(test_subscribe_edges),
	    cmocka_unit_test(test_hello_switch),
	    cmocka_unit_test(test_replication_link),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
