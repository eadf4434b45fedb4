/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for the HTTP/1.x parser (with WebSocket after an upgrade).
 *
 * The captures below are real traffic: curl and a Python client against
 * nginx 1.22 (Debian nginx-light, private prefix and port), a Python chunked
 * upstream and a Python stdlib WebSocket server, recorded by a small
 * recording TCP proxy (one fragment per recv(), in arrival order).  Large
 * fragments keep only their first bytes (captured < len), as a capture
 * limit would.  Every capture is fed whole, split at every byte of every
 * fragment, byte by byte, with cut captures, with lost fragments (gaps); every
 * fragment is handed over as an exact-size heap copy so ASan flags any read
 * past it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "features/network/l7/http1_state.h"
#include "features/network/l7/l7.h"

#define REQ  ENAV_L7_REQUEST
#define RESP ENAV_L7_RESPONSE

struct rec {
	uint8_t stream;
	uint32_t captured, len;
	const char *data;
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- captures (generated from the recordings) ----------------------------- */

/* curl, 4 URLs on one keep-alive connection to nginx, traceparent on each (rec_nginx) */
static const struct rec cap_keepalive[] = {
    {REQ, 159, 159,
     "GET /index.html HTTP/1.1\r\n"
     "Host: 127.0.0.1:58081\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r"
     "\n"
     "\r\n"},
    {RESP, 279, 279,
     "HTTP/1.1 200 OK\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:24 GMT\r\n"
     "Content-Type: text/html\r\n"
     "Content-Length: 43\r\n"
     "Last-Modified: Mon, 30 Nov 2026 11:25:10 GMT\r\n"
     "Connection: keep-alive\r\n"
     "ETag: \"6b0d5d16-2b\"\r\n"
     "Accept-Ranges: bytes\r\n"
     "\r\n"
     "<html><body>hello from nginx</body></html>\n"},
    {REQ, 174, 174,
     "GET /api/users/42\?token=secret HTTP/1.1\r\n"
     "Host: 127.0.0.1:58081\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r"
     "\n"
     "\r\n"},
    {RESP, 258, 258,
     "HTTP/1.1 200 OK\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:24 GMT\r\n"
     "Content-Type: text/plain\r\n"
     "Content-Length: 21\r\n"
     "Last-Modified: Mon, 30 Nov 2026 11:25:10 GMT\r\n"
     "Connection: keep-alive\r\n"
     "ETag: \"6b0d5d16-15\"\r\n"
     "Accept-Ranges: bytes\r\n"
     "\r\n"
     "{\"id\":42,\"name\":\"x\"}\n"},
    {REQ, 157, 157,
     "GET /nope/123 HTTP/1.1\r\n"
     "Host: 127.0.0.1:58081\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r"
     "\n"
     "\r\n"},
    {RESP, 308, 308,
     "HTTP/1.1 404 Not Found\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:24 GMT\r\n"
     "Content-Type: text/html\r\n"
     "Content-Length: 153\r\n"
     "Connection: keep-alive\r\n"
     "\r\n"
     "<html>\r\n"
     "<head><title>404 Not Found</title></head>\r\n"
     "<body>\r\n"
     "<center><h1>404 Not Found</h1></center>\r\n"
     "<hr><center>nginx/1.22.1</center>\r\n"
     "</body>\r\n"
     "</html>\r\n"},
    {REQ, 153, 153,
     "GET /boom HTTP/1.1\r\n"
     "Host: 127.0.0.1:58081\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r"
     "\n"
     "\r\n"},
    {RESP, 181, 181,
     "HTTP/1.1 503 Service Temporarily Unavailable\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:24 GMT\r\n"
     "Content-Type: text/plain\r\n"
     "Content-Length: 5\r\n"
     "Connection: keep-alive\r\n"
     "\r\n"
     "down\n"},
};

/* curl --compressed: nginx gzip, chunked response (rec_nginx) */
static const struct rec cap_gzip[] = {
    {REQ, 131, 131,
     "GET /gz/big.txt HTTP/1.1\r\n"
     "Host: 127.0.0.1:58081\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "Accept-Encoding: deflate, gzip, br, zstd\r\n"
     "\r\n"},
    {RESP, 1894, 1894,
     "HTTP/1.1 200 OK\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:25 GMT\r\n"
     "Content-Type: text/plain\r\n"
     "Last-Modified: Mon, 30 Nov 2026 11:25:10 GMT\r\n"
     "Transfer-Encoding: chunked\r\n"
     "Connection: keep-alive\r\n"
     "ETag: W/\"6b0d5d16-34c88\"\r\n"
     "Content-Encoding: gzip\r\n"
     "\r\n"
     "65e\r\n"
     "\037\213\010\000\000\000\000\000\004\003\355\334=N\\A\024\204\321\234U"
     "\274\255Y2\001\022\243\261\370\331\277\311I\352\005\357\323\010N\210\034"
     "\\\351\0025u\272\033\277\336\337\236o\307\313\277\367\317\333\361\367\376"
     "z\177;\336_>\216\?\267\347\217\343\353\013\377d\033~6\374:|\017\207'\351"
     " +}<\370x8\373\361 8\224,\275R\313>m\016\301!8\004\207\340\020\034\016"
     "h\034W9\241\273\376\274R\343\32084\016\215C\343\32084\016\215C\343p+\354"
     "\216\334\305\337\003^\374\241\n"
     "\252\240\n"
     "\252\240\n"
     "\252\240\n"
     "\252\240\n"
     "\252\240\n"
     "\252\240\212V\254\025\237n\305\202Cp\010\016\301!8~\302\337\2029\034u8"
     "*\315\245\371\3514\027\034\202Cp\010\016\301\341V\305\255\212[\025\267"
     "*nU\334\2528\034u8\252\025k\305\247[\261\340\020\034\202Cp\010\016\267"
     "*8\215\323\327sZ\343\32084\016\215C\343\32084\016\215C\343\370\225\377"
     "\255\267w\034\336q\250\201j\340\351\032(8\004\207\340\020\034\202\303\003"
     "0~\344\307\353\375\250qh\034\032\207\306\241qh\034\032\207\306\241qxr\356"
     "\311\271w\034\336qh\305Z\361\351V,8\004\207\340\020\034\202\303\0030\234"
     "\306\351\3539\255qh\034\032\207\306\241qh\034\032\207\306\241qxr\356\000"
     "_+~\300V\354\233\362\200\337\024\017\300\276~,\361\001\037~\002\037\312"
     "\204\025\034\202\303\301\223O\216\323\237\034\202Cp\010\016\301!8<9wb\355"
     "\304\372\372\023k\215C\343\32084\016\215C\343\32084\016\215\303\037\271"
     "\271#//\013\314\032/\031Q\005UP\005UP\005UP\005UP\005UP\005\037F>\224\213"
     "B\025TA\025TA\025TA\025TA\025TA\225\262\201\2335\262\010UP\005UP\005UP"
     "\005UP\005UP\005U\360a\344C\271(TA\025TA\025TA\025TA\025TA\025T)\033\270"
     "Y#\213P\005UP\005UP\005UP\005UP\005UP\005\037F>\224\213B\025TA\025TA\025"
     "TA\025TA\025TA\225\262\201\2335\262\010UP\005UP\005UP\005UP\005UP\005U"
     "\360a\344C\271(TA\025TA\025TA\025TA\025TA\025T)\033\270Y#\213P\005UP\005"
     "UP\005UP\005UP\005UP\005\037F>\224\213B\025TA\025TA\025TA\025TA\025TA\225"
     "\262\201\2335\262\010UP\005UP\005UP\005UP\005UP\005U\360a\344C\271(TA\025"
     "TA\025TA\025TA\025TA\025T)\033\270Y#\213P\005UP\005UP\005UP\005UP\005U"
     "P\005\037F>\224\213B\025TA\025TA\025TA\025TA\025TA\225\262\201\2335\262"
     "\010UP\005UP\005UP\005UP\005UP\005U\360a\344C\271(TA\025TA\025TA\025TA"
     "\025TA\025T)\033\270Y#\213P\005UP\005UP\005UP\005UP\005UP\005\037F>\224"
     "\213B\025TA\025TA\025TA\025TA\025TA\225\262\201\2335\262\010UP\005UP\005"
     "UP\005UP\005UP\005U\360a\344C\271(TA\025TA\025TA\025TA\025TA\025T)\033"
     "\270Y#\213P\005UP\005UP\005UP\005UP\005UP\005\037F>\224\213B\025TA\025"
     "TA\025TA\025TA\025TA\225\262\201\2335\262\010UP\005UP\005UP\005UP\005U"
     "P\005U\360a\344C\271(TA\025TA\025TA\025TA\025TA\025T)\033\270Y#\213P\005"
     "UP\005UP\005UP\005UP\005UP\005\037F>\224\213B\025TA\025TA\025TA\025TA\025"
     "TA\225\262\201\2335\262\010UP\005UP\005UP\005UP\005UP\005U\360a\344C\271"
     "(TA\025TA\025TA\025TA\025TA\025T)\033\270Y#\213P\005UP\005UP\005UP\005"
     "UP\005UP\005\037F>\224\213B\025TA\025TA\025TA\025TA\025TA\225\262\201\233"
     "5\262\010UP\005UP\005UP\005UP\005UP\005U\360a\344C\271(TA\025TA\025TA\025"
     "TA\025TA\025T)\033\270Y#\213P\005UP\005UP\005UP\005UP\005UP\005\037F>\224"
     "\213B\025TA\025TA\025TA\025TA\025TA\225\262\201\2335\262\010UP\005UP\005"
     "UP\005UP\005UP\005U\360a\344C\271(TA\025TA\025TA\025TA\025TA\025T)\033"
     "\270Y#\213P\005UP\005UP\005UP\005UP\005UP\005\037F>\224\213B\025TA\025"
     "TA\025TA\025TA\025TA\225\262\201\2335\262\010UP\005UP\005UP\005UP\005U"
     "P\005U\360a\344C\271(TA\025TA\025TA\025TA\025TA\025T)\033\270Y#\213P\005"
     "UP\005UP\005UP\005UP\005UP\005\037F>\224\213B\025TA\025TA\025TA\025TA\025"
     "TA\225\262\201\2335\262\010UP\005UP\005UP\005UP\005UP\005U\360a\344C\271"
     "(TA\025TA\025TA\025TA\025TA\025T)\033\270Y#\213P\005UP\005UP\005UP\005"
     "UP\005UP\005\037F>\224\213B\025TA\025TA\025TA\025TA\025TA\225\262\201\233"
     "5\262\010UP\005UP\005UP\005UP\005UP\005U\360a\344C\271(TA\025TA\025TA\025"
     "TA\025TA\025T)\033\270Y#\213P\005UP\005UP\005UP\005UP\005UP\005\037F>\224"
     "\213B\025TA\025TA\025TA\025TA\025TA\225\262\201\2335\262\010UP\005UP\005"
     "UP\005UP\005UP\005U\360a\344C\271(TA\025TA\025TA\025TA\025TA\025T)\033"
     "\270Y#\213P\005UP\005UP\005UP\005UP\005UP\005\037F>\224\213z\372\017\276"
     "\240\332\243\210L\003\000\r\n"
     "0\r\n"
     "\r\n"},
};

/* nginx proxying a chunked upstream (re-chunked) (rec_nginx) */
static const struct rec cap_proxy_chunked[] = {
    {REQ, 94, 94,
     "GET /chunked/trailer HTTP/1.1\r\n"
     "Host: 127.0.0.1:58081\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "\r\n"},
    {RESP, 588, 588,
     "HTTP/1.1 200 OK\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:25 GMT\r\n"
     "Content-Type: text/plain\r\n"
     "Transfer-Encoding: chunked\r\n"
     "Connection: keep-alive\r\n"
     "Trailer: X-Checksum\r\n"
     "\r\n"
     "18f\r\n"
     "first chunk\n"
     "second, longer chunk of data\n"
     "second, longer chunk of data\n"
     "second, longer chunk of data\n"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxx\r\n"
     "0\r\n"
     "\r\n"},
};

/* POST with Expect: 100-continue; nginx answers 100 + 201 before the body (rec_nginx) */
static const struct rec cap_expect[] = {
    {REQ, 178, 178,
     "POST /upload HTTP/1.1\r\n"
     "Host: 127.0.0.1:58081\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "Expect: 100-continue\r\n"
     "Content-Length: 487\r\n"
     "Content-Type: application/x-www-form-urlencoded\r\n"
     "\r\n"},
    {RESP, 180, 180,
     "HTTP/1.1 100 Continue\r\n"
     "\r\n"
     "HTTP/1.1 201 Created\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:50 GMT\r\n"
     "Content-Type: text/plain\r\n"
     "Content-Length: 3\r\n"
     "Connection: keep-alive\r\n"
     "\r\n"
     "ok\n"},
    {REQ, 487, 487,
     "hWWHBbp0cEDZrJQmeMOdTRGGoEems9Qw4ksjPzvlTP+ijjaUb6sxSX+FHP7tk/JFKi3Xyu"
     "GqYKC2\n"
     "0S9TgryN2NnTmxatzfZfNWrRrVPjOVX8bpGTbypLq38G7sVhVSEqk5sDfsqZsAG5JzXSyP"
     "r4ck2k\n"
     "IcKxh1VVsKbCsAVO13ij/uryRFaUMNG24/iugHDDFn6t1FQphFhMUiJKP7etKyoJIkOyMw"
     "fV04cx\n"
     "Sa098I5xw4ZpG6KpUalP6+x3ZJ6FxL7f5oftuGNtzFurLKFjM5Y1ac0++Qu9dmX1rOVE1p"
     "vTO/gt\n"
     "WocqebN8APzrG167aR9SMbMWf/+Ni+4osq9MA0zFEeLawtLiCIC+FtSnOeakk5pxgvRWo6"
     "Y7AnBB\n"
     "gLE4riqXELnY/vd5FYtnVy3uzecorQ9LMDZFvUR0qSEElJ5i3rvvTu8B4+V5Jv0lLoX6hk"
     "n0lDxs\n"
     "uGF6d1F5dn4yMkrwlhLwxqBK\n"},
};

/* HEAD: Content-Length but no body (rec_nginx) */
static const struct rec cap_head[] = {
    {REQ, 90, 90,
     "HEAD /index.html HTTP/1.1\r\n"
     "Host: 127.0.0.1:58081\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "\r\n"},
    {RESP, 236, 236,
     "HTTP/1.1 200 OK\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:26 GMT\r\n"
     "Content-Type: text/html\r\n"
     "Content-Length: 43\r\n"
     "Last-Modified: Mon, 30 Nov 2026 11:25:10 GMT\r\n"
     "Connection: keep-alive\r\n"
     "ETag: \"6b0d5d16-2b\"\r\n"
     "Accept-Ranges: bytes\r\n"
     "\r\n"},
};

/* chunked request body (rec_nginx) */
static const struct rec cap_chunked_upload[] = {
    {REQ, 662, 662,
     "POST /upload HTTP/1.1\r\n"
     "Host: 127.0.0.1:58081\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "Transfer-Encoding: chunked\r\n"
     "Content-Type: application/x-www-form-urlencoded\r\n"
     "\r\n"
     "1e7\r\n"
     "hWWHBbp0cEDZrJQmeMOdTRGGoEems9Qw4ksjPzvlTP+ijjaUb6sxSX+FHP7tk/JFKi3Xyu"
     "GqYKC2\n"
     "0S9TgryN2NnTmxatzfZfNWrRrVPjOVX8bpGTbypLq38G7sVhVSEqk5sDfsqZsAG5JzXSyP"
     "r4ck2k\n"
     "IcKxh1VVsKbCsAVO13ij/uryRFaUMNG24/iugHDDFn6t1FQphFhMUiJKP7etKyoJIkOyMw"
     "fV04cx\n"
     "Sa098I5xw4ZpG6KpUalP6+x3ZJ6FxL7f5oftuGNtzFurLKFjM5Y1ac0++Qu9dmX1rOVE1p"
     "vTO/gt\n"
     "WocqebN8APzrG167aR9SMbMWf/+Ni+4osq9MA0zFEeLawtLiCIC+FtSnOeakk5pxgvRWo6"
     "Y7AnBB\n"
     "gLE4riqXELnY/vd5FYtnVy3uzecorQ9LMDZFvUR0qSEElJ5i3rvvTu8B4+V5Jv0lLoX6hk"
     "n0lDxs\n"
     "uGF6d1F5dn4yMkrwlhLwxqBK\n"
     "\r\n"
     "0\r\n"
     "\r\n"},
    {RESP, 155, 155,
     "HTTP/1.1 201 Created\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:50 GMT\r\n"
     "Content-Type: text/plain\r\n"
     "Content-Length: 3\r\n"
     "Connection: keep-alive\r\n"
     "\r\n"
     "ok\n"},
};

/* 4 pipelined requests (last HEAD, Connection: close) in one write (rec_nginx) */
static const struct rec cap_pipeline[] = {
    {REQ, 167, 167,
     "GET /index.html HTTP/1.1\r\n"
     "Host: x\r\n"
     "\r\n"
     "GET /api/users/42 HTTP/1.1\r\n"
     "Host: x\r\n"
     "\r\n"
     "GET /missing HTTP/1.1\r\n"
     "Host: x\r\n"
     "\r\n"
     "HEAD /index.html HTTP/1.1\r\n"
     "Host: x\r\n"
     "Connection: close\r\n"
     "\r\n"},
    {RESP, 1076, 1076,
     "HTTP/1.1 200 OK\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:31 GMT\r\n"
     "Content-Type: text/html\r\n"
     "Content-Length: 43\r\n"
     "Last-Modified: Mon, 30 Nov 2026 11:25:10 GMT\r\n"
     "Connection: keep-alive\r\n"
     "ETag: \"6b0d5d16-2b\"\r\n"
     "Accept-Ranges: bytes\r\n"
     "\r\n"
     "<html><body>hello from nginx</body></html>\n"
     "HTTP/1.1 200 OK\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:31 GMT\r\n"
     "Content-Type: text/plain\r\n"
     "Content-Length: 21\r\n"
     "Last-Modified: Mon, 30 Nov 2026 11:25:10 GMT\r\n"
     "Connection: keep-alive\r\n"
     "ETag: \"6b0d5d16-15\"\r\n"
     "Accept-Ranges: bytes\r\n"
     "\r\n"
     "{\"id\":42,\"name\":\"x\"}\n"
     "HTTP/1.1 404 Not Found\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:31 GMT\r\n"
     "Content-Type: text/html\r\n"
     "Content-Length: 153\r\n"
     "Connection: keep-alive\r\n"
     "\r\n"
     "<html>\r\n"
     "<head><title>404 Not Found</title></head>\r\n"
     "<body>\r\n"
     "<center><h1>404 Not Found</h1></center>\r\n"
     "<hr><center>nginx/1.22.1</center>\r\n"
     "</body>\r\n"
     "</html>\r\n"
     "HTTP/1.1 200 OK\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:31 GMT\r\n"
     "Content-Type: text/html\r\n"
     "Content-Length: 43\r\n"
     "Last-Modified: Mon, 30 Nov 2026 11:25:10 GMT\r\n"
     "Connection: close\r\n"
     "ETag: \"6b0d5d16-2b\"\r\n"
     "Accept-Ranges: bytes\r\n"
     "\r\n"},
};

/* a 216200-byte body over 4 reads (captured 400), then a second request (rec_nginx) */
static const struct rec cap_big[] = {
    {REQ, 86, 86,
     "GET /big.txt HTTP/1.1\r\n"
     "Host: 127.0.0.1:58081\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "\r\n"},
    {RESP, 400, 65536,
     "HTTP/1.1 200 OK\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:32 GMT\r\n"
     "Content-Type: text/plain\r\n"
     "Content-Length: 216200\r\n"
     "Last-Modified: Mon, 30 Nov 2026 11:25:10 GMT\r\n"
     "Connection: keep-alive\r\n"
     "ETag: \"6b0d5d16-34c88\"\r\n"
     "Accept-Ranges: bytes\r\n"
     "\r\n"
     "lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem ipsum dolo"
     "r sit amet lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem"
     " ipsum dolor sit"},
    {RESP, 400, 65536,
     "lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem ipsum dolo"
     "r sit amet lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem"
     " ipsum dolor sit amet lorem ipsum dolor sit amet lorem ipsum dolor sit"
     " amet lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem ipsu"
     "m dolor sit amet lorem ipsum dolor sit amet lorem ipsum dolor sit amet"
     " lorem ipsum dolor sit amet lorem ipsum dolor sit "},
    {RESP, 400, 65536,
     "lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem ipsum dolo"
     "r sit amet lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem"
     " ipsum dolor sit amet lorem ipsum dolor sit amet lorem ipsum dolor sit"
     " amet lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem ipsu"
     "m dolor sit amet lorem ipsum dolor sit amet lorem ipsum dolor sit amet"
     " lorem ipsum dolor sit amet lorem ipsum dolor sit "},
    {RESP, 400, 19836,
     "orem ipsum dolor sit amet lorem ipsum dolor sit amet lorem ipsum dolor"
     " sit amet lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem "
     "ipsum dolor sit amet lorem ipsum dolor sit amet lorem ipsum dolor sit "
     "amet lorem ipsum dolor sit amet lorem ipsum dolor sit amet lorem ipsum"
     " dolor sit amet lorem ipsum dolor sit amet lorem ipsum dolor sit amet "
     "lorem ipsum dolor sit amet \n"
     "lorem ipsum dolor sit "},
    {REQ, 89, 89,
     "GET /index.html HTTP/1.1\r\n"
     "Host: 127.0.0.1:58081\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "\r\n"},
    {RESP, 279, 279,
     "HTTP/1.1 200 OK\r\n"
     "Server: nginx/1.22.1\r\n"
     "Date: Mon, 30 Nov 2026 11:25:32 GMT\r\n"
     "Content-Type: text/html\r\n"
     "Content-Length: 43\r\n"
     "Last-Modified: Mon, 30 Nov 2026 11:25:10 GMT\r\n"
     "Connection: keep-alive\r\n"
     "ETag: \"6b0d5d16-2b\"\r\n"
     "Accept-Ranges: bytes\r\n"
     "\r\n"
     "<html><body>hello from nginx</body></html>\n"},
};

/* Python upstream: chunk extensions and a trailer (rec_chunk) */
static const struct rec cap_chunk_ext[] = {
    {REQ, 88, 88,
     "GET /trailer/x HTTP/1.1\r\n"
     "Host: 127.0.0.1:58091\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "\r\n"},
    {RESP, 94, 94,
     "HTTP/1.1 200 OK\r\n"
     "Content-Type: text/plain\r\n"
     "Transfer-Encoding: chunked\r\n"
     "Trailer: X-Checksum\r\n"
     "\r\n"},
    {RESP, 435, 435,
     "c;ext=1\r\n"
     "first chunk\n"
     "\r\n"
     "57;ext=1\r\n"
     "second, longer chunk of data\n"
     "second, longer chunk of data\n"
     "second, longer chunk of data\n"
     "\r\n"
     "12c;ext=1\r\n"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
     "xxxxxxxxxxxxxxxxxxxx\r\n"},
    {RESP, 22, 22,
     "0\r\n"
     "X-Checksum: abc\r\n"
     "\r\n"},
};

/* HTTP/1.0 response delimited by close (rec_chunk) */
static const struct rec cap_close[] = {
    {REQ, 86, 86,
     "GET /close/x HTTP/1.1\r\n"
     "Host: 127.0.0.1:58091\r\n"
     "User-Agent: curl/7.88.1\r\n"
     "Accept: */*\r\n"
     "\r\n"},
    {RESP, 45, 45,
     "HTTP/1.0 200 OK\r\n"
     "Content-Type: text/plain\r\n"
     "\r\n"},
    {RESP, 170, 170,
     "body until close\n"
     "body until close\n"
     "body until close\n"
     "body until close\n"
     "body until close\n"
     "body until close\n"
     "body until close\n"
     "body until close\n"
     "body until close\n"
     "body until close\n"},
};

/* WebSocket upgrade and frames (Python client/server) (rec_ws) */
static const struct rec cap_ws[] = {
    {REQ, 244, 244,
     "GET /chat/room/12345\?user=alice HTTP/1.1\r\n"
     "Host: 127.0.0.1\r\n"
     "Upgrade: websocket\r\n"
     "Connection: Upgrade\r\n"
     "Sec-WebSocket-Key: RizvLjeNHotbXC1mSf2KTA==\r\n"
     "Sec-WebSocket-Version: 13\r\n"
     "traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\r"
     "\n"
     "\r\n"},
    {RESP, 129, 129,
     "HTTP/1.1 101 Switching Protocols\r\n"
     "Upgrade: websocket\r\n"
     "Connection: Upgrade\r\n"
     "Sec-WebSocket-Accept: NuDRwXwDthRSYQog4NlWHNhZRkM=\r\n"
     "\r\n"},
    {REQ, 23, 23,
     "\201\221J`\266\n"
     "\"\005\332f%@\305o)\022\323~j\024\323r>"},
    {RESP, 19, 19, "\201\021hello secret text"},
    {REQ, 208, 208,
     "\202\376\000\310\304\310\337\?\304\311\335<\300\315\3318\314\301\3254\310"
     "\305\3210\324\331\315,\320\335\311(\334\321\305$\330\325\301 \344\351\375"
     "\034\340\355\371\030\354\341\365\024\350\345\361\020\364\371\355\014\360"
     "\375\351\010\374\361\345\004\370\365\341\000\204\211\235|\200\215\231x"
     "\214\201\225t\210\205\221p\224\231\215l\220\235\211h\234\221\205d\230\225"
     "\201`\244\251\275\\\240\255\271X\254\241\265T\250\245\261P\264\271\255"
     "L\260\275\251H\274\261\245D\270\265\241@DI]\274@MY\270LAU\264HEQ\260TY"
     "M\254P]I\250\\QE\244XUA\240di}\234`my\230lau\224heq\220tym\214p}i\210|"
     "qe\204xua\200\004\011\035\374\000\r\031\370"},
    {RESP, 204, 204,
     "\202~\000\310\000\001\002\003\004\005\006\007\010\011\n"
     "\013\014\r\016\017\020\021\022\023\024\025\026\027\030\031\032\033\034"
     "\035\036\037 !\"#$%&'()*+,-./0123456789:;<=>\?@ABCDEFGHIJKLMNOPQRSTUVW"
     "XYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~\177\200\201\202\203\204\205\206"
     "\207\210\211\212\213\214\215\216\217\220\221\222\223\224\225\226\227\230"
     "\231\232\233\234\235\236\237\240\241\242\243\244\245\246\247\250\251\252"
     "\253\254\255\256\257\260\261\262\263\264\265\266\267\270\271\272\273\274"
     "\275\276\277\300\301\302\303\304\305\306\307"},
    {REQ, 15, 15, "\001\211>~\360$X\014\221C\023\021\236A\036"},
    {RESP, 11, 11, "\001\011frag-one "},
    {REQ, 15, 15,
     "\000\211\357\n"
     "9p\211xX\027\302~N\037\317"},
    {RESP, 11, 11, "\000\011frag-two "},
    {REQ, 14, 14, "\200\210W\375\361\3061\217\220\241z\230\237\242"},
    {RESP, 10, 10, "\200\010frag-end"},
    {REQ, 11, 11, "\211\205\025\251\210\362e\300\346\2254"},
    {RESP, 7, 7, "\212\005ping!"},
    {REQ, 64, 65536,
     "\202\377\000\000\000\000\000\001\021p\360\r\034\350\262O^\252\262O^\252"
     "\262O^\252\262O^\252\262O^\252\262O^\252\262O^\252\262O^\252\262O^\252"
     "\262O^\252\262O^\252\262O^\252\262O"},
    {REQ, 64, 4478,
     "^\252\262O^\252\262O^\252\262O^\252\262O^\252\262O^\252\262O^\252\262O"
     "^\252\262O^\252\262O^\252\262O^\252\262O^\252\262O^\252\262O^\252\262O"
     "^\252\262O^\252\262O"},
    {RESP, 64, 65536,
     "\202\177\000\000\000\000\000\001\021pBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"
     "BBBBBBBBBBBBBBBBBBBBB"},
    {RESP, 64, 4474, "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB"},
    {REQ, 11, 11, "\210\205\301\027\365b\302\377\227\033\244"},
    {RESP, 7, 7, "\210\005\003\350bye"},
};

/* ---- harness -------------------------------------------------------------- */

#define MAX_OPS	 64
#define SEQ_REQ	 100000u
#define SEQ_RESP 200000u
#define TS_STEP	 1000u

struct run {
	void *state;
	struct enav_l7_parser_stats stats;
	struct enav_l7_sink sink;
	struct enav_l7_op ops[MAX_OPS];
	size_t n;
	uint32_t seq[2];
	bool gap_next[2];
	bool finished;
};

static void check_text_field(const char *s, size_t cap)
{
	const char *nul = memchr(s, '\0', cap);

	assert_non_null(nul);
	for (const char *p = s; p < nul; p++)
		assert_true(*p >= 0x20 && *p < 0x7f);
}

static void on_op(void *ctx, const struct enav_l7_op *op)
{
	struct run *r = ctx;

	check_text_field(op->operation, sizeof(op->operation));
	check_text_field(op->target, sizeof(op->target));
	check_text_field(op->path, sizeof(op->path));
	check_text_field(op->status, sizeof(op->status));
	check_text_field(op->statement, sizeof(op->statement));
	assert_true(op->protocol == ENAV_L7_HTTP1 || op->protocol == ENAV_L7_WEBSOCKET);
	assert_true(op->end_ns >= op->start_ns);
	assert_true(op->operation[0] != '\0');
	assert_true(r->n < MAX_OPS);
	r->ops[r->n++] = *op;
}

static struct run *run_new(const struct enav_l7_options *opt)
{
	struct run *r = calloc(1, sizeof(*r));
	struct enav_l7_options def = {.max_pending = ENAV_L7_MAX_PENDING};

	assert_non_null(r);
	r->state = calloc(1, enav_l7_http1_ops.state_size);
	assert_non_null(r->state);
	r->sink.op = on_op;
	r->sink.ctx = r;
	r->sink.stats = &r->stats;
	r->seq[REQ] = SEQ_REQ;
	r->seq[RESP] = SEQ_RESP;
	assert_int_equal(enav_l7_http1_ops.init(r->state, opt ? opt : &def), 0);
	return r;
}

/* One fragment: data[0..captured) of len bytes moved. */
static void run_feed(struct run *r, int stream, const void *data, uint32_t captured, uint32_t len,
		     uint64_t ts)
{
	uint8_t *copy = malloc(captured ? captured : 1);
	struct enav_l7_fragment f = {
	    .stream = stream,
	    .data = copy,
	    .captured = captured,
	    .len = len,
	    .ts_ns = ts,
	    .gap = r->gap_next[stream],
	    .has_seq = true,
	    .seq = r->seq[stream],
	};

	assert_non_null(copy);
	if (captured)
		memcpy(copy, data, captured);
	r->gap_next[stream] = false;
	r->seq[stream] += len;
	enav_l7_http1_ops.feed(r->state, &f, &r->sink);
	free(copy);
}

static void feed_str(struct run *r, int stream, const char *s, uint64_t ts)
{
	run_feed(r, stream, s, (uint32_t)strlen(s), (uint32_t)strlen(s), ts);
}

static void run_finish(struct run *r)
{
	enav_l7_http1_ops.finish(r->state, &r->sink);
	r->finished = true;
}

static void run_free(struct run *r)
{
	if (!r->finished)
		run_finish(r);
	free(r->state);
	free(r);
}

enum mode {
	M_WHOLE,
	M_SPLIT, /* fragment a split at captured offset b */
	M_BYTES, /* every fragment byte by byte */
	M_CUT,	 /* fragment a captured only b bytes */
	M_DROP,	 /* fragment a lost: the next one of its direction has gap set */
};

/* Feed a capture; fragment i has ts (i + 1) * TS_STEP whatever the mode. */
static struct run *play(const struct rec *c, size_t n, enum mode mode, size_t a, uint32_t b,
			const struct enav_l7_options *opt)
{
	struct run *r = run_new(opt);

	for (size_t i = 0; i < n; i++) {
		const struct rec *f = &c[i];
		uint64_t ts = (i + 1) * TS_STEP;

		if (mode == M_DROP && i == a) {
			r->seq[f->stream] += f->len;
			r->gap_next[f->stream] = true;
			continue;
		}
		if (mode == M_SPLIT && i == a && b > 0 && b < f->captured) {
			run_feed(r, f->stream, f->data, b, b, ts);
			run_feed(r, f->stream, f->data + b, f->captured - b, f->len - b, ts);
		} else if (mode == M_BYTES) {
			for (uint32_t k = 0; k < f->captured; k++)
				run_feed(r, f->stream, f->data + k, 1,
					 k + 1 == f->captured ? f->len - k : 1, ts);
			if (f->captured == 0)
				run_feed(r, f->stream, f->data, 0, f->len, ts);
		} else if (mode == M_CUT && i == a) {
			run_feed(r, f->stream, f->data, b < f->captured ? b : f->captured, f->len,
				 ts);
		} else {
			run_feed(r, f->stream, f->data, f->captured, f->len, ts);
		}
	}
	run_finish(r);
	return r;
}

static bool same_op(const struct enav_l7_op *x, const struct enav_l7_op *y)
{
	return memcmp(x, y, sizeof(*x)) == 0;
}

static void assert_same_ops(const struct run *x, const struct run *y, const char *what, size_t a,
			    uint32_t b)
{
	if (x->n != y->n)
		fail_msg("%s (%zu, %u): %zu ops, want %zu", what, a, b, y->n, x->n);
	for (size_t i = 0; i < x->n; i++)
		if (!same_op(&x->ops[i], &y->ops[i]))
			fail_msg("%s (%zu, %u): op %zu differs (%s %s %d / %s %s %d)", what, a, b,
				 i, x->ops[i].operation, x->ops[i].target, x->ops[i].status_code,
				 y->ops[i].operation, y->ops[i].target, y->ops[i].status_code);
}

struct want {
	uint8_t protocol;
	const char *operation, *target, *path;
	int status; /* -1: no response */
	bool error;
	uint64_t req_bytes, resp_bytes;
	uint64_t start, end; /* fragment numbers (1-based ts / TS_STEP) */
	int64_t seq;	     /* request seq offset from SEQ_REQ; -1: none */
};

static void check_op(const struct enav_l7_op *op, const struct want *w, size_t i)
{
	char st[24] = "";

	if (w->status >= 0 && !(w->protocol == ENAV_L7_WEBSOCKET && w->status == 0))
		snprintf(st, sizeof(st), "%d", w->status);
	if (op->protocol != w->protocol || strcmp(op->operation, w->operation) != 0 ||
	    strcmp(op->target, w->target) != 0 || strcmp(op->path, w->path) != 0 ||
	    op->error != w->error || op->request_bytes != w->req_bytes ||
	    op->response_bytes != w->resp_bytes || op->start_ns != w->start * TS_STEP ||
	    op->end_ns != w->end * TS_STEP || strcmp(op->status, st) != 0)
		fail_msg("op %zu: got %u %s %s %s status=%d/%s err=%d bytes=%llu/%llu t=%llu..%llu",
			 i, op->protocol, op->operation, op->target, op->path, op->status_code,
			 op->status, op->error, (unsigned long long)op->request_bytes,
			 (unsigned long long)op->response_bytes, (unsigned long long)op->start_ns,
			 (unsigned long long)op->end_ns);
	if (w->protocol == ENAV_L7_HTTP1) {
		assert_int_equal(op->kind, ENAV_L7_OP_REQUEST);
		assert_int_equal(op->status_code, w->status);
		assert_int_equal(op->response_seen, w->status >= 0);
	} else {
		assert_int_equal(op->kind, ENAV_L7_OP_MESSAGE);
		assert_false(op->response_seen);
		assert_int_equal(op->status_code, w->status == 0 ? -1 : w->status);
		assert_int_equal(op->messaging_receive, w->resp_bytes > 0 || w->req_bytes == 0);
	}
	if (w->seq >= 0) {
		assert_true(op->has_request_seq);
		assert_int_equal(op->request_seq, SEQ_REQ + (uint32_t)w->seq);
	} else {
		assert_false(op->has_request_seq);
	}
}

static void check_ops(const struct run *r, const struct want *w, size_t n)
{
	if (r->n != n)
		fail_msg("%zu ops, want %zu", r->n, n);
	for (size_t i = 0; i < n; i++)
		check_op(&r->ops[i], &w[i], i);
}

#define H ENAV_L7_HTTP1
#define W ENAV_L7_WEBSOCKET

static void no_trouble(const struct run *r)
{
	assert_int_equal(r->stats.parse_errors, 0);
	assert_int_equal(r->stats.resyncs, 0);
	assert_int_equal(r->stats.unmatched_responses, 0);
	assert_int_equal(r->stats.pending_overflow, 0);
	assert_int_equal(r->stats.truncated_fields, 0);
	assert_int_equal(r->stats.ops, r->n);
}

/* Whole, split at every captured byte of every fragment, byte by byte: the
 * same ops each time. */
static void check_capture(const struct rec *c, size_t n, const struct want *w, size_t nw)
{
	struct run *whole = play(c, n, M_WHOLE, 0, 0, NULL);

	check_ops(whole, w, nw);
	no_trouble(whole);
	for (size_t i = 0; i < n; i++) {
		for (uint32_t k = 1; k < c[i].captured; k++) {
			struct run *r = play(c, n, M_SPLIT, i, k, NULL);

			assert_same_ops(whole, r, "split", i, k);
			no_trouble(r);
			run_free(r);
		}
	}
	struct run *bytes = play(c, n, M_BYTES, 0, 0, NULL);

	assert_same_ops(whole, bytes, "bytes", 0, 0);
	no_trouble(bytes);
	run_free(bytes);
	run_free(whole);
}

/* ---- the captures, whole and split ---------------------------------------- */

static const uint8_t TP_TRACE[16] = {0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6,
				     0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36};
static const uint8_t TP_PARENT[8] = {0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7};

static const struct want want_keepalive[] = {
    {H, "GET", "/index.html", "/index.html", 200, false, 159, 279, 1, 2, 0},
    {H, "GET", "/api/users/{id}", "/api/users/42", 200, false, 174, 258, 3, 4, 159},
    {H, "GET", "/nope/{id}", "/nope/123", 404, false, 157, 308, 5, 6, 333},
    {H, "GET", "/boom", "/boom", 503, true, 153, 181, 7, 8, 490},
};

static void test_keepalive(void **state)
{
	(void)state;
	check_capture(cap_keepalive, N(cap_keepalive), want_keepalive, N(want_keepalive));

	struct run *r = play(cap_keepalive, N(cap_keepalive), M_WHOLE, 0, 0, NULL);

	for (size_t i = 0; i < r->n; i++) {
		assert_true(r->ops[i].has_traceparent);
		assert_memory_equal(r->ops[i].trace_id, TP_TRACE, 16);
		assert_memory_equal(r->ops[i].parent_id, TP_PARENT, 8);
		assert_int_equal(r->ops[i].trace_flags, 1);
		assert_false(r->ops[i].rpc);
		assert_int_equal(r->ops[i].stream_id, 0);
		assert_string_equal(r->ops[i].statement, "");
	}
	run_free(r);
}

static void test_keep_query(void **state)
{
	(void)state;
	struct enav_l7_options opt = {.keep_query = true, .max_pending = 4};
	struct run *r = play(cap_keepalive, N(cap_keepalive), M_WHOLE, 0, 0, &opt);

	assert_int_equal(r->n, 4);
	assert_string_equal(r->ops[1].path, "/api/users/42?token=secret");
	assert_string_equal(r->ops[1].target, "/api/users/{id}");
	run_free(r);
	/* ...and never without the option. */
	r = play(cap_keepalive, N(cap_keepalive), M_WHOLE, 0, 0, NULL);
	for (size_t i = 0; i < r->n; i++) {
		assert_null(strstr(r->ops[i].path, "secret"));
		assert_null(strstr(r->ops[i].target, "secret"));
	}
	run_free(r);
}

static void test_gzip_chunked(void **state)
{
	(void)state;
	static const struct want w[] = {
	    {H, "GET", "/gz/big.txt", "/gz/big.txt", 200, false, 131, 1894, 1, 2, 0},
	};
	check_capture(cap_gzip, N(cap_gzip), w, N(w));
}

static void test_proxy_chunked(void **state)
{
	(void)state;
	static const struct want w[] = {
	    {H, "GET", "/chunked/trailer", "/chunked/trailer", 200, false, 94, 588, 1, 2, 0},
	};
	check_capture(cap_proxy_chunked, N(cap_proxy_chunked), w, N(w));
}

static void test_chunk_extensions_trailer(void **state)
{
	(void)state;
	static const struct want w[] = {
	    {H, "GET", "/trailer/x", "/trailer/x", 200, false, 88, 551, 1, 4, 0},
	};
	check_capture(cap_chunk_ext, N(cap_chunk_ext), w, N(w));
}

static void test_expect_continue(void **state)
{
	(void)state;
	/* nginx answered (100, then 201) before the body came: the op ends
	 * with the response, the body that follows is skipped. */
	static const struct want w[] = {
	    {H, "POST", "/upload", "/upload", 201, false, 178, 180, 1, 2, 0},
	};
	check_capture(cap_expect, N(cap_expect), w, N(w));
}

static void test_head(void **state)
{
	(void)state;
	static const struct want w[] = {
	    {H, "HEAD", "/index.html", "/index.html", 200, false, 90, 236, 1, 2, 0},
	};
	check_capture(cap_head, N(cap_head), w, N(w));
}

static void test_chunked_upload(void **state)
{
	(void)state;
	static const struct want w[] = {
	    {H, "POST", "/upload", "/upload", 201, false, 662, 155, 1, 2, 0},
	};
	check_capture(cap_chunked_upload, N(cap_chunked_upload), w, N(w));
}

static const struct want want_pipeline[] = {
    {H, "GET", "/index.html", "/index.html", 200, false, 37, 279, 1, 2, 0},
    {H, "GET", "/api/users/{id}", "/api/users/42", 200, false, 39, 258, 1, 2, 37},
    {H, "GET", "/missing", "/missing", 404, false, 34, 308, 1, 2, 76},
    {H, "HEAD", "/index.html", "/index.html", 200, false, 57, 231, 1, 2, 110},
};

static void test_pipeline(void **state)
{
	(void)state;
	check_capture(cap_pipeline, N(cap_pipeline), want_pipeline, N(want_pipeline));
}

static void test_big_body_uncaptured(void **state)
{
	(void)state;
	static const struct want w[] = {
	    {H, "GET", "/big.txt", "/big.txt", 200, false, 86, 216444, 1, 5, 0},
	    {H, "GET", "/index.html", "/index.html", 200, false, 89, 279, 6, 7, 86},
	};
	check_capture(cap_big, N(cap_big), w, N(w));
}

static void test_until_close(void **state)
{
	(void)state;
	/* HTTP/1.0 without Content-Length: finish() ends the body. */
	static const struct want w[] = {
	    {H, "GET", "/close/x", "/close/x", 200, false, 86, 215, 1, 3, 0},
	};
	check_capture(cap_close, N(cap_close), w, N(w));
}

static const struct want want_ws[] = {
    {H, "GET", "/chat/room/{id}", "/chat/room/12345", 101, false, 244, 129, 1, 2, 0},
    {W, "text", "/chat/room/{id}", "/chat/room/12345", 0, false, 17, 0, 3, 3, 244},
    {W, "text", "/chat/room/{id}", "/chat/room/12345", 0, false, 0, 17, 4, 4, -1},
    {W, "binary", "/chat/room/{id}", "/chat/room/12345", 0, false, 200, 0, 5, 5, 267},
    {W, "binary", "/chat/room/{id}", "/chat/room/12345", 0, false, 0, 200, 6, 6, -1},
    {W, "text", "/chat/room/{id}", "/chat/room/12345", 0, false, 26, 0, 11, 11, 505},
    {W, "text", "/chat/room/{id}", "/chat/room/12345", 0, false, 0, 26, 12, 12, -1},
    {W, "ping", "/chat/room/{id}", "/chat/room/12345", 0, false, 5, 0, 13, 13, 519},
    {W, "pong", "/chat/room/{id}", "/chat/room/12345", 0, false, 0, 5, 14, 14, -1},
    {W, "binary", "/chat/room/{id}", "/chat/room/12345", 0, false, 70000, 0, 16, 16, 530},
    {W, "binary", "/chat/room/{id}", "/chat/room/12345", 0, false, 0, 70000, 18, 18, -1},
    {W, "close", "/chat/room/{id}", "/chat/room/12345", 1000, false, 5, 0, 19, 19, 70544},
    {W, "close", "/chat/room/{id}", "/chat/room/12345", 1000, false, 0, 5, 20, 20, -1},
};

static void test_websocket(void **state)
{
	(void)state;
	check_capture(cap_ws, N(cap_ws), want_ws, N(want_ws));

	struct run *r = play(cap_ws, N(cap_ws), M_WHOLE, 0, 0, NULL);
	static const uint8_t trace[16] = {0x0a, 0xf7, 0x65, 0x19, 0x16, 0xcd, 0x43, 0xdd,
					  0x84, 0x48, 0xeb, 0x21, 0x1c, 0x80, 0x31, 0x9c};

	assert_true(r->ops[0].has_traceparent);
	assert_memory_equal(r->ops[0].trace_id, trace, 16);
	for (size_t i = 1; i < r->n; i++)
		assert_false(r->ops[i].has_traceparent);
	run_free(r);
}

/* ---- cut captures, lost fragments ----------------------------------------- */

static size_t header_end(const struct rec *f)
{
	for (uint32_t i = 0; i + 4 <= f->captured; i++)
		if (memcmp(f->data + i, "\r\n\r\n", 4) == 0)
			return i + 4;
	return 0;
}

/* The last n ops of r are the last n of want. */
static void check_tail(const struct run *r, const struct want *w, size_t nw, size_t n)
{
	assert_true(r->n >= n);
	for (size_t i = 0; i < n; i++)
		check_op(&r->ops[r->n - n + i], &w[nw - n + i], nw - n + i);
}

static void test_keepalive_cut(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(cap_keepalive); i++) {
		const struct rec *f = &cap_keepalive[i];
		size_t he = header_end(f);

		assert_true(he > 0);
		for (uint32_t c = 0; c < f->captured; c++) {
			struct run *r = play(cap_keepalive, N(cap_keepalive), M_CUT, i, c, NULL);

			if (c >= he) {
				/* Only body bytes were not captured: nothing changes. */
				check_ops(r, want_keepalive, N(want_keepalive));
				no_trouble(r);
			} else {
				/* The exchange may be lost, never the others, and
				 * nothing is guessed. */
				size_t later = N(cap_keepalive) / 2 - i / 2 - 1;

				check_tail(r, want_keepalive, N(want_keepalive), later);
				assert_true(r->n == N(want_keepalive) ||
					    r->n == N(want_keepalive) - 1);
				assert_true(r->stats.resyncs >= 1);
				if (r->n == N(want_keepalive)) {
					/* Kept: what the start line said. */
					const struct enav_l7_op *op = &r->ops[i / 2];

					assert_string_equal(op->operation,
							    want_keepalive[i / 2].operation);
					assert_true(op->status_code == -1 ||
						    op->status_code ==
							want_keepalive[i / 2].status);
				}
				for (size_t k = 0; k < i / 2; k++)
					check_op(&r->ops[k], &want_keepalive[k], k);
			}
			run_free(r);
		}
	}
}

static void test_cut_everywhere(void **state)
{
	(void)state;
	static const struct {
		const struct rec *c;
		size_t n;
	} caps[] = {
	    {cap_gzip, N(cap_gzip)},	       {cap_proxy_chunked, N(cap_proxy_chunked)},
	    {cap_chunk_ext, N(cap_chunk_ext)}, {cap_expect, N(cap_expect)},
	    {cap_head, N(cap_head)},	       {cap_chunked_upload, N(cap_chunked_upload)},
	    {cap_pipeline, N(cap_pipeline)},   {cap_big, N(cap_big)},
	    {cap_close, N(cap_close)},	       {cap_ws, N(cap_ws)},
	};

	/* Any cut, any lost fragment: invariants hold (checked per op), the
	 * stats add up, and never more ops than the whole capture gives. */
	for (size_t k = 0; k < N(caps); k++) {
		struct run *whole = play(caps[k].c, caps[k].n, M_WHOLE, 0, 0, NULL);

		for (size_t i = 0; i < caps[k].n; i++) {
			for (uint32_t c = 0; c < caps[k].c[i].captured; c += 7) {
				struct run *r = play(caps[k].c, caps[k].n, M_CUT, i, c, NULL);

				assert_int_equal(r->stats.ops, r->n);
				assert_true(r->n <= whole->n);
				run_free(r);
			}
			struct run *r = play(caps[k].c, caps[k].n, M_DROP, i, 0, NULL);

			assert_int_equal(r->stats.ops, r->n);
			assert_true(r->n <= whole->n);
			run_free(r);
		}
		run_free(whole);
	}
}

static void test_keepalive_lost_request(void **state)
{
	(void)state;
	/* Request 2 lost: its response pairs with nothing, the next request
	 * (flagged gap) resyncs and pairs with its own response. */
	struct run *r = play(cap_keepalive, N(cap_keepalive), M_DROP, 2, 0, NULL);
	const struct want w[] = {want_keepalive[0], want_keepalive[2], want_keepalive[3]};

	check_ops(r, w, N(w));
	assert_int_equal(r->stats.unmatched_responses, 1);
	assert_int_equal(r->stats.resyncs, 1);
	assert_int_equal(r->stats.parse_errors, 0);
	run_free(r);
}

static void test_keepalive_lost_response(void **state)
{
	(void)state;
	/* Response 2 lost: which request the next response answers is unknown,
	 * so the pending ones are forgotten (never mis-paired) until the
	 * exchange after. */
	struct run *r = play(cap_keepalive, N(cap_keepalive), M_DROP, 3, 0, NULL);
	const struct want w[] = {want_keepalive[0], want_keepalive[3]};

	check_ops(r, w, N(w));
	assert_int_equal(r->stats.unmatched_responses, 1);
	assert_int_equal(r->stats.resyncs, 1);
	run_free(r);
}

static void test_pipeline_cut(void **state)
{
	(void)state;
	/* The second request of the pipelined write onwards not captured: the
	 * first is answered, the rest of the write is lost, the responses find
	 * no request they can be sure of. */
	struct run *r = play(cap_pipeline, N(cap_pipeline), M_CUT, 0, 50, NULL);

	assert_true(r->n >= 1);
	check_op(&r->ops[0], &want_pipeline[0], 0);
	for (size_t i = 1; i < r->n; i++)
		assert_string_equal(r->ops[i].path, want_pipeline[i].path);
	run_free(r);
}

static void test_websocket_lost_frame(void **state)
{
	(void)state;
	/* The client's first text frame lost: frames resync on the next
	 * fragment holding one whole frame. */
	struct run *r = play(cap_ws, N(cap_ws), M_DROP, 2, 0, NULL);

	assert_int_equal(r->n, N(want_ws) - 1);
	check_op(&r->ops[0], &want_ws[0], 0);
	check_op(&r->ops[1], &want_ws[2], 2);
	check_tail(r, want_ws, N(want_ws), N(want_ws) - 3);
	assert_int_equal(r->stats.resyncs, 1);
	run_free(r);

	/* The first part of the 70000-byte frame lost: its tail is not a frame
	 * start, the close frame after it is. */
	r = play(cap_ws, N(cap_ws), M_DROP, 14, 0, NULL);
	assert_int_equal(r->n, N(want_ws) - 1);
	check_tail(r, want_ws, N(want_ws), 3);
	run_free(r);
}

/* ---- synthetic edge cases ------------------------------------------------- */

static void test_detect(void **state)
{
	(void)state;
	const struct {
		const char *s;
		int stream;
		bool want;
	} cases[] = {
	    {"GET / HTTP/1.1\r\n", REQ, true},
	    {"POST /x HTTP/1.1\r\n", REQ, true},
	    {"PUT /x", REQ, true},
	    {"HEAD /", REQ, true},
	    {"DELETE /a", REQ, true},
	    {"PATCH /a", REQ, true},
	    {"OPTIONS * HTTP/1.1", REQ, true},
	    {"CONNECT example.com:443 HTTP/1.1\r\n", REQ, true},
	    {"TRACE / HTTP/1.1", REQ, true},
	    {"GET ", REQ, true},
	    {"GET", REQ, false},
	    {"get / HTTP/1.1", REQ, false},
	    {"GETX / HTTP/1.1", REQ, false},
	    {"HTTP/1.1 200 OK\r\n", REQ, false},
	    {"HTTP/1.1 200 OK\r\n", RESP, true},
	    {"HTTP/1.0 404 Not Found", RESP, true},
	    {"HTTP/1.", RESP, true},
	    {"HTTP/1", RESP, false},
	    {"HTTP/2 200", RESP, false},
	    {"GET / HTTP/1.1", RESP, false},
	    /* other protocols */
	    {"CONNECT {\"verbose\":false}\r\n", REQ, false},
	    {"CONNECT  {\"verbose\":false}\r\n", REQ, false},
	    {"CONNECT ", REQ, false},
	    {"INFO {\"server_id\":\"x\"}\r\n", RESP, false},
	    {"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", REQ, false},
	    {"*1\r\n$4\r\nPING\r\n", REQ, false},
	    {"+OK\r\n", RESP, false},
	    {"PUB a 1\r\n", REQ, false},
	};

	for (size_t i = 0; i < N(cases); i++) {
		size_t n = strlen(cases[i].s);
		uint8_t *d = malloc(n ? n : 1);

		memcpy(d, cases[i].s, n);
		if (enav_l7_http1_ops.detect(d, n, cases[i].stream) != cases[i].want)
			fail_msg("detect(%s, %d) != %d", cases[i].s, cases[i].stream,
				 cases[i].want);
		free(d);
	}
	/* Binary protocols' first bytes. */
	static const uint8_t pg[] = {0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f};
	static const uint8_t my[] = {0x4a, 0, 0, 0, 0x0a, '8', '.', '0'};
	static const uint8_t h2[] = {0, 0, 0x12, 0x04, 0, 0, 0, 0, 0};

	assert_false(enav_l7_http1_ops.detect(pg, sizeof(pg), REQ));
	assert_false(enav_l7_http1_ops.detect(my, sizeof(my), RESP));
	assert_false(enav_l7_http1_ops.detect(h2, sizeof(h2), RESP));
	assert_false(enav_l7_http1_ops.detect(NULL, 0, REQ));
	assert_string_equal(enav_l7_protocol_name(enav_l7_http1_ops.protocol), "http1");
	assert_int_equal(enav_l7_http1_ops.protocol, ENAV_L7_HTTP1);
}

static void test_expect_continue_waits(void **state)
{
	(void)state;
	/* The usual flow: headers, 100 Continue, the body, the final answer.
	 * The interim response is skipped; its bytes count for the exchange. */
	struct run *r = run_new(NULL);
	const char *rq = "PUT /files/7 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n"
			 "Expect: 100-continue\r\n\r\n";
	const char *c100 = "HTTP/1.1 100 Continue\r\n\r\n";
	const char *fin = "HTTP/1.1 204 No Content\r\n\r\n";

	feed_str(r, REQ, rq, 10);
	feed_str(r, RESP, c100, 20);
	feed_str(r, REQ, "hello", 30);
	assert_int_equal(r->n, 0);
	feed_str(r, RESP, fin, 40);
	assert_int_equal(r->n, 1);
	assert_string_equal(r->ops[0].operation, "PUT");
	assert_string_equal(r->ops[0].target, "/files/{id}");
	assert_int_equal(r->ops[0].status_code, 204);
	assert_int_equal(r->ops[0].request_bytes, strlen(rq) + 5);
	assert_int_equal(r->ops[0].response_bytes, strlen(c100) + strlen(fin));
	assert_int_equal(r->ops[0].start_ns, 10);
	assert_int_equal(r->ops[0].end_ns, 40);
	no_trouble(r);
	run_free(r);
}

static void test_statuses(void **state)
{
	(void)state;
	const struct {
		const char *resp;
		int code;
		bool error;
	} cases[] = {
	    {"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 200, false},
	    {"HTTP/1.1 301 Moved\r\nLocation: /x\r\nContent-Length: 0\r\n\r\n", 301, false},
	    {"HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno", 404, false},
	    {"HTTP/1.1 499 Client Closed\r\nContent-Length: 0\r\n\r\n", 499, false},
	    {"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n", 500, true},
	    {"HTTP/1.0 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n", 502, true},
	    {"HTTP/1.1 599\r\nContent-Length: 0\r\n\r\n", 599, true},
	    {"HTTP/1.1 204 No Content\r\n\r\n", 204, false},
	    {"HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n", 304, false},
	};

	for (size_t i = 0; i < N(cases); i++) {
		struct run *r = run_new(NULL);
		char st[8];

		feed_str(r, REQ, "GET /s HTTP/1.1\r\nHost: h\r\n\r\n", 1);
		feed_str(r, RESP, cases[i].resp, 2);
		/* The next exchange on the connection still parses: bodies
		 * were framed right (none for 204/304). */
		feed_str(r, REQ, "GET /t HTTP/1.1\r\n\r\n", 3);
		feed_str(r, RESP, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx", 4);
		assert_int_equal(r->n, 2);
		assert_int_equal(r->ops[0].status_code, cases[i].code);
		snprintf(st, sizeof(st), "%d", cases[i].code);
		assert_string_equal(r->ops[0].status, st);
		assert_int_equal(r->ops[0].error, cases[i].error);
		assert_int_equal(r->ops[0].response_bytes, strlen(cases[i].resp));
		assert_string_equal(r->ops[1].path, "/t");
		no_trouble(r);
		run_free(r);
	}
}

/* Header names fold ASCII case only: a name that differs in a non-letter
 * byte, or has white space before its colon, is not the field. */
static void test_field_names(void **state)
{
	(void)state;
	struct run *r = run_new(NULL);
	const char *resp = "HTTP/1.1 200 OK\r\n"
			   "Content_Length: 9\r\n"
			   "Content-Length : 9\r\n"
			   "Content\rLength: 9\r\n"
			   "Content-Length\t: 9\r\n"
			   "Content-Lengtj: 9\r\n"
			   "Content-Length9: 9\r\n"
			   "Transfer-Encodin\x07: chunked\r\n"
			   "cONTENT-lENGTH: 1\r\n\r\nx";

	feed_str(r, REQ, "GET /f HTTP/1.1\r\nCONTENT-LENGTH: 2\r\n\r\nab", 1);
	feed_str(r, RESP, resp, 2);
	feed_str(r, REQ, "GET /g HTTP/1.1\r\n\r\n", 3);
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\ny", 4);
	assert_int_equal(r->n, 2);
	assert_int_equal(r->ops[0].request_bytes, 40);
	assert_int_equal(r->ops[0].response_bytes, strlen(resp));
	assert_string_equal(r->ops[1].path, "/g");
	no_trouble(r);
	run_free(r);
}

/* The first-byte skip and field_of() come from one list: no name the parser
 * reads may start with a letter the skip drops, in either case, and the
 * lines the skip is for (Server, Date, ETag, Last-Modified) are dropped. */
static void test_field_skip_keeps_read_fields(void **state)
{
	(void)state;
	static const char *const read[] = {
#define NAME(field, name) name,
	    ENAV_H1_READ_FIELDS(NAME)
#undef NAME
	};

	assert_int_equal(sizeof(read) / sizeof(read[0]), 6);
	for (size_t i = 0; i < sizeof(read) / sizeof(read[0]); i++) {
		assert_false(enav_h1_field_never_read(read[i][0]));
		assert_false(enav_h1_field_never_read((char)(read[i][0] & ~0x20)));
	}
	assert_true(enav_h1_field_never_read('S'));
	assert_true(enav_h1_field_never_read('d'));
	assert_true(enav_h1_field_never_read('E'));
	assert_true(enav_h1_field_never_read('l'));
	assert_false(enav_h1_field_never_read('\r')); /* the blank line */
	assert_false(enav_h1_field_never_read(' '));  /* obs-fold */
	assert_false(enav_h1_field_never_read(':'));

	/* And through the parser: a read field in odd case after skipped lines
	 * still frames the body. */
	struct run *r = run_new(NULL);

	feed_str(r, REQ, "GET /s HTTP/1.1\r\n\r\n", 1);
	feed_str(r, RESP,
		 "HTTP/1.1 200 OK\r\nServer: x\r\nDate: y\r\ncOnTeNt-LeNgTh: 3\r\n"
		 "ETag: z\r\n\r\nabc",
		 2);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->ops[0].response_bytes, 70);
	no_trouble(r);
	run_free(r);
}

static void test_grpc_web_and_traceparent(void **state)
{
	(void)state;
	struct run *r = run_new(NULL);

	feed_str(r, REQ,
		 "POST /pkg.Svc/Method HTTP/1.1\r\ncontent-type: application/grpc-web+proto\r\n"
		 "TraceParent:   00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00  \r\n"
		 "content-length: 3\r\n\r\nabc",
		 1);
	feed_str(r, RESP,
		 "HTTP/1.1 200 OK\r\ncontent-type: application/grpc-web+proto\r\n"
		 "transfer-encoding: chunked\r\n\r\n3\r\nxyz\r\n0\r\ngrpc-status: 0\r\n\r\n",
		 2);
	/* An invalid traceparent (upper case), then two valid ones: none. */
	feed_str(r, REQ,
		 "GET /a HTTP/1.1\r\ntraceparent: "
		 "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01\r\n\r\n",
		 3);
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n", 4);
	feed_str(r, REQ,
		 "GET /b HTTP/1.1\r\ntraceparent: "
		 "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\ntraceparent: "
		 "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n\r\n",
		 5);
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n", 6);
	/* gRPC-Web seen on the response only. */
	feed_str(r, REQ, "POST /c HTTP/1.1\r\ncontent-length: 0\r\n\r\n", 7);
	feed_str(r, RESP,
		 "HTTP/1.1 200 OK\r\nContent-Type: Application/GRPC-Web-Text\r\n"
		 "content-length: 0\r\n\r\n",
		 8);
	assert_int_equal(r->n, 4);
	assert_true(r->ops[0].rpc);
	assert_true(r->ops[0].has_traceparent);
	assert_memory_equal(r->ops[0].trace_id, TP_TRACE, 16);
	assert_int_equal(r->ops[0].trace_flags, 0);
	assert_string_equal(r->ops[0].target, "/pkg.Svc/Method");
	assert_false(r->ops[1].rpc);
	assert_false(r->ops[1].has_traceparent);
	assert_false(r->ops[2].has_traceparent);
	assert_true(r->ops[3].rpc);
	no_trouble(r);
	run_free(r);
}

static void test_long_headers(void **state)
{
	(void)state;
	/* A 5000-byte cookie before Content-Length: the line is cut in the
	 * buffer, the header after it still counts. */
	struct run *r = run_new(NULL);
	char *big = malloc(8192);
	size_t n = (size_t)sprintf(big, "POST /form HTTP/1.1\r\nCookie: ");

	memset(big + n, 'c', 5000);
	n += 5000;
	n += (size_t)sprintf(big + n, "\r\nContent-Length: 4\r\n\r\nbody");
	for (size_t k = 0; k < n; k += 1000)
		run_feed(r, REQ, big + k, (uint32_t)(n - k < 1000 ? n - k : 1000),
			 (uint32_t)(n - k < 1000 ? n - k : 1000), 1);
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 2);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->ops[0].request_bytes, n);
	no_trouble(r);
	run_free(r);

	/* A 600-byte path: op.path keeps 255, the template 127; both counted. */
	r = run_new(NULL);
	n = (size_t)sprintf(big, "GET /");
	for (int i = 0; i < 60; i++)
		n += (size_t)sprintf(big + n, "seg%d/", i % 10);
	memset(big + n, 'p', 300);
	n += 300;
	n += (size_t)sprintf(big + n, " HTTP/1.1\r\n\r\n");
	run_feed(r, REQ, big, (uint32_t)n, (uint32_t)n, 1);
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 2);
	assert_int_equal(r->n, 1);
	assert_int_equal(strlen(r->ops[0].path), ENAV_L7_PATH_MAX - 1);
	assert_string_equal(r->ops[0].target, "/seg0/seg1/seg2/seg3/seg4/seg5/seg6/seg7/...");
	assert_int_equal(r->stats.truncated_fields, 1);
	run_free(r);

	/* A 3000-byte request line (longer than the line buffer): the path
	 * is cut, the request still counts. */
	r = run_new(NULL);
	n = (size_t)sprintf(big, "GET /x/");
	memset(big + n, 'q', 3000);
	n += 3000;
	n += (size_t)sprintf(big + n, " HTTP/1.1\r\nContent-Length: 0\r\n\r\n");
	run_feed(r, REQ, big, (uint32_t)n, (uint32_t)n, 1);
	feed_str(r, RESP, "HTTP/1.1 414 URI Too Long\r\nContent-Length: 0\r\n\r\n", 2);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->ops[0].status_code, 414);
	assert_string_equal(r->ops[0].target, "/x/{id}");
	assert_true(r->stats.truncated_fields >= 1);
	assert_int_equal(r->stats.parse_errors, 0);
	run_free(r);

	/* A header block past 64 KiB: a parse error, then the next request
	 * (at a fragment start) parses. */
	r = run_new(NULL);
	feed_str(r, REQ, "GET /huge HTTP/1.1\r\n", 1);
	memset(big, 'h', 8192);
	for (int i = 0; i < 9; i++)
		run_feed(r, REQ, big, 8192, 8192, 2);
	feed_str(r, REQ, "\r\n\r\nGET /next HTTP/1.1\r\n\r\n", 3);
	feed_str(r, RESP, "HTTP/1.1 431 Too Large\r\nContent-Length: 0\r\n\r\n", 4);
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 5);
	assert_int_equal(r->stats.parse_errors, 1);
	assert_true(r->n >= 1);
	assert_string_equal(r->ops[r->n - 1].path, "/next");
	assert_int_equal(r->ops[r->n - 1].status_code, 200);
	run_free(r);
	free(big);
}

static void test_pending_overflow(void **state)
{
	(void)state;
	/* FIFO of 2: the third pipelined request is dropped and counted; its
	 * response is skipped, not paired with the fourth request. */
	struct enav_l7_options opt = {.max_pending = 2};
	struct run *r = run_new(&opt);

	feed_str(r, REQ, "GET /1 HTTP/1.1\r\n\r\nGET /2 HTTP/1.1\r\n\r\nGET /3 HTTP/1.1\r\n\r\n",
		 1);
	feed_str(r, RESP,
		 "HTTP/1.1 201 A\r\nContent-Length: 0\r\n\r\nHTTP/1.1 202 B\r\nContent-Length: "
		 "0\r\n\r\nHTTP/1.1 203 C\r\nContent-Length: 0\r\n\r\n",
		 2);
	feed_str(r, REQ, "GET /4 HTTP/1.1\r\n\r\n", 3);
	feed_str(r, RESP, "HTTP/1.1 204 D\r\n\r\n", 4);
	assert_int_equal(r->n, 3);
	assert_string_equal(r->ops[0].path, "/1");
	assert_int_equal(r->ops[0].status_code, 201);
	assert_string_equal(r->ops[1].path, "/2");
	assert_int_equal(r->ops[1].status_code, 202);
	assert_string_equal(r->ops[2].path, "/4");
	assert_int_equal(r->ops[2].status_code, 204);
	assert_int_equal(r->stats.pending_overflow, 1);
	assert_int_equal(r->stats.unmatched_responses, 0);
	run_free(r);
}

static void test_unmatched_and_finish(void **state)
{
	(void)state;
	struct run *r = run_new(NULL);

	/* A response with no request: counted, not emitted. */
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc", 1);
	assert_int_equal(r->n, 0);
	assert_int_equal(r->stats.unmatched_responses, 1);
	/* Requests never answered: emitted at finish without a response. */
	feed_str(r, REQ, "GET /a HTTP/1.1\r\n\r\nDELETE /b/99 HTTP/1.1\r\n\r\n", 5);
	/* A request whose headers never completed: not emitted. */
	feed_str(r, REQ, "GET /c HTTP/1.1\r\nHost:", 6);
	feed_str(r, RESP, "HTTP/1.1 500 Oops\r\nContent-", 7);
	run_finish(r);
	assert_int_equal(r->n, 2);
	/* The first one's response began (status line read): it counts. */
	assert_string_equal(r->ops[0].path, "/a");
	assert_true(r->ops[0].response_seen);
	assert_int_equal(r->ops[0].status_code, 500);
	assert_true(r->ops[0].error);
	assert_int_equal(r->ops[0].end_ns, 7);
	assert_string_equal(r->ops[1].operation, "DELETE");
	assert_string_equal(r->ops[1].target, "/b/{id}");
	assert_false(r->ops[1].response_seen);
	assert_int_equal(r->ops[1].status_code, -1);
	assert_string_equal(r->ops[1].status, "");
	assert_int_equal(r->ops[1].response_bytes, 0);
	assert_int_equal(r->ops[1].start_ns, 5);
	assert_int_equal(r->ops[1].end_ns, 7);
	/* Nothing after finish. */
	feed_str(r, REQ, "GET /z HTTP/1.1\r\n\r\n", 8);
	run_finish(r);
	assert_int_equal(r->n, 2);
	run_free(r);
}

static void test_garbage_resync(void **state)
{
	(void)state;
	struct run *r = run_new(NULL);
	static const uint8_t junk[] = {0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc};

	feed_str(r, REQ, "GET /ok HTTP/1.1\r\n\r\n", 1);
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 2);
	/* Not HTTP at all. */
	run_feed(r, REQ, junk, sizeof(junk), sizeof(junk), 3);
	assert_int_equal(r->stats.parse_errors, 1);
	/* A start line that is not one. */
	feed_str(r, REQ, "GET /x HTTP/2.0\r\n\r\n", 4);
	feed_str(r, REQ, "GET\r\n", 5);
	/* Back in step at a fragment start. */
	feed_str(r, REQ, "garbage\nPOST /again HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi", 6);
	feed_str(r, RESP, "junk\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 7);
	assert_int_equal(r->n, 2);
	assert_string_equal(r->ops[1].path, "/again");
	assert_int_equal(r->ops[1].request_bytes, 45);
	assert_true(r->stats.parse_errors >= 3);
	assert_true(r->stats.resyncs >= 3);
	run_free(r);

	/* Framing errors. */
	const char *bad[] = {
	    "HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n",
	    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
	    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
	    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nab\r\n",
	    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n11111111111111111\r\n",
	    "HTTP/1.1 2000 OK\r\n\r\n",
	    "HTTP/1.1 20 OK\r\n\r\n",
	};

	for (size_t i = 0; i < N(bad); i++) {
		r = run_new(NULL);
		feed_str(r, REQ, "GET /b HTTP/1.1\r\n\r\n", 1);
		feed_str(r, RESP, bad[i], 2);
		if (r->stats.parse_errors != 1)
			fail_msg("%s: %llu parse errors", bad[i],
				 (unsigned long long)r->stats.parse_errors);
		/* A status line that was read is reported; a bad one is not. */
		run_finish(r);
		assert_int_equal(r->n, 1);
		assert_int_equal(r->ops[0].status_code, i < 5 ? 200 : -1);
		run_free(r);
	}
	/* A request with Transfer-Encoding not ending in chunked. */
	r = run_new(NULL);
	feed_str(r, REQ, "POST /p HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 1);
	assert_int_equal(r->stats.parse_errors, 1);
	feed_str(r, RESP, "HTTP/1.1 400 Bad\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", 2);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->ops[0].status_code, 400);
	run_free(r);
}

static void test_absolute_and_special_targets(void **state)
{
	(void)state;
	struct run *r = run_new(NULL);

	feed_str(r, REQ, "GET http://example.com:8080/api/items/5?q=1 HTTP/1.1\r\n\r\n", 1);
	feed_str(r, REQ, "OPTIONS * HTTP/1.1\r\n\r\n", 2);
	feed_str(r, REQ, "GET http://example.com HTTP/1.0\r\n\r\n", 3);
	feed_str(r, RESP,
		 "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\nHTTP/1.1 204 OK\r\n\r\n"
		 "HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n",
		 4);
	assert_int_equal(r->n, 3);
	assert_string_equal(r->ops[0].path, "/api/items/5");
	assert_string_equal(r->ops[0].target, "/api/items/{id}");
	assert_string_equal(r->ops[1].path, "*");
	assert_string_equal(r->ops[1].target, "*");
	assert_string_equal(r->ops[2].path, "/");
	no_trouble(r);
	run_free(r);
}

static void test_connect_tunnel(void **state)
{
	(void)state;
	struct run *r = run_new(NULL);
	static const uint8_t tls[] = {0x16, 0x03, 0x01, 0x00, 0x05, 'h', 'e', 'l', 'l', 'o'};

	feed_str(r, REQ, "CONNECT db.internal:5432 HTTP/1.1\r\nHost: db.internal:5432\r\n\r\n", 1);
	feed_str(r, RESP, "HTTP/1.1 200 Connection Established\r\n\r\n", 2);
	run_feed(r, REQ, tls, sizeof(tls), sizeof(tls), 3);
	run_feed(r, RESP, tls, sizeof(tls), 5000, 4);
	feed_str(r, REQ, "GET /not-http-anymore HTTP/1.1\r\n\r\n", 5);
	run_finish(r);
	assert_int_equal(r->n, 1);
	assert_string_equal(r->ops[0].operation, "CONNECT");
	assert_string_equal(r->ops[0].target, "db.internal:5432");
	assert_int_equal(r->ops[0].status_code, 200);
	no_trouble(r);
	run_free(r);

	/* Refused: the connection stays HTTP. */
	r = run_new(NULL);
	feed_str(r, REQ, "CONNECT x:1 HTTP/1.1\r\n\r\n", 1);
	feed_str(r, RESP, "HTTP/1.1 407 Proxy Auth\r\nContent-Length: 0\r\n\r\n", 2);
	feed_str(r, REQ, "GET /after HTTP/1.1\r\n\r\n", 3);
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 4);
	assert_int_equal(r->n, 2);
	assert_string_equal(r->ops[1].path, "/after");
	no_trouble(r);
	run_free(r);

	/* h2c upgrade: 101 to something that is not WebSocket is a tunnel. */
	r = run_new(NULL);
	feed_str(r, REQ,
		 "GET / HTTP/1.1\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
		 "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n\r\n",
		 1);
	feed_str(r, RESP,
		 "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
		 "\0\0\0\4\0\0\0\0\0",
		 2);
	feed_str(r, REQ, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 3);
	run_finish(r);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->ops[0].status_code, 101);
	no_trouble(r);
	run_free(r);
}

/* A masked client frame / an unmasked server frame. */
static size_t ws_frame(uint8_t *b, int op, bool fin, bool mask, uint64_t len)
{
	size_t n = 0;

	b[n++] = (uint8_t)((fin ? 0x80 : 0) | op);
	if (len < 126) {
		b[n++] = (uint8_t)((mask ? 0x80 : 0) | len);
	} else if (len < 65536) {
		b[n++] = (uint8_t)((mask ? 0x80 : 0) | 126);
		b[n++] = (uint8_t)(len >> 8);
		b[n++] = (uint8_t)len;
	} else {
		b[n++] = (uint8_t)((mask ? 0x80 : 0) | 127);
		for (int i = 7; i >= 0; i--)
			b[n++] = (uint8_t)(len >> (8 * i));
	}
	if (mask) {
		memcpy(b + n, "\x11\x22\x33\x44", 4);
		n += 4;
	}
	return n;
}

static struct run *ws_open(void)
{
	struct run *r = run_new(NULL);

	feed_str(r, REQ,
		 "GET /ws/7 HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
		 "Sec-WebSocket-Key: x\r\n\r\n",
		 1);
	feed_str(r, RESP,
		 "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: "
		 "Upgrade\r\n\r\n",
		 2);
	assert_int_equal(r->n, 1);
	return r;
}

static void test_websocket_synthetic(void **state)
{
	(void)state;
	uint8_t b[256];
	size_t n;

	/* A ping between the fragments of a message; a 64-bit length; a close
	 * with a masked status code; empty frames. */
	struct run *r = ws_open();

	n = ws_frame(b, 0x2, false, false, 3);
	memcpy(b + n, "abc", 3);
	n += 3;
	n += ws_frame(b + n, 0x9, true, false, 0);
	n += ws_frame(b + n, 0x0, true, false, 2);
	memcpy(b + n, "de", 2);
	n += 2;
	n += ws_frame(b + n, 0x1, true, false, 0);
	run_feed(r, RESP, b, (uint32_t)n, (uint32_t)n, 3);
	assert_int_equal(r->n, 4);
	assert_string_equal(r->ops[1].operation, "ping");
	assert_string_equal(r->ops[2].operation, "binary");
	assert_int_equal(r->ops[2].response_bytes, 5);
	assert_true(r->ops[2].messaging_receive);
	assert_string_equal(r->ops[3].operation, "text");
	assert_int_equal(r->ops[3].response_bytes, 0);
	assert_string_equal(r->ops[3].target, "/ws/{id}");

	n = ws_frame(b, 0x2, true, true, 1ull << 40);
	run_feed(r, REQ, b, (uint32_t)n, (uint32_t)n + 100, 4);
	assert_int_equal(r->n, 4);
	n = ws_frame(b, 0x8, true, true, 2);
	b[n] = 0x03 ^ 0x11; /* 1001, masked */
	b[n + 1] = 0xe9 ^ 0x22;
	n += 2;
	/* The rest of the 2^40 bytes first. */
	run_feed(r, REQ, b, 0, 0, 5);
	assert_int_equal(r->n, 4);
	run_free(r);

	r = ws_open();
	n = ws_frame(b, 0x8, true, true, 2);
	b[n] = 0x03 ^ 0x11;
	b[n + 1] = 0xe9 ^ 0x22;
	n += 2;
	run_feed(r, REQ, b, (uint32_t)n, (uint32_t)n, 3);
	assert_int_equal(r->n, 2);
	assert_string_equal(r->ops[1].operation, "close");
	assert_int_equal(r->ops[1].status_code, 1001);
	assert_string_equal(r->ops[1].status, "1001");
	assert_false(r->ops[1].messaging_receive);
	assert_int_equal(r->ops[1].request_bytes, 2);
	no_trouble(r);
	run_free(r);

	/* Protocol errors: an unmasked client frame, a masked server frame, a
	 * reserved opcode, RSV2, a fragmented ping, a 126-byte ping, an
	 * absurd 64-bit length, a new data frame inside a message. */
	struct {
		int stream;
		uint8_t bytes[16];
		size_t n;
	} bad[] = {
	    {REQ, {0x81, 0x01, 'x'}, 3},
	    {RESP, {0x81, 0x81, 1, 2, 3, 4, 'x'}, 7},
	    {RESP, {0x83, 0x00}, 2},
	    {RESP, {0xa1, 0x00}, 2},
	    {RESP, {0x09, 0x00}, 2},
	    {RESP, {0x89, 0x7e, 0x00, 0x7e}, 4},
	    {RESP, {0x82, 0x7f, 0x40, 0, 0, 0, 0, 0, 0, 1}, 10},
	    {RESP, {0x01, 0x00, 0x81, 0x00}, 4},
	};

	for (size_t i = 0; i < N(bad); i++) {
		r = ws_open();
		run_feed(r, bad[i].stream, bad[i].bytes, (uint32_t)bad[i].n, (uint32_t)bad[i].n, 3);
		if (r->stats.parse_errors != 1)
			fail_msg("bad frame %zu accepted", i);
		assert_int_equal(r->n, 1);
		/* Back in step on a fragment holding exactly one frame. */
		n = ws_frame(b, 0x1, true, bad[i].stream == REQ, 3);
		memcpy(b + n, "abc", 3);
		n += 3;
		run_feed(r, bad[i].stream, b, (uint32_t)n, (uint32_t)n, 4);
		assert_int_equal(r->n, 2);
		assert_string_equal(r->ops[1].operation, "text");
		run_free(r);
	}
	/* 2^62 exactly is believed. */
	r = ws_open();
	n = ws_frame(b, 0x2, true, false, 1ull << 62);
	run_feed(r, RESP, b, (uint32_t)n, (uint32_t)n, 3);
	assert_int_equal(r->stats.parse_errors, 0);
	run_free(r);
}

static void test_websocket_reordered(void **state)
{
	(void)state;
	/* The client's first frame is fed before the 101 (the two directions
	 * reach the tracker out of order): still framed as WebSocket. */
	struct run *r = run_new(NULL);
	uint8_t b[64];
	size_t n;

	feed_str(r, REQ, "GET /live HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
		 1);
	n = ws_frame(b, 0x1, true, true, 2);
	memcpy(b + n, "hi", 2);
	n += 2;
	run_feed(r, REQ, b, (uint32_t)n, (uint32_t)n, 3);
	feed_str(r, RESP,
		 "HTTP/1.1 101 Switching\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n", 2);
	run_finish(r);
	assert_int_equal(r->n, 2);
	assert_string_equal(r->ops[0].operation, "text");
	assert_int_equal(r->ops[0].protocol, ENAV_L7_WEBSOCKET);
	assert_string_equal(r->ops[0].target, "/live");
	assert_string_equal(r->ops[1].operation, "GET");
	assert_int_equal(r->ops[1].status_code, 101);
	no_trouble(r);
	run_free(r);

	/* The upgrade refused: the connection stays HTTP. */
	r = run_new(NULL);
	feed_str(r, REQ, "GET /live HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
		 1);
	feed_str(r, RESP, "HTTP/1.1 426 Upgrade Required\r\nContent-Length: 0\r\n\r\n", 2);
	feed_str(r, REQ, "GET /poll HTTP/1.1\r\n\r\n", 3);
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 4);
	assert_int_equal(r->n, 2);
	assert_string_equal(r->ops[1].path, "/poll");
	no_trouble(r);
	run_free(r);
}

/* Found by the fuzzer (corpus seed-found-ws-precut).  The request asks for
 * "rebsocket" (not WebSocket), so the bytes the client sends before the 101
 * are skipped as a tunnel; the 101 then says websocket.  The client's frames
 * after the 101 (a masked text frame of 17 bytes, a masked close with a
 * 1-byte body, then the first 4 bytes of a header that never completes) must
 * be framed from their first byte however they are cut: fed as sent, as one
 * fragment, split at every byte, byte by byte. */
static const char precut_req[] = "GET /chat/room/12345\?user=alice HTTP/1.1\r\n"
				 "Host: 127.0.0.1\r\n"
				 "Upgrade: rebsocket\r\n"
				 "Connection: Upgrade\r\n"
				 "SecmWebSocket-Key: RizvLjeNH\n"
				 "Host: 127.0.0.1:58081\r\n"
				 "User-Agent: curl/7.88.1\r\n"
				 "Accept: */*\r\n"
				 "\r\n"
				 "\x05\xec"
				 "HTTP/1.1 2CONNECT  HTTP/1.1\r\n"
				 "Host: x\r\n"
				 "03331-01\r\n"
				 "\r\n";
static const char precut_101[] = "HTTP/1.1 101 Switching Protocols\r\n"
				 "Upgrade: websocket\r\n"
				 "Connection: Upgrade\r\n"
				 "Sec-WebSocket-Accept: NuDRwXwDthRSYQog4NlWHNhZRkM=\r\n"
				 "\r\n";
static const uint8_t precut_frames[] = {
    0x81, 0x91, 0x4a, 0x60, 0xb6, 0x0a, 0x22, 0x05, 0,	  0,	0, 0,
    0,	  0,	0,    0,    0,	  0,	0,    0,    0,	  0,	0, 0x88,
    0x81, 0xc1, 0x17, 0xf5, 0x62, 0xc2, 0xff, 0x97, 0x1b, 0xa4,
};
static const uint8_t precut_close[] = {0x88, 0x05, 0x03, 0xe8, 'b', 'y', 'e'};

/* cut: 0 as captured (23 bytes, 16 empty fragments, 11 bytes), 1 one
 * fragment, 2 byte by byte, 3 + k split at k. */
static struct run *play_precut(size_t cut)
{
	struct run *r = run_new(NULL);
	const uint8_t *fr = precut_frames;
	const uint32_t n = sizeof(precut_frames);

	feed_str(r, REQ, precut_req, 1 * TS_STEP);
	feed_str(r, RESP, precut_101, 2 * TS_STEP);
	if (cut == 0) {
		run_feed(r, REQ, fr, 23, 23, 3 * TS_STEP);
		for (int i = 0; i < 16; i++)
			run_feed(r, REQ, fr + 23, 0, 0, 3 * TS_STEP);
		run_feed(r, REQ, fr + 23, n - 23, n - 23, 3 * TS_STEP);
	} else if (cut == 1) {
		run_feed(r, REQ, fr, n, n, 3 * TS_STEP);
	} else if (cut == 2) {
		for (uint32_t k = 0; k < n; k++)
			run_feed(r, REQ, fr + k, 1, 1, 3 * TS_STEP);
	} else {
		uint32_t k = (uint32_t)(cut - 3);

		run_feed(r, REQ, fr, k, k, 3 * TS_STEP);
		run_feed(r, REQ, fr + k, n - k, n - k, 3 * TS_STEP);
	}
	run_feed(r, RESP, precut_close, sizeof(precut_close), sizeof(precut_close), 4 * TS_STEP);
	run_finish(r);
	return r;
}

static void test_websocket_after_guessed_tunnel(void **state)
{
	(void)state;
	static const struct want w[] = {
	    {H, "GET", "/chat/room/{id}", "/chat/room/12345", 101, false, 192, 129, 1, 2, 0},
	    {W, "text", "/chat/room/{id}", "/chat/room/12345", 0, false, 17, 0, 3, 3, 244},
	    {W, "close", "/chat/room/{id}", "/chat/room/12345", 0, false, 1, 0, 3, 3, 267},
	    {W, "close", "/chat/room/{id}", "/chat/room/12345", 1000, false, 0, 5, 4, 4, -1},
	};

	for (size_t cut = 0; cut < 3 + sizeof(precut_frames); cut++) {
		struct run *r = play_precut(cut);

		check_ops(r, w, N(w));
		no_trouble(r);
		run_free(r);
	}
}

static void test_request_gap_causal(void **state)
{
	(void)state;
	/* A request lost whole (gap on the next): the response to the lost one
	 * began before the next request did, so it pairs with nothing. */
	struct run *r = run_new(NULL);

	feed_str(r, REQ, "GET /1 HTTP/1.1\r\n\r\n", 10);
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 20);
	/* GET /2 lost (30), its response arrives (40), then GET /3 with gap. */
	feed_str(r, RESP, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", 40);
	r->gap_next[REQ] = true;
	feed_str(r, REQ, "GET /3 HTTP/1.1\r\n\r\n", 50);
	feed_str(r, RESP, "HTTP/1.1 201 OK\r\nContent-Length: 0\r\n\r\n", 60);
	assert_int_equal(r->n, 2);
	assert_string_equal(r->ops[1].path, "/3");
	assert_int_equal(r->ops[1].status_code, 201);
	assert_int_equal(r->stats.unmatched_responses, 1);

	/* Same, but the lost request's response is fed after the next request:
	 * it began before that request started, so it still pairs with nothing. */
	feed_str(r, REQ, "GET /4 HTTP/1.1\r\n\r\n", 70);
	feed_str(r, RESP, "HTTP/1.1 202 OK\r\nContent-Length: 0\r\n\r\n", 80);
	r->gap_next[REQ] = true;
	feed_str(r, REQ, "GET /6 HTTP/1.1\r\n\r\n", 100);
	feed_str(r, RESP, "HTTP/1.1 500 For /5\r\nContent-Length: 0\r\n\r\n", 90);
	feed_str(r, RESP, "HTTP/1.1 203 For /6\r\nContent-Length: 0\r\n\r\n", 110);
	assert_int_equal(r->n, 4);
	assert_string_equal(r->ops[2].path, "/4");
	assert_string_equal(r->ops[3].path, "/6");
	assert_int_equal(r->ops[3].status_code, 203);
	assert_int_equal(r->stats.unmatched_responses, 2);
	run_free(r);
}

static void test_null_and_empty(void **state)
{
	(void)state;
	struct run *r = run_new(NULL);
	struct enav_l7_fragment f = {.stream = REQ, .data = NULL, .captured = 10, .len = 10};

	/* No data pointer: nothing read, the bytes are lost. */
	enav_l7_http1_ops.feed(r->state, &f, &r->sink);
	run_feed(r, REQ, "", 0, 0, 1);
	run_feed(r, RESP, "", 0, 0, 1);
	/* captured > len is read as len. */
	f.data = (const uint8_t *)"GET / HTTP/1.1\r\n\r\nXXXX";
	f.captured = 22;
	f.len = 18;
	enav_l7_http1_ops.feed(r->state, &f, &r->sink);
	feed_str(r, RESP, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 2);
	assert_int_equal(r->n, 1);
	assert_int_equal(r->ops[0].request_bytes, 18);
	run_free(r);

	/* init without options. */
	void *st = calloc(1, enav_l7_http1_ops.state_size);

	assert_int_equal(enav_l7_http1_ops.init(st, NULL), 0);
	free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keepalive),
	    cmocka_unit_test(test_keep_query),
	    cmocka_unit_test(test_gzip_chunked),
	    cmocka_unit_test(test_proxy_chunked),
	    cmocka_unit_test(test_chunk_extensions_trailer),
	    cmocka_unit_test(test_expect_continue),
	    cmocka_unit_test(test_head),
	    cmocka_unit_test(test_chunked_upload),
	    cmocka_unit_test(test_pipeline),
	    cmocka_unit_test(test_big_body_uncaptured),
	    cmocka_unit_test(test_until_close),
	    cmocka_unit_test(test_websocket),
	    cmocka_unit_test(test_keepalive_cut),
	    cmocka_unit_test(test_cut_everywhere),
	    cmocka_unit_test(test_keepalive_lost_request),
	    cmocka_unit_test(test_keepalive_lost_response),
	    cmocka_unit_test(test_pipeline_cut),
	    cmocka_unit_test(test_websocket_lost_frame),
	    cmocka_unit_test(test_detect),
	    cmocka_unit_test(test_expect_continue_waits),
	    cmocka_unit_test(test_statuses),
	    cmocka_unit_test(test_field_names),
	    cmocka_unit_test(test_field_skip_keeps_read_fields),
	    cmocka_unit_test(test_grpc_web_and_traceparent),
	    cmocka_unit_test(test_long_headers),
	    cmocka_unit_test(test_pending_overflow),
	    cmocka_unit_test(test_unmatched_and_finish),
	    cmocka_unit_test(test_garbage_resync),
	    cmocka_unit_test(test_absolute_and_special_targets),
	    cmocka_unit_test(test_connect_tunnel),
	    cmocka_unit_test(test_websocket_synthetic),
	    cmocka_unit_test(test_websocket_reordered),
	    cmocka_unit_test(test_websocket_after_guessed_tunnel),
	    cmocka_unit_test(test_request_gap_causal),
	    cmocka_unit_test(test_null_and_empty),
	};

	return cmocka_run_group_tests_name("l7_http1", tests, NULL, NULL);
}
