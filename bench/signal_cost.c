/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What a span costs the heap: N HTTP/1 request/response pairs go through the
 * real connection tracker (features/network/l7/l7_conn.c), and every heap
 * call made meanwhile is counted, as are the bytes enav_signal_new zeroes.
 * The figures are in docs/adr/0013-lean-signal.md.  The linker's --wrap does
 * the counting; the same command builds it in a checkout of an older tree:
 *
 *   clang -std=gnu17 -O2 -D_GNU_SOURCE -Iinclude -Isrc bench/signal_cost.c \
 *     $(find src/features/network/l7 src/model src/platform -name '*.c') \
 *     src/features/network/ipname_cache.c \
 *     $(pkg-config --libs libmicrohttpd libcurl jansson libnghttp2) -lpthread -lm -lz \
 *     -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=memset,--wrap=enav_signal_new \
 *     -o /tmp/signal_cost && /tmp/signal_cost
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/signal.h"
#include "features/network/l7/l7_conn.h"

#define SPANS 100000

static bool counting, in_signal_new;
static uint64_t heap_calls, heap_bytes, signals, signal_bytes_zeroed;

void *__real_malloc(size_t n);
void *__real_calloc(size_t m, size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_memset(void *p, int c, size_t n);
struct enav_signal *__real_enav_signal_new(enum enav_signal_kind kind, uint32_t tail_len);

void *__wrap_malloc(size_t n)
{
	if (counting) {
		heap_calls++;
		heap_bytes += n;
	}
	return __real_malloc(n);
}

void *__wrap_calloc(size_t m, size_t n)
{
	if (counting) {
		heap_calls++;
		heap_bytes += m * n;
		if (in_signal_new)
			signal_bytes_zeroed += m * n;
	}
	return __real_calloc(m, n);
}

void *__wrap_realloc(void *p, size_t n)
{
	if (counting) {
		heap_calls++;
		heap_bytes += n;
	}
	return __real_realloc(p, n);
}

void *__wrap_memset(void *p, int c, size_t n)
{
	if (counting && in_signal_new)
		signal_bytes_zeroed += n;
	return __real_memset(p, c, n);
}

struct enav_signal *__wrap_enav_signal_new(enum enav_signal_kind kind, uint32_t tail_len)
{
	signals += counting;
	in_signal_new = true;
	struct enav_signal *s = __real_enav_signal_new(kind, tail_len);
	in_signal_new = false;
	return s;
}

static void drop(void *ctx, struct enav_signal *s)
{
	(void)ctx;
	enav_signal_unref(s);
}

static void feed(struct enav_l7_tracker *t, bool sent, const char *data, uint32_t seq, uint64_t ts)
{
	uint32_t len = (uint32_t)strlen(data);
	struct enav_l7_event e = {
	    .hdr = {.type = ENAV_EVENT_L7_DATA,
		    .abi_version = ENAV_ABI_VERSION,
		    .boot_time_ns = ts,
		    .pid = 100,
		    .tid = 100,
		    .cgroup_id = 7},
	    .sock_id = 1,
	    .len = len,
	    .captured = len,
	    .seq = seq,
	    .direction = sent ? ENAV_L7_SENT : ENAV_L7_RECEIVED,
	    .protocol = ENAV_L7_HTTP1,
	    .role = ENAV_ROLE_CLIENT,
	    .flags = ENAV_L7_SEQ_VALID,
	    .family = 2,
	    .sport = 40000,
	    .dport = 80,
	    .saddr = {127, 0, 0, 1},
	    .daddr = {127, 0, 0, 1},
	    .comm = "client",
	};
	enav_l7_tracker_data(t, &e, (const uint8_t *)data);
}

int main(void)
{
	static const char req[] = "GET /users/42 HTTP/1.1\r\nHost: x\r\n\r\n";
	static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n";
	struct enav_l7_tracker_config cfg = {
	    .max_connections = 16,
	    .idle_timeout_ms = 1000,
	    .protocols = 1u << ENAV_L7_HTTP1,
	    .options = {.max_pending = 8},
	};
	struct enav_l7_tracker *t = enav_l7_tracker_new(&cfg, drop, NULL);
	if (!t)
		return 1;
	/* The connection is set up by the first pair, outside the count. */
	uint32_t rq = sizeof(req) - 1, rs = sizeof(resp) - 1;
	feed(t, true, req, 5000, 1000);
	feed(t, false, resp, 9000, 1100);
	counting = true;
	for (uint32_t i = 1; i <= SPANS; i++) {
		feed(t, true, req, 5000 + i * rq, 1000 + i * 1000ull);
		feed(t, false, resp, 9000 + i * rs, 1100 + i * 1000ull);
	}
	counting = false;
	enav_l7_tracker_free(t);

	printf("sizeof(struct enav_signal)   %zu\n", sizeof(struct enav_signal));
#ifdef ENAV_SIGNAL_HEADER_SIZE
	printf("signal header                %zu\n", (size_t)ENAV_SIGNAL_HEADER_SIZE);
	for (int k = 1; k < ENAV_SIGNAL__COUNT; k++)
		printf("  %-20s %zu + tail\n", enav_signal_kind_name(k), enav_signal_size(k, 0));
#endif
	printf("spans                        %d\n", SPANS);
	printf("signals allocated per span   %.2f\n", (double)signals / SPANS);
	printf("heap calls per span          %.2f\n", (double)heap_calls / SPANS);
	printf("heap bytes per span          %.1f\n", (double)heap_bytes / SPANS);
	printf("signal bytes zeroed per span %.1f\n", (double)signal_bytes_zeroed / SPANS);
	return signals == SPANS ? 0 : 1;
}
