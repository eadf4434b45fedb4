build-km/obj/src/exporters/otlp/otlp_sink.o: \
  src/exporters/otlp/otlp_sink.c src/exporters/otlp/otlp_sink.h \
  src/runtime/host.h src/config/config.h src/platform/log.h \
  src/platform/promtext.h src/model/signal.h include/enav/abi.h \
  src/model/cgroup_path.h src/model/l7_op.h src/model/protocols.h \
  src/probe/features.h src/platform/clock.h src/discovery/k8s.h \
  src/features/profiling/profile_store.h src/runtime/profiles.h \
  src/exporters/otlp/otlp_encode.h src/platform/protobuf.h \
  src/exporters/otlp/otlp_env.h src/exporters/otlp/otlp_spans.h \
  src/exporters/otlp/otlp_worker.h src/exporters/otlp/prom_to_otlp.h

src/exporters/otlp/otlp_sink.h:

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

src/platform/clock.h:

src/discovery/k8s.h:

src/features/profiling/profile_store.h:

src/runtime/profiles.h:

src/exporters/otlp/otlp_encode.h:

src/platform/protobuf.h:

src/exporters/otlp/otlp_env.h:

src/exporters/otlp/otlp_spans.h:

src/exporters/otlp/otlp_worker.h:

src/exporters/otlp/prom_to_otlp.h:
