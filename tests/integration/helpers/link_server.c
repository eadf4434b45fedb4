/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A workload for profile-to-trace linking: a small thread-per-connection
 * HTTP/1.1 server whose two endpoints burn CPU inside functions of known
 * names.  Built with frame pointers.
 *
 *   link_server PORT [BURN_MS_SLOW] [BURN_MS_FAST]     (defaults 20 and 2)
 *
 * Listens on 127.0.0.1:PORT and prints "ready PORT" (the bound port, so 0
 * picks a free one) once listening.  One detached thread per connection, at
 * most 256 at a time (beyond that a new connection is closed at once).
 * Each thread serves requests with keep-alive:
 *   GET /slow   burns BURN_MS_SLOW ms of thread CPU time in link_slow_function
 *   GET /fast   burns BURN_MS_FAST ms of thread CPU time in link_fast_function
 *   anything else   404
 * A request head larger than 8 KiB gets 431 and the connection is closed.
 * Reads and writes are plain recv()/send() calls on the socket, one send()
 * per response.  SIGTERM and SIGINT exit 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS  256
#define REQ_BUF	   8192
#define CHECK_MASK 4095ul

static long burn_ms_slow = 20, burn_ms_fast = 2;
static atomic_int active_conns;
static volatile double sink;

/* The clock read is its own frame: with frame-pointer stacks the function
 * that calls into a frame-less routine (here the vDSO) is the one whose name
 * is lost, so a sample taken in the clock read still shows the burning
 * function below this wrapper. */
__attribute__((noinline)) static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	__asm__ volatile("" ::: "memory");
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Each burning function has its own loop (and different constants, so the
 * compiler cannot fold the two into one body): a profiler sees the burn in
 * the named function itself. */
__attribute__((noinline)) void link_slow_function(long ms)
{
	uint64_t end = thread_cpu_ns() + (uint64_t)(ms > 0 ? ms : 0) * 1000000ull;
	double x = sink;
	for (unsigned long i = 0;; i++) {
		x += (double)i * 0.5;
		if ((i & CHECK_MASK) == CHECK_MASK && thread_cpu_ns() >= end)
			break;
	}
	sink = x;
}

__attribute__((noinline)) void link_fast_function(long ms)
{
	uint64_t end = thread_cpu_ns() + (uint64_t)(ms > 0 ? ms : 0) * 1000000ull;
	double x = sink;
	for (unsigned long i = 0;; i++) {
		x += (double)i * 0.25;
		if ((i & CHECK_MASK) == CHECK_MASK && thread_cpu_ns() >= end)
			break;
	}
	sink = x;
}

static void on_signal(int sig)
{
	(void)sig;
	_exit(0);
}

/* Header and body in one buffer, so one send() call; only a short write
 * (not expected for these sizes) takes a second call. */
static int send_response(int fd, int status, const char *reason, const char *body, bool keep)
{
	char out[512];
	size_t blen = strlen(body);
	int n = snprintf(out, sizeof(out),
			 "HTTP/1.1 %d %s\r\n"
			 "Content-Type: text/plain\r\n"
			 "Content-Length: %zu\r\n"
			 "Connection: %s\r\n"
			 "\r\n"
			 "%s",
			 status, reason, blen, keep ? "keep-alive" : "close", body);
	if (n < 0 || (size_t)n >= sizeof(out))
		return -1;
	size_t off = 0;
	while (off < (size_t)n) {
		ssize_t w = send(fd, out + off, (size_t)n - off, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

/* Case-sensitive (method, path) and case-insensitive (header names,
 * tokens) comparison of the span [p, p+n) with a string. */
static bool span_eq(const char *p, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(p, s, n) == 0;
}

static bool token_eq(const char *p, size_t n, const char *tok)
{
	return strlen(tok) == n && strncasecmp(p, tok, n) == 0;
}

/* Whether the comma-separated header value [v, v+n) holds the token tok. */
static bool has_token(const char *v, size_t n, const char *tok)
{
	const char *end = v + n;
	while (v < end) {
		const char *comma = memchr(v, ',', (size_t)(end - v));
		const char *te = comma ? comma : end;
		const char *s = v, *e = te;
		while (s < e && (*s == ' ' || *s == '\t'))
			s++;
		while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (token_eq(s, (size_t)(e - s), tok))
			return true;
		v = comma ? comma + 1 : end;
	}
	return false;
}

struct request {
	const char *path;
	size_t path_len;
	bool is_get;
	bool keep;
	bool chunked;
	unsigned long long body_len;
};

/* Parses the request head buf[0, len) (which ends in CRLF CRLF).  Returns
 * false on a malformed head. */
static bool parse_request(const char *buf, size_t len, struct request *rq)
{
	const char *end = buf + len;
	const char *eol = memmem(buf, len, "\r\n", 2);
	if (!eol)
		return false;
	const char *sp1 = memchr(buf, ' ', (size_t)(eol - buf));
	if (!sp1 || sp1 == buf)
		return false;
	const char *target = sp1 + 1;
	const char *sp2 = memchr(target, ' ', (size_t)(eol - target));
	if (!sp2 || sp2 == target)
		return false;
	const char *ver = sp2 + 1;
	size_t vlen = (size_t)(eol - ver);
	if (vlen != 8 || memcmp(ver, "HTTP/1.", 7) != 0 || (ver[7] != '0' && ver[7] != '1'))
		return false;

	rq->is_get = span_eq(buf, (size_t)(sp1 - buf), "GET");
	rq->path = target;
	const char *q = memchr(target, '?', (size_t)(sp2 - target));
	rq->path_len = (size_t)((q ? q : sp2) - target);
	rq->keep = ver[7] == '1';
	rq->chunked = false;
	rq->body_len = 0;

	bool close_tok = false, keep_tok = false;
	for (const char *line = eol + 2; line < end;) {
		const char *le = memmem(line, (size_t)(end - line), "\r\n", 2);
		if (!le || le == line)
			break;
		const char *colon = memchr(line, ':', (size_t)(le - line));
		if (!colon || colon == line)
			return false;
		const char *v = colon + 1, *ve = le;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		size_t nlen = (size_t)(colon - line), vl = (size_t)(ve - v);
		if (token_eq(line, nlen, "Connection")) {
			close_tok |= has_token(v, vl, "close");
			keep_tok |= has_token(v, vl, "keep-alive");
		} else if (token_eq(line, nlen, "Content-Length")) {
			unsigned long long cl = 0;
			if (vl == 0 || vl > 18)
				return false;
			for (size_t i = 0; i < vl; i++) {
				if (v[i] < '0' || v[i] > '9')
					return false;
				cl = cl * 10 + (unsigned long long)(v[i] - '0');
			}
			rq->body_len = cl;
		} else if (token_eq(line, nlen, "Transfer-Encoding")) {
			rq->chunked = true;
		}
		line = le + 2;
	}
	if (close_tok)
		rq->keep = false;
	else if (keep_tok)
		rq->keep = true;
	return true;
}

static void serve(int fd)
{
	char buf[REQ_BUF];
	size_t len = 0;
	unsigned long long discard = 0;

	for (;;) {
		/* Drop the body of the previous request (requests are GET; this
		 * only keeps the stream framed if one is not). */
		while (discard > 0) {
			if (len > 0) {
				size_t n = discard < len ? (size_t)discard : len;
				memmove(buf, buf + n, len - n);
				len -= n;
				discard -= n;
				continue;
			}
			ssize_t r = recv(fd, buf, sizeof(buf), 0);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return;
			len = (size_t)r;
		}

		const char *hend = len >= 4 ? memmem(buf, len, "\r\n\r\n", 4) : NULL;
		if (!hend) {
			if (len == sizeof(buf)) {
				send_response(fd, 431, "Request Header Fields Too Large",
					      "request header fields too large\n", false);
				return;
			}
			ssize_t r = recv(fd, buf + len, sizeof(buf) - len, 0);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				return;
			len += (size_t)r;
			continue;
		}
		size_t hlen = (size_t)(hend - buf) + 4;

		struct request rq;
		if (!parse_request(buf, hlen, &rq)) {
			send_response(fd, 400, "Bad Request", "bad request\n", false);
			return;
		}
		/* A chunked body cannot be skipped without decoding it: answer
		 * and close. */
		bool keep = rq.keep && !rq.chunked;
		int rc;
		if (rq.is_get && span_eq(rq.path, rq.path_len, "/slow")) {
			link_slow_function(burn_ms_slow);
			rc = send_response(fd, 200, "OK", "slow\n", keep);
		} else if (rq.is_get && span_eq(rq.path, rq.path_len, "/fast")) {
			link_fast_function(burn_ms_fast);
			rc = send_response(fd, 200, "OK", "fast\n", keep);
		} else {
			rc = send_response(fd, 404, "Not Found", "not found\n", keep);
		}
		if (rc < 0 || !keep)
			return;

		memmove(buf, buf + hlen, len - hlen);
		len -= hlen;
		discard = rq.body_len;
	}
}

static void *conn_thread(void *arg)
{
	int fd = (int)(intptr_t)arg;
	serve(fd);
	close(fd);
	atomic_fetch_sub(&active_conns, 1);
	return NULL;
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

int main(int argc, char **argv)
{
	long port;
	if (argc < 2 || argc > 4 || !parse_long(argv[1], 0, 65535, &port) ||
	    (argc > 2 && !parse_long(argv[2], 0, 3600000, &burn_ms_slow)) ||
	    (argc > 3 && !parse_long(argv[3], 0, 3600000, &burn_ms_fast))) {
		fprintf(stderr, "usage: %s PORT [BURN_MS_SLOW] [BURN_MS_FAST]\n", argv[0]);
		return 2;
	}

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0) {
		perror("socket");
		return 1;
	}
	int one = 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in addr;
	memset(&addr, 0, sizeof(addr));
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)port);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		perror("bind");
		return 1;
	}
	if (listen(lfd, 512) < 0) {
		perror("listen");
		return 1;
	}
	socklen_t alen = sizeof(addr);
	if (getsockname(lfd, (struct sockaddr *)&addr, &alen) < 0) {
		perror("getsockname");
		return 1;
	}
	printf("ready %u\n", (unsigned)ntohs(addr.sin_port));
	fflush(stdout);

	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);

	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED || errno == EMFILE ||
			    errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
				if (errno != EINTR && errno != ECONNABORTED)
					usleep(10000);
				continue;
			}
			perror("accept");
			return 1;
		}
		if (atomic_fetch_add(&active_conns, 1) >= MAX_CONNS) {
			atomic_fetch_sub(&active_conns, 1);
			close(fd);
			continue;
		}
		pthread_t t;
		if (pthread_create(&t, &attr, conn_thread, (void *)(intptr_t)fd) != 0) {
			atomic_fetch_sub(&active_conns, 1);
			close(fd);
		}
	}
}
