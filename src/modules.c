/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one table of compiled-in modules, in pipeline order.  Adding a module
 * means adding a row here; configuration can only switch rows on or off.
 *
 * The last three fields are services (runtime/host.h): what a row provides,
 * needs (it cannot start without) and wants (uses when provided).  Every
 * eBPF source wants the capture filter: without discovery it loads its own
 * maps, which let everything through.
 */
#define FILTER	  ENAV_SERVICE_BIT(ENAV_SERVICE_CAPTURE_FILTER)
#define DISCOVERY ENAV_SERVICE_BIT(ENAV_SERVICE_DISCOVERY)
#define PROFILES  ENAV_SERVICE_BIT(ENAV_SERVICE_PROFILES)
#include "runtime/host.h"
#include "discovery/discovery.h"
#include "features/network/net_edges.h"
#include "features/network/red_metrics.h"
#include "features/process/process_metrics.h"
#include "features/security/security_findings.h"
#include "enrich/attribution.h"
#include "exporters/ndjson/ndjson.h"
#include "exporters/otlp/otlp_sink.h"
#include "exporters/listener/listener.h"
#include "exporters/pyroscope/pyroscope.h"
#include "features/profiling/pprof_http.h"
#include "features/profiling/pprof_pull.h"
#include "features/profiling/profile_spool.h"
#include "features/process/exec_source.h"
#include "features/security/file_open_source.h"
#include "features/security/self_guard_source.h"
#include "features/node/node_source.h"
#include "features/network/net_source.h"
#include "features/profiling/profile_source.h"

const struct enav_module enav_modules[] = {
    {"discovery",
     ENAV_MODULE_DISCOVERY,
     enav_discovery_enabled,
     {.discovery = &enav_discovery_module_ops},
     NULL,
     .provides = FILTER | DISCOVERY},
    {"exec",
     ENAV_MODULE_SOURCE,
     enav_exec_source_enabled,
     {.source = &enav_exec_source_ops},
     "sources.exec.enabled",
     .wants = FILTER},
    {"host",
     ENAV_MODULE_SOURCE,
     enav_node_source_enabled,
     {.source = &enav_node_source_ops},
     NULL,
     .wants = DISCOVERY,
     .exposition_bound = enav_node_source_exposition_bound},
    {"network",
     ENAV_MODULE_SOURCE,
     enav_net_source_enabled,
     {.source = &enav_net_source_ops},
     "sources.network.enabled",
     .wants = FILTER},
    {"profiling",
     ENAV_MODULE_SOURCE,
     enav_profile_source_enabled,
     {.source = &enav_profile_source_ops},
     "profiling.enabled",
     .provides = PROFILES,
     .wants = FILTER | DISCOVERY},
    {"file_open",
     ENAV_MODULE_SOURCE,
     enav_file_open_source_enabled,
     {.source = &enav_file_open_source_ops},
     "sources.file_open.enabled",
     .wants = FILTER},
    /* Last source: it registers the BPF objects every other source made. */
    {"self_guard",
     ENAV_MODULE_SOURCE,
     enav_self_guard_source_enabled,
     {.source = &enav_self_guard_source_ops},
     "security.rules.agent_tampering",
     .wants = FILTER},
    {"attribution",
     ENAV_MODULE_PROCESSOR,
     enav_attribution_enabled,
     {.processor = &enav_attribution_ops},
     NULL,
     .wants = DISCOVERY},
    {"process_metrics",
     ENAV_MODULE_GENERATOR,
     enav_process_metrics_enabled,
     {.generator = &enav_process_metrics_ops},
     NULL,
     .provides = 0},
    {"network_edges",
     ENAV_MODULE_GENERATOR,
     enav_net_edges_enabled,
     {.generator = &enav_net_edges_ops},
     NULL,
     .provides = 0,
     .exposition_bound = enav_net_edges_exposition_bound},
    {"request_metrics",
     ENAV_MODULE_GENERATOR,
     enav_red_metrics_enabled,
     {.generator = &enav_red_metrics_ops},
     NULL,
     .provides = 0,
     .exposition_bound = enav_red_metrics_config_bound},
    {"security_findings",
     ENAV_MODULE_GENERATOR,
     enav_security_findings_enabled,
     {.generator = &enav_security_findings_ops},
     NULL,
     .provides = 0},
    {"ndjson",
     ENAV_MODULE_SINK,
     enav_ndjson_enabled,
     {.sink = &enav_ndjson_sink_ops},
     NULL,
     .provides = 0},
    /* Before the listener's row: it adds the /debug/pprof/ routes the
     * listener mounts, and stops after the listener does. */
    {"pprof_http",
     ENAV_MODULE_SINK,
     enav_pprof_http_enabled,
     {.sink = &enav_pprof_http_sink_ops},
     NULL,
     .wants = PROFILES},
    {"http",
     ENAV_MODULE_SINK,
     enav_listener_enabled,
     {.sink = &enav_listener_sink_ops},
     NULL,
     .provides = 0},
    {"otlp",
     ENAV_MODULE_SINK,
     enav_otlp_sink_enabled,
     {.sink = &enav_otlp_sink_ops},
     NULL,
     .wants = PROFILES},
    /* Sinks of profiles alone, fed through the host's profile consumers:
     * the intervals the profiling source closes, the profiles the pull
     * fetches.  The pull comes after the two it feeds, so it stops first
     * (sinks stop in reverse table order). */
    {"profile_spool",
     ENAV_MODULE_SINK,
     enav_profile_spool_enabled,
     {.sink = &enav_profile_spool_sink_ops},
     NULL,
     .wants = PROFILES},
    {"pyroscope",
     ENAV_MODULE_SINK,
     enav_pyroscope_enabled,
     {.sink = &enav_pyroscope_sink_ops},
     NULL,
     .wants = PROFILES},
    {"pprof_pull",
     ENAV_MODULE_SINK,
     enav_pprof_pull_enabled,
     {.sink = &enav_pprof_pull_sink_ops},
     NULL,
     .provides = 0},
};

const size_t enav_modules_count = sizeof(enav_modules) / sizeof(enav_modules[0]);
