/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Configuration: the schema.  One static table drives the defaults, the
 * parser (config_yaml.c), the validator and every error message, so a key
 * cannot be parsed one way and documented or checked another.  The syntax
 * rules of Kubernetes names, selectors, headers and paths are in
 * config_checks.c.
 */
#include "config/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "model/protocols.h"

#include "config/config_priv.h"

/* Index i names enum value i. */
static const char *const log_level_names[] = {"error", "warn", "info", "debug", NULL};
static const char *const transport_names[] = {"auto", "ringbuf", "perf", NULL};
static const char *const hook_names[] = {"auto", "fexit", "tracepoint", NULL};
static const char *const exec_hook_names[] = {"auto", "tp_btf", "raw_tp", NULL};
static const char *const capture_mode_names[] = {"all", "allowlist", "denylist", NULL};
/* YAML's true/false spelled as enum names: the plain scalars match as text. */
static const char *const k8s_enable_names[] = {"auto", "true", "false", NULL};
static const char *const host_cgroups_names[] = {"none", "containers", "all", NULL};
static const char *const profile_event_names[] = {"auto", "cpu-clock", "cycles", NULL};
static const char *const compression_names[] = {"none", "gzip", "inherit", NULL};

/* Enum fields are stored through an unsigned int. */
_Static_assert(sizeof(enum enav_log_level) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(enum enav_transport_choice) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(enum enav_hook_choice) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(enum enav_exec_hook_choice) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(enum enav_capture_policy) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(enum enav_k8s_enable) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(enum enav_host_cgroup_scope) == sizeof(unsigned), "enum size");
_Static_assert(ENAV_HOST_CGROUPS_NONE == 0 && ENAV_HOST_CGROUPS_CONTAINERS == 1 &&
		   ENAV_HOST_CGROUPS_ALL == 2,
	       "host_cgroups_names order");
_Static_assert(ENAV_CAPTURE_POLICY_ALL == 0 && ENAV_CAPTURE_POLICY_ALLOWLIST == 1 &&
		   ENAV_CAPTURE_POLICY_DENYLIST == 2,
	       "capture_mode_names order");
_Static_assert(ENAV_K8S_AUTO == 0 && ENAV_K8S_ON == 1 && ENAV_K8S_OFF == 2,
	       "k8s_enable_names order");

/* Offset of a member, failing to compile if the member is not of type T. */
#define MEMBER(m)    (((struct enav_config *)0)->m)
#define OFF_AS(m, T) (offsetof(struct enav_config, m) + 0 * sizeof(_Generic(MEMBER(m), T : 1)))
#define MAP(k)                                                                                     \
	{                                                                                          \
		.key = k, .type = T_MAP                                                            \
	}
#define OLD_MAP(k)                                                                                 \
	{                                                                                          \
		.key = k, .type = T_MAP, .old = true                                               \
	}
#define BOOL(k, m, d)                                                                              \
	{                                                                                          \
		.key = k, .type = T_BOOL, .off = OFF_AS(m, bool), .def = d                         \
	}
#define U32(k, m, lo, hi, d)                                                                       \
	{                                                                                          \
		.key = k, .type = T_U32, .off = OFF_AS(m, uint32_t), .min = lo, .max = hi,         \
		.def = d                                                                           \
	}
#define U32_POW2(k, m, lo, hi, d)                                                                  \
	{                                                                                          \
		.key = k, .type = T_U32, .off = OFF_AS(m, uint32_t), .min = lo, .max = hi,         \
		.pow2 = true, .def = d                                                             \
	}
#define ENUM(k, m, T, n, d)                                                                        \
	{                                                                                          \
		.key = k, .type = T_ENUM, .off = OFF_AS(m, T), .names = n, .def = d                \
	}
#define STR(k, m, lo, d)                                                                           \
	{                                                                                          \
		.key = k, .type = T_STR, .off = OFF_AS(m, char *), .size = sizeof(MEMBER(m)),      \
		.min = lo, .max = sizeof(MEMBER(m)) - 1, .def_str = d                              \
	}
#define STR_CHECK(k, m, lo, d, fn)                                                                 \
	{                                                                                          \
		.key = k, .type = T_STR, .off = OFF_AS(m, char *), .size = sizeof(MEMBER(m)),      \
		.min = lo, .max = sizeof(MEMBER(m)) - 1, .def_str = d, .check = fn                 \
	}
/* Entries of lo..ENAV_CONFIG_ENTRY_MAX-1 bytes, each passing fn. */
#define LIST(k, m, lo, fn)                                                                         \
	{                                                                                          \
		.key = k, .type = T_LIST, .off = OFF_AS(m, struct enav_config_list),               \
		.size = ENAV_CONFIG_ENTRY_MAX, .min = lo, .max = ENAV_CONFIG_ENTRY_MAX - 1,        \
		.check = fn                                                                        \
	}
#define LISTEN(k, m, d)                                                                            \
	{                                                                                          \
		.key = k, .type = T_LISTEN, .off = OFF_AS(m, char *), .size = sizeof(MEMBER(m)),   \
		.max = sizeof(MEMBER(m)) - 1, .def_str = d                                         \
	}

/* One OTLP signal's own settings (exporters.otlp.<sig>.*): 0, "" and inherit defer to
 * exporters.otlp.*. */
#define OTLP_SIGNAL(sig)                                                                           \
	MAP("exporters.otlp." #sig),                                                               \
	    BOOL("exporters.otlp." #sig ".enabled", otlp.sig.enabled, true),                       \
	    STR("exporters.otlp." #sig ".endpoint", otlp.sig.endpoint, 0, ""),                     \
	    U32("exporters.otlp." #sig ".timeout_ms", otlp.sig.timeout_ms, 0, 120000, 0),          \
	    U32("exporters.otlp." #sig ".queue_capacity", otlp.sig.queue_capacity, 0, 1048576, 0), \
	    U32("exporters.otlp." #sig ".batch_max_items", otlp.sig.batch_max_items, 0, 65536, 0), \
	    ENUM("exporters.otlp." #sig ".compression", otlp.sig.compression,                      \
		 enum enav_otlp_compression, compression_names, ENAV_OTLP_COMPRESSION_INHERIT),    \
	    LIST("exporters.otlp." #sig ".headers", otlp.sig.headers, 3, check_header),            \
	    STR("exporters.otlp." #sig ".ca_file", otlp.sig.ca_file, 0, ""),                       \
	    STR("exporters.otlp." #sig ".cert_file", otlp.sig.cert_file, 0, ""),                   \
	    STR("exporters.otlp." #sig ".key_file", otlp.sig.key_file, 0, "")

static int check_l7_protocol(struct errout *e, const char *where, const char *s, size_t n);
static int check_optional_listen(struct errout *e, const char *where, const char *s, size_t n);

#define K8S_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount/"

/*
 * The complete schema.  A key's parent is the path before its last dot; a
 * parent must appear as a MAP entry.  Table order is the order keys are listed
 * in "allowed:" hints.  Keep docs/configuration.md and
 * config/enav.example.yaml in step with this table.
 */
const struct field schema[] = {
    ENUM("log_level", log_level, enum enav_log_level, log_level_names, ENAV_LOG_INFO),
    ENUM("transport", transport, enum enav_transport_choice, transport_names, ENAV_TRANSPORT_AUTO),
    ENUM("hooks", hooks, enum enav_hook_choice, hook_names, ENAV_HOOKS_AUTO),
    U32("shutdown_timeout_ms", shutdown_timeout_ms, 100, 10000, 1500),
    BOOL("drop_capabilities", drop_capabilities, true),
    MAP("kernel"),
    U32_POW2("kernel.ring_buffer_bytes", kernel.ring_buffer_bytes, 65536, 268435456, 4194304),
    U32_POW2("kernel.perf_buffer_pages", kernel.perf_buffer_pages, 8, 4096, 128),
    U32("kernel.wakeup_bytes", kernel.wakeup_bytes, 0, 1048576, 0),
    U32("kernel.poll_interval_ms", kernel.poll_interval_ms, 1, 1000, 50),
    U32("kernel.cgroup_verdict_entries", kernel.cgroup_verdict_entries, 64, 1048576, 16384),
    MAP("sources"),
    MAP("sources.exec"),
    BOOL("sources.exec.enabled", exec.enabled, true),
    U32("sources.exec.argv_max_bytes", exec.argv_max_bytes, 16, 4096, 256),
    ENUM("sources.exec.hook", exec.hook, enum enav_exec_hook_choice, exec_hook_names,
	 ENAV_EXEC_HOOK_AUTO),
    MAP("sources.network"),
    BOOL("sources.network.enabled", network.enabled, true),
    U32("sources.network.max_connections", network.max_connections, 64, 1048576, 65536),
    U32("sources.network.dns_capture_bytes", network.dns_capture_bytes, 0, 512, 512),
    U32("sources.network.max_edges", network.max_edges, 16, 65536, 1024),
    U32("sources.network.edge_interval_ms", network.edge_interval_ms, 1000, 3600000, 15000),
    U32("sources.network.edge_idle_s", network.edge_idle_s, 10, 86400, 600),
    U32("sources.network.dns_cache_entries", network.dns_cache_entries, 16, 1048576, 4096),
    MAP("sources.network.l7"),
    BOOL("sources.network.l7.enabled", network.l7.enabled, true),
    LIST("sources.network.l7.protocols", network.l7.protocols, 1, check_l7_protocol),
    U32("sources.network.l7.capture_bytes", network.l7.capture_bytes, 16, 4096, 256),
    U32("sources.network.l7.http2_capture_bytes", network.l7.http2_capture_bytes, 256, 4096, 4096),
    U32("sources.network.l7.max_connections", network.l7.max_connections, 16, 1048576, 4096),
    U32("sources.network.l7.max_pending", network.l7.max_pending, 1, 32, 32),
    U32("sources.network.l7.idle_timeout_ms", network.l7.idle_timeout_ms, 1000, 86400000, 300000),
    BOOL("sources.network.l7.keep_query", network.l7.keep_query, false),
    BOOL("sources.network.l7.sanitized_statement", network.l7.sanitized_statement, false),
    U32("sources.network.l7.max_series", network.l7.max_series, 16, 20000, 500),
    U32("sources.network.l7.series_idle_s", network.l7.series_idle_s, 10, 86400, 600),
    MAP("sources.network.tls"),
    BOOL("sources.network.tls.enabled", network.tls.enabled, true),
    LIST("sources.network.tls.libraries", network.tls.libraries, 1, check_tls_library),
    U32("sources.network.tls.max_binaries", network.tls.max_binaries, 1, 1024, 64),
    U32("sources.network.tls.max_probes", network.tls.max_probes, 16, 65536, 2048),
    U32("sources.network.tls.max_sessions", network.tls.max_sessions, 64, 1048576, 16384),
    U32("sources.network.tls.max_inflight", network.tls.max_inflight, 64, 1048576, 4096),
    U32("sources.network.tls.scan_interval_ms", network.tls.scan_interval_ms, 500, 3600000, 10000),
    U32("sources.network.tls.max_file_bytes", network.tls.max_file_bytes, 1u << 20, 1u << 31,
	256u << 20),
    U32("sources.network.tls.max_file_ms", network.tls.max_file_ms, 10, 60000, 10000),
    MAP("sources.file_open"),
    BOOL("sources.file_open.enabled", file_open.enabled, false),
    LIST("sources.file_open.watch_paths", file_open.watch_paths, 2, check_abs_path),
    U32("sources.file_open.max_watched_files", file_open.max_watched_files, 1, 65536, 1024),
    U32("sources.file_open.rescan_interval_ms", file_open.rescan_interval_ms, 500, 3600000, 10000),
    STR_CHECK("sources.file_open.host_root", file_open.host_root, 0, "", check_abs_path),
    MAP("profiling"),
    BOOL("profiling.enabled", profiling.enabled, true),
    U32("profiling.frequency_hz", profiling.frequency_hz, 1, 1000, 99),
    ENUM("profiling.event", profiling.event, enum enav_profile_event, profile_event_names,
	 ENAV_PROFILE_EVENT_AUTO),
    U32("profiling.interval_ms", profiling.interval_ms, 1000, 3600000, 15000),
    U32("profiling.drain_ms", profiling.drain_ms, 100, 60000, 1000),
    U32("profiling.stack_map_entries", profiling.stack_map_entries, 1024, 1048576, 16384),
    U32("profiling.count_map_entries", profiling.count_map_entries, 1024, 1048576, 16384),
    U32("profiling.retention_ms", profiling.retention_ms, 10000, 3600000, 120000),
    U32("profiling.max_stored_stacks", profiling.max_stored_stacks, 1024, 4194304, 262144),
    U32("profiling.max_store_mb", profiling.max_store_mb, 1, 65536, 64),
    U32("profiling.max_stack_depth", profiling.max_stack_depth, 8, 127, 127),
    U32("profiling.max_pending_waits", profiling.max_pending_waits, 256, 1048576, 16384),
    U32("profiling.max_processes", profiling.max_processes, 64, 1048576, 4096),
    U32("profiling.max_elf_files", profiling.max_elf_files, 4, 65536, 256),
    U32("profiling.tenant_memory_mb", profiling.tenant_memory_mb, 8, 4096, 128),
    MAP("profiling.unwind"),
    BOOL("profiling.unwind.eh_frame", profiling.unwind_eh_frame, true),
    U32("profiling.unwind.max_rows", profiling.unwind_max_rows, 4096, 16777216, 1048576),
    U32("profiling.unwind.max_binary_rows", profiling.unwind_max_binary_rows, 1024, 16777216,
	524288),
    U32("profiling.unwind.max_processes", profiling.unwind_max_processes, 16, 65536, 1024),
    U32("profiling.unwind.max_binaries", profiling.unwind_max_binaries, 4, 65536, 512),
    MAP("profiling.offcpu"),
    BOOL("profiling.offcpu.enabled", profiling.offcpu, true),
    U32("profiling.offcpu.min_block_us", profiling.offcpu_min_us, 0, 10000000, 1000),
    U32("profiling.offcpu.sample_every", profiling.offcpu_sample_every, 1, 1000000, 1),
    MAP("profiling.futex"),
    BOOL("profiling.futex.enabled", profiling.futex, true),
    U32("profiling.futex.min_wait_us", profiling.futex_min_us, 0, 10000000, 10),
    U32("profiling.futex.sample_every", profiling.futex_sample_every, 1, 1000000, 1),
    MAP("profiling.links"),
    BOOL("profiling.links.enabled", profiling.links, true),
    U32("profiling.links.max_threads", profiling.links_max_threads, 256, 1048576, 16384),
    U32("profiling.links.max_spans", profiling.links_max_spans, 1024, 4194304, 65536),
    U32("profiling.links.hold_ms", profiling.links_hold_ms, 0, 600000, 10000),
    MAP("profiling.spool"),
    STR("profiling.spool.dir", profiling.spool_dir, 0, ""),
    U32("profiling.spool.max_mb", profiling.spool_max_mb, 1, 1048576, 256),
    U32("profiling.spool.max_age_s", profiling.spool_max_age_s, 60, 31536000, 86400),
    MAP("profiling.filter"),
    LIST("profiling.filter.allow", profiling.filter_allow, 1, check_module_prefix),
    BOOL("profiling.filter.local_unfiltered", profiling.local_unfiltered, false),
    MAP("profiling.pull"),
    BOOL("profiling.pull.enabled", profiling.pull, false),
    BOOL("profiling.pull.discover", profiling.pull_discover, true),
    LIST("profiling.pull.targets", profiling.pull_targets, 8, check_pull_target),
    U32("profiling.pull.seconds", profiling.pull_seconds, 1, 60, 10),
    U32("profiling.pull.round_ms", profiling.pull_round_ms, 1000, 86400000, 300000),
    U32("profiling.pull.max_per_round", profiling.pull_max_per_round, 1, 1000, 10),
    U32("profiling.pull.hold_ms", profiling.pull_hold_ms, 1000, 604800000, 21600000),
    U32("profiling.pull.max_targets", profiling.pull_max_targets, 1, 4096, 256),
    MAP("security"),
    BOOL("security.enabled", security.enabled, true),
    MAP("security.rules"),
    BOOL("security.rules.exec_from_writable_location", security.exec_from_writable, true),
    BOOL("security.rules.shell_from_network_service", security.shell_from_service, true),
    BOOL("security.rules.new_outbound_port", security.new_outbound_port, true),
    BOOL("security.rules.credentials_to_root", security.credentials_to_root, true),
    BOOL("security.rules.secret_file_read", security.secret_file_read, true),
    BOOL("security.rules.agent_tampering", security.agent_tampering, true),
    LIST("security.secret_file_readers", security.secret_file_readers, 2, check_abs_path),
    U32("security.self_check_interval_ms", security.self_check_interval_ms, 200, 3600000, 5000),
    MAP("security.exceptions"),
    LIST("security.exceptions.exec_from_writable_location",
	 security.exceptions[ENAV_RULE_EXEC_FROM_WRITABLE], 3, check_selector),
    LIST("security.exceptions.shell_from_network_service",
	 security.exceptions[ENAV_RULE_SHELL_FROM_SERVICE], 3, check_selector),
    LIST("security.exceptions.new_outbound_port", security.exceptions[ENAV_RULE_NEW_OUTBOUND_PORT],
	 3, check_selector),
    LIST("security.exceptions.credentials_to_root",
	 security.exceptions[ENAV_RULE_CREDENTIALS_TO_ROOT], 3, check_selector),
    LIST("security.exceptions.secret_file_read", security.exceptions[ENAV_RULE_SECRET_FILE_READ], 3,
	 check_selector),
    LIST("security.exceptions.agent_tampering", security.exceptions[ENAV_RULE_AGENT_TAMPERING], 3,
	 check_selector),
    U32("security.max_tracked_processes", security.max_tracked_processes, 16, 4194304, 65536),
    U32("security.outbound_learning_ms", security.outbound_learning_ms, 1000, 604800000, 300000),
    U32("security.max_baseline_entries", security.max_baseline_entries, 16, 1048576, 16384),
    U32("security.rate_limit_per_minute", security.rate_per_minute, 1, 10000, 10),
    U32("security.max_tracked_services", security.max_services, 16, 1048576, 4096),
    U32("security.max_rate_entries", security.max_rate_entries, 16, 1048576, 4096),
    U32("security.workload_rate_limit_per_minute", security.workload_rate_per_minute, 1, 100000,
	100),
    LIST("security.exception_label_prefixes", security.exception_label_prefixes, 2, NULL),
    MAP("attribution"),
    U32("attribution.cgroup_cache_entries", attribution.cgroup_cache_entries, 16, 1048576, 4096),
    U32("attribution.process_table_entries", attribution.process_table_entries, 16, 1048576, 16384),
    STR("attribution.cgroup2_mount", attribution.cgroup2_mount, 0, ""),
    MAP("generators"),
    MAP("generators.process_metrics"),
    BOOL("generators.process_metrics.enabled", generators.process_metrics, true),
    MAP("http"),
    BOOL("http.enabled", http.enabled, true),
    LISTEN("http.listen", http.listen, "127.0.0.1:9464"),
    U32("http.max_connections", http.max_connections, 1, 1024, 16),
    STR_CHECK("http.health_listen", http.health_listen, 0, "127.0.0.1:9465", check_optional_listen),
    U32("http.max_connections_per_client", http.max_connections_per_client, 1, 1024, 8),
    U32("http.idle_timeout_s", http.idle_timeout_s, 1, 600, 10),
    U32("http.request_timeout_s", http.request_timeout_s, 1, 3600, 30),
    U32("http.max_profile_requests", http.max_profile_requests, 1, 64, 2),
    STR_CHECK("http.bearer_token_file", http.bearer_token_file, 0, "", check_abs_path),
    MAP("exporters"),
    MAP("exporters.ndjson"),
    BOOL("exporters.ndjson.enabled", ndjson.enabled, true),
    STR("exporters.ndjson.path", ndjson.path, 1, "-"),
    U32("exporters.ndjson.queue_capacity", ndjson.queue_capacity, 16, 1048576, 8192),
    U32("exporters.ndjson.max_line_bytes", ndjson.max_line_bytes, 1024, 65536, 16384),
    MAP("exporters.ndjson.rate_limit"),
    U32("exporters.ndjson.rate_limit.spans_per_second", ndjson.rate_limit.spans_per_second, 0,
	1000000, 100),
    U32("exporters.ndjson.rate_limit.other_kinds_per_second",
	ndjson.rate_limit.other_kinds_per_second, 0, 1000000, 1000),
    MAP("exporters.prometheus"),
    BOOL("exporters.prometheus.enabled", prometheus.enabled, true),
    MAP("exporters.otlp"),
    STR("exporters.otlp.endpoint", otlp.endpoint, 0, ""),
    OTLP_SIGNAL(metrics),
    OTLP_SIGNAL(traces),
    OTLP_SIGNAL(logs),
    OTLP_SIGNAL(profiles),
    LIST("exporters.otlp.headers", otlp.headers, 3, check_header),
    STR("exporters.otlp.headers_file", otlp.headers_file, 0, ""),
    ENUM("exporters.otlp.compression", otlp.compression, enum enav_otlp_compression,
	 compression_names, ENAV_OTLP_COMPRESSION_NONE),
    U32("exporters.otlp.timeout_ms", otlp.timeout_ms, 100, 120000, 10000),
    U32("exporters.otlp.queue_capacity", otlp.queue_capacity, 16, 1048576, 4096),
    U32("exporters.otlp.batch_max_items", otlp.batch_max_items, 1, 65536, 512),
    U32("exporters.otlp.batch_max_delay_ms", otlp.batch_max_delay_ms, 10, 60000, 5000),
    U32("exporters.otlp.metrics_interval_ms", otlp.metrics_interval_ms, 1000, 3600000, 15000),
    U32("exporters.otlp.retry_max_elapsed_ms", otlp.max_elapsed_ms, 0, 3600000, 60000),
    U32("exporters.otlp.retry_initial_ms", otlp.backoff_initial_ms, 10, 60000, 500),
    U32("exporters.otlp.retry_max_ms", otlp.backoff_max_ms, 10, 600000, 30000),
    U32("exporters.otlp.breaker_failures", otlp.breaker_failures, 1, 1000, 5),
    U32("exporters.otlp.breaker_cooldown_ms", otlp.breaker_cooldown_ms, 100, 3600000, 30000),
    STR("exporters.otlp.ca_file", otlp.ca_file, 0, ""),
    STR("exporters.otlp.cert_file", otlp.cert_file, 0, ""),
    STR("exporters.otlp.key_file", otlp.key_file, 0, ""),
    MAP("exporters.pyroscope"),
    STR("exporters.pyroscope.url", profiling.pyroscope_url, 0, ""),
    STR("exporters.pyroscope.app_name", profiling.pyroscope_app, 1, "enav"),
    U32("exporters.pyroscope.timeout_ms", profiling.pyroscope_timeout_ms, 100, 120000, 10000),
    U32("exporters.pyroscope.queue_capacity", profiling.pyroscope_queue, 1, 65536, 256),
    U32("exporters.pyroscope.max_retries", profiling.pyroscope_retries, 0, 20, 3),
    /* Deprecated spellings (the renames table below): walked, never listed. */
    OLD_MAP("sinks"),
    MAP("capture"),
    ENUM("capture.mode", capture.mode, enum enav_capture_policy, capture_mode_names,
	 ENAV_CAPTURE_POLICY_ALL),
    LIST("capture.selectors", capture.selectors, 3, check_selector),
    MAP("discovery"),
    BOOL("discovery.inotify", discovery.inotify, true),
    U32("discovery.max_watches", discovery.max_watches, 16, 65536, 8192),
    U32("discovery.rescan_interval_ms", discovery.rescan_interval_ms, 100, 60000, 2000),
    U32("discovery.max_cgroups", discovery.max_cgroups, 64, 1048576, 16384),
    MAP("kubernetes"),
    ENUM("kubernetes.enabled", kubernetes.enabled, enum enav_k8s_enable, k8s_enable_names,
	 ENAV_K8S_AUTO),
    STR_CHECK("kubernetes.api_server", kubernetes.api_server, 0, "", check_api_server),
    STR("kubernetes.kubeconfig", kubernetes.kubeconfig, 0, ""),
    STR("kubernetes.token_file", kubernetes.token_file, 1, K8S_SA_DIR "token"),
    STR("kubernetes.ca_file", kubernetes.ca_file, 1, K8S_SA_DIR "ca.crt"),
    STR("kubernetes.node_name", kubernetes.node_name, 0, ""),
    LIST("kubernetes.keep_labels", kubernetes.keep_labels, 1, check_label_key),
    U32("kubernetes.max_pods", kubernetes.max_pods, 16, 65536, 2048),
    U32("kubernetes.max_services", kubernetes.max_services, 16, 65536, 4096),
    U32("kubernetes.max_endpointslices", kubernetes.max_endpointslices, 16, 65536, 8192),
    U32("kubernetes.request_timeout_ms", kubernetes.request_timeout_ms, 100, 120000, 10000),
    MAP("host"),
    BOOL("host.enabled", host.enabled, true),
    U32("host.cache_ms", host.cache_ms, 0, 60000, 0),
    U32("host.max_devices", host.max_devices, 1, 4096, 256),
    ENUM("host.cgroups", host.cgroups, enum enav_host_cgroup_scope, host_cgroups_names,
	 ENAV_HOST_CGROUPS_CONTAINERS),
    U32("host.max_cgroups", host.max_cgroups, 1, 65536, 1024),
};

/*
 * Keys that moved.  Writing old still works (the walk reads it as new), is
 * noted in enav_config.deprecated_used (warned by enav_config_load) and is an
 * error together with new.  Keep docs/configuration.md ("Deprecated keys") in
 * step with this table.
 */
const struct rename renames[ENAV_CONFIG_RENAMES] = {
    {"sinks.ndjson", "exporters.ndjson"},
    {"otlp", "exporters.otlp"},
    {"profiling.pyroscope", "exporters.pyroscope"},
};

const size_t schema_len = ARRAY_SIZE(schema);

/* ---- errors -------------------------------------------------------------- */

int fail(struct errout *e, const char *fmt, ...)
{
	va_list ap;

	if (e->buf && e->len) {
		va_start(ap, fmt);
		vsnprintf(e->buf, e->len, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/*
 * Printable rendering of untrusted bytes: control bytes, quotes and
 * backslashes are escaped so an error always stays one line, and long values
 * are cut (at a UTF-8 boundary) so the interesting part of the message fits.
 */
void show(char *out, size_t outlen, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	size_t cut = n, o = 0;

	if (cut > SHOW_MAX) {
		cut = SHOW_MAX;
		while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
			cut--;
	}
	for (size_t i = 0; i < cut && o + 5 < outlen; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c < 0x20 || c == 0x7f) {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else {
			out[o++] = (char)c;
		}
	}
	if (cut < n && o + 4 < outlen) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	if (outlen)
		out[o < outlen ? o : outlen - 1] = '\0';
}

/* ---- small helpers -------------------------------------------------------- */

bool bytes_eq(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/*
 * Strict unsigned decimal: digits only (no sign, space, base prefix or
 * leading zero, which YAML 1.1 would read as octal).  Returns 0 on success,
 * 1 if the text is not such a number, 2 if it does not fit in 64 bits.
 */
int parse_u64(const char *s, size_t n, uint64_t *out)
{
	char buf[32];
	char *end;
	unsigned long long v;

	if (n == 0 || (n > 1 && s[0] == '0'))
		return 1;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 1;
	if (n >= sizeof(buf))
		return 2;
	/* The input is not NUL-terminated in general, so convert a copy. */
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (end != buf + n)
		return 1;
	if (errno == ERANGE)
		return 2;
	*out = v;
	return 0;
}

bool listen_parse(const char *s, size_t n, char *host, size_t hostlen, uint16_t *port)
{
	char ip[INET_ADDRSTRLEN];
	struct in_addr addr;
	const char *colon = NULL;
	uint64_t p;
	size_t hl;

	for (size_t i = 0; i < n; i++)
		if (s[i] == ':')
			colon = s + i;
	if (!colon || colon == s)
		return false;
	hl = (size_t)(colon - s);
	if (hl >= sizeof(ip))
		return false;
	memcpy(ip, s, hl);
	ip[hl] = '\0';
	if (memchr(ip, '\0', hl) || inet_pton(AF_INET, ip, &addr) != 1)
		return false;
	if (parse_u64(colon + 1, n - hl - 1, &p) != 0 || p < 1 || p > 65535)
		return false;
	if (host) {
		if (hl >= hostlen)
			return false;
		memcpy(host, ip, hl + 1);
	}
	if (port)
		*port = (uint16_t)p;
	return true;
}

void *field_ptr(struct enav_config *cfg, const struct field *f)
{
	return (char *)cfg + f->off;
}

size_t enum_count(const struct field *f)
{
	size_t n = 0;

	while (f->names[n])
		n++;
	return n;
}

/* "a, b, c" from an enum's names. */
void join_names(char *out, size_t outlen, const char *const *names)
{
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; names[i] && o < outlen; i++)
		o += (size_t)snprintf(out + o, outlen - o, "%s%s", i ? ", " : "", names[i]);
}

/* What a field accepts, for "expected ..." messages. */
void describe_field(char *out, size_t outlen, const struct field *f)
{
	char names[128];

	switch (f->type) {
	case T_MAP:
		snprintf(out, outlen, "a mapping");
		break;
	case T_BOOL:
		snprintf(out, outlen, "a boolean (true or false)");
		break;
	case T_U32:
		snprintf(out, outlen, "%s in %" PRIu64 "..%" PRIu64,
			 f->pow2 ? "a power of two" : "an unsigned decimal integer", f->min,
			 f->max);
		break;
	case T_ENUM:
		join_names(names, sizeof(names), f->names);
		snprintf(out, outlen, "one of %s", names);
		break;
	case T_STR:
		snprintf(out, outlen, "a string");
		break;
	case T_LISTEN:
		snprintf(out, outlen, "an IPv4:port address");
		break;
	case T_LIST:
		snprintf(out, outlen, "a sequence of strings");
		break;
	}
}
/* A protocol the configuration can select (src/model/protocols.h). */
static int check_l7_protocol(struct errout *e, const char *where, const char *s, size_t n)
{
	char shown[SHOW_BUF], allowed[256];
	const struct enav_protocol *p = enav_protocol_by_name(s, n);
	if (p && enav_protocol_selectable(p))
		return 0;
	show(shown, sizeof(shown), s, n);
	enav_protocol_selectable_names(allowed, sizeof(allowed));
	return fail(e, "%s: \"%s\" is not a protocol (allowed: %s)", where, shown, allowed);
}

/* "" (no such listener) or IPv4:port, as http.listen. */
static int check_optional_listen(struct errout *e, const char *where, const char *s, size_t n)
{
	char shown[SHOW_BUF];
	if (n == 0 || listen_parse(s, n, NULL, 0, NULL))
		return 0;
	show(shown, sizeof(shown), s, n);
	return fail(
	    e,
	    "%s: \"%s\" is not a valid listen address (allowed: \"\" for none, or IPv4:port "
	    "with port 1..65535, e.g. 127.0.0.1:9465)",
	    where, shown);
}

int check_u32(struct errout *e, const struct field *f, uint64_t v, const char *text)
{
	if (v < f->min || v > f->max)
		return fail(e, "%s: %s is out of range (allowed %" PRIu64 "..%" PRIu64 ")", f->key,
			    text, f->min, f->max);
	if (f->pow2 && (v & (v - 1)) != 0)
		return fail(e,
			    "%s: %s is not a power of two (allowed powers of two in %" PRIu64
			    "..%" PRIu64 ")",
			    f->key, text, f->min, f->max);
	return 0;
}

/* A string value, or one list entry (where = "key[i]"). */
int check_string(struct errout *e, const struct field *f, const char *where, const char *s,
		 size_t n)
{
	char shown[SHOW_BUF];

	if (memchr(s, '\0', n))
		return fail(e, "%s: must not contain a NUL byte", where);
	if (n > f->max)
		return fail(e, "%s: string is too long (%zu bytes, allowed at most %" PRIu64 ")",
			    where, n, f->max);
	if (n == 0 && f->min > 0)
		return fail(e,
			    "%s: string is empty (allowed length %" PRIu64 "..%" PRIu64 " bytes)",
			    where, f->min, f->max);
	if (n < f->min)
		return fail(e,
			    "%s: string is too short (%zu bytes, allowed length %" PRIu64
			    "..%" PRIu64 " bytes)",
			    where, n, f->min, f->max);
	if (f->check && f->check(e, where, s, n))
		return -1;
	if (f->type == T_LISTEN && !listen_parse(s, n, NULL, 0, NULL)) {
		show(shown, sizeof(shown), s, n);
		return fail(
		    e,
		    "%s: \"%s\" is not a valid listen address (allowed: IPv4:port with port "
		    "1..65535, e.g. 127.0.0.1:9464)",
		    where, shown);
	}
	return 0;
}

/* ---- public API ----------------------------------------------------------- */

void enav_config_defaults(struct enav_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	for (size_t i = 0; i < ARRAY_SIZE(schema); i++) {
		const struct field *f = &schema[i];
		void *dst = field_ptr(cfg, f);
		unsigned e = (unsigned)f->def;

		switch (f->type) {
		case T_MAP:
			break;
		case T_BOOL:
			*(bool *)dst = f->def != 0;
			break;
		case T_U32:
			*(uint32_t *)dst = (uint32_t)f->def;
			break;
		case T_ENUM:
			memcpy(dst, &e, sizeof(e));
			break;
		case T_STR:
		case T_LISTEN:
			snprintf(dst, f->size, "%s", f->def_str);
			break;
		case T_LIST:
			memset(dst, 0, sizeof(struct enav_config_list));
			break;
		}
	}
}

_Static_assert(sizeof(schema) / sizeof(schema[0]) <= ENAV_CONFIG_KEYS_MAX, "explicit_keys bits");

bool enav_config_key_is_bool(const char *key)
{
	for (size_t i = 0; key && i < sizeof(schema) / sizeof(schema[0]); i++)
		if (strcmp(schema[i].key, key) == 0)
			return schema[i].type == T_BOOL;
	return false;
}

const char *enav_config_bool_key(size_t config_bool)
{
	for (size_t i = 0; config_bool && i < sizeof(schema) / sizeof(schema[0]); i++)
		if (schema[i].type == T_BOOL && schema[i].off == config_bool - 1)
			return schema[i].key;
	return NULL;
}

bool enav_config_explicitly_on(const struct enav_config *cfg, const char *key)
{
	for (size_t i = 0; i < sizeof(schema) / sizeof(schema[0]); i++) {
		const struct field *f = &schema[i];
		if (strcmp(f->key, key) != 0)
			continue;
		if (!(cfg->explicit_keys[i / 64] >> (i % 64) & 1u))
			return false;
		return f->type == T_BOOL && *(const bool *)((const char *)cfg + f->off);
	}
	return false;
}

bool enav_config_deprecation(const struct enav_config *cfg, size_t row, char *note, size_t cap)
{
	if (row >= ARRAY_SIZE(renames) || !(cfg->deprecated_used >> row & 1u))
		return false;
	snprintf(note, cap,
		 "config: %s is deprecated; write %s instead (docs/configuration.md, "
		 "\"Deprecated keys\")",
		 renames[row].old, renames[row].new_key);
	return true;
}

static int validate_list(struct errout *e, const struct field *f, const struct enav_config_list *l)
{
	char where[128];

	if (l->n > ENAV_CONFIG_LIST_MAX)
		return fail(e, "%s: more than %d entries", f->key, ENAV_CONFIG_LIST_MAX);
	for (uint32_t i = 0; i < l->n; i++) {
		snprintf(where, sizeof(where), "%s[%" PRIu32 "]", f->key, i);
		if (!memchr(l->item[i], '\0', sizeof(l->item[i])))
			return fail(e, "%s: string is not terminated", where);
		if (check_string(e, f, where, l->item[i], strlen(l->item[i])))
			return -1;
	}
	return 0;
}

/* A label: exception must name a key under a prefix the operator reserved
 * (security.exception_label_prefixes): any other label is set by whoever
 * creates the pod, the tenant a finding is about (ADR 0019). */
int config_cross_checks(struct errout *e, const struct enav_config *cfg)
{
	const struct enav_config_list *pre = &cfg->security.exception_label_prefixes;
	for (int r = 0; r < ENAV_RULE__COUNT; r++) {
		const struct enav_config_list *l = &cfg->security.exceptions[r];
		for (uint32_t i = 0; i < l->n && i < ENAV_CONFIG_LIST_MAX; i++) {
			const char *v = l->item[i];
			if (strncmp(v, "label:", 6) != 0)
				continue;
			bool ok = false;
			for (uint32_t j = 0; j < pre->n && j < ENAV_CONFIG_LIST_MAX && !ok; j++)
				ok = strncmp(v + 6, pre->item[j], strlen(pre->item[j])) == 0;
			if (!ok)
				return fail(
				    e,
				    "security.exceptions: \"%.*s\" matches a label the pod's "
				    "creator sets; use namespace:, service: or cgroup:, or a "
				    "label key under security.exception_label_prefixes",
				    60, v);
		}
	}
	return 0;
}

int enav_config_validate(const struct enav_config *cfg, char *err, size_t errlen)
{
	struct errout e = {err, errlen};
	char text[32];

	if (err && errlen)
		err[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(schema); i++) {
		const struct field *f = &schema[i];
		const char *src = (const char *)cfg + f->off;
		uint32_t u;
		unsigned en;

		switch (f->type) {
		case T_MAP:
			break;
		case T_BOOL:
			/* A bool holding anything but 0/1 is undefined to read; check bytes. */
			if (*(const unsigned char *)src > 1)
				return fail(&e, "%s: not a boolean (allowed: true, false)", f->key);
			break;
		case T_U32:
			memcpy(&u, src, sizeof(u));
			snprintf(text, sizeof(text), "%" PRIu32, u);
			if (check_u32(&e, f, u, text))
				return -1;
			break;
		case T_ENUM:
			memcpy(&en, src, sizeof(en));
			if (en >= enum_count(f)) {
				char names[128];

				join_names(names, sizeof(names), f->names);
				return fail(&e, "%s: value %u is not allowed (allowed: %s)", f->key,
					    en, names);
			}
			break;
		case T_STR:
		case T_LISTEN:
			if (!memchr(src, '\0', f->size))
				return fail(&e, "%s: string is not terminated", f->key);
			if (check_string(&e, f, f->key, src, strlen(src)))
				return -1;
			break;
		case T_LIST:
			if (validate_list(&e, f,
					  (const struct enav_config_list *)(const void *)src))
				return -1;
			break;
		}
	}
	return config_cross_checks(&e, cfg);
}

int enav_config_listen_split(const char *listen, char *host, size_t hostlen, uint16_t *port)
{
	if (!listen || !listen_parse(listen, strlen(listen), host, hostlen, port))
		return -1;
	return 0;
}

const char *enav_transport_choice_name(enum enav_transport_choice t)
{
	return (unsigned)t < ARRAY_SIZE(transport_names) - 1 ? transport_names[t] : "unknown";
}

const char *enav_hook_choice_name(enum enav_hook_choice h)
{
	return (unsigned)h < ARRAY_SIZE(hook_names) - 1 ? hook_names[h] : "unknown";
}

const char *enav_log_level_name(enum enav_log_level l)
{
	return (unsigned)l < ARRAY_SIZE(log_level_names) - 1 ? log_level_names[l] : "unknown";
}
