/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Agent configuration: a YAML file checked against a compiled-in schema.
 * Every cap is a validated value with a documented default (docs/configuration.md).
 */
#ifndef ENAV_CONFIG_CONFIG_H
#define ENAV_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/log.h"

enum enav_transport_choice { ENAV_TRANSPORT_AUTO, ENAV_TRANSPORT_RINGBUF, ENAV_TRANSPORT_PERF };
enum enav_hook_choice { ENAV_HOOKS_AUTO, ENAV_HOOKS_FEXIT, ENAV_HOOKS_TRACEPOINT };
enum enav_exec_hook_choice { ENAV_EXEC_HOOK_AUTO, ENAV_EXEC_HOOK_BTF, ENAV_EXEC_HOOK_RAW };
enum enav_capture_policy {
	ENAV_CAPTURE_POLICY_ALL,
	ENAV_CAPTURE_POLICY_ALLOWLIST,
	ENAV_CAPTURE_POLICY_DENYLIST
};
enum enav_k8s_enable { ENAV_K8S_AUTO, ENAV_K8S_ON, ENAV_K8S_OFF };
enum enav_host_cgroup_scope {
	ENAV_HOST_CGROUPS_NONE,
	ENAV_HOST_CGROUPS_CONTAINERS,
	ENAV_HOST_CGROUPS_ALL
};

#define ENAV_CONFIG_PATH_MAX 256
#define ENAV_CONFIG_URL_MAX  256
/* String lists (YAML sequences of scalars): bounded count and entry length. */
#define ENAV_CONFIG_LIST_MAX   64
#define ENAV_CONFIG_ENTRY_MAX  256
#define ENAV_CONFIG_LISTEN_MAX 64
/* Largest config file (and parse input) accepted, in bytes. */
#define ENAV_CONFIG_FILE_MAX 1048576

enum enav_profile_event {
	ENAV_PROFILE_EVENT_AUTO = 0, /* cycles where the PMU offers it, else cpu-clock */
	ENAV_PROFILE_EVENT_CPU_CLOCK,
	ENAV_PROFILE_EVENT_CYCLES,
};

enum enav_otlp_compression {
	ENAV_OTLP_COMPRESSION_NONE = 0,
	ENAV_OTLP_COMPRESSION_GZIP,
	ENAV_OTLP_COMPRESSION_INHERIT, /* a signal's own setting: use exporters.otlp.compression */
};

/* A bounded list of strings from a YAML sequence. */
struct enav_config_list {
	uint32_t n;
	char item[ENAV_CONFIG_LIST_MAX][ENAV_CONFIG_ENTRY_MAX];
};

/* The security rules (src/features/security/security_findings.c), in config order. */
enum enav_security_rule {
	ENAV_RULE_EXEC_FROM_WRITABLE,
	ENAV_RULE_SHELL_FROM_SERVICE,
	ENAV_RULE_NEW_OUTBOUND_PORT,
	ENAV_RULE_CREDENTIALS_TO_ROOT,
	ENAV_RULE_SECRET_FILE_READ,
	ENAV_RULE_AGENT_TAMPERING,
	ENAV_RULE__COUNT,
};

#define ENAV_CONFIG_KEYS_MAX 512
/* Rows of the table of moved keys (config.c renames[]). */
#define ENAV_CONFIG_RENAMES 3

struct enav_config {
	/* Bit per schema key the file set (whatever the value): a feature the
	 * file asked for by name is refused loudly, not switched off quietly. */
	uint64_t explicit_keys[ENAV_CONFIG_KEYS_MAX / 64];
	/* Bit per moved key the file wrote under its old name (config.c renames[]). */
	uint32_t deprecated_used;
	enum enav_log_level log_level;	      /* log_level: error|warn|info|debug (info) */
	enum enav_transport_choice transport; /* transport: auto|ringbuf|perf (auto) */
	enum enav_hook_choice hooks;	      /* hooks: auto|fexit|tracepoint (auto) */
	uint32_t shutdown_timeout_ms;	      /* shutdown_timeout_ms: 100..10000 (1500) */
	/* drop_capabilities (true): after start, keep only what the enabled
	 * sources need at run time (src/probe/privileges.c) */
	bool drop_capabilities;

	struct {
		uint32_t ring_buffer_bytes; /* kernel.ring_buffer_bytes: pow2, 65536..268435456 (4
					       MiB) */
		uint32_t
		    perf_buffer_pages; /* kernel.perf_buffer_pages: pow2, 8..4096 (128) per CPU */
		uint32_t wakeup_bytes; /* kernel.wakeup_bytes: 0..1048576 (0 = wake per event) */
		uint32_t poll_interval_ms; /* kernel.poll_interval_ms: 1..1000 (50) */
		uint32_t
		    cgroup_verdict_entries; /* kernel.cgroup_verdict_entries: 64..1048576 (16384) */
	} kernel;

	struct {
		bool enabled;			 /* sources.exec.enabled (true) */
		uint32_t argv_max_bytes;	 /* sources.exec.argv_max_bytes: 16..4096 (256) */
		enum enav_exec_hook_choice hook; /* sources.exec.hook: auto|tp_btf|raw_tp (auto) */
	} exec;

	struct {
		uint32_t
		    cgroup_cache_entries; /* attribution.cgroup_cache_entries: 16..1048576 (4096) */
		uint32_t process_table_entries; /* attribution.process_table_entries: 16..1048576
						   (16384) */
		char cgroup2_mount[ENAV_CONFIG_PATH_MAX]; /* attribution.cgroup2_mount: path or "" =
							     detect */
	} attribution;

	struct {
		bool process_metrics; /* generators.process_metrics.enabled (true) */
	} generators;

	struct {
		bool enabled;			 /* exporters.ndjson.enabled (true) */
		char path[ENAV_CONFIG_PATH_MAX]; /* exporters.ndjson.path: "-" = stdout ("-") */
		uint32_t queue_capacity; /* exporters.ndjson.queue_capacity: 16..1048576 (8192) */
		uint32_t max_line_bytes; /* exporters.ndjson.max_line_bytes: 1024..65536 (16384) */
		/* exporters.ndjson.rate_limit.*: lines per second, 0 = no limit (ADR 0015):
		 * spans_per_second 0..1000000 (100), other_kinds_per_second
		 * 0..1000000 (1000) for each other kind. */
		struct {
			uint32_t spans_per_second;
			uint32_t other_kinds_per_second;
		} rate_limit;
	} ndjson;

	struct {
		/* exporters.prometheus.enabled (true): the /metrics route of the
		 * HTTP listener (http.*), which also serves health and pprof. */
		bool enabled;
	} prometheus;

	struct {
		bool enabled;			     /* http.enabled (true) */
		char listen[ENAV_CONFIG_LISTEN_MAX]; /* http.listen: "IPv4:port" ("127.0.0.1:9464")
						      */
		uint32_t max_connections;	     /* http.max_connections: 1..1024 (16) */
		/* The listener's exposure (ADR 0018). */
		/* http.health_listen: "IPv4:port" of /healthz and /readyz on a listener of
		 * their own ("127.0.0.1:9465"); "" = none (health only on http.listen). */
		char health_listen[ENAV_CONFIG_LISTEN_MAX];
		uint32_t
		    max_connections_per_client; /* http.max_connections_per_client: 1..1024 (8) */
		uint32_t idle_timeout_s;	/* http.idle_timeout_s: 1..600 (10) */
		/* http.request_timeout_s: 1..3600 (30): a request's header, and then its
		 * response, each within this (the handler's own time not counted). */
		uint32_t request_timeout_s;
		uint32_t max_profile_requests; /* http.max_profile_requests: 1..64 (2) */
		/* http.bearer_token_file: "" (none) or a file whose token /metrics and
		 * the /debug/pprof/ routes require as "Authorization: Bearer TOKEN". */
		char bearer_token_file[ENAV_CONFIG_PATH_MAX];
	} http;

	struct {
		/* capture.mode: all|allowlist|denylist (all).  all = no filtering. */
		enum enav_capture_policy mode;
		/* capture.selectors: list of "kind:value" strings, at most 64, each
		 * 3..255 bytes; kind is one of cgroup (a glob on the cgroup2 path),
		 * runtime, namespace, pod (namespace/name glob), label (key=value),
		 * service (namespace/name).  Empty list by default. */
		struct enav_config_list selectors;
	} capture;

	struct {
		bool inotify;		     /* discovery.inotify (true) */
		uint32_t max_watches;	     /* discovery.max_watches: 16..65536 (8192) */
		uint32_t rescan_interval_ms; /* discovery.rescan_interval_ms: 100..60000 (2000) */
		uint32_t max_cgroups;	     /* discovery.max_cgroups: 64..1048576 (16384) */
	} discovery;

	struct {
		enum enav_k8s_enable enabled; /* kubernetes.enabled: auto|true|false (auto) */
		char api_server[ENAV_CONFIG_URL_MAX];  /* kubernetes.api_server: URL or "" =
							  in-cluster */
		char kubeconfig[ENAV_CONFIG_PATH_MAX]; /* kubernetes.kubeconfig: path or "" */
		char token_file[ENAV_CONFIG_PATH_MAX]; /* kubernetes.token_file (in-cluster default)
							*/
		char ca_file[ENAV_CONFIG_PATH_MAX];    /* kubernetes.ca_file (in-cluster default) */
		char node_name[ENAV_CONFIG_ENTRY_MAX]; /* kubernetes.node_name: "" = $NODE_NAME or
							  hostname */
		struct enav_config_list
		    keep_labels;	     /* kubernetes.keep_labels: label keys kept (none) */
		uint32_t max_pods;	     /* kubernetes.max_pods: 16..65536 (2048) */
		uint32_t max_services;	     /* kubernetes.max_services: 16..65536 (4096) */
		uint32_t max_endpointslices; /* kubernetes.max_endpointslices: 16..65536 (8192) */
		uint32_t
		    request_timeout_ms; /* kubernetes.request_timeout_ms: 100..120000 (10000) */
	} kubernetes;

	struct {
		bool enabled;		  /* sources.network.enabled (true) */
		uint32_t max_connections; /* sources.network.max_connections: 64..1048576 (65536) */
		uint32_t dns_capture_bytes; /* sources.network.dns_capture_bytes: 0..512 (512) */
		uint32_t max_edges;	    /* sources.network.max_edges: 16..65536 (1024) */
		/* sources.network.edge_idle_s: 10..86400 (600): edge totals unseen this long go */
		uint32_t edge_idle_s;
		uint32_t
		    edge_interval_ms; /* sources.network.edge_interval_ms: 1000..3600000 (15000) */
		uint32_t
		    dns_cache_entries; /* sources.network.dns_cache_entries: 16..1048576 (4096) */
		/* Application protocols (sources.network.l7.*, docs/protocols.md). */
		struct {
			bool enabled; /* .enabled (true) */
			/* .protocols: names from src/model/protocols.c; empty = all */
			struct enav_config_list protocols;
			uint32_t capture_bytes; /* .capture_bytes: 16..4096 (256) */
			/* .http2_capture_bytes: 256..4096 (4096): HTTP/2 header blocks and
			 * control frames are captured whole up to this (never DATA) */
			uint32_t http2_capture_bytes;
			uint32_t max_connections; /* .max_connections: 16..1048576 (4096) */
			uint32_t max_pending;	  /* .max_pending: 1..32 (32) */
			uint32_t idle_timeout_ms; /* .idle_timeout_ms: 1000..86400000 (300000) */
			bool keep_query;	  /* .keep_query (false): HTTP query strings */
			bool sanitized_statement; /* .sanitized_statement (false): SQL text,
						     literals replaced by '?' */
			/* .max_series: 16..20000 (500): label sets per RED metric family */
			uint32_t max_series;
			/* .series_idle_s: 10..86400 (600): a label set unseen this long goes */
			uint32_t series_idle_s;
		} l7;
		/* TLS plaintext (sources.network.tls.*, docs/protocols.md#tls). */
		struct {
			bool enabled; /* .enabled (true; needs l7) */
			/* .libraries: openssl, gnutls, go; empty = all */
			struct enav_config_list libraries;
			uint32_t max_binaries;	   /* .max_binaries: 1..1024 (64) probed files */
			uint32_t max_probes;	   /* .max_probes: 16..65536 (2048) uprobes */
			uint32_t max_sessions;	   /* .max_sessions: 64..1048576 (16384) */
			uint32_t max_inflight;	   /* .max_inflight: 64..1048576 (4096) calls */
			uint32_t scan_interval_ms; /* .scan_interval_ms: 500..3600000 (10000) */
			/* .max_file_bytes: 1 MiB..2 GiB (256 MiB) read of one file */
			uint32_t max_file_bytes;
			uint32_t max_file_ms; /* .max_file_ms: 10..60000 (10000) */
		} tls;
	} network;

	struct {
		bool enabled;	      /* host.enabled (true): node and cgroup resource metrics */
		uint32_t cache_ms;    /* host.cache_ms: 0..60000 (0 = read at every scrape) */
		uint32_t max_devices; /* host.max_devices: 1..4096 (256) per kind: disks, NICs,
					 filesystems, CPUs */
		enum enav_host_cgroup_scope
		    cgroups;	      /* host.cgroups: none|containers|all (containers) */
		uint32_t max_cgroups; /* host.max_cgroups: 1..65536 (1024) cgroups reported */
	} host;

	struct {
		bool enabled;		       /* profiling.enabled (true) */
		uint32_t frequency_hz;	       /* profiling.frequency_hz: 1..1000 (99) */
		enum enav_profile_event event; /* profiling.event: auto|cpu-clock|cycles (auto) */
		uint32_t interval_ms;	       /* profiling.interval_ms: 1000..3600000 (15000) */
		uint32_t drain_ms; /* profiling.drain_ms: 100..60000 (1000) kernel map drains */
		uint32_t stack_map_entries; /* profiling.stack_map_entries: 1024..1048576 (16384) */
		uint32_t count_map_entries; /* profiling.count_map_entries: 1024..1048576 (16384) */
		uint32_t retention_ms;	    /* profiling.retention_ms: 10000..3600000 (120000) */
		uint32_t
		    max_stored_stacks; /* profiling.max_stored_stacks: 1024..4194304 (262144) */
		uint32_t
		    max_store_mb; /* profiling.max_store_mb: 1..65536 (64) kept stacks' memory */
		uint32_t max_stack_depth; /* profiling.max_stack_depth: 8..127 (127) */
		bool unwind_eh_frame; /* profiling.unwind.eh_frame (true): .eh_frame unwinding */
		uint32_t unwind_max_rows; /* profiling.unwind.max_rows: 4096..16777216 (1048576) */
		uint32_t unwind_max_binary_rows; /* profiling.unwind.max_binary_rows:
						    1024..16777216 (524288) */
		uint32_t
		    unwind_max_processes;     /* profiling.unwind.max_processes: 16..65536 (1024) */
		uint32_t unwind_max_binaries; /* profiling.unwind.max_binaries: 4..65536 (512) */
		bool offcpu;		      /* profiling.offcpu.enabled (true) */
		uint32_t offcpu_min_us; /* profiling.offcpu.min_block_us: 0..10000000 (1000) */
		uint32_t offcpu_sample_every; /* profiling.offcpu.sample_every: 1..1000000 (1) */
		bool futex;		      /* profiling.futex.enabled (true) */
		uint32_t futex_min_us;	      /* profiling.futex.min_wait_us: 0..10000000 (10) */
		uint32_t futex_sample_every;  /* profiling.futex.sample_every: 1..1000000 (1) */
		/* profiling.links: samples name the request their thread served */
		bool links;		    /* profiling.links.enabled (true) */
		uint32_t links_max_threads; /* profiling.links.max_threads: 256..1048576 (16384) */
		uint32_t links_max_spans;   /* profiling.links.max_spans: 1024..4194304 (65536) */
		uint32_t links_hold_ms;	    /* profiling.links.hold_ms: 0..600000 (10000) */
		uint32_t max_pending_waits; /* profiling.max_pending_waits: 256..1048576 (16384) */
		uint32_t max_processes; /* profiling.max_processes: 64..1048576 (4096) snapshots */
		uint32_t max_elf_files; /* profiling.max_elf_files: 4..65536 (256) symbol tables */
		uint32_t tenant_memory_mb; /* profiling.tenant_memory_mb: 8..4096 (128) ADR 0020 */
		char spool_dir[ENAV_CONFIG_PATH_MAX]; /* profiling.spool.dir: "" = no spool ("") */
		uint32_t spool_max_mb;		      /* profiling.spool.max_mb: 1..1048576 (256) */
		uint32_t spool_max_age_s; /* profiling.spool.max_age_s: 60..31536000 (86400) */
		char
		    pyroscope_url[ENAV_CONFIG_URL_MAX]; /* exporters.pyroscope.url: "" = off ("") */
		char pyroscope_app[ENAV_CONFIG_ENTRY_MAX]; /* exporters.pyroscope.app_name ("enav")
							    */
		uint32_t
		    pyroscope_timeout_ms; /* exporters.pyroscope.timeout_ms: 100..120000 (10000) */
		uint32_t pyroscope_queue; /* exporters.pyroscope.queue_capacity: 1..65536 (256) */
		uint32_t pyroscope_retries; /* exporters.pyroscope.max_retries: 0..20 (3) */
		/* profiling.filter.allow: module path prefixes that are the operator's
		 * own code, on top of each Go binary's main and replaced modules */
		struct enav_config_list filter_allow;
		bool local_unfiltered; /* profiling.filter.local_unfiltered (false) */
		bool pull;	       /* profiling.pull.enabled (false) */
		bool pull_discover;    /* profiling.pull.discover (true) */
		struct enav_config_list pull_targets; /* profiling.pull.targets: http://host:port */
		uint32_t pull_seconds;		      /* profiling.pull.seconds: 1..60 (10) */
		uint32_t pull_round_ms;	     /* profiling.pull.round_ms: 1000..86400000 (300000) */
		uint32_t pull_max_per_round; /* profiling.pull.max_per_round: 1..1000 (10) */
		uint32_t pull_hold_ms;	   /* profiling.pull.hold_ms: 1000..604800000 (21600000) */
		uint32_t pull_max_targets; /* profiling.pull.max_targets: 1..4096 (256) */
	} profiling;

	/* Opens of watched files (sources.file_open.*, docs/security.md). */
	struct {
		bool enabled; /* .enabled (false): costs every open(2) on the node */
		/* .watch_paths: absolute paths or globs; empty = the built-in list */
		struct enav_config_list watch_paths;
		uint32_t max_watched_files;  /* .max_watched_files: 1..65536 (1024) */
		uint32_t rescan_interval_ms; /* .rescan_interval_ms: 500..3600000 (10000) */
		/* .host_root: where the node's root filesystem is mounted when the
		 * agent runs in a container ("" = "/") */
		char host_root[256];
	} file_open;

	struct {
		bool enabled;		  /* security.enabled (true): the findings generator */
		bool exec_from_writable;  /* security.rules.exec_from_writable_location (true) */
		bool shell_from_service;  /* security.rules.shell_from_network_service (true) */
		bool new_outbound_port;	  /* security.rules.new_outbound_port (true) */
		bool credentials_to_root; /* security.rules.credentials_to_root (true) */
		bool secret_file_read;	  /* security.rules.secret_file_read (true) */
		bool agent_tampering;	  /* security.rules.agent_tampering (true) */
		/* security.secret_file_readers: executables (absolute paths or globs)
		 * that may open watched files; empty = the built-in list */
		struct enav_config_list secret_file_readers;
		/* security.self_check_interval_ms: 200..3600000 (5000): how often the
		 * agent checks its own kernel maps and objects */
		uint32_t self_check_interval_ms;
		/* security.exceptions.<rule>: workload selectors (capture.selectors
		 * syntax) whose findings of that rule are not emitted */
		struct enav_config_list exceptions[ENAV_RULE__COUNT];
		/* security.max_tracked_processes: 16..4194304 (65536) exec uids kept */
		uint32_t max_tracked_processes;
		/* security.outbound_learning_ms: 1000..604800000 (300000) */
		uint32_t outbound_learning_ms;
		/* security.max_baseline_entries: 16..1048576 (16384) (workload, port) */
		uint32_t max_baseline_entries;
		uint32_t rate_per_minute;  /* security.rate_limit_per_minute: 1..10000 (10) */
		uint32_t max_services;	   /* security.max_tracked_services: 16..1048576 (4096) */
		uint32_t max_rate_entries; /* security.max_rate_entries: 16..1048576 (4096) */
		/* security.workload_rate_limit_per_minute: 1..100000 (100): findings of
		 * one rule in one workload a minute, whatever their evidence (ADR 0019) */
		uint32_t workload_rate_per_minute;
		/* security.exception_label_prefixes: label-key prefixes an admission
		 * policy reserves to the operator; a label: exception must use one
		 * (a tenant sets its own pods' other labels: ADR 0019) */
		struct enav_config_list exception_label_prefixes;
	} security;

	/* OTLP/HTTP export (docs/otlp.md); "" endpoints fall back to the
	 * OTEL_EXPORTER_OTLP_* environment. */
	struct {
		char endpoint[ENAV_CONFIG_URL_MAX]; /* exporters.otlp.endpoint: base URL ("") */
		/* exporters.otlp.<signal>.*: metrics, traces, logs, profiles.  Zero, "" and
		 * "inherit" take the otlp.* value; headers add to exporters.otlp.headers. */
		struct enav_otlp_signal_config {
			bool enabled; /* exporters.otlp.<signal>.enabled (true) */
			char endpoint[ENAV_CONFIG_URL_MAX];	/* full URL, used as is ("") */
			uint32_t timeout_ms;			/* 0 or 100..120000 (0) */
			uint32_t queue_capacity;		/* 0 or 16..1048576 (0) */
			uint32_t batch_max_items;		/* 0 or 1..65536 (0) */
			enum enav_otlp_compression compression; /* inherit|none|gzip (inherit) */
			struct enav_config_list headers;	/* "Name: value" */
			char ca_file[ENAV_CONFIG_PATH_MAX], cert_file[ENAV_CONFIG_PATH_MAX],
			    key_file[ENAV_CONFIG_PATH_MAX];
		} metrics, traces, logs, profiles;
		struct enav_config_list headers;	 /* exporters.otlp.headers: "Name: value" */
		char headers_file[ENAV_CONFIG_PATH_MAX]; /* exporters.otlp.headers_file: one header
							    a line */
		enum enav_otlp_compression
		    compression;	  /* exporters.otlp.compression: none|gzip (none) */
		uint32_t timeout_ms;	  /* exporters.otlp.timeout_ms: 100..120000 (10000) */
		uint32_t queue_capacity;  /* exporters.otlp.queue_capacity: 16..1048576 (4096) */
		uint32_t batch_max_items; /* exporters.otlp.batch_max_items: 1..65536 (512) */
		uint32_t
		    batch_max_delay_ms; /* exporters.otlp.batch_max_delay_ms: 10..60000 (5000) */
		uint32_t metrics_interval_ms; /* exporters.otlp.metrics_interval_ms: 1000..3600000
						 (15000) */
		uint32_t
		    max_elapsed_ms; /* exporters.otlp.retry_max_elapsed_ms: 0..3600000 (60000) */
		uint32_t backoff_initial_ms;  /* exporters.otlp.retry_initial_ms: 10..60000 (500) */
		uint32_t backoff_max_ms;      /* exporters.otlp.retry_max_ms: 10..600000 (30000) */
		uint32_t breaker_failures;    /* exporters.otlp.breaker_failures: 1..1000 (5) */
		uint32_t breaker_cooldown_ms; /* exporters.otlp.breaker_cooldown_ms: 100..3600000
						 (30000) */
		char ca_file[ENAV_CONFIG_PATH_MAX];   /* exporters.otlp.ca_file ("") */
		char cert_file[ENAV_CONFIG_PATH_MAX]; /* exporters.otlp.cert_file ("") */
		char key_file[ENAV_CONFIG_PATH_MAX];  /* exporters.otlp.key_file ("") */
	} otlp;
};

/* Fill with the documented defaults. */
void enav_config_defaults(struct enav_config *cfg);

/*
 * Parse YAML text over the defaults already in cfg.  On error returns -1 and
 * writes exactly one line (no trailing newline) into err naming the key and
 * what is allowed, e.g.
 *   "sources.exec.argv_max_bytes: 99999 is out of range (allowed 16..4096)".
 */
int enav_config_parse(struct enav_config *cfg, const char *yaml, size_t len, char *err,
		      size_t errlen);

/* Read a file and parse it; file errors are reported the same way. */
/* True when the file set key (a schema key such as
 * "sources.network.tls.enabled") to true; false for an unknown key. */
bool enav_config_explicitly_on(const struct enav_config *cfg, const char *key);
/* key is a boolean row of the schema (what a module row's or a BPF
 * feature's switch must name for an explicit "on" to make it required). */
bool enav_config_key_is_bool(const char *key);
/* A boolean member of struct enav_config as a number a static table can
 * hold: its offset plus one, so that 0 names none.  Compiling fails when the
 * member is not a bool, so a table row cannot name a size or a string. */
#define ENAV_CONFIG_BOOL(member)                                                                   \
	(offsetof(struct enav_config, member) + 1 +                                                \
	 0 * sizeof(_Generic(((struct enav_config *)0)->member, bool : 1)))
/* The schema key of the boolean row ENAV_CONFIG_BOOL(member) names (for
 * enav_config_explicitly_on and messages); NULL for 0, or for a bool member
 * the file cannot set (no schema row). */
const char *enav_config_bool_key(size_t config_bool);
/* The deprecation note of renames row `row` when the last parse met its old
 * key: true and one line in note.  enav_config_load warns each one. */
bool enav_config_deprecation(const struct enav_config *cfg, size_t row, char *note, size_t cap);

int enav_config_load(struct enav_config *cfg, const char *path, char *err, size_t errlen);

/*
 * Check a config built in memory (e.g. defaults plus command-line overrides)
 * against the same schema; errors are reported like enav_config_parse's.
 */
int enav_config_validate(const struct enav_config *cfg, char *err, size_t errlen);

/* Split http.listen into a host and a port; 0 on success. */
int enav_config_listen_split(const char *listen, char *host, size_t hostlen, uint16_t *port);

const char *enav_transport_choice_name(enum enav_transport_choice t);
const char *enav_hook_choice_name(enum enav_hook_choice h);
const char *enav_log_level_name(enum enav_log_level l);

#endif
