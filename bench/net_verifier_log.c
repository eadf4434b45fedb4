/* SPDX-License-Identifier: Apache-2.0 */
/*
 * net_verifier_log PROGRAM...: load each named program of the network
 * object (ring buffer build) alone, with the agent's default payload
 * settings (DNS 512 bytes, every application protocol, TLS on), and print
 * the verifier's own statistics line ("processed N insns ...") and the
 * wall time of the load, tab-separated.  For kernels without
 * bpf_prog_info.verified_insns (before 5.16, e.g. Debian 11's 5.10), where
 * bench/verifier_cost.sh cannot count.  A refused program prints its
 * verifier log's last line instead.
 *
 * build: clang -O2 -Ibuild/bpf -Ibuild -Iinclude bench/net_verifier_log.c -lbpf
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>

#include "net_ringbuf.skel.h"

static char log_buf[1 << 20];

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The line of the log that starts with "processed", or its last line. */
static const char *summary(void)
{
	const char *p = strstr(log_buf, "processed ");
	if (!p) {
		size_t n = strlen(log_buf);
		while (n && log_buf[n - 1] == '\n')
			log_buf[--n] = '\0';
		p = strrchr(log_buf, '\n');
		p = p ? p + 1 : log_buf;
	}
	return p;
}

static int load_one(const char *name)
{
	struct net_ringbuf *s = net_ringbuf__open();
	if (!s)
		return 1;
	s->rodata->enav_tls_enabled = 1;
	s->rodata->enav_dns_capture = 512;
	s->rodata->enav_l7_protocols = ~0u;
	s->rodata->enav_l7_capture = 256;
	s->rodata->enav_l7_h2_capture = 4096;
	struct bpf_program *p, *want = NULL;
	bpf_object__for_each_program(p, s->obj)
	{
		bool it = strcmp(bpf_program__name(p), name) == 0;
		bpf_program__set_autoload(p, it);
		if (it)
			want = p;
	}
	if (!want) {
		fprintf(stderr, "%s: no such program\n", name);
		net_ringbuf__destroy(s);
		return 1;
	}
	log_buf[0] = '\0';
	bpf_program__set_log_buf(want, log_buf, sizeof(log_buf));
	/* statistics only; with the instructions when VERBOSE is set */
	bpf_program__set_log_level(want, getenv("VERBOSE") ? 1 | 4 : 4);
	double t0 = now_s();
	int err = net_ringbuf__load(s);
	double secs = now_s() - t0;
	if (err && getenv("VERBOSE")) {
		size_t n = strlen(log_buf);
		fprintf(stderr, "%s\n", log_buf + (n > 3000 ? n - 3000 : 0));
	}
	char line[256];
	snprintf(line, sizeof(line), "%s", summary());
	char *nl = strchr(line, '\n');
	if (nl)
		*nl = '\0';
	printf("%s\t%s\t%.3f s\t%s\n", name, err ? "refused" : "loaded", secs, line);
	net_ringbuf__destroy(s);
	return err != 0;
}

int main(int argc, char **argv)
{
	int failed = 0;
	for (int i = 1; i < argc; i++)
		failed |= load_one(argv[i]);
	return failed;
}
