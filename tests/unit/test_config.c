/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for the YAML configuration loader (src/config/config.c). */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/config.h"
#include "config/config_rules.h"

#define ROOT_KEYS                                                                                  \
	"log_level, transport, hooks, shutdown_timeout_ms, drop_capabilities, kernel, sources, "   \
	"profiling, "                                                                              \
	"security, attribution, generators, http, exporters, capture, discovery, kubernetes, host"
#define K8S_KEYS                                                                                   \
	"enabled, api_server, kubeconfig, token_file, ca_file, node_name, keep_labels, max_pods, " \
	"max_services, max_endpointslices, request_timeout_ms"
#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount/"

/* Parse text that must succeed; out starts from the defaults. */
static void parse_ok(const char *yaml, struct enav_config *out)
{
	char err[512] = "";
	int rc;

	enav_config_defaults(out);
	rc = enav_config_parse(out, yaml, strlen(yaml), err, sizeof(err));
	if (rc != 0)
		fail_msg("unexpected error for [%s]: %s", yaml, err);
}

/*
 * Parse bytes that must fail with exactly the error line want, leaving the
 * config untouched.
 */
static void parse_err_n(const char *yaml, size_t len, const char *want)
{
	struct enav_config cfg, before;
	char err[512];

	memset(err, 'Z', sizeof(err));
	enav_config_defaults(&cfg);
	before = cfg;
	assert_int_equal(enav_config_parse(&cfg, yaml, len, err, sizeof(err)), -1);
	assert_string_equal(err, want);
	assert_null(strchr(err, '\n'));
	assert_memory_equal(&cfg, &before, sizeof(cfg));
}

static void parse_err(const char *yaml, const char *want)
{
	parse_err_n(yaml, strlen(yaml), want);
}

/* Parse text that must succeed over whatever c already holds. */
static void reparse_ok(struct enav_config *c, const char *yaml)
{
	char err[512] = "";

	if (enav_config_parse(c, yaml, strlen(yaml), err, sizeof(err)) != 0)
		fail_msg("unexpected error for [%s]: %s", yaml, err);
}

static void expect_defaults(const struct enav_config *c)
{
	assert_int_equal(c->log_level, ENAV_LOG_INFO);
	assert_int_equal(c->transport, ENAV_TRANSPORT_AUTO);
	assert_int_equal(c->hooks, ENAV_HOOKS_AUTO);
	assert_int_equal(c->shutdown_timeout_ms, 1500);
	assert_int_equal(c->kernel.ring_buffer_bytes, 4194304);
	assert_int_equal(c->kernel.perf_buffer_pages, 128);
	assert_int_equal(c->kernel.wakeup_bytes, 0);
	assert_int_equal(c->kernel.poll_interval_ms, 50);
	assert_int_equal(c->kernel.cgroup_verdict_entries, 16384);
	assert_true(c->exec.enabled);
	assert_int_equal(c->exec.argv_max_bytes, 256);
	assert_int_equal(c->attribution.cgroup_cache_entries, 4096);
	assert_int_equal(c->attribution.process_table_entries, 16384);
	assert_string_equal(c->attribution.cgroup2_mount, "");
	assert_true(c->generators.process_metrics);
	assert_true(c->ndjson.enabled);
	assert_string_equal(c->ndjson.path, "-");
	assert_int_equal(c->ndjson.queue_capacity, 8192);
	assert_int_equal(c->ndjson.max_line_bytes, 16384);
	assert_int_equal(c->ndjson.rate_limit.spans_per_second, 100);
	assert_int_equal(c->ndjson.rate_limit.other_kinds_per_second, 1000);
	assert_true(c->http.enabled);
	assert_string_equal(c->http.listen, "127.0.0.1:9464");
	assert_int_equal(c->http.max_connections, 16);
	assert_string_equal(c->http.health_listen, "127.0.0.1:9465");
	assert_int_equal(c->http.max_connections_per_client, 8);
	assert_int_equal(c->http.idle_timeout_s, 10);
	assert_int_equal(c->http.request_timeout_s, 30);
	assert_int_equal(c->http.max_profile_requests, 2);
	assert_string_equal(c->http.bearer_token_file, "");
	assert_int_equal(c->capture.mode, ENAV_CAPTURE_POLICY_ALL);
	assert_int_equal(c->capture.selectors.n, 0);
	assert_true(c->discovery.inotify);
	assert_int_equal(c->discovery.max_watches, 8192);
	assert_int_equal(c->discovery.rescan_interval_ms, 2000);
	assert_int_equal(c->discovery.max_cgroups, 16384);
	assert_int_equal(c->kubernetes.enabled, ENAV_K8S_AUTO);
	assert_string_equal(c->kubernetes.api_server, "");
	assert_string_equal(c->kubernetes.kubeconfig, "");
	assert_string_equal(c->kubernetes.token_file, SA_DIR "token");
	assert_string_equal(c->kubernetes.ca_file, SA_DIR "ca.crt");
	assert_string_equal(c->kubernetes.node_name, "");
	assert_int_equal(c->kubernetes.keep_labels.n, 0);
	assert_int_equal(c->kubernetes.max_pods, 2048);
	assert_int_equal(c->kubernetes.max_services, 4096);
	assert_int_equal(c->kubernetes.max_endpointslices, 8192);
	assert_int_equal(c->kubernetes.request_timeout_ms, 10000);
}

static char tmpdir[] = "/tmp/enav-test-config-XXXXXX";

static int group_setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Write len bytes (a repeated fill byte when data is NULL) to a temp file. */
static void write_file(char *path, size_t pathlen, const char *name, const char *data, size_t len)
{
	FILE *f;

	snprintf(path, pathlen, "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	if (data) {
		assert_int_equal(fwrite(data, 1, len, f), len);
	} else {
		for (size_t i = 0; i < len; i++)
			fputc(i % 64 == 63 ? '\n' : '#', f);
	}
	assert_int_equal(fclose(f), 0);
}

/* ---- defaults and successful parses ---------------------------------------- */

static void test_defaults(void **state)
{
	struct enav_config c;
	char err[256] = "x";

	memset(&c, 0xa5, sizeof(c));
	enav_config_defaults(&c);
	expect_defaults(&c);
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

static void test_empty_inputs_give_defaults(void **state)
{
	static const char *const inputs[] = {
	    "",	      "# only a comment\n", "# a\n\n   \n# b\n", "---\n", "--- ~\n",
	    "null\n", "---\n...\n",
	};
	struct enav_config c;
	char err[64];

	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		parse_ok(inputs[i], &c);
		expect_defaults(&c);
	}
	enav_config_defaults(&c);
	assert_int_equal(enav_config_parse(&c, NULL, 0, err, sizeof(err)), 0);
	expect_defaults(&c);
}

static void test_full_file_sets_every_field(void **state)
{
	static const char yaml[] = "log_level: debug\n"
				   "transport: perf\n"
				   "hooks: tracepoint\n"
				   "shutdown_timeout_ms: 100\n"
				   "kernel:\n"
				   "  ring_buffer_bytes: 268435456\n"
				   "  perf_buffer_pages: 4096\n"
				   "  wakeup_bytes: 1048576\n"
				   "  poll_interval_ms: 1000\n"
				   "  cgroup_verdict_entries: 64\n"
				   "sources:\n"
				   "  exec:\n"
				   "    enabled: false\n"
				   "    argv_max_bytes: 4096\n"
				   "attribution:\n"
				   "  cgroup_cache_entries: 16\n"
				   "  process_table_entries: 1048576\n"
				   "  cgroup2_mount: /sys/fs/cgroup\n"
				   "generators:\n"
				   "  process_metrics:\n"
				   "    enabled: false\n"
				   "exporters:\n"
				   "  ndjson:\n"
				   "    enabled: false\n"
				   "    path: \"/var/log/enav events.ndjson\"\n"
				   "    queue_capacity: 16\n"
				   "    max_line_bytes: 65536\n"
				   "http:\n"
				   "  enabled: false\n"
				   "  listen: 0.0.0.0:65535\n"
				   "  max_connections: 1024\n"
				   "capture:\n"
				   "  mode: allowlist\n"
				   "  selectors:\n"
				   "    - cgroup:/kubepods.slice/*\n"
				   "    - runtime:containerd\n"
				   "    - namespace:prod\n"
				   "    - pod:prod/web-*\n"
				   "    - label:app.kubernetes.io/name=web\n"
				   "    - service:prod/frontend\n"
				   "discovery:\n"
				   "  inotify: false\n"
				   "  max_watches: 65536\n"
				   "  rescan_interval_ms: 60000\n"
				   "  max_cgroups: 1048576\n"
				   "kubernetes:\n"
				   "  enabled: true\n"
				   "  api_server: https://10.96.0.1:443\n"
				   "  kubeconfig: /etc/enav/kubeconfig\n"
				   "  token_file: /etc/enav/token\n"
				   "  ca_file: /etc/enav/ca.crt\n"
				   "  node_name: node-1.example\n"
				   "  keep_labels:\n"
				   "  - app\n"
				   "  - app.kubernetes.io/name\n"
				   "  max_pods: 65536\n"
				   "  max_services: 16\n"
				   "  max_endpointslices: 65536\n"
				   "  request_timeout_ms: 120000\n";
	struct enav_config c;

	parse_ok(yaml, &c);
	assert_int_equal(c.log_level, ENAV_LOG_DEBUG);
	assert_int_equal(c.transport, ENAV_TRANSPORT_PERF);
	assert_int_equal(c.hooks, ENAV_HOOKS_TRACEPOINT);
	assert_int_equal(c.shutdown_timeout_ms, 100);
	assert_int_equal(c.kernel.ring_buffer_bytes, 268435456);
	assert_int_equal(c.kernel.perf_buffer_pages, 4096);
	assert_int_equal(c.kernel.wakeup_bytes, 1048576);
	assert_int_equal(c.kernel.poll_interval_ms, 1000);
	assert_int_equal(c.kernel.cgroup_verdict_entries, 64);
	assert_false(c.exec.enabled);
	assert_int_equal(c.exec.argv_max_bytes, 4096);
	assert_int_equal(c.attribution.cgroup_cache_entries, 16);
	assert_int_equal(c.attribution.process_table_entries, 1048576);
	assert_string_equal(c.attribution.cgroup2_mount, "/sys/fs/cgroup");
	assert_false(c.generators.process_metrics);
	assert_false(c.ndjson.enabled);
	assert_string_equal(c.ndjson.path, "/var/log/enav events.ndjson");
	assert_int_equal(c.ndjson.queue_capacity, 16);
	assert_int_equal(c.ndjson.max_line_bytes, 65536);
	assert_false(c.http.enabled);
	assert_string_equal(c.http.listen, "0.0.0.0:65535");
	assert_int_equal(c.http.max_connections, 1024);
	assert_int_equal(c.capture.mode, ENAV_CAPTURE_POLICY_ALLOWLIST);
	assert_int_equal(c.capture.selectors.n, 6);
	assert_string_equal(c.capture.selectors.item[0], "cgroup:/kubepods.slice/*");
	assert_string_equal(c.capture.selectors.item[1], "runtime:containerd");
	assert_string_equal(c.capture.selectors.item[2], "namespace:prod");
	assert_string_equal(c.capture.selectors.item[3], "pod:prod/web-*");
	assert_string_equal(c.capture.selectors.item[4], "label:app.kubernetes.io/name=web");
	assert_string_equal(c.capture.selectors.item[5], "service:prod/frontend");
	assert_false(c.discovery.inotify);
	assert_int_equal(c.discovery.max_watches, 65536);
	assert_int_equal(c.discovery.rescan_interval_ms, 60000);
	assert_int_equal(c.discovery.max_cgroups, 1048576);
	assert_int_equal(c.kubernetes.enabled, ENAV_K8S_ON);
	assert_string_equal(c.kubernetes.api_server, "https://10.96.0.1:443");
	assert_string_equal(c.kubernetes.kubeconfig, "/etc/enav/kubeconfig");
	assert_string_equal(c.kubernetes.token_file, "/etc/enav/token");
	assert_string_equal(c.kubernetes.ca_file, "/etc/enav/ca.crt");
	assert_string_equal(c.kubernetes.node_name, "node-1.example");
	assert_int_equal(c.kubernetes.keep_labels.n, 2);
	assert_string_equal(c.kubernetes.keep_labels.item[0], "app");
	assert_string_equal(c.kubernetes.keep_labels.item[1], "app.kubernetes.io/name");
	assert_int_equal(c.kubernetes.max_pods, 65536);
	assert_int_equal(c.kubernetes.max_services, 16);
	assert_int_equal(c.kubernetes.max_endpointslices, 65536);
	assert_int_equal(c.kubernetes.request_timeout_ms, 120000);
	assert_int_equal(enav_config_validate(&c, NULL, 0), 0);
}

static void test_flow_style_and_lower_bounds(void **state)
{
	struct enav_config c;

	parse_ok(
	    "{log_level: error, transport: ringbuf, hooks: fexit, shutdown_timeout_ms: 10000,"
	    " kernel: {ring_buffer_bytes: 65536, perf_buffer_pages: 8, wakeup_bytes: 0,"
	    " poll_interval_ms: 1, cgroup_verdict_entries: 1048576},"
	    " sources: {exec: {argv_max_bytes: 16}},"
	    " attribution: {cgroup_cache_entries: 1048576, process_table_entries: 16},"
	    " exporters: {ndjson: {queue_capacity: 1048576, max_line_bytes: 1024}},"
	    " http: {max_connections: 1, listen: '10.0.0.1:1'},"
	    " capture: {mode: denylist, selectors: ['namespace:kube-system', \"runtime:crio\"]},"
	    " discovery: {inotify: true, max_watches: 16, rescan_interval_ms: 100,"
	    " max_cgroups: 64},"
	    " kubernetes: {enabled: false, keep_labels: [team], max_pods: 16,"
	    " max_services: 65536, max_endpointslices: 16, request_timeout_ms: 100}}",
	    &c);
	assert_int_equal(c.log_level, ENAV_LOG_ERROR);
	assert_int_equal(c.transport, ENAV_TRANSPORT_RINGBUF);
	assert_int_equal(c.hooks, ENAV_HOOKS_FEXIT);
	assert_int_equal(c.shutdown_timeout_ms, 10000);
	assert_int_equal(c.kernel.ring_buffer_bytes, 65536);
	assert_int_equal(c.kernel.perf_buffer_pages, 8);
	assert_int_equal(c.kernel.wakeup_bytes, 0);
	assert_int_equal(c.kernel.poll_interval_ms, 1);
	assert_int_equal(c.kernel.cgroup_verdict_entries, 1048576);
	assert_int_equal(c.exec.argv_max_bytes, 16);
	assert_int_equal(c.attribution.cgroup_cache_entries, 1048576);
	assert_int_equal(c.attribution.process_table_entries, 16);
	assert_int_equal(c.ndjson.queue_capacity, 1048576);
	assert_int_equal(c.ndjson.max_line_bytes, 1024);
	assert_int_equal(c.http.max_connections, 1);
	assert_string_equal(c.http.listen, "10.0.0.1:1");
	assert_int_equal(c.capture.mode, ENAV_CAPTURE_POLICY_DENYLIST);
	assert_int_equal(c.capture.selectors.n, 2);
	assert_string_equal(c.capture.selectors.item[0], "namespace:kube-system");
	assert_string_equal(c.capture.selectors.item[1], "runtime:crio");
	assert_true(c.discovery.inotify);
	assert_int_equal(c.discovery.max_watches, 16);
	assert_int_equal(c.discovery.rescan_interval_ms, 100);
	assert_int_equal(c.discovery.max_cgroups, 64);
	assert_int_equal(c.kubernetes.enabled, ENAV_K8S_OFF);
	assert_int_equal(c.kubernetes.keep_labels.n, 1);
	assert_string_equal(c.kubernetes.keep_labels.item[0], "team");
	assert_int_equal(c.kubernetes.max_pods, 16);
	assert_int_equal(c.kubernetes.max_services, 65536);
	assert_int_equal(c.kubernetes.max_endpointslices, 16);
	assert_int_equal(c.kubernetes.request_timeout_ms, 100);
}

static void test_partial_and_null_sections_keep_defaults(void **state)
{
	struct enav_config c;

	parse_ok("kernel:\n  poll_interval_ms: 7\nsources:\n  exec:\nhttp: ~\ngenerators: {}\n"
		 "capture:\ndiscovery: {}\nkubernetes: ~\n",
		 &c);
	assert_int_equal(c.kernel.poll_interval_ms, 7);
	c.kernel.poll_interval_ms = 50;
	expect_defaults(&c);
}

static void test_parse_overlays_existing_values(void **state)
{
	struct enav_config c;
	char err[128];

	enav_config_defaults(&c);
	c.kernel.poll_interval_ms = 9;
	assert_int_equal(enav_config_parse(&c, "log_level: warn\n", 16, err, sizeof(err)), 0);
	assert_int_equal(c.log_level, ENAV_LOG_WARN);
	assert_int_equal(c.kernel.poll_interval_ms, 9);
}

static void test_example_file_is_all_defaults(void **state)
{
	/* __FILE__ is relative to the repo root (or absolute): find config/ from it. */
	static const char me[] = __FILE__, suffix[] = "tests/unit/test_config.c";
	size_t pre = strlen(me) - strlen(suffix);
	char path[512], err[512] = "";
	struct enav_config c, d;

	assert_string_equal(me + pre, suffix);
	snprintf(path, sizeof(path), "%.*sconfig/enav.example.yaml", (int)pre, me);
	enav_config_defaults(&c);
	if (enav_config_load(&c, path, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	enav_config_defaults(&d);
	/* The file names every key; only which keys were set may differ. */
	memset(c.explicit_keys, 0, sizeof(c.explicit_keys));
	assert_memory_equal(&c, &d, sizeof(c));
}

/* Every exporter under exporters.<name>. */
static void test_exporter_keys(void **state)
{
	(void)state;
	struct enav_config c;
	char note[256];

	parse_ok("exporters:\n"
		 "  ndjson: {path: /tmp/e.ndjson, queue_capacity: 32}\n"
		 "  prometheus: {enabled: false}\n"
		 "  otlp: {endpoint: http://127.0.0.1:4318, timeout_ms: 200,\n"
		 "         traces: {enabled: false}}\n"
		 "  pyroscope: {url: http://127.0.0.1:4040, max_retries: 0}\n",
		 &c);
	assert_string_equal(c.ndjson.path, "/tmp/e.ndjson");
	assert_int_equal(c.ndjson.queue_capacity, 32);
	assert_false(c.prometheus.enabled);
	assert_true(c.http.enabled); /* the listener still serves health and pprof */
	assert_string_equal(c.otlp.endpoint, "http://127.0.0.1:4318");
	assert_int_equal(c.otlp.timeout_ms, 200);
	assert_false(c.otlp.traces.enabled);
	assert_string_equal(c.profiling.pyroscope_url, "http://127.0.0.1:4040");
	assert_int_equal(c.profiling.pyroscope_retries, 0);
	assert_int_equal(c.deprecated_used, 0);
	for (size_t r = 0; r < ENAV_CONFIG_RENAMES; r++)
		assert_false(enav_config_deprecation(&c, r, note, sizeof(note)));
	enav_config_defaults(&c);
	assert_true(c.prometheus.enabled);
}

/* The old spellings still work, each noted once as deprecated. */
static void test_deprecated_exporter_keys(void **state)
{
	(void)state;
	struct enav_config c;
	char note[256];

	parse_ok("sinks: {ndjson: {path: /tmp/old.ndjson}}\n"
		 "otlp: {endpoint: http://127.0.0.1:4318, metrics: {timeout_ms: 300}}\n"
		 "profiling: {pyroscope: {url: http://127.0.0.1:4040, app_name: old}}\n",
		 &c);
	assert_string_equal(c.ndjson.path, "/tmp/old.ndjson");
	assert_string_equal(c.otlp.endpoint, "http://127.0.0.1:4318");
	assert_int_equal(c.otlp.metrics.timeout_ms, 300);
	assert_string_equal(c.profiling.pyroscope_url, "http://127.0.0.1:4040");
	assert_string_equal(c.profiling.pyroscope_app, "old");
	assert_true(enav_config_deprecation(&c, 0, note, sizeof(note)));
	assert_string_equal(note, "config: sinks.ndjson is deprecated; write exporters.ndjson "
				  "instead (docs/configuration.md, \"Deprecated keys\")");
	assert_true(enav_config_deprecation(&c, 1, note, sizeof(note)));
	assert_string_equal(note, "config: otlp is deprecated; write exporters.otlp instead "
				  "(docs/configuration.md, \"Deprecated keys\")");
	assert_true(enav_config_deprecation(&c, 2, note, sizeof(note)));
	assert_string_equal(note, "config: profiling.pyroscope is deprecated; write "
				  "exporters.pyroscope instead (docs/configuration.md, "
				  "\"Deprecated keys\")");
	assert_false(enav_config_deprecation(&c, ENAV_CONFIG_RENAMES, note, sizeof(note)));

	/* Only the key used is noted; an explicitly set old key counts as set. */
	parse_ok("otlp: {endpoint: http://h:1}\n", &c);
	assert_int_equal(c.deprecated_used, 1u << 1);
	parse_ok("sinks: {ndjson: {enabled: true}}\n", &c);
	assert_true(enav_config_explicitly_on(&c, "exporters.ndjson.enabled"));
	/* Errors inside an old section name the key's new place. */
	parse_err("otlp: {timeout_ms: 5}",
		  "exporters.otlp.timeout_ms: 5 is out of range (allowed 100..120000)");
}

/* Old and new spelling of one key together: an error naming both. */
static void test_deprecated_and_new_key_both_set(void **state)
{
	(void)state;
	parse_err("otlp: {endpoint: http://a:1}\nexporters: {otlp: {timeout_ms: 500}}\n",
		  "otlp and exporters.otlp are both set: otlp is the deprecated name of "
		  "exporters.otlp; keep exporters.otlp only");
	parse_err("exporters: {ndjson: {path: /a}}\nsinks: {ndjson: {path: /b}}\n",
		  "sinks.ndjson and exporters.ndjson are both set: sinks.ndjson is the deprecated "
		  "name of exporters.ndjson; keep exporters.ndjson only");
	parse_err("profiling: {pyroscope: {url: http://a:1}}\n"
		  "exporters: {pyroscope: {url: http://b:1}}\n",
		  "profiling.pyroscope and exporters.pyroscope are both set: profiling.pyroscope "
		  "is the deprecated name of exporters.pyroscope; keep exporters.pyroscope only");
	/* The same spelling twice is still a plain duplicate. */
	parse_err("otlp: {}\notlp: {}\n", "exporters.otlp: duplicate key");
}

/* "Asked for by name": set to true in the file, not merely true by default. */
static void test_explicitly_on(void **state)
{
	(void)state;
	struct enav_config c;
	char err[256];
	static const char y[] = "sources:\n  network:\n    tls:\n      enabled: true\n"
				"    l7:\n      enabled: false\n";
	enav_config_defaults(&c);
	assert_false(enav_config_explicitly_on(&c, "sources.network.tls.enabled"));
	assert_int_equal(enav_config_parse(&c, y, sizeof(y) - 1, err, sizeof(err)), 0);
	assert_true(enav_config_explicitly_on(&c, "sources.network.tls.enabled"));
	assert_false(enav_config_explicitly_on(&c, "sources.network.l7.enabled")); /* false */
	assert_false(enav_config_explicitly_on(&c, "sources.network.enabled"));	   /* default */
	assert_false(enav_config_explicitly_on(&c, "no.such.key"));
	assert_false(enav_config_explicitly_on(&c, "sources.network.tls.max_binaries"));
}

static void test_input_is_bounded_by_len(void **state)
{
	/* An exact-size heap copy with no NUL: any over-read trips ASan. */
	static const char text[] = "log_level: debugXXXX";
	size_t len = strlen("log_level: debug");
	char *buf = malloc(len);
	struct enav_config c;
	char err[128];

	assert_non_null(buf);
	memcpy(buf, text, len);
	enav_config_defaults(&c);
	assert_int_equal(enav_config_parse(&c, buf, len, err, sizeof(err)), 0);
	assert_int_equal(c.log_level, ENAV_LOG_DEBUG);
	free(buf);
}

/* ---- keys ------------------------------------------------------------------- */

static void test_unknown_keys(void **state)
{
	parse_err("sources:\n  exec:\n    foo: 1\n",
		  "sources.exec.foo: unknown key (allowed: enabled, argv_max_bytes, hook)");
	parse_err("colour: blue\n", "colour: unknown key (allowed: " ROOT_KEYS ")");
	parse_err("kernel: {ringbuffer_bytes: 65536}",
		  "kernel.ringbuffer_bytes: unknown key (allowed: ring_buffer_bytes, "
		  "perf_buffer_pages, wakeup_bytes, poll_interval_ms, cgroup_verdict_entries)");
	parse_err("generators: {process_metrics: {interval: 5}}",
		  "generators.process_metrics.interval: unknown key (allowed: enabled)");
	parse_err("exporters: {stdout: {}}",
		  "exporters.stdout: unknown key (allowed: ndjson, prometheus, otlp, pyroscope)");
	parse_err("sinks: {stdout: {}}", "sinks.stdout: unknown key (allowed: ndjson)");
	parse_err("capture: {selector: []}",
		  "capture.selector: unknown key (allowed: mode, selectors)");
	parse_err("discovery: {fanotify: true}",
		  "discovery.fanotify: unknown key (allowed: inotify, max_watches, "
		  "rescan_interval_ms, max_cgroups)");
	parse_err("kubernetes:\n  apiserver: https://x\n",
		  "kubernetes.apiserver: unknown key (allowed: " K8S_KEYS ")");
	/* Keys are case-sensitive. */
	parse_err("HTTP: {}", "HTTP: unknown key (allowed: " ROOT_KEYS ")");
}

static void test_unknown_key_names_are_shown_safely(void **state)
{
	parse_err("\"a\\tb\\nc\": 1\n", "\"a\\x09b\\x0ac\": unknown key (allowed: " ROOT_KEYS ")");
	parse_err("\"\": 1\n", "\"\": unknown key (allowed: " ROOT_KEYS ")");
	parse_err(
	    "http: {'say \"hi\"': 1}",
	    "http.\"say \\\"hi\\\"\": unknown key (allowed: enabled, listen, max_connections, "
	    "health_listen, max_connections_per_client, idle_timeout_s, request_timeout_s, "
	    "max_profile_requests, bearer_token_file)");
	parse_err("kernel.poll_interval_ms: 5\n",
		  "kernel.poll_interval_ms: unknown key (allowed: " ROOT_KEYS
		  "); write dotted keys as nested mappings");
	/* Merge keys are just an unknown key here. */
	parse_err("<<: {}\n", "\"<<\": unknown key (allowed: " ROOT_KEYS ")");
}

static void test_duplicate_keys(void **state)
{
	parse_err("http:\n  enabled: true\n  enabled: false\n", "http.enabled: duplicate key");
	parse_err("kernel: {}\nlog_level: info\nkernel: {}\n", "kernel: duplicate key");
	parse_err("transport: auto\ntransport: auto\n", "transport: duplicate key");
	parse_err("capture:\n  selectors: []\n  selectors: ['runtime:crio']\n",
		  "capture.selectors: duplicate key");
	parse_err("kubernetes: {keep_labels: [a], max_pods: 16, keep_labels: [b]}",
		  "kubernetes.keep_labels: duplicate key");
}

static void test_non_scalar_keys(void **state)
{
	parse_err("? [a, b]\n: 1\n", "config: keys must be plain strings, got a sequence");
	parse_err("kernel: {{a: 1}: 2}", "kernel: keys must be plain strings, got a mapping");
}

/* ---- types -------------------------------------------------------------------- */

static void test_booleans_are_true_or_false_only(void **state)
{
	static const char *const bad[] = {"yes", "no", "on", "off", "True", "FALSE", "1", "0", "y"};
	char yaml[64], want[160];
	struct enav_config c;

	parse_err("http: {enabled: yes please}",
		  "http.enabled: expected a boolean (true or false), got \"yes please\"");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(yaml, sizeof(yaml), "sources: {exec: {enabled: %s}}", bad[i]);
		snprintf(want, sizeof(want),
			 "sources.exec.enabled: expected a boolean (true or false), got \"%s\"",
			 bad[i]);
		parse_err(yaml, want);
	}
	parse_err(
	    "http: {enabled: \"true\"}",
	    "http.enabled: expected a boolean (true or false), got the quoted string \"true\"");
	parse_err("http:\n  enabled: |\n    true\n",
		  "http.enabled: expected a boolean (true or false), got the block string "
		  "\"true\\x0a\"");
	parse_err("http: {enabled: }",
		  "http.enabled: expected a boolean (true or false), got no value");
	parse_ok("http: {enabled: false}", &c);
	assert_false(c.http.enabled);
}

static void test_mapping_where_scalar_expected_and_vice_versa(void **state)
{
	parse_err("http:\n  enabled:\n    really: true\n",
		  "http.enabled: expected a boolean (true or false), got a mapping");
	parse_err("shutdown_timeout_ms: [1, 2]",
		  "shutdown_timeout_ms: expected an unsigned decimal integer in 100..10000, got a "
		  "sequence");
	parse_err("transport: {x: 1}",
		  "transport: expected one of auto, ringbuf, perf, got a mapping");
	parse_err("exporters: {ndjson: {path: [a]}}",
		  "exporters.ndjson.path: expected a string, got a sequence");
	parse_err("kernel: 5\n", "kernel: expected a mapping, got \"5\"");
	parse_err("sources: {exec: on}", "sources.exec: expected a mapping, got \"on\"");
	parse_err("http: [enabled]", "http: expected a mapping, got a sequence");
	parse_err("kernel: ''", "kernel: expected a mapping, got the quoted string \"\"");
}

static void test_top_level_must_be_a_mapping(void **state)
{
	parse_err("hello\n", "config: expected a mapping at the top level, got \"hello\"");
	parse_err("- a\n- b\n", "config: expected a mapping at the top level, got a sequence");
	parse_err("'quoted'", "config: expected a mapping at the top level, got the quoted string "
			      "\"quoted\"");
}

static void test_one_document_only(void **state)
{
	parse_err("log_level: info\n---\nlog_level: debug\n",
		  "config: only one YAML document is allowed");
	parse_err("---\n---\n", "config: only one YAML document is allowed");
}

/* ---- integers -------------------------------------------------------------------- */

static void test_integer_syntax_is_strict(void **state)
{
	static const char *const bad[] = {"-5",	 "+5",	 "0x10",  "010", "00", "1_000",
					  "1e3", "5.0",	 "12abc", "5 6", ".5", "0o17",
					  "inf", "five", "1,000", "٣"};
	char yaml[96], want[192];
	struct enav_config c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(yaml, sizeof(yaml), "kernel:\n  poll_interval_ms: %s\n", bad[i]);
		snprintf(
		    want, sizeof(want),
		    "kernel.poll_interval_ms: expected an unsigned decimal integer in 1..1000, "
		    "got \"%s\"",
		    bad[i]);
		parse_err(yaml, want);
	}
	parse_err("kernel: {poll_interval_ms: '5'}",
		  "kernel.poll_interval_ms: expected an unsigned decimal integer in 1..1000, got "
		  "the quoted string \"5\"");
	parse_err(
	    "kernel: {poll_interval_ms: ~}",
	    "kernel.poll_interval_ms: expected an unsigned decimal integer in 1..1000, got no "
	    "value");
	parse_ok("kernel: {wakeup_bytes: 0}", &c);
	assert_int_equal(c.kernel.wakeup_bytes, 0);
}

static void test_integer_range(void **state)
{
	parse_err("sources: {exec: {argv_max_bytes: 99999}}",
		  "sources.exec.argv_max_bytes: 99999 is out of range (allowed 16..4096)");
	parse_err("sources: {exec: {argv_max_bytes: 15}}",
		  "sources.exec.argv_max_bytes: 15 is out of range (allowed 16..4096)");
	parse_err("shutdown_timeout_ms: 0",
		  "shutdown_timeout_ms: 0 is out of range (allowed 100..10000)");
	parse_err("kernel: {wakeup_bytes: 1048577}",
		  "kernel.wakeup_bytes: 1048577 is out of range (allowed 0..1048576)");
	parse_err("http: {max_connections: 1025}",
		  "http.max_connections: 1025 is out of range (allowed 1..1024)");
	parse_err("exporters: {ndjson: {max_line_bytes: 1023}}",
		  "exporters.ndjson.max_line_bytes: 1023 is out of range (allowed 1024..65536)");
}

/* The listener's keys (ADR 0018): health_listen may be "" (none) but is
 * otherwise an address; the token file is an absolute path; the caps are
 * bounded. */
static void test_listener_keys(void **state)
{
	struct enav_config c;

	(void)state;
	parse_ok("http: {health_listen: '', bearer_token_file: /etc/enav/token/token,"
		 " max_connections_per_client: 1, idle_timeout_s: 600, max_profile_requests: 64}",
		 &c);
	assert_string_equal(c.http.health_listen, "");
	assert_string_equal(c.http.bearer_token_file, "/etc/enav/token/token");
	assert_int_equal(c.http.max_connections_per_client, 1);
	assert_int_equal(c.http.idle_timeout_s, 600);
	assert_int_equal(c.http.max_profile_requests, 64);
	parse_ok("http: {health_listen: '0.0.0.0:9465'}", &c);
	assert_string_equal(c.http.health_listen, "0.0.0.0:9465");
	parse_err("http: {health_listen: '9465'}",
		  "http.health_listen: \"9465\" is not a valid listen address (allowed: \"\" for "
		  "none, or IPv4:port with port 1..65535, e.g. 127.0.0.1:9465)");
	parse_err("http: {health_listen: 'localhost:9465'}",
		  "http.health_listen: \"localhost:9465\" is not a valid listen address (allowed: "
		  "\"\" for none, or IPv4:port with port 1..65535, e.g. 127.0.0.1:9465)");
	parse_err(
	    "http: {bearer_token_file: token}",
	    "http.bearer_token_file: \"token\" is not an absolute path (a glob pattern may be "
	    "used; no \"..\")");
	parse_err("http: {max_connections_per_client: 0}",
		  "http.max_connections_per_client: 0 is out of range (allowed 1..1024)");
	parse_err("http: {idle_timeout_s: 0}",
		  "http.idle_timeout_s: 0 is out of range (allowed 1..600)");
	parse_err("http: {request_timeout_s: 3601}",
		  "http.request_timeout_s: 3601 is out of range (allowed 1..3600)");
	parse_err("http: {max_profile_requests: 65}",
		  "http.max_profile_requests: 65 is out of range (allowed 1..64)");
}

/* NDJSON's rate limit (ADR 0015): 0 is no limit, the bound keeps the bucket
 * arithmetic in 64 bits, and validate holds a value set in code to it too. */
static void test_ndjson_rate_limit(void **state)
{
	struct enav_config c;
	char err[512];

	(void)state;
	parse_ok("exporters: {ndjson: {rate_limit: {spans_per_second: 0}}}", &c);
	assert_int_equal(c.ndjson.rate_limit.spans_per_second, 0);
	assert_int_equal(c.ndjson.rate_limit.other_kinds_per_second, 1000);
	parse_ok("exporters:\n"
		 "  ndjson:\n"
		 "    rate_limit:\n"
		 "      spans_per_second: 1000000\n"
		 "      other_kinds_per_second: 0\n",
		 &c);
	assert_int_equal(c.ndjson.rate_limit.spans_per_second, 1000000);
	assert_int_equal(c.ndjson.rate_limit.other_kinds_per_second, 0);
	parse_err("exporters: {ndjson: {rate_limit: {spans_per_second: 1000001}}}",
		  "exporters.ndjson.rate_limit.spans_per_second: 1000001 is out of range (allowed "
		  "0..1000000)");
	parse_err(
	    "exporters: {ndjson: {rate_limit: {other_kinds_per_second: -1}}}",
	    "exporters.ndjson.rate_limit.other_kinds_per_second: expected an unsigned decimal "
	    "integer in 0..1000000, got \"-1\"");
	parse_err("exporters: {ndjson: {rate_limit: {span: 5}}}",
		  "exporters.ndjson.rate_limit.span: unknown key (allowed: spans_per_second, "
		  "other_kinds_per_second)");
	parse_err("exporters: {ndjson: {rate_limit: 100}}",
		  "exporters.ndjson.rate_limit: expected a mapping, got \"100\"");

	enav_config_defaults(&c);
	c.ndjson.rate_limit.other_kinds_per_second = 4000000;
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "exporters.ndjson.rate_limit.other_kinds_per_second: 4000000 is "
				 "out of range (allowed 0..1000000)");
}

static void test_integer_overflow(void **state)
{
	/* 2^32 + 1 would become 1 if truncated to 32 bits before the range check. */
	parse_err("kernel: {poll_interval_ms: 4294967297}",
		  "kernel.poll_interval_ms: 4294967297 is out of range (allowed 1..1000)");
	parse_err(
	    "kernel: {poll_interval_ms: 18446744073709551615}",
	    "kernel.poll_interval_ms: 18446744073709551615 is out of range (allowed 1..1000)");
	parse_err(
	    "kernel: {poll_interval_ms: 18446744073709551616}",
	    "kernel.poll_interval_ms: 18446744073709551616 is out of range (allowed 1..1000)");
	parse_err("kernel: {poll_interval_ms: 99999999999999999999999999999999999}",
		  "kernel.poll_interval_ms: 99999999999999999999999999999999999 is out of range "
		  "(allowed 1..1000)");
}

/* The protocols list takes the names the kernel can classify, and its error
 * lists them from the protocol table (src/model/protocols.c). */
static void test_l7_protocol_names(void **state)
{
	struct enav_config c;

	(void)state;
	parse_ok("sources: {network: {l7: {protocols: [http1, postgresql, mongodb, nats]}}}", &c);
	assert_int_equal(c.network.l7.protocols.n, 4);
	parse_err(
	    "sources: {network: {l7: {protocols: [websocket]}}}",
	    "sources.network.l7.protocols[0]: \"websocket\" is not a protocol (allowed: http1, "
	    "http2, redis, postgresql, mysql, kafka, mongodb, nats)");
	parse_err(
	    "sources: {network: {l7: {protocols: [redis, memcached]}}}",
	    "sources.network.l7.protocols[1]: \"memcached\" is not a protocol (allowed: http1, "
	    "http2, redis, postgresql, mysql, kafka, mongodb, nats)");
}

static void test_power_of_two(void **state)
{
	struct enav_config c;

	parse_err("kernel: {ring_buffer_bytes: 100000}",
		  "kernel.ring_buffer_bytes: 100000 is not a power of two (allowed powers of two "
		  "in 65536..268435456)");
	parse_err("kernel: {perf_buffer_pages: 100}",
		  "kernel.perf_buffer_pages: 100 is not a power of two (allowed powers of two in "
		  "8..4096)");
	/* Range is reported before the power-of-two rule. */
	parse_err("kernel: {ring_buffer_bytes: 1024}",
		  "kernel.ring_buffer_bytes: 1024 is out of range (allowed 65536..268435456)");
	parse_err("kernel: {perf_buffer_pages: x}",
		  "kernel.perf_buffer_pages: expected a power of two in 8..4096, got \"x\"");
	parse_ok("kernel: {ring_buffer_bytes: 131072, perf_buffer_pages: 64}", &c);
	assert_int_equal(c.kernel.ring_buffer_bytes, 131072);
	assert_int_equal(c.kernel.perf_buffer_pages, 64);
}

/* ---- enums and strings ------------------------------------------------------------ */

static void test_enums(void **state)
{
	struct enav_config c;

	parse_err("transport: udp",
		  "transport: \"udp\" is not allowed (allowed: auto, ringbuf, perf)");
	parse_err("hooks: kprobe",
		  "hooks: \"kprobe\" is not allowed (allowed: auto, fexit, tracepoint)");
	parse_err("log_level: INFO",
		  "log_level: \"INFO\" is not allowed (allowed: error, warn, info, debug)");
	parse_err("log_level: ''",
		  "log_level: \"\" is not allowed (allowed: error, warn, info, debug)");
	parse_err("transport:\n", "transport: expected one of auto, ringbuf, perf, got no value");
	/* Quoting an enum value is fine: it is a string either way. */
	parse_ok("transport: 'ringbuf'\nlog_level: \"warn\"\n", &c);
	assert_int_equal(c.transport, ENAV_TRANSPORT_RINGBUF);
	assert_int_equal(c.log_level, ENAV_LOG_WARN);
}

static void test_long_values_are_cut_in_errors(void **state)
{
	char yaml[300], want[300];

	snprintf(yaml, sizeof(yaml), "transport: %0200d", 7);
	snprintf(want, sizeof(want),
		 "transport: \"%064d...\" is not allowed (allowed: auto, ringbuf, perf)", 0);
	parse_err(yaml, want);
}

static void test_string_lengths(void **state)
{
	char yaml[600], want[160];
	struct enav_config c;

	snprintf(yaml, sizeof(yaml), "exporters: {ndjson: {path: /%0254d}}", 0);
	parse_ok(yaml, &c);
	assert_int_equal(strlen(c.ndjson.path), 255);
	snprintf(yaml, sizeof(yaml), "attribution: {cgroup2_mount: /%0255d}", 0);
	parse_err(yaml,
		  "attribution.cgroup2_mount: string is too long (256 bytes, allowed at most 255)");
	snprintf(yaml, sizeof(yaml), "http: {listen: '1.2.3.4:%060d'}", 80);
	snprintf(want, sizeof(want),
		 "http.listen: string is too long (68 bytes, allowed at most 63)");
	parse_err(yaml, want);
	parse_err("exporters: {ndjson: {path: ''}}",
		  "exporters.ndjson.path: string is empty (allowed length 1..255 bytes)");
}

static void test_empty_and_nul_strings(void **state)
{
	struct enav_config c;

	parse_ok("attribution: {cgroup2_mount: /mnt/cg}\n", &c);
	assert_string_equal(c.attribution.cgroup2_mount, "/mnt/cg");
	parse_ok("attribution: {cgroup2_mount: ''}\n", &c);
	assert_string_equal(c.attribution.cgroup2_mount, "");
	parse_err("attribution: {cgroup2_mount: }\n",
		  "attribution.cgroup2_mount: expected a string, got no value (write \"\" for an "
		  "empty string)");
	parse_err("exporters: {ndjson: {path: null}}",
		  "exporters.ndjson.path: expected a string, got no value");
	parse_err("exporters: {ndjson: {path: \"a\\0b\"}}",
		  "exporters.ndjson.path: must not contain a NUL byte");
}

static void test_http_listen(void **state)
{
	static const char *const bad[] = {
	    "localhost:80",  "127.0.0.1",   "127.0.0.1:",   ":80",	     "127.0.0.1:0",
	    "1.2.3.4:65536", "1.2.3.4:+80", "1.2.3.4:080",  "1.2.3.4:8 0",   "[::1]:80",
	    "::1:80",	     "1.2.3:80",    "256.1.1.1:80", "1.2.3.4:80:90", " 1.2.3.4:80",
	};
	char yaml[128], want[256];
	struct enav_config c;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(yaml, sizeof(yaml), "http: {listen: '%s'}", bad[i]);
		snprintf(want, sizeof(want),
			 "http.listen: \"%s\" is not a valid listen address (allowed: IPv4:port "
			 "with port 1..65535, e.g. 127.0.0.1:9464)",
			 bad[i]);
		parse_err(yaml, want);
	}
	parse_ok("http:\n  listen: 0.0.0.0:8080\n", &c);
	assert_string_equal(c.http.listen, "0.0.0.0:8080");
}

/* ---- YAML features that are refused ------------------------------------------------ */

static void test_anchors_and_aliases_rejected(void **state)
{
	parse_err("log_level: &lvl info\ntransport: auto\n",
		  "log_level: YAML aliases and anchors are not allowed");
	parse_err("transport: *lvl\n", "transport: YAML aliases and anchors are not allowed");
	parse_err("kernel: &k {poll_interval_ms: 5}\n",
		  "kernel: YAML aliases and anchors are not allowed");
	parse_err("--- &root\nlog_level: info\n",
		  "config: YAML aliases and anchors are not allowed");
	parse_err("http: {&k enabled: true}", "http: YAML aliases and anchors are not allowed");
	/* The billion-laughs shape fails at the first anchor without expanding. */
	parse_err("log_level: &a [x, x]\ntransport: &b [*a, *a, *a]\nhooks: [*b, *b, *b]\n",
		  "log_level: YAML aliases and anchors are not allowed");
}

static void test_tags_rejected(void **state)
{
	parse_err("http: {enabled: !!bool true}",
		  "http.enabled: YAML tags are not allowed (got \"!!bool\")");
	parse_err("log_level: !custom info\n",
		  "log_level: YAML tags are not allowed (got \"!custom\")");
	parse_err("--- !!map\nlog_level: info\n",
		  "config: YAML tags are not allowed (got \"!!map\")");
	parse_err("sinks: !!map {}\n", "sinks: YAML tags are not allowed (got \"!!map\")");
}

static void test_deep_nesting_is_cheap_and_rejected(void **state)
{
	size_t n = 100000;
	char *buf = malloc(n + 16);

	assert_non_null(buf);
	memset(buf, '[', n);
	parse_err_n(buf, n, "config: expected a mapping at the top level, got a sequence");
	memset(buf, '{', n);
	parse_err_n(buf, n, "config: keys must be plain strings, got a mapping");
	memcpy(buf, "kernel: ", 8);
	for (size_t i = 8; i + 4 <= n; i += 4)
		memcpy(buf + i, "{a: ", 4);
	parse_err_n(buf, n,
		    "kernel.a: unknown key (allowed: ring_buffer_bytes, perf_buffer_pages, "
		    "wakeup_bytes, poll_interval_ms, cgroup_verdict_entries)");
	free(buf);
}

static void test_yaml_syntax_errors_have_line_numbers(void **state)
{
	parse_err("log_level: debug\ntransport: auto\nhooks: auto: x\n",
		  "config: YAML syntax error at line 3: mapping values are not allowed in this "
		  "context");
	parse_err("log_level: debug\nkernel:\n  poll_interval_ms: 5\n wakeup_bytes: 2\n",
		  "config: YAML syntax error at line 4: did not find expected key (while parsing a "
		  "block mapping)");
	parse_err("log_level: debug\ntransport: \"auto\n",
		  "config: YAML syntax error at line 3: found unexpected end of stream (while "
		  "scanning a quoted scalar)");
	/* Reader errors carry a byte offset; the line is counted from it. */
	parse_err("log_level: debug\n\ntransport: \"\xc3\"\n",
		  "config: YAML syntax error at line 3: invalid trailing UTF-8 octet");
	parse_err_n("log_level: debug\ntransport: a\0b\n", 32,
		    "config: YAML syntax error at line 2: control characters are not allowed");
}

/* ---- error reporting ---------------------------------------------------------------- */

static void test_error_buffer_handling(void **state)
{
	struct enav_config c;
	char small[8];

	enav_config_defaults(&c);
	assert_int_equal(enav_config_parse(&c, "transport: udp", 14, small, sizeof(small)), -1);
	assert_string_equal(small, "transpo");
	assert_int_equal(enav_config_parse(&c, "transport: udp", 14, NULL, 0), -1);
	assert_int_equal(enav_config_load(&c, "/nonexistent-enav/x.yaml", NULL, 0), -1);
	assert_int_equal(c.transport, ENAV_TRANSPORT_AUTO);
}

static void test_input_size_cap(void **state)
{
	size_t n = ENAV_CONFIG_FILE_MAX + 1;
	char *buf = calloc(1, n);

	assert_non_null(buf);
	memset(buf, '#', n);
	parse_err_n(buf, n, "config: input is larger than 1048576 bytes");
	free(buf);
}

/* ---- files ------------------------------------------------------------------------ */

static void test_load_file(void **state)
{
	static const char yaml[] = "log_level: warn\nhttp:\n  listen: 127.0.0.1:1\n";
	char path[512], err[256];
	struct enav_config c;

	write_file(path, sizeof(path), "ok.yaml", yaml, strlen(yaml));
	enav_config_defaults(&c);
	assert_int_equal(enav_config_load(&c, path, err, sizeof(err)), 0);
	assert_int_equal(c.log_level, ENAV_LOG_WARN);
	assert_string_equal(c.http.listen, "127.0.0.1:1");

	write_file(path, sizeof(path), "bad.yaml", "transport: udp\n", 15);
	assert_int_equal(enav_config_load(&c, path, err, sizeof(err)), -1);
	assert_string_equal(err,
			    "transport: \"udp\" is not allowed (allowed: auto, ringbuf, perf)");
	assert_int_equal(c.log_level, ENAV_LOG_WARN);

	write_file(path, sizeof(path), "empty.yaml", "", 0);
	enav_config_defaults(&c);
	assert_int_equal(enav_config_load(&c, path, err, sizeof(err)), 0);
	expect_defaults(&c);
}

static void test_load_unreadable(void **state)
{
	struct enav_config c;
	char err[256];

	enav_config_defaults(&c);
	assert_int_equal(enav_config_load(&c, "/nonexistent-enav/x.yaml", err, sizeof(err)), -1);
	assert_string_equal(
	    err, "config: cannot read /nonexistent-enav/x.yaml: No such file or directory");
	assert_int_equal(enav_config_load(&c, tmpdir, err, sizeof(err)), -1);
	assert_true(strncmp(err, "config: cannot read ", 20) == 0);
	assert_non_null(strstr(err, ": Is a directory"));
	assert_int_equal(enav_config_load(&c, "/nonexistent-enav/a\nb", err, sizeof(err)), -1);
	assert_string_equal(
	    err, "config: cannot read /nonexistent-enav/a\\x0ab: No such file or directory");
	expect_defaults(&c);
}

static void test_load_size_cap(void **state)
{
	char path[512], want[600], err[600];
	struct enav_config c;

	enav_config_defaults(&c);
	write_file(path, sizeof(path), "max.yaml", NULL, ENAV_CONFIG_FILE_MAX);
	assert_int_equal(enav_config_load(&c, path, err, sizeof(err)), 0);
	write_file(path, sizeof(path), "big.yaml", NULL, ENAV_CONFIG_FILE_MAX + 1);
	assert_int_equal(enav_config_load(&c, path, err, sizeof(err)), -1);
	snprintf(want, sizeof(want), "config: %s is larger than 1048576 bytes", path);
	assert_string_equal(err, want);
}

/* ---- helpers ---------------------------------------------------------------------- */

static void test_listen_split(void **state)
{
	static const char *const bad[] = {
	    "", "127.0.0.1", ":1", "1.2.3.4:0", "1.2.3.4:65536", "host:80", "1.2.3.4:x"};
	char host[16];
	uint16_t port = 0;

	assert_int_equal(enav_config_listen_split("127.0.0.1:9464", host, sizeof(host), &port), 0);
	assert_string_equal(host, "127.0.0.1");
	assert_int_equal(port, 9464);
	assert_int_equal(
	    enav_config_listen_split("255.255.255.255:65535", host, sizeof(host), &port), 0);
	assert_string_equal(host, "255.255.255.255");
	assert_int_equal(port, 65535);
	assert_int_equal(enav_config_listen_split("10.0.0.1:1", NULL, 0, NULL), 0);
	/* A host buffer too small is an error, not a truncation. */
	assert_int_equal(enav_config_listen_split("127.0.0.1:80", host, 9, &port), -1);
	assert_int_equal(enav_config_listen_split(NULL, host, sizeof(host), &port), -1);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(enav_config_listen_split(bad[i], host, sizeof(host), &port), -1);
}

static void test_choice_names(void **state)
{
	assert_string_equal(enav_transport_choice_name(ENAV_TRANSPORT_AUTO), "auto");
	assert_string_equal(enav_transport_choice_name(ENAV_TRANSPORT_RINGBUF), "ringbuf");
	assert_string_equal(enav_transport_choice_name(ENAV_TRANSPORT_PERF), "perf");
	assert_string_equal(enav_transport_choice_name((enum enav_transport_choice)3), "unknown");
	assert_string_equal(enav_hook_choice_name(ENAV_HOOKS_AUTO), "auto");
	assert_string_equal(enav_hook_choice_name(ENAV_HOOKS_FEXIT), "fexit");
	assert_string_equal(enav_hook_choice_name(ENAV_HOOKS_TRACEPOINT), "tracepoint");
	assert_string_equal(enav_hook_choice_name((enum enav_hook_choice) - 1), "unknown");
	assert_string_equal(enav_log_level_name(ENAV_LOG_ERROR), "error");
	assert_string_equal(enav_log_level_name(ENAV_LOG_DEBUG), "debug");
	assert_string_equal(enav_log_level_name((enum enav_log_level)4), "unknown");
}

static void test_validate_in_memory_config(void **state)
{
	struct enav_config c;
	char err[256];

	enav_config_defaults(&c);
	c.kernel.ring_buffer_bytes = 100000;
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "kernel.ring_buffer_bytes: 100000 is not a power of two (allowed "
				 "powers of two in 65536..268435456)");

	enav_config_defaults(&c);
	c.http.max_connections = 0;
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "http.max_connections: 0 is out of range (allowed 1..1024)");

	enav_config_defaults(&c);
	c.transport = (enum enav_transport_choice)7;
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err,
			    "transport: value 7 is not allowed (allowed: auto, ringbuf, perf)");

	enav_config_defaults(&c);
	strcpy(c.http.listen, "nope");
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "http.listen: \"nope\" is not a valid listen address (allowed: "
				 "IPv4:port with port 1..65535, e.g. 127.0.0.1:9464)");

	enav_config_defaults(&c);
	c.ndjson.path[0] = '\0';
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err,
			    "exporters.ndjson.path: string is empty (allowed length 1..255 bytes)");

	enav_config_defaults(&c);
	memset(c.attribution.cgroup2_mount, 'a', sizeof(c.attribution.cgroup2_mount));
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "attribution.cgroup2_mount: string is not terminated");
}

/* ---- lists ---------------------------------------------------------------------- */

/* Build "key: [e, e, ...]" (flow) or the "- e" form (block) with n copies of e. */
static char *list_yaml(const char *section, const char *key, const char *entry, size_t n,
		       bool block)
{
	size_t cap = 64 + n * (strlen(entry) + 16), o = 0;
	char *buf = malloc(cap);

	assert_non_null(buf);
	o += (size_t)snprintf(buf + o, cap - o, "%s:\n  %s:%s", section, key, block ? "\n" : " [");
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(buf + o, cap - o, block ? "    - '%s'\n" : "%s'%s'",
				      block ? entry : (i ? ", " : ""), entry);
	if (!block)
		snprintf(buf + o, cap - o, "]\n");
	return buf;
}

static void test_list_block_and_flow_styles(void **state)
{
	static const char block[] = "capture:\n"
				    "  selectors:\n"
				    "    - namespace:prod\n"
				    "    - 'label:app=web'\n"
				    "    - \"runtime:docker\"\n"
				    "kubernetes:\n"
				    "  keep_labels:\n"
				    "  - app\n"
				    "  - 123\n"
				    "  - true\n";
	static const char flow[] = "capture: {selectors: [namespace:prod, 'label:app=web',\n"
				   "  \"runtime:docker\"]}\n"
				   "kubernetes:\n"
				   "  keep_labels: [app, 123, true]\n";
	struct enav_config a, b;

	parse_ok(block, &a);
	parse_ok(flow, &b);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(a.capture.selectors.n, 3);
	assert_string_equal(a.capture.selectors.item[0], "namespace:prod");
	assert_string_equal(a.capture.selectors.item[1], "label:app=web");
	assert_string_equal(a.capture.selectors.item[2], "runtime:docker");
	/* Plain scalars in a list are strings, whatever YAML 1.1 would make of them. */
	assert_int_equal(a.kubernetes.keep_labels.n, 3);
	assert_string_equal(a.kubernetes.keep_labels.item[0], "app");
	assert_string_equal(a.kubernetes.keep_labels.item[1], "123");
	assert_string_equal(a.kubernetes.keep_labels.item[2], "true");
}

static void test_list_empty_and_replaced(void **state)
{
	struct enav_config c, d;

	parse_ok("capture: {selectors: []}\nkubernetes:\n  keep_labels: []\n", &c);
	expect_defaults(&c);
	enav_config_defaults(&d);
	assert_memory_equal(&c, &d, sizeof(c));

	/* A list in the file replaces the one already in cfg: no appending, no leftovers. */
	parse_ok("capture: {selectors: ['runtime:crio', 'runtime:docker']}", &c);
	reparse_ok(&c, "capture: {selectors: ['namespace:a']}");
	assert_int_equal(c.capture.selectors.n, 1);
	assert_string_equal(c.capture.selectors.item[0], "namespace:a");
	assert_string_equal(c.capture.selectors.item[1], "");
	reparse_ok(&c, "capture:\n  selectors: []\n");
	assert_memory_equal(&c, &d, sizeof(c));

	/* A list left out keeps what cfg had. */
	parse_ok("capture: {selectors: ['runtime:crio']}", &c);
	reparse_ok(&c, "capture: {mode: denylist}");
	assert_int_equal(c.capture.selectors.n, 1);
	assert_int_equal(c.capture.mode, ENAV_CAPTURE_POLICY_DENYLIST);
}

static void test_list_entry_count_boundary(void **state)
{
	struct enav_config c;
	char *y;

	for (int block = 0; block < 2; block++) {
		y = list_yaml("capture", "selectors", "runtime:docker", 64, block);
		parse_ok(y, &c);
		assert_int_equal(c.capture.selectors.n, 64);
		assert_string_equal(c.capture.selectors.item[63], "runtime:docker");
		assert_int_equal(enav_config_validate(&c, NULL, 0), 0);
		free(y);
		y = list_yaml("capture", "selectors", "runtime:docker", 65, block);
		parse_err(y, "capture.selectors: more than 64 entries");
		free(y);

		y = list_yaml("kubernetes", "keep_labels", "app", 64, block);
		parse_ok(y, &c);
		assert_int_equal(c.kubernetes.keep_labels.n, 64);
		free(y);
		y = list_yaml("kubernetes", "keep_labels", "app", 65, block);
		parse_err(y, "kubernetes.keep_labels: more than 64 entries");
		free(y);
	}
	/* The count is reported before anything about the 65th entry itself. */
	y = list_yaml("kubernetes", "keep_labels", "app", 64, false);
	strcpy(strrchr(y, ']'), ", {a: b}]\n");
	parse_err(y, "kubernetes.keep_labels: more than 64 entries");
	free(y);
}

static void test_list_entry_length_boundary(void **state)
{
	char yaml[700], entry[300];
	struct enav_config c;

	/* "cgroup:/" + 247 = 255 bytes: the longest entry. */
	snprintf(entry, sizeof(entry), "cgroup:/%0247d", 0);
	snprintf(yaml, sizeof(yaml), "capture: {selectors: ['%s']}", entry);
	parse_ok(yaml, &c);
	assert_int_equal(strlen(c.capture.selectors.item[0]), 255);
	assert_string_equal(c.capture.selectors.item[0], entry);
	snprintf(yaml, sizeof(yaml), "capture: {selectors: ['runtime:crio', 'cgroup:/%0248d']}", 0);
	parse_err(yaml,
		  "capture.selectors[1]: string is too long (256 bytes, allowed at most 255)");
	parse_err(
	    "capture: {selectors: [ab]}",
	    "capture.selectors[0]: string is too short (2 bytes, allowed length 3..255 bytes)");
	parse_err("capture: {selectors: ['']}",
		  "capture.selectors[0]: string is empty (allowed length 3..255 bytes)");

	/* 191-byte prefix + "/" + 63-byte name = 255 bytes. */
	memset(entry, 'p', 191);
	entry[191] = '/';
	memset(entry + 192, 'n', 63);
	entry[255] = '\0';
	snprintf(yaml, sizeof(yaml), "kubernetes: {keep_labels: [%s]}", entry);
	parse_ok(yaml, &c);
	assert_string_equal(c.kubernetes.keep_labels.item[0], entry);
	snprintf(yaml, sizeof(yaml), "kubernetes: {keep_labels: [p%s]}", entry);
	parse_err(yaml,
		  "kubernetes.keep_labels[0]: string is too long (256 bytes, allowed at most 255)");
	parse_err("kubernetes: {keep_labels: [app, \"\"]}",
		  "kubernetes.keep_labels[1]: string is empty (allowed length 1..255 bytes)");
}

static void test_list_type_errors(void **state)
{
	parse_err("capture: {selectors: \"namespace:prod\"}",
		  "capture.selectors: expected a sequence of strings, got the quoted string "
		  "\"namespace:prod\"");
	parse_err("capture:\n  selectors: namespace:prod\n",
		  "capture.selectors: expected a sequence of strings, got \"namespace:prod\"");
	parse_err("capture:\n  selectors:\n  # - namespace:prod\n",
		  "capture.selectors: expected a sequence of strings, got no value (write [] for "
		  "an empty list)");
	parse_err("kubernetes: {keep_labels: {app: x}}",
		  "kubernetes.keep_labels: expected a sequence of strings, got a mapping");
	parse_err("kubernetes: {keep_labels: [{app: x}]}",
		  "kubernetes.keep_labels[0]: expected a string, got a mapping");
	/* "kind: value" with a space is a mapping in YAML, not a selector. */
	parse_err("capture:\n  selectors:\n    - namespace: prod\n",
		  "capture.selectors[0]: expected a string, got a mapping");
	/* Nested sequences are refused at the first entry that is one. */
	parse_err("capture: {selectors: [[a]]}",
		  "capture.selectors[0]: expected a string, got a sequence");
	parse_err("kubernetes:\n  keep_labels:\n    - app\n    - - x\n      - y\n",
		  "kubernetes.keep_labels[1]: expected a string, got a sequence");
	parse_err("kubernetes: {keep_labels: [app, ~]}",
		  "kubernetes.keep_labels[1]: expected a string, got no value");
	parse_err("kubernetes:\n  keep_labels:\n    -\n",
		  "kubernetes.keep_labels[0]: expected a string, got no value");
	/* And a sequence where a scalar or section is expected. */
	parse_err("kubernetes: {node_name: [a]}",
		  "kubernetes.node_name: expected a string, got a sequence");
	parse_err("capture: {mode: [all]}",
		  "capture.mode: expected one of all, allowlist, denylist, got a sequence");
	parse_err("discovery: {inotify: []}",
		  "discovery.inotify: expected a boolean (true or false), got a sequence");
	parse_err("discovery: {max_watches: [1]}",
		  "discovery.max_watches: expected an unsigned decimal integer in 16..65536, got a "
		  "sequence");
	parse_err("kubernetes:\n  - enabled\n", "kubernetes: expected a mapping, got a sequence");
}

static void test_list_refuses_yaml_features(void **state)
{
	parse_err("capture: {selectors: &s ['runtime:crio']}",
		  "capture.selectors: YAML aliases and anchors are not allowed");
	parse_err("capture: {selectors: ['runtime:crio', &a 'runtime:docker']}",
		  "capture.selectors[1]: YAML aliases and anchors are not allowed");
	parse_err("kubernetes: {keep_labels: [app, *a]}",
		  "kubernetes.keep_labels[1]: YAML aliases and anchors are not allowed");
	parse_err("kubernetes: {keep_labels: *a}",
		  "kubernetes.keep_labels: YAML aliases and anchors are not allowed");
	parse_err("capture: {selectors: !!seq []}",
		  "capture.selectors: YAML tags are not allowed (got \"!!seq\")");
	parse_err("capture:\n  selectors:\n    - !!str runtime:crio\n",
		  "capture.selectors[0]: YAML tags are not allowed (got \"!!str\")");
	parse_err("capture: {selectors: [\"runtime:\\0crio\"]}",
		  "capture.selectors[0]: must not contain a NUL byte");
	/* A good list followed by a bad key still leaves cfg untouched. */
	parse_err("capture: {selectors: ['runtime:crio']}\nlog_level: loud\n",
		  "log_level: \"loud\" is not allowed (allowed: error, warn, info, debug)");
	parse_err("capture: {selectors: ['runtime:crio', 'runtime:rkt']}",
		  "capture.selectors[1]: \"runtime:rkt\" is not a runtime selector (allowed "
		  "runtimes: containerd, crio, docker, podman, unknown)");
}

/* ---- selectors -------------------------------------------------------------------- */

static void test_selectors_valid(void **state)
{
	static const char *const good[] = {
	    "cgroup:/",
	    "cgroup:/kubepods.slice/*",
	    "cgroup:/system.slice/docker-?*.scope",
	    "cgroup:/a b/ü/[x]:y",
	    "runtime:containerd",
	    "runtime:crio",
	    "runtime:docker",
	    "runtime:podman",
	    "runtime:unknown",
	    "namespace:prod",
	    "namespace:kube-system",
	    "namespace:a",
	    "namespace:0",
	    "namespace:team-*",
	    "namespace:*",
	    "namespace:?a*-",
	    "pod:prod/web-7d9f8c6b5-x2x4z",
	    "pod:prod/web.v1",
	    "pod:prod/web-*",
	    "pod:prod/*",
	    "pod:prod/we?.*",
	    "label:app=web",
	    "label:app=",
	    "label:app.kubernetes.io/name=web",
	    "label:App_1.x=V-1_2.z",
	    "label:k8s-app=kube-dns",
	    "label:a=b",
	    "service:prod/frontend",
	    "service:kube-system/kube-dns",
	    "service:a/0",
	};
	char yaml[600];
	struct enav_config c;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(yaml, sizeof(yaml), "capture:\n  selectors:\n    - \"%s\"\n", good[i]);
		parse_ok(yaml, &c);
		assert_int_equal(c.capture.selectors.n, 1);
		assert_string_equal(c.capture.selectors.item[0], good[i]);
		assert_int_equal(enav_config_validate(&c, NULL, 0), 0);
	}
	/* Longest names: 63-byte namespace, label name and value; a pod name as long as
	 * the entry allows. */
	snprintf(yaml, sizeof(yaml),
		 "capture: {selectors: ['namespace:%063d', 'label:%063d=%063d', 'pod:a/%0249d']}",
		 0, 0, 0, 0);
	parse_ok(yaml, &c);
	assert_int_equal(c.capture.selectors.n, 3);
}

#define NS_WHY                                                                                     \
	"is not a namespace selector (expected a DNS label: 1..63 characters of a-z 0-9 - "        \
	"starting and ending alphanumeric, or a glob of those characters and * ?)"
#define POD_WHY                                                                                    \
	"is not a pod selector (expected pod:namespace/name with a namespace name and a pod name " \
	"or a glob of a-z 0-9 - . * ?)"
#define KEY_WHY "has an invalid label key (expected " LABEL_KEY_RULE ")"
#define VAL_WHY "has an invalid label value (expected " LABEL_VALUE_RULE ")"
#define SVC_WHY "is not a service selector (expected service:namespace/name, both DNS labels)"
#define CG_WHY                                                                                     \
	"is not a cgroup selector (expected cgroup:/path, an absolute cgroup2 path glob with * "   \
	"and ?, no control characters)"
#define RT_WHY                                                                                     \
	"is not a runtime selector (allowed runtimes: containerd, crio, docker, podman, unknown)"

static void test_selectors_invalid(void **state)
{
	static const struct {
		const char *entry, *why;
	} bad[] = {
	    {"nope", "is not a selector (" SELECTOR_RULE ")"},
	    {"host:x", "is not a selector (" SELECTOR_RULE ")"},
	    {"Namespace:prod", "is not a selector (" SELECTOR_RULE ")"},
	    {":prod", "is not a selector (" SELECTOR_RULE ")"},
	    {"namespace prod", "is not a selector (" SELECTOR_RULE ")"},
	    {"pod:", "is not a selector (the value after \"pod:\" is empty)"},
	    {"cgroup:", "is not a selector (the value after \"cgroup:\" is empty)"},
	    {"cgroup:kubepods/*", CG_WHY},
	    {"cgroup:/a\\tb", CG_WHY},
	    {"cgroup:/a\\x7fb", CG_WHY},
	    {"runtime:rkt", RT_WHY},
	    {"runtime:Docker", RT_WHY},
	    {"runtime:docker ", RT_WHY},
	    {"namespace:Prod", NS_WHY},
	    {"namespace:-prod", NS_WHY},
	    {"namespace:prod-", NS_WHY},
	    {"namespace:a_b", NS_WHY},
	    {"namespace:a.b", NS_WHY},
	    {"namespace:prod/x", NS_WHY},
	    {"namespace:[a]*", NS_WHY},
	    {"namespace:Team-*", NS_WHY},
	    {"pod:web", POD_WHY},
	    {"pod:/web", POD_WHY},
	    {"pod:prod/", POD_WHY},
	    {"pod:Prod/web", POD_WHY},
	    {"pod:prod/Web", POD_WHY},
	    {"pod:prod/a/b", POD_WHY},
	    {"pod:prod/web_1", POD_WHY},
	    {"pod:prod/-web", POD_WHY},
	    {"pod:prod/web..v1", POD_WHY},
	    {"pod:prod*/web", POD_WHY},
	    {"pod:prod/Web-*", POD_WHY},
	    {"label:app", "is not a label selector (expected label:key=value)"},
	    {"label:=web", KEY_WHY},
	    {"label:-app=web", KEY_WHY},
	    {"label:app-=web", KEY_WHY},
	    {"label:a b=c", KEY_WHY},
	    {"label:/app=web", KEY_WHY},
	    {"label:Example.com/app=web", KEY_WHY},
	    {"label:example.com/=web", KEY_WHY},
	    {"label:a/b/c=web", KEY_WHY},
	    {"label:a..b/c=web", KEY_WHY},
	    {"label:app=web!", VAL_WHY},
	    {"label:app=-web", VAL_WHY},
	    {"label:app=web_", VAL_WHY},
	    {"label:app=a=b", VAL_WHY},
	    {"label:app=a b", VAL_WHY},
	    {"service:prod", SVC_WHY},
	    {"service:prod/", SVC_WHY},
	    {"service:/web", SVC_WHY},
	    {"service:prod/web/x", SVC_WHY},
	    {"service:prod/web.v1", SVC_WHY},
	    {"service:prod/Web", SVC_WHY},
	    {"service:prod/web-*", SVC_WHY},
	};
	char yaml[700], want[700], shown[300];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *e = bad[i].entry;
		size_t o = 0;

		/* The YAML below is double-quoted: "\t" and "\x7f" are escapes, shown as \xNN. */
		for (const char *p = e; *p; p++) {
			if (p[0] == '\\' && p[1] == 't') {
				o += (size_t)snprintf(shown + o, sizeof(shown) - o, "\\x09");
				p++;
			} else if (p[0] == '\\' && p[1] == 'x') {
				o += (size_t)snprintf(shown + o, sizeof(shown) - o, "\\x%.2s",
						      p + 2);
				p += 3;
			} else {
				shown[o++] = *p;
			}
		}
		shown[o] = '\0';
		snprintf(yaml, sizeof(yaml),
			 "capture:\n  mode: allowlist\n  selectors:\n    - runtime:crio\n"
			 "    - namespace:prod\n    - 'service:a/b'\n    - \"%s\"\n",
			 e);
		snprintf(want, sizeof(want), "capture.selectors[3]: \"%s\" %s", shown, bad[i].why);
		parse_err(yaml, want);
	}
	/* Over-long names for their kind. */
	snprintf(yaml, sizeof(yaml), "capture: {selectors: ['namespace:%064d']}", 0);
	snprintf(want, sizeof(want), "capture.selectors[0]: \"namespace:%054d...\" " NS_WHY, 0);
	parse_err(yaml, want);
	snprintf(yaml, sizeof(yaml), "capture: {selectors: ['label:%064d=x']}", 0);
	snprintf(want, sizeof(want), "capture.selectors[0]: \"label:%058d...\" " KEY_WHY, 0);
	parse_err(yaml, want);
	snprintf(yaml, sizeof(yaml), "capture: {selectors: ['label:x=%064d']}", 0);
	snprintf(want, sizeof(want), "capture.selectors[0]: \"label:x=%056d...\" " VAL_WHY, 0);
	parse_err(yaml, want);
	snprintf(yaml, sizeof(yaml), "capture: {selectors: ['pod:%064d/a']}", 0);
	snprintf(want, sizeof(want), "capture.selectors[0]: \"pod:%060d...\" " POD_WHY, 0);
	parse_err(yaml, want);
	snprintf(yaml, sizeof(yaml), "capture: {selectors: ['service:a/%064d']}", 0);
	snprintf(want, sizeof(want), "capture.selectors[0]: \"service:a/%054d...\" " SVC_WHY, 0);
	parse_err(yaml, want);
	/* The exact line from the reference. */
	parse_err("capture:\n  selectors: [\"namespace:prod\", \"label:app=web\", runtime:crio, "
		  "nope]\n",
		  "capture.selectors[3]: \"nope\" is not a selector (expected kind:value with kind "
		  "one of cgroup, runtime, namespace, pod, label, service)");
}

static void test_keep_labels(void **state)
{
	static const char *const good[] = {
	    "app", "k8s-app", "A_b.C", "app.kubernetes.io/name", "example.com/x", "1"};
	static const char *const bad[] = {
	    "Bad Key", "-app",	 "app-",    "example.com/",	"/app", "Example.com/app",
	    "a/b/c",   "a..b/x", "app=web", "-example.com/app", "app.", "ex_ample.com/app"};
	char yaml[600], want[600];
	struct enav_config c;

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(yaml, sizeof(yaml), "kubernetes: {keep_labels: ['%s']}", good[i]);
		parse_ok(yaml, &c);
		assert_string_equal(c.kubernetes.keep_labels.item[0], good[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(yaml, sizeof(yaml), "kubernetes:\n  keep_labels:\n    - app\n    - '%s'\n",
			 bad[i]);
		snprintf(
		    want, sizeof(want),
		    "kubernetes.keep_labels[1]: \"%s\" is not a label key (expected " LABEL_KEY_RULE
		    ")",
		    bad[i]);
		parse_err(yaml, want);
	}
	/* Name part at most 63 bytes; prefix at most 253. */
	snprintf(yaml, sizeof(yaml), "kubernetes: {keep_labels: ['%063d']}", 0);
	parse_ok(yaml, &c);
	snprintf(yaml, sizeof(yaml), "kubernetes: {keep_labels: ['%064d']}", 0);
	snprintf(want, sizeof(want),
		 "kubernetes.keep_labels[0]: \"%064d\" is not a label key (expected " LABEL_KEY_RULE
		 ")",
		 0);
	parse_err(yaml, want);
}

/* ---- new scalar keys ----------------------------------------------------------- */

static void test_capture_mode(void **state)
{
	struct enav_config c;

	parse_ok("capture: {mode: all}", &c);
	assert_int_equal(c.capture.mode, ENAV_CAPTURE_POLICY_ALL);
	parse_ok("capture: {mode: allowlist}", &c);
	assert_int_equal(c.capture.mode, ENAV_CAPTURE_POLICY_ALLOWLIST);
	parse_ok("capture: {mode: 'denylist'}", &c);
	assert_int_equal(c.capture.mode, ENAV_CAPTURE_POLICY_DENYLIST);
	parse_err("capture: {mode: block}",
		  "capture.mode: \"block\" is not allowed (allowed: all, allowlist, denylist)");
	parse_err("capture: {mode: Allowlist}",
		  "capture.mode: \"Allowlist\" is not allowed (allowed: all, allowlist, denylist)");
	parse_err("capture: {mode: }",
		  "capture.mode: expected one of all, allowlist, denylist, got no value");
}

static void test_kubernetes_enabled(void **state)
{
	struct enav_config c;

	parse_ok("kubernetes: {enabled: true}", &c);
	assert_int_equal(c.kubernetes.enabled, ENAV_K8S_ON);
	parse_ok("kubernetes:\n  enabled: false\n", &c);
	assert_int_equal(c.kubernetes.enabled, ENAV_K8S_OFF);
	parse_ok("kubernetes: {enabled: auto}", &c);
	assert_int_equal(c.kubernetes.enabled, ENAV_K8S_AUTO);
	parse_ok("kubernetes: {enabled: \"false\"}", &c);
	assert_int_equal(c.kubernetes.enabled, ENAV_K8S_OFF);
	parse_err("kubernetes: {enabled: yes}",
		  "kubernetes.enabled: \"yes\" is not allowed (allowed: auto, true, false)");
	parse_err("kubernetes: {enabled: True}",
		  "kubernetes.enabled: \"True\" is not allowed (allowed: auto, true, false)");
	parse_err("kubernetes: {enabled: ~}",
		  "kubernetes.enabled: expected one of auto, true, false, got no value");
	parse_err("discovery: {inotify: auto}",
		  "discovery.inotify: expected a boolean (true or false), got \"auto\"");
	parse_ok("discovery: {inotify: false}", &c);
	assert_false(c.discovery.inotify);
}

static void test_new_integer_ranges(void **state)
{
	static const struct {
		const char *section, *key;
		unsigned lo, hi;
	} keys[] = {
	    {"discovery", "max_watches", 16, 65536},
	    {"discovery", "rescan_interval_ms", 100, 60000},
	    {"discovery", "max_cgroups", 64, 1048576},
	    {"kubernetes", "max_pods", 16, 65536},
	    {"kubernetes", "max_services", 16, 65536},
	    {"kubernetes", "max_endpointslices", 16, 65536},
	    {"kubernetes", "request_timeout_ms", 100, 120000},
	};
	char yaml[128], want[256];
	struct enav_config c;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		unsigned vals[] = {keys[i].lo - 1, keys[i].hi + 1};

		for (size_t j = 0; j < 2; j++) {
			snprintf(yaml, sizeof(yaml), "%s: {%s: %u}", keys[i].section, keys[i].key,
				 vals[j]);
			snprintf(want, sizeof(want), "%s.%s: %u is out of range (allowed %u..%u)",
				 keys[i].section, keys[i].key, vals[j], keys[i].lo, keys[i].hi);
			parse_err(yaml, want);
		}
		snprintf(yaml, sizeof(yaml), "%s: {%s: '%u'}", keys[i].section, keys[i].key,
			 keys[i].lo);
		snprintf(want, sizeof(want),
			 "%s.%s: expected an unsigned decimal integer in %u..%u, got the quoted "
			 "string \"%u\"",
			 keys[i].section, keys[i].key, keys[i].lo, keys[i].hi, keys[i].lo);
		parse_err(yaml, want);
		snprintf(yaml, sizeof(yaml), "%s: {%s: %u}", keys[i].section, keys[i].key,
			 keys[i].hi);
		parse_ok(yaml, &c);
	}
}

static void test_kubernetes_strings(void **state)
{
	static const char *const good_urls[] = {
	    "http://127.0.0.1:8001", "https://kubernetes.default.svc", "https://[fd00::1]:6443",
	    "https://rancher.example/k8s/clusters/c-1"};
	static const char *const bad_urls[] = {"10.0.0.1:6443", "ftp://x",    "http://",
					       "https://",	"https:///x", "http:// x",
					       "HTTPS://x",	"http:/x",    "https://a\\tb"};
	static const char url_why[] = "is not an API server URL (expected http:// or https:// and "
				      "a host, e.g. https://10.0.0.1:6443, or \"\" for in-cluster)";
	char yaml[600], want[600];
	struct enav_config c;

	for (size_t i = 0; i < sizeof(good_urls) / sizeof(good_urls[0]); i++) {
		snprintf(yaml, sizeof(yaml), "kubernetes: {api_server: '%s'}", good_urls[i]);
		parse_ok(yaml, &c);
		assert_string_equal(c.kubernetes.api_server, good_urls[i]);
	}
	for (size_t i = 0; i < sizeof(bad_urls) / sizeof(bad_urls[0]); i++) {
		const char *tab = strstr(bad_urls[i], "\\t");

		snprintf(yaml, sizeof(yaml), "kubernetes: {api_server: \"%s\"}", bad_urls[i]);
		if (tab)
			snprintf(want, sizeof(want), "kubernetes.api_server: \"%.*s\\x09%s\" %s",
				 (int)(tab - bad_urls[i]), bad_urls[i], tab + 2, url_why);
		else
			snprintf(want, sizeof(want), "kubernetes.api_server: \"%s\" %s",
				 bad_urls[i], url_why);
		parse_err(yaml, want);
	}
	parse_ok("kubernetes: {api_server: https://x, kubeconfig: /root/.kube/config}", &c);
	reparse_ok(&c, "kubernetes: {api_server: '', kubeconfig: ''}");
	assert_string_equal(c.kubernetes.api_server, "");
	assert_string_equal(c.kubernetes.kubeconfig, "");
	snprintf(yaml, sizeof(yaml), "kubernetes: {api_server: 'https://%0248d'}", 0);
	parse_err(yaml,
		  "kubernetes.api_server: string is too long (256 bytes, allowed at most 255)");
	snprintf(yaml, sizeof(yaml), "kubernetes: {node_name: '%0255d'}", 0);
	parse_ok(yaml, &c);
	snprintf(yaml, sizeof(yaml), "kubernetes: {node_name: '%0256d'}", 0);
	parse_err(yaml,
		  "kubernetes.node_name: string is too long (256 bytes, allowed at most 255)");
	parse_err("kubernetes: {token_file: ''}",
		  "kubernetes.token_file: string is empty (allowed length 1..255 bytes)");
	parse_err("kubernetes: {ca_file: ~}",
		  "kubernetes.ca_file: expected a string, got no value");
	parse_err("kubernetes: {kubeconfig: }",
		  "kubernetes.kubeconfig: expected a string, got no value (write \"\" for an empty "
		  "string)");
	parse_err("kubernetes: {node_name: {a: b}}",
		  "kubernetes.node_name: expected a string, got a mapping");
}

static void test_validate_new_fields(void **state)
{
	struct enav_config c;
	char err[512];

	enav_config_defaults(&c);
	c.capture.selectors.n = 2;
	strcpy(c.capture.selectors.item[0], "runtime:crio");
	strcpy(c.capture.selectors.item[1], "label:app=web");
	/* Slots past n are not looked at. */
	memset(c.capture.selectors.item[5], 'x', sizeof(c.capture.selectors.item[5]));
	c.kubernetes.keep_labels.n = 1;
	strcpy(c.kubernetes.keep_labels.item[0], "app");
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), 0);

	c.capture.selectors.n = 65;
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "capture.selectors: more than 64 entries");

	c.capture.selectors.n = UINT32_MAX;
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "capture.selectors: more than 64 entries");

	c.capture.selectors.n = 2;
	strcpy(c.capture.selectors.item[1], "nope");
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err,
			    "capture.selectors[1]: \"nope\" is not a selector (" SELECTOR_RULE ")");

	strcpy(c.capture.selectors.item[1], "");
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "capture.selectors[1]: string is empty (allowed length 3..255 "
				 "bytes)");

	enav_config_defaults(&c);
	c.kubernetes.keep_labels.n = 1;
	memset(c.kubernetes.keep_labels.item[0], 'a', sizeof(c.kubernetes.keep_labels.item[0]));
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "kubernetes.keep_labels[0]: string is not terminated");

	enav_config_defaults(&c);
	c.kubernetes.keep_labels.n = 1;
	strcpy(c.kubernetes.keep_labels.item[0], "-x");
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(
	    err,
	    "kubernetes.keep_labels[0]: \"-x\" is not a label key (expected " LABEL_KEY_RULE ")");

	enav_config_defaults(&c);
	c.capture.mode = (enum enav_capture_policy)3;
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(
	    err, "capture.mode: value 3 is not allowed (allowed: all, allowlist, denylist)");

	enav_config_defaults(&c);
	c.kubernetes.enabled = (enum enav_k8s_enable)3;
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(
	    err, "kubernetes.enabled: value 3 is not allowed (allowed: auto, true, false)");

	enav_config_defaults(&c);
	strcpy(c.kubernetes.api_server, "kubernetes:443");
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err,
			    "kubernetes.api_server: \"kubernetes:443\" is not an API server URL "
			    "(expected http:// or https:// and a host, e.g. "
			    "https://10.0.0.1:6443, or \"\" for in-cluster)");

	enav_config_defaults(&c);
	c.discovery.max_watches = 8;
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "discovery.max_watches: 8 is out of range (allowed 16..65536)");

	enav_config_defaults(&c);
	memset(&c.discovery.inotify, 2, 1);
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "discovery.inotify: not a boolean (allowed: true, false)");

	enav_config_defaults(&c);
	c.kubernetes.token_file[0] = '\0';
	assert_int_equal(enav_config_validate(&c, err, sizeof(err)), -1);
	assert_string_equal(err,
			    "kubernetes.token_file: string is empty (allowed length 1..255 bytes)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_empty_inputs_give_defaults),
	    cmocka_unit_test(test_full_file_sets_every_field),
	    cmocka_unit_test(test_flow_style_and_lower_bounds),
	    cmocka_unit_test(test_partial_and_null_sections_keep_defaults),
	    cmocka_unit_test(test_parse_overlays_existing_values),
	    cmocka_unit_test(test_example_file_is_all_defaults),
	    cmocka_unit_test(test_explicitly_on),
	    cmocka_unit_test(test_exporter_keys),
	    cmocka_unit_test(test_deprecated_exporter_keys),
	    cmocka_unit_test(test_deprecated_and_new_key_both_set),
	    cmocka_unit_test(test_input_is_bounded_by_len),
	    cmocka_unit_test(test_unknown_keys),
	    cmocka_unit_test(test_unknown_key_names_are_shown_safely),
	    cmocka_unit_test(test_duplicate_keys),
	    cmocka_unit_test(test_non_scalar_keys),
	    cmocka_unit_test(test_booleans_are_true_or_false_only),
	    cmocka_unit_test(test_mapping_where_scalar_expected_and_vice_versa),
	    cmocka_unit_test(test_top_level_must_be_a_mapping),
	    cmocka_unit_test(test_one_document_only),
	    cmocka_unit_test(test_integer_syntax_is_strict),
	    cmocka_unit_test(test_integer_range),
	    cmocka_unit_test(test_integer_overflow),
	    cmocka_unit_test(test_l7_protocol_names),
	    cmocka_unit_test(test_power_of_two),
	    cmocka_unit_test(test_enums),
	    cmocka_unit_test(test_long_values_are_cut_in_errors),
	    cmocka_unit_test(test_string_lengths),
	    cmocka_unit_test(test_empty_and_nul_strings),
	    cmocka_unit_test(test_http_listen),
	    cmocka_unit_test(test_anchors_and_aliases_rejected),
	    cmocka_unit_test(test_tags_rejected),
	    cmocka_unit_test(test_deep_nesting_is_cheap_and_rejected),
	    cmocka_unit_test(test_yaml_syntax_errors_have_line_numbers),
	    cmocka_unit_test(test_error_buffer_handling),
	    cmocka_unit_test(test_input_size_cap),
	    cmocka_unit_test(test_load_file),
	    cmocka_unit_test(test_load_unreadable),
	    cmocka_unit_test(test_load_size_cap),
	    cmocka_unit_test(test_listen_split),
	    cmocka_unit_test(test_choice_names),
	    cmocka_unit_test(test_validate_in_memory_config),
	    cmocka_unit_test(test_list_block_and_flow_styles),
	    cmocka_unit_test(test_list_empty_and_replaced),
	    cmocka_unit_test(test_list_entry_count_boundary),
	    cmocka_unit_test(test_list_entry_length_boundary),
	    cmocka_unit_test(test_list_type_errors),
	    cmocka_unit_test(test_list_refuses_yaml_features),
	    cmocka_unit_test(test_selectors_valid),
	    cmocka_unit_test(test_selectors_invalid),
	    cmocka_unit_test(test_keep_labels),
	    cmocka_unit_test(test_capture_mode),
	    cmocka_unit_test(test_kubernetes_enabled),
	    cmocka_unit_test(test_new_integer_ranges),
	    cmocka_unit_test(test_kubernetes_strings),
	    cmocka_unit_test(test_validate_new_fields),
	    cmocka_unit_test(test_listener_keys),
	    cmocka_unit_test(test_ndjson_rate_limit),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
