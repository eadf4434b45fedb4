/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit tests for how the Pyroscope exporter (src/exporters/pyroscope/
 * pyroscope.c) takes the server's answer, against an in-process fake
 * server (libmicrohttpd on 127.0.0.1, an ephemeral port) that answers each
 * push from a script: the answer's body never reaches the agent's stdout;
 * a refusal is logged with its status and the body's first line, printable
 * and bounded; 503 is retried and 200 counts as sent; a pulled profile is
 * pushed under its own name.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exporters/pyroscope/pyroscope.h"
#include "platform/clock.h"
#include "platform/promtext.h"
#include "runtime/profiles.h"

struct reply {
	unsigned status;
	const char *body;
};

static struct {
	struct MHD_Daemon *d;
	char url[64];
	struct reply script[4];
	size_t n_script, n_requests;
	char name[256], units[32]; /* of the last push */
} srv;

static int g_upload; /* a non-NULL marker for a request being read */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	if (!*con_cls) {
		*con_cls = &g_upload;
		return MHD_YES;
	}
	if (*upload_size) { /* the pprof: read and dropped */
		*upload_size = 0;
		return MHD_YES;
	}
	const char *name = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "name");
	const char *units = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "units");
	snprintf(srv.name, sizeof(srv.name), "%s", name ? name : "");
	snprintf(srv.units, sizeof(srv.units), "%s", units ? units : "");
	size_t i = srv.n_requests++;
	struct reply r = i < srv.n_script ? srv.script[i] : (struct reply){200, "ok\n"};
	struct MHD_Response *resp =
	    MHD_create_response_from_buffer(strlen(r.body), (void *)r.body, MHD_RESPMEM_MUST_COPY);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, "Connection", "close");
	enum MHD_Result ret = MHD_queue_response(c, r.status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static int srv_start(void **state)
{
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};

	memset(&srv, 0, sizeof(srv));
	inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
	srv.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0, NULL, NULL,
				 on_request, NULL, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
				 MHD_OPTION_END);
	if (!srv.d)
		return -1;
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(srv.d, MHD_DAEMON_INFO_BIND_PORT);
	if (!info || !info->port)
		return -1;
	snprintf(srv.url, sizeof(srv.url), "http://127.0.0.1:%u", info->port);
	return 0;
}

static int srv_stop(void **state)
{
	MHD_stop_daemon(srv.d);
	return 0;
}

static bool no_workload(struct enav_profile_store *s, uint32_t tgid,
			struct enav_profile_workload *out)
{
	return false;
}

static const char *kind_name(enum enav_profile_kind k)
{
	return "cpu";
}

static const struct enav_profile_service service = {.workload = no_workload,
						    .kind_name = kind_name};

/* The whole content of fd (a file rewound to its start), NUL-terminated. */
static char *slurp(int fd)
{
	static char buf[65536];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* Push one pulled profile and stop, with our stdout and stderr in files;
 * what each received is in *out and *err (static buffers, one call at a
 * time), the exporter's metrics in metrics. */
static void push_one(char **out, char **err, char *metrics, size_t cap)
{
	char out_path[] = "/tmp/test_pyroscope_out.XXXXXX",
	     err_path[] = "/tmp/test_pyroscope_err.XXXXXX";
	int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
	assert_true(out_fd >= 0 && err_fd >= 0);
	unlink(out_path);
	unlink(err_path);
	fflush(stdout);
	fflush(stderr);
	int saved_out = dup(1), saved_err = dup(2);
	assert_true(saved_out >= 0 && saved_err >= 0);
	assert_true(dup2(out_fd, 1) == 1 && dup2(err_fd, 2) == 2);

	struct enav_pyroscope *p =
	    enav_pyroscope_start(&(struct enav_pyroscope_config){.url = srv.url,
								 .app_name = "enavtest",
								 .timeout_ms = 5000,
								 .queue_capacity = 4,
								 .max_retries = 3,
								 .frequency_hz = 99});
	uint8_t *body = malloc(4);
	memcpy(body, "\x0a\x02\x08\x01", 4);
	if (p) {
		enav_pyroscope_push_pprof(p, NULL, &service, "pulled_cpu", "samples", 4242, "prog",
					  1000000000ull, 2000000000ull, body, 4);
		/* Up to 3 retries with backoff from 200 ms: well inside 10 s. */
		uint64_t deadline = enav_clock_mono_ns() + 10000000000ull;
		struct enav_promtext pt;
		enav_promtext_init(&pt, metrics, cap);
		/* stop sends what is queued first; the metrics need p alive, so
		 * wait for the answer to be counted, then read them, then stop. */
		for (int i = 0; i < 1000; i++) {
			pt.len = 0;
			enav_pyroscope_metrics(p, &pt);
			metrics[pt.len < cap ? pt.len : cap - 1] = '\0';
			if (!strstr(metrics, "enav_pyroscope_queue_depth 1") &&
			    (strstr(metrics, "enav_pyroscope_pushes_total 1") ||
			     strstr(metrics, "reason=\"rejected_4xx\"} 1")))
				break;
			usleep(10000);
		}
		enav_pyroscope_stop(p, deadline);
	} else {
		free(body);
	}

	fflush(stdout);
	fflush(stderr);
	assert_true(dup2(saved_out, 1) == 1 && dup2(saved_err, 2) == 2);
	close(saved_out);
	close(saved_err);
	assert_non_null(p);
	static char out_buf[65536];
	snprintf(out_buf, sizeof(out_buf), "%s", slurp(out_fd));
	*out = out_buf;
	*err = slurp(err_fd);
	close(out_fd);
	close(err_fd);
}

static void test_refusal_logged_not_printed(void **state)
{
	static char metrics[16384];
	char *out, *err;

	srv.script[0] = (struct reply){400, "bad \x1b[31mred\x1b[0m \"profile\"\r\nsecond line\n"};
	srv.n_script = 1;
	push_one(&out, &err, metrics, sizeof(metrics));
	/* libcurl writes a body nobody takes to stdout. */
	assert_string_equal(out, "");
	assert_non_null(strstr(err, "push refused with HTTP 400; dropped (answer: \"bad "
				    "?[31mred?[0m ?profile?\")"));
	assert_null(strstr(err, "second line"));
	assert_int_equal(srv.n_requests, 1);
	assert_non_null(strstr(metrics, "enav_pyroscope_dropped_total{reason=\"rejected_4xx\"} 1"));
	assert_non_null(strstr(metrics, "enav_pyroscope_last_status 400"));
}

static void test_retried_then_sent_nothing_printed(void **state)
{
	static char metrics[16384];
	char *out, *err;

	srv.script[0] = (struct reply){503, "try again\n"};
	srv.n_script = 1;
	push_one(&out, &err, metrics, sizeof(metrics));
	assert_string_equal(out, "");
	assert_int_equal(srv.n_requests, 2);
	/* A pulled profile goes under its own name and units, not the
	 * eBPF CPU profile's. */
	assert_string_equal(srv.name, "enavtest.pulled_cpu{pid=4242,comm=prog}");
	assert_string_equal(srv.units, "samples");
	assert_non_null(strstr(metrics, "enav_pyroscope_pushes_total 1"));
	assert_non_null(strstr(metrics, "enav_pyroscope_retries_total 1"));
	assert_non_null(strstr(metrics, "enav_pyroscope_last_status 200"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_refusal_logged_not_printed, srv_start, srv_stop),
	    cmocka_unit_test_setup_teardown(test_retried_then_sent_nothing_printed, srv_start,
					    srv_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
