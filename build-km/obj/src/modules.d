build-km/obj/src/modules.o: src/modules.c src/runtime/host.h \
  src/config/config.h src/platform/log.h src/platform/promtext.h \
  src/model/signal.h include/enav/abi.h src/model/cgroup_path.h \
  src/model/l7_op.h src/model/protocols.h src/probe/features.h \
  src/discovery/discovery.h src/discovery/k8s.h \
  src/features/network/net_edges.h src/features/network/red_metrics.h \
  src/features/process/process_metrics.h \
  src/features/security/security_findings.h src/enrich/attribution.h \
  src/exporters/ndjson/ndjson.h src/platform/json.h \
  src/exporters/otlp/otlp_sink.h src/exporters/prometheus/prometheus.h \
  src/features/process/exec_source.h \
  src/features/security/file_open_source.h \
  src/features/security/self_guard_source.h \
  src/features/host/host_source.h src/features/network/net_source.h \
  src/features/profiling/profile_source.h

src/runtime/host.h:

src/config/config.h:

src/platform/log.h:

src/platform/promtext.h:

src/model/signal.h:

include/enav/abi.h:

src/model/cgroup_path.h:

src/model/l7_op.h:

src/model/protocols.h:

src/probe/features.h:

src/discovery/discovery.h:

src/discovery/k8s.h:

src/features/network/net_edges.h:

src/features/network/red_metrics.h:

src/features/process/process_metrics.h:

src/features/security/security_findings.h:

src/enrich/attribution.h:

src/exporters/ndjson/ndjson.h:

src/platform/json.h:

src/exporters/otlp/otlp_sink.h:

src/exporters/prometheus/prometheus.h:

src/features/process/exec_source.h:

src/features/security/file_open_source.h:

src/features/security/self_guard_source.h:

src/features/host/host_source.h:

src/features/network/net_source.h:

src/features/profiling/profile_source.h:
