/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dns_mmsg NAME: resolves NAME as glibc's stub resolver does, A and AAAA in
 * one sendmmsg(2), twice (ids 0x1111/0x2222, then 0x3333/0x4444), against
 * 127.0.0.1:53, and reads the four responses with recvmmsg(2).  Prints one
 * line per response: its id in hex.  Exits 1 unless all four arrive within
 * 5 s.  test_network.sh checks each *mmsg message is captured on its own.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* A query for name of type qtype (1 A, 28 AAAA) with id; returns its length. */
static size_t build_query(uint8_t *q, size_t cap, const char *name, uint16_t id, uint16_t qtype)
{
	size_t n = 0;
	uint8_t header[12] = {id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
	memcpy(q, header, sizeof(header));
	n = sizeof(header);
	for (const char *label = name; *label;) {
		size_t len = strcspn(label, ".");
		if (n + len + 6 > cap)
			return 0;
		q[n++] = (uint8_t)len;
		memcpy(q + n, label, len);
		n += len;
		label += len + (label[len] == '.');
	}
	q[n++] = 0;
	q[n++] = qtype >> 8;
	q[n++] = qtype & 0xff;
	q[n++] = 0;
	q[n++] = 1; /* class IN */
	return n;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: dns_mmsg NAME\n");
		return 2;
	}
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(53)};
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	struct timeval tv = {.tv_sec = 5};
	if (s < 0 || connect(s, (struct sockaddr *)&to, sizeof(to)) != 0 ||
	    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0) {
		perror("dns_mmsg: socket");
		return 1;
	}
	static const uint16_t ids[2][2] = {{0x1111, 0x2222}, {0x3333, 0x4444}};
	for (int call = 0; call < 2; call++) {
		uint8_t q[2][512];
		struct iovec iov[2];
		struct mmsghdr msgs[2];
		memset(msgs, 0, sizeof(msgs));
		for (int i = 0; i < 2; i++) {
			iov[i].iov_base = q[i];
			iov[i].iov_len =
			    build_query(q[i], sizeof(q[i]), argv[1], ids[call][i], i == 0 ? 1 : 28);
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		if (sendmmsg(s, msgs, 2, 0) != 2) {
			perror("dns_mmsg: sendmmsg");
			return 1;
		}
	}
	int got = 0;
	while (got < 4) {
		uint8_t r[4][512];
		struct iovec iov[4];
		struct mmsghdr msgs[4];
		memset(msgs, 0, sizeof(msgs));
		for (int i = 0; i < 4; i++) {
			iov[i].iov_base = r[i];
			iov[i].iov_len = sizeof(r[i]);
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		int n = recvmmsg(s, msgs, 4 - got, MSG_WAITFORONE, NULL);
		if (n <= 0) {
			perror("dns_mmsg: recvmmsg");
			return 1;
		}
		for (int i = 0; i < n; i++)
			printf("%04x\n", msgs[i].msg_len >= 2 ? r[i][0] << 8 | r[i][1] : 0);
		got += n;
	}
	close(s);
	return 0;
}
