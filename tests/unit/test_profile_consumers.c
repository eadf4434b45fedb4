/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The host's profile consumers (src/runtime/profile_consumers.c): what the
 * profiling source and the pprof pull publish reaches every registered row,
 * in registration order, and nothing else; the routes a row adds reach the
 * HTTP listener; and the module table keeps the pull after the rows it
 * feeds and the pprof routes before the listener.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/profiles.h"
#include "runtime/runner.h"

struct seen {
	char log[256]; /* "name:event;" per call, in order */
	struct enav_profile_store *store;
	const struct enav_profile_service *svc;
	uint64_t to_mono;
	uint32_t kinds;
	size_t pulled_len;
};

static struct seen g_seen;

struct consumer {
	const char *name;
};

static void note(const struct consumer *c, const char *event)
{
	size_t n = strlen(g_seen.log);
	snprintf(g_seen.log + n, sizeof(g_seen.log) - n, "%s:%s;", c->name, event);
}

static void on_interval(void *ctx, struct enav_profile_store *s,
			const struct enav_profile_service *svc,
			const struct enav_profile_interval *iv)
{
	note(ctx, "interval");
	g_seen.store = s;
	g_seen.svc = svc;
	g_seen.to_mono = iv->to_mono_ns;
	g_seen.kinds = iv->kinds;
}

static void on_pulled(void *ctx, const struct enav_pulled_profile *p)
{
	note(ctx, "pulled");
	g_seen.pulled_len = p->len;
}

static void release_nothing(struct enav_profile_store *s)
{
	(void)s;
}

static const struct enav_profile_service fake_service = {.release = release_nothing};

static struct enav_host *new_host(void)
{
	static struct enav_config cfg;
	enav_config_defaults(&cfg);
	struct enav_host *h = enav_host_new(&cfg);
	assert_non_null(h);
	memset(&g_seen, 0, sizeof(g_seen));
	return h;
}

static void test_no_store_no_interval(void **unused)
{
	(void)unused;
	struct enav_host *h = new_host();
	struct consumer a = {"a"};
	char err[128] = "";
	assert_int_equal(
	    enav_host_consume_profiles(
		h, &(struct enav_profile_consumer){on_interval, on_pulled, &a}, err, sizeof(err)),
	    0);
	/* The profiling source publishes only after providing its store; a
	 * host without one hands nothing over. */
	enav_host_publish_interval(h, &(struct enav_profile_interval){.to_mono_ns = 5});
	assert_string_equal(g_seen.log, "");
	/* A pulled profile needs no store. */
	enav_host_publish_pulled(h, &(struct enav_pulled_profile){.kind = "cpu", .len = 3});
	assert_string_equal(g_seen.log, "a:pulled;");
	assert_int_equal(g_seen.pulled_len, 3);
	enav_host_free(h);
}

static void test_every_consumer_in_order(void **unused)
{
	(void)unused;
	struct enav_host *h = new_host();
	struct enav_profile_store *store = (struct enav_profile_store *)&g_seen; /* opaque */
	assert_int_equal(enav_host_provide_profiles(h, store, &fake_service), 0);
	struct consumer spool = {"spool"}, pyro = {"pyro"};
	char err[128] = "";
	assert_int_equal(enav_host_consume_profiles(
			     h, &(struct enav_profile_consumer){on_interval, on_pulled, &spool},
			     err, sizeof(err)),
			 0);
	/* A consumer of intervals alone: no pulled callback. */
	assert_int_equal(
	    enav_host_consume_profiles(h, &(struct enav_profile_consumer){on_interval, NULL, &pyro},
				       err, sizeof(err)),
	    0);
	enav_host_publish_interval(
	    h, &(struct enav_profile_interval){.to_mono_ns = 42, .kinds = 1u << ENAV_PROFILE_CPU});
	assert_string_equal(g_seen.log, "spool:interval;pyro:interval;");
	assert_ptr_equal(g_seen.store, store);
	assert_ptr_equal(g_seen.svc, &fake_service);
	assert_int_equal(g_seen.to_mono, 42);
	assert_int_equal(g_seen.kinds, 1u << ENAV_PROFILE_CPU);

	g_seen.log[0] = '\0';
	enav_host_publish_pulled(h, &(struct enav_pulled_profile){.kind = "cpu"});
	assert_string_equal(g_seen.log, "spool:pulled;");

	/* A row's fini takes its consumer out; the other stays. */
	g_seen.log[0] = '\0';
	enav_host_unconsume_profiles(h, &spool);
	enav_host_publish_interval(h, &(struct enav_profile_interval){.to_mono_ns = 43});
	assert_string_equal(g_seen.log, "pyro:interval;");
	enav_host_free(h);
}

static void test_bounded(void **unused)
{
	(void)unused;
	struct enav_host *h = new_host();
	struct consumer c[ENAV_MAX_PROFILE_CONSUMERS + 1];
	char err[128] = "";
	for (int i = 0; i < ENAV_MAX_PROFILE_CONSUMERS; i++) {
		c[i].name = "c";
		assert_int_equal(enav_host_consume_profiles(
				     h, &(struct enav_profile_consumer){on_interval, NULL, &c[i]},
				     err, sizeof(err)),
				 0);
	}
	assert_int_equal(
	    enav_host_consume_profiles(
		h,
		&(struct enav_profile_consumer){on_interval, NULL, &c[ENAV_MAX_PROFILE_CONSUMERS]},
		err, sizeof(err)),
	    -ENOSPC);
	assert_non_null(strstr(err, "rows consume profiles"));
	enav_host_free(h);
}

static size_t row_index(const char *name)
{
	for (size_t i = 0; i < enav_modules_count; i++)
		if (!strcmp(enav_modules[i].name, name))
			return i;
	fail_msg("no row %s", name);
	return 0;
}

/* Sinks stop in reverse table order: the pull (it publishes) before the
 * spool and Pyroscope (they consume); all three are sinks, so they stop
 * after the profiling source and before the runner frees the store. */
static void test_pull_stops_before_its_consumers(void **unused)
{
	(void)unused;
	size_t pull = row_index("pprof_pull");
	assert_true(pull > row_index("profile_spool"));
	assert_true(pull > row_index("pyroscope"));
	const char *rows[] = {"pprof_pull", "profile_spool", "pyroscope"};
	for (size_t i = 0; i < 3; i++) {
		const struct enav_module *m = &enav_modules[row_index(rows[i])];
		assert_int_equal(m->kind, ENAV_MODULE_SINK);
		assert_null(m->sink->submit); /* no signal reaches them */
	}
}

static void no_handler(void *ctx, const struct enav_http_request *req, struct enav_http_response *r)
{
	(void)ctx;
	(void)req;
	(void)r;
}

static void test_routes_reach_the_listener(void **unused)
{
	(void)unused;
	struct enav_host *h = new_host();
	const struct enav_http_route two[] = {{"/a", no_handler, NULL, .long_running = true},
					      {"/b", no_handler, NULL, .long_running = false}};
	char err[128] = "";
	assert_int_equal(enav_host_add_http_routes(h, two, 2, err, sizeof(err)), 0);
	struct enav_http_route out[ENAV_HTTP_MAX_ROUTES];
	assert_int_equal(enav_host_http_routes(h, out, ENAV_HTTP_MAX_ROUTES), 2);
	assert_string_equal(out[0].path, "/a");
	assert_true(out[0].long_running);
	assert_string_equal(out[1].path, "/b");
	/* The listener's own routes come first: it asks for what fits. */
	assert_int_equal(enav_host_http_routes(h, out, 1), 1);
	struct enav_http_route many[ENAV_MAX_HOST_ROUTES] = {{0}};
	assert_int_equal(
	    enav_host_add_http_routes(h, many, ENAV_MAX_HOST_ROUTES - 1, err, sizeof(err)),
	    -ENOSPC);
	assert_non_null(strstr(err, "routes added for the HTTP listener"));
	enav_host_free(h);
}

/* Sinks start in table order and stop in reverse: the routes are added
 * before the listener mounts them, and outlive it. */
static void test_routes_before_the_listener(void **unused)
{
	(void)unused;
	assert_true(row_index("pprof_http") < row_index("http"));
	const struct enav_module *m = &enav_modules[row_index("pprof_http")];
	assert_int_equal(m->kind, ENAV_MODULE_SINK);
	assert_null(m->sink->submit);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_store_no_interval),
	    cmocka_unit_test(test_every_consumer_in_order),
	    cmocka_unit_test(test_bounded),
	    cmocka_unit_test(test_pull_stops_before_its_consumers),
	    cmocka_unit_test(test_routes_reach_the_listener),
	    cmocka_unit_test(test_routes_before_the_listener),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
