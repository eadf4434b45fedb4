/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The proof harness's OTLP/HTTP receiver (bench/campaign.sh): accepts every
 * POST, discards its body and answers 200 with an empty body, so the
 * campaign's L7 arms pay the agent's whole export path while the receiver
 * itself stays cheap.  Its own CPU is read from /proc by the campaign and
 * reported apart from the agent's.  GET /stats answers "requests N bytes M"
 * (request bodies received so far).  Prints "ready PORT" once listening.
 *
 * usage: otlp_sink PORT   (0: any free port)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONNS  64
#define HEADER_MAX 8192

struct conn {
	int fd;
	size_t header_len; /* bytes of the request head read so far */
	unsigned long long body_left;
	char head[HEADER_MAX];
};

static struct conn conns[MAX_CONNS];
static unsigned long long requests, body_bytes;

static void reply(int fd, const char *status, const char *body)
{
	char buf[256];
	int n = snprintf(buf, sizeof(buf),
			 "HTTP/1.1 %s\r\nContent-Type: application/x-protobuf\r\n"
			 "Content-Length: %zu\r\n\r\n%s",
			 status, strlen(body), body);
	/* The agent reads the whole answer; a short write on loopback with a
	 * few hundred bytes does not happen, and if it did the agent retries. */
	if (write(fd, buf, (size_t)n) < 0)
		perror("otlp_sink: write");
}

/* A complete request head in c->head: answer GET /stats at once, or note
 * how much body to discard before answering a POST. */
static bool on_head(struct conn *c, size_t head_end)
{
	c->head[head_end] = '\0';
	if (!strncmp(c->head, "GET /stats", 10)) {
		char body[96];
		snprintf(body, sizeof(body), "requests %llu bytes %llu\n", requests, body_bytes);
		reply(c->fd, "200 OK", body);
		return true;
	}
	const char *cl = strcasestr(c->head, "\r\ncontent-length:");
	if (!cl) {
		reply(c->fd, "411 Length Required", "");
		return false;
	}
	c->body_left = strtoull(cl + 17, NULL, 10);
	requests++;
	body_bytes += c->body_left;
	return true;
}

/* Reads what the connection has; false when it should be closed. */
static bool on_readable(struct conn *c)
{
	char buf[1 << 16];
	ssize_t n = read(c->fd, buf, sizeof(buf));
	if (n <= 0)
		return n < 0 && errno == EINTR;
	size_t off = 0, len = (size_t)n;
	while (off < len) {
		if (c->body_left) {
			size_t take = len - off < c->body_left ? len - off : (size_t)c->body_left;
			c->body_left -= take;
			off += take;
			if (!c->body_left)
				reply(c->fd, "200 OK", "");
			continue;
		}
		/* Head bytes, one at a time until the blank line: heads are small. */
		if (c->header_len == HEADER_MAX - 1)
			return false;
		c->head[c->header_len++] = buf[off++];
		if (c->header_len >= 4 && !memcmp(c->head + c->header_len - 4, "\r\n\r\n", 4)) {
			size_t end = c->header_len;
			c->header_len = 0;
			if (!on_head(c, end))
				return false;
			if (!c->body_left && strncmp(c->head, "GET", 3))
				reply(c->fd, "200 OK", ""); /* an empty POST */
		}
	}
	return true;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PORT\n", argv[0]);
		return 2;
	}
	int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	struct sockaddr_in sa = {.sin_family = AF_INET,
				 .sin_port = htons((unsigned short)atoi(argv[1])),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 16) ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl)) {
		perror("otlp_sink");
		return 1;
	}
	printf("ready %u\n", ntohs(sa.sin_port));
	fflush(stdout);
	for (int i = 0; i < MAX_CONNS; i++)
		conns[i].fd = -1;
	for (;;) {
		struct pollfd pf[MAX_CONNS + 1];
		int who[MAX_CONNS + 1], n = 0;
		pf[n] = (struct pollfd){.fd = lfd, .events = POLLIN};
		who[n++] = -1;
		for (int i = 0; i < MAX_CONNS; i++)
			if (conns[i].fd >= 0) {
				pf[n] = (struct pollfd){.fd = conns[i].fd, .events = POLLIN};
				who[n++] = i;
			}
		if (poll(pf, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("otlp_sink: poll");
			return 1;
		}
		for (int k = 0; k < n; k++) {
			if (!pf[k].revents)
				continue;
			if (who[k] < 0) {
				int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
				int slot = 0;
				while (fd >= 0 && slot < MAX_CONNS && conns[slot].fd >= 0)
					slot++;
				if (fd >= 0 && slot == MAX_CONNS) {
					close(fd);
					continue;
				}
				if (fd >= 0)
					conns[slot] = (struct conn){.fd = fd};
				continue;
			}
			struct conn *c = &conns[who[k]];
			if (!on_readable(c)) {
				close(c->fd);
				c->fd = -1;
			}
		}
	}
}
